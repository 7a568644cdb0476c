"""Float terms read from the inputs inside the relational rounds: a
``double``/``float`` column, Python floats given as facts (classes.py,
inputs.py), in joins, comparisons with exact constants, min and max,
recursion; against the embedded engine on the same facts, kinds of numbers
included, asserted to run in Spark tasks; and what the rounds refuse
(floats beside exact numbers in one column or join, sums of floats, NaN),
each named (marked ``spark``)."""

import math

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_spark_rounds_functions import check, refused

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
