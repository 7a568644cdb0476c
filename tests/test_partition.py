"""The planner's partitionability analysis: keys found, breaking rules named."""

import pytest

from chronolog.api import load_program
from chronolog.planner import plan
from chronolog.planner.partition import NotPartitionable, analyse


def keys(src, key=None):
    return analyse(plan(load_program(src)), key).keys


def test_sensor_program_is_keyed_on_the_sensor():
    k = keys(
        "high(S) :- reading(S, V), V > 10.\n"
        "alarm(S) :- [-][0,5] high(S), not reset(S).\n"
        "late(S, T) :- alarm(S) <S>[0,3] ack(T, S).\n"
    )
    assert k["reading"] == 0 and k["high"] == 0 and k["alarm"] == 0 and k["reset"] == 0
    assert k["ack"] == 1 and k["late"] == 0


def test_the_key_may_sit_in_different_positions():
    assert keys("q(Y, X) :- p(X, Y), r(Y).") == {"q": 0, "p": 1, "r": 0}


def test_transitive_closure_is_not_partitionable_and_the_rule_is_named():
    with pytest.raises(NotPartitionable) as e:
        keys("r(X,Y) :- e(X,Y).\nr(X,Z) :- r(X,Y), e(Y,Z).\n")
    msg = e.value.render()
    assert "r(X,Z) :- r(X,Y), e(Y,Z)." in msg and ":2:" in msg


def test_a_head_that_drops_the_key_breaks_it():
    with pytest.raises(NotPartitionable, match="total"):
        keys("total(V) :- reading(S, V).\nx(S) :- reading(S, V), total(V).")


def test_nullary_predicates_have_no_key():
    with pytest.raises(NotPartitionable, match="no arguments"):
        keys("p(X) :- q(X), flag.")


def test_a_given_key_is_kept_or_refused():
    assert keys("q(X, Y) :- p(X, Y).", {"p": 1}) == {"p": 1, "q": 1}
    with pytest.raises(NotPartitionable):
        keys("q(X) :- p(X, Y), r(Y).", {"p": 0})


def test_a_program_of_a_thousand_and_more_predicates_is_searched_without_recursion():
    """`chronolog plan` on 1,500 chained rules failed with an internal
    RecursionError: the search recursed once per predicate."""
    n = 1500
    chain = "".join(f"p{i + 1}(Y, X) :- p{i}(X, Y).\n" for i in range(n))
    k = keys(chain)
    assert all(k[f"p{i + 1}"] == 1 - k[f"p{i}"] for i in range(n))
    with pytest.raises(NotPartitionable) as e:
        keys(chain + f"total(V) :- p{n}(S, V), p0(V, S).\n")
    assert f"total(V) :- p{n}(S, V), p0(V, S)." in e.value.render()
