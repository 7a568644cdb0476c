"""Exact numbers as typed value columns (engine/columns/exact_columns.py)
against the row executor, on random data: sums, means, min/max, arithmetic,
comparisons, joins, negation, Since and constants over decimals, fractions
and ints (1, 1.0 and 1.00 are one term), negative values, and values near
the 64-bit limits, where the columns must fall back to rows (never a float,
never a wrapped integer).  And the time-series answers of an exact CSV
column against Python Fractions and pandas."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog

from test_columns_kernels import facts_of

pytest.importorskip("polars")

F = Fraction
# (normalised as the readers give them: a whole number is an int, never Fraction(1))
exact = st.sampled_from([1, 5, F(3, 2), F(-5, 4), F(1, 10), F(-1, 3), F(2, 7), 0, -2, F(1225, 100), F(1, 8), 7])
huge = st.sampled_from([2**61, -(2**61) + 1, F(2**61 - 1, 3), F(1, 2**40 + 1), 2**62 + 5])

AGG = "m(K, X) :- <->[0,1] p(K, V), X = {f}(V).\n"
USES = {
    "join": "j(K, X) :- m(K, X), q(K, X).",
    "negation": "n(K, X) :- m(K, X), not q(K, X).",
    "const_scan": "c(K) :- m(K, 3/2).",
    "const_cmp": "c(K, X) :- m(K, X), 1.5 == X.",
    "ne": "c(K, X) :- m(K, X), q(K, Y), X != Y.",
    "order": "c(K, X) :- m(K, X), q(K, Y), X < Y.",
    "order_const": "c(K, X) :- m(K, X), X >= -1/3.",
    "arith": "a(K, Y) :- m(K, X), q(K, W), Y = X * 2 - W / 3 + 1.",
    "arith_join": "a(K, Y) :- m(K, X), Y = X * 2 + X.\nb(K, Y) :- a(K, Y), q(K, Y).",
    "divide": "a(K, Y) :- m(K, X), q(K, W), W != 0, Y = X / W.",
    "floor": "a(K, Y, Z) :- m(K, X), Y = floor(X), Z = abs(X) - ceil(X).",
    "two_rules": "u(K, X) :- m(K, X).\nu(K, X) :- q(K, X).",
    "repeated": "r(K) :- m(K, X), q(K, X), m(K, X).",
    "since": "s(K, X) :- m(K, X) <S>[0,2] q(K, X).",
    "agg_again": "t(K, Y) :- m(K, X), Y = max(X).\nt2(K, Y) :- m(K, X), Y = sum(X).",
    "group_by_value": "g(X, C) :- m(K, X), C = count().",
    "recursion": "r(K, X) :- m(K, X).\nr(L, X) :- r(K, X), q(K, Y), q(L, Z), X < Y.",
}


def _both(program, facts, on_columns=True):
    rows = chronolog.reason(program, facts, engine="rows")
    cols = chronolog.reason(program, facts, engine="columns")
    assert cols.to_text() == rows.to_text()
    for pred in rows.predicates():
        assert cols.to_arrow(pred).equals(rows.to_arrow(pred)), pred
    if on_columns:
        assert set(cols.stats["executors"].values()) == {"columns"}, cols.stats.get("fallbacks")
    return cols, rows


@settings(deadline=None, max_examples=examples(80))
@given(st.sampled_from(["sum", "avg", "min", "max"]), st.sampled_from(sorted(USES)), facts_of(exact), facts_of(exact))
def test_exact_value_columns_match_the_rows(func, use, p, q):
    _both(AGG.format(f=func) + USES[use], {"p": p, "q": q})


# both sides exact value columns (an aggregate's and arithmetic's results): matched by
# a key of their pairs (value_columns.pair_key_columns), not by coded Fractions
BOTH_EXACT = {
    "join": "j(K, X) :- m(K, X), w(K, X).",
    "join_on_the_value": "j(K, L, X) :- m(K, X), w(L, X).",
    "negation": "n(K, X) :- m(K, X), not w(K, X).",
    "negation_of_the_value": "n(K, X) :- m(K, X), not w(_, X).",
    "since": "s(K, X) :- m(K, X) <S>[0,2] w(K, X).",
}


_DECIMAL_FACTS = st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from(["1.5", "1.50", "0.25", "-2.5", "3.0", "12.125", "0.1"]),
                                    st.integers(0, 6), st.integers(0, 3)), min_size=1, max_size=12)


@settings(deadline=None, max_examples=examples(80))
@given(st.sampled_from(sorted(BOTH_EXACT)), _DECIMAL_FACTS, _DECIMAL_FACTS)
def test_exact_values_on_both_sides_match_by_their_pairs_as_the_rows(tmp_path_factory, use, p, q):
    """Decimal facts of a fact file (read as exact value columns) on both
    sides of a join, a negation and Since, matched by a key of their pairs:
    the rows' answers (1.50 is 1.5, 3.0 is 3)."""
    from unittest import mock

    from chronolog import api

    path = tmp_path_factory.mktemp("exact") / "facts.vada"
    path.write_text("".join(f"{pred}({k},{v})@[{s},{s + d}].\n" for pred, rows in (("m", p), ("w", q)) for k, v, s, d in rows))
    with mock.patch.object(api, "KERNEL_BYTES", 0):  # (a small fact file read by the kernels too)
        _both(BOTH_EXACT[use], [path])


@settings(deadline=None, max_examples=examples(40))
@given(st.sampled_from(["sum", "avg", "min", "max"]), st.sampled_from(["join", "arith", "order", "agg_again"]), facts_of(st.one_of(exact, huge)), facts_of(exact))
def test_values_near_the_64_bit_limits_fall_back_to_rows_exactly(func, use, p, q):
    """Beyond 64 bits the stratum runs on rows: the same model, whatever ran."""
    _both(AGG.format(f=func) + USES[use], {"p": p, "q": q}, on_columns=False)


def test_a_sum_beyond_64_bits_falls_back_instead_of_wrapping():
    facts = {"p": [(("x", F(2**61, 3)), (0, 2)), (("x", F(2**61, 3) + 1), (1, 3)), (("x", F(2**61, 3) + 2), (1, 2))]}
    cols, rows = _both("m(K, X) :- p(K, V), X = sum(V).", facts, on_columns=False)
    assert cols.stats.get("fallbacks")
    assert f"m(x,{F(3 * 2**61 + 9, 3)})@[1,2]".replace(" ", "") in rows.to_text().replace(" ", "")


def test_arithmetic_kernels_refuse_what_does_not_fit():
    import numpy as np

    from chronolog.engine.columns import exact_columns as ex
    from chronolog.engine.columns.encoding import Fallback

    one = (np.array([2**40]), np.array([3]))
    assert [x.tolist() for x in ex.arith("*", one, (np.array([2]), np.array([5])))] == [[2**41], [15]]
    for op in "+-*/":
        with pytest.raises(Fallback):
            ex.arith(op, one, (np.array([2**30]), np.array([2**30 + 1])))
    with pytest.raises(Fallback):
        ex.arith("/", one, (np.array([0]), np.array([1])))
    assert ex.compare("<", (np.array([1]), np.array([3])), (np.array([333333]), np.array([1000000]))).tolist() == [False]


def test_one_and_one_point_zero_are_one_term():
    program = "j(K) :- p(K, X), q(K, X).\nm(K, S) :- p(K, X), S = sum(X)."
    facts = {"p": [(("a", F(100, 100)), (0, 1)), (("b", F(5, 2)), (0, 1))], "q": [(("a", 1), (0, 1)), (("b", F(25, 10)), (0, 1))]}
    cols, _ = _both(program, facts)
    assert cols.to_text().count("j(") == 2


# ------------------------------------------------------------------ CSV input
def _csv_program(path, value_kind="double"):
    return f"""
@input("price"). @output("s"). @output("m"). @output("lo"). @output("j"). @output("big").
@bind("price", "csv useHeaders=true", "{path.parent}", "{path.name}").
@mapping("price", 0, "series", "string").
@mapping("price", 1, "value", "{value_kind}").
@timeMapping("price", 2, 3, #T, #F).
@bind("q", "csv useHeaders=true", "{path.parent}", "q.csv").
@mapping("q", 0, "series", "string").
@mapping("q", 1, "value", "{value_kind}").
@timeMapping("q", 2, 3, #T, #F).
s(S, X) :- <->[0,3] price(S, V), X = sum(V).
m(S, X) :- <->[0,3] price(S, V), X = avg(V).
lo(S, X) :- <->[0,3] price(S, V), X = min(V).
j(S, V) :- price(S, V), q(S, V).
big(S, V) :- price(S, V), V > 1/3.
"""


@settings(deadline=None, max_examples=examples(15), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["a", "b"]), st.integers(-10**6, 10**6), st.sampled_from([0, 1, 2, 3])), min_size=1, max_size=40),
       st.sampled_from(["double", "auto", "decimal"]))
def test_decimal_csv_cells_read_by_kernels_match_the_rows(tmp_path_factory, monkeypatch, cells, kind):
    """The kernels read the decimals into exact pairs (no Python number per
    cell); ``1``, ``1.0`` and ``1.00`` are one term; the models agree."""
    from chronolog.connectors import csv_columns

    monkeypatch.setattr(csv_columns, "KERNEL_BYTES", 0)
    tmp = tmp_path_factory.mktemp("csv")
    lines = ["series,value,start,end"]
    for i, (s, n, k) in enumerate(cells):
        text = str(n) if k == 0 else f"{'-' if n < 0 else ''}{abs(n) // 10**k}.{abs(n) % 10**k:0{k}d}"
        lines.append(f"{s},{text},{i % 7},{i % 7 + 2}")
    (tmp / "p.csv").write_text("\n".join(lines) + "\n")
    (tmp / "q.csv").write_text("series,value,start,end\na,1.00,0,9\nb,-1.5,0,9\na,0.100,0,9\n")
    program = _csv_program(tmp / "p.csv", kind)
    _both(program, None)


def test_the_kernel_reader_gives_an_exact_column(tmp_path, monkeypatch):
    from chronolog.connectors import csv_columns
    from chronolog.language.fact_columns import _ExactColumn

    monkeypatch.setattr(csv_columns, "KERNEL_BYTES", 0)
    p = tmp_path / "p.csv"
    p.write_text("series,value,start,end\na,1.00,0,1\na,-2.50,1,2\nb,0.125,0,1\n")
    fc = csv_columns.read_csv_columns(p, "p", {}, {1: ("value", "double")}, None)
    col = fc.parts["p"][0][0][1]
    assert isinstance(col, _ExactColumn)
    assert col.decoded() == [1, F(-5, 2), F(1, 8)]


def test_rolling_exact_answers_match_fractions_and_pandas(tmp_path):
    """A 5-day rolling sum and mean of prices read exactly: every day's
    answer is the Fraction sum of the window, and pandas' float within 1e-9."""
    import random

    import pandas as pd

    rng = random.Random(5)
    days = 300
    prices = {s: [F(rng.randint(-5000, 90000), 100) for _ in range(days)] for s in ("s0", "s1")}
    lines = ["series,day,value,start,end"]
    for s, vs in prices.items():
        for d, v in enumerate(vs):
            lines.append(f"{s},{d},{float(v):.2f},{d},{d + 1}")
    (tmp_path / "p.csv").write_text("\n".join(lines) + "\n")
    program = f"""
@bind("price", "csv useHeaders=true", "{tmp_path}", "p.csv").
@mapping("price", 0, "series", "string"). @mapping("price", 1, "day", "int"). @mapping("price", 2, "value", "double").
@timeMapping("price", 3, 4, #T, #F).
@output("rs"). @output("rm").
rs(S, X) :- <->[0,4] price(S, D, V), X = sum(V).
rm(S, X) :- <->[0,4] price(S, D, V), X = avg(V).
"""
    model = chronolog.reason(program, engine="columns")
    assert set(model.stats["executors"].values()) == {"columns"}
    got = {"rs": {}, "rm": {}}
    for pred in got:
        for (s, x), iv in model.facts(pred):
            lo, hi = iv[0], iv[1]
            for d in range(lo, hi):
                got[pred][(s, d)] = x
    for s, vs in prices.items():
        ser = pd.Series([float(v) for v in vs])
        for d in range(4, days):  # full windows
            window = vs[d - 4 : d + 1]
            assert got["rs"][(s, d)] == sum(window)
            assert got["rm"][(s, d)] == sum(window) / 5
            assert abs(float(got["rs"][(s, d)]) - ser.rolling(5).sum()[d]) <= 1e-9 * max(1, abs(ser.rolling(5).sum()[d]))
    frame = model.to_pandas("rm")
    pl_frame = model.to_polars("rm")
    want = {(s, d): x for (s, x), iv in model.facts("rm") for d in (iv[0],)}
    assert list(frame.columns) == list(pl_frame.columns) == ["c0", "c1", "c1_exact", "start", "end", "start_closed", "end_closed"]
    for s, x, text, start in zip(frame["c0"], frame["c1"], frame["c1_exact"], frame["start"]):
        v = float(want[(s, start)])
        assert F(text) == want[(s, start)] and abs(x - v) <= 2**-50 * max(1.0, abs(v))  # (the float: Arrow's cast of the decimal)
    assert pl_frame["c1_exact"].to_list() == frame["c1_exact"].tolist()


# ------------------------------------------------------------------ Parquet / Arrow decimals
@settings(deadline=None, max_examples=examples(15), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["a", "b"]), st.integers(-10**9, 10**9), st.integers(0, 6)), min_size=1, max_size=30),
       st.sampled_from([0, 2, 4]))
def test_decimal128_parquet_columns_match_the_rows(tmp_path_factory, cells, scale):
    """decimal128 columns of a bound Parquet file become exact pairs by
    numpy (no Python Decimal per row); the models agree with the rows'."""
    from decimal import Decimal

    import pyarrow as pa
    import pyarrow.parquet as pq

    tmp = tmp_path_factory.mktemp("pq")
    vals = [Decimal(n).scaleb(-scale) for _, n, _ in cells]
    pq.write_table(pa.table({
        "series": [s for s, _, _ in cells], "value": pa.array(vals, pa.decimal128(18, scale)),
        "start": [d for _, _, d in cells], "end": [d + 2 for _, _, d in cells],
    }), tmp / "p.parquet")
    program = f"""
@bind("price", "parquet", "{tmp}", "p.parquet").
@output("s"). @output("m"). @output("j"). @output("c").
s(S, X) :- <->[0,3] price(S, V), X = sum(V).
m(S, X) :- <->[0,1] price(S, V), X = avg(V).
j(S, V, W) :- price(S, V), price(S, W), V < W.
c(S, X) :- price(S, V), X = V * 3 - 1/3, X > 0.
"""
    _both(program, None)


def test_decimal128_columns_read_into_pairs(tmp_path):
    from decimal import Decimal

    import pyarrow as pa

    from chronolog.connectors.table_columns import read_table_columns
    from chronolog.language import ast
    from chronolog.language.fact_columns import _ExactColumn

    t = pa.table({"v": pa.array([Decimal("1.50"), Decimal("-0.25"), Decimal("2.00")], pa.decimal128(6, 2)), "start": [0, 1, 2], "end": [1, 2, 3]})
    fc = read_table_columns(t, "p", ast.NOWHERE)
    col = fc.parts["p"][0][0][0]
    assert isinstance(col, _ExactColumn) and col.decoded() == [F(3, 2), F(-1, 4), 2]
    wide = pa.table({"v": pa.array([Decimal("1.5")], pa.decimal128(30, 1)), "start": [0], "end": [1]})
    assert read_table_columns(wide, "p", ast.NOWHERE) is None  # (the row reader's Decimals)


def test_csv_decimals_near_the_limits_fall_back_exactly(tmp_path, monkeypatch):
    """17-digit decimals read by kernels beside a value with four decimals:
    over their common denominator they leave 64 bits, so the stratum runs on
    rows, from the same columns, with the rows' exact answer."""
    from chronolog.connectors import csv_columns

    monkeypatch.setattr(csv_columns, "KERNEL_BYTES", 0)
    big = "99999999999999999"
    (tmp_path / "p.csv").write_text(f"series,value,start,end\na,{big}.5,0,3\na,0.0001,1,4\na,-0.75,2,5\nb,{big},0,1\n")
    (tmp_path / "q.csv").write_text("series,value,start,end\na,1.00,0,9\n")
    cols, rows = _both(_csv_program(tmp_path / "p.csv"), None, on_columns=False)
    assert cols.stats.get("fallbacks")
    assert f"s(a,{big}.5001)@[1,2)" in rows.to_text()


@settings(deadline=None, max_examples=examples(30))
@given(facts_of(exact))
def test_exact_values_as_interval_ends_match_the_rows(p):
    """A computed exact number (a pair) as the end of a head interval (a
    point off the run's time grid sends that stratum to rows: same model)."""
    program = "m(K, X) :- <->[0,1] p(K, V), X = avg(V).\nw(K)@[X, Y] :- m(K, X), Y = X * 2 + 1/2, X < Y."
    _both(program, {"p": p}, on_columns=False)


@settings(deadline=None, max_examples=examples(20), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(facts_of(exact))
def test_csv_and_parquet_outputs_of_exact_columns_are_the_rows(tmp_path_factory, p):
    """``--output`` files written from the exact columns: the rows' bytes
    (CSV) and table (Parquet)."""
    import pyarrow.parquet as pq

    from chronolog.outputs import write_outputs

    tmp = tmp_path_factory.mktemp("out")
    program = '@output("m"). @output("t").\nm(K, X) :- <->[0,1] p(K, V), X = avg(V).\nt(K, Y) :- m(K, X), Y = X * 3 - 1/7.\n'
    prog = tmp / "p.vada"
    for e in ("rows", "columns"):
        prog.write_text(program + f'@bind("t", "parquet", "{tmp}", "t_{e}.parquet").\n')
        model = chronolog.reason(prog.read_text(), {"p": p}, engine=e)
        assert (getattr(model, "_columns", None) is not None) == (e == "columns")  # (written from the columns)
        write_outputs(model, prog, tmp / e, True, None)
    for pred in ("m", "t"):
        assert (tmp / "columns" / f"{pred}.csv").read_bytes() == (tmp / "rows" / f"{pred}.csv").read_bytes()
    assert pq.read_table(tmp / "t_columns.parquet").equals(pq.read_table(tmp / "t_rows.parquet"))


def test_decimal128_tables_given_to_the_evaluator_match_the_rows():
    """Arrow tables given to the columnar executor (``tables=``): decimal128
    columns as exact pairs; the relations equal the row executor's."""
    from decimal import Decimal

    import pyarrow as pa

    from chronolog.api import load_program
    from chronolog.engine.columns.evaluator import HybridEvaluator
    from chronolog.engine.store import Store
    from chronolog.planner import plan as make_plan

    table = pa.table({
        "k": ["a", "a", "b", "b", "a"],
        "v": pa.array([Decimal("1.50"), Decimal("-0.25"), Decimal("2.00"), Decimal("1.5"), Decimal("0.10")], pa.decimal128(6, 2)),
        "start": [0, 1, 0, 2, 3], "end": [2, 3, 5, 4, 6],
    })
    program = "s(K, X) :- <->[0,1] p(K, V), X = sum(V).\nj(K, L) :- p(K, V), p(L, V), K != L."
    ev = HybridEvaluator(make_plan(load_program(program)), Store(), engine="columns", tables={"p": table})
    ev.run()
    assert set(ev.executors.values()) == {"columns"}
    rows = chronolog.reason(program, {"p": table}, engine="rows")
    from chronolog.connectors.text_out import columns_arrow_table

    for pred in ("s", "j"):
        got = columns_arrow_table(ev, pred, ["c0", "c1"])
        assert got.equals(rows.to_arrow(pred)), pred


_INT64 = st.integers(-(2**63), 2**63 - 1)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.one_of(
    st.tuples(_INT64, st.sampled_from([1, 2, 4, 5, 8, 10, 16, 20, 25, 100, 1000, 3, 7, 12, 2**40, 5**20, 2**62, 10**18,
                                       2 * 10**18, 3 * 2**40, 2**63 - 1])),
    st.tuples(st.integers(-10**6, 10**6), st.integers(1, 10**6)),
), min_size=1, max_size=40))
def test_the_texts_of_exact_pairs_are_the_row_printers(pairs):
    """``exact_columns.texts`` (kernels: whole numbers, decimals around their
    point, ``p/q``, Python past 64 bits) prints each value as
    ``format_number`` does: signs, zeros after the point, 18 places, values
    near the 64-bit limits."""
    import numpy as np

    from chronolog.engine.columns.exact_columns import texts
    from chronolog.language.timeline import format_number

    values = [F(n, d) for n, d in pairs]
    values = [v for v in values if -(2**63) <= v.numerator < 2**63 and v.denominator < 2**63]
    if not values:
        return
    num = np.array([v.numerator for v in values], dtype=np.int64)
    den = np.array([v.denominator for v in values], dtype=np.int64)
    want = [format_number(v.numerator if v.denominator == 1 else v) for v in values]
    assert texts(num, den).to_list() == want
