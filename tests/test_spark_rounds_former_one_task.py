"""The program shapes that used to go to one Spark task and now run in the
relational rounds (issue 36): sums, means and products of floats (the
engine's exact value rounded once), ``munion`` of floats, Since/Until
recursive through the right operand, recursion through time within a
horizon, existential rules, two of them with one head predicate (tests/test_spark_rounds_chase.py too); each on real
Spark against the embedded engine on the same facts (kinds of numbers included), asserted to run in the rounds,
and ``chronolog plan`` saying so; recursion through time with no horizon
where the facts of an atom outside its cycle confine it, those facts read at
run time.  The shapes that stay in one task (recursion through time with no
horizon and nothing to confine it, or confined by facts without end or over too many steps)
are named with their reason and answer as the engine (marked ``spark``,
but the plan tests)."""

import math
import re
import warnings
from decimal import Decimal

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.engine.arrow import facts_to_arrow, table_to_rows
from chronolog.api import load_program
from chronolog.planner import plan as make_plan
from chronolog.planner.backend_choice import choose

from nulls_renamed import assert_same_up_to_nulls
from strategies_wide import wide_cases
from test_spark_rounds import canon, cs
from test_spark_rounds import check as check_sets
from test_spark_rounds_functions import check as check_typed, refused

spark_test = pytest.mark.spark


def floats(keys, values, ivs):
    """``m(K, V)``: a string key, a float value, closed ``[s, e]`` intervals."""
    return pa.table({"k": pa.array(keys, pa.string()), "v": pa.array(values, pa.float64()),
                     "start": pa.array([s for s, _ in ivs], pa.int64()), "end": pa.array([e for _, e in ivs], pa.int64())})


NO_KEY = "pair(K, L) :- m(K, V), m(L, W), K != L.\n"  # (no partitioning key: the rounds, not per-key tasks)

FLOAT_SUMS = NO_KEY + """
total(K, S) :- m(K, V), S = sum(V).
mean(K, A) :- m(K, V), A = avg(V).
every(S, A, N) :- m(K, V), S = sum(V), A = avg(V), N = count().
bag(K, U) :- m(K, V), U = munion(V).
all(U) :- m(K, V), U = munion(V).
most(K, S) :- m(K, V), S = msum(V, <K>).
big(K) :- total(K, S), S > 1.
product(K, P, Q) :- m(K, V), P = prod(V), Q = sum(V).
mostly(P) :- m(K, V), K != "d", P = mprod(V, <K>).
@output("total"). @output("mean"). @output("every"). @output("bag"). @output("all"). @output("most"). @output("big").
@output("product"). @output("mostly").
"""
FLOAT_OUTPUTS = ["total", "mean", "every", "bag", "all", "most", "big", "product", "mostly"]


@spark_test
def test_float_sums_means_and_sets_are_the_engines(spark, rounds):
    """1e16 + 1 - 1e16 is 1.0 summed exactly (Spark's double addition
    gives 0.0 in this order); 0.1 + 0.2 + 0.3 rounded once; 1e10 is
    printed 10000000000.0 in a set as Python prints it (Java: 1.0E10);
    an infinity sums to itself; 0.1 * 0.2 * 0.3 multiplied exactly is
    0.006 (0.006000000000000001 in one order of float steps)."""
    vals = [1e16, 1.0, -1e16, 0.1, 0.2, 0.3, 1e10, 2.5, -0.0, math.inf, 0.1]
    keys = ["a", "a", "a", "b", "b", "b", "c", "c", "c", "d", "d"]
    ivs = [(0, 9), (1, 8), (2, 7), (0, 4), (2, 6), (3, 9), (0, 3), (1, 2), (2, 5), (0, 2), (1, 3)]
    model = check_typed(spark, FLOAT_SUMS, {"m": floats(keys, vals, ivs)}, FLOAT_OUTPUTS)
    assert ((("a", 1.0), (2, 7, True, True))) in model.facts("total")  # (exactly: the sanity of the oracle)
    assert ((("b", 0.006, 0.6), (3, 4, True, True))) in model.facts("product")


@spark_test
@settings(max_examples=examples(20), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from("abc"), st.floats(allow_nan=False, allow_infinity=False, width=64)
                          | st.sampled_from([0.1, 1e16, -1e16, 1.0, 1e308, -0.0]),
                          st.integers(0, 8), st.integers(0, 4)), min_size=1, max_size=12))
def test_random_float_sums_means_and_sets(spark, rounds, rows):
    """Any floats, huge and tiny, summed in any order: the engine's values
    (exact, rounded once; 1e308 + 1e308 is +inf, as a float addition)."""
    m = floats([k for k, _, _, _ in rows], [v for _, v, _, _ in rows], [(s, s + n) for _, _, s, n in rows])
    check_typed(spark, FLOAT_SUMS, {"m": m}, FLOAT_OUTPUTS)


@spark_test
def test_float_sum_of_both_infinities_is_the_engines_error(spark, rounds):
    """+inf beside -inf has no sum: the engine's error, reported by one task."""
    program = NO_KEY + 'total(K, S) :- m(K, V), S = sum(V).\n@output("total").'
    refused(spark, program, {"m": floats(["a", "a"], [math.inf, -math.inf], [(0, 3), (1, 4)])}, ["total"],
            "sum() of +inf and -inf")


@spark_test
def test_product_of_computed_floats_is_the_engines(spark, rounds):
    """Floats made in the body (``float(A)``, one task before) multiplied
    per segment: the engine's exact product, rounded once."""
    from test_spark_rounds_functions import INTS, NO_KEY as W_NO_KEY

    check_typed(spark, W_NO_KEY + 't(X, S) :- w(X, A), F = float(A) / 3, S = prod(F).\n@output("t").',
                {"w": facts_to_arrow(INTS, ["k", "a"])}, ["t"])


FLOAT_PRODUCTS = """
reach(X, Y) :- e(X, Y, W).
reach(X, Z) :- reach(X, Y), e(Y, Z, W), P = mprod(W, <Y>), P >= 2.
pr(X, P) :- <->[0,1] reach(X, Y), e(Y, Z, W), P = mprod(W).
@output("reach"). @output("pr").
"""


@spark_test
@settings(max_examples=examples(10), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from("abcd"), st.sampled_from("abcd"), st.sampled_from([1.0, 1.1, 1.3, 2.5, 3.0]),
                          st.integers(0, 6), st.integers(0, 3)), min_size=1, max_size=8))
def test_random_float_mprod_inside_a_recursion(spark, rounds, rows):
    """mprod of floats recomputed in each round that changes its body, with
    a contributor and a condition that feeds the recursion: the engine's
    exact products rounded once, every intermediate one included."""
    e = pa.table({"x": [x for x, _, _, _, _ in rows], "y": [y for _, y, _, _, _ in rows],
                  "w": pa.array([w for _, _, w, _, _ in rows], pa.float64()),
                  "start": [s for *_, s, _ in rows], "end": [s + n for *_, s, n in rows]})
    check_typed(spark, FLOAT_PRODUCTS, {"e": e}, ["reach", "pr"])


@spark_test
def test_float_product_of_an_infinity_and_a_zero_is_the_engines_error(spark, rounds):
    """inf * 0.0 has no value (NaN): the engine's error, reported by one task."""
    program = NO_KEY + 'p(K, P) :- m(K, V), P = prod(V).\n@output("p").'
    refused(spark, program, {"m": floats(["a", "a"], [math.inf, 0.0], [(0, 3), (1, 4)])}, ["p"], "is not a number (NaN)")


SINCE_RIGHT = """
s(X) :- b(X).
s(X) :- a(X) <S>[1,2] s(X).
u(X) :- b(X).
u(X) :- [-][0,1] a(X) <U>(0,3] u(X).
r(X, Y) :- e(X, Y).
r(X, Z) :- a(X) <S>[1,1] r(X, Y), e(Y, Z).
pair(X, Y) :- a(X), b(Y).
@output("s"). @output("u"). @output("r").
"""


@spark_test
def test_since_and_until_recursive_through_the_right_operand(spark, rounds):
    """``s`` spreads from ``b`` by 1 to 2 per round while ``a`` holds; the
    rounds read s's delta against a's maximal intervals whole."""
    a = facts_to_arrow([((1,), (0, 10, True, True)), ((2,), (3, 5, False, True)), ((3,), (0, 4, True, False))], ["x"])
    b = facts_to_arrow([((1,), (0, 0, True, True)), ((2,), (3, 3, True, True)), ((3,), (4, 4, True, True))], ["x"])
    e = facts_to_arrow([((1, 2), (0, 10, True, True)), ((2, 3), (2, 6, True, True))], ["x", "y"])
    stats, model = check_sets(spark, SINCE_RIGHT, {"a": a, "b": b, "e": e})
    assert ((1,), (1, 10, True, True)) in canon(model.facts("s"))  # reached 10 in several rounds
    assert max(r.round for r in stats["rounds"]) >= 4


@spark_test
def test_since_recursive_through_both_operands_within_a_horizon(spark, rounds):
    """``t`` (A) and ``s`` (B) grow in the same rounds: the Since reads
    both whole (new A against old B derives too)."""
    program = ("s(X) :- b(X).\ns(X) :- t(X) <S>[1,2] s(X).\nt(X) :- <->[0,3] s(X), a(X).\nt(X) :- c(X).\n"
               "pair(X, Y) :- a(X), b(Y).\n@output(\"s\"). @output(\"t\").")
    a = facts_to_arrow([((1,), (0, 12, True, True)), ((2,), (0, 12, True, True))], ["x"])
    b = facts_to_arrow([((1,), (0, 0, True, True)), ((2,), (5, 5, True, True))], ["x"])
    c = facts_to_arrow([((1,), (0, 1, True, True)), ((2,), (4, 6, True, False))], ["x"])
    stats, model = check_sets(spark, program, {"a": a, "b": b, "c": c}, horizon=(0, 12))
    assert max(r.round for r in stats["rounds"]) >= 3


@spark_test
def test_since_through_the_right_operand_over_an_unbounded_left_goes_to_one_task(spark, rounds):
    """``a`` on [0,+inf): ``s@0`` moves one step a round forever (the
    engine prints a repeating model); the rounds stop at once and one task
    answers within the window, saying why; with a horizon the rounds run."""
    program = "s(X) :- b(X).\ns(X) :- a(X) <S>[1,1] s(X).\npair(X, Y) :- a(X), b(Y).\n@output(\"s\")."
    a = facts_to_arrow([((1,), (0, math.inf, True, False))], ["x"])
    b = facts_to_arrow([((1,), (0, 0, True, True))], ["x"])
    model = chronolog.reason(program, {p: table_to_rows(t, p) for p, t in {"a": a, "b": b}.items()})
    with pytest.warns(cs().OneTaskFallback, match="holds without end"):
        out = cs().reason(spark, program, inputs={"a": a, "b": b}, distributed=True, window=(0, 6))
    assert canon(table_to_rows(out["s"].toArrow(), "s")) == {((1,), (t, t, True, True)) for t in range(7)}
    assert model.facts_within("s", (0, 6)) == [((1,), (t, t, True, True)) for t in range(7)]
    check_sets(spark, program, {"a": a, "b": b}, horizon=(0, 6))


THROUGH_TIME = """
p(X) :- q(X).
p(X) :- <->[2,2] p(X), r(X).
w(X) :- q(X).
w(X) :- [-][0,1] <+>[1,1] w(X).
k(X, Y) :- q(X), r(Y).
@output("p"). @output("w"). @output("k").
"""


@spark_test
@pytest.mark.parametrize("horizon", [(0, 20), (-5, 7)])
def test_recursion_through_time_within_a_horizon(spark, rounds, horizon):
    q = facts_to_arrow([((1,), (0, 1, True, False)), ((2,), (3, 3, True, True))], ["x"])
    r = facts_to_arrow([((1,), (0, 15, True, True)), ((2,), (0, 30, True, True))], ["x"])
    stats, model = check_sets(spark, THROUGH_TIME, {"q": q, "r": r}, horizon=horizon)
    assert max(r.round for r in stats["rounds"]) >= 3


@spark_test
def test_recursion_through_time_with_a_horizon_in_the_program(spark, rounds):
    q = facts_to_arrow([((1,), (0, 1, True, False))], ["x"])
    r = facts_to_arrow([((1,), (0, 15, True, True))], ["x"])
    check_sets(spark, "@temporal(0, 12).\n" + THROUGH_TIME, {"q": q, "r": r})


@spark_test
def test_recursion_through_time_without_a_horizon_stays_in_one_task(spark, rounds):
    q = facts_to_arrow([((1,), (0, 1, True, False))], ["x"])
    r = facts_to_arrow([((1,), (0, 15, True, True))], ["x"])
    refused(spark, THROUGH_TIME, {"q": q, "r": r}, ["p"], "recursion through time with no horizon")


# p moves two units a round, only where r holds; reach moves one unit along
# each edge (its other rule reads the edge a unit back: it moves nothing)
CONFINED = """
p(X) :- q(X).
p(X) :- <->[2,2] p(X), r(X).
reach(X) :- q(X).
reach(Y) :- <->[1,1] reach(X), e(X, Y).
reach(Y) :- reach(X), <->[1,1] e(X, Y).
k(X, Y) :- q(X), r(Y).
@output("p"). @output("reach"). @output("k").
"""


def confined_inputs(r_end=15):
    """q seeds both recursions; r on [0, r_end] (math.inf: without end); e a cycle of three edges."""
    q = facts_to_arrow([((1,), (0, 1, True, False)), ((2,), (3, 3, True, True))], ["x"])
    r = facts_to_arrow([((1,), (0, r_end, True, r_end != math.inf)), ((2,), (0, 9, True, True))], ["x"])
    e = facts_to_arrow([((1, 2), (0, 10, True, True)), ((2, 3), (2, 12, True, True)), ((3, 1), (0, 9, False, True))], ["x", "y"])
    return {"q": q, "r": r, "e": e}


@spark_test
def test_recursion_through_time_confined_by_its_data_runs_in_the_rounds(spark, rounds):
    """No horizon: r's facts confine p's recursion and e's reach's, so the
    model is finite and the rounds reach it (the engine's answers)."""
    stats, model = check_sets(spark, CONFINED, confined_inputs())
    assert max(r.round for r in stats["rounds"]) >= 5
    assert ((1,), (14, 15, True, False)) in model.facts("p")  # (moved seven times, inside r)


@spark_test
@pytest.mark.parametrize("r_end, why", [(math.inf, "the facts of r, which confine the recursion through time (no horizon), "
                                                   "hold without end"),
                                        (1000, "recursion through time over about 500 steps of the facts of r")])
def test_recursion_through_time_confined_by_facts_without_end_or_too_far_goes_to_one_task(spark, rounds, r_end, why):
    """r without end: p repeats forever (the engine finds the repetition);
    r over 1,000 units: p moves 500 times, as many rounds: one task answers
    either, as the engine (a window of the answers: the model repeats)."""
    tables = confined_inputs(r_end)
    model = chronolog.reason(CONFINED, {p: table_to_rows(t, p) for p, t in tables.items()})
    with pytest.warns(cs().OneTaskFallback, match=re.escape(why)):
        out = cs().reason(spark, CONFINED, inputs=tables, distributed=True, one_task_bytes=-1, window=(0, 40))
    for p in ("p", "reach", "k"):
        assert canon(table_to_rows(out[p].toArrow(), p)) == canon(model.facts_within(p, (0, 40))), p


@spark_test
@settings(max_examples=examples(30), deadline=None, suppress_health_check=list(HealthCheck), print_blob=True)
@given(wide_cases(floats=False, recursion=True, templates=("temporal", "join", "head_box", "negation")))
def test_random_recursions_through_time_without_a_horizon(spark, rounds, case):
    """The wide random recursive programs with no horizon, through
    ``distributed=True``: the rounds where the data confine a recursion
    through time, one task where they do not; the row executor's answers
    within a window (a model may repeat forever)."""
    program = case.program + "\nnokey(K, L) :- v(K, A), v(L, B).\n"
    from test_spark_differential import arrow_inputs
    from test_spark_differential import canon as canon_rows

    inputs = arrow_inputs(case)
    if inputs is None:
        return  # (Arrow holds a given 1/3, or a column mixing kinds, as text: documented)
    facts, tables = inputs
    window = (-3, 12)
    try:
        model = chronolog.reason(program, facts, engine="rows")
    except chronolog.ChronologError:
        return  # (no strategy ends it)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = cs().reason(spark, program, inputs=tables, outputs=case.idb, distributed=True, window=window)
    for p, df in out.items():
        assert canon_rows(table_to_rows(df.toArrow(), p)) == canon_rows(table_to_rows(model.to_arrow(p, window=window), p)), \
            f"{case}\n{p}"


@spark_test
def test_existential_rules_run_in_the_rounds(spark, rounds):
    program = NO_KEY + 'boss(Y, K) :- m(K, V).\n@output("boss").'
    existential_in_rounds(spark, program, floats(["a", "b"], [1.0, 2.0], [(0, 3), (1, 4)]), ("boss",))


@spark_test
@settings(max_examples=examples(20), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from("ab"), st.integers(-6, 6), st.integers(0, 6), st.integers(0, 3)), min_size=1, max_size=8),
       st.booleans())
@example(rows=[("a", 0, 0, 0), ("a", 1, 0, 0), ("a", -2, 0, 0)], decimals=False)  # -1/3: text in Arrow
def test_random_means_read_after_their_aggregate_run_in_the_rounds(spark, rounds, rows, decimals):
    """The engine's mean of exact numbers is exact (1/3), which the run's
    one number type need not hold (64-bit integers for integer inputs,
    decimal(38, 2) for these decimals): a mean that a literal after the
    aggregate reads runs in the rounds as term text, its exact value's key
    text (tests/test_spark_rounds_fractions.py), with the engine's answers
    and kinds (a mean such as -1/3 the exact number)."""
    program = NO_KEY + 'mean(K, A) :- m(K, V), A = avg(V), A != 1000.\n@output("mean").'
    values = [Decimal(v) / 4 if decimals else v for _, v, _, _ in rows]
    m = pa.table({"k": [k for k, _, _, _ in rows], "v": pa.array(values, pa.decimal128(10, 2) if decimals else pa.int64()),
                  "start": [s for _, _, s, _ in rows], "end": [s + n for _, _, s, n in rows]})
    check_typed(spark, program, {"m": m}, ["mean"])


def existential_in_rounds(spark, program: str, m, preds=("boss", "team")) -> None:
    """``program`` over the table ``m`` in the rounds (no fallback): its
    ``preds`` the engine's up to a renaming of nulls."""
    from chronolog.language.nulls import reading_file

    model = chronolog.reason(program, {"m": table_to_rows(m, "m")})
    stats = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", cs().OneTaskFallback)
        out = cs().reason(spark, program, inputs={"m": m}, distributed=True, stats=stats)
    assert stats["path"] == "relational", stats
    with reading_file():  # (one scope: the run's nulls in both outputs)
        got = {p: table_to_rows(out[p].toArrow(), p) for p in preds}
    assert_same_up_to_nulls(got, {p: model.facts(p) for p in preds})


# ``boss(K, K)`` satisfies the head first where ``V > 2``: the
# Datalog-first restricted chase makes no null there; ``team`` reads the
# nulls back
EXISTENTIAL = NO_KEY + """
boss(Y, K) :- m(K, V).
boss(K, K) :- m(K, V), V > 2.
team(K, Y) :- boss(Y, K), m(K, V).
@output("boss"). @output("team").
"""

# two existential rules of one head in a recursion through it: seen's rows
# come a round after m's, and again after each firing; the second rule's
# check sees the first one's nulls (and the first's later variant the second's)
TWO_EXISTENTIAL = NO_KEY + """
boss(Y, K) :- m(K, V), V > 2.
boss(Y, K) :- seen(K).
seen(K) :- <->[0,1] m(K, V), V < 3.
seen(K) :- boss(Y, J), m(J, V), m(K, W), V == W, J != K.
team(K, Y) :- boss(Y, K), m(K, V).
@output("boss"). @output("team").
"""


@spark_test
@pytest.mark.parametrize("program", [EXISTENTIAL, TWO_EXISTENTIAL], ids=["existential", "two of one head"])
@settings(max_examples=examples(10), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from([1.0, 2.5, 3.0]), st.integers(0, 6), st.integers(0, 3)),
                min_size=1, max_size=6))
def test_random_existential_rules_run_in_the_rounds_as_the_engine(spark, rounds, program, rows):
    """Existential rules in the rounds (two of one head fired in the
    engine's order): the engine's model up to a renaming of nulls."""
    m = floats([k for k, _, _, _ in rows], [v for _, v, _, _ in rows], [(s, s + n) for _, _, s, n in rows])
    existential_in_rounds(spark, program, m)


# ------------------------------------------------------------------ what `chronolog plan` says
def spark_path(src: str) -> str:
    return choose(make_plan(load_program(src))).spark.path


@pytest.mark.parametrize("program", [FLOAT_SUMS, SINCE_RIGHT, "@temporal(0, 12).\n" + THROUGH_TIME, NO_KEY + "boss(Y, K) :- m(K, V).",
                                     NO_KEY + "boss(Y, K) :- m(K, V).\nboss(Y, K) :- n(K).", CONFINED,
                                     "@temporal(0, inf).\n" + CONFINED])
def test_the_plan_says_rounds(program):
    assert spark_path(program) == "rounds"


@pytest.mark.parametrize("program, why", [
    (THROUGH_TIME, "recursion through time with no horizon"),
    ("@temporal(0, 1000).\n" + THROUGH_TIME, "recursion through time over about 1,000 steps within the horizon"),
    ("s(X) :- b(X).\ns(X) :- s(X) <S>[1,2] s(X).\npair(X, Y) :- s(X), b(Y).", "recursion through time with no horizon"),
])
def test_the_plan_says_one_task_and_why(program, why):
    choice = choose(make_plan(load_program(program))).spark
    assert choice.path == "one task" and why in choice.why, choice.why


def test_the_plan_lists_what_still_sends_the_rounds_to_one_task():
    since = choose(make_plan(load_program(SINCE_RIGHT)))
    assert any("holds without end" in f for s in since.strata for f in s.spark_fallbacks)
    timed = choose(make_plan(load_program("@temporal(0, 12).\n" + THROUGH_TIME)))
    assert any("round limit" in f for s in timed.strata for f in s.spark_fallbacks)
    confined = choose(make_plan(load_program(CONFINED)))
    said = [f for s in confined.strata for f in s.spark_fallbacks if "confine" in f]
    assert sorted(said) == [f"the facts of {p}, which confine the recursion through time (no horizon), hold without end or span more "
                            "than 200 of its steps (read before its second round)" for p in ("e", "r")], said


@pytest.mark.parametrize("rule", [
    "p(X) :- <->[2,2] p(X).",  # (nothing else in the body)
    "p(X) :- <->[2,2] p(X), <->[0,+inf] r(X).",  # (r moved without end)
    "p(X) :- <->[2,2] p(X), not r(X).",  # (a negation confines nothing)
    "p(X) :- <->[1,1] p(X), r(X).\np(X) :- [-][1,2] p(X).",  # (the second rule: named, not the first)
])
def test_a_recursion_through_time_nothing_confines_stays_in_one_task(rule):
    choice = choose(make_plan(load_program(f"p(X) :- q(X).\n{rule}\nk(X, Y) :- q(X), r(Y).\n"))).spark
    assert choice.path == "one task" and "recursion through time with no horizon" in choice.why, choice.why
    assert f"in the rule {rule.splitlines()[-1]}" in choice.why, choice.why


@spark_test
@settings(max_examples=examples(20), deadline=None, suppress_health_check=list(HealthCheck), print_blob=True)
@given(wide_cases(floats=False, recursion=True, templates=("temporal", "since", "join", "head_box", "negation", "aggregate")))
def test_random_recursions_through_time_within_a_horizon(spark, rounds, case):
    """The wide random recursive programs (tests/strategies_wide.py), each
    with a horizon and a rule that joins across keys (so no key splits
    them), through ``distributed=True``: the rounds now for a recursion
    through time (or one task where they refuse), the row executor's answers."""
    program = case.program + "\nnokey(K, L) :- v(K, A), v(L, B).\n"
    from test_spark_differential import arrow_inputs
    from test_spark_differential import canon as canon_rows

    inputs = arrow_inputs(case)
    if inputs is None:
        return  # (Arrow holds a given 1/3, or a column mixing kinds, as text: documented)
    facts, tables = inputs
    try:
        model = chronolog.reason(program, facts, engine="rows", horizon=case.horizon)
    except chronolog.ChronologError:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = cs().reason(spark, program, inputs=tables, horizon=case.horizon, outputs=case.idb, distributed=True)
    for p, df in out.items():
        assert canon_rows(table_to_rows(df.toArrow(), p)) == canon_rows(table_to_rows(model.to_arrow(p), p)), f"{case}\n{p}"


@spark_test
def test_no_inputs_at_all(spark, rounds):
    """Found by the random recursions above: with no input, an output's
    relation has no term columns; its answer is an empty table of int64
    columns, as the engine's."""
    program = "p0(K, N) :- v(K, N), v(J, M).\np0(K, N) :- [-][1,2] p0(K, N), v(K, _).\n"
    stats, _ = check_sets(spark, program, {}, outputs=["p0"], horizon=(-1, 8))
    assert stats["path"] == "relational"
