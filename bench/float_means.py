"""A rolling mean of a float sensor series on columns: the correctly
rounded mean (engine/columns/float_mean.py) beside the same step with one
Python int division per segment (what it replaced), the float sum divided
by the count (rounded twice: the figure before means were exact), and
pandas' rolling mean, on the same segments in the same run.

    python bench/float_means.py --segments 200000 1000000 --repeat 5

The timed step is the columns' mean of every segment (the exact sums and
the division: aggregate._exact_float_sum), the segments of a 20-point
window over ``segments`` points.  The answers of the first two are
compared bit for bit; those of the twice-rounded mean counted where they
differ.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from chronolog.engine.columns import aggregate, float_mean  # noqa: E402


def python_division(hi, lo, k, n):
    """The replaced step: each segment's exact sum over its count by Python's
    int / int."""
    return np.array([float_mean.exact_mean(h, l, k, c) for h, l, c in zip(hi.tolist(), lo.tolist(), n.tolist())])


def segments(points: int, window: int, seed: int):
    """A rolling window's segments: row i covers segments [i, i + window)."""
    rng = np.random.default_rng(seed)
    v = np.round(rng.uniform(12.0, 40.0, points), 2)
    i_s = np.arange(points, dtype=np.int64)
    i_e = i_s + window
    m = points + window
    count = aggregate._range_sum(m, i_s, i_e, np.ones(points, dtype=np.int64))
    seg = np.flatnonzero(count[: m - 1] > 0)
    return v, i_s, i_e, m, seg, count[seg]


def timed(fn, repeat):
    walls, cpus, out = [], [], None
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return median(walls), median(cpus), out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--segments", type=int, nargs="+", default=[200_000, 1_000_000])
    ap.add_argument("--window", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", help="append one JSON line per size")
    args = ap.parse_args(argv)
    import pandas as pd

    print(f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for points in args.segments:
        v, i_s, i_e, m, seg, n = segments(points, args.window, 1)
        most = args.window

        def mean():
            return aggregate._exact_float_sum(m, i_s, i_e, v, seg, most, n)

        def twice_rounded():
            return aggregate._exact_float_sum(m, i_s, i_e, v, seg, most) / n

        def replaced():
            kept = float_mean.float_means
            float_mean.float_means = python_division
            try:
                return aggregate._exact_float_sum(m, i_s, i_e, v, seg, most, n)
            finally:
                float_mean.float_means = kept

        series = pd.Series(v)
        figures = {}
        for name, fn in (("vectorised", mean), ("python", replaced), ("twice_rounded", twice_rounded),
                         ("pandas", lambda: series.rolling(args.window, min_periods=1).mean().to_numpy())):
            figures[name] = timed(fn, args.repeat)
        new, old, twice = figures["vectorised"][2], figures["python"][2], figures["twice_rounded"][2]
        assert new.tobytes() == old.tobytes(), "the vectorised mean differs from the exact division"
        print(f"{len(seg):,} segments ({points:,} points, window {args.window}; load {os.getloadavg()[0]:.1f}):")
        for name, (w, c, _) in figures.items():
            print(f"  {name:<14} {w * 1000:8.1f} ms wall {c * 1000:8.1f} ms CPU")
        differ = int((twice != new).sum())
        print(f"  twice rounded: {differ:,} of {len(seg):,} means differ from the exact mean")
        if args.json:
            row = {"segments": len(seg), "load": os.getloadavg()[0], "twice_rounded_differ": differ}
            row.update({f"{k}_s": f[0] for k, f in figures.items()} | {f"{k}_cpu": f[1] for k, f in figures.items()})
            with open(args.json, "a") as f:
                f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
