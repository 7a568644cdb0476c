"""Retracting input facts from temporal LUBM against reasoning from scratch.

    python bench/retract_lubm.py [--facts 1000000] [--program nonrec rec]
                                 [--fractions 0.01 0.0001] [--repeat 3]
                                 [--engine auto|rows] [--point-atoms N]

A :class:`chronolog.Reasoner` on the default executor choice (the columnar
one at this size: engine/columns/maintenance.py keeps its model) or, with
``--engine rows``, on the rows (engine/rows/maintenance.py) takes back a
random ``fraction`` of its input fact lines (``Reasoner.retract(lines)``,
the text read and the model maintained), and puts them back (untimed)
before the next repeat.  The peer, in the same process and run:
``reason()`` from scratch on the same facts, on the session's executor and
on the default choice.  Each retraction's model is
checked, once per fraction, against reasoning from scratch on the facts
that are left.  Figures: CPU seconds, median of the repeats (scratch: the
best); the first update of a session (a one-line retraction) is reported
apart, and every repeat's time in order ("repeats": the first of a
fraction makes the column relations and sorted indexes an update by atoms
probes, engine/columns/point_relation.py, for the predicates it is the
first to touch); "path": how the updates ran (stats["maintenance"]: atoms
or frames); "maintenance" is the part of a
retraction spent after its text is read and split by predicate (on columns:
the given pieces found and the model maintained, ``maintain_cpu``).  ``--json FILE`` writes one JSON
line per program and fraction.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from statistics import median

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import chronolog  # noqa: E402
from lubm_gen import dataset  # noqa: E402


def clock(fn):
    c, w = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - c, time.perf_counter() - w


def scratch(program: Path, facts, engine: str, repeat: int):
    """Best CPU seconds of ``reason()`` from scratch (after one warm-up call)."""
    chronolog.reason(program, facts, engine=engine)
    return min(clock(lambda: chronolog.reason(program, facts, engine=engine))[1] for _ in range(repeat))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--facts", type=int, default=1_000_000)
    ap.add_argument("--program", nargs="+", default=["nonrec", "rec"], choices=["nonrec", "rec"])
    ap.add_argument("--fractions", nargs="+", type=float, default=[0.01, 0.0001])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--engine", default="auto", choices=["auto", "rows"], help="the session's executor (default: auto)")
    ap.add_argument("--point-atoms", type=int, help="updates of at most this many facts go by atoms (default: the "
                    "engine's POINT_ATOMS; -1: every one on frames, a large number: every one by atoms)")
    ap.add_argument("--json", help="write JSON lines of the figures here")
    args = ap.parse_args(argv)
    vada, _ = dataset(args.facts)
    lines = [s for s in vada.read_text().splitlines() if s.strip()]
    print(f"temporal LUBM {args.facts:,} facts; load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"session on {args.engine}")
    print("| program | retracted | retract CPU s | scratch rows CPU s | scratch default CPU s | vs rows | vs default | first update CPU s | same model | maintenance CPU s | path | repeats CPU s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    out = []
    for name in args.program:
        program = HERE / "programs" / f"lubm_{name}.vada"
        default_s = scratch(program, vada, "auto", args.repeat)
        rows_s = scratch(program, vada, "rows", args.repeat) if args.engine == "rows" else None
        r = chronolog.Reasoner(program, vada, engine=args.engine)
        if args.engine == "auto":  # the columns' figures throughout (a long session hands over to rows: ROWS_AFTER)
            from chronolog.engine.columns import evaluator, maintenance

            maintenance.ROWS_AFTER = float("inf")
            if args.point_atoms is not None:
                evaluator.POINT_ATOMS = args.point_atoms
        rng = random.Random(7)
        one = rng.sample(lines, 1)
        first = clock(lambda: r.retract(one))[1]
        r.add(one)
        for frac in args.fractions:
            k = max(1, round(len(lines) * frac))
            times, same, kept, paths = [], None, [], set()
            for i in range(args.repeat):
                gone = rng.sample(lines, k)
                before = getattr(r.evaluator, "maintain_cpu", None)
                _, cpu, _ = clock(lambda: r.retract(gone))
                times.append(cpu)
                paths |= {s.get("path", "rows") for s in r.model.stats["maintenance"]}
                if before is not None and r.model.stats.get("maintained_on") == "columns":
                    kept.append(r.evaluator.maintain_cpu - before)
                if i == 0:
                    left = set(lines) - set(gone)
                    expected = chronolog.reason(program, "\n".join(x for x in lines if x in left), engine="rows")
                    same = r.model.to_text() == expected.to_text()
                    # (dropped now: kept, its millions of row objects made each full collection in a
                    # later timed update cost 0.6-0.9 s, as in the next program's first 0.01% update)
                    expected = None
                r.add(gone)
            t = median(times)
            upkeep = median(kept) if kept else None
            fig = dict(program=name, fraction=frac, retracted=k, engine=args.engine, retract_cpu=t, maintenance_cpu=upkeep,
                       scratch_rows_cpu=rows_s,
                       scratch_default_cpu=default_s, first_update_cpu=first, same=same,
                       maintained_on=r.model.stats["maintained_on"], path="/".join(sorted(paths)), repeats=times)
            out.append(fig)
            rows_txt = f"{rows_s:.3f} | {t / rows_s:.2%}" if rows_s else "- | -"
            rows_a, rows_b = rows_txt.split(" | ")
            print(f"| {name} | {frac:.2%} ({k:,}) | {t:.4f} | {rows_a} | {default_s:.3f} | {rows_b} | "
                  f"{t / default_s:.2%} | {first:.3f} | {'yes' if same else 'NO'} | {'-' if upkeep is None else f'{upkeep:.4f}'} | "
                  f"{'/'.join(sorted(paths))} | {' '.join(f'{x:.4f}' for x in times)} |")
    if args.json:
        with open(args.json, "a") as fh:
            for fig in out:
                fh.write(json.dumps(fig) + "\n")
    return 0 if all(f["same"] for f in out) else 1


if __name__ == "__main__":
    sys.exit(main())
