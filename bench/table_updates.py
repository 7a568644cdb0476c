"""Small updates of a model over a table given from Python, against reasoning from scratch.

    python bench/table_updates.py [--rows 1000000] [--kinds ints floats distinct_floats count] [--repeat 3]

A :class:`chronolog.Reasoner` holds the model of a pandas table of sensor
readings (``p(sensor, value)``, 20,000 sensors, integer, float or all
distinct float values) and two rules (a reading kept, and its key within
50 time units after it); ``count``: integer values and a count of each
sensor's readings at each time instead (an aggregate of what changes: the
stratum recomputed, for the sensors the update touched).  Three new readings are added and taken back,
``--repeat`` times; the first add and the first retraction of the session
are timed apart (they build the model's indexes), the others give a
median.  The peer is ``chronolog.reason`` from scratch on the same table
in the same process (CPU, median of ``--repeat``).  After the updates the
model is checked equal to reasoning from scratch on the table as it is.
"""

from __future__ import annotations

import argparse
import os
import time
from statistics import median

import numpy as np
import pandas as pd

import chronolog

PROGRAM = 'hot(K, V) :- p(K, V).\nwarm(K) :- <->[0,50] hot(K, V).\n@output("warm").\n'
COUNT = 'n(K, N) :- p(K, V), N = count(V).\n@output("n").\n'


def table(n: int, kind: str, seed: int = 1):
    rng = np.random.default_rng(seed)
    start = rng.integers(0, 10**6, n)
    value = rng.integers(0, 100, n)
    values = {"ints": value, "count": value, "floats": value / 4, "distinct_floats": rng.random(n)}[kind]
    return pd.DataFrame({"k": [f"k{v}" for v in rng.integers(0, 20_000, n)], "v": values,
                         "start": start, "end": start + rng.integers(1, 1000, n)})


def cpu(call):
    started = time.process_time()
    out = call()
    return time.process_time() - started, out


def run(n: int, kind: str, repeat: int) -> dict:
    base = table(n, kind)
    program, out = (COUNT, "n") if kind == "count" else (PROGRAM, "warm")
    scratch = [cpu(lambda: chronolog.reason(program, {"p": base}))[0] for _ in range(repeat)]
    load, r = cpu(lambda: chronolog.Reasoner(program, {"p": base}))
    adds, retracts = [], []
    for i in range(repeat + 1):
        new = table(3, kind, seed=100 + i).assign(start=5 * i, end=5 * i + 2)
        adds.append(cpu(lambda: r.add({"p": new}))[0])
        retracts.append(cpu(lambda: r.retract({"p": new}))[0])
    same = r.model.to_arrow(out).equals(chronolog.reason(program, {"p": base}).to_arrow(out))
    return {"kind": kind, "scratch": median(scratch), "load": load, "first_add": adds[0], "add": median(adds[1:]),
            "first_retract": retracts[0], "retract": median(retracts[1:]), "on": r.model.stats["maintained_on"], "same": same}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--kinds", nargs="*", default=["ints", "floats", "distinct_floats", "count"])
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    print(f"load before: {os.getloadavg()[0]:.1f}; {a.rows:,} readings, CPU seconds")
    print("| values | scratch | Reasoner | first add | add | first retract | retract | first add / scratch | maintained on | same |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for kind in a.kinds:
        f = run(a.rows, kind, a.repeat)
        print(f"| {kind} | {f['scratch']:.3f} | {f['load']:.3f} | {f['first_add']:.3f} | {f['add']:.3f} | "
              f"{f['first_retract']:.3f} | {f['retract']:.3f} | {f['first_add'] / f['scratch']:.2f}x | {f['on']} | "
              f"{'yes' if f['same'] else 'NO'} |", flush=True)
    print(f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (after)")


if __name__ == "__main__":
    main()
