"""Temporal reachability on Spark rounds against the embedded engine.

The program and data of bench/temporal_reach.py (a path holds while every
edge on it holds; random interval edges, 23-29 rounds), with no key, so
Spark runs it as seminaive rounds (connectors/spark_rounds/), never as one
task (``spark.chronolog.oneTaskBytes=-1``).  Each side is a child process
of bench/spark_ownership.py, which measures it: the Spark driver
(``--worker``: session start excluded; reads edge.parquet with Spark,
reasons, writes the outputs as Parquet; CPU of the driver's Python and of
the JVM from /proc; rounds, jobs, stages, task time) and the embedded
engine (``--embedded``: pyarrow reads the same Parquet, reason, write
Parquet; the median of three runs by CPU).  The models must be equal
(asserted).

The recursion is a transitive closure, which Spark's rounds run doubled
(``path :- path, path``: planner/closure.py), the embedded engine as
written.  ``--forms`` runs Spark both ways side by side (``linear``: with
``spark.chronolog.closureByDoubling=false``), each against the same
embedded model; ``--embedded-doubled`` runs the embedded engine on the
doubled program too (the figure behind keeping it linear there).

With two or more sizes, the marginal CPU per input edge between the
smallest and the largest, on each side (the embedded engine's is within
the spread of its runs below about 200k edges): (CPU at the larger - CPU at the
smaller) / (their difference in edges), so the fixed cost of a run (the
rounds' planning and scheduling, the JIT warming up) cancels out.  Linear,
the number of rounds grows with the size (a round per edge of the longest
path); doubled, it nearly stays (log2 of that length), so the doubled
form's marginal figure is closer to a cost per fact.

Usage::

    python bench/spark_reach.py --edges 10000 100000 200000 --forms doubled linear
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import spark_ownership as so  # noqa: E402  (its children measure each side)
import temporal_reach  # noqa: E402  (the program and the data)

PROGRAM = """\
path(X,Y) :- edge(X,Y).
path(X,Z) :- path(X,Y), edge(Y,Z).
@output("path").
"""


FORMS = {"doubled": [], "linear": ["spark.chronolog.closureByDoubling=false"]}  # Spark settings of each form


def spark_side(s: dict) -> dict:
    """A Spark child's figures: wall, CPU (driver Python + JVM), rounds and their jobs."""
    return dict(total_s=s["total_s"], cpu_s=round(s["driver_cpu_s"] + s["jvm_cpu_s"], 2),
                driver_cpu_s=s["driver_cpu_s"], jvm_cpu_s=s["jvm_cpu_s"], path=s["path"],
                rounds=sum(r["stratum"] != -1 for r in s["rounds"]),
                jobs=sum(r["jobs"] for r in s["rounds"] if r["stratum"] != -1),
                driver_peak_mb=s["driver_peak_mb"])


def doubled_program() -> str:
    """PROGRAM with its closure doubled as the planner doubles it for Spark (planner/closure.py)."""
    import chronolog
    from chronolog.planner import plan
    from chronolog.planner.closure import closure

    (tc,) = [closure(st) for st in plan(chronolog.load_program(PROGRAM)).strata if closure(st)]
    return "".join(f"{r.describe()}.\n" for r in tc.doubled.rules) + '@output("path").\n'


def embedded_doubled(n: int, data: str, tmp: str, want: dict) -> dict:
    """The embedded engine on the doubled program (median of three by CPU), its model asserted the linear one's:
    the figure behind keeping rows and columns linear."""
    program = Path(tmp) / "reach-doubled.vada"
    program.write_text(doubled_program())
    runs = sorted((so.run_child(["--program", str(program), "--input", "edge", "--embedded", data, f"{tmp}/embedded-doubled-{n}.json"])
                   for _ in range(3)), key=lambda r: r["cpu_s"])
    assert json.loads(Path(f"{tmp}/embedded-doubled-{n}.json").read_text()) == want, "the doubled model differs"
    e = runs[1]
    print(f"[{n}] embedded, doubled: {e['embedded_s']} s wall, {e['cpu_s']} s CPU", file=sys.stderr, flush=True)
    return dict(total_s=e["embedded_s"], cpu_s=e["cpu_s"], peak_mb=e["peak_mb"])


def measure(n: int, master: str, seed: int, tmp: str, forms=("doubled",), also_embedded_doubled=False) -> dict:
    """One size: the Spark run of each form and the embedded run on the same Parquet, models compared."""
    data = str(temporal_reach.dataset(n, seed) / "edge.parquet")
    program = Path(tmp) / "reach.vada"
    program.write_text(PROGRAM)
    common = ["--program", str(program), "--input", "edge"]
    spark = {}
    for form in forms:
        out = f"{tmp}/spark-{form}-{n}"
        s = so.run_child([*common, "--partitions", "0", "--conf", "spark.chronolog.oneTaskBytes=-1", *FORMS[form],
                          "--worker", master, data, out])
        so.show(f"[{n}] {master} {form}", s, s["driver_peak_mb"])
        spark[form] = (s, out)
    # the embedded side is short, its fixed cost (a first call's imports) a
    # large part of it: the median of three runs
    runs = sorted((so.run_child([*common, "--embedded", data, f"{tmp}/embedded-{n}.json"]) for _ in range(3)), key=lambda r: r["cpu_s"])
    e = runs[1]
    want = json.loads(Path(f"{tmp}/embedded-{n}.json").read_text())
    same = all(so.spark_facts(out) == want for _, out in spark.values())
    answers = sum(len(v) for v in want.values())
    print(f"[{n}] embedded: {e['embedded_s']} s wall, {e['cpu_s']} s CPU, peak {e['peak_mb']} MB; "
          f"same model: {same} ({answers:,} answers)", file=sys.stderr, flush=True)
    assert same, "a Spark model differs from the embedded engine's"
    row = dict(edges=n, master=master, answers=answers, same_model=same, load=os.getloadavg()[0],
               embedded=dict(total_s=e["embedded_s"], cpu_s=e["cpu_s"], peak_mb=e["peak_mb"]))
    row.update({("spark" if form == forms[0] else f"spark_{form}"): spark_side(s) for form, (s, _) in spark.items()})
    row["forms"] = list(forms)
    if also_embedded_doubled:
        row["embedded_doubled"] = embedded_doubled(n, data, tmp, want)
    return row


def marginal(small: dict, large: dict) -> dict:
    """CPU microseconds per input edge between two sizes, each side (each Spark form)."""
    d = large["edges"] - small["edges"]
    sides = [k for k in large if k == "embedded" or k.startswith("spark") and isinstance(large[k], dict)]
    return {side: round((large[side]["cpu_s"] - small[side]["cpu_s"]) / d * 1e6, 2) for side in sides}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--edges", type=int, nargs="+", default=[10_000, 100_000, 200_000])
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--embedded-doubled", action="store_true",
                    help="also run the embedded engine on the doubled program (it runs the closure linear)")
    ap.add_argument("--forms", nargs="+", choices=sorted(FORMS), default=["doubled", "linear"],
                    help="the closure's forms on Spark, side by side (the first is the table's figure)")
    ap.add_argument("--json", help="append one JSON line per size (and one for the marginal CPU) here")
    a = ap.parse_args(argv)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    rows = []
    with tempfile.TemporaryDirectory(prefix="spark_reach_") as tmp:
        for n in sorted(a.edges):
            rows.append(measure(n, a.master, a.seed, tmp, a.forms, a.embedded_doubled))
            r = rows[-1]
            if "embedded_doubled" in r:
                print(f"{n:>8} edges: embedded linear {r['embedded']['cpu_s']} s CPU, doubled {r['embedded_doubled']['cpu_s']} s CPU "
                      f"(load {r['load']:.1f})", flush=True)
            for form in a.forms:
                s = r["spark" if form == a.forms[0] else f"spark_{form}"]
                print(f"{n:>8} edges {r['answers']:>9,} answers: spark {form} {s['total_s']} s wall, {s['cpu_s']} s CPU "
                      f"({s['rounds']} rounds, {s['jobs']} jobs); embedded {r['embedded']['total_s']} s wall, "
                      f"{r['embedded']['cpu_s']} s CPU; {s['total_s'] / r['embedded']['total_s']:.1f}x wall "
                      f"(load {r['load']:.1f})", flush=True)
    if len(rows) > 1:
        m = marginal(rows[0], rows[-1])
        rows.append(dict(marginal_us_per_edge=m, between=[rows[0]["edges"], rows[-1]["edges"]],
                         rounds={k: [r[k]["rounds"] for r in rows] for k in m if k != "embedded"}))
        for k in m:
            if k == "embedded":
                continue
            ratio = f"{m[k] / m['embedded']:.1f}x" if m["embedded"] > 0 else "the embedded side's within its runs' spread"
            print(f"marginal CPU per input edge, {rows[0]['edges']:,} -> {rows[-2]['edges']:,}: {k} {m[k]} us "
                  f"(rounds {rows[-1]['rounds'][k]}), embedded {m['embedded']} us: {ratio}", flush=True)
    if a.json:
        with open(a.json, "a") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
