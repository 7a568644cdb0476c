"""What confines a recursion through time with no horizon: an atom outside
its cycle in each rule that moves time.

A rule ``p(X) :- <->[2,2] p(X), r(X).`` derives p only where r holds, so
however far its recursion moves p, p stays within r's facts (the atom's
own box and shift and the head's shift, all finite, moving them a bounded
way); the rules of the cycle that do not move time keep their facts where
their body's lie.  Where those facts end, the model is finite: Spark's
rounds reach its fixpoint with no horizon (planner/backend_choice.py,
connectors/spark_rounds/rounds.py).  Whether they end is known only at
run time, from the facts; where they do, the embedded engine runs such a
forward recursion once within them instead of searching its model for a
repetition (engine/termination.py), and where every stratum of a program
keeps its facts near those it reads (:func:`reach_where_facts_end`), the
whole program runs within its given facts widened by that reach, as with
a horizon there (chronolog/api.py).
"""

from __future__ import annotations

from typing import Optional

from chronolog.language.timeline import POS_INF

from .aggregates import AggregateRule
from .ir import PlanRule, Scan, SinceRule
from .physical import CaptureTime, WrapInterval, rule_operator


def data_bounds(moving, stratum) -> Optional[list]:
    """The atoms outside ``stratum``'s cycle that confine in time what
    each rule of ``moving`` (the rules that move time around it) derives,
    one per rule (``[(rule, Scan)]``), or None where a rule has none."""
    out = [(r, confining_atom(r, stratum)) for r in moving]
    return None if any(atom is None for _, atom in out) else out


def confining_atom(rule, stratum):
    """The first positive atom of ``rule`` outside ``stratum``'s cycle read
    over finite windows (no time grouping), with a head shift finite too:
    what the rule derives lies within its facts moved a bounded way (None:
    none, or a rule of another kind: :func:`data_bounds`)."""
    if type(rule) is not PlanRule or not finite(rule.head_shift):
        return None
    return next((lit for lit in rule.body if type(lit) is Scan and lit.pred not in stratum.preds and lit.group is None
                 and finite(lit.box) and finite(lit.shift)), None)


def finite_where_facts_end(stratum) -> bool:
    """Whether the model of ``stratum``, whose recursion moves time, is
    finite wherever every fact it reads ends, within them widened by its
    rules' reach (planner/fragment.program_reach): the facts of atoms
    outside its cycle confine each rule that moves time, every window of
    its rules is finite, and it neither creates values (they may grow
    without end), groups time, captures it nor places it."""
    if stratum.inventing_rules or data_bounds(stratum.shifting_rules, stratum) is None:
        return False
    return all(type(r) in (PlanRule, SinceRule) and _keeps_time(r) for r in stratum.rules)


def reach_where_facts_end(plan) -> Optional[object]:
    """How far beyond the hull of its given facts the model of ``plan``
    (no horizon) reaches wherever every given fact ends, or None where that
    is not known to be finite.  Each stratum derives within the facts it
    reads widened by twice its rules' reach (planner/fragment.program_reach;
    a recursion that moves time where :func:`finite_where_facts_end` says
    so), so the strata together within the sum of theirs.  None where a
    rule derives where nothing it reads holds: a window without end, time
    grouping, captured or placed time (a head interval made of terms),
    value creation (a chase that may not stop), or an operand that holds
    everywhere (``plan.uses_top``); and where a recursion moves time both
    ways (within a horizon the rows run it, where without one the search
    may take the columns)."""
    if plan.uses_top:
        return None
    from .fragment import direction, program_reach  # (its dataclasses: not on a first columnar call's imports)

    total = 0
    for st in plan.strata:
        if st.recursive and st.shifting_rules:
            if not finite_where_facts_end(st) or direction(st.rules, st.preds).kind not in ("forward", "backward"):
                return None
        elif not all(type(r) in (PlanRule, SinceRule, AggregateRule) and _keeps_time(r) for r in st.rules):
            return None
        total += 2 * program_reach(st.rules) + 1
    return total


def _keeps_time(rule) -> bool:
    """Whether what ``rule`` derives lies within the facts of its positive
    atoms moved by its finite windows (no time captured, wrapped or grouped)."""
    if isinstance(rule_operator(rule), (CaptureTime, WrapInterval)):
        return False
    scans = (rule.left, rule.right) if type(rule) is SinceRule else [lit for lit in rule.body if type(lit) is Scan]
    windows = [rule.head_shift, rule.window if type(rule) is SinceRule else None,
               *(w for lit in scans for w in (lit.box, lit.shift))]
    return bool(scans) and all(finite(w) for w in windows) and all(lit.group is None for lit in scans)


def finite(window) -> bool:
    """Whether ``window`` (``(lo, hi, ...)`` or None: none) has finite ends."""
    return window is None or all(abs(x) != POS_INF for x in window[:2])
