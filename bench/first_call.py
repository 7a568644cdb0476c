"""Where a first ``reason()`` spends its CPU, against the calls after it.

Runs chronolog in fresh processes (one per repetition): ``import
chronolog``, optionally ``chronolog.preload()``, then N calls of
``reason(program, facts=Path(file))`` on temporal LUBM.  For each call it
prints wall time, CPU time of the process (all threads: the fact reader's
workers, polars' pool) and the CPU of its phases: reading the fact file
(the reader's worker threads apart), parsing the program, the columnar
executor.  The first call against the best of the later ones is what
``preload()`` should leave equal.

Usage::

    python bench/first_call.py --facts 100000 --program nonrec --preload --calls 6 --processes 3
    python bench/first_call.py ... --pythonpath OLD_TREE   # an earlier tree, as compare_meteor.py --pythonpath
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def worker(program: Path, data: Path, preload: bool, calls: int) -> list:
    import functools

    import chronolog

    if preload:
        chronolog.preload()
    import chronolog.api as api
    import chronolog.language.fact_columns as fc
    from chronolog.engine.columns.evaluator import HybridEvaluator

    phases: dict = {}

    def timed(owner, name, label, own_thread=False):
        f = getattr(owner, name)

        @functools.wraps(f)
        def g(*a, **k):
            clock = time.thread_time if own_thread else time.process_time
            c = clock()
            try:
                return f(*a, **k)
            finally:
                phases[label] = phases.get(label, 0.0) + clock() - c

        setattr(owner, name, g)

    timed(api, "load_program", "parse")
    timed(api, "_fact_columns", "read")
    timed(fc, "_kernels", "read: worker threads", own_thread=True)
    timed(HybridEvaluator, "run", "columnar executor")
    text = program.read_text()
    out = []
    for _ in range(calls):
        phases.clear()
        c, t, m = time.process_time(), time.perf_counter(), time.thread_time()
        model = chronolog.reason(text, facts=data)
        out.append(dict(wall=time.perf_counter() - t, cpu=time.process_time() - c, main=time.thread_time() - m, **phases))
        del model
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--facts", type=int, default=100_000)
    ap.add_argument("--program", choices=["nonrec", "rec"], default="nonrec")
    ap.add_argument("--preload", action="store_true")
    ap.add_argument("--calls", type=int, default=6)
    ap.add_argument("--processes", type=int, default=3)
    ap.add_argument("--pythonpath", default=None)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--data", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    program = HERE / "programs" / f"lubm_{a.program}.vada"
    if a.worker:
        print(json.dumps(worker(program, Path(a.data), a.preload, a.calls)))
        return 0
    import lubm_gen

    data, _ = lubm_gen.dataset(a.facts, seed=1, tmax=300)
    env = dict(os.environ, PYTHONPATH=a.pythonpath) if a.pythonpath else None
    firsts, laters = [], []
    for _ in range(a.processes):
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--data", str(data), "--program", a.program,
               "--calls", str(a.calls)] + (["--preload"] if a.preload else [])
        runs = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True, env=env, cwd=HERE.parent.parent).stdout)
        firsts.append(runs[0])
        laters.extend(runs[1:])
    keys = list(firsts[0])
    print(f"{a.program} {a.facts} {'preload' if a.preload else 'cold'} ({a.processes} processes x {a.calls} calls; ms)")
    print(f"{'':22}" + "".join(f"{k:>22}" for k in keys))
    for label, rows in (("first call, best", firsts), ("first call, median", firsts), ("later calls, best", laters)):
        pick = min if "best" in label else (lambda xs: sorted(xs)[len(xs) // 2])
        print(f"{label:22}" + "".join(f"{pick([r.get(k, 0.0) for r in rows]) * 1000:>22.1f}" for k in keys))
    return 0


if __name__ == "__main__":
    sys.exit(main())
