"""Since and Until in the relational rounds
(connectors/spark_rounds/since_until.py) against the embedded engine on
the same facts (marked ``spark``; a few random inputs, Spark is slow)."""


import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.engine.arrow import facts_to_arrow

from test_spark_rounds import canon, drawn_facts
from test_spark_rounds import check as check_both

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("rounds")]  # the rounds, not one task (conftest.py)

# a rule joining facts of different keys: the program has no partition key
NO_KEY = "far(X, Z) :- a(X, Y), a(Y, Z).\n"


def check(spark, program, tables: dict, **kw):
    """Run ``program`` both ways; assert the relational path ran and agrees."""
    return check_both(spark, program, tables, **kw)[1]


WINDOWS = ["[1,3]", "(0,2]", "[0,2)", "[0,0]", "(1,2)", "[2,+inf)", "[0,+inf)", "[1/2,1]"]


@st.composite
def cases(draw):
    ws = draw(st.lists(st.sampled_from(WINDOWS), min_size=4, max_size=4))
    rules = [
        f"s1(X) :- a(X, Y) <S>{ws[0]} b(X).",
        f"u1(X) :- a(X, Y) <U>{ws[1]} b(X).",
        f"s2(Y) :- <->[0,1] a(X, Y) <S>{ws[2]} b(Y).",
        f"u2(X) :- [-][0,1/2] b(X) <U>{ws[3]} a(X, X).",
        f"s3(X) :- [+][0,1] a(X, Y) <S>{ws[0]} b(X).",
        f"u3(X) :- b(X), a(X, Y) <U>{ws[2]} b(Y).",
    ]
    prog = NO_KEY + "\n".join(rules) + '\n@output("s1"). @output("u1"). @output("s2"). @output("u2"). @output("s3"). @output("u3").'

    return prog, facts_to_arrow(drawn_facts(draw, 2, 7), ["x", "y"]), facts_to_arrow(drawn_facts(draw, 1, 5), ["x"])


@settings(max_examples=examples(4), deadline=None, suppress_health_check=list(HealthCheck))
@given(cases())
def test_random_since_until_equal_embedded(spark, case):
    """Since and Until with closed, open, punctual, half-unbounded windows
    (0 in the window is a plain rule the planner splits off), operands under
    a diamond or a box, a join beside them; open, closed,
    punctual and unbounded facts."""
    prog, a, b = case
    check(spark, prog, {"a": a, "b": b})


def test_micro_cases(spark):
    """The reference micro-cases: ``a S[1,5] b`` with b@0, a@(0,2) is
    [1,2]; the Until mirror gives nothing; with [0,5] and a@[0,2], [0,2]."""
    prog = NO_KEY + "s(X) :- a(X, X) <S>[1,5] b(X).\nu(X) :- a(X, X) <U>[1,5] b(X).\nz(X) :- a(X, X) <S>[0,5] b(X).\n" \
        '@output("s"). @output("u"). @output("z").'
    a = facts_to_arrow([((1, 1), (0, 2, False, False))], ["x", "y"])
    b = facts_to_arrow([((1,), (0, 0, True, True))], ["x"])
    model = check(spark, prog, {"a": a, "b": b})
    assert canon(model.facts("s")) == {((1,), (1, 2, True, True))}
    assert not model.facts("u")


def test_plan_runs_since_recursive_through_its_left_operand_only():
    """A recursion through A (no diamond on it) or through B alone (A
    outside the cycle) runs as rounds; through both, or through A under a
    diamond or a box off 0, it moves time: one task with no horizon
    (test_spark_rounds_recursive_since.py runs both)."""
    from chronolog.connectors.spark_rounds import describe
    from chronolog.planner import plan as make_plan

    def path(rules):
        return describe(make_plan(chronolog.load_program(NO_KEY + "s(X) :- a(X, X).\n" + rules)))

    for rules in ("s(X) :- <->[0,1] s(X) <S>[1,2] b(X).",
                  "s(X) :- [-][1,2] s(X) <U>[1,2] b(X).", "s(X) :- s(X) <S>[1,2] s(X)."):
        assert path(rules).startswith("in ONE Spark task, not distributed (relational rounds cannot run it: recursion through time"), rules
    for rules in ("s(X) :- s(X) <S>[1,2] b(X).", "s(X) :- [-][0,2] s(X) <U>(0,+inf) b(X).\nb(X) :- c(X).",
                  "s(X) :- a(X, X) <S>[1,2] b(X).\nb(X) :- s(X)."):
        assert "seminaive rounds" in path(rules), rules
