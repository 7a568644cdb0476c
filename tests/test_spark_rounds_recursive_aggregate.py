"""Monotonic aggregation inside a recursion in the relational rounds
(connectors/spark_rounds/aggregate.py, rounds.py): company control and
random recursive programs against the embedded engine on the same facts,
asserted to run in Spark tasks (no DriverFallback; marked ``spark``)."""

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.engine.arrow import facts_to_arrow
from chronolog.connectors.files import read_facts
from chronolog.language.timeline import NEG_INF, POS_INF

from test_spark_rounds import canon, cs, drawn_interval
from test_spark_rounds import check as check_both

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import ownership_gen  # noqa: E402

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("rounds")]  # the rounds, not one task (conftest.py)

CONTROL = (ROOT / "examples" / "ownership" / "aggregation.vada").read_text()
OWN = ["owner", "company", "share"]


def check(spark, program, tables: dict, **kw):
    """Run ``program`` both ways; assert the relational path ran (no
    DriverFallback) and agrees; return (its statistics, the embedded model)."""
    stats, model = check_both(spark, program, tables, **kw)
    assert stats is not None
    return stats, model


def rounds_of(stats) -> dict:
    """Rounds per stratum of a relational run."""
    out = {}
    for r in stats["rounds"]:
        out[r.stratum] = out.get(r.stratum, 0) + 1
    return out


def test_company_control_on_the_example_facts(spark):
    own = facts_to_arrow(read_facts(ROOT / "examples" / "ownership" / "own.facts", "own"), OWN)
    stats, model = check(spark, CONTROL, {"own": own})
    assert {t for t, _ in model.facts("control") if t[0] != t[1]}  # control beyond the trivial control(X, X)
    assert max(rounds_of(stats).values()) > 3  # chains: several rounds of the recursion


@pytest.mark.slow  # (bash test.sh --thorough)
@settings(max_examples=examples(3), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(1, 10_000), st.integers(40, 160), st.integers(3, 8))
def test_company_control_on_generated_graphs(spark, seed, n, group):
    """Generated holding structures (bench/ownership_gen.py): chains of
    majority stakes, shares redrawn over time, touching intervals."""
    rows = []
    for line in ownership_gen.facts(n, seed, group=group, tmax=30):
        args, iv = line[4:].split(")@[")
        h, c, s = args.split(",")
        lo, hi = iv.rstrip(")").split(",")
        rows.append(((h, c, int(s)), (int(lo), int(hi), True, False)))
    stats, model = check(spark, CONTROL, {"own": facts_to_arrow(rows, OWN)})
    assert any(t[0] != t[1] and t[0].startswith("c") for t, _ in model.facts("control"))  # control through companies


def test_a_contributor_through_two_paths_counts_once(spark):
    """x controls a and b, which both hold y (controlled by x through
    either); y holds 30 of z: y reaches the group (x, z) through two
    bindings (W = a and W = b) and contributes 30 once, not 60."""
    own = facts_to_arrow([
        (("x", "a", 60), (0, 10, True, False)), (("x", "b", 70), (0, 10, True, False)),
        (("a", "y", 55), (0, 10, True, False)), (("b", "y", 51), (0, 10, True, False)),
        (("y", "z", 30), (0, 10, True, False)), (("x", "z", 15), (0, 10, True, False)),
        (("q", "z", 10), (0, 10, True, False)),
    ], OWN)
    prog = """
    ctl(X, X) :- own(X, Y, S).
    ctl(X, Y) :- ctl(X, W), own(W, Y, S), S > 50.
    stake(X, Z, T) :- ctl(X, W), own(W, Y, S1), ctl(X, Y), own(Y, Z, S), T = msum(S, <Y>).
    holders(X, Z, N) :- ctl(X, W), own(W, Y, S1), ctl(X, Y), own(Y, Z, S), N = mcount(<Y>).
    @output("stake"). @output("holders").
    """
    _, model = check(spark, prog, {"own": own})
    stake = {t for t, _ in canon(model.facts("stake"))}
    assert ("x", "z", 30) in stake and ("x", "z", 60) not in stake
    assert ("x", "y", 106) in stake  # a's 55 and b's 51: two contributors
    assert {t for t, _ in canon(model.facts("holders")) if t[:2] == ("x", "z")} == {("x", "z", 1)}


@pytest.mark.slow  # (bash test.sh --thorough)
def test_control_needs_several_rounds_and_grows_over_time(spark):
    """A chain p -> c1 -> ... -> c5 of majorities where each link holds on
    a shorter stretch, and a company controlled only by adding two
    controlled stakes (40 + 20) from the third level on."""
    links = [(("p", "c1", 60), (0, 20, True, False))]
    for i in range(1, 5):
        links.append(((f"c{i}", f"c{i + 1}", 51), (i, 20 - i, True, False)))
    links += [(("c3", "d", 40), (0, 30, True, False)), (("c2", "d", 20), (5, 12, True, True)),
              (("e", "d", 40), (0, 30, True, False))]
    stats, model = check(spark, CONTROL, {"own": facts_to_arrow(links, OWN)})
    ctl = canon(model.facts("control"))
    assert (("p", "c5"), (4, 16, True, False)) in ctl
    assert (("p", "d"), (5, 12, True, True)) in ctl  # 40 + 20 > 50 only where both stakes hold
    assert max(rounds_of(stats).values()) >= 10


RECURSIVE = """
reach(X, Y) :- e(X, Y, W).
reach(X, Z) :- reach(X, Y), e(Y, Z, W), W > 0.
total(X, T) :- reach(X, Y), e(Y, Z, W), T = msum(W).
per(X, T) :- reach(X, Y), e(Y, Z, W), T = msum(W, <Y>).
fan(X, N) :- reach(X, Y), N = mcount().
fanc(X, N) :- reach(X, Y), e(Y, Z, W), N = mcount(<Z>).
hi(X, M) :- <->[0,1] reach(X, Y), e(Y, Z, W), M = mmax(W).
lo(X, M) :- reach(X, Y), [-][0,1] e(Y, Z, W), M = min(W, <Z>).
all(T) :- reach(X, Y), T = mcount().
@output("total"). @output("per"). @output("fan"). @output("fanc"). @output("hi"). @output("lo"). @output("all").
"""

# aggregates that feed the recursion back: a node is "big" when its
# successors' weights (each successor once) add up to at least 3, and
# reach goes on through big nodes only
FEEDBACK = """
reach(X, X) :- e(X, Y, W).
reach(X, Z) :- big(X, Y), e(Y, Z, W).
big(X, Y) :- reach(X, Y), e(Y, Z, W), T = msum(W, <Z>), T >= 3.
most(X, M) :- reach(X, Y), e(Y, Z, W), M = max(W).
level(X, N) :- reach(X, Y), N = mcount(<Y>), N <= 3.
ring(X, Y) :- <->[0,1] level(X, N), reach(X, Y), N >= 2.
@output("reach"). @output("big"). @output("most"). @output("level"). @output("ring").
"""


@st.composite
def weighted_edges(draw):
    facts = draw(st.lists(
        st.tuples(st.sampled_from("abcd"), st.sampled_from("abcd"), st.integers(-1, 3), st.integers(0, 6),
                  st.integers(0, 3), st.booleans(), st.booleans(), st.sampled_from([0, 0, 0, 0, 1, 2])),
        min_size=1, max_size=9))
    return [((x, y, w), drawn_interval(lo, d, lc, hc, kind)) for x, y, w, lo, d, lc, hc, kind in facts]


@settings(max_examples=examples(4), deadline=None, suppress_health_check=list(HealthCheck))
@given(weighted_edges())
def test_random_recursive_aggregates_equal_embedded(spark, e):
    """msum, mcount, mmax and mmin (min as mmin) with and without
    contributors over a recursive relation, by a group and over
    everything, after a diamond and a box; open, closed, punctual and
    unbounded intervals; every intermediate value the rounds give is a
    fact, as in the engine."""
    check(spark, RECURSIVE, {"e": facts_to_arrow(e, ["x", "y", "w"])})


def test_aggregates_over_nine_facts_plan_each_body_few_times(spark):
    """The input on which the thorough profile ran the test above out of a
    2 GB driver heap: the fold of a contributor's values (min(W, <Z>))
    inlined the rule's body 49 times in one statement, 49 broadcast joins
    built at once on the driver (tens of MB each, however small: a 25 s
    round of 50 jobs).  Now each round is its action and a few broadcasts."""
    e = [(("c", "a", -1), (0, 0, True, True)), (("a", "a", 0), (NEG_INF, 0, False, False)),
         (("a", "b", 2), (4, 5, True, True)), (("d", "d", 2), (5, 6, True, True)),
         (("c", "d", 0), (3, 6, False, True)), (("b", "b", 2), (3, 3, True, True)),
         (("a", "a", 3), (6, POS_INF, False, False)), (("c", "a", 2), (6, 9, False, True)),
         (("a", "c", 2), (3, 3, True, True))]
    prog = "\n".join(line for line in RECURSIVE.splitlines() if line.startswith(("reach", "per", "hi", "lo")))
    stats, _ = check(spark, prog + '\n@output("per"). @output("hi"). @output("lo").',
                     {"e": facts_to_arrow(e, ["x", "y", "w"])})
    assert all(r.jobs <= 5 for r in stats["rounds"]), [r.jobs for r in stats["rounds"]]  # (were 15, 8 and 50)


@settings(max_examples=examples(4), deadline=None, suppress_health_check=list(HealthCheck))
@given(weighted_edges())
def test_random_aggregates_feeding_the_recursion_equal_embedded(spark, e):
    """An aggregate's condition decides what the recursion derives next
    (company control's shape), and an aggregate value read by a later
    rule of the same recursion through a diamond."""
    check(spark, FEEDBACK, {"e": facts_to_arrow(e, ["x", "y", "w"])})


def test_plan_says_company_control_runs_as_rounds():
    from chronolog.connectors.spark_rounds import describe
    from chronolog.planner import plan as make_plan

    assert "seminaive rounds" in describe(make_plan(chronolog.load_program(CONTROL)))


PRODUCTS = """
reach(X, Y) :- e(X, Y, W).
reach(X, Z) :- reach(X, Y), e(Y, Z, W), P = mprod(W, <Y>), P >= 2.
pr(X, P) :- <->[0,1] reach(X, Y), e(Y, Z, W), P = mprod(W).
@output("reach"). @output("pr").
"""


@settings(max_examples=examples(3), deadline=None, suppress_health_check=list(HealthCheck))
@given(weighted_edges())
def test_random_mprod_inside_a_recursion_equals_embedded(spark, e):
    """mprod (spread over segments and folded exactly, as outside a
    recursion) recomputed in each round that changes its body, with a
    contributor and a condition that feeds the recursion, and after a
    diamond: the same facts as the engine's, every intermediate product
    included."""
    check(spark, PRODUCTS, {"e": facts_to_arrow(e, ["x", "y", "w"])})


def test_an_aggregate_without_fixpoint_goes_to_one_task(spark, monkeypatch):
    """A count that feeds its own group grows by one every round: past the
    round limit the rounds stop and one task answers (here: its own
    error for the same limit)."""
    from chronolog.engine.runaway import round_limit

    e = facts_to_arrow([(("a", 0), (0, 1, True, True))], ["x", "n"])
    prog = "p(X, N) :- e(X, N).\np(X, N) :- p(X, M), N = mcount(<M>).\nq(X, Y) :- e(X, N), e(Y, M).\n@output(\"p\")."
    with round_limit(6), pytest.warns(cs().DriverFallback, match="no fixpoint after 6 rounds"):
        with pytest.raises(chronolog.ChronologError, match="no fixpoint"):
            cs().reason(spark, prog, inputs={"e": e}, distributed=True)
