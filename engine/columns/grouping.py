"""GroupNode: a time grouping (``/\\[months] p(X)``, language/time_grouping.py)
on the interval codes.

Two ways, one answer.  On a day timeline (the usual one for daily series)
days, weeks, months and years are numpy's proleptic Gregorian calendar
(``datetime64[D]`` -> ``[M]``/``[Y]``), and ``/\\[N]`` is a floor division
of the units: no Python per row.  Otherwise the rows' own
:class:`Grouping` (calendar-correct, exact) is called once per distinct
interval end.  Both are tested against the rows (tests/test_columns_kernels.py)."""

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

        s = df["s"].to_numpy()
        e = df["e"].to_numpy()
        fast = _periods(self.group, self.scale)
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


def _periods(g, scale):
    """``(start, after)``: vectorised functions on time units, or None."""
    import numpy as np

    if g.unit is None:
        n = g.count * scale.scale
        if getattr(n, "denominator", 1) != 1:
            return None
        n = int(n)
        return (lambda u: np.floor_divide(u, n) * n), (lambda st: st + n)
    cal = g.calendar
    if scale.scale != 1 or cal is None or cal.unit_seconds != 86400 or g.unit not in ("days", "weeks", "months", "years"):
        return None
    import datetime

    if cal.point(datetime.datetime(1970, 1, 1)) != 0:
        return None
    n = int(g.count)
    if g.unit in ("days", "weeks"):
        size, off = (n, 0) if g.unit == "days" else (7 * n, 4)  # 1970-01-05 is a Monday
        return (lambda u: np.floor_divide(u - off, size) * size + off), (lambda st: st + size)
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
    rng = getattr(start, "range", None)
    if rng is not None:
        pts = np.concatenate([lo_u[fs], hi_u[fe]])
        if pts.size and (pts.min() < rng[0] or pts.max() >= rng[1] - 400):
            return None
    ns = np.where(fs, 2 * start(np.where(fs, lo_u, 0)), NEG)
    st = start(np.where(fe, hi_u, 0))
    keep = (st == hi_u) & ((e & 1) == 0)  # an open end exactly at a period's start
    ne = np.where(fe, 2 * np.where(keep, hi_u, after(st)), POS)
    return ns, ne
