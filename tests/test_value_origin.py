"""A comparison's error names the input row its value came from.

``cannot compare 'x' and 2 in 'V > 2'`` named only the rule; the row to fix
is in a CSV file, a fact file or a DataFrame (chronolog/value_origin.py)."""

from __future__ import annotations

import pandas as pd
import pytest
from click.testing import CliRunner

import chronolog
from chronolog import ChronologError
from chronolog.cli import cli

RULE = "big(X) :- r(X, V), V > 2.\n"


def refused(*args) -> str:
    r = CliRunner().invoke(cli, [str(a) for a in args])
    assert r.exit_code == 2, (r.exit_code, r.output)
    assert "Traceback" not in r.output, r.output
    return r.output


def test_a_bound_csv_row_is_named_by_its_line(tmp_path):
    (tmp_path / "r.csv").write_text("id,v,start,end\na,1,0,5\nb,x,0,5\nc,3,0,5\n")
    prog = tmp_path / "p.vada"
    prog.write_text('@input("r"). @bind("r", "csv useHeaders=true", ".", "r.csv").\n@timeMapping("r", 2, 3).\n' + RULE)
    out = refused("run", prog)
    assert out.startswith(f"{tmp_path / 'r.csv'}:3:"), out
    assert "cannot compare 'x' and 2 in 'V > 2'" in out and f"{prog}:3:20" in out and "b,x,0,5" in out


@pytest.mark.slow
def test_a_large_bound_csv_read_as_columns_is_named_by_its_line(tmp_path):
    rows = "".join(f"k{k},{k % 7},{k},{k + 2}\n" for k in range(20_000))
    (tmp_path / "r.csv").write_text("id,v,start,end\n" + rows + "bad,oops,5,6\n")
    prog = tmp_path / "p.vada"
    prog.write_text('@input("r"). @bind("r", "csv useHeaders=true", ".", "r.csv").\n@timeMapping("r", 2, 3).\n' + RULE)
    out = refused("run", prog)
    assert out.startswith(f"{tmp_path / 'r.csv'}:20002:"), out


@pytest.mark.parametrize("command, option", [("run", "--facts"), ("stream", "--input")])
@pytest.mark.parametrize("name, text, line", [
    ("r.txt", "r(a,1)@1\n% a comment naming r(b,x)\nr(b,x)@2\nr(c,5)@3\n", 3),
    ("r.csv", "pred,c0,c1,start,end\nr,a,1,1,1\nr,b,x,2,2\n", 3),
])
def test_a_fact_file_line_is_named(tmp_path, command, option, name, text, line):
    (tmp_path / name).write_text(text)
    prog = tmp_path / "p.vada"
    prog.write_text(RULE)
    out = refused(command, prog, option, tmp_path / name)
    assert out.startswith(f"{tmp_path / name}:{line}:"), out
    assert f"{prog}:1:20" in out


def test_a_dataframe_row_and_a_program_fact_are_named():
    df = pd.DataFrame({"id": ["a", "b"], "v": ["1", "x"], "start": [0, 0], "end": [5, 5]})
    with pytest.raises(ChronologError) as e:
        chronolog.reason(RULE, {"r": df})
    assert str(e.value).startswith("facts['r'], row 0:"), e.value
    with pytest.raises(ChronologError) as e:
        chronolog.reason(RULE + "r(a,1)@1.\nr(q,zz)@1.\n")
    assert str(e.value).startswith("<program>:3:"), e.value


def test_a_derived_value_keeps_the_rule_alone():
    """A value a rule made is no input's: the error stays at the rule."""
    with pytest.raises(ChronologError) as e:
        chronolog.reason("s(X, V) :- r(X, V).\nbig(X) :- s(X, V), V > 2.\n", "r(a,zz)@1")
    assert str(e.value).startswith("<program>:"), e.value


def test_the_answer_without_an_error_is_unchanged(tmp_path):
    (tmp_path / "r.csv").write_text("id,v,start,end\na,1,0,5\nc,3,0,5\n")
    prog = tmp_path / "p.vada"
    prog.write_text('@input("r"). @bind("r", "csv useHeaders=true", ".", "r.csv").\n@timeMapping("r", 2, 3).\n' + RULE)
    assert chronolog.reason(prog).lines() == ["big(c)@[0,5]"]


def test_a_built_in_given_an_input_value_of_the_wrong_kind_names_its_row(tmp_path):
    (tmp_path / "r.txt").write_text("r(a,1.5)@[0,5]\nr(b,x)@[0,5]\n")
    prog = tmp_path / "p.vada"
    prog.write_text("f(X, Z) :- r(X, V), Z = floor(V).\n")
    out = refused("run", prog, "--facts", tmp_path / "r.txt")
    assert out.startswith(f"{tmp_path / 'r.txt'}:2:"), out
    assert "floor() needs a number, not 'x'" in out and f"{prog}:1:" in out


def test_a_pushed_facts_value_names_the_fact():
    """A ``Stream`` holds the facts pushed since its last watermark while it
    evaluates them: the error names the pushed fact that gave the value
    (there is no file to name), at the rule; a value a rule derived keeps
    the rule alone."""
    s = chronolog.Stream(RULE + '@output("big").')
    s.push("r(a,1)@1.\nr(b,x)@2.\nr(c,5)@3.")
    with pytest.raises(ChronologError) as e:
        s.advance(5)
    assert e.value.message == "cannot compare 'x' and 2 in 'V > 2': 'x' comes from the pushed fact r(b,x)@[2,2] (term 2)", e.value
    assert str(e.value.pos) == "<program>:1:20", e.value
    s = chronolog.Stream('s(X, V) :- r(X, V).\nbig(X) :- s(X, V), V > 2.\n@output("big").')
    s.push("r(b,x)@2.")
    with pytest.raises(ChronologError) as e:
        s.advance(6)
    assert e.value.message == "cannot compare 'x' and 2 in 'V > 2'" and str(e.value.pos) == "<program>:2:20", e.value


def test_a_value_of_a_fact_pushed_before_the_step_names_the_held_fact():
    """A fact pushed before the last watermark, still held by the stream,
    that gives the value when a later fact joins it: named with the
    interval the stream holds it on (it named the rule alone)."""
    s = chronolog.Stream('big(X) :- r(X, V), q(X, W), V > W.\n@output("big").')
    s.push("r(b,x)@[2,10].")
    s.advance(3)
    s.push("q(b,2)@[5,6].")
    with pytest.raises(ChronologError) as e:
        s.advance(7)
    assert e.value.message == ("cannot compare 'x' and 2 in 'V > W': 'x' comes from the fact r(b,x)@[2,10], pushed before "
                               "this step (term 2)"), e.value
    assert str(e.value.pos) == "<program>:1:29", e.value


def test_a_stream_on_standard_input_names_the_pushed_fact_and_a_file_its_line(tmp_path):
    """``chronolog stream`` names the line of standard input that gave the
    value (the facts it has not evaluated yet are kept with their lines);
    with ``--input FILE`` the file's line, with its text, the message said
    once."""
    prog = tmp_path / "p.vada"
    prog.write_text(RULE)
    r = CliRunner().invoke(cli, ["stream", str(prog)], input="r(a,1)@1\nr(b,x)@2\nr(c,5)@3\n")
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert (f"<stdin>:2:1: data error: cannot compare 'x' and 2 in 'V > 2', the rule at {prog}:1:20: "
            "'x' comes from this row of r (term 2)\n") in r.output, r.output
    (tmp_path / "r.txt").write_text("r(a,1)@1\nr(b,x)@2\nr(c,5)@3\n")
    out = refused("stream", prog, "--input", tmp_path / "r.txt")
    assert out.startswith(f"{tmp_path / 'r.txt'}:2:1: data error: cannot compare 'x' and 2 in 'V > 2', the rule at {prog}:1:20: "
                          "'x' comes from this row of r (term 2)\n    r(b,x)@2\n"), out


def test_a_value_of_facts_added_to_a_session_names_their_row():
    """``Reasoner.add`` (and ``update``) with facts whose value a comparison
    cannot take: the row of the facts added, as ``reason`` names its
    facts' (their text's line, a table's row, named as the call's argument)."""
    program = RULE + '@output("big").'
    r = chronolog.Reasoner(program, "r(a,3)@1.")
    with pytest.raises(ChronologError) as e:
        r.add("r(c,5)@3.\nr(b,x)@2.\n")
    assert str(e.value.pos) == "<facts>:2:1" and e.value.source_line == "r(b,x)@2.", e.value
    assert e.value.message == "cannot compare 'x' and 2 in 'V > 2', the rule at <program>:1:20: 'x' comes from this row of r (term 2)"
    df = pd.DataFrame({"id": ["c", "b"], "v": ["5", "x"], "start": [3, 2], "end": [3, 2]})
    with pytest.raises(ChronologError) as e:
        chronolog.Reasoner(program, "r(a,3)@1.").update(add={"r": df})
    assert str(e.value.pos) == "add['r'], row 1", e.value
