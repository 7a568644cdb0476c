"""Facts given as Arrow tables to the Python API, against DuckDB SQL over the same tables.

    python bench/api_tables.py [--facts 500000] [--repeat 5] [--before DIR]

The four rules of ``bench/four_rules.py`` (a diamond, a box, two joins,
coalescing; MeTeoR dialect) over its Parquet tables.  One call, as a user
writes it in a notebook, is timed whole:

* chronolog: ``pyarrow.parquet.read_table`` of A, B and C, then
  ``chronolog.reason(program, {"A": a, "B": b, "C": c}, dialect="meteor")``
  and every output as an Arrow table (``model.to_arrow(p)``);
* DuckDB: the same ``read_table`` calls, the tables registered with a
  connection (``con.register``: DuckDB scans the Arrow memory), the
  hand-written SQL of ``four_rules.peer_sql`` (one thread, as chronolog has
  one) and every output fetched as an Arrow table (``to_arrow_table()``).

Each side runs in a child process of its own, imports done and one untimed
call first, then the calls alternate between the sides (the order flips
every round), so that all see the same load on a shared machine.  Reported:
wall and CPU seconds (``time.process_time``, every thread) per call, best
and median; the answers of all sides are compared as sets of facts.
``--before DIR`` adds a side with the chronolog package in DIR (an export
of another branch laid out as installed).

``--workload sensors`` times chronolog alone (this tree and ``--before``)
on the keyed sensor program of ``bench/spark_sensors.py`` (windows and
negation; no SQL peer written for it): ``--sensors`` x ``--readings``
readings built once per child as an Arrow table, a pandas or a Polars
DataFrame (``--format``), then per call ``reason(program, {"reading":
frame, "maintenance": frame})`` and every output as an Arrow table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from sides import alternating_calls, reply  # noqa: E402  (bench/sides.py)


def read_tables(d: Path) -> dict:
    import pyarrow.parquet as pq

    return {p: pq.read_table(d / f"{p}.parquet") for p in ("A", "B", "C")}


def chronolog_call(d: Path) -> dict:
    import chronolog
    from four_rules import OUTPUTS, PROGRAM

    model = chronolog.reason(PROGRAM, read_tables(d), dialect="meteor")
    return {p: model.to_arrow(p) for p in OUTPUTS}


def duckdb_call(d: Path) -> dict:
    import duckdb
    from four_rules import OUTPUTS, peer_sql

    con = duckdb.connect()
    con.execute("SET threads TO 1")
    for p, t in read_tables(d).items():
        con.register(f"{p.lower()}_in", t)
    for stmt in peer_sql(d, "parquet", {p: f"{p.lower()}_in" for p in ("A", "B", "C")}):
        con.execute(stmt)
    out = {}
    for p, keys in OUTPUTS.items():
        cols = ", ".join(keys)
        out[p] = con.sql(
            f"""SELECT {cols}, s // 2 AS "start", (e + 1) // 2 AS "end", s % 2 = 0 AS start_closed,
                       e % 2 = 0 AS end_closed FROM {p.lower()}"""
        ).to_arrow_table()
    con.close()
    return out


def sensor_frames(sensors: int, readings: int, fmt: str) -> dict:
    from spark_sensors import data

    reading, maint = data(sensors, readings)
    if fmt == "pandas":
        return {"reading": reading.to_pandas(), "maintenance": maint.to_pandas()}
    if fmt == "polars":
        import polars as pl

        return {"reading": pl.from_arrow(reading), "maintenance": pl.from_arrow(maint)}
    return {"reading": reading, "maintenance": maint}


def sensors_call(frames: dict) -> dict:
    import chronolog
    from spark_sensors import PROGRAM

    model = chronolog.reason(PROGRAM, frames)
    return {p: model.to_arrow(p) for p in ("alarm", "warn", "quiet")}


def answers(tables: dict) -> set:
    out = set()
    for p, t in tables.items():
        if hasattr(t, "read_all"):  # (a record batch reader)
            t = t.read_all()
        for row in t.to_pylist():
            terms = tuple(v for k, v in row.items() if k not in ("start", "end", "start_closed", "end_closed"))
            out.add((p, terms, (row["start"], row["end"], row["start_closed"], row["end_closed"])))
    return out


def serve(side: str, d, answers_path: Path) -> None:
    """A child: one untimed call, then one timed call per ``call`` line
    (``d``: the four rules' data directory, or the sensors' frames)."""
    import pyarrow.parquet as pq

    run = sensors_call if side == "sensors" else chronolog_call if side == "chronolog" else duckdb_call
    run(d)
    print(json.dumps({"ready": True}), flush=True)
    got = None
    for line in sys.stdin:
        if line.strip() != "call":
            break
        c0, t0 = time.process_time(), time.perf_counter()
        got = run(d)
        print(json.dumps({"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}), flush=True)
    if got is not None:
        answers_path.mkdir(parents=True, exist_ok=True)
        for p, t in got.items():
            pq.write_table(t.read_all() if hasattr(t, "read_all") else t, answers_path / f"{p}.parquet")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--facts", type=int, default=500_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--before", metavar="DIR", help="also time chronolog from the package in DIR")
    ap.add_argument("--workload", choices=("four", "sensors"), default="four")
    ap.add_argument("--format", choices=("arrow", "pandas", "polars"), default="arrow", help="sensors: the frames' kind")
    ap.add_argument("--sensors", type=int, default=5000)
    ap.add_argument("--readings", type=int, default=100)
    ap.add_argument("--serve", help=argparse.SUPPRESS)
    ap.add_argument("--data", help=argparse.SUPPRESS)
    ap.add_argument("--answers", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.serve:
        if args.serve == "sensors":
            import chronolog  # noqa: F401  (the tree's, before bench/ goes on the path)

            serve("sensors", sensor_frames(args.sensors, args.readings, args.format), Path(args.answers))
        else:
            serve(args.serve, Path(args.data), Path(args.answers))
        return 0
    from four_rules import dataset

    sensors = args.workload == "sensors"
    d = Path(".") if sensors else dataset(args.facts, args.seed)
    tmp = Path(tempfile.mkdtemp(prefix="api_tables_"))
    first = "sensors" if sensors else "chronolog"
    sides = [("chronolog", first, None)] + ([] if sensors else [("duckdb", "duckdb", None)])
    if args.before:
        sides.insert(1, ("chronolog before", first, os.path.abspath(args.before)))
    children = {}
    for label, side, tree in sides:
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
        if tree:
            env["PYTHONPATH"] = os.pathsep.join([tree] + [p for p in [env.get("PYTHONPATH")] if p])
        cmd = [sys.executable, __file__, "--serve", side, "--data", str(d), "--answers", str(tmp / label.replace(" ", "_"))]
        cmd += ["--sensors", str(args.sensors), "--readings", str(args.readings), "--format", args.format]
        children[label] = child = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        reply(child)
    what = f"keyed sensors, {args.sensors * args.readings} readings as {args.format}" if sensors else f"four rules, {args.facts} facts as Arrow tables ({d})"
    print(f"{what}; load {os.getloadavg()[0]:.1f}", flush=True)
    results = {label: [] for label, _, _ in sides}
    labels = list(results)
    for k, label, r in alternating_calls(children, labels, args.repeat):
        results[label].append(r)
        print(f"  {label:17s} call {k + 1}: {r['wall']:.2f} s wall, {r['cpu']:.2f} s CPU", flush=True)
    for child in children.values():
        child.stdin.write("quit\n")
        child.stdin.close()
        child.wait()
    import pyarrow.parquet as pq

    got = {}
    for label in labels:
        where = tmp / label.replace(" ", "_")
        got[label] = answers({p.stem: pq.read_table(p) for p in sorted(where.glob("*.parquet"))})
    same = all(got[label] == got[labels[-1]] for label in labels)
    print(f"  answers: {len(got[labels[-1]])} facts, the same on every side: {same}")
    best = {k: (min(r["wall"] for r in rs), min(r["cpu"] for r in rs)) for k, rs in results.items()}
    med = {k: (statistics.median(r["wall"] for r in rs), statistics.median(r["cpu"] for r in rs)) for k, rs in results.items()}
    for label in labels:
        print(f"  {label:17s} best {best[label][0]:.2f} s wall / {best[label][1]:.2f} s CPU; median {med[label][0]:.2f} s / {med[label][1]:.2f} s")
    ref = "chronolog before" if sensors else "duckdb"
    for label in labels if ref in best else []:
        if label != ref:
            print(f"  {label} / {ref}: {best[label][0] / best[ref][0]:.2f}x wall, {best[label][1] / best[ref][1]:.2f}x CPU (best)")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
