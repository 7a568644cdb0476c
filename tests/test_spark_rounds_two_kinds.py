"""Arguments holding two kinds of terms in Spark's relational rounds (no
key): the program's facts mixing kinds in one argument, two rules' heads
giving one argument numbers and strings (or booleans, dates, timestamps),
and a variable joining floats with exact numbers.  Such an argument is
term text (classes.TEXT): the facts' key texts written on the driver, a
rule's typed value written as its key text by SQL
(terms.TermTypes.key_text_sql), an input's column keyed at its load, so
joins on it compare keys, as exactly as the engine's equality.
Each program went to one Spark task before; each asserts the rounds'
path and the embedded engine's model (the oracle), read back from the
marked outputs (marked ``spark``)."""

import warnings
from datetime import date, datetime
from decimal import Decimal

import pyarrow as pa
import pytest
from budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chronolog
from chronolog.engine.arrow import table_to_rows

from test_spark_rounds import cs

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("rounds")]  # the rounds, not one task (conftest.py)


def run(spark, program, tables: dict, outputs):
    """``(path, fallback warnings)`` of the rounds, each output's facts
    asserted equal to the embedded model's (by the engine's equality)."""
    rows = {p: table_to_rows(t, p) for p, t in tables.items()}
    model = chronolog.reason(program, rows)
    stats = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", cs().DriverFallback)
        out = cs().reason(spark, program, inputs=tables, distributed=True, stats=stats, outputs=outputs)
    falls = [str(w.message) for w in caught if issubclass(w.category, cs().DriverFallback)]
    for p in outputs:
        got, want = table_to_rows(out[p].toArrow(), p), table_to_rows(model.to_arrow(p), p)
        assert set(got) == set(want) and len(set(got)) == len(got), p
    assert all(model.to_arrow(p).num_rows for p in outputs), {p: model.to_arrow(p).num_rows for p in outputs}  # (every rule derives)
    return stats.get("path"), falls


def rounds_ran(spark, program, tables, outputs):
    path, falls = run(spark, program, tables, outputs)
    assert path == "relational" and not falls, (path, falls)


R = pa.table({"k": pa.array([1, 2, 3]), "start": [0, 0, 0], "end": [9, 9, 9]})
FACTS = """p(1)@[0,3]. p("a")@[0,3]. p(a)@[1,4]. p(#T)@[0,2]. p(2.5)@[0,5]. p("x\\ny")@[0,1]. p(3.0)@[2,6]. p("3")@[0,9].
q(X) :- p(X), r(X).
k(X) :- p(X), X == 1.
all(X) :- p(X).
cross(X, Y) :- p(X), r(Y), X != Y.
@output("q"). @output("k"). @output("all"). @output("cross").
"""


def test_program_facts_of_two_kinds_join_in_the_rounds(spark):
    """``p(1). p("a"). ...``: the facts' argument is term text, so ``3.0``
    joins the input's ``3`` and the string ``"3"`` does not; a constant
    and a typed variable compare with it by key."""
    rounds_ran(spark, FACTS, {"r": R}, ["q", "k", "all", "cross"])


def test_many_program_facts_of_two_kinds_load_as_a_dataframe(spark):
    """More facts than a literal relation holds: a DataFrame of their key texts."""
    facts = "".join(f"p({i})@[0,3]. p(\"s{i}\")@[1,4]. " for i in range(80))
    rounds_ran(spark, facts + "\n" + FACTS, {"r": R}, ["q", "k", "all", "cross"])


STRINGS = ["a", "2", 'q"r\\s', "abc\n", "not", "inf", "Abc", "é\u2028x", "tab\there", "b_1", "", "\x85\x0b"]
HEADS = """v(X) :- a(K, X).
v(X) :- b(K, X).
w(Y) :- a(K, X), Y = X + 1.
w(Y) :- b(K, S), Y = concat(S, "").
j(K, X) :- w(X), c(K, X).
cross(X, Y) :- a(K, X), c(L, Y), X != Y.
@output("v"). @output("w"). @output("j"). @output("cross").
"""


def test_two_rules_heads_of_numbers_and_strings(spark):
    """Numbers from one rule, strings from another, in one argument:
    copied (the head writes its column's key text), computed (``X + 1``,
    ``concat``), joined with an input's column keyed at its load; strings
    that print bare, quoted, escaped (quotes, backslashes, line breaks,
    reserved words)."""
    a = pa.table({"k": ["x", "y", "z"], "n": pa.array([1, 2, -7]), "start": [0, 1, 2], "end": [5, 5, 5]})
    n = len(STRINGS)
    b = pa.table({"k": [f"k{i}" for i in range(n)], "s": STRINGS, "start": [0] * n, "end": [5] * n})
    c = pa.table({"k": ["m", "n", "o", "p", "q"], "s": ["2", "a", "abc\n", 'q"r\\s', "3"], "start": [0] * 5, "end": [5] * 5})
    rounds_ran(spark, HEADS, {"a": a, "b": b, "c": c}, ["v", "w", "j", "cross"])


def test_decimals_booleans_dates_and_timestamps_beside_strings(spark):
    """Each kind's key text as SQL writes it: decimals without trailing
    zeros (``-0.5``, ``100``, ``0``), ``#T``/``#F``, dates (year 1 too),
    timestamps (``T``, microseconds padded to six digits, a midnight as
    its date), against the same terms given as the program's facts."""
    n = 5
    d = pa.table({"k": [f"k{i}" for i in range(n)],
                  "x": pa.array([Decimal("-0.500"), Decimal("100.000"), Decimal("0.000"), Decimal("2.125"), Decimal("7.000")],
                                pa.decimal128(10, 3)),
                  "t": pa.array([True, False, True, False, True]),
                  "dt": pa.array([date(2024, 1, 1), date(1, 1, 1), date(999, 3, 4), date(2024, 2, 29), date(9999, 12, 31)]),
                  "ts": pa.array([datetime(2024, 1, 1, 10, 0, 0, 500), datetime(2024, 1, 2), datetime(1, 1, 1, 0, 0, 1),
                                  datetime(2024, 3, 10, 2, 30), datetime(2024, 1, 1, 23, 59, 59, 999999)], pa.timestamp("us")),
                  "start": [0] * n, "end": [5] * n})
    program = """m(Y) :- d(K, X, T, D, S), Y = X.
m(Y) :- d(K, X, T, D, S), Y = T.
m(Y) :- d(K, X, T, D, S), Y = D.
m(Y) :- d(K, X, T, D, S), Y = S.
m(s) :- d(K, X, T, D, S).
hit(Y) :- m(Y), given(Y).
GIVEN
@output("m"). @output("hit").
"""
    given = ["-0.5", "100", "0", "2.125", "#F", "2024-01-01", "0001-01-01", "9999-12-31", "2024-01-02", "s", '"7"']
    rounds_ran(spark, program.replace("GIVEN", " ".join(f"given({g})@[0,9]." for g in given)), {"d": d}, ["m", "hit"])
    given += ["2024-01-01T10:00:00.000500", "2024-03-10T02:30:00", "0001-01-01T00:00:01"]
    again = program.replace("GIVEN", " ".join(f"given({g})@[0,9]." for g in given))
    rounds_ran(spark, again, {"d": d}, ["m", "hit"])


def test_a_float_computed_for_term_text_is_written_as_the_engines_key_text(spark):
    """A float's key text (its exact binary value, or Python's shortest
    text: ``float(0.1)``) has no SQL: a head of term text takes a float a
    rule computes as the engine's own key_text of it (a UDF), beside the
    strings of another rule, as the engine's answers; it went to one task."""
    a = pa.table({"k": ["x", "y", "z"], "n": pa.array([1, 2, 20]), "start": [0, 1, 2], "end": [5, 5, 5]})
    b = pa.table({"k": ["x"], "s": ["a"], "start": [0], "end": [5]})
    program = "v(X) :- b(K, X).\nv(Y) :- a(K, X), Y = float(X) / 10.\ncross(X, Y) :- v(X), a(K, Y), X != Y.\n@output(\"v\")."
    rounds_ran(spark, program, {"a": a, "b": b}, ["v"])


def test_input_floats_beside_strings_are_keyed_at_their_load(spark):
    """Floats copied from an input into an argument of term text: the
    input column keyed at its load (engine/term_types.key_text), as the
    engine finds them equal: ``0.1`` the float is not ``1/10``."""
    f = pa.table({"k": ["x", "y", "z", "u"], "v": pa.array([0.1, 1.0, 2.5, -0.0]), "start": [0] * 4, "end": [5] * 4})
    b = pa.table({"k": ["x"], "s": ["a"], "start": [0], "end": [5]})
    program = """v(X) :- b(K, X).
v(X) :- f(K, X).
hit(X) :- v(X), n(X).
cross(X, Y) :- v(X), b(K, Y), X != Y.
n(0.1)@[0,9]. n(1)@[0,9]. n(5/2)@[0,9]. n(0)@[0,9]. n(a)@[0,9].
@output("v"). @output("hit").
"""
    rounds_ran(spark, program, {"f": f, "b": b}, ["v", "hit"])


FLOATS = pa.table({"k": [f"f{i}" for i in range(8)],
                   "v": pa.array([0.1, 1.0, 2.0**60, 1e300, -0.0, 2.5, 9007199254740992.0, 0.30000000000000004]),
                   "start": [0] * 8, "end": [5] * 8})
EXACT = pa.table({"k": [f"n{i}" for i in range(6)], "v": pa.array([1, 2**60, 2**60 + 1, 0, 9007199254740993, 9007199254740992]),
                  "start": [1] * 6, "end": [6] * 6})
DECIMALS = pa.table({"k": ["d0", "d1", "d2", "d3"], "v": pa.array([Decimal("0.1"), Decimal("2.5"), Decimal("1.0"), Decimal("0.3")],
                                                                    pa.decimal128(20, 1)), "start": [0] * 4, "end": [9] * 4})
JOINS = """j(K, L) :- m(K, V), n(L, V).
jd(K, L) :- m(K, V), d(L, V).
x(K) :- m(K, V), not n(L, V).
both(V) :- m(K, V), n(L, V).
@output("j"). @output("jd"). @output("x"). @output("both").
"""


def test_a_variable_joins_floats_with_exact_numbers_by_their_values(spark):
    """A join and a negation of a float column with exact numbers: by the
    engine's equality, a float equal to the exact number of its value:
    ``1.0`` = ``1``, ``-0.0`` = ``0``, ``2.0^60`` = ``2^60`` but not
    ``2^60 + 1``, ``2.0^53`` not ``2^53 + 1``, the float ``0.1`` not the
    decimal ``0.1`` (1/10), ``1e300`` no number of 38 digits."""
    rounds_ran(spark, JOINS, {"m": FLOATS, "n": EXACT, "d": DECIMALS}, ["j", "jd", "x", "both"])


def test_a_nan_joined_with_exact_numbers_is_the_engines_error(spark):
    """A NaN float: the engine refuses the row, so do the rounds (one task reports it)."""
    m = pa.table({"k": ["a", "b"], "v": pa.array([1.0, float("nan")]), "start": [0, 0], "end": [5, 5]})
    with pytest.raises(chronolog.DataError, match="NaN"):
        chronolog.reason(JOINS, {"m": m, "n": EXACT, "d": DECIMALS})
    with pytest.warns(cs().DriverFallback, match="a NaN"):
        with pytest.raises(chronolog.DataError, match="NaN"):
            cs().reason(spark, JOINS, inputs={"m": m, "n": EXACT, "d": DECIMALS}, distributed=True)


def test_a_decimal_that_may_be_a_floats_value_stops_the_rounds(spark):
    """key_text writes an exact number that is a float's binary value with
    a shorter float text as that float (``1234567 + 2^-12``
    is ``float(1234567.0002441406)``); SQL does not tell it from another
    decimal of more than 15 digits ending in 5, so such a row in a column
    of term text stops the rounds, named, and one task gives the engine's
    answers; fewer digits run in the rounds."""
    program = "v(Y) :- e(K, X), Y = X.\nv(Y) :- b(K, Y).\ncross(X, Y) :- v(X), b(K, Y), X != Y.\n@output(\"v\"). @output(\"cross\")."
    b = pa.table({"k": ["x"], "s": ["a"], "start": [0], "end": [5]})
    e = pa.table({"k": ["p", "q"], "x": pa.array([Decimal("1234567.000244140625"), Decimal("2.5")], pa.decimal128(38, 12)),
                  "start": [0, 0], "end": [5, 5]})
    path, falls = run(spark, program, {"e": e, "b": b}, ["v", "cross"])
    assert path != "relational" and "a decimal of more than 15 significant digits ending in 5 as term text" in falls[0], falls
    e = pa.table({"k": ["p", "q", "r"], "x": pa.array([Decimal("0.000244140625"), Decimal("2.5"), Decimal("1234567.123456789012")],
                                                       pa.decimal128(38, 12)), "start": [0, 0, 0], "end": [5, 5, 5]})
    rounds_ran(spark, program, {"e": e, "b": b}, ["v", "cross"])


# the terms of each class as Spark holds them in a run, with the engine's term of each
_TEXTS = st.text(st.sampled_from(list("aZ_09 \"\\\n\r\t\x0b\x0c\x1c\x85\u2028\u2029é{}#.-")), max_size=6) | st.sampled_from(
    ["not", "inf", "infty", "nota", "a\n", "abc", ""])
_DECIMALS = st.decimals(min_value=-10**25, max_value=10**25, places=12, allow_nan=False, allow_infinity=False)
_INSTANTS = st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59, 999999))


@pytest.mark.parametrize("kind", ["str", "bigint", "decimal", "bool", "date", "timestamp"])
def test_random_terms_key_text_in_sql_is_key_texts(spark, kind):
    """TermTypes.key_text_sql on random terms of each class, in the
    session's time zone and in one with daylight saving, against
    engine/term_types.key_text of the engine's term: the same text, or a
    row the SQL stops (a decimal that may be a float's value)."""
    from pyspark.sql import types as T

    from chronolog.connectors.spark_rounds.terms import TermTypes
    from chronolog.connectors.spark_rounds.udfs import engine_value
    from chronolog.engine.term_types import instant, key_text

    num = T.DecimalType(38, 12) if kind == "decimal" else T.LongType()
    cls = {"str": "str", "bigint": "num", "decimal": "num", "bool": "bool", "date": "date", "timestamp": "timestamp"}[kind]
    typ = {"str": T.StringType(), "bigint": T.LongType(), "decimal": num, "bool": T.BooleanType(), "date": T.DateType(),
           "timestamp": T.TimestampNTZType()}[kind]
    values = {"str": _TEXTS, "bigint": st.integers(-(2**63), 2**63 - 1), "decimal": _DECIMALS, "bool": st.booleans(),
              "date": _INSTANTS.map(lambda d: d.date()), "timestamp": _INSTANTS | _INSTANTS.map(lambda d: d.replace(hour=0, minute=0,
                                                                                                                 second=0, microsecond=0))}[kind]

    @settings(max_examples=examples(10), deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(values, min_size=1, max_size=30))
    def check(xs):
        sql = TermTypes({}, num).key_text_sql("x", cls)
        df = spark.createDataFrame([(x,) for x in xs], T.StructType([T.StructField("x", typ)]))
        for zone in ("UTC", "America/New_York"):
            spark.conf.set("spark.sql.session.timeZone", zone)
            try:
                got = [r[0] for r in df.selectExpr(f"{sql} AS k").collect()]
            except Exception as e:  # noqa: BLE001 - a row the SQL stops: only a decimal that may be a float's value
                assert kind == "decimal" and "ending in 5 as term text" in str(e), e
                continue
            finally:
                spark.conf.set("spark.sql.session.timeZone", "UTC")
            want = [key_text(instant(x) if kind in ("date", "timestamp") else engine_value(x)) for x in xs]
            assert got == want, (zone, xs)

    check()
