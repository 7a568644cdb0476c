"""Aggregation, Since and time grouping on Spark with no key: the relational
rounds (connectors/spark_rounds/) against the same call sent to the driver
(what ran before: the whole input pulled into the driver's Python) and the
embedded engine, on the same Parquet file.

    python bench/spark_aggregate.py --facts 10000 100000 [--master local[2]] [--program widened|since|values|functions]

Each size: one Parquet file of ``owns(i, c, p)`` facts (random integer
intervals); the program sums, counts and takes the maximum per company,
sums per company over periods of 10 (time grouping) and a Since, beside a
join across keys (so there is no key and the program runs in rounds);
``--program widened``: products per company, time capture and interval
terms instead (what went to the driver before the ninth round);
``--program since``: a recursion through a Since's left operand.
``--program values``: a sum of an expression, a group computed by
round(), the least and greatest investor name (strings) by an assigned
variable (what went to the driver before the tenth round).
``--program functions``: string functions (concat, upper, substr,
strlen, +) and floats computed in rules (float, sqrt, /, mod, a
comparison with an exact constant): what went to the driver before the
eleventh round.
Each side reads the file anew; every output is counted in Spark (the whole
answer is computed, nothing served from a cache); the driver side is the
rounds refused (``check_rules`` raising), which is the path such a program
took before.  Prints one JSON line per size and side: wall seconds, the
driver process's CPU seconds, rows out, rounds (relational), and whether
the models agree.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
import warnings

PROGRAM = r"""
far(X, Z) :- owns(X, Y, P), owns(Y, Z, Q).
total(C, S) :- owns(I, C, P), S = sum(P).
investors(C, N) :- owns(I, C, P), N = count().
top(C, M) :- owns(I, C, P), M = max(P).
period(C, S) :- /\[10] owns(I, C, P), S = sum(P).
kept(I, C) :- owns(I, C, P) <S>[1,5] owns(I, C, P).
@output("total"). @output("investors"). @output("top"). @output("period"). @output("kept").
"""

WIDENED = r"""
far(X, Z) :- owns(X, Y, P), owns(Y, Z, Q).
product(C, M) :- owns(I, C, P), P < 10, M = prod(P).
each(C, M) :- owns(I, C, P), P < 10, M = mprod(P, <I>).
daily(I, T) :- owns(I, C, P)@T.
span(C, S, E) :- owns(I, C, P)@[S, E].
@output("product"). @output("each"). @output("daily"). @output("span").
"""
# a recursion through the left operand of a Since: companies reached
# through shared majority investors, each hop within 20 of a peer link
# while the path so far held (the driver path before)
SINCE = r"""
far(X, Z) :- owns(X, Y, P), owns(Y, Z, Q).
peer(C, D) :- owns(I, C, P), owns(I, D, Q), P > 50, Q > 50, C != D.
reach(C, D) :- peer(C, D).
reach(C, E) :- reach(C, D) <S>[1,20] peer(D, E).
@output("reach").
"""
# aggregates of expressions, a group computed by round(), min/max of strings
VALUES = r"""
far(X, Z) :- owns(X, Y, P), owns(Y, Z, Q).
weighted(C, S) :- owns(I, C, P), S = sum(P * P - 1).
tens(C, R, N) :- owns(I, C, P), R = round(P, -1), N = count().
first(C, M) :- owns(I, C, P), M = min(I).
last(C, M) :- owns(I, C, P), K = I, M = max(K).
@output("weighted"). @output("tens"). @output("first"). @output("last").
"""
# string functions and floats computed in rules (functions.py)
FUNCTIONS = r"""
far(X, Z) :- owns(X, Y, P), owns(Y, Z, Q).
label(I, C, L) :- owns(I, C, P), L = concat(upper(I), "@", substr(C, 1), "#", P).
long(C, N) :- owns(I, C, P), N = strlen(C + I), N > 6.
scaled(I, C, F) :- owns(I, C, P), F = sqrt(float(P)) / 3 + mod(float(P), 7).
high(I, C) :- owns(I, C, P), F = float(P) / 7, F > 10.5.
@output("label"). @output("long"). @output("scaled"). @output("high").
"""
PROGRAMS = {"aggregate": PROGRAM, "widened": WIDENED, "since": SINCE, "values": VALUES, "functions": FUNCTIONS}


def facts(n: int, seed: int = 7):
    import pyarrow as pa

    rnd = random.Random(seed)
    companies = max(n // 50, 1)
    i = [f"i{rnd.randrange(n // 5 + 1)}" for _ in range(n)]
    c = [f"c{rnd.randrange(companies)}" for _ in range(n)]
    p = [rnd.randrange(1, 100) for _ in range(n)]
    start = [rnd.randrange(0, 1000) for _ in range(n)]
    end = [s + rnd.randrange(0, 50) for s in start]
    return pa.table({"i": i, "c": c, "p": p, "start": start, "end": end})


def run(spark, path, relational: bool, program=PROGRAM):
    from chronolog.connectors import spark as cs
    from chronolog.connectors.spark_rounds import fragment

    saved = fragment.check_rules
    if not relational:
        def refuse(plan):
            raise fragment.NotRelational("refused by the benchmark (the driver path)")
        fragment.check_rules = refuse
        import chronolog.connectors.spark_rounds.entry as entry
        entry.check_rules = refuse
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        stats = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = cs.reason(spark, program, inputs={"owns": spark.read.parquet(path)}, distributed=True, stats=stats)
        rows = {p: df.count() for p, df in out.items()}
        return out, rows, stats.get("path"), time.perf_counter() - t0, time.process_time() - c0, len(stats.get("rounds", ()))
    finally:
        fragment.check_rules = saved
        import chronolog.connectors.spark_rounds.entry as entry
        entry.check_rules = saved


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--facts", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--dir", default="/tmp/chronolog-bench-aggregate")
    ap.add_argument("--sides", nargs="+", default=["driver", "relational"], help="which Spark sides to run (in this order)")
    ap.add_argument("--no-embedded", action="store_true")
    ap.add_argument("--program", choices=sorted(PROGRAMS), default="aggregate")
    args = ap.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    import pyarrow.parquet as pq

    import chronolog
    from chronolog.connectors import spark as cs
    from chronolog.connectors.arrow import table_to_rows

    spark = cs.session(args.master, "bench-aggregate")
    spark.sparkContext.setLogLevel("ERROR")
    os.makedirs(args.dir, exist_ok=True)
    warm = os.path.join(args.dir, "warm.parquet")  # the JVM's first jobs (JIT, class loading) on neither side's figures
    pq.write_table(facts(1000), warm)
    program = PROGRAMS[args.program]
    for side in args.sides:
        run(spark, warm, side == "relational", program)
    for n in args.facts:
        table = facts(n)
        path = os.path.join(args.dir, f"owns-{n}.parquet")
        pq.write_table(table, path)
        if not args.no_embedded:
            t0, c0 = time.perf_counter(), time.process_time()
            model = chronolog.reason(program, {"owns": pq.read_table(path)})
            emb = {p: len(model.facts(p)) for p in model.output_predicates}
            print(json.dumps({"facts": n, "side": "embedded", "wall": round(time.perf_counter() - t0, 2),
                              "cpu": round(time.process_time() - c0, 2), "rows": emb}), flush=True)
            del model
        answers = {}
        for relational in [side == "relational" for side in args.sides]:
            out, rows, path_taken, wall, cpu, rounds = run(spark, path, relational, program)
            answers[relational] = {p: set(map(str, table_to_rows(df.toArrow(), p))) for p, df in out.items()}
            print(json.dumps({"facts": n, "side": path_taken, "wall": round(wall, 2), "cpu": round(cpu, 2), "rows": rows,
                              "rounds": rounds}), flush=True)
        if len(answers) == 2:
            print(json.dumps({"facts": n, "same_model": answers[True] == answers[False]}), flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
