"""Readings to the millisecond: chronolog's whole command against pandas.

Sensor readings as an IoT export writes them, one every 137 ms round-robin
over 50 sensors, with an integer value, in three forms of the same data:

* ``csv_z``: a CSV file, ISO date-times to the millisecond in UTC
  (``2024-01-01T00:00:00.137Z``), bound by ``@bind``;
* ``csv_offset``: the same instants written at ``+01:00`` with a space
  (``2024-01-01 01:00:00.137+01:00``), as PostgreSQL and pandas write them;
* ``program``: the readings as facts inside the program file
  (``reading(s1, 72)@2024-01-01T00:00:00.137Z.``).

The job: a sensor is in alert while one of its readings above 90 is at
most a second old (``alert(S) :- <->[0, PT1S] high(S).`` on a
milliseconds timeline), every alert's maximal interval written out.
chronolog runs ``chronolog run PROGRAM`` (start-up, reading, reasoning,
writing the facts as text); pandas runs a script that reads the CSV
(``read_csv``, ``to_datetime(utc=True)``), keeps the high readings, merges
each sensor's one-second spans (sort, running maximum of the ends) and
writes the intervals as CSV.  Both are whole processes, timed alternately
(wall and the children's CPU); the answers are compared interval by
interval.  pandas reads the CSV of the same instants for the ``program``
form, which it has no reader for.

    python bench/readings_ms.py [--readings 200000] [--repeat 3] [--json FILE]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RULES = """@timeGranularity("milliseconds").
high(S) :- reading(S, V), V > 90.
alert(S) :- <->[0, PT1S] high(S).
@output("alert").
"""

PANDAS = """
import sys
import pandas as pd
df = pd.read_csv(sys.argv[1])
df["time"] = pd.to_datetime(df["time"], utc=True, format="ISO8601")
h = df[df["value"] > 90].sort_values(["sensor", "time"])
end = h["time"] + pd.Timedelta(seconds=1)
run_end = end.groupby(h["sensor"]).cummax().groupby(h["sensor"]).shift()
start = (run_end.isna() | (h["time"] > run_end)).cumsum()
out = pd.DataFrame({"sensor": h["sensor"], "start": h["time"], "end": end, "run": start})
out = out.groupby("run").agg(sensor=("sensor", "first"), start=("start", "min"), end=("end", "max"))
out.to_csv(sys.argv[2], index=False)
"""


def write_inputs(folder: Path, n: int, seed: int = 7) -> dict:
    """The three forms of the same readings, and the pandas script."""
    rng = random.Random(seed)
    t0 = dt.datetime(2024, 1, 1)
    rows = [(f"s{i % 50}", rng.randint(0, 100), t0 + dt.timedelta(milliseconds=137 * i)) for i in range(n)]
    paths = {}
    for form, text in (("csv_z", lambda t: t.isoformat(timespec="milliseconds") + "Z"),
                       ("csv_offset", lambda t: (t + dt.timedelta(hours=1)).isoformat(" ", timespec="milliseconds") + "+01:00")):
        data = folder / f"{form}.csv"
        with data.open("w") as fh:
            fh.write("sensor,value,time\n")
            fh.writelines(f"{s},{v},{text(t)}\n" for s, v, t in rows)
        prog = folder / f"{form}.vada"
        prog.write_text(RULES + f'@input("reading").\n@bind("reading", "csv", "{folder}", "{data.name}").\n'
                                '@timeMapping("reading", 2, 2).\n')
        paths[form] = (prog, data)
    prog = folder / "program.vada"
    with prog.open("w") as fh:
        fh.write(RULES)
        fh.writelines(f"reading({s}, {v})@{t.isoformat(timespec='milliseconds')}Z.\n" for s, v, t in rows)
    paths["program"] = (prog, folder / "csv_z.csv")
    (folder / "peer.py").write_text(PANDAS)
    return paths


def timed(cmd: list, out: Path | None) -> tuple:
    """(wall, CPU) of one child process; its stdout to ``out``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    with open(out if out is not None else os.devnull, "w") as fh:
        subprocess.run(cmd, stdout=fh, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


# the whole `chronolog run` command, as a user types it (through this Python)
CHRONOLOG_RUN = [sys.executable, "-c", "import sys; from chronolog.cli import main; sys.argv[0] = 'chronolog'; sys.exit(main())", "run"]


def alternated(sides: dict, repeat: int) -> dict:
    """``{side: {"wall", "cpu"}}``: the medians of ``repeat`` runs of each
    of ``sides`` (``{side: (command, stdout path or None)}``), alternating."""
    times: dict = {side: [] for side in sides}
    for _ in range(repeat):
        for side, (cmd, out) in sides.items():
            times[side].append(timed(cmd, out))
    return {side: {"wall": statistics.median(w for w, _ in ts), "cpu": statistics.median(c for _, c in ts)}
            for side, ts in times.items()}


def report(form: str, row: dict, counted: str) -> None:
    """Print one form's medians and ratios (``row[counted]``: how many answers)."""
    c, p = row["chronolog"], row["pandas"]
    print(f"{form}: chronolog {c['wall']:.3f} s wall / {c['cpu']:.3f} s CPU, pandas {p['wall']:.3f} s / {p['cpu']:.3f} s, "
          f"{c['wall'] / p['wall']:.2f}x wall, {c['cpu'] / p['cpu']:.2f}x CPU, {row[counted]:,} {counted}, same: {row['same']}", flush=True)


def finish(args, result: dict, forms) -> int:
    """Write ``--json``; 0 where every form's answers were the same."""
    if args.json:
        args.json.write_text(json.dumps(result) + "\n")
    return 0 if all(result[f]["same"] for f in forms) else 1


def chronolog_intervals(path: Path) -> set:
    """``alert(s1)@[A,B]`` lines as (sensor, A, B) in microseconds since 1970."""
    got = set()
    for line in path.read_text().splitlines():
        sensor, rest = line[len("alert("):].split(")@[")
        a, b = rest.rstrip("]").split(",")
        got.add((sensor, _micros(dt.datetime.fromisoformat(a)), _micros(dt.datetime.fromisoformat(b))))
    return got


def pandas_intervals(path: Path) -> set:
    import pandas as pd

    df = pd.read_csv(path, parse_dates=["start", "end"])
    return {(s, _micros(a.to_pydatetime().replace(tzinfo=None)), _micros(b.to_pydatetime().replace(tzinfo=None)))
            for s, a, b in zip(df["sensor"], df["start"], df["end"])}


def _micros(t: dt.datetime) -> int:
    return (t - dt.datetime(1970, 1, 1)) // dt.timedelta(microseconds=1)


def arguments(doc: str):
    """``--readings``, ``--repeat`` and ``--json`` of a bench of readings
    against pandas."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--readings", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", type=Path)
    return ap.parse_args()


def main() -> int:
    args = arguments(__doc__)
    result = {"readings": args.readings, "load": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = write_inputs(folder, args.readings)
        for form, (prog, data) in paths.items():
            sides = {"chronolog": (CHRONOLOG_RUN + [str(prog)], folder / f"{form}.out"),
                     "pandas": ([sys.executable, str(folder / "peer.py"), str(data), str(folder / f"{form}.pandas.csv")], None)}
            row = alternated(sides, args.repeat)
            row["same"] = chronolog_intervals(folder / f"{form}.out") == pandas_intervals(folder / f"{form}.pandas.csv")
            row["alerts"] = len(chronolog_intervals(folder / f"{form}.out"))
            result[form] = row
            report(form, row, "alerts")
    return finish(args, result, paths)


if __name__ == "__main__":
    sys.exit(main())
