"""Merge strategies and placements side by side (issue 4, the Temporal Vadalog paper, section 3.3).

Data with many adjacent and overlapping pieces: ``N`` ownership edges, each
given as daily pieces ``[d, d+1)`` over a year with gaps, plus overlapping
weekly restatements, as a feed of daily snapshots looks.  Three programs:
a diamond (pieces can flow uncoalesced), a box (coalescing is required) and
a join.  Each configuration runs in its own process so that its peak memory
(max RSS) is its own; the answers are checked to be identical.

    python bench/merge_strategies.py [--edges 3000] [--days 120]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path

PROGRAMS = {
    "diamond": "recent(X,Y) :- <->[0,30] own(X,Y).\n@output(\"recent\").",
    "box": "stable(X,Y) :- [-][0,20] own(X,Y).\n@output(\"stable\").",
    "join": "chain(X,Z) :- own(X,Y), own(Y,Z), <->[0,7] own(X,Y).\n@output(\"chain\").",
}
CONFIGS = [(p, s) for p in ("always", "earliest", "minimal") for s in ("blocking", "streaming")]


def make_data(path: Path, edges: int, days: int, seed: int = 7) -> int:
    rng = random.Random(seed)
    n_comp = max(10, edges // 3)
    lines = []
    for _ in range(edges):
        x, y = rng.randrange(n_comp), rng.randrange(n_comp)
        d = 0
        while d < days:
            run = rng.randint(5, 40)
            for k in range(d, min(days, d + run)):
                lines.append(f"own(c{x},c{y})@[{k},{k + 1})")
            if rng.random() < 0.5:  # an overlapping weekly restatement
                lines.append(f"own(c{x},c{y})@[{d},{min(days, d + 7)}]")
            d += run + rng.randint(1, 10)
    path.write_text("\n".join(lines) + "\n")
    return len(lines)


def child(program: str, facts: str, placement: str, strategy: str) -> None:
    import resource

    import chronolog

    t0 = time.perf_counter()
    m = chronolog.reason(PROGRAMS[program], Path(facts), placement=placement, strategy=strategy)
    text = m.to_text()
    dt = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": dt, "rss_mb": rss, "facts": len(text.splitlines()), "hash": hash(text)}))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--edges", type=int, default=3000)
    ap.add_argument("--days", type=int, default=120)
    ap.add_argument("--timeout", type=int, default=60, help="seconds per configuration")
    ap.add_argument("--child", nargs=4)
    a = ap.parse_args()
    if a.child:
        child(*a.child)
        return
    data = Path(__file__).parent / "data" / f"pieces_{a.edges}_{a.days}.txt"
    data.parent.mkdir(exist_ok=True)
    n = make_data(data, a.edges, a.days)
    print(f"{n} input pieces ({a.edges} edges over {a.days} days)\n")
    print(f"{'program':8} {'placement':9} {'merge':9} {'seconds':>8} {'peak MB':>8} {'facts':>7}")
    for prog in PROGRAMS:
        answers = set()
        for placement, strategy in CONFIGS:
            try:
                out = subprocess.run(
                    [sys.executable, __file__, "--child", prog, str(data), placement, strategy],
                    capture_output=True, text=True, check=True, timeout=a.timeout,
                    env={**__import__("os").environ, "PYTHONHASHSEED": "0"},
                )
            except subprocess.TimeoutExpired:
                print(f"{prog:8} {placement:9} {strategy:9} {'> ' + str(a.timeout):>8} {'':>8} {'':>7}")
                continue
            r = json.loads(out.stdout)
            answers.add(r["hash"])
            print(f"{prog:8} {placement:9} {strategy:9} {r['seconds']:8.2f} {r['rss_mb']:8.0f} {r['facts']:7}")
        print(f"{'':8} same answer under every configuration: {len(answers) == 1}\n")


if __name__ == "__main__":
    main()
