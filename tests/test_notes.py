"""Notes (chronolog.Note): what chronolog decided that the program leaves
open, said as one sentence ``note: ...`` on standard error, the same from
every command and from Python, never with chronolog's own file and line."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.test_cli import cli

EXISTENTIAL = "c(Y,C) :- company(C).\ncompany(a)@1.\n"
NOTE = "Y occurs in the head of c but nowhere in its body, so the rule is existential"


@pytest.mark.parametrize(
    "command",
    [["run"], ["query", "c(X,Y)"], ["entails", "c(_:n1,a)@1"], ["explain", "c(_:n1,a)@1"], ["plan"], ["stream"]],
)
def test_every_command_prints_the_existential_note_as_one_sentence(tmp_path, command):
    prog = tmp_path / "p.vada"
    prog.write_text(EXISTENTIAL)
    args = [command[0], prog, *command[1:]]
    if command == ["stream"]:
        r = subprocess.run([sys.executable, "-m", "chronolog", "stream", str(prog)], input="company(b)@2\n", capture_output=True, text=True)
    else:
        r = cli(*args)
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines() == [f"note: {prog}:1:1: {NOTE}: each body match gets a labelled null (_:n1, ...) "
                                     "unless the head already holds (if a variable is misspelt, bind it in the body)"]


def test_python_prints_the_note_without_chronologs_source_line():
    code = f"import chronolog; chronolog.reason({EXISTENTIAL!r})"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"note: <program>:1:1: {NOTE}"), r.stderr


def _notes(call) -> list:
    import warnings

    import chronolog

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in caught if issubclass(w.category, chronolog.Note)]


def test_a_body_predicate_nothing_gives_is_said_aloud():
    """Issue 38: p(X) :- qq(X). with q given: qq is most likely a misspelling."""
    import chronolog

    notes = _notes(lambda: chronolog.reason("p(X) :- qq(X).\nq(a)@1."))
    assert notes == [
        "<program>:1:9: qq is read in a rule body, but no rule derives it and no fact or input gives it, "
        'so it holds nowhere (did you mean q? declare it with @input("qq"). when its facts come later)'
    ]


@pytest.mark.parametrize(
    "program, facts",
    [
        ("p(X) :- q(X).", "q(a)@1"),  # given as facts
        ("p(X) :- q(X).\nq(a)@1.", None),  # a fact of the program
        ("p(X) :- q(X), not r(X).\nr(X) :- q(X), X != a.\nq(a)@1.", None),  # derived
        ('@input("q").\np(X) :- q(X).', None),  # declared, its facts come later
        ("p(X) :- q(X).", {"q": [(("a",), (1, 2))]}),  # a table
    ],
)
def test_a_body_predicate_something_gives_is_not_noted(program, facts):
    import chronolog

    assert _notes(lambda: chronolog.reason(program, facts)) == []


def test_a_fact_without_a_time_says_it_needs_one(tmp_path):
    prog = tmp_path / "p.vada"
    prog.write_text("p(X) :- q(X).\nq(a).\n")
    r = cli("run", prog)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.splitlines()[0] == f"{prog}:2:5: syntax error: a fact needs a time: q(a) ends without '@...'"
    assert "hint: write q(a)@5. or q(a)@[1,5]." in r.stderr


def test_an_assignment_nothing_reads_is_said_aloud():
    """An assignment whose variable is in neither the head nor another
    literal computes what no fact receives (a head that forgot it, a
    misspelt variable): said aloud, the answers unchanged."""
    import chronolog

    program = "q(a, 1)@[0,5].\nq(a, 2)@[2,8].\np(X) :- q(X, V), S = sum(V).\nr(X) :- q(X, V), T = V + 1, U = T * 2.\n"
    notes = _notes(lambda: chronolog.reason(program))
    assert notes == [
        "<program>:3:18: S = sum(V) computes an aggregate that nothing reads: S is not in the head nor in another "
        "literal of the rule (put S in the head, or drop the assignment)",
        "<program>:4:29: U = (T * 2) computes a value that nothing reads: U is not in the head nor in another "
        "literal of the rule (put U in the head, or drop the assignment)",
    ]
    assert chronolog.reason(program).facts("p") == chronolog.reason("q(a, 1)@[0,5].\nq(a, 2)@[2,8].\np(X) :- q(X, V).").facts("p")


@pytest.mark.parametrize("rule", ["p(X, S) :- q(X, V), S = sum(V).", "p(X) :- q(X, V), S = V + 1, S > 1.",
                                  "p(X) :- q(X, V), V = 1.", "p(X)@[S, E] :- q(X, V)@[S, F], E = F + 1."])
def test_an_assignment_something_reads_is_not_noted(rule):
    import chronolog

    assert _notes(lambda: chronolog.reason("q(a, 1)@[0,5].\n" + rule)) == []
