"""The fact reader's string columns (language/string_columns.py): ranges of
a byte buffer as polars strings, and their dictionary encoding, checked
against plain Python on the same bytes."""

import numpy as np
import polars as pl
import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

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


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.text(max_size=4), max_size=400), st.integers(1, 400))
def test_encode_agrees_with_arrows_dictionary_encode(pool, n):
    """Few distinct values (an Enum) or mostly distinct (a join): Arrow's
    dictionary_encode gives the same indices and distinct values."""
    import pyarrow as pa

    values = [pool[k % len(pool)] for k in range(n)] if pool else []
    got = sc.encode(pl.Series(values, dtype=pl.String))
    want = pa.array(values, type=pa.string()).dictionary_encode()
    assert got.indices.tolist() == want.indices.to_pylist()
    assert got.dictionary.to_list() == want.dictionary.to_pylist()


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


def _views_by_python(text: bytes, starts, ends) -> bytes:
    """Arrow's string views of the ranges, as the format describes them."""
    out = b""
    for a, b in zip(starts, ends):
        s = text[a:b]
        if len(s) <= 12:
            out += len(s).to_bytes(4, "little") + s.ljust(12, b"\0")
        else:
            out += len(s).to_bytes(4, "little") + s[:4] + (0).to_bytes(4, "little") + int(a).to_bytes(4, "little")
    return out


_EDGES = ["", "a", "é", 'q"uo"te', "x" * 12, "y" * 13, "été-été-ét", "été-été-été", "😀" * 3, "😀" * 4, "'single'", "z" * 40]


@pytest.mark.parametrize("checked", [True, False])
def test_views_round_trip_empty_non_ascii_quoted_and_12_or_13_byte_strings(checked):
    for sep in (",", "@"):  # (the ranges at the very start and end of the data, and short data)
        text = sep.join(_EDGES).encode()
        bounds, at = [], 0
        for w in _EDGES:
            bounds.append((at, at + len(w.encode())))
            at += len(w.encode()) + 1
        starts = np.array([a for a, _ in bounds], dtype=np.int32)
        ends = np.array([b for _, b in bounds], dtype=np.int32)
        data = np.frombuffer(text, np.uint8)
        assert sc.views(data, starts, ends).tobytes() == _views_by_python(text, starts, ends)
        assert sc.ranges(data, starts, ends, checked=checked).to_list() == _EDGES
        for k in range(len(_EDGES)):  # each alone as the whole data: fewer than 12 bytes, or the last ones
            one = _EDGES[k].encode()
            got = sc.ranges(np.frombuffer(one, np.uint8), np.array([0]), np.array([len(one)]), checked=checked)
            assert got.to_list() == [_EDGES[k]]


def test_views_of_random_ranges_are_the_bytes():
    rng = np.random.default_rng(7)
    text = bytes(rng.choice(np.frombuffer(b"ab,()@\"'xyz0129", np.uint8), 300))
    data = np.frombuffer(text, np.uint8)
    cuts = np.sort(rng.integers(0, len(text) + 1, 400)).astype(np.int32)
    starts, ends = cuts[0::2], cuts[1::2]
    assert sc.views(data, starts, ends).tobytes() == _views_by_python(text, starts, ends)
    assert sc.ranges(data, starts, ends).to_list() == [text[a:b].decode() for a, b in zip(starts, ends)]


def test_ranges_not_known_to_be_utf8_are_checked():
    data = np.frombuffer("ab\xffcdefghijklmnop".encode("latin-1"), np.uint8)
    with pytest.raises(pl.exceptions.PolarsError):
        sc.ranges(data, np.array([0]), np.array([16]))
    cut = np.frombuffer("xxé".encode(), np.uint8)  # a range that ends inside a character
    with pytest.raises(pl.exceptions.PolarsError):
        sc.ranges(cut, np.array([0]), np.array([3]))
    with pytest.raises(pl.exceptions.PolarsError):
        sc.strings(data, np.array([0, 16], dtype=np.int32))


def test_polars_takes_the_views_without_a_copy_and_keeps_the_data_alive():
    import gc
    import weakref

    data = np.frombuffer(b"a-string-longer-than-twelve,short," * 1000, np.uint8).copy()
    alive = weakref.ref(data)
    starts = np.arange(0, len(data), 34, dtype=np.int32)
    s = sc.ranges(data, starts, starts + 27)
    data[5] = ord("X")  # the long strings are read from the data itself: no copy was made
    assert s[0] == "a-strXng-longer-than-twelve"
    del data
    gc.collect()
    assert alive() is not None  # the series keeps the data alive
    kept = s.gather([0, 999])
    del s
    gc.collect()
    assert alive() is not None and kept.to_list() == ["a-strXng-longer-than-twelve", "a-string-longer-than-twelve"]
    del kept
    gc.collect()
    assert alive() is None  # polars released the array: nothing of it is kept


# tokens of at most SHORT bytes (keyed as one word), longer ones (strings),
# empty ones, non-ASCII, and bytes that a zero-padded word could confuse
_TOKENS = ["", "a", "ab", "a\0", "1234567", "12345678", "n4662", "é", "éé", "ééé", "ééééé", '"x"', "x" * 20, "c42", "0", "00"]


def _token_text(draw_tokens):
    """A text of ``draw_tokens`` joined by ',' and their ranges."""
    text = ",".join(draw_tokens).encode()
    starts, at = [], 0
    for t in draw_tokens:
        starts.append(at)
        at += len(t.encode()) + 1
    starts = np.array(starts, dtype=np.int32)
    ends = starts + np.array([len(t.encode()) for t in draw_tokens], dtype=np.int32)
    return np.frombuffer(text, np.uint8), starts, ends


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from(_TOKENS) | st.text(alphabet="ab0é,", max_size=9), max_size=300), st.data())
def test_encode_ranges_is_encode_of_the_ranges(tokens, data):
    """The keyed encoding of short tokens, the strings' of long ones and the
    two merged: the indices and distinct values (in order of first
    appearance) of :func:`encode` of the same ranges as strings."""
    tokens = [t.replace(",", "") for t in tokens]
    text, starts, ends = _token_text(tokens)
    pick = data.draw(st.none() | st.lists(st.integers(0, max(len(tokens) - 1, 0)), max_size=40)) if tokens else None
    got = sc.encode_ranges(text, starts, ends, pick)
    chosen = tokens if pick is None else [tokens[k] for k in pick]
    indices, distinct = _first_appearance(chosen)
    assert got.indices.dtype == np.int32
    assert got.indices.tolist() == indices and got.dictionary.to_list() == distinct


def test_encode_ranges_of_a_text_shorter_than_a_word():
    for text in (b"a", b"ab,c", b"1234567"):
        data = np.frombuffer(text, np.uint8)
        tokens = text.split(b",")
        starts = np.cumsum([0] + [len(t) + 1 for t in tokens[:-1]]).astype(np.int32)
        got = sc.encode_ranges(data, starts, starts + [len(t) for t in tokens])
        assert got.dictionary.to_list() == [t.decode() for t in tokens]


@pytest.mark.parametrize("distinct", [1, 2, 60, 6_000, 100_000])
def test_positions_of_keys_among_the_distinct_ones(distinct):
    rng = np.random.default_rng(distinct)
    keys = rng.integers(0, 1 << 63, distinct, dtype=np.int64).astype(np.uint64) << np.uint64(1)
    rows = rng.integers(0, distinct, 5 * distinct)
    assert np.array_equal(sc._positions(keys, keys[rows]), rows)


def test_keys_no_round_separates_are_placed_by_a_join(monkeypatch):
    """Keys that share their slot under every multiplier (all multiples of
    2^58, with multipliers that keep them so) are left to the join."""
    monkeypatch.setattr(sc, "_MULTIPLIERS", (1, 3))
    keys = (np.arange(16, dtype=np.uint64) << np.uint64(40))  # (the slot is the top bits: zero for each)
    rows = np.array([3, 0, 15, 15, 7, 3], dtype=np.int64)
    assert np.array_equal(sc._positions(keys, keys[rows]), rows)


def test_encode_ranges_tells_tokens_apart_by_their_length_too():
    """"a" and "a\\0" have the same bytes in a zero-padded word."""
    tokens = ["a", "a\0", "", "\0", "\0\0", "a", "\0"]
    got = sc.encode_ranges(*_token_text(tokens))
    assert got.dictionary.to_list() == ["a", "a\0", "", "\0", "\0\0"] and got.indices.tolist() == [0, 1, 2, 3, 4, 0, 3]


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.text(alphabet="abßΣ\u00e9 1", max_size=4), max_size=60))
def test_encode_any_order_gives_each_distinct_string_once(values):
    """Every row's string is its dictionary entry, and the entries are the
    distinct strings, each once (in the order of their hashes)."""
    got = sc.encode_any_order(pl.Series(values, dtype=pl.String))
    dictionary = got.dictionary.to_list()
    assert sorted(dictionary) == sorted(set(values))
    assert [dictionary[i] for i in got.indices.tolist()] == values
