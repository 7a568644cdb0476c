"""The ordered windows of engine/exprs.py (running max and sum per
partition, lag, lead) and the coalescing written once with them
(engine/coalescing.py) give the same answers on numpy, on DuckDB and on
Spark: the numpy kernels against DuckDB's window functions running the
very SQL text the Spark rounds send (an engine nobody here wrote), and the
coalescing of both backends against maximal intervals found from scratch,
point by point."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from chronolog.engine import coalescing, exprs
from chronolog.engine.interval_codes import NEG, POS

# order values: small ones (ties and runs), the sentinels, and values far
# apart (past the 62 bits of running_max's one accumulate: its rank path)
VALUES = st.one_of(st.integers(-20, 20), st.sampled_from([NEG, POS, -(2**61), 2**61]))
ROWS = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), VALUES, VALUES), max_size=40)
FUNCS = st.sampled_from(["max_before", "sum_through", "lag", "lead"])


def duckdb_sql(e) -> str:
    return exprs.to_sql(e, lambda v: f"CAST({int(v)} AS BIGINT)", None)


@given(ROWS, FUNCS, st.integers(0, 2), st.booleans())
@settings(max_examples=examples(200), deadline=None)
def test_windows_on_numpy_are_duckdbs_window_functions(rows, func, n_keys, default):
    """Each window over random rows in random partitions, the rows sorted
    as a caller sorts them (partition, then order; ``i`` breaks ties, so
    that DuckDB's order is the same), equals DuckDB's value of the SQL."""
    import duckdb

    part = ["k0", "k1"][:n_keys]
    x = "x" if func != "sum_through" else "y"  # (sums of small values: DuckDB's sum of bigints is a hugeint)
    e = exprs.window(func, exprs.col(x), part, ("o", "i"), default=-7 if default else None)
    cols = {"k0": [r[0] for r in rows], "k1": [r[1] for r in rows], "o": [r[2] for r in rows],
            "x": [r[3] for r in rows], "y": [r[3] % 100 for r in rows], "i": list(range(len(rows)))}
    cols = {k: np.asarray(v, dtype=np.int64) for k, v in cols.items()}
    order = np.lexsort((cols["i"], cols["o"], *(cols[c] for c in reversed(part))))
    cols = {k: v[order] for k, v in cols.items()}
    con = duckdb.connect()
    con.register("t", {k: v for k, v in cols.items()})
    want = dict(con.execute(f"SELECT i, {duckdb_sql(e)} FROM t").fetchall())
    if not rows:
        return
    got = exprs.to_numpy(e, cols)
    for i, v in zip(cols["i"].tolist(), got.tolist()):
        if want[i] is None:  # SQL's null, where numpy has only a value to read under a false test
            continue
        assert v == want[i], (func, part, rows, i)


def maximal(rows):
    """Maximal intervals per atom from scratch: the union of each atom's
    intervals [s, e) over the integer points they cover, cut where a point
    is missing (on the doubled grid an interval covers its codes' points)."""
    points = {}
    for k, s, e in rows:
        points.setdefault(k, set()).update(range(s, e))
    out = []
    for k, ps in points.items():
        ps = sorted(ps)
        start = prev = None
        for p in ps:
            if start is None:
                start = prev = p
            elif p == prev + 1:
                prev = p
            else:
                out.append((k, start, prev + 1))
                start = prev = p
        if start is not None:
            out.append((k, start, prev + 1))
    return sorted(out)


INTERVALS = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 30), st.integers(1, 8)).map(lambda t: (t[0], t[1], t[1] + t[2])),
                     max_size=30)


@given(INTERVALS)
@settings(max_examples=examples(200), deadline=None)
def test_coalescing_on_the_columns_is_the_union_of_points(rows):
    import polars as pl

    from chronolog.engine.columns.coalesce import coalesce

    df = pl.DataFrame(rows, schema={"k": pl.Int64, "s": pl.Int64, "e": pl.Int64}, orient="row")
    assert sorted(coalesce(df, ["k"]).rows()) == maximal(rows)


def test_the_spark_rounds_coalesce_by_the_shared_window():
    """The SQL of the rounds' coalescing is the shared definition's."""
    from chronolog.connectors.spark_rounds.sql import Stmt, coalesce_sql, int64

    q = Stmt()
    src = q.add("SELECT * FROM t", ["c0", "s", "e"])
    text = q.text(coalesce_sql(q, src, ["c0"]))
    assert exprs.to_sql(coalescing.joins_interval(["c0"]), int64, None) in text


SEGMENTS = st.lists(st.tuples(st.integers(0, 2), st.integers(1, 4), st.sampled_from([0, 0, 1]), st.integers(0, 1)), max_size=30)


def segments_of(steps):
    """Disjoint segments per atom, as an aggregation's: ``(atom, length,
    gap before, value)`` laid end to end per atom."""
    at, out = {}, []
    for k, length, gap, value in steps:
        s = at.get(k, 0) + gap
        out.append((k, s, s + length, value))
        at[k] = s + length
    return out


def merged_from_scratch(segments):
    """Segments of one atom that meet with equal values, merged."""
    out = []
    for k, s, e, a in sorted(segments):
        if out and out[-1][0] == k and out[-1][2] == s and out[-1][3] == a:
            out[-1] = (k, out[-1][1], e, a)
        else:
            out.append((k, s, e, a))
    return out


@given(SEGMENTS)
@settings(max_examples=examples(200), deadline=None)
def test_equal_segments_merge_on_the_columns(steps):
    """The aggregation's answers (columns/aggregate.py) merge touching
    segments of equal values by the shared window (coalescing.continues_equal)."""
    from chronolog.engine.columns.aggregate import _coalesce_segments

    segs = sorted(segments_of(steps))
    if not segs:
        return
    k, s, e, a = (np.asarray(c, dtype=np.int64) for c in zip(*segs))
    got = _coalesce_segments({"g": k}, {"a": a}, s, e)
    assert sorted(got.select("g", "s", "e", "a").rows()) == merged_from_scratch(segs)


@pytest.mark.spark
@given(st.lists(st.tuples(INTERVALS, SEGMENTS), min_size=1, max_size=4))
@settings(max_examples=examples(20), deadline=None)
def test_coalescing_and_merging_on_spark_are_from_scratch(spark, cases):
    """The rounds' coalescing, and the aggregation's merge of equal
    segments (the same runs over another flag), on Spark."""
    from chronolog.connectors.spark_rounds.sql import Stmt, coalesce_sql, runs_sql

    for rows, steps in cases:
        rows = rows or [(0, 0, 1)]
        spark.createDataFrame(rows, "c0 bigint, s bigint, e bigint").createOrReplaceTempView("t")
        q = Stmt()
        src = q.add("SELECT * FROM t", ["c0", "s", "e"])
        got = sorted(tuple(r) for r in spark.sql(q.text(coalesce_sql(q, src, ["c0"]))).collect())
        assert got == maximal(rows), rows
        segs = segments_of(steps) or [(0, 0, 1, 0)]
        spark.createDataFrame(segs, "c0 bigint, s bigint, e bigint, a0 bigint").createOrReplaceTempView("u")
        q = Stmt()
        src = q.add("SELECT * FROM u", ["c0", "s", "e", "a0"])
        merged = runs_sql(q, src, coalescing.continues_equal(["c0"], ["a0"]), ["c0"], ("s",),
                          ["min(s) AS s", "max(e) AS e"], carried=["a0"])
        got = sorted(tuple(r) for r in spark.sql(q.text(merged)).collect())
        assert got == merged_from_scratch(segs), segs


def pieces_from_scratch(rows, holes):
    """Each row ``(k, s, e)`` minus the union of its key's holes, as the
    maximal pieces of the points left (the row's own pieces, row by row)."""
    covered = {}
    for k, s, e in holes:
        covered.setdefault(k, set()).update(range(s, e))
    out = []
    for k, s, e in rows:
        left = [p for p in range(s, e) if p not in covered.get(k, ())]
        out += [(k, a, b) for _, a, b in maximal([(k, p, p + 1) for p in left])]
    return sorted(out)


LONG_ROWS = st.lists(st.tuples(st.integers(0, 1), st.integers(0, 30), st.integers(1, 30)).map(lambda t: (t[0], t[1], t[1] + t[2])),
                    min_size=1, max_size=10)


@given(LONG_ROWS, INTERVALS)
@settings(max_examples=examples(200), deadline=None)
def test_difference_on_the_columns_is_from_scratch(rows, holes):
    """Negation's difference (columns/difference.subtract, its polars path:
    the gaps between a row's holes by the shared windows) against the
    points each row keeps."""
    from unittest import mock

    import polars as pl

    from chronolog.engine.columns import code_frames
    from chronolog.engine.columns.coalesce import coalesce
    from chronolog.engine.columns.difference import subtract

    schema = {"k": pl.Int64, "s": pl.Int64, "e": pl.Int64}
    df = pl.DataFrame(rows, schema=schema, orient="row")
    h = coalesce(pl.DataFrame(holes, schema=schema, orient="row"), ["k"]).rename({"s": "hs", "e": "he"})
    with mock.patch.object(code_frames, "CODE_ROWS", -1):
        got = subtract(df, h, ["k"])
    assert sorted(got.rows()) == pieces_from_scratch(rows, holes)


@pytest.mark.spark
@given(st.lists(st.tuples(INTERVALS, INTERVALS), min_size=1, max_size=4))
@settings(max_examples=examples(20), deadline=None)
def test_the_rounds_merge_flags_what_is_not_one_old_interval(spark, cases):
    """A round's merge (spark_rounds/merge.py) of a coalesced relation with
    new facts: the maximal intervals of both, each ``_fresh`` unless it is
    exactly one of the relation's intervals (which the next round's delta
    leaves out), against the union of points from scratch."""
    from chronolog.connectors.spark_rounds.merge import _recoalesced
    from chronolog.connectors.spark_rounds.sql import Stmt

    for old_rows, new_rows in cases:
        old = maximal(old_rows)
        spark.createDataFrame(old or [(0, 0, 1)], "c0 bigint, s bigint, e bigint").where("c0 >= 0" if old else "false") \
            .createOrReplaceTempView("old")
        spark.createDataFrame(new_rows or [(0, 0, 1)], "c0 bigint, s bigint, e bigint").createOrReplaceTempView("new")
        new_rows = new_rows or [(0, 0, 1)]
        q = Stmt()
        merged = _recoalesced(q, q.add("SELECT * FROM old", ["c0", "s", "e"]), q.add("SELECT * FROM new", ["c0", "s", "e"]), ["c0"])
        got = sorted(tuple(r) for r in spark.sql(q.text(merged)).collect())
        assert got == [(k, s, e, (k, s, e) not in set(old)) for k, s, e in maximal(old + new_rows)], (old, new_rows)
