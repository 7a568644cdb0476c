"""Functions, strings compared in order and exact numbers meeting floats on
columns (engine/columns/distinct_calls.py: the rows' closures once per
distinct value) against the rows, on random values of every kind: the same
model, or the same error with the same position (division by zero, sqrt of
a negative, strings where numbers are expected: the columns hand such a
stratum to the rows).  Each case that succeeds also checks that it ran on
columns."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.language.errors import ChronologError

pytest.importorskip("polars")

values = st.one_of(
    st.integers(-4, 9),
    st.sampled_from([0.5, -2.25, 4.0, 1e300, 0.1, Fraction(1, 3), Fraction(-9, 4), 2**70]),
    st.sampled_from(["a", "Bé", "ß", "", "i", "İx", "7", "z z"]),
)
facts = st.lists(st.tuples(st.sampled_from(["k", "m"]), values, values, st.integers(0, 6), st.integers(0, 3)), max_size=8)

ASSIGNED = [
    "upper(V)", "lower(W)", "strlen(V)", "substr(V, 1)", "substr(V, W, 2)", "concat(K, V, W)",
    "sqrt(V)", "abs(V)", "exp(W)", "log(V)", "round(V, 1)", "round(V)", "mod(V, W)", "min(V, W)", "max(V, 3)",
    "exact(V)", "float(V) + W", "V / 3 + W", "V / W", "V * W", "V + W", "floor(V / W)", "ceil(V)",
]
CONDITIONS = ["V < W", "V >= \"a\"", "upper(V) == W", "strlen(K) < V", "concat(V, W) != \"aa\"", "V / 3 > W"]


def outcome(program, p, engine):
    """The model's text and the executors used, or the error's text."""
    try:
        m = chronolog.reason(program, {"p": p}, engine=engine)
    except ChronologError as e:
        return ("error", e.render()), None
    return ("model", m.to_text()), m


def same_on_both(program, p):
    rows, _ = outcome(program, p, "rows")
    cols, m = outcome(program, p, "columns")
    assert cols == rows
    if m is not None:
        why = [f for f in m.stats.get("fallbacks", []) if "two types" not in f]  # (1 beside 1.0: documented)
        assert not why, why


def given_rows(rows):
    return [((k, v, w), (s, s + d, True, True)) for k, v, w, s, d in rows]


@settings(deadline=None, max_examples=examples(200))
@example([("k", 4, 0, 0, 1), ("m", 9, 0, 2, 1)], "V / W")
@example([("k", -1, 0, 0, 1), ("m", -4, 0, 2, 1)], "sqrt(V)")  # two messages: the rows' order decides
@example([("k", "a", 1, 0, 1)], "upper(V)")
@example([("k", "a", 0, 0, 0)], "log(V)")  # found here: log() of a string was an internal error on both
@example([("k", 0.5, 0, 0, 0)], "round(V, 1)")  # found here: a float rounded to digits was an internal error on the columns
@given(facts, st.sampled_from(ASSIGNED))
def test_an_assignment_matches_the_rows(rows, expr):
    same_on_both(f"q(K, Y) :- p(K, V, W), Y = {expr}.", given_rows(rows))


@settings(deadline=None, max_examples=examples(100))
@given(facts, st.sampled_from(ASSIGNED), st.sampled_from(CONDITIONS))
@example([("k", -2.25, 0, 0, 0), ("k", -2.25, 1, 1, 0)], "upper(V)", "V < W")  # the columns assign where the rows test
def test_a_condition_and_a_bound_assignment_match_the_rows(rows, expr, cond):
    # the second rule assigns a variable its atom binds: a test of equality
    program = f"q(K, V) :- p(K, V, W), {cond}.\nr(K, V) :- p(K, V, W), q(K, Y), Y = {expr}."
    same_on_both(program, given_rows(rows))


@settings(deadline=None, max_examples=examples(100))
@example([("k", 0.5, 0, 0, 0), ("k", 4.0, 0, 0, 0)], "max(V, 3)", "min")  # 3 beside 4.0: the min is the int 3
@given(facts, st.sampled_from(ASSIGNED), st.sampled_from(["sum", "min", "max", "avg"]))
def test_an_aggregate_of_an_expression_matches_the_rows(rows, expr, func):
    # (the aggregates the kernels refuse, of strings or of floats beside
    # exact numbers, go to the rows: only the answers are compared)
    p = given_rows(rows)
    program = f"m(K, S) :- p(K, V, W), S = {func}({expr})."
    assert outcome(program, p, "columns")[0] == outcome(program, p, "rows")[0]


@pytest.mark.parametrize("func", ["count", "mcount"])
@pytest.mark.parametrize("expr, value", [("upper(V)", 0), ("V + 1", "a"), ("sqrt(V)", -1)])
def test_a_count_of_an_expression_that_fails_fails_as_on_rows(func, expr, value):
    """The columns counted the bindings without evaluating the counted
    expression: ``count(upper(V))`` of V = 0 gave 1 where the rows stop
    on "upper() needs a string" (a random search found it)."""
    p = [(("k", value), (0, 2, True, True)), (("k", "b"), (1, 3, True, True))]
    program = f"q(K, S) :- p(K, V), S = {func}({expr})."
    assert outcome(program, p, "rows")[0][0] == "error"
    assert outcome(program, p, "columns")[0] == outcome(program, p, "rows")[0]


def test_an_aggregate_of_a_function_runs_on_columns():
    p = [((f"n{i % 7}" * (1 + i % 3), i), (i % 5, i % 5 + 2, True, False)) for i in range(300)]
    same_on_both("m(S) :- p(N, V), S = sum(strlen(N)).\nx(K, S) :- p(K, V), S = max(abs(V - 150) + strlen(K)).", p)


texts = st.sampled_from(["a", "Bé", "ß", "", "i", "İx", "7", "z z", "aa", "é", "\U0001f600"])


@settings(deadline=None, max_examples=examples(100))
@given(st.lists(st.tuples(st.sampled_from(["k", "m"]), texts, st.integers(0, 6), st.integers(0, 3)), max_size=8),
       st.sampled_from(["min", "max"]), st.sampled_from(["V", "upper(V)", "concat(V, K)"]))
def test_a_min_or_max_of_strings_runs_on_columns_as_on_rows(rows, func, expr):
    p = [((k, v), (s, s + d, True, d % 2 == 0)) for k, v, s, d in rows]
    same_on_both(f"m(K, S) :- p(K, V), S = {func}({expr}).\nn(S) :- <->[0,2] p(K, V), S = {func}({expr}).", p)


def test_a_function_runs_once_per_distinct_value(monkeypatch):
    from chronolog.language import builtins

    calls = []
    lo, hi, exp = builtins.FUNCTIONS["exp"]
    monkeypatch.setitem(builtins.FUNCTIONS, "exp", (lo, hi, lambda x: calls.append(x) or exp(x)))
    p = [((f"n{i % 50}", i % 50), (i, i + 1, True, False)) for i in range(5000)]
    m = chronolog.reason("q(N, Y) :- p(N, V), Y = exp(V).", {"p": p}, engine="columns")
    assert m.stats["executors"] == {0: "columns"}
    assert sorted(calls) == list(range(50))
    assert (("n7", math.exp(7)), (7, 8, True, False)) in m.facts("q")
