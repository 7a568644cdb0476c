"""Interval terms in the relational rounds
(connectors/spark_rounds/interval_terms.py) against the embedded engine on
the same facts (marked ``spark``; a few random inputs, Spark is slow)."""

from decimal import Decimal

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.engine.arrow import facts_to_arrow
from chronolog.language.timeline import NEG_INF, POS_INF

from test_spark_rounds import canon, cs
from test_spark_rounds import check as check_both

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("rounds")]  # the rounds, not one task (conftest.py)

# a rule joining facts of different keys: the program has no partition key
NO_KEY = "far(X, Z) :- a(X, Y), a(Y, Z).\n"

PROGRAM = NO_KEY + """
ends(X, S, E) :- a(X, Y)@[S, E].
moved(X)@[S, E) :- a(X, Y)@[S, E2], b(X, E).
span(X)@(S, E] :- b(X, S), b(Y, E), X != Y.
after(X, S) :- <->[0,1] a(X, Y)@[S, E], S >= 2.
at(X, T) :- a(X, Y)@T.
late(Y, T) :- a(X, Y)@T, b(X, S), T > S.
@output("ends"). @output("moved"). @output("span"). @output("after"). @output("at"). @output("late").
"""


def check(spark, program, tables: dict, **kw):
    """Run ``program`` both ways; assert the relational path ran and agrees."""
    return check_both(spark, program, tables, **kw)[1]


@st.composite
def cases(draw):
    def facts(arity, hi):
        out = []
        for _ in range(draw(st.integers(1, 6))):
            terms = tuple(draw(st.integers(0, hi)) for _ in range(arity))
            lo, d = draw(st.integers(-2, 8)), draw(st.integers(0, 4))
            lc, hc = draw(st.booleans()), draw(st.booleans())
            out.append((terms, (lo, lo + d, lc or d == 0, hc or d == 0)))
        return out

    b = [((x, t), iv) for (x, t), iv in facts(2, 2)]
    b = [((x, t * 3 - 2), iv) for (x, t), iv in b]
    return facts_to_arrow(facts(2, 2), ["x", "y"]), facts_to_arrow(b, ["x", "t"])


@settings(max_examples=examples(4), deadline=None, suppress_health_check=list(HealthCheck))
@given(cases())
def test_random_interval_terms_equal_embedded(spark, case):
    """Maximal intervals' ends as terms (open and closed ends give the
    same numbers), after a diamond, compared in a condition; heads placed
    on intervals from terms with each kind of end, empty ones dropped;
    time capture (each integer point, its part of the interval: an open
    end at a point gives nothing there), joined and compared."""
    a, b = case
    check(spark, PROGRAM, {"a": a, "b": b})


def test_decimal_ends_on_the_grid(spark):
    a = pa.table({"x": [1, 2], "y": [2, 1],
                  "start": pa.array([Decimal("0.5"), Decimal("1.25")], pa.decimal128(6, 2)),
                  "end": pa.array([Decimal("2"), Decimal("3.75")], pa.decimal128(6, 2))})
    b = pa.table({"x": [1, 2], "t": pa.array([Decimal("1.5"), Decimal("0.25")], pa.decimal128(6, 2)),
                  "start": [0, 0], "end": [4, 4]})
    model = check(spark, PROGRAM, {"a": a, "b": b})
    assert canon(model.facts("ends"))
    assert ((2, 3), (3, Decimal("3.75"), True, True)) in canon(model.facts("at"))  # the last point's part


def test_unbounded_end_as_a_term_goes_to_one_task(spark):
    """The engine's term for an unbounded end is a float infinity, which
    this path has no column for: the run falls back to one task."""
    a = facts_to_arrow([((1, 2), (0, POS_INF, True, False)), ((2, 1), (NEG_INF, 1, False, True))], ["x", "y"])
    prog = NO_KEY + 'ends(X, S, E) :- a(X, Y)@[S, E].\n@output("ends").'
    with pytest.warns(cs().DriverFallback, match="an unbounded end as a term"):
        cs().reason(spark, prog, inputs={"a": a}, distributed=True)


def test_capture_of_an_unbounded_interval_goes_to_one_task(spark):
    """Infinitely many points: the rounds stop and the engine reports it,
    as the engine does."""
    a = facts_to_arrow([((1, 2), (0, POS_INF, True, False)), ((2, 1), (0, 1, True, True))], ["x", "y"])
    prog = NO_KEY + 'at(X, T) :- a(X, Y)@T.\n@output("at").'
    with pytest.warns(cs().DriverFallback, match="time capture of an unbounded interval"):
        with pytest.raises(chronolog.DataError, match="there are infinitely many"):
            cs().reason(spark, prog, inputs={"a": a}, distributed=True)


def test_plan_names_the_path():
    from chronolog.connectors.spark_rounds import describe
    from chronolog.planner import plan as make_plan

    assert "seminaive rounds" in describe(make_plan(chronolog.load_program(PROGRAM)))
    assert "seminaive rounds" in describe(make_plan(chronolog.load_program(NO_KEY + "at(X, T) :- a(X, Y)@T.")))
