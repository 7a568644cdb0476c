"""What a large run keeps in memory: the same answers with less held.

The term Dictionary builds its value -> code dict only when a lookup needs
it, the fact reader's columns of one block share one array of codes, and
the text printer's chunks give the same bytes at any size."""

from __future__ import annotations

import io
from fractions import Fraction

import numpy as np

from chronolog.engine.columns.encoding import Dictionary
from chronolog.language.fact_columns import _CodedColumn, read_fact_columns


def test_names_appended_without_the_dict_code_as_before():
    d = Dictionary()
    names = [f"n{i}" for i in range(1000)]
    assert d.code_all(names, distinct=True).tolist() == list(range(1000))
    assert d._indexed == 0  # nothing looked up yet: no dict built
    # every later use sees the appended values, as if coded one by one
    assert d.lookup("n7") == 7 and d.lookup("other") is None
    assert d.code("n999") == 999 and d.code("new") == 1000
    assert d.code_all(["n3", "new", "newer", "n3"]).tolist() == [3, 1000, 1001, 3]
    assert d.codes == {v: i for i, v in enumerate(d.values)}
    # the rows' equality: 1 and 1.0 and Fraction(1) are one term
    d2 = Dictionary()
    d2.code_all([1, "a"], distinct=True)
    assert d2.code_all([1.0, Fraction(1), "a", 2]).tolist() == [0, 0, 1, 2]


def test_a_blocks_columns_share_one_array_of_codes(monkeypatch):
    from chronolog.language import fact_columns

    monkeypatch.setattr(fact_columns, "BLOCK", 256)  # several blocks
    text = "".join(f"p(a{i % 7},b{i % 5})@[{i},{i + 1}]\nq(c{i % 3})@{i}\n" for i in range(200))
    d = Dictionary()
    fc = read_fact_columns(io.BytesIO(text.encode()), terms=d)
    arrays = {}
    for parts in fc.parts.values():
        for cols, *_ in parts:
            for c in cols:
                assert isinstance(c, _CodedColumn) and c.codes.dtype == np.int32
                arrays[id(c.codes)] = c.codes
    blocks = len(fc.parts["p"])
    assert blocks > 1 and len(arrays) <= blocks  # one per block, not one per column
    got = sorted((p, tuple(t), iv[:2]) for p in ("p", "q") for t, iv in fc.pred_rows(p))
    want = sorted(
        [("p", (f"a{i % 7}", f"b{i % 5}"), (i, i + 1)) for i in range(200)] + [("q", (f"c{i % 3}",), (i, i)) for i in range(200)]
    )
    assert got == want


def test_printed_chunks_join_to_the_same_text():
    import polars as pl

    from chronolog.connectors.text_out import frame_lines
    from chronolog.engine.columns.encoding import TimeScale

    d = Dictionary()
    codes = d.code_all([f"x{i}" for i in range(50)], distinct=True)
    rng = np.random.default_rng(1)
    n = 1000
    df = pl.DataFrame({"0": codes[rng.integers(0, 50, n)], "s": np.arange(n) * 4, "e": np.arange(n) * 4 + 1})
    df = df.sort(["0", "s"])
    texts = ["".join("".join(a.to_pylist()) for a in frame_lines("p", df, 1, d, TimeScale(), chunk=k)) for k in (7, 100, 1 << 20)]
    assert texts[0] == texts[1] == texts[2]
    assert texts[0].count("\n") == n


def test_release_gives_back_free_heap_only_in_a_command(monkeypatch):
    from chronolog import allocators

    monkeypatch.setattr(allocators, "_trim", None)
    monkeypatch.setattr(allocators, "_configured", False)
    allocators.release()  # the Python API: a host's allocator is left alone
    assert allocators._trim is None
    monkeypatch.setattr(allocators, "_configured", True)
    allocators.release()  # glibc's malloc_trim here, nothing elsewhere; never an error
    assert allocators._trim is not None
