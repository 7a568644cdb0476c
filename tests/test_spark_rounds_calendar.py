"""A calendar timeline (``@timeGranularity``) in the relational rounds
(connectors/spark_rounds/calendar.py): dates and timestamps as time points
on a microsecond grid, durations as windows, against the embedded engine
on the same facts (marked ``spark``)."""

import datetime as dt
from decimal import Decimal
from fractions import Fraction
import warnings

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.engine.arrow import table_to_rows
from chronolog.language.dates import Calendar

from test_spark_rounds import RULES, canon, cs

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("rounds")]  # the rounds, not one task (conftest.py)
UTC = dt.timezone.utc


def check(spark, program, tables: dict, unit="days", **kw):
    """Run ``program`` both ways; assert the rounds ran and agree, the
    answers' times UTC timestamps."""
    cal = Calendar(unit)
    try:
        model = chronolog.reason(program, tables, **kw)
    except chronolog.InconsistencyError as e:  # a violated constraint (a random program's): the same violations from Spark
        with pytest.raises(chronolog.InconsistencyError) as got:
            cs().reason(spark, program, inputs=tables, distributed=True, **kw)
        if len(e.violations) < 20:  # (both found all of them)
            assert {(r, tuple(sorted(b.items())), iv) for r, b, iv in got.value.violations} == {
                (r, tuple(sorted(b.items())), iv) for r, b, iv in e.violations}
        return None, None
    stats = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", cs().DriverFallback)
        out = cs().reason(spark, program, inputs=tables, distributed=True, stats=stats, **kw)
    assert stats.get("path") == "relational"
    for p, df in out.items():
        t = df.toArrow()
        assert pa.types.is_timestamp(t.schema.field("start").type), t.schema
        assert canon(table_to_rows(t, p, cal)) == canon(model.facts(p)), p
    return out, model


PROGRAM = """
@timeGranularity("days").
r(X, Y) :- e(X, Y).
r(X, Z) :- r(X, Y), e(Y, Z).
soon(X, Y) :- <->[0,P3D] r(X, Y).
held(X, Y) :- [-][0,PT12H] r(X, Y).
quiet(X, Y) :- soon(X, Y), not late(Y).
e("c", "a")@[2020-01-10, 2020-01-12).
@output("r"). @output("soon"). @output("held"). @output("quiet").
"""


def dated():
    d = dt.date
    return pa.table({
        "x": ["a", "b", "a"], "y": ["b", "c", "c"],
        "start": pa.array([d(2020, 1, 1), d(2020, 1, 2), None], pa.date32()),
        "end": pa.array([d(2020, 1, 5), d(2020, 1, 3), d(2019, 12, 30)], pa.date32()),
        "start_closed": [True, False, True], "end_closed": [False, True, True],
    })


def stamped(tz=UTC):
    t = [dt.datetime(2020, 1, 2, 6, 30, tzinfo=tz), dt.datetime(2020, 1, 4, 18, tzinfo=tz)]
    typ = pa.timestamp("us", tz="UTC") if tz else pa.timestamp("us")
    return pa.table({"y": ["c", "b"], "start": pa.array(t, typ), "end": pa.array([t[1], None], typ)})


def test_dates_timestamps_and_durations_run_in_rounds(spark):
    out, _ = check(spark, PROGRAM, {"e": dated(), "late": stamped()})
    # three days after the fact, not three seconds; half a day held
    t = out["soon"].toArrow()
    got = set(zip(*(t.column(i).to_pylist() for i in (0, 1)), t.column("start").to_pylist(), t.column("end").to_pylist()))
    assert ("a", "b", dt.datetime(2020, 1, 1, tzinfo=UTC), dt.datetime(2020, 1, 8, tzinfo=UTC)) in got


def test_naive_timestamps_read_as_utc_and_a_window(spark):
    """Naive timestamps (a DataFrame column without zone) are UTC, as the
    driver reads them; a window of dates clips the answers."""
    late = spark.createDataFrame(stamped(None))
    check(spark, PROGRAM, {"e": dated(), "late": stamped(None)})
    model = chronolog.reason(PROGRAM, {"e": dated(), "late": stamped(None)})
    out = cs().reason(spark, PROGRAM, inputs={"e": spark.createDataFrame(dated()), "late": late}, distributed=True,
                      window=("2020-01-02", "2020-01-04T12:00:00"))
    cal = Calendar("days")
    lo, hi = cal.parse_point("2020-01-02"), cal.parse_point("2020-01-04T12:00:00")
    from chronolog.language.timeline import intersect

    want = {(t, intersect(iv, (lo, hi, True, True))) for t, iv in canon(model.facts("quiet"))}
    assert canon(table_to_rows(out["quiet"].toArrow(), "quiet", cal)) == {w for w in want if w[1] is not None}


def test_hours_granularity_and_a_horizon(spark):
    prog = """
    @timeGranularity("hours").
    r(X, Y) :- e(X, Y).
    r(X, Z) :- r(X, Y), <->[PT30M,PT90M] e(Y, Z).
    """
    check(spark, prog, {"e": dated()}, unit="hours", horizon=("2020-01-01", "2020-01-04"))


def test_a_window_off_the_microsecond_grid_is_refused_at_load(spark):
    """Half a microsecond: no run starts (neither the rounds nor one task),
    the window is named where it is written, with the microseconds on
    either side of it."""
    prog = PROGRAM.replace("PT12H", "PT0.0000005S")
    with warnings.catch_warnings():
        warnings.simplefilter("error", cs().DriverFallback)
        with pytest.raises(chronolog.ProgramError, match="the window PT0.0000005S is not a whole number of microseconds") as e:
            cs().reason(spark, prog, inputs={"e": dated(), "late": stamped()}, distributed=True)
    assert (e.value.pos.line, e.value.pos.column) == (6, 18)  # held(X, Y) :- [-][0,PT0.0000005S] r(X, Y).
    assert e.value.hint == "write it in whole microseconds: PT0.0000005S lies between PT0S and PT0.000001S"


def test_a_time_computed_off_the_microsecond_grid_is_a_data_error(spark):
    """A head interval computed by arithmetic (a seventh of a day): the
    answer Spark gives as a timestamp fails with the embedded outputs'
    message, naming the predicate and the microseconds around the time."""
    prog = """
    @timeGranularity("days").
    q(X)@[S, E] :- e(X, Y)@[S, E0], E = S + 1/7.
    @output("q").
    """
    e = pa.table({"x": ["a"], "y": ["b"], "start": pa.array([dt.date(2020, 1, 1)], pa.date32()),
                  "end": pa.array([dt.date(2020, 1, 3)], pa.date32())})
    with pytest.raises(chronolog.DataError, match=r"q: the time 11044944000/7 is not a whole number of microseconds, "
                       r"so a timestamp cannot hold it exactly \(between 2020-01-01T03:25:42.857142 and 2020-01-01T03:25:42.857143\)"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", cs().DriverFallback)
            out = cs().reason(spark, prog, inputs={"e": e}, distributed=True)
            for df in out.values():
                df.collect()


def test_times_as_numbers_on_a_calendar_go_to_one_task(spark):
    e = pa.table({"x": ["a"], "y": ["b"], "start": [1], "end": [2]})
    with pytest.warns(cs().DriverFallback, match="a time column of Spark type bigint on a calendar"):
        with pytest.raises(chronolog.DataError, match="holds numbers, but the program's timeline is dates"):
            cs().reason(spark, PROGRAM, inputs={"e": e, "late": stamped()}, distributed=True)


def test_an_input_near_the_last_year_goes_to_one_task(spark):
    """An answer moved by the program's windows past 9999-12-31 is no
    timestamp: the engine reports it, the rounds do not make one up."""
    e = pa.table({"x": ["a"], "y": ["b"], "start": pa.array([dt.date(9999, 12, 30)], pa.date32()),
                  "end": pa.array([dt.date(9999, 12, 31)], pa.date32())})
    with pytest.warns(cs().DriverFallback, match="an input row of e the engine must report"):
        with pytest.raises(chronolog.DataError, match="outside the years 1 to 9999"):
            out = cs().reason(spark, PROGRAM, inputs={"e": e, "late": stamped()}, distributed=True)
            for df in out.values():
                df.collect()


def test_plan_names_the_path_for_a_calendar(tmp_path):
    from chronolog.connectors.spark_rounds import describe
    from chronolog.api import load_program
    from chronolog.planner import plan

    assert describe(plan(load_program(PROGRAM))).startswith("seminaive rounds")
    with pytest.raises(chronolog.ProgramError, match="the window PT0.0000005S is not a whole number of microseconds"):
        load_program(PROGRAM.replace("PT12H", "PT0.0000005S"))


@st.composite
def dated_programs(draw):
    """The random programs of test_spark_rounds on a day calendar: windows
    of half days, days or two days, facts on dates and half days."""
    picked = [draw(st.sampled_from(RULES[1:3]))]
    picked += draw(st.lists(st.sampled_from([r for r in RULES[1:] if r != picked[0]]), max_size=3, unique=True))
    a = draw(st.sampled_from(["PT12H", "P1D", "P2D"]))
    rules = ['@timeGranularity("days").', RULES[0]] + [r.format(a=a) for r in picked]
    n = draw(st.integers(2, 4))
    es = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.integers(0, 12), st.integers(0, 6),
                                 st.booleans(), st.booleans()), min_size=1, max_size=7))
    base = dt.datetime(2020, 2, 27, tzinfo=UTC)  # across a leap day
    half = dt.timedelta(hours=12)
    t = pa.timestamp("us", tz="UTC")
    return "\n".join(rules), pa.table({
        "x": [x for x, *_ in es], "y": [y for _, y, *_ in es],
        "start": pa.array([base + lo * half for _, _, lo, *_ in es], t),
        "end": pa.array([base + (lo + d) * half for _, _, lo, d, *_ in es], t),
        "start_closed": [lc or d == 0 for *_, d, lc, _ in es], "end_closed": [hc or d == 0 for *_, d, _, hc in es],
    })


@settings(max_examples=examples(3), deadline=None, suppress_health_check=list(HealthCheck))
@given(dated_programs())
def test_random_dated_programs_equal_embedded(spark, case):
    prog, e = case
    check(spark, prog, {"e": e})


# ------------------------------------------- a numeric timeline in seconds

SECONDS = """
r(X, Y) :- e(X, Y).
r(X, Z) :- r(X, Y), e(Y, Z).
soon(X, Y) :- <->[0,90] r(X, Y).
quiet(X, Y) :- soon(X, Y), not late(Y).
@output("r"). @output("soon"). @output("quiet").
"""


@pytest.mark.parametrize("timestamps", [False, True])
def test_dates_and_timestamps_on_a_numeric_timeline_are_seconds(spark, timestamps):
    """Without a calendar, date and timestamp columns are exact seconds since
    1970 (as the engine reads them); ``timestamps=True`` gives the answers'
    ends as UTC timestamps."""
    tables = {"e": dated(), "late": stamped()}
    rows = {p: table_to_rows(t, p, None, timestamps="times") for p, t in tables.items()}
    model = chronolog.reason(SECONDS, rows)
    stats = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", cs().DriverFallback)
        out = cs().reason(spark, SECONDS, inputs=tables, distributed=True, stats=stats, timestamps=timestamps)
    assert stats.get("path") == "relational"
    for p, df in out.items():
        t = df.toArrow()
        assert pa.types.is_timestamp(t.schema.field("start").type) == timestamps
        assert canon(table_to_rows(t, p, None, timestamps="times")) == canon(model.facts(p)), p


def test_answers_as_timestamps_beyond_the_year_9999_go_to_one_task(spark):
    e = pa.table({"x": ["a"], "y": ["b"], "start": [0], "end": [300_000_000_000]})  # seconds: year 11476
    with pytest.warns(cs().DriverFallback, match="an input row of e the engine must report"):
        with pytest.raises(chronolog.DataError, match="outside the years 1 to 9999"):
            out = cs().reason(spark, SECONDS, inputs={"e": e, "late": stamped()}, distributed=True, timestamps=True)
            for df in out.values():
                df.collect()


def _same_tables(out: dict, model):
    """Each output as ``model.to_arrow`` gives it: the rows, and the column
    types where there are rows (an empty column's type is no one's answer)."""
    for p, df in out.items():
        got, want = df.toArrow(), model.to_arrow(p)
        assert sorted(got.to_pylist(), key=repr) == sorted(want.to_pylist(), key=repr), p
        if want.num_rows:
            assert got.schema.types == want.schema.types, p


@pytest.mark.parametrize("zone", ["UTC", "America/New_York", "Asia/Tokyo"])
def test_date_terms_are_instants_in_rounds(spark, zone):
    """A date argument is an instant (engine/term_types.py): the rounds hold
    it as a Spark DATE (classes.DATE), joined, negated and compared with
    dates (a date constant too) as the engine does, never equal to a number,
    in any session time zone; a DATE in gives a DATE out.  Arithmetic,
    sums and minima of dates go to one task, whose engine refuses the
    arithmetic as the embedded one does."""
    prog = """
    r(X, Y, D) :- e(X, Y, D).
    r(X, Z, D) :- r(X, Y, D), e(Y, Z, D2), D2 >= D.
    early(X, D) :- r(X, Y, D), D < 2020-01-01.
    same(X, Y) :- r(X, Y, D), seen(Y, D).
    unseen(X, D) :- r(X, Y, D), not seen(Y, D).
    fixed(X) :- r(X, Y, 2020-01-01).
    num(X) :- r(X, Y, D), D == 1577836800.
    many(X, N) :- r(X, Y, D), N = count(D).
    @output("r"). @output("early"). @output("same"). @output("unseen"). @output("fixed"). @output("num"). @output("many").
    """
    d = dt.date
    e = pa.table({"x": ["a", "b", "a"], "y": ["b", "c", "c"],
                  "d": pa.array([d(2020, 1, 1), d(2020, 1, 2), d(2019, 12, 31)], pa.date32()),
                  "start": [0, 1, 2], "end": [10, 10, 10]})
    seen = pa.table({"y": ["b", "c"], "t": pa.array([d(2020, 1, 1), d(2020, 1, 1)], pa.date32()), "start": [0, 0], "end": [5, 5]})
    model = chronolog.reason(prog, {"e": e, "seen": seen})
    assert not model.facts("num") and model.facts("same") and model.facts("fixed") and model.facts("early")
    stats = {}
    key = "spark.sql.session.timeZone"
    old = spark.conf.get(key)
    spark.conf.set(key, zone)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", cs().DriverFallback)
            out = cs().reason(spark, prog, inputs={"e": e, "seen": seen}, distributed=True, stats=stats)
        assert stats.get("path") == "relational"
        _same_tables(out, model)
        assert out["r"].toArrow().schema.field("c2").type == pa.date32()
    finally:
        spark.conf.set(key, old)
    gap = prog + "gap(X, G) :- r(X, Y, D), seen(Y, T), G = T - D, G > 0.\n"
    with pytest.raises(chronolog.DataError) as embedded:
        chronolog.reason(gap, {"e": e, "seen": seen})
    with pytest.warns(cs().DriverFallback, match="date"), pytest.raises(chronolog.DataError) as spark_error:
        cs().reason(spark, gap, inputs={"e": e, "seen": seen}, distributed=True)
    assert "both must be numbers" in str(embedded.value) and "both must be numbers" in str(spark_error.value)


def test_date_terms_on_a_calendar_run_in_rounds(spark):
    e = pa.table({"x": ["a", "b"], "y": ["b", "c"], "d": pa.array([dt.date(2020, 1, 1), dt.date(2020, 1, 1)], pa.date32()),
                  "start": pa.array([dt.date(2020, 1, 1)] * 2, pa.date32()), "end": pa.array([dt.date(2020, 1, 2)] * 2, pa.date32())})
    prog = '@timeGranularity("days").\nr(X, Y, D) :- e(X, Y, D).\nr(X, Z, D) :- r(X, Y, D), e(Y, Z, D2), D2 >= D.\n@output("r").\n'
    model = chronolog.reason(prog, {"e": e})
    stats = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", cs().DriverFallback)
        out = cs().reason(spark, prog, inputs={"e": e}, distributed=True, stats=stats)
    assert stats.get("path") == "relational"
    got = out["r"].toArrow()
    assert got.schema.field("c2").type == pa.date32() and got.num_rows == 3
    assert canon(table_to_rows(got, "r", model.calendar)) == canon(model.facts("r"))


def test_aggregation_and_since_on_a_calendar(spark):
    """The two rounds branches together: sums, a maximum over a diamond of
    days and a Since with a window of days, on dates, equal the embedded
    engine (the ends are microseconds on both operators' codes)."""
    prog = """@timeGranularity("days").
    far(X, Z) :- leg(X, Y, D), leg(Y, Z, E).
    total(X, S) :- leg(X, Y, D), S = sum(D).
    top(X, M) :- <->[0,P2D] leg(X, Y, D), M = max(D).
    since(X) :- leg(X, Y, D) <S>[P1D,P3D] leg(X, Y, D).
    @output("far"). @output("total"). @output("top"). @output("since").
    """
    legs = pa.table({"x": ["a", "a", "b", "c"], "y": ["b", "c", "c", "a"], "d": [2, 3, 5, 7],
                     "start": [dt.date(2024, 3, 1), dt.date(2024, 3, 3), dt.date(2024, 3, 2), dt.date(2024, 3, 10)],
                     "end": [dt.date(2024, 3, 9), dt.date(2024, 3, 5), dt.date(2024, 3, 20), dt.date(2024, 3, 12)]})
    out, model = check(spark, prog, {"leg": legs})
    assert {p: len(model.facts(p)) for p in out} == {"far": 2, "total": 5, "top": 5, "since": 3}


def test_a_market_wide_mean_on_dates_runs_in_the_rounds(spark):
    """A mean over every symbol's daily close (no key), and what is
    computed on it (above it, its floor, its float, ``3M - 1``): exact
    fractions as term text on a calendar too, as the engine's (7/3 is
    no 64-bit integer); it went to one task."""
    prog = """@timeGranularity("days").
    pairs(X, Y) :- close(X, P), close(Y, Q), X != Y.
    mean(M) :- close(X, P), M = avg(P).
    above(X) :- close(X, P), mean(M), P > M.
    whole(W, F, D) :- mean(M), W = floor(M), F = float(M), D = M * 3 - 1.
    @output("mean"). @output("above"). @output("whole").
    """
    d = dt.date
    close = pa.table({"x": ["a", "b", "c", "a"], "p": [1, 2, 4, 3],
                      "start": [d(2024, 3, 1), d(2024, 3, 1), d(2024, 3, 2), d(2024, 3, 4)],
                      "end": [d(2024, 3, 3), d(2024, 3, 5), d(2024, 3, 4), d(2024, 3, 6)]})
    out, model = check(spark, prog, {"close": close})
    means = {t[0] for t, _ in model.facts("mean")}
    assert Fraction(7, 3) in means and Fraction(3, 2) in means, means


MEANS_ON_DATES = """@timeGranularity("days").
pairs(X, Y) :- close(X, P), close(Y, Q), X != Y.
mean(M) :- close(X, P), M = avg(P).
moving(X, M) :- <->[0,P2D] close(X, P), M = avg(P).
above(X) :- close(X, P), mean(M), P > M.
on(W, F, D) :- mean(M), W = round(M, 1), F = float(M), D = M * 3 - 1.
@output("mean"). @output("moving"). @output("above"). @output("on").
"""


@settings(max_examples=examples(4), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from("abc"), st.integers(-9, 9), st.integers(0, 12), st.integers(0, 6), st.booleans()),
                min_size=1, max_size=7))
def test_random_means_on_dates_equal_embedded(spark, rows):
    """Means of random closes on half days (a market-wide one, a moving
    one per symbol over two days) and what is computed on them, exact
    fractions on a calendar, in the rounds: the engine's answers."""
    base, half = dt.datetime(2024, 2, 27, tzinfo=UTC), dt.timedelta(hours=12)
    t = pa.timestamp("us", tz="UTC")
    close = pa.table({"x": [x for x, *_ in rows], "p": [p for _, p, *_ in rows],
                      "start": pa.array([base + lo * half for _, _, lo, _, _ in rows], t),
                      "end": pa.array([base + (lo + d) * half for _, _, lo, d, _ in rows], t),
                      "end_closed": [c or d == 0 for *_, d, c in rows]})
    check(spark, MEANS_ON_DATES, {"close": close})


def test_an_argument_of_several_kinds_on_dates_runs_in_the_rounds(spark):
    """Strings, a number, dates (a column's and a constant) and a mean
    written into one argument on a calendar: term text, each value's key
    text as the engine's, joined with itself; it went to one task."""
    prog = """@timeGranularity("days").
    far(X, Z) :- e(X, Y, D), e(Y, Z, F).
    k(X, Y) :- e(X, Y, D).
    k(X, 5) :- e(X, Y, D).
    k(X, D) :- e(X, Y, D).
    k(X, 2024-01-02) :- e(X, Y, D).
    k(X, M) :- e(X, Y, D), M = avg(N), n(Y, N).
    j(X, Y) :- k(X, Y), k(Y, X).
    @output("k"). @output("j").
    """
    d = dt.date
    e = pa.table({"x": ["a", "b", "c"], "y": ["b", "c", "a"], "d": pa.array([d(2024, 1, 1), d(2024, 1, 2), d(2024, 1, 1)], pa.date32()),
                  "start": [d(2024, 3, 1), d(2024, 3, 2), d(2024, 3, 3)], "end": [d(2024, 3, 9), d(2024, 3, 5), d(2024, 3, 20)]})
    n = pa.table({"y": ["a", "b", "c", "a"], "n": [1, 2, 2, 4], "start": [d(2024, 3, 1)] * 4, "end": [d(2024, 3, 10)] * 4})
    out, model = check(spark, prog, {"e": e, "n": n})
    kinds = {type(t[1]).__name__ for t, _ in model.facts("k")}
    assert {"str", "int", "datetime", "Fraction"} <= kinds, kinds


# ------------------------------- time grouping and interval terms on dates

GROUPED = r"""@timeGranularity("days").
far(X, Z) :- a(X, Y, V), a(Y, Z, W).
m(X) :- /\[months] a(X, Y, V).
q(X) :- /\[3 months] a(X, Y, V).
y(X) :- /\[years] a(X, Y, V).
y2(X) :- /\[2 years] a(X, Y, V).
wk(X) :- /\[weeks] a(X, Y, V).
h(X) :- /\[5 hours] a(X, Y, V).
d(X) :- /\[2] <->[0,PT12H] a(X, Y, V).
total(X, S) :- /\[months] a(X, Y, V), S = sum(V).
@output("m"). @output("q"). @output("y"). @output("y2"). @output("wk"). @output("h"). @output("d"). @output("total").
"""


def instants(*ts):
    return pa.array([None if t is None else dt.datetime(*t, tzinfo=UTC) for t in ts], pa.timestamp("us", tz="UTC"))


def test_time_grouping_by_calendar_units(spark):
    """Months of 29 and 31 days, quarters and pairs of years aligned to
    January (of year 0), ISO weeks from Monday, periods of hours and of
    days, before and after 1970, ends open and closed at a period's start,
    an unbounded start, and a sum per month: equal to the engine."""
    a = pa.table({
        "x": ["a", "b", "c", "d", "e"], "y": ["b", "c", "a", "a", "b"], "v": [1, 2, 3, 4, 5],
        "start": instants((2020, 1, 2, 6), (2020, 2, 27), (1969, 12, 31, 23), (2020, 3, 1), None),
        "end": instants((2020, 1, 5), (2020, 3, 1), (1970, 1, 1, 1), (2021, 1, 1), (1968, 2, 29)),
        "start_closed": [True, True, False, True, True], "end_closed": [True, False, True, False, True],
    })
    _, model = check(spark, GROUPED, {"a": a})
    cal = Calendar("days")
    day = lambda *t: cal.point(dt.datetime(*t))  # noqa: E731
    assert (("b",), (day(2020, 2, 1), day(2020, 3, 1), True, False)) in canon(model.facts("m"))  # a leap February
    assert (("c",), (day(1969, 12, 29), day(1970, 1, 5), True, False)) in canon(model.facts("wk"))  # Monday to Monday
    assert (("d",), (day(2020, 1, 1), day(2022, 1, 1), True, False)) in canon(model.facts("y2"))


INTERVALS = r"""@timeGranularity("days").
far(X, Z) :- a(X, Y, V), a(Y, Z, W).
ends(X, S, E) :- a(X, Y, V)@[S, E].
span(X)@[S, E) :- ends(X, S, E1), ends(Y, E, E2), X != Y.
moved(X)@(S, E] :- ends(X, S, E1), b(X, E).
at(X, T) :- a(X, Y, V)@T.
@output("ends"). @output("span"). @output("moved"). @output("at").
"""


@pytest.mark.parametrize("v", [[1, 2, 3], [Decimal("1.25"), Decimal("2"), Decimal("3")]])
def test_interval_terms_on_a_calendar(spark, v):
    """A maximal interval's ends as terms are days since 1970 (a quarter day
    is 0.25 in a run of 2-decimal numbers; the integer run has whole days
    here), and heads placed on days from terms are dates again; time
    capture gives whole days."""
    quarter = isinstance(v[0], Decimal)
    a = pa.table({
        "x": ["a", "b", "c"], "y": ["b", "c", "a"], "v": v,
        "start": instants((2020, 1, 2, 6 if quarter else 0), (2020, 2, 27), (1969, 12, 30)),
        "end": instants((2020, 1, 5), (2020, 3, 1, 18 if quarter else 0), (1970, 1, 2)),
        "start_closed": [True, False, True], "end_closed": [True, True, False],
    })
    b = pa.table({"x": ["a", "c"], "t": [18270, 5], "start": instants((2020, 1, 1), (1969, 1, 1)),
                  "end": instants((2020, 1, 9), (1969, 1, 2))})
    _, model = check(spark, INTERVALS, {"a": a, "b": b})
    ends = {t for t, _ in canon(model.facts("ends"))}
    assert ("a", Fraction(73053, 4) if quarter else 18263, 18266) in ends and ("c", -2, 1) in ends


def test_an_end_with_no_decimal_as_a_term_goes_to_one_task(spark):
    """Eight hours is a third of a day: no decimal of the run holds it, so
    one task answers (with the rational the engine gives)."""
    a = pa.table({"x": ["a", "b"], "y": ["b", "a"], "v": [Decimal("1.5"), Decimal("2")],
                  "start": instants((2020, 1, 2, 8), (2020, 1, 1)), "end": instants((2020, 1, 5), (2020, 1, 2))})
    b = pa.table({"x": ["a"], "t": [18270], "start": instants((2020, 1, 1)), "end": instants((2020, 1, 9))})
    with pytest.warns(cs().DriverFallback, match="a time with more decimals than the numbers of the run"):
        out = cs().reason(spark, INTERVALS, inputs={"a": a, "b": b}, distributed=True)
    model = chronolog.reason(INTERVALS, {"a": a, "b": b})
    # (a column of rationals is exact text in a table: "54790/3")
    got = {((x, Fraction(s), e), iv) for (x, s, e), iv in canon(table_to_rows(out["ends"].toArrow(), "ends", Calendar("days")))}
    assert got == canon(model.facts("ends"))
    assert ("a", Fraction(54790, 3), 18266) in {t for t, _ in canon(model.facts("ends"))}


def test_a_month_past_the_year_9999_goes_to_one_task(spark):
    """The month around 9999-12-15 ends at 10000-01-01, which no timestamp
    holds: the input is refused to one task, which reports it."""
    a = pa.table({"x": ["a"], "y": ["b"], "v": [1], "start": instants((9999, 12, 15)), "end": instants((9999, 12, 16))})
    with pytest.warns(cs().DriverFallback, match="an input row of a the engine must report"):
        with pytest.raises(chronolog.DataError, match="outside the years 1 to 9999"):
            out = cs().reason(spark, GROUPED, inputs={"a": a}, distributed=True)
            for df in out.values():
                df.collect()


DAY_ALIGNED = ["months", "3 months", "years", "2 years", "weeks", "2 days", "1"]


@st.composite
def grouped_programs(draw):
    """Random groupings (calendar units and /\\[N]) on a day or an hour
    calendar, after a diamond and under a sum, with the grouped intervals'
    ends as terms and heads placed on them, time capture of the facts' days
    or hours, over facts at quarter days
    across month, year and 1970 boundaries and a leap day."""
    unit = draw(st.sampled_from(["days", "hours"]))
    u1 = draw(st.sampled_from(DAY_ALIGNED))  # ends of whole days (or hours): integer terms
    u2 = draw(st.sampled_from(DAY_ALIGNED + ["5 hours", "1/2"]))
    w = draw(st.sampled_from(["PT6H", "P1D", "P3D"]))
    prog = "\n".join([
        f'@timeGranularity("{unit}").',
        "far(X, Z) :- a(X, Y, V), a(Y, Z, W).",
        rf"g(X, Y) :- /\[{u1}] a(X, Y, V).",
        rf"k(X) :- /\[{u2}] <->[0,{w}] a(X, Y, V).",
        rf"total(X, S) :- /\[{u1}] a(X, Y, V), S = sum(V).",
        "ends(X, S, E) :- g(X, Y)@[S, E].",
        "span(X)@[S, E) :- ends(X, S, E1), ends(Y, E, E2), X != Y.",
        "at(X, T) :- a(X, Y, V)@T.",
        '@output("g"). @output("k"). @output("total"). @output("ends"). @output("span"). @output("at").',
    ])
    starts = [(1969, 12, 31, 18), (2019, 12, 31, 18), (2020, 1, 31), (2020, 2, 28, 12), (2020, 2, 29),
              (2020, 3, 1), (2020, 12, 31, 6), (2021, 1, 4)]
    rows = draw(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(-3, 5), st.sampled_from(starts),
                                   st.sampled_from([0, 1, 4, 120, 280]), st.booleans(), st.booleans()),
                         min_size=1, max_size=6))
    quarter = dt.timedelta(hours=6)
    lo = [dt.datetime(*s, tzinfo=UTC) for *_, s, _, _, _ in rows]
    return unit, prog, pa.table({
        "x": [r[0] for r in rows], "y": [r[1] for r in rows], "v": [r[2] for r in rows],
        "start": pa.array(lo, pa.timestamp("us", tz="UTC")),
        "end": pa.array([t + r[4] * quarter for t, r in zip(lo, rows)], pa.timestamp("us", tz="UTC")),
        "start_closed": [r[5] or r[4] == 0 for r in rows], "end_closed": [r[6] or r[4] == 0 for r in rows],
    })


@settings(max_examples=examples(3), deadline=None, suppress_health_check=list(HealthCheck))
@given(grouped_programs())
def test_random_grouping_and_interval_terms_on_a_calendar(spark, case):
    unit, prog, a = case
    check(spark, prog, {"a": a}, unit=unit)


def test_a_grouping_reaching_year_0_or_10000_is_a_clear_error_in_the_rounds(spark):
    """Spark's timestamps hold years 1..9999: a period that starts in year 0
    or ends in year 10000 is refused in one sentence (the engine prints it as
    ISO 8601 does, tests/test_astronomical_years.py), never a wrong time."""
    from chronolog.language.errors import DataError

    a = pa.table({"x": ["a", "c"], "start": pa.array([dt.date(1, 3, 1), dt.date(9999, 6, 1)], pa.date32()),
                  "end": pa.array([dt.date(1, 3, 1), dt.date(9999, 6, 1)], pa.date32())})
    prog = '@timeGranularity("days").\n@output("g").\ng(X) :- /\\[2 years] a(X).\n'
    assert chronolog.reason(prog, {"a": a}).to_text() == "g(a)@[0000-01-01,0002-01-01)\ng(c)@[9998-01-01,+10000-01-01)"
    with pytest.raises(DataError, match="outside the years 1 to 9999 that a timestamp holds"):
        cs().reason(spark, prog, inputs={"a": a}, distributed=True)
