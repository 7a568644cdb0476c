"""Reading a Temporal Vadalog program's rules: chronolog's reader against
lark alone, on the same programs in one process (issue 37).

    python bench/vadalog_parse.py [--rules 200 5000] [--repeat 5] [--json FILE]

The programs: ``--rules`` rules of the forms users write, generated with a
seed (atoms over variables and constants, the four unary operators,
``<S>``/``<U>``, ``not``, comparisons, arithmetic assignments, aggregates,
head boxes), and bench/cliffs.py's program of 200 predicates with a rule
each.  The sides read each program in turns:

* ``chronolog``: ``chronolog.language.vadalog.parse`` (rule lines of the
  common shape without lark, language/vadalog_rules.py);
* ``lark``: the same text through the grammar alone (``DIALECT.read``: the
  LALR parser from its generated tables and the transformer, then the
  dates resolved as ``parse`` does), how every program was read before;
* ``lark lalr cache``: lark the library, ``Lark(grammar, parser="lalr",
  cache=True)`` with the grammar's options, its parse alone (no AST built):
  what lark's own fastest mode gives (a floor for any lark option).

The two chronolog sides must give the same rules, positions included; the
median CPU seconds of each side over ``--repeat`` runs, microseconds per
rule and the ratios are printed, with the load average.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import sys
import time
from pathlib import Path
from statistics import median

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from cliffs import many_rules  # noqa: E402
from meteor_parse import _same  # noqa: E402


CONSTANTS = ["a", "b7", "3", "-1", "0.5", '"n1"']


def program(rules: int, seed: int = 1) -> str:
    """``rules`` rule lines over 50 predicates, of the forms users write."""
    rng = random.Random(seed)
    pred = lambda: f"{rng.choice(['edge', 'reading', 'owns', 'alarm', 'shares', 'p'])}{rng.randrange(50)}"  # noqa: E731
    window = lambda: f"[{rng.randint(0, 2)},{rng.choice(['5', '10', '2.5', '+inf'])}]"  # noqa: E731
    forms = [
        lambda: f"{pred()}(X, Y)",
        lambda: f"{pred()}(X, {rng.choice(CONSTANTS)})",
        lambda: f"{rng.choice(['<->', '<+>', '[-]', '[+]'])}{window()} {pred()}(X, Y)",
        lambda: f"{pred()}(X) <{rng.choice('SU')}>{window()} {pred()}(Y)",
        lambda: f"not {pred()}(Y)",
        lambda: f"X {rng.choice(['<', '>=', '!=', '=='])} {rng.randint(0, 100)}",
        lambda: f"Z = X * {rng.randint(2, 9)} + Y",
    ]
    out = []
    for _ in range(rules):
        body = [f"{pred()}(X, Y)"] + [rng.choice(forms)() for _ in range(rng.randint(0, 4))]
        if rng.random() < 0.05:
            head, body = f"{pred()}(X, S)", body + ["S = sum(Y)"]
        else:
            head = f"{rng.choice(['', '', '', '[+][0,1] '])}{pred()}(X, Y)"
        out.append(f"{head} :- {', '.join(body)}.\n")
    return "".join(out)


def read_chronolog(text):
    from chronolog.language import vadalog

    return vadalog.parse(text).rules


def read_lark(text):
    """``vadalog.parse`` as it was: the whole text through the grammar."""
    from chronolog.language import dates, vadalog
    from chronolog.language.nulls import reading_file

    with reading_file():
        prog = vadalog.DIALECT.read(text, "<program>")
    return dates.resolve(prog, None, text.splitlines()).rules


def _lark_library():
    """lark's own LALR parser of the grammar, its tables cached on disk."""
    import lark

    sys.path.insert(0, str(HERE.parent / "scripts"))
    from generate_parsers import OPTIONS

    grammar = (HERE.parent / "language" / "vadalog.lark").read_text(encoding="utf-8")
    return lark.Lark(grammar, cache=True, **OPTIONS)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", type=int, nargs="+", default=[200, 5000])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    programs = {f"{n} rules": program(n) for n in args.rules}
    programs["cliffs' 200 predicates"] = many_rules(200)
    library = _lark_library()
    sides = {"chronolog": read_chronolog, "lark": read_lark, "lark lalr cache": library.parse}
    for side in sides.values():  # imports and grammar tables off the clock
        side(program(20))
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    rows = []
    for name, text in programs.items():
        n = text.count(":-")
        cpu: dict = {k: [] for k in sides}
        for _ in range(args.repeat):
            for side, read in sides.items():  # in turns: the machine's load falls on every side alike
                # no other side's parse tree alive and the collector's counts reset: else a full
                # collection over another side's 5,000-rule tree lands in whichever call is timed
                gc.collect()
                c = time.process_time()
                out = read(text)
                cpu[side].append(time.process_time() - c)
                del out
        same = _same(read_chronolog(text), read_lark(text))
        row = {"program": name, "rules": n, "same": same, "load": os.getloadavg()[0]}
        print(f"{name} ({n:,} rules), median CPU of {args.repeat}:")
        for side in sides:
            c = median(cpu[side])
            row[side] = {"cpu": c, "us_per_rule": c / n * 1e6}
            print(f"  {side:16} {c * 1e3:9.1f} ms  {c / n * 1e6:7.1f} us per rule")
        print(f"  lark / chronolog {row['lark']['cpu'] / row['chronolog']['cpu']:.1f}x; "
              f"lark lalr cache (parse alone) / chronolog {row['lark lalr cache']['cpu'] / row['chronolog']['cpu']:.1f}x; "
              f"the same rules as lark's (positions included): {same}")
        rows.append(row)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.json:
        with args.json.open("a") as fh:
            fh.write(json.dumps({"programs": rows, "load": os.getloadavg()[0]}) + "\n")
    return 0 if all(r["same"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
