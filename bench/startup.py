"""Start-up: a small command against the interpreter alone, and a first large call against a warm one.

    python bench/startup.py [--runs 25] [--calls 4] [--processes 3] [--json FILE]

Commands, each a fresh process, run in turns (one of each per round, so all
see the same load), every one once untimed first (the installed state:
bytecode written):

* ``python -c pass``: the interpreter alone, the floor;
* ``chronolog --help``;
* ``chronolog run`` on a 10-fact program (a recursion and a diamond);
  its modules are checked afterwards (``-X importtime``): polars, pyarrow,
  pandas, numpy, pyspark and matplotlib must not be among them;
* the same run with chronolog's modules compiled from source each time:
  a copy of the checkout without bytecode, ``PYTHONDONTWRITEBYTECODE=1``
  (a checkout run where ``.pyc`` files are not written, as in this
  sandbox; the libraries keep their bytecode).

Median and best wall time, and median CPU (user + system, from the
child's rusage) per command; the run's ratio to the interpreter says the
same under load.

First call against later ones: fresh processes that run as a script
does -- ``import chronolog``, the user's own preparation (the sensor
table built), then ``--calls`` calls, every output taken as a table --
on four inputs of 100,000 rows: a 20-day rolling sum, mean, min and max
over 5 series x 20,000 days from a CSV file (``@bind``;
``bench/timeseries.py``'s program), the keyed sensor program of
``bench/spark_sensors.py`` over an Arrow table and over a pandas
DataFrame, and ``command``: ``chronolog run`` (the command's ``main``,
its text to /dev/null) of that program with its readings as a fact file
(2.6 MB, read by the kernels; the command imports numpy and polars in a
thread while it reads the program).  Each runs three ways, in turns:
``cold`` (nothing more), ``background``
(``chronolog.preload(background=True)`` right after the import: the
column libraries imported in a thread during the preparation), and
``imported`` (what that thread does, done right after chronolog and timed
apart: numpy, polars, pyarrow and chronolog's modules for them imported,
and what a first call did once per process beside them (the reader's
patterns, the records' methods, polars' first lazy queries:
``chronolog/preload.py``); the first call without its imports, the part
of a cold call that is not module code).
Reported, medians over ``--processes``: the first call against the later
ones, and the whole script up to the first answer.

Children run with bytecode writing on (``PYTHONDONTWRITEBYTECODE`` unset),
as an installed package has its ``.pyc`` files.
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
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

TEN_FACTS = """\
edge(a,b)@[0,5].
edge(b,c)@[1,6].
edge(c,d)@[2,7].
edge(d,e)@[3,8].
edge(e,f)@[4,9].
node(a)@[0,10].
node(b)@[0,10].
node(c)@[0,10].
node(d)@[0,10].
node(e)@[0,10].
path(X,Y) :- edge(X,Y).
path(X,Z) :- path(X,Y), edge(Y,Z).
seen(X) :- <->[0,2] node(X).
"""

HEAVY = ("polars", "pyarrow", "pandas", "numpy", "pyspark", "matplotlib")


def child_env(checkout: Path | None = None) -> dict:
    """The environment of a child: with bytecode written and read (as an
    installed package is), or chronolog imported from ``checkout``, a copy
    of its sources with no bytecode and ``PYTHONDONTWRITEBYTECODE`` set
    (the libraries keep theirs)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if checkout is not None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["PYTHONPATH"] = str(checkout)
    return env


def sources_without_bytecode(tmp: Path) -> Path:
    """chronolog's packages copied as a checkout lays them out, without
    their ``__pycache__``."""
    import shutil

    tree = tmp / "checkout"
    for d in ("chronolog", "language", "planner", "engine", "connectors"):
        shutil.copytree(ROOT / d, tree / d, ignore=shutil.ignore_patterns("__pycache__"))
    return tree


def chronolog_command() -> list:
    """``chronolog`` as installed beside this interpreter, else ``python -m chronolog``."""
    script = Path(sys.executable).with_name("chronolog")
    return [str(script)] if script.exists() else [sys.executable, "-m", "chronolog"]


def timed(argv: list, env: dict) -> tuple:
    """Wall and CPU seconds (user + system) of one child process."""
    t = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    err = p.stderr.read().decode()
    p.stderr.close()
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(argv)}: exit {p.returncode}\n{err}")
    return wall, usage.ru_utime + usage.ru_stime


def heavy_imports(argv: list) -> list:
    """Which of HEAVY a command imports (its ``-X importtime`` lines)."""
    cmd = [sys.executable, "-X", "importtime", "-m", "chronolog"] + argv[len(chronolog_command()):]
    err = subprocess.run(cmd, capture_output=True, text=True, env=child_env(), cwd=ROOT).stderr
    names = {line.rsplit("|", 1)[-1].strip() for line in err.splitlines() if line.startswith("import time:")}
    return sorted(h for h in HEAVY if h in names)


def commands(tmp: Path, runs: int) -> dict:
    program = tmp / "ten.vada"
    program.write_text(TEN_FACTS)
    chronolog = chronolog_command()
    cmds = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "chronolog --help": chronolog + ["--help"],
        "chronolog run (10 facts)": chronolog + ["run", str(program)],
        "the same, no bytecode": chronolog + ["run", str(program)],
    }
    checkout = sources_without_bytecode(tmp)
    envs = {k: child_env(checkout if k == "the same, no bytecode" else None) for k in cmds}
    for k, argv in cmds.items():
        timed(argv, envs[k])  # the installed state: bytecode written
    got: dict = {k: [] for k in cmds}
    for _ in range(runs):
        for k, argv in cmds.items():
            got[k].append(timed(argv, envs[k]))
    out = {}
    for k, xs in got.items():
        walls, cpus = [w for w, _ in xs], [c for _, c in xs]
        out[k] = dict(median=statistics.median(walls), best=min(walls), cpu=statistics.median(cpus), runs=len(xs))
    out["chronolog run (10 facts)"]["heavy_imports"] = heavy_imports(cmds["chronolog run (10 facts)"])
    return out


# ----------------------------------------------------------------- first calls


def rolling_call(csv: Path):
    import chronolog
    from timeseries import OUTPUTS, bound_program

    model = chronolog.reason(bound_program("rolling", csv), engine="columns")
    return {p: model.to_arrow(p) for p in OUTPUTS["rolling"]}


def sensors_call(frames: dict):
    import chronolog
    from spark_sensors import PROGRAM

    model = chronolog.reason(PROGRAM, frames)
    return {p: model.to_arrow(p) for p in ("alarm", "warn", "quiet")}


def command_call(paths: tuple):
    """``chronolog run PROGRAM --facts FILE`` as the command runs it (its
    ``main``), the text printed to /dev/null."""
    from chronolog.cli import main

    program, facts = paths
    out, sys.stdout = sys.stdout, open(os.devnull, "w")
    try:
        main(["run", program, "--facts", facts])
    finally:
        sys.stdout.close()
        sys.stdout = out


def write_sensor_facts(tmp: Path) -> tuple:
    """The sensor program of bench/spark_sensors.py and its 100,000
    readings (1,000 sensors x 100) with the maintenance windows as a fact
    file (3.6 MB: read by the kernels)."""
    from spark_sensors import PROGRAM, data

    reading, maint = data(1000, 100)
    r, m = reading.to_pydict(), maint.to_pydict()
    facts = tmp / "sensors.vada"
    with facts.open("w") as fh:
        fh.writelines(f"reading({s},{v})@[{a},{b}).\n" for s, v, a, b in zip(r["sensor"], r["value"], r["start"], r["end"]))
        fh.writelines(f"maintenance({s})@[{a},{b}].\n" for s, a, b in zip(m["sensor"], m["start"], m["end"]))
    program = tmp / "sensors_program.vada"
    program.write_text(PROGRAM)
    return str(program), str(facts)


def prepare(kind: str, data: str):
    """A user's own work before the first call: the CSV file is there;
    the sensor table is built (a Python loop, then Arrow or pandas); the
    command's program and fact file are there (``data``: both, joined by
    ``os.pathsep``)."""
    if kind == "rolling":
        return Path(data), rolling_call
    if kind == "command":
        return tuple(data.split(os.pathsep)), command_call
    from api_tables import sensor_frames

    return sensor_frames(1000, 100, kind), sensors_call


def worker(kind: str, data: str, calls: int, mode: str) -> dict:
    """One process, as a script runs: ``import chronolog`` (and, by
    ``mode``, ``chronolog.preload(background=True)`` or the column
    libraries imported, timed apart), the user's own preparation, then the
    calls, each timed."""
    t0 = time.perf_counter()
    import chronolog

    if kind == "command":  # (the command's first act, before the libraries allocate)
        from chronolog.language import allocators

        allocators.configure()
    if mode == "background":
        chronolog.preload(background=True)
    t1 = time.perf_counter()
    libraries = 0.0
    if mode == "imported":  # what preload(background=True)'s thread does: every module a first call imports, its first uses
        from chronolog.preload import _import_libraries

        _import_libraries(modules=True)
        libraries = time.perf_counter() - t1
    t1 = time.perf_counter()
    args, call = prepare(kind, data)
    t2 = time.perf_counter()
    out = dict(import_s=t1 - t0, libraries_s=libraries, prepare_s=t2 - t1, calls=[])
    for _ in range(calls):
        c, t = time.process_time(), time.perf_counter()
        call(args)
        out["calls"].append(dict(wall=time.perf_counter() - t, cpu=time.process_time() - c))
    out["to_first_answer"] = out["import_s"] + out["prepare_s"] + out["calls"][0]["wall"]
    return out


KINDS = ("rolling", "arrow", "pandas", "command")
MODES = ("cold", "background", "imported")


def first_calls(tmp: Path, calls: int, processes: int) -> dict:
    """Per input kind and way of starting (``cold``: import and call;
    ``background``: ``preload(background=True)`` after the import), the
    processes in turns: medians of the first call, the later calls and the
    whole script up to the first answer."""
    from timeseries import write_csv

    csv = tmp / "prices.csv"
    write_csv(csv, 5, 20_000)
    data = {"rolling": str(csv), "command": os.pathsep.join(write_sensor_facts(tmp))}
    runs: dict = {(k, m): [] for k in KINDS for m in MODES}
    for _ in range(processes):
        for (kind, mode), got in runs.items():
            cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", kind, "--data", data.get(kind, ""), "--calls", str(calls)]
            cmd += ["--mode", mode]
            p = subprocess.run(cmd, capture_output=True, text=True, env=child_env(), cwd=ROOT)
            if p.returncode != 0:
                raise SystemExit(f"{kind} {mode}: exit {p.returncode}\n{p.stderr}")
            got.append(json.loads(p.stdout.splitlines()[-1]))
    out: dict = {}
    for (kind, mode), rs in runs.items():
        med = statistics.median
        first = med(r["calls"][0]["wall"] for r in rs)
        later = med(c["wall"] for r in rs for c in r["calls"][1:])
        out.setdefault(kind, {})[mode] = dict(
            first=first, later=later, ratio=first / later, first_cpu=med(r["calls"][0]["cpu"] for r in rs),
            later_cpu=med(c["cpu"] for r in rs for c in r["calls"][1:]), import_s=med(r["import_s"] for r in rs),
            prepare_s=med(r["prepare_s"] for r in rs), to_first_answer=med(r["to_first_answer"] for r in rs),
            libraries_s=med(r["libraries_s"] for r in rs))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=25, help="runs of each command")
    ap.add_argument("--calls", type=int, default=4, help="calls per process of the first-call part")
    ap.add_argument("--processes", type=int, default=3)
    ap.add_argument("--skip-calls", action="store_true", help="the commands only")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--data", help=argparse.SUPPRESS)
    ap.add_argument("--mode", choices=MODES, default="cold", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        print(json.dumps(worker(a.worker, a.data, a.calls, a.mode)))
        return 0
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    with tempfile.TemporaryDirectory(prefix="chronolog-startup-") as d:
        cmds = commands(Path(d), a.runs)
        print(f"commands ({a.runs} runs each, in turns; ms)")
        print(f"  {'':28}{'median':>10}{'best':>10}{'CPU':>10}")
        for k, r in cmds.items():
            print(f"  {k:28}{r['median'] * 1000:10.1f}{r['best'] * 1000:10.1f}{r['cpu'] * 1000:10.1f}")
        run, floor = cmds["chronolog run (10 facts)"], cmds["python -c pass"]
        print(f"  run / interpreter: {run['median'] / floor['median']:.1f}x wall, {run['cpu'] / floor['cpu']:.1f}x CPU")
        print(f"  heavy modules imported by the run: {', '.join(run['heavy_imports']) or 'none'}")
        calls = {} if a.skip_calls else first_calls(Path(d), a.calls, a.processes)
    if calls:
        print(f"first call against later ones ({a.processes} processes x {a.calls} calls each way; s, medians)")
        for k, by_mode in calls.items():
            for mode, r in by_mode.items():
                print(f"  {k:8}{mode:11}first {r['first']:.3f} (CPU {r['first_cpu']:.3f}); later {r['later']:.3f} "
                      f"(CPU {r['later_cpu']:.3f}); first / later {r['ratio']:.2f}x; import {r['import_s']:.3f}, "
                      f"preparation {r['prepare_s']:.3f}, to the first answer {r['to_first_answer']:.3f}"
                      + (f"; its imports first in {r['libraries_s']:.3f}" if mode == "imported" else ""))
    load_end = os.getloadavg()
    print(f"load average at the end {load_end[0]:.2f}")
    if a.json:
        a.json.write_text(json.dumps(dict(load=load[0], load_end=load_end[0], commands=cmds, calls=calls)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
