"""What a new user meets in a first hour: the mistakes a data engineer
makes (another dialect's operators, dates written the local way, a missing
file, a CSV whose interval is not where the reader looks, pandas not
installed) each answered with a message that says where and a hint, and
CSV files of time points (one time column, as sensor readings come) read
with ``@timeMapping("p", K, K)``."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import chronolog
from budget import examples
from chronolog import ChronologError
from chronolog.cli import cli


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def refused(program: Path, *args, where: str, says: str, hint: str) -> str:
    r = run("run", program, *args)
    assert r.exit_code == 2, (r.exit_code, r.output)
    assert "Traceback" not in r.output, r.output
    assert f"{where}:" in r.output and says in r.output, r.output
    assert "hint:" in r.output and hint in r.output.split("hint:", 1)[1], r.output
    return r.output


# ------------------------------------------------------------ another dialect


METEOR = [
    ("hot(S) :- Diamondminus[0,1] temp(S).", "<->"),
    ("hot(S) :- Diamondplus[0,1] temp(S).", "<+>"),
    ("hot(S) :- Boxminus[0,1] temp(S).", "[-]"),
    ("hot(S) :- Boxplus [0,1] temp(S).", "[+]"),
    ("hot(S) :- temp(S) Since[0,1] temp(S).", "<S>"),
    ("hot(S) :- temp(S) Until[0,1] temp(S).", "<U>"),
]


@pytest.mark.parametrize("rule, vadalog", METEOR)
def test_a_meteor_operator_in_vadalog_says_both_ways_out(tmp_path, rule, vadalog):
    """MeTeoR's `Diamondminus[0,1] p(X)` in a .vada file stopped at '['
    with no hint (`Since` with the hint to separate literals by ',')."""
    prog = tmp_path / "p.vada"
    prog.write_text(rule + "\n")
    out = refused(prog, where=f"{prog}:1", says="syntax error", hint=f"Temporal Vadalog writes {vadalog}")
    assert "--dialect meteor" in out
    # and the hint is right: the program reads as MeTeoR
    assert chronolog.reason(rule.rstrip("."), "temp(s1)@[1,2]", dialect="meteor").facts("hot") is not None


WRONG_DIALECT = [  # (the program, the file it is pasted into, the dialect that reads it)
    ("recentlyOpened(X) :- <->[0,12] inauguration(X).\n", "p.lars", "vadalog"),
    ("hot(X) :- [-][0,2] temp(X).\n", "p.lars", "vadalog"),
    ("q(X,Y,Z) :- [3] <> a(X,Y), [#3] <> b(Y,Z).\n", "p.vada", "lars"),
    ("@T steam(V) :- [3] @T temp(V), V >= 100.\n", "p.meteor", "lars"),
    ("Hot(X):- ALWAYS[-2,-1]TempAbove24(X)\n", "p.lars", "meteor"),
    ("A(X):- B(X) || C(X)\n", "p.vada", "meteor"),
]


@pytest.mark.parametrize("text, name, reads_as", WRONG_DIALECT)
def test_a_program_in_the_wrong_dialect_names_the_one_that_reads_it(tmp_path, text, name, reads_as):
    """A Temporal Vadalog program in a .lars file, a LARS one in a .vada
    file: the syntax error said what token it expected, never that another
    dialect reads the program whole."""
    prog = tmp_path / name
    prog.write_text(text)
    refused(prog, where=f"{prog}:1", says="syntax error", hint=f"--dialect {reads_as}")
    # and the hint is right: that dialect reads it
    chronolog.reason(prog, dialect=reads_as)


def test_a_program_no_dialect_reads_has_no_dialect_hint(tmp_path):
    prog = tmp_path / "p.lars"
    prog.write_text("q(X) :- [3] <> a(X) b(X).\n")
    r = run("run", prog)
    assert r.exit_code == 2 and "--dialect" not in r.output, r.output


@pytest.mark.parametrize("date", ["01/02/2024", "01.02.2024"])
def test_a_date_not_written_year_month_day_has_a_hint(tmp_path, date):
    prog = tmp_path / "p.vada"
    prog.write_text(f'@timeGranularity("days").\nalarm(S) :- <->[0,1] hot(S).\nhot(s1)@[{date}, 2024-03-01).\n')
    refused(prog, where=f"{prog}:3", says="syntax error", hint="year-month-day, 2024-01-31")


# ------------------------------------------------------------ files


def test_a_missing_facts_file_says_so_with_a_hint(tmp_path):
    """A missing --facts file said "cannot read the facts file f: No such
    file or directory", without the hint a missing program has."""
    prog = tmp_path / "p.vada"
    prog.write_text("q(X) :- p(X).\n")
    refused(prog, "--facts", tmp_path / "nofile.facts", where="data error", says="the facts file", hint="check the path")
    with pytest.raises(ChronologError, match="does not exist") as e:
        chronolog.reason("q(X) :- p(X).", tmp_path / "nofile.facts")
    assert e.value.hint.startswith("check the path")


def test_a_csv_read_by_its_last_two_columns_says_so(tmp_path):
    """sensor,ts,value: no start/end columns, so ts and value are the
    interval; the error said only "column end: '65' is not a date"."""
    (tmp_path / "readings.csv").write_text("sensor,ts,value\ns1,2024-01-01T00:00:00,65\n")
    prog = tmp_path / "p.vada"
    prog.write_text(f'@timeGranularity("minutes").\n@bind("reading", "csv", "{tmp_path}", "readings.csv").\n'
                    "seen(S) :- reading(S).\n")  # (one argument: as the file reads; two are refused before, below)
    out = refused(prog, where="readings.csv:2:3", says="'65' is not a date", hint="last two columns (ts and value)")
    assert '@timeMapping("reading", K, K)' in out


# ------------------------------------------------------------ time points in one column


def _readings(n, seed):
    rng = random.Random(seed)
    return [(f"s{rng.randrange(4)}", rng.randrange(n), rng.randrange(50, 100)) for _ in range(n)]


def _oracle(rows, program):
    """The same facts given as a dictionary, each a point [t,t]."""
    facts = {"reading": [((s, v), (t, t)) for s, t, v in rows]}
    return chronolog.reason(program, facts).to_text()


PROGRAM = """
value(S, V) :- <->[0,1) reading(S, V).
high(S) :- value(S, V), V > 80.
count(S, N) :- reading(S, V), N = count().
"""


@pytest.mark.parametrize("n, engine", [(40, "rows"), (40, "columns"), (12000, "rows"), (12000, "columns")])
def test_time_mapping_of_one_column_reads_time_points(tmp_path, n, engine):
    """@timeMapping("p", 1, 1): a CSV of readings with one time column (as
    sensors write them) was refused ("needs the column positions of the
    interval's start and end"): there was no way to read it but to copy
    the column.  Large files go through the columns reader."""
    for seed in range(max(1, examples(3) // 3)):
        rows = _readings(n, seed)
        csv = tmp_path / "readings.csv"
        csv.write_text("sensor,ts,value\n" + "".join(f"{s},{t},{v}\n" for s, t, v in rows))
        prog = tmp_path / "p.vada"
        prog.write_text(f'@bind("reading", "csv", "{tmp_path}", "readings.csv").\n@timeMapping("reading", 1, 1).\n' + PROGRAM)
        model = chronolog.reason(prog, engine=engine)
        assert model.to_text() == _oracle(rows, PROGRAM)


def test_time_points_in_one_date_column(tmp_path):
    (tmp_path / "r.csv").write_text("sensor,ts,value\ns1,2024-01-01T00:02:00,82\ns1,2024-01-01T00:03:00,75\n")
    prog = tmp_path / "p.vada"
    prog.write_text(f'@timeGranularity("minutes").\n@bind("reading", "csv", "{tmp_path}", "r.csv").\n'
                    '@timeMapping("reading", 1, 1, #T, #T).\nhigh(S) :- reading(S, V), V > 80.\n')
    r = run("run", prog)
    assert r.exit_code == 0 and r.output == "high(s1)@[2024-01-01T00:02:00,2024-01-01T00:02:00]\n", r.output


def test_a_time_point_column_open_at_an_end_is_refused(tmp_path):
    (tmp_path / "r.csv").write_text("sensor,ts\ns1,1\n")
    prog = tmp_path / "p.vada"
    prog.write_text(f'@bind("reading", "csv", "{tmp_path}", "r.csv").\n@timeMapping("reading", 1, 1, #T, #F).\n'
                    "seen(S) :- reading(S).\n")
    refused(prog, where=f"{prog}:2:1", says="is a time point, closed at both ends", hint='@timeMapping("reading", 1, 1, #T, #T)')


# ------------------------------------------------------------ extras not installed


def test_to_pandas_without_pandas_names_the_extra(monkeypatch):
    """After setup.sh (the core, no pandas) the README's model.to_pandas()
    stopped with ModuleNotFoundError from inside chronolog."""
    model = chronolog.reason("q(X) :- p(X).  p(a)@1.")
    monkeypatch.setitem(sys.modules, "pandas", None)  # (import pandas raises ImportError)
    with pytest.raises(ChronologError, match="to_pandas\\(\\) needs pandas") as e:
        model.to_pandas("q")
    assert "[pandas]" in e.value.hint and "to_polars()" in e.value.hint


def test_plot_given_a_file_name_says_how_to_save():
    """model.plot("out.png") (as pandas' df.plot / a save call) said only
    that there is no predicate 'out.png'."""
    pytest.importorskip("matplotlib")
    model = chronolog.reason("q(X) :- p(X).  p(a)@1.")
    with pytest.raises(ChronologError, match="no predicate 'out.png'") as e:
        model.plot("out.png")
    assert 'chronolog.plot.save(model.plot(), "out.png")' in e.value.hint


def test_a_time_in_a_body_atom_says_what_a_body_interval_is(tmp_path):
    """`a(S) :- b(S)@[1,2].` stopped at '1' ("expected a variable") with no hint."""
    prog = tmp_path / "p.vada"
    prog.write_text("a(S) :- b(S)@[1,2].\n")
    refused(prog, where=f"{prog}:1:15", says="syntax error", hint="p(X)@[S,E], S <= 1, E >= 2")
    # and what the hint says reads: the intervals that start by 1 and end from 2 on (an end's closedness aside)
    model = chronolog.reason("a(X) :- b(X)@[S,E], S <= 1, E >= 2.  b(x)@[0,3].  b(y)@[1.5,3].  b(z)@[1,2).")
    assert [t for t, _ in model.facts("a")] == [("x",), ("z",)]


# ------------------------------------------------------------ tables whose closed intervals meet


def _daily(n, seed, **extra):
    import pandas as pd

    rng = random.Random(seed)
    days = pd.bdate_range("2024-01-01", periods=n)  # (trading days: weekends missing)
    close = [rng.randrange(10, 20) for _ in range(n)]
    frame = pd.DataFrame({"ticker": "acme", "day": days, "close": close, "start": days, "end": days + pd.Timedelta(days=1), **extra})
    return frame, pd.Series(close, index=days)


SMA7 = '@timeGranularity("days").\nsma7(S, X) :- <->[0,P6D] price(S, D, V), X = avg(V).\n'


def test_a_daily_table_closed_at_both_ends_gets_a_note():
    """A daily series given as start = day, end = next day (no closedness
    columns: closed at both ends) has two values at every midnight, and a
    rolling mean over it takes a value that pandas never gives at each
    point where a day leaves the window, without a word."""
    frame, _ = _daily(10, 0)
    with pytest.warns(chronolog.Note, match=r"facts\['price'\]: .* closed at both ends, and one ends at 2024-01-02"):
        chronolog.reason(SMA7, {"price": frame})


@pytest.mark.parametrize("seed", range(max(1, examples(5) // 5)))
def test_the_half_open_daily_table_gives_pandas_rolling_mean(seed):
    """With end_closed=False (what the note says) there is no note, and at
    each trading day the 7-day mean is pandas' rolling("7D").mean()."""
    import warnings

    frame, series = _daily(30, seed, end_closed=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = chronolog.reason(SMA7, {"price": frame})
    want = series.rolling("7D").mean()
    for day, mean in want.items():
        got = model.query(f"sma7(acme,X)@{day.date()}")
        assert [float(a.binding["X"]) for a in got] == pytest.approx([mean]), day


@pytest.mark.parametrize("frame", [
    {"s": ["a", "b"], "start": [0, 1], "end": [5, 4]},        # (ends meet no start)
    {"s": ["a", "b"], "start": [1, 3], "end": [3, 5]},        # (two sensors, one after the other: no series)
    {"s": ["a", "a"], "start": [1, 1], "end": [1, 1]},        # (points)
    {"s": ["a", "a"], "start": [0, 1], "end": [1, 2], "start_closed": [True, True], "end_closed": [True, True]},  # (said so)
])
def test_no_note_where_nothing_meets_or_closedness_is_given(frame):
    import warnings

    import polars as pl

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        chronolog.reason("q(X) :- p(X).", {"p": pl.DataFrame(frame)})


def test_a_csv_whose_time_column_was_taken_for_the_interval_says_so(tmp_path):
    """sensor,ts,value read by reading(S, V): ts and value became the
    interval, and the error was an arity clash "reading has 1 argument
    here but 2" at the file's first row, without saying why."""
    (tmp_path / "num.csv").write_text("sensor,ts,value\ns1,1,65\ns1,2,75\n")
    prog = tmp_path / "p.vada"
    prog.write_text(f'@bind("reading", "csv", "{tmp_path}", "num.csv").\nhigh(S) :- reading(S, V), V > 70.\n')
    out = refused(prog, where="num.csv:1:1", says="num.csv gives reading 1 argument (sensor), but reading has 2 at",
                  hint="last two columns (ts and value) are read as the interval")
    assert '@timeMapping("reading", K, K)' in out
    prog.write_text(f'@bind("reading", "csv", "{tmp_path}", "num.csv").\n@timeMapping("reading", 1, 1).\n'
                    "high(S) :- reading(S, V), V > 70.\n")
    r = run("run", prog)
    assert r.exit_code == 0 and r.output == "high(s1)@[2,2]\n", r.output


# ------------------------------------------------------------ windows and queries on a date timeline


DATED = '@timeGranularity("minutes").\nhigh(S) :- reading(S, V), V > 80.\n' \
        "reading(s1, 82)@[2024-01-01T00:02:00, 2024-01-01T00:05:00).\nreading(s1, 90)@[2024-01-01T00:07:00, 2024-01-01T00:08:00).\n"


def test_a_window_on_a_date_timeline_may_be_iso_text():
    """facts_within("high", ("2024-01-01T00:03", "2024-01-01T00:04")) was
    refused ("is not a time point"), though a query, --window and pandas'
    slicing write dates so; the answer is the datetime window's."""
    import datetime as dt

    model = chronolog.reason(DATED)
    window = (dt.datetime(2024, 1, 1, 0, 3), dt.datetime(2024, 1, 1, 0, 4))
    assert model.facts_within("high", ("2024-01-01T00:03", "2024-01-01T00:04")) == model.facts_within("high", window)
    assert model.facts_within("high", ("2024-01-01", "inf")) == model.facts_within("high", (dt.date(2024, 1, 1), float("inf")))
    assert model.to_polars("high", window=("2024-01-01T00:03", "2024-01-01T00:04")).equals(model.to_polars("high", window=window))
    with pytest.raises(ChronologError, match="'2024-13-01' is not a date"):
        model.facts_within("high", ("2024-13-01", "2024-12-31"))


def test_a_window_given_to_query_as_its_dialect_is_refused():
    """model.query("high(X)", (FROM, TO)): the tuple went in as the dialect,
    was taken for Temporal Vadalog, and the answer was every interval."""
    model = chronolog.reason(DATED)
    with pytest.raises(ChronologError, match="dialect .* is not one of") as e:
        model.query("high(X)", ("2024-01-01", "2024-01-01T00:03"))
    assert 'query("high(X)@[FROM,TO]")' in e.value.hint


@pytest.mark.parametrize("engine", ["rows", "columns"])
@pytest.mark.parametrize("kind", ["parquet", "arrow"])
def test_a_time_mapping_of_a_table_file_places_its_times(tmp_path, kind, engine):
    """@timeMapping("p", 2, 3, #T, #F) of a Parquet binding was passed over
    (the file's start and end columns read closed at both ends, against the
    annotation's #F), then refused: it places the times of a table file as
    of a CSV file, by position and with its closedness."""
    import pyarrow as pa
    import pyarrow.feather as feather
    import pyarrow.parquet as pq

    table = pa.table({"s": ["a", "a"], "v": [1, 2], "from": [0, 5], "to": [5, 10]})
    name = f"p.{kind}"
    (pq.write_table if kind == "parquet" else lambda t, p: feather.write_feather(t, p, compression="uncompressed"))(table, tmp_path / name)
    prog = tmp_path / "p.vada"
    prog.write_text(f'@bind("p", "{kind}", "{tmp_path}", "{name}").\n@timeMapping("p", 2, 3, #T, #F).\nq(S, V) :- p(S, V).\n')
    want = chronolog.reason("q(S, V) :- p(S, V).", {"p": [(("a", 1), (0, 5, True, False)), (("a", 2), (5, 10, True, False))]})
    assert chronolog.reason(prog, engine=engine).to_text() == want.to_text()


def test_a_time_mapping_of_a_fact_file_is_refused(tmp_path):
    """A file of facts writes its intervals: @timeMapping of it would be
    passed over, its #F with it."""
    (tmp_path / "p.facts").write_text("p(a)@[0,5]\n")
    prog = tmp_path / "p.vada"
    prog.write_text(f'@bind("p", "facts", "{tmp_path}", "p.facts").\n@timeMapping("p", 1, 2, #T, #F).\nq(S) :- p(S).\n')
    refused(prog, where=f"{prog}:2:1", says="p is bound to a file of facts, whose lines write their intervals",
            hint="leave out @timeMapping of p")


@pytest.mark.parametrize("window", ["[0,1M]", "[0,30d]", "[0,12 h]", "(0,5min]"])
def test_a_unit_written_after_a_window_number_has_a_hint(tmp_path, window):
    """<->[0,30d] stopped at 'd' with the hint that predicate names start
    with a lowercase letter (or to separate literals with ',')."""
    prog = tmp_path / "p.vada"
    prog.write_text(f'@timeGranularity("days").\na(X) :- <->{window} b(X).\n')
    refused(prog, where=f"{prog}:2", says="syntax error", hint="a duration is written in ISO 8601: P30D")


def test_json_gives_the_dates_of_a_dated_program(tmp_path):
    """--format json printed start and end of a dated program as minutes
    (days, ...) since 1970, "start": 28401122, where --format csv and the
    text print the date."""
    import csv
    import io
    import json

    prog = tmp_path / "p.vada"
    prog.write_text(DATED)
    as_json = [json.loads(line) for line in run("run", prog, "--format", "json").output.splitlines()]
    as_csv = list(csv.DictReader(io.StringIO(run("run", prog, "--format", "csv").output)))
    assert [(r["start"], r["end"]) for r in as_json] == [(r["start"], r["end"]) for r in as_csv]
    assert as_json[0]["start"] == "2024-01-01T00:02:00"
    numeric = tmp_path / "n.vada"
    numeric.write_text("q(X) :- p(X).  p(a)@[1,5].  p(b)@[1/2,+inf).\n")
    rows = [json.loads(line) for line in run("run", numeric, "--format", "json").output.splitlines()]
    cells = list(csv.DictReader(io.StringIO(run("run", numeric, "--format", "csv").output)))
    assert [(r["start"], r["end"]) for r in rows] == [(1, 5), (cells[1]["start"], "+inf")]  # (integers stay JSON numbers)


def test_a_path_given_as_a_predicates_facts_says_how_to_read_it(tmp_path):
    """{"reading": Path("readings.csv")} was refused with no hint."""
    with pytest.raises(ChronologError, match="must be a table") as e:
        chronolog.reason("high(S) :- reading(S, V), V > 80.", {"reading": Path("data") / "readings.csv"})
    assert '@bind("reading", "csv", "data", "readings.csv")' in e.value.hint


@pytest.mark.parametrize("kind", ["integer", "long"])
def test_sql_names_of_integer_types_require_numbers(tmp_path, kind):
    """@mapping(..., "integer") (SQL's, Spark's name) read as no type at all:
    a cell "abc" became the name abc without a word, as "int" refuses it."""
    (tmp_path / "t.csv").write_text("sensor,value,start,end\ns1,abc,0,10\n")
    prog = tmp_path / "p.vada"
    prog.write_text(f'@bind("temp", "csv", "{tmp_path}", "t.csv").\n@mapping("temp", 1, "value", "{kind}").\nh(S) :- temp(S, V).\n')
    refused(prog, where="t.csv:2:2", says="'abc' is not a number", hint="numbers are written")
