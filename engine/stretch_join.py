"""The model of a forward recursion computed stretch by stretch (the jumps
over quiet gaps, termination._forward_jumping) joined into one answer.

Each stretch's answer is exact on its own window ``[lo, next lo)`` and
repeats forever from where its search found the repetition.  Unrolling
every stretch's repetition over its window lists each instance of a fact
that repeats through all the later stretches too: a key seeded early
whose fact recurs every unit (``p(X) :- <->[1,1] p(X).``) got one
interval per unit over every gap after its seed, 200 keys spread over
10^6 units 12 million intervals in 60 s, where the model is one
repeating fact per key.  So the stretches are joined from the last one
back, atom by atom: where an earlier stretch repeats an atom with the
same pattern (the same period and instances up to a multiple of it) and
everything after its window is that pattern's continuation, the pattern
simply starts earlier; else that stretch's instances inside its window
are listed, as before.
"""

from __future__ import annotations

from chronolog.language.text import format_atom
from chronolog.language.timeline import NEG_INF, POS_INF as INF, coalesce, intersect

from .periodic import Repeating, TooManyInstances, fold_sorted, listing_refused
from .store import Store


class Finishing:
    """The keys a stretch finishes.  Where the stratum's keys are
    independent (planner/partition.py) and a key has no input event after
    the stretch's last one ``e``, the stretch's inputs for it are its
    inputs, so the stretch's model of it (exact, repeating from where the
    search found it) is its model for good: it leaves the later stretches,
    which would carry its state through every one of their gaps (20,000
    keys each seeded once over 10^9 units: every stretch would hold every
    key seeded before it)."""

    def __init__(self, keys: dict, last: dict):
        self.keys, self.last = keys, last  # pred -> key position; key -> its last finite input end
        self.periods: list = []  # of the finished keys that repeat

    @classmethod
    def of(cls, plan, core):
        """None where the stratum is not partitioned by a key."""
        keys = key_positions(plan, core)
        if keys is None:
            return None
        return cls(keys, {k: NEG_INF if x is None else x for k, x in last_ends(keys, core).items()})

    def split(self, e, answer, repeating, rep) -> tuple:
        """``(finished, (answer, repeating))``: the stretch's model of the
        keys it finishes (None: none) and of the rest."""
        done = {k for k, x in self.last.items() if x <= e}
        if not done:
            return None, (answer, repeating)
        for k in done:
            del self.last[k]
        keys = self.keys
        fin, rest = Store(), Store()
        for p, rel in answer.relations.items():
            a, b = fin.relation(p).atoms, rest.relation(p).atoms
            for t, ivs in rel.atoms.items():
                (a if t[keys[p]] in done else b)[t] = ivs
        fin_rep, rest_rep = {}, {}
        for p, by in repeating.items():
            for t, rs in by.items():
                (fin_rep if t[keys[p]] in done else rest_rep).setdefault(p, {})[t] = rs
        if fin_rep and rep.period is not None:
            self.periods.append(rep.period)
        return (fin, fin_rep), (rest, rest_rep)

    def period(self, period):
        """The period of the whole model: the stretch's, with the finished keys'."""
        from chronolog.planner.fragment import lcm_of

        every = [q for q in (*self.periods, period) if q is not None]
        return lcm_of(every) if every else None


def key_positions(plan, preds):
    """``{pred: its key's position}`` where the keys of ``plan``'s stratum
    are independent (planner/partition.py) and every one of ``preds`` has
    one, else None."""
    from chronolog.planner.partition import analyse

    try:
        keys = analyse(plan).keys
    except Exception:  # not partitionable (or the analysis gave up)
        return None
    return None if any(p not in keys for p in preds) else keys


def last_ends(keys, core, reps=None, pick=max) -> dict:
    """``{key: its inputs' last finite end}`` (None: only infinite ends) of
    the facts ``core`` and the first instances of the repeating ``reps``;
    with ``pick=min``, the first finite end."""
    last: dict = {}
    for p, atoms in core.items():
        for t, ivs in atoms.items():
            xs = [x for iv in ivs for x in iv[:2] if x not in (INF, NEG_INF)]
            if xs:
                k = t[keys[p]]
                known = last.get(k)  # None: only infinite ends so far
                last[k] = pick(xs) if known is None else pick(known, pick(xs))
            else:
                last.setdefault(t[keys[p]], None)
    for p, by in (reps or {}).items():
        for t, rs in by.items():
            xs = [x for r in rs for x in r.iv[:2] if x not in (INF, NEG_INF)]
            k = t[keys[p]]
            last[k] = pick([x for x in [last.get(k)] + xs if x is not None], default=None)
    return last


def joined(pieces: list, own) -> tuple:
    """``(answer store, {pred: {terms: [Repeating]}})`` of ``pieces``:
    ``[(window, answer, repeating)]`` in time order, each window
    ``[lo, next lo)`` (the first from -inf; the last to +inf, or None: the
    whole line), the answer and repeating facts of ``own`` predicates in
    :func:`termination._answer`'s form; a window to +inf before the last
    holds the keys a stretch finished (:class:`Finishing`), which no later
    piece holds."""
    atoms: dict = {}  # (pred, terms) -> [explicit intervals after the pieces seen, in chunks (latest first), pattern]
    for k in range(len(pieces) - 1, -1, -1):
        window, answer, repeating = pieces[k]
        last = window is None or window[1] == INF  # (a key the stretch finishes, or the last stretch)
        here = {(p, t) for p, rel in answer.relations.items() for t in rel.atoms}
        here.update((p, t) for p, by in repeating.items() for t in by)
        for key in here:
            p, t = key
            rel = answer.get(p)
            ivs = rel.atoms.get(t, []) if rel is not None else []
            rs = repeating.get(p, {}).get(t, [])
            state = atoms.get(key)
            if state is None:
                state = atoms[key] = [[], None]
            chunks, pattern = state
            if rs and window is not None:
                ivs, rs = _from_window(ivs, rs, window)
            if last:
                chunks.append(_cut(ivs, window))
                state[1] = list(rs) or None
                continue
            cont = _continues(chunks, pattern, rs, window) if pattern and rs else None
            if cont is not None:
                extra, later = cont
                state[0] = [extra, _cut(ivs, window)] if extra else [_cut(ivs, window)]
                state[1] = list(rs) + later
                continue
            try:
                chunks.append(_cut(_listed(ivs, rs, window), window))
            except TooManyInstances:
                raise listing_refused(f"{format_atom(p, t)}, which holds between clusters of data far apart,",
                                      rs[0], window[0], window[1]) from None
    out, reps = Store(), {}
    for (p, t), (chunks, pattern) in atoms.items():
        explicit = coalesce([iv for chunk in reversed(chunks) for iv in chunk])
        if pattern:
            explicit, pattern = _fold(explicit, pattern)
            reps.setdefault(p, {})[t] = pattern
        if explicit:
            out.relation(p).atoms[t] = explicit
    for p in own:
        out.relation(p)
    return out, reps


def _continues(chunks, pattern, rs, window):
    """Whether the atom's model after ``window`` (``chunks`` listed before
    ``pattern``) continues ``rs``, the repetition of its model inside the
    window: ``(extra, later)`` where it does, else None.  The pattern's
    pieces in the phases of ``rs`` (equal up to shifts by the period) must
    start no earlier than the window's, each of their instances after the
    window be listed as it is, and the instance one period before the first
    one not listed end inside the window (else the model after it has a
    hole the repetition would fill).  ``extra``: what is listed besides
    those instances (a fact of a later cluster off the pattern); ``later``:
    the pattern's pieces in other phases (a cluster that adds one), which
    start where they do.  The common case (nothing else listed, the same
    phases) folds the listed suffix at once."""
    q = pattern[0].period
    if any(r.period != q for r in (*pattern, *rs)):
        return None
    mine = _phases(rs)
    common = [r for r in pattern if _phase(r) in mine]
    later = [r for r in pattern if _phase(r) not in mine]
    if {_phase(r) for r in common} != mine:
        return None
    listed, folded = _fold(coalesce([iv for chunk in reversed(chunks) for iv in chunk]), common)
    end = window[1]
    if listed:
        listed, folded = _fold_through(listed, folded, end, q)
        if folded is None:
            return None
    if min(r.iv[0] for r in rs) > min(r.iv[0] for r in folded):
        return None  # (the window's repetition starts after the model beyond it does)
    for r in folded:
        if not _ends_before(r.iv[1] - q, r.iv[3], end):
            return None
    return listed, later


def _ends_before(hi, hc, end) -> bool:
    return hi < end or (hi == end and not hc)


def _fold_through(listed, folded, end, q) -> tuple:
    """``(listed, folded)`` with the pattern ``folded`` moved back over
    each of its instances that ends after ``end`` (all of which must be
    listed, as they are, among other intervals), those instances no longer
    listed; ``(listed, None)`` where one is missing."""
    expected, moved = set(), []
    for r in folded:
        lo, hi, lc, hc = r.iv
        k = 0
        while not _ends_before(hi - (k + 1) * q, hc, end):
            k += 1
            expected.add((lo - k * q, hi - k * q, lc, hc))
            if len(expected) > len(listed):
                return listed, None
        moved.append(Repeating((lo - k * q, hi - k * q, lc, hc), q))
    have = set(listed)
    if not expected <= have:
        return listed, None
    return [iv for iv in listed if iv not in expected], moved


def _from_window(ivs, rs, window) -> tuple:
    """``(ivs, rs)`` with each instance of the repetition ``rs`` before the
    window's start listed instead (a stretch's search folds its repetition
    back into the state it started from, before its window), so that its
    first instances start inside the window."""
    lo = window[0]
    if all(r.iv[0] >= lo for r in rs):
        return ivs, rs
    q, moved, listed = rs[0].period, [], list(ivs)
    for r in rs:
        if r.iv[0] >= lo:
            moved.append(r)
            continue
        k = -((r.iv[0] - lo) // q)  # (instances k * q later start at lo or after)
        listed += [x for x in r.instances(r.iv[0], lo) if x[0] < lo]
        moved.append(Repeating((r.iv[0] + k * q, r.iv[1] + k * q, r.iv[2], r.iv[3]), q))
    return coalesce(listed), moved


def _fold(explicit, pattern) -> tuple:
    """periodic.fold_sorted of listed intervals into a repetition (``[Repeating]``)."""
    q = pattern[0].period
    explicit, ivs = fold_sorted(explicit, sorted(r.iv for r in pattern), q)
    return explicit, [Repeating(iv, q) for iv in ivs]


def _phases(rs) -> set:
    """A repetition's instances up to a shift by its period."""
    return {_phase(r) for r in rs}


def _phase(r):
    q = r.period
    return (r.iv[0] % q, r.iv[1] - r.iv[0], r.iv[2], r.iv[3])


def _listed(ivs, rs, window) -> list:
    """An atom's intervals and its repetition's instances inside ``window``."""
    if not rs:
        return list(ivs)
    first = min(r.iv[0] for r in rs)
    return coalesce(list(ivs) + [x for r in rs for x in r.instances(max(window[0], first), window[1])])


def _cut(ivs, window) -> list:
    if window is None:
        return list(ivs)
    return [x for iv in ivs if (x := intersect(iv, window)) is not None]
