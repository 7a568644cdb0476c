"""SinceNode: ``A S_ϱ B`` / ``A U_ϱ B`` on columns, the rows' SinceJoinNode
(engine/rows/since.py) for every pair at once.

Per maximal interval ``I`` of A, closed to ``Iᶜ``, and interval ``J`` of B
sharing the variables: ``((Iᶜ ∩ J) ⊕ ϱ) ∩ Iᶜ`` (Until: shifted by ``-ϱ``).
The planner has split off ``0 ∈ ϱ``, so the formula is exact.  On the doubled
grid closing is one step: an odd (open) start goes down by one, an even
(open) end up by one; the unbounded sentinels stay."""

from __future__ import annotations

from . import code_frames
from .base import AgainstTableNode
from ..interval_shift import closure, since_offset


class SinceNode(AgainstTableNode):
    def __init__(self, child, left, op, window, scale, values):
        """``child``: B's scan (the right operand); ``left``: A's scan over
        its stored, coalesced relation."""
        super().__init__(child, left, values)
        self.op, self.window = op, window
        self.offset = scale.window(since_offset(op, window))

    def prepared(self, table):
        """A's intervals closed, as ``cs``, ``ce`` in place of ``s``, ``e``."""
        return code_frames.ends(table, dict(zip(("cs", "ce"), closure())), ("s", "e"))

    def process(self, df):
        left = self.table()
        if left is None:
            return None
        df, left, shared = self.matched(df, left)
        return self.unkeyed(code_frames.since(df, left, shared, self.offset, code_frames.path(df, left)), shared)
