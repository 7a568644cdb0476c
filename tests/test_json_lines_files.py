"""JSON Lines files bound with ``@bind("p", "json", ...)``, as pandas,
DuckDB and ``json.dumps`` write them: the model equals the model of the
same records read by Python's ``json`` module (each number the exact value
its text writes, as a CSV cell's is) and given as rows, and the model of
the same table written as CSV; outputs bound to ``.jsonl`` read back by
pandas and by chronolog; bad lines refused at their line and column."""

import gzip
import json
import random
from decimal import Decimal
from fractions import Fraction

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import chronolog
from budget import examples
from chronolog.cli import cli

RULES = 'hot(S, V) :- r(S, V), V > 40.\nlong(S) :- [-][0,3] hot(S, V).\n@output("hot"). @output("long").\n'


def run(*args):
    r = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=True)
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception  # an internal error: the test shows its traceback
    return r


def exact(v):
    """A value of ``json.loads(..., parse_float=Decimal)`` as the term the
    records mean: a decimal its exact value (an int when whole)."""
    if isinstance(v, Decimal):
        f = Fraction(v)
        return f.numerator if f.denominator == 1 else f
    return v


def oracle_rows(text: str, args=("s", "v")) -> list:
    """The facts of JSON Lines ``text`` read by Python's json module, as
    rows ``((terms), (start, end, start_closed, end_closed))``: null ends
    unbounded, closedness by start_closed/end_closed (closed by default)."""
    out = []
    for line in text.split("\n"):  # (not splitlines: U+0085 and U+2028 inside a string are no line end)
        if not line.strip():
            continue
        rec = {k: exact(v) for k, v in json.loads(line, parse_float=Decimal).items()}
        lo = float("-inf") if rec.get("start") is None else rec["start"]
        hi = float("inf") if rec.get("end") is None else rec["end"]
        out.append((tuple(rec[a] for a in args), (lo, hi, rec.get("start_closed", True), rec.get("end_closed", True))))
    return out


def readings(n: int, seed: int = 0) -> list:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        t = rng.randrange(0, 10_000)
        v = rng.choice([rng.randrange(100), round(rng.uniform(0, 100), 2), rng.randrange(100) / 4])
        out.append({"s": f"s{rng.randrange(40)}", "v": v, "start": t, "end": t + rng.randrange(1, 5)})
    return out


def jsonl(records) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


@pytest.mark.parametrize("n", [300, 20_000])  # the row reader; the kernels (a file of 64 KiB or more)
def test_a_bound_json_lines_file_answers_as_python_json_reading_it(tmp_path, n):
    """Integers, decimals and both in one key (7 beside 20.25): each the
    exact number its text writes, as Python's json reads it with
    ``parse_float=Decimal``; the same on both executors."""
    text = jsonl(readings(n, n))
    (tmp_path / "r.jsonl").write_text(text)
    want = chronolog.reason(RULES, {"r": oracle_rows(text)}, engine="rows").to_text()
    assert "long(" in want and "." in want
    program = f'@bind("r", "json", "{tmp_path}", "r.jsonl").\n' + RULES
    for engine in ("rows", "columns"):
        assert chronolog.reason(program, engine=engine).to_text() == want, engine


@pytest.mark.parametrize("n", [300, 20_000])
def test_a_json_lines_file_answers_as_the_same_table_in_csv(tmp_path, n):
    """pandas writes one table as CSV and as JSON Lines: the two bound files
    give one model (a number is exact in both: 0.1 three times is 0.3)."""
    import pandas as pd

    frame = pd.DataFrame(readings(n, n + 1))
    frame.to_csv(tmp_path / "r.csv", index=False)
    frame.to_json(tmp_path / "r.jsonl", orient="records", lines=True)
    rules = RULES + 'total(S, T) :- r(S, V), T = sum(V).\n@output("total").\n'
    csv_model = chronolog.reason(f'@bind("r", "csv", "{tmp_path}", "r.csv").\n' + rules).to_text()
    json_model = chronolog.reason(f'@bind("r", "json", "{tmp_path}", "r.jsonl").\n' + rules).to_text()
    assert json_model == csv_model


def test_duckdb_json_export_reads_back(tmp_path):
    """DuckDB's ``COPY ... (FORMAT json)`` writes JSON Lines: its DECIMAL and
    DOUBLE values, dates in a time column on a date timeline."""
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.execute("create table r as select 's' || (i % 7) as s, (i % 50)::decimal(10,2) + 0.25 as v, "
                "date '2024-01-01' + (i % 30)::int as start, date '2024-01-01' + (i % 30)::int + 2 as \"end\" from range(200) t(i)")
    con.execute(f"copy r to '{tmp_path / 'r.jsonl'}' (format json)")
    con.execute(f"copy r to '{tmp_path / 'r.csv'}' (header)")
    rules = '@timeGranularity("days").\nhot(S, V) :- r(S, V), V > 40.\nbusy(S) :- [-][0,1] hot(S, V).\n@output("hot"). @output("busy").\n'
    want = chronolog.reason(f'@bind("r", "csv", "{tmp_path}", "r.csv").\n' + rules).to_text()
    assert "busy(" in want and "40.25" in want
    assert chronolog.reason(f'@bind("r", "json", "{tmp_path}", "r.jsonl").\n' + rules).to_text() == want


def test_kinds_stay_as_json_writes_them(tmp_path):
    """A string that spells a number or a date is a string; null or a missing end is unbounded; start_closed/end_closed say the
    closedness; keys in any order per line; blank lines and a BOM skipped;
    a big integer and an exponent exact."""
    lines = ['{"s": "7", "v": 1, "start": 0, "end": 5}',
             '{"v": 2, "s": "2024-01-01", "end": null, "start": 1}',
             '',
             '{"s": "x", "v": 3, "start": 2, "end": 3, "start_closed": false, "end_closed": false}',
             '{"s": "y", "v": 123456789012345678901234567890, "start": 0.5, "end": 1e1}',
             '{"s": "z", "v": 2.5e-3, "start": 0, "end": 1}']
    (tmp_path / "r.jsonl").write_bytes(b"\xef\xbb\xbf" + "\n".join(lines).encode())
    got = chronolog.reason(f'@bind("r", "json", "{tmp_path}", "r.jsonl").\nq(S, V) :- r(S, V).\n@output("q").\n')
    assert sorted(got.to_text().splitlines()) == sorted([
        'q("7",1)@[0,5]', 'q("2024-01-01",2)@[1,+inf)', "q(x,3)@(2,3)",
        "q(y,123456789012345678901234567890)@[0.5,10]", "q(z,0.0025)@[0,1]"])
    assert got.holds("q", ("7", 1), 3) and not got.holds("q", (7, 1), 3)


@pytest.mark.parametrize("odd", [None, "1.0000000000000000001", "12345678901234567890123", '"id 12345678901234567.5"'])
def test_numbers_of_many_digits_are_the_numbers_written(tmp_path, odd):
    """json.dumps' floats (0.30000000000000004: 17 digits, each its
    double's shortest text) are exact as written, read by kernels; a
    decimal of more digits than a double holds, an integer past 64 bits
    beside them, and digits inside a string are exact too (those lines
    read one by one): the oracle is Python's json reading the decimals."""
    rng = random.Random(6)
    recs = [{"s": f"s{i % 9}", "v": rng.uniform(0, 100) if i % 3 else round(rng.uniform(0, 100), 2), "start": i, "end": i + 3}
            for i in range(3000)]
    text = jsonl(recs)
    if odd is not None:
        lines = text.splitlines(keepends=True)
        if odd.startswith('"'):
            lines[1500] = '{"s": ' + odd + ', "v": 0.1, "start": 0, "end": 1}\n'
        else:
            lines[1500] = '{"s": "odd", "v": ' + odd + ', "start": 0, "end": 1}\n'
        text = "".join(lines)
    (tmp_path / "r.jsonl").write_text(text)
    rules = 'q(S, V) :- r(S, V).\n@output("q").\n'
    want = chronolog.reason(rules, {"r": oracle_rows(text)}, engine="rows").to_text()
    assert "0000000000000" in want or "." in want
    for engine in ("rows", "columns"):
        assert chronolog.reason(f'@bind("r", "json", "{tmp_path}", "r.jsonl").\n' + rules, engine=engine).to_text() == want, engine


def test_a_key_mapped_float_reads_floats(tmp_path):
    """``@mapping(..., "float")`` of a key reads its numbers as floats, as a
    CSV column mapped so: 0.1 and 0.2 sum past 0.3; exact otherwise."""
    (tmp_path / "r.jsonl").write_text("".join(json.dumps({"s": "a", "v": v, "start": i, "end": 10}) + "\n" for i, v in enumerate([0.1, 0.2])))
    rules = 'big(S) :- r(S, V), T = sum(V), T > 0.3.\n@output("big").\n'
    bind = f'@bind("r", "json", "{tmp_path}", "r.jsonl").\n'
    assert chronolog.reason(bind + rules).to_text() == ""
    assert chronolog.reason(bind + '@mapping("r", 1, "v", "float").\n' + rules).to_text() == "big(a)@[1,10]"
    (tmp_path / "w.jsonl").write_text('{"s": "a", "v": 20, "start": 0, "end": 1}\n')  # (integers alone in the key: floats too)
    got = chronolog.reason(f'@bind("r", "json", "{tmp_path}", "w.jsonl").\n@mapping("r", 1, "v", "float").\nq(S, V) :- r(S, V).\n')
    assert got.to_text() == "q(a,20.0)@[0,1]"


def test_time_points_of_iso_datetimes(tmp_path):
    """``@timeMapping("p", 1, 1)`` of a key holding ISO date-times, with a
    zone too: each reading at its instant, as the same CSV gives."""
    rows = [("s1", "2024-03-01T10:00:00", 21), ("s2", "2024-03-01T10:00:30Z", 30), ("s1", "2024-03-01T10:01:00+00:00", 25)]
    (tmp_path / "r.jsonl").write_text("".join(json.dumps({"sensor": s, "t": t, "value": v}) + "\n" for s, t, v in rows))
    (tmp_path / "r.csv").write_text("sensor,t,value\n" + "".join(f"{s},{t},{v}\n" for s, t, v in rows))
    rules = ('@timeGranularity("seconds").\n@timeMapping("r", 1, 1).\n'
             'warm(S) :- <->[0,60] r(S, V), V > 20.\n@output("warm").\n')
    got = chronolog.reason(f'@bind("r", "json", "{tmp_path}", "r.jsonl").\n' + rules).to_text()
    assert "warm(s2)@[2024-03-01T10:00:30,2024-03-01T10:01:30]" in got
    assert got == chronolog.reason(f'@bind("r", "csv", "{tmp_path}", "r.csv").\n' + rules).to_text()


def test_a_gzipped_json_lines_file(tmp_path):
    text = jsonl(readings(500, 3))
    (tmp_path / "r.jsonl.gz").write_bytes(gzip.compress(text.encode()))
    want = chronolog.reason(RULES, {"r": oracle_rows(text)}, engine="rows").to_text()
    assert chronolog.reason(f'@bind("r", "json", "{tmp_path}", "r.jsonl.gz").\n' + RULES).to_text() == want


BAD = [
    ('{"s": "a", "v": 1, "start": 0, "end": 1}\n{"s": "b", "v": , "start": 0, "end": 1}\n', "2:17", "not JSON"),
    ('{"s": "a", "v": 1, "start": 0, "end": 1}\n[1, 2]\n', "2:1", "holds an array, not a JSON object"),
    ('{"s": "a", "v": 1, "start": 0, "end": 1}\n{"s": {"id": 2}, "v": 1, "start": 0, "end": 1}\n', "2:2", "s holds an object, which is no constant"),
    ('{"s": "a", "v": 1, "start": 0, "end": 1}\n\n{"s": "b", "v": "2", "start": 0, "end": 1}\n', "3:12", "v holds a string here, but a number on line 1"),
    ('{"s": "a", "v": NaN, "start": 0, "end": 1}\n', "1:1", "NaN is no number"),
    ('{"s": "a", "v": 1, "start": 0, "end": 1, "s": "b"}\n', "1:42", "s is written twice in one object"),
    ('{"s": "a", "v": 1, "start": 0, "end": 1}\n{"s": null, "v": 1, "start": 0, "end": 1}\n', "2:2", "s is null here: every argument of r needs a value"),
    ('{"s": "a", "v": 1, "start": 0, "end": 1}\n{"v": 1, "start": 0, "end": 1}\n', "2:1", "s is left out here: every argument of r needs a value"),
    ('{"s": "a", "v": 1, "start": 0, "end": 1}\n{"s": "\xff", "v": 1, "start": 0, "end": 1}\n', "2:8", "not UTF-8 text (byte 0xff)"),
]


@pytest.mark.parametrize("text,where,said", BAD)
@pytest.mark.parametrize("many", [False, True])  # a small file; the problem past many good lines (the kernels' reading)
def test_a_bad_line_is_refused_at_its_line_and_column(tmp_path, text, where, said, many):
    data = text.encode("latin-1")
    line, col = where.split(":")
    if many:
        good = b'{"s": "a", "v": 1, "start": 0, "end": 1}\n' * 5000
        data = good + data if not data.startswith(b"[") else data
        line = str(int(line) + (5000 if not text.startswith("[") else 0))
    (tmp_path / "r.jsonl").write_bytes(data)
    (tmp_path / "p.vada").write_text('@bind("r", "json", ".", "r.jsonl").\nq(S) :- r(S, V).\n@output("q").\n')
    r = run("run", tmp_path / "p.vada")
    assert r.exit_code == 2, r.output
    assert f"r.jsonl:{line}:{col}: data error: " in r.output and said in r.output, r.output
    assert "Traceback" not in r.output and "hint:" in r.output


def test_mapping_names_choose_the_keys(tmp_path):
    """Log lines hold more keys than a rule reads, in an order of the
    writer's (Go's encoding/json sorts them), some lines in another (an
    object's keys have no order): the keys ``@mapping`` names are the
    arguments, in its order, the others left (a null among them too); the
    time key at its place among the first line's keys.  The model equals
    that of the chosen columns given as rows."""
    rng = random.Random(4)
    order = ["ts", "user", "action", "ip", "ms", "referrer"]
    rng.shuffle(order)
    recs = []
    for i in range(2000):  # (over 64 KiB: the kernels' reading too)
        rec = {"ts": 1000 + i, "user": f"u{rng.randrange(30)}", "action": rng.choice(["login", "logout", "view"]),
               "ip": f"10.0.0.{rng.randrange(9)}", "ms": round(rng.uniform(0, 900), 1), "referrer": None}
        keys = list(order) if i == 0 or i % 10 else rng.sample(order, len(order))
        recs.append({k: rec[k] for k in keys})
    (tmp_path / "ev.jsonl").write_text(jsonl(recs))
    ts = order.index("ts")
    rules = (f'@timeMapping("event", {ts}, {ts}).\n@mapping("event", 0, "user").\n@mapping("event", 1, "action").\n@mapping("event", 2, "ms").\n'
             'slow(U, A) :- event(U, A, M), M > 800.\n@output("slow").\n')
    want = chronolog.reason('slow(U, A) :- event(U, A, M), M > 800.\n@output("slow").\n',
                            {"event": [((r["user"], r["action"], Fraction(str(r["ms"]))), (r["ts"], r["ts"])) for r in recs]}, engine="rows")
    assert "slow(" in want.to_text()
    for engine in ("rows", "columns"):
        got = chronolog.reason(f'@bind("event", "json", "{tmp_path}", "ev.jsonl").\n' + rules, engine=engine)
        assert got.to_text() == want.to_text(), engine


def test_a_mapping_name_no_line_has_is_refused(tmp_path):
    (tmp_path / "ev.jsonl").write_text('{"user": "a", "action": "x", "start": 0, "end": 1}\n')
    (tmp_path / "p.vada").write_text('@bind("event", "json", ".", "ev.jsonl").\n@mapping("event", 0, "user").\n@mapping("event", 1, "verb").\n'
                                     'q(U) :- event(U, A).\n@output("q").\n')
    r = run("run", tmp_path / "p.vada")
    assert r.exit_code == 2, r.output
    assert "p.vada:2:1: program error: @mapping of event names argument 1 'verb', which no line of" in r.output
    assert "(and others by keys: user)" in r.output and "(the keys: user, action)" in r.output


def test_a_reading_without_its_time_point_is_refused_at_its_line(tmp_path):
    (tmp_path / "r.jsonl").write_text('{"s": "a", "t": 3}\n{"s": "b", "t": null}\n')
    (tmp_path / "p.vada").write_text('@bind("r", "json", ".", "r.jsonl").\n@timeMapping("r", 1, 1).\nq(S) :- r(S).\n@output("q").\n')
    r = run("run", tmp_path / "p.vada")
    assert r.exit_code == 2 and "r.jsonl:2:12: data error: t is null here: @timeMapping of r reads it as the line's time point" in r.output, r.output


@pytest.mark.parametrize("data, said", [(b"", "is empty (0 bytes)"), (b"\n  \n\n", "holds blank lines alone"),
                                        (gzip.compress(b"\n\n", mtime=0), "holds blank lines alone"),
                                        (b" [ ]\n", "is an empty JSON array")],
                         ids=["empty", "blank", "blank-gzip", "empty-array"])  # ids: the bytes of a gzip would name the test
def test_an_empty_or_blank_file_gives_no_facts_and_says_so(tmp_path, data, said):
    (tmp_path / "r.jsonl").write_bytes(data)
    (tmp_path / "p.vada").write_text('@bind("r", "json", ".", "r.jsonl").\nq(S) :- r(S, V).\n@output("q").\n')
    r = run("run", tmp_path / "p.vada")
    assert r.exit_code == 0 and f"r.jsonl: the file {said}, so it gives r no facts" in r.output, r.output


@pytest.mark.parametrize("n", [300, 20_000])  # the row reader; the kernels
def test_a_json_array_file_reads_as_its_objects(tmp_path, n):
    """A file that is one JSON array of objects, as pandas' to_json(orient=
    "records") writes it (one line) and json.dump(..., indent=2) (an object
    over many lines): the model of Python's json reading it, and of the
    same objects as JSON Lines; each number the exact number its text
    writes."""
    import pandas as pd

    records = readings(n, n + 1)
    pd.DataFrame(records).to_json(tmp_path / "compact.json", orient="records")
    (tmp_path / "pretty.json").write_text(json.dumps(records, indent=2) + "\n")
    (tmp_path / "r.jsonl").write_text(jsonl(records))
    assert (tmp_path / "compact.json").read_text().startswith("[{")
    rows = [(tuple(exact(r[a]) for a in ("s", "v")), (r["start"], r["end"], True, True))
            for r in json.loads((tmp_path / "pretty.json").read_text(), parse_float=Decimal)]
    want = chronolog.reason(RULES, {"r": rows}, engine="rows").to_text()
    assert "long(" in want
    for name in ("compact.json", "pretty.json", "r.jsonl"):
        for engine in ("columns", "rows"):
            got = chronolog.reason(f'@bind("r", "json", "{tmp_path}", "{name}").\n' + RULES, engine=engine).to_text()
            assert got == want, (name, engine)


ARRAYS = [
    ('[\n  {"s": "a", "v": 1, "start": 0, "end": 1},\n  {"s": "b", "v": "x", "start": 0, "end": 1}\n]\n', "3:14",
     "v holds a string here, but a number on line 2"),
    ('[\n  {"s": "a", "v": 1, "start": 0, "end": 1},\n  {"s": "b", "v": 2, "start": 0, "end": 1,}\n]\n', "3:43", "not JSON"),
    ('[\n  {"s": "a",\n   "v": 1, "start": 0, "end": 1},\n  {"s": "b",\n   "start": 0, "end": 1}\n]\n', "4:3",
     "v is left out here: every argument of r needs a value"),
    ('[{"s": "a", "v": 1, "start": 0, "end": 1}] x\n', "1:44", "text after the array's closing ]"),
    ('[{"s": "a", "v": 1, "start": 0, "end": 1} {"s": "b"}]\n', "1:43", "expected , or ] after an element of the array"),
    ('[{"s": "a", "v": [1], "start": 0, "end": 1}]\n', "1:13", "v holds an array, which is no constant"),
    ('[{"s": "a", "v": 1, "start": 0, "end": 1}, 7]\n', "1:44", "the array's element holds a number, not a JSON object"),
]


@pytest.mark.parametrize("text,where,said", ARRAYS)
def test_a_bad_json_array_is_refused_at_its_line_and_column(tmp_path, text, where, said):
    (tmp_path / "r.json").write_text(text)
    (tmp_path / "p.vada").write_text('@bind("r", "json", ".", "r.json").\n' + RULES)
    r = run("run", tmp_path / "p.vada")
    assert r.exit_code == 2 and f"r.json:{where}: data error: {said}" in r.output, r.output
    assert "Traceback" not in r.output


def test_a_damaged_gzip_is_refused(tmp_path):
    (tmp_path / "r.jsonl.gz").write_bytes(gzip.compress(jsonl(readings(2000)).encode())[:-200])
    (tmp_path / "p.vada").write_text('@bind("r", "json", ".", "r.jsonl.gz").\nq(S) :- r(S, V).\n@output("q").\n')
    r = run("run", tmp_path / "p.vada")
    assert r.exit_code == 2 and "gzip -t" in r.output, r.output


@pytest.mark.parametrize("name", ["hot.jsonl", "hot.jsonl.gz"])
@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_an_output_bound_to_json_lines_reads_back(tmp_path, name, engine):
    """``chronolog run`` writes a bound ``.jsonl`` output one object a fact
    (named keys, then start/end, null where unbounded, and closedness):
    pandas reads it, and chronolog reads it back to the same facts (exact
    decimals, floats by a float mapping, dates on a date timeline)."""
    import pandas as pd

    facts = ('p("s1", 35)@[1,3).\np("s2", 0.5)@[2.5,+inf).\np("s3", 12345678901234567890)@(-inf,7).\n'
             'p("s4", 0.1)@[1/4, 1/2].\np("s5", 7)@[0,1].\n')
    program = (f'@bind("hot", "json", ".", "{name}").\n@output("hot").\n@mapping("hot", 0, "sensor").\n'
               '@mapping("hot", 1, "value").\n' + facts + 'hot(S, V) :- p(S, V).\n')
    (tmp_path / "p.vada").write_text(program)
    r = run("run", tmp_path / "p.vada", "--engine", engine)
    assert r.exit_code == 0, r.output
    assert sorted(tmp_path.iterdir()) == [tmp_path / name, tmp_path / "p.vada"]  # (nothing left behind)
    frame = pd.read_json(tmp_path / name, lines=True, dtype=False)
    assert list(frame.columns) == ["sensor", "value", "start", "end", "start_closed", "end_closed"]
    assert frame["sensor"].tolist() == ["s1", "s2", "s3", "s4", "s5"]
    (tmp_path / "q.vada").write_text(f'@bind("hot", "json", ".", "{name}").\nq(S, V) :- hot(S, V).\n@output("q").\n')
    back = run("run", tmp_path / "q.vada")
    assert back.exit_code == 0, back.output
    want = chronolog.reason(facts + 'q(S, V) :- p(S, V).\n@output("q").\n').to_text()
    assert sorted(back.output.splitlines()) == sorted(want.splitlines())


@pytest.mark.parametrize("dated", [False, True])
@pytest.mark.parametrize("mixed", [False, True])  # a column of one kind each (kernels); one of several kinds (the rows)
def test_a_json_lines_output_is_the_same_bytes_from_rows_and_columns(tmp_path, monkeypatch, dated, mixed):
    """The columns a run left are written by kernels (800,000 facts fact by
    fact took 35 s), byte for byte as the rows write them: strings with
    quotes, backslashes, control characters and line separators, exact
    numbers of several scales, floats, booleans, unbounded ends,
    date-times at midnight and not; a column of several kinds by the rows."""
    import chronolog.connectors.json_lines as json_lines
    from chronolog.language.text import format_term

    made = []
    kernels = json_lines.table_json_lines
    monkeypatch.setattr(json_lines, "table_json_lines", lambda *a: made.append(kernels(*a)) or made[-1])
    rng = random.Random(9)
    names = [format_term(n) for n in ["plain", 'say "hi"', "back\\slash", "tab\there", "line\u2028sep", "é✓", "x\u0085y"]]
    exact = ["0", "7", "-3", "0.5", "10.04", "-2.125", "1.0e0", "123456789.125"]
    floats = ["float(0.1)", "float(2.0)", "float(-1.5e-7)", "float(1e22)"]
    day = (lambda t: f"2024-03-{1 + t // 24:02d}T{t % 24:02d}:00") if dated else str
    facts = []
    for i in range(3000):
        v = rng.choice(exact + floats + ["#T", "x"]) if mixed else rng.choice(exact)
        t = rng.randrange(0, 600)
        end = "+inf" if i % 17 == 0 else day(t + rng.randrange(1, 30))
        start = "-inf" if i % 23 == 0 else day(t)
        facts.append(f"p({rng.choice(names)}, {v}, {rng.choice(floats)}, {rng.choice(['#T', '#F'])}, k{i % 50})@[{start},{end})")
    head = '@timeGranularity("hours").\n' if dated else ""
    (tmp_path / "f.facts").write_text("\n".join(facts) + "\n")
    (tmp_path / "p.vada").write_text(head + '@bind("q", "json", ".", "q.jsonl").\n@output("q").\nq(S, V, F, B, K) :- p(S, V, F, B, K).\n')
    written = {}
    for engine in ("rows", "columns"):
        r = run("run", tmp_path / "p.vada", "--facts", tmp_path / "f.facts", "--engine", engine, "--overwrite")
        assert r.exit_code == 0, r.output[-500:]
        written[engine] = (tmp_path / "q.jsonl").read_bytes()
    assert made and (made[-1] is None) == mixed  # (the columns' run: kernels, or the rows for a column of several kinds)
    assert written["rows"] == written["columns"]
    lines = [json.loads(line) for line in written["rows"].decode().split("\n") if line]
    assert len(lines) > 1000 and {type(r["c3"]) for r in lines} == {bool} and {type(r["c2"]) for r in lines} == {float}


def test_an_output_on_a_date_timeline_reads_back(tmp_path):
    facts = '@timeGranularity("minutes").\np("a", 1)@[2024-01-01T10:00, 2024-01-01T10:05).\np("b", 2)@[2024-01-02, +inf).\n'
    (tmp_path / "p.vada").write_text(facts + '@bind("q", "json", ".", "q.jsonl").\n@output("q").\nq(S, V) :- p(S, V).\n')
    assert run("run", tmp_path / "p.vada").exit_code == 0
    first = json.loads((tmp_path / "q.jsonl").read_text().splitlines()[0])
    assert first == {"c0": "a", "c1": 1, "start": "2024-01-01T10:00:00", "end": "2024-01-01T10:05:00", "start_closed": True, "end_closed": False}
    (tmp_path / "r.vada").write_text('@timeGranularity("minutes").\n@bind("q", "json", ".", "q.jsonl").\nr(S, V) :- q(S, V).\n@output("r").\n')
    want = chronolog.reason(facts + 'r(S, V) :- p(S, V).\n@output("r").\n').to_text()
    assert run("run", tmp_path / "r.vada").output.strip() == want.strip()


_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8)
_number = st.one_of(st.integers(-(10**25), 10**25), st.decimals(allow_nan=False, allow_infinity=False, places=4,
                                                                 min_value=-(10**6), max_value=10**6))


@settings(deadline=None, max_examples=examples(40))
@given(st.lists(st.tuples(st.one_of(_text, st.booleans()), _number, st.integers(0, 50), st.integers(0, 5), st.booleans()),
                min_size=1, max_size=30))
def test_any_small_json_lines_file_reads_as_python_json_does(rows):
    """Strings of any characters (quotes, line separators, emoji), booleans,
    integers past 64 bits, decimals; ends null or not: the model of the
    bound file equals the rows Python's json reads, on both executors.  A
    key holds one kind: the s of a file are all strings or all booleans."""
    import tempfile
    from pathlib import Path

    kind = type(rows[0][0])
    rows = [r for r in rows if type(r[0]) is kind]
    recs = [{"s": s, "v": v, "start": t, "end": None if open_ else t + d} for s, v, t, d, open_ in rows]
    text = "".join(_line(r) for r in recs)
    want = chronolog.reason('q(S, V) :- r(S, V).\n@output("q").\n', {"r": oracle_rows(text)}, engine="rows").to_text()
    with tempfile.TemporaryDirectory() as d:
        Path(d, "r.jsonl").write_text(text, encoding="utf-8")
        for engine in ("rows", "columns"):
            got = chronolog.reason(f'@bind("r", "json", "{d}", "r.jsonl").\nq(S, V) :- r(S, V).\n@output("q").\n', engine=engine)
            assert got.to_text() == want, engine


def _line(rec) -> str:
    """A record as one JSON line, a Decimal as its number text (json.dumps has none)."""
    parts = [f"{json.dumps(k)}: {v if isinstance(v, Decimal) else json.dumps(v, ensure_ascii=False)}" for k, v in rec.items()]
    return "{" + ", ".join(parts) + "}\n"


@settings(deadline=None, max_examples=examples(30))
@given(st.lists(st.tuples(_text, st.one_of(st.integers(-(10**20), 10**20), st.fractions(-50, 50, max_denominator=8)),
                          st.integers(-5, 50), st.integers(0, 5), st.booleans()), min_size=1, max_size=25))
def test_any_json_lines_output_reads_back_as_the_model(rows):
    """Facts of any strings and exact numbers (those with a decimal: a
    fraction such as 1/3 is written as its text, which a key of numbers
    does not hold), ends unbounded or not: written to a bound ``.jsonl``
    output and bound again, the same facts."""
    import tempfile
    from pathlib import Path

    from chronolog.language.text import format_term

    rows = [(s, v if not isinstance(v, Fraction) or v.denominator in (1, 2, 4, 5, 8) else v.numerator, t, d, o) for s, v, t, d, o in rows]
    facts = "".join(f"p({format_term(s)}, {format_term(v)})@[{t},{'+inf' if open_ else t + d}].\n" for s, v, t, d, open_ in rows)
    with tempfile.TemporaryDirectory() as d:
        Path(d, "p.vada").write_text(facts + '@bind("q", "json", ".", "q.jsonl").\n@output("q").\nq(S, V) :- p(S, V).\n')
        assert run("run", Path(d, "p.vada")).exit_code == 0
        Path(d, "r.vada").write_text('@bind("q", "json", ".", "q.jsonl").\nr(S, V) :- q(S, V).\n@output("r").\n')
        back = run("run", Path(d, "r.vada"))
        assert back.exit_code == 0, back.output
        want = chronolog.reason(facts + 'r(S, V) :- p(S, V).\n@output("r").\n').to_text()
        assert back.output.strip() == want.strip()
