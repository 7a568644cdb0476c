"""Parquet, Arrow IPC, CSV and fact-text files: exact round trips, @bind, atomic writes."""

from decimal import Decimal
from fractions import Fraction

import pyarrow as pa
import pytest

import chronolog
from chronolog.connectors.files import read_facts, read_table, write_facts, write_table

PROGRAM = "q(X, V) :- p(X, V).\n"
FACTS = 'p(a, 1)@[0,10).\np("b c", 2.5)@(-inf, 1/3].\np(d, 7)@[1.25, +inf).\np(e, -3)@(1/7, 2/7).\n'


@pytest.mark.parametrize("name", ["q.parquet", "q.arrow", "q.csv", "q.facts"])
def test_round_trip_keeps_exact_values(tmp_path, name):
    m = chronolog.reason(PROGRAM + FACTS)
    write_facts(tmp_path / name, m.facts("q"), m.column_names("q"), "q")
    assert read_facts(tmp_path / name, "q") == m.facts("q")
    assert m.facts("q")[1][1] == (float("-inf"), Fraction(1, 3), False, True)


@pytest.mark.parametrize("name", ["q.parquet", "q.arrow", "q.csv"])
def test_float_interval_ends_beside_whole_ones_read_back_as_the_numbers_they_show(tmp_path, name):
    """Given facts whose ends are Python floats beside ints (``0.5`` beside
    ``0``): each end is the number its shortest text shows (docs/api.md,
    "Floats as times"); on main the time column became term text
    (``float(0.5)``), which no reader takes as a time."""
    facts = [(("a",), (0, 1, True, True)), (("a",), (0.5, 2.0, True, False)), (("b",), (-1.0, 0.1, False, True))]
    write_facts(tmp_path / name, facts, ["c0"], "q")
    want = [(("a",), (0, 1, True, True)), (("a",), (Fraction(1, 2), 2, True, False)), (("b",), (-1, Fraction(1, 10), False, True))]
    assert read_facts(tmp_path / name, "q") == want


def test_parquet_keeps_decimal_and_int_types(tmp_path):
    m = chronolog.reason("q(X, V) :- p(X, V).\np(a, 1.5)@[0,10).\np(b, 2)@[3,4].\n")
    write_facts(tmp_path / "q.parquet", m.facts("q"), ["name", "v"], "q")
    t = read_table(tmp_path / "q.parquet")
    assert pa.types.is_decimal(t.schema.field("v").type) and t.schema.field("v").type.scale == 1
    assert t.schema.field("start").type == pa.int64()
    assert t.column("v").to_pylist() == [Decimal("1.5"), Decimal("2.0")]


def test_timestamps_become_exact_seconds_and_back(tmp_path):
    t = pa.table(
        {
            "c0": ["a", "b"],
            "start": pa.array([0, 1_500_000], pa.timestamp("us", tz="UTC")),
            "end": pa.array([86_400_000_000, None], pa.timestamp("us", tz="UTC")),
        }
    )
    m = chronolog.reason('@timeGranularity("seconds").\nq(X) :- <->[0,60] p(X).', {"p": t})
    assert m.facts("q") == [(("a",), (0, 86460, True, True)), (("b",), (Fraction(3, 2), float("inf"), True, False))]
    write_facts(tmp_path / "q.parquet", m.facts("q"), ["c0"], "q", timestamps=True)
    back = read_table(tmp_path / "q.parquet")
    assert back.schema.field("start").type == pa.timestamp("us", tz="UTC")
    assert back.column("start").cast(pa.int64()).to_pylist() == [0, 1_500_000]
    assert read_facts(tmp_path / "q.parquet", "q") == m.facts("q")


def test_a_time_off_the_microsecond_grid_is_refused(tmp_path):
    m = chronolog.reason("q(X) :- p(X).\np(a)@[0, 1/3].")
    with pytest.raises(chronolog.DataError, match="microseconds"):
        write_facts(tmp_path / "q.parquet", m.facts("q"), ["c0"], "q", timestamps=True)
    assert not (tmp_path / "q.parquet").exists()


def test_writes_never_overwrite_and_leave_nothing_on_failure(tmp_path):
    target = tmp_path / "q.parquet"
    t = pa.table({"c0": ["a"], "start": [0], "end": [1]})
    write_table(t, target)
    with pytest.raises(chronolog.DataError, match="exists already"):
        write_table(t, target)
    write_table(pa.table({"c0": ["b"], "start": [0], "end": [1]}), target, overwrite=True)
    assert read_table(target).column("c0").to_pylist() == ["b"]

    class Boom(Exception):
        pass

    from chronolog.connectors.files import atomic_write

    def failing(tmp):
        open(tmp, "w").write("partial")
        raise Boom

    with pytest.raises(Boom):
        atomic_write(tmp_path / "r.parquet", failing)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.parquet"]


def test_bind_reads_parquet_and_arrow_files(tmp_path):
    write_table(pa.table({"sensor": ["s1", "s2"], "v": pa.array([Decimal("10.5"), Decimal("3")], pa.decimal128(4, 1)), "start": [0, 0], "end": [5, 5]}), tmp_path / "r.parquet")
    write_table(pa.table({"sensor": ["s1"], "start": [2], "end": [3]}), tmp_path / "off.arrow")
    prog = tmp_path / "p.vada"
    prog.write_text(
        '@bind("reading", "parquet", ".", "r.parquet").\n'
        '@bind("off", "arrow", ".", "off.arrow").\n'
        "high(S) :- reading(S, V), V > 10, not off(S).\n"
    )
    m = chronolog.reason(prog)
    assert m.to_text() == "high(s1)@[0,2)\nhigh(s1)@(3,5]"


def test_unsupported_bind_kind_is_a_positioned_error():
    with pytest.raises(chronolog.ProgramError, match="unsupported source 'xml'"):
        chronolog.reason('@bind("p", "xml", ".", "p.xml").\nq(X) :- p(X).')


def test_spark_binding_without_spark_says_how_to_run_it():
    with pytest.raises(chronolog.ProgramError, match="--spark"):
        chronolog.reason('@bind("p", "spark parquet", ".", "p.parquet").\nq(X) :- p(X).')


@pytest.mark.parametrize("engine", ["rows", "columns"])
@pytest.mark.parametrize("kind, ext", [("parquet", "parquet"), ("arrow", "arrow")])
def test_a_column_mapped_float_is_written_as_float64(tmp_path, engine, kind, ext):
    """An output column ``@mapping``'d ``"float"`` was typed by its values:
    decimal128 for 1 and 2.5 written exactly, int64 for whole numbers; a
    reader (pandas, DuckDB, Spark) expects the double it was declared."""
    import pyarrow.parquet as pq
    from click.testing import CliRunner

    from chronolog.cli import cli

    (tmp_path / "m.vada").write_text(
        f'@output("q").\n@bind("q", "{kind}", "{tmp_path}", "q.{ext}").\n@mapping("q", 0, "name", "string").\n'
        '@mapping("q", 1, "v", "float").\n@mapping("q", 2, "n", "int").\nq(X, V, N) :- p(X, V, N).\n'
        'p(a, 1, 1)@[0,1].\np(b, 2.5, 2)@[0,1].\n')
    r = CliRunner().invoke(cli, ["run", str(tmp_path / "m.vada"), "--engine", engine])
    assert r.exit_code == 0, r.output
    table = pq.read_table(tmp_path / "q.parquet") if kind == "parquet" else pa.ipc.open_file(tmp_path / "q.arrow").read_all()
    assert table.schema.field("v").type == pa.float64() and table.schema.field("n").type == pa.int64()
    assert sorted(table.select(["name", "v", "n"]).to_pylist(), key=str) == [
        {"name": "a", "v": 1.0, "n": 1}, {"name": "b", "v": 2.5, "n": 2}]


@pytest.mark.parametrize("dated", [False, True])
def test_a_large_bound_fact_file_reads_as_the_row_reader_reads_it(tmp_path, dated):
    """``@bind("r", "facts", ...)`` of a file of 64 KB or more is read by the
    kernel fact reader (as ``--facts`` reads one; it took the line reader
    and a Fact per row, 4.4 s for 1M lines against 0.9 s): the facts of
    ``r`` alone (others in the file left, as the rows leave them), its
    facts that repeat forever kept, a byte order mark dropped, quoted and
    labelled-null terms; the rows' model on both executors, gzipped too."""
    import gzip
    import random

    rng = random.Random(5)
    day = (lambda t: f"2024-01-01T{t // 60 % 24:02d}:{t % 60:02d}") if dated else str
    lines = []
    for i in range(6_000):
        t = rng.randrange(0, 1_000)
        kind = rng.random()
        if kind < 0.05:
            lines.append(f"other(s{i % 9},{i})@[{day(t)},{day(t + 3)}]")
        elif kind < 0.07:
            lines.append(f'r("a b{i % 3}",{i % 100})@[{day(t)},{day(t + 2)})')
        elif kind < 0.08:
            lines.append(f"r(_:n{i % 4},{i % 100})@[{day(t)},{day(t + 1)}]")
        else:
            lines.append(f"r(s{i % 50},{rng.randrange(100)})@[{day(t)},{day(t + rng.randrange(1, 5))}]")
    lines.append("r(s1,99)@2024-01-01T00:00 every PT30M" if dated else "r(s1,99)@0 every 30")
    text = "\ufeff" + "\n".join(lines) + "\n"
    (tmp_path / "r.facts").write_text(text)
    (tmp_path / "r.facts.gz").write_bytes(gzip.compress(text.encode()))
    assert (tmp_path / "r.facts").stat().st_size >= 1 << 16
    head = '@timeGranularity("minutes").\n' if dated else ""
    rules = 'hot(S) :- r(S, V), V > 90.\nlong(S) :- [-][0,3] hot(S).\nall(S, V) :- r(S, V).\n@output("hot"). @output("long"). @output("all").\n'
    want = chronolog.reason(head + f'@bind("r", "facts", "{tmp_path}", "r.facts").\n' + rules, engine="rows")
    assert "every " in want.to_text() and '"a b1"' in want.to_text() and "other" not in want.to_text()
    for name in ("r.facts", "r.facts.gz"):
        for engine in ("auto", "columns"):
            got = chronolog.reason(head + f'@bind("r", "facts", "{tmp_path}", "{name}").\n' + rules, engine=engine)
            assert got.to_text() == want.to_text(), (name, engine)
