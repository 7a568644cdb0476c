"""JoinNode: join of the bindings so far with one more body atom on their
shared variables, then interval intersection (``max(s)``, ``min(e)``, keep
``s < e``), by code_frames.join: pairs by a sort of the keys in numpy on a
few thousand rows of codes, by a polars hash join past them.  No shared
variable: a cross join, as in the rows."""

from __future__ import annotations

from . import code_frames
from .base import AgainstTableNode


class JoinNode(AgainstTableNode):
    """``other``: the atom's own pipeline (scan, then box/shift)."""

    def process(self, df):
        right = self.table()
        if right is None:
            return None
        df, right, shared = self.matched(df, right)
        return self.unkeyed(code_frames.join(df, right, shared, code_frames.sorted_path(df, right)), shared)
