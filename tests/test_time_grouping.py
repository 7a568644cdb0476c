"""Time grouping ``/\\[unit]`` (language/time_grouping.py), with plain rules.

Oracle: pandas periods.  A fact valid at a point becomes valid on the whole
enclosing period, so the grouped intervals must be exactly the union of the
pandas periods (``Timestamp.to_period``) of the points the fact covers."""

from __future__ import annotations

import random
from fractions import Fraction

import pandas as pd
import pytest

import chronolog
from chronolog.language.errors import ProgramError, SyntaxError_
from chronolog.language.timeline import coalesce

FREQ = {"years": "Y", "months": "M", "weeks": "W-SUN", "days": "D", "hours": "h", "minutes": "min"}
EPOCH = pd.Timestamp("1970-01-01")


def to_days(ts: pd.Timestamp):
    v = Fraction((ts - EPOCH).value, 86400 * 10**9)
    return v.numerator if v.denominator == 1 else v


def periods_oracle(start: pd.Timestamp, end: pd.Timestamp, unit: str, closed_end: bool):
    """The interval covered by the periods of every point of [start, end⟩:
    pandas' period of the first point to the end of the period of the last."""
    first = start.to_period(FREQ[unit])
    last_point = end if closed_end else end - pd.Timedelta(microseconds=1)
    last = last_point.to_period(FREQ[unit])
    return (to_days(first.start_time), to_days((last + 1).start_time), True, False)


@pytest.mark.parametrize("unit", ["years", "months", "weeks", "days", "hours", "minutes"])
def test_grouping_matches_pandas_periods(unit):
    rng = random.Random(7)
    facts, expected = [], []
    for i in range(40):
        start = pd.Timestamp("2019-01-01") + pd.Timedelta(minutes=rng.randrange(0, 3 * 365 * 24 * 60))
        length = pd.Timedelta(minutes=rng.choice([0, 1, 59, 60, 24 * 60, rng.randrange(0, 90 * 24 * 60)]))
        end = start + length
        closed = length == pd.Timedelta(0) or rng.random() < 0.5
        facts.append(f"p(x{i})@[{start.isoformat()},{end.isoformat()}{']' if closed else ')'}.")
        expected.append((f"x{i}", periods_oracle(start, end, unit, closed)))
    m = chronolog.reason(f'@timeGranularity("minutes").\ng(X) :- /\\[{unit}] p(X).\n' + "\n".join(facts))
    got = {t[0]: iv for t, iv in m.facts("g")}
    for name, (lo, hi, lc, hc) in expected:
        assert got[name] == (lo * 1440, hi * 1440, lc, hc), (unit, name)  # the oracle is in days


def test_monthly_downsampling_of_a_daily_series():
    days = pd.date_range("2020-01-30", "2020-03-02", freq="D")
    facts = "\n".join(f"daily(acme,{i})@{d.date()}." for i, d in enumerate(days))
    m = chronolog.reason('@timeGranularity("days").\nmonthly(X, V) :- /\\[months] daily(X, V).\nany(X) :- /\\[months] daily(X, V).\n' + facts)
    assert m.to_text(["any"]) == "any(acme)@[2020-01-01,2020-04-01)"
    # every value is valid over its whole month (2020 is a leap year: February has 29 days)
    assert "monthly(acme,0)@[2020-01-01,2020-02-01)" in m.to_text()
    assert "monthly(acme,30)@[2020-02-01,2020-03-01)" in m.to_text()
    assert "monthly(acme,31)@[2020-03-01,2020-04-01)" in m.to_text()


@pytest.mark.parametrize("spec,expected", [
    ("[3 months]", "[2020-04-01,2020-07-01)"),   # quarters
    ("3 months", "[2020-04-01,2020-07-01)"),
    ("[years]", "[2020-01-01,2021-01-01)"),
    ("[10 years]", "[2020-01-01,2030-01-01)"),
    ("[weeks]", "[2020-05-11,2020-05-18)"),       # ISO weeks start on Monday
    ("[days]", "[2020-05-14,2020-05-15)"),
    ("[12 hours]", "[2020-05-14T12:00:00,2020-05-15)"),
])
def test_units_and_counts(spec, expected):
    m = chronolog.reason(f'@timeGranularity("hours"). g :- /\\{spec} p. p@2020-05-14T15:00.')
    assert m.to_text() == f"g@{expected}"


def test_period_boundaries():
    prog = '@timeGranularity("days"). g(X) :- /\\[months] p(X).\n'
    # an open end on a boundary stays in the earlier month; a closed one reaches the next
    m = chronolog.reason(prog + "p(a)@[2020-01-10, 2020-02-01). p(b)@[2020-01-10, 2020-02-01]. p(c)@(2020-01-31, 2020-02-01).")
    assert m.to_text() == ("g(a)@[2020-01-01,2020-02-01)\ng(b)@[2020-01-01,2020-03-01)\ng(c)@[2020-01-01,2020-02-01)")
    # an open start on a boundary: the points after it are in that month
    m = chronolog.reason(prog + "p(d)@(2020-02-01, 2020-02-03]. p(e)@(-inf, 2020-02-03]. p(f)@[2020-02-03, +inf).")
    assert m.to_text() == ("g(d)@[2020-02-01,2020-03-01)\ng(e)@(-inf,2020-03-01)\ng(f)@[2020-02-01,+inf)")


def test_numeric_timeline_grouping():
    m = chronolog.reason("g(X) :- /\\[10] p(X). h(X) :- /\\[1/2] p(X). p(a)@[11,21]. p(b)@(-inf,3). p(c)@(9.5,10).")
    assert m.to_text(["g"]) == "g(a)@[10,30)\ng(b)@(-inf,10)\ng(c)@[0,10)"
    assert m.to_text(["h"]) == "h(a)@[11,21.5)\nh(b)@(-inf,3)\nh(c)@[9.5,10)"


def test_grouping_composes_with_other_operators_and_joins():
    m = chronolog.reason('@timeGranularity("days").\n'
                         "g(X) :- <->[0,P1D] /\\[months] p(X), q(X).\n"
                         "h(X) :- /\\[months] <->[P1D,P1D] p(X).\n"
                         "p(a)@2020-01-31. q(a)@[2020-01-20, 2020-03-01).")
    assert m.to_text(["g"]) == "g(a)@[2020-01-20,2020-02-02)"
    assert m.to_text(["h"]) == "h(a)@[2020-02-01,2020-03-01)"


def test_time_grouping_by_months_in_recursion():
    # "active from the month after any active day on": spreads month by month;
    # months repeat with the 400-year Gregorian cycle, so no horizon is needed
    prog = ('@timeGranularity("days"). p(X) :- <->[P1D,P1D] /\\[months] p(X), q(X).'
            " q(a)@[2020-01-01, 2021-01-01). p(a)@2020-03-15.")
    assert chronolog.reason(prog).to_text(["p"]) == "p(a)@[2020-03-02,2021-01-01)"
    m = chronolog.reason(prog, horizon="2020-01-01,2020-12-31")
    assert m.to_text(["p"]) == "p(a)@[2020-03-02,2020-12-31]"  # March grouped, shifted a day, ...
    # grouping alone inside a cycle stays within the month
    m = chronolog.reason(prog.replace("<->[P1D,P1D] ", ""), horizon="2020-01-01,2020-12-31")
    assert m.to_text(["p"]) == "p(a)@[2020-03-01,2020-04-01)"


def test_months_and_years_over_facts_that_repeat_forever():
    """A weekly report touches every month (constant); a report every 45 days
    misses some months, in a pattern that repeats with lcm(45 days, 400
    years); far away, against the calendar itself."""
    import datetime as dt
    import random

    weekly = '@timeGranularity("days").\nr :- <->[7,7] r.\nm :- /\\[months] r.\ny :- /\\[years] r.\nr@2024-01-03.'
    m = chronolog.reason(weekly)
    assert m.to_text(["m", "y"]).splitlines() == ["m@[2024-01-01,+inf)", "y@[2024-01-01,+inf)"]
    prog = '@timeGranularity("days").\nr :- <->[45,45] r.\nm :- /\\[months] r.\nr@2024-01-03.'
    m = chronolog.reason(prog)
    base, rng = dt.date(2024, 1, 3), random.Random(7)
    for _ in range(60):
        day = base + dt.timedelta(days=rng.randrange(10**4, 10**6))
        first = day.replace(day=1)
        nxt = (first + dt.timedelta(days=32)).replace(day=1)
        truth = any((first + dt.timedelta(days=k) - base).days % 45 == 0 for k in range((nxt - first).days))
        assert m.holds(f"m@{day.isoformat()}") is truth, day


def test_groupings_of_one_length_repeat_without_a_horizon():
    """Days, weeks and numeric groupings repeat with their length: over
    facts that repeat forever and inside a recursion through time (where a
    grouping reads the future of its period: engine/two_way.py)."""
    import datetime as dt
    import random

    weekly = ('@timeGranularity("days").\njobReport :- <->[30,30] jobReport.\n'
              "reportWeek :- /\\[weeks] jobReport.\njobReport@2024-01-01.")
    m = chronolog.reason(weekly)
    lines = m.to_text(["reportWeek"]).splitlines()
    # lcm(30, 7): the seven weeks of one 210-day period, each repeating
    assert lines[0] == "reportWeek@[2024-01-01,2024-01-08) every P210D" and len(lines) == 7
    base, rng = dt.date(2024, 1, 1), random.Random(1)
    for _ in range(100):  # far away, against the calendar itself
        day = base + dt.timedelta(days=rng.randrange(10**5, 2 * 10**5))
        monday = day - dt.timedelta(days=day.weekday())
        truth = any((monday + dt.timedelta(days=k) - base).days % 30 == 0 for k in range(7))
        assert m.holds(f"reportWeek@{day.isoformat()}") is truth, day
    for prog in ("tick :- <->[3,3] tick.\nbusy :- /\\[5] tick.\ntick@0.",
                 "p :- <->[4,4] q.\nq :- /\\[3] p.\np@0.",
                 "p(X) :- <->[7,7] p(X), g(X).\nw(X) :- /\\[10] p(X).\np(X) :- <+>[2,2] w(X), g(X).\n"
                 "p(a)@1.\ng(a)@[-20,40].",
                 "p(X) :- <->[7,7] p(X).\nw(X) :- /\\[5] p(X).\nv(X) :- <+>[1,1] w(X), <->[2,2] v(X).\n"
                 "v(X) :- w(X), s(X).\np(a)@1.\ns(a)@[3,4].\n"):
        m = chronolog.reason(prog)
        bounded = chronolog.reason(prog, horizon=(-300, 300))
        for pred in m.predicates():
            assert sorted(m.facts_within(pred, (-100, 100))) == sorted(bounded.facts_within(pred, (-100, 100))), (prog, pred)


def test_a_calendar_cycle_beyond_8000_years_asks_for_a_horizon():
    prog = '@timeGranularity("days").\nr :- <->[7,7] r.\nm :- /\\[23 months] r.\nr@2024-01-03.'
    with pytest.raises(ProgramError) as e:
        chronolog.reason(prog)
    assert "8,000 years" in str(e.value) and e.value.pos.line == 3 and "horizon" in e.value.hint
    m = chronolog.reason(prog, horizon="2024-01-01,2030-01-01")
    assert m.to_text(["m"]) == "m@[2024-01-01,2030-01-01]"  # confined to the horizon


@pytest.mark.parametrize("prog,err,text", [
    ("g(X) :- /\\[months] p(X). p(a)@1.", ProgramError, "grouping by months needs a calendar timeline"),
    ("g(X) :- /\\[fortnights] p(X). p(a)@1.", SyntaxError_, "unknown time unit 'fortnights'"),
    ("g(X) :- /\\[0] p(X). p(a)@1.", SyntaxError_, "must be positive"),
    ('@timeGranularity("days"). g(X) :- /\\[1/2 months] p(X).', SyntaxError_, "positive whole number"),
])
def test_grouping_errors(prog, err, text):
    with pytest.raises(err) as e:
        chronolog.reason(prog)
    assert text in e.value.message
    assert e.value.pos is not None and e.value.pos.line == 1


def test_plan_shows_the_grouping():
    from chronolog.api import load_program
    from chronolog.planner import plan

    from chronolog.plan_text import describe_plan

    text = describe_plan(plan(load_program('@timeGranularity("days"). g(X) :- /\\[3 months] p(X).')))
    assert "G[3 months]" in text
