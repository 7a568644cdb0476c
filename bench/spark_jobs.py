"""Spark jobs per call for small programs: the fixed cost of a reasoning
call on Spark, side by side with the embedded engine on the same program.

    python bench/spark_jobs.py [--repeat 5] [--paths rounds "one task" driver] [--programs NAME ...] [--json FILE]

On small inputs a Spark call's time is set by how many Spark jobs
(actions, broadcasts) it submits: each costs 0.1-0.25 s in a warm
session, whatever its rows.  For the golden examples and a few program
shapes (one rule, recursion, negation, aggregation, Since), each path
``chronolog.spark.reason`` can take for a program without a key: the
relational rounds (``one_task_bytes=-1``), one Spark task (the default
for small inputs) and the driver (``distributed=False``); a golden
program that has a key runs on the keyed path instead of the rounds.
Every output is collected (``toArrow``), as a caller or a test does, and
the call's jobs are counted from the session's job ids, that collection
included.  A warm-up call per program and path first (Spark compiles
code), then ``--repeat`` calls: the median wall, CPU (the driver's Python
and Spark's JVM) and the jobs per call.
The embedded engine runs the same program (``chronolog.reason``, every
output as Arrow).  Every call's answers are checked against the
embedded engine's.  The session is the test suite's (``local[2]``, two
shuffle partitions, C1 JIT only).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests"))

from test_golden import JOB_REPORT, LONG_TIME_INVESTOR, MATINEE, METEOR_41, METEOR_41_DATA  # noqa: E402
from test_spark_jobs import facts as answers  # noqa: E402  ({pred: sorted facts} of Arrow tables, coalesced per atom)

EDGES = "e(a,b)@[0,5]. e(b,c)@[1,6]. e(c,d)@[2,3]. e(d,a)@[4,8]. f(b,x)@[0,9]. f(c,y)@[2,4]. g(a)@[1,2]."
STREAM = """
p(Z) :- <->[0,2] signal(Z).
p2(Z) :- [-][0,4] p(Z).
flag(X,Z) :- monit(X,Z), p2(Z).
nested(X,Z) :- monit(X,Z), [-][0,4] <->[0,2] signal(Z).
signal(s1)@96.3.  signal(s1)@98.  signal(s1)@100.  monit(n,s1)@101.
"""
# six strata that read none of each other's predicates (one dependency
# level, one round on Spark), then one that reads three of them
LEVELS = """
a(X) :- e(X,Y).  b(Y) :- e(X,Y).  c(X,Z) :- e(X,Y), e(Y,Z).
d(X) :- <->[0,2] g(X).  h(X) :- [-][0,1] f(X,Y).  k(X, N) :- e(X,Y), N = count().
m(X) :- a(X), not b(X), d(X).
"""
# name -> (program, reason's options); the shapes have no key (a join across keys)
PROGRAMS = {
    "golden_recently_opened": ("recentlyOpened(X) :- <->[0,12] inauguration(X).  inauguration(a)@[5,6].", {}),
    "golden_long_time_investor": (LONG_TIME_INVESTOR, {}),
    "golden_matinee": (MATINEE, {}),
    "golden_meteor_4_1": (METEOR_41 + METEOR_41_DATA, {"dialect": "meteor", "horizon": (0, 10)}),
    "golden_stream": (STREAM, {}),
    "golden_job_report": (JOB_REPORT, {"horizon": (0, 200)}),
    "one_rule": ("q(X,Z) :- e(X,Y), f(Y,Z). " + EDGES, {}),
    "recursion": ("r(X,Y) :- e(X,Y). r(X,Z) :- r(X,Y), e(Y,Z). " + EDGES, {}),
    "negation": ("n(X,Z) :- e(X,Y), f(Y,Z), not g(X). " + EDGES, {}),
    "aggregation": ("c(Z, N) :- e(X,Y), f(Y,Z), N = count(). " + EDGES, {}),
    "since": ("s(X,Z) :- e(X,Y), g(Y) <S>[0,3] f(Y,Z). " + EDGES, {}),
    "independent_strata": (LEVELS + EDGES, {}),
    # the edges given as an input table (a caller's small Arrow table, not facts of the program)
    "arrow_input": ("q(X,Z) :- e(X,Y), f(Y,Z). f(b,x)@[0,9]. f(c,y)@[2,4].", {"inputs": "edges"}),
}
TABLES = {  # an input table by name (built when run: pyarrow)
    "edges": lambda pa: {"e": pa.table({"X": ["a", "b", "c", "d"], "Y": ["b", "c", "d", "a"],
                                        "start": [0, 1, 2, 4], "end": [5, 6, 3, 8]})},
}


def with_inputs(options: dict) -> dict:
    """``options`` with an input table's name replaced by its tables."""
    import pyarrow as pa

    if "inputs" not in options:
        return options
    return {**options, "inputs": TABLES[options["inputs"]](pa)}
PATHS = {  # path -> reason's options
    "rounds": {"distributed": True, "one_task_bytes": -1},
    "one task": {"distributed": True},
    "driver": {"distributed": False},
}


def session(master: str):
    from chronolog.connectors.spark import JVM_OPTIONS
    from chronolog.spark import session as start

    s = start(master, "chronolog-spark-jobs", **{
        "spark.ui.enabled": "false", "spark.driver.memory": "2g",
        "spark.sql.shuffle.partitions": "2", "spark.default.parallelism": "2",
        "spark.driver.extraJavaOptions": JVM_OPTIONS + " -XX:TieredStopAtLevel=1",
    })
    s.sparkContext.setLogLevel("ERROR")
    return s


def job_counter(spark):
    """A function giving the number of jobs the session has submitted so far."""
    from chronolog.connectors.spark import jobs_so_far

    return lambda: jobs_so_far(spark)


def cpu_counter(spark):
    """A function giving the CPU seconds so far of this process and of
    Spark's JVM (local mode: a child process, read from /proc)."""
    proc = getattr(spark.sparkContext._gateway, "proc", None)
    ticks = os.sysconf("SC_CLK_TCK")

    def jvm() -> float:
        try:
            with open(f"/proc/{proc.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
        except (AttributeError, OSError):
            return 0.0

    return lambda: time.process_time() + jvm()


def embedded(program: str, options: dict):
    import chronolog

    kw = {k: v for k, v in options.items() if k in ("dialect", "horizon")}
    t0 = time.perf_counter()
    model = chronolog.reason(program, with_inputs(options).get("inputs"), **kw)
    tables = {p: model.to_arrow(p) for p in model.predicates() if not p.startswith("$")}
    return time.perf_counter() - t0, tables


def on_spark(spark, jobs, cpu, program: str, options: dict, path: str):
    from chronolog import spark as cs

    stats: dict = {}
    before = jobs()
    t0, c0 = time.perf_counter(), cpu()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = cs.reason(spark, program, stats=stats, **with_inputs(options), **PATHS[path])
        tables = {p: df.toArrow() for p, df in out.items()}
    return time.perf_counter() - t0, cpu() - c0, jobs() - before, stats, tables


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--paths", nargs="+", default=list(PATHS), choices=list(PATHS))
    ap.add_argument("--programs", nargs="+", default=list(PROGRAMS), choices=list(PROGRAMS))
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--json", help="append one JSON line per program and path")
    args = ap.parse_args(argv)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = session(args.master)
    jobs, cpu = job_counter(spark), cpu_counter(spark)
    spark.sql("SELECT 1").collect()
    ok = True
    lines = []
    print(f"{'program':28} {'path':9} {'taken':10} {'jobs':>4} {'rounds':>6} {'wall':>8} {'cpu':>8} {'embedded':>9} {'ratio':>6}  "
          f"load {os.getloadavg()[0]:.1f}")
    for name in args.programs:
        program, options = PROGRAMS[name]
        embedded(program, options)  # warm
        e_walls, expected = [], None
        for _ in range(args.repeat):
            w, expected = embedded(program, options)
            e_walls.append(w)
        e_wall = statistics.median(e_walls)
        for path in args.paths:
            on_spark(spark, jobs, cpu, program, options, path)  # warm
            walls, cpus, counts, same = [], [], [], True
            for _ in range(args.repeat):
                w, c, n, stats, tables = on_spark(spark, jobs, cpu, program, options, path)
                walls.append(w)
                cpus.append(c)
                counts.append(n)
                got = answers(tables)
                same = same and got == {p: v for p, v in answers(expected).items() if p in got}
            ok = ok and same
            wall = statistics.median(walls)
            n_rounds = len(stats.get("rounds", []))
            line = {"program": name, "path": path, "taken": stats.get("path"), "jobs": statistics.median(counts),
                    "jobs_max": max(counts), "rounds": n_rounds, "wall": wall, "cpu": statistics.median(cpus),
                    "embedded": e_wall, "same_model": same,
                    "load": os.getloadavg()[0]}
            lines.append(line)
            mark = "" if same else "  DIFFERENT ANSWERS"
            print(f"{name:28} {path:9} {stats.get('path', '?'):10} {line['jobs']:>4g} {n_rounds:>6} {wall:>7.3f}s "
                  f"{line['cpu']:>7.3f}s {e_wall:>8.4f}s {wall / e_wall:>5.0f}x{mark}", flush=True)
    for path in args.paths:
        mine = [x for x in lines if x["path"] == path]
        print(f"total {path}: {sum(x['jobs'] for x in mine):g} jobs, {sum(x['wall'] for x in mine):.2f} s wall "
              f"{sum(x['cpu'] for x in mine):.2f} s CPU (embedded {sum(x['embedded'] for x in mine):.3f} s) over {len(mine)} programs")
    print("the same answers as the embedded engine" if ok else "ANSWERS DIFFER from the embedded engine")
    if args.json:
        with open(args.json, "a") as f:
            for x in lines:
                f.write(json.dumps(x) + "\n")
    spark.stop()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
