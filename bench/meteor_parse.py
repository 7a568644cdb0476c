"""Reading a long MeTeoR program: chronolog's reader against lark alone and
meteor-reasoner's own parser, on the same lines in one process (issue 37).

    python bench/meteor_parse.py [--rules 20000] [--repeat 3] [--json FILE]

The program has the shape of JWS's ``simple_shortbreak_1.txt`` (meteor-
reasoner's sdist: 69,488 rules ``ShortStop(V):-OnLane(V,a,b),Boxminus[1,1]
OnLane(V,c,d),...`` over a road network's lanes), generated here with a
seed: a head, two to six body atoms under ``Boxminus[k,k]``, one in ten
rules ``NotPos(V,a,b):-Pos(V,c,d)``.  Three sides read it, in turns:

* ``chronolog``: ``chronolog.language.meteor.parse`` (rule lines of the
  common shape without lark, language/meteor_rules.py);
* ``lark``: the same lines through the grammar alone, one LALR parse and
  transform per line (how every rule line was read before);
* ``meteor-reasoner``: ``meteor_reasoner.utils.loader.load_program`` on the
  list of lines (blanks already removed, as its file loader does).

The two chronolog sides must give the same rules, positions included; the
median CPU seconds of each side over ``--repeat`` runs, microseconds per
rule and the ratios are printed, with the load average.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import sys
import time
from pathlib import Path
from statistics import median

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

LANES = ["i1", "i1b", "i2", "i2b", "i3", "i3b", "i4", "i4b", "i5", "i5b", "o1", "o1b", "o5", "o5b",
         "gneJ1", "gneJ13", "lnk1a", "lnk1b", "lnk1c"]


def program(rules: int, seed: int = 1) -> list:
    """``rules`` lines of simple_shortbreak_1.txt's shape."""
    rng = random.Random(seed)
    lane = lambda: f"{rng.choice(LANES)},{rng.choice(LANES)}"  # noqa: E731
    out = []
    for _ in range(rules):
        if rng.random() < 0.1:
            out.append(f"NotPos(V,{lane()}):-Pos(V,{lane()})")
            continue
        body = [f"OnLane(V,{lane()})"] + [f"Boxminus[{k},{k}]OnLane(V,{lane()})" for k in range(1, rng.randint(2, 6))]
        out.append("ShortStop(V):-" + ",".join(body))
    return out


def read_chronolog(lines):
    from chronolog.language import meteor

    return meteor.parse("\n".join(lines)).rules


def read_lark(lines):
    from chronolog.language import meteor

    return [meteor._parse_line(line, n, "<program>") for n, line in enumerate(lines, 1)]


def read_meteor(lines):
    from meteor_reasoner.utils.loader import load_program

    return load_program(lines)


SIDES = {"chronolog": read_chronolog, "lark": read_lark, "meteor-reasoner": read_meteor}


def _same(a, b) -> bool:
    """Equal field by field, positions included."""
    if type(a) is not type(b):
        return False
    if dataclasses.is_dataclass(a):
        return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    lines = program(args.rules)
    for side in SIDES.values():  # imports and grammar tables off the clock
        side(lines[:10])
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    cpu: dict = {k: [] for k in SIDES}
    wall: dict = {k: [] for k in SIDES}
    results = {}
    for _ in range(args.repeat):
        for name, side in SIDES.items():  # in turns: the machine's load falls on every side alike
            t, c = time.perf_counter(), time.process_time()
            results[name] = side(lines)
            cpu[name].append(time.process_time() - c)
            wall[name].append(time.perf_counter() - t)
    same = _same(results["chronolog"], results["lark"]) and len(results["meteor-reasoner"]) == args.rules
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{args.rules:,} MeTeoR rule lines, median of {args.repeat} (CPU seconds)")
    row = {"rules": args.rules, "same": same, "load": os.getloadavg()[0]}
    for name in SIDES:
        c, w = median(cpu[name]), median(wall[name])
        row[name] = {"cpu": c, "wall": w, "us_per_rule": c / args.rules * 1e6}
        print(f"  {name:16} {c:7.3f} s CPU, {w:7.3f} s wall, {c / args.rules * 1e6:7.1f} us per rule")
    print(f"  lark / chronolog {row['lark']['cpu'] / row['chronolog']['cpu']:.1f}x; "
          f"meteor-reasoner / chronolog {row['meteor-reasoner']['cpu'] / row['chronolog']['cpu']:.1f}x")
    print(f"  the same rules as lark's (positions included): {same}")
    if args.json:
        with args.json.open("a") as fh:
            fh.write(json.dumps(row) + "\n")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
