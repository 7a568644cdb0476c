"""Time grouping ``/\\[N]`` in the relational rounds
(connectors/spark_rounds/rules.py, RuleSql.atom) against the embedded engine on the
same facts (marked ``spark``; a few random inputs, Spark is slow)."""


import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.engine.arrow import facts_to_arrow

from test_spark_rounds import canon, drawn_interval
from test_spark_rounds import check as check_both

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("rounds")]  # the rounds, not one task (conftest.py)

# a rule joining facts of different keys: the program has no partition key
NO_KEY = "far(X, Z) :- a(X, Y, V), a(Y, Z, W).\n"

PROGRAM = NO_KEY + r"""
per3(X) :- /\[3] a(X, Y, V).
half(X, Y) :- /\[1/2] a(X, Y, V).
later(X) :- /\[2] <->[1,1] a(X, Y, V).
total(X, S) :- /\[4] a(X, Y, V), S = sum(V).
@output("per3"). @output("half"). @output("later"). @output("total").
"""


def check(spark, program, tables: dict, **kw):
    """Run ``program`` both ways; assert the relational path ran and agrees."""
    return check_both(spark, program, tables, **kw)[1]


@st.composite
def facts(draw):
    out = []
    for _ in range(draw(st.integers(1, 8))):
        terms = (draw(st.integers(0, 2)), draw(st.integers(0, 2)), draw(st.integers(-3, 5)))
        lo, d = draw(st.sampled_from([-7, -6, -3, -1, 0, 1, 2, 3, 4, 6, 8, 9])), draw(st.sampled_from([0, 0, 1, 2, 3, 5]))
        lc, hc, kind = draw(st.booleans()), draw(st.booleans()), draw(st.sampled_from([0, 0, 0, 0, 1, 2]))
        out.append((terms, drawn_interval(lo, d, lc, hc, kind)))
    return facts_to_arrow(out, ["x", "y", "v"])


@settings(max_examples=examples(4), deadline=None, suppress_health_check=list(HealthCheck))
@given(facts())
def test_random_grouping_equal_embedded(spark, a):
    """Periods of whole and fractional lengths, negative times (the floor
    goes down), ends open and closed on a period's start, unbounded ends,
    after a diamond and under an aggregate."""
    check(spark, PROGRAM, {"a": a})


def test_open_end_at_a_period_start_stays(spark):
    a = facts_to_arrow([((1, 2, 0), (1, 3, True, False)), ((2, 1, 0), (-3, 3, False, True)), ((2, 2, 0), (6, 6, True, True))],
                       ["x", "y", "v"])
    model = check(spark, PROGRAM, {"a": a})
    assert ((1,), (0, 3, True, False)) in canon(model.facts("per3"))  # [1,3) stays within [0,3)
    assert ((2,), (-3, 9, True, False)) in canon(model.facts("per3"))  # (-3,3] reaches [3,6); 6 gives [6,9)


def test_plan_names_the_path():
    """Periods of time units and of calendar units alike run in rounds
    (on dates: test_spark_rounds_calendar.py)."""
    from chronolog.connectors.spark_rounds import describe
    from chronolog.planner import plan as make_plan

    text = describe(make_plan(chronolog.load_program(NO_KEY + r"m(X) :- /\[3] a(X, Y, V).")))
    assert "seminaive rounds" in text
    prog = '@timeGranularity("days").\n' + NO_KEY + r"m(X) :- /\[months] a(X, Y, V)."
    assert describe(make_plan(chronolog.load_program(prog))).startswith("seminaive rounds")
