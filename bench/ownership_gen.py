"""Temporal company-ownership graphs (the Temporal Vadalog paper, section 5.1), deterministic by seed.

Companies come in groups (holding structures) of ``--group`` companies: each
company but the first has a parent among the earlier companies of its group
and up to two further shareholders (earlier companies of the group or
persons); the group's first company is held by one to three persons.  Every
company has its own five ownership periods on ``[0, tmax)`` and, in each,
its shareholders' percentages are redrawn (integers, summing to at most 100;
the parent holds 30–90%, so control changes hands over time); a holder
other than the parent sells out for a period with probability 0.35 (no fact).  Consecutive periods with
the same share give touching intervals, as in real registers.

Shares are integer percentages so that both chronolog and MeTeoR read the
same constant (``own(c12,c40,35)``).  Recursion through ownership chains stays
inside a group, so every scenario's model grows linearly with the data.

Output, one fact per line, the same text for both systems (the ``.vada`` file
ends each line with a dot)::

    own(p3,c0,60)@[0,17)

Usage::

    python bench/ownership_gen.py --facts 100000 [--seed 1] [--group 8] [--tmax 100]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA_DIR = HERE / "data"
PERIODS = 5


def facts(n: int, seed: int = 1, group: int = 8, tmax: int = 100):
    """Yield exactly ``n`` fact lines (without the final dot)."""
    rng = random.Random(seed)
    count = 0
    g = 0
    persons = 0
    while True:
        base = g * group
        for i in range(group):
            company = f"c{base + i}"
            if i == 0:
                k = rng.randint(1, 3)
                holders = [f"p{persons + j}" for j in range(k)]
                persons += k
            else:
                parent = f"c{base + rng.randrange(i)}"
                holders = [parent]
                for _ in range(rng.randint(0, 2)):
                    if rng.random() < 0.5 and i > 1:
                        h = f"c{base + rng.randrange(i)}"
                    else:
                        h = f"p{persons}"
                        persons += 1
                    if h not in holders:
                        holders.append(h)
            cuts = sorted(rng.sample(range(1, tmax), PERIODS - 1))
            bounds = [0, *cuts, tmax]
            for p in range(PERIODS):
                lo, hi = bounds[p], bounds[p + 1]
                left = 100
                for j, h in enumerate(holders):
                    if j == 0:
                        s = rng.randint(30, 90) if i > 0 else rng.randint(1, 100)
                    elif rng.random() < 0.35:
                        s = 0  # sold out for this period
                    else:
                        s = rng.randint(1, max(left, 1))
                    s = min(s, left)
                    left -= s
                    if s == 0:
                        continue
                    yield f"own({h},{company},{s})@[{lo},{hi})"
                    count += 1
                    if count >= n:
                        return
        g += 1


def generate(n: int, prefix, seed: int = 1, group: int = 8, tmax: int = 100) -> tuple:
    """Write ``PREFIX.vada`` (lines end with '.') and ``PREFIX.meteor``."""
    prefix = Path(prefix)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    vada_p = prefix.with_name(prefix.name + ".vada")
    met_p = prefix.with_name(prefix.name + ".meteor")
    with vada_p.open("w") as fv, met_p.open("w") as fm:
        for line in facts(n, seed, group, tmax):
            fv.write(line + ".\n")
            fm.write(line + "\n")
    return vada_p, met_p


def dataset(n: int, seed: int = 1, group: int = 8, tmax: int = 100, data_dir=DATA_DIR) -> tuple:
    """Paths ``(vada, meteor)`` of the cached dataset, generating it if needed."""
    prefix = Path(data_dir) / f"own_{n}_s{seed}_g{group}_t{tmax}"
    vada_p = prefix.with_name(prefix.name + ".vada")
    met_p = prefix.with_name(prefix.name + ".meteor")
    if not (vada_p.exists() and met_p.exists()):
        generate(n, prefix, seed, group, tmax)
    return vada_p, met_p


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--facts", type=int, default=100_000, help="number of own facts (default 100000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--group", type=int, default=8, help="companies per holding group (default 8)")
    ap.add_argument("--tmax", type=int, default=100, help="ownership periods cover [0, TMAX) (default 100)")
    ap.add_argument("--out", help="output prefix (default bench/data/own_N_sSEED_gGROUP_tTMAX)")
    a = ap.parse_args(argv)
    prefix = a.out or DATA_DIR / f"own_{a.facts}_s{a.seed}_g{a.group}_t{a.tmax}"
    for p in generate(a.facts, prefix, a.seed, a.group, a.tmax):
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
