"""Transitive closures by doubling (planner/closure.py): which strata have
the shape, what ``chronolog plan`` says of them, and that the doubled form
the planner writes has the linear form's model, on both embedded
executors, against the pointwise oracle on random interval graphs."""

from __future__ import annotations

import pytest
from budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chronolog
from chronolog.language.timeline import coalesce, format_interval
from chronolog.plan_text import describe_plan
from chronolog.planner import plan as make_plan
from chronolog.planner.closure import closure, shape
from oracle.pointwise import evaluate_text


def only_stratum(text: str):
    """The one recursive stratum of ``text``."""
    (st,) = [s for s in make_plan(chronolog.load_program(text)).strata if s.recursive]
    return st


CLOSURES = {
    "left-linear": "p(X,Y) :- e(X,Y). p(X,Z) :- p(X,Y), e(Y,Z).",
    "right-linear": "p(X,Y) :- e(X,Y). p(X,Z) :- e(X,Y), p(Y,Z).",
    "atoms swapped": "p(A,B) :- e(A,B). p(A,C) :- e(B,C), p(A,B).",
    "right-linear swapped": "p(X,Y) :- e(X,Y). p(X,Z) :- p(Y,Z), e(X,Y).",
}


@pytest.mark.parametrize("name", CLOSURES)
def test_closures_are_recognised_and_doubled(name):
    tc = closure(only_stratum(CLOSURES[name]))
    assert tc is not None and (tc.pred, tc.edge) == ("p", "e")
    step = tc.doubled.rules[1]
    head = [t.name for t in step.head_terms]
    first, second = ([t.name for t in lit.terms] for lit in step.body)
    assert [lit.pred for lit in step.body] == ["p", "p"]
    assert first[0] == head[0] and first[1] == second[0] and second[1] == head[1], step.describe()
    assert tc.doubled.rules[0] is tc.seed and tc.doubled.index == only_stratum(CLOSURES[name]).index


NOT_CLOSURES = {
    "a condition": ("p(X,Y) :- e(X,Y). p(X,Z) :- p(X,Y), e(Y,Z), X != Z.", "not a join of plain binary atoms"),
    "a diamond": ("p(X,Y) :- e(X,Y). p(X,Z) :- p(X,Y), <->[0,1] e(Y,Z).", "not a join of plain binary atoms"),
    "a head box": ("p(X,Y) :- e(X,Y). [+][0,1] p(X,Z) :- p(X,Y), e(Y,Z).", "not a recursion without time operators"),
    "negation": ("p(X,Y) :- e(X,Y). p(X,Z) :- p(X,Y), e(Y,Z), not b(Z).", "not a join of plain binary atoms"),
    "another edge relation": ("p(X,Y) :- e(X,Y). p(X,Z) :- p(X,Y), f(Y,Z).", "does not join the recursion"),
    "two seeds": ("p(X,Y) :- e(X,Y). p(X,Y) :- f(X,Y). p(X,Z) :- p(X,Y), e(Y,Z).", "not two rules"),
    "a reversed seed": ("p(Y,X) :- e(X,Y). p(X,Z) :- p(X,Y), e(Y,Z).", "does not copy its atom"),
    "a constant": ("p(X,Y) :- e(X,Y). p(X,a) :- p(X,Y), e(Y,a).", "not a join of plain binary atoms"),
    "a wrong join": ("p(X,Y) :- e(X,Y). p(X,Z) :- p(Y,X), e(Y,Z).", "does not extend a path by one edge"),
    "already doubled": ("p(X,Y) :- e(X,Y). p(X,Z) :- p(X,Y), p(Y,Z).", "does not join the recursion"),
    "two predicates": ("p(X,Y) :- e(X,Y). q(X,Z) :- p(X,Y), e(Y,Z). p(X,Y) :- q(X,Y).", "several predicates"),
    "three terms": ("p(X,Y,W) :- e(X,Y,W). p(X,Z,W) :- p(X,Y,W), e(Y,Z,W).", "not a join of plain binary atoms"),
}


@pytest.mark.parametrize("name", NOT_CLOSURES)
def test_other_recursions_keep_their_form(name):
    text, why = NOT_CLOSURES[name]
    st = only_stratum(text)
    assert closure(st) is None and why in shape(st), shape(st)


def test_plan_says_spark_doubles_and_why():
    out = describe_plan(make_plan(chronolog.load_program(CLOSURES["left-linear"] + ' @output("p").')))
    line = next(x for x in out.splitlines() if x.startswith("  on spark rounds: "))
    assert "by doubling, p(X,Z) :- p(X,Y), p(Y,Z)" in line and "log2" in line and "given facts" in line, line
    other = describe_plan(make_plan(chronolog.load_program(NOT_CLOSURES["a condition"][0] + ' @output("p").')))
    assert "by doubling" not in other


def doubled_text(text: str) -> str:
    """The program the planner's doubled stratum is, as text."""
    tc = closure(only_stratum(text))
    return "\n".join(f"{r.describe()}." for r in tc.doubled.rules)


edge_lists = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(0, 10), st.integers(0, 6),
                                st.booleans(), st.booleans()), min_size=1, max_size=14)


def facts_text(es) -> str:
    return "\n".join(f"e({x}, {y})@{format_interval((lo, lo + d, lc or d == 0, hc or d == 0))}." for x, y, lo, d, lc, hc in es)


def canon(facts):
    atoms = {}
    for terms, iv in facts:
        atoms.setdefault(tuple(terms), []).append(iv)
    return {(t, iv) for t, ivs in atoms.items() for iv in coalesce(ivs)}


@settings(max_examples=examples(40), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(sorted(CLOSURES)), edge_lists)
def test_doubled_form_has_the_linear_model(name, es):
    """Random interval graphs (cycles, self-loops, open and closed ends,
    punctual edges): the planner's doubled form, the linear form and the
    pointwise oracle agree, on rows and on columns."""
    data = facts_text(es)
    linear = CLOSURES[name]
    oracle = canon(evaluate_text(linear, data, horizon=(-1, 20)).facts("p"))
    for engine in ("rows", "columns"):
        assert canon(chronolog.reason(linear + "\n" + data, engine=engine).facts("p")) == oracle, engine
        assert canon(chronolog.reason(doubled_text(linear) + "\n" + data, engine=engine).facts("p")) == oracle, engine
