"""The time-series recipes of examples/timeseries/ against pandas.

Two synthetic daily series of 13,600 points (the length of the NASDAQ
composite daily series 1971-2023): a random walk in integer cents with
non-zero steps, and a seasonal one (a slow trend, a weekly pattern and
noise, also in cents).  Each recipe runs on both through ``chronolog.reason``
and each day's value is compared with what pandas computes.

"To the last digit the types allow":

* where pandas' float result is the exact result rounded once (sums of
  integers, a sum divided by a count, differences, cumulative sums, the EMA
  in floats with pandas' own order of operations), the comparison is exact
  equality of ``float(chronolog value)`` and pandas' value;
* where pandas rounds more than once (interpolating rounded means, the
  seasonal decomposition of rounded averages) chronolog's exact value is
  compared within a few units in the last place of pandas' float (the bound
  used is stated at each place).
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from pathlib import Path

import pytest

import chronolog

pd = pytest.importorskip("pandas")
np = pytest.importorskip("numpy")

N = 13_600
RECIPES = Path(__file__).resolve().parent.parent / "examples" / "timeseries"


def random_walk(n=N, seed=1971) -> list:
    rng = random.Random(seed)
    v, out = 1_000_000, []
    for _ in range(n):
        out.append(v)
        v += rng.choice([-1, 1]) * rng.randint(1, 5_000)
    return out


def seasonal_series(n=N, seed=7) -> list:
    rng = random.Random(seed)
    week = [300, -120, -80, 40, 150, -500, 210]
    return [50_000 + d * 3 + week[d % 7] + rng.randint(-200, 200) for d in range(n)]


SERIES = {"walk": random_walk(), "seasonal": seasonal_series()}


def facts(values) -> dict:
    """price(s, Day, Value)@[Day, Day+1) for every day."""
    return {"price": [(("s", d, v), (d, d + 1, True, False)) for d, v in enumerate(values)]}


def by_day(model, pred, value_at=-1, n=N) -> dict:
    """Day -> value of ``pred`` on that day (the facts hold on whole days)."""
    out = {}
    for terms, (lo, hi, lc, hc) in model.facts(pred):
        first = math.ceil(lo) if lc or lo != math.ceil(lo) else math.ceil(lo) + 1
        first = max(first, 0)
        last = n - 1 if hi == math.inf else min(math.floor(hi) if hc else math.ceil(hi) - 1, n - 1)
        assert lo <= first or lo == -math.inf, (pred, terms, lo)
        for d in range(first, last + 1):
            assert d not in out, f"{pred} has two values on day {d}"
            out[d] = terms[value_at]
    return out


def exact_equal(ours: dict, theirs, what: str) -> None:
    """Every day pandas has a value for, chronolog has the same float."""
    expected = {d: float(v) for d, v in theirs.items() if not (isinstance(v, float) and math.isnan(v))}
    assert set(ours) == set(expected), f"{what}: days differ"
    bad = [(d, ours[d], expected[d]) for d in expected if float(ours[d]) != expected[d]]
    assert not bad, f"{what}: {len(bad)} days differ, e.g. {bad[:3]}"


def within_ulps(ours: dict, theirs, what: str, ulps: int, scale=None) -> None:
    """chronolog's exact value within ``ulps`` units in the last place of
    pandas' float (of ``scale``, the magnitude of pandas' inputs, when given:
    differences of nearly equal numbers keep the inputs' absolute error)."""
    expected = {d: v for d, v in theirs.items() if not math.isnan(v)}
    assert set(ours) == set(expected), f"{what}: days differ"
    worst = 0.0
    for d, v in expected.items():
        unit = math.ulp(scale if scale is not None else v)
        err = abs(Fraction(ours[d]) - Fraction(v)) / Fraction(unit) if unit else 0
        worst = max(worst, float(err))
    assert worst <= ulps, f"{what}: off by {worst} ulp"


def series(values):
    return pd.Series(np.array(values, dtype="float64"))


@pytest.fixture(scope="module", params=sorted(SERIES))
def data(request):
    return request.param, SERIES[request.param]


_models: dict = {}


def run(recipe: str, name: str, values):
    key = (recipe, name)
    if key not in _models:
        _models[key] = chronolog.reason(RECIPES / f"{recipe}.vada", facts(values))
    return _models[key]


def test_shift(data):
    name, values = data
    m = run("shift", name, values)
    s = series(values)
    exact_equal(by_day(m, "lagged"), s.shift(1).to_dict(), "shift(1)")
    exact_equal(by_day(m, "lead"), s.shift(-1).to_dict(), "shift(-1)")


def test_rolling_windows_and_sma(data):
    name, values = data
    m = run("rolling", name, values)
    r = series(values).rolling(20)
    exact_equal(by_day(m, "rollSum"), r.sum().to_dict(), "rolling sum")
    exact_equal(by_day(m, "sma"), r.mean().to_dict(), "rolling mean (SMA)")
    exact_equal(by_day(m, "rollMin"), r.min().to_dict(), "rolling min")
    exact_equal(by_day(m, "rollMax"), r.max().to_dict(), "rolling max")


def test_centred_moving_average(data):
    name, values = data
    m = run("cma", name, values)
    exact_equal(by_day(m, "cma"), series(values).rolling(7, center=True).mean().to_dict(), "CMA")


def test_exponential_moving_average(data):
    name, values = data
    m = run("ema", name, values)
    ema = series(values).ewm(span=20, adjust=False).mean()
    exact_equal(by_day(m, "ema"), ema.to_dict(), "EMA")


def test_stock_and_flow(data):
    name, values = data
    m = run("stock_flow", name, values)
    s = series(values)
    exact_equal(by_day(m, "flow"), s.diff().to_dict(), "diff")
    exact_equal(by_day(m, "stock"), s.diff().cumsum().to_dict(), "cumsum of diff")


def _weekly(values):
    idx = pd.date_range("1971-02-05", periods=len(values), freq="D")
    return pd.Series(np.array(values, dtype="float64"), index=idx).resample("7D", origin="start")


def test_downsampling_to_weeks(data):
    name, values = data
    m = run("resample", name, values)
    w = _weekly(values)
    for pred, agg in [("weekMean", w.mean()), ("weekSum", w.sum()), ("weekMin", w.min()), ("weekMax", w.max()), ("weekLast", w.last())]:
        ours = {}
        for terms, _ in m.facts(pred):
            ours[terms[1]] = terms[2]
        exact_equal(ours, dict(enumerate(agg.to_list())), f"resample('7D').{pred}")


def test_upsampling_to_days(data):
    name, values = data
    m = run("resample", name, values)
    weekly = _weekly(values).mean()
    ffill = weekly.resample("D").ffill().to_list()
    last_start = (len(weekly) - 1) * 7
    daily = {d: v for d, v in by_day(m, "daily").items() if d <= last_start}
    exact_equal(daily, dict(enumerate(ffill)), "resample('D').ffill()")
    # pandas interpolates the rounded weekly means in floats: within 4 ulp
    # of the values (a difference, a product and a sum each round once)
    interp = weekly.resample("D").interpolate().to_list()
    within_ulps(by_day(m, "interpolated"), dict(enumerate(interp)), "resample('D').interpolate()", 4)


def test_seasonal_decomposition(data):
    name, values = data
    m = run("seasonal", name, values)
    s = series(values)
    day = pd.Series(np.arange(len(values)))
    trend = s.rolling(7, center=True).mean()
    detrended = s - trend
    means = detrended.groupby(day % 7).mean()
    means = means - means.mean()
    seasonal = (day % 7).map(means)
    seasonal = seasonal.where(~trend.isna())
    residual = detrended - seasonal
    exact_equal(by_day(m, "trend"), trend.to_dict(), "trend (centred MA)")
    # pandas: mean of ~1,943 rounded differences, then centred: a few ulp of
    # the series' magnitude (the differences keep its absolute error)
    scale = float(max(values))
    ours_seasonal = {d: v for d, v in by_day(m, "seasonal").items() if not math.isnan(trend[d])}
    within_ulps(ours_seasonal, seasonal.to_dict(), "seasonal", 8, scale)
    within_ulps(by_day(m, "residual"), residual.to_dict(), "residual", 8, scale)
