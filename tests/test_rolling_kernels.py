"""The kernels behind the rolling-window recipe at 100,000 days
(connectors/csv_columns.py's whole-column int and date reads, the
aggregation's sort keys in engine/columns/aggregate.py and
exact_columns.py) against what they replace: the dictionary path's
``convert``, ``np.lexsort``, Python Fractions, the row executor and pandas."""

from __future__ import annotations

import datetime
import random
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.connectors import csv_columns
from chronolog.connectors.csv_files import convert, read_csv_facts
from chronolog.engine.columns import aggregate, coalesce, exact_columns
from chronolog.language import ast
from chronolog.language.dates import Calendar

pa = pytest.importorskip("pyarrow")

ODD_INTS = ["0x1F", "0X10", "+5", "007", "-0", "-", "--5", "1-2", "5-", "1234567890123456789", "-123456789012345678",
            "00000000000000000001", "\u0663", "", "5 ", " 5", "1.0", "1e3", "x"]


@settings(deadline=None, max_examples=examples(80))
@given(st.lists(st.one_of(st.integers(-10**6, 10**6).map(str), st.sampled_from(ODD_INTS)), min_size=1, max_size=40),
       st.sampled_from(["auto", "int", "double", "number", "decimal"]))
def test_whole_column_ints_are_what_convert_gives(tokens, kind):
    """A column the int kernel takes has the values ``convert`` gives each
    cell (ints); anything else (hex, a sign alone, 19 digits, ...) is left
    to the dictionary path."""
    col = csv_columns._int_column(pa.array(tokens))
    plain = all(t and t.isascii() and t.lstrip("-").isdigit() and t.count("-") <= (1 if t.startswith("-") else 0) and len(t) <= 18 for t in tokens)
    if col is None:  # (a plain column is taken unless its range is too wide for a bincount)
        assert not plain or max(map(int, tokens)) - min(map(int, tokens)) + 1 > 4 * len(tokens) + 1024
        return
    assert plain
    want = [convert(t, kind, ast.NOWHERE, "c") for t in tokens]
    got = col.decoded()
    assert got == want and all(type(v) is int for v in got)
    assert col.num.tolist() == sorted(set(got)) and set(col.den.tolist()) == {1}  # (an exact value column of its ints)


def test_a_wide_range_of_ints_takes_the_dictionary_path():
    assert csv_columns._int_column(pa.array(["1", "10000000", "5"])) is None
    assert csv_columns._int_column(pa.array(["3", "1", "3", "-2"])).decoded() == [3, 1, 3, -2]


ODD_DATES = ["2020-1-1", "2020-01-01 ", " 2020-01-01", "+2020-01-01", "2020-01-01T00:00", "20200101", "02020-01-01",
             "2020/01/01", "2020-02-30", "0000-01-01", "2020-13-01", "1", "-5"]


@settings(deadline=None, max_examples=examples(60))
@given(st.lists(st.dates(min_value=datetime.date(1, 1, 1)).map(datetime.date.isoformat), min_size=1, max_size=30),
       st.lists(st.sampled_from(ODD_DATES), max_size=2), st.sampled_from(["days", "hours", "minutes"]))
def test_whole_column_dates_are_what_convert_gives(dates, odd, unit):
    """Arrow's date32 cast of whole columns takes exactly the valid ISO
    dates (years 1-9999); the values are ``convert``'s; starts and ends
    share one array of values; anything else goes to the dictionary path."""
    cal = Calendar(unit)
    tokens = dates + odd
    half = len(tokens) // 2 or 1
    lo, hi = pa.chunked_array([pa.array(tokens[:half])]), pa.chunked_array([pa.array(tokens[half:] or tokens[:1])])
    got = csv_columns._date_columns(lo, hi, cal)
    if odd:
        assert got is None  # (a cell that is no date of years 1-9999: the dictionary path, where convert reports it)
        return
    if got is None:  # only a range of days too wide for a bincount
        return
    a, b = got
    assert a.values is b.values
    want = [convert(t, "time", ast.NOWHERE, "start", cal) for t in tokens[:half]]
    assert a.decoded() == want and all(type(v) is int for v in a.decoded())
    assert b.decoded() == [convert(t, "time", ast.NOWHERE, "end", cal) for t in (tokens[half:] or tokens[:1])]


@settings(deadline=None, max_examples=examples(25), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["s0", "s1"]), st.integers(0, 60), st.integers(1, 3), st.integers(-999, 999)), min_size=1, max_size=40))
def test_bound_csv_with_dates_and_day_numbers_reads_as_the_row_reader(tmp_path_factory, monkeypatch, rows):
    monkeypatch.setattr(csv_columns, "KERNEL_BYTES", 0)
    path = tmp_path_factory.mktemp("csv") / "p.csv"
    first = datetime.date(1999, 12, 30)
    lines = ["series,day,value,start,end"]
    for s, d, n, v in rows:
        lines.append(f"{s},{d},{v / 100:.2f},{first + datetime.timedelta(days=d)},{first + datetime.timedelta(days=d + n)}")
    path.write_text("\n".join(lines) + "\n")
    cal = Calendar("days")
    mapping = {0: ("series", "string"), 1: ("day", "int"), 2: ("value", "double")}
    tm = (3, 4, True, False)
    fc = csv_columns.read_csv_columns(path, "p", {"useHeaders": "true"}, mapping, tm, cal)
    assert fc is not None
    lo = fc.parts["p"][0][1]
    assert lo.ints is not None  # (the whole-column date path was taken)
    want = sorted(((f.terms, f.interval) for f in read_csv_facts(path, "p", None, {"useHeaders": "true"}, mapping, tm, cal)), key=repr)
    got = fc.pred_rows("p")
    assert sorted(got, key=repr) == want
    assert [tuple(map(type, t)) for t, _ in sorted(got, key=repr)] == [tuple(map(type, t)) for t, _ in want]


# ------------------------------------------------------------------ sort keys
def _keys_order(keys):
    """The answers' order as the fold makes it (aggregate._coalesce_segments):
    one stable argsort of the combined key when there is one, else lexsort."""
    combined = coalesce.combined_key(keys)
    return coalesce.stable_argsort(combined) if combined is not None else np.lexsort(keys[::-1])


@settings(deadline=None, max_examples=examples(100))
@given(st.lists(st.tuples(st.integers(0, 3),
                          st.one_of(st.floats(allow_nan=False, width=64), st.sampled_from([0.0, -0.0, 1.5, -1.5, float("inf"), -float("inf")])),
                          st.integers(0, 5)), min_size=2, max_size=60))
def test_the_answers_order_is_lexsorts(rows):
    """One argsort of a combined key (floats as ordered ints, -0.0 equal to
    0.0) gives np.lexsort's stable order, or lexsort itself is used."""
    g = np.array([r[0] for r in rows], dtype=np.int64)
    x = np.array([r[1] for r in rows], dtype=np.float64)
    n = np.array([r[2] for r in rows], dtype=np.int64)
    for keys in ([g, x, n], [x], [g, x], [x, n]):
        assert _keys_order(keys).tolist() == np.lexsort(keys[::-1]).tolist()


@settings(deadline=None, max_examples=examples(100))
@given(st.lists(st.lists(st.integers(-2**62, 2**62), min_size=3, max_size=3), max_size=40),
       st.sampled_from([1, 3, 2**20, 2**62]))
def test_a_ranged_key_orders_and_decodes_as_the_rows(rows, width):
    """exprs.ranged_key (the groups' keys and coalesce.combined_key): the
    rows' lexicographic order and equality, the columns back from the key
    by its ranges; None only when the ranges' product passes 2**63."""
    from chronolog.engine.exprs import ranged_key

    cols = [np.array([r[i] % width - width // 2 for r in rows], dtype=np.int64) for i in range(3)]
    got = ranged_key(cols)
    spans = [int(c.max()) - int(c.min()) + 1 if len(c) else 1 for c in cols]
    assert (got is None) == (spans[0] * spans[1] * spans[2] > 2**63)
    if got is None:
        return
    key, ranges = got
    assert np.argsort(key, kind="stable").tolist() == np.lexsort(cols[::-1]).tolist()
    rest = key.copy()
    for c, (lo, r) in zip(reversed(cols), reversed(ranges)):
        assert (rest % r + lo).tolist() == c.tolist()
        rest //= r


@settings(deadline=None, max_examples=examples(100))
@given(st.integers(0, 2**32 - 1), st.integers(0, 5000), st.sampled_from([1, 2, 7, 1000, 2**40, 2**63 - 1]))
def test_stable_argsort_is_numpys_stable_argsort(seed, n, distinct):
    """The default sort with its ties put back in index order is numpy's
    stable argsort, on keys of a few values (every row tied) up to keys
    spread over int64 (arrays long enough for numpy's unstable SIMD sort)."""
    rng = np.random.default_rng(seed)
    key = rng.integers(-distinct, distinct, size=n, dtype=np.int64, endpoint=distinct < 2**63 - 1)
    assert coalesce.stable_argsort(key).tolist() == np.argsort(key, kind="stable").tolist()



@settings(deadline=None, max_examples=examples(10))
@given(st.integers(0, 2**32 - 1), st.sampled_from(["random", "runs", "sorted", "few values"]))
def test_large_keys_sort_alike_whichever_way_this_machine_prefers(seed, shape):
    """Past coalesce._TIMED_FROM rows the first key of each kind (short or
    long runs; not a few sorted runs, which timsort takes) is sorted both
    ways and timed: the order is numpy's stable argsort whether the choice
    is being made or was made either way."""
    rng = np.random.default_rng(seed)
    n = coalesce._TIMED_FROM + int(rng.integers(0, 20000))
    if shape == "random":
        key = rng.integers(-1000, 1000, size=n, dtype=np.int64)
    elif shape == "runs":  # a rolling mean's: long rising and falling runs, ties between them
        key = np.cumsum(rng.integers(-3, 4, size=n)).astype(np.int64) // 4
    elif shape == "sorted":
        key = np.sort(rng.integers(-2**62, 2**62, size=n, dtype=np.int64))
    else:
        key = rng.integers(0, 3, size=n, dtype=np.int64)
    want = np.argsort(key, kind="stable").tolist()
    saved = dict(coalesce._FASTER)
    try:
        coalesce._FASTER.clear()
        assert coalesce.stable_argsort(key).tolist() == want  # (timed: both ways run)
        assert len(coalesce._FASTER) == (0 if coalesce.few_runs(key) else 1)  # (a few sorted runs: timsort, untimed)
        for way in (coalesce._default_then_ties, coalesce._timsort):
            coalesce._FASTER.update({False: way, True: way})
            assert coalesce.stable_argsort(key).tolist() == want
    finally:
        coalesce._FASTER.clear()
        coalesce._FASTER.update(saved)

def test_a_nan_key_keeps_lexsort():
    x = np.array([1.0, np.nan, 0.5])
    assert coalesce.int_key(x) is None
    assert _keys_order([x]).tolist() == np.lexsort([x]).tolist()


@settings(deadline=None, max_examples=examples(100))
@given(st.lists(st.tuples(st.integers(-10**7, 10**7), st.sampled_from([1, 2, 3, 7, 20, 100, 300, 1900, 2000, 4096])), min_size=2, max_size=80))
def test_exact_order_keys_follow_the_fractions(pairs):
    """Means of windows of 1..20 prices in cents (mixed denominators,
    negative values): the key orders them as Fractions do, one key per
    value, and its span stays small enough to combine with a group."""
    vals = [F(a, b) for a, b in pairs]
    num = np.array([v.numerator for v in vals], dtype=np.int64)
    den = np.array([v.denominator for v in vals], dtype=np.int64)
    key, injective = exact_columns.order_key(num, den)
    assert injective
    for i in range(len(vals)):
        for j in range(len(vals)):
            assert (key[i] < key[j]) == (vals[i] < vals[j]) and (key[i] == key[j]) == (vals[i] == vals[j])


def test_the_scaled_key_takes_a_rolling_means_denominators():
    """A 20-day mean of cent prices: no common denominator fits 2**31
    (100 * lcm(1..20)), the scaled key does, with a span that leaves room
    for a group and a count."""
    rng = random.Random(3)
    vals = [F(rng.randint(-10**6, 10**6), 100 * rng.randint(1, 20)) for _ in range(2000)]
    num = np.array([v.numerator for v in vals], dtype=np.int64)
    den = np.array([v.denominator for v in vals], dtype=np.int64)
    with pytest.raises(exact_columns.Fallback):
        exact_columns.common(num, den)
    key, injective = exact_columns.order_key(num, den)
    assert injective and int(key.max()) - int(key.min()) < 2**50
    assert [vals[i] for i in np.argsort(key, kind="stable")] == sorted(vals)


# ------------------------------------------------------------------ the recipe
def _recipe(path, value, window):
    return f"""@timeGranularity("days").
@bind("price", "csv useHeaders=true", "{path.parent}", "{path.name}").
@mapping("price", 0, "series", "string"). @mapping("price", 1, "day", "int"). @mapping("price", 2, "value", "{value}").
@timeMapping("price", 3, 4, #T, #F).
@output("rs"). @output("rm"). @output("lo"). @output("hi").
rs(S, X) :- <->[0,{window - 1}] price(S, D, V), X = sum(V), N = count(), N == {window}.
rm(S, X) :- <->[0,{window - 1}] price(S, D, V), X = avg(V), N = count(), N == {window}.
lo(S, X) :- <->[0,{window - 1}] price(S, D, V), X = min(V), N = count(), N == {window}.
hi(S, X) :- <->[0,{window - 1}] price(S, D, V), X = max(V), N = count(), N == {window}.
"""


def _prices(path, days, gaps, decimals, seed):
    """Two series with negative values, values of 0 to 3 decimals (mixed
    denominators) and, with ``gaps``, missing days."""
    rng = random.Random(seed)
    first = datetime.date(2001, 3, 1)
    lines = ["series,day,value,start,end"]
    data = {}
    for s in ("s0", "s1"):
        for d in range(days):
            if gaps and rng.random() < 0.2:
                continue
            k = rng.choice(decimals)
            cents = rng.randint(-50_000, 50_000)
            text = f"{cents / 10**k:.{k}f}" if k else str(cents)
            data[(s, d)] = F(text)
            lines.append(f"{s},{d},{text},{first + datetime.timedelta(days=d)},{first + datetime.timedelta(days=d + 1)}")
    path.write_text("\n".join(lines) + "\n")
    return data, first


@pytest.mark.parametrize("days, window, gaps, decimals", [
    (200, 20, False, [2]),
    (120, 7, True, [0, 1, 2, 3]),
    (30, 50, False, [2]),  # a window longer than the series: no full window, no answer
    (90, 1, True, [0, 3]),
])
def test_rolling_recipe_matches_rows_fractions_and_pandas(tmp_path, monkeypatch, days, window, gaps, decimals):
    import pandas as pd

    monkeypatch.setattr(csv_columns, "KERNEL_BYTES", 0)
    path = tmp_path / "p.csv"
    data, first = _prices(path, days, gaps, decimals, seed=days + window)
    exact = chronolog.reason(_recipe(path, "double", window), engine="columns")
    assert set(exact.stats["executors"].values()) == {"columns"}
    rows = chronolog.reason(_recipe(path, "double", window), engine="rows")
    assert exact.to_text() == rows.to_text()
    for p in ("rs", "rm", "lo", "hi"):
        assert exact.to_arrow(p).equals(rows.to_arrow(p))
    floats = chronolog.reason(_recipe(path, "float", window), engine="columns")
    assert set(floats.stats["executors"].values()) == {"columns"}
    assert floats.to_text() == chronolog.reason(_recipe(path, "float", window), engine="rows").to_text()
    # every day against the Fractions of its window (a window counts the days present in it)
    epoch = datetime.date(1970, 1, 1)
    got = {p: {} for p in ("rs", "rm", "lo", "hi")}
    for p in got:
        for (s, x), iv in exact.facts(p):
            for day in range(iv[0], iv[1]):
                got[p][(s, (epoch + datetime.timedelta(days=day) - first).days)] = x
    funcs = {"rs": sum, "rm": lambda w: sum(w) / len(w), "lo": min, "hi": max}
    for s in ("s0", "s1"):
        for d in range(days + window):
            w = [data[(s, k)] for k in range(d - window + 1, d + 1) if (s, k) in data]
            for p, f in funcs.items():
                if len(w) == window:
                    assert got[p][(s, d)] == f(w)
                else:
                    assert (s, d) not in got[p]
        if not gaps:  # pandas' rolling over the days as rows
            ser = pd.Series([float(data[(s, d)]) for d in range(days)])
            for p, f in (("rs", "sum"), ("rm", "mean"), ("lo", "min"), ("hi", "max")):
                want = getattr(ser.rolling(window), f)()
                for d in range(days):
                    if np.isnan(want[d]):
                        assert (s, d) not in got[p]
                    else:
                        assert abs(float(got[p][(s, d)]) - want[d]) <= 1e-9 * max(1.0, abs(want[d]))


def test_conditions_on_the_aggregates_filter_inside_the_node(tmp_path, monkeypatch):
    """``N == 20`` and other comparisons of the group and the aggregates
    run on the segments inside the aggregation (no filter node after it):
    the same answers as the rows, including a condition on the value, one
    on the group, and a condition that names a later assignment (kept
    after the node)."""
    monkeypatch.setattr(csv_columns, "KERNEL_BYTES", 0)
    path = tmp_path / "p.csv"
    _prices(path, 80, True, [0, 2], seed=11)
    program = f"""@timeGranularity("days").
@bind("price", "csv useHeaders=true", "{tmp_path}", "p.csv").
@mapping("price", 0, "series", "string"). @mapping("price", 1, "day", "int"). @mapping("price", 2, "value", "double").
@timeMapping("price", 3, 4, #T, #F).
@output("a"). @output("b"). @output("c").
a(S, X) :- <->[0,4] price(S, D, V), X = sum(V), N = count(), N >= 3, X > 0.
b(S, X) :- <->[0,4] price(S, D, V), X = avg(V), S == "s1".
c(S, Y) :- <->[0,4] price(S, D, V), X = max(V), Y = X * 2, Y > 100.
"""
    from chronolog.engine.columns import linear

    seen = []
    process = linear.ConditionNode.process
    monkeypatch.setattr(linear.ConditionNode, "process", lambda self, df: seen.append(str(self.comparison)) or process(self, df))
    cols = chronolog.reason(program, engine="columns")
    assert set(cols.stats["executors"].values()) == {"columns"}
    # N >= 3 and X > 0 inside the node; Y > 100 (a later assignment's) and S == "s1" (the body's) after and before it
    assert not {"N >= 3", "X > 0"} & set(seen) and "Y > 100" in seen
    assert cols.to_text() == chronolog.reason(program, engine="rows").to_text()
    assert {s for (s, _), _ in cols.facts("b")} == {"s1"}


@settings(deadline=None, max_examples=examples(60), suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 30), st.sampled_from([1, 2, 2, 3, 0.5, 2.5])), min_size=1, max_size=40),
       st.integers(0, 4), st.sampled_from(["N >= 2", "X > 2", "X != 2, N < 3", "N == 1", "X < 0"]))
def test_conditions_kept_with_the_merged_runs_as_the_rows(rows, width, condition):
    """A rule's conditions on its group and aggregates, applied with the
    merge of equal adjacent segments (aggregate._coalesce_segments): the
    row executor's answers, with values from a few (equal neighbours merge;
    a dropped segment between two kept ones)."""
    facts = "\n".join(f"p(g{g}, {d}, {v})@[{d},{d + 1})." for g, d, v in rows)
    program = facts + "\n" + "\n".join(
        f"{name}(G, X) :- <->[0,{width}] p(G, D, V), X = {func}(V), N = count(), {condition}."
        for name, func in (("s", "sum"), ("a", "avg"), ("lo", "min"), ("hi", "max"))
    )
    want = chronolog.reason(program, engine="rows")
    got = chronolog.reason(program, engine="columns")
    assert set(got.stats["executors"].values()) == {"columns"}, got.stats.get("fallbacks")
    for pred in ("s", "a", "lo", "hi"):
        assert got.facts(pred) == want.facts(pred)


@settings(deadline=None, max_examples=examples(100))
@given(st.integers(1, 40).flatmap(lambda m: st.tuples(
    st.just(m),
    st.lists(st.integers(0, m - 1).flatmap(lambda a: st.tuples(st.just(a), st.integers(a + 1, m))), min_size=1, max_size=30),
    st.booleans())),
    st.randoms())
def test_range_extremes_are_each_segments_min_and_max(case, rnd):
    """aggregate._range_extreme (blocks pushed down level by level, the
    blocks shared by a min and a max of the same values) against the min
    and max of the rows covering each segment, one segment at a time."""
    m, ranges, floats = case
    i_s = np.array([a for a, _ in ranges], dtype=np.int64)
    i_e = np.array([b for _, b in ranges], dtype=np.int64)
    v = np.array([rnd.uniform(-5, 5) if floats else rnd.randint(-5, 5) for _ in ranges], dtype=np.float64 if floats else np.int64)
    memo = {}
    for least in (True, False):
        got = aggregate._range_extreme(m, i_s, i_e, v, least, memo)
        for j in range(m):
            over = [x for x, a, b in zip(v.tolist(), i_s.tolist(), i_e.tolist()) if a <= j < b]
            if over:
                assert got[j] == (min(over) if least else max(over))


@settings(deadline=None, max_examples=examples(20))
@given(st.integers(0, 2**32 - 1), st.integers(1, 5), st.integers(0, 8), st.booleans())
def test_a_key_of_a_few_sorted_runs_sorts_as_numpy_does(seed, runs, shuffled, stable):
    """coalesce.argsort takes timsort for a key of a few sorted runs (a
    relation and its new rows), which a pass of comparisons tells: the order
    is numpy's stable one, or with stable=False any order of the ties."""
    rng = np.random.default_rng(seed)
    key = np.concatenate([np.sort(rng.integers(0, 500, size=int(rng.integers(1000, 6000)))) for _ in range(runs)])
    for _ in range(shuffled):  # a few rows out of place
        i, j = rng.integers(0, len(key), size=2)
        key[i], key[j] = key[j], key[i]
    descents = int(np.count_nonzero(key[1:] < key[:-1]))
    assert coalesce.few_runs(key) == (len(key) >= 4096 and descents * 1024 <= len(key))
    order = coalesce.argsort(key, stable)
    if stable:
        assert order.tolist() == np.argsort(key, kind="stable").tolist()
    else:
        assert sorted(order.tolist()) == list(range(len(key))) and bool(np.all(np.diff(key[order]) >= 0))
