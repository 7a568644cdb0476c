"""Builds the node pipeline of one rule (one seminaive variant of it) from
its physical operators (planner/physical.py): one table from operator type
to lowering, as engine/columns/lowering.py has for the columns.

The body is ordered greedily: the driving literal first (the one reading
the delta, or the smallest relation in the first round), then the literal
sharing the most bound variables (ties: the smaller relation); conditions
and assignments go right after their inputs are bound, negations last (their
free variables are existential, so everything else must be bound first).
"""

from __future__ import annotations

from chronolog.language import ast
from chronolog.language.errors import ProgramError
from chronolog.planner import physical as ph
from chronolog.planner.ir import Assign, Condition, NegScan, Scan

from .. import seminaive
from ..seminaive import FULL
from .closing import ClosingNode
from .difference import DifferenceNode
from .input import InputNode
from .join import TemporalJoinNode
from .linear import AssignNode, ConditionNode
from .output import ExplainingOutputNode, OutputNode
from .since import SinceJoinNode
from .temporal import TemporalNode


def _vars(lit) -> set:
    if isinstance(lit, (Scan, NegScan)):
        return {t.name for t in lit.terms if isinstance(t, ast.Var)}
    if isinstance(lit, Condition):
        return ast.variables_of(lit.comparison)
    if isinstance(lit, Assign):
        return ast.variables_of(lit.expr)
    return set()


def order_body(rule, driver: int, size, scans_first: bool = False) -> list:
    """Body literals (with their original positions) in evaluation order.
    ``scans_first``: the atoms in the body's order, conditions and
    assignments after every atom (a re-derivation orders its atoms itself,
    and its driver binds head values the body may never produce:
    engine/rows/maintenance.py)."""
    body = list(enumerate(rule.body))
    scans = [(i, l) for i, l in body if isinstance(l, Scan)]
    others = [(i, l) for i, l in body if not isinstance(l, Scan)]
    first = next(x for x in scans if x[0] == driver)
    order = [first]
    bound = _vars(first[1])
    remaining = [x for x in scans if x is not first]
    pending = [x for x in others if not isinstance(x[1], NegScan)]
    negations = [x for x in others if isinstance(x[1], NegScan)]

    def place_ready():
        if scans_first and remaining:
            return
        progress = True
        while progress:
            progress = False
            for x in list(pending):
                lit = x[1]
                if _vars(lit) <= bound:
                    order.append(x)
                    pending.remove(x)
                    if isinstance(lit, Assign):
                        bound.add(lit.var)
                    progress = True

    place_ready()
    while remaining:
        best = remaining[0] if scans_first else max(
            remaining,
            key=lambda x: (len(_vars(x[1]) & bound) > 0, len(_vars(x[1]) & bound), -size(x[1].pred), -x[0]),
        )
        remaining.remove(best)
        order.append(best)
        bound |= _vars(best[1])
        place_ready()
    if pending:  # pragma: no cover - safety checking prevents this
        raise ProgramError(f"cannot evaluate {', '.join(x[1].describe() for x in pending)}: unbound variables")
    order.extend(negations)
    return order


def choose_driver(rule, size) -> int:
    """First-round driver: the smallest relation, preferring constants."""
    scans = [(i, l) for i, l in enumerate(rule.body) if isinstance(l, Scan)]
    return min(
        scans,
        key=lambda x: (size(x[1].pred) // (4 if any(isinstance(t, ast.Const) for t in x[1].terms) else 1), x[0]),
    )[0]


def pipeline_for(rule, state, variant=None, horizon=None, explain=False, scans_first=False, operator=None):
    """The row pipeline of a planned rule (one seminaive variant of it),
    ending in its output: the lowering of its physical operator
    (``operator``, else ``physical.rule_operator(rule)``) from :data:`_LOWERINGS`.

    ``variant``: the plan's DeltaVariant (planner/physical.py), whose
    atoms read what :func:`engine.seminaive.views` says (the delta, the old
    facts, else everything); ``None`` in a first round, when everything is
    read in full.
    """
    op = operator if operator is not None else ph.rule_operator(rule)
    lower = _LOWERINGS.get(type(op))
    if lower is None:
        lower = _load_lowerings()[type(op)]
    out = lower(op, rule, state, variant, horizon, explain, scans_first)
    meter = getattr(state, "meter", None)  # (EXPLAIN ANALYZE's: a body's steps measure themselves,
    # a chase step when it fires: engine/rows/chase.fire_waiting)
    if meter is not None and not isinstance(op, (ph.Body, ph.ChaseStep)):
        out.child = meter.wrap(out.child, op)
        out.children = (out.child,)
    return out


def body_pipeline(body: ph.Body, rule, state, variant=None, scans_first=False):
    """``(node, slots)`` of a conjunction: its steps in :func:`order_body`'s
    order, driven by ``variant``'s atom (in a first round, ``None``: by
    :func:`choose_driver`'s), each step lowered by :data:`_STEPS` reading
    what :func:`engine.seminaive.views` says; ``slots``: variable -> binding position."""
    size = state.relation_size
    drv = choose_driver(rule, size) if variant is None else variant.position
    views = seminaive.views(variant)
    slots: dict = {}
    node = None
    meter = getattr(state, "meter", None)  # EXPLAIN ANALYZE's, else None
    joins = meter.joins(body) if meter is not None else None
    for pos, _ in order_body(rule, drv, size, scans_first):
        step = body.steps[pos]
        first = node is None
        node = _STEPS[type(step)](node, step, slots, views.get(pos, FULL), state, rule)
        if meter is not None and not (first and isinstance(step, ph.IntervalJoin)):
            # (a first atom measures its scan itself: _join)
            node = meter.wrap(node, joins.pop(0) if isinstance(step, ph.IntervalJoin) else step)
    return node, slots


def rule_output(node, slots, rule, head_terms, horizon, explain, shift=None):
    """The OutputNode of a pipeline (the explaining one when asked)."""
    cls = ExplainingOutputNode if explain else OutputNode
    out = cls(node, rule.head_pred, head_terms, slots, shift, horizon)
    out.slots = slots
    out.rule = rule
    return out


def _body(op, rule, state, variant, horizon, explain, scans_first):
    node, slots = body_pipeline(op, rule, state, variant, scans_first)
    return rule_output(node, slots, rule, rule.head_terms, horizon, explain, rule.head_shift)


def _join(node, step, slots, view, state, rule):
    """A positive atom: the first one scans (under its temporal operators),
    the others join what is bound (intersecting the intervals)."""
    box = shift = group = None
    atom = step.atom
    if isinstance(atom, ph.TimeGroup):
        group, atom = atom.grouping, atom.input
    if isinstance(atom, ph.TemporalShift):
        box, shift, atom = atom.box, atom.shift, atom.input
    if node is None:
        node = InputNode(atom.pred, atom.terms, view, state)
        new_vars = node.pattern.new_vars
        meter = getattr(state, "meter", None)  # (EXPLAIN ANALYZE's: the scan, then its temporal operators)
        if meter is not None:
            node = meter.wrap(node, atom)
        if box is not None or shift is not None or group is not None:
            node = TemporalNode(node, box, shift, group)
            if meter is not None:
                node = meter.wrap(node, step.atom)
    else:
        node = TemporalJoinNode(node, atom.pred, atom.terms, dict(slots), view, state, box, shift, group)
        new_vars = node.pattern.new_vars
    for v in new_vars:
        slots[v] = len(slots)
    return node


def _difference(node, step, slots, view, state, rule):
    neg = step.negated
    return DifferenceNode(node, neg.pred, neg.terms, dict(slots), state)


def _filter(node, step, slots, view, state, rule):
    return ConditionNode(node, step.comparison, dict(slots))


def _assign(node, step, slots, view, state, rule):
    """An assignment, a test of equality when its variable is bound already."""
    where = assignment_origin(rule, step.var)
    if step.var in slots:
        cmp = ast.Comparison("==", ast.Var(step.var), step.expr, getattr(where, "pos", ast.NOWHERE))
        return ConditionNode(node, cmp, dict(slots))
    node = AssignNode(node, step.var, step.expr, dict(slots), where)
    slots[step.var] = len(slots)
    return node


_STEPS = {ph.IntervalJoin: _join, ph.Difference: _difference, ph.Filter: _filter, ph.Assign: _assign}


def assignment_origin(rule, var):
    """The user's assignment of ``var`` (for its messages), else the rule."""
    src = rule.source
    if src is not None:
        for b in src.body:
            if isinstance(b, ast.Assignment) and b.var.name == var:
                return b
    return src


def _since(op, rule, state, variant=None, horizon=None, explain=False, scans_first=False):
    """``left S right`` (or U): driven by the right operand (1: its delta,
    or in full in a first round) probing the left, or by the left
    operand's delta (0), closed, probing the right; each operand reads what
    :func:`engine.seminaive.views` says of ``variant``."""
    left, right = ph.atom_scan(op.left), ph.atom_scan(op.right)
    views = seminaive.views(variant)
    meter = getattr(state, "meter", None)  # (EXPLAIN ANALYZE's: the driving operand's scan; the Since/Until's: pipeline_for)
    if variant is not None and variant.position == 0:
        node = InputNode(left.pred, left.terms, views[0], state)
        slots = {v: i for i, v in enumerate(node.pattern.new_vars)}
        node = ClosingNode(node if meter is None else meter.wrap(node, op.left))
        node = SinceJoinNode(node, op.op, op.window, True, right.pred, right.terms, dict(slots), views.get(1, FULL), state)
    else:
        node = InputNode(right.pred, right.terms, views.get(1, FULL), state)
        slots = {v: i for i, v in enumerate(node.pattern.new_vars)}
        if meter is not None:
            node = meter.wrap(node, op.right)
        node = SinceJoinNode(node, op.op, op.window, False, left.pred, left.terms, dict(slots), views.get(0, FULL), state)
    for v in node.pattern.new_vars:
        slots[v] = len(slots)
    return rule_output(node, slots, rule, rule.head_terms, horizon, explain, rule.head_shift)


# the one table from a rule's physical operator (planner/physical.py) to its
# row lowering; those of aggregates, interval terms and the chase are loaded
# with their modules on first use (_load_lowerings)
_LOWERINGS: dict = {ph.Body: _body, ph.SinceUntil: _since}


def _load_lowerings() -> dict:
    from .aggregate import aggregate_pipeline
    from .chase import chase_pipeline
    from .interval_terms import capture_pipeline, timed_head_pipeline, wrap_pipeline

    _LOWERINGS.update(
        {
            ph.Aggregate: aggregate_pipeline,
            ph.WrapInterval: wrap_pipeline,
            ph.CaptureTime: capture_pipeline,
            ph.PlaceInterval: timed_head_pipeline,
            ph.ChaseStep: chase_pipeline,
        }
    )
    return _LOWERINGS
