"""TemporalNode: a box and/or a shift (every diamond) on the interval codes,
element-wise (the rows' timeline.box and timeline.shift, on the doubled
grid of encoding.py), engine/interval_shift.py's trees (the lowering the
Spark rounds share) emitted in numpy or polars (code_frames.ends).  A box needs maximal intervals: its
input is a scan of a stored, coalesced relation, as in the row executor."""

from __future__ import annotations

from ..interval_shift import box, shift
from . import code_frames
from .base import ColumnMapNode


def apply(df, transform, w):
    """``df``'s intervals moved by ``transform`` (interval_shift.shift or
    box) of the window ``w`` in grid units (code_frames.ends: Fallback
    where a finite end leaves the codes), empty rows dropped."""
    return code_frames.ends(df, dict(zip("se", transform(w))), moved=True) if df.height else df


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
