"""The rolling-window and monthly-resampling recipes against pandas, on both
executors: every day of every series, the chronolog fact holding at the day
against pandas' value (rolling(20) sum/mean/min/max; resample("MS")
sum/mean/min/max).  On the columnar executor every stratum must run on
columns."""

from __future__ import annotations

import datetime
import random
from pathlib import Path

import pytest

import chronolog

pd = pytest.importorskip("pandas")
np = pytest.importorskip("numpy")

pytestmark = pytest.mark.usefixtures("executor")

ROOT = Path(__file__).resolve().parent.parent
FIRST = datetime.date(2019, 11, 17)
DAYS, SERIES = 150, 2
MONTHLY = """@timeGranularity("days").
monthSum(S, X) :- /\\[months] price(S, D, V), X = sum(V).
monthMean(S, X) :- /\\[months] price(S, D, V), X = avg(V).
monthMin(S, X) :- /\\[months] price(S, D, V), X = min(V).
monthMax(S, X) :- /\\[months] price(S, D, V), X = max(V).
"""


def series():
    rng = random.Random(7)
    rows = []
    for k in range(SERIES):
        v = 10_000
        for d in range(DAYS):
            rows.append((f"s{k}", d, v / 100))
            v = max(100, v + rng.randint(-400, 400))
    return rows


def by_day(model, pred, calendar):
    out = np.full((SERIES, DAYS), np.nan)
    for (s, x), (lo, hi, lc, hc) in model.facts(pred):
        if calendar:
            off = (FIRST - datetime.date(1970, 1, 1)).days  # a days timeline counts from 1970-01-01
            lo, hi = lo - off, hi - off
        for d in range(max(0, int(lo)), min(DAYS, int(hi) + (1 if hc else 0))):
            if lo <= d and (d < hi or hc):
                assert np.isnan(out[int(s[1:]), d]), (pred, s, d)  # one value per day
                out[int(s[1:]), d] = float(x)
    return out


def assert_agrees(ours, theirs, what):
    same = (np.isnan(ours) & np.isnan(theirs)) | np.isclose(ours, theirs, rtol=1e-12, atol=0)
    assert same.all(), f"{what}: {int((~same).sum())} days differ"


def ran_on_columns(model, executor):
    if executor == "columns":
        assert set(model.stats["executors"].values()) == {"columns"}, model.stats.get("fallbacks")


def test_rolling_recipe_agrees_with_pandas(executor):
    rows = series()
    facts = {"price": [((s, d, v), (d, d + 1, True, False)) for s, d, v in rows]}
    m = chronolog.reason((ROOT / "examples" / "timeseries" / "rolling.vada").read_text(), facts)
    ran_on_columns(m, executor)
    df = pd.DataFrame(rows, columns=["series", "day", "value"])
    r = df.groupby("series")["value"].rolling(20)
    for pred, fn in {"rollSum": "sum", "sma": "mean", "rollMin": "min", "rollMax": "max"}.items():
        theirs = getattr(r, fn)().to_numpy().reshape(SERIES, DAYS)
        assert_agrees(by_day(m, pred, False), theirs, f"rolling(20).{fn}()")


def test_monthly_resampling_agrees_with_pandas(executor):
    rows = series()
    day = lambda d: FIRST + datetime.timedelta(days=d)  # noqa: E731
    facts = {"price": [((s, d, v), (day(d), day(d + 1), True, False)) for s, d, v in rows]}
    m = chronolog.reason(MONTHLY, facts)
    ran_on_columns(m, executor)
    df = pd.DataFrame(rows, columns=["series", "day", "value"])
    df["date"] = pd.to_datetime([day(d) for d in df["day"]])
    g = df.set_index("date").groupby("series")["value"].resample("MS")
    months = pd.to_datetime([day(d) for d in range(DAYS)]).to_period("M").to_timestamp()
    for pred, fn in {"monthSum": "sum", "monthMean": "mean", "monthMin": "min", "monthMax": "max"}.items():
        v = getattr(g, fn)()
        theirs = np.array([[v.loc[(f"s{k}", mo)] for mo in months] for k in range(SERIES)])
        assert_agrees(by_day(m, pred, True), theirs, f'resample("MS").{fn}()')
