"""Times given in a time zone are read as their UTC instants, and calendar
periods are UTC's: a program that groups by days (weeks, months, years)
over a table of zoned times is told so, with the way to group by the
zone's wall clock, which then gives pandas' ``resample`` of the zoned
index (the oracle)."""

from __future__ import annotations

import warnings

import pandas as pd
import polars as pl
import pytest

import chronolog
from chronolog.language.errors import Note

PROGRAM = '''@timeGranularity("hours").
@timeMapping("reading", "ts", "ts").
@output("daily").
daily(S, T) :- /\\[days] reading(S, V), T = sum(V).
'''
TIMES = ["2024-03-01 00:30", "2024-03-01 12:00", "2024-03-01 23:30", "2024-03-31 01:30", "2024-03-31 03:30"]


def readings(zone):
    ts = pd.to_datetime(TIMES)
    return pd.DataFrame({"s": ["a"] * 5, "v": [1, 2, 4, 8, 16], "ts": ts.tz_localize(zone) if zone else ts})


def notes(call):
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        out = call()
    return out, [str(w.message) for w in got if issubclass(w.category, Note) and "UTC instants" in str(w.message)]


@pytest.mark.parametrize("kind", ["pandas", "polars", "arrow"])
def test_zoned_times_grouped_by_days_are_noted(kind):
    df = readings("Europe/Berlin")
    table = {"pandas": df, "polars": pl.from_pandas(df), "arrow": pl.from_pandas(df).to_arrow()}[kind]
    model, said = notes(lambda: chronolog.reason(PROGRAM, {"reading": table}))
    assert said == ["facts['reading']: the column ts holds times in Europe/Berlin, read as UTC instants, and the program "
                    "groups by days, whose periods are UTC's, not Europe/Berlin's (for Europe/Berlin's periods, as pandas' "
                    "resample gives them, pass the wall clock: df['ts'].dt.tz_convert('Europe/Berlin').dt.tz_localize(None))"]
    days = model.to_pandas("daily")
    assert days["c1"].tolist() == [1, 6, 24]  # (UTC days: 00:30 Berlin is the day before's 23:30 UTC)


def test_the_wall_clock_gives_pandas_days():
    df = readings("Europe/Berlin")
    want = df.set_index("ts").groupby("s")["v"].resample("D").sum()
    want = want[want > 0]
    wall = df.assign(ts=df["ts"].dt.tz_convert("Europe/Berlin").dt.tz_localize(None))
    model, said = notes(lambda: chronolog.reason(PROGRAM, {"reading": wall}))
    assert said == []
    days = model.to_pandas("daily")
    assert days["c1"].tolist() == want.tolist()
    assert [str(d.date()) for d in days["start"]] == [str(d.date()) for _, d in want.index]


@pytest.mark.parametrize("zone, program", [("UTC", PROGRAM), (None, PROGRAM),
                                           ("Europe/Berlin", PROGRAM.replace("/\\[days]", "<->[0,2]"))])
def test_no_note_where_the_days_are_utcs_or_nothing_groups_them(zone, program):
    _, said = notes(lambda: chronolog.reason(program, {"reading": readings(zone)}))
    assert said == []


def test_a_sessions_added_table_is_noted_too():
    r = chronolog.Reasoner(PROGRAM, {"reading": readings(None)})
    _, said = notes(lambda: r.add({"reading": readings("America/New_York").assign(s="b")}))
    assert len(said) == 1 and "America/New_York" in said[0]
