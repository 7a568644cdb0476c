"""The columns' vectorised float mean (engine/columns/float_mean.py) is
bit-identical to the exact mean, Fraction arithmetic rounded once by
``float()``: on random limbs, on the sums of real floats (both ends of the
range, subnormals, mixed exponents, cancelling sums, counts up to 10**6),
on crafted ties and near-ties, and through the engine.  Only subnormal
means take the exact Python path."""

import math
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import chronolog
from budget import examples
from chronolog.engine.columns import float_mean
from chronolog.engine.columns.float_mean import _means_and_undecided, float_means

MAX = 1.7976931348623157e308
_exact_mean = float_mean.exact_mean  # (the tests count its calls)


def oracle(t: int, k: int, n: int) -> float:
    return float(Fraction(t) * Fraction(2) ** k / n)


def limbs(t: int):
    return t >> 32, t & 0xFFFFFFFF  # t == hi * 2**32 + lo, 0 <= lo < 2**32


def check(cases):
    """``cases``: (T, k, n); the kernel against the oracle, and whether
    each case was left to the exact path."""
    k = cases[0][1]
    assert all(c[1] == k for c in cases)
    hi, lo = zip(*(limbs(t) for t, _, _ in cases))
    n = [c for _, _, c in cases]
    got = float_means(np.array(hi), np.array(lo), k, np.array(n))
    want = [oracle(t, k, c) for t, k, c in cases]
    for g, w, case in zip(got.tolist(), want, cases):
        assert g == w and math.copysign(1, g) == math.copysign(1, w), (case, g, w)
    return _means_and_undecided(np.array(hi), np.array(lo), k, np.array(n))[1]


@settings(max_examples=examples(300), deadline=None)
@given(
    st.integers(-(2**83), 2**83),
    st.integers(-1100, 960),
    st.one_of(st.integers(1, 10), st.integers(1, 10**6), st.integers(1, 2**30)),
)
def test_random_limbs_round_as_fractions(t, k, n):
    assume(-(2**52) <= t >> 32 < 2**52)  # the limbs' bound (aggregate.py)
    assume(abs(Fraction(t) * Fraction(2) ** k / n) <= MAX)  # a mean of finite floats is a finite float's size
    undecided = check([(t, k, n)])
    if not undecided[0]:
        assert abs(oracle(t, k, n)) >= 2.0**-1022 or t == 0  # only subnormals take the exact path


FLOATS = st.one_of(
    st.floats(1e300, MAX),
    st.floats(-MAX, -1e300),
    st.floats(-1e-300, 1e-300, allow_subnormal=True),
    st.floats(-1e6, 1e6),
    st.floats(0.5, 8.0),  # one binade or few: no room below the mean
)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.tuples(FLOATS, st.integers(1, 10**6)), min_size=1, max_size=6), st.booleans())
def test_means_of_real_floats_with_counts_to_a_million(pairs, cancel):
    """A segment's values (each repeated up to 10**6 times), and when
    ``cancel`` their negations but one, so the sum nearly cancels."""
    values = [v for v, _ in pairs]
    counts = [c for _, c in pairs]
    if cancel and len(pairs) > 1:
        values += [-v for v in values[1:]]
        counts += counts[1:]
    weighted = [v * c for v, c in zip(map(Fraction, values), counts)]
    exps = [math.frexp(v)[1] - 53 for v in values if v != 0]
    k = min(exps) if exps else 0
    t = sum(weighted) / Fraction(2) ** k
    assert t.denominator == 1
    t = int(t)
    assume(-(2**52) <= t >> 32 < 2**52)  # sums within the limbs (wider ones stay on Python ints)
    check([(t, k, sum(counts))])


def neighbours(d: float):
    return math.nextafter(d, -math.inf), d, math.nextafter(d, math.inf)


@settings(max_examples=examples(300), deadline=None)
@given(
    st.floats(2.0**-1000, 2.0**1000),
    st.integers(1, 10**6),
    st.integers(1, 83),
    st.integers(-2, 2),
    st.booleans(),
)
def test_ties_and_near_ties_are_decided_exactly(d, n, bits, offset, negative):
    """``T * 2**k / n`` at a midpoint between two doubles (a tie: rounds
    to even) or a little off it (1/n of T's unit, the nearest a mean gets):
    the cases a float estimate cannot decide; here they are exact integers
    and no case takes the exact path."""
    below, _, above = neighbours(d)
    for mid in (Fraction(below) + Fraction(d)) / 2, (Fraction(d) + Fraction(above)) / 2:
        # T of about ``bits`` bits: k so that mid * n / 2**k has them
        k = math.frexp(mid)[1] + n.bit_length() - bits
        t = math.floor(mid * n / Fraction(2) ** k) + offset
        t = -t if negative else t
        assume(t != 0 and -(2**52) <= t >> 32 < 2**52)
        undecided = check([(t, k, n)])
        assert not undecided.any()


def test_exact_ties_in_both_integer_cases():
    """Exact ties where floor(T / n) >= 2**54 and where 2**22 < T / n <
    2**54 (the module's second and third cases; with T a double, T / n
    is no tie: a power-of-two n leaves it a double, another n not dyadic)."""
    for low, n, k in ((2**54, 1000, 0), (2**54, 2, 0), (2**60, 64, 0), (2**54, 1, -7), (2**53, 1, 3), (2**53, 2**20, -60), (2**53, 3, 0)):
        step = low >> 52  # the doubles' spacing above ``low``
        for tie in (low + step // 2, low + 3 * step // 2):  # rounds down to even, then up to even
            t = tie * n if n != 2**20 else tie  # T / n == tie, or tie / 2**20
            for off in (0, 1, -1):  # the tie, and just past it either way
                assert not check([(t + off, k, n), (-t - off, k, n)]).any()


def test_subnormal_means_take_the_exact_path():
    cases = [(1, -1074, 3), (2**52 + 1, -1074 - 30, 7), (-(2**40) - 5, -1100, 1000), (3, -1074, 2)]
    for case in cases:
        assert check([case]).all(), case


def test_blocks_keep_each_segment_in_its_place():
    """Several blocks (float_mean.BLOCK), normal and subnormal means
    interleaved: each answer at its own segment."""
    rng = random.Random(5)
    size = 2 * float_mean.BLOCK + 123
    t = [rng.choice([rng.randrange(1, 2**20), rng.randrange(-(2**83), 2**83)]) for _ in range(size)]
    n = [rng.randrange(1, 10**6) for _ in range(size)]
    k = -1060  # the small ones subnormal
    got = float_means(np.array([x >> 32 for x in t]), np.array([x & 0xFFFFFFFF for x in t]), k, np.array(n))
    assert got.tolist() == [oracle(x, k, c) for x, c in zip(t, n)]


MEAN = """
@output("mean").
mean(G, A) :- p(G, K, X), A = avg(X).
"""


def test_ordinary_rolling_means_never_take_the_exact_path(monkeypatch):
    """A 20-point rolling mean over a sensor series (floats in three
    binades, several groups): every segment decided in numpy, each the
    exact mean of the values live on it."""
    exact_calls = []

    def counted(*case):
        exact_calls.append(case)
        return _exact_mean(*case)

    monkeypatch.setattr(float_mean, "exact_mean", counted)
    rng = random.Random(7)
    rows = []
    for g in ("a", "b", "c"):
        for i in range(2000):
            rows.append((g, i, round(rng.uniform(12.0, 40.0), 2)))
    facts = {"p": [((g, i, v), (i, i + 20, True, False)) for g, i, v in rows]}
    m = chronolog.reason(MEAN, facts, engine="columns")
    assert set(m.stats["executors"].values()) == {"columns"}, m.stats.get("fallbacks")
    by_group = {}
    for g, i, v in rows:
        by_group.setdefault(g, []).append((i, v))
    answers = m.facts("mean")
    assert len(answers) > 5000
    for (g, got), (lo, hi, lc, hc) in answers:
        live = [v for i, v in by_group[g] if i <= lo < i + 20]
        assert got == float(sum(map(Fraction, live)) / len(live)), (g, lo, got)
    assert exact_calls == []



@pytest.mark.slow
def test_a_million_segments_match_the_exact_division():
    """One million random segments, vectorised against Python's int / int."""
    rng = random.Random(11)
    for k in (-1060, -200, -52, 0, 300):
        t = [rng.choice([rng.randrange(-(2**83), 2**83), rng.randrange(-(2**55), 2**55), rng.randrange(-(2**20), 2**20)]) for _ in range(10**6)]
        n = [rng.choice([1, 2, 3, 20, rng.randrange(1, 10**6)]) for _ in t]
        hi = np.array([x >> 32 for x in t])
        lo = np.array([x & 0xFFFFFFFF for x in t])
        got = float_means(hi, lo, k, np.array(n))
        want = [_exact_mean(h, l, k, c) for h, l, c in zip(hi.tolist(), lo.tolist(), n)]
        assert got.tolist() == want
