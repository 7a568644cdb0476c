"""Existential rules on data: the whole `chronolog run` command on the
default engine against the same command on rows, and against a program of
the same shape without existential variables, in the same run.

Every company has a controller: a known owner with a majority stake, else
an unknown one (a labelled null, made where no known controller holds),
and every controlled company an auditor nobody named:

    controller(P, C) :- owns(P, C, S), S > 0.5.
    controller(Y, C) :- company(C).
    audited(A, C) :- controller(P, C), company(C).

The plain program writes the constant ``x`` where the nulls go (its second
rule needs a negation to leave the known controllers' time alone).  Over
``--companies`` companies with intervals and half as many ownership facts,
in one fact file; each command runs ``--repeat`` times a side,
alternating; CPU of the child process, the median; the outputs of the
default engine and the rows compared byte for byte.

    python bench/chase.py [--companies 200000] [--repeat 3] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path
from statistics import median

HERE = Path(__file__).resolve().parent
CHASE = """controller(P, C) :- owns(P, C, S), S > 0.5.
controller(Y, C) :- company(C).
audited(A, C) :- controller(P, C), company(C).
"""
PLAIN = """controller(P, C) :- owns(P, C, S), S > 0.5.
controller(x, C) :- company(C), not owned(C).
owned(C) :- owns(P, C, S), S > 0.5.
audited(x, C) :- controller(P, C), company(C).
@output("controller"). @output("audited").
"""


def fact_file(companies: int) -> Path:
    """The facts, written once per size (bench/data, git-ignored)."""
    path = HERE / "data" / f"chase_{companies}.vada"
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(1)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w") as f:
        for i in range(companies):
            s = rnd.randint(0, 50)
            f.write(f"company(c{i})@[{s},{s + rnd.randint(1, 40)}].\n")
        for _ in range(companies // 2):
            s = rnd.randint(0, 60)
            f.write(f"owns(p{rnd.randrange(max(1, companies // 4))},c{rnd.randrange(companies)},"
                    f"{rnd.choice([0.3, 0.6, 0.9])})@[{s},{s + rnd.randint(1, 20)}].\n")
    tmp.replace(path)
    return path


def command(program: Path, facts: Path, engine: str, out: Path) -> tuple:
    """``(wall, cpu)`` of one whole command, its output written to ``out``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    with open(out, "wb") as f:
        subprocess.run([sys.executable, "-m", "chronolog", "run", str(program), "--facts", str(facts), "--engine", engine],
                       stdout=f, stderr=subprocess.DEVNULL, check=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--companies", type=int, default=200000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args(argv)
    facts = fact_file(args.companies)
    work = HERE / "data" / "report"
    work.mkdir(parents=True, exist_ok=True)
    programs = {}
    for name, text in (("chase", CHASE), ("plain", PLAIN)):
        programs[name] = work / f"chase_{name}.vada"
        programs[name].write_text(text)
    sides = {"auto": ("chase", "auto"), "rows": ("chase", "rows"), "plain": ("plain", "auto")}
    figures = {side: {"wall": [], "cpu": []} for side in sides}
    for _ in range(args.repeat):
        for side, (program, engine) in sides.items():
            wall, cpu = command(programs[program], facts, engine, work / f"chase_{side}.out")
            figures[side]["wall"].append(wall)
            figures[side]["cpu"].append(cpu)
    same = (work / "chase_auto.out").read_bytes() == (work / "chase_rows.out").read_bytes()
    lines = (work / "chase_auto.out").read_bytes().count(b"\n")
    out = {"companies": args.companies, "answers": lines, "same": same, "load": os.getloadavg()[0],
           **{side: {k: median(v) for k, v in f.items()} for side, f in figures.items()}}
    for side in sides:
        print(f"{side:5} {out[side]['wall']:.2f} s wall, {out[side]['cpu']:.2f} s CPU (median of {args.repeat})")
    print(f"{lines:,} answers; auto's output {'equals' if same else 'DIFFERS FROM'} the rows'; "
          f"auto / rows {out['auto']['cpu'] / out['rows']['cpu']:.2f}x CPU, auto / plain {out['auto']['cpu'] / out['plain']['cpu']:.2f}x CPU")
    if args.json:
        Path(args.json).write_text(json.dumps(out))
    if not same:
        sys.exit(1)
    return out


if __name__ == "__main__":
    main()
