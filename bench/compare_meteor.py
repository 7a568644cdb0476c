"""Benchmark chronolog against MeTeoR (meteor-reasoner 2.0, seminaive) on temporal LUBM.

For each program (``bench/programs/lubm_{nonrec,rec}.vada`` and the MeTeoR
translation ``.meteor`` beside it) and each dataset size, the script

1. generates the dataset with ``bench/lubm_gen.py`` (cached in ``bench/data``),
2. runs chronolog and MeTeoR, each in its own subprocess (so the peak resident
   memory, ``ru_maxrss``, belongs to one system only),
3. checks that both reach the same least model: every fact of both models is
   normalised to ``(predicate, terms, maximal coalesced interval)`` with exact
   numbers (MeTeoR's ``Decimal`` and chronolog's ``int``/``Fraction`` both
   become ``Fraction``, unbounded ends become +-inf) and the two sets must be
   equal,
4. prints load and reasoning time, MeTeoR/chronolog ratio, input facts per
   second and peak memory.

Usage::

    python bench/compare_meteor.py --facts 10000 100000 --program both
    python bench/compare_meteor.py --facts 1000000 --skip-meteor
    python bench/compare_meteor.py --facts 100000 --repeat 3 --json results.json
    python bench/compare_meteor.py --facts 100000 --preload   # chronolog's libraries imported before its clock
    python bench/compare_meteor.py --facts 100000 --skip-meteor --pythonpath OLD_TREE   # before/after

Worker mode (used internally, one system per process)::

    python bench/compare_meteor.py --worker chronolog|meteor --program-file P --data-file F --out R.pickle
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "programs"
INF = float("inf")

sys.path.insert(0, str(HERE))


# ---------------------------------------------------------------------------
# program translation (consistency check between the .vada and .meteor files)

_OPS = [("<->", "Diamondminus"), ("<+>", "Diamondplus"), ("[-]", "Boxminus"),
        ("[+]", "Boxplus"), ("<S>", "Since"), ("<U>", "Until")]


def vada_rules(text: str) -> list:
    """The rules of a Vadalog program, one string per rule, comments dropped."""
    text = re.sub(r"%[^\n]*", "", text)
    return [r.strip() + "." for r in text.split(".") if r.strip()]


def vada_to_meteor(text: str) -> list:
    """Translate our (simple, one-rule-per-statement) Vadalog programs to MeTeoR lines."""
    out = []
    for rule in vada_rules(text):
        r = rule[:-1]
        for a, b in _OPS:
            r = r.replace(a, b)
        out.append(r.replace(" ", ""))
    return out


def meteor_lines(path: Path) -> list:
    """Rule lines of a MeTeoR program file (blank lines and '%' comments skipped)."""
    return [ln.strip() for ln in path.read_text().splitlines()
            if ln.strip() and not ln.lstrip().startswith("%")]


# ---------------------------------------------------------------------------
# normalisation to a set of (pred, terms, (lo, hi, lo_closed, hi_closed))

def _num(x):
    """Exact number: Fraction, or +-inf as float."""
    if isinstance(x, Decimal):
        if x.is_infinite():
            return INF if x > 0 else -INF
        if x.is_nan():
            raise ValueError("NaN time point")
        return Fraction(x)
    if isinstance(x, float):
        if x in (INF, -INF):
            return x
        return Fraction(x)  # exact binary value; should not happen
    if isinstance(x, (int, Fraction)):
        return Fraction(x)
    return Fraction(str(x))


def _iv(lo, hi, lc, hc):
    lo, hi = _num(lo), _num(hi)
    if lo == -INF:
        lc = False
    if hi == INF:
        hc = False
    return (lo, hi, bool(lc), bool(hc))


def coalesce(ivs):
    """Maximal intervals of a union of intervals (tuples lo, hi, lc, hc)."""
    ivs = [iv for iv in ivs if iv[0] < iv[1] or (iv[0] == iv[1] and iv[2] and iv[3])]
    if not ivs:
        return []
    ivs.sort(key=lambda iv: (iv[0], not iv[2]))
    out = []
    lo, hi, lc, hc = ivs[0]
    for nlo, nhi, nlc, nhc in ivs[1:]:
        if nlo < hi or (nlo == hi and (hc or nlc)):
            if nhi > hi:
                hi, hc = nhi, nhc
            elif nhi == hi:
                hc = hc or nhc
        else:
            out.append((lo, hi, lc, hc))
            lo, hi, lc, hc = nlo, nhi, nlc, nhc
    out.append((lo, hi, lc, hc))
    return out


def _canon(atoms: dict) -> set:
    res = set()
    for (pred, terms), ivs in atoms.items():
        for iv in coalesce(ivs):
            res.add((pred, terms, iv))
    return res


def normalise_meteor(D) -> set:
    atoms = {}
    for pred, val in D.items():
        if isinstance(val, list):  # propositional
            items = [((), val)]
        else:
            items = [(tuple(t.name for t in ent if t.name != "nan"), ivs) for ent, ivs in val.items()]
        for terms, ivs in items:
            for iv in ivs:
                atoms.setdefault((pred, terms), []).append(
                    _iv(iv.left_value, iv.right_value, not iv.left_open, not iv.right_open))
    return _canon(atoms)


def normalise_chronolog(model) -> set:
    atoms = {}
    for pred in model.predicates():
        for terms, iv in model.facts(pred):
            key = (pred, tuple(str(getattr(t, "value", t)) for t in terms))
            atoms.setdefault(key, []).append(_iv(*iv))
    return _canon(atoms)


def fmt_fact(f) -> str:
    pred, terms, (lo, hi, lc, hc) = f

    def n(x):
        if x == INF:
            return "+inf"
        if x == -INF:
            return "-inf"
        return str(x)
    return f"{pred}({','.join(terms)})@{'[' if lc else '('}{n(lo)},{n(hi)}{']' if hc else ')'}"


# ---------------------------------------------------------------------------
# workers (one system per process)

def _maxrss_mb() -> float:
    """Peak resident memory of this process, in MB.

    VmHWM (the high-water mark of the current address space) rather than
    ru_maxrss: Linux carries ru_maxrss over fork+exec, so a worker would
    inherit the driver's resident size (which holds the earlier models)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def worker_meteor(program_file: Path, data_file: Path, raw: bool = False) -> dict:
    from meteor_reasoner.materialization.coalesce import coalescing_d
    from meteor_reasoner.materialization.materialize import materialize
    from meteor_reasoner.utils.loader import load_dataset, load_program
    base = _maxrss_mb()
    c0 = time.process_time()
    t0 = time.perf_counter()
    with open(data_file) as f:
        lines = f.readlines()
    D = load_dataset(lines)
    del lines
    if not raw:
        # MeTeoR does not coalesce its input before the first round, so boxes
        # and Since/Until over EDB atoms with touching intervals ([0,2) and
        # [2,5]) lose results (see README, "MeTeoR defect").  Coalescing once
        # after loading fixes it; it is counted as load time.
        coalescing_d(D)
    program = load_program(meteor_lines(program_file))  # a list: load_program(path) mangles decimals
    t1 = time.perf_counter()
    c1 = time.process_time()
    devnull = open(os.devnull, "w")
    old = sys.stdout
    sys.stdout = devnull  # materialize() prints every iteration
    try:
        fixpoint = materialize(D, program, mode="seminaive", K=10**9)
    finally:
        sys.stdout = old
    t2 = time.perf_counter()
    c2 = time.process_time()
    peak = _maxrss_mb()
    model = normalise_meteor(D)
    return dict(system="meteor", load=t1 - t0, reason=t2 - t1, total=t2 - t0, peak_mb=peak,
                load_cpu=c1 - c0, reason_cpu=c2 - c1, total_cpu=c2 - c0,
                base_mb=base, fixpoint=bool(fixpoint), model=model)


def worker_chronolog(program_file: Path, data_file: Path, preload: bool = False) -> dict:
    import chronolog
    preload_s = preload_cpu = 0.0
    if preload:  # the libraries imported before the clock starts, as MeTeoR's modules are
        c = time.process_time()
        t = time.perf_counter()
        chronolog.preload()
        preload_s, preload_cpu = time.perf_counter() - t, time.process_time() - c
    base = _maxrss_mb()
    text = program_file.read_text()
    c0 = time.process_time()
    t0 = time.perf_counter()
    model = chronolog.reason(text, facts=Path(data_file))
    t2 = time.perf_counter()
    c2 = time.process_time()
    peak = _maxrss_mb()
    norm = normalise_chronolog(model)
    del model
    # Load time: parsing the fact file (chronolog.api.load_facts, the first
    # step of reason()), timed separately after the peak-memory reading.
    from chronolog.api import load_facts
    c3 = time.process_time()
    t3 = time.perf_counter()
    facts = load_facts(Path(data_file))
    t4 = time.perf_counter()
    c4 = time.process_time()
    del facts
    load, load_cpu = t4 - t3, c4 - c3
    return dict(system="chronolog", load=load, reason=max(0.0, (t2 - t0) - load), total=t2 - t0,
                load_cpu=load_cpu, reason_cpu=max(0.0, (c2 - c0) - load_cpu), total_cpu=c2 - c0,
                peak_mb=peak, base_mb=base, fixpoint=True, model=norm, preload=preload_s, preload_cpu=preload_cpu)


def worker_main(a) -> int:
    if a.worker == "meteor":
        res = worker_meteor(Path(a.program_file), Path(a.data_file), raw=a.meteor_raw)
    else:
        res = worker_chronolog(Path(a.program_file), Path(a.data_file), preload=a.preload)
    with open(a.out, "wb") as f:
        pickle.dump(res, f, protocol=pickle.HIGHEST_PROTOCOL)
    return 0


def run_worker(system: str, program_file: Path, data_file: Path, timeout=None, profile=None,
               extra=(), pythonpath=None) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".pickle", delete=False) as tf:
        out = tf.name
    cmd = [sys.executable]
    if profile:
        cmd += ["-m", "cProfile", "-o", profile]
    cmd += [str(Path(__file__).resolve()), "--worker", system, "--program-file", str(program_file),
            "--data-file", str(data_file), "--out", out, *extra]
    try:
        env = None
        if pythonpath:  # another chronolog tree (an export laid out as the installed package)
            env = dict(os.environ, PYTHONPATH=pythonpath)
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        if p.returncode != 0:
            return dict(system=system, error=(p.stderr or p.stdout).strip().splitlines()[-15:])
        with open(out, "rb") as f:
            return pickle.load(f)
    except subprocess.TimeoutExpired:
        return dict(system=system, error=[f"timeout after {timeout} s"])
    finally:
        try:
            os.unlink(out)
        except OSError:
            pass


# ---------------------------------------------------------------------------
# driver

def compare_models(a: set, b: set, names=("chronolog", "meteor"), show=5) -> list:
    """Human-readable differences (empty list when equal)."""
    msgs = []
    only_a, only_b = a - b, b - a
    if not only_a and not only_b:
        return msgs
    preds = sorted({f[0] for f in only_a | only_b})
    for p in preds:
        xa = sorted((f for f in only_a if f[0] == p), key=fmt_fact)
        xb = sorted((f for f in only_b if f[0] == p), key=fmt_fact)
        msgs.append(f"  {p}: {len(xa)} only in {names[0]}, {len(xb)} only in {names[1]}")
        for f in xa[:show]:
            msgs.append(f"    {names[0]} only: {fmt_fact(f)}")
        for f in xb[:show]:
            msgs.append(f"    {names[1]} only: {fmt_fact(f)}")
    return msgs


def _summ(runs: list, key: str) -> float:
    return min(r[key] for r in runs)


def bench_one(program: str, n: int, a) -> dict:
    import lubm_gen
    vada_data, met_data = lubm_gen.dataset(n, seed=a.seed, tmax=a.tmax)
    vprog = PROGRAMS / f"lubm_{program}.vada"
    mprog = PROGRAMS / f"lubm_{program}.meteor"
    if vada_to_meteor(vprog.read_text()) != meteor_lines(mprog):
        print(f"WARNING: {mprog.name} is not the translation of {vprog.name}", file=sys.stderr)
    row = dict(program=program, facts=n)
    systems = ["chronolog"] + ([] if a.skip_meteor else ["meteor"])
    models = {}
    for system in systems:
        if system == "chronolog" and a.skip_chronolog:
            continue
        runs = []
        for i in range(a.repeat):
            data = vada_data if system == "chronolog" else met_data
            prof = None
            if a.profile and system == "chronolog" and i == 0:
                prof = str(HERE / "data" / f"profile_{program}_{n}.prof")
            r = run_worker(system, vprog if system == "chronolog" else mprog, data,
                           timeout=a.timeout, profile=prof,
                           extra=(["--meteor-raw"] if a.meteor_raw and system == "meteor" else [])
                           + (["--preload"] if a.preload and system == "chronolog" else []),
                           pythonpath=a.pythonpath if system == "chronolog" else None)
            if "error" in r:
                print(f"[{program} {n}] {system} FAILED:\n  " + "\n  ".join(r["error"]), file=sys.stderr)
                row[system] = dict(error=r["error"])
                break
            models[system] = r.pop("model")
            runs.append(r)
            pre = f" after preload() {r['preload']:.2f}s (cpu {r['preload_cpu']:.2f}s)" if r.get("preload") else ""
            print(f"[{program} {n}] {system} run {i + 1}: load {r['load']:.2f}s reason {r['reason']:.2f}s "
                  f"total {r['total']:.2f}s (cpu {r['total_cpu']:.2f}s) peak {r['peak_mb']:.0f} MB{pre}",
                  file=sys.stderr, flush=True)
        if runs:
            row[system] = dict(
                load=_summ(runs, "load"), reason=_summ(runs, "reason"), total=_summ(runs, "total"),
                load_cpu=_summ(runs, "load_cpu"), reason_cpu=_summ(runs, "reason_cpu"),
                total_cpu=_summ(runs, "total_cpu"),
                total_median=statistics.median(r["total"] for r in runs),
                peak_mb=max(r["peak_mb"] for r in runs), base_mb=runs[0]["base_mb"],
                fixpoint=all(r["fixpoint"] for r in runs), model_facts=len(models[system]),
                facts_per_s=n / _summ(runs, "total"))
    if "chronolog" in models and "meteor" in models:
        diff = compare_models(models["chronolog"], models["meteor"])
        row["agree"] = not diff
        row["diff"] = diff
        if diff and a.diff_dir:
            d = Path(a.diff_dir)
            d.mkdir(parents=True, exist_ok=True)
            for name, only in (("chronolog_only", models["chronolog"] - models["meteor"]),
                               ("meteor_only", models["meteor"] - models["chronolog"])):
                (d / f"{program}_{n}_{name}.txt").write_text("\n".join(sorted(map(fmt_fact, only))) + "\n")
    add_ratios(row)
    return row


def add_ratios(row: dict) -> None:
    """MeTeoR's time over chronolog's (wall and CPU), when both ran."""
    if "total" in row.get("chronolog", {}) and "total" in row.get("meteor", {}):
        row["ratio"] = row["meteor"]["total"] / row["chronolog"]["total"]
        row["ratio_cpu"] = row["meteor"]["total_cpu"] / row["chronolog"]["total_cpu"]


def print_table(rows: list) -> None:
    hdr = (f"{'program':8} {'facts':>9} {'system':10} {'load s':>8} {'reason s':>9} {'total s':>8} "
           f"{'cpu s':>8} {'facts/s':>9} {'peak MB':>8} {'model':>8} {'ratio':>7} {'cpu rt':>7} agree")
    print(hdr)
    print("-" * len(hdr))
    for row in rows:
        for system in ("chronolog", "meteor"):
            r = row.get(system)
            if r is None:
                continue
            if "error" in r:
                print(f"{row['program']:8} {row['facts']:>9} {system:10} ERROR: {r['error'][-1]}")
                continue
            ratio = f"{row['ratio']:.1f}x" if system == "meteor" and "ratio" in row else ""
            ratio_cpu = f"{row['ratio_cpu']:.1f}x" if system == "meteor" and "ratio_cpu" in row else ""
            agree = ""
            if system == "meteor" and "agree" in row:
                agree = "yes" if row["agree"] else "NO"
            fp = "" if r["fixpoint"] else " (no fixpoint)"
            print(f"{row['program']:8} {row['facts']:>9} {system:10} {r['load']:>8.2f} {r['reason']:>9.2f} "
                  f"{r['total']:>8.2f} {r['total_cpu']:>8.2f} {r['facts_per_s']:>9.0f} {r['peak_mb']:>8.0f} "
                  f"{r['model_facts']:>8} {ratio:>7} {ratio_cpu:>7} {agree}{fp}")
        for line in row.get("diff", [])[:40]:
            print(line)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--facts", type=int, nargs="+", default=[10_000], help="dataset sizes (default 10000)")
    ap.add_argument("--program", choices=["nonrec", "rec", "both"], default="both")
    ap.add_argument("--skip-meteor", action="store_true", help="run chronolog only (e.g. at 1M facts)")
    ap.add_argument("--skip-chronolog", action="store_true", help="run MeTeoR only")
    ap.add_argument("--repeat", type=int, default=1, help="runs per system; times are the minimum")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tmax", type=int, default=300)
    ap.add_argument("--timeout", type=float, default=None, help="seconds per worker run")
    ap.add_argument("--profile", action="store_true",
                    help="cProfile chronolog's first run into bench/data/profile_PROGRAM_N.prof")
    ap.add_argument("--json", help="append the result rows (JSON lines) to this file")
    ap.add_argument("--diff-dir", default=str(HERE / "data" / "diffs"),
                    help="where to write the full differences when the models disagree")
    ap.add_argument("--meteor-raw", action="store_true",
                    help="do not coalesce MeTeoR's input after loading (reproduces its defect)")
    ap.add_argument("--pythonpath", default=None,
                    help="run chronolog from this package tree (an export of an earlier commit laid out as "
                         "the installed package, as in lubm_command.py) for a before/after figure")
    ap.add_argument("--preload", action="store_true",
                    help="chronolog.preload() before chronolog's clock starts (its libraries imported "
                         "beforehand, as MeTeoR's modules are); the preload time is printed apart")
    # worker mode
    ap.add_argument("--worker", choices=["chronolog", "meteor"], help=argparse.SUPPRESS)
    ap.add_argument("--program-file", help=argparse.SUPPRESS)
    ap.add_argument("--data-file", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        return worker_main(a)

    programs = ["nonrec", "rec"] if a.program == "both" else [a.program]
    rows = []
    for n in a.facts:
        for prog in programs:
            row = bench_one(prog, n, a)
            rows.append(row)
            if a.json:
                with open(a.json, "a") as f:
                    f.write(json.dumps(row) + "\n")
    print_table(rows)
    bad = [r for r in rows if r.get("agree") is False]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
