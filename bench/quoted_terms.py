"""Quoted IRI terms and facts inside the program, against bare names: the
whole ``chronolog run`` command, side by side in one run (issue 37).

    python bench/quoted_terms.py [--facts 300000] [--read 1000000] [--repeat 3]
                                 [--program nonrec] [--json FILE]

Temporal LUBM (bench/lubm_gen.py) three ways, the same facts and rules:
``bare`` (``p(prof0,dept0)@[1,5]`` in a fact file), ``quoted`` (every term a
quoted IRI, ``p("<http://www.lubm.org/prof0>", ...)``, in a fact file, as
LUBM's own data is written) and ``in_program`` (those quoted facts written
inside the program text).  Each command runs ``--repeat`` times, the three
interleaved; the median wall and CPU seconds (the child's, all threads) and
the peak memory are reported, with the ratio to ``bare``.  The models are
compared (the quoted ones with their IRIs unwrapped).  Then the kernel
reader alone reads ``--read`` quoted facts (and the bare ones) in this
process: facts per second (wall, and CPU).  The machine's load average is
printed before and after: compare the sides of one run, not runs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from four_rules import _peak  # noqa: E402  (one way to measure a child process)
from lubm_gen import DATA_DIR, dataset  # noqa: E402

IRI = "<http://www.lubm.org/{}>"
_HEAD = re.compile(r"^([A-Za-z]+)\(([^)]*)\)", re.M)


def quoted(n: int) -> Path:
    """The LUBM file of ``n`` facts with every term a quoted IRI (cached)."""
    bare, _ = dataset(n)
    out = Path(DATA_DIR) / f"{bare.stem}_iri.vada"
    if not out.exists():
        text = bare.read_text()
        wrap = lambda m: m.group(1) + "(" + ",".join('"' + IRI.format(a) + '"' for a in m.group(2).split(",")) + ")"  # noqa: E731
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text(_HEAD.sub(wrap, text))
        os.replace(tmp, out)
    return out


def in_program(n: int, program: Path) -> Path:
    """The program with the quoted facts written inside it (cached)."""
    out = Path(DATA_DIR) / f"{quoted(n).stem}_{program.stem}_program.vada"
    if not out.exists():
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text(program.read_text() + "\n" + quoted(n).read_text())
        os.replace(tmp, out)
    return out


def _unwrap(line: str) -> str:
    return re.sub(r'"<http://www\.lubm\.org/([^>]*)>"', r"\1", line)


def _model(path: Path, unwrap: bool) -> list:
    with open(path) as fh:
        return sorted(_unwrap(x) if unwrap else x for x in fh)


def commands(n: int, program: str, repeat: int) -> dict:
    prog = HERE / "programs" / f"lubm_{program}.vada"
    bare, _ = dataset(n)
    cases = {
        "bare": [str(prog), "--facts", str(bare)],
        "quoted": [str(prog), "--facts", str(quoted(n))],
        "in_program": [str(in_program(n, prog))],
    }
    runs = {k: [] for k in cases}
    models = {}
    with tempfile.TemporaryDirectory(prefix="quoted_terms_") as tmp:
        for _ in range(repeat):
            for name, args in cases.items():  # (interleaved: the machine's load falls on every side alike)
                out = Path(tmp) / f"{name}.txt"
                r = _peak([sys.executable, "-m", "chronolog", "run", *args], out)
                if r["rc"] != 0:
                    raise RuntimeError(r["stderr"])
                runs[name].append(r)
                if name not in models:
                    models[name] = _model(out, name != "bare")
    same = models["quoted"] == models["bare"] and models["in_program"] == models["bare"]
    res = {name: {k: median(r[k] for r in rs) for k in ("wall", "cpu", "rss")} for name, rs in runs.items()}
    return {"facts": n, "program": program, "repeat": repeat, "same": same, **res}


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def read_rate(n: int) -> dict:
    """Facts per second of the kernel reader alone on ``n`` quoted and bare facts."""
    from chronolog.language import allocators

    allocators.configure()
    from chronolog.engine.columns.encoding import Dictionary
    from chronolog.language import fact_columns

    out = {"facts": n}
    for name, path in (("quoted", quoted(n)), ("bare", dataset(n)[0])):
        best = None
        for _ in range(2):  # (the first pays the imports and the allocators' first memory)
            w, c = time.perf_counter(), _cpu()
            with open(path, "rb") as fh:
                fc = fact_columns.read_fact_columns(fh, str(path), "vadalog", None, share=False, terms=Dictionary())
            w, c = time.perf_counter() - w, _cpu() - c
            got = sum(fc.count(p) for p in fc.predicates())
            del fc
            best = (w, c, got) if best is None or w < best[0] else best
        w, c, got = best
        out[name] = {"wall": w, "cpu": c, "read": got, "facts_per_s": got / w, "facts_per_cpu_s": got / c}
    out["parsed_lines"] = fact_columns.parsed_lines
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--facts", type=int, default=300_000, help="facts of the whole-command runs (default 300000)")
    ap.add_argument("--read", type=int, default=1_000_000, help="facts read by the reader alone (default 1000000; 0: skip)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--program", choices=["nonrec", "rec"], default="nonrec")
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    r = commands(a.facts, a.program, a.repeat)
    print(f"chronolog run, LUBM {a.program}, {a.facts:,} facts, median of {a.repeat}:")
    for name in ("bare", "quoted", "in_program"):
        x = r[name]
        print(f"  {name:<11} {x['wall']:7.2f} s wall {x['cpu']:7.2f} s CPU {x['rss'] / 2**20:6.0f} MB"
              f"   {x['wall'] / r['bare']['wall']:.2f}x wall, {x['cpu'] / r['bare']['cpu']:.2f}x CPU of bare")
    print(f"  same models: {r['same']}")
    rows = [dict(r, kind="command")]
    if a.read:
        rr = read_rate(a.read)
        print(f"reader alone, {a.read:,} facts:")
        for name in ("quoted", "bare"):
            x = rr[name]
            print(f"  {name:<11} {x['wall']:7.2f} s wall {x['cpu']:7.2f} s CPU   {x['facts_per_s'] / 1e6:.2f}M facts/s wall,"
                  f" {x['facts_per_cpu_s'] / 1e6:.2f}M facts/CPU s")
        print(f"  lines left to the parser: {rr['parsed_lines']}")
        rows.append(dict(rr, kind="read"))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if a.json:
        with open(a.json, "a") as fh:
            for row in rows:
                fh.write(json.dumps(row) + "\n")
    return 0 if r["same"] else 1


if __name__ == "__main__":
    sys.exit(main())
