"""Recursive strata on columns (engine/columns/growing.py): the relation a
recursion grows, merged round by round at the cost of the round's
derivations, against the whole-relation merge (``merge_new``), the row
executor, and DuckDB's recursive CTE (temporal reachability written as SQL)."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog

pytest.importorskip("polars")

ends = st.tuples(st.integers(0, 5), st.integers(0, 4), st.integers(-6, 6), st.integers(0, 5), st.integers(0, 9))


def _frame(rows, arity):
    """Rows ``(a, b, c, s, d, inf)`` as a frame of ``arity`` code columns and
    ``s < e`` on the doubled grid (``inf == 0``: an unbounded end)."""
    import polars as pl

    from chronolog.engine.interval_codes import POS

    keys = [str(i) for i in range(arity)]
    data = [(*(a, b, c)[:arity], s, POS if inf == 0 else s + 1 + d) for a, b, c, s, d, inf in rows]
    return pl.DataFrame(data, schema={**{k: pl.Int64 for k in keys}, "s": pl.Int64, "e": pl.Int64}, orient="row")


row = st.tuples(st.integers(0, 5), st.integers(0, 4), st.integers(0, 3), st.integers(-6, 6), st.integers(0, 5), st.integers(0, 9))
beyond = st.tuples(st.integers(0, 7), st.integers(0, 4), st.integers(0, 3), st.integers(-6, 6), st.integers(0, 5), st.integers(0, 9))


@settings(deadline=None, max_examples=examples(300))
@given(
    st.integers(0, 3),
    st.lists(row, max_size=10),
    st.lists(st.tuples(st.lists(st.lists(row, min_size=1, max_size=8), min_size=1, max_size=2), st.booleans()), max_size=8),
    st.lists(beyond, min_size=1, max_size=3),
)
@example(1, [], [([[(0,) * 6]], False)], [(0,) * 6, (0,) * 6, (6, 0, 0, 0, 0, 0)])  # (a code past the key's range)
def test_growing_relation_merges_as_the_whole_relation_does(arity, start, rounds, last):
    """Round after round, the growing relation's delta is merge_new's, and
    its frame (looked at after some rounds only: a look merges its runs)
    the merged relation, row for row; a code beyond its key's radix (codes
    6 and 7 here, where the Dictionary knows 3) makes it give up without
    changing anything, as the evaluator then merges on frames.  Each round
    twice: the rows of the atoms it touches taken whole, and only those
    that meet its derivations (growing._FEW_ROWS: the atoms here hold few)."""
    from chronolog.engine.columns import growing

    kept = growing._FEW_ROWS
    for few in (kept, 0):
        growing._FEW_ROWS = few
        try:
            _grow_as_merge_new(arity, start, rounds, last)
        finally:
            growing._FEW_ROWS = kept


def _grow_as_merge_new(arity, start, rounds, last):
    from chronolog.engine.columns.coalesce import coalesce, merge_new
    from chronolog.engine.columns.growing import GrowingRelation

    keys = [str(i) for i in range(arity)]
    old = coalesce(_frame(start, arity), keys)
    grown = None
    for parts, look in [*rounds, ([last], True)]:
        parts = [_frame(p, arity) for p in parts]
        if grown is None:
            grown = GrowingRelation.of(old, keys, parts, 3)
            assert grown is not None
        runs = [tuple(a.tolist() for a in run) for run in grown.runs]
        new = grown.merge(parts)
        if new is None:  # a code beyond the radix
            assert any(not lo <= int(x) < hi for p in parts if p.height for k, (lo, hi) in zip(keys, grown.ranges)
                       for x in (p[k].min(), p[k].max()))
            assert [tuple(a.tolist() for a in run) for run in grown.runs] == runs
            return
        merged, want = merge_new(old, list(parts), keys)
        assert sorted(new.rows()) == sorted(want.rows())
        if look:
            assert grown.frame().rows() == merged.rows()
        old = merged


@settings(deadline=None, max_examples=examples(200))
@given(st.integers(1, 3), st.lists(row, min_size=2, max_size=12), st.lists(row, min_size=1, max_size=8), st.data())
def test_growing_relation_of_a_relation_in_no_order(arity, start, part, data):
    """A relation maximal but not sorted by its atoms (a stored relation's
    atoms in the order they came, a maintained relation's touched atoms put
    back at the end) grows as merge_new merges it (the runs were taken as
    sorted: wrong deltas, and a crash on LUBM 1M rec given as text)."""
    from chronolog.engine.columns.coalesce import coalesce, merge_new
    from chronolog.engine.columns.growing import GrowingRelation

    keys = [str(i) for i in range(arity)]
    old = coalesce(_frame(start, arity), keys)
    shuffled = old[data.draw(st.permutations(range(old.height)))]
    parts = [_frame(part, arity)]
    grown = GrowingRelation.of(shuffled, keys, parts, 4)
    new = grown.merge(parts)
    merged, want = merge_new(old, list(parts), keys)
    assert sorted(new.rows()) == sorted(want.rows())
    assert grown.frame().rows() == merged.rows()


# ------------------------------------------------------------ whole programs

PROGRAMS = {
    "right-linear": "path(X,Y) :- edge(X,Y). path(X,Z) :- path(X,Y), edge(Y,Z).",
    "left-linear": "path(X,Y) :- edge(X,Y). path(X,Z) :- edge(X,Y), path(Y,Z).",
    "non-linear": "path(X,Y) :- edge(X,Y). path(X,Z) :- path(X,Y), path(Y,Z).",
    "mutual": "odd(X,Y) :- edge(X,Y). even(X,Z) :- odd(X,Y), edge(Y,Z). odd(X,Z) :- even(X,Y), edge(Y,Z).",
    "operators": "reach(X) :- edge(a,X). reach(Z) :- reach(Y), [-][0,1] edge(Y,Z), not cut(Z). both(X,Y) :- reach(X), reach(Y), edge(X,Y).",
    "labels": "lp(X,Y,L) :- edge(X,Y), label(X,L). lp(X,Z,L) :- lp(X,Y,L), edge(Y,Z), label(Z,L).",
    "nullary": "on :- edge(a,b). on :- on, edge(X,X).",
}


@st.composite
def graphs(draw):
    """Temporal edges among a few nodes, every kind of end, some unbounded."""
    nodes = ["a", "b", "c", "d", "e"][: draw(st.integers(2, 5))]
    facts = []
    for _ in range(draw(st.integers(0, 14))):
        x, y = draw(st.sampled_from(nodes)), draw(st.sampled_from(nodes))
        lo = draw(st.integers(0, 12))
        hi = lo + draw(st.integers(0, 8))
        left = "(-inf" if draw(st.integers(0, 9)) == 0 else f"{draw(st.sampled_from('[('))}{lo}"
        right = "+inf)" if draw(st.integers(0, 9)) == 0 else f"{hi}{draw(st.sampled_from('])'))}"
        if lo == hi and not (left.startswith("(-") or right.endswith("inf)")):
            left, right = f"[{lo}", f"{hi}]"
        facts.append(f"edge({x},{y})@{left},{right}.")
    for x in draw(st.lists(st.sampled_from(nodes), max_size=2)):
        facts.append(f"label({x},{draw(st.sampled_from(['r', 'g']))})@[0,20].")
        facts.append(f"cut({x})@({draw(st.integers(0, 6))},{draw(st.integers(7, 12))}].")
    return " ".join(facts)


@settings(deadline=None, max_examples=examples(100))
@given(st.sampled_from(sorted(PROGRAMS)), graphs())
def test_recursive_programs_give_the_rows_model_on_columns(name, data):
    """Each shape of recursion (linear either way, non-linear, mutual, with
    operators and negation of lower strata, labels, no arguments) gives
    the row executor's model on columns, which run every stratum."""
    program = PROGRAMS[name] + " " + data
    rows = chronolog.reason(program, engine="rows")
    cols = chronolog.reason(program, engine="columns")
    assert not cols.stats.get("fallbacks"), cols.stats.get("fallbacks")
    assert set(cols.stats["executors"].values()) == {"columns"}
    assert cols.to_text() == rows.to_text()


def _duckdb_paths(edges):
    """Temporal reachability by DuckDB's recursive CTE over ``(x, y, lo, hi,
    lo_closed, hi_closed)`` with integer ends: ``{(x, y, interval)}``.  An
    interval is an integer range on the doubled lattice (``2t`` the point
    t, ``2t+1`` the open stretch after it), a walk holds on the intersection
    of its edges', and each pair's ranges are merged at the end where they
    overlap or meet."""
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.execute("CREATE TABLE raw(x VARCHAR, y VARCHAR, lo BIGINT, hi BIGINT, lc BOOLEAN, hc BOOLEAN)")
    if edges:
        con.executemany("INSERT INTO raw VALUES (?, ?, ?, ?, ?, ?)", edges)
    rows = con.execute("""
        WITH RECURSIVE
          edge AS (SELECT x, y, 2 * lo + (NOT lc)::INT AS s, 2 * hi - (NOT hc)::INT AS e FROM raw),
          walk(x, y, s, e) AS (
            SELECT x, y, s, e FROM edge
            UNION
            SELECT w.x, ed.y, greatest(w.s, ed.s), least(w.e, ed.e)
            FROM walk w JOIN edge ed ON w.y = ed.x
            WHERE greatest(w.s, ed.s) <= least(w.e, ed.e)),
          ordered AS (
            SELECT x, y, s, e, max(e) OVER (PARTITION BY x, y ORDER BY s, e
                                            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach
            FROM walk),
          grouped AS (
            SELECT x, y, s, e, sum((reach IS NULL OR s > reach + 1)::INT)
                                 OVER (PARTITION BY x, y ORDER BY s, e ROWS UNBOUNDED PRECEDING) AS g
            FROM ordered)
        SELECT x, y, min(s), max(e) FROM grouped GROUP BY x, y, g""").fetchall()
    return {(x, y, (s // 2, (e + 1) // 2, s % 2 == 0, e % 2 == 0)) for x, y, s, e in rows}


@st.composite
def integer_graphs(draw):
    """``(x, y, lo, hi, lo_closed, hi_closed)`` edges with integer ends."""
    nodes = [f"n{i}" for i in range(draw(st.integers(2, 8)))]
    out = []
    for _ in range(draw(st.integers(0, 25))):
        lo = draw(st.integers(0, 15))
        hi = lo + draw(st.integers(0, 8))
        lc, hc = (True, True) if lo == hi else (draw(st.booleans()), draw(st.booleans()))
        out.append((draw(st.sampled_from(nodes)), draw(st.sampled_from(nodes)), lo, hi, lc, hc))
    return out


@settings(deadline=None, max_examples=examples(100))
@given(integer_graphs())
def test_temporal_reachability_is_duckdbs_recursive_cte(edges):
    """Temporal reachability on columns gives what DuckDB's recursive CTE
    computes (the hand-written peer of bench/temporal_reach.py, in brief)."""
    facts = " ".join(f"edge({x},{y})@{'[' if lc else '('}{lo},{hi}{']' if hc else ')'}." for x, y, lo, hi, lc, hc in edges)
    model = chronolog.reason(PROGRAMS["right-linear"] + " " + facts, engine="columns")
    assert set(model.stats["executors"].values()) == {"columns"}
    got = {(x, y, iv) for (x, y), iv in model.facts("path")}
    assert got == _duckdb_paths(edges)
