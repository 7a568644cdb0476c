"""The run's side of the Spark session: statements, temporary views,
checkpoints and the one action that writes them.

Every Spark call of the rounds goes through a :class:`Catalog`: a statement
is one py4j round trip and one analysis, the statements read the run's
checkpoints through temporary views (dropped after the run), and a round's
relations are checkpointed and counted by ONE action.  The driver holds
plans and counts, never relations.
"""

from __future__ import annotations

from itertools import count

_VIEWS = count(1)  # temporary view names, unique within the process
DEFAULT_SIZE = 2**63 - 1  # Spark's size estimate of a relation it knows nothing of (spark.sql.defaultSizeInBytes)


def is_set(spark, key: str) -> bool:
    """Whether the session's SQL settings hold ``key`` (set by the user at
    launch or since), rather than Spark's default."""
    try:
        return bool(spark._jsparkSession.sessionState().conf().contains(key))
    except AttributeError:  # pragma: no cover - Spark Connect: no JVM session, keep its setting
        return True


def release(df) -> None:
    """Drop the blocks of the checkpoint under ``df`` now that the merged
    relation replacing it is written (its old rounds otherwise stayed in
    the block manager's memory until the driver's garbage collection freed
    their plans: old generations that every young collection had to scan)."""
    try:
        plan = df._jdf.queryExecution().logical()
        while plan.getClass().getSimpleName() != "LogicalRDD" and plan.children().size() == 1:
            plan = plan.children().head()
        if plan.getClass().getSimpleName() == "LogicalRDD":
            plan.rdd().unpersist(False)
    except Exception:  # pragma: no cover - Spark Connect has no JVM plan: the cleaner frees it later
        pass


# Spark's SQL parser (ANTLR) caches a DFA for what every statement it has
# parsed needed, and by default (ANTLR's own cache, static in the JVM) never
# frees it: the rounds' statements are long and each one new, so a session
# running many programs filled its driver's heap with it (ATNConfig and
# DFAState objects: 420 MB halfway through the test suite's Spark tests, then
# an OutOfMemoryError that killed the JVM).  Spark's managed caches flush it
# past a tenth of the driver's memory.  Every statement of a run is parsed
# under them: the rounds' (rounds.ROUND_CONF), and the outputs' (parsed after
# the run, when their DataFrames are first used: Catalog.sql's ``lasting``).
PARSER_CONF = {
    "spark.sql.parser.manageParserCaches": "true",
    "spark.sql.parser.parserDfaCacheFlushRatio": "10",
}


def parser_conf(spark) -> dict:
    """:data:`PARSER_CONF` but the settings the session holds (a user's
    own flush ratio or threshold stays theirs)."""
    return {k: v for k, v in PARSER_CONF.items() if not is_set(spark, k)}


_JVM_NAMES: dict = {}  # id(SparkContext's gateway) -> (scala None, classic Dataset): py4j resolves a name by round trips


def _jvm_names(spark) -> tuple:
    jvm = spark.sparkContext._jvm
    got = _JVM_NAMES.get(id(jvm))
    if got is None:
        got = _JVM_NAMES[id(jvm)] = (jvm.scala.Option.empty(), jvm.org.apache.spark.sql.classic.Dataset)
    return got


def unestimated(spark, jdf):
    """``jdf`` (a checkpoint) with Spark's default size estimate where its own
    is past any real size.  A checkpoint keeps the size estimate of the plan
    it was made from, and Spark estimates a join as the product of its
    sides: a recursion's relation, joined with its own delta every round,
    squared its estimate each round (temporal reachability at 200k edges:
    a number of millions of digits after 30 rounds, whose multiplication
    took the driver 20 s of a round with 0.1 s of tasks).  Above Spark's
    default size (2^63 bytes) an estimate decides nothing (no broadcast, no
    smaller side), so the plans stay the same."""
    try:
        plan = jdf.logicalPlan()  # a LogicalRDD
        try:
            # three py4j round trips per checkpoint; the number is read as
            # text, cheap as every checkpoint's is capped (a statement's is
            # then a product of a few numbers under 2^63)
            if plan.stats().sizeInBytes() < DEFAULT_SIZE:
                return jdf
        except ValueError:  # more digits than Python reads from text: past any real size
            pass
        # the arguments after the first six: session, origin statistics,
        # origin constraints, whether it is a checkpointed input
        session, _, constraints, checkpointed = (plan.otherCopyArgs().apply(i) for i in range(4))
        none, dataset = _jvm_names(spark)
        plain = plan.copy(plan.output(), plan.rdd(), plan.outputPartitioning(), plan.outputOrdering(), plan.isStreaming(),
                          plan.stream(), session, none, constraints, checkpointed)
        return dataset.ofRows(session, plain)
    except Exception:  # pragma: no cover - Spark Connect (no JVM plan), another Spark version's LogicalRDD: its own estimate stays
        return jdf


class Catalog:
    """The statements and temporary views of one run on ``spark``."""

    def __init__(self, spark):
        self.spark = spark
        # id(df) -> (its temporary view, df): the DataFrame is held so that
        # its id is not reused while the view exists (dropped by close())
        self._views: dict = {}
        self._checkpoints: dict = {}  # id(df) -> df: the run's checkpoints not discarded yet (close())

    def sql(self, text: str, lasting: bool = False):
        """A DataFrame of one statement: one py4j round trip, one analysis
        (``spark.sql`` would add a conversion of its empty argument list).
        ``lasting``: parsed outside the rounds' settings (an output's, after
        the run), so under :func:`parser_conf` of its own."""
        from contextlib import nullcontext

        from pyspark.sql import DataFrame

        from ..spark import _session_conf

        with _session_conf(self.spark, parser_conf(self.spark)) if lasting else nullcontext():
            return DataFrame(self.spark._jsparkSession.sql(text), self.spark)

    def view(self, df) -> str:
        """A temporary view of ``df`` for the statements to read (made once per DataFrame)."""
        got = self._views.get(id(df))
        if got is None:
            got = (f"__chronolog_rel_{next(_VIEWS)}", df)
            df._jdf.createOrReplaceTempView(got[0])
            self._views[id(df)] = got
        return got[0]

    def read(self, rel) -> str:
        """What a statement reads ``rel`` (a relations.Rel) from: a view of its
        checkpoint, the columns ``cols`` where ``where`` holds."""
        if rel.sql:
            return rel.sql
        where = f" WHERE {rel.where}" if rel.where else ""
        return f"(SELECT {', '.join(rel.cols)} FROM {self.view(rel.df)}{where})"

    def discard(self, df) -> None:
        """A checkpoint read no more: its blocks released, its view dropped."""
        release(df)
        self._checkpoints.pop(id(df), None)
        got = self._views.pop(id(df), None)
        if got is not None:
            self.spark._jsparkSession.catalog().dropTempView(got[0])

    def close(self, failed: bool = False) -> None:
        """Drop the run's temporary views (the DataFrames made from them keep
        their plans); after a run that ``failed`` (no outputs read them),
        release its checkpoints' blocks too, which otherwise stayed in the
        block manager until the driver's garbage collection found their plans
        unreachable."""
        cat = self.spark._jsparkSession.catalog()
        for name, _ in self._views.values():
            cat.dropTempView(name)
        self._views.clear()
        if failed:
            for df in self._checkpoints.values():
                release(df)
        self._checkpoints.clear()

    def checkpoint(self, text: str):
        """The statement ``text`` as a lazy local checkpoint: written by the
        first job that computes it (:meth:`materialize`'s, or a later
        statement's that reads it in the same job)."""
        df = self.sql(text)
        df = type(df)(unestimated(self.spark, df._jdf.localCheckpoint(False)), self.spark)
        self._checkpoints[id(df)] = df
        return df

    def materialize(self, items: list) -> list:
        """Checkpoint each statement of ``items`` (``(SQL, checkpoint?, flag)``;
        a DataFrame instead of SQL: a checkpoint made already, by
        :meth:`checkpoint`) and count its rows and, when ``flag`` names a
        boolean column, its rows where it holds, all in ONE Spark action: a
        union of one global aggregate per statement.  Returns
        ``[(DataFrame, rows, flagged rows)]``.  A lazy local checkpoint is
        written by the first job that computes it, which is this one."""
        out, aggs = [], []
        for i, (text, cp, flag) in enumerate(items):
            if not isinstance(text, str):
                df = text
            elif cp:
                df = self.checkpoint(text)
            else:
                df = self.sql(text)
            out.append(df)
            fresh = f"sum(CAST({flag} AS BIGINT))" if flag else "0L"
            aggs.append(f"SELECT {i} AS i, count(1) AS n, {fresh} AS f FROM {self.view(df)}")
        got = {r[0]: (r[1], r[2] or 0) for r in self.sql("\nUNION ALL\n".join(aggs)).collect()}
        return [(df, *got[i]) for i, df in enumerate(out)]

    def collect(self, items: list, cap: int, ctes=()):
        """The rows of each statement of ``items`` (``(SQL, [(column, SQL
        type)])``) on the driver, in ONE Spark action with no checkpoint: a
        union of each statement's rows as a struct column of its own, with
        the statement's number; ``[pyarrow.Table]``, or None when a
        statement has more than ``cap`` rows (each is read up to ``cap + 1``).
        ``ctes``: ``[(name, step)]`` the statements read, written once
        before the union."""
        from .sql import with_ctes

        import pyarrow as pa
        import pyarrow.compute as pc

        structs = [f"STRUCT<{', '.join(f'`{c}`: {t}' for c, t in cols)}>" for _, cols in items]
        parts = []
        for i, (text, cols) in enumerate(items):
            row = "named_struct(" + ", ".join(f"'{c}', {c}" for c, _ in cols) + ")"
            sel = [f"{i} AS _i", *(f"{row if j == i else f'CAST(NULL AS {st})'} AS _r{j}" for j, st in enumerate(structs))]
            parts.append(f"SELECT {', '.join(sel)} FROM (SELECT * FROM ({text}) AS _m LIMIT {cap + 1}) AS _c")
        got = self.sql(with_ctes(ctes, "\nUNION ALL\n".join(parts))).toArrow()
        out = []
        for i in range(len(items)):
            rows = got.filter(pc.equal(got.column("_i"), i)).column(f"_r{i}").combine_chunks()
            if len(rows) > cap:
                return None
            out.append(pa.Table.from_arrays(rows.flatten(), names=[f.name for f in rows.type]))
        return out

    def broadcastable(self, text: str) -> bool:
        """Whether Spark's size estimate of the statement ``text`` is under its broadcast threshold."""
        try:
            limit = int(self.spark.conf.get("spark.sql.autoBroadcastJoinThreshold").rstrip("bB"))
        except ValueError:  # a size with a unit: take Spark's default instead
            limit = 10 * 2**20
        if limit <= 0:
            return False
        size = self.sql(text)._jdf.queryExecution().optimizedPlan().stats().sizeInBytes()
        return int(str(size)) <= limit
