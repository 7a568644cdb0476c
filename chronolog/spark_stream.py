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


def stream_query(program, source, *, checkpoint, output, pred=None, dialect="vadalog", trigger=None, name=None, late="skip", keyed=None):
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

    ``trigger``: keyword arguments of ``DataStreamWriter.trigger`` (e.g.
    ``{"availableNow": True}``).  Restarting with the same ``checkpoint``
    continues where the last run stopped."""
    if late not in ("skip", "fail"):
        from chronolog.language.errors import ProgramError

        raise ProgramError(f"late={late!r} is not a policy for late facts", hint='late="skip" or late="fail"')
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

        runner = KeyedRunner(program, checkpoint, output, keys, stream=Stream, pred=pred, dialect=dialect, late=late)
        answers = runner.query(source)
    else:
        runner = StreamRunner(program, checkpoint, output, stream=Stream, pred=pred, dialect=dialect, late=late)
        answers = source
    writer = answers.writeStream.foreachBatch(runner).option("checkpointLocation", str(Path(checkpoint) / "spark"))
    if trigger:
        writer = writer.trigger(**trigger)
    if name:
        writer = writer.queryName(name)
    return writer.start(), runner


__all__ = ["stream_query", "StreamRunner", "OUTPUT_SCHEMA"]
