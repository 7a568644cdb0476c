"""Arithmetic in conditions and assignments in the relational rounds
(connectors/spark_rounds/arithmetic.py): exact in Spark SQL or refused,
against the embedded engine on the same facts (marked ``spark``)."""

import warnings
from decimal import Decimal
from fractions import Fraction

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from budget import examples

import chronolog
from chronolog.engine.arrow import facts_to_arrow, table_to_rows

from strategies_wide import wide_cases
from test_spark_rounds import canon, check, cs

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("rounds")]  # the rounds, not one task (conftest.py)

# every rule joins facts of different keys somewhere, so the program has no
# key and runs in rounds
INTS = """
hop(X, Z, C) :- e(X, Y, A), e(Y, Z, B), C = A + B * 2 - 1.
cheap(X, Z) :- hop(X, Z, C), C * 3 <= 60, C - 1 != 4.
half(X, H) :- hop(X, Z, C), H = C / 2.
spread(X, D) :- e(X, Y, A), e(Y, Z, B), D = abs(A - B) + mod(A, -3) + max(A, B, 2) - min(A, 7).
same(X, Z) :- e(X, Y, A), e(Y, Z, B), A = B - 0.
"""


def ints():
    rows = [((1, 2, 4), (0, 5, True, True)), ((2, 3, 6), (2, 8, True, False)), ((3, 1, 10), (1, 9, True, True)),
            ((2, 1, 4), (0, 3, True, True)), ((1, 3, -7), (0, 2, False, True))]
    return facts_to_arrow(rows, ["x", "y", "a"])


def test_integer_arithmetic_in_conditions_and_assignments(spark):
    prog = INTS.replace("half(X, H) :- hop(X, Z, C), H = C / 2.", "half(X, H) :- hop(X, Z, C), H = C * 2 / 2.")
    check(spark, prog, {"e": ints()})


def decimals():
    w = pa.array([Decimal("2.5"), Decimal("3.25"), Decimal("-1.75"), Decimal("4")], pa.decimal128(6, 2))
    return pa.table({"x": [1, 2, 3, 2], "y": [2, 3, 1, 1], "a": w, "start": [0, 1, 2, 0], "end": [10, 10, 10, 4]})


def test_decimal_arithmetic_is_exact(spark):
    """``decimal(38, S)``: sums, products (scale 2S back to S when no digit
    is lost), exact quotients, floor/ceil, comparisons with decimals."""
    prog = """
    hop(X, Z, C) :- e(X, Y, A), e(Y, Z, B), C = A + B * 2 - 0.5.
    cheap(X, Z) :- hop(X, Z, C), C * 4 <= 30, C != 7.25.
    half(X, H) :- hop(X, Z, C), H = C * 4 / 2.
    spread(X, D) :- e(X, Y, A), e(Y, Z, B), D = floor(A) + ceil(B) + abs(A - B) + mod(A, -1.5).
    """
    check(spark, prog, {"e": decimals()})


def test_sums_and_assignments_with_booleans_and_strings(spark):
    """A plain copy keeps its class; an assignment to a bound variable is
    an equality."""
    prog = """
    tag(X, T) :- e(X, Y, A), e(Y, Z, B), T = "big", A + B > 9.
    flag(X, F) :- e(X, Y, A), e(Y, Z, B), F = #T, B = A + 2.
    copy(X, W) :- e(X, Y, A), e(Y, Z, B), W = Z.
    """
    check(spark, prog, {"e": ints()})


def fallback(spark, prog, table, match):
    """The rounds refuse ``prog`` with a warning matching ``match``; the
    answers are the embedded engine's."""
    with pytest.warns(cs().DriverFallback, match=match):
        out = cs().reason(spark, prog, inputs={"e": table}, distributed=True)
    model = chronolog.reason(prog, {"e": table_to_rows(table, "e")})
    for p, df in out.items():
        assert canon(table_to_rows(df.toArrow(), p)) == canon(model.facts(p)), p


def test_floored_quotients_of_integers_run_in_the_rounds(spark):
    """``floor(A / B)`` and ``ceil(A / B)`` are floored divisions of
    integers (engine/int_arithmetic.py, shared with the columns), so a
    quotient that is not whole stays in the rounds, with Python's signs."""
    prog = """
    q(X, F) :- e(X, Y, A), e(Y, Z, B), F = floor(A / 4) + ceil(B / -3) * 10 + mod(A, -3) * 100 + mod(0 - B, 4) * 1000.
    r(X) :- e(X, Y, A), e(Y, Z, B), floor(A / 4) > ceil(B / 3) - 3.
    """
    check(spark, prog, {"e": ints()})


def test_a_quotient_that_is_not_whole_runs_the_rounds_again_exact(spark):
    """The engine's 7 / 2 is the rational 7/2: no bigint holds it, so the
    row stops the rounds, and they run again with the quotient exact (term
    text, connectors/spark_rounds/fractions.py), not in one task."""
    stats, model = check(spark, INTS, {"e": ints()})
    assert stats["ran_again"] == ["a row computed in Spark: (C / 2) is not a whole number (or divides by zero)"]
    assert ((2, Fraction(25, 2)), (2, 8, True, False)) in model.facts("half") and ((1, 6), (1, 2, True, True)) in model.facts("half")


def test_an_overflow_of_64_bit_integers_runs_the_rounds_again_in_decimals(spark):
    """2^62 + 2^62 is past 64-bit integers: never wrapped, the rounds stop
    and run again in decimal(38, 0), not in one task; past 38 digits (2^62
    cubed) one task computes it."""
    big = facts_to_arrow([((1, 2, 2**62), (0, 5, True, True)), ((2, 1, 2**62), (0, 5, True, True))], ["x", "y", "a"])
    stats, model = check(spark, "s(X, C) :- e(X, Y, A), e(Y, Z, B), C = A + B.\n", {"e": big})
    assert stats["ran_again"] == ["a row computed in Spark: (A + B) overflows 64-bit integers"]
    assert {c for (x, c), _ in model.facts("s")} == {2**63}
    stats, _ = check(spark, "s(X) :- e(X, Y, A), e(Y, Z, B), A * B > 0.\n", {"e": big})
    assert stats["ran_again"] == ["a row computed in Spark: (A * B) overflows 64-bit integers"]
    stats, _ = check(spark, "s(C) :- e(X, Y, A), e(Y, Z, B), C = sum(A).\n", {"e": big})
    assert stats["ran_again"] == ["a row computed in Spark: a sum beyond 64-bit integers"]
    fallback(spark, "s(X, C) :- e(X, Y, A), e(Y, Z, B), C = A * B * A.\n", big, r"\(\(A \* B\) \* A\) needs more digits than decimal\(38, 0\)")


def test_an_overflow_in_spark_goes_to_one_task_without_an_error_logged(spark, monkeypatch):
    """Spark's own arithmetic on the time codes overflows in ANSI mode
    (intervals near 2^62): the rounds stop and one task answers, and
    pyspark's ERROR record of the overflow (with the Java stack trace) is
    not logged for a fallback that succeeds."""
    import logging

    from pyspark.logger import PySparkLogger

    from chronolog.connectors.spark_rounds import inputs

    monkeypatch.setattr(inputs, "LITERAL_ROWS", 0)  # (a table held on the driver: its times refused there, before Spark)
    big = 2**62
    table = facts_to_arrow([((1, 2, 3), (big, 2 * big - 1, True, True)), ((2, 1, 4), (-big, 5, True, True)),
                            ((1, 3, 5), (0, 9, True, True)), ((3, 1, 6), (2, 4, True, True))], ["x", "y", "a"])
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    loggers = [PySparkLogger.getLogger(n) for n in ("SQLQueryContextLogger", "DataFrameQueryContextLogger")]
    for lg in loggers:
        lg.addHandler(handler)
    try:
        fallback(spark, "q(X, Z) :- e(X, Y, A), e(Y, Z, B).\n", table, r"relational rounds cannot run it: Spark arithmetic overflowed \(ARITHMETIC_OVERFLOW\)")
    finally:
        for lg in loggers:
            lg.removeHandler(handler)
    assert [r.getMessage() for r in records] == []


@pytest.mark.slow  # (bash test.sh --thorough)
def test_a_long_sum_runs_in_the_rounds(spark):
    """A sum of 24 terms in one expression, in bigint and in decimal runs:
    each checked addition writes its operands once, so the SQL grows with
    the terms (twice per level before: 12 terms ran Spark out of memory)."""
    terms = " + ".join(["A", "B"] * 12)
    prog = f"s(X, C) :- e(X, Y, A), e(Y, Z, B), C = {terms}.\nt(X) :- e(X, Y, A), e(Y, Z, B), {terms} > 40.\n"
    check(spark, prog, {"e": ints()})
    check(spark, prog, {"e": decimals()})


def test_an_expression_whose_sql_would_explode_goes_to_one_task(spark):
    """Float squarings chained through assignments: each reads its operand
    three times and Spark puts every assigned value in place of its
    column, so the SQL grows sixfold a step; beyond the limit the rounds
    refuse before Spark plans it (minutes at five steps, a driver out of
    memory later), and one task gives the engine's answers."""
    steps = ", ".join(f"F{i + 1} = F{i} * F{i}" for i in range(6))
    prog = f"s(X, F6) :- e(X, Y, A), e(Y, Z, B), F0 = float(A) / 8, {steps}.\n"
    fallback(spark, prog, ints(), r"an expression whose Spark SQL grows to [\d,]+ characters")


def test_a_division_by_zero_is_the_engines_error(spark):
    zero = facts_to_arrow([((1, 2, 0), (0, 5, True, True)), ((2, 1, 3), (0, 5, True, True))], ["x", "y", "a"])
    prog = "s(X, C) :- e(X, Y, A), e(Y, Z, B), C = B / A.\n"
    with pytest.warns(cs().DriverFallback, match="divides by zero"):
        with pytest.raises(chronolog.DataError, match="division by zero"):
            cs().reason(spark, prog, inputs={"e": zero}, distributed=True)


def test_a_check_is_kept_for_a_value_nothing_reads(spark):
    """``Z`` is read by nothing: Spark must still compute (and check) it,
    since the engine reports the row."""
    zero = facts_to_arrow([((1, 2, 0), (0, 5, True, True)), ((2, 1, 3), (0, 5, True, True))], ["x", "y", "a"])
    prog = "s(X) :- e(X, Y, A), e(Y, Z, B), C = B / A.\n"
    with pytest.warns(cs().DriverFallback, match="divides by zero"):
        with pytest.raises(chronolog.DataError, match="division by zero"):
            cs().reason(spark, prog, inputs={"e": zero}, distributed=True)


def test_a_product_with_more_decimals_than_the_run_runs_the_rounds_again_wider(spark):
    """A product of two 2-decimal numbers has 4 decimals; the run's numbers
    have 2: never rounded, the rounds stop and run again in decimals of 4
    (then 8: a product of that product), not in one task."""
    w = pa.array([Decimal("0.25"), Decimal("0.5"), Decimal("1.05")], pa.decimal128(4, 2))
    t = pa.table({"x": [1, 2, 3], "y": [2, 1, 1], "a": w, "start": [0, 0, 1], "end": [3, 3, 2]})
    stats, model = check(spark, "s(X, C) :- e(X, Y, A), e(Y, Z, B), C = A * B.\n", {"e": t})
    assert stats["ran_again"] == ["a row computed in Spark: (A * B) has more than 2 decimals"]
    assert {c for (x, c), _ in model.facts("s")} == {Fraction("0.125"), Fraction("0.2625")}
    stats, _ = check(spark, "s(X, D) :- e(X, Y, A), e(Y, Z, B), C = A * B, D = C * C + 1.\n", {"e": t})
    assert stats["ran_again"] == ["a row computed in Spark: (A * B) has more than 2 decimals",
                                  "a row computed in Spark: (C * C) has more than 4 decimals"]


def test_a_product_past_the_decimals_a_run_can_widen_to_goes_to_one_task(spark):
    """Decimals of 9 digits: their product's 18 are past the 17 a product
    of the run's numbers may have (decimal(38, 2S) holds it), so one task
    computes it exactly."""
    w = pa.array([Decimal("0.000000001"), Decimal("0.5")], pa.decimal128(12, 9))
    t = pa.table({"x": [1, 2], "y": [2, 1], "a": w, "start": [0, 0], "end": [3, 3]})
    fallback(spark, "s(X, C) :- e(X, Y, A), e(Y, Z, B), C = A * B.\n", t, r"\(A \* B\) has more than 9 decimals")


def test_a_quotient_of_decimals_beyond_the_run_runs_the_rounds_again_exact(spark):
    """0.25 / 4 is 0.0625, 0.5 / 3 is 1/6: more decimals than the run's 2,
    so the rounds run again with the quotient exact (term text)."""
    w = pa.array([Decimal("0.25"), Decimal("0.5")], pa.decimal128(4, 2))
    t = pa.table({"x": [1, 2], "y": [2, 1], "a": w, "start": [0, 0], "end": [3, 3]})
    stats, model = check(spark, "s(X, C, D) :- e(X, Y, A), e(Y, Z, B), C = A / 4, D = A / 3.\n", {"e": t})
    assert stats["ran_again"] == ["a row computed in Spark: (A / 4) has more than 2 decimals"]
    assert {terms for terms, _ in model.facts("s")} == {(1, Fraction(1, 16), Fraction(1, 12)), (2, Fraction(1, 8), Fraction(1, 6))}


@pytest.mark.parametrize("rule, why", [
    ('s(X, C) :- e(X, Y, A), e(Y, Z, B), C = round(A, 40).', r"round\(\) to digits other than a whole constant within 37"),
    ('s(X, C) :- e(X, Y, A), e(Y, Z, B), C = round(A, B).', r"round\(\) to digits other than a whole constant"),
    ('s(X, C) :- e(X, Y, A), e(Y, Z, B), C = A + B.\ns(X, C) :- <->[1,1] s(X, C), not e(X, X, C).', r"recursion through time"),
])
def test_functions_not_written_go_to_one_task_before_any_job(spark, rule, why):
    fallback(spark, rule + "\n", ints(), why)


def test_plan_names_the_path_for_arithmetic():
    from chronolog.api import load_program
    from chronolog.connectors.spark_rounds import describe
    from chronolog.planner import plan

    assert describe(plan(load_program(INTS))).startswith("seminaive rounds")
    assert "round() to digits other than a whole constant within 37 (round(A, Y))" in describe(plan(load_program("s(X, C) :- e(X, Y, A), C = round(A, Y).")))
    assert describe(plan(load_program("s(X, C) :- e(X, Y, A), C = log(A) + exp(A).\n"))).startswith("seminaive")
    assert describe(plan(load_program(INTS + "r(X, C) :- e(X, Y, A), e(Y, Z, B), C = round(A, -1).\n"))).startswith("seminaive")


@settings(max_examples=examples(12), deadline=None, suppress_health_check=list(HealthCheck))
@given(wide_cases(floats=False, templates=("cond", "arith", "arith", "join", "join", "negation", "temporal", "const_body")))
def test_wide_programs_with_arithmetic_equal_rows(spark, case):
    """The wide random programs of tests/strategies_wide.py with their
    arithmetic (sums, products and quotients of integers and decimals,
    abs/min/max/floor/round, float()) with
    ``distributed=True``: whatever path each takes (rounds, keyed tasks,
    the driver), the row executor's answers or its error."""
    from test_spark_differential import arrow_inputs
    from test_spark_differential import canon as canon_rows

    inputs = arrow_inputs(case)
    if inputs is None:
        return  # (Arrow holds a given 1/3, or a column mixing kinds, as text: documented)
    facts, tables = inputs
    try:
        model = chronolog.reason(case.program, facts, engine="rows", horizon=case.horizon)
    except chronolog.ChronologError as e:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(type(e)):
                out = cs().reason(spark, case.program, inputs=tables, horizon=case.horizon, outputs=case.idb, distributed=True)
                for df in out.values():
                    df.collect()
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = cs().reason(spark, case.program, inputs=tables, horizon=case.horizon, outputs=case.idb, distributed=True)
    for p, df in out.items():
        got = canon_rows(table_to_rows(df.toArrow(), p))
        assert got == canon_rows(table_to_rows(model.to_arrow(p), p)), f"{case}\n{p}"


# A variable assigned twice, first from a value of no known class (z holds
# nothing, so its column has none) and then from a number or a string:
# infer_classes skipped the unknown class and took the second, body_classes
# kept None; they share one rule now (classes._assigned), and on every use
# of the classes (aggregates, string codes, head intervals, joins,
# negation) the rounds give the embedded engine's answers.
TWICE_ASSIGNED = [
    "z(X, W) :- e(X, W), X > 100.\nq(X, Y) :- e(X, A), e(A, C), z(C, B), Y = B + 1, Y = 3.\nr(X, Y) :- e(X, A), e(A, C), Y = C * 1, Y = 2.",
    "s(X, N) :- e(X, A), e(A, C), Y = C + 1, Y = 3, N = count().\nt(X) :- e(X, A), e(A, C), Y = C * 2, Y > 2.",
    "z(X, W) :- e(X, W), X > 100.\nu(X, S) :- e(X, A), e(A, C), not z(X, A), Y = C + 1, Y = 3, S = sum(Y).",
    "z(X, W) :- e(X, W), X > 100.\nu(X, S) :- e(X, A), e(A, C), z(C, B), Y = B, Y = 3, S = sum(Y).",
    "z(X, W) :- e(X, W), X > 100.\nv(X, Y) :- e(X, A), e(A, C), z(C, B), Y = B, Y = \"a\".",
    "z(X, W) :- e(X, W), X > 100.\nw(X, S) :- e(X, A), e(A, C), z(C, B), Y = B + 1, Y = 3, S = max(Y).",
    "w(X, S) :- e(X, A), e(A, C), Y = C, Y = A, S = count().",
    "z(X, W) :- e(X, W), X > 100.\nh(X)@[S, E] :- e(X, A), e(A, C), z(C, B), S = B, S = 1, E = 4.",
    "h(X)@[S, E] :- e(X, A), e(A, C), S = A * 1, S = C - C + A, E = S + 3.",
]


@pytest.mark.parametrize("program", TWICE_ASSIGNED)
def test_a_variable_assigned_first_from_no_known_class(spark, program):
    e = facts_to_arrow([((1, 2), (0, 5, True, True)), ((2, 3), (2, 8, True, False)), ((3, 1), (1, 9, True, True))], ["x", "y"])
    check(spark, program, {"e": e})


def test_decimals_of_more_than_34_digits_negate_exactly(spark):
    """A sum along the segments subtracts each binding's value where it
    ends, and ``abs`` negates: Spark's unary minus and ``abs`` of a
    decimal round it to 34 digits (Scala's default MathContext), so a value
    of 35 digits (scale 12) left 2.499999999998 where only 2.5 holds, and
    its magnitude lost its last digits; both are exact, the engine's."""
    big = Decimal("-12345678901234567890123.123456789012")
    table = pa.table({"k": ["a", "a"], "v": pa.array([big, Decimal("2.5")], pa.decimal128(38, 12)),
                      "start": [0, 1], "end": [2, 3]})
    prog = """total(K, S) :- m(K, V), S = sum(V).
mag(K, A) :- m(K, V), A = abs(V).
count(N) :- m(K, V), N = count().
"""
    _, model = check(spark, prog, {"m": table}, ["total", "mag"])
    assert (("a", Fraction(5, 2)), (2, 3, False, True)) in model.facts("total")
