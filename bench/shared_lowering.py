"""Design study: one lowering of an operator for the columnar executor and
the Spark rounds -- chronolog's own expression tree (engine/exprs.py)
against narwhals over Polars and over PySpark, and against the numpy
kernels the columns had before (no chronolog run).

    python -m pip install narwhals    # the peer: in the test extras (bash test.sh --co -q), not a dependency of chronolog
    python bench/shared_lowering.py --rows 1000000 --repeat 15 [--spark]

Two operators on the same random inputs, both sides in the same run:

* conditions and assignments with integer arithmetic and built-in
  functions: ``Z = X * 3 + Y, Z > 1500000, W = mod(Z, 7) + floor(Z / 13)``
  with every operation checked (a result beyond 64 bits or a division by
  zero refuses the row, as engine/int_arithmetic.py does);
* a temporal shift ``<->[2,5]`` of interval codes (engine/interval_shift.py);
* float arithmetic ``Z = X * 0.5 + Y / 3.0, W = floor(Z / 7.0)``, one
  operator at a time as the columns' expressions.evaluate runs it, each
  refused where a result is not finite (engine/float_arithmetic.py);
* an aggregation's time segments (engine/segments.py) of intervals in
  five groups: the tree's frames emitted in numpy against the same
  events, GROUP BY and windows written in Polars (``group_by``, ``sort``,
  ``cum_sum`` and ``shift`` over the group).

Polars: the numpy kernels (the code before, as on the columns then),
the tree emitted as Polars expressions, narwhals over Polars.  ``--spark``
(local[2]): the tree emitted as SQL text, and narwhals over PySpark; their
optimized plans are compared (expression ids masked) and a ``count`` of
each timed.  Prints the best time of ``--repeat`` per side and whether every side gives
the same values.
"""

from __future__ import annotations

import argparse
import re
import time

BOUND = 2**62  # the columns' integers (expressions.Values)


def inputs(n: int, seed: int = 7):
    import numpy as np

    rng = np.random.default_rng(seed)
    x = rng.integers(0, 1_000_000, n, dtype=np.int64)
    y = rng.integers(0, 1_000_000, n, dtype=np.int64)
    s = rng.integers(-(10**9), 10**9, n, dtype=np.int64)
    e = s + rng.integers(1, 1000, n, dtype=np.int64)
    return x, y, s, e


# ------------------------------------------------------------ numpy (the code before)
def arith_numpy(x, y):
    import numpy as np

    def checked(a, b, op):
        big = float(np.abs(a).max(initial=0)), float(np.abs(b).max(initial=0))
        if (op == "*" and big[0] * big[1] >= BOUND) or big[0] + big[1] >= BOUND:
            raise OverflowError
        return a * b if op == "*" else a + b

    z = checked(checked(x, np.full(len(x), 3), "*"), y, "+")
    keep = z > 1_500_000
    z = z[keep]
    w = checked(np.mod(z, 7), np.floor_divide(z, 13), "+")
    return z, w


def shift_numpy(s, e, d1, d2):
    import numpy as np

    NEG, POS = -(2**62), 2**62
    s2 = np.where(s != NEG, 2 * ((s >> 1) + d1) + (s & 1), NEG)
    e2 = np.where(e != POS, 2 * ((e >> 1) + d2) + (e & 1), POS)
    return s2, e2


def float_numpy(x, y):
    """The columns' float arithmetic before the shared lowering: numpy per operator."""
    import numpy as np

    def op(a, b, o):
        if o == "/" and np.any(b == 0):
            raise ZeroDivisionError
        r = {"+": np.add, "*": np.multiply, "/": np.divide}[o](a, b)
        if not np.all(np.isfinite(r)):
            raise OverflowError
        return r

    n = len(x)
    z = op(op(x, np.full(n, 0.5), "*"), op(y, np.full(n, 3.0), "/"), "+")
    r = np.floor(op(z, np.full(n, 7.0), "/"))
    if float(np.abs(r).max()) >= BOUND:
        raise OverflowError
    return z, r.astype(np.int64)


def float_tree(x, y):
    """The same through engine/float_arithmetic.py, as the columns run it now."""
    import numpy as np

    from chronolog.engine import float_arithmetic as fa
    from chronolog.engine.columns.expressions import floats

    def b(o):
        return lambda p, q: fa.binop(o, p, q, o)

    n = len(x)
    z = floats(b("+"), floats(b("*"), x, np.full(n, 0.5)), floats(b("/"), y, np.full(n, 3.0)))
    return z, floats(lambda v: fa.whole("floor", v, BOUND, "floor"), floats(b("/"), z, np.full(n, 7.0)))


# ------------------------------------------------------------ the tree of engine/exprs.py
def arith_tree():
    from chronolog.engine import int_arithmetic as ia
    from chronolog.engine.exprs import col
    from chronolog.language import ast

    X, Y, Z = ast.Var("X"), ast.Var("Y"), ast.Var("Z")
    z = ia.lower(ast.BinOp("+", ast.BinOp("*", X, ast.Const(3)), Y), col)
    cond = ia.compare(ast.Comparison(">", Z, ast.Const(1_500_000)), col)
    w = ia.lower(ast.BinOp("+", ast.Call("mod", (Z, ast.Const(7))), ast.Call("floor", (ast.BinOp("/", Z, ast.Const(13)),))), col)
    return z, cond, w


def arith_polars(df):
    from chronolog.engine.exprs import to_polars, with_values

    z, cond, w = arith_tree()
    df, why = with_values(df, {"Z": z})
    if why:
        raise OverflowError
    df, why = with_values(df.filter(to_polars(cond, [])), {"W": w})
    if why:
        raise OverflowError
    return df


def shift_polars(df, d1, d2):
    from chronolog.engine.columns.temporal import moved
    from chronolog.engine.interval_shift import shift

    return moved(df, shift, (d1, d2, True, True))  # (checked, as the columns run it)


def arith_sql():
    from chronolog.engine.exprs import to_sql

    z, cond, w = arith_tree()
    lit = lambda v: f"({v}L)"  # noqa: E731
    stop = lambda why: f"raise_error('{why}')"  # noqa: E731
    return to_sql(z, lit, stop), to_sql(cond, lit, stop), to_sql(w, lit, stop)


# ------------------------------------------------------------ narwhals (Polars and PySpark)
def arith_narwhals(native):
    """The same operator in narwhals: no try-arithmetic or raise_error, so
    an overflow is found by a 128-bit copy and a second pass on Polars; on
    PySpark narwhals has no 128-bit integer: the check is dropped there."""
    import narwhals as nw

    df = nw.from_native(native)
    eager = isinstance(df, nw.DataFrame)
    z = nw.col("X") * 3 + nw.col("Y")
    if eager:
        wide = nw.col("X").cast(nw.Int128) * 3 + nw.col("Y").cast(nw.Int128)
        if df.select((wide.abs() >= BOUND).any()).item():
            raise OverflowError
    df = df.with_columns(z.alias("Z")).filter(nw.col("Z") > 1_500_000)
    w = (nw.col("Z") % 7) + (nw.col("Z") // 13)  # Python's floored % and // on both
    return df.with_columns(w.alias("W")).to_native()


def shift_narwhals(native, d1, d2):
    import narwhals as nw

    NEG, POS = -(2**62), 2**62
    df = nw.from_native(native)
    s, e = nw.col("s"), nw.col("e")
    s2 = nw.when(s != NEG).then(((s // 2) + d1) * 2 + (s % 2)).otherwise(NEG)
    e2 = nw.when(e != POS).then(((e // 2) + d2) * 2 + (e % 2)).otherwise(POS)
    return df.with_columns(s2.alias("s"), e2.alias("e")).to_native()


def segments_tree(s, e):
    import numpy as np

    from chronolog.engine.exprs import frame_numpy
    from chronolog.engine.segments import segments

    return frame_numpy(segments(["g"]), {"g": np.arange(len(s), dtype=np.int64) % 5, "s": s, "e": e}, {})


def segments_polars(s, e):
    import numpy as np
    import polars as pl

    df = pl.DataFrame({"g": np.arange(len(s), dtype=np.int64) % 5, "s": s, "e": e})
    events = pl.concat([df.select("g", pl.col("s").alias("p"), pl.lit(1, pl.Int64).alias("dn")),
                        df.select("g", pl.col("e").alias("p"), pl.lit(-1, pl.Int64).alias("dn"))])
    return events.lazy().group_by("g", "p").agg(pl.col("dn").sum()).sort("g", "p").with_columns(
        pl.col("p").shift(-1).over("g").alias("e"), pl.col("dn").cum_sum().over("g").alias("n")).filter(pl.col("n") > 0).collect()


def timed(f, repeat: int) -> tuple:
    out, times = None, []
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out  # the least disturbed run: the machine is shared


def plan(sdf) -> str:
    """The optimized logical plan, expression ids masked."""
    text = sdf._jdf.queryExecution().optimizedPlan().toString()
    return re.sub(r"#\d+L?", "#", text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--spark", action="store_true", help="also PySpark (local[2]): SQL text against narwhals")
    a = ap.parse_args()
    import os

    import polars as pl

    print(f"load {os.getloadavg()[0]:.1f}, rows {a.rows:,}, best of {a.repeat}")
    x, y, s, e = inputs(a.rows)
    df = pl.DataFrame({"X": x, "Y": y})
    iv = pl.DataFrame({"s": s, "e": e})
    t0, (z0, w0) = timed(lambda: arith_numpy(x, y), a.repeat)
    t1, out1 = timed(lambda: arith_polars(df), a.repeat)
    t2, out2 = timed(lambda: arith_narwhals(df), a.repeat)
    same = all(o["Z"].to_list() == z0.tolist() and o["W"].to_list() == w0.tolist() for o in (out1, out2))
    print(f"arith numpy(before) {t0 * 1e3:.1f} ms  tree->polars {t1 * 1e3:.1f} ms  narwhals->polars {t2 * 1e3:.1f} ms  same={same}")
    t0, (s0, e0) = timed(lambda: shift_numpy(s, e, 2, 5), a.repeat)
    t1, out1 = timed(lambda: shift_polars(iv, 2, 5), a.repeat)
    t2, out2 = timed(lambda: shift_narwhals(iv, 2, 5), a.repeat)
    same = all(o["s"].to_list() == s0.tolist() and o["e"].to_list() == e0.tolist() for o in (out1, out2))
    print(f"shift numpy(before) {t0 * 1e3:.1f} ms  tree->polars {t1 * 1e3:.1f} ms  narwhals->polars {t2 * 1e3:.1f} ms  same={same}")
    fx, fy = x.astype("float64"), y.astype("float64")
    t0, (z0, w0) = timed(lambda: float_numpy(fx, fy), a.repeat)
    t1, (z1, w1) = timed(lambda: float_tree(fx, fy), a.repeat)
    same = z0.tolist() == z1.tolist() and w0.tolist() == w1.tolist()
    print(f"float numpy(before) {t0 * 1e3:.1f} ms  tree->numpy {t1 * 1e3:.1f} ms  same={same}")
    t0, got = timed(lambda: segments_tree(s, e), a.repeat)
    t1, out1 = timed(lambda: segments_polars(s, e), a.repeat)
    same = got["s"].tolist() == out1["p"].to_list() and got["n"].tolist() == out1["n"].to_list()
    print(f"segments tree->numpy {t0 * 1e3:.1f} ms  polars {t1 * 1e3:.1f} ms  same={same}")
    if a.spark:
        spark_side(df, iv, a.repeat)


def spark_side(df, iv, repeat: int) -> None:
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    sdf = spark.createDataFrame(df.to_arrow()).cache()
    siv = spark.createDataFrame(iv.to_arrow()).cache()
    sdf.count(), siv.count()
    z, cond, w = arith_sql()

    def by_sql():
        return sdf.selectExpr("*", f"{z} AS Z").where(cond).selectExpr("*", f"{w} AS W")

    def by_narwhals():
        return arith_narwhals(sdf)

    for name, build in (("arith", (by_sql, by_narwhals)), ("shift", (lambda: shift_sql(siv), lambda: shift_narwhals(siv, 2, 5)))):
        t_build = [timed(f, repeat)[0] for f in build]
        total = "sum(Z) + sum(W)" if name == "arith" else "sum(s) + sum(e)"  # (reads every computed value)
        t_run = [timed(lambda f=f: f().selectExpr(total).collect(), repeat) for f in build]
        plans = [plan(f()) for f in build]
        print(f"spark {name}: build sql {t_build[0] * 1e3:.1f} ms narwhals {t_build[1] * 1e3:.1f} ms; "
              f"sum sql {t_run[0][0]:.2f} s narwhals {t_run[1][0]:.2f} s; same plan={plans[0] == plans[1]} "
              f"(plan text {len(plans[0])} and {len(plans[1])} characters) "
              f"same values={t_run[0][1] == t_run[1][1]}")
    spark.stop()


def shift_sql(siv):
    from chronolog.engine.exprs import to_sql
    from chronolog.engine.interval_shift import shift

    s2, e2 = (to_sql(x, lambda v: f"({v}L)", None) for x in shift((2, 5, True, True)))
    return siv.selectExpr(f"{s2} AS s", f"{e2} AS e")


if __name__ == "__main__":
    main()
