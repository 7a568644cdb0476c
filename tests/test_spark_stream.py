"""Spark Structured Streaming (real local Spark): a text-file stream of facts
through ``foreachBatch``, stopped and restarted from its checkpoint; the
answers written to Parquet equal the batch answer."""

from __future__ import annotations

import time

import pytest

import chronolog
from chronolog.language.timeline import coalesce

pytestmark = pytest.mark.spark

PROGRAM = """
hot(X)    :- temp(X,V), V >= 100.
warm(X)   :- <->[0,3] hot(X).
alarm(X)  :- [-][0,2] hot(X), not maintenance(X).
@output("warm").
@output("alarm").
"""


@pytest.fixture
def spark_session(spark):
    """The suite's one local Spark session (tests/conftest.py)."""
    return spark


def _facts(lo, hi):
    lines = []
    for t in range(lo, hi):
        for x, v in (("a", 100 + t % 4), ("b", 150 if t % 5 else 20)):
            lines.append(f"temp({x},{v})@[{t},{t + 1})")
        if t == 7:
            lines.append("maintenance(a)@[7,9)")
    return lines


def _run(spark, src, ckpt, out):
    from chronolog.spark_stream import stream_query

    source = spark.readStream.option("maxFilesPerTrigger", 1).text(str(src)).withColumnRenamed("value", "fact")
    # keyed=False: this test reads the driver-side stream's state (the keyed
    # mode, the default for this program, is tested in test_spark_keyed_stream.py)
    query, runner = stream_query(PROGRAM, source, checkpoint=ckpt, output=out, trigger={"availableNow": True}, keyed=False)
    query.awaitTermination(120)
    assert query.exception() is None, query.exception()
    return runner


def test_structured_stream_survives_a_restart(spark_session, tmp_path):
    spark = spark_session
    src, ckpt, out = tmp_path / "in", tmp_path / "ckpt", tmp_path / "out"
    src.mkdir()
    (src / "part-00.txt").write_text("\n".join(_facts(0, 6)) + "\n")
    time.sleep(0.05)
    (src / "part-01.txt").write_text("\n".join(_facts(6, 12)) + "\n")
    first = _run(spark, src, ckpt, out)
    assert first.last_batch == 1  # one micro-batch per file

    # a new runner (as after a driver restart) continues from the checkpoint
    time.sleep(0.05)
    (src / "part-02.txt").write_text("\n".join(_facts(12, 20)) + "\n")
    second = _run(spark, src, ckpt, out)
    assert second.last_batch == 2
    assert second.stream.stats["input facts"] == 2 * 20 + 1  # the state came back
    second.close(spark)

    got: dict = {}
    for r in spark.read.parquet(str(out)).collect():
        head, _, _ = r.fact.partition("@")
        iv = chronolog.load_program(f"x@{r.fact.split('@')[1]}.").facts[0].interval
        got.setdefault(head, []).append(iv)
    got = {k: coalesce(v) for k, v in got.items()}
    model = chronolog.reason(PROGRAM, "\n".join(_facts(0, 20)))
    want: dict = {}
    for pred in ("warm", "alarm"):
        for terms, iv in model.facts(pred):
            want.setdefault(f"{pred}({','.join(terms)})", []).append(iv)
    assert got == want
    assert "alarm(b)" in got and "warm(a)" in got


@pytest.mark.parametrize("keyed", [False, True])
@pytest.mark.parametrize("policy", ["skip", "fail"])
def test_a_late_fact_is_reported_and_the_query_restarts(spark_session, tmp_path, policy, keyed):
    """A fact that starts where the stream is closed never blocks the query:
    skipped (counted, kept aside) or rejected (the query stops once, and a
    restart goes on with the later files)."""
    from chronolog.spark_stream import stream_query

    spark = spark_session
    src, ckpt, out = tmp_path / "in", tmp_path / "ckpt", tmp_path / "out"
    src.mkdir()
    (src / "part-00.txt").write_text("\n".join(_facts(0, 6)) + "\n")
    time.sleep(0.05)
    (src / "part-01.txt").write_text("temp(a,120)@[1,2)\n" + "\n".join(_facts(6, 10)) + "\n")  # one late fact
    time.sleep(0.05)
    (src / "part-02.txt").write_text("\n".join(_facts(10, 14)) + "\n")

    def run():
        source = spark.readStream.option("maxFilesPerTrigger", 1).text(str(src)).withColumnRenamed("value", "fact")
        query, runner = stream_query(
            PROGRAM, source, checkpoint=ckpt, output=out, trigger={"availableNow": True}, late=policy, keyed=keyed
        )
        try:
            query.awaitTermination(120)
        except Exception:  # a failed query raises here; query.exception() holds it
            pass
        return query, runner

    query, runner = run()
    if policy == "fail":
        assert "late fact" in str(query.exception()) and "temp(a,120)@[1,2)" in str(query.exception())
        query, runner = run()  # the restart goes on after the rejected batch
    assert query.exception() is None, query.exception()
    assert runner.last_batch == 2
    late = [r.fact for r in spark.read.parquet(str(out) + ".late").collect()]
    assert late == ["temp(a,120)@[1,2)"]
    runner.close(spark)
    got = sorted({r.fact.split("@")[0] for r in spark.read.parquet(str(out)).collect()})
    model = chronolog.reason(PROGRAM, "\n".join(_facts(0, 14)))
    assert got == sorted({f"{p}({','.join(t)})" for p in ("warm", "alarm") for t, _ in model.facts(p)})


def test_each_keys_stream_knows_the_bound_inputs_of_its_key(tmp_path, monkeypatch):
    # (no Spark needed: the per-key streams the keyed path makes) since the
    # plain stream reads @bind, each key's stream would have read every
    # key's bound facts again: read once, each key's to its stream
    import chronolog
    from chronolog.connectors import spark_keyed_stream

    (tmp_path / "owns.csv").write_text("owner,company,share,start,end\na,c,0.6,0,10\nb,d,0.7,5,20\n")
    monkeypatch.chdir(tmp_path)
    program = ('@input("owns").\n@bind("owns", "csv useHeaders=true", ".", "owns.csv").\n'
               "ctrl(X,Y) :- owns(X,Y,S), S > 0.5.\n")
    job = {"id": "bound-inputs", "program": program, "dialect": "vadalog", "keys": {"owns": 0, "ctrl": 0},
           "stream": chronolog.Stream, "reach_back": None}
    answers = {}
    for key in ("a", "b"):
        s = spark_keyed_stream._new_stream(job, key)
        s.close()
        answers[key] = [str(f) for f in s]
    assert answers == {"a": ["ctrl(a,c)@[0,10]"], "b": ["ctrl(b,d)@[5,20]"]}


def table_stream_answers(spark, program, table, pred, tmp_path, keyed):
    """The answers (fact text, sorted) of ``program`` over the DataFrame
    ``table`` written as Parquet and streamed back as ``pred``."""
    from chronolog.spark_stream import stream_query

    src, ckpt, out = tmp_path / "in", tmp_path / "ckpt", tmp_path / "out"
    table.write.parquet(str(src))
    source = spark.readStream.schema(table.schema).parquet(str(src))
    query, runner = stream_query(program, source, checkpoint=ckpt, output=out, pred=pred, trigger={"availableNow": True}, keyed=keyed)
    query.awaitTermination(120)
    assert query.exception() is None, query.exception()
    runner.close(spark)
    return sorted(r.fact for r in spark.read.parquet(str(out)).collect())


def test_a_table_stream_reads_a_column_of_sets_as_sets(spark_session, tmp_path):
    """A stream of a table (``pred=``) whose column holds term text (a set
    of values, as a previous run's munion writes it, marked in the
    DataFrame's schema: docs/spark.md) reads each set as the set, not as
    the string it spells: the join with the program's set constant holds."""
    from chronolog import spark as cs

    spark = spark_session
    m = spark.createDataFrame([("a", 1, 0, 5), ("a", 2, 0, 5), ("b", 1, 0, 5)], "k string, v long, start long, end long")
    sets = cs.reason(spark, 'g(K, S) :- m(K, V), S = munion(V).\n@output("g").', {"m": m})["g"]
    program = 'both(K) :- g(K, S), pair(S).\npair({1,2})@(-inf,+inf).\n@output("both").'
    got = table_stream_answers(spark, program, sets, "g", tmp_path, keyed=False)
    rows = {"m": [((k, v), (s, e)) for k, v, s, e in m.collect()]}
    model = chronolog.reason('g(K, S) :- m(K, V), S = munion(V).\n' + program, rows)
    assert got == sorted(model.to_text().splitlines()) and len(got) == 1, got


@pytest.mark.parametrize("keyed", [False, None], ids=["driver", "keyed"])
def test_a_table_stream_places_its_times_by_time_mapping(spark_session, tmp_path, keyed):
    """A table streamed with pred= had its @timeMapping passed over (the
    batches had no start column)."""
    table = spark_session.createDataFrame([("a", 0, 2), ("b", 5, 6)], "c0 string, from long, to long")
    program = '@timeMapping("p", 1, 2, #T, #F).\nq(X) :- <->[0,1] p(X).\n@output("q").'
    assert table_stream_answers(spark_session, program, table, "p", tmp_path, keyed) == ["q(a)@[0,3)", "q(b)@[5,7)"]
