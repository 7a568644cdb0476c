"""Aggregates against DuckDB at every time point: per group, over the rows
holding at ``t``, ``count(V)`` (SQL's COUNT), ``count(<V>)`` (COUNT
DISTINCT), ``sum``, exact ``avg``, ``min``/``max`` of numbers mixing
integers and floats and of strings, and groups with no row at ``t`` (no
fact).  Each row is a distinct binding on a closed interval, so the bag of
bindings at ``t`` is the rows SQL selects there."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chronolog
from budget import examples

duckdb = pytest.importorskip("duckdb")

PROGRAM = """
c(G, N) :- p(G, V, W), N = count(V).
d(G, N) :- p(G, V, W), N = count(<V>).
s(G, S) :- p(G, V, W), S = sum(V).
a(G, A) :- p(G, V, W), A = avg(V).
lo(G, M) :- p(G, V, W), M = min(V).
hi(G, M) :- p(G, V, W), M = max(V).
slo(G, M) :- n(G, X, W), M = min(X).
shi(G, M) :- n(G, X, W), M = max(X).
sd(G, N) :- n(G, X, W), N = count(<X>).
"""

# integers and floats, none equal to another (the engine finds 1.0 = 1: one term)
NUMBERS = st.sampled_from([-3, 0, 2, 7, 0.5, -1.25, 2.75, 1e-3])
NAMES = st.sampled_from(["a", "B", "é", "ab", "Z", "aa"])
ROW = st.tuples(st.sampled_from(["g", "h"]), st.integers(0, 3), st.integers(0, 8), st.integers(0, 4))


def _rows(draw_rows, values):
    """Distinct (group, value, w) bindings, each on its own closed interval."""
    seen, out = set(), []
    for (g, w, s, length), v in zip(draw_rows, values):
        if (g, v, w) in seen or (g, repr(v), w) in seen:
            continue
        seen.add((g, repr(v), w))
        out.append((g, v, w, s, s + length))
    return out


def _holds(iv, t) -> bool:
    lo, hi, lc, hc = iv
    return (lo < t or (lc and lo == t)) and (t < hi or (hc and t == hi))


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(ROW, max_size=12), st.lists(NUMBERS, min_size=12, max_size=12),
       st.lists(ROW, max_size=12), st.lists(NAMES, min_size=12, max_size=12))
def test_aggregates_at_every_point_match_duckdb(num_rows, numbers, name_rows, names):
    p = _rows(num_rows, numbers)
    n = _rows(name_rows, names)
    model = chronolog.reason(PROGRAM, {"p": [((g, v, w), (s, e)) for g, v, w, s, e in p],
                                       "n": [((g, x, w), (s, e)) for g, x, w, s, e in n]})
    con = duckdb.connect()
    con.execute("create table p (g varchar, v double, iv bigint, w bigint, s double, e double)")
    con.execute("create table n (g varchar, x varchar, w bigint, s double, e double)")
    # exact values: integers apart from floats (iv), so sums and averages are exact
    for g, v, w, s, e in p:
        con.execute("insert into p values (?, ?, ?, ?, ?, ?)", [g, float(v), v if isinstance(v, int) else None, w, s, e])
    for row in n:
        con.execute("insert into n values (?, ?, ?, ?, ?)", list(row))
    points = sorted({Fraction(x, 2) for x in range(-1, 26)})
    got = {pred: {} for pred in ("c", "d", "s", "a", "lo", "hi", "slo", "shi", "sd")}
    for pred in got:
        for terms, iv in model.facts(pred):
            for t in points:
                if _holds(iv, t):
                    got[pred][(terms[0], t)] = terms[1]
    for t in points:
        rows = con.execute(
            "select g, count(v), count(distinct v), min(v), max(v), count(iv) from p where s <= ? and ? <= e group by g",
            [float(t), float(t)]).fetchall()
        want_groups = {g for g, *_ in rows}
        for pred in ("c", "d", "s", "a", "lo", "hi"):
            assert {g for (g, x) in got[pred] if x == t} == want_groups, (pred, t)
        for g, count, distinct, low, high, _ in rows:
            values = [v for gg, v, w, s, e in p if gg == g and s <= t <= e]
            exact = sum(Fraction(v) for v in values)  # (DuckDB's doubles round at each step)
            assert len(values) == count
            assert got["c"][(g, t)] == count and got["d"][(g, t)] == distinct, (g, t)
            assert float(got["lo"][(g, t)]) == low and float(got["hi"][(g, t)]) == high, (g, t)
            if any(isinstance(v, float) for v in values):  # a float among them: the exact value rounded once
                assert (got["s"][(g, t)], got["a"][(g, t)]) == (float(exact), float(exact / count)), (g, t, values)
            else:
                assert (got["s"][(g, t)], got["a"][(g, t)]) == (exact, exact / count), (g, t, values)
        rows = con.execute(
            "select g, min(x), max(x), count(distinct x) from n where s <= ? and ? <= e group by g", [float(t), float(t)]).fetchall()
        assert {g for (g, x) in got["slo"] if x == t} == {g for g, *_ in rows}, t
        for g, low, high, distinct in rows:
            assert (got["slo"][(g, t)], got["shi"][(g, t)], got["sd"][(g, t)]) == (low, high, distinct), (g, t)
