"""Transitive closures that doubling computes in fewer rounds: the shape check.

A recursive stratum of one predicate ``T`` whose two rules are

    T(X,Y) :- E(X,Y).
    T(X,Z) :- T(X,Y), E(Y,Z).        (or  T(X,Z) :- E(X,Y), T(Y,Z).)

with plain atoms (no temporal operator, condition, negation or head
operator) and ``E`` of a lower stratum is a *transitive closure*: at every
time point ``T`` is the closure of ``E``, since a join of plain atoms holds
at a point exactly where both hold there.  The doubled form
``T(X,Z) :- T(X,Y), T(Y,Z)`` has the same closure at every point, so the
same model, but seminaive rounds reach it in about log2 of the longest
path's length instead of one round per edge of it (temporal reachability
over 100k edges: 23 rounds).  That matters where a round has a fixed cost
(Spark's rounds: a job and the driver's planning); a round of the doubled
form joins the delta with ``T`` rather than with ``E``, which is more work
where rounds are cheap (bench/README.md, ``spark_reach``).

Facts of ``T`` given before the stratum break the equivalence (the doubled
form joins two given facts, the linear one never does): a backend checks
that ``T`` holds nothing when the stratum starts.
"""

from __future__ import annotations

from chronolog.language import ast
from chronolog.language.records import record

from .ir import PlanRule, Scan, Stratum


@record(frozen=True)
class Closure:
    """``pred`` is the transitive closure of ``edge``: ``seed`` copies the
    edges, ``step`` extends a path by one; ``doubled`` is the stratum with
    ``step`` replaced by the join of two paths."""

    pred: str
    edge: str
    seed: PlanRule
    step: PlanRule
    doubled: Stratum


def closure(stratum):
    """The :class:`Closure` of ``stratum``, or None when it has another shape."""
    found = shape(stratum)
    return found if isinstance(found, Closure) else None


def _plain(lit) -> tuple:
    """The variable names of a plain binary atom with two distinct
    variables (None: constants, a repeated variable, an operator, another arity)."""
    if not isinstance(lit, Scan) or lit.box is not None or lit.shift is not None or lit.group is not None:
        return None
    names = tuple(t.name for t in lit.terms if isinstance(t, ast.Var))
    return names if len(lit.terms) == 2 and len(names) == 2 and names[0] != names[1] else None


def _head(rule) -> tuple:
    names = tuple(t.name for t in rule.head_terms if isinstance(t, ast.Var))
    return names if len(rule.head_terms) == 2 and len(names) == 2 else None


def shape(stratum):
    """The :class:`Closure` of ``stratum``, or why it is not one (a phrase)."""
    if not stratum.recursive or stratum.shifting_rules or stratum.inventing_rules:
        return "not a recursion without time operators"
    if len(stratum.preds) != 1:
        return "several predicates in one cycle"
    (pred,) = stratum.preds
    if len(stratum.rules) != 2:
        return "not two rules"
    for rule in stratum.rules:
        if type(rule) is not PlanRule or rule.head_shift is not None:
            return "a rule with a head operator, interval terms, aggregation or existential variables"
        if len(rule.body) not in (1, 2) or any(_plain(lit) is None for lit in rule.body) or _head(rule) is None:
            return "a rule that is not a join of plain binary atoms"
    seeds = [r for r in stratum.rules if all(lit.pred != pred for lit in r.body)]
    if len(seeds) != 1 or len(seeds[0].body) != 1:
        return "not one rule copying an edge relation"
    seed, step = seeds[0], next(r for r in stratum.rules if r is not seeds[0])
    edge = seed.body[0].pred
    if _plain(seed.body[0]) != _head(seed):
        return "the seed rule does not copy its atom"
    if len(step.body) != 2 or sorted(lit.pred for lit in step.body) != sorted([pred, edge]):
        return "the recursive rule does not join the recursion with the seed's relation"
    x, z = _head(step)
    first, second = (_plain(lit) for lit in step.body)
    if first[0] == second[1]:  # the atom that starts the path written second
        first, second = second, first
        step_body = (step.body[1], step.body[0])
    else:
        step_body = tuple(step.body)
    if not (first[0] == x and first[1] == second[0] and second[1] == z and len({x, first[1], z}) == 3):
        return "the recursive rule does not extend a path by one edge"
    doubled = PlanRule(pred, step.head_terms, [_as(lit, pred) for lit in step_body], None, step.source, step.fresh)
    twice = Stratum(stratum.index, set(stratum.preds), [seed, doubled], True, reads={pred, edge})
    return Closure(pred, edge, seed, step, twice)


def _as(lit: Scan, pred: str) -> Scan:
    """``lit`` as an atom of ``pred`` (the same terms)."""
    return Scan(pred, lit.terms, origin=lit.origin)
