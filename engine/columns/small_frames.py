"""Interval operations on small frames of codes, in Python rather than as
polars queries.

Every polars operation on a frame is a query with a fixed cost (~50 us
eager, ~0.3 ms as one optimised lazy query), whatever the frame's size.  An
update of a few facts makes frames of a few dozen rows, on which a
difference of intervals took about a dozen such queries; a loop over the
rows does it in a fraction of that.  Past :data:`SMALL_ROWS` rows numpy
(code_frames.py) is faster, so the callers come here only for
frames under it whose term and time columns are all integer codes.  Same
answers as the polars paths, up to row order (tests/test_small_frames.py).
The callers: difference.py, join.py and maintenance.py.
"""

from __future__ import annotations

from .native import int64_without_nulls

# Rows up to which a loop in Python beats the callers' other paths: numpy
# (code_frames.py) where the frames are codes, whose fixed cost is lower than
# polars' (load 5 on 2 cores, Python against numpy, in us: an overlap of 32
# rows on 32 63/60, of 128 239/68; a join 128/109 and 750/135; a subtraction
# 59/110 and 197/118; a distinct 31/22 and 69/25).
SMALL_ROWS = 32

# Operations that took each path so far (maintenance.py reports them per
# stratum; code_frames.path counts those it sends to numpy).
TALLY = {"python": 0, "numpy": 0, "polars": 0}


def fits(*frames) -> bool:
    """Whether ``frames`` are all at most :data:`SMALL_ROWS` rows of Int64
    columns only (term codes and times: no value or exact columns), without
    nulls (a polars join matches no null; a Python ``None`` equals itself)."""
    return all(f.height <= SMALL_ROWS and int64_without_nulls(f) for f in frames)


def small(*frames) -> bool:
    """:func:`fits`, counted in :data:`TALLY` (``polars`` when not)."""
    ok = fits(*frames)
    TALLY["python" if ok else "polars"] += 1
    return ok


def _frame(rows, schema):
    import polars as pl

    return pl.DataFrame(rows, schema=schema, orient="row")


def _by_atom(df, keys: list, s: str, e: str) -> dict:
    """``{atom: [(s, e)] sorted}`` of ``df``'s rows."""
    cols = df.columns
    at = [cols.index(k) for k in keys]
    i, j = cols.index(s), cols.index(e)
    out: dict = {}
    for row in df.iter_rows():
        out.setdefault(tuple(row[c] for c in at), []).append((row[i], row[j]))
    for ivs in out.values():
        ivs.sort()
    return out


def subtract(df, holes, keys: list):
    """difference.subtract: the rows of ``df`` minus the intervals ``holes``
    (``hs``, ``he``) of the same ``keys``; a row's pieces keep its other
    columns."""
    by = _by_atom(holes, keys, "hs", "he")
    cols = df.columns
    at = [cols.index(k) for k in keys]
    i, j = cols.index("s"), cols.index("e")
    out = []
    changed = False
    for row in df.iter_rows():
        s, e = row[i], row[j]
        ivs = [h for h in by.get(tuple(row[c] for c in at), ()) if h[0] < e and h[1] > s]
        if not ivs:
            out.append(row)
            continue
        changed = True
        at_ = s  # (holes sorted by start; overlapping holes are covered too)
        for hs, he in ivs:
            if hs > at_:
                out.append(_with(row, i, j, at_, hs))
            at_ = max(at_, he)
        if at_ < e:
            out.append(_with(row, i, j, at_, e))
    return _frame(out, df.schema) if changed else df


def _with(row, i, j, s, e) -> tuple:
    row = list(row)
    row[i], row[j] = s, e
    return tuple(row)


def overlap(df, other, names: list):
    """maintenance.overlap: per atom, the pieces of ``df``'s intervals that
    lie in ``other``'s (columns ``names``, ``s``, ``e``)."""
    by = _by_atom(other, names, "s", "e")
    out = []
    for atom, ivs in _by_atom(df, names, "s", "e").items():
        for os_, oe in by.get(atom, ()):
            out.extend((*atom, max(s, os_), min(e, oe)) for s, e in ivs if s < oe and os_ < e)
    return _frame(out, {**{n: df.schema[n] for n in names}, "s": df.schema["s"], "e": df.schema["e"]})


def overlapping(df, other, names: list):
    """maintenance.overlapping: the distinct rows (``names``, ``s``, ``e``) of
    ``df`` that meet an interval of ``other``."""
    by = _by_atom(other, names, "s", "e")
    out = {}
    for atom, ivs in _by_atom(df, names, "s", "e").items():
        others = by.get(atom, ())
        for s, e in ivs:
            if any(s < oe and os_ < e for os_, oe in others):
                out[(*atom, s, e)] = None
    return _frame(list(out), {**{n: df.schema[n] for n in names}, "s": df.schema["s"], "e": df.schema["e"]})


def distinct(df, cols: list, names: list | None = None):
    """The distinct rows of ``df``'s columns ``cols`` (named ``names``):
    maintenance.atoms_of and the keys of its semi-joins."""
    at = [df.columns.index(c) for c in cols]
    rows = dict.fromkeys(tuple(r[c] for c in at) for r in df.iter_rows())
    return _frame(list(rows), {n: df.schema[c] for n, c in zip(names or cols, cols)})


def anti(df, other):
    """The rows of ``df`` that are not rows of ``other`` (same columns)."""
    there = set(other.iter_rows())
    return _frame([r for r in df.iter_rows() if r not in there], df.schema)


def join(df, right, shared: list):
    """join.JoinNode's join: the pairs of a row of ``df`` and one of
    ``right`` that agree on ``shared`` (every pair when there is none), with
    the intersection of their intervals where it is not empty; ``df``'s
    columns, then ``right``'s others."""
    cols, rcols = df.columns, right.columns
    extra = [c for c in rcols if c not in shared and c not in ("s", "e")]
    at, rat = [cols.index(c) for c in shared], [rcols.index(c) for c in shared]
    rx, ri, rj = [rcols.index(c) for c in extra], rcols.index("s"), rcols.index("e")
    by: dict = {}
    for r in right.iter_rows():
        by.setdefault(tuple(r[c] for c in rat), []).append((tuple(r[c] for c in rx), r[ri], r[rj]))
    i, j = cols.index("s"), cols.index("e")
    out = []
    for row in df.iter_rows():
        for vals, rs, re in by.get(tuple(row[c] for c in at), ()):
            s, e = max(row[i], rs), min(row[j], re)
            if s < e:
                out.append(_with(row, i, j, s, e) + vals)
    return _frame(out, {**df.schema, **{c: right.schema[c] for c in extra}})
