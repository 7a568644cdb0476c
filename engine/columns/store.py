"""A Store whose relations computed on columns become Python rows only when
something reads them (a row stratum, the Model, an update): a run that only
writes its answer from the columns never builds a Python object per fact."""

from __future__ import annotations

from ..store import Relation, Store, fresh_versions


class LazyStore(Store):
    def __init__(self, store: Store):
        self._relations = store.relations
        self._pending: dict = {}  # pred -> a function building its atoms
        self._counts: dict = {}  # pred -> how many facts its pending atoms hold, where the frame told
        self._frames: dict = {}  # pred -> (its pending build, the frame and arity it reads): atoms counted off it
        # pred -> a ColumnRelation over its columns, or None (set once updates
        # run atom by atom: engine/columns/point_relation.py)
        self.point_relation = None

    def defer(self, pred: str, build, count=None, frame=None) -> None:
        """``pred``'s facts are ``build()`` (a dict terms -> maximal intervals);
        ``count``: how many (atom, interval) facts it makes, if known;
        ``frame``: ``(df, arity)``, the relation it builds them of."""
        self._relations.pop(pred, None)
        self._pending[pred] = build
        self.counted(pred, count)
        if frame is not None:
            self._frames[pred] = (build, *frame)

    def known_atoms(self, pred: str):
        """How many atoms ``pred`` holds while its rows are not built, counted
        off its frame (None: not known so): EXPLAIN ANALYZE's counts built a
        Python row per fact, 30 s of the as-of recipe's 1M fills."""
        got = self._frames.get(pred)
        if got is None or self._pending.get(pred) is not got[0]:  # (the frame of a build since replaced)
            return None
        from .relation import atom_count

        return atom_count(got[1], got[2])

    def defer_all(self, preds, builds, counts) -> None:
        """:meth:`defer` of each of ``preds`` (distinct) with its build in
        ``builds`` and its count in ``counts`` (known): a batch's 10,000
        members in three dict updates, not three calls each."""
        relations = self._relations
        if not relations.keys().isdisjoint(preds):
            for pred in preds:
                relations.pop(pred, None)
        self._pending.update(zip(preds, builds))
        self._counts.update(zip(preds, counts))

    def counted(self, pred: str, count) -> None:
        """``pred``'s pending facts number ``count`` (None: unknown)."""
        if count is None or pred not in self._pending:
            self._counts.pop(pred, None)
        else:
            self._counts[pred] = count

    def known_count(self, pred: str):
        """How many facts ``pred`` holds while its rows are not built, if the
        frame that holds them told (``--stats`` counts without building them)."""
        return self._counts.get(pred) if pred in self._pending else None

    def predicates(self) -> list:
        """The predicates with a relation, built or pending (none built here)."""
        return [*self._relations, *(p for p in self._pending if p not in self._relations)]

    def saved(self) -> tuple:
        """What :meth:`restore` puts back: which relations are rows, which
        are deferred (an update on frames defers the strata it recomputes
        before it may fall back to the rows, which must read the old ones)."""
        return dict(self._relations), dict(self._pending), dict(self._counts)

    def restore(self, saved: tuple) -> None:
        relations, pending, counts = saved
        self._relations.clear()  # (in place: the row store shares this dict)
        self._relations.update(relations)
        self._pending = dict(pending)
        self._counts = dict(counts)

    def _materialise(self, pred: str) -> None:
        if pred not in self._pending:
            return
        rel = self.point_relation(pred) if self.point_relation is not None else None
        build = self._pending.pop(pred, None)  # (gone if making the frame read the rows)
        if rel is None and build is not None:
            rel = Relation(pred)
            rel.atoms = build()
        if rel is not None:
            rel.version = fresh_versions()  # (a predicate's relation is made again after an update on frames)
            self._relations[pred] = rel

    @property
    def relations(self) -> dict:
        for pred in list(self._pending):
            self._materialise(pred)
        return self._relations

    @relations.setter
    def relations(self, value) -> None:  # pragma: no cover - Store.__init__ is not called
        self._relations = value

    def relation(self, pred: str) -> Relation:
        if pred in self._pending:  # (checked here: the rows' DRed asks a few hundred times an update)
            self._materialise(pred)
        rel = self._relations.get(pred)
        if rel is None:
            rel = self._relations[pred] = Relation(pred)
        return rel

    def get(self, pred: str):
        if pred in self._pending:
            self._materialise(pred)
        return self._relations.get(pred)

    def replace(self, pred: str, rel: Relation) -> Relation:
        old = self.relation(pred)
        self._relations[pred] = rel  # (not ``relations``: reading it builds every pending relation)
        return old

    def pending(self, pred: str) -> bool:
        return pred in self._pending

    def none_pending(self, preds: set) -> bool:
        """Whether no predicate of the set ``preds`` is :meth:`pending`."""
        return preds.isdisjoint(self._pending)

    def all_pending(self, preds: set) -> bool:
        """Whether every predicate of the set ``preds`` is :meth:`pending`."""
        return self._pending.keys() >= preds

    def counted_all(self, preds, counts) -> None:
        """:meth:`counted` of each of ``preds`` with its count in ``counts``
        (each pending: same_shape's one caller asks :meth:`all_pending` first)."""
        self._counts.update(zip(preds, counts))

    def materialised(self) -> dict:
        """The relations that are rows already (building none)."""
        return self._relations
