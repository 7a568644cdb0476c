"""Strongly connected components against their definition (mutual
reachability, found by a closure over the edges) and their order (every
edge from an earlier component to a later one), on random graphs with
leaves, self-loops and cycles; and stratify's strata against the same."""

from budget import examples
from hypothesis import given, settings, strategies as st

from chronolog.language.vadalog import parse
from chronolog.planner import plan
from chronolog.planner.stratify import strongly_connected_components


def _reach(nodes, edges) -> dict:
    """node -> the nodes reachable from it in one or more steps (a closure)."""
    reach = {n: {b for a, b in edges if a == n} for n in nodes}
    changed = True
    while changed:
        changed = False
        for n in nodes:
            more = set().union(*(reach[m] for m in reach[n])) - reach[n]
            if more:
                reach[n] |= more
                changed = True
    return reach


graphs = st.integers(1, 12).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n)))


@settings(max_examples=examples(200), deadline=None)
@given(graphs, st.randoms(use_true_random=False))
def test_components_are_the_mutually_reachable_sets_in_topological_order(graph, rnd):
    n, edges = graph
    nodes = list(range(n))
    rnd.shuffle(nodes)
    succ: dict = {}
    for a, b in edges:
        succ.setdefault(a, []).append(b)
    comps = strongly_connected_components(nodes, succ)
    assert sorted(p for c in comps for p in c) == list(range(n))
    reach = _reach(range(n), edges)
    where = {p: i for i, c in enumerate(comps) for p in c}
    for a in range(n):
        assert set(comps[where[a]]) == {a} | {b for b in reach[a] if a in reach[b]}
    for a, b in edges:
        assert where[a] <= where[b]


@settings(max_examples=examples(60), deadline=None)
@given(graphs)
def test_strata_are_the_components_of_the_rules(graph):
    """A rule ``p{b}(X) :- p{a}(X).`` per edge (``not`` where it keeps the
    program stratifiable): each stratum is a component of derived predicates,
    recursive exactly when it has a cycle, reading its rules' predicates, in
    an order where every predicate is derived before a stratum reads it."""
    n, edges = graph
    reach = _reach(range(n), edges)
    lines = []
    for a, b in edges:
        negated = a not in reach[b] and a != b
        lines.append(f"p{b}(X) :- {'q(X), not ' if negated else ''}p{a}(X).")
    if not lines:
        return
    strata = plan(parse("\n".join(lines))).strata
    heads = {f"p{b}" for _, b in edges}
    assert sorted(p for s in strata for p in s.preds) == sorted(heads)
    at = {p: s.index for s in strata for p in s.preds}
    for s in strata:
        a = int(next(iter(s.preds))[1:])
        assert s.preds == {f"p{b}" for b in {a} | {b for b in reach[a] if a in reach[b]}} & heads
        assert s.recursive == (a in reach[a])
        assert s.reads == {lit.pred for r in s.rules for lit in r.body if hasattr(lit, "pred")}
        assert all(at.get(p, -1) <= s.index for p in s.reads)
        assert all(at[p] < s.index for p in s.reads if p not in s.preds and p in at)
