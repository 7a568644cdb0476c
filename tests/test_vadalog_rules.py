"""The Temporal Vadalog rule reader without lark (language/vadalog_rules.py)
against the grammar alone (``DIALECT.read``, how every program was read
before): on every program of the tests, examples, docs and bench, on every
program text in the tests' sources, on random rule lines and on bad input,
a program reads to the very rules, facts and annotations lark builds (every
node's type, value and position, and each rule's text) or to the very same
error."""

from __future__ import annotations

import ast as pyast
import dataclasses
import random
import re
import sys
from pathlib import Path

import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from chronolog.language import vadalog
from chronolog.language.errors import ChronologError
from chronolog.language.nulls import Null, reading_file
from chronolog.language.vadalog_rules import read_fact_lines, read_statements

ROOT = Path(__file__).resolve().parent.parent


def _same(a, b) -> bool:
    """Equal with every field compared (positions too) and numbers of the same type."""
    if type(a) is not type(b):
        return False
    if dataclasses.is_dataclass(a):
        return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if type(a) is Null:  # (each reading has its own scope of labels)
        return a.label == b.label
    return a == b


def _outcome(read, text: str):
    """The program ``read`` makes of ``text`` (before dates are resolved), or its error's words."""
    try:
        with reading_file():
            return read(text, "<p>")
    except ChronologError as e:
        return f"{type(e).__name__}: {e}"


def _lark(text: str):
    return _outcome(vadalog.DIALECT.read, text)


def _both(text: str):
    return _outcome(vadalog._read, text)


def _fast_rules(text: str) -> int:
    """How many rules of ``text`` the reader reads itself."""
    return len(_fast(text)[0])


def _fast(text: str):
    """The rules and annotations of ``text`` the reader reads itself."""
    got = read_statements(text, "<p>", vadalog._ToAst(vadalog.DIALECT, "<p>", []))
    return ([], []) if got is None else got[:2]


def _agree(text: str) -> bool:
    return _same(_both(text), _lark(text))


# ------------------------------------------------------------------ every program here


def _programs() -> list:
    """(name, text) of the Temporal Vadalog programs of the tests, examples,
    bench and docs."""
    out = [(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8"))
           for d in ("tests/data", "examples", "bench/programs") for p in sorted((ROOT / d).rglob("*.vada"))]
    fence = re.compile(r"^```vadalog[^\n]*\n(.*?)^```", re.S | re.M)
    for doc in sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]:
        out += [(f"{doc.name}#{i}", m.group(1)) for i, m in enumerate(fence.finditer(doc.read_text(encoding="utf-8")))]
    return out


def _test_texts() -> list:
    """Every string in the tests' sources that holds a rule (programs, and bad ones)."""
    out = []
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        tree = pyast.parse(path.read_text(encoding="utf-8"))
        out += [n.value for n in pyast.walk(tree)
                if isinstance(n, pyast.Constant) and isinstance(n.value, str) and ":-" in n.value and len(n.value) < 20_000]
    return sorted(set(out))


PROGRAMS = _programs()


@pytest.mark.parametrize("name,text", PROGRAMS, ids=[n for n, _ in PROGRAMS])
def test_programs_read_alike(name, text):
    assert _same(_both(text), _lark(text)), name


def test_the_programs_rules_are_read_fast():
    """Every rule of the programs here is of the common shape."""
    fast = sum(_fast_rules(t) for _, t in PROGRAMS)
    lark = sum(len(p.rules) for p in map(_lark, (t for _, t in PROGRAMS)) if not isinstance(p, str))
    assert lark > 400 and fast == lark, (fast, lark)


def test_every_program_text_of_the_tests_reads_alike():
    """Programs and bad programs the tests hold as strings (thousands): the
    same program or the same error, place and words."""
    texts = _test_texts()
    assert len(texts) > 1000
    differ = [t for t in texts if not _agree(t)]
    assert not differ, differ[:3]


def test_bench_programs_read_alike():
    """The programs bench/vadalog_parse.py and bench/cliffs.py generate."""
    sys.path.insert(0, str(ROOT / "bench"))
    from cliffs import many_rules
    from vadalog_parse import program

    for text in (program(300, seed=3), many_rules(200)):
        assert _fast_rules(text) == text.count(":-")
        assert _same(_both(text), _lark(text))


# ------------------------------------------------------------------ lines and places


@pytest.mark.parametrize(
    "text",
    [
        "p(X) :- not q(X), (X + 1) > 3, -X < 2, Y = X * 2 + 1, r(X, a).",
        '  [+][0,1] p(X,-3,"a\\"b") :- q(X) <S>[0,1] r(X), <->[0,2] s  .  % c',
        "p(X) :- q(X), X>1, Y = 1/2, Z = 1 / 2, W = 3/6, V = 1.5e3, U = -inf, T = +inf.",
        "p(inf, not1, P3D, infinity) :- q(1, #T), #F, #T, X <> Y, X == 2.",
        "m(N, S) :- p(N, V), S = sum(V * 2), C = count(), M = max(V), A = min(X, Y).",
        "⊥ :- a(X), b(X).",
        "[-][0,1] [+](0,2) p :- [-][1, +inf) q, <+>(0,3) r(X) <U>[2,2] s(X).",
        "p(X) :- q(X), Y = abs(X - 3) / 2, Y >= sqrt(X), s(), upper(X) != \"A\".",
        "p(X):-q(X),not<->[0,1]r(X),X>=-3.",
        "discount(X) :- goes(X, M), X < \"n2500\", M = \"a,b\".",
        "p(X) :- /\\[months] q(X), /\\[3 months] r(X), /\\[7] s(X), /\\1 years t(X), △[weeks] u(X), /\\[] v(X).",
        "p(X) :- q(X)@[S,E], r(X)@T, <->[0,1] s(X)@(A, B), D = E - S.",
        "[+][0,1] p(X)@[S,E) :- q(X)@[S,E].",
        "p(X, S, N) :- q(X, Y, C), S = msum(Y, <C>), T = sum(Y * 2, < C , X >), N = mcount(<C>).",
        "late(T, D) :- due(T, D), D < 2020-02-01, D >= 2019-12-31T12:30:00, q(1999-01-01T00:00:00Z).",
        "p(X) :- <->[0, P3D] q(X), [-](PT12H, P1DT6H30M] r(X), <+>[2020-01-01, 2020-02-01) s(X), <->[0, 1] t(X).",
    ],
)
def test_lines_read_fast_and_alike(text):
    for padded in (text, "% before\n\n" + text + "\n", "q(a)@1.\n  " + text + "  \n", "q(a)@1.\r\n" + text + "\r\nr :- s.\r\n"):
        assert _fast_rules(padded) == 1 + ("r :- s." in padded), padded
        assert _agree(padded), padded


@pytest.mark.parametrize(
    "text",
    [
        "p(X) :- q(X, _:n1).",  # labelled nulls
        "p(X) :- <->[0, P3M] q(X).",  # errors: lark says what is wrong
        "p(X) :- q(X, 2020-02-30).",
        "p(X) :- <->[2020-01-01, P] q(X).",
        "p(X) :- <->[-P1D, 0] q(X).",
        "p(X) :- q(X), E = -2020-01-01.",
        "p(X)@[P3D, E] :- q(X).",  # a variable lark may read as a duration
        "p(X) :- q(X)@P.",
        "p(X) :- /\\[0 months] q(X).",  # errors: lark says what is wrong
        "p(X) :- /\\[eons] q(X).",
        "p(X) :- q(X), S = sum(X, <C>, Y).",
        "p(X) :- q(X), S = msum(X, <C>) + 1.",
        "p(X) :- q(X, <C>).",
        "p(X) :- #T@T.",
        "p(X) :-\n" + " q(X),\n" * 20 + " r(X).",  # a rule over more lines than read here
        "p(X) :- q(X) <S>[0,\n 2] r(X), X > \"a\n%b\".",  # a string over lines
        "p(X) :- q(X). r(X) :- s(X).",  # two statements on a line
        "p(X) :- (q(X)).",
        "p(X) :- not (q(X)).",
        "p(X) :- q(not).",
        "p(X) :- <->[2,1] q(X).",  # errors: lark says what is wrong
        "p(X) :- <->[-1,1] q(X).",
        "<->[0,1] p(X) :- q(X).",
        "p(X) :- q(X+1).",
        "X :- q(X).",
        "p(X) :- q(X)",
        "p(X) :- q(X), X <S>[0,1] r(X).",
        "p(X) :- q(X), Y = 3/0.",
        "p(X) :- q(X) r(X).",
        "p(X) :- sum(X) > 1.",
    ],
)
def test_lines_left_to_lark(text):
    assert _fast_rules(text) == 0
    assert _agree(text)


@pytest.mark.parametrize(
    "text",
    [
        '@output("p").',
        '@input("q"). % c',
        "@temporal(0, 100).",
        "@relaxedSafety.",
        '@bind("p", "csv", "", "data/p.csv").',
        "@f(1.5, 1/3, 2e3, #T, #F, name, inf).",
        "@temporal(-10, +inf).",
        "@f(-1, +2, -inf, - 1/2).",
        "@ g ( ) .",
        '@mapping("p", 0, "c", "date").',
        '@h(\n  "a%b",\n  % c\n  7).',
    ],
)
def test_annotations_read_fast_and_alike(text):
    rules = "p(X) :- q(X).\n"
    for padded in (rules + text, text + "\n" + rules, rules + "q(a)@1.\n" + text + "\n" + rules):
        assert len(_fast(padded)[1]) == 1, padded
        assert _agree(padded), padded


@pytest.mark.parametrize(
    "text",
    ['@temporal(2020-01-01, 2020-02-01).', "@f(-2020-01-01).", "@f(not).", "@Output(\"p\").", '@output("p")', "@f(X).",
     "@f(1,).", "@f(_:n1).", "@ .", "@f(--1).", "@f(-x).", '@output("p"). q(X) :- p(X).', '@output("p"). @f(X).',
     '@output("p"). q(a)@1.'],
)
def test_annotations_left_to_lark(text):
    rules = "p(X) :- q(X).\n"
    assert _fast(rules + text)[1] == []
    assert _agree(rules + text)


@pytest.mark.parametrize(
    "text",
    ['@output("p"). @input("q").', '@output("p").@input("q").', '@output("p"). % c\n  @input("q"). % d',
     '@output("p"). @input("q"). @temporal(0, 10).', '@output("p"). @bind("q", "csv",\n  "d", "q.csv").'],
)
def test_annotations_beside_each_other_read_fast_and_alike(text):
    """Several annotations on a line (``@output("a"). @output("b").``)
    are read here, each at its column, as lark reads them."""
    rules = "p(X) :- q(X).\n"
    for padded in (rules + text, text + "\n" + rules):
        assert len(_fast(padded)[1]) == text.count("@"), padded
        assert _agree(padded), padded


def test_a_program_with_comments_needs_no_lark():
    """Once every statement is read here, what is left is blanks and
    comments (most programs have comments): lark is not asked to read it
    (its runtime's import and first parse were most of a first call's
    reading), and the program is lark's."""
    import subprocess

    text = "% rolling sums\n@output(\"p\").\n\n% the rule\np(X) :- <->[0,2] q(X). % a window\n  % more\n"
    assert _agree(text)
    script = f"import sys\nfrom chronolog.api import load_program\nload_program({text!r})\nprint('chronolog.language.lark_runtime' in sys.modules)\n"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out == "False\n"


def test_anonymous_variables_numbered_as_lark_numbers_them():
    """lark numbers the '_' of a program _1, _2, ... in the text's order:
    read here where lark reads none after them, else left to lark."""
    fast, lark_ = "p(X) :- q(X, _)@[S, _], r(_, X), X = _.\n", "s(X) :- (t(X, _)), u(_).\n"
    for text, read_here in [(fast + fast, 2), (lark_ + fast + fast, 2), (fast + lark_, 0), (fast + lark_ + fast, 0),
                            (fast + "q(a)@1.\n% _\n@output(\"_\").\n" + fast, 2), (fast + '@f("a\n_").\n' + fast, 0),
                            ("p(X) :- q(X, _:n1).\n" + fast, 1), (fast + "p(X) :- q(X, _:n1).\n", 1)]:
        assert _fast_rules(text) == read_here, text
        assert _agree(text), text
    names = [str(t) for r in _both(lark_ + fast + fast).rules for lit in r.body for t in getattr(lit, "terms", ())]
    assert [n for n in names if n[0] == "_"] == ["_1", "_2", "_5", "_9"]  # (_3/_7 in q, _4/_8 in @[S, _], _6/_10 in X = _)


def test_a_line_inside_an_unended_statement_goes_to_lark():
    """A rule line after a statement that has not ended (or inside a string
    over lines) is part of that statement: lark reads it, error and all."""
    for text in ["q(X) :- r(X),\np(X) :- s(X).", '@output("a\np(X) :- s(X).\n").\nq(X) :- r(X).',
                 "q(X) :- r(X) % p(X) :- s(X).\n.\np(X) :- s(X).", "q(a)@1\np(X) :- s(X)."]:
        assert _agree(text), text
    assert _fast_rules("q(X) :- r(X),\np(X) :- s(X).") == 0
    assert _fast_rules("q(X) :- r(X), % a comment.\n  s(X).\np(X) :- s(X).") == 2


@pytest.mark.parametrize(
    "text",
    [
        "p(X) :-\n q(X).",
        "p(X) :- q(X), % why\n\t r(X) . % end",
        "  ema(S, E) :- <->[1,1] ema(S, P), price(S, D, V), P != V,\r\n"
        "             A = float(2 / 21), E = ((1 - A) * P + A * V) / ((1 - A) + A).\r\n",
        "p(X) :-\nq(X)\n,\n\n% c\nr(X)\n.",
        "p(X)\n:-\nq(X)\n,\n\n% c\nr(X)\n.",
        "[+][0,1]  p(X) :- q(X) <S>[0,\n 2] r(X), X > \"a%b\".",
    ],
)
def test_rules_over_lines_read_fast_and_alike(text):
    """A rule over several lines (comments and blank lines between its
    tokens): the same rule, its positions and its text as lark joins it."""
    for padded in (text, "q(a)@1.\n\n" + text + "\ns(X) :- t(X).\n"):
        assert _fast_rules(padded) == 1 + ("s(X) :- t(X)." in padded), padded
        assert _agree(padded), padded


def test_errors_after_rules_read_fast_are_lark_s():
    """Bad input around rules read here: the error (file, line, column,
    words) is the one lark gives on the whole program."""
    rules = "".join(f"p{i}(X) :- q{i}(X), <->[0,{i}] r(X).\n" for i in range(5))
    for bad in ["p(X) :- q(X\n", "q(a)@[2,1].\n", "p(X) :- q(X), .\n", "p(X) :- <->[0,1] q(X) r(X).\n",
                "@output(\"p\"\n", "p(X) :- " + "<->[0,1] " * 1000 + "q(X).\n", "q(a).\n", "P(X) :- q(X).\n"]:
        for text in (rules + bad, bad + rules, rules + bad + rules):
            got = _both(text)
            assert isinstance(got, str) and got == _lark(text), (text, got)


def test_positions_and_order_kept_with_lark_s_rules_between():
    text = ("a(X) :- b(X).\n"
            "c(X) :-\n  d(X).\n"
            "e(X) :- f(X, _).\n"
            "g(X) :- h(X).\n"
            "@output(\"a\").\n"
            "b(x)@[1,2].\n")
    prog = _both(text)
    assert [r.pos.line for r in prog.rules] == [1, 2, 4, 5]
    assert _same(prog, _lark(text))


# ------------------------------------------------------------------ random lines

_WORDS = ["p", "q1", "X", "Y", "a", "not", "every", "inf", "infty", "P3D", "sum", "count", "max", "abs", "_", "_:n1", "nothing"]
_TERMS = ["X", "Y", "a", "b_2", "1", "-2", "0.5", "1/3", "3/0", "1e3", '"s,t"', '"q\\"x"', "#T", "#F", "inf", "+inf",
          "-inf", "- 3", "2020-01-01", "_", "X + 1", "P3D", "not", "every", "-2020-01-01", "2020-02-30", "10000-01-01"]
_BOUNDS = ["0", "1", "2", "-1", "+1", "1.5", "1/3", "2e0", "inf", "+inf", "-inf", "infinity", "3/0", "x", "P1D", ".5",
           "P3M", "2020-01-01", "-2020-01-01", "2020-13-01", "P", "PT"]
_GAPS = ["", "", "", "", " ", " ", "\t", "  ", "\n", " % c\n  "]
_OPS = ["<->", "<+>", "[-]", "[+]", "<->", "[-]", "/\\"]
_GROUP = ["/\\", "△"]
_CMPS = ["==", "!=", "<>", "<", "<=", ">", ">=", "=", "<S>"]


@st.composite
def _lines(draw):
    """A rule line: two in three of the forms read here (blanks, comments
    and line breaks between tokens), the others with odd words, terms,
    windows, operators and ends anywhere (most of them left to lark)."""
    odd = draw(st.integers(0, 2)) == 0
    gap = lambda: draw(st.sampled_from(_GAPS))  # noqa: E731
    pick = lambda clean, others: draw(st.sampled_from(clean + others if odd else clean))  # noqa: E731

    def window():
        if odd and draw(st.integers(0, 4)) == 0:
            lo, hi = draw(st.sampled_from(_BOUNDS)), draw(st.sampled_from(_BOUNDS))
        else:
            lo, hi = draw(st.sampled_from(["0", "0", "1", "+1", "1.5", "1/3", " 1 ", "PT1H"])), draw(st.sampled_from(["2", "+inf", "inf", "5/2", "3.0", "P1D"]))
        inner = lo if odd and draw(st.integers(0, 9)) == 0 else f"{lo}{gap()},{gap()}{hi}"
        return f"{draw(st.sampled_from('[[[('))}{gap()}{inner}{gap()}{draw(st.sampled_from(']]])'))}"

    def term():
        return pick(["X", "Y", "a", "1", "Z", "-2", "0.5", "1/3", '"s,t"', "#T", "+inf", "inf", "_", "2020-01-31"], _TERMS)

    def atom():
        name = pick(["p", "q", "r1", "inf", "nothing"], _WORDS)
        k = draw(st.integers(-1, 3))
        if k < 0:
            return name
        return f"{name}{gap()}({','.join(gap() + term() + gap() for _ in range(k))})"

    def expr(depth=0):
        roll = draw(st.integers(0, 9))
        if roll < 6 or depth > 2:
            return term()
        if roll < 8:
            return f"{expr(depth + 1)}{gap()}{draw(st.sampled_from('+-*/'))}{gap()}{expr(depth + 1)}"
        if roll < 9:
            return f"({gap()}{expr(depth + 1)}{gap()})"
        return f"{draw(st.sampled_from(['abs', 'sum', 'max', 'count']))}({expr(depth + 1)})"

    def literal(depth=0):
        roll = draw(st.integers(0, 13))
        if roll < 5 or depth > 2:
            return atom()
        if roll < 8:
            return f"{pick(_OPS[:-1], _OPS[-1:])}{gap()}{window()}{gap()}{literal(depth + 1) if odd else unary(depth + 1)}"
        if roll < 9:
            return f"{atom()}{gap()}{draw(st.sampled_from(['<S>', '<U>']))}{window()}{gap()}{literal(depth + 1) if odd else unary(depth + 1)}"
        if roll < 10:
            return f"not{pick([' ', '  '], [''])}{literal(depth + 1) if odd else unary(depth + 1)}"
        if roll < 12:
            return f"{expr()}{gap()}{pick(_CMPS[:-2], _CMPS[-2:])}{gap()}{expr()}"
        if roll < 13:
            return f"{draw(st.sampled_from(['X', 'S', 'Y']))}{gap()}={gap()}{expr()}"
        return draw(st.sampled_from([
            f"{pick(_GROUP, ['/'])}{pick(['[months]', '[3 months]', '[7]', ' 2 weeks', '[1/2]'], ['[0]', '[x]', '[-1 days]', '[]'])}{gap()}{atom()}",
            f"{unary(depth + 1)}{gap()}@{gap()}{pick(['[S, E]', '(A,B)', '[S,E)', 'T'], ['[_, E]', 'P', '[P1D, E]', '5'])}",
            f"S{gap()}={gap()}{pick(['msum', 'sum', 'mcount', 'count'], ['abs', 'min'])}({pick(['X, ', ''], ['X, Y, '])}<{gap()}{term()}{pick(['', ', Y'], [',', '<'])}{gap()}>)",
        ]))

    def unary(depth):
        if draw(st.booleans()) or depth > 2:
            return atom()
        return f"{draw(st.sampled_from(_OPS[:-1]))}{gap()}{window()}{gap()}{unary(depth + 1)}"

    head = atom()
    if draw(st.integers(0, 5)) == 0:
        head += f"@{pick(['[S,E]', '(S, E]'], ['[_,E]', 'T', '[1,2]'])}"
    for _ in range(draw(st.integers(0, 2))):
        head = f"{pick(['[-]', '[+]'], ['<->'])}{window()}{gap()}{head}"
    if draw(st.integers(0, 9)) == 0:
        head = "⊥"
    body = f",{gap()}".join(literal() for _ in range(draw(st.integers(1, 4))))
    sep = pick([":-"], [": -", ":- "])
    end = pick([".", " .", ". % c"], ["", ". x", ",", "..", ".5"])
    return f"{gap()}{head} {sep}{gap()}{body}{end}{gap()}"


_ANNOTATIONS = ['@output("p").\n\n', "@temporal(0, 100).\n", "@f(1, #T, x).\n", '@bind("p",\n "csv").\n',
                "@temporal(2020-01-01, 2020-02-01).\n", "@f(-1).\n", '@output("p")\n', "@f(1,).\n"]


@settings(max_examples=examples(2000), deadline=None)
@given(_lines(), st.sampled_from(["", "q(a)@1.\n", "p(X) :- q(X, _).\n", "p(X) :-\n", "r(X) :- s(X)@[_, E].\n", *_ANNOTATIONS]),
       st.sampled_from(["r(X) :- s(X), t(X, _).", "r(X) :- s(X)@[S, _], t(_).", "", "p(a)@1."]))
def test_random_lines_read_alike(line, before, after):
    text = before + line + "\n" + after
    assert _agree(text), text


def test_random_lines_are_mostly_read_fast():
    """Lines of the common forms alone are all read here."""
    rng = random.Random(1)
    names, terms = ["p", "q1", "inf", "nothing", "sum"], ["X", "a", "1", '"s"', "-2", "1/2", "#T"]
    forms = ["{a}", "<->[0,1] {a}", "[+](1, inf) {a}", "not {a}", "{a} <S>[0,2] {a}", "X > 2", "Y = X * 2 + 1",
             "S = sum(X)", "(X + 1) / 2 <= 3"]
    for _ in range(examples(500)):
        atom = lambda: f"{rng.choice(names)}(X{''.join(', ' + rng.choice(terms) for _ in range(rng.randint(0, 2)))})"  # noqa: E731
        body = ", ".join(rng.choice(forms).format(a=atom()) for _ in range(rng.randint(1, 4)))
        text = f"{rng.choice(['', '[+][0,1] '])}{atom()} :- {body}."
        assert _fast_rules(text) == 1, text
        assert _agree(text), text


def test_deep_nesting_goes_to_lark():
    """Operators nested beyond a few dozen levels: lark reads them or says
    they are nested too deeply (its recursion), as before this reader."""
    assert _fast_rules("p(X) :- " + "<->[0,1] " * 32 + "q(X).") == 1
    assert _fast_rules("p(X) :- " + "<->[0,1] " * 33 + "q(X).") == 0
    assert _fast_rules("p(X) :- q(X), Y = X" + " + 1" * 33 + ".") == 0
    text = "p(X) :- " + "<->[0,1] " * 2000 + "q(X).\na(X) :- b(X).\n"
    assert _agree(text)


# ------------------------------------------------------------------ one corrupted statement among many

# statements of a program: rules read here (shapes repeated, over lines, with comments that
# quote '.' and ':-'), and what lark reads (facts, strings, labelled nulls, annotations)
_STATEMENTS = [
    "q{j}(N, Y) :- p{j}(N, V), Y = V * 2 + 1.",
    "r{j}(X) :- <->[0,{j}] s{j}(X), not t(X).",
    "u{j}(X) :- v(X, Y), Y > {j}. % see a. then b :- c",
    "m{j}(X) :-\n  n(X), % a. b :- c\n  o(X).",
    "% note. x :- y",
    "",
    '@output("q{j}").',
    "p{j}(a, 2)@[1,5).",
    'k("s. t", {j})@3.',
    'h{j}(X) :- g(X, "a.b"), X != "c(".',
    "a{j}(X) :- b(X, _).",
    "n{j}(X) :- m(X, _:n1).",
    "[+][0,1] w{j}(X) :- z(X) <S>[0,2] y(X).",
]
# what a corruption writes: characters of the grammar, and tokens out of place
_INSERTED = list('()[],.:-@"%<>= \nXa1_#/\\') + ["(", '"', "%", ":-", "Q", "..", "not", "1/0", "[0,1]", "@[1,2]", "P3M", "_:n1"]


@st.composite
def _corrupted(draw):
    """A program of many statements with one corrupted at a random place:
    a character deleted or inserted, a token replaced, or an unclosed
    parenthesis, string or comment that swallows the lines after it."""
    k = draw(st.integers(3, 40))
    picks = draw(st.lists(st.integers(0, len(_STATEMENTS) - 1), min_size=k, max_size=k))
    text = "".join(_STATEMENTS[i].format(j=j) + "\n" for j, i in enumerate(picks))
    at = draw(st.integers(0, len(text) - 1))
    kind = draw(st.sampled_from(["delete", "insert", "replace", "unclosed"]))
    if kind == "delete":
        return text[:at] + text[at + 1 :]
    if kind == "unclosed":
        return text[:at] + draw(st.sampled_from(["(", '"', "%", "[", "<->[0,"])) + text[at:]
    new = draw(st.sampled_from(_INSERTED))
    if kind == "insert":
        return text[:at] + new + text[at:]
    end = at + draw(st.integers(1, 6))  # (a few characters: a token or part of one)
    return text[:at] + new + text[end:]


@settings(max_examples=examples(3000), deadline=None)
@given(_corrupted())
def test_a_corrupted_statement_among_many_reads_as_the_whole_text_reads(text):
    """The error of a program with one statement corrupted, its rules read
    here and the rest by lark, is the one lark gives reading the whole text
    (file, line, column and words); where the program still reads, the same
    program."""
    assert _agree(text), text


def test_corruptions_fail_after_rules_read_here():
    """Programs like those above, corrupted in their second half, mostly
    fail after rules read here (the case of an error worded against the
    whole text), unclosed strings and comments included."""
    rng = random.Random(7)
    failed = after = 0
    for _ in range(examples(300)):
        picks = [rng.randrange(len(_STATEMENTS)) for _ in range(30)]
        text = "".join(_STATEMENTS[i].format(j=j) + "\n" for j, i in enumerate(picks))
        at = rng.randrange(len(text) // 2, len(text))
        text = text[:at] + rng.choice(["(", '"', "%", "Q", "..", ":-"]) + text[at:]
        got, lark_ = _both(text), _lark(text)
        assert got == lark_ if isinstance(got, str) else _same(got, lark_), text
        if isinstance(got, str):
            failed += 1
            after += _fast_rules(text) > 0
    assert failed > examples(300) // 2 and after > failed // 2, (failed, after)


# ------------------------------------------------------------------ fact lines


def _fast_facts(text: str) -> int:
    """How many facts of ``text`` are read without lark (read_fact_lines)."""
    return len(read_fact_lines(text, "<p>")[0])


@pytest.mark.parametrize(
    "text",
    ["p(a)@1.", "p(a, b_2, 7, 1.5, 2/4, #T)@[1,5).", "  p ( a ,b )\t@ ( -inf , +3/2 ] .  ", "p@[0,infinity).",
     "edge(a,b)@[0,5].\r\nnode(a)@1.\r\n", "p(inf, infty, nothing)@-2.", "p(007, 0.50)@[1.0, 2].", "p(a)@1. q(b)@2.",
     "placed(o1)@1.5. paid(o1)@[1.5, 3].\tshipped(o1)@2.25.  ", "p@1. p@1.\r\nq(a)@[0,1) . r@2.", "p(a)@[2020-01-01,2020-02-01).",
     "p(a)@2020-01-01T10:00:00.5Z. q(b)@[2020-01-01 10:00, +inf).", "p(a)@(2020-01-01T10:00+02:00,2020-01-02T00:00:00-0530].",
     "p(a)@[2020-01-01,5].", "p(a)@[+12020-01-01,+inf)."],
)
def test_fact_lines_read_fast_and_alike(text):
    """A fact on a line of its own: the very fact lark builds (types, values,
    interval, position), with rules, annotations and lark's lines around it."""
    for padded in (text, "q(X) :- r(X).\n\n" + text + "\ns(X) :- t(X).\n@output(\"q\").\n", "a(b)@[1,2).\n" + text + "\n"):
        assert _fast_facts(padded) == padded.count("@") - padded.count("@output"), padded
        assert _agree(padded), padded


@pytest.mark.parametrize(
    "text",
    ["p(a)@1", "p(a)@1..", "p(a)@[2,1].", "p(a)@inf.", "p(X)@1.", "p(_)@1.", "p(_:n1)@1.", 'p("a")@1.', "p(a)@1. % c",
     "p(-1)@1.", "p(1e3)@1.", "p(2020-01-01)@1.", "p(a)@[2020-02-30,2020-03-01).", "p(a)@2020-01-01T24:00.",
     "p(a)@2020-01-01T10:00+25:00.", "p(a)@PT1H.", "p(a)@[0,0] every 7.", "p(a)@- 1.",
     "not(a)@1.", "p(not)@1.", "p(every)@1.", "p(1/0)@1.", "p(a)@[0,1/0].", "p(a)@1.q(b)@2.", "p(a)@1. q(X)@2.", "p(a)@1. q(b)@2. %c", "p(\u0663)@1.", "p(a)@\u0663.",
     "p(a\u00a0)@1.", "p(a)@1.\x0b", "p(a)\r@1.", "p(" + "9" * 1001 + ")@1.", "p(a)@" + "9" * 1001 + ".", "p(a,)@1.", "p()@1.",
     "P(a)@1.", "p(a)(b)@1.", "p(a)@@1.", "p(a)@[1,2]@3."],
)
def test_fact_lines_left_to_lark(text):
    """Facts of any other form, and bad ones: lark reads them or gives its
    error (the line, column and words it gives on the whole program)."""
    for padded in (text, "q(X) :- r(X).\n" + text + "\n"):
        assert _fast_facts(padded) == 0, padded
        assert _agree(padded), padded


def test_a_fact_line_inside_an_unended_statement_goes_to_lark():
    """A line that reads as a fact but continues a statement (a rule's body
    literal with its interval): lark reads it as part of that statement."""
    for text in ["q(X) :- r(X),\np(a)@[1,2].", "q(X) :- r(X), % c.\n  p(a)@1.\np(b)@2.", '@output("a\np(a)@1.\n").\np(b)@2.']:
        assert _agree(text), text
    assert _fast_facts("q(X) :- r(X),\np(a)@[1,2].") == 0
    assert _fast_facts("q(X) :- r(X), % c.\n  p(a)@1.\np(b)@2.") == 1


_FACT_TERMS = ["a", "b_2", "1", "0.5", "1/3", "3/0", "#T", "#F", "inf", "infinity", "not", "every", "X", "_", "_:n1", "-2",
               '"s"', "1e3", "2020-01-01", "007", "", " a", "a b", "9" * 1001]
_FACT_TIMES = ["1", "-1", "+1", "1.5", "1/3", "inf", ".5", "1.", "[0,1]", "(0, 1)", "[1,0]", "[1,1)", "(-inf,+inf)", "[0,infty)",
               "[2020-01-01,2020-01-02]", "[0,1] every 2", "[0,1,2]", "[0;1]", " [ 0 , 1 ] ", "[-inf,-inf]", "[1/0,2]",
               "2020-01-01", "2020-01-01T10:00:00.125Z", "[2020-01-01 10:00 , 2020-01-02)", "(2020-01-01T10:00+02:00,+inf)",
               "[2020-01-02,2020-01-01]", "2020-02-30", "2020-01-01T10:00:60", "2020-01-01:00", "2020-1-1", "[2020-01-01, 5]",
               "+12020-01-01", "2020-01-01T10:00:00.1234567", "2020-01-01  10:00", "P1D", "-2020-01-01"]


@settings(max_examples=examples(2000), deadline=None)
@given(st.sampled_from(["p", "q1", "not", "inf", "P", "p q"]), st.lists(st.sampled_from(_FACT_TERMS), max_size=3),
       st.booleans(), st.sampled_from(_FACT_TIMES), st.sampled_from(["", " ", "\t", "  "]), st.sampled_from([".", "", "..", ". ", ".\r"]),
       st.sampled_from(["", "q(a)@1.\n", "p(X) :- q(X).\n", "p(X) :-\n", "p(X) :- q(X), % c\n"]),
       st.sampled_from(["", "\nr(X) :- s(X).", "\nq(b)@2.", "\n."]))
def test_random_fact_lines_read_alike(pred, terms, parens, time, gap, end, before, after):
    args = f"({','.join(terms)})" if parens or terms else ""
    text = f"{before}{gap}{pred}{gap}{args}{gap}@{gap}{time}{end}{after}"
    assert _agree(text), text


@settings(max_examples=examples(1000), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["p", "q1", "not", "P"]), st.lists(st.sampled_from(_FACT_TERMS), max_size=2),
                          st.sampled_from(_FACT_TIMES), st.sampled_from([".", ". ", ".\t", "", ".."])), min_size=2, max_size=3),
       st.sampled_from(["", "q(a)@1.\n", "p(X) :-\n"]))
def test_random_lines_of_several_facts_read_alike(facts, before):
    """Several facts on one line (a generated program's order and its
    payment): the facts lark builds when each is of the common shape and
    ended, else lark reads the line or gives its error."""
    text = before + "".join(f"{p}({','.join(terms)})@{time}{end}" for p, terms, time, end in facts)
    assert _agree(text), text


# ------------------------------------------------------------------ set literals

_MEMBERS = ["1", "a", '"b c"', "-2", "1/2", "0.5", "#T", "#F", "2020-01-31", "float(1.5)", "1e3", "+inf", "-inf", "b1",
            "2", "1", "a"]
_ODD_MEMBERS = ["X", "{1}", "{}", "1+2", "-a", "(1)", "_", "_:n1", "f(a)", "inf", "not", ",", "", "P3D", '"a"']


@st.composite
def _set_rules(draw):
    """A rule whose terms hold set literals (``{1, a, "b c"}``, ``{}``, with
    blanks, comments and line breaks between the tokens), in atoms,
    comparisons, assignments and aggregates; one in four with a member that
    is no constant (a variable, a set, a sum) or a token out of place."""
    odd = draw(st.integers(0, 3)) == 0
    gap = lambda: draw(st.sampled_from(_GAPS))  # noqa: E731

    def member():
        return draw(st.sampled_from(_MEMBERS + _ODD_MEMBERS if odd else _MEMBERS))

    def set_():
        k = draw(st.integers(0, 4))
        inner = f"{gap()},{gap()}".join(member() for _ in range(k))
        close = draw(st.sampled_from(["}", "}", "}", ")", ""])) if odd else "}"
        return f"{{{gap()}{inner}{gap()}{close}"

    def literal():
        return draw(st.sampled_from([
            f"q(X,{gap()}{set_()})",
            f"r({set_()}, X, {set_()})",
            f"q(X, S), S{gap()}=={gap()}{set_()}",
            f"q(X, S), {set_()} != S",
            f"S = {set_()}",
            f"q(X, V), S = max(V, {set_()})",
            f"q(X, V), S = munion({set_()})",
            f"<->[0,1] q(X, {set_()})",
        ]))

    head = draw(st.sampled_from(["p(X)", "p(X, S)", f"p(X, {set_()})"]))
    body = f",{gap()}".join(literal() for _ in range(draw(st.integers(1, 3))))
    return f"{head} :-{gap()}{body}.\n"


@settings(max_examples=examples(2000), deadline=None)
@given(_set_rules(), st.sampled_from(["", "q(a, {1})@1.\n", "p(X) :- q(X, _).\n", '@output("p").\n']))
def test_rules_with_set_literals_read_alike(rule, before):
    """A set literal in a rule was left to lark (the same rules, slower):
    the reader reads it now, to the very rules lark builds (the set's
    members sorted as ``make_set`` sorts them, its floats, dates, booleans
    and strings typed alike), or lark reads it and names the same error."""
    text = before + rule
    assert _agree(text), text


def test_rules_with_set_literals_are_read_fast():
    rules = ['p(X) :- q(X, {1, a, "b c", 1/2}).', "p(X) :- q(X, {}), S = {2,1}, S != {a}.",
             "p(X, S) :- q(X, V), S = max(V, {0,3}).", "p(X) :- q(X, {  1 % one\n, 2 }).",
             "least(B, D, S) :- p(X, Y), B = min(#T, X), D = max(Y, 2020-01-02T12:00), S = max({1,2}, {1}, {0,3})."]
    for text in rules:
        assert _fast_rules(text) == 1, text
        assert _agree(text), text
    for text in ["p(X) :- q(X, {X}).", "p(X) :- q(X, {{1}}).", "p(X) :- q(X, {1+2})."]:  # (no constants: lark's error)
        assert _fast_rules(text) == 0 and isinstance(_lark(text), str), text
        assert _agree(text), text


def test_rules_with_sets_are_not_built_by_shape():
    """A set's members are sorted (``{b,a}`` is ``{a,b}``): a rule with one
    is read whole, not built from the reading of another of its shape
    with its names put in their places."""
    text = "".join(f"p{i}(X) :- q(X, {{{n}, a{i}}}).\n" for i, n in enumerate(["b", "z", "a", "a0"] * 12))
    assert _fast_rules(text) == 48
    assert _agree(text)
