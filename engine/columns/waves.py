"""The sweep of recurrence.py in waves of numpy arrays, where each step keeps its atom.

A recurrence whose every step rule derives the atom it reads
(``p(X) :- <->[1,1] p(X), q(X).``: no condition, no assignment, the head's
terms the recursive atom's) over many keys is one chain per key; the heap
sweep took each piece in Python (1.4 million pieces, half of a cycle's
time over 20,000 keys).  Here the pieces are taken a *wave* at a time:
every pending piece that starts before the least start plus the least
shift ``d1`` of the steps.  No piece of a wave derives one starting inside
it (a shift moves a start by at least ``d1``), so the wave is final in
the order of start, as the heap's pieces are one by one: per atom, a
piece's part after the ends of the pieces before it (a running maximum)
is new, and the steps shift the new parts, meet their key's driver
intervals (coalesced, found by a vectorised bisection) and clip them to
the rules' horizons, all as arrays.  The union is the heap sweep's:
the steps are pointwise (a diamond, an intersection), so any split of
the pieces derives the same points.

Atoms are interned once, from the seeds (a step keeps its atom, so no
other comes up); fewer than :data:`WAVE_MIN_ATOMS` of them, equal seed
atoms of two types (``1`` and ``1.0``), a piece starting at ``-inf``
(its shift starts there again: a wave would not end) or waves of few
pieces (keys far apart in time: :data:`MIN_WAVE_PIECES`) leave the sweep
to the heap (``None``); recurrence.py asks only where every step keeps its
atom (planner/recurrence.keeps_its_atom).
"""

from __future__ import annotations

from .encoding import LIMIT, Fallback
from ..interval_codes import NEG, POS


# fewer distinct atoms than this: a wave holds too few pieces to pay for its
# numpy calls (a single chain, such as a counter's days: 0.8 s in waves, 0.02 s
# on the heap).  Measured with a horizon of 1,100 days: a chain of 35 pieces a
# key breaks even at 2,500 keys (0.22 against 0.31 s at 1,024), one repeating
# every day pays from 128 (0.65 against 2.5 s at 1,024)
WAVE_MIN_ATOMS = 1024
# ... and a sweep whose waves hold fewer pieces than this on average (keys
# far apart in time: each wave a few keys' pieces) goes back to the heap,
# checked after 64, 128, 256, ... waves: a wave costs about 0.1 ms of numpy
# calls, the heap a few microseconds a piece.  Chains of 36 pieces, CPU:
# 2,000 keys over 10^7 units, one piece a wave: 7.1 s in waves, 0.26 s on
# the heap (0.28 s with this check); 1,024 keys over 4,500 units, about 8
# a wave: 0.59 against 0.16 s (0.18); 2,500 over 1,100, about 80: 0.39
# against 0.38 s; 20,000 over 1,000, about 700: 1.7 against 3.5 s.  (The
# first waves of a run hold fewer, as its keys start: kept low.)
MIN_WAVE_PIECES = 8


def sweep(groups, atoms, s, e, depth, max_depth):
    """``(atoms, ids, s, e, derived)``: the distinct atoms, and the final
    pieces (each its atom's number in ``atoms``, arrays), how many of them
    rules derived; or None (the heap sweep's case).  ``groups``: ``[(lookup, key_of, d1, open1,
    d2, closed2, [(hs, he)])]`` (recurrence.sweep's, the rules' horizons);
    ``atoms``, ``s``, ``e``, ``depth``: the seed pieces, Python lists."""
    import numpy as np

    if not s or min(s) == NEG or len(set(atoms)) < WAVE_MIN_ATOMS:
        return None
    ids: dict = {}
    first: list = []
    aid = np.empty(len(atoms), dtype=np.int64)
    for i, atom in enumerate(atoms):
        k = ids.get(atom)
        if k is None:
            k = ids[atom] = len(first)
            first.append(atom)
        elif first[k] is not atom and repr(first[k]) != repr(atom):
            return None  # (the heap sweep keeps the first one taken, or falls back)
        aid[i] = k
    steps = [_Driver(g, first) for g in groups]
    steps = [d for d in steps if d.any]
    gap = min((d.d1 for d in steps), default=None)
    cov = np.full(len(first), NEG - 1, dtype=np.int64)  # per atom: the end of what is final
    pa, ps, pe, pd = aid, np.asarray(s, dtype=np.int64), np.asarray(e, dtype=np.int64), np.asarray(depth, dtype=np.int64)
    out_a, out_s, out_e = [], [], []
    derived = waves = taken = 0
    check = 64
    while len(ps):
        if gap is None:
            take = np.ones(len(ps), dtype=bool)
        else:
            take = ps < ps.min() + gap
        a, ws, we, wd = pa[take], ps[take], pe[take], pd[take]
        waves, taken = waves + 1, taken + len(a)
        if waves == check:
            if taken < MIN_WAVE_PIECES * waves:
                return None  # (waves too small to pay for themselves: the heap from the seeds)
            check *= 2
        rest = ~take
        pa, ps, pe, pd = pa[rest], ps[rest], pe[rest], pd[rest]
        a, ws, we, wd = _new_parts(a, ws, we, wd, cov)
        if not len(a):
            continue
        if max_depth is not None and int(wd.max()) >= max_depth:
            raise Fallback("a chain of derivations as long as the rows' round limit")
        out_a.append(a)
        out_s.append(ws)
        out_e.append(we)
        derived += int(np.count_nonzero(wd))
        made = [d.step(a, ws, we, wd + 1) for d in steps]
        pa, ps, pe, pd = (np.concatenate([x, *(m[i] for m in made)]) for i, x in enumerate((pa, ps, pe, pd)))
    return first, _cat(out_a), _cat(out_s), _cat(out_e), derived


def _cat(parts):
    import numpy as np

    return np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)


def _new_parts(a, s, e, d, cov):
    """The parts of a wave's pieces not covered by those before them (per
    atom, in order of start; an equal start: the lower depth first) nor by
    ``cov`` (updated)."""
    import numpy as np

    from chronolog.engine.exprs import partition_starts, running_max

    order = np.lexsort((d, s, a))
    a, s, e, d = a[order], s[order], e[order], d[order]
    starts = partition_starts([a], len(a))
    reach = running_max(np.cumsum(starts) - 1, e)
    before = np.empty_like(reach)
    before[0] = NEG - 1
    before[1:] = reach[:-1]
    before[starts] = NEG - 1
    before = np.maximum(before, cov[a])
    last = np.r_[np.flatnonzero(starts)[1:], len(a)] - 1
    cov[a[last]] = np.maximum(cov[a[last]], reach[last])
    new = e > before
    return a[new], np.maximum(s, before)[new], e[new], d[new]


class _Driver:
    """One group of steps: its shift, and per atom its key's driver
    intervals, coalesced, as one sorted array cut by ``offsets``."""

    def __init__(self, group, atoms):
        import numpy as np

        from chronolog.engine.exprs import partition_starts, running_max

        lookup, key_of, self.d1, self.open1, self.d2, self.closed2, self.horizons = group
        keys: dict = {}  # key -> its number among those the driver has (-1: none)
        self.key = np.empty(len(atoms), dtype=np.int64)
        ks, ss, es = [], [], []
        for i, atom in enumerate(atoms):
            k = key_of(atom)
            j = keys.get(k)
            if j is None:
                entry = lookup(k)
                j = keys[k] = len(ks) if entry is not None else -1
                if entry is not None:
                    ks.append(np.full(len(entry[0]), j, dtype=np.int64))
                    ss.append(entry[0])
                    es.append(entry[1])
            self.key[i] = j
        self.any = bool(ks)
        if not ks:
            return
        k = np.concatenate(ks)
        s = np.concatenate([np.asarray(x, dtype=np.int64) for x in ss])
        e = np.concatenate([np.asarray(x, dtype=np.int64) for x in es])
        # coalesced (each key's pieces in order of start): a run begins where a start passes the ends before it
        reach = running_max(k, e)
        run = partition_starts([k], len(k))
        run[1:] |= s[1:] > reach[:-1]
        firsts = np.flatnonzero(run)
        lasts = np.r_[firsts[1:], len(k)] - 1
        self.s, self.e, k = s[firsts], reach[lasts], k[firsts]
        self.offsets = np.searchsorted(k, np.arange(len(ks) + 1))

    def step(self, a, s, e, d):
        """The pieces the group's steps derive from the final pieces ``a, s, e`` (depth ``d``)."""
        import numpy as np

        k = self.key[a]
        has = k >= 0
        a, s, e, d, k = a[has], s[has], e[has], d[has], k[has]
        # the shift of interval_shift.shift (recurrence.sweep's, on arrays): starts are finite here
        s2 = (s & -2) + self.d1 + ((s & 1) | self.open1)
        if self.d2 is None:
            e2 = np.full_like(e, POS)
        else:
            fin = e != POS
            if fin.any() and int(e[fin].max()) + self.d2 + 1 >= LIMIT:
                raise Fallback("a time point outside 64-bit codes")
            e2 = np.where(fin, (e & -2) + self.d2 + (e & self.closed2), POS)
        if len(s2) and int(s2.max()) >= LIMIT:
            raise Fallback("a time point outside 64-bit codes")
        # the first driver interval of each piece's key ending after its start: a bisection on all at once
        lo, hi = self.offsets[k], self.offsets[k + 1]
        while True:
            open_ = lo < hi
            if not open_.any():
                break
            mid = (lo + hi) >> 1
            after = self.e[np.minimum(mid, len(self.e) - 1)] > s2
            hi = np.where(open_ & after, mid, hi)
            lo = np.where(open_ & ~after, mid + 1, lo)
        end = self.offsets[k + 1]
        parts = ([], [], [], [])
        j = lo
        while True:
            on = j < end
            on[on] = self.s[j[on]] < e2[on]
            if not on.any():
                break
            a, s2, e2, d, j, end = a[on], s2[on], e2[on], d[on], j[on], end[on]
            lo0, hi0 = np.maximum(self.s[j], s2), np.minimum(self.e[j], e2)
            for hs, he in self.horizons:
                lo1, hi1 = np.maximum(lo0, hs), np.minimum(hi0, he)
                keep = lo1 < hi1
                for out, x in zip(parts, (a, lo1, hi1, d)):
                    out.append(x[keep])
            j = j + 1
        empty = np.empty(0, dtype=np.int64)
        return [np.concatenate(p) if p else empty for p in parts]
