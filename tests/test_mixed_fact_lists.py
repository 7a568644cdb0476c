"""A list of fact files mixing CSV files of facts and fact text (each run
of files of one kind read by its own kernels into columns coded by one
Dictionary): random facts of several term kinds split among them give the
model of the same facts as one fact text, on the columns and the rows."""

from __future__ import annotations

import functools
import random
from fractions import Fraction

import pytest
from budget import examples

import chronolog
from chronolog.language.text import format_term

TERMS = ["a", "b", "x y", "ß", "Σσ", "long_name_of_many_bytes", "", "1", "#T", 0, 1, 7, -3, 2**40, Fraction(1, 3),
         Fraction(5, 2), 1.5, True, False, ("a", 1)]
PROGRAM = """q(X, Y) :- p(X, Y).
s(Y) :- p(X, Y), r(Y).
t(X) :- <->[0,1] r(X), not p(X, X).
@output("q"). @output("s"). @output("t").
"""


def _fact(rnd):
    lo = rnd.randint(0, 5)
    hi = lo + rnd.randint(0, 3)
    if rnd.random() < 0.6:
        return "p", (rnd.choice(TERMS), rnd.choice(TERMS)), lo, hi
    return "r", (rnd.choice(TERMS),), lo, hi


def _line(pred, terms, lo, hi):
    return f"{pred}({','.join(format_term(t) for t in terms)})@[{lo},{hi}]"


@pytest.fixture
def kernels_for_small_files(monkeypatch):
    """The kernel readers of both kinds of file for small files too."""
    import chronolog.api as api
    from chronolog.connectors import fact_csv_columns

    monkeypatch.setattr(api, "KERNEL_BYTES", 0)
    monkeypatch.setattr(fact_csv_columns, "read_columns", functools.partial(fact_csv_columns.read_columns, min_bytes=0))


@pytest.mark.parametrize("seed", range(examples(40)))
def test_mixed_lists_of_fact_files_are_the_facts_as_one_text(seed, tmp_path, kernels_for_small_files):
    from chronolog.ux_cli import model_facts, write_facts

    rnd = random.Random(seed)
    files, lines = [], []
    for k in range(rnd.randint(1, 5)):
        facts = [_fact(rnd) for _ in range(rnd.randint(1, 8))]
        # (one arity a predicate: p/2 and r/1 in every file)
        text = "\n".join(_line(*f) for f in facts)
        lines.append(text)
        if rnd.random() < 0.5:
            path = tmp_path / f"f{k}.csv"
            m = chronolog.reason("", text, engine="rows")
            with open(path, "w", newline="") as fh:  # (as run --format csv writes these facts)
                write_facts(m, model_facts(m, m.predicates(), None), "csv", fh)
        else:
            path = tmp_path / f"f{k}.txt"
            path.write_text(text + "\n")
        files.append(path)
    want = chronolog.reason(PROGRAM, "\n".join(lines), engine="rows")
    for e in ("rows", "columns"):
        got = chronolog.reason(PROGRAM, files, engine=e)
        assert got.to_text(["p", "r", "q", "s", "t"]) == want.to_text(["p", "r", "q", "s", "t"]), e
