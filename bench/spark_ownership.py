"""Company control over generated ownership graphs on Spark, with no key.

The program is examples/ownership/temporal.vada (control through chains of
controlled companies, a diamond, conditions): control chains join facts of
different companies, so it has no partition key and runs as seminaive
rounds of DataFrame operations (connectors/spark_rounds.py).

The graph (bench/ownership_gen.py) is written to Parquet first; then each
measured run is its own process (the Spark driver: ``--worker``) that reads
the Parquet with Spark, reasons with ``connectors.spark.reason(...,
distributed=True)`` and writes the outputs as Parquet: the whole command.
It reports wall time, the driver's Python peak resident memory
(``VmHWM`` of that process; the JVM is a child process and not counted),
the rounds with their time, delta and shuffle bytes (read from Spark's
monitoring REST API per job group: one group per round).  At
``--check`` sizes the embedded engine runs the same program on the same facts
in another process and the models must be equal (asserted).

Usage::

    python bench/spark_ownership.py --facts 10000 100000 1000000 --check 100000 --masters local[1] local[2]
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
sys.path.insert(0, str(HERE))


def parquet_of(n: int, seed: int = 1) -> Path:
    """The generated graph as Parquet (owner, company, share, [start, end))."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    import ownership_gen

    out = ownership_gen.DATA_DIR / f"own_{n}_s{seed}.parquet"
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
    pq.write_table(t, out)
    return out


def _rest(url: str):
    import urllib.request

    with urllib.request.urlopen(url, timeout=30) as r:
        return json.load(r)


def shuffle_by_group(sc) -> dict:
    """``{job group: (shuffle write bytes, shuffle read bytes, jobs)}`` from
    the monitoring REST API of the running application."""
    base = f"{sc.uiWebUrl}/api/v1/applications/{sc.applicationId}"
    stages = {}
    for s in _rest(f"{base}/stages"):
        st = stages.setdefault(s["stageId"], [0, 0])
        st[0] += s.get("shuffleWriteBytes", 0)
        st[1] += s.get("shuffleReadBytes", 0)
    out, seen = {}, set()
    for j in _rest(f"{base}/jobs"):
        g = j.get("jobGroup")
        if g is None:
            continue
        w = out.setdefault(g, [0, 0, 0])
        w[2] += 1
        for sid in j["stageIds"]:
            if sid in seen or sid not in stages:  # a stage shared by jobs counts once
                continue
            seen.add(sid)
            w[0] += stages[sid][0]
            w[1] += stages[sid][1]
    return out


def peak_mb() -> float:
    """This process's peak resident memory (``VmHWM``).  Not ``ru_maxrss``:
    Linux keeps that across ``exec``, so a child forked from a large parent
    would report the parent's size."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def worker(master: str, data: str, out_dir: str, partitions: int, conf=()) -> dict:
    t0 = time.perf_counter()
    from chronolog.connectors import spark as cs

    spark = cs.session(master, "chronolog-bench", **{
        "spark.sql.shuffle.partitions": str(partitions),
        "spark.driver.memory": "2g",
        "spark.ui.enabled": "true",
        **dict(c.split("=", 1) for c in conf),
    })
    spark.sparkContext.setLogLevel("ERROR")
    t_session = time.perf_counter() - t0
    peak_session = peak_mb()
    own = spark.read.parquet(data)
    stats = {}
    t1 = time.perf_counter()
    out = cs.reason(spark, PROGRAM, inputs={"own": own}, distributed=True, stats=stats)
    t_reason = time.perf_counter() - t1
    for p, df in out.items():
        df.write.mode("overwrite").parquet(f"{out_dir}/{p}")
    t_total = time.perf_counter() - t1
    peak_reason = peak_mb()
    shuffles = shuffle_by_group(spark.sparkContext)
    rounds = []
    for r in stats.get("rounds", []):
        w, rd, jobs = shuffles.get(r.job_group, (0, 0, 0))
        rounds.append(dict(stratum=r.stratum, round=r.round, seconds=round(r.seconds, 2), delta=r.delta,
                           shuffle_write=w, shuffle_read=rd, jobs=jobs))
    spark.stop()
    return dict(
        master=master, path=stats.get("path"), session_s=round(t_session, 2), reason_s=round(t_reason, 2),
        total_s=round(t_total, 2), peak_after_session_mb=round(peak_session, 1), peak_after_reason_mb=round(peak_reason, 1),
        driver_peak_mb=round(peak_mb(), 1),
        rounds=rounds,
    )


def embedded_worker(data: str, out: str) -> dict:
    """The embedded engine on the same Parquet (its facts as Arrow)."""
    import pyarrow.parquet as pq

    import chronolog

    t0 = time.perf_counter()
    own = pq.read_table(data)
    model = chronolog.reason(PROGRAM, {"own": own})
    facts = {p: sorted(map(repr, model.facts(p))) for p in ("control", "influence")}
    wall = time.perf_counter() - t0
    Path(out).write_text(json.dumps(facts))
    return dict(embedded_s=round(wall, 2), peak_mb=round(peak_mb(), 1))


def spark_facts(out_dir: str) -> dict:
    import pyarrow.parquet as pq

    from chronolog.connectors.arrow import table_to_rows
    from chronolog.language.timeline import coalesce

    res = {}
    for p in ("control", "influence"):
        atoms = {}
        for t, iv in table_to_rows(pq.read_table(f"{out_dir}/{p}"), p):
            atoms.setdefault(tuple(t), []).append(iv)
        res[p] = sorted(repr((t, iv)) for t, ivs in atoms.items() for iv in coalesce(ivs))
    return res


def run_child(args: list) -> dict:
    r = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"child {args} failed:\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--facts", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--masters", nargs="+", default=["local[2]"])
    ap.add_argument("--check", type=int, nargs="*", default=[100_000], help="sizes compared with the embedded engine")
    ap.add_argument("--partitions", type=int, default=4, help="spark.sql.shuffle.partitions")
    ap.add_argument("--json", help="append result rows (JSON lines) here")
    ap.add_argument("--conf", nargs="*", default=[], metavar="KEY=VALUE", help="extra Spark settings")
    ap.add_argument("--worker", nargs=3, metavar=("MASTER", "DATA", "OUT"), help=argparse.SUPPRESS)
    ap.add_argument("--embedded", nargs=2, metavar=("DATA", "OUT"), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        print(json.dumps(worker(*a.worker, a.partitions, a.conf)))
        return 0
    if a.embedded:
        print(json.dumps(embedded_worker(*a.embedded)))
        return 0
    import tempfile

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    status = 0
    for n in a.facts:
        data = str(parquet_of(n))
        with tempfile.TemporaryDirectory() as tmp:
            row = dict(facts=n, runs=[])
            for m in a.masters:
                r = run_child(["--partitions", str(a.partitions), "--conf", *a.conf, "--worker", m, data, f"{tmp}/{m}"])
                row["runs"].append(r)
                print(f"[{n}] {m}: reason {r['reason_s']} s, with output {r['total_s']} s, "
                      f"driver peak {r['driver_peak_mb']} MB, {len(r['rounds'])} rounds ({r['path']})", file=sys.stderr, flush=True)
                for x in r["rounds"]:
                    print(f"    stratum {x['stratum']} round {x['round']}: {x['seconds']} s, delta {x['delta']}, "
                          f"shuffle write {x['shuffle_write'] / 1e6:.2f} MB read {x['shuffle_read'] / 1e6:.2f} MB, {x['jobs']} jobs",
                          file=sys.stderr)
            if n in (a.check or []):
                e = run_child(["--embedded", data, f"{tmp}/embedded.json"])
                want = json.loads(Path(f"{tmp}/embedded.json").read_text())
                got = spark_facts(f"{tmp}/{a.masters[0]}")
                row["embedded"] = e
                row["same_model"] = got == want
                print(f"[{n}] embedded: {e['embedded_s']} s, peak {e['peak_mb']} MB; same model: {row['same_model']} "
                      f"({len(want['control'])} control, {len(want['influence'])} influence facts)", file=sys.stderr, flush=True)
                assert got == want, "the Spark model differs from the embedded engine's"
            times = {r["master"]: r["reason_s"] for r in row["runs"]}
            if "local[1]" in times and "local[2]" in times:
                row["speedup"] = round(times["local[1]"] / times["local[2]"], 2)
                print(f"[{n}] local[1]/local[2] = {row['speedup']}x", file=sys.stderr)
            if a.json:
                with open(a.json, "a") as f:
                    f.write(json.dumps(row) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
