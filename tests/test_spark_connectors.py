"""chronolog through a real local Spark session (marked ``spark``).

One session for the whole run (tests/conftest.py); small data, so the few
Spark jobs each test starts stay quick.  Every answer is compared with the
embedded engine on the same facts, or with hand-checked facts.
"""

import importlib.util
import random
import sys
import warnings
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pyarrow as pa
import pytest

import chronolog
from chronolog.engine.arrow import facts_to_arrow, table_to_rows
from chronolog.connectors.files import read_facts

pytestmark = pytest.mark.spark
ROOT = Path(__file__).resolve().parent.parent


def cs():
    from chronolog import spark

    return spark


def facts_of(df, pred="?"):
    return sorted(table_to_rows(df.toArrow(), pred, timestamps="times"), key=repr)


def embedded(program, facts, **kw):
    return chronolog.reason(program, facts, **kw)


def same(out, model):
    for p, df in out.items():
        assert facts_of(df, p) == sorted(model.facts(p), key=repr), p


SENSORS = """
high(S) :- reading(S, V), V > 10.
alarm(S) :- [-][0,2] high(S), not reset(S).
recent(S, V) :- <->[0,1/3] reading(S, V).
@output("alarm"). @output("recent").
reset(s2)@[3,4].
"""


def readings():
    return pa.table(
        {
            "sensor": ["s1", "s1", "s2", "s2", "s3"],
            "value": pa.array([Decimal("11.5"), Decimal("12"), Decimal("20"), Decimal("30"), Decimal("1")], pa.decimal128(5, 1)),
            "start": [0, 1, 0, 2, None],
            "end": [1, 3, 2, None, 10],
            "start_closed": [True, False, True, True, False],
            "end_closed": [True, True, False, False, True],
        }
    )


def test_round_trip_keeps_rationals_open_and_infinite_ends(spark):
    m = embedded(SENSORS, {"reading": readings()})
    out = cs().reason(spark, SENSORS, {"reading": spark.createDataFrame(readings())})
    assert set(out) == {"alarm", "recent"}
    same(out, m)
    recent = facts_of(out["recent"], "recent")
    # (-inf, 10 + 1/3]: an infinite start, a rational end, exactly
    assert (("s3", 1), (float("-inf"), Fraction(31, 3), False, True)) in recent
    assert out["recent"].schema["c1"].dataType.simpleString() == "decimal(3,1)"


def test_timestamps_in_and_out(spark):
    ts = pa.timestamp("us", tz="UTC")
    t = pa.table({"c0": ["a"], "start": pa.array([1_700_000_000_000_000], ts), "end": pa.array([1_700_000_000_250_000], ts)})
    out = cs().reason(spark, "q(X) :- <->[0,60] p(X).", {"p": spark.createDataFrame(t)}, timestamps=True)
    got = out["q"].toArrow()
    assert got.schema.field("start").type == ts
    assert got.column("end").cast(pa.int64()).to_pylist() == [1_700_000_060_250_000]


def test_double_time_columns_are_the_numbers_they_show(spark):
    df = spark.createDataFrame([("a", 0.1, 1.2)], "c0 string, start double, end double")
    out = cs().reason(spark, "q(X) :- p(X).", {"p": df})
    rows = table_to_rows(out["q"].toArrow(), "q")
    assert rows == [(("a",), (Fraction(1, 10), Fraction(6, 5), True, True))]


def test_ownership_through_spark_equals_embedded(spark):
    src = (ROOT / "docs" / "recipes.md").read_text().split("## Company control over time")[1].split("```vadalog")[1].split("```")[0]
    rules = "\n".join(l for l in src.splitlines() if not l.startswith("owns("))
    owns = [l for l in src.splitlines() if l.startswith("owns(")]
    model = embedded(src, None)
    rows = chronolog.api.load_facts(owns)["owns"]
    df = spark.createDataFrame(facts_to_arrow(rows, ["owner", "owned", "share"]))
    out = cs().reason(spark, rules, {"owns": df})
    same(out, model)
    assert len(facts_of(out["controls"])) == 6


def test_lubm_through_spark_equals_embedded(spark, tmp_path):
    spec = importlib.util.spec_from_file_location("lubm_gen", ROOT / "bench" / "lubm_gen.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    vada, _ = gen.generate(3000, tmp_path / "lubm", seed=3)
    program = (ROOT / "bench" / "programs" / "lubm_nonrec.vada").read_text()
    facts = chronolog.api.load_facts(Path(vada))
    model = embedded(program, facts)
    inputs = {p: spark.createDataFrame(facts_to_arrow(rows, [f"c{i}" for i in range(len(rows[0][0]))])) for p, rows in facts.items()}
    out = cs().reason(spark, program, inputs)
    same(out, model)


# ------------------------------------------------------------ distributed


def random_program(rng):
    """A random partitionable program: every atom is keyed on K in position 0."""
    ops = ["", "<->[0,2] ", "[-][0,1] ", "<+>[1,3] ", "[+][0,2] ", "<->[1/2,3/2] "]
    edb, idb = ["a", "b"], ["p", "q", "r"]
    lines = []
    for i, h in enumerate(idb):
        for _ in range(rng.randint(1, 2)):
            first = rng.choice(edb + idb[:i])
            body = [f"{rng.choice(ops)}{first}(K, Y)"]
            extra = rng.random()
            if extra < 0.35:
                body.append(f"{rng.choice(ops)}{rng.choice(edb + idb[: i + 1])}(K, Z)")
            elif extra < 0.6:
                body.append(f"not {rng.choice(edb)}(K, Y)")
            elif extra < 0.8:
                body.append(f"{rng.choice(edb)}(K, Y) <S>[1,3] {rng.choice(edb)}(K, Z)")
            lines.append(f"{h}(K, Y) :- {', '.join(body)}.")
    lines += [f'@output("{p}").' for p in idb]
    return "\n".join(lines)


def random_data(rng):
    out = {}
    for p in ("a", "b"):
        rows = []
        for _ in range(40):
            lo = rng.randint(0, 20)
            rows.append(((f"k{rng.randint(0, 6)}", rng.randint(0, 2)), (lo, lo + rng.randint(0, 4), rng.random() < 0.8, rng.random() < 0.8)))
        rows = [(t, iv if iv[0] < iv[1] else (iv[0], iv[1], True, True)) for t, iv in rows]
        out[p] = rows
    return out


def test_distributed_equals_single_process_on_random_programs(spark):
    rng = random.Random(5)
    for _ in range(3):
        program, data = random_program(rng), random_data(rng)
        model = embedded(program, data, horizon=(-10, 40))
        inputs = {p: spark.createDataFrame(facts_to_arrow(rows, ["k", "v"])) for p, rows in data.items()}
        out = cs().reason(spark, program, inputs, distributed=True, horizon=(-10, 40), partitions=3)
        same(out, model)


def test_distributed_sensor_program_with_program_facts_and_retries(spark):
    model = embedded(SENSORS, {"reading": readings()})
    df = spark.createDataFrame(readings())
    out = cs().reason(spark, SENSORS, {"reading": df}, distributed=True, _fail_first_attempt=True)
    same(out, model)  # every task failed once and was retried by Spark


def test_not_partitionable_runs_in_relational_rounds(spark):
    """No key: seminaive rounds of DataFrame operations (tests/test_spark_rounds.py;
    small inputs go to one task unless the limit is -1: tests/test_spark_one_task.py);
    what they cannot run goes to one task naming the rule (tested there)."""
    program = "r(X,Y) :- e(X,Y).\nr(X,Z) :- r(X,Y), e(Y,Z).\n"
    e = pa.table({"c0": [1, 2, 3], "c1": [2, 3, 4], "start": [0, 1, 2], "end": [5, 5, 5]})
    stats = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", cs().DriverFallback)
        out = cs().reason(spark, program, {"e": spark.createDataFrame(e)}, distributed=True, stats=stats, one_task_bytes=-1)
    assert stats["path"] == "relational"
    same(out, embedded(program, {"e": e}))


def test_inconsistency_in_a_task_is_a_chronolog_error(spark):
    program = "⊥ :- p(X), q(X).\n"
    t = pa.table({"c0": ["x"], "start": [0], "end": [1]})
    with pytest.raises(chronolog.ChronologError):
        cs().reason(spark, program + "s(X) :- p(X).", {"p": spark.createDataFrame(t), "q": spark.createDataFrame(t)}, distributed=True)


def test_models_that_repeat_forever_need_a_window_and_then_unroll_it(spark):
    """Without a window, a table cannot hold facts that repeat forever: an
    error, not a table missing them; with one, both paths unroll it exactly
    like Model.facts_within."""
    program = "shift(X) :- <->[7,7] shift(X).\nalert(X) :- shift(X), <->[0,1] incident(X).\n@output(\"shift\"). @output(\"alert\")."
    shifts = pa.table({"c0": ["a", "b", "c"], "start": [0, 2, 3], "end": [1, 2, 5]})
    incidents = pa.table({"c0": ["a", "b"], "start": ["14.5", "100"], "end": ["14.5", "100"]})
    inputs = {"shift": spark.createDataFrame(shifts), "incident": spark.createDataFrame(incidents)}
    for distributed in (False, True):
        with pytest.raises(chronolog.ChronologError, match="repeat forever"):
            cs().reason(spark, program, inputs, distributed=distributed)
    model = embedded(program, {"shift": shifts, "incident": incidents})
    for distributed in (False, True):
        out = cs().reason(spark, program, inputs, distributed=distributed, window=(0, 60))
        for p in ("shift", "alert"):
            assert facts_of(out[p], p) == sorted(model.facts_within(p, (0, 60)), key=repr), (p, distributed)


# ------------------------------------------------------------ data source and bindings


def test_chronolog_data_source_reads_and_writes_fact_text(spark, tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.facts").write_text('p(a, 1.5)@[0,1/3).\np("b c", 2)@(-inf,1].\nother(x)@1.\n')
    (tmp_path / "in" / "b.facts").write_text("p(d, 0.25)@[2,+inf).\n")
    df = spark.read.format("chronolog").option("predicate", "p").load(str(tmp_path / "in"))
    assert df.columns == ["c0", "c1", "start", "end", "start_closed", "end_closed"]
    rows = facts_of(df, "p")
    assert (("a", Fraction(3, 2)), (0, Fraction(1, 3), True, False)) in rows and len(rows) == 3
    df.write.format("chronolog").option("predicate", "p").mode("append").save(str(tmp_path / "out"))
    text = sorted(l for f in (tmp_path / "out").iterdir() for l in f.read_text().splitlines())
    assert text == ['p("b c",2)@(-inf,1]', "p(a,1.5)@[0,1/3)", "p(d,0.25)@[2,+inf)"]
    with pytest.raises(Exception, match="exists already"):
        df.write.format("chronolog").option("predicate", "p").mode("append").save(str(tmp_path / "out"))


def test_a_failed_write_leaves_no_output_and_keeps_the_old_one(spark, tmp_path):
    def _explode(it):  # defined here so Spark pickles it by value
        for b in it:
            raise RuntimeError("injected write failure")
            yield b

    t = pa.table({"c0": ["a", "b"], "start": [0, 1], "end": [1, 2]})
    good = spark.createDataFrame(t)
    bad = good.mapInArrow(_explode, good.schema)
    target = tmp_path / "out"
    with pytest.raises(Exception, match="injected write failure"):
        bad.write.format("chronolog").option("predicate", "p").mode("append").save(str(target))
    assert list(tmp_path.iterdir()) == []  # neither output nor staging directory
    good.write.format("chronolog").option("predicate", "p").mode("append").save(str(target))
    before = {f.name: f.read_text() for f in target.iterdir()}
    with pytest.raises(Exception, match="injected write failure"):
        bad.write.format("chronolog").option("predicate", "p").mode("overwrite").save(str(target))
    assert {f.name: f.read_text() for f in target.iterdir()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_program_with_spark_bindings_reads_and_writes(spark, tmp_path):
    spark.createDataFrame(readings()).write.parquet(str(tmp_path / "readings"))
    (tmp_path / "prog.vada").write_text(
        '@bind("reading", "spark parquet", ".", "readings").\n'
        '@bind("alarm", "spark parquet", "out", "alarm").\n'
        '@bind("recent", "csv", "out", "recent.csv").\n'
        + SENSORS
    )
    cs().run_program(spark, tmp_path / "prog.vada", distributed=True)
    model = embedded(SENSORS, {"reading": readings()})
    assert facts_of(spark.read.parquet(str(tmp_path / "out" / "alarm")), "alarm") == sorted(model.facts("alarm"), key=repr)
    assert sorted(read_facts(tmp_path / "out" / "recent.csv", "recent"), key=repr) == sorted(model.facts("recent"), key=repr)
    with pytest.raises(chronolog.DataError, match="exists already"):
        cs().run_program(spark, tmp_path / "prog.vada")


def test_command_line_with_spark(tmp_path):
    """``chronolog run --spark`` end to end (its own short-lived Spark session)."""
    import os
    import subprocess

    import pyarrow.parquet as pq

    pq.write_table(pa.table({"sensor": ["s1", "s1", "s2"], "value": [71, 80, 12], "start": [0, 4, 0], "end": [3, 6, 10]}), tmp_path / "r.parquet")
    (tmp_path / "p.vada").write_text(
        '@bind("reading", "spark parquet", ".", "r.parquet").\n'
        '@bind("hot", "csv", "out", "hot.csv").\n'
        '@output("hot"). @output("cold").\n'
        "hot(S) :- reading(S, V), V > 70.\n"
        "cold(S) :- reading(S, V), V < 20.\n"
        "link(S, T) :- reading(S, V), reading(T, V).\n"
        '@output("tick").\ntick(S) :- <->[5,5] tick(S).\ntick(s1)@0.\n'  # repeats forever: unrolled in --window
    )
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    cmd = [sys.executable, "-m", "chronolog", "run", "p.vada", "--spark", "local[1]", "--distributed", "--window", "0,12", "--stats"]
    r = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout == "cold(s2)@[0,10]\ntick(s1)@[0,0]\ntick(s1)@[5,5]\ntick(s1)@[10,10]\n"
    # what runs where, and why: the rule that has no key, with its place
    assert "running in ONE Spark task, not distributed: the program has no key to split it by (the rule link(S, T) :- reading(S, V), reading(T, V). does not keep one key: " in r.stderr
    assert "p.vada:6:1)" in r.stderr and "program error" not in r.stderr and "spark path: one task (no key (" in r.stderr
    assert "FutureWarning" not in r.stderr  # pyspark's pandas >= 3 warning is noise on the command line
    assert read_facts(tmp_path / "out" / "hot.csv", "hot") == [(("s1",), (0, 3, True, True)), (("s1",), (4, 6, True, True))]


@pytest.mark.parametrize("distributed", [False, True])
def test_a_lars_tuple_window_is_refused_on_spark_not_answered_empty(spark, distributed):
    # the embedded reasoner filters the input through [#1] (q holds, from
    # 38 to 43); Spark's paths did not, and answered no q at all
    program = "q(X,Y,Z) :- [3] <> a(X,Y), [#1] <> b(Y,Z).\n@output(\"q\")."
    facts = "a(x1,y)@36\na(x2,y)@38\nb(y,z)@38\nb(y,w)@39\na(x3,y)@40"
    assert len(chronolog.reason(program, facts, dialect="lars").facts("q")) == 5
    a = spark.createDataFrame([("x1", "y", 36, 37), ("x2", "y", 38, 39), ("x3", "y", 40, 41)], "c0 string, c1 string, start long, end long")
    b = spark.createDataFrame([("y", "z", 38, 39), ("y", "w", 39, 40)], "c0 string, c1 string, start long, end long")
    with pytest.raises(chronolog.ChronologError) as e:
        cs().reason(spark, program, {"a": a, "b": b}, dialect="lars", distributed=distributed)
    assert "tuple window [#1] over b does not run on Spark" in str(e.value) and "<program>:1:1" in str(e.value)


@pytest.mark.parametrize("distributed", [False, True])
def test_a_lars_programs_dataframes_are_refused_not_read_as_real_time(spark, distributed):
    """A row from 5 to 5 is tick 5, [5,6), as the embedded reasoner reads it
    (two adjacent ticks make [1] [] a hold at 6); Spark's paths read the
    closed [5,5] and answered no q at all."""
    program = "q(X) :- [1] [] a(X).\n"
    assert chronolog.reason(program, "a(x)@5\na(x)@6", dialect="lars").to_text() == "q(x)@[6,6]"
    a = spark.createDataFrame([("x", 5, 5), ("x", 6, 6)], "c0 string, start long, end long")
    with pytest.raises(chronolog.ChronologError) as e:
        cs().reason(spark, program, {"a": a}, dialect="lars", distributed=distributed)
    assert "the input a of a LARS program is not read at ticks through Spark" in str(e.value)
    assert chronolog.reason(program, {"a": a.toArrow()}, dialect="lars").to_text() == "q(x)@[6,6]"  # (what the hint says)


def test_a_missing_fact_file_bound_through_spark_says_so_without_a_traceback(spark, tmp_path):
    # the message was Spark's first line: "... Failed to create Python data
    # source instance: Traceback (most recent call last):", with no reason
    prog = tmp_path / "p.vada"
    prog.write_text('@bind("a", "spark chronolog", ".", "nosuch.txt").\nq(X) :- a(X).\n@output("q").\n')
    with pytest.raises(chronolog.ChronologError) as e:
        cs().run_program(spark, prog)
    assert "nosuch.txt does not exist" in str(e.value) and "Traceback" not in str(e.value)
    assert str(e.value).startswith(f"{prog}:1:1:")
