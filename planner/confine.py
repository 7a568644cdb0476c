"""A horizon as part of the program: derived facts confined by a join.

A horizon confines every fact a user's rule derives (not the facts given,
nor the planner's fresh predicates) to a closed interval.  When the horizon
is open on the side a recursion moves time to, no bounded evaluation reaches
the end of it; the model is then found where it repeats, as without a
horizon (engine/termination.py), over this program instead:

    p'(X) :- body.          (each user rule with head p, now p')
    p(X)  :- p'(X), $horizon.

with the fact ``$horizon@[lo, hi]``.  The copy joins what a rule derives with
the horizon, as the evaluator's confinement does after each rule (head boxes
included: they act on p'), so the model is the one the horizon defines.
"""

from __future__ import annotations

import dataclasses

from chronolog.language import ast
from chronolog.language.records import copied

from .ir import PlanRule, Scan
from .stratify import stratify

HORIZON = "$horizon"


def confined(plan, horizon):
    """``(plan', {pred: [(terms, interval)]})``: ``plan`` with its user rules'
    heads confined to ``horizon`` (an interval tuple), and the fact that
    holds on it."""
    rules, renamed = [], {}
    for r in plan.rules:
        if r.head_pred is None or r.fresh:
            rules.append(r)
            continue
        name = renamed.get(r.head_pred)
        if name is None:
            name = renamed[r.head_pred] = f"{HORIZON}:{r.head_pred}"
        out = copied(r)
        out.head_pred = name
        rules.append(out)
    for pred, name in renamed.items():
        first = next(r for r in plan.rules if r.head_pred == pred)
        terms = tuple(ast.Var(f"X{i}") for i in range(len(first.head_terms)))
        source = first.source
        rules.append(PlanRule(pred, terms, [Scan(name, terms), Scan(HORIZON, ())], None, source))
    return dataclasses.replace(plan, rules=rules, strata=stratify(rules, plan.meanings)), {HORIZON: [((), horizon)]}


def is_confinement(pred: str) -> bool:
    """Whether ``pred`` is one :func:`confined` made (not the user's)."""
    return pred.startswith(HORIZON)
