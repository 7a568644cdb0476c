"""Where a table's times are and which ends are closed, when its column
names do not say it (connectors/table_times.py): ``@timeMapping`` of a
table given as facts or bound as a file, ``closed="left"`` (pandas'
word for ``[start, end)``), and start and end columns of two types.

The answers are checked against the same facts given as rows with their
closedness written out (the dictionary form), on rows and columns, and on
Spark against the embedded engine (marked ``spark``)."""

import warnings
from decimal import Decimal
from fractions import Fraction

import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import chronolog
from chronolog.engine.arrow import table_to_rows
from chronolog.language.errors import ArgumentError, ProgramError

pa = pytest.importorskip("pyarrow")

PROGRAM = "q(X) :- p(X).\nr(X) :- <->[0,1] p(X), p(Y), X != Y.\n@output(\"q\"). @output(\"r\").\n"
HALF_OPEN = {"p": [(("a",), (0, 5, True, False)), (("b",), (5, 9, True, False))]}


def answers(model):
    return {k: sorted(model.facts(k)) for k in ("q", "r")}


def want(rows=HALF_OPEN):
    return answers(chronolog.reason(PROGRAM, rows))


def frames(table):
    """The table as each kind of frame ``reason`` takes."""
    import polars as pl

    return {"arrow": table, "pandas": table.to_pandas(), "polars": pl.from_arrow(table)}


@pytest.mark.parametrize("engine", ["rows", "columns"])
@pytest.mark.parametrize("kind", ["arrow", "pandas", "polars"])
def test_time_mapping_places_the_times_of_a_table_given_as_facts(kind, engine):
    """It was passed over: a table with start and end columns was read
    closed at both ends against the annotation's #F, one with other names
    refused for lacking a start column."""
    table = pa.table({"c0": ["a", "b"], "from": [0, 5], "to": [5, 9]})
    prog = '@timeMapping("p", 1, 2, #T, #F).\n' + PROGRAM
    assert answers(chronolog.reason(prog, {"p": frames(table)[kind]}, engine=engine)) == want()
    named = pa.table({"c0": ["a", "b"], "start": [0, 5], "end": [5, 9]})
    assert answers(chronolog.reason(prog, {"p": frames(named)[kind]}, engine=engine)) == want()


def test_time_mapping_of_one_column_reads_time_points():
    table = pa.table({"c0": ["a", "b"], "ts": [3, 4], "v": [1, 2]})
    model = chronolog.reason('@timeMapping("p", 1, 1).\nq(X, V) :- p(X, V).', {"p": table})
    assert model.facts("q") == [(("a", 1), (3, 3, True, True)), (("b", 2), (4, 4, True, True))]


def _refused_readings(table, prog, kind, tmp_path):
    """The DataError of ``prog`` over ``table`` given as the frame ``kind``
    or bound as a Parquet file, and the place it should name."""
    import pyarrow.parquet as pq

    if kind == "parquet":
        pq.write_table(table, tmp_path / "r.parquet")
        prog = f'@bind("reading", "parquet", "{tmp_path}", "r.parquet").\n' + prog
        facts, where = None, f"{tmp_path}/r.parquet: "
    else:
        facts, where = {"reading": frames(table)[kind]}, "the table for reading: "
    with pytest.raises(chronolog.DataError) as e:
        chronolog.reason(prog, facts)
    return e, where


@pytest.mark.parametrize("kind", ["arrow", "pandas", "polars", "parquet"])
def test_a_null_time_point_is_refused_with_its_row(kind, tmp_path):
    """A reading whose timestamp is missing (pandas' NaT) read as a start
    and an end both null, unbounded: ``hot(m1)@(-inf,+inf)``, a reading
    that held forever."""
    from datetime import datetime

    ts = pa.array([datetime(2024, 3, 1, 10, 0), None, datetime(2024, 3, 1, 10, 0)], pa.timestamp("us"))
    table = pa.table({"machine": ["m1", "m1", "m2"], "ts": ts, "temp": [85, 86, 90]})
    prog = '@timeGranularity("minutes").\n@timeMapping("reading", 1, 1).\nhot(M) :- <->[0,1) reading(M, V), V > 80.\n'
    e, where = _refused_readings(table, prog, kind, tmp_path)
    assert str(e.value).startswith(
        where + "data error: the column ts, which @timeMapping of reading reads as each row's time point, "
        "is empty (null) in row 1: machine='m1', ts=None, temp=86")
    assert "dropna(subset=['ts'])" in e.value.hint
    kept = table.filter(pa.compute.is_valid(table.column("ts")))
    model = chronolog.reason(prog, {"reading": kept})
    assert model.to_text() == ("hot(m1)@[2024-03-01T10:00:00,2024-03-01T10:01:00)\n"
                               "hot(m2)@[2024-03-01T10:00:00,2024-03-01T10:01:00)")


@pytest.mark.parametrize("kind", ["arrow", "pandas", "parquet"])
def test_epoch_seconds_on_a_date_timeline_are_refused_by_their_column(kind, tmp_path):
    """A column of epoch seconds placed by @timeMapping was refused as
    "column start of reading holds numbers", a column the table does not
    have, with no word of how to make dates of them."""
    table = pa.table({"machine": ["m1", "m2"], "ts": [1709287200, 1709287260], "temp": [85, 90]})
    prog = '@timeGranularity("minutes").\n@timeMapping("reading", 1, 1).\nhot(M) :- reading(M, V), V > 80.\n'
    e, where = _refused_readings(table, prog, kind, tmp_path)
    assert str(e.value).startswith(where + "data error: the column ts, which @timeMapping of reading reads as times, "
                                   "holds numbers (int64), but the program's timeline is dates")
    assert "pandas.to_datetime(column, unit='s')" in e.value.hint


@pytest.mark.parametrize("kind", ["arrow", "pandas", "polars"])
def test_timestamps_of_a_table_on_a_numeric_timeline_are_refused_by_their_column(kind, tmp_path):
    """Timestamps placed by @timeMapping in a program without
    @timeGranularity were refused as "column start of reading holds
    dates", a column the table does not have; the error names the
    table's own column and the annotation that makes the timeline dates."""
    import datetime as dt

    table = pa.table({"machine": ["m1", "m2"], "ts": [dt.datetime(2024, 3, 1, 10), dt.datetime(2024, 3, 1, 10, 1)], "temp": [85, 90]})
    prog = '@timeMapping("reading", 1, 1).\nhot(M) :- reading(M, V), V > 80.\n'
    e, where = _refused_readings(table, prog, kind, tmp_path)
    assert str(e.value).startswith(where + "data error: the column ts, which @timeMapping of reading reads as times, "
                                   "holds dates (timestamp[us]), but the program's timeline is numeric")
    assert '@timeGranularity("days")' in e.value.hint


def test_time_mapping_past_the_table_names_its_columns():
    table = pa.table({"c0": ["a"], "start": [0], "end": [5]})
    with pytest.raises(ProgramError, match=r"@timeMapping of p: the table for p has 3 columns \(c0, start, end\), no column 5"):
        chronolog.reason('@timeMapping("p", 1, 5).\nq(X) :- p(X).', {"p": table})


def test_time_mapping_that_leaves_a_start_column_among_the_arguments_is_refused():
    table = pa.table({"c0": ["a"], "start": [0], "t1": [1], "t2": [5]})
    with pytest.raises(ProgramError, match="has a column start that @timeMapping does not place"):
        chronolog.reason('@timeMapping("p", 2, 3).\nq(X) :- p(X, Y).', {"p": table})


@pytest.mark.parametrize("engine", ["rows", "columns"])
@pytest.mark.parametrize("kind", ["arrow", "pandas", "polars"])
def test_closed_left_reads_a_table_as_half_open(kind, engine):
    table = pa.table({"c0": ["a", "b"], "start": [0, 5], "end": [5, 9]})
    assert answers(chronolog.reason(PROGRAM, {"p": frames(table)[kind]}, closed="left", engine=engine)) == want()
    assert answers(chronolog.reason(PROGRAM, {"p": frames(table)[kind]}, closed={"p": "left"}, engine=engine)) == want()


@pytest.mark.parametrize("seed", range(max(1, examples(5) // 5)))
def test_closed_left_daily_table_gives_pandas_rolling_mean(seed):
    """pandas' oracle: a daily series given as start = day, end = next day
    and read with closed="left" gets no note, and at each trading day its
    7-day mean is pandas' rolling("7D").mean()."""
    import random

    import pandas as pd

    rng = random.Random(seed)
    days = pd.bdate_range("2024-01-01", periods=30)
    close = [rng.randrange(10, 20) for _ in days]
    frame = pd.DataFrame({"ticker": "acme", "day": days, "close": close, "start": days, "end": days + pd.Timedelta(days=1)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = chronolog.reason('@timeGranularity("days").\nsma7(S, X) :- <->[0,P6D] price(S, D, V), X = avg(V).\n',
                                 {"price": frame}, closed="left")
    for day, mean in pd.Series(close, index=days).rolling("7D").mean().items():
        got = model.query(f"sma7(acme,X)@{day.date()}")
        assert [float(a.binding["X"]) for a in got] == pytest.approx([mean]), day


@pytest.mark.parametrize("closed, ends", [("right", (False, True)), ("neither", (False, False)), ("both", (True, True))])
def test_closed_names_each_pair_of_ends(closed, ends):
    table = pa.table({"c0": ["a", "b"], "start": [0, 5], "end": [5, 9]})
    rows = {"p": [(("a",), (0, 5, *ends)), (("b",), (5, 9, *ends))]}
    assert answers(chronolog.reason(PROGRAM, {"p": table}, closed=closed)) == want(rows)


def test_closed_of_a_large_table_on_columns_is_the_rows_answer():
    n = 10_000
    table = pa.table({"c0": [f"s{i // 1000}" for i in range(n)], "start": list(range(n)), "end": [i + 1 for i in range(n)]})
    rows = {"p": [((f"s{i // 1000}",), (i, i + 1, True, False)) for i in range(n)]}
    prog = "q(X) :- [-][0,2] p(X)."
    got = chronolog.reason(prog, {"p": table}, closed="left").to_text()
    assert got == chronolog.reason(prog, rows, engine="rows").to_text()
    assert got.splitlines()[0] == "q(s0)@[2,1000)"


def test_closed_in_a_session_reads_added_tables_alike():
    table = pa.table({"c0": ["a"], "start": [0], "end": [5]})
    r = chronolog.Reasoner("q(X) :- p(X).", {"p": table}, closed="left")
    r.add({"p": pa.table({"c0": ["b"], "start": [5], "end": [9]})})
    assert r.model.facts("q") == [(("a",), (0, 5, True, False)), (("b",), (5, 9, True, False))]


def test_a_session_retracts_and_amends_tables_as_it_reads_them():
    """closed= and @timeMapping hold for the tables of retract and amend
    too: [0,5) taken back from [0,5) leaves nothing."""
    mapped = pa.table({"c0": ["a"], "from": [0], "to": [5]})
    r = chronolog.Reasoner('@timeMapping("p", 1, 2, #T, #F).\nq(X) :- p(X).', {"p": mapped})
    assert r.retract({"p": mapped}).facts("q") == []
    named = pa.table({"c0": ["a"], "start": [0], "end": [5]})
    r = chronolog.Reasoner("q(X) :- p(X).", {"p": named}, closed="left")
    later = pa.table({"c0": ["a"], "start": [6], "end": [9]})
    assert r.amend({"p": named}, {"p": later}).facts("q") == [(("a",), (6, 9, True, False))]


def test_a_stream_places_the_times_of_a_pushed_table():
    """A table pushed to a Stream had its @timeMapping passed over."""
    s = chronolog.Stream('@timeMapping("p", 1, 2, #T, #F).\nq(X) :- <->[0,1] p(X).')
    s.push({"p": pa.table({"c0": ["a"], "from": [0], "to": [2]})})
    s.close()
    assert [str(f) for f in s] == ["q(a)@[0,3)"]


def test_closed_of_one_frame_of_every_predicate():
    import pandas as pd

    frame = pd.DataFrame({"pred": ["p", "p"], "c0": ["a", "b"], "start": [0, 5], "end": [5, 9]})
    assert answers(chronolog.reason(PROGRAM, frame, closed="left")) == want()


@pytest.mark.parametrize("closed, says", [
    ("lft", r"closed='lft': which ends of the intervals are closed is one of 'both', 'left', 'right', 'neither'"),
    ({"p": "[)"}, r"closed\['p'\]='\[\)': which ends"),
])
def test_a_bad_closed_is_refused(closed, says):
    table = pa.table({"c0": ["a"], "start": [0], "end": [5]})
    with pytest.raises(ArgumentError, match=says) as e:
        chronolog.reason("q(X) :- p(X).", {"p": table}, closed=closed)
    assert 'closed="left"' in e.value.hint


def test_closed_beside_closedness_columns_or_a_time_mapping_is_refused():
    table = pa.table({"c0": ["a"], "start": [0], "end": [5], "end_closed": [True]})
    with pytest.raises(ArgumentError, match="closed= was given, but the table has the column end_closed"):
        chronolog.reason("q(X) :- p(X).", {"p": table}, closed="left")
    table = pa.table({"c0": ["a"], "start": [0], "end": [5]})
    with pytest.raises(ArgumentError, match="closed= was given, and @timeMapping of p says which ends are closed"):
        chronolog.reason('@timeMapping("p", 1, 2).\nq(X) :- p(X).', {"p": table}, closed="left")


def test_a_point_read_half_open_is_an_empty_interval():
    table = pa.table({"c0": ["a"], "start": [3], "end": [3]})
    with pytest.raises(chronolog.ChronologError, match="has an empty interval"):
        chronolog.reason("q(X) :- p(X).", {"p": table}, closed="left")


MIXED = {  # start and end columns of two types, and the exact intervals they hold
    "int64, decimal": (pa.array([0, 1], pa.int64()), pa.array([Decimal("2.5"), Decimal("4")], pa.decimal128(4, 1))),
    "decimal, int64": (pa.array([Decimal("0.5"), Decimal("1")], pa.decimal128(4, 1)), pa.array([3, 4], pa.int64())),
    "int32, float64": (pa.array([0, 1], pa.int32()), pa.array([2.5, 4.0])),
    "float64, int64": (pa.array([0.5, 1.0]), pa.array([3, 4], pa.int64())),
    "text, int64": (pa.array(["0", "1/3"]), pa.array([3, 4], pa.int64())),
    "decimal(3,1), decimal(5,2)": (pa.array([Decimal("0.5"), Decimal("1")], pa.decimal128(3, 1)),
                                   pa.array([Decimal("3.25"), Decimal("4")], pa.decimal128(5, 2))),
    "int32, int64": (pa.array([0, 1], pa.int32()), pa.array([3, 4], pa.int64())),
}


def _mixed(label):
    from chronolog.language.timeline import parse_number

    start, end = MIXED[label]
    table = pa.table({"c0": ["a", "b"], "start": start, "end": end})
    exact = [parse_number(str(v)) if isinstance(v, str) else Fraction(str(v)) for v in start.to_pylist() + end.to_pylist()]
    rows = {"p": [(("a",), (exact[0], exact[2])), (("b",), (exact[1], exact[3]))]}
    return table, rows


@pytest.mark.parametrize("engine", ["rows", "columns"])
@pytest.mark.parametrize("label", list(MIXED))
def test_start_and_end_of_two_types_are_read_exactly(label, engine, tmp_path):
    import pyarrow.parquet as pq

    table, rows = _mixed(label)
    expected = want(rows)
    assert answers(chronolog.reason(PROGRAM, {"p": table}, engine=engine)) == expected
    pq.write_table(table, tmp_path / "p.parquet")
    bound = f'@bind("p", "parquet", "{tmp_path}", "p.parquet").\n' + PROGRAM
    assert answers(chronolog.reason(bound, engine=engine)) == expected


@pytest.mark.parametrize("label", ["int32, int64", "int32, float64", "float64, int64"])
def test_integer_and_float_ends_of_two_types_go_to_columns(label):
    """A large table whose start and end are integers of two widths, or an
    integer beside a float64, is read by the columns' kernels (it went to
    the rows for its two types), with the rows' answers."""
    from chronolog.connectors.table_columns import read_table_columns

    start, end = MIXED[label]
    n = 10_000
    table = pa.table({"c0": [f"s{i % 5}" for i in range(n)],
                      "start": pa.concat_arrays([start] * (n // 2)), "end": pa.concat_arrays([end] * (n // 2))})
    assert read_table_columns(table, "p", None) is not None
    assert chronolog.reason(PROGRAM, {"p": table}).to_text() == chronolog.reason(PROGRAM, {"p": table}, engine="rows").to_text()


def test_an_integer_end_past_a_float_is_read_by_the_rows():
    """An integer end no float64 holds (2**53 + 1) beside float64 starts is
    left to the rows, which keep it exact."""
    from chronolog.connectors.table_columns import read_table_columns

    n = 10_000
    table = pa.table({"c0": ["a"] * n, "start": [0.5] * n, "end": pa.array([2**53 + 1] * n, pa.int64())})
    assert read_table_columns(table, "p", None) is None
    assert chronolog.reason("q(X) :- p(X).", {"p": table}).facts("q") == [(("a",), (Fraction(1, 2), 2**53 + 1, True, True))]


# ---------------------------------------------------------------- Spark


def _spark_answers(spark, program, inputs, **options):
    from chronolog import spark as cs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = cs.reason(spark, program, inputs=inputs, arrow=True, **options)
    return {k: sorted(table_to_rows(v, k)) for k, v in out.items()}


PATHS = [(False, None), (True, None), (True, -1)]
PATH_IDS = ["driver", "distributed", "rounds"]


@pytest.mark.spark
@pytest.mark.parametrize("distributed, one_task_bytes", PATHS, ids=PATH_IDS)
def test_spark_time_mapping_and_closed_of_inputs(spark, distributed, one_task_bytes, tmp_path):
    import pyarrow.parquet as pq

    mapped = pa.table({"c0": ["a", "b"], "from": [0, 5], "to": [5, 9]})
    named = pa.table({"c0": ["a", "b"], "start": [0, 5], "end": [5, 9]})
    tm = '@timeMapping("p", 1, 2, #T, #F).\n'
    options = dict(distributed=distributed, one_task_bytes=one_task_bytes)
    for inp in (mapped, mapped.to_pandas(), spark.createDataFrame(mapped.to_pandas())):
        assert _spark_answers(spark, tm + PROGRAM, {"p": inp}, **options) == want()
    for inp in (named, named.to_pandas(), spark.createDataFrame(named.to_pandas())):
        assert _spark_answers(spark, PROGRAM, {"p": inp}, closed="left", **options) == want()
    pq.write_table(mapped, tmp_path / "p.parquet")
    for kind in ("spark parquet", "parquet"):
        bound = f'@bind("p", "{kind}", "{tmp_path}", "p.parquet").\n' + tm + PROGRAM
        assert _spark_answers(spark, bound, None, **options) == want()


@pytest.mark.spark
@pytest.mark.parametrize("distributed, one_task_bytes", PATHS, ids=PATH_IDS)
def test_spark_start_and_end_of_two_types(spark, distributed, one_task_bytes):
    for label in MIXED:
        table, rows = _mixed(label)
        df = spark.createDataFrame(table.to_pylist() if label.startswith("text") else table.to_pandas())
        for inp in (table, df):
            got = _spark_answers(spark, PROGRAM, {"p": inp}, distributed=distributed, one_task_bytes=one_task_bytes)
            assert got == want(rows), label



@pytest.mark.spark
@pytest.mark.parametrize("distributed, one_task_bytes", PATHS, ids=PATH_IDS)
def test_spark_time_mapping_of_timestamp_points_on_a_date_timeline(spark, distributed, one_task_bytes):
    """Sensor readings with one timestamp column: on the driver path
    (distributed=False) the rows read from the input, their times already
    placed, were placed again as raw facts and refused: "the interval
    (28487881, 28487881, True, True) has numbers as time points"."""
    from datetime import datetime, timezone

    from chronolog import spark as cs

    ts = [datetime(2024, 3, 1, 10, 0), datetime(2024, 3, 1, 10, 1), datetime(2024, 3, 1, 10, 0)]
    table = pa.table({"machine": ["m1", "m1", "m2"], "ts": pa.array(ts, pa.timestamp("us")), "temp": [85, 86, 70]})
    prog = '@timeGranularity("minutes").\n@timeMapping("reading", 1, 1).\nhot(M) :- <->[0,1) reading(M, V), V > 80.\n'
    utc = timezone.utc  # (timestamps=True: time columns as UTC timestamps)
    want = [{"c0": "m1", "start": datetime(2024, 3, 1, 10, 0, tzinfo=utc), "end": datetime(2024, 3, 1, 10, 2, tzinfo=utc),
             "start_closed": True, "end_closed": False}]
    for inp in (table, table.to_pandas(), spark.createDataFrame(table.to_pandas())):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = cs.reason(spark, prog, inputs={"reading": inp}, arrow=True, timestamps=True,
                            distributed=distributed, one_task_bytes=one_task_bytes)
        assert out["hot"].to_pylist() == want


@pytest.mark.spark
def test_spark_epoch_seconds_on_a_date_timeline_are_refused_by_their_column(spark):
    """A Spark DataFrame's time column of epoch seconds was refused as
    "column start of reading holds numbers" (in a Spark task, on the
    distributed path), a column the input does not have."""
    from chronolog import spark as cs

    df = spark.createDataFrame([("m1", 1709287200, 85)], "machine string, ts bigint, temp bigint")
    prog = '@timeGranularity("minutes").\n@timeMapping("reading", 1, 1).\nhot(M) :- reading(M, V), V > 80.\n'
    for distributed in (False, True):
        with pytest.raises(chronolog.DataError) as e:
            cs.reason(spark, prog, inputs={"reading": df}, distributed=distributed, arrow=True)
        assert str(e.value).startswith("inputs['reading']: data error: the column ts, which @timeMapping of reading "
                                       "reads as times, holds numbers (bigint), but the program's timeline is dates")


@pytest.mark.spark
@pytest.mark.parametrize("path", [dict(distributed=False), dict(distributed=True), dict(distributed=True, key={"reading": 0})])
def test_spark_a_null_time_point_of_a_spark_dataframe_is_refused(spark, path):
    """Spark SQL places a DataFrame's @timeMapping (connectors/spark.py
    _time_mapped): a null time point read as two unbounded ends held
    forever on the driver, the rounds and the keyed tasks alike."""
    from datetime import datetime

    from chronolog import spark as cs

    ts = pa.array([datetime(2024, 3, 1, 10, 0), None], pa.timestamp("us"))
    df = spark.createDataFrame(pa.table({"machine": ["m1", "m1"], "ts": ts, "temp": [85, 86]}).to_pandas())
    prog = '@timeGranularity("minutes").\n@timeMapping("reading", 1, 1).\nhot(M) :- <->[0,1) reading(M, V), V > 80.\n'
    with pytest.raises(chronolog.DataError, match="the column ts, which @timeMapping of reading reads as each row's time point, "
                       r"is empty \(null\) in a row: machine=m1, temp=86"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cs.reason(spark, prog, inputs={"reading": df}, arrow=True, **path)


@pytest.mark.parametrize(
    "facts, closed, says",
    [
        ({"p": [(("a",), (0, 5))]}, "left", "closed='left' was given, but no table of facts is: rows and text write their own ends"),
        ("p(a)@[0,5]", "left", "closed='left' was given, but no table of facts is: rows and text write their own ends"),
        ({"p": "table"}, {"pp": "left"}, "closed['pp']: no table of facts is given for pp"),
        ({"p": "table", "q": [(("a",), (0, 5))]}, {"q": "left"}, "closed['q']: no table of facts is given for q"),
    ],
)
def test_a_closed_that_no_table_reads_is_refused(facts, closed, says):
    """reason(..., closed="left") over rows or text, or closed= naming a
    predicate that has no table (a misspelt one), was dropped without a
    word: the intervals stayed closed at both ends, [0,5] where [0,5) was
    asked for."""
    import pandas as pd

    table = pd.DataFrame({"c0": ["a"], "start": [0], "end": [5]})
    if isinstance(facts, dict):
        facts = {k: table if v == "table" else v for k, v in facts.items()}
    with pytest.raises(chronolog.ChronologError) as e:
        chronolog.reason("r(X) :- p(X).  s(X) :- q(X).", facts, closed=closed)
    assert e.value.message == says and e.value.hint
    assert chronolog.reason("r(X) :- p(X).", {"p": table}, closed="left").to_text() == "r(a)@[0,5)"
    session = chronolog.Reasoner("r(X) :- p(X).", "p(b)@[0,1]", closed="left")  # (a session's updates may bring tables)
    assert session.add({"p": table}).to_text() == "r(a)@[0,5)\nr(b)@[0,1]"


def test_whole_times_of_a_table_reach_the_run_as_numbers():
    """A table's integer, date and whole-unit timestamp ends are handed to
    the columns as int64 units (no Python pass over each distinct time for
    the run's scale); timestamps between the units stay exact points; each
    gives the rows' answers: fractions over one denominator, whose scale the
    run reads from that denominator (no Fraction per distinct time)."""
    import datetime
    from fractions import Fraction

    from chronolog.connectors.table_columns import read_table_columns
    from chronolog.engine.columns.encoding import TimeScale
    from chronolog.language.dates import Calendar

    n = 12_000
    day = datetime.date(2024, 1, 1)
    days = [day + datetime.timedelta(days=i) for i in range(n + 1)]
    at = [datetime.datetime(2024, 1, 1) + datetime.timedelta(hours=6 * i) for i in range(n + 1)]
    keys = [f"k{i % 7}" for i in range(n)]
    tables = {
        "int64": (None, pa.table({"c0": keys, "start": pa.array(range(n), pa.int64()), "end": pa.array(range(1, n + 1), pa.int64())})),
        "date32": ("days", pa.table({"c0": keys, "start": pa.array(days[:-1], pa.date32()), "end": pa.array(days[1:], pa.date32())})),
        "whole timestamps": ("days", pa.table({"c0": keys, "start": pa.array([datetime.datetime.combine(d, datetime.time()) for d in days[:-1]], pa.timestamp("us")),
                                               "end": pa.array([datetime.datetime.combine(d, datetime.time()) for d in days[1:]], pa.timestamp("us"))})),
        "quarter days": ("days", pa.table({"c0": keys, "start": pa.array(at[:-1], pa.timestamp("us")), "end": pa.array(at[1:], pa.timestamp("us"))})),
    }
    for label, (unit, table) in tables.items():
        fc = read_table_columns(table, "p", None, Calendar(unit) if unit else None)
        between = fc.time_values()
        if label == "quarter days":
            first = (day - datetime.date(1970, 1, 1)).days
            assert TimeScale.for_points(between).scale == 4
            assert set(fc.parts["p"][0][1].values.tolist() + fc.parts["p"][0][2].values.tolist()) == {first + Fraction(i, 4) for i in range(n + 1)}
        else:
            assert between == [], label
        granularity = f'@timeGranularity("{unit}").\n' if unit else ""
        program = granularity + "q(X) :- <->[0,1] p(X), p(Y), X != Y.\nr(X) :- [-][0,3] p(X).\n"
        got = chronolog.reason(program, {"p": table}, closed="left", engine="columns")
        assert set(got.stats["executors"].values()) == {"columns"}, label
        rows = chronolog.reason(program, {"p": table}, closed="left", engine="rows")
        assert got.to_text() == rows.to_text(), label
        assert got.to_text().count("\n") > 7, label


@st.composite
def _instants(draw):
    """A table of timestamps in one of Arrow's units, with or without a
    zone, between the units of a drawn timeline (or on them), and the
    timeline's granularity."""
    import datetime

    unit = draw(st.sampled_from(["s", "ms", "us", "ns"]))
    tz = draw(st.sampled_from([None, "UTC"]))
    step = {"s": 10**6, "ms": 10**3, "us": 1, "ns": 1}[unit]  # (microseconds a value of the unit is a multiple of)
    base = datetime.datetime(2024, 3, 1, 9, 30)
    offsets = draw(st.lists(st.integers(0, 3 * 86_400_000_000 // step).map(lambda k: k * step), min_size=1, max_size=12))
    rows = [(f"k{draw(st.integers(0, 2))}", base + datetime.timedelta(microseconds=o)) for o in offsets]
    lengths = [draw(st.sampled_from([0, step, 250 * step, 60_000_000, 86_400_000_000])) for _ in rows]
    ts = pa.timestamp(unit, tz)
    table = pa.table({
        "c0": [k for k, _ in rows],
        "start": pa.array([t for _, t in rows], ts),
        "end": pa.array([t + datetime.timedelta(microseconds=n) for (_, t), n in zip(rows, lengths)], ts),
    })
    return table, draw(st.sampled_from(["milliseconds", "seconds", "minutes", "hours", "days"]))


@settings(max_examples=examples(100), deadline=None)
@given(_instants(), st.sampled_from(["[0,1]", "(0,2]", "[1,1]"]))
def test_timestamps_between_the_units_read_by_columns_are_the_rows(drawn, window):
    """Timestamps in any Arrow unit on any timeline, between its units or
    on them, read as fractions over one denominator by the columns: the
    answers are the rows' (a program fact of its own denominator, a
    window, a join and a negation in the same run)."""
    table, granularity = drawn
    program = (f'@timeGranularity("{granularity}").\n'
               "h(k1)@[2024-03-01T09:30:00.5,2024-03-02T00:00:00].\n"
               f"q(X) :- <->{window} p(X).\nr(X) :- p(X), h(X).\nn(X) :- p(X), not h(X).\n"
               '@output("q"). @output("r"). @output("n").\n')
    want = chronolog.reason(program, {"p": table}, engine="rows").to_text()
    assert chronolog.reason(program, {"p": table}, engine="columns").to_text() == want


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(0, 6), st.lists(st.tuples(st.integers(-10**9, 10**9), st.integers(0, 10**6), st.sampled_from(["k0", "k1"])),
                                   min_size=1, max_size=80))
def test_decimal128_times_read_by_columns_are_the_rows(scale, rows):
    """``decimal128`` start and end columns (a database's NUMERIC epoch
    seconds) go straight into columns as fractions over one denominator
    (they went to the row reader: 1M rows took 15 s) and answer as the
    rows do."""
    from decimal import Decimal as D

    q = D(1).scaleb(-scale)
    typ = pa.decimal128(18, scale)
    table = pa.table({"c0": [k for _, _, k in rows],
                      "start": pa.array([D(a).scaleb(-scale).quantize(q) for a, _, _ in rows], typ),
                      "end": pa.array([(D(a) + D(n)).scaleb(-scale).quantize(q) for a, n, _ in rows], typ)})
    _columns_answer_as_the_rows(table)


def _columns_answer_as_the_rows(table):
    """``table`` (times of a kind read straight into columns) gives the
    rows' answers on columns: text and Arrow tables."""
    from chronolog.connectors.table_columns import read_table_columns

    assert read_table_columns(table, "p", None, None) is not None
    program = 'q(X) :- <->[0,1] p(X).\nr(X) :- p(X), not s(X).\ns(k1)@[0,0.5].\n@output("q"). @output("r").\n'
    want = chronolog.reason(program, {"p": table}, engine="rows")
    got = chronolog.reason(program, {"p": table}, engine="columns")
    assert got.to_text() == want.to_text()
    for pred in ("q", "r"):
        assert got.to_arrow(pred).equals(want.to_arrow(pred))


FLOAT_ENDS = st.one_of(st.integers(-10**6, 10**6).map(lambda i: i / 10), st.integers(-10**4, 10**4).map(float),
                       st.sampled_from([0.1 + 0.2, 1 / 3, 2.5e-7, 1e15 + 0.5, -0.0, 1709285400.137]))


@settings(max_examples=examples(80), deadline=None)
@given(st.lists(st.tuples(FLOAT_ENDS, FLOAT_ENDS, st.sampled_from(["k0", "k1"])), min_size=1, max_size=60))
def test_float64_time_columns_read_by_columns_are_the_rows(rows):
    """float64 start and end columns read straight into columns, over one
    denominator where every float's exact time fits 64 bits (else each as
    its own value): the answers are the rows'."""
    rows = [(min(a, b), max(a, b), k) for a, b, k in rows]
    table = pa.table({"c0": [k for _, _, k in rows], "start": [a for a, _, _ in rows], "end": [b for _, b, _ in rows],
                      "start_closed": [True] * len(rows), "end_closed": [True] * len(rows)})
    _columns_answer_as_the_rows(table)


@st.composite
def _unbounded_tables(draw):
    """A table whose ends are of a drawn kind, some unbounded (a null start
    or end; a float's -inf start or +inf end), and its timeline's
    granularity (None: numbers)."""
    import datetime

    kind = draw(st.sampled_from(["int64", "float64 null", "float64 inf", "date32", "timestamp", "decimal128"]))
    rows = draw(st.lists(st.tuples(st.integers(-50, 50), st.integers(0, 8), st.sampled_from(["k0", "k1", "k2"]),
                                   st.sampled_from([None, "start", "end", "both"]), st.booleans(), st.booleans()),
                         min_size=1, max_size=40))
    starts = [None if u in ("start", "both") else a for a, _, _, u, _, _ in rows]
    ends = [None if u in ("end", "both") else a + n for a, n, _, u, _, _ in rows]
    # (a point is closed at both ends; an unbounded end's closedness is its own, never read)
    start_closed = [lc or (n == 0 and u is None) for _, n, _, u, lc, _ in rows]
    end_closed = [hc or (n == 0 and u is None) for _, n, _, u, _, hc in rows]
    granularity, typ = None, pa.int64()
    if kind.startswith("float64"):
        typ = pa.float64()
        starts = [s / 4 if s is not None else None for s in starts]
        ends = [e / 4 if e is not None else None for e in ends]
        if kind == "float64 inf":
            starts = [-float("inf") if s is None else s for s in starts]
            ends = [float("inf") if e is None else e for e in ends]
    elif kind == "date32":
        granularity, typ = "days", pa.date32()
        day = datetime.date(2024, 1, 1)
        starts = [None if s is None else day + datetime.timedelta(days=s) for s in starts]
        ends = [None if e is None else day + datetime.timedelta(days=e) for e in ends]
    elif kind == "timestamp":  # (a quarter of an hour on a timeline of hours: between its units)
        granularity, typ = "hours", pa.timestamp("us")
        at = datetime.datetime(2024, 1, 1)
        starts = [None if s is None else at + datetime.timedelta(minutes=15 * s) for s in starts]
        ends = [None if e is None else at + datetime.timedelta(minutes=15 * e) for e in ends]
    elif kind == "decimal128":
        typ = pa.decimal128(12, 2)
        starts = [None if s is None else Decimal(s) / 4 for s in starts]
        ends = [None if e is None else Decimal(e) / 4 for e in ends]
    table = pa.table({"c0": [k for _, _, k, _, _, _ in rows], "start": pa.array(starts, typ), "end": pa.array(ends, typ),
                      "start_closed": start_closed, "end_closed": end_closed})
    return table, granularity


@settings(max_examples=examples(100), deadline=None)
@given(_unbounded_tables())
def test_unbounded_ends_read_by_columns_are_the_rows(drawn):
    """A table's null starts and ends (and a float column's infinities) are
    unbounded ends the columns read with the rest, each distinct end
    converted once (1M rows with 1% ongoing went to the row reader: 4 s
    against 0.5 s): the answers are the rows' (windows reaching into and
    out of the infinities, a join, a negation, a box), as are the facts'
    hull and, given to rows, each fact's interval."""
    from chronolog.connectors.table_columns import read_table_columns
    from chronolog.language.dates import Calendar

    table, granularity = drawn
    fc = read_table_columns(table, "p", None, Calendar(granularity) if granularity else None)
    assert fc is not None
    rows = table_to_rows(table, "p", Calendar(granularity) if granularity else None)
    want_hull = (min(iv[0] for _, iv in rows), max(iv[1] for _, iv in rows))
    assert fc.time_hull() == want_hull
    assert sorted(fc.rows()["p"]) == sorted(rows)
    head = f'@timeGranularity("{granularity}").\ns(k1)@[2023-12-31,2024-01-02].\n' if granularity else "s(k1)@[-3,2].\n"
    program = head + ("q(X) :- <->[0,1] p(X).\nb(X) :- [-][0,2] p(X).\nf(X) :- <+>[1,3] p(X).\n"
                      "r(X) :- p(X), s(X).\nn(X) :- p(X), not s(X).\n")
    want = chronolog.reason(program, {"p": table}, engine="rows")
    got = chronolog.reason(program, {"p": table}, engine="columns")
    assert set(got.stats["executors"].values()) == {"columns"}
    assert got.to_text() == want.to_text()
    for pred in ("q", "b", "f", "n"):
        assert got.to_arrow(pred).equals(want.to_arrow(pred))


@pytest.mark.parametrize("granularity", [None, "days"])
def test_an_end_column_of_nulls_alone_is_unbounded_on_both_executors(granularity):
    """A pandas frame whose every end is None (Arrow's null type, no other
    type to read) holds every fact until further notice on rows as on
    columns (the rows refused it as "numbers on a date timeline" once the
    columns read it; the hunt of the tables' property test found them
    apart)."""
    import datetime

    import pandas as pd

    start = [datetime.date(2024, 1, 1), datetime.date(2024, 1, 3)] if granularity else [1, 3]
    frame = pd.DataFrame({"c0": ["a", "b"], "start": start, "end": [None, None]})
    program = (f'@timeGranularity("{granularity}").\n' if granularity else "") + "q(X) :- <->[0,1] p(X).\n"
    want = "q(a)@[2024-01-01,+inf)\nq(b)@[2024-01-03,+inf)" if granularity else "q(a)@[1,+inf)\nq(b)@[3,+inf)"
    for engine in ("rows", "columns"):
        assert chronolog.reason(program, {"p": frame}, engine=engine).to_text() == want, engine
