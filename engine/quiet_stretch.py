"""A stream step over a long quiet stretch, without stepping through it.

A stream step closes ``(F0, F1]``.  A stratum recursive through time derives
its facts there round by round, each round moving time by at most the
rules' reach, so a step over a stretch of 10^6 time units with no new input
took 10^6 rounds.  Batch runs already jump such gaps
(``termination._forward_jumping``); this is the same argument for one step:

* the state is final before ``F0``: the stratum's own facts on
  ``[F0 - reach - 1, F0]`` hold exactly, and the facts it reads (inputs and
  lower strata) are known up to ``F1`` (everything holding at a point
  ``<= F1`` has arrived, and a forward program's heads at ``t`` read nothing
  after ``t``);
* between two input events farther apart than a few reaches, the model
  repeats long before the next event (forward determinism); once the
  repetition is found (``termination._search``, bounded by half the gap),
  the model is unrolled up to just before the next event and evaluation
  resumes there from the unrolled state;
* the last stretch, up to ``F1``, is searched the same way, and evaluated
  directly when no repetition shows.

The result is the stratum's model on the step; the stream evaluator merges
it into its store before running the stratum as usual, which then finds
almost nothing left to derive (a round or two near the end of the step).
"""

from __future__ import annotations

import math

from chronolog.language.timeline import coalesce, intersect, make
from chronolog.planner.fragment import program_reach

from .rows.evaluator import Evaluator

INF = math.inf
WIDE = 16  # a gap is worth jumping when longer than WIDE * (reach + 1)


def worth_jumping(plan, own, step_iv) -> bool:
    """Whether the step is long enough for the rules' reach to try."""
    from .termination import _can_jump

    reach = program_reach(plan.rules)
    lo, hi = step_iv[0], step_iv[1]
    if hi in (INF, -INF) or reach in (INF, -INF):
        return False
    return hi - lo > 2 * WIDE * (reach + 1) and _can_jump(plan, own)


def model_over_step(plan, core, own, step_iv, out, quiet=None) -> tuple:
    """The own predicates' facts on ``step_iv`` (``{pred: {terms:
    [intervals]}}``), given ``core``: the stratum's own facts just before
    the step (exact) and every fact it reads from just before the step on;
    and where they repeat inside the step (``{pred: [(lo, hi, q)]}``, as
    ``termination.Outcome.quiet``).  ``quiet``: where the facts it reads
    repeat (a lower stratum's model over the step): the stretch search takes
    the repetition instead of the instances (``termination._stretch_inputs``).
    ``(None, {})`` when there was no quiet stretch to jump (the stream's own
    run of the stratum is then the whole work)."""
    from . import termination as tm

    reach = program_reach(plan.rules)
    lo_step, hi_step = step_iv[0], step_iv[1]
    margin = reach + 1
    afar = tm.read_from_afar(plan)
    wide = WIDE * (reach + 1)
    events, used = tm._events(core, {}, quiet or {})
    events = [x for x in events if x <= hi_step]
    events.append(hi_step)  # the end of the step: the last stretch runs up to it
    pieces, lo, state, jumped, windows = [], -INF, {}, False, []
    i = 0
    while i < len(events) - 1:
        e, n = max(events[i], lo_step - margin), events[i + 1]
        i += 1
        if n - e <= wide:
            continue
        last = i == len(events) - 1
        periodic = tm._periodic_in(used, e, n)
        seg, seg_reps = tm._stretch_inputs(core, {}, e, n, lo - 2 * margin, afar, periodic)
        seg = _with_state(seg, state)
        found = tm._search(plan, seg, seg_reps, e, lo, reach, "blocking", out, max_span=(n - e) / 2)
        if found is None:
            continue  # no repetition yet: this gap stays part of the stretch
        store, rep, hi, _ = found
        jumped = True
        answer, repeating = tm._answer(store, rep, hi, own)
        nlo = hi_step if last else n - margin
        window = make(lo, nlo, lo != -INF, last)
        pieces.append(_only(tm._unrolled(answer, repeating, window), own))
        if rep.period is not None and nlo > rep.start:
            windows.append((rep.start, nlo, rep.period))
        if last:
            break
        state = tm._unrolled(answer, repeating, make(nlo - margin, nlo, True, False))
        lo = nlo
    else:  # the last stretch had no repetition to jump: evaluate it up to the step's end
        if not jumped:
            return None, {}
        seg = _with_state(tm._inputs_before(core, INF, lo - 2 * margin, afar), state)
        store = tm._store_of(seg)
        window = make(lo, hi_step, True, True) if lo != -INF else make(-INF, hi_step, False, True)
        tm.run_bounded(out, Evaluator(plan, store, window, "blocking"))
        pieces.append({p: dict(rel.atoms) for p in own if (rel := store.get(p)) is not None})
    result: dict = {}
    for piece in pieces:
        for p, atoms in piece.items():
            rel = result.setdefault(p, {})
            for t, ivs in atoms.items():
                kept = [x for iv in ivs if (x := intersect(iv, step_iv)) is not None]
                if kept:
                    rel.setdefault(t, []).extend(kept)
    facts = {p: {t: coalesce(ivs) for t, ivs in atoms.items()} for p, atoms in result.items() if atoms}
    return facts, ({p: windows for p in own} if windows else {})


def _with_state(seg, state):
    for p, atoms in state.items():
        rel = seg.setdefault(p, {})
        for t, ivs in atoms.items():
            rel[t] = coalesce(list(rel.get(t, [])) + ivs)
    return seg


def _only(facts, own):
    return {p: atoms for p, atoms in facts.items() if p in own}
