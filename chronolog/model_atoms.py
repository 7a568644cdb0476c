"""A model's atoms with given values at given places, without making the
rows of the whole relation where its columns hold it: a proof, a fact
asked for and a query with constants each read a few atoms of relations
of millions."""

from __future__ import annotations


def model_atoms(model) -> "ModelAtoms":
    """The model's :class:`ModelAtoms` (one per model: it counts the frames
    it filtered)."""
    got = model.__dict__.get("_model_atoms")
    if got is None:
        got = model.__dict__["_model_atoms"] = ModelAtoms(model)
    return got


class ModelAtoms:
    """The model's atoms of a predicate with given values at given
    positions: from its columns, a filter of the frame and rows of what
    passed (the rows of a relation of 1M facts took seconds to make), until
    the rows are made or indexed at those positions, then from their index."""

    def __init__(self, model):
        self.model = model
        self.filtered: dict = {}  # pred -> frames filtered: past FILTERS its rows are made once

    # (a filter of a frame of 1M facts takes a few ms: many questions of
    # one relation make its rows and their index once instead)
    FILTERS = 32

    def whole(self, pred) -> dict:
        rel = self.model._relation(pred)
        return rel.atoms if rel is not None else {}

    def where(self, pred, wanted: list) -> dict:
        """``terms -> intervals`` of the atoms of ``pred`` matching one of
        ``wanted``: ``[(positions, {value tuples})]``."""
        wanted = [(pos, vals) for pos, vals in wanted if vals]
        if not wanted:
            return {}
        atoms = None if self._indexed(pred, wanted) else self._from_columns(pred, wanted)
        if atoms is None:
            atoms = self._from_rows(pred, wanted)
        return atoms

    def _indexed(self, pred, wanted) -> bool:
        """Whether ``pred``'s rows are made, indexed at each of the positions."""
        store = self.model.store
        rel = (store.materialised() if hasattr(store, "materialised") else store.relations).get(pred)
        return rel is not None and all(_whole_atom(rel, pos) or pos in getattr(rel, "_indexes", ()) for pos, _ in wanted)

    def _from_rows(self, pred, wanted) -> dict:
        from chronolog.engine.store import Relation

        rel = self.model._relation(pred)
        if rel is None:
            return {}
        if type(rel).new_index is not Relation.new_index:  # (a session's relation on columns indexes codes)
            return {t: ivs for t, ivs in rel.atoms.items() if any(tuple(t[i] for i in pos) in vals for pos, vals in wanted)}
        out = {}
        for pos, vals in wanted:
            if _whole_atom(rel, pos):  # (the atoms' dict is that index)
                out.update((v, rel.atoms[v]) for v in vals if v in rel.atoms)
                continue
            index = rel.index(pos)
            for v in vals:
                for terms in index.get(v[0] if len(pos) == 1 else v, ()):
                    out[terms] = rel.atoms[terms]
        return out

    def _from_columns(self, pred, wanted):
        model = self.model
        ev = model._columns
        if ev is None:
            return None
        self.filtered[pred] = self.filtered.get(pred, 0) + 1
        if self.filtered[pred] > self.FILTERS:
            return None
        out = ev.read_columns(pred)
        if out is None:
            return None
        import numpy as np
        import polars as pl

        from chronolog.engine.columns.relation import to_atoms
        from chronolog.engine.columns.value_columns import is_values

        df, arity, terms, scale, _ = out
        mask = np.zeros(df.height, dtype=bool)
        for pos, vals in wanted:
            column = df[str(pos[0])]
            if is_values(column):
                return None  # (a column of floats holds values, not codes: the rows compare them)
            codes = [terms.lookup(v[0]) for v in vals]
            if None in codes:
                return None  # (a value no code stands for: the rows tell for sure)
            mask |= np.isin(column.to_numpy(), codes)
        atoms = to_atoms(df.filter(pl.Series(mask)), arity, terms, scale)
        return {t: ivs for t, ivs in atoms.items()
                if any(tuple(t[i] for i in pos) in vals for pos, vals in wanted)}


def _whole_atom(rel, pos) -> bool:
    """Whether ``pos`` are all the places of ``rel``'s atoms."""
    first = next(iter(rel.atoms), None)
    return first is not None and pos == tuple(range(len(first)))
