"""Random programs over arguments of dates, timestamps (with a zone and
without one) and term text (columns marked ``chronolog.kind``: several kinds
of constants) through Spark's relational rounds, in a UTC and a non-UTC
session, against the embedded engine on the same Arrow tables (the
oracle nobody wrote for Spark).  Joins, negation, constants of the
program, comparisons, min/max and count; what the rounds refuse goes to
one task, which must give the same model too (marked ``spark``)."""

import datetime as dt
import warnings

import pyarrow as pa
import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import chronolog
from chronolog.engine.arrow import table_to_rows, term_text_names, with_term_text
from test_spark_term_types import _time_zone  # (the shared session's zone, set meanwhile)

pytestmark = pytest.mark.spark

ZONES = ["UTC", "Asia/Tokyo", "America/New_York"]
TOKYO = dt.timezone(dt.timedelta(hours=9))

# instants near one midnight UTC: each as a date, as timestamps with a zone
# and without one, and as the term text of a date or a timestamp
DAYS = [dt.date(2024, 1, 1), dt.date(2024, 1, 2)]
STAMPS = [dt.datetime(2024, 1, 1), dt.datetime(2024, 1, 1, 12), dt.datetime(2024, 1, 2), dt.datetime(2023, 12, 31, 23, 30)]
TEXTS = ["2024-01-01", "2024-01-02", "2024-01-01T12:00:00", "1", "1.0", "float(1.0)", "1/3", "a", '"a b"', "#T", "#F",
         "{1,a}", "{a,1}", '"1"']
KINDS = ["date", "ts_utc", "ts_tokyo", "ts_ntz", "text"]


def _column(kind, picks):
    if kind == "date":
        return pa.array([DAYS[i % len(DAYS)] for i in picks], pa.date32())
    if kind == "ts_ntz":
        return pa.array([STAMPS[i % len(STAMPS)] for i in picks], pa.timestamp("us"))
    if kind == "ts_utc":
        return pa.array([STAMPS[i % len(STAMPS)].replace(tzinfo=dt.timezone.utc) for i in picks], pa.timestamp("us", tz="UTC"))
    if kind == "ts_tokyo":
        return pa.array([STAMPS[i % len(STAMPS)].replace(tzinfo=dt.timezone.utc).astimezone(TOKYO) for i in picks],
                        pa.timestamp("us", tz="Asia/Tokyo"))
    return pa.array([TEXTS[i % len(TEXTS)] for i in picks], pa.string())


@st.composite
def tables(draw):
    out = {}
    for pred, arity in (("p", 2), ("q", 1), ("r", 1)):
        kind = draw(st.sampled_from(KINDS))
        n = draw(st.integers(1, 5))
        picks = draw(st.lists(st.integers(0, 20), min_size=n, max_size=n))
        starts = draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))
        lens = draw(st.lists(st.integers(1, 4), min_size=n, max_size=n))
        cols = {"k": _column(kind, picks)}
        if arity == 2:
            cols["v"] = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
        cols["start"] = starts
        cols["end"] = [s + d for s, d in zip(starts, lens)]
        t = pa.table(cols)
        out[pred] = with_term_text(t, ["k"]) if kind == "text" else t
    return out


CONSTS = ["2024-01-01", "2024-01-01T12:00:00", "2024-01-02T00:00:00", "a", "1", "{a,1}"]
RULES = [
    "j(X) :- p(X, V), q(X).",
    "j2(X, V) :- p(X, V), r(X), q(X).",
    "n(X) :- p(X, V), not q(X).",
    "n2(X) :- q(X), not r(X).",
    "c(X) :- p(X, V), X == {c}.",
    "d(V) :- p({c}, V).",
    "h({c}) :- r(X).",
    "ne(X) :- q(X), X != {c}.",
    "lt(X, Y) :- q(X), r(Y), X < Y.",
    "le(X) :- p(X, V), X <= {c}.",
    "mn(M) :- q(X), M = min(X).",
    "mx(V, M) :- p(X, V), M = max(X).",
    "cnt(X, N) :- p(X, V), N = count(V).",
    "cq(N) :- r(X), N = count(X).",
    "w(X) :- <->[0,2] q(X), r(X).",
]


@st.composite
def programs(draw):
    # a rule across two keys, so that no key splits the program: the rounds, not one engine per key
    rules = ["x(X, Y) :- q(X), r(Y)."] + draw(st.lists(st.sampled_from(RULES), min_size=1, max_size=4, unique=True))
    text = "\n".join(r.replace("{c}", draw(st.sampled_from(CONSTS))) for r in rules)
    heads = sorted({r.split("(")[0] for r in rules})
    return text + "\n" + " ".join(f'@output("{h}").' for h in heads) + "\n"


def _frame(spark, table):
    from pyspark.sql.pandas.types import from_arrow_schema

    from chronolog import spark as cs

    if table.schema.metadata:
        return cs.arrow_frame(spark, table)
    return spark.createDataFrame(table, schema=from_arrow_schema(table.schema))


def _facts(table, pred):
    """The facts read back, by the engine's equality: a number of term
    text comes out of the rounds in one spelling of its value (``1`` for
    ``float(1.0)``, docs/spark.md)."""
    rows = table_to_rows(table, pred)
    return set(rows)


@settings(max_examples=examples(10))
@given(tables(), programs(), st.sampled_from(ZONES))
def test_random_instant_and_term_text_programs_in_rounds_as_embedded(spark, inputs, prog, zone):
    from chronolog import spark as cs
    from chronolog.connectors.spark_paths import ONE_TASK_CONF
    from chronolog.language.errors import ChronologError

    try:
        model = chronolog.reason(prog, inputs)
        tables_out = {p: model.to_arrow(p) for p in model.output_predicates}
        expected = {p: _facts(t, p) for p, t in tables_out.items()}
    except ChronologError as e:  # an error of the program on these terms (X < Y of two kinds)
        expected = type(e)
    with _time_zone(spark, zone), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spark.conf.set(ONE_TASK_CONF, "-1")
        try:
            frames = {p: _frame(spark, t) for p, t in inputs.items()}
            try:
                out = cs.reason(spark, prog, frames, distributed=True)
                arrow = {p: df.toArrow() for p, df in out.items()}
                got = {p: _facts(t, p) for p, t in arrow.items()}
            except ChronologError as e:
                got = type(e)
        finally:
            spark.conf.unset(ONE_TASK_CONF)
    if isinstance(expected, dict) and isinstance(got, dict):
        assert set(got) == set(expected), (prog, zone)
        for p in got:
            assert got[p] == expected[p], (p, prog, zone)
            text = term_text_names(arrow[p])  # (term text in, term text out: docs/spark.md)
            for f in tables_out[p].schema:  # a DATE in gives a DATE out, a timestamp a timestamp
                if f.name not in text and tables_out[p].num_rows and (pa.types.is_date(f.type) or pa.types.is_timestamp(f.type)):
                    assert arrow[p].schema.field(f.name).type == f.type, (p, f, prog, zone)
    else:
        assert got == expected, (prog, zone, got, expected)
