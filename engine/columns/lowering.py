"""A stratum's physical plan (planner/physical.py) as columnar nodes.

The one place the columns read the physical plan's operators: each rule
operator, atom operator and body step lowered to the nodes of this package
(scan, join, difference, ...), over the tables and codes of the
:class:`~chronolog.engine.columns.evaluator.HybridEvaluator` ``ev`` that
runs the stratum.  Imported only when a stratum runs on columns: a small
run on rows never builds the physical plan's classes.
"""

from __future__ import annotations

from chronolog.language import ast
from chronolog.planner import physical as ph

from .. import seminaive
from ..rows.pipeline import choose_driver, order_body
from .encoding import Fallback


def rule_pipeline(ev, rp, variant=None):
    """The nodes of one variant of a rule (its physical plan ``rp``, the
    DeltaVariant ``variant``, None: over the full relations): the rule
    operator's lowering (:data:`_LOWERINGS`), then the Output."""
    from .output import OutputNode

    op = rp.operator
    lower = _LOWERINGS.get(type(op))
    if lower is None:  # (a ChaseStep: fired between rounds, chase.py; met anywhere else, the rows run it)
        raise Fallback(f"{op.label()} has no columnar lowering")
    node = lower(ev, op, rp.rule, variant)
    out = rp.root
    meter = getattr(ev, "meter", None)  # (EXPLAIN ANALYZE's: a body's steps measure themselves)
    if meter is not None and not isinstance(op, ph.Body):
        node = meter.wrap(node, op)
    node = OutputNode(node, out.pred, out.terms, ev.terms, out.shift, ev.horizon if out.clip else None, ev._scale)
    return node if meter is None else meter.wrap(node, out)


def _atom(ev, op, view):
    """An atom's nodes: a Scan under its temporal operators (:data:`_ATOMS`)."""
    if isinstance(op, ph.Scan):
        from .scan import ScanNode

        node = ScanNode(op.pred, op.terms, view, ev)
    else:
        node = _ATOMS[type(op)](ev, op, _atom(ev, op.input, view))
    meter = getattr(ev, "meter", None)  # EXPLAIN ANALYZE's, else None
    return node if meter is None else meter.wrap(node, op)


def join_order(ev, rule, driver=None) -> list:
    """``(position, literal)`` of ``rule``'s body in the order its joins run:
    by the relations' sizes (the rows' order_body)."""
    ordering = getattr(ev, "join_sizes", {})  # (maintenance.py: the sizes before a semi-join reduction)

    def size(pred):
        growing = ev._growing.get(pred)
        if growing is not None:
            return growing.height
        return ordering[pred] if pred in ordering else ev.table(pred).height

    return order_body(rule, choose_driver(rule, size) if driver is None else driver, size)


def body_pipeline(ev, body, rule, variant=None):
    """A conjunction, its joins in :func:`join_order`, each atom reading
    what ``variant`` says (engine/seminaive.views); each step lowered by
    :data:`_STEPS`."""
    views = seminaive.views(variant)
    node = None
    bound: set = set()
    meter = getattr(ev, "meter", None)  # EXPLAIN ANALYZE's, else None
    joins = meter.joins(body) if meter is not None else None
    for pos, _ in join_order(ev, rule, None if variant is None else variant.position):
        step = body.steps[pos]
        first = node is None
        node = _STEPS[type(step)](ev, node, step, views.get(pos, seminaive.FULL), bound, rule)
        if meter is not None and not (first and isinstance(step, ph.IntervalJoin)):  # (a first atom: its scan, _atom)
            node = meter.wrap(node, joins.pop(0) if isinstance(step, ph.IntervalJoin) else step)
    return node


def _join(ev, node, step, view, bound, rule):
    atom = _atom(ev, step.atom, view)
    bound |= {c.name for c in step.atom.schema}
    if node is None:
        return atom
    from .join import JoinNode

    return JoinNode(node, atom, ev.values)


def _difference(ev, node, step, view, bound, rule):
    from .difference import DifferenceNode
    from .scan import ScanNode

    neg = step.negated
    return DifferenceNode(node, ScanNode(neg.pred, neg.terms, seminaive.FULL, ev), ev.values)


def _condition(ev, node, step, view, bound, rule):
    from .linear import ConditionNode

    return ConditionNode(node, step.comparison, ev.values)


def _assign(ev, node, step, view, bound, rule):
    """An assignment, a test when its variable is bound (``where``: the
    user's assignment, for the rows' messages: rows/pipeline.py)."""
    from ..rows.pipeline import assignment_origin
    from .linear import AssignNode, ConditionNode

    where = assignment_origin(rule, step.var)
    if step.var in bound:
        cmp = ast.Comparison("==", ast.Var(step.var), step.expr, getattr(where, "pos", ast.NOWHERE))
        return ConditionNode(node, cmp, ev.values)
    bound.add(step.var)
    return AssignNode(node, step.var, step.expr, ev.values, where)


def _aggregate(ev, op, rule, variant):
    from .aggregate import AggregateNode

    from chronolog.planner.aggregates import valued

    from ..rows.pipeline import assignment_origin
    from .linear import AssignNode

    # rules with the same body and group share its segments (aggregate.py); not
    # in a recursion (``variant``: the loop recomputes an aggregate over the full
    # relations, ColumnRounds.recomputed), whose body changes each round
    key, tables = None, ()
    if variant is None:
        try:
            key = (tuple(rule.body), tuple(rule.group))
            hash(key)
        except TypeError:
            key = None
        tables = tuple(ev.table(pred) for pred in _reads(op.input))
    if getattr(ev, "_shared_body", None) is None:
        from .aggregate import SharedBody

        ev._shared_body = SharedBody()
    # each aggregated expression but a variable an assignment of the bindings (the Spark
    # rounds' too), an error named as the rows name it: at the aggregate's assignment
    assignments, aggregates = valued(op.aggregates)
    result = {a.expr.name: v for v, a in aggregates if a.expr is not None}
    assigned = [AssignNode(None, a.var, a.expr, ev.values, assignment_origin(rule, result[a.var])) for a in assignments]
    bound = set(op.group) | {v for v, _ in op.aggregates}
    # conditions on the group and the aggregates filter the segments inside the node (aggregate.py)
    early = [s for s in op.after if isinstance(s, ph.Filter) and ast.variables_of(s.comparison) <= bound]
    node = AggregateNode(body_pipeline(ev, op.input, rule), op.group, aggregates, ev.values, ev._shared_body, key, tables,
                         [s.comparison for s in early], assigned, _touched(ev, op, rule) if variant is not None else None)
    for step in op.after:
        if not any(step is x for x in early):
            node = _STEPS[type(step)](ev, node, step, None, bound, rule)
    return node


def _touched(ev, op, rule):
    """In a recursion's later round, the groups the round's deltas reach:
    the group columns of the body's seminaive variants over the changed
    atoms (frames, possibly empty), or None where every group may change
    (no group).  A group no new binding reaches keeps its bindings (they
    only grow), hence its values, which the relation holds already: only
    the reached ones are folded again (company control over 300,000 edges:
    the aggregate folded 4.3M bindings over 17 rounds, most of them
    folded the round before)."""
    if not op.group:
        return None
    from .base import drain
    from .scan import var_column

    cols = [var_column(g) for g in op.group]
    frames = []
    for v in ph.delta_variants(op, frozenset(ev._delta)):
        df = drain(body_pipeline(ev, op.input, rule, v))
        if df is not None and df.height:
            frames.append(df.select(cols))
    return frames


def _since(ev, op, rule, variant):
    from .since import SinceNode

    if not (isinstance(op.left, ph.Scan) and isinstance(op.right, ph.Scan)):  # pragma: no cover - the planner makes them atoms
        raise Fallback("a Since/Until operand with an operator")
    right, left = _atom(ev, op.right, seminaive.FULL), _atom(ev, op.left, seminaive.FULL)
    return SinceNode(right, left, op.op, op.window, ev._scale, ev.values)


def _wrap(ev, op, rule, variant):
    """lit@[S,E]: the scan's maximal intervals, their ends as terms."""
    from .interval_terms import WrapNode

    return WrapNode(body_pipeline(ev, op.input, rule, variant), op.start, op.end, ev.terms, ev._scale)


def _capture(ev, op, rule, variant):
    """lit@T: each row once per integer time point, the point as a term."""
    from .interval_terms import CaptureNode

    return CaptureNode(body_pipeline(ev, op.input, rule, variant), op.var, ev.terms, ev._scale)


def _place(ev, op, rule, variant):
    """p(X)@[S,E] :- body: the head's interval from terms."""
    from .interval_terms import PlaceNode

    return PlaceNode(body_pipeline(ev, op.input, rule, variant), op.timed, ev.terms, ev._scale)


def _temporal(ev, op, child):
    from .temporal import TemporalNode

    return TemporalNode(child, op.box, op.shift, ev._scale)


def _group(ev, op, child):
    from .grouping import GroupNode

    return GroupNode(child, op.grouping, ev._scale)


def _reads(body):
    """The predicates a body reads (positive and negated atoms), in its IR order."""
    for step in body.steps:
        if isinstance(step, ph.IntervalJoin):
            yield ph.atom_scan(step.atom).pred
        elif isinstance(step, ph.Difference):
            yield step.negated.pred


# the one table from a physical operator's type to its columnar lowering:
# rule operators (under the Output), atom operators (over a Scan), body steps
_LOWERINGS = {
    ph.Body: body_pipeline,
    ph.SinceUntil: _since,
    ph.Aggregate: _aggregate,
    ph.WrapInterval: _wrap,
    ph.CaptureTime: _capture,
    ph.PlaceInterval: _place,
}
_ATOMS = {ph.TemporalShift: _temporal, ph.TimeGroup: _group}
_STEPS = {
    ph.IntervalJoin: _join,
    ph.Difference: _difference,
    ph.Filter: _condition,
    ph.Assign: _assign,
}
