"""The company-ownership scenarios (the Temporal Vadalog paper, section 5.1) at growing sizes.

For each dataset size (``bench/ownership_gen.py``) and each scenario of
``examples/ownership/`` (Temporal, Negation, Diamond, Box, and Aggregation
once the language has ``msum``), chronolog runs in its own subprocess
(``compare_meteor.run_worker``: wall and CPU time, peak resident memory).
Diamond and Box also run on MeTeoR (``bench/programs/own_{diamond,box}.meteor``,
the translation of the ``.vada`` files, seminaive, input coalesced after
loading as in compare_meteor.py) in the same run: both models must be equal,
and the ratio is MeTeoR's total time over chronolog's.

The linearity check: time and peak memory (above the interpreter's baseline)
per input fact, at each size, relative to the smallest size.

Usage::

    python bench/ownership_bench.py --facts 10000 100000 1000000 --meteor-max 100000
    python bench/ownership_bench.py --facts 10000 --scenario diamond box
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples" / "ownership"
sys.path.insert(0, str(HERE))

import compare_meteor as cm  # noqa: E402
import ownership_gen  # noqa: E402

SCENARIOS = ["temporal", "negation", "diamond", "box", "aggregation"]
WITH_METEOR = {"diamond", "box"}


def check_translation(name: str) -> None:
    vada = (EXAMPLES / f"{name}.vada").read_text()
    vada = "\n".join(l for l in vada.splitlines() if not l.lstrip().startswith("@"))
    mprog = HERE / "programs" / f"own_{name}.meteor"
    if cm.vada_to_meteor(vada) != cm.meteor_lines(mprog):
        print(f"WARNING: {mprog.name} is not the translation of {name}.vada", file=sys.stderr)


def bench_one(name: str, n: int, a) -> dict:
    vdata, mdata = ownership_gen.dataset(n, seed=a.seed, group=a.group, tmax=a.tmax)
    row = dict(scenario=name, facts=n)
    models = {}
    systems = ["chronolog"]
    if name in WITH_METEOR and not a.skip_meteor and n <= a.meteor_max:
        check_translation(name)
        systems.append("meteor")
    for system in systems:
        prog = EXAMPLES / f"{name}.vada" if system == "chronolog" else HERE / "programs" / f"own_{name}.meteor"
        best = None
        for _ in range(a.repeat):
            r = cm.run_worker(system, prog, vdata if system == "chronolog" else mdata, timeout=a.timeout)
            if "error" in r:
                msg = next((l.strip() for l in r["error"] if "errors." in l or "Error:" in l), r["error"][-1])
                row[system] = dict(error=msg)
                print(f"[{name} {n}] {system} FAILED: {msg}", file=sys.stderr)
                best = None
                break
            models[system] = r.pop("model")
            print(f"[{name} {n}] {system}: total {r['total']:.2f}s cpu {r['total_cpu']:.2f}s "
                  f"peak {r['peak_mb']:.0f} MB (base {r['base_mb']:.0f})", file=sys.stderr, flush=True)
            if best is None or r["total"] < best["total"]:
                best = r
        if best is not None:
            best["model_facts"] = len(models[system])
            row[system] = best
    if "chronolog" in models and "meteor" in models:
        diff = cm.compare_models(models["chronolog"], models["meteor"])
        row["agree"] = not diff
        row["diff"] = diff
    cm.add_ratios(row)
    return row


def print_table(rows: list) -> None:
    first = {}
    hdr = (f"{'scenario':12} {'facts':>9} {'system':10} {'total s':>8} {'cpu s':>7} {'peak MB':>8} "
           f"{'+MB':>6} {'us/fact':>8} {'B/fact':>7} {'rel t':>6} {'rel mem':>7} {'model':>8} {'ratio':>7} {'cpu rt':>7} agree")
    print(hdr)
    print("-" * len(hdr))
    for row in rows:
        for system in ("chronolog", "meteor"):
            r = row.get(system)
            if r is None:
                continue
            if "error" in r:
                print(f"{row['scenario']:12} {row['facts']:>9} {system:10} ERROR: {r['error']}")
                continue
            n = row["facts"]
            us = r["total"] / n * 1e6
            extra = max(r["peak_mb"] - r["base_mb"], 0.0)
            bpf = extra * 1024 * 1024 / n
            key = (row["scenario"], system)
            first.setdefault(key, (us, bpf))
            rel_t = us / first[key][0]
            rel_m = bpf / first[key][1] if first[key][1] else 0.0
            ratio = f"{row['ratio']:.1f}x" if system == "meteor" and "ratio" in row else ""
            ratio_cpu = f"{row['ratio_cpu']:.1f}x" if system == "meteor" and "ratio_cpu" in row else ""
            agree = ("yes" if row["agree"] else "NO") if system == "meteor" and "agree" in row else ""
            print(f"{row['scenario']:12} {n:>9} {system:10} {r['total']:>8.2f} {r['total_cpu']:>7.2f} "
                  f"{r['peak_mb']:>8.0f} {extra:>6.0f} {us:>8.1f} {bpf:>7.0f} {rel_t:>6.2f} {rel_m:>7.2f} "
                  f"{r['model_facts']:>8} {ratio:>7} {ratio_cpu:>7} {agree}")
        for line in row.get("diff", [])[:20]:
            print(line)


def markdown(rows: list) -> str:
    """The figures of bench/README.md from result rows (``--summary FILE``)."""
    out = ["| scenario | facts | chronolog wall s | cpu s | peak MB | µs cpu/fact | MB/100k facts | model facts "
           "| MeTeoR wall s | cpu s | peak MB | ratio wall | ratio cpu | same model |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    failed = []
    for row in sorted(rows, key=lambda r: (SCENARIOS.index(r["scenario"]), r["facts"])):
        c, m = row.get("chronolog", {}), row.get("meteor")
        if "total" not in c:
            failed.append(f"{row['scenario']} at {row['facts']:,} facts")
            continue
        n = row["facts"]
        cells = [row["scenario"], f"{n:,}", f"{c['total']:.2f}", f"{c['total_cpu']:.2f}", f"{c['peak_mb']:.0f}",
                 f"{c['total_cpu'] / n * 1e6:.1f}", f"{(c['peak_mb'] - c['base_mb']) / n * 1e5:.1f}", f"{c['model_facts']:,}"]
        if m and "total" in m:
            cells += [f"{m['total']:.1f}", f"{m['total_cpu']:.1f}", f"{m['peak_mb']:.0f}", f"{row['ratio']:.1f}x",
                      f"{row['ratio_cpu']:.1f}x", "yes" if row.get("agree") else "NO"]
        else:
            cells += [""] * 6
        out.append("| " + " | ".join(cells) + " |")
    if failed:
        out.append("\nDid not run: " + ", ".join(failed) + ".")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--facts", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--scenario", nargs="+", choices=SCENARIOS, default=SCENARIOS)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--group", type=int, default=8)
    ap.add_argument("--tmax", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=1, help="runs per system; the fastest is kept")
    ap.add_argument("--skip-meteor", action="store_true")
    ap.add_argument("--meteor-max", type=int, default=100_000, help="largest size MeTeoR runs on")
    ap.add_argument("--timeout", type=float, default=None)
    ap.add_argument("--json", help="append the result rows (JSON lines) to this file")
    ap.add_argument("--summary", help="print the markdown table of a --json file and exit")
    a = ap.parse_args(argv)
    if a.summary:
        with open(a.summary) as f:
            print(markdown([json.loads(line) for line in f if line.strip()]))
        return 0
    rows = []
    for n in a.facts:
        for name in a.scenario:
            row = bench_one(name, n, a)
            rows.append(row)
            if a.json:
                with open(a.json, "a") as f:
                    f.write(json.dumps(row, default=str) + "\n")
    print_table(rows)
    return 1 if any(r.get("agree") is False for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
