"""Coalescing to maximal intervals on the columns: the rows sorted by the
atom's columns and the start in numpy, the rows that begin a maximal
interval flagged by the windows of engine/coalescing.py (the Spark rounds'
too), each run reduced by ``reduceat``; and the seminaive merge of a
relation with its new facts, the sorts and the checks that a frame is
maximal already, which skip the work."""

from __future__ import annotations

from ..exprs import ranged_key


def coalesce(df, keys: list):
    """``df`` (columns ``keys`` + ``s``, ``e``) with each atom's intervals
    merged into maximal ones, sorted by ``keys`` then ``s``: in numpy, on
    the key arrays of every kind of column (codes, float values, exact
    pairs: :func:`_key_arrays`), one frame built (no polars sort, gather,
    column replacement)."""
    cols = [*keys, "s", "e"]
    if df.columns != cols:  # (a select is a polars query: skipped when it would change nothing)
        df = df.select(*cols)
    if df.height <= 1:
        return df
    s, e = df["s"].to_numpy(), df["e"].to_numpy()
    if _steps_maximal(_steps(df, keys), s, e):
        return df
    arrays, kinds = _key_arrays(df, keys)
    out_cols, s, e = coalesce_arrays(arrays, s, e)
    return _rebuild(kinds, keys, out_cols, s, e)


def _key_arrays(df, keys) -> tuple:
    """``(arrays, kinds)``: numpy arrays of the key columns, and per key
    what it gave: ``"codes"`` one (codes or floats), ``"exact"`` three for
    an exact value column (exact_columns.py: a key in value order, its
    numerator and its denominator), ``"whole"`` one for an exact column of
    whole numbers only, its numerators, which are that key (the
    denominators, all 1, made again by :func:`_rebuild`: a table's integer
    columns, each sorted and gathered three times and its key computed
    over the common denominator, were most of coalescing 20 of them)."""
    from .exact_columns import is_exact, key_arrays, parts, whole

    arrays, kinds = [], []
    for k in keys:
        if is_exact(df[k]):
            num, den = parts(df[k])
            if whole(num, den):
                arrays.append(num)
                kinds.append("whole")
                continue
            kinds.append("exact")
        else:
            kinds.append("codes")
        arrays.extend(key_arrays(df[k]))
    return arrays, kinds


def _rebuild(kinds: list, keys, arrays, s, e):
    """A frame from key arrays and their ``kinds`` (:func:`_key_arrays`),
    ``s``, ``e``."""
    import numpy as np

    from .base import frame_of_arrays

    out, it = [], iter(arrays)
    for kind in kinds:
        if kind == "exact":
            next(it)  # (the order key)
            out.append((next(it), next(it)))
        elif kind == "whole":
            num = next(it)
            out.append((num, np.ones(len(num), dtype=np.int64)))
        else:
            out.append(next(it))
    return frame_of_arrays(keys, out, s, e)


def coalesce_arrays(cols: list, s, e):
    """:func:`coalesce` on numpy arrays (integer term codes ``cols``, ``s``,
    ``e``), before any DataFrame is built: the given facts of a file
    (given.py).  One numpy sort instead of polars' sort, gather and column
    replacement (three queries of ~0.2 ms fixed cost each, per predicate)."""
    arrays = [*cols, s, e]
    del cols, s, e
    coalesce_owned(arrays)
    return arrays[:-2], arrays[-2], arrays[-1]


def coalesce_owned(arrays: list) -> None:
    """:func:`coalesce_arrays` of ``arrays`` (the key columns, then ``s``
    and ``e``) in place: each array is replaced by its sorted copy and then
    by its maximal rows one at a time, so when the caller holds no other
    reference only one array's copy is alive beside the others (the given
    frame of temporal LUBM 1M's takesCourse held every column three times)."""
    import numpy as np

    *cols, s, e = arrays
    n = len(s)
    if n <= 1 or _steps_maximal(key_steps(cols), s, e):
        return
    del cols, s, e
    # (rows of the same atom and start join whatever their order: any order of ties does)
    order = sort_order(arrays[:-2], arrays[-2], stable=False)
    for i in range(len(arrays)):
        arrays[i] = arrays[i][order]
    del order
    *cols, s, e = arrays
    starts = np.flatnonzero(run_starts(cols, s, e))
    del cols, s, e
    if len(starts) == n:  # every row maximal once sorted (facts of many arguments rarely meet): no copy of them
        return
    arrays[-1] = np.maximum.reduceat(arrays[-1], starts)
    for i in range(len(arrays) - 1):
        arrays[i] = arrays[i][starts]


def distinct(a):
    """The sorted distinct values of a numpy integer array, by a sort and
    one comparison: numpy 2.4's ``np.unique`` hashes integers, 10-100x
    slower here (2M int64 codes: 2.8 s against 0.02 s)."""
    import numpy as np

    a = np.sort(a)
    return a[np.concatenate(([True], a[1:] != a[:-1]))] if len(a) else a


def stable_argsort(key):
    """``np.argsort(key, kind="stable")`` of an int64 array, by whichever of
    two ways is faster on this machine: numpy's stable sort (timsort, which
    gains from runs: an aggregate's answers in time order within a group,
    as a rolling mean's, are long rising and falling runs), or numpy's
    default sort with the ties put back in index order.  Which wins depends
    on the CPU, not on the data alone: where numpy's default sort is a SIMD
    sort (AVX-512 on Intel) it took 1.3 ms on 100,000 rolling sums against
    the stable one's 9 ms; on AMD's Zen 4, where it is not, 4.5 ms against
    2.4 ms, and tie-heavy keys (values of two decimals) cost the default
    way 3-4 ms more.  So the first large sort of each kind of key (short
    or long runs) in a process times both, on that key (both give the same
    order), and the faster serves the later ones."""
    import numpy as np

    if len(key) < _TIMED_FROM:
        return _default_then_ties(key)
    if few_runs(key):
        return _timsort(key)
    steps = np.sign(np.diff(key))  # (a difference that wraps around only misjudges the runs)
    steps = steps[steps != 0]
    long_runs = len(key) >= 4 * (1 + int(np.count_nonzero(steps[1:] != steps[:-1])))  # (4 rows a run or more)
    way = _FASTER.get(long_runs)
    if way is not None:
        return way(key)
    import time

    took = {}
    for way in (_default_then_ties, _timsort):
        t = time.perf_counter()
        order = way(key)
        took[way] = time.perf_counter() - t
    _FASTER[long_runs] = min(took, key=took.get)
    return order


def argsort(key, stable: bool = True):
    """``np.argsort`` of an integer key, stable or not (ties in either
    order), by timsort where the key is a few sorted runs: a relation and
    its new rows, each sorted, or rows sorted but for a few.  There
    timsort merges the runs (1,966,618 rows of three runs: 12 ms against
    123 ms by numpy's default sort on this AMD Zen 4; a SIMD sort still
    sorts them all), whatever the CPU."""
    import numpy as np

    return np.argsort(key, kind="stable" if stable or few_runs(key) else None)


def few_runs(key) -> bool:
    """Whether ``key`` is a few sorted runs: at most one row in 1,024 is
    less than the one before (one comparison pass, 0.45 ms on 2M rows)."""
    import numpy as np

    return len(key) >= 4096 and np.count_nonzero(key[1:] < key[:-1]) * 1024 <= len(key)


_TIMED_FROM = 16384  # keys shorter than this sort in well under a millisecond either way
_FASTER: dict = {}  # long runs (bool) -> the faster way on this machine, once timed


def _timsort(key):
    import numpy as np

    return np.argsort(key, kind="stable")


def _default_then_ties(key):
    """numpy's default sort, then each tied run sorted again by its index."""
    import numpy as np

    order = np.argsort(key)
    ties = tied_runs(key[order])
    if ties is not None:
        at, run = ties
        sub = order[at]
        order[at] = sub[np.argsort(run * len(key) + sub)]  # (unique: no tie left; fits int64 below 3e9 rows)
    return order


def tied_runs(ranked):
    """``(at, run)`` of the sorted keys ``ranked``: where the rows that tie
    with a neighbour are, and each one's run of equal keys (numbered in key
    order); None when no key repeats."""
    import numpy as np

    tie = ranked[1:] == ranked[:-1]
    if not tie.any():
        return None
    in_run = np.zeros(len(ranked), dtype=bool)  # the rows of a tied run
    in_run[1:] = tie
    in_run[:-1] |= tie
    at = np.flatnonzero(in_run)
    tied = ranked[at]
    return at, np.cumsum(np.concatenate(([0], tied[1:] != tied[:-1])))


def sort_order(cols: list, s, stable: bool = True):
    """The stable order by ``cols`` then ``s``: one argsort of a combined
    key when the ranges fit in 63 bits, else ``np.lexsort`` of the keys
    packed as few as fit (:func:`packed_keys`).  ``stable=False`` may order
    ties either way: numpy's default sort, up to 3x faster on rows in no
    order, but timsort where they are a few sorted runs (:func:`argsort`)."""
    import numpy as np

    from ..interval_codes import NEG

    if not len(s):
        return np.zeros(0, dtype=np.intp)
    if len(s) < FEW_ROWS:  # (np.lexsort of a few rows: 1 us, where the keys' ranges and packing cost 14)
        return np.lexsort((s, *reversed(cols)))
    if int(s.min()) == NEG:  # an unbounded start just below the least finite one (else no mask, no copy)
        finite = s[s > NEG]
        s = np.maximum(s, int(finite.min()) - 1 if len(finite) else 0)
    key = combined_key([*cols, s])
    if key is not None:
        return argsort(key, stable)
    keys = packed_keys([*cols, s])
    return lex_order(keys, stable) if keys is not None else np.lexsort((s, *reversed(cols)))


FEW_ROWS = 256  # rows sorted by np.lexsort as they are (sort_order)


def packed_keys(keys):
    """The integer ``keys`` (the first key first) as fewer int64 keys in the
    same lexicographic order: consecutive keys combined (:func:`combined_key`)
    while their ranges fit 62 bits; floats by their order key (:func:`int_key`:
    a float column sent 1M fills of the as-of recipe to ``np.lexsort`` of
    six keys, 0.33 s against 0.10 s); a key wider than 62 bits alone is
    itself.  None when a key is neither (a NaN, another type)."""
    out, group, total = [], [], 1
    for k in keys:
        k = int_key(k)
        if k is None:
            return None
        span = int(k.max()) - int(k.min()) + 1 if len(k) else 1
        if total * span > 1 << 62 and group:
            out.append(_packed(group))
            group, total = [], 1
        group.append(k)
        total *= span
    out.append(_packed(group))
    return out


def _packed(group):
    """One int64 key of ``group`` (:func:`combined_key`), or its one key."""
    key = combined_key(group)
    return group[0] if key is None and len(group) == 1 else key


def lex_order(keys, stable: bool = True):
    """The stable order by the int64 ``keys`` (the first key first): one
    stable argsort of the first, then the rows it ties sorted by the rest
    (``np.lexsort`` of those rows).  ``np.lexsort`` of every row costs a
    pass per key where the first key nearly always decides: the 12
    arguments and start of 200,000 facts took 250 ms as 13 keys.
    ``stable=False``: rows tied in every key in either order (the first
    key by numpy's quicksort: 25 against 10 ms there)."""
    import numpy as np

    order = argsort(keys[0], stable)
    ties = tied_runs(keys[0][order]) if len(keys) > 1 else None
    if ties is None:
        return order
    at, run = ties
    sub = order[at]  # (within a run in row order: the argsort is stable)
    rest = [k[sub] for k in keys[1:]]
    key = combined_key([run, *rest])
    if key is None:  # (a wide key, as a float column's order key, by its dense ranks: one sort of it, where
        from .code_frames import row_ids  # np.lexsort of three keys of 1M facts tied in their first took 0.33 s, this 0.2)

        key = combined_key([run, *(row_ids([k]) if len(k) and int(k.max()) - int(k.min()) >= len(k) else k for k in rest)])
    order[at] = sub[np.argsort(key, kind="stable") if key is not None else np.lexsort((*reversed(rest), run))]
    return order


def combined_key(keys):
    """One int64 key in the order of ``keys`` (the first key first), when
    the keys are integers (or floats, :func:`int_key`) whose ranges fit 63
    bits together (engine/exprs.ranged_key; a group and an exact sum: one
    argsort, 2-3x faster than ``np.lexsort`` of the two); else None."""
    ints = [int_key(k) for k in keys]
    got = ranged_key(ints) if all(k is not None for k in ints) else None
    return None if got is None else got[0]


def int_key(k):
    """An integer array in the order of ``k`` with equal values equal: ``k``
    itself (signed integers), or for floats :func:`exact_columns.float_order_key`;
    None with a NaN or another type.  Float
    answers of one binade span 2**52, so a group and a float aggregate
    within a few binades still make one argsort key, where ``np.lexsort``
    of the floats took twice as long (a rolling mean over 500,000 days)."""
    import numpy as np

    if k.dtype.kind == "i":  # (text_out's ranks are int32)
        return k
    if k.dtype != np.float64 or np.isnan(k).any():
        return None
    from .exact_columns import float_order_key

    return float_order_key(k)


def key_steps(cols: list):
    """Per array of ``cols``, ``(greater, equal)`` of each row against the
    one before (a generator: one key's at a time)."""
    return ((c[1:] > c[:-1], c[1:] == c[:-1]) for c in cols)


def ordered_steps(n: int, steps):
    """``(greater, equal)`` of each of ``n`` rows against the one before,
    in the order of the keys whose ``steps`` (:func:`key_steps`) are given."""
    import numpy as np

    greater = np.zeros(n - 1, dtype=bool)
    equal = np.ones(n - 1, dtype=bool)
    for g, q in steps:
        greater |= equal & g
        equal &= q
    return greater, equal


def run_starts(cols: list, s, e):
    """For rows sorted by the atom's columns ``cols`` (numpy arrays) then the
    start ``s``: a flag on each row that begins a maximal interval
    (engine/coalescing.py, shared with the Spark rounds)."""
    from chronolog.engine.coalescing import joins_interval
    from chronolog.engine.exprs import to_numpy

    names = [f"k{i}" for i in range(len(cols))]
    import numpy as np

    joins = to_numpy(joins_interval(names), {**dict(zip(names, cols)), "s": s, "e": e})
    return np.logical_not(joins, out=joins)


def _steps(df, keys):
    """Per key column, ``(greater, equal)`` of each row against the one
    before (an exact column compares its values: exact_columns.steps)."""
    from .exact_columns import is_exact, parts, steps, whole

    out = []
    for k in keys:
        col = df[k]
        if is_exact(col):
            num, den = parts(col)
            out.extend(key_steps([num]) if whole(num, den) else [steps(num, den)])  # (whole numbers: their numerators)
        else:
            out.extend(key_steps([col.to_numpy()]))
    return out


def _steps_maximal(steps, s, e) -> bool:
    """Whether rows whose keys step as ``steps`` (:func:`key_steps`) hold
    each atom's intervals in order and apart: maximal already."""
    greater, equal = ordered_steps(len(s), steps)
    return bool((greater | (equal & (s[1:] > e[:-1]) & (s[:-1] < e[:-1]))).all())


def merge_new(old, parts: list, keys: list):
    """``old`` (coalesced) with the frames ``parts`` merged in: ``(merged,
    new)``, ``merged`` as :func:`coalesce` gives it and ``new`` its rows that
    are not rows of ``old`` (the seminaive delta).  The list ``parts`` may
    be emptied, so that frames nobody else holds are freed once read.  A merged interval is old
    exactly when an old row of its atom has its start and end: that row lies
    in the run of rows merged into it, so one flag per row and one
    ``reduceat`` per run find them, instead of a hash anti-join of the merged
    relation with the old one (whose hash tables were the peak memory of a
    recursion: the sampled peak of temporal LUBM 10M fell from 1.68 to
    1.15 GB)."""
    import polars as pl

    kinds = dict(old.schema)
    if old.height == 0 and parts and all(dict(p.schema) == kinds for p in parts):
        # a relation's first derivations (every stratum of a program without
        # recursion): all new, coalesced alone; no empty frame concatenated, no flags
        cols = [*keys, "s", "e"]
        parts = [p if p.columns == cols else p.select(*cols) for p in parts]
        stacked = parts[0]
        for p in parts[1:]:  # (chunks appended, no query: coalesce reads the columns once, in numpy)
            stacked = stacked.vstack(p)
        merged = coalesce(stacked, keys)
        return merged, merged
    # handed over in one list that the merge empties: no frame of this
    # call keeps a reference while it sorts (the caller passes its last)
    frames, n_old = [old, *parts], old.height
    from .exact_columns import is_exact

    exact = any(is_exact(f[k]) for f in frames for k in keys)
    del old
    parts.clear()
    if exact:  # (an exact column's order key is per frame: the frames stacked first)
        frames = [pl.concat(frames, how="vertical_relaxed").select(*keys, "s", "e")]
    return _merge_new_arrays(frames, keys, n_old)


def _merge_new_arrays(frames, keys, n_old):
    """:func:`merge_new` of ``frames`` (the old relation's ``n_old`` rows
    first) in numpy: each key array concatenated once, one argsort of a
    combined key (:func:`sort_order`) and a gather per column, freed column
    by column, instead of polars' concatenation, multi-column sort (its
    row-encoded keys) and gather, which were alive together: the peak of
    temporal LUBM 1M's memberOf recursion.  The list is emptied once its
    columns are read: the old relation, which merge_new's own argument kept
    alive through the sort, is freed there (LUBM 1M rec: 144-145 -> 140
    MiB)."""
    import numpy as np

    by_frame = [_key_arrays(f, keys) for f in frames]
    kinds = by_frame[0][1]  # (alike: exact columns come in one frame, merge_new)
    cols = [np.concatenate(c) for c in zip(*(arrays for arrays, _ in by_frame))]
    del by_frame
    s = np.concatenate([f["s"].to_numpy() for f in frames])
    e = np.concatenate([f["e"].to_numpy() for f in frames])
    frames.clear()  # (the old relation and the parts: freed here when the caller passed its last references)
    if len(s) <= 1 or _steps_maximal(key_steps(cols), s, e):  # (as they were: the parts' rows are new)
        merged = _rebuild(kinds, keys, cols, s, e)
        return merged, merged.slice(n_old)
    s, e, fresh = merge_owned(cols, s, e, n_old)
    merged = _rebuild(kinds, keys, cols, s, e)
    new = _rebuild(kinds, keys, [c[fresh] for c in cols], s[fresh], e[fresh])  # (a numpy gather: a polars filter is a query)
    del cols, s, e
    return merged, new


def merge_owned(cols: list, s, e, n_old: int):
    """The merge of :func:`merge_new` on arrays whose first ``n_old`` rows
    are the old relation's: sorts and coalesces them, the key columns
    ``cols`` replaced in place one at a time (one column's copy alive at a
    time); returns the merged ``s``, ``e`` and a flag per merged row that is
    not a row of the old relation (the delta)."""
    import numpy as np

    order = sort_order(cols, s)
    is_old = order < n_old
    for i in range(len(cols)):
        cols[i] = cols[i][order]
    s, e = s[order], e[order]
    del order
    first = run_starts(cols, s, e)
    starts = np.flatnonzero(first)
    group_e = np.maximum.reduceat(e, starts)
    group = np.cumsum(first) - 1
    del first
    same = is_old & (s == s[starts][group]) & (e == group_e[group])
    del group, is_old
    unchanged = np.logical_or.reduceat(same, starts)
    del same
    for i in range(len(cols)):
        cols[i] = cols[i][starts]
    return s[starts], group_e, ~unchanged
