"""Sums and means of floats in the relational rounds, exact and rounded
once in Spark SQL (connectors/spark_rounds/float_sums.py), or by the
engine's fold in a UDF where a group's floats do not fit: against the
embedded engine on the same facts, bit for bit (floats compare by ``==``:
``-0.0`` is the rounds' ``0.0``), on floats of narrow and wide exponent
ranges, ties, cancellations, zeros, infinities and sums that overflow
(marked ``spark``)."""

import math
from fractions import Fraction

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

from test_spark_rounds_functions import check, check_folded, refused

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("rounds")]  # the rounds, not one task (conftest.py)


def table(rows):
    """``m(K, V)`` facts from ``(key, value, start, length)``: closed ``[s, s + length]``."""
    return pa.table({"k": pa.array([f"k{k}" for k, _, _, _ in rows], pa.string()), "v": pa.array([v for _, v, _, _ in rows], pa.float64()),
                     "start": pa.array([s for _, _, s, _ in rows], pa.int64()), "end": pa.array([s + n for _, _, s, n in rows], pa.int64())})


PROGRAM = """
total(K, S) :- m(K, V), S = sum(V).
mean(K, A) :- m(K, V), A = avg(V).
all(S, A) :- m(K, V), S = sum(V), A = avg(V).
window(K, A) :- <->[0,2] m(K, V), A = avg(V).
each(S) :- m(K, V), S = msum(V, <K>).
spread(K, L, A, H) :- m(K, V), L = min(V), A = avg(V), H = max(V).
@output("total"). @output("mean"). @output("all"). @output("window"). @output("each"). @output("spread").
"""
OUTPUTS = ["total", "mean", "all", "window", "each", "spread"]

# ties (2^53 + 1 rounds to even), cancellations (1e16 + 1 - 1e16), zeros of
# both signs, the ends of the range (a sum past it is +inf), subnormals
SPECIAL = [0.0, -0.0, 1.0, -1.0, 1e16, -1e16, 9007199254740992.0, 9007199254740994.0, 0.1, 0.2, 0.3, -0.3,
           1.7976931348623157e308, -1.7976931348623157e308, 1e308, 5e-324, 2.2250738585072014e-308, 1e-300,
           2.0 ** -1021, 2.0 ** 1000, math.inf]
narrow = st.floats(15.0, 30.0, width=64)  # a sensor's readings: one or two binary exponents
scaled = st.builds(lambda m, e: m * 2.0 ** e, st.integers(-2**53, 2**53), st.integers(-60, 60))  # 120 bits of exponents
wide = st.floats(allow_nan=False, allow_infinity=False, width=64)
floats = st.one_of(narrow, scaled, wide, st.sampled_from(SPECIAL))
rows = st.lists(st.tuples(st.integers(0, 3), floats, st.integers(0, 6), st.integers(0, 4)), min_size=1, max_size=14)


def cases_of(name, many):
    return {f"{name}{i}": (PROGRAM, {"m": table(r)}, OUTPUTS) for i, r in enumerate(many)}


@settings(max_examples=examples(10), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(rows, min_size=1, max_size=6))
def test_random_float_sums_and_means_are_the_engines(spark, many):
    """Random floats per key and time (narrow and wide exponent ranges,
    ties, cancellations, zeros, subnormals, +inf, sums past the range):
    every sum and mean of the rounds is the engine's float, grouped and not,
    with contributors, beside min and max."""
    check_folded(spark, cases_of("r", many))


UNFIT = "a row computed in Spark: a sum of floats past the exact integer sums"  # (float_sums.UNFIT's stop)


# floats that always fit SQL's integer sums: exponents at most 67 bits apart
# (125 bits less 53 of a mantissa and 4 of 14 bindings' count), far from the range's ends
fitting = st.one_of(narrow, st.builds(lambda m, e: m * 2.0 ** e, st.integers(-2**53, 2**53), st.integers(-7, 7)),
                    st.sampled_from([0.0, -0.0, 1.0, -1.0, 1e16, -1e16, 9007199254740992.0, 9007199254740994.0, 0.1, 0.2, 0.3, -0.3, math.inf]))


@settings(max_examples=examples(5), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.lists(st.tuples(st.integers(0, 3), fitting, st.integers(0, 6), st.integers(0, 4)), min_size=1, max_size=14),
                min_size=1, max_size=6))
def test_random_float_sums_in_sql_are_the_engines(spark, many):
    """Random floats that fit SQL's integer sums (the random test above
    mostly has a group that does not, and then the engine's fold sums
    every aggregate of the call): every sum and mean is the engine's, in
    SQL (the rounds did not run again)."""
    check_folded(spark, cases_of("f", many), again=[])


def test_float_sums_by_hand(spark):
    """Sums the rounds once rounded in their own order: ``1e16 + 1 - 1e16``
    is 1.0, 0.1 + 0.2 + 0.3 is 0.6 (Spark's running sum, 0.6000000000000001),
    a tie rounds to even, -0.0 sums to 0.0, all in SQL's integers (the
    rounds did not run again)."""
    by_hand = [[(0, 1e16, 0, 3), (0, 1.0, 0, 3), (0, -1e16, 0, 3)],
               [(0, 0.1, 0, 1), (0, 0.2, 0, 1), (0, 0.3, 0, 1)],
               [(0, 9007199254740992.0, 0, 1), (0, 1.0, 0, 1), (1, 9007199254740992.0, 0, 1), (1, 3.0, 0, 1)],
               [(0, -0.0, 0, 2), (1, -0.0, 0, 2), (1, 0.0, 1, 2)],
               [(0, 0.1 * k, 0, k) for k in range(1, 40)]]
    models = check_folded(spark, cases_of("h", by_hand), again=[])
    assert [t for t, _ in models["h0"].facts("total")] == [("k0", 1.0)]
    assert [t for t, _ in models["h1"].facts("total")] == [("k0", 0.6)]


def test_floats_past_the_integer_sums_by_hand(spark):
    """Floats whose integers do not fit SQL's sums stop the first run, and
    the rounds run again with the engine's fold: a mean past the range of
    a float sum is finite, a sum past it +inf, one +inf makes the sum
    +inf, values 2^1097 apart sum exactly."""
    by_hand = [[(0, 1.7e308, 0, 1), (0, 1.7e308, 0, 1), (1, 1.7e308, 0, 1), (1, 1.0, 0, 1)],
               [(0, math.inf, 0, 1), (0, 1.0, 0, 1), (0, -1e308, 1, 2)],
               [(0, 1e-300, 0, 2), (0, 1e30, 0, 2), (0, -1e30, 1, 2), (1, 3.0, 0, 2)]]
    models = check_folded(spark, cases_of("h", by_hand), again=[UNFIT])
    assert ("k0", 1e-300) in [t for t, _ in models["h2"].facts("total")]  # (1e-300 + 1e30 - 1e30, exact)


def test_infinities_of_both_signs_are_the_engines_error(spark):
    """+inf beside -inf in a segment has no sum: the engine's error, from one
    task (the SQL stops the rounds as the UDF did)."""
    refused(spark, PROGRAM, {"m": table([(0, math.inf, 0, 2), (1, -math.inf, 1, 2)])}, ["all"], "of +inf and -inf")


@settings(max_examples=examples(30), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.one_of(wide, scaled, st.sampled_from([*SPECIAL, -math.inf])), min_size=1, max_size=40))
def test_each_float_splits_into_its_mantissa_and_exponent(spark, values):
    """float_sums.split in Spark SQL: each finite nonzero double is exactly
    ``fm·2^fe`` (``|fm| < 2^53``, ``fe >= -1074``); a zero or an infinity
    has none, an infinity its sign's count."""
    from chronolog.connectors.spark_rounds import float_sums
    from chronolog.connectors.spark_rounds.sql import Stmt

    spark.createDataFrame([(v,) for v in values], "c double").createOrReplaceTempView("float_sums_split")
    q = Stmt()
    src = q.add("SELECT c FROM float_sums_split", ["c"])
    got = spark.sql(q.text(float_sums.split(q, src, ["c"]))).collect()
    assert sorted(r["c"] for r in got) == sorted(values)
    for r in got:
        v = r["c"]
        assert (r["fp_c"], r["fn_c"]) == (int(v == math.inf), int(v == -math.inf)), r
        if v == 0 or math.isinf(v):
            assert r["fm_c"] is None and r["fe_c"] is None, r
        else:
            assert abs(r["fm_c"]) < 2**53 and r["fe_c"] >= -1074 and Fraction(r["fm_c"]) * Fraction(2) ** r["fe_c"] == Fraction(v), r



@settings(max_examples=examples(20), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.one_of(wide, scaled, st.sampled_from(SPECIAL)).filter(math.isfinite), min_size=1, max_size=40))
def test_a_float_of_term_text_is_its_exact_binary_value(spark, values):
    """text_order.double_parts (the order of term text) on the same split:
    each finite double as ``n/d`` of its 53-bit mantissa and a power of
    two, its exact value (Python's Fraction), where both fit 38 digits
    (else the comparison reading them stops the run: one of them null)."""
    from chronolog.connectors.spark_rounds.text_order import double_parts

    spark.createDataFrame([(v,) for v in values], "c double").createOrReplaceTempView("text_order_floats")
    got = spark.sql(f"SELECT c, {double_parts('c')} AS x FROM text_order_floats").collect()
    assert sorted(r["c"] for r in got) == sorted(values)
    for r in got:
        v, x = r["c"], r["x"]
        m, e = math.frexp(v)
        k = max(e - 53, -1074)  # (a subnormal's mantissa has fewer bits)
        m = int(v * 2.0 ** -k) if k > -1000 else int(Fraction(v) * 2 ** -k)
        fits = v == 0 or (abs(m) * 2**k < 10**38 if k >= 0 else -k <= 124)
        both = x["n"] is not None and x["d"] is not None
        assert both == fits, (v, x)
        if both:
            assert Fraction(int(x["n"]), int(x["d"])) == Fraction(v), (v, x)


def test_a_sum_after_floats_of_wide_exponents_is_zero(spark):
    """Floats 2^64 apart make integers of 36 digits; a segment's sum
    subtracts each binding's where it ends, and Spark's unary minus of a
    decimal rounds past 34 digits: the lone 0.0 at 6 summed to
    -1.7e-17. It is 0.0, the engine's (a case hypothesis found)."""
    rows = [(0, 3017 * 2.0 ** -20, 0, 0), (0, 0.0, 6, 0), (0, 98985 * 2.0 ** 39, 0, 0)]
    model = check(spark, "total(K, S) :- m(K, V), S = sum(V).\ncount(N) :- m(K, V), N = count().\n", {"m": table(rows)}, ["total"])
    assert ("k0", 0.0) in [t for t, _ in model.facts("total")]
