"""Where ``reason(spark, ..., distributed=True)`` runs a program the
planner found no key for: seminaive rounds of Spark SQL, or the embedded
engine in ONE Spark task.

The rounds (:mod:`~chronolog.connectors.spark_rounds`) keep every
relation in the executors and spread each round over the cluster, but
every round costs at least one Spark job and about a second of planning
on the driver.  One task (the keyed path with the constant key ``''``:
one executor's Python worker runs the engine, the answers stay in the
executors, one job) has no such cost per round, so on small inputs it
finishes first; on one machine the rounds win only from a few MB of
input (docs/design.md, "One task for small inputs without a key").

"Small" is Spark's own estimate, as for a broadcast join: the
optimizer's statistics of each input DataFrame's plan (no job; a
Parquet file counts its size on disk), the Arrow or pandas inputs' bytes
in memory, and the program's own facts; a size Spark does not know counts
as large.  The limit is the session setting ``spark.chronolog.oneTaskBytes``
(or ``reason``'s ``one_task_bytes``); ``-1``: never by size.

A program the rounds cannot run (:class:`~chronolog.connectors.spark_rounds.NotRelational`)
runs in one task too, whatever its size, with a warning: the same
engine as on the driver, about as fast (faster at most sizes measured),
and the driver's Python never holds the input or the model (bench/README.md,
"Figures behind design choices").
"""

from __future__ import annotations

from chronolog.planner.backend_choice import ONE_TASK_BYTES, ONE_TASK_CONF  # (decided with the rest of the placement)

UNKNOWN = (1 << 63) - 1  # Spark's size of what it cannot estimate (spark.sql.defaultSizeInBytes)


def one_task_limit(spark, given=None) -> int:
    """The input size (bytes) under which a program with no key runs in
    one task: ``given``, else the session's :data:`ONE_TASK_CONF`, else
    :data:`ONE_TASK_BYTES`; a negative limit: never."""
    if given is None:
        given = spark.conf.get(ONE_TASK_CONF, None)
    if given is None:
        return ONE_TASK_BYTES
    try:
        return int(str(given).strip())
    except ValueError:
        from chronolog.language.errors import ProgramError

        raise ProgramError(f"{ONE_TASK_CONF} is {given!r}, not a number of bytes", hint="-1: never by size") from None


def input_bytes(frames, local_facts) -> int:
    """Spark's estimate of the inputs' size in bytes, without a job:
    ``frames`` are ``[(pred, DataFrame | Arrow | pandas, csv)]``; the
    program's facts count 8 bytes per term and 16 per interval.  Spark's
    unknown size is its ``Long.MaxValue`` (:data:`UNKNOWN`)."""
    import pyarrow as pa

    total = sum(8 * len(f.terms) + 16 for f in local_facts)
    for _, df, _ in frames:
        if isinstance(df, (pa.Table, pa.RecordBatch)):
            total += df.nbytes
        elif hasattr(df, "memory_usage"):  # pandas
            total += int(df.memory_usage(deep=True).sum())
        elif hasattr(df, "_jdf"):
            total += int(df._jdf.queryExecution().optimizedPlan().stats().sizeInBytes())
        else:
            return UNKNOWN
    return total


def _size(n: int) -> str:
    if n >= UNKNOWN:
        return "of a size Spark does not know"
    return f"of {n / (1 << 20):.2f} MiB" if n >= 1 << 20 else f"of {n} bytes"


def choose(spark, plan, frames, local_facts, given=None, horizon=None) -> tuple[str, str]:
    """``(path, why)`` for a program with no key: ``"refused"`` (one task,
    with a warning: the rounds cannot run its rules, whatever the inputs),
    ``"one task"`` (its inputs are small) or ``"relational"`` (the rounds,
    which may still refuse what only the inputs reveal: :func:`refusal`)."""
    from .spark_rounds import NotRelational, check_rules

    try:
        check_rules(plan, horizon)
    except NotRelational as r:
        return "refused", refusal(r)
    limit = one_task_limit(spark, given)
    if limit < 0:
        return "relational", f"{ONE_TASK_CONF} is {limit}: never one task by size"
    n = input_bytes(frames, local_facts)
    if n <= limit:
        return "one task", f"inputs {_size(n)} (Spark's estimate), at most {ONE_TASK_CONF} = {limit}"
    return "relational", f"inputs {_size(n)} (Spark's estimate), over {ONE_TASK_CONF} = {limit}"


def refusal(r) -> str:
    """Why one task runs a program the rounds refused (``NotRelational``)."""
    return f"relational rounds cannot run it: {r.render()}"
