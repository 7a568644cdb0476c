"""Dates and timestamps as arguments follow one rule on every path
(engine/term_types.py): an instant, equal to a date or timestamp at the
same instant, never to a number, and typed out as it came in (a DATE in
gives a DATE out).  The oracle is the embedded engine on the same Arrow
tables (``chronolog.reason(prog, {p: table})``), which nobody wrote for
Spark; every Spark path must give its model, column types included, in
any session time zone (marked ``spark``).
"""

import datetime as dt
import warnings
from contextlib import contextmanager

import pyarrow as pa
import pytest
from budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chronolog

pytestmark = pytest.mark.spark

UTC = dt.timezone.utc
ZONES = ["America/New_York", "Asia/Tokyo", "UTC"]

# A DATE key, the integer of its midnight's seconds, a timestamp with a
# zone at the same instant as a date (one key), a timestamp without one
# (a wall clock read as UTC) and an instant off midnight.
JOINS = """
j(X) :- p(X, V), q(X, W).
n(X) :- p(X, V), not qk(X).
same(X, V) :- p(X, V), z(X).
wall(X, V) :- p(X, V), w(X).
@output("j"). @output("n"). @output("same"). @output("wall").
"""
# the same with a rule that keeps no key (two keys, compared): one task or the rounds
NO_KEY = JOINS + """stamp(T, X) :- w(T), p(X, V), T > X.
@output("stamp").
"""
KEYS = {"p": 0, "q": 0, "qk": 0, "z": 0, "w": 0}


def _tables():
    day = dt.date(2024, 1, 1)
    return {
        "p": pa.table({"k": pa.array([day, dt.date(2024, 1, 2), dt.date(2023, 12, 31)], pa.date32()), "v": [1, 2, 3],
                       "start": [0, 0, 0], "end": [10, 10, 10]}),
        "q": pa.table({"k": pa.array([1704067200], pa.int64()), "w": [2], "start": [5], "end": [10]}),
        "qk": pa.table({"k": pa.array([1704067200, 1704153600], pa.int64()), "start": [5, 0], "end": [10, 3]}),
        "z": pa.table({"k": pa.array([dt.datetime(2024, 1, 2, 9, tzinfo=dt.timezone(dt.timedelta(hours=9)))],
                                     pa.timestamp("us", tz="Asia/Tokyo")), "start": [2], "end": [4]}),
        "w": pa.table({"k": pa.array([dt.datetime(2023, 12, 31), dt.datetime(2024, 1, 1, 12)], pa.timestamp("us")),
                       "start": [1, 6], "end": [3, 8]}),
    }


def _frame(spark, table):
    """A DataFrame of ``table`` whose timestamps without a zone stay so
    (``TIMESTAMP_NTZ``; Spark's own choice reads them in the session zone)."""
    from pyspark.sql.pandas.types import from_arrow_schema

    return spark.createDataFrame(table, schema=from_arrow_schema(table.schema))


@contextmanager
def _time_zone(spark, zone):
    """The shared session's time zone set to ``zone`` meanwhile, then restored."""
    key = "spark.sql.session.timeZone"
    old = spark.conf.get(key)
    spark.conf.set(key, zone)
    try:
        yield
    finally:
        spark.conf.set(key, old)


def _embedded(prog, tables):
    model = chronolog.reason(prog, tables)
    return {p: model.to_arrow(p) for p in _outputs(prog)}


def _outputs(prog):
    return {line.split('"')[1] for line in prog.split() if line.startswith("@output")}


def _rows(table):
    return sorted(table.to_pylist(), key=repr)


def _same_model(out: dict, expected: dict):
    for p, want in expected.items():
        got = out[p] if isinstance(out[p], pa.Table) else out[p].toArrow()
        terms = [f for f in want.schema if f.name not in ("start", "end", "start_closed", "end_closed")]
        assert [got.schema.field(f.name).type for f in terms] == [f.type for f in terms], p
        assert _rows(got.select(want.schema.names)) == _rows(want), p


def test_the_embedded_engine_keeps_instants_apart_from_numbers():
    """The reference itself, on the issue's data: a DATE 2024-01-01 is not
    the integer 1704067200, so ``j`` is empty and ``n`` holds on [0,10]."""
    out = _embedded(NO_KEY, _tables())
    assert out["j"].num_rows == 0
    assert _rows(out["n"].select(["c0", "start", "end"])) == sorted(
        [{"c0": dt.date(2023, 12, 31), "start": 0, "end": 10}, {"c0": dt.date(2024, 1, 1), "start": 0, "end": 10},
         {"c0": dt.date(2024, 1, 2), "start": 0, "end": 10}], key=repr)
    assert out["same"].column("c0").to_pylist() == [dt.date(2024, 1, 2)]  # 09:00 in Tokyo is midnight UTC
    assert out["wall"].column("c0").to_pylist() == [dt.date(2023, 12, 31)]  # a wall clock read as UTC
    assert out["stamp"].schema.types[:2] == [pa.timestamp("us"), pa.date32()]  # a DATE in gives a DATE out


@pytest.mark.parametrize("zone", ZONES)
@pytest.mark.parametrize("path", ["driver", "keyed", "one task", "rounds"])
def test_instant_arguments_give_the_embedded_model_in_any_time_zone(spark, zone, path):
    from chronolog import spark as cs
    from chronolog.connectors.spark_paths import ONE_TASK_CONF

    prog = JOINS if path in ("driver", "keyed") else NO_KEY
    tables = _tables()
    expected = _embedded(prog, tables)
    stats = {}
    with _time_zone(spark, zone), warnings.catch_warnings():
        warnings.simplefilter("ignore", cs.DriverFallback)
        frames = {p: _frame(spark, t) for p, t in tables.items()}  # (w: TIMESTAMP_NTZ)
        if path == "driver":
            out = cs.reason(spark, prog, frames, arrow=True, stats=stats)
        elif path == "keyed":
            out = cs.reason(spark, prog, frames, distributed=True, key=KEYS, partitions=2, arrow=True, stats=stats)
        else:  # no key (stamp joins two keys): one task by size, or the rounds (j's join of a DATE with an
            # integer binds nothing there, as embedded: test_instants_joined_with_numbers_run_in_rounds_in_any_time_zone)
            conf = {ONE_TASK_CONF: "-1"} if path == "rounds" else {}
            for k, v in conf.items():
                spark.conf.set(k, v)
            try:
                out = cs.reason(spark, prog, frames, distributed=True, partitions=2, stats=stats)
                out = {p: df.toArrow() for p, df in out.items()}
            finally:
                for k in conf:
                    spark.conf.unset(k)
        _same_model(out, expected)
    assert stats["path"] == {"driver": "driver", "keyed": "keyed", "rounds": "relational"}.get(path, "one task"), stats


# instants only, with no key: a DATE joined with a timestamp with a zone and
# one without, compared with them, negated against them, against a constant,
# their earliest at each time, and a program fact of a timestamp
INSTANTS = """same(X, V) :- p(X, V), z(X).
wall(X, V) :- p(X, V), w(X).
stamp(T, X) :- w(T), p(X, V), T > X.
lone(T) :- w(T), not z(T).
noon(T) :- w(T), T = 2024-01-01T12:00:00.
first(M) :- w(T), M = min(T).
w(2024-01-02T09:30:00.25)@[0,2].
@output("same"). @output("wall"). @output("stamp"). @output("lone"). @output("noon"). @output("first").
"""


def _rounds(spark, prog, tables, zone):
    """The rounds' answers to ``prog`` on ``tables`` (DataFrames of them) in
    a session of time zone ``zone``, asserted to run as rounds: no
    fallback to one task, ``stats["path"]`` relational."""
    from chronolog import spark as cs
    from chronolog.connectors.spark_paths import ONE_TASK_CONF

    stats = {}
    with _time_zone(spark, zone), warnings.catch_warnings():
        warnings.simplefilter("error", cs.DriverFallback)
        spark.conf.set(ONE_TASK_CONF, "-1")
        try:
            frames = {p: _frame(spark, t) for p, t in tables.items()}
            out = {p: df.toArrow() for p, df in cs.reason(spark, prog, frames, distributed=True, stats=stats).items()}
        finally:
            spark.conf.unset(ONE_TASK_CONF)
    assert stats["path"] == "relational", stats
    return out


@pytest.mark.parametrize("zone", ["America/New_York", "Asia/Tokyo"])
def test_instant_arguments_run_in_rounds_in_any_time_zone(spark, zone):
    """Timestamp arguments (with a zone and without one) beside DATEs run
    in Spark's rounds, not in one task, and give the embedded model, column
    types included (a column of instants that are all midnights is DATEs)."""
    tables = _tables()
    tables["z"] = pa.concat_tables([tables["z"], pa.table({  # 2023-12-31 midnight UTC, from New York: lone loses [1,2)
        "k": pa.array([dt.datetime(2023, 12, 30, 19, tzinfo=dt.timezone(dt.timedelta(hours=-5)))], pa.timestamp("us", tz="America/New_York")).cast(pa.timestamp("us", tz="Asia/Tokyo")),
        "start": [0], "end": [2]})])
    tables = {p: tables[p] for p in ("p", "z", "w")}
    expected = _embedded(INSTANTS, tables)
    assert expected["lone"].num_rows == 3 and expected["same"].num_rows == 2 and expected["noon"].num_rows == 1
    assert expected["wall"].schema.field("c0").type == pa.date32() and expected["lone"].schema.field("c0").type == pa.timestamp("us")
    _same_model(_rounds(spark, INSTANTS, tables, zone), expected)  # (w: TIMESTAMP_NTZ, z: TIMESTAMP)
    from chronolog.api import load_program
    from chronolog.plan_text import describe_plan
    from chronolog.planner import plan

    said = describe_plan(plan(load_program(INSTANTS)), "auto").splitlines()  # (chronolog plan: what the run did)
    assert said[3].startswith("spark --distributed: seminaive rounds of DataFrame joins per stratum"), said[:4]


# a variable joining instants with numbers, in two atoms, in one atom, in a
# negated atom, beside a rule that binds it; a string and a boolean with a
# number; and a constraint whose join never binds: the engine finds none of
# them equal (a DATE 2024-01-01 is not 1704067200, its midnight's seconds;
# a timestamp not its microseconds; "1704067200" not the number; #T not 1)
APART = """j(X) :- p(X, V), q(X, W).
n(X) :- p(X, V), not qk(X).
self(X) :- pq(X, X).
unself(X, V) :- p(X, V), not pq(X, X).
t(T) :- w(T), us(T).
m(T) :- w(T), not us(T).
s(X) :- names(X), q(X, W).
b(X) :- flags(X), q(X, W).
h(X) :- p(X, V), q(X, W).
h(X) :- p(X, V), V > 1.
via(X) :- p(X, V), r(X).
r(K) :- q(K, W).
stamp(T, X) :- w(T), p(X, V), T > X.
⊥ :- p(X, V), q(X, W).
""" + "".join(f'@output("{o}"). ' for o in ("j", "n", "self", "unself", "t", "m", "s", "b", "h", "via", "stamp")) + "\n"


def _apart_tables():
    tables = _tables()
    noon = dt.datetime(2024, 1, 1, 12)
    micros = [int(x.replace(tzinfo=UTC).timestamp()) * 10**6 for x in (noon, dt.datetime(2023, 12, 31))]
    tables["q"] = pa.table({"k": pa.array([1704067200, 1704153600, 1], pa.int64()), "w": [2, 3, 4], "start": [5, 0, 0], "end": [10, 3, 9]})
    tables["pq"] = pa.table({"a": pa.array([dt.date(2024, 1, 1)], pa.date32()), "b": pa.array([1704067200], pa.int64()),
                             "start": [2], "end": [4]})
    tables["us"] = pa.table({"k": pa.array(micros, pa.int64()), "start": [0, 0], "end": [9, 9]})
    tables["names"] = pa.table({"k": ["1704067200", "1"], "start": [0, 0], "end": [9, 9]})
    tables["flags"] = pa.table({"k": [True, False], "start": [0, 0], "end": [9, 9]})
    return tables


@pytest.mark.parametrize("zone", ZONES)
def test_instants_joined_with_numbers_run_in_rounds_in_any_time_zone(spark, zone):
    """A variable joining DATEs or timestamps with integers (and strings or
    booleans with integers) runs in the rounds, not one task, and binds
    nothing, as embedded: its join is empty, its negation removes nothing,
    a head it would feed is typed by its other rules (column types
    included), and a constraint on it holds nowhere."""
    tables = _apart_tables()
    expected = _embedded(APART, tables)
    assert all(expected[o].num_rows == 0 for o in ("j", "self", "t", "s", "b", "via"))
    assert expected["n"].num_rows == 3 and expected["unself"].num_rows == 3 and expected["m"].num_rows == 2
    assert expected["h"].schema.field("c0").type == pa.date32() and expected["h"].num_rows == 2
    _same_model(_rounds(spark, APART, tables, zone), expected)


def test_a_head_fed_by_a_join_that_binds_nothing_takes_no_type_from_it(spark):
    """``a`` joins a DATE with ``b``, which a rule of the same recursion
    makes integers: ``a`` binds nothing, so ``b`` holds integers alone (the
    rounds' classes are a least fixpoint, not every rule's heads at once,
    which put a DATE beside the integers in ``b``)."""
    prog = """a(X) :- p(X, V), b(X).
b(X) :- a(X).
b(K) :- q(K, W).
stamp(T, X) :- w(T), p(X, V), T > X.
@output("a"). @output("b"). @output("stamp").
"""
    tables = {k: v for k, v in _apart_tables().items() if k in ("p", "q", "w")}
    expected = _embedded(prog, tables)
    assert expected["a"].num_rows == 0 and expected["b"].schema.field("c0").type == pa.int64()
    _same_model(_rounds(spark, prog, tables, "UTC"), expected)


# munion and the other folds of instants: DATEs and timestamps (with a
# zone, without one, at midnight, with microseconds, before 1970 and
# before 1000), per group, in all, with contributors, sets joined, inside
# a recursion; mmin, mmax and mcount of them beside
FOLDED = """days(U) :- p(X, V), U = munion(X).
when(G, U) :- e(T, G), U = munion(T).
all(U) :- e(T, G), U = munion(T).
each(U) :- e(T, G), U = munion(T, <G>).
twins(G, H) :- when(G, U), when(H, U), G != H.
mixed(U) :- e(T, G), p(T, V), U = munion(T).
first(U) :- e(T, G), U = mmin(T).
last(G, U) :- e(T, G), U = mmax(T).
many(N) :- e(T, G), N = mcount().
r(T) :- e(T, G).
r(U) :- r(T), e(U, G), U > T.
seen(U) :- r(T), U = munion(T).
late(U) :- r(T), U = mmax(T).
""" + "".join(f'@output("{o}"). ' for o in ("days", "when", "all", "each", "twins", "mixed", "first", "last", "many", "seen", "late")) + "\n"


def _folded_tables():
    d, tokyo = dt.datetime, dt.timezone(dt.timedelta(hours=9))
    times = [d(2024, 1, 1), d(2024, 1, 1, 12), d(2024, 1, 2, 9, 30, 0, 250000), d(1969, 12, 31, 23, 59, 59, 1),
             d(999, 12, 31, 0, 0, 1), d(2024, 1, 2), d(2024, 3, 10, 2, 30), d(2024, 1, 2)]
    groups = [1, 1, 2, 2, 3, 3, 1, 5]  # (5: the set of 4, the zone's, until 4)
    spans = [(0, 4), (2, 8), (1, 9), (0, 3), (2, 9), (3, 6), (6, 9), (0, 9)]
    return {
        "p": pa.table({"k": pa.array([dt.date(2024, 1, 1), dt.date(2024, 1, 2), dt.date(1969, 12, 31), dt.date(500, 6, 1)], pa.date32()),
                       "v": [1, 2, 3, 4], "start": [0, 2, 1, 0], "end": [10, 6, 9, 9]}),
        "e": pa.table({"t": pa.array(times, pa.timestamp("us")), "g": groups,
                       "start": [a for a, _ in spans], "end": [b for _, b in spans]}),
        "z": pa.table({"t": pa.array([d(2024, 1, 2, 9, tzinfo=tokyo), d(2024, 1, 1, 21, 30, tzinfo=tokyo)], pa.timestamp("us", tz="Asia/Tokyo")),
                       "g": [4, 4], "start": [0, 4], "end": [6, 9]}),
    }


@pytest.mark.parametrize("zone", ZONES)
def test_folds_of_instants_run_in_rounds_in_any_time_zone(spark, zone):
    """``munion`` of dates and timestamps runs in the rounds, not one task:
    each set the engine's (members in time order, a midnight printed as
    its date, microseconds as Python prints them), and mmin, mmax and
    mcount of instants beside it, inside a recursion too."""
    prog = FOLDED.replace("e(T, G)", "ez(T, G)").replace("e(U, G)", "ez(U, G)")
    prog = "ez(T, G) :- e(T, G).\nez(T, G) :- z(T, G).\n" + prog  # (timestamps with a zone beside ones without)
    tables = _folded_tables()
    expected = _embedded(prog, tables)
    assert "{0500-06-01,1969-12-31,2024-01-01,2024-01-02}" in expected["days"].column("c0").to_pylist()
    assert any("1969-12-31T23:59:59.000001" in u and "0999-12-31T00:00:01" in u for u in expected["all"].column("c0").to_pylist())
    assert expected["twins"].num_rows and expected["mixed"].num_rows
    _same_model(_rounds(spark, prog, tables, zone), expected)


RANDOM = """set(G, U) :- e(T, G), U = munion(T).
days(U) :- d(X), U = munion(X).
least(U) :- e(T, G), U = mmin(T).
j(X) :- e(X, G), n(X).
k(X) :- d(X), n(X).
o(X) :- e(X, G), not n(X).
same(G, H) :- set(G, U), set(H, U), G < H.
""" + "".join(f'@output("{o}"). ' for o in ("set", "days", "least", "j", "k", "o", "same")) + "\n"


@settings(max_examples=examples(10), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.datetimes(dt.datetime(1, 1, 2), dt.datetime(9999, 12, 30)), st.booleans(), st.integers(0, 2),
                          st.integers(0, 6), st.integers(1, 4)), min_size=1, max_size=8),
       st.sampled_from(ZONES))
def test_random_instants_beside_numbers_in_rounds(spark, rows, zone):
    """Random instants (midnights or not, any year Python holds) in sets,
    least, joined with the integers of their seconds and microseconds:
    the rounds' answers and column types are the embedded engine's."""
    times = [t.replace(hour=0, minute=0, second=0, microsecond=0) if mid else t for t, mid, _, _, _ in rows]
    seconds = [int((t - dt.datetime(1970, 1, 1)).total_seconds()) for t in times]
    tables = {
        "e": pa.table({"t": pa.array(times, pa.timestamp("us")), "g": [g for _, _, g, _, _ in rows],
                       "start": [a for *_, a, _ in rows], "end": [a + n for *_, a, n in rows]}),
        "d": pa.table({"x": pa.array([t.date() for t in times], pa.date32()), "start": [0] * len(rows), "end": [9] * len(rows)}),
        "n": pa.table({"x": pa.array(seconds + [x * 10**6 for x in seconds], pa.int64()), "start": [0] * (2 * len(rows)),
                       "end": [5] * (2 * len(rows))}),
    }
    _same_model(_rounds(spark, RANDOM, tables, zone), _embedded(RANDOM, tables))


@pytest.mark.parametrize("zone", ["America/New_York", "Asia/Tokyo"])
def test_a_date_key_meets_a_timestamp_at_its_instant_in_tasks(spark, zone):
    """Many keys over many partitions: each date meets the timestamp (with
    a zone, and without one) of its midnight UTC in one task, as embedded."""
    from chronolog import spark as cs

    days = [dt.date(2020, 1, 1) + dt.timedelta(days=i) for i in range(40)]
    tables = {
        "p": pa.table({"k": pa.array(days, pa.date32()), "v": list(range(40)), "start": [0] * 40, "end": [10] * 40}),
        "z": pa.table({"k": pa.array([dt.datetime(d.year, d.month, d.day, tzinfo=UTC) for d in days[::2]], pa.timestamp("us", tz="UTC")),
                       "start": [0] * 20, "end": [5] * 20}),
        "w": pa.table({"k": pa.array([dt.datetime(d.year, d.month, d.day) for d in days[::3]], pa.timestamp("us")),
                       "start": [1] * 14, "end": [2] * 14}),
    }
    prog = """same(X, V) :- p(X, V), z(X).
wall(X, V) :- p(X, V), w(X).
lone(X) :- p(X, V), not z(X).
@output("same"). @output("wall"). @output("lone").
"""
    expected = _embedded(prog, tables)
    assert expected["same"].num_rows == 20 and expected["wall"].num_rows == 14
    with _time_zone(spark, zone):
        frames = {p: _frame(spark, t) for p, t in tables.items()}
        out = cs.reason(spark, prog, frames, distributed=True, key={"p": 0, "z": 0, "w": 0}, partitions=7, arrow=True)
        _same_model(out, expected)


@pytest.mark.parametrize("zone", ["America/New_York", "Asia/Tokyo"])
def test_dated_time_columns_on_the_rounds_in_any_time_zone(spark, zone):
    """A calendar program's DATE and timestamp time columns on the rounds
    (relational, no fallback) give the embedded model in any zone."""
    from chronolog.engine.arrow import table_to_rows

    prog = """@timeGranularity("hours").
r(X, Y) :- e(X, Y).
r(X, Z) :- r(X, Y), e(Y, Z).
soon(X) :- <->[0,PT5H] r(X, c), not late(X).
@output("r"). @output("soon").
"""
    d = dt.datetime
    tables = {
        "e": pa.table({"x": ["a", "b", "c"], "y": ["b", "c", "a"],
                       "start": pa.array([dt.date(2024, 3, 10), dt.date(2024, 3, 10), dt.date(2024, 3, 11)], pa.date32()),
                       "end": pa.array([dt.date(2024, 3, 12), dt.date(2024, 3, 11), dt.date(2024, 3, 12)], pa.date32())}),
        "late": pa.table({"x": ["a"], "start": pa.array([d(2024, 3, 10, 2, 30)], pa.timestamp("us")),
                          "end": pa.array([d(2024, 3, 10, 7)], pa.timestamp("us"))}),
    }
    model = chronolog.reason(prog, tables)
    got = {p: sorted(table_to_rows(t, p, model.calendar), key=repr) for p, t in _rounds(spark, prog, tables, zone).items()}
    for p in ("r", "soon"):
        assert got[p] == sorted(model.facts(p), key=repr), p
    assert got["soon"]


# ------------------------------------------------------------ round trips (issue 38)

ROUND_TRIP = """o(K, T, V) :- p(K, T, V).
@output("o").
"""


def _instants():
    return pa.table({
        "k": pa.array([dt.date(2024, 1, 1), dt.date(1969, 12, 31)], pa.date32()),
        "t": pa.array([dt.datetime(2024, 1, 1, 12, 0, 0, 500), dt.datetime(2024, 3, 10, 2, 30)], pa.timestamp("us")),
        "v": [1, 2], "start": [0, 1], "end": [10, 11],
    })


def _table_rows(table):
    return sorted(table.select([n for n in table.schema.names]).to_pylist(), key=repr)


@pytest.mark.parametrize("zone", ["Asia/Tokyo", "America/New_York"])
@pytest.mark.parametrize("distributed", [False, True])
def test_a_dataframe_keeps_its_dates_and_timestamps_through_spark(spark, zone, distributed):
    """A DATE in gives a DATE out, a timestamp without a zone one without
    (the embedded Arrow path's types), whatever the session's time zone."""
    from chronolog import spark as cs

    want = chronolog.reason(ROUND_TRIP, {"p": _instants()}).to_arrow("o")
    assert want.schema.types[:2] == [pa.date32(), pa.timestamp("us")]
    with _time_zone(spark, zone), warnings.catch_warnings():
        warnings.simplefilter("ignore", cs.DriverFallback)
        out = cs.reason(spark, ROUND_TRIP, {"p": _frame(spark, _instants())}, distributed=distributed)["o"]
        assert [f.dataType.simpleString() for f in out.schema.fields[:2]] == ["date", "timestamp_ntz"]
        got = out.toArrow()
    assert got.schema.types[:2] == want.schema.types[:2]
    assert _table_rows(got) == _table_rows(want)


@pytest.mark.parametrize("kind", ["parquet", "spark parquet"])
@pytest.mark.parametrize("distributed", [False, True])
def test_bound_parquet_keeps_dates_and_timestamps_through_spark(spark, tmp_path, kind, distributed):
    """``chronolog run --spark`` (run_program, on the shared session) writes
    a bound Parquet output with the types the embedded run writes."""
    import pyarrow.parquet as pq

    from chronolog import spark as cs

    pq.write_table(_instants(), tmp_path / "p.parquet")
    prog = f'@bind("p", "{kind}", ".", "p.parquet").\n@bind("o", "{kind}", ".", "o.parquet").\n' + ROUND_TRIP
    (tmp_path / "spark.vada").write_text(prog)
    (tmp_path / "embedded.vada").write_text(prog.replace('"o.parquet"', '"want.parquet"').replace('"spark parquet"', '"parquet"'))
    from chronolog.cli import cli
    from click.testing import CliRunner

    assert CliRunner().invoke(cli, ["run", str(tmp_path / "embedded.vada")]).exit_code == 0
    want = pq.read_table(tmp_path / "want.parquet")
    assert want.schema.field("c0").type == pa.date32()
    with _time_zone(spark, "Asia/Tokyo"), warnings.catch_warnings():
        warnings.simplefilter("ignore", cs.DriverFallback)
        cs.run_program(spark, tmp_path / "spark.vada", distributed=distributed)
    got = pq.read_table(tmp_path / "o.parquet")
    assert got.schema.types[:2] == want.schema.types[:2]
    assert _table_rows(got.select(want.schema.names)) == _table_rows(want)


def test_the_chronolog_data_source_keeps_dates_and_timestamps(spark, tmp_path):
    """Fact text with date and datetime arguments reads as DATE and
    TIMESTAMP_NTZ columns (as ``Model.to_arrow`` types them) and writes
    back the same text, in any session time zone."""
    text = "p(2024-01-01,2024-01-01T12:00:00.0005,1)@[0,10]\np(1969-12-31,2024-03-10T02:30:00,2)@[1,11]\n"
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.facts").write_text(text)
    want = chronolog.reason("", text).to_arrow("p")
    with _time_zone(spark, "America/New_York"):
        df = spark.read.format("chronolog").option("predicate", "p").load(str(tmp_path / "in"))
        got = df.toArrow()
        df.write.format("chronolog").option("predicate", "p").mode("append").save(str(tmp_path / "out"))
    assert got.schema.types[:2] == [pa.date32(), pa.timestamp("us")] == want.schema.types[:2]
    assert _table_rows(got) == _table_rows(want)
    written = "".join(sorted(f.read_text() for f in (tmp_path / "out").iterdir() if f.suffix == ".facts"))
    assert chronolog.reason("", written).facts("p") == chronolog.reason("", text).facts("p")
    assert "p(2024-01-01,2024-01-01T12:00:00.0005,1)@[0,10]" in written.splitlines()


@pytest.mark.parametrize("zone", ["America/New_York", "Asia/Tokyo"])
def test_a_csv_date_key_meets_a_parquet_date_in_tasks(spark, tmp_path, zone):
    """A CSV column mapped ``date`` keys as the instant the CSV reader reads
    (with an offset at that offset), meeting a Parquet DATE in one task."""
    import pyarrow.parquet as pq

    from chronolog import spark as cs

    days = [dt.date(2024, 1, 1) + dt.timedelta(days=i) for i in range(30)]
    cells = [f"{d.isoformat()}" if i % 3 else f"{(d - dt.timedelta(days=1)).isoformat()}T19:00:00-05:00" for i, d in enumerate(days)]
    (tmp_path / "c.csv").write_text("k,start,end\n" + "".join(f"{c},0,5\n" for c in cells[::2]))
    pq.write_table(pa.table({"k": pa.array(days, pa.date32()), "v": list(range(30)), "start": [0] * 30, "end": [9] * 30}),
                   tmp_path / "p.parquet")
    rules = """@mapping("c", 0, "k", "date").
both(K, V) :- p(K, V), c(K).
only(K) :- p(K, V), not c(K).
@output("both"). @output("only").
"""
    binds = '@bind("p", "{0}parquet", ".", "p.parquet").\n@bind("c", "{0}csv", ".", "c.csv").\n'
    (tmp_path / "e.vada").write_text(binds.format("") + rules)
    (tmp_path / "s.vada").write_text(binds.format("spark ") + rules)
    embedded = chronolog.reason(tmp_path / "e.vada", base_dir=tmp_path)
    assert len(embedded.facts("both")) == 15
    with _time_zone(spark, zone):
        out = cs.run_program(spark, tmp_path / "s.vada", distributed=True)
        for p in ("both", "only"):
            got = out[p].toArrow()
            want = embedded.to_arrow(p)
            assert got.schema.types[0] == want.schema.types[0] == pa.date32(), p
            assert _table_rows(got.select(want.schema.names)) == _table_rows(want), p


@pytest.mark.parametrize("distributed", [False, True])
def test_durations_and_boolean_times_are_refused_through_spark(spark, distributed):
    """A Spark interval (day to second) argument or a boolean end went in as
    an opaque timedelta or as #T/1 depending on the path; every path now
    gives the embedded engine's one sentence."""
    from chronolog import spark as cs

    cases = [
        (spark.createDataFrame([(dt.timedelta(1), 0, 1)], "c0 interval day to second, start long, end long"), "c0 holds values of type duration[us], which are not constants"),
        (spark.createDataFrame([("a", 0, True)], "c0 string, start long, end boolean"), "end holds values of type bool, which are not time points"),
    ]
    for frame, says in cases:
        with pytest.raises(chronolog.ChronologError) as e:
            cs.reason(spark, 'q(X) :- p(X). @output("q").', {"p": frame}, distributed=distributed, arrow=True)
        assert f"p: the column {says}" in e.value.message, e.value.message


def test_a_start_column_named_in_another_case_is_named_through_spark(spark):
    from chronolog import spark as cs

    frame = spark.createDataFrame([("a", 0, 1)], "c0 string, Start long, end long")
    with pytest.raises(chronolog.ChronologError) as e:
        cs.reason(spark, 'q(X) :- p(X). @output("q").', {"p": frame}, arrow=True)
    assert "has no 'start' column" in e.value.message and e.value.hint.startswith("rename the column 'Start' to 'start'")


@pytest.mark.parametrize("column", ["v", "end"])
def test_a_nan_in_a_spark_task_names_its_row_by_its_values(spark, column):
    """A task reads a slice of the input, so its row numbers are not the
    DataFrame's: a NaN in the second row was "NaN in row 0". The row is
    named by its values, as a null one is, on the driver and in tasks."""
    from chronolog import spark as cs

    rows = [("a", 1.5, 0, 5.0), ("b", 2.5, 0, 5.0)]
    rows[1] = ("b", float("nan"), 0, 5.0) if column == "v" else ("b", 2.5, 0, float("nan"))
    frame = spark.createDataFrame(rows, "k string, v double, start long, end double")
    program = 'q(K, V) :- m(K, V). @output("q").'
    says = "the row k='b', v=nan, start=0, end=5.0" if column == "v" else "the row k='b', v=2.5, start=0, end=nan"
    with pytest.raises(chronolog.DataError) as e:
        chronolog.reason(program, {"m": frame.toArrow()})
    assert f"m: the column {column} is NaN in {says}" in e.value.message, e.value.message
    for distributed in (False, True):
        with pytest.raises(chronolog.DataError) as e:
            cs.reason(spark, program, {"m": frame}, distributed=distributed, arrow=True)
        assert f"m: the column {column} is NaN in {says}" in e.value.message, (distributed, e.value.message)


def test_the_chronolog_data_source_reads_into_a_given_schema_of_zoned_timestamps(spark, tmp_path):
    """A schema given with TIMESTAMP columns (Spark's zoned type, for an
    argument of instants and for the time columns) reads the instants and
    the seconds as such, in any session time zone: the read stopped in
    every task on pyspark's ``assert timezone is not None``."""
    text = "p(2024-01-01T12:00:00,1)@[0,10]\np(2024-03-10T02:30:00.25,2)@[1,11)\n"
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.facts").write_text(text)
    epoch = dt.datetime(1970, 1, 1)
    want = sorted(((t - epoch) // dt.timedelta(microseconds=1), v, s, e, sc, ec)
                  for (t, v), (s, e, sc, ec) in chronolog.reason("", text).facts("p"))
    ddl = "c0 timestamp, c1 bigint, start timestamp, end timestamp, start_closed boolean, end_closed boolean"
    with _time_zone(spark, "America/New_York"):
        df = spark.read.format("chronolog").option("predicate", "p").schema(ddl).load(str(tmp_path / "in"))
        got = sorted(tuple(r) for r in df.selectExpr(
            "unix_micros(c0)", "c1", "unix_seconds(start)", "unix_seconds(`end`)", "start_closed", "end_closed").collect())
    assert got == want


def test_the_chronolog_data_source_refuses_a_time_off_the_days_of_a_date_schema(spark, tmp_path):
    """A schema given with DATE time columns holds whole days: a time of 10
    seconds is refused at its line, where it read as the day it falls in
    (``@[0,10]`` as the point 1970-01-01, silently)."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.facts").write_text("p(b)@[86400,172800]\np(a)@[0,10]\n")
    ddl = "c0 string, start date, end date, start_closed boolean, end_closed boolean"
    with pytest.raises(Exception, match=r"a\.facts:2:1: data error: 10 in column end does not fit its type date32"):
        spark.read.format("chronolog").option("predicate", "p").schema(ddl).load(str(tmp_path / "in")).collect()
    (tmp_path / "in" / "a.facts").write_text("p(b)@[86400,172800]\n")
    got = spark.read.format("chronolog").option("predicate", "p").schema(ddl).load(str(tmp_path / "in")).collect()
    assert [(r.start, r.end) for r in got] == [(dt.date(1970, 1, 2), dt.date(1970, 1, 3))]
