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
