"""Input forms a user is likely to write, each against the same shape
without it: the whole ``chronolog run`` command, side by side in one run
(issue 37: no input form a user is likely to write should be slow).

    python bench/cliffs.py [--rows 200000] [--repeat 3] [--cases stats function ...]
                           [--engine columns] [--json FILE]

The data: ``--rows`` facts ``p(name, val)@[s, e]`` in a bound CSV file
(names ``n0 .. n4999``, values 0 .. 1000, as issue 37's measurement), and
variants of it for the cases that change the data (floats beside integers,
binary floats, a float beside an integer count, times off the integer grid, labelled nulls, dates, quoted cells,
ends valid until further notice in Parquet and CSV, gzipped, JSON Lines), and fact
files of the same draws in the forms users write (JSON records, open and infinite ends,
negative and 64-bit-overflowing integers, decimal times, 12 arguments,
80-character strings, 200 files, 2,000 and 10,000 predicates with a rule each, a
recursion around 2,000 predicates, 3,000 recursive rules of one constant each).  Each case is a pair
of commands, ``with`` (the form) and ``without`` (the same program and
data without it); each runs ``--repeat`` times, the pair alternating and
the order flipping every round, and the median wall and CPU seconds of the
child (all threads) are reported with their ratio; the two outputs are
compared where the case says they should be equal (``--stats``).  The
machine's load average is printed before and after: compare the two sides
of one run, not runs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from pathlib import Path
from statistics import median

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from four_rules import _peak  # noqa: E402  (one way to measure a child process)

DATA = HERE / "data" / "cliffs"
BIND = '@bind("p","csv","","{file}"). @timeMapping("p",2,3).\n'
FLOAT_BIND = '@bind("p","csv","","{file}"). @mapping("p",1,"val","float"). @timeMapping("p",2,3).\n'
FLOAT_INT_BIND = '@bind("p","csv","","{file}"). @mapping("p",1,"val","float"). @timeMapping("p",3,4).\n'
ARITH = "q(N, Y) :- p(N, V), Y = V * 2 + 1.\n"


def _write(path: Path, lines) -> Path:
    if not path.exists():
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "w") as f:
            f.writelines(lines)
        os.replace(tmp, path)
    return path


def gzipped(path: Path) -> Path:
    """``path`` gzipped beside it (``NAME.gz``), as pandas' ``to_csv`` writes ``.csv.gz``."""
    import gzip

    out = path.with_name(path.name + ".gz")
    if not out.exists():
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_bytes(gzip.compress(path.read_bytes(), 6))
        os.replace(tmp, out)
    return out


def json_lines(path: Path) -> Path:
    """The rows of the CSV ``path`` as JSON Lines beside it (``NAME.jsonl``),
    one object a row, as pandas' ``to_json(orient="records", lines=True)``
    writes a table: the numbers as numbers."""
    import csv
    import json

    def lines():
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                yield json.dumps({k: v if k == "name" else int(v) for k, v in row.items()}) + "\n"

    return _write(path.with_suffix(".jsonl"), lines())


def fact_records(path: Path) -> Path:
    """The facts of the fact file ``path`` (``p(name,val)@[s,e]`` lines) as
    the JSON records ``run --format json`` writes (``NAME.jsonl``)."""
    import json
    import re

    def lines():
        with open(path) as f:
            for line in f:
                name, v, s, e = re.match(r"p\((\w+),(\d+)\)@\[(\d+),(\d+)\]", line).groups()
                rec = {"pred": "p", "terms": [name, int(v)], "start": int(s), "end": int(e),
                       "start_closed": True, "end_closed": True, "text": line.strip()}
                yield json.dumps(rec) + "\n"

    return _write(path.with_suffix(".jsonl"), lines())


def csv_rows(n: int, value=str, time=str, seed: int = 1, name="n{}".format, header="name,val,s,e\n"):
    rnd = random.Random(seed)
    yield header
    for _ in range(n):
        s = rnd.randint(0, 1000)
        yield f"{name(rnd.randint(0, 4999))},{value(rnd.randint(0, 1000))},{time(s)},{time(s + rnd.randint(1, 50))}\n"


def data(n: int, kind: str = "ints") -> Path:
    """The CSV of ``n`` rows of ``kind`` (cached under bench/data/cliffs)."""
    DATA.mkdir(parents=True, exist_ok=True)
    path = DATA / f"p_{n}_{kind}.csv"
    if kind == "ints":
        return _write(path, csv_rows(n))
    if kind == "mixed":  # every tenth value written as a float: 7.0 beside 7
        return _write(path, csv_rows(n, value=lambda v: f"{v}.0" if v % 10 == 0 else str(v)))
    if kind == "floats":
        return _write(path, csv_rows(n, value=lambda v: f"{v}.5"))
    if kind == "binary_floats":  # values of three decimals, most of them distinct, read as binary floats (FLOAT_BIND)
        row = iter(range(n))
        return _write(path, csv_rows(n, value=lambda v: f"{v}.{next(row) * 37 % 1000:03d}"))
    if kind == "float_times":  # times of three decimals, off the integer grid
        return _write(path, csv_rows(n, time=lambda t: f"{t}.{t * 37 % 1000:03d}"))
    if kind == "quoted":  # strings and the header quoted, as many exporters write them
        return _write(path, csv_rows(n, name='"n{}"'.format, header='"name","val","s","e"\n'))
    if kind == "decimals":  # values of two decimals, most of them distinct (prices)
        row = iter(range(n))
        return _write(path, csv_rows(n, value=lambda v: f"{v}.{next(row) * 37 % 100:02d}"))
    if kind == "distinct_names":  # a name of its own on every row (ids), the same draws otherwise
        ids = iter(range(n))
        return _write(path, csv_rows(n, name=lambda _: f"id{next(ids)}"))
    if kind in ("dated_ms", "dated_minutes"):  # date-times to the millisecond, most distinct (or the same draws in whole minutes)
        import datetime

        base = datetime.datetime(2024, 3, 1)
        cell = iter(range(2 * n))
        ms = (lambda t: next(cell) * 7919 % 60_000) if kind == "dated_ms" else (lambda t: 0)
        return _write(path, csv_rows(n, time=lambda t: (base + datetime.timedelta(minutes=t, milliseconds=ms(t))).isoformat(timespec="milliseconds")))
    if kind == "float_ints":  # a float of three decimals (most distinct) and an integer count beside it
        row = iter(range(n))
        return _write(path, csv_rows(n, value=lambda v: f"{v}.{next(row) * 37 % 1000:03d},{v % 97}", header="name,val,cnt,s,e\n"))
    if kind == "dates":
        import datetime

        day = datetime.date(2020, 1, 1)
        return _write(path, csv_rows(n, time=lambda t: (day + datetime.timedelta(days=t)).isoformat()))
    raise ValueError(kind)


def parquet(n: int, ongoing: bool) -> Path:
    """The ``ints`` CSV as a Parquet file, every tenth end null where
    ``ongoing`` (facts valid until further notice: an open ``valid_to``)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    path = DATA / f"p_{n}_{'ongoing' if ongoing else 'ends'}.parquet"
    if not path.exists():
        table = pcsv.read_csv(data(n))
        if ongoing:
            table = table.set_column(3, "e", pa.array([None if i % 10 == 3 else v for i, v in enumerate(table["e"].to_pylist())], pa.int64()))
        pq.write_table(table, path)
    return path


def facts_file(n: int, nulls: bool) -> Path:
    """``n`` facts ``p(name, val)@[s,e]`` in a fact file, every tenth name a labelled null."""
    DATA.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(1)

    def lines():
        for i in range(n):
            s = rnd.randint(0, 1000)
            name = f"_:n{i % 5000}" if nulls and i % 10 == 0 else f"n{rnd.randint(0, 4999)}"
            yield f"p({name},{rnd.randint(0, 1000)})@[{s},{s + rnd.randint(1, 50)}]\n"

    return _write(DATA / f"p_{n}_{'nulls' if nulls else 'names'}.facts", lines())


def fact_lines(n: int, kind: str) -> Path:
    """``n`` facts of ``p`` in a fact file, of a form a user may write
    (``kind``), each line from the same random draws as ``p_{n}_names``."""
    DATA.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(1)

    def interval(i, s, e):
        if kind == "open_ends":  # a tenth from -inf, a tenth to +inf, the others open on one or both sides
            return f"(-inf,{e}]" if i % 10 == 0 else f"[{s},+inf)" if i % 10 == 5 else f"({s},{e})" if i % 2 else f"[{s},{e})"
        if kind == "float_times":
            return f"[{s}.{s * 37 % 1000:03d},{e}.{e * 37 % 1000:03d}]"
        return f"[{s},{e}]"

    def lines():
        for i in range(n):
            s, name, v = rnd.randint(0, 1000), rnd.randint(0, 4999), rnd.randint(0, 1000)
            e = s + rnd.randint(1, 50)
            if kind == "wide":  # 12 arguments
                args = f"n{name},{v}," + ",".join(f"c{(name * 7 + k) % 97}" for k in range(10))
            elif kind == "long_strings":  # quoted strings of 80 characters
                args = f'"{"x" * 72}-n{name:05d}",{v}'
            elif kind == "big_ints":  # negative values, and every third beyond 64 bits
                args = f"n{name},{(v - 500) * 10**15 + (7 if v % 3 else 10**20)}"
            elif kind == "decimals":  # prices of two decimals, most of them distinct
                args = f"n{name},{v}.{i * 37 % 100:02d}"
            else:
                args = f"n{name},{v}"
            yield f"p({args})@{interval(i, s, e)}\n"

    return _write(DATA / f"p_{n}_{kind}.facts", lines())


def split_files(path: Path, k: int) -> list:
    """The lines of ``path`` cut into ``k`` files of consecutive lines."""
    lines = path.read_text().splitlines(keepends=True)
    per = -(-len(lines) // k)
    return [_write(DATA / f"{path.stem}_{j}_of_{k}.facts", lines[j * per : (j + 1) * per]) for j in range(k)]


def small_predicates(n: int, k: int) -> tuple:
    """The same ``n`` rows as ``k`` predicates ``p0 .. p{k-1}`` with a rule each, and as one."""
    DATA.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(1)
    rows = [(rnd.randint(0, k - 1), rnd.randint(0, 4999), rnd.randint(0, 1000), rnd.randint(0, 1000), rnd.randint(1, 50)) for _ in range(n)]
    many = _write(DATA / f"many_{n}_{k}.facts", (f"p{j}(n{a},{v})@[{s},{s + d}]\n" for j, a, v, s, d in rows))
    one = _write(DATA / f"one_{n}_{k}.facts", (f"p(n{a},{v})@[{s},{s + d}]\n" for j, a, v, s, d in rows))
    return many, one


def many_rules(k: int) -> str:
    """The program of ``k`` predicates with a rule each (bench/vadalog_parse.py reads it too)."""
    return "".join(f"q{j}(N, Y) :- p{j}(N, V), Y = V * 2 + 1.\n" for j in range(k))


def chain(n: int, width: int) -> Path:
    """``width`` predicates ``e0 .. e{width-1}`` of ``n / width`` edges each, a chain's links."""
    DATA.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(1)
    per = n // width
    nodes = max(per // 2, 1)

    def lines():
        for j in range(width):
            for _ in range(per):
                s = rnd.randint(0, 1000)
                yield f"e{j}(n{rnd.randint(0, nodes - 1)},n{rnd.randint(0, nodes - 1)})@[{s},{s + rnd.randint(20, 200)}]\n"

    return _write(DATA / f"chain_{n}_{width}.facts", lines())


def cases(n: int) -> dict:
    """name -> (what, with: (program text, args), without: (program text, args))."""
    ints = data(n).name
    out = {
        "stats": ("--stats on the arithmetic rule", (BIND.format(file=ints) + ARITH, ["--stats"]), (BIND.format(file=ints) + ARITH, [])),
        "function": ("Y = upper(N) against Y = V * 2 + 1", (BIND.format(file=ints) + "q(N, Y) :- p(N, V), Y = upper(N).\n", []),
                     (BIND.format(file=ints) + ARITH, [])),
        "sqrt": ("Y = sqrt(V) against Y = V * 2 + 1", (BIND.format(file=ints) + "q(N, Y) :- p(N, V), Y = sqrt(V).\n", []),
                 (BIND.format(file=ints) + ARITH, [])),
        "string_order": ('N < "n2500" against V < 500', (BIND.format(file=ints) + 'q(N, V) :- p(N, V), N < "n2500".\n', []),
                         (BIND.format(file=ints) + "q(N, V) :- p(N, V), V < 500.\n", [])),
        "aggregate_function": ("S = sum(strlen(N)) against S = sum(V * 2)",
                               (BIND.format(file=ints) + "m(N, S) :- p(N, V), S = sum(strlen(N)).\n", []),
                               (BIND.format(file=ints) + "m(N, S) :- p(N, V), S = sum(V * 2).\n", [])),
        "string_max": ("S = max(N) (strings) against S = max(V)", (BIND.format(file=ints) + "m(S) :- p(N, V), S = max(N).\n", []),
                       (BIND.format(file=ints) + "m(S) :- p(N, V), S = max(V).\n", [])),
        "product": ("P = prod(V) (folded per segment by the rows' function) against P = sum(V)",
                    (BIND.format(file=ints) + "m(N, P) :- p(N, V), P = prod(V).\n", []),
                    (BIND.format(file=ints) + "m(N, P) :- p(N, V), P = sum(V).\n", [])),
        "sets": ("S = munion(V) (a set per segment) against S = max(V)",
                 (BIND.format(file=ints) + "m(N, S) :- p(N, V), S = munion(V).\n", []),
                 (BIND.format(file=ints) + "m(N, S) :- p(N, V), S = max(V).\n", [])),
        "exact_float": ("Y = V / 3 + 0.5 (an exact number meets a float) against Y = V / 3 + 1",
                        (BIND.format(file=ints) + "q(N, Y) :- p(N, V), Y = V / 3 + 0.5.\n", []),
                        (BIND.format(file=ints) + "q(N, Y) :- p(N, V), Y = V / 3 + 1.\n", [])),
        "float_meets_int": ("Y = V * 2 + C (a float column meets an integer column) against Y = V * 2 + V",
                            (FLOAT_INT_BIND.format(file=data(n, "float_ints").name) + "q(N, Y) :- p(N, V, C), Y = V * 2 + C.\n", []),
                            (FLOAT_INT_BIND.format(file=data(n, "float_ints").name) + "q(N, Y) :- p(N, V, C), Y = V * 2 + V.\n", [])),
        "lars": ("the LARS dialect, a window over ticks (q(N, V) :- [5] <> p(N, V)), against the same window in Vadalog",
                 (BIND.format(file=ints) + "q(N, V) :- [5] <> p(N, V).\n", ["--dialect", "lars"]),
                 (BIND.format(file=ints) + "q(N, V) :- <->[0,5] p(N, V).\n", [])),
        "mixed_numbers": ("values 7.0 beside 7 (equal numbers of two types) against integers only",
                          (BIND.format(file=data(n, "mixed").name) + ARITH, []), (BIND.format(file=ints) + ARITH, [])),
        "float_times": ("times with three decimals against integer times",
                        (BIND.format(file=data(n, "float_times").name) + "q(N, V) :- <->[0,5] p(N, V).\n", []),
                        (BIND.format(file=ints) + "q(N, V) :- <->[0,5] p(N, V).\n", [])),
        "float_compare": ("binary floats against the decimal 500.25 (compared exactly) against the integer 500",
                          (FLOAT_BIND.format(file=data(n, "binary_floats").name) + "q(N, V) :- p(N, V), V > 500.25.\n", []),
                          (FLOAT_BIND.format(file=data(n, "binary_floats").name) + "q(N, V) :- p(N, V), V > 500.\n", [])),
        "interval_terms": ("ends of maximal intervals as terms and a head placed on them (times with three decimals) against plain rules",
                           (BIND.format(file=data(n, "float_times").name) + "w(N, S, E) :- p(N, V)@[S, E].\nq(N)@[S, E] :- w(N, S, E).\n", []),
                           (BIND.format(file=data(n, "float_times").name) + "w(N, V) :- p(N, V).\nq(N) :- w(N, V).\n", [])),
        "nulls": ("every tenth name a labelled null, against names (fact files)",
                  ("q(N, Y) :- p(N, V), Y = V * 2 + 1.\n", ["--facts", str(facts_file(n, True))]),
                  ("q(N, Y) :- p(N, V), Y = V * 2 + 1.\n", ["--facts", str(facts_file(n, False))])),
        "negation": ("not r(N) (2,500 names) against the join r(N)",
                     (BIND.format(file=ints) + "r(N) :- p(N, V), V < 2.\nq(N, V) :- p(N, V), not r(N).\n", []),
                     (BIND.format(file=ints) + "r(N) :- p(N, V), V < 2.\nq(N, V) :- p(N, V), r(N).\n", [])),
        "dated_ms": ('date-times to the millisecond on @timeGranularity("minutes") against the same draws in whole minutes',
                     ('@timeGranularity("minutes").\n' + BIND.format(file=data(n, "dated_ms").name) + "q(N, V) :- <->[0,5] p(N, V).\n", []),
                     ('@timeGranularity("minutes").\n' + BIND.format(file=data(n, "dated_minutes").name) + "q(N, V) :- <->[0,5] p(N, V).\n", [])),
        "dates": ('dates, @timeGranularity("days"), a monthly sum, against numbers and /\\[30]',
                  ('@timeGranularity("days").\n' + BIND.format(file=data(n, "dates").name)
                   + "m(N, S) :- /\\[months] p(N, V), S = sum(V).\n", []),
                  (BIND.format(file=ints) + "m(N, S) :- /\\[30] p(N, V), S = sum(V).\n", [])),
    }
    many, one = small_predicates(n, 200)
    out["small_predicates"] = ("200 predicates with a rule each against one predicate and one rule (the same facts)",
                               (many_rules(200), ["--facts", str(many)]),
                               ("q(N, Y) :- p(N, V), Y = V * 2 + 1.\n", ["--facts", str(one)]))
    out["small_aggregates"] = ("200 predicates with an aggregate each against one predicate and one (the same facts)",
                               ("".join(f"m{j}(N, S) :- p{j}(N, V), S = sum(V).\n" for j in range(200)), ["--facts", str(many)]),
                               ("m(N, S) :- p(N, V), S = sum(V).\n", ["--facts", str(one)]))
    wide = chain(n, 8)
    out["wide_rule"] = ("a chain of 8 atoms against a chain of 2 (the same 8 predicates given)",
                        ("w(A, I) :- " + ", ".join(f"e{j}({chr(65 + j)}, {chr(66 + j)})" for j in range(8)) + ".\n", ["--facts", str(wide)]),
                        ("w(A, C) :- e0(A, B), e1(B, C).\n", ["--facts", str(wide)]))
    names = facts_file(n, False)
    for kind, what in (("open_ends", "intervals from -inf, to +inf, open on one or both sides, against closed ones"),
                       ("big_ints", "negative values, every third beyond 64 bits, against values 0..1000"),
                       ("decimals", "values of two decimals, 100,000 distinct, against values 0..1000"),
                       ("float_times", "fact-file times with three decimals against integer times")):
        rule = "q(N, V) :- <->[0,5] p(N, V).\n" if kind == "float_times" else ARITH
        out[f"{kind}_facts" if kind == "float_times" else kind] = (what, (rule, ["--facts", str(fact_lines(n, kind))]), (rule, ["--facts", str(names)]))
    out["wide"] = ("12 arguments against 2 (2.7x the bytes; the rule reads two)",
                   ("q(N, Y) :- p(N, V, A, B, C, D, E, F, G, H, I, J), Y = V * 2 + 1.\n", ["--facts", str(fact_lines(n, "wide"))]),
                   (ARITH, ["--facts", str(names)]))
    out["long_strings"] = ("quoted strings of 80 characters against names of 5 (4.3x the bytes)",
                           (ARITH, ["--facts", str(fact_lines(n, "long_strings"))]), (ARITH, ["--facts", str(names)]))
    pq_bind = '@bind("p","parquet","","{file}"). @timeMapping("p",2,3).\n'
    out["ongoing"] = ("a Parquet file whose every tenth end is null (valid until further notice) against ends on every row",
                      (pq_bind.format(file=parquet(n, True).name) + ARITH, []), (pq_bind.format(file=parquet(n, False).name) + ARITH, []))
    ongoing_csv = _write(DATA / f"p_{n}_ongoing.csv", (line if i == 0 or i % 10 != 4 else line.rsplit(",", 1)[0] + ",+inf\n"
                                                        for i, line in enumerate(csv_rows(n))))
    out["ongoing_csv"] = ("a CSV file whose every tenth end is +inf against ends on every row",
                          (BIND.format(file=ongoing_csv.name) + ARITH, []), (BIND.format(file=ints) + ARITH, []))
    empty_csv = _write(DATA / f"p_{n}_empty_ends.csv", (line if i == 0 or i % 10 != 4 else line.rsplit(",", 1)[0] + ",\n"
                                                       for i, line in enumerate(csv_rows(n))))
    out["empty_ends_csv"] = ("a CSV file whose every tenth end is empty (pandas' to_csv of a missing valid_to) against ends on every row",
                             (BIND.format(file=empty_csv.name) + ARITH, []), (BIND.format(file=ints) + ARITH, []))
    out["gzip_csv"] = ("the CSV file gzipped (pandas' to_csv to .csv.gz) against the plain file",
                       (BIND.format(file=gzipped(DATA / ints).name) + ARITH, []), (BIND.format(file=ints) + ARITH, []))
    out["json_lines"] = ('the table as JSON Lines (@bind("p", "json", ...), one object a row) against the CSV file',
                         (BIND.replace('"csv"', '"json"').format(file=json_lines(DATA / ints).name) + ARITH, []), (BIND.format(file=ints) + ARITH, []))
    out["fact_records"] = ("the fact file as the JSON records run --format json writes (--facts FILE.jsonl) against the fact text",
                           (ARITH, ["--facts", str(fact_records(names))]), (ARITH, ["--facts", str(names)]))
    out["gzip_facts"] = ("the fact file gzipped against the plain file", (ARITH, ["--facts", str(gzipped(names))]), (ARITH, ["--facts", str(names)]))
    out["bound_facts"] = ('the fact file bound (@bind("p", "facts", ...)) against given with --facts',
                          (f'@bind("p","facts","","{names.name}").\n' + ARITH, []), (ARITH, ["--facts", str(names)]))
    out["quoted_csv"] = ("a CSV file with its strings and header quoted against the same unquoted",
                         (BIND.format(file=data(n, "quoted").name) + ARITH, []), (BIND.format(file=ints) + ARITH, []))
    out["csv_decimals"] = ("a CSV file of values of two decimals, 100,000 distinct, against values 0..1000",
                           (BIND.format(file=data(n, "decimals").name) + ARITH, []), (BIND.format(file=ints) + ARITH, []))
    out["distinct_names"] = ("a CSV file whose every row has a name of its own (200,000 ids) against 5,000 names",
                             (BIND.format(file=data(n, "distinct_names").name) + ARITH, []), (BIND.format(file=ints) + ARITH, []))
    out["many_files"] = ("the facts in 200 files against one file",
                         (ARITH, [a for f in split_files(names, 200) for a in ("--facts", str(f))]), (ARITH, ["--facts", str(names)]))
    many_k, one_k = small_predicates(n, 2000)
    out["rules_2000"] = ("2,000 predicates with a rule each against one predicate and one rule (the same facts)",
                         (many_rules(2000), ["--facts", str(many_k)]), (ARITH, ["--facts", str(one_k)]))
    tiny = _write(DATA / "tiny_10000.facts", (f"p{j}(n{j % 5000},{j})@[{j % 1000},{j % 1000 + 5}]\n" for j in range(10_000)))
    one_tiny = _write(DATA / "one_10000.facts", (f"p(n{j % 5000},{j})@[{j % 1000},{j % 1000 + 5}]\n" for j in range(10_000)))
    out["predicates_10000"] = ("10,000 predicates of one fact with a rule each against one predicate of the 10,000 facts and one rule",
                               (many_rules(10_000), ["--facts", str(tiny)]), (ARITH, ["--facts", str(one_tiny)]))
    cycle = _write(DATA / "cycle.facts", (f"{p}(n{j})@[0,{1 if p == 's' else 2000}]\n" for j in range(200) for p in "sr"))
    out["cycle_2000"] = ("a recursion through time around 2,000 predicates, a rule each (one predicate derived a round), "
                         "against one recursive rule (the same facts)",
                         ("p0(N) :- s(N).\n" + "".join(f"p{(j + 1) % 2000}(N) :- <->[0,1] p{j}(N), r(N).\n" for j in range(2000))
                          + '@output("p0").\n', ["--facts", str(cycle)]),
                         ('p(N) :- s(N).\np(N) :- <->[0,1] p(N), r(N).\n@output("p").\n', ["--facts", str(cycle)]))
    steps = _write(DATA / "steps.facts", (f"p(n{j},0)@[0,1]\n" for j in range(200)))
    out["constant_rules_3000"] = ("3,000 recursive rules p(N,k+1) :- p(N,k), one per constant, against one rule "
                                  "counting up to 3,000 (the same facts)",
                                  ("".join(f"p(N,{k + 1}) :- p(N,{k}).\n" for k in range(3000)) + '@output("p").\n',
                                   ["--facts", str(steps)]),
                                  ('p(N,J) :- p(N,K), K < 3000, J = K + 1.\n@output("p").\n', ["--facts", str(steps)]))
    return out


def run(name: str, text: str, args: list, engine: str, out_path: Path) -> dict:
    prog = DATA / f"{name}.vada"
    prog.write_text(text)
    cmd = [sys.executable, "-m", "chronolog", "run", str(prog), *args]
    if engine != "auto":
        cmd += ["--engine", engine]
    got = _peak(cmd, out_path)
    if got["rc"] != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {got['stderr']}")
    return got


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cases", nargs="*", default=None)
    ap.add_argument("--engine", default="auto", choices=("auto", "columns", "rows"))
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    print(f"load before: {os.getloadavg()[0]:.1f} (1 min)")
    table = cases(a.rows)
    for name in a.cases or list(table):
        what, with_, without = table[name]
        times = {"with": [], "without": []}
        outs = {side: DATA / f"out_{name}_{side}.txt" for side in times}
        for k in range(a.repeat):
            for side in ("with", "without") if k % 2 == 0 else ("without", "with"):
                text, args = with_ if side == "with" else without
                times[side].append(run(f"{name}_{side}", text, args, a.engine, outs[side]))
        row = {"case": name, "what": what, "rows": a.rows, "engine": a.engine}
        for side, got in times.items():
            row[side] = {"wall": median(g["wall"] for g in got), "cpu": median(g["cpu"] for g in got),
                         "rss": max(g["rss"] for g in got)}
        row["ratio"] = row["with"]["wall"] / row["without"]["wall"]
        if name == "stats":
            row["same"] = outs["with"].read_bytes() == outs["without"].read_bytes()
        row["load"] = os.getloadavg()[0]
        print(f"{name:17} with {row['with']['wall']:.3f} s wall / {row['with']['cpu']:.3f} s CPU, "
              f"without {row['without']['wall']:.3f} s / {row['without']['cpu']:.3f} s: {row['ratio']:.2f}x  ({what})", flush=True)
        if a.json:
            with open(a.json, "a") as f:
                f.write(json.dumps(row) + "\n")
    print(f"load after: {os.getloadavg()[0]:.1f} (1 min)")


if __name__ == "__main__":
    main()
