"""A keyed Spark run over typed inputs of every kind gives the embedded
model (marked ``spark``).  The tasks read typed tables straight into the
columnar executor's columns where those can take them (connectors/
distributed.py ``typed_columns``) and as rows otherwise (number text,
unbounded ends, decimal times, a predicate also given in the program):
the answers are the driver's either way, on both executors.
"""

import datetime as dt
import warnings
from contextlib import contextmanager
from decimal import Decimal

import pyarrow as pa
import pytest
from budget import examples

pytestmark = pytest.mark.spark

N = 24_000  # two tasks of about 12,000 rows: past AUTO_MIN_ROWS each

PROGRAM = """
hot(S) :- reading(S, V, F, P, R, D, T), V > 70.
flagged(S, D) :- reading(S, V, #T, P, R, D, T), V > 90.
pricey(S, P) :- <->[0,2] reading(S, V, F, P, R, D, T), P > 9.5.
ratio(S, R) :- reading(S, V, F, P, R, D, T), R > 0.9.
stamped(S, T) :- reading(S, V, F, P, R, D, T), V == 99.
alarm(S) :- [-][0,3] hot(S), not maintenance(S).
pinged(S, C) :- ping(S, C), hot(S).
spanned(S) :- span(S), hot(S).
opened(S) :- [-][0,5] open(S).
timed(S) :- tick(S), <->[0,60] hot(S).
reading(s1, 80, #F, 1.5, 0.25, "x", 7)@[0,1].
@output("hot"). @output("flagged"). @output("pricey"). @output("ratio"). @output("stamped").
@output("alarm"). @output("pinged"). @output("spanned"). @output("opened"). @output("timed").
"""
KEYS = {"reading": 0, "maintenance": 0, "ping": 0, "span": 0, "open": 0, "tick": 0}


def _inputs():
    day = dt.date(2024, 1, 1)
    reading = pa.table(
        {
            "sensor": pa.array([f"s{i % 50}" for i in range(N)]),
            "value": pa.array([((i % 50) * 7 + i // 500) % 100 for i in range(N)], pa.int64()),
            "flag": pa.array([i % 3 == 0 for i in range(N)]),
            "price": pa.array([Decimal(i % 1000) / 100 for i in range(N)], pa.decimal128(6, 2)),
            "ratio": pa.array([(i % 17) / 16 for i in range(N)], pa.float64()),
            "day": pa.array([day + dt.timedelta(days=i % 5) for i in range(N)], pa.date32()),
            "t": pa.array([i % 11 for i in range(N)], pa.int32()),
            "start": pa.array([i // 50 for i in range(N)], pa.int64()),
            "end": pa.array([i // 50 + 1 for i in range(N)], pa.int64()),
            "end_closed": pa.array([i % 4 != 0 for i in range(N)]),
        }
    )
    maint = pa.table({"sensor": ["s1", "s7"], "start": [10, 100], "end": [50, 200]})
    ping = pa.table(  # float times
        {"sensor": [f"s{i % 50}" for i in range(N)], "code": pa.array([i % 3 for i in range(N)], pa.int32()),
         "start": [i / 40 for i in range(N)], "end": [i / 40 + 0.5 for i in range(N)]}
    )
    span = pa.table(  # decimal times: the rows' reading
        {"sensor": [f"s{i % 50}" for i in range(N)], "start": pa.array([Decimal(i) / 4 for i in range(N)], pa.decimal128(8, 2)),
         "end": pa.array([Decimal(i) / 4 + 1 for i in range(N)], pa.decimal128(8, 2))}
    )
    opened = pa.table({"sensor": ["s3", "s4"], "start": [5, 9], "end": pa.array([None, 20], pa.int64())})  # unbounded
    epoch = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
    tick = pa.table(  # timestamps on a numeric timeline: seconds since the epoch
        {"sensor": [f"s{i % 50}" for i in range(N)],
         "start": pa.array([epoch + dt.timedelta(seconds=i // 50) for i in range(N)], pa.timestamp("us", tz="UTC")),
         "end": pa.array([epoch + dt.timedelta(seconds=i // 50 + 2) for i in range(N)], pa.timestamp("us", tz="UTC"))}
    )
    return {"reading": reading, "maintenance": maint, "ping": ping, "span": span, "open": opened, "tick": tick}


@contextmanager
def _worker_engine(spark, engine):
    """``CHRONOLOG_ENGINE`` in the Python workers of the jobs run meanwhile."""
    env = spark.sparkContext.environment
    old = env.get("CHRONOLOG_ENGINE")
    env["CHRONOLOG_ENGINE"] = engine
    try:
        yield
    finally:
        if old is None:
            env.pop("CHRONOLOG_ENGINE", None)
        else:
            env["CHRONOLOG_ENGINE"] = old


def test_the_workers_see_the_engine_set(spark):
    """(What the next test relies on: a bad engine name fails the tasks.)"""
    from chronolog import spark as cs
    from chronolog.language.errors import ChronologError

    small = {p: spark.createDataFrame(t.slice(0, 10)) for p, t in _inputs().items()}
    with _worker_engine(spark, "bogus"), pytest.raises(ChronologError, match="unknown engine"):
        cs.reason(spark, PROGRAM, small, distributed=True, key=KEYS, partitions=2, arrow=True)


@pytest.mark.parametrize("engine", ["auto", "columns", "rows"])
def test_typed_inputs_of_every_kind_give_the_embedded_model(spark, engine):
    from chronolog import spark as cs

    tables = _inputs()
    frames = {p: spark.createDataFrame(t) for p, t in tables.items()}
    with _worker_engine(spark, engine):
        out = cs.reason(spark, PROGRAM, frames, distributed=True, key=KEYS, partitions=2, arrow=True)
    driver = cs.reason(spark, PROGRAM, tables, arrow=True)  # the embedded engine, on the driver
    for p in driver:
        assert out[p].schema == driver[p].schema, p
        assert sorted(out[p].to_pylist(), key=repr) == sorted(driver[p].to_pylist(), key=repr), p
    assert all(driver[p].num_rows for p in ("hot", "flagged", "pricey", "ratio", "stamped", "alarm", "pinged", "spanned", "opened", "timed"))


def test_the_tasks_read_typed_inputs_straight_into_columns(spark, monkeypatch):
    """Inside the tasks (Spark's own Arrow types), the typed tables that
    the columns can take are never read as Python rows: a task that reads
    one so fails the run."""
    from chronolog.connectors import distributed as dist
    from chronolog import spark as cs

    real = dist.make_task

    def make_task(job, report, reason):
        task = real(job, report, reason)

        def checked(batches):
            from chronolog.engine import arrow

            rows_reader = arrow.table_to_rows

            def refuse(t, pred="?", *a, **k):
                if pred in ("reading", "ping", "tick", "maintenance") and t.num_rows > 1:  # (the program's one reading: rows)
                    raise AssertionError(f"{pred} was read as Python rows in a task")
                return rows_reader(t, pred, *a, **k)

            arrow.table_to_rows = refuse
            try:
                yield from task(batches)
            finally:
                arrow.table_to_rows = rows_reader

        return checked

    monkeypatch.setattr(dist, "make_task", make_task)
    tables = _inputs()
    frames = {p: spark.createDataFrame(t) for p, t in tables.items()}
    with _worker_engine(spark, "columns"):
        out = cs.reason(spark, PROGRAM, frames, distributed=True, key=KEYS, partitions=2, arrow=True)
    assert out["hot"].num_rows and out["pinged"].num_rows and out["timed"].num_rows


FLOATS = """
scaled(S, C) :- level(S, A), C = float(A) / 4.
measured(S, R) :- gauge(S, R), R > 0.5.
mixed(S, M) :- level(S, M).
mixed(S, M) :- gauge(S, M).
@output("scaled"). @output("measured"). @output("mixed").
"""


@pytest.mark.parametrize("path", ["driver", "keyed", "no key"])
def test_float_answers_are_doubles_as_the_embedded_models(spark, path):
    """Binary floats (``float(X)``, a measured float64 column) come out of
    Spark as doubles, as ``Model.to_arrow`` gives them, on every path
    (they used to come back as the text ``'4.0'``); a column mixing floats
    with exact numbers is term text there as here."""
    import warnings

    import chronolog
    from chronolog import spark as cs

    inf = float("inf")
    level = pa.table({"s": [f"s{i % 7}" for i in range(40)], "a": pa.array([i - 9 for i in range(40)], pa.int64()),
                      "start": list(range(40)), "end": [i + 2 for i in range(40)]})
    gauge = pa.table({"s": [f"s{i % 7}" for i in range(40)], "r": pa.array([[0.1 * i, inf, -inf, 1e300][i % 4] for i in range(40)], pa.float64()),
                      "start": list(range(40)), "end": [i + 1 for i in range(40)]})
    model = chronolog.reason(FLOATS, {"level": level, "gauge": gauge})
    frames = {"level": spark.createDataFrame(level), "gauge": spark.createDataFrame(gauge)}
    kw = {"driver": {}, "keyed": {"distributed": True, "key": {"level": 0, "gauge": 0}}, "no key": {"distributed": True}}[path]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (no key: floats go to one task, with a warning)
        out = cs.reason(spark, FLOATS, frames, arrow=True, **kw)
    for p in ("scaled", "measured", "mixed"):
        want = model.to_arrow(p)
        got = out[p].rename_columns(want.column_names)
        assert got.schema.field(1).type == want.schema.field(1).type, p
        assert sorted(got.to_pylist(), key=repr) == sorted(want.to_pylist(), key=repr), p
    assert out["scaled"].schema.field(1).type == pa.float64()
    assert out["mixed"].schema.field(1).type == pa.string()


MIXED_FACTS = """
one(S, X) :- level(S, A), v(S, X), X == 1.
other(S, X) :- level(S, A), v(S, X), X != 1.
near(S, X) :- level(S, A), v(X, S), A > 0.
v(s1, 1)@[0,5]. v(s1, a)@[0,5]. v(s2, 1.0)@[0,5]. v(s2, #T)@[0,5]. v(s3, "1")@[0,5]. v(s3, 2.5)@[0,5].
v(1, s4)@[0,5]. v(a, s4)@[0,5]. v(#F, s5)@[0,5]. v(1.0, s6)@[0,5].
@output("one"). @output("other"). @output("near").
"""


@pytest.mark.parametrize("path", ["driver", "keyed", "no key"])
def test_program_facts_of_two_kinds_in_one_argument(spark, path):
    """The program's facts mixing numbers, names, floats and booleans in
    one argument (the key's or another) give the engine's answers: they
    used to reach the tasks as text, ``1`` as the string ``"1"``, and
    ``X == 1`` found nothing."""
    import warnings

    import chronolog
    from chronolog import spark as cs

    level = pa.table({"s": ["s1", "s2", "s3", "s4", "s5", "s6", "1", "a"], "a": pa.array(range(8), pa.int64()),
                      "start": [0] * 8, "end": [5] * 8})
    model = chronolog.reason(MIXED_FACTS, {"level": level})
    kw = {"driver": {}, "keyed": {"distributed": True, "key": {"level": 0, "v": 0}, "partitions": 3},
          "no key": {"distributed": True}}[path]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (no key: one task, with a warning)
        out = cs.reason(spark, MIXED_FACTS, {"level": spark.createDataFrame(level)}, arrow=True, **kw)
    for p in ("one", "other", "near"):
        want = model.to_arrow(p)
        got = out[p].rename_columns(want.column_names)
        assert sorted(got.to_pylist(), key=repr) == sorted(want.to_pylist(), key=repr), p
    assert all(model.to_arrow(p).num_rows for p in ("one", "other", "near"))


TERMS_NO_TABLE_TYPES = """
small(K) :- p_rat(K, V), V < 1/2.
dated(K) :- p_day(K, D), D == 2020-01-02.
huge(K) :- p_big(K, V), V > 10.
metn(K, X) :- lnum(K), v(K, X).
metname(K, X) :- lname(K), v(K, X).
p_rat(a, 1/3)@[0,1]. p_rat(b, 2/3)@[0,1].
p_day(a, 2020-01-02)@[0,1]. p_day(b, 2021-01-02)@[0,1].
p_big(a, 1234567890123456789012345678901234567890)@[0,1]. p_big(b, -1234567890123456789012345678901234567890)@[0,1].
v(1, x1)@[0,5]. v(a, x2)@[0,5]. v(1/3, x3)@[0,5]. v(1.0, x4)@[0,5]. v(2020-01-02, x5)@[0,5]. v(#T, x6)@[0,5].
@output("small"). @output("dated"). @output("huge"). @output("metn"). @output("metname").
"""


@pytest.mark.parametrize("path", ["driver", "keyed", "no key"])
def test_program_facts_no_arrow_type_holds_reach_the_tasks_as_terms(spark, path):
    """Rationals (``1/3``), dates and numbers past 38 digits among the
    program's facts, and a key argument mixing them with names and
    booleans: in the tasks they are the engine's values (``1/3 < 1/2``,
    the date equal to a date constant), and a key of the program's facts
    meets the equal key of a DataFrame (``1.0`` and ``1`` in one task)."""
    import chronolog
    from chronolog import spark as cs

    inputs = {"lnum": pa.table({"k": pa.array([1, 2, 3], pa.int64()), "start": [0] * 3, "end": [5] * 3}),
              "lname": pa.table({"k": ["a", "b", "x1"], "start": [0] * 3, "end": [5] * 3})}
    model = chronolog.reason(TERMS_NO_TABLE_TYPES, inputs)
    keys = {"v": 0, "lnum": 0, "lname": 0, "p_rat": 0, "p_day": 0, "p_big": 0}
    kw = {"driver": {}, "keyed": {"distributed": True, "key": keys, "partitions": 5},
          "no key": {"distributed": True}}[path]
    frames = {p: spark.createDataFrame(t) for p, t in inputs.items()}
    stats = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (no key: one task, with a warning)
        out = cs.reason(spark, TERMS_NO_TABLE_TYPES, frames, arrow=True, stats=stats, **kw)
    if path == "keyed":
        assert stats["path"] == "keyed"
    for p in ("small", "dated", "huge", "metn", "metname"):
        want = model.to_arrow(p)
        got = out[p].rename_columns(want.column_names)
        assert sorted(got.to_pylist(), key=repr) == sorted(want.to_pylist(), key=repr), p
    assert {r["c1"] for r in model.to_arrow("metn").to_pylist()} == {"x1", "x4"}
    assert [r["c0"] for r in model.to_arrow("small").to_pylist()] == ["a"]


def _program_terms():
    from fractions import Fraction

    from hypothesis import strategies as st

    from chronolog.language.booleans import FALSE, TRUE

    big = 12345678901234567890123456789012345678901
    return st.sampled_from([0, 1, -7, Fraction(1, 3), Fraction(5, 2), big, "a", "1", "b c", TRUE, FALSE,
                            dt.datetime(2020, 1, 2)])


def _facts_program(facts) -> str:
    from chronolog.language.text import format_term

    rules = """
hit(K, X) :- lnum(K), v(K, X).
named(K, X) :- lname(K), v(K, X).
floated(K, X) :- lfloat(K), v(K, X).
one(K) :- v(K, X), X == 1.
third(K) :- v(K, X), X == 1/3.
isa(K) :- v(K, X), X == a.
yes(K) :- v(K, X), X == #T.
"""
    outs = "".join(f'@output("{p}"). ' for p in ("hit", "named", "floated", "one", "third", "isa", "yes"))
    return rules + "".join(f"v({format_term(k)}, {format_term(x)})@[0,{e}]. " for k, x, e in facts) + "\n" + outs


def _as_text(table, by_value=False):
    """A table's rows with each value as the engine prints it, or with
    ``by_value`` each number by its exact value: a join of the float
    ``1.0`` with the number ``1`` binds whichever the engine's join met
    first, which depends on the relations' sizes (a task sees part of
    one), so only the value is the model's (docs/design.md)."""
    import datetime
    from decimal import Decimal
    from fractions import Fraction

    from chronolog.language.text import format_term

    def text(v):
        if isinstance(v, datetime.date) and not isinstance(v, datetime.datetime):
            return v.isoformat()
        if by_value and isinstance(v, (int, float, Decimal)) and not isinstance(v, bool):
            return ("number", Fraction(v))
        if isinstance(v, (bool, int, float)) and not isinstance(v, bool):
            return repr(v)
        return format_term(v)

    return sorted((tuple(text(v) for v in row.values()) for row in table.to_pylist()), key=repr)


def test_program_facts_of_any_kinds_give_the_engines_answers_keyed(spark):
    """Hypothesis over the program's facts mixing every kind the language
    writes (numbers exact and past 38 digits, names, booleans, dates) in
    the key and another argument, joined with typed DataFrames of longs,
    strings and doubles: the keyed tasks give the engine's model."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    import chronolog
    from chronolog import spark as cs

    inputs = {"lnum": pa.table({"k": pa.array([0, 1, -7], pa.int64()), "start": [0] * 3, "end": [9] * 3}),
              "lname": pa.table({"k": ["a", "1", "b c"], "start": [0] * 3, "end": [9] * 3}),
              "lfloat": pa.table({"k": [2.5, 1.0], "start": [0] * 2, "end": [9] * 2})}
    frames = {p: spark.createDataFrame(t) for p, t in inputs.items()}
    keys = {"v": 0, "lnum": 0, "lname": 0, "lfloat": 0}

    @settings(max_examples=examples(12), deadline=None, suppress_health_check=list(HealthCheck), print_blob=True)
    @given(st.lists(st.tuples(_program_terms(), _program_terms(), st.integers(1, 5)), min_size=1, max_size=8))
    def check(facts):
        program = _facts_program(facts)
        model = chronolog.reason(program, inputs)
        driver = cs.reason(spark, program, frames, arrow=True)  # the engine's model, typed as Spark types it
        stats = {}
        out = cs.reason(spark, program, frames, distributed=True, key=keys, partitions=3, arrow=True, stats=stats)
        assert stats["path"] == "keyed"
        for p in ("hit", "named", "floated", "one", "third", "isa", "yes"):
            by_value = p == "floated"
            assert _as_text(out[p], by_value) == _as_text(driver[p], by_value), (p, program)
            assert out[p].num_rows == len(model.facts(p)), (p, program)
            if not by_value:
                assert out[p].schema == driver[p].schema, (p, program)

    check()
