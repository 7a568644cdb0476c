"""Recursions through time that one sweep computes: the shape check.

A recursive stratum of one predicate ``p`` whose recursive rules each read
``p`` once, through a diamond that looks strictly into the past
(``<->[d1,d2] p(X..)``, ``d1 > 0``), is a *recurrence*: ``p`` at ``t``
depends on ``p`` before ``t`` and on lower strata.  An EMA
(``ema(S,E) :- <->[1,1] ema(S,P), price(S,D,V), E = ...``), a running stock
or a counter has this shape.  Seminaive rounds compute it one delay per
round (13,600 rounds for 13,600 days); the sweep of
engine/columns/recurrence.py computes it in one pass in time order.  Its
mirror image, a recursion that looks strictly into the future (``p`` at
``t`` from ``p`` after ``t``: "at risk while a default follows within a
day"), is one in reversed time: the sweep takes it from the last time back.

The check is conservative: every rule a plain rule without a head operator,
the recursive atom's terms distinct variables, every other atom (positive
or negated) of a lower stratum and bound without ``p``, the conditions and
assignments orderable over what the atoms bind.  Anything else keeps the
general path.  The semantics do not change: the sweep derives the same
facts on the same intervals (a diamond and an intersection are pointwise,
so pieces of ``p`` may be taken in any split), only in time order.
"""

from __future__ import annotations

from chronolog.language.records import record

from chronolog.language import ast

from .ir import Assign, Condition, NegScan, PlanRule, Scan


@record(frozen=True)
class Step:
    """A recursive rule: ``head :- <->window p(past), driver..., tests...``."""

    rule: PlanRule
    past: Scan  # the atom of p, with its window (shift)
    driver: tuple  # the other atoms (Scan / NegScan of lower strata): joined once
    tests: tuple  # Condition / Assign in an order that binds before use (a bound Assign is a == Condition)


@record(frozen=True)
class Recurrence:
    pred: str
    seeds: tuple  # the rules that do not read p
    steps: tuple  # Step


def recurrence(stratum):
    """The :class:`Recurrence` of ``stratum``, or None when it has another shape."""
    shape = _shape(stratum)
    return shape if isinstance(shape, Recurrence) else None


def backward_recurrence(stratum):
    """Where ``stratum``'s recursion looks strictly into the future instead
    (``p(X) :- <+>[1,1] p(X), q(X).``): the recurrence of its rules with time
    reversed (planner/mirror.py), which a sweep computes forward in
    reversed time, and ``{id(mirrored rule): the stratum's rule}``; None
    for any other shape."""
    if not (stratum.recursive and stratum.shifting_rules) or recurrence(stratum) is not None:
        return None
    from .mirror import mirror_rule
    from .stratify import stratify

    pairs = [(mirror_rule(r), r) for r in stratum.rules]
    mirrored = [s for s in stratify([m for m, _ in pairs]) if s.preds == stratum.preds]
    rec = recurrence(mirrored[0]) if len(mirrored) == 1 else None
    return None if rec is None else (rec, {id(m): r for m, r in pairs})


def swept(stratum):
    """The recurrence the columns sweep for ``stratum``, forward or
    (:func:`backward_recurrence`) in reversed time; None: neither."""
    rec = recurrence(stratum)
    if rec is not None:
        return rec
    back = backward_recurrence(stratum)
    return back[0] if back is not None else None


def keeps_its_atom(rec) -> bool:
    """Whether every step of ``rec`` derives the atom it reads, with no
    condition or assignment (``p(X) :- <->[1,1] p(X), q(X).``): the
    columns' sweep then takes it in waves of arrays (engine/columns/waves.py)."""
    for step in rec.steps:
        past = [t.name for t in step.past.terms]
        head = [t.name if isinstance(t, ast.Var) else None for t in step.rule.head_terms]
        if step.tests or head != past:
            return False
    return True


def why_not(stratum) -> str:
    """Why ``stratum`` is not a recurrence ("" when it is)."""
    shape = _shape(stratum)
    return "" if isinstance(shape, Recurrence) else shape


def _shape(stratum):
    if not (stratum.recursive and stratum.shifting_rules):
        return "not a recursion through time"
    if len(stratum.preds) != 1:
        return "several predicates in one cycle"
    (pred,) = stratum.preds
    seeds, steps = [], []
    for rule in stratum.rules:
        if type(rule) is not PlanRule or rule.head_shift is not None or getattr(rule, "existentials", None):
            return "a rule with a head operator, interval terms, aggregation or existential variables"
        past = [lit for lit in rule.body if isinstance(lit, (Scan, NegScan)) and lit.pred == pred]
        if not past:
            seeds.append(rule)
            continue
        step = _step(rule, past)
        if isinstance(step, str):
            return step
        steps.append(step)
    if not steps:
        return "no recursive rule"
    return Recurrence(pred, tuple(seeds), tuple(steps))


def _step(rule, past):
    if len(past) != 1 or not isinstance(past[0], Scan):
        return "a rule reads the recursive predicate twice"
    lit = past[0]
    if lit.box is not None or lit.group is not None or lit.shift is None:
        return "the recursive atom is not under a diamond alone"
    d1 = lit.shift[0]
    if not d1 > 0:
        return "the recursive atom's diamond does not look strictly into the past"
    names = [t.name for t in lit.terms if isinstance(t, ast.Var)]
    if len(names) != len(lit.terms) or len(set(names)) != len(names):
        return "the recursive atom has constants or a repeated variable"
    driver = tuple(x for x in rule.body if isinstance(x, (Scan, NegScan)) and x is not lit)
    if driver and not any(isinstance(x, Scan) for x in driver):
        return "the recursive atom's other atoms are all negated: no atom drives the step's join"
    scanned = {t.name for x in driver if isinstance(x, Scan) for t in x.terms if isinstance(t, ast.Var)}
    for x in driver:
        if isinstance(x, NegScan) and not {t.name for t in x.terms if isinstance(t, ast.Var)} <= scanned:
            return "a negated atom reads a variable of the recursive atom"
    bound = scanned | set(names)
    todo = [x for x in rule.body if isinstance(x, (Condition, Assign))]
    tests = []
    while todo:
        for i, x in enumerate(todo):
            if isinstance(x, Condition) and ast.variables_of(x.comparison) <= bound:
                tests.append(x)
            elif isinstance(x, Assign) and ast.variables_of(x.expr) <= bound:
                if x.var in bound:
                    tests.append(Condition(ast.Comparison("==", ast.Var(x.var), x.expr)))
                else:
                    tests.append(x)
                    bound.add(x.var)
            else:
                continue
            del todo[i]
            break
        else:
            return "a condition or assignment reads a variable nothing binds"
    if not all(isinstance(t, ast.Const) or t.name in bound for t in rule.head_terms):
        return "a head variable nothing binds"
    return Step(rule, lit, driver, tuple(tests))
