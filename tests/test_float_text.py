"""Python's repr of many floats by Arrow kernels (connectors/float_text.py):
byte-identical to repr, edge cases and random bit patterns."""

import math

import numpy as np

from chronolog.connectors.float_text import float_texts

EDGES = [
    1e16, 1e15, 9999999999999998.0, 999999999999999.9, 123456789012345.6, 1e14, 99999999999999.98,
    1e-5, 1e-4, 9.999999999999999e-05, 0.0001234, -1.5e-5, 1.2345e-7,
    -0.0, 0.0, math.inf, -math.inf, math.nan, 5e-324, 2.5e-310, 2.2250738585072014e-308,
    1.7976931348623157e308, 1000.0, -1000.0, 1.5, 0.1, 0.3, 2 / 3, 1e22, 1e100, 12345678901234567.0,
    9007199254740993.0, 123456789012345.0,
]


def check(values):
    got = float_texts(np.asarray(values, dtype=np.float64)).to_pylist()
    assert got == [repr(v) for v in np.asarray(values, dtype=np.float64).tolist()]


def test_edge_cases():
    check(EDGES)


def test_random_floats():
    rng = np.random.default_rng(7)
    check(rng.integers(0, 2**64, 50_000, dtype=np.uint64).view(np.float64))  # every exponent, nan, inf
    check(10.0 ** rng.uniform(-8, 20, 50_000) * rng.choice([-1, 1], 50_000))
    check(np.round(rng.uniform(0, 1e4, 50_000), 2))  # prices
    check(np.round(rng.uniform(0, 1e4, 50_000), 2).cumsum() / 20)  # their means
    check(rng.integers(-(10**6), 10**6, 10_000).astype(float))


def test_empty():
    assert float_texts(np.zeros(0)).to_pylist() == []
