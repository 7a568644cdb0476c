"""Readers of a repeating fact over data far apart: the gaps cut out of
their timeline (engine/gap_cuts.py) against the same command uncut.

Three rules that stay in time read a ``clock`` repeating every 2 and facts
``p`` at 0 and at ``SPAN`` (for each of ``--keys`` keys): uncut, the clock's
instances are listed over the whole span.  Both sides run the whole command
(``chronolog run``, answers printed to a file) in a process of their own,
alternating; the uncut side is the same code with the cut's threshold
raised past any gap.  The answers are compared.

    python bench/gap_cuts.py [--spans 1000000 10000000] [--keys 2] [--repeat 3]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROGRAM = """clock@0.
clock :- <->[2,2] clock.
d(X) :- p(X), clock.
e(X) :- clock, <+>[0,5] p(X).
f(X) :- <->[0,3] p(X), clock.
"""

CHILD = """
import sys
from chronolog.engine import gap_cuts
if sys.argv[1] == "uncut":
    gap_cuts.MIN_CUT_PERIODS = 10**30
import resource
from chronolog.cli import main
try:
    main(["run", sys.argv[2]])
except SystemExit as e:
    if e.code:
        raise
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""


def side(which: str, prog: Path, out: Path) -> tuple:
    """(wall s, CPU s, peak MB) of one whole command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    with open(out, "w") as answers:
        done = subprocess.run([sys.executable, "-c", CHILD, which, str(prog)], check=True, stdout=answers,
                              stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, int(done.stderr.split()[-1]) / 1024  # (the child's own peak: RUSAGE_CHILDREN keeps the largest)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spans", type=int, nargs="+", default=[1_000_000, 10_000_000])
    ap.add_argument("--keys", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        print(f"{'span':>10} {'side':>6} {'wall s':>8} {'CPU s':>8} {'peak MB':>8}")
        for span in a.spans:
            prog = tmp / f"gaps_{span}.vada"
            facts = "".join(f"p(k{i})@{i}.\np(k{i})@{span + i}.\n" for i in range(a.keys))
            prog.write_text(PROGRAM + facts)
            best = {}
            for _ in range(a.repeat):
                for which in ("cut", "uncut"):
                    got = side(which, prog, tmp / f"{which}.txt")
                    best[which] = min(best.get(which, got), got)
            same = (tmp / "cut.txt").read_text() == (tmp / "uncut.txt").read_text()
            for which in ("cut", "uncut"):
                wall, cpu, mb = best[which]
                print(f"{span:>10} {which:>6} {wall:8.3f} {cpu:8.3f} {mb:8.0f}")
            print(f"{span:>10} same answers: {same}")


if __name__ == "__main__":
    main()
