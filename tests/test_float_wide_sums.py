"""Float sums and means over columns whose floats lie far apart in
magnitude (0.0001 beside 1e6, 1e-300 beside 1e300, subnormals) stay
vectorised (engine/columns/aggregate.py, K limbs of 32 bits) and are the
rows' exact sums rounded once: the oracle is Fraction arithmetic.  Only
subnormal results take Python's exact division."""

import math
import random
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import chronolog
from budget import examples
from chronolog.engine.columns import aggregate, float_mean

_exact_mean = float_mean.exact_mean  # (the tests count its calls)
TINY = 2.0**-1022


def rounded(t: Fraction) -> float:
    """``t`` correctly rounded; an infinity past the float range."""
    try:
        return float(t)
    except OverflowError:
        return math.inf if t > 0 else -math.inf


def kernel(values, rows, m, mean):
    """The columns' sums (means) per segment of rows covering ``[i_s, i_e)``,
    and each segment's exact oracle."""
    i_s = np.array([a for a, _ in rows], dtype=np.int64)
    i_e = np.array([b for _, b in rows], dtype=np.int64)
    count = aggregate._range_sum(m, i_s, i_e, np.ones(len(rows), dtype=np.int64))
    seg = np.flatnonzero(count[:m] > 0)
    most = int(count.max())
    got = aggregate._exact_float_sums(m, i_s, i_e, np.array(values, dtype=np.float64), seg, most)(count[seg] if mean else None)
    want = []
    for s in seg.tolist():
        live = [Fraction(v) for v, (a, b) in zip(values, rows) if a <= s < b]
        want.append(rounded(sum(live) / len(live) if mean else sum(live)))
    return got.tolist(), want


def wide_float():
    """Any finite float, both signs, every exponent (subnormals included)."""
    return st.floats(allow_nan=False, allow_infinity=False)


def decimal_float():
    """A reading between 1e-12 and 1e8, as sensors write them."""
    return st.builds(lambda d, e, s: s * d * 10.0**e, st.integers(1, 9999), st.integers(-16, 4), st.sampled_from([1, -1]))


def ranges(n):
    return st.lists(st.tuples(st.integers(0, 12), st.integers(1, 6)), min_size=n, max_size=n).map(lambda r: [(a, a + w) for a, w in r])


@st.composite
def columns(draw, values):
    v = draw(st.lists(values, min_size=1, max_size=25))
    if draw(st.booleans()):  # a cancelling pair or two
        v += [-x for x in draw(st.lists(st.sampled_from(v), max_size=3))]
    return v, draw(ranges(len(v)))


@settings(max_examples=examples(400), deadline=None)
@given(columns(wide_float()), st.booleans())
def test_wide_sums_and_means_are_the_exact_ones_rounded_once(column, mean):
    values, rows = column
    got, want = kernel(values, rows, 20, mean)
    assert got == want


@settings(max_examples=examples(300), deadline=None)
@given(columns(decimal_float()), st.booleans())
def test_decimal_readings_twenty_binades_apart(column, mean):
    values, rows = column
    got, want = kernel(values, rows, 20, mean)
    assert got == want


def test_ties_decided_by_a_bit_a_thousand_binades_below():
    """1 + 2**-53 is a tie (to even: 1.0); a float far below breaks it up
    or down, and 3 * 2**-53 (a tie to even upwards) the other way."""
    cases = [
        [1.0, 2.0**-53],
        [1.0, 2.0**-53, 1e-300],
        [1.0, 2.0**-53, -1e-300],
        [1.0, 3 * 2.0**-53],
        [1.0, 3 * 2.0**-53, -(2.0**-1074)],
        [2.0**1000, 2.0**947, 2.0**-1074],
        [-(2.0**1000), -(2.0**947), -(2.0**-1074)],
        [1e300, -1e300, 1e-300],
        [1e308, 1e308, -1e308],
        [1e308, 1e308],
        [2.0**-1074, 2.0**-1074, 2.0**-1070, 1e-320],
    ]
    for values in cases:
        for mean in (False, True):
            got, want = kernel(values, [(0, 1)] * len(values), 1, mean)
            assert got == want, (values, mean)


def test_wide_columns_never_take_the_python_path(monkeypatch):
    """Rolling sums and means over 5,000 readings from 1e-12 to 1e6 and
    from 1e-300 to 1e300: no segment leaves numpy (no Python int sum, no
    exact division) where the result is normal."""
    calls = []

    def counted(*case):
        calls.append(case)
        return _exact_mean(*case)

    monkeypatch.setattr(float_mean, "exact_mean", counted)
    monkeypatch.setattr(aggregate, "_to_float", lambda *case: calls.append(case))
    rng = random.Random(3)
    for low, high in ((-12, 6), (-300, 300)):
        values = [rng.choice([1, -1]) * rng.uniform(1, 10) * 10.0 ** rng.randint(low, high) for _ in range(5000)]
        rows = [(i, i + 20) for i in range(5000)]
        for mean in (False, True):
            got, want = kernel(values, rows, 5020, mean)
            assert got == want
            assert all(x == 0 or abs(x) >= TINY for x in got)
    assert calls == []


MEAN_AND_SUM = """
@output("mean").
@output("total").
mean(G, A) :- p(G, K, X), A = avg(X).
total(G, S) :- p(G, K, X), S = sum(X).
"""


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.tuples(st.sampled_from("ab"), st.integers(0, 8), st.integers(1, 4), wide_float()), min_size=1, max_size=20))
def test_groups_over_time_through_the_engine(rows):
    """Both executors, several groups and segments: the exact answers."""
    facts = {"p": [((g, i, v), (s, s + w, True, False)) for i, (g, s, w, v) in enumerate(rows)]}
    want_mean, want_sum = set(), set()
    for g in "ab":
        for t in range(13):
            live = [Fraction(v) for gg, s, w, v in rows if gg == g and s <= t < s + w]
            if live:
                want_mean.add((g, t, rounded(sum(live) / len(live))))
                want_sum.add((g, t, rounded(sum(live))))
    for engine in ("rows", "columns"):
        m = chronolog.reason(MEAN_AND_SUM, facts, engine=engine)
        for name, want in (("mean", want_mean), ("total", want_sum)):
            at = {}
            for (g, x), (lo, hi, lc, hc) in m.facts(name):
                for t in range(math.ceil(lo), math.floor(hi) + 1):
                    if (lo < t or lc) and (t < hi or hc):
                        at[(g, t)] = x
            assert {(g, t, x) for (g, t), x in at.items()} == want, (engine, name)
