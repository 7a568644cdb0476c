"""The segment tokens of a model on columns, for the search of where it repeats.

engine/periodic.py finds a repetition in the tokens of the model's segments
(:func:`~chronolog.engine.periodic.segment_tokens`): one per stretch
between consecutive interval ends, its length, the atoms holding at its left
end and those holding inside it, each set as a sum of random 64-bit numbers
per atom.  Here the same tokens come from the relations' frames: an atom's
numbers by its dense row id, the sums at each end by a sort of the ends and
cumulative sums (uint64, wrapping as the rows' sums are masked), so a
bounded attempt on columns is searched without a Python row per fact (its
rows, read back, were half the attempt's time: 20,000 keys, 700,000 facts).

The ends are in grid units (``L`` per time unit) and the tokens are small
integers, equal where the rows' tokens are equal (but for a 2**-128 chance
of two sets' sums meeting): :func:`~chronolog.engine.periodic.repetition_in`
finds the same repetition in them, in units.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..interval_codes import NEG, POS


def scaled(x, L):
    """A time (or a length) in grid units: exact, an int when whole, ±inf kept."""
    if x in (math.inf, -math.inf):
        return x
    v = Fraction(x) * L
    return v.numerator if v.denominator == 1 else v


def unscaled(x, L):
    """:func:`scaled` back: the engine's time, an int when whole."""
    if x in (math.inf, -math.inf):
        return x
    v = Fraction(x) / L
    return v.numerator if v.denominator == 1 else v


def segment_tokens(frames, L, lo_limit, hi_limit) -> tuple:
    """``(ends, tokens)`` of :func:`~chronolog.engine.periodic.segment_tokens`
    for the frames ``[(frame, arity)]`` of a store's relations (one a
    predicate) on a grid of ``L`` units a time unit, the ends in those
    units; tokens as ints (equal tokens, equal ints)."""
    import numpy as np

    from ..exprs import partition_starts
    from .code_frames import row_ids
    from .exact_columns import key_arrays
    from .relation import term_columns

    s_parts, e_parts, h_parts, atoms = [], [], [], 0
    for df, arity in frames:
        if not df.height:
            continue
        if arity:
            ids = row_ids([a for name in term_columns(arity) for a in key_arrays(df[name])])
        else:
            ids = np.zeros(df.height, dtype=np.int64)
        h_parts.append(ids + atoms)
        atoms += int(ids.max()) + 1
        s_parts.append(df["s"].to_numpy())
        e_parts.append(df["e"].to_numpy())
    if not atoms:
        return [], []
    numbers = np.random.default_rng(0x5EED).integers(0, 2**64 - 1, size=(atoms, 2), dtype=np.uint64, endpoint=True)
    s, e = np.concatenate(s_parts), np.concatenate(e_parts)
    h = numbers[np.concatenate(h_parts)]
    zero = np.zeros_like(h)
    hi_units = math.ceil(Fraction(hi_limit) * L)
    lo_units = math.ceil(Fraction(lo_limit) * L)
    lo, hi = s >> 1, e >> 1
    lo_fin, hi_fin = s != NEG, e != POS
    kept = ~lo_fin | (lo < hi_units)
    point = lo_fin & hi_fin & (lo == hi)  # a punctual interval: at its point only
    start = kept & lo_fin & ~point
    end = kept & ~point & hi_fin & (hi < hi_units)
    with np.errstate(over="ignore"):
        active0 = h[kept & ~lo_fin].sum(axis=0, dtype=np.uint64)
        open_start = (s & 1).astype(bool)
        closed_end = (e & 1).astype(bool)
        # per event: its time, what it adds to the atoms holding after it,
        # and what holds at its point beside those (at = after + closed ends
        # - open starts + points)
        x = np.concatenate([lo[start], lo[kept & point], hi[end]])
        after = np.concatenate([h[start], zero[kept & point], -h[end]])
        at = np.concatenate([np.where(open_start[start, None], -h[start], zero[start]), h[kept & point],
                             np.where(closed_end[end, None], h[end], zero[end])])
        if not len(x):
            return [], []
        order = np.argsort(x, kind="stable")
        x, after, at = x[order], after[order], at[order]
        first = np.flatnonzero(partition_starts([x], len(x)))
        points = x[first]
        after = np.cumsum(after, axis=0, dtype=np.uint64)[np.r_[first[1:], len(x)] - 1] + active0
        at = np.add.reduceat(at, first, axis=0, dtype=np.uint64) + after
    shown = points >= lo_units
    points, after, at = points[shown], after[shown], at[shown]
    if len(points) < 2:
        return points.tolist(), []
    rows = np.column_stack([np.diff(points).astype(np.uint64), at[:-1], after[:-1]])
    _, tokens = np.unique(rows, axis=0, return_inverse=True)
    return points.tolist(), tokens.reshape(-1).tolist()


def find_repetition(ev, t_data, hi, reach, multiple_of=None):
    """:func:`~chronolog.engine.periodic.find_repetition` of the model a
    columnar run ``ev`` (a HybridEvaluator whose every stratum ran on
    columns) holds: its relations' frames, its own and those it read."""
    from ..periodic import Repetition, repetition_in

    L = ev._time_scale().L
    frames = [(ev.table(p), ev._arity(p)) for p in ev.store.predicates()]
    ends, tokens = segment_tokens(frames, L, t_data, hi)
    rep = repetition_in(ends, tokens, scaled(t_data, L), scaled(hi, L), scaled(reach, L),
                        None if multiple_of is None else scaled(multiple_of, L))
    return None if rep is None else Repetition(unscaled(rep.start, L), None if rep.period is None else unscaled(rep.period, L))
