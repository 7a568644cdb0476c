"""The term Dictionary codes strings by joins where it can: the same codes
as a Python dict gives value by value (the rows' equality of terms), and
strings given as Arrow reach it without a Python string each."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import polars as pl
import pyarrow as pa
import pytest
from budget import examples

import chronolog
from chronolog.engine.columns.encoding import Dictionary
from chronolog.language.booleans import boolean

# terms that are one term by Python's equality (1, 1.0, Fraction(1); 0.0 and
# -0.0), and ones that are not (the string "1", the boolean #T)
POOL = ["a", "b", "c", "1", "", "ß", 1, 2, 1.0, 2.5, Fraction(1, 2), Fraction(2), 0, 0.0, -0.0, boolean(True), boolean(False)]
NAMES = "abcdefgß1"


def _names(rnd):
    return list(dict.fromkeys(rnd.choice(NAMES) for _ in range(rnd.randint(0, 6))))


@pytest.mark.parametrize("seed", range(examples(20)))
def test_codes_are_a_python_dicts_whatever_the_order_of_calls(seed):
    """Names (a polars Series), lists of any terms, single values, lookups
    and lookups of names in any order: every code, every value kept and
    its type as a dict filled value by value has them."""
    rnd = random.Random(seed)
    for _ in range(50):
        d, ref, kept = Dictionary(), {}, []

        def code(v):
            if v not in ref:
                ref[v] = len(kept)
                kept.append(v)
            return ref[v]

        for _ in range(rnd.randint(1, 8)):
            k = rnd.randrange(5)
            if k == 0:
                names = _names(rnd)
                assert d.code_names(pl.Series(names, dtype=pl.String)).tolist() == [code(v) for v in names]
            elif k == 1:
                vals = [rnd.choice(POOL) for _ in range(rnd.randint(0, 6))]
                assert d.code_all(vals).tolist() == [code(v) for v in vals]
            elif k == 2:
                v = rnd.choice(POOL)
                assert d.code(v) == code(v)
            elif k == 3:
                v = rnd.choice([*POOL, "zz", 7])
                assert d.lookup(v) == ref.get(v)
            else:
                names = _names(rnd)
                assert d.look_up_names(pl.Series(names, dtype=pl.String)).tolist() == [ref.get(v, -1) for v in names]
        assert [(type(v), v) for v in d.values] == [(type(v), v) for v in kept]
        assert d.codes == ref


def test_strings_after_names_and_numbers_do_not_build_the_names_dict():
    """A file's names, then numbers, then strings computed by a rule: the
    numbers and the strings not among the names are looked up in the dict
    of what came after the names; the names are found by a join (a dict
    of 1M names cost about a second)."""
    d = Dictionary()
    d.code_names(pl.Series([f"n{i}" for i in range(100)]))
    assert d.code_all([5, 6, 5.0]).tolist() == [100, 101, 100]
    assert d.code_names(pl.Series(["n3", "new", "n99"])).tolist() == [3, 102, 99]
    assert d.code_names(pl.Series(["new", "newer"])).tolist() == [102, 103]
    assert d.lookup(6) == 101 and d.code(7) == 104
    assert d._indexed < d.values.named  # the names' dict never built
    assert d.lookup("n42") == 42  # (a string looked up alone: the whole dict)
    assert d.codes == {v: i for i, v in enumerate(d.values)}



def test_strings_after_other_terms_are_coded_by_joins():
    """Integers (and a string coded alone) before a column of strings:
    the strings are still found by joins and kept as Series, the codes a
    dict gives value by value, no Python string each, and they read back
    as a Series (the writers' and the string kernels' input)."""
    d = Dictionary()
    assert d.code_all([5, 6, 1.0]).tolist() == [0, 1, 2]
    assert d.code("s") == 3
    names = [f"n{i}" for i in range(100)]
    assert d.code_names(pl.Series(names)).tolist() == list(range(4, 104))
    assert d.code_all([7, 1]).tolist() == [104, 2]
    assert d.code_names(pl.Series(["n3", "s", "new", "n99", "5"])).tolist() == [7, 3, 105, 103, 106]
    assert not any(type(k) is str and k != "s" for k in d._codes)  # (no dict entry for a string coded in bulk)
    got = d.values.strings_at(np.array([105, 4, 7, 106]))
    assert got is not None and got.to_list() == ["new", "n0", "n3", "5"]
    assert d.values.strings_at(np.array([4, 3])) is None  # ("s" was coded alone: a Python value)
    assert d.look_up_names(pl.Series(["5", "s", "n50", "zz"])).tolist() == [106, 3, 54, -1]
    assert d.lookup("n50") == 54 and d.codes == {v: i for i, v in enumerate(d.values)}

def test_an_arrow_string_column_is_coded_without_python_strings():
    from chronolog.connectors.table_columns import _term_column
    from chronolog.language.fact_columns import _NameColumn

    for typ in (pa.string(), pa.large_string()):
        col = _term_column(pa.chunked_array([pa.array(["x", "y"], typ), pa.array(["y", "z"], typ)]))
        assert type(col) is _NameColumn and col.names.to_list() == ["x", "y", "z"]
        assert col.indices.tolist() == [0, 1, 1, 2] and col.values.tolist() == ["x", "y", "z"]


PROGRAM = """
r(X, Y) :- p(X, S), Y = upper(concat(S, "x")).
q(X, S) :- p(X, S), p2(S, X).
@output("r"). @output("q").
"""


@pytest.mark.parametrize("seed", range(examples(10)))
def test_arrow_strings_beside_other_terms_same_answers_on_both_executors(seed):
    """Strings (some looking like numbers or booleans), ints and booleans
    in Arrow tables, in either order of columns: the columns' answers are
    the rows' (the pointwise executor), Arrow tables alike."""
    rnd = random.Random(seed)
    n = rnd.randint(1, 40)
    words = ["a", "b", "1", "#T", "ß", "x y", "Σσ"]
    xs = [rnd.choice([1, 2, 3, "a", "1"]) if rnd.random() < 0.2 else rnd.randint(0, 5) for _ in range(n)]
    xs = [str(x) for x in xs] if any(isinstance(x, str) for x in xs) else xs
    ss = [rnd.choice(words) for _ in range(n)]

    def table(a, b):
        m = len(a)
        return pa.table({"c0": a, "c1": b, "start": pa.array([rnd.randint(0, 3) for _ in range(m)], pa.int64()),
                         "end": pa.array([5] * m, pa.int64())})

    facts = {"p": table(xs, ss), "p2": table(list(reversed(ss)), list(reversed(xs)))}
    got = {e: chronolog.reason(PROGRAM, facts, engine=e) for e in ("columns", "rows")}
    for pred in ("r", "q"):
        a, b = (got[e].to_arrow(pred) for e in ("columns", "rows"))
        assert a.schema == b.schema
        assert a.to_pylist() == b.to_pylist()
