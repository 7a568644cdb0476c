"""A model's printed line of a float term reads back (docs/language.md,
"Floats"): text that names facts to find -- holds(), query(), proof(), the facts
retract(), amend() and update() take back, a stream's retractions, a fact
file of them -- matches a float term by the float that prints as its
number; a number no float prints as stays exact, and an argument holding
both the float and the exact number that print alike is refused, never
matched silently.  The oracle: the model's own printed lines, and the
model of reasoning from scratch on the facts left."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chronolog
from chronolog import ChronologError

from budget import examples

ENGINES = ["rows", "columns"]
PROGRAM = "q(X, Y) :- p(X, Y). s(X, Z) :- p(X, Y), Z = Y * 3."

finite = st.floats(allow_nan=False, allow_infinity=False, width=64).filter(lambda f: not f.is_integer())


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=examples(30), deadline=None)
@given(values=st.lists(finite, min_size=1, max_size=4, unique=True))
def test_every_printed_line_holds_and_retracts(engine, values):
    rows = [((f"k{i}", v), (i, i + 2)) for i, v in enumerate(values)]
    r = chronolog.Reasoner(PROGRAM, {"p": rows}, engine=engine)
    lines = r.model.to_text().splitlines()
    assert all(r.model.holds(line) for line in lines)
    for pred, terms in {(line.split("(")[0], line.split("(")[1].split(",")[0]) for line in lines}:
        answers = r.model.query(f"{pred}({terms}, V)")  # (a constant of a query, read alike)
        assert answers and all(a.binding["V"] in values or a.binding["V"] in [3 * v for v in values] for a in answers)
    given_lines = r.model.to_text(["p"]).splitlines()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (a retraction that met nothing warns)
        r.retract("\n".join(given_lines))
    assert r.model.stats["retracted facts that met nothing"] == 0
    assert r.model.to_text() == ""


@pytest.mark.parametrize("engine", ENGINES)
def test_the_float_line_of_a_model_before_the_fix(engine):
    """Before: the text 0.1 was the exact 1/10 only, so holds() was False on
    the model's own line and retract() met nothing (a warning)."""
    r = chronolog.Reasoner("q(X) :- p(X).", {"p": [((0.1,), (0, 5))]}, engine=engine)
    assert r.model.to_text() == "q(0.1)@[0,5]"
    assert r.model.holds("q(0.1)@[0,5]") and r.model.holds("p(0.1)@[1,2]")
    assert "q(0.1)" in str(r.model.proof("q(0.1)@[0,5]"))
    assert r.model.query("q(0.1)@[0,5]") is True
    r.amend("p(0.1)@[0,5]", "p(0.2)@[0,1]")
    assert r.model.facts("p") == [((Fraction(1, 5),), (0, 1, True, True))]  # (an added fact is read as written: exact)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_number_no_float_prints_as_stays_exact(engine):
    third = 1 / 3
    m = chronolog.reason("q(X) :- p(X).", {"p": [((third,), (0, 5))]}, engine=engine)
    assert m.to_text() == f"q({third!r})@[0,5]"
    assert m.holds(f"q({third!r})@[0,5]")
    assert not m.holds("q(1/3)@[0,5]")  # (1/3 is no float's text: the exact 1/3, which the model does not hold)
    assert not m.holds("q(0.3333333333333333333)@[0,5]")


@pytest.mark.parametrize("engine", ENGINES)
def test_the_float_and_the_exact_number_that_print_alike_are_refused(engine):
    r = chronolog.Reasoner("q(X) :- p(X).", {"p": [((0.1,), (0, 5)), ((Fraction(1, 10),), (7, 8))]}, engine=engine)
    assert sorted(r.model.to_text().splitlines()) == ["q(0.1)@[0,5]", "q(0.1)@[7,8]"]
    with pytest.raises(ChronologError, match=r"holds\(\): q\(0\.1\)@\[0,5\] is ambiguous: argument 1 of q holds "
                       r"both the float 0\.1 and the exact number 0\.1") as e:
        r.model.holds("q(0.1)@[0,5]")
    assert "Fraction(1, 10)" in str(e.value) and "Traceback" not in str(e.value)
    with pytest.raises(ChronologError, match="ambiguous"):
        r.retract("p(0.1)@[0,5]")
    assert r.model.holds("q", (0.1,), (0, 5)) and r.model.holds("q", (Fraction(1, 10),), (7, 8))
    r.retract({"p": [((0.1,), (0, 5))]})  # (a Python row names which)
    assert r.model.to_text() == "q(0.1)@[7,8]"
    assert r.model.facts("q") == [((Fraction(1, 10),), (7, 8, True, True))]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_python_row_retracts_the_exact_number_beside_its_float(engine):
    """A Python row names its number: ``Fraction(1, 2)`` the exact number
    where the argument holds the float 0.5 too (it was refused as
    ambiguous, as the text ``0.5`` is, though the hint asked for that very
    row; found by the hunt profile of the corrections' property tests)."""
    r = chronolog.Reasoner("q(K, N) :- v(K, N).", {"v": [(("a", 0.5), (0, 5)), (("b", Fraction(1, 2)), (0, 5))]}, engine=engine)
    m = r.update(retract={"v": [(("b", Fraction(1, 2)), (1, 2))]})
    assert m.facts("q") == [(("a", 0.5), (0, 5, True, True)), (("b", Fraction(1, 2)), (0, 1, True, False)),
                            (("b", Fraction(1, 2)), (2, 5, False, True))]
    with pytest.raises(ChronologError, match="ambiguous"):
        r.retract("v(b, 0.5)@3")  # (the text stays ambiguous)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_retraction_file_read_by_the_kernels(engine, tmp_path):
    """A fact file past KERNEL_BYTES goes through the kernel reader on
    columns; its decimals are read against the model's floats all the same."""
    from chronolog.language.source_text import KERNEL_BYTES

    n = KERNEL_BYTES // 20 + 100
    values = [i + 0.1 for i in range(n)]
    r = chronolog.Reasoner("q(X, Y) :- p(X, Y).", {"p": [((f"a{i}", v), (0, 5)) for i, v in enumerate(values)]},
                           engine=engine)
    f = tmp_path / "gone.facts"
    f.write_text(r.model.to_text(["p"]) + "\n")
    assert f.stat().st_size >= KERNEL_BYTES
    r.retract(f)
    assert r.model.stats["retracted facts that met nothing"] == 0
    assert r.model.to_text() == ""


def test_a_stream_retracts_a_pushed_float_by_its_line():
    s = chronolog.Stream("q(X) :- p(X).", reach_back=10, emit="maximal")
    s.push({"p": [((0.1,), (0, 5))]})
    s.advance(6)
    assert [str(x) for x in s.take()] == ["q(0.1)@[0,5]"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s.retract("p(0.1)@[0,5]")
    s.advance(7)
    assert [str(x) for x in s.take()] == ["-q(0.1)@[0,5]"]
    assert s.stats.get("retracted facts that met nothing", 0) == 0


@pytest.mark.spark
def test_spark_reads_the_lines_of_a_float_column_into_a_double_schema(spark, tmp_path):
    """The data source with a double column given: each number read as the
    float that prints as it, so what a float column wrote reads back equal;
    a number no float prints as is refused at its line.  Without a schema
    the numbers are exact, as the fact readers read them."""
    from chronolog.engine.arrow import table_to_rows

    values = [0.1, 0.30000000000000004, 2.0, 1e-07, -math.inf, 123456.789]
    m = chronolog.reason("", {"p": [((f"k{i}", v), (0, 1)) for i, v in enumerate(values)]})
    d = tmp_path / "in"
    d.mkdir()
    (d / "p.facts").write_text(m.to_text(["p"]) + "\n")
    schema = "c0 string, c1 double, start bigint, end bigint, start_closed boolean, end_closed boolean"
    df = spark.read.format("chronolog").option("predicate", "p").schema(schema).load(str(d))
    got = sorted(table_to_rows(df.toArrow(), "p"), key=repr)
    assert got == sorted(m.facts("p"), key=repr)
    assert all(type(t[1]) is float for t, _ in got)
    inferred = spark.read.format("chronolog").option("predicate", "p").load(str(d))
    assert inferred.schema["c1"].dataType.simpleString() != "double"
    (d / "p.facts").write_text("p(a,0.1)@[0,1]\np(b,1/3)@[0,1]\n")
    with pytest.raises(Exception, match=r"p\.facts:2:1: data error: 1/3 in column c1 does not fit its type double"):
        spark.read.format("chronolog").option("predicate", "p").schema(schema).load(str(d)).collect()
