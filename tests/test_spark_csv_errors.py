"""Bad (and odd) input on the ``spark csv`` path gives what the embedded
CSV reader gives on the same file bound as ``csv``: its error, word for
word (file, line, column, what was expected, the hint), or the same
answers.  The oracle is ``chronolog.reason`` on the same program file
with the binding ``"csv"``; each Spark path is asked for by its
arguments and checked by the path ``stats`` names: the driver, the keyed
tasks, one task and the rounds.

Before, Spark's reader padded or cut a ragged row (a silently different
answer), read bytes that are no UTF-8 as U+FFFD, read a ``\\r\\n`` inside
a quoted cell as ``\\n``, read a quote never closed as one long cell, a
row of empty cells as a row, stopped on an empty file ("no 'start'
column"), and a cell the driver or a task could not convert was named
without its line; the binaryFile fallback (cells trimmed apart) padded
ragged rows too."""

import warnings

import pytest

import chronolog
from chronolog.engine.arrow import table_to_rows
from chronolog.language.errors import ChronologError

pytestmark = pytest.mark.spark

NBSP = "\u00a0"
GOOD = "x,y,start,end\na,b,0,5\nb,c,1,4\n"
REACH = 'reach(X, Y) :- r(X, Y).\nreach(X, Z) :- reach(X, Y), r(Y, Z).\n@output("reach").\n'
KEYED = 'far(X, Z) :- r(X, Z), <->[0,1] r(X, Z).\n@output("far").\n'
INT_Y = '@mapping("r", 1, "y", "int").\n'

PATHS = {  # reason's arguments, the path stats names
    "driver": ({"distributed": False}, "driver"),
    "keyed": ({"distributed": True, "key": {"r": 0}, "partitions": 3, "one_task_bytes": -1}, "keyed"),
    "one task": ({"distributed": True, "one_task_bytes": 1 << 40}, "one task"),
    "rounds": ({"distributed": True, "one_task_bytes": -1}, "relational"),
}

# name: (the files under r/ (bytes or text), what the binding names ("" the directory), annotations)
CASES = {
    "ragged, a cell more": ({"r.csv": "x,y,start,end\na,b,0,5\nb,c,1,4,9\nc,d,2,3\n"}, "r.csv", ""),
    "ragged, a cell less": ({"r.csv": "x,y,start,end\na,b,0,5\nb,c,1\nc,d,2,3\n"}, "r.csv", ""),
    "not UTF-8": ({"r.csv": "x,y,start,end\na,b\xe9,0,5\nb,c,1,4\n".encode("latin-1")}, "r.csv", ""),
    "not UTF-8, a blank trimmed apart": ({"r.csv": f"x,y,start,end\na{NBSP},b,0,5\n".encode() + b"b,c\xe9,1,4\n"}, "r.csv", ""),
    "ragged, a blank trimmed apart": ({"r.csv": f"x,y,start,end\na{NBSP},b,0,5\nb,c,1,4,9\nc,d,2,3\n"}, "r.csv", ""),
    "ragged after a quoted line break": ({"r.csv": 'x,y,start,end\na,"b\nq",0,5\nb,c,1,4,9\n'}, "r.csv", ""),
    "not UTF-8 after a quoted line break": ({"r.csv": 'x,y,start,end\na,"b\nq",0,5\nb,c\xe9,1,4\n'.encode("latin-1")}, "r.csv", ""),
    "a quote never closed": ({"r.csv": 'x,y,start,end\na,"b,0,5\nb,c,1,4\n'}, "r.csv", ""),
    "a quote never closed after a quoted line break": ({"r.csv": 'x,y,start,end\na,"b\nq",0,5\nb,"c,1,4\n'}, "r.csv", ""),
    "a cell not a number in a column mapped int": ({"r.csv": "x,y,start,end\na,b,0,5\nb,zz,1,4\n"}, "r.csv", INT_Y),
    "a time that is no time": ({"r.csv": "x,y,start,end\na,b,0,5\nb,c,noon,4\n"}, "r.csv", ""),
    "a bad time after a quoted line break": ({"r.csv": 'x,y,start,end\na,"b\nq",0,5\nb,c,zz,4\n'}, "r.csv", ""),
    "a directory, one file ragged": ({"a.csv": GOOD, "b.csv": "x,y,start,end\na,b,0,5,7\n"}, "", ""),
    "a directory, one file with a bad time": ({"a.csv": GOOD, "b.csv": "x,y,start,end\na,b,zz,5\n"}, "", ""),
    "a missing file": ({"other.csv": GOOD}, "r.csv", ""),
    # answers
    "an empty file": ({"r.csv": ""}, "r.csv", ""),
    "lines of blanks only": ({"r.csv": "\n \n"}, "r.csv", ""),
    "a header only": ({"r.csv": "x,y,start,end\n"}, "r.csv", ""),
    "a byte order mark and CRLF": ({"r.csv": "\ufeffx,y,start,end\r\na,b,0,5\r\nb,c,1,4\r\n"}, "r.csv", ""),
    "CRLF inside a quoted cell": ({"r.csv": 'x,y,start,end\r\na,"b\r\nq",0,5\r\n"b\r\nq",c,1,4\r\n'}, "r.csv", ""),
    "a row of empty cells": ({"r.csv": "x,y,start,end\na,b,0,5\n,,,\nb,c,1,4\n"}, "r.csv", ""),
    "a row of blanks": ({"r.csv": "x,y,start,end\na,b,0,5\n , \nb,c,1,4\n"}, "r.csv", ""),
    "a directory with an empty file": ({"a.csv": "", "b.csv": GOOD}, "", ""),
}
FAST = ("driver", "rounds")  # a case's fast path, in turn (every other path: slow)


def _outcome(call, output: str):
    """``(error type, its text)`` or the sorted answers of ``output``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = call()
    except ChronologError as e:
        return type(e).__name__, str(e)
    return sorted(map(repr, got(output)))


def _write(tmp_path, files, name, annotations, rules, kind):
    (tmp_path / "r").mkdir(exist_ok=True)
    for f, data in files.items():
        (tmp_path / "r" / f).write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    program = tmp_path / "p.vada"
    program.write_text(f'@bind("r", "{kind}", "r", "{name}").\n' + annotations + rules, encoding="utf-8")
    return program


def _embedded(tmp_path, files, name, annotations, rules, output):
    """The embedded reader's outcome: on the directory's files one by one
    (it reads no directory), the first error, else the answers of them all."""
    if name:
        program = _write(tmp_path, files, name, annotations, rules, "csv")
        return _outcome(lambda: chronolog.reason(program).facts, output)
    everything = None
    for f in sorted(files):
        program = _write(tmp_path, files, f, annotations, rules, "csv")
        got = _outcome(lambda: chronolog.reason(program).facts, output)
        if isinstance(got, tuple):
            return got
    rows = "".join(text.split("\n", 1)[1] if text else "" for _, text in sorted(files.items()))
    (tmp_path / "all").mkdir()
    (tmp_path / "all" / "all.csv").write_text("x,y,start,end\n" + rows, encoding="utf-8")
    program = tmp_path / "all.vada"
    program.write_text('@bind("r", "csv", "all", "all.csv").\n' + annotations + rules, encoding="utf-8")
    everything = _outcome(lambda: chronolog.reason(program).facts, output)
    return everything


def _params():
    for k, case in enumerate(CASES):
        for path in PATHS:
            marks = [] if path == FAST[k % len(FAST)] else [pytest.mark.slow]
            yield pytest.param(case, path, marks=marks, id=f"{case}-{path}")


@pytest.mark.parametrize("case, path", list(_params()))
def test_spark_csv_reads_bad_input_as_the_embedded_reader(spark, tmp_path, case, path):
    from chronolog import spark as cs

    files, name, annotations = CASES[case]
    rules, output = (KEYED, "far") if path == "keyed" else (REACH, "reach")
    want = _embedded(tmp_path, files, name, annotations, rules, output)
    program = _write(tmp_path, files, name, annotations, rules, "spark csv")
    kwargs, took = PATHS[path]
    stats = {}

    def spark_facts():
        out = cs.reason(spark, program, stats=stats, **kwargs)
        return lambda o: table_to_rows(out[o].toArrow(), o, None, timestamps="times")

    got = _outcome(spark_facts, output)
    assert got == want
    if not isinstance(want, tuple) and not (set(files) - {"r.csv"} and name):
        assert stats["path"] == took, stats


def test_the_line_scan_flags_only_lines_spark_reads_otherwise(spark, tmp_path):
    """Good lines (quoted commas, digits, letters) are flagged by nothing,
    so the file stays with Spark's reader; each kind of odd line is
    flagged as what it is (the scan's SQL text once read ``\\x00-\\x08``
    as the range 0-x and sent every file to the embedded parse)."""
    from chronolog.connectors.spark import scan_csv_lines

    cases = {
        "good.csv": (GOOD + 'c,"d, e",2,3\n', (False, False, False)),
        "apart.csv": (f"x,y,start,end\na{NBSP},b,0,5\n", (True, False, False)),
        "blank.csv": (GOOD + ",,,\n", (True, False, False)),
        "odd.csv": ('x,y,start,end\na,"b\nc",0,5\n', (False, True, True)),
        "ragged.csv": (GOOD + "a,b,0\n", (False, False, True)),
    }
    for name, (text, want) in cases.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        apart, odd, bad, _ = scan_csv_lines(spark, str(tmp_path / name), 4)
        assert (apart, bool(odd), bool(bad)) == want, name
    (tmp_path / "latin.csv").write_bytes(b"x,y,start,end\na,b\xe9,0,5\n")
    assert scan_csv_lines(spark, str(tmp_path / "latin.csv"), 4)[2]


@pytest.mark.parametrize("path", ["driver", "rounds"])
def test_spark_csv_notes_leading_zeros_as_the_embedded_reader(spark, tmp_path, path):
    """A ``spark csv`` input's cell ``007`` in a column without a type was
    read as 7 without a word, where the embedded reader of the same file
    bound ``csv`` notes it at its line: the same note (found by the line
    scan's job, said by the embedded reader of that local file)."""
    from chronolog import spark as cs
    from chronolog.language.errors import Note

    files = {"r.csv": "x,y,start,end\na,7,0,5\nb,007,1,4\nc,01234,0,1\n"}

    def notes(call):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = call()
        return out, [str(w.message) for w in caught if issubclass(w.category, Note)]

    want_model, want = notes(lambda: chronolog.reason(_write(tmp_path, files, "r.csv", "", REACH, "csv")))
    assert len(want) == 1 and "'007' is read as the number 7" in want[0]
    program = _write(tmp_path, files, "r.csv", "", REACH, "spark csv")
    out, got = notes(lambda: cs.reason(spark, program, **PATHS[path][0]))
    assert got == want
    assert sorted(table_to_rows(out["reach"].toArrow(), "reach", None, timestamps="times")) == want_model.facts("reach")


def test_a_large_spark_csv_file_is_noted_without_being_read_on_the_driver(spark, tmp_path, monkeypatch):
    """Past ``NOTE_READ_BYTES`` a file with a cell written with leading
    zeros is named in the note, not read whole on the driver for its line."""
    from chronolog import spark as cs
    from chronolog.connectors import csv_columns, spark as spark_connector
    from chronolog.language.errors import Note

    files = {"r.csv": "x,y,start,end\na,7,0,5\nb,007,1,4\n"}
    want = chronolog.reason(_write(tmp_path, files, "r.csv", "", REACH, "csv"))
    program = _write(tmp_path, files, "r.csv", "", REACH, "spark csv")
    monkeypatch.setattr(spark_connector, "NOTE_READ_BYTES", 10)
    monkeypatch.setattr(csv_columns, "read_csv_columns", lambda *a, **k: pytest.fail("the file was read on the driver"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = cs.reason(spark, program, **PATHS["driver"][0])
    notes = [str(w.message) for w in caught if issubclass(w.category, Note)]
    assert len(notes) == 1 and "r.csv: a cell written with leading zeros" in notes[0] and '@mapping("r"' in notes[0], notes
    assert sorted(table_to_rows(out["reach"].toArrow(), "reach", None, timestamps="times")) == want.facts("reach")
