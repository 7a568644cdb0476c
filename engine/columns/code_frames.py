"""Joins, interval moves and set operations on frames of codes, in numpy.

An update on frames (maintenance.py) makes many frames of a few to a few
thousand rows (the atoms a change touches) and asks of each a join, a
temporal move, a distinct set of atoms, a difference of rows or of
intervals.  As a polars query each costs ~0.2-0.4 ms whatever the size; the
same in numpy costs 15-140 us at these sizes (a loop in Python over a few
rows saves ~10 us of a subtraction and loses as much on a join: not worth
a third path).  A join, a difference of intervals and Since are written
here once for every size: their row pairs come from a sort of the keys in
numpy on frames of Int64 codes without nulls (:func:`codes_only`) of at
most :data:`CODE_ROWS` rows together (a join: :data:`SORT_ROWS`), else from
a polars hash join (:func:`_matched`).  A temporal move (temporal.py) and
a difference of rows (maintenance.py) run here on such frames, in polars
past them.  Same answers as those paths up to row order
(tests/test_small_frames.py, tests/test_code_frames.py).
"""

from __future__ import annotations

from ..exprs import call, col, partition_starts, to_numpy, to_polars
from ..interval_codes import POS
from .base import frame_of
from .coalesce import argsort, sort_order
from .encoding import LIMIT, Fallback
from .native import array, int64_series, int64_without_nulls

# Term codes are non-negative and under 2**31 (encoding.py): two fit one int64.
_CODE_LIMIT = 1 << 31

# Rows (all frames of an operation together) up to which numpy beats polars
# (a join of 1,000 rows on 1,000: 0.14 ms against 0.29; of 1,000 on 20,000:
# 1.7 ms against 0.7, the sort of the larger side losing to polars' threads).
CODE_ROWS = 4096

# Operations that took each path so far (maintenance.py reports them per stratum).
TALLY = {"numpy": 0, "polars": 0}


def path(*frames, rows: int | None = None) -> str:
    """Where an operation on ``frames`` runs: ``numpy`` (here: frames of
    codes of at most ``rows`` rows together, :data:`CODE_ROWS` unless
    given) or ``polars``; counted in :data:`TALLY`."""
    way = "numpy" if sum(f.height for f in frames) <= (CODE_ROWS if rows is None else rows) and codes_only(*frames) else "polars"
    TALLY[way] += 1
    return way


# Rows (all frames together) up to which a join or a difference of rows,
# operations by a sort of keys (numpy's default sort: ~0.25 ms of CPU at
# 27,000 keys), stays in numpy: a polars join is five queries, ~1-3 ms of
# CPU each in an update's rounds under load (LUBM's transitive
# re-derivation joins a few hundred rows with 27,000).
SORT_ROWS = 1 << 15


def sorted_path(*frames) -> str:
    """:func:`path` of a join or difference of rows: numpy up to :data:`SORT_ROWS`."""
    return path(*frames, rows=max(SORT_ROWS, CODE_ROWS))


def codes_only(*frames, cols=None) -> bool:
    """Whether every column of ``frames`` (or only ``cols``: no select) is
    Int64 without nulls."""
    return all(int64_without_nulls(f, cols) for f in frames)


def _arrays(df, cols: list) -> list:
    return [array(df, c) for c in cols]


def frame(cols: dict):
    """A frame of ``{name: column}``: Int64 codes from numpy arrays, built
    from Series (a dict of arrays costs 2-3x as much), or polars Series
    (value columns: :func:`_taken`) as they are."""
    return frame_of([int64_series(n, a) if not hasattr(a, "alias") else a.alias(n) for n, a in cols.items()])


def _taken(df, c, rows):
    """``df``'s column ``c`` at ``rows``: a numpy array of codes, or for a
    value column (floats, exact pairs) or one with nulls polars' gather of
    its Series (no query)."""
    if int64_without_nulls(df, [c]):
        return array(df, c)[rows]
    return df.get_column(c).gather(rows)


def packed(cols: list, height: int = 0):
    """One int64 per row of one or two int64 columns (numpy), ordered as
    the rows (the first column, then the second), equal where the rows are
    equal; None for more columns, another type, or two columns with a value
    outside the codes' range.  No columns: one key, 0, for ``height`` rows."""
    import numpy as np

    if len(cols) > 2 or any(c.dtype != np.int64 for c in cols):
        return None
    if not cols:
        return np.zeros(height, dtype=np.int64)
    if len(cols) == 1:
        return cols[0]
    if all(map(_codes_range, cols)):
        return cols[0] << 32 | cols[1]
    return None


def _codes_range(col) -> bool:
    """Whether an int64 column's values are within the codes' range (packed)."""
    return len(col) == 0 or (col.min() >= 0 and col.max() < _CODE_LIMIT)


def ranges(lo, count):
    """The row numbers ``lo[i] .. lo[i] + count[i] - 1`` (numpy), one range
    after another."""
    import numpy as np

    return np.repeat(lo - np.cumsum(count) + count, count) + np.arange(int(count.sum()))


def row_ids(cols: list):
    """A dense id per row of the columns ``cols`` (numpy arrays of one
    length): equal rows, equal ids; by a sort (numpy 2.4's ``np.unique``
    and ``np.isin`` hash integers: 500 against 10 us on 3,000 codes)."""
    import numpy as np

    n = len(cols[0])
    key = packed(cols)
    if key is not None:
        order, step = argsort(key, stable=False), None
    else:
        order, step = _hashed_order(cols)
    if step is None:
        if order is None:  # (a collision of two rows' hashes: by all their columns)
            order = np.lexsort(cols[::-1])
        step = partition_starts([c[order] for c in ([key] if key is not None else cols)], n)
    ids = np.empty(n, dtype=np.int64)
    ids[order] = np.cumsum(step) - 1
    return ids


def _hashed_order(cols: list):
    """``(order, step)`` of rows of three or more int64 columns: the rows
    sorted by a 64-bit hash of their columns, and each unlike the one
    before (the first too), checked column by column (``(None, None)`` where two rows
    that differ share a hash, or a column is not int64).  ``np.lexsort``
    of a relation's four columns costs 5-6x one ``argsort`` (5,000 rows:
    2 ms against 0.35 ms), and equal rows is all :func:`row_ids` asks for."""
    import numpy as np

    if any(c.dtype != np.int64 for c in cols):
        return None, None
    h = np.zeros(len(cols[0]), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for c in cols:  # (splitmix64's finaliser over the running hash and each column)
            h += c.view(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
            h ^= h >> np.uint64(30)
            h *= np.uint64(0xBF58476D1CE4E5B9)
            h ^= h >> np.uint64(27)
            h *= np.uint64(0x94D049BB133111EB)
            h ^= h >> np.uint64(31)
    order = np.argsort(h)
    sh = h[order]
    step = np.ones(len(h), dtype=bool)
    step[1:] = sh[1:] != sh[:-1]
    same = ~step[1:]
    if same.any():
        for c in cols:
            sc = c[order]
            if (same & (sc[1:] != sc[:-1])).any():
                return None, None
    return order, step


def distinct(df, cols: list, names: list | None = None):
    """The distinct rows of ``df``'s columns ``cols`` (named ``names``)."""
    import numpy as np

    from .coalesce import distinct as sorted_distinct

    arrays = _arrays(df, cols)
    names = names or cols
    key = packed(arrays)
    if key is not None:
        got = sorted_distinct(key)
        if len(cols) == 2:
            return frame({names[0]: got >> 32, names[1]: got & (_CODE_LIMIT * 2 - 1)})
        return frame({names[0]: got})
    ids = row_ids(arrays)
    order = np.argsort(ids, kind="stable")
    first = order[partition_starts([ids[order]], len(ids))]  # (the first row of each id)
    return frame({n: a[first] for n, a in zip(names, arrays)})


def kept_rows(df, keep):
    """The rows of the frame of codes ``df`` where the numpy mask ``keep``
    holds, gathered in numpy: a polars filter is a query, whose thread
    pool waits its turn on a loaded machine (a few ms at load 10 on two
    cores, where the gathers take ~20 us a column)."""
    import numpy as np

    kept = int(np.count_nonzero(keep))
    if kept == len(keep):
        return df
    if kept * 8 < len(keep):  # (a few rows of a relation: their positions once, then a gather per column, 2.5x faster)
        keep = np.flatnonzero(keep)
    return frame({c: array(df, c)[keep] for c in df.columns})


def anti(df, other):
    """The rows of ``df`` that are not rows of ``other`` (same columns)."""
    if not df.height or not other.height:
        return df
    mine, theirs = _both_ids(df, other)
    return kept_rows(df, _absent(mine, theirs))


def differences(df, other):
    """``(df - other, other - df)``: :func:`anti` both ways from one
    numbering of both frames' rows (maintenance.py's change of a relation:
    before and after)."""
    if not df.height or not other.height:
        return df, other
    mine, theirs = _both_ids(df, other)
    return kept_rows(df, _absent(mine, theirs)), kept_rows(other, _absent(theirs, mine))


def _both_ids(df, other, cols=None):
    """:func:`row_ids` of the rows of ``df``, then of ``other``'s (one
    numbering), by their columns ``cols`` (all when None)."""
    import numpy as np

    ids = row_ids([np.concatenate([array(df, c), array(other, c)]) for c in cols or df.columns])
    return ids[: df.height], ids[df.height:]


def _absent(ids, others):
    """Per id of ``ids``, whether ``others`` lacks it (dense ids: a presence table)."""
    import numpy as np

    there = np.zeros(len(ids) + len(others), dtype=bool)
    there[others] = True
    return ~there[ids]


def _pairs(left: list, right: list):
    """``(i, j)``: the row pairs of two frames whose key columns (``left``,
    ``right``: numpy arrays, one per key) are equal, by sorting ``right``'s
    keys once and searching ``left``'s."""
    import numpy as np

    n = len(left[0])
    mine, theirs = _key_codes(left, right, n, len(right[0]))
    order = argsort(theirs, stable=False)  # (not stable: a third of the time; the pairs of a row come in any order)
    ranked = theirs[order]
    lo = np.searchsorted(ranked, mine, "left")
    counts = np.searchsorted(ranked, mine, "right") - lo
    return np.repeat(np.arange(n), counts), order[ranges(lo, counts)]


def _meeting_pairs(df, right, shared: list, way: str, ends=("s", "e")):
    """``(i, j)``: the pairs of rows of ``df`` and ``right`` equal on
    ``shared`` whose intervals (``right``'s ``ends``) may meet (callers
    intersect them): :func:`_matched`'s pairs, unless those would be many
    times the rows (a machine's 1,500 readings each paired with its 1,500
    quiet stretches: 45M pairs, 7 s of a sensor program's 10): then the
    candidates of each row are one run of ``right`` sorted by key and
    start, found by binary searches (:func:`_searched_pairs`), as many as
    meet where ``right``'s intervals end in the order they start within a
    key (disjoint ones, maximal ones, windows of one width)."""
    import numpy as np

    if not codes_only(df, right, cols=shared):
        return _matched(df, right, shared, way)
    n, m = df.height, right.height
    many = 4 * (n + m) + CODE_ROWS
    left_keys, right_keys = _arrays(df, shared), _arrays(right, shared)
    if way == "numpy":  # (the pairs by keys cost what counting them does: counted exactly)
        mine, theirs = _key_codes(left_keys, right_keys, n, m)
        order = np.argsort(theirs, kind="stable")
        ranked = theirs[order]
        lo = np.searchsorted(ranked, mine, "left")
        counts = np.searchsorted(ranked, mine, "right") - lo
        if int(counts.sum()) <= many:
            return np.repeat(np.arange(n), counts), order[ranges(lo, counts)]
    elif n * m <= many or _sampled_pairs(left_keys, right_keys, n, m) <= many:
        return _matched(df, right, shared, way)
    else:
        mine, theirs = _key_codes(left_keys, right_keys, n, m)
    got = _searched_pairs(mine, theirs, array(df, "s"), array(df, "e"), array(right, ends[0]), array(right, ends[1]))
    return _matched(df, right, shared, way) if got is None else got


def _sampled_pairs(left: list, right: list, n: int, m: int) -> float:
    """About how many pairs of rows of two frames of ``n`` and ``m`` rows
    have equal keys (``left``, ``right``: their key columns): from every
    k-th row of each, some 2,000 a side (a count by keys costs a polars
    group-by of each side, 60% of the join it would spare at 1M rows)."""
    import numpy as np

    step_n, step_m = max(1, n // 2048), max(1, m // 2048)
    a, b = _key_codes([c[::step_n] for c in left], [c[::step_m] for c in right], len(range(0, n, step_n)), len(range(0, m, step_m)))
    b = np.sort(b)
    hits = int((np.searchsorted(b, a, "right") - np.searchsorted(b, a, "left")).sum())
    return hits * (n / max(len(a), 1)) * (m / max(len(b), 1))


def _searched_pairs(mine, theirs, s, e, rs, re):
    """:func:`_meeting_pairs`' search: the pairs ``(i, j)`` of rows with
    equal keys (``mine``, ``theirs``) whose intervals (``s``, ``e`` and
    ``rs``, ``re``) may meet: of ``right`` sorted by key and start, the
    run from the first interval ending after the row's start (where ends
    run in the order of starts within a key: exactly those that meet) or
    else from the first starting less than the key's longest interval
    before it, to the last starting before the row's end.  None where
    neither search applies (times too far apart to subtract)."""
    import numpy as np

    by_start = sort_order([theirs], rs)  # (one argsort of a combined key: np.lexsort of two keys took 1.8x as long at 1M)
    key, start, end = theirs[by_start], rs[by_start], re[by_start]
    if len(key) == 0 or len(mine) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    new = np.empty(len(key), dtype=bool)
    new[0] = True
    np.not_equal(key[1:], key[:-1], out=new[1:])
    in_order = not np.any(~new[1:] & (end[1:] < end[:-1]))
    # (key, time) as one int64, the key's rank times the span of the times
    # plus the time, so that one search finds a row's key and time at once
    # (np.unique hashes: 1.2 s for 4M codes, where this takes a subtraction)
    keys, rank = key[new], np.cumsum(new) - 1
    at = np.minimum(np.searchsorted(keys, mine), len(keys) - 1)
    there = keys[at] == mine
    low = int(min(start.min(), s.min()))
    span = int(max(end.max(), e.max())) - low + 1
    if len(keys) * span >= 1 << 62:  # (times too far apart: their ranks instead, by a sort)
        if not in_order:
            return None
        times = np.sort(np.concatenate([start, end, s, e]))
        times = times[np.concatenate([[True], times[1:] != times[:-1]])]
        span, low = len(times) + 1, 0
        start, end, s, e = (np.searchsorted(times, t) for t in (start, end, s, e))
    starts = rank * span + (start - low)
    if in_order:
        first = np.searchsorted(rank * span + (end - low), at * span + (s - low), "right")  # (ends at or before the row's start: before it)
    else:
        longest = np.maximum.reduceat(end - start, np.flatnonzero(new))
        first = np.searchsorted(starts, at * span + (np.maximum(s - longest[at] + 1, low) - low), "left")  # (starts after s - longest)
    stop = np.searchsorted(starts, at * span + (e - low), "left")  # (starts before the row's end)
    counts = np.where(there, np.maximum(stop - first, 0), 0)
    return np.repeat(np.arange(len(mine)), counts), by_start[ranges(first, counts)]


def _key_codes(left: list, right: list, n: int, m: int):
    """One int64 per row of each side's key columns (``left``, ``right``:
    numpy arrays), equal where the keys are equal (no columns: all 0)."""
    import numpy as np

    if not left:
        return np.zeros(n, dtype=np.int64), np.zeros(m, dtype=np.int64)
    mine, theirs = packed(left), packed(right)
    if mine is None or theirs is None:
        ids = row_ids([np.concatenate([a, b]) for a, b in zip(left, right)])
        mine, theirs = ids[:n], ids[n:]
    return mine, theirs


def _matched(df, right, shared: list, way: str = "numpy"):
    """``(i, j)``: the pairs of rows of ``df`` and ``right`` equal on
    ``shared`` (every pair when there is none): by a sort of the keys in
    numpy (``way`` "numpy": codes, a few thousand rows), else by a polars
    hash join of the keys and row numbers, which a sort loses to 3-6x
    from 100,000 rows; the rest of each operation, on these pairs, runs in
    numpy either way (the polars queries it replaced cost as much at 1M-5M
    rows, 2-3 ms less at 100k: bench/frame_paths.py, docs/design.md)."""
    import numpy as np

    if not shared:
        return np.repeat(np.arange(df.height), right.height), np.tile(np.arange(right.height), df.height)
    if way == "numpy":
        return _pairs(_arrays(df, shared), _arrays(right, shared))
    m = df.select(shared).with_row_index("_i").join(right.select(shared).with_row_index("_j"), on=shared, how="inner")
    return tuple(m.get_column(c).to_numpy().astype(np.int64, copy=False) for c in ("_i", "_j"))


def meeting(df, other, names: list, way: str):
    """``(rows, s, e)``: per pair of a row of ``df`` and one of ``other``
    equal on ``names`` (of one kind on both sides; pairs found as ``way``
    says: :func:`_matched`) whose intervals meet, ``df``'s row and their
    common piece."""
    i, _, s, e = _met(df, other, *_meeting_pairs(df, other, names, way))
    return i, s, e


def taken(df, names: list, rows, s, e, codes: bool):
    """A frame of ``df``'s columns ``names`` at ``rows`` (``codes``: all
    codes, gathered as arrays) and the interval codes ``s``, ``e``."""
    return frame({**{c: array(df, c)[rows] if codes else _taken(df, c, rows) for c in names}, "s": s, "e": e})


def _met(df, other, i, j, ends=("s", "e")):
    """``(i, j, s, e)``: the pairs of rows ``i`` of ``df`` and ``j`` of
    ``other`` whose intervals (``other``'s ``ends``) meet, and their
    common piece."""
    import numpy as np

    s = np.maximum(array(df, "s")[i], array(other, ends[0])[j])
    e = np.minimum(array(df, "e")[i], array(other, ends[1])[j])
    keep = s < e
    return i[keep], j[keep], s[keep], e[keep]


def join(df, right, shared: list, way: str = "numpy"):
    """join.JoinNode's join: the pairs of a row of ``df`` and one of
    ``right`` that agree on ``shared`` (every pair when there is none; found
    as ``way`` says: :func:`_matched`), with the intersection of their
    intervals where it is not empty; ``df``'s columns, then ``right``'s
    others."""
    i, j, s, e = _met(df, right, *_meeting_pairs(df, right, shared, way))
    return _pair_frame(df, i, right, j, s, e)


def _pair_frame(df, i, right, j, s, e, skip=()):
    """The pairs of rows ``i`` of ``df`` and ``j`` of ``right`` as a frame:
    ``df``'s columns (``s``, ``e`` given), then ``right``'s others but
    ``skip``."""
    cols = {c: s if c == "s" else e if c == "e" else _taken(df, c, i) for c in df.columns}
    for c in right.columns:
        if c not in cols and c not in skip:
            cols[c] = _taken(right, c, j)
    return frame(cols)


def since(df, left, shared: list, offset, way: str = "numpy"):
    """since.SinceNode's step: each row ``J`` of ``df`` (B's) with each row
    of ``left`` (A's maximal intervals closed, ``cs``, ``ce``) that agrees
    on ``shared`` (pairs found as ``way`` says: :func:`_matched`):
    ``((Iᶜ ∩ J) ⊕ offset) ∩ Iᶜ`` where it is not empty; ``df``'s columns,
    then ``left``'s others but ``cs``, ``ce``.  None when no pair meets
    before the shift."""
    import numpy as np

    from ..interval_shift import clipped, shift

    i, j, s, e = _met(df, left, *_meeting_pairs(df, left, shared, way, ("cs", "ce")), ("cs", "ce"))
    if not len(i):
        return None
    memo: dict = {}
    ends = {**ends_arrays(dict(zip("se", shift(offset))), s, e, True), "cs": array(left, "cs")[j], "ce": array(left, "ce")[j]}
    s, e = (np.asarray(to_numpy(x, ends, memo)) for x in clipped())
    keep = s < e
    return _pair_frame(df, i[keep], left, j[keep], s[keep], e[keep], ("cs", "ce"))


# A finite end moved outside the codes ``(-LIMIT, LIMIT)`` (a finite end never reaches a sentinel)
_FAR = [call("abs", col(c)) for c in ("s", "e")]
_OUTSIDE = _FAR[0].ge(LIMIT).both(_FAR[0].ne(POS)).either(_FAR[1].ge(LIMIT).both(_FAR[1].ne(POS)))


def ends(df, named: dict, drop=(), moved: bool = False, cut: bool = False, way: str | None = None):
    """``df`` with the columns ``named`` ({name: Expr} over ``s``, ``e``:
    engine/interval_shift.py's trees, the lowering the Spark rounds share)
    for ``drop``'s, the trees emitted in numpy on a frame of codes up to
    :data:`CODE_ROWS` rows (``way`` None: :func:`path`; a polars query
    costs ~0.3 ms there) or in polars past them (numpy's temporaries cost
    1.1-4x).  ``moved`` (the ends ``s``, ``e`` shifted or boxed): Fallback
    where a finite end leaves the codes; ``moved`` or ``cut`` (to a
    horizon): empty rows dropped."""
    import polars as pl

    if (way or path(df)) == "numpy":
        cols = {c: array(df, c) for c in df.columns if c not in drop}
        cols.update(ends_arrays(named, array(df, "s"), array(df, "e"), moved))
        if (moved or cut) and not (keep := cols["s"] < cols["e"]).all():
            cols = {c: a[keep] for c, a in cols.items()}
        return frame(cols)  # (no with_columns and filter: queries)
    out = df.with_columns(*(to_polars(x, []).alias(n) for n, x in named.items()))
    if moved and out.height and out.select(to_polars(_OUTSIDE, []).any()).item():
        raise Fallback("a time point outside 64-bit codes")
    if moved or cut:
        out = out.filter(pl.col("s") < pl.col("e"))
    return out.drop(*drop) if drop else out


def ends_arrays(named: dict, s, e, moved: bool = False) -> dict:
    """:func:`ends` on the arrays ``s``, ``e``: ``{name: array}`` (no row dropped)."""
    import numpy as np

    memo: dict = {}
    got = {n: np.broadcast_to(np.asarray(to_numpy(x, {"s": s, "e": e}, memo), dtype=np.int64), s.shape) for n, x in named.items()}
    if moved and np.any(to_numpy(_OUTSIDE, got)):
        raise Fallback("a time point outside 64-bit codes")
    return got


def subtract(df, holes, keys: list, way: str = "numpy"):
    """difference.subtract: the rows of ``df`` minus the intervals
    ``holes`` (``hs``, ``he``; maximal per key, so those meeting a row are
    apart) of the same ``keys`` (pairs found as ``way`` says:
    :func:`_matched`); a row's pieces keep its other columns and are
    apart (rows of one atom that overlap, unlike a relation's, may each
    leave the same piece)."""
    import numpy as np

    i, j = _meeting_pairs(df, holes, keys, way, ("hs", "he"))
    s, e = array(df, "s"), array(df, "e")
    hs, he = array(holes, "hs")[j], array(holes, "he")[j]
    meet = (hs < e[i]) & (he > s[i])
    if not meet.any():
        return df
    i, hs, he = i[meet], hs[meet], he[meet]
    order = sort_order([i], hs)
    rows, s2, e2 = left_over(i[order], hs[order], he[order], s, e)
    met = np.zeros(df.height, dtype=bool)
    met[i] = True
    untouched = np.flatnonzero(~met)
    rows, s2, e2 = (np.concatenate([a[untouched], b]) for a, b in ((np.arange(df.height), rows), (s, s2), (e, e2)))
    return frame({c: s2 if c == "s" else e2 if c == "e" else _taken(df, c, rows) for c in df.columns})


def left_over(row, ps, pe, s, e):
    """``(row, s, e)`` of what is left of the rows met: each row ``row[k]``
    (of the intervals ``s``, ``e``) less its holes ``[ps[k], pe[k])``
    (disjoint, in start order within a row), in row order, then start
    order within a row."""
    import numpy as np

    from ..interval_difference import gap_start, last_hole

    order = np.argsort(row, kind="stable")  # (a row's holes stay in start order)
    row, ps, pe = row[order], ps[order], pe[order]
    # before each hole: from the row's start or the hole before's end; after
    # the last: up to the row's end (the windows the Spark rounds run too)
    # (both trees alive while one memo, keyed by their nodes' ids, serves them)
    arrays, memo, trees = {"_r": row, "s": s[row], "hs": ps, "he": pe}, {}, (gap_start(["_r"]), last_hole(["_r"]))
    gap_s, last = (to_numpy(t, arrays, memo) for t in trees)
    out_row = np.concatenate([row, row[last]])
    out_s = np.concatenate([gap_s, pe[last]])
    out_e = np.concatenate([ps, e[row[last]]])
    keep = out_s < out_e
    out_row, out_s, out_e = out_row[keep], out_s[keep], out_e[keep]
    order = np.argsort(out_row, kind="stable")  # (the gaps before the holes, then the one after the last)
    return out_row[order], out_s[order], out_e[order]


# Codes up to which :func:`matches` allocates a presence table (16 MB of bools).
TABLE_CODES = 1 << 24


def matches(df, keys, cols: list):
    """Per row of ``df`` (of any size), whether its one or two code columns
    ``cols`` are a row of ``keys``: a presence table of the first column's
    codes (dense from 0: one gather per row), the second checked by a
    sorted probe among the rows that pass (a polars ``is_in`` filter is a
    query of ~0.4 ms and more under load).  None when a column is not
    codes or a code reaches :data:`TABLE_CODES`."""
    import numpy as np

    if len(cols) > 2 or not codes_only(df, keys, cols=cols):
        return None
    first, wanted = array(df, cols[0]), array(keys, cols[0])
    if not len(first) or not len(wanted):
        return np.zeros(len(first), dtype=bool)
    if min(first.min(), wanted.min()) < 0 or max(first.max(), wanted.max()) >= TABLE_CODES:
        return None
    table = np.zeros(max(first.max(), wanted.max()) + 1, dtype=bool)
    table[wanted] = True
    mask = table[first]
    if len(cols) == 2:
        at = np.flatnonzero(mask)
        theirs, second = array(keys, cols[1]), array(df, cols[1])[at]
        if second.dtype == np.int64 and theirs.dtype == np.int64 and not (_codes_range(theirs) and _codes_range(second)):
            # (wide int64 keys, a float's bits: value_columns.float_keys) both
            # sides' values as dense ids, equal where they are, so the two
            # pack: a polars join of 1M readings took 0.13 s
            ids = row_ids([np.concatenate([theirs, second])])
            theirs, second = ids[: len(theirs)], ids[len(theirs):]
        probe, mine = packed([wanted, theirs]), packed([first[at], second])
        if probe is None or mine is None:
            return None
        probe = np.sort(probe)
        pos = np.minimum(probe.searchsorted(mine), len(probe) - 1)
        mask[at] = probe[pos] == mine
    return mask


def member(df, keys, names: list):
    """Per row of ``df``, whether its columns ``names`` are a row of ``keys``."""
    import numpy as np

    if not df.height or not keys.height:
        return np.zeros(df.height, dtype=bool)
    return ~_absent(*_both_ids(df, keys, names))
