"""A keyed sensor workload: distributed over Spark tasks against one process.

``--sensors`` sensors, ``--readings`` readings each (one per time unit,
values 0..99 exact decimals), and a program with windows and negation, keyed
on the sensor:

    hot(S) :- reading(S, V), V > 70.
    alarm(S) :- [-][0,3] hot(S), not maintenance(S).
    warn(S) :- <->[0,10] alarm(S).
    quiet(S) :- reading(S, V), not <->[0,5] hot(S).

Times: the embedded engine in this process (facts already in memory), and
``chronolog.connectors.spark.reason(..., distributed=True)`` on ``--master``
(from DataFrames to DataFrames, counted).  Both answers are compared.

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
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--partitions", type=int, default=None)
    ap.add_argument("--groups", type=int, default=8, help="key groups for the split measurement")
    ap.add_argument("--repeat", type=int, default=3, help="distributed runs; the best after the first is reported")
    args = ap.parse_args(argv)
    from chronolog.api import reason
    from chronolog.connectors import spark as cs
    from chronolog.connectors.arrow import table_to_rows

    reading, maint = data(args.sensors, args.readings)
    n = reading.num_rows
    spark = cs.session(args.master)
    spark.sparkContext.setLogLevel("ERROR")
    rdf = spark.createDataFrame(reading).persist()
    mdf = spark.createDataFrame(maint).persist()
    rdf.count(), mdf.count()

    # warm-up on a few sensors: starts Spark's Python workers and imports
    # chronolog there (a one-off cost per worker, reported separately)
    t0 = time.perf_counter()
    w_r, w_m = data(10, 10)
    for df in cs.reason(spark, PROGRAM, {"reading": spark.createDataFrame(w_r), "maintenance": spark.createDataFrame(w_m)}, distributed=True).values():
        df.toArrow()
    t_warm = time.perf_counter() - t0

    t0 = time.perf_counter()
    facts = {"reading": table_to_rows(reading, "reading"), "maintenance": table_to_rows(maint, "maintenance")}
    model = reason(PROGRAM, facts)
    t_embedded = time.perf_counter() - t0

    # the work split as the tasks split it: one engine per group of sensors,
    # run one after the other here; with one executor per group the wall time
    # would be about the largest group plus Spark's overhead
    groups = args.groups
    per_group = []
    for g in range(groups):
        mine = lambda rows: [r for r in rows if hash(r[0][0]) % groups == g]
        t0 = time.perf_counter()
        reason(PROGRAM, {"reading": mine(facts["reading"]), "maintenance": mine(facts["maintenance"])})
        per_group.append(time.perf_counter() - t0)

    times = []
    for _ in range(args.repeat):  # the first call also pays Spark's warm-up for this size
        t0 = time.perf_counter()
        out = cs.reason(spark, PROGRAM, {"reading": rdf, "maintenance": mdf}, distributed=True, partitions=args.partitions)
        got = {p: df.toArrow() for p, df in out.items()}
        times.append(time.perf_counter() - t0)
    t_dist = min(times[1:]) if len(times) > 1 else times[0]

    t0 = time.perf_counter()
    got_driver = {p: df.toArrow() for p, df in cs.reason(spark, PROGRAM, {"reading": rdf, "maintenance": mdf}).items()}
    t_driver = time.perf_counter() - t0

    same = all(
        sorted(table_to_rows(g[p], p), key=repr) == sorted(model.facts(p), key=repr) for g in (got, got_driver) for p in g
    )
    sizes = {p: t.num_rows for p, t in got.items()}
    print(f"{args.sensors} sensors x {args.readings} readings = {n} facts; outputs {sizes}")
    print(f"  warm-up (workers start, import) {t_warm:8.2f} s")
    print(f"  embedded, one process          {t_embedded:8.2f} s")
    print(f"  Spark, reasoning on the driver {t_driver:8.2f} s")
    print(f"  {groups} key groups one after another: sum {sum(per_group):.2f} s, largest {max(per_group):.2f} s")
    print(f"  distributed, {args.master:10s} first   {times[0]:8.2f} s")
    print(f"  distributed, {args.master:10s} warm    {t_dist:8.2f} s   speed-up {t_embedded / t_dist:.2f}x   same answers: {same}")
    spark.stop()


if __name__ == "__main__":
    main()
