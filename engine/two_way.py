"""A recursion through time that reads both the past and the future.

What holds at ``t`` may depend on what holds after ``t``, so the forward
argument of termination.py (a repeating window proves that the rest repeats)
does not hold.  Instead chronolog guesses the model and proves the guess:

1. *Window model.*  The least model restricted to a window ``[lo, hi]``
   (nothing is derived outside it).  Every fact in it holds in the least
   model ``M``; near the window's ends it may miss facts whose derivations
   leave the window.
2. *Guess.*  In the inner part of the window, find where the window model
   repeats to the right and (time mirrored) to the left
   (:func:`~.periodic.find_repetition`).  ``W`` is the window model between
   the two repetitions, continued by them on both sides.
3. *Closed.*  The rules derive nothing new from ``W`` over the core, one
   period and a few reaches on each side: usually because the window model
   is a fixpoint there (:func:`_closed_in_window`), else checked by applying
   the rules once more (:func:`_closed`).  Every other time is a multiple of
   a period away from a checked one, where ``W`` and the facts the stratum
   reads look the same, so ``W`` is a model and ``M ⊆ W``.
4. *Exact.*  ``W`` equals the window model from the left repetition minus a
   reach to the right one plus a period and a reach (checked), so there
   ``M = W``.  Right of ``A`` (where ``W`` repeats with ``p``), ``M`` is the
   least fixpoint of the rules with heads after ``A``, given what ``M`` holds
   on the band ``[A - R, A)`` (``R`` the widest distance a rule reads); that
   fixpoint commutes with shifting by ``p`` because the inputs repeat there.
   The bands at ``A`` and ``A + p`` are equal (``M = W`` on both), hence
   ``M(t + p) = M(t)`` for every ``t >= A``, and with ``M = W`` on
   ``[A, A + p)``, ``M = W`` on ``[A, +inf)``.  The left side is the mirror.
   So ``M = W``.

If the check fails the window doubles.  The argument needs every rule of the
recursion to read and write its own predicates at a bounded distance:
unbounded diamonds over them (``<->[0,+inf) p`` with ``p`` recursive) are
and Since/Until over them are rewritten into local rules first
(:func:`_local_diamonds`); unbounded boxes over them are refused (a horizon
evaluates them).  Unbounded
operators over the facts the recursion reads are fine: after the last input
fact they no longer change.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from fractions import Fraction

from chronolog.language.errors import HorizonNeeded
from chronolog.language.timeline import coalesce, intersect, make
from chronolog.planner.fragment import program_reach
from chronolog.planner.ir import NegScan, SinceRule
from chronolog.planner.physical import is_since_until

from .rows.evaluator import Evaluator
from .periodic import find_repetition, unroll

INF = math.inf


def two_way(plan, core, reps, own, strategy, out, quiet=None):
    """The exact model of a recursion that reads both ways: ``(store,
    repeating, info)`` as the forward strategy returns them.  (Inputs that
    repeat between clusters, ``quiet``, are read instance by instance
    here: a cluster's model alone would not hold what they derive in the
    gap.)"""
    plan, own, fast = _local_diamonds(plan, own)
    _refuse_unbounded(plan, own)
    joined = _by_clusters(plan, core, reps, own, strategy, out, fast)
    if joined is not None:
        return joined
    answer, repeating, info = _one(plan, core, reps, own, strategy, out, fast)
    info.pop("period_left", None)
    return answer, repeating, info


def _one(plan, core, reps, own, strategy, out, fast=None):
    """Steps 1-4 over one window holding all the inputs.  ``fast`` is the
    plan with the shortcuts of :func:`_local_diamonds` for the window model
    (step 1); the proof (step 3) uses ``plan``."""
    from . import termination as tm

    reach = program_reach(plan.rules)
    (p_r, const_r), (p_l, const_l) = tm._periods(plan, reps, 1), tm._periods(plan, reps, -1)
    ends = tm._ends(core, reps)
    s_r, s_l = max(ends, default=0), min(ends, default=0)
    # as much room after the band as the forward strategy has (the outer
    # quarter and the band itself are not used for finding the repetition)
    span = 8 * (reach + 1) + 4 * max(p_r or 0, p_l or 0)
    inventing = any(st.inventing_rules for st in plan.strata if st.recursive)
    atoms, growing = None, 0
    for attempt in range(1, tm.MAX_ATTEMPTS + 1):
        lo, hi = s_l - span, s_r + span
        # the outer quarter on each side may miss facts derived from outside
        quarter = Fraction(span) / 4  # exact: the data may reach beyond a float
        lo_in, hi_in = lo + quarter, hi - quarter
        store = tm._store_of(core)
        tm._add_unrolled(store, reps, (lo - reach - 1, hi + reach + 1, True, True))
        ev = Evaluator(fast or plan, store, make(lo, hi, True, True), strategy)
        ev.rounds_bounded = True  # a window around data beyond a float's range is never crossed step by step
        tm.run_bounded(out, ev)
        guess = _guess(store, own, s_l, s_r, lo_in, hi_in, reach, (p_l, const_l), (p_r, const_r))
        if guess is not None and _closed_in_window(guess, lo_in, hi_in, reach):
            if CHECK_CLOSURE == "both" and not _closed(plan, guess, core, reps, own, reach, strategy, out):
                raise AssertionError("the window showed W closed, the explicit check did not")
            closed = True
        else:
            closed = guess is not None and _closed(plan, guess, core, reps, own, reach, strategy, out)
        if closed:
            answer, repeating, a_l, a_r, q_r, _ = guess
            info = {
                "bound": hi,
                "attempts": attempt,
                "repeats_from": a_r,
                "repeats_before": a_l,
                "period": q_r,
                "period_left": guess[5],
                "kind": "periodic" if repeating else "constant",
            }
            return answer, repeating, info
        if ev.stats["derivations"] > tm.MAX_DERIVATIONS:
            break
        if inventing:
            # new values at every step: a model that never repeats keeps
            # growing with the window; stop after three doublings that do
            now = sum(len(store.get(p).atoms) for p in own if store.get(p) is not None)
            growing = growing + 1 if atoms is not None and now >= 1.5 * atoms else 0
            atoms = now
            if growing >= 3:
                break
        span *= 2
    rule = next((r for st in plan.strata for r in st.inventing_rules + st.shifting_rules), plan.rules[0])
    src = rule.source
    raise HorizonNeeded(
        f"no repeating pattern found in the model between times {tm._fmt(lo)} and {tm._fmt(hi)}: the recursion "
        "through\n  " + (src.text if src is not None and src.text else rule.describe())
        + "\nreads both the past and the future and keeps changing (it may create new values at every step)",
        src.pos if src is not None else None,
    )


# ------------------------------------------------------------ clusters
def _cut(core, reps, wide):
    """The inputs split at the quiet gaps wider than ``wide`` (no event, and
    no interval with two finite ends spans them): a ``core`` dict per
    cluster, or None.  Facts repeating forever (``reps``) count their first
    instance's ends, and must start in the outer clusters (the last one, or
    the first one into the past), which take them whole."""
    import bisect

    from . import termination as tm

    events, _ = tm._events(core, reps, {})
    if len(events) < 2:
        return None
    index = {x: i for i, x in enumerate(events)}
    covered = [0] * (len(events) + 1)  # gap i is (events[i], events[i+1])
    for atoms in core.values():
        for ivs in atoms.values():
            for iv in ivs:
                if iv[0] not in (INF, -INF) and iv[1] not in (INF, -INF) and iv[0] < iv[1]:
                    covered[index[iv[0]]] += 1
                    covered[index[iv[1]]] -= 1
    cuts, depth = [], 0
    for i in range(len(events) - 1):
        depth += covered[i]
        if depth == 0 and events[i + 1] - events[i] > wide:
            cuts.append(events[i])
    if not cuts:
        return None
    for by in reps.values():
        for rs in by.values():
            for r in rs:
                if (r.period > 0 and r.iv[0] <= cuts[-1]) or (r.period < 0 and r.iv[1] > cuts[0]):
                    return None
    groups = [dict() for _ in range(len(cuts) + 1)]
    for p, atoms in core.items():
        for t, ivs in atoms.items():
            for iv in ivs:
                at = iv[0] if iv[0] != -INF else iv[1]
                k = bisect.bisect_left(cuts, at) if at not in (INF, -INF) else 0
                groups[k].setdefault(p, {}).setdefault(t, []).append(iv)
    return groups


def _by_clusters(plan, core, reps, own, strategy, out, fast=None):
    """A recursion over clusters of data far apart, without stepping through
    the gaps between them; None when there are none, or when the clusters
    interact (then one window holds everything).

    Why it is exact.  Split the inputs ``I`` into clusters ``I_k`` at quiet
    gaps and compute each cluster's model ``M_k`` alone (steps 1-4, over a
    window of its own size).  ``I_k`` is part of ``I``, so ``M_k ⊆ M``, and
    ``W``, the union of the ``M_k``, is part of ``M``.  If ``W`` is closed
    under the rules, it is a model holding ``I``, so ``M ⊆ W``: ``M = W``.
    Closure is checked around each cluster and over one joint period and a
    few reaches into each gap: inside a gap, away from the clusters, every
    ``M_k`` repeats (the ones on the left to the right, the ones on the right
    to the left) and the inputs are constant, so ``W`` and the inputs repeat
    with the lcm of those periods, and every head time there is a multiple
    of it away from a checked one.  When ``W`` is not closed (a cluster's
    model reaches across a gap into another's), each cluster is computed
    again with what ``W`` holds around it added to its inputs: those facts
    hold in ``M``, so the cluster's model stays part of ``M``; after a few
    such rounds one window over everything takes over.

    Facts that repeat forever from the last cluster on (or into the past
    from the first one) go to that cluster: the union repeats as before,
    and the closure check reads them.  Inputs that repeat across a gap (a
    lower stratum's model between its clusters) leave no quiet gap, so such
    a recursion still steps through it: a front moving from a cluster into
    the gap (``q :- <->[3,3] q, p``) has no part of the inputs near the
    cluster whose model holds it, and its model in the gap depends on both
    clusters."""
    from chronolog.planner.fragment import lcm_of

    if any(isinstance(lit, NegScan) for r in plan.rules for lit in r.body):  # (a Since's body: its two operands)
        # a negated input is not monotone: a cluster's model without the other
        # clusters' facts may hold what they rule out, so M_k is not part of M
        return None
    reach = program_reach(plan.rules)
    groups = _cut(core, reps, 16 * (reach + 1))
    if groups is None:
        return None
    cluster_reps = [{} for _ in groups]
    for p, by in reps.items():
        for t, rs in by.items():
            for r in rs:
                k = len(groups) - 1 if r.period > 0 else 0
                cluster_reps[k].setdefault(p, {}).setdefault(t, []).append(r)
    extra = [{} for _ in groups]
    for _ in range(CLUSTER_ROUNDS):
        parts = [_one(plan, _merged(g, x), r, own, strategy, out, fast) for g, x, r in zip(groups, extra, cluster_reps)]
        answer, repeating, infos = _union(parts)
        if _union_closed(plan, core, reps, own, answer, repeating, infos, reach, strategy, out):
            break
        # the clusters interact (one reads the other's model across the
        # gap): each one again, given what the union holds around it
        joint = lcm_of([abs(i[k]) for i in infos for k in ("period", "period_left") if i.get(k)] or [1])
        width = 8 * (reach + 1) + 2 * joint
        for k, g in enumerate(groups):
            xs = [x for atoms in g.values() for ivs in atoms.values() for iv in ivs for x in iv[:2] if x not in (INF, -INF)]
            if xs:
                band = make(min(xs) - width, max(xs) + width, True, True)
                extra[k] = _unrolled(answer, repeating, own, band)
    else:
        return None
    periods = [i["period"] for i in infos if i["period"]]
    info = {
        "bound": max(i["bound"] for i in infos),
        "attempts": max(i["attempts"] for i in infos),
        "repeats_from": max(i["repeats_from"] for i in infos),
        "repeats_before": min(i["repeats_before"] for i in infos),
        "period": lcm_of(periods) if periods else None,
        "kind": "periodic" if repeating else "constant",
        "clusters": len(parts),
        "quiet": _gap_windows(infos, reach, own),
    }
    return answer, repeating, info


CLUSTER_ROUNDS = 4  # how often clusters that interact are recomputed before one window takes over


def _merged(core, extra):
    """``core`` with facts of the model added as inputs (they hold in the
    least model, so the least model over both is the same)."""
    out = {p: {t: list(ivs) for t, ivs in atoms.items()} for p, atoms in core.items()}
    for p, atoms in extra.items():
        rel = out.setdefault(p, {})
        for t, ivs in atoms.items():
            rel[t] = coalesce(list(rel.get(t, [])) + list(ivs))
    return out


def _union(parts):
    from .store import Store

    answer, repeating = Store(), {}
    for store, rep, _ in parts:
        for p, rel in store.relations.items():
            target = answer.relation(p)
            for t, ivs in rel.atoms.items():
                target.atoms[t] = coalesce(list(target.atoms.get(t, [])) + list(ivs))
        for p, by in rep.items():
            for t, rs in by.items():
                have = repeating.setdefault(p, {}).setdefault(t, [])
                have.extend(r for r in rs if r not in have)
    return answer, repeating, [info for _, _, info in parts]


def _gap_windows(infos, reach, own) -> dict:
    """Where the union repeats between clusters: in the gap after cluster
    ``k``, from the last right repetition of the clusters before it to the
    first left repetition of those after it, with the lcm of their periods
    (every cluster's model repeats there, and the union is the model)."""
    windows = []
    for k in range(len(infos) - 1):
        g0, g1, per = _gap(infos, k, reach)
        if g1 - g0 > 2 * per:
            windows.append((g0, g1, per))
    return {p: windows for p in own} if windows else {}


def _gap(infos, k, reach):
    """``(g0, g1, per)`` of the gap after cluster ``k``."""
    from chronolog.planner.fragment import lcm_of

    right = [(i["repeats_from"], i["period"]) for i in infos[: k + 1]]
    left = [(i["repeats_before"], i.get("period_left")) for i in infos[k + 1:]]
    ps = [abs(x) for _, x in right + left if x]
    return max(a for a, _ in right), min(a for a, _ in left), lcm_of(ps) if ps else reach


def _union_closed(plan, core, reps, own, answer, repeating, infos, reach, strategy, out) -> bool:
    """Whether the rules derive nothing new from the union: checked around
    each cluster and one joint period and a few reaches into each gap."""
    from chronolog.planner.fragment import lcm_of

    from . import termination as tm

    right = [(i["repeats_from"], i["period"]) for i in infos]
    left = [(i["repeats_before"], i.get("period_left")) for i in infos]
    margin = 4 * reach + 2

    def joint(items):
        ps = [abs(x) for _, x in items if x]
        return lcm_of(ps) if ps else reach

    windows, start = [], min(a for a, _ in left) - joint(left) - margin
    for k in range(len(infos) - 1):
        g0, g1, per = _gap(infos, k, reach)
        if g1 - g0 < 2 * per + 4 * margin:
            continue  # a short gap: checked whole
        windows.append((start, g0 + per + margin))
        start = g1 - per - margin
    windows.append((start, max(a for a, _ in right) + joint(right) + margin))
    inputs = {p: atoms for p, atoms in core.items() if p not in own}
    given = {p: by for p, by in reps.items() if p not in own}
    for lo, hi in windows:
        window = make(lo, hi, True, True)
        store = tm._store_of(inputs)
        tm._add_unrolled(store, given, (lo - reach - 1, hi + reach + 1, True, True))
        seeded = _unrolled(answer, repeating, own, window)
        for p, atoms in seeded.items():
            store.relation(p).atoms = {t: list(ivs) for t, ivs in atoms.items()}
        tm.run_bounded(out, Evaluator(plan, store, window, strategy), "check")
        if _clipped(store, own, window) != seeded:
            return False
    return True


def _guess(store, own, s_l, s_r, lo_in, hi_in, reach, left_period, right_period):
    """``W`` from the window model: ``(answer, repeating, A_left, A_right,
    right period, left period)``, or None when it does not repeat on both sides yet or
    the answer does not reproduce the window model (then the window grows)."""
    from . import termination as tm

    # after the band [A - reach, A) the inputs must repeat too: start there
    (p_l, const_l), (p_r, const_r) = left_period, right_period
    right = find_repetition(store, s_r + reach, hi_in, reach, multiple_of=p_r, constant_ok=const_r)
    mirrored, _ = tm._mirror_answer(store, {})
    left = find_repetition(mirrored, -s_l + reach, -lo_in, reach, multiple_of=p_l, constant_ok=const_l)
    if right is None or left is None:
        return None
    a_r, a_l = right.start, -left.start
    answer, rep = tm._answer(store, right, hi_in, own, fold_limit=a_l)
    flipped, _ = tm._mirror_answer(answer, {})
    back, rep_left = tm._answer(flipped, left, -lo_in, own, fold_limit=-a_r)
    answer, rep_left = tm._mirror_answer(back, rep_left)
    for p, by in rep_left.items():
        for t, rs in by.items():
            rep.setdefault(p, {}).setdefault(t, []).extend(rs)
    inner = make(lo_in, hi_in, False, False)
    if _unrolled(answer, rep, own, inner) != _clipped(store, own, inner):
        return None
    # a side that is constant repeats with any period a multiple of its
    # time groupings' lengths (None: any period at all)
    return answer, rep, a_l, a_r, right.period or p_r, left.period or p_l


# tests: True runs the explicit check every time, "both" also checks that it
# agrees whenever the window alone shows W closed
CHECK_CLOSURE = False


def _closed_in_window(guess, lo_in, hi_in, reach) -> bool:
    """Whether ``W`` is closed by what the window model already shows: the
    window model is a fixpoint for every head time ``x`` whose reads lie in
    the window, and ``W`` equals it on ``(lo_in, hi_in)``, so no rule derives
    anything new for ``W`` at ``x`` in ``[lo_in + R, hi_in - R]``.  Every
    head time right of ``A_r + R`` is a multiple of the period away from one
    in ``[A_r + R, A_r + R + p)`` (``W`` and the inputs repeat there), and
    the mirror on the left: if those stretches lie inside, ``W`` is closed."""
    if CHECK_CLOSURE is True:
        return False
    _, _, a_l, a_r, per_r, per_l = guess
    return a_r + 2 * reach + (per_r or 0) <= hi_in and a_l - 2 * reach - (per_l or 0) >= lo_in


def _closed(plan, guess, core, reps, own, reach, strategy, out) -> bool:
    """Whether one more application of the rules to ``W`` derives nothing new,
    checked over the core, one period and two reaches on each side (and a
    margin of two reaches more, so that every checked time reads only ``W``)."""
    from . import termination as tm

    answer, rep, a_l, a_r, per_r, per_l = guess
    # the repetitions' periods (multiples of the inputs'); a side that is
    # constant repeats with any period
    per_r, per_l = per_r or reach, per_l or reach
    # every checked time also sees one whole period of the inputs after it
    # (and before), so unbounded operators over them read what they would
    # read with the inputs unrolled forever
    margin = 4 * reach + 2 + 2 * max(per_r, per_l)
    window = make(a_l - per_l - margin, a_r + per_r + margin, True, True)
    store = tm._store_of({p: atoms for p, atoms in core.items() if p not in own})
    tm._add_unrolled(store, {p: by for p, by in reps.items() if p not in own}, (window[0] - reach - 1, window[1] + reach + 1, True, True))
    seeded = _unrolled(answer, rep, own, window)
    for p, atoms in seeded.items():
        store.relation(p).atoms = {t: list(ivs) for t, ivs in atoms.items()}
    tm.run_bounded(out, Evaluator(plan, store, window, strategy), "check")
    return _clipped(store, own, window) == seeded


def _unrolled(answer, rep, own, window) -> dict:
    """``W`` (the answer's facts and repeating facts) inside ``window``."""
    out = {}
    for p in own:
        rel = answer.get(p)
        atoms = dict(rel.atoms) if rel is not None else {}
        by = rep.get(p, {})
        got = {}
        for t in set(atoms) | set(by):
            rs = by.get(t)
            if rs:
                pieces = unroll(atoms.get(t, []), rs, window)
            else:  # the answer's facts are maximal already: clip only
                pieces = [x for iv in atoms[t] if (x := intersect(iv, window)) is not None]
            if pieces:
                got[t] = pieces
        if got:
            out[p] = got
    return out


def _clipped(store, own, window) -> dict:
    out = {}
    for p in own:
        rel = store.get(p)
        if rel is None:
            continue
        got = {}
        for t, ivs in rel.atoms.items():  # maximal intervals (the store keeps them so)
            pieces = [x for iv in ivs if (x := intersect(iv, window)) is not None]
            if pieces:
                got[t] = pieces
        if got:
            out[p] = got
    return out


_fresh = itertools.count(1)


def _local_diamonds(plan, own):
    """Rewrite unbounded diamonds over the recursion's own predicates (and
    unbounded head boxes, which are diamonds read the other way) into local
    rules, so that the proof applies:

    * ``<->[a,+inf) p`` is ``<->[a,a+d] once_p`` with ``once_p :- p`` and
      ``once_p :- <->[0,d] once_p`` (``once_p`` at ``s``: ``p`` held at some
      time up to ``s``; if ``p`` held before ``t-a-d``, ``once_p`` holds at
      ``t-a-d``);
    * ``<+>[a,+inf) p`` is its mirror image;
    * ``[+][a,+inf) h :- body`` is ``h :- <->[a,+inf) fired`` with
      ``fired :- body`` (and ``[-]`` the mirror), then as above.

    * Since/Until with an unbounded window: :func:`_local_since`.

    ``d`` is the widest distance the rules already read, so the reach does
    not grow.

    The local rules step ``once_p`` forward ``d`` per round, so a window
    model over a long stretch of data would take span/``d`` rounds.  The
    third result is the plan with shortcuts added, ``once_p :- <->[0,+inf)
    once_p`` (and ``Z :- A S(0,+inf) B``): they hold in the least model, so
    a window model computed with them is still part of it (step 1 needs no
    more), and it is reached in a few rounds.  The proof (step 3) checks
    closure under the local rules only, whose reach is bounded.  Unbounded boxes over the recursion's own predicates have no
    such local form (whether ``p`` held throughout the whole past is not a
    least fixpoint of local rules) and stay refused."""
    from chronolog.language import ast
    from chronolog.planner.ir import PlanRule, Scan
    from chronolog.planner.stratify import stratify

    d = program_reach(plan.rules)
    rules, fresh, shortcuts = [], set(), []

    def name(kind):
        n = f"${kind}{next(_fresh)}"
        fresh.add(n)
        return n

    def variables(terms):
        out = []
        for t in terms:
            if isinstance(t, ast.Var) and t not in out:
                out.append(t)
        return tuple(out)

    for rule in plan.rules:
        if is_since_until(rule):
            local = _local_since(rule, own, d, name, variables)
            rules.extend(local)
            if local != [rule]:  # Z :- A S(0,+inf) B (Z :- B is the first local rule)
                z = local[0]
                shortcuts.append(SinceRule(z.head_pred, z.head_terms, rule.op, (0, INF, False, False), rule.left, rule.right, rule.source))
            continue
        h = rule.head_shift
        if h is not None and (h[1] == INF or h[0] == -INF):
            fired = name("fired")
            terms = variables(rule.head_terms)
            rules.append(PlanRule(fired, terms, list(rule.body), None, rule.source))
            shift = (h[0], INF, h[2], False) if h[1] == INF else (-INF, h[1], False, h[3])
            rule = rule.replaced(body=[Scan(fired, terms, shift=shift)], head_shift=None)
        body = []
        for lit in rule.body:
            w = getattr(lit, "shift", None)
            if not (isinstance(lit, Scan) and (lit.pred in own or lit.pred in fresh) and w is not None
                    and (w[1] == INF or w[0] == -INF) and not _unbounded_window(lit.box)):
                body.append(lit)
                continue
            terms = variables(lit.terms)
            past = w[1] == INF
            memo = name("once" if past else "sometime")
            step = (0, d, True, True) if past else (-d, 0, True, True)
            rules.append(PlanRule(memo, terms, [Scan(lit.pred, lit.terms, box=lit.box, origin=lit.origin)], None, rule.source))
            rules.append(PlanRule(memo, terms, [Scan(memo, terms, shift=step, origin=lit.origin)], None, rule.source))
            unbounded = (0, INF, True, False) if past else (-INF, 0, False, True)
            shortcuts.append(PlanRule(memo, terms, [Scan(memo, terms, shift=unbounded, origin=lit.origin)], None, rule.source))
            bounded = (w[0], w[0] + d, w[2], True) if past else (w[1] - d, w[1], True, w[3])
            body.append(Scan(memo, terms, shift=bounded, origin=lit.origin))
        rules.append(rule.replaced(body=body) if body != list(rule.body) else rule)
    if not fresh:
        return plan, own, None
    local = dataclasses.replace(plan, rules=rules, strata=stratify(rules))
    fast = dataclasses.replace(plan, rules=rules + shortcuts, strata=stratify(rules + shortcuts))
    return local, own | fresh, fast


def _local_since(rule, own, d, name, variables) -> list:
    """``A S<a,+inf) B`` over the recursion's own predicates, as local rules
    (Until is the mirror image; ``Z`` is ``A S[0,+inf) B``, ``Y`` is
    ``A and Z``)::

        Z :- B.          Z :- A S(0,d] B.     (Z :- A, B when A has a variable B lacks)
        Y :- A, Z.       Z :- A S(0,d] Y.
        head :- A S<a,a+d] B.
        head :- A S[a+d,a+d] Y.

    ``Z`` at ``t``: from its witness ``t'`` step by ``d/2`` through ``Y``
    (``A`` holds at every step, inside ``(t', t)``).  The witness of the head
    is either within ``a+d`` of ``t``, or before ``u = t-a-d``, where ``Y``
    holds and ``A`` holds on ``(u, t)``."""
    from chronolog.planner.ir import PlanRule, Scan

    w = rule.window
    reads_own = rule.left.pred in own or rule.right.pred in own
    if w[1] != INF or not reads_own or _unbounded_window(rule.head_shift):
        return [rule]
    terms = variables(rule.right.terms + rule.left.terms)
    z, y = name("since" if rule.op == "S" else "until"), name("and")
    step = (0, d, False, True)
    a, b = rule.left, rule.right
    # Z :- B binds no variable of A only: there Z :- A, B (Z is read only
    # through Y, where A holds too)
    first = [b] if set(variables(a.terms)) <= set(variables(b.terms)) else [a, b]
    return [
        PlanRule(z, terms, first, None, rule.source),
        SinceRule(z, terms, rule.op, step, a, b, rule.source),
        PlanRule(y, terms, [a, Scan(z, terms)], None, rule.source),
        SinceRule(z, terms, rule.op, step, a, Scan(y, terms), rule.source),
        dataclasses.replace(rule, window=(w[0], w[0] + d, w[2], True)),
        dataclasses.replace(rule, window=(w[0] + d, w[0] + d, True, True), right=Scan(y, terms)),
    ]


def _unbounded_window(w) -> bool:
    return w is not None and any(x in (INF, -INF) for x in w[:2])


def _refuse_unbounded(plan, own) -> None:
    """The proof needs bounded distances between what a rule reads of the
    recursion's own predicates and what it derives (after
    :func:`_local_diamonds`, only boxes can be unbounded)."""
    for rule in plan.rules:
        bad = _unbounded_window(rule.head_shift)
        if is_since_until(rule):
            reads_own = rule.right.pred in own or rule.left.pred in own
            bad = bad or (reads_own and _unbounded_window(rule.window))
        else:
            for lit in rule.body:
                if getattr(lit, "pred", None) in own and (
                    _unbounded_window(getattr(lit, "box", None)) or _unbounded_window(getattr(lit, "shift", None))
                ):
                    bad = True
        if bad:
            src = rule.source
            raise HorizonNeeded(
                "this recursion looks both into the future and into the past and reads its own predicates "
                "through an unbounded box, so chronolog cannot yet find where its model repeats:\n  "
                + (src.text if src is not None and src.text else rule.describe()),
                src.pos if src is not None else None,
            )
