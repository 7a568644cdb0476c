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
