"""Row executor against columnar executor on the same loaded facts.

    python bench/executors.py PROGRAM FACTS [--dialect meteor] [--repeat 1]

The facts are parsed once (not timed); then, for each executor in turn, in
this one process: ``reason`` (the fixpoint; for columns this includes coding
the facts into columns) and the Python rows of every derived fact (what the
Model reads; for columns this is the lazy conversion back).  Same answers
are checked.  Whole-command figures are in four_rules.py and
compare_meteor.py; this one isolates the executors.
"""

from __future__ import annotations

import argparse
import gc
import time
from pathlib import Path


def main(argv=None) -> int:
    import chronolog
    from chronolog.api import load_facts

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("program")
    ap.add_argument("facts")
    ap.add_argument("--dialect", default="vadalog")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    program = Path(args.program).read_text()
    rows = load_facts(Path(args.facts), args.dialect)
    n = sum(len(r) for r in rows.values())
    answers = {}
    print(f"{n} input facts")
    for engine in ("rows", "columns"):
        best = None
        for _ in range(args.repeat):
            gc.collect()
            t0 = time.perf_counter()
            model = chronolog.reason(program, rows, dialect=args.dialect, engine=engine)
            t1 = time.perf_counter()
            facts = {p: model.facts(p) for p in model.output_predicates}
            t2 = time.perf_counter()
            if best is None or t2 - t0 < best[0] + best[1]:
                best = (t1 - t0, t2 - t1)
        answers[engine] = facts
        derived = sum(len(v) for v in facts.values())
        print(f"{engine:8s} reason {best[0]:7.2f} s   rows of the answer {best[1]:6.2f} s   ({derived} derived facts)")
    same = answers["rows"] == answers["columns"]
    print("same answers:", same)
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
