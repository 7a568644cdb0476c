"""GroupNode: a time grouping (``/\\[months] p(X)``, language/time_grouping.py)
on the interval codes.

Two ways, one answer.  Periods of one length (``/\\[N]``, and days and
weeks on a day timeline) and months and years on a day timeline are
engine/interval_shift.py's, the lowering the Spark rounds share, emitted in
numpy (exprs.to_numpy, its proleptic Gregorian months): no Python per row.
Otherwise the rows' own :class:`Grouping` (calendar-correct, exact) is called once per distinct
interval end.  Both are tested against the rows (tests/test_columns_kernels.py)."""

from __future__ import annotations

import datetime

from ..interval_codes import NEG, POS
from .base import ColumnMapNode

_EPOCH = datetime.date(1970, 1, 1).toordinal()
_YEARS = (1, 9999)  # the shared path stays within Python's dates, as the rows' Grouping does


class GroupNode(ColumnMapNode):
    def __init__(self, child, group, scale):
        super().__init__(child)
        self.group, self.scale = group, scale

    def process(self, df):
        import numpy as np
        import polars as pl

        s = df["s"].to_numpy()
        e = df["e"].to_numpy()
        shared = _shared(self.group, self.scale)
        if shared is not None:  # the lowering shared with the Spark rounds, in numpy (each subtree once)
            from ..exprs import Refused, to_numpy

            memo: dict = {}
            try:
                s2, e2 = (to_numpy(x, {"s": s, "e": e}, memo) for x in shared)
                return df.with_columns(pl.Series("s", s2, dtype=pl.Int64), pl.Series("e", e2, dtype=pl.Int64))
            except Refused:
                pass  # a time beyond the calendar functions' years: the rows' Grouping below
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


def _shared(g, scale):
    """The ``(s, e)`` Exprs of engine/interval_shift.py for ``g``: periods of
    one length (``/\\[N]``, days and weeks on a day timeline), or months and
    years on a day timeline within the years Python's dates hold (the rows'
    Grouping); None for another grouping."""
    from ..interval_shift import grouping

    if g.unit is not None and not (_day_timeline(g, scale) and g.unit in ("days", "weeks", "months", "years")):
        return None
    lo, hi = (datetime.date(y, 1, 1).toordinal() - _EPOCH for y in _YEARS)
    return grouping(g, lambda t: int(n) if getattr(n := t * scale.scale, "denominator", 1) == 1 else None, 1, (lo, hi - 400))


def _day_timeline(g, scale) -> bool:
    """Whether time units are the days since 1970-01-01 (one unit a day)."""
    cal = g.calendar
    return scale.scale == 1 and cal is not None and cal.unit_seconds == 86400 and cal.point(datetime.datetime(1970, 1, 1)) == 0
