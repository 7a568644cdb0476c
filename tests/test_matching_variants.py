"""A round of many seminaive variants runs only those whose driving atom's
constants its delta holds (engine/rows/evaluator.RowRounds._matching): the
same model as running them all, against random programs and rules whose
constants are numbers of several kinds, strings, booleans and dates."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chronolog
from budget import examples
from chronolog.engine.rows import evaluator
from strategies import cases

SETTINGS = settings(max_examples=examples(100), deadline=None, suppress_health_check=list(HealthCheck))
CONSTANTS = ["1", "1.0", "2", "1/2", "0.5", '"1"', "a", "#T", "#F", "2024-01-01", '"a b"', "-3"]


def _both(program, facts, monkeypatch, **kw):
    """The rows' model with every round's variants matched against its
    delta, and with none matched."""
    got = {}
    for many in (-1, 10**9):
        monkeypatch.setattr(evaluator, "MANY_VARIANTS", many)
        got[many] = chronolog.reason(program, facts, engine="rows", **kw).to_text()
    return got[-1], got[10**9]


@SETTINGS
@given(case=cases(nest=2, negation=True, recursion=True, comparisons=True, max_rules=6))
def test_random_programs_match_as_they_run_all(case):
    with pytest.MonkeyPatch.context() as mp:
        matched, all_run = _both(case.program, case.facts, mp, horizon=case.horizon)
    assert matched == all_run, case


@SETTINGS
@given(data=st.data())
def test_rules_of_constants_match_as_they_run_all(data):
    """Rules ``p(X, d) :- p(X, c), ...`` (and of two constants) over
    constants some of which are equal as numbers (1, 1.0) and some not (1
    and "1")."""
    n = data.draw(st.integers(1, 12))
    const = st.sampled_from(CONSTANTS)
    rules = []
    for _ in range(n):
        c, d = data.draw(const), data.draw(const)
        shape = data.draw(st.sampled_from(["p(X, {d}) :- p(X, {c}).", "p(X, {d}) :- <->[0,1] p(X, {c}).",
                                           "q(X) :- p(X, {c}), p(X, {d}).", "r({c}, X) :- p(X, {d}), q(X).",
                                           "p(X, {d}) :- r({c}, X)."]))
        rules.append(shape.format(c=c, d=d))
    facts = [f"p({data.draw(st.sampled_from(['x', 'y']))}, {data.draw(const)})@[{t},{t + 1}]"
             for t in data.draw(st.lists(st.integers(0, 5), min_size=1, max_size=4))]
    with pytest.MonkeyPatch.context() as mp:
        matched, all_run = _both("\n".join(rules), facts, mp, horizon=(0, 20))
    assert matched == all_run, (rules, facts)


def test_a_chain_of_rules_of_constants_runs_one_variant_a_round(monkeypatch):
    """3,000 rules ``p(X,k+1) :- p(X,k)``: each round's one new atom meets
    one rule's constant (every rule's variant ran every round: 15 s)."""
    sizes = []
    original = evaluator.RowRounds.round
    monkeypatch.setattr(evaluator.RowRounds, "round", lambda self, variants, deltas: (sizes.append(len(variants)), original(self, variants, deltas))[1])
    n = 500
    program = "".join(f"p(X,{i + 1}) :- p(X,{i}).\n" for i in range(n)) + "q(X) :- p(X,_).\n"
    model = chronolog.reason(program + "p(a,0)@[0,1].\n", engine="rows")
    assert len(model.facts("p")) == n + 1 and model.to_text(["q"]) == "q(a)@[0,1]"
    assert len(sizes) > n and max(sizes[1:]) <= 2  # (round 1: every rule, over the full relations)
