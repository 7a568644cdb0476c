"""@bind CSV files read by Arrow kernels into columns
(connectors/csv_columns.py) against the row reader (connectors/csv_files.py):
the same facts, the same answers on both executors, and the same error, at
the same file:line:column, for a bad cell."""

from __future__ import annotations

import datetime
import random
import re
from fractions import Fraction

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.connectors import cell_types, csv_columns
from chronolog.connectors.csv_columns import read_csv_columns
from chronolog.connectors.csv_files import read_csv_facts

pytest.importorskip("pyarrow")

cells = st.one_of(
    st.integers(-5, 5).map(str),
    st.sampled_from(["1.50", "0.25", "-2.5", "1/3", "7", "x", "a b", "#T", " 3.0 "]),
    # names the kernels take as they are, and cells next to them that they must not:
    # blanks Python strips and a pattern's \s does not, words for infinity, sets
    st.sampled_from(["inf", "Infinity", "true", "A-1", "x.y", "n1", "a\x1c", "\xa0y", "y\xa0", "\u00e9t\u00e9",
                     "a\u3000", "{1}", "#t", "Z"]),
)


@pytest.fixture(autouse=True)
def small_files_too(monkeypatch):
    monkeypatch.setattr(csv_columns, "KERNEL_BYTES", 0)
    monkeypatch.setattr(csv_columns, "FEW_CELLS", 0)  # (the kernels' conversions of a few distinct cells too)


def write(path, header, rows):
    path.write_text("\n".join([",".join(header)] + [",".join(r) for r in rows]) + "\n")


@settings(deadline=None, max_examples=examples(60))
@given(st.lists(st.tuples(cells, cells, st.integers(0, 9), st.integers(1, 5), st.booleans(), st.booleans()), min_size=1, max_size=30))
def test_the_same_facts_as_the_row_reader(tmp_path_factory, rows):
    path = tmp_path_factory.mktemp("csv") / "p.csv"
    header = ["k", "v", "start", "end", "start_closed", "end_closed"]
    write(path, header, [(a, b, str(s), str(s + d), "true" if c1 else "false", "#T" if c2 else "#F") for a, b, s, d, c1, c2 in rows])
    mapping = {1: ("v", "double")} if all(_number(b) for _, b, *_ in rows) else {}
    fc = read_csv_columns(path, "p", {"useHeaders": "true"}, mapping, None)
    want = sorted(((f.terms, f.interval) for f in read_csv_facts(path, "p", None, {"useHeaders": "true"}, mapping, None)), key=repr)
    assert fc is not None
    got = fc.pred_rows("p")
    assert sorted(got, key=repr) == want
    assert [tuple(map(type, t)) for t, _ in sorted(got, key=repr)] == [tuple(map(type, t)) for t, _ in want]


def _number(cell):
    try:
        Fraction(cell.strip())
        return True
    except ValueError:
        return False


PROGRAM = """@timeGranularity("days").
@input("price"). @output("roll"). @output("month"). @output("big").
@bind("price", "csv useHeaders=true", "{d}", "prices.csv").
@mapping("price", 0, "series", "string").
@mapping("price", 1, "day", "int").
@mapping("price", 2, "value", "double").
@timeMapping("price", 3, 4, #T, #F).
roll(S, X) :- <->[0,4] price(S, D, V), X = sum(V), N = count(), N == 5.
month(S, X) :- /\\[months] price(S, D, V), X = avg(V).
big(S, D) :- price(S, D, V), V > 101.
"""


def prices(path, days=300, seed=5):
    import datetime

    rng = random.Random(seed)
    first = datetime.date(1999, 12, 20)
    lines = ["series,day,value,start,end"]
    for k in range(3):
        v = 10_000
        for d in range(days):
            a, b = first + datetime.timedelta(days=d), first + datetime.timedelta(days=d + 1)
            lines.append(f"s{k},{d},{v / 100:.2f},{a},{b}")
            v += rng.randint(-300, 300)
    path.write_text("\n".join(lines) + "\n")
    return lines


def test_bound_csv_answers_on_both_executors(tmp_path):
    prices(tmp_path / "prices.csv")
    program = PROGRAM.format(d=tmp_path)
    rows = chronolog.reason(program, engine="rows")
    cols = chronolog.reason(program, engine="columns")
    assert cols.to_text() == rows.to_text()
    assert set(cols.stats["executors"].values()) == {"columns"}
    cents = [int(ln.split(",")[2].replace(".", "")) for ln in prices(tmp_path / "x.csv")[1:301]]  # series s0
    sums = {Fraction(sum(cents[i : i + 5]), 100) for i in range(len(cents) - 4)}
    assert {x for (s, x), _ in cols.facts("roll") if s == "s0"} == sums


@pytest.mark.parametrize(
    "bad, col",
    [("12.3.4", 3), ("2000-13-01", 4), ("soon", 5), ("2000-01-01T", 5)],
)
def test_a_bad_cell_is_reported_where_it_is(tmp_path, bad, col):
    """(An empty end cell is no bad cell: it is unbounded, as a Parquet
    null is; see test_an_empty_end_cell_is_unbounded_as_a_parquet_null.)"""
    lines = prices(tmp_path / "prices.csv")
    parts = lines[200].split(",")
    parts[col - 1] = bad
    lines[200] = ",".join(parts)
    (tmp_path / "prices.csv").write_text("\n".join(lines) + "\n")
    errors = _errors_on_both(PROGRAM.format(d=tmp_path))
    assert f"prices.csv:201:{col}" in errors[1]


def _errors_on_both(program: str) -> list:
    """The DataError of ``program`` on rows and on columns, as text: the same."""
    errors = []
    for engine in ("rows", "columns"):
        with pytest.raises(chronolog.DataError) as e:
            chronolog.reason(program, engine=engine)
        errors.append(str(e.value))
    assert errors[0] == errors[1]
    return errors


@pytest.mark.parametrize("cell, says", [("1709272860", "'1709272860' is not a date"),
                                        ("2024-03-01T25:00:00", "'2024-03-01T25:00:00' is not a date"),
                                        ("", "the time point is empty")])
def test_a_bad_time_point_is_named_by_its_column(tmp_path, cell, says):
    """A column of time points placed by @timeMapping was named "column
    start" in the error, a column the file does not have; and epoch
    seconds on a date timeline were not told how to become dates."""
    rows = [f"m1,2024-03-01T10:{i:02d}:00,{70 + i}" for i in range(30)]
    rows[20] = f"m1,{cell},90"
    (tmp_path / "r.csv").write_text("machine,ts,temp\n" + "\n".join(rows) + "\n")
    program = (f'@timeGranularity("minutes").\n@bind("reading", "csv", "{tmp_path}", "r.csv").\n'
               '@timeMapping("reading", 1, 1).\nhot(M) :- reading(M, V), V > 80.\n')
    for engine in ("rows", "columns"):
        with pytest.raises(chronolog.DataError) as e:
            chronolog.reason(program, engine=engine)
        assert str(e.value).startswith(f"{tmp_path}/r.csv:22:2: data error: column ts: {says}")
        assert ("epoch seconds" in e.value.hint) == cell.isdigit()


@pytest.mark.parametrize("dated", [False, True])
@pytest.mark.parametrize("n", [40, 8000])
def test_an_empty_end_cell_is_unbounded_as_a_parquet_null(tmp_path, dated, n):
    """pandas' ``to_csv`` and DuckDB's ``COPY`` write a missing ``valid_to``
    (``<NA>``, ``NaT``, NULL: a slowly changing dimension's open row) as an
    empty cell; a bound CSV reads an empty start or end as unbounded, as
    the same table given in memory or as Parquet is, on both executors
    and both readers (8,000 rows: the kernels).  It was an error ("'' is
    not a number")."""
    import duckdb
    import pandas as pd

    rng = random.Random(n)
    starts = [rng.randint(0, 10**6) for _ in range(n)]
    ends = [None if i % 7 == 0 else s + rng.randint(1, 1000) for i, s in enumerate(starts)]
    starts = [None if i % 11 == 0 else s for i, s in enumerate(starts)]
    frame = pd.DataFrame({"k": [f"k{i % 50}" for i in range(n)], "start": pd.array(starts, dtype="Int64"),
                          "end": pd.array(ends, dtype="Int64")})
    head = ""
    if dated:
        head = '@timeGranularity("seconds").\n'
        for c in ("start", "end"):
            frame[c] = pd.to_datetime(frame[c], unit="s")  # (<NA> becomes NaT)
    frame.to_csv(tmp_path / "pandas.csv", index=False)
    duckdb.sql(f"COPY (SELECT * FROM frame) TO '{tmp_path / 'duck.csv'}' (HEADER)")
    frame.to_parquet(tmp_path / "p.parquet")
    assert ",\n" in (tmp_path / "pandas.csv").read_text() and ",\n" in (tmp_path / "duck.csv").read_text()
    rules = "q(K) :- <->[0,5] p(K).\nn(K) :- p(K), not [-][0,100] p(K).\n@output(\"q\"). @output(\"n\").\n"
    want = chronolog.reason(head + rules, {"p": frame}, engine="rows").to_text()
    assert "+inf)" in want and "(-inf," in want
    for name, kind in (("pandas.csv", "csv"), ("duck.csv", "csv"), ("p.parquet", "parquet")):
        program = head + f'@bind("p", "{kind}", "{tmp_path}", "{name}").\n' + rules
        for engine in ("rows", "columns"):
            assert chronolog.reason(program, engine=engine).to_text() == want, (name, engine)


def test_an_empty_time_point_is_refused_by_both_readers(tmp_path):
    """One column as both ends (@timeMapping(p, 1, 1)): an empty cell is a
    reading without a time, which holds at no time point: refused with
    its place by the row reader and the kernels alike."""
    lines = [f"m{i % 9},{i},{i % 100}" for i in range(8000)]
    lines[5000] = "m3,,50"
    (tmp_path / "r.csv").write_text("machine,t,temp\n" + "\n".join(lines) + "\n")
    program = (f'@bind("reading", "csv", "{tmp_path}", "r.csv").\n@timeMapping("reading", 1, 1).\n'
               "hot(M) :- reading(M, V), V > 80.\n")
    errors = _errors_on_both(program)
    assert errors[0].startswith(f"{tmp_path}/r.csv:5002:2: data error: column t: the time point is empty")
    assert "drop or fill those rows of reading" in errors[0]


def test_quotes_take_the_row_reader_and_blank_lines_the_kernels(tmp_path):
    p = tmp_path / "p.csv"
    p.write_text('k,start,end\n"a,b",1,2\n')  # a whole cell quoted: the kernels read it as the csv module does
    assert read_csv_columns(p, "p", {}, {}, None).pred_rows("p") == [(("a,b",), (1, 2, True, True))]
    p.write_text('k,start,end\n"a\nb",1,2\n')  # a newline inside quotes: the row reader
    assert read_csv_columns(p, "p", {}, {}, None) is None
    p.write_text('k,start,end\n"say ""hi""",1,2\n')  # an escaped quote: the row reader
    assert read_csv_columns(p, "p", {}, {}, None) is None
    p.write_text("k,start,end\na,1,2\n\nb,1,2\n")  # a blank line: skipped, as the row reader skips it
    assert read_csv_columns(p, "p", {}, {}, None).pred_rows("p") == [(("a",), (1, 2, True, True)), (("b",), (1, 2, True, True))]
    p.write_text("k,start,end\na,1,2\nb,3,2\n")  # an empty interval: the row reader names it
    assert read_csv_columns(p, "p", {}, {}, None) is None


@settings(deadline=None, max_examples=examples(60))
@given(
    st.lists(st.from_regex(r"-?[0-9]{1,6}(\.[0-9]{1,4})?", fullmatch=True), min_size=1, max_size=20, unique=True),
    st.sampled_from(["auto", "double", "int", "number"]),
)
def test_plain_decimals_convert_as_the_row_reader_does(tokens, kind):
    import pyarrow as pa

    from chronolog.connectors.csv_files import convert
    from chronolog.language import ast

    got = csv_columns._quick(pa.array(tokens), tokens, kind)
    if isinstance(got, tuple):  # exact decimals as (num, den) arrays: the same numbers as ints and Fractions
        from chronolog.engine.columns.exact_columns import python_values

        assert got[0] == "exact"
        got = python_values(got[1], got[2])
    want = [convert(t, kind, ast.NOWHERE, "c") for t in tokens]
    assert got == want and [type(v) for v in got] == [type(v) for v in want]


@settings(deadline=None, max_examples=examples(60))
@given(
    st.lists(st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False).map(repr), min_size=40, max_size=60, unique=True),
    st.lists(st.one_of(st.floats(allow_nan=False, allow_infinity=False).map(repr), st.from_regex(r"-?[0-9]{1,3}(\.[0-9]{18,22})?", fullmatch=True),
                       st.from_regex(r"-?[0-9]\.[0-9]{1,5}[eE][-+]?[0-9]{1,2}", fullmatch=True), st.sampled_from(["abc", "inf", "1/3"])),
             max_size=3, unique=True),
    st.sampled_from(["auto", "double", "number"]),
)
@example([repr(i * 1.37 + 0.1) for i in range(40)], ["1e-05", "0.020608071945532602", "-2.5E+3"], "auto")
def test_python_floats_beside_a_few_long_or_exponent_cells_convert_as_the_row_reader_does(plain, others, kind):
    """A column of Python's float texts (``repr``: 17 digits, ``1e-05``,
    18 after the point below 0.1), most plain decimals, a few not: typed
    by kernels as exact pairs where every value holds one (the few parsed
    one by one), else left to the row reader's conversion; either way the
    values it gives (a column of 1M such floats went cell by cell whole)."""
    import pyarrow as pa

    from chronolog.connectors.csv_files import convert
    from chronolog.engine.columns.exact_columns import python_values
    from chronolog.language import ast

    tokens = list(dict.fromkeys(plain + others))
    got = csv_columns._quick(pa.array(tokens), tokens, kind)
    try:
        want = [convert(t, kind, ast.NOWHERE, "c") for t in tokens]
    except chronolog.ChronologError:
        assert not isinstance(got, tuple)  # (a cell no number kind takes: the row reader names it)
        return
    if isinstance(got, tuple):
        got = python_values(got[1], got[2])
        assert got == want and [type(v) for v in got] == [type(v) for v in want]
    else:  # (left to the rows only where some value is no 64-bit pair: a name, an infinity, a denominator past 2**63)
        assert not all(type(v) in (int, Fraction) and -(2**63) <= Fraction(v).numerator < 2**63 and Fraction(v).denominator < 2**63
                       for v in want)


@settings(deadline=None, max_examples=examples(60))
@given(st.lists(st.one_of(st.from_regex(r"-?[0-9]{1,20}(\.[0-9]{1,20})?", fullmatch=True),
                          st.sampled_from(["+inf", "-inf", "1/3", " 7", "1e3", "+5", ".5", "5.", "-0.0", "2020-01-01"])),
                min_size=1, max_size=20, unique=True))
def test_time_cells_typed_by_kernels_are_the_row_readers_time_points(tokens):
    """The start and end cells both readers type by kernels (plain integers
    and decimals of up to 18 digits) get ``convert``'s time point; the
    others are left to it (None)."""
    import re

    import pyarrow as pa

    from chronolog.connectors.csv_files import convert
    from chronolog.language import ast

    got = cell_types.time_points(pa.array(tokens), None)
    for tok, v in zip(tokens, got):
        plain = re.fullmatch(r"-?[0-9]{1,18}", tok) or re.fullmatch(r"-?[0-9]{1,17}\.[0-9]{1,17}", tok)
        assert v is None if not plain else (v is not None or len(tok.lstrip("-")) > 18), tok
        if v is not None:
            want = convert(tok, "time", ast.NOWHERE, "start")
            assert v == want and type(v) is type(want), tok


@settings(deadline=None, max_examples=examples(40))
@given(st.lists(st.dates(), min_size=1, max_size=20, unique=True), st.sampled_from(["days", "hours"]))
@example([datetime.date(1, 1, 1), datetime.date(9999, 12, 31), datetime.date(2024, 2, 29)], "days")
def test_iso_dates_convert_as_the_row_reader_does(tmp_path_factory, dates, unit):
    """The dates polars reads are the ones ``convert`` reads; those it
    leaves (years 1 and 9999) ``convert`` reads, and a file of them reads
    alike on rows and columns."""
    import pyarrow as pa

    from chronolog.connectors.csv_files import convert
    from chronolog.language import ast
    from chronolog.language.dates import Calendar

    tokens = [d.isoformat() for d in dates]
    cal = Calendar(unit)
    got = cell_types.time_points(pa.array(tokens), cal)
    want = [convert(t, "time", ast.NOWHERE, "start", cal) for t in tokens]
    # (years 1 and 9999 are left to convert, cell by cell: Calendar.whole_points_where reads years 2 to 9998)
    assert [g is None for g in got] == [not 2 <= d.year <= 9998 for d in dates]
    assert [(g, type(g)) for g in got if g is not None] == [(w, type(w)) for g, w in zip(got, want) if g is not None]
    folder = tmp_path_factory.mktemp("dates")
    (folder / "p.csv").write_text("k,start,end\n" + "".join(f"k{i},{t},{t}\n" for i, t in enumerate(tokens)))
    program = (f'@timeGranularity("{unit}").\n@bind("p", "csv", "{folder}", "p.csv").\n@timeMapping("p", 1, 2).\n'
               'q(K) :- p(K).\n@output("q").\n')
    assert chronolog.reason(program, engine="columns").to_text() == chronolog.reason(program, engine="rows").to_text()


def test_ends_on_another_grid_than_the_starts_stay_on_columns(tmp_path):
    """The run's time scale sees the ends too (one array of distinct time
    values for both columns, as the fact reader's)."""
    p = tmp_path / "p.csv"
    p.write_text("k,v,start,end\n" + "".join(f"k{i % 7},{i},{i},{3 * i + 1}/3\n" for i in range(200)))  # [i, i+1/3]
    program = f'@bind("p", "csv", "{tmp_path}", "p.csv").\nq(K, S) :- <->[0,1] p(K, V), S = sum(V).\n'
    rows = chronolog.reason(program, engine="rows")
    cols = chronolog.reason(program, engine="columns")
    assert cols.to_text() == rows.to_text()
    assert set(cols.stats["executors"].values()) == {"columns"}, cols.stats.get("fallbacks")


float_cells = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.from_regex(r"[-+]?([0-9]{1,20}(\.[0-9]{0,20})?|\.[0-9]{1,20})([eE][-+]?[0-9]{1,3})?", fullmatch=True),
    st.sampled_from(["inf", "-inf", "+inf", "Infinity", "nan", "-nan", "NaN", "1_000", "\u0661\u0662", "0x10", " 1.5", "1.5\t",
                     "1e", "", "1", "1.2.3", "--1", "1e400", "4.9e-325", "-0", "-0.0"]),
)


def _same_rows(path, mapping, tm=None, cal=None):
    """The kernel reader's facts of ``path`` against the row reader's: the
    same terms (of the same types; floats and their signs bit for bit,
    NaN as NaN), or the row reader's error where the kernels declined."""
    from chronolog.language.errors import DataError

    try:
        want = [(f.terms, f.interval) for f in read_csv_facts(path, "p", None, {"useHeaders": "true"}, mapping, tm, cal)]
    except DataError:
        assert read_csv_columns(path, "p", {"useHeaders": "true"}, mapping, tm, cal) is None
        return
    fc = read_csv_columns(path, "p", {"useHeaders": "true"}, mapping, tm, cal)
    assert fc is not None
    got = fc.pred_rows("p")
    assert [(tuple(map(repr, t)), iv) for t, iv in got] == [(tuple(map(repr, t)), iv) for t, iv in want]
    assert [tuple(map(type, t)) for t, _ in got] == [tuple(map(type, t)) for t, _ in want]


@settings(deadline=None, max_examples=examples(200))
@given(st.lists(float_cells, min_size=1, max_size=20), st.lists(st.integers(-(2**63), 2**63 - 1).map(str) | st.sampled_from(["007", "-0", "0x1f", "+5", " 5", "1e3", "9" * 20]), min_size=1, max_size=20))
def test_float_and_int_columns_parsed_by_the_reader_read_as_the_row_reader(tmp_path_factory, floats, ints):
    """``"float"`` and ``"int"`` columns are parsed by Arrow's CSV reader
    (csv_columns._arrow_types): every cell it takes has ``float()``'s or
    ``parse_number``'s value, the others go the strings' way (or to the row
    reader's error)."""
    path = tmp_path_factory.mktemp("csv") / "p.csv"
    rows = [(f, ints[i % len(ints)], str(i), str(i + 1)) for i, f in enumerate(floats)]
    write(path, ["f", "i", "start", "end"], rows)
    _same_rows(path, {0: ("f", "float"), 1: ("i", "int")})


@pytest.mark.parametrize("cell", ["inf", "-nan", "1_000", "\u0661\u0662", "0x10", " 1.5", "+1.5", "1e400", "-0", ""])
@pytest.mark.parametrize("kind", ["float", "int"])
def test_cells_the_parsers_read_differently(tmp_path, cell, kind):
    """The cells where Arrow's parsers and ``float()``/``parse_number``
    part ways (hexadecimal ints, digit separators, Arabic-Indic digits, a
    plus sign...), many rows of them beside plain ones."""
    path = tmp_path / "p.csv"
    write(path, ["v", "start", "end"], [("7" if i % 5 else cell, str(i), str(i + 1)) for i in range(50)])
    _same_rows(path, {0: ("v", kind)})


@settings(deadline=None, max_examples=examples(60))
@given(st.lists(st.dates() | st.sampled_from(["+inf", "-inf", "2020-02-30", " 2020-01-01", "2020-1-1", "2020-01-01T12:00:00"]), min_size=1, max_size=20),
       st.sampled_from(["days", "hours"]))
def test_dates_parsed_by_the_reader_read_as_the_row_reader(tmp_path_factory, dates, unit):
    from chronolog.language.dates import Calendar

    path = tmp_path_factory.mktemp("csv") / "p.csv"
    cells = [d if isinstance(d, str) else d.isoformat() for d in dates]
    rows = [("s" + str(i % 3), lo if lo != "+inf" else "-inf", hi if hi != "-inf" else "+inf") for i, (lo, hi) in enumerate(zip(cells, cells[1:] + ["+inf"]))]
    write(path, ["k", "start", "end"], rows)
    _same_rows(path, {0: ("k", "string")}, cal=Calendar(unit))
    program = (f'@timeGranularity("{unit}").\n@bind("p", "csv", "{path.parent}", "p.csv").\n@timeMapping("p", 1, 2).\n'
               'q(K) :- <->[0,1] p(K).\nr(K) :- p(K), p(J), K != J.\n@output("q"). @output("r").\n')
    try:
        want = chronolog.reason(program, engine="rows")
    except chronolog.ChronologError:
        return  # (a bad cell: the reader's error, checked above)
    got = chronolog.reason(program, engine="columns")
    assert got.to_text() == want.to_text()
    for pred in ("q", "r"):
        assert got.to_arrow(pred).equals(want.to_arrow(pred))


@pytest.mark.parametrize(
    "cell, message",
    [("1.5x", "'1.5x' is not a number")]
    # a NaN equals nothing, itself included: read as a term, two NaN facts
    # neither merged on rows nor joined (`V == W`), but did on columns' codes
    + [(nan, f"{nan!r} is not a number that equals itself (NaN)") for nan in ("nan", "NaN", "-nan", "+NAN")],
)
def test_a_bad_float_cell_is_reported_where_it_is(tmp_path, cell, message):
    lines = prices(tmp_path / "prices.csv")
    parts = lines[120].split(",")
    parts[2] = cell
    lines[120] = ",".join(parts)
    (tmp_path / "prices.csv").write_text("\n".join(lines) + "\n")
    program = PROGRAM.format(d=tmp_path).replace('"value", "double"', '"value", "float"')
    errors = []
    for engine in ("rows", "columns"):
        with pytest.raises(chronolog.DataError) as e:
            chronolog.reason(program, engine=engine)
        errors.append(str(e.value))
    assert errors[0] == errors[1]
    assert "prices.csv:121:3" in errors[1] and message in errors[1]


@pytest.mark.parametrize(
    "text",
    [
        "k,start,end\na,1,2\n\nb,1,2\n",
        "k,start,end\na,1,2\nb,1,2\n\n",
        "k,start,end\r\na,1,2\r\n\r\nb,1,2\r\n",
        "k,start,end\na,1,2\n \t\nb,1,2\n",
        "k,start,end\na,1,2\n , \nb,1,2\n",
        "\nk,start,end\na,1,2\n",
    ],
)
def test_blank_lines_read_as_the_row_reader(tmp_path, text):
    """A line of blanks (skipped by the row reader, counted in its line
    numbers) is skipped by the kernels too (it sent the whole file to the
    row reader); before the header the row reader looks for the header: the
    file is its.  Both executors answer as the rows do, and the facts are
    the file's."""
    p = tmp_path / "p.csv"
    p.write_bytes(text.encode())
    fc = read_csv_columns(p, "p", {"useHeaders": "true"}, {}, None)
    if text.startswith("\n"):
        assert fc is None
    else:
        want = read_csv_facts(p, "p", None, {"useHeaders": "true"}, {}, None)
        assert fc.pred_rows("p") == [(f.terms, f.interval) for f in want]
        assert fc.positions["p"] == want[0].pos
    program = f'@bind("p", "csv useHeaders=true", "{tmp_path}", "p.csv").\nq(K) :- p(K).\n'
    rows = chronolog.reason(program, engine="rows").to_text()
    assert chronolog.reason(program, engine="columns").to_text() == rows
    assert rows == ("q(a)@[1,2]\nq(b)@[1,2]" if "b," in text else "q(a)@[1,2]")


@pytest.mark.parametrize(
    "text, where, message",
    [
        ("k,start,end\na,1,2\nb,1,2,3\n", "p.csv:3:4", "the row has 4 columns but the header names 3"),
        ("k,start,end\na,1,2\nb,1\n", "p.csv:3:4", "the row has 2 columns but the header names 3"),
        # (the closedness columns named, the row without them: IndexError)
        ("k,start,end,start_closed,end_closed\na,1,2,#T,#F\nb,1,2\n", "p.csv:3:6", "the row has 3 columns but the header names 5"),
        ("k,start,end\r\na,1,2\r\nb,1\r\n", "p.csv:3:4", "the row has 2 columns but the header names 3"),
        # a quote never closed: the rest of the file one cell ("the row has one column")
        ('k,start,end\na,1,2\n"b,1,2\n', "p.csv:3:1", "a quoted cell is never closed"),
        ('k,start,end\na,1,2\nb, "x,1,2\nc,1,2\n', "p.csv:3:4", "a quoted cell is never closed"),
        # ... in a large file past the csv module's field limit (an internal error)
        ('k,start,end\na,1,2\n"b,1,2\n' + "c,1,2\n" * 30_000, "p.csv:3:1", "a quoted cell is never closed"),
        # ... in the header: the file read as its header, no facts and no word
        ('"k,start,end\na,1,2\nb,1,2\n', "p.csv:1:1", "a quoted cell is never closed"),
        ('\n"k,start,end\na,1,2\n' + "c,1,2\n" * 30_000, "p.csv:2:1", "a quoted cell is never closed"),
    ],
)
def test_ragged_rows_are_reported_where_they_are(tmp_path, text, where, message):
    """A row longer or shorter than the header, or one whose quote never
    closes: one sentence with the file, line and column, from both
    executors (a longer row raised IndexError)."""
    (tmp_path / "p.csv").write_text(text)
    program = f'@bind("p", "csv useHeaders=true", "{tmp_path}", "p.csv").\nq(K) :- p(K).\n'
    for engine in ("rows", "columns"):
        with pytest.raises(chronolog.DataError) as e:
            chronolog.reason(program, engine=engine)
        assert where in str(e.value) and message in str(e.value)


@pytest.mark.parametrize("cell", ["", " a ", "a b", "1.5", "#T", "\u00e9t\u00e9", "a\x1c", "\xa0a", "a\u3000", "{1}", "inf"])
def test_string_columns_parsed_by_the_reader_read_as_the_row_reader(tmp_path, cell):
    """A ``"string"`` column read dictionary-encoded by Arrow's reader: an
    empty cell, spaces around a name, a number or a boolean's text stay the
    row reader's strings."""
    path = tmp_path / "p.csv"
    write(path, ["k", "v", "start", "end"], [(cell if i % 3 else "x", str(i % 4), str(i), str(i + 1)) for i in range(40)])
    _same_rows(path, {0: ("k", "string"), 1: ("v", "float")})


time_cells = st.one_of(
    st.integers(-3, 3).map(str),
    st.tuples(st.integers(-3, 3), st.integers(0, 999)).map(lambda p: f"{p[0]}.{p[1]:03d}"),
    st.sampled_from(["-inf", "+inf", "inf", "1/3", "-2/7", "0.5", "0.50", "9" * 25, "-" + "9" * 25, "1e2"]),
)


@settings(deadline=None, max_examples=examples(150))
@given(st.lists(st.tuples(time_cells, time_cells, st.booleans(), st.booleans()), min_size=1, max_size=25))
def test_times_off_the_integer_grid_read_as_the_row_reader(tmp_path_factory, rows):
    """Decimal, rational, huge and infinite times, intervals empty or not:
    the interval checks by exact keys (cell_types.time_keys, or make
    where the keys do not fit) keep or decline what the row reader does."""
    path = tmp_path_factory.mktemp("csv") / "p.csv"
    write(path, ["k", "start", "end", "start_closed", "end_closed"],
          [(f"n{i % 3}", s, e, str(c1).lower(), str(c2).lower()) for i, (s, e, c1, c2) in enumerate(rows)])
    _same_rows(path, {})


def test_time_keys_order_exactly():
    """Keys of times 1e-15 apart, ±inf and ints beside Fractions order as the values do."""
    import numpy as np
    from types import SimpleNamespace

    vals = [Fraction(1, 3), 0, float("inf"), Fraction(10**15 + 1, 10**15), float("-inf"), 1, Fraction(-7, 2)]
    keys, finite = cell_types.time_keys(SimpleNamespace(values=np.array(vals, dtype=object), ints=None))
    assert sorted(range(len(vals)), key=keys.__getitem__) == sorted(range(len(vals)), key=vals.__getitem__)
    assert finite.tolist() == [True, True, False, True, False, True, True]
    assert cell_types.time_keys(SimpleNamespace(values=np.array([Fraction(1, 3), 2**70], dtype=object), ints=None)) is None


quoted_cells = st.one_of(
    st.sampled_from(["a", "n1", "7", "-2.5", "1/3", "x y", "", " b"]).map(lambda c: f'"{c}"'),
    st.sampled_from(['"a,b"', '"say ""hi"""', 'a"b', '"a"b', ' "a"', '"a" ', '"two\nlines"', '"', "7", "n2"]),
)


@settings(deadline=None, max_examples=examples(150))
@given(st.lists(st.tuples(quoted_cells, st.integers(0, 9), st.integers(1, 5), st.booleans()), min_size=1, max_size=20),
       st.booleans())
def test_quoted_cells_read_as_the_row_reader(tmp_path_factory, rows, quote_header):
    """Cells in quotes: the kernels read a file whose quotes each wrap a
    whole cell of one line (the csv module's reading: the text between
    them), and decline any other quote (an escaped one, one inside a cell,
    a newline inside quotes, a blank at an end inside quotes) for the row
    reader."""
    from chronolog.language.errors import DataError

    path = tmp_path_factory.mktemp("csv") / "p.csv"
    header = ['"k"', '"start"', "end"] if quote_header else ["k", "start", "end"]
    text = "\n".join([",".join(header)] + [f'{c},{s},{"%s" % (s + d) if not q else chr(34) + str(s + d) + chr(34)}' for c, s, d, q in rows]) + "\n"
    path.write_text(text)
    plain = all(c.startswith('"') and c.endswith('"') and '"' not in c[1:-1] and "\n" not in c and len(c) > 1
                and c[1:-1].strip() == c[1:-1] or '"' not in c  # (a quoted blank at an end is kept: the csv module's)
                for c, *_ in rows)
    got = read_csv_columns(path, "p", {"useHeaders": "true"}, {}, None)
    try:
        want = [(f.terms, f.interval) for f in read_csv_facts(path, "p", None, {"useHeaders": "true"}, {}, None)]
    except DataError:
        assert got is None
        return
    if plain:
        assert got is not None
    if got is not None:
        rows_got = got.pred_rows("p")
        assert [(tuple(map(repr, t)), iv) for t, iv in rows_got] == [(tuple(map(repr, t)), iv) for t, iv in want]


def test_a_quoted_file_stays_on_the_kernels(tmp_path):
    """A file whose string cells are all quoted, as many exporters write it, is read by the kernels."""
    path = tmp_path / "p.csv"
    path.write_text('"name","val","s","e"\n' + "".join(f'"n{i % 7}",{i},{i},{i + 3}\n' for i in range(50)))
    got = read_csv_columns(path, "p", {"useHeaders": "true"}, {}, (2, 3, True, True))
    want = [(f.terms, f.interval) for f in read_csv_facts(path, "p", None, {"useHeaders": "true"}, {}, (2, 3, True, True))]
    assert got is not None and got.pred_rows("p") == want
    assert want[0] == (("n0", 0), (0, 3, True, True))


def test_every_mapping_type_the_program_accepts_is_one_the_readers_read():
    """The program check (planner/validate.py) kept its own list of the
    @mapping types beside the readers' tuples: one list now
    (language/mapping_types.py); each type in it reads cells its own way."""
    import datetime as dt

    from chronolog.connectors.csv_files import convert
    from chronolog.language import ast
    from chronolog.language.booleans import TRUE
    from chronolog.language.errors import DataError
    from chronolog.language.mapping_types import MAPPING_TYPES

    at = ast.Pos("t.csv", 2, 1)
    read = {kind: convert("007", kind, at, "c0") if kind not in ("bool", "boolean", "date", "datetime", "timestamp") else None
            for kind in MAPPING_TYPES}
    assert {k: v for k, v in read.items() if v == "007"} == {"string": "007", "str": "007"}
    assert {k for k, v in read.items() if type(v) is int and v == 7} == {"int", "integer", "long", "double", "number", "decimal"}
    assert type(read["float"]) is float and read["float"] == 7.0
    for kind in ("int", "integer", "long", "double", "number", "decimal", "float"):
        with pytest.raises(DataError, match="is not a number"):
            convert("x", kind, at, "c0")
    assert [convert("yes", k, at, "c0") for k in ("bool", "boolean")] == [TRUE, TRUE]
    assert {convert("2020-01-31", k, at, "c0") for k in ("date", "datetime", "timestamp")} == {dt.datetime(2020, 1, 31)}
    assert convert("007", "strng", at, "c0") == 7  # (not a type: read as untyped, and the program check refuses it)


@pytest.mark.parametrize("cell, why", [("1/0", "division by zero in '1/0'"),
                                       ("1e99999", "the exponent of '1e99999' is beyond ±1000"),
                                       ("9" * 1200, "has more than 1000 digits")])
def test_a_number_no_exact_value_holds_is_refused_not_read_as_a_name(tmp_path, cell, why):
    """An untyped cell ``1/0`` or ``1e99999`` read as the string "1/0"
    (a name that no number in a rule would ever meet), and in a time column
    said only "is not a number": both readers say what the program's reader
    says of the same text; a column mapped string keeps it."""
    from unittest import mock

    rows = "".join(f"{cell},{i},{i + 1}\n" if i == 7 else f"a{i},{i},{i + 1}\n" for i in range(10))
    (tmp_path / "p.csv").write_text("v,start,end\n" + rows)
    (tmp_path / "t.csv").write_text("v,start,end\n" + rows.replace(f"{cell},7,", f"a,{cell},"))
    prog = '@bind("p", "csv", ".", "p.csv"). @bind("t", "csv", ".", "t.csv"). q(X) :- p(X). r(X) :- t(X).\n'
    (tmp_path / "p.vada").write_text(prog)
    for kernel in (csv_columns.KERNEL_BYTES, 0):
        with mock.patch.object(csv_columns, "KERNEL_BYTES", kernel):
            for engine in ("rows", "columns"):
                with pytest.raises(chronolog.DataError) as e:
                    chronolog.reason(tmp_path / "p.vada", engine=engine)
                assert why in e.value.message and e.value.pos.line == 9, e.value
    (tmp_path / "s.vada").write_text('@bind("p", "csv", ".", "p.csv"). @mapping("p", 0, "v", "string"). q(X) :- p(X).\n')
    assert ((cell,), (7, 8, True, True)) in chronolog.reason(tmp_path / "s.vada").facts("q")


def test_a_decimal_of_many_digits_leaves_the_others_typed_by_kernels():
    """A time cell of more than 18 digits is ``convert``'s; the other
    decimals of the column are still typed by the kernels, cell by cell
    (all of them were left to ``convert``; found at the thorough tier)."""
    import pyarrow as pa

    from chronolog.connectors.csv_files import convert
    from chronolog.language import ast

    tokens = ["0.0", "100000000.00000000000", "-2.5", "7", "-12345678901234567.8"]
    got = cell_types.time_points(pa.array(tokens), None)
    want = [convert(t, "time", ast.NOWHERE, "start") for t in tokens]
    assert got[0] == want[0] == 0 and got[2] == want[2] and got[3] == want[3] and got[4] == want[4]
    assert [type(v) for v in (got[0], got[2], got[3], got[4])] == [type(v) for v in (want[0], want[2], want[3], want[4])]
    assert got[1] is None


_BLANK_LINES = ["", " ", "\t", ",,", " , ,\t", '"",""', ",,,,,,", "   ,", '""', ",,,"]
_RAGGED = ["x,1,2,3,4", "x,1,2", "x", 'x,"1,2",3', "x,1,2,3,", ",1,2", '"a,b",1,2,3,4']


@settings(deadline=None, max_examples=examples(150))
@given(st.lists(st.tuples(st.sampled_from(["a", "b c", '"x,y"', "n1", '""']), st.integers(0, 9), st.integers(0, 9), st.integers(1, 5)),
                min_size=1, max_size=30),
       st.lists(st.tuples(st.integers(0, 40), st.sampled_from(_BLANK_LINES)), max_size=5),
       st.none() | st.tuples(st.integers(0, 40), st.sampled_from(_RAGGED)),
       st.booleans())
def test_lines_of_blanks_and_ragged_rows_read_as_the_row_reader(tmp_path_factory, rows, blanks, ragged, crlf):
    """Lines of blanks (skipped by the row reader) and a row of more or
    fewer cells than the header (its error, commas inside quotes not
    counted) sent the whole file to the row reader: the kernels now skip
    the one and report the other, the row reader's very facts and error."""
    path = tmp_path_factory.mktemp("csv") / "p.csv"
    lines = [f"{k},{v},{s},{s + d}" for k, v, s, d in rows]
    for at, text in blanks:
        lines.insert(min(at, len(lines)), text)
    if ragged is not None:
        lines.insert(min(ragged[0], len(lines)), ragged[1])
    end = "\r\n" if crlf else "\n"
    path.write_bytes(end.join(["k,v,start,end"] + lines).encode() + end.encode())
    try:
        want = [(f.terms, f.interval) for f in read_csv_facts(path, "p", None, {"useHeaders": "true"}, {}, None)]
    except chronolog.DataError as e:
        want = str(e)
    try:
        fc = read_csv_columns(path, "p", {"useHeaders": "true"}, {}, None)
        got = None if fc is None else fc.pred_rows("p")
    except chronolog.DataError as e:
        got = str(e)
    assert got == want or (want == [] and got is None)  # (no row: the row reader's)


@pytest.mark.parametrize("last", ["x,1,2,3,4", "x,1,2", "x", "x;1;2;3"])
def test_a_ragged_last_row_of_a_large_file_is_reported_by_the_kernels(tmp_path, monkeypatch, last):
    """A ragged row sent the whole file to the row reader just to report it
    (1M rows: seconds of CPU): the kernels read the rows before it and the
    row reader reads that row alone, to the same error; lines of blanks
    before it are counted in its line."""
    monkeypatch.undo()  # (the kernels' size, as a user's file meets it)
    path = tmp_path / "p.csv"
    text = "k,v,start,end\n" + "".join(f"n{i % 50},{i % 7},{i},{i + 3}\n" + ("\n , ,\n" if i % 1000 == 0 else "") for i in range(5000)) + last + "\n"
    path.write_text(text)
    assert path.stat().st_size >= 1 << 16
    with pytest.raises(chronolog.DataError) as row:
        read_csv_facts(path, "p", None, {"useHeaders": "true"}, {}, None)
    with pytest.raises(chronolog.DataError) as kernels:
        read_csv_columns(path, "p", {"useHeaders": "true"}, {}, None)
    assert str(kernels.value) == str(row.value) and kernels.value.pos.line == 5000 + 2 * 5 + 2
    program = f'@bind("p", "csv useHeaders=true", "{tmp_path}", "p.csv").\nq(K) :- p(K, V).\n'
    with pytest.raises(chronolog.DataError) as run:
        chronolog.reason(program, engine="columns")
    assert str(run.value) == str(row.value)


plain_date_cells = st.one_of(
    st.datetimes(min_value=datetime.datetime(1, 1, 1), max_value=datetime.datetime(9999, 12, 31, 23, 59, 59)).map(
        lambda d: d.isoformat(timespec="seconds") if d.second else d.strftime("%Y-%m-%dT%H:%M")),
    st.dates().map(lambda d: d.isoformat()),
)
other_date_cells = st.sampled_from(["2020-02-30", "2020-13-01", "0000-01-01", "2020-01-31T24:00", "2020-01-31T23:59:60",
                                    "2020-01-31T12:30:00.5", "2020-01-31 12:30", "2020-01-31T12:30Z", " 2020-01-01", "2020-1-1"])


@settings(deadline=None, max_examples=examples(60))
@given(st.lists(plain_date_cells, min_size=1, max_size=20), st.none() | other_date_cells)
def test_date_values_read_by_arrow_are_the_row_readers(tmp_path_factory, cells, other):
    """A column mapped ``date`` whose cells are plain ISO dates or datetimes
    (years 1..9999, to the second, no zone) is read by Arrow's cast: the
    same naive datetimes as the row reader's, which reads (or refuses)
    every other form, a zone, a fraction of a second, a day out of range."""
    path = tmp_path_factory.mktemp("csv") / "p.csv"
    cells = cells + ([other] if other is not None else [])
    write(path, ["k", "d", "start", "end"], [("s" + str(i % 3), c, str(i), str(i + 1)) for i, c in enumerate(cells)])
    _same_rows(path, {0: ("k", "string"), 1: ("d", "date")})


_ODD_TIMES = ["2020-12-31T23:59:60", "2020-01-01T24:00", "2020-01-01T10:00:00.0005", "2020-01-01T10:00:00+02:00",
              "0001-01-01T00:00:00", "9999-12-31T23:59:59", "2020-02-30T00:00", " 2020-01-01T00:00", "+inf"]


@settings(deadline=None, max_examples=examples(60))
@given(st.lists(st.datetimes(datetime.datetime(1000, 1, 1), datetime.datetime(9998, 12, 31)), min_size=1, max_size=20),
       st.sampled_from(["milliseconds", "seconds", "minutes", "hours", "days"]), st.lists(st.sampled_from(_ODD_TIMES), max_size=1),
       st.booleans(), st.data())
def test_date_times_parsed_by_polars_read_as_the_row_reader(tmp_path_factory, stamps, unit, odd, on_units, data):
    """Dates and date-times to the minute, second or a fraction (``T`` or a
    space; ``Z``, no zone or an offset) are parsed by polars
    (``Calendar.micros_where``): all of a file's in whole units as int64,
    points between units as fractions over one denominator; a leap second,
    a year at Python's limits or a day past its month's end: the cell by
    cell reading (or its error), as the row reader's.  A program over the
    file answers alike on rows and columns (its text and Arrow table)."""
    from chronolog.language.dates import Calendar

    path = tmp_path_factory.mktemp("csv") / "p.csv"
    forms = ["%Y-%m-%dT%H:%M:%S.%f", "%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M:%SZ",
             "%Y-%m-%d %H:%M:%S+00:00", "%Y-%m-%dT%H:%M", "%Y-%m-%d"]
    whole = {"milliseconds": {}, "seconds": {"microsecond": 0}, "minutes": {"second": 0, "microsecond": 0},
             "hours": {"minute": 0, "second": 0, "microsecond": 0},
             "days": {"hour": 0, "minute": 0, "second": 0, "microsecond": 0}}[unit] if on_units else {}
    cells = sorted(s.replace(microsecond=s.microsecond // 1000 * 1000).replace(**whole) for s in stamps)
    cells = [c.strftime(data.draw(st.sampled_from(forms[:2] if c.microsecond else forms[:5] if c.second
                                                  else forms[:6] if c.hour or c.minute else forms)))
             for c in cells] + odd
    last = "+inf" if odd else (max(stamps).replace(microsecond=0).replace(**whole) + datetime.timedelta(days=1)).strftime(forms[2])
    rows = [("s" + str(i % 3), lo, hi) for i, (lo, hi) in enumerate(zip(cells, cells[1:] + [last]))]
    write(path, ["k", "start", "end"], rows)
    _same_rows(path, {0: ("k", "string")}, cal=Calendar(unit))


def _tick_file(path, millis, form):
    """A CSV file of quotes at the instants ``millis`` (milliseconds after
    2024-03-01T09:30), written in the strftime ``form``."""
    base = datetime.datetime(2024, 3, 1, 9, 30)
    stamps = [base + datetime.timedelta(milliseconds=m) for m in millis]
    write(path, ["s", "v", "t"], [(f"s{i % 3}", str(i), t.strftime(form)) for i, t in enumerate(stamps)])


def _as_of(folder, unit):
    return (f'@timeGranularity("{unit}").\n@bind("quote", "csv useHeaders=true", "{folder}", "q.csv").\n'
            '@timeMapping("quote", 2, 2).\n@output("held"). @output("last").\n'
            'quoted(S) :- quote(S, V).\nheld(S, V) :- <->[0,1] quote(S, V).\n'
            'last(S, V) :- quote(S, V), not <->(0,1] quoted(S).\n'
            'sym(s0)@[2024-03-01,2024-03-05]. sym(s1)@[2024-03-01,2024-03-05]. sym(s2)@[2024-03-01,2024-03-05].\n')


@settings(deadline=None, max_examples=examples(40))
@given(st.lists(st.integers(0, 3 * 86_400_000), min_size=1, max_size=200, unique=True),
       st.sampled_from(["seconds", "minutes", "hours", "days"]),
       st.sampled_from(["%Y-%m-%dT%H:%M:%S.%f", "%Y-%m-%d %H:%M:%S.%fZ", "%Y-%m-%dT%H:%M:%S"]))
def test_ticks_between_the_units_answer_as_the_rows(tmp_path_factory, millis, unit, form):
    """Ticks to the millisecond (or second) on a timeline of coarser units,
    read by polars as fractions over one denominator: the answers (text,
    Arrow) are the row reader's."""
    folder = tmp_path_factory.mktemp("ticks")
    _tick_file(folder / "q.csv", millis, form)
    want = chronolog.reason(_as_of(folder, unit), engine="rows")
    got = chronolog.reason(_as_of(folder, unit), engine="columns")
    assert got.to_text() == want.to_text()
    for pred in ("held", "last"):
        assert got.to_arrow(pred).equals(want.to_arrow(pred))


@pytest.mark.parametrize("form", ["dated", "decimal"])
def test_the_command_writes_ticks_between_the_units_as_the_rows(tmp_path, form):
    """``chronolog run --output`` of 5,000 ticks to the millisecond, ISO
    date-times on a timeline of minutes or decimal epoch seconds: the CSV
    files of the columns are the rows' byte for byte (each end written to
    the millisecond)."""
    import subprocess
    import sys

    rng = random.Random(7)
    millis = rng.sample(range(86_400_000), 5000)
    if form == "dated":
        _tick_file(tmp_path / "q.csv", millis, "%Y-%m-%dT%H:%M:%S.%f")
        (tmp_path / "p.vada").write_text(_as_of(tmp_path, "minutes"))
        end = r"2024-03-0\dT[\d:]+(\.\d+)?"
    else:
        write(tmp_path / "q.csv", ["s", "v", "t"], [(f"s{i % 3}", str(i), f"{1709285400 + m // 1000}.{m % 1000:03d}") for i, m in enumerate(millis)])
        (tmp_path / "p.vada").write_text(_as_of(tmp_path, "minutes").replace('@timeGranularity("minutes").\n', "").replace("2024-03-01", "0").replace("2024-03-05", "1709500000"))
        end = r"17\d{8}(\.\d+)?"
    outs = {}
    for engine in ("rows", "columns"):
        r = subprocess.run([sys.executable, "-m", "chronolog", "run", str(tmp_path / "p.vada"), "--engine", engine,
                            "--output", str(tmp_path / engine)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        outs[engine] = ((tmp_path / engine / "held.csv").read_bytes(), (tmp_path / engine / "last.csv").read_bytes())
    assert outs["columns"] == outs["rows"]
    held = outs["rows"][0].decode().splitlines()
    assert len(held) == 5001 and all(re.fullmatch(rf"s\d,\d+,{end},{end},true,true", h) for h in held[1:])
    assert any("." in h for h in held[1:])


@settings(deadline=None, max_examples=examples(40))
@given(st.lists(st.tuples(st.integers(-10**12, 10**12), st.sampled_from([0, 1, 2, 3, 6])), min_size=1, max_size=150),
       st.sampled_from(["[0,1]", "[0,0.25]", "(0,2]"]))
def test_decimal_times_answer_as_the_rows(tmp_path_factory, times, window):
    """Decimal time points (epoch seconds to the millisecond, tenths,
    negatives, whole numbers among them) read by kernels as fractions over
    one denominator and printed and typed by numpy and polars: the
    answers' text and Arrow table (decimal128 where every end has finite
    decimals) are the row reader's."""
    folder = tmp_path_factory.mktemp("decimals")
    cells = [f"{'-' if n < 0 else ''}{abs(n) // 10**k}" + (f".{abs(n) % 10**k:0{k}d}" if k else "") for n, k in times]
    write(folder / "r.csv", ["s", "v", "t"], [(f"s{i % 3}", str(i % 7), c) for i, c in enumerate(cells)])
    program = (f'@bind("r", "csv useHeaders=true", "{folder}", "r.csv").\n@timeMapping("r", 2, 2).\n'
               f"high(S) :- r(S, V), V > 2.\nalert(S) :- <->{window} high(S).\n@output(\"alert\"). @output(\"high\").\n")
    want = chronolog.reason(program, engine="rows")
    got = chronolog.reason(program, engine="columns")
    assert got.to_text() == want.to_text()
    for pred in ("alert", "high"):
        assert got.to_arrow(pred).equals(want.to_arrow(pred))


@settings(deadline=None, max_examples=examples(60))
@given(st.lists(st.tuples(st.integers(-10**6, 10**6), st.integers(1, 5000), st.sampled_from([None, "start", "end", "both"])),
                min_size=1, max_size=60),
       st.sampled_from([0, 1, 3]), st.sampled_from([None, "minutes", "days"]), st.data())
def test_unbounded_time_cells_answer_as_the_rows(tmp_path_factory, rows, places, unit, data):
    """Time cells of integers, decimals or date-times with some ends
    unbounded (``-inf``, ``+inf``, ``inf``, ``Infinity``, an empty cell:
    facts valid until further notice) are read by kernels with the rest, the infinities
    marked among fractions over one denominator (they went cell by cell:
    1M rows 2.7 s against 1.6 s): the facts and the answers are the row
    reader's."""
    import datetime

    from chronolog.language.dates import Calendar

    def cell(n):
        if unit is not None:  # (a minute each, or a second each on the days' timeline: between its units)
            step = datetime.timedelta(minutes=n) if unit == "minutes" else datetime.timedelta(seconds=n)
            return (datetime.datetime(2024, 3, 1) + step).isoformat()
        return f"{'-' if n < 0 else ''}{abs(n) // 10**places}" + (f".{abs(n) % 10**places:0{places}d}" if places else "")

    blanks = ["", " ", "\t", "\x1c", "\xa0", "\u3000 "]  # (an empty cell: pandas' and DuckDB's missing valid_to)
    lows = st.sampled_from(["-inf", "-Infinity", *blanks] if unit is None else ["-inf", *blanks])
    highs = st.sampled_from(["+inf", "inf", "Infinity", "INF", *blanks] if unit is None else ["+inf", "inf", *blanks])
    cells = [(data.draw(lows) if u in ("start", "both") else cell(a), data.draw(highs) if u in ("end", "both") else cell(a + n))
             for a, n, u in rows]
    folder = tmp_path_factory.mktemp("unbounded")
    write(folder / "p.csv", ["k", "start", "end", "start_closed", "end_closed"],
          [(f"s{i % 3}", s, e, "true", "false" if i % 2 and e.strip() and "inf" not in e.lower() else "true") for i, (s, e) in enumerate(cells)])
    calendar = Calendar(unit) if unit else None
    _same_rows(folder / "p.csv", {}, cal=calendar)
    fc = read_csv_columns(folder / "p.csv", "p", {"useHeaders": "true"}, {}, None, calendar)
    if any(u for *_, u in rows) and any(u != "both" for *_, u in rows):  # (infinities beside a finite cell)
        assert fc.parts["p"][0][1].ratios.inf is not None  # (the kernels' marks, not a value each)
    head = f'@timeGranularity("{unit}").\n' if unit else ""
    program = (head + f'@bind("p", "csv useHeaders=true", "{folder}", "p.csv").\n'
               "q(X) :- <->[0,1] p(X).\nb(X) :- [-][0,2] p(X).\nn(X) :- p(X), not p2(X).\np2(X) :- <+>[0,3] p(X).\n"
               '@output("q"). @output("b"). @output("n").\n')
    want = chronolog.reason(program, engine="rows")
    got = chronolog.reason(program, engine="columns")
    assert got.to_text() == want.to_text()
    for pred in ("q", "b", "n"):
        assert got.to_arrow(pred).equals(want.to_arrow(pred))
