"""Given relations changed through their sorted codes.

A frame of given facts is kept in the order of its atoms' packed term codes
(``a``, or ``a << 32 | b``: codes are non-negative and under 2**31), as
given.py builds it (coalesce_arrays sorts by the atom, then the start).
The frame is then its own index: the rows of the atoms a retraction or an
addition names are found by ``searchsorted`` of their keys, a few thousand
probes instead of a polars semi-join over each relation.  A relation
changed is held as an :class:`Overlay`: its frame, the rows of the atoms
changed hidden (RDFox's tombstones), and those atoms' rows now beside,
in key order too.  A retraction from the relation of a predicate no rule
derives hides the rows it meets and keeps what is left of their atoms
beside; later retractions and the rules' semi-joins probe it so, and it is
copied into one frame (one splice: which rows stay and where those beside
go found once for every column; a polars column takes a numpy array
without a copy) only when a step reads it whole or a quarter of it is
hidden.  A stratum's maintenance holds each of its relations so, over
the relation before the update.  An addition splices the merged rows in (a copy of each column).  A
frame another step left out of that order is sorted again first (a few
sorted runs: a stable sort merges them in one pass).

Only frames of at most two term columns of codes take this path (the packed
key is one int64); value columns and wider atoms take polars'
(maintenance.py).  The same answers as the time points themselves
(tests/test_sorted_given.py).
"""

from __future__ import annotations

from typing import NamedTuple

from .code_frames import left_over, packed, ranges
from .coalesce import distinct


class Retraction(NamedTuple):
    """What taking ``holes`` out of a relation gives (frames of its layout)."""

    relation: object  # the relation before, in key order (what the caller should hold as it)
    pieces: object  # the given pieces taken back (maximal, in key order)
    touched: object  # the old maximal intervals that lost a point (whole)
    after: object  # the relation after, in key order
    met: int | None = None  # how many of the holes met a given point (None: not counted)


def _arrays(df, names: list):
    """``(term columns, s, e)`` of a frame as numpy arrays (no copy), or
    None when a term column is not codes (values, nulls)."""
    from .native import array, int64_without_nulls

    if not int64_without_nulls(df, names):
        return None
    return [array(df, c) for c in names], array(df, "s"), array(df, "e")


def _in_key_order(df, names: list):
    """``(df, term columns, s, e, key)`` of a relation in key order (sorted
    again if it was not), or None when it is not for this path."""
    import numpy as np

    from .relation import _frame

    mine = _arrays(df, names)
    if mine is None:
        return None
    cols, s, e = mine
    key = _order_key(df, names)  # (remembered, or found in key order)
    if key is not None:
        return df, cols, s, e, key
    key = packed(cols, len(s))
    if key is None:
        return None
    if len(key) > 1 and not (key[1:] >= key[:-1]).all():  # (out of order: sorted again, see the docstring)
        order = np.argsort(key, kind="stable")
        cols, s, e, key = [c[order] for c in cols], s[order], e[order], key[order]
        df = _frame(cols, s, e)
    return _remember(df, key), cols, s, e, key


def take_back(df, holes, names: list, after: str = "frame"):
    """:class:`Retraction` of the coalesced ``holes`` (a frame of the same
    term columns ``names``; any order of atoms) from the coalesced relation ``df`` (a frame or
    an :class:`Overlay` of one); None when either is not for this path (see
    the module's docstring).  The relation after is a frame, or with
    ``after="hidden"`` an :class:`Overlay` until HIDDEN_SHARE of its rows
    are hidden or beside, or with ``after=None`` not made (None: the
    pieces and the rows met only; ``holes`` then need not be coalesced nor
    in order: a round of a recursive over-deletion meets its derivations so)."""
    import numpy as np

    from .relation import _frame

    rel = df if isinstance(df, Overlay) else Overlay.over(df, names, sort=True)
    theirs = _arrays(holes, names)
    hole_key = None if rel.order is None or theirs is None else packed(theirs[0], len(theirs[1]))
    if hole_key is None:
        return None
    relation = df if isinstance(df, Overlay) else rel.base
    # the rows now of the holes' atoms (shown and beside: a relation in key
    # order of its own; with no relation after and none hidden, the
    # relation itself), and each pair of a hole and a row of them that meet,
    # by hole, then row: by row too (the holes and the rows of an atom are
    # apart and in order), so the pieces are in key order and maximal
    if after is None and not rel.changed:
        cols, s, e, key = rel.order
    else:
        shown, near = rel.probed(hole_key)
        cols, s, e, key = rel.arrays_at(shown, near)
        if ((key[1:] == key[:-1]) & (s[1:] < s[:-1])).any():  # (an atom's rows out of start order: a frame another step left so)
            order = np.lexsort((s, key))
            cols, s, e, key = [c[order] for c in cols], s[order], e[order], key[order]
    lo = key.searchsorted(hole_key, "left")
    count = key.searchsorted(hole_key, "right") - lo
    hole, row = np.repeat(np.arange(len(lo)), count), ranges(lo, count)
    ps, pe = np.maximum(s[row], theirs[1][hole]), np.minimum(e[row], theirs[2][hole])
    meet = ps < pe
    hole, row, ps, pe = hole[meet], row[meet], ps[meet], pe[meet]
    met = int(np.count_nonzero(hole[1:] != hole[:-1])) + 1 if len(hole) else 0  # (by hole: the holes met, each once)
    if len(row) > 1 and ((row[1:] < row[:-1]) | (row[1:] == row[:-1]) & (ps[1:] < ps[:-1])).any():
        # (holes whose atoms come in another order than the relation's: by row, then start, as the steps below read them)
        order = np.lexsort((ps, row))
        hole, row, ps, pe = hole[order], row[order], ps[order], pe[order]
    pieces = _frame([c[row] for c in cols], ps, pe)
    hit = distinct(row)  # (the rows met, once each, in key order)
    touched = _frame([c[hit] for c in cols], s[hit], e[hit])
    if not len(hit) or after is None:
        return Retraction(relation, pieces, touched, relation if not len(hit) else None, met)
    # what is left of the atoms met, in key order: each row met less the
    # pieces it met (code_frames.left_over), the atoms' other rows whole
    atoms = key[hit]
    mine = np.flatnonzero(_among(atoms, key))
    whole = mine[np.bincount(row, minlength=len(key))[mine] == 0]
    rows, gs, ge = (np.concatenate(a) for a in zip((whole, s[whole], e[whole]), left_over(row, ps, pe, s, e)))
    order = np.argsort(rows, kind="stable")  # (a row's gaps stay in start order)
    rows = rows[order]
    hidden = shown[_among(atoms, rel.order[3][shown])]  # (the base rows of the atoms met)
    rest = rel._without(atoms, hidden)._plus([c[rows] for c in cols], gs[order], ge[order], key[rows])
    return Retraction(relation, pieces, touched, rest if after == "hidden" and rest.hidden_share() <= HIDDEN_SHARE else rest.frame(), met)


# A relation with rows hidden is copied (made a frame) once its hidden rows
# and the rows beside them pass this share of its rows: until then each
# update copies only the relations its rules read whole; past it the hidden
# rows would hold memory (and the rows beside grow each update's merge of
# them).
HIDDEN_SHARE = 0.25


class Overlay:
    """A relation whose changed atoms' rows are held beside it, not copied:
    ``base``, the relation (a frame); its rows hidden (RDFox's tombstones:
    :attr:`gone`, their numbers in order, or :attr:`dead`, a mask, each
    made from the other when first asked); beside them the rows now of the
    atoms whose rows are hidden (:attr:`extra`).  An atom's rows are all in
    the base, shown, or all beside (so the two merge by the atom alone).
    Where the base is in key order (``order``: its term columns, s, e and
    packed key as numpy arrays) the rows beside are too (``beside``: the
    same arrays), and reads probe both by ``searchsorted`` and gather in
    key order; elsewhere (value columns, three term columns and more, a
    relation in no order) by masks, the rows beside after.

    Every change of a relation on columns takes it: a retraction from a
    given relation hides the rows it meets and keeps what is left of their
    atoms beside (:func:`take_back`: a copy of each relation a retraction
    met was 6-7 ms of a 1% retraction of LUBM 1M); a stratum's
    maintenance holds each of its relations so, over the relation before
    the update, through over-deletion, re-derivation and insertion: the
    rows hidden are the changed atoms' rows before, those beside their
    rows now, which is what the stratum's change is compared on, made
    one frame at the stratum's end (a recursion's phases each spliced
    memberOf's 258,460 rows before, ~3.5 ms each).  An update's rules
    mostly probe a relation for a few atoms (:meth:`rows`), which it answers as it is; :meth:`frame`
    makes it one frame (one splice) when a step reads it whole."""

    def __init__(self, base, names: list, values=None, order=None, gone=None, dead=None, beside=None, extra=None):
        import numpy as np

        self.base, self.names, self.values, self.order = base, names, values, order
        self._gone, self._dead = gone, dead
        if order is not None and beside is None:
            beside = [a[:0] for a in (*order[0], *order[1:])]
        self.beside = beside  # (key order: the rows beside as term columns, s, e, key)
        self._extra = extra if order is None else None
        self._hidden = len(gone) if gone is not None else int(np.count_nonzero(dead)) if dead is not None else 0
        self._frame = None

    @classmethod
    def over(cls, df, names: list, values=None, sort: bool = False):
        """``df`` with nothing changed yet; with ``sort``, a frame of codes
        out of key order sorted first (see the module's docstring)."""
        if sort:
            mine = _in_key_order(df, names)
            return cls(df, names, values) if mine is None else cls(mine[0], names, values, mine[1:])
        key = _order_key(df, names)
        if key is None:
            return cls(df, names, values)
        cols, s, e = _arrays(df, names)
        return cls(df, names, values, (cols, s, e, key))

    @property
    def gone(self):
        """The base's rows hidden, their numbers in order."""
        import numpy as np

        if self._gone is None:
            self._gone = np.flatnonzero(self._dead) if self._dead is not None else np.zeros(0, dtype=np.int64)
        return self._gone

    @property
    def dead(self):
        """Per base row, whether it is hidden."""
        import numpy as np

        if self._dead is None:
            self._dead = np.zeros(self.base.height, dtype=bool)
            self._dead[self.gone] = True
        return self._dead

    @property
    def extra(self):
        """The rows beside, a frame of the relation's columns."""
        if self._extra is None:
            if self.order is None:
                self._extra = self.base.clear()
            else:
                *cols, s, e, _ = self.beside
                self._extra = _like(self.base, self.names, cols, s, e)
        return self._extra

    def _beside_count(self) -> int:
        return len(self.beside[-1]) if self.order is not None else self.extra.height

    @property
    def width(self) -> int:
        return self.base.width

    @property
    def columns(self) -> list:
        return self.base.columns

    def clear(self):
        """An empty frame of the relation's columns."""
        return self.base.clear()

    @property
    def height(self) -> int:
        return self.base.height - self._hidden + self._beside_count()

    @property
    def changed(self) -> bool:
        return bool(self._hidden or self._beside_count())

    def hidden_share(self) -> float:
        return (self._hidden + self._beside_count()) / max(1, self.base.height)

    def frame(self):
        """The relation as one frame (made once): in key order where the
        base is, by one splice of the rows beside into the rows shown."""
        if self._frame is None:
            if not self.changed:
                self._frame = self.base
            elif self.order is None:
                from .maintenance import _rows_where, with_rows

                self._frame = with_rows(_rows_where(self.base, ~self.dead), self.extra, self.names, self.values)
            else:
                cols, s, e, key = self.order
                *b_cols, bs, be, b_key = self.beside
                at = key.searchsorted(b_key)
                at -= self.gone.searchsorted(at)  # (where its atom's rows were, or would be, once the hidden ones are cut out)
                self._frame = _splice(cols, s, e, self.gone, at, (b_cols, bs, be), (key, b_key))
        return self._frame

    def hidden_rows(self):
        """The base's rows hidden: the changed atoms' rows before."""
        if self.order is None:
            from .maintenance import _rows_where

            return _rows_where(self.base, self.dead)
        cols, s, e, _ = self.order
        at = self.gone
        return _like(self.base, self.names, [c[at] for c in cols], s[at], e[at])

    def probed(self, probe, prefix: bool = False):
        """``(rows, near)``: the base rows shown and the rows beside whose
        key is a probe of ``probe`` (packed keys; ``prefix``: the first
        codes of two-code keys; :func:`_rows_probed` makes them sorted and
        distinct), each in key order (a relation in key order)."""
        rows = _rows_probed(self.order[3], probe, prefix)
        if self._hidden:
            rows = rows[~self.dead[rows]]
        b_key = self.beside[-1]
        return rows, _rows_probed(b_key, probe, prefix) if len(b_key) else b_key[:0]

    def arrays_at(self, rows, near):
        """``(term columns, s, e, key)`` of the base rows ``rows`` and the
        rows beside ``near`` (each in key order), merged in key order."""
        cols, s, e, key = self.order
        out = [*(c[rows] for c in cols), s[rows], e[rows], key[rows]]
        if len(near):
            theirs = [a[near] for a in self.beside]
            out = spliced(out, near[:0], out[-1].searchsorted(theirs[-1]), theirs)
        return out[:-3], out[-3], out[-2], out[-1]

    def rows(self, keys, cols: list):
        """The rows now whose columns ``cols`` are a row of ``keys`` (the
        semi-join of a rule's atom): by ``searchsorted`` where the base is
        in key order and ``cols`` lead the key (its first term column, or
        both), else by masks of the base and of the rows beside (not made
        one frame: LUBM rec's 1% update made two given relations of 25,000
        and 50,000 rows one frame each so)."""
        import numpy as np

        if not keys.height or not self.height:
            return self.clear()
        if not cols:
            return self.frame()
        probe = self._packed(keys, cols) if cols == self.names[: len(cols)] else None
        if probe is not None:
            return _like(self.base, self.names, *self.arrays_at(*self.probed(probe, len(cols) < len(self.names)))[:3])
        shown = self._mask(self.base, keys, cols)
        if self._hidden:
            shown = shown & ~self.dead
        near = self._mask(self.extra, keys, cols) if self._beside_count() else np.zeros(0, dtype=bool)
        if self.order is not None:
            return _like(self.base, self.names, *self.arrays_at(np.flatnonzero(shown), np.flatnonzero(near))[:3])
        from .maintenance import _rows_where, with_rows

        got = _rows_where(self.base, shown)
        return with_rows(got, _rows_where(self.extra, near), self.names, self.values) if len(near) else got

    def _packed(self, df, cols: list):
        """The packed keys of ``df``'s columns ``cols`` (None where the
        base is in no key order or they are not codes)."""
        from .native import array, int64_without_nulls

        if self.order is None or not int64_without_nulls(df, cols):
            return None
        return packed([array(df, c) for c in cols], df.height)

    def _mask(self, df, keys, cols: list):
        """Per row of ``df`` (the base or the rows beside), whether its
        ``cols`` are a row of ``keys`` (numpy): the rows beside, a few, by a
        sort of both (code_frames.member: a presence table is as long as
        the largest code, ~1 MB to clear on LUBM 1M)."""
        import numpy as np

        from . import code_frames
        from .maintenance import _matching

        if not df.height or not cols:
            return np.full(df.height, bool(keys.height))
        if df is not self.base and code_frames.codes_only(df, keys, cols=cols):
            return code_frames.member(df, keys, cols)
        return _matching(df, keys, cols, self.values)

    def merged(self, keys, parts: list):
        """``(relation, new)``: this relation with the frames ``parts``
        (rows of the atoms ``keys``, a frame of its term columns) merged
        into those atoms' rows (coalesce.merge_new: only theirs are sorted
        and merged), and the maximal intervals that were not there before
        (the seminaive delta)."""
        from .coalesce import distinct, merge_new
        from .value_columns import same_kinds

        probe = self._packed(keys, self.names) if self.names and keys.height else None
        if probe is not None:  # (probed once: the atoms' rows now, and the base rows to hide)
            probe = distinct(probe)
            shown, near = self.probed(probe)
            old = _like(self.base, self.names, *self.arrays_at(shown, near)[:3])
        else:
            old = self.rows(keys, self.names)
        # (one kind first: a re-derivation's parts, given facts coded beside a rule's exact values)
        old, *parts = same_kinds([old, *parts], self.names, self.values)
        merged, new = merge_new(old, parts, self.names)
        if not new.height:
            return self, new
        return (self._without(probe, shown) if probe is not None else self.without(keys)).plus(merged), new

    def replaced(self, keys, rows):
        """This relation with the atoms ``keys`` (a frame of its term
        columns) having the rows ``rows`` (rows of those atoms) now."""
        return self.without(keys).plus(rows)

    def without(self, keys):
        """This relation with the rows of the atoms ``keys`` (a frame of
        its term columns) hidden, those beside too."""
        from .coalesce import distinct

        probe = self._packed(keys, self.names)
        if probe is not None:
            return self._without(distinct(probe))
        dead = self._mask(self.base, keys, self.names)
        if self._hidden:
            dead = dead | self.dead
        extra = self.extra
        if extra.height:
            from .maintenance import _rows_where

            extra = _rows_where(extra, ~self._mask(extra, keys, self.names))
        return Overlay(self.base, self.names, self.values, None, dead=dead, extra=extra)

    def _without(self, atoms, rows=None):
        """:meth:`without` in key order: ``atoms``, packed keys (sorted,
        distinct); ``rows``, their base rows shown where known."""
        import numpy as np

        rows = _rows_probed(self.order[3], atoms) if rows is None else rows
        gone = dead = None
        if self._dead is None:  # (the numbers merged: a few, where a mask is a copy of the relation's length)
            gone = np.union1d(self.gone, rows) if self._hidden else rows
        else:
            dead = self.dead.copy()
            dead[rows] = True
        beside, b_key = self.beside, self.beside[-1]
        if len(b_key) and len(atoms):
            drop = _among(atoms, b_key)
            if drop.any():
                beside = [a[~drop] for a in beside]
        return Overlay(self.base, self.names, self.values, self.order, gone, dead, beside)

    def plus(self, rows):
        """This relation with ``rows`` beside (rows of atoms with none shown
        nor beside: :meth:`without` hid them)."""
        import numpy as np

        theirs = _arrays(rows, self.names) if self.order is not None else None
        key = None if theirs is None else packed(theirs[0], rows.height)
        if key is not None:
            order = np.lexsort((theirs[1], key))  # (an atom's rows by their starts: merge_new's are so already)
            return self._plus([c[order] for c in theirs[0]], theirs[1][order], theirs[2][order], key[order])
        from .maintenance import with_rows

        extra = with_rows(self.extra, rows, self.names, self.values)
        return Overlay(self.base, self.names, self.values, None, dead=self.dead, extra=extra)

    def _plus(self, cols: list, s, e, key):
        """:meth:`plus` in key order: the rows as arrays in key order."""
        beside = self.beside
        beside = spliced(beside, key[:0], beside[-1].searchsorted(key), [*cols, s, e, key])
        return Overlay(self.base, self.names, self.values, self.order, self._gone, self._dead, beside)


def _among(atoms, key):
    """Per item of ``key``, whether it is one of the sorted ``atoms`` (not empty)."""
    import numpy as np

    return atoms[np.minimum(atoms.searchsorted(key), len(atoms) - 1)] == key


def as_frame(df):
    """``df`` as a frame (an :class:`Overlay` made one)."""
    return df.frame() if isinstance(df, Overlay) else df


def atoms_missing(df, rows, names: list):
    """The rows of the frame ``df`` whose atom has no row in ``rows`` (the
    same term columns ``names``, codes), by their packed keys; None when
    either is not for this path."""
    import numpy as np

    mine, theirs = _arrays(df, names), _arrays(rows, names)
    key = None if mine is None or theirs is None else packed(mine[0], df.height)
    other = None if key is None else np.sort(packed(theirs[0], rows.height))
    if other is None:
        return None
    at = np.minimum(other.searchsorted(key), max(len(other) - 1, 0))
    missing = np.flatnonzero(other[at] != key) if len(other) else np.arange(df.height)
    if sorted(df.columns) != sorted([*names, "s", "e"]):
        return df[missing]
    cols, s, e = mine
    return _like(df, names, [c[missing] for c in cols], s[missing], e[missing])  # (gathered in numpy: a polars gather is a query)


def _rows_probed(key, probe, prefix: bool = False):
    """The rows of the sorted ``key`` equal to a probe of ``probe``
    (packed keys; with ``prefix``, the first codes of two-code keys: every
    key from ``a << 32`` through ``a << 32 | 0xFFFFFFFF``), each row once and in
    order.  The probes are made sorted and distinct first (a sort of the
    few probes, not of the rows met): their ranges are then apart and in
    order, and the binary searches walk the key in order (random probes
    miss the cache: 4,000 among 258,000 rows 2-3x the CPU)."""
    if len(probe) > 1 and not (probe[1:] > probe[:-1]).all():
        probe = distinct(probe)
    if prefix:
        # (not ``(a + 1) << 32``: past int64 at the last code, 2**31 - 1)
        lo, hi = key.searchsorted(probe << 32, "left"), key.searchsorted(probe << 32 | 0xFFFFFFFF, "right")
    else:
        lo, hi = key.searchsorted(probe, "left"), key.searchsorted(probe, "right")
    return ranges(lo, hi - lo)


def _splice(cols, s, e, removed, at, extra, key=None):
    """A frame of the columns without the rows ``removed`` and with the rows
    ``extra`` (term columns, s, e; and ``key``'s: ``(key, extra key)``,
    the frame's key remembered) put before the positions ``at`` of the rows
    left (:func:`spliced`: the masks once for every column)."""
    from .relation import _frame

    arrays, extras = [*cols, s, e], [*extra[0], extra[1], extra[2]]
    own = key is not None and len(cols) != 1  # (a one-column key is the column itself)
    if own:
        arrays, extras = [*arrays, key[0]], [*extras, key[1]]
    out = spliced(arrays, removed, at, extras)
    df = _frame(out[: len(cols)], out[len(cols)], out[len(cols) + 1])
    return df if key is None else _remember(df, out[-1] if own else out[0])


def spliced(arrays: list, removed, at, extras: list) -> list:
    """Each array of ``arrays`` (one length) without its items ``removed``
    and with those of its ``extras`` put before the positions ``at`` (sorted)
    of the items left, as ``np.insert`` would: which items stay and where
    they go found once for all (``np.insert`` finds them per array, and
    each array is a copy of a relation's column: memberOf's five, 258,460
    rows, ~1.5x the time that way)."""
    import numpy as np

    n = len(arrays[0]) if arrays else 0
    if not n:  # (into nothing: a relation's first rows beside)
        return list(extras)
    kept = None
    if len(removed):
        kept = np.ones(n, dtype=bool)
        kept[removed] = False
    if not len(at):
        return [a[kept] if kept is not None else a for a in arrays]
    size = (int(np.count_nonzero(kept)) if kept is not None else n) + len(at)
    new_at = np.asarray(at, dtype=np.int64) + np.arange(len(at))
    old = np.ones(size, dtype=bool)
    old[new_at] = False
    out = []
    for a, b in zip(arrays, extras):
        o = np.empty(size, dtype=a.dtype)
        o[old] = a[kept] if kept is not None else a
        o[new_at] = b
        out.append(o)
    return out


def _like(df, names: list, cols: list, s, e):
    """A frame of ``df``'s columns (term columns ``names`` of codes) from numpy arrays."""
    from .base import frame_of
    from .native import int64_series

    got = {n: c for n, c in zip(names, cols)} | {"s": s, "e": e}
    return frame_of([int64_series(n, got[n]) for n in df.columns])


# id(frame) -> (a weak reference to it, its key or None when it is not in
# key order): a relation is probed by several variants and strata before it
# changes, and its key costs a few passes over it (~0.5 ms at 270,000 rows).
_KEYS: dict = {}


def _order_key(df, names: list):
    """The packed key of the relation ``df`` when it is in key order, else None."""
    got = _KEYS.get(id(df))
    if got is not None and got[0]() is df:
        return got[1]
    mine = _arrays(df, names) if sorted(df.columns) == sorted([*names, "s", "e"]) else None
    key = None if mine is None else packed(mine[0], len(mine[1]))
    if key is not None and len(key) > 1 and not (key[1:] >= key[:-1]).all():
        key = None
    _remember(df, key)
    return key


def _remember(df, key):
    """``df``, its key (None: not in key order) kept for :func:`_order_key`."""
    import weakref

    _KEYS[id(df)] = (weakref.ref(df, lambda _, at=id(df): _KEYS.pop(at, None)), key)
    return df
