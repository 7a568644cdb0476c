"""iTemporal's published benchmark programs as published: chronolog's time
per program and size, and meteor-reasoner's where it runs them (06-09: no
aggregation, no time grouping, a finite model).

Reads a clone of github.com/kglab-tuwien/iTemporal (``--itemporal DIR``):
``benchmarks/benchmark_data/query/vadalog/NN_name.vada`` and the data files
``benchmarks/benchmark_data/data/NN_name/*_date_SIZE.csv``.  Each program runs
with its data copied beside it, as published (horizons included); MeTeoR gets
the same rows as numbers of seconds (chronolog's timeline for these
programs), coalesced once, seminaive, in the same process after chronolog.
CPU seconds (``time.process_time``), load and reasoning, one run each.

Usage::

    python bench/itemporal_published.py --itemporal PATH/TO/iTemporal [--sizes 10 100 1000]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

import chronolog  # noqa: E402

METEOR = {"06_since", "07_diamond_minus", "08_box_minus", "09_box_diamond_mix"}


def _copy(repo: Path, name: str, size: int, into: Path) -> Path | None:
    data = repo / "benchmarks/benchmark_data/data" / name
    files = sorted(data.glob(f"*_date_{size}.csv"))
    if not files:  # the largest published files are missing from some copies of the repository
        return None
    d = into / f"{name}_{size}"
    (d / "xxxx").mkdir(parents=True)
    shutil.copy(repo / "benchmarks/benchmark_data/query/vadalog" / f"{name}.vada", d)
    for f in files:
        shutil.copy(f, d / "xxxx" / f.name.replace(f"_{size}.csv", ".csv"))
    return d / f"{name}.vada"


def _meteor(prog: Path):
    import test_itemporal as ti  # the translation the tests use
    from meteor_reasoner.materialization.materialize import materialize
    from meteor_oracle import _load

    name = prog.stem
    ti.DATA = prog.parent.parent  # read the copied rows
    rows = []
    for path in sorted((prog.parent / "xxxx").glob("*.csv")):
        import csv

        pred = path.name[: -len("_date.csv")]
        with path.open() as fh:
            r = csv.reader(fh)
            next(r)
            for row in r:
                terms = [ti.format_number(ti.parse_number(c)) for c in row[:-2]]
                rows.append(f"{pred}({','.join(terms)})@[{ti._seconds(row[-2])},{ti._seconds(row[-1])}]")
    rules = []
    for line in prog.read_text().splitlines():
        if ":-" in line:
            for a, b in ti._METEOR_OPS:
                line = line.replace(a, b)
            rules.append(line.strip().rstrip("."))
    t = time.process_time()
    D, P = _load(rules, rows)
    with contextlib.redirect_stdout(io.StringIO()):
        fixpoint = materialize(D, P, mode="seminaive", K=1000)
    return time.process_time() - t, fixpoint, len(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--itemporal", type=Path, required=True)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000])
    a = ap.parse_args(argv)
    names = sorted(p.stem for p in (a.itemporal / "benchmarks/benchmark_data/query/vadalog").glob("*.vada"))
    print("| program | size | rows | chronolog s | answers | MeTeoR s |")
    print("|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            for size in a.sizes:
                prog = _copy(a.itemporal, name, size, Path(tmp))
                if prog is None:
                    print(f"| {name} | {size} | - | data file not available | - | - |", flush=True)
                    continue
                rows = sum(sum(1 for _ in open(f)) - 1 for f in (prog.parent / "xxxx").glob("*.csv"))
                t = time.process_time()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    m = chronolog.reason(prog)
                ct = time.process_time() - t
                answers = sum(len(m.facts(p)) for p in m.output_predicates)
                met = "-"
                if name in METEOR:
                    mt, fixpoint, _ = _meteor(prog)
                    met = f"{mt:.2f}" + ("" if fixpoint else " (no fixpoint)")
                print(f"| {name} | {size} | {rows:,} | {ct:.2f} | {answers:,} | {met} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
