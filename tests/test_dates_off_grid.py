"""Times off the microsecond grid on a date timeline (language/dates.py):
a window, time grouping or ``every`` period that is no whole number of
microseconds is refused where it is written; a time that leaves the grid
through a rule's arithmetic is a DataError on every output, never a number
printed among dates."""

import datetime as dt
from fractions import Fraction

import pytest
from budget import examples
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import chronolog
from chronolog.cli import cli
from chronolog.language.dates import iso_duration

ENGINES = ("rows", "columns")
HEAD = '@timeGranularity("days").\np(a)@[2020-01-01, 2020-01-03].\nr(a)@[2019-12-01, 2020-02-01].\n'

# each form with a window: the rule (W the window's end) and the column of its bracket
FORMS = [
    ("q(X) :- <->[0, W] p(X).", 12),
    ("q(X) :- <+>[0, W] p(X).", 12),
    ("q(X) :- [-][0, W] p(X).", 12),
    ("q(X) :- [+][0, W] p(X).", 12),
    ("q(X) :- r(X) <S>[0, W] p(X).", 17),
    ("q(X) :- r(X) <U>[0, W] p(X).", 17),
    ("[+][0, W] q(X) :- p(X).", 4),
    ("[-][0, W] q(X) :- p(X).", 4),
    ("q(X) :- not <->[0, W] p(X), r(X).", 16),
]
WINDOWS = [  # (as written, its text in the message, the hint's neighbours)
    ("1/7", "1/7 days", "PT3H25M42.857142S and PT3H25M42.857143S"),
    ("PT0.0000005S", "PT0.0000005S", "PT0S and PT0.000001S"),
    ("P1DT0.0000001S", "P1DT0.0000001S", "P1D and P1DT0.000001S"),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("rule, column", FORMS)
@pytest.mark.parametrize("written, shown, between", WINDOWS)
def test_a_window_off_the_grid_is_refused_where_it_is_written(engine, rule, column, written, shown, between):
    with pytest.raises(chronolog.ProgramError) as e:
        chronolog.reason(HEAD + rule.replace("W", written), engine=engine)
    err = e.value
    assert err.message.startswith(f"the window {shown} is not a whole number of microseconds")
    assert (err.pos.line, err.pos.column) == (4, column)
    assert err.hint == f"write it in whole microseconds: {shown} lies between {between}"
    assert "Traceback" not in str(err)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_period_off_the_grid_is_refused(engine):
    with pytest.raises(chronolog.ProgramError, match="the period 1/7 days is not a whole number of microseconds") as e:
        chronolog.reason(HEAD + "q(X) :- /\\[1/7] p(X).", engine=engine)
    assert (e.value.pos.line, e.value.pos.column) == (4, 11)
    with pytest.raises(chronolog.ProgramError, match="the period PT0.0000005S is not a whole number") as e:
        chronolog.reason(HEAD + "s(a)@2020-01-01 every PT0.0000005S.", engine=engine)
    assert (e.value.pos.line, e.value.pos.column) == (4, 23)


@pytest.mark.parametrize("engine", ENGINES)
def test_other_granularities_and_windows_on_the_grid(engine):
    """The grid is the microsecond in seconds too: a seventh of a day is
    off it on any granularity, an eighth (3 hours) and 1/1000 of a
    millisecond on it."""
    with pytest.raises(chronolog.ProgramError, match=r"the window 0.0001 milliseconds .*\n.*\n.*\n.*PT0S and PT0.000001S"):
        chronolog.reason('@timeGranularity("milliseconds").\nq(X) :- <->[0, 0.0001] p(X).\np(a)@2020-01-01.', engine=engine)
    with pytest.raises(chronolog.ProgramError, match="the window 1/7 hours"):
        chronolog.reason('@timeGranularity("hours").\nq(X) :- <->[0, 1/7] p(X).\np(a)@2020-01-01.', engine=engine)
    m = chronolog.reason(HEAD + "q(X) :- <->[0, 1/8] p(X).\n@output(\"q\").", engine=engine)
    assert m.to_text() == "q(a)@[2020-01-01,2020-01-03T03:00:00]"
    m = chronolog.reason('@timeGranularity("milliseconds").\nq(X) :- <->[0, 0.001] p(X).\np(a)@2020-01-01.',
                         engine=engine)
    assert m.to_text().splitlines()[-1] == "q(a)@[2020-01-01,2020-01-01T00:00:00.000001]"


def test_a_numeric_timeline_keeps_any_window():
    m = chronolog.reason("q(X) :- <->[0, 1/7] p(X).\np(a)@0.")
    assert m.to_text().splitlines()[-1] == "q(a)@[0,1/7]"


def test_iso_duration():
    assert [iso_duration(s) for s in (0, 1, 90061, 86400)] == ["PT0S", "PT1S", "P1DT1H1M1S", "P1D"]


# ---------------------------------------------------------------- arithmetic
ARITHMETIC = HEAD + "q(X)@[S, E] :- p(X)@[S, E0], E = S + 1/7.\n@output(\"q\").\n"
MESSAGE = (r"q: the time 11044944000/7 is not a whole number of microseconds, so a timestamp cannot hold it exactly "
           r"\(between 2020-01-01T03:25:42.857142 and 2020-01-01T03:25:42.857143\)")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("output", ["to_text", "lines", "write_text", "to_arrow", "to_arrow_all", "to_pandas",
                                    "to_pandas_all", "to_polars", "to_polars_all"])
def test_a_time_computed_off_the_grid_is_a_data_error_on_every_output(engine, output, tmp_path):
    m = chronolog.reason(ARITHMETIC, engine=engine)
    # the model holds the exact time; only a date cannot
    assert m.facts("q") == [(("a",), (18262, Fraction(127835, 7), True, True))]
    call = {
        "to_text": lambda: m.to_text(),
        "lines": lambda: m.lines(),
        "write_text": lambda: m.write_text(open(tmp_path / "out.txt", "w")),
        "to_arrow": lambda: m.to_arrow("q"),
        "to_arrow_all": lambda: m.to_arrow(),
        "to_pandas": lambda: m.to_pandas("q"),
        "to_pandas_all": lambda: m.to_pandas(),
        "to_polars": lambda: m.to_polars("q"),
        "to_polars_all": lambda: m.to_polars(),
    }[output]
    with pytest.raises(chronolog.DataError, match=MESSAGE):
        call()


def test_several_relations_name_the_one_off_the_grid():
    m = chronolog.reason(ARITHMETIC + 'w(X) :- p(X).\n@output("w").\n', engine="columns")
    with pytest.raises(chronolog.DataError, match=MESSAGE):
        m.to_text()
    with pytest.raises(chronolog.DataError, match=MESSAGE):
        m.to_arrow()
    assert m.to_text(["w"]) == "w(a)@[2020-01-01,2020-01-03]"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("args", [[], ["--output", "OUT"], ["--format", "csv"], ["--format", "json"]])
def test_the_command_line_reports_a_time_off_the_grid(engine, args, tmp_path):
    p = tmp_path / "p.vada"
    p.write_text(ARITHMETIC)
    args = [str(tmp_path / "out") if a == "OUT" else a for a in args]
    r = CliRunner().invoke(cli, ["run", str(p), "--engine", engine, *args])
    assert r.exit_code != 0
    assert "data error: q: the time 11044944000/7 is not a whole number of microseconds" in r.output
    assert "Traceback" not in r.output and "127835/7" not in r.output


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("fmt", ["csv", "parquet", "arrow", "facts"])
def test_a_bound_output_file_reports_a_time_off_the_grid(fmt, engine, tmp_path):
    p = tmp_path / "p.vada"
    p.write_text(ARITHMETIC + f'@bind("q", "{fmt}", "{tmp_path}", "q.{fmt}").\n')
    r = CliRunner().invoke(cli, ["run", str(p), "--engine", engine])
    assert r.exit_code != 0 and "data error: q: the time 11044944000/7" in r.output
    assert not (tmp_path / f"q.{fmt}").exists()


@pytest.mark.parametrize("fmt", ["parquet", "facts"])
def test_a_bound_output_file_of_dates_reads_back(fmt, tmp_path):
    """A file bound to an output of a date timeline holds dates (as to_arrow
    and --output give them), which the program reads back as its input."""
    p = tmp_path / "p.vada"
    p.write_text(HEAD + f'q(X) :- <->[0, 1/8] p(X).\n@output("q").\n@bind("q", "{fmt}", "{tmp_path}", "q.{fmt}").\n')
    r = CliRunner().invoke(cli, ["run", str(p)])
    assert r.exit_code == 0, r.output
    back = tmp_path / "back.vada"
    back.write_text(f'@timeGranularity("days").\n@bind("q", "{fmt}", "{tmp_path}", "q.{fmt}").\n@input("q").\n'
                    's(X) :- q(X).\n@output("s").\n')
    r = CliRunner().invoke(cli, ["run", str(back)])
    assert r.exit_code == 0 and r.output.strip() == "s(a)@[2020-01-01,2020-01-03T03:00:00]", r.output


def test_a_time_on_the_grid_from_arithmetic_prints_as_a_date():
    m = chronolog.reason(HEAD + "q(X)@[S, E] :- p(X)@[S, E0], E = S + 1/8.\n@output(\"q\").\n")
    assert m.to_text() == "q(a)@[2020-01-01,2020-01-01T03:00:00]"
    assert m.to_arrow("q").column("end").to_pylist() == [dt.datetime(2020, 1, 1, 3)]


@settings(max_examples=examples(200), deadline=None)
@given(num=st.integers(0, 50), den=st.sampled_from([1, 2, 3, 7, 8, 1000, 3 * 10**6, 2**7 * 10**9]),
       op=st.sampled_from(["<->", "<+>", "[-]", "[+]"]))
def test_a_window_is_refused_exactly_when_it_leaves_the_grid(num, den, op):
    """Refused iff the window's seconds are no whole number of microseconds;
    otherwise every answer prints as dates that read back as the same facts."""
    w = Fraction(num, den)
    prog = HEAD + f"q(X) :- {op}[0, {w}] p(X).\n@output(\"q\").\n"
    if (w * 86400 * 10**6).denominator != 1:
        with pytest.raises(chronolog.ProgramError, match="is not a whole number of microseconds"):
            chronolog.reason(prog)
        return
    m = chronolog.reason(prog)
    lines = m.to_text().splitlines()
    back = chronolog.reason('@timeGranularity("days").\nq(X) :- given(X).\n@output("q").\n@input("given").\n'
                            + "".join(f"given{line[1:]}.\n" for line in lines))
    assert back.facts("q") == m.facts("q")
