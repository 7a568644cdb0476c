"""Dates beyond Python's years 1..9999 (language/dates.py): printed and read
as ISO 8601 writes them with astronomical years (year 0 is ``0000``, a
year past 9999 or before 0 carries a sign: ``+10000``, ``-0032``), so that
every printed date reads back to the same point, on both executors and
through fact files, CSV and Arrow.  A time grouping reaches them: two
years' periods floor year 1 to year 0.  The oracle is Python's calendar
(proleptic Gregorian) shifted by whole 400-year cycles, which it repeats."""

import datetime

import numpy as np
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chronolog
from budget import examples

EPOCH = datetime.date(1970, 1, 1).toordinal()
CYCLE_DAYS = 146_097  # 400 Gregorian years


def first_of_month(index: int) -> int:
    """Days since 1970-01-01 of the first day of month ``index`` (year * 12 + month - 1), any year."""
    year, month = divmod(index, 12)
    k = 0 if 1 <= year <= 9999 else (year - 2000) // 400
    return datetime.date(year - 400 * k, month + 1, 1).toordinal() + k * CYCLE_DAYS - EPOCH


def iso_month(index: int) -> str:
    year, month = divmod(index, 12)
    y = f"{year:04d}" if 0 <= year <= 9999 else (f"+{year}" if year > 0 else f"-{-year:04d}")
    return f"{y}-{month + 1:02d}-01"


GROUPING = '@timeGranularity("days").\n@output("g").\ng(X) :- /\\[{count} {unit}] p(X).\n'
ENGINES = ("rows", "columns")


def test_groupings_reaching_year_0_and_10000_print_as_iso_dates_and_read_back():
    program = GROUPING.format(count=2, unit="years") + "p(a)@0001-03-01.\np(c)@9999-06-01.\n"
    for engine in ENGINES:
        m = chronolog.reason(program, engine=engine)
        assert m.to_text() == "g(a)@[0000-01-01,0002-01-01)\ng(c)@[9998-01-01,+10000-01-01)", engine
        assert [iv[:2] for _, iv in m.facts("g")] == [
            (first_of_month(0), first_of_month(24)), (first_of_month(9998 * 12), first_of_month(10000 * 12))]
        back = chronolog.reason('@timeGranularity("days").\n@output("g").\n' + m.to_text().replace(")\n", ").\n") + ".",
                                engine=engine)
        assert back.facts("g") == m.facts("g"), engine


YEARS = st.integers(datetime.date(1, 1, 1).toordinal(), datetime.date(9999, 12, 31).toordinal())


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.tuples(YEARS, YEARS), min_size=1, max_size=4),
       st.sampled_from([1, 2, 3, 10, 400]), st.sampled_from(["years", "months"]))
def test_grouped_intervals_print_and_read_back_on_both_executors(spans, count, unit):
    facts, want = "", []
    per = count * (12 if unit == "years" else 1)  # months a period spans, from year 0's January
    for i, (a, b) in enumerate(spans):
        lo, hi = sorted((datetime.date.fromordinal(a), datetime.date.fromordinal(b)))
        facts += f"p(k{i})@[{lo.isoformat()},{hi.isoformat()}].\n"
        first = (lo.year * 12 + lo.month - 1) // per * per
        last = (hi.year * 12 + hi.month - 1) // per * per + per
        want.append((f"g(k{i})@[{iso_month(first)},{iso_month(last)})", (first_of_month(first), first_of_month(last))))
    program = GROUPING.format(count=count, unit=unit) + facts
    texts = set()
    for engine in ENGINES:
        m = chronolog.reason(program, engine=engine)
        # (one fact a key; the oracle's periods of two keys may touch or overlap: compare by key)
        got = {terms: iv for terms, iv in m.facts("g")}
        for i, (text, points) in enumerate(want):
            assert got[(f"k{i}",)][:2] == points, (engine, text)
        lines = m.to_text().splitlines()
        assert sorted(lines) == sorted(t for t, _ in want), engine
        texts.add(m.to_text())
        back = chronolog.reason('@timeGranularity("days").\n' + "\n".join(line + "." for line in lines), engine=engine)
        assert back.facts("g") == m.facts("g"), engine
    assert len(texts) == 1


@pytest.mark.parametrize("text,days", [
    ("0000-01-01", first_of_month(0)),
    ("-0032-02-29", first_of_month(-32 * 12 + 1) + 28),  # year -32 is a leap year (astronomical: 33 BC)
    ("+10000-01-01", first_of_month(10000 * 12)),
    ("+123456-07-01", first_of_month(123456 * 12 + 6)),
])
def test_signed_and_year_0_dates_read_in_programs_fact_files_and_csv(tmp_path, text, days):
    program = f'@timeGranularity("days").\n@output("q").\nq(X) :- p(X).\np(a)@[{text},{text}].\n'
    for engine in ENGINES:
        m = chronolog.reason(program, engine=engine)
        assert m.facts("q") == [(("a",), (days, days, True, True))], engine
        assert m.to_text() == f"q(a)@[{text},{text}]"
    # a fact file (the kernels' reader, and the grammar's for a line they leave)
    f = tmp_path / "f.facts"
    f.write_text("".join(f"p(k{i})@[{text},{text}]\n" for i in range(100)) + f"p(\"b c\")@{text}.\n")
    for engine in ENGINES:
        m = chronolog.reason('@timeGranularity("days").\nq(X) :- p(X).', f, engine=engine)
        assert {iv for _, iv in m.facts("q")} == {(days, days, True, True)} and len(m.facts("q")) == 101, engine
    # a CSV time column
    (tmp_path / "d.csv").write_text("x,start,end\n" + "".join(f"k{i},{text},{text}\n" for i in range(100)))
    (tmp_path / "p.vada").write_text('@timeGranularity("days").\n@bind("r", "csv", ".", "d.csv").\nq(X) :- r(X).\n')
    for engine in ENGINES:
        m = chronolog.reason(tmp_path / "p.vada", engine=engine)
        assert {iv for _, iv in m.facts("q")} == {(days, days, True, True)} and len(m.facts("q")) == 100, engine


def test_times_of_day_and_utc_offsets_beyond_python_years():
    program = ('@timeGranularity("minutes").\n@output("q").\nq(X) :- p(X).\n'
               "p(a)@[0001-01-01T00:30+01:00,+10000-01-01T00:00-00:30].\n")
    start = first_of_month(0) * 1440 + 365 * 1440 + 23 * 60 + 30  # 0000-12-31T23:30 (year 0 is a leap year: day 365 is Dec 31)
    end = first_of_month(10000 * 12) * 1440 + 30
    for engine in ENGINES:
        m = chronolog.reason(program, engine=engine)
        assert m.facts("q") == [(("a",), (start, end, True, True))], engine
        assert m.to_text() == "q(a)@[0000-12-31T23:30:00,+10000-01-01T00:30:00]"


def test_arrow_pandas_and_polars_hold_the_dates_beyond_python_years():
    """Arrow's date32 and timestamp[us] hold them (as day and microsecond
    counts since 1970), and so do pandas' and Polars' datetimes, so these
    outputs give the dates; only Python's ``datetime`` (``to_pylist``) cannot."""
    many = "".join(f"p(k{i})@0001-03-01.\np(m{i})@9999-06-01.\n" for i in range(40))  # (64 or more: numpy's path too)
    for facts in ("p(a)@0001-03-01.\np(c)@9999-06-01.\n", many):
        for engine in ENGINES:
            m = chronolog.reason(GROUPING.format(count=2, unit="years") + facts, engine=engine)
            t = m.to_arrow("g")
            assert t.schema.field("start").type == pa.date32()
            days = {(s, e) for s, e in zip(t["start"].cast(pa.int32()).to_pylist(), t["end"].cast(pa.int32()).to_pylist())}
            assert days == {(first_of_month(0), first_of_month(24)), (first_of_month(9998 * 12), first_of_month(10000 * 12))}
            df = m.to_pandas("g")
            assert set(df["start"].to_numpy().astype("datetime64[D]")) == {np.datetime64("0000-01-01"), np.datetime64("9998-01-01")}
            assert set(df["end"].to_numpy().astype("datetime64[D]")) == {np.datetime64("0002-01-01"), np.datetime64("10000-01-01")}
            pl_df = m.to_polars("g")
            assert set(pl_df["end"].cast(pl.Int32).to_list()) == {e for _, e in days}
    m = chronolog.reason('@timeGranularity("seconds").\n@output("q").\nq(X) :- p(X).\np(a)@[0000-06-01T12:00:00,+10000-01-01T00:00:01].\n')
    t = m.to_arrow("q")
    assert t.schema.field("start").type == pa.timestamp("us")
    assert t["start"].cast(pa.int64()).to_pylist() == [(first_of_month(5) * 86400 + 12 * 3600) * 10**6]
    assert t["end"].cast(pa.int64()).to_pylist() == [(first_of_month(10000 * 12) * 86400 + 1) * 10**6]


@pytest.mark.parametrize("text", ["0000-01-01", "+10000-01-01", "2020-02-30"])
def test_a_date_constant_beyond_python_years_is_a_positioned_error(tmp_path, text):
    """A date as a value is a Python datetime (years 1..9999): one sentence
    at its place, in a program and in a fact file (it was an internal error)."""
    from chronolog.language.errors import SyntaxError_

    with pytest.raises(SyntaxError_) as e:
        chronolog.reason(f"q(X) :- p(X).\np({text})@1.\n")
    assert e.value.message == f"{text} is not a date a constant can hold" and (e.value.pos.line, e.value.pos.column) == (2, 3)
    f = tmp_path / "f.facts"
    f.write_text(f"p({text})@1\n")
    with pytest.raises(SyntaxError_) as e:
        chronolog.reason("q(X) :- p(X).", f)
    assert e.value.message == f"{text} is not a date a constant can hold" and e.value.pos.line == 1


@pytest.mark.parametrize("cell, message", [
    ("+10000-01-01", "'+10000-01-01' is a date no value can hold"),
    ("0000-12-31", "'0000-12-31' is a date no value can hold"),
    ("2020-02-30", "'2020-02-30' is not a date"),
])
@pytest.mark.parametrize("rows", [1, 5000], ids=["row reader", "arrow reader"])
def test_a_csv_date_value_beyond_python_years_says_why(tmp_path, cell, message, rows):
    """A CSV column mapped `date` holds values (years 1..9999); a cell of
    another year said only 'is not a date', which it is."""
    from chronolog.language.errors import DataError

    lines = ["name,d,s,e"] + [f"n{i},2020-01-01,1,2" for i in range(rows)] + [f"x,{cell},1,2"]
    (tmp_path / "d.csv").write_text("\n".join(lines) + "\n")
    prog = tmp_path / "d.vada"
    prog.write_text('@bind("p","csv","","d.csv"). @timeMapping("p",2,3). @mapping("p",1,"d","date").\n'
                    "q(N, D) :- p(N, D).\n")
    with pytest.raises(DataError) as e:
        chronolog.reason(prog)
    assert e.value.message == f"column d: {message}" and e.value.pos.line == rows + 2
