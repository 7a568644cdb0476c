"""Where each first code's rows are in a relation kept in key order.

A relation of codes in key order (sorted_given.py: the packed key ``a`` or
``a << 32 | b``) is probed many times an update by the atoms a retraction,
an addition or a rule's semi-join names.  ``searchsorted`` does each probe
as a binary search over the whole key: ~18 dependent reads of a 250,000-row
key, missing the cache (LUBM 1M's memberOf: 2,612 probes 1.9 ms under
load).  An offsets table of the first code (a CSR row pointer: the rows of
code ``a`` are ``offsets[a - low]`` up to ``offsets[a - low + 1]``) answers
the same probes with two reads each (~16 us), and costs one ``bincount``
over the key and a ``cumsum`` over the codes' span to build (~1-2 ms at
250,000 rows): it pays for a relation probed many times before it changes.
So a table is made on a key's first probe when the key is long
(:data:`MIN_ROWS`), kept while the key array lives (a given relation's
base: sorted_given.Hidden keeps it across retractions), and made again
only for a new key (a splice makes a new array).  numpy has no
per-query-bounded ``searchsorted``, so a two-code probe of the whole key
compares the few rows of its first code (usually 1-10) instead.
"""

from __future__ import annotations

import weakref

# keys shorter than this are searched (a small key's binary search stays in
# the cache; a table would cost more than it saves)
MIN_ROWS = 4096

# fewer probes than this are searched unless the key has a table already (a
# table's first build, ~1-2 ms plus its fresh pages, pays over many probes)
MIN_PROBES = 256

# a table spans the key's first codes, low to high: a span far wider than
# the key (values, not dictionary codes) is searched instead
MAX_SPAN_PER_ROW = 16

# a two-code probe of the whole key compares the rows of its first code; past
# this many rows a probe on average (a first code with many rows) it searches
MAX_ROWS_PER_PROBE = 32

# a table carried through splices (its changes kept beside it, sorted) is
# made again once they pass this share of the key's rows
MAX_CHANGED_SHARE = 0.125


class CodeOffsets:
    """The rows of each first code of a sorted packed key (``two``: keys of
    two codes, ``a << 32 | b``; else of one, ``a``): a table built once
    (``offsets``, the rows below each code from ``low``) and the first
    codes of the rows a splice took out (``minus``) and put in (``plus``)
    since, sorted: a splice of a few thousand rows makes a new key, and a
    new table would cost a pass over the relation and fresh pages for it."""

    __slots__ = ("low", "offsets", "two", "plus", "minus", "__weakref__")

    def __init__(self, key, two: bool):
        import numpy as np

        first = key >> 32 if two else key
        self.low, self.two = int(first[0]), two
        counts = np.bincount(first - self.low)
        self.offsets = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=self.offsets[1:])
        self.plus = self.minus = first[:0]

    def below(self, codes):
        """How many rows have a first code below each of ``codes``."""
        import numpy as np

        at = np.clip(codes - self.low, 0, len(self.offsets) - 1)  # (below low: 0 rows; past the span: all)
        got = self.offsets[at]
        if len(self.plus) or len(self.minus):
            got = got + self.plus.searchsorted(codes) - self.minus.searchsorted(codes)
        return got

    def of_first(self, codes):
        """``(lo, hi)``: the rows of each first code of ``codes`` (a code
        the key does not hold: ``lo == hi``)."""
        return self.below(codes), self.below(codes + 1)

    def spliced(self, taken, put):
        """The table of the key made from this one's without the rows of
        the first codes ``taken`` and with rows of ``put``; None once the
        changes pass MAX_CHANGED_SHARE of the rows (made again when probed)."""
        import numpy as np

        if len(self.plus) + len(self.minus) + len(taken) + len(put) > MAX_CHANGED_SHARE * self.offsets[-1]:
            return None
        made = CodeOffsets.__new__(CodeOffsets)
        made.low, made.offsets, made.two = self.low, self.offsets, self.two
        # (a code both taken and put stays in both: the counts below it are right)
        made.plus, made.minus = np.sort(np.concatenate([self.plus, put])), np.sort(np.concatenate([self.minus, taken]))
        return made


def ranges(lo, count):
    """The row numbers ``lo[i] .. lo[i] + count[i] - 1``, one range after another."""
    import numpy as np

    return np.repeat(lo - np.cumsum(count) + count, count) + np.arange(int(count.sum()))


# id(key) -> (a weak reference to the key, its table): a key array is kept
# as long as its relation (sorted_given's _KEYS, Hidden's base).
_TABLES: dict = {}


def table(key, two: bool, probes: int = MIN_PROBES):
    """The :class:`CodeOffsets` of the sorted packed key ``key``: kept from
    an earlier call or a splice (:func:`carry`), or made now for a long
    key probed ``probes`` times; None for a short key, few probes, or first
    codes spanning far more than its rows."""
    got = _TABLES.get(id(key))
    if got is not None and got[0]() is key and got[1].two == two:
        return got[1]
    n = len(key)
    if n < max(MIN_ROWS, 1) or probes < MIN_PROBES:
        return None
    low, high = (int(key[0]) >> 32, int(key[-1]) >> 32) if two else (int(key[0]), int(key[-1]))
    if low < 0 or high - low > MAX_SPAN_PER_ROW * n:
        return None
    return _keep(key, CodeOffsets(key, two))


def _keep(key, made):
    _TABLES[id(key)] = (weakref.ref(key, lambda _, at=id(key), tables=_TABLES: tables.pop(at, None)), made)
    return made


def carry(old, new, taken, put) -> None:
    """The table of the key ``old``, if it has one, made the table of the
    key ``new``: ``old`` less its rows ``taken`` (row numbers, or a mask)
    plus the keys ``put``."""
    got = _TABLES.get(id(old))
    if got is None or got[0]() is not old or not len(new):
        return
    made = got[1]
    shift = 32 if made.two else 0
    made = made.spliced(old[taken] >> shift, put >> shift)
    if made is not None:
        _keep(new, made)


def bounds(key, probe, two: bool, prefix: bool = False, kept: bool = True):
    """``(lo, count)``: the rows of the sorted packed key ``key`` equal to
    each probe (``prefix``: whose first code is the probe's, the probes
    being first codes), as ``key.searchsorted(probe, "left")`` and the
    ``"right"`` one less it would give (``lo`` may differ where ``count``
    is 0).  ``kept``: ``key`` lives on (a relation's), so a table made for
    it serves later probes; a temporary array is searched."""
    import numpy as np

    got = table(key, two, len(probe)) if kept and len(probe) else None
    if got is None or two and not prefix and len(probe) < MIN_PROBES:  # (a few whole keys: searched)
        return _searched(key, probe, prefix)
    if prefix or not two:
        lo, hi = got.of_first(probe)
        return lo, hi - lo
    lo, hi = got.of_first(probe >> 32)
    n = hi - lo
    if int(n.sum()) > MAX_ROWS_PER_PROBE * len(probe):
        return _searched(key, probe, prefix)
    # each probe against the rows of its first code: the equal ones are a run
    # (the key is sorted), its first row the one met first
    rows = ranges(lo, n)
    owner = np.repeat(np.arange(len(probe)), n)
    equal = key[rows] == probe[owner]
    owner, rows = owner[equal], rows[equal]
    count = np.bincount(owner, minlength=len(probe))
    start = lo.copy()
    start[owner[::-1]] = rows[::-1]  # (the last assignment wins: the run's first row)
    return start, count


def _searched(key, probe, prefix: bool):
    """:func:`bounds` by ``searchsorted`` of the whole key."""
    if prefix:  # (up to the last key of the code: ``(a + 1) << 32`` overflows at the last code, 2**31 - 1)
        lo = key.searchsorted(probe << 32, "left")
        return lo, key.searchsorted(probe << 32 | 0xFFFFFFFF, "right") - lo
    lo = key.searchsorted(probe, "left")
    return lo, key.searchsorted(probe, "right") - lo
