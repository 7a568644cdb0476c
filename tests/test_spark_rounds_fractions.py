"""Exact fractions in Spark's relational rounds (issue 36), on real Spark
against the embedded engine on the same facts (``chronolog.reason``, the
oracle), each asserted to run in the rounds (no fall back to one task).

The engine's numbers are exact: ``avg`` of 1 and 2 is 3/2, of 0, 0 and 1
is 1/3.  An average that a rule only writes into its head is term text
(its exact value's key text, connectors/spark_rounds/fractions.py), which
the run's one number type (64-bit integers, ``decimal(38, S)``) need not
hold: the rule runs in the rounds, and so do the rules that join, order
or compute on the mean, exactly (``+ - * /`` on fractions of term text,
fraction constants in rules: ``X = 1/3``, ``M > 2/3``), and a literal
that reads the mean after its own aggregate."""

from decimal import Decimal
import warnings
from fractions import Fraction

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.engine.arrow import table_to_rows

from test_spark_rounds import check
from test_spark_rounds_functions import check as check_typed, refused, run as run_rounds, typed

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("rounds")]  # the rounds, not one task (conftest.py)

NO_KEY = "far(X, Z) :- owns(X, Y, P), owns(Y, Z, Q).\n"  # (no partition key: the rounds, not per-key tasks)
MEANS = NO_KEY + """
mean(C, A) :- owns(I, C, P), A = avg(P).
twice(C, A, A) :- owns(I, C, P), A = avg(P).
above(C) :- mean(C, A), A > 1.
same(C, D) :- mean(C, A), mean(D, A), C != D.
@output("mean"). @output("twice"). @output("above"). @output("same").
"""


def owns(rows, decimals=False):
    """``owns(I, C, P)`` from ``(i, c, p, start, end)``: integers, or decimal(10, 2)."""
    p = [Decimal(r[2]) / 4 if decimals else r[2] for r in rows]
    return pa.table({"i": [r[0] for r in rows], "c": [r[1] for r in rows],
                     "p": pa.array(p, pa.decimal128(10, 2) if decimals else pa.int64()),
                     "start": [r[3] for r in rows], "end": [r[4] for r in rows]})


def test_integer_means_are_the_engines_fractions(spark):
    """1 and 2: 3/2, written 1.5; 0, 0 and 1: 1/3; -1 and -2 beside 0:
    -1; 7 alone: 7; and, as segments change, 2/3 and -1/2: the engine's
    exact numbers, and ``above`` and ``same`` order and join them."""
    rows = [("i", "a", 1, 0, 4), ("j", "a", 2, 0, 6), ("i", "b", 0, 0, 5), ("j", "b", 0, 0, 5), ("k", "b", 1, 0, 9),
            ("i", "c", -1, 0, 3), ("j", "c", -2, 2, 3), ("k", "c", 0, 1, 8), ("l", "d", 7, 0, 2), ("m", "e", 3, 4, 9)]
    stats, model = check(spark, MEANS, {"owns": owns(rows)})
    mean = {(t, iv) for t, iv in model.facts("mean")}
    assert (("a", Fraction(3, 2)), (0, 4, True, True)) in mean and (("b", Fraction(1, 3)), (0, 5, True, True)) in mean


def test_decimal_means_are_the_engines_fractions(spark):
    """decimal(38, 2) runs: 0.25 and 0.5 give 0.375 (three decimals),
    0.25, 0.25 and 0.5 give 1/3."""
    rows = [("i", "a", 1, 0, 4), ("j", "a", 2, 0, 6), ("i", "b", 1, 0, 5), ("j", "b", 1, 0, 5), ("k", "b", 2, 0, 9)]
    check(spark, MEANS, {"owns": owns(rows, decimals=True)})


def test_kinds_of_means_are_the_engines(spark):
    """The mean read back as an exact number (never a float), whole or not."""
    rows = [("i", "a", 1, 0, 4), ("j", "a", 2, 0, 6), ("k", "b", 4, 0, 2)]
    check_typed(spark, NO_KEY + 'mean(C, A) :- owns(I, C, P), A = avg(P).\n@output("mean").', {"owns": owns(rows)}, ["mean"])


@settings(max_examples=examples(20), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from("ijkl"), st.sampled_from("ab"), st.integers(-9, 9), st.integers(0, 6), st.integers(0, 3)),
                min_size=1, max_size=10), st.booleans())
@example(rows=[("i", "a", 0, 0, 0), ("j", "a", 1, 0, 0), ("k", "a", -2, 0, 0)], decimals=False)  # -1/3
def test_random_means_are_the_engines(spark, rows, decimals):
    """Any means of integers or decimals, with the rules that order and
    join them: the engine's exact numbers, in the rounds."""
    check(spark, MEANS, {"owns": owns([(i, c, p, s, s + n) for i, c, p, s, n in rows], decimals)})


# ------------------------------------------------------------------ program facts of fractions

FACTS = NO_KEY + """
same(K, L) :- v(K, X), v(L, X), K != L.
less(K, L) :- v(K, X), v(L, Y), X < Y.
both(K, X) :- v(K, X), owns(I, K, X).
@output("same"). @output("less"). @output("both").
"""


def test_program_facts_of_fractions_and_long_numbers_run_in_the_rounds(spark):
    """``1/3`` has no finite decimal and a 40-digit number no place in
    ``decimal(38, S)``: a program fact's argument holding one is term text,
    each fact's key text (2/6 is 1/3), joined with an input's integers
    keyed at the load, and ordered in the engine's order of numbers."""
    big = "1234567890123456789012345678901234567890"
    facts = ("v(a, 1/3)@[0,5]. v(b, 2)@[0,5]. v(c, 0.5)@[0,5]. v(e, 2/6)@[1,3]. "
             f"v(d, {big})@[0,5]. w(d, {big})@[0,5].\n")
    prog = facts + FACTS.replace("X < Y.", "K != d, L != d, X < Y.") + 'big(K) :- v(K, X), w(L, X).\n@output("big").\n'
    rows = [("i", "a", 1, 0, 4), ("j", "b", 2, 0, 6), ("k", "c", 3, 0, 5)]
    check(spark, prog, {"owns": owns(rows)})


@settings(max_examples=examples(10), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from("abcd"), st.integers(-6, 6), st.integers(1, 7), st.integers(0, 4), st.integers(0, 3)),
                min_size=1, max_size=6))
@example(facts=[("a", 1, 3, 0, 2), ("b", 2, 6, 1, 3), ("c", 3, 2, 0, 4)])  # 1/3 = 2/6, beside 1.5
def test_random_program_facts_of_fractions_are_the_engines(spark, facts):
    """Program facts ``v(K, p/q)`` (1/3, 3/2, 2/6 = 1/3, -4/2 = -2):
    joined, ordered and matched with an input's integers as the engine does."""
    text = "".join(f"v({k}, {p}/{q})@[{s},{s + n}]. " for k, p, q, s, n in facts)
    rows = [("i", "a", 1, 0, 4), ("j", "b", -2, 0, 6), ("k", "c", 0, 0, 5)]
    check(spark, text + "\n" + FACTS, {"owns": owns(rows)})


# ------------------------------------------------------------------ means read after, arithmetic on fractions

READ = NO_KEY + """
mean(C, A) :- owns(I, C, P), A = avg(P).
high(C) :- mean(C, M), M > 2/3.
d(C, D) :- mean(C, M), D = M * 3 - 1.
e(C, E) :- mean(C, M), E = (M + 1/3) / 2.
f(C, F) :- mean(C, M), owns(I, C, P), F = P - M.
g(C, G) :- mean(C, M), G = 1/3.
h(C) :- mean(C, M), M * 3 == 1.
k(C, A) :- owns(I, C, P), A = avg(P), A != 1000, B = A * 2, B > 1.
@output("high"). @output("d"). @output("e"). @output("f"). @output("g"). @output("h"). @output("k").
"""
READ_OUTPUTS = ["high", "d", "e", "f", "g", "h", "k"]


def test_means_compared_and_computed_on_are_the_engines_exact_numbers(spark):
    """A sensor's mean then a threshold, and arithmetic on it: 1/3 * 3 - 1
    is 0, (3/2 + 1/3) / 2 is 11/12, 2 - 3/2 is 1/2 (written 0.5), a mean
    read after its own aggregate (``A * 2 > 1``): the engine's exact
    numbers with their kinds (the whole ones integers), in the rounds."""
    rows = [("i", "a", 1, 0, 4), ("j", "a", 2, 0, 6), ("i", "b", 0, 0, 5), ("j", "b", 0, 0, 5), ("k", "b", 1, 0, 9),
            ("l", "c", -7, 0, 3)]
    model = check_typed(spark, READ, {"owns": owns(rows)}, READ_OUTPUTS)
    assert ((("b", 0), (0, 5, True, True))) in model.facts("d")  # (the oracle's kinds: 1/3 * 3 - 1 is the integer 0)
    assert ((("a", Fraction(11, 12)), (0, 4, True, True))) in model.facts("e")


def test_arithmetic_on_program_facts_of_fractions_is_the_engines(spark):
    """``1/3 + 1``, ``*``, ``-``, ``/`` on facts' fractions and decimals:
    canonical ``p/q``, a decimal or an integer as the engine keys them;
    a division by zero is the engine's error, from one task."""
    facts = "v(a, 1/3)@[0,5]. v(b, 2)@[0,5]. v(c, 0.5)@[1,3]. v(d, -3/7)@[0,2]. v(e, 0)@[0,1].\n"
    rules = NO_KEY + """
    s(K, Y) :- v(K, X), Y = X + 1.
    t(K, Y) :- v(K, X), Y = X * 3.
    u(K, Y) :- v(K, X), Y = 1 - X.
    w(K, L, Y) :- v(K, X), v(L, Z), L != e, Y = X / Z.
    less(K) :- v(K, X), X < 1/2.
    @output("s"). @output("t"). @output("u"). @output("w"). @output("less").
    """
    check_typed(spark, facts + rules, {"owns": owns([("i", "a", 1, 0, 4)])}, ["s", "t", "u", "w", "less"])
    zero = facts + rules.replace("L != e, ", "")
    refused(spark, zero, {"owns": owns([("i", "a", 1, 0, 4)])}, ["w"], "divides by zero")


def test_fraction_constants_in_rules_are_the_engines(spark):
    """``X = 1/3`` and ``P > 2/3`` beside an input's integers (a bigint
    run): the constant as its key text, compared exactly."""
    prog = NO_KEY + """
    y(C, X, Z) :- owns(I, C, P), X = 1/3, Z = P * (2/3).
    z(C, P) :- owns(I, C, P), P > 2/3.
    @output("y"). @output("z").
    """
    rows = [("i", "a", 1, 0, 4), ("j", "b", 0, 0, 6), ("k", "c", 3, 1, 2)]
    check_typed(spark, prog, {"owns": owns(rows)}, ["y", "z"])


def test_fractions_past_38_digits_stop_for_one_task(spark):
    """A product whose numerator needs more than 38 digits has no exact
    value here: the run stops for one task, which gives the engine's."""
    big = "1" + "0" * 30
    prog = f"v(a, 1/3)@[0,5]. w(a, {big}/7)@[0,5].\n" + NO_KEY + """
    p(K, Y) :- v(K, X), w(K, Z), Y = X * Z * Z.
    @output("p").
    """
    refused(spark, prog, {"owns": owns([("i", "a", 1, 0, 4)])}, ["p"], "needs more than 38 digits")


def test_the_plan_says_rounds_for_means_and_fractions_computed_on():
    """``chronolog plan`` places these programs on Spark's rounds
    (functions of means, their sums, min, max and mod too)."""
    from chronolog.api import load_program
    from chronolog.planner import plan as make_plan
    from chronolog.planner.backend_choice import unkeyed_spark

    for src in (READ, FUNCS, FOLDS, QUOTIENTS, "v(a, 1/3)@[0,5].\nx(K, Y) :- v(K, X), Y = X * 3 - 1/3.\n"):
        assert unkeyed_spark(make_plan(load_program(src))).path == "rounds"


@settings(max_examples=examples(10), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from("ijk"), st.sampled_from("ab"), st.integers(-9, 9), st.integers(0, 6), st.integers(0, 3)),
                min_size=1, max_size=8), st.booleans(),
       st.tuples(st.sampled_from("+-*/"), st.integers(-5, 5), st.integers(1, 6)))
@example(rows=[("i", "a", 0, 0, 0), ("j", "a", 1, 0, 0), ("k", "a", -2, 0, 0)], decimals=False, op=("/", 2, 3))  # -1/3 / 2/3
@example(rows=[("i", "a", 0, 0, 0), ("j", "a", 1, 0, 0)], decimals=False, op=("+", 1, 1))  # round(1/2, 0): 0, half to even
def test_random_means_computed_on_are_the_engines(spark, rows, decimals, op):
    """Any means of integers or decimals, compared with and combined by
    ``+ - * /`` with a random fraction, in a later rule and after their
    own aggregate, given to floor, ceil, abs, round, min, max and mod,
    summed and multiplied over the groups: the engine's exact numbers,
    kinds included."""
    o, p, q = op
    prog = NO_KEY + f"""
    mean(C, A) :- owns(I, C, P), A = avg(P).
    x(C, Y) :- mean(C, M), Y = M {o} ({p}/{q}), Y >= -1/2.
    f(C, F, G, H, R) :- mean(C, M), F = floor(M {o} ({p}/{q})), G = ceil(M), H = abs(M), R = round(M * {q}, {p % 3 - 1}).
    z(C, Y) :- owns(I, C, P), A = avg(P), Y = ({p}/{q}) {o} A.
    s(T, U) :- mean(C, M), T = sum(M {o} ({p}/{q})), U = prod(M).
    m(C, X, Y) :- mean(C, M), owns(I, C, P), X = max(M, {p}/{q}, P), Y = mod(min(M, P), {p % 4 + 1}/{q}).
    @output("x"). @output("z"). @output("f"). @output("s"). @output("m").
    """
    outputs = ["x", "z", "f", "s", "m"]
    table = owns([(i, c, v, s, s + n) for i, c, v, s, n in rows], decimals)
    facts = {"owns": table_to_rows(table, "owns")}
    try:
        chronolog.reason(prog, facts)
    except chronolog.ChronologError:  # (a division by a mean of 0: the engine's error, from one task)
        refused(spark, prog, {"owns": table}, outputs, "divides by zero")
        return
    check_typed(spark, prog, {"owns": table}, outputs)


def test_a_mean_read_after_its_aggregate_in_a_calendars_program_runs_in_the_rounds(spark):
    """With a calendar a mean is term text as without one (its key text
    is the same): 3/2 and 5/3, read after their aggregate, run in the
    rounds and give the engine's exact answers; they went to one task
    ("an average with no exact value")."""
    from chronolog.language.dates import Calendar
    from test_spark_rounds import canon, cs

    prog = """@timeGranularity("days").
far(X, Z) :- v(X, Y, P), v(Y, Z, Q).
mean(C, A) :- v(I, C, P), A = avg(P), A > 0.
v("i", "a", 1)@[2020-01-01, 2020-01-05]. v("j", "a", 2)@[2020-01-01, 2020-01-07]. v("k", "a", 2)@[2020-01-03, 2020-01-09].
@output("mean").
"""
    model = chronolog.reason(prog)
    stats = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", cs().DriverFallback)
        out = cs().reason(spark, prog, inputs={}, distributed=True, stats=stats, outputs=["mean"])
    assert stats["path"] == "relational"
    assert canon(table_to_rows(out["mean"].toArrow(), "mean", Calendar("days"))) == canon(model.facts("mean"))
    assert [t for t, _ in model.facts("mean")] == [("a", Fraction(3, 2)), ("a", Fraction(5, 3)), ("a", 2)]


# ------------------------------------------------------------------ functions of fractions

FUNCS = NO_KEY + """
mean(C, A) :- owns(I, C, P), A = avg(P).
fl(C, Y) :- mean(C, M), Y = floor(M).
ce(C, Y) :- mean(C, M), Y = ceil(M * 3 - 1/2).
ab(C, Y) :- mean(C, M), Y = abs(M - 1/3).
ro(C, Y) :- mean(C, M), Y = round(M).
rd(C, Y) :- mean(C, M), Y = round(M, 2).
rn(C, Y) :- mean(C, M), Y = round(M * 250, -1).
lo(C) :- owns(I, C, P), A = avg(P), floor(A) < A.
@output("fl"). @output("ce"). @output("ab"). @output("ro"). @output("rd"). @output("rn"). @output("lo").
"""
FUNCS_OUTPUTS = ["fl", "ce", "ab", "ro", "rd", "rn", "lo"]


def test_functions_of_fractions_are_the_engines(spark):
    """floor of 7/3 is the integer 2, of -1/3 the integer -1; ceil; abs;
    round half to even (1/2 is 0, 3/2 is 2, -5/2 is -2), to 2 decimals
    (1/3 is 0.33) and to tens (1/3 * 250 is 80): the engine's typed
    answers, in the rounds."""
    rows = [("i", "a", 1, 0, 4), ("j", "a", 2, 0, 6), ("i", "b", 0, 0, 5), ("j", "b", 0, 0, 5), ("k", "b", 1, 0, 9),
            ("l", "c", 3, 0, 3), ("m", "c", 4, 0, 3), ("n", "c", 0, 0, 3), ("o", "d", -2, 0, 2), ("p", "d", -3, 0, 2),
            ("q", "e", 0, 0, 2), ("r", "e", 1, 0, 2), ("s", "f", -1, 0, 2), ("t", "f", 0, 0, 2), ("u", "f", 0, 0, 2)]
    model = check_typed(spark, FUNCS, {"owns": owns(rows)}, FUNCS_OUTPUTS)
    assert (("c", 2), (0, 3, True, True)) in model.facts("fl")  # (7/3: the integer 2)
    assert (("d", -2), (0, 2, True, True)) in model.facts("ro")  # (-5/2: half to even)


def test_functions_of_fractions_write_small_sql(spark):
    """A function of term text is written on its argument's pair, each
    once (a lambda's argument), the key text once at the end:
    ``round(abs(M - 1/3), 2)`` (5,970 characters) and a floor over it
    (3,716: a whole number, no key text) stay small."""
    from chronolog.connectors.spark_rounds.classes import TEXT
    from chronolog.language import ast
    from test_spark_rounds_nesting import arithmetic

    arith = arithmetic(spark, None)
    arith.types.text_floats = False
    m = ast.Var("M")
    e = ast.Call("round", (ast.Call("abs", (ast.BinOp("-", m, ast.Const(Fraction(1, 3))),)), ast.Const(2)))
    sizes = [len(arith.sql(x, {"M": "m"}, {"M": TEXT}, None)[0]) for x in (m, e, ast.Call("floor", (e,)))]
    assert max(sizes) < 8_000, sizes


def test_folds_and_choices_of_fractions_write_small_sql(spark):
    """A segment's sum of term text (a fold of one addition over the least
    common denominator, 5,553 characters with its key text), a product
    (one multiplication and a reduction) and ``mod(max(M, 1/3), 1/4)``
    (4,612) stay small."""
    from chronolog.connectors.spark_rounds.classes import TEXT
    from chronolog.connectors.spark_rounds.fractions import fold_sql, text_sql
    from chronolog.language import ast
    from test_spark_rounds_nesting import arithmetic

    arith = arithmetic(spark, None)
    arith.types.text_floats = False
    m = ast.Var("M")
    e = ast.Call("mod", (ast.Call("max", (m, ast.Const(Fraction(1, 3)))), ast.Const(Fraction(1, 4))))
    sizes = [len(arith.sql(e, {"M": "m"}, {"M": TEXT}, None)[0])]
    sizes += [len(text_sql(fold_sql(f, "collect_list(x)", f"{f}() of term text"))) for f in ("sum", "prod")]
    assert max(sizes) < 8_000, sizes


# ------------------------------------------------------------------ sums, products, min/max and mod of fractions

FOLDS = NO_KEY + """
mean(C, A) :- owns(I, C, P), A = avg(P).
total(T) :- mean(C, A), T = sum(A).
thirds(T) :- mean(C, A), T = sum(A / 3).
grand(T) :- mean(C, A), T = avg(A).
times(T) :- mean(C, A), A != 0, T = prod(A).
least(C, X, Y, Z) :- mean(C, A), owns(I, C, P), X = min(A, P), Y = max(A, 1/2, -1), Z = min(P, A * 2).
rest(C, X, Y) :- mean(C, A), A != 0, owns(I, C, P), X = mod(A, 1/4), Y = mod(P, A).
@output("total"). @output("thirds"). @output("grand"). @output("times"). @output("least"). @output("rest").
"""
FOLDS_OUTPUTS = ["total", "thirds", "grand", "times", "least", "rest"]


def test_sums_products_and_extremes_of_fractions_are_the_engines(spark):
    """The sum of the groups' means (3/2 + 1/3 + 7/3 - 2 is 13/6), of a
    third of each, their mean and
    product; min/max of a mean against an integer column and constants,
    ``mod`` of fractions (the divisor's sign, as Python's %): the engine's
    typed answers (a whole sum is an integer), in the rounds."""
    rows = [("i", "a", 1, 0, 4), ("j", "a", 2, 0, 6), ("i", "b", 0, 0, 5), ("j", "b", 0, 0, 5), ("k", "b", 1, 0, 9),
            ("l", "c", 3, 0, 3), ("m", "c", 4, 0, 3), ("n", "c", 0, 0, 3), ("o", "d", -2, 0, 2), ("p", "d", -3, 7, 8)]
    model = check_typed(spark, FOLDS, {"owns": owns(rows)}, FOLDS_OUTPUTS)
    assert ((Fraction(13, 6),), (0, 2, True, True)) in model.facts("total")  # (3/2 + 1/3 + 7/3 - 2)
    facts = "v(a, 1/3)@[0,5]. v(b, 2/3)@[0,5]. v(c, -5/7)@[2,3].\n"
    whole = facts + NO_KEY + 's(T) :- v(K, X), T = sum(X).\np(T) :- v(K, X), T = prod(X * 3).\n@output("s"). @output("p").\n'
    model = check_typed(spark, whole, {"owns": owns([("i", "a", 1, 0, 4)])}, ["s", "p"])
    assert ((1,), (0, 2, True, False)) in model.facts("s")  # (1/3 + 2/3: the integer 1)


def test_mod_of_fractions_by_zero_is_the_engines_error(spark):
    """``mod(X, 0)`` of a fraction is the engine's error, from one task."""
    prog = "v(a, 1/3)@[0,5]. v(b, 0)@[0,5].\n" + NO_KEY + 'r(K, L, Y) :- v(K, X), v(L, Z), Y = mod(X, Z).\n@output("r").\n'
    refused(spark, prog, {"owns": owns([("i", "a", 1, 0, 4)])}, ["r"], "by zero")


# ------------------------------------------------------------------ aggregates of quotients of integers

QUOTIENTS = NO_KEY + """
s(C, S) :- owns(I, C, P), S = sum(P / 3).
m(C, S) :- owns(I, C, P), S = msum(P / 3).
a(C, S) :- owns(I, C, P), S = avg(P / 3).
lo(C, S) :- owns(I, C, P), S = min(P / 3).
hi(C, S) :- owns(I, C, P), S = max(P / 7 + 1).
pr(C, S) :- owns(I, C, P), P != 0, S = prod(P / 2).
n(C, S) :- owns(I, C, P), S = count(P / 3).
big(C) :- s(C, S), S > 1/2.
same(C, I) :- s(C, S), owns(I, D, S).
@output("s"). @output("m"). @output("a"). @output("lo"). @output("hi"). @output("pr"). @output("n"). @output("big"). @output("same").
"""
QUOTIENTS_OUTPUTS = ["s", "m", "a", "lo", "hi", "pr", "n", "big", "same"]


@pytest.mark.parametrize("decimals", [False, True])
def test_aggregates_of_quotients_of_integers_are_the_engines(spark, decimals):
    """``sum(P / 3)``, ``msum``, ``avg``, ``min``, ``max(P / 7 + 1)`` and
    ``prod(P / 2)`` of an integer (or decimal) column: the engine's exact
    rationals (1/3 + 2/3 the integer 1), compared with a fraction and
    joined with the integers, in the rounds; on main the run stopped at
    the first quotient that was no whole number and went to one task."""
    rows = [("i", "a", 1, 0, 4), ("j", "a", 2, 1, 6), ("i", "b", 4, 0, 5), ("j", "b", 7, 2, 5), ("k", "c", 3, 0, 3),
            ("l", "d", -5, 0, 2), ("m", "d", 0, 1, 2), ("n", "e", 6, 0, 9)]
    model = check_typed(spark, QUOTIENTS, {"owns": owns(rows, decimals)}, QUOTIENTS_OUTPUTS)
    if not decimals:
        assert ((("a", 1), (1, 4, True, True))) in model.facts("s")  # (1/3 + 2/3)
        assert ((("b", Fraction(4, 3)), (0, 2, True, False))) in model.facts("s")


def test_an_aggregate_of_a_quotient_by_zero_is_the_engines_error(spark):
    """``sum(P / Q)`` where ``Q`` is 0: the engine's error, from one task."""
    prog = NO_KEY + 's(C, S) :- owns(I, C, P), owns(J, C, Q), S = sum(P / Q).\n@output("s").\n'
    refused(spark, prog, {"owns": owns([("i", "a", 1, 0, 4), ("j", "a", 0, 0, 4)])}, ["s"], "divides by zero")


def test_quotients_of_consecutive_fibonacci_numbers_are_the_engines(spark):
    """Euclid's worst case: F(80)/F(79) reduced takes 77 steps, within
    Lamé's bound of five steps per digit of the smaller number (F(78), 16
    digits: 80), and the sum over the least common denominator of F(79)
    and F(80) about as many; the sum F(80)/F(79) + F(79)/F(80) + 2 is
    F(81)^2 / (F(79) F(80)), of 34 digits over 33 (coprime pairs are added
    and reduced with no division, whose quotient Spark holds in 32)."""
    fib = [0, 1]
    while len(fib) < 82:
        fib.append(fib[-1] + fib[-2])
    prog = NO_KEY + ("q(I, J, S) :- owns(I, C, P), owns(J, C, Q), S = P / Q.\n"
                     "s(C, S) :- owns(I, C, P), owns(J, C, Q), S = sum(P / Q).\n@output(\"q\"). @output(\"s\").\n")
    rows = [("i", "a", fib[80], 0, 4), ("j", "a", fib[79], 0, 4), ("i", "b", fib[60], 1, 3), ("j", "b", fib[61], 1, 3)]
    model = check_typed(spark, prog, {"owns": owns(rows)}, ["q", "s"])
    assert (("i", "j", Fraction(fib[80], fib[79])), (0, 4, True, True)) in model.facts("q")
    assert (("a", Fraction(fib[81] ** 2, fib[79] * fib[80])), (0, 4, True, True)) in model.facts("s")


@settings(max_examples=examples(10), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from("ijk"), st.sampled_from("ab"), st.integers(-9, 9), st.integers(0, 6), st.integers(0, 3)),
                min_size=1, max_size=8))
def test_random_aggregates_of_quotients_are_the_engines(spark, rows):
    """Any integers' sums, means, products, min and max of quotients, and
    the rules that order and join them: the engine's exact numbers, in
    the rounds."""
    check_typed(spark, QUOTIENTS, {"owns": owns([(i, c, p, s, s + n) for i, c, p, s, n in rows])}, QUOTIENTS_OUTPUTS)


# ------------------------------------------------------------------ divisions in conditions and assignments

DIVISIONS = NO_KEY + """
r(I, J, S) :- owns(I, C, P), owns(J, C, Q), Q != 0, S = P / Q.
big(I) :- owns(I, C, P), P / 4 > 1/3.
mid(C, M) :- owns(I, C, P), owns(J, C, Q), M = (P + Q) / 2.
fl(C, X) :- mid(C, M), X = floor(M) + 1.
met(C, I) :- mid(C, M), owns(I, C, M).
part(C, T) :- owns(I, C, P), S = sum(P), T = S / 3.
@output("r"). @output("big"). @output("mid"). @output("fl"). @output("met"). @output("part").
"""
DIVISIONS_OUTPUTS = ["r", "big", "mid", "fl", "met", "part"]


@pytest.mark.parametrize("decimals", [False, True])
def test_divisions_that_are_not_whole_run_in_the_rounds(spark, decimals):
    """``S = P / Q`` of integers 7 and 2 is 7/2 (3.5), which 64-bit
    integers do not hold, nor ``decimal(38, 2)`` 1/3: the rounds stopped
    and one task answered, whatever the input's size; now they run again
    with the divisions exact (term text), and give the engine's answers:
    the quotients compared, floored, joined with the integers."""
    rows = [("i", "a", 7, 0, 4), ("j", "a", 2, 1, 6), ("k", "a", 4, 2, 3), ("i", "b", 3, 0, 5), ("j", "b", 0, 0, 2),
            ("l", "c", -5, 0, 2), ("m", "c", 6, 1, 2)]
    tables = {"owns": owns(rows, decimals)}
    stats, got, falls = run_rounds(spark, DIVISIONS, tables, DIVISIONS_OUTPUTS)  # (check_typed's run, keeping its stats)
    model = chronolog.reason(DIVISIONS, {p: table_to_rows(t, p) for p, t in tables.items()})
    assert not falls and stats["path"] == "relational", falls
    assert all(got[p] == typed(model.facts(p)) for p in DIVISIONS_OUTPUTS), got
    (why,) = stats["ran_again"]  # (one run stopped, at whichever quotient Spark met first)
    assert any(why.startswith(f"a row computed in Spark: {d} ") for d in ("(P / Q)", "(P / 4)", "((P + Q) / 2)", "(S / 3)")), why
    if not decimals:
        assert (("i", "j", Fraction(7, 2)), (1, 4, True, True)) in model.facts("r")
        assert (("a", Fraction(9, 2)), (1, 4, True, True)) in model.facts("mid")


def test_whole_divisions_run_once_on_the_runs_numbers(spark):
    """Quotients that are whole never leave the run's numbers: one run, no
    second one on term text."""
    rows = [("i", "a", 4, 0, 4), ("j", "a", -2, 1, 6), ("i", "b", 6, 0, 5), ("j", "b", 0, 0, 2)]
    prog = NO_KEY + 'r(I, S) :- owns(I, C, P), S = P / 2, S > P - 4.\n@output("r").\n'
    stats, got, falls = run_rounds(spark, prog, {"owns": owns(rows)}, ["r"])  # (check_typed's run, keeping its stats)
    assert not falls and stats["path"] == "relational" and "ran_again" not in stats
    assert got["r"] == typed(chronolog.reason(prog, {"owns": table_to_rows(owns(rows), "owns")}).facts("r"))


def test_the_plan_says_a_quotient_may_run_the_rounds_again():
    """``chronolog plan`` says where a quotient that is not whole sends the
    rounds: again, exact; not to one task."""
    from chronolog.api import load_program
    from chronolog.plan_text import describe_plan
    from chronolog.planner import plan as make_plan

    text = describe_plan(make_plan(load_program(DIVISIONS)))
    assert ("on spark rounds: computes (P / Q) in the run's numbers (64-bit integers or decimals); where the data makes a "
            "quotient that they do not hold (7 / 2 of integers), the rounds stop and run again with every quotient of the "
            "program exact (term text)") in text
    assert "computes (P / 4) in the run's numbers" in text and "computes ((P + Q) / 2) in the run's numbers" in text


@settings(max_examples=examples(10), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from("ijk"), st.sampled_from("ab"), st.integers(-9, 9), st.integers(0, 6), st.integers(0, 3)),
                min_size=1, max_size=8), st.booleans())
def test_random_divisions_are_the_engines(spark, rows, decimals):
    """Any integers' or decimals' quotients, compared, floored and joined:
    the engine's exact numbers, in the rounds."""
    check_typed(spark, DIVISIONS, {"owns": owns([(i, c, p, s, s + n) for i, c, p, s, n in rows], decimals)}, DIVISIONS_OUTPUTS)


# ------------------------------------------------------------------ floats of fractions

FLOATS = NO_KEY + """
mean(C, A) :- owns(I, C, P), A = avg(P).
fm(C, F) :- mean(C, M), F = float(M).
fv(K, F, G, E, L) :- v(K, X), F = float(X), G = X * float(3), E = exp(min(X, 5)), L = log(abs(X) + 1).
@output("fm"). @output("fv").
"""
_fractions = st.builds(Fraction, st.integers(-10**20, 10**20), st.one_of(st.integers(1, 10**6), st.integers(1, 10**19)))


@settings(max_examples=examples(10), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_fractions, min_size=1, max_size=5))
@example(xs=[Fraction(1, 3000000), Fraction(-2, 3), Fraction(2**60 - 1, 3), Fraction(0), Fraction(1, 10**19 + 3)])
@example(xs=[Fraction(1, 1048576), Fraction(-3, 5**25), Fraction(5, 3)])  # (20 and 25 decimals: no decimal(38) beside 64-bit integers)
@example(xs=[Fraction(1, 8192)])  # (13 decimals: a term's, not a time's; they made the time grid too fine for the rounds)
def test_floats_of_fractions_are_the_engines(spark, xs):
    """``float(M)`` of a mean (1/3) and ``float(X)``, ``X * float(3)``,
    ``exp`` and ``log`` of program facts' fractions with up to 19-digit
    denominators (1/3000000, (2^60 - 1)/3): Python's float of the
    fraction, rounded once, bit for bit in the rounds; they went to one
    task ("float(A) on term text that is not a number of the run")."""
    facts = "".join(f"v(k{i}, {x.numerator}/{x.denominator})@[0,{i + 1}]. " for i, x in enumerate(xs))
    rows = [("i", "a", 1, 0, 4), ("j", "a", 2, 0, 6), ("i", "b", 0, 0, 5), ("j", "b", 0, 0, 5), ("k", "b", 1, 0, 9)]
    check_typed(spark, facts + "\n" + FLOATS, {"owns": owns(rows)}, ["fm", "fv"])


def test_the_float_of_a_fraction_of_a_30_digit_denominator_stops_for_one_task(spark):
    """1/(10^30 + 7): its quotient's 57 bits need ``2^157`` beside the
    numerator, past 38 digits: the run stops for one task, which gives
    Python's float of it."""
    prog = f"v(a, 1/{10**30 + 7})@[0,5].\n" + NO_KEY + 'f(K, F) :- v(K, X), F = float(X).\n@output("f").\n'
    refused(spark, prog, {"owns": owns([("i", "a", 1, 0, 4)])}, ["f"], "float(X) needs more digits than 38")


def _near_ties():
    """Fractions at and next to a tie of two doubles (the last bit's half):
    ``(2m + 1)·2^j`` over a power of two, ``m`` odd or even (a tie goes to
    the even one), and one off it (past the quotient's bits from ``j`` =
    7: only the sticky bit tells it from the tie)."""
    return st.builds(lambda h, odd, j, off, neg: Fraction((-1) ** neg * ((2 * (2**52 + 2 * h + odd) + 1) * 2**j + off), 2**max(0, 60 - j)),
                     st.integers(0, 2**51 - 1), st.booleans(), st.integers(0, 60), st.sampled_from([-1, 0, 1]), st.booleans())


_pairs = st.one_of(
    st.builds(Fraction, st.integers(-10**37, 10**37), st.integers(1, 10**19)),
    st.builds(Fraction, st.integers(-10**6, 10**6), st.integers(1, 10**19)),
    st.builds(Fraction, st.integers(-(2**64), 2**64), st.integers(1, 2**20)),
    _near_ties(),
)


@settings(max_examples=examples(20), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_pairs, min_size=1, max_size=60))
@example(xs=[Fraction((2 * 2**52 + 1) * 2**10 + 1, 2**50), Fraction(-((2 * 2**52 + 1) * 2**10 + 1), 2**50), Fraction(1, 3)])
def test_the_float_of_a_pair_is_pythons_bit_for_bit(spark, xs):
    """fractions.float_sql in Spark SQL: each ``n/d`` (numerators to 37
    digits, denominators to 19, ties of two doubles and their neighbours)
    is Python's ``float(Fraction(n, d))``, rounded once to the nearest
    double, a tie to the even one, bit for bit (``-0.0`` never: a zero
    numerator is ``0.0``)."""
    import struct

    from chronolog.connectors.spark_rounds.fractions import float_sql

    rows = [(str(x.numerator), str(x.denominator)) for x in xs]
    spark.createDataFrame(rows, "n string, d string").createOrReplaceTempView("fraction_pairs")
    pair = "named_struct('n', CAST(n AS DECIMAL(38, 0)), 'd', CAST(d AS DECIMAL(38, 0)))"
    got = spark.sql(f"SELECT n, d, {float_sql(pair, 'float(X)')} AS f FROM fraction_pairs").collect()
    bits = lambda f: struct.pack(">d", f)  # noqa: E731
    for r in got:
        want = float(Fraction(int(r["n"]), int(r["d"])))
        assert bits(r["f"]) == bits(want + 0.0), (r["n"], r["d"], r["f"], want)
