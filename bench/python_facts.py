"""Facts given from Python as lists of tuples, against the same facts as an
Arrow table and as fact text, through ``chronolog.reason`` (issue 37: no
input form a user is likely to write should be slow).

    python bench/python_facts.py [--facts 20000 200000] [--repeat 5] [--json FILE]

``p(name, value)@[start, end]`` facts (names ``k0 .. k4999``) and
``q(X) :- <->[0,1] p(X, V).`` within a horizon, three draws: whole ends,
ends between whole numbers (Fractions), and datetimes on a timeline of
minutes (``@timeGranularity("minutes")``, the window ``PT1M``).  Each call is timed whole
(reading the input, reasoning, the answer's size), CPU seconds
(``time.process_time``), the forms alternating in one warm process, the
median of ``--repeat``:

* tuples: ``{"p": [(("k1", 7), (3, 5)), ...]}``, as a user writes them;
* tuples row by row: the same list through the checks every row of any
  form takes (``api._plain_rows`` off: how such lists were read before);
* Arrow: a ``pyarrow.Table`` of the same rows (columns ``c0, c1, start,
  end``), which goes straight into columns from 2,000 rows;
* text: the facts as fact lines (``p(k1,7)@[3,5]``), one string.

The models of all forms are compared.
"""

from __future__ import annotations

import argparse
import gc
import datetime
import json
import os
import random
import time
from fractions import Fraction
from statistics import median

import pyarrow as pa

import chronolog
from chronolog import api

PROGRAM = "q(X) :- <->[0,1] p(X, V)."
DATED = '@timeGranularity("minutes").\nq(X) :- <->[0,PT1M] p(X, V).'
KINDS = ("whole", "between", "dated")
_DAY = datetime.datetime(2024, 1, 1)


def draw(n: int, kind: str) -> list:
    rng = random.Random(5)
    out = []
    for i in range(n):
        s, e = rng.randrange(100_000), rng.randrange(1, 20)
        iv = ((s + Fraction(1, 2), s + e + Fraction(1, 2)) if kind == "between" else
              (_DAY + datetime.timedelta(minutes=s), _DAY + datetime.timedelta(minutes=s + e)) if kind == "dated" else (s, s + e))
        out.append(((f"k{i % 5000}", rng.randrange(1000)), iv))
    return out


def text_end(x) -> str:
    return x.isoformat() if isinstance(x, datetime.datetime) else str(x)


def forms(rows: list) -> dict:
    table = pa.table({"c0": [t[0] for t, _ in rows], "c1": [t[1] for t, _ in rows],
                      "start": [float(iv[0]) if type(iv[0]) is Fraction else iv[0] for _, iv in rows],
                      "end": [float(iv[1]) if type(iv[1]) is Fraction else iv[1] for _, iv in rows]})
    text = "\n".join(f"p({t[0]},{t[1]})@[{text_end(iv[0])},{text_end(iv[1])}]" for t, iv in rows)
    return {"tuples": {"p": rows}, "row by row": {"p": rows}, "arrow": {"p": table}, "text": text}


def call(form: str, given, kind: str) -> tuple:
    saved = api._plain_rows
    if form == "row by row":
        api._plain_rows = lambda *args, **kwargs: None
    try:
        c = time.process_time()
        if kind == "dated":
            m = chronolog.reason(DATED, given, horizon=(_DAY, _DAY + datetime.timedelta(days=100)))
        else:
            m = chronolog.reason(PROGRAM, given, horizon=(-10, 200_000))
        n = len(m.facts("q"))
        return time.process_time() - c, m, n
    finally:
        api._plain_rows = saved


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--facts", type=int, nargs="*", default=[20_000, 200_000])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    print(f"load {os.getloadavg()[0]:.1f}")
    call("tuples", {"p": draw(50, "between")}, "between")  # (imports)
    call("arrow", {"p": forms(draw(50, "dated"))["arrow"]["p"]}, "dated")
    for n in a.facts:
        for kind in KINDS:
            given = forms(draw(n, kind))
            cpu = {f: [] for f in given}
            models = {}
            for k in range(a.repeat):
                for f in (list(given) if k % 2 == 0 else list(given)[::-1]):
                    c, m, _ = call(f, given[f], kind)
                    cpu[f].append(c)
                    models[f] = hash(tuple(m.facts("q")))  # (not the facts: a heap of earlier models slows the collector in later calls)
                    del m
                    gc.collect()
            same = all(models[f] == models["tuples"] for f in models)
            med = {f: median(v) for f, v in cpu.items()}
            print(f"{n:>8,} facts, {kind:7} ends: " + ", ".join(f"{f} {s:.3f} s" for f, s in med.items())
                  + f"; tuples / arrow {med['tuples'] / med['arrow']:.2f}x, row by row / tuples "
                  f"{med['row by row'] / med['tuples']:.1f}x; same models {same}", flush=True)
            if a.json:
                with open(a.json, "a") as fh:
                    fh.write(json.dumps({"facts": n, "ends": kind, "cpu": cpu, "same": same,
                                         "load": os.getloadavg()[0]}) + "\n")
    print(f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
