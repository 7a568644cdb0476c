"""Reading a retraction into column frames: the direct path against the general one.

    python bench/retract_read.py [--facts 1000000] [--program nonrec rec]
                                 [--fractions 0.01 0.0001] [--repeat 7]

A :class:`chronolog.Reasoner` on temporal LUBM holds its model on columns;
a random ``fraction`` of its input fact lines, as ``Reasoner.retract``
gets them, is read into one coalesced frame per predicate, coded by the
model's dictionaries, two ways in the same process, alternately:

* direct (``chronolog.corrections.retraction_frames``, what
  ``Reasoner.retract`` does): large texts through the kernel fact reader,
  values looked up in the model's dictionaries, times scaled, in numpy;
* general (what it did before, and still does where the direct path does
  not apply): the lines read as rows, gathered into ``{terms: maximal
  intervals}`` per predicate (``corrections.holes_of``), then encoded
  (``ColumnMaintenance.atoms_frame``).

Nothing is retracted: only the reading is timed (CPU, median of the
repeats), and the two paths' frames are checked equal, row for row.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path
from statistics import median

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import chronolog  # noqa: E402
from chronolog import corrections  # noqa: E402
from lubm_gen import dataset  # noqa: E402


def direct(r, lines):
    return corrections.retraction_frames(r, lines, "retract()")


def general(r, lines):
    from chronolog.engine.columns.maintenance import ColumnMaintenance

    holes = corrections.holes_of(r._read_new(lines, "retract()"), "retract()")
    m = ColumnMaintenance(r.evaluator)
    out = {}
    for pred, by in holes.items():
        m.arities[pred] = len(next(iter(by)))
        out[pred] = m.atoms_frame(pred, by)
    return out


def same(a: dict, b: dict) -> bool:
    """The same rows per predicate (every retracted line is an input line:
    no value the model never saw, which the direct path would leave out)."""
    return a.keys() == b.keys() and all(sorted(a[p].rows()) == sorted(b[p].rows()) for p in a)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--facts", type=int, default=1_000_000)
    ap.add_argument("--program", nargs="+", default=["nonrec", "rec"], choices=["nonrec", "rec"])
    ap.add_argument("--fractions", nargs="+", type=float, default=[0.01, 0.0001])
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)
    vada, _ = dataset(args.facts)
    lines = [s for s in vada.read_text().splitlines() if s.strip()]
    print(f"temporal LUBM {args.facts:,} facts; load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("| program | retracted | direct CPU ms | general CPU ms | direct/general | same frames |")
    print("|---|---|---|---|---|---|")
    ok = True
    for name in args.program:
        r = chronolog.Reasoner(HERE / "programs" / f"lubm_{name}.vada", vada)
        rng = random.Random(7)
        warm = rng.sample(lines, 2000)
        general(r, warm)  # (every relation encoded, the dictionaries' lookup built: as after a first update)
        assert direct(r, warm) is not None, "the direct path does not apply"
        for frac in args.fractions:
            k = max(1, round(len(lines) * frac))
            times = {"direct": [], "general": []}
            agree = True
            for _ in range(args.repeat):
                gone = rng.sample(lines, k)
                got = {}
                for way, fn in (("direct", direct), ("general", general)):
                    c = time.process_time()
                    got[way] = fn(r, gone)
                    times[way].append(time.process_time() - c)
                agree = agree and same(got["direct"], got["general"])
            d, g = median(times["direct"]) * 1000, median(times["general"]) * 1000
            ok = ok and agree
            print(f"| {name} | {frac:.2%} ({k:,}) | {d:.2f} | {g:.2f} | {d / g:.2f}x | {'yes' if agree else 'NO'} |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
