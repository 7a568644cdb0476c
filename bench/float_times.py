"""Reading float time points: what the exact conversion costs.

A float64 ``start``/``end`` column (or Python float ends given as facts) is
converted to the exact rational of each float's shortest decimal text
(language/float_times.py).  This measures, side by side in one run, on the
same times (steps of 0.1 -- ``i / 10`` -- and integer steps stored as
floats):

* ``reason`` over a Parquet file bound with ``@bind`` (kernel reader and
  the columnar executor), the time columns as ``float64``, as
  ``decimal128(18, 1)`` (the exact form users had to write before), and
  as ``int64`` for the whole-number case;
* the same table given as an Arrow table in the dictionary (row reader);
* Python facts with float ends against the same ends as ``Fraction``;
* the conversion kernel alone against Polars' ``Float64 -> Decimal`` cast
  of the same column (the peer's cast to a fixed scale).

CPU seconds (process time), best of ``--repeat``; every run reads the file
again (nothing cached between runs).

    python bench/float_times.py [--rows 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import chronolog

PROGRAM = "q(K) :- <->[0,1] p(K)."


def best(f, repeat):
    out = None
    times = []
    for _ in range(repeat):
        t = time.process_time()
        out = f()
        times.append(time.process_time() - t)
    return min(times), out


def table(n, kind, tenths=True):
    i = np.arange(n, dtype=np.int64)
    keys = pa.array([f"s{k}" for k in range(1000)]).take(pa.array(i % 1000))
    if kind == "int64":
        start, end = pa.array(i), pa.array(i + 1)
    elif kind == "float64":
        start = pa.array(i / 10 if tenths else i.astype(np.float64))
        end = pa.array((i + 1) / 10 if tenths else (i + 1).astype(np.float64))
    else:  # decimal128(18, 1): the same tenths, exactly
        start, end = _decimals(i, tenths), _decimals(i + 1, tenths)
    return pa.table({"k": keys, "start": start, "end": end})


def _decimals(units, tenths):
    scaled = units if tenths else units * 10  # unscaled integers at scale 1
    words = np.stack([scaled, scaled >> 63], axis=1).astype("<i8")
    return pa.Array.from_buffers(pa.decimal128(18, 1), len(units), [None, pa.py_buffer(words.tobytes())])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--facts", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    n, r = args.rows, args.repeat
    tmp = Path(tempfile.mkdtemp())
    print(f"rows {n:,}, program {PROGRAM!r}, CPU seconds (best of {r})")

    print("\n@bind Parquet, engine=columns")
    for label, kind, tenths in (
        ("float64 tenths", "float64", True), ("decimal128 tenths", "decimal", True),
        ("float64 whole", "float64", False), ("int64 whole", "int64", False),
    ):
        path = tmp / f"{kind}-{tenths}.parquet"
        pq.write_table(table(n, kind, tenths), path)
        prog = f'@bind("p", "parquet", "{tmp}", "{path.name}").\n' + PROGRAM
        secs, m = best(lambda: chronolog.reason(prog, engine="columns"), r)
        print(f"  {label:20s} {secs:7.2f} s   executors {sorted(set(m.stats['executors'].values()))}")

    m_rows = min(n, args.facts)
    print(f"\nArrow table in the dictionary, engine=rows ({m_rows:,} rows)")
    for label, kind in (("float64 tenths", "float64"), ("decimal128 tenths", "decimal")):
        t = table(m_rows, kind)
        secs, _ = best(lambda: chronolog.reason(PROGRAM, {"p": t}, engine="rows"), r)
        print(f"  {label:20s} {secs:7.2f} s")

    k = args.facts
    print(f"\nPython facts, engine=rows ({k:,} facts)")
    i = np.arange(k)
    for label, conv in (("float ends", lambda x: x / 10), ("Fraction ends", lambda x: Fraction(int(x), 10)),
                        ("float whole ends", float), ("int ends", int)):
        facts = {"p": [((f"s{x % 1000}",), (conv(x), conv(x + 1))) for x in i.tolist()]}
        secs, _ = best(lambda: chronolog.reason(PROGRAM, facts, engine="rows"), r)
        print(f"  {label:20s} {secs:7.2f} s")

    print(f"\nthe conversion of one column alone ({n:,} distinct floats)")
    import polars as pl

    from chronolog.language.float_times import float_time_pairs, float_time_values

    v = np.arange(n) / 10
    secs, _ = best(lambda: float_time_pairs(v), r)
    print(f"  float_time_pairs      {secs:7.3f} s  (int64 numerator/denominator pairs)")
    secs, _ = best(lambda: float_time_values(v), r)
    print(f"  float_time_values     {secs:7.3f} s  (the row engine's ints and Fractions)")
    s = pl.Series(v)
    secs, _ = best(lambda: s.cast(pl.Decimal(18, 1)), r)
    print(f"  polars cast Decimal   {secs:7.3f} s  (peer: to a fixed scale of 1)")
    w = np.arange(n, dtype=np.float64)
    secs, _ = best(lambda: float_time_pairs(w), r)
    print(f"  float_time_pairs whole {secs:6.3f} s  (the fast path)")


if __name__ == "__main__":
    main()
