"""A Python float that becomes a time point is the exact rational of its
shortest round-trip decimal text (``0.1`` is 1/10, ``1e20`` the integer),
on the row and the columnar executor and through Spark: given facts
(Python values, pandas, Arrow, Parquet, CSV), head interval terms computed
with floats, horizons and stream watermarks.  NaN is an error that says
where it came from; the infinities stay the infinities.

The expected values come from ``Fraction(repr(x))`` (Python's own shortest
text), never from the conversion under test."""

from __future__ import annotations

import math
import struct
from fractions import Fraction

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.language.float_times import float_time, float_time_values
from oracle.pointwise import evaluate_text

pytest.importorskip("polars")

INF = math.inf


def shown(x):
    """The number the float ``x`` shows (Python's repr), exactly."""
    if x in (INF, -INF):
        return x
    f = Fraction(repr(x))
    return f.numerator if f.denominator == 1 else f


def typed(ends):
    return [(type(x).__name__, x) for x in ends]


# ---------------------------------------------------------------- the conversion

EDGES = [
    0.1, 1.2, 0.5, -2.5, -0.0, 0.0, 1e20, 1e23, 1e300, -1e300, 1.7976931348623157e308, 5e-324, 1e-30,
    2.0**52 - 0.5, 2.0**53, 2.0**53 + 2, 1e15 + 0.5, 123456789012345.6, 0.1 + 0.2, 1 / 3, 2.5e-16, 1e-5, INF, -INF,
]


def test_edges_are_the_numbers_their_text_shows():
    for x in EDGES:
        assert typed([float_time(x)]) == typed([shown(x)]), x
    assert typed(float_time_values(np.array(EDGES))) == typed([shown(x) for x in EDGES])
    assert float_time(0.1) == Fraction(1, 10) and float_time(1.2) == Fraction(6, 5)
    assert float_time(1e20) == 10**20 and float_time(1e23) == 10**23 != int(1e23)
    assert type(float_time(-0.0)) is int and float_time(-0.0) == 0


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.one_of(
    st.floats(allow_nan=False),
    st.integers(-10**9, 10**9).map(lambda k: k / 10),
    st.integers(-10**7, 10**7).map(lambda k: k / 1000),
    st.integers(0, 2**64 - 1).map(lambda b: struct.unpack("<d", struct.pack("<Q", b))[0]).filter(lambda x: x == x),
), min_size=1, max_size=60))
def test_columns_of_floats_convert_as_one_float_at_a_time(xs):
    got = float_time_values(np.array(xs, dtype=np.float64))
    assert typed(got) == typed([shown(x) for x in xs])


def test_the_conversion_keeps_the_order_of_the_floats():
    rng = np.random.default_rng(5)
    xs = np.sort(np.concatenate([rng.normal(0, 1e3, 2000).round(rng.integers(0, 6)), rng.random(2000), np.nextafter(0.1, [0, 1])]))
    got = float_time_values(xs)
    assert all(a <= b for a, b in zip(got, got[1:]))
    assert all((a == b) == (x == y) for a, b, x, y in zip(got, got[1:], xs, xs[1:]))


# ---------------------------------------------------------------- given facts, every reader

PROGRAM = "q(X) :- <->[0,1/2] p(X).\nr(X) :- [-][0,1/5] p(X).\ns(X) :- p(X), not t(X)."
FLOAT_ROWS = [("a", 0.1, 0.5, True, False), ("a", 0.5, 1.2, True, True), ("b", -0.3, 0.7, False, True), ("b", 2.0, 2.25, True, True), ("c", 1e20, INF, True, False)]
T_ROWS = [("a", 0.3, 0.4, True, True), ("c", -INF, 1e20, False, True)]


def _exact_text():
    f = lambda x: "+inf" if x == INF else "-inf" if x == -INF else str(shown(x))  # noqa: E731
    return "\n".join(
        f"{pred}({k})@{'[' if lc else '('}{f(lo)},{f(hi)}{']' if hc else ')'}."
        for pred, rows in (("p", FLOAT_ROWS), ("t", T_ROWS)) for k, lo, hi, lc, hc in rows
    )


def _table(rows, nulls=False):
    end = lambda x: None if nulls and x in (INF, -INF) else x  # noqa: E731
    return pa.table({
        "x": [r[0] for r in rows], "start": pa.array([end(r[1]) for r in rows], pa.float64()),
        "end": pa.array([end(r[2]) for r in rows], pa.float64()),
        "start_closed": [r[3] for r in rows], "end_closed": [r[4] for r in rows],
    })


def _inputs(tmp_path):
    """The same float facts in every form ``reason`` takes: (program, facts)."""
    as_dict = {p: [((k,), (lo, hi, lc, hc)) for k, lo, hi, lc, hc in rows] for p, rows in (("p", FLOAT_ROWS), ("t", T_ROWS))}
    yield "dict", PROGRAM, as_dict
    yield "arrow", PROGRAM, {"p": _table(FLOAT_ROWS), "t": _table(T_ROWS)}
    yield "arrow with null ends", PROGRAM, {"p": _table(FLOAT_ROWS, nulls=True), "t": _table(T_ROWS, nulls=True)}
    yield "pandas", PROGRAM, {"p": _table(FLOAT_ROWS).to_pandas(), "t": _table(T_ROWS).to_pandas()}
    yield "polars", PROGRAM, {"p": pytest.importorskip("polars").from_arrow(_table(FLOAT_ROWS)), "t": _table(T_ROWS)}
    binds = ""
    for pred, rows in (("p", FLOAT_ROWS), ("t", T_ROWS)):
        pq.write_table(_table(rows), tmp_path / f"{pred}.parquet")
        binds += f'@bind("{pred}", "parquet", "{tmp_path}", "{pred}.parquet").\n'
    yield "parquet", binds + PROGRAM, None
    binds = ""
    for pred, rows in (("p", FLOAT_ROWS), ("t", T_ROWS)):  # the floats as Python writes them
        text = "\n".join(f"{k},{lo!r},{hi!r},{lc},{hc}" for k, lo, hi, lc, hc in rows).replace("inf", "+inf").replace("-+inf", "-inf")
        (tmp_path / f"{pred}.csv").write_text("x,start,end,start_closed,end_closed\n" + text + "\n")
        binds += f'@bind("{pred}", "csv useHeaders=true", "{tmp_path}", "{pred}.csv").\n'
    yield "csv", binds + PROGRAM, None


def test_given_float_times_are_exact_on_every_reader_and_executor(tmp_path):
    want = chronolog.reason(PROGRAM + "\n" + _exact_text(), engine="rows")
    assert want.facts("q")[0][1][0] == Fraction(1, 10)
    for name, program, facts in _inputs(tmp_path):
        for engine in ("rows", "columns"):
            m = chronolog.reason(program, facts, engine=engine)
            assert m.to_text() == want.to_text(), (name, engine)
            for pred in ("p", "q", "r", "s"):
                got = m.facts(pred)
                assert got == want.facts(pred), (name, engine, pred)
                # exact: ints and Fractions (a timeline.Point is one), never a float but the unbounded ends
                assert all(type(x) is int or isinstance(x, Fraction) or x in (INF, -INF) for _, iv in got for x in iv[:2]), (name, engine, pred)
                assert m.to_arrow(pred).equals(want.to_arrow(pred)), (name, engine, pred)
    assert str(want.to_arrow("p").schema.field("end").type).startswith("decimal128")


def test_float32_times_are_the_numbers_they_show_as_float32():
    t = pa.table({"x": ["a", "b"], "start": pa.array([0.1, None], pa.float32()), "end": pa.array([1.2, float("nan")], pa.float32())})
    with pytest.raises(chronolog.DataError, match=r"column end is NaN in the row x='b', start=None, end=nan, which"):
        chronolog.reason("q(X) :- p(X).", {"p": t})
    t = t.set_column(2, "end", pa.array([1.2, 2.5], pa.float32()))
    for engine in ("rows", "columns"):
        assert chronolog.reason("q(X) :- p(X).", {"p": t}, engine=engine).facts("q") == [
            (("a",), (Fraction(1, 10), Fraction(6, 5), True, True)), (("b",), (-INF, Fraction(5, 2), False, True)),
        ]


def test_parquet_float_times_are_read_by_the_column_kernels(tmp_path, monkeypatch):
    from chronolog.connectors import table_columns

    seen = []
    real = table_columns.read_table_columns
    monkeypatch.setattr(table_columns, "read_table_columns", lambda *a, **k: seen.append(real(*a, **k)) or seen[-1])
    n = 3000
    t = pa.table({"k": [f"s{i % 7}" for i in range(n)], "start": [i / 10 for i in range(n)], "end": [(i + 1) / 10 for i in range(n)]})
    pq.write_table(t, tmp_path / "p.parquet")
    program = f'@bind("p", "parquet", "{tmp_path}", "p.parquet").\nq(K) :- <->[0,1/20] p(K).'
    cols = chronolog.reason(program, engine="columns")
    assert seen and seen[0] is not None and set(cols.stats["executors"].values()) == {"columns"}
    rows = chronolog.reason(program, engine="rows")
    assert cols.to_text() == rows.to_text()
    assert cols.facts("q")[0] == (("s0",), (0, Fraction(3, 20), True, True))  # p(s0)@[0, 0.1], then [0.7, 0.8], ...
    assert rows.facts("p")[1] == (("s0",), (Fraction(7, 10), Fraction(4, 5), True, True))


def test_large_floats_are_exact_integers_and_fall_back_beyond_64_bits():
    for x, engine_ran in ((1e15 + 0.5, "columns"), (1e20, "rows"), (1e300, "rows")):
        facts = {"p": [(("a",), (0, x)), (("b",), (x, x))]}
        cols = chronolog.reason("q(X) :- <->[0,1] p(X).", facts, engine="columns")
        rows = chronolog.reason("q(X) :- <->[0,1] p(X).", facts, engine="rows")
        assert cols.facts("q") == rows.facts("q") == [(("a",), (0, shown(x) + 1, True, True)), (("b",), (shown(x), shown(x) + 1, True, True))]
        assert set(cols.stats["executors"].values()) == {engine_ran}, x
    assert chronolog.reason("q(X) :- p(X).", {"p": [(("a",), 1e23)]}).facts("q")[0][1][0] == 10**23


def test_negative_zero_and_infinities():
    for engine in ("rows", "columns"):
        m = chronolog.reason("q(X) :- p(X).", {"p": [(("a",), (-0.0, INF)), (("b",), (-INF, -0.0, True, False))]}, engine=engine)
        assert typed(m.facts("q")[0][1][:2]) == typed([0, INF]) and m.facts("q")[0][1][2:] == (True, False)
        assert m.facts("q")[1][1] == (-INF, 0, False, False)
        assert m.to_text() == "q(a)@[0,+inf)\nq(b)@(-inf,0)"


# ---------------------------------------------------------------- computed interval ends

def test_computed_float_ends_are_exact_on_both_executors():
    facts = {"m": [(("a", 0.1), (0, 1)), (("b", 0.2), (1, 2)), (("c", 0.5), (Fraction(1, 10), 2)), (("d", 1e20), (0, 1))]}
    program = "q(K)@[S, F) :- m(K, V)@[S, E], F = S + V.\nr(K)@[G, E] :- m(K, V)@[S, E], G = V * 3."
    want = {
        "q": [(("a",), (0, Fraction(1, 10), True, False)), (("b",), (1, Fraction(6, 5), True, False)),  # 1 + 0.2 = 1.2 (float) -> 6/5
              (("c",), (Fraction(1, 10), Fraction(3, 5), True, False)), (("d",), (0, 10**20, True, False))],
        "r": [(("a",), (shown(0.1 * 3), 1, True, True)), (("b",), (shown(0.2 * 3), 2, True, True)),  # 0.30000000000000004, 0.6000000000000001
              (("c",), (Fraction(3, 2), 2, True, True))],  # d: 3e20 after its end, no fact
    }
    assert want["r"][0][1][0] == Fraction(30000000000000004, 10**17)
    for engine in ("rows", "columns"):
        m = chronolog.reason(program, facts, engine=engine)
        assert {p: m.facts(p) for p in want} == want, engine
    m = chronolog.reason(program, facts, engine="columns")
    assert "r(a)@[0.30000000000000004,1]" in m.to_text() and m.to_arrow("q").schema.field("end").type == pa.decimal128(22, 1)


def test_a_float_ending_a_head_interval_reads_like_the_decimal_it_shows():
    # the float 0.1 + 0.2 is 0.30000000000000004, and that exact decimal is the end
    m = chronolog.reason("q(K)@[S, F] :- m(K, A, B)@[S, E], F = A + B.\nz(K) :- q(K), <->[0,0] y(K).", {
        "m": [(("a", 0.1, 0.2), 0)], "y": [(("a",), (Fraction(3, 10), Fraction(3, 10)))],
    })
    assert m.facts("q") == [(("a",), (0, Fraction(30000000000000004, 10**17), True, True))]
    assert m.facts("z") == [(("a",), (Fraction(3, 10), Fraction(3, 10), True, True))]  # 3/10 lies inside [0, 0.30000000000000004]


# ---------------------------------------------------------------- NaN: an error that says where

def test_nan_as_a_time_point_is_an_error_with_its_place(tmp_path):
    nan = float("nan")
    for engine in ("rows", "columns"):
        with pytest.raises(chronolog.ChronologError, match=r"facts\['p'\]\[1\], interval: NaN is not a time point") as e:
            chronolog.reason("q(X) :- p(X).", {"p": [(("a",), 1), (("b",), (0, nan))]}, engine=engine)
        assert "missing value" in e.value.hint
        with pytest.raises(chronolog.DataError, match="p: the column start is NaN in row 1"):
            chronolog.reason("q(X) :- p(X).", {"p": _table(FLOAT_ROWS).to_pandas().assign(start=[0.0, nan, 0.0, 2.0, 0.0])}, engine=engine)
    pq.write_table(_table(FLOAT_ROWS).set_column(2, "end", pa.array([1.0, 2.0, 3.0, nan, 5.0])), tmp_path / "p.parquet")
    program = f'@bind("p", "parquet", "{tmp_path}", "p.parquet").\nq(X) :- p(X).'
    for engine in ("rows", "columns"):
        with pytest.raises(chronolog.DataError, match=r"p\.parquet: .*column end is NaN in the row x='b', start=2\.0, end=nan, start_closed=True"):
            chronolog.reason(program, engine=engine)
    (tmp_path / "p.csv").write_text("x,start,end\na,0.5,1\nb,nan,2\n")
    program = f'@bind("p", "csv useHeaders=true", "{tmp_path}", "p.csv").\nq(X) :- p(X).'
    with pytest.raises(chronolog.DataError, match=r"p\.csv:3:2: .*'nan' is not a number"):
        chronolog.reason(program)


def test_a_nan_never_reaches_an_interval_end(tmp_path):
    """No NaN is a value: a float column's `nan` cell is refused at its cell
    (a NaN equals nothing, so no join or merge could hold on it), and a NaN
    computed from an infinity at the operation that makes it."""
    (tmp_path / "m.csv").write_text("k,v,start,end\na,0.5,0,1\nb,nan,1,2\n")
    program = (
        f'@bind("m", "csv useHeaders=true", "{tmp_path}", "m.csv").\n@mapping("m", 1, "v", "float").\n'
        "q(K)@[S, V] :- m(K, V)@[S, E]."
    )
    for engine in ("rows", "columns"):
        with pytest.raises(chronolog.DataError, match=r"m\.csv:3:2: .*'nan' is not a number that equals itself"):
            chronolog.reason(program, engine=engine)
    (tmp_path / "m.csv").write_text("k,v,start,end\na,0.5,0,1\nb,inf,1,2\n")
    program = program.replace("q(K)@[S, V] :- m(K, V)@[S, E].", "q(K)@[S, W] :- m(K, V)@[S, E], W = V * 0.0.")
    for engine in ("rows", "columns"):
        with pytest.raises(chronolog.DataError, match=r"<program>:3:32: .*\(V \* 0\) is not a number \(NaN\) for \+inf, 0"):
            chronolog.reason(program, engine=engine)


# ---------------------------------------------------------------- the rest of the API

def test_horizons_windows_queries_and_streams_take_floats_as_their_numbers():
    m = chronolog.reason("q(X) :- <->[0,1] p(X).", {"p": [(("a",), (0.1, 0.2))]}, horizon=(0.0, 0.7))
    assert m.facts("q") == [(("a",), (Fraction(1, 10), Fraction(7, 10), True, True))]
    assert m.holds("q", ("a",), (0.1, 0.7)) and m.holds("q", ("a",), 0.7) and not m.holds("q", ("a",), 0.71)
    assert m.facts_within("q", (0.3, 2.5)) == [(("a",), (Fraction(3, 10), Fraction(7, 10), True, True))]
    s = chronolog.Stream("q(X) :- <->[0,1/10] p(X).")
    s.push({"p": [(("a",), (0.1, 0.2))]})
    s.advance(0.3)
    assert [(f.pred, f.terms, f.interval) for f in s.take()] == [("q", ("a",), (Fraction(1, 10), Fraction(3, 10), True, True))]


def test_float_times_on_a_date_timeline_are_refused_like_numbers():
    with pytest.raises(chronolog.ChronologError, match="numbers as time points"):
        chronolog.reason('@timeGranularity("days").\nq(X) :- p(X).', {"p": [(("a",), (0.5, 1.5))]})


def test_float_times_agree_with_the_pointwise_oracle():
    rng = np.random.default_rng(11)
    program = "q(X) :- <->[0,1/2] p(X).\nr(X) :- [-][0,3/10] p(X).\ns(X) :- p(X) <S>[0,1] t(X).\nu(X) :- <+>(0,1/5] t(X), not p(X)."
    for _ in range(15):
        facts = {}
        for pred in ("p", "t"):
            rows = []
            for _ in range(int(rng.integers(1, 4))):
                lo = round(float(rng.random() * 3), int(rng.integers(0, 2)))
                hi = round(lo + float(rng.random() * 2), int(rng.integers(0, 2)))  # (a float sum, rounded: tenths, a small grid)
                lo, hi = min(lo, hi), max(lo, hi)
                rows.append(((str(rng.choice(["a", "b"])),), (lo, hi, bool(rng.integers(0, 2)) or lo == hi, bool(rng.integers(0, 2)) or lo == hi)))
            facts[pred] = rows
        text = "\n".join(
            f"{p}({t[0]})@{'[' if lc else '('}{shown(lo)},{shown(hi)}{']' if hc else ')'}."
            for p, rows in facts.items() for t, (lo, hi, lc, hc) in rows
        )
        oracle = evaluate_text(program, text)
        for engine in ("rows", "columns"):
            m = chronolog.reason(program, facts, engine=engine)
            for pred in ("q", "r", "s", "u"):
                assert m.facts(pred) == sorted(oracle.facts(pred)), (engine, pred, text)


# ---------------------------------------------------------------- Spark

@pytest.mark.spark
def test_spark_float_times_give_the_embedded_model(spark):
    from chronolog import spark as cs

    program = "q(X) :- <->[0,1/2] p(X).\nr(X)@[S, F] :- p(X)@[S, E], m(X, V), F = E + V."
    p = _table(FLOAT_ROWS[:4])
    m = pa.table({"x": ["a", "b"], "v": [0.1, 0.25], "start": [-1.5, 0.0], "end": [5.0, 5.0]})
    embedded = chronolog.reason(program, {"p": p, "m": m})
    for distributed in (False, True):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = cs.reason(spark, program, {"p": spark.createDataFrame(p), "m": spark.createDataFrame(m)}, distributed=distributed)
        for pred in ("q", "r"):
            got = chronolog.reason("", {pred: out[pred].toArrow()}).facts(pred)
            assert got == embedded.facts(pred), (distributed, pred)
    assert embedded.facts("r")[0][1] == (Fraction(1, 10), Fraction(13, 10), True, True)

