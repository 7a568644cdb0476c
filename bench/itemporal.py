"""iTemporal's benchmark shapes: chronolog against MeTeoR (meteor-reasoner, seminaive).

The Temporal Vadalog paper (Temporal Vadalog System, TPLP, section 5.4)
generated programs with iTemporal (github.com/kglab-tuwien/iTemporal) that
target the main temporal operations -- temporal operators (box, diamond),
joins (intersection) and unions -- over synthetic data of 1K to 10M facts,
and reports elapsed time against MeTeoR in seminaive mode: Temporal Vadalog
faster "with a factor of 3 to 4 (depending on the benchmark) for 10M facts",
scaling linearly.

This script builds the same families from iTemporal's published programs
(``benchmarks/benchmark_data/query/vadalog``): ``diamond`` is
07_diamond_minus's rule, ``box`` 08_box_minus's, ``since`` 06_since's, and
``union`` / ``intersection`` are iTemporal's union and intersection edges
over two inputs.  The data has iTemporal's shape (its generator, published
CSVs): two numeric arguments drawn uniformly from 0..999, and per tuple a
chain of 1-5 adjacent intervals of 5-60 seconds starting uniformly in
2020-2021, written as numbers of seconds (the generator's "no_date" form).
Both systems read the same facts (``bench/data/itemporal_*``, generated and
cached) in their own syntax, each in its own process
(``compare_meteor.run_worker``); the models are compared fact by fact.

Usage::

    python bench/itemporal.py --facts 1000 10000 100000 [--family diamond box ...] [--timeout 600]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import compare_meteor as cm  # noqa: E402

START, END = 1577836800, 1640995200  # 2020-01-01 and 2022-01-01 in seconds

FAMILIES = {
    # iTemporal 07_diamond_minus
    "diamond": ["g708(N0,N1) :- <->[7,97] g707(N0,N1)."],
    # iTemporal 08_box_minus
    "box": ["g733(N0,N1) :- [-][29,76] g732(N1,N0)."],
    # iTemporal 06_since
    "since": ["g3(N0,N1) :- g4(N1,N0).", "g4(N0,N1) :- g1(N1,N0) <S>[1,3] g2(N0,N1)."],
    # iTemporal's union and intersection edges
    "union": ["u(N0,N1) :- a(N0,N1).", "u(N0,N1) :- b(N1,N0)."],
    "intersection": ["i(N0,N1) :- a(N0,N1), b(N1,N0)."],
}
INPUTS = {"diamond": ["g707"], "box": ["g732"], "since": ["g1", "g2"], "union": ["a", "b"], "intersection": ["a", "b"]}

# the paper's figure for these families (section 5.4): MeTeoR time over
# Temporal Vadalog time at 10M facts
PAPER = "3-4x at 10M facts"


def programs(family: str):
    """The .vada and .meteor program files (written to bench/programs)."""
    vada = HERE / "programs" / f"itemporal_{family}.vada"
    text = f"% iTemporal's {family} shape (bench/itemporal.py)\n" + "\n".join(FAMILIES[family]) + "\n"
    vada.write_text(text)
    meteor = vada.with_suffix(".meteor")
    meteor.write_text("\n".join(cm.vada_to_meteor(text)) + "\n")
    return vada, meteor


def dataset(family: str, n: int, seed: int = 1):
    """``n`` facts of iTemporal's shape, as a chronolog and a MeTeoR fact file."""
    d = HERE / "data"
    d.mkdir(exist_ok=True)
    vada, met = d / f"itemporal_{family}_{n}_s{seed}.vada", d / f"itemporal_{family}_{n}_s{seed}.meteor"
    if vada.exists() and met.exists():
        return vada, met
    rng = random.Random(seed)
    preds = INPUTS[family]
    lines = []
    while len(lines) < n:
        pred = rng.choice(preds)
        x, y = rng.randrange(1000), rng.randrange(1000)
        t = rng.randrange(START, END)
        for _ in range(rng.randint(1, 5)):
            if len(lines) >= n:
                break
            u = t + rng.randint(5, 60)
            lines.append(f"{pred}({x},{y})@[{t},{u}]")
            t = u
    vada.write_text("".join(l + ".\n" for l in lines))
    met.write_text("".join(l + "\n" for l in lines))
    return vada, met


def bench(family: str, n: int, a) -> dict:
    vprog, mprog = programs(family)
    vdata, mdata = dataset(family, n, a.seed)
    row = dict(family=family, facts=n)
    models = {}
    for system, prog, data in (("chronolog", vprog, vdata), ("meteor", mprog, mdata)):
        if system == "meteor" and a.skip_meteor:
            continue
        r = cm.run_worker(system, prog, data, timeout=a.timeout)
        if "error" in r:
            row[system] = r["error"][-1]
            continue
        models[system] = r.pop("model")
        row[system] = r["total"]
        row[f"{system}_fixpoint"] = r["fixpoint"]
        print(f"[{family} {n}] {system}: {r['total']:.2f} s ({len(models[system])} facts in the model)",
              file=sys.stderr, flush=True)
    if len(models) == 2:
        row["agree"] = not cm.compare_models(models["chronolog"], models["meteor"])
    if isinstance(row.get("chronolog"), float) and isinstance(row.get("meteor"), float):
        row["ratio"] = row["meteor"] / row["chronolog"]
    return row


def table(rows) -> str:
    out = ["| family | facts | chronolog s | MeTeoR s | MeTeoR / chronolog | paper (Temporal Vadalog vs MeTeoR) | same model |",
           "|---|---:|---:|---:|---:|---|---|"]
    for r in rows:
        def s(x):
            return f"{x:.2f}" if isinstance(x, float) else (x or "-")
        ratio = f"{r['ratio']:.1f}x" if "ratio" in r else "-"
        agree = {True: "yes", False: "NO"}.get(r.get("agree"), "-")
        out.append(f"| {r['family']} | {r['facts']:,} | {s(r.get('chronolog'))} | {s(r.get('meteor'))} | {ratio} | {PAPER} | {agree} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--facts", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--family", nargs="+", choices=sorted(FAMILIES), default=list(FAMILIES))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--skip-meteor", action="store_true")
    a = ap.parse_args(argv)
    rows = [bench(f, n, a) for f in a.family for n in a.facts]
    print(table(rows))
    return 0 if all(r.get("agree", True) for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
