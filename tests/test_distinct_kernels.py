"""The distinct values the columnar kernels find by ``bincount`` or by a
sort (numpy 2.4's ``np.unique`` without an inverse hashes, and is 10-20x
slower): the same answers as ``np.unique``, at the edges too (empty arrays,
negatives, int64 extremes, codes far above the array's length)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from budget import examples
from executors_agree import on_both_executors
from oracle.pointwise import evaluate_text

from chronolog.corrections import holes_met
from chronolog.engine.columns.encoding import TermValues
from chronolog.engine.columns.point_relation import SortedKeys
from chronolog.language.exact_pairs import small_unique

EDGES = [
    [],
    [0],
    [5, 5, 5],
    [3, 0, 3, 1],
    [-1, 2, -1],
    [0, 1 << 40],
    [np.iinfo(np.int64).max, 0, np.iinfo(np.int64).max],
    [np.iinfo(np.int64).min, np.iinfo(np.int64).max, 0],
    [(1 << 22) - 1, 7, (1 << 22) - 1],  # (a large code among few values: by a sort)
]


@pytest.mark.parametrize("values", EDGES)
def test_small_unique_is_numpys_unique_with_its_inverse(values):
    assert_like_numpy(np.array(values, dtype=np.int64))


def assert_like_numpy(a):
    uniq, inv = small_unique(a)
    want, want_inv = np.unique(a, return_inverse=True)
    assert uniq.tolist() == want.tolist() and inv.tolist() == want_inv.reshape(-1).tolist()


def test_small_unique_of_random_codes():
    rng = np.random.default_rng(7)
    for _ in range(examples(50)):
        n = int(rng.integers(0, 3000))
        assert_like_numpy(rng.integers(0, int(rng.choice([2, 100, 10**5, 1 << 24])), n, dtype=np.int64))


def test_distinct_keys_of_more_than_two_positions():
    rng = np.random.default_rng(11)
    for _ in range(examples(50)):
        n, arity = int(rng.integers(0, 300)), int(rng.integers(3, 6))
        cols = [rng.integers(0, int(rng.integers(1, 5)), n, dtype=np.int64) for _ in range(arity)]
        want = len(set(zip(*(c.tolist() for c in cols))))
        assert SortedKeys(cols, n).distinct() == want


def test_term_values_take_across_parts():
    values = TermValues()
    values.add_strings(pl.Series(["a", "b", "c"]))
    values.extend([1, 2.5, "d"])
    values.add_strings(pl.Series(["e", "f"]))
    every = ["a", "b", "c", 1, 2.5, "d", "e", "f"]
    rng = np.random.default_rng(3)
    for codes in ([], [4], [0, 0, 2], [7, 0, 4, 7], rng.integers(0, len(every), 500).tolist()):
        assert values.take(np.array(codes, dtype=np.int64)) == [every[c] for c in codes]


def test_a_hole_with_two_pieces_is_met_once():
    # (holes of one atom: [0, 4] with pieces at 1 and 3, [10, 12] with none; another atom's hole [0, 4] with one)
    holes = [np.array([1, 1, 2])], np.array([0, 10, 0]), np.array([4, 12, 4])
    assert holes_met(holes, [np.array([1, 1, 2])], np.array([1, 3, 2])) == 2


@pytest.mark.parametrize("agg", ["min", "max"])
@pytest.mark.parametrize("words", [["b", "a", "ab", "\u00e9", "Z", "", "zz"], ["#T", "#F"]])
def test_min_and_max_of_strings_and_booleans_on_columns_match_the_oracle(agg, words):
    rng = np.random.default_rng(5)
    for _ in range(examples(20)):
        facts = []
        for _ in range(int(rng.integers(1, 30))):
            w, lo = words[int(rng.integers(0, len(words)))], int(rng.integers(0, 10))
            facts.append(f'p(k{rng.integers(0, 3)}, {w if w.startswith("#") else repr(w).replace(chr(39), chr(34))})@[{lo},{lo + int(rng.integers(0, 4))}].')
        data, rule = "\n".join(facts), f"q(K, M) :- p(K, V), M = {agg}(V)."
        m, _ = on_both_executors(rule + "\n" + data, "q")
        if words[0] != "#T":  # (the oracle's booleans are its own objects)
            assert sorted(m.facts("q")) == sorted(evaluate_text(rule, data).facts("q")), data
