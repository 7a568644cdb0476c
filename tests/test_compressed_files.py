"""Compressed CSV and fact files (gzip, bzip2, xz, zstd) read and written as
pandas, DuckDB and the command-line tools read and write them: answers
equal to the same data given as a table read by pandas from the
compressed file itself, damaged files refused with their name, outputs
named ``.csv.gz`` written compressed."""

import bz2
import gzip
import lzma
import random
import shutil
import subprocess

import pyarrow as pa
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import chronolog
from budget import examples
from chronolog.cli import cli
from chronolog.language.compressed import kind_of

KINDS = ("gz", "bz2", "xz", "zst")
RULES = 'hot(S) :- r(S, V), V > 90.\nlong(S) :- [-][0,3] hot(S).\n@output("hot"). @output("long").\n'


def compress(data: bytes, kind: str) -> bytes:
    """``data`` compressed as the command-line tool of ``kind`` does (zstd by
    pyarrow's codec, the others by the standard library)."""
    if kind == "gz":
        return gzip.compress(data)
    if kind == "bz2":
        return bz2.compress(data)
    if kind == "xz":
        return lzma.compress(data)
    sink = pa.BufferOutputStream()
    with pa.CompressedOutputStream(sink, "zstd") as out:
        out.write(data)
    return sink.getvalue().to_pybytes()


def readings(n: int, seed: int = 0):
    import pandas as pd

    rng = random.Random(seed)
    starts = [rng.randrange(0, 10_000) for _ in range(n)]
    return pd.DataFrame({"s": [f"s{rng.randrange(40)}" for _ in range(n)], "v": [rng.randrange(100) for _ in range(n)],
                         "start": starts, "end": [t + rng.randrange(1, 5) for t in starts]})


def run(*args):
    r = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=True)
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception  # an internal error: the test shows its traceback
    return r


@pytest.mark.parametrize("n", [300, 20_000])  # the row reader; the kernels (a file of 64 KiB or more)
@pytest.mark.parametrize("kind", KINDS)
def test_a_compressed_bound_csv_answers_as_pandas_reading_it(tmp_path, kind, n):
    """pandas writes and reads ``readings.csv.gz`` (bz2, xz) by its name;
    the model of the bound compressed file equals the model of the table
    pandas reads back from it, on both executors.  It was refused ("not
    UTF-8 text (byte 0x8b)")."""
    import pandas as pd

    frame = readings(n, n)
    name = f"readings.csv.{kind}"
    if kind == "zst":  # (pandas needs the zstandard package for zstd)
        (tmp_path / name).write_bytes(compress(frame.to_csv(index=False).encode(), kind))
    else:
        frame.to_csv(tmp_path / name, index=False)
    read_back = pd.read_csv(tmp_path / name, compression={"zst": "zstd"}.get(kind, "infer")) if kind != "zst" else frame
    want = chronolog.reason(RULES, {"r": read_back}, engine="rows").to_text()
    assert "long(" in want
    program = f'@bind("r", "csv", "{tmp_path}", "{name}").\n' + RULES
    for engine in ("rows", "columns"):
        assert chronolog.reason(program, engine=engine).to_text() == want, engine


def test_a_duckdb_gzip_csv_and_a_pattern_of_compressed_files(tmp_path):
    """DuckDB's ``COPY ... TO 'x.csv.gz'`` file, and a pattern matching
    plain and compressed parts together (a day's files gzipped once old)."""
    import duckdb

    frame = readings(6_000, 7)
    duckdb.sql(f"COPY (SELECT * FROM frame) TO '{tmp_path / 'duck.csv.gz'}' (HEADER)")
    assert (tmp_path / "duck.csv.gz").read_bytes()[:2] == b"\x1f\x8b"
    want = chronolog.reason(RULES, {"r": frame}).to_text()
    assert chronolog.reason(f'@bind("r", "csv", "{tmp_path}", "duck.csv.gz").\n' + RULES).to_text() == want
    parts = tmp_path / "parts"
    parts.mkdir()
    for i, kind in enumerate(["plain", "gz", "xz"]):
        text = frame.iloc[i * 2000 : (i + 1) * 2000].to_csv(index=False).encode()
        (parts / f"day-{i}.csv{'' if kind == 'plain' else '.' + kind}").write_bytes(text if kind == "plain" else compress(text, kind))
    assert chronolog.reason(f'@bind("r", "csv", "{parts}", "day-*").\n' + RULES).to_text() == want


@pytest.mark.parametrize("lines", [50, 60_000])  # rows; the kernels, in blocks
@pytest.mark.parametrize("kind", KINDS)
def test_compressed_fact_files_read_as_the_plain_file(tmp_path, kind, lines):
    """A fact file (``--facts f.facts.gz``, ``reason(prog, Path)``) and a CSV
    of many predicates (``run --format csv``'s, gzipped) read as the plain
    files; small compressed files join the plain ones beside them."""
    rng = random.Random(lines)
    text = "".join(f"r(s{i % 4},{rng.choice([95, 95, 95, 5])})@[{i // 4},{i // 4 + 2}]\n" for i in range(lines))
    (tmp_path / "f.facts").write_text(text)
    (tmp_path / f"f.facts.{kind}").write_bytes(compress(text.encode(), kind))
    want = chronolog.reason(RULES, tmp_path / "f.facts").to_text()
    assert chronolog.reason(RULES, tmp_path / f"f.facts.{kind}").to_text() == want
    halves = text.splitlines(keepends=True)
    (tmp_path / "a.facts").write_text("".join(halves[: lines // 2]))
    (tmp_path / f"b.facts.{kind}").write_bytes(compress("".join(halves[lines // 2 :]).encode(), kind))
    assert chronolog.reason(RULES, [tmp_path / "a.facts", tmp_path / f"b.facts.{kind}"]).to_text() == want
    prog = tmp_path / "p.vada"
    prog.write_text(RULES)
    r = run("run", prog, "--facts", tmp_path / f"f.facts.{kind}")
    assert r.exit_code == 0 and r.output == want + "\n", r.output[-500:]
    csv_out = run("run", prog, "--facts", tmp_path / "f.facts", "--format", "csv").output  # (a CSV of many predicates)
    assert csv_out.startswith("pred,")
    (tmp_path / "m.csv").write_text(csv_out)
    (tmp_path / f"m.csv.{kind}").write_bytes(compress(csv_out.encode(), kind))
    two = 'two(S) :- hot(S), long(S).\n@output("two").\n'
    got = chronolog.reason(two, tmp_path / f"m.csv.{kind}").to_text()
    assert got == chronolog.reason(two, tmp_path / "m.csv").to_text() and "two(" in got


@pytest.mark.parametrize("kind", KINDS)
def test_an_output_named_compressed_is_written_compressed(tmp_path, kind):
    """``@bind("hot", "csv", DIR, "hot.csv.gz")``: the file is compressed
    (the tool of its kind reads it back to the plain output, byte for
    byte), from rows and from columns; gzip's header names the output,
    not the temporary file; nothing else is left in the directory."""
    frame = readings(20_000, 3)
    frame.to_csv(tmp_path / "r.csv", index=False)
    plain = {}
    for engine in ("rows", "columns"):
        for name in ("hot.csv", f"hot.csv.{kind}"):
            out = tmp_path / engine
            program = f'@bind("r", "csv", "{tmp_path}", "r.csv").\n@bind("hot", "csv", "{out}", "{name}").\n' + RULES
            prog = tmp_path / "p.vada"
            prog.write_text(program)
            r = run("run", prog, "--engine", engine)
            assert r.exit_code == 0, r.output
        data = (out / f"hot.csv.{kind}").read_bytes()
        assert kind_of(data[:10]) is not None
        tool = {"gz": "gzip", "bz2": "bzip2", "xz": "xz", "zst": "zstd"}[kind]
        if shutil.which(tool):
            assert subprocess.run([tool, "-dc", str(out / f"hot.csv.{kind}")], capture_output=True, check=True).stdout == (out / "hot.csv").read_bytes()
        plain[engine] = (out / "hot.csv").read_bytes()
        assert sorted(p.name for p in out.iterdir()) == ["hot.csv", f"hot.csv.{kind}"]
        if kind == "gz":
            assert data[3] & 8 and data[10:].split(b"\0")[0] == b"hot.csv"  # (FNAME: the name gzip -N restores)
    assert plain["rows"] == plain["columns"]


@pytest.mark.parametrize("kind", ["gz", "xz", "zst"])
def test_a_damaged_compressed_file_is_refused_with_its_name(tmp_path, kind):
    """A file cut short (a copy interrupted), as a bound CSV, a fact file
    and a stream's input: exit status 2, the file named, how to check it;
    no traceback."""
    text = readings(5_000).to_csv(index=False).encode()
    data = compress(text, kind)
    (tmp_path / f"r.csv.{kind}").write_bytes(data[: len(data) // 2])
    prog = tmp_path / "p.vada"
    prog.write_text(f'@bind("r", "csv", "{tmp_path}", "r.csv.{kind}").\n' + RULES)
    for engine in ("rows", "columns"):
        r = run("run", prog, "--engine", engine)
        assert r.exit_code == 2 and "Traceback" not in r.output, r.output
        assert f"{tmp_path}/r.csv.{kind}: data error: the CSV file (bound to r) {tmp_path}/r.csv.{kind} is " in r.output, r.output
        assert "compressed but does not decompress" in r.output and f"-t FILE" in r.output
    facts = "".join(f"r(s{i % 7},{i % 100})@[{i},{i + 1}]\n" for i in range(30_000)).encode()
    whole = compress(facts, kind)
    (tmp_path / f"f.facts.{kind}").write_bytes(whole[: len(whole) * 2 // 3])
    prog.write_text(RULES)
    for command in (["run", prog, "--facts"], ["stream", prog, "--input"]):
        r = run(*command, tmp_path / f"f.facts.{kind}")
        assert r.exit_code == 2 and "Traceback" not in r.output, r.output
        assert "compressed but does not decompress" in r.output, r.output


def test_a_bad_byte_inside_a_compressed_file_is_placed_in_its_text(tmp_path):
    """Line and column name the place in the decompressed text (``zcat
    FILE | sed -n 3p`` shows it)."""
    (tmp_path / "r.csv.gz").write_bytes(gzip.compress(b"s,v,start,end\na,1,0,1\nb\xe9,2,0,1\n"))
    prog = tmp_path / "p.vada"
    prog.write_text(f'@bind("r", "csv", "{tmp_path}", "r.csv.gz").\n' + RULES)
    r = run("run", prog)
    assert r.exit_code == 2 and f"{tmp_path}/r.csv.gz:3:2: data error: the CSV file (bound to r) is not UTF-8 text (byte 0xe9)" in r.output, r.output


def test_a_table_file_is_not_compressed_as_a_whole(tmp_path):
    from chronolog.connectors.files import write_facts
    from chronolog.language.errors import DataError

    with pytest.raises(DataError, match=r"a Parquet file is not compressed as a whole") as e:
        write_facts(tmp_path / "q.parquet.gz", [(("a",), (0, 1, True, True))], ["c0"], "q")
    assert "drop the .gz" in e.value.hint
    assert not list(tmp_path.iterdir())


@settings(deadline=None, max_examples=examples(200))
@given(st.text(max_size=12))
def test_no_text_is_taken_for_a_compressed_file(text):
    """Files are told compressed by their first bytes, whatever their name:
    no UTF-8 text starts as gzip, xz or zstd do, and bzip2's header is
    checked through its block mark."""
    assert kind_of(text.encode("utf-8")[:10]) is None


@settings(deadline=None, max_examples=examples(40))
@given(st.lists(st.tuples(st.sampled_from(["a", "b c", "ü", "1"]), st.integers(-5, 5), st.integers(0, 3)), min_size=1, max_size=20),
       st.sampled_from(KINDS))
def test_compressed_csv_reads_as_the_plain_file(tmp_path_factory, rows, kind):
    """Any small CSV file reads compressed as it reads plain (the answers and
    the facts read)."""
    d = tmp_path_factory.mktemp("c")
    text = "k,v,start,end\n" + "".join(f'"{k}",{v},{s},{s + 1 + v % 2}\n' for k, v, s in rows)
    (d / "r.csv").write_text(text)
    (d / f"r.csv.{kind}").write_bytes(compress(text.encode(), kind))
    got = [chronolog.reason(f'@bind("r", "csv", "{d}", "{name}").\nq(K, V) :- r(K, V).\n').to_text() for name in ("r.csv", f"r.csv.{kind}")]
    assert got[0] == got[1]


def test_an_empty_compressed_file_is_noted_and_gzip_members_read_in_turn(tmp_path):
    """A compressed file of nothing (an export that wrote no rows, then
    gzipped) is noted as an empty file is; files of several gzip members
    (``cat a.gz b.gz``) read as their texts one after the other, a byte
    order mark and CRLF line ends inside as outside."""
    (tmp_path / "empty.csv.gz").write_bytes(gzip.compress(b""))
    with pytest.warns(chronolog.Note, match=r"empty\.csv\.gz: the file is empty \(0 bytes inside its compression\)"):
        chronolog.reason(f'@bind("r", "csv", "{tmp_path}", "empty.csv.gz").\n' + RULES)
    head = b"\xef\xbb\xbfs,v,start,end\r\n"
    rows = [b"s%d,%d,%d,%d\r\n" % (i % 30, 91 + i % 9, i // 30, i // 30 + 2) for i in range(6000)]
    (tmp_path / "r.csv").write_bytes(head + b"".join(rows))
    (tmp_path / "r.csv.gz").write_bytes(gzip.compress(head + b"".join(rows[:3000])) + gzip.compress(b"".join(rows[3000:])))
    want = chronolog.reason(f'@bind("r", "csv", "{tmp_path}", "r.csv").\n' + RULES).to_text()
    assert "long(" in want
    for engine in ("rows", "columns"):
        assert chronolog.reason(f'@bind("r", "csv", "{tmp_path}", "r.csv.gz").\n' + RULES, engine=engine).to_text() == want
    facts = "".join(f"r(s{i % 30},{91 + i % 9})@[{i // 30},{i // 30 + 2}]\n" for i in range(6000)).encode()
    (tmp_path / "f.facts.gz").write_bytes(gzip.compress(facts[:40_000]) + gzip.compress(facts[40_000:]))
    assert chronolog.reason(RULES, tmp_path / "f.facts.gz").to_text() == want
