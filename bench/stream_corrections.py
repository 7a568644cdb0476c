"""Corrections in a stream: the cooling program (bench/stream_cooling.py)
with retractions against the same stream append-only, in the same run.

    python bench/stream_corrections.py [--points 300] [--rates 200,800] [--windows 1,20,80] [--every 10] [--share 0.01]

Every ``--every`` time points, ``--share`` of the atoms of the time point
before (already evaluated and emitted) are retracted with
``Stream.retract``; the answers that no longer hold come out as retractions.
The append-only stream runs with corrections off (no ``reach_back``), the
other with ``reach_back`` = the program's window.
Reports CPU microseconds per input atom (push + retract + evaluate + take)
of both and their ratio (the issue's target: at most 2x), best of
``--repeat`` runs each, the two alternating.
"""

from __future__ import annotations

import argparse
import os
import random
import time

import chronolog

from stream_cooling import PROGRAM, stream_data


def run(window: int, rate: int, points: int, every: int, share: float, seed: int = 4) -> dict:
    data = stream_data(rate, points, seed)
    rnd = random.Random(seed + 1)
    # corrections on (reach back the program's window) only in the run that retracts
    s = chronolog.Stream(PROGRAM.format(n=window), reach_back=window if every else None)
    cpu = 0.0
    out = retracted = 0
    for t, rows in enumerate(data):
        t0 = time.process_time()
        s.push_rows({"temp": rows})
        s.advance(t)
        if every and t > 0 and t % every == 0:
            s.retract({"temp": rnd.sample(data[t - 1], max(1, int(share * rate)))})
        for f in s.take():
            retracted += f.retracted
            out += not f.retracted
        cpu += time.process_time() - t0
    return {"us_per_atom": cpu / (rate * points) * 1e6, "outputs": out, "retracted": retracted}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=300)
    ap.add_argument("--rates", default="200,800")
    ap.add_argument("--windows", default="1,20,80")
    ap.add_argument("--every", type=int, default=10)
    ap.add_argument("--share", type=float, default=0.01)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    load = os.getloadavg()[0]
    print("| window | atoms/time point | time points | append-only µs/atom | with corrections µs/atom | ratio | retracted answers |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for rate in map(int, a.rates.split(",")):
        for w in map(int, a.windows.split(",")):
            # the two alternate, so that a change of the machine's load meets both
            runs = [(run(w, rate, a.points, 0, 0), run(w, rate, a.points, a.every, a.share)) for _ in range(a.repeat)]
            plain = min((r[0] for r in runs), key=lambda r: r["us_per_atom"])
            fixed = min((r[1] for r in runs), key=lambda r: r["us_per_atom"])
            ratio = fixed["us_per_atom"] / plain["us_per_atom"]
            print(f"| {w} | {rate} | {a.points} | {plain['us_per_atom']:.1f} | {fixed['us_per_atom']:.1f} | "
                  f"{ratio:.2f}x | {fixed['retracted']} |", flush=True)
            load = max(load, os.getloadavg()[0])
    print(f"\nload {load:.1f} on {os.cpu_count()} cores (the highest 1-minute load average seen)")


if __name__ == "__main__":
    main()
