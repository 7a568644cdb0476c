"""TemporalNode: a box and/or a shift (every diamond) on the interval codes,
element-wise (the rows' timeline.box and timeline.shift, on the doubled
grid of encoding.py), as Polars expressions of engine/interval_shift.py,
the lowering the Spark rounds share.  A box needs maximal intervals: its
input is a scan of a stored, coalesced relation, as in the row executor."""

from __future__ import annotations

from ..interval_shift import box, shift
from .base import ColumnMapNode
from .encoding import LIMIT, POS, Fallback


def moved(df, transform, w):
    """``df`` with its ``s``, ``e`` moved by ``transform`` (interval_shift.shift
    or box) of the window ``w`` in grid units; Fallback where a finite end
    leaves ``(-LIMIT, LIMIT)`` (a finite end never reaches a sentinel)."""
    import polars as pl

    from ..exprs import to_polars

    s2, e2 = (to_polars(x, []) for x in transform(w))
    out = df.with_columns(s2.alias("s"), e2.alias("e"))
    far = [(pl.col(c).abs() >= LIMIT) & (pl.col(c).abs() != POS) for c in ("s", "e")]
    if out.height and out.select(pl.any_horizontal(far).any()).item():
        raise Fallback("a time point outside 64-bit codes")
    return out


def apply(df, transform, w):
    """``df`` moved by ``transform`` (:func:`moved`), empty rows dropped."""
    import polars as pl

    from . import code_frames

    if df.height == 0:
        return df
    if code_frames.path(df) == "numpy":
        return code_frames.moved(df, transform, w)
    return moved(df, transform, w).filter(pl.col("s") < pl.col("e"))


class TemporalNode(ColumnMapNode):
    def __init__(self, child, box_w=None, shift_w=None, scale=None):
        super().__init__(child)
        self.box_w, self.shift_w = box_w, shift_w
        self.box_u = scale.window(box_w) if box_w is not None else None
        self.shift_u = scale.window(shift_w) if shift_w is not None else None

    def process(self, df):
        if self.box_u is not None:
            df = apply(df, box, self.box_u)
        if self.shift_u is not None:
            df = apply(df, shift, self.shift_u)
        return df if df.height else None
