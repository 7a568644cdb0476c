"""Retractions of a model held on columns are read straight into frames
coded by the model's dictionaries (chronolog/corrections.py,
retraction_frames; engine/columns/retraction.py): the same model as the
general path (the facts read as rows, then encoded) and as reasoning from
scratch on the row executor, for every input form, with pieces that split
intervals, facts that are not in the model, values it never saw and
duplicates; bad input keeps the general path's message."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from budget import examples

import chronolog
from chronolog import ChronologError, corrections
from chronolog.language.source_text import KERNEL_BYTES
from chronolog.language.timeline import intersect, make, subtract

PROGRAM = "q(X) :- <->[0,2] p(X).\nr(X,Y) :- q(X), e(X,Y), not s(Y).\nt(X) :- [-][0,1] q(X)."
SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), print_blob=True)
NAMES = ["a", "b", "c", "d"]


@pytest.fixture(autouse=True)
def on_frames(monkeypatch):
    """These tests are of the retraction read into frames, which the
    frames' path reads: every update takes it (a few facts are read as rows
    for an update by atoms: tests/test_point_relation.py)."""
    from chronolog.engine.columns import evaluator

    monkeypatch.setattr(evaluator, "POINT_ATOMS", -1)


def fact_text(pred, terms, iv) -> str:
    lo, hi, lc, hc = iv
    return f"{pred}({','.join(map(str, terms))})@{'[' if lc else '('}{lo},{hi}{']' if hc else ')'}"


def minus(rows, gone) -> list:
    """The given ``(pred, terms, interval)`` rows without the points of ``gone``, pointwise."""
    for pred, terms, hole in gone:
        out = []
        for p, t, iv in rows:
            if p == pred and t == terms and intersect(iv, hole) is not None:
                out.extend((p, t, x) for x in subtract(iv, [hole]))
            else:
                out.append((p, t, iv))
        rows = out
    return rows


def scratch(rows) -> str:
    return chronolog.reason(PROGRAM, "\n".join(fact_text(*r) for r in rows), engine="rows").to_text()


def as_form(gone, form: str, tmp_path: Path):
    """``gone`` rows in one of the input forms :meth:`Reasoner.retract` takes."""
    lines = [fact_text(*g) for g in gone]
    if form == "text":
        return "\n".join(lines)
    if form == "lines":
        return lines
    if form == "large text":  # past KERNEL_BYTES: the kernel fact reader, with comments to fill
        pad = "% " + "x" * 200
        lines = [x for line in lines for x in (line, pad)]
        while len("\n".join(lines)) < KERNEL_BYTES:
            lines.append(pad)
        return "\n".join(lines)
    if form == "file":
        path = tmp_path / "gone.vada"
        path.write_text("\n".join(lines) + "\n")
        return path
    if form == "rows":
        out: dict = {}
        for p, t, iv in gone:
            out.setdefault(p, []).append((t, (iv[0], iv[1], iv[2], iv[3])))
        return out
    by: dict = {}
    for p, t, iv in gone:
        by.setdefault(p, []).append(dict({f"a{i}": x for i, x in enumerate(t)}, start=iv[0], end=iv[1], start_closed=iv[2], end_closed=iv[3]))
    if form == "pandas":
        pd = pytest.importorskip("pandas")
        return {p: pd.DataFrame(r) for p, r in by.items()}
    if form == "polars":
        import polars as pl

        return {p: pl.DataFrame(r) for p, r in by.items()}
    pa = pytest.importorskip("pyarrow")
    return {p: pa.Table.from_pylist(r) for p, r in by.items()}


FORMS = ["text", "lines", "large text", "file", "rows", "pandas", "polars", "arrow"]


def interval(draw):
    lo = draw(st.integers(0, 12))
    return make(lo, lo + draw(st.integers(0, 6)), draw(st.booleans()), draw(st.booleans())) or make(lo, lo)


@st.composite
def session(draw):
    """Given facts, and retractions: whole facts, pieces inside them (which
    split intervals), stretches around or beside them, atoms of values the
    model never saw, and duplicates."""
    given = []
    for _ in range(draw(st.integers(1, 8))):
        # (u: no rule reads it, no stratum encodes it; q: the rules derive it too)
        pred = draw(st.sampled_from(["p", "e", "s", "u", "q"]))
        terms = tuple(draw(st.sampled_from(NAMES[:3])) for _ in range(2 if pred == "e" else 1))
        given.append((pred, terms, interval(draw)))
    gone = []
    for _ in range(draw(st.integers(1, 6))):
        p, t, iv = draw(st.sampled_from(given))
        kind = draw(st.sampled_from(["whole", "piece", "other atom", "duplicate"]))
        if kind == "whole":
            gone.append((p, t, iv))
        elif kind == "piece":
            gone.append((p, t, interval(draw)))
        elif kind == "other atom":  # ("d" is in no given fact: no code in the model's dictionary)
            gone.append((p, tuple(draw(st.sampled_from(NAMES)) for _ in t), interval(draw)))
        elif gone:
            gone.append(draw(st.sampled_from(gone)))
    return given, gone


def retract_both_ways(given, retraction, monkeypatch):
    """The models after ``retraction`` by the fast path and by the general one."""
    text = "\n".join(fact_text(*g) for g in given)
    fast = chronolog.Reasoner(PROGRAM, text, engine="columns")
    read = []
    real = corrections.retraction_frames
    monkeypatch.setattr(corrections, "retraction_frames", lambda *a: read.append(real(*a)) or read[-1])
    got = outcome(fast, retraction)
    assert read and read[0] is not None, "the fast path did not read the retraction"
    monkeypatch.setattr(corrections, "retraction_frames", lambda *a: None)
    general = chronolog.Reasoner(PROGRAM, text, engine="columns")
    want = outcome(general, retraction)
    monkeypatch.setattr(corrections, "retraction_frames", real)
    return fast, got, want


def outcome(reasoner, retraction):
    """The model after the retraction, or the message refusing it."""
    try:
        return reasoner.retract(retraction)
    except ChronologError as e:
        return str(e)


@pytest.mark.parametrize("form", FORMS)
@settings(max_examples=examples(40), **SETTINGS)
@given(case=session())
def test_the_fast_path_gives_the_general_paths_model(form, case, tmp_path_factory, monkeypatch):
    given, gone = case
    retraction = as_form(gone, form, tmp_path_factory.mktemp("gone"))
    fast, got, want = retract_both_ways(given, retraction, monkeypatch)
    if isinstance(want, str):  # (a piece of q the rules derive and no fact gave: refused, the same way)
        assert got == want and "it is derived by the rules" in want
        return
    assert got.to_text() == want.to_text() == scratch(minus(given, gone))
    assert got.stats["maintained_on"] == want.stats["maintained_on"] == "columns"
    # and the session goes on: the facts back, the model as at first
    assert fast.add("\n".join(fact_text(*g) for g in gone if g in given)).to_text() == scratch(
        minus(given, gone) + [g for g in gone if g in given]
    )


def test_a_piece_splits_a_given_interval():
    r = chronolog.Reasoner(PROGRAM, "p(a)@[0,10]\ne(a,b)@[0,20]", engine="columns")
    m = r.retract(["p(a)@[3,5]", "p(a)@[3,4]", "p(zz)@[0,1]"])  # (a duplicate piece, a value the model never saw)
    assert m.to_text() == scratch([("p", ("a",), make(0, 3, True, False)), ("p", ("a",), make(5, 10, False, True)), ("e", ("a", "b"), make(0, 20))])
    assert m.stats["maintained_on"] == "columns"
    assert r.retract("p(zz)@[0,1]").to_text() == m.to_text()  # (nothing of it in the model: nothing changes)


def test_a_predicate_no_rule_reads():
    # its relation is encoded only when the retraction asks for it: its values have codes then
    r = chronolog.Reasoner(PROGRAM, "p(a)@[0,10]\nu(b)@[-2,+inf)", engine="columns")
    m = r.retract("u(b)@[0,+inf)")
    assert m.facts("u") == [(("b",), (-2, 0, True, False))]
    assert m.stats["maintained_on"] == "columns"


def test_predicates_without_terms():
    program = "q0 :- <->(0,+inf) e(X)."
    r = chronolog.Reasoner(program, "e(a)@[-1,-1]\nq0@[-1,-1]\nq0@[5,6]", engine="columns")
    with pytest.raises(ChronologError, match=r"cannot retract q0@\[7,8\]: it is derived by the rules"):
        r.retract("q0@[7,8]")  # (only the rules give q0 there)
    m = r.retract("q0@[5,6]\ne(a)@[-1,-1]")
    assert m.to_text() == chronolog.reason(program, "q0@[-1,-1]", engine="rows").to_text()
    assert m.stats["maintained_on"] == "columns"


def test_dates_and_booleans(monkeypatch):
    # dates read on the program's timeline; #T (a term of its own, never 1) by the general path
    program = '@timeGranularity("days").\nq(X, B) :- <->[0,1] p(X, B).'
    given = "p(a, #T)@[2020-01-01,2020-01-31]\np(b, 1)@[2020-01-01,2020-01-31]"
    cases = [
        ("p(b, 1)@[2020-01-10,2020-01-12]", "q(b,1)@[2020-01-01,2020-01-11)"),
        ("p(a, #T)@[2020-01-10,2020-01-12]\np(b, 1)@2020-01-20", "q(a,#T)@(2020-01-12,2020-02-01]"),
    ]
    for gone, piece in cases:
        r = chronolog.Reasoner(program, given, engine="columns")
        got = r.retract(gone)
        monkeypatch.setattr(corrections, "retraction_frames", lambda *a: None)
        want = chronolog.Reasoner(program, given, engine="columns").retract(gone)
        monkeypatch.undo()
        assert got.to_text() == want.to_text() and got.stats["maintained_on"] == "columns"
        assert piece in got.to_text()


@pytest.mark.parametrize("size", ["small", "large"])
def test_the_meteor_dialect(size, monkeypatch):
    # MeTeoR's names and readers (its line reader, or the kernels past KERNEL_BYTES)
    program = "Q(X):- Diamondminus[0,2]P(X)\nR(X,Y):- Q(X), E(X,Y)"
    given = "P(a)@[0,10]\nP(b)@[4,6]\nE(a,b)@[0,20]"
    gone = ["P(a)@[3,5]", "E(a,b)@(8,9)", "P(zz)@[1,2]"]
    if size == "large":
        gone += [f"P(x{i})@[1,2]" for i in range(KERNEL_BYTES // 12)]
    r = chronolog.Reasoner(program, given, dialect="meteor", engine="columns")
    read, real = [], corrections.retraction_frames
    monkeypatch.setattr(corrections, "retraction_frames", lambda *a: read.append(real(*a)) or read[-1])
    got = r.retract(gone)
    assert read[0] is not None
    monkeypatch.setattr(corrections, "retraction_frames", lambda *a: None)
    want = chronolog.Reasoner(program, given, dialect="meteor", engine="columns").retract(gone)
    assert got.to_text() == want.to_text() == chronolog.reason(
        program, "P(a)@[0,3)\nP(a)@(5,10]\nP(b)@[4,6]\nE(a,b)@[0,8]\nE(a,b)@[9,20]", dialect="meteor", engine="rows"
    ).to_text()
    assert got.stats["maintained_on"] == "columns"


def test_a_derived_predicates_given_facts_and_conclusions(monkeypatch):
    r = chronolog.Reasoner("q(X) :- p(X).", "p(a)@[0,10]\nq(b)@[5,20]", engine="columns")
    assert r.retract("q(b)@[5,6]").to_text() == "q(a)@[0,10]\nq(b)@(6,20]"
    with pytest.raises(ChronologError, match=r"cannot retract q\(a\)@\[2,3\]: it is derived by the rules"):
        r.retract("q(a)@[2,3]")


def message(program, given, retraction, monkeypatch, general: bool) -> str:
    if general:
        monkeypatch.setattr(corrections, "retraction_frames", lambda *a: None)
    r = chronolog.Reasoner(program, given, engine="columns")
    with pytest.raises(ChronologError) as e:
        r.retract(retraction)
    monkeypatch.undo()
    return str(e.value)


@pytest.mark.parametrize(
    "retraction, expected",
    [
        ("p(a)@[0,1]\nnope(a)@1", "the predicate 'nope' does not occur in the program or its facts"),
        ("p(a)@[0,1]\np(a,b)@1", "p has 2 arguments here but 1"),
        ("p(a)@[0,1]\np(a@1", "<facts>:2:"),
        ("p(a)@[0,1]\np(a)@[0,0] every 5", "repeats forever"),
    ],
)
def test_bad_input_keeps_its_message(retraction, expected, monkeypatch):
    program = "q(X) :- <->[0,2] p(X)."
    fast = message(program, "p(a)@[0,10]", retraction, monkeypatch, general=False)
    assert expected in fast
    assert fast == message(program, "p(a)@[0,10]", retraction, monkeypatch, general=True)


@pytest.mark.parametrize(
    "gone, expected",
    [
        (["p(a,b)@1"], "p has 2 arguments here but 1"),
        (["nope(a)@1"], "the predicate 'nope' does not occur"),
        (["p(1.5)@1", "p(a)@[3,5]"], None),  # (a fraction: the general path reads it)
    ],
)
def test_lines_from_a_generator_are_read_once(gone, expected):
    # the general path, where it takes over, reads the lines the direct one read (a generator is read once)
    program = "q(X) :- <->[0,2] p(X)."
    r = chronolog.Reasoner(program, "p(a)@[0,10]", engine="columns")
    if expected is None:
        assert r.retract(x for x in gone).to_text() == chronolog.reason(program, "p(a)@[0,3)\np(a)@(5,10]", engine="rows").to_text()
        return
    with pytest.raises(ChronologError, match=re.escape(expected)):
        r.retract(x for x in gone)


def test_a_malformed_line_of_a_large_retraction_is_placed(monkeypatch):
    # past KERNEL_BYTES the kernel reader reads it; the bad line keeps its line and column
    lines = [f"p(x{i})@[{i % 50},{i % 50 + 3}]" for i in range(6000)]
    lines[4321] = "p(x1)@[1,"
    assert len("\n".join(lines)) >= KERNEL_BYTES
    program = "q(X) :- <->[0,2] p(X)."
    fast = message(program, "p(x1)@[0,10]", lines, monkeypatch, general=False)
    assert fast.startswith("<facts>:4322:")
    assert fast == message(program, "p(x1)@[0,10]", lines, monkeypatch, general=True)


def test_a_large_text_with_other_line_breaks():
    # str.splitlines (the general path's reading of a text) breaks at a form feed too, the kernels would not
    lines = [f"p(x{i})@[1,2]" for i in range(6000)] + ["p(a)@[3,5]\fp(a)@[7,8]"]
    program = "q(X) :- <->[0,2] p(X)."
    r = chronolog.Reasoner(program, "p(a)@[0,10]", engine="columns")
    assert r.retract("\n".join(lines)).to_text() == chronolog.reason(program, "p(a)@[0,3)\np(a)@(5,7)\np(a)@(8,10]", engine="rows").to_text()


def test_a_large_retraction_is_read_by_the_kernels(monkeypatch):
    import chronolog.language.fact_columns as fact_columns

    given = "\n".join(f"p(x{i})@[{i % 50},{i % 50 + 9}]" for i in range(6000))
    gone = [f"p(x{i})@[{i % 50 + 2},{i % 50 + 4})" for i in range(0, 12000, 2)]  # (half of them of atoms not given)
    assert len("\n".join(gone)) >= KERNEL_BYTES
    called = []
    real = fact_columns.read_fact_columns
    monkeypatch.setattr(fact_columns, "read_fact_columns", lambda *a, **k: called.append(1) or real(*a, **k))
    r = chronolog.Reasoner("q(X) :- <->[0,2] p(X).", given, engine="columns")
    got = r.retract(gone).to_text()
    assert called
    monkeypatch.undo()
    left = [(f"p(x{i})@[{i % 50},{i % 50 + 2})\np(x{i})@[{i % 50 + 4},{i % 50 + 9}]" if i % 2 == 0 else f"p(x{i})@[{i % 50},{i % 50 + 9}]") for i in range(6000)]
    assert got == chronolog.reason("q(X) :- <->[0,2] p(X).", "\n".join(left), engine="rows").to_text()


def test_numbers_of_two_kinds_take_the_general_path():
    # 1.0 equals 1: the general path decides (here: the rows take over, and say why)
    program = "q(X) :- <->[0,2] p(X)."
    r = chronolog.Reasoner(program, "p(1)@[0,10]\np(2)@[0,10]", engine="columns")
    m = r.retract("p(1.0)@[2,3]")
    assert m.to_text() == chronolog.reason(program, "p(1)@[0,2)\np(1)@(3,10]\np(2)@[0,10]", engine="rows").to_text()


@st.composite
def code_frames(draw):
    """Two frames of one arity (0-3: ids packed, or by rows): term codes, interval codes ``s < e``."""
    from chronolog.engine.columns.relation import _frame

    arity = draw(st.integers(0, 3))

    def one():
        rows = draw(st.lists(st.tuples(st.lists(st.integers(0, 3), min_size=arity, max_size=arity), st.integers(-8, 8), st.integers(1, 6)), max_size=8))
        return _frame([[r[0][i] for r in rows] for i in range(arity)], [r[1] for r in rows], [r[1] + r[2] for r in rows])

    return arity, one(), one()


@settings(max_examples=examples(100), **SETTINGS)
@given(case=code_frames())
def test_pieces_met_is_overlap(case):
    # the numpy pieces of a retraction's atoms and the rows they meet
    # (code_frames.meeting), as a polars join of the pairs finds them
    import polars as pl

    from chronolog.engine.columns.maintenance import overlap_and_rows
    from chronolog.engine.columns.relation import term_columns

    arity, df, holes = case
    names = term_columns(arity)
    pieces, met = overlap_and_rows(df, holes, names)
    o = holes.lazy().select(*names, pl.col("s").alias("os"), pl.col("e").alias("oe"))
    m = df.lazy().join(o, on=names, how="inner") if names else df.lazy().join(o, how="cross")
    m = m.filter((pl.col("s") < pl.col("oe")) & (pl.col("os") < pl.col("e"))) if df.height and holes.height else None
    want = [] if m is None else m.select(*names, pl.max_horizontal("s", "os"), pl.min_horizontal("e", "oe")).collect().rows()
    assert sorted(pieces.rows()) == sorted(want)
    # (the rows met as a set: a relation's rows are distinct, these frames' need not be)
    assert sorted(set(met.rows())) == ([] if m is None else sorted(m.select(*names, "s", "e").unique().collect().rows()))
