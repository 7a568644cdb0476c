"""engine/columns/native.py's int64_series against ``pl.Series``: the same
Series for any array or list of codes (views, strides, the other byte
order, empty), and its fallback when polars' constructor is missing."""

from __future__ import annotations

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_series_equal

from budget import examples
from chronolog.engine.columns import native
from chronolog.engine.columns.native import int64_series

codes = st.lists(st.integers(-(1 << 63), (1 << 63) - 1), max_size=40)


@st.composite
def arrays(draw):
    """int64 arrays as the columns meet them: whole, sliced, strided, a
    column of a 2-D array, in the other byte order, or a plain list."""
    values = draw(codes)
    a = np.array(values, dtype=np.int64)
    shape = draw(st.sampled_from(["whole", "slice", "strided", "column", "swapped", "list"]))
    if shape == "slice":
        return a[len(a) // 3 :]
    if shape == "strided":
        return a[::2]
    if shape == "column":
        return np.stack([a, a[::-1]], axis=1)[:, 1]
    if shape == "swapped":
        return a.astype(a.dtype.newbyteorder())
    return values if shape == "list" else a


@settings(max_examples=examples(200), deadline=None)
@given(arrays(), st.sampled_from(["0", "s", "e"]))
def test_the_same_series_as_polars_makes(a, name):
    got = int64_series(name, a)
    assert_series_equal(got, pl.Series(name, a, dtype=pl.Int64))
    assert got.dtype == pl.Int64 and got.name == name


def test_a_series_outlives_its_array_and_reads_it_as_it_was():
    a = np.arange(5, dtype=np.int64) * 7
    s = int64_series("0", a)
    del a
    assert s.to_list() == [0, 7, 14, 21, 28]
    assert int64_series("0", np.arange(10, dtype=np.int64)[3:6]).to_list() == [3, 4, 5]


def test_without_polars_constructor_the_public_one_serves(monkeypatch):
    monkeypatch.setattr(native, "_BINDINGS", [None])
    s = int64_series("s", np.array([1, 2], dtype=np.int64))
    assert s.to_list() == [1, 2] and s.dtype == pl.Int64
    monkeypatch.setattr(native, "_BINDINGS", [])
    assert int64_series("e", np.array([4], dtype=np.int64)).to_list() == [4]
    assert native._BINDINGS[0] is not None  # (found again on first use)
