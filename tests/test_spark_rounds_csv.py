"""CSV inputs read by Spark's CSV reader (``@bind("p", "spark csv", ...)``)
in Spark's relational rounds, with no key: each column typed in SQL as
the embedded CSV reader types its cells (connectors/spark_rounds/csv_inputs.py),
where one Spark task ran every such program before.  The oracle is the
embedded engine on the same file bound as ``"csv"`` (connectors/csv_files.py)."""

import contextlib
import warnings

import pytest

import chronolog
from chronolog.engine.arrow import table_to_rows
from test_spark_term_types import _time_zone

pytestmark = pytest.mark.spark


def cs():
    from chronolog import spark

    return spark


def _programs(tmp_path, text: str, rules: str, name: str = "r.csv", packed=bytes):
    """The CSV ``text`` as ``r/NAME`` (its UTF-8 bytes given to ``packed``:
    compressed), and the program ``rules`` over it bound through Spark
    (``p.vada``) and embedded (``e.vada``)."""
    (tmp_path / "r").mkdir(exist_ok=True)
    (tmp_path / "r" / name).write_bytes(packed(text.encode("utf-8")))
    (tmp_path / "p.vada").write_text(f'@bind("r", "spark csv", "r", "{name}").\n' + rules)
    (tmp_path / "e.vada").write_text(f'@bind("r", "csv", "r", "{name}").\n' + rules)
    return tmp_path / "p.vada", tmp_path / "e.vada"


def _run(spark, program, stats, rounds=True):
    """``cs.reason`` with no key and never one task by size; ``rounds``: a
    fall back to one task is an error."""
    from chronolog.connectors.spark_paths import ONE_TASK_CONF

    with warnings.catch_warnings():
        if rounds:
            warnings.simplefilter("error", cs().OneTaskFallback)
        spark.conf.set(ONE_TASK_CONF, "-1")
        try:
            return {p: df.toArrow() for p, df in cs().reason(spark, program, distributed=True, stats=stats).items()}
        finally:
            spark.conf.unset(ONE_TASK_CONF)


def _terms(fact):
    """A fact with ``#T``/``#F`` as the language's terms (a model's facts give Python booleans)."""
    from chronolog.language.booleans import term

    terms, iv = fact
    return tuple(map(term, terms)), iv


def _same_as_embedded(spark, tmp_path, text, rules, outputs, **file):
    from chronolog.language.programs import read_program

    p, e = _programs(tmp_path, text, rules, **file)
    calendar = read_program(e).calendar
    model = chronolog.reason(e)
    stats = {}
    got = _run(spark, p, stats)
    assert stats["path"] == "relational", stats
    for o in outputs:
        want = set(map(_terms, model.facts(o)))
        have = list(map(_terms, table_to_rows(got[o], o, calendar, timestamps="times")))
        assert len(set(have)) == len(have) and set(have) == want, (o, set(have) - want, want - set(have))
    assert any(model.facts(o) for o in outputs)
    return model


REACH = """reach(X, Y) :- r(X, Y).
reach(X, Z) :- reach(X, Y), r(Y, Z).
@output("reach").
"""


def test_recursion_over_names_numbers_and_quoted_cells(spark, tmp_path):
    """A keyless recursion over a CSV whose columns mix names, numbers
    written alike and apart (``1``, ``1.0``, ``01``, ``1/3``, ``2/6``),
    ``#T``, quoted cells (with commas and blanks), empty cells, and
    decimal and infinite times: the embedded model."""
    text = ("x,y,start,end\n"
            "a,1,0,5\n1.0,b,1,7.5\n01,\"c, d\",2,+inf\n\"c, d\",1/3,-inf,3\n2/6,#T,0.25,4\n"
            "#T,\" e \",1,9\n\" e \",,0,2\n,a,1,3\nb,x y,0,1\n")
    _same_as_embedded(spark, tmp_path, text, REACH, ["reach"])


@pytest.mark.parametrize("dated", [False, True])
def test_empty_time_cells_are_unbounded_ends(spark, tmp_path, dated):
    """An empty start or end cell (pandas' ``to_csv`` and DuckDB's ``COPY``
    write a missing ``valid_to`` so; Spark's reader gives it as null),
    a quoted empty one and one of blanks are unbounded, as the embedded
    reader reads them: they stopped the driver's tasks with "'' is not a
    number" and sent the rounds to one task."""
    day = (lambda d: f"2024-01-{d:02d}") if dated else str
    text = ("x,y,start,end\n" + f"a,b,{day(1)},\nb,c,,{day(5)}\nc,a,{day(2)},\"\"\na,c, ,{day(9)}\nc,d,{day(3)},{day(4)}\n"
            + ",,,\n")  # (a row of empty cells: skipped, as the embedded reader skips it)
    head = '@timeGranularity("days").\n' if dated else ""
    model = _same_as_embedded(spark, tmp_path, text, head + REACH, ["reach"])
    shown = model.to_text()
    assert "+inf)" in shown and "(-inf," in shown


@pytest.mark.parametrize("kind", ["gz", "zst"])
def test_a_compressed_file_as_the_embedded_reader_reads_it(spark, tmp_path, kind):
    """``r.csv.gz`` (Spark's reader decompresses it by its name): the
    embedded model of the same file, also where cells the two readers
    trim apart (``a\u00a0``) send the file to the embedded reader's
    parse of its bytes in a task, which decompresses them (they were
    refused as "not UTF-8 text")."""
    from test_compressed_files import compress

    blank = " \u00a0"  # (a no-break space: Spark keeps it, the embedded reader trims it)
    text = "x,y,start,end\n" + "".join(f"n{i % 7},n{(i * 3) % 7}{blank if i % 5 == 0 else ''},{i},{i + 4}\n" for i in range(40))
    model = _same_as_embedded(spark, tmp_path, text, REACH, ["reach"], name=f"r.csv.{kind}", packed=lambda b: compress(b, kind))
    assert model.to_text() == chronolog.reason(_programs(tmp_path, text, REACH)[1]).to_text()


@pytest.mark.parametrize("name, kind, says, hint", [
    ("r.csv.xz", "xz", "xz-compressed, which Spark's CSV reader does not decompress", 'bind it as "csv"'),
    ("r.csv", "gz", "gzip-compressed, but Spark tells a compressed file by its name", "name it r.csv.gz")])
def test_a_compressed_file_spark_would_read_as_text_is_refused(spark, tmp_path, name, kind, says, hint):
    """Spark reads an xz file, or a gzip file not named ``.gz``, as text:
    its columns would be the compressed bytes ("no 'start' column")."""
    from test_compressed_files import compress

    p, e = _programs(tmp_path, "x,y,start,end\na,b,0,1\n", REACH, name=name, packed=lambda b: compress(b, kind))
    assert chronolog.reason(e).to_text() == "reach(a,b)@[0,1]"  # (the embedded reader reads it by its bytes)
    with pytest.raises(chronolog.DataError, match=says) as got:
        _run(spark, p, {})
    assert str(got.value.pos).endswith(name) and hint in got.value.hint


def test_an_empty_time_point_is_refused(spark, tmp_path):
    """One column as both ends (``@timeMapping(r, 2, 2)``): an empty cell
    is a reading without a time, refused as the embedded readers refuse
    it, not read as two unbounded ends (a fact that held forever)."""
    text = "x,y,t\na,b,1\nb,c,\nc,a,3\n"
    rules = '@timeMapping("r", 2, 2).\n' + REACH
    p, e = _programs(tmp_path, text, rules)
    with pytest.raises(chronolog.DataError, match="the time point is empty") as want:
        chronolog.reason(e)
    for rounds in (False, True):
        with pytest.raises(chronolog.DataError) as got:
            _run(spark, p, {}, rounds=rounds)
        assert (str(got.value.pos), got.value.message, got.value.hint) == (str(want.value.pos), want.value.message, want.value.hint)


def test_numbers_compared_and_names_joined(spark, tmp_path):
    """Integer and decimal columns are numbers the rounds compare and
    compute on; a column of names is strings; the program's constants meet
    them: the embedded model."""
    text = ("s,v,w,start,end\n" + "".join(f"n{i % 7},{i * 3 - 20},{i / 4},{i},{i + 5}\n" for i in range(60))
            + "n3,+7,+1.50,-0,.5\nn4,007,-0.0,+2.,3\nn5,-0,\" .25 \",1,2\n")  # signs, leading zeros, a quoted number
    rules = ('high(S, V) :- r(S, V, W), V > 10, W < 12.5.\nsum(S, T) :- r(S, V, W), T = V + W.\n'
             'pair(S, T) :- r(S, V, W), r(T, V2, W2), V2 = V + 3, S != T.\nhit(S) :- r(S, 7, W).\nn3(W) :- r(n3, V, W).\n'
             '@output("high"). @output("sum"). @output("pair"). @output("hit"). @output("n3").\n')
    _same_as_embedded(spark, tmp_path, text, rules, ["high", "sum", "pair", "hit", "n3"])


def test_mapped_columns(spark, tmp_path):
    """Columns mapped ``string`` (``007`` apart from ``7``), ``bool``
    (``yes``, ``#T``, ``0``), ``float`` and ``date`` (dates, datetimes and
    UTC offsets, +02:00, +0200 and +02) read as the embedded reader reads them."""
    text = ("s,b,f,d,start,end\n007,yes,0.1,2024-01-01,0,5\n7,#T,1e3,2024-01-01T00:00:00,1,6\n"
            " x ,0,-0.0,2024-01-01T05:30:00+05:30,2,3\n7,false,2.5,2023-12-31T19:00-05:00,0,4\n"
            "y,1,3.5,2024-01-01 05:30:00+0530,1,2\nz,0,4.5,2023-12-31 19:00:00-05,2,4\nw,1,5.5,2024-01-01+02:00,3,4\n")
    rules = ('@mapping("r", 0, "s", "string"). @mapping("r", 1, "b", "bool"). @mapping("r", 2, "f", "float"). '
             '@mapping("r", 3, "d", "date").\n'
             'on(S) :- r(S, #T, F, D).\nsame(S, T) :- r(S, B, F, D), r(T, B2, F2, D), S != T.\nbig(S, F) :- r(S, B, F, D), F > 1.5.\n'
             'all(S, B, F, D) :- r(S, B, F, D).\n@output("on"). @output("same"). @output("big"). @output("all").\n')
    _same_as_embedded(spark, tmp_path, text, rules, ["on", "same", "big", "all"])


@pytest.mark.parametrize("zone", ["UTC", "America/New_York", "Asia/Tokyo"])
def test_dates_and_datetimes_in_time_columns(spark, tmp_path, zone):
    """On a calendar the time columns hold dates, datetimes (with seconds,
    fractions and UTC offsets) and infinite ends; a date argument joins
    them: the embedded model in any session time zone."""
    text = ("k,d,start,end\n"
            "a,2024-03-10,2024-03-09,2024-03-11\n"
            "b,2024-03-10T02:30:00,2024-03-10T01:00,2024-03-10T03:00:00.5\n"
            "a,2024-11-03,2024-11-02T23:00:00-05:00,+inf\n"
            "c,2024-01-01,-inf,2024-01-01T09:00:00+09:00\n"
            "d,2024-01-01,2023-12-31 23:00:00-0100,2024-01-01T09:00:00.250+09\n"
            "b,2024-03-10,2024-03-10 02:30:00,2024-03-12\n")
    rules = ('@timeGranularity("days"). @mapping("r", 1, "d", "date").\n'
             'near(K) :- <->[0, 1] r(K, D).\nboth(K, L) :- r(K, D), r(L, D), K != L.\n@output("near"). @output("both").\n')
    key = "spark.sql.session.timeZone"
    before = spark.conf.get(key)
    spark.conf.set(key, zone)
    try:
        model = _same_as_embedded(spark, tmp_path, text, rules, ["near"])
    finally:
        spark.conf.set(key, before)
    assert model.facts("both")


@pytest.mark.parametrize("zone", ["UTC", "America/New_York"])
def test_term_text_beside_a_calendar(spark, tmp_path, zone):
    """Columns that need term text (names beside numbers written alike and
    apart, ``1/3``, ``#T``, sets) on a calendar, with a date column joined
    to them and dates and datetimes as times: in rounds (one task before),
    the embedded model in any session time zone."""
    text = ("x,y,d,start,end\n"
            "a,1,2024-03-10,2024-03-09,2024-03-11\n"
            "1.0,b,2024-03-10,2024-03-10T01:00,2024-03-12T00:00:00.5\n"
            "01,\"c, d\",2024-03-11,2024-03-10T00:00:00+09:00,+inf\n"
            "\"c, d\",1/3,2024-03-10,-inf,2024-03-10T12:00\n"
            "2/6,#T,2024-03-12,2024-03-09,2024-03-13\n"
            "#T,\"{1,a}\",2024-03-10,2024-03-10,2024-03-14\n"
            "\"{a,1.0}\",a,2024-03-11,2024-03-11,2024-03-15\n"
            "2024-03-10,a,2024-03-10,2024-03-09,2024-03-10\n")
    rules = ('@timeGranularity("days"). @mapping("r", 2, "d", "date").\n'
             'reach(X, Y) :- r(X, Y, D).\nreach(X, Z) :- reach(X, Y), r(Y, Z, D).\n'
             'alone(X) :- r(X, Y, D), not r(Y, X, E).\nat(X, D) :- r(X, Y, D), r(Y, Z, D).\n'
             'near(X) :- <->[0, 1] r(X, Y, D).\nn(X, N) :- r(X, Y, D), N = count(Y).\n'
             '@output("reach"). @output("alone"). @output("at"). @output("near"). @output("n").\n')
    key = "spark.sql.session.timeZone"
    before = spark.conf.get(key)
    spark.conf.set(key, zone)
    try:
        _same_as_embedded(spark, tmp_path, text, rules, ["reach", "alone", "at", "near", "n"])
    finally:
        spark.conf.set(key, before)


def test_time_columns_by_position_with_closedness(spark, tmp_path):
    """Without start and end columns the last two are the interval, and
    ``start_closed``/``end_closed`` columns say which ends are closed."""
    text = "a,b,from,to,start_closed,end_closed\nx,1,0,5,true,false\ny,1,5,9,no,yes\nx,2,3,4,#T,#F\n"
    rules = 'o(A) :- r(A, B).\nj(A, C) :- r(A, B), r(C, B).\n@output("o"). @output("j").\n'
    _same_as_embedded(spark, tmp_path, text, rules, ["o", "j"])


@pytest.mark.parametrize("line, column, mapped", [
    ("b,c,abc,7", 3, None), ("b,c,1/0,7", 3, None), ("b,c,2020-01-01,7", 3, None), ("b,c,5,soon", 4, None),  # times (an empty end is unbounded: test_empty_time_cells_are_unbounded_ends)
    ("b,c,nan,7", 3, None), ("b,c,0,1e1001", 4, None),
    ("b,1/0,0,7", 2, None),  # a term with a number's shape and no value, beside names (term text)
    ("b,c,0,7", 2, "int"), ("b,nan,0,7", 2, "float"), ("b,maybe,0,7", 2, "bool"), ("b,2020-02-30,0,7", 2, "date"),
])
def test_a_bad_cell_is_the_embedded_readers_error(spark, tmp_path, line, column, mapped):
    """A cell the embedded reader refuses (as its column is mapped): its
    error, naming the file, the line and the column (the rounds find the
    column and ask that reader)."""
    first = {"int": "1", "float": "1.5", "bool": "yes", "date": "2020-01-01"}.get(mapped, "b")
    text = f"x,y,start,end\na,{first},0,5\n{line}\n"
    rules = f'@mapping("r", 1, "y", "{mapped}").\n' + REACH if mapped else REACH
    p, e = _programs(tmp_path, text, rules)
    with pytest.raises(chronolog.DataError) as want:
        chronolog.reason(e)
    with pytest.raises(chronolog.DataError) as got:
        _run(spark, p, {}, rounds=False)
    assert str(got.value) == str(want.value)
    assert f"r.csv:3:{column}" in str(got.value), str(got.value)


@pytest.mark.parametrize("rules", [
    'g(X) :- r(X, Y), Y > 0.\n@output("g").\n',  # keyed: per-key tasks
    'g(X, Z) :- r(X, Y), r(Z, W), Y > 0.\n@output("g").\n',  # no key: the rounds stop where the row compares, one task reports it
])
def test_a_comparison_of_a_csv_value_names_its_row_as_the_embedded_engine(spark, tmp_path, rules):
    """``Y > 0`` meeting ``#T`` or a name from a ``spark csv`` file: the
    error is placed at the row of the file that gave the value, as the
    embedded engine places it, not only at the rule (the row is what the
    user fixes); of two bad rows in two tasks, the one whose binding comes
    first in term order (``a`` before ``b``), as the engine picks it."""
    text = "x,y,start,end\nc,1,0,5\nb,#T,0,5\na,name,0,5\nd,2,0,5\n"
    p, e = _programs(tmp_path, text, rules)
    with pytest.raises(chronolog.DataError) as want:
        chronolog.reason(e)
    with pytest.raises(chronolog.DataError) as got:
        _run(spark, p, {}, rounds=False)
    assert "comes from this row of r (term 2)" in str(want.value)
    assert got.value.pos == want.value.pos and got.value.pos.file.endswith("r.csv") and got.value.pos.line == 4, (
        str(got.value), str(want.value))
    assert got.value.message.removeprefix("in a Spark task: ") == want.value.message.replace("e.vada", "p.vada")
    with pytest.raises(chronolog.DataError) as driver:  # (the engine on the driver named its own rows: facts['r'], item 2)
        cs().run_program(spark, p, distributed=False)
    assert driver.value.pos == want.value.pos and driver.value.message == want.value.message.replace("e.vada", "p.vada"), str(driver.value)


def test_a_comparison_of_a_parquet_value_names_its_row_as_the_embedded_engine(spark, tmp_path):
    """The same through ``spark parquet``: the row of the local file (a
    Parquet file has no lines) whose binding comes first in term order."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "r").mkdir()
    pq.write_table(pa.table({"x": ["c", "b", "a"], "y": ["p", "q", "s"], "start": [0, 0, 0], "end": [5, 5, 5]}),
                   tmp_path / "r" / "r.parquet")
    rules = 'g(X) :- r(X, Y), Y > 0.\n@output("g").\n'
    (tmp_path / "p.vada").write_text('@bind("r", "spark parquet", "r", "r.parquet").\n' + rules)
    (tmp_path / "e.vada").write_text('@bind("r", "parquet", "r", "r.parquet").\n' + rules)
    with pytest.raises(chronolog.DataError) as want:
        chronolog.reason(tmp_path / "e.vada")
    with pytest.raises(chronolog.DataError) as got:
        _run(spark, tmp_path / "p.vada", {}, rounds=False)
    assert str(want.value.pos).endswith("r.parquet, row 2"), str(want.value)
    assert got.value.pos == want.value.pos, (str(got.value), str(want.value))
    assert got.value.message.removeprefix("in a Spark task: ") == want.value.message.replace("e.vada", "p.vada")


@pytest.mark.parametrize("as_pandas", [False, True])
def test_a_comparison_of_an_input_tables_value_names_its_row_as_the_embedded_engine(spark, as_pandas):
    """The same for an Arrow or pandas table given as ``inputs``, which the
    driver holds: ``inputs['r'], row 2`` where the embedded engine, given
    it as facts, says ``facts['r'], row 2``; a Spark DataFrame's row has no
    number: the row is shown by its columns (a job finds it)."""
    import pyarrow as pa

    table = pa.table({"x": ["c", "b", "a"], "y": ["p", "q", "s"], "start": [0, 0, 0], "end": [5, 5, 5]})
    given = table.to_pandas() if as_pandas else table
    rules = 'g(X) :- r(X, Y), Y > 0.\n@output("g").\n'
    with pytest.raises(chronolog.DataError) as want:
        chronolog.reason(rules, {"r": given})
    assert str(want.value.pos) == "facts['r'], row 2", str(want.value)
    for distributed in (True, False):  # (False: the engine on the driver, which named its own rows: facts['r'], item 2)
        with pytest.raises(chronolog.DataError) as got:
            cs().reason(spark, rules, inputs={"r": given}, distributed=distributed)
        assert str(got.value.pos) == "inputs['r'], row 2", str(got.value)
        assert got.value.message.removeprefix("in a Spark task: ") == want.value.message
        with pytest.raises(chronolog.DataError) as frame:
            cs().reason(spark, rules, inputs={"r": spark.createDataFrame(table.to_pandas())}, distributed=distributed)
        assert str(frame.value.pos) == "inputs['r']", str(frame.value)
        assert frame.value.message.removeprefix("in a Spark task: ") == want.value.message
        assert frame.value.source_line == "x='a', y='s', start=0, end=5", str(frame.value)


@pytest.mark.parametrize("typ, value, shown", [("bigint", 7, "7"), ("decimal(10,2)", "2.50", "2.50"),
                                               ("double", 2.5, "2.5"), ("boolean", True, "True"),
                                               ("date", "2024-01-02", "2024-01-02"),
                                               ("timestamp", "2024-01-02 03:04:05", "2024-01-02 03:04:05"),
                                               ("timestamp_ntz", "2024-01-02 03:04:05", "2024-01-02 03:04:05"),
                                               ("timestamp Asia/Tokyo", "2024-01-02 03:04:05", "2024-01-02 03:04:05"),
                                               ("timestamp_ntz Asia/Tokyo", "2024-01-02 03:04:05", "2024-01-02 03:04:05")])
def test_a_comparison_of_a_spark_dataframes_value_names_its_row_by_its_columns(spark, typ, value, shown):
    """A value a Spark task could not compare, from a Spark DataFrame given
    as ``inputs`` whose times ``@timeMapping`` places (the columns are
    named by the user, the time point first): the error names the row that
    holds it by all its columns, and says what the embedded engine says of
    the same table given as facts (there: its row number).  Integers,
    decimals, floats and booleans, each in a column of its Spark type;
    instants with the session's time zone and the driver's not UTC too
    (the row shows its timestamp in UTC, as the message names the value,
    where ``collect()`` gives the driver's clock)."""
    import datetime
    from decimal import Decimal

    import pandas as pd
    from pyspark.sql import types as T

    typ, _, zone = typ.partition(" ")
    value = Decimal(value) if typ.startswith("decimal") else value
    other = {"bigint": 3, "decimal(10,2)": Decimal("1.25"), "double": 1.5, "boolean": False}.get(typ)
    if typ == "date":
        value, other = datetime.date.fromisoformat(value), datetime.date(2024, 1, 1)
    elif typ.startswith("timestamp"):
        value, other = datetime.datetime.fromisoformat(value), datetime.datetime(2024, 1, 1)
    rows = [(1, other, "a"), (2, value, "b")]
    schema = T.StructType([T.StructField("at", T.LongType()), T.StructField("n", T._parse_datatype_string(typ)),
                           T.StructField("name", T.StringType())])
    frame = spark.createDataFrame(pd.DataFrame(rows, columns=["at", "n", "name"]), schema)  # (from pandas: naive times are UTC)
    fine = {"boolean": "#F", "date": "2023-01-01", "timestamp": "2023-01-01T00:00:00",
            "timestamp_ntz": "2023-01-01T00:00:00"}.get(typ, "1")  # (row 1 compares: the error is row 2's)
    rules = (f'@timeMapping("r", 0, 0).\nq("a", {fine})@[0,5]. q("b", "z")@[0,5].\n'
             'g(X) :- r(N, X), q(X, Y), N > Y.\n@output("g").\n')
    with pytest.raises(chronolog.DataError) as want:
        chronolog.reason(rules, {"r": pd.DataFrame(rows, columns=["at", "n", "name"])})
    assert str(want.value.pos) == "facts['r'], row 1", str(want.value)
    for rounds in (False, True):  # (the rounds: no key, r joined with itself on another argument, never one task)
        stats = {}
        with pytest.raises(chronolog.DataError) as got, _time_zone(spark, zone or "UTC"), _driver_zone(zone):
            if rounds:
                cs().reason(spark, rules + "k(X) :- r(N, X), r(M, Y), q(Y, X).\n", inputs={"r": frame}, distributed=True,
                            one_task_bytes=-1, stats=stats)
            else:
                cs().reason(spark, rules, inputs={"r": frame}, distributed=True, stats=stats)
        assert str(got.value.pos) == "inputs['r']", str(got.value)
        assert got.value.message.removeprefix("in a Spark task: ") == want.value.message
        assert got.value.source_line == f"at=2, n={shown}, name='b'", str(got.value)


@contextlib.contextmanager
def _driver_zone(zone):
    """The driver's local time zone (Python's: the clock collect() gives) set to ``zone`` meanwhile."""
    import os
    import time

    if not zone:
        yield
        return
    old = os.environ.get("TZ")
    os.environ["TZ"] = zone
    time.tzset()
    try:
        yield
    finally:
        if old is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = old
        time.tzset()


def test_a_comparison_of_a_bound_spark_tables_value_names_its_row_by_its_columns(spark):
    """The same for a Spark table bound with ``@bind("r", "spark table",
    "", "NAME")``: the table's name, and the row by its columns."""
    import pandas as pd

    rows = pd.DataFrame({"x": ["c", "b", "a"], "y": ["p", "7", "s"], "start": [0, 0, 0], "end": [5, 5, 5]})
    spark.createDataFrame(rows).createOrReplaceTempView("bound_readings")
    rules = 'g(X) :- r(X, Y), Y > 0.\n@output("g").\n'
    try:
        with pytest.raises(chronolog.DataError) as want:
            chronolog.reason(rules, {"r": rows})
        with pytest.raises(chronolog.DataError) as got:
            cs().reason(spark, '@bind("r", "spark table", "", "bound_readings").\n' + rules, distributed=True)
    finally:
        spark.catalog.dropTempView("bound_readings")
    assert str(got.value.pos) == "bound_readings", str(got.value)
    assert got.value.message.removeprefix("in a Spark task: ") == want.value.message.replace(":1:", ":2:")
    assert got.value.source_line == "x='a', y='s', start=0, end=5", str(got.value)  # (the least binding, X = 'a', as embedded)


def test_times_with_exponents_and_fractions_on_the_grid_in_rounds(spark, tmp_path):
    """Times written with an exponent (``1e1``, ``2.5E-1``, ``.5e1``) and
    fractions whose denominators divide a power of ten (``1/2``, ``3/6``,
    ``-3/4``, ``1 / 8``), beside infinite ends spelt ``INF`` and
    ``Infinity``: in rounds (one task before), the embedded model."""
    text = ("x,y,start,end\na,b,1e1,2E1\nb,c,2.5E-1,.5e1\nc,a,1/2,7/8\n"
            + "a,c,-3/4,1 / 8\nc,d,-INF,1e0\nd,a,3/6,Infinity\nb,d,0.125,+3e-0\n")
    _same_as_embedded(spark, tmp_path, text, REACH + 'al(X) :- r(X, Y), not r(Y, X).\n@output("al").\n', ["reach", "al"])


def test_times_off_the_grid_go_to_one_task(spark, tmp_path):
    """A time 1/3 is off the decimal grid, which the rounds' times are
    on: one task, warned why, with the embedded model."""
    text = "x,y,start,end\na,b,1/3,5\nb,c,1e1,2e1\n"
    p, e = _programs(tmp_path, text, REACH)
    want = set(map(_terms, chronolog.reason(e).facts("reach")))
    stats = {}
    with pytest.warns(cs().OneTaskFallback, match="a fraction off the decimal grid"):
        got = _run(spark, p, stats, rounds=False)
    assert stats["path"] == "one task"
    assert set(map(_terms, table_to_rows(got["reach"], "reach", timestamps="times"))) == want


def test_a_header_the_mapping_does_not_name_is_refused(spark, tmp_path):
    """A ``@mapping`` naming a column the file lacks: the embedded error."""
    text = "x,y,start,end\na,b,0,5\n"
    p, e = _programs(tmp_path, text, '@mapping("r", 0, "z", "string").\n' + REACH)
    with pytest.raises(chronolog.ProgramError) as want:
        chronolog.reason(e)
    with pytest.raises(chronolog.ProgramError) as got:
        _run(spark, p, {})
    assert got.value.message == want.value.message


CELLS = ["a", "b", "1", "1.0", "01", "+1", "-0", "0.50", ".5", "1/2", "2/4", "#T", "#F", "true", '" a"', '"a"', '"1"', "",
         "x y", "inf", "-inf", "1e1", "10", '"{a,1}"', '"{1,a}"', '"c, d"', "é", "_x", "A"]
TIMES = ["0", "1", "2.5", "+3", "4.", "-1", "0.25", "7"]


@pytest.mark.slow
def test_random_cells_as_the_embedded_reader(spark, tmp_path):
    """Random CSV files of cells of every shape the reader types apart
    (numbers written alike, fractions, booleans, sets, quoted and empty
    cells, names) and decimal times: the rounds' model is the embedded
    reader's, or a fall back to one task, never another answer."""
    import random

    from budget import examples

    rng = random.Random(36)
    rules = ('j(X, Z) :- r(X, Y), r(Y, Z).\nn(X) :- r(X, Y), not r(Y, X).\nc(X, N) :- r(X, Y), N = count(Y).\n'
             '@output("j"). @output("n"). @output("c").\n')
    paths = []
    for k in range(examples(20)):
        rows = []
        for _ in range(rng.randrange(1, 25)):
            a, b = sorted(rng.sample(range(len(TIMES)), 2), key=lambda i: float(TIMES[i]))
            rows.append(f"{rng.choice(CELLS)},{rng.choice(CELLS)},{TIMES[a]},{TIMES[b]}")
        d = tmp_path / str(k)
        d.mkdir()
        p, e = _programs(d, "x,y,start,end\n" + "\n".join(rows) + "\n", rules)
        model = chronolog.reason(e)
        stats = {}
        got = _run(spark, p, stats, rounds=False)
        paths.append(stats["path"])
        for o in ("j", "n", "c"):
            have = list(map(_terms, table_to_rows(got[o], o, timestamps="times")))
            assert set(have) == set(map(_terms, model.facts(o))), (k, o, rows, stats)
    assert "relational" in paths, paths


def test_columns_of_term_text_of_one_kind_are_ordered_and_folded_in_rounds(spark, tmp_path):
    """Unmapped columns the rounds read as term text whose cells are all of
    one kind (numbers with ``1/2``, ``#T``/``#F``, ISO dates: strings to the
    CSV reader) are decoded to
    it at the load, so a rule may order, compute on and fold them in the
    rounds (they ran in one task): the embedded model."""
    text = "k,x,b,d,start,end\n" + "".join(
        f"n{i % 5},{['1/2', '3', '-3/4', '2.25'][i % 4]},{'#T' if i % 3 else '#F'},2024-0{i % 9 + 1}-0{i % 7 + 1},{i % 6},{i % 6 + 4}\n"
        for i in range(40))
    rules = ('big(K, X) :- r(K, X, B, D), X > 1/2, B == #T.\n'
             'tot(K, S, M, Y) :- r(K, X, B, D), S = sum(X * 2), M = max(B), Y = min(D).\n'
             'late(K, D) :- r(K, X, B, D), D > "2024-05-01".\n'
             'pair(K, L) :- r(K, X, B, D), r(L, X2, B2, D2), K != L, X2 = X + 1.\n'
             '@output("big"). @output("tot"). @output("late"). @output("pair").\n')
    _same_as_embedded(spark, tmp_path, text, rules, ["big", "tot", "late", "pair"])
