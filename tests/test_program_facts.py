"""Facts written inside a program are split from its rules and read by the
kernel fact reader (language/program_facts.py): the same model, and the
same error at the same file:line:column, as the grammar reading the whole
program, with fact lines interleaved with rules (also rules over several
lines whose next line looks like a fact), annotations, comments, strings
holding separators, comments and dots."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog import ChronologError
from chronolog.language.program_facts import read

pytest.importorskip("polars")

SETTINGS = settings(max_examples=examples(200), deadline=None, suppress_health_check=list(HealthCheck))

STRINGS = st.text(alphabet='ab ,.\\"@()[]%#:/<>é', max_size=5).map(lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"')
IRIS = st.sampled_from(['"<http://www.lubm.org/a%20b>"', '"<http://x.org/a#1>"', '"\\u00e9t\\u00e9"', '"é€ 😀"', '"a\\"b"', '"\\\\"'])
TERMS = st.one_of(st.sampled_from(["a", "b", "c1", "-2", "1/2", "#T", "2.5", "X"]), STRINGS, IRIS)
IVS = st.sampled_from(["[1,3]", "(0,2]", "[-inf,+inf)", "2", "[2,1]", "[0,5)"])


@st.composite
def fact(draw):
    terms = [draw(TERMS), draw(TERMS)]
    return f"{' ' * draw(st.integers(0, 1))}p({', '.join(terms)})@{draw(IVS)}."


STATEMENTS = [
    "q(X, Y) :- p(X, Y).",
    "q(X, Y) :-\n  p(X, Y)@[1,2].",  # (a continuation line of the fact form: part of the rule)
    "r(X) :- <->[0,1] p(X, Y),\n   Y != \"a.b\".",
    "% a comment: p(z, z)@1.",
    "s(X) :- p(X, _). % p(y, y)@1.",
    '@output("q").',
    "",
    "t(\"a%b\", 1)@[0,1].",
    "p(a, b)@1. % a fact and a comment",
    "p(a, b)@1. p(b, c)@2.",
    "u(X) :- p(X, Y), Y > 1.",
    "w(X) :- <->[1,1] w(X), p(X, _).\nw(X) :- p(X, _).",  # (recursion through time: the given facts' hull bounds the run)
]


@st.composite
def programs(draw):
    parts = draw(st.lists(st.one_of(fact(), st.sampled_from(STATEMENTS)), min_size=1, max_size=14))
    return "\n".join(parts) + draw(st.sampled_from(["", "\n"]))


def _outcome(program):
    try:
        if callable(program):
            program = program()
        return "ok", {e: chronolog.reason(program, engine=e).to_text() for e in ("rows", "columns")}
    except ChronologError as e:
        return "error", f"{type(e).__name__}: {e}"


@pytest.fixture
def always_split(monkeypatch):
    import chronolog.api as api

    monkeypatch.setattr(api, "KERNEL_BYTES", 0)


@SETTINGS
@given(text=programs())
@example(text='p(a, -2)@[1,3].\np(a, "\\u00e9t\\u00e9")@[1,3].\nu(X) :- p(X, Y), Y > 1.')  # (the line escapes 'été')
@example(text="p(a, b)@1. % a fact and a comment\np(a, b)@1. p(b, c)@2.\nu(X) :- p(X, Y), Y > 1.")  # (a fact twice, read apart: its first line)
def test_programs_read_apart_as_whole(always_split, text):
    from chronolog.api import load_program

    whole = _outcome(lambda: load_program(text))  # (parsed by the grammar alone)
    assert _outcome(text) == whole, text


def _apart(data: bytes, block=None):
    import io

    from chronolog.language import fact_columns

    if block is not None:
        fact_columns.BLOCK, old = block, fact_columns.BLOCK
    try:
        return read(io.BytesIO(data), "<p>")
    finally:
        if block is not None:
            fact_columns.BLOCK = old


@SETTINGS
@given(text=programs(), block=st.sampled_from([1, 9, 40, 1 << 20]))
def test_programs_read_apart_in_blocks_as_whole(always_split, monkeypatch, text, block):
    """The reader's blocks cut a program anywhere between lines: whether a
    fact line continues a statement is carried from block to block."""
    from chronolog.api import load_program
    from chronolog.language import fact_columns

    whole = _outcome(lambda: load_program(text))
    monkeypatch.setattr(fact_columns, "BLOCK", block)
    assert _outcome(text) == whole, text


@pytest.mark.parametrize("block", [1, 9, 1 << 20])
def test_a_fact_line_inside_a_rule_is_the_rules_in_every_block(always_split, monkeypatch, block):
    """A line of the fact form after a rule line that has not ended belongs
    to the rule, also as the first line of a block: the whole reading's
    syntax error, not a fact and a rule closed by the line after it."""
    from chronolog.api import load_program
    from chronolog.language import fact_columns

    text = "q(X) :- p(X, Y),\np(a, b)@1.\n  w(X).\np(a, c)@2.\n"
    whole = _outcome(lambda: load_program(text))
    assert whole[0] == "error"
    monkeypatch.setattr(fact_columns, "BLOCK", block)
    assert _outcome(text) == whole


def test_continuation_lines_stay_with_their_rule():
    for block in (1 << 20, 8, 1):  # (the statement's state carried from block to block)
        rules, facts = _apart(b"q(X) :-\n  p(X)@[1,2].\np(a)@1.\n%\np(b)@2.\n", block)
        assert rules == "q(X) :-\n  p(X)@[1,2].\n\n%"  # (the facts' lines empty: every line at its place)
        assert facts.pred_rows("p") == [(("a",), (1, 1, True, True)), (("b",), (2, 2, True, True))]
        assert facts.positions["p"].line == 3


def test_error_positions_in_a_program(always_split):
    text = "q(X) :- p(X).\n" + "p(a)@1.\n" * 5 + 'p("x, y")@[3,1].\n'
    with pytest.raises(ChronologError) as e:
        chronolog.reason(text)
    assert "<program>:7:" in str(e.value)


def test_stats_count_the_lines_left_to_the_parser(tmp_path):
    """``chronolog run --stats``: the fact lines the kernels read, inside a
    program too, and the exceptions the parser read (two facts on a line)."""
    import subprocess
    import sys

    facts = [f'p("<http://x.org/a{i}>", "b, (c) @ %{i}")@[{i},{i + 2}].' for i in range(3000)]
    prog = tmp_path / "p.vada"
    prog.write_text("q(X) :- p(X, _).\n" + "\n".join(facts) + "\np(a, b)@1. p(b, c)@2.\n")
    r = subprocess.run([sys.executable, "-m", "chronolog", "run", str(prog), "--stats"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "3000 fact lines read by the kernels, 0 by the parser" in r.stderr  # (the two facts' line: the rules')
    assert len(r.stdout.splitlines()) == 3002  # (q: the output)
    data = tmp_path / "f.vada"  # (a fact file: the repeating fact is the parser's)
    data.write_text("\n".join(facts) + "\np(a, b)@[1, 2] every 5. % the exception\n")
    prog.write_text("q(X) :- p(X, _).\n")
    r = subprocess.run([sys.executable, "-m", "chronolog", "run", str(prog), "--facts", str(data), "--stats"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    # a file with a repeating fact is read again as rows: its lines were
    # counted twice ("6000 fact lines read by the kernels, 2 by the parser")
    assert "3000 fact lines read by the kernels, 1 by the parser" in r.stderr


@SETTINGS
@given(st.binary(max_size=40).map(lambda b: bytes(b"_:a\n"[x % 4] for x in b)))
def test_null_labels_found_as_bytes_search_finds_them(data):
    """A program with a labelled null is read whole: ``_:`` found by numpy
    as Python's own search finds it (first byte, last byte, runs)."""
    import numpy as np

    from chronolog.language.fact_columns import _holds_null_labels

    assert _holds_null_labels(np.frombuffer(data, np.uint8)) == (b"_:" in data)


def test_a_program_with_a_labelled_null_is_read_whole():
    assert _apart(b"p(a)@1.\np(_:n1)@2.\n") is None
    assert _apart(b"p(a_b)@1.\np(c)@2._") is not None


DATED_IVS = st.sampled_from(["[2024-01-01,2024-01-03]", "2024-01-02T10:00:00.500Z", "(2024-01-01T10:00+02:00,2024-01-02)",
                             "[2024-01-01 23:59:59.125,+inf)", "[2023-12-31T22:00:00-05:00,2024-01-05]", "2024-01-02T10:00:00.0005",
                             "[2024-01-02,2024-01-01]", "2024-02-30", "3"])
DATED_STATEMENTS = ['@timeGranularity("days").', '@timeGranularity("milliseconds").', '@timeGranularity("hours").',
                    '@timeGranularity("no_date").', '% @timeGranularity("minutes").', "q(X, Y) :- p(X, Y).",
                    "r(X) :- <->[0,PT1H] p(X, _).", "s(X) :- [-][0,2] p(X, _).", "@temporal(2024-01-01, 2024-12-31).",
                    "t(X) :- <->[0,1/7] p(X, _).", '@output("q").', "% a comment", "p(a, b)@2024-01-03. p(b, c)@2024-01-04.",
                    "clock@[2024-01-01,2024-01-02).", "u(X) :- p(X, _), clock."]


@st.composite
def dated_programs(draw):
    def fact():
        terms = [draw(st.sampled_from(["a", "b", "-2", "1/2", '"x y"'])) for _ in range(2)]
        return f"p({', '.join(terms)})@{draw(DATED_IVS)}."

    parts = draw(st.lists(st.one_of(st.just(None), st.sampled_from(DATED_STATEMENTS)), min_size=1, max_size=14))
    return "\n".join(p if p is not None else fact() for p in parts) + "\n"


@SETTINGS
@given(text=dated_programs(), head=st.sampled_from([1 << 20, 0, 30]))
def test_dated_programs_read_apart_as_whole(always_split, monkeypatch, text, head):
    """A program whose facts' times are dates (to the millisecond, at an
    offset, unbounded), on the timeline it declares or on days, with rules
    that write durations or none, a numeric fact among dates, a
    declaration in a comment, two declarations: the same model, or the
    same error, as the grammar reading the whole program; the timeline
    guessed from the program's head (``head`` bytes of it), or found
    after a first reading."""
    from chronolog.api import load_program
    from chronolog.language import program_facts

    whole = _outcome(lambda: load_program(text))
    monkeypatch.setattr(program_facts, "TIMELINE_HEAD", head)
    assert _outcome(text) == whole, text


@pytest.mark.parametrize("declared", ['@timeGranularity("milliseconds").\n', ""])
def test_a_dated_program_s_facts_are_read_by_the_kernels(tmp_path, declared):
    """Dated fact lines in a program are read by the kernels on the timeline
    it declares, or on days (100,000 readings to the millisecond went to the
    grammar whole: 21 s), not by the parser."""
    import subprocess
    import sys

    facts = [f"p(s{i % 7}, {i})@2024-01-01T10:00:{i % 60:02d}.{i % 1000:03d}Z." if declared else f"p(s{i % 7}, {i})@2024-01-{1 + i % 28:02d}."
             for i in range(3000)]
    prog = tmp_path / "p.vada"
    prog.write_text(declared + "q(X) :- <->[0,PT1S] p(X, _).\n" + "\n".join(facts) + "\n")
    r = subprocess.run([sys.executable, "-m", "chronolog", "run", str(prog), "--stats"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "3000 fact lines read by the kernels, 0 by the parser" in r.stderr
    from chronolog.api import load_program

    whole = chronolog.reason(load_program(prog.read_text()), engine="rows")  # (parsed by the grammar alone)
    assert r.stdout.splitlines() == whole.to_text().splitlines()
