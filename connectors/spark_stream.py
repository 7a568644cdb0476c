"""Spark Structured Streaming: a streaming DataFrame in, answers out
(started by :func:`chronolog.spark_stream.stream_query`).

A program the planner can key (every rule joins, negates and derives atoms
on one shared key, such as a sensor) streams per key with its state in
Spark's executors: :mod:`chronolog.connectors.spark_keyed_stream`.  Any
other program streams on the driver, as described here, fed by
``foreachBatch`` (one global watermark, rules that join across keys); a
log line says why.  Each micro-batch:

1. is skipped if its id is not after the last one the reasoner saved (Spark
   replays the last batch after a failure; the reasoner already has it);
2. is pushed into a :class:`chronolog.Stream` (facts in non-decreasing start
   time across micro-batches); a late fact (one starting where the stream is
   closed) is counted, logged and kept in ``<output>.late``, then skipped or,
   with ``late="fail"``, stops the query after the batch is saved as
   consumed, so a restart goes on with the next one;
3. writes the answers that became final to ``output/batch=<id>`` as Parquet
   (overwriting that batch's directory, so a replay is idempotent);
4. saves the stream's state (:meth:`Stream.snapshot`) next to Spark's own
   checkpoint, atomically, so a restarted query continues from it.

Input: a string column ``fact`` in the canonical syntax (``temp(a,42)@3``),
or, with ``pred=``, the Arrow layout of ``Model.to_arrow`` (term columns,
``start``, ``end`` and optionally ``start_closed``/``end_closed``).  With
``reach_back``, a ``fact`` line ``-p(a)@3`` retracts and ``+p(a)@3`` adds as
a correction (:meth:`chronolog.Stream.update`): a micro-batch's facts go in
first, then its correction lines as one update (per key on the keyed path);
a correction the stream cannot take is a late fact.
Output columns: ``pred``, ``fact`` (canonical text, ``-p(a)@[1,3]`` for an
answer given before that no longer holds), ``start``, ``end`` (exact
numbers as canonical text, null when infinite), ``start_closed``,
``end_closed``, ``retracted`` (true for those).
"""

from __future__ import annotations

import os
import pickle
from functools import partial
from pathlib import Path
from typing import Optional

from chronolog.language.text import format_fact
from chronolog.language.timeline import NEG_INF, POS_INF, format_number

ROWS_SCHEMA = "pred string, fact string, start string, end string, start_closed boolean, end_closed boolean, retracted boolean"
OUTPUT_SCHEMA = ROWS_SCHEMA + ", batch_id long"
SIGNS = ("-", "+")  # a correction line: retract, add


def answer_rows(facts) -> list:
    """Stream answers as output rows: pred, fact text (``-`` first for a
    retraction), start and end as exact text (None when unbounded), whether
    each end is closed, and whether it is a retraction."""
    return [
        (
            f.pred,
            str(f),
            None if f.interval[0] == NEG_INF else format_number(f.interval[0]),
            None if f.interval[1] == POS_INF else format_number(f.interval[1]),
            bool(f.interval[2]),
            bool(f.interval[3]),
            bool(f.retracted),
        )
        for f in facts
    ]


def by_sign(lines) -> dict:
    """Fact lines by their correction sign: ``""`` (a new fact), ``"-"``,
    ``"+"``; the sign taken off."""
    out: dict = {"": [], "-": [], "+": []}
    for line in lines:
        body = line.lstrip()
        sign = body[:1] if body[:1] in SIGNS else ""
        out[sign].append(body[1:] if sign else line)
    return out


def feed(stream, lines: dict, read) -> list:
    """One micro-batch into ``stream``: ``lines`` by sign (:func:`by_sign`),
    ``read`` turning lines into ``{pred: rows}``.  The new facts go in, then
    the corrections as one update; returns the late lines: new facts
    starting where the stream is closed, and corrections it cannot take
    (with their sign)."""
    from chronolog.language.errors import LateCorrection

    rows, late = StreamRunner._split_late(stream, read(lines[""]))
    stream.push_rows(rows)
    if lines["-"] or lines["+"]:
        try:
            stream.update(add=dict(read(lines["+"])), retract=dict(read(lines["-"])))
        except LateCorrection:
            late += [sign + x for sign in SIGNS for x in lines[sign]]
    return late


def read_lines(lines, dialect: str = "vadalog") -> dict:
    """Fact lines of a stream as ``{pred: rows}``."""
    from chronolog.language.facts import read_dialect_facts, refuse_repeating

    loaded = read_dialect_facts(lines, "<facts>", dialect)
    refuse_repeating(loaded, "a stream")
    return dict(loaded)


class LateFacts:
    """Late facts of a streaming runner (``output``, ``late``, ``late_facts``):
    counted, logged and kept beside the output as ``<output>.late``."""

    def _late_dir(self, batch_id) -> Path:
        return Path(str(self.output) + ".late") / f"batch={batch_id}"

    def _report_late(self, spark, late, batch_id) -> None:
        """Count, log and keep the late facts beside the output (``<output>.late``)."""
        import logging

        self.late_facts += len(late)
        logging.getLogger("chronolog.stream").warning(
            "micro-batch %s: %d late fact(s) %s (e.g. %s), written to %s",
            batch_id, len(late), "skipped" if self.late == "skip" else "rejected", late[0], self._late_dir(batch_id),
        )
        spark.createDataFrame([(f, batch_id) for f in late], "fact string, batch_id long").coalesce(1).write.mode(
            "overwrite"
        ).parquet(str(self._late_dir(batch_id)))


class StreamRunner(LateFacts):
    """The ``foreachBatch`` function: owns the driver-side stream and its
    saved state under ``checkpoint/chronolog``."""

    def __init__(self, program, checkpoint, output, *, stream, pred: Optional[str] = None, dialect: str = "vadalog", late: str = "skip",
                 reach_back=None):
        if late not in ("skip", "fail"):
            from chronolog.language.errors import ProgramError

            raise ProgramError(f"late={late!r} is not a policy for late facts", hint='late="skip" or late="fail"')
        self.late = late
        self.late_facts = 0  # facts that arrived after the stream had closed their time
        self.program = program
        self.dialect = dialect
        self.pred = pred
        self.output = Path(output)
        self.state_path = Path(checkpoint) / "chronolog" / "state.pkl"
        self._stream = None
        self._stream_class = stream  # chronolog.Stream, passed in: it is the API's, a layer above
        self.reach_back = reach_back
        self.last_batch = -1

    @property
    def stream(self):
        if self._stream is None:
            self._stream = self._stream_class(self.program, dialect=self.dialect, reach_back=self.reach_back)
            if self.state_path.exists():
                with self.state_path.open("rb") as fh:
                    saved = pickle.load(fh)
                self._stream.restore(saved["stream"])
                self.last_batch = saved["batch_id"]
        return self._stream

    def __call__(self, batch_df, batch_id: int) -> None:
        stream = self.stream
        if batch_id <= self.last_batch:
            return
        late = self._feed(stream, batch_df)
        self._write(batch_df.sparkSession, stream.take(), batch_id)
        if late:
            self._report_late(batch_df.sparkSession, late, batch_id)
        self._save(batch_id)  # the batch is consumed either way: a restart continues after it
        if late and self.late == "fail":
            from chronolog.language.errors import DataError

            raise DataError(
                f"{len(late)} late fact(s) in micro-batch {batch_id}, e.g. {late[0]}: the stream was closed up to "
                "their start; the batch's other facts were used",
                hint=f"the late facts are in {self._late_dir(batch_id)}; restart the query to go on "
                '(late="skip" goes on by itself)',
            )

    @staticmethod
    def _split_late(stream, rows):
        """The facts that may still enter the stream, and the late ones
        (as text): those starting where the stream is already closed."""
        v, closed = stream._promised
        keep, late = {}, []
        for pred, rs in rows.items():
            ok = []
            for terms, iv in rs:
                if iv[0] < v or (iv[0] == v and closed and iv[2]):
                    late.append(format_fact(pred, terms, iv))
                else:
                    ok.append((terms, iv))
            keep[pred] = ok
        return keep, late

    def close(self, spark) -> None:
        """End the stream: write every remaining answer (as batch ``last + 1``)."""
        stream = self.stream
        stream.close()
        batch_id = self.last_batch + 1
        self._write(spark, stream.take(), batch_id)
        self._save(batch_id)

    # ------------------------------------------------------------------
    def _feed(self, stream, batch_df) -> list:
        """The micro-batch into the stream (:func:`feed`); the late lines."""
        if self.pred is None:
            lines = [r[0] for r in batch_df.select("fact").collect() if r[0]]
            return feed(stream, by_sign(lines), partial(read_lines, dialect=self.dialect))
        from chronolog.connectors.distributed import with_text_marks
        from chronolog.engine.arrow import table_to_rows

        table = with_text_marks(batch_df.toArrow(), batch_df.schema)  # (term text, as a set, read as the term)
        rows = {self.pred: list(table_to_rows(table, self.pred, timestamps="times"))}
        keep, late = self._split_late(stream, rows)
        stream.push_rows(keep)
        return late

    def _write(self, spark, facts, batch_id) -> None:
        if not facts:
            return
        rows = [r + (batch_id,) for r in answer_rows(facts)]
        df = spark.createDataFrame(rows, OUTPUT_SCHEMA)
        df.coalesce(1).write.mode("overwrite").parquet(str(self.output / f"batch={batch_id}"))

    def _save(self, batch_id) -> None:
        self.state_path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.state_path.with_suffix(".tmp")
        with tmp.open("wb") as fh:
            pickle.dump({"batch_id": batch_id, "stream": self._stream.snapshot()}, fh)
        os.replace(tmp, self.state_path)
        self.last_batch = batch_id


MOVED_UP = ("stream_query",)  # to chronolog.spark_stream, above the API


def __getattr__(name):
    """A clear sentence for the entry point that moved up to :mod:`chronolog.spark_stream`."""
    if name in MOVED_UP:
        raise AttributeError(
            f"chronolog.connectors.spark_stream.{name} is now chronolog.spark_stream.{name}: "
            "write `from chronolog.spark_stream import stream_query`"
        )
    raise AttributeError(f"module 'chronolog.connectors.spark_stream' has no attribute {name!r}")


__all__ = ["StreamRunner", "OUTPUT_SCHEMA"]
