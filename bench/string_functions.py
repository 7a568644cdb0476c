"""A string-heavy rule on columns: ``r(X, Y) :- p(X, S), Y =
upper(substr(concat(S, "x"), 1, 4)).`` over ``--facts`` facts of distinct
words (Latin with accents, ß, Greek), read from and written to Arrow
tables, beside the path it replaced in the same run (the rows' closures
once per distinct value, engine/columns/distinct_calls.py: the string
kernels switched off) and Polars' string operations written by hand on
the same table (the peer: ``(s + "x").str.slice(1, 4).str.to_uppercase()``,
which maps ``ß`` as Python does).

    python bench/string_functions.py --facts 200000 1000000 --repeat 5

CPU seconds of the process (median of ``--repeat``), each way alternating;
the three answers are compared.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyarrow as pa  # noqa: E402
import polars as pl  # noqa: E402

import chronolog  # noqa: E402
from chronolog.engine.columns import linear  # noqa: E402
from chronolog.engine.columns.encoding import Fallback  # noqa: E402

PROGRAM = 'r(X, Y) :- p(X, S), Y = upper(substr(concat(S, "x"), 1, 4)).\n@output("r").\n'
ALPHABET = "abcdefghijklmnopqrstuvwxyzéàüßαβγΣ"


def table(n: int, seed: int = 1):
    rnd = random.Random(seed)
    words = ["".join(rnd.choice(ALPHABET) for _ in range(rnd.randint(3, 12))) for _ in range(n)]
    return pa.table({"c0": [f"n{i}" for i in range(n)], "c1": words, "start": pa.array([0] * n, pa.int64()),
                     "end": pa.array([10] * n, pa.int64()), "start_closed": [True] * n, "end_closed": [True] * n})


def chronolog_run(t):
    return chronolog.reason(PROGRAM, {"p": t}, engine="columns").to_arrow("r")


def closures_run(t):
    """The replaced path: the string kernels refuse, the rows' closures run."""
    def refuse(*_):
        raise Fallback("switched off")
    kept = linear.strings
    linear.strings = refuse
    try:
        return chronolog_run(t)
    finally:
        linear.strings = kept


def polars_run(t):
    df = pl.from_arrow(t)
    out = df.select("c0", (pl.col("c1") + "x").str.slice(1, 4).str.to_uppercase().alias("c1"),
                    "start", "end", "start_closed", "end_closed")
    return out.to_arrow()


def answers(t):
    return sorted(zip(t.column("c0").to_pylist(), t.column("c1").to_pylist()))


def cpu(fn, t):
    c0 = time.process_time()
    out = fn(t)
    return time.process_time() - c0, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--facts", type=int, nargs="+", default=[200000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args()
    for n in args.facts:
        t = table(n)
        ways = {"kernels": chronolog_run, "closures": closures_run, "polars": polars_run}
        times = {k: [] for k in ways}
        outs = {}
        for _ in range(args.repeat):
            for k, fn in ways.items():
                c, outs[k] = cpu(fn, t)
                times[k].append(c)
        same = answers(outs["kernels"]) == answers(outs["closures"]) == answers(outs["polars"])
        load = os.getloadavg()[0]
        row = {"facts": n, **{f"{k}_cpu": median(v) for k, v in times.items()}, "same": same, "load": load}
        print(f"{n} facts: string kernels {row['kernels_cpu']:.3f} s, rows' closures {row['closures_cpu']:.3f} s, "
              f"Polars by hand {row['polars_cpu']:.3f} s (CPU, median of {args.repeat}); same answers: {same}; load {load:.1f}")
        if args.json:
            with open(args.json, "a") as f:
                f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
