"""A CSV file of many predicates against the same facts as fact text: the
whole ``chronolog run --facts FILE`` command, side by side in one run.

    python bench/csv_facts.py [--facts 200000 1000000] [--repeat 3] [--json FILE]

A generated fact file of ``--facts`` facts of six predicates (names, plain
integers and decimals, fractions, strings with blanks; 0 to 3 arguments;
open and closed ends; no two facts coalesce) is run once through an echo
program with ``--format csv`` and with ``--format text``: the CSV file of
facts (``pred``, ``c0``.., ``start``, ``end``, closedness) and the fact
text file chronolog writes of the same facts (cached in
``bench/data/csv_facts/``).  Then ``chronolog run`` of a program that
selects a few of them reads each file, ``--repeat`` times, the two
interleaved: the median wall and CPU seconds (the child's, all threads)
and the peak memory, with the ratio of CSV to text; the two outputs are
compared.  The machine's load average is printed before and after: compare
the sides of one run, not runs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from statistics import median

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from four_rules import _peak  # noqa: E402  (one way to measure a child process)

DATA = HERE / "data" / "csv_facts"
PREDICATES = ("emp", "price", "reading", "on", "link", "rate")
PROGRAM = 'q(X) :- emp(X, d7).\nr(S, V) :- reading(S, V), V > 98.\n@output("q"). @output("r").\n'


def fact(i: int) -> str:
    """The ``i``-th generated fact: its terms and time slot are residues of
    ``i`` (two facts with the same terms are in slots apart: none coalesce)."""
    s = 3 * (i % 10007)
    iv = (f"[{s},{s + 2})", f"({s},{s + 2}]", f"[{s},{s + 2}]")[i % 3]
    return f"{_HEADS[i % 10](i)}@{iv}.\n"


_HEADS = [lambda i: f"emp(e{i % 20011},d{i % 301})"] * 4 + [lambda i: f"price(item{i % 5003},{i % 997}.{i % 89 + 1})"] * 2 + [
    lambda i: f'reading("sensor {i % 499}",{i % 151 - 50})',
    lambda i: f"on(m{i % 1009})",
    lambda i: f"link(n{i % 3001},n{i % 2999},{i % 10})",
    lambda i: f"rate(r{i % 101},{1 + i % 8}/{1 + i % 6})",
]  # (four in ten facts emp, two price, one each of the others)


def files(n: int) -> tuple:
    """The CSV and the fact text file of ``n`` facts, as ``chronolog run``
    writes them (made once)."""
    DATA.mkdir(parents=True, exist_ok=True)
    csv_path, text_path = DATA / f"facts_{n}.csv", DATA / f"facts_{n}.txt"
    if csv_path.exists() and text_path.exists():
        return csv_path, text_path
    with tempfile.TemporaryDirectory(prefix="csv_facts_") as tmp:
        given, echo = Path(tmp) / "given.vada", Path(tmp) / "echo.vada"
        with open(given, "w") as fh:
            fh.writelines(fact(i) for i in range(n))
        echo.write_text("".join(f'@output("{p}"). ' for p in PREDICATES) + "\n")
        for fmt, path in (("csv", csv_path), ("text", text_path)):
            tmp_out = path.with_name(path.name + ".tmp")
            with open(tmp_out, "w") as out:
                subprocess.run([sys.executable, "-m", "chronolog", "run", str(echo), "--facts", str(given), "--format", fmt],
                               stdout=out, check=True)
            os.replace(tmp_out, path)
    return csv_path, text_path


def commands(n: int, repeat: int) -> dict:
    csv_path, text_path = files(n)
    rows = sum(1 for _ in open(csv_path)) - 1
    runs = {"csv": [], "text": []}
    outputs = {}
    with tempfile.TemporaryDirectory(prefix="csv_facts_") as tmp:
        prog = Path(tmp) / "select.vada"
        prog.write_text(PROGRAM)
        for _ in range(repeat):
            for name, path in (("csv", csv_path), ("text", text_path)):  # (interleaved: the machine's load falls on both alike)
                out = Path(tmp) / f"{name}.txt"
                r = _peak([sys.executable, "-m", "chronolog", "run", str(prog), "--facts", str(path)], out)
                if r["rc"] != 0:
                    raise RuntimeError(r["stderr"])
                runs[name].append(r)
                outputs.setdefault(name, out.read_text())
    res = {name: {k: median(r[k] for r in rs) for k in ("wall", "cpu", "rss")} for name, rs in runs.items()}
    return {"facts": n, "rows": rows, "repeat": repeat, "same": outputs["csv"] == outputs["text"],
            "answers": outputs["csv"].count("\n"), **res}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--facts", type=int, nargs="+", default=[200_000, 1_000_000], help="facts per file (default 200000 1000000)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    results = []
    for n in a.facts:
        r = commands(n, a.repeat)
        results.append(r)
        print(f"chronolog run --facts, {r['rows']:,} rows of {len(PREDICATES)} predicates, median of {a.repeat} ({r['answers']} answers):")
        base = r["text"]
        print("\n".join(f"  {name:<5} {x['wall']:7.2f} s wall {x['cpu']:7.2f} s CPU {x['rss'] / 2**20:6.0f} MB   "
                        f"{x['wall'] / base['wall']:.2f}x wall, {x['cpu'] / base['cpu']:.2f}x CPU of text" for name, x in (("csv", r["csv"]), ("text", base))))
        print(f"  same answers: {r['same']}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if a.json:
        with open(a.json, "a") as fh:
            fh.writelines(json.dumps(r) + "\n" for r in results)
    return 0 if all(r["same"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
