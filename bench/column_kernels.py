"""Micro-benchmark of the kernels the columnar executor needs, in three
libraries, on the same ~1M-row inputs (docs/design.md, "The columnar executor").

Intervals are encoded as in engine/columns: ``s = 2*lo + (0 if closed else 1)``,
``e = 2*hi + (1 if closed else 0)``; an interval is the integer range [s, e).

* join: hash join of two relations on an integer key, then interval
  intersection (s = max, e = min, keep s < e);
* coalesce: sort by (key, s), running maximum of e per key, a new group where
  s lies beyond it, then min s / max e per group;
(Negation as interval difference is a join with the holes plus a sort, so
it follows the join and the sort; engine/columns/difference.py.)

    python bench/column_kernels.py [ROWS]
"""

from __future__ import annotations

import sys
import time


def data(n, seed=1):
    import numpy as np

    rng = np.random.default_rng(seed)
    k = rng.integers(0, n // 5, n)
    lo = rng.integers(0, 2000, n)
    ln = rng.integers(0, 20, n)
    s = 2 * lo + rng.integers(0, 2, n)
    e = 2 * (lo + ln) + rng.integers(0, 2, n)
    e = np.maximum(e, s + 1)
    return k, s, e


def polars_kernels(a, b):
    import polars as pl

    A = pl.DataFrame({"k": a[0], "s": a[1], "e": a[2]})
    B = pl.DataFrame({"k": b[0], "s": b[1], "e": b[2]})
    out = {}
    t = time.perf_counter()
    j = A.join(B, on="k").select(
        "k", pl.max_horizontal("s", "s_right").alias("s"), pl.min_horizontal("e", "e_right").alias("e")
    ).filter(pl.col("s") < pl.col("e"))
    out["join"] = (time.perf_counter() - t, j.height)
    t = time.perf_counter()
    c = A.sort("k", "s")
    c = c.with_columns(prev=pl.col("e").cum_max().shift(1).over("k"))
    c = c.with_columns(g=(pl.col("prev").is_null() | (pl.col("s") > pl.col("prev"))).cum_sum())
    c = c.group_by("g").agg(pl.col("k").first(), pl.col("s").min(), pl.col("e").max())
    out["coalesce"] = (time.perf_counter() - t, c.height)
    return out


def arrow_kernels(a, b):
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    A = pa.table({"k": a[0], "s": a[1], "e": a[2]})
    B = pa.table({"k": b[0], "s": b[1], "e": b[2]})
    out = {}
    t = time.perf_counter()
    j = A.join(B.rename_columns(["k", "s2", "e2"]), "k", join_type="inner")
    s = pc.max_element_wise(j["s"], j["s2"])
    e = pc.min_element_wise(j["e"], j["e2"])
    keep = pc.less(s, e)
    j = pa.table({"k": j["k"], "s": s, "e": e}).filter(keep)
    out["join"] = (time.perf_counter() - t, j.num_rows)
    t = time.perf_counter()
    idx = pc.sort_indices(A, [("k", "ascending"), ("s", "ascending")])
    c = A.take(idx)
    k = c["k"].to_numpy()
    s = c["s"].to_numpy()
    e = c["e"].to_numpy()
    # segmented running max (no segmented cumulative kernel in pyarrow):
    # offset each key's ends so that one global running max stays per key
    off = (k - k.min()) * (int(e.max() - s.min()) + 2)
    run = np.maximum.accumulate(e + off) - off
    newg = np.ones(len(k), bool)
    newg[1:] = (k[1:] != k[:-1]) | (s[1:] > run[:-1])
    g = np.cumsum(newg) - 1
    starts = np.flatnonzero(newg)
    res_e = np.maximum.reduceat(e, starts)
    out["coalesce"] = (time.perf_counter() - t, len(starts))
    _ = (g, res_e)
    return out


def duckdb_kernels(a, b):
    import duckdb
    import pyarrow as pa

    A = pa.table({"k": a[0], "s": a[1], "e": a[2]})
    B = pa.table({"k": b[0], "s": b[1], "e": b[2]})
    con = duckdb.connect()
    con.register("A", A)
    con.register("B", B)
    out = {}
    t = time.perf_counter()
    j = con.sql(
        "SELECT * FROM (SELECT A.k, greatest(A.s, B.s) s, least(A.e, B.e) e FROM A JOIN B USING (k)) WHERE s < e"
    ).to_arrow_table()
    out["join"] = (time.perf_counter() - t, j.num_rows)
    t = time.perf_counter()
    c = con.sql(
        """SELECT k, min(s) s, max(e) e FROM (
             SELECT *, sum(CASE WHEN prev IS NULL OR s > prev THEN 1 ELSE 0 END) OVER (ORDER BY k, s ROWS UNBOUNDED PRECEDING) g
             FROM (SELECT *, max(e) OVER (PARTITION BY k ORDER BY s ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) prev FROM A))
           GROUP BY g, k"""
    ).to_arrow_table()
    out["coalesce"] = (time.perf_counter() - t, c.num_rows)
    return out


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    a, b = data(n, 1), data(n, 2)
    for name, fn in (("polars", polars_kernels), ("pyarrow+numpy", arrow_kernels), ("duckdb", duckdb_kernels)):
        t = time.perf_counter()
        __import__(name.split("+")[0])
        imp = time.perf_counter() - t
        res = fn(a, b)
        print(f"{name:14s} import {imp:.3f}s  " + "  ".join(f"{k} {v[0]:.3f}s ({v[1]} rows)" for k, v in res.items()))


if __name__ == "__main__":
    main()
