"""A keyed sensor workload: distributed over Spark tasks against one process.

``--sensors`` sensors, ``--readings`` readings each (one per time unit,
values 0..99 exact decimals), and a program with windows and negation, keyed
on the sensor:

    hot(S) :- reading(S, V), V > 70.
    alarm(S) :- [-][0,3] hot(S), not maintenance(S).
    warn(S) :- <->[0,10] alarm(S).
    quiet(S) :- reading(S, V), not <->[0,5] hot(S).

Times: the embedded engine in this process (facts already in memory), and
``chronolog.connectors.spark.reason(..., distributed=True)`` on each of
``--masters`` (one session after the other; from DataFrames to Arrow tables
on the driver), every call on freshly created input DataFrames with Spark's
cache empty, so each call reasons from scratch.  Answers are compared.

    .venv/bin/python bench/spark_sensors.py --sensors 2000 --readings 100
"""

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

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


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--sensors", type=int, default=2000)
    ap.add_argument("--readings", type=int, default=100)
    ap.add_argument("--masters", default="local[1],local[2]", help="Spark masters to compare, comma-separated")
    ap.add_argument("--partitions", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=2, help="distributed calls per master, each on freshly created inputs")
    args = ap.parse_args(argv)
    from chronolog.api import reason
    from chronolog.connectors import spark as cs
    from chronolog.connectors.arrow import table_to_rows

    reading, maint = data(args.sensors, args.readings)
    n = reading.num_rows
    t0 = time.perf_counter()
    facts = {"reading": table_to_rows(reading, "reading"), "maintenance": table_to_rows(maint, "maintenance")}
    model = reason(PROGRAM, facts)
    t_embedded = time.perf_counter() - t0
    print(f"{args.sensors} sensors x {args.readings} readings = {n} facts")
    print(f"  embedded, one process (facts in memory)   {t_embedded:8.2f} s")

    results = {}
    for master in args.masters.split(","):
        spark = cs.session(master)
        spark.sparkContext.setLogLevel("ERROR")
        # warm-up on a few sensors: starts Spark's Python workers and imports
        # chronolog there (a one-off cost per worker, reported separately)
        t0 = time.perf_counter()
        w_r, w_m = data(10, 10)
        for df in cs.reason(spark, PROGRAM, {"reading": spark.createDataFrame(w_r), "maintenance": spark.createDataFrame(w_m)}, distributed=True).values():
            df.toArrow()
        t_warm = time.perf_counter() - t0
        times = []
        for _ in range(args.repeat):
            # fresh DataFrames every call, materialized before the clock starts,
            # and nothing cached between calls: each call reasons from scratch
            rdf, mdf = spark.createDataFrame(reading), spark.createDataFrame(maint)
            rdf.count(), mdf.count()
            assert spark._jsparkSession.sharedState().cacheManager().isEmpty()
            t0 = time.perf_counter()
            out = cs.reason(spark, PROGRAM, {"reading": rdf, "maintenance": mdf}, distributed=True, partitions=args.partitions)
            got = {p: df.toArrow() for p, df in out.items()}
            times.append(time.perf_counter() - t0)
        same = all(sorted(table_to_rows(got[p], p), key=repr) == sorted(model.facts(p), key=repr) for p in got)
        results[master] = times
        print(f"  {master:10s} warm-up (workers start, import) {t_warm:8.2f} s")
        print(f"  {master:10s} distributed, calls on fresh inputs {', '.join(f'{t:.2f}' for t in times)} s   same answers: {same}")
        spark.stop()
    masters = list(results)
    best = {m: min(t) for m, t in results.items()}
    for m in masters:
        print(f"  {m:10s} best {best[m]:.2f} s: {t_embedded / best[m]:.2f}x the embedded engine")
    if len(masters) == 2:
        a, b = masters
        print(f"  {b} against {a}: {best[a] / best[b]:.2f}x")


if __name__ == "__main__":
    main()
