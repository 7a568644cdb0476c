"""What it costs to reach a model that repeats forever (issue 4).

Three series, each timing ``chronolog.reason`` with no horizon and checking
a far entailment:

* the period grows (1 … 1000) with the data fixed: the bound computed grows
  with the period, the number of facts derived per key does not;
* the data grows (keys × one periodic recursion): time should grow linearly;
* several periods interact (a key's alarm needs two cycles to meet): the
  joint period is their least common multiple.

    python bench/periodic_scaling.py
"""

from __future__ import annotations

import random
import time

import chronolog


def run(program: str, facts: list, query: str):
    t0 = time.perf_counter()
    m = chronolog.reason(program, facts)
    dt = time.perf_counter() - t0
    ok = m.holds(query)
    comps = m.stats.get("components", [])
    bound = max((c["bound"] for c in comps), default=None)
    return dt, len(m), bound, ok


def by_period() -> None:
    print("period grows; 1,000 keys starting in [0,100)")
    print(f"{'period':>7} {'seconds':>8} {'facts':>7} {'bound':>8}  far query")
    rng = random.Random(1)
    starts = [rng.randrange(100) for _ in range(1000)]
    for period in (1, 10, 100, 1000):
        prog = f"report(S) :- <->[{period},{period}] report(S)."
        facts = [f"report(s{i})@{t}" for i, t in enumerate(starts)]
        q = f"report(s0)@{starts[0] + period * 10**9}"
        dt, n, bound, ok = run(prog, facts, q)
        print(f"{period:7} {dt:8.2f} {n:7} {bound!s:>8}  {ok}")


def by_size() -> None:
    print("\ndata grows; weekly report per key, an alarm when an incident falls within 3 days of a report")
    print(f"{'keys':>7} {'seconds':>8} {'facts':>7} {'µs/key':>8}")
    for n in (1000, 4000, 16000):
        rng = random.Random(2)
        facts = [f"report(s{i})@{rng.randrange(365)}" for i in range(n)]
        facts += [f"incident(s{i})@{rng.randrange(365)}" for i in range(0, n, 3)]
        prog = "report(S) :- <->[7,7] report(S).\nalert(S) :- report(S), <->[0,3] incident(S)."
        dt, m, bound, ok = run(prog, facts, "report(s1)@[0,0]")
        print(f"{n:7} {dt:8.2f} {m:7} {dt / n * 1e6:8.1f}")


def interacting() -> None:
    print("\nperiods interact: a every A, b every B, both(X) when they meet")
    print(f"{'A':>4} {'B':>4} {'seconds':>8} {'joint':>6}  meets far away")
    for a, b in ((2, 3), (6, 10), (7, 11), (12, 35)):
        prog = (f"a(X) :- <->[{a},{a}] a(X).\nb(X) :- <->[{b},{b}] b(X).\nboth(X) :- a(X), b(X).")
        facts = [f"a(k{i})@{i}" for i in range(50)] + [f"b(k{i})@0" for i in range(50)]
        dt, n, bound, _ = run(prog, facts, "both(k0)@0")
        m = chronolog.reason(prog, facts)
        rep = m.repeating("both")
        joint = rep[0][2] if rep else None
        far = m.holds(f"both(k0)@{joint * 10**6}") if joint else None
        print(f"{a:4} {b:4} {dt:8.2f} {joint!s:>6}  {far}")


if __name__ == "__main__":
    by_period()
    by_size()
    interacting()
