"""A rolling mean of a float sensor series on columns: the correctly
rounded mean (engine/columns/float_mean.py) beside the same step with one
Python int division per segment (what it replaced), the float sum divided
by the count (rounded twice: the figure before means were exact), and
pandas' rolling mean, on the same segments in the same run.

    python bench/float_means.py --segments 200000 1000000 --repeat 5
    python bench/float_means.py --segments 1000000 --span 6 --repeat 5

``--span S``: readings from 10**-S to 10**S (both signs), too far apart for
two limbs: the mean and the sum in K limbs beside the same step on Python
ints (the path such columns took before), bit for bit, and pandas.

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


def segments(points: int, window: int, seed: int, span: int = 0):
    """A rolling window's segments: row i covers segments [i, i + window).
    ``span``: readings of four digits from 10**-span to 10**span."""
    rng = np.random.default_rng(seed)
    v = np.round(rng.uniform(12.0, 40.0, points), 2)
    if span:
        v = rng.choice([-1.0, 1.0], points) * rng.integers(1000, 10000, points) * 10.0 ** rng.integers(-span - 3, span - 2, points)
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
    ap.add_argument("--span", type=int, default=0, help="readings from 10**-SPAN to 10**SPAN (wide_span)")
    ap.add_argument("--json", help="append one JSON line per size")
    args = ap.parse_args(argv)
    import pandas as pd

    print(f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for points in args.segments:
        v, i_s, i_e, m, seg, n = segments(points, args.window, 1, args.span)
        most = args.window
        if args.span:
            wide_span(args, v, i_s, i_e, m, seg, n, most, pd)
            continue

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


def wide_span(args, v, i_s, i_e, m, seg, n, most, pd):
    """Readings too far apart for two limbs: the sum and the mean in K limbs
    beside the Python int path (taken when a segment has 2**28 rows or
    more, and before K limbs by every such column)."""
    python = 1 << 28
    series = pd.Series(v).rolling(args.window, min_periods=1)
    steps = {
        "mean": lambda: aggregate._exact_float_sum(m, i_s, i_e, v, seg, most, n),
        "python_mean": lambda: aggregate._exact_float_sum(m, i_s, i_e, v, seg, python, n),
        "pandas_mean": lambda: series.mean().to_numpy(),
        "sum": lambda: aggregate._exact_float_sum(m, i_s, i_e, v, seg, most),
        "python_sum": lambda: aggregate._exact_float_sum(m, i_s, i_e, v, seg, python),
        "pandas_sum": lambda: series.sum().to_numpy(),
    }
    figures = {name: timed(fn, args.repeat) for name, fn in steps.items()}
    for what in ("mean", "sum"):
        assert figures[what][2].tobytes() == figures[f"python_{what}"][2].tobytes(), f"the K-limb {what} differs from Python's"
    print(f"{len(seg):,} segments ({len(v):,} readings from 1e-{args.span} to 1e{args.span}, window {args.window}; load {os.getloadavg()[0]:.1f}):")
    for name, (w, c, _) in figures.items():
        print(f"  {name:<14} {w * 1000:8.1f} ms wall {c * 1000:8.1f} ms CPU")
    if args.json:
        row = {"segments": len(seg), "span": args.span, "load": os.getloadavg()[0]}
        row.update({f"{k}_s": f[0] for k, f in figures.items()} | {f"{k}_cpu": f[1] for k, f in figures.items()})
        with open(args.json, "a") as f:
            f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
