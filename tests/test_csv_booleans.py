"""A boolean term survives the CSV files chronolog writes.

Every CSV writer spells a boolean argument ``#T``/``#F``, as the language
does (the closedness columns stay ``true``/``false``); an untyped cell that
is exactly ``#T`` or ``#F`` reads as the boolean (``true`` stays a name
there: existing data), and a column mapped ``bool`` reads both spellings.
``--output`` wrote ``true``, which the second program read as a name: a
rule asking for ``#T`` found nothing.  The answers are reasoned here from
the data each test makes."""

from __future__ import annotations

import datetime as dt
import math
from fractions import Fraction
from pathlib import Path
from unittest import mock

import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest
from budget import examples
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chronolog
from chronolog.cli import cli
from chronolog.connectors import csv_columns
from chronolog.language.booleans import FALSE, TRUE
from chronolog.language.source_text import KERNEL_BYTES
from chronolog.outputs import write_outputs
from executors_agree import on_both_executors

pytest.importorskip("polars")

N = 3200  # facts: a file past KERNEL_BYTES, which the columns read by Arrow kernels
VALUES = ("#T", "#F", "1", "0")  # by i % 4


def _write_q(tmp_path: Path, engine: str, n: int = N) -> Path:
    """``chronolog run --output`` of ``q``: the booleans and numbers of ``v``."""
    prog = tmp_path / "first.vada"
    prog.write_text('q(X, F) :- v(X, F).\n@output("q").\n' + "".join(f"v(n{i}, {VALUES[i % 4]})@[0,2].\n" for i in range(n)))
    r = CliRunner().invoke(cli, ["run", str(prog), "--output", str(tmp_path / "out"), "--engine", engine])
    assert r.exit_code == 0, r.output
    return tmp_path / "out" / "q.csv"


def _names(n: int, value: str) -> list:
    return sorted(f"n{i}" for i in range(n) if VALUES[i % 4] == value)


READ_BACK = """
t(X) :- q(X, #T).
f(X) :- q(X, #F).
one(X) :- q(X, 1).
name(X) :- q(X, true).
@output("t"). @output("f"). @output("one"). @output("name").
"""


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_a_boolean_written_by_output_reads_back_as_the_boolean(tmp_path, engine):
    path = _write_q(tmp_path, engine)
    lines = path.read_text().splitlines()
    assert lines[0] == "c0,c1,start,end,start_closed,end_closed"
    assert {line.split(",")[1] for line in lines[1:]} == set(VALUES)
    assert {tuple(line.split(",")[2:]) for line in lines[1:]} == {("0", "2", "true", "true")}
    assert path.stat().st_size >= KERNEL_BYTES
    prog = tmp_path / "second.vada"
    prog.write_text('@bind("q", "csv", "out", "q.csv").\n' + READ_BACK)
    model = chronolog.reason(prog, engine=engine)
    got = {p: sorted(t[0] for t, _ in model.facts(p)) for p in ("t", "f", "one", "name")}
    assert got == {"t": _names(N, "#T"), "f": _names(N, "#F"), "one": _names(N, "1"), "name": []}
    assert chronolog.reason(tmp_path / "first.vada", engine=engine).facts("q") == model.facts("q")
    if engine == "columns":  # the Arrow kernels read the file (not the row reader after a refusal)
        cols = csv_columns.read_csv_columns(path, "q", {}, {}, None)
        assert cols is not None
        assert sorted(t for t, _ in dict(cols.rows())["q"])[:2] == [("n0", TRUE), ("n1", FALSE)]  # (internal terms)


def test_query_csv_writes_booleans_as_run_csv_does_and_they_read_back(tmp_path):
    """``chronolog query --format csv`` wrote a boolean binding as Python's
    ``True``, which reads back as a name (``run --format csv`` and
    ``--output`` write ``#T``)."""
    prog = tmp_path / "q.vada"
    prog.write_text('q(X, F) :- v(X, F).\nv(a, #T)@[0,2].\nv(b, #F)@[0,2].\nv(c, 1)@[0,2].\nv(d, "x,y")@3.\n')
    r = CliRunner().invoke(cli, ["query", str(prog), "q(X, F)", "--format", "csv"])
    assert r.exit_code == 0, r.output
    assert r.output.splitlines() == ["X,F,start,end,start_closed,end_closed", "a,#T,0,2,true,true", "b,#F,0,2,true,true",
                                     "c,1,0,2,true,true", 'd,"x,y",3,3,true,true']
    (tmp_path / "answers.csv").write_text(r.output)
    back = tmp_path / "back.vada"
    back.write_text(f'@bind("w", "csv useHeaders=true", "{tmp_path}", "answers.csv").\nt(X) :- w(X, #T).\nf(X) :- w(X, #F).\n')
    model = chronolog.reason(back)
    assert model.to_text() == "f(b)@[0,2]\nt(a)@[0,2]"


def test_an_untyped_boolean_cell_meets_a_column_mapped_bool(tmp_path):
    (tmp_path / "u.csv").write_text("k,f,start,end\na,#T,0,5\nb,#F,0,5\nc,true,0,5\nd,1,0,5\ne, #T ,0,5\nf,#t,0,5\n")
    (tmp_path / "m.csv").write_text("j,f,start,end\nx,true,0,5\ny,#F,0,5\nz,yes,0,5\nw,#T,0,5\n")
    program = f"""
@bind("u", "csv useHeaders=true", "{tmp_path}", "u.csv").
@bind("m", "csv useHeaders=true", "{tmp_path}", "m.csv"). @mapping("m", 1, "f", "bool").
same(K, J) :- u(K, F), m(J, F).
named(K) :- u(K, true).
small(K) :- u(K, "#t").
"""
    cols, _ = on_both_executors(program, "same")
    assert cols.to_text().splitlines() == [
        "named(c)@[0,5]",
        "same(a,w)@[0,5]", "same(a,x)@[0,5]", "same(a,z)@[0,5]", "same(b,y)@[0,5]",
        "same(e,w)@[0,5]", "same(e,x)@[0,5]", "same(e,z)@[0,5]",  # (cells are trimmed)
        "small(f)@[0,5]",  # (#t is no boolean in the language)
    ]


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_parquet_and_arrow_outputs_hold_real_booleans(tmp_path, engine):
    prog = tmp_path / "p.vada"
    prog.write_text('q(X, F) :- v(X, F).\n@bind("q", "parquet", "out", "q.parquet").\n@output("q").\n'
                    '@bind("a", "arrow", "out", "a.arrow").\na(X, F) :- v(X, F), F == #T.\n@output("a").\n'
                    "v(n0, #T)@[0,2]. v(n1, #F)@[0,2].\n")
    r = CliRunner().invoke(cli, ["run", str(prog), "--engine", engine])
    assert r.exit_code == 0, r.output
    table = pq.read_table(tmp_path / "out" / "q.parquet")
    assert str(table.schema.field(1).type) == "bool"
    assert sorted(zip(table.column(0).to_pylist(), table.column(1).to_pylist())) == [("n0", True), ("n1", False)]
    arrow = ipc.open_file(tmp_path / "out" / "a.arrow").read_all()
    assert str(arrow.schema.field(1).type) == "bool" and arrow.column(1).to_pylist() == [True]


# ------------------------------------------------------------ every fact reads back

# Untyped cells read numbers as exact numbers, #T/#F as booleans, anything
# else as a string; floats, dates and strings that spell a number or a
# boolean are told apart by the column's @mapping, as a program reading
# such a file maps them.
NAMES = st.from_regex(r"[a-z]([a-z0-9_ ,'é]{0,6}[a-z0-9])?", fullmatch=True)
EXACT = st.integers(-(10**20), 10**20) | st.fractions(max_denominator=64) | st.decimals(
    allow_nan=False, allow_infinity=False, places=3, min_value=-1000, max_value=1000).map(Fraction)
LOOKALIKES = ["12", "007", "0.5", "1/3", "-2", "1e3", "#T", "#F", "true", "false", "yes", "-inf", "+inf", "2020-01-31", "", "a,b"]
STRINGS = st.sampled_from(LOOKALIKES) | st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=6).map(str.strip)
DATES = st.dates(dt.date(1, 1, 1), dt.date(9999, 12, 31)) | st.datetimes(dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31))
ENDS = st.integers(-5, 30) | st.fractions(-5, 30, max_denominator=8)


@st.composite
def facts(draw):
    terms = (draw(NAMES | EXACT | st.booleans()), draw(st.floats(allow_nan=False)), draw(DATES), draw(STRINGS))
    lo, length = draw(ENDS), draw(st.integers(0, 3) | st.fractions(0, 3, max_denominator=4))
    lc, hc = draw(st.booleans()), draw(st.booleans())
    if length == 0:
        lc = hc = True
    lo, hi = draw(st.sampled_from([(lo, lo + length), (-math.inf, lo), (lo, math.inf)]))
    return terms, (lo, hi, lc and lo != -math.inf, hc and hi != math.inf)


def _comparable(rows):
    """Facts with their terms' kinds, so #T is not 1 and 1.0 not 1 (-0.0 is 0.0)."""
    def term(v):
        if type(v) is Fraction and v.denominator == 1:
            v = int(v)
        return type(v).__name__, v + 0.0 if type(v) is float else v

    return sorted(((tuple(map(term, t)), iv) for t, iv in rows), key=repr)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(facts(), min_size=1, max_size=12))
def test_every_fact_written_to_csv_reads_back_equal(tmp_path_factory, rows):
    tmp = tmp_path_factory.mktemp("rt")
    prog = tmp / "p.vada"
    prog.write_text('q(A, B, C, D) :- v(A, B, C, D).\n@output("q").\n')
    written = {}
    for engine in ("rows", "columns"):  # the rows' writer and the columns' (text_out.py)
        model = chronolog.reason(prog, {"v": rows}, engine=engine)
        write_outputs(model, prog, tmp / engine, overwrite=False, window=None)
        written[engine] = (tmp / engine / "q.csv").read_bytes()
    assert written["rows"] == written["columns"]
    back = tmp / "back.vada"
    back.write_text('@bind("q", "csv", "rows", "q.csv").\n'
                    '@mapping("q", 1, "c1", "float"). @mapping("q", 2, "c2", "date"). @mapping("q", 3, "c3", "string").\n'
                    'r(A, B, C, D) :- q(A, B, C, D).\n@output("r").\n')
    want = _comparable(model.facts("q"))
    assert _comparable(chronolog.reason(back, engine="rows").facts("r")) == want  # the csv module's reader
    if not any(type(v) is str and any(c in v for c in '"\r\n') for t, _ in rows for v in t):  # (else the row reader's)
        with mock.patch.object(csv_columns, "KERNEL_BYTES", 0):  # the Arrow kernels, on a small file
            assert csv_columns.read_csv_columns(tmp / "rows" / "q.csv", "q", {}, {1: ("c1", "float"), 2: ("c2", "date"),
                                                                                     3: ("c3", "string")}, None) is not None
            assert _comparable(chronolog.reason(back, engine="columns").facts("r")) == want


def test_the_rows_writer_writes_a_float_after_its_equal_integer_as_the_columns_do(tmp_path):
    """The rows' writer formatted each distinct value once, in a dict where
    0 and 0.0 are one key: the float after the integer was written ``0``
    (the same value read back, but not the columns' bytes, ``0.0``)."""
    prog = tmp_path / "p.vada"
    prog.write_text('q(A, B) :- v(A, B).\n@output("q").\n')
    rows = [(("a", 0), (0, 1, True, True)), (("b", 0.0), (0, 1, True, True)), (("c", 2.0), (0, 1, True, True)), (("d", 2), (0, 1, True, True))]
    for engine in ("rows", "columns"):
        write_outputs(chronolog.reason(prog, {"v": rows}, engine=engine), prog, tmp_path / engine, overwrite=False, window=None)
        lines = (tmp_path / engine / "q.csv").read_text().splitlines()[1:]
        assert [line.split(",")[:2] for line in lines] == [["a", "0"], ["b", "0.0"], ["c", "2.0"], ["d", "2"]], engine


# ------------------------------------------------------------ Spark


@pytest.mark.spark
def test_spark_reads_and_writes_booleans_as_chronolog_does(spark, tmp_path):
    """The file ``--output`` wrote, bound as ``spark csv``: the tasks read
    ``#T`` as the boolean, and the keyed path keys it with a column mapped
    ``bool`` (``true``) in one task; Spark's own CSV output of a boolean
    column writes ``#T`` too, which reads back as the boolean."""
    from chronolog import spark as cs

    n = 40
    _write_q(tmp_path, "rows", n)
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "m.csv").write_text("j,f,start,end\nx,true,0,5\ny,#F,1,5\n")
    rules = ('@bind("q", "spark csv", "out", "q.csv").\n@bind("m", "spark csv", "m", "").\n@mapping("m", 1, "f", "bool").\n'
             "same(X, J, F) :- q(X, F), m(J, F).\n@output(\"same\").\n")
    (tmp_path / "join.vada").write_text(rules)
    (tmp_path / "t.vada").write_text('@bind("q", "spark csv", "out", "q.csv").\n' + READ_BACK)
    want = sorted([(x, "x", 0, 2) for x in _names(n, "#T")] + [(x, "y", 1, 2) for x in _names(n, "#F")])
    for distributed in (False, True):
        stats = {}
        keyed = {"key": {"q": 1, "m": 1}, "one_task_bytes": -1} if distributed else {}  # (small inputs: one task unless told)
        t = cs.reason(spark, tmp_path / "join.vada", distributed=distributed, partitions=4, stats=stats, **keyed)["same"].toArrow()
        assert sorted(zip(*(t.column(c).to_pylist() for c in ("c0", "c1", "start", "end")))) == want, distributed
        if distributed:
            assert stats["path"] == "keyed", stats["why"]
        out = cs.reason(spark, tmp_path / "t.vada", distributed=distributed, partitions=4)
        got = {p: sorted(df.toArrow().column(0).to_pylist()) for p, df in out.items()}
        assert got == {"t": _names(n, "#T"), "f": _names(n, "#F"), "one": _names(n, "1"), "name": []}
    # Spark's CSV writer: a column of booleans only, and one mixed with names
    (tmp_path / "w.vada").write_text('@bind("q", "spark csv", "out", "q.csv").\n'
                                     '@bind("b", "spark csv", "sb", "").\n@bind("mix", "spark csv", "smix", "").\n'
                                     "b(X, F) :- q(X, F), F == #T.\nmix(X, F) :- q(X, F), F != 1, F != 0.\n"
                                     "mix(X, X) :- q(X, 1).\n@output(\"b\"). @output(\"mix\").\n")
    cs.run_program(spark, tmp_path / "w.vada")
    import csv

    cells = {d: {row[1] for f in (tmp_path / d).glob("*.csv") for row in list(csv.reader(f.open(newline="")))[1:]}
             for d in ("sb", "smix")}
    assert cells == {"sb": {"#T"}, "smix": {"#T", "#F"} | set(_names(n, "1"))}
    (tmp_path / "again.vada").write_text('@bind("b", "spark csv", "sb", "").\n@bind("mix", "spark csv", "smix", "").\n'
                                         "t(X) :- b(X, #T).\nf(X) :- mix(X, #F).\n@output(\"t\"). @output(\"f\").\n")
    out = cs.reason(spark, tmp_path / "again.vada")
    assert {p: sorted(df.toArrow().column(0).to_pylist()) for p, df in out.items()} == {"t": _names(n, "#T"), "f": _names(n, "#F")}
