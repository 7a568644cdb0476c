"""Arrow and pandas exchange: exact values both ways."""

from decimal import Decimal
from fractions import Fraction

import pyarrow as pa
import pytest
import test_spark_rounds_random_terms as random_terms  # (its strategies; its tests run there, marked spark)
from budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chronolog

PROGRAM = "q(X, V) :- p(X, V).\n"
FACTS = 'p(a, 1)@[0,10).\np("b c", 2.5)@(-inf, 1/3].\np(d, 7)@[1.25, +inf).\n'


def test_to_arrow_layout_and_exact_values():
    m = chronolog.reason(PROGRAM + FACTS)
    t = m.to_arrow("q")
    assert t.schema.names == ["c0", "c1", "start", "end", "start_closed", "end_closed"]
    # each column takes the narrowest exact type: 1/3 has no finite decimal
    # expansion, so that column falls back to exact text
    assert pa.types.is_string(t.schema.field("end").type)
    assert t.column("end").to_pylist() == ["10", "1/3", None]
    assert pa.types.is_decimal(t.schema.field("start").type)
    assert t.column("start").to_pylist() == [Decimal("0.00"), None, Decimal("1.25")]
    assert t.column("start_closed").to_pylist() == [True, False, True]
    assert t.column("end_closed").to_pylist() == [False, True, False]
    assert t.column("c1").to_pylist() == [Decimal("1.0"), Decimal("2.5"), Decimal("7.0")]


def test_integer_times_are_int64():
    m = chronolog.reason("q(X) :- p(X).\np(a)@[1,2).\np(b)@5.\n")
    t = m.to_arrow("q")
    assert t.schema.field("start").type == pa.int64()
    assert t.to_pylist() == [
        {"c0": "a", "start": 1, "end": 2, "start_closed": True, "end_closed": False},
        {"c0": "b", "start": 5, "end": 5, "start_closed": True, "end_closed": True},
    ]


def test_arrow_round_trip_gives_the_same_facts():
    m = chronolog.reason(PROGRAM + FACTS)
    back = chronolog.reason("r(X, V) :- q(X, V).", {"q": m.to_arrow("q")})
    assert back.facts("r") == m.facts("q")
    assert back.facts("r")[1] == (("b c", Fraction(5, 2)), (float("-inf"), Fraction(1, 3), False, True))


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_a_number_past_a_finite_decimal_is_marked_term_text_on_both_executors(engine):
    """A term column holding 1/3 is text, marked as term text so that it
    reads back as the numbers (with 2 beside it): the columns wrote the
    text unmarked, so to_arrow read back the strings "1/3" and "2"
    (found by comparing the two executors on a min over term text)."""
    from chronolog.engine.arrow import table_to_rows, term_text_names

    m = chronolog.reason("p(1/3)@[0,1]. p(2)@[0,1]. q(Y) :- p(X), Y = X / 1.\nm(M) :- p(X), M = min(X).\n"
                         '@output("q"). @output("m").', engine=engine)
    for pred in ("q", "m"):
        t = m.to_arrow(pred)
        assert term_text_names(t) == ["c0"], pred
        assert sorted(table_to_rows(t, pred)) == sorted(m.facts(pred)), pred
    assert [t for t, _ in m.facts("q")] == [(Fraction(1, 3),), (2,)]
    back = chronolog.reason("r(X) :- q(X), X < 1.", {"q": m.to_arrow("q")}, engine=engine)
    assert back.to_text() == "r(1/3)@[0,1]"


def test_pandas_in_and_out():
    m = chronolog.reason(PROGRAM + FACTS)
    df = m.to_pandas("q")
    # typed columns (issue: notebooks and dataframes): rationals as floats, the exact value beside them
    assert list(df.columns) == ["c0", "c1", "c1_exact", "start", "start_exact", "end", "end_exact", "start_closed", "end_closed"]
    assert df["end_exact"].tolist()[:2] == ["10", "1/3"] and df["c1"].dtype == "float64"
    back = chronolog.reason("r(X, V) :- q(X, V).", {"q": df})
    assert back.facts("r") == m.facts("q")


def test_float_time_columns_are_the_numbers_they_show():
    from fractions import Fraction

    t = pa.table({"c0": ["a"], "start": pa.array([0.1]), "end": pa.array([1.0])})
    assert chronolog.reason("r(X) :- q(X).", {"q": t}).facts("r") == [(("a",), (Fraction(1, 10), 1, True, True))]
    t = pa.table({"c0": ["a"], "start": pa.array([0.1]), "end": pa.array([float("nan")])})
    with pytest.raises(chronolog.DataError, match=r"column end is NaN in the row c0='a', start=0\.1, end=nan, which"):
        chronolog.reason("r(X) :- q(X).", {"q": t})


def test_times_whose_digits_together_pass_38_stay_exact():
    # 10**30 and 1/10**22 are each under 38 characters, but one decimal128
    # column holding both needs 31 + 22 digits: to_arrow raised Arrow's
    # "Decimal type with precision ... does not fit"; text keeps them exact
    m = chronolog.reason("r(X) :- q(X).\nq(b)@[-9223372036854775809, 1000000000000000000000000000000).\n"
                         "q(a)@[1/10000000000000000000000, 1].\nq(c)@[-1/8, 2**63].".replace("2**63", str(2**63)))
    t = m.to_arrow("r")
    def exact(v):
        return Fraction(str(v)) if v is not None else None
    got = sorted((row["c0"], exact(row["start"]), exact(row["end"])) for row in t.to_pylist())
    assert got == [("a", Fraction(1, 10**22), Fraction(1)), ("b", Fraction(-(2**63) - 1), Fraction(10**30)),
                   ("c", Fraction(-1, 8), Fraction(2**63))]


def test_a_predicate_without_facts_gives_a_typed_empty_table(executor):
    """docs/api.md, "Arrow and pandas layout": argument columns int64
    whatever @mapping says (a column's type comes from its values), time
    columns as the timeline is."""
    program = '@mapping("q", 0, "name", "string").\n@timeGranularity("days").\nq(X) :- p(X), r(X).\np(a)@2020-01-01.\n'
    m = chronolog.reason(program)
    t = m.to_arrow("q")
    assert t.num_rows == 0 and [str(f.type) for f in t.schema] == ["int64", "date32[day]", "date32[day]", "bool", "bool"]
    assert [str(d) for d in m.to_pandas("q").dtypes] == ["Int64", "datetime64[ms]", "datetime64[ms]", "bool", "bool"]


@settings(deadline=None, max_examples=examples(100), suppress_health_check=list(HealthCheck))
@given(random_terms.tables(), random_terms.programs())
def test_rows_and_columns_give_one_arrow_table_over_instants_and_term_text(inputs, prog):
    """The random programs of the Spark rounds' test (dates, timestamps,
    term text; joins, negation, comparisons, min/max, count) on the two
    executors: the same facts read back from to_arrow, in columns of the
    same types, or the same error."""
    from chronolog.engine.arrow import table_to_rows

    def run(engine):
        try:
            m = chronolog.reason(prog, inputs, engine=engine)
        except chronolog.ChronologError as e:
            return e.render()
        tables = {p: m.to_arrow(p) for p in m.output_predicates}
        return {p: (sorted(map(repr, table_to_rows(t, p))), t.schema.types) for p, t in tables.items()}

    assert run("columns") == run("rows")


@settings(deadline=None, max_examples=examples(200), suppress_health_check=list(HealthCheck))
@given(st.lists(st.integers(-62_135_510_400_000_000, 253_402_214_399_999_999), min_size=1, max_size=40),  # (a day inside the years 1 to 9999: a zoned datetime there is one in any zone)
       st.sampled_from(["s", "ms", "us", "ns", "date32", "date64"]), st.sampled_from([None, "UTC", "Asia/Kolkata"]),
       st.sampled_from(["days", "hours", "minutes", "seconds", "milliseconds"]), st.booleans())
def test_time_columns_convert_as_their_datetimes_do(micros, unit, zone, granularity, nulls):
    """A date or timestamp time column's points, made for each distinct
    instant by numpy, are what Calendar.point gives each value's datetime
    (the reading of the rows before); the points back to Arrow (integer
    arithmetic, not a Fraction per value) are the instants again, or
    OffGrid where a point is between microseconds; nulls and
    nanoseconds between microseconds take the value-by-value path."""
    from chronolog.engine.arrow import _calendar_points, _time_column
    from chronolog.language.dates import Calendar, OffGrid

    calendar = Calendar(granularity)
    per = {"s": 10**6, "ms": 10**3, "us": 1, "ns": 1, "date32": 86_400_000_000, "date64": 86_400_000_000}[unit]
    ints = [m // per for m in micros]
    if unit == "ns":  # (64-bit nanoseconds: the years 1678 to 2261, a day inside, where pandas reads them in any zone)
        ints = [max(-(2**63) // 1000 + 86_400_000_000, min(i, (2**63 - 1) // 1000 - 86_400_000_000)) for i in ints]
    if unit == "date32":
        col = pa.array(ints, pa.int32()).cast(pa.date32())
    elif unit == "date64":
        col = pa.array([i * 86_400_000 for i in ints], pa.date64())
    else:
        col = pa.array([i * 1000 + (1 if k == 0 and nulls else 0) if unit == "ns" else i for k, i in enumerate(ints)],
                       pa.timestamp(unit, zone))
    if nulls and unit != "ns":
        col = pa.concat_arrays([col, pa.nulls(1, col.type)])
    got = _calendar_points(col, calendar)
    want = [None if v is None else calendar.point(v) for v in col.to_pylist()]
    assert got == want and [type(v) for v in got] == [type(v) for v in want]
    try:
        back = _time_column(got, calendar)
    except OffGrid:
        assert any(v is not None and (Fraction(v) * calendar.unit_seconds * 10**6).denominator != 1 for v in got)
        return
    instants = [None if v is None else Fraction(v) * calendar.unit_seconds * 10**6 for v in got]
    if pa.types.is_date32(back.type):
        assert back.cast(pa.int32()).to_pylist() == [None if u is None else u // 86_400_000_000 for u in instants]
    else:
        assert back.view(pa.int64()).to_pylist() == instants


@settings(deadline=None, max_examples=examples(100), suppress_health_check=list(HealthCheck))
@given(st.lists(st.integers(-(2**31), 2**31 - 1) | st.integers(-800_000, 3_000_000), min_size=1, max_size=20),
       st.sampled_from(["date32", "date64", "s", "ms", "us"]), st.sampled_from(["days", "hours", "seconds"]), st.booleans())
def test_time_columns_of_any_year_are_their_exact_points(days, unit, granularity, nulls):
    """A date or timestamp time column past Python's years 1 to 9999 (a
    date of year 10183, or -221, or past 64 bits of microseconds) is the
    exact point of its count of units, as a fact's ``+10183-09-21`` is
    (Arrow's conversion to Python dates stopped both engines with an
    OverflowError); the rows and the columns read it alike."""
    from chronolog.engine.arrow import _calendar_points
    from chronolog.language.dates import Calendar

    calendar = Calendar(granularity)
    per = {"date32": 1, "date64": 86_400_000, "s": 86400, "ms": 86_400_000, "us": 1_000_000}[unit]  # (us: whole seconds)
    counts = [d * per for d in days]
    if unit not in ("date32", "date64"):
        counts = [max(-(2**63), min(c, 2**63 - 1)) for c in counts]
    typ = {"date32": pa.date32(), "date64": pa.date64()}.get(unit) or pa.timestamp(unit)
    col = pa.array(counts + ([None] if nulls else []), typ)
    to_seconds = {"date32": 86400, "date64": Fraction(1, 1000), "s": 1, "ms": Fraction(1, 1000), "us": Fraction(1, 10**6)}[unit]
    want = [Fraction(c) * to_seconds / calendar.unit_seconds for c in counts] + ([None] if nulls else [])
    assert _calendar_points(col, calendar) == want
    table = pa.table({"k": [f"k{i % 3}" for i in range(len(col))], "start": col, "end": col})  # (a null: unbounded)
    prog = f'@timeGranularity("{granularity}").\nq(K) :- p(K).\n@output("q").'
    rows = chronolog.reason(prog, {"p": table}, engine="rows")
    assert rows.to_text() == chronolog.reason(prog, {"p": table}, engine="columns").to_text()
    assert len(rows.facts("q")) >= 1


def test_a_date_argument_past_the_years_of_a_datetime_is_a_data_error():
    """A date or timestamp argument is a Python datetime (years 1 to 9999):
    one past them is a DataError naming its column and row, on both
    engines, not Arrow's OverflowError."""
    table = pa.table({"d": pa.array([19_000, 3_000_000], pa.date32()), "start": [1, 2], "end": [3, 4]})
    for engine in ("rows", "columns"):
        with pytest.raises(chronolog.DataError, match=r"p: the column d holds 3,000,000 days since 1970-01-01 in row 2, "
                                                     r"past the years 1 to 9999 that a date or timestamp argument holds"):
            chronolog.reason('q(D) :- p(D).\n@output("q").', {"p": table}, engine=engine)
