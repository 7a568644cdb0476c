"""A join probe's large buckets, sorted by time.

A TemporalJoinNode finds the atoms matching a row through a hash index on
the bound arguments; a time series joined on its series name alone puts
every day of the series in one bucket, and scanning it for each row makes
the join quadratic.  For such buckets this index keeps the (transformed)
intervals sorted by start, so a probe only visits the intervals that can
meet the row's interval: starts in ``[lo - longest, hi]``.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from chronolog.language.timeline import NEG_INF, POS_INF

BIG = 64  # buckets at least this large are probed by time
# ... and buckets of at least FEW atoms holding at least BIG_INTERVALS
# intervals together (50 atoms of 32 intervals each, every atom scanned
# for each row: 4.8 s of a join of 16,000 rows, 0.3 s probed by time)
FEW, BIG_INTERVALS = 8, 256


def worth_indexing(atoms, bucket) -> bool:
    """Whether a bucket of matching atoms is probed by time: many atoms, or
    a few with many intervals together."""
    if len(bucket) >= BIG:
        return True
    if len(bucket) < FEW:
        return False
    return sum(len(atoms[t]) for t in bucket) >= BIG_INTERVALS


class TimeBucket:
    __slots__ = ("starts", "items", "longest")

    def __init__(self, pairs):
        pairs = sorted(pairs, key=lambda p: p[1][0])
        self.items = pairs
        self.starts = [iv[0] for _, iv in pairs]
        longest = 0
        for _, (lo, hi, _, _) in pairs:
            if lo == NEG_INF or hi == POS_INF:
                longest = POS_INF
                break
            if hi - lo > longest:
                longest = hi - lo
        self.longest = longest

    def overlapping(self, lo, hi):
        """The ``(terms, interval)`` pairs whose interval may meet [lo, hi]."""
        end = bisect_right(self.starts, hi)
        if self.longest == POS_INF or lo == NEG_INF:
            return self.items[:end]
        return self.items[bisect_left(self.starts, lo - self.longest) : end]


def time_bucket(atoms, bucket, transform, eq_checks) -> TimeBucket:
    pairs = []
    for terms in bucket:
        if eq_checks and any(terms[i] != terms[j] for i, j in eq_checks):
            continue
        ivs = atoms[terms] if transform is None else [r for r in map(transform, atoms[terms]) if r is not None]
        pairs.extend((terms, iv) for iv in ivs)
    return TimeBucket(pairs)


def shared_bucket(state, rel, probe, k, bucket, transform, eq_checks) -> TimeBucket:
    """The TimeBucket of one probe key, shared by every join node of the run
    that probes the same relation the same way (recursive rounds build new
    nodes; the relation they read may not have changed), rebuilt when the
    relation changes."""
    cache = getattr(state, "_time_buckets", None)
    if cache is None:
        cache = {}
        try:
            state._time_buckets = cache
        except AttributeError:  # pragma: no cover - a state without a __dict__
            return time_bucket(rel.atoms, bucket, transform, eq_checks)
    hit = cache.get((probe, k))
    if hit is not None and hit[0] == rel.version:
        return hit[1]
    tb = time_bucket(rel.atoms, bucket, transform, eq_checks)
    cache[(probe, k)] = (rel.version, tb)
    return tb
