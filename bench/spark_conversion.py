"""Conversion cost against reasoning cost: Spark -> engine -> Spark.

N facts ``reading(sensor, value)@[t, t+1)`` (int64 and decimal columns) in a
Spark DataFrame; one rule ``high(S, V) :- reading(S, V), V > 500.`` keeps about
half.  Timed phases: ``toArrow`` (Spark to Arrow), Arrow to engine rows,
reasoning, engine to Arrow, ``createDataFrame`` + count (Arrow to Spark).

    .venv/bin/python bench/spark_conversion.py --facts 1000000
"""

import argparse
import sys
import time
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--facts", type=int, default=1_000_000)
    ap.add_argument("--master", default="local[2]")
    args = ap.parse_args(argv)
    import pyarrow as pa

    from chronolog.api import reason
    from chronolog import spark as cs
    from chronolog.engine.arrow import table_to_rows

    spark = cs.session(args.master)
    spark.sparkContext.setLogLevel("ERROR")
    n = args.facts
    import pyspark.sql.functions as F

    df = spark.range(n).select(
        (F.col("id") % 1000).cast("string").alias("sensor"),
        ((F.col("id") * 7919) % 997).cast("decimal(6,1)").alias("value"),
        (F.col("id") / 1000).cast("bigint").alias("start"),
        ((F.col("id") / 1000).cast("bigint") + 1).alias("end"),
        F.lit(True).alias("start_closed"),
        F.lit(False).alias("end_closed"),
    ).persist()
    df.count()
    t = {}
    t0 = time.perf_counter()
    table = df.toArrow()
    t["spark -> arrow (toArrow)"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    rows = table_to_rows(table, "reading")
    t["arrow -> engine rows"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    m = reason("high(S, V) :- reading(S, V), V > 500.", {"reading": rows})
    t["reasoning"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    out = m.to_arrow("high")
    t["engine -> arrow"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    sdf = spark.createDataFrame(out)
    count = sdf.count()
    t["arrow -> spark (createDataFrame + count)"] = time.perf_counter() - t0
    total = sum(t.values())
    print(f"{n} facts in, {count} out ({args.master})")
    for k, v in t.items():
        print(f"  {k:42s} {v:8.2f} s  {100 * v / total:5.1f} %")
    conv = total - t["reasoning"]
    print(f"  conversion total {conv:.2f} s, reasoning {t['reasoning']:.2f} s, ratio {conv / t['reasoning']:.2f}")
    spark.stop()


if __name__ == "__main__":
    main()
