"""TemporalNode: applies a box and/or a shift (every diamond) to intervals.

Its input must be maximal intervals when there is a box (a box
needs coalesced input); the planner guarantees that by reading a stored,
coalesced relation or a fresh predicate's MergeNode."""

from __future__ import annotations

from chronolog.language.timeline import box as box_op
from chronolog.language.timeline import format_interval, shift as shift_op

from ..node import MapNode


def interval_transform(box_w, shift_w, group=None):
    """A function interval -> interval or None, for a box then a shift (then
    a time grouping, language/time_grouping.py)."""
    if group is not None:
        inner = interval_transform(box_w, shift_w)
        if inner is None:
            return group
        return lambda iv: (lambda r: None if r is None else group(r))(inner(iv))
    if box_w is None and shift_w is None:
        return None
    if box_w is None:
        return lambda iv: shift_op(iv, shift_w)
    if shift_w is None:
        return lambda iv: box_op(iv, box_w)

    def both(iv):
        r = box_op(iv, box_w)
        return None if r is None else shift_op(r, shift_w)

    return both


class TemporalNode(MapNode):
    def __init__(self, child, box_w=None, shift_w=None, group=None):
        super().__init__(child)
        self.box_w, self.shift_w, self.group = box_w, shift_w, group
        self.fn = interval_transform(box_w, shift_w, group)

    def label(self) -> str:
        parts = []
        if self.box_w is not None:
            parts.append(f"box{format_interval(self.box_w)}")
        if self.shift_w is not None:
            parts.append(f"shift{format_interval(self.shift_w)}")
        if getattr(self, "group", None) is not None:
            parts.append(self.group.describe())
        return "Temporal " + " then ".join(parts)

    def process(self, batch):
        fn = self.fn
        out = []
        for b, iv in batch:
            r = fn(iv)
            if r is not None:
                out.append((b, r))
        return out
