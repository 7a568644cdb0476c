"""The MeTeoR rule reader without lark (language/meteor_rules.py) against
the grammar: on every rule line of the public suites' MeTeoR programs and
on random lines (keywords as names, blanks, windows of every form, errors),
it either leaves the line to lark or builds the very rule lark builds,
every node's type, value and position included."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import public_suites
from chronolog.language import meteor
from chronolog.language.errors import ChronologError
from chronolog.language.meteor_rules import read_rule
from test_vadalog_rules import _same  # (one field-by-field comparison of ASTs for both readers' tests)

ROOT = Path(__file__).resolve().parent.parent


def _lark(line: str, lineno: int = 1):
    """The rule lark reads on ``line``, or None where it reads none (an error, a fact)."""
    try:
        item = meteor._parse_line(line, lineno, "<p>")
    except ChronologError:
        return None
    return item if isinstance(item, meteor.ast.Rule) else None


def _fast(line: str, lineno: int = 1):
    return read_rule(line, lineno, "<p>", meteor.DIALECT.is_variable)


def _agree(line: str, lineno: int = 1) -> bool:
    """The fast reader leaves the line to lark or reads what lark reads."""
    fast = _fast(line, lineno)
    return fast is None or _same(fast, _lark(line, lineno))


def _suite_programs() -> list:
    """Every MeTeoR program file of the public suites found here, and bench's."""
    out = sorted((ROOT / "bench" / "programs").glob("*.meteor"))
    for suite, under in (("meteor-sdist", "experiments"), ("meteor", "experiments/AAAI2022/programs")):
        d = public_suites.find(suite)
        if d is not None:
            out += sorted(p for p in (d / under).rglob("*.txt") if "dataset" not in p.name and p.name != "README.txt")
    return out


BIG = 3000  # lines of a program beyond this are sampled (lark takes ~0.5 ms a line)


@pytest.mark.parametrize("path", _suite_programs(), ids=lambda p: p.name)
def test_suite_programs_read_alike(path):
    lines = list(enumerate(path.read_text().splitlines(), 1))
    rules = [(n, x) for n, x in lines if ":-" in x]
    if len(rules) > BIG:
        rules = random.Random(0).sample(rules, BIG)
    left = []
    for n, line in rules:
        fast, lark = _fast(line, n), _lark(line, n)
        if fast is None:
            if lark is not None:
                left.append(line)
        else:
            assert _same(fast, lark), (path.name, n, line)
    assert not left, "every rule line of the suites is of the common shape"


def test_the_line_without_a_comma_goes_to_lark():
    """simple_shortbreak_1.txt's line 52117 (two body literals without a
    comma): left to lark, which names the place."""
    line = "S(V):-O(V,a),Boxminus[4,4]O(V,b,c)Boxminus[5,5]O(V,c,d)"
    assert _fast(line) is None
    with pytest.raises(ChronologError, match="unexpected 'Boxminus'"):
        meteor.parse(line)


@pytest.mark.parametrize(
    "line",
    [
        "A(X):- B(a), Diamondminus[1,2]D(X)",
        "D(X):- Boxminus[1,2]A(X), B(X)Since[1,2]C",
        "a1:C(X):- a1:p(Y,X)Since(0,1]a1:Pub(Y),Boxminus[0,1]a1:G(X)",
        "Boxplus[1,1]R5(Y):- R2(X,Y),Boxplus[1,2]R3(Y,Z)",
        "Boxminus[1,2] Boxplus[0,1] H(X) :- B(X) || C(X), Diamondplus[0,+inf) E(X).",
        "P(X):- A(X)Since[1,2]B(X)Until[0,1]C(X)",
        "P(X):- ASince[1,2]B",
        "P(X, -3, 1/3, 0.5e1, \"a\\\"b\"):- Q(X)",
        "P(X):- Diamondminus[0,inf)Q(X), Boxplus[2]R(X)",
        "  P(X) :-\tQ(X) . ",
        "Topic(X):- Bottomless(X), Since(X), Boxminus(X), inf(X), Untilx(X)",
    ],
)
def test_lines_read_alike(line):
    fast = _fast(line, 7)
    lark = _lark(line, 7)
    assert lark is not None
    assert fast is not None and _same(fast, lark), line


@pytest.mark.parametrize(
    "line",
    [
        "P(X):- Top, Q(X)",
        "Bottom :- Q(X)",
        "P(X):- SOMETIME[-2,-1]Q(X)",
        "P(X):- ALWAYS[1,2]Q(X)",
        "P(X):- Q(X)UNTIL[1,2]R(X)",
        "P(X):- <->[1,2]Q(X)",
        "P(X):- (Q(X)Since[1,2]R(X))",
        "Diamondminus[1,2]P(X):- Q(X)",  # a diamond head: lark's transformer says why not
        "P(X):- Diamondminus[2,1]Q(X)",  # an empty window
        "P(X):- Boxminus[-2,-1]Q(X)",  # a negative window
        "P(X):- Diamondminus[-inf,0]Q(X)",
        "P(X):- Q(X) || R(X) || S(X)",
        "P(X):- Q(X",
        "P(X):- Q(X)R(X)",
    ],
)
def test_lines_left_to_lark(line):
    assert _fast(line) is None


# ------------------------------------------------------------------ random lines

_NAMES = ["p", "Q", "a1:Pub", "Since", "Until", "UNTIL", "Top", "Topic", "Bottom", "inf", "Boxminus",
          "Diamondplus", "SOMETIME", "xSince", "_x", "X", "V1"]
_OPS = ["Diamondminus", "Diamondplus", "Boxminus", "Boxplus", "Boxminus", "Boxplus", "SOMETIME", "ALWAYS", "<->", "[-]"]
_BOUNDS = ["0", "1", "2", "-1", "+1", "1.5", "1/3", ".5", "2e0", "inf", "+inf", "-inf", "infty", "3/0", "x"]
_VALID = ["0", "0", "1", "+1", "1.5", "1/3", ".5", "2e0", " 1 "]
_GAPS = ["", "", "", " ", "\t", "  "]


@st.composite
def _lines(draw):
    gap = lambda: draw(st.sampled_from(_GAPS))  # noqa: E731

    def window():
        if draw(st.integers(0, 4)) == 0:  # (mostly windows that read: an error leaves the line to lark)
            lo, hi = draw(st.sampled_from(_BOUNDS)), draw(st.sampled_from(_BOUNDS))
        else:
            lo, hi = draw(st.sampled_from(_VALID)), draw(st.sampled_from(["2", "+inf", "inf", "5/2", "3.0"]))
        inner = lo if draw(st.integers(0, 5)) == 0 else f"{lo}{gap()},{gap()}{hi}"
        return f"{draw(st.sampled_from('[[[('))}{gap()}{inner}{gap()}{draw(st.sampled_from(']]])'))}"

    def term():
        return draw(st.sampled_from(["X", "Y", "a", "1", "-2", "0.5", '"s,t"', "inf", "Since", "_"]))

    def atom():
        name = draw(st.sampled_from(_NAMES))
        k = draw(st.integers(-1, 3))
        if k < 0:
            return name
        return f"{name}{gap()}({','.join(gap() + term() + gap() for _ in range(k))})"

    def literal(depth=0):
        roll = draw(st.integers(0, 9))
        if roll < 5 or depth > 2:
            return atom()
        if roll < 8:
            return f"{draw(st.sampled_from(_OPS))}{gap()}{window()}{gap()}{literal(depth + 1)}"
        return f"{atom()}{gap()}{draw(st.sampled_from(['Since', 'Until', 'UNTIL']))}{window()}{gap()}{literal(depth + 1)}"

    head = atom() if draw(st.booleans()) else f"{draw(st.sampled_from(_OPS))}{window()}{atom()}"
    body = f",{gap()}".join(literal() for _ in range(draw(st.integers(1, 4))))
    if draw(st.integers(0, 3)) == 0:
        body += f"{gap()}||{gap()}" + ",".join(literal() for _ in range(draw(st.integers(1, 2))))
    sep = draw(st.sampled_from([":-", ":-", ": -", ":- "]))
    end = draw(st.sampled_from(["", "", "", ".", " .", "", ". x", ","]))
    return f"{gap()}{head}{gap()}{sep}{gap()}{body}{end}{gap()}"


@settings(max_examples=examples(2000), deadline=None)
@given(_lines())
def test_random_lines_read_alike(line):
    assert _agree(line, 3), line


def test_random_lines_are_mostly_read_fast():
    """The random lines above without the forms left to lark are all read."""
    rng = random.Random(1)
    names = ["p", "Q", "a1:Pub", "Topic", "inf", "xSince", "Untilx", "V1"]
    for _ in range(examples(500)):
        body = ",".join(
            f"{rng.choice(['', 'Boxminus[0,1]', 'Diamondplus(1, inf)'])}{rng.choice(names)}(X{',a' * rng.randint(0, 2)})"
            for _ in range(rng.randint(1, 4))
        )
        line = f"{rng.choice(names)}(X):-{body}"
        fast = _fast(line)
        assert fast is not None and _same(fast, _lark(line)), line


def test_deep_nesting_goes_to_lark():
    """Operators nested beyond a few dozen levels: lark reads them or says
    they are nested too deeply (its recursion), as before this reader."""
    assert _fast("P(X):- " + "Diamondminus[0,1]" * 32 + "Q(X)") is not None
    assert _fast("P(X):- " + "Diamondminus[0,1]" * 33 + "Q(X)") is None
    assert _fast("P(X):- " + "Q(X)Since[0,1]" * 33 + "Q(X)") is None
