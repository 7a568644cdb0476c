"""``chronolog run --format csv`` writes one CSV of every output predicate
(``pred``, the terms, ``start``, ``end``, closedness, ``every``); ``--facts
FILE.csv`` and ``reason(program, Path("FILE.csv"))`` read it back as the
facts written (connectors/fact_csv.py)."""

from __future__ import annotations

import datetime
from fractions import Fraction
from pathlib import Path

import pytest
from budget import examples
from hypothesis import example, given, settings
from hypothesis import strategies as st
from click.testing import CliRunner

import chronolog
from chronolog.commands import cli
from chronolog.language.nulls import Null

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


CARRIAGE = 'p("a\\rb", 1)@[0,1]. p("\\r", 2)@[0,1]. p("c\\r\\nd", 3)@[0,1]. p("e\\nf", 4)@[0,1]. p(" \\r", 5)@[0,1].\n@output("p").\n'


def test_carriage_returns_in_strings_read_back_from_csv(tmp_path):
    """A string holding a carriage return, alone or before a newline: run
    --format csv wrote "a<CR>b" bare (the csv module quotes only its line
    terminator's characters), a line end for the reader, and the reader
    made a quoted lone one a newline (as in a program's text); the
    model reads back as itself, from --format csv and from --output's
    files bound to the program (found by the round trip below)."""
    prog, echo = tmp_path / "prog.vada", tmp_path / "echo.vada"
    prog.write_text(CARRIAGE)
    echo.write_text('@output("p").\n')
    run = CliRunner()
    text = run.invoke(cli, ["run", str(prog)])
    assert text.stdout == 'p("\\r",2)@[0,1]\np(" \\r",5)@[0,1]\np("a\\rb",1)@[0,1]\np("c\\r\\nd",3)@[0,1]\np("e\\nf",4)@[0,1]\n'
    out = tmp_path / "out.csv"
    out.write_bytes(run.invoke(cli, ["run", str(prog), "--format", "csv"]).stdout_bytes)
    back = run.invoke(cli, ["run", str(echo), "--facts", str(out)])
    assert back.exit_code == 0 and back.stdout == text.stdout, back.output
    assert run.invoke(cli, ["run", str(prog), "--output", str(tmp_path / "dir")]).exit_code == 0
    bound = tmp_path / "bound.vada"
    bound.write_text(f'@bind("p", "csv useHeaders=true", "{tmp_path / "dir"}", "p.csv").\no(S, N) :- p(S, N).\n@output("o").\n')
    again = run.invoke(cli, ["run", str(bound)])
    assert again.exit_code == 0 and again.stdout == text.stdout.replace("p(", "o("), again.output


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


_BAD = [  # (bad cells and rows, each named by its line and column)
    ("pred,c0,start,end\np,a,0\n", ":2:4:", "the row has 3 cells but the header names 4 columns"),
    ("pred,c0,start,end\nP,a,0,1\n", ":2:1:", "column pred: 'P' is not a predicate name"),
    ("pred,c0,c1,start,end\np,,a,0,1\n", ":2:2:", "column c0: an empty cell before c1"),
    ('pred,c0,start,end\np,"""a",0,1\n', ":2:2:", 'column c0: "a is not a string'),
    ("pred,c0,start,end\n\np,a,x,1\n", ":3:3:", "column start: 'x' is not a number"),
    ("pred,c0,c1,start,end\np,a,,0,1\np,a,b,0,1\n", ":3:1:", "p has 2 arguments here but 1"),
    ("pred,c0,start,end,every\np,a,0,1,zz\n", ":2:5:", "column every: 'zz' is not a period"),
    ("pred,c0,start,end,start_closed\np,a,0,1,maybe\n", ":2:5:", "column start_closed: 'maybe' is not a boolean"),
    ("pred,c0,start,end\np,a,2,1\n", ":2:3:", "the interval from 2 to 1 is empty"),
]


@pytest.mark.parametrize("text, where, says", [
    ("pred,c0,start\np,a,0\n", ":1:1:", "no end column"),
    ("c0,start,end\na,0,1\n", ":1:1:", "no pred column"),
    *_BAD,
    ("pred,c0,c0,start,end\np,a,b,2,1\n", ":1:3:", "names the column 'c0' twice"),
])
def test_a_bad_csv_of_facts_is_named_by_file_line_and_column(tmp_path, text, where, says):
    _named(tmp_path, text, where, says)


def _named(tmp_path, text, where, says, **options):
    """``run --facts`` and ``reason`` of the CSV ``text`` stop at the error ``says`` at ``where``."""
    prog = tmp_path / "p.vada"
    prog.write_text("q(X) :- p(X).\n")
    path = tmp_path / "bad.csv"
    path.write_text(text)
    out = CliRunner().invoke(cli, ["run", str(prog), "--facts", str(path)])
    assert out.exit_code == 2, out.output
    assert f"{path}{where}" in out.output and says in out.output, out.output
    assert "Traceback" not in out.output
    with pytest.raises(chronolog.ChronologError, match=says.replace("(", r"\(").replace(")", r"\)").replace("'", "'")):
        chronolog.reason(prog, Path(path), **options)


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


# ------------------------------------------------ the kernels' reading (connectors/fact_csv_columns.py)


def _view(rows):
    """A FactRows as plain data: each predicate's facts with their terms'
    types (a null by its label), in order, its first place, the facts that
    repeat, and the predicates' order."""
    from chronolog.language.nulls import Null

    def term(v):
        if type(v) is Null:
            return ("Null", str(v))
        if type(v) is tuple:
            return ("set", tuple(term(x) for x in v))
        return (type(v).__name__, repr(v))

    return (list(rows), {p: [(tuple(map(term, t)), iv) for t, iv in lst] for p, lst in rows.items()},
            {p: rows.positions[p] for p in rows},
            {p: [(tuple(map(term, t)), iv, every, pos) for t, iv, every, pos in lst] for p, lst in rows.repeating.items()})


def _kernels_and_rows(path, calendar=None):
    """The kernels' reading of ``path`` (as values, and coded by a run's
    Dictionary) against the row reader's: the same facts, places and
    order, or where the row reader finds an error, None or that error
    (its message, file, line and column).  Returns the kernels'
    FactColumns (None: left to the row reader, or its error) and the row
    reader's FactRows (None: its error)."""
    from chronolog.connectors.fact_csv import read_rows
    from chronolog.connectors.fact_csv_columns import read_columns
    from chronolog.engine.columns.encoding import Dictionary

    def read(reader, *args, **options):
        try:
            return reader(path, calendar, *args, **options), None
        except chronolog.ChronologError as e:
            return None, str(e)

    rows, error = read(read_rows)
    fast, fast_error = read(read_columns, min_bytes=0)
    coded, coded_error = read(read_columns, Dictionary(), min_bytes=0)
    assert (fast is None) == (coded is None) and fast_error == coded_error
    if fast_error is not None:
        assert fast_error == error
    if rows is None:
        assert fast is None, "the kernels read a file the row reader refuses"
    elif fast is not None:
        assert _view(fast.rows()) == _view(rows)
        assert _view(coded.rows()) == _view(rows)
    return fast, rows


@pytest.mark.parametrize("text, lines", [
    # a quoted newline: the rows after it are a line further
    ('pred,c0,c1,start,end\np,"a\nb",1,0,1\nq,x,,2,3\np,c,2,4,5\n', {"p": 2, "q": 4}),
    ('pred,c0,start,end\np,"a\n\nb",0,1\nq,"\n",2,3\nq,z,4,5', {"p": 2, "q": 5}),
    # a byte order mark, CRLF line ends (a quoted one kept in its cell)
    ('\ufeffpred,c0,start,end\r\np,a,0,1\r\nq,"x\r\ny",0,1\r\nr,b,1,2\r\n', {"p": 2, "q": 3, "r": 5}),
    # blank lines between rows and at the end (skipped, counted)
    ("pred,c0,start,end\np,a,0,1\n\n\nq,b,1,2\n\r\n\n", {"p": 2, "q": 5}),
    # lines of blanks of another count of cells than the header's (skipped, counted)
    ("pred,c0,start,end\np,a,0,1\n   \n , ,\n,,,,,\nq,b,0,1\n", {"p": 2, "q": 6}),
    # empty cells: after a predicate's last argument, the quoted empty
    # string (written """""" as a term), arity 0, a whole row of arity 0
    ('pred,c0,c1,start,end\np,"""""",,0,1\nz,,,0,1\ns,a,"",1,2\np,b,,1,2\n', {"p": 2, "s": 4, "z": 3}),
    # doubled quotes, a comma and blanks inside quotes, labelled nulls, sets, #T, dates as terms
    ('pred,c0,c1,start,end\np,"say ""hi""","a,b",0,1\np," pad ",_:n1,0,1\np,"{1,b}",#T,1,2\np,2020-01-01,_:n1,1,2\n', {"p": 2}),
    # numbers: integers, decimals (whole ones read as integers), fractions, floats, and words with blanks
    ("pred,c0,c1,start,end\nn,007,-0,0,1\nn,1.50,2.0,0,1\nn,1/3,float(1.5),0,1\nn,sensor 12,Sensor one two,0,1\nn,99999999999999999999,0.5,0,1\n", {"n": 2}),
    # times: decimals, fractions, infinities, closedness, a fact that repeats among its predicate's
    ("pred,c0,start,end,start_closed,end_closed,every\np,a,-inf,1/3,true,false,\np,b,0.5,+inf,false,false,\np,c,0,0,true,true,7\nj,a,0,1,true,false, 30 \n",
     {"p": 2, "j": 5}),
])
def test_the_kernels_read_a_csv_of_facts_as_the_rows_do(tmp_path, text, lines):
    """Quoted newlines, a byte order mark, CRLF, blank lines, empty cells,
    every kind of cell: the kernels read the facts, their places (the
    line of each predicate's first row) and their order as the row reader
    does, as values and coded."""
    path = tmp_path / "f.csv"
    path.write_bytes(text.encode("utf-8"))
    fast, rows = _kernels_and_rows(path)
    assert fast is not None and rows is not None
    assert {p: rows.positions[p].line for p in rows.positions} == lines


def test_the_kernels_read_dates_as_the_rows_do(tmp_path):
    from chronolog.language.dates import Calendar

    path = tmp_path / "d.csv"
    path.write_text("pred,c0,start,end,start_closed,end_closed,every\n"
                    "shift,a,2020-01-01,2020-01-03,true,false,P7D\nshift,b,2020-01-02,2020-01-03T12:00:00,true,true,\n"
                    "late,a,-inf,2020-02-29,false,false,\nlate,c,1969-12-31,+inf,true,false,\n")
    for unit in ("days", "hours"):
        fast, rows = _kernels_and_rows(path, Calendar(unit))
        assert rows is not None and (fast is not None or unit == "days")  # (noon is no day: the row reader says so)
    fast, rows = _kernels_and_rows(path, Calendar("hours"))
    assert fast is not None


def test_the_kernels_read_a_long_csv_of_many_predicates_in_blocks(tmp_path, monkeypatch):
    """More rows than 16-bit indices hold, over many of Arrow's blocks
    (their dictionaries unified): as the rows."""
    from chronolog.connectors import fact_csv_columns

    path = tmp_path / "long.csv"
    path.write_text("pred,c0,c1,start,end,start_closed,end_closed\n" + "".join(
        f"{'pqr'[i % 3]}{i % 7},k{i % 70001},{i % 13 if i % 5 else f'x {i}'},{i % 50},{i % 50 + 2},true,{str(i % 2 == 0).lower()}\n"
        for i in range(70_000)))
    monkeypatch.setattr(fact_csv_columns, "BLOCK", 1 << 16)
    fast, rows = _kernels_and_rows(path)
    assert fast is not None and sum(map(len, rows.values())) == 70_000


@pytest.mark.parametrize("text", [
    'pred,"c0",start,end\np,a,0,1\n',  # a quoted header cell
    "pred,c0,start,end\rp,a,0,1\rq,b,1,2\r",  # lone carriage returns (line ends for the csv module)
    "\npred,c0,start,end\np,a,0,1\n",  # a blank line before the header
    'pred,c0,start,end\np,a"b,0,1\np,"x"y,0,1\n',  # quotes inside a bare cell, after a quoted one
    "pred,c0,start,end\np," + "x" * 131_073 + ",0,1\n",  # a cell longer than the csv module takes
])
def test_what_the_kernels_leave_to_the_rows_reads_as_before(tmp_path, text):
    """Files the kernels would read otherwise than the csv module (or not
    at all) are the row reader's: read or refused as before."""
    from chronolog.connectors import fact_csv

    path = tmp_path / "f.csv"
    path.write_bytes(text.encode("utf-8"))
    fast, rows = _kernels_and_rows(path)
    assert fast is None
    try:
        got = fact_csv.read(path)
    except chronolog.ChronologError as e:
        assert rows is None, e
    else:
        assert _view(got) == _view(rows)


def _padded(text: str) -> str:
    """``text`` with rows of another predicate after it, past the size
    from which the kernels read a CSV of facts (the error stays where it is)."""
    header = [h.strip() for h in text.split("\n", 1)[0].split(",")]
    cell = {"pred": "pad", "start": "0", "end": "1", "start_closed": "true", "end_closed": "true", "every": ""}
    row = ",".join(cell.get(h, "a") for h in header) + "\n"
    return text + row * (70_000 // len(row))


@pytest.mark.parametrize("text, where, says", [
    *_BAD,
    ('pred,c0,start,end\np,"a\nb",0,1\n\nq,"x\ny",0,1\nq,b,2,x\n', ":7:4:", "column end: 'x' is not a number"),
])
def test_a_bad_large_csv_of_facts_is_named_by_file_line_and_column(tmp_path, text, where, says):
    """The errors of a file the kernels would read: each named at its
    line (after quoted newlines and blank lines) and column, as in a small one."""
    text = _padded(text)
    assert len(text.encode("utf-8")) >= 1 << 16
    _named(tmp_path, text, where, says, engine="columns")


@pytest.mark.parametrize("text, where, says", [
    *_BAD,
    ("pred,c0,start,end\n" + "p,a,0,1\n , \n" * 3000 + "p,b,1,2,3\nq,\n", ":6002:5:", "the row has 5 cells but the header names 4"),
    ('pred,c0,start,end\np,"a\nb",0,1\n\nq,"x\ny",0,1\nq,b,2,x\n', ":7:4:", "column end: 'x' is not a number"),
    ('pred,c0,c1,start,end\np,"a\n\nb",x,0,1\n\nq,"P\nQ",y,0,1\nq,"P\nQ",,0,1\nq,"""s",,0,1\n', ":8:1:", "q has 1 argument here but 2 at"),
    ('pred,c0,c1,start,end\np,"a\n\nb",x,0,1\n\nq,"P\nQ",y,0,1\nq,"""s",z,0,1\nq,z,,0,1\n', ":8:2:", 'column c0: "s is not a string'),
    ("pred,c0,start,end,start_closed\n" + "p,a,0,1,true\n" * 3000 + "p,b,1,2,maybe\n", ":3002:5:", "'maybe' is not a boolean"),
])
def test_the_kernels_name_a_bad_row_of_a_large_csv_as_the_row_reader_does(tmp_path, text, where, says):
    """A bad row of a file the kernels read is named by them, with the row
    reader's message, file, line and column (they read only its rows from
    that one on), not by a second reading of the whole file row by row; a
    ragged row too (after lines of blanks, which the row reader skips)."""
    from chronolog.connectors.fact_csv import read_rows
    from chronolog.connectors.fact_csv_columns import read_columns
    from chronolog.engine.columns.encoding import Dictionary

    path = tmp_path / "bad.csv"
    path.write_text(_padded(text) if len(text) < 1 << 16 else text)
    with pytest.raises(chronolog.ChronologError) as rows:
        read_rows(path)
    assert f"{path}{where}" in str(rows.value) and says in str(rows.value)
    for terms in (None, Dictionary()):
        with pytest.raises(chronolog.ChronologError) as fast:
            read_columns(path, None, terms, min_bytes=0)
        assert str(fast.value) == str(rows.value)


def test_a_large_csv_of_facts_goes_to_the_columns_as_read(tmp_path):
    """A CSV of facts past the kernels' size is read into FactColumns for
    the columnar executor (as fact text is), not rows."""
    from chronolog.api import _fact_columns

    path = tmp_path / "big.csv"
    path.write_text("pred,c0,c1,start,end\n" + "".join(f"p,k{i % 97},{i},{i % 50},{i % 50 + 2}\n" for i in range(6000)))
    columns = _fact_columns(path, "vadalog")
    assert columns is not None and [fc.count("p") for fc in columns] == [6000]
    assert columns[0].slow == {} and not columns[0].slow.repeating


def test_csv_and_fact_text_files_in_one_list_each_go_to_their_kernels(tmp_path):
    """A list of ``.csv`` and fact-text files: each run of files of one kind
    read by its own kernels into columns (a small CSV's rows beside them),
    the model the rows' reading of the same list gives; a predicate of two
    arities in two files still named at both places."""
    from chronolog.api import _fact_columns

    big_csv = tmp_path / "big.csv"
    big_csv.write_text("pred,c0,c1,start,end\n" + "".join(f"p,k{i % 97},{i},{i % 50},{i % 50 + 2}\n" for i in range(6000)))
    small_csv = tmp_path / "small.csv"
    small_csv.write_text('pred,c0,c1,start,end,every\np,x,"1",0,1,\nr,a,b,0,0,30\n')
    text = tmp_path / "big.txt"
    text.write_text("".join(f"p(t{i % 89},{i})@[{i % 40},{i % 40 + 3}]\n" for i in range(5000)) + "r(c,d)@5\n")
    small_text = tmp_path / "small.txt"
    small_text.write_text("p(y,2)@1\n")
    files = [small_text, big_csv, text, small_csv]
    columns = _fact_columns(files, "vadalog")
    assert columns is not None
    assert [fc.count("p") for fc in columns] == [1, 6000, 5000, 1]  # (the two text files: one FactColumns each, in order)
    assert columns[1].slow == {} and columns[2].slow == {}
    prog = tmp_path / "p.vada"
    prog.write_text('q(X, Y) :- p(X, Y).\ns(X) :- r(X, Y).\n@output("q"). @output("s").\n')
    rows = chronolog.reason(prog, files, engine="rows")
    cols = chronolog.reason(prog, files, engine="columns")
    assert cols.lines() == rows.lines()
    assert len(rows.facts("q")) == len({t for fc in _fact_columns(files, "vadalog") for t, _ in fc.rows().get("p", [])})
    other = tmp_path / "other.txt"
    other.write_text("p(z)@1\n")
    assert _fact_columns([big_csv, other], "vadalog") is None  # (the rows' reading names both places)
    with pytest.raises(chronolog.ChronologError, match="p has 1 argument here but 2"):
        chronolog.reason(prog, [big_csv, other], engine="columns")


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_a_csv_of_facts_is_added_and_retracted_as_its_fact_text(tmp_path, engine):
    """``Reasoner.add`` and ``retract`` of a ``Path`` to a CSV of facts take
    the facts it holds, as the same facts' text does."""
    table = tmp_path / "change.csv"
    table.write_text("pred,c0,start,end,end_closed\na,x,0,1,true\na,z,1,2,false\n")
    text = "a(x)@[0,1]\na(z)@[1,2)"
    program = 'q(X) :- a(X).\n@output("q").\na(x)@[0,3].\na(y)@[0,1].'
    for how in ("retract", "add"):
        by_csv, by_text = (chronolog.Reasoner(program, engine=engine) for _ in range(2))
        getattr(by_csv, how)(table)
        getattr(by_text, how)(text)
        assert by_csv.model.lines() == by_text.model.lines()


_CELL = st.one_of(
    st.text(alphabet=st.sampled_from(list('aZ09 ,"\n\r#_:{}./-+\t') + ["é"]), max_size=6),
    st.from_regex(r"[A-Za-z][a-z0-9_]{0,3}( [A-Za-z0-9_]{1,3}){0,2}", fullmatch=True),
    st.from_regex(r"-?[0-9]{1,20}(\.[0-9]{1,10})?", fullmatch=True),
    st.sampled_from(["inf", "nan", "true", "not", "every", "float", "P3D", "_:n1", "#T", "#F", "1/0", '""', "", "a b",
                     "X", "Ab cd", "1 2", "a - b", "2020-01-01", "2020-01-01 10:00", "{1,a}"]),
)


def _csv_cell(cell: str, quote: int) -> str:
    """``cell`` as a CSV cell: bare (0), quoted as the csv module quotes
    (1), or quoted whatever it holds (2)."""
    if quote == 0:
        return cell
    if quote == 1 and not any(c in cell for c in ',"\n\r') and cell.strip() == cell:
        return cell
    return '"' + cell.replace('"', '""') + '"'


@settings(deadline=None, max_examples=examples(150))
@given(st.lists(st.tuples(st.sampled_from(["p", "q"] * 8 + [" p", "P"]), st.lists(st.tuples(_CELL, st.sampled_from([1, 1, 1, 2, 0])), max_size=3),
                          st.sampled_from(["0", "1", "1/2", "-inf", "2.5"] * 4 + ["x", "", " "]), st.sampled_from(["3", "+inf", "3", "1", "", " "]),
                          st.sampled_from(["true", "false", "#F"] * 6 + ["maybe"]), st.sampled_from([""] * 12 + ["5", "zz"])),
                min_size=1, max_size=8),
       st.sampled_from(["\n", "\r\n"]), st.booleans())
@example(rows=[("p", [], "0", "3", "true", "5"), ("q", [("", 1)], "0", "3", "true", ""), ("p", [], "0", "3", "true", "")],
         newline="\n", bom=False)  # (p's first fact repeats: the predicates in the order of their first that does not)
def test_any_csv_of_facts_reads_alike_by_kernels_and_rows(tmp_path_factory, rows, newline, bom):
    """Hand-written CSV files of facts (any cells, quoted or not, ragged,
    blank, bad; empty ends: unbounded): where the row reader reads one, the
    kernels read the same facts or leave it to it; where it finds an error,
    they leave it to it."""
    width = max(len(cells) for _, cells, *_ in rows)
    lines = ["pred," + ",".join(f"c{i}" for i in range(width)) + ",start,end,end_closed,every"]
    arity: dict = {}
    for pred, cells, lo, hi, closed, every in rows:
        n = arity.setdefault(pred.strip(), len(cells))  # (mostly one arity a predicate; an empty cell mostly the string "")
        cells = (cells + [("a", 0)] * n)[:n] if len(rows) % 4 else cells
        terms = [_csv_cell(c if c or len(rows) % 3 == 0 else '""', q) for c, q in cells] + [""] * (width - len(cells))
        lines.append(",".join([pred, *terms, lo, hi, closed, every]))
    path = tmp_path_factory.mktemp("csv") / "f.csv"
    path.write_bytes((("\ufeff" if bom else "") + newline.join(lines) + newline).encode("utf-8"))
    _kernels_and_rows(path)


@settings(deadline=None, max_examples=examples(60))
@given(st.lists(st.tuples(st.sampled_from(["p", "q", "r0"]), st.lists(_TERMS, max_size=3), st.integers(0, 5)), min_size=1, max_size=6))
def test_any_terms_written_as_csv_are_read_by_the_kernels(tmp_path_factory, facts):
    """What ``run --format csv`` writes of any terms (quotes, commas,
    newlines, strings that spell other terms) is read by the kernels, not
    left to the row reader, and read as the rows read it."""
    arity = {}
    given = {}
    for pred, terms, start in facts:
        terms = tuple(terms[: arity.setdefault(pred, len(terms))]) + ("pad",) * (arity[pred] - len(terms[: arity[pred]]))
        given.setdefault(pred, []).append((terms, (start, start + 2)))
    model = chronolog.reason("".join(f'@output("{p}"). ' for p in given), given)
    import io

    from chronolog.ux_cli import model_facts, write_facts

    buf = io.StringIO()
    write_facts(model, model_facts(model, model.output_predicates, None), "csv", buf)
    path = tmp_path_factory.mktemp("csv") / "out.csv"
    path.write_text(buf.getvalue(), encoding="utf-8", newline="")
    fast, rows = _kernels_and_rows(path)
    assert fast is not None and rows is not None


@pytest.mark.parametrize("src, outputs", [(KINDS, OUTPUTS), (DATES, '@timeGranularity("days").\n@output("late"). @output("shift2").\n')])
def test_a_large_csv_of_every_kind_runs_alike_on_columns_and_rows(tmp_path, src, outputs):
    """run --format csv of every kind of term (nulls, sets, dates, a fact
    that repeats), past the kernels' size and with a float beside an equal
    decimal: read back by the kernels, the columns' model is the rows' and
    the first run's."""
    prog, echo = tmp_path / "prog.vada", tmp_path / "echo.vada"
    prog.write_text(src)
    echo.write_text(outputs + '@output("pad").\n')
    first = CliRunner().invoke(cli, ["run", str(prog), "--format", "csv"])
    assert first.exit_code == 0, first.output
    header, _, body = first.stdout.partition("\n")
    width = header.count(",") + 1
    times = "0,1" if src is KINDS else "2020-01-01,2020-01-02"
    pad = "".join(f"pad,k{i},{('float(2.5)', '2.5', '5/2')[i % 3]}" + "," * (width - 7) + f"{times},true,false"
                  + ("," if header.endswith("every") else "") + "\n" for i in range(3000))
    out = tmp_path / "out.csv"
    out.write_text(header + "\n" + body + pad)
    assert out.stat().st_size >= 1 << 16
    from chronolog.api import _fact_columns, load_program

    assert _fact_columns(out, "vadalog", load_program(echo).calendar) is not None
    rows = chronolog.reason(echo, out, engine="rows")
    cols = chronolog.reason(echo, out, engine="columns")
    assert cols.lines() == rows.lines()
    assert _facts(cols, ["pad"]) == _facts(rows, ["pad"])
    assert {type(t[1]) for t, _ in cols.facts("pad")} == {float, Fraction}
    model = chronolog.reason(prog)
    preds = model.output_predicates
    assert _facts(cols, preds) == _facts(model, preds) == _facts(rows, preds)


# ------------------------------------------------ run --format csv and --facts out.csv against the fact text

_UNI = st.text(st.characters(blacklist_categories=("Cs",)), max_size=5)
_STAMPS = st.datetimes(min_value=datetime.datetime(1900, 1, 1), max_value=datetime.datetime(2100, 1, 1))
_ANY = st.one_of(
    _UNI, st.sampled_from(["a", "x_1", "A", "ß", "e\u0301", "😀", "", " ", "1", "#T", "_:n1", "{1,a}", "2020-01-01", "inf",
                           "float(1.5)", "\u2028", "a\r\nb", "\x00", "\t"]),
    st.integers(-10**25, 10**25), st.fractions(max_denominator=12),
    st.decimals(places=3, allow_nan=False, allow_infinity=False).map(Fraction), st.floats(allow_nan=False), st.booleans(),
    st.dates().map(lambda d: datetime.datetime(d.year, d.month, d.day)), _STAMPS,
    st.lists(st.one_of(st.integers(-3, 3), st.sampled_from(["a", "b c", "#T", ""]), st.booleans()), max_size=3).map(tuple),
    st.sampled_from(["_:n1", "_:x"]).map(lambda label: Null(label[2:])))
_ENDS = st.one_of(st.integers(-5, 5), st.fractions(-5, 5, max_denominator=4), st.sampled_from([Fraction(1, 3), 2.5]))


def _fact_text(pred, terms, start, length, closed, every):
    """A fact's line: ``start`` None is -inf, ``length`` None +inf; a
    punctual interval closed; ``every`` only on bounded intervals."""
    from chronolog.language.text import format_term

    args = f"({','.join(format_term(t) for t in terms)})" if terms else ""  # (a Null: its label, bare)
    lo = "-inf" if start is None else format_term(start)
    hi = "+inf" if length is None else format_term((0 if start is None else start) + length)
    left = "(" if start is None or not closed[0] else "["
    right = ")" if length is None or not closed[1] else "]"
    if length == 0 and start is not None:
        left, right = "[", "]"
    tail = f" every {every}" if every and start is not None and length is not None else ""
    return f"{pred}{args}@{left}{lo},{hi}{right}{tail}."


@settings(deadline=None, max_examples=examples(40))
@given(st.lists(st.tuples(st.sampled_from(["p", "q", "r0"]), st.lists(_ANY, max_size=3),
                          st.one_of(st.none(), _ENDS), st.one_of(st.none(), st.integers(0, 3), st.sampled_from([Fraction(1, 2)])),
                          st.tuples(st.booleans(), st.booleans()), st.sampled_from([None, None, 7, 10])),
                min_size=1, max_size=6))
def test_random_facts_of_every_kind_round_trip_through_run_csv_as_through_text(tmp_path_factory, facts):
    """Facts of every kind of term (any Unicode text, names, integers past
    64 bits, rationals, decimals, floats, booleans, dates, timestamps,
    sets), open, closed, unbounded and punctual intervals, facts that
    repeat, on the command line: ``run --facts facts.txt --format csv``
    read back by ``run --facts out.csv`` prints what ``run --facts
    facts.txt`` prints, and what the text it printed reads back as."""
    arity, lines = {}, []
    for pred, terms, start, length, closed, every in facts:
        n = arity.setdefault(pred, len(terms))
        terms = (list(terms) + ["pad"] * n)[:n]
        lines.append(_fact_text(pred, terms, start, length, closed, every))
    tmp = tmp_path_factory.mktemp("csvtext")
    echo = tmp / "echo.vada"
    echo.write_text("".join(f'@output("{p}"). ' for p in arity) + "\n")
    given = tmp / "facts.txt"
    given.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = CliRunner()
    text = run.invoke(cli, ["run", str(echo), "--facts", str(given)])
    if text.exit_code != 0:  # facts the language refuses (e.g. a repeating fact longer than its period): not this test's
        assert "error" in text.output, text.output
        return
    again = tmp / "again.txt"
    again.write_text(text.stdout, encoding="utf-8")
    twice = run.invoke(cli, ["run", str(echo), "--facts", str(again)])
    assert twice.exit_code == 0 and twice.stdout == text.stdout, twice.output
    table = run.invoke(cli, ["run", str(echo), "--facts", str(given), "--format", "csv"])
    assert table.exit_code == 0, table.output
    out = tmp / "out.csv"
    out.write_bytes(table.stdout_bytes)
    back = run.invoke(cli, ["run", str(echo), "--facts", str(out)])
    assert back.exit_code == 0, (back.output, table.stdout)
    assert back.stdout == text.stdout, table.stdout
    table2 = run.invoke(cli, ["run", str(echo), "--facts", str(out), "--format", "csv"])
    assert table2.stdout == table.stdout


_BLANK_LINES = ["", " ", "\t", ",,", " , ,\t", '"",""', ",,,,,,,,", "   ,", '""', ",,,,,", ",,,"]
_RAGGED = ["p,x,1,2", "p,x,1,2,3,4", "q", 'p,"x,y",1', "p,x,1,2,3,", ",1,2", '"a,b",1,2,3,4,5']


@settings(deadline=None, max_examples=examples(150))
@given(st.lists(st.tuples(st.sampled_from(["p", "q", "r"]), st.sampled_from(["a", "b c", '"x,y"', "n1", '""']), st.integers(0, 9), st.integers(1, 5)),
                min_size=1, max_size=30),
       st.lists(st.tuples(st.integers(0, 40), st.sampled_from(_BLANK_LINES)), max_size=5),
       st.none() | st.tuples(st.integers(0, 40), st.sampled_from(_RAGGED)),
       st.sampled_from(["\n", "\r\n"]))
def test_lines_of_blanks_and_ragged_rows_are_read_by_the_kernels_as_by_the_rows(tmp_path_factory, rows, blanks, ragged, newline):
    """Lines of blanks of another count of cells than the header's (the row
    reader skips them; one of its count is a row) and a ragged row (its
    error) sent the whole file to the row reader: the kernels skip the one
    and name the other, the row reader's facts, places and error."""
    from chronolog.connectors.fact_csv_columns import read_columns

    lines = [f"{p},{c},{s},{s + d}" for p, c, s, d in rows]
    for at, text in blanks:
        lines.insert(min(at, len(lines)), text)
    if ragged is not None:
        lines.insert(min(ragged[0], len(lines)), ragged[1])
    path = tmp_path_factory.mktemp("csv") / "f.csv"
    path.write_bytes(newline.join(["pred,c0,start,end"] + lines).encode() + newline.encode())
    fast, rows_read = _kernels_and_rows(path)
    try:
        handled = read_columns(path, None, min_bytes=0) is not None
    except chronolog.ChronologError:
        handled = True
    assert handled or rows_read is not None and not any(rows_read.values())  # (no row: the row reader's)
