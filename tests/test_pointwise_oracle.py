"""Unit tests of the pointwise oracle itself, against answers given in
the golden examples (items 1, 2, 3, 5, 7) and a few more worked by hand from the
satisfaction table.  Every evaluation runs with ``paranoid=True`` (the whole
model is recomputed with other cell representatives and must agree)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from chronolog.language.timeline import format_interval, intersect
from chronolog.language.vadalog import parse
from oracle.pointwise import Grid, OracleError, evaluate, evaluate_text

pytestmark = pytest.mark.usefixtures("executor")  # every test on both executors

INF = math.inf


def facts(program: str, data: str, pred: str, horizon=None) -> list:
    m = evaluate_text(program, data, horizon, paranoid=True)
    return [(terms, format_interval(iv)) for terms, iv in m.facts(pred)]


def only(program: str, data: str, pred: str = "q", horizon=None) -> list:
    """Intervals of a 0-ary predicate."""
    return [iv for _, iv in facts(program, data, pred, horizon)]


# --------------------------------------------------------------------------
# the grid itself


@pytest.mark.parametrize("q", [None, 2])
def test_cells_meeting_matches_brute_force(q):
    g = Grid([Fraction(k, 2) for k in range(-4, 5)], q=q)
    probes = [-INF, Fraction(-3), Fraction(-5, 2), Fraction(-1, 3), 0, Fraction(1, 4), 1, Fraction(3, 2), 2, 5, INF]
    for lo in probes:
        for hi in probes:
            for lc in (True, False):
                for hc in (True, False):
                    from chronolog.language.timeline import make

                    iv = make(lo, hi, lc, hc)
                    expected = [i for i, c in enumerate(g.cells) if iv is not None and intersect(c, iv) is not None]
                    assert list(g.cells_meeting(iv)) == expected, (lo, hi, lc, hc)


def test_prefix_counts_match_naive_exists_forall():
    import random

    from chronolog.language.timeline import make

    rnd = random.Random(7)
    g = Grid([Fraction(k, 2) for k in range(-4, 5)])
    probes = [-INF, Fraction(-5, 2), Fraction(-1, 3), 0, Fraction(1, 4), 1, 2, INF]
    for _ in range(50):
        f = [rnd.random() < 0.6 for _ in range(g.size)]
        c = g.counts(f)
        for lo in probes:
            for hi in probes:
                for lc in (True, False):
                    for hc in (True, False):
                        iv = make(lo, hi, lc, hc)
                        assert g.exists_c(c, iv) == g.exists(f, iv)
                        assert g.forall_c(c, iv) == g.forall(f, iv)


def test_cells_partition_the_line():
    g = Grid([0, 1, 3])
    assert g.cells == [
        (-INF, 0, False, False),
        (0, 0, True, True),
        (0, 1, False, False),
        (1, 1, True, True),
        (1, 3, False, False),
        (3, 3, True, True),
        (3, INF, False, False),
    ]
    assert g.runs([False, True, True, True, False, False, True]) == [(0, 1, True, True), (3, INF, False, False)]


# --------------------------------------------------------------------------
# the golden examples item 1, 2, 3, 5


def test_recently_opened():
    assert facts(
        "recentlyOpened(X) :- <->[0,12] inauguration(X).", "inauguration(a)@[5,6].", "recentlyOpened"
    ) == [(("a",), "[5,18]")]


LONG_TIME_INVESTOR = """
investor(X,Y) :- shares(X,Y,Z).
longTimeInvestor(X,Y) :- [-][0,3] <->[0,0.5] investor(X,Y).
"""
SHARES = """
shares(a,b,0.2)@[0.1,0.5).
shares(a,b,0.2)@[0.4,1.1).
shares(a,b,0.3)@[1.5,3.7).
shares(a,b,0.4)@[3.7,4.2).
"""


def test_long_time_investor():
    assert facts(LONG_TIME_INVESTOR, SHARES, "investor") == [(("a", "b"), "[0.1,1.1)"), (("a", "b"), "[1.5,4.2)")]
    assert facts(LONG_TIME_INVESTOR, SHARES, "longTimeInvestor") == [(("a", "b"), "[3.1,4.7)")]


def test_matinee():
    prog = "discountedTicket(X) :- goesToTheMovies(X,M), matineeDiscount(M)."
    data = "goesToTheMovies(a,c)@[15,17). goesToTheMovies(b,c)@[21,23). matineeDiscount(c)@[14,16)."
    assert facts(prog, data, "discountedTicket") == [(("a",), "[15,16)")]


def test_stream_example():
    prog = """
    p(Z) :- <->[0,2] signal(Z).
    p2(Z) :- [-][0,4] p(Z).
    flag(X,Z) :- monit(X,Z), p2(Z).
    """
    data = "signal(s1)@96.3. signal(s1)@98. signal(s1)@100. monit(n,s1)@101."
    assert facts(prog, data, "p") == [(("s1",), "[96.3,102]")]
    assert facts(prog, data, "p2") == [(("s1",), "[100.3,102]")]
    assert facts(prog, data, "flag") == [(("n", "s1"), "[101,101]")]


# --------------------------------------------------------------------------
# the golden examples item 7 (micro-cases)


@pytest.mark.parametrize(
    "program,data,expected",
    [
        ("q :- [-][0,0.5] b.", "b@[0,1].", ["[0.5,1]"]),
        ("q :- <+>(1,2] b.", "b@(0,1).", ["(-2,0)"]),
        ("[+][0,1] q :- b.", "b@1.", ["[1,2]"]),
        ("[-][1,2] q :- b.", "b@1.", ["[-1,0]"]),
        ("q :- [+][0,+inf) b.", "b@[0,10].", []),
        ("q :- [+][0,+inf) b.", "b@[0,+inf).", ["[0,+inf)"]),
        ("q :- <->[2,+inf) b.", "b@[0,1].", ["[2,+inf)"]),
        ("q :- a <S>[1,5] b.", "b@0. a@(0,2).", ["[1,2]"]),
        ("q :- a <U>[1,5] b.", "b@0. a@(0,2).", []),
        ("q :- a <S>[0,5] b.", "b@0. a@[0,2].", ["[0,2]"]),
        ("q :- b.", "b@[0,1). b@[1,2].", ["[0,2]"]),
        ("q :- [-][0,1] b.", "b@[0,1). b@(1,2].", []),
        ("q :- [-][0,1] b.", "b@[0,1). b@[1,2].", ["[1,2]"]),
    ],
)
def test_micro_cases(program, data, expected):
    assert only(program, data) == expected


def test_constraint_reports_inconsistency():
    m = evaluate_text("⊥ :- a(X), b(X).", "a(x)@[0,1]. b(x)@[1,2].", paranoid=True)
    assert m.inconsistent == [(1, 1, True, True)]
    m = evaluate_text("⊥ :- a(X), b(X).", "a(x)@[0,1). b(x)@[1,2].")
    assert m.inconsistent == []


def test_reference_section2_worked_check():
    """ϱ₁ = [7,10], ϱ₂ = [2,4]: ◇⁻ → [9,14], ⊟ → [11,12], ◇⁺ → [3,8], ⊞ → [5,6]."""
    d = "b@[7,10]."
    assert only("q :- <->[2,4] b.", d) == ["[9,14]"]
    assert only("q :- [-][2,4] b.", d) == ["[11,12]"]
    assert only("q :- <+>[2,4] b.", d) == ["[3,8]"]
    assert only("q :- [+][2,4] b.", d) == ["[5,6]"]


def test_reference_section3_composition_counterexample():
    """A@0, A@4: ⊟[5,10] ◇⁻[2,5] ◇⁺[1,3] A holds on [9,13] (not only 9, 13)."""
    assert only("q :- [-][5,10] <->[2,5] <+>[1,3] a.", "a@0. a@4.") == ["[9,13]"]


# --------------------------------------------------------------------------
# more cases worked by hand from the satisfaction table


@pytest.mark.parametrize(
    "program,data,expected",
    [
        # open window ends: (0,1] past diamond of a point
        ("q :- <->(0,1] b.", "b@0.", ["(0,1]"]),
        ("q :- <->[0,1) b.", "b@0.", ["[0,1)"]),
        # box with open window end over an open data end: [-][0,1) needs b on (t-1, t]
        ("q :- [-][0,1) b.", "b@(0,2].", ["[1,2]"]),
        ("q :- [-](0,1] b.", "b@[0,2).", ["[1,2]"]),
        ("q :- [-](0,1) b.", "b@(0,2).", ["[1,2]"]),
        # punctual box = punctual diamond
        ("q :- [-][1,1] b.", "b@(0,2).", ["(1,3)"]),
        # since with window open at 0: b@0, a on (0,1]
        ("q :- a <S>(0,2] b.", "b@0. a@(0,1].", ["(0,1]"]),
        # since, 0 in window: holds wherever b holds, whatever a does
        ("q :- a <S>[0,1] b.", "b@[3,4].", ["[3,4]"]),
        # since: a may be open at the witness s (only (s,t) matters); at t=1
        # the gap (0,1) misses a, at t in (1,2) it contains 1
        ("q :- a <S>[1,1] b.", "b@[0,1]. a@(1,3).", ["[2,2]"]),
        # since: witness s in an open b interval; (s,s+2) within a iff s >= 0.5
        ("q :- a <S>[2,2] b.", "b@(0,1). a@(0.5,5].", ["[2.5,3)"]),
        ("q :- a <S>[2,2] b.", "b@(0,1). a@[1,5].", []),
        # until mirror
        ("q :- a <U>[1,1] b.", "b@[2,3]. a@(0,2).", ["[1,1]"]),
        ("q :- a <U>[0,1] b.", "b@[2,3]. a@(0,2).", ["[1,3]"]),
        ("q :- a <U>(0,2] b.", "b@3. a@[2,3).", ["[2,3)"]),
        # negation splits intervals
        ("q :- a, not b.", "a@[0,5]. b@(1,2].", ["[0,1]", "(2,5]"]),
        # true arity-0 negation without positive body holds on the rays
        ("q :- not b.", "b@[0,1).", ["(-inf,0)", "[1,+inf)"]),
    ],
)
def test_hand_worked(program, data, expected):
    assert only(program, data) == expected


def test_comparisons_and_assignments():
    prog = """
    big(X) :- v(X,V), V > 2.
    twice(X,W) :- v(X,V), W = V * 2.
    """
    data = "v(a,1)@[0,1]. v(b,3)@[0,2]. v(b,1/2)@5."
    assert facts(prog, data, "big") == [(("b",), "[0,2]")]
    assert facts(prog, data, "twice") == [(("a", 2), "[0,1]"), (("b", 1), "[5,5]"), (("b", 6), "[0,2]")]


def test_join_with_constants_and_head_box_nested():
    prog = "[+][1,1] [-][0,1] q(X) :- e(X,b)."
    # e(a,b)@0: [+][1,1] puts the inner head at 1; [-][0,1] then makes q hold on [0,1]
    assert facts(prog, "e(a,b)@0. e(a,c)@10.", "q") == [(("a",), "[0,1]")]


def test_recursion_needs_horizon_and_is_clipped():
    prog = "p(X) :- <->[1,1] p(X)."
    with pytest.raises(OracleError):
        evaluate_text(prog, "p(a)@0.")
    assert facts(prog, "p(a)@0.", "p", horizon=(0, 3)) == [(("a",), f"[{k},{k}]") for k in range(4)]
    # recursion with a non-punctual window fills the horizon
    assert facts("p :- <->[0,1] p.", "p@(0,1).", "p", horizon=(-1, 7)) == [((), "(0,7]")]


def test_recursion_with_head_box_and_data_outside_horizon():
    # data is kept unclipped; only derived facts are confined to [0,4]
    prog = "[+][0,2] p :- p."
    assert only(prog, "p@[-5,-4].", "p", horizon=(0, 4)) == ["[-5,-4]"]
    assert only(prog, "p@-1.", "p", horizon=(0, 4)) == ["[-1,-1]", "[0,4]"]


def test_reference_section4_periodic_under_horizon():
    prog = """
    r(X,Y) :- <->[1,1] r(X,Y).
    q(Y) :- p(X), r(X,Y).
    p(X) :- <->[1,1] q(X).
    """
    data = "p(a)@0. r(a,b)@0. r(b,c)@0. r(c,a)@0."
    m = evaluate_text(prog, data, horizon=(0, 12), paranoid=True)
    assert [iv[0] for t, iv in m.facts("p") if t == ("a",)] == [0, 3, 6, 9, 12]
    assert [iv[0] for t, iv in m.facts("p") if t == ("b",)] == [1, 4, 7, 10]
    assert [iv[0] for t, iv in m.facts("q") if t == ("a",)] == [2, 5, 8, 11]


def test_job_report_periodic_under_horizon():
    prog = """
    jobReport :- <->[30,30] jobReport.
    priceEvent(X) :- stockPriceChange(X,V), V > 5.
    possibleCause(X,"JR") :- priceEvent(X), <->[0,1] jobReport.
    """
    data = "jobReport@[0,0]. stockPriceChange(a,6)@[121,121]. stockPriceChange(b,4)@[120,120]."
    m = evaluate_text(prog, data, horizon=(0, 200))
    assert [format_interval(iv) for _, iv in m.facts("possibleCause")] == ["[121,121]"]
    assert [iv[0] for _, iv in m.facts("jobReport")] == [0, 30, 60, 90, 120, 150, 180]


def test_meteor_example_4_1_under_horizon():
    prog = """
    r1(X,Y) :- <->[1,1] r1(X,Y).
    [+][1,1] r5(Y) :- r2(X,Y), [+][1,2] r3(Y,Z).
    r4(X) :- <->[0,1] r5(X).
    r6(Y) :- r5(Y), [-][0,2] r4(Y), r1(X,Y).
    """
    data = "r1(c1,c2)@[0,1]. r2(c1,c2)@[1,2]. r3(c2,c3)@[2,3]. r5(c2)@[0,1]."
    m = evaluate_text(prog, data, horizon=(0, 10), paranoid=True)
    assert [format_interval(iv) for _, iv in m.facts("r5")] == ["[0,1]", "[2,2]"]
    assert [format_interval(iv) for _, iv in m.facts("r4")] == ["[0,3]"]
    assert [format_interval(iv) for _, iv in m.facts("r6")] == ["[2,2]"]
    assert [format_interval(iv) for _, iv in m.facts("r1")] == ["[0,10]"]


def test_not_stratifiable_is_rejected():
    with pytest.raises(OracleError):
        evaluate_text("p :- a, not q. q :- p.", "a@0.", horizon=(0, 1))


def test_stratified_negation_on_derived_predicate():
    prog = """
    q :- <->[0,1] a.
    r :- b, not q.
    """
    assert only(prog, "a@0. b@[0,5].", "r") == ["(1,5]"]


def test_parsed_program_entry_point():
    prog = parse("q(X) :- <+>[0,1] a(X).\na(b)@[2,3).")
    m = evaluate(prog)
    assert m.facts("q") == [(("b",), (1, 3, True, False))]
    assert m.holds("q", ("b",), 1) and not m.holds("q", ("b",), 3)
    assert m.predicates() == ["a", "q"]
