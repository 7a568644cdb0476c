"""Interval terms in the relational rounds
(connectors/spark_rounds/interval_terms.py) against the embedded engine on
the same facts (marked ``spark``; a few random inputs, Spark is slow)."""

import warnings
from decimal import Decimal

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chronolog
from chronolog.connectors.arrow import facts_to_arrow, table_to_rows
from chronolog.language.booleans import terms as as_terms
from chronolog.language.timeline import NEG_INF, POS_INF, coalesce

pytestmark = pytest.mark.spark

# a rule joining facts of different keys: the program has no partition key
NO_KEY = "far(X, Z) :- a(X, Y), a(Y, Z).\n"

PROGRAM = NO_KEY + """
ends(X, S, E) :- a(X, Y)@[S, E].
moved(X)@[S, E) :- a(X, Y)@[S, E2], b(X, E).
span(X)@(S, E] :- b(X, S), b(Y, E), X != Y.
after(X, S) :- <->[0,1] a(X, Y)@[S, E], S >= 2.
@output("ends"). @output("moved"). @output("span"). @output("after").
"""


def cs():
    from chronolog.connectors import spark

    return spark


def canon(facts):
    atoms = {}
    for terms, iv in facts:
        atoms.setdefault(as_terms(terms), []).append(iv)
    return {(t, iv) for t, ivs in atoms.items() for iv in coalesce(ivs)}


def check(spark, program, tables: dict, **kw):
    rows = {p: table_to_rows(t, p) for p, t in tables.items()}
    model = chronolog.reason(program, rows, **kw)
    stats = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", cs().DriverFallback)
        out = cs().reason(spark, program, inputs=tables, distributed=True, stats=stats, **kw)
    assert stats.get("path") == "relational"
    for p, df in out.items():
        assert canon(table_to_rows(df.toArrow(), p)) == canon(model.facts(p)), p
    return model


@st.composite
def cases(draw):
    def facts(arity, hi):
        out = []
        for _ in range(draw(st.integers(1, 6))):
            terms = tuple(draw(st.integers(0, hi)) for _ in range(arity))
            lo, d = draw(st.integers(-2, 8)), draw(st.integers(0, 4))
            lc, hc = draw(st.booleans()), draw(st.booleans())
            out.append((terms, (lo, lo + d, lc or d == 0, hc or d == 0)))
        return out

    b = [((x, t), iv) for (x, t), iv in facts(2, 2)]
    b = [((x, t * 3 - 2), iv) for (x, t), iv in b]
    return facts_to_arrow(facts(2, 2), ["x", "y"]), facts_to_arrow(b, ["x", "t"])


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(cases())
def test_random_interval_terms_equal_embedded(spark, case):
    """Maximal intervals' ends as terms (open and closed ends give the
    same numbers), after a diamond, compared in a condition; heads placed
    on intervals from terms with each kind of end, empty ones dropped."""
    a, b = case
    check(spark, PROGRAM, {"a": a, "b": b})


def test_decimal_ends_on_the_grid(spark):
    a = pa.table({"x": [1, 2], "y": [2, 1],
                  "start": pa.array([Decimal("0.5"), Decimal("1.25")], pa.decimal128(6, 2)),
                  "end": pa.array([Decimal("2"), Decimal("3.75")], pa.decimal128(6, 2))})
    b = pa.table({"x": [1, 2], "t": pa.array([Decimal("1.5"), Decimal("0.25")], pa.decimal128(6, 2)),
                  "start": [0, 0], "end": [4, 4]})
    model = check(spark, PROGRAM, {"a": a, "b": b})
    assert canon(model.facts("ends"))


def test_unbounded_end_as_a_term_goes_to_the_driver(spark):
    """The engine's term for an unbounded end is a float infinity, which
    this path has no column for: the run goes to the driver."""
    a = facts_to_arrow([((1, 2), (0, POS_INF, True, False)), ((2, 1), (NEG_INF, 1, False, True))], ["x", "y"])
    prog = NO_KEY + 'ends(X, S, E) :- a(X, Y)@[S, E].\n@output("ends").'
    with pytest.warns(cs().DriverFallback, match="an unbounded end as a term"):
        cs().reason(spark, prog, inputs={"a": a}, distributed=True)


def test_plan_names_the_path():
    from chronolog.connectors.spark_rounds import describe
    from chronolog.planner import plan as make_plan

    assert "seminaive rounds" in describe(make_plan(chronolog.load_program(PROGRAM)))
    text = describe(make_plan(chronolog.load_program(NO_KEY + "at(X, T) :- a(X, Y)@T.")))
    assert text.startswith("on the driver") and "time capture" in text
