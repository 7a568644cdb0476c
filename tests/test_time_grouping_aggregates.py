"""Downsampling with any aggregate: time grouping (`/\\[months]`) combined
with aggregation gives what pandas' ``resample`` gives, exactly.

Each day must be its own binding (`reading(X, D, V)` carries the day), or
equal values on two days of a month would be one binding and count once
(aggregation ranges over the set of bindings, docs/language.md)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import chronolog

PROGRAM = """@timeGranularity("days").
reading(X, D, V) :- daily(X, V)@[D, E].
mean(X, A)  :- /\\[{unit}] reading(X, D, V), A = avg(V).
total(X, S) :- /\\[{unit}] reading(X, D, V), S = sum(V).
low(X, M)   :- /\\[{unit}] reading(X, D, V), M = min(V).
high(X, M)  :- /\\[{unit}] reading(X, D, V), M = max(V).
days(X, N)  :- /\\[{unit}] reading(X, D, V), N = count().
"""


@pytest.mark.parametrize("unit,period", [("months", "M"), ("3 months", "Q"), ("years", "Y"), ("weeks", "W-SUN")])
def test_downsampling_matches_pandas(unit, period):
    rng = np.random.default_rng(7)
    days = pd.date_range("2019-12-30", periods=800, freq="D")
    values = rng.integers(-50, 100, len(days))
    facts = [f"daily(s, {v})@{d.date()}" for d, v in zip(days, values)]
    m = chronolog.reason(PROGRAM.format(unit=unit), facts)
    series = pd.Series(values, index=days)
    # pandas periods (weeks ending Sunday = starting Monday), labelled by their first day
    groups = series.groupby(series.index.to_period(period))
    start = lambda p: pd.Timestamp(p.start_time.date())  # noqa: E731
    want = {
        "total": {start(p): int(v) for p, v in groups.sum().items()},
        "low": {start(p): int(v) for p, v in groups.min().items()},
        "high": {start(p): int(v) for p, v in groups.max().items()},
        "days": {start(p): int(v) for p, v in groups.count().items()},
    }
    want["mean"] = {k: Fraction(want["total"][k], want["days"][k]) for k in want["total"]}
    cal = m.calendar
    for pred, expected in want.items():
        # a value holds over whole periods; equal values of adjacent periods
        # are one maximal interval, so walk the periods each fact covers
        got = {}
        for (x, value), iv in m.facts(pred):
            assert iv[2] and not iv[3]
            p = pd.Timestamp(cal.datetime(iv[0])).to_period(period)
            end = pd.Timestamp(cal.datetime(iv[1]))
            assert pd.Timestamp(p.start_time.date()) == pd.Timestamp(cal.datetime(iv[0]))
            while pd.Timestamp(p.start_time.date()) < end:
                got[pd.Timestamp(p.start_time.date())] = value
                p += 1
            assert pd.Timestamp(p.start_time.date()) == end
        assert got == expected, pred
    assert float(next(iter(want["mean"].values()))) == pytest.approx(float(groups.mean().iloc[0]), rel=1e-15)
