"""Four rules over random interval facts: chronolog against hand-written DuckDB SQL.

    python bench/four_rules.py [--facts 40000 500000] [--seed 1] [--repeat 1]
                               [--peer-format parquet|csv] [--chronolog-arg=--engine=columns]

Data (deterministic for ``(facts, seed)``): random ``A(x,y)`` (half of the
facts), ``B(y)`` and ``C(x)`` (a quarter each) with integer ends in
[0, 2000], every kind of end (``[a,b]``, ``[a,b)``, ``(a,b]``, ``(a,b)``,
punctual ``@a``), and enough repetition of the same terms that the input
must be coalesced.  Written once into ``bench/data/four_N_sS/``: the MeTeoR
dialect file ``facts.meteor`` (the input of ``chronolog run``) and the same
facts as one Parquet and one CSV file per predicate in the layout of
``engine/arrow.py`` (the input of the peer).

The program (MeTeoR dialect)::

    D(X):- Diamondminus[0,10]C(X)      a diamond
    E(Y):- Boxminus[0,5]B(Y)           a box
    F(X,Y):- A(X,Y),B(Y)               a join
    G(X,Y):- A(X,Y),D(X)               a join with a derived predicate

The peer is the same four rules written by hand as DuckDB SQL.  An interval
with integer ends is an integer range on a doubled lattice (``2t`` is the
point t, ``2t+1`` the open unit interval after it): ``[a,b)`` is
``[2a, 2b-1]``, ``(a,b]`` is ``[2a+1, 2b]``.  Open and closed ends are then
exact, and coalescing is the usual range merge with window functions: order
by start, running maximum of the end over the preceding rows, a new group
where a start lies beyond it + 1.  A diamond widens the end, a box shrinks
the start, a join intersects.

Both sides run as a whole command in their own subprocess, one after the
other in the same run: chronolog is ``chronolog run program --facts file``
with its standard output written to a file; the peer is a Python process
that imports duckdb, reads the files, reasons and writes one sorted CSV per
output predicate.  The answers of both are then compared as sets (exit
status 1 if they differ).  Reported: wall and CPU seconds, peak resident
memory, the ratio chronolog/DuckDB.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"

PROGRAM = """\
D(X):- Diamondminus[0,10]C(X)
E(Y):- Boxminus[0,5]B(Y)
F(X,Y):- A(X,Y),B(Y)
G(X,Y):- A(X,Y),D(X)
"""

OUTPUTS = {"D": ("x",), "E": ("y",), "F": ("x", "y"), "G": ("x", "y")}
TMAX = 2000


# ---------------------------------------------------------------- the data


def _interval(rnd: random.Random):
    """``(lo, hi, lo_closed, hi_closed)`` with integer ends in [0, TMAX]."""
    lo = rnd.randint(0, TMAX - 1)
    r = rnd.random()
    if r < 0.1:
        return lo, lo, True, True
    hi = min(TMAX, lo + rnd.randint(1, 60))
    r = rnd.random()
    if r < 0.4:
        return lo, hi, True, True
    if r < 0.65:
        return lo, hi, True, False
    if r < 0.85:
        return lo, hi, False, True
    return lo, hi, False, False


def generate(n: int, seed: int = 1):
    """``{pred: [(terms, (lo, hi, lc, hc)), ...]}`` with n facts in all."""
    rnd = random.Random(seed)
    nx = max(10, n // 25)
    ny = max(10, n // 25)
    n_a, n_b = n // 2, n // 4
    n_c = n - n_a - n_b
    xs = [f"x{i}" for i in range(nx)]
    ys = [f"y{i}" for i in range(ny)]
    return {
        "A": [((rnd.choice(xs), rnd.choice(ys)), _interval(rnd)) for _ in range(n_a)],
        "B": [((rnd.choice(ys),), _interval(rnd)) for _ in range(n_b)],
        "C": [((rnd.choice(xs),), _interval(rnd)) for _ in range(n_c)],
    }


def _meteor_interval(lo, hi, lc, hc) -> str:
    if lo == hi:
        return str(lo)
    return f"{'[' if lc else '('}{lo},{hi}{']' if hc else ')'}"


def dataset(n: int, seed: int = 1) -> Path:
    """The directory of the dataset, written on first use."""
    d = DATA / f"four_{n}_s{seed}"
    done = d / "done"
    if done.exists():
        return d
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    d.mkdir(parents=True, exist_ok=True)
    facts = generate(n, seed)
    with open(d / "facts.meteor", "w") as fh:
        for pred, rows in facts.items():
            fh.writelines(f"{pred}({','.join(t)})@{_meteor_interval(*iv)}\n" for t, iv in rows)
    names = {"A": ["x", "y"], "B": ["y"], "C": ["x"]}
    for pred, rows in facts.items():
        cols = {c: pa.array([t[i] for t, _ in rows], pa.string()) for i, c in enumerate(names[pred])}
        for j, c in enumerate(["start", "end"]):
            cols[c] = pa.array([iv[j] for _, iv in rows], pa.int64())
        for j, c in enumerate(["start_closed", "end_closed"], 2):
            cols[c] = pa.array([iv[j] for _, iv in rows], pa.bool_())
        table = pa.table(cols)
        pq.write_table(table, d / f"{pred}.parquet")
        pacsv.write_csv(table, d / f"{pred}.csv")
    (d / "program.meteor").write_text(PROGRAM)
    done.write_text("ok\n")
    return d


# ---------------------------------------------------------------- the peer


def _coalesce(rel: str, keys: str) -> str:
    """SQL: the maximal ranges of ``rel(keys, s, e)`` per key."""
    return f"""(
      WITH m AS (
        SELECT {keys}, s, e,
               max(e) OVER (PARTITION BY {keys} ORDER BY s, e
                            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev
        FROM {rel}),
      g AS (
        SELECT {keys}, s, e,
               sum(CASE WHEN prev IS NULL OR s > prev + 1 THEN 1 ELSE 0 END)
                 OVER (PARTITION BY {keys} ORDER BY s, e ROWS UNBOUNDED PRECEDING) AS grp
        FROM m)
      SELECT {keys}, min(s) AS s, max(e) AS e FROM g GROUP BY {keys}, grp)"""


def peer_sql(d: Path, fmt: str, sources: dict | None = None) -> list:
    """The statements of the peer, in order (each result a table);
    ``sources``: ``{pred: name}`` of relations to read instead of the files
    (Arrow tables registered with DuckDB: bench/api_tables.py)."""
    read = "read_parquet" if fmt == "parquet" else "read_csv_auto"

    def load(pred, keys):
        src = sources[pred] if sources else f"{read}('{d / (pred + '.' + fmt)}')"
        return f"""CREATE TABLE {pred.lower()}0 AS
          SELECT {keys}, 2 * "start" + CASE WHEN start_closed THEN 0 ELSE 1 END AS s,
                         2 * "end" - CASE WHEN end_closed THEN 0 ELSE 1 END AS e
          FROM {src}"""

    return [
        load("A", "x, y"),
        load("B", "y"),
        load("C", "x"),
        f"CREATE TABLE a AS SELECT * FROM {_coalesce('a0', 'x, y')}",
        f"CREATE TABLE b AS SELECT * FROM {_coalesce('b0', 'y')}",
        f"CREATE TABLE c AS SELECT * FROM {_coalesce('c0', 'x')}",
        # diamond-minus [0,10]: the end moves 10 later (20 on the lattice)
        f"CREATE TABLE d AS SELECT * FROM {_coalesce('(SELECT x, s, e + 20 AS e FROM c)', 'x')}",
        # box-minus [0,5] on maximal intervals: the start moves 5 later
        f"CREATE TABLE e AS SELECT * FROM {_coalesce('(SELECT y, s + 10 AS s, e FROM b WHERE s + 10 <= e)', 'y')}",
        "CREATE TABLE f AS SELECT * FROM "
        + _coalesce(
            "(SELECT a.x, a.y, greatest(a.s, b.s) AS s, least(a.e, b.e) AS e FROM a JOIN b ON a.y = b.y"
            " WHERE greatest(a.s, b.s) <= least(a.e, b.e))",
            "x, y",
        ),
        "CREATE TABLE g AS SELECT * FROM "
        + _coalesce(
            "(SELECT a.x, a.y, greatest(a.s, d.s) AS s, least(a.e, d.e) AS e FROM a JOIN d ON a.x = d.x"
            " WHERE greatest(a.s, d.s) <= least(a.e, d.e))",
            "x, y",
        ),
    ]


def _peer_output(pred: str, keys, out: Path) -> str:
    cols = ", ".join(keys)
    return f"""COPY (SELECT {cols}, s // 2 AS "start", ((e + 1) // 2) AS "end",
                     s % 2 = 0 AS start_closed, e % 2 = 0 AS end_closed
              FROM {pred.lower()} ORDER BY {cols}, s) TO '{out / (pred + ".csv")}' (HEADER)"""


def peer_worker(d: Path, fmt: str, out: Path) -> None:
    import duckdb

    con = duckdb.connect()
    con.execute("SET threads TO 1")  # one core each: chronolog is single-threaded
    for stmt in peer_sql(d, fmt):
        con.execute(stmt)
    for pred, keys in OUTPUTS.items():
        con.execute(_peer_output(pred, keys, out))


# ---------------------------------------------------------------- running


def _peak(cmd, stdout_path=None, timeout=None) -> dict:
    """Run cmd in a small wrapper process that reports the child's own rusage."""
    wrapper = (
        "import os,resource,subprocess,sys,time,json;"
        "t=time.perf_counter();"
        "out=open(sys.argv[1],'w');"
        "p=subprocess.run(sys.argv[2:],stdout=out,stderr=subprocess.PIPE,text=True);"
        "w=time.perf_counter()-t;"
        "u=resource.getrusage(resource.RUSAGE_CHILDREN);"
        "print(json.dumps({'wall':w,'cpu':u.ru_utime+u.ru_stime,'rss':u.ru_maxrss*1024,'rc':p.returncode,'stderr':p.stderr[-2000:]}))"
    )
    p = subprocess.run(
        [sys.executable, "-c", wrapper, str(stdout_path or os.devnull), *cmd], capture_output=True, text=True, timeout=timeout
    )
    if p.returncode != 0:
        raise RuntimeError(p.stderr)
    return json.loads(p.stdout)


_LINE = re.compile(r"^(\w+)\(([^)]*)\)@(.*?)\.?$")


def _parse_interval(text: str):
    text = text.strip()
    if text[0] in "[(":
        lo, hi = text[1:-1].split(",")
        return int(lo), int(hi), text[0] == "[", text[-1] == "]"
    t = int(text)
    return t, t, True, True


def chronolog_answers(path: Path) -> set:
    out = set()
    with open(path) as fh:
        for line in fh:
            m = _LINE.match(line.strip())
            if m is None:
                raise ValueError(f"unexpected output line {line!r}")
            pred, args, iv = m.groups()
            if pred in OUTPUTS:
                out.add((pred, tuple(a.strip() for a in args.split(",")), _parse_interval(iv)))
    return out


def peer_answers(out: Path) -> set:
    import csv

    answers = set()
    for pred, keys in OUTPUTS.items():
        with open(out / f"{pred}.csv") as fh:
            for row in csv.DictReader(fh):
                iv = (int(row["start"]), int(row["end"]), row["start_closed"] == "true", row["end_closed"] == "true")
                answers.add((pred, tuple(row[k] for k in keys), iv))
    return answers


def chronolog_cmd(d: Path, extra) -> list:
    exe = Path(sys.executable).with_name("chronolog")
    return [str(exe), "run", str(d / "program.meteor"), "--facts", str(d / "facts.meteor"), *extra]


def compare(n: int, seed: int, fmt: str, extra, timeout=None, check=True) -> dict:
    d = dataset(n, seed)
    with tempfile.TemporaryDirectory(prefix="four_rules_") as tmp:
        tmp = Path(tmp)
        chrono_out = tmp / "chronolog.txt"
        peer_out = tmp / "peer"
        peer_out.mkdir()
        c = _peak(chronolog_cmd(d, extra), chrono_out, timeout)
        if c["rc"] != 0:
            raise RuntimeError(f"chronolog failed: {c['stderr']}")
        p = _peak(
            [sys.executable, __file__, "--worker", "--data-dir", str(d), "--out", str(peer_out), "--peer-format", fmt],
            None,
            timeout,
        )
        if p["rc"] != 0:
            raise RuntimeError(f"the DuckDB peer failed: {p['stderr']}")
        row = {"facts": n, "seed": seed, "peer_format": fmt, "chronolog": c, "duckdb": p}
        for side in (c, p):
            side.pop("stderr", None)
        if check:
            mine, theirs = chronolog_answers(chrono_out), peer_answers(peer_out)
            row["answers"] = len(theirs)
            row["same"] = mine == theirs
            if mine != theirs:
                row["only_chronolog"] = sorted(mine - theirs)[:5]
                row["only_duckdb"] = sorted(theirs - mine)[:5]
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--facts", type=int, nargs="+", default=[40000])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--peer-format", choices=["parquet", "csv"], default="parquet")
    ap.add_argument("--chronolog-arg", action="append", default=[], help="extra argument for chronolog run (repeatable)")
    ap.add_argument("--timeout", type=float, default=None)
    ap.add_argument("--no-check", action="store_true", help="skip the comparison of the answers")
    ap.add_argument("--data-only", action="store_true", help="write the datasets and stop")
    ap.add_argument("--json", default=None, help="append result rows as JSON lines to this file")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--data-dir", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        peer_worker(Path(a.data_dir), a.peer_format, Path(a.out))
        return 0
    if a.data_only:
        for n in a.facts:
            print(dataset(n, a.seed))
        return 0
    ok = True
    print(f"{'facts':>9} {'chronolog s':>12} {'cpu':>7} {'MB':>6} {'duckdb s':>9} {'cpu':>7} {'MB':>6} {'ratio':>6}  same")
    for n in a.facts:
        for _ in range(a.repeat):
            r = compare(n, a.seed, a.peer_format, a.chronolog_arg, a.timeout, not a.no_check)
            c, p = r["chronolog"], r["duckdb"]
            same = r.get("same", "-")
            ok = ok and same is not False
            print(
                f"{n:>9} {c['wall']:>12.2f} {c['cpu']:>7.2f} {c['rss'] / 2**20:>6.0f} "
                f"{p['wall']:>9.2f} {p['cpu']:>7.2f} {p['rss'] / 2**20:>6.0f} {c['wall'] / p['wall']:>6.1f}  {same}",
                flush=True,
            )
            if same is False:
                print("  only in chronolog:", r["only_chronolog"], "\n  only in duckdb:", r["only_duckdb"])
            if a.json:
                with open(a.json, "a") as fh:
                    fh.write(json.dumps(r) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
