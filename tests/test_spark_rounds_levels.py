"""Strata that read none of each other's predicates run as one on Spark's
rounds (a dependency level, planner/physical.dependency_levels): fewer
rounds and Spark jobs than strata, the same model as the embedded engine
and the pointwise oracle."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.engine.arrow import facts_to_arrow
from chronolog.engine.runaway import round_limit
from chronolog.planner.backend_choice import DOUBLING_CONF

from test_spark_rounds import canon, check, cs, drawn_facts, edges

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("rounds")]  # the rounds, not one task (conftest.py)

# six strata, none reading another's predicates (level 0), then one reading
# three of them, one through a negation and one through an aggregate (level 1)
INDEPENDENT = """
a(X) :- e(X, Y).
b(Y) :- e(X, Y).
c(X, Z) :- e(X, Y), e(Y, Z).
d(X) :- <->[0,2] f(X).
g(X) :- [-][0,1] f(X).
h(X, N) :- e(X, Y), N = count().
k(X) :- a(X), not b(X), d(X).
@output("a"). @output("b"). @output("c"). @output("d"). @output("g"). @output("h"). @output("k").
"""
EDGES = [("n1", "n2", (0, 4, True, False)), ("n2", "n3", (1, 6, True, True)), ("n3", "n1", (5, 9, False, True)),
         ("n4", "n1", (2, 3, True, True))]
F = [(("n4",), (0, 1, True, True)), (("n2",), (3, 8, True, False))]

# a level of two recursions (chains of 6 and of 2 edges: 7 and 3 rounds as
# written) and a non-recursive stratum; a level after it negates one of them
MIXED = """
r(X, Y) :- e(X, Y).
r(X, Z) :- r(X, Y), e(Y, Z).
s(X, Y) :- f(X, Y).
s(X, Z) :- s(X, Y), f(Y, Z).
t(X) :- <->[0,1] f(X, Y).
u(X, Y) :- r(X, Y), t(X), not s(X, Y).
@output("r"). @output("s"). @output("t"). @output("u").
"""


def oracle_facts(program, tables, horizon):
    """The pointwise oracle's model of ``program`` over ``tables``."""
    from chronolog.language.timeline import format_interval
    from chronolog.engine.arrow import table_to_rows
    from oracle.pointwise import evaluate_text

    lines = [f"{p}({', '.join(map(str, terms))})@{format_interval(iv)}." for p, t in tables.items()
             for terms, iv in table_to_rows(t, p)]
    return evaluate_text(program, "\n".join(lines), horizon=horizon)


def test_plan_groups_independent_strata_into_levels():
    from chronolog.api import load_program
    from chronolog.planner import plan

    p = plan(load_program(INDEPENDENT))
    strata = {next(iter(s.preds)): s.index for s in p.strata}
    levels = p.physical.levels
    assert sorted(levels[0]) == sorted(strata[q] for q in "abcdgh")
    assert levels[1:] == ((strata["k"],),)


def test_strata_with_existential_rules_take_levels_in_the_strata_order():
    """The engine numbers nulls stratum after stratum: a stratum with
    existential rules lies above every earlier one with them (a level's
    firings would interleave their labels); the others keep their levels."""
    from chronolog.api import load_program
    from chronolog.planner import plan

    p = plan(load_program("o(Y, C) :- c(C).\np(Y, C) :- d(C).\nq(C) :- e(C).\nk(Y, C) :- q(C).\n"))
    strata = {next(iter(s.preds)): s.index for s in p.strata}
    level = {i: n for n, members in enumerate(p.physical.levels) for i in members}
    chased = sorted((strata[x] for x in "opk"))
    assert [level[i] for i in chased] == sorted({level[i] for i in chased}) and len({level[i] for i in chased}) == 3
    assert level[strata["q"]] == 0 and all(i in level for i in strata.values())


def test_independent_strata_run_in_fewer_rounds_and_jobs_than_strata(spark):
    """Six strata of level 0 in ONE round (one action), the seventh in a
    round of its own: two rounds, not seven, and fewer Spark jobs than
    strata (the status tracker's, per round); the embedded engine's model."""
    tables = {"e": edges(EDGES), "f": facts_to_arrow(F, ["x"])}
    stats, model = check(spark, INDEPENDENT, tables)
    assert model.facts("k") and model.facts("h")  # real answers on both levels
    rounds = stats["rounds"]
    assert len(rounds) == 2, [(r.strata, r.round) for r in rounds]
    assert len(rounds[0].strata) == 6 and len(rounds[1].strata) == 1
    assert sum(r.jobs for r in rounds) < 7, [r.jobs for r in rounds]


def test_a_level_of_recursive_and_non_recursive_strata_converges(spark):
    """Two recursions of different lengths and a non-recursive stratum in
    one level: round 1 runs all three, later rounds the recursions while
    either finds new facts (the short one stops first), and the level after
    reads them complete; the engine's and the pointwise oracle's model."""
    chain = [(f"n{i}", f"n{i + 1}", (0, 10, True, i % 2 == 0)) for i in range(6)]
    short = [("m0", "m1", (1, 4, True, True)), ("m1", "m2", (2, 6, True, False)), ("n0", "n1", (0, 2, True, True))]
    tables = {"e": edges(chain), "f": edges(short)}
    spark.conf.set(DOUBLING_CONF, "false")  # as written: a round per edge of the longest path
    try:
        stats, model = check(spark, MIXED, tables)
    finally:
        spark.conf.unset(DOUBLING_CONF)
    oracle = oracle_facts(MIXED, tables, (-1, 12))
    for p in ("r", "s", "t", "u"):
        assert model.facts(p), p
        assert canon(model.facts(p)) == canon(oracle.facts(p)), p
    # round 1 runs r, s and t; r needs 7 rounds (6 edges, and one that finds
    # nothing), s 3 (2 edges, one more): rounds 2-3 run both recursions,
    # 4-7 r alone, then u's level: 8 rounds, not 7 + 3 + 1 + 1
    by_round = [len(r.strata) for r in stats["rounds"]]
    assert by_round == [3, 2, 2, 1, 1, 1, 1, 1], by_round


@settings(max_examples=examples(4), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_levels_agree_with_the_engine_on_drawn_facts(spark, data):
    """Random facts through the mixed level (two recursions, a diamond, a
    negation of one level by the next): the embedded engine's model."""
    e = drawn_facts(data.draw, 2, 6)
    f = drawn_facts(data.draw, 2, 4)
    check(spark, MIXED, {"e": facts_to_arrow(e, ["x", "y"]), "f": facts_to_arrow(f, ["x", "y"])}, horizon=(-5, 15))


def test_round_limit_names_the_stratum_that_does_not_converge(spark):
    """A level of a recursion that converges and one that grows every
    round: past the round limit the error (here the fallback's warning)
    names a rule of the one that does not converge."""
    e = facts_to_arrow([(("a", 0), (0, 1, True, True))], ["x", "n"])
    f = edges([("x", "y", (0, 3, True, True)), ("y", "z", (0, 3, True, True))])
    prog = ("r(X, Y) :- f(X, Y).\nr(X, Z) :- r(X, Y), f(Y, Z).\n"
            "p(X, N) :- e(X, N).\np(X, N) :- p(X, M), N = mcount(<M>).\n@output(\"p\"). @output(\"r\").")
    with round_limit(6), pytest.warns(cs().DriverFallback, match=r"no fixpoint after 6 rounds in the rule p\(X, N\)"):
        with pytest.raises(chronolog.ChronologError, match="no fixpoint"):
            cs().reason(spark, prog, inputs={"e": e, "f": f}, distributed=True)
