"""The columnar maintenance keeps its rule variants' pipelines a session
(engine/columns/maintenance.py, KeptPipelines): lowered once, reset after
each pull, bound to each round's frames.  Whatever a kept pipeline read
before must not leak into a later round or update: after every update of
a sequence the model is that of reasoning from scratch on the row executor
on the facts then given (the oracle), and later updates lower nothing new
where they run the same variants."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import chronolog
from budget import examples

# recursion through a join (a transitive closure, re-derived through two
# scans of one predicate), a temporal operator beside the recursion, and a
# stratum above reading both
PROGRAM = """
reach(X,Y) :- edge(X,Y).
reach(X,Z) :- reach(X,Y), <->[0,2] edge(Y,Z).
far(X,Z) :- far(X,Y), far(Y,Z).
far(X,Y) :- reach(X,Y), mark(Y).
seen(X) :- far(X,Y), [-][0,1] mark(X).
"""

NODES = "abcde"
edge = st.tuples(st.sampled_from(NODES), st.sampled_from(NODES), st.integers(0, 12), st.integers(1, 6))
mark = st.tuples(st.sampled_from(NODES), st.integers(0, 12), st.integers(1, 6))


def edge_fact(x):
    a, b, s, n = x
    return f"edge({a},{b})@[{s},{s + n}]"


def mark_fact(x):
    a, s, n = x
    return f"mark({a})@[{s},{s + n}]"


@pytest.fixture(autouse=True)
def on_frames(monkeypatch):
    """Every update on the frames' path (the atoms' path does not lower rules)."""
    from chronolog.engine.columns import evaluator, maintenance

    monkeypatch.setattr(evaluator, "POINT_ATOMS", -1)
    monkeypatch.setattr(maintenance, "ROWS_AFTER", float("inf"))
    monkeypatch.setattr(maintenance, "ROWS_AFTER_SECONDS", float("inf"))


def scratch(facts) -> str:
    return chronolog.reason(PROGRAM, "\n".join(facts), engine="rows").to_text()


@settings(max_examples=examples(60), deadline=None)
@given(edges=st.lists(edge, min_size=1, max_size=10, unique_by=lambda x: x[:2]),
       marks=st.lists(mark, min_size=1, max_size=5, unique_by=lambda x: x[0]),
       steps=st.lists(st.tuples(st.booleans(), st.integers(0, 10**6), st.integers(1, 3)), min_size=2, max_size=6))
def test_updates_in_a_row_give_the_model_from_scratch(edges, marks, steps):
    """(One interval per atom: taking a fact back takes back its atom's
    points, so the facts left are the other lines.)"""
    given_facts = [edge_fact(x) for x in edges] + [mark_fact(x) for x in marks]
    r = chronolog.Reasoner(PROGRAM, "\n".join(given_facts), engine="columns")
    now = list(given_facts)
    out = []  # facts retracted, put back by a later add
    for retract, pick, k in steps:
        if retract and now:
            chosen = [now[(pick + i) % len(now)] for i in range(min(k, len(now)))]
            chosen = list(dict.fromkeys(chosen))
            m = r.retract(chosen)
            now = [f for f in now if f not in chosen]
            out += chosen
        elif out:
            chosen = list(dict.fromkeys(out[: k]))
            m = r.add(chosen)
            now += [f for f in chosen if f not in now]
            out = [f for f in out if f not in chosen]
        else:
            continue
        assert m.to_text() == scratch(now)


def test_a_repeated_update_lowers_nothing_new(monkeypatch):
    """The same retraction and add again: the second time every variant's
    pipeline is a kept one (none lowered), and the models are right."""
    from chronolog.engine.columns import lowering

    lowered = []
    real = lowering.rule_pipeline

    def counting(ev, rp, driver=None):
        lowered.append(driver)
        return real(ev, rp, driver)

    monkeypatch.setattr(lowering, "rule_pipeline", counting)
    chain = [f"edge(n{i},n{i + 1})@[{i},{i + 20}]" for i in range(8)] + [f"mark(n{i})@[0,30]" for i in range(0, 9, 2)]
    r = chronolog.Reasoner(PROGRAM, "\n".join(chain), engine="columns")
    gone = [chain[3]]
    left = [f for f in chain if f not in gone]
    counts = []
    for _ in range(3):
        lowered.clear()
        assert r.retract(gone).to_text() == scratch(left)
        assert r.add(gone).to_text() == scratch(chain)
        counts.append(len([d for d in lowered if d is not None]))
        assert r.model.stats["maintained_on"] == "columns"
    assert counts[0] > 0 and counts[1:] == [0, 0]
