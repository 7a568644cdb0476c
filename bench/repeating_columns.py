"""Models that repeat forever on data-sized input: auto against the rows, in
the same run (issue 36).

Without a horizon a recursion through time is computed up to a bound that
doubles until the model repeats (engine/termination.py), in batches of keys.
Where the stratum is a recurrence (planner/recurrence.py) auto runs each
attempt on columns from the recurrences' threshold where it is expected to
derive enough facts (planner/input_size.py), else on rows; ``engine="rows"``
keeps the rows.  Four recurrences over ``--keys`` keys (a seed each, in
[0, 1000), and a driver of 5 to 60 time units):

* forward: ``p(X) :- <->[1,1] p(X), q(X).`` (a finite model, 35 facts a key,
  within q's facts, which all end: the program runs within the horizon
  they imply, engine/implied_horizon.py, no repetition searched);
* backward: the same with ``<+>`` (the same horizon; the columns sweep it
  in reversed time);
* cycle: ``p(X) :- <->[1,1] p(X).`` (a periodic model, one repeating fact a
  key, searched in batches of keys);
* spread: the cycle with the seeds spread over 10^9 units (a stretch of the
  search a key, each a few facts).

Each program runs ``--repeat`` times on each executor, alternating, in one
warm process (the columns' first call imports polars); CPU seconds
(``time.process_time``), the median, and whether the models are equal.

    python bench/repeating_columns.py [--keys 20000] [--repeat 2] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from fractions import Fraction
from statistics import median

import chronolog

PROGRAMS = {
    "forward": "p(X) :- s(X).\np(X) :- <->[1,1] p(X), q(X).",
    "backward": "p(X) :- s(X).\np(X) :- <+>[1,1] p(X), q(X).",
    "cycle": "p(X) :- s(X).\np(X) :- <->[1,1] p(X).",
    "spread": "p(X) :- s(X).\np(X) :- <->[1,1] p(X).",
}


def facts(name: str, keys: int) -> dict:
    rng = random.Random(7)
    out = {"s": [], "q": []}
    for i in range(keys):
        a, span = rng.randrange(10**9 if name == "spread" else 1000), rng.randrange(5, 60)
        out["s"].append(((f"k{i}",), (a, a + Fraction(1, 2))))
        if name in ("forward", "backward"):
            out["q"].append(((f"k{i}",), (a - span, a + 1) if name == "backward" else (a, a + span)))
    return out


def timed(program, given, engine):
    c = time.process_time()
    m = chronolog.reason(program, given, engine=engine)
    c = time.process_time() - c
    ran = sorted(set(m.stats["executors"].values()))  # (a finite model run once has no component: its stratum's executor)
    return c, m, ran


def alternating(repeat: int, run) -> tuple:
    """``run(engine)`` (``(cpu, model, ran)``) on rows and auto, alternating
    ``repeat`` times: each side's CPU seconds, last model and executors."""
    cpu = {"rows": [], "auto": []}
    models, ran = {}, {}
    for _ in range(repeat):
        for engine in ("rows", "auto"):
            c, m, r = run(engine)
            cpu[engine].append(c)
            models[engine], ran[engine] = m, r
    return cpu, models, ran


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keys", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--json")
    args = ap.parse_args()
    print(f"keys {args.keys:,}; load {os.getloadavg()[0]:.1f}")
    print(f"{'program':9} {'facts':>7} {'rows CPU':>9} {'auto CPU':>12} {'ratio':>6}  ran on        same model")
    for name, program in PROGRAMS.items():
        given = facts(name, args.keys)
        n = sum(len(v) for v in given.values())
        cpu, models, ran = alternating(args.repeat, lambda engine: timed(program, given, engine))
        same = (models["rows"].facts("p") == models["auto"].facts("p")
                and models["rows"].repeating("p") == models["auto"].repeating("p"))
        r, c = median(cpu["rows"]), median(cpu["auto"])
        print(f"{name:9} {n:7} {r:8.2f}s {c:11.2f}s {r / c:5.1f}x  {'/'.join(ran['rows'])} vs {'/'.join(ran['auto']):8} {same}",
              flush=True)
        if args.json:
            with open(args.json, "a") as f:
                f.write(json.dumps({"program": name, "facts": n, "rows_cpu": cpu["rows"], "columns_cpu": cpu["auto"],
                                    "ran": ran["auto"], "same": same, "load": os.getloadavg()[0]}) + "\n")
    print(f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
