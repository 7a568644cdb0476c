"""TemporalJoinNode: joins each incoming row with the matching facts of a
stored relation and intersects their intervals.

The relation side is probed through a hash index on the bound argument
positions, built on first use while scanning the relation and maintained by
the store as facts arrive.  A box or shift on the joined literal is applied
to the relation's maximal intervals (cached per atom until the relation
changes), and so is a time grouping (a re-derivation joins a grouped atom
after the scan of the atoms it re-derives, engine/rows/maintenance.py)."""

from __future__ import annotations

from bisect import bisect_left

from chronolog.language import ast

from .input import OLD, AtomPattern
from ..node import MapNode
from .temporal import interval_transform
from .time_index import FEW, shared_bucket, worth_indexing


def key_function(pattern: AtomPattern):
    """Build (positions, fn binding -> index key, slots) for a probe:
    ``slots`` the binding's position that is the key, or the tuple of
    positions whose values are, when no constant is part of it (else
    None): a batch's keys then read without a call a row (:func:`batch_keys`)."""
    parts = sorted([(i, ("const", v)) for i, v in pattern.const_checks] + [(i, ("slot", s)) for i, s in pattern.bound_checks])
    positions = tuple(i for i, _ in parts)
    sources = [src for _, src in parts]
    if len(sources) == 1:
        kind, x = sources[0]
        if kind == "const":
            return positions, (lambda b, _x=x: _x), None
        return positions, (lambda b, _s=x: b[_s]), x
    if all(kind == "slot" for kind, _ in sources):
        slots = tuple(x for _, x in sources)
        return positions, (lambda b: tuple([b[s] for s in slots])), slots

    def key(b):
        return tuple([x if kind == "const" else b[x] for kind, x in sources])

    return positions, key, None


def batch_keys(batch, key, slot) -> list:
    """The probe key of each row of ``batch`` (made once: read ahead, then probed)."""
    if type(slot) is int:
        return [b[slot] for b, _ in batch]
    if slot is not None and len(slot) == 2:
        i, j = slot
        return [(b[i], b[j]) for b, _ in batch]
    return [key(b) for b, _ in batch]


LONG = 32  # an atom with this many intervals is probed by bisection, not scanned


def intervals_meeting(ivs, ends_cache, lo, hi):
    """The intervals of ``ivs`` that can meet ``[lo, hi]``.  ``ivs`` is one
    atom's maximal intervals, maybe under one box or shift: their starts are
    sorted and so are their ends, so the ones meeting a row are a slice,
    found by bisection (a long series joined row by row stays linear).  The
    ends are kept per list while the relation does not change."""
    got = ends_cache.get(id(ivs))
    if got is None or got[0] is not ivs:
        got = ends_cache[id(ivs)] = (ivs, [x[1] for x in ivs])
    ends = got[1]
    i = bisect_left(ends, lo)
    j = i
    n = len(ivs)
    while j < n and ivs[j][0] <= hi:
        j += 1
    return ivs[i:j]


class TemporalJoinNode(MapNode):
    def __init__(self, child, pred, terms, bound_slots, view, state, box_w=None, shift_w=None, group=None):
        super().__init__(child)
        self.pred, self.terms, self.view, self.state = pred, terms, view, state
        self.pattern = AtomPattern(terms, bound_slots)
        self.positions, self.key, self.slot = key_function(self.pattern)
        self.box_w, self.shift_w, self.group = box_w, shift_w, group
        self.transform = interval_transform(box_w, shift_w, group)
        self._cache = {}
        self._cache_version = None
        self._by_time = {}  # bucket key -> TimeBucket, for large buckets (engine/time_index.py)
        self._ends = {}  # id of a long interval list -> (the list, its ends), see intervals_meeting
        self._ends_version = None
        self._time_key = (pred, self.positions, box_w, shift_w, group, tuple(self.pattern.eq_checks))

    def label(self) -> str:
        ops = []
        if self.box_w is not None or self.shift_w is not None or self.group is not None:
            from .temporal import TemporalNode

            ops.append(TemporalNode.label(self).replace("Temporal ", ""))
        extra = f" ({', '.join(ops)})" if ops else ""
        on = ", ".join(str(self.terms[i]) for i in self.positions) or "nothing (cross product)"
        return f"TemporalJoin[{self.view}] {ast.Atom(self.pred, self.terms)}{extra} on {on}"

    def process(self, batch):
        rel = self.state.store.get(self.pred)
        if rel is None or not rel.atoms:
            return []
        index = rel.index(self.positions)
        keys = batch_keys(batch, self.key, self.slot)
        rel.read_ahead(self.positions, keys)
        atoms = rel.atoms
        delta = self.state.delta_of(self.pred) if self.view == OLD else None
        transform = self.transform
        if self._cache_version != rel.version:
            self._cache = {}
            self._by_time = {}
            self._cache_version = rel.version
        by_time = self._by_time
        cache = self._cache
        pat = self.pattern
        eq_checks = pat.eq_checks
        newpos = pat.new_positions
        single = newpos[0] if len(newpos) == 1 else None
        out = []
        append = out.append
        ends_cache = self._ends
        # pieces loaded raw (placement minimal) may overlap and be unsorted
        sorted_ivs = not getattr(rel, "raw", False)
        if self._ends_version is not rel.version:
            ends_cache.clear()
            self._ends_version = rel.version
        for (b, iv), k in zip(batch, keys):
            bucket = index.get(k)
            if not bucket:
                continue
            lo, hi, lc, hc = iv
            if not delta and len(bucket) >= FEW:
                tb = by_time.get(k)
                if tb is None:  # (False: a bucket not worth it, decided once per relation version)
                    tb = by_time[k] = worth_indexing(atoms, bucket) and shared_bucket(self.state, rel, self._time_key, k, bucket, transform, eq_checks)
            else:
                tb = False
            if tb:
                for terms, (jlo, jhi, jlc, jhc) in tb.overlapping(lo, hi):
                    # the same intersection as below
                    if jlo > lo:
                        rlo, rlc = jlo, jlc
                    elif jlo < lo:
                        rlo, rlc = lo, lc
                    else:
                        rlo, rlc = lo, lc and jlc
                    if jhi < hi:
                        rhi, rhc = jhi, jhc
                    elif jhi > hi:
                        rhi, rhc = hi, hc
                    else:
                        rhi, rhc = hi, hc and jhc
                    if rlo < rhi or (rlo == rhi and rlc and rhc):
                        if not newpos:
                            nb = b
                        elif single is not None:
                            nb = b + (terms[single],)
                        else:
                            nb = b + tuple([terms[p] for p in newpos])
                        append((nb, (rlo, rhi, rlc, rhc)))
                continue
            for terms in bucket:
                if eq_checks and any(terms[i] != terms[j] for i, j in eq_checks):
                    continue
                if transform is None:
                    ivs = atoms[terms]
                else:
                    ivs = cache.get(terms)
                    if ivs is None:
                        ivs = [r for r in map(transform, atoms[terms]) if r is not None]
                        cache[terms] = ivs
                fresh = False
                if delta:
                    d = delta.get(terms)
                    if d is not None:
                        ivs = [x for x in (atoms[terms]) if x not in d]
                        if transform is not None:
                            ivs = [r for r in map(transform, ivs) if r is not None]
                        fresh = True
                if len(ivs) >= LONG and sorted_ivs and not fresh:
                    ivs = intervals_meeting(ivs, ends_cache, lo, hi)
                if not newpos:
                    nb = b
                elif single is not None:
                    nb = b + (terms[single],)
                else:
                    nb = b + tuple([terms[p] for p in newpos])
                for jlo, jhi, jlc, jhc in ivs:
                    # inline interval intersection (hot loop)
                    if jlo > lo:
                        rlo, rlc = jlo, jlc
                    elif jlo < lo:
                        rlo, rlc = lo, lc
                    else:
                        rlo, rlc = lo, lc and jlc
                    if jhi < hi:
                        rhi, rhc = jhi, jhc
                    elif jhi > hi:
                        rhi, rhc = hi, hc
                    else:
                        rhi, rhc = hi, hc and jhc
                    if rlo < rhi or (rlo == rhi and rlc and rhc):
                        append((nb, (rlo, rhi, rlc, rhc)))
        return out
