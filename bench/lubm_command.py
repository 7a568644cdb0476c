"""Temporal LUBM as a user runs it: the whole ``chronolog run`` command.

    python bench/lubm_command.py [--facts 1000000] [--program nonrec rec]
                                 [--pythonpath DIR]   # another chronolog tree (before/after)
                                 [--engine rows]      # chronolog run --engine (default: its own choice)

``chronolog run bench/programs/lubm_PROG.vada --facts DATA.vada`` in a
subprocess, standard output to a file: start-up, reading the facts,
reasoning, sorting and printing the model.  Reports wall and CPU seconds,
input facts per second (wall) and peak resident memory per input fact.
``--pythonpath`` runs another copy of the package (e.g. an export of an
earlier commit laid out as the installed package) with the same Python and
the same data, for a before/after figure in one run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from four_rules import _peak  # noqa: E402  (one way to measure a child process)
from lubm_gen import dataset  # noqa: E402


def run(n: int, program: str, pythonpath=None, engine=None) -> dict:
    vada, _ = dataset(n)
    prog = HERE / "programs" / f"lubm_{program}.vada"
    env_path = os.environ.get("PYTHONPATH")
    if pythonpath:
        os.environ["PYTHONPATH"] = pythonpath
    try:
        with tempfile.TemporaryDirectory(prefix="lubm_cmd_") as tmp:
            out = Path(tmp) / "out.txt"
            # cwd elsewhere: the checkout's own chronolog/ must not shadow --pythonpath
            cwd = os.getcwd()
            os.chdir(tmp)
            try:
                cmd = [sys.executable, "-m", "chronolog", "run", str(prog), "--facts", str(vada)]
                r = _peak(cmd + (["--engine", engine] if engine else []), out)
            finally:
                os.chdir(cwd)
            r["lines"] = sum(1 for _ in open(out))
    finally:
        if env_path is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = env_path
    if r["rc"] != 0:
        raise RuntimeError(r["stderr"])
    r.pop("stderr", None)
    r.update(facts=n, program=program, facts_per_s=n / r["wall"], bytes_per_fact=r["rss"] / n)
    return r


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--facts", type=int, nargs="+", default=[1_000_000])
    ap.add_argument("--program", nargs="+", choices=["nonrec", "rec"], default=["nonrec", "rec"])
    ap.add_argument("--pythonpath", action="append", default=[None], help="another package tree to run too (repeatable)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--engine", choices=["auto", "rows", "columns"], default=None, help="passed to chronolog run --engine")
    a = ap.parse_args(argv)
    print(f"{'tree':>12} {'program':>8} {'facts':>9} {'wall s':>7} {'cpu s':>7} {'facts/s':>9} {'MB':>6} {'B/fact':>7} {'lines':>9}")
    for n in a.facts:
        for prog in a.program:
            for pp in a.pythonpath:
                r = run(n, prog, pp, a.engine)
                name = "this" if pp is None else Path(pp).name[-12:]
                print(f"{name:>12} {prog:>8} {n:>9} {r['wall']:>7.1f} {r['cpu']:>7.1f} {r['facts_per_s']:>9.0f} "
                      f"{r['rss'] / 2**20:>6.0f} {r['bytes_per_fact']:>7.0f} {r['lines']:>9}", flush=True)
                if a.json:
                    with open(a.json, "a") as fh:
                        fh.write(json.dumps(dict(r, tree=name)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
