"""GroupNode: a time grouping (``/\\[months] p(X)``, language/time_grouping.py)
on the interval codes.  The period arithmetic is the rows' own
:class:`Grouping` (calendar-correct, exact), called once per distinct
interval end rather than per row: a daily series over decades has a few
thousand distinct ends per period boundary, not one per fact."""

from __future__ import annotations

from .base import ColumnMapNode
from .encoding import NEG, POS


class GroupNode(ColumnMapNode):
    def __init__(self, child, group, scale):
        super().__init__(child)
        self.group, self.scale = group, scale

    def label(self) -> str:
        return f"Temporal {self.group.describe()}"

    def process(self, df):
        import numpy as np
        import polars as pl

        g, scale = self.group, self.scale
        s = df["s"].to_numpy()
        e = df["e"].to_numpy()
        us, inv_s = np.unique(s, return_inverse=True)
        ue, inv_e = np.unique(e, return_inverse=True)
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
