"""auto gives the rows a recursion whose rounds on columns stay small: a
round costs the columns about a millisecond however few its rows, the rows
microseconds (planner/input_size.SMALL_ROUND_FACTS)."""

from __future__ import annotations

import pyarrow as pa

import chronolog
from chronolog.planner import input_size

CHAIN = {
    "reach": "reach(a0)@[0,10].\nreach(Y) :- reach(X), e(X,Y).",
    "hop count": "c(a0,0)@[0,10].\nc(Y,M) :- c(X,N), e(X,Y), M = N + 1.",
    "through time": "reach(a0)@[0,2].\nreach(Y) :- <->[0,1] reach(X), e(X,Y).",
}


def _chain(n: int) -> dict:
    """A table of ``n`` edges a0 -> a1 -> ...: over the tables' threshold, so
    auto takes columns, and one new fact a round."""
    names = [f"a{i}" for i in range(n + 1)]
    return {"e": pa.table({"a": names[:-1], "b": names[1:], "start": [0] * n, "end": [10] * n})}


def test_a_recursion_of_small_rounds_goes_to_the_rows_under_auto():
    assert input_size.AUTO_MIN_TABLE_FACTS <= 2_500 and input_size.AUTO_MIN_RECURRENCE_FACTS <= 10_000
    for name, program in CHAIN.items():
        # (a recursion through time goes to columns from 10,000 given facts)
        horizon = (0, 11_000) if "time" in name else None
        given = _chain(10_000 if "time" in name else 2_500)
        auto = chronolog.reason(program, given, horizon=horizon)
        rows = chronolog.reason(program, given, horizon=horizon, engine="rows")
        assert auto.to_text() == rows.to_text() and len(auto.to_text().splitlines()) > 2_500
        assert auto.stats["executors"] == {0: "rows"}, name
        rounds = input_size.SMALL_ROUNDS_FROM
        assert auto.stats["fallbacks"] == [f"stratum 0: {rounds} rounds derived {rounds} facts in all: the rows take "
                                           "a small round in microseconds, the columns about a millisecond"]
        forced = chronolog.reason(program, _chain(300), horizon=horizon, engine="columns")
        assert forced.stats["executors"] == {0: "columns"} and "fallbacks" not in forced.stats


def test_rounds_that_derive_much_stay_on_columns():
    """Hop counts over a dense graph: few rounds of many facts; a long thin
    tail after a big start stays too (the rows would take it all again)."""
    n = 2_500
    names = [f"a{i}" for i in range(n + 1)]
    # a star of 2,500 spokes from a0, then a chain of 40 from a1
    a = ["a0"] * n + names[1:41]
    b = names[1:] + names[2:42]
    given = {"e": pa.table({"a": a, "b": b, "start": [0] * len(a), "end": [10] * len(a)})}
    program = "r(X,Y) :- e(X,Y).\nr(X,Z) :- r(X,Y), e(Y,Z)."
    auto = chronolog.reason(program, given)
    assert auto.stats["executors"] == {0: "columns"} and "fallbacks" not in auto.stats
    assert auto.to_text() == chronolog.reason(program, given, engine="rows").to_text()


def test_a_recursion_through_an_aggregate_stays_on_columns():
    """The rows too compute an aggregate over the full relations every
    round: its small rounds cost them as much."""
    from chronolog.planner import backend_choice as bc
    from chronolog.planner import plan

    program = "c(a0,1)@[0,10].\nc(Y,S) :- c(X,N), e(X,Y), S = msum(N, <X>)."
    placed = bc.choose(plan(chronolog.load_program(program)), "auto")
    assert not any("rounds stay small" in f for f in placed.strata[0].fallbacks)
    chain, apart = _chain(100)["e"], 2_400  # (and edges apart: the table over the threshold)
    given = {"e": pa.concat_tables([chain, pa.table({"a": [f"x{i}" for i in range(apart)], "b": [f"y{i}" for i in range(apart)],
                                                     "start": [0] * apart, "end": [10] * apart})])}
    auto = chronolog.reason(program, given)
    assert auto.stats["executors"] == {0: "columns"} and "fallbacks" not in auto.stats
    assert auto.to_text() == chronolog.reason(program, given, engine="rows").to_text()


def test_the_plan_says_when_small_rounds_go_to_the_rows():
    from chronolog.plan_text import describe_plan
    from chronolog.planner import plan

    planned = plan(chronolog.load_program(CHAIN["reach"]))
    line = (f"its rounds stay small (under {input_size.SMALL_ROUND_FACTS} facts derived a round on average, from round "
            f"{input_size.SMALL_ROUNDS_FROM + 1}): the rows run it again, taking a small round in microseconds")
    assert line in describe_plan(planned, "auto")
    assert line not in describe_plan(planned, "columns")
