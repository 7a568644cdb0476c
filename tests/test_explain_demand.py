"""chronolog/explain_demand.py: a proof of a model that did not record
records the strata it reaches for the keys it reaches, and reads as the
proof of a run that recorded everything (the random programs' property
test is in test_explain_tree.py)."""

from __future__ import annotations

import pytest

import chronolog
from chronolog.explain_demand import keyed_rules, stratum_key
from chronolog.model_atoms import ModelAtoms

CONTROL = """
major(X, Y) :- own(X, Y, S), S > 0.5.
ctrl(X, Y) :- major(X, Y).
ctrl(X, Z) :- ctrl(X, Y), major(Y, Z).
"""


def _own(n):
    # a ring of majority shares and a chord every third company, over shifting times
    rows = [f"own(c{i},c{(i + 1) % n},0.6)@[{i % 5},{i % 5 + 6}]" for i in range(n)]
    rows += [f"own(c{i},c{(i + 7) % n},0.{2 + i % 7})@[{i % 3},{i % 3 + 4}]" for i in range(0, n, 3)]
    return "\n".join(rows) + "\n"


def _stratum(model, pred):
    st = next(s for s in model.plan.strata if pred in s.preds)
    return st, [r for r in model.plan.rules if r.head_pred in st.preds]


@pytest.mark.parametrize("program, pred, key", [
    (CONTROL, "ctrl", (0,)),  # X carried, Y -> Z not
    (CONTROL, "major", (0, 1)),  # no recursion: every variable of the head
    ("r(X, Y) :- e(X, Y).\nr(X, Y) :- r(Y, X).\n", "r", None),  # the arguments swapped: none carried
    ("a(K, T) :- b(K, T), u(K).\nb(K, T) :- a(K, T), f(T).\nb(K, T) :- g(K, T).\n", "a", (0, 1)),  # two predicates, one cycle
    ("c(K, N) :- e(K, V), N = count(V).\n", "c", (0, 1)),
    ("p(a, X) :- p(a, Y), e(Y, X).\np(a, X) :- e(a, X).\n", "p", (0,)),  # a constant carried
    ("p(X, N) :- u(X).\n", "p", None),  # N existential: nulls labelled by the run that makes them
])
def test_the_key_of_a_stratum(program, pred, key):
    m = chronolog.reason(program, "e(a,b)@1\nf(1)@1\ng(a,1)@1\nu(a)@1\nown(a,b,0.7)@1\n")
    assert stratum_key(*_stratum(m, pred)) == key


def test_a_lower_relation_read_with_the_key_and_without_reads_two_relations():
    """ctrl's base rule reads major's atoms of the key; the recursive one
    all of major (its Y is no key): one relation each, so the base rule does
    not derive every key's facts."""
    m = chronolog.reason(CONTROL, _own(12))
    st, rules = _stratum(m, "ctrl")
    run, reads = keyed_rules(st, rules, (0,), ("c3",))
    assert reads == {"major#0": ("major", [((0,), frozenset({("c3",)}))]), "major": ("major", None)}
    assert [lit.pred for r in run for lit in r.positive()] == ["major#0", "ctrl", "major"]
    assert [lit.pred for r in rules for lit in r.positive()] == ["major", "ctrl", "major"]  # (the plan's own, unchanged)


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_a_proof_records_its_key_alone_and_reads_as_a_recording_run(engine):
    m = chronolog.reason(CONTROL, _own(30), engine=engine)
    everything = chronolog.reason(CONTROL, _own(30), engine=engine, explain=True)
    facts = m.facts("ctrl")
    asked = [f"ctrl({t[0]},{t[1]})@[{iv[0]},{iv[1]}]" for t, iv in facts if t[0] == "c4" and iv[2] and iv[3]][:3]
    assert asked
    for q in asked:
        assert str(m.proof(q)) == str(everything.proof(q))
    recorded = m._provenance.entries
    assert {t[0] for p, t in recorded if p == "ctrl"} == {"c4"}
    assert {p for p, _ in recorded} <= {"ctrl", "major"}
    assert len([f for f in recorded if f[0] == "ctrl"]) < len({t for t, _ in facts})  # (not the whole closure)
    for q in asked:  # a later explain() reads the same derivations, recorded once
        assert m.explain(q) == everything.explain(q)


def test_a_stratum_without_a_key_is_recorded_whole_once():
    program = "r(X, Y) :- e(X, Y).\nr(X, Y) :- r(Y, X).\n"
    facts = "e(a,b)@[1,2]\ne(c,d)@[3,4]\n"
    m, everything = chronolog.reason(program, facts), chronolog.reason(program, facts, explain=True)
    assert str(m.proof("r(b,a)@[1,2]")) == str(everything.proof("r(b,a)@[1,2]"))
    assert m._provenance.done == {next(s.index for s in m.plan.strata if "r" in s.preds): "all"}
    assert str(m.proof("r(d,c)@[3,4]")) == str(everything.proof("r(d,c)@[3,4]"))


def test_a_proof_and_holds_leave_the_relations_they_read_a_few_atoms_of_unmade(tmp_path, monkeypatch):
    """On columns a proof reads the atoms it reaches by filtering the
    frames; the rows of the whole relations are not made (1M facts: seconds)."""
    from chronolog import api

    monkeypatch.setattr(api, "KERNEL_BYTES", 0)  # (this small file read by the kernels into columns, as a large one)
    monkeypatch.setattr(ModelAtoms, "ROWS_FACT_SECONDS", 1.0)  # (and its rows as dear to make as a large one's)
    (tmp_path / "own.facts").write_text(_own(300))
    m = chronolog.reason(CONTROL, tmp_path / "own.facts", engine="columns")
    assert m.store.pending("own")
    assert m.holds("ctrl(c4,c5)@[4,10]") and not m.holds("ctrl(c4,c5)@[3,10]")
    assert ("ctrl(c4,c5)@[4,10]" in m) and ("ctrl(c5,c4)@[4,10]" not in m)
    assert m.store.pending("ctrl") and m.store.pending("major")
    proof = m.proof("ctrl(c4,c5)@[4,10]")
    assert "own(c4,c5,0.6)@[4,10]   [given]" in str(proof)
    # (ctrl's key c4 reads all of major, its Y no key: made; own's few atoms filtered)
    assert m.store.pending("ctrl") and m.store.pending("own") and not m.store.pending("major")
    rows = chronolog.reason(CONTROL, _own(300), engine="rows")
    assert str(proof) == str(rows.proof("ctrl(c4,c5)@[4,10]"))


def test_the_filters_of_a_relation_make_its_rows_once_they_cost_as_much(tmp_path, monkeypatch):
    """Ski rental: a relation's frame is filtered for the atoms asked for
    until the filters have cost what its rows would (then made once)."""
    from chronolog import api

    monkeypatch.setattr(api, "KERNEL_BYTES", 0)
    (tmp_path / "own.facts").write_text(_own(300))
    m = chronolog.reason(CONTROL, tmp_path / "own.facts", engine="columns")
    monkeypatch.setattr(ModelAtoms, "ROWS_FACT_SECONDS", 1.0)
    assert [len(m.query(f"own(c{i}, Y, S)")) for i in (0, 3, 4)] == [2, 2, 1]
    assert m.store.pending("own")
    monkeypatch.setattr(ModelAtoms, "ROWS_FACT_SECONDS", 0.0)
    assert [len(m.query(f"own(c{i}, Y, S)")) for i in (0, 3, 4)] == [2, 2, 1]
    assert not m.store.pending("own")


@pytest.mark.parametrize("by_atoms", [True, False])
def test_a_session_s_facts_asked_for_and_proved_after_updates_are_those_of_a_run_from_scratch(tmp_path, monkeypatch, by_atoms):
    """holds, queries and proofs read the atoms they ask for from a
    session's columns (frames, or relations by atoms after small updates):
    after each update they answer as a run from scratch on what is left."""
    import random

    from chronolog import api
    from chronolog.engine.columns import evaluator

    monkeypatch.setattr(api, "KERNEL_BYTES", 0)
    monkeypatch.setattr(evaluator, "POINT_ATOMS", 10**9 if by_atoms else 0)
    monkeypatch.setattr(ModelAtoms, "ROWS_FACT_SECONDS", 1.0)  # (the frames filtered throughout)
    now = _own(60).split("\n")[:-1]
    (tmp_path / "own.facts").write_text("\n".join(now) + "\n")
    r = chronolog.Reasoner(CONTROL, tmp_path / "own.facts", engine="columns")
    rng = random.Random(2)
    for step in range(3):
        gone = rng.sample(now, 3)
        m = r.update(retract="\n".join(gone), add=f"own(c{step},c{step + 30},0.9)@[0,9]")
        now = [f for f in now if f not in gone] + [f"own(c{step},c{step + 30},0.9)@[0,9]"]
        scratch = chronolog.reason(CONTROL, "\n".join(now), engine="rows")
        for t, iv in scratch.facts("ctrl")[:: 97][:6] + [(("c0", "c30"), (0, 9, True, True))]:
            fact = f"ctrl({t[0]},{t[1]})@[{iv[0]},{iv[1]}]"
            assert m.holds(fact), (step, fact)
            assert m.query(f"ctrl({t[0]},Y)") == scratch.query(f"ctrl({t[0]},Y)"), (step, fact)
            assert str(m.proof(fact)) == str(scratch.proof(fact)), (step, fact)
        assert not m.holds("ctrl(c0,c30)@[0,10]")
