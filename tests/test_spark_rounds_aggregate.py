"""Aggregation per time segment in the relational rounds
(connectors/spark_rounds/aggregate.py) against the embedded engine on the
same facts (marked ``spark``; a few random inputs, Spark is slow)."""

import warnings
from decimal import Decimal
from fractions import Fraction

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.engine.arrow import facts_to_arrow, table_to_rows

from test_spark_rounds import canon, cs, drawn_interval
from test_spark_rounds import check as check_both

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("rounds")]  # the rounds, not one task (conftest.py)

# a rule joining facts of different keys: the program has no partition key
# and runs as rounds, not one engine per key group
NO_KEY = "far(X, Z) :- owns(X, Y, P), owns(Y, Z, Q).\n"


def check(spark, program, tables: dict, **kw):
    """Run ``program`` both ways; assert the relational path ran and agrees."""
    return check_both(spark, program, tables, **kw)[1]


PROGRAM = NO_KEY + """
total(C, S) :- owns(I, C, P), S = sum(P).
investors(C, N) :- owns(I, C, P), N = count().
top(C, M) :- owns(I, C, P), M = max(P).
low(C, M) :- owns(I, C, P), M = mmin(P).
everyone(S, N, M) :- owns(I, C, P), S = msum(P), N = mcount(), M = min(P).
recent(C, S) :- <->[0,1] owns(I, C, P), S = sum(P).
big(C, S) :- owns(I, C, P), S = sum(P), S >= 6.
alone(C, N, S) :- owns(I, C, P), not boss(I), N = count(), S = sum(P).
shared(C, M) :- owns(I, C, P), owns(J, C, Q), I != J, M = max(Q).
stake(C, S) :- owns(I, C, P), S = msum(P, <I>).
holders(C, N) :- owns(I, C, P), N = mcount(<I>).
least(C, M) :- <->[0,1] owns(I, C, P), M = mmin(P, <I>).
pairs(N) :- owns(I, C, P), N = count(<I, C>).
pair(I, C, S, M) :- owns(I, C, P), S = sum(P), M = max(P).
@output("total"). @output("investors"). @output("top"). @output("low"). @output("everyone").
@output("recent"). @output("big"). @output("alone"). @output("shared").
@output("stake"). @output("holders"). @output("least"). @output("pairs"). @output("pair").
"""


@st.composite
def owners(draw):
    facts = draw(st.lists(
        st.tuples(st.sampled_from("ijk"), st.sampled_from("ab"), st.integers(-3, 9), st.integers(0, 6), st.integers(0, 3),
                  st.booleans(), st.booleans(), st.sampled_from([0, 0, 0, 0, 1, 2])),
        min_size=1, max_size=9))
    owns = [((i, c, p), drawn_interval(lo, d, lc, hc, kind)) for i, c, p, lo, d, lc, hc, kind in facts]
    boss = draw(st.lists(st.tuples(st.sampled_from("ijk"), st.integers(0, 6), st.integers(0, 3)), max_size=2))
    return owns, [((i,), (lo, lo + d, True, True)) for i, lo, d in boss]


@settings(max_examples=examples(4), deadline=None, suppress_health_check=list(HealthCheck))
@given(owners())
def test_random_aggregates_equal_embedded(spark, case):
    """sum, count, max, min and their monotonic forms by one or two group
    variables and over everything, after a diamond (overlapping intervals of one binding count
    once), with a condition on the result, a negation and a join in the body;
    open, closed, punctual and unbounded intervals, ties and gaps; with
    contributors (one value per contributor and point, the greatest of its
    bindings', the least for mmin)."""
    owns, boss = case
    tables = {"owns": facts_to_arrow(owns, ["i", "c", "p"])}
    if boss:
        tables["boss"] = facts_to_arrow(boss, ["i"])
    check(spark, PROGRAM, tables)


CONTRIBUTOR_SETS = NO_KEY + """
mixed(C, S, N, M) :- owns(I, C, P), S = sum(P), N = mcount(<I>), M = mmax(P, <I>).
spread(S, N, H) :- owns(I, C, P), S = msum(P, <I>), N = mcount(<C>), H = count(), N >= 2.
@output("mixed"). @output("spread").
"""


def test_aggregates_of_other_contributors_in_one_rule_are_the_engines(spark):
    """Each set of contributors folded alone, the results joined per group
    on their common pieces (one Spark task before); by hand: on [2,3], a
    holds i's 2 and 5 (its greatest, 5, counts once) and j's 1; on (3,4]
    the three owners' 2, 1 and 3 over both companies."""
    owns = [(("i", "a", 2), (0, 4, True, True)), (("i", "a", 5), (2, 3, True, True)), (("j", "a", 1), (1, 6, True, False)),
            (("k", "b", 3), (3, 9, False, True))]
    model = check(spark, CONTRIBUTOR_SETS, {"owns": facts_to_arrow(owns, ["i", "c", "p"])})
    assert (("a", 8, 2, 5), (2, 3, True, True)) in model.facts("mixed")
    assert ((6, 2, 3), (3, 4, False, True)) in model.facts("spread")  # i's 2, j's 1, k's 3; companies a and b


@settings(max_examples=examples(6), deadline=None, suppress_health_check=list(HealthCheck))
@given(owners())
def test_random_aggregates_of_other_contributors_equal_embedded(spark, case):
    owns, _ = case
    check(spark, CONTRIBUTOR_SETS, {"owns": facts_to_arrow(owns, ["i", "c", "p"])})


def test_segments_of_the_language_example(spark):
    """docs/language.md's example: a value per maximal segment where the
    contributing facts are constant."""
    owns = facts_to_arrow([(("i", "acme", 30), (0, 10, True, True)), (("j", "acme", 20), (5, 15, True, False)),
                           (("k", "acme", 10), (8, 9, False, False))], ["i", "c", "p"])
    model = check(spark, PROGRAM, {"owns": owns})
    assert canon(model.facts("investors")) == {
        (("acme", 1), (0, 5, True, False)), (("acme", 1), (10, 15, False, False)), (("acme", 2), (5, 8, True, True)),
        (("acme", 2), (9, 10, True, True)), (("acme", 3), (8, 9, False, False))}


def test_empty_body_gives_no_facts(spark):
    """A group with no binding has no fact (count is never 0); an empty
    body derives nothing at all."""
    owns = facts_to_arrow([(("i", "a", 1), (0, 1, True, True))], ["i", "c", "p"])
    prog = NO_KEY + 'n(C, N) :- owns(I, C, P), P > 5, N = count().\nm(S) :- owns(I, C, P), nobody(I), S = sum(P).\n' \
        '@output("n"). @output("m").'
    model = check(spark, prog, {"owns": owns, "nobody": facts_to_arrow([(("z",), (0, 1, True, True))], ["i"])})
    assert not model.facts("n") and not model.facts("m")


def test_decimal_sums_and_exact_averages(spark):
    """Decimal values sum exactly in decimal(38, S); an average that the
    run's decimals hold exactly runs in the rounds."""
    owns = pa.table({
        "i": ["i", "j", "k", "l"], "c": ["a", "a", "a", "b"],
        "p": pa.array([Decimal("0.25"), Decimal("1.75"), Decimal("1"), Decimal("-2.5")], pa.decimal128(6, 2)),
        "start": [0, 2, 4, 0], "end": [6, 8, 5, 3],
    })
    prog = NO_KEY + 'mean(C, A) :- owns(I, C, P), A = avg(P).\ntotal(C, S) :- owns(I, C, P), S = sum(P), S < 3.5.\n' \
        '@output("mean"). @output("total").'
    model = check(spark, prog, {"owns": owns})
    assert (("a", 1), (2, 6, True, True)) in canon(model.facts("mean"))  # (0.25 + 1.75) / 2, then (0.25 + 1.75 + 1) / 3
    assert canon(model.facts("total"))


def test_integer_average_that_is_whole(spark):
    owns = facts_to_arrow([(("i", "a", 3), (0, 4, True, False)), (("j", "a", 5), (2, 6, True, True))], ["i", "c", "p"])
    check(spark, NO_KEY + 'mean(C, A) :- owns(I, C, P), A = avg(P).\n@output("mean").', {"owns": owns})


def test_inexact_average_read_after_the_aggregate_runs_in_the_rounds(spark):
    """avg of 1 and 2 in an integer run is 3/2, which the run's numbers do
    not hold: the mean is term text, its exact value's key text, which the
    literal after the aggregate compares exactly, in the rounds, as the
    engine (tests/test_spark_rounds_fractions.py: arithmetic on it too)."""
    owns = facts_to_arrow([(("i", "a", 1), (0, 4, True, True)), (("j", "a", 2), (2, 6, True, True))], ["i", "c", "p"])
    check(spark, NO_KEY + 'mean(C, A) :- owns(I, C, P), A = avg(P), A > 1.\n@output("mean").', {"owns": owns})


# ------------------------------------------------------------------ products

PRODUCTS = NO_KEY + """
product(C, M) :- owns(I, C, P), M = prod(P).
all(M) :- <->[0,1] owns(I, C, P), M = mprod(P).
each(C, M) :- owns(I, C, P), M = mprod(P, <I>).
both(C, S, M) :- owns(I, C, P), S = sum(P), M = prod(P), M != 0.
@output("product"). @output("all"). @output("each"). @output("both").
"""


@settings(max_examples=examples(4), deadline=None, suppress_health_check=list(HealthCheck))
@given(owners())
def test_random_products_equal_embedded(spark, case):
    """prod and mprod per segment (negative values, zeros, equal values of
    two bindings both multiplied), after a diamond, with contributors (the
    greatest value of each), beside a sum and under a condition."""
    owns, _ = case
    check(spark, PRODUCTS, {"owns": facts_to_arrow(owns, ["i", "c", "p"])})


def decimal_owns(values, together=False):
    """Stakes in decimal(20, 2) starting one after another (or together)
    and ending together."""
    n = len(values)
    return pa.table({"i": [f"i{k}" for k in range(n)], "c": ["a"] * n,
                     "p": pa.array([Decimal(v) for v in values], pa.decimal128(20, 2)),
                     "start": [0] * n if together else list(range(n)), "end": [n + 5] * n})


def test_decimal_products_exact(spark):
    """Products in decimal(38, 2): 0.5 · 0.2 is 0.1 (four decimals that end
    in zeros); twelve stakes of 100 multiply to 10^24 (the digits' trailing
    zeros are set apart, so no 38-digit overflow); negative values and a
    zero."""
    prog = NO_KEY + 'product(C, M) :- owns(I, C, P), M = prod(P).\n@output("product").'
    model = check(spark, prog, {"owns": decimal_owns(["0.50", "0.20", "-3"])})
    assert (("a", Fraction(-3, 10)), (2, 8, True, True)) in canon(model.facts("product"))
    model = check(spark, prog, {"owns": decimal_owns(["100"] * 12)})
    assert (("a", 10**24), (11, 17, True, True)) in canon(model.facts("product"))
    check(spark, prog, {"owns": decimal_owns(["12345678901.5", "98765432109.2", "-1.5", "0"])})


@pytest.mark.parametrize("values, why", [
    (["1.25", "0.50"], "a product with more decimals than the numbers of the run"),
    (["12345678901234567.01", "98765432109876543.03", "3.07"], "a product beyond 38 digits"),
    (["12345678.9"] * 4, "a product with more decimals"),  # the engine's answer has 33 digits
])
def test_inexact_decimal_products_go_to_one_task(spark, values, why):
    """0.625 has three decimals, the run's numbers two; a product of more
    digits than 38: the run stops and one task answers exactly (and
    writes a decimal of 33 digits: Python's default decimal context of 28
    digits failed to)."""
    prog = NO_KEY + 'product(C, M) :- owns(I, C, P), M = prod(P).\n@output("product").'
    owns = decimal_owns(values, together=len(values) > 2)
    with pytest.warns(cs().DriverFallback, match=why):
        out = cs().reason(spark, prog, inputs={"owns": owns}, distributed=True)
    model = chronolog.reason(prog, {"owns": owns})
    got = {((c, Fraction(m)), iv) for (c, m), iv in canon(table_to_rows(out["product"].toArrow(), "product"))}
    assert got == canon(model.facts("product"))


@settings(max_examples=examples(3), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from(["0.5", "0.2", "1.25", "-2", "0", "100", "-0.05", "12345678.9"]),
                          st.integers(0, 4), st.integers(1, 4)), min_size=1, max_size=7))
def test_random_decimal_products(spark, stakes):
    """Decimal stakes whose products may need more decimals than the run's
    two or more digits than 38: each segment's product is exact in tasks,
    or the run stops and one task answers; the answers are the engine's
    either way."""
    owns = pa.table({"i": [f"i{k}" for k in range(len(stakes))], "c": ["a"] * len(stakes),
                     "p": pa.array([Decimal(v) for v, _, _ in stakes], pa.decimal128(20, 2)),
                     "start": [lo for _, lo, _ in stakes], "end": [lo + d for _, lo, d in stakes]})
    prog = NO_KEY + 'product(C, M) :- owns(I, C, P), M = prod(P).\n@output("product").'
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", cs().DriverFallback)
        out = cs().reason(spark, prog, inputs={"owns": owns}, distributed=True)
    for w in caught:
        if issubclass(w.category, cs().DriverFallback):
            assert "a product with more decimals" in str(w.message) or "a product beyond" in str(w.message), w.message
    got = {((c, Fraction(m)), iv) for (c, m), iv in canon(table_to_rows(out["product"].toArrow(), "product"))}
    assert got == canon(chronolog.reason(prog, {"owns": owns}).facts("product"))


@pytest.mark.parametrize("func, value", [("sum", 2**62), ("prod", 2**40)])
def test_integer_aggregate_beyond_64_bits_runs_the_rounds_again_in_decimals(spark, func, value):
    """2^62 + 2^62 and 2^40 · 2^40 are past 64-bit integers: the rounds
    stop and run again in decimal(38, 0), the engine's exact answer."""
    owns = facts_to_arrow([(("i", "a", value), (0, 4, True, True)), (("j", "a", value), (2, 6, True, True))], ["i", "c", "p"])
    prog = NO_KEY + f'total(C, M) :- owns(I, C, P), M = {func}(P).\n@output("total").'
    stats, model = check_both(spark, prog, {"owns": owns})
    assert stats["ran_again"] == [f"a row computed in Spark: a {'sum' if func == 'sum' else 'product'} beyond 64-bit integers"]
    assert (("a", 2 * value if func == "sum" else value * value), (2, 4, True, True)) in model.facts("total")


def test_an_integer_aggregate_beyond_38_digits_goes_to_one_task(spark):
    """2^62 cubed has 56 digits, past decimal(38, 0) too: one task."""
    owns = facts_to_arrow([((i, "a", 2**62), (0, 4, True, True)) for i in "ijk"], ["i", "c", "p"])
    prog = NO_KEY + 'total(C, M) :- owns(I, C, P), M = prod(P).\n@output("total").'
    with pytest.warns(cs().DriverFallback, match="beyond"):
        out = cs().reason(spark, prog, inputs={"owns": owns}, distributed=True)
    assert canon(table_to_rows(out["total"].toArrow(), "total")) == canon(chronolog.reason(prog, {"owns": owns}).facts("total"))


def test_a_stopped_run_prints_no_java_stack_trace(spark, capfd):
    """A row check that stops the rounds fails a task on purpose: the user
    sees the answer (the rounds run again in decimals), not Spark's log of
    the failed task; the loggers silenced meanwhile are back at their levels."""
    from chronolog.connectors.spark_rounds import rounds

    log4j = spark.sparkContext._jvm.org.apache.logging.log4j
    before = [str(log4j.LogManager.getLogger(n).getLevel()) for n in rounds._TASK_LOGGERS]
    owns = facts_to_arrow([(("i", "a", 2**62), (0, 4, True, True)), (("j", "a", 2**62), (2, 6, True, True))], ["i", "c", "p"])
    prog = NO_KEY + 'total(C, M) :- owns(I, C, P), M = sum(P).\n@output("total").'
    capfd.readouterr()
    stats = {}
    out = cs().reason(spark, prog, inputs={"owns": owns}, distributed=True, stats=stats)
    assert stats["ran_again"] == ["a row computed in Spark: a sum beyond 64-bit integers"]  # (the first run stopped)
    assert max(r.c1 for r in out["total"].collect()) == 2**63  # the engine's exact sum
    err = capfd.readouterr().err
    assert "Exception in task" not in err and "\tat org.apache" not in err, err[:2000]
    assert [str(log4j.LogManager.getLogger(n).getLevel()) for n in rounds._TASK_LOGGERS] == before


@pytest.mark.parametrize("rule, path", [
    ("total(C, S) :- owns(I, C, P), S = sum(P).", "seminaive rounds"),
    ("total(C, S) :- owns(I, C, P), S = msum(P, <I>).", "seminaive rounds"),
    ("total(C, S, N) :- owns(I, C, P), S = msum(P, <I>), N = count().", "seminaive rounds"),
    ("total(C, S) :- owns(I, C, P), S = prod(P).", "seminaive rounds"),
    ("total(C, S) :- owns(I, C, P), S = munion(P).", "seminaive rounds"),
    ("total(C, S, N) :- owns(I, C, P), S = munion(P, <I>), N = count().", "seminaive rounds"),
    ("total(C, S) :- owns(I, C, P), S = sum(P), T = S * 2.", "seminaive rounds"),
    ("total(C, T) :- owns(I, C, P), S = sum(P), T = exp(S).", "seminaive rounds"),
    ("total(C, T) :- owns(I, C, P), S = sum(P), T = round(S, C).", "round() to digits other than a whole constant"),
    ("total(C, T) :- owns(I, C, P), S = sum(P), T = sqrt(S).", "seminaive rounds"),
    ("total(C, W, S) :- owns(I, C, P), W = P + 1, S = msum(P).", "seminaive rounds"),
    ("total(C, S) :- owns(I, C, P), S = sum(P * P + 1).", "seminaive rounds"),
    ("total(C, S) :- owns(I, C, P), S = max(I).", "seminaive rounds"),
    ("total(C, S) :- owns(I, C, P), S = sum(round(P, I)).", "round() to digits other than a whole constant"),
    ("total(C, W, S) :- owns(I, C, P), W = log(P), S = msum(P).", "seminaive rounds"),
    ("total(C, W, S) :- owns(I, C, P), W = round(P, C), S = msum(P).", "round() to digits other than a whole constant"),
    ("total(C, S) :- owns(I, C, P), S = mmax(P).\nowns(I, C, S) :- total(C, S), owns(I, C, P).", "seminaive rounds"),
    ("total(C, S) :- owns(I, C, P), S = mprod(P).\nowns(I, C, S) :- total(C, S), owns(I, C, P).", "seminaive rounds"),
])
def test_plan_names_the_path(rule, path):
    from chronolog.connectors.spark_rounds import describe
    from chronolog.planner import plan as make_plan

    plan = make_plan(chronolog.load_program(NO_KEY + rule))
    assert path in describe(plan)
