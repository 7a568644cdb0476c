"""The fact reader's string columns (language/string_columns.py): ranges of
a byte buffer as polars strings, and their dictionary encoding, checked
against plain Python on the same bytes."""

import numpy as np
import polars as pl
import pytest

from chronolog.language import string_columns as sc


def _first_appearance(values):
    distinct = list(dict.fromkeys(values))
    at = {v: i for i, v in enumerate(distinct)}
    return [at[v] for v in values], distinct


def test_ranges_are_the_bytes_between_their_ends():
    text = "été,p(a,b)@[1,2],,x".encode()
    data = np.frombuffer(text, np.uint8)
    starts = np.array([0, 7, 18, 19], dtype=np.int32)
    ends = np.array([6, 10, 18, 20], dtype=np.int32)
    want = [text[a:b].decode() for a, b in zip(starts, ends)]
    assert sc.ranges(data, starts, ends).to_list() == want
    assert sc.ranges(data, starts, ends, pick=[3, 0, 0]).to_list() == [want[3], want[0], want[0]]
    assert sc.ranges(data, starts[:0], ends[:0]).to_list() == []


def test_bytes_that_are_not_utf8_are_refused_by_the_cast():
    data = np.frombuffer(b"ab\xffc", np.uint8)
    with pytest.raises(pl.exceptions.PolarsError):
        sc.strings(data, np.array([0, 4], dtype=np.int32), "binary").cast(pl.String)


@pytest.mark.parametrize("n", [0, 1, 7, 5000, 200_000])
def test_encode_gives_the_distinct_values_in_order_of_first_appearance(n):
    rng = np.random.default_rng(n)
    values = [f"v{k}" * (1 + k % 5) for k in rng.integers(0, max(1, n // 3), n).tolist()]
    got = sc.encode(pl.Series(values, dtype=pl.String))
    indices, distinct = _first_appearance(values)
    assert got.indices.dtype == np.int32
    assert got.indices.tolist() == indices and got.dictionary.to_list() == distinct


def test_equal_hashes_of_different_strings_fall_back_to_the_exact_way(monkeypatch):
    values = ["a", "b", "a", "c"] * 50_000
    monkeypatch.setattr(pl.Series, "hash", lambda self, seed=0: pl.Series(np.zeros(len(self), dtype=np.uint64)))
    assert sc._by_hashes(pl.Series(values)) is None
    got = sc.encode(pl.Series(values))
    indices, distinct = _first_appearance(values)
    assert got.indices.tolist() == indices and got.dictionary.to_list() == distinct


def test_compact_keeps_the_strings():
    data = np.frombuffer(b"a-long-name-of-twenty,another-long-name", np.uint8)
    s = sc.ranges(data, np.array([0, 22], dtype=np.int32), np.array([21, 39], dtype=np.int32))
    assert sc.compact(s).to_list() == s.to_list() == ["a-long-name-of-twenty", "another-long-name"]
