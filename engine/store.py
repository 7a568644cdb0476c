"""Fact storage: per predicate, each ground atom with its maximal intervals.

A :class:`Relation` maps a terms tuple to a sorted list of disjoint,
non-adjacent (maximal) intervals.  Hash indexes on argument positions are
built the first time a join probes them and kept up to date as atoms arrive.

Why plain sorted lists and ``bisect`` rather than ``sortedcontainers``: most
ground atoms have one to a few intervals, where a ``SortedList`` per atom
costs several times the memory and time of a list; ``bisect`` with a key
keeps inserts logarithmic for the atoms that do have long histories.
"""

from __future__ import annotations

import itertools
from bisect import bisect_left

from chronolog.language.timeline import start_key


def merge_into(intervals: list, iv) -> tuple | None:
    """Coalesce ``iv`` into the sorted maximal list ``intervals`` in place.

    Returns ``None`` when ``iv`` adds nothing (it is covered already),
    otherwise ``(merged, removed)``: the new maximal interval and the old
    intervals it swallowed.
    """
    lo, hi, lc, hc = iv
    n = len(intervals)
    if n == 0:
        intervals.append(iv)
        return iv, ()
    i = bisect_left(intervals, (lo, not lc), key=start_key)
    # does the interval before i touch or cover iv?
    first = i
    if i > 0:
        plo, phi, plc, phc = intervals[i - 1]
        if phi > lo or (phi == lo and (phc or lc)):
            # covered entirely?
            if phi > hi or (phi == hi and (phc or not hc)):
                return None
            first = i - 1
    last = i  # exclusive end of the run of intervals to swallow
    while last < n:
        nlo, nhi, nlc, nhc = intervals[last]
        if nlo < hi or (nlo == hi and (hc or nlc)):
            last += 1
        else:
            break
    if first == last:
        intervals.insert(i, iv)
        return iv, ()
    removed = intervals[first:last]
    mlo, mlc = (lo, lc)
    f = removed[0]
    if f[0] < lo or (f[0] == lo and f[2]):
        mlo, mlc = f[0], f[2]
    l = removed[-1]
    mhi, mhc = hi, hc
    if l[1] > hi or (l[1] == hi and l[3]):
        mhi, mhc = l[1], l[3]
    merged = (mlo, mhi, mlc, mhc)
    if len(removed) == 1 and removed[0] == merged:
        return None
    intervals[first:last] = [merged]
    return merged, removed


_FIRST_VERSIONS = itertools.count(1)


def fresh_versions() -> int:
    """The first version of a relation made in place of another: apart from
    any made before (a row pipeline node caches what it read by the version
    of the relation it read, so two relations of one predicate must never
    share one)."""
    return next(_FIRST_VERSIONS) << 40


class Relation:
    """All facts of one predicate, coalesced per ground atom: ``atoms``, the
    atom's terms -> its sorted maximal intervals, and per probed positions
    an index made by :meth:`new_index`, told of each atom added
    (:meth:`index_atom`) and dropped (:meth:`drop_from_indexes`).  Here a
    dict and dict indexes; a column relation (engine/columns/point_relation.py)
    gives a mapping reading atoms from its frame and indexes by the frame's
    sorted codes, and writes through the same methods."""

    __slots__ = ("name", "atoms", "_indexes", "version", "raw")

    def __init__(self, name: str):
        self.name = name
        self.raw = False  # True: given pieces not coalesced yet (engine/placement.py)
        self.atoms: dict = {}
        self._indexes: dict = {}
        self.version = 0

    def __len__(self) -> int:
        return len(self.atoms)

    def fact_count(self) -> int:
        return sum(len(v) for v in self.atoms.values())

    def add(self, terms: tuple, iv) -> tuple | None:
        """Insert one fact; returns what :func:`merge_into` returns."""
        lst = self.atoms.get(terms)
        if lst is None:
            self.atoms[terms] = [iv]
            self.version += 1
            if self._indexes:
                self.index_atom(terms)
            return iv, ()
        res = merge_into(lst, iv)
        if res is not None:
            self.version += 1
        return res

    def clear_indexes(self) -> None:
        self._indexes = {}
        self.version += 1

    def bulk_add(self, rows) -> None:
        """Load many ``(terms, interval)`` rows at once: group by atom, then
        coalesce each atom's list once (cheaper than one merge per row)."""
        from chronolog.language.timeline import coalesce

        atoms = self.atoms
        touched = set()
        indexes = self._indexes
        for terms, iv in rows:
            lst = atoms.get(terms)
            if lst is None:
                atoms[terms] = [iv]
                if indexes:
                    self.index_atom(terms)
            else:
                lst.append(iv)
                touched.add(terms)
        for terms in touched:
            atoms[terms] = coalesce(atoms[terms])
        self.version += 1

    def drop_from_indexes(self, gone: set) -> None:
        """Forget atoms no longer in ``atoms`` (a retraction) from the
        indexes: a bucket losing a few is edited in place (``list.remove``
        runs in C), one losing many is filtered once."""
        for positions, index in self._indexes.items():
            by_key: dict = {}
            for t in gone:
                key = t[positions[0]] if len(positions) == 1 else tuple(t[p] for p in positions)
                by_key.setdefault(key, []).append(t)
            for key, ts in by_key.items():
                bucket = index.get(key)
                if bucket is None:
                    continue
                if len(ts) <= 8:
                    for t in ts:
                        if t in bucket:
                            bucket.remove(t)
                else:
                    drop = set(ts)
                    bucket[:] = [t for t in bucket if t not in drop]
                if not bucket:
                    del index[key]
        self.version += 1

    def read_atoms(self, many) -> None:
        """The atoms ``many`` (terms) are about to be read: a row relation
        holds them already; a column one (engine/columns/point_relation.py)
        reads them from its frame together, one search for all."""

    def read_ahead(self, positions: tuple, keys) -> None:
        """A join is about to probe ``index(positions)`` with ``keys``
        (an iterable, read only where it helps): as :meth:`read_atoms`."""

    def index(self, positions: tuple) -> dict:
        """Key -> list of atoms, for the given argument positions (made by
        :meth:`new_index` the first time, kept up to date from then on).

        A single position is keyed by the bare value, several by a tuple.
        """
        idx = self._indexes.get(positions)
        if idx is None:
            idx = self._indexes[positions] = self.new_index(positions)
        return idx

    def new_index(self, positions: tuple) -> dict:
        """The index at ``positions`` of the atoms held now."""
        idx: dict = {}
        for terms in self.atoms:
            _index_add(idx, positions, terms)
        return idx

    def index_atom(self, terms: tuple) -> None:
        """The atom ``terms``, new in ``atoms``, into every index."""
        for positions, index in self._indexes.items():
            _index_add(index, positions, terms)


def _index_add(index: dict, positions: tuple, terms: tuple) -> None:
    if len(positions) == 1:
        key = terms[positions[0]]
    else:
        key = tuple(terms[p] for p in positions)
    bucket = index.get(key)
    if bucket is None:
        index[key] = [terms]
    else:
        bucket.append(terms)


class Store:
    """The relations of one reasoning run, by predicate name."""

    def __init__(self):
        self.relations: dict = {}

    def relation(self, pred: str) -> Relation:
        rel = self.relations.get(pred)
        if rel is None:
            rel = self.relations[pred] = Relation(pred)
        return rel

    def get(self, pred: str) -> Relation | None:
        return self.relations.get(pred)

    def replace(self, pred: str, rel: Relation) -> Relation:
        """Hold ``rel`` as ``pred``'s relation; returns the one held before."""
        old = self.relation(pred)
        self.relations[pred] = rel
        return old

    def predicates(self) -> list:
        return list(self.relations)

    def known_count(self, pred: str) -> int | None:
        """A fact count known without reading the relation (LazyStore's)."""
        return None

    def known_atoms(self, pred: str) -> int | None:
        """An atom count known without reading the relation (LazyStore's)."""
        return None
