"""Progress (chronolog/progress.py): a callback after every round, a bar on
standard error when it is a terminal (tested on a pseudo-terminal), nothing
in a pipe unless asked."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import chronolog

pty = pytest.importorskip("pty")

PROGRAM = "s(X) :- <->[1,1] s(X).\nt(X) :- s(X).\ns(a)@0.\n@temporal(0, 300).\n@output(\"t\").\n"


def run_on_pty(args, tmp_path) -> tuple:
    """Run the CLI with standard error on a pseudo-terminal; (stdout, stderr bytes)."""
    master, slave = pty.openpty()
    out_path = tmp_path / "stdout.txt"
    with out_path.open("wb") as out:
        p = subprocess.Popen([sys.executable, "-m", "chronolog", *args], stdout=out, stderr=slave, stdin=subprocess.DEVNULL)
        os.close(slave)
        err = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal closed: the process ended
                break
            if not chunk:
                break
            err += chunk
        p.wait()
    os.close(master)
    return out_path.read_text(), err.decode("utf-8", "replace"), p.returncode


def test_callback_reports_every_round_and_stratum():
    events = []
    m = chronolog.reason(PROGRAM, progress=events.append)
    s_rounds = [e for e in events if e.predicates == ("s",)]
    assert [e.round for e in s_rounds[:-1]] == list(range(1, len(s_rounds)))
    assert s_rounds[-1].done and s_rounds[-1].stratum == 1 and s_rounds[-1].strata == 2
    assert events[-1].done and events[-1].stratum == 2 and events[-1].predicates == ("t",)
    assert events[-1].derivations == m.stats["derivations"]
    assert all(a.derivations <= b.derivations for a, b in zip(events, events[1:]))
    assert "stratum 2/2 (t)" in str(events[-1])


def test_bar_on_a_terminal(tmp_path):
    prog = tmp_path / "p.vada"
    prog.write_text(PROGRAM)
    out, err, rc = run_on_pty(["run", str(prog)], tmp_path)
    assert rc == 0 and out.count("\n") == 301  # t(a)@[0,0] ... t(a)@[300,300]
    assert "reasoning" in err and "strata" in err and "━" in err
    out, err, rc = run_on_pty(["run", str(prog), "--no-progress"], tmp_path)
    assert rc == 0 and err == ""


def test_silent_in_a_pipe_unless_asked(tmp_path):
    prog = tmp_path / "p.vada"
    prog.write_text(PROGRAM)
    r = subprocess.run([sys.executable, "-m", "chronolog", "run", str(prog)], capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr == "" and r.stdout.count("\n") == 301
    r = subprocess.run([sys.executable, "-m", "chronolog", "run", str(prog), "--progress"], capture_output=True, text=True)
    assert "reasoning" in r.stderr and r.stdout.count("\n") == 301


def test_bad_progress_argument():
    with pytest.raises(TypeError, match="progress must be"):
        chronolog.reason(PROGRAM, progress="yes")
