"""What it costs to reach a model that repeats forever (issue 4).

Three series, each timing ``chronolog.reason`` with no horizon and checking
a far entailment:

* the period grows (1 … 1000) with the data fixed: the bound computed grows
  with the period, the number of facts derived per key does not;
* the data grows (keys × one periodic recursion): time should grow linearly;
* several periods interact (a key's alarm needs two cycles to meet): the
  joint period is their least common multiple;
* a recursion reading both ways in time (engine/two_way.py) against the
  same model written as a forward recursion, as the data grows.

    python bench/periodic_scaling.py              # every series
    python bench/periodic_scaling.py two-way      # one of: period size interacting two-way
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


def two_way() -> None:
    print("\nboth ways: a call 2 days before each visit, a visit 7 days after each call")
    print(f"{'keys':>7} {'two-way s':>10} {'forward s':>10} {'ratio':>6} {'µs/key':>8}  same model")
    both = "visit(P) :- <->[7,7] call(P).\ncall(P) :- <+>[2,2] visit(P).\nlate(P) :- visit(P), <->[0,1] missed(P)."
    forward = "visit(P) :- <->[5,5] visit(P).\ncall(P) :- <+>[2,2] visit(P).\nlate(P) :- visit(P), <->[0,1] missed(P)."
    for n in (1000, 4000, 16000):
        rng = random.Random(3)
        facts = [f"visit(k{i})@{rng.randrange(365)}" for i in range(n)]
        facts += [f"missed(k{i})@{rng.randrange(365)}" for i in range(0, n, 4)]
        t0 = time.perf_counter()
        m2 = chronolog.reason(both, facts)
        t2 = time.perf_counter() - t0
        t0 = time.perf_counter()
        m1 = chronolog.reason(forward, facts)
        t1 = time.perf_counter() - t0
        window = (-10, 800)
        same = all(sorted(m1.facts_within(p, window)) == sorted(m2.facts_within(p, window)) for p in ("visit", "call", "late"))
        print(f"{n:7} {t2:10.2f} {t1:10.2f} {t2 / t1:6.1f} {t2 / n * 1e6:8.1f}  {same}")


if __name__ == "__main__":
    import sys

    series = {"period": by_period, "size": by_size, "interacting": interacting, "two-way": two_way}
    for name in sys.argv[1:] or list(series):
        series[name]()
