"""Only the planner looks at what kind a rule is.

The planner lowers each rule once into physical operators
(planner/physical.py, ``rule_operator``); the executors (engine/ and
connectors/) and the API dispatch on those operators.  This scans their source over
``ast`` (as tests/test_layers.py does for imports) for a dispatch on the
planner's rule classes: ``isinstance``/``issubclass`` with one of them, a
``type(...)`` compared with one, a dict keyed by them, or
``hasattr``/``getattr`` of an attribute only one kind of rule has.
"""

from __future__ import annotations

import ast

import chronolog.planner.aggregates  # noqa: F401  (the rule classes the planner defines)
import chronolog.planner.existential  # noqa: F401
import chronolog.planner.interval_terms  # noqa: F401
from chronolog.planner.ir import PlanRule, SinceRule

from test_layers import ROOT, layer, package_modules


# attributes that tell a rule's kind (AggregateRule, WrapRule, TimedHeadRule,
# ExistentialRule, SinceRule): asking whether a rule has one is dispatch
KIND_ATTRIBUTES = {"aggregates", "after", "inner_terms", "capture", "timed", "existentials", "window", "left", "right",
                   "nonmonotonic"}

# dispatch not moved yet, by (file, attribute): none left.  Only ever
# shrinks: an entry that no longer occurs fails the test.
NOT_MOVED_YET: set = set()


def rule_classes() -> set[str]:
    """The names of the planner's rule classes and their subclasses."""
    found, todo = set(), [PlanRule, SinceRule]
    while todo:
        cls = todo.pop()
        if cls.__name__ not in found:
            found.add(cls.__name__)
            todo.extend(cls.__subclasses__())
    return found


def _names(node) -> set[str]:
    """The class names an expression mentions (a name, ``module.Name``, a tuple of them)."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Attribute):
        return {node.attr}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return set().union(*(_names(e) for e in node.elts)) if node.elts else set()
    return set()


def dispatches(source: str, classes: set[str]) -> list[tuple[int, str]]:
    """``(line, what)`` for every dispatch on a rule kind in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            name, args = node.func.id, node.args
            if name in ("isinstance", "issubclass") and len(args) == 2 and _names(args[1]) & classes:
                found.append((node.lineno, f"{name} on {', '.join(sorted(_names(args[1]) & classes))}"))
            elif name in ("hasattr", "getattr") and len(args) >= 2 and isinstance(args[1], ast.Constant) \
                    and args[1].value in KIND_ATTRIBUTES:
                found.append((node.lineno, f"{name} {args[1].value}"))
        elif isinstance(node, ast.Compare) and any(_is_type_call(x) for x in (node.left, *node.comparators)):
            hit = set().union(*(_names(x) for x in (node.left, *node.comparators))) & classes
            if hit:
                found.append((node.lineno, f"type() compared with {', '.join(sorted(hit))}"))
        elif isinstance(node, ast.Dict):
            hit = set().union(set(), *(_names(k) for k in node.keys if k is not None)) & classes
            if hit:
                found.append((node.lineno, f"a table keyed by {', '.join(sorted(hit))}"))
    return found


def _is_type_call(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type"


def violations() -> list[tuple[str, int, str]]:
    classes = rule_classes()
    out = []
    for module, path in package_modules().items():
        if layer(module) is None or layer(module) <= layer("chronolog.planner"):
            continue
        for line, what in dispatches(path.read_text(), classes):
            out.append((str(path.relative_to(ROOT)), line, what))
    return out


def test_the_scan_sees_each_form_of_dispatch():
    source = (
        "def f(rule, ir):\n"
        "    if isinstance(rule, SinceRule): pass\n"
        "    if isinstance(rule, (ir.AggregateRule, int)): pass\n"
        "    if type(rule) in (PlanRule,): pass\n"
        "    if hasattr(rule, 'existentials'): pass\n"
        "    for a in getattr(rule, 'aggregates', ()): pass\n"
        "    table = {WrapRule: f}\n"
        "    if isinstance(rule.op, ph.SinceUntil) or getattr(lit, 'group', None): pass\n"
    )
    got = [line for line, _ in dispatches(source, rule_classes())]
    assert got == [2, 3, 4, 5, 6, 7]
    assert {"PlanRule", "SinceRule", "AggregateRule", "WrapRule", "TimedHeadRule", "ExistentialRule"} <= rule_classes()


def test_only_the_planner_dispatches_on_rule_kinds():
    found = violations()
    new = [f"{path}:{line} {what}" for path, line, what in found if (path, what.split()[-1]) not in NOT_MOVED_YET]
    assert not new, "dispatch on the planner's rule classes above the planner (use physical.rule_operator):\n" + "\n".join(new)
    gone = NOT_MOVED_YET - {(path, what.split()[-1]) for path, _, what in found}
    assert not gone, f"these no longer dispatch on rule kinds: take them out of NOT_MOVED_YET: {sorted(gone)}"
