"""A session whose given facts came from CSV files of facts (names coded in
bulk, beside integers) corrected by CSV files and fact text: after every
add, retract and update the rows, the columns and a model computed from
scratch of the facts left (points counted in the test, not by the
engine) print the same text."""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest
from budget import examples

import chronolog
from chronolog.language.dates import format_fact
from test_dictionary_mixed import buckets  # noqa: F401 (a fixture: polars' string hash as it is, or in a few buckets)

NAMES = ["a", "b", "ß", "x y", "Σσ", "long_name_of_many_bytes", "z9", 3, 7, 12]
PROGRAMS = [
    """t(X, Y) :- e(X, Y).
       t(X, Z) :- t(X, Y), e(Y, Z).
       s(X) :- <->[0,1] f(X, Y).
       @output("t"). @output("s").""",
    """a(X) :- e(X, Y), not f(Y, X).
       b(X, Y) :- [-][0,2] e(X, Y).
       c(X, Z) :- e(X, Y), f(Y, Z).
       @output("a"). @output("b"). @output("c").""",
    """r(X) :- e(X, X).
       r(Y) :- r(X), f(X, Y).
       g(X, Y) :- <+>[0,2] r(X), e(X, Y).
       @output("r"). @output("g").""",
]
PREDS = ("e", "f")


def _facts(rnd, k):
    out = []
    for _ in range(k):
        lo = rnd.randint(0, 6)
        out.append((rnd.choice(PREDS), (rnd.choice(NAMES), rnd.choice(NAMES)), lo, lo + rnd.randint(0, 3)))
    return out


def _write(path: Path, facts) -> Path:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["pred", "c0", "c1", "start", "end"])
        for p, (x, y), lo, hi in facts:
            w.writerow([p, x, y, lo, hi])
    return path


def _text(facts) -> str:
    return "\n".join(format_fact(p, t, (lo, hi, True, True), None) for p, t, lo, hi in facts)


def _points(lo, hi):
    """A closed interval of integer ends as doubled points: 2t for a time
    point t, 2t+1 for the open stretch (t, t+1)."""
    return set(range(2 * lo, 2 * hi + 1))


def _given_text(held: dict) -> str:
    """The facts of the doubled points held, one per maximal run."""
    lines = []
    for (p, t), pts in held.items():
        run = sorted(pts)
        i = 0
        while i < len(run):
            j = i
            while j + 1 < len(run) and run[j + 1] == run[j] + 1:
                j += 1
            x, y = run[i], run[j]
            iv = (x // 2 if x % 2 == 0 else (x - 1) // 2, y // 2 if y % 2 == 0 else (y + 1) // 2, x % 2 == 0, y % 2 == 0)
            lines.append(format_fact(p, t, iv, None))
            i = j + 1
    return "\n".join(lines)


@pytest.mark.parametrize("path", ["frames", "atoms"])
@pytest.mark.parametrize("seed", range(examples(30)))
def test_csv_corrections_on_rows_and_columns_are_a_model_from_scratch(seed, path, tmp_path, monkeypatch, buckets):
    """The columns' updates on either path (frames; the rows' DRed over
    columns by atoms), kept on the columns (no hand-over to the rows);
    names looked up by their hashes, also when many share one."""
    from chronolog.engine.columns import evaluator, maintenance

    monkeypatch.setattr(evaluator, "POINT_ATOMS", 10**9 if path == "atoms" else -1)
    monkeypatch.setattr(maintenance, "ROWS_AFTER", 1e9)
    monkeypatch.setattr(maintenance, "ROWS_AFTER_SECONDS", 1e9)
    rnd = random.Random(seed)
    program = rnd.choice(PROGRAMS)
    start = _facts(rnd, rnd.randint(1, 14))
    held: dict = {}
    for p, t, lo, hi in start:
        held.setdefault((p, t), set()).update(_points(lo, hi))
    first = _write(tmp_path / "start.csv", start)
    sessions = {e: chronolog.Reasoner(program, first, engine=e) for e in ("rows", "columns")}
    for step in range(rnd.randint(1, 5)):
        kind = rnd.choice(["add", "retract", "update"])
        # retract given facts (some of them a part of a given one), add new ones
        gone = [f for f in start if rnd.random() < 0.3]
        gone = [(p, t, lo + rnd.randint(0, hi - lo), hi) if rnd.random() < 0.5 else (p, t, lo, hi) for p, t, lo, hi in gone]
        new = _facts(rnd, rnd.randint(0, 4))
        as_csv = rnd.random() < 0.6
        if kind == "add":
            gone = []
        elif kind == "retract":
            new = []
        for p, t, lo, hi in gone:
            held[(p, t)] -= _points(lo, hi)
        for p, t, lo, hi in new:
            held.setdefault((p, t), set()).update(_points(lo, hi))
        start += new

        def arg(facts, name):
            return _write(tmp_path / f"{name}{step}.csv", facts) if as_csv else _text(facts)

        for r in sessions.values():
            if kind == "add":
                r.add(arg(new, "add"))
            elif kind == "retract":
                if gone:
                    r.retract(arg(gone, "gone"))
            else:
                r.update(add=arg(new, "add") if new else None, retract=arg(gone, "gone") if gone else None)
        scratch = chronolog.reason(program, _given_text(held) or None, engine="rows")
        want = scratch.to_text(scratch.output_predicates)
        for e, r in sessions.items():
            assert r.model.to_text(scratch.output_predicates) == want, (e, step, kind)
