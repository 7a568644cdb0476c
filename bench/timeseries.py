"""Rolling windows and monthly resampling: chronolog against pandas.

One CSV file, 5 series x N days (default 20,000) of prices with two
decimals (a random walk, read as binary floats by both sides): columns
series, day, value, start, end (dates; a day holds on [start, end)).
Both programs run on a days timeline (``@timeGranularity("days")``).  Both sides read the file and compute:

* rolling: 20-day rolling sum, mean, min, max per series
  (``examples/timeseries/rolling.vada``; pandas
  ``groupby("series")["value"].rolling(20).sum()`` etc.);
* monthly: calendar-month sum, mean, min, max per series (``/\\[months]``
  with an aggregate; pandas ``groupby("series").resample("MS")``).

chronolog is timed three ways, each with the read included:

* ``api``: the public call, ``chronolog.reason`` on the program with a
  ``@bind`` of the CSV (the value column mapped ``"float"``: binary floats,
  as pandas reads them), then ``model.to_pandas`` of every output;
* ``columns``: the columnar executor on the file read by pyarrow
  (``HybridEvaluator(tables=...)``), answers straight from the columns
  (``to_arrow``) -- no Python object per fact;
* ``api_pq``: as ``api`` on the same data in a Parquet file (``@bind``
  parquet: series, day, value, start and end as dates, closedness), against
  ``pandas_pq``: pandas reading that Parquet file.

``--exact`` adds ``api_exact``: the CSV's values mapped ``"double"`` (exact
decimals: sums and means are exact rationals, to_pandas gives floats plus
the exact text), against the same pandas run.

The answers are checked against pandas at every day of every series (the
chronolog fact holding at the day against pandas' value for it; relative
difference at most 1e-9: pandas' rolling sum is a running add-and-subtract,
chronolog's is correctly rounded), and the script exits 1 on a difference.

    python bench/timeseries.py [--days 20000] [--series 5] [--repeat 3] [--skip-api] [--exact] [--skip-parquet]
                               [--kinds rolling monthly] [--pythonpath OLD_TREE] [--json FILE]

``--pythonpath``: chronolog imported from another tree (an export of an
earlier commit laid out as the installed package), the rest of the script
the same: before/after in alternating processes; the tree that ran is
printed and kept in the JSON (``chronolog``).
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROLLING = '@timeGranularity("days").\n' + (HERE.parent / "examples" / "timeseries" / "rolling.vada").read_text()
MONTHLY = """@timeGranularity("days").
@input("price").
@output("monthSum"). @output("monthMean"). @output("monthMin"). @output("monthMax").
monthSum(S, X) :- /\\[months] price(S, D, V), X = sum(V).
monthMean(S, X) :- /\\[months] price(S, D, V), X = avg(V).
monthMin(S, X) :- /\\[months] price(S, D, V), X = min(V).
monthMax(S, X) :- /\\[months] price(S, D, V), X = max(V).
"""
OUTPUTS = {
    "rolling": {"rollSum": "sum", "sma": "mean", "rollMin": "min", "rollMax": "max"},
    "monthly": {"monthSum": "sum", "monthMean": "mean", "monthMin": "min", "monthMax": "max"},
}
PHASES: dict = {}  # kind -> [(read and plan, reason, output) cpu seconds] of run_columns
FIRST_DAY = datetime.date(1971, 2, 5)
EPOCH_DAY = (FIRST_DAY - datetime.date(1970, 1, 1)).days


def write_csv(path: Path, series: int, days: int, seed: int = 1971) -> None:
    rng = random.Random(seed)
    with path.open("w") as fh:
        fh.write("series,day,value,start,end\n")
        for k in range(series):
            v = 10_000
            for d in range(days):
                a, b = FIRST_DAY + datetime.timedelta(days=d), FIRST_DAY + datetime.timedelta(days=d + 1)
                fh.write(f"s{k},{d},{v / 100:.2f},{a},{b}\n")
                v = max(100, v + rng.randint(-500, 500))


def program(kind: str) -> str:
    return ROLLING if kind == "rolling" else MONTHLY


def bound_program(kind: str, csv: Path, value: str = "float") -> str:
    return program(kind) + f"""
@bind("price", "csv useHeaders=true", "{csv.parent}", "{csv.name}").
@mapping("price", 0, "series", "string").
@mapping("price", 1, "day", "int").
@mapping("price", 2, "value", "{value}").
@timeMapping("price", 3, 4, #T, #F).
"""


def write_parquet(csv: Path) -> Path:
    """The CSV's data as Parquet in the Arrow layout of a fact table."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    t = pcsv.read_csv(csv)
    n = t.num_rows
    out = csv.with_suffix(".parquet")
    pq.write_table(pa.table({
        "series": t["series"], "day": t["day"], "value": t["value"],
        "start": t["start"].cast(pa.date32()), "end": t["end"].cast(pa.date32()),
        "start_closed": pa.repeat(True, n), "end_closed": pa.repeat(False, n),
    }), out)
    return out


# ------------------------------------------------------------------ chronolog
def run_api(kind: str, csv: Path) -> dict:
    import chronolog

    model = chronolog.reason(bound_program(kind, csv), engine="columns")
    return {p: model.to_pandas(p) for p in OUTPUTS[kind]}


def run_api_exact(kind: str, csv: Path) -> dict:
    import chronolog

    model = chronolog.reason(bound_program(kind, csv, "double"), engine="columns")
    return {p: model.to_pandas(p) for p in OUTPUTS[kind]}


def run_api_pq(kind: str, csv: Path) -> dict:
    import chronolog

    pq = csv.with_suffix(".parquet")
    text = program(kind) + f'@bind("price", "parquet", "{pq.parent}", "{pq.name}").\n'
    model = chronolog.reason(text, engine="columns")
    return {p: model.to_pandas(p) for p in OUTPUTS[kind]}


def run_columns(kind: str, csv: Path) -> dict:
    import pyarrow as pa
    import pyarrow.csv as pcsv

    from chronolog.api import load_program
    from chronolog.connectors.text_out import columns_arrow_table
    from chronolog.engine.columns.evaluator import HybridEvaluator
    from chronolog.engine.store import Store
    from chronolog.planner import plan as make_plan

    c0 = time.process_time()
    t = pcsv.read_csv(csv, convert_options=pcsv.ConvertOptions(include_columns=["series", "day", "value", "start", "end"]))
    # dates as days since 1970-01-01, the days timeline's numbers
    days = {c: t[c].cast(pa.date32()).cast(pa.int32()).cast(pa.int64()) for c in ("start", "end")}
    n = t.num_rows
    table = pa.table({"series": t["series"], "day": t["day"], "value": t["value"], **days,
                      "start_closed": pa.repeat(True, n), "end_closed": pa.repeat(False, n)})
    ev = HybridEvaluator(make_plan(load_program(program(kind))), Store(), engine="columns", tables={"price": table})
    c1 = time.process_time()
    ev.run()
    c2 = time.process_time()
    if set(ev.executors.values()) != {"columns"}:
        raise SystemExit(f"a stratum ran on rows: {ev.stats.get('fallbacks')}")
    out = {p: columns_arrow_table(ev, p, ["series", "x"]).to_pandas() for p in OUTPUTS[kind]}
    PHASES.setdefault(kind, []).append((c1 - c0, c2 - c1, time.process_time() - c2))
    return out


# ------------------------------------------------------------------ pandas
def run_pandas_pq(kind: str, csv: Path) -> dict:
    return run_pandas(kind, csv, parquet=True)


def run_pandas(kind: str, csv: Path, parquet: bool = False) -> dict:
    import pandas as pd

    if parquet:
        df = pd.read_parquet(csv.with_suffix(".parquet"))
        df["start"] = pd.to_datetime(df["start"])
    else:
        df = pd.read_csv(csv, parse_dates=["start"])
    if kind == "rolling":
        r = df.groupby("series")["value"].rolling(20)
        return {p: getattr(r, f)() for p, f in OUTPUTS[kind].items()}
    g = df.set_index("start").groupby("series")["value"].resample("MS")
    return {p: getattr(g, f)() for p, f in OUTPUTS[kind].items()}


# ------------------------------------------------------------------ comparison
def by_day(frame, series: int, days: int):
    """A chronolog answer as a (series, day) -> value array (NaN where no fact)."""
    import numpy as np

    cols = list(frame.columns)
    s_col, x_col = cols[0], cols[1]
    out = np.full((series, days), np.nan)
    def days_of(col):
        c = frame[col]
        if str(c.dtype).startswith("datetime64"):  # a date timeline (to_pandas)
            return c.to_numpy().astype("datetime64[D]").astype("int64") - EPOCH_DAY
        return c.to_numpy(dtype="int64") - EPOCH_DAY

    start, end = days_of("start"), days_of("end")  # [start, end): the facts are whole days
    if "end_closed" in frame.columns and frame["end_closed"].any():
        end = end + frame["end_closed"].to_numpy(dtype="int64")
    k = frame[s_col].astype(str).str[1:].astype(int).to_numpy()
    x = frame[x_col].astype(float).to_numpy()
    for i in range(len(frame)):
        out[k[i], max(start[i], 0): min(end[i], days)] = x[i]
    return out


def pandas_by_day(kind, value, series: int, days: int):
    import numpy as np

    out = np.full((series, days), np.nan)
    if kind == "rolling":
        for (s, idx), v in value.items():
            out[int(s[1:]), idx % days] = v
        return out
    dates = np.array([FIRST_DAY + datetime.timedelta(days=d) for d in range(days)], dtype="datetime64[D]")
    month = dates.astype("datetime64[M]")
    for s in range(series):
        v = value.loc[f"s{s}"]
        m = {np.datetime64(ts, "M"): x for ts, x in v.items()}
        out[s] = [m.get(mm, np.nan) for mm in month]
    return out


def compare(kind, ours: dict, theirs: dict, series: int, days: int) -> int:
    import numpy as np

    bad = 0
    for pred in OUTPUTS[kind]:
        a = by_day(ours[pred], series, days)
        b = pandas_by_day(kind, theirs[pred], series, days)
        same_nan = np.isnan(a) == np.isnan(b)
        close = np.isclose(a, b, rtol=1e-9, atol=0) | (np.isnan(a) & np.isnan(b))
        n = int((~(same_nan & close)).sum())
        if n:
            print(f"  {pred}: {n} days differ", file=sys.stderr)
        bad += n
    return bad


def timed(fn, *args):
    """``(wall, cpu, answer)`` of one call, every side started from an empty
    young generation: a full collection walks the ~90,000 objects of the
    imported modules (~50 ms, more than pandas' whole rolling job) and
    fell into whichever side the others' garbage brought it to (a third of
    chronolog's rolling calls in whole runs)."""
    gc.collect()
    w, c = time.perf_counter(), time.process_time()
    out = fn(*args)
    return time.perf_counter() - w, time.process_time() - c, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--days", type=int, default=20_000)
    ap.add_argument("--series", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-api", action="store_true", help="time only the columnar executor on Arrow input")
    ap.add_argument("--exact", action="store_true", help="also the API with the values as exact decimals")
    ap.add_argument("--skip-parquet", action="store_true", help="no Parquet sides (a tree that refuses float Parquet columns)")
    ap.add_argument("--kinds", nargs="+", default=["rolling", "monthly"], choices=["rolling", "monthly"])
    ap.add_argument("--pythonpath", help="import chronolog from this directory (another tree laid out as the installed package: before/after)")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    if args.pythonpath:
        sys.path.insert(0, str(Path(args.pythonpath).resolve()))
    import chronolog

    print(f"chronolog from {Path(chronolog.__file__).resolve().parent}", file=sys.stderr)  # (which tree ran)
    results, bad = {}, 0
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / "prices.csv"
        write_csv(csv, args.series, args.days)
        small = Path(tmp) / "small.csv"
        write_csv(small, 2, 100)
        for f in (csv, small):
            write_parquet(f)
        sides = [("pandas", run_pandas), ("columns", run_columns)]
        if not args.skip_api:
            sides += [("api", run_api)] + ([("api_exact", run_api_exact)] if args.exact else [])
            if not args.skip_parquet:
                sides += [("pandas_pq", run_pandas_pq), ("api_pq", run_api_pq)]
        peer = {name: ("pandas_pq" if name.endswith("_pq") else "pandas") for name, _ in sides}
        results["chronolog"] = str(Path(chronolog.__file__).resolve().parent)
        results["load_before"] = round(__import__("os").getloadavg()[0], 2)
        for kind in args.kinds:
            times = {name: [] for name, _ in sides}
            answers = {}
            for name, fn in sides:  # warm-up, not timed: imports, the grammar,
                fn(kind, small)  # then one call on the input itself: issue 37
                fn(kind, csv)  # compares the two sides "once both are warm"
            for _ in range(args.repeat):
                for name, fn in sides:  # interleaved: the same load for both
                    w, c, out = timed(fn, kind, csv)
                    times[name].append((w, c))
                    answers[name] = out
            for name, _ in sides:
                if not name.startswith("pandas"):
                    n = compare(kind, answers[name], answers[peer[name]], args.series, args.days)
                    bad += n
                    results[f"{kind}/{name}/days_differing"] = n
            med = {n: (statistics.median(w for w, _ in t), statistics.median(c for _, c in t)) for n, t in times.items()}
            for name, (w, c) in med.items():
                results[f"{kind}/{name}/wall"] = round(w, 4)
                results[f"{kind}/{name}/cpu"] = round(c, 4)
            ph = PHASES.get(kind, [])[2:]  # without the two warm-up calls
            if ph:
                r, e, o = (statistics.median(x[i] for x in ph) for i in range(3))
                results[f"{kind}/columns/phases_cpu"] = {"read_plan": round(r, 4), "reason": round(e, 4), "output": round(o, 4)}
                print(f"{kind:8s} columns phases (cpu): read+plan {r:.3f} s, reason {e:.3f} s, output {o:.3f} s")
            for name, (w, c) in med.items():
                pw, pc = med[peer[name]]
                ratio = "" if name.startswith("pandas") else f"  {w / pw:5.1f}x wall, {c / pc:5.1f}x cpu (to {peer[name]})"
                if not name.startswith("pandas"):
                    results[f"{kind}/{name}/ratio_cpu"] = round(c / pc, 2)
                    results[f"{kind}/{name}/ratio_wall"] = round(w / pw, 2)
                print(f"{kind:8s} {name:9s} wall {w:7.3f} s  cpu {c:7.3f} s{ratio}")
    results["load_after"] = round(__import__("os").getloadavg()[0], 2)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
