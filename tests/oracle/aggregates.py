"""Aggregates for the pointwise oracle, written from docs/language.md
("Aggregation") and sharing no code with the engine.

Per cell of the grid: the bindings of the body (every body variable) that
hold there, grouped by the head's variables that are not aggregate results;
without contributors each binding gives its value, with contributors each
contributor tuple gives one value, the greatest of its bindings' values (the
least for min/mmin).  Exact arithmetic only (the oracle has no floats).
"""

from __future__ import annotations

from fractions import Fraction

from chronolog.language import ast


def has_aggregate(rule) -> bool:
    return any(isinstance(l, ast.Assignment) and isinstance(l.expr, ast.Aggregate) for l in rule.body)


def _fold(func, values):
    if func in ("sum", "msum"):
        return _norm(sum(Fraction(v) for v in values))
    if func in ("prod", "mprod"):
        p = Fraction(1)
        for v in values:
            p *= v
        return _norm(p)
    if func in ("count", "mcount"):
        return len(values)
    if func in ("min", "mmin"):
        return min(values)
    if func in ("max", "mmax"):
        return max(values)
    if func == "avg":
        return _norm(sum(Fraction(v) for v in values) / len(values))
    if func == "munion":
        return tuple(sorted(set(values), key=lambda v: (isinstance(v, str), v)))
    raise AssertionError(func)


def _norm(x):
    return x.numerator if x.denominator == 1 else x


def apply_aggregate(ev, rule, expr_fn, compare_fn) -> bool:
    """One application of an aggregate rule in the oracle ``ev``."""
    aggs = [l for l in rule.body if isinstance(l, ast.Assignment) and isinstance(l.expr, ast.Aggregate)]
    late = {a.var.name for a in aggs}
    grew = True
    while grew:
        grew = False
        for l in rule.body:
            if isinstance(l, ast.Assignment) and l.var.name not in late and ast.variables_of(l.expr) & late:
                late.add(l.var.name)
                grew = True
    pre = [l for l in rule.body if l not in aggs and not (isinstance(l, (ast.Assignment, ast.Comparison)) and ast.variables_of(l) & late)]
    post = [l for l in rule.body if l not in aggs and l not in pre]
    head = ast.head_atom(rule.head)
    group = [t.name for t in head.terms if isinstance(t, ast.Var) and t.name not in late]
    group = list(dict.fromkeys(group))
    body_rule = ast.Rule(ast.Truth(False), pre, rule.pos, rule.text)
    size = ev.grid.size
    per_group: dict = {}
    for b in ev._bindings(body_rule):
        f = ev.body(body_rule, b)
        if any(f):
            key = tuple(b[g] for g in group)
            per_group.setdefault(key, []).append((b, f))
    changed = False
    for key, items in per_group.items():
        results: dict = {}  # values tuple -> truth per cell
        for c in range(size):
            here = [b for b, f in items if f[c]]
            # distinct bindings (the oracle may list one twice)
            uniq = {tuple(sorted(b.items(), key=lambda kv: kv[0])): b for b in here}
            if not uniq:
                continue
            values = []
            for a in aggs:
                agg = a.expr
                vals = []
                if agg.contributors:
                    best: dict = {}
                    for b in uniq.values():
                        who = tuple(b[t.name] if isinstance(t, ast.Var) else t.value for t in agg.contributors)
                        v = 1 if agg.expr is None else expr_fn(agg.expr, b)
                        old = best.get(who)
                        if old is None:
                            best[who] = v
                        else:
                            best[who] = min(old, v) if agg.func in ("min", "mmin") else max(old, v)
                    vals = list(best.values())
                else:
                    vals = [1 if agg.expr is None else expr_fn(agg.expr, b) for b in uniq.values()]
                values.append(_fold(agg.func, vals))
            nb = dict(zip(group, key))
            nb.update({a.var.name: v for a, v in zip(aggs, values)})
            ok = True
            for l in post:
                if isinstance(l, ast.Assignment):
                    v = expr_fn(l.expr, nb)
                    if l.var.name in nb:
                        ok = ok and nb[l.var.name] == v
                    else:
                        nb[l.var.name] = v
            for l in post:
                if isinstance(l, ast.Comparison):
                    ok = ok and compare_fn(l.op, expr_fn(l.left, nb), expr_fn(l.right, nb))
            if not ok:
                continue
            terms = tuple(nb[t.name] if isinstance(t, ast.Var) else t.value for t in head.terms)
            results.setdefault(terms, [False] * size)[c] = True
        for terms, f in results.items():
            if isinstance(rule.head, ast.Temporal):
                _, f = ev.head(rule.head, f)
            if ev.horizon_mask is not None:
                f = [x and m for x, m in zip(f, ev.horizon_mask)]
            changed |= ev._merge(head.pred, terms, f)
    return changed
