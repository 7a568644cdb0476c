"""A column relation that takes point changes: the rows' DRed
(engine/rows/maintenance.py) runs on it atom by atom, so a small update costs
what it touches, not a pass over each relation it reads.

:class:`ColumnRelation` is a row :class:`Relation` (its writes and index
upkeep are the Relation's own) whose atoms (:class:`LazyAtoms`) and indexes
(:class:`LazyIndex`) stay in the
column frame the run computed (the *base*) until something reads them: a
lookup of an atom, or of the atoms with given values at some positions,
probes a sorted index of the base's term codes (:class:`SortedKeys`, numpy
``searchsorted``, built the first time it is probed and kept across updates)
and decodes the few rows it finds; the keys a join is about to probe, or
the atoms an update is about to read, are searched together (:meth:`SortedKeys.spans`,
one ``searchsorted`` for all: a probe each costs ~2 us of numpy calls).
An atom read or written is kept as rows
(``known``); one written (``dirty``) hides its base rows, as RDFox keeps a
fact store with tombstones and an overlay of what was added.  :meth:`frame`
gives the columns back: the base without the dirty atoms' rows, then the
dirty atoms encoded (two polars operations a changed relation).  Reading
every atom (the model printed, a scan of a whole relation) decodes the base
once; the relation then holds all its atoms as rows, the base still there
for :meth:`frame`.
"""

from __future__ import annotations

from collections.abc import MutableMapping

from ..rows.maintenance import GivenAtoms
from ..exprs import partition_starts
from ..store import Relation
from .coalesce import argsort
from .native import array

_GONE = object()  # ``known``'s mark of a base atom deleted (until every atom is known)

# Below this many keys not read yet, a probe each is cheaper than one search
# for all (numpy's fixed costs; on LUBM 1M's relations, an atom: a probe each
# ~2.6 us, together 3.0 us an atom for 4, 2.1 for 10, 1.6 for 50; a key of a
# term's index: 5.3-7.8 us, together 4.7-5.3 for 4, 2.5-4.2 for 50).
FEW_KEYS = 5


def packed(codes):
    """One int64 of a key's codes (ints, or numpy columns): ``a`` or
    ``a << 32 | b`` (codes are non-negative and under 2**31); the codes
    past two are filtered after the probe."""
    return 0 if not len(codes) else codes[0] if len(codes) == 1 else codes[0] << 32 | codes[1]


class SortedKeys:
    """The rows of a frame by their codes at some term positions: the packed
    keys in order, a probe one ``searchsorted`` call.  A frame already in
    that order (a relation kept in key order: sorted_given.py, coalesce.py)
    is its own index: only its keys, no row order."""

    def __init__(self, cols: list, height: int):
        import numpy as np

        self.cols = cols
        key = packed(cols) if cols else np.zeros(height, dtype=np.int64)  # (one int64 a row)
        if height < 2 or (key[1:] >= key[:-1]).all():
            self.order, self.sorted = None, key
        elif len(cols) == 1:
            # a code and its row in one int64 (rows under 2**32), sorted: the rows of
            # a code stay in order at a sixth of a stable argsort's cost (numpy 2.4,
            # 250k rows: 3 against 18 ms)
            both = np.sort(key << 32 | np.arange(height, dtype=np.int64))
            self.order, self.sorted = both & 0xFFFFFFFF, both >> 32
        else:  # (quicksort: rows of one key in another order, still decoded in order: decode_intervals)
            self.order = argsort(key, stable=False)
            self.sorted = key[self.order]
        self._distinct = None

    def rows(self, codes: tuple):
        """Row numbers whose codes at the positions are ``codes``: a
        ``range`` where the frame is in key order (a slice of its columns),
        else numpy's."""
        import numpy as np

        key = packed(codes)
        lo, hi = self.sorted.searchsorted((key, key + 1)).tolist()  # (keys are integers: left of key + 1 is right of key)
        if len(codes) > 2:
            rows = self.order[lo:hi] if self.order is not None else np.arange(lo, hi)
            for col, c in zip(self.cols[2:], codes[2:]):
                rows = rows[col[rows] == c]
            return rows
        return range(lo, hi) if self.order is None else self.order[lo:hi]

    def spans(self, codes: list):
        """The rows of many keys (each as :meth:`rows` takes it) in one
        search: ``(rows, counts)``, lists: the rows of each key in turn (in
        :meth:`rows`' order), ``counts[i]`` of them for key ``i``.  (Python
        lists past the search: a few rows a key, where each numpy call costs
        about a microsecond.)"""
        import numpy as np

        ends = []
        for c in codes:
            key = packed(c)
            ends += (key, key + 1)  # (keys are integers: left of key + 1 is right of key)
        bounds = self.sorted.searchsorted(np.array(ends, dtype=np.int64)).tolist()
        order, rest = self.order, self.cols[2:]
        rows, counts = [], []
        for i, c in enumerate(codes):
            lo, hi = bounds[2 * i], bounds[2 * i + 1]
            got = range(lo, hi) if order is None else order[lo:hi].tolist()
            if rest and hi > lo:  # (the columns past two: filtered, as rows() does)
                got = [r for r in got if all(col.item(r) == x for col, x in zip(rest, c[2:]))]
            rows += got
            counts.append(len(got))
        return rows, counts

    def distinct(self) -> int:
        """How many distinct keys the rows have (counted once)."""
        import numpy as np

        if self._distinct is None:
            order = np.lexsort(self.cols[::-1]) if len(self.cols) > 2 else None  # (np.unique(axis=0) of the stacked rows: 3-5x slower)
            cols = [self.sorted] if order is None else [c[order] for c in self.cols]
            self._distinct = int(np.count_nonzero(partition_starts(cols, len(self.sorted))))
        return self._distinct


def strata_refusal(plan):
    """Why no update of ``plan``'s model runs atom by atom (None if one may):
    a stratum the rows would recompute (their DRed's, rows/maintenance.py:
    negation, aggregation, interval terms, existentials)."""
    from chronolog.planner import physical as ph

    from ..rows.maintenance import why_recompute

    every = set(plan.derived_predicates()) | set(plan.arities)
    whys = (why_recompute(ph.stratum_plan(plan, stratum), every) for stratum in plan.strata)
    return next((w for w in whys if w is not None), None)


def values_refusal(ev, retracted: dict, added: dict):
    """Why an update of the columnar evaluator ``ev`` taking back
    ``retracted`` (``{pred: {terms: intervals}}`` or coded frames) and adding
    ``added`` (``{pred: rows}``) cannot run atom by atom (None if it can): a
    value or time the columns could not hold as they hold the others (a
    number equal to a term of another kind, a time off the run's grid)."""
    from .encoding import Fallback
    from .retraction import lookup

    coded = numbers_coded(ev) if any(type(v) is float for rows in added.values() for terms, _ in rows for v in terms) else False
    try:
        for rows in added.values():
            for terms, iv in rows:
                lookup([v for v in terms if type(v) is not str], ev.terms, found_floats=True, absent_floats=coded)
                ev._scale.codes(iv)
        for by in retracted.values():
            for ivs in by.values() if isinstance(by, dict) else ():  # (a frame's times are codes already)
                for iv in ivs:
                    ev._scale.codes(iv)
    except Fallback as e:
        return e.text(ev.plan.program.calendar)
    return None


def numbers_coded(ev) -> bool:
    """Whether the Dictionary of the columnar evaluator ``ev`` holds every
    number of its model: its relations were made and coded for the updates
    by atoms (``_index_all``), and no frame since holds a value column (an
    update on frames leaves floats and exact pairs as values).  A float it
    does not hold then equals no term of the model, of any kind (a reading
    of a new float, the common case of a sensor's stream, took the frames:
    0.11 s an add of three to 1M readings)."""
    from .sorted_given import Overlay
    from .value_columns import is_values

    if not ev._indexed or any(p not in ev._tables for p in ev.given_tables):
        return False
    for df in ev._tables.values():
        frames = [df.base, df.extra] if isinstance(df, Overlay) else [df]
        if any(is_values(f[c]) for f in frames for c in f.columns[:-2]):
            return False
    return True


class ColumnRelation(Relation):
    """``pred``'s relation over the column frame ``df`` (coalesced, codes of
    ``terms``, times on ``scale``), as the row executor reads and writes it."""

    __slots__ = ("base", "arity", "terms", "scale", "cols", "s", "e", "_keys", "_atom_keys", "_frame", "_all", "_code_of", "_none")

    def __init__(self, name: str, df, arity: int, terms, scale):
        super().__init__(name)
        from .relation import term_columns

        self.base, self.arity, self.terms, self.scale = df, arity, terms, scale
        self.cols = [array(df, c) for c in term_columns(arity)]
        self.s, self.e = array(df, "s"), array(df, "e")
        self._keys: dict = {}  # positions -> SortedKeys of the base
        self._atom_keys = None  # the one of all positions (the atoms'), once built
        self._all = tuple(range(arity))
        self._none = range(0)
        # value -> code (the Dictionary's dict, kept in place; the evaluator
        # brings it up to date before each update: HybridEvaluator.plan_update)
        self._code_of = terms.codes.get
        self._frame = (None, None)  # (atoms.writes, frame) of the last :meth:`frame`
        self.atoms = LazyAtoms(self)

    # ------------------------------------------------------------ the base
    def keys(self, positions: tuple) -> SortedKeys:
        got = self._keys.get(positions)
        if got is None:
            got = self._keys[positions] = SortedKeys([self.cols[p] for p in positions], len(self.s))
        return got

    def codes(self, values) -> tuple | None:
        """The codes of term values (None if one has none: no base row has it)."""
        get = self._code_of
        out = tuple([get(v) for v in values])
        return None if None in out else out

    def base_rows(self, terms: tuple):
        """The base's rows of the atom ``terms`` (SortedKeys.rows)."""
        codes = self.codes(terms)
        if codes is None:
            return self._none
        keys = self._atom_keys
        if keys is None:
            keys = self._atom_keys = self.keys(self._all)
        return keys.rows(codes)

    @staticmethod
    def row_array(rows):
        """Row numbers as numpy takes them, made an array once for the
        columns they gather (a list is converted by each gather)."""
        import numpy as np

        return np.asarray(rows, dtype=np.int64)

    def own(self, terms: tuple, row: int) -> tuple:
        """The atom ``terms`` as the base row ``row`` holds it: kept under
        its own terms, as the rows keep them, an equal number of another
        type that asks (a retraction's 2.0 of a given 2) does not become the
        atom (names, the common case, are their own)."""
        if all([type(t) is str for t in terms]):
            return terms
        value = self.terms.value
        return tuple([value(c.item(row)) for c in self.cols])

    def decode_buckets(self, rows, counts) -> list:
        """``{terms: maximal intervals}`` of the atoms of each run of base
        rows ``rows`` in turn (``counts`` rows each, all the rows of each
        atom: an index's bucket, :meth:`SortedKeys.spans`), in row order,
        the rows decoded together."""
        rows = slice(rows.start, rows.stop) if type(rows) is range else self.row_array(rows)
        ivs = self.scale.intervals(self.s[rows].tolist(), self.e[rows].tolist())
        values = self.terms.values_of
        cols = [c[rows].tolist() for c in self.cols]
        # each column's terms decoded in one pass (most atoms have one
        # interval: a bucket of one row is the common case, taken first)
        if len(cols) == 1:
            codes = cols[0]
            atoms = [(v,) for v in values(codes)]
        else:
            codes = list(zip(*cols)) if cols else [()] * len(ivs)
            atoms = list(zip(*[values(c) for c in cols])) if cols else codes
        out, at = [], 0
        for n in counts:
            if n == 1:
                out.append({atoms[at]: [ivs[at]]})
                at += 1
                continue
            by: dict = {}  # codes -> (terms, intervals)
            for i in range(at, at + n):
                got = by.get(codes[i])
                if got is None:
                    by[codes[i]] = (atoms[i], [ivs[i]])
                else:
                    got[1].append(ivs[i])
            at += n
            bucket = {}
            for terms, found in by.values():
                if len(found) > 1:
                    found.sort()
                bucket[terms] = found
            out.append(bucket)
        return out

    def decode_intervals(self, rows) -> list:
        if len(rows) == 1:
            r = rows[0]
            return [self.scale.interval(self.s.item(r), self.e.item(r))]
        if type(rows) is range:
            rows = slice(rows.start, rows.stop)
        ivs = self.scale.intervals(self.s[rows].tolist(), self.e[rows].tolist())
        ivs.sort()
        return ivs

    # ------------------------------------------------------------ the row API
    def read_atoms(self, many) -> None:
        self.atoms.read(many)

    def read_ahead(self, positions: tuple, keys) -> None:
        self.index(positions).read(keys)

    def new_index(self, positions: tuple):
        return LazyIndex(self, positions)

    def index_atom(self, terms: tuple) -> None:
        for idx in self._indexes.values():
            idx.added(terms)

    def drop_from_indexes(self, gone) -> None:
        for idx in self._indexes.values():
            idx.removed_many(gone)
        self.version += 1

    def add(self, terms: tuple, iv):
        """Relation.add, the atom marked written (merge_into edits its list in place)."""
        res = Relation.add(self, terms, iv)
        if res is not None:
            self.atoms.wrote(terms)
        return res

    # ------------------------------------------------------------ back to columns
    def frame(self):
        """The relation as a coalesced column frame: the base without the
        rows of atoms written since, then those atoms encoded."""
        writes, df = self._frame
        if writes == self.atoms.writes and df is not None:
            return df
        df = self._build_frame()
        self._frame = (self.atoms.writes, df)
        return df

    def _build_frame(self):
        import numpy as np
        import polars as pl

        from .relation import _frame, empty

        atoms = self.atoms
        if not atoms.dirty and not atoms.cleared:
            return self.base
        parts = []
        if not atoms.cleared:
            dead = np.zeros(len(self.s), dtype=bool)
            for terms in atoms.dirty:
                dead[self.base_rows(terms)] = True
            parts.append(self.base.filter(pl.Series(~dead)) if dead.any() else self.base)
        rows = [(t, iv) for t in (atoms.known if atoms.cleared else atoms.dirty) for iv in atoms.get(t, ())]
        if rows:
            code = self.terms.code
            cols = [np.array([code(t[i]) for t, _ in rows], dtype=np.int64) for i in range(self.arity)]
            ends = [self.scale.codes(iv) for _, iv in rows]  # (Fallback for a time off the grid)
            s = np.array([x for x, _ in ends], dtype=np.int64)
            e = np.array([y for _, y in ends], dtype=np.int64)
            parts.append(_frame(cols, s, e))
        if not parts:
            return empty(self.arity)
        return pl.concat(parts, how="vertical_relaxed") if len(parts) > 1 else parts[0]


class LazyAtoms(MutableMapping):
    """``{terms: maximal intervals}`` of a :class:`ColumnRelation`: each atom
    decoded from the base when first read, kept from then on."""

    def __init__(self, rel: ColumnRelation):
        self.rel = rel
        self.known: dict = {}  # terms -> list of intervals, or _GONE
        self.dirty: set = set()  # atoms written since the base
        self.in_base: dict = {}  # terms -> whether the base holds it (of atoms known)
        self.complete = False  # known holds every atom (no _GONE marks then)
        self.cleared = False  # the base no longer counts (clear())
        self._count = None  # atoms now (None: not counted yet)
        self.writes = 0  # how many writes so far (ColumnRelation.frame's cache)

    def _from_base(self, terms):
        """:meth:`get` of an atom not known yet."""
        if self.in_base.get(terms) is False:  # (looked up before: the base has none)
            return None
        rows = self.rel.base_rows(terms)
        n = len(rows)
        self.in_base[terms] = n > 0
        if not n:
            return None
        ivs = self.known[self.rel.own(terms, int(rows[0]))] = self.rel.decode_intervals(rows)
        return ivs

    def read(self, many) -> None:
        """Read the atoms ``many`` (terms) not known yet from the base
        together, as :meth:`get` reads one (kept in ``known``, and whether
        the base holds each in ``in_base``), when there are enough of them
        (``FEW_KEYS``) for one search to beat a probe each."""
        if self.complete:
            return
        known, in_base = self.known, self.in_base
        want = [t for t in (many if type(many) is dict else dict.fromkeys(many)) if t not in known and t not in in_base]
        if len(want) < FEW_KEYS:
            return
        rel = self.rel
        get = rel._code_of
        coded, codes = [], []
        for terms in want:
            c = list(map(get, terms))
            if None in c:
                in_base[terms] = False
            else:
                coded.append(terms)
                codes.append(c)
        if not coded:
            return
        rows, counts = rel.keys(rel._all).spans(codes)
        at = rel.row_array(rows)
        ivs = rel.scale.intervals(rel.s[at].tolist(), rel.e[at].tolist())
        at = 0
        names = all([type(t) is str for terms in coded for t in terms])  # (the common case: names only)
        for terms, n in zip(coded, counts):
            in_base[terms] = n > 0
            if n:
                known[terms if names else rel.own(terms, rows[at])] = [ivs[at]] if n == 1 else sorted(ivs[at : at + n])
                at += n

    def learn(self, found: dict) -> None:
        """Keep the base's atoms ``found`` (``{terms: intervals}``, decoded
        together), as reading each would, where nothing is known of them."""
        if self.complete or self.cleared:
            return
        known, in_base = self.known, self.in_base
        if known.keys().isdisjoint(found):  # (the common case: a bucket read the first time; in C)
            known.update(found)
            in_base.update(dict.fromkeys(found, True))
            return
        for terms, ivs in found.items():
            if terms not in known:
                known[terms] = ivs
                in_base[terms] = True

    def get(self, terms, default=None):
        got = self.known.get(terms)  # (most reads: an atom read before)
        if got is None:
            got = None if self.complete else self._from_base(terms)
            return default if got is None else got
        return default if got is _GONE else got

    def __getitem__(self, terms):
        got = self.known.get(terms)  # (a join reads each atom of a bucket: the known ones without a call)
        if got is None or got is _GONE:
            got = self.get(terms)
            if got is None:
                raise KeyError(terms)
        return got

    def __contains__(self, terms) -> bool:
        got = self.known.get(terms)
        if got is not None:
            return got is not _GONE
        return self.get(terms) is not None

    def wrote(self, terms) -> None:
        """The atom's list was edited in place (Relation.add's merge)."""
        self.dirty.add(terms)
        self.writes += 1

    def __setitem__(self, terms, ivs) -> None:
        was = self.get(terms)
        self.wrote(terms)
        self.known[terms] = ivs
        if was is None:
            code = self.rel.terms.code  # (coded now: a retraction naming it is read by its code)
            for v in terms:
                code(v)
            if terms not in self.in_base and not self.cleared:
                self.in_base[terms] = bool(len(self.rel.base_rows(terms)))
            if self._count is not None:
                self._count += 1

    def __delitem__(self, terms) -> None:
        if self.get(terms) is None:
            raise KeyError(terms)
        self.wrote(terms)
        if self.complete:
            del self.known[terms]
        else:
            self.known[terms] = _GONE
        if self._count is not None:
            self._count -= 1

    def replace_held(self, lists: dict) -> dict:
        """Set the intervals of the atoms of ``lists`` (terms -> list) held
        now (a write each, as :meth:`__setitem__`'s, in one pass without a
        call an atom: the rows' DRed sets a few hundred an update); returns
        the others, for the caller to add."""
        known = self.known
        rest = {t: ivs for t, ivs in lists.items() if (v := known.get(t)) is None or v is _GONE}
        if rest:
            if len(rest) == len(lists):
                return rest
            lists = {t: ivs for t, ivs in lists.items() if t not in rest}
        known.update(lists)
        self.dirty.update(lists)
        self.writes += 1
        return rest

    def drop_empty(self, terms) -> list:
        """Delete the atoms of ``terms`` left with no interval (as ``del``
        each would, in one pass): the ones deleted."""
        known = self.known
        gone = [t for t in terms if known.get(t, True) == []]
        if not gone:
            return gone
        self.dirty.update(gone)
        self.writes += 1
        if self.complete:
            for t in gone:
                del known[t]
        else:
            known.update(dict.fromkeys(gone, _GONE))
        if self._count is not None:
            self._count -= len(gone)
        return gone

    def _all(self) -> None:
        """Every atom in ``known`` (the base decoded once)."""
        if self.complete:
            return
        from .relation import to_atoms

        rel = self.rel
        known = self.known
        for terms, ivs in to_atoms(rel.base, rel.arity, rel.terms, rel.scale).items():
            if terms not in known:
                known[terms] = ivs
        for terms in [t for t, v in known.items() if v is _GONE]:
            del known[terms]
        self.complete = True

    def __iter__(self):
        self._all()
        return iter(self.known)

    def items(self):
        self._all()
        return self.known.items()

    def values(self):
        self._all()
        return self.known.values()

    def keys(self):
        self._all()
        return self.known.keys()

    def __len__(self) -> int:
        if self.complete:
            return len(self.known)
        if self._count is None:  # (the base's atoms, less those deleted, and those it lacks)
            rel, n = self.rel, 0
            if not self.cleared:
                n = rel.keys(tuple(range(rel.arity))).distinct() if rel.arity else min(1, len(rel.s))
            for terms, v in self.known.items():
                if not self.cleared and self.in_base.get(terms, True):
                    n -= v is _GONE
                else:
                    n += v is not _GONE
            self._count = n
        return self._count

    def __bool__(self) -> bool:
        return len(self) > 0

    def clear(self) -> None:
        self.writes += 1
        self.known = {}
        self.dirty = set()
        self.in_base = {}
        self.complete = self.cleared = True
        self._count = None


class LazyIndex:
    """Key -> atoms of a :class:`ColumnRelation` at some positions (its
    ``new_index``; the Relation tells it of atoms new, :meth:`added`, and
    dropped, :meth:`removed_many`): the base's by its sorted codes, with the
    atoms written since (``extra``: those the base lacks) and without those
    deleted."""

    def __init__(self, rel: ColumnRelation, positions: tuple):
        self.rel, self.positions = rel, positions
        self._base: dict = {}  # key -> the base's atoms with it, decoded (the base never changes)
        self._whole = positions == rel._all  # (a key is an atom: asked of the atoms, one probe)
        self._one = len(positions) == 1
        self.extra: dict = {}
        self.dropped: set = set()  # keys with an atom deleted since the base (get filters their bucket)
        known = rel.atoms.known
        self.removed_many([t for t, v in known.items() if v is _GONE])
        for terms in [t for t, v in known.items() if v is not _GONE]:
            self.added(terms)

    def added(self, terms) -> None:
        """The atom ``terms`` new (kept where the base lacks it)."""
        atoms = self.rel.atoms
        if atoms.cleared or not atoms.in_base.get(terms, True):
            ps = self.positions
            key = terms[ps[0]] if len(ps) == 1 else tuple(terms[p] for p in ps)
            self.extra.setdefault(key, []).append(terms)

    def removed_many(self, gone) -> None:
        """The atoms ``gone`` (terms) deleted."""
        ps = self.positions
        if len(ps) == 1:
            p = ps[0]
            keys = [t[p] for t in gone]
        else:
            keys = [tuple([t[p] for p in ps]) for t in gone]
        self.dropped.update(keys)
        extra = self.extra
        if extra:
            for key, terms in zip(keys, gone):
                bucket = extra.get(key)
                if bucket and terms in bucket:
                    bucket.remove(terms)

    def get(self, key, default=()):
        atoms = self.rel.atoms
        if self._whole:  # (names only: an equal number of another type is its own atom's to give)
            if self._one:
                terms = (key,)
                names = type(key) is str
            else:
                terms = key
                names = all([type(t) is str for t in key])
            if names:
                got = atoms.known.get(terms)  # (most probes: an atom read before, or known absent, without a call)
                if got is None:
                    if atoms.complete or atoms.in_base.get(terms) is False:
                        return default
                    got = atoms.get(terms)
                return [terms] if got is not None and got is not _GONE else default
        if atoms.cleared:
            return self.extra.get(key) or default
        base = self._in_base(key)
        if not atoms.complete and key not in self.dropped:  # (none of the key's base atoms deleted: the bucket as it is)
            extra = self.extra.get(key)
            return (base + extra if extra else base) or default
        out = []  # the base's atoms with the key, less those deleted since
        known, complete = atoms.known, atoms.complete
        for terms in base:
            v = known.get(terms)
            if v is not _GONE and (v is not None or not complete):
                out.append(terms)
        out.extend(self.extra.get(key, ()))
        return out or default

    def read(self, keys) -> None:
        """Read the base's atoms of the probe ``keys`` not read yet
        together (one search, one decode), as :meth:`get` reads a key's,
        when there are enough of them (``FEW_KEYS``)."""
        rel, one = self.rel, len(self.positions) == 1
        if self._whole:
            rel.atoms.read([(k,) for k in keys] if one else keys)
            return
        base = self._base
        want = [k for k in dict.fromkeys(keys) if k not in base]
        if len(want) < FEW_KEYS:
            return
        coded, codes = [], []
        for key in want:
            c = rel.codes((key,) if one else key)
            if c is None:
                base[key] = []
            else:
                coded.append(key)
                codes.append(c)
        if not coded:
            return
        for key, found in zip(coded, rel.decode_buckets(*rel.keys(self.positions).spans(codes))):
            rel.atoms.learn(found)
            base[key] = list(found)

    def _in_base(self, key) -> list:
        got = self._base.get(key)
        if got is None:
            rel = self.rel
            codes = rel.codes((key,) if len(self.positions) == 1 else key)
            rows = () if codes is None else rel.keys(self.positions).rows(codes)
            found = rel.decode_buckets(rows, (len(rows),))[0] if len(rows) else {}
            rel.atoms.learn(found)  # (the join reads the atoms of a key it probes: their intervals decoded here)
            got = self._base[key] = list(found)
        return got

    def __getitem__(self, key):
        got = self.get(key, None)
        if got is None:
            raise KeyError(key)
        return got

    def __contains__(self, key) -> bool:
        return bool(self.get(key))

    def __len__(self) -> int:
        return self.rel.keys(self.positions).distinct() + len(self.extra) if self.positions else 1


class GivenColumns(GivenAtoms):
    """A derived predicate's given facts, as the rows' DRed reads them
    (GivenAtoms), over their column frame: read atom by atom, not made rows
    whole (temporal LUBM 1M's memberOf: 0.4 s at an update's start)."""

    def __init__(self, rel: ColumnRelation):
        self.rel = rel
        self.atoms = rel.atoms

    def extend(self, rows) -> None:
        atoms = self.atoms
        for terms, iv in rows:
            atoms[terms] = atoms.get(terms, []) + [iv]  # (a write LazyAtoms sees)

    def read_atoms(self, many) -> None:
        self.atoms.read(many)
