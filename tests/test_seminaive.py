"""Non-repetition: with the blocking strategy every rule instance is applied
exactly once, so the number of derivations equals the number of instances."""

from math import comb

import chronolog

N = 30
CHAIN = [f"e({i},{i + 1})@[0,10]" for i in range(N)]


def test_linear_transitive_closure_applies_each_instance_once():
    m = chronolog.reason("r(X,Y) :- e(X,Y).\nr(X,Z) :- r(X,Y), e(Y,Z).", CHAIN)
    facts = N * (N + 1) // 2
    assert len(m.facts("r")) == facts
    # instances: one per edge, plus one per (r(x,y), e(y,y+1)) pair with y < N
    assert m.stats["derivations"] == N + (facts - N)


def test_nonlinear_transitive_closure_applies_each_instance_once():
    m = chronolog.reason("r(X,Y) :- e(X,Y).\nr(X,Z) :- r(X,Y), r(Y,Z).", CHAIN)
    assert len(m.facts("r")) == N * (N + 1) // 2
    # instances: one per edge, plus one per triple x < y < z of the N+1 nodes
    assert m.stats["derivations"] == N + comb(N + 1, 3)


def test_temporal_recursion_terminates_under_a_horizon_with_one_round_per_step():
    m = chronolog.reason("p :- <->[1,1] p.\np@[0,1].", horizon=(0, 100))
    assert m.to_text() == "p@[0,100]"
    assert m.stats["rounds"] == 100


# ---------------------------------------------------------------- one loop
# Every executor runs its rounds in engine/seminaive.run; the answers are
# checked against the pointwise oracle (tests/oracle/pointwise.py).

import pytest  # noqa: E402

from chronolog.engine import seminaive  # noqa: E402
from oracle import evaluate_text  # noqa: E402

SINCE_RECURSION = """
r(X) :- s(X).
r(X) :- q(X) <S>[1,2] r(X).
q(X) :- r(X).
q(X) :- p(X).
"""
SINCE_FACTS = "s(a)@[0,1]. p(a)@[1,6]. s(b)@[3,3]. p(b)@[2,9]."


@pytest.fixture
def backends(monkeypatch):
    """The backend classes the runs hand to the loop, in order."""
    seen = []
    run = seminaive.run

    def recording(backend, planned, deltas=None):
        seen.append(type(backend).__name__)
        return run(backend, planned, deltas)

    monkeypatch.setattr(seminaive, "run", recording)
    return seen


CLOSURE = """
t(X,Y) :- e(X,Y).
t(X,Z) :- t(X,Y), t(Y,Z).
w(X,Y) :- t(X,Y) <S>[1,2] e(X,Y).
"""
CLOSURE_FACTS = "e(1,2)@[0,4]. e(2,3)@[2,6]. e(3,1)@[1,3]. e(3,4)@[5,8]."


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_each_executor_runs_the_one_loop_and_agrees_with_the_oracle(backends, engine):
    ran = {"rows": "RowRounds", "columns": "ColumnRounds"}
    for program, facts in ((CLOSURE, CLOSURE_FACTS), (SINCE_RECURSION, SINCE_FACTS)):
        del backends[:]
        m = chronolog.reason(program + facts, horizon=(0, 12), engine=engine)
        executors = set(m.stats.get("executors", {0: "rows"}).values())
        assert set(backends) == {ran[e] for e in executors}
        if program is CLOSURE:  # (the Since recursion moves time: rows)
            assert executors == {engine}
        oracle = evaluate_text(program, facts, (0, 12))
        for pred in oracle.predicates():
            assert sorted(m.facts(pred)) == sorted(oracle.facts(pred)), pred


def test_an_update_runs_the_loop_from_the_changes_and_agrees_with_reasoning_from_scratch(backends):
    program = "r(X,Y) :- e(X,Y).\nr(X,Z) :- r(X,Y), e(Y,Z)."
    reasoner = chronolog.Reasoner(program, CHAIN[:10], engine="rows")
    reasoner.model
    del backends[:]
    updated = reasoner.add(CHAIN[10:20])
    assert backends and set(backends) == {"RowRounds"}
    # reachability from scratch: every i < j on the chain 0..20, at [0,10]
    assert sorted(t for t, _ in updated.facts("r")) == sorted((i, j) for i in range(21) for j in range(i + 1, 21))
    assert {iv for _, iv in updated.facts("r")} == {(0, 10, True, True)}


def test_the_variants_of_a_round_come_from_the_physical_plan():
    from chronolog.planner import physical as ph

    plan = chronolog.Reasoner(SINCE_RECURSION + SINCE_FACTS, horizon=(0, 12)).plan
    (st,) = [s for s in plan.physical.strata if s.recursive]
    since = next(rp for rp in st.rules if rp.operator.label().startswith("Since"))
    # the right operand first (its variant reads the left whole), the left's reading the right's old facts
    got = [(v.position, v.pred, v.old) for rp, v in st.delta_variants(frozenset({"q", "r"})) if rp is since]
    assert got == [(1, "r", ()), (0, "q", (1,))]
    # a backend that recomputes Since/Until whole runs it once per round
    assert [v.position for rp, v in st.delta_variants(frozenset({"q", "r"}), (ph.SinceUntil,)) if rp is since] == [1]


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_each_executor_joins_each_combination_of_new_facts_once(engine):
    # the columns read what each atom of a variant sees from the plan's
    # variant (seminaive.views), as the Spark rounds do: the atoms before
    # the driving one the old facts, or an instance would be derived twice
    m = chronolog.reason("r(X,Y) :- e(X,Y).\nr(X,Z) :- r(X,Y), r(Y,Z).", CHAIN, engine=engine)
    assert m.stats["executors"] == {0: engine}
    assert m.stats["derivations"] == N + comb(N + 1, 3)


def test_the_views_of_a_variant_are_the_plans_delta_and_old_facts():
    plan = chronolog.Reasoner("r(X,Y) :- e(X,Y).\nr(X,Z) :- r(X,Y), r(Y,Z).").plan
    (st,) = [s for s in plan.physical.strata if s.recursive]
    got = [seminaive.views(v) for _, v in st.delta_variants(frozenset({"r"}))]
    assert got == [{0: seminaive.DELTA}, {0: seminaive.OLD, 1: seminaive.DELTA}]
    assert seminaive.views(None) == {}


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_each_executor_takes_what_an_atom_reads_from_seminaive_views(monkeypatch, engine):
    # one decision, written once: the rows (the reference; a body and a
    # Since/Until) and the columns ask seminaive.views for each variant's
    # delta and old facts rather than working them out again
    seen = []
    views = seminaive.views

    def recording(variant):
        seen.append(variant)
        return views(variant)

    monkeypatch.setattr(seminaive, "views", recording)
    cases = [(CLOSURE, CLOSURE_FACTS, {(0, "t", ()), (1, "t", (0,))})]
    if engine == "rows":  # (the Since recursion runs on the rows)
        cases.append((SINCE_RECURSION, SINCE_FACTS, {(1, "r", ()), (0, "q", (1,))}))
    for program, facts, variants in cases:
        del seen[:]
        m = chronolog.reason(program + facts, horizon=(0, 12), engine=engine)
        assert variants <= {(v.position, v.pred, v.old) for v in seen if v is not None}
        oracle = evaluate_text(program, facts, (0, 12))
        for pred in oracle.predicates():
            assert sorted(m.facts(pred)) == sorted(oracle.facts(pred)), pred


# An update's rounds too: DRed's over-deletion and the insertion are
# backends of the loop, on the rows (the rows' own updates and the columns'
# updates by atoms) as on the columns' frames; no loop of their own asks the
# plan for a round's variants.
UPDATED = """
t(X,Y) :- e(X,Y).
t(X,Z) :- t(X,Y), e(Y,Z).
u(X) :- t(X,Y), m(Y).
"""
UPDATED_FACTS = ["e(1,2)@[0,6]", "e(2,3)@[2,8]", "e(3,4)@[1,9]", "e(4,1)@[3,5]", "m(3)@[0,10]", "m(1)@[4,7]"]


@pytest.mark.parametrize("engine,path", [("rows", None), ("columns", "atoms"), ("columns", "frames")])
def test_an_updates_rounds_are_all_run_by_the_one_loop(monkeypatch, backends, engine, path):
    from chronolog.engine.columns import evaluator as columns_evaluator
    from chronolog.planner import physical as ph

    monkeypatch.setattr(columns_evaluator, "POINT_ATOMS", 10**9 if path == "atoms" else -1)
    inside, outside = [], []
    run, variants = seminaive.run, ph.StratumPlan.delta_variants
    depth = [0]

    def counted_run(*args, **kwargs):
        depth[0] += 1
        try:
            return run(*args, **kwargs)
        finally:
            depth[0] -= 1

    def recorded(self, changed, *args):
        (inside if depth[0] else outside).append(sorted(changed))
        return variants(self, changed, *args)

    monkeypatch.setattr(seminaive, "run", counted_run)
    monkeypatch.setattr(ph.StratumPlan, "delta_variants", recorded)
    reasoner = chronolog.Reasoner(UPDATED, UPDATED_FACTS, engine=engine)
    reasoner.model
    del backends[:], inside[:]
    gone, added = "e(2,3)@[3,5]", ["e(3,1)@[6,7]", "m(4)@[2,3]"]
    updated = reasoner.update(retract=[gone], add=added)
    assert outside == [] and inside  # (every round's variants asked for inside seminaive.run)
    ran = updated.stats["maintenance"]
    assert all(s["maintained"] for s in ran) and {s.get("path") for s in ran} == {path}
    assert "RowRounds" in backends if engine == "rows" or path == "atoms" else "_Insertion" in backends
    assert "_OverDeletion" in backends
    facts = ". ".join(f for f in UPDATED_FACTS if f != "e(2,3)@[2,8]") + ". e(2,3)@[2,3). e(2,3)@(5,8]. " + ". ".join(added) + "."
    oracle = evaluate_text(UPDATED, facts, (0, 12))
    for pred in ("t", "u"):
        assert sorted(updated.facts(pred)) == sorted(oracle.facts(pred)), pred
