"""Aggregations on columns that share a body's segments (several rules with
the same body and group, engine/columns/aggregate.py SharedBody) against
the row engine on random data: same answers as each rule alone."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog

from test_columns_kernels import both, facts_of, intervals, keys  # noqa: F401

pytest.importorskip("polars")

PROGRAM = """
a(K, X) :- <->[0,2] p(K, D, V), X = sum(V), N = count(), N >= 2.
b(K, X) :- <->[0,2] p(K, D, V), X = max(V).
c(X) :- <->[0,2] p(K, D, V), X = min(V).
d(K, X) :- <->[0,2] p(K, D, V), X = avg(V), N = count(), N > 1.
g(K, N) :- <->[0,2] p(K, D, V), N = count().
e(K, X) :- <->[0,3] p(K, D, V), X = max(V).
f(K, X) :- <->[0,2] p(K, D, V), X = min(V).
"""

# each aggregated expression is an assignment after the body (planner
# aggregates.valued, the Spark rounds' too): rules of one body and group
# share segments only where they assign the same expressions
EXPRESSIONS = """
a(K, X) :- <->[0,2] p(K, D, V), X = sum(V * 2).
b(K, X, Y) :- <->[0,2] p(K, D, V), X = max(V + D), Y = min(V * 3).
c(K, X) :- <->[0,2] p(K, D, V), X = avg(V - D).
d(K, N) :- <->[0,2] p(K, D, V), N = count(V * D), N > 1.
e(K, X) :- <->[0,2] p(K, D, V), X = sum(V).
"""


@pytest.mark.parametrize("program", [PROGRAM, EXPRESSIONS], ids=["variables", "expressions"])
@settings(deadline=None, max_examples=examples(30))
@given(rows=st.lists(st.tuples(keys, st.integers(100, 103), st.integers(-5, 5), intervals()), max_size=10), floats=st.booleans())
def test_rules_sharing_a_body_match_the_rows(program, rows, floats):
    # floats never equal a count: equal numbers of two types are one term on
    # columns and may print as the other (the documented difference)
    facts = {"p": [((k, d, v * 0.5 + 0.25 if floats else v), iv) for k, d, v, iv in rows]}
    both(program, facts)


def test_shared_segments_give_each_rule_its_own_answers():
    facts = {"p": [(("x", d, v), (d, d + 1, True, False)) for d, v in enumerate([4, 1, 3, 8, 2])]}
    m = both(PROGRAM, facts)
    assert m.facts("b") == [(("x", 2), (6, 7, True, False)), (("x", 4), (0, 3, True, False)), (("x", 8), (3, 6, True, False))]
    assert m.facts("f") == [(("x", 1), (1, 4, True, False)), (("x", 2), (4, 7, True, False)), (("x", 4), (0, 1, True, False))]
    assert m.facts("e") == [(("x", 2), (7, 8, True, False)), (("x", 4), (0, 3, True, False)), (("x", 8), (3, 7, True, False))]


def test_an_aggregated_expression_is_an_assignment_to_a_fresh_variable():
    from chronolog.language import ast
    from chronolog.planner.aggregates import valued
    from chronolog.planner.ir import Assign

    rule = next(r for r in chronolog.Reasoner(EXPRESSIONS).plan.rules if r.head_pred == "b")
    assignments, aggregates = valued(rule.aggregates)
    assert [a.var for a in assignments] == ["$value0", "$value1"]
    assert all(isinstance(a, Assign) for a in assignments)
    assert [(v, a.func, a.expr) for v, a in aggregates] == [("X", "max", ast.Var("$value0")), ("Y", "min", ast.Var("$value1"))]
    count = next(r for r in chronolog.Reasoner("g(K, N) :- p(K, V), N = count().").plan.rules if r.head_pred == "g")
    assert valued(count.aggregates) == ((), list(count.aggregates))
