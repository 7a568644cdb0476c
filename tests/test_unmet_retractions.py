"""A retraction that takes nothing away is said, as RDFox reports counts:
``stats["retracted facts that met nothing"]`` after each update and one
warning naming the first such fact, on both executors and on each way the
retraction is read (lines by atoms, dicts and tables as frames of codes).
The oracle is the given facts themselves: a retracted fact meets nothing
when none of its points was given."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chronolog
from budget import examples

KEY = "retracted facts that met nothing"
ENGINES = ["rows", "columns"]


def _update(reasoner, retract):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reasoner.retract(retract)
    return reasoner.model.stats[KEY], [str(w.message) for w in caught if "met no given fact" in str(w.message)]


def _as(form, facts):
    if form == "lines":
        return [f"p({a})@{t}" for a, t in facts]
    if form == "dict":
        return {"p": [((a,), t) for a, t in facts]}
    return {"p": pd.DataFrame({"a": [a for a, _ in facts], "start": [t for _, t in facts], "end": [t for _, t in facts]})}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("form", ["lines", "dict", "table"])
def test_a_retraction_that_meets_nothing_is_counted_and_named(engine, form):
    # it was silent: p(zz)@1 (a value never given) and p(b)@7 (a point never given) took nothing away
    r = chronolog.Reasoner("q(X) :- p(X).", "p(a)@[0,5]\np(b)@1\np(c)@2\n", engine=engine)
    count, said = _update(r, _as(form, [("a", 3), ("b", 7), ("zz", 1), ("c", 2)]))
    assert count == 2 and len(said) == 1
    assert "p(zz)@" in said[0] and "(and 1 more)" in said[0]
    assert sorted(r.model.facts("q")) == [(("a",), (0, 3, True, False)), (("a",), (3, 5, False, True)), (("b",), (1, 1, True, True))]
    count, said = _update(r, _as(form, [("a", 4)]))
    assert (count, said) == (0, [])


@pytest.mark.parametrize("engine", ENGINES)
def test_a_float_is_retracted_by_the_line_it_prints(engine):
    # a pandas float column's 0.1 prints 0.1, but the text 0.1 read the exact 1/10: the retraction met nothing
    # (then a warning said how to write it as a row); the text now matches the float that prints as it
    # (docs/language.md, "Floats"; tests/test_float_lines_read_back.py)
    r = chronolog.Reasoner("q(X) :- p(X).", {"p": pd.DataFrame({"x": [0.1, 0.2], "start": [0, 0], "end": [0, 0]})}, engine=engine)
    count, said = _update(r, "p(0.1)@0")
    assert (count, said) == (0, []) and r.model.facts("q") == [((0.2,), (0, 0, True, True))]
    count, said = _update(r, {"p": [((0.2,), 0)]})  # (and as a row, as before)
    assert (count, said) == (0, []) and r.model.facts("q") == []


facts = st.lists(st.tuples(st.sampled_from("abcd"), st.integers(0, 6)), min_size=1, max_size=8)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(given_facts=facts, retracted=facts, engine=st.sampled_from(ENGINES), form=st.sampled_from(["lines", "dict", "table"]))
def test_the_count_is_the_retracted_facts_none_of_whose_points_was_given(given_facts, retracted, engine, form):
    r = chronolog.Reasoner("q(X) :- p(X).", "\n".join(f"p({a})@{t}" for a, t in given_facts), engine=engine)
    count, said = _update(r, _as(form, retracted))
    # from scratch: punctual facts on distinct points never touch, so each distinct one counts on its own
    assert count == len(set(retracted) - set(given_facts))
    assert len(said) == (count > 0)


def test_a_large_retraction_on_frames_counts_as_the_given_facts_say():
    # past POINT_ATOMS the columnar update reads the retraction as frames of codes and takes pieces as frames
    from chronolog.engine.columns.evaluator import POINT_ATOMS

    n = 4 * POINT_ATOMS
    given = {(f"a{i}", t) for i in range(n) for t in (i, i + 3)}
    retracted = [(f"a{i}", i + (i % 3)) for i in range(n)] + [("zz", 1)]
    r = chronolog.Reasoner("q(X) :- p(X).", "\n".join(f"p({a})@{t}" for a, t in sorted(given)), engine="columns")
    count, said = _update(r, _as("dict", retracted))
    assert r.model.stats["maintenance"][0]["path"] == "frames"
    assert count == len(set(retracted) - given) and len(said) == 1


@pytest.mark.parametrize("reach_back", [None, 10])
def test_a_streams_retraction_that_meets_nothing_is_counted_and_named(reach_back):
    # the stream's retract was silent too; the oracle: what was pushed and not taken back
    s = chronolog.Stream("q(X) :- p(X).", reach_back=reach_back)
    s.push("p(a)@1\np(b)@2")
    if reach_back:
        s.take()  # (processed: the correction replays)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s.retract("p(c)@1\np(a)@5\np(b)@2")
        s.retract("p(b)@2")  # taken back already
    said = [str(w.message) for w in caught]
    assert s.stats[KEY] == 3 and len(said) == 2
    assert "p(c)@" in said[0] and "met no pushed fact (and 1 more)" in said[0] and "p(b)@" in said[1]


def test_the_stream_command_counts_them_with_stats(tmp_path):
    import subprocess
    import sys

    prog = tmp_path / "s.vada"
    prog.write_text("q(X) :- p(X).\n")
    r = subprocess.run([sys.executable, "-m", "chronolog", "stream", str(prog), "--stats", "--reach-back", "10"],
                       input="p(a)@1\np(b)@2\n-p(c)@1\np(a)@3\n-p(a)@9\n-p(b)@2\n", capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    # (-p(a)@9 and -p(b)@2 in a row are one correction)
    assert "2 corrections, 1 retracted" in r.stderr and "2 retracted facts met nothing" in r.stderr
    assert "note: <stdin>:3: p(c)@[1,1] met no pushed fact, so it took nothing away" in r.stderr
    # (the note named retract(), which the command's user never called, and no line)
    assert "note: <stdin>:5: p(a)@[9,9] met no pushed fact, so" in r.stderr and "retract()" not in r.stderr


def test_the_stream_command_names_a_correction_lines_place_and_shows_it_as_written(tmp_path):
    from click.testing import CliRunner

    from chronolog.cli import cli

    prog = tmp_path / "s.vada"
    prog.write_text("q(X) :- p(X).\n")
    with pytest.warns(chronolog.Note) as said:
        r = CliRunner().invoke(cli, ["stream", str(prog), "--reach-back", "5"], input="p(a)@1\n-p(b)@1\n-p(a)@7\n-p(c)@[2,3]\n")
    assert r.exit_code == 0, r.output
    assert [str(w.message) for w in said] == ["<stdin>:2: p(b)@[1,1] met no pushed fact (and 2 more), so it took nothing away"]
    r = CliRunner().invoke(cli, ["stream", str(prog)], input="p(a)@1\n  -p(a\n")
    assert r.exit_code == 2
    # (the line was shown with a blank for its sign and the column was 2 short of an indented line's)
    assert r.output.splitlines()[:3] == ["<stdin>:2:7: syntax error: the fact ends early; expected ',', ')', '-', '+'",
                                         "      -p(a", "          ^"]


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(-4, 20), st.integers(0, 6)), max_size=12),
       st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(-6, 30)), max_size=20))
def test_holes_met_counts_as_a_scan_of_every_pair(raw_holes, pieces):
    """corrections.holes_met against its definition: a hole is met when a
    piece of its atom starts within it (holes of one atom kept apart, as a
    coalesced retraction's are)."""
    import numpy as np

    from chronolog.corrections import holes_met

    holes, last = [], {}
    for a, b, s, w in sorted(raw_holes, key=lambda h: (h[0], h[1], h[2])):
        s = max(s, last.get((a, b), -10**9) + 1)
        holes.append((a, b, s, s + w))
        last[(a, b)] = s + w
    want = sum(any((pa, pb) == (a, b) and s <= ps <= e for pa, pb, ps in pieces) for a, b, s, e in holes)
    arr = lambda rows, i: np.array([r[i] for r in rows], dtype=np.int64)
    got = holes_met(([arr(holes, 0), arr(holes, 1)], arr(holes, 2), arr(holes, 3)), [arr(pieces, 0), arr(pieces, 1)], arr(pieces, 2))
    assert got == want
