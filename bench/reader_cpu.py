"""CPU time and page faults of the fact reader alone (``read_fact_columns``).

    python bench/reader_cpu.py [--facts 1000000] [--dialect vadalog|meteor]
                               [--file PATH] [--repeat 3]

Reads a temporal LUBM file (or ``--file``) with the kernel reader, as
``chronolog run`` does (the command's allocator settings, a run's term
Dictionary), ``--repeat`` times in one process after the imports, and
prints each read's CPU seconds (all threads) and minor page faults.
Another package tree: ``PYTHONPATH=TREE`` (e.g. an earlier commit laid
out as the installed package, for a before/after figure).
"""

from __future__ import annotations

import argparse
import resource
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def _usage():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime, r.ru_minflt


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--facts", type=int, default=1_000_000)
    ap.add_argument("--dialect", choices=["vadalog", "meteor"], default="vadalog")
    ap.add_argument("--file", default=None, help="a fact file instead of the LUBM one")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    if a.file is None:
        from lubm_gen import dataset

        vada, met = dataset(a.facts)
        path = str(vada if a.dialect == "vadalog" else met)
    else:
        path = a.file
    from chronolog.language import allocators

    allocators.configure()
    from chronolog.engine.columns.encoding import Dictionary
    from chronolog.language.fact_columns import read_fact_columns

    for _ in range(a.repeat):
        cpu, faults = _usage()
        with open(path, "rb") as fh:
            fc = read_fact_columns(fh, path, a.dialect, None, share=False, terms=Dictionary())
        cpu2, faults2 = _usage()
        print(f"{Path(path).name} ({a.dialect}): cpu {cpu2 - cpu:.2f} s, minor faults {faults2 - faults}", flush=True)
        del fc
    return 0


if __name__ == "__main__":
    sys.exit(main())
