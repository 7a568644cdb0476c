"""EMA over a 13,600-day series: chronolog against pandas, end to end.

Both sides do the same job on the same CSV file (a random walk in integer
cents, one row per day: series, day, value, start, end -- 13,600 rows, the
length of the NASDAQ composite daily series 1971-2023):

* chronolog: parse ``examples/timeseries/ema.vada`` with a ``@bind`` of the
  CSV, read it, reason (the recurrence kernel: one sweep through the days), and write the ``ema``
  facts to a CSV through ``model.to_polars`` (Polars' ``write_csv``; pandas'
  ``to_csv`` of the same six columns takes longer than the reasoning's sweep);
* pandas: ``read_csv``, ``ewm(span=20, adjust=False).mean()``, ``to_csv``.

The script checks that the two files written hold equal values to the last bit, then
prints the median time of each side over ``--repeat`` runs and the ratio.

    python bench/timeseries_ema.py [--days 13600] [--repeat 3] [--json FILE]
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RECIPE = HERE.parent / "examples" / "timeseries" / "ema.vada"
CPU: dict = {}  # side -> CPU seconds of each run (the process, all threads)


def random_walk(n: int, seed: int = 1971) -> list:
    """The same walk as tests/test_timeseries.py: integer cents, steps != 0."""
    rng = random.Random(seed)
    v, out = 1_000_000, []
    for _ in range(n):
        out.append(v)
        v += rng.choice([-1, 1]) * rng.randint(1, 5_000)
    return out


def write_csv(path: Path, values) -> None:
    with path.open("w") as fh:
        fh.write("series,day,value,start,end\n")
        for d, v in enumerate(values):
            fh.write(f"nasdaq,{d},{v},{d},{d + 1}\n")


def program(csv_path: Path) -> str:
    return RECIPE.read_text() + f"""
@bind("price", "csv useHeaders=true", "{csv_path.parent}", "{csv_path.name}").
@mapping("price", 0, "series", "string").
@mapping("price", 1, "day", "int").
@mapping("price", 2, "value", "int").
@timeMapping("price", 3, 4, #T, #F).
"""


def run_chronolog(csv_path: Path, out: Path):
    import chronolog

    t, c = time.perf_counter(), time.process_time()
    model = chronolog.reason(program(csv_path))
    df = model.to_polars("ema")
    df.write_csv(out)
    CPU.setdefault("chronolog", []).append(time.process_time() - c)
    return time.perf_counter() - t, df


def run_pandas(csv_path: Path, out: Path):
    import pandas as pd

    t, c = time.perf_counter(), time.process_time()
    df = pd.read_csv(csv_path)
    df["ema"] = df["value"].ewm(span=20, adjust=False).mean()
    df[["series", "day", "ema"]].to_csv(out, index=False)
    CPU.setdefault("pandas", []).append(time.process_time() - c)
    return time.perf_counter() - t, df


def same_values(ours: Path, theirs: Path) -> int:
    """Days where the two written EMAs differ (read back from the files: the
    chronolog facts hold on whole days; a float written is read back exactly)."""
    by_day = {}
    with ours.open() as fh:
        for row in csv.DictReader(fh):
            for d in range(int(row["start"]), int(row["end"])):
                by_day[d] = float(row["c1"])
    with theirs.open() as fh:
        expected = {int(row["day"]): float(row["ema"]) for row in csv.DictReader(fh)}
    return sum(1 for d, v in expected.items() if by_day.get(d) != v)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--days", type=int, default=13_600)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        csv_path = tmp / "nasdaq.csv"
        write_csv(csv_path, random_walk(args.days))
        ct, pt = [], []
        for _ in range(args.repeat):
            t, _ = run_chronolog(csv_path, tmp / "ema_chronolog.csv")
            ct.append(t)
            t, _ = run_pandas(csv_path, tmp / "ema_pandas.csv")
            pt.append(t)
        diff = same_values(tmp / "ema_chronolog.csv", tmp / "ema_pandas.csv")
    c, p = statistics.median(ct), statistics.median(pt)
    print(f"EMA span 20 over {args.days} days, end to end (CSV in, CSV out), median of {args.repeat}")
    print(f"  chronolog {c:8.3f} s   ({args.days / c:,.0f} days/s)")
    print(f"  pandas    {p:8.3f} s")
    print(f"  chronolog / pandas = {c / p:,.1f}x slower")
    cc, pc = statistics.median(CPU["chronolog"]), statistics.median(CPU["pandas"])
    print(f"  CPU: chronolog {cc:.3f} s, pandas {pc:.3f} s, {cc / pc:,.1f}x")
    print(f"  days where the values differ: {diff}")
    if args.json:
        with args.json.open("a") as fh:
            fh.write(json.dumps({"bench": "ema", "days": args.days, "chronolog_s": c, "pandas_s": p, "chronolog_cpu": cc, "pandas_cpu": pc, "differ": diff}) + "\n")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
