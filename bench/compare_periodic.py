"""Entailment at far time points over infinite (periodic) models: chronolog
against MeTeoR (meteor-reasoner 2.0.0, ``find_periods``) in the same run.

For each program family of ``tests/periodic_programs.py`` (``scaled_program``)
and size, the script measures

* the time to reach the periodic model: MeTeoR's ``load_dataset`` +
  ``load_program`` + ``CanonicalRepresentation`` + ``find_periods``;
  chronolog's ``reason(program, facts)`` with no horizon;
* the time to answer the queries (punctual ones at ±10^6 and a few past it,
  and an interval 2·size long at 10^6): MeTeoR through its own
  ``fact_entailment``, chronolog through ``Model.holds``;
* whether chronolog's answers agree with the exact unrolling of MeTeoR's
  periods (tests/periodic_oracle.py; MeTeoR's ``fact_entailment`` itself is
  wrong on some queries, see the notes of issue 4).

Families: ``period`` (a ring whose period is the size), ``data`` (period 4
and a backward shift of 3, the number of constants is the size), ``lcm``
(two rings of periods size and size+1 joined), ``twoway`` (one recursion
reading both the past and the future, shifts size and size+1).

Usage::

    python bench/compare_periodic.py                      # all families, default sizes
    python bench/compare_periodic.py --family data --sizes 2 8 32 128
    python bench/compare_periodic.py --quick              # small sizes only
    python bench/compare_periodic.py --json rows.jsonl    # append result rows
    python bench/compare_periodic.py --repeat 3           # best of 3 per system

"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from periodic_oracle import OracleTimeout, PeriodicOracle  # noqa: E402
from periodic_programs import scaled_program  # noqa: E402

SIZES = {"period": [5, 20, 80, 320], "data": [2, 8, 32, 128], "lcm": [2, 4, 6, 8], "twoway": [2, 5, 10, 20]}
QUICK = {"period": [5, 20], "data": [2, 8], "lcm": [2, 4], "twoway": [2, 5]}


def run_meteor(prog, timeout):
    row = {}
    t0 = time.perf_counter()
    try:
        oracle = PeriodicOracle(prog.meteor_rules(), prog.meteor_facts(), timeout=timeout)
    except OracleTimeout:
        return {"meteor_model_s": None, "meteor_status": f"timeout {timeout:g}s"}, None
    row["meteor_model_s"] = time.perf_counter() - t0
    row["meteor_left"] = str(oracle.left[2]) if oracle.left else "-"
    row["meteor_right"] = str(oracle.right[2]) if oracle.right else "-"
    queries = [prog.meteor_query(q) for q in prog.queries]
    t0 = time.perf_counter()
    for q in queries:
        oracle.meteor_entails(q)
    row["meteor_query_s"] = time.perf_counter() - t0
    exact = [oracle.holds(a.text(), iv) for a, iv in prog.queries]
    row["true_answers"] = sum(exact)
    return row, exact


def run_chronolog(prog):
    import chronolog

    t0 = time.perf_counter()
    try:
        model = chronolog.reason(prog.vadalog_program(), prog.vadalog_facts())
    except chronolog.ProgramError as e:
        if "horizon" in str(e):
            return {"chronolog_status": "needs horizon"}, None
        raise
    row = {"chronolog_model_s": time.perf_counter() - t0}
    queries = [prog.vadalog_query(q) for q in prog.queries]
    t0 = time.perf_counter()
    answers = [model.holds(q) for q in queries]
    row["chronolog_query_s"] = time.perf_counter() - t0
    return row, answers


def best_of(repeat, run, system):
    """The run with the least model time out of ``repeat``."""
    best = None
    for _ in range(max(1, repeat)):
        row, answers = run()
        t = row.get(f"{system}_model_s")
        if best is None or (t is not None and (best[0].get(f"{system}_model_s") is None or t < best[0][f"{system}_model_s"])):
            best = (row, answers)
        if t is None:  # timeout or needs horizon: no point repeating
            break
    return best


def fmt_s(x):
    return "-" if x is None else f"{x:.3f}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--family", nargs="+", choices=sorted(SIZES), default=["period", "data", "lcm", "twoway"])
    ap.add_argument("--sizes", nargs="+", type=int, help="sizes for every chosen family")
    ap.add_argument("--quick", action="store_true", help="small sizes only")
    ap.add_argument("--timeout", type=float, default=120, help="seconds for MeTeoR's find_periods per program")
    ap.add_argument("--repeat", type=int, default=1, help="runs per system and program; the fastest is reported")
    ap.add_argument("--json", help="append one JSON line per row to this file")
    args = ap.parse_args(argv)

    # warm up both (imports, grammar) so that the first row is not charged for them
    warm = scaled_program("period", 2)
    run_meteor(warm, args.timeout)
    run_chronolog(warm)

    header = (
        f"{'family':<7} {'size':>5} {'facts':>5} {'queries':>7} | {'MeTeoR periods L/R':>18} {'model s':>8} {'query s':>8}"
        f" | {'chronolog model s':>17} {'query s':>8} | {'model ratio':>11} {'query ratio':>11} {'agree':>7}"
    )
    print(header)
    print("-" * len(header))
    failed = False
    for family in args.family:
        sizes = args.sizes or (QUICK if args.quick else SIZES)[family]
        for size in sizes:
            prog = scaled_program(family, size)
            row = {"family": family, "size": size, "facts": len(prog.facts), "queries": len(prog.queries)}
            m, exact = best_of(args.repeat, lambda: run_meteor(prog, args.timeout), "meteor")
            c, answers = best_of(args.repeat, lambda: run_chronolog(prog), "chronolog")
            row.update(m)
            row.update(c)
            if exact is not None and answers is not None:
                wrong = sum(a != b for a, b in zip(exact, answers))
                row["disagreements"] = wrong
                failed |= wrong > 0
                agree = "yes" if not wrong else f"{wrong} no"
            else:
                agree = "-"
            mr = qr = "-"
            if row.get("meteor_model_s") and row.get("chronolog_model_s"):
                mr = f"{row['meteor_model_s'] / row['chronolog_model_s']:.1f}x"
            if row.get("meteor_query_s") and row.get("chronolog_query_s"):
                qr = f"{row['meteor_query_s'] / row['chronolog_query_s']:.1f}x"
            periods = f"{row.get('meteor_left', '?')}/{row.get('meteor_right', '?')}" if exact is not None else row["meteor_status"]
            chron = row.get("chronolog_status") or fmt_s(row.get("chronolog_model_s"))
            print(
                f"{family:<7} {size:>5} {row['facts']:>5} {row['queries']:>7} | {periods:>18} {fmt_s(row.get('meteor_model_s')):>8}"
                f" {fmt_s(row.get('meteor_query_s')):>8} | {chron:>17} {fmt_s(row.get('chronolog_query_s')):>8} | {mr:>11} {qr:>11} {agree:>7}",
                flush=True,
            )
            if args.json:
                with open(args.json, "a") as fh:
                    fh.write(json.dumps(row) + "\n")
    print("\nratio = MeTeoR time / chronolog time (higher: chronolog faster); "
          "agree = chronolog's answers equal the exact unrolling of MeTeoR's periods")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
