"""Nested checked arithmetic in the relational rounds
(connectors/spark_rounds/arithmetic.py): each operand of a checked
operation written once, so an expression's SQL grows linearly with its
depth, and its answers and refusals are the embedded engine's (marked
``spark``)."""

import warnings
from decimal import Decimal
from fractions import Fraction

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.engine.arrow import table_to_rows
from chronolog.language import ast

from test_spark_rounds import canon, cs

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("rounds")]


def arithmetic(spark, scale):
    from pyspark.sql import types as T

    from chronolog.connectors.spark_rounds.arithmetic import Arithmetic
    from chronolog.connectors.spark_rounds.terms import TermTypes

    return Arithmetic(TermTypes({}, T.LongType() if scale is None else T.DecimalType(38, scale)), spark)


def chain(depth: int):
    """An expression nested ``depth`` levels, each a checked operation
    (product, exact quotient, sum, mod, difference, abs) of the level
    below and a variable: its text grows linearly with the depth."""
    a, b = ast.Var("A"), ast.Var("B")
    e = ast.BinOp("*", a, b)
    levels = [lambda e: ast.BinOp("/", e, b), lambda e: ast.BinOp("*", e, a), lambda e: ast.Call("mod", (e, b)),
              lambda e: ast.BinOp("-", a, e), lambda e: ast.BinOp("*", b, e), lambda e: ast.Call("abs", (e,)),
              lambda e: ast.BinOp("+", e, b)]
    for i in range(depth - 1):
        e = levels[i % len(levels)](e)
    return e


@pytest.mark.parametrize("scale", [None, 2])
def test_a_nested_expressions_sql_is_linear_in_its_depth(spark, scale):
    """Twenty levels: each adds to the SQL at most a constant and its
    refusal messages, which quote the level's expression (with each operand
    written in place, the SQL multiplied by 3-4 a level, and was refused
    beyond 100,000 characters)."""
    from chronolog.connectors.spark_rounds.classes import NUM

    arith = arithmetic(spark, scale)
    sizes = [0]
    for depth in range(1, 21):
        e = chain(depth)
        sql, _ = arith.sql(e, {"A": "a", "B": "b"}, {"A": NUM, "B": NUM}, None)
        sizes.append(len(sql))
        assert sizes[-1] - sizes[-2] <= 2 * sizes[1] + 24 * len(str(e)), (depth, sizes)


def exprs():
    leaf = st.sampled_from([ast.Var("A"), ast.Var("B"), ast.Const(3), ast.Const(-2), ast.Const(Fraction(1, 4))])

    def node(children):
        binop = st.builds(ast.BinOp, st.sampled_from("+-*/"), children, children)
        call = st.builds(lambda n, x, y: ast.Call(n, (x, y) if n in ("mod", "min", "max") else (x,)),
                         st.sampled_from(["abs", "min", "max", "mod", "floor", "ceil"]), children, children)
        return binop | call

    return st.recursive(leaf, node, max_leaves=8)


BIG = 2**62 + 5


def table(decimal: bool):
    rows = [(1, 2, 6), (2, 1, -4), (2, 3, 2), (3, 1, BIG), (3, 3, 7)]
    if decimal:
        a = pa.array([Decimal(v) / 4 for _, _, v in rows], pa.decimal128(38, 2))
    else:
        a = pa.array([v for _, _, v in rows], pa.int64())
    return pa.table({"x": [r[0] for r in rows], "y": [r[1] for r in rows], "a": a,
                     "start": [0, 1, 2, 0, 3], "end": [10, 10, 10, 4, 8]})


def fits(v, decimal: bool) -> bool:
    """Whether the engine's value ``v`` is a value of the run's number type."""
    if decimal:
        return (v * 100).denominator == 1 and abs(v * 100) < 10**38
    return Fraction(v).denominator == 1 and -(2**63) <= v < 2**63


@settings(max_examples=examples(10), deadline=None, suppress_health_check=list(HealthCheck))
@given(e=exprs(), decimal=st.booleans())
@example(e=ast.Const(Fraction(1, 4)), decimal=False)  # (0.25: the run's numbers have 2 decimals)
@example(e=ast.BinOp("/", ast.Var("A"), ast.Const(3)), decimal=False)  # (2: the rounds run again, exact)
def test_nested_expressions_answer_or_refuse_as_the_engine(spark, e, decimal):
    """Drawn nested expressions over bigint or decimal(38, 2) values, one
    of them near 2^62 so that products overflow: the rounds' answers are
    the engine's, and a row whose value the run's numbers cannot hold
    stops the rounds: they run again in numbers that hold it, or one task
    answers.  The run's numbers are the input's and the constants': 1/4
    makes a run of integers one of 2 decimals."""
    t = table(decimal)
    prog = f's(X, C) :- e(X, Y, A), e(Y, Z, B), C = {e}.\n@output("s").\n'
    try:
        model = chronolog.reason(prog, {"e": table_to_rows(t, "e")})
    except chronolog.DataError:  # (a division by zero): the same error after the fallback
        with pytest.raises(chronolog.DataError):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", cs().DriverFallback)
                cs().reason(spark, prog, inputs={"e": t}, distributed=True)
        return
    stats = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", cs().DriverFallback)
        out = cs().reason(spark, prog, inputs={"e": t}, distributed=True, stats=stats)
    fell_back = any(issubclass(w.category, cs().DriverFallback) for w in caught)
    facts = model.facts("s")
    assert canon(table_to_rows(out["s"].toArrow(), "s")) == canon(facts)
    quarters = any(isinstance(x, ast.Const) and x.value == Fraction(1, 4) for x in ast.subexpressions(e))
    if any(not fits(terms[1], decimal or quarters) for terms, _ in facts):
        assert fell_back or stats.get("ran_again"), ([terms for terms, _ in facts], stats)
