"""The LUBM-style stream of the stream-reasoning paper (Stream reasoning in DatalogMTL), its section 7.1: memory of a stream against batch.

    python bench/stream_lubm.py [--facts 100000] [--program nonrec|rec|both]

Temporal LUBM data over [0, 300] (bench/lubm_gen.py) is fed in start-time
order, one time unit per step (push, then the watermark ``advance(t)``).  We
record the facts (maximal intervals) held after every step and compare the
peak with batch materialisation (every fact of ``chronolog.reason`` on the
same data: input plus derived).  The stream's answers, coalesced, are checked
against the batch answers.

With ``--punctual`` every fact holds at its start time point only, as in
the stream-reasoning paper's streams (time points in [0, 300]); by default the generator's
intervals (up to 300 long, 4% unbounded) are kept, and a stream must hold a
fact for as long as its interval lasts.

The programs are the forward-propagating rules of bench/programs/lubm_*.vada:
rules with ``<+>``, ``[+]`` or ``<U>`` in the body (which look into the
future) are left out, as the stream-reasoning paper does by choosing forward-propagating query
fragments.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import chronolog  # noqa: E402
from chronolog.language.facts import read_fact_rows  # noqa: E402
from chronolog.language.timeline import coalesce  # noqa: E402
from chronolog.planner.forward import check_forward  # noqa: E402
from lubm_gen import dataset  # noqa: E402


def forward_rules(path: Path) -> str:
    """The program's rules that a stream can run, as text."""
    kept = []
    for line in path.read_text().splitlines():
        s = line.strip()
        if not s or s.startswith("%"):
            continue
        try:
            check_forward(chronolog.load_program(s))
        except chronolog.ProgramError:
            continue
        kept.append(s)
    return "\n".join(kept)


def run(program: str, facts_path: Path, every: int = 1, punctual: bool = False, emit: str = "pieces") -> dict:
    with facts_path.open() as fh:
        rows = read_fact_rows(fh, str(facts_path))
    if punctual:  # the stream-reasoning paper's streams: each fact at one time point (its start)
        for p, rs in rows.items():
            rows[p] = list({(t, (iv[0], iv[0], True, True)) for t, iv in rs})
    flat = sorted(((iv[0], not iv[2]), p, t, iv) for p, rs in rows.items() for t, iv in rs)
    n_in = len(flat)

    t0 = time.process_time()
    model = chronolog.reason(program, rows)
    batch_cpu = time.process_time() - t0
    batch_facts = sum(r.fact_count() for r in model.store.relations.values())

    s = chronolog.Stream(program, emit=emit)
    emitted = []
    trace = []
    i = 0
    t0 = time.process_time()
    stats_cpu = 0.0
    for t in range(0, 302):
        group: dict = {}
        while i < n_in and flat[i][0] <= (t, False):
            _, p, terms, iv = flat[i]
            group.setdefault(p, []).append((terms, iv))
            i += 1
        s.push_rows(group)
        s.advance(t)
        emitted.extend(s.take())
        if t % every == 0:
            t1 = time.process_time()
            trace.append((t, s.facts_in_memory()))
            stats_cpu += time.process_time() - t1
    group = {}
    while i < n_in:
        _, p, terms, iv = flat[i]
        group.setdefault(p, []).append((terms, iv))
        i += 1
    s.push_rows(group)
    s.close()
    emitted.extend(s.take())
    stream_cpu = time.process_time() - t0 - stats_cpu

    # the stream's answers, coalesced, are the batch answers
    got: dict = {}
    for f in emitted:
        got.setdefault((f.pred, f.terms), []).append(f.interval)
    got = {k: coalesce(v) for k, v in got.items()}
    want2: dict = {}
    for p in s.outputs:
        for terms, iv in model.facts(p):
            want2.setdefault((p, terms), []).append(iv)
    assert got == want2, "stream and batch answers differ"

    return {
        "input facts": n_in,
        "batch facts": batch_facts,
        "stream peak": max(m for _, m in trace),
        "trace": trace,
        "batch cpu": batch_cpu,
        "stream cpu": stream_cpu,
        "answers": sum(len(v) for v in want2.values()),
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--facts", type=int, default=100_000)
    ap.add_argument("--program", default="both")
    ap.add_argument("--punctual", action="store_true", help="each fact at its start time point only (as in the stream-reasoning paper)")
    ap.add_argument("--emit", default="pieces", choices=["pieces", "maximal"], help="Stream(emit=...)")
    a = ap.parse_args(argv)
    vada, _ = dataset(a.facts)
    names = ["nonrec", "rec"] if a.program == "both" else [a.program]
    print("| program | input facts | batch: facts materialised | stream: peak facts in memory | ratio | batch CPU s | stream CPU s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    traces = {}
    for name in names:
        prog = forward_rules(HERE / "programs" / f"lubm_{name}.vada")
        r = run(prog, vada, punctual=a.punctual, emit=a.emit)
        traces[name] = r["trace"]
        print(
            f"| {name} | {r['input facts']} | {r['batch facts']} | {r['stream peak']} | "
            f"{r['batch facts'] / r['stream peak']:.1f}x | {r['batch cpu']:.1f} | {r['stream cpu']:.1f} |",
            flush=True,
        )
    print()
    print("facts in memory after time point t:")
    print("| t | " + " | ".join(names) + " |")
    print("|---:|" + "---:|" * len(names))
    for k in range(0, 302, 25):
        print(f"| {traces[names[0]][k][0]} | " + " | ".join(str(traces[n][k][1]) for n in names) + " |")


if __name__ == "__main__":
    main()
