"""Irregular ticks, as a trading desk's data comes, against pandas: rolling
windows in minutes over timestamps to the second (``rolling("5min",
closed="both")``) and an as-of join with a tolerance (``merge_asof``), on
both executors, pandas DataFrames in and out (the ``@timeMapping`` of a
timestamp column)."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chronolog
from budget import examples

pytestmark = pytest.mark.usefixtures("executor")

DAY = pd.Timestamp("2024-03-01 09:30")

ROLLING = """@timeGranularity("minutes").
@timeMapping("tick", 3, 3).
@output("rsum"). @output("rcnt"). @output("rmax"). @output("rmin"). @output("ravg").
rsum(S, X) :- <->[0,5] tick(S, I, V), X = sum(V).
rcnt(S, X) :- <->[0,5] tick(S, I, V), X = count().
rmax(S, X) :- <->[0,5] tick(S, I, V), X = max(V).
rmin(S, X) :- <->[0,5] tick(S, I, V), X = min(V).
ravg(S, X) :- <->[0,5] tick(S, I, V), X = avg(V).
"""

# the last quote at or before each trade, at most 10 minutes old: a quote
# holds from its instant until the symbol's next one (Since over the
# instants with no quote), for at most 10 minutes
AS_OF = """@timeGranularity("minutes").
@timeMapping("quote", 2, 2).
@timeMapping("trade", 2, 2).
@output("fill").
quoted(S) :- quote(S, P).
quiet(S) :- sym(S), not quoted(S).
held(S, P) :- quiet(S) <S>(0,10] quote(S, P).
current(S, P) :- quote(S, P).
current(S, P) :- held(S, P), not quoted(S).
fill(S, I, P) :- trade(S, I), current(S, P).
"""


@st.composite
def ticks(draw, values):
    """Ticks of up to three symbols over up to an hour: one per symbol and
    second, numbered per symbol, the value drawn from ``values``."""
    rows = []
    for s in range(draw(st.integers(1, 3))):
        seconds = sorted(draw(st.sets(st.integers(0, 3600), min_size=1, max_size=12)))
        rows += [(f"s{s}", i, draw(values), DAY + pd.Timedelta(seconds=t)) for i, t in enumerate(seconds)]
    return pd.DataFrame(rows, columns=["s", "i", "v", "t"])


prices = st.one_of(st.integers(1, 50), st.integers(9000, 11000).map(lambda c: c / 100))


def holding_at(frame: pd.DataFrame, key: str, t):
    """The value column ``c1`` of the one fact of ``key`` holding at ``t`` (None: none holds)."""
    f = frame[frame.c0 == key]
    hit = f[((f.start < t) | ((f.start == t) & f.start_closed)) & ((f.end > t) | ((f.end == t) & f.end_closed))]
    assert len(hit) <= 1, hit
    return None if hit.empty else hit.iloc[0].c1


@settings(max_examples=examples(60), deadline=None, suppress_health_check=list(HealthCheck))
@given(ticks(prices))
def test_rolling_windows_in_minutes_are_pandas(df):
    """At every tick the 5-minute window's sum, count, max, min and mean
    (the ticks of the last 5 minutes, both ends in) are pandas'; the mean
    of floats rounded once against pandas' running sums, so within 1e-12."""
    model = chronolog.reason(ROLLING, {"tick": df})
    got = {p: model.to_pandas(p) for p in ("rsum", "rcnt", "rmax", "rmin", "ravg")}
    for s, g in df.groupby("s"):
        r = g.set_index("t")["v"].rolling("5min", closed="both")
        for p, want in {"rsum": r.sum(), "rcnt": r.count(), "rmax": r.max(), "rmin": r.min(), "ravg": r.mean()}.items():
            for t, w in want.items():
                value = holding_at(got[p], s, t)
                assert value is not None and math.isclose(float(value), float(w), rel_tol=1e-12, abs_tol=1e-9), (p, s, t, value, w)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=list(HealthCheck))
@given(ticks(prices), ticks(st.just(0)))
def test_an_as_of_join_is_merge_asof(quotes, trades):
    """Each trade's fill is the symbol's last quote at or before it, at
    most 10 minutes old (pandas' merge_asof, backward, tolerance 10
    minutes), at the trade's instant; no quote in reach, no fill."""
    syms = sorted(set(quotes.s) | set(trades.s))
    program = AS_OF + "\n".join(f"sym({s})@[2024-03-01T00:00:00,2024-03-02T00:00:00]." for s in syms)
    fills = chronolog.reason(program, {"quote": quotes[["s", "v", "t"]], "trade": trades[["s", "i", "t"]]}).to_pandas("fill")
    want = pd.merge_asof(trades[["s", "i", "t"]].sort_values("t"), quotes[["s", "v", "t"]].sort_values("t"), on="t", by="s",
                         tolerance=pd.Timedelta("10min"), direction="backward")
    assert len(fills) == want.v.notna().sum()
    for r in want.itertuples():
        got = fills[(fills.c0 == r.s) & (fills.c1 == r.i)]
        assert sorted(got.c2) == ([] if pd.isna(r.v) else [r.v]), (r.s, r.i, r.t)
        assert (got.start == r.t).all() and (got.end == r.t).all()
