"""Corrections in Spark Structured Streaming (real local Spark): ``-p(a)@t``
and ``+p(a)@t`` lines in the input go to their key's stream (keyed path) or
to the driver's stream, each micro-batch's corrections as one update after
its facts.  What comes out equals the embedded :class:`chronolog.Stream`
fed the same micro-batches (per key on the keyed path), line for line, and
with the retractions applied it is the model of the facts left (reasoning
from scratch), across a restart from the checkpoint."""

from __future__ import annotations

import random
from collections import Counter

import pytest

import chronolog
from chronolog.corrections import without_holes
from chronolog.engine.term_types import key_text
from chronolog.language.facts import read_fact_rows
from chronolog.language.text import format_fact
from chronolog.language.timeline import POS_INF, make
from test_spark_keyed_stream import _add, _run, random_case
from test_stream_corrections import applied, from_scratch

pytestmark = pytest.mark.spark


def _fact(line):
    ((pred, rows),) = read_fact_rows([line], "<test>").items()
    return pred, *rows[0]


def with_corrections(files, seed):
    """The case's micro-batches with corrections added from the second on:
    retractions of earlier facts, some amended to a time before (a late
    fact: the key's stream replays)."""
    rng = random.Random(seed)
    seen, out = [], []
    for i, lines in enumerate(files):
        lines = list(lines)
        for line in rng.sample(seen, min(len(seen), 2)) if i else ():
            pred, terms, iv = _fact(line)
            lines.append("-" + line)
            if rng.random() < 0.6:
                d = rng.choice([1, 2])
                lines.append("+" + format_fact(pred, terms, make(iv[0] - d, iv[1] - d, iv[2], iv[3])))
            seen.remove(line)
        seen += [x for x in files[i]]
        out.append(lines)
    return out


def _by_sign(lines):
    signed = {"": [], "-": [], "+": []}
    for line in lines:
        sign = line[0] if line[0] in "-+" else ""
        signed[sign].append(line[len(sign):])
    return signed


def fed(stream, lines) -> list:
    """One micro-batch into an embedded stream, as the command reads a
    batch: its facts, then its corrections as one update."""
    signed = _by_sign(lines)
    stream.push("\n".join(signed[""]))
    if signed["-"] or signed["+"]:
        stream.update(add="\n".join(signed["+"]), retract="\n".join(signed["-"]))
    return stream.take()


def final_facts(files) -> dict:
    facts: dict = {}
    for lines in files:
        signed = _by_sign(lines)
        for sign in ("", "-", "+"):
            for pred, terms, iv in map(_fact, signed[sign]):
                if sign == "-":
                    facts[pred] = without_holes(facts.get(pred, []), {terms: [iv]})
                else:
                    facts.setdefault(pred, []).append((terms, iv))
    return facts


def _printed(rows) -> list:
    """Output rows as stream facts (a retraction's text starts with ``-``),
    in the order they were written: by micro-batch, each batch's file in
    its order (a retraction follows what it retracts)."""
    out = []
    for r in sorted(rows, key=lambda r: r.batch_id):
        assert r.retracted == r.fact.startswith("-"), r
        out.append(chronolog.StreamFact(*_fact(r.fact.lstrip("-")), retracted=r.retracted))
    return out


def test_keyed_stream_corrections_equal_the_embedded_streams_per_key(spark, tmp_path):
    from chronolog.connectors.spark_keyed_stream import keys_of

    program, plain = random_case(12)
    files = with_corrections(plain, 12)  # (5 of the 35 answers are retractions)
    assert any(line[0] == "+" for lines in files for line in lines)
    src, ckpt, out = tmp_path / "in", tmp_path / "ckpt", tmp_path / "out"
    src.mkdir()
    half = len(files) // 2
    for i in range(half):
        _add(src, i, files[i])
    first = _run(spark, program, src, ckpt, out, reach_back=1000)
    assert first.keyed
    for i in range(half, len(files)):  # a new query continues from the checkpoint: the logs are in the state
        _add(src, i, files[i])
    second = _run(spark, program, src, ckpt, out, reach_back=1000)
    second.close(spark)
    assert second.late_facts == 0
    rows = spark.read.parquet(str(out)).collect()

    keys = keys_of(program)
    streams: dict = {}
    want = []
    for lines in files:  # each key's stream gets the key's lines of the micro-batch
        by_key: dict = {}
        for line in lines:
            pred, terms, _ = _fact(line.lstrip("-+"))
            if pred in keys:
                by_key.setdefault(key_text(terms[keys[pred]]), []).append(line)
        for k, ls in by_key.items():
            s = streams.setdefault(k, chronolog.Stream(program, reach_back=1000))
            want += map(str, fed(s, ls))
    for s in streams.values():
        s.close()
        want += map(str, s.take())
    assert Counter(r.fact for r in rows) == Counter(want)
    assert any(r.retracted for r in rows)

    outputs = sorted({r.pred for r in rows} | {line.split("(")[0] for line in program.splitlines() if ":-" in line})
    whole = chronolog.Stream(program, reach_back=1000)  # one stream for every key: other pieces, the same model
    emitted = [f for lines in files for f in fed(whole, lines)]
    whole.close()
    emitted += whole.take()
    scratch = from_scratch(program, final_facts(files), outputs, (POS_INF, False))
    assert applied(_printed(rows), False) == scratch == applied(emitted, False)


def test_driver_stream_corrections_and_a_correction_too_old(spark, tmp_path):
    """The driver's stream (no key) takes corrections as the embedded stream
    does; one reaching back further than ``reach_back`` is a late fact,
    kept in ``<output>.late``, and changes nothing."""
    program = "p(X) :- <->[0,2] signal(X).\nq(X) :- signal(X), not r(X).\n"
    files = [
        ["signal(a)@1", "signal(b)@4", "signal(c)@6"],
        ["signal(e)@20", "-signal(b)@4", "+signal(b)@5"],
        ["signal(d)@30", "-signal(a)@1"],
    ]
    src, ckpt, out = tmp_path / "in", tmp_path / "ckpt", tmp_path / "out"
    src.mkdir()
    for i, lines in enumerate(files):
        _add(src, i, lines)
    runner = _run(spark, program, src, ckpt, out, reach_back=5, keyed=False)
    runner.close(spark)
    assert runner.late_facts == 1
    late = [r.fact for r in spark.read.parquet(str(out) + ".late").collect()]
    assert late == ["-signal(a)@1"]
    rows = spark.read.parquet(str(out)).collect()

    s = chronolog.Stream(program, reach_back=5)
    want = [str(f) for f in fed(s, files[0]) + fed(s, files[1])]
    with pytest.raises(chronolog.DataError, match="older than the stream keeps"):
        fed(s, files[2])
    s.close()
    want += map(str, s.take())
    assert Counter(r.fact for r in rows) == Counter(want)
    assert "-q(b)@[4,4]" in want
    final = final_facts([*files[:2], ["signal(d)@30"]])  # (the correction too old changed nothing)
    assert applied(_printed(rows), False) == from_scratch(program, final, ["p", "q"], (POS_INF, False))
