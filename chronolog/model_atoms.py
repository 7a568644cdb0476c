"""A model's atoms with given values at given places, without making the
rows of the whole relation where its columns hold it: a proof, a fact
asked for and a query with constants each read a few atoms of relations
of millions."""

from __future__ import annotations

import time


def model_atoms(model) -> "ModelAtoms":
    """The model's :class:`ModelAtoms` (one per model: it keeps what its
    filters of each relation have cost)."""
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
        self.filtered: dict = {}  # pred -> seconds spent filtering its frame

    # Making a relation's rows and an index of them costs about this a fact
    # (200,000 facts: 0.65 s), a filter of its frame ~1.5 ms whatever it
    # finds: once the filters of a relation have cost as much, its rows are
    # made (ski rental: never more than twice the better of the two; 50
    # queries of 200,000 facts 0.74 s by an index made at the first, 0.07 s
    # filtered).
    ROWS_FACT_SECONDS = 3e-6

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

    def overlapping(self, pred, window):
        """``{terms: intervals}`` of the atoms of ``pred`` with an interval
        that may meet ``window`` (``(from, to)`` on the model's timeline: a
        few near its ends more, which the caller clips), filtered from the
        relation's frame by its interval codes; None where no frame holds
        it (the rows then: a window of 600k facts made them all, 4 s)."""
        ev = self.model._columns
        out = ev.read_columns(pred) if ev is not None else None
        if out is None or out[2].conflations:
            return None
        import math

        import numpy as np

        from chronolog.engine.columns.relation import to_atoms
        from chronolog.language.timeline import NEG_INF, POS_INF

        df, arity, terms, scale, _ = out
        mask = np.ones(df.height, dtype=bool)
        lo, hi = window[0], window[1]
        bound = 1 << 62  # (past the codes of any finite time: numpy compares within int64)
        if lo != NEG_INF:  # (codes on the doubled grid: [s, e) of 2 * time * L, an open end one more)
            mask &= df["e"].to_numpy() > max(-bound, min(bound, 2 * math.floor(lo * scale.L)))
        if hi != POS_INF:
            mask &= df["s"].to_numpy() < max(-bound, min(bound, 2 * math.ceil(hi * scale.L) + 2))
        return to_atoms(df[np.flatnonzero(mask)], arity, terms, scale)

    def _indexed(self, pred, wanted) -> bool:
        """Whether ``pred``'s rows are made, indexed at each of the positions."""
        store = self.model.store
        rel = (store.materialised() if hasattr(store, "materialised") else store.relations).get(pred)
        return rel is not None and all(self._whole_atom(pred, rel, pos) or pos in getattr(rel, "_indexes", ())
                                       for pos, _ in wanted)

    def _whole_atom(self, pred, rel, pos) -> bool:
        """Whether ``pos`` are all the places of ``pred``'s atoms (the
        relation's dict of atoms is then the index)."""
        arity = self.model.plan.arities.get(pred, (None,))[0]
        if arity is None:
            arity = len(next(iter(rel.atoms), ()))
        return pos == tuple(range(arity))

    def _from_rows(self, pred, wanted) -> dict:
        from chronolog.engine.store import Relation

        rel = self.model._relation(pred)
        if rel is None:
            return {}
        out, rest = {}, []
        for pos, vals in wanted:
            if self._whole_atom(pred, rel, pos):
                for v in vals:
                    ivs = rel.atoms.get(v)
                    if ivs:
                        out[v] = ivs
            else:
                rest.append((pos, vals))
        if rest and type(rel).new_index is not Relation.new_index:  # (a session's relation on columns indexes codes)
            out.update((t, ivs) for t, ivs in rel.atoms.items() if any(tuple(t[i] for i in pos) in vals for pos, vals in rest))
            return out
        for pos, vals in rest:
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
        started = time.perf_counter()
        out = ev.read_columns(pred)
        if out is None:
            return None
        spent = self.filtered.get(pred, 0.0)
        if spent > self.ROWS_FACT_SECONDS * out[0].height:
            return None
        import numpy as np

        from chronolog.engine.columns.exact_columns import is_exact, parts
        from chronolog.engine.columns.relation import to_atoms
        from chronolog.engine.columns.value_columns import is_values

        df, arity, terms, scale, _ = out
        if terms.conflations:  # (a code stands for equal numbers of two kinds: the rows hold each fact's own)
            return None
        mask = np.zeros(df.height, dtype=bool)
        for pos, vals in wanted:
            column = df[str(pos[0])]
            if is_exact(column):  # (exact numbers as pairs in lowest terms)
                pairs = [_pair(v[0]) for v in vals]
                if None in pairs:
                    return None
                n, d = parts(column)
                for a, b in pairs:
                    mask |= (n == a) & (d == b)
                continue
            if is_values(column):
                return None  # (a column of floats holds values, not codes: the rows compare them)
            codes = [terms.lookup(v[0]) for v in vals]
            if None in codes:
                return None  # (a value no code stands for: the rows tell for sure)
            codes_of = column.to_numpy()
            mask |= codes_of == codes[0] if len(codes) == 1 else np.isin(codes_of, codes)
        atoms = to_atoms(df[np.flatnonzero(mask)], arity, terms, scale)
        self.filtered[pred] = spent + time.perf_counter() - started
        return {t: ivs for t, ivs in atoms.items()
                if any(tuple(t[i] for i in pos) in vals for pos, vals in wanted)}


def _pair(value):
    """``(numerator, denominator)`` of a number as an exact column holds it
    (a float by its exact value, as Python compares it with a Fraction),
    or None: not a number, or past 64 bits."""
    import math
    from fractions import Fraction

    if type(value) is bool or not isinstance(value, (int, Fraction, float)) or isinstance(value, float) and not math.isfinite(value):
        return None
    f = Fraction(value)
    return (f.numerator, f.denominator) if abs(f.numerator) < 2**63 and f.denominator < 2**63 else None
