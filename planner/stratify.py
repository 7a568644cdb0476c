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


def strongly_connected_components(nodes, succ) -> list:
    """Tarjan's algorithm, iterative; components in topological order
    (a component comes before every component it has an edge to).  A node
    with no successors is its own component at once, as the walk would
    find it (half the predicates of a rule-per-predicate program are such
    heads: no stack, no iterator each)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        targets = succ.get(root)
        if not targets:
            index[root] = low[root] = counter
            counter += 1
            out.append([root])
            continue
        work = [(root, iter(targets))]
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
                    targets = succ.get(nxt)
                    if not targets:  # (its own component: its low stays its index, above the node's)
                        out.append([nxt])
                        continue
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(targets)))
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
    nodes: dict = {}  # (a dict: the predicates in order of appearance, each once)
    succ: dict = {}  # body predicate -> the heads it feeds, an edge per literal, in order
    by_head: dict = {}
    reads: dict = {}  # head -> the predicates its rules read
    negative_edges = []
    self_loops = set()  # (a scan of every edge per component: 27 s for 10,000 rules)
    for r in rules:  # (one pass; literal types compared, not isinstance: the IR's literals have no subclasses)
        head = r.head_pred
        if head is None:  # (a constraint's predicates are nodes, of no edge)
            for lit in r.body:
                if type(lit) is Scan or type(lit) is NegScan:
                    nodes[lit.pred] = None
            continue
        nodes[head] = None
        got = by_head.get(head)
        if got is None:
            by_head[head] = [r]
            read = reads[head] = set()
        else:
            got.append(r)
            read = reads[head]
        for lit in r.body:
            kind = type(lit)
            if kind is Scan or kind is NegScan:
                p = lit.pred
                nodes[p] = None
                read.add(p)
                feeds = succ.get(p)
                if feeds is None:
                    succ[p] = [head]
                else:
                    feeds.append(head)
                if p == head:
                    self_loops.add(p)
                if kind is NegScan:
                    negative_edges.append((p, head, r))
    comps = strongly_connected_components(nodes, succ)
    comp_of = {p: i for i, c in enumerate(comps) for p in c} if negative_edges else {}
    for a, b, rule in negative_edges:
        if comp_of[a] == comp_of[b]:
            src = rule.source
            raise ProgramError(
                f"the program is not stratifiable: {spelled(b, meanings or {})} depends negatively on "
                f"{spelled(a, meanings or {})}, which depends on {spelled(b, meanings or {})}",
                src.pos if src else None,
                hint="negation must not go through recursion: 'not p' needs p complete before the rule runs",
                source_line=src.text if src else "",
            )
    strata = []
    for comp in comps:
        if len(comp) == 1:  # (most components: one predicate, half of them given, with no rule)
            p = comp[0]
            comp_rules = by_head.get(p)
            if not comp_rules:
                continue
            recursive = p in self_loops
            read = reads[p]
        else:
            comp_rules = [r for p in comp for r in by_head.get(p, [])]
            if not comp_rules:
                continue
            recursive = True
            read = set().union(*[reads[p] for p in comp if p in reads])
        preds = set(comp)
        st = Stratum(len(strata), preds, comp_rules, recursive, [], [], read)
        if recursive:
            st.shifting_rules = [r for r in comp_rules if _moves_time(r, preds)]
            st.inventing_rules = [r for r in comp_rules if _invents_values(r, preds)]
        strata.append(st)
    return strata
