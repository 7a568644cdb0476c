"""Blanks at the ends of CSV cells.  A quoted cell (``" a "``) keeps them, as
every CSV reader does (pandas, DuckDB, Polars, Arrow, Spark); a bare cell is
trimmed (chronolog's documented reading, so ``a, b`` written by hand reads
``b``; pandas and DuckDB trim a number's blanks too).  The same in every
reader: the row reader, the Arrow kernels, ``chronolog run`` and a
``Reasoner`` that binds the file; and every writer quotes a string with blanks at its ends, so
a written file reads back unchanged."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from executors_agree import on_both_executors
from hypothesis import given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.cli import cli
from chronolog.connectors import csv_columns
from chronolog.connectors.csv_files import _quoted_cells

ROWS = 'k,v,start,end\n" a ",1,0,5\n b ,2,0,5\n"c ", 3 ,0,5\nd," 4 ",0,5\n"e,f",5,0,5\n'


def _bound(tmp_path, text):
    (tmp_path / "s.csv").write_text(text)
    return f'@bind("s", "csv useHeaders=true", "{tmp_path}", "s.csv").\nq(K, V) :- s(K, V).\n'


def test_a_quoted_cell_keeps_its_blanks_a_bare_one_is_trimmed(tmp_path):
    pd = pytest.importorskip("pandas")
    cols, _ = on_both_executors(_bound(tmp_path, ROWS), "q")
    got = sorted(t for t, _ in cols.facts("q"))
    assert got == [(" a ", 1), ("b", 2), ("c ", 3), ("d", 4), ("e,f", 5)]
    # pandas reads the quoted cells alike (it keeps a bare cell's blanks, which chronolog trims)
    quoted = pd.read_csv(tmp_path / "s.csv")["k"].tolist()
    assert [quoted[0], quoted[2], quoted[4]] == [" a ", "c ", "e,f"]


def test_the_kernel_reader_reads_blanks_as_the_row_reader_does(tmp_path, monkeypatch):
    """Files from 64 KB are read by Arrow, which cannot tell a quoted cell
    from a bare one: a quoted cell with a blank inside its quotes sends the
    file to the row reader."""
    monkeypatch.setattr(csv_columns, "KERNEL_BYTES", 0)
    for quoted, kernels in (('" a "', False), ('"\u3000a"', False), ('"a\u3000"', False), ('"voil\u00e0"', True)):
        rows = [quoted + ",1,0,5", " b ,2,0,5", '"c",3,0,5'] * 4000
        (tmp_path / "s.csv").write_text("k,v,start,end\n" + "\n".join(f"{r}{i}" for i, r in enumerate(rows)) + "\n")
        assert (csv_columns.read_csv_columns(tmp_path / "s.csv", "s", {}, {}, None) is not None) == kernels
        program = f'@bind("s", "csv useHeaders=true", "{tmp_path}", "s.csv").\nq(K) :- s(K, V).\n'
        cols, _ = on_both_executors(program, "q")
        assert sorted(t for t, _ in cols.facts("q")) == sorted([(quoted.strip('"'),), ("b",), ("c",)])


@settings(deadline=None, max_examples=examples(60))
@given(st.lists(st.text(st.sampled_from(' a,"\t\u3000b'), max_size=5), min_size=1, max_size=4))
def test_which_cells_are_quoted_as_the_csv_module_reads_them(cells):
    """A record written by the csv module (quoting all cells, or as
    needed), read back: _quoted_cells names the cells written quoted (each
    written alone)."""
    import csv
    import io

    def written(row, quoting):
        buf = io.StringIO()
        csv.writer(buf, quoting=quoting).writerow(row)
        return buf.getvalue()

    row = cells + ["x"]
    for quoting in (csv.QUOTE_ALL, csv.QUOTE_MINIMAL):
        record = written(row, quoting)
        assert next(csv.reader([record])) == row
        assert set(_quoted_cells(record)) == {i for i, c in enumerate(row) if written([c, "x"], quoting).startswith('"')}


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_written_strings_with_blanks_read_back(tmp_path, engine):
    """``--output`` wrote `` a `` bare, which read back as ``a``."""
    prog = tmp_path / "p.vada"
    prog.write_text('q(X) :- s(X).\ns(" a ")@[0,1].\ns("b\\t")@[0,1].\ns("\u3000c")@[0,1].\ns("d")@[0,1].\n')
    r = CliRunner().invoke(cli, ["run", str(prog), "--engine", engine, "--output", str(tmp_path / "out")])
    assert r.exit_code == 0, r.output
    assert sorted((tmp_path / "out" / "q.csv").read_text().splitlines()[1:]) == [
        '" a ",0,1,true,true', '"b\t",0,1,true,true', '"\u3000c",0,1,true,true', "d,0,1,true,true"]
    back = chronolog.reason(f'@bind("q", "csv useHeaders=true", "{tmp_path / "out"}", "q.csv").\nr(X) :- q(X).\n')
    assert sorted(t for t, _ in back.facts("r")) == [(" a ",), ("b\t",), ("d",), ("\u3000c",)]


def test_the_command_line_and_reasoner_add_read_blanks_alike(tmp_path):
    (tmp_path / "s.csv").write_text(ROWS)
    (tmp_path / "p.vada").write_text(_bound(tmp_path, ROWS))
    r = CliRunner().invoke(cli, ["run", str(tmp_path / "p.vada")])
    assert r.exit_code == 0, r.output
    assert sorted(r.output.splitlines()) == ['q(" a ",1)@[0,5]', 'q("c ",3)@[0,5]', 'q("e,f",5)@[0,5]', "q(b,2)@[0,5]", "q(d,4)@[0,5]"]
    reasoner = chronolog.Reasoner(_bound(tmp_path, ROWS))
    reasoner.add({"s": [(("f ", 6), (0, 5, True, True))]})
    assert sorted(t[0] for t, _ in reasoner.model.facts("q")) == [" a ", "b", "c ", "d", "e,f", "f "]


@pytest.mark.spark
def test_spark_reads_blanks_as_the_csv_reader_does(spark, tmp_path):
    """``spark csv``: Spark's reader kept a bare cell's blanks, which the
    tasks then trimmed from quoted cells too; now its reader trims the bare
    ones, and the tasks and the keyed path keep the quoted ones', on the
    driver, in tasks and keyed by the string."""
    from chronolog import spark as cs

    (tmp_path / "s.csv").write_text(ROWS)
    (tmp_path / "t.csv").write_text('k,w,start,end\n" a ",x,1,3\nb,y,1,3\n"c",z,1,3\n')
    prog = tmp_path / "p.vada"
    prog.write_text('@bind("s", "spark csv", ".", "s.csv").\n@bind("t", "spark csv", ".", "t.csv").\n'
                    '@mapping("t", 0, "k", "string").\nq(K, V) :- s(K, V).\nj(K, W) :- s(K, V), t(K, W).\n'
                    '@output("q"). @output("j").\n')
    want = chronolog.reason(prog.read_text().replace("spark csv", "csv useHeaders=true"), base_dir=tmp_path)
    assert sorted(t for t, _ in want.facts("j")) == [(" a ", "x"), ("b", "y")]
    for distributed, keyed in ((False, {}), (True, {"key": {"s": 0, "t": 0}, "one_task_bytes": -1})):
        out = cs.reason(spark, prog, distributed=distributed, partitions=3, **keyed)
        for pred in ("q", "j"):
            t = out[pred].toArrow()
            got = sorted(zip(*(t.column(c).to_pylist() for c in t.column_names[:2])))
            assert got == sorted(t for t, _ in want.facts(pred)), (pred, distributed)


@pytest.mark.spark
def test_spark_reads_a_line_break_in_a_quoted_cell_as_the_csv_reader_does(spark, tmp_path):
    """``"a\nb"`` (as chronolog writes a string with a line break) ended
    Spark's row at the break: ``a`` with no start or end (an interval
    unbounded both ways) and a second row ``b"``; DuckDB reads the cell whole."""
    duckdb = pytest.importorskip("duckdb")
    from chronolog import spark as cs

    (tmp_path / "s.csv").write_text('k,start,end\n"a\nb",0,1\nc,2,3\n')
    oracle = duckdb.sql(f"select k, start, \"end\" from read_csv('{tmp_path / 's.csv'}', all_varchar=true)").fetchall()
    want = sorted((k, int(s), int(e), True, True) for k, s, e in oracle)
    assert want == [("a\nb", 0, 1, True, True), ("c", 2, 3, True, True)]
    prog = tmp_path / "p.vada"
    prog.write_text('@bind("s", "spark csv", ".", "s.csv").\nq(K) :- s(K).\n@output("q").\n')
    assert sorted(map(tuple, cs.reason(spark, prog)["q"].collect())) == want


# cells with blanks around their quotes: pandas, Polars and Arrow keep the
# blanks (and then read ` "b"` with its quotes, the quote not being the
# cell's first character); the readers that drop the blanks around a cell,
# as chronolog does, read them as quoted cells: DuckDB, and Spark's reader
# trimming blanks (as chronolog sets it)
AROUND = 'k,start,end\n "b",0,1\n"c" ,0,1\n " d ",0,1\n"a""b",0,1\ne,0,1\n'
AROUND_READ = sorted(["a\"b", "b", "c", " d ", "e"])


@pytest.mark.parametrize("kernels", [False, True])
def test_blanks_around_a_quoted_cell_are_dropped_as_duckdb_drops_them(tmp_path, monkeypatch, kernels):
    """`` "b"`` was read as ``"b"`` with its quotes, ``"c" `` as ``c ``."""
    duckdb = pytest.importorskip("duckdb")
    if kernels:
        monkeypatch.setattr(csv_columns, "KERNEL_BYTES", 0)
    (tmp_path / "s.csv").write_text(AROUND)
    oracle = duckdb.sql(f"select k from read_csv('{tmp_path / 's.csv'}', all_varchar=true)").fetchall()
    assert sorted(k for k, in oracle) == AROUND_READ
    program = f'@bind("s", "csv useHeaders=true", "{tmp_path}", "s.csv").\nq(K) :- s(K).\n'
    cols, _ = on_both_executors(program, "q")
    assert sorted(k for (k,), _ in cols.facts("q")) == AROUND_READ


@pytest.mark.spark
@pytest.mark.slow
def test_spark_writes_blanks_and_quotes_that_read_back(spark, tmp_path):
    """Spark's CSV writer trimmed a string's blanks (`` a `` written ``a``,
    ``"  "`` an empty cell) and wrote a quote as ``\\"``, which no other
    reader reads as a quote; its reader read ``"a""b"`` (RFC 4180, as the
    embedded writer writes it) with its quotes doubled, and `` "b"`` and
    ``"c" `` unlike the embedded reader."""
    import csv

    from chronolog import spark as cs
    from chronolog.language.dates import format_fact

    strings = [" a ", "b\t", "  ", 'say "hi"', "x,y", "\u3000c", "d"]
    facts = "".join(format_fact("s", (x,), (0, 1, True, True), None) + ".\n" for x in strings)
    (tmp_path / "w.vada").write_text(facts + '@bind("q", "spark csv", "out", "").\nq(X) :- s(X).\n@output("q").\n')
    cs.run_program(spark, tmp_path / "w.vada")
    written = [row[0] for f in sorted((tmp_path / "out").glob("*.csv")) for row in list(csv.reader(f.open(newline="")))[1:]]
    assert sorted(written) == sorted(strings)  # (Python's csv module as a peer)
    (tmp_path / "r.vada").write_text('@bind("q", "spark csv", "out", "").\nr(X) :- q(X).\n@output("r").\n')
    for distributed in (False, True):
        got = cs.reason(spark, tmp_path / "r.vada", distributed=distributed)["r"].toArrow().column("c0").to_pylist()
        assert sorted(got) == sorted(strings), distributed
    (tmp_path / "s.csv").write_text(AROUND)
    (tmp_path / "a.vada").write_text('@bind("s", "spark csv", ".", "s.csv").\nq(K) :- s(K).\n@output("q").\n')
    got = cs.reason(spark, tmp_path / "a.vada")["q"].toArrow().column("c0").to_pylist()
    assert sorted(got) == AROUND_READ


def test_csv_printed_by_run_and_query_keeps_blanks(tmp_path):
    """``run --format csv`` and ``query --format csv`` wrote `` a `` bare,
    which chronolog's reader (and DuckDB's) read back as ``a``."""
    pd = pytest.importorskip("pandas")
    prog = tmp_path / "p.vada"
    prog.write_text('q(X) :- s(X).\ns(" a ")@[0,1].\ns("b\\t")@[0,1].\ns("c")@[0,1].\n')
    for args, column in ((["run", str(prog), "--format", "csv"], "c0"), (["query", str(prog), "q(X)", "--format", "csv"], "X")):
        r = CliRunner().invoke(cli, args)
        assert r.exit_code == 0, r.output
        (tmp_path / "out.csv").write_text(r.output)
        assert sorted(pd.read_csv(tmp_path / "out.csv", dtype=str)[column]) == [" a ", "b\t", "c"]  # (pandas as a peer)
        back = chronolog.reason(f'@bind("o", "csv useHeaders=true", "{tmp_path}", "out.csv").\n'
                                f'@mapping("o", {int(column == "c0")}, "{column}", "string").\nr(X) :- o({"P, " if column == "c0" else ""}X).\n')
        assert sorted(t for (t,), _ in back.facts("r")) == [" a ", "b\t", "c"], args[0]


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.lists(st.text(" a,\"\r\n\t\x00\x85\u2028\u3000é", max_size=4), min_size=1, max_size=4), max_size=12),
       st.sampled_from([1, 3, 4096]))
def test_rows_written_in_batches_are_written_row_by_row(rows, batch):
    """``write_rows`` hands a batch with no cell to quote specially to the
    csv module at once (found by one search of its cells joined by NUL):
    the same text as each row tested and written alone (a blank at a
    cell's end, Unicode blanks, a carriage return, a NUL inside a cell)."""
    import csv
    import io

    from chronolog.connectors import csv_files

    def row_by_row(rows):
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        for row in rows:
            if any(c[:1].isspace() or c[-1:].isspace() or "\r" in c for c in row):
                out.write(",".join(map(csv_files.quoted_cell, row)) + "\n")
            else:
                w.writerow(row)
        return out.getvalue()

    got = io.StringIO()
    csv_files.ROWS_BATCH, old = batch, csv_files.ROWS_BATCH
    try:
        csv_files.write_rows(got, rows)
    finally:
        csv_files.ROWS_BATCH = old
    assert got.getvalue() == row_by_row(rows)
