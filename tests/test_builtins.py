"""Arithmetic and built-in functions: exact integers and rationals, floats for
measured values, rounding, strings; type errors name the place."""

from __future__ import annotations

from fractions import Fraction

import pytest

import chronolog
from chronolog.language.errors import ChronologError


def value(expr: str, facts: str = "p(0)@0.", data=None):
    """The value of ``expr`` (over p(X)) as the engine computes it."""
    m = chronolog.reason(f"r(Y) :- p(X), Y = {expr}.\n" + (facts if data is None else ""), data)
    ((terms, _),) = m.facts("r")
    return terms[0]


def test_exact_rational_arithmetic():
    assert value("1/3 + 1/6") == Fraction(1, 2)
    assert value("(2/3) * 3") == 2 and type(value("(2/3) * 3")) is int
    assert value("10 / 4") == Fraction(5, 2)
    assert value("0.1 + 0.2") == Fraction(3, 10)  # decimals are exact


def test_floats_stay_floats():
    data = {"p": [((0.1,), (0, 0))]}
    assert value("X + 0.2", data=data) == 0.1 + Fraction(2, 10)
    assert type(value("X + 0.2", data=data)) is float
    assert value("X / 2", data=data) == 0.05
    assert value("float(1/3)") == 1 / 3
    assert value("exact(X)", data=data) == Fraction(0.1)


def test_rounding_and_friends():
    assert value("round(5/2)") == 2  # half to even
    assert value("round(7/2)") == 4
    assert value("round(1/3, 2)") == Fraction(33, 100)
    assert value("floor(-1/2)") == -1
    assert value("ceil(1/2)") == 1
    assert value("mod(-1, 7)") == 6 and value("mod(7/2, 1)") == Fraction(1, 2)
    assert value("abs(-3/4)") == Fraction(3, 4)
    assert value("min(3, 1/2, 2)") == Fraction(1, 2)
    assert value("max(3, 1/2, 2)") == 3
    assert value("sqrt(9/4)") == Fraction(3, 2)
    assert value("sqrt(2)") == 2**0.5


def test_strings():
    assert value('concat("a", "b", 1/2)') == "ab0.5"
    assert value('"ab" + "cd"') == "abcd"
    assert value('strlen("hello")') == 5
    assert value('substr("hello", 1, 3)') == "ell"
    assert value('upper("x")') == "X"
    assert value('min("pear", "apple")') == "apple"
    m = chronolog.reason('q(X) :- n(X), X < "m".\nn("apple")@0. n("zebra")@0.')
    assert m.to_text() == 'q(apple)@[0,0]'


def test_type_errors_name_the_place():
    with pytest.raises(ChronologError) as e:
        chronolog.reason('r(Y) :- p(X),\n  Y = X * 2.\np("a")@0.')
    assert "<program>:2:3" in str(e.value) and "both must be numbers" in str(e.value)
    with pytest.raises(ChronologError) as e:
        chronolog.reason('r(Y) :- p(X), Y = strlen(X).\np(3)@0.')
    assert "<program>:1:15" in str(e.value) and "strlen() needs a string" in str(e.value)
    with pytest.raises(ChronologError) as e:
        chronolog.reason('r(X) :- p(X), X < "b".\np(3)@0.')
    assert "<program>:1:15" in str(e.value) and "cannot compare" in str(e.value)
    with pytest.raises(ChronologError) as e:
        chronolog.reason('r(Y) :- p(X), Y = 1 / X.\np(0)@0.')
    assert "division by zero" in str(e.value)
    with pytest.raises(ChronologError) as e:  # (was a TypeError: the string compared with 0 first)
        chronolog.reason('r(Y) :- p(X), Y = log(X).\np("a")@0.')
    assert "<program>:1:15" in str(e.value) and "log() needs a number" in str(e.value)


def test_unknown_function_and_wrong_arity():
    with pytest.raises(ChronologError) as e:
        chronolog.reason("r(Y) :- p(X), Y = sine(X).\np(0)@0.")
    assert "unknown function sine()" in str(e.value) and "available functions" in str(e.value)
    with pytest.raises(ChronologError) as e:
        chronolog.reason("r(Y) :- p(X), Y = round(X, 1, 2).\np(0)@0.")
    assert "round() takes 1 to 2 arguments, not 3" in str(e.value)


def test_float_csv_column(tmp_path):
    (tmp_path / "m.csv").write_text("sensor,value,start,end\ns1,0.1,0,1\n")
    prog = f"""
    @bind("m", "csv useHeaders=true", "{tmp_path}", "m.csv").
    @mapping("m", 0, "sensor", "string").
    @mapping("m", 1, "value", "float").
    r(Y) :- m(S, V), Y = V * 3.
    """
    ((terms, _),) = chronolog.reason(prog).facts("r")
    assert terms == (0.1 * 3,) and type(terms[0]) is float


@pytest.mark.parametrize("engine", ["rows", "columns"])
@pytest.mark.parametrize("rule, problem", [
    ("q(X, Y) :- p(X), Y = abs(X, X).", "abs() takes 1 argument, not 2, in Y = abs(X, X)"),
    ("q(X) :- p(X), sbstr(X, 1) > 0.", "unknown function sbstr(), in sbstr(X, 1) > 0"),
    ("q(S) :- p(X), S = sum(substr(X)).", "substr() takes 2 to 3 arguments, not 1, in S = sum(substr(X))")])
def test_a_call_of_no_function_is_refused_when_the_program_loads(engine, rule, problem):
    """The row executor said so only once the rule met a fact and the
    columnar one never: over a predicate with no facts yet (a stream, an
    input to come) the program ran, silently on one executor."""
    for facts in ("p(1)@0.", "r(1)@0."):
        with pytest.raises(chronolog.ProgramError) as e:
            chronolog.reason(f"{rule}\n{facts}", engine=engine)
        assert e.value.message == problem and e.value.pos.line == 1
        assert ("did you mean substr()?" in e.value.hint) == ("sbstr" in rule) and "available functions: abs" in e.value.hint


@pytest.mark.parametrize("call, close", [("mavg(V)", "avg"), ("summ(V)", "sum"), ("average(V)", None), ("1 + mavg(V)", None)])
def test_an_unknown_call_that_is_a_whole_assignment_is_told_the_aggregates(call, close):
    """A = mavg(V), a rolling mean as time-series databases spell it, was
    told only the functions (abs, ceil, ...), none of which it meant."""
    with pytest.raises(chronolog.ProgramError) as e:
        chronolog.reason(f"q(S, A) :- <->[0,10) p(S, V), A = {call}.\np(s, 1)@0.")
    whole = not call.startswith("1 +")
    assert ("aggregates: avg, count, max, mcount" in e.value.hint) == whole
    assert (f"did you mean {close}()?" in e.value.hint) == (close is not None)
