"""The term Dictionary and the string encoders against plain Python: codes
given in any order of calls (strings coded in bulk as polars Series, one by
one, or in lists beside integers, floats, rationals, booleans, sets and
instants) are the codes a dict filled value by value gives, and every way of
reading values back (indexing, ``take``, ``strings_at``, lookups) gives the
values kept; the hash-sorted string encoders stay exact when strings share a
hash (polars' hash forced into a few buckets)."""

from __future__ import annotations

import datetime as dt
import functools
import random
from fractions import Fraction

import numpy as np
import polars as pl
import pytest
from budget import examples

from chronolog.engine.columns.encoding import Dictionary
from chronolog.engine.term_types import instant
from chronolog.language import string_columns
from chronolog.language.booleans import boolean
from chronolog.language.text import make_set

WORDS = ["a", "b", "1", "", "ß", "1.0", "#T", "x y", "Σσ", "2024-01-01", "a" * 13, "b" * 20, "\U0001F600", "é"]
OTHERS = [
    1, 2, 0, -1, 2**63, 1.0, 0.0, -0.0, 2.5, 0.1, float("inf"), Fraction(1, 2), Fraction(2), Fraction(-1, 3),
    boolean(True), boolean(False), make_set([1, "a"]), make_set(["a", 1.0]), make_set([]),
    instant(dt.date(2024, 1, 1)), instant(dt.datetime(2024, 1, 1, 9, tzinfo=dt.timezone(dt.timedelta(hours=9)))),
    instant(dt.datetime(2024, 1, 1, 0, tzinfo=dt.timezone.utc)), dt.datetime(2024, 1, 1, 5),
]
LONE = "\ud800"  # a lone surrogate: a Python string no polars Series holds


def _words(rnd, k):
    return list(dict.fromkeys(rnd.choice(WORDS) + rnd.choice(["", "", "z", "12"]) for _ in range(k)))


@pytest.fixture(params=["hash as polars gives it", "hash in 3 buckets", "hash constant"])
def buckets(request, monkeypatch):
    """polars' 64-bit string hash, or the same forced into a few values:
    encoders and lookups that sort or probe by hashes meet collisions."""
    if request.param.startswith("hash in"):
        real = pl.Series.hash
        monkeypatch.setattr(pl.Series, "hash", lambda self, seed=0, *a, **k: real(self, seed, *a, **k) % 3)
    elif request.param == "hash constant":
        monkeypatch.setattr(pl.Series, "hash", lambda self, seed=0, *a, **k: pl.Series(self.name, np.full(len(self), 7, dtype=np.uint64)))
    return request.param


def _same(a, b) -> bool:
    return type(a) is type(b) and (a == b or (a != a and b != b))


def _check_values(d, kept, rnd):
    vals = d.values
    assert len(vals) == len(kept)
    assert all(_same(a, b) for a, b in zip(vals, kept))
    codes = [rnd.randrange(len(kept)) for _ in range(rnd.randint(1, 12))] if kept else []
    assert all(_same(a, kept[c]) for a, c in zip(vals.take(codes), codes))
    assert all(_same(d.value(c), kept[c]) for c in codes)
    assert all(_same(a, kept[c]) for a, c in zip(d.values_of(codes), codes))
    got = vals.strings_at(np.array(codes, dtype=np.int64))
    if got is not None:  # (only when every code is in a Series part: strings then)
        assert got.to_list() == [kept[c] for c in codes]
        assert all(type(kept[c]) is str for c in codes)
    if kept:
        i = rnd.randrange(len(kept))
        j = rnd.randrange(i, len(kept) + 1)
        assert all(_same(a, b) for a, b in zip(vals[i:j], kept[i:j])) and len(vals[i:j]) == j - i
        assert _same(vals[-1], kept[-1])


def _code(ref: dict, kept: list, v) -> int:
    """The code of ``v`` in ``ref``, a dict filled value by value (new: the next one)."""
    if v not in ref:
        ref[v] = len(kept)
        kept.append(v)
    return ref[v]


@pytest.mark.parametrize("seed", range(examples(30)))
def test_mixed_terms_coded_as_a_python_dict_codes_them(seed, buckets):
    rnd = random.Random(seed)
    for _ in range(20):
        d, ref = Dictionary(), {}
        kept = []  # (the values in code order: a dict filled value by value, the rows' equality of terms)
        code = functools.partial(_code, ref, kept)
        for _ in range(rnd.randint(1, 10)):
            k = rnd.randrange(7)
            if k == 0:  # a Series of distinct strings (a file's names, a rule's results)
                names = _words(rnd, rnd.randint(0, 8))
                assert d.code_names(pl.Series(names, dtype=pl.String)).tolist() == [code(v) for v in names]
            elif k == 1:  # a list of any terms
                vals = [rnd.choice(OTHERS + WORDS + [LONE]) for _ in range(rnd.randint(0, 8))]
                assert d.code_all(vals).tolist() == [code(v) for v in vals]
            elif k == 2:  # distinct values, as after np.unique
                vals = list({rnd.choice(OTHERS + WORDS): None for _ in range(rnd.randint(0, 6))})
                vals = [v for i, v in enumerate(vals) if all(not (v == w) for w in vals[:i])]
                assert d.code_all(vals, distinct=True).tolist() == [code(v) for v in vals]
            elif k == 3:
                v = rnd.choice(OTHERS + WORDS + [LONE])
                assert d.code(v) == code(v)
            elif k == 4:
                v = rnd.choice(OTHERS + WORDS + ["zz", 7, LONE, 3.5])
                assert d.lookup(v) == ref.get(v)
            elif k == 5:
                names = _words(rnd, rnd.randint(0, 8))
                assert d.look_up_names(pl.Series(names, dtype=pl.String)).tolist() == [ref.get(v, -1) for v in names]
            else:
                _check_values(d, kept, rnd)
        _check_values(d, kept, rnd)
        assert d.codes == ref


@pytest.mark.parametrize("seed", range(examples(30)))
def test_string_encoders_are_exact_whatever_the_hashes(seed, buckets):
    """encode, encode_any_order and the hash grouping of long columns: each
    row's value is its dictionary entry, the dictionary distinct, in order
    of first appearance where the encoder promises it."""
    rnd = random.Random(seed)
    for _ in range(20):
        pool = _words(rnd, rnd.randint(1, 10))
        rows = [rnd.choice(pool) for _ in range(rnd.randint(0, 40))]
        s = pl.Series(rows, dtype=pl.String)
        firsts = list(dict.fromkeys(rows))
        for enc in (string_columns.encode(s), string_columns.encode(s, mostly_distinct=True)):
            assert enc.dictionary.to_list() == firsts
            assert [firsts[i] for i in enc.indices.tolist()] == rows
        got = string_columns._by_hashes(s) if rows else None
        if got is not None:  # (None: two strings of one hash, the caller's exact way)
            assert got.dictionary.to_list() == firsts
            assert [firsts[i] for i in got.indices.tolist()] == rows
        enc = string_columns.encode_any_order(s)
        values = enc.dictionary.to_list()
        assert sorted(values) == sorted(firsts)
        assert [values[i] for i in enc.indices.tolist()] == rows
        assert enc.indices.dtype == np.int32
