"""Evaluating programs whose model may be infinite, without a horizon.

The strata run in order, each reading the exact facts of the strata before
it, some of which may repeat forever (:class:`~.periodic.Repeating`):

* a stratum without recursion through time and without repeating inputs is
  evaluated as usual;
* a stratum whose recursion moves time must be *forward* (its recursive
  literals read only the past of the time they derive, planner/fragment.py)
  or *backward* (only the future: time is mirrored, the stratum evaluated
  forward, and the answer mirrored back).  It is computed exactly up to a
  bound ``hi`` (the horizon ``(-inf, hi]``: in a forward stratum nothing
  after ``hi`` changes what holds before it), and
  :func:`~.periodic.find_repetition` looks for a window that repeats after
  its last input fact, with a period that is a multiple of its repeating
  inputs'; if there is none yet, ``hi`` moves twice as far;
* a stratum without recursion through time that reads repeating facts
  repeats where all of them do (what it derives at ``t`` depends on its
  inputs near ``t``), on both sides.

The answer keeps the facts before the repetition as they are, makes the
ones that hold throughout it end at ``+inf`` (a constant model) and turns
the others into repeating facts (a periodic model).  A recursion that reads
both ways (or groups time) is guessed and proved by two_way.py instead of
the forward search.  Unbounded operators in rules with other literals are first put in
fresh predicates, so that whether they hold is part of the state that must
repeat.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import itertools
import math
import time
from fractions import Fraction
from dataclasses import dataclass, field

from chronolog.language.errors import HORIZON_HINT, HorizonNeeded
from chronolog.language.text import format_atom
from chronolog.language.timeline import coalesce, intersect, make
from chronolog.planner.fragment import direction, group_period, lcm_of, program_reach
from chronolog.planner.ir import PlanRule, Scan
from chronolog.planner.physical import CaptureTime, WrapInterval, is_since_until, rule_operator
from chronolog.planner.mirror import mirror_interval, mirror_rule
from chronolog.planner.stratify import stratify

from . import gap_cuts
from .rows.evaluator import Evaluator
from .periodic import (Repeating, Repetition, TooManyInstances, find_repetition, fold_sorted, listing_refused,
                       moved, smallest_period, unroll)
from .store import Store

INF = math.inf
MAX_ATTEMPTS = 14
MAX_DERIVATIONS = 2_000_000  # per attempt; beyond it the search stops with an error
# "$unbounded<n>" and "$given<n>" names, unique in a process (the planner's
# fresh names are "$s<n>", "$u<n>", "$n<n>", "$t<n>": they must not meet)
_fresh_numbers = itertools.count(1)


@dataclass
class Outcome:
    store: Store
    repeating: dict = field(default_factory=dict)  # pred -> {terms: [Repeating]}
    components: list = field(default_factory=list)  # what happened, per stratum that repeats
    # pred -> [(lo, hi, q)]: on (lo, hi) the predicate's model (every atom)
    # repeats with period q, between clusters of data far apart (the store
    # lists its instances there): a stratum reading it takes the repetition
    # itself instead of stepping through the instances (:func:`_quiet_gaps`)
    quiet: dict = field(default_factory=dict)
    stats: dict = field(default_factory=lambda: {"rounds": 0, "derivations": 0})
    # the predicates whose bounded attempts ran on the columnar executor
    # (:func:`_attempts_on`); every other stratum ran on rows
    on_columns: set = field(default_factory=set)
    # per stratum run, in order: (its predicates, its BoundedRuns, its
    # component or None), what EXPLAIN ANALYZE prints (engine/analysis.py)
    runs: list = field(default_factory=list)
    _bounded: list = field(default_factory=list)  # the BoundedRuns of the stratum under way


@dataclass
class BoundedRun:
    """One evaluation of a stratum: an attempt to a bound, a check that a
    guessed model is closed (two_way.py), or the one run of a stratum that
    does not move time (no window)."""

    window: tuple | None  # the interval it was confined to (None: none)
    rounds: int
    derivations: int
    seconds: float
    executor: str  # rows, or columns where any stratum of it ran on columns
    what: str = "attempt"


def run_bounded(out, ev, what: str = "attempt") -> None:
    """Run the evaluator ``ev`` (one bounded run), add its rounds and
    derivations to ``out.stats`` (an Outcome's, or a stream's evaluator's)
    and keep it in an Outcome's record of the stratum (one clock reading and one tuple a run: a run is a whole
    evaluation)."""
    started = time.perf_counter()
    ev.run()
    seconds = time.perf_counter() - started
    executors = getattr(ev, "executors", None) or {}
    on = "columns" if "columns" in executors.values() else "rows"
    kept = getattr(out, "_bounded", None)  # (None: a stream's step, quiet_stretch.py, keeps no record)
    if kept is not None:
        kept.append(BoundedRun(ev.horizon, ev.stats["rounds"], ev.stats["derivations"], seconds, on, what))
    for k in ("rounds", "derivations"):
        out.stats[k] += ev.stats.get(k, 0)


def evaluate(plan, rows: dict, strategy: str = "blocking", repeating=None, horizon=None, engine: str = "auto") -> Outcome:
    """The least model of ``plan`` over ``rows`` (``{pred: [(terms, iv)]}``)
    and given facts that repeat forever (``repeating``: ``{pred: {terms:
    [Repeating]}}``), stratum by stratum: each one reads the exact (possibly
    repeating) facts of the strata before it.  ``horizon``: an interval
    derived facts are confined to, open where a recursion moves time (a
    join with it in the program: planner/confine.py).  ``engine`` (auto,
    rows, columns): where the bounded attempts of a forward (or mirrored
    backward) recursion run, :func:`_attempts_on`."""
    if horizon is not None:
        from chronolog.planner.confine import confined, is_confinement

        plan, fact = confined(plan, horizon)
        try:
            out = evaluate(plan, {**rows, **fact}, strategy, repeating, engine=engine)
        except HorizonNeeded as e:
            from chronolog.language.timeline import format_interval

            end = "end" if horizon[1] == INF else "start"
            e.hint = f"give the horizon {format_interval(horizon)} a finite {end} (it is open where the recursion moves time)"
            e.args = (e.render(),)
            raise
        for p in [p for p in out.store.relations if is_confinement(p)]:
            del out.store.relations[p]
        for kept in (out.repeating, out.quiet):
            for p in [p for p in kept if is_confinement(p)]:
                del kept[p]
        return out
    out = Outcome(Store())
    for p, r in rows.items():
        out.store.relation(p).bulk_add(list(r))
    if repeating:
        plan, repeating = _given_repeating(plan, repeating)
        for p, by in repeating.items():
            out.repeating[p] = {t: list(rs) for t, rs in by.items()}
            out.store.relation(p)
    if plan.uses_top:
        from chronolog.language.timeline import EVERYWHERE
        from chronolog.planner.normalize import TOP

        out.store.relation(TOP).add((), EVERYWHERE)
    plan = _materialise_unbounded(plan)
    given = sum(len(r) for r in rows.values())  # (auto's measure, as the hybrid evaluator counts a run's facts)
    for stratum in plan.strata:
        _run_stratum(plan, stratum, out, strategy, engine, given)
    if plan.constraints:
        _check_constraints(plan, out)
    return out


def _given_repeating(plan, repeating):
    """Repeating given facts of a derived predicate enter through a fresh
    input predicate and a copy rule, so that the strategies see them as
    inputs that repeat (the stratum's own facts are what it computes)."""
    from chronolog.language import ast

    derived = plan.derived_predicates()
    inputs, rules = {}, []
    for p, by in repeating.items():
        if p not in derived:
            inputs[p] = by
            continue
        name = f"$given{next(_fresh_numbers)}"
        terms = tuple(ast.Var(f"X{i}") for i in range(len(next(iter(by)))))
        rules.append(PlanRule(p, terms, [Scan(name, terms)], None, None))
        inputs[name] = by
    if rules:
        all_rules = list(plan.rules) + rules
        plan = dataclasses.replace(plan, rules=all_rules, strata=stratify(all_rules))
    return plan, inputs


def _run_stratum(plan, stratum, out, strategy, engine="rows", given=0) -> None:
    out._bounded = []
    info = _stratum(plan, stratum, out, strategy, engine, given)
    out.runs.append((frozenset(stratum.preds), out._bounded, info))


def _stratum(plan, stratum, out, strategy, engine, given):
    """One stratum's model into ``out``; its component (None: it does not repeat)."""
    own = set(stratum.preds)
    sub = dataclasses.replace(plan, rules=list(stratum.rules), strata=[stratum], constraints=[])
    core = {}
    for p in stratum.reads | own:
        rel = out.store.get(p)
        if rel is not None and rel.atoms:
            core[p] = {t: list(ivs) for t, ivs in rel.atoms.items()}
    reps = {p: out.repeating[p] for p in stratum.reads - own if out.repeating.get(p)}
    quiet = {p: out.quiet[p] for p in stratum.reads - own if out.quiet.get(p)}
    moving = stratum.recursive and bool(stratum.shifting_rules)
    if reps:
        _refuse_time_as_data(stratum, reps)
    grouped = False
    if moving or reps:
        grouped = _check_time_grouping(stratum, moving)
    window = None
    if moving and not reps and not quiet and not grouped and direction(stratum.rules, own).kind in ("forward", "backward"):
        window = _confined_window(stratum, core)
    if window is not None:  # a finite model within the facts it reads: its fixpoint, no repetition searched
        store, _ = _attempt(sub, _store_of(core), window, strategy, _attempts_on(sub, given, engine), out, "run")
        _keep(out, store, {}, own)
        return None
    if not moving and not reps:
        store = _store_of(core)
        run_bounded(out, Evaluator(sub, store, None, strategy), "run")
        _keep(out, store, {}, own)
        _keep_quiet(out, _local_quiet(sub, core, {}, quiet), own)
        return None
    if not moving:  # (by key where keys are independent: each batch's inputs unrolled over its own facts' span)
        store, rep, info = _forward(sub, core, reps, own, strategy, out, one=_two_sided)
        info["direction"] = "none"
        info["quiet"] = _local_quiet(sub, core, reps, quiet)
    else:
        d = direction(stratum.rules, own)
        if d.kind == "mixed" or grouped:
            # a grouping reads the whole period around t; two_way needs no
            # direction (and time mirrored would turn [start, end) periods
            # into (start, end] ones)
            from .two_way import two_way

            store, rep, info = _forward(sub, core, reps, own, strategy, out, one=two_way, quiet=quiet)
            info["direction"] = "both" if d.kind == "mixed" else d.kind
        elif d.kind == "backward":
            mirrored = dataclasses.replace(sub, rules=[mirror_rule(r) for r in sub.rules])
            mirrored.strata = stratify(mirrored.rules)
            store, rep, info = _forward(mirrored, _mirror_core(core), _mirror_reps(reps), own, strategy, out,
                                        quiet=_mirror_quiet(quiet), on=_attempts_on(mirrored, given, engine))
            store, rep = _mirror_answer(store, rep)
            out._bounded = [dataclasses.replace(r, window=mirror_interval(r.window) if r.window else None) for r in out._bounded]
            info["direction"] = "backward"
            info["quiet"] = _mirror_quiet(info.get("quiet") or {})
            if info.get("repeats_from") is not None:
                info["repeats_from"] = -info["repeats_from"]
        else:
            store, rep, info = _forward(sub, core, reps, own, strategy, out, quiet=quiet, on=_attempts_on(sub, given, engine))
            info["direction"] = "forward"
    _keep_quiet(out, info.pop("quiet", None) or {}, own)
    info["predicates"] = sorted(p for p in own if not p.startswith("$"))
    info["executor"] = "columns" if own & out.on_columns else "rows"
    if info["predicates"]:
        out.components.append(info)
    _keep(out, store, rep, own)
    return info


def describe_repetition(c: dict) -> str:
    """Where a component (:attr:`Outcome.components`) repeats: "repeats
    every 7 from 12", "constant from 3" (``run --stats``, ``plan --analyze``)."""
    from chronolog.language.timeline import format_number

    if c.get("period") is None or c.get("kind") == "constant":
        what = f"constant from {format_number(c['repeats_from'])}"
    else:
        what = f"repeats every {format_number(c['period'])} from {format_number(c['repeats_from'])}"
    if c.get("repeats_before") is not None:
        what += f", and into the past before {format_number(c['repeats_before'])}"
    return what


# ------------------------------------------------------------------ pieces
def _check_time_grouping(stratum, moving) -> bool:
    """Whether the stratum groups time.  A grouping repeats with its cycle
    (its length for days, weeks, hours, a number of time units; 400 years,
    the Gregorian cycle, for months and years), which the strategies take
    into the period.  A cycle longer than the dates Python represents (23
    months, say: 9,200 years) needs a horizon."""
    try:
        return group_period(stratum.rules) is not None
    except ValueError as e:
        rule = e.args[0]
        src = rule.source
        why = "inside a recursion through time" if moving else "over facts that repeat forever"
        raise HorizonNeeded(
            f"a time grouping {why} needs a horizon: its calendar periods repeat only after more than "
            "8,000 years, so chronolog cannot find where such a model repeats\n  "
            + (src.text if src is not None and src.text else rule.describe()),
            src.pos if src is not None else None,
            hint=HORIZON_HINT + ", or group by a count of months that divides 4,800",
        ) from None


def _refuse_time_as_data(stratum, reps) -> None:
    """An interval term or a time capture over facts that repeat forever
    puts each repetition's time in the terms: infinitely many different
    facts, which no ``every`` holds (``d(a,12,12)@[12,12] every 1`` would
    say d(a,12,12) holds at 13)."""
    for rule in stratum.rules:
        if is_since_until(rule) or not isinstance(rule_operator(rule), (CaptureTime, WrapInterval)):
            continue
        read = [lit.pred for lit in rule.body if isinstance(lit, Scan) and lit.pred in reps]
        if read:
            src = rule.source
            raise HorizonNeeded(
                f"{rule_text_of(rule)} turns the time of facts that repeat forever into data, which gives "
                "infinitely many different facts: the model does not repeat, so it needs a horizon",
                src.pos if src is not None else None,
                source_line=src.text if src is not None and src.pos.column == 1 and "\n" not in src.text else "",
            )


def rule_text_of(rule) -> str:
    """The rule as the user wrote it (the user's rule that needed a rule the planner made)."""
    src = rule.source
    return f"the rule {src.text}" if src is not None and src.text else f"the rule {rule.describe()}"


def _periods(plan, reps, sign):
    """The period the stratum's model must repeat with on one side: the lcm
    of its repeating inputs' periods there and of its time groupings'
    lengths; and whether a constant model is possible (no repeating inputs
    on that side)."""
    joint = _joint_period(reps, sign)
    g = group_period(plan.rules)
    both = lcm_of([x for x in (joint, g) if x is not None])
    return both, joint is None


def _store_of(core: dict) -> Store:
    store = Store()
    for p, atoms in core.items():
        store.relation(p).atoms = {t: list(ivs) for t, ivs in atoms.items()}
    return store


def _keep(out, store, rep, own) -> None:
    """Move the stratum's own predicates from its store into the answer."""
    for p in own:
        rel = store.get(p)
        target = out.store.relation(p)
        target.atoms = dict(rel.atoms) if rel is not None else {}
        target.clear_indexes()
        if rep.get(p):
            out.repeating[p] = rep[p]


def _keep_quiet(out, quiet, own) -> None:
    """Record where the stratum's predicates repeat between clusters."""
    for p in own:
        if quiet.get(p):
            out.quiet[p] = sorted(quiet[p])


def _mirror_quiet(quiet):
    return {p: [(-hi, -lo, q) for lo, hi, q in ws] for p, ws in quiet.items()}


def _mirror_core(core):
    return {p: {t: sorted(mirror_interval(iv) for iv in ivs) for t, ivs in atoms.items()} for p, atoms in core.items()}


def _mirror_reps(reps):
    return {p: {t: [Repeating(mirror_interval(r.iv), -r.period) for r in rs] for t, rs in by.items()} for p, by in reps.items()}


def _joint_period(reps, sign):
    periods = {abs(r.period) for by in reps.values() for rs in by.values() for r in rs if (r.period > 0) == (sign > 0)}
    return lcm_of(periods) if periods else None


def _materialise_unbounded(plan):
    """Put each unbounded literal that shares its rule with other literals (or
    a head shift) in a fresh predicate, so that whether it holds is visible
    in the window whose repetition proves the model periodic."""
    rules = []
    changed = False
    for r in plan.rules:
        if is_since_until(r) or (len(r.body) == 1 and r.head_shift is None):
            rules.append(r)
            continue
        body = []
        for lit in r.body:
            if isinstance(lit, Scan) and _unbounded(lit):
                names = []
                for t in lit.terms:
                    if hasattr(t, "name") and t.name not in names:
                        names.append(t.name)
                from chronolog.language import ast

                terms = tuple(ast.Var(n) for n in names)
                name = f"$unbounded{next(_fresh_numbers)}"
                rules.append(PlanRule(name, terms, [lit], None, r.source, fresh=True))
                body.append(Scan(name, terms, origin=lit.origin))
                changed = True
            else:
                body.append(lit)
        rules.append(r.replaced(body=body) if changed else r)
    if not changed:
        return plan
    return dataclasses.replace(plan, rules=rules, strata=stratify(rules))


def _unbounded(scan) -> bool:
    return any(w is not None and (w[0] in (INF, -INF) or w[1] in (INF, -INF)) for w in (scan.box, scan.shift))


def _ends(core, reps, sign=1):
    """Finite interval ends of the inputs (the first occurrence of repeating
    ones): the model can only repeat after the last (``sign`` 1) of them."""
    xs = [x for atoms in core.values() for ivs in atoms.values() for iv in ivs for x in iv[:2] if x not in (INF, -INF)]
    xs += [x for by in reps.values() for rs in by.values() for r in rs for x in r.iv[:2] if x not in (INF, -INF)]
    return xs


# independent keys are computed in at most this many batches per executor
# (of at least MIN_BATCH keys, from 2 * MIN_BATCH keys), sorted by where their
# facts end, a batch also cut (down to one key) where its keys' ends spread
# over more than the first attempt's span (_key_groups).  A batch's search runs each key from its facts to a bound
# past the batch's last end: a cycle over 20,000 keys seeded within 1,000
# units listed each key's fact over 125 units in 8 batches, 17.1 s on rows
# and 5.5 s on columns; cut by their spread 3.3 and 2.6 s (CPU; the number
# of batches then matters little on rows: 3.3 s at 8, 3.1 at 128).  A
# columnar attempt has a fixed cost per batch: 128 took repeating_columns'
# backward recursion (then searched) from 3.8 to 8.6 s and periodic_scaling's
# 16,000 keys from 1.0 to 1.7 s, so the columns keep 8, and so does auto,
# whose attempts choose their executor by their size (_attempt).
KEY_BUCKETS = {"rows": 128, "columns": 8, "auto": 8}
MIN_BATCH = 2


def _forward(plan, core, reps, own, strategy, out, one=None, quiet=None, on="rows"):
    """Split by key when the stratum is partitionable: each batch of keys is
    computed (by ``one``, unless given the forward strategy with its
    attempts on the executor ``on``) to a bound past its own last fact, not
    everyone's, in :data:`KEY_BUCKETS` batches for ``on``.  ``quiet``: where
    the predicates it reads repeat between clusters (:attr:`Outcome.quiet`).
    Keys whose facts lie far apart in time are batched aligned
    (:func:`_aligned_groups`)."""
    may_align = one is None and _shifts_alike(plan, reps, quiet)
    one = one or functools.partial(_forward_one, on=on)
    quiet = quiet or {}
    width = _first_span(program_reach(plan.rules), reps)
    groups = _key_groups(plan, core, reps, KEY_BUCKETS[on], width)
    if groups is None:
        return one(plan, core, reps, own, strategy, out, quiet=quiet)
    parts = None
    if may_align and len(groups) > KEY_BUCKETS[on]:  # (cut by their spread: a search for each few keys)
        aligned = _aligned_groups(plan, core, reps, own, KEY_BUCKETS[on], width)
        if aligned is not None and len(aligned[0]) < len(groups):
            parts = _batches(plan, aligned[0], own, strategy, out, one, quiet, aligned[1])
            if parts is not None:
                groups = aligned[0]
    if parts is None:  # (not aligned, or a batch found stretches between clusters, which are in absolute time)
        parts = _batches(plan, groups, own, strategy, out, one, quiet)
    answer, repeating, infos = Store(), {}, []
    for store, rep, info in parts:
        for p, rel in store.relations.items():
            answer.relation(p).atoms.update(rel.atoms)
        for p, by in rep.items():
            repeating.setdefault(p, {}).update(by)
        infos.append(info)
    periods = [i["period"] for i in infos if i["period"] is not None]
    info = {
        "bound": max(i["bound"] for i in infos),
        "attempts": max(i["attempts"] for i in infos),
        "repeats_from": max(i["repeats_from"] for i in infos),
        "period": lcm_of(periods) if periods else None,
        "kind": "periodic" if repeating else "constant",
        "key groups": len(groups),
        "quiet": _merged_quiet([(store, rep, i.get("quiet") or {}) for store, rep, i in parts], own),
    }
    if any(i.get("aligned") for i in infos):
        info["keys aligned"] = True
    cut = [i["gaps cut"] for i in infos if i.get("gaps cut")]
    if cut:
        info["gaps cut"] = (sum(n for n, _ in cut), sum(u for _, u in cut))
    before = [i["repeats_before"] for i in infos if i.get("repeats_before") is not None]
    if before:
        info["repeats_before"] = min(before)
    return answer, repeating, info


def _batches(plan, groups, own, strategy, out, one, quiet, aligned=None):
    """``(store, repeating, info)`` of each batch of keys; of aligned ones
    (``aligned``: ``(key positions, offsets)``) moved back, or None where
    one found its model repeating between clusters of facts
    (:attr:`Outcome.quiet`: in absolute time, which aligned keys do not
    share)."""
    parts = []
    for g_core, g_reps in groups:
        ran = len(out._bounded)
        store, rep, info = one(plan, g_core, g_reps, own, strategy, out, quiet=quiet)
        if aligned is not None:
            if info.get("quiet"):
                return None
            store, rep, info = _shifted_back(store, rep, info, *aligned)
            for r in out._bounded[ran:]:  # (their windows are in the batch's aligned time)
                r.what += " of keys aligned at their first facts"
        parts.append((store, rep, info))
    return parts


def _shifts_alike(plan, reps, quiet) -> bool:
    """Whether the stratum's model of facts moved in time is its model of
    them, moved (what :func:`_aligned_groups` needs): no time grouping (its
    periods are fixed to the calendar), no rule putting time into terms or
    an interval from terms, no labelled nulls; no inputs repeating into the
    past nor quiet stretches of them (both in absolute time)."""
    from chronolog.planner.physical import ChaseStep, PlaceInterval

    if quiet or _joint_period(reps, -1) or group_period(plan.rules) is not None:
        return False
    return not any(isinstance(rule_operator(r), (CaptureTime, WrapInterval, PlaceInterval, ChaseStep))
                   for r in plan.rules if not is_since_until(r))


def _aligned_groups(plan, core, reps, own, buckets, width):
    """:func:`_key_groups` of the facts moved in time key by key, each key's
    by a whole number of units so that its first finite end lies in [0, 1):
    keys seeded far apart (a cycle over 20,000 keys seeded across 10^9
    units) otherwise make a batch each, and a search each (7.3 s, where the
    same keys seeded within 1,000 units took 2.7 s in 8 batches).  A key's
    model is then its aligned model moved back (:func:`_shifts_alike`; keys
    are independent).  ``(groups, (key positions, offsets))``, or None."""
    from .stretch_join import key_positions, last_ends

    keys = key_positions(plan, set(core) | set(reps) | set(own))
    if keys is None:
        return None
    offsets = {k: math.floor(m) for k, m in last_ends(keys, core, reps, pick=min).items() if m is not None}
    moved_core = {p: {t: [moved(iv, -offsets.get(t[keys[p]], 0)) for iv in ivs] for t, ivs in atoms.items()}
                  for p, atoms in core.items()}
    moved_reps = {p: {t: [Repeating(moved(r.iv, -offsets.get(t[keys[p]], 0)), r.period) for r in rs] for t, rs in by.items()}
                  for p, by in reps.items()}
    groups = _key_groups(plan, moved_core, moved_reps, buckets, width)
    return None if groups is None else (groups, (keys, offsets))


def _shifted_back(store, rep, info, keys, offsets):
    """A batch's answer of aligned keys (:func:`_aligned_groups`) moved back
    key by key; its bound and where it repeats from moved by the largest
    offset (an upper bound for each of its keys)."""
    back = Store()
    most = 0
    for p, rel in store.relations.items():
        at = keys[p]
        atoms = back.relation(p).atoms
        for t, ivs in rel.atoms.items():
            d = offsets.get(t[at], 0)
            most = max(most, d)
            atoms[t] = [moved(iv, d) for iv in ivs]
    back_rep = {}
    for p, by in rep.items():
        at = keys[p]
        back_rep[p] = {}
        for t, rs in by.items():
            d = offsets.get(t[at], 0)
            most = max(most, d)
            back_rep[p][t] = [Repeating(moved(r.iv, d), r.period) for r in rs]
    info = dict(info, aligned=True)
    for k in ("bound", "repeats_from"):
        if info.get(k) is not None:
            info[k] = info[k] + most
    return back, back_rep, info


def _key_groups(plan, core, reps, buckets, width):
    """Batches of key values, each with its facts, sorted by where their
    facts end, at most ``len / buckets`` keys each and ending within
    ``width`` of each other (a batch's search runs to a bound past its
    last key's end, so each key's model is computed from its facts to
    there: over ``width`` more than its own search would take, at most);
    None when the stratum is not partitionable by a key (then keys may
    interact and must be computed together)."""
    from .stretch_join import key_positions, last_ends

    keys = key_positions(plan, set(core) | set(reps))
    if keys is None:
        return None
    last = last_ends(keys, core, reps)
    if len(last) < 2 * MIN_BATCH:
        return None
    order = sorted(last, key=lambda k: (last[k] is None, last[k] if last[k] is not None else 0))
    size = max(MIN_BATCH, -(-len(order) // buckets))
    cuts, first = [0], last[order[0]]
    for i, k in enumerate(order):
        x = last[k]
        if i - cuts[-1] >= size or (i > cuts[-1] and x is not None and (first is None or x - first > width)):
            cuts.append(i)
            first = x
    batch_of = {k: n for n, (i, j) in enumerate(zip(cuts, cuts[1:] + [len(order)])) for k in order[i:j]}
    groups = [({}, {}) for _ in cuts]
    for g, facts in ((0, core), (1, reps)):  # (each atom placed once: a pass per batch was quadratic in the keys)
        for p, atoms in facts.items():
            at = keys[p]
            for t, x in atoms.items():
                groups[batch_of[t[at]]][g].setdefault(p, {})[t] = x
    return groups


def _forward_one(plan, core, reps, own, strategy, out, quiet=None, on="rows"):
    """One batch of keys of a forward stratum: its model up to where it
    repeats, its bounded attempts on the executor ``on`` (:func:`_attempts_on`)."""
    reach = program_reach(plan.rules)
    if not _joint_period(reps, -1) and _can_jump(plan, own):
        jumped = _forward_jumping(plan, core, reps, own, strategy, out, reach, quiet or {}, on=on)
        if jumped is not None:
            return jumped
    t_data = max(_ends(core, reps), default=0)
    left = _LeftSteadyState(plan, core, reps, reach) if _joint_period(reps, -1) else None
    found = _search(plan, core, reps, t_data, -INF, reach, strategy, out, left=left, on=on)
    store, rep, hi, attempt = found
    if left is not None:  # the past first, then the future, each folded only on its side of tau
        store, rep_left = left.cut(store, own)
        answer, repeating = _answer(store, rep, hi, own, fold_limit=left.tau)
        for p, by in rep_left.items():
            for t, rs in by.items():
                repeating.setdefault(p, {}).setdefault(t, []).extend(rs)
    else:
        answer, repeating = _answer(store, rep, hi, own)
    info = {
        "bound": hi,
        "attempts": attempt,
        "repeats_from": rep.start,
        "period": rep.period,
        "kind": "constant" if rep.period is None or not repeating else "periodic",
    }
    return answer, repeating, info


def _search(plan, core, reps, t_data, lo, reach, strategy, out, left=None, max_span=None, on="rows"):
    """Compute the model from ``lo`` (``-inf``, or a time before which
    ``core`` holds the exact state) to a bound ``hi`` past ``t_data`` (the
    last input event) that doubles until the model repeats after
    ``t_data``: ``(store, repetition, hi, attempts)``.  With ``max_span``
    the search gives up (returns None) rather than go further than that
    past ``t_data``; without it, it raises a positioned error.  ``on``:
    the executor of each attempt (rows, or columns: :func:`_attempts_on`)."""
    joint = _joint_period(reps, 1)
    span = _first_span(reach, reps)
    first = min((r.iv[0] for by in reps.values() for rs in by.values() for r in rs), default=0)
    rep, expected = None, None
    for attempt in range(1, MAX_ATTEMPTS + 1):
        if max_span is not None and span > max_span:
            return None
        hi = t_data + span
        if left is not None:
            store, ev = left.run(hi, strategy, out)
        else:
            store = _store_of(core)
            _add_unrolled(store, reps, (first, hi + reach + 1, True, True))
            window = make(-INF, hi, False, True) if lo == -INF else make(lo, hi, True, True)
            store, ev = _attempt(plan, store, window, strategy, on, out, expected=expected)
        rep = _repetition(plan, store, ev, t_data, hi, reach, joint)
        if rep is not None:
            return store, rep, hi, attempt
        if ev.stats["derivations"] > MAX_DERIVATIONS:
            break  # the next attempt would be twice as big: give up now
        span *= 2
        expected = 2 * ev.stats["derivations"]
    if max_span is not None:
        return None
    rule = plan.strata[0].shifting_rules[0]
    src = rule.source
    raise HorizonNeeded(
        f"no repeating pattern in the model up to time {_fmt(hi)}: the recursion through\n  "
        + (src.text if src is not None and src.text else rule.describe())
        + "\nkeeps changing (it may create new values at every step)",
        src.pos if src is not None else None,
    )


def _first_span(reach, reps):
    """How far past the last input event the search's first attempt runs:
    the look-back reach four times over, and three joint periods of the
    inputs that repeat."""
    joint = _joint_period(reps, 1)
    return 4 * (reach + 1) + (3 * joint if joint else 0)


def _attempts_on(plan, given, engine) -> str:
    """Where the bounded attempts of the forward stratum of ``plan`` run:
    "columns" when the columnar executor takes the stratum (a recurrence,
    planner/recurrence.py: the only recursion through time it sweeps) and
    ``engine`` asks for columns; "auto" (each attempt by its expected size,
    :func:`_attempt`) when ``engine`` is auto and the run's ``given`` facts
    reach the recurrences' threshold (planner/input_size.py, as a run with
    a horizon counts them: all keys, though the stratum is computed in
    batches of them); else "rows".  An attempt on columns is one columnar
    run to the bound, and the repetition is searched in its facts as in
    the rows'."""
    if engine == "rows":
        return "rows"
    from chronolog.planner.backend_choice import has_recurrence

    if not has_recurrence(plan):
        return "rows"
    if engine == "columns":
        return "columns"
    from chronolog.planner.input_size import by_size

    return "auto" if by_size(given, 0, 0, recurrences=True) else "rows"


def _confined_window(stratum, core):
    """A window that holds the whole model of ``stratum``, whose recursion
    moves time, where that model is finite: the facts of atoms outside its
    cycle confine it and every fact it reads (``core``) ends
    (planner/confining.finite_where_facts_end), so each fact it derives
    lies within them widened by its rules' reach (None: not known to be
    finite: its repetition is searched).  The run within it is the
    stratum's fixpoint (the window cuts nothing), less work than the
    search's attempts and comparisons (docs/design.md: repeating_columns'
    forward recursion 2.1 against 3.4 s of CPU)."""
    from chronolog.planner.confining import finite_where_facts_end

    if not finite_where_facts_end(stratum):
        return None
    ends = [x for atoms in core.values() for ivs in atoms.values() for iv in ivs for x in iv[:2]]
    if not ends or any(x in (INF, -INF) for x in ends):
        return None
    margin = 2 * program_reach(stratum.rules) + 1
    return make(min(ends) - margin, max(ends) + margin, True, True)


def _attempt(plan, store, window, strategy, on, out, what: str = "attempt", expected=None):
    """One bounded attempt: ``plan`` evaluated over ``store`` within
    ``window`` on the executor ``on``; ``(store, evaluator)``, the store
    holding the model (a column relation's rows made when read).  A stratum
    the columns refuse, or meet what they cannot do exactly in, runs on rows
    there (the hybrid evaluator's own fallback); ``out.on_columns`` gets the
    predicates of those that ran on columns.  ``on`` "auto": columns where
    the attempt is expected to derive ``input_size.ATTEMPT_MIN_DERIVATIONS`` facts
    (``expected``: twice the last attempt's, the bound having doubled;
    None: four times the facts its store holds), else rows."""
    if on == "auto":
        if expected is None:  # (the first attempt runs four reaches past the inputs: a derivation per reach of each)
            expected = 4 * sum(len(ivs) for rel in store.relations.values() for ivs in rel.atoms.values())
        from chronolog.planner.input_size import ATTEMPT_MIN_DERIVATIONS

        on = "columns" if expected >= ATTEMPT_MIN_DERIVATIONS else "rows"
    if on != "columns":
        ev = Evaluator(plan, store, window, strategy)
        run_bounded(out, ev, what)
        return store, ev
    from .columns.evaluator import HybridEvaluator

    ev = HybridEvaluator(plan, store, window, strategy, engine="columns")
    run_bounded(out, ev, what)
    for st in plan.strata:
        if ev.executors.get(st.index) == "columns":
            out.on_columns.update(st.preds)
    return ev.store, ev


def _repetition(plan, store, ev, t_data, hi, reach, joint):
    """:func:`~.periodic.find_repetition` in an attempt's model: on its
    frames when every stratum of the attempt ran on columns (columns/
    repetition.py: no Python row per fact), else on its rows."""
    if getattr(ev, "executors", None) and all(ev.executors.get(st.index) == "columns" for st in plan.strata):
        from .columns.encoding import Fallback
        from .columns.repetition import find_repetition as on_columns

        try:
            return on_columns(ev, t_data, hi, reach, multiple_of=joint)
        except Fallback:  # (a row input off the run's grid: searched on rows)
            pass
    return find_repetition(store, t_data, hi, reach, multiple_of=joint)


# ---------------------------------------------------------- jumping gaps
def _can_jump(plan, own) -> bool:
    """Whether the recursion reads its own predicates within a finite reach
    (an unbounded window over them reads all of the past, which a window of
    the state does not hold), and nothing at an unbounded distance ahead
    (``<+>[1,+inf) p`` at a time before a gap reads the facts after it,
    which a stretch leaves out)."""
    from chronolog.planner.fragment import rule_reach

    for r in plan.rules:
        for pred, ahead, back in rule_reach(r):
            if pred in own and (ahead in (INF, -INF) or back in (INF, -INF)):
                return False
            if ahead in (INF, -INF):
                return False
    return True


def read_from_afar(plan) -> frozenset:
    """The predicates a rule reads at an unbounded distance in the past
    (``<->[1,+inf) p``): a stretch keeps every fact of theirs, however old,
    since each one still holds such a body after any gap."""
    from chronolog.planner.fragment import rule_reach

    return frozenset(pred for r in plan.rules for pred, _, back in rule_reach(r) if back in (INF, -INF))


def _forward_jumping(plan, core, reps, own, strategy, out, reach, quiet, on="rows"):
    """The forward model computed stretch by stretch, jumping over the
    quiet gaps between clusters of input data; None when there is no gap
    worth jumping.

    Why it is exact.  Let the inputs' events (finite interval ends) be
    ``... <= e < n <= ...`` with nothing in ``(e, n)``.  Replace the inputs
    by ``I'``: those starting before ``n``, the ones still holding at ``n``
    held forever.  ``I'`` agrees with the inputs before ``n``, and what a
    forward stratum derives at ``t`` reads its inputs within ``reach`` of
    ``t`` and its own facts only before ``t`` (within ``reach``), so the
    model ``M'`` of ``I'`` agrees with the true model ``M`` before
    ``n - reach``.  ``I'`` has no event after ``e``, so ``M'`` is found by
    the usual search (a repetition after ``e`` that covers the look-back
    reach: forward determinism makes it repeat forever), however far away
    ``n`` is.  The next stretch starts at ``lo = n - reach - 1``: its store
    holds ``M'`` on ``[lo - reach - 1, lo)`` (the state, exact) and the
    inputs; evaluating heads from ``lo`` on gives ``M`` there, since every
    derivation at ``t >= lo`` reads only that state, the inputs, and facts
    derived at ``[lo, t]`` (fresh predicates derived before ``lo`` from the
    partial state are sound, so they add nothing wrong).  The stretches'
    models, each kept on its own ``[lo, next lo)``, are ``M``; the last one
    repeats as usual.  Rounds grow with the stretches' count, not with the
    gaps' lengths.  A gap where no repetition shows within half its length
    is not jumped (its stretch continues to the next gap).

    Inputs that repeat.  A gap may also hold inputs that repeat there: a
    lower stratum's model between its own clusters (``quiet``, where the
    store lists every instance) or facts that repeat forever (``reps``).
    Where an input ``P`` repeats with ``q`` on ``(lo, hi)`` and
    ``lo + q <= e``, ``hi >= n``, ``I'`` takes ``P`` before ``s = e - q`` as
    it is and its instances on ``[s, e)`` repeating with ``q`` forever:
    that agrees with ``P`` before ``n`` again, and after ``e`` every input
    repeats with the lcm of their periods (or is constant), so the search
    finds ``M'`` with a period that is a multiple of it (the stratum's state
    and its inputs repeat together).  Each stretch's repetition is recorded
    (``info["quiet"]``) for the strata that read this one."""
    wide = 16 * (reach + 1)
    gaps = _quiet_gaps(core, reps, quiet, wide)
    if gaps is None:
        return None
    from .stretch_join import Finishing, joined

    margin = reach + 1
    afar = read_from_afar(plan)
    pieces = []  # (window, answer, repeating)
    windows = []  # (lo, hi, q): where the model repeats between clusters
    lo, state, attempts, jumps = -INF, {}, 0, 0
    finishing = Finishing.of(plan, core) if not (reps or quiet or afar) else None
    j = 0
    while True:
        e, n, periodic = gaps[j]
        seg, seg_reps = _stretch_inputs(core, reps, e, n, lo - 2 * margin, afar, periodic)
        for p, atoms in state.items():
            rel = seg.setdefault(p, {})
            for t, ivs in atoms.items():
                rel[t] = coalesce(list(rel.get(t, [])) + ivs)
        found = _search(plan, seg, seg_reps, e, lo, reach, strategy, out,
                        max_span=None if n == INF else Fraction(n - e) / 2, on=on)  # (exact: n - e may pass the float range)
        if found is None:
            j += 1  # no repetition yet: this gap is part of the stretch
            continue
        store, rep, hi, a = found
        attempts += a
        answer, repeating = _answer(store, rep, hi, own)
        if n == INF:
            pieces.append((make(lo, INF, True, False) if lo != -INF else None, answer, repeating))
            break
        nlo = n - margin
        if finishing is not None:  # (keys with no input after e: their model is the stretch's for good)
            done, (answer, repeating) = finishing.split(e, answer, repeating, rep)
            if done is not None:
                pieces.append((make(lo, INF, True, False) if lo != -INF else make(-INF, INF, False, False), *done))
        pieces.append((make(lo, nlo, True, False) if lo != -INF else make(-INF, nlo, False, False), answer, repeating))
        period = finishing.period(rep.period) if finishing is not None else rep.period
        if period is not None and nlo > rep.start:
            windows.append((rep.start, nlo, period))  # M' = M before nlo, and repeats from rep.start
        state = _unrolled(answer, repeating, make(nlo - margin, nlo, True, False))
        lo, j, jumps = nlo, j + 1, jumps + 1
    result, final_rep = joined(pieces, own)
    period = finishing.period(rep.period) if finishing is not None else rep.period
    info = {
        "bound": hi,
        "attempts": attempts,
        "repeats_from": rep.start,
        "period": period,
        "kind": "constant" if period is None or not final_rep else "periodic",
        "jumps": jumps,
        "quiet": {p: list(windows) for p in own} if windows else {},
    }
    return result, final_rep, info



def _quiet_gaps(core, reps, quiet, wide):
    """The gaps wider than ``wide`` between the inputs' events, each as
    ``(e, n, periodic)``, the last one ``(e, inf, {})``; None when there is
    no finite one.  An interval end of ``P`` inside ``(lo + q, hi)`` for a
    window ``(lo, hi, q)`` of ``quiet[P]`` (``P`` repeats with ``q`` there)
    is no event; ``lo + q`` and ``hi`` are.  So in a gap ``(e, n)`` every
    input either has no event, or repeats with ``periodic[P]`` on
    ``(e - periodic[P], n)``.  A fact repeating forever (``reps``) counts its
    first instance's ends: after them it repeats."""
    events, used = _events(core, reps, quiet)
    gaps = []
    for e, n in zip(events, events[1:]):
        if n - e > wide:
            gaps.append((e, n, _periodic_in(used, e, n)))
    if not gaps:
        return None
    gaps.append((events[-1], INF, {}))
    return gaps


def _periodic_in(used, e, n) -> dict:
    """``{pred: q}`` for the inputs that repeat across the gap ``(e, n)``."""
    periodic = {}
    for p, ws in used.items():
        for lo, hi, q in ws:
            if lo + q <= e and n <= hi:
                periodic[p] = q
    return periodic


def _events(core, reps, quiet):
    """The sorted events of :func:`_quiet_gaps` and ``{pred: windows}``
    whose inside holds some of ``pred``'s ends that are no events."""
    events, used = set(), {}
    for p, atoms in core.items():
        ws = sorted(w for w in quiet.get(p, ()) if w[2])
        starts = [w[0] for w in ws]
        for ivs in atoms.values():
            for iv in _outside(ivs, ws, used.setdefault(p, set())):
                for x in iv[:2]:
                    if x in (INF, -INF):
                        continue
                    i = bisect.bisect_right(starts, x) - 1
                    if i >= 0 and ws[i][0] + ws[i][2] < x < ws[i][1]:
                        used[p].add(ws[i])
                    else:
                        events.add(x)
    used = {p: ws for p, ws in used.items() if ws}
    for ws in used.values():
        for lo, hi, q in ws:
            events.update(x for x in (lo + q, hi) if x not in (INF, -INF))
    for by in reps.values():
        for rs in by.values():
            for r in rs:
                events.update(x for x in r.iv[:2] if x not in (INF, -INF))
    return sorted(events), used


def _outside(ivs, ws, used):
    """The intervals of ``ivs`` not wholly inside some window's ``(lo + q,
    hi)`` (those windows go into ``used``): a window holds its instances as
    one run of the sorted, disjoint maximal intervals, found by bisection
    instead of one test per end (a gap of 10^6 holds ~10^5 of them)."""
    if not ws or len(ivs) < 64:
        return ivs
    starts = [iv[0] for iv in ivs]
    ends = [iv[1] for iv in ivs]
    if any(a > b for a, b in zip(ends, starts[1:])):  # not sorted and disjoint: one by one
        return ivs
    runs = []
    for w in ws:
        i0 = bisect.bisect_right(starts, w[0] + w[2])
        i1 = bisect.bisect_left(ends, w[1], i0)
        if i1 > i0:
            used.add(w)
            runs.append((i0, i1))
    if not runs:
        return ivs
    out, at = [], 0
    for i0, i1 in sorted(runs):
        out.extend(ivs[at:i0])
        at = max(at, i1)
    out.extend(ivs[at:])
    return out


def _stretch_inputs(core, reps, e, n, keep_from, afar, periodic):
    """``I'`` for the stretch before the gap ``(e, n)`` (see
    :func:`_forward_jumping`): ``(facts, repeating facts)``.  Intervals
    ending before ``keep_from`` are left out but for the predicates read
    from afar, and so are the instances of facts repeating forever."""
    seg = _inputs_before({p: a for p, a in core.items() if p not in periodic}, n, keep_from, afar)
    seg_reps = {}
    for p, q in periodic.items():
        s = e - q
        before, pattern = make(-INF, s, False, False), make(s, e, True, False)
        old = keep_from if p not in afar else -INF
        rel, rrel = {}, {}
        for t, ivs in core[p].items():
            kept = [x for iv in ivs if iv[1] >= old and (x := intersect(iv, before)) is not None]
            reps_t = [Repeating(x, q) for iv in ivs if (x := intersect(iv, pattern)) is not None]
            if kept:
                rel[t] = kept
            if reps_t:
                rrel[t] = reps_t
        if rel:
            seg[p] = rel
        if rrel:
            seg_reps[p] = rrel
    for p, by in reps.items():
        for t, rs in by.items():
            kept = [r if p in afar else _from(r, keep_from) for r in rs if r.iv[0] < n]
            if kept:
                seg_reps.setdefault(p, {}).setdefault(t, []).extend(kept)
    return seg, seg_reps


def _from(r, x):
    """``r`` without the instances that end before ``x`` (forward only)."""
    if x in (INF, -INF) or r.iv[1] in (INF, -INF) or r.iv[1] >= x:
        return r
    k = math.ceil(Fraction(x - r.iv[1]) / Fraction(r.period))
    d = k * r.period
    return Repeating((r.iv[0] + d, r.iv[1] + d, r.iv[2], r.iv[3]), r.period)


def _merged_quiet(parts, own):
    """Where the union of key groups' models repeats: wherever each group's
    model either has no event or repeats (with the lcm of their periods)."""
    if not any(ws for _, _, ws in parts):
        return {}
    core, reps, quiet = {}, {}, {}
    for g, (store, rep, ws) in enumerate(parts):
        for p in own:
            rel = store.get(p)
            core[(g, p)] = rel.atoms if rel is not None else {}
            reps[(g, p)] = rep.get(p, {})
            quiet[(g, p)] = ws.get(p, [])
    gaps = _quiet_gaps(core, reps, quiet, 0) or []
    reach = _period_reach(reps)
    windows = [(e, n, q) for e, n, per in gaps if n != INF and (q := _gap_period(per, reach, e, n))]
    return {p: windows for p in own} if windows else {}


def _period_reach(reps):
    """Each period of the facts repeating forever, with how far its facts
    reach: the earliest start of those repeating forward and the latest end
    of those repeating backward (what :func:`_gap_period` asks of them,
    gathered once instead of once per gap: 15,000 gaps over as many
    repeating facts were quadratic)."""
    out = {}
    for by in reps.values():
        for rs in by.values():
            for r in rs:
                if r.period == 0:
                    continue
                first, last = out.get(abs(r.period), (INF, -INF))
                out[abs(r.period)] = (min(first, r.iv[0]), last) if r.period > 0 else (first, max(last, r.iv[1]))
    return out


def _gap_period(periodic, reach, e, n):
    """The period every input repeats with in the gap ``(e, n)`` of
    :func:`_quiet_gaps` (the ones repeating there and the facts repeating
    forever that have started; ``reach``: :func:`_period_reach`), None when
    none repeats (all are quiet)."""
    ps = set(periodic.values())
    ps.update(per for per, (first, last) in reach.items() if first < n or last > e)
    return lcm_of(ps) if ps else None


def _local_quiet(plan, core, reps, quiet):
    """A stratum whose recursion stays in time derives at ``t`` from its
    inputs within its reach of ``t``: where they all repeat (or are
    quiet), so does its model, a reach inside."""
    if not quiet and not reps:
        return {}
    reach = program_reach(plan.rules)
    if reach in (INF, -INF):
        return {}
    gaps = _quiet_gaps(core, reps, quiet, 2 * reach) or []
    periods = _period_reach(reps)
    windows = [(e + reach, n - reach, q) for e, n, per in gaps if n != INF and (q := _gap_period(per, periods, e, n))]
    own = {p for st in plan.strata for p in st.preds}
    return {p: windows for p in own} if windows else {}


def _inputs_before(core, n, keep_from, afar=frozenset()):
    """The inputs that start before ``n``, those holding at ``n`` held
    forever (so the inputs are quiet after their last event before ``n``);
    intervals ending before ``keep_from`` are left out (nothing from
    ``keep_from + reach`` on reads them), except those of the predicates in
    ``afar``, read at an unbounded distance (:func:`read_from_afar`)."""
    out = {}
    for p, atoms in core.items():
        rel = {}
        old = keep_from if p not in afar else -INF
        for t, ivs in atoms.items():
            kept = []
            for iv in ivs:
                if iv[0] >= n or iv[1] < old:
                    continue
                kept.append((iv[0], INF, iv[2], False) if iv[1] >= n else iv)
            if kept:
                rel[t] = kept
        if rel:
            out[p] = rel
    return out


def _unrolled(answer, repeating, window):
    """``{pred: {terms: [intervals]}}``: a (possibly repeating, into the
    future) answer's maximal intervals inside ``window``."""
    out = {}
    preds = set(answer.relations) | set(repeating)
    for p in preds:
        rel = answer.get(p)
        atoms = rel.atoms if rel is not None else {}
        reps = repeating.get(p, {})
        for t in set(atoms) | set(reps):
            pieces = list(atoms.get(t, []))
            rs = reps.get(t, [])
            if rs:
                first = min(r.iv[0] for r in rs)
                pieces += [x for r in rs for x in r.instances(max(window[0], first), window[1])]
            ivs = [x for iv in coalesce(pieces) if (x := intersect(iv, window)) is not None]
            if ivs:
                out.setdefault(p, {})[t] = ivs
    return out


class _LeftSteadyState:
    """A forward recursion that reads facts repeating into the past, with
    joint period ``P``: far enough back its model repeats with ``P`` too
    (shifting the whole past by ``P`` changes nothing), but what it is there
    depends on the whole infinite past.  Started at ``lo = tau - k*P``, the
    computation's state at ``tau`` (the window of width ``reach`` before it)
    is ``S_k``; by shifting, ``S_{k+1} = F(S_k)`` for the one-period
    transition ``F`` of a forward program, and ``S_k`` grows with ``k``
    towards the least model's state.  So once ``S_k == S_2k`` every later one
    is equal: the state is exact, and so is everything from ``tau - k*P`` on
    in the run from ``tau - 2k*P``.  ``k`` doubles until that happens."""

    def __init__(self, plan, core, reps, reach):
        self.plan, self.core, self.reps, self.reach = plan, core, reps, reach
        self.period = _joint_period(reps, -1)
        starts = [x for atoms in core.values() for ivs in atoms.values() for iv in ivs for x in iv[:2] if x not in (INF, -INF)]
        starts += [r.iv[0] for by in reps.values() for rs in by.values() for r in rs if r.period < 0]
        # facts repeating ahead start after tau too: the past before tau must
        # repeat with P, which their first instance breaks (a batch of keys
        # whose only early facts repeated ahead took tau after them and lost
        # the model's instances there, found by the key-group property test)
        starts += [r.iv[0] for by in reps.values() for rs in by.values() for r in rs if r.period > 0 and r.iv[0] != -INF]
        self.tau = min(starts) - reach - 1
        self.k = None  # converged k (exact from tau - k*P)

    def _run(self, k, hi, strategy, out):
        lo = self.tau - 2 * k * self.period if k else self.tau
        store = _store_of(self.core)
        _add_unrolled(store, self.reps, (lo - self.reach - 1, hi + self.reach + 1, True, True))
        ev = Evaluator(self.plan, store, make(lo, hi, True, True), strategy)
        run_bounded(out, ev)
        return store, ev

    def _state(self, store):
        w = make(self.tau - self.period - self.reach, self.tau, True, True)
        return {
            (p, t): [x for iv in ivs if (x := intersect(iv, w)) is not None]
            for p, rel in store.relations.items()
            for t, ivs in rel.atoms.items()
        }

    def run(self, hi, strategy, out):
        if self.k is not None:
            return self._run(self.k, hi, strategy, out)
        k, before = 2, None
        while True:
            store, ev = self._run(k, hi, strategy, out)
            state = {key: v for key, v in self._state(store).items() if v}
            if state == before:
                self.k = k
                return store, ev
            if ev.stats["derivations"] > MAX_DERIVATIONS or k > 2**12:
                rule = self.plan.strata[0].shifting_rules[0]
                src = rule.source
                raise HorizonNeeded(
                    "no steady state found for the recursion through\n  "
                    + (src.text if src is not None and src.text else rule.describe())
                    + "\nover the facts it reads that repeat into the past",
                    src.pos if src is not None else None,
                )
            before, k = state, 2 * k

    def cut(self, store, own):
        """The facts before ``tau`` repeat with ``P`` into the past: returns
        the store without them (but for the core) and the repeating facts."""
        exact_from = self.tau - self.k * self.period - self.reach
        mirrored, _ = _mirror_answer(store, {}, own)
        left, rep_left = _answer(mirrored, Repetition(-self.tau, self.period), -exact_from, own, fold_limit=-self.tau)
        return _mirror_answer(left, rep_left)


def _add_unrolled(store, reps, window) -> None:
    """Add the instances of repeating facts that meet ``window``.  Nothing is
    clipped: a fact that holds up to ``-inf`` (or ``+inf``) must stay so,
    or a box with an unbounded window over it would be false everywhere."""
    for p, by in reps.items():
        rel = store.relation(p)
        for t, rs in by.items():
            pieces = list(rel.atoms.get(t, []))
            for r in rs:
                try:
                    pieces.extend(r.instances(window[0], window[1]))
                except TooManyInstances:
                    raise listing_refused(f"{format_atom(p, t)}, read over the span of the data of the rules that read it and as "
                                          "far as their operators reach,",
                                          r, window[0], window[1]) from None
            rel.atoms[t] = coalesce(pieces)
        rel.clear_indexes()


def _two_sided(plan, core, reps, own, strategy, out, quiet=None):
    """A stratum whose recursion stays in time, reading facts that repeat:
    what it derives at ``x`` depends on its inputs near ``x`` only, so it
    repeats where they all do, on each side, and between clusters of its
    inputs far apart (whose gaps are cut out of its timeline, gap_cuts.py)."""
    ends = _ends(core, reps)
    cuts = gap_cuts.cut(plan, core, reps, program_reach(plan.rules), ends)
    if cuts is not None:
        ran = len(out._bounded)
        back = gap_cuts.put_back(cuts, *_two_sided_on(plan, cuts.core, cuts.reps, own, strategy, out))
        gaps = len(cuts.cuts)
        for r in out._bounded[ran:]:
            r.what += (f" with {gaps} long gap{'s' if gaps > 1 else ''} ({_fmt(cuts.total)} units) cut out of its"
                       " timeline (the window is on the cut timeline)")
        if back is not None:
            back[2]["gaps cut"] = (gaps, cuts.total)  # (run --stats)
            return back
    return _two_sided_on(plan, core, reps, own, strategy, out, ends)


def _two_sided_on(plan, core, reps, own, strategy, out, ends=None):
    reach = program_reach(plan.rules)
    ends = _ends(core, reps) if ends is None else ends
    (p_r, _), (p_l, _) = _periods(plan, reps, 1), _periods(plan, reps, -1)
    s_r, s_l = max(ends, default=0), min(ends, default=0)
    # exact up to hi - reach, which must hold the pattern window
    # [s_r + reach + p, s_r + reach + 2p] that _answer reads (and the mirror)
    hi = s_r + 4 * reach + 2 * (p_r or 0) + 2
    lo = s_l - 4 * reach - 2 * (p_l or 0) - 2
    store = _store_of(core)
    _add_unrolled(store, reps, (lo - reach - 1, hi + reach + 1, True, True))
    ev = Evaluator(plan, store, make(lo, hi, True, True), strategy)
    run_bounded(out, ev)
    answer, rep_right = _answer(store, Repetition(s_r + reach, p_r), hi - reach, own, fold_limit=s_l - reach)
    mirrored, _ = _mirror_answer(answer, {})
    left, rep_left = _answer(mirrored, Repetition(-(s_l - reach), p_l), -(lo + reach), own, fold_limit=-(s_r + reach))
    answer, rep_left = _mirror_answer(left, rep_left)
    for p, by in rep_left.items():
        for t, rs in by.items():
            rep_right.setdefault(p, {}).setdefault(t, []).extend(rs)
    info = {"bound": hi, "attempts": 1, "repeats_from": s_r + reach, "period": p_r,
            "kind": "periodic" if rep_right else "constant"}
    return answer, rep_right, info


def _fmt(x):
    from chronolog.language.timeline import format_number

    return format_number(x)


def _answer(store, rep, hi, own, fold_limit=None):
    """The own predicates' model in the answer's form: exact before ``hi``,
    constant or repeating from ``rep``.  An atom's intervals are sorted and
    disjoint (a Relation's), so where each part begins is found by
    bisection, not by a comparison per interval (an attempt of 20,000 keys
    holds 700,000 of them, ends of Fractions)."""
    from chronolog.language.timeline import contains

    exact = make(-INF, hi, False, False)
    answer = Store()
    repeating: dict = {}
    for pred, rel in store.relations.items():
        if pred not in own:
            continue
        target = answer.relation(pred)
        for terms, ivs in rel.atoms.items():
            k = len(ivs)
            while k and ivs[k - 1][1] >= hi:  # (the last ones, reaching the end of the exact part)
                k -= 1
            if k < len(ivs):
                ivs = ivs[:k] + [x for iv in ivs[k:] if (x := intersect(iv, exact)) is not None]
            if rep.period is None:
                i = bisect.bisect_right(ivs, rep.start, key=_start)  # those starting by the repetition
                ivs = ivs[:i]
                if ivs and ivs[-1][1] > rep.start:
                    ivs[-1] = (ivs[-1][0], INF, ivs[-1][2], False)
            else:
                a, p = rep.start + rep.period, rep.period
                b = a + p
                whole = make(a, b, True, True)
                i, j = bisect.bisect_left(ivs, a, key=_start), bisect.bisect_left(ivs, b, key=_start)
                c = next((k for k in (i - 1, i) if 0 <= k < len(ivs) and contains(ivs[k], whole)), None)
                if c is not None:
                    ivs = ivs[:c] + [(ivs[c][0], INF, ivs[c][2], False)]
                else:
                    pattern, q = smallest_period(ivs[i:j], p)
                    core, pattern = fold_sorted(ivs[:i], pattern, q, fold_limit)
                    ivs = core
                    if pattern:
                        repeating.setdefault(pred, {})[terms] = [Repeating(iv, q) for iv in pattern]
            if ivs:
                target.atoms[terms] = ivs
    return answer, repeating


def _start(iv):
    return iv[0]


def _mirror_answer(store, repeating, only=None):
    answer = Store()
    for pred, rel in store.relations.items():
        if only is not None and pred not in only:
            continue
        target = answer.relation(pred)
        for terms, ivs in rel.atoms.items():
            target.atoms[terms] = sorted(mirror_interval(iv) for iv in ivs)
    rep = {
        p: {t: sorted((Repeating(mirror_interval(r.iv), -r.period) for r in rs), key=lambda r: r.iv) for t, rs in by.items()}
        for p, by in repeating.items()
    }
    return answer, rep


def _check_constraints(plan, out) -> None:
    """Check the constraints on enough of the model: everything before the
    repetitions, one joint period of all of them, and a margin."""
    reach = program_reach(plan.rules + plan.constraints)
    ends = [x for rel in out.store.relations.values() for ivs in rel.atoms.values() for iv in ivs
            for x in iv[:2] if x not in (INF, -INF)]
    periods = []
    for by in out.repeating.values():
        for rs in by.values():
            for r in rs:
                periods.append(r.period)
                ends.extend(x for x in r.iv[:2] if x not in (INF, -INF))
    lo = min(ends, default=0)
    hi = max(ends, default=0)
    joint = lcm_of(periods) or 0
    inner = make(lo - joint - reach - 1, hi + joint + reach + 1, True, True)
    outer = make(inner[0] - 2 * reach - 1, inner[1] + 2 * reach + 1, True, True)
    store = Store()
    for pred, rel in out.store.relations.items():
        target = store.relation(pred)
        for terms, ivs in rel.atoms.items():
            rs = out.repeating.get(pred, {}).get(terms, [])
            pieces = unroll(ivs, rs, outer)
            if pieces:
                target.atoms[terms] = pieces
    for pred, by in out.repeating.items():
        target = store.relation(pred)
        for terms, rs in by.items():
            if terms not in target.atoms:
                pieces = unroll([], rs, outer)
                if pieces:
                    target.atoms[terms] = pieces
    only = dataclasses.replace(plan, strata=[])
    Evaluator(only, store, make(-INF, INF, False, False)).check_constraints(within=inner)
