"""Keyed Structured Streaming (real local Spark): a partitionable program
streams per key with its state in Spark's state store.  Its answers, over
every micro-batch and the final close, equal the embedded stream's
(``chronolog.Stream`` fed the same micro-batches), also across a restart
from the checkpoint and a crash after a batch's output was written but
before Spark committed it: nothing lost, nothing answered twice."""

from __future__ import annotations

import random
import time

import pytest

import chronolog
from chronolog.language.timeline import coalesce, intersect

pytestmark = pytest.mark.spark


def random_case(seed):
    """A random keyed, forward program (past operators, negation,
    comparisons, conjunctions; every atom keyed on its first argument) and
    its facts as files in start order."""
    rng = random.Random(seed)
    rules, preds = [], ["b"]
    for i in range(rng.randint(2, 4)):
        h = f"h{i}"
        p, q = rng.choice(preds), rng.choice(preds)
        lo = rng.randint(0, 2)
        hi = lo + rng.randint(0, 3)
        form = rng.randrange(6)
        if form == 0:
            body = f"<->[{lo},{hi}] {p}(X)"
        elif form == 1:
            body = f"[-][{lo},{hi}] {p}(X)"
        elif form == 2:
            body = f"a(X,V), V > {rng.randint(0, 9)}"
        elif form == 3:
            body = f"{p}(X), not <->[{lo},{hi}] {q}(X)"
        elif form == 4:
            body = f"{p}(X), {q}(X)"
        else:
            body = f"<->[0,{hi}] a(X,V), V < {rng.randint(2, 9)}, not {p}(X)"
        rules.append(f"{h}(X) :- {body}.")
        preds.append(h)
    outs = "".join(f'@output("{p}"). ' for p in preds[1:])
    program = "\n".join(rules) + "\n" + outs + "\n"
    files = []
    t = 0
    for _ in range(rng.randint(3, 5)):
        lines = []
        for _ in range(rng.randint(4, 12)):
            t += rng.choice([0, 0, 1, 2])
            k = f"k{rng.randrange(4)}"
            d = rng.choice([0, 1, 2])
            iv = f"@{t}" if d == 0 else f"@[{t},{t + d})"
            lines.append(f"a({k},{rng.randrange(10)}){iv}" if rng.random() < 0.7 else f"b({k}){iv}")
        files.append(lines)
    return program, files


def embedded(program, files):
    """The embedded stream fed one micro-batch per file, then closed."""
    s = chronolog.Stream(program)
    out = []
    for lines in files:
        s.push("\n".join(lines))
        out.extend(s.take())
    s.close()
    out.extend(s.take())
    return _union(str(f) for f in out)


def _union(facts) -> dict:
    got: dict = {}
    for text in facts:
        head, _, when = text.rpartition("@")
        iv = chronolog.load_program(f"x@{when}.").facts[0].interval
        got.setdefault(head, []).append(iv)
    return got


def _no_duplicates(pieces: dict) -> dict:
    """Each answer's pieces are disjoint (nothing answered twice); their union."""
    for head, ivs in pieces.items():
        for i, a in enumerate(ivs):
            for b in ivs[i + 1 :]:
                assert intersect(a, b) is None, f"{head} answered twice on {a} and {b}"
    return {h: coalesce(v) for h, v in pieces.items()}


def _source(spark, src):
    return spark.readStream.option("maxFilesPerTrigger", 1).text(str(src)).withColumnRenamed("value", "fact")


def _add(src, i, lines):
    time.sleep(0.02)  # distinct modification times keep the files' order
    (src / f"part-{i:02d}.txt").write_text("\n".join(lines) + "\n")


def _run(spark, program, src, ckpt, out, **kw):
    from chronolog.spark_stream import stream_query

    query, runner = stream_query(program, _source(spark, src), checkpoint=ckpt, output=out, trigger={"availableNow": True}, **kw)
    query.awaitTermination(300)
    assert query.exception() is None, query.exception()
    return runner


def _spark_answers(spark, out) -> dict:
    return _union(r.fact for r in spark.read.parquet(str(out)).collect())


@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.slow), pytest.param(3, marks=pytest.mark.slow)])
def test_keyed_stream_equals_the_embedded_stream_across_a_restart(spark, tmp_path, seed):
    program, files = random_case(seed)
    src, ckpt, out = tmp_path / "in", tmp_path / "ckpt", tmp_path / "out"
    src.mkdir()
    half = len(files) // 2
    for i in range(half):
        _add(src, i, files[i])
    first = _run(spark, program, src, ckpt, out)
    assert first.keyed and first.last_batch == half - 1
    for i in range(half, len(files)):  # the query stopped mid-stream; a new one continues
        _add(src, i, files[i])
    second = _run(spark, program, src, ckpt, out)
    assert second.last_batch == len(files) - 1
    second.close(spark)
    second.close(spark)  # a second close adds nothing
    want = {h: coalesce(v) for h, v in embedded(program, files).items()}
    assert _no_duplicates(_spark_answers(spark, out)) == want, program


def test_a_crash_before_the_commit_replays_the_batch_without_duplicates(spark, tmp_path):
    from chronolog.connectors.spark_keyed_stream import KeyedRunner, keys_of

    program, files = random_case(7)
    src, ckpt, out = tmp_path / "in", tmp_path / "ckpt", tmp_path / "out"
    src.mkdir()
    for i, lines in enumerate(files):
        _add(src, i, lines)

    class Crashing(KeyedRunner):
        """Writes batch 1's answers, then dies before Spark commits it."""

        def __call__(self, df, batch_id):
            super().__call__(df, batch_id)
            if batch_id == 1:
                raise RuntimeError("injected crash after the output was written")

    runner = Crashing(program, ckpt, out, keys_of(program), stream=chronolog.Stream)
    q = runner.query(_source(spark, src)).writeStream.foreachBatch(runner).option(
        "checkpointLocation", str(ckpt / "spark")).trigger(availableNow=True).start()
    with pytest.raises(Exception):
        q.awaitTermination(300)
    assert "injected crash" in str(q.exception())
    again = _run(spark, program, src, ckpt, out)  # replays batch 1 from the state before it
    assert again.last_batch == len(files) - 1
    again.close(spark)
    want = {h: coalesce(v) for h, v in embedded(program, files).items()}
    assert _no_duplicates(_spark_answers(spark, out)) == want


def test_program_facts_belong_to_their_key(spark, tmp_path):
    program = "alarm(X) :- <->[0,2] hot(X), not off(X).\noff(k1)@[0,100].\nhot(k0)@1.\n@output(\"alarm\").\n"
    src, ckpt, out = tmp_path / "in", tmp_path / "ckpt", tmp_path / "out"
    src.mkdir()
    files = [["hot(k1)@2", "hot(k2)@3"], ["hot(k2)@9"]]
    for i, lines in enumerate(files):
        _add(src, i, lines)
    runner = _run(spark, program, src, ckpt, out)
    runner.close(spark)
    got = _no_duplicates(_spark_answers(spark, out))
    assert got == {h: coalesce(v) for h, v in embedded(program, files).items()}
    assert set(got) == {"alarm(k0)", "alarm(k2)"}


def test_a_program_without_a_key_streams_on_the_driver_and_says_so(spark, tmp_path, caplog):
    import logging

    program = "r(X,Z) :- <->[0,1] r(X,Y), e(Y,Z).\nr(X,Y) :- e(X,Y).\n@output(\"r\").\n"
    src, ckpt, out = tmp_path / "in", tmp_path / "ckpt", tmp_path / "out"
    src.mkdir()
    _add(src, 0, ["e(a,b)@1", "e(b,c)@1"])
    with caplog.at_level(logging.WARNING, logger="chronolog.stream"):
        runner = _run(spark, program, src, ckpt, out)
    assert not getattr(runner, "keyed", False)
    assert "streaming on the driver, not per key group in Spark tasks: the program has no key to split it by (the rule " in caplog.text
    assert "does not keep one key" in caplog.text and "program error" not in caplog.text
    with pytest.raises(chronolog.ProgramError, match="not partitionable"):
        from chronolog.spark_stream import stream_query

        stream_query(program, _source(spark, src), checkpoint=tmp_path / "c2", output=tmp_path / "o2", keyed=True)
