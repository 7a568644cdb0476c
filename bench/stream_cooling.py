"""Laser's cooling benchmark (REFERENCE §6 item 9, seed 004 Fig. 4) on a stream.

    python bench/stream_cooling.py [--points 300] [--rates 200,400,800] [--windows 1,20,40,80]

``temp(V)`` with V uniform in [0, 200] arrives at R atoms per time point; the
watermark advances after each time point and the final answers are taken.
Reports CPU microseconds per input atom (push + evaluate + take) and the peak
number of facts (maximal intervals) held in memory.

Left out: ``veryHot(T)`` and ``veryCold(T)``, which need the time as a term
(interval-to-term unwrapping, another issue).  LARS's ``⊞n □ a`` is
``[-][0,n] a``; Laser also clips the window at the stream start, so its
``alarm`` can hold in the first n time points where ours cannot.
"""

from __future__ import annotations

import argparse
import random
import time

import chronolog

PROGRAM = """
steam(V)  :- temp(V), V >= 100.
liquid(V) :- temp(V), V >= 1, V < 100.
isSteam   :- steam(V).
isLiquid  :- liquid(V).
alarm     :- [-][0,{n}] isSteam.
normal    :- [-][0,{n}] isLiquid.
freeze    :- not alarm, not normal.
"""


def stream_data(rate: int, points: int, seed: int = 4):
    rnd = random.Random(seed)
    # a reading at time point t holds on [t, t+1): LARS's discrete time on
    # the rational timeline, so that `[-][0,n] isSteam` means "at every time
    # point of the last n" as in Laser
    return [[((rnd.randint(0, 200),), (t, t + 1, True, False)) for _ in range(rate)] for t in range(points)]


def run(window: int, rate: int, points: int, seed: int = 4) -> dict:
    data = stream_data(rate, points, seed)
    s = chronolog.Stream(PROGRAM.format(n=window))
    cpu = 0.0
    out = 0
    peak = 0
    for t, rows in enumerate(data):
        t0 = time.process_time()
        s.push_rows({"temp": rows})
        s.advance(t)
        out += len(s.take())
        cpu += time.process_time() - t0
        peak = max(peak, s.facts_in_memory())
    return {
        "window": window,
        "rate": rate,
        "points": points,
        "us_per_atom": cpu / (rate * points) * 1e6,
        "peak_facts": peak,
        "outputs": out,
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=300)
    ap.add_argument("--rates", default="200,400,800")
    ap.add_argument("--windows", default="1,20,40,80")
    a = ap.parse_args(argv)
    print("| window | atoms/time point | time points | µs per input atom | peak facts in memory | output facts |")
    print("|---:|---:|---:|---:|---:|---:|")
    for rate in map(int, a.rates.split(",")):
        for w in map(int, a.windows.split(",")):
            r = run(w, rate, a.points)
            print(f"| {w} | {rate} | {r['points']} | {r['us_per_atom']:.1f} | {r['peak_facts']} | {r['outputs']} |", flush=True)


if __name__ == "__main__":
    main()
