"""Small input tables held on the driver by the Spark rounds: an Arrow
table or a pandas frame of at most ``inputs.LITERAL_ROWS`` rows is read as
the engine reads it and held as the program's own facts are (no load job,
no checkpoint, no DataFrame); a larger one goes by its DataFrame.  Every
answer is the embedded engine's, on every term and time type, in a session
whose time zone is not UTC."""

from __future__ import annotations

import datetime as dt
import decimal
import re
import warnings

import pyarrow as pa
import pytest

import chronolog
from chronolog.connectors.spark_rounds.inputs import LITERAL_ROWS

from test_spark_jobs import counted_calls, facts, jobs_of

pytestmark = pytest.mark.spark

# no key (a join across keys: r(Y)), so that it runs on the rounds
PROGRAM = 'q(X,N,D,S,B,F) :- <->[0,1] p(X,N,D,S,B,F), r(Y). r(k)@[0,50]. @output("q").'
ZONE = "America/New_York"


def _times(kind: str, n: int):
    """``start``/``end`` columns of ``n`` rows of one time type (a null start: unbounded)."""
    starts = [None if i % 17 == 3 else i for i in range(n)]
    ends = [i + 2 + i % 3 for i in range(n)]
    if kind == "int":
        return pa.array(starts, pa.int64()), pa.array(ends, pa.int64())
    if kind == "decimal":
        def d(v):
            return None if v is None else decimal.Decimal(v) / 4
        return pa.array([d(v) for v in starts], pa.decimal128(12, 2)), pa.array([d(v) for v in ends], pa.decimal128(12, 2))
    base = dt.datetime(2024, 1, 1, 22, 30)
    if kind == "date":
        def day(v):
            return None if v is None else (base + dt.timedelta(days=v)).date()
        return pa.array([day(v) for v in starts], pa.date32()), pa.array([day(v) for v in ends], pa.date32())
    tz = "UTC" if kind == "timestamp_utc" else None

    def at(v):
        return None if v is None else base + dt.timedelta(seconds=v * 7)
    typ = pa.timestamp("us", tz=tz)
    return pa.array([at(v) for v in starts], typ), pa.array([at(v) for v in ends], typ)


def _table(kind: str, n: int):
    """``n`` rows of every term type a literal writes: strings (quotes, spaces,
    accents), integers, decimals, booleans, floats."""
    words = ["a", "b c", "it's", "é\"x", "", "12"]
    s, e = _times(kind, n)
    return pa.table({
        "X": pa.array([words[i % len(words)] + str(i % 7) for i in range(n)]),
        "N": pa.array([(-1) ** i * i * 10**12 for i in range(n)], pa.int64()),
        "D": pa.array([decimal.Decimal(i % 9) / 8 for i in range(n)], pa.decimal128(10, 3)),
        "S": pa.array([words[i % 4] for i in range(n)]),
        "B": pa.array([i % 3 == 0 for i in range(n)]),
        "F": pa.array([(-0.0 if i % 5 == 0 else i / 3) for i in range(n)], pa.float64()),
        "start": s, "end": e,
        "start_closed": pa.array([i % 2 == 0 for i in range(n)]),
        "end_closed": pa.array([i % 3 != 0 for i in range(n)]),
    })


def _run(spark, program, tables, **options):
    from chronolog import spark as cs

    key = "spark.sql.session.timeZone"
    old = spark.conf.get(key)
    spark.conf.set(key, ZONE)
    try:
        stats: dict = {}
        with warnings.catch_warnings():
            warnings.simplefilter("error", cs.DriverFallback)
            out, jobs = jobs_of(spark, lambda: cs.reason(spark, program, tables, distributed=True, one_task_bytes=-1,
                                                         stats=stats, **options))
            return {p: df.toArrow() for p, df in out.items()}, stats, jobs
    finally:
        spark.conf.set(key, old)


def _embedded(program, tables, **options):
    model = chronolog.reason(program, tables, **options)
    return facts({"q": model.to_arrow("q")})


def _given(spark, table, form: str):
    """``table`` as the caller gives it: an Arrow table, a pandas frame or a
    Spark DataFrame of it (local data: a LocalRelation; timestamps without a
    zone kept as ``TIMESTAMP_NTZ``)."""
    if form == "pandas":
        return table.to_pandas()
    if form == "spark":
        from pyspark.sql.pandas.types import from_arrow_schema

        return spark.createDataFrame(table, schema=from_arrow_schema(table.schema))
    return table


@pytest.mark.parametrize("form", ["arrow", "spark"])
@pytest.mark.parametrize("kind", ["int", "decimal", "date", "timestamp_utc", "timestamp_naive"])
@pytest.mark.parametrize("n", [LITERAL_ROWS, LITERAL_ROWS + 1], ids=["at_the_limit", "past_it"])
def test_small_input_tables_are_held_and_give_the_engines_answers(spark, kind, n, form):
    """At most ``LITERAL_ROWS`` rows: held (a literal relation, no DataFrame);
    one more: a DataFrame loaded by Spark, as before.  Both the engine's
    answers.  A Spark DataFrame of local data is held too, but for one
    with a zoned timestamp (pyspark collects it in the driver's zone)."""
    from chronolog.engine.timestamps import numbers_for_times

    table = _table(kind, n)
    got, stats, _ = _run(spark, PROGRAM, {"p": _given(spark, table, form)})
    assert stats["path"] == "relational", stats["why"]
    # (the engine reads time columns of dates and timestamps as seconds, as the Spark connectors do, by this)
    assert facts(got) == _embedded(PROGRAM, {"p": numbers_for_times(table, "p")})
    held = stats["relations"]["p"]
    assert (held.df is None) == (n <= LITERAL_ROWS and not (form == "spark" and kind == "timestamp_utc")), (held, n)


def test_a_spark_dataframe_not_of_local_data_is_not_held(spark):
    """A DataFrame whose plan is not a local relation (a filter of one) is
    loaded by Spark: only a job could count it."""
    table = _table("int", 10)
    df = _given(spark, table, "spark").filter("N >= 0")
    got, stats, _ = _run(spark, PROGRAM, {"p": df})
    assert stats["relations"]["p"].df is not None
    kept = table.filter(pa.compute.greater_equal(table.column("N"), 0))
    assert facts(got) == _embedded(PROGRAM, {"p": kept})


def test_a_held_pandas_input_costs_one_job_and_no_load(spark, monkeypatch):
    """A pandas frame (and an Arrow table, a Spark DataFrame of local data)
    of a few rows given as an input is held as the program's facts are: one rule is one job and a statement
    per round, no checkpoint and no DataFrame (on main: a load
    job of its own, two jobs in all, with checkpoints and a DataFrame)."""
    program = 'q(X,Z) :- e(X,Y), f(Y,Z). f(b,x)@[0,9]. f(c,y)@[2,4]. @output("q").'
    e = pa.table({"X": ["a", "b", "c", "d"], "Y": ["b", "c", "d", "a"], "start": [0, 1, 2, 4], "end": [5, 6, 3, 8]})
    for given in (e, e.to_pandas(), spark.createDataFrame(e)):
        made = counted_calls(spark, monkeypatch)
        got, stats, jobs = _run(spark, program, {"e": given})
        monkeypatch.undo()
        assert stats["path"] == "relational", stats["why"]
        assert facts(got) == _embedded(program, {"e": e})
        assert jobs == 1 and stats["load"].jobs == 0, (jobs, stats["load"].jobs)
        assert made == {"sql": len(stats["rounds"]), "checkpoint": 0, "createDataFrame": 0}, made


def test_an_input_table_beside_the_programs_facts_of_its_predicate(spark):
    """A predicate given both as facts of the program and as a small input
    table is held as one relation, coalesced across both."""
    program = 'q(X) :- p(X), r(Y). p(a)@[0,2]. p(b)@[7,9]. r(k)@[0,50]. @output("q").'
    one = pa.table({"X": ["a", "c"], "start": [1, 3], "end": [4, 5]})
    got, stats, _ = _run(spark, program, {"p": one})
    assert stats["relations"]["p"].df is None
    assert facts(got) == _embedded(program, {"p": one})
    assert facts(got)["q"][0] == (("a",), (0, 4, True, True))


def test_a_null_term_in_a_held_input_is_the_engines_error(spark):
    """A null term: the engine's error, as for a DataFrame input (one task reports it)."""
    from chronolog.language.errors import DataError

    table = pa.table({"X": ["a", None], "start": [0, 1], "end": [2, 3]})
    program = 'q(X) :- p(X), r(Y). r(k)@[0,50]. @output("q").'
    with pytest.raises(DataError) as want:
        chronolog.reason(program, {"p": table})
    from chronolog import spark as cs

    with pytest.raises(DataError) as got, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (one task runs it, with a warning)
        {p: df.toArrow() for p, df in cs.reason(spark, program, {"p": table}, distributed=True, one_task_bytes=-1).items()}
    assert "p: the column X is empty (null)" in str(want.value)
    assert "p: the column X is empty (null)" in str(got.value)


@pytest.mark.parametrize("n", [3, LITERAL_ROWS + 1], ids=["held", "past_the_limit"])
def test_unsigned_and_half_float_columns_give_the_engines_answers(spark, n):
    """Columns of types Spark has none for (unsigned integers, a ``uint64``
    beyond ``int64``, half floats), as pandas and numpy make them: the
    engine's answers, held or by a DataFrame, on the rounds and keyed (on
    main pyspark refused them: "uint8 is not supported in conversion to
    Arrow")."""
    import numpy as np

    def column(values, typ):
        return pa.array(np.array([values[i % len(values)] for i in range(n)], typ))

    table = pa.table({
        "X": pa.array([f"x{i % 5}" for i in range(n)]),
        "A": column([0, 7, 255], np.uint8), "B": column([1, 65535], np.uint16), "C": column([2, 2**32 - 1], np.uint32),
        "D": column([3, 2**64 - 1, 2**63], np.uint64), "F": column([0.5, -2.25, 65504.0], np.float16),
        "start": column([0, 1, 2, 3], np.uint32), "end": column([4, 9, 6], np.uint64),
    })
    _on_rounds_and_keyed(spark, "q(X,A,B,C,D,F) :- <->[0,1] p(X,A,B,C,D,F), {} D > 2, F < 1.", table,
                         (table, table.to_pandas(), table.to_pandas()))


def _on_rounds_and_keyed(spark, rule: str, table, forms) -> None:
    """``rule`` (``{}`` where a join across keys goes) over ``forms`` of
    ``table`` as ``p``: the first two on the rounds, the last keyed, each
    the embedded engine's answers over ``table``."""
    rounds = rule.format("r(Y),") + ' r(k)@[0,500]. @output("q").'
    keyed = rule.format("") + ' @output("q").'
    for program, form in zip((rounds, rounds, keyed), forms):
        got, stats, _ = _run(spark, program, {"p": form})
        want = _embedded(program, {"p": table})
        assert want["q"] and facts(got) == want
    assert stats["path"] == "keyed"


def test_a_spark_dataframe_given_to_the_embedded_reason_is_refused_with_the_call_that_reads_it(spark):
    """``chronolog.reason(program, {"p": spark_df})`` stopped on pyspark's
    "Cannot convert column into bool" (the DataFrame taken for a pandas
    frame); now an error names chronolog.spark.reason and df.toArrow(),
    for one predicate's DataFrame and for a DataFrame given whole."""
    table = pa.table({"X": ["a"], "start": [0], "end": [2]})
    df = spark.createDataFrame(table)
    program = 'q(X) :- p(X).'
    for given in ({"p": df}, df):
        with pytest.raises(chronolog.ChronologError, match=r"Spark DataFrame is read by chronolog\.spark\.reason\(\)") as e:
            chronolog.reason(program, given)
        assert "df.toArrow()" in e.value.hint
    assert chronolog.reason(program, {"p": df.toArrow()}).to_text() == "q(a)@[0,2]"  # (what the hint says)


@pytest.mark.parametrize("n", [3, LITERAL_ROWS + 1], ids=["held", "past_the_limit"])
def test_polars_inputs_give_the_engines_answers(spark, n):
    """A Polars DataFrame or LazyFrame as an input (reason() takes them):
    the engine's answers on the rounds and keyed (on main: "'list' object
    has no attribute 'is_unique'", and a LazyFrame "is not subscriptable")."""
    import polars as pl

    frame = pl.DataFrame({"X": [f"x{i % 7}" for i in range(n)], "V": list(range(n)), "start": list(range(n)),
                          "end": [i + 2 for i in range(n)]})
    _on_rounds_and_keyed(spark, "q(X, V) :- <->[0,1] p(X, V), {} V > 1.", frame, (frame, frame.lazy(), frame.lazy()))


def test_inputs_of_another_form_are_refused_by_name(spark):
    """Rows, text or None as an input, or inputs that are not a dict,
    stopped on an AttributeError in the load ("'list' object has no
    attribute 'columns'", "'str' object has no attribute 'items'")."""
    from chronolog import spark as cs

    program = 'q(X) :- p(X). @output("q").'
    for inputs, says in (({"p": [(("a",), (0, 1))]}, "inputs['p']: expected a Spark DataFrame"),
                         ({"p": None}, "not NoneType"), ({"p": "p(a)@1"}, "not str"),
                         ("p(a)@1", "inputs: expected a dict")):
        for distributed in (False, True):
            with pytest.raises(chronolog.ChronologError, match=re.escape(says)):
                cs.reason(spark, program, inputs, distributed=distributed)
