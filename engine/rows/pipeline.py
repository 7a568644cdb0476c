"""Builds the node pipeline of one rule (one seminaive variant of it).

The body is ordered greedily: the driving literal first (the one reading
the delta, or the smallest relation in the first round), then the literal
sharing the most bound variables (ties: the smaller relation); conditions
and assignments go right after their inputs are bound, negations last (their
free variables are existential, so everything else must be bound first).
"""

from __future__ import annotations

from chronolog.language import ast
from chronolog.language.errors import ProgramError
from chronolog.planner.ir import Assign, Condition, NegScan, PlanRule, Scan, SinceRule

from .closing import ClosingNode
from .difference import DifferenceNode
from .input import DELTA, FULL, OLD, InputNode
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


def build_rule_pipeline(rule, state, driver=None, delta_preds=frozenset(), horizon=None, explain=False, scans_first=False):
    """The pipeline of one PlanRule, ending in an OutputNode.

    ``driver``: position of the body literal that reads the delta (``None``
    in the first round, when everything is read in full).  Literals before
    it whose predicate also has a delta read ``old`` facts only, so no
    combination of delta facts is joined twice (non-repetition).
    """
    lower = _lowering(type(rule))
    if lower is not None:  # aggregates, interval terms, existentials: their own node after the body
        return lower(rule, state, driver, delta_preds, horizon, explain)
    size = state.relation_size
    if driver is None:
        drv, views = choose_driver(rule, size), {}
    else:
        drv = driver
        views = {
            i: OLD
            for i, l in enumerate(rule.body)
            if isinstance(l, Scan) and i < driver and l.pred in delta_preds
        }
        views[driver] = DELTA
    order = order_body(rule, drv, size, scans_first)
    slots: dict = {}
    node = None
    for pos, lit in order:
        if node is None:
            node = InputNode(lit.pred, lit.terms, views.get(pos, FULL), state)
            for v in node.pattern.new_vars:
                slots[v] = len(slots)
            if lit.box is not None or lit.shift is not None or lit.group is not None:
                node = TemporalNode(node, lit.box, lit.shift, lit.group)
        elif isinstance(lit, Scan):
            node = TemporalJoinNode(node, lit.pred, lit.terms, dict(slots), views.get(pos, FULL), state, lit.box, lit.shift)
            for v in node.pattern.new_vars:
                slots[v] = len(slots)
        elif isinstance(lit, Condition):
            node = ConditionNode(node, lit.comparison, dict(slots))
        elif isinstance(lit, Assign):
            where = _assignment_origin(rule, lit)
            if lit.var in slots:
                cmp = ast.Comparison("==", ast.Var(lit.var), lit.expr, getattr(where, "pos", ast.NOWHERE))
                node = ConditionNode(node, cmp, dict(slots))
            else:
                node = AssignNode(node, lit.var, lit.expr, dict(slots), where)
                slots[lit.var] = len(slots)
        elif isinstance(lit, NegScan):
            node = DifferenceNode(node, lit.pred, lit.terms, dict(slots), state)
    cls = ExplainingOutputNode if explain else OutputNode
    out = cls(node, rule.head_pred, rule.head_terms, slots, rule.head_shift, horizon)
    out.slots = slots
    out.rule = rule
    return out


_LOWERINGS: dict = {}  # rule class -> its lowering (None: the plain pipeline above)


def _lowering(kind):
    """The function that lowers a rule of class ``kind`` to row nodes: the
    planner's rule kinds are data; how each runs on rows is decided here, once."""
    if not _LOWERINGS:
        from chronolog.planner.aggregates import AggregateRule
        from chronolog.planner.existential import ExistentialRule
        from chronolog.planner.interval_terms import TimedHeadRule, WrapRule

        from .aggregate import aggregate_pipeline
        from .chase import chase_pipeline
        from .interval_terms import timed_head_pipeline, wrap_pipeline

        _LOWERINGS.update(
            {
                PlanRule: None,
                AggregateRule: aggregate_pipeline,
                WrapRule: wrap_pipeline,
                TimedHeadRule: timed_head_pipeline,
                ExistentialRule: chase_pipeline,
            }
        )
    lower = _LOWERINGS.get(kind, False)
    if lower is False:  # a subclass: the lowering of its nearest known class
        lower = next((_LOWERINGS[k] for k in kind.__mro__ if k in _LOWERINGS), None)
        _LOWERINGS[kind] = lower
    return lower


def pipeline_for(rule, state, driver=None, delta_preds=frozenset(), horizon=None, explain=False, scans_first=False):
    """The row pipeline of any planned rule (one seminaive variant of it):
    ``driver`` is a body position, or "left"/"right" for Since/Until."""
    if isinstance(rule, SinceRule):
        return build_since_pipeline(rule, state, driver, delta_preds, horizon, explain)
    return build_rule_pipeline(rule, state, driver, delta_preds, horizon, explain, scans_first)


def _assignment_origin(rule, lit):
    src = rule.source
    if src is not None:
        for b in src.body:
            if isinstance(b, ast.Assignment) and b.var.name == lit.var:
                return b
    return src


def build_since_pipeline(rule: SinceRule, state, driver=None, delta_preds=frozenset(), horizon=None, explain=False):
    """The pipeline of a Since/Until rule: ``driver`` is "left", "right" or
    ``None`` (first round, the right operand drives over full relations)."""
    left, right = rule.left, rule.right
    if driver == "left":
        node = InputNode(left.pred, left.terms, DELTA, state)
        slots = {v: i for i, v in enumerate(node.pattern.new_vars)}
        node = ClosingNode(node)
        view = OLD if right.pred in delta_preds else FULL
        node = SinceJoinNode(node, rule.op, rule.window, True, right.pred, right.terms, dict(slots), view, state)
    else:
        node = InputNode(right.pred, right.terms, DELTA if driver == "right" else FULL, state)
        slots = {v: i for i, v in enumerate(node.pattern.new_vars)}
        node = SinceJoinNode(node, rule.op, rule.window, False, left.pred, left.terms, dict(slots), FULL, state)
    for v in node.pattern.new_vars:
        slots[v] = len(slots)
    cls = ExplainingOutputNode if explain else OutputNode
    out = cls(node, rule.head_pred, rule.head_terms, slots, rule.head_shift, horizon)
    out.slots = slots
    out.rule = rule
    return out


def describe_pipeline(node, indent: str = "    ") -> list:
    """Lines describing a pipeline, sink first."""
    lines = []
    depth = 0
    while node is not None:
        lines.append(f"{indent}{'   ' * depth}└─ {node.label()}")
        node = node.children[0] if node.children else None
        depth += 1
    return lines
