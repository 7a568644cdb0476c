"""Since and Until inside a recursion in the relational rounds
(connectors/spark_rounds/since_until.py, rounds.py): recursions through the
left operand, hand-written and random, against the embedded engine on the
same facts, asserted to run in Spark tasks (no DriverFallback; marked
``spark``)."""

import datetime as dt

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.engine.arrow import facts_to_arrow, table_to_rows

from test_spark_rounds import canon, cs, drawn_facts
from test_spark_rounds import check as check_both

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("rounds")]  # the rounds, not one task (conftest.py)


def check(spark, program, tables: dict, **kw):
    """Run ``program`` both ways; assert the relational path ran and
    agrees; return (the rounds per stratum, the embedded model)."""
    stats, model = check_both(spark, program, tables, **kw)
    rounds = {}
    for r in stats["rounds"]:
        rounds[r.stratum] = rounds.get(r.stratum, 0) + 1
    return rounds, model


# X reaches Z once an edge Y -> Z held 1 to 3 before and X has reached Y
# ever since (Since), or will reach Y until an edge Y -> Z holds at most 2
# later (Until): reach is the left operand of its own Since/Until
HELD = """
reach(X, Y) :- e(X, Y).
reach(X, Z) :- reach(X, Y) <S>[1,3] e(Y, Z).
ahead(X, Y) :- e(X, Y).
ahead(X, Z) :- ahead(X, Y) <U>(0,2] e(Y, Z).
@output("reach"). @output("ahead").
"""


def test_reach_through_the_left_operand_of_since_and_until(spark):
    e = facts_to_arrow([(("a", "b"), (0, 10, True, True)), (("b", "c"), (2, 4, True, True)),
                        (("c", "d"), (5, 6, True, True)), (("b", "a"), (1, 2, True, True))], ["x", "y"])
    rounds, model = check(spark, HELD, {"e": e})
    reach = canon(model.facts("reach"))
    assert (("a", "c"), (3, 7, True, True)) in reach  # e(b,c) at 2..4, reach(a,b) ever since: 3..7
    assert (("a", "d"), (6, 7, True, True)) in reach  # then e(c,d) at 5..6 under reach(a,c): up to 7, its closure
    assert max(rounds.values()) >= 3  # a chain: several rounds of the recursion
    assert model.facts("ahead")
    _, model = check(spark, HELD, {"e": e}, horizon=(0, 5))  # every derived fact cut at 5, as in the engine
    assert (("a", "c"), (3, 5, True, True)) in canon(model.facts("reach"))


def test_a_since_closes_the_gap_it_reads_through(spark):
    """``p`` on [0,5) and (5,9] with ``b`` at 0: ``p S[1,10] b`` holds on
    [1,5] (the closure of [0,5)), which fills the gap, so the next round
    reads p's one maximal interval [0,9] and reaches 9."""
    prog = "p(X) :- a(X).\np(X) :- p(X) <S>[1,10] b(X).\npair(X, Y) :- a(X), b(Y).\n@output(\"p\")."  # (pair: no partition key)
    a = facts_to_arrow([((1,), (0, 5, True, False)), ((1,), (5, 9, False, True))], ["x"])
    b = facts_to_arrow([((1,), (0, 0, True, True))], ["x"])
    rounds, model = check(spark, prog, {"a": a, "b": b})
    assert canon(model.facts("p")) == {((1,), (0, 9, True, True))}
    assert max(rounds.values()) >= 3


WINDOWS = ["[1,3]", "(0,2]", "(1,2)", "[2,+inf)", "[1/2,1]", "[1,1]", "(0,+inf)"]
WITH_ZERO = ["[0,2)", "[0,0]", "[0,+inf)"]  # (a plain rule besides: the head's variables are B's)

RECURSIVE = """
r(X, Y) :- e(X, Y).
r(X, Z) :- r(X, Y) <S>{0} e(Y, Z).
r(X, Z) :- [-][0,1] r(X, Y) <U>{1} e(Y, Z).
r(X, Y) :- m(Y, X) <S>{4} b(X).
k(X) :- b(X).
k(Y) :- k(X) <S>{2} e(X, Y).
k(X) :- [+][0,1/2] k(X) <U>{3} b(X).
m(X, Y) :- r(X, Y), k(Y).
c(X) :- r(X, X) <S>{0} b(X).
z(X) :- e(X, 0).
z(X) :- z(X) <U>{1} e(X, 2).
@output("r"). @output("k"). @output("m"). @output("c"). @output("z").
"""


@st.composite
def cases(draw):
    ws = [draw(st.sampled_from(WINDOWS)) for _ in range(5)]
    ws[2], ws[3] = (draw(st.sampled_from(WINDOWS + WITH_ZERO)) for _ in range(2))
    prog = RECURSIVE.format(*ws)

    return prog, facts_to_arrow(drawn_facts(draw, 2, 8), ["x", "y"]), facts_to_arrow(drawn_facts(draw, 1, 4), ["x"])


@settings(max_examples=examples(5), deadline=None, suppress_health_check=list(HealthCheck))
@given(cases())
def test_random_recursions_through_since_and_until_equal_embedded(spark, case):
    """Since and Until recursive through their left operand, in one
    recursion with a join (r, k and m), beside a Since over the finished
    recursion (c) and one with constants (z): closed, open, punctual,
    fractional and unbounded windows (0 in the window too, where B binds
    the head), a box with 0 in its window on the recursive operand, shared
    and repeated variables; open, closed, punctual and unbounded facts."""
    prog, e, b = case
    check(spark, prog, {"e": e, "b": b})


def test_recursive_since_on_a_calendar(spark):
    """Dates: a window of days on a recursion through the left operand."""
    prog = """@timeGranularity("days").
    reach(X, Y) :- leg(X, Y).
    reach(X, Z) :- reach(X, Y) <S>[P1D,P3D] leg(Y, Z).
    @output("reach").
    """
    d = dt.date
    legs = pa.table({"x": ["a", "b", "c", "c"], "y": ["b", "c", "d", "a"],
                     "start": pa.array([d(2024, 3, 1), d(2024, 3, 3), d(2024, 3, 6), d(2024, 3, 1)], pa.date32()),
                     "end": pa.array([d(2024, 3, 20), d(2024, 3, 5), d(2024, 3, 7), d(2024, 3, 2)], pa.date32())})
    from test_spark_rounds_calendar import check as check_dates

    out, model = check_dates(spark, prog, {"leg": legs})
    assert {t for t, _ in model.facts("reach")} >= {("a", "c"), ("a", "d")}


def test_through_the_right_operand_runs_in_rounds(spark):
    """A recursion through B alone, A outside it: B's delta against A's
    maximal intervals, in the rounds (with and without a horizon); through
    both operands with no horizon, one task answers, saying why."""
    prog = "far(X, Z) :- a(X, Y), a(Y, Z).\ns(X) :- a(X, X).\ns(X) :- a(X, X) <S>[1,2] s(X).\n@output(\"s\")."
    rows = [((1, 1), (0, 10, True, True)), ((2, 2), (0, 0, True, True))]
    check(spark, prog, {"a": facts_to_arrow(rows, ["x", "y"])}, horizon=(0, 20))
    check(spark, prog, {"a": facts_to_arrow(rows, ["x", "y"])})
    both = prog.replace("a(X, X) <S>[1,2] s(X)", "s(X) <S>[1,2] s(X)")
    model = chronolog.reason(both, {"a": rows})
    with pytest.warns(cs().DriverFallback, match="recursion through time"):
        out = cs().reason(spark, both, inputs={"a": facts_to_arrow(rows, ["x", "y"])}, distributed=True)
    assert canon(table_to_rows(out["s"].toArrow(), "s")) == canon(model.facts("s"))
