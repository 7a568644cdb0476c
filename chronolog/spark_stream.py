"""Spark Structured Streaming, the public entry point: a streaming DataFrame
in, answers out.

    from chronolog.spark_stream import stream_query
    query, runner = stream_query(program, source_df, checkpoint="ckpt", output="answers")
    query.awaitTermination()

The runners live in :mod:`chronolog.connectors.spark_stream` (on the driver)
and :mod:`chronolog.connectors.spark_keyed_stream` (per key, in Spark's
executors); this module sits above the API because it hands them
:class:`chronolog.Stream`.
"""

from __future__ import annotations

from pathlib import Path

from chronolog.connectors.spark_stream import OUTPUT_SCHEMA, StreamRunner  # noqa: F401 (public names)
from chronolog.stream import Stream


def stream_query(program, source, *, checkpoint, output, pred=None, dialect="vadalog", trigger=None, name=None, late="skip", keyed=None,
                 reach_back=None):
    """Start a streaming query running ``program`` over the streaming
    DataFrame ``source``; returns ``(StreamingQuery, runner)``.

    ``keyed``: ``None`` (default) streams per key in Spark's executors when
    the planner finds a key for every predicate
    (:class:`~chronolog.connectors.spark_keyed_stream.KeyedRunner`), and on
    the driver otherwise, saying why in a log line; ``True`` requires the
    keyed mode (an error names the rule that breaks the key); ``False``
    runs on the driver (:class:`~chronolog.connectors.spark_stream.StreamRunner`).

    ``late``: what a fact starting where the stream is already closed does:
    ``"skip"`` (counted in ``runner.late_facts``, logged, kept in
    ``<output>.late``) or ``"fail"`` (the same, then the query stops with
    a DataError; a restart continues after that micro-batch).

    ``reach_back``: turns corrections on (``-p(a)@3`` and ``+p(a)@3`` lines
    in the ``fact`` column, as ``chronolog stream`` reads them): how far
    before the watermark (each key's, on the keyed path) they may reach.
    A micro-batch's facts go in first, then its corrections as one update
    (:meth:`chronolog.Stream.update`); answers given before that no longer
    hold come out again with ``retracted`` true (``fact``: ``-p(a)@[1,3]``).
    A correction the stream cannot take (older than ``reach_back``, or
    without it one that meets processed input) is a late fact.

    ``trigger``: keyword arguments of ``DataStreamWriter.trigger`` (e.g.
    ``{"availableNow": True}``).  Restarting with the same ``checkpoint``
    continues where the last run stopped."""
    from chronolog.api import load_program
    from chronolog.language.errors import ProgramError

    if late not in ("skip", "fail"):
        raise ProgramError(f"late={late!r} is not a policy for late facts", hint='late="skip" or late="fail"')
    prog = load_program(program, dialect=dialect)
    if pred is not None:  # (@timeMapping of a table stream: its times by name, as cs.reason reads an input)
        from chronolog.connectors.spark import placed_times

        source = placed_times(prog, pred, source, None, "the stream's source")
    if prog.calendar is not None:  # (its readers and writers take numbers)
        raise ProgramError("a Spark stream takes numeric time points, but this program's timeline is dates",
                           hint="stream it with chronolog.Stream (chronolog stream), or write its time points as numbers")
    if reach_back is not None:
        from chronolog.arguments import check_span
        from chronolog.language.float_times import exact_time

        check_span(reach_back, "reach_back")
        reach_back = exact_time(reach_back)
    keys = None
    if keyed is not False:
        from chronolog.planner.partition import NotPartitionable

        from chronolog.connectors.spark_keyed_stream import keys_of

        try:
            keys = keys_of(program, dialect)
        except NotPartitionable as e:
            if keyed:
                raise
            import logging

            logging.getLogger("chronolog.stream").warning(
                "streaming on the driver, not per key group in Spark tasks: the program has no key to split it by (%s)", e.why
            )
    if keys is not None:
        from chronolog.connectors.spark_keyed_stream import KeyedRunner

        runner = KeyedRunner(program, checkpoint, output, keys, stream=Stream, pred=pred, dialect=dialect, late=late, reach_back=reach_back)
        answers = runner.query(source)
    else:
        runner = StreamRunner(program, checkpoint, output, stream=Stream, pred=pred, dialect=dialect, late=late, reach_back=reach_back)
        answers = source
    writer = answers.writeStream.foreachBatch(runner).option("checkpointLocation", str(Path(checkpoint) / "spark"))
    if trigger:
        writer = writer.trigger(**trigger)
    if name:
        writer = writer.queryName(name)
    return writer.start(), runner


__all__ = ["stream_query", "StreamRunner", "OUTPUT_SCHEMA"]
