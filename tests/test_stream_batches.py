"""`chronolog stream` reads the facts of one time point as one batch: the
same output, byte for byte, as pushing the facts one at a time, and errors
still name their line."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import chronolog
from chronolog.language.text import format_fact

PROGRAM = """
steam(V)  :- temp(V), V >= 100.
isSteam   :- steam(V).
alarm     :- [-][0,3] isSteam.
warm(V)   :- <->[0,2] temp(V), V >= 50.
"""


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "chronolog", *args], capture_output=True, text=True, timeout=120)


def _one_at_a_time(program: str, lines: list) -> str:
    s = chronolog.Stream(program)
    out = []
    for line in lines:
        s.push(line)
        out += [f"{f}\n" for f in s.take()]
    s.close()
    out += [f"{f}\n" for f in s.take()]
    return "".join(out)


def test_batches_print_what_one_push_per_fact_prints(tmp_path: Path):
    rnd = random.Random(3)
    lines = []
    for t in range(40):
        for _ in range(rnd.randint(0, 6)):
            d = rnd.choice([0, 1])
            lines.append(format_fact("temp", (rnd.randint(0, 150),), (t, t + d, True, d == 0 or rnd.random() < 0.5)) + ".")
    prog = tmp_path / "p.vada"
    prog.write_text(PROGRAM)
    data = tmp_path / "in.facts"
    data.write_text("\n".join(lines) + "\n")
    r = _cli("stream", str(prog), "--input", str(data))
    assert r.returncode == 0, r.stderr
    assert r.stdout == _one_at_a_time(PROGRAM, lines)
    assert r.stdout  # the program derives something


def test_errors_inside_a_batch_name_their_line(tmp_path: Path):
    prog = tmp_path / "p.vada"
    prog.write_text(PROGRAM)
    data = tmp_path / "in.facts"
    data.write_text("temp(1)@1.\ntemp(2)@1.\ntemp(3,4)@1.\n")  # arity, inside the batch of time point 1
    r = _cli("stream", str(prog), "--input", str(data))
    assert r.returncode == 2 and f"{data}:3" in r.stderr and "Traceback" not in r.stderr
    data.write_text("temp(1)@5.\ntemp(2)@5.\ntemp(3)@5.\ntemp(4)@2.\n")  # late, after a batch
    r = _cli("stream", str(prog), "--input", str(data))
    assert r.returncode == 2 and f"{data}:4" in r.stderr and "out-of-order" in r.stderr
