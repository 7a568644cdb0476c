"""``model.stats`` after an update (``Reasoner.add``/``retract``/``amend``/
``update``): ``rounds`` and ``derivations`` count that update's own work,
``session`` the first run's and every update's together, the same on both
executors (they kept the first run's counts and added to them; the
columnar frames path counted nothing)."""

from __future__ import annotations

import pytest

import chronolog

PROGRAM = "q(X) :- p(X). r(X) :- q(X)."


def counts(model) -> tuple:
    return model.stats["rounds"], model.stats["derivations"]


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_an_update_counts_its_own_work_and_the_session_its_total(engine):
    r = chronolog.Reasoner(PROGRAM, "p(a)@[0,10]\np(b)@[0,3]", engine=engine)
    first = counts(r.model)
    assert first == (2, 4)  # q and r of a and b, one round per stratum
    r.add("p(c)@[0,1]")
    # by hand: the new fact derives q(c) and r(c), nothing else
    assert r.model.stats["derivations"] == 2
    assert r.model.stats["session"] == {"updates": 1, "rounds": 2 + r.model.stats["rounds"], "derivations": 6}
    own = counts(r.model)
    r.add("p(d)@[0,1]")
    assert r.model.stats["derivations"] == 2
    assert r.model.stats["session"] == {"updates": 2, "rounds": 2 + own[0] + r.model.stats["rounds"], "derivations": 8}


def test_a_large_update_counts_the_same_on_both_executors():
    """3,000 added facts take the columnar frames path (docs/api.md)."""
    facts = "\n".join(f"p(a{i})@[0,10]" for i in range(100))
    added = "\n".join(f"p(b{i})@[0,10]" for i in range(3000))
    seen = {}
    for engine in ("rows", "columns"):
        r = chronolog.Reasoner(PROGRAM, facts, engine=engine)
        r.add(added)
        if engine == "columns":
            assert {s["path"] for s in r.model.stats["maintenance"]} == {"frames"}
        seen[engine] = counts(r.model), r.model.stats["session"]
    assert seen["rows"] == seen["columns"]
    assert seen["rows"][0][1] == 6000  # q and r of each added fact
    assert seen["rows"][1]["derivations"] == 6200


def test_an_update_reasoned_again_counts_the_new_run():
    """With explanations recorded the model is reasoned again from the
    corrected facts: that run is the update's work."""
    r = chronolog.Reasoner(PROGRAM, "p(a)@[0,10]\np(b)@[0,3]", explain=True)
    r.add("p(c)@[0,1]")
    assert counts(r.model) == (2, 6)
    assert r.model.stats["session"] == {"updates": 1, "rounds": 4, "derivations": 10}
