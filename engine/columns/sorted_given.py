"""Given relations changed through their sorted codes.

A frame of given facts is kept in the order of its atoms' packed term codes
(``a``, or ``a << 32 | b``: codes are non-negative and under 2**31), as
given.py builds it (coalesce_arrays sorts by the atom, then the start).
The frame is then its own index: the rows of the atoms a retraction or an
addition names are found by ``searchsorted`` of their keys, a few thousand
probes instead of a polars semi-join over each relation.  A retraction
from the relation of a predicate no rule derives hides the rows it meets
(RDFox's tombstones) and keeps what is left of them beside
(:class:`Hidden`): later retractions and the rules' semi-joins probe it so,
and it is copied into one frame (a ``take`` of each column; a polars column
takes a numpy array without a copy) only when a step reads it whole or a
quarter of it is hidden.  An addition splices the merged rows in (a copy of
each column).  A frame another step left out of that order is sorted again
first (a few sorted runs: a stable sort merges them in one pass).

Only frames of at most two term columns of codes take this path (the packed
key is one int64); value columns and wider atoms take polars'
(maintenance.py).  The same answers as the time points themselves
(tests/test_sorted_given.py).
"""

from __future__ import annotations

from typing import NamedTuple

from .code_frames import left_over, packed
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


class Addition(NamedTuple):
    """What merging added facts into a relation gives (frames of its layout)."""

    new: object  # the maximal intervals that were not there before (the seminaive delta)
    after: object  # the relation after, in key order


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
    term columns ``names``) from the coalesced relation ``df`` (a frame or
    a :class:`Hidden` one); None when either is not for this path (see the
    module's docstring).  The relation after is a frame, or with ``after=
    "hidden"`` a :class:`Hidden` one until HIDDEN_SHARE of its rows are
    hidden or beside, or with ``after=None`` not made (None: the pieces
    and the rows met only)."""
    import numpy as np

    from .relation import _frame

    hidden = isinstance(df, Hidden)
    probe = _probe(df, holes, names)
    if probe is None:
        return None
    mine, (other_key, hs, he), lo, count = probe[:5], *probe[5:]
    _, cols, s, e, key = mine
    relation = df if hidden else mine[0]
    dead, beside = (df.dead, df.beside) if hidden else (np.zeros(len(s), dtype=bool), (np.zeros(0, dtype=np.int64),) * 3)
    # every pair of a hole and a row of its atom whose intervals meet: a row
    # shown, or a piece beside standing in for its hidden row; ``at``: the
    # row it is or stands in for, ``who``: that row's number, or past the
    # rows its piece's
    hole, at = np.repeat(np.arange(len(lo)), count), _ranges(lo, count)
    if hidden:
        shown = ~dead[at]
        hole, at = hole[shown], at[shown]
    who, cs, ce = at, s[at], e[at]
    if len(beside[0]):
        orig, bs, be = beside
        b_key = key[orig]
        b_lo = b_key.searchsorted(other_key, "left")
        b_count = b_key.searchsorted(other_key, "right") - b_lo
        b_row = _ranges(b_lo, b_count)
        hole = np.concatenate([hole, np.repeat(np.arange(len(b_lo)), b_count)])
        at, who = np.concatenate([at, orig[b_row]]), np.concatenate([who, len(s) + b_row])
        cs, ce = np.concatenate([cs, bs[b_row]]), np.concatenate([ce, be[b_row]])
        order = np.lexsort((cs, at, hole))  # (by hole, then in key order)
        hole, at, who, cs, ce = hole[order], at[order], who[order], cs[order], ce[order]
    ps, pe = np.maximum(cs, hs[hole]), np.minimum(ce, he[hole])
    meet = ps < pe
    hole, at, who, cs, ce, ps, pe = hole[meet], at[meet], who[meet], cs[meet], ce[meet], ps[meet], pe[meet]
    met = int(np.count_nonzero(hole[1:] != hole[:-1])) + 1 if len(hole) else 0  # (by hole: the holes met, each once)
    # (holes in key order, each hole's rows in key order: the pieces are too,
    # and maximal: the rows and the holes are)
    pieces = _frame([c[at] for c in cols], ps, pe)
    # the rows met, once each: ``t_*`` (in the order of ``who``: usually
    # so already, the holes disjoint and in key order, and an atom's rows by
    # their starts; without pieces beside, the order of ``who`` is key order)
    by = np.arange(len(who)) if (who[1:] >= who[:-1]).all() else np.argsort(who, kind="stable")
    first = np.ones(len(by), dtype=bool)
    first[1:] = who[by][1:] != who[by][:-1]
    one = by[first]
    t_who, t_at, t_s, t_e = who[one], at[one], cs[one], ce[one]
    k = np.lexsort((t_s, t_at)) if len(beside[0]) else slice(None)  # (in key order)
    touched = _frame([c[t_at[k]] for c in cols], t_s[k], t_e[k])
    if not len(t_who) or after is None:
        return Retraction(relation, pieces, touched, relation if len(t_who) == 0 else None, met)
    left, left_s, left_e = left_over(t_who.searchsorted(who), ps, pe, t_s, t_e)
    dead = dead.copy() if hidden else dead
    dead[t_who[t_who < len(s)]] = True
    kept = np.ones(len(beside[0]), dtype=bool)
    kept[t_who[t_who >= len(s)] - len(s)] = False
    orig, bs, be = (np.concatenate([b[kept], x]) for b, x in zip(beside, (t_at[left], left_s, left_e)))
    order = np.lexsort((bs, orig))
    rest = Hidden(mine, dead, (orig[order], bs[order], be[order]))
    return Retraction(relation, pieces, touched, rest if after == "hidden" and rest.hidden_share() <= HIDDEN_SHARE else rest.frame(), met)


# A hidden relation is copied (made a frame) once its hidden rows and the
# pieces beside them pass this share of its rows: until then each update
# copies only the relations its rules read whole; past it the hidden rows
# would hold memory (and the pieces beside grow each update's merge of them).
HIDDEN_SHARE = 0.25


class Hidden:
    """A given relation after retractions, not copied: its frame in key
    order (``base``: ``(frame, term columns, s, e, key)``), the rows a
    retraction met hidden (``dead``, RDFox's tombstones) and what is left of
    them beside (``beside``: per piece the row it stands in for, whose
    terms it has, and its interval, by row then start).  An update's rules
    mostly probe a given relation for a few atoms (maintenance.semi by
    :func:`rows_matching`), which a hidden one answers as it is; a copy of
    each relation a retraction met was 6-7 ms of a 1% retraction of LUBM
    1M.  :meth:`frame` makes the relation one frame when a step reads it
    whole (HybridEvaluator.table)."""

    def __init__(self, base, dead, beside):
        import numpy as np

        self.base, self.dead, self.beside = base, dead, beside
        self._frame = None
        self._hidden = int(np.count_nonzero(dead))

    @property
    def width(self) -> int:
        return self.base[0].width

    @property
    def columns(self) -> list:
        return self.base[0].columns

    def clear(self):
        """An empty frame of the relation's columns."""
        return self.base[0].clear()

    @property
    def height(self) -> int:
        return len(self.dead) - self._hidden + len(self.beside[0])

    def hidden_share(self) -> float:
        return (self._hidden + len(self.beside[0])) / max(1, len(self.dead))

    def rows_where(self, keep):
        """The relation's rows that the numpy mask ``keep`` over its base
        frame's rows marks: those shown, and the pieces beside of the rows
        it marks; a filter without :meth:`frame`'s copy of the whole
        relation (a rule's cut on a column not the key's first: LUBM rec's
        1% update made two given relations of 25,000 and 50,000 rows one
        frame each)."""
        import numpy as np

        from .relation import _frame

        return _frame(*self.gathered(np.flatnonzero(keep & ~self.dead), keep[self.beside[0]])[:3])

    def frame(self):
        """The relation as one frame in key order (made once); a one-column
        key is the column itself."""
        import numpy as np

        from .relation import _frame

        if self._frame is None:
            cols, s, e, rows = self.gathered(np.flatnonzero(~self.dead), slice(None))
            key = self.base[4]
            self._frame = _remember(_frame(cols, s, e), key.take(rows) if len(cols) > 1 else packed(cols, len(s)))
        return self._frame

    def gathered(self, shown, near):
        """``(term columns, s, e, rows)`` of the base rows ``shown`` (sorted,
        none hidden) and the pieces beside ``near`` (an index or a mask of
        them), each piece in its row's place (so in key order where
        ``shown`` is), by one gather (``take``) of each column: ``rows``,
        the base row each output row is or stands in for.  What every
        reading of the relation (whole, by a mask, by probed keys) takes."""
        import numpy as np

        _, cols, s, e, _ = self.base
        orig, bs, be = self.beside
        at = orig[near]
        place = shown.searchsorted(at)  # (the first row shown past the hidden one: beside is by row, then start)
        rows = np.insert(shown, place, at)  # (a piece takes its row's terms)
        cols, s, e = [c.take(rows) for c in cols], s.take(rows), e.take(rows)
        where = place + np.arange(len(at))
        s[where], e[where] = bs[near], be[near]
        return cols, s, e, rows


def as_frame(df):
    """``df`` as a frame (a :class:`Hidden` relation made one)."""
    return df.frame() if isinstance(df, Hidden) else df


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


def _probe(df, other, names: list):
    """``(df in key order, its columns, s, e, key, (other's key, s, e), lo,
    count)``: for each row of ``other``, where its atom's rows start in
    ``df`` and how many there are (searchsorted of the packed keys; a
    :class:`Hidden` relation's base frame, its hidden rows among them);
    None when either frame is not for this path."""
    mine = df.base if isinstance(df, Hidden) else _in_key_order(df, names)
    theirs = _arrays(other, names)
    other_key = None if mine is None or theirs is None else packed(theirs[0], len(theirs[1]))
    if other_key is None:
        return None
    key = mine[4]
    lo = key.searchsorted(other_key, "left")
    return (*mine, (other_key, theirs[1], theirs[2]), lo, key.searchsorted(other_key, "right") - lo)


def add(df, added, names: list):
    """:class:`Addition` of the coalesced frame ``added`` to the coalesced
    relation ``df`` (term columns ``names``): only the rows of the atoms it
    names are merged (coalesce.merge_new); None when either is not for
    this path."""
    from .coalesce import merge_new
    from .relation import _frame

    mine, theirs = _in_key_order(df, names), _arrays(added, names)
    probe = None if mine is None or theirs is None else packed(theirs[0], added.height)
    if probe is None:
        return None
    df, cols, s, e, key = mine
    old_rows = _rows_probed(key, probe)  # (every row of the atoms added)
    found = (*mine, old_rows)
    old = _frame([c[old_rows] for c in cols], s[old_rows], e[old_rows])
    merged, new = merge_new(old, [added], names)
    return Addition(new, _replaced(found, merged, names) if new.height else df)


def _ranges(lo, count):
    """The row numbers ``lo[i] .. lo[i] + count[i] - 1``, one range after another."""
    import numpy as np

    return np.repeat(lo - np.cumsum(count) + count, count) + np.arange(int(count.sum()))


def _rows_probed(key, probe, prefix: bool = False):
    """The rows of the sorted ``key`` equal to a probe of ``probe``
    (packed keys; with ``prefix``, the first codes of two-code keys: every
    key from ``a << 32`` through ``a << 32 | 0xFFFFFFFF``), each row once and in
    order.  The probes are made sorted and distinct first (a sort of the
    few probes, not of the rows met): their ranges are then apart and in
    order, and the binary searches walk the key in order (random probes
    miss the cache: 4,000 among 258,000 rows 2-3x the CPU)."""
    import numpy as np

    if len(probe) > 1 and not (probe[1:] > probe[:-1]).all():
        probe = distinct(probe)
    if prefix:
        # (not ``(a + 1) << 32``: past int64 at the last code, 2**31 - 1)
        lo, hi = key.searchsorted(probe << 32, "left"), key.searchsorted(probe << 32 | 0xFFFFFFFF, "right")
    else:
        lo, hi = key.searchsorted(probe, "left"), key.searchsorted(probe, "right")
    return _ranges(lo, hi - lo)


def _splice(cols, s, e, removed, at, extra, key=None):
    """A frame of the columns without the rows ``removed`` and with the rows
    ``extra`` (term columns, s, e; and ``key``'s: ``(key, extra key)``,
    the frame's key remembered) put before the positions ``at`` of the rows
    left (:func:`spliced`: the masks once for every column)."""
    from .relation import _frame

    arrays, extras = [*cols, s, e], [*extra[0], extra[1], extra[2]]
    if key is not None:
        arrays, extras = [*arrays, key[0]], [*extras, key[1]]
    out = spliced(arrays, removed, at, extras)
    df = _frame(out[: len(cols)], out[len(cols)], out[len(cols) + 1])
    return df if key is None else _remember(df, out[-1])


def spliced(arrays: list, removed, at, extras: list) -> list:
    """Each array of ``arrays`` (one length) without its items ``removed``
    and with those of its ``extras`` put before the positions ``at`` (sorted)
    of the items left, as ``np.insert`` would: which items stay and where
    they go found once for all (``np.insert`` finds them per array, and
    each array is a copy of a relation's column: memberOf's five, 258,460
    rows, ~1.5x the time that way)."""
    import numpy as np

    n = len(arrays[0]) if arrays else 0
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


def rows_matching(df, keys, cols: list, names: list):
    """The rows of the relation ``df`` (term columns ``names``) whose term
    columns ``cols`` are a row of ``keys``, by ``searchsorted`` when ``df``
    is in key order and ``cols`` lead its key (its first term column, or
    both): maintenance.py's semi-join without a pass over the relation; a
    :class:`Hidden` relation is probed as it is (its rows shown and the
    pieces beside them), not copied.  None when it is not for this path
    (the caller filters with polars)."""
    import polars as pl

    if not cols or cols != names[: len(cols)]:
        return None
    if any(keys[c].dtype != pl.Int64 or keys[c].null_count() for c in cols):
        return None
    hidden = isinstance(df, Hidden)
    key = df.base[4] if hidden else _order_key(df, names)
    probe = packed([keys[c].to_numpy() for c in cols], keys.height)
    if key is None or probe is None:
        return None
    prefix = len(cols) < len(names)
    rows = _rows_probed(key, probe, prefix)
    if not hidden:
        tcols, s, e = _arrays(df, names)
        return _like(df, names, [c[rows] for c in tcols], s[rows], e[rows])
    near = _rows_probed(key[df.beside[0]], probe, prefix)  # (the pieces beside of the rows probed)
    return _like(df, names, *df.gathered(rows[~df.dead[rows]], near)[:3])


def _keyed_rows(df, keys, names: list):
    """``(term columns, s, e, key, rows)`` of the relation ``df`` in key
    order, ``rows`` those of the atoms ``keys`` (a frame of its term
    columns), by ``searchsorted``; None when ``df`` is not in key order or
    ``keys`` are not codes."""
    key = _order_key(df, names)
    if key is None or any(keys[c].dtype != df[c].dtype or keys[c].null_count() for c in names):
        return None
    probe = packed([keys[c].to_numpy() for c in names], keys.height)
    if probe is None:
        return None
    cols, s, e = _arrays(df, names)
    return cols, s, e, key, _rows_probed(key, probe)


def rows_in_order(df, keys, names: list):
    """``(rows, found)``: the rows of the relation ``df`` of the atoms
    ``keys`` (a frame of its term columns) when ``df`` is in key order (no
    copy of the rest: :func:`put_rows` puts their new rows in their place,
    given ``found``, where they are, so as not to probe for them again);
    else None."""
    found = _keyed_rows(df, keys, names) if names else None
    if found is None:
        return None
    cols, s, e, _, rows = found
    return _like(df, names, [c[rows] for c in cols], s[rows], e[rows]), found


def put_rows(df, keys, rows, names: list, found=None):
    """The relation ``df`` (in key order) with the rows of the atoms
    ``keys`` (a frame of its term columns) replaced by ``rows`` (rows of
    those atoms, coalesced) in one splice, where a split of the relation
    and a put back copied each column twice more; None when it is not for
    this path.  ``found``: :func:`rows_in_order`'s, of this ``df``."""
    got = swap_rows(df, keys, rows, names, found)
    return None if got is None else got[1]


def swap_rows(df, keys, rows, names: list, found=None):
    """``(was, after)``: :func:`put_rows`'s relation after, and the rows
    of the atoms it replaced (one probe for both: a stratum's change is
    its atoms' rows before and after, maintenance.Touched)."""
    if not names or df.columns != [*names, "s", "e"]:
        return None
    theirs = _arrays(rows, names)
    if theirs is None or packed(theirs[0], rows.height) is None:
        return None
    found = found or _keyed_rows(df, keys, names)
    if found is None:
        return None
    cols, s, e, _, old_rows = found
    return _like(df, names, [c[old_rows] for c in cols], s[old_rows], e[old_rows]), _replaced((df, *found), rows, names)


def _replaced(found, rows, names: list):
    """The relation of ``found`` (``(relation in key order, term columns,
    s, e, key, rows)``) with its rows of
    the atoms replaced by ``rows`` (rows of those atoms, coalesced, of codes;
    in any order), in key order, its key remembered: one :func:`_splice`."""
    import numpy as np

    _, cols, s, e, key, old_rows = found
    r_cols, r_s, r_e = _arrays(rows, names)
    r_key = packed(r_cols, len(r_s))
    order = np.lexsort((r_s, r_key))  # (an atom's rows by their starts: merge_new's are so already)
    r_key = r_key[order]
    at = key.searchsorted(r_key, "left")
    at -= old_rows.searchsorted(at)  # (where its atom's rows were, or would be, once those are cut out)
    return _splice(cols, s, e, old_rows, at, ([c[order] for c in r_cols], r_s[order], r_e[order]), (key, r_key))


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
