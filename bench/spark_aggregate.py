"""Aggregation, Since and time grouping on Spark with no key: the relational
rounds (connectors/spark_rounds/) against the same call sent to the driver
(what ran before: the whole input pulled into the driver's Python) and the
embedded engine, on the same Parquet file.

    python bench/spark_aggregate.py --facts 10000 100000 [--master local[2]] [--program widened|since|confined|values|functions|udfs|floats|exact_means|fraction_folds|divisions|control]
        [--sides driver relational "one task" auto] [--memory]

Each size: one Parquet file of ``owns(i, c, p)`` facts (random integer
intervals); the program sums, counts and takes the maximum per company,
sums per company over periods of 10 (time grouping) and a Since, beside a
join across keys (so there is no key and the program runs in rounds);
``--program widened``: products per company, time capture and interval
terms instead (what went to the driver before the ninth round);
``--program since``: a recursion through a Since's left operand.
``--program confined``: a recursion through time with no horizon that
the data confine (a tip passed on 20 to 40 units later to an investor in
the same company: only where owns holds), which went to one task before
(run it with ``--sides "one task" relational``).
``--program values``: a sum of an expression, a group computed by
round(), the least and greatest investor name (strings) by an assigned
variable (what went to the driver before the tenth round).
``--program functions``: string functions (concat, upper, substr,
strlen, +) and floats computed in rules (float, sqrt, /, mod, a
comparison with an exact constant): what went to the driver before the
eleventh round.
``--program udfs``: exp, log and round of a float to digits, the engine's
own functions in Python UDFs in the executors (what went to one task before).
``--program floats``: the stake ``p`` a ``double`` column (multiples of
0.37, binary floats) in joins, comparisons with exact constants, min and
max and arithmetic: what went to one task before the twelfth round.
``--program float_sums``: sums, means, products and sets (munion) of that column,
the engine's exact fold per time segment in a UDF (what went to one task
before: run it with ``--sides "one task" relational``).
``--program float_means``: the mean and the sum of that column per company
over a sliding window (``<->[0,10]``), as a sensor's readings are averaged:
the exact fold of each segment's floats in SQL (aggregate.py).
``--program exact_means``: the mean of the integer stakes per company,
then a threshold on it and arithmetic with a fraction in later rules, the
engine's exact numbers as term text in SQL (what went to one task before:
run it with ``--sides "one task" relational``).
``--program fraction_folds``: the sum of the companies' means (fractions)
at each point, each investor's sum of a third of their companies' means,
and max and mod of a mean against constants, exact on fractions in SQL
(what went to one task before: run it with ``--sides "one task" relational``).
``--program divisions``: quotients of integers in assignments and a
condition that are not whole (``P / 100``, ``(P + Q) / 2``): the rounds
stop on the run's integers and run again with them exact (what went to
one task before: run it with ``--sides "one task" relational``).
``--program control``: company control (examples/ownership/temporal.vada)
over the graphs of bench/spark_ownership.py.
Each side reads the file anew; every output is counted in Spark (the whole
answer is computed, nothing served from a cache).  The sides: ``driver``
(``distributed=False``: the input pulled into the driver's Python, the
path a program the rounds cannot run took before), ``relational`` (the
rounds, ``one_task_bytes=-1``), ``one task`` (the whole program in one
Spark task, whatever its size), ``auto`` (the path ``reason`` chooses).
Prints one JSON line per size and side: wall seconds, the driver
process's CPU seconds, those of the driver, the JVM and the Python workers
together (``cpu_all``), the load average, rows out, rounds (relational), with ``--memory`` the
driver's Python peak (tracemalloc: Python objects, not Arrow buffers),
and whether the models agree.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

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
# a recursion through time with no horizon: owns confines each move, so the
# model ends where the facts do (about 1,050 units: 27 to 53 rounds)
CONFINED = r"""
far(X, Z) :- owns(X, Y, P), owns(Y, Z, Q).
tip(I, C) :- owns(I, C, P), P > 97.
tip(J, C) :- <->[20,40] tip(I, C), owns(J, C, Q), Q > 50.
@output("tip").
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
# the engine's own functions in Python UDFs (udfs.py): exp, log, round of a
# float to digits (what went to one task before the twelfth round)
UDFS = r"""
far(X, Z) :- owns(X, Y, P), owns(Y, Z, Q).
growth(I, C, G) :- owns(I, C, P), G = exp(float(P) / 50) - log(P).
rounded(I, C, R) :- owns(I, C, P), R = round(float(P) / 7, 2), log(R) > 1.
@output("growth"). @output("rounded").
"""
# a double input column: joins, exact comparisons, min/max, arithmetic
FLOATS = r"""
far(X, Z) :- owns(X, Y, P), owns(Y, Z, Q).
top(C, M) :- owns(I, C, P), M = max(P).
low(C, M) :- owns(I, C, P), M = min(P).
high(I, C) :- owns(I, C, P), P > 20.5, P <= 30.
same(I, C, D) :- owns(I, C, P), owns(I, D, P), C != D.
scaled(I, C, F) :- owns(I, C, P), F = P / 3 + 1.
@output("top"). @output("low"). @output("high"). @output("same"). @output("scaled").
"""
# sums, means, products and sets of a double column: the engine's exact fold per segment (aggregate.py, udfs.EngineFold)
FLOAT_SUMS = r"""
far(X, Z) :- owns(X, Y, P), owns(Y, Z, Q).
total(C, S) :- owns(I, C, P), S = sum(P).
mean(C, A) :- owns(I, C, P), A = avg(P).
stakes(C, U) :- owns(I, C, P), U = munion(P).
product(C, M) :- owns(I, C, P), P < 3, M = prod(P).
@output("total"). @output("mean"). @output("stakes"). @output("product").
"""
# the mean and the sum of a double column over a sliding window (aggregate.py's exact float sums in SQL)
FLOAT_MEANS = r"""
far(X, Z) :- owns(X, Y, P), owns(Y, Z, Q).
level(C, A) :- <->[0,10] owns(I, C, P), A = avg(P).
load(C, S) :- <->[0,10] owns(I, C, P), S = sum(P).
@output("level"). @output("load").
"""
# a mean of integers then a threshold and arithmetic on it, exact (3/2, 1/3): term text (fractions.py)
EXACT_MEANS = r"""
far(X, Z) :- owns(X, Y, P), owns(Y, Z, Q).
mean(C, A) :- owns(I, C, P), A = avg(P).
high(C) :- mean(C, M), M > 50.
spread(C, D) :- mean(C, M), D = M * 3 - 1/3.
@output("high"). @output("spread").
"""
FRACTION_FOLDS = r"""
far(X, Z) :- owns(X, Y, P), owns(Y, Z, Q).
mean(C, A) :- owns(I, C, P), A = avg(P).
total(T) :- mean(C, A), T = sum(A).
thirds(I, S) :- owns(I, C, P), mean(C, A), S = sum(A / 3).
band(C, L, R) :- mean(C, A), L = max(A, 50), R = mod(A, 7/2).
@output("total"). @output("thirds"). @output("band").
"""
DIVISIONS = r"""
far(X, Z) :- owns(X, Y, P), owns(Y, Z, Q).
share(I, C, S) :- owns(I, C, P), S = P / 100.
third(I, C) :- owns(I, C, P), P / 3 > 10.
mid(C, M) :- owns(I, C, P), owns(J, C, Q), I != J, M = (P + Q) / 2.
@output("share"). @output("third"). @output("mid").
"""
PROGRAMS = {"aggregate": PROGRAM, "widened": WIDENED, "since": SINCE, "values": VALUES, "functions": FUNCTIONS, "udfs": UDFS, "floats": FLOATS,
            "float_sums": FLOAT_SUMS, "float_means": FLOAT_MEANS, "exact_means": EXACT_MEANS,
            "fraction_folds": FRACTION_FOLDS, "divisions": DIVISIONS, "confined": CONFINED}
FLOAT_DATA = {"floats", "float_sums", "float_means"}  # the programs that read p as a double


def facts(n: int, seed: int = 7, floats: bool = False):
    import pyarrow as pa

    rnd = random.Random(seed)
    companies = max(n // 50, 1)
    i = [f"i{rnd.randrange(n // 5 + 1)}" for _ in range(n)]
    c = [f"c{rnd.randrange(companies)}" for _ in range(n)]
    p = [rnd.randrange(1, 100) for _ in range(n)]
    if floats:  # binary floats, repeated (joins on them meet)
        p = pa.array([x * 0.37 for x in p], pa.float64())
    start = [rnd.randrange(0, 1000) for _ in range(n)]
    end = [s + rnd.randrange(0, 50) for s in start]
    return pa.table({"i": i, "c": c, "p": p, "start": start, "end": end})


SIDES = {  # side -> reason()'s arguments that force its path
    "driver": {"distributed": False},
    "relational": {"distributed": True, "one_task_bytes": -1},
    "one task": {"distributed": True, "one_task_bytes": 1 << 62},
    "auto": {"distributed": True},  # the path reason() chooses
}


def inputs_of(spark, path, program):
    if program == "control":
        return {"own": spark.read.parquet(path)}
    return {"owns": spark.read.parquet(path)}


def run(spark, path, side: str, program: str, memory: bool = False):
    from chronolog import spark as cs

    if memory:
        import tracemalloc

        tracemalloc.start()
    from spark_sensors import cpu_delta, tree_cpu  # (bench/spark_sensors.py: this process, the JVM, the Python workers)

    t0, c0, tree0 = time.perf_counter(), time.process_time(), tree_cpu(os.getpid())
    stats = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = cs.reason(spark, program_text(program), inputs=inputs_of(spark, path, program), stats=stats, **SIDES[side])
    rows = {p: df.count() for p, df in out.items()}
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    all_cpu = cpu_delta(tree0, tree_cpu(os.getpid()))[0]
    peak = None
    if memory:
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return out, rows, stats.get("path"), wall, (cpu, all_cpu), len(stats.get("rounds", ())), peak


def program_text(program: str) -> str:
    if program == "control":
        return (ROOT / "examples" / "ownership" / "temporal.vada").read_text()
    return PROGRAMS[program]


def data_of(n: int, directory: str, program: str) -> str:
    """The Parquet file of ``n`` facts for ``program`` (written once)."""
    if program == "control":
        from spark_ownership import parquet_of

        return str(parquet_of(n))
    path = os.path.join(directory, f"owns-{'floats-' if program in FLOAT_DATA else ''}{n}.parquet")
    if not os.path.exists(path):
        import pyarrow.parquet as pq

        pq.write_table(facts(n, floats=program in FLOAT_DATA), path)
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--facts", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--dir", default="/tmp/chronolog-bench-aggregate")
    ap.add_argument("--sides", nargs="+", choices=sorted(SIDES), default=["driver", "relational"],
                    help="which Spark paths to run (in this order; 'auto': the one reason() chooses)")
    ap.add_argument("--no-embedded", action="store_true")
    ap.add_argument("--memory", action="store_true", help="the driver's Python peak (tracemalloc; slower) per side")
    ap.add_argument("--program", choices=sorted(PROGRAMS) + ["control"], default="aggregate")
    args = ap.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    import pyarrow.parquet as pq

    import chronolog
    from chronolog import spark as cs
    from chronolog.engine.arrow import table_to_rows

    spark = cs.session(args.master, "bench-aggregate")
    spark.sparkContext.setLogLevel("ERROR")
    os.makedirs(args.dir, exist_ok=True)
    if args.program == "control":
        warm = data_of(1000, args.dir, args.program)
    else:
        warm = os.path.join(args.dir, "warm.parquet")  # the JVM's first jobs (JIT, class loading) on neither side's figures
        pq.write_table(facts(1000, floats=args.program in FLOAT_DATA), warm)
    for side in args.sides:
        run(spark, warm, side, args.program)
    for n in args.facts:
        path = data_of(n, args.dir, args.program)
        if not args.no_embedded:
            t0, c0 = time.perf_counter(), time.process_time()
            model = chronolog.reason(program_text(args.program), inputs_of_embedded(path, args.program))
            emb = {p: len(model.facts(p)) for p in model.output_predicates}
            print(json.dumps({"facts": n, "side": "embedded", "wall": round(time.perf_counter() - t0, 2),
                              "cpu": round(time.process_time() - c0, 2), "rows": emb}), flush=True)
            del model
        answers = {}
        for side in args.sides:
            out, rows, path_taken, wall, cpu, rounds, peak = run(spark, path, side, args.program, args.memory)
            answers[side] = {p: set(map(str, table_to_rows(df.toArrow(), p))) for p, df in out.items()}
            line = {"facts": n, "side": side, "path": path_taken, "wall": round(wall, 2), "cpu": round(cpu[0], 2),
                    "cpu_all": round(cpu[1], 2), "load": os.getloadavg()[0], "rows": rows, "rounds": rounds}
            if peak is not None:
                line["driver_py_peak_mb"] = round(peak, 1)
            print(json.dumps(line), flush=True)
        if len(answers) > 1:
            print(json.dumps({"facts": n, "same_model": all(a == answers[args.sides[0]] for a in answers.values())}), flush=True)
    spark.stop()


def inputs_of_embedded(path: str, program: str) -> dict:
    import pyarrow.parquet as pq

    return {"own" if program == "control" else "owns": pq.read_table(path)}


if __name__ == "__main__":
    main()
