import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import os

import pytest
from hypothesis import HealthCheck, settings

# The one place that sets how hard randomized tests try (tests/budget.py).
_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile(
    "ci", max_examples=10, derandomize=True, deadline=None, suppress_health_check=_QUIET, print_blob=True
)
settings.register_profile(
    "thorough", max_examples=100, derandomize=True, deadline=None, suppress_health_check=_QUIET, print_blob=True
)
settings.register_profile("hunt", max_examples=2000, deadline=None, suppress_health_check=_QUIET, print_blob=True)
settings.register_profile("fresh", max_examples=100, deadline=None, suppress_health_check=_QUIET, print_blob=True)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
settings.load_profile(PROFILE)


def pytest_report_header(config):
    return f"hypothesis profile: {PROFILE} (HYPOTHESIS_PROFILE=ci|thorough|fresh|hunt)"


def pytest_collection_modifyitems(config, items):
    """Tests marked slow run only under the thorough and hunt profiles
    (``bash test.sh --thorough``), unless -m selects them by name."""
    if PROFILE == "ci" and not config.getoption("markexpr"):
        slow = [item for item in items if item.get_closest_marker("slow")]
        if slow:
            config.hook.pytest_deselected(items=slow)
            items[:] = [item for item in items if not item.get_closest_marker("slow")]


# How the tests' Spark sessions run their tiny queries, never what the
# queries mean: expressions and operators evaluated by Spark's interpreter
# instead of Java source generated and compiled (Janino, then the JIT) for
# each new statement.  The tests run hundreds of different programs of a
# few rows each, so compiling cost more than it saved (a few thousand
# classes per worker).  Production keeps Spark's code generation: the
# tests marked ``chronolog_conf`` (the golden examples and the differential
# test on Spark) run on chronolog's own settings, and
# CHRONOLOG_TEST_SPARK_CONF=chronolog runs every Spark test so.
# (Spark's catalog API, spark.catalog.listTables(), cannot decode its rows
# under NO_CODEGEN once a view exists: tests read the catalog by SQL)
FAST_CONF = {
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
}


@pytest.fixture(scope="session")
def spark():
    """One local Spark session for every Spark test a process runs (startup
    takes seconds): two cores, up to three attempts per task so retries can
    be tested, :data:`FAST_CONF` on its session settings.  Under test.sh
    each of the two pytest-xdist workers starts its own at its first Spark
    test: the Spark tests are most of the suite's time, and on one worker
    alone they were on course for about twice as long as the whole suite
    takes on both."""
    import os
    import shutil

    pytest.importorskip("pyspark")
    if shutil.which("java") is None and not os.environ.get("CI"):
        pytest.skip("no Java runtime (pyspark needs Java 17 or 21); .ci/run installs one")
    from chronolog.connectors.spark import session

    # Small inputs, many short jobs: no UI, two partitions.  The JVM's
    # options are chronolog's own (session()'s defaults, both JIT
    # compilers): a worker's JVM lives through about 300 Spark tests, long
    # enough for the optimising compiler to pay (C1 only was faster for one
    # file alone, test_spark_rounds_sets.py 96 -> 78 s, but slower over
    # many: 8 Spark files on two workers 552 s against 456 s, 4 in one
    # process 304 s against 246 s).  The semantics are Spark's own whatever
    # these are (test_session_starts_the_jvm_with_chronolog_settings).
    s = session(
        "local[2,3]",
        "chronolog-tests",
        **{
            "spark.ui.enabled": "false",
            # one JVM for every Spark test a worker runs (about half of 650): at 2g
            # one worker's ran out (GC overhead limit) in a full run; at 3g, with
            # this session's Spark tests, one worker's old generation stayed full
            # from about 95% of the run (196 full GCs, 986 s of them; the heap
            # mostly Catalyst plan trees: 18.8M BestEffortLazyVal) and its last
            # tests failed
            "spark.driver.memory": "4g",
            # What one JVM keeps across ~600 Spark tests, found by the JVM's
            # old-object samples (JFR, paths to GC roots) in a full run whose
            # worker ran out of heap: the status store's record of every SQL
            # execution (its plan text, 50-130 kB for a round's statements),
            # job, stage and task, 1000 of each by default (the UI is off;
            # the rounds read a round's own jobs); and each broadcast hash relation a live
            # DataFrame still plans holds a page of spark.buffer.pageSize,
            # sized from the heap (32 MB at 3g) however few its rows are.
            "spark.sql.ui.retainedExecutions": "50",
            "spark.ui.retainedJobs": "100",
            "spark.ui.retainedStages": "100",
            "spark.ui.retainedTasks": "1000",
            "spark.buffer.pageSize": "1m",
            # every statement's parse under Spark's managed parser caches,
            # flushed past 5% of the heap: ANTLR's own cache, which the
            # statements the tests send themselves and chronolog's outside
            # its rounds went to, is never freed (ATNConfig and DFAState
            # objects were the largest live set in the JVM, docs/design.md)
            "spark.sql.parser.manageParserCaches": "true",
            "spark.sql.parser.parserDfaCacheFlushRatio": "5",
            "spark.sql.shuffle.partitions": "2",
            "spark.default.parallelism": "2",
        },
    )
    s.sparkContext.setLogLevel("ERROR")
    if os.environ.get("CHRONOLOG_TEST_SPARK_CONF") != "chronolog":
        for k, v in FAST_CONF.items():  # session settings: a newSession() starts without them
            s.conf.set(k, v)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def chronolog_conf(spark):
    """The shared session on chronolog's own settings (:data:`FAST_CONF`
    unset) for a module's tests: what users run stays checked."""
    saved = {k: spark.conf.get(k, None) for k in FAST_CONF}
    for k in FAST_CONF:
        spark.conf.unset(k)
    yield spark
    for k, v in saved.items():
        if v is not None:
            spark.conf.set(k, v)


@pytest.fixture(scope="module")
def rounds(spark):
    """The shared session with one task by size off
    (``spark.chronolog.oneTaskBytes`` = -1) for a module's tests: the
    relational rounds' tests run small inputs, which would otherwise run in
    one Spark task (connectors/spark_paths.py)."""
    from chronolog.connectors.spark_paths import ONE_TASK_CONF

    spark.conf.set(ONE_TASK_CONF, "-1")
    yield spark
    spark.conf.unset(ONE_TASK_CONF)


@pytest.fixture(params=["rows", "columns"], scope="module")
def executor(request):
    """Runs a test once per executor (chronolog.reason honours
    CHRONOLOG_ENGINE): both must give the same models.  Module-scoped so
    that hypothesis tests can use it; subprocesses inherit the variable.  "columns" forces the
    columnar executor on every stratum it supports, however small."""
    import os

    old = os.environ.get("CHRONOLOG_ENGINE")
    os.environ["CHRONOLOG_ENGINE"] = request.param
    yield request.param
    if old is None:
        del os.environ["CHRONOLOG_ENGINE"]
    else:
        os.environ["CHRONOLOG_ENGINE"] = old
