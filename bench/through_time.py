"""Recursions through time that are not recurrences, and time capture, on
data-sized input within a horizon: auto against the rows, in the same run.

A recursion that moves time runs one seminaive round per delay.  The
columns sweep a recurrence in one pass (bench/repeating_columns.py); the
other shapes run their rounds on columns too, from the recurrences'
threshold of 10,000 given facts under auto (planner/backend_choice.py),
and a time capture (``lit@T``) runs on columns from the general one.
Over ``--keys`` keys and a horizon of ``--horizon`` time units:

* box: ``p(X) :- q(X). p(X) :- [-][1,2] p(X), r(X).`` (an alarm that
  holds on while it held for the last two units and the sensor is warm);
* cycle: ``a(X) :- q(X). a(X) :- <->[1,1] b(X). b(X) :- a(X), r(X).``
  (two predicates in one cycle, a point a round for each key: the most
  rounds with the fewest rows each, the columns' least favourable shape);
* since: ``p(X) :- q(X). p(X) :- r(X) <S>[1,2] p(X).`` (Since over the
  recursion);
* capture: ``hot(K, T) :- temp(K, V)@T, V >= 150.`` over 30 readings a
  key, each held 3 units (no recursion; the LARS dialect's ``@T``).

Each program runs ``--repeat`` times on each executor, alternating, in one
warm process; CPU seconds (``time.process_time``), the median, where the
strata ran, and whether the models are equal.

    python bench/through_time.py [--keys 10000] [--horizon 300] [--repeat 3] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from statistics import median

import chronolog
from repeating_columns import alternating

PROGRAMS = {
    "box": "p(X) :- q(X).\np(X) :- [-][1,2] p(X), r(X).",
    "cycle": "a(X) :- q(X).\na(X) :- <->[1,1] b(X).\nb(X) :- a(X), r(X).",
    "since": "p(X) :- q(X).\np(X) :- r(X) <S>[1,2] p(X).",
    "capture": "hot(K, T) :- temp(K, V)@T, V >= 150.",
}


def facts(name: str, keys: int, horizon: int) -> dict:
    rng = random.Random(7)
    if name == "capture":  # (30 readings a key, each held 3 units: 300,000 facts at 10,000 keys, auto's threshold)
        step = max(3, horizon // 30)
        return {"temp": [((f"k{i}", rng.randrange(200)), (t, t + 3, True, False))
                         for i in range(keys) for t in range(0, 30 * step, step)]}
    out = {"q": [], "r": []}
    for i in range(keys):
        start = rng.randrange(horizon // 2)
        out["q"].append(((f"k{i}",), (start, start + rng.randrange(3))))
        warm = rng.randrange(horizon // 2)
        out["r"].append(((f"k{i}",), (warm, warm + rng.randrange(horizon // 10, horizon))))
    return out


def timed(program, given, engine, horizon):
    c = time.process_time()
    m = chronolog.reason(program, given, engine=engine, horizon=(0, horizon))
    c = time.process_time() - c
    return c, m, sorted(set(m.stats["executors"].values()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keys", type=int, default=10000)
    ap.add_argument("--horizon", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args()
    print(f"keys {args.keys:,}, horizon [0,{args.horizon}]; load {os.getloadavg()[0]:.1f}")
    print(f"{'program':8} {'facts':>7} {'answers':>9} {'rounds':>6} {'rows CPU':>9} {'auto CPU':>9} {'ratio':>6}  ran on          same model")
    for name, program in PROGRAMS.items():
        given = facts(name, args.keys, args.horizon)
        n = sum(len(v) for v in given.values())
        cpu, models, ran = alternating(args.repeat, lambda engine: timed(program, given, engine, args.horizon))
        rows, auto = models["rows"], models["auto"]
        same = all(rows.facts(p) == auto.facts(p) for p in set(rows.predicates()) | set(auto.predicates()))
        answers = sum(len(auto.facts(p)) for p in auto.predicates() if p not in given)
        r, c = median(cpu["rows"]), median(cpu["auto"])
        print(f"{name:8} {n:7} {answers:9} {auto.stats['rounds']:6} {r:8.2f}s {c:8.2f}s {r / c:5.1f}x  "
              f"{'/'.join(ran['rows'])} vs {'/'.join(ran['auto']):8} {same}", flush=True)
        if args.json:
            with open(args.json, "a") as f:
                f.write(json.dumps({"program": name, "facts": n, "answers": answers, "rows_cpu": cpu["rows"],
                                    "columns_cpu": cpu["auto"], "ran": ran["auto"], "same": same,
                                    "load": os.getloadavg()[0]}) + "\n")
    print(f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
