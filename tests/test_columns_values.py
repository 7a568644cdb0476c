"""Float results kept as value columns (engine/columns/value_columns.py)
against the row engine, on random data: the floats meet codes in joins,
negation, Since, constants in scans and conditions, arithmetic, and two
rules writing one predicate; inputs mix ints and floats.  (Equal numbers of
two types, 1 and 1.0 or 0.0 and -0.0, are one term on columns and may print
as the other one, the documented difference: there the facts are compared
as values.)  Each case
also checks that every stratum ran on columns, except one reading a
column where an exact fraction (an average of integers alone) meets a
float, which the columns hand to rows by design."""

from __future__ import annotations

from fractions import Fraction

import pytest

import chronolog
from hypothesis import example, given, settings
from hypothesis import strategies as st
from budget import examples

from test_columns_kernels import both, facts_of, intervals, keys  # noqa: F401
from chronolog.language import timeline as tl

pytest.importorskip("polars")

INF = float("inf")

floats = st.sampled_from([0.5, 1.0, 1.5, 0.0, 2.25, 0.1, 0.2, 0.3, 1e16, 3.0])

AGG = "m(K, X) :- <->[0,1] p(K, V), X = {f}(V).\n"
USES = {
    "join": "j(K, X) :- m(K, X), q(K, X).",
    "negation": "n(K, X) :- m(K, X), not q(K, X).",
    "const_scan": "c(K) :- m(K, 1.5).",
    "const_cmp": "c(K, X) :- m(K, X), 1.5 == X.",
    "ne": "c(K, X) :- m(K, X), q(K, Y), X != Y.",
    "order": "c(K, X) :- m(K, X), q(K, Y), X < Y.",
    "arith_join": "a(K, Y) :- m(K, X), Y = X * 2 + X.\nb(K, Y) :- a(K, Y), q(K, Y).",
    "two_rules": "u(K, X) :- m(K, X).\nu(K, X) :- q(K, X).",
    "repeated": "r(K) :- m(K, X), q(K, X), m(K, X).",
    "since": "s(K, X) :- m(K, X) <S>[0,2] q(K, X).",
    "agg_again": "t(K, Y) :- m(K, X), Y = max(X).",
}


@settings(deadline=None, max_examples=examples(40))
@example(  # found in a CI run: avg over the integers alone is 201/2, beside a float average
    "avg", "agg_again",
    [(("x", 0.5), (-INF, 0, False, False)), (("x", 1.0), (-INF, INF, False, False)), (("x", 0.0), (-INF, INF, False, False))],
    [], True)
@given(
    st.sampled_from(["sum", "avg", "min", "max"]),
    st.sampled_from(sorted(USES)),
    facts_of(floats),
    facts_of(floats),
    st.booleans(),
)
def test_float_value_columns_match_the_rows(func, use, p, q, ints_in_p):
    if ints_in_p:
        p = [((k, int(v) + 100 if v == int(v) and abs(v) < 10 else v), iv) for (k, v), iv in p]  # ints beside floats
    program = AGG.format(f=func) + USES[use]
    facts = {"p": [((k, v), iv) for (k, v), iv in p], "q": [((k, v), iv) for (k, v), iv in q]}
    if not ints_in_p:
        both(program, facts)
        return
    # ints beside floats: equal values (303 and 303.0 may print as the other one)
    rows = chronolog.reason(program, facts, engine="rows")
    cols = chronolog.reason(program, facts, engine="columns")
    # the average of integers alone is exact (201/2), and a float beside an
    # exact fraction in one column is the columns' documented fallback
    # (engine/columns/expressions.py): the stratum reading it runs on rows
    mixed = any(isinstance(v, Fraction) and v.denominator != 1
                for pred in rows.predicates() for terms, _ in rows.facts(pred) for v in terms)
    if mixed:
        assert all("both kinds in one column" in f for f in cols.stats.get("fallbacks", [])), cols.stats.get("fallbacks")
    else:
        assert set(cols.stats["executors"].values()) == {"columns"}, cols.stats.get("fallbacks")
    for pred in rows.predicates():
        assert set(cols.facts(pred)) == set(rows.facts(pred)), pred


@settings(deadline=None, max_examples=examples(40))
@given(facts_of(floats), facts_of(floats))
def test_float_arithmetic_values_match_the_rows(p, q):
    program = "a(K, Y) :- p(K, V), Y = V / 4 - V * V.\nb(K) :- a(K, Y), q(K, Y).\nc(K, Y) :- a(K, Y), not q(K, Y)."
    both(program, {"p": [((k, v), iv) for (k, v), iv in p], "q": [((k, v), iv) for (k, v), iv in q]})


@settings(deadline=None, max_examples=examples(80))
@given(
    st.lists(st.integers(-(10**16), 10**16), min_size=64, max_size=120),
    st.sampled_from([1, 2, 4, 5, 8, 10, 20, 100, 1000, 3, 7]),
)
def test_decimal_columns_by_numpy_are_the_texts_columns(nums, den):
    """Exact answers as Arrow decimals: the numpy path types and fills them
    as the path that formats every number as text."""
    from fractions import Fraction

    from chronolog.engine import arrow

    vals = [Fraction(n, den) for n in nums]
    vals = [v.numerator if v.denominator == 1 else v for v in vals]
    if all(type(v) is int for v in vals):
        vals[0] = Fraction(1, 2)
    fast = arrow._decimal_column(vals, vals)
    try:
        arrow._decimal_column, keep = (lambda *a: None), arrow._decimal_column
        slow = arrow._column(vals)
    finally:
        arrow._decimal_column = keep
    if fast is not None:
        assert fast.type == slow.type and fast.equals(slow)


@settings(deadline=None, max_examples=examples(30))
@given(st.lists(st.integers(-719162, 2932896), min_size=64, max_size=100), st.sampled_from(["days", "hours"]))
def test_dates_by_numpy_are_the_calendars_dates(points, unit):
    from chronolog.engine import arrow
    from chronolog.language.dates import Calendar

    cal = Calendar(unit)
    fast = arrow._whole_days(points, cal)
    if unit == "hours":
        assert fast is None
        return
    dts = [cal.datetime(p).date() for p in points]
    import pyarrow as pa

    assert fast.equals(pa.array(dts, pa.date32()))


FUNCTIONS = ("f1(K, V) :- p(K, A, B), B != 0, V = mod(A, B).\nf2(K, V) :- p(K, A, B), V = round(A).\n"
             "f3(K, V) :- p(K, A, B), V = round(A, 0) + abs(B).\nf4(K, V) :- p(K, A, B), A >= 0, V = sqrt(A).\n"
             "f5(K, V) :- p(K, A, B), V = floor(A) - ceil(B).\nf6(K, V) :- p(K, A, B), V = mod(A, 3).\n"
             "f7(K) :- p(K, A, B), A < B.\nf8(K) :- p(K, A, B), B > 0.1.\nf9(K, V) :- p(K, A, B), V = float(A) * 3.\n"
             "f10(K, V) :- p(K, A, B), N = floor(A) * 4 + 2, N > 0, N < 1000, V = sqrt(N) + sqrt(N + 1).\n"  # (4k + 2: no square)
             "f11(K, V) :- p(K, A, B), N = floor(A), V = exact(N) + exact(N / 3).\n")
some_floats = st.sampled_from([0.5, -0.5, 2.5, -7.25, 0.0, -0.0, 0.1, 0.3, 1e16, 3.75, -1e-20])


@settings(deadline=None, max_examples=examples(40))
@given(st.lists(st.tuples(st.tuples(keys, some_floats, some_floats), intervals()), max_size=6))
def test_functions_of_floats_run_on_columns_as_the_rows_compute_them(p):
    """mod, round, abs, sqrt, floor, ceil and float of floats, sqrt of
    integers that are no squares, exact of exact numbers, and floats
    against floats and exact constants, by the lowering shared with the
    Spark rounds (engine/float_arithmetic.function, compare): the columns'
    kernels compute them, never the rows' closures (distinct_calls.py)."""
    from chronolog.engine.columns import linear

    def closures(*args):
        raise AssertionError("a row closure computed what the shared lowering writes")

    facts = {"p": [(t, iv) for t, iv in p]}
    rows = chronolog.reason(FUNCTIONS, facts, engine="rows")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(linear, "assigned", closures)
        mp.setattr(linear, "holds", closures)
        cols = chronolog.reason(FUNCTIONS, facts, engine="columns")
    for pred in rows.predicates():  # (equal numbers of two types, 2 and 2.0: equal as values)
        assert set(cols.facts(pred)) == set(rows.facts(pred)), pred


EXACTS = st.one_of(
    st.integers(-(10**6), 10**6),
    st.sampled_from([0, 2**53, 2**53 + 1, -(2**53) - 1, 2**62, 10**17]),  # (past a float's exact integers: the closures)
    st.fractions(-100, 100, max_denominator=12).map(tl.normalize),
)
ANY_FLOATS = st.one_of(st.floats(-1e6, 1e6, allow_nan=False), st.sampled_from([0.0, -0.0, 0.1, 1e300, 2.0**60]))


@settings(deadline=None, max_examples=examples(80))
@given(st.lists(st.tuples(keys, EXACTS, ANY_FLOATS, intervals()), min_size=1, max_size=8), st.sampled_from("+-*/"),
       st.booleans(), st.booleans())
def test_exact_numbers_meet_floats_as_on_the_rows(facts, op, flip, table):
    """An exact number (an integer, a fraction: a table's integers are
    exact pairs on columns) meeting a float in arithmetic is its float, as
    Python's int and Fraction meet one; compared with a float it is
    compared exactly.  The columns' answers, or their error, are the rows'
    (a division by zero, a float overflowing, an integer past 2^53)."""
    import pyarrow as pa

    expr = f"F {op} E" if flip else f"E {op} F"
    program = (f"a(K, Y) :- p(K, E, F), Y = {expr}.\nb(K, Y) :- p(K, E, F), Y = E / 3 + F * 2.\n"
               "c(K, E) :- p(K, E, F), E < F.\nd(K) :- p(K, E, F), F * 4 >= E.\n")
    if table:
        if not all(type(e) is int and abs(e) < 2**63 for _, e, _, _ in facts):
            return
        given = {"p": pa.table({"k": [k for k, *_ in facts], "e": pa.array([e for _, e, _, _ in facts], pa.int64()),
                                "f": pa.array([f for _, _, f, _ in facts], pa.float64()),
                                "start": [2 * j for j in range(len(facts))], "end": [2 * j + 1 for j in range(len(facts))]})}
    else:
        given = {"p": [((k, e, f), iv) for k, e, f, iv in facts]}
    try:
        rows = chronolog.reason(program, given, engine="rows").to_text()
    except chronolog.ChronologError as e:
        with pytest.raises(chronolog.ChronologError) as got:
            chronolog.reason(program, given, engine="columns")
        assert str(got.value) == str(e)
        return
    assert chronolog.reason(program, given, engine="columns").to_text() == rows


@settings(deadline=None, max_examples=examples(200))
@given(nums=st.lists(st.one_of(st.integers(-50, 50), st.integers(-2**63, 2**63 - 1)), min_size=1, max_size=60),
       dens=st.one_of(st.just(None), st.lists(st.integers(1, 4), min_size=60, max_size=60)), den=st.integers(1, 10**18))
def test_pair_ids_rank_the_distinct_pairs(nums, dens, den):
    """value_columns.pair_ids (a table of present values for numbers of one
    denominator over a narrow range, np.unique over a wide one, a sort of
    the pairs otherwise) against Python's sorted set of the pairs: each
    row's id is its pair's rank among the distinct pairs."""
    import numpy as np

    from chronolog.engine.columns.value_columns import pair_ids

    num = np.array(nums, dtype=np.int64)
    d = np.broadcast_to(np.int64(den), num.shape) if dens is None else np.array(dens[: len(nums)], dtype=np.int64)
    pairs = list(zip(num.tolist(), d.tolist()))
    rank = {p: i for i, p in enumerate(sorted(set(pairs)))}
    got = pair_ids(num, d)
    assert got.dtype == np.int64 and got.tolist() == [rank[p] for p in pairs]
