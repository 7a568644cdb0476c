"""Human-readable text of what the planner knows of a plan's model: its
kind and how each recursion through time terminates (the first lines of
``chronolog plan``; chronolog/plan_text.py adds where each stratum runs and
the executors' pipelines)."""

from __future__ import annotations


def describe_fragment(plan, closed: bool = False) -> list:
    """The model kind (finite, constant or periodic, as in the Temporal Vadalog paper), the pattern step, and how each
    component whose recursion moves time will terminate: where it repeats, or within the horizon where a
    ``closed`` one (both ends finite) bounds the run."""
    from chronolog.language.timeline import format_number

    from .fragment import classify, direction

    frag = classify(plan.strata)
    out = [f"model: {frag.kind} ({frag.reason})"]
    if frag.kind == "finite":
        return out
    if frag.pattern_length is not None and not closed:  # (a period is found only where none bounds the run)
        out.append(f"pattern step: {format_number(frag.pattern_length)} (the period found at run time is a multiple of it)")
    for st in plan.strata:
        if not (st.recursive and st.shifting_rules):
            continue
        d = direction(st.rules, set(st.preds))
        reads = {"forward": "reads only the past", "backward": "reads only the future", "none": "",
                 "mixed": "reads both the past and the future"}[d.kind]
        how = "computed within the horizon" if closed else {  # (within it: each stratum's placement below says how)
            "forward": "computed forward until it repeats",
            "backward": "computed backward (time mirrored) until it repeats",
            "none": "computed until it repeats",
            "mixed": "a repeating guess from a growing window, proved a model",
        }[d.kind]
        how = f"{reads}: {how}" if reads else how
        preds = sorted(p for p in st.preds if not p.startswith("$"))
        out.append(f"recursion through {', '.join(preds)}: {how}")
        for r in st.shifting_rules:
            src = r.source
            text = src.text if src is not None and src.text else r.describe()
            out.append(f"    {text}")
    return out


def operator_tree(op, indent: str = "    ", figures=None) -> list:
    """Lines of an operator tree (planner/physical.py), root first, each
    with its schema, as DataFusion's and Polars' EXPLAIN print a plan; a
    body's joins in the order of the program text (the backends reorder
    them by relation sizes at run time).  ``figures``: operator -> what a
    run of it did (EXPLAIN ANALYZE's ``rows=... time=...``) or None."""
    lines: list = []
    _tree(_shown(op), indent, "", True, lines, figures, root=True)
    return lines


def _shown(op):
    """``(label, schema, children, operator)`` of an operator, a Body as its left-deep tree."""
    from .physical import Body, Difference, IntervalJoin

    if isinstance(op, Body):
        return _body_tree(op)
    if isinstance(op, (IntervalJoin, Difference)):  # (inside a body's tree)
        return _shown(op.children()[0])
    return (op.label(), op.schema, [_shown(c) for c in op.children()], op)


def _body_tree(body):
    from .physical import Assign, Difference, IntervalJoin

    node, cols = None, []
    for i in body.order:
        step = body.steps[i]
        if isinstance(step, IntervalJoin):
            atom = _shown(step.atom)
            cols += [c for c in step.atom.schema if c.name not in {x.name for x in cols}]
            node = atom if node is None else (step.label(), tuple(cols), [node, atom], step)
        elif isinstance(step, Difference):
            node = (step.label(), tuple(cols), [node] if node else [], step)
        else:
            if isinstance(step, Assign) and step.var not in {x.name for x in cols}:
                cols.append(step.schema[0])
            node = (step.label(), tuple(cols), [node] if node else [], step)
    return node if node is not None else ("Empty body (holds everywhere)", (), [], None)


def _tree(node, indent, prefix, last, lines, figures=None, root=False):
    label, schema, children, op = node
    cols = ", ".join(str(c) for c in schema)
    branch = "" if root else ("└─ " if last else "├─ ")
    ran = figures(op) if figures is not None and op is not None else None
    lines.append(f"{indent}{prefix}{branch}{label}" + (f"  → {cols}" if cols else "") + (f"  {ran}" if ran else ""))
    inner = prefix if root else prefix + ("   " if last else "│  ")
    for k, child in enumerate(children):
        _tree(child, indent, inner, k == len(children) - 1, lines, figures)


def coalesce_tree(pred: str, schema, root, indent: str = "    ", figures=None, coalesce=None) -> list:
    """A rule's tree under the Coalesce of its head predicate (``coalesce``:
    that operator, whose ``figures`` are printed beside it)."""
    lines: list = []
    _tree((f"Coalesce {pred}", schema, [_shown(root)], coalesce), indent, "", True, lines, figures, root=True)
    return lines


def shown_atom(plan, pred: str, values) -> str | None:
    """The user's formula a predicate the planner (or a dialect) made stands
    for, with ``values`` in its places (``$t1(a)`` -> ``<->[0,1] q(a)``);
    None for the user's own predicates."""
    from chronolog.language import ast

    from .normalize import meaning_of

    formula = meaning_of(plan.meanings, ast.Atom(pred, tuple(values)))
    return None if formula is None else str(formula)
