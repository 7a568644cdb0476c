"""The table of current figures in bench/README.md: run benchmarks, rewrite their rows, check the table.

    python bench/report.py --list                 # the registry: name, command, peer, target
    python bench/report.py --run four_rules ...   # run these benchmarks (one at a time) and rewrite their rows
    python bench/report.py --reparse NAME ...     # rewrite rows from the last saved output of --run
    python bench/report.py --check                # every bench script has a row or is listed as a tool;
                                                  # every row's command names a script that exists

Each benchmark in ``BENCHES`` has a name, the command a user types (run here
with this interpreter, from the repository's root), the peer it is measured
against in the same run, the target an issue set (if any), and a function
that reads chronolog's figure, the peer's figure and their ratio from the
bench's output (its standard output, and the JSON lines of ``--json`` where
the bench writes them).  ``--run`` saves each output under
``bench/data/report/`` (git-ignored) and replaces that benchmark's row, dated
today, in the table between the markers of bench/README.md; the other rows
stay as they are.  A row whose benchmark is not re-run keeps its date.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median
from typing import Callable

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
README = HERE / "README.md"
SAVED = HERE / "data" / "report"
BEGIN = "<!-- figures:begin (written by bench/report.py; edit the registry, not the rows) -->"
END = "<!-- figures:end -->"
COLUMNS = ("benchmark", "command", "peer", "chronolog", "peer's figure", "ratio", "target", "date")


@dataclass
class Figures:
    chronolog: str
    peer: str
    ratio: str
    ok: bool = True  # False: the bench said its answers differ from the peer's


@dataclass
class Bench:
    name: str
    args: str  # the command after ``python``, as a user types it
    peer: str
    read: Callable[[str, list], Figures]
    target: str = ""
    json: bool = False  # the bench takes ``--json FILE`` (JSON lines)
    what: str = ""  # one line for --list
    tags: tuple = field(default_factory=tuple)  # "spark", "long", "clone": left out of --run all

    @property
    def command(self) -> str:
        return "python " + self.args


# ---------------------------------------------------------------- readers


def _ms(x: float) -> str:
    return f"{x * 1000:.1f} ms"


def _s(x: float) -> str:
    return f"{x:.3f} s" if x < 1 else f"{x:.2f} s" if x < 10 else f"{x:.1f} s"


def _x(a: float, b: float) -> str:
    r = a / b
    return f"{r:.2g}x" if r < 10 else f"{r:.0f}x"


def _load_on_cores(out: str) -> str:
    """`` (load L on N cores)`` from a bench's line ``load L on N cores``, else ``""``."""
    load = re.search(r"load ([\d.]+) on (\d+) cores", out)
    return f" (load {load.group(1)} on {load.group(2)} cores)" if load else ""


def _lines(out: str, pattern: str) -> list:
    return [m for m in re.finditer(pattern, out, re.M)]


BENCHES: list[Bench] = []


def bench(**kw):
    def wrap(fn):
        BENCHES.append(Bench(read=fn, **kw))
        return fn

    return wrap


# ------------------------------------------------------------------- registry

@bench(name="four_rules", args="bench/four_rules.py --facts 500000", json=True,
       peer="DuckDB, the rules as hand-written SQL (1 thread, reads Parquet)", target="2x (issue 11)",
       what="a diamond, a box, two joins, coalescing over 500k random interval facts; whole command each side")
def _four_rules(out, rows):
    r = rows[-1]
    c, d = r["chronolog"], r["duckdb"]
    return Figures(f"{_s(c['wall'])} wall, {_s(c['cpu'])} CPU, {c['rss'] / 2**20:.0f} MB",
                   f"{_s(d['wall'])} wall, {_s(d['cpu'])} CPU, {d['rss'] / 2**20:.0f} MB",
                   f"{_x(c['wall'], d['wall'])} wall, {_x(c['cpu'], d['cpu'])} CPU", ok=r.get("same") is not False)


@bench(name="api_tables", args="bench/api_tables.py --facts 500000 --repeat 5",
       peer="DuckDB SQL over the same Arrow tables",
       what="the four rules through the Python API on Arrow tables, outputs as Arrow")
def _api_tables(out, rows):
    m = {k: re.search(rf"^  {k} +best (\S+) s wall / (\S+) s CPU; median (\S+) s", out, re.M) for k in ("chronolog", "duckdb")}
    c, d = (float(m[k].group(3)) for k in ("chronolog", "duckdb"))
    same = re.search(r"the same on every side: (\w+)", out).group(1) == "True"
    return Figures(f"{_s(c)} median call", f"{_s(d)} median call", _x(c, d) + " wall", ok=same)


@bench(name="sensor_readings", args="bench/sensor_readings.py --readings 1000 2000 5000 30000 --repeat 3", json=True,
       peer="engine=\"rows\" and engine=\"columns\" forced (same run, alternating), the faster of the two",
       target="the default within 1.2x of the faster from 1,000 readings",
       what="the sensor recipe (Since, negation, times between minutes) on a pandas frame: the default engine's choice")
def _sensor_readings(out, rows):
    def sizes(key):
        return "; ".join(f"{r['readings'] / 1000:.0f}k {key(r)}" for r in rows)
    return Figures(sizes(lambda r: f"{_s(r['median']['default'])} (first call {_s(r['first']['default'])})"),
                   sizes(lambda r: f"{r['faster']} {_s(r['median'][r['faster']])} (rows {_s(r['median']['rows'])})"),
                   sizes(lambda r: f"{r['ratio']:.2f}x, first call {r['first_ratio']:.2f}x"), ok=all(r["same"] for r in rows))


@bench(name="temporal_reach", args="bench/temporal_reach.py --edges 400000 --repeat 3", json=True,
       peer="DuckDB, the recursion as a recursive CTE (UNION, coalesced; threads = cores; reads Parquet)", target="1.5x (issue 37)",
       what="temporal reachability (a path holds while its edges do) over 400k random interval edges, 2M answers; whole command each side")
def _temporal_reach(out, rows):
    c, d = ({k: median(r[side][k] for r in rows) for k in ("wall", "cpu")} for side in ("chronolog", "duckdb"))
    n = rows[-1].get("answers", 0)
    return Figures(f"{_s(c['wall'])} wall, {_s(c['cpu'])} CPU (median of {len(rows)}; {n:,} answers)",
                   f"{_s(d['wall'])} wall, {_s(d['cpu'])} CPU",
                   f"{c['wall'] / d['wall']:.2f}x wall, {c['cpu'] / d['cpu']:.2f}x CPU", ok=all(r.get("same") is not False for r in rows))


bench(name="hop_counts", args="bench/temporal_reach.py --edges 400000 --hops 4 --repeat 3", json=True,
      peer="DuckDB, the walks counted in a recursive CTE (UNION, coalesced per count; threads = cores; reads Parquet)",
      what="walks of up to 4 edges counted (a recursion that creates values) over temporal_reach's 400k interval edges; "
           "whole command each side")(_temporal_reach)


@bench(name="lubm_meteor", args="bench/compare_meteor.py --facts 100000 --program both --repeat 3 --preload", json=True,
       peer="meteor-reasoner 2.0 (seminaive), input coalesced", target="100x (issue 11)",
       what="temporal LUBM 100k, both programs; each side's libraries imported before its clock; models compared")
def _lubm_meteor(out, rows):
    ch, pe, ra, ok = [], [], [], True
    for r in rows:
        c, m = r["chronolog"], r["meteor"]
        ch.append(f"{r['program']} {_s(c['total'])} wall / {_s(c['total_cpu'])} CPU")
        pe.append(f"{r['program']} {_s(m['total'])} / {_s(m['total_cpu'])}")
        ra.append(f"{r['program']} {r['ratio']:.0f}x faster wall / {r['ratio_cpu']:.0f}x CPU")
        ok = ok and r.get("agree") is True
    return Figures("; ".join(ch), "; ".join(pe), "; ".join(ra) + " (same models)", ok=ok)


@bench(name="lubm_meteor_cold", args="bench/compare_meteor.py --facts 100000 --program both", json=True,
       peer="meteor-reasoner 2.0 (seminaive), input coalesced", target="100x (issue 11)",
       what="as lubm_meteor with chronolog's imports on its clock (a first call in a fresh process)")
def _lubm_meteor_cold(out, rows):
    return _lubm_meteor(out, rows)


@bench(name="lubm_command", args="bench/lubm_command.py --facts 1000000 --program nonrec rec", json=True,
       peer="none (throughput and memory targets)", target="300k facts/s, 150 B/fact (issue 11)",
       what="the whole `chronolog run` on temporal LUBM 1M: facts per second and peak bytes per input fact")
def _lubm_command(out, rows):
    ch = "; ".join(f"{r['program']} {_s(r['wall'])} wall, {r['facts_per_s'] / 1000:.0f}k facts/s, "
                   f"{r['rss'] / 2**20:.0f} MB = {r['bytes_per_fact']:.0f} B/fact" for r in rows)
    return Figures(ch, "-", "-")


@bench(name="csv_facts", args="bench/csv_facts.py --facts 200000 1000000 --repeat 3", json=True,
       peer="the same facts as fact text, as chronolog writes them (same run, alternately)",
       what="`chronolog run --facts FILE.csv` of a CSV of six predicates (as run --format csv writes it) against the fact text file; whole command")
def _csv_facts(out, rows):
    ch = "; ".join(f"{r['rows'] // 1000}k rows {_s(r['csv']['wall'])} wall / {_s(r['csv']['cpu'])} CPU, {r['csv']['rss'] / 2**20:.0f} MB" for r in rows)
    pe = "; ".join(f"{r['rows'] // 1000}k {_s(r['text']['wall'])} wall / {_s(r['text']['cpu'])} CPU, {r['text']['rss'] / 2**20:.0f} MB" for r in rows)
    ra = "; ".join(f"{r['rows'] // 1000}k {_x(r['csv']['wall'], r['text']['wall'])} wall / {_x(r['csv']['cpu'], r['text']['cpu'])} CPU" for r in rows)
    return Figures(ch, pe, ra, ok=all(r["same"] for r in rows))


@bench(name="quoted_terms", args="bench/quoted_terms.py --facts 300000 --read 1000000 --repeat 7", json=True,
       peer="the same facts with bare names (same rules, same run)", target="1.2x bare, 1M facts/s read (issue 37)",
       what="LUBM 300k with quoted IRI terms in a fact file and inside the program, against bare names; whole command; 1M quoted facts read")
def _quoted_terms(out, rows):
    c = next(r for r in rows if r["kind"] == "command")
    rd = next((r for r in rows if r["kind"] == "read"), None)
    b = c["bare"]
    ch = "; ".join(f"{k.replace('_', ' ')} {_s(c[k]['wall'])} wall / {_s(c[k]['cpu'])} CPU" for k in ("quoted", "in_program"))
    ra = "; ".join(f"{k.replace('_', ' ')} {_x(c[k]['wall'], b['wall'])} wall / {_x(c[k]['cpu'], b['cpu'])} CPU" for k in ("quoted", "in_program"))
    if rd is not None:
        q = rd["quoted"]
        ch += f"; read {q['facts_per_s'] / 1e6:.2f}M quoted facts/s"
        ra += f"; read {_x(rd['bare']['wall'], q['wall'])} the bare rate"
    return Figures(ch, f"bare {_s(b['wall'])} wall / {_s(b['cpu'])} CPU", ra, ok=c["same"] is True)


@bench(name="cliffs", args="bench/cliffs.py --rows 200000 --repeat 3", json=True,
       peer="the same program and data without the form (same run, alternating)", target="no input form a user is likely to write slow (issue 37)",
       what="--stats, functions (in an assignment, an aggregate), strings in order and their max, floats beside exact numbers, float times, nulls, negation, dates, 200 predicates, 8 atoms, open ends, big integers, 12 arguments, long strings, a quoted CSV, 200 files, 2,000 and 10,000 predicates: whole command each")
def _cliffs(out, rows):
    ch = "; ".join(f"{r['case']} {_s(r['with']['wall'])} / {_s(r['with']['cpu'])} CPU" for r in rows)
    pe = "; ".join(f"{r['case']} {_s(r['without']['wall'])} / {_s(r['without']['cpu'])} CPU" for r in rows)
    ra = "; ".join(f"{r['case']} {_x(r['with']['cpu'], r['without']['cpu'])} CPU, {_x(r['with']['wall'], r['without']['wall'])} wall"
                   for r in rows)
    load = max(r["load"] for r in rows)
    return Figures(ch, pe, f"{ra} (load up to {load:.1f})", ok=all(r.get("same") is not False for r in rows))


@bench(name="startup", args="bench/startup.py --runs 25 --calls 4 --processes 3", json=True,
       peer="the interpreter alone (python -c pass); the same call warm", target="run 120 ms median, first call 1.5x warm (issue 37)",
       what="`chronolog run` on 10 facts and --help against the interpreter; first calls on 100k rows (CSV, Arrow, pandas, `chronolog run` on a fact file) against warm ones")
def _startup(out, rows):
    r = rows[-1]
    c = r["commands"]
    run, floor, hlp = c["chronolog run (10 facts)"], c["python -c pass"], c["chronolog --help"]
    ms = lambda x: f"{x * 1000:.0f} ms"  # noqa: E731
    ch = f"run {ms(run['median'])} median (CPU {ms(run['cpu'])}), --help {ms(hlp['median'])}"
    pe = f"interpreter {ms(floor['median'])} (CPU {ms(floor['cpu'])})"
    ra = f"run {_x(run['median'], floor['median'])} the interpreter (load {r['load']:.1f})"
    if r.get("calls"):
        cold = ", ".join(f"{k} {_s(v['cold']['first'])}" for k, v in r["calls"].items())
        warm = ", ".join(f"{k} {_s(v['cold']['later'])}" for k, v in r["calls"].items())
        ch += f"; first calls {cold}"
        pe += f"; warm calls {warm}"
        ra += "; first / warm " + ", ".join(f"{k} {v['cold']['ratio']:.1f}x" for k, v in r["calls"].items())
        ra += "; with preload(background=True) " + ", ".join(f"{v['background']['ratio']:.1f}x" for v in r["calls"].values())
        ra += ", the script to its first answer " + ", ".join(
            f"{v['background']['to_first_answer'] / v['cold']['to_first_answer']:.2f}x" for v in r["calls"].values()) + " cold's"
        if all("imported" in v for v in r["calls"].values()):
            ra += "; with its imports done before (cold minus import time, " + ", ".join(
                f"{v['imported']['libraries_s']:.2f} s" for v in r["calls"].values()) + ") " + ", ".join(
                f"{v['imported']['ratio']:.1f}x" for v in r["calls"].values()) + " (CPU " + ", ".join(
                f"{v['imported']['first_cpu'] / v['imported']['later_cpu']:.2f}x" for v in r["calls"].values()) + ")"
    return Figures(ch, pe, ra, ok=not run["heavy_imports"])


@bench(name="meteor_parse", args="bench/meteor_parse.py --rules 20000 --repeat 3", json=True,
       peer="meteor-reasoner 2.0's load_program; the same lines through lark alone (same run)", target="much faster than lark (issue 37)",
       what="20,000 MeTeoR rule lines of JWS simple_shortbreak's shape read: chronolog, lark alone, meteor-reasoner")
def _meteor_parse(out, rows):
    r = rows[-1]
    c, lk, m = r["chronolog"], r["lark"], r["meteor-reasoner"]
    us = lambda x: f"{x['us_per_rule']:.0f} us/rule"  # noqa: E731
    return Figures(f"{_s(c['cpu'])} CPU ({us(c)})",
                   f"meteor-reasoner {_s(m['cpu'])} ({us(m)}); lark alone {_s(lk['cpu'])} ({us(lk)})",
                   f"{_x(m['cpu'], c['cpu'])} faster than meteor-reasoner, {_x(lk['cpu'], c['cpu'])} than lark alone (CPU; load {r['load']:.1f})",
                   ok=r["same"] is True)


@bench(name="vadalog_parse", args="bench/vadalog_parse.py --rules 200 5000 --repeat 5", json=True,
       peer="the same text through lark alone (how every program was read before); lark the library's lalr with cache=True, its parse alone (same run)",
       target="no input form slow (issue 37)",
       what="Temporal Vadalog rules read: generated programs of 200 and 5,000 rules, cliffs' 200 predicates; chronolog, lark alone, lark's own lalr+cache")
def _vadalog_parse(out, rows):
    r = rows[-1]
    progs = r["programs"]
    us = lambda x: f"{x['us_per_rule']:.0f} us/rule"  # noqa: E731
    return Figures("; ".join(f"{p['program']} {_ms(p['chronolog']['cpu'])} CPU ({us(p['chronolog'])})" for p in progs),
                   "; ".join(f"{p['program']} lark {_ms(p['lark']['cpu'])} ({us(p['lark'])}), lark lalr cache parse alone "
                             f"{_ms(p['lark lalr cache']['cpu'])}" for p in progs),
                   "; ".join(f"{p['program']} {_x(p['lark']['cpu'], p['chronolog']['cpu'])} faster than lark, "
                             f"{_x(p['lark lalr cache']['cpu'], p['chronolog']['cpu'])} than its parse alone" for p in progs)
                   + f" (CPU; load {r['load']:.1f})",
                   ok=all(p["same"] is True for p in progs))


@bench(name="executors", args="bench/executors.py bench/programs/lubm_nonrec.vada bench/data/lubm_100000_s1_t300.vada",
       peer="the row executor, same loaded facts",
       what="columnar executor against the row executor, parse excluded (data: written by lubm_meteor)")
def _executors(out, rows):
    t = {m.group(1): float(m.group(2)) + float(m.group(3)) for m in
         _lines(out, r"^(rows|columns) +reason +(\S+) s +rows of the answer +(\S+) s")}
    ok = "same answers: True" in out
    return Figures(f"columns {_s(t['columns'])} (reason + rows of the answer)", f"rows {_s(t['rows'])}",
                   _x(t["columns"], t["rows"]), ok=ok)


@bench(name="timeseries", args="bench/timeseries.py --repeat 7", json=True,
       peer="pandas (read_csv / read_parquet, groupby rolling and resample)",
       target="rolling 5x (issue 11), 3x warm (issue 37)",
       what="20-day rolling sum/mean/min/max and monthly resampling, 5 series x 20,000 days, read included")
def _timeseries(out, rows):
    r = rows[-1]
    ok = all(v == 0 for k, v in r.items() if k.endswith("days_differing"))
    ch = "; ".join(f"{k} API {_s(r[f'{k}/api/wall'])}, Parquet {_s(r[f'{k}/api_pq/wall'])}" for k in ("rolling", "monthly"))
    pe = "; ".join(f"{k} CSV {_s(r[f'{k}/pandas/wall'])}, Parquet {_s(r[f'{k}/pandas_pq/wall'])}" for k in ("rolling", "monthly"))
    ra = "; ".join(f"{k} {r[f'{k}/api/ratio_wall']:.2g}x / {r[f'{k}/api_pq/ratio_wall']:.2g}x wall, "
                   f"{r[f'{k}/api/ratio_cpu']:.2g}x / {r[f'{k}/api_pq/ratio_cpu']:.2g}x CPU" for k in ("rolling", "monthly"))
    return Figures(ch, pe, ra, ok=ok)


@bench(name="readings_ms", args="bench/readings_ms.py --readings 200000 --repeat 3", json=True,
       peer="pandas (read_csv, to_datetime, the spans merged per sensor, to_csv), a script of its own",
       what="200k readings to the millisecond (CSV in UTC, CSV at +01:00, facts in the program): "
            "alerts while a high reading is under a second old; whole commands")
def _readings_ms(out, rows):
    return _against_pandas(rows[-1], ("csv_z", "csv_offset", "program"))


@bench(name="answers_out", args="bench/answers_out.py --readings 200000 --repeat 3", json=True,
       peer="pandas (read_csv, the rows kept, to_csv / to_json lines of the same records), a script of its own",
       what="158k answers of 200k readings written as --format csv and --format json; whole commands")
def _answers_out(out, rows):
    return _against_pandas(rows[-1], ("csv", "json"))


@bench(name="asof_join", args="bench/asof_join.py --trades 1000000 --quotes 200000 --repeat 3", json=True,
       peer="pandas (read_csv, to_datetime, merge_asof by symbol within 10 minutes, to_csv), a script of its own",
       what="each of 1M trades' last quote of 200k (CSV, to the millisecond, on a timeline of minutes): "
            "the recipe's as-of join; whole commands")
def _asof_join(out, rows):
    return _against_pandas(rows[-1], ("asof",))


def _against_pandas(r, forms) -> Figures:
    """The figures of a bench that times each of ``forms`` against pandas,
    whole commands (readings_ms.alternated's medians)."""
    return Figures("; ".join(f"{f} {_s(r[f]['chronolog']['wall'])} wall / {_s(r[f]['chronolog']['cpu'])} CPU" for f in forms),
                   "; ".join(f"{f} {_s(r[f]['pandas']['wall'])} / {_s(r[f]['pandas']['cpu'])}" for f in forms),
                   "; ".join(f"{f} {_x(r[f]['chronolog']['wall'], r[f]['pandas']['wall'])} wall, "
                             f"{_x(r[f]['chronolog']['cpu'], r[f]['pandas']['cpu'])} CPU" for f in forms)
                   + f" (load {r['load']:.1f})", ok=all(r[f]["same"] for f in forms))


@bench(name="timeseries_ema", args="bench/timeseries_ema.py --repeat 3", json=True,
       peer="pandas ewm(span=20, adjust=False)", target="20x (issue 11), 5x (issue 37)",
       what="float EMA over 13,600 days, read and write included, equal to the last bit")
def _timeseries_ema(out, rows):
    r = rows[-1]
    c, p = r["chronolog_s"], r["pandas_s"]
    cc, pc = r.get("chronolog_cpu"), r.get("pandas_cpu")
    if cc is None:  # (output of a version without CPU figures)
        return Figures(_s(c), _s(p), _x(c, p) + " wall (median)", ok=r["differ"] == 0)
    return Figures(f"{_s(c)} wall, {_s(cc)} CPU", f"{_s(p)} wall, {_s(pc)} CPU",
                   f"{_x(c, p)} wall, {_x(cc, pc)} CPU (median)", ok=r["differ"] == 0)


@bench(name="float_means", args="bench/float_means.py --segments 200000 1000000 --repeat 7", json=True,
       peer="the same step by one Python int division per segment (what it replaced); the float sum over the count (rounded twice); pandas' rolling mean",
       target="near the twice-rounded mean (issue 37: no cliff)",
       what="the columns' correctly rounded float mean of a 20-point rolling window, bit-identical to the exact division")
def _float_means(out, rows):
    sizes = [f"{r['segments'] / 1e6:.3g}M" if r["segments"] >= 10**6 else f"{r['segments'] // 1000}k" for r in rows]
    return Figures(", ".join(f"{z} {_ms(r['vectorised_cpu'])}" for z, r in zip(sizes, rows)),
                   "; ".join(f"{z}: Python {_ms(r['python_cpu'])}, twice rounded {_ms(r['twice_rounded_cpu'])}, pandas {_ms(r['pandas_cpu'])}"
                             for z, r in zip(sizes, rows)),
                   "; ".join(f"{z}: {_x(r['vectorised_cpu'], r['python_cpu'])} Python's, {_x(r['vectorised_cpu'], r['twice_rounded_cpu'])} twice rounded's"
                             for z, r in zip(sizes, rows)) + f" (CPU, median; load {rows[-1]['load']:.1f} on 2 cores)")


@bench(name="string_functions", args="bench/string_functions.py --facts 200000 1000000 --repeat 3", json=True,
       peer="Polars' string operations by hand on the same Arrow table; the rows' closures once per distinct value (the path the kernels replaced)",
       what='r(X, Y) :- p(X, S), Y = upper(substr(concat(S, "x"), 1, 4)). on columns, Arrow in and out')
def _string_functions(out, rows):
    sizes = [f"{r['facts'] / 1e6:.3g}M" if r["facts"] >= 10**6 else f"{r['facts'] // 1000}k" for r in rows]
    return Figures(", ".join(f"{z} {_s(r['kernels_cpu'])}" for z, r in zip(sizes, rows)),
                   "; ".join(f"{z}: Polars {_ms(r['polars_cpu'])}, closures {_s(r['closures_cpu'])}" for z, r in zip(sizes, rows)),
                   "; ".join(f"{z}: {_x(r['kernels_cpu'], r['polars_cpu'])} Polars', {_x(r['kernels_cpu'], r['closures_cpu'])} the closures'"
                             for z, r in zip(sizes, rows)) + f" (CPU, median; load {rows[-1]['load']:.1f} on 2 cores)",
                   ok=all(r["same"] for r in rows))


@bench(name="float_wide_sums", args="bench/float_means.py --segments 1000000 --span 6 --repeat 5", json=True,
       peer="the same sums and means on Python ints (the path such columns took before K limbs); pandas' rolling sum and mean",
       target="near the two-limb figure of float_means (issue 37: no cliff)",
       what="the columns' correctly rounded rolling sum and mean (20 points) of readings from 1e-6 to 1e6, K limbs of 32 bits, bit-identical to Python's")
def _float_wide_sums(out, rows):
    r = rows[-1]
    return Figures(f"mean {_ms(r['mean_cpu'])}, sum {_ms(r['sum_cpu'])}",
                   f"Python ints: mean {_ms(r['python_mean_cpu'])}, sum {_ms(r['python_sum_cpu'])}; pandas: mean {_ms(r['pandas_mean_cpu'])}, sum {_ms(r['pandas_sum_cpu'])}",
                   f"mean {_x(r['mean_cpu'], r['python_mean_cpu'])} Python's, sum {_x(r['sum_cpu'], r['python_sum_cpu'])} (CPU, median; load {r['load']:.1f} on 2 cores)")


@bench(name="float_times", args="bench/float_times.py --rows 1000000 --repeat 3",
       peer="Polars' Float64 -> Decimal cast; the same times as int64 / decimal",
       what="the exact conversion of float time points, through every way in")
def _float_times(out, rows):
    def get(label):
        return float(re.search(rf"^  {re.escape(label)} +([\d.]+) s", out, re.M).group(1))
    return Figures(f"float64 Parquet {_s(get('float64 tenths'))}; conversion kernel {_s(get('float_time_pairs'))}",
                   f"decimal128 Parquet {_s(get('decimal128 tenths'))}; Polars cast {_s(get('polars cast Decimal'))}",
                   f"{_x(get('float64 tenths'), get('decimal128 tenths'))} / {_x(get('float_time_pairs'), get('polars cast Decimal'))} CPU")


@bench(name="ownership", args="bench/ownership_bench.py --facts 30000", json=True,
       peer="meteor-reasoner 2.0 (Diamond and Box scenarios)",
       what="the company-ownership scenarios of the Temporal Vadalog paper; models compared")
def _ownership(out, rows):
    ch, pe, ra = [], [], []
    for r in rows:
        c = r["chronolog"]
        ch.append(f"{r['scenario']} {_s(c['total'])}")
        if "meteor" in r and "total" in r["meteor"]:
            pe.append(f"{r['scenario']} {_s(r['meteor']['total'])}")
            ra.append(f"{r['scenario']} {r['ratio']:.0f}x faster wall / {r['ratio_cpu']:.0f}x CPU")
    n = max(r["facts"] for r in rows)
    return Figures(f"{n:,} facts: " + ", ".join(ch), ", ".join(pe), ", ".join(ra),
                   ok=all(r.get("agree", True) for r in rows))


@bench(name="itemporal", args="bench/itemporal.py --facts 10000 100000",
       peer="meteor-reasoner 2.0 (seminaive)",
       what="iTemporal's shapes (diamond, box, since, union, intersection) on iTemporal-shaped data")
def _itemporal(out, rows):
    rs = [m.groups() for m in _lines(out, r"^\| (\w+) \| ([\d,]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+)x \| .*\| (\w+) \|$")]
    n = max(int(r[1].replace(",", "")) for r in rs)
    big = [r for r in rs if int(r[1].replace(",", "")) == n]
    c, m = [float(r[2]) for r in big], [float(r[3]) for r in big]
    return Figures(f"{n:,} facts: {min(c):.2f}-{max(c):.2f} s per family", f"{min(m):.2f}-{max(m):.2f} s",
                   "MeTeoR / chronolog: " + ", ".join(f"{r[0]} {r[4]}x" for r in big), ok=all(r[5] == "yes" for r in rs))


@bench(name="itemporal_published", args="bench/itemporal_published.py --itemporal $ITEMPORAL",
       peer="meteor-reasoner 2.0 where it runs them (06-09)", tags=("clone",),
       what="iTemporal's published programs and data as published (needs a clone of iTemporal)")
def _itemporal_published(out, rows):
    rs = [m.groups() for m in _lines(out, r"^\| (\d\d_\w+) \| (\d+) \| [\d,]+ \| ([\d.]+) \| [\d,]+ \| (\S+)")]
    both = [(n, float(c), float(m)) for n, size, c, m in rs if m != "-" and size == "1000" and "(" not in m]
    c_all = sum(float(c) for _, _, c, _ in rs)
    sc, sm = sum(c for _, c, _ in both), sum(m for _, _, m in both)
    return Figures(f"all {len(rs)} runs {_s(c_all)} CPU; 06-09 at size 1000 {_s(sc)}", f"06-09 at size 1000 {_s(sm)}",
                   f"{sm / sc:.1f}x faster (CPU, 06-09 at 1000)")


@bench(name="periodic", args="bench/compare_periodic.py --quick", json=True,
       peer="meteor-reasoner 2.0 find_periods + fact_entailment",
       what="entailment far away (10^6) over models that repeat forever")
def _periodic(out, rows):
    rs = [r for r in rows if r.get("meteor_model_s") and r.get("chronolog_model_s")]
    ratios = [r["meteor_model_s"] / r["chronolog_model_s"] for r in rs]
    c = [r["chronolog_model_s"] for r in rs]
    m = [r["meteor_model_s"] for r in rs]
    return Figures(f"model {min(c):.3f}-{max(c):.3f} s ({len(rs)} programs, 4 families)", f"model {min(m):.3f}-{max(m):.2f} s",
                   f"{min(ratios):.0f}-{max(ratios):.0f}x faster", ok=all(r.get("disagreements", 0) == 0 for r in rows))


@bench(name="repeating_columns", args="bench/repeating_columns.py --keys 20000 --repeat 2", json=True,
       peer="the same program on rows (engine=\"rows\"), same run, alternating",
       what="models that repeat forever on 20k keys: a recurrence under auto (its attempts by their size) against rows")
def _repeating_columns(out, rows):
    return _auto_against_rows(rows, "", False, ("forward", "backward"))


def _auto_against_rows(rows, note: str, named: bool, on_columns) -> Figures:
    """Per program, the median CPU of auto and of the rows (``note`` before
    the load; ``named``: each ratio named); ok where every model is the
    same and the programs ``on_columns`` ran there."""
    cpu = {r["program"]: (median(r["columns_cpu"]), median(r["rows_cpu"])) for r in rows}

    def each(side):
        return ", ".join(f"{p} {_s(v[side])}" for p, v in cpu.items())

    load = max(r["load"] for r in rows)
    return Figures(f"median CPU {each(0)} ({note}load up to {load:.0f})", f"median CPU {each(1)}",
                   ", ".join((f"{p} " if named else "") + _x(r, c) for p, (c, r) in cpu.items()) + " faster (CPU)",
                   ok=all(r["same"] for r in rows) and all(r["ran"] == ["columns"] for r in rows if r["program"] in on_columns))


@bench(name="through_time", args="bench/through_time.py --keys 10000 --horizon 300 --repeat 3", json=True,
       peer="the same program on rows (engine=\"rows\"), same run, alternating",
       what="recursions through time that are not recurrences (box, two-predicate cycle, Since) and a time capture, auto against rows")
def _through_time(out, rows):
    return _auto_against_rows(rows, "10,000 keys, 20,000-300,000 facts; ", True, [r["program"] for r in rows])


@bench(name="chase", args="bench/chase.py --companies 200000 --repeat 3", json=True,
       peer="the same command on rows (--engine rows); the same shape without existential variables on the default engine (same run, alternating)",
       what="existential rules over 200,000 companies and 100,000 ownership facts in one file (a controller and an auditor each, known or a labelled null): whole command each side")
def _chase(out, rows):
    r = rows[-1]
    a, w, p = r["auto"], r["rows"], r["plain"]
    return Figures(f"{_s(a['wall'])} wall, {_s(a['cpu'])} CPU (default engine; {r['answers']:,} answers, load {r['load']:.1f})",
                   f"rows {_s(w['wall'])} wall, {_s(w['cpu'])} CPU; without nulls {_s(p['wall'])} wall, {_s(p['cpu'])} CPU",
                   f"{_x(a['cpu'], w['cpu'])} the rows' CPU, {_x(a['cpu'], p['cpu'])} without nulls'", ok=r["same"])


@bench(name="python_facts", args="bench/python_facts.py --facts 20000 200000 --repeat 5", json=True,
       peer="the same facts as an Arrow table (same run, alternating); the same tuples through the checks of any row",
       target="no input form a user is likely to write slow (issue 37)",
       what="facts given from Python as lists of tuples: whole, Fraction and datetime ends")
def _python_facts(out, rows):
    med = [(r["facts"], r["ends"], {f: median(v) for f, v in r["cpu"].items()}) for r in rows]

    def each(form):
        return "; ".join(f"{n // 1000}k {ends} {_s(m[form])}" for n, ends, m in med)

    return Figures(f"tuples {each('tuples')} (CPU, median)", f"Arrow {each('arrow')}; tuples row by row {each('row by row')}",
                   "; ".join(f"{n // 1000}k {ends} {_x(m['tuples'], m['arrow'])} Arrow's, {_x(m['tuples'], m['row by row'])} row by row's"
                             for n, ends, m in med) + f" (load up to {max(r['load'] for r in rows):.1f})",
                   ok=all(r["same"] for r in rows))


@bench(name="queries", args="bench/queries.py --facts 200000 --queries 50", json=True,
       peer="pandas: a boolean filter on the model's frame (to_pandas once, untimed)",
       target="no form a user is likely to write slow (issue 37)",
       what="queries naming a string or a number against a model of 200,000 facts, on rows and columns")
def _queries(out, rows):
    def label(r):
        return f"{r['engine']} by {r.get('by', 'name')}"

    def each(key, first=False):
        return "; ".join(f"{label(r)} {median(r[key][1:] if not first else r[key]):.2f} ms" for r in rows)

    return Figures(f"median query {each('query_ms')} (first: "
                   + ", ".join(f"{label(r)} {r['query_ms'][0]:.0f} ms" for r in rows) + ")",
                   f"median filter {each('pandas_ms', True)}",
                   ", ".join(f"{label(r)} {_x(median(r['query_ms'][1:]), median(r['pandas_ms']))}" for r in rows),
                   ok=all(r["same"] for r in rows))


@bench(name="proofs", args="bench/proofs.py --facts 1000000 --proofs 20", json=True,
       peer="the same model reasoned with explain=True (every derivation recorded as it ran), its proofs",
       target="no form a user is likely to write slow (issue 37)",
       what="proofs of facts of a transitive closure over 1M ownership facts: reason, the first proof, 20 more")
def _proofs(out, rows):
    r = rows[-1]

    def figures(s):
        return (f"reason {_s(r['run_' + s])} + first proof {_s(r['first_' + s])}, then median {_s(median(r['rest_' + s]))}"
                f" (slowest {_s(max(r['rest_' + s]))})")

    return Figures(figures("ours"), figures("theirs"),
                   f"reason and first proof {_x(r['run_ours'] + r['first_ours'], r['run_theirs'] + r['first_theirs'])}; "
                   f"later proofs {_x(median(r['rest_ours']), median(r['rest_theirs']))} (load {r['load']:.1f})",
                   ok=r["same"])


@bench(name="periodic_scaling", args="bench/periodic_scaling.py",
       peer="none (growth with the period, the data, interacting periods)",
       what="the cost of reaching a model that repeats forever")
def _periodic_scaling(out, rows):
    period = [float(m.group(1)) for m in _lines(out, r"^ +(?:1|10|100|1000) +([\d.]+) +\d+ +\S+ +True$")]
    size = [(int(m.group(1)), float(m.group(2))) for m in _lines(out, r"^ +(\d+) +([\d.]+) +\d+ +([\d.]+)$")]
    two = [m.groups() for m in _lines(out, r"^ +(\d+) +([\d.]+) +([\d.]+) +([\d.]+) +[\d.]+ +(True|False)$")]
    n, t2, t1, _, same = two[-1]
    return Figures(f"period 1-1000: {min(period):.2f}-{max(period):.2f} s; {size[-1][0]:,} keys {_s(size[-1][1])} "
                   f"({size[-1][1] / size[0][1]:.0f}x the time of {size[0][0]:,}); two-way at {int(n):,} keys {_s(float(t2))}",
                   f"the same model as a forward recursion {_s(float(t1))}", f"two-way {_x(float(t2), float(t1))}",
                   ok=same == "True" and len(period) == 4)


@bench(name="gap_cuts", args="bench/gap_cuts.py",
       peer="the same command uncut (its gaps' threshold raised)",
       what="readers of a fact repeating every 2 over data 10^6 and 10^7 units apart; whole command each side")
def _gap_cuts(out, rows):
    t = {(int(m.group(1)), m.group(2)): (float(m.group(3)), float(m.group(4)), int(m.group(5)))
         for m in _lines(out, r"^ +(\d+) +(cut|uncut) +([\d.]+) +([\d.]+) +(\d+)$")}
    spans = sorted({span for span, _ in t})
    def one(span, side):
        wall, _, mb = t[(span, side)]
        return f"{span:.0e} {_s(wall)}, {mb} MB".replace("e+0", "e")
    return Figures("; ".join(one(n, "cut") for n in spans), "; ".join(one(n, "uncut") for n in spans),
                   "; ".join(f"{n:.0e} {_x(t[(n, 'cut')][0], t[(n, 'uncut')][0])} wall".replace("e+0", "e") for n in spans),
                   ok="same answers: False" not in out and len(t) == 2 * len(spans))


@bench(name="merge_strategies", args="bench/merge_strategies.py",
       peer="chronolog's other merge strategies and placements",
       what="coalescing eagerly, lazily and at the end over daily pieces")
def _merge_strategies(out, rows):
    t: dict = {}
    for m in _lines(out, r"^(\w+) +(always|earliest|minimal) +(blocking|streaming) +(> ?\d+|[\d.]+) "):
        v = m.group(4)
        t.setdefault(m.group(1), {})[(m.group(2), m.group(3))] = float("inf") if v.startswith(">") else float(v)
    ch = ", ".join(f"{p} {_s(c[('always', 'blocking')])}" for p, c in t.items())
    pe = ", ".join(f"{p} {_s(min(v for k, v in c.items() if k != ('always', 'blocking')))}" for p, c in t.items())
    ra = ", ".join(f"{p} {_x(c[('always', 'blocking')], min(v for k, v in c.items() if k != ('always', 'blocking')))}"
                   for p, c in t.items())
    ok = "same answer under every configuration: False" not in out
    return Figures("default (always, blocking): " + ch, "best other configuration: " + pe, ra, ok=ok)


@bench(name="long_series", args="bench/long_series.py --points 20000",
       peer="none (guards against quadratic probes)",
       what="20,000 intervals of one atom under a join, Since, Until, negation and a box")
def _long_series(out, rows):
    t = [(m.group(1).strip(), float(m.group(2))) for m in _lines(out, r"^(\w[\w ]*?) +(\d+\.\d+) +\d+$")]
    return Figures(", ".join(f"{n} {_s(x)}" for n, x in t), "-", "-")


@bench(name="stream_cooling", args="bench/stream_cooling.py --points 500",
       peer="none (Laser's cooling benchmark)", target="10 us per atom (issue 11)",
       what="`temp` at 200-800 atoms per time point through the stream API, windows 1-80")
def _stream_cooling(out, rows):
    us = [float(m.group(1)) for m in _lines(out, r"^\| \d+ \| \d+ \| \d+ \| ([\d.]+) \|")]
    return Figures(f"{min(us):.1f}-{max(us):.1f} us CPU per atom (windows 1-80, 200-800 atoms per point)", "-", "-")


@bench(name="stream_between", args="bench/stream_cooling.py --points 300 --rates 200,800 --windows 1,80 --between",
       peer="the same stream on whole time points (same run, alternating, best of 3)",
       what="the cooling stream with every time a third of a unit later (exact fractions: timeline.Point on rows)")
def _stream_between(out, rows):
    rs = [m.groups() for m in _lines(out, r"^\| \d+ \| \d+ \| \d+ \| ([\d.]+) \| ([\d.]+) \| ([\d.]+)x \| (True|False) \|")]
    whole, between, ratio = ([float(r[i]) for r in rs] for i in range(3))
    return Figures(f"{min(between):.1f}-{max(between):.1f} us CPU per atom", f"{min(whole):.1f}-{max(whole):.1f} us",
                   f"{min(ratio):.2f}-{max(ratio):.2f}x", ok=all(r[3] == "True" for r in rs))


@bench(name="stream_corrections", args="bench/stream_corrections.py --points 300 --rates 200,800 --windows 1,20,80",
       peer="the same stream append-only (same run)", target="2x the append-only stream's per-atom cost (issue 39)",
       what="the cooling stream with 1% of a time point's atoms retracted every 10 points (Stream.retract)")
def _stream_corrections(out, rows):
    rs = [m.groups() for m in _lines(out, r"^\| \d+ \| \d+ \| \d+ \| ([\d.]+) \| ([\d.]+) \| ([\d.]+)x \|")]
    plain, fixed, ratio = ([float(r[i]) for r in rs] for i in range(3))
    load = re.search(r"load ([\d.]+) on (\d+) cores", out)
    where = f" (load up to {load.group(1)} on {load.group(2)} cores)" if load else ""
    return Figures(f"{min(fixed):.1f}-{max(fixed):.1f} us CPU per atom with corrections",
                   f"{min(plain):.1f}-{max(plain):.1f} us append-only", f"{min(ratio):.2f}-{max(ratio):.2f}x{where}")


@bench(name="stream_lubm", args="bench/stream_lubm.py --facts 100000 --program both",
       peer="batch reason() on the same data (memory held)",
       what="temporal LUBM as a stream: peak facts held against batch materialisation")
def _stream_lubm(out, rows):
    rs = [m.groups() for m in _lines(out, r"^\| (nonrec|rec) \| (\d+) \| (\d+) \| (\d+) \| ([\d.]+)x \| ([\d.]+) \| ([\d.]+) \|")]
    return Figures("stream, peak held: " + ", ".join(f"{r[0]} {int(r[3]):,} facts ({r[6]} s CPU)" for r in rs),
                   "batch: " + ", ".join(f"{int(r[2]):,} facts ({r[5]} s CPU)" for r in rs),
                   ", ".join(f"{r[0]} {1 / float(r[4]):.2f}x" for r in rs) + " the facts held")


@bench(name="retract_lubm", args="bench/retract_lubm.py --facts 1000000 --program nonrec rec --repeat 5",
       peer="reason() from scratch on the default executor (columns: the session's) in the same process",
       target="1% at most 10%, 0.01% at most 1% of scratch (issue 39)",
       what="Reasoner.retract of 1% and 0.01% of temporal LUBM's input facts, the model maintained (DRed over intervals)")
def _retract_lubm(out, rows):
    rs = [m.groups() for m in _lines(out, r"^\| (nonrec|rec) \| ([\d.]+)% \(([\d,]+)\) \| ([\d.]+) \| ([\d.-]+) \| ([\d.]+) \| "
                                          r"([\d.-]+)%? \| ([\d.]+)% \| ([\d.]+) \| (\w+) \| ([\d.-]+) \| ([\w/]+) \| ([\d. ]+) \|")]
    where = _load_on_cores(out)
    on_rows = [r for r in rs if r[4] != "-"]
    return Figures(
        "; ".join(f"{r[0]} {r[1]}% {_s(float(r[3]))} by {r[11]}" + (f" (maintenance {_s(float(r[10]))})" if r[10] != "-" else "")
                  + f", repeats {', '.join(_s(float(x)) for x in r[12].split())}" for r in rs)
        + f"; first update {', '.join(_s(float(r[8])) for r in rs[::2])}" + where,
        "; ".join(f"{r[0]} " + (f"rows {_s(float(r[4]))}, " if r[4] != "-" else "") + f"default {_s(float(r[5]))}" for r in rs[::2]),
        "; ".join(f"{r[0]} {r[1]}%: " + (f"{r[6]}% of rows, " if on_rows else "") + f"{r[7]}% of default" for r in rs),
        ok=all(r[9] == "yes" for r in rs),
    )


@bench(name="retract_read", args="bench/retract_read.py --facts 1000000 --program nonrec rec --repeat 7",
       peer="the general path: the lines read as rows, gathered per atom, then encoded (same run, alternately)",
       what="a retraction of 1% and 0.01% of temporal LUBM's lines read into frames coded by the model's dictionaries")
def _retract_read(out, rows):
    rs = [m.groups() for m in _lines(out, r"^\| (nonrec|rec) \| ([\d.]+)% \(([\d,]+)\) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+)x \| (\w+) \|")]
    where = _load_on_cores(out)
    return Figures(
        "; ".join(f"{r[0]} {r[1]}% {r[3]} ms" for r in rs) + where,
        "; ".join(f"{r[0]} {r[1]}% {r[4]} ms" for r in rs),
        "; ".join(f"{r[0]} {r[1]}% {r[5]}x" for r in rs) + " CPU",
        ok=all(r[6] == "yes" for r in rs),
    )


@bench(name="table_updates", args="bench/table_updates.py --rows 1000000 --repeat 3",
       peer="reason() from scratch on the same table (same process)",
       what="Reasoner.add and retract of 3 readings to a model over 1M readings given as a pandas table (int, float, distinct float values; "
            "count: a count per sensor)")
def _table_updates(out, rows):
    rs = [m.groups() for m in _lines(out, r"^\| (\w+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| "
                                          r"([\d.]+)x \| (.+?) \| (yes|NO) \|")]
    where = _load_on_cores(out)
    return Figures(
        "; ".join(f"{r[0]}: first add {_s(float(r[3]))}, add {_s(float(r[4]))}, first retract {_s(float(r[5]))}, "
                  f"retract {_s(float(r[6]))} CPU" for r in rs) + where,
        "; ".join(f"{r[0]} {_s(float(r[1]))}" for r in rs),
        "; ".join(f"{r[0]} first add {r[7]}x, add {_x(float(r[4]), float(r[1]))}" for r in rs),
        ok=all(r[9] == "yes" for r in rs),
    )


@bench(name="hypothetical", args="bench/hypothetical_bench.py",
       peer="reason() over the stream so far, at every time point",
       what="hypothetical answers: the online step against recomputation")
def _hypothetical(out, rows):
    rs = [(m.group(1).strip(), float(m.group(2)), float(m.group(3))) for m in
          _lines(out, r"^(.+?) +facts +\d+ +online +([\d.]+) s .*recompute each point +([\d.]+) s")]
    return Figures("online " + ", ".join(f"{n} {_s(o)}" for n, o, _ in rs), "recompute " + ", ".join(_s(b) for _, _, b in rs),
                   ", ".join(_x(o, b) for _, o, b in rs) + " CPU")


@bench(name="spark_sensors", args="bench/spark_sensors.py --sensors 5000 --readings 100 --repeat 5 --results arrow",
       json=True, peer="the embedded engine (same Parquet); local[1]", target="2x embedded (issue 36)", tags=("spark",),
       what="keyed sensors 500k: windows and negation per sensor, Spark local[2] and local[1] against one process")
def _spark_sensors(out, rows):
    emb = [float(x) for x in re.findall(r"([\d.]+) s \(cpu", re.search(r"embedded, one process: (.*)", out).group(1))]
    e_best, e_med = min(emb), median(emb[1:] or emb)
    side = {r["side"]: r for r in rows}
    ok = "same answers as the embedded model: False" not in out
    ch = "; ".join(f"{m} best {_s(r['best'])}, median {_s(r['median'])}" for m, r in sorted(side.items()))
    ra = "; ".join(f"{m} {_x(r['best'], e_best)} best / {_x(r['median'], e_med)} median" for m, r in sorted(side.items()))
    return Figures(ch, f"embedded best {_s(e_best)}, median {_s(e_med)}", ra, ok=ok)


@bench(name="spark_sensors_5m", args="bench/spark_sensors.py --sensors 50000 --readings 100 --repeat 3 --results arrow --masters local[2]",
       json=True, peer="the embedded engine (same Parquet)", target="2x embedded at 500k (issue 36): the fixed cost amortised",
       tags=("spark", "long"),
       what="spark_sensors at 5M readings (50,000 sensors), local[2]: how a call's fixed cost amortises with the data")
def _spark_sensors_5m(out, rows):
    return _spark_sensors(out, rows)


@bench(name="spark_ownership", args="bench/spark_ownership.py --facts 1000000 --check 1000000", json=True,
       peer="the embedded engine (same Parquet, read and write included)", target="3x embedded (issue 36)",
       tags=("spark", "long"),
       what="company control over 1M ownership edges in Spark rounds (no key), local[2], session start excluded")
def _spark_ownership(out, rows):
    r = rows[-1]
    run = r["runs"][0]
    e = r["embedded"]
    path = {"relational": "in rounds"}.get(run["path"], run["path"])
    cpu = run["driver_cpu_s"] + run["jvm_cpu_s"]
    e_cpu = e.get("cpu_s")  # (None: an output from before the embedded side reported its CPU)
    return Figures(f"{run['master']} {_s(run['total_s'])} wall, {_s(cpu)} CPU ({path}, first run in a fresh JVM, "
                   f"load {run['load'][0]:.0f}), driver peak {run['driver_peak_mb']:.0f} MB",
                   f"embedded {_s(e['embedded_s'])} wall" + (f", {_s(e_cpu)} CPU" if e_cpu else "") + f", peak {e['peak_mb']:.0f} MB",
                   f"{_x(run['total_s'], e['embedded_s'])} wall" + (f", {_x(cpu, e_cpu)} CPU" if e_cpu else ""),
                   ok=r.get("same_model") is True)


@bench(name="spark_ownership_100k", args="bench/spark_ownership.py --facts 100000 --check 100000", json=True,
       peer="the embedded engine (same Parquet, read and write included)", tags=("spark",),
       what="as spark_ownership at 100k edges (small enough that it runs in one Spark task, not in rounds)")
def _spark_ownership_100k(out, rows):
    return _spark_ownership(out, rows)


@bench(name="spark_ownership_marginal",
       args="bench/spark_ownership.py --facts 100000 1000000 --check --repeat 2 --conf spark.chronolog.oneTaskBytes=-1", json=True,
       peer="the embedded engine (same Parquet, read and write included)", target="marginal CPU 2x (issue 36)",
       tags=("spark", "long"),
       what="company control in Spark rounds at 100k and 1M edges, as many rounds at both: the marginal CPU per edge "
            "(the fixed costs of a run and of a round cancel out), in a fresh JVM and in a warm one (the JIT's warm-up left out)")
def _spark_ownership_marginal(out, rows):
    figures = next(r for r in rows if "marginal_us_per_edge" in r)
    m, warm = figures["marginal_us_per_edge"], figures.get("marginal_us_per_edge_warm")
    sizes = [r for r in rows if "facts" in r]
    load = max(x for r in sizes for x in r["runs"][0]["load"])
    cpu = lambda r: r["driver_cpu_s"] + r["jvm_cpu_s"]  # noqa: E731
    lo, hi = m["between"]
    split = lambda f: ", ".join(f"{k} {f['threads'][k]:.1f}" for k in ("task", "jit", "gc"))  # noqa: E731
    mine = (f"{m['spark']:.1f} us CPU per edge, {lo:,} -> {hi:,} (rounds {m['rounds'][0]} and {m['rounds'][1]}; "
            + ", ".join(f"{r['facts']:,}: {_s(cpu(r['runs'][0]))} CPU" for r in sizes) + f"; JVM threads {split(m)} us; load up to {load:.0f})")
    ratio = f"{_x(m['spark'], m['embedded'])} marginal CPU"
    if warm:
        mine += f"; warm JVM {warm['spark']:.1f} us ({split(warm)} us)"
        ratio += f"; warm {_x(warm['spark'], warm['embedded'])}"
    return Figures(mine, f"{m['embedded']:.2f} us CPU per edge (" + ", ".join(f"{r['facts']:,}: {_s(r['embedded']['cpu_s'])}" for r in sizes) + ")",
                   ratio, ok=all(r.get("same_model") is True for r in sizes))


@bench(name="spark_reach", args="bench/spark_reach.py --edges 10000 100000 200000 --forms doubled linear", json=True,
       peer="the embedded engine (same Parquet, read and write included); the closure linear on Spark (same run)",
       target="3x embedded, marginal CPU 2x (issue 36)",
       tags=("spark",),
       what="temporal reachability (bench/temporal_reach.py) in Spark rounds, local[2], session start excluded, the "
            "closure doubled and linear; marginal CPU per input edge between the two sizes")
def _spark_reach(out, rows):
    sizes = [r for r in rows if "edges" in r]
    big = next((r for r in sizes if r["edges"] == 100_000), sizes[-1])  # the size
    s, e = big["spark"], big["embedded"]
    forms = big.get("forms", ["linear"])  # (an output from before the forms: linear only)
    load = max(r["load"] for r in sizes)
    lo, hi = sizes[0]["edges"], sizes[-1]["edges"]
    mrow = next((r for r in rows if "marginal_us_per_edge" in r), None)
    m = mrow["marginal_us_per_edge"] if mrow else None
    mine = (f"{big['edges']:,} edges, {forms[0]}: {_s(s['total_s'])} wall, {_s(s['cpu_s'])} CPU ({s['rounds']} rounds, "
            f"first run in a fresh JVM, load {load:.0f})")
    peer = f"{_s(e['total_s'])} wall, {_s(e['cpu_s'])} CPU"
    ratio = f"{_x(s['total_s'], e['total_s'])} wall, {_x(s['cpu_s'], e['cpu_s'])} CPU"
    for form in forms[1:]:
        o = big[f"spark_{form}"]
        peer += f"; Spark {form} {_s(o['total_s'])} wall, {_s(o['cpu_s'])} CPU ({o['rounds']} rounds)"
        ratio += f" ({form}: {_x(o['total_s'], e['total_s'])} wall, {_x(o['cpu_s'], e['cpu_s'])} CPU)"
    if m:
        resolved = m["embedded"] > 0  # else the embedded side's difference is within its runs' spread
        rounds = mrow.get("rounds", {})
        per = lambda k: f"{m[k]:.0f} us CPU per edge" + (f" (rounds {'/'.join(map(str, rounds[k]))})" if k in rounds else "")  # noqa: E731
        mine += f"; marginal {per('spark')} ({lo:,} -> {hi:,})"
        peer += f"; marginal {m['embedded']:.1f} us" if resolved else "; marginal below this run's resolution"
        ratio += f"; marginal {_x(m['spark'], m['embedded'])}" if resolved else "; marginal not resolved"
        for form in forms[1:]:
            peer += f"; Spark {form} marginal {per(f'spark_{form}')}"
            if resolved:
                ratio += f" ({form}: {_x(m[f'spark_{form}'], m['embedded'])})"
    return Figures(mine, peer, ratio, ok=all(r["same_model"] for r in sizes))


def _sides_at_largest(out: str) -> tuple:
    """spark_aggregate.py's JSON lines: the largest size, each side's wall
    seconds at it, and whether every model matched."""
    lines = [json.loads(x) for x in out.splitlines() if x.startswith("{")]
    n = max(x["facts"] for x in lines)
    w = {x["side"]: x["wall"] for x in lines if x.get("facts") == n and "side" in x}
    return n, w, all(x["same_model"] for x in lines if "same_model" in x)


@bench(name="spark_aggregate", args="bench/spark_aggregate.py --facts 100000", tags=("spark",),
       peer="the same call on the driver; the embedded engine",
       what="aggregation, Since and time grouping with no key: rounds against the driver path")
def _spark_aggregate(out, rows):
    n, w, ok = _sides_at_largest(out)
    return Figures(f"{n:,} facts: rounds {_s(w['relational'])}", f"driver {_s(w['driver'])}, embedded {_s(w['embedded'])}",
                   f"{_x(w['relational'], w['driver'])} the driver, {_x(w['relational'], w['embedded'])} embedded", ok=ok)


def _rounds_against_one_task(out, rows):
    """spark_aggregate.py's rounds against one task and the embedded engine, at its largest size."""
    n, w, ok = _sides_at_largest(out)
    return Figures(f"{n:,} facts: rounds {_s(w['relational'])}", f"one task {_s(w['one task'])}, embedded {_s(w['embedded'])}",
                   f"{_x(w['relational'], w['one task'])} one task, {_x(w['relational'], w['embedded'])} embedded", ok=ok)


# programs that went to one Spark task and now run in the rounds: (name, facts, --program, what)
for _name, _facts, _program, _what in (
    ("spark_float_sums", 100000, "float_sums",
     "sums, means, products and sets of floats with no key: rounds (the engine's fold per segment) against one task"),
    ("spark_exact_means", 20000, "exact_means",
     "a mean of integers read by later rules (a threshold, arithmetic with 1/3), exact, with no key: rounds against one task"),
    ("spark_fraction_folds", 20000, "fraction_folds",
     "sums of means (fractions) over companies and investors, max and mod of a mean, exact, with no key: rounds against one task"),
    ("spark_divisions", 100000, "divisions",
     "quotients of integers that are not whole in assignments and a condition, with no key: the rounds stop on "
     "the run's integers and run again exact, against one task"),
    ("spark_confined", 1000000, "confined",
     "a recursion through time with no horizon that the data confine, with no key: rounds (the confining facts "
     "read before the second round) against one task"),
):
    bench(name=_name, args=f"bench/spark_aggregate.py --facts {_facts} --program {_program} --sides 'one task' relational",
          tags=("spark",), peer="the same call in one Spark task (where it ran before); the embedded engine", what=_what)(
        _rounds_against_one_task)


@bench(name="spark_jobs", args="bench/spark_jobs.py --repeat 3 --paths rounds driver", tags=("spark",),
       peer="the embedded engine on the same programs",
       what="Spark jobs and wall per small call (golden examples and program shapes): rounds and driver paths")
def _spark_jobs(out, rows):
    got = {}
    for m in _lines(out, r"^total (\w+(?: task)?): ([\d.]+) jobs, ([\d.]+) s wall ([\d.]+) s CPU \(embedded ([\d.]+) s\) "
                         r"over (\d+) programs"):
        got[m.group(1)] = (float(m.group(2)), float(m.group(3)), float(m.group(5)), int(m.group(6)), float(m.group(4)))
    r, d = got["rounds"], got["driver"]
    n = r[3]
    load = re.search(r"^program .* load ([\d.]+)$", out, re.M)  # (the machine's load when the run began)
    return Figures(f"{n} programs: rounds {r[0] / n:.1f} jobs, {_s(r[1] / n)} wall, {_s(r[4] / n)} CPU per call; "
                   f"driver {d[0] / n:.1f} jobs, {_s(d[1] / n)}"
                   + (f" (load {load.group(1)})" if load else ""),
                   f"embedded {_ms(r[2] / n)} per call", f"rounds {_x(r[1], r[2])}, driver {_x(d[1], d[2])}",
                   ok="the same answers as the embedded engine" in out)


@bench(name="spark_calendar", args="bench/spark_calendar.py --legs 100000 --master local[2]", tags=("spark",),
       peer="the same call refused by the rounds (one Spark task)",
       what="dates, arithmetic and a constraint with no key: rounds against the path the rounds' refusal takes")
def _spark_calendar(out, rows):
    w: dict = {}
    for m in _lines(out, r"^(\w+(?: task)?) +legs=(\d+) wall=([\d.]+)s driver_cpu=([\d.]+)s python_peak=(\d+)MB"):
        w.setdefault(m.group(1), []).append((float(m.group(3)), int(m.group(5))))
    other = next(k for k in w if k != "relational")
    r, d = min(w["relational"]), min(w[other])
    return Figures(f"rounds {_s(r[0])}, driver Python peak {r[1]} MB", f"{other} {_s(d[0])}, peak {d[1]} MB", _x(r[0], d[0]),
                   ok="the same answers on both sides" in out)


@bench(name="spark_conversion", args="bench/spark_conversion.py --facts 1000000", tags=("spark",),
       peer="the reasoning itself (conversion against reasoning)",
       what="Spark -> Arrow -> engine -> Arrow -> Spark, phase by phase")
def _spark_conversion(out, rows):
    m = re.search(r"conversion total ([\d.]+) s, reasoning ([\d.]+) s", out)
    c, r = float(m.group(1)), float(m.group(2))
    return Figures(f"conversion {_s(c)} (Spark -> Arrow -> engine -> Arrow -> Spark)", f"reasoning {_s(r)}", _x(c, r))


@bench(name="spark_source_schema", args="bench/spark_source_schema.py --facts 1000000", tags=("spark",),
       peer="parsing every file (what schema() did before)",
       what="the chronolog data source's schema inference from a sample")
def _spark_source_schema(out, rows):
    m = re.search(r"every file ([\d.]+) s CPU, a sample of \d+ facts ([\d.]+) s CPU; same schema: (\w+)", out)
    a, b = float(m.group(1)), float(m.group(2))
    return Figures(f"sample {_s(b)} CPU", f"every file {_s(a)} CPU", _x(b, a), ok=m.group(3) == "True")

# ---------------------------------------------------------------- machinery

# Scripts in bench/ that are not benchmarks with a peer: data generators,
# shared helpers, and diagnostics that break one side's time or memory down
# (they measure where chronolog's time goes, not how it compares).
TOOLS = {
    "lubm_gen.py": "generator: temporal LUBM facts (both dialects)",
    "ownership_gen.py": "generator: temporal company-ownership graphs",
    "sides.py": "helper: sides of a benchmark as child processes called in turns",
    "report.py": "this table",
    "test_bench_lubm.py": "pytest-benchmark of LUBM 10k (chronolog alone)",
    "first_call.py": "diagnostic: a first reason() call's CPU by phase against later calls",
    "memory_phases.py": "diagnostic: where a run's peak resident memory goes, phase by phase",
    "reader_cpu.py": "diagnostic: CPU and page faults of the fact reader alone",
    "frame_paths.py": "design study: each interval operation of engine/columns in numpy (code_frames.py) and in polars, 1k-5M rows",
    "column_kernels.py": "design study: join/coalesce kernels in Polars, pyarrow+numpy and DuckDB (no chronolog)",
    "shared_lowering.py": "design study: one lowering for columns and Spark, our own tree against narwhals and numpy",
    "spark_chase.py": "design study: the rounds' restricted chase against one Spark task (models equal up to null renaming)",
}


def by_name() -> dict:
    return {b.name: b for b in BENCHES}


def run(b: Bench, timeout: float | None) -> tuple[str, list]:
    SAVED.mkdir(parents=True, exist_ok=True)
    out_file, json_file = SAVED / f"{b.name}.out", SAVED / f"{b.name}.json"
    json_file.unlink(missing_ok=True)
    if "$ITEMPORAL" in b.args and not os.environ.get("ITEMPORAL"):
        raise SystemExit(f"{b.name}: set ITEMPORAL to a copy of github.com/kglab-tuwien/iTemporal")
    argv = [sys.executable] + [os.path.expandvars(x) for x in shlex.split(b.args)]
    if b.json:
        argv += ["--json", str(json_file)]
    print(f"== {b.name}: {b.command}", flush=True)
    t = time.perf_counter()
    p = subprocess.run(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
    out_file.write_text(p.stdout)
    print(p.stdout[-3000:], flush=True)
    print(f"== {b.name}: exit {p.returncode} after {time.perf_counter() - t:.0f} s", flush=True)
    if p.returncode != 0:
        raise SystemExit(f"{b.name} failed (exit {p.returncode}); output in {out_file.relative_to(ROOT)}")
    return saved(b)


def saved(b: Bench) -> tuple[str, list]:
    out_file, json_file = SAVED / f"{b.name}.out", SAVED / f"{b.name}.json"
    out = out_file.read_text()
    rows = []
    if json_file.exists():
        text = json_file.read_text()
        try:
            rows = [json.loads(text)]  # one JSON document
        except json.JSONDecodeError:
            rows = [json.loads(x) for x in text.splitlines() if x.strip()]  # JSON lines
    return out, rows


def row(b: Bench, f: Figures, date: str) -> str:
    cells = [b.name, f"`{b.command}`", b.peer, f.chronolog, f.peer, f.ratio, b.target, date]
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def table_rows(text: str) -> tuple[int, int, dict]:
    try:
        i, j = text.index(BEGIN), text.index(END)
    except ValueError:
        raise SystemExit(f"{README.relative_to(ROOT)}: the markers of the table are missing")
    rows = {}
    for line in text[i + len(BEGIN) : j].splitlines():
        if line.startswith("| ") and not line.startswith("| benchmark ") and not line.startswith("|---"):
            rows[line.split(" | ")[0][2:].strip()] = line
    return i, j, rows


def rewrite(new: dict) -> None:
    text = README.read_text()
    i, j, rows = table_rows(text)
    rows.update(new)
    order = [b.name for b in BENCHES]
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += [rows[n] for n in order if n in rows]
    lines += [rows[n] for n in rows if n not in order]  # kept for --check to report
    README.write_text(text[: i + len(BEGIN)] + "\n" + "\n".join(lines) + "\n" + text[j:])


def check() -> int:
    text = README.read_text()
    _, _, rows = table_rows(text)
    problems = []
    names = by_name()
    scripts = {p.name for p in HERE.glob("*.py")}
    covered = {b.args.split()[0].removeprefix("bench/") for b in BENCHES}
    for s in sorted(scripts - covered - set(TOOLS)):
        problems.append(f"bench/{s}: no benchmark in the registry and not listed as a tool")
    for t in sorted(set(TOOLS) - scripts):
        problems.append(f"bench/{t}: listed as a tool but missing")
    for b in BENCHES:
        if b.name not in rows:
            problems.append(f"{b.name}: no row in the table")
        if not (ROOT / b.args.split()[0]).exists():
            problems.append(f"{b.name}: {b.args.split()[0]} does not exist")
    for n, line in rows.items():
        if n not in names:
            problems.append(f"row {n}: not in the registry")
        elif f"`{names[n].command}`" not in line:
            problems.append(f"row {n}: its command differs from the registry's ({names[n].command})")
        m = re.search(r"`python (bench/\S+\.py)", line)
        if not m or not (ROOT / m.group(1)).exists():
            problems.append(f"row {n}: its command names no existing script")
    for p in problems:
        print(p)
    print(f"{len(rows)} rows, {len(BENCHES)} benchmarks, {len(TOOLS)} tools: " + ("ok" if not problems else f"{len(problems)} problems"))
    return 1 if problems else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", nargs="+", metavar="NAME", help="run these (or 'all': every one not tagged spark, long or clone)")
    ap.add_argument("--reparse", nargs="+", metavar="NAME", help="rewrite these rows from the last saved output")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--timeout", type=float, default=None, help="seconds per benchmark")
    a = ap.parse_args(argv)
    names = by_name()
    if a.list:
        for b in BENCHES:
            tags = f" [{', '.join(b.tags)}]" if b.tags else ""
            print(f"{b.name}{tags}: {b.command}\n    peer: {b.peer}; target: {b.target or '-'}\n    {b.what}")
        return 0
    if a.check:
        return check()
    chosen = a.run or a.reparse
    if not chosen:
        ap.error("one of --run, --reparse, --check, --list")
    if chosen == ["all"]:
        chosen = [b.name for b in BENCHES if not b.tags]
    unknown = [n for n in chosen if n not in names]
    if unknown:
        ap.error(f"unknown benchmarks: {', '.join(unknown)} (--list)")
    today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    status = 0
    for n in chosen:
        b = names[n]
        out, rows = run(b, a.timeout) if a.run else saved(b)
        date = today if a.run else datetime.datetime.fromtimestamp(
            (SAVED / f"{b.name}.out").stat().st_mtime, datetime.timezone.utc).date().isoformat()
        f = b.read(out, rows)
        if not f.ok:
            print(f"{n}: the answers differ from the peer's; row not written")
            status = 1
            continue
        rewrite({n: row(b, f, date)})
        print(f"{n}: {f.chronolog} | {f.peer} | {f.ratio}")
    return status


if __name__ == "__main__":
    sys.exit(main())
