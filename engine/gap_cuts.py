"""Cutting the long gaps out of the timeline of a stratum that stays in time.

A stratum whose recursion does not move time derives at ``x`` from its
inputs within its reach of ``x`` (:func:`.termination._two_sided`), and so
it was evaluated over the whole span of its inputs' events, listing every
instance of the facts it reads that repeat: ``d(X) :- p(X), clock.`` over
``p`` at 0 and at 10^8 and a ``clock`` every 2 unrolled 5 * 10^7 of them
and was refused; 10^7 apart took 4.7 s and 1.6 GB, cut 0.10 s and 20 MB
(bench/gap_cuts.py).

Why a cut is exact.  Between two consecutive events ``e < n`` of the inputs
(finite interval ends; the first instance of a fact that repeats) every
input fact either holds throughout or not at all, or repeats across the
gap, so the inputs on ``(e, n)`` repeat with ``P``: the lcm of those
facts' periods and of the time groupings' cycles.  Delete ``[c, c + s)``
from the timeline, ``s`` a multiple of ``P``, ``c`` and ``c + s`` more than
the reach and a period inside the gap: the inputs ``I'`` left look near
every point as ``I`` does near the point it came from, so the model ``M'``
of ``I'`` is the model ``M`` with ``[c, c + s)`` deleted, and ``M`` on
``[c, c + s)`` repeats ``M'`` on ``[c, c + P)``.  That needs the stratum's
model to move with its inputs: no rule puts time into terms or builds an
interval from terms, and no labelled nulls.

Putting the answer back: an interval is split at each cut and its later
parts moved by the cuts before them; ``[c, c + s)`` is filled with copies
of what holds on ``[c, c + P)``; a fact that repeats across a cut stays
as it is where its period divides ``P`` (it then repeats with ``P`` there
too, as the model does).  Where it does not, or the filling would list
more than :data:`~.periodic.MAX_INSTANCES` pieces, :func:`put_back` gives
up and the stratum is evaluated uncut (one atom's that many is refused:
its inputs' instances over the span are as many).
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

from chronolog.language.text import format_atom
from chronolog.language.timeline import coalesce, intersect, make
from chronolog.planner.fragment import group_period, lcm_of
from chronolog.planner.physical import CaptureTime, ChaseStep, PlaceInterval, WrapInterval, is_since_until, rule_operator

from .periodic import MAX_INSTANCES, Repeating, listing_refused, moved
from .store import Store

INF = math.inf
# a gap is cut where it spans at least this many of its period: below, the
# instances in it cost less than the cut's second look at the answer
MIN_CUT_PERIODS = 1024


@dataclass
class Cuts:
    """The timeline with ``[c, c + s)`` deleted for each ``(c, s, P)`` of
    ``cuts`` (``c`` in the cut timeline, increasing), and the inputs on it."""

    cuts: list
    core: dict
    reps: dict

    @property
    def total(self):
        return sum(s for _, s, _ in self.cuts)


def cut(plan, core, reps, reach, ends) -> Cuts | None:
    """The inputs with their long gaps cut, or None where no gap is worth
    cutting or the stratum's model need not move with its inputs.
    ``ends``: the inputs' finite ends, the first instances' of ``reps``
    (termination._ends)."""
    if not reps or not ends or reach in (INF, -INF) or isinstance(reach, float):
        return None
    spans = [(r.iv, r.period) for by in reps.values() for rs in by.values() for r in rs]
    if any(q == 0 or iv[0] in (INF, -INF) or iv[1] in (INF, -INF) for iv, q in spans):
        return None
    least = 2 * (4 * reach + 4) + MIN_CUT_PERIODS * min(abs(q) for _, q in spans)  # (the narrowest gap worth a cut)
    if max(ends) - min(ends) < least or not _moves_with_inputs(plan):
        return None  # (most strata: their data spans less, decided without sorting their events)
    if any(isinstance(x, float) for x in ends):  # (x - s would round)
        return None
    try:
        g = group_period(plan.rules)
    except ValueError:
        return None
    events = sorted(set(ends))
    removed = []  # (c, s, P) on the whole timeline
    for e, n in zip(events, events[1:]):
        if n - e < least:
            continue  # (only wide gaps read the repeating facts: one pass over them a gap was quadratic)
        periods = set()
        for iv, q in spans:
            if iv[0] <= e and iv[1] >= n:  # its first instance spans the gap: later ones fall anywhere
                periods = None
                break
            if (q > 0 and iv[1] <= e) or (q < 0 and iv[0] >= n):
                periods.add(abs(q))
        if not periods:
            continue
        P = lcm_of(periods | ({g} if g else set()))
        margin = 4 * reach + 4 * P + 4
        k = (n - e - 2 * margin) // P
        if k >= MIN_CUT_PERIODS:
            removed.append((e + margin, k * P, P))
    if not removed:
        return None
    segments = _segments([(c, c + s) for c, s, _ in removed], [s for _, s, _ in removed])
    cuts, shift = [], 0
    for c, s, P in removed:
        cuts.append((c - shift, s, P))
        shift += s
    cut_core = {}
    for p, atoms in core.items():
        rel = {}
        for t, ivs in atoms.items():
            out = coalesce([x for iv in ivs for x in _split(iv, segments, -1)])
            if out:
                rel[t] = out
        if rel:
            cut_core[p] = rel
    cut_reps = {p: {t: [Repeating(_split(r.iv, segments, -1)[0], r.period) for r in rs] for t, rs in by.items()}
                for p, by in reps.items()}
    return Cuts(cuts, cut_core, cut_reps)


def _moves_with_inputs(plan) -> bool:
    """No rule puts time into terms or builds an interval from terms, and
    none invents labelled nulls: the model of inputs moved in time is their
    model, moved."""
    return not any(isinstance(rule_operator(r), (CaptureTime, WrapInterval, PlaceInterval, ChaseStep))
                   for r in plan.rules if not is_since_until(r))


def _segments(holes, sizes):
    """``(starts, [(segment, shift)])``: the parts of a timeline between
    ``holes`` (``(from, to)``, increasing), each with the sum of ``sizes``
    of the holes before it."""
    parts, lo, lc, shift = [], -INF, False, 0
    for (a, b), s in zip(holes, sizes):
        parts.append((make(lo, a, lc, False), shift))
        lo, lc, shift = b, True, shift + s
    parts.append((make(lo, INF, lc, False), shift))
    return [seg[0] for seg, _ in parts], parts


def _split(iv, segments, sign) -> list:
    """The pieces of ``iv`` on each segment, each moved by ``sign`` times
    its segment's shift."""
    starts, parts = segments
    i = max(0, bisect.bisect_right(starts, iv[0]) - 1)
    out = []
    while i < len(parts) and starts[i] <= iv[1]:
        seg, d = parts[i]
        x = intersect(iv, seg)
        if x is not None:
            out.append(moved(x, sign * d))
        i += 1
    return out


def put_back(cuts: Cuts, answer: Store, repeating: dict, info: dict):
    """The answer computed on the cut timeline, on the whole one:
    ``(answer, repeating, info)``, or None where a fact repeats across a
    cut with a period that does not divide the gap's, or the filling would
    list too many pieces."""
    marks = [c for c, _, _ in cuts.cuts]  # (on the cut timeline)
    shifts = [0]
    for _, s, _ in cuts.cuts:
        shifts.append(shifts[-1] + s)
    def crossed(r, i):  # the cuts a repetition runs across, ``i`` the number of cuts before its instance
        return range(i, len(marks)) if r.period > 0 else range(i)

    moved_reps, before = {}, {}
    for p, by in repeating.items():
        for t, rs in by.items():
            for r in rs:
                i = before[r] = bisect.bisect_right(marks, r.iv[0])
                if i < len(marks) and r.iv[1] >= marks[i]:
                    return None  # (an instance across a cut)
                if any(cuts.cuts[k][2] % r.period for k in crossed(r, i)):
                    return None
                moved_reps.setdefault(p, {}).setdefault(t, []).append(Repeating(moved(r.iv, shifts[i]), r.period))
    segments = _segments([(c, c) for c in marks], [s for _, s, _ in cuts.cuts])
    widest = max(P for _, _, P in cuts.cuts)
    out, listed = Store(), 0
    for p in set(answer.relations) | set(repeating):
        rel = answer.get(p)
        atoms = rel.atoms if rel is not None else {}
        by = repeating.get(p, {})
        target = out.relation(p)
        for t in set(atoms) | set(by):
            ivs = atoms.get(t, [])  # (sorted and disjoint: their ends increase too)
            starts, ends = [iv[0] for iv in ivs], [iv[1] for iv in ivs]
            pieces = [x for iv in ivs for x in _split(iv, segments, 1)]
            near = set()  # the cuts whose window [c, c + P) an interval or a repetition's instance may meet
            for iv in (*ivs, *(r.iv for r in by.get(t, ()))):
                near.update(range(bisect.bisect_right(marks, iv[0] - widest), bisect.bisect_right(marks, iv[1])))
            for k in sorted(near):  # (one pass over every cut per atom was quadratic: 1,000 keys far apart 6 s)
                c, s, P = cuts.cuts[k]
                window = make(c, c + P, True, False)
                mine = [r for r in by.get(t, ()) if k not in crossed(r, before[r])]  # (the others repeat with P there)
                i, j = bisect.bisect_left(ends, c), bisect.bisect_left(starts, c + P)
                pattern = [x for iv in ivs[i:j] if (x := intersect(iv, window)) is not None]
                pattern += [x for r in mine for y in r.instances(c, c + P) if (x := intersect(y, window)) is not None]
                pattern = coalesce(pattern)
                if not pattern:
                    continue
                if pattern == [window]:
                    pieces.append(make(c + shifts[k], c + shifts[k] + s, True, False))
                    continue
                n = len(pattern) * (s // P)
                if n > MAX_INSTANCES:  # (uncut, its inputs' instances over the span are as many: refused there too)
                    raise listing_refused(f"{format_atom(p, t)}, which holds between clusters of data far apart,",
                                          Repeating(moved(pattern[0], shifts[k]), P), c + shifts[k], c + shifts[k] + s)
                listed += n
                if listed > MAX_INSTANCES:
                    return None
                for copy in range(s // P):
                    pieces.extend(moved(x, shifts[k] + copy * P) for x in pattern)
            if pieces:
                target.atoms[t] = coalesce(pieces)
    info = dict(info)
    for key in ("bound", "repeats_from"):
        if info.get(key) is not None:
            info[key] = info[key] + cuts.total
    return out, moved_reps, info
