"""A retraction read straight into the model's codes (corrections.py,
retraction_frames; retraction.Known; Dictionary.look_up_names) and taken
out of given frames kept in code order (engine/columns/sorted_given.py),
over sessions of retractions and additions on the frames' path.  Oracles:
a dict of the Dictionary's values for the lookups, reasoning from scratch
on the row executor for the models."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from budget import examples

import chronolog
from chronolog import corrections
from chronolog.engine.columns.encoding import Dictionary
from chronolog.language.source_text import KERNEL_BYTES
from chronolog.language.timeline import make
from test_corrections_fast import minus

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), print_blob=True)
name = st.text("abcxyz_", min_size=1, max_size=4).map(lambda s: "n" + s)


@settings(max_examples=examples(100), **SETTINGS)
@given(file=st.lists(name, unique=True, max_size=40), later=st.lists(st.one_of(name, st.integers(0, 5)), max_size=8),
       asked=st.lists(name, max_size=30))
def test_names_are_looked_up_as_the_dict_finds_them(file, later, asked):
    d = Dictionary()
    if file:
        d.code_names(pl.Series(file, dtype=pl.String))
    for v in later:  # (coded after the file's names: the dict finds those)
        d.code(v)
    want = [d.codes.get(v, -1) for v in asked]
    n = len(d.values)
    assert d.look_up_names(pl.Series(asked, dtype=pl.String)).tolist() == want
    assert len(d.values) == n  # (nothing added)


def test_names_sharing_a_hash_are_told_apart(monkeypatch):
    """Two of the file's names with one hash: the names are compared, and
    the dict finds the one the sorted hashes do not point at."""
    d = Dictionary()
    d.code_names(pl.Series(["a", "b", "c"]))
    monkeypatch.setattr(pl.Series, "hash", lambda self, seed=0: pl.Series(np.zeros(len(self), dtype=np.uint64)))
    assert d.look_up_names(pl.Series(["c", "b", "a", "zz"])).tolist() == [2, 1, 0, -1]


def test_a_second_files_names_are_indexed_again():
    d = Dictionary()
    d.code_names(pl.Series(["a", "b"]))
    assert d.look_up_names(pl.Series(["b", "c"])).tolist() == [1, -1]
    d.code_names(pl.Series(["c", "a"]))  # (a names-only Dictionary: its names Series grows)
    assert d.look_up_names(pl.Series(["b", "c"])).tolist() == [1, 2]


PROGRAM = (
    '@timeGranularity("days").\n'
    "q(X) :- <->[0,2] p(X).\n"
    "r(X,Y) :- q(X), e(X,Y), not s(Y).\n"
    "w(X,N) :- [-][0,1] n(X,N)."
)
TERMS = ["a", "b", "c", '"quoted a"', '"q\\"x"']  # (a quoted name, and one with an escape: the exact parser's line)
NEVER = ["zz", '"never seen"']


def day(i: int) -> str:
    from datetime import date, timedelta

    return (date(2020, 1, 1) + timedelta(days=i)).isoformat()


def text(rows) -> str:
    """``(pred, terms, interval of day numbers)`` rows as fact lines with dates."""
    return "\n".join(f"{p}({','.join(t)})@{'[' if lc else '('}{day(lo)},{day(hi)}{']' if hc else ')'}" for p, t, (lo, hi, lc, hc) in rows)


@st.composite
def facts(draw, names, size):
    out = []
    for _ in range(draw(st.integers(1, size))):
        pred = draw(st.sampled_from(["p", "e", "s", "n", "u"]))
        if pred == "n":
            terms = (draw(st.sampled_from(names)), str(draw(st.integers(0, 3))))
        else:
            terms = tuple(draw(st.sampled_from(names)) for _ in range(2 if pred == "e" else 1))
        lo = draw(st.integers(0, 20))
        iv = make(lo, lo + draw(st.integers(0, 6)), draw(st.booleans()), draw(st.booleans())) or make(lo, lo)
        out.append((pred, terms, iv))
    return out


def padded(lines: str) -> str:
    """The lines past KERNEL_BYTES (comment lines after them): the kernel reader."""
    pad = "\n% " + "x" * 200
    return lines + pad * (1 + (KERNEL_BYTES - len(lines)) // len(pad))


@settings(max_examples=examples(30), **SETTINGS)
@given(start=facts(TERMS, 12), steps=st.lists(st.tuples(st.booleans(), facts(TERMS + NEVER, 8)), min_size=1, max_size=4))
@example(start=[("p", ("a",), (0, 0, True, True))],  # (a retraction naming n(a,1), an integer no given fact held)
         steps=[(True, [("p", ("a",), (0, 0, True, True)), ("p", ("a",), (0, 0, True, True)), ("n", ("a", "1"), (0, 0, True, True))])])
def test_sessions_of_large_retractions_and_additions(start, steps, monkeypatch):
    """Retractions (whole facts, pieces, duplicates, facts not given, values
    the model never saw; quoted names, numbers, dates) read by the kernels,
    and additions, one after another: after each, the model of reasoning
    from scratch on the facts left (taken out point by point)."""
    from chronolog.engine.columns import evaluator

    monkeypatch.setattr(evaluator, "POINT_ATOMS", -1)
    read, real = [], corrections.retraction_frames
    monkeypatch.setattr(corrections, "retraction_frames", lambda *a: read.append(real(*a)) or read[-1])
    # (every given predicate given from the start: one the session first meets later is new to the plan, read by the general path;
    # and every integer the facts draw: one the model never held may equal a float, read so too: retraction.lookup)
    start = [(p, ("c",) * (2 if p == "e" else 1) if p != "n" else ("c", "0"), make(30, 31)) for p in "pesnu"] + [
        ("n", ("c", str(k)), make(30, 31)) for k in range(1, 4)] + start
    r = chronolog.Reasoner(PROGRAM, text(start), engine="columns")
    now = list(start)
    for retract, rows in steps:
        if retract:
            rows = [*rows, *start[: len(rows)], rows[0]]  # (given facts among them, and a duplicate)
            model = r.retract(padded(text(rows)))
            assert read[-1] is not None, "the kernels did not read the retraction into codes"
            now = minus(now, rows)
        else:
            model = r.add(text(rows))
            now += rows
        assert model.to_text() == chronolog.reason(PROGRAM, text(now), engine="rows").to_text()
        assert model.stats["maintained_on"] == "columns"
