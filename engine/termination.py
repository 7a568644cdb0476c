"""Evaluating programs whose model may be infinite, without a horizon.

The rules are split into independent components (no shared derived
predicate).  A component whose recursion does not move time is evaluated as
usual.  One that does is evaluated by the termination strategy:

1. it must be *forward* (every rule reads only the past of the time it
   derives, planner/fragment.py) or *backward* (only the future; then time
   is mirrored, the component evaluated forward, and the answer mirrored
   back);
2. the model is computed exactly up to a bound ``hi`` (the horizon
   ``(-inf, hi]``: in a forward program nothing after ``hi`` changes what
   holds before it);
3. :func:`~.periodic.find_repetition` looks for a window that repeats after
   the last given fact; if there is none yet, ``hi`` moves twice as far and
   the component is computed again;
4. the answer keeps the facts before the repetition as they are, makes the
   ones that hold throughout it end at ``+inf`` (a constant model) and turns
   the others into :class:`~.periodic.Repeating` facts (a periodic model).

A component whose recursion looks both ways is refused with the two rules
that do (a horizon still evaluates it).  Unbounded operators in rules with
other literals are first put in fresh predicates, so that whether they hold
is part of the state that must repeat.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import dataclass, field
from fractions import Fraction

from chronolog.language.errors import ProgramError
from chronolog.language.timeline import intersect, make
from chronolog.planner.fragment import components, direction, program_reach
from chronolog.planner.ir import PlanRule, Scan, SinceRule
from chronolog.planner.mirror import mirror_interval, mirror_rule, mirror_rows
from chronolog.planner.stratify import stratify

from .evaluator import Evaluator
from .periodic import Repeating, find_repetition, fold, smallest_period, unroll
from .store import Store

INF = math.inf
MAX_ATTEMPTS = 14
_fresh_numbers = itertools.count(1)  # "$u<n>" names, unique across components


@dataclass
class Outcome:
    store: Store
    repeating: dict = field(default_factory=dict)  # pred -> {terms: [Repeating]}
    components: list = field(default_factory=list)  # what happened, per component
    stats: dict = field(default_factory=lambda: {"rounds": 0, "derivations": 0})


def evaluate(plan, rows: dict, strategy: str = "blocking") -> Outcome:
    """The least model of ``plan`` over ``rows`` (``{pred: [(terms, iv)]}``)."""
    out = Outcome(Store())
    derived_all = plan.derived_predicates()
    for comp in components([r for r in plan.rules if r.head_pred is not None]):
        sub = _subplan(plan, comp)
        derived = {r.head_pred for r in comp}
        reads = {l.pred for r in comp for l in r.body if hasattr(l, "pred")}
        comp_rows = {p: rows[p] for p in (reads | derived) if p in rows}
        if not sub.infinite_strata():
            store = _store(comp_rows)
            ev = Evaluator(sub, store, None, strategy)
            ev.run()
            _add_stats(out, ev)
            _absorb(out, store, {}, derived)
            continue
        d = direction(sub.rules, derived)
        if d.kind == "mixed":
            raise _mixed_error(d)
        if d.kind == "backward":
            mirrored = dataclasses.replace(sub, rules=[mirror_rule(r) for r in sub.rules])
            mirrored.strata = stratify(mirrored.rules)
            store, rep, info = _forward(mirrored, mirror_rows(comp_rows), strategy, out)
            store, rep = _mirror_answer(store, rep)
            info["direction"] = "backward"
            if info.get("repeats_from") is not None:
                info["repeats_from"] = -info["repeats_from"]
        else:
            store, rep, info = _forward(sub, comp_rows, strategy, out)
            info["direction"] = "forward"
        info["predicates"] = sorted(p for p in derived if not p.startswith("$"))
        out.components.append(info)
        _absorb(out, store, rep, derived)
    # the given facts of predicates no rule derives
    for p, r in rows.items():
        if p not in derived_all and p not in out.store.relations:
            out.store.relation(p).bulk_add(r)
    if plan.uses_top:
        from chronolog.language.timeline import EVERYWHERE
        from chronolog.planner.normalize import TOP

        out.store.relation(TOP).add((), EVERYWHERE)
    if plan.constraints:
        _check_constraints(plan, out)
    return out


# ------------------------------------------------------------------ pieces
def _subplan(plan, rules):
    return dataclasses.replace(plan, rules=list(rules), strata=stratify(list(rules)), constraints=[])


def _store(rows) -> Store:
    store = Store()
    for p, r in rows.items():
        store.relation(p).bulk_add(list(r))
    return store


def _add_stats(out, ev) -> None:
    for k in ("rounds", "derivations"):
        out.stats[k] += ev.stats.get(k, 0)


def _absorb(out, store, rep, derived) -> None:
    for p, rel in store.relations.items():
        if p in derived or p not in out.store.relations:
            target = out.store.relation(p)
            if not target.atoms:
                target.atoms = rel.atoms
    for p, by_terms in rep.items():
        out.repeating.setdefault(p, {}).update(by_terms)


def _mixed_error(d):
    def where(r):
        src = r.source
        text = src.text if src is not None and src.text else r.describe()
        pos = f"{src.pos}: " if src is not None and src.pos.line else ""
        return f"{pos}{text}"

    src = d.forward_rule.source
    return ProgramError(
        "this recursion looks both into the future and into the past, so chronolog cannot yet find "
        "where its model repeats:\n  reads ahead:  " + where(d.forward_rule)
        + "\n  reads back:   " + where(d.backward_rule),
        src.pos if src is not None else None,
        hint="give an evaluation horizon (@temporal(0, 1000). in the program, --horizon 0,1000, "
        "or horizon=(0, 1000) in reason())",
    )


def _materialise_unbounded(plan):
    """Put each unbounded literal that shares its rule with other literals (or
    a head shift) in a fresh predicate, so that whether it holds is visible
    in the window whose repetition proves the model periodic."""
    rules = []
    changed = False
    for r in plan.rules:
        if isinstance(r, SinceRule) or (len(r.body) == 1 and r.head_shift is None):
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
                name = f"$u{next(_fresh_numbers)}"
                rules.append(PlanRule(name, terms, [lit], None, r.source, fresh=True))
                body.append(Scan(name, terms, origin=lit.origin))
                changed = True
            else:
                body.append(lit)
        rules.append(dataclasses.replace(r, body=body) if changed else r)
    if not changed:
        return plan
    return dataclasses.replace(plan, rules=rules, strata=stratify(rules))


def _unbounded(scan) -> bool:
    return any(w is not None and (w[0] in (INF, -INF) or w[1] in (INF, -INF)) for w in (scan.box, scan.shift))


def _last_given_end(rows):
    t = None
    for r in rows.values():
        for _, iv in r:
            for x in (iv[0], iv[1]):
                if x not in (INF, -INF) and (t is None or x > t):
                    t = x
    return 0 if t is None else t


def _forward(plan, rows, strategy, out):
    plan = _materialise_unbounded(plan)
    reach = program_reach(plan.rules)
    t_data = _last_given_end(rows)
    span = 4 * (reach + 1)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        hi = t_data + span
        store = _store(rows)
        ev = Evaluator(plan, store, make(-INF, hi, False, True), strategy)
        ev.run()
        _add_stats(out, ev)
        rep = find_repetition(store, t_data, hi, reach)
        if rep is not None:
            break
        span *= 2
    else:
        rule = plan.infinite_strata()[0].shifting_rules[0]
        src = rule.source
        raise ProgramError(
            f"no repeating pattern in the model up to time {_fmt(hi)}: the recursion through\n  "
            + (src.text if src is not None and src.text else rule.describe())
            + "\nkeeps changing (it may create new values at every step)",
            src.pos if src is not None else None,
            hint="give an evaluation horizon (@temporal(0, 1000). in the program, --horizon 0,1000, "
            "or horizon=(0, 1000) in reason())",
        )
    answer, repeating = _answer(store, rep, hi)
    info = {
        "bound": hi,
        "attempts": attempt,
        "repeats_from": rep.start,
        "period": rep.period,
        "kind": "constant" if rep.period is None or not repeating else "periodic",
    }
    return answer, repeating, info


def _fmt(x):
    from chronolog.language.timeline import format_number

    return format_number(x)


def _answer(store, rep, hi):
    exact = make(-INF, hi, False, False)
    answer = Store()
    repeating: dict = {}
    for pred, rel in store.relations.items():
        target = answer.relation(pred)
        for terms, ivs in rel.atoms.items():
            ivs = [x for iv in ivs if (x := intersect(iv, exact)) is not None]
            if rep.period is None:
                s0 = rep.start
                new = []
                for iv in ivs:
                    if iv[1] > s0 and iv[0] <= s0:
                        new.append((iv[0], INF, iv[2], False))
                    elif iv[0] < s0 or (iv[0] == s0):
                        new.append(iv)
                ivs = new
            else:
                a, p = rep.start + rep.period, rep.period
                b = a + p
                whole = make(a, b, True, True)
                from chronolog.language.timeline import contains

                cover = [iv for iv in ivs if contains(iv, whole)]
                if cover:
                    c = cover[0]
                    ivs = [iv for iv in ivs if iv[0] < c[0]] + [(c[0], INF, c[2], False)]
                else:
                    core = [iv for iv in ivs if iv[0] < a]
                    pattern = [iv for iv in ivs if a <= iv[0] < b]
                    pattern.sort()
                    pattern, q = smallest_period(pattern, p)
                    core, pattern, _ = fold(core, pattern, q, a)
                    ivs = core
                    if pattern:
                        repeating.setdefault(pred, {})[terms] = [Repeating(iv, q) for iv in pattern]
            if ivs:
                target.atoms[terms] = ivs
    return answer, repeating


def _mirror_answer(store, repeating):
    answer = Store()
    for pred, rel in store.relations.items():
        target = answer.relation(pred)
        for terms, ivs in rel.atoms.items():
            target.atoms[terms] = sorted(mirror_interval(iv) for iv in ivs)
    rep = {
        p: {t: sorted((Repeating(mirror_interval(r.iv), -r.period) for r in rs), key=lambda r: r.iv) for t, rs in by.items()}
        for p, by in repeating.items()
    }
    return answer, rep


def _lcm(values):
    from chronolog.planner.fragment import _gcd

    out = None
    for v in values:
        v = Fraction(abs(v))
        out = v if out is None else out * v / _gcd([out, v])
    return out


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
    joint = _lcm(periods) or 0
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
