"""Strata of one shape, run as one rule over tagged relations.

A program that writes a rule per predicate (``q0(N, Y) :- p0(N, V), Y = V
* 2 + 1.`` ... ``q199``) makes a stratum of one rule per predicate, and a
backend that runs whole relations pays its fixed cost per stratum: on
columns ~0.5 ms of frames built, coalesced and merged each, however few
their rows (200 strata of 1,000 facts cost 1.4x one of 200,000).

Strata without recursion, each of one plain rule (or an aggregation over
one), whose rules are the same but for their predicates, are a
:class:`Batch` (run where its first member stands: a later one joins when
what it reads is derived by then): one rule whose head and whose atoms
that differ from member to member take a first term, the member's index
(the *tag*).  Its relations are the members' relations,
each row tagged with its member's index; the rule over them derives each
member's facts tagged alike, and the tag splits them again.  The tag is a
term of every atom it joins, so no member's facts meet another's.
"""

from __future__ import annotations

from chronolog.language import ast, records
from chronolog.language.records import record

from .aggregates import AggregateRule
from .ir import Assign, Condition, NegScan, PlanRule, Scan

TAG = "$member"  # the tag's variable (no user variable starts with $)
FIRST = 2  # the fewest strata of one shape that make a batch


@record(frozen=True)
class Batch:
    members: tuple  # the strata's indices, in order
    heads: tuple  # each member's head predicate
    head: str  # the tagged head predicate
    inputs: tuple  # (tagged predicate, each member's predicate) per atom that differs
    rule: object  # the tagged rule's physical plan (physical.RulePlan)


def batches(plan) -> dict:
    """``{index of a batch's first stratum: Batch}`` of ``plan`` (a planner
    Plan), found once per plan.  A batch runs where its first member stands,
    so a stratum joins one only when every predicate it reads is derived
    before that (or given): a pipeline per predicate (``a{j} :- p{j}.
    b{j} :- a{j}.``, strata ordered a3 b3 a2 b2 ...) makes one batch per step."""
    strata, found = plan.__dict__.get("_batches", (None, None))
    if strata is not plan.strata:
        from chronolog.language import allocators

        with allocators.settled():  # (a command: the batches live to its end, out of the collector's walks)
            found = _find(plan)
        plan.__dict__["_batches"] = (plan.strata, found)
    return found


def _find(plan) -> dict:
    """The batches of :func:`batches`, found by one pass over the strata."""
    found = {}
    runs: dict = {}  # shape -> (position of its first member, [(stratum, shape)]) still open
    derived_at: dict = {}  # predicate -> the position where it is derived
    key_of = _Keys()
    for at, st in enumerate(plan.strata):
        shape = _shape(st, key_of)
        if shape is None:
            for p in st.preds:
                derived_at[p] = at
            continue
        run = runs.get(shape[0])
        if run is None or _derived_since(derived_at, shape[1], run[0]):
            _close(run, found)
            run = runs[shape[0]] = (at, [])
        run[1].append((st, shape))
        for p in st.preds:  # (a member's where its batch runs)
            derived_at[p] = run[0]
    for run in runs.values():
        _close(run, found)
    return found


def _derived_since(derived_at: dict, preds: tuple, first: int) -> bool:
    """Whether a body predicate of ``preds`` (the head's first) is derived
    at or after position ``first``."""
    for p in preds[1:]:
        if derived_at.get(p, -1) >= first:
            return True
    return False


def _close(run, found: dict) -> None:
    """Put the batch of ``run`` (its strata of one shape) in ``found``, when
    it has enough members and the tag a source."""
    if run is not None and len(run[1]) >= FIRST:
        batch = _batch(run[1], len(found))
        if batch is not None:
            found[batch.members[0]] = batch


def _shape(st, key_of) -> tuple | None:
    """``(the rule with its predicates numbered in order of appearance, its
    predicates: the head's first)`` of a stratum that may join a batch:
    no recursion, one rule of a plain body (atoms, negations, conditions,
    assignments) or an aggregation over one, no time grouping; else None."""
    if st is None or st.recursive or len(st.rules) != 1:
        return None
    rule = st.rules[0]
    kind = type(rule)
    if (kind is not PlanRule and kind is not AggregateRule) or rule.head_pred is None:
        return None
    preds = [rule.head_pred]
    body = []
    for lit in rule.body:  # (types compared, not isinstance: the IR's literals have no subclasses; 10,000 strata)
        kind = type(lit)
        if kind is Scan or kind is NegScan:
            box = shift = None
            if kind is Scan:
                if lit.group is not None:
                    return None
                box, shift = lit.box, lit.shift
            if lit.pred not in preds:
                preds.append(lit.pred)
            body.append((kind.__name__, preds.index(lit.pred), key_of(lit.terms),
                         None if box is None else key_of(box), None if shift is None else key_of(shift)))
        elif kind is Assign:  # (key_of's key of it, without keeping each rule's own literal by its id)
            body.append((Assign, lit.var, key_of(lit.expr)))
        elif kind is Condition:
            body.append((Condition, key_of(lit.comparison)))
        else:  # pragma: no cover - the IR has no other literal
            return None
    key = (key_of(rule.head_terms), key_of(rule.head_shift), rule.fresh, tuple(body))
    if type(rule) is AggregateRule:
        key += (key_of(rule.aggregates), key_of(rule.after), tuple(rule.group))
    return key, tuple(preds)


class _Keys:
    """``x`` as a hashable value equal only for the same rule text: every
    constant with its type (``1`` and ``1.0`` are equal in Python, not as
    terms), positions and origins left out.  Each object is keyed once per
    pass (its id, the object held): rules read by shape share their terms
    and expressions (language/rule_shapes.py), 10,000 rules walked each
    were 8% of such a program's run."""

    def __init__(self):
        self.known: dict = {}  # id -> (object, key)

    def __call__(self, x):
        kind = type(x)
        if kind is str or x is None:  # (equal only to the same)
            return x
        got = self.known.get(id(x))
        if got is not None and got[0] is x:
            return got[1]
        if kind is tuple or kind is list:
            key = tuple(map(self, x))
        elif kind is ast.Const:
            key = (kind, type(x.value), x.value)
        else:
            names = _FIELDS.get(kind)
            if names is None:
                names = _FIELDS[kind] = tuple(f.name for f in records.fields(x) if f.compare and f.name not in ("origin", "source", "pos")) \
                    if records.is_record(x) else ()
            key = (kind, *[self(getattr(x, n)) for n in names]) if names else (kind, x)
        if kind is not list:  # (a list may change)
            self.known[id(x)] = (x, key)
        return key


_FIELDS: dict = {}  # a record's type -> the fields its key reads


def _batch(run, number: int) -> Batch | None:
    """The batch of the strata ``run`` (of one shape), or None when no
    positive atom differs from member to member (nothing would bind the tag)."""
    from .physical import rule_plan

    preds = [shape[1] for _, shape in run]
    differs = [len({p[i] for p in preds}) > 1 for i in range(len(preds[0]))]
    tagged = {i: f"$same{number}.{i}" for i, d in enumerate(differs) if d}
    first = run[0][0].rules[0]
    order = preds[0]
    body = []
    for lit in first.body:
        if isinstance(lit, (Scan, NegScan)) and order.index(lit.pred) in tagged:
            lit = records.replace(lit, pred=tagged[order.index(lit.pred)], terms=(ast.Var(TAG), *lit.terms))
        body.append(lit)
    if not any(isinstance(lit, Scan) and lit.pred in tagged.values() for lit in body):
        return None
    head = tagged[0]
    rule = PlanRule(head, (ast.Var(TAG), *first.head_terms), body, first.head_shift, first.source, first.fresh)
    if type(first) is AggregateRule:  # (each member's groups apart: the tag groups too)
        rule = AggregateRule(rule, body, first.aggregates, first.after, [TAG, *first.group])
    inputs = tuple((tagged[i], tuple(p[i] for p in preds)) for i in sorted(tagged) if i)
    return Batch(tuple(st.index for st, _ in run), tuple(p[0] for p in preds), head, inputs, rule_plan(rule))
