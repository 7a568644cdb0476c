"""Where the interval operations on small frames of codes (engine/columns/
small_frames.py) stop beating polars: each operation on random frames of
N rows, in Python against polars, in the same run.

    python bench/small_frames.py [--rows 16 64 128 256 512 1024] [--repeat 30]

Figures: median CPU milliseconds per operation.
"""

from __future__ import annotations

import argparse
import os
import time
from statistics import median

import numpy as np
import polars as pl

from chronolog.engine.columns import difference, maintenance, small_frames
from chronolog.engine.columns.coalesce import coalesce

KEYS = ["0", "1"]


def frame(rng, n):
    s = rng.integers(0, 600, n)
    return pl.DataFrame({"0": rng.integers(0, n // 2 + 1, n), "1": rng.integers(0, 3, n), "s": s, "e": s + rng.integers(1, 40, n)})


def cpu_ms(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return median(times) * 1e3


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", nargs="+", type=int, default=[16, 64, 128, 256, 512, 1024])
    ap.add_argument("--repeat", type=int, default=30)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(1)
    print(f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; SMALL_ROWS = {small_frames.SMALL_ROWS}")
    print("| rows | operation | python ms | polars ms |")
    print("|---|---|---|---|")
    kept = small_frames.SMALL_ROWS
    for n in args.rows:
        df, other = frame(rng, n), coalesce(frame(rng, n), KEYS)
        holes = other.rename({"s": "hs", "e": "he"})
        ops = {
            "subtract": lambda: difference.subtract(df, holes, KEYS),
            "overlap": lambda: maintenance.overlap(df, other, KEYS),
            "overlapping": lambda: maintenance.overlapping(df, other, KEYS),
        }
        for name, fn in ops.items():
            small_frames.SMALL_ROWS = 10**9
            py = cpu_ms(fn, args.repeat)
            small_frames.SMALL_ROWS = -1
            pl_ = cpu_ms(fn, args.repeat)
            print(f"| {n} | {name} | {py:.3f} | {pl_:.3f} |")
    small_frames.SMALL_ROWS = kept
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
