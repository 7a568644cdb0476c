"""The relation a recursive stratum grows, merged round by round at the cost
of the round's derivations rather than of the whole relation.

``merge_new`` (coalesce.py) sorts the whole relation with each round's
derivations: temporal reachability over 400,000 edges runs 29 rounds, the
last 20 adding under 20,000 rows each to 2M, and each round re-sorted all of
them (4.7 of 5.8 s).  Here the relation is a few sorted *runs* (a
log-structured merge): arrays of an atom key (the term codes in mixed radix,
one int64 whose order is the atoms' order), ``s`` and ``e``, sorted by key and
start.  A round merges its derivations with the rows of the atoms they touch
only (a binary search of those keys in each run; of an atom holding many
rows, those that meet the span of its derivations), appends the new maximal
intervals as a run, and merges the last runs while the younger is at least
half the older (each row is re-sorted O(log N) times in all).  Derivations
are sorted by quicksort first: numpy's stable sort, which the merge uses,
merges sorted runs in linear time but is 3x slower on rows in no order.

An older run may keep an atom's interval that a younger run's interval has
since grown out of: the relation is the union of the runs, coalesced.  An
interval of a round's merge is new exactly when no row of its atom in any
run equals it, as ``merge_new`` decides: every maximal interval of the
relation is a row of some run (each round appends the ones it made), and a
row equal to a merged interval is contained in a maximal interval that the
merged one contains, so it is that interval.
"""

from __future__ import annotations

import math

from ..exprs import ranged_key, unranged
from .coalesce import coalesce_owned, merge_owned, sort_order
from .code_frames import codes_only, ranges

_FEW_ROWS = 4  # rows per touched atom in a run, on average, up to which _rows_of takes them all
_KEY_BITS = 62  # (with room for the start in coalesce.sort_order's combined key where the ranges allow, else it lexsorts)


class GrowingRelation:
    """A coalesced relation of columns ``keys``, Int64 codes or exact
    whole numbers (``whole``: exact value columns whose every denominator
    is 1, keyed by their numerators, in their order), grown by :meth:`merge`."""

    def __init__(self, keys: list, ranges: list, whole=frozenset()):
        self.keys, self.ranges, self.whole = keys, ranges, whole
        self.runs: list = []  # (key, s, e) arrays, oldest and largest first
        self._frame = None

    @classmethod
    def of(cls, frame, keys: list, parts: list, codes: int):
        """The relation ``frame`` (coalesced) about to merge ``parts``, or
        None where a column is neither codes nor exact whole numbers or the
        atoms need more than one int64 key.  Each code column's radix
        leaves room for twice the codes known (``codes``: the Dictionary's
        size), each whole-number column's for values half its span beyond
        either end, so that values a later round makes still fit."""
        from .exact_columns import is_exact

        frames = [f for f in (frame, *parts) if f.height]  # (an empty frame's columns are codes, whatever the rest hold)
        if not codes_only(*frames, cols=["s", "e"]):
            return None
        whole = frozenset(k for k in keys if any(is_exact(f[k]) for f in frames))
        if not codes_only(*frames, cols=[k for k in keys if k not in whole]):
            return None
        spans = []  # (least, range) per column
        for k in keys:
            cols = [_whole(f[k]) if k in whole else f[k].to_numpy() for f in frames]
            if any(c is None for c in cols):
                return None  # (a fraction, or codes beside exact values)
            top = max([int(c.max()) for c in cols], default=0)
            low = min([int(c.min()) for c in cols], default=0)
            if k not in whole:
                if low < 0:
                    return None  # (not a term code)
                low, top = 0, max(top, codes - 1)
            spans.append((low, top - low + 1))
        for grow in (2, 1):
            wanted = [(0, r * grow) if k not in whole else (lo - r * (grow - 1) // 2, r * grow)
                      for k, (lo, r) in zip(keys, spans)]
            if math.prod(r for _, r in wanted) < 2**_KEY_BITS:
                rel = cls(keys, wanted, whole)
                if frame.height:
                    rel.runs.append(_sorted_run(rel._key(frame), frame["s"].to_numpy(), frame["e"].to_numpy()))
                return rel
        return None

    @property
    def height(self) -> int:
        """The rows held (at least the relation's height: an older run may hold an interval grown since)."""
        return sum(len(s) for _, s, _ in self.runs)

    def merge(self, parts: list):
        """Merges the frames ``parts`` in: the frame of the new maximal
        intervals (the round's delta), or None, changing nothing, where a
        part has a value the key cannot hold (the caller then merges on
        the whole frame, :meth:`frame`)."""
        import numpy as np

        if not codes_only(*(p for p in parts if p.height), cols=["s", "e", *(k for k in self.keys if k not in self.whole)]):
            return None
        keys = [self._key(p) for p in parts]
        if any(k is None for k in keys):
            return None
        key = np.concatenate(keys)
        s = np.concatenate([p["s"].to_numpy() for p in parts])
        e = np.concatenate([p["e"].to_numpy() for p in parts])
        del keys, parts
        if not len(s):
            return self._decode(key, s, e)
        if self.runs:
            key, s, e, olds = self._touched(key, s, e)
        else:
            olds = []
        if olds:
            n_old = len(olds[0])
            cols = [np.concatenate([olds[0], key])]
            s = np.concatenate([olds[1], s])
            e = np.concatenate([olds[2], e])
            del olds, key
            s, e, fresh = merge_owned(cols, s, e, n_old)
            new = (cols[0][fresh], s[fresh], e[fresh])
            del cols, s, e, fresh
        else:  # no atom it touches holds yet (a relation's first round): all new, coalesced alone
            new = [key, s, e]
            del key, s, e
            coalesce_owned(new)
            new = tuple(new)
        if len(new[1]):
            self.runs.append(new)
            self._frame = None
            while len(self.runs) > 1 and 2 * len(self.runs[-1][1]) >= len(self.runs[-2][1]):
                self._merge_runs(2)
        return self._decode(*new)

    def _touched(self, key, s, e):
        """The derivations ``key``, ``s``, ``e`` sorted (quicksort: the
        merge's stable sort then merges sorted runs), and the rows of the
        runs that may join them: of the atoms they touch, those that meet
        the span of the atom's derivations (empty: none)."""
        import numpy as np

        order = sort_order([key], s, stable=False)
        key, s, e = key[order], s[order], e[order]
        del order
        first = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))  # (sorted: each atom's first row)
        span = (key[first], s[first], np.maximum.reduceat(e, first))
        olds = [_rows_of(run, *span) for run in self.runs]
        if not sum(len(o[0]) for o in olds):
            return key, s, e, []
        return key, s, e, [np.concatenate([o[i] for o in olds]) for i in range(3)]

    def frame(self):
        """The relation as a coalesced frame sorted by atom and start (its runs merged into one)."""
        if self._frame is None:
            if len(self.runs) > 1:
                self._merge_runs(len(self.runs))
            if self.runs:
                self._frame = self._decode(*self.runs[0])
            else:
                from .relation import empty

                self._frame = empty(len(self.keys))
        return self._frame

    def _merge_runs(self, count: int) -> None:
        """The last ``count`` runs as one: their union coalesced (an interval
        a younger run grew replaces an older one's), each column concatenated
        and its pieces dropped before the next (peak: the runs and one column)."""
        import numpy as np

        runs = [list(run) for run in self.runs[-count:]]
        del self.runs[-count:]
        arrays = []
        for i in range(3):
            arrays.append(np.concatenate([run[i] for run in runs]))
            for run in runs:
                run[i] = None
        coalesce_owned(arrays)
        self.runs.append(tuple(arrays))

    def _key(self, frame):
        """The atom keys of ``frame``'s rows, or None where a value is beyond
        its column's range (or a whole-number column holds a fraction)."""
        import numpy as np

        cols = [_whole(frame[k]) if k in self.whole else frame[k].to_numpy() for k in self.keys]
        if any(c is None for c in cols):
            return None
        got = ranged_key(cols or [np.zeros(frame.height, dtype=np.int64)], self.ranges or [(0, 1)])  # (no terms: one key, 0)
        return None if got is None else got[0]

    def _decode(self, key, s, e):
        import numpy as np

        from .base import frame_of_arrays

        cols = unranged(key, self.ranges)
        cols = [(c, np.ones(len(c), dtype=np.int64)) if k in self.whole else c for k, c in zip(self.keys, cols)]
        return frame_of_arrays(self.keys, cols, s, e)


def _whole(series):
    """The numerators of an exact column of whole numbers (exact_columns.numerators),
    an empty column's too (codes or pairs alike), else None."""
    import numpy as np

    from .exact_columns import numerators

    return np.zeros(0, dtype=np.int64) if not len(series) else numerators(series)


def _rows_of(run, touched, start, end):
    """``(key, s, e)`` of ``run``'s rows whose key is in ``touched``
    (sorted, unique); where the atoms hold more than :data:`_FEW_ROWS` rows
    each, only those that meet ``[start, end]`` of their atom, as
    coalescing joins rows (an end at or past the start, a start at or
    before the end): a row apart from every derivation of its atom neither
    joins one nor, being in a run, can be a merged interval.  (A recursion
    through time adds a point a round to atoms of a thousand: merged whole,
    300 such atoms over 2,000 rounds took 10.4 s, 2.0 s with only the rows
    that meet.)"""
    import numpy as np

    key, s, e = run
    lo = np.searchsorted(key, touched, "left")
    has = key[np.minimum(lo, len(key) - 1)] == touched  # (most touched atoms are new: no second search)
    lo, touched = lo[has], touched[has]
    hi = np.searchsorted(key, touched, "right")
    if hi.sum() - lo.sum() > _FEW_ROWS * len(lo):  # (else all of each atom's rows: fewer steps than the searches)
        # (a run's rows of one atom are apart and sorted by start, so by end too)
        lo = _first_at_least(e, lo, hi, start[has])
        hi = _first_at_least(s, lo, hi, end[has] + 1)
    at = ranges(lo, hi - lo)
    return key[at], s[at], e[at]


def _first_at_least(values, lo, hi, target):
    """Per i, the first row in ``lo[i] .. hi[i]-1`` of ``values`` (sorted
    there) at least ``target[i]``, else ``hi[i]``: numpy's searchsorted
    takes one sorted array, these are many ranges of one, so a bisection
    of all of them at once (a step per halving of the longest range)."""
    import numpy as np

    lo, hi = lo.copy(), hi.copy()
    while True:
        open_ = lo < hi
        if not open_.any():
            return lo
        mid = (lo + hi) >> 1
        below = open_ & (values[np.minimum(mid, len(values) - 1)] < target)
        lo = np.where(below, mid + 1, lo)
        hi = np.where(open_ & ~below, mid, hi)


def _sorted_run(key, s, e):
    """``(key, s, e)`` sorted by key and start, as a run must be: a coalesced
    frame is, but a relation maximal in no order (a stored relation's atoms
    in the order they came, a maintained one's touched atoms put back at the
    end) is sorted here first (the check is one pass)."""
    import numpy as np

    if len(key) < 2 or bool(np.all((key[1:] > key[:-1]) | ((key[1:] == key[:-1]) & (s[1:] > s[:-1])))):
        return key, s, e
    order = sort_order([key], s)
    return key[order], s[order], e[order]
