"""InputNode: reads the facts of one stored relation (all of it, only what
changed in the last round, or everything but that) and binds variables."""

from __future__ import annotations

from chronolog.language import ast

from ..node import BATCH_SIZE, Node
from ..seminaive import DELTA, OLD



class AtomPattern:
    """How an atom's terms bind variables: constants to check, repeated
    variables to compare, and which positions become new binding slots."""

    def __init__(self, terms: tuple, bound_slots: dict):
        self.const_checks = []
        self.eq_checks = []  # (position, earlier position in the same atom)
        self.bound_checks = []  # (position, slot) for variables bound before
        self.new_positions = []
        self.new_vars = []
        first_pos = {}
        for i, t in enumerate(terms):
            if isinstance(t, ast.Const):
                self.const_checks.append((i, t.value))
            elif t.name in bound_slots:
                self.bound_checks.append((i, bound_slots[t.name]))
            elif t.name in first_pos:
                self.eq_checks.append((i, first_pos[t.name]))
            else:
                first_pos[t.name] = i
                self.new_positions.append(i)
                self.new_vars.append(t.name)
        self.identity = (
            not self.const_checks
            and not self.eq_checks
            and not self.bound_checks
            and self.new_positions == list(range(len(terms)))
        )

    def matches(self, terms: tuple) -> bool:
        for i, v in self.const_checks:
            if terms[i] != v:
                return False
        for i, j in self.eq_checks:
            if terms[i] != terms[j]:
                return False
        return True


class InputNode(Node):
    """Scans a view of a relation: ``full``, ``delta`` (the maximal intervals
    that changed in the last round) or ``old`` (full minus delta)."""

    def __init__(self, pred: str, terms: tuple, view: str, state):
        self.pred = pred
        self.terms = terms
        self.view = view
        self.state = state  # the evaluator: gives relations and deltas
        self.pattern = AtomPattern(terms, {})
        self._iter = None
        self._batch = []

    def label(self) -> str:
        return f"Input[{self.view}] {ast.Atom(self.pred, self.terms)}"

    def reset(self) -> None:
        self._iter = None

    def _source(self):
        if self.view == DELTA:
            return self.state.delta_of(self.pred).items()
        rel = self.state.store.get(self.pred)
        if rel is None:
            return ()
        if self.view == OLD:
            delta = self.state.delta_of(self.pred)
            if delta:
                return _old_items(list(rel.atoms.items()), delta)
        # a snapshot: with the streaming merge strategy the relation grows
        # while this scan is still being pulled
        return list(rel.atoms.items())

    def next(self) -> bool:
        if self._iter is None:
            self._iter = iter(self._source())
        pat = self.pattern
        identity = pat.identity
        newpos = pat.new_positions
        single = newpos[0] if len(newpos) == 1 else None
        out = []
        for terms, ivs in self._iter:
            if not identity:
                if not pat.matches(terms):
                    continue
                if single is not None:
                    binding = (terms[single],)
                else:
                    binding = tuple(terms[p] for p in newpos)
            else:
                binding = terms
            for iv in ivs:
                out.append((binding, iv))
            if len(out) >= BATCH_SIZE:
                break
        if out:
            self._batch = out
            return True
        return False


def _old_items(items, delta: dict):
    for terms, ivs in items:
        d = delta.get(terms)
        if d is None:
            yield terms, ivs
        else:
            rest = [iv for iv in ivs if iv not in d]
            if rest:
                yield terms, rest
