"""GroupNode: a time grouping (``/\\[months] p(X)``, language/time_grouping.py)
on the interval codes.

Three ways, one answer.  Periods of one length (``/\\[N]``, and days and
weeks on a day timeline) are engine/interval_shift.periods, the lowering
the Spark rounds share; on a day timeline months and years are numpy's
proleptic Gregorian calendar (``datetime64[D]`` -> ``[M]``/``[Y]``): no
Python per row.  Otherwise the rows' own :class:`Grouping` (calendar-correct,
exact) is called once per distinct interval end.  All are tested against
the rows (tests/test_columns_kernels.py)."""

from __future__ import annotations

from .base import ColumnMapNode
from .encoding import NEG, POS

_EPOCH_YEAR = 1970
_YEARS = (1, 9999)  # the numpy path stays within Python's dates, as the rows' Grouping does


class GroupNode(ColumnMapNode):
    def __init__(self, child, group, scale):
        super().__init__(child)
        self.group, self.scale = group, scale

    def label(self) -> str:
        return f"Temporal {self.group.describe()}"

    def process(self, df):
        import numpy as np
        import polars as pl

        fixed = _fixed(self.group, self.scale)
        if fixed is not None:  # periods of one length: the lowering shared with the Spark rounds
            from ..exprs import with_values
            from ..interval_shift import periods

            s2, e2 = periods(*fixed)
            return with_values(df, {"s": s2, "e": e2})[0]
        s = df["s"].to_numpy()
        e = df["e"].to_numpy()
        fast = _months(self.group, self.scale)
        if fast is not None:
            got = _vectorised(s, e, *fast)
            if got is not None:
                return df.with_columns(pl.Series("s", got[0]), pl.Series("e", got[1]))
        us, inv_s = np.unique(s, return_inverse=True)
        ue, inv_e = np.unique(e, return_inverse=True)
        g, scale = self.group, self.scale
        point, unit = scale.point, scale.unit
        ns = np.array([NEG if c == NEG else 2 * unit(g.start(point(c >> 1))) for c in us.tolist()], dtype=np.int64)

        def end(c):
            if c == POS:
                return POS
            hi = point(c >> 1)
            st = g.start(hi)
            return 2 * unit(hi if (st == hi and not c & 1) else g.after(st))

        ne = np.array([end(c) for c in ue.tolist()], dtype=np.int64)
        return df.with_columns(pl.Series("s", ns[inv_s.reshape(-1)]), pl.Series("e", ne[inv_e.reshape(-1)]))


def _fixed(g, scale):
    """``(n, off)``: periods of ``n`` time units from ``off`` (``/\\[N]``, and
    days and weeks on a day timeline), or None."""
    if g.unit is None:
        n = g.count * scale.scale
        return (int(n), 0) if getattr(n, "denominator", 1) == 1 else None
    if g.unit in ("days", "weeks") and _day_timeline(g, scale):
        n = int(g.count)
        return (n, 0) if g.unit == "days" else (7 * n, 4)  # 1970-01-05 is a Monday
    return None


def _day_timeline(g, scale) -> bool:
    """Whether time units are the days since 1970-01-01 (one unit a day)."""
    import datetime

    cal = g.calendar
    return scale.scale == 1 and cal is not None and cal.unit_seconds == 86400 and cal.point(datetime.datetime(1970, 1, 1)) == 0


def _months(g, scale):
    """``(start, after)``: numpy functions on days for months and years on a
    day timeline, or None."""
    import numpy as np

    if g.unit not in ("months", "years") or not _day_timeline(g, scale):
        return None
    n = int(g.count)
    per = 1 if g.unit == "months" else 12

    def start(u):
        months = u.astype("datetime64[D]").astype("datetime64[M]").astype(np.int64) + _EPOCH_YEAR * 12
        months = np.floor_divide(months, n * per) * (n * per) - _EPOCH_YEAR * 12
        return months.astype("datetime64[M]").astype("datetime64[D]").astype(np.int64)

    def after(st):
        months = st.astype("datetime64[D]").astype("datetime64[M]").astype(np.int64) + n * per
        return months.astype("datetime64[M]").astype("datetime64[D]").astype(np.int64)

    lo, hi = (int((np.datetime64(f"{y:04d}-01-01") - np.datetime64("1970-01-01")).astype(np.int64)) for y in _YEARS)
    start.range = after.range = (lo, hi)
    return start, after


def _vectorised(s, e, start, after):
    """New ``s``, ``e`` codes, or None when a point is outside the range the
    functions cover (then the rows' Grouping decides)."""
    import numpy as np

    fs, fe = s != NEG, e != POS
    lo_u, hi_u = s >> 1, e >> 1
    rng = start.range
    pts = np.concatenate([lo_u[fs], hi_u[fe]])
    if pts.size and (pts.min() < rng[0] or pts.max() >= rng[1] - 400):
        return None
    ns = np.where(fs, 2 * start(np.where(fs, lo_u, 0)), NEG)
    st = start(np.where(fe, hi_u, 0))
    keep = (st == hi_u) & ((e & 1) == 0)  # an open end exactly at a period's start
    ne = np.where(fe, 2 * np.where(keep, hi_u, after(st)), POS)
    return ns, ne
