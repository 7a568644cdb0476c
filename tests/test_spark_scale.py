"""Spark answers that must match the embedded engine where the data's types
or the program's timeline used to make them differ (marked ``spark``):
keys of mixed types, ``@timeGranularity``, nulls, task errors, and what a
call leaves cached."""

import datetime as dt
import os
import subprocess
import sys
from decimal import Decimal

import pyarrow as pa
import pytest

import chronolog
from chronolog.engine.arrow import table_to_rows

pytestmark = pytest.mark.spark

UTC = dt.timezone.utc


def cs():
    from chronolog import spark

    return spark


def facts_of(df, pred="?", calendar=None):
    return sorted(table_to_rows(df.toArrow(), pred, calendar, timestamps="times"), key=repr)


ALARMS = """
high(S) :- reading(S, V), V > 10.
alarm(S) :- high(S), not reset(S).
@output("alarm").
"""


def test_keys_of_mixed_types_meet_in_one_task(spark):
    """1 (long) in one input and 1.0 (decimal) in the other are one key for
    the engine, so they must land in the same task."""
    n = 40
    reading = pa.table({"s": list(range(n)), "v": [20] * n, "start": [0] * n, "end": [5] * n})
    reset = pa.table(
        {"s": pa.array([Decimal(f"{i}.0") for i in range(0, n, 2)], pa.decimal128(5, 1)), "start": [0] * (n // 2), "end": [5] * (n // 2)}
    )
    model = chronolog.reason(ALARMS, {"reading": reading, "reset": reset})
    expected = sorted(model.facts("alarm"), key=repr)
    assert len(expected) == n // 2  # the odd sensors only
    out = cs().reason(
        spark, ALARMS, {"reading": spark.createDataFrame(reading), "reset": spark.createDataFrame(reset)},
        distributed=True, partitions=8,
    )
    assert facts_of(out["alarm"], "alarm") == expected


def test_a_date_and_a_timestamp_at_the_same_instant_are_one_key(spark):
    days = [dt.date(2020, 1, d) for d in range(1, 29)]
    reading = pa.table({"s": pa.array(days, pa.date32()), "v": [20] * 28, "start": [0] * 28, "end": [5] * 28})
    stamps = [dt.datetime(2020, 1, d, tzinfo=UTC) for d in range(1, 29, 2)]
    reset = pa.table({"s": pa.array(stamps, pa.timestamp("us", tz="UTC")), "start": [0] * 14, "end": [5] * 14})
    out = cs().reason(
        spark, ALARMS, {"reading": spark.createDataFrame(reading), "reset": spark.createDataFrame(reset)},
        distributed=True, partitions=8,
    )
    got = facts_of(out["alarm"], "alarm")
    # dates and timestamps are instants (engine/term_types.py): the even days stay, as dates
    assert got == sorted([((dt.datetime(d.year, d.month, d.day),), (0, 5, True, True)) for d in days[1::2]], key=repr)
    assert out["alarm"].toArrow().schema.field("c0").type == pa.date32()


DAYS = """
@timeGranularity("days").
recent(X) :- <->[0,P3D] opened(X).
@output("recent").
"""


def opened():
    return pa.table(
        {
            "x": ["a", "b"],
            "start": pa.array([dt.date(2020, 1, 1), dt.date(2020, 2, 27)], pa.date32()),
            "end": pa.array([dt.date(2020, 1, 1), dt.date(2020, 3, 1)], pa.date32()),
        }
    )


@pytest.mark.parametrize("distributed", [False, True])
def test_time_granularity_is_honoured_in_both_modes(spark, distributed):
    out = cs().reason(spark, DAYS, {"opened": spark.createDataFrame(opened())}, distributed=distributed)
    t = out["recent"].toArrow()
    assert pa.types.is_timestamp(t.schema.field("start").type)
    got = sorted(zip(t.column(0).to_pylist(), t.column("start").to_pylist(), t.column("end").to_pylist()))
    assert [(x, s.date(), e.date()) for x, s, e in got] == [
        ("a", dt.date(2020, 1, 1), dt.date(2020, 1, 4)),  # three days, not three seconds
        ("b", dt.date(2020, 2, 27), dt.date(2020, 3, 4)),  # across a leap day
    ]
    model = chronolog.reason(DAYS, {"opened": opened()})
    cal = model.calendar
    assert facts_of(out["recent"], "recent", cal) == sorted(model.facts("recent"), key=repr)


@pytest.mark.slow  # (bash test.sh --thorough)
def test_time_granularity_on_the_command_line(tmp_path):
    import pyarrow.parquet as pq

    pq.write_table(opened(), tmp_path / "o.parquet")
    (tmp_path / "p.vada").write_text('@bind("opened", "spark parquet", ".", "o.parquet").\n' + DAYS)
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    for extra in ([], ["--distributed"]):
        cmd = [sys.executable, "-m", "chronolog", "run", "p.vada", "--spark", "local[1]"] + extra
        r = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stderr[-2000:]
        assert r.stdout == "recent(a)@[2020-01-01,2020-01-04]\nrecent(b)@[2020-02-27,2020-03-04]\n", extra


@pytest.mark.parametrize("distributed", [False, True])
def test_a_null_argument_is_the_same_clear_error_in_both_modes(spark, distributed):
    reading = pa.table({"s": ["s1", None, "s3"], "v": [20, 30, 40], "start": [0, 1, 2], "end": [5, 6, 7]})
    with pytest.raises(chronolog.DataError) as e:
        out = cs().reason(spark, ALARMS, {"reading": spark.createDataFrame(reading)}, distributed=distributed)
        out["alarm"].collect()
    text = e.value.render()
    assert "reading: the column s is empty (null)" in text
    assert "s=None, v=30, start=1, end=6" in text
    assert "Traceback" not in text and "PythonException" not in text


def test_a_call_leaves_nothing_in_sparks_cache(spark):
    """Spark's cache matches plans: a result left cached would answer a
    later call on the same inputs without reasoning (and hold memory)."""
    reading = pa.table({"s": ["s1", "s2"], "v": [20, 30], "start": [0, 1], "end": [5, 6]})
    cache = spark._jsparkSession.sharedState().cacheManager()
    assert cache.isEmpty()
    out = cs().reason(spark, ALARMS, {"reading": spark.createDataFrame(reading)}, distributed=True)
    assert cache.isEmpty()
    assert sorted(r[0] for r in out["alarm"].collect()) == ["s1", "s2"]


@pytest.mark.parametrize("distributed", [False, True])
def test_a_bad_row_in_a_task_names_file_predicate_and_values(spark, tmp_path, distributed):
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"s": ["s1", "s2"], "v": [20, 30], "start": [0, 9], "end": [5, 6]}), tmp_path / "r.parquet")
    (tmp_path / "p.vada").write_text('@bind("reading", "spark parquet", ".", "r.parquet").\n' + ALARMS)
    with pytest.raises(chronolog.DataError) as e:
        out = cs().run_program(spark, tmp_path / "p.vada", distributed=distributed)
        out["alarm"].collect()
    text = e.value.render()
    assert "r.parquet: " in text and "reading: the row s='s2', v=30, start=9, end=6" in text and "has an empty interval" in text


@pytest.mark.parametrize("distributed", [False, True])
def test_a_time_no_timestamp_holds_is_a_clear_error(spark, distributed):
    """A result after the year 9999 cannot be a Spark timestamp: the error
    names the predicate and the time, without a Java stack trace."""
    reading = pa.table({"s": ["s1"], "v": [20], "start": [0], "end": [5]})
    program = ALARMS + "late(S) :- <->[0, 400000000000] high(S).\n@output(\"late\").\n"
    with pytest.raises(chronolog.DataError) as e:
        out = cs().reason(spark, program, {"reading": spark.createDataFrame(reading)}, distributed=distributed, timestamps=True)
        out["late"].collect()
    text = e.value.render()
    assert "late: the time 400000000005" in text and "years 1 to 9999" in text
    assert "Traceback" not in text and "java" not in text.lower()


# ------------------------------------------------------------ the chronolog data source

def test_what_a_killed_write_leaves_is_never_read_and_blocks_nothing(spark, tmp_path):
    """A driver killed mid-write leaves its hidden staging directory (part
    files with rows) beside the target, as the writer names it; Spark's own
    writers leave ``_temporary``.  Readers of the parent skip both, and the
    next run writes normally."""
    old = spark.createDataFrame(pa.table({"c0": ["old"], "start": [0], "end": [1]}))
    target = tmp_path / "data" / "out"
    old.write.format("chronolog").option("predicate", "p").mode("append").save(str(target))
    staging = tmp_path / "data" / ".out.chronolog-0123456789abcdef"
    staging.mkdir()
    (staging / "part-00000-0.facts").write_text("p(new1)@[0,1]\np(new2)@[1,2]\n")
    (tmp_path / "data" / "_temporary" / "0").mkdir(parents=True)
    (tmp_path / "data" / "_temporary" / "0" / "part-0.facts").write_text("p(half)@[0,1]\n")
    back = spark.read.format("chronolog").option("predicate", "p").load(str(tmp_path / "data"))
    assert [r[0] for r in back.collect()] == ["old"]
    new = spark.createDataFrame(pa.table({"c0": ["new"], "start": [0], "end": [1]}))
    new.write.format("chronolog").option("predicate", "p").mode("overwrite").save(str(target))
    assert [r[0] for r in spark.read.format("chronolog").load(str(target)).collect()] == ["new"]


def test_overwrite_swaps_in_one_step(tmp_path):
    from chronolog.connectors.spark_source import _exchange

    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x").write_text("new")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "x").write_text("old")
    assert _exchange(str(tmp_path / "a"), str(tmp_path / "b"))  # Linux: renameat2(RENAME_EXCHANGE)
    assert (tmp_path / "b" / "x").read_text() == "new" and (tmp_path / "a" / "x").read_text() == "old"


def test_strings_with_line_breaks_and_quotes_round_trip(spark, tmp_path):
    values = ["a\nb", 'say "hi"\r\n', "back\\slash\\n", "tab\there", "sep\u2028x", "plain"]
    df = spark.createDataFrame(pa.table({"c0": values, "start": list(range(6)), "end": list(range(1, 7))}))
    df.write.format("chronolog").option("predicate", "p").mode("append").save(str(tmp_path / "out"))
    lines = [l for f in (tmp_path / "out").iterdir() for l in f.read_text().split("\n") if l]
    assert len(lines) == 6  # one fact a line
    back = spark.read.format("chronolog").option("predicate", "p").load(str(tmp_path / "out"))
    assert sorted(r[0] for r in back.collect()) == sorted(values)


def test_a_task_runs_the_executor_of_the_whole_input_not_of_its_share(monkeypatch):
    """Splitting 500,000 facts over two tasks must not flip them from the
    columnar executor (the embedded choice for the whole input) to rows."""
    from chronolog.connectors.distributed import task_engine
    from chronolog.planner.input_size import AUTO_MIN_FACTS

    assert task_engine(AUTO_MIN_FACTS, 1) == "columns"
    assert task_engine(AUTO_MIN_FACTS // 2, 2) == "columns"
    assert task_engine(AUTO_MIN_FACTS // 2, 1) is None  # the automatic choice, as embedded
    assert task_engine(10, 8) is None
    monkeypatch.setenv("CHRONOLOG_ENGINE", "rows")  # the user's choice still wins
    assert task_engine(AUTO_MIN_FACTS, 2) is None


def test_csv_closedness_and_odd_column_names_reach_the_tasks(spark, tmp_path):
    """The keyed driver builds its input columns as SQL text: CSV
    closedness words, absent closedness columns and column names with a
    space must come out as the embedded engine reads them."""
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "r.csv").write_text(
        "sensor,value,start,end,start_closed,end_closed\n"
        "s1,12,0,5,true,FALSE\n"
        "s1,3,5,9,#t,t\n"
        "s2,11,1,4,no,yes\n"
    )
    prog = (
        '@bind("reading", "spark csv", "r", "").\n'
        "high(S) :- reading(S, V), V > 10.\n"
        "alarm(S) :- high(S), not reset(S).\n"
        "up(S) :- <->[0,2] alarm(S).\n"
        '@output("alarm"). @output("up").\n'
    )
    path = tmp_path / "p.vada"
    path.write_text(prog)
    out = cs().reason(spark, path, distributed=True, stats=(stats := {}))
    assert stats["path"] == "keyed"
    model = chronolog.reason(
        "high(S) :- reading(S, V), V > 10.\nalarm(S) :- high(S), not reset(S).\nup(S) :- <->[0,2] alarm(S).\n",
        "reading(s1, 12)@[0,5)\nreading(s1, 3)@[5,9]\nreading(s2, 11)@(1,4]",
    )
    for p in ("alarm", "up"):
        assert facts_of(out[p], p) == sorted(model.facts(p), key=repr)
    odd = pa.table({"sensor id": ["a", "b"], "v x": [12, 5], "start": [0, 0], "end": [3, 3]})
    out = cs().reason(spark, ALARMS, {"reading": odd}, distributed=True)
    assert facts_of(out["alarm"], "alarm") == [(("a",), (0, 3, True, True))]
    ticked = pa.table({"sensor `id`": ["a", "b"], "v`": [12, 5], "start": [0, 0], "end": [3, 3]})
    out = cs().reason(spark, ALARMS, {"reading": ticked}, distributed=True)  # a backtick in a name is doubled in SQL
    assert facts_of(out["alarm"], "alarm") == [(("a",), (0, 3, True, True))]
