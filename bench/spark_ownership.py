"""Company control over generated ownership graphs on Spark, with no key.

The program is examples/ownership/temporal.vada (control through chains of
controlled companies, a diamond, conditions), or another one over ``own``
with ``--program`` (examples/ownership/aggregation.vada: control through
summed shares, ``msum`` inside the recursion): control chains join facts of
different companies, so it has no partition key and runs as seminaive
rounds of DataFrame operations (connectors/spark_rounds/).

The graph (bench/ownership_gen.py) is written to Parquet first; then each
measured run is its own process (the Spark driver: ``--worker``) that reads
the Parquet with Spark, reasons with ``chronolog.spark.reason(...,
distributed=True)`` and writes the outputs as Parquet: the whole command.
It reports wall time, CPU seconds of the driver's Python and of the JVM
(from /proc; this machine is shared, so wall time alone says little), the
load average, the driver's Python peak resident memory (``VmHWM`` of that
process; the JVM is a child process and not counted), and the rounds with
their time, plan-building time, delta, jobs, stages, tasks, task time and
shuffle bytes (read from Spark's monitoring REST API per job group: one
group per round), the JVM's CPU per thread class (task slots, JIT
compilers, garbage collector, the driver's Py4J threads, the rest; from
/proc/<jvm>/task), the classes Spark generated and compiled, the seconds
with no task running, one, or two or more (from every task's launch time
and duration in the REST API's task list; per round too; the load of the
inputs is shown first, as a phase of its own), with ``--stages`` each
phase's stages (tasks, rows and seconds per task, task CPU), then
local[1]/local[2] with the most two task slots could give (Amdahl's law
from the local[1] run).  ``--jvm tuned default`` runs each master with
chronolog's session settings (``connectors.spark.SESSION_DEFAULTS``: JVM
options, codegen cache) and with the JVM's and Spark's own, side by side.  ``--repeat`` runs again in the
same session (JIT warm), ``--rounds-module`` runs another version of the
rounds (connectors/spark_rounds/) side by side: a directory is a version of
the package (``git archive REV connectors/spark_rounds | tar -x -C
/tmp/before``, then ``--rounds-module /tmp/before/connectors/spark_rounds``),
a file a version from before the package was split
(``git show REV:connectors/spark_rounds.py > /tmp/before.py``).  ``--aqe``
sets adaptive execution.  At
``--check`` sizes the embedded engine runs the same program on the same facts
in another process and the models must be equal (asserted).  With two
``--check`` sizes, the marginal CPU per edge between them on each side and
where Spark's goes (its JVM's threads by class); with ``--repeat`` also in a
warm JVM (each session's last run), which leaves out the JIT's warm-up: a
fresh JVM runs the tasks' code interpreted or at C1 for longer the larger
the input, so the first run's figure is not a cost per fact alone.

Usage::

    python bench/spark_ownership.py --facts 100000 1000000 --check 100000 --masters local[2] local[1] --repeat 2
    python bench/spark_ownership.py --program examples/ownership/aggregation.vada --facts 100000 --check 100000
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PROGRAM = ROOT / "examples" / "ownership" / "temporal.vada"
INPUT = "own"  # the predicate the Parquet file gives (--input; bench/spark_reach.py: edge)
sys.path.insert(0, str(HERE))


def parquet_of(n: int, seed: int = 1) -> Path:
    """The generated graph as Parquet (owner, company, share, [start, end)),
    in 8 row groups: a Parquet split holds whole row groups, so with a
    single one (pyarrow's default up to 1M rows) one task reads everything."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    import ownership_gen

    out = ownership_gen.DATA_DIR / f"own_{n}_s{seed}_rg8.parquet"
    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    cols = {k: [] for k in ("owner", "company", "share", "start", "end")}
    for line in ownership_gen.facts(n, seed):
        args, iv = line[4:].split(")@[")
        h, c, s = args.split(",")
        lo, hi = iv.rstrip(")").split(",")
        for k, v in zip(cols, (h, c, int(s), int(lo), int(hi))):
            cols[k].append(v)
    t = pa.table({**cols, "start_closed": [True] * n, "end_closed": [False] * n})
    pq.write_table(t, out, row_group_size=max(n // 8, 1))
    return out


def _rest(url: str):
    import urllib.request

    with urllib.request.urlopen(url, timeout=30) as r:
        return json.load(r)


STAGE_FIELDS = ("shuffleWriteBytes", "shuffleReadBytes", "numCompleteTasks", "executorRunTime", "executorCpuTime")


def shuffle_by_group(sc) -> dict:
    """``{job group: {jobs, stages and the STAGE_FIELDS summed}}`` from the
    monitoring REST API of the running application (executorRunTime in ms,
    executorCpuTime in ns, summed over the tasks)."""
    base = f"{sc.uiWebUrl}/api/v1/applications/{sc.applicationId}"
    stages = {}
    for s in _rest(f"{base}/stages"):
        st = stages.setdefault(s["stageId"], dict.fromkeys(STAGE_FIELDS, 0))
        for k in STAGE_FIELDS:
            st[k] += s.get(k, 0)
    out, seen = {}, set()
    for j in _rest(f"{base}/jobs"):
        g = j.get("jobGroup")
        if g is None:
            continue
        w = out.setdefault(g, dict(jobs=0, stages=0, **dict.fromkeys(STAGE_FIELDS, 0)))
        w["jobs"] += 1
        for sid in j["stageIds"]:
            if sid in seen or sid not in stages:  # a stage shared by jobs (or skipped) counts once
                continue
            seen.add(sid)
            w["stages"] += 1
            for k in STAGE_FIELDS:
                w[k] += stages[sid][k]
    out["all"] = {k: sum(st[k] for st in stages.values()) for k in STAGE_FIELDS}
    out["all"]["gc_ms"] = sum(x.get("totalGCTime", 0) for x in _rest(f"{base}/allexecutors"))
    return out


def stages_by_group(sc, groups) -> dict:
    """``{job group: [stage]}`` for ``groups``: per stage its tasks, the rows
    each read (input or shuffle) and its seconds, low and high, and the
    stage's task CPU: a stage with one task, or one task far above the
    others, runs on one slot whatever the master (``--stages``)."""
    base = f"{sc.uiWebUrl}/api/v1/applications/{sc.applicationId}"
    stages = {s["stageId"]: s for s in _rest(f"{base}/stages") if s.get("status") == "COMPLETE"}
    out = {}
    for j in sorted(_rest(f"{base}/jobs"), key=lambda j: j["jobId"]):
        if j.get("jobGroup") not in groups:
            continue
        for sid in sorted(j["stageIds"]):
            if sid not in stages:
                continue
            tl = _rest(f"{base}/stages/{sid}/{stages[sid]['attemptId']}/taskList?length=100000")
            rows = [t["taskMetrics"]["inputMetrics"]["recordsRead"] + t["taskMetrics"]["shuffleReadMetrics"]["recordsRead"] for t in tl]
            secs = [t.get("duration", 0) / 1e3 for t in tl]
            out.setdefault(j["jobGroup"], []).append(dict(
                stage=sid, tasks=len(tl), rows=(min(rows, default=0), max(rows, default=0)),
                task_s=(round(min(secs, default=0), 2), round(max(secs, default=0), 2)),
                cpu_s=round(stages[sid]["executorCpuTime"] / 1e9, 2), name=stages[sid]["name"].split(" at ")[0]))
    return out


def _epoch(stamp: str) -> float:
    """Seconds since the epoch of a REST API time (``2026-11-25T19:32:25.809GMT``)."""
    from datetime import datetime, timezone

    return datetime.strptime(stamp[:23], "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=timezone.utc).timestamp()


def slot_timeline(sc, t0: float, t1: float, spans=()) -> dict:
    """How many tasks ran when, between ``t0`` and ``t1`` (epoch seconds),
    from the task list of Spark's REST API: seconds with no task running
    (``idle``: the driver planning, submitting, collecting, or building a
    broadcast), split into ``idle_in_jobs`` (a job submitted, no task of it
    running: scheduling, task serialization, a broadcast built between its
    stages) and ``idle_between_jobs`` (no job at all: the driver planning
    the next one); seconds with exactly one task (``one``) and with two or
    more (``two``).  ``spans``: ``[(label, start, end)]`` (rounds) to give
    the idle seconds of each."""
    base = f"{sc.uiWebUrl}/api/v1/applications/{sc.applicationId}"
    events, jobs = [], []
    for j in _rest(f"{base}/jobs"):
        if "submissionTime" in j and _epoch(j["submissionTime"]) < t1:
            a = _epoch(j["submissionTime"])
            b = _epoch(j["completionTime"]) if "completionTime" in j else t1
            if b > t0:
                jobs.append((max(a, t0), min(b, t1)))
    for s in _rest(f"{base}/stages"):
        if "submissionTime" not in s or _epoch(s["submissionTime"]) > t1 or (
                "completionTime" in s and _epoch(s["completionTime"]) < t0):
            continue
        for t in _rest(f"{base}/stages/{s['stageId']}/{s['attemptId']}/taskList?length=100000"):
            a = _epoch(t["launchTime"])
            b = a + t.get("duration", 0) / 1e3
            if b > t0 and a < t1:
                events += [(max(a, t0), 1), (min(b, t1), -1)]
    for a, b in jobs:
        events += [(a, 0), (b, 0)]
    marks = sorted({t0, t1, *(e[0] for e in events), *(x for _, a, b in spans for x in (a, b) if t0 <= x <= t1)})
    delta = {}
    for t, d in events:
        delta[t] = delta.get(t, 0) + d
    out = dict(idle=0.0, idle_in_jobs=0.0, idle_between_jobs=0.0, one=0.0, two=0.0)
    per_span = [0.0] * len(spans)
    running = 0
    for a, b in zip(marks, marks[1:]):
        running += delta.get(a, 0)
        d = b - a
        if running <= 0:
            out["idle"] += d
            in_job = any(x <= a and b <= y for x, y in jobs)
            out["idle_in_jobs" if in_job else "idle_between_jobs"] += d
            for i, (_, x, y) in enumerate(spans):
                if x <= a and b <= y:
                    per_span[i] += d
        else:
            out["one" if running == 1 else "two"] += d
    out = {k: round(v, 2) for k, v in out.items()}
    out["idle_per_span"] = [round(x, 2) for x in per_span]
    return out


def cpu_seconds(pid, descendants=True) -> float:
    """User + system CPU seconds of a process, and with ``descendants`` of
    every living descendant (the JVM's threads are one process; Python
    workers are its children; the driver's child is the JVM itself)."""
    tick = os.sysconf("SC_CLK_TCK")
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            f = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in f[11:13]) / tick  # utime stime (children not yet waited for are walked below)
            if descendants:
                for t in Path(f"/proc/{p}/task").iterdir():
                    todo += [int(c) for c in (t / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


# JVM thread names (Linux keeps the first 15 characters) by the work they do
THREAD_CLASSES = (
    ("task", ("Executor task",)),  # the task slots ("Executor task launch worker ...", named per task)
    ("jit", ("C1 CompilerThre", "C2 CompilerThre")),  # HotSpot's JIT compilers
    ("gc", ("GC Thread", "G1 ", "VM Thread", "Parallel GC", "Concurrent Mar")),  # the collector (and its safepoints)
    ("py4j", ("Thread-",)),  # the driver's Py4J connections: analysis, planning, code generation
)


def thread_cpu(pid) -> dict:
    """``{thread id: (class, CPU seconds)}`` of a JVM's living threads, and
    ``{"process": seconds}`` (which includes threads that have ended)."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    try:
        f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        out["process"] = ("process", sum(int(x) for x in f[11:13]) / tick)
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except (FileNotFoundError, ProcessLookupError):
        return out
    for t in tasks:
        try:
            name = (t / "comm").read_text().rstrip("\n")
            f = (t / "stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        cls = next((c for c, prefixes in THREAD_CLASSES if name.startswith(prefixes)), "other")
        out[t.name] = (cls, sum(int(x) for x in f[11:13]) / tick)
    return out


def thread_classes(before: dict, after: dict) -> dict:
    """CPU seconds per thread class between two :func:`thread_cpu` samples;
    ``ended``: CPU of threads that ended in between (process minus living)."""
    out = dict.fromkeys([c for c, _ in THREAD_CLASSES] + ["other", "ended"], 0.0)
    for tid, (cls, sec) in after.items():
        if tid != "process":
            out[cls] += sec - before.get(tid, (cls, 0.0))[1]
    living = sum(out.values())
    out["ended"] = after.get("process", ("", 0.0))[1] - before.get("process", ("", 0.0))[1] - living
    return {k: round(v, 2) for k, v in out.items()}


def codegen_counts(spark) -> tuple:
    """(classes Spark compiled with Janino, their compile seconds) so far in this JVM:
    a generated class is compiled once per distinct source (a cache hit
    compiles nothing), then interpreted and JIT-compiled like any class."""
    jvm = spark.sparkContext._jvm
    n = jvm.org.apache.spark.metrics.source.CodegenMetrics.METRIC_COMPILATION_TIME().getCount()
    ns = jvm.org.apache.spark.sql.catalyst.expressions.codegen.CodeGenerator.compileTime()
    return int(n), int(ns) / 1e9


def peak_mb() -> float:
    """This process's peak resident memory (``VmHWM``).  Not ``ru_maxrss``:
    Linux keeps that across ``exec``, so a child forked from a large parent
    would report the parent's size."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load_rounds(path: str):
    """Another version of the rounds in place of this tree's
    ``chronolog.connectors.spark_rounds`` (connectors/spark.py imports it
    when it runs): a directory is a version of the package, its modules
    loaded from there; a file is a version from before the split, one
    module."""
    import importlib.util

    import chronolog.connectors as pkg

    name = "chronolog.connectors.spark_rounds"
    for m in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[m]  # this tree's modules: the other version's own are imported instead
    where = Path(path)
    if where.is_dir():
        spec = importlib.util.spec_from_file_location(name, where / "__init__.py", submodule_search_locations=[str(where)])
    else:
        spec = importlib.util.spec_from_file_location(name, where)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = pkg.spark_rounds = mod
    spec.loader.exec_module(mod)
    return mod


def worker(master: str, data: str, out_dir: str, partitions: int, conf=(), aqe=False, repeat=1, module=None, jvm="tuned", stages=False) -> dict:
    t0 = time.perf_counter()
    from chronolog import spark as cs
    from chronolog.connectors import spark_rounds

    if module:  # another version of the rounds, side by side (e.g. from git archive or git show)
        spark_rounds = load_rounds(module)
    # the settings of the rounds, where they are read: the package's driver
    # module (rounds.py), or the one module of a version before the split
    driver = sys.modules.get(f"{spark_rounds.__name__}.rounds", spark_rounds)
    if aqe:  # the rounds as before fusing: adaptive execution on
        driver.ROUND_CONF = {**driver.ROUND_CONF, "spark.sql.adaptive.enabled": "true"}
    label = "fused" if hasattr(driver, "ROUND_CONF") else "before fusing"
    if module and label == "fused":  # another fused version: named by its file
        label = f"fused ({Path(module).stem})"

    spark = cs.session(master, "chronolog-bench", tuned=jvm == "tuned", **{
        **({"spark.sql.shuffle.partitions": str(partitions)} if partitions else {}),
        "spark.driver.memory": "2g",
        "spark.ui.enabled": "true",
        "spark.sql.files.maxPartitionBytes": "1m",  # several input tasks (a cluster's table is many files)
        **dict(c.split("=", 1) for c in conf),
    })
    spark.sparkContext.setLogLevel("ERROR")
    t_session = time.perf_counter() - t0
    peak_session = peak_mb()
    # the version before fusing numbers its job groups per run, so a second
    # run in its session would mix the rounds of both: it runs once
    runs = [measured_run(spark, cs, data, out_dir, stages) for _ in range(repeat if label.startswith("fused") else 1)]
    spark.stop()
    # the first run's figures (a fresh JVM, as a one-off command), and the later runs' in the same session
    return dict(master=master, aqe=aqe, code=label, jvm=jvm, session_s=round(t_session, 2), peak_after_session_mb=round(peak_session, 1),
                driver_peak_mb=round(peak_mb(), 1), **runs[0], later=runs[1:])


def measured_run(spark, cs, data: str, out_dir: str, stages=False) -> dict:
    """One reasoning run and the write of its outputs, with its figures."""
    before = shuffle_by_group(spark.sparkContext)["all"]
    before, gc_before = before["executorRunTime"], before["gc_ms"]
    own = spark.read.parquet(data)
    stats = {}
    load0 = os.getloadavg()[0]
    jvm = spark.sparkContext._gateway.proc.pid
    cg0 = codegen_counts(spark)
    cpu0 = (cpu_seconds("self", False), cpu_seconds(jvm))
    th0 = thread_cpu(jvm)
    t1, e0 = time.perf_counter(), time.time()
    out = cs.reason(spark, PROGRAM, inputs={INPUT: own}, distributed=True, stats=stats)
    t_reason = time.perf_counter() - t1
    for p, df in out.items():
        df.write.mode("overwrite").parquet(f"{out_dir}/{p}")
    t_total, e1 = time.perf_counter() - t1, time.time()
    cpu1 = (cpu_seconds("self", False), cpu_seconds(jvm))
    threads = thread_classes(th0, thread_cpu(jvm))
    cg1 = codegen_counts(spark)
    load1 = os.getloadavg()[0]
    peak_reason = peak_mb()
    groups = shuffle_by_group(spark.sparkContext)
    task_ms = groups["all"]["executorRunTime"] - before
    # the load of the inputs (a job group of its own since the load was
    # measured apart, stratum -1) is shown as the first "round"
    phases = ([stats["load"]] if stats.get("load") is not None else []) + list(stats.get("rounds", []))
    spans = [(f"{r.stratum}.{r.round}", r.started, r.started + r.seconds)
             for r in phases if getattr(r, "started", None)]
    slots = slot_timeline(spark.sparkContext, e0, e1, spans)
    idle = dict(zip((x[0] for x in spans), slots.pop("idle_per_span")))
    rounds = []
    for r in phases:
        g = groups.get(r.job_group, dict(jobs=0, stages=0, **dict.fromkeys(STAGE_FIELDS, 0)))
        rounds.append(dict(stratum=r.stratum, round=r.round, seconds=round(r.seconds, 2),
                           plan_s=round(getattr(r, "plan_seconds", 0), 2), delta=r.delta,
                           shuffle_write=g["shuffleWriteBytes"], shuffle_read=g["shuffleReadBytes"],
                           jobs=g["jobs"], stages=g["stages"], tasks=g["numCompleteTasks"],
                           task_s=round(g["executorRunTime"] / 1e3, 2), task_cpu_s=round(g["executorCpuTime"] / 1e9, 2),
                           idle_s=idle.get(f"{r.stratum}.{r.round}")))
    if stages:
        per = stages_by_group(spark.sparkContext, {r.job_group for r in phases})
        for x, r in zip(rounds, phases):
            x["stage_list"] = per.get(r.job_group, [])
    return dict(
        path=stats.get("path"), reason_s=round(t_reason, 2), total_s=round(t_total, 2),
        peak_after_reason_mb=round(peak_reason, 1),
        driver_cpu_s=round(cpu1[0] - cpu0[0], 2), jvm_cpu_s=round(cpu1[1] - cpu0[1], 2),
        load=(round(load0, 2), round(load1, 2)), app_task_s=round(task_ms / 1e3, 2),
        gc_s=round((groups["all"]["gc_ms"] - gc_before) / 1e3, 2), rounds=rounds,
        threads=threads, slots=slots, codegen_classes=cg1[0] - cg0[0], codegen_s=round(cg1[1] - cg0[1], 2),
    )


def embedded_worker(data: str, out: str) -> dict:
    """The embedded engine on the same Parquet (its facts as Arrow): read,
    reason and write every output as Parquet, timed (wall and CPU)."""
    import pyarrow.parquet as pq

    import chronolog

    t0, c0 = time.perf_counter(), time.process_time()
    own = pq.read_table(data)
    model = chronolog.reason(PROGRAM, {INPUT: own})
    for p in model.output_predicates:  # written as the Spark side writes its outputs
        pq.write_table(model.to_arrow(p), f"{out}.{p}.parquet")
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    # the answers' text for the comparison, outside the clock
    facts = {p: sorted(map(repr, model.facts(p))) for p in model.output_predicates}
    Path(out).write_text(json.dumps(facts))
    return dict(embedded_s=round(wall, 2), cpu_s=round(cpu, 2), peak_mb=round(peak_mb(), 1))


def spark_facts(out_dir: str) -> dict:
    import pyarrow.parquet as pq

    from chronolog.engine.arrow import table_to_rows
    from chronolog.language.timeline import coalesce

    res = {}
    for p in sorted(os.listdir(out_dir)):
        atoms = {}
        for t, iv in table_to_rows(pq.read_table(f"{out_dir}/{p}"), p):
            atoms.setdefault(tuple(t), []).append(iv)
        res[p] = sorted(repr((t, iv)) for t, ivs in atoms.items() for iv in coalesce(ivs))
    return res


def show(label: str, r: dict, peak: float) -> None:
    """One measured run and its rounds, on stderr."""
    cpu = r["driver_cpu_s"] + r["jvm_cpu_s"]
    print(f"{label}: reason {r['reason_s']} s, with output {r['total_s']} s; CPU driver "
          f"{r['driver_cpu_s']} s + JVM {r['jvm_cpu_s']} s = {cpu:.1f} s ({cpu / r['total_s']:.2f} cores busy); "
          f"load {r['load'][0]}->{r['load'][1]}; driver peak {peak} MB; "
          f"{sum(x['stratum'] != -1 for x in r['rounds'])} rounds, {sum(x['jobs'] for x in r['rounds'] if x['stratum'] != -1)} jobs in rounds ({r['path']})", file=sys.stderr, flush=True)
    for x in r["rounds"]:
        print(("    load of the inputs" if x["stratum"] == -1 else f"    stratum {x['stratum']} round {x['round']}")
              + f": {x['seconds']} s (plans {x['plan_s']} s), "
              f"delta {x['delta']}, shuffle write {x['shuffle_write'] / 1e6:.2f} MB read {x['shuffle_read'] / 1e6:.2f} MB, "
              f"{x['jobs']} jobs {x['stages']} stages {x['tasks']} tasks, task time {x['task_s']} s "
              f"(CPU {x['task_cpu_s']} s)" + (f", no task running {x['idle_s']} s" if x.get("idle_s") is not None else ""),
              file=sys.stderr)
        for g in x.get("stage_list", []):
            print(f"        stage {g['stage']} ({g['name']}): {g['tasks']} tasks, rows {g['rows'][0]}-{g['rows'][1]} per task, "
                  f"{g['task_s'][0]}-{g['task_s'][1]} s per task, CPU {g['cpu_s']} s", file=sys.stderr)
    rounds = [x for x in r["rounds"] if x["stratum"] != -1]
    rs = sum(x["seconds"] for x in rounds)
    print(f"    rounds {rs:.1f} s of reason {r['reason_s']} s; task time {r['app_task_s']:.1f} s in all "
          f"(JVM garbage collection during tasks {r.get('gc_s', 0):.1f} s), "
          f"{sum(x['task_s'] for x in rounds):.1f} s in rounds; driver building plans in rounds "
          f"{sum(x['plan_s'] for x in rounds):.1f} s", file=sys.stderr, flush=True)
    if "slots" in r:
        sl = r["slots"]
        print(f"    tasks running: none {sl['idle']} s (in jobs {sl['idle_in_jobs']} s, between jobs {sl['idle_between_jobs']} s), "
              f"one {sl['one']} s, two or more {sl['two']} s", file=sys.stderr, flush=True)
    if "threads" in r:
        print("    JVM CPU by thread: " + ", ".join(f"{k} {v} s" for k, v in r["threads"].items())
              + f"; driver Python {r['driver_cpu_s']} s; classes generated and compiled by Spark {r['codegen_classes']}"
              f" ({r['codegen_s']} s)", file=sys.stderr, flush=True)


def run_child(args: list) -> dict:
    r = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"child {args} failed:\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    global PROGRAM, INPUT
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--program", default=str(PROGRAM), help="the program over own(owner, company, share) (default: %(default)s)")
    ap.add_argument("--input", default=INPUT, help="the predicate the Parquet file gives (default: %(default)s)")
    ap.add_argument("--facts", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--masters", nargs="+", default=["local[2]"])
    ap.add_argument("--check", type=int, nargs="*", default=[100_000],
                    help="sizes compared with the embedded engine (--check alone: every size of --facts)")
    ap.add_argument("--partitions", type=int, default=4, help="spark.sql.shuffle.partitions (0: not set, the rounds choose)")
    ap.add_argument("--jvm", nargs="+", choices=("tuned", "default"), default=["tuned"],
                    help="tuned: the session's JVM options and codegen cache (connectors.spark.SESSION_DEFAULTS); "
                         "default: the JVM's and Spark's own; both: side by side")
    ap.add_argument("--json", help="append result rows (JSON lines) here")
    ap.add_argument("--conf", nargs="*", default=[], metavar="KEY=VALUE", help="extra Spark settings")
    ap.add_argument("--aqe", choices=("off", "on", "both"), default="off",
                    help="adaptive execution during the rounds: off (the library's setting), on (as before fusing), both")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs in one session: the first in a fresh JVM, the later ones with its JIT warm (nothing cached)")
    ap.add_argument("--rounds-module", metavar="FILE",
                    help="also run this version of the rounds, side by side: a directory holding the package "
                         "connectors/spark_rounds/ (e.g. from `git archive REV connectors/spark_rounds | tar -x -C DIR`) "
                         "or one file from before the split (`git show REV:connectors/spark_rounds.py`)")
    ap.add_argument("--stages", action="store_true",
                    help="also list each phase's stages: tasks, rows and seconds per task (low-high), task CPU")
    ap.add_argument("--worker", nargs=3, metavar=("MASTER", "DATA", "OUT"), help=argparse.SUPPRESS)
    ap.add_argument("--embedded", nargs=2, metavar=("DATA", "OUT"), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    PROGRAM, INPUT = Path(a.program).resolve(), a.input
    if a.check == []:  # given with no size: it used to check nothing
        a.check = list(a.facts)
    if a.worker:
        print(json.dumps(worker(*a.worker, a.partitions, a.conf, a.aqe == "on", a.repeat, a.rounds_module, a.jvm[0], a.stages)))
        return 0
    if a.embedded:
        print(json.dumps(embedded_worker(*a.embedded)))
        return 0
    import tempfile

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    status = 0
    checked = []  # (facts, the first run of the first master, the embedded run) of each size checked
    for n in a.facts:
        data = str(parquet_of(n))
        with tempfile.TemporaryDirectory() as tmp:
            row = dict(facts=n, runs=[])
            modes = {"off": ["off"], "on": ["on"], "both": ["off", "on"]}[a.aqe]
            for aqe, jvm, m in [(x, j, m) for x in modes for j in a.jvm for m in a.masters]:
                for module in [None, a.rounds_module] if a.rounds_module else [None]:
                    out = f"{tmp}/{m}-{aqe}" + ("-other" if module else "") + ("" if jvm == a.jvm[0] else f"-{jvm}")
                    r = run_child(["--program", str(PROGRAM), "--input", INPUT, "--partitions", str(a.partitions), "--aqe", aqe, "--repeat", str(a.repeat), "--jvm", jvm,
                                   *(["--rounds-module", module] if module else []), *(["--stages"] if a.stages else []), "--conf", *a.conf,
                                   "--worker", m, data, out])
                    row["runs"].append(r)
                    for i, x in enumerate([r, *r["later"]]):
                        show(f"[{n}] {m} aqe {aqe} {r['code']} jvm {jvm}" + (f" run {i + 1} (same session)" if i else ""), x,
                             r["driver_peak_mb"])
            if n in (a.check or []):
                e = run_child(["--program", str(PROGRAM), "--input", INPUT, "--embedded", data, f"{tmp}/embedded.json"])
                want = json.loads(Path(f"{tmp}/embedded.json").read_text())
                got = spark_facts(f"{tmp}/{a.masters[0]}-{modes[0]}")
                row["embedded"] = e
                row["same_model"] = got == want
                print(f"[{n}] embedded: {e['embedded_s']} s, peak {e['peak_mb']} MB; same model: {row['same_model']} "
                      f"({', '.join(f'{len(v)} {p}' for p, v in want.items())} facts)", file=sys.stderr, flush=True)
                assert got == want, "the Spark model differs from the embedded engine's"
                checked.append((n, row["runs"][0], e))
            for aqe, jvm, code in [(x, j, c) for x in modes for j in a.jvm for c in dict.fromkeys(r["code"] for r in row["runs"])]:
                if not code.startswith("fused"):
                    continue
                runs = {r["master"]: r for r in row["runs"]
                        if r["aqe"] == (aqe == "on") and r["code"] == code and r["jvm"] == jvm}
                code = f"{code}, jvm {jvm}"
                if "local[1]" in runs and "local[2]" in runs:
                    pairs = [("first run", runs["local[1]"], runs["local[2]"])]
                    if runs["local[1]"]["later"] and runs["local[2]"]["later"]:
                        pairs.append(("last run, same session", runs["local[1]"]["later"][-1], runs["local[2]"]["later"][-1]))
                    for label, one, two in pairs:
                        sp = round(one["total_s"] / two["total_s"], 2)
                        row.setdefault("speedup", {})[f"{code}, aqe {aqe}, {label}"] = sp
                        # Amdahl from local[1]: the task time can halve, the rest cannot
                        ts = one["app_task_s"]
                        bound = one["total_s"] / max(one["total_s"] - ts / 2, 1e-9)
                        cpu1 = one["driver_cpu_s"] + one["jvm_cpu_s"]
                        cpu2 = two["driver_cpu_s"] + two["jvm_cpu_s"]
                        cores = len(os.sched_getaffinity(0))  # wall >= CPU / cores, whatever the slots
                        print(f"[{n}] {code}, aqe {aqe}, {label}: local[1]/local[2] = {sp}x wall (reason + write); "
                              f"task time {ts:.1f} / {two['app_task_s']:.1f} s, CPU {cpu1:.1f} / {cpu2:.1f} s; local[1] spent "
                              f"{ts:.1f} s of {one['total_s']} s in tasks, so two slots can give at most {bound:.2f}x; "
                              f"on {cores} cores local[2] needs at least {cpu2 / cores:.1f} s of wall for its CPU, "
                              f"so at most {one['total_s'] * cores / cpu2:.2f}x (local[1] kept {cpu1 / one['total_s']:.2f} cores busy)",
                              file=sys.stderr)
            if a.json:
                with open(a.json, "a") as f:
                    f.write(json.dumps(row) + "\n")
    if len(checked) > 1:
        (n0, s0, e0), (n1, s1, e1) = checked[0], checked[-1]
        figures = dict(marginal_us_per_edge=marginal(checked[0], checked[-1]))
        if s0["later"] and s1["later"]:  # --repeat: the same in a warm JVM, its JIT's warm-up left out
            figures["marginal_us_per_edge_warm"] = marginal((n0, s0["later"][-1], e0), (n1, s1["later"][-1], e1))
        labels = {"marginal_us_per_edge": "", "marginal_us_per_edge_warm": " in a warm JVM (the last run of each session)"}
        for key, m in figures.items():
            print(f"marginal CPU per edge{labels[key]}, {n0:,} -> {n1:,} (rounds {m['rounds'][0]} and {m['rounds'][1]}): spark {m['spark']} us, embedded "
                  f"{m['embedded']} us: {m['spark'] / m['embedded']:.1f}x; Spark's by JVM thread: "
                  + ", ".join(f"{k} {v} us" for k, v in m["threads"].items()), file=sys.stderr, flush=True)
        if a.json:
            with open(a.json, "a") as f:
                f.write(json.dumps(figures) + "\n")
    return status


def marginal(small: tuple, large: tuple) -> dict:
    """CPU microseconds per input edge between two sizes (``(facts, Spark
    run, embedded run)``), each side, and the rounds of each size: with
    as many rounds at both, the fixed cost per round cancels out too, so
    the figure is a cost per fact."""
    (n0, s0, e0), (n1, s1, e1) = small, large
    cpu = lambda r: r["driver_cpu_s"] + r["jvm_cpu_s"]  # noqa: E731
    rounds = [sum(x["stratum"] != -1 for x in r["rounds"]) for r in (s0, s1)]
    per_edge = lambda a, b: round((b - a) / (n1 - n0) * 1e6, 2)  # noqa: E731
    return dict(spark=per_edge(cpu(s0), cpu(s1)), embedded=per_edge(e0["cpu_s"], e1["cpu_s"]),
                # where Spark's goes: the JVM's threads by class (thread_classes) and the driver's Python
                threads={**{k: per_edge(s0["threads"][k], s1["threads"][k]) for k in s1["threads"]},
                         "driver Python": per_edge(s0["driver_cpu_s"], s1["driver_cpu_s"])},
                rounds=rounds, between=[n0, n1])


if __name__ == "__main__":
    sys.exit(main())
