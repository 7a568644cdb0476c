"""The same facts through every input format give the same model, on both
executors: Python values, fact text (the row reader and, forced on small
files, the Arrow kernel reader), CSV bound with ``@bind`` (the csv module and
the kernel reader), Parquet and Arrow IPC files (rows and table columns), and
an Arrow table given to ``reason``.  Bad cells get the same error from the
row and the kernel readers.

Numbers: ints, decimals (exact) and floats; a column holds one kind of
number, as a typed file does (a CSV cell has no float type: floats go only
through the typed formats)."""

from __future__ import annotations

import os
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.connectors.files import write_facts
from differential import run, typed_facts
from strategies import intervals
from strategies_wide import facts_as_text

pytest.importorskip("polars")

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), print_blob=True, max_examples=examples(25))

PROGRAM = """q(K, N) :- r(K, N).
s(K, M) :- <->[0,1] r(K, N), M = N * 2.
t(K, S) :- r(K, N), S = sum(N).
u(K) :- r(K, N), N > 1.
h(K, N) :- r(K, N) <S>[0,2] r(K, N).
"""
PREDS = ("q", "s", "t", "u", "h")

KINDS = {
    "int": st.integers(-3, 3),
    "decimal": st.sampled_from([Fraction(1, 2), Fraction(5, 4), Fraction(-3, 10), Fraction(2), Fraction(0)]),
    "float": st.sampled_from([0.5, 1.0, 2.25, -0.0, 0.1, 3.0]),
}


@st.composite
def rows_of(draw, kind):
    out = []
    for _ in range(draw(st.integers(1, 5))):
        key = draw(st.sampled_from(["x", "y", "z1"]))
        n = draw(KINDS[kind])
        for iv in draw(intervals()):
            out.append(((key, n), iv))
    return out


def _models(program, facts, engines=("rows", "columns")):
    return {e: run(program, facts, e) for e in engines}


def _typed(m):
    if isinstance(m, str):
        return m
    return {p: typed_facts(m, p) for p in PREDS}


def _bind(path, kind):
    return f'@bind("r", "{kind}", "{path.parent}", "{path.name}").\n'


@pytest.fixture
def kernels_always(monkeypatch):
    """The kernel readers on small inputs too (they start at 64 KB)."""
    import chronolog.api as api
    from chronolog.connectors import csv_columns

    monkeypatch.setattr(api, "KERNEL_BYTES", 0)
    monkeypatch.setattr(csv_columns, "KERNEL_BYTES", 0)


@settings(**SETTINGS)
@given(kind=st.sampled_from(sorted(KINDS)), facts=st.data())
def test_every_input_format_gives_the_same_model(tmp_path_factory, kind, facts):
    rows = facts.draw(rows_of(kind))
    d = tmp_path_factory.mktemp("formats")
    want = _typed(run(PROGRAM, {"r": rows}, "rows"))
    got = {}
    for engine, m in _models(PROGRAM, {"r": rows}).items():
        got[f"values/{engine}"] = m
    for fmt, ext in (("parquet", "parquet"), ("arrow", "arrow")):
        path = d / f"r.{ext}"
        write_facts(path, rows, ["k", "n"], "r", overwrite=True)
        for engine, m in _models(_bind(path, fmt) + PROGRAM, None).items():
            got[f"{fmt}/{engine}"] = m
    from chronolog.engine.arrow import facts_to_arrow

    table = facts_to_arrow(rows, ["k", "n"])
    for engine, m in _models(PROGRAM, {"r": table}).items():
        got[f"table/{engine}"] = m
    if kind != "float":
        text = facts_as_text({"r": rows})
        for engine, m in _models(PROGRAM, text).items():
            got[f"text/{engine}"] = m
        path = d / "r.csv"
        write_facts(path, rows, ["k", "n"], "r", overwrite=True)
        for engine, m in _models(_bind(path, "csv") + PROGRAM, None).items():
            got[f"csv/{engine}"] = m
    bad = {k: _typed(m) for k, m in got.items() if _typed(m) != want}
    assert not bad, f"facts {rows}\nwant {want}\n" + "\n".join(f"{k}: {v}" for k, v in bad.items())


@settings(**SETTINGS)
@given(kind=st.sampled_from(["int", "decimal"]), facts=st.data())
def test_kernel_readers_give_the_row_readers_model(tmp_path_factory, kernels_always, kind, facts):
    rows = facts.draw(rows_of(kind))
    d = tmp_path_factory.mktemp("kernels")
    want = _typed(run(PROGRAM, {"r": rows}, "rows"))
    fact_file = d / "r.facts"
    fact_file.write_text(facts_as_text({"r": rows}) + "\n")
    csv = d / "r.csv"
    write_facts(csv, rows, ["k", "n"], "r", overwrite=True)
    got = {}
    for engine in ("rows", "columns"):
        got[f"facts file/{engine}"] = run(PROGRAM, fact_file, engine)
        got[f"csv/{engine}"] = run(_bind(csv, "csv") + PROGRAM, None, engine)
    bad = {k: _typed(m) for k, m in got.items() if _typed(m) != want}
    assert not bad, f"facts {rows}\nwant {want}\n" + "\n".join(f"{k}: {v}" for k, v in bad.items())


# keys as a user writes them: names, and quoted strings holding escapes,
# separators, '@', '%', unicode and the reader's mask bytes
KEYS = st.one_of(
    st.sampled_from(["x", "y", "z1"]),
    st.text(alphabet='ab ,.()@%[]"\\\'#é€<>:/\t\x01', max_size=6),
)


@settings(**SETTINGS)
@given(facts=st.data())
def test_quoted_terms_read_alike_from_files_and_programs(tmp_path_factory, kernels_always, facts):
    """String terms written quoted: the values given in Python, a fact file
    read by the kernels, the same facts inside the program (read by the
    fact reader apart from the rules, language/program_facts.py) and the program read whole by the
    grammar give one model, on both executors."""
    from chronolog.api import load_program

    rows = []
    for _ in range(facts.draw(st.integers(1, 6))):
        key = facts.draw(KEYS)
        n = facts.draw(KINDS["int"])
        for iv in facts.draw(intervals()):
            rows.append(((key, n), iv))
    from chronolog.language.text import format_term

    d = tmp_path_factory.mktemp("quoted")
    # (as the language writes them: a string that is not a name is quoted, with escapes)
    text = facts_as_text({"r": [((format_term(k), n), iv) for (k, n), iv in rows]}) + "\n"
    fact_file = d / "r.facts"
    fact_file.write_text(text)
    want = _typed(run(PROGRAM, {"r": rows}, "rows"))
    got = {}
    for engine in ("rows", "columns"):
        got[f"facts file/{engine}"] = run(PROGRAM, fact_file, engine)
        got[f"in program/{engine}"] = run(text + PROGRAM, None, engine)
        got[f"whole grammar/{engine}"] = run(load_program(text + PROGRAM), None, engine)  # (parsed by lark alone)
    bad = {k: _typed(m) for k, m in got.items() if _typed(m) != want}
    assert not bad, f"facts {rows}\nwant {want}\n" + "\n".join(f"{k}: {v}" for k, v in bad.items())
    # printed alike too (a fact file's strings are quoted by kernels, connectors/text_out.py)
    texts = {k: m if isinstance(m, str) else m.to_text() for k, m in got.items()}
    assert len(set(texts.values())) == 1, texts


BAD_CELLS = ["x", "1/0", "--1", "1.5.2", "inf", "", "nan", "1e400", "0x10", "+inf"]


@settings(**SETTINGS)
@given(where=st.sampled_from(["start", "end", "n"]), cell=st.sampled_from(BAD_CELLS), row=st.integers(0, 3))
def test_bad_cells_get_one_error_from_every_csv_reader(tmp_path_factory, where, cell, row):
    """The same CSV read by the csv module and by the kernels (forced)."""
    d = tmp_path_factory.mktemp("bad")
    lines = ["k,n,start,end"] + [f"x,{i},{i},{i + 1}" for i in range(4)]
    k, n, s, e = lines[row + 1].split(",")
    cells = {"n": n, "start": s, "end": e}
    cells[where] = cell
    lines[row + 1] = ",".join([k, cells["n"], cells["start"], cells["end"]])
    path = d / "r.csv"
    path.write_text("\n".join(lines) + "\n")
    program = _bind(path, "csv") + '@mapping("r", 1, "n", "int").\n' + PROGRAM
    plain = {e: run(program, None, e) for e in ("rows", "columns")}
    import chronolog.api as api
    from chronolog.connectors import csv_columns

    saved = csv_columns.KERNEL_BYTES, api.KERNEL_BYTES
    csv_columns.KERNEL_BYTES = api.KERNEL_BYTES = 0
    try:
        kernel = {e: run(program, None, e) for e in ("rows", "columns")}
    finally:
        csv_columns.KERNEL_BYTES, api.KERNEL_BYTES = saved
    texts = {f"{a}/{b}": (m if isinstance(m, str) else m.to_text()) for a, ms in (("plain", plain), ("kernel", kernel)) for b, m in ms.items()}
    assert len(set(texts.values())) == 1, texts


def test_to_pandas_and_polars_keep_the_arrow_typing():
    """Output as Arrow, pandas and polars: one typing on both executors."""
    facts = {"r": [(("x", 0.5), (0, 1)), (("y", Fraction(1, 4)), (0, 2)), (("y", 2), (1, 3))]}
    program = "q(K, N) :- r(K, N), K == x.\np(K, N) :- r(K, N), K == y."
    rows = chronolog.reason(program, facts, engine="rows")
    cols = chronolog.reason(program, facts, engine="columns")
    for pred in ("q", "p"):
        assert rows.to_arrow(pred).equals(cols.to_arrow(pred))
        assert rows.to_pandas(pred).equals(cols.to_pandas(pred))
        assert rows.to_polars(pred).equals(cols.to_polars(pred))
