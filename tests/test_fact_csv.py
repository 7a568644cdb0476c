"""``chronolog run --format csv`` writes one CSV of every output predicate
(``pred``, the terms, ``start``, ``end``, closedness, ``every``); ``--facts
FILE.csv`` and ``reason(program, Path("FILE.csv"))`` read it back as the
facts written (connectors/fact_csv.py)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from click.testing import CliRunner

import chronolog
from chronolog.commands import cli

# every kind of term the writer marks: numbers (a rational), booleans,
# labelled nulls, sets, dates, strings that read as other terms ("1", "#T",
# "_:x", ""), strings with blanks, commas and quotes, and arities that differ
# per predicate (cells after the last argument empty), a fact that repeats
KINDS = """
p(a, 1, 1/3, -2.5, #T, "x y", " pad ", "", "1", 2020-01-01, "#T", "a,b", "_:x", "say \\"hi\\"", {1,b}, "2020-01-01")@[0,2).
q(A,B,C,D,E,F,G,H,I,J,K,L,M,N,O,P) :- p(A,B,C,D,E,F,G,H,I,J,K,L,M,N,O,P).
r(Y, X) :- p(X, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _).
z :- p(a, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _).
j(a)@[0,0] every 30.
k(X) :- j(X).
s(S) :- p(X, V, _, _, _, _, _, _, _, _, _, _, _, _, _, _), S = munion(V).
w(X)@[S, E] :- p(X, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _)@[S, E].
h(X) :- <->[0,+inf) p(X, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _).
@output("q"). @output("r"). @output("z"). @output("k"). @output("s"). @output("h").
"""
OUTPUTS = '@output("q"). @output("r"). @output("z"). @output("k"). @output("s"). @output("h").\n'
DATES = """
@timeGranularity("days").
shift(a, 2020-01-01)@[2020-01-01, 2020-01-03) every P7D.
late(X, D) :- <->[1,1] shift(X, D).
@output("late"). @output("shift2").
shift2(X, D) :- shift(X, D).
"""


def _facts(model, preds):
    """Each predicate's facts with their terms' types (a string "1" is not the number 1)."""
    return {p: sorted(((tuple((type(v).__name__, repr(v)) for v in t), iv) for t, iv in model.facts(p)), key=repr)
            for p in preds}


@pytest.mark.parametrize("src, outputs", [(KINDS, OUTPUTS), (DATES, '@timeGranularity("days").\n@output("late"). @output("shift2").\n')])
def test_run_csv_reads_back_as_the_model(tmp_path, src, outputs):
    """run -> --format csv -> run --facts out.csv: the same model, typed
    (a null is the file's own, named alike), also through reason(Path)."""
    prog, echo = tmp_path / "prog.vada", tmp_path / "echo.vada"
    prog.write_text(src)
    echo.write_text(outputs)
    first = CliRunner().invoke(cli, ["run", str(prog), "--format", "csv"])
    assert first.exit_code == 0, first.output
    out = tmp_path / "out.csv"
    out.write_text(first.stdout)
    again = CliRunner().invoke(cli, ["run", str(echo), "--facts", str(out)])
    assert again.exit_code == 0, again.output
    text = CliRunner().invoke(cli, ["run", str(prog)])
    assert again.stdout == text.stdout
    model = chronolog.reason(prog)
    read = chronolog.reason(echo, out)
    preds = model.output_predicates
    assert set(read.predicates()) == set(preds)
    assert _facts(read, preds) == _facts(model, preds)
    assert read.lines() == model.lines()


def test_a_large_csv_of_facts_is_read_as_csv_on_columns(tmp_path):
    """Past the size where fact files go to the kernel reader, a .csv file
    is still read as CSV (the columns' engine, the same model as rows)."""
    prog = tmp_path / "p.vada"
    prog.write_text('q(X, Y) :- p(X, Y), Y > 10.\n@output("q").\n')
    out = tmp_path / "p.csv"
    out.write_text("pred,c0,c1,start,end,start_closed,end_closed\n"
                   + "".join(f"p,k{i % 97},{i},{i % 50},{i % 50 + 2},true,false\n" for i in range(60_000)))
    rows = chronolog.reason(prog, out, engine="rows")
    cols = chronolog.reason(prog, [out], engine="auto")
    assert cols.lines() == rows.lines()
    assert len(rows.facts("q")) == 60_000 - 11


@pytest.mark.parametrize("text, where, says", [
    ("pred,c0,start\np,a,0\n", ":1:1:", "no end column"),
    ("c0,start,end\na,0,1\n", ":1:1:", "no pred column"),
    ("pred,c0,start,end\np,a,0\n", ":2:4:", "the row has 3 cells but the header names 4 columns"),
    ("pred,c0,start,end\nP,a,0,1\n", ":2:1:", "column pred: 'P' is not a predicate name"),
    ("pred,c0,c1,start,end\np,,a,0,1\n", ":2:2:", "column c0: an empty cell before c1"),
    ('pred,c0,start,end\np,"""a",0,1\n', ":2:2:", 'column c0: "a is not a string'),
    ("pred,c0,start,end\n\np,a,x,1\n", ":3:3:", "column start: 'x' is not a number"),
    ("pred,c0,c1,start,end\np,a,,0,1\np,a,b,0,1\n", ":3:1:", "p has 2 arguments here but 1"),
    ("pred,c0,start,end,every\np,a,0,1,zz\n", ":2:5:", "column every: 'zz' is not a period"),
    ("pred,c0,start,end,start_closed\np,a,0,1,maybe\n", ":2:5:", "column start_closed: 'maybe' is not a boolean"),
    ("pred,c0,start,end\np,a,2,1\n", ":2:3:", "the interval from 2 to 1 is empty"),
    ("pred,c0,c0,start,end\np,a,b,2,1\n", ":1:3:", "names the column 'c0' twice"),
])
def test_a_bad_csv_of_facts_is_named_by_file_line_and_column(tmp_path, text, where, says):
    prog = tmp_path / "p.vada"
    prog.write_text("q(X) :- p(X).\n")
    path = tmp_path / "bad.csv"
    path.write_text(text)
    out = CliRunner().invoke(cli, ["run", str(prog), "--facts", str(path)])
    assert out.exit_code == 2, out.output
    assert f"{path}{where}" in out.output and says in out.output, out.output
    assert "Traceback" not in out.output
    with pytest.raises(chronolog.ChronologError, match=says.replace("(", r"\(").replace(")", r"\)").replace("'", "'")):
        chronolog.reason(prog, Path(path))


def test_a_hand_written_csv_of_facts_reads_bare_cells_as_the_language_does(tmp_path):
    """A cell is a term as the language writes it, or else the string it
    holds; start_closed, end_closed and every may be left out."""
    path = tmp_path / "in.csv"
    path.write_text('pred,name,value,start,end\nreading,sensor one,71.5,0,10\nreading,s2,3/4,5,+inf\nflag,"a,b",,1,1\n')
    model = chronolog.reason('hot(S) :- reading(S, V), V > 70.\n@output("hot"). @output("flag"). @output("reading").\n', path)
    assert sorted(model.lines()) == sorted(['flag("a,b")@[1,1]', 'hot("sensor one")@[0,10]',
                                            'reading("sensor one",71.5)@[0,10]', "reading(s2,0.75)@[5,+inf)"])
    assert Fraction(3, 4) in [t[1] for t, _ in model.facts("reading")]


def test_read_facts_takes_one_predicate_of_the_csv_of_many(tmp_path):
    """``connectors.files.read_facts(path, pred)`` of the CSV ``run --format
    csv`` prints gives that predicate's rows (the pred column is not a term)."""
    from chronolog.connectors.files import read_facts

    prog = tmp_path / "p.vada"
    prog.write_text(KINDS)
    out = CliRunner().invoke(cli, ["run", str(prog), "--format", "csv"])
    path = tmp_path / "out.csv"
    path.write_text(out.stdout.replace(",30\n", ",\n").replace("k,a,", "k,b,"))  # (no fact that repeats: rows only)
    model = chronolog.reason(prog)
    assert sorted(read_facts(path, "s"), key=repr) == sorted(model.facts("s"), key=repr)
    assert read_facts(path, "z") == model.facts("z") == [((), (0, 2, True, False))]
    assert read_facts(path, "k") == [(("b",), (0, 0, True, True))]


_TEXT = st.text(alphabet=st.sampled_from(list('ab Z09,"\\#_:{}()@.%-/+\t') + ["é", "\n"]), max_size=8)
_TERMS = st.one_of(_TEXT, st.integers(-10**20, 10**20), st.fractions(max_denominator=9).filter(lambda f: f.denominator > 1),
                   st.sampled_from(["1", "#T", "#F", "_:n1", "", "{1,a}", "2020-01-01", "float(1.5)", "inf", '"x"']))


@settings(deadline=None, max_examples=examples(60))
@given(st.lists(st.tuples(st.sampled_from(["p", "q", "r0"]), st.lists(_TERMS, max_size=3), st.integers(0, 5)), min_size=1, max_size=6))
def test_any_terms_written_as_csv_read_back_as_themselves(tmp_path_factory, facts):
    """Random strings (quotes, commas, blanks, #, _:, braces, newlines),
    numbers and strings that spell other terms: the model of the given
    facts, printed with --format csv and read back with --facts, is the
    same model (typed), whatever the arities per predicate."""
    arity = {}
    given = {}
    for pred, terms, start in facts:
        terms = tuple(terms[: arity.setdefault(pred, len(terms))]) + ("pad",) * (arity[pred] - len(terms[: arity[pred]]))
        given.setdefault(pred, []).append((terms, (start, start + 2)))
    outputs = "".join(f'@output("{p}"). ' for p in given) + "\n"
    model = chronolog.reason(outputs, given)
    tmp = tmp_path_factory.mktemp("csv")
    prog = tmp / "echo.vada"
    prog.write_text(outputs)
    import io

    from chronolog.ux_cli import model_facts, write_facts

    buf = io.StringIO()  # (what run --format csv prints of the model)
    write_facts(model, model_facts(model, model.output_predicates, None), "csv", buf)
    path = tmp / "out.csv"
    path.write_text(buf.getvalue(), encoding="utf-8", newline="")
    back = chronolog.reason(prog, path)
    assert _facts(back, list(given)) == _facts(model, list(given))
