"""Inputs on Spark that the embedded engine reads or refuses by name, and
Spark stopped on otherwise (marked ``spark``).

Columns whose names Spark SQL takes for one name
(``spark.sql.caseSensitive`` false, its default): an argument column
``Start`` beside the time column ``start``, or ``x`` beside ``X``.  The
distributed paths (keyed tasks, the rounds, one task) read columns by name
in Spark SQL and stopped on an AnalysisException (AMBIGUOUS_REFERENCE);
they refuse such an input by its columns before any job, while the driver
(``distributed=False``) and a case-sensitive session answer as the
embedded engine on the same table.  A ``"spark csv"`` header of such
names is refused by them as written, on the driver too (Spark's CSV
reader renames them, and the time column ``start`` was then missing).

A pandas column of values of several kinds (1 beside "a"), which no Arrow
column holds: refused naming the column and its kinds on every path, as
``chronolog.reason`` refuses it (pyarrow's "Expected bytes, got a 'int'
object" stopped the call before)."""

import warnings

import pytest

import chronolog
from chronolog.engine.arrow import table_to_rows
from chronolog.language.errors import ArgumentError

pytestmark = pytest.mark.spark

NO_KEY = "far(X, Z) :- owns(X, Y), owns(Y, Z).\n"  # the rounds (or one task)
KEYED = "far(X, Z) :- owns(X, Z), <->[0,1] owns(X, Z).\n"  # keyed tasks
ROWS = [("a", "b", 0, 5), ("b", "c", 1, 4)]


def frame(spark, first: str, second: str = "y"):
    return spark.createDataFrame(ROWS, f"`{first}` string, `{second}` string, start long, end long")


def answers(table):
    return sorted(table_to_rows(table, "far"), key=str)


def embedded(df, program):
    return answers(chronolog.reason(program, {"owns": df.toArrow()}).to_arrow("far"))


@pytest.mark.parametrize("program", [NO_KEY, KEYED], ids=["no key", "keyed"])
@pytest.mark.parametrize("one_task_bytes", [-1, None], ids=["rounds", "by size"])
@pytest.mark.parametrize("names, said", [
    (("Start", "y"), "'Start' and 'start'"),
    (("END", "y"), "'END' and 'end'"),
    (("x", "X"), "'x' and 'X'"),
])
def test_names_alike_to_spark_sql_are_refused_by_name(spark, program, one_task_bytes, names, said):
    from chronolog import spark as cs

    df = frame(spark, *names)
    with pytest.raises(ArgumentError, match=f"owns: the columns {said} are one column to Spark SQL") as e:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cs.reason(spark, program, inputs={"owns": df}, distributed=True, one_task_bytes=one_task_bytes)
    assert "spark.sql.caseSensitive" in e.value.hint


@pytest.mark.parametrize("program", [NO_KEY, KEYED], ids=["no key", "keyed"])
def test_the_driver_answers_them_as_the_engine(spark, program):
    from chronolog import spark as cs

    df = frame(spark, "Start")
    out = cs.reason(spark, program, inputs={"owns": df}, distributed=False)
    assert answers(out["far"].toArrow()) == embedded(df, program)


@pytest.mark.parametrize("program", [NO_KEY, KEYED], ids=["no key", "keyed"])
def test_a_case_sensitive_session_distributes_them(spark, program):
    from chronolog import spark as cs

    df = frame(spark, "Start")
    want = embedded(df, program)
    spark.conf.set("spark.sql.caseSensitive", "true")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = cs.reason(spark, program, inputs={"owns": df}, distributed=True, one_task_bytes=-1)
            got = answers(out["far"].toArrow())
    finally:
        spark.conf.unset("spark.sql.caseSensitive")
    assert got == want


@pytest.mark.parametrize("distributed", [False, True], ids=["driver", "distributed"])
def test_a_csv_header_of_names_alike_is_refused_by_name(spark, tmp_path, distributed):
    """Spark's CSV reader renames header cells alike without case (``Start``
    beside ``start``: ``Start0``, ``start2``); the load then missed the
    time column ("the DataFrame for owns has no 'start' column")."""
    from chronolog import spark as cs

    (tmp_path / "owns.csv").write_text("Start,y,start,end\na,b,0,5\nb,c,1,4\n")
    program = f'@bind("owns", "spark csv", "{tmp_path}", "owns.csv").\n' + NO_KEY
    with pytest.raises(ArgumentError, match="owns .*: the header's columns 'Start' and 'start' are one column to Spark SQL") as e:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cs.reason(spark, program, distributed=distributed, one_task_bytes=-1)
    assert "spark.sql.caseSensitive" in e.value.hint


@pytest.mark.parametrize("distributed, one_task_bytes", [(False, None), (True, -1), (True, None)], ids=["driver", "rounds", "by size"])
def test_a_pandas_column_of_several_kinds_is_named(spark, distributed, one_task_bytes):
    pd = pytest.importorskip("pandas")
    from chronolog import spark as cs
    from chronolog.language.errors import DataError

    df = pd.DataFrame({"x": ["a", 1], "y": [1, "c"], "start": [0, 1], "end": [5, 4]})
    with pytest.raises(DataError) as want:
        chronolog.reason(NO_KEY, {"owns": df})
    assert "the column x holds values of several kinds (int, str)" in str(want.value)
    with pytest.raises(DataError) as got:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = cs.reason(spark, NO_KEY, inputs={"owns": df}, distributed=distributed, one_task_bytes=one_task_bytes)
            out["far"].toArrow()
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("program", [NO_KEY, KEYED], ids=["no key", "keyed"])
@pytest.mark.parametrize("distributed, one_task_bytes", [(False, None), (True, -1), (True, None)], ids=["driver", "rounds", "by size"])
def test_an_output_the_program_does_not_name_is_refused_before_any_job(spark, program, distributed, one_task_bytes):
    """``outputs=["fra"]`` for ``far``: the rounds answered ``{"fra": an
    empty DataFrame}``, and the keyed and one-task paths refused it only in
    a Spark task, after the job; the embedded engine's ``to_arrow("fra")``
    names the typo."""
    from chronolog import spark as cs

    with pytest.raises(ArgumentError) as want:
        chronolog.reason(program, {"owns": frame(spark, "x").toArrow()}).to_arrow("fra")
    with pytest.raises(ArgumentError, match="outputs: the predicate 'fra' does not occur in the program") as got:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cs.reason(spark, program, inputs={"owns": frame(spark, "x")}, distributed=distributed,
                      one_task_bytes=one_task_bytes, outputs=["fra"])
    assert got.value.hint == want.value.hint == "did you mean far?"


@pytest.mark.parametrize("program", [NO_KEY, KEYED], ids=["no key", "keyed"])
@pytest.mark.parametrize("distributed, one_task_bytes", [(False, None), (True, -1), (True, None)], ids=["driver", "rounds", "by size"])
@pytest.mark.parametrize("rows", [ROWS, []], ids=["rows", "empty"])
def test_an_input_of_other_arity_is_refused_by_its_schema_before_any_job(spark, program, distributed, one_task_bytes, rows):
    """A DataFrame of three argument columns for ``owns/2``: the distributed
    paths refused it only in a Spark task, after the job, and an empty one
    was taken as no facts; its schema says it before any job, as the
    embedded engine says it of the rows."""
    from chronolog import spark as cs
    from chronolog.language.errors import ProgramError

    df = spark.createDataFrame([(a, b, "z", s, e) for a, b, s, e in rows], "x string, y string, w string, start long, end long")
    with pytest.raises(ProgramError) as want:
        chronolog.reason(program, {"owns": frame(spark, "x").toArrow().add_column(2, "w", [["z", "z"]])})
    with pytest.raises(ProgramError) as got:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = cs.reason(spark, program, inputs={"owns": df}, distributed=distributed, one_task_bytes=one_task_bytes)
            out["far"].toArrow()
    assert str(got.value) == str(want.value).replace("facts['owns']", "<facts owns>")  # (as the driver names it)
