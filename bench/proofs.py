"""Proofs of facts of a large model, side by side with the same proofs of a
model that recorded every derivation as it ran (``explain=True``, what a
user would reason with to explain facts).

    python bench/proofs.py [--facts 1000000] [--proofs 20] [--json FILE]

``--facts`` ownership facts ``own(cA, cB, share)`` over 200,000 companies
(random, seeded), a file read by the kernels; the program keeps the
majority shares, those held three time units, and their transitive
closure (``ctrl``, a recursion keyed by its first argument).  Each side in
one process, the same facts: ``reason`` and the first proof of a ``ctrl``
fact, then ``--proofs`` more of ``ctrl`` facts spread over the relation
(wall seconds, ``time.perf_counter``).  Without ``explain=True`` a proof
records the strata it reaches for the keys it reaches
(chronolog/explain_demand.py); the proofs' text is compared with the
recording run's.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path
from statistics import median

import chronolog

PROGRAM = """
major(X, Y) :- own(X, Y, S), S > 0.5.
longmajor(X, Y) :- [-][0,3] major(X, Y).
ctrl(X, Y) :- longmajor(X, Y).
ctrl(X, Z) :- ctrl(X, Y), longmajor(Y, Z).
"""


def write_facts(path: Path, n: int) -> None:
    rnd = random.Random(1)
    with open(path, "w") as fh:
        for _ in range(n):
            s = rnd.randrange(0, 50)
            fh.write(f"own(c{rnd.randrange(200000)},c{rnd.randrange(200000)},0.{rnd.randrange(1, 9)})"
                     f"@[{s},{s + rnd.randrange(1, 20)}]\n")


def side(path: Path, explain: bool, n_proofs: int) -> dict:
    t = time.perf_counter()
    m = chronolog.reason(PROGRAM, path, explain=explain)
    run = time.perf_counter() - t
    facts = sorted(m.facts("ctrl"))
    closed = [f for f in facts[:: max(1, len(facts) // (4 * n_proofs))] if f[1][2] and f[1][3]]
    asked = [f"ctrl({t[0]},{t[1]})@[{iv[0]},{iv[1]}]" for t, iv in closed[: n_proofs + 1]]
    times, texts = [], []
    for q in asked:
        t = time.perf_counter()
        texts.append(str(m.proof(q)))
        times.append(time.perf_counter() - t)
    return {"run": run, "first": times[0], "rest": times[1:], "texts": texts, "ctrl": len(facts)}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--facts", type=int, default=1_000_000)
    ap.add_argument("--proofs", type=int, default=20)
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    print(f"load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "own.facts"
        write_facts(path, a.facts)
        ours = side(path, False, a.proofs)
        theirs = side(path, True, a.proofs)
    same = ours["texts"] == theirs["texts"]
    for name, r in (("on demand", ours), ("explain=True", theirs)):
        print(f"{name:12} {a.facts:,} facts ({r['ctrl']:,} ctrl): reason {r['run']:.2f} s, first proof {r['first']:.2f} s, "
              f"then median {median(r['rest']):.3f} s, slowest {max(r['rest']):.3f} s ({len(r['rest'])} proofs)", flush=True)
    print(f"the same proofs: {same}")
    if a.json:
        with open(a.json, "a") as fh:
            fh.write(json.dumps({"facts": a.facts, "same": same, "load": os.getloadavg()[0],
                                 **{f"{k}_{s}": r[k] for s, r in (("ours", ours), ("theirs", theirs)) for k in ("run", "first", "rest")}})
                     + "\n")
    print(f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
