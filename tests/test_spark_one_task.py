"""A program with no key in ONE Spark task (connectors/spark_paths.py):
small inputs and what the relational rounds cannot run, against the
embedded engine on the same facts, the size limit's both sides, the
warning, and the command line (marked ``spark``)."""

import datetime as dt
import os
import subprocess
import sys
import warnings

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import chronolog
from chronolog.engine.arrow import table_to_rows
from chronolog.connectors.spark_paths import ONE_TASK_CONF, input_bytes
from chronolog.language.dates import Calendar

from test_spark_rounds import canon, cs

pytestmark = pytest.mark.spark

REACH = 'r(X, Y) :- e(X, Y).\nr(X, Z) :- r(X, Y), e(Y, Z).\n@output("r").\n'
TOTALS = """
far(X, Z) :- owns(X, Y, P), owns(Y, Z, Q).
total(C, S) :- owns(I, C, P), S = sum(P).
n(C, N) :- owns(I, C, P), N = count().
@output("total"). @output("n"). @output("far").
"""
EVERY = """
r(X, Y) :- e(X, Y).
r(X, Z) :- r(X, Y), e(Y, Z).
tick(X) :- <->[5,5] tick(X).
tick(X) :- r(X, Y).
tick(z)@0.
@output("tick"). @output("r").
"""
DATED = """
@timeGranularity("days").
r(X, Y) :- e(X, Y).
r(X, Z) :- r(X, Y), e(Y, Z).
soon(X, Y) :- <->[0,P3D] r(X, Y).
@output("r"). @output("soon").
"""


def edges():
    """Edges with a null start and a null end (unbounded)."""
    return pa.table({"x": ["a", "b", "c", "d"], "y": ["b", "c", "a", "e"],
                     "start": pa.array([0, 1, None, 4], pa.int64()), "end": pa.array([5, 6, 7, None], pa.int64())})


def owns():
    return pa.table({"i": ["i1", "i2", "i1", "i3"], "c": ["a", "a", "b", "b"], "p": [10, 20, 30, 5],
                     "start": [0, 2, 1, 3], "end": [4, 6, 5, 9]})


def dated():
    d = dt.date
    return pa.table({"x": ["a", "b", "a"], "y": ["b", "c", "c"],
                     "start": pa.array([d(2020, 1, 1), d(2020, 1, 2), None], pa.date32()),
                     "end": pa.array([d(2020, 1, 5), d(2020, 1, 3), d(2019, 12, 30)], pa.date32())})


def one_task(spark, program, tables, calendar=None, arrow=False, **kw):
    """Run ``program`` in Spark with no key and small inputs; assert it ran
    in one task with no warning and agrees with the embedded engine."""
    model = chronolog.reason(program, tables, **{k: v for k, v in kw.items() if k == "horizon"})
    stats = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", cs().DriverFallback)
        out = cs().reason(spark, program, inputs=tables, distributed=True, stats=stats, arrow=arrow, **kw)
    assert stats["path"] == "one task", stats
    assert "at most spark.chronolog.oneTaskBytes" in stats["why"] and stats["why"].startswith("no key ("), stats["why"]
    agree(out, model, calendar, arrow, kw.get("window"))
    return out, model


def agree(out, model, calendar=None, arrow=False, window=None):
    """Spark's answers are the embedded model's (inside ``window``)."""
    for p, got in out.items():
        t = got if arrow else got.toArrow()
        if arrow:
            assert isinstance(got, pa.Table)
        rows = canon(table_to_rows(t, p, calendar))
        want = model.facts(p) if window is None else model.facts_within(p, window)
        assert rows == canon(want), p


@pytest.mark.parametrize("arrow", [False, True])
def test_a_recursion_with_null_times(spark, arrow):
    one_task(spark, REACH, {"e": edges()}, arrow=arrow)


def test_aggregates_beside_a_join_across_keys(spark):
    one_task(spark, TOTALS, {"owns": owns()})


def test_a_model_that_repeats_forever_in_a_window(spark):
    """A recursion through time and a model that repeats forever: one task
    unrolls it inside the window; the rounds cannot run such rules, so the
    warning says so, small inputs or not."""
    model = chronolog.reason(EVERY, {"e": edges()})
    with pytest.warns(cs().OneTaskFallback, match="relational rounds cannot run it: recursion through time"):
        out = cs().reason(spark, EVERY, inputs={"e": edges()}, distributed=True, window=(0, 30))
    agree(out, model, window=(0, 30))
    with pytest.raises(chronolog.ChronologError, match="repeat"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cs().reason(spark, EVERY, inputs={"e": edges()}, distributed=True)["tick"].toArrow()


def test_dates_with_a_null_start(spark):
    out, _ = one_task(spark, DATED, {"e": dated()}, calendar=Calendar("days"))
    assert pa.types.is_timestamp(out["soon"].toArrow().schema.field("start").type)


def test_a_spark_dataframe_read_from_parquet(spark, tmp_path):
    """The size of a Parquet input is Spark's statistics (its file size),
    found without a job."""
    pq.write_table(owns(), tmp_path / "owns.parquet")
    df = spark.read.parquet(str(tmp_path / "owns.parquet"))
    sc = spark.sparkContext
    sc.setJobGroup("one-task-size", "the size estimate")
    try:
        n = input_bytes([("owns", df, False)], [])
    finally:  # (the job group and its description: a later test in this process reads the thread's)
        sc.setLocalProperty("spark.jobGroup.id", None)
        sc.setLocalProperty("spark.job.description", None)
    assert n == os.path.getsize(tmp_path / "owns.parquet")
    assert list(sc.statusTracker().getJobIdsForGroup("one-task-size")) == []
    model = chronolog.reason(TOTALS, {"owns": owns()})
    stats = {}
    out = cs().reason(spark, TOTALS, inputs={"owns": df}, distributed=True, stats=stats)
    assert stats["path"] == "one task"
    assert canon(table_to_rows(out["total"].toArrow(), "total")) == canon(model.facts("total"))


def test_the_limit_both_sides_and_never(spark):
    """Over the limit (the keyword, or the session's setting) the rounds
    run; -1 never chooses one task by size; a limit that is not a number
    is an error."""
    e = edges()
    size = input_bytes([("e", e, False)], [])
    model = chronolog.reason(REACH, {"e": e})

    def path(**kw):
        stats = {}
        out = cs().reason(spark, REACH, inputs={"e": e}, distributed=True, stats=stats, **kw)
        assert canon(table_to_rows(out["r"].toArrow(), "r")) == canon(model.facts("r"))
        return stats["path"], stats["why"]

    assert path(one_task_bytes=size)[0] == "one task"
    got = path(one_task_bytes=size - 1)
    assert got[0] == "relational" and f"over {ONE_TASK_CONF} = {size - 1}" in got[1], got
    taken, why = path(one_task_bytes=-1)
    assert taken == "relational" and why.endswith(f"{ONE_TASK_CONF} is -1: never one task by size"), why
    try:
        spark.conf.set(ONE_TASK_CONF, str(size - 1))
        assert path()[0] == "relational"
        assert path(one_task_bytes=size)[0] == "one task"  # the keyword over the session's setting
        spark.conf.set(ONE_TASK_CONF, "-1")
        assert path()[0] == "relational"
        spark.conf.set(ONE_TASK_CONF, "lots")
        with pytest.raises(chronolog.ProgramError, match="spark.chronolog.oneTaskBytes is 'lots', not a number of bytes"):
            path()
    finally:
        spark.conf.unset(ONE_TASK_CONF)
    assert path()[0] == "one task"


def test_what_the_rounds_cannot_run_goes_to_one_task_with_a_warning(spark):
    """Whatever the limit: the warning (a DriverFallback, as before) says
    the program runs in ONE task, not distributed, and the rounds' reason."""
    model = chronolog.reason(EVERY, {"e": edges()})
    stats = {}
    with pytest.warns(cs().OneTaskFallback, match=r"^running in ONE Spark task, not distributed: the program has no key to split it by "
                      r"\(the rule .* does not keep one key: .*\), and relational rounds cannot run it: recursion through time with no horizon \(.*\) in the rule tick\(X\)") as caught:
        out = cs().reason(spark, EVERY, inputs={"e": edges()}, distributed=True, stats=stats, one_task_bytes=-1, window=(0, 30))
    assert issubclass(cs().OneTaskFallback, cs().DriverFallback)  # (who catches DriverFallback still catches it)
    assert len([w for w in caught if issubclass(w.category, cs().DriverFallback)]) == 1
    assert stats["path"] == "one task" and "relational rounds cannot run it: recursion through time" in stats["why"]
    for p in ("tick", "r"):
        assert canon(table_to_rows(out[p].toArrow(), p)) == canon(model.facts_within(p, (0, 30))), p


@pytest.mark.slow  # (bash test.sh --thorough)
def test_command_line_forces_the_rounds_with_a_setting(tmp_path):
    """``chronolog run --spark --distributed --conf spark.chronolog.oneTaskBytes=-1``
    runs the rounds on a small input (its own short-lived Spark session);
    ``--stats`` prints the path and why."""
    pq.write_table(edges(), tmp_path / "e.parquet")
    (tmp_path / "p.vada").write_text('@bind("e", "spark parquet", ".", "e.parquet").\n' + REACH)
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    cmd = [sys.executable, "-m", "chronolog", "run", "p.vada", "--spark", "local[1]", "--distributed", "--stats",
           "--conf", f"{ONE_TASK_CONF}=-1"]
    r = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "spark path: relational (no key (the rule r(X, Z) :- r(X, Y), e(Y, Z). does not keep one key" in r.stderr
    assert f"{ONE_TASK_CONF} is -1: never one task by size)" in r.stderr
    model = chronolog.reason(REACH, {"e": edges()})
    from chronolog.language.dates import format_fact

    want = sorted(format_fact("r", t, iv, None) for t, iv in canon(model.facts("r")))
    assert sorted(r.stdout.splitlines()) == want


def test_the_round_limit_reaches_the_task(spark):
    """The caller's round limit (``--max-rounds``, ``round_limit``) holds in
    the task as on the driver: a count that feeds its own group never
    reaches a fixpoint, and the task stops it."""
    from chronolog.engine.arrow import facts_to_arrow
    from chronolog.engine.runaway import round_limit

    e = facts_to_arrow([(("a", 0), (0, 1, True, True))], ["x", "n"])
    prog = "p(X, N) :- e(X, N).\np(X, N) :- p(X, M), N = mcount(<M>).\nq(X, Y) :- e(X, N), e(Y, M).\n@output(\"p\")."
    stats = {}
    with round_limit(6), pytest.raises(chronolog.ChronologError, match="in a Spark task: .*no fixpoint after 6 rounds"):
        cs().reason(spark, prog, inputs={"e": e}, distributed=True, stats=stats)
    assert stats["path"] == "one task"
