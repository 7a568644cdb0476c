"""What a keyed Spark call costs the driver (marked ``spark``): the shuffle
by key and the reasoning stage are one Spark job, and the session settings
changed meanwhile are the caller's again afterwards, also when a task fails.
"""

import pyarrow as pa
import pytest

from chronolog.language.errors import DataError

pytestmark = pytest.mark.spark

PROGRAM = """
hot(S) :- reading(S, V), V > 70.
alarm(S) :- [-][0,3] hot(S), not maintenance(S).
@output("alarm"). @output("hot").
"""
AQE = "spark.sql.adaptive.enabled"


def _inputs(spark):
    reading = pa.table({
        "sensor": ["a", "a", "b", "b", "c"],
        "value": [80, 75, 10, 90, 99],
        "start": [0, 1, 0, 1, 4],
        "end": [1, 10, 1, 2, 9],
    })
    maint = pa.table({"sensor": ["c"], "start": [0], "end": [10]})
    return {"reading": spark.createDataFrame(reading), "maintenance": spark.createDataFrame(maint)}


def _jobs_of(spark, group, run):
    sc = spark.sparkContext
    sc.setJobGroup(group, "keyed call test")
    try:
        return run(), sorted(sc.statusTracker().getJobIdsForGroup(group))
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
        sc.setLocalProperty("spark.job.description", None)


def test_the_shuffle_and_the_reasoning_are_one_job_and_answers_match_the_driver(spark):
    from chronolog import spark as cs

    inputs = _inputs(spark)  # in memory: reading them needs no job of its own
    out, jobs = _jobs_of(spark, "keyed-one-job", lambda: cs.reason(spark, PROGRAM, inputs, distributed=True, key={"reading": 0, "maintenance": 0}))
    assert len(jobs) == 1
    driver = cs.reason(spark, PROGRAM, _inputs(spark))
    for p in ("alarm", "hot"):
        assert out[p].schema == driver[p].schema
        assert sorted(map(tuple, out[p].collect())) == sorted(map(tuple, driver[p].collect()))
    assert {r[0] for r in out["hot"].collect()} == {"a", "b", "c"}
    assert {r[0] for r in out["alarm"].collect()} == {"a"}  # hot long enough; c is under maintenance


def test_tables_on_the_driver_cost_the_one_job_and_nothing_stays_cached(spark):
    """``arrow=True``: the shuffle, the reasoning and the collection of
    every output are one Spark job; no checkpoint or cache is left."""
    from chronolog import spark as cs

    inputs = _inputs(spark)
    out, jobs = _jobs_of(spark, "keyed-arrow", lambda: cs.reason(spark, PROGRAM, inputs, distributed=True, arrow=True))
    assert len(jobs) == 1
    assert spark._jsparkSession.sharedState().cacheManager().isEmpty()
    driver = cs.reason(spark, PROGRAM, _inputs(spark), arrow=True)  # the driver's path returns tables too
    for p in ("alarm", "hot"):
        assert isinstance(out[p], pa.Table) and out[p].schema == driver[p].schema
        assert sorted(out[p].to_pylist(), key=repr) == sorted(driver[p].to_pylist(), key=repr)
    assert set(out["alarm"].column(0).to_pylist()) == {"a"}


def test_dataframes_collected_cost_the_calls_one_job(spark, monkeypatch):
    """A caller who collects every output DataFrame (``toArrow``) pays only
    the call's job: small answers came to the driver in it.  The tables are
    Spark's own (``toArrow`` of a plain DataFrame over each output, a job
    each); a second ``toArrow`` is Spark's; beyond the driver's budget each
    ``toArrow`` is a job again, with the same tables."""
    from pyspark.accumulators import _accumulatorRegistry

    from chronolog import spark as cs

    registered = len(_accumulatorRegistry)

    def collect_all():
        out = cs.reason(spark, PROGRAM, _inputs(spark), distributed=True, partitions=3)
        return out, {p: df.toArrow() for p, df in out.items()}

    (out, tables), jobs = _jobs_of(spark, "keyed-frames", collect_all)
    assert len(jobs) == 1
    assert len(_accumulatorRegistry) == registered  # the call's accumulator (and what it held) is gone
    assert spark._jsparkSession.sharedState().cacheManager().isEmpty()
    assert all(df.__dict__.get("_chronolog_jdf") is None for df in out.values())  # no Java DataFrame made (nor analyzed)
    for p, df in out.items():
        want = df.select("*").toArrow()  # Spark collects it
        assert tables[p].schema == want.schema and tables[p].equals(want), p
        assert df.toArrow().equals(want)  # the second time: Spark's toArrow
    assert set(tables["alarm"].column(0).to_pylist()) == {"a"}

    from chronolog.connectors import spark as connector

    monkeypatch.setattr(connector, "ANSWER_BYTES", 3 * 100)  # a few hundred bytes per call: more than a task may send
    (out2, tables2), jobs = _jobs_of(spark, "keyed-frames-big", collect_all)
    assert len(jobs) == 1 + len(out2)
    for p in out:
        assert tables2[p].equals(tables[p]), p


@pytest.mark.parametrize("before", [None, "true"])
def test_the_session_settings_are_restored_also_after_a_failed_task(spark, before):
    from chronolog import spark as cs

    if before is None:
        spark.conf.unset(AQE)
    else:
        spark.conf.set(AQE, before)
    try:
        cs.reason(spark, PROGRAM, _inputs(spark), distributed=True)
        assert spark.conf.get(AQE, None) == before
        bad = pa.table({"sensor": ["a"], "value": [80], "start": [5], "end": [1]})  # an empty interval
        for arrow in (False, True):
            with pytest.raises(DataError, match="in a Spark task"):
                cs.reason(spark, PROGRAM, {"reading": spark.createDataFrame(bad)}, distributed=True, arrow=arrow)
            assert spark.conf.get(AQE, None) == before
    finally:
        spark.conf.unset(AQE)


def _spark_inferred(spark, path):
    return spark.read.parquet(str(path)).schema


def test_parquet_schema_from_the_footers_is_the_one_spark_infers(spark, tmp_path):
    """The oracle is Spark's own inference on the same files."""
    import decimal

    import pyarrow.parquet as pq

    from chronolog import spark as cs

    table = pa.table({
        "b": pa.array([1, None], pa.int8()), "s": pa.array([2, 3], pa.int16()), "i": pa.array([4, 5], pa.int32()),
        "l": pa.array([6, 7], pa.int64()), "t": pa.array([True, None]), "f": pa.array([0.5, 1.5], pa.float32()),
        "d": pa.array([0.25, 2.0]), "x": pa.array(["a", None]), "y": pa.array(["b", "c"], pa.large_string()),
        "dec": pa.array([decimal.Decimal("1.25"), None], pa.decimal128(7, 2)),
        "day": pa.array([0, 19000], pa.date32()),
    })
    one = tmp_path / "one.parquet"
    pq.write_table(table, one)
    many = tmp_path / "many"
    many.mkdir()
    for k in range(3):
        pq.write_table(table, many / f"part-{k}.parquet")
    (many / "_SUCCESS").write_text("")
    for path in (one, many):
        assert cs.parquet_schema(path) == _spark_inferred(spark, path)
    by_spark = tmp_path / "by_spark"
    spark.createDataFrame(table).write.parquet(str(by_spark))
    assert cs.parquet_schema(by_spark) == _spark_inferred(spark, by_spark)
    # not certain: Spark infers these itself
    pq.write_table(pa.table({"x": pa.array([1], pa.timestamp("us"))}), tmp_path / "ts.parquet")
    pq.write_table(pa.table({"x": pa.array([b"1"])}), tmp_path / "bin.parquet")
    pq.write_table(pa.table({"x": pa.array([1], pa.uint32())}), tmp_path / "u.parquet")
    (tmp_path / "parted" / "k=1").mkdir(parents=True)
    pq.write_table(table, tmp_path / "parted" / "k=1" / "p.parquet")
    (tmp_path / "mixed").mkdir()
    pq.write_table(pa.table({"x": pa.array([1], pa.int32())}), tmp_path / "mixed" / "a.parquet")
    pq.write_table(pa.table({"x": pa.array([1], pa.int64())}), tmp_path / "mixed" / "b.parquet")
    (tmp_path / "summary").mkdir()
    pq.write_table(table, tmp_path / "summary" / "p.parquet")
    pq.write_metadata(table.schema, tmp_path / "summary" / "_common_metadata")  # Spark would read this one
    for name in ("ts.parquet", "bin.parquet", "u.parquet", "parted", "mixed", "summary", "missing"):
        assert cs.parquet_schema(tmp_path / name) is None, name
    meta = spark.createDataFrame(table.select(["x"])).selectExpr("x AS x")
    meta = meta.withMetadata("x", {"note": "kept by Spark"})
    meta.write.parquet(str(tmp_path / "meta"))
    assert cs.parquet_schema(tmp_path / "meta") is None  # Spark restores the field's metadata


def test_a_bound_parquet_input_costs_no_schema_job(spark, tmp_path):
    """``@bind`` of a Parquet dataset: the schema comes from its footers, so
    a keyed call is one Spark job (the caller's ``spark.read.parquet`` would
    run one more to infer it), with the answers of the embedded engine."""
    import pyarrow.parquet as pq

    import chronolog
    from chronolog import spark as cs
    from chronolog.engine.arrow import table_to_rows

    inputs = _inputs(spark)
    for pred, df in inputs.items():
        (tmp_path / pred).mkdir()
        t = df.toArrow()
        pq.write_table(t.slice(0, 3), tmp_path / pred / "part-0.parquet")
        pq.write_table(t.slice(3), tmp_path / pred / "part-1.parquet")
    bound = "".join(f'@bind("{p}", "spark parquet", "{tmp_path}", "{p}").\n' for p in inputs) + PROGRAM
    out, jobs = _jobs_of(spark, "keyed-bound", lambda: cs.reason(spark, bound, distributed=True))
    assert len(jobs) == 1
    model = chronolog.reason(PROGRAM, {p: table_to_rows(df.toArrow(), p) for p, df in _inputs(spark).items()})
    for p in ("alarm", "hot"):
        assert sorted(table_to_rows(out[p].toArrow(), p), key=repr) == sorted(model.facts(p), key=repr)
    read_by_spark = {p: spark.read.parquet(str(tmp_path / p)) for p in inputs}
    _, jobs = _jobs_of(spark, "keyed-read", lambda: cs.reason(spark, PROGRAM, read_by_spark, distributed=True))
    assert len(jobs) == 1  # the reads' own jobs ran before: the call itself is one job either way


def test_the_command_line_path_writes_file_outputs_from_the_calls_job(spark, tmp_path):
    """``chronolog run --spark --distributed`` (``run_program``): an output
    bound to a chronolog file and an unbound one (printed by the command)
    come from the call's own job; an output bound through Spark is Spark's
    write, a job of its own (its committer writes the files)."""
    import pyarrow.parquet as pq

    import chronolog
    from chronolog import spark as cs
    from chronolog.engine.arrow import table_to_rows
    from chronolog.connectors.files import read_facts

    inputs = _inputs(spark)
    for pred, df in inputs.items():
        (tmp_path / pred).mkdir()
        pq.write_table(df.toArrow(), tmp_path / pred / "part-0.parquet")
    program = PROGRAM.replace('@output("hot").', '@output("hot"). derived(S) :- hot(S).\n@output("derived").')
    model = chronolog.reason(program, {p: table_to_rows(df.toArrow(), p) for p, df in _inputs(spark).items()})
    bound = "".join(f'@bind("{p}", "spark parquet", ".", "{p}").\n' for p in inputs)
    (tmp_path / "p.vada").write_text(bound + '@bind("alarm", "csv", "out", "alarm.csv").\n' + program)
    out, jobs = _jobs_of(spark, "keyed-cli", lambda: {
        p: df.toArrow() for p, df in cs.run_program(spark, tmp_path / "p.vada", distributed=True).items()
    })
    assert len(jobs) == 1
    assert sorted(read_facts(tmp_path / "out" / "alarm.csv", "alarm"), key=repr) == sorted(model.facts("alarm"), key=repr)
    for p in ("hot", "derived"):
        assert sorted(table_to_rows(out[p], p), key=repr) == sorted(model.facts(p), key=repr)
    (tmp_path / "q.vada").write_text(bound + '@bind("alarm", "spark parquet", "out", "alarm_pq").\n' + program)
    _, jobs = _jobs_of(spark, "keyed-cli-spark", lambda: cs.run_program(spark, tmp_path / "q.vada", distributed=True))
    assert len(jobs) == 2  # the call's job and Spark's write of alarm
    got = spark.read.parquet(str(tmp_path / "out" / "alarm_pq")).toArrow()
    assert sorted(table_to_rows(got, "alarm"), key=repr) == sorted(model.facts("alarm"), key=repr)


def test_a_task_error_says_its_kind_once_and_keeps_its_hint(spark):
    """A user error in a task came to the driver rendered, then wrapped:
    "data error: in a Spark task: data error: ..." with the hint inside the
    message.  The driver reasoning the same rows (no tasks) is the oracle
    for the message and the hint; the task adds only where it happened."""
    import chronolog
    from chronolog import spark as cs

    bad = pa.table({"sensor": ["a"], "value": [80], "start": [5], "end": [1]})  # an empty interval
    with pytest.raises(DataError) as driver:
        cs.reason(spark, PROGRAM, {"reading": spark.createDataFrame(bad)})
    with pytest.raises(DataError) as task:
        cs.reason(spark, PROGRAM, {"reading": spark.createDataFrame(bad)}, distributed=True)
    assert driver.value.message == "reading: the row sensor='a', value=80, start=5, end=1 has an empty interval"
    assert task.value.message.startswith("in a Spark task: reading: the row sensor='a', value=80, start=5, end=1")
    assert task.value.message.endswith(" has an empty interval")  # (the task's row also shows its closedness)
    assert task.value.hint == driver.value.hint != "" and task.value.pos == driver.value.pos
    assert str(task.value).count("data error") == 1 and str(task.value).count("hint:") == 1
    violated = "⊥ :- hot(S).\n" + PROGRAM
    with pytest.raises(chronolog.InconsistencyError) as driver:
        cs.reason(spark, violated, _inputs(spark))
    with pytest.raises(chronolog.InconsistencyError) as task:
        cs.reason(spark, violated, _inputs(spark), distributed=True, key={"reading": 0, "maintenance": 0})
    said = task.value.message.removeprefix("in a Spark task: ")  # (a task's key groups: some of the violations)
    assert said != task.value.message and set(said.splitlines()) <= set(driver.value.message.splitlines())
    assert str(task.value).count("inconsistent") == str(driver.value).count("inconsistent") == 1
