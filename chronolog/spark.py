"""Spark in and out, the public entry points: DataFrames to facts and derived
facts to DataFrames.

    from chronolog import spark as cs
    spark = cs.session("local[2]")
    out = cs.reason(spark, program, inputs={"reading": readings_df})
    out["alarm"].show()

The work is done in :mod:`chronolog.connectors.spark` (and its keyed, rounds
and one-task paths); this module sits above the API because every path runs
the embedded reasoner (:mod:`chronolog.api`), which it hands down.
"""

from __future__ import annotations

from chronolog import api
from chronolog.connectors import spark as _connector
from chronolog.connectors.spark import (  # noqa: F401 (the public names, with reason)
    JVM_OPTIONS,
    SESSION_DEFAULTS,
    DriverFallback,
    OneTaskFallback,
    arrow_frame,
    parquet_schema,
    read_binding,
    register,
    session,
    write_binding,
)


def reason(spark, program, inputs: dict | None = None, **options) -> dict:
    return _connector.reason_with(spark, program, inputs, embedded=api, **options)


def run_program(spark, program_path, **options):
    return _connector.run_program_with(spark, program_path, embedded=api, **options)


def explain_plan(spark, program, inputs: dict | None = None, *, analyze: bool = False, **options) -> str:
    """The plan of ``program`` as ``chronolog plan`` prints it; with
    ``analyze=True`` run as :func:`reason` runs it (``inputs`` and
    ``options`` as its) and annotated with what the call did, as EXPLAIN
    ANALYZE: the path taken and why, its Spark jobs and wall time; per
    stratum on the relational rounds its rounds, time and jobs (on the
    driver, the embedded run's strata); each output's facts and rows
    (every derived predicate unless ``outputs`` names some)."""
    from chronolog.plan_api import explain_spark_plan

    return explain_spark_plan(spark, program, inputs, analyze=analyze, reason=reason, **options)


# the options and what they do: the connector's docstrings (one text, one place)
reason.__doc__ = _connector.reason_with.__doc__
run_program.__doc__ = _connector.run_program_with.__doc__
