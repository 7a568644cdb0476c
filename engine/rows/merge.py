"""MergeNode: coalesces a predicate's derived facts into its relation.

Each ground atom keeps sorted maximal intervals (:func:`store.merge_into`).
The node remembers which maximal intervals are new since the round began:
they are the next round's delta, and what ``next()``/``get()`` serve
downstream.  Two strategies (the Temporal Vadalog paper):

* ``blocking``: the evaluator first pulls every rule of the round, then
  merges everything at once — no rule sees this round's facts, so no rule
  instance is applied twice;
* ``streaming``: each batch is merged as soon as it is pulled, so rules later
  in the same round already see it (fewer rounds, some repeated work).
"""

from __future__ import annotations

from ..node import Node


class MergeNode(Node):
    def __init__(self, relation, inputs=(), strategy: str = "blocking", provenance=None):
        self.relation = relation
        self.inputs = list(inputs)
        self.strategy = strategy
        self.changes: dict = {}  # terms -> set of new maximal intervals
        self._pending: list = []
        self._served = None
        self._batch = []
        self.rows_in = 0  # derivations received (for statistics)
        self._before: dict = {}  # terms -> intervals before this node first changed them
        # provenance: (pred, terms) -> [(piece, rule, binding)], rows carry a third field
        self.provenance = provenance

    @property
    def children(self) -> tuple:
        return tuple(self.inputs)

    def label(self) -> str:
        return f"Merge[{self.strategy}] {self.relation.name}"

    def pull_inputs(self) -> None:
        """Drain every input pipeline (merging at once when streaming)."""
        for node in self.inputs:
            while node.next():
                batch = node.get()
                if self.strategy == "streaming":
                    self.merge(batch)
                else:
                    self._pending.extend(batch)

    def flush(self) -> None:
        if self._pending:
            pending, self._pending = self._pending, []
            self.merge(pending)

    def merge(self, rows) -> None:
        rel = self.relation
        add = rel.add
        atoms = rel.atoms
        changes = self.changes
        before = self._before
        prov = self.provenance
        self.rows_in += len(rows)
        for row in rows:
            terms, iv = row[0], row[1]
            res = add(terms, iv)
            if res is None:
                continue
            merged, removed = res
            if terms not in before:
                # the atom's intervals before this change: undo the merge
                before[terms] = tuple(x for x in atoms[terms] if x != merged) + tuple(removed)
            ch = changes.get(terms)
            if ch is None:
                ch = changes[terms] = set()
            for r in removed:
                ch.discard(r)
            ch.add(merged)
            if prov is not None and len(row) > 2:
                prov.setdefault((rel.name, terms), []).append((iv,) + row[2])

    def stratum_changes(self) -> dict:
        """Every maximal interval that is new since this node was created."""
        out = {}
        atoms = self.relation.atoms
        for terms, old in self._before.items():
            new = set(atoms.get(terms, ())) - set(old)
            if new:
                out[terms] = new
        return out

    def take_changes(self) -> dict:
        """The new maximal intervals since the last call, and reset."""
        out = {t: s for t, s in self.changes.items() if s}
        self.changes = {}
        return out

    # pull interface: serve the new facts downstream
    def next(self) -> bool:
        if self._served is None:
            self.pull_inputs()
            self.flush()
            self._served = iter(self.take_changes().items())
        for terms, ivs in self._served:
            self._batch = [(terms, iv) for iv in sorted(ivs, key=lambda x: (x[0], not x[2]))]
            return True
        self._served = None
        return False

    def reset(self) -> None:
        self._served = None
        super().reset()
