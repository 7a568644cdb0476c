"""SinceJoinNode: the Since/Until join.

For ``A S_ϱ B`` with one maximal interval ``I`` of A (closed to ``Iᶜ``) and one
interval ``J`` of B: ``((Iᶜ ∩ J) ⊕ ϱ) ∩ Iᶜ`` (Until: ``⊖ ϱ``).  That formula is
exact when ``0 ∉ ϱ``: ``t - s > 0`` makes the open window ``(s, t)`` non-empty,
and it fits in ``I`` exactly when ``s, t ∈ Iᶜ``.  The planner has split the
``0 ∈ ϱ`` case off, where the textbook formula is wrong.

Either operand may drive: rows of the driving side arrive from the child
(left rows already closed by a ClosingNode), the other side is probed in its
relation through an index on the shared variables.
"""

from __future__ import annotations

from chronolog.language import ast
from chronolog.language.timeline import NEG_INF, POS_INF, format_interval, intersect, shift

from .input import OLD, AtomPattern
from . import join as _join
from .join import batch_keys, intervals_meeting, key_function
from ..node import MapNode


class SinceJoinNode(MapNode):
    def __init__(self, child, op, window, driving_left, pred, terms, bound_slots, view, state):
        super().__init__(child)
        self.op, self.window = op, window
        self.driving_left = driving_left
        self.pred, self.terms, self.view, self.state = pred, terms, view, state
        self.pattern = AtomPattern(terms, bound_slots)
        self.positions, self.key, self.slot = key_function(self.pattern)
        r1, r2, c1, c2 = window
        self.offset = window if op == "S" else (-r2, -r1, c2, c1)
        self._ends = {}  # see join.intervals_meeting
        self._ends_version = None

    def label(self) -> str:
        side = "left" if self.driving_left else "right"
        return (
            f"{'Since' if self.op == 'S' else 'Until'}Join{format_interval(self.window)} "
            f"driven by the {side} operand, probing [{self.view}] {ast.Atom(self.pred, self.terms)}"
        )

    def _combine(self, closed_left, right_iv):
        k = intersect(closed_left, right_iv)
        if k is None:
            return None
        t = shift(k, self.offset)
        return None if t is None else intersect(t, closed_left)

    def process(self, batch):
        rel = self.state.store.get(self.pred)
        if rel is None or not rel.atoms:
            return []
        index = rel.index(self.positions)
        keys = batch_keys(batch, self.key, self.slot)
        rel.read_ahead(self.positions, keys)
        delta = self.state.delta_of(self.pred) if self.view == OLD else None
        pat = self.pattern
        newpos = pat.new_positions
        out = []
        combine = self._combine
        ends_cache = self._ends
        if self._ends_version is not rel.version:
            ends_cache.clear()
            self._ends_version = rel.version
        sorted_ivs = not getattr(rel, "raw", False)
        for (b, iv), k in zip(batch, keys):
            for terms in index.get(k, ()):
                if pat.eq_checks and any(terms[i] != terms[j] for i, j in pat.eq_checks):
                    continue
                nb = b + tuple([terms[p] for p in newpos]) if newpos else b
                ivs = rel.atoms[terms]
                if delta:
                    d = delta.get(terms)
                    if d:
                        ivs = [x for x in ivs if x not in d]
                elif sorted_ivs and len(ivs) >= _join.LONG:
                    # only intervals meeting the (closed) row can combine with it
                    ivs = intervals_meeting(ivs, ends_cache, iv[0], iv[1])
                for other in ivs:
                    if self.driving_left:
                        r = combine(iv, other)
                    else:
                        closed = (other[0], other[1], other[0] != NEG_INF, other[1] != POS_INF)
                        r = combine(closed, iv)
                    if r is not None:
                        out.append((nb, r))
        return out
