"""The restricted chase in Spark's rounds against one Spark task, on the
ownership graphs (bench/ownership_gen.py) with existential rules inside
a recursion (bench/programs/ownership_chase.vada): a company no company
controls gets a delegate (a null unless known), and a delegate appoints one
for each company its company controls, a null nested in its own, so the
chase fires once per level of the control chains.

One process, one local Spark session: the runs alternate the rounds
(``one_task_bytes=-1``) and one task (the engine in one Spark task), the
first of each warms the JVM and is not reported.  Per run: wall seconds,
CPU seconds of the driver's Python and the JVM (from /proc), the chase's
firings (seconds and new facts each: the rounds' ``stats``), and the load
average.  The two models are compared up to a renaming of nulls
(tests/nulls_renamed.py) on the first run.

Usage::

    python bench/spark_chase.py --facts 100000 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PROGRAM = HERE / "programs" / "ownership_chase.vada"
OUTPUTS = ("delegate", "appoints")
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests"))


def run(spark, program, frame, rounds: bool) -> tuple:
    from chronolog import spark as cs
    from spark_ownership import cpu_seconds

    stats: dict = {}
    c0, t0 = cpu_seconds(os.getpid()), time.perf_counter()
    out = cs.reason(spark, program, inputs={"own": frame}, distributed=True, outputs=list(OUTPUTS), stats=stats,
                    one_task_bytes=-1 if rounds else 1 << 40)
    tables = {p: out[p].toArrow() for p in OUTPUTS}
    wall, cpu = time.perf_counter() - t0, cpu_seconds(os.getpid()) - c0
    assert stats["path"] == ("relational" if rounds else "one task"), stats.get("path")
    firings = [(round(r.seconds, 2), r.delta) for r in stats.get("rounds", ()) if _is_chase(r)]
    return tables, dict(wall_s=round(wall, 2), cpu_s=round(cpu, 1), rounds=len(stats.get("rounds", ())), firings=firings,
                        load=os.getloadavg()[0])


def _is_chase(r) -> bool:
    """A chase's firing among the rounds' stats (a tree from before the
    ``chase`` field: the rounds with no plan time, which only firings have)."""
    return getattr(r, "chase", r.plan_seconds == 0.0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--facts", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3, help="measured runs of each side after one warm-up run each")
    ap.add_argument("--json", help="append the result row (JSON) here")
    a = ap.parse_args(argv)
    import pyarrow.parquet as pq

    from chronolog.connectors.spark import session
    from chronolog.engine.arrow import table_to_rows
    from chronolog.language.nulls import reading_file
    from spark_ownership import parquet_of

    from nulls_renamed import assert_same_up_to_nulls

    program = PROGRAM.read_text()
    spark = session("local[2]", "chronolog-chase-bench", **{"spark.sql.shuffle.partitions": "4"})
    spark.sparkContext.setLogLevel("ERROR")
    t = pq.read_table(parquet_of(a.facts)).select(["owner", "company", "share", "start", "end"])
    frame = spark.createDataFrame(t.to_pandas()).cache()
    frame.count()
    runs = {"rounds": [], "one task": []}
    for i in range(a.repeat + 1):
        got = {}
        for side in ("rounds", "one task"):
            tables, fig = run(spark, program, frame, side == "rounds")
            got[side] = tables
            print(f"[{a.facts}] {side} run {i}{' (warm-up)' if i == 0 else ''}: {json.dumps(fig)}", file=sys.stderr, flush=True)
            if i:
                runs[side].append(fig)
        if i == 0:
            with reading_file():
                models = {s: {p: table_to_rows(tb, p) for p, tb in got[s].items()} for s in got}
            assert_same_up_to_nulls(models["rounds"], models["one task"])
            print(f"[{a.facts}] same model up to nulls: {', '.join(f'{len(v)} {p}' for p, v in models['rounds'].items())} facts",
                  file=sys.stderr, flush=True)
    row = dict(facts=a.facts, **{s: dict(cpu_s=sorted(r["cpu_s"] for r in rs), wall_s=sorted(r["wall_s"] for r in rs),
                                         load=[round(r["load"], 1) for r in rs], firings=rs[-1]["firings"])
                                 for s, rs in runs.items()})
    print(json.dumps(row))
    if a.json:
        with open(a.json, "a") as f:
            f.write(json.dumps(row) + "\n")
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
