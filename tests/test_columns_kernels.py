"""The columnar executor's Since/Until, condition, assignment, aggregation
and time-grouping nodes against the row engine, on random data: open and
closed ends, ±inf, fractions, ints and floats.  Each case also checks that
the stratum really ran on columns (no silent fallback to rows)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.engine.columns.encoding import CONFLATION
from chronolog.language import timeline as tl

pytest.importorskip("polars")

points = st.integers(-40, 40).map(lambda n: tl.normalize(Fraction(n, 4)))


@st.composite
def intervals(draw):
    a, b = sorted((draw(points), draw(points)))
    lo = tl.NEG_INF if draw(st.integers(0, 7)) == 0 else a
    hi = tl.POS_INF if draw(st.integers(0, 7)) == 0 else b
    iv = tl.make(lo, hi, draw(st.booleans()), draw(st.booleans()))
    return iv if iv is not None else tl.point(a)


def window_text(draw, zero=True):
    a = draw(st.integers(0 if zero else 1, 12)) / 4
    b = a + draw(st.integers(0, 12)) / 4
    lc, rc = draw(st.booleans()), draw(st.booleans())
    if a == b:
        lc = rc = True
    hi = "+inf)" if draw(st.integers(0, 5)) == 0 else f"{b}{']' if rc else ')'}"
    return f"{'[' if lc else '('}{a},{hi}"


def both(program, facts, must_run_on_columns=True):
    rows = chronolog.reason(program, facts, engine="rows")
    cols = chronolog.reason(program, facts, engine="columns")
    assert cols.to_text() == rows.to_text()
    if must_run_on_columns:
        assert not cols.stats.get("fallbacks"), cols.stats.get("fallbacks")
        assert set(cols.stats["executors"].values()) == {"columns"}
    return rows


keys = st.sampled_from(["x", "y"])
facts_of = lambda values: st.lists(st.tuples(st.tuples(keys, values), intervals()), max_size=6)  # noqa: E731


@settings(deadline=None, max_examples=examples(150))
@given(st.data(), st.sampled_from(["S", "U"]), facts_of(st.just(())), facts_of(st.just(())))
def test_since_until_matches_the_rows(data, op, a, b):
    w = window_text(data.draw)
    program = f"h(K) :- a(K) <{op}>{w} b(K)."
    both(program, {"a": [((k,), iv) for (k, _), iv in a], "b": [((k,), iv) for (k, _), iv in b]})


numbers = st.one_of(
    st.integers(-20, 20),
    st.integers(-40, 40).map(lambda n: tl.normalize(Fraction(n, 3))),
)


@settings(deadline=None, max_examples=examples(100))
@given(st.data(), facts_of(numbers), st.sampled_from(["sum", "count", "avg", "min", "max", "msum", "mmax", "prod", "mprod",
                                                       "munion"]))
def test_aggregation_matches_the_rows(data, facts, func):
    w = window_text(data.draw)
    arg = "" if func == "count" else "V"
    program = f"r(K, X) :- <->{w} p(K, D, V), X = {func}({arg}), N = count(), N >= 2.  t(X) :- p(K, D, V), X = {func}({arg})."
    rows = [((k, i, v), iv) for i, ((k, v), iv) in enumerate(facts)]
    both(program, {"p": rows})


@settings(deadline=None, max_examples=examples(60))
@given(st.lists(st.tuples(st.tuples(keys, st.integers(-10**6, 10**6).map(lambda n: n / 64)), intervals()), max_size=6),
       st.sampled_from(["sum", "avg", "min", "max", "prod"]))
def test_float_aggregation_is_correctly_rounded_as_on_rows(facts, func):
    program = f"r(K, X) :- <->[0,2] p(K, D, V), X = {func}(V)."
    both(program, {"p": [((k, i, v + 0.1), iv) for i, ((k, v), iv) in enumerate(facts)]})


@settings(deadline=None, max_examples=examples(100))
@given(st.data(), st.sampled_from(["munion", "mprod"]))
def test_products_and_sets_per_contributor_match_the_rows(data, func):
    """The rows' own folds per segment, over each contributor's greatest
    value (the sets of names and of sets; products of exact numbers and
    floats), then a condition on the result."""
    # (exact numbers and floats apart: a max of both kinds in one column, the contributors' first fold, falls back)
    floats = st.integers(-12, 12).map(lambda n: n / 4)
    values = st.sampled_from(["a", "b", "c"]) if func == "munion" else data.draw(st.sampled_from([numbers, floats]))
    facts = data.draw(facts_of(values))
    program = (f"r(K, X) :- p(K, D, V), X = {func}(V, <D>).  s(K, X) :- p(K, D, V), X = {func}(V), N = count(), N >= 2."
               "  u(K, Y) :- r(K, X), Y = munion(X).")
    cols = chronolog.reason(program, {"p": [((k, i % 3, v), iv) for i, ((k, v), iv) in enumerate(facts)]}, engine="columns")
    rows = chronolog.reason(program, {"p": [((k, i % 3, v), iv) for i, ((k, v), iv) in enumerate(facts)]}, engine="rows")
    assert cols.to_text() == rows.to_text()
    # (a float product equal to an exact number elsewhere, 0.0 beside 0: one code would give both one type)
    assert all(CONFLATION in f for f in cols.stats.get("fallbacks", [])), cols.stats["fallbacks"]


@settings(deadline=None, max_examples=examples(100))
@given(st.data(), facts_of(numbers), st.sampled_from(["sum", "count", "min", "max", "prod"]),
       st.sampled_from(["msum", "mcount", "mmin", "mmax", "mprod", "munion"]), st.sampled_from(["", ">", "<=", "!="]))
def test_aggregates_of_other_contributors_in_one_rule_match_the_rows(data, facts, plain, by_contributor, op):
    """Each set of contributors folded alone, the results joined per group
    on their common pieces, then a condition comparing them; contributors
    that are constants add nothing to a contributor's identity."""
    a = "count()" if plain == "count" else f"{plain}(V)"
    contributors = data.draw(st.sampled_from(["D", "1", "D, 1, D", "k"]))  # (a constant: one contributor for all)
    b = f"{by_contributor}(<{contributors}>)" if by_contributor == "mcount" else f"{by_contributor}(V, <{contributors}>)"
    condition = f", A {op} 1" if op else ""
    program = (f"r(K, A, B) :- p(K, D, V), A = {a}, B = {b}{condition}.  "
               f"t(A, B, C) :- p(K, D, V), A = {a}, B = {b}, C = mcount(<K>).")
    both(program, {"p": [((k, i % 3, v), iv) for i, ((k, v), iv) in enumerate(facts)]})


# integers about the edges of 64 bits: products past 63 bits (exact, as Python ints), a zero among
# them, wrapped products that would look like small ones (2**32 * 2**32 is 0 modulo 2**64), products
# just under and over 2**63 (3037000499**2 and 3037000500**2), factors the int64 path does not
# compute on (from 2**62) or past 64 bits (the rows' fold per segment, still on columns)
WIDE_INTS = st.one_of(st.sampled_from([0, 1, -1, 2, 3, 2**31, -(2**31) - 1, 2**32, 3037000499, 3037000500, 2**61,
                                       2**62 - 1, -(2**62) + 1, 2**62, 2**63 - 1, -(2**63), 2**64 + 1]),
                      st.integers(-(2**62) + 1, 2**62 - 1))


@settings(deadline=None, max_examples=examples(100))
@given(facts_of(WIDE_INTS), st.sampled_from(["prod", "mprod"]))
def test_products_of_64_bit_integers_are_exact(facts, func):
    """Products per segment in int64 where no product can leave 63 bits, the
    others over Python ints: the rows' products, and at every point
    math.prod of the values that hold there."""
    program = f"r(K, X) :- p(K, D, V), X = {func}(V)."
    p = [((k, i, v), iv) for i, ((k, v), iv) in enumerate(facts)]
    rows = both(program, {"p": p})
    got = {}
    for (k, x), iv in rows.facts("r"):
        got.setdefault(k, []).append((iv, x))
    ends = sorted({b for _, iv in facts for b in iv[:2] if abs(b) != tl.POS_INF})
    for t in ends + [(a + b) / 2 for a, b in zip(ends, ends[1:])]:  # (the ends, and between them)
        for k in "xy":
            held = [v for (kk, _, v), iv in p if kk == k and tl.contains_point(iv, t)]
            want = [math.prod(held)] if held else []
            assert [x for iv, x in got.get(k, []) if tl.contains_point(iv, t)] == want, (k, t)


def test_a_product_of_a_name_is_the_rows_error_on_columns():
    program = "r(K, X) :- p(K, V), X = prod(V).\np(a, 2)@[0,3]. p(a, \"b\")@[1,2]."
    with pytest.raises(chronolog.ChronologError) as rows:
        chronolog.reason(program, engine="rows")
    with pytest.raises(chronolog.ChronologError) as cols:
        chronolog.reason(program, engine="columns")
    assert str(cols.value) == str(rows.value) and "prod() needs numbers, but a binding gives 'b'" in str(rows.value)


@settings(deadline=None, max_examples=examples(100))
@given(facts_of(st.integers(-50, 50)), st.sampled_from(["V * 2 - D", "V + 3", "D - V", "V * V"]),
       st.sampled_from([">", ">=", "<", "<=", "==", "!="]), st.integers(-10, 10))
def test_conditions_and_assignments_match_the_rows(facts, expr, op, c):
    program = f"q(K, Y) :- p(K, D, V), Y = {expr}, Y {op} {c}.  s(K) :- p(K, D, V), V {op} D."
    both(program, {"p": [((k, i, v), iv) for i, ((k, v), iv) in enumerate(facts)]})


def test_arithmetic_that_is_not_exact_in_numpy_matches_the_rows():
    # an integer division that is not whole gives a Fraction on rows, and an
    # exact pair on columns (engine/columns/exact_columns.py)
    program = "q(Y) :- p(V), Y = V / 3."
    rows = both(program, {"p": [((1,), (0, 1)), ((6,), (2, 3))]})
    assert "q(1/3)@[0,1]" in rows.to_text()
    # an exact number meeting a float: Python's Fraction + float, its float
    # plus the float, on columns by numpy (engine/columns/expressions.py)
    program = "q(Y) :- p(V), r(W), Y = V / 3 + W."
    facts = {"p": [((1,), (0, 1)), ((6,), (0, 3))], "r": [((0.5,), (0, 3))]}
    assert "q(0.8333333333333333)@[0,1]" in both(program, facts).to_text()


@settings(deadline=None, max_examples=examples(80))
@given(facts_of(st.just(0)), st.sampled_from(["[1]", "[3]", "[5/2]"]))
def test_numeric_time_grouping_matches_the_rows(facts, period):
    program = f"g(K) :- /\\{period} p(K, V).  n(K, C) :- /\\{period} p(K, V), C = count()."
    both(program, {"p": [((k, v), iv) for (k, v), iv in facts]})


@settings(deadline=None, max_examples=examples(40))
@given(st.lists(st.tuples(keys, st.integers(-3000, 19500), st.integers(0, 400), st.integers(-5, 5)), max_size=8),
       st.sampled_from(["days", "weeks", "months", "3 months", "years"]))
def test_calendar_time_grouping_matches_the_rows(facts, unit):
    program = f'@timeGranularity("days"). m(K, X) :- /\\[{unit}] p(K, D, V), X = sum(V).'
    both(program, {"p": [((k, i, v), (_day(d), _day(d + n + 1), True, False)) for i, (k, d, n, v) in enumerate(facts)]})


def test_calendar_grouping_at_the_ends_of_pythons_dates_matches_the_rows():
    """Months and years near year 1 and year 9999: the shared lowering
    refuses what Python's dates may not hold, and the rows' Grouping
    answers those ends on columns too."""
    import datetime

    far = [((k, 1), (d, d + datetime.timedelta(days=40), True, False))
           for k, d in (("x", datetime.date(1, 1, 3)), ("y", datetime.date(9998, 11, 20)), ("x", datetime.date(2024, 2, 27)))]
    for unit in ("months", "years", "2 months"):
        both(f'@timeGranularity("days"). m(K, X) :- /\\[{unit}] p(K, V), X = sum(V).', {"p": far})


def _day(n):
    import datetime

    return datetime.date(1970, 1, 1) + datetime.timedelta(days=n)


def test_float_sums_far_apart_in_magnitude_are_correctly_rounded():
    program = "r(X) :- <->[0,2] p(D, V), X = sum(V).  a(X) :- <->[0,2] p(D, V), X = avg(V)."
    values = [1e-30, 1e30, 1.0, -1e30, 3.5, 0.1, 2.0**-60]
    both(program, {"p": [((f"d{i}", v), (i, i + 1, True, False)) for i, v in enumerate(values)]})


def test_equal_numbers_of_two_types_keep_their_types_on_columns():
    """1 and 1.0 are one term (as in joins), but a float result equal to an
    integer term of the run stays a float: the columns' one code per equal
    number would have printed it as the integer, so such a stratum runs on
    the rows (it was a documented difference before)."""
    program = "r(X) :- p(D, V), X = sum(V)."
    rows = chronolog.reason(program, {"p": [((1, 1.0), (0, 1, True, False))]}, engine="rows")
    cols = chronolog.reason(program, {"p": [((1, 1.0), (0, 1, True, False))]}, engine="columns")
    assert rows.to_text() == "r(1.0)@[0,1)" and cols.to_text() == "r(1.0)@[0,1)"
    assert [type(t[0]) for t, _ in cols.facts("r")] == [float]


@settings(deadline=None, max_examples=examples(80))
@given(facts_of(st.just(())), st.lists(st.tuples(keys, points, points), max_size=6), st.sampled_from("[(" ), st.sampled_from("])"))
def test_interval_terms_match_the_rows(a, ends, lb, rb):
    program = (
        "w(K, S, E) :- a(K)@[S, E].  n(K, L) :- a(K)@[S, E], L = E - S.  "
        f"h(K){'@'}{lb}S, E{rb} :- p(K, S, E).  g(K){'@'}[S, T] :- p(K, S, E), S < 10, T = 10."
    )
    data = {"a": [((k,), iv) for (k, _), iv in a], "p": [((k, s, e), (0, 1, True, True)) for k, s, e in ends]}
    bounded = all(iv[0] != tl.NEG_INF and iv[1] != tl.POS_INF for _, iv in data["a"])
    # E - S with an infinite end or Fractions (arithmetic on rationals), and
    # an end off the run's time grid (a term value 1/4 where no time point
    # has quarters): rows
    whole = all(type(x) is int for _, s, e in ends for x in (s, e)) and all(
        type(x) is int for _, iv in data["a"] for x in iv[:2]
    )
    both(program, data, must_run_on_columns=bounded and whole)


@settings(deadline=None, max_examples=examples(150))
@given(facts_of(st.just(())), facts_of(st.just(())))
def test_time_capture_matches_the_rows(a, b):
    """lit@T: each integer time point an interval meets (on a grid of
    quarters, negative times, open and closed ends), the piece inside
    [T, T + 1); an unbounded interval is the rows' error on both."""
    from chronolog.language.errors import ChronologError

    program = "c(K, T) :- a(K)@T.  d(K, T) :- a(K)@T, b(K), T > 0.  e(T) :- b(K)@T, not a(K)."
    data = {"a": [((k,), iv) for (k, _), iv in a], "b": [((k,), iv) for (k, _), iv in b]}
    if all(iv[0] != tl.NEG_INF and iv[1] != tl.POS_INF for rel in data.values() for _, iv in rel):
        both(program, data)
        return
    errors = []
    for engine in ("rows", "columns"):
        try:
            chronolog.reason(program, data, engine=engine)
        except ChronologError as e:
            errors.append(str(e))
    assert len(errors) == 2 and errors[0] == errors[1] and "infinitely many" in errors[0]


def test_weekly_resampling_recipe_runs_on_columns():
    """examples/timeseries/resample.vada's week buckets: floor(D / 7) and an
    interval from terms."""
    program = (
        "inWeek(S, W, D, V)@[Lo, Hi) :- price(S, D, V), W = floor(D / 7), Lo = W * 7, Hi = Lo + 7.  "
        "weekMean(S, W, X) :- inWeek(S, W, D, V), X = avg(V).  day(D) :- price(S, D, V), M = mod(D, 7), M == 3."
    )
    facts = {"price": [(("s", d, (d * 37) % 11), (d, d + 1, True, False)) for d in range(-10, 30)]}
    both(program, facts)


@settings(deadline=None, max_examples=examples(200))
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(-6, 6), st.integers(0, 5)), max_size=12),
    st.lists(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(-6, 6), st.integers(0, 5)), max_size=8), max_size=3),
)
def test_merge_finds_the_delta_of_the_anti_join(old_rows, parts_rows):
    """A round's merge: the merged relation is the coalesced union and the
    delta its rows that are not rows of the old relation (as a hash
    anti-join finds them)."""
    import polars as pl

    from chronolog.engine.columns.coalesce import coalesce, merge_new

    def frame(rows):
        rows = [(a, b, s, s + 1 + d) for a, b, s, d in rows]  # s < e on the doubled grid
        return pl.DataFrame(rows, schema={"0": pl.Int64, "1": pl.Int64, "s": pl.Int64, "e": pl.Int64}, orient="row")

    keys = ["0", "1"]
    old = coalesce(frame(old_rows), keys)
    parts = [frame(p) for p in parts_rows]
    merged, new = merge_new(old, list(parts), keys)  # (merge_new empties the list it is given)
    want = coalesce(pl.concat([old, *parts]), keys)
    assert merged.rows() == want.rows()
    assert sorted(new.rows()) == sorted(want.join(old, on=[*keys, "s", "e"], how="anti").rows())


def _coalesced_by_python(rows):
    """Maximal intervals of ``(atom, s, e)`` rows by their definition on the
    doubled grid: an atom's intervals sorted by start, one joining the last
    when its start is at most the last's end."""
    by_atom: dict = {}
    for *atom, s, e in rows:
        by_atom.setdefault(tuple(atom), []).append((s, e))
    out = []
    for atom in sorted(by_atom):
        merged = []
        for s, e in sorted(by_atom[atom]):
            if merged and s <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([s, e])
        out += [(*atom, s, e) for s, e in merged]
    return out


@settings(deadline=None, max_examples=examples(200))
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(-6, 6), st.integers(0, 5), st.booleans()), max_size=12),
    st.lists(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(-6, 6), st.integers(0, 5), st.booleans()), max_size=8), max_size=3),
    st.sampled_from(["codes", "float", "exact"]),
)
def test_merge_new_is_coalescing_and_the_rows_not_old(old_rows, parts_rows, kind):
    """The seminaive merge in numpy (one combined sort key) of code columns,
    float value columns and exact pairs: the merged relation is every row
    coalesced (by Python's definition of maximal intervals), the delta its
    rows that are not rows of the old relation; unbounded ends included."""
    from fractions import Fraction

    import numpy as np
    import polars as pl

    from chronolog.engine.columns import coalesce as co
    from chronolog.engine.columns.base import column
    from chronolog.engine.interval_codes import POS

    def value(b):  # the second term as the kind under test (two distinct values never equal)
        return {"codes": b, "float": b / 4 - 0.25, "exact": Fraction(b, 3) - Fraction(1, 3)}[kind]

    def frame(rows):
        rows = [(a, value(b), s, POS if inf else s + 1 + d) for a, b, s, d, inf in rows]
        second = [r[1] for r in rows]
        if kind == "codes":
            second = np.array(second, dtype=np.int64)
        elif kind == "float":
            second = np.array(second, dtype=np.float64)
        else:
            second = (np.array([v.numerator for v in second], dtype=np.int64), np.array([v.denominator for v in second], dtype=np.int64))
        return pl.DataFrame([column("0", np.array([r[0] for r in rows], dtype=np.int64)), column("1", second),
                             column("s", np.array([r[2] for r in rows], dtype=np.int64)), column("e", np.array([r[3] for r in rows], dtype=np.int64))])

    def rows_of(df):
        if kind != "exact":
            return df.rows()
        n, d = df["1"].struct.unnest()["n"].to_list(), df["1"].struct.unnest()["d"].to_list()
        return [(r[0], Fraction(a, b), r[2], r[3]) for r, a, b in zip(df.rows(), n, d)]

    keys = ["0", "1"]
    old = co.coalesce(frame(old_rows), keys)
    parts = [frame(p) for p in parts_rows]
    old_seen = set(rows_of(old))
    everything = rows_of(old) + [r for p in parts for r in rows_of(p)]
    merged, new = co.merge_new(old, list(parts), keys)
    assert rows_of(old) == _coalesced_by_python(rows_of(old))
    assert rows_of(merged) == _coalesced_by_python(everything)
    assert sorted(rows_of(new)) == sorted(r for r in rows_of(merged) if r not in old_seen)


@settings(deadline=None, max_examples=examples(200))
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(-6, 6), st.integers(0, 5), st.booleans()), max_size=20), st.integers(0, 2))
def test_coalescing_in_place_is_coalescing_the_frame(rows, arity):
    """The given frames' coalescing of owned arrays, replaced one at a time,
    gives the frame's coalescing (any arity, unbounded ends included)."""
    import polars as pl

    from chronolog.engine.columns.coalesce import coalesce, coalesce_owned
    from chronolog.engine.interval_codes import POS

    rows = [(a, b, s, POS if inf else s + 1 + d)[2 - arity :] if arity < 2 else (a, b, s, POS if inf else s + 1 + d) for a, b, s, d, inf in rows]
    keys = [str(i) for i in range(arity)]
    df = pl.DataFrame(rows, schema={**{k: pl.Int64 for k in keys}, "s": pl.Int64, "e": pl.Int64}, orient="row")
    arrays = [df[c].to_numpy().copy() for c in df.columns]
    coalesce_owned(arrays)
    got = list(zip(*(a.tolist() for a in arrays)))
    assert got == coalesce(df, keys).rows() or (not rows and not got)


@settings(deadline=None, max_examples=examples(200))
@given(
    st.lists(st.tuples(st.integers(0, 5), st.integers(-3, 3), st.integers(-6, 6), st.booleans()), max_size=30),
    st.integers(0, 2),
    st.booleans(),
)
def test_sort_order_and_distinct_are_numpys(rows, width, huge):
    """One argsort of a combined key orders rows as ``np.lexsort`` does
    (ties in their order, unbounded starts first; ``huge``: ranges past 64
    bits, lexsort itself), and ``distinct`` gives ``np.unique``'s values."""
    import numpy as np

    from chronolog.engine.columns.coalesce import FEW_ROWS, distinct, sort_order
    from chronolog.engine.interval_codes import NEG

    if rows and len(rows) % 2:  # (past a few rows, the rows again: the packed keys, not np.lexsort itself)
        rows = rows * (FEW_ROWS // len(rows) + 1)
    scale = 2**40 if huge else 1
    cols = [np.array([r[i] * scale for r in rows], dtype=np.int64) for i in range(width)]
    s = np.array([NEG if r[3] else r[2] for r in rows], dtype=np.int64)
    assert sort_order(cols, s).tolist() == np.lexsort((s, *reversed(cols))).tolist()
    assert distinct(s).tolist() == np.unique(s).tolist()


@settings(deadline=None, max_examples=examples(100))
@given(st.lists(st.tuples(st.tuples(keys, st.integers(-50, 50), st.integers(-50, 50)), intervals()), max_size=6))
def test_integer_functions_run_on_columns_as_on_rows(facts):
    """min, max, floored divisions and mod of integers through the lowering
    shared with the Spark rounds (engine/int_arithmetic.py); a division by
    zero is the rows' error, so the divisors here are never zero."""
    program = """
    h(K, V) :- p(K, A, B), V = max(A, B, 3) - min(A, -2) * 7 + floor(A / 4) - ceil(B / -3) + mod(A, -6).
    g(K) :- p(K, A, B), min(A, B) * 2 > max(A, 0) - 20.
    """
    both(program, {"p": facts})


@settings(deadline=None, max_examples=examples(80))
@given(facts_of(st.just(())), st.lists(st.tuples(keys, st.integers(-12, 12), st.integers(-12, 12)), max_size=6),
       st.sampled_from("[("), st.sampled_from("])"))
def test_heads_placed_from_exact_pairs_floats_and_infinities_run_on_columns(a, ends, lb, rb):
    """Interval ends of every kind the columns hold: exact pairs (a quotient
    of integers), float values, and the ends of maximal intervals (±inf
    among them) turned into codes by engine/interval_terms.py, as the rows
    place them; the run's grid has quarters (the ``a`` facts' points)."""
    program = (
        f"q(K){'@'}{lb}A, B{rb} :- p(K, S, E), A = S / 4, B = E / 2.  "
        f"f(K){'@'}{lb}A, B{rb} :- p(K, S, E), A = float(S) / 2.0, B = float(E) / 4.0.  "
        f"w(K){'@'}{lb}S, E{rb} :- a(K)@[S, E].  r(K) :- quarter(K)."
    )
    data = {"a": [((k,), iv) for (k, _), iv in a], "p": [((k, s, e), (0, 1, True, True)) for k, s, e in ends],
            "quarter": [(("x",), (Fraction(1, 4), 1, True, True))]}
    both(program, data)


_NEAR = [x for c in (0.1, 1 / 3, 2.5, 1e16, 0.0) for x in (c, math.nextafter(c, math.inf), math.nextafter(c, -math.inf), -c)]


@settings(deadline=None, max_examples=examples(100))
@given(st.lists(st.tuples(keys, st.sampled_from(_NEAR) | st.floats(-4, 4, allow_nan=False)), min_size=1, max_size=8),
       st.sampled_from(["<", "<=", ">", ">=", "==", "!="]), st.sampled_from(["0.1", "1 / 3", "5 / 2", "10000000000000001", "-0.1"]))
def test_floats_against_exact_constants_are_compared_in_numpy_as_on_rows(floats, op, c):
    """``F > 0.1`` of float values: exact as the rows (Python compares a
    float with a Fraction exactly), through the floats around the constant
    (float_arithmetic.versus_exact, written once with the Spark rounds), and
    vectorised: the distinct-value path (distinct_calls.holds) is not taken."""
    from unittest import mock

    program = f"q(K, F) :- p(K, F), F {op} {c}.  r(K, F) :- p(K, F), {c} {op} F."
    facts = {"p": [((k, f), (0, 1, True, False)) for k, f in floats]}
    with mock.patch("chronolog.engine.columns.linear.holds", side_effect=AssertionError("a comparison by distinct values")):
        both(program, facts)


@settings(deadline=None, max_examples=examples(200))
@given(st.data(), st.integers(1, 14), st.one_of(st.integers(0, 60), st.integers(256, 400)))  # (a few rows: np.lexsort itself)
def test_sort_order_of_many_keys_is_numpys_lexsort(data, width, n):
    """The order by many integer keys (packed as few as fit 62 bits, the
    rows the first ties sorted by the rest) is numpy's stable lexsort:
    spans from one value to 2**60, keys that tie everywhere or nowhere;
    float keys among them (float values of answers: -0.0 ties 0.0, and
    floats of every sign and size span more than 62 bits alone)."""
    import numpy as np

    from chronolog.engine.columns.coalesce import sort_order

    def key():
        if data.draw(st.integers(0, 3)) == 0:
            floats = st.one_of(st.sampled_from([0.0, -0.0, 1.5, -1.5, 90.25]), st.floats(allow_nan=False, allow_infinity=False))
            return np.array(data.draw(st.lists(floats, min_size=n, max_size=n)), dtype=np.float64)
        span = data.draw(st.sampled_from([1, 2, 5, 100, 1 << 20, 1 << 40, 1 << 60]))
        lo = data.draw(st.integers(-(1 << 62), (1 << 62) - span))
        dtype = data.draw(st.sampled_from([np.int64, np.int32])) if -(1 << 31) <= lo and lo + span < 1 << 31 else np.int64
        return np.array([lo + x for x in data.draw(st.lists(st.integers(0, span - 1), min_size=n, max_size=n))], dtype=dtype)

    cols = [key() for _ in range(width)]
    s = np.array(data.draw(st.lists(st.integers(-5, 5), min_size=n, max_size=n)), dtype=np.int64)
    assert sort_order(cols, s).tolist() == np.lexsort((s, *reversed(cols))).tolist()


def test_facts_of_twelve_arguments_on_columns_are_the_rows_answers(tmp_path):
    """Wide facts (12 arguments: the given relation sorted by 13 keys)."""
    import random

    rnd = random.Random(3)
    lines = []
    for _ in range(3000):
        n, s = rnd.randint(0, 40), rnd.randint(0, 50)
        args = [f"n{n}", str(rnd.randint(0, 3))] + [f"c{(n * 7 + k) % 5}" if k % 3 else str(rnd.randint(-(1 << 40), 1 << 40)) for k in range(10)]
        lines.append(f"p({','.join(args)})@[{s},{s + rnd.randint(0, 9)}]\n")
    f = tmp_path / "wide.facts"
    f.write_text("".join(lines))
    program = "q(N, Y, E) :- p(N, V, A, B, C, D, E, F, G, H, I, J), Y = V * 2 + 1.\nr(N, A) :- [-][0,2] p(N, V, A, B, C, D, E, F, G, H, I, J).\n"
    cols = chronolog.reason(program, f, engine="columns")
    assert cols.lines() == chronolog.reason(program, f, engine="rows").lines()
