"""The paths of each interval operation of the columnar executor, side by
side on frames of 1k to 5M rows, one or three key columns, with or without
a float value column (docs/design.md, "Kernels"): a join, a difference and
Since (engine/columns/code_frames.py) with their row pairs found by a sort
of the keys in numpy or by a polars hash join (``/hash``; ``/query``: the
whole join as the polars query it once was), and the interval moves
(shift, box, closure) in numpy or as a polars query (code_frames.ends).

Each figure is the process CPU time (and wall time) of one call, the best
of ``--repeat``, on the same inputs, both paths in one process.

    python bench/frame_paths.py [--rows 1000 100000 1000000 5000000] [--keys 1 3] [--ops join ...]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))


def relation(n, keys, seed):
    """``n`` rows of ``keys`` code columns (about one partner a row on the
    other side), an extra code column, and intervals on the doubled grid."""
    import numpy as np
    import polars as pl

    rng = np.random.default_rng(seed)
    cols = {f"v:k{i}": rng.integers(0, max(1, int(round(n ** (1 / keys)))), n) for i in range(keys)}
    cols[f"v:x{seed}"] = rng.integers(0, 1000, n)
    lo = rng.integers(0, 20000, n)
    s = 2 * lo + rng.integers(0, 2, n)
    e = np.maximum(2 * (lo + rng.integers(0, 400, n)) + rng.integers(0, 2, n), s + 1)
    return pl.DataFrame({**cols, "s": s, "e": e})


def timed(fn, repeat):
    best = (float("inf"), float("inf"))
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        best = min(best, (time.process_time() - c0, time.perf_counter() - w0))
    return best


def operations(n, keys, floats=False):
    """``{name: (numpy call, polars call)}`` on one pair of relations (with
    a float value column each where ``floats``)."""
    import polars as pl

    from chronolog.engine.columns import code_frames
    from chronolog.engine.columns.coalesce import coalesce
    from chronolog.engine.interval_shift import box, closure, shift

    a, b = relation(n, keys, 1), relation(n, keys, 2)
    if floats:
        a, b = (r.with_columns((pl.col(f"v:x{i}") / 7).alias(f"v:f{i}")) for i, r in ((1, a), (2, b)))
    shared = [f"v:k{i}" for i in range(keys)]
    holes = coalesce(b.select(*shared, "s", "e"), shared).rename({"s": "hs", "e": "he"})
    close = dict(zip(("cs", "ce"), closure()))
    left = code_frames.ends(coalesce(b.select(*shared, "s", "e"), shared), close, ("s", "e"))
    w = (4, 20, True, False)

    def polars_join():  # (the polars query join.py ran past SORT_ROWS before the pairs did)
        r = b.rename({"s": "s_r", "e": "e_r"})
        j = a.join(r, on=shared, how="inner")
        j = j.with_columns(pl.max_horizontal("s", "s_r").alias("s"), pl.min_horizontal("e", "e_r").alias("e")).drop("s_r", "e_r")
        return j.filter(pl.col("s") < pl.col("e"))

    def pair_ops(way):
        return (lambda: code_frames.join(a, b, shared, way), lambda: code_frames.subtract(a, holes, shared, way),
                lambda: code_frames.since(a, left, shared, w, way))

    by_sort, by_hash = pair_ops("numpy"), pair_ops("polars")
    moves = {
        **{name: tuple(lambda t=t, way=way: code_frames.ends(a, dict(zip("se", t(w))), moved=True, way=way) for way in ("numpy", "polars"))
           for name, t in (("shift", shift), ("box", box))},
        "close": tuple(lambda way=way: code_frames.ends(b, close, ("s", "e"), way=way) for way in ("numpy", "polars")),
    }
    return {
        "join": by_sort[0], "join/hash": by_hash[0], "join/query": polars_join,
        "difference": by_sort[1], "difference/hash": by_hash[1],
        "since": by_sort[2], "since/hash": by_hash[2],
    }, moves


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, nargs="+", default=[1000, 100_000, 1_000_000, 5_000_000])
    p.add_argument("--keys", type=int, nargs="+", default=[1, 3])
    p.add_argument("--ops", nargs="+", default=None)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--floats", type=int, nargs="+", default=[0], help="0: codes only; 1: a float value column each side")
    p.add_argument("--sort-rows", type=int, default=1_000_000, help="no sort of keys past this many rows")
    args = p.parse_args(argv)
    import polars as pl  # noqa: F401

    print(f"load {os.getloadavg()[0]:.1f}; figures: CPU s / wall s, best of {args.repeat}")
    print("pairs: a sort of the keys in numpy, against /hash (a polars join of keys and row numbers) and /query (the whole join as a polars query);")
    print("moves: numpy against a polars query (temporal.py, since.py)")
    for n in args.rows:
        for k in args.keys:
            for floats in args.floats:
                pairs, moves = operations(n, k, floats)
                want = {}
                for name, fn in [*pairs.items(), *((m, f) for m, (f, _) in moves.items()), *((m + "/polars", f) for m, (_, f) in moves.items())]:
                    op = name.split("/")[0]
                    if args.ops and op not in args.ops or "/" not in name and op in pairs and n > args.sort_rows:
                        continue
                    got = fn()
                    height = got.height if got is not None else 0
                    assert want.setdefault(op, height) == height, (name, want[op], height)
                    c, w = timed(fn, args.repeat)
                    print(f"{name:<16}{n:>9} rows {k} keys{' floats' if floats else ''}: {c:.4f} CPU s, {w:.4f} s, {height} rows", flush=True)
    print(f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
