"""JoinNode: hash join of the bindings so far with one more body atom on
their shared variables, then interval intersection (``max(s)``, ``min(e)``,
keep ``s < e``).  No shared variable: a cross join, as in the rows."""

from __future__ import annotations

from . import code_frames
from .base import AgainstTableNode


class JoinNode(AgainstTableNode):
    """``other``: the atom's own pipeline (scan, then box/shift)."""

    def process(self, df):
        import polars as pl

        right = self.table()
        if right is None:
            return None
        df, right, shared = self.matched(df, right)
        if code_frames.sorted_path(df, right) == "numpy":
            return code_frames.join(df, right, shared)
        right = right.rename({"s": "s_r", "e": "e_r"})
        j = df.join(right, on=shared, how="inner") if shared else df.join(right, how="cross")
        j = j.with_columns(
            pl.max_horizontal("s", "s_r").alias("s"), pl.min_horizontal("e", "e_r").alias("e")
        ).drop("s_r", "e_r")
        return j.filter(pl.col("s") < pl.col("e"))


