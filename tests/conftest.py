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
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
settings.load_profile(PROFILE)


def pytest_report_header(config):
    return f"hypothesis profile: {PROFILE} (HYPOTHESIS_PROFILE=ci|thorough|hunt)"


def _uses_spark(item) -> bool:
    return item.get_closest_marker("spark") is not None or "spark" in getattr(item, "fixturenames", ())


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    """Tests marked slow run only under the thorough and hunt profiles
    (``bash test.sh --thorough``), unless -m selects them by name.

    Under pytest-xdist (test.sh passes ``-n 2 --dist loadgroup``) the Spark
    tests form one group, so they share one worker and its one Spark
    session; the largest group is handed out first, so that worker starts
    on them at once while the other runs everything else."""
    if PROFILE == "ci" and not config.getoption("markexpr"):
        slow = [item for item in items if item.get_closest_marker("slow")]
        if slow:
            config.hook.pytest_deselected(items=slow)
            items[:] = [item for item in items if not item.get_closest_marker("slow")]
    for item in items:
        if _uses_spark(item):
            item.add_marker(pytest.mark.xdist_group("spark"))


_LOST_GROUP: list = []


def pytest_collection_finish(session):
    """Notes Spark tests that lost their group: pytest-xdist marks a group
    by a suffix of the node id, which some pytest releases drop
    (pyproject.toml pins below them), and the Spark tests would then run
    on both workers, each starting a JVM of its own; the ``spark`` fixture
    then fails every Spark test with the reason."""
    if getattr(session.config.option, "loadgroup", False):
        _LOST_GROUP[:] = [i.nodeid for i in session.items if _uses_spark(i) and not i.nodeid.endswith("@spark")]


@pytest.fixture(scope="session")
def spark():
    """One local Spark session for every Spark test (startup takes seconds):
    two cores, up to three attempts per task so retries can be tested."""
    import os
    import shutil

    if _LOST_GROUP:
        pytest.fail(
            f"pytest-xdist's loadgroup did not put the {len(_LOST_GROUP)} Spark tests on one worker: "
            "this pytest and pytest-xdist do not work together; install the versions "
            "pyproject.toml's test extra names (bash test.sh does)",
            pytrace=False,
        )
    pytest.importorskip("pyspark")
    if shutil.which("java") is None and not os.environ.get("CI"):
        pytest.skip("no Java runtime (pyspark needs Java 17 or 21); .ci/run installs one")
    from chronolog.connectors.spark import JVM_OPTIONS, session

    # Small inputs, many short jobs: no UI, two partitions, and a JVM that
    # compiles less (C1 only): test_spark_rounds_sets.py 96 -> 78 s. The
    # semantics are Spark's own whatever these are; chronolog's own JVM
    # settings stay (test_session_starts_the_jvm_with_chronolog_settings).
    s = session(
        "local[2,3]",
        "chronolog-tests",
        **{
            "spark.ui.enabled": "false",
            "spark.driver.memory": "2g",  # one JVM for every Spark test of a thorough run
            "spark.sql.shuffle.partitions": "2",
            "spark.default.parallelism": "2",
            "spark.driver.extraJavaOptions": JVM_OPTIONS + " -XX:TieredStopAtLevel=1",
        },
    )
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()


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
