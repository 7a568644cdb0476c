"""A keyed sensor workload: distributed over Spark tasks against one process.

``--sensors`` sensors, ``--readings`` readings each (one per time unit,
values 0..99 exact decimals), and a program with windows and negation, keyed
on the sensor:

    hot(S) :- reading(S, V), V > 70.
    alarm(S) :- [-][0,3] hot(S), not maintenance(S).
    warn(S) :- <->[0,10] alarm(S).
    quiet(S) :- reading(S, V), not <->[0,5] hot(S).

Inputs are written once as Parquet datasets (``--files`` files each); every timed call reads them
afresh (``pyarrow.parquet.read_table`` for the embedded engine in this
process, ``spark.read.parquet`` for
``chronolog.spark.reason(..., distributed=True)`` on each of
``--masters``, each master's session in a child process of its own, the
calls alternating between them so that both see the same load), with
Spark's cache asserted empty, so each call reads and reasons from scratch.
Answers are compared.  ``--inputs bind`` makes the call the one of a
program that binds its inputs (``@bind("reading", "spark parquet", dir,
name)``, as ``chronolog run --spark`` runs it): chronolog reads them.
Besides wall time, the script reports CPU seconds (this process, plus the
Spark JVM and its Python workers, read from /proc) and the load average, so
a run on a busy machine can be read honestly.

    .venv/bin/python bench/spark_sensors.py --sensors 5000 --readings 100
"""

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from sides import alternating_calls, reply  # noqa: E402  (bench/sides.py)

PROGRAM = """
hot(S) :- reading(S, V), V > 70.
alarm(S) :- [-][0,3] hot(S), not maintenance(S).
warn(S) :- <->[0,10] alarm(S).
quiet(S) :- reading(S, V), not <->[0,5] hot(S).
@output("alarm"). @output("warn"). @output("quiet").
"""


def data(sensors, readings, seed=1):
    import pyarrow as pa

    rng = random.Random(seed)
    s, v, t = [], [], []
    for i in range(sensors):
        level = rng.randint(0, 60)
        for k in range(readings):
            level = max(0, min(99, level + rng.randint(-9, 10)))
            s.append(f"s{i}")
            v.append(level)
            t.append(k)
    reading = pa.table({"sensor": s, "value": v, "start": t, "end": [x + 1 for x in t], "end_closed": [False] * len(t)})
    ms = [f"s{i}" for i in range(0, sensors, 10)]
    maint = pa.table({"sensor": ms, "start": [readings // 2] * len(ms), "end": [readings // 2 + 5] * len(ms)})
    return reading, maint


def tree_cpu(pid: int) -> dict:
    """CPU seconds (user + system) of process ``pid`` and every descendant,
    each with the exited children it waited for, as ``{pid: (name, s)}``
    (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    kids, stats = {}, {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            text = open(f"/proc/{d}/stat").read()
        except OSError:
            continue
        f = text[text.rindex(")") + 2 :].split()
        stats[int(d)] = (text[text.index("(") + 1 : text.rindex(")")], f)
        kids.setdefault(int(f[1]), []).append(int(d))
    out, todo = {}, [pid]
    while todo:
        p = todo.pop()
        if p in stats:
            name, f = stats[p]
            out[p] = (name, sum(int(x) for x in f[11:15]) / tick)
        todo.extend(kids.get(p, []))
    return out


def cpu_delta(before: dict, after: dict):
    """Total CPU seconds between two :func:`tree_cpu` readings, and those of
    each Python process (the workers and their daemon) that did work."""
    per = {p: c - before.get(p, (n, 0.0))[1] for p, (n, c) in after.items()}
    python = sorted((round(d, 2) for p, d in per.items() if "python" in after[p][0] and d > 0.05), reverse=True)
    return sum(per.values()), python


def jvm_threads(pid: int) -> dict:
    """CPU seconds of the JVM ``pid`` by kind of thread: ``executor`` (task
    threads: the shuffle, the Arrow exchange with the Python workers),
    ``jit`` (the compiler threads), ``gc`` and ``driver`` (the rest: py4j
    calls, planning, scheduling, listeners, the threads serving toArrow;
    threads that ended are counted here, from the process total)."""
    tick = os.sysconf("SC_CLK_TCK")

    def cpu(path):
        text = open(path).read()
        f = text[text.rindex(")") + 2 :].split()
        return text[text.index("(") + 1 : text.rindex(")")], (int(f[11]) + int(f[12])) / tick

    out = {"executor": {}, "jit": {}, "gc": {}}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            name, c = cpu(f"/proc/{pid}/task/{tid}/stat")
        except OSError:
            continue
        kind = "executor" if name.startswith("Executor task") else "jit" if "Compiler" in name else (
            "gc" if name.startswith(("GC ", "G1 ")) or name == "VM Thread" else None)
        if kind:
            out[kind][tid] = c
    out["total"] = cpu(f"/proc/{pid}/stat")[1]
    return out


def jvm_split(before: dict, after: dict) -> dict:
    """CPU seconds per kind of JVM thread between two :func:`jvm_threads`."""
    d = {k: sum(c - before[k].get(t, 0.0) for t, c in after[k].items()) for k in ("executor", "jit", "gc")}
    d["driver"] = after["total"] - before["total"] - sum(d.values())
    return d


def load() -> float:
    return os.getloadavg()[0]


def spark_jobs(spark, after: int):
    """The jobs with ids above ``after`` and their stages, from the Spark
    UI's REST API: ``[(job id, seconds, [(stage seconds, executor CPU s,
    shuffle records read)])]``."""
    import json
    import urllib.request
    from datetime import datetime

    sc = spark.sparkContext
    base = f"{sc.uiWebUrl}/api/v1/applications/{sc.applicationId}"

    def get(what):
        return json.load(urllib.request.urlopen(f"{base}/{what}"))

    def t(s):
        return datetime.strptime(s.replace("GMT", ""), "%Y-%m-%dT%H:%M:%S.%f").timestamp()

    stages = {s["stageId"]: s for s in get("stages?status=complete")}
    out = []
    for j in sorted(get("jobs"), key=lambda j: j["jobId"]):
        if j["jobId"] <= after or "completionTime" not in j:
            continue
        st = [stages[i] for i in j["stageIds"] if i in stages]
        out.append((j["jobId"], t(j["completionTime"]) - t(j["submissionTime"]), [
            (t(s["completionTime"]) - t(s["submissionTime"]), s["executorCpuTime"] / 1e9, s["shuffleReadRecords"]) for s in st
        ]))
    return out


def last_job(spark) -> int:
    ids = spark.sparkContext.statusTracker().getJobIdsForGroup()
    return max(ids) if ids else -1


def bound_program(paths: dict) -> str:
    """PROGRAM with its inputs bound to the Parquet datasets (``--inputs bind``)."""
    return "".join(f'@bind("{p}", "spark parquet", "{os.path.dirname(f)}", "{os.path.basename(f)}").\n' for p, f in paths.items()) + PROGRAM


def takes_arrow(cs) -> bool:
    """Whether this tree's ``reason`` can return Arrow tables (``arrow=True``):
    its own parameters, or those of the connector it hands ``**options`` to
    (``chronolog.spark.reason`` since it moved above the API)."""
    import inspect

    target = getattr(getattr(cs, "_connector", None), "reason_with", cs.reason)
    return "arrow" in inspect.signature(target).parameters


def call(spark, cs, paths: dict, partitions, inputs: str, results: str = "toarrow") -> dict:
    """One call as a user makes it: ``dataframes``, the caller reads the
    Parquet datasets with ``spark.read.parquet`` and passes the DataFrames;
    ``bind``, the program binds them (``@bind("reading", "spark parquet",
    ...)``) and chronolog reads them.  Either way the user ends with every
    output as an Arrow table: ``toarrow``, the call returns DataFrames and
    each is fetched with ``toArrow``; ``arrow``, the call returns the tables
    (``reason(..., arrow=True)``; a tree without it falls back to
    ``toarrow``)."""
    kw = {"arrow": True} if results == "arrow" and takes_arrow(cs) else {}
    if inputs == "bind":
        out = cs.reason(spark, bound_program(paths), distributed=True, partitions=partitions, **kw)
    else:
        frames = {p: spark.read.parquet(f) for p, f in paths.items()}
        out = cs.reason(spark, PROGRAM, frames, distributed=True, partitions=partitions, **kw)
    return out if kw else {p: df.toArrow() for p, df in out.items()}


def serve(master: str, paths: dict, partitions, answers: str, warmup: int = 0, inputs: str = "dataframes", results: str = "toarrow"):
    """A child process holding one Spark session on ``master``: warms up,
    then runs one timed call per ``call`` line on stdin and prints its
    figures as one JSON line (``quit`` stops).  Two such processes, one per
    master, let the parent alternate the masters call by call, so both see
    the same load on a shared machine."""
    import json

    import pyarrow.parquet as pq

    from chronolog import spark as cs

    spark = cs.session(master)
    spark.sparkContext.setLogLevel("ERROR")
    how = "reason(arrow=True)" if results == "arrow" and takes_arrow(cs) else "DataFrames, then toArrow each"
    print(f"chronolog from {os.path.dirname(cs.__file__)}; results: {how}", file=sys.stderr, flush=True)
    jvm = spark._jvm.java.lang.ProcessHandle.current().pid()
    # warm-up on a few sensors: starts Spark's Python workers and imports
    # chronolog there (a one-off cost per worker, reported separately)
    t0 = time.perf_counter()
    w_r, w_m = data(10, 10)
    kw = {"arrow": True} if results == "arrow" and takes_arrow(cs) else {}
    for df in cs.reason(spark, PROGRAM, {"reading": spark.createDataFrame(w_r), "maintenance": spark.createDataFrame(w_m)}, distributed=True, **kw).values():
        None if kw else df.toArrow()
    for _ in range(warmup):  # full-size calls: the JIT compiler gets past Spark's own driver code
        call(spark, cs, paths, partitions, inputs, results)
    print(json.dumps({"warm": time.perf_counter() - t0}), flush=True)
    for line in sys.stdin:
        if line.strip() != "call":
            break
        assert spark._jsparkSession.sharedState().cacheManager().isEmpty()
        before = last_job(spark)
        l0, c0, j0, th0, t0 = load(), time.process_time(), tree_cpu(jvm), jvm_threads(jvm), time.perf_counter()
        got = call(spark, cs, paths, partitions, inputs, results)
        wall = time.perf_counter() - t0
        driver_py = time.process_time() - c0
        spark_cpu, python = cpu_delta(j0, tree_cpu(jvm))
        split = jvm_split(th0, jvm_threads(jvm))
        cpu = driver_py + spark_cpu
        l1 = load()
        for p, t in got.items():
            pq.write_table(t, os.path.join(answers, f"{p}.parquet"))
        # the reasoning stage reads the shuffle by key and runs the tasks
        # in parallel; the rest of the call's wall time is serial or fixed
        time.sleep(0.5)  # the UI's listener catches up with the last job
        jobs = spark_jobs(spark, before)
        reasoning = max((s for _, _, st in jobs for s in st if s[2] > 0), default=(0.0, 0.0, 0))
        print(json.dumps({
            "wall": wall, "cpu": cpu, "load": (l0 + l1) / 2, "python": python,
            "reasoning": reasoning[0], "jobs": [d for _, d, _ in jobs],
            "driver_py": driver_py, "jvm": split,
        }), flush=True)
    spark.stop()


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--sensors", type=int, default=2000)
    ap.add_argument("--readings", type=int, default=100)
    ap.add_argument("--masters", default="local[1],local[2]", help="Spark masters to compare, comma-separated")
    ap.add_argument("--partitions", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=2, help="calls per side, each reading the inputs afresh")
    ap.add_argument("--files", type=int, default=4, help="Parquet files per input predicate")
    ap.add_argument(
        "--embedded-repeat", type=int, default=None,
        help="runs of the embedded engine (default: --repeat); its model checks every Spark answer",
    )
    ap.add_argument(
        "--warmup", type=int, default=0,
        help="full-size calls per session before the timed ones (untimed): a young JVM's compiler "
        "competes with the tasks for cores",
    )
    ap.add_argument(
        "--before", metavar="DIR",
        help="also run each master with the chronolog package in DIR (a directory holding chronolog/ laid "
        "out as installed: chronolog/connectors, chronolog/engine, ...; e.g. an export of the main branch), "
        "alternating call by call with this tree",
    )
    ap.add_argument(
        "--inputs", choices=("dataframes", "bind"), default="dataframes",
        help="dataframes: the caller reads the inputs with spark.read.parquet and passes the DataFrames; "
        "bind: the program binds them with @bind(..., \"spark parquet\", ...) and chronolog reads them",
    )
    ap.add_argument(
        "--results", choices=("toarrow", "arrow"), default="toarrow",
        help="toarrow: the call returns DataFrames and each output is fetched with toArrow; arrow: the call "
        "returns the Arrow tables itself (reason(..., arrow=True); a --before tree without it uses toarrow)",
    )
    ap.add_argument("--json", metavar="FILE", help="append one JSON line per side (medians of calls 2-N) to FILE")
    ap.add_argument("--tree", help=argparse.SUPPRESS)  # internal: the child's package directory
    ap.add_argument("--serve", help=argparse.SUPPRESS)  # internal: the child process of one master
    ap.add_argument("--label", help=argparse.SUPPRESS)
    ap.add_argument("--data", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.tree:  # this package ahead of the tree the script lives in
        sys.path.insert(0, args.tree)
    import json
    import statistics
    import subprocess

    import pyarrow.parquet as pq

    from chronolog.api import reason
    from chronolog.engine.arrow import table_to_rows

    if args.serve:
        paths = {p: os.path.join(args.data, p) for p in ("reading", "maintenance")}
        return serve(args.serve, paths, args.partitions, os.path.join(args.data, "answers", args.label or args.serve), args.warmup, args.inputs, args.results)

    tmp = tempfile.mkdtemp(prefix="spark_sensors_")
    reading, maint = data(args.sensors, args.readings)
    paths = {"reading": os.path.join(tmp, "reading"), "maintenance": os.path.join(tmp, "maintenance")}
    # several files per input, as Spark writes a dataset: a single small file
    # is one input split, and its read and shuffle would be one serial task
    for pred, table in (("reading", reading), ("maintenance", maint)):
        os.makedirs(paths[pred])
        step = -(-table.num_rows // args.files)
        for i in range(args.files):
            pq.write_table(table.slice(i * step, step), os.path.join(paths[pred], f"part-{i:05d}.parquet"))
    n = reading.num_rows
    print(f"{args.sensors} sensors x {args.readings} readings = {n} facts (Parquet under {tmp}); inputs: {args.inputs}; results: {args.results}")
    emb = []
    for _ in range(args.embedded_repeat or args.repeat):
        l0, c0, t0 = load(), time.process_time(), time.perf_counter()
        facts = {p: pq.read_table(f) for p, f in paths.items()}  # the tables themselves, as a user passes them
        model = reason(PROGRAM, facts)
        emb.append((time.perf_counter() - t0, time.process_time() - c0, (l0 + load()) / 2))
    print("  embedded, one process: " + ", ".join(f"{w:.2f} s (cpu {c:.2f} s, load {l:.1f})" for w, c, l in emb), flush=True)

    # one child process per master, each with its session warmed up; the
    # calls alternate between them (the order flips every round), so both
    # masters are measured under the same load
    masters = args.masters.split(",")
    trees = [("", None)] + ([(" before", os.path.abspath(args.before))] if args.before else [])
    sides = [(master + suffix, master, where) for suffix, where in trees for master in masters]
    children = {}
    for label, master, where in sides:
        os.makedirs(os.path.join(tmp, "answers", label))
        cmd = [sys.executable, __file__, "--serve", master, "--label", label, "--data", tmp, "--inputs", args.inputs, "--results", args.results]
        if args.partitions:
            cmd += ["--partitions", str(args.partitions)]
        if args.warmup:
            cmd += ["--warmup", str(args.warmup)]
        env = dict(os.environ)
        if where:  # in the child, and in its Spark workers through PYTHONPATH
            cmd += ["--tree", where]
            env["PYTHONPATH"] = os.pathsep.join([where] + [p for p in [env.get("PYTHONPATH")] if p])
        children[label] = child = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        warm = reply(child)["warm"]  # one session starts at a time
        print(f"  {label:10s} warm-up (workers start, import) {warm:8.2f} s", flush=True)
    labels = [label for label, _, _ in sides]
    results = {m: [] for m in labels}
    for k, master, r in alternating_calls(children, labels, args.repeat):
        results[master].append(r)
        print(
            f"  {master:10s} call {k + 1}: {r['wall']:.2f} s wall = reasoning stage {r['reasoning']:.2f} s "
            f"+ the rest {r['wall'] - r['reasoning']:.2f} s ({len(r['jobs'])} Spark jobs: "
            + ", ".join(f"{d:.2f}" for d in r["jobs"])
            + f" s); CPU {r['cpu']:.2f} s, of it Python workers {r['python']} s; load {r['load']:.1f}\n"
            f"{'':14s}serial CPU: driver Python {r['driver_py']:.3f} s + driver JVM {r['jvm']['driver']:.3f} s; "
            f"beside it JIT {r['jvm']['jit']:.2f} s, GC {r['jvm']['gc']:.2f} s, executor threads {r['jvm']['executor']:.2f} s",
            flush=True,
        )
    for child in children.values():
        child.stdin.write("quit\n")
        child.stdin.close()
        child.wait()
    for master in labels:
        got = {p: pq.read_table(os.path.join(tmp, "answers", master, f"{p}.parquet")) for p in ("alarm", "warn", "quiet")}
        same = all(sorted(table_to_rows(got[p], p), key=repr) == sorted(model.facts(p), key=repr) for p in got)
        print(f"  {master:10s} same answers as the embedded model: {same}")
    best_e = min(w for w, _, _ in emb)
    best = {m: min(r["wall"] for r in rs) for m, rs in results.items()}
    median = {m: statistics.median(r["wall"] for r in rs[1:] or rs) for m, rs in results.items()}
    for m in results:
        print(f"  {m:10s} best {best[m]:.2f} s, median of calls 2-{args.repeat} {median[m]:.2f} s: best {best_e / best[m]:.2f}x the embedded engine's {best_e:.2f} s")
    cpu = {m: min(r["cpu"] for r in rs) for m, rs in results.items()}
    for m, rs in results.items():
        later = rs[1:] or rs
        print(
            f"  {m:10s} medians of calls 2-{args.repeat}: the rest (all but the reasoning stage) "
            f"{statistics.median(r['wall'] - r['reasoning'] for r in later):.2f} s wall, of it "
            f"{statistics.median(sum(r['jobs']) - r['reasoning'] for r in later):.2f} s in the other Spark jobs; "
            f"serial CPU (driver Python + driver JVM) {statistics.median(r['driver_py'] + r['jvm']['driver'] for r in later):.3f} s; "
            f"JIT {statistics.median(r['jvm']['jit'] for r in later):.2f} s"
        )
    if args.json:
        with open(args.json, "a") as f:
            for m, rs in results.items():
                later = rs[1:] or rs
                med = lambda xs: round(statistics.median(xs), 3)  # noqa: E731
                f.write(json.dumps({
                    "side": m, "facts": n, "inputs": args.inputs, "results": args.results,
                    "best": round(best[m], 3), "median": round(median[m], 3),
                    "jobs": med(len(r["jobs"]) for r in later),
                    "serial_cpu": med(r["driver_py"] + r["jvm"]["driver"] for r in later),
                    "driver_py": med(r["driver_py"] for r in later),
                    "workers_cpu": med(sum(r["python"]) for r in later),
                    "executor_cpu": med(r["jvm"]["executor"] for r in later),
                    "jit": med(r["jvm"]["jit"] for r in later),
                    "reasoning": med(r["reasoning"] for r in later),
                    "load": med(r["load"] for r in later),
                    "walls": [round(r["wall"], 2) for r in rs],
                }) + "\n")
    for suffix, _ in trees if len(masters) == 2 else []:
        a, b = (m + suffix for m in masters)
        print(
            f"  {b} against {a}: wall {best[a] / best[b]:.2f}x best, {median[a] / median[b]:.2f}x median; "
            f"CPU {cpu[a]:.2f} s against {cpu[b]:.2f} s"
        )
        # On N cores local[2]'s call cannot take less wall than its CPU / N;
        # local[1] already keeps more than one core busy (the JVM's executor
        # threads, compiler and collector beside its one worker), so this
        # caps the ratio whatever the serial part.
        cores = len(os.sched_getaffinity(0))
        cap = {m: statistics.median(r["wall"] for r in rs[1:] or rs) for m, rs in results.items()}
        busy = statistics.median(r["cpu"] / r["wall"] for r in results[a][1:] or results[a])
        cpu_b = statistics.median(r["cpu"] for r in results[b][1:] or results[b])
        print(
            f"  {cores} cores: {a} keeps {busy:.2f} cores busy (median); {b}'s median CPU {cpu_b:.2f} s needs at least "
            f"{cpu_b / cores:.2f} s on {cores} cores, so {b} can be at most {cap[a] * cores / cpu_b:.2f}x faster (medians)"
        )


if __name__ == "__main__":
    main()
