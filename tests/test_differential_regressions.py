"""Minimal cases found by the differential campaign
(tests/test_executors_differential.py, tests/test_readers_agree.py), each
with its correct answer written out and checked on every executor."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

import chronolog
from chronolog import ChronologError
from differential import agree, outcomes

pytest.importorskip("polars")

INF = math.inf


def answers(program, facts=None):
    """The model (or error text) on rows, columns and auto, all alike."""
    outs = outcomes(program, facts)
    agree(program, outs)
    return outs["rows"]


def error_of(program, facts=None) -> str:
    got = answers(program, facts)
    assert isinstance(got, str), f"expected an error, got {got.to_text()}"
    return got


# ------------------------------------------------ NaN never becomes a term


@pytest.mark.parametrize("expr", ["N - N", "N * 0", "mod(N, 2)"])
def test_arithmetic_without_a_value_is_an_error_not_a_nan_fact(expr):
    # was: p(a,nan)@[0,1] on both executors (columns fell back to rows): a
    # fact that never equals itself, so no join or query could find it
    msg = error_of(f"p(K, M) :- v(K, N), M = {expr}.", {"v": [(("a", INF), (0, 1))]})
    assert "is not a number (NaN)" in msg and "inf" in msg and ":1:21:" in msg


def test_a_product_of_an_infinity_and_zero_is_an_error():
    msg = error_of("p(K, S) :- v(K, I, N), S = prod(N).", {"v": [(("a", "d0", INF), (0, 1)), (("a", "d1", 0.0), (0, 1))]})
    assert "prod() of [inf, 0.0] is not a number (NaN)" in msg


# ------------------------------------------------ infinite floats in sums


def test_a_sum_of_an_infinite_float_is_that_infinity():
    # was: OverflowError (a bare traceback) on both executors: the running
    # sum took every float's exact value, and infinities have none
    m = answers("p(K, S) :- v(K, I, N), S = sum(N).", {"v": [(("a", "d0", INF), (0, 2)), (("a", "d1", 1.0), (1, 3))]})
    assert m.to_text() == "p(a,1.0)@(2,3]\np(a,+inf)@[0,2]"


def test_an_average_of_minus_infinity_is_minus_infinity():
    m = answers("p(K, S) :- v(K, I, N), S = avg(N).", {"v": [(("a", "d0", -INF), (0, 1)), (("a", "d1", 2.0), (0, 1))]})
    assert m.to_text() == "p(a,-inf)@[0,1]"


def test_plus_and_minus_infinity_in_one_sum_is_an_error():
    for f in ("sum", "msum", "avg"):
        msg = error_of(f"p(K, S) :- v(K, I, N), S = {f}(N).", {"v": [(("a", "d0", INF), (0, 1)), (("a", "d1", -INF), (0, 1))]})
        assert f"{f}() of +inf and -inf is not a number" in msg


def test_a_float_sum_beyond_the_float_range_is_infinite_on_both_executors():
    # was: OverflowError on rows; columns printed "inf" (a name, if read
    # back as a fact) where every printer writes "+inf"
    m = answers("p(K, S) :- v(K, I, N), S = sum(N).", {"v": [(("a", "d0", 1e308), (0, 1)), (("a", "d1", 1e308), (0, 1))]})
    assert m.to_text() == "p(a,+inf)@[0,1]"
    assert m.facts("p") == [(("a", INF), (0, 1, True, True))]


def test_errors_are_chronolog_errors():
    with pytest.raises(ChronologError):
        chronolog.reason("p(K, M) :- v(K, N), M = N - N.", {"v": [(("a", INF), (0, 1))]}, engine="columns")


def test_a_float_sum_of_far_apart_magnitudes_beyond_the_range_is_infinite():
    # was: OverflowError on columns (the exact path for floats too far apart
    # for two int64 limbs divided a Python int beyond the float range)
    m = answers("p(K, S) :- v(K, I, N), S = sum(N).", {"v": [(("a", f"d{i}", x), (0, 1)) for i, x in enumerate([1e308, 1e308, 1.0])]})
    assert m.to_text() == "p(a,+inf)@[0,1]"
    m = answers("p(K, S) :- v(K, I, N), S = avg(N).", {"v": [(("a", f"d{i}", x), (0, 1)) for i, x in enumerate([1e308, -1e308, 1.0])]})
    assert m.to_text() == "p(a,0.3333333333333333)@[0,1]"


# ------------------------------------------------ equal numbers of two types
#
# was: the columnar executor codes terms by one dict per run, so 1, 1.0 and
# True got one code and every occurrence decoded to whichever came first,
# where the rows keep each atom's own value: arithmetic, aggregates and
# Arrow typing changed, not only printing.  Now a stratum whose columns meet
# equal numbers of two kinds runs on the rows (encoding.Dictionary counts
# the lookups that find one).  The answers written out are the rows' (the
# reference): an exact 1 divided by 3 is 1/3, a sum with a float is a
# float, a float column stays float64.


def test_an_exact_one_stays_exact_beside_a_float_one():
    facts = {"v": [(("a", 1.0), (0, 3)), (("b", 1), (0, 3))]}
    cols = chronolog.reason("p(K, M) :- v(K, N), M = N / 3.", facts, engine="columns")
    assert cols.to_text() == "p(a,0.3333333333333333)@[0,3]\np(b,1/3)@[0,3]"


def test_a_sum_with_a_float_is_a_float_beside_an_equal_int():
    facts = {"w": [(("a", 3), (0, 0)), (("a", Fraction(1, 3)), (0, 0)), (("b", 3.0), (0, 0))]}
    cols = chronolog.reason("p(S) :- w(J, N), S = sum(N).", facts, engine="columns")
    assert cols.to_text() == "p(6.333333333333333)@[0,0]"


def test_a_float_column_stays_float64_beside_an_int_column():
    facts = {"v": [(("a", 1, 1.0), (0, 1)), (("a", 2, 2.5), (0, 1))]}
    cols = chronolog.reason("p(K) :- v(K, D, X).", facts, engine="columns")
    column = cols.to_arrow("v").column("c2")
    assert str(column.type) == "double" and column.to_pylist() == [1.0, 2.5]


def test_an_int_column_stays_int_beside_a_boolean():
    program = "p(K) :- v(K, N), w(K, N).\nv(a, #T)@0. w(a, 1)@0. v(b, #F)@0. w(b, 0)@0."
    cols = chronolog.reason(program, engine="columns")
    column = cols.to_arrow("w").column("c1")
    assert str(column.type) == "int64" and column.to_pylist() == [1, 0]  # (True == 1 in Python)
    assert cols.to_arrow("v").column("c1").to_pylist() == [True, False]  # a bool column of its own
    assert cols.facts("p") == [] and cols.stats["executors"] == {0: "columns"}  # (no fall back: #T has its own code)


# ------------------------------------------------ ints beside floats in one column


def test_arithmetic_on_an_int_beside_a_float_stays_exact():
    # was: p0(a,1.0) on columns: a coded column holding 0.1 and 0 was
    # computed as floats throughout, so the int 0 + 1 gave the float 1.0
    m = answers("p0(K, N) :- w(K, X), N = X + 1.", {"w": [(("a", 0.1), (0, 1)), (("a", 0), (0, 1)), (("b", 2), (0, 1))]})
    assert m.facts("p0") == [(("a", 1), (0, 1, True, True)), (("a", 1.1), (0, 1, True, True)), (("b", 3), (0, 1, True, True))]
    assert type(m.facts("p0")[0][0][1]) is int


def test_a_sum_of_ints_is_exact_where_no_float_is_summed():
    # was: p(a,3.0)@[2,3] and avg 1.5 on columns: the segments of a column
    # mixing ints and floats were all summed as floats
    facts = {"w": [(("a", "d0", 0.1), (0, 1)), (("a", "d1", 1), (0, 3)), (("a", "d2", 2), (2, 3))]}
    m = answers("p(K, S) :- w(K, I, X), S = sum(X).", facts)
    assert m.to_text() == "p(a,1)@(1,2)\np(a,1.1)@[0,1]\np(a,3)@[2,3]"
    m = answers("p(K, S) :- w(K, I, X), S = avg(X).", facts)
    assert m.to_text() == "p(a,0.55)@[0,1]\np(a,1)@(1,2)\np(a,1.5)@[2,3]"
    assert (("a", Fraction(3, 2)), (2, 3, True, True)) in m.facts("p")
    assert not any(type(t[1]) is float and t[1] == 1.5 for t, _ in m.facts("p"))  # exact, not the float 1.5


# ------------------------------------------------ booleans are not numbers
#
# was: #T and 1 (#F and 0) are different constants, and `==` between them is
# false on rows, but Python calls them equal, so a join or a constant in an
# atom matched them on both executors, and the columns' one code per value
# made them one term there too.  Booleans are now terms of their own
# (language/booleans.py); tests/test_booleans.py has the wider cases.


@pytest.mark.parametrize("engine", ["rows", "columns"])
@pytest.mark.parametrize("body", ["v(K, N), w(K, N)", "v(K, N), w(K, M), N == M", "v(K, 1)", "w(K, #T)"])
def test_a_boolean_never_matches_a_number(engine, body):
    m = chronolog.reason(f"p(K) :- {body}.\nv(a, #T)@0. w(a, 1)@0.", engine=engine)
    assert m.facts("p") == []


# ------------------------------------------------ a float time point read by columns


def test_a_float_interval_end_is_not_cut_to_an_integer_on_columns():
    # was: p0(b,0.2)@[1,1] on columns: the head interval term F = 1 + 0.2 is
    # the float 1.2 (the rows keep it), and the columnar stratum reading p0
    # for the time grouping scaled it with int(), cutting 1.2 to 1
    program = "p0(K, N)@[S, F] :- w(K, N)@[S, E], F = S + N.\np1(K, S) :- /\\[1] p0(K, N), S = min(N)."
    m = answers(program, {"w": [(("b", 0.2), (1, 2, True, False))]})
    assert m.to_text() == "p0(b,0.2)@[1,1.2]\np1(b,0.2)@[1,2)"


# ------------------------------------------------ an arithmetic error names the same values


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_an_arithmetic_error_names_the_least_failing_binding(engine):
    # was: "with 1 and #T" on columns, "with -2 and #T" on rows: the
    # columns computed the interval terms and handed the rows their
    # relation in another order, and the first failing binding was reported
    program = "p0(K, N)@(S, F) :- w(K, N)@[S, E], F = S + N.\nw(a,1)@[3.5,5).\nw(a,#T)@(1,2.5).\nw(a,#T)@[-2,0]."
    with pytest.raises(chronolog.ChronologError) as e:
        chronolog.reason(program, engine=engine)
    assert str(e.value) == "<program>:1:36: data error: cannot compute (S + N) with -2 and #T: both must be numbers"


def test_a_sum_over_values_that_are_no_numbers_names_the_least_on_every_executor():
    # was: 'zz' on rows, 'y' on columns: the columns computed q and handed
    # the rows its relation in another order, and the first value that is
    # no number was named; now the least in term order, for either order
    program = "s(G, S) :- q(G, V), S = sum(V).\nq(G, V) :- p(G, V)."
    facts = ["p(h, y)@[2,3]", "p(g, 3.5)@[1,1]", "p(g, zz)@[2,3]", "p(g, zz)@[2,4]", "p(g, y)@[3,5]"]
    texts = set()
    for engine in ("rows", "columns"):
        for order in (facts, facts[::-1]):
            with pytest.raises(chronolog.ChronologError) as e:
                chronolog.reason(program, "\n".join(order), engine=engine)
            texts.add(str(e.value))
    assert texts == {"<program>:1:21: data error: sum() needs numbers, but a binding gives 'y'"}


# ------------------------------------------------ -0.0 is 0.0, printed alike


@pytest.mark.parametrize("first", ["Y = X * -1", "Y = X"])
def test_zero_and_minus_zero_derived_for_one_atom_print_as_zero_on_every_executor(first):
    # was: the text kept the sign of whichever derivation came first, which
    # differed between the executors (q(-0.0) on one, q(0.0) on the other)
    other = "Y = X" if first == "Y = X * -1" else "Y = X * -1"
    program = f"q(Y) :- p(X), {first}.\nq(Y) :- p(X), {other}.\n"
    facts = {"p": [((0.0,), (1, 1))]}
    outs = outcomes(program, facts)
    agree(program, outs)
    for engine, model in outs.items():
        assert model.to_text() == "q(0.0)@[1,1]", engine
        assert model.facts("q") == [((0.0,), (1, 1, True, True))], engine


def test_a_lone_minus_zero_prints_as_zero():
    outs = outcomes("q(Y) :- p(X), Y = X * -1.", {"p": [((0.0,), (1, 1))]})
    for engine, model in outs.items():
        assert model.to_text() == "q(0.0)@[1,1]", engine
        [((v,), _)] = model.facts("q")
        assert v == 0.0, engine


# ------------------------------------------------ -2**63 as a time point


@pytest.mark.parametrize("start", [-(2**63), -(2**63) + 1, 2**63 - 1])
def test_the_least_int64_time_is_not_taken_for_a_small_one(start):
    # numpy's abs(-2**63) is -2**63 (no positive int64 holds it), so the
    # columns' range check passed it and doubled it to code 0: r(a)@[0,-1]
    lo, hi = sorted((start, -1 if start < 0 else 1))
    program = f"r(X) :- q(X).\nq(a)@[{lo},{hi}]."
    assert answers(program).facts("r") == [(("a",), (lo, hi, True, True))]


@pytest.mark.parametrize("time", [-(2**62), 2**62])
def test_a_time_equal_to_the_code_of_an_infinite_end_stays_finite(time):
    # the columns code ±inf as ±2**62 and took a fact's finite end of that
    # value for an infinite one: p(a,0)@[-2**62,3] came out as (-inf,3]
    lo, hi = sorted((time, 3))
    program = f"r(X, V) :- p(X, V), V != 1.\np(a, 0)@[{lo},{hi}].\np(b, 0)@(-inf,{hi}]."
    assert answers(program).facts("r") == [(("a", 0), (lo, hi, True, True)), (("b", 0), (-INF, hi, False, True))]
