"""JoinNode: hash join of the bindings so far with one more body atom on
their shared variables, then interval intersection (``max(s)``, ``min(e)``,
keep ``s < e``).  No shared variable: a cross join, as in the rows."""

from __future__ import annotations

from . import code_frames, small_frames
from .base import ColumnMapNode, drain
from .value_columns import match_kinds


class JoinNode(ColumnMapNode):
    def __init__(self, child, right, values=None):
        """``right``: the atom's own pipeline (scan, then box/shift);
        ``values``: codes float value columns that meet codes (value_columns.py)."""
        super().__init__(child)
        self.values = values
        self.right = right
        self._table = None

    def reset(self) -> None:
        self._table = None
        self.right.reset()
        super().reset()

    def process(self, df):
        import polars as pl

        if self._table is None:
            self._table = drain(self.right)
            if self._table is None:
                self._table = False
        right = self._table
        if right is False:
            return None
        shared = [c for c in df.columns if c.startswith("v:") and c in right.columns]
        if self.values is not None:
            df, right = match_kinds(df, right, shared, self.values)
        way = code_frames.sorted_path(df, right)
        if way == "python":
            return small_frames.join(df, right, shared)
        if way == "numpy":
            return code_frames.join(df, right, shared)
        right = right.rename({"s": "s_r", "e": "e_r"})
        j = df.join(right, on=shared, how="inner") if shared else df.join(right, how="cross")
        j = j.with_columns(
            pl.max_horizontal("s", "s_r").alias("s"), pl.min_horizontal("e", "e_r").alias("e")
        ).drop("s_r", "e_r")
        return j.filter(pl.col("s") < pl.col("e"))


