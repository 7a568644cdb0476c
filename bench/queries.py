"""Queries naming a string or a number against a large model, side by side
with the same question asked of the model's pandas frame (issue 37: no form
a user is likely to write should be slow).

    python bench/queries.py [--facts 200000] [--queries 50] [--json FILE]

A model of ``--facts`` facts ``q(k, v)`` (5,000 names ``k0 ..``, ``v`` the
fact's number), on each executor (``engine="rows"`` and ``"columns"``);
then ``--queries`` queries ``model.query("q(kN, V)@[0,1000000]")`` for
random names and as many ``model.query("q(K, n)@[0,1000000]")`` for random
numbers, and the same answers by pandas on the frame a user would hold
(``model.to_pandas("q")`` made once, untimed; a boolean filter
``df[df.c0 == name]`` or ``df[df.c1 == n]`` per query).  Reported: the
first query of each kind (on rows it makes the index at the query's
places; on columns the relation's frame is filtered, until the filters
have cost what its rows would: chronolog/model_atoms.py), then the median
and the slowest of the others, CPU milliseconds (``time.process_time``);
the answers' intervals are compared with the frame's rows.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from statistics import median

import chronolog

PROGRAM = "q(X, V) :- <->[0,1] p(X, V)."


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--facts", type=int, default=200_000)
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    print(f"load {os.getloadavg()[0]:.1f}")
    rows = [((f"k{i % 5000}", i), (i, i + 2)) for i in range(a.facts)]
    names = [f"k{k}" for k in random.Random(3).sample(range(5000), a.queries)]
    numbers = random.Random(4).sample(range(a.facts), a.queries)
    for engine in ("rows", "columns"):
        model = chronolog.reason(PROGRAM, {"p": rows}, horizon=(0, 10**6), engine=engine)
        df = model.to_pandas("q")
        for by, asked in (("name", names), ("number", numbers)):
            ours, theirs, same = [], [], True
            for value in asked:
                c = time.process_time()
                got = model.query(f"q({value}, V)@[0,1000000]" if by == "name" else f"q(K, {value})@[0,1000000]")
                ours.append(time.process_time() - c)
                c = time.process_time()
                sel = df[df.c0 == value] if by == "name" else df[df.c1 == value]
                theirs.append(time.process_time() - c)
                same = same and len(sel) > 0 and sorted(iv for ans in got for iv in ans.intervals) == sorted(
                    zip(sel.start.tolist(), sel.end.tolist(), sel.start_closed.tolist(), sel.end_closed.tolist()))
            first, rest = ours[0] * 1000, [x * 1000 for x in ours[1:]]
            print(f"{engine:7} {a.facts:,} facts, by {by:6}: query first {first:.1f} ms, then median {median(rest):.2f} ms, "
                  f"slowest {max(rest):.2f} ms; pandas filter median {median(theirs) * 1000:.2f} ms; same answers {same}",
                  flush=True)
            if a.json:
                with open(a.json, "a") as fh:
                    fh.write(json.dumps({"engine": engine, "by": by, "facts": a.facts, "query_ms": [x * 1000 for x in ours],
                                         "pandas_ms": [x * 1000 for x in theirs], "same": same,
                                         "load": os.getloadavg()[0]}) + "\n")
    print(f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
