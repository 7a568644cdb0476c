"""An input @bind whose file name holds a pattern (``*``, ``?``, ``[...]``,
as a shell's) reads every file it matches, in name order, each as if bound
alone: a day's file each (``events/2024-*.csv``), as DuckDB, Polars and
Spark read a glob.  The answers are those of one file holding every row,
on both executors, by the kernels' readers and the row readers alike."""

from __future__ import annotations

import random

import pytest
from click.testing import CliRunner

import chronolog
from chronolog.cli import cli

PROGRAM = '{bind}\nq(S, V) :- p(S, V), V > 3.\nm(S, X) :- p(S, V), X = max(V).\n@output("q").\n@output("m").\n'


def days(tmp_path, rows_a_day: int, n_days: int = 3):
    """Files ``events/day-K.csv`` and one file ``all.csv`` of the same rows."""
    rnd = random.Random(rows_a_day)
    (tmp_path / "events").mkdir()
    header = "s,v,start,end\n"
    every = []
    for d in range(n_days):
        rows = [f"s{rnd.randint(0, 30)},{rnd.randint(0, 9)},{d * 10 + (t := rnd.randint(0, 9))},{d * 10 + t + rnd.randint(0, 5)}\n"
                for _ in range(rows_a_day)]
        (tmp_path / "events" / f"day-{d}.csv").write_text(header + "".join(rows))
        every += rows
    (tmp_path / "all.csv").write_text(header + "".join(every))


@pytest.mark.parametrize("engine", ["rows", "columns"])
@pytest.mark.parametrize("rows_a_day", [4, 3000])
def test_a_pattern_reads_every_file_it_matches(tmp_path, engine, rows_a_day):
    days(tmp_path, rows_a_day)
    want = chronolog.reason(PROGRAM.format(bind='@bind("p", "csv", "", "all.csv").'), base_dir=tmp_path, engine=engine).to_text()
    for pattern in ("events/day-*.csv", "events/day-?.csv", "events/day-[0-2].csv", "*/day-*.csv"):
        got = chronolog.reason(PROGRAM.format(bind=f'@bind("p", "csv", "", "{pattern}").'), base_dir=tmp_path, engine=engine)
        assert got.to_text() == want, pattern


def test_parquet_files_by_a_pattern_are_the_directory(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    (tmp_path / "events").mkdir()
    for d in range(3):
        pq.write_table(pa.table({"s": ["a", "b"], "v": [d + 3, d + 4], "start": [d, d], "end": [d + 1, d + 2]}),
                       tmp_path / "events" / f"part-{d}.parquet")
    (tmp_path / "events" / "_SUCCESS").write_text("")  # (a writer's marker the pattern does not match)
    one = chronolog.reason(PROGRAM.format(bind='@bind("p", "parquet", "", "events/part-*.parquet").'), base_dir=tmp_path)
    assert one.to_text() == chronolog.reason(PROGRAM.format(bind='@bind("p", "parquet", "events", "part-0.parquet").\n'
                                                               '@bind("p", "parquet", "events", "part-1.parquet").\n'
                                                               '@bind("p", "parquet", "events", "part-2.parquet").'),
                                             base_dir=tmp_path).to_text()
    assert "q(b,6)@[2,4]" in one.to_text()


def test_a_pattern_that_matches_nothing_names_its_bind(tmp_path):
    days(tmp_path, 2)
    program = tmp_path / "p.vada"
    program.write_text(PROGRAM.format(bind='@bind("p", "csv", "", "events/night-*.csv").'))
    got = CliRunner().invoke(cli, ["run", str(program)])
    assert got.exit_code == 2
    assert f"{program}:1:1: program error: @bind of p: no file matches {tmp_path}/events/night-*.csv" in got.output
    assert "hint: check the directory and the pattern" in got.output
    assert "Traceback" not in got.output


def test_a_file_of_another_header_among_them_is_named(tmp_path):
    days(tmp_path, 2)
    (tmp_path / "events" / "day-9.csv").write_text("s,value,start,end\na,1,0,1\n")
    program = PROGRAM.replace("{bind}", '@bind("p", "csv", "", "events/day-*.csv"). @mapping("p", 1, "v", "int").')
    with pytest.raises(chronolog.ChronologError) as got:
        chronolog.reason(program, base_dir=tmp_path)
    assert "day-9.csv" in str(got.value)


def test_an_output_bound_to_a_pattern_is_refused_and_nothing_written(tmp_path):
    program = tmp_path / "p.vada"
    program.write_text('@bind("q", "csv", "", "out/q-*.csv").\nq(S) :- p(S).\np(a)@1.\n@output("q").\n')
    got = CliRunner().invoke(cli, ["run", str(program)])
    assert got.exit_code == 2
    assert "the output q is bound to the pattern" in got.output and "an output is written to one file" in got.output
    assert not (tmp_path / "out").exists()
