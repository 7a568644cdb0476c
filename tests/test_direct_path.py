"""The direct path: fact file -> the kernel reader's columns -> the columnar
executor -> text/CSV/Parquet written from the columns, with no Python row
per fact, must give byte for byte what the row path gives (the line reader,
the row executor, the row printer and writers).

Random fact files in both dialects with fractions, decimals, open and closed
ends, unbounded ends, dates, a few lines only the exact parser reads
(quoted strings), and programs with a stratum the columnar executor leaves to
rows (Since), which then reads the given facts as rows."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest

from chronolog import api
from chronolog.api import reason

PROGRAMS = {
    "vadalog": """
        q(X) :- <->[0,2] p(X, Y).
        r(X, Y) :- p(X, Y), s(Y).
        t(Y) :- [-][0,1] s(Y).
        u(X) :- q(X), not t(X).
        @output("q"). @output("r"). @output("t"). @output("u"). @output("s").
    """,
    "meteor": """
        q(X):- Diamondminus[0,2]p(X,Y)
        r(X,Y):- p(X,Y),s(Y)
        t(Y):- Boxminus[0,1]s(Y)
    """,
}
# a stratum on rows (Since), the rest on columns
FALLBACK = """
    q(X) :- <->[0,2] p(X, Y).
    w(S) :- p(X, Y), V = 9223372036854775807, S = sum(V).
    @output("q"). @output("w").
"""  # a sum past 64 bits: the stratum falls back to rows
DATED = """
    @timeGranularity("hours").
    q(X) :- <->[0,2] p(X, Y).
    r(X, Y) :- p(X, Y), s(Y).
    @output("q"). @output("r").
"""

NAMES = ["a", "b", "c1", "d_e", "x"]


def _point(rnd, dialect, dated):
    if dated:
        return f"2020-01-{rnd.randint(1, 9):02d}T{rnd.randint(0, 23):02d}:{rnd.choice(['00', '30'])}"
    r = rnd.random()
    if r < 0.6:
        return str(rnd.randint(-5, 40))
    if r < 0.8:
        return f"{rnd.randint(0, 30)}.{rnd.choice(['5', '25', '125'])}"
    return f"{rnd.randint(0, 30)}/3" if dialect == "vadalog" else f"{rnd.randint(0, 30)}.75"


def _interval(rnd, dialect, dated):
    lo, hi = _point(rnd, dialect, dated), _point(rnd, dialect, dated)
    r = rnd.random()
    if r < 0.1:
        return "@" + lo
    if r < 0.15 and not dated:
        return f"@[{lo},+inf)" if dialect == "vadalog" else f"@[{lo},inf)"
    if r < 0.2 and not dated:
        return f"@(-inf,{hi}]"
    return f"@{rnd.choice('[(')}{lo},{hi}{rnd.choice('])')}"


def fact_file(rnd, dialect, n, dated=False, quoted=True) -> str:
    """n facts of p/2 and s/1; intervals with their ends in order."""
    from fractions import Fraction

    from chronolog.language.dates import Calendar

    conv = Calendar("hours").parse_point if dated else Fraction
    lines = []
    while len(lines) < n:
        iv = _interval(rnd, dialect, dated)
        if iv.startswith("@[") or iv.startswith("@("):
            lo, hi = iv[2:-1].split(",")
            if not (lo.startswith("-") and "inf" in lo) and "inf" not in hi:
                a, b = conv(lo), conv(hi)
                if a > b:
                    lo, hi = hi, lo
                if a == b:
                    iv = "@" + lo
                else:
                    iv = f"{iv[1]}{lo},{hi}{iv[-1]}"
                    iv = "@" + iv
        x, y = rnd.choice(NAMES), rnd.choice(NAMES + ["1", "2"])
        if quoted and rnd.random() < 0.02 and dialect == "vadalog":
            y = '"a b"'  # read by the exact parser
        if rnd.random() < 0.6:
            lines.append(f"p({x},{y}){iv}" + ("." if dialect == "vadalog" else ""))
        else:
            lines.append(f"s({y}){iv}" + ("." if dialect == "vadalog" else ""))
    return "\n".join(lines) + "\n"


def _run(tmp_path: Path, program: str, facts: str, dialect: str, engine: str):
    prog = tmp_path / ("p.meteor" if dialect == "meteor" else "p.vada")
    prog.write_text(program)
    f = tmp_path / "facts.txt"
    f.write_text(facts)
    return reason(prog, [f], dialect=dialect, engine=engine)


def _text(model) -> str:
    buf = io.StringIO()
    model.write_text(buf)
    return buf.getvalue()


def _row_text(model) -> str:
    text = model.to_text()
    return text + "\n" if text else ""


@pytest.fixture(autouse=True)
def small_files(monkeypatch):
    monkeypatch.setattr(api, "KERNEL_BYTES", 0)  # the direct path for small files too (fast tests)


@pytest.mark.parametrize("dialect", ["vadalog", "meteor"])
@pytest.mark.parametrize("seed", range(6))
def test_text_is_byte_identical(tmp_path, dialect, seed):
    rnd = random.Random(seed)
    facts = fact_file(rnd, dialect, rnd.choice([5, 60, 400]))
    cols = _run(tmp_path, PROGRAMS[dialect], facts, dialect, "columns")
    rows = _run(tmp_path, PROGRAMS[dialect], facts, dialect, "rows")
    assert cols._columns is not None and cols._columns.given_columns, "the direct path was not taken"
    assert set(cols.stats["executors"].values()) == {"columns"}
    assert _text(cols) == _row_text(rows)
    assert cols.to_text() == rows.to_text()
    for p in ("q", "r", "s"):
        assert cols.facts(p) == rows.facts(p)


@pytest.mark.parametrize("seed", range(3))
def test_dates(tmp_path, seed):
    rnd = random.Random(seed)
    facts = fact_file(rnd, "vadalog", 200, dated=True, quoted=False)
    cols = _run(tmp_path, DATED, facts, "vadalog", "columns")
    rows = _run(tmp_path, DATED, facts, "vadalog", "rows")
    assert cols._columns.given_columns
    assert _text(cols) == _row_text(rows)
    assert "2020-01-" in _text(cols)


@pytest.mark.parametrize("seed", range(3))
def test_fallback_stratum_reads_rows(tmp_path, seed):
    rnd = random.Random(seed)
    facts = fact_file(rnd, "vadalog", 300)
    cols = _run(tmp_path, FALLBACK, facts, "vadalog", "columns")
    rows = _run(tmp_path, FALLBACK, facts, "vadalog", "rows")
    assert "rows" in cols.stats["executors"].values() and "columns" in cols.stats["executors"].values()
    assert _text(cols) == _row_text(rows)


@pytest.mark.parametrize("dialect, dated", [("vadalog", False), ("meteor", False), ("vadalog", True)])
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("given", ["text", "lines"])
def test_fact_text_given_as_a_str_is_read_as_a_file(tmp_path, given, dialect, dated, seed):
    """Fact text of a file's size given as a str or a list of lines (built
    in Python, read from a database) is read by the kernels into columns as
    the file is (the line reader took 5.6 s of CPU for a million lines, 6.4
    s as a list, the file 0.8 s): the same answers as the rows', after a
    retraction of some of its lines too."""
    rnd = random.Random(seed)
    facts = fact_file(rnd, dialect, rnd.choice([60, 400]), dated=dated, quoted=not dated)
    program = DATED if dated else PROGRAMS[dialect]
    cols = reason(program, facts if given == "text" else facts.splitlines(), dialect=dialect, engine="columns")
    rows = reason(program, facts, dialect=dialect, engine="rows")
    assert cols._columns is not None and cols._columns.given_columns, "the kernels did not read the text"
    assert _text(cols) == _row_text(rows) == _row_text(_run(tmp_path, program, facts, dialect, "rows"))
    if dialect == "vadalog":  # (a retraction takes back points: those of other lines too)
        gone = facts.splitlines()[::7]
        assert (api.Reasoner(program, facts, engine="columns").retract(gone).to_text()
                == api.Reasoner(program, facts, engine="rows").retract(gone).to_text())


@pytest.mark.parametrize("bad, says", [("p(a, 1)@[3,1].", "<facts>:41:9: syntax error: the interval [3,1] is empty"),
                                       ("p(a, 1, 2)@[3,4].", "<facts>:41:1: syntax error: p has 3 arguments here but 2 at <facts>:1:1")])
def test_an_error_in_fact_text_given_as_a_str_names_its_line(bad, says):
    lines = [f"p(a{i},{i})@[{i},{i + 2}]." for i in range(80)]
    lines[40] = bad
    for given in ("\n".join(lines), lines):
        with pytest.raises(api.ChronologError) as e:
            reason("q(X) :- p(X, Y).", given, engine="columns")
        assert str(e.value).startswith(says)


def test_cli_output_is_byte_identical(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from chronolog.cli import cli

    rnd = random.Random(7)
    prog = tmp_path / "p.vada"
    prog.write_text(PROGRAMS["vadalog"])
    f = tmp_path / "facts.vada"
    f.write_text(fact_file(rnd, "vadalog", 300))
    out = {}
    for engine in ("rows", "columns"):
        res = CliRunner().invoke(cli, ["run", str(prog), "--facts", str(f), "--engine", engine])
        assert res.exit_code == 0, res.output
        out[engine] = res.output
    assert out["rows"] == out["columns"] and out["rows"].count("\n") > 10


def test_updates_see_the_given_facts(tmp_path):
    """Reasoner.add after a run that kept the given facts as columns (the
    program has negation: the update recomputes from the given facts)."""
    rnd = random.Random(3)
    prog = tmp_path / "p.vada"
    prog.write_text(PROGRAMS["vadalog"])
    f = tmp_path / "facts.vada"
    f.write_text(fact_file(rnd, "vadalog", 100))
    models = {}
    for engine in ("rows", "columns"):
        r = api.Reasoner(prog, [f], engine=engine)
        models[engine] = r.add("p(a,b)@[100,101].\ns(b)@[100,102].")
    assert models["columns"].to_text() == models["rows"].to_text()
    assert len(models["columns"]) == len(models["rows"])
    assert models["columns"].facts("p") == models["rows"].facts("p")


@pytest.mark.parametrize("seed", range(3))
def test_csv_and_parquet_outputs_are_identical(tmp_path, seed):
    """``--output DIR`` (CSV) and Parquet/Arrow bindings written from the
    columns: the same CSV bytes and the same tables as written from rows."""
    import pyarrow.feather as feather
    import pyarrow.parquet as pq
    from click.testing import CliRunner

    from chronolog.cli import cli

    rnd = random.Random(seed)
    f = tmp_path / "facts.vada"
    f.write_text(fact_file(rnd, "vadalog", 300))
    got = {}
    for engine in ("rows", "columns"):
        d = tmp_path / engine
        d.mkdir()
        prog = d / "p.vada"
        prog.write_text(
            PROGRAMS["vadalog"] + '@bind("q", "parquet", ".", "q.parquet"). @bind("r", "ipc", ".", "r.arrow").\n'
        )
        res = CliRunner().invoke(cli, ["run", str(prog), "--facts", str(f), "--engine", engine, "--output", str(d / "out")])
        assert res.exit_code == 0, res.output
        got[engine] = (
            {p.name: p.read_bytes() for p in sorted((d / "out").iterdir())},
            pq.read_table(d / "q.parquet"),
            feather.read_table(d / "r.arrow"),
        )
    assert got["rows"][0] == got["columns"][0] and len(got["rows"][0]) == 5
    assert got["rows"][1].equals(got["columns"][1]) and got["rows"][1].num_rows > 0
    assert got["rows"][2].equals(got["columns"][2]) and got["rows"][2].num_rows > 0


@pytest.mark.parametrize("seed", range(3))
def test_to_arrow_is_identical(tmp_path, seed):
    rnd = random.Random(seed)
    facts = fact_file(rnd, "vadalog", 200)
    cols = _run(tmp_path, PROGRAMS["vadalog"], facts, "vadalog", "columns")
    rows = _run(tmp_path, PROGRAMS["vadalog"], facts, "vadalog", "rows")
    from chronolog.connectors.text_out import columns_arrow_table

    for p in ("q", "r", "s", "u"):
        assert columns_arrow_table(cols._columns, p, cols.column_names(p)) is not None  # from the columns
        a, b = cols.to_arrow(p), rows.to_arrow(p)
        assert a.schema == b.schema and a.equals(b), p


def test_dated_to_arrow_is_identical(tmp_path):
    rnd = random.Random(11)
    facts = fact_file(rnd, "vadalog", 200, dated=True, quoted=False)
    cols = _run(tmp_path, DATED, facts, "vadalog", "columns")
    rows = _run(tmp_path, DATED, facts, "vadalog", "rows")
    for p in ("q", "r"):
        assert cols.to_arrow(p).equals(rows.to_arrow(p))


def test_lars_fact_files_take_the_rows_reading(tmp_path):
    """A LARS stream file of any size is read by the rows' reader (facts at
    ticks); the kernels used to be given it from 64 KB on and failed."""
    from tests.test_lars import LASER_STREAM

    prog = tmp_path / "laser.lars"
    prog.write_text("q(X,Y,Z) :- [3] <> a(X,Y), [#3] <> b(Y,Z).\n")
    facts = tmp_path / "stream.txt"
    facts.write_text(LASER_STREAM + "\n")
    for engine in ("rows", "columns"):
        model = reason(prog, [facts], dialect="lars", engine=engine)
        assert model.to_text().splitlines() == ["q(x1,y,z)@[38,39]", "q(x2,y,z)@[38,41]", "q(x3,y,z)@[40,43]"]


@pytest.mark.parametrize("dialect", ["vadalog", "meteor"])
def test_many_blocks_and_name_batches(tmp_path, monkeypatch, dialect):
    """Small blocks, names coded in small batches: the same text as rows."""
    from chronolog.language import fact_columns

    monkeypatch.setattr(fact_columns, "BLOCK", 300)
    monkeypatch.setattr(fact_columns, "NAMES_BATCH", 7)
    facts = fact_file(random.Random(5), dialect, 400)
    cols = _run(tmp_path, PROGRAMS[dialect], facts, dialect, "columns")
    rows = _run(tmp_path, PROGRAMS[dialect], facts, dialect, "rows")
    assert len(cols._columns.given_columns[0].parts["p"]) > 5
    assert _text(cols) == _row_text(rows)


def test_several_fact_files_share_one_dictionary(tmp_path, monkeypatch):
    from chronolog.language import fact_columns

    monkeypatch.setattr(fact_columns, "BLOCK", 300)  # each file read on its own (smaller ones are joined in one text)
    lines = fact_file(random.Random(9), "vadalog", 300).splitlines()
    files = []
    for i, part in enumerate((lines[:100], lines[100:])):
        f = tmp_path / f"facts{i}.vada"
        f.write_text("\n".join(part) + "\n")
        files.append(f)
    prog = tmp_path / "p.vada"
    prog.write_text(PROGRAMS["vadalog"])
    cols = reason(prog, files, engine="columns")
    rows = reason(prog, files, engine="rows")
    assert len(cols._columns.given_columns) == 2
    assert cols._columns.given_columns[0].terms is cols._columns.given_columns[1].terms
    assert _text(cols) == _row_text(rows)


def test_arity_clash_between_files_is_reported_by_the_rows_reader(tmp_path):
    a, b = tmp_path / "a.vada", tmp_path / "b.vada"
    a.write_text("p(x,y)@1.\n")
    b.write_text("p(x)@2.\n")
    prog = tmp_path / "p.vada"
    prog.write_text("q(X) :- p(X, Y).\n")
    from chronolog.language.errors import ChronologError

    with pytest.raises(ChronologError) as e:
        reason(prog, [a, b], engine="columns")
    assert "b.vada:1" in str(e.value) and "a.vada:1" in str(e.value)


def test_nulls_in_fact_files(tmp_path):
    """Labelled nulls read on the direct path are nulls; an existential
    program reads its files on the direct path too, and its chase names new
    nulls past every label the files use (as on rows)."""
    facts = "".join(f"owns(_:n{i % 7},c{i},0.{i % 9 + 1})@[{i},{i + 5}].\n" for i in range(300))
    plain = "someNull(X) :- owns(X, C, S).\nsame(C, D) :- owns(X, C, S), owns(X, D, T), C != D.\n"
    cols = _run(tmp_path, plain, facts, "vadalog", "columns")
    rows = _run(tmp_path, plain, facts, "vadalog", "rows")
    assert cols._columns.given_columns
    assert cols.to_text() == rows.to_text() and "someNull(_:n6)" in cols.to_text()
    chase = "company(C) :- owns(X, C, S).\ncontroller(Y, C) :- company(C).\n"
    cols = _run(tmp_path, chase, facts, "vadalog", "columns")
    rows = _run(tmp_path, chase, facts, "vadalog", "rows")
    assert cols._columns.given_columns, "the direct path was not taken"
    assert cols.to_text() == rows.to_text()
    assert "controller(_:n7,c0)" in cols.to_text()  # _:n0.._:n6 are the files'
    # a label in a quoted string or a comment is no null's: the chase may use it
    quoted = facts + 'owns("_:n9",c0,0.5)@[0,1].\n% owns(_:n8,c0,0.5)@[0,1].\n'
    cols = _run(tmp_path, chase, quoted, "vadalog", "columns")
    assert cols._columns.given_columns and cols.to_text() == _run(tmp_path, chase, quoted, "vadalog", "rows").to_text()
    assert "controller(_:n8,c1)" in cols.to_text() and "controller(_:n9,c10)" in cols.to_text()  # (c0, c1, c10: term order)


def test_nulls_in_bound_csv_files(tmp_path):
    """A bound CSV file's cells _:n1 are labelled nulls, read as columns for
    an existential program too: its chase names new nulls past their labels."""
    path = tmp_path / "owns.csv"  # (past the 64 KB from which the kernels read a CSV file)
    path.write_text("owner,company,share,s,e\n" + "".join(f"_:n{i % 5},c{i},0.{i % 9 + 1},{i},{i + 5}\n" for i in range(5000)))
    program = (f'@bind("owns","csv","","{path.name}"). @timeMapping("owns",3,4).\n'
               "company(C) :- owns(X, C, S).\ncontroller(Y, C) :- company(C).\n")
    texts = {}
    for engine in ("rows", "columns"):
        m = reason(program, engine=engine, base_dir=tmp_path)
        texts[engine] = m.to_text()
        if engine == "columns":
            assert m._columns is not None and m._columns.given_columns, "the bound file was not read as columns"
    assert texts["rows"] == texts["columns"]
    assert "controller(_:n5,c0)" in texts["rows"] and "company(c4999)" in texts["rows"]  # (_:n0.._:n4 are the file's)


def test_indices_narrow_to_uint16_only_where_the_distinct_tokens_fit(tmp_path, monkeypatch):
    """The reader keeps per fact its indices into the block's distinct
    tokens (one dictionary per block, shared by its name columns) as uint16
    when they fit (memory), int32 beyond 65,536: the same rows either way."""
    import numpy as np

    from chronolog.engine.columns.encoding import Dictionary
    from chronolog.language import fact_columns
    from chronolog.language.facts import read_fact_rows

    monkeypatch.setattr(fact_columns, "BLOCK", 1 << 23)  # one block
    for n, distinct, wide in ((70_000, 70_000, np.int32), (70_000, 1_000, np.uint16)):
        lines = [f"p(n{i % distinct},c{i % 7})@[{i},{i + (i % 3)}]." for i in range(n)]
        f = tmp_path / "f.vada"
        f.write_text("\n".join(lines) + "\n")
        with open(f, "rb") as fh:
            fc = fact_columns.read_fact_columns(fh, str(f), share=False, terms=Dictionary())
        (cols, lo, hi, lc, hc), = fc.parts["p"]
        assert [c.indices.dtype for c in cols] == [wide, wide]
        assert lo.indices.dtype == np.int32  # 70,000 distinct starts
        assert sorted(fc.pred_rows("p")) == sorted(read_fact_rows(lines)["p"])


def test_given_columns_no_one_reads_again_are_released(tmp_path):
    """A given predicate that no later stratum reads, no rule derives and
    no output prints gives its columns back after its last reader; the
    Model still has its facts (from the fact reader's columns), and those of
    a printed given predicate still print from the columns."""
    program = "q(X) :- <->[0,2] p(X, Y).\nr(X) :- q(X), s(X).\n@output(\"r\"). @output(\"s\").\n"
    facts = fact_file(random.Random(3), "vadalog", 300, quoted=False)
    cols = _run(tmp_path, program, facts, "vadalog", "columns")
    rows = _run(tmp_path, program, facts, "vadalog", "rows")
    tables = cols._columns._tables
    assert "p" not in tables and "s" in tables and "q" in tables
    assert cols.facts("p") == rows.facts("p")
    assert _text(cols) == _row_text(rows)


@pytest.mark.parametrize("horizon", [(0, 60), None])
def test_a_line_that_repeats_forever_leaves_the_rest_of_its_file_in_columns(tmp_path, monkeypatch, horizon):
    """One ``every`` line sent the whole file to the rows, read a second
    time; the kernels hand it to the exact parser, the rest stays columns."""
    from chronolog.language import fact_columns

    rnd = random.Random(5)
    facts = fact_file(rnd, "vadalog", 200, quoted=False) + "s(b)@[1,2] every 9\np(a,b)@0 every 25\n"
    program = PROGRAMS["vadalog"] + "v(Y) :- s(Y), <->[0,3] s(Y).\n@output(\"v\")."
    reads = []
    real = fact_columns.read_fact_columns
    monkeypatch.setattr(fact_columns, "read_fact_columns", lambda *a, **k: reads.append(a[1]) or real(*a, **k))
    prog = tmp_path / "p.vada"
    prog.write_text(program)
    (tmp_path / "facts.txt").write_text(facts)
    cols = reason(prog, [tmp_path / "facts.txt"], engine="columns", horizon=horizon)
    assert reads.count(str(tmp_path / "facts.txt")) == 1, "the file was read more than once"
    rows = reason(prog, [tmp_path / "facts.txt"], engine="rows", horizon=horizon)
    assert cols.to_text() == rows.to_text() and cols.facts("v")
    if horizon is not None:  # (the model repeats forever without one: reasoned on rows, from the columns read once)
        assert cols._columns is not None and cols._columns.given_columns, "the direct path was not taken"


DECIMALS = """
    q(X) :- <->[0,2] p(X, Y).
    r(X, Y) :- p(X, Y), s(Y).
    m(X, S) :- p(X, Y), S = sum(Y).
    b(X, Y) :- p(X, Y), Y > 1.25.
    n(Y) :- s(Y), not p(a, Y).
    @output("q"). @output("r"). @output("m"). @output("b"). @output("n"). @output("p").
"""


@pytest.mark.parametrize("seed", range(12))
def test_decimal_values_read_as_exact_columns_answer_as_rows(tmp_path, monkeypatch, seed):
    """Fact files whose value columns are plain decimals (read by the kernels
    as exact value columns, not coded one by one), ints, 1.50 beside 1.5,
    and in some blocks a fraction or a long number among them (that
    block's column coded), names beside the numbers of another predicate:
    joins, sums, comparisons and a negation on them give the rows'
    answers, byte for byte."""
    from chronolog.language import fact_columns

    rnd = random.Random(seed)
    monkeypatch.setattr(fact_columns, "BLOCK", rnd.choice([256, 1024, 1 << 20]))  # several blocks, each its own mix
    values = ["1.5", "1.50", "0.25", "-2.50", "3.0", "2", "7", "12.125", "0.1", "1234567.89"]
    mixed = ["1/3", "-7/4", "1234567890123456789", "0.0000000001"] if rnd.random() < 0.5 else []  # (not plain decimals)
    lines = []
    for i in range(rnd.choice([20, 200, 600])):
        y = rnd.choice(values + (mixed if rnd.random() < 0.05 else []))
        s, d = rnd.randint(0, 30), rnd.randint(0, 5)
        if rnd.random() < 0.7:
            lines.append(f"p({rnd.choice(NAMES)},{y})@[{s},{s + d}].")
        else:  # (s's column: a name now and then, beside the numbers)
            lines.append(f"s({rnd.choice(['x', '#T']) if rnd.random() < 0.05 else y})@[{s},{s + d}].")
    facts = "\n".join(lines) + "\n"
    cols = _run(tmp_path, DECIMALS, facts, "vadalog", "columns")
    rows = _run(tmp_path, DECIMALS, facts, "vadalog", "rows")
    assert cols._columns is not None and cols._columns.given_columns, "the direct path was not taken"
    assert _text(cols) == _row_text(rows)


@pytest.mark.parametrize("seed", range(12))
def test_whole_number_columns_read_as_exact_columns_answer_as_rows(tmp_path, monkeypatch, seed):
    """Fact files whose value columns are whole numbers only (read as exact
    value columns, not a Python int coded per distinct value), many
    predicates of one shape in one block (a batch of strata run as one
    tagged rule, its tagged frame gathered from the block's exact pairs),
    in some blocks a number the kernels leave to the exact parser or a
    fraction (that block's column coded, so the batch stacks or runs its
    members one by one): the rows' answers, byte for byte."""
    from chronolog.engine.columns import given
    from chronolog.language import fact_columns

    rnd = random.Random(seed)
    monkeypatch.setattr(fact_columns, "BLOCK", rnd.choice([256, 2048, 1 << 20]))
    taken = {"exact": 0, "tagged": 0}
    exact_columns, block_range = fact_columns._exact_columns, given._block_range

    def counted_exact(*args):
        got = exact_columns(*args)
        taken["exact"] += got[0] is not None
        return got

    def counted_range(*args):
        got = block_range(*args)
        taken["tagged"] += got is not None and any(a.ndim == 2 for a in got)
        return got

    monkeypatch.setattr(fact_columns, "_exact_columns", counted_exact)
    monkeypatch.setattr(given, "_block_range", counted_range)
    k = rnd.choice([3, 12, 40])
    values = ["0", "7", "-7", "007", "12", "999999999999999999", "-123456789012345678", "5"]
    odd = ["1/3", "1234567890123456789", "2.5"] if rnd.random() < 0.5 else []  # (not whole plain numbers)
    lines = [f"p{j}(a,{j})@[0,1]." for j in range(k)]  # (every member given facts: the batch reads them straight)
    plain = True
    for i in range(rnd.choice([40, 300, 900])):
        y = rnd.choice(values + (odd if rnd.random() < 0.03 else []))
        plain = plain and y not in odd
        s, d = rnd.randint(0, 30), rnd.randint(0, 5)
        if rnd.random() < 0.8:
            lines.append(f"p{rnd.randrange(k)}({rnd.choice(NAMES)},{y})@[{s},{s + d}].")
        else:
            lines.append(f"s({y})@[{s},{s + d}].")
    program = "".join(f"q{j}(X, Z) :- p{j}(X, Y), Z = Y * 2 + 1.\n" for j in range(k)) + """
        r(X, Y) :- p0(X, Y), s(Y).
        m(X, S) :- p1(X, Y), S = sum(Y).
        b(X, Y) :- p2(X, Y), Y > 6.
        n(Y) :- s(Y), not p2(a, Y).
    """
    facts = "\n".join(lines) + "\n"
    cols = _run(tmp_path, program, facts, "vadalog", "columns")
    rows = _run(tmp_path, program, facts, "vadalog", "rows")
    assert cols._columns is not None and cols._columns.given_columns, "the direct path was not taken"
    assert _text(cols) == _row_text(rows)
    if plain:
        assert taken["exact"] > 0, "no whole-number column read as exact"
        if k > 3:  # (p0..p2 are read by other rules too, whose strata may build their frames first: stacked then)
            assert taken["tagged"] > 0, "no batch's tagged frame gathered exact pairs"


@pytest.mark.parametrize("dialect", ["vadalog", "meteor"])
@pytest.mark.parametrize("seed", range(8))
def test_whole_time_tokens_read_as_ints_answer_as_rows(tmp_path, monkeypatch, dialect, seed):
    """A block whose time tokens are plain integers (epoch seconds:
    one token per fact) is read by numpy, not converted token by token:
    leading zeros, ``-0``, negative and 18-digit times; in some blocks a
    token of 19 digits, a decimal or an unbounded end (that block converted
    as before); empty intervals among them reported alike.  The rows'
    answers, byte for byte, and the blocks of whole times counted."""
    from chronolog.language import fact_columns

    rnd = random.Random(seed)
    monkeypatch.setattr(fact_columns, "BLOCK", rnd.choice([256, 2048, 1 << 20]))
    taken = {"ints": 0, "converted": 0}
    read_times = fact_columns._read_times

    def counted(*args):
        got = read_times(*args)
        taken["ints" if len(got[1]) and got[1].all() else "converted"] += 1
        return got

    monkeypatch.setattr(fact_columns, "_read_times", counted)
    base = rnd.choice([0, 1_600_000_000, 10**17])
    inf = "+inf" if dialect == "vadalog" else "inf"
    odd = rnd.random() < 0.5
    lines = []
    for i in range(rnd.choice([40, 300, 900])):
        s = base + rnd.randint(-5, 40)
        e = s + rnd.randint(0, 6)
        lo, hi = str(s), str(e)
        if rnd.random() < 0.1:
            lo = "0" + lo if 0 <= s < 10**17 else lo  # (the same time as a token of its own)
        if s == 0 and rnd.random() < 0.5:
            lo = "-0"
        if odd and rnd.random() < 0.02:
            hi = rnd.choice([f"{e}.0", "1234567890123456789", inf])
        left, right = rnd.choice("[("), rnd.choice("])")
        if lo == hi or s == e:
            left, right = "[", "]"
        pred = f"p({rnd.choice(NAMES)},{rnd.choice(NAMES)})" if rnd.random() < 0.8 else f"s({rnd.choice(NAMES)})"
        lines.append(f"{pred}@{left}{lo},{hi}{right}" + ("." if dialect == "vadalog" else ""))
    facts = "\n".join(lines) + "\n"
    cols = _run(tmp_path, PROGRAMS[dialect], facts, dialect, "columns")
    rows = _run(tmp_path, PROGRAMS[dialect], facts, dialect, "rows")
    assert cols._columns.given_columns
    assert _text(cols) == _row_text(rows)
    assert cols.to_text() == rows.to_text()
    assert taken["ints"] >= 1 or odd  # (the odd tokens may fall in every block)
    assert taken["converted"] >= 1 or not odd or all(e not in facts for e in (".0", "1234567890123456789", inf))
    # an empty interval among whole times: the exact parser's error, with its line
    bad = facts + ("p(a,b)@(5,5)." if dialect == "vadalog" else "p(a,b)@(5,5)") + "\n"
    errors = []
    for engine in ("columns", "rows"):
        with pytest.raises(Exception) as e:
            _run(tmp_path, PROGRAMS[dialect], bad, dialect, engine)
        errors.append(str(e.value))
    assert errors[0] == errors[1] and f":{len(lines) + 1}:" in errors[0]


@pytest.mark.parametrize("seed", range(8))
def test_whole_date_tokens_read_by_polars_answer_as_rows(tmp_path, monkeypatch, seed):
    """A dated block whose tokens are plain dates, or date-times to the
    minute, second or millisecond, in UTC or at an offset (``Z``,
    ``+02:00``, ``+0200``, ``-05:30``), each a whole number of the
    granularity's units, is parsed by polars; in some blocks a token
    between units or an unbounded end (only those converted one by one); a
    day past its month's end reported alike.  The rows'
    answers, byte for byte."""
    import datetime

    from chronolog.language import fact_columns
    from chronolog.language.dates import Calendar

    rnd = random.Random(seed)
    monkeypatch.setattr(fact_columns, "BLOCK", rnd.choice([512, 4096, 1 << 20]))
    taken = {"polars": 0, "converted": 0}
    whole_points_where = Calendar.whole_points_where

    def counted(calendar, tokens):
        got = whole_points_where(calendar, tokens)
        taken["polars" if got[1].all() else "converted"] += 1
        return got

    monkeypatch.setattr(Calendar, "whole_points_where", counted)
    unit = rnd.choice(["milliseconds", "seconds", "minutes", "hours", "days"])
    step = {"milliseconds": 137, "seconds": 37_000, "minutes": 420_000, "hours": 3_600_000, "days": 86_400_000}[unit]
    odd = rnd.random() < 0.5
    t0 = datetime.datetime(rnd.choice([1969, 2024]), 12, 31, 0 if unit == "days" else 22)

    def written(x):
        """A form of the instant ``x``: to the minute, second or a fraction, maybe at an offset."""
        off = rnd.choice([0, 0, 120, -330, 14 * 60])
        local = x + datetime.timedelta(minutes=off)
        zone = "" if off == 0 and rnd.random() < 0.5 else "Z" if off == 0 else \
            f"{'+' if off > 0 else '-'}{abs(off) // 60:02d}" + rnd.choice([f":{abs(off) % 60:02d}", f"{abs(off) % 60:02d}"]
                                                                  + ([""] if off % 60 == 0 else []))
        text = local.strftime("%Y-%m-%dT%H:%M")
        if local.second or local.microsecond or rnd.random() < 0.5:
            text += local.strftime(":%S")
            if local.microsecond:
                text += "." + f"{local.microsecond:06d}"[:rnd.choice([3, 6]) if local.microsecond % 1000 == 0 else 6]
        if x == local and x.hour == x.minute == x.second == x.microsecond == 0 and rnd.random() < 0.5:
            return x.strftime("%Y-%m-%d")
        return text + zone

    lines = []
    for i in range(rnd.choice([40, 300, 900])):
        a = t0 + datetime.timedelta(milliseconds=step * rnd.randint(0, 200))
        b = a + datetime.timedelta(milliseconds=step * rnd.randint(1, 5))
        lo, hi = written(a), written(b)
        if odd and rnd.random() < 0.02:
            lo = rnd.choice([a.strftime("%Y-%m-%dT%H:%M:%S.0005"), (a - datetime.timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%S")])
        if odd and rnd.random() < 0.05:
            hi = "+inf"  # (valid until further notice: the block's others still read by polars)
        left, right = rnd.choice("[("), ")" if hi == "+inf" else rnd.choice("])")
        pred = f"p({rnd.choice(NAMES)},{rnd.choice(NAMES)})" if rnd.random() < 0.8 else f"s({rnd.choice(NAMES)})"
        lines.append(f"{pred}@{left}{lo},{hi}{right}.")
    facts = "\n".join(lines) + "\n"
    program = f'@timeGranularity("{unit}").\n' + PROGRAMS["vadalog"]
    cols = _run(tmp_path, program, facts, "vadalog", "columns")
    rows = _run(tmp_path, program, facts, "vadalog", "rows")
    assert cols._columns.given_columns
    assert _text(cols) == _row_text(rows)
    assert cols.to_text() == rows.to_text()
    from chronolog.outputs import write_outputs

    written = []
    for model, folder in ((cols, tmp_path / "out_columns"), (rows, tmp_path / "out_rows")):
        write_outputs(model, tmp_path / "p.vada", folder, True, None)  # (--output: CSV ends from the columns, or fact by fact)
        written.append({f.name: f.read_text() for f in folder.iterdir()})
    assert written[0] == written[1] and written[0]
    assert taken["polars"] >= 1 or odd
    bad = facts + "p(a,b)@[2024-02-30T00:00:00,2024-03-01T00:00:00].\n"
    errors = []
    for engine in ("columns", "rows"):
        with pytest.raises(Exception) as e:
            _run(tmp_path, program, bad, "vadalog", engine)
        errors.append(str(e.value))
    assert errors[0] == errors[1] and f":{len(lines) + 1}:" in errors[0]


@pytest.mark.parametrize("dialect", ["vadalog", "meteor"])
def test_epoch_seconds_with_a_few_unbounded_ends_convert_only_those(tmp_path, monkeypatch, dialect):
    """Facts valid until further notice among epoch seconds: the block's
    plain integers cast by polars, only its few other tokens (``+inf``, a
    decimal) converted one by one; the rows' answers, byte for byte."""
    from chronolog.language import fact_columns

    converted = []
    convert = fact_columns._convert
    monkeypatch.setattr(fact_columns, "_convert", lambda tokens, *a: converted.append(len(tokens)) or convert(tokens, *a))
    inf = "+inf" if dialect == "vadalog" else "inf"
    end = "." if dialect == "vadalog" else ""
    lines = [f"own(p{i % 7},c{i % 11})@[{1_600_000_000 + 37 * i},{inf if i % 50 == 3 else 1_600_000_000 + 37 * i + 600})" + end
             for i in range(400)] + [f"own(p1,c2)@[1600000000.5,1600000001]{end}"]
    facts = "\n".join(lines) + "\n"
    cols = _run(tmp_path, PROGRAMS[dialect], facts.replace("own(", "p("), dialect, "columns")
    rows = _run(tmp_path, PROGRAMS[dialect], facts.replace("own(", "p("), dialect, "rows")
    assert _text(cols) == _row_text(rows) and "+inf)" in _text(cols)
    assert sum(converted) <= 3  # (+inf marked and the decimal over one denominator by the kernels; at most those one by one, never the 800 integers)
