"""One long series per atom: many intervals of the same ground atom, as a
sensor or a price series gives (``p(a)@0``, ``p(a)@1``, ... 20,000 points).

Each operator that probes another atom's intervals per row (a join under a
diamond, Since, Until, negation) must find the few intervals that meet the
row without scanning all of them; before session 3 they scanned, and these
programs took 20-100 s.  Prints the time of each and the facts derived.

    python bench/long_series.py [--points 20000]
"""

from __future__ import annotations

import argparse
import time

import chronolog

PROGRAMS = {
    "join under a diamond": "s(X) :- p(X), <->[0,2] q(X).",
    "Since": "s(X) :- r(X) <S>[0,3] q(X).",
    "Until": "s(X) :- r(X) <U>[1,3] q(X).",
    "negation": "s(X) :- p(X), not q(X).",
    "box": "s(X) :- [-][0,1] p(X).",
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=20_000)
    n = ap.parse_args().points
    facts = [f"p(a)@{i}" for i in range(n)] + [f"q(a)@{i}" for i in range(0, n, 2)] + [f"r(a)@[{i},{i}]" for i in range(n)]
    print(f"{n:,} points of p(a) and r(a), {n // 2:,} of q(a)")
    print(f"{'program':<22} {'seconds':>8} {'facts':>7}")
    for name, program in PROGRAMS.items():
        t0 = time.perf_counter()
        m = chronolog.reason(program, facts)
        print(f"{name:<22} {time.perf_counter() - t0:8.2f} {len(m.facts('s')):7}")


if __name__ == "__main__":
    main()
