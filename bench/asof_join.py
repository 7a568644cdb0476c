"""The last quote before each trade (an as-of join): chronolog's whole command against pandas.

Quotes and trades of 500 symbols over a trading day, to the millisecond, as
two CSV files with ISO date-times (``2024-03-01T09:30:00.137``); each trade
takes its symbol's last quote at or before it, at most 10 minutes old: the
recipe of docs/recipes.md on a timeline of minutes, so every instant falls
between the timeline's units.  chronolog runs ``chronolog run PROGRAM
--overwrite`` (start-up, reading, reasoning, writing the fills to the
CSV file the program binds and printing them);
pandas runs a script (``read_csv``, ``to_datetime``, ``merge_asof(...,
by="s", tolerance=10min, direction="backward")``, ``to_csv``).  Both are
whole processes, timed alternately (wall and the children's CPU); the
fills are compared trade by trade.

    python bench/asof_join.py [--trades 1000000] [--quotes 200000] [--repeat 3] [--json FILE]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from readings_ms import CHRONOLOG_RUN, alternated  # noqa: E402 (the same timing of whole processes)

SYMBOLS = 500

RULES = """@timeGranularity("minutes").
@bind("quote", "csv useHeaders=true", "{folder}", "quotes.csv").
@timeMapping("quote", 2, 2).
@bind("trade", "csv useHeaders=true", "{folder}", "trades.csv").
@timeMapping("trade", 2, 2).
@output("fill").
@bind("fill", "csv", "{out}", "fill.csv").
quoted(S) :- quote(S, P).
quiet(S) :- sym(S), not quoted(S).
held(S, P) :- quiet(S) <S>(0,10] quote(S, P).
current(S, P) :- quote(S, P).
current(S, P) :- held(S, P), not quoted(S).
fill(S, I, P) :- trade(S, I), current(S, P).
"""

PANDAS = """
import sys
import pandas as pd
q = pd.read_csv(sys.argv[1])
t = pd.read_csv(sys.argv[2])
q["t"] = pd.to_datetime(q["t"], format="ISO8601")
t["t"] = pd.to_datetime(t["t"], format="ISO8601")
m = pd.merge_asof(t.sort_values("t"), q.sort_values("t"), on="t", by="s", tolerance=pd.Timedelta("10min"), direction="backward")
m.dropna(subset=["p"]).to_csv(sys.argv[3], index=False)
"""


def write_inputs(folder: Path, trades: int, quotes: int, seed: int = 7) -> Path:
    """The two CSV files (one tick per symbol and millisecond), the program
    and the pandas script; the program's path."""
    rng = random.Random(seed)
    t0 = dt.datetime(2024, 3, 1, 9, 30)
    day = 6 * 3600 * 1000
    for name, n, value in (("quotes", quotes, lambda i: f"{rng.randint(9000, 11000) / 100}"), ("trades", trades, str)):
        ticks = sorted({(rng.randrange(SYMBOLS), rng.randrange(day)) for _ in range(n)}, key=lambda st: st[1])
        with (folder / f"{name}.csv").open("w") as fh:
            fh.write(f"s,{'p' if name == 'quotes' else 'i'},t\n")
            fh.writelines(f"s{s},{value(i)},{(t0 + dt.timedelta(milliseconds=t)).isoformat(timespec='milliseconds')}\n"
                          for i, (s, t) in enumerate(ticks))
    prog = folder / "asof.vada"
    prog.write_text(RULES.format(folder=folder, out=folder / "out")
                    + "".join(f"sym(s{s})@[2024-03-01,2024-03-02].\n" for s in range(SYMBOLS)))
    (folder / "peer.py").write_text(PANDAS)
    return prog


def fills(path: Path, columns) -> set:
    """``(symbol, trade, price in cents)`` of a CSV of fills."""
    import pandas as pd

    df = pd.read_csv(path)
    s, i, p = (df[c] for c in columns)
    return set(zip(s, i.astype(int), (p * 100).round().astype(int)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trades", type=int, default=1_000_000)
    ap.add_argument("--quotes", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    result = {"trades": args.trades, "quotes": args.quotes, "load": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        prog = write_inputs(folder, args.trades, args.quotes)
        sides = {"chronolog": (CHRONOLOG_RUN + [str(prog), "--overwrite"], None),
                 "pandas": ([sys.executable, str(folder / "peer.py"), str(folder / "quotes.csv"), str(folder / "trades.csv"),
                             str(folder / "pandas.csv")], None)}
        row = alternated(sides, args.repeat)
        got, want = fills(folder / "out" / "fill.csv", ("c0", "c1", "c2")), fills(folder / "pandas.csv", ("s", "i", "p"))
        row.update(same=got == want, fills=len(got))
        result["asof"] = row
    c, p = row["chronolog"], row["pandas"]
    print(f"{args.trades:,} trades, {args.quotes:,} quotes: chronolog {c['wall']:.3f} s wall / {c['cpu']:.3f} s CPU, "
          f"pandas {p['wall']:.3f} s / {p['cpu']:.3f} s, {c['wall'] / p['wall']:.2f}x wall, {c['cpu'] / p['cpu']:.2f}x CPU, "
          f"{row['fills']:,} fills, same: {row['same']}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(result) + "\n")
    return 0 if row["same"] else 1


if __name__ == "__main__":
    sys.exit(main())
