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
    from chronolog.connectors import spark as cs

    inputs = _inputs(spark)  # in memory: reading them needs no job of its own
    out, jobs = _jobs_of(spark, "keyed-one-job", lambda: cs.reason(spark, PROGRAM, inputs, distributed=True, key={"reading": 0, "maintenance": 0}))
    assert len(jobs) == 1
    driver = cs.reason(spark, PROGRAM, _inputs(spark))
    for p in ("alarm", "hot"):
        assert out[p].schema == driver[p].schema
        assert sorted(map(tuple, out[p].collect())) == sorted(map(tuple, driver[p].collect()))
    assert {r[0] for r in out["hot"].collect()} == {"a", "b", "c"}
    assert {r[0] for r in out["alarm"].collect()} == {"a"}  # hot long enough; c is under maintenance


@pytest.mark.parametrize("before", [None, "true"])
def test_the_session_settings_are_restored_also_after_a_failed_task(spark, before):
    from chronolog.connectors import spark as cs

    if before is None:
        spark.conf.unset(AQE)
    else:
        spark.conf.set(AQE, before)
    try:
        cs.reason(spark, PROGRAM, _inputs(spark), distributed=True)
        assert spark.conf.get(AQE, None) == before
        bad = pa.table({"sensor": ["a"], "value": [80], "start": [5], "end": [1]})  # an empty interval
        with pytest.raises(DataError, match="in a Spark task"):
            cs.reason(spark, PROGRAM, {"reading": spark.createDataFrame(bad)}, distributed=True)
        assert spark.conf.get(AQE, None) == before
    finally:
        spark.conf.unset(AQE)
