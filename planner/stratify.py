"""Dependency graph, strongly connected components and strata.

Edges go from each body predicate to the head predicate, marked negative
under ``not``.  Each SCC becomes one :class:`~.ir.Stratum`, in topological
order; a negative edge inside an SCC makes the program unstratifiable.

A recursive stratum *moves time* when a rule inside the cycle shifts an
interval outward (a diamond other than ``[0,0]``, a box whose window misses
0, a head box, Since/Until): its least model may be infinite, so it needs a
horizon (issue 4 adds periodic detection).  It *invents values* when an
assignment feeds the head inside the cycle.
"""

from __future__ import annotations

from chronolog.language.errors import ProgramError
from chronolog.language.timeline import contains_point

from .ir import Assign, NegScan, Scan, SinceRule, Stratum
from .normalize import spelled


def dependency_edges(rules) -> list:
    """``(body_pred, head_pred, negative, rule)`` for every rule."""
    edges = []
    for r in rules:
        if r.head_pred is None:
            continue
        for lit in r.body:
            if isinstance(lit, Scan):
                edges.append((lit.pred, r.head_pred, False, r))
            elif isinstance(lit, NegScan):
                edges.append((lit.pred, r.head_pred, True, r))
    return edges


def strongly_connected_components(nodes, succ) -> list:
    """Tarjan's algorithm, iterative; components in topological order
    (a component comes before every component it has an edge to)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(succ.get(root, ())))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(succ.get(nxt, ()))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                out.append(comp)
    out.reverse()
    return out


def _moves_time(rule, scc) -> bool:
    if isinstance(rule, SinceRule):
        return any(lit.pred in scc for lit in rule.body)
    recursive_lits = [l for l in rule.body if isinstance(l, Scan) and l.pred in scc]
    if not recursive_lits:
        return False
    if rule.head_shift is not None:
        return True
    for lit in recursive_lits:
        if lit.shift is not None or lit.group is not None:
            return True
        if lit.box is not None and not contains_point(lit.box, 0):
            return True
    return False


def _invents_values(rule, scc) -> bool:
    if isinstance(rule, SinceRule):
        return False
    return any(isinstance(l, Assign) for l in rule.body) and any(
        isinstance(l, Scan) and l.pred in scc for l in rule.body
    )


def stratify(rules, meanings=None) -> list:
    """Group the (non-constraint) rules into strata in evaluation order
    (``meanings``: the formulas the planner's predicates stand for, for messages)."""
    edges = dependency_edges(rules)
    nodes: dict = {}  # (a dict: the predicates in order of appearance, each once)
    for r in rules:
        if r.head_pred is not None:
            nodes[r.head_pred] = None
        for l in r.body:
            if isinstance(l, (Scan, NegScan)):
                nodes[l.pred] = None
    succ: dict = {}
    for a, b, _, _ in edges:
        succ.setdefault(a, []).append(b)
    comps = strongly_connected_components(nodes, succ)
    negative_edges = [e for e in edges if e[2]]
    comp_of = {p: i for i, c in enumerate(comps) for p in c} if negative_edges else {}
    for a, b, _, rule in negative_edges:
        if comp_of[a] == comp_of[b]:
            src = rule.source
            raise ProgramError(
                f"the program is not stratifiable: {spelled(b, meanings or {})} depends negatively on "
                f"{spelled(a, meanings or {})}, which depends on {spelled(b, meanings or {})}",
                src.pos if src else None,
                hint="negation must not go through recursion: 'not p' needs p complete before the rule runs",
                source_line=src.text if src else "",
            )
    by_head: dict = {}
    for r in rules:
        if r.head_pred is not None:
            by_head.setdefault(r.head_pred, []).append(r)
    self_loops = {a for a, b, _, _ in edges if a == b}  # (a scan of every edge per component: 27 s for 10,000 rules)
    strata = []
    for comp in comps:
        if len(comp) == 1:  # (most components: one predicate, half of them given, with no rule)
            comp_rules = by_head.get(comp[0])
            if not comp_rules:
                continue
        else:
            comp_rules = [r for p in comp for r in by_head.get(p, [])]
            if not comp_rules:
                continue
        preds = set(comp)
        recursive = len(comp) > 1 or comp[0] in self_loops
        st = Stratum(len(strata), preds, comp_rules, recursive)
        st.reads = {l.pred for r in comp_rules for l in r.body if isinstance(l, (Scan, NegScan))}
        if recursive:
            st.shifting_rules = [r for r in comp_rules if _moves_time(r, preds)]
            st.inventing_rules = [r for r in comp_rules if _invents_values(r, preds)]
        strata.append(st)
    return strata
