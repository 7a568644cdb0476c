"""@bind Parquet and Arrow IPC inputs read into columns
(connectors/table_columns.py): the same facts and answers as the row
reader, float columns as value columns, and the row reader's errors for
what the kernels leave to it."""

from __future__ import annotations

import datetime
import math

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import chronolog
from chronolog.connectors.files import write_table
from executors_agree import on_both_executors

pytest.importorskip("polars")

RULES = """
m(K, X) :- <->[0,3] p(K, D, V), X = avg(V), N = count(), N == 4.
q(K, D) :- p(K, D, V), V > 50.
"""


def _bind(path, calendar=False):
    cal = '@timeGranularity("days").\n' if calendar else ""
    return cal + f'@bind("p", "{path.suffix[1:]}", "{path.parent}", "{path.name}").\n' + RULES


def _table(n=3000, dates=False):
    days = list(range(n))
    start = [d for d in days]
    end = [d + 1 for d in days]
    if dates:
        epoch = datetime.date(2000, 1, 1)
        start = pa.array([epoch + datetime.timedelta(days=d) for d in start], pa.date32())
        end = pa.array([epoch + datetime.timedelta(days=d) for d in end], pa.date32())
    return pa.table({
        "k": [f"s{d // 1000}" for d in days], "d": pa.array(days, pa.int32()), "v": [(d * 37 % 101) + 0.25 for d in days],
        "start": start, "end": end, "start_closed": [True] * n, "end_closed": [False] * n,
    })


@pytest.mark.parametrize("suffix", [".parquet", ".arrow"])
@pytest.mark.parametrize("dates", [False, True])
def test_bound_tables_on_columns_match_the_rows(tmp_path, suffix, dates):
    path = tmp_path / f"p{suffix}"
    write_table(_table(dates=dates), path)
    program = _bind(path, calendar=dates)
    cols, rows = on_both_executors(program, "m")
    assert cols.to_arrow("m").schema.field("c1").type == pa.float64()
    assert len(cols.facts("q")) == len(rows.facts("q")) > 0


def test_the_kernels_read_the_table(tmp_path, monkeypatch):
    from chronolog.connectors import table_columns

    seen = []
    real = table_columns.read_table_columns
    monkeypatch.setattr(table_columns, "read_table_columns", lambda *a, **k: seen.append(real(*a, **k)) or seen[-1])
    path = tmp_path / "p.parquet"
    write_table(_table(), path)
    chronolog.reason(_bind(path), engine="columns")
    assert seen and seen[0] is not None


def _bad(tmp_path, **change):
    t = _table(50)
    for name, (row, value, typ) in change.items():
        vals = t.column(name).to_pylist()
        vals[row] = value
        t = t.set_column(t.schema.get_field_index(name), name, pa.array(vals, typ))
    path = tmp_path / "p.parquet"
    pq.write_table(t, path)
    return _bind(path)


def test_bad_values_are_reported_by_the_row_reader(tmp_path):
    with pytest.raises(chronolog.DataError, match=r"the column v is NaN in the row k='s0', d=7, v=nan, start=7, end=8"):
        chronolog.reason(_bad(tmp_path, v=(7, math.nan, pa.float64())), engine="columns")
    with pytest.raises(chronolog.DataError, match="empty interval"):
        chronolog.reason(_bad(tmp_path, start=(3, 9, pa.int64())), engine="columns")
    with pytest.raises(chronolog.DataError, match="column k is empty"):
        chronolog.reason(_bad(tmp_path, k=(5, None, pa.string())), engine="columns")
    # an unbounded end (null) is read by the row reader: the same answers
    program = _bad(tmp_path, end=(49, None, pa.int64()))
    assert chronolog.reason(program, engine="columns").to_text() == chronolog.reason(program, engine="rows").to_text()


def test_unsigned_times_beyond_int64_go_to_the_row_reader(tmp_path):
    t = _table(100)
    big = pa.array([2**63 + d for d in range(100)], pa.uint64())
    t = t.set_column(t.schema.get_field_index("end"), "end", big)
    path = tmp_path / "p.parquet"
    pq.write_table(t, path)
    program = _bind(path)
    assert chronolog.reason(program, engine="columns").to_text() == chronolog.reason(program, engine="rows").to_text()
