"""Keyed Structured Streaming: one :class:`chronolog.Stream` per key, its
state in Spark's executors.

When the planner finds a key for every predicate of a streaming program
(:mod:`chronolog.planner.partition`), the key groups never meet, so each
key's facts can be streamed on their own and the union of the keys'
answers is the answer.  The query is then:

1. ``mapInArrow`` in the executors: each input fact (a ``fact`` text
   column, or the Arrow layout with ``pred=``) gets its key's canonical text;
2. ``groupBy(key).applyInPandasWithState``: for every key with facts in the
   micro-batch, the key's stream is restored from its state (a pickled
   :meth:`Stream.snapshot`, kept by Spark's state store and checkpoint),
   fed, and saved; the answers that became final leave as rows, and so do
   late facts (those starting where the key's stream is closed);
   correction lines (``-p(a)@3``, ``+p(a)@3``, with ``reach_back``) go to
   their key's stream after its new facts, as one update, and the key's
   answers they change leave as retractions (``retracted``) and answers; the
   key's correction log (checkpoints of its stream, bounded by
   ``reach_back`` before the key's watermark) is part of its state;
3. ``foreachBatch`` on the driver writes the batch's answers to
   ``output/batch=<id>`` (overwriting, so a replayed batch is idempotent)
   and applies the late-fact policy.

Spark commits the state of a micro-batch together with its offsets, so a
query restarted from its checkpoint replays an uncommitted batch from the
state before it: nothing is lost and nothing is answered twice.
:meth:`KeyedRunner.close` ends every key's stream with a batch job over
the state store (Spark's ``statestore`` data source), in the executors too.

Each key has its own stream time: a key's answers up to time ``t`` come out
once that key has a fact starting after ``t`` (or at ``close``), and a fact
is late when it starts where *its key's* stream is closed.
"""

from __future__ import annotations

import pickle
from pathlib import Path

from chronolog.engine.term_types import key_text  # equal exactly when the engine finds the terms equal

from .spark_stream import ROWS_SCHEMA, LateFacts, answer_rows, by_sign, feed, read_lines

LATE = "\x00late"
STATE_SCHEMA = "snapshot binary"


def keys_of(program, dialect: str = "vadalog"):
    """``{pred: key position}`` when ``program`` streams per key; raises
    :class:`~chronolog.planner.partition.NotPartitionable` otherwise."""
    from chronolog.language.programs import read_program
    from chronolog.planner import plan as make_plan
    from chronolog.planner.partition import analyse

    from chronolog.language.facts import refuse_repeating
    from chronolog.planner.forward import check_forward

    prog = read_program(program, dialect)
    check_forward(prog)  # as chronolog.Stream does, before any partitioning advice
    refuse_repeating(prog.facts, "a stream")
    return analyse(make_plan(prog)).keys


# ------------------------------------------------------------ in the executors

_PROGRAMS: dict = {}  # per Python worker: program text -> (ast without facts, {key: background})


def _program(job):
    """The program without its facts, and its facts by key (each key's
    stream knows only its own), parsed once per worker process."""
    got = _PROGRAMS.get(job["id"])
    if got is None:
        from chronolog.language import ast
        from chronolog.language.programs import read_program

        prog = read_program(job["program"], job["dialect"])
        background: dict = {}
        bound = []
        if any(a.name == "bind" for a in prog.annotations):  # (read here once, each key's facts to its stream)
            from pathlib import Path

            from .bindings import load_bound_inputs

            bound = load_bound_inputs(prog, Path.cwd())
        for f in list(prog.facts) + bound:
            k = job["keys"].get(f.pred)
            if k is not None:
                background.setdefault(key_text(f.terms[k]), {}).setdefault(f.pred, []).append((f.terms, f.interval))
        annotations = [a for a in prog.annotations if a.name != "bind"]
        bare = ast.Program(list(prog.rules), [], annotations, prog.source, prog.calendar)
        got = _PROGRAMS[job["id"]] = (bare, background)
    return got


def make_keying(job):
    """The ``mapInArrow`` function: input rows to ``(__key, fact)`` rows."""

    def keying(batches):
        import pyarrow as pa

        from chronolog.language.text import format_fact

        keys = job["keys"]
        for b in batches:
            if b.num_rows == 0:
                continue
            if job["pred"] is None:
                lines = by_sign(x for x in b.column(b.schema.get_field_index("fact")).to_pylist() if x)
                items = [
                    (sign, p, t, iv)
                    for sign, ls in lines.items() if ls
                    for p, rs in read_lines(ls, job["dialect"]).items() for t, iv in rs
                ]
            else:
                from chronolog.engine.arrow import table_to_rows

                p = job["pred"]
                items = [("", p, t, iv) for t, iv in table_to_rows(pa.Table.from_batches([b]), p, timestamps="times")]
            out_k, out_f = [], []
            for sign, p, t, iv in items:
                k = keys.get(p)
                if k is None:  # used by no rule: no answer depends on it
                    continue
                out_k.append(key_text(t[k]))
                out_f.append(sign + format_fact(p, t, iv))  # (a correction keeps its sign)
            if out_k:
                yield pa.RecordBatch.from_arrays([pa.array(out_k, pa.string()), pa.array(out_f, pa.string())], names=["__key", "fact"])

    return keying


def _new_stream(job, key):
    bare, background = _program(job)
    s = job["stream"](bare, dialect=job["dialect"], reach_back=job["reach_back"])
    for pred, rows in background.get(key, {}).items():
        s.evaluator.background.setdefault(pred, []).extend(rows)
    return s


def _frame(rows):
    import pandas as pd

    cols = ["pred", "fact", "start", "end", "start_closed", "end_closed", "retracted"]
    return pd.DataFrame.from_records(rows, columns=cols) if rows else pd.DataFrame({c: [] for c in cols})


def make_step(job):
    """The ``applyInPandasWithState`` function: one key's micro-batch."""

    def step(key, frames, state):
        from chronolog.language.facts import read_fact_rows

        stream = _new_stream(job, key[0])
        if state.exists:
            stream.restore(pickle.loads(state.get[0]))
        lines = by_sign(x for f in frames for x in f["fact"].tolist())
        late = feed(stream, lines, lambda ls: dict(read_fact_rows(ls, "<stream>")))
        out = answer_rows(stream.take())
        out.extend((LATE, f, None, None, None, None, None) for f in late)
        state.update((pickle.dumps(stream.snapshot(), protocol=pickle.HIGHEST_PROTOCOL),))
        yield _frame(out)

    return step


def make_closer(job):
    """The ``mapInArrow`` function over the state store: close each key's stream."""

    def close(batches):
        import pyarrow as pa

        for b in batches:
            out = []
            for key, snap in zip(b.column(0).to_pylist(), b.column(1).to_pylist()):
                stream = _new_stream(job, key)
                if snap is not None:  # None: a key known only from the program's facts
                    stream.restore(pickle.loads(snap))
                stream.close()
                out.extend(answer_rows(stream.take()))
            cols = list(zip(*out)) if out else [[]] * 7
            types = [pa.string()] * 4 + [pa.bool_()] * 3
            names = ["pred", "fact", "start", "end", "start_closed", "end_closed", "retracted"]
            yield pa.RecordBatch.from_arrays([pa.array(list(c), t) for c, t in zip(cols, types)], names=names)

    return close


# ------------------------------------------------------------ on the driver


class KeyedRunner(LateFacts):
    """The ``foreachBatch`` sink of a keyed streaming query (see the module
    docstring); ``late_facts`` counts the late facts this runner saw.
    ``stream``: the class of each key's stream (``chronolog.Stream``, passed
    in: it is the API's, a layer above the connectors)."""

    keyed = True

    def __init__(self, program, checkpoint, output, keys, *, stream, pred=None, dialect="vadalog", late="skip", reach_back=None):
        import hashlib

        if isinstance(program, Path):
            program = program.read_text(encoding="utf-8")
        # text or a parsed program travels to the executors as it is
        ident = program.encode() if isinstance(program, str) else pickle.dumps(program)
        self.job = {
            "program": program,
            "id": hashlib.sha256(ident).hexdigest(),
            "dialect": dialect,
            "keys": dict(keys),
            "pred": pred,
            "stream": stream,
            "reach_back": reach_back,  # corrections on, each key's log this far back
        }
        self.late = late
        self.late_facts = 0
        self.checkpoint = Path(checkpoint)
        self.output = Path(output)
        self.last_batch = self._committed()

    def _committed(self) -> int:
        """The last micro-batch Spark committed in this checkpoint (-1: none)."""
        commits = self.checkpoint / "spark" / "commits"
        ids = [int(p.name) for p in commits.iterdir() if p.name.isdigit()] if commits.is_dir() else []
        closed = self.checkpoint / "chronolog" / "closed"
        if closed.exists():
            ids.append(int(closed.read_text()))
        return max(ids, default=-1)

    def query(self, source):
        """The streaming DataFrame of answer and late rows."""
        from pyspark.sql.streaming.state import GroupStateTimeout

        keyed = source.mapInArrow(make_keying(self.job), "__key string, fact string")
        return keyed.groupBy("__key").applyInPandasWithState(
            make_step(self.job), ROWS_SCHEMA, STATE_SCHEMA, "append", GroupStateTimeout.NoTimeout
        )

    def __call__(self, batch_df, batch_id: int) -> None:
        import pyspark.sql.functions as F

        spark = batch_df.sparkSession
        batch_df = batch_df.persist()  # the stateful step runs once per batch
        try:
            answers = batch_df.filter(F.col("pred") != LATE).withColumn("batch_id", F.lit(batch_id).cast("long"))
            answers.coalesce(1).write.mode("overwrite").parquet(str(self.output / f"batch={batch_id}"))
            late = [r[0] for r in batch_df.filter(F.col("pred") == LATE).select("fact").collect()]
        finally:
            batch_df.unpersist()
        if late:
            self._report_late(spark, sorted(late), batch_id)
        self.last_batch = batch_id
        marker = self.checkpoint / "chronolog" / f"late-rejected-{batch_id}"
        if late and self.late == "fail" and not marker.exists():
            # a replay of this batch after the restart goes on: Spark did not
            # commit it, and the marker says its late facts were reported
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.write_text("\n".join(sorted(late)))
            from chronolog.language.errors import DataError

            raise DataError(
                f"{len(late)} late fact(s) in micro-batch {batch_id}, e.g. {sorted(late)[0]}: their key's stream "
                "was closed up to their start; the batch's other facts were used",
                hint=f"the late facts are in {self._late_dir(batch_id)}; restart the query to go on "
                '(late="skip" goes on by itself)',
            )

    def close(self, spark) -> None:
        """End every key's stream: its remaining answers are written as
        batch ``last + 1``, computed in the executors from the state store
        of the last committed micro-batch.  Call it once the query has
        stopped; a second close writes nothing new."""
        import pyspark.sql.functions as F

        closed = self.checkpoint / "chronolog" / "closed"
        if closed.exists():
            return
        last = self._committed()
        batch_id = last + 1
        # keys known only from the program's facts have no state: fresh streams
        _, background = _program(self.job)
        snaps = spark.createDataFrame([(k, None) for k in sorted(background)], "key string, snapshot binary")
        if last >= 0:
            state = spark.read.format("statestore").option("batchId", last).load(str(self.checkpoint / "spark"))
            value = state.schema["value"].dataType
            # applyInPandasWithState keeps the user's state as value.groupState
            snap = "value.groupState.snapshot" if "groupState" in value.fieldNames() else "value.snapshot"
            kept = state.select(F.col("key.__key").alias("key"), F.col(snap).alias("snapshot")).filter(F.col("snapshot").isNotNull())
            snaps = kept.unionByName(snaps.join(kept, "key", "left_anti"))
        out = snaps.mapInArrow(make_closer(self.job), ROWS_SCHEMA).withColumn("batch_id", F.lit(batch_id).cast("long"))
        out.coalesce(1).write.mode("overwrite").parquet(str(self.output / f"batch={batch_id}"))
        closed.parent.mkdir(parents=True, exist_ok=True)
        closed.write_text(str(batch_id))
        self.last_batch = batch_id
