"""What a killed run leaves beside its outputs is removed by the next write
of the same output (connectors/leftovers.py): the hidden staging names of
connectors/staging.py and of the chronolog Spark data source say which
process made them, and those whose process is gone are swept."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chronolog.connectors.leftovers import owner, running

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def dead():
    """The owner text of a process that has ended."""
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        text = owner(p.pid)
    finally:
        p.kill()
        p.wait()
    return text


def test_an_owner_runs_until_its_process_ends(dead):
    assert running(owner()) and not running(dead)
    host, pid, start = owner().split("-")
    assert not running(f"{host}-{pid}-{int(start) + 1}")  # the pid, given to another process
    other = ("1" if host[0] == "0" else "0") + host[1:]
    assert running(f"{other}-{pid}-1")  # another host's: cannot tell


def test_a_run_removes_what_a_killed_run_of_the_same_output_left(tmp_path, dead):
    from click.testing import CliRunner

    from chronolog.cli import cli

    out = tmp_path / "out"
    out.mkdir()
    me = owner()
    left = {
        f".p.csv.chronolog-{dead}-abcd1234.tmp": "partial",  # a killed run's file
        f".p.csv.chronolog-{me}-efgh5678.tmp": "live",  # a running writer's (this process)
        f".p.csv.chronolog-abc.tmp": "no owner",  # written before names had owners
        f".p.csv.chronolog-{dead}-x.tmp.old": "a published output's backup",
        f".r.csv.chronolog-{dead}-ijkl9012.tmp": "another output",
    }
    for name, text in left.items():
        (out / name).write_text(text)
    nested = out / f"..p.csv.chronolog-{me}-mnop3456.tmp.chronolog-{dead}-0123abcd"  # a Spark write inside a staging name
    nested.mkdir()
    (nested / "part-00000-0.facts").write_text("p(a)@1\n")
    prog = tmp_path / "p.vada"
    prog.write_text("p(X) :- q(X). q(a)@1.\n@output(\"p\").\n")
    r = CliRunner().invoke(cli, ["run", str(prog), "--output", str(out)])
    assert r.exit_code == 0, r.output
    kept = sorted(n for n in left if "abcd1234" not in n)
    assert sorted(os.listdir(out)) == sorted(kept + ["p.csv"])


def test_a_run_of_many_outputs_lists_their_directory_once(tmp_path, dead, monkeypatch):
    """A run writing 300 outputs into one directory listed it for each
    (2,000 outputs: 2.3 s of 7.7, with a quadratic check for outputs
    written twice): once now, and each output's leftovers still go."""
    from click.testing import CliRunner

    from chronolog.cli import cli
    from chronolog.connectors import leftovers

    out = tmp_path / "out"
    out.mkdir()
    (out / f".p7.csv.chronolog-{dead}-abcd1234.tmp").write_text("partial")
    (out / f".p9.csv.chronolog-{owner()}-efgh5678.tmp").write_text("live")
    prog = tmp_path / "p.vada"
    prog.write_text("".join(f"p{i}(X) :- q(X).\n@output(\"p{i}\").\n" for i in range(300)) + "q(a)@1.\n")
    listed = []
    listdir = os.listdir
    monkeypatch.setattr(leftovers.os, "listdir", lambda p: listed.append(p) or listdir(p))
    r = CliRunner().invoke(cli, ["run", str(prog), "--output", str(out)])
    assert r.exit_code == 0, r.output
    assert listed.count(out) + listed.count(str(out)) == 1, listed
    assert sorted(os.listdir(out)) == sorted([f"p{i}.csv" for i in range(300)] + [f".p9.csv.chronolog-{owner()}-efgh5678.tmp"])
    assert (out / "p7.csv").read_text().splitlines()[1:] == ["a,1,1,true,true"]


# ------------------------------------------------------------ the chronolog Spark data source

@pytest.mark.spark
def test_the_data_source_removes_what_a_killed_write_left(spark, tmp_path, dead):
    import pyarrow as pa

    stale = tmp_path / f".out.chronolog-{dead}-0123456789abcdef"
    stale.mkdir()
    (stale / "part-00000-0.facts").write_text("p(half)@[0,1]\n")
    live = tmp_path / f".out.chronolog-{owner()}-fedcba9876543210"
    live.mkdir()
    df = spark.createDataFrame(pa.table({"c0": ["new"], "start": [0], "end": [1]}))
    df.write.format("chronolog").option("predicate", "p").mode("append").save(str(tmp_path / "out"))
    assert sorted(os.listdir(tmp_path)) == sorted([live.name, "out"])
    assert [r[0] for r in spark.read.format("chronolog").load(str(tmp_path / "out")).collect()] == ["new"]


def test_a_task_whose_driver_is_gone_stops_writing(tmp_path, dead):
    """Orphaned Python workers of a killed driver would go on filling the
    staging directory; each batch first checks that the driver runs."""
    pytest.importorskip("pyspark")
    import pyarrow as pa

    from chronolog.connectors.spark_source import _FactWriter

    w = _FactWriter(str(tmp_path / "out"), "p", False, "job")
    w.driver = dead
    batch = pa.RecordBatch.from_pydict({"c0": ["a"], "start": [0], "end": [1]})
    with pytest.raises(RuntimeError, match="driver of this write .* is gone"):
        w.write(iter([batch]))
    assert os.listdir(tmp_path) == []


@pytest.mark.spark
@pytest.mark.slow
def test_chronolog_run_spark_killed_while_writing_then_run_again(tmp_path):
    """The issue's case: ``chronolog run --spark`` killed while a ``spark
    chronolog`` output is written leaves ``..q.chronolog-*.tmp.chronolog-*``;
    the next run removes it and writes the whole output."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = 2_000_000
    pq.write_table(pa.table({"c0": pa.array(range(n)).cast(pa.string()), "start": range(n), "end": range(1, n + 1)}), tmp_path / "r.parquet")
    (tmp_path / "p.vada").write_text(
        '@bind("r", "spark parquet", ".", "r.parquet").\n@bind("q", "spark chronolog", "out", "q").\n@output("q").\nq(X) :- r(X).\n'
    )
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    cmd = [sys.executable, "-m", "chronolog", "run", "p.vada", "--spark", "local[2]", "--distributed"]
    p = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    out = tmp_path / "out"
    deadline = time.monotonic() + 300
    while p.poll() is None and time.monotonic() < deadline:
        if out.is_dir() and any(".tmp.chronolog-" in n for n in os.listdir(out)):
            break
        time.sleep(0.2)
    if p.poll() is not None:
        pytest.skip("the write finished before it could be killed")
    os.killpg(p.pid, 9)
    p.wait()
    time.sleep(2)  # the JVM and its workers end with their parent
    assert any(".tmp.chronolog-" in n for n in os.listdir(out))
    r = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    assert os.listdir(out) == ["q"]
    assert sum(f.read_text().count("\n") for f in (out / "q").iterdir()) == n
