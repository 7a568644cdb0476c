"""Float answers out of the API as float64 columns (to_arrow, to_pandas,
to_polars), the same table on both executors; exact answers keep their
exact types; float terms given as Arrow and pandas columns; ``"float"`` CSV
columns read straight into value columns."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog

from test_columns_kernels import facts_of, intervals, keys  # noqa: F401
from executors_agree import on_both_executors

pytest.importorskip("polars")

ROLLING = """
s(K, X) :- <->[0,2] p(K, D, V), X = sum(V).
a(K, X) :- <->[0,2] p(K, D, V), X = avg(V).
lo(K, X) :- <->[0,2] p(K, D, V), X = min(V).
hi(K, X) :- <->[0,2] p(K, D, V), X = max(V).
t(K, Y) :- p(K, D, V), Y = V * 3 + D.
"""

floats = st.sampled_from([0.5, 1.0, 1.5, 0.0, 2.25, 0.1, 0.2, 0.3, 1e16, 3.0, 1e-7, 123456789012345.6, -7.125])


def _tables(model, preds):
    return {p: model.to_arrow(p) for p in preds}


@settings(deadline=None, max_examples=examples(25))
@given(st.lists(st.tuples(keys, st.integers(1000, 1009), floats, intervals()), max_size=12))
def test_float_answers_are_float64_and_the_same_on_both_executors(rows):
    # (days 1000.. never equal a float, and no -0.0: equal numbers of two
    # types, and 0.0 and -0.0, are one term on columns and may print as the
    # other, the documented difference tested in test_columns_values.py)
    facts = {"p": [((k, d, v), iv) for k, d, v, iv in rows]}
    by_rows = chronolog.reason(ROLLING, facts, engine="rows")
    by_cols = chronolog.reason(ROLLING, facts, engine="columns")
    assert set(by_cols.stats["executors"].values()) == {"columns"}, by_cols.stats.get("fallbacks")
    assert by_cols.to_text() == by_rows.to_text()
    for pred in ("s", "a", "lo", "hi", "t"):
        r, c = by_rows.to_arrow(pred), by_cols.to_arrow(pred)
        assert c.schema == r.schema, pred
        if r.num_rows:
            assert r.schema.field("c1").type == pa.float64()
        # floats compared bit for bit (-0.0 and 0.0 are one term: compared as values)
        assert c.to_pylist() == r.to_pylist(), pred


def test_float_answer_columns_in_arrow_pandas_polars():
    facts = {"p": [(("x", d, v), (d, d + 1, True, False)) for d, v in enumerate([10.5, 11.25, 9.0, 12.0])]}
    m = chronolog.reason(ROLLING, facts, engine="columns")
    t = m.to_arrow("a")
    assert t.schema.field("c1").type == pa.float64()
    assert t.column("c1").to_pylist() == [10.25, 10.5, 10.5, 10.75, 10.875, 12.0]  # term order, then start
    assert t.column("start").to_pylist() == [2, 0, 4, 3, 1, 5]
    df = m.to_pandas("a")
    assert str(df["c1"].dtype) == "float64" and "c1_exact" not in df.columns
    assert str(df["start"].dtype) == "Int64"
    assert m.to_polars("hi")["c1"].dtype.is_float()
    # a frame of float answers given back as facts: the same floats
    back = chronolog.reason("r(K, X) :- a(K, X).", {"a": df})
    assert back.facts("r") == m.facts("a")
    back = chronolog.reason("r(K, X) :- a(K, X).", {"a": t}, engine="columns")
    assert back.facts("r") == m.facts("a")


def test_exact_answers_keep_exact_types():
    facts = {"p": [(("x", d, v), (d, d + 1, True, False)) for d, v in enumerate([1, 2, 2, 5])]}
    for engine in ("rows", "columns"):
        m = chronolog.reason(ROLLING, facts, engine=engine)
        assert m.to_arrow("s").schema.field("c1").type == pa.int64()
        a = m.to_arrow("a")  # 5/3 has no decimal: canonical text, never a float
        assert a.schema.field("c1").type == pa.string()
        assert "5/3" in a.column("c1").to_pylist()
        df = m.to_pandas("a")
        assert "c1_exact" in df.columns and "5/3" in df["c1_exact"].tolist()
    m = chronolog.reason("q(X) :- p(X).\np(2.5)@0.\np(7)@1.")
    assert m.to_arrow("q").column("c0").to_pylist() == [Decimal("2.5"), Decimal("7.0")]


def test_float_term_columns_in_and_nan_refused():
    t = pa.table({"k": ["a", "b"], "v": [0.1, 2.5], "start": [0, 1], "end": [5, 6]})
    for engine in ("rows", "columns"):
        m = chronolog.reason("q(K, V) :- p(K, V).", {"p": t}, engine=engine)
        assert m.facts("q")[0][0] == ("a", 0.1) and type(m.facts("q")[0][0][1]) is float
    bad = pa.table({"k": ["a", "b"], "v": [0.1, math.nan], "start": [0, 1], "end": [5, 6]})
    for engine in ("rows", "columns"):
        with pytest.raises(chronolog.DataError) as e:
            chronolog.reason("q(K, V) :- p(K, V).", {"p": bad}, engine=engine).facts("q")
        assert "p: the column v is NaN in the row k='b', v=nan, start=1, end=6" in str(e.value)
    times = pa.table({"k": ["a"], "start": pa.array([0.5]), "end": pa.array([1.0])})  # float times: exact (test_float_times.py)
    assert chronolog.reason("q(K) :- p(K).", {"p": times}).facts("q") == [(("a",), (Fraction(1, 2), 1, True, True))]


def test_float_csv_columns_are_value_columns(tmp_path):
    lines = ["k,v,start,end"] + [f"s{i % 3},{(i * 7919) % 1000 / 8:.3f},{i},{i + 1}" for i in range(6000)]
    (tmp_path / "p.csv").write_text("\n".join(lines) + "\n")
    program = f"""
@bind("p", "csv useHeaders=true", "{tmp_path}", "p.csv").
@mapping("p", 0, "k", "string"). @mapping("p", 1, "v", "float").
@timeMapping("p", 2, 3, #T, #F).
m(K, X) :- <->[0,4] p(K, V), X = avg(V).
"""
    cols, rows = on_both_executors(program, "m")
    assert cols.to_arrow("m").schema.field("c1").type == pa.float64()


def test_float_csv_cells_kernels_cannot_take_are_read_or_reported(tmp_path):
    lines = ["k,v,start,end"] + [f"a,{i}.5,{i},{i + 1}" for i in range(6000)]
    lines[3000] = "a, +1e3 ,2999,3000"  # float() reads it: the row reader's conversion
    (tmp_path / "p.csv").write_text("\n".join(lines) + "\n")
    program = f"""
@bind("p", "csv useHeaders=true", "{tmp_path}", "p.csv").
@mapping("p", 1, "v", "float"). @timeMapping("p", 2, 3, #T, #F).
q(K, V) :- p(K, V), V > 999.
"""
    m = chronolog.reason(program, engine="columns")
    assert ("a", 1000.0) in [t for t, _ in m.facts("q")]
    lines[3000] = "a,12x,2999,3000"
    (tmp_path / "p.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(chronolog.DataError) as e:
        chronolog.reason(program, engine="columns")
    assert "p.csv:3001" in str(e.value) and "'12x' is not a number" in str(e.value)


def test_text_and_csv_of_float_answers_are_the_rows_bytes(tmp_path):
    from chronolog.connectors.files import write_facts
    from chronolog.connectors.staging import Staging
    from chronolog.outputs import write_from_columns

    edge = [1e16, 1e-7, 123456789012345.6, 2000.0, 0.1, 2 / 3, 1e-05, 5e-324, 1.5e300, -0.5, 99999999999999.98]
    facts = {"p": [(("x", 1000 + d, v), (d, d + 1, True, False)) for d, v in enumerate(edge)]}
    cols = chronolog.reason(ROLLING, facts, engine="columns")
    rows = chronolog.reason(ROLLING, facts, engine="rows")
    assert cols.to_text() == rows.to_text()
    assert "1e-07" in cols.to_text() and "2000.0" in rows.to_text()
    for pred in ("s", "a", "lo", "hi", "t"):
        with Staging() as staging:
            assert write_from_columns(cols, tmp_path / f"{pred}_c.csv", pred, "csv", False, staging)
            staging.publish()
        write_facts(tmp_path / f"{pred}_r.csv", rows.facts(pred), rows.column_names(pred), pred, "csv")
        assert (tmp_path / f"{pred}_c.csv").read_bytes() == (tmp_path / f"{pred}_r.csv").read_bytes(), pred
