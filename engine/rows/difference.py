"""DifferenceNode: ``not p(...)`` — removes from each row's interval every
time at which a matching fact of ``p`` (a lower stratum, complete) holds.

Variables of the negated atom that nothing else binds are existential inside
the negation: ``not p(X, Y)`` with ``Y`` free means "no p(X, _) at all"."""

from __future__ import annotations

from bisect import bisect_left

from chronolog.language import ast
from chronolog.language.timeline import coalesce, subtract

from .input import AtomPattern
from .join import key_function
from ..node import MapNode


class DifferenceNode(MapNode):
    def __init__(self, child, pred, terms, bound_slots, state):
        super().__init__(child)
        self.pred, self.terms, self.state = pred, terms, state
        self.pattern = AtomPattern(terms, bound_slots)
        self.positions, self.key, _ = key_function(self.pattern)
        self._holes = {}
        self._version = None

    def label(self) -> str:
        return f"Difference not {ast.Atom(self.pred, self.terms)}"

    def _holes_for(self, rel, key):
        """The union of the intervals of all atoms matching ``key``."""
        if self._version != rel.version:
            self._holes, self._version = {}, rel.version
        h = self._holes.get(key)
        if h is None:
            bucket = rel.index(self.positions).get(key, ())
            eq = self.pattern.eq_checks
            ivs = []
            for terms in bucket:
                if eq and any(terms[i] != terms[j] for i, j in eq):
                    continue
                ivs.extend(rel.atoms[terms])
            h = coalesce(ivs)  # sorted and disjoint, so their ends are sorted too
            h = self._holes[key] = (h, [x[1] for x in h])
        return h

    def process(self, batch):
        rel = self.state.store.get(self.pred)
        if rel is None or not rel.atoms:
            return batch
        key = self.key
        out = []
        for b, iv in batch:
            holes, ends = self._holes_for(rel, key(b))
            # only the holes that can meet iv: from the first ending at or
            # after its start to the last starting at or before its end (a
            # long series negated row by row stays linear, not quadratic)
            i = bisect_left(ends, iv[0])
            j, n, hi = i, len(holes), iv[1]
            while j < n and holes[j][0] <= hi:
                j += 1
            if i == j:
                out.append((b, iv))
                continue
            for piece in subtract(iv, holes[i:j]):
                out.append((b, piece))
        return out
