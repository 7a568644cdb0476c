"""Float terms read from the inputs inside the relational rounds: a
``double``/``float`` column, Python floats given as facts (classes.py,
inputs.py), in joins, comparisons with exact constants, min and max,
recursion; against the embedded engine on the same facts, kinds of numbers
included, asserted to run in Spark tasks; and what the rounds refuse
(a float computed beside exact numbers, NaN; products of
floats run in the rounds: test_spark_rounds_former_one_task.py),
each named (marked ``spark``)."""

import math

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog

from test_spark_rounds import cs
from test_spark_rounds_functions import check, check_folded, refused, run

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("rounds")]  # the rounds, not one task (conftest.py)


def table(keys, values, ivs, vtype=pa.float64()):
    """``m(K, V)`` facts: a string key, a float value, closed ``[s, e]`` intervals."""
    return pa.table({"k": pa.array(keys, pa.string()), "v": pa.array(values, vtype),
                     "start": pa.array([s for s, _ in ivs], pa.int64()), "end": pa.array([e for _, e in ivs], pa.int64())})


PROGRAM = """
same(K, L) :- m(K, V), m(L, V), K != L.
hot(K, V) :- m(K, V), V > 2.5, V <= 9007199254740993.
whole(K) :- m(K, V), V == 3.
low(K, M) :- m(K, V), M = min(V).
top(V, N) :- m(K, V), N = count().
span(V, A) :- m(K, V), A = mmin(V, <K>).
high(K, B) :- m(K, V), B = max(V).
link(V, W) :- m(K, V), m(L, W), V < W, m(K, W).
link(V, W) :- link(V, X), link(X, W).
nonneg(K) :- m(K, V), not neg(V).
neg(V) :- m(K, V), V < 0.
twice(K, D) :- m(K, V), V > -1e301, V < 1e301, D = V * 2.
@output("same"). @output("hot"). @output("whole"). @output("low"). @output("top"). @output("span").
@output("link"). @output("nonneg"). @output("twice"). @output("high").
"""
OUTPUTS = ["same", "hot", "whole", "low", "top", "span", "high", "link", "nonneg", "twice"]


def test_float_inputs_by_hand(spark):
    """-0.0 and 0.0 are one term (joins, count); 3.0 equals the constant 3;
    9007199254740992.0 is <= the exact 2^53 + 1 (a cast to a float would
    round the constant to it either way, the comparison is the engine's);
    ±inf compare and join; tiny and huge values."""
    vals = [0.0, -0.0, 3.0, 2.5, 2.5000000000000004, 9007199254740992.0, 1e-300, -1e300, math.inf, -math.inf, 3.0, 0.1]
    keys = [f"k{i % 7}" for i in range(len(vals))]
    ivs = [(i, i + 3) for i in range(len(vals))]
    check(spark, PROGRAM, {"m": table(keys, vals, ivs)}, OUTPUTS)


def test_float32_column_and_float_facts_of_a_bound_file(spark, tmp_path):
    """A ``float`` (32-bit) column is its exact value as a double, as the
    engine reads it; a CSV column bound with ``@mapping(..., "float")``
    gives Python floats as the program's own facts, joined with it."""
    (tmp_path / "g.csv").write_text("k,v,start,end\nk0,0.1,0,5\nk1,2.5,1,4\nk2,-0.0,2,9\nk3,1e300,0,1\n")
    program = tmp_path / "p.vada"
    program.write_text("""
@bind("g", "csv", ".", "g.csv").
@mapping("g", 0, "k", "string"). @mapping("g", 1, "v", "float").
near(K, L, W) :- m(K, V), g(L, W), V >= W, V < W + 1.
same(K, L) :- m(K, V), m(L, V), K != L.
@output("near"). @output("same").
""")
    vals = [0.1, 2.5, 0.0, 3.0, 0.30000001192092896]
    check(spark, program, {"m": table([f"k{i}" for i in range(5)], vals, [(i, i + 4) for i in range(5)], pa.float32())},
          ["near", "same"])


REFUSALS = [
    ("c(K) :- m(K, V), n(K, W), V > W * 2.", "the comparison of a float with the exact number"),
]


@pytest.mark.parametrize("rule, why", REFUSALS)
def test_refused_floats_are_named(spark, rule, why):
    """Floats the engine compares by value with exact numbers fall back
    naming why; the answers are the engine's (an output column mixing
    the two kinds is text in the tables: none is an output here)."""
    head = rule.split("(")[0]
    program = "same(K, L) :- m(K, V), m(L, V), K != L.\n" + rule + f'\n@output("{head}").'
    m = table(["a", "b", "c"], [1.0, 2.5, 9007199254740992.0], [(0, 3), (1, 4), (2, 5)])
    n = pa.table({"k": ["a", "b", "c"], "v": pa.array([1, 2, 9007199254740993], pa.int64()), "start": [0, 1, 2], "end": [3, 4, 5]})
    refused(spark, program, {"m": m, "n": n}, [head], why)


def test_floats_and_exact_numbers_of_two_heads_are_term_text(spark):
    """Two rules' heads giving one argument floats and exact numbers: term
    text, both inputs keyed at their load, so ``1.0`` meets ``1`` and the
    float ``9007199254740992.0`` not ``2^53 + 1``, as the engine finds them
    (this went to one task)."""
    program = ("same(K, L) :- m(K, V), m(L, V), K != L.\nw(K) :- u(V), m(K, V).\nu(V) :- m(K, V).\nu(V) :- n(K, V).\n"
               "x(K) :- u(V), n(K, V).\n@output(\"w\"). @output(\"x\").")
    m = table(["a", "b", "c"], [1.0, 2.5, 9007199254740992.0], [(0, 3), (1, 4), (2, 5)])
    n = pa.table({"k": ["a", "b", "c"], "v": pa.array([1, 2, 9007199254740993], pa.int64()), "start": [0, 1, 2], "end": [3, 4, 5]})
    check(spark, program, {"m": m, "n": n}, ["w", "x"])


def test_nan_input_is_the_engines_error(spark):
    """A NaN term: the engine refuses the row (pandas' missing value), so
    the rounds send it to one task, whose engine says so."""
    program = "same(K, L) :- m(K, V), m(L, V), K != L.\n@output(\"same\")."
    m = table(["a", "b"], [1.0, math.nan], [(0, 3), (1, 4)])
    with pytest.raises(chronolog.DataError, match="NaN"):
        chronolog.reason(program, {"m": m})
    with pytest.warns(cs().DriverFallback, match="a NaN"):
        with pytest.raises(chronolog.DataError, match="NaN"):
            cs().reason(spark, program, inputs={"m": m}, distributed=True)


SMALL = """
same(K, L) :- m(K, V), m(L, V), K != L.
hot(K, V) :- m(K, V), V > 2.5, V <= 9007199254740993, V != 3.
low(K, M, N) :- m(K, V), M = min(V), N = max(V).
link(V, W) :- m(K, V), m(K, W), V < W.
link(V, W) :- link(V, X), link(X, W).
@output("same"). @output("hot"). @output("low"). @output("link").
"""
SPECIAL = [0.0, -0.0, 3.0, 2.5, 1e-308, 5e-324, -1e308, 1.7976931348623157e308, 9007199254740992.0, 9007199254740994.0,
           math.inf, -math.inf, 0.1, -7.0]
floats = st.one_of(st.sampled_from(SPECIAL), st.integers(-5, 5).map(float), st.floats(allow_nan=False, width=64))


@settings(max_examples=examples(5), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.integers(0, 4), floats, st.integers(0, 6), st.integers(1, 4)), min_size=1, max_size=12))
def test_random_floats_in_joins_comparisons_extremes_and_recursion(spark, rows):
    """Random floats (repeated, ints as floats, -0.0, tiny and huge, ±inf)
    as join keys, against exact constants, in min and max and through a
    recursion: the engine's answers, floats typed as floats."""
    keys = [f"k{k}" for k, _, _, _ in rows]
    check(spark, SMALL, {"m": table(keys, [v for _, v, _, _ in rows], [(s, s + n) for _, _, s, n in rows])},
          ["same", "hot", "low", "link"])


MIXED_FACTS = "same(K, L) :- m(K, V), m(L, V), K != L.\nk(X) :- v(X), X == 1.\nv(1)@[0,3]. v(a)@[0,3].\n@output(\"k\")."


def test_program_facts_of_two_kinds_in_one_argument_run_in_the_rounds(spark):
    """The program's own facts of two kinds in one argument: term text, each
    fact its key text (written on the driver), so ``X == 1`` finds the
    engine's ``k(1)`` (they used to arrive as text, ``k()`` came back empty;
    then they went to one task)."""
    check(spark, MIXED_FACTS, {"m": table(["a", "b"], [1.0, 2.0], [(0, 3), (1, 4)])}, ["k"])


def test_one_task_answers_program_facts_of_two_kinds(spark):
    """The engine's ``k(1)`` from a fall back to one task (a recursion
    through time with no horizon's): the program's facts of two kinds in
    one argument reach the task as the engine's own values (they used to
    arrive as text, and ``k()`` came back empty)."""
    refused(spark, MIXED_FACTS + "\ne(K) :- m(K, V).\ne(K) :- <->[1,1] e(K).", {"m": table(["a", "b"], [1.0, 2.0], [(0, 3), (1, 4)])},
            ["k"], "recursion through time")


BIG_FACTS = "big(K, V) :- m(K, W), p(L, V), V > 10.\np(a, 1234567890123456789012345678901234567890)@[0,3]. p(b, 7)@[0,3].\n@output(\"big\")."


def test_program_facts_past_38_digits_are_ordered_in_one_task(spark):
    """A number of the program's facts that no decimal holds is term text,
    its key text (never a name: a plain copy stays the number); ``V > 10``
    orders it, which SQL cannot past 38 digits: the run stops naming that,
    and one task gives the engine's answers."""
    m = table(["a", "b"], [1.0, 2.0], [(0, 3), (1, 4)])
    stats, _, falls = run(spark, BIG_FACTS, {"m": m}, ["big"])
    why = "numbers of term text past 38 digits"
    assert stats.get("path") == "one task" and falls and why in falls[0], falls
    # (a number past 38 digits leaves Spark as text, as Model.to_arrow gives it)
    want = chronolog.reason(BIG_FACTS, {"m": m}).to_arrow("big")
    with pytest.warns(cs().DriverFallback):
        got = cs().reason(spark, BIG_FACTS, inputs={"m": m}, distributed=True, arrow=True)["big"]
    assert sorted(got.rename_columns(want.column_names).to_pylist(), key=repr) == sorted(want.to_pylist(), key=repr)
    assert want.num_rows == 2


def test_float_means_near_the_range_ends_are_the_exact_means(spark):
    """A mean of floats is the exact sum divided by the count, rounded once,
    as the engine's (avg(1e308, 1e308) was +inf: the float sum overflowed);
    the oracle is Fraction arithmetic."""
    from fractions import Fraction

    program = '@output("mean").\nmean(A) :- m(K, V), A = avg(V).\n'
    cases = {values: (program, {"m": table([f"k{i}" for i in range(len(values))], values, [(0, 1)] * len(values))}, ["mean"])
             for values in ((1e308, 1e308), (-1.7e308, -1.7e308, 1.0), (1.5e308, 1.7e308, -1e-300, 3.0))}
    for values, model in check_folded(spark, cases).items():  # (one Spark call: tests/folded.py)
        assert [t for t, _ in model.facts("mean")] == [(float(sum(map(Fraction, values)) / len(values)),)], values
