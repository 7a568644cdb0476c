"""TemporalNode: a box and/or a shift (every diamond) on the interval codes,
element-wise (the rows' timeline.box and timeline.shift, on the doubled
grid of encoding.py).  A box needs maximal intervals: its input is a scan of
a stored, coalesced relation, as in the row executor."""

from __future__ import annotations

from chronolog.language.timeline import NEG_INF, POS_INF, format_interval

from .base import ColumnMapNode
from .encoding import LIMIT, NEG, POS, Fallback


def _finite(x, mask):
    import numpy as np

    if np.any((x[mask] <= -LIMIT) | (x[mask] >= LIMIT)):
        raise Fallback("a time point outside 64-bit codes")
    return x


def shift_codes(s, e, w):
    """``<a,b>`` becomes ``<a+d1, b+d2>``; an end is closed when both are."""
    import numpy as np

    d1, d2, c1, c2 = w
    if d1 == NEG_INF:
        s2 = np.full_like(s, NEG)
    else:
        fin = s != NEG
        s2 = np.where(fin, 2 * ((s >> 1) + d1) + ((s & 1) | (0 if c1 else 1)), NEG)
        _finite(s2, fin)
    if d2 == POS_INF:
        e2 = np.full_like(e, POS)
    else:
        fin = e != POS
        e2 = np.where(fin, 2 * ((e >> 1) + d2) + ((e & 1) & (1 if c2 else 0)), POS)
        _finite(e2, fin)
    return s2, e2


def box_codes(s, e, w):
    """``<a,b>`` becomes ``<a-w1, b-w2>``; an end is open only when the
    operand's end is open and the window's end closed.  An infinite window
    end keeps only operands unbounded on that side."""
    import numpy as np

    w1, w2, c1, c2 = w
    if w1 == NEG_INF:
        s2 = np.where(s == NEG, NEG, POS)  # POS: empty, dropped below
    else:
        fin = s != NEG
        s2 = np.where(fin, 2 * ((s >> 1) - w1) + ((s & 1) & (1 if c1 else 0)), NEG)
        _finite(s2, fin)
    if w2 == POS_INF:
        e2 = np.where(e == POS, POS, NEG)
    else:
        fin = e != POS
        e2 = np.where(fin, 2 * ((e >> 1) - w2) + ((e & 1) | (0 if c2 else 1)), POS)
        _finite(e2, fin)
    return s2, e2


def apply(df, fn, w):
    """``df`` with its ``s``, ``e`` transformed by ``fn`` and empty rows dropped."""
    import polars as pl

    if df.height == 0:
        return df
    s2, e2 = fn(df["s"].to_numpy(), df["e"].to_numpy(), w)
    keep = s2 < e2
    df = df.with_columns(pl.Series("s", s2), pl.Series("e", e2))
    return df if keep.all() else df.filter(pl.Series(keep))


class TemporalNode(ColumnMapNode):
    def __init__(self, child, box_w=None, shift_w=None, scale=None):
        super().__init__(child)
        self.box_w, self.shift_w = box_w, shift_w
        self.box_u = scale.window(box_w) if box_w is not None else None
        self.shift_u = scale.window(shift_w) if shift_w is not None else None

    def label(self) -> str:
        parts = []
        if self.box_w is not None:
            parts.append(f"box{format_interval(self.box_w)}")
        if self.shift_w is not None:
            parts.append(f"shift{format_interval(self.shift_w)}")
        return "Temporal " + " then ".join(parts)

    def process(self, df):
        if self.box_u is not None:
            df = apply(df, box_codes, self.box_u)
        if self.shift_u is not None:
            df = apply(df, shift_codes, self.shift_u)
        return df if df.height else None
