"""Facts given as tables (``reason(program, {pred: table})`` with Arrow
tables, record batches, pandas and Polars DataFrames, or one frame with a
``pred`` column) go straight into the columnar executor's columns
(connectors/table_columns.py) when the columns can take them, and to rows
otherwise.  Either way: the model the rows executor gives for the same
table (every predicate, exact typed terms and intervals, the text and the
Arrow output), and the same error text for bad tables.

Random typed tables (strings, ints, booleans, floats, decimals; integer,
float or date times; open and closed ends, sometimes unbounded), several
predicates, some given as lists of rows or in the program, over random
small programs (tests/strategies.py).
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import re
from decimal import Decimal
from fractions import Fraction

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.api import Reasoner
from differential import agree, run
from strategies import cases

pl = pytest.importorskip("polars")
pd = pytest.importorskip("pandas")

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), print_blob=True, max_examples=examples(40))

TERMS = {
    "str": (pa.string(), st.sampled_from(["a", "b", "c"])),
    "int": (pa.int64(), st.sampled_from([-1, 0, 1, 2])),
    "bool": (pa.bool_(), st.booleans()),
    "float": (pa.float64(), st.sampled_from([0.5, 1.0, 2.25, -0.0, 0.1])),
    "decimal": (pa.decimal128(5, 2), st.sampled_from([Decimal("0.5"), Decimal("1.25"), Decimal("2"), Decimal("-0.3")])),
}
EPOCH = dt.date(2024, 1, 1)
AUTO_ROWS = 12_000  # past AUTO_MIN_ROWS: auto reads such tables straight into columns


@st.composite
def tables(draw, pred: str, arity: int, time: str):
    """One predicate's facts as an Arrow table of typed columns ``c0..``,
    ``start``, ``end`` and (sometimes) the closedness columns."""
    kinds = [draw(st.sampled_from(sorted(TERMS))) for _ in range(arity)]
    n = draw(st.integers(1, 6))
    cols = {f"c{i}": pa.array([draw(TERMS[k][1]) for _ in range(n)], TERMS[k][0]) for i, k in enumerate(kinds)}
    starts, ends, lcs, hcs = [], [], [], []
    for _ in range(n):
        lo = draw(st.integers(-2, 6)) if time != "float" else draw(st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.5, 3.0, 0.1]))
        length = draw(st.sampled_from([0, 1, 2, 3] if time != "float" else [0.0, 0.5, 1.0, 2.0]))
        lc, hc = (True, True) if length == 0 else (draw(st.booleans()), draw(st.booleans()))
        starts.append(lo)
        ends.append(lo + length)
        lcs.append(lc)
        hcs.append(hc)
    if draw(st.integers(0, 9)) == 0:  # an unbounded end: the rows' reading
        ends[0] = None
        hcs[0] = False
    if time == "date":
        typ = pa.date32()
        starts = [EPOCH + dt.timedelta(days=x) for x in starts]
        ends = [None if x is None else EPOCH + dt.timedelta(days=x) for x in ends]
    else:
        typ = pa.int64() if time == "int" else pa.float64()
    cols["start"] = pa.array(starts, typ)
    cols["end"] = pa.array(ends, typ)
    closed = draw(st.sampled_from(["both", "end", "none"]))
    if closed == "both":
        cols["start_closed"] = pa.array(lcs, pa.bool_())
    if closed in ("both", "end"):
        cols["end_closed"] = pa.array(hcs, pa.bool_())
    elif not all(lcs) or not all(hcs):
        cols["start_closed"] = pa.array(lcs, pa.bool_())
        cols["end_closed"] = pa.array(hcs, pa.bool_())
    return pa.table(cols)


def _arities(program: str) -> dict:
    """The arity of each given predicate ``e0..e2`` the program reads."""
    out = {}
    for m in re.finditer(r"\b(e\d)(\(([^()]*)\))?", program):
        out.setdefault(m.group(1), len(m.group(3).split(",")) if m.group(3) else 0)
    return out


@st.composite
def table_cases(draw):
    """``(program, {pred: table}, list predicates, horizon)``."""
    case = draw(cases(negation=draw(st.booleans()), recursion=draw(st.integers(0, 3)) == 0, max_arity=3))
    time = draw(st.sampled_from(["int", "int", "float", "date"]))
    arities = _arities(case.program)
    arities.setdefault("e9", draw(st.integers(0, 3)))  # a predicate no rule reads
    facts = {p: draw(tables(p, a, "int" if time == "float" and draw(st.booleans()) else time)) for p, a in sorted(arities.items())}
    as_lists = {p for p in facts if draw(st.integers(0, 3)) == 0}
    program, horizon = case.program, case.horizon
    if time == "date":
        program = '@timeGranularity("days").\n' + program
        if horizon is not None:  # (days from the tables' epoch: a number is no date on this timeline)
            horizon = tuple((EPOCH + dt.timedelta(days=x)).isoformat() for x in horizon)
    elif draw(st.booleans()):
        program += "\n" + case.facts  # the program's own facts beside the tables
    return program, facts, as_lists, horizon


def _rows(table, pred, calendar=None):
    """The table as a list of ``(terms, interval)`` rows (dates where the
    program's timeline is dates, as a user gives them)."""
    import math

    from chronolog.frames import table_rows

    rows = table_rows(table, pred, calendar)
    if calendar is None:
        return rows

    def point(x):
        return x if x in (math.inf, -math.inf) else calendar.datetime(x)

    return [(t, (point(lo), point(hi), lc, hc)) for t, (lo, hi, lc, hc) in rows]


def _as(fmt: str, table):
    if fmt == "arrow":
        return table
    if fmt == "batch":
        return table.combine_chunks().to_batches()[0] if table.num_rows else table
    if fmt == "pandas":
        return table.to_pandas()
    if fmt == "pandas category":  # (a symbol column as pandas keeps it: an Arrow dictionary)
        return table.to_pandas().astype({table.schema.names[0]: "category"})
    if fmt == "polars categorical":
        return pl.from_arrow(table).with_columns(pl.col(table.schema.names[0]).cast(pl.Categorical))
    if fmt == "arrow string views":  # (Polars' and DuckDB's newest Arrow strings)
        return pa.table({n: c.cast(pa.string_view()) if pa.types.is_string(c.type) else c for n, c in zip(table.schema.names, table.columns)})
    if fmt == "arrow dictionaries":  # (every term column dictionary-encoded, integers too)
        times = ("start", "end", "start_closed", "end_closed")
        return pa.table({n: table.column(n) if n in times else table.column(n).dictionary_encode() for n in table.schema.names})
    return pl.from_arrow(table)


@pytest.fixture
def every_size(monkeypatch):
    """The direct path and the columnar executor on small tables too
    (auto takes them from AUTO_MIN_ROWS rows and AUTO_MIN_FILE_FACTS facts)."""
    from chronolog.planner import input_size

    monkeypatch.setattr(input_size, "AUTO_MIN_ROWS", 0)
    monkeypatch.setattr(input_size, "AUTO_MIN_FILE_FACTS", 0)


@settings(**SETTINGS)
@given(drawn=table_cases(), fmt=st.sampled_from(["arrow", "batch", "pandas", "polars"]))
def test_tables_give_the_rows_model(every_size, drawn, fmt):
    program, tables_, as_lists, horizon = drawn
    calendar = chronolog.load_program(program).calendar
    facts = {}
    for pred, table in tables_.items():
        facts[pred] = _rows(table, pred, calendar) if pred in as_lists else _as(fmt, table)
    want = run(program, facts, "rows", horizon)
    outs = {"rows": want}
    for engine in ("columns", "auto"):
        outs[f"{fmt}/{engine}"] = run(program, facts, engine, horizon)
    text = f"{program}\nFACTS ({fmt}; as lists: {sorted(as_lists)}):\n" + "\n".join(f"{p}:\n{t}" for p, t in tables_.items())
    agree(text, outs)


@settings(**SETTINGS)
@given(drawn=table_cases())
def test_one_frame_of_every_predicate(every_size, drawn):
    """A frame with a ``pred`` column (Model.to_pandas() of all predicates)."""
    program, tables_, _, horizon = drawn
    calendar = chronolog.load_program(program).calendar
    m = chronolog.reason(program, {p: _rows(t, p, calendar) for p, t in tables_.items()}, engine="rows", horizon=horizon)
    given_preds = [p for p in sorted(tables_) if m.facts(p) and not m.repeating(p)]
    if not given_preds:
        return
    whole = m.to_arrow(given_preds) if m.is_finite else None
    if whole is None:
        return
    outs = {"rows": run(program, whole, "rows", horizon)}
    for fmt in ("arrow", "pandas", "polars"):
        frame = whole if fmt == "arrow" else m.to_pandas(given_preds) if fmt == "pandas" else m.to_polars(given_preds)
        for engine in ("columns", "auto"):
            outs[f"{fmt}/{engine}"] = run(program, frame, engine, horizon)
    agree(f"{program}\n{whole}", outs)


# ------------------------------------------------------------ the path taken


def _sensor_table(n: int):
    return pa.table(
        {
            "sensor": [f"s{i % 97}" for i in range(n)],
            "value": [i % 100 for i in range(n)],
            "start": list(range(n)),
            "end": [i + 1 for i in range(n)],
            "end_closed": [False] * n,
        }
    )


PROGRAM = """hot(S) :- reading(S, V), V > 70.
warn(S) :- <->[0,10] hot(S), not maintenance(S).
"""


@pytest.fixture
def no_rows_reading(monkeypatch):
    """Reading a table as Python rows fails the test."""
    from chronolog import frames
    from chronolog.engine import arrow

    def refuse(*a, **k):
        raise AssertionError("a table was read as Python rows")

    monkeypatch.setattr(arrow, "table_to_rows", refuse)
    monkeypatch.setattr(frames, "table_rows", refuse)


@functools.lru_cache(maxsize=None)
def _large():
    """A table large enough for auto's columnar executor, and its model on rows."""
    from chronolog.planner.input_size import AUTO_MIN_FILE_FACTS

    table = _sensor_table(AUTO_MIN_FILE_FACTS + 1000)
    program = PROGRAM + "maintenance(s1)@[100,200].\n"
    return table, program, chronolog.reason(program, {"reading": table}, engine="rows")


@pytest.mark.parametrize("fmt", ["arrow", "batch", "pandas", "polars", "one frame", "pandas category", "polars categorical",
                                 "arrow dictionaries", "arrow string views"])
@pytest.mark.parametrize("engine", ["auto", "columns"])
def test_large_tables_go_straight_to_columns(fmt, engine, monkeypatch):
    """No Python row per fact (the speed of ``reason(program, {pred:
    table})``): reading a table as rows fails the test.  Dictionary
    columns (pandas' category, polars' Categorical) too: decoded by Arrow,
    they read as the plain columns (read as rows they took 10x the time)."""
    table, program, want = _large()
    facts = table.add_column(0, "pred", pa.array(["reading"] * table.num_rows)) if fmt == "one frame" else {"reading": _as(fmt, table)}
    from chronolog import frames
    from chronolog.engine import arrow

    def refuse(*a, **k):
        raise AssertionError("a table was read as Python rows")

    monkeypatch.setattr(arrow, "table_to_rows", refuse)
    monkeypatch.setattr(frames, "table_rows", refuse)
    r = Reasoner(program, facts, engine=engine)
    assert "columns" in r.evaluator.executors.values()
    assert r.model.to_text() == want.to_text()
    for p in ("hot", "warn"):
        assert r.model.to_arrow(p).equals(want.to_arrow(p))


@pytest.mark.parametrize("fmt", ["arrow nulls", "pandas Int64", "polars nulls", "float infinities", "pandas NaT"])
def test_large_tables_with_unbounded_ends_go_straight_to_columns(fmt, monkeypatch):
    """Facts valid until further notice (a null end, a null start, a
    float's infinity, pandas' ``NaT``: SCD2 tables' open ``valid_to``) are
    read by the columns with the rest, as the rows read them (a table
    holding one went to the row reader: 1M rows 4 s against 0.5 s)."""
    import datetime

    from chronolog import frames
    from chronolog.engine import arrow

    table, program, _ = _large()
    n = table.num_rows
    ongoing = pa.array([i % 10 == 3 for i in range(n)])
    since_ever = pa.array([i % 13 == 5 for i in range(n)])
    ints = pa.table({"sensor": table["sensor"], "value": table["value"],
                     "start": pa.compute.if_else(since_ever, pa.scalar(None, pa.int64()), table["start"]),
                     "end": pa.compute.if_else(ongoing, pa.scalar(None, pa.int64()), table["end"]), "end_closed": table["end_closed"]})
    if fmt == "pandas NaT":
        program = '@timeGranularity("hours").\n' + program.replace("[100,200]", "[2024-01-05T04:00:00,2024-01-09T08:00:00]")
        at = datetime.datetime(2024, 1, 1)
        stamps = [None if v is None else at + datetime.timedelta(hours=v) for v in ints["start"].to_pylist()]
        ends = [None if v is None else at + datetime.timedelta(hours=v) for v in ints["end"].to_pylist()]
        ints = ints.set_column(2, "start", pa.array(stamps, pa.timestamp("us"))).set_column(3, "end", pa.array(ends, pa.timestamp("us")))
    given = {"arrow nulls": lambda: ints, "pandas Int64": lambda: ints.to_pandas(types_mapper={pa.int64(): pd.Int64Dtype()}.get),
             "polars nulls": lambda: pl.from_arrow(ints), "pandas NaT": ints.to_pandas,
             "float infinities": lambda: ints.to_pandas().astype({"start": "float64", "end": "float64"}).fillna({"start": -math.inf, "end": math.inf})}[fmt]()
    want = chronolog.reason(program, {"reading": ints}, engine="rows")
    assert "inf" in want.to_text("hot")

    def refuse(*a, **k):
        raise AssertionError("a table was read as Python rows")

    monkeypatch.setattr(arrow, "table_to_rows", refuse)
    monkeypatch.setattr(frames, "table_rows", refuse)
    got = chronolog.reason(program, {"reading": given})
    assert set(got.stats["executors"].values()) == {"columns"}
    assert got.to_text() == want.to_text()
    for p in ("hot", "warn"):
        assert got.to_arrow(p).equals(want.to_arrow(p))


def test_direct_and_row_reading_agree_on_a_large_table():
    table = _sensor_table(20_000)
    maint = pa.table({"sensor": ["s1", "s5"], "start": [100, 300], "end": [200, 400]})
    facts = {"reading": table, "maintenance": maint}
    rows = chronolog.reason(PROGRAM, facts, engine="rows")
    for engine in ("auto", "columns"):
        got = chronolog.reason(PROGRAM, facts, engine=engine)
        assert got.to_text() == rows.to_text()
        for p in ("hot", "warn", "reading", "maintenance"):
            assert got.to_arrow(p).equals(rows.to_arrow(p)), p


def test_date_and_timestamp_arguments_go_straight_to_columns_as_instants(monkeypatch):
    """Date and timestamp arguments (with a zone, without one) are instants
    (engine/term_types.py), read into columns without a Python row: the
    rows' model, a DATE column out as ``date32``, one instant however given."""
    from chronolog.engine import arrow

    n = 20_000
    day = dt.date(2024, 1, 1)
    table = pa.table({
        "d": pa.array([day + dt.timedelta(days=i % 9) for i in range(n)], pa.date32()),
        "t": pa.array([dt.datetime(2024, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=9))) + dt.timedelta(hours=i % 48) for i in range(n)],
                      pa.timestamp("us", tz="Asia/Tokyo")),
        "w": pa.array([dt.datetime(2024, 1, 1) + dt.timedelta(hours=i % 30) for i in range(n)], pa.timestamp("us")),
        "start": list(range(n)), "end": [i + 3 for i in range(n)],
    })
    program = """same(D) :- r(D, T, W), D == T.
wall(D, W) :- r(D, T, W), D == W.
late(T) :- r(D, T, W), T > 2024-01-02T12:00.
@output("same"). @output("wall"). @output("late").
"""
    rows = chronolog.reason(program, {"r": table}, engine="rows")

    def refuse(*a, **k):
        raise AssertionError("a table was read as Python rows")

    monkeypatch.setattr(arrow, "table_to_rows", refuse)
    got = chronolog.reason(program, {"r": table}, engine="columns")
    assert got.to_text() == rows.to_text()
    for p in ("same", "wall", "late"):
        assert got.to_arrow(p).equals(rows.to_arrow(p)), p
    assert got.to_arrow("same").schema.field("c0").type == pa.date32()
    assert got.to_arrow("late").schema.field("c0").type == pa.timestamp("us")
    # 09:00 in Tokyo on 2024-01-01 is its midnight UTC (row 432: day 0, hour 9);
    # 2024-01-02 meets no row's 09:00 Tokyo of the next day (i = 33 mod 48 is never 1 mod 9)
    assert {t for (t,), _ in got.facts("same")} == {dt.datetime(2024, 1, 1)}
    assert got.facts("wall")


@pytest.mark.parametrize("unit, tz, granularity", [("us", None, "minutes"), ("s", "Asia/Tokyo", "minutes"),
                                                    ("ms", "UTC", "days"), ("ns", None, "seconds")])
def test_timestamp_times_on_a_date_timeline_go_straight_to_columns(unit, tz, granularity, monkeypatch):
    """Timestamp start and end columns on a date timeline (a sensor's
    readings at seconds, counted in minutes: times between the units) are
    read into columns without a Python row, each instant its exact point:
    the rows' model, zoned or not, in any unit a whole microsecond holds."""
    from chronolog.engine import arrow

    n = 12_000
    t0 = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc if tz else None)
    at = [t0 + dt.timedelta(seconds=37 * i + (i % 7) * 0.25 if unit in ("ms", "us", "ns") else 37 * i) for i in range(n)]
    table = pa.table({"m": [f"m{i % 5}" for i in range(n)], "v": [40 + i % 60 for i in range(n)],
                      "start": pa.array(at, pa.timestamp(unit, tz)), "end": pa.array(at, pa.timestamp(unit, tz))})
    program = f"""@timeGranularity("{granularity}").
hot(M) :- reading(M, V), V > 80.
calm(M) :- machine(M), not <->[0,1] hot(M).
held(M, V) :- calm(M) <S>(0,2] reading(M, V).
@output("hot"). @output("calm"). @output("held").
machine(m0)@[2024-01-01,2024-01-07]. machine(m3)@[2024-01-01,2024-01-07].
"""
    rows = chronolog.reason(program, {"reading": table}, engine="rows")
    assert rows.facts("held") and rows.facts("calm")

    def refuse(*a, **k):
        raise AssertionError("a table was read as Python rows")

    monkeypatch.setattr(arrow, "table_to_rows", refuse)
    got = chronolog.reason(program, {"reading": table}, engine="columns")
    assert got.to_text() == rows.to_text()
    for p in ("hot", "calm", "held"):
        assert got.facts(p) == rows.facts(p), p
        assert got.to_arrow(p).equals(rows.to_arrow(p)), p  # (the columns' times typed by numpy, the rows' by Python)


# ------------------------------------------------------------ errors


def _bad(kind: str):
    """A table past AUTO_MIN_ROWS (so auto tries the columns) with one bad
    cell, and the form to give it in."""
    n = 12_000
    cols = {"k": [f"k{i % 7}" for i in range(n)], "v": [float(i % 5) for i in range(n)], "start": list(range(n)), "end": [i + 2 for i in range(n)]}
    at = n - 3
    if kind == "null term":
        cols["k"][at] = None
    elif kind == "nan term":
        cols["v"][at] = float("nan")
    elif kind == "empty interval":
        cols["end"][at] = cols["start"][at] - 1
    elif kind == "empty open interval":
        cols["end"][at] = cols["start"][at]
        cols["end_closed"] = [i != at for i in range(n)]
    elif kind == "null closedness":
        cols["start_closed"] = [None if i == at else True for i in range(n)]
    elif kind == "text time":
        cols["start"] = [str(x) for x in cols["start"]]
        cols["start"][at] = "soon"
    elif kind == "timestamp times":
        cols["start"] = [dt.datetime(2024, 1, 1) + dt.timedelta(hours=x) for x in cols["start"]]
        cols["end"] = [dt.datetime(2024, 1, 1) + dt.timedelta(hours=x) for x in cols["end"]]
    elif kind == "no end":
        del cols["end"]
    elif kind == "list column":
        cols["v"] = [[1, 2]] * n
    return pa.table(cols)


BAD = ["null term", "nan term", "empty interval", "empty open interval", "null closedness", "text time", "timestamp times", "no end", "list column"]


@pytest.mark.parametrize("fmt", ["arrow", "pandas", "polars"])
@pytest.mark.parametrize("kind", BAD)
def test_bad_tables_get_the_rows_error(kind, fmt):
    table = _bad(kind)
    try:
        frame = _as(fmt, table)
    except Exception:  # (a type the library does not take)
        return
    outs = {e: run("q(K) :- r(K, V), V > 1.", {"r": frame}, e) for e in ("rows", "auto", "columns")}
    if kind != "null closedness":  # (a null closedness is closed)
        assert isinstance(outs["rows"], str), outs["rows"]
    agree(f"{kind} ({fmt})", outs)


@pytest.mark.parametrize("kind, says", [("empty interval", "start must not be after end"), ("empty open interval", "a point (start == end) needs both ends closed")])
def test_an_empty_interval_of_a_table_says_why(kind, says):
    """A row with start == end and an open end is empty too: its hint said
    only "start must not be after end", which that row is not."""
    out = run("q(K) :- r(K, V).", {"r": _bad(kind)}, "rows")
    assert "has an empty interval" in out and says in out, out


@pytest.mark.parametrize("closed, want", [([0, 1], (3, 5, False, True)), ([1.0, 0.0], (3, 5, True, False)), ([True, None], (3, 5, True, True))])
def test_a_closedness_of_ones_and_zeros_is_read_as_booleans(closed, want):
    """0 and 1 (a CSV's or a database's booleans) were kept in the
    interval as they came: ``facts()`` gave ``(3, 5, 0, True)``."""
    import pandas as pd

    df = pd.DataFrame({"c0": ["a"], "start": [3], "end": [5], "start_closed": closed[:1], "end_closed": closed[1:]})
    for engine in ("rows", "columns"):
        got = chronolog.reason("q(X) :- p(X).", {"p": df}, engine=engine).facts("q")
        assert got == [(("a",), want)] and all(type(x) is bool for x in got[0][1][2:]), got
        r = chronolog.Reasoner("q(X) :- p(X).", "p(a)@[0,10]", engine=engine)
        assert r.retract({"p": df}).facts("q") == [(("a",), (0, 3, True, not want[2])), (("a",), (5, 10, not want[3], True))]


@pytest.mark.parametrize("value", ["false", "no", 2, 0.5])
def test_a_closedness_that_is_no_boolean_is_refused_with_its_row(value):
    """A closedness of text ('false', 'no') was read as closed (a
    non-empty string is true to Python), silently: retracting the row
    took its ends too."""
    import pandas as pd

    df = pd.DataFrame({"c0": ["a", "b"], "start": [3, 3], "end": [5, 5], "start_closed": [value, value]})
    for engine in ("rows", "columns"):
        with pytest.raises(chronolog.ChronologError) as e:
            chronolog.reason("q(X) :- p(X).", {"p": df}, engine=engine)
        assert e.value.message == f"p: start_closed is {value!r} in the row c0='a'", e.value.message
        assert "true or false" in e.value.hint


def test_a_column_of_values_of_several_kinds_is_named():
    """A pandas column of 1 beside 'x' (no Arrow column holds both) was
    reported as "facts for p must be a pyarrow Table or a pandas or Polars
    DataFrame, not DataFrame"."""
    import pandas as pd

    df = pd.DataFrame({"c0": ["a", "b"], "c1": [1, "x"], "start": [3, 3], "end": [5, 5]})
    with pytest.raises(chronolog.ChronologError) as e:
        chronolog.reason("q(X, Y) :- p(X, Y).", {"p": df})
    assert e.value.message == "facts for p: the column c1 holds values of several kinds (int, str), which no column of a table holds"
    df["c1"] = [Fraction(1, 3), Fraction(1, 2)]
    with pytest.raises(chronolog.ChronologError) as e:
        chronolog.reason("q(X, Y) :- p(X, Y).", {"p": df})
    assert e.value.message == "facts for p: the column c1 holds Fraction values, which no column of a table holds"
    assert "c1_exact" in e.value.hint
    df["c1"] = [1 + 2j, 3j]  # (complex numbers: Arrow has no type for them; pyarrow's own error escaped)
    with pytest.raises(chronolog.ChronologError) as e:
        chronolog.reason("q(X, Y) :- p(X, Y).", {"p": df})
    assert e.value.message == "p: the column c1 holds values of type complex128, which are not constants"
    df["c1"] = pd.arrays.SparseArray([1, 0])  # (it said "values of several kinds (int, int64)")
    with pytest.raises(chronolog.ChronologError) as e:
        chronolog.reason("q(X, Y) :- p(X, Y).", {"p": df})
    assert e.value.message == "p: the column c1 is sparse (Sparse[int64, 0]), which a table cannot hold"
    df["c1"] = df["c1"].sparse.to_dense()  # (the hint's fix)
    assert "sparse.to_dense()" in e.value.hint
    assert chronolog.reason("q(X, Y) :- p(X, Y).", {"p": df}).to_text() == "q(a,1)@[3,5]\nq(b,0)@[3,5]"
    one = pd.DataFrame({"pred": ["p", "p"], "c0": ["a", "b"], "c1": [1, "x"], "start": [3, 3], "end": [5, 5]})
    with pytest.raises(chronolog.ChronologError) as e:  # (one table of every predicate: it named the predicate '?')
        chronolog.reason("q(X, Y) :- p(X, Y).", one)
    assert e.value.message.startswith("the facts table: the column c1 holds values of several kinds (int, str)")
    assert "?" not in e.value.hint


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_a_polars_column_of_python_objects_is_named(engine):
    """A Polars Object column made polars panic (a PanicException, which
    no ``except Exception`` stops) in the note on meeting closed ends, and
    else read as Arrow's fixed_size_binary[8] (the objects' pointers)."""
    import polars as pl

    df = pl.DataFrame({"c0": pl.Series([Fraction(1, 3), object()], dtype=pl.Object), "start": [0, 0], "end": [1, 1]})
    with pytest.raises(chronolog.ChronologError) as e:
        chronolog.reason("q(X) :- p(X).", {"p": df}, engine=engine)
    assert e.value.message == "p: the column c0 holds Python objects (Fraction, object), which are not constants"


@pytest.mark.parametrize(
    "column, values, says",
    [
        ("c0", dt.timedelta(seconds=1), "c0 holds values of type duration[us], which are not constants"),
        ("c0", dt.time(1, 2), "c0 holds values of type time64[us], which are not constants"),
        ("start", dt.timedelta(days=1), "start holds values of type duration[us], which are not time points"),
        ("end", True, "end holds values of type bool, which are not time points"),
    ],
)
def test_durations_times_of_day_and_boolean_times_are_refused(column, values, says):
    """A pandas or Polars timedelta argument passed through as an opaque
    Python object (``q(0:00:01)``, a term no program can write); timedelta
    ends gave ``q(a)@[1 day, 0:00:00,...]`` on rows and a TypeError on
    columns, and a boolean end the time 1 on columns but ``#T`` on rows."""
    cols = {"c0": ["a", "b"], "start": [0, 1], "end": [2, 3]}
    cols[column] = [values, values]
    if column == "end":
        cols["start"] = [0, 0]
    for frame in (pd.DataFrame(cols), pl.DataFrame(cols), pa.table(cols)):
        for engine in ("rows", "columns"):
            with pytest.raises(chronolog.ChronologError) as e:
                chronolog.reason("q(X) :- p(X).", {"p": frame}, engine=engine)
            message = e.value.message.replace("duration[ns]", "duration[us]").replace("time64[ns]", "time64[us]")
            assert message == f"p: the column {says}", (type(frame), engine, e.value.message)
            with pytest.raises(chronolog.ChronologError):
                chronolog.Reasoner("q(X) :- p(X).", "p(a)@[0,10]", engine=engine).retract({"p": frame})


def test_nan_times_of_a_pandas_frame():
    df = _bad("null term").to_pandas()
    df["k"] = "k"
    df["start"] = df["start"].astype(float)
    df.loc[11_000, "start"] = float("nan")
    texts = {e: run("q(K) :- r(K, V).", {"r": df}, e) for e in ("rows", "auto", "columns")}
    assert "NaN" in texts["rows"] and len(set(texts.values())) == 1, texts


def test_the_first_bad_predicate_is_reported_first():
    """Predicates are read in the dict's order, whichever way each is read."""
    good = _bad("none")
    facts = {"r": _bad("null term"), "s": good, "7x": good}
    texts = {e: run("q(K) :- r(K, V), s(K, V).", facts, e) for e in ("rows", "auto", "columns")}
    assert "null" in texts["rows"] and len(set(texts.values())) == 1, texts
    facts = {"s": good, "7x": good, "r": _bad("null term")}
    texts = {e: run("q(K) :- r(K, V), s(K, V).", facts, e) for e in ("rows", "auto", "columns")}
    assert "predicate name" in texts["rows"] and len(set(texts.values())) == 1, texts


@pytest.mark.parametrize("fact", ["r(k1)@1.", "r(k1, 2, 3)@1."])
def test_arity_beside_the_program_facts(fact):
    facts = {"r": _bad("none")}
    texts = {e: run(f"q(K) :- r(K, V).\n{fact}", facts, e) for e in ("rows", "auto", "columns")}
    assert "argument" in texts["rows"] and len(set(texts.values())) == 1, texts


# ------------------------------------------------------------ what reads the given rows later


def test_add_proof_and_explain_after_table_facts():
    table, program, want = _large()
    r = Reasoner(program, {"reading": table}, engine="columns")
    rows = Reasoner(program, {"reading": table}, engine="rows")
    assert r.model.to_text() == rows.model.to_text()
    hot = r.model.facts("hot")[0]
    fact = f"hot({hot[0][0]})@[{hot[1][0]},{hot[1][0]}]"
    assert str(r.model.proof(fact)) == str(rows.model.proof(fact))
    assert r.model.explain(fact) == rows.model.explain(fact)
    new = [(("s1", 99), (10**6, 10**6 + 1, True, False))]
    assert r.add({"reading": new}).to_text() == rows.add({"reading": new}).to_text()
    assert r.model.holds(f"hot(s1)@{10**6}")


def test_a_model_that_repeats_forever():
    """No horizon and a recursion through time: the given columns become rows."""
    table = _sensor_table(AUTO_ROWS)
    program = "tick(S) :- reading(S, V), V > 98.\ntick(S) :- <->[100000,100000] tick(S).\n"
    rows = chronolog.reason(program, {"reading": table}, engine="rows")
    for engine in ("auto", "columns"):
        got = chronolog.reason(program, {"reading": table}, engine=engine)
        assert not got.is_finite
        assert got.to_text() == rows.to_text()
        assert got.repeating("tick") == rows.repeating("tick")


def test_exact_rationals_read_back_from_pandas(every_size):
    """A model's frame read back as facts: ``X_exact`` columns (decimals
    straight to columns; rationals such as 1/3 as text, which the rows read)."""
    from fractions import Fraction

    n = 300
    facts = {
        "d": [((f"k{i % 3}", Fraction(i % 7, 4)), (i, i + 1)) for i in range(n)],
        "r": [((f"k{i % 3}", Fraction(i % 7, 3)), (i, i + 1)) for i in range(n)],
    }
    program = "q(K, N) :- d(K, N), N > 1.\nt(K, N) :- r(K, N), N > 1."
    m = chronolog.reason(program, facts, engine="rows")
    for fmt in ("pandas", "polars"):
        given_ = {p: (m.to_pandas(p) if fmt == "pandas" else m.to_polars(p)) for p in ("d", "r")}
        assert "c1_exact" in list(given_["r"].columns)
        outs = {"rows": run(program, given_, "rows")}
        for engine in ("auto", "columns"):
            outs[f"{fmt}/{engine}"] = run(program, given_, engine)
        agree(fmt, outs)
        assert outs["rows"].facts("q") == m.facts("q") and outs["rows"].facts("t") == m.facts("t")


def test_facts_of_every_kind_together(tmp_path):
    """Columns, rows, the program's facts and a bound file, mixed."""
    import pyarrow.parquet as pq

    table = _sensor_table(AUTO_ROWS)
    pq.write_table(_sensor_table(AUTO_ROWS).slice(0, AUTO_ROWS // 2), tmp_path / "more.parquet")
    program = (
        f'@bind("reading", "parquet", "{tmp_path}", "more.parquet").\n'
        + PROGRAM
        + "maintenance(s1)@[100,200].\nreading(s2, 99)@[5, 7).\n"
    )
    facts = {"reading": table, "maintenance": [(("s3",), (0, 50))], "other": table.slice(0, 20)}
    outs = {e: run(program, facts, e) for e in ("rows", "auto", "columns")}
    agree("mixed", outs)
    assert outs["rows"].holds("reading(s2, 99)@[5,6]")


# ------------------------------------------------------------ a keyed Spark task's input (issue 12)


def _task_output(job, wide):
    """The lanes and the reported kinds of one task of a keyed run
    (connectors/distributed.py), run here, outside Spark."""
    from chronolog.connectors import distributed as dist

    got = []

    class Report:
        def add(self, v):
            got.append(v)

    batches = list(dist.make_task(job, Report(), chronolog.reason)(iter(wide.to_batches())))
    assert not got[0]["errors"], got[0]["errors"]
    return pa.Table.from_batches(batches) if batches else None, got[0]["kinds"]


def _task_job(program, inputs, outputs, calendar=None, csv=()):
    """A keyed run's job for tables ``{pred: table}`` (each term column its
    own slot of the wide table) and the wide table itself."""
    names, arrays, specs = ["__in"], [], []
    n = sum(t.num_rows for t in inputs.values())
    at = 0
    for i, (pred, table) in enumerate(inputs.items()):
        terms = [c for c in table.schema.names if c not in ("start", "end", "start_closed", "end_closed")]
        where = {}
        for c in table.schema.names:
            slot = f"_{pred}_{c}"
            where[c] = slot
            col = table.column(c).combine_chunks()
            arrays.append((slot, at, col))
        for c in ("start_closed", "end_closed"):
            if c not in where:
                where[c] = f"_{pred}_{c}"
                arrays.append((where[c], at, pa.array([True] * table.num_rows)))
        specs.append((pred, terms, where, []))  # (no column of term text)
        at += table.num_rows
    cols = {"__in": pa.array([i for i, t in enumerate(inputs.values()) for _ in range(t.num_rows)], pa.int32())}
    for slot, start, col in arrays:
        cols[slot] = pa.concat_arrays([pa.nulls(start, col.type), col, pa.nulls(n - start - len(col), col.type)])
    job = {
        "program": chronolog.load_program(program), "horizon": None, "inputs": specs, "outputs": outputs,
        "csv": {p: {} for p in csv}, "fail_first": False, "window": None, "calendar": calendar,
        "timestamps": False, "sources": {}, "partitions": 1,
    }
    return job, pa.table(cols)


@pytest.mark.parametrize("engine", ["columns", "auto"])
def test_a_keyed_task_reads_typed_tables_straight_into_columns(engine, monkeypatch):
    """A task's typed inputs go to columns (no ``table_to_rows``), with the
    same lanes and kinds as their rows' reading."""
    from chronolog.connectors import distributed as dist
    from chronolog.engine import arrow

    table, program, _ = _large()
    maint = pa.table({"sensor": ["s1", "s2"], "start": [100, 300], "end": [200, 400]})
    n = table.num_rows
    table = table.append_column("ts", pa.array([dt.datetime(2024, 1, 1) + dt.timedelta(seconds=i) for i in range(n)], pa.timestamp("us", tz="UTC")))
    program = PROGRAM.replace("reading(S, V)", "reading(S, V, T)") + "late(S, T) :- reading(S, V, T), V > 98.\n"
    outputs = [("hot", ["c0"]), ("warn", ["c0"]), ("late", ["c0", "c1"])]
    job, wide = _task_job(program, {"reading": table, "maintenance": maint}, outputs)
    if engine == "auto":
        monkeypatch.setattr(dist, "task_engine", lambda rows, parts: None)
    monkeypatch.setenv("CHRONOLOG_ENGINE", "")
    saved = dist.typed_columns
    monkeypatch.setattr(dist, "typed_columns", lambda *a: None)  # the rows' reading
    want = _task_output(job, wide)
    monkeypatch.setattr(dist, "typed_columns", saved)
    seen = []
    real = arrow.table_to_rows

    def spy(t, pred="?", *a, **k):
        seen.append(pred)
        return real(t, pred, *a, **k)

    monkeypatch.setattr(arrow, "table_to_rows", spy)
    got = _task_output(job, wide)
    assert "reading" not in seen  # (the small maintenance table is read as rows on auto)
    assert got[1] == want[1]
    assert got[0].equals(want[0])


def test_auto_runs_columns_from_the_table_threshold():
    """Tables read straight into columns choose the columnar executor on
    auto from AUTO_MIN_TABLE_FACTS facts (far faster than rows warm, about
    as fast in a fresh process), one table fewer runs on rows."""
    from chronolog.planner.input_size import AUTO_MIN_ROWS, AUTO_MIN_TABLE_FACTS

    big = Reasoner(PROGRAM, {"reading": _sensor_table(AUTO_MIN_TABLE_FACTS)})
    assert "columns" in big.evaluator.executors.values()
    small = Reasoner(PROGRAM, {"reading": _sensor_table(AUTO_MIN_TABLE_FACTS - 1)})
    assert set(small.evaluator.executors.values()) == {"rows"}
    assert bool(small.evaluator.given_columns) == (AUTO_MIN_TABLE_FACTS - 1 >= AUTO_MIN_ROWS)  # (read as columns from AUTO_MIN_ROWS)


@pytest.mark.parametrize("kind", ["float", "timestamp"])
def test_a_table_whose_times_fall_between_units_counts_twice(kind):
    """Times between the timeline's units are exact fractions, which the
    rows compare and hash several times slower than integers: such a
    table goes to columns from half the threshold's rows, with the same
    model as on rows; at one row fewer, or with whole units, it stays on rows."""
    import datetime as dt

    from chronolog.planner.input_size import AUTO_MIN_TABLE_FACTS, BETWEEN_UNITS_WEIGHT

    def table(n, between):
        t = _sensor_table(n)
        if kind == "float":
            shift = 0.5 if between else 0.0
            start = [i + shift for i in range(n)]
            end = [i + 1 + shift for i in range(n)]
            program = PROGRAM
        else:  # readings to the second on a timeline of minutes (or of seconds)
            at = [dt.datetime(2024, 1, 1) + dt.timedelta(seconds=60 * i + 30) for i in range(n)]
            start, end = pa.array(at, pa.timestamp("us")), pa.array(at, pa.timestamp("us"))
            program = ('@timeGranularity("minutes").\n' if between else '@timeGranularity("seconds").\n') + PROGRAM
            t = t.drop_columns(["end_closed"])
        t = t.set_column(t.schema.get_field_index("start"), "start", pa.array(start) if kind == "float" else start)
        return program, t.set_column(t.schema.get_field_index("end"), "end", pa.array(end) if kind == "float" else end)

    half = -(-AUTO_MIN_TABLE_FACTS // BETWEEN_UNITS_WEIGHT)
    program, between = table(half, True)
    big = Reasoner(program, {"reading": between})
    assert "columns" in big.evaluator.executors.values()
    assert big.model.to_text() == chronolog.reason(program, {"reading": between}, engine="rows").to_text()
    program, fewer = table(half - 1, True)
    assert set(Reasoner(program, {"reading": fewer}).evaluator.executors.values()) == {"rows"}
    program, whole = table(half, False)
    assert set(Reasoner(program, {"reading": whole}).evaluator.executors.values()) == {"rows"}


def test_a_polars_lazy_frame_is_read_as_its_result():
    """A Polars LazyFrame stopped on an AttributeError (it has no
    ``to_arrow``); it is read as the frame its query gives."""
    import polars as pl

    lazy = pl.DataFrame({"c0": ["a"], "start": [3], "end": [5]}).lazy()
    assert chronolog.reason("q(X) :- p(X).", {"p": lazy}).to_text() == "q(a)@[3,5]"
    r = chronolog.Reasoner("q(X) :- p(X).", "p(a)@[0,10]")
    assert r.retract({"p": lazy}).to_text() == "q(a)@[0,3)\nq(a)@(5,10]"


def test_tables_of_other_libraries_are_read_through_arrow():
    """A DuckDB relation, an Arrow RecordBatchReader and a pyarrow Dataset
    (any table exporting an Arrow stream) are read once into Arrow, as a
    user hands a query's result over: a DuckDB relation stopped on an
    AttributeError ("does not contain a column by the name of 'dtype'"),
    the others were refused; a Polars Series (one column) is refused with
    how to make it a table."""
    import duckdb
    import pyarrow.dataset as ds

    table = pa.table({"c0": ["a", "b"], "start": [0, 1], "end": [5, 4]})
    want = chronolog.reason("q(X) :- p(X).", {"p": table}).to_text()
    con = duckdb.connect()
    con.register("t", table)
    given = {"duckdb": con.sql("select * from t"), "reader": pa.RecordBatchReader.from_batches(table.schema, table.to_batches()),
             "dataset": ds.dataset(table)}
    for label, facts in given.items():
        assert chronolog.reason("q(X) :- p(X).", {"p": facts}).to_text() == want, label
    whole = con.sql("select 'p' as pred, * from t")  # (one table of every predicate: a pred column)
    assert chronolog.reason("q(X) :- p(X).", whole).to_text() == want
    left = chronolog.reason("q(X) :- p(X).", {"p": con.sql("select * from t")}, closed="left").to_text()
    assert left == chronolog.reason("q(X) :- p(X).", {"p": table}, closed="left").to_text() != want
    r = chronolog.Reasoner("q(X) :- p(X).", "p(a)@[0,10]")
    assert r.retract({"p": con.sql("select * from t where c0 = 'a'")}).to_text() == "q(a)@(5,10]"
    with pytest.raises(chronolog.ChronologError) as e:
        chronolog.reason("q(X) :- p(X).", {"p": pl.Series("c0", ["a"])})
    assert e.value.message == "facts for p must be a table with start and end columns, not a Polars Series"
    with pytest.raises(chronolog.ChronologError) as e:
        chronolog.reason("q(X) :- p(X).", {"p": {"c0": ["a"], "start": [0], "end": [5]}})
    assert "pa.table(columns)" in e.value.hint


MIXED = 'q(X) :- p(X).  p(1)@[0,1].  p(a)@[0,1].  p(#T)@[0,2].  p(1/3)@[3,4].  p(2024-01-01)@[0,1].  p("x,y")@[0,1].  p("1")@[5,6].'


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_a_column_of_several_kinds_of_constants_reads_back_unchanged(tmp_path, engine):
    """An output column holding numbers, strings, booleans and dates (no
    Arrow type holds them all) is written as canonical term text; read back
    from to_arrow, Parquet or an Arrow file it gave strings: q(1) became
    r("1"), q("x,y") became r("\\"x,y\\""), q(#T) became r("#T")."""
    from chronolog.connectors.files import write_table

    m = chronolog.reason(MIXED, engine=engine)
    want = m.to_text(["q"]).replace("q(", "r(")
    table = m.to_arrow("q")
    assert chronolog.reason("r(X) :- q(X).", {"q": table}, engine=engine).to_text() == want
    big = pa.concat_tables([table] * 2_000)  # (past the table threshold: the columns' reader defers to the rows')
    assert chronolog.reason("r(X) :- q(X).", {"q": big}, engine=engine).to_text() == want
    for name in ("q.parquet", "q.arrow"):
        write_table(table, tmp_path / name)
        program = f'@bind("q", "{name.split(".")[1]}", "{tmp_path}", "{name}").  r(X) :- q(X).'
        assert chronolog.reason(program, engine=engine).to_text() == want, name
    m = chronolog.reason(MIXED + "  s(#F)@[0,1].  s(2.5)@[0,1].  u(1/3)@[0,1].  u(2)@[0,1].", engine=engine)
    preds = ["p", "s", "u"]  # (one frame of several predicates: its c0 mixes their kinds)
    for frame in (m.to_arrow(preds), m.to_pandas(preds), m.to_polars(preds)):
        assert chronolog.reason("", frame, engine=engine).to_text(preds) == m.to_text(preds), type(frame)


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_nanosecond_timestamps_are_whole_microseconds_or_refused(engine):
    """Nanosecond timestamps (pandas' default unit) were read as they came:
    an argument became a pandas Timestamp (no datetime instant of the
    engine, written back as text) and a time column on a dated timeline
    dropped its nanoseconds silently, so 1 ns and 2 ns were one time point."""
    import datetime as dt

    stamps = pd.Series(pd.to_datetime(["2024-01-01 10:00:00.000001", "2024-01-02 00:00:00.000000"]), dtype="datetime64[ns]")
    df = pd.DataFrame({"c0": stamps, "start": [0, 1], "end": [1, 2]})
    m = chronolog.reason("q(X) :- p(X).  r(X) :- p(X), X = 2024-01-01T10:00:00.000001.", {"p": df}, engine=engine)
    assert m.to_text() == "q(2024-01-01T10:00:00.000001)@[0,1]\nq(2024-01-02)@[1,2]\nr(2024-01-01T10:00:00.000001)@[0,1]"
    assert [type(t[0]) for t, _ in m.facts("q")] == [dt.datetime, dt.datetime]
    finer = pa.array([1_700_000_000_000_000_001, 1_700_000_000_000_000_002], pa.timestamp("ns"))
    for program, table, column in [
        ('@timeGranularity("seconds"). q(X) :- p(X).', pa.table({"c0": ["a", "b"], "start": finer, "end": finer}), "start"),
        ("q(X) :- p(X).", pa.table({"c0": finer, "start": [0, 0], "end": [1, 1]}), "c0"),
    ]:
        with pytest.raises(chronolog.ChronologError) as e:
            chronolog.reason(program, {"p": table}, engine=engine)
        assert e.value.message == f"p: the column {column} holds 2023-11-14 22:13:20.000000001 (row 0), finer than a microsecond, the precision of chronolog's dates"


def test_two_columns_of_one_name_are_refused():
    """pandas and Arrow allow two columns named alike: pandas' frame gave
    a KeyError from pyarrow's conversion (a traceback, no sentence)."""
    pandas_frame = pd.DataFrame([["a", "b", 0, 1]], columns=["c0", "c0", "start", "end"])
    arrow_table = pa.Table.from_arrays([pa.array(["a"]), pa.array(["b"]), pa.array([0]), pa.array([1])], names=["c0", "c0", "start", "end"])
    for facts in ({"p": pandas_frame}, {"p": arrow_table}, pandas_frame.assign(pred="p")):
        for engine in ("rows", "columns"):
            with pytest.raises(chronolog.ChronologError) as e:
                chronolog.reason("q(X) :- p(X, Y).", facts, engine=engine)
            assert e.value.message.startswith("the table for ") and e.value.message.endswith(" has two columns named 'c0'"), e.value.message


def test_a_row_without_pred_in_a_frame_of_every_predicate_says_so():
    """A null in the ``pred`` column was sorted beside the names first: a
    TypeError ('<' between NoneType and str) instead of the error written
    for it."""
    frame = pd.DataFrame({"pred": ["p", None], "c0": ["a", "b"], "start": [0, 0], "end": [1, 1]})
    for facts in (frame, pl.from_pandas(frame), pa.Table.from_pandas(frame)):
        with pytest.raises(chronolog.ChronologError) as e:
            chronolog.reason("q(X) :- p(X).", facts)
        assert e.value.message == "a row of the facts table has no pred" and e.value.hint == "fill the pred column"


def test_a_start_column_named_in_another_case_is_named_in_the_hint():
    """``Start``/``End`` (a spreadsheet's header) were reported only as "no
    'start' column", with the column there under the engineer's eyes."""
    frame = pd.DataFrame({"c0": ["a"], "Start": [0], " end": [1]})
    with pytest.raises(chronolog.ChronologError) as e:
        chronolog.reason("q(X) :- p(X).", {"p": frame})
    assert e.value.message == "the table for p has no 'start' column"
    assert e.value.hint.startswith("rename the column 'Start' to 'start' (the names are read exactly); ")
    with pytest.raises(chronolog.ChronologError) as e:
        chronolog.reason("q(X) :- p(X).", {"p": frame.rename(columns={"Start": "start"})})
    assert e.value.hint.startswith("rename the column ' end' to 'end' ")


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_polars_128_bit_integers_are_read_as_the_same_integers(engine):
    """A Polars Int128 or UInt128 column stopped on pyarrow's ArrowInvalid
    ("unsupported format string '_pli128'"), a traceback: Arrow has no
    128-bit integers.  They are read as the exact integers they hold."""
    big = 2**100
    for dtype in (pl.Int128, pl.UInt128):
        for rows in (2, 12_000):  # (small, and past the table threshold)
            df = pl.DataFrame({"c0": pl.Series([big, 5] * (rows // 2), dtype=dtype), "start": pl.Series(list(range(rows)), dtype=dtype), "end": list(range(1, rows + 1))})
            m = chronolog.reason("q(X) :- p(X), X > 10.", {"p": df}, engine=engine)
            assert m.facts("q")[0] == ((big,), (0, 1, True, True)), dtype
            assert len(m.facts("q")) == rows // 2


@pytest.mark.parametrize("value", ["true", "TRUE", "#T"])
def test_a_closedness_of_text_says_the_column_must_hold_booleans(value):
    """A closedness column of the text 'true' (a CSV read with dtype=str)
    was refused with the hint "start_closed is true or false", which it
    seemed to be: the hint says a text is no boolean and how to convert."""
    import pandas as pd

    df = pd.DataFrame({"c0": ["a"], "start": [3], "end": [5], "start_closed": [value]})
    with pytest.raises(chronolog.ChronologError) as e:
        chronolog.reason("q(X) :- p(X).", {"p": df})
    assert e.value.message == f"p: start_closed is {value!r} in the row c0='a'"
    assert "is text, not a boolean" in e.value.hint and ".str.lower() == \"true\"" in e.value.hint, e.value.hint


@settings(max_examples=examples(60), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(["s", "ms", "us"]), st.sampled_from([None, "UTC", "Asia/Tokyo", "America/New_York"]),
       st.lists(st.datetimes(dt.datetime(1, 1, 2), dt.datetime(9999, 12, 30)), min_size=1, max_size=30))
def test_timestamp_arguments_of_every_unit_and_zone_are_the_rows_instants(unit, tz, stamps):
    """Timestamp arguments of any unit, with any zone or none, across
    Python's years (their instants made by numpy, engine/term_types.instants):
    the columns' answers are the rows' (text and Arrow)."""
    per = {"s": 1_000_000, "ms": 1000, "us": 1}[unit]
    values = [s.replace(microsecond=s.microsecond // per * per) for s in stamps]
    table = pa.table({"k": [f"k{i % 3}" for i in range(len(values))],
                      "t": pa.array(values, pa.timestamp(unit)).cast(pa.timestamp(unit, tz)) if tz else pa.array(values, pa.timestamp(unit)),
                      "start": list(range(len(values))), "end": [i + 2 for i in range(len(values))]})
    program = 'q(K, T) :- r(K, T).\nlate(T) :- r(K, T), T > 2000-01-01T12:00.\nsame(K, J) :- r(K, T), r(J, T), K != J.\n@output("q"). @output("late"). @output("same").\n'
    rows = chronolog.reason(program, {"r": table}, engine="rows")
    got = chronolog.reason(program, {"r": table}, engine="columns")
    assert got.to_text() == rows.to_text()
    for p in ("q", "late", "same"):
        assert got.to_arrow(p).equals(rows.to_arrow(p)), p
