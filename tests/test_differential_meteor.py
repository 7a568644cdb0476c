"""Differential tests: chronolog against MeTeoR (``meteor-reasoner``).

Programs are generated inside MeTeoR's correct fragment (REFERENCE §7,
notes/meteor.md §4): no nested operators, Since/Until only with windows that
exclude 0 (left end > 0 or open at 0), at most one Since/Until per rule, no
negation, decimal numbers.  Both reasoners read the very same MeTeoR text;
chronolog through ``reason(..., dialect="meteor")``.

* non-recursive stratified programs of 1–5 rules over three unary base
  predicates, a binary and a propositional one, small half-integer data and
  windows, a few unbounded facts;
* recursive programs without temporal shifts inside the recursion
  (transitive closure), fed and read through temporal operators;
* hand-written micro-cases (the golden examples item 7 in MeTeoR syntax);
* MeTeoR Example 4.1 (the golden examples item 4), recursive through a shift, under
  ``horizon=(0, 10)``, against the golden answer and MeTeoR's rounds clipped
  to the horizon.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

hypothesis = pytest.importorskip("hypothesis")
pytest.importorskip("meteor_reasoner")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.language.timeline import format_number

from meteor_oracle import chronolog_model, clip, format_model, meteor_model, restrict

INF = math.inf
H = Fraction(1, 2)


def C(lo, hi):
    return (lo, hi, True, True)


def reason(program_lines, fact_lines, **kw):
    return chronolog.reason("\n".join(program_lines), "\n".join(fact_lines), dialect="meteor", **kw)


def head_preds(program_lines):
    from chronolog.language.ast import head_atom
    from chronolog.language.meteor import parse

    out = set()
    for r in parse("\n".join(program_lines)).rules:
        a = head_atom(r.head)
        if a is not None:
            out.add(a.pred)
    return out


def compare(program_lines, fact_lines, rounds=60):
    preds = head_preds(program_lines)
    expected = restrict(meteor_model(program_lines, fact_lines, rounds=rounds), preds)
    model = reason(program_lines, fact_lines)
    got = restrict(chronolog_model(model, [p for p in model.predicates() if p in preds]), preds)
    if got != expected:
        prog = "\n".join(program_lines)
        data = "\n".join(fact_lines)
        raise AssertionError(
            f"chronolog and MeTeoR disagree\n--- program\n{prog}\n--- data\n{data}\n"
            f"--- MeTeoR only\n{format_model(expected - got)}\n--- chronolog only\n{format_model(got - expected)}"
        )


# ------------------------------------------------------------------ generators

NUM = format_number


def interval_text(lo, hi, lc, hc):
    left = "-inf" if lo == -INF else NUM(lo)
    right = "+inf" if hi == INF else NUM(hi)
    return f"{'[' if lc else '('}{left},{right}{']' if hc else ')'}"


@st.composite
def windows(draw, exclude_zero=False, allow_inf=False):
    lo = draw(st.sampled_from([0, H, 1, 1 + H, 2, 3]))
    lengths = [0, H, 1, 2, 3] + ([INF] if allow_inf else [])
    length = draw(st.sampled_from(lengths))
    lc, hc = draw(st.booleans()), draw(st.booleans())
    if exclude_zero and lo == 0:
        lc = False
        if length == 0:
            length = 1
    if length == 0:
        lc = hc = True
    if length == INF:
        hc = False
    return interval_text(lo, lo + length, lc, hc)


UNARY_OPS = ["", "", "Diamondminus", "Diamondplus", "Boxminus", "Boxplus"]
BASE = ["A", "B", "C"]
DERIVED = ["D1", "D2", "D3"]


@st.composite
def unary_literal(draw, preds, var):
    op = draw(st.sampled_from(UNARY_OPS))
    pred = draw(st.sampled_from(preds))
    if not op:
        return f"{pred}({var})"
    w = draw(windows(allow_inf=op.startswith("Diamond") and draw(st.integers(0, 5)) == 0))
    return f"{op}{w}{pred}({var})"


@st.composite
def propositional_literal(draw):
    op = draw(st.sampled_from(UNARY_OPS))
    if not op:
        return "Z"
    return f"{op}{draw(windows())}Z"


@st.composite
def rules(draw, head_index):
    head = DERIVED[head_index]
    preds = BASE + DERIVED[:head_index]
    body = [draw(unary_literal(preds, "X"))]
    has_binary = False
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["unary", "binary", "join"]))
        if kind == "binary" and not has_binary:
            has_binary = True
            # (not Top: MeTeoR derives nothing from `Top Since[1,2] A(X)`
            # when the rule has variables; propositional rules are fine)
            left = f"{draw(st.sampled_from(preds))}(X)"
            right = draw(st.sampled_from(preds))
            op = draw(st.sampled_from(["Since", "Until"]))
            w = draw(windows(exclude_zero=True))
            body.append(f"{left}{op}{w}{right}(X)")
        elif kind == "join":
            op = draw(st.sampled_from(["", "", "Diamondminus", "Boxminus", "Boxplus"]))
            e = "E(X,Y)" if not op else f"{op}{draw(windows())}E(X,Y)"
            body.append(e)
            body.append(draw(unary_literal(preds, "Y")))
        elif kind == "unary" and draw(st.integers(0, 3)) == 0:
            body.append(draw(propositional_literal()))
        else:
            body.append(draw(unary_literal(preds, "X")))
    head_text = f"{head}(X)"
    box = draw(st.sampled_from(["", "", "", "Boxplus", "Boxminus"]))
    if box:
        head_text = f"{box}{draw(windows())}{head_text}"
    return f"{head_text}:- {', '.join(body)}"


@st.composite
def programs(draw):
    n = draw(st.integers(1, 5))
    heads = sorted(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    return [draw(rules(h)) for h in heads]


@st.composite
def data_interval(draw, allow_inf=False):
    lo = draw(st.integers(0, 16)) * H
    length = draw(st.sampled_from([0, H, 1, 1 + H, 2, 3, 4]))
    lc, hc = draw(st.booleans()), draw(st.booleans())
    if length == 0:
        lc = hc = True
    hi = lo + length
    if allow_inf and draw(st.integers(0, 9)) == 0:
        if draw(st.booleans()):
            lo, lc = -INF, False
        else:
            hi, hc = INF, False
    return interval_text(lo, hi, lc, hc)


@st.composite
def datasets(draw, unary=tuple(BASE), consts=("a", "b"), binary="E", max_per_atom=3):
    lines = []
    for p in unary:
        for c in consts:
            for _ in range(draw(st.integers(0, max_per_atom))):
                lines.append(f"{p}({c})@{draw(data_interval(allow_inf=True))}")
    for _ in range(draw(st.integers(0, 2))):
        lines.append(f"Z@{draw(data_interval(allow_inf=True))}")
    if binary:
        for x in consts:
            for y in consts:
                for _ in range(draw(st.integers(0, 2))):
                    lines.append(f"{binary}({x},{y})@{draw(data_interval())}")
    return lines


# ------------------------------------------------------------------ oracle sanity (no engine needed)


def test_oracle_example_41_rounds():
    prog = EXAMPLE_41.splitlines()
    m = meteor_model(prog, EXAMPLE_41_DATA, rounds=2, require_fixpoint=False)
    assert m == {
        ("R1", ("c1", "c2"), C(0, 3)),
        ("R2", ("c1", "c2"), C(1, 2)),
        ("R3", ("c2", "c3"), C(2, 3)),
        ("R4", ("c2",), C(0, 3)),
        ("R5", ("c2",), C(0, 1)),
        ("R5", ("c2",), C(2, 2)),
        ("R6", ("c2",), C(2, 2)),
    }


def test_oracle_exact_values():
    m = meteor_model(
        ["P(X):- Diamondminus[0,0.5]A(X), B", "Q(X):- P(X)Since(0,1]A(X)"],
        ["A(a)@[0,1)", "A(a)@[1,2.5]", "B@(0,3)", "A(7)@[1,2]"],
    )
    assert ("A", ("a",), C(0, Fraction(5, 2))) in m  # coalesced
    assert ("B", (), (0, 3, False, False)) in m
    assert ("Q", ("a",), (0, 3, False, True)) in m
    assert ("Q", (7,), (1, Fraction(5, 2), False, True)) in m  # the constant 7 is an int


# ------------------------------------------------------------------ Example 4.1 (golden, horizon)

EXAMPLE_41 = """\
R1(X,Y):- Diamondminus[1,1]R1(X,Y)
Boxplus[1,1]R5(Y):- R2(X,Y),Boxplus[1,2]R3(Y,Z)
R4(X):- Diamondminus[0,1]R5(X)
R6(Y):- R5(Y), Boxminus[0,2]R4(Y), R1(X,Y)"""
EXAMPLE_41_DATA = ["R1(c1,c2)@[0,1]", "R2(c1,c2)@[1,2]", "R3(c2,c3)@[2,3]", "R5(c2)@[0,1]"]

EXAMPLE_41_EXPECTED = {
    ("R1", ("c1", "c2"), C(0, 10)),
    ("R4", ("c2",), C(0, 3)),
    ("R5", ("c2",), C(0, 1)),
    ("R5", ("c2",), C(2, 2)),
    ("R6", ("c2",), C(2, 2)),
}


def test_example_41_golden_with_horizon():
    model = reason(EXAMPLE_41.splitlines(), EXAMPLE_41_DATA, horizon=(0, 10))
    got = chronolog_model(model, ["R1", "R4", "R5", "R6"])
    assert got == EXAMPLE_41_EXPECTED, format_model(got)


def test_example_41_against_meteor_rounds_clipped():
    prog = EXAMPLE_41.splitlines()
    expected = clip(meteor_model(prog, EXAMPLE_41_DATA, rounds=14, require_fixpoint=False), 0, 10)
    model = reason(prog, EXAMPLE_41_DATA, horizon=(0, 10))
    preds = ["R1", "R4", "R5", "R6"]
    assert chronolog_model(model, preds) == restrict(expected, preds)


# ------------------------------------------------------------------ micro-cases

# (program, data, expected facts of Q/P, whether MeTeoR gets it right)
MICRO = [
    (["Q:- Boxminus[0,0.5]B"], ["B@[0,1]"], {("Q", (), C(H, 1))}, True),
    (["Q:- Diamondplus(1,2]B"], ["B@(0,1)"], {("Q", (), (-2, 0, False, False))}, True),
    (["Q:- Boxminus[0,1]B"], ["B@[0,1)", "B@[1,2]"], {("Q", (), C(1, 2))}, True),
    (["Q:- Boxminus[0,1]B"], ["B@[0,1)", "B@(1,2]"], set(), True),
    (["Boxplus[0,1]Q:- B"], ["B@1"], {("Q", (), C(1, 2))}, True),
    (["Boxminus[1,2]Q:- B"], ["B@1"], {("Q", (), C(-1, 0))}, True),
    (["Q:- Boxplus[0,+inf)B"], ["B@[0,10]"], set(), True),
    (["Q:- Boxplus[0,+inf)B"], ["B@[0,+inf)"], {("Q", (), (0, INF, True, False))}, True),
    (["Q:- Diamondminus[2,+inf)B"], ["B@[0,1]"], {("Q", (), (2, INF, True, False))}, True),
    (["Q:- A Since[1,5] B"], ["B@0", "A@(0,2)"], {("Q", (), C(1, 2))}, True),
    (["Q:- A Until[1,5] B"], ["B@0", "A@(0,2)"], set(), True),
    (["Q:- A Since(0,5] B"], ["B@0", "A@(0,2)"], {("Q", (), (0, 2, False, True))}, True),
    # MeTeoR defect (S with a window closed at 0 ignores A): chronolog only
    (["Q:- A Since[0,5] B"], ["B@0", "A@[0,2]"], {("Q", (), C(0, 2))}, False),
    (["Q:- A Since[0,5] B"], ["B@0"], {("Q", (), C(0, 0))}, False),
    (["Q:- Top Since[1,2] A"], ["A@1"], {("Q", (), C(2, 3))}, True),
    (["Q:- ATopSince[1,2]Top"], ["ATop@[1,5]"], {("Q", (), C(2, 5))}, True),
    # MeTeoR defect: Top as an S/U operand in a rule with variables derives nothing
    (["Q(X):- C(X), Top Since[1,2] A(X)"], ["C(a)@[0,10]", "A(a)@1"], {("Q", ("a",), C(2, 3))}, False),
    (["Q(X):- recentlyOpened(X)", "recentlyOpened(X):- Diamondminus[0,12]inauguration(X)"],
     ["inauguration(a)@[5,6]"], {("Q", ("a",), C(5, 18))}, True),
    (["p(Z):- Diamondminus[0,2]signal(Z)", "p2(Z):- Boxminus[0,4]p(Z)", "Q(X,Z):- monit(X,Z), p2(Z)"],
     ["signal(s1)@96.3", "signal(s1)@98", "signal(s1)@100", "monit(n,s1)@101"],
     {("Q", ("n", "s1"), C(101, 101))}, True),
    (["Q(X):- g528(X,876)"], ["g528(197,876)@[20,28]", "g528(198,877)@[20,28]"], {("Q", (197,), C(20, 28))}, True),
]


@pytest.mark.parametrize("program, data, expected, meteor_ok", MICRO, ids=[str(i) for i in range(len(MICRO))])
def test_micro_cases(program, data, expected, meteor_ok):
    model = reason(program, data)
    got = chronolog_model(model, [p for p in model.predicates() if p == "Q"])
    assert got == expected, format_model(got)
    if meteor_ok:
        assert restrict(meteor_model(program, data), {"Q"}) == expected


def test_bottom_rule_is_inconsistent():
    with pytest.raises(chronolog.InconsistencyError):
        reason(["Bottom:- A(X),B(X)"], ["A(x)@[0,1]", "B(x)@[1,2]"])


# ------------------------------------------------------------------ random, non-recursive


@settings(max_examples=examples(250), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs(), datasets())
def test_random_nonrecursive_programs_agree_with_meteor(program, data):
    compare(program, data)


# ------------------------------------------------------------------ random, recursive without shifts


@st.composite
def closure_programs(draw):
    feed = draw(st.sampled_from(["", "Diamondminus", "Boxminus", "Diamondplus", "Boxplus"]))
    feed_lit = "E(X,Y)" if not feed else f"{feed}{draw(windows())}E(X,Y)"
    step = draw(st.sampled_from(["T(X,Y), E(Y,Z)", "T(X,Y), T(Y,Z)", "E(X,Y), T(Y,Z)"]))
    read = draw(st.sampled_from(["", "Diamondminus", "Boxminus", "Diamondplus", "Boxplus"]))
    read_lit = "T(X,X)" if not read else f"{read}{draw(windows())}T(X,X)"
    prog = [f"T(X,Y):- {feed_lit}", f"T(X,Z):- {step}", f"Cyc(X):- {read_lit}"]
    if draw(st.booleans()):
        w = draw(windows(exclude_zero=True))
        prog.append(f"Reach(Y):- A(Y)Since{w}T(X,Y)")
    if draw(st.booleans()):
        prog.append(f"Both(X,Y):- T(X,Y), T(Y,X), {draw(unary_literal(['A'], 'X'))}")
    return prog


@st.composite
def graphs(draw):
    nodes = ["a", "b", "c", "d"]
    lines = []
    for _ in range(draw(st.integers(1, 7))):
        x, y = draw(st.sampled_from(nodes)), draw(st.sampled_from(nodes))
        lines.append(f"E({x},{y})@{draw(data_interval())}")
    for n in nodes:
        for _ in range(draw(st.integers(0, 2))):
            lines.append(f"A({n})@{draw(data_interval())}")
    return lines


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(closure_programs(), graphs())
def test_random_recursive_closure_programs_agree_with_meteor(program, data):
    compare(program, data)


# ------------------------------------------------------------------ random, recursive through past shifts, with a horizon
#
# Forward-propagating programs (past operators in bodies, Boxplus heads) that
# recurse through time need a horizon in chronolog; MeTeoR never reaches a
# fixpoint on them.  With data inside [0, 8], the least model restricted to
# the horizon [0, 12] depends only on what happens up to 12, so it equals
# MeTeoR's rounds (enough of them) clipped to [0, 12].

HORIZON = (0, 12)


@st.composite
def past_windows(draw, positive=False):
    """A window; with ``positive`` its left end is > 0 (so that recursion
    through it moves time by a fixed amount per round)."""
    lo = draw(st.sampled_from([H, 1, 1 + H, 2] if positive else [0, H, 1, 2]))
    length = draw(st.sampled_from([0, H, 1, 2]))
    lc, hc = draw(st.booleans()), draw(st.booleans())
    if length == 0:
        lc = hc = True
    return interval_text(lo, lo + length, lc, hc)


@st.composite
def fp_recursive_programs(draw):
    prog = ["P(X):- A(X)"]
    # the recursion: P moves forward in time
    kind = draw(st.sampled_from(["diamond", "boxhead", "both"]))
    if kind in ("diamond", "both"):
        extra = draw(st.sampled_from(["", ", B(X)", ", Diamondminus[0,2]B(X)", ", Boxminus[0,1]C(X)"]))
        prog.append(f"P(X):- Diamondminus{draw(past_windows(positive=True))}P(X){extra}")
    if kind in ("boxhead", "both"):
        extra = draw(st.sampled_from(["", ", B(X)", ", Diamondminus[0,1]C(X)"]))
        prog.append(f"Boxplus{draw(windows())}P(X):- Diamondminus[1,1]P(X){extra}")
    # readers of the recursive predicate
    readers = [
        f"Q(X):- Boxminus{draw(windows())}P(X)",
        f"Q(X):- P(X), Diamondminus{draw(windows())}C(X)",
        f"R(X):- B(X)Since{draw(windows(exclude_zero=True))}P(X)",
        f"Boxplus{draw(windows())}R(X):- P(X), E(X,Y), Boxminus{draw(windows())}A(Y)",
        f"Q(X):- Diamondminus{draw(past_windows(positive=True))}Q(X), C(X)",
    ]
    chosen = draw(st.lists(st.sampled_from(readers), min_size=1, max_size=3, unique=True))
    return prog + chosen


@st.composite
def small_data(draw):
    lines = []
    for p in ["A", "B", "C"]:
        for c in ["a", "b"]:
            for _ in range(draw(st.integers(0, 2))):
                lines.append(f"{p}({c})@{draw(data_interval())}")
    for x in ["a", "b"]:
        for y in ["a", "b"]:
            if draw(st.booleans()):
                lines.append(f"E({x},{y})@{draw(data_interval())}")
    return lines


def compare_with_horizon(program_lines, fact_lines, rounds=60):
    preds = head_preds(program_lines)
    expected = restrict(clip(meteor_model(program_lines, fact_lines, rounds=rounds, require_fixpoint=False), *HORIZON), preds)
    model = reason(program_lines, fact_lines, horizon=HORIZON)
    got = restrict(chronolog_model(model, [p for p in model.predicates() if p in preds]), preds)
    if got != expected:
        prog = "\n".join(program_lines)
        data = "\n".join(fact_lines)
        raise AssertionError(
            f"chronolog (horizon {HORIZON}) and MeTeoR ({rounds} rounds, clipped) disagree\n--- program\n{prog}\n"
            f"--- data\n{data}\n--- MeTeoR only\n{format_model(expected - got)}\n"
            f"--- chronolog only\n{format_model(got - expected)}"
        )


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(fp_recursive_programs(), small_data())
def test_random_forward_recursive_programs_with_horizon_agree_with_meteor(program, data):
    compare_with_horizon(program, data)
