"""The sensor recipe over a pandas DataFrame: the default engine against rows and columns forced.

    python bench/sensor_readings.py [--readings 5000 12000 30000] [--machines 20] [--repeat 3]

The program of docs/recipes.md, "Sensor readings at time points" (Since,
negation under a diamond, a box, time capture, a count per shift), over
readings at irregular instants to the second, counted in minutes
(``@timeGranularity("minutes")``: most times fall between units, exact
fractions), 20 machines over 7 days, shifts and machines as fact text.
Per size, one call as a user writes it in a notebook is timed whole:
``chronolog.reason(program, {"reading": frame})`` and every output as a
pandas DataFrame (``model.to_pandas(p)``), in three sides: the default
(``engine`` not given: auto's choice), ``engine="rows"`` and
``engine="columns"``.  Each side is a child process of its own; its first
call (imports and all, what a script pays) is timed apart, then the calls
alternate between the sides (bench/sides.py).  Reported: the first call and
the best and median of the rest, wall and CPU; the answers of the sides
compared as sets of facts.  The figure: the default's median against the
faster of the two forced engines (auto should pick it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from sides import alternating_calls, reply  # noqa: E402  (bench/sides.py)

PROGRAM = """@timeGranularity("minutes").
@timeMapping("reading", 2, 2).
@output("current"). @output("alert"). @output("gap"). @output("perShift").
any(M) :- reading(M, V).
quiet(M) :- machine(M), not any(M).
held(M, V) :- quiet(M) <S>(0,10] reading(M, V).
current(M, V) :- reading(M, V).
current(M, V) :- held(M, V), not any(M).
hot(M) :- current(M, V), V > 80.
alert(M) :- [-][0,5] hot(M).
gap(M) :- machine(M), not <->[0,5] any(M).
r(M, T, V) :- reading(M, V)@[T, _].
inShift(S, M, T)@[A, B) :- shift(S)@[A, B], r(M, T, V).
perShift(S, M, N) :- inShift(S, M, T), N = count().
"""
OUTPUTS = ("current", "alert", "gap", "perShift")
DAYS = 7


def program(machines: int) -> str:
    """The rules, then each machine's week and three shifts a day as facts."""
    import datetime as dt

    day0 = dt.datetime(2024, 1, 1)
    facts = [f"machine(m{i})@[{day0.isoformat()},{(day0 + dt.timedelta(days=DAYS)).isoformat()}]." for i in range(machines)]
    for d in range(DAYS):
        for h in range(3):
            a, b = day0 + dt.timedelta(days=d, hours=8 * h), day0 + dt.timedelta(days=d, hours=8 * h + 8)
            facts.append(f"shift(s{d}_{h})@[{a.isoformat()},{b.isoformat()}).")
    return PROGRAM + "\n".join(facts) + "\n"


def readings(n: int, machines: int, seed: int):
    """``n`` readings (machine, value, timestamp to the second), one per
    machine and instant, as a pandas DataFrame."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "m": [f"m{i}" for i in rng.integers(0, machines, n)],
        "v": rng.integers(40, 101, n),
        "t": pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, DAYS * 86400, n), unit="s"),
    })
    return df.drop_duplicates(["m", "t"]).reset_index(drop=True)


def call(engine: str, prog: str, frame) -> dict:
    import chronolog

    kw = {} if engine == "default" else {"engine": engine}
    model = chronolog.reason(prog, {"reading": frame}, **kw)
    return {p: model.to_pandas(p) for p in OUTPUTS}


def answers(frames: dict) -> list:
    out = []
    for p, df in frames.items():
        out.extend(sorted(repr((p, row)) for row in df.itertuples(index=False)))
    return out


def serve(engine: str, n: int, machines: int, seed: int, answers_path: Path) -> None:
    """A child: the first call timed apart, then one timed call per ``call`` line."""
    frame, prog = readings(n, machines, seed), program(machines)  # (pandas imported: the user has it)
    c0, t0 = time.process_time(), time.perf_counter()
    got = call(engine, prog, frame)
    print(json.dumps({"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0, "rows": len(frame)}), flush=True)
    for line in sys.stdin:
        if line.strip() != "call":
            break
        c0, t0 = time.process_time(), time.perf_counter()
        got = call(engine, prog, frame)
        print(json.dumps({"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}), flush=True)
    answers_path.write_text("\n".join(answers(got)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--readings", type=int, nargs="+", default=[5000, 12000, 30000])
    ap.add_argument("--machines", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", help="write one JSON line per size to this file")
    ap.add_argument("--serve", help=argparse.SUPPRESS)
    ap.add_argument("--answers", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.serve:
        serve(args.serve, args.readings[0], args.machines, args.seed, Path(args.answers))
        return 0
    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix="sensor_readings_"))
    ok = True
    for n in args.readings:
        children, first = {}, {}
        labels = ["default", "rows", "columns"]
        for label in labels:
            cmd = [sys.executable, __file__, "--serve", label, "--readings", str(n), "--machines", str(args.machines),
                   "--seed", str(args.seed), "--answers", str(tmp / f"{label}_{n}.txt")]
            children[label] = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                               env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
            first[label] = reply(children[label])
        print(f"{first['default']['rows']} readings of {args.machines} machines over {DAYS} days; load {os.getloadavg()[0]:.1f}", flush=True)
        results = {label: [] for label in labels}
        for _, label, r in alternating_calls(children, labels, args.repeat):
            results[label].append(r)
        for child in children.values():
            child.stdin.write("quit\n")
            child.stdin.close()
            child.wait()
        got = {label: (tmp / f"{label}_{n}.txt").read_text() for label in labels}
        same = len(set(got.values())) == 1
        ok = ok and same
        med = {k: (statistics.median(r["wall"] for r in rs), statistics.median(r["cpu"] for r in rs)) for k, rs in results.items()}
        for label in labels:
            f = first[label]
            print(f"  {label:8s} first call {f['wall']:.2f} s wall / {f['cpu']:.2f} s CPU; "
                  f"then median {med[label][0]:.3f} s / {med[label][1]:.3f} s, best {min(r['wall'] for r in results[label]):.3f} s")
        faster = min(("rows", "columns"), key=lambda k: med[k][0])
        ratio = med["default"][0] / med[faster][0]
        first_ratio = first["default"]["wall"] / min(first[k]["wall"] for k in ("rows", "columns"))
        print(f"  default / {faster} (the faster forced): {ratio:.2f}x median wall, first call {first_ratio:.2f}x; "
              f"answers: {got['rows'].count(chr(10)) + 1} facts, the same on every side: {same}", flush=True)
        if args.json:
            with open(args.json, "a") as fh:
                fh.write(json.dumps({"readings": first["default"]["rows"], "first": {k: v["wall"] for k, v in first.items()},
                                     "median": {k: v[0] for k, v in med.items()}, "cpu": {k: v[1] for k, v in med.items()},
                                     "faster": faster, "ratio": ratio, "first_ratio": first_ratio, "same": same}) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
