"""Laser's cooling benchmark (Laser's paper, Fig. 4) on a stream.

    python bench/stream_cooling.py [--points 300] [--rates 200,400,800] [--windows 1,20,40,80] [--between]

``temp(V)`` with V uniform in [0, 200] arrives at R atoms per time point; the
watermark advances after each time point and the final answers are taken.
Reports CPU microseconds per input atom (push + evaluate + take) and the peak
number of facts (maximal intervals) held in memory.  ``--between``: the
same stream with every time a third of a unit later (exact fractions, as
readings between a timeline's units are), side by side with the whole
times in the same run, alternating, and their ratio.

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


def stream_data(rate: int, points: int, seed: int = 4, offset=0):
    rnd = random.Random(seed)
    # a reading at time point t holds on [t, t+1): LARS's discrete time on
    # the rational timeline, so that `[-][0,n] isSteam` means "at every time
    # point of the last n" as in Laser (``offset``: every time that much later)
    return [[((rnd.randint(0, 200),), (t + offset, t + 1 + offset, True, False)) for _ in range(rate)] for t in range(points)]


def run(window: int, rate: int, points: int, seed: int = 4, offset=0) -> dict:
    data = stream_data(rate, points, seed, offset)
    s = chronolog.Stream(PROGRAM.format(n=window))
    cpu = 0.0
    out = 0
    peak = 0
    for t, rows in enumerate(data):
        t0 = time.process_time()
        s.push_rows({"temp": rows})
        s.advance(t + offset)
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


def run_command(window: int, rate: int, points: int, seed: int = 4) -> dict:
    """The whole command: ``chronolog stream PROGRAM --input FILE`` in a
    subprocess (start-up, reading, reasoning, printing), CPU per input atom."""
    import resource
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    from chronolog.language.text import format_fact

    with tempfile.TemporaryDirectory(prefix="stream_cooling_") as tmp:
        prog, data = Path(tmp) / "cooling.vada", Path(tmp) / "temp.facts"
        prog.write_text(PROGRAM.format(n=window))
        with open(data, "w") as fh:
            for rows in stream_data(rate, points, seed):
                fh.writelines(format_fact("temp", t, iv) + ".\n" for t, iv in rows)
        exe = Path(sys.executable).with_name("chronolog")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        p = subprocess.run([str(exe), "stream", str(prog), "--input", str(data)], capture_output=True, text=True)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode != 0:
            raise RuntimeError(p.stderr)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    n = rate * points
    return {"window": window, "rate": rate, "points": points, "us_per_atom": cpu / n * 1e6,
            "wall_us_per_atom": wall / n * 1e6, "outputs": p.stdout.count("\n")}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=300)
    ap.add_argument("--rates", default="200,400,800")
    ap.add_argument("--windows", default="1,20,40,80")
    ap.add_argument("--command", action="store_true", help="measure the whole `chronolog stream` command instead of the API")
    ap.add_argument("--between", action="store_true", help="times a third of a unit later, against whole times (same run)")
    a = ap.parse_args(argv)
    if a.between:
        from fractions import Fraction

        print("| window | atoms/time point | time points | µs per atom, whole times | µs, times between units | ratio | as many answers |")
        print("|---:|---:|---:|---:|---:|---:|---|")
        for rate in map(int, a.rates.split(",")):
            for w in map(int, a.windows.split(",")):
                runs = {0: [], 1: []}
                for _ in range(3):  # (alternating; the best of three each)
                    for k, offset in ((0, 0), (1, Fraction(1, 3))):
                        runs[k].append(run(w, rate, a.points, offset=offset))
                whole, between = (min(r["us_per_atom"] for r in runs[k]) for k in (0, 1))
                same = runs[0][0]["outputs"] == runs[1][0]["outputs"]
                print(f"| {w} | {rate} | {a.points} | {whole:.1f} | {between:.1f} | {between / whole:.2f}x | {same} |", flush=True)
        return
    if a.command:
        print("| window | atoms/time point | time points | CPU µs per input atom (whole command) | wall µs | output lines |")
        print("|---:|---:|---:|---:|---:|---:|")
        for rate in map(int, a.rates.split(",")):
            for w in map(int, a.windows.split(",")):
                r = run_command(w, rate, a.points)
                print(f"| {w} | {rate} | {r['points']} | {r['us_per_atom']:.1f} | {r['wall_us_per_atom']:.1f} | {r['outputs']} |", flush=True)
        return
    print("| window | atoms/time point | time points | µs per input atom | peak facts in memory | output facts |")
    print("|---:|---:|---:|---:|---:|---:|")
    for rate in map(int, a.rates.split(",")):
        for w in map(int, a.windows.split(",")):
            r = run(w, rate, a.points)
            print(f"| {w} | {rate} | {r['points']} | {r['us_per_atom']:.1f} | {r['peak_facts']} | {r['outputs']} |", flush=True)


if __name__ == "__main__":
    main()
