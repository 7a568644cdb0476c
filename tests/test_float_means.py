"""A mean of floats is the exact sum divided by the count, rounded once
(engine/rows/aggregate.py, engine/columns/aggregate.py): finite wherever
the exact mean is, even when the float sum leaves the float range.  The
oracle is Fraction arithmetic."""

import math
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

import chronolog
from budget import examples

MEAN = """
@output("mean").
mean(G, A) :- p(G, K, X), A = avg(X).
"""


def exact_mean(values) -> float:
    """The correctly rounded mean; an infinity past the float range."""
    try:
        return float(sum(map(Fraction, values)) / len(values))
    except OverflowError:
        return math.inf if sum(map(Fraction, values)) > 0 else -math.inf


def means(values, engine):
    facts = {"p": [(("g", i, v), (0, 1, True, True)) for i, v in enumerate(values)]}
    m = chronolog.reason(MEAN, facts, engine=engine)
    if engine == "columns":
        assert set(m.stats["executors"].values()) == {"columns"}, m.stats.get("fallbacks")
    return [terms[1] for terms, _ in m.facts("mean")]


def test_the_mean_of_two_largest_floats_is_finite():
    for engine in ("rows", "columns"):
        assert means([1e308, 1e308], engine) == [1e308], engine
        assert means([-1.7e308, -1.7e308, 1.0], engine) == [exact_mean([-1.7e308, -1.7e308, 1.0])], engine


# floats near both ends of the range (and of either sign), and ordinary ones
EDGE = st.one_of(
    st.floats(1e300, 1.7976931348623157e308),
    st.floats(-1.7976931348623157e308, -1e300),
    st.floats(-1e-300, 1e-300, allow_subnormal=True),
    st.floats(-1e6, 1e6),
)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(EDGE, min_size=1, max_size=9))
def test_float_means_round_the_exact_mean_once(values):
    want = exact_mean(values)
    for engine in ("rows", "columns"):
        got = means(values, engine)
        assert len(got) == 1 and type(got[0]) is float, (engine, got)
        assert got[0] == want or (got[0] == 0 and want == 0), (engine, got, want)


@settings(max_examples=examples(50), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6), EDGE), min_size=1, max_size=8))
def test_float_means_over_changing_groups_are_the_exact_means(rows):
    """Bindings entering and leaving on overlapping intervals (the rows'
    running fold, the columns' segments): each piece's exact mean."""
    facts = {"p": [(("g", i, v), (min(s, e), max(s, e), True, True)) for i, (s, e, v) in enumerate(rows)]}
    for engine in ("rows", "columns"):
        m = chronolog.reason(MEAN, facts, engine=engine)
        for (_, got), (lo, hi, lc, hc) in m.facts("mean"):
            t = Fraction(lo + hi, 2) if lo != hi else lo  # a point inside the piece
            live = [v for s, e, v in rows if min(s, e) <= t <= max(s, e)]
            assert got == exact_mean(live) or (got == 0 and exact_mean(live) == 0), (engine, got, live)
