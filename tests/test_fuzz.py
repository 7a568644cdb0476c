"""Fuzzing: bad input of every shape ends in a ChronologError (exit status 2
on the command line), never another exception, and within a time limit.

Two sources of input:

* byte-level mutations (flips, insertions of awkward bytes and tokens,
  deletions, duplications, truncations) of the programs and fact files in
  docs/*.md, run through the API (``reason``) and the command line (click's
  runner in-process, plus a few real subprocesses for the entry point);
* grammar-aware generation with hypothesis: the random programs of
  tests/strategies.py, edited token by token (numbers replaced by awkward
  ones, tokens dropped, doubled or swapped, variables renamed).

How many cases run is set by tests/budget.py (HYPOTHESIS_PROFILE).  Each test prints its counts (``pytest -s`` or the
terminal summary shows them).
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

from chronolog import ChronologError, reason
from chronolog.cli import cli
from strategies import cases

ROOT = Path(__file__).resolve().parent.parent
# CPU seconds one run may take (a mutated program can be legitimately heavy:
# 143,000 answers take 3 s); CPU time, so that a loaded machine does not count
LIMIT = 20
MAX_ROUNDS = 20_000
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.S | re.M)


class Timeout(Exception):
    pass


@contextmanager
def time_limit(seconds: int):
    """Raise Timeout in the block after ``seconds`` of CPU time."""

    def fire(signum, frame):
        raise Timeout()

    old = signal.signal(signal.SIGPROF, fire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


def corpus() -> tuple[list, list]:
    """The programs and the fact texts of the docs' examples."""
    programs, facts = [], []
    for doc in sorted((ROOT / "docs").glob("*.md")):
        for m in FENCE.finditer(doc.read_text(encoding="utf-8")):
            words = m.group(1).split()
            lang = words[0] if words else ""
            name = next((w.split("=", 1)[1] for w in words if w.startswith("file=")), "")
            text = m.group(2)
            if lang == "vadalog" or name.endswith(".vada"):
                programs.append(text.encode())
            elif lang == "facts" or name.endswith((".facts", ".txt")):
                facts.append(text.encode())
    return programs, facts


PROGRAMS, FACTS = corpus()
AWKWARD = [
    b"\xff", b"\xe9", b"\x00", b"\xef\xbb\xbf", b"\n", b".", b",", b"(", b")", b"[", b"]", b"@", b":-",
    b"<->", b"<+>", b"[-]", b"[+]", b"<S>", b"<U>", b"not ", b"-", b"1/0", b"-1", b"+inf", b"-inf", b"1e400",
    b"99999999999999999999999", b"0.000001", b"X", b"_", b'"', b"#", b"%", b"@output(\"p\").", b"@bind(",
    b"msum(", b"=", b"*", b"<<", b"2020-01-01", b"@timeGranularity(\"days\").", b" every 3", b"\\", b"\t",
]


NUMBER_BYTES = [b"0", b"1", b"7", b"1000000", b"1/3", b"0.5", b"1/0", b"1e400", b"1e40000", b"99999999999999999999999", b"+inf"]


def mutate(data: bytes, rnd: random.Random) -> bytes:
    data = bytearray(data)
    for _ in range(rnd.choice((1, 1, 1, 2, 3))):  # mostly one edit: deep enough to reach the reasoner
        op = rnd.choice((0, 1, 1, 1, 2, 2, 3, 3, 4, 5, 6, 6, 6))
        at = rnd.randint(0, len(data))
        if op == 0 and data:  # flip a byte
            i = rnd.randrange(len(data))
            data[i] = rnd.randrange(256)
        elif op == 1:  # insert an awkward token
            data[at:at] = rnd.choice(AWKWARD)
        elif op == 2 and data:  # delete a span
            del data[at : at + rnd.randint(1, 8)]
        elif op == 3 and data:  # duplicate a span
            i = rnd.randrange(len(data))
            data[at:at] = data[i : i + rnd.randint(1, 40)]
        elif op == 4:  # truncate
            del data[at:]
        elif op == 6:  # replace a number: the program still parses, the reasoner meets the value
            spans = [m.span() for m in re.finditer(rb"\d+(?:\.\d+)?", bytes(data))]
            if spans:
                i, j = rnd.choice(spans)
                data[i:j] = rnd.choice(NUMBER_BYTES)
        else:  # repeat a span many times (deep nesting, long lines)
            i = rnd.randrange(len(data)) if data else 0
            data[at:at] = data[i : i + rnd.randint(1, 12)] * rnd.randint(2, 300)
    return bytes(data)


class Counts:
    def __init__(self, name):
        self.name, self.ok, self.errors, self.escapes, self.timeouts = name, 0, 0, [], []
        self.t0 = time.perf_counter()

    def report(self):
        line = (
            f"fuzz {self.name}: {self.ok + self.errors + len(self.escapes) + len(self.timeouts)} runs, "
            f"{self.ok} ok, {self.errors} ChronologErrors, {len(self.escapes)} escapes, "
            f"{len(self.timeouts)} timeouts ({time.perf_counter() - self.t0:.1f} s, profile {settings.default.max_examples})"
        )
        print(line)
        with open(os.environ.get("CHRONOLOG_FUZZ_LOG", os.devnull), "a") as fh:
            fh.write(line + "\n")
        assert not self.escapes, self.escapes[:5]
        assert not self.timeouts, self.timeouts[:5]


def api_run(program: bytes, facts: bytes | None, counts: Counts) -> None:
    try:
        with time_limit(LIMIT):
            text = program.decode("utf-8", "surrogateescape")
            m = reason(text, facts.decode("utf-8", "replace") if facts is not None else None, max_rounds=MAX_ROUNDS)
            m.to_text()
        counts.ok += 1
    except ChronologError as e:
        e.render()
        counts.errors += 1
    except Timeout:
        counts.timeouts.append(program[:300])
    except Exception as e:  # noqa: BLE001 - what the test looks for
        counts.escapes.append((type(e).__name__, str(e)[:200], program[:300]))


def cli_run(program: bytes, facts: bytes | None, where: Path, counts: Counts) -> None:
    prog = where / "p.vada"
    prog.write_bytes(program)
    args = ["run", str(prog), "--max-rounds", str(MAX_ROUNDS), "--output", str(where / "out"), "--overwrite"]
    if facts is not None:
        (where / "f.facts").write_bytes(facts)
        args += ["--facts", str(where / "f.facts")]
    try:
        with time_limit(LIMIT):
            r = CliRunner().invoke(cli, args, catch_exceptions=True)
    except Timeout:
        counts.timeouts.append(program[:300])
        return
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        counts.escapes.append((type(r.exception).__name__, str(r.exception)[:200], program[:300]))
    elif r.exit_code == 0:
        counts.ok += 1
    elif r.exit_code == 2 and "Traceback" not in r.output:
        counts.errors += 1
    else:
        counts.escapes.append((f"exit {r.exit_code}", r.output[:200], program[:300]))


def test_mutated_docs_through_the_api():
    rnd = random.Random(14)
    counts = Counts("api, mutated docs")
    for _ in range(examples(150)):
        program = mutate(rnd.choice(PROGRAMS), rnd)
        facts = mutate(rnd.choice(FACTS), rnd) if FACTS and rnd.random() < 0.4 else None
        api_run(program, facts, counts)
    counts.report()


def test_mutated_docs_through_the_command_line(tmp_path):
    rnd = random.Random(1414)
    counts = Counts("command line, mutated docs")
    for _ in range(examples(60)):
        program = mutate(rnd.choice(PROGRAMS), rnd)
        facts = mutate(rnd.choice(FACTS), rnd) if FACTS and rnd.random() < 0.4 else None
        cli_run(program, facts, tmp_path, counts)
    counts.report()


def test_mutated_docs_through_the_entry_point(tmp_path):
    """A few real processes: the entry point's own handling (exit 3 would be a bug)."""
    rnd = random.Random(141414)
    counts = Counts("subprocess, mutated docs")
    for i in range(examples(3)):
        prog = tmp_path / f"p{i}.vada"
        prog.write_bytes(mutate(rnd.choice(PROGRAMS), rnd))
        try:
            r = subprocess.run(
                [sys.executable, "-m", "chronolog", "run", str(prog), "--max-rounds", str(MAX_ROUNDS)],
                capture_output=True, text=True, timeout=6 * LIMIT,  # wall time: the machine may be loaded
            )
        except subprocess.TimeoutExpired:
            counts.timeouts.append(prog.read_bytes()[:300])
            continue
        if r.returncode == 0:
            counts.ok += 1
        elif r.returncode == 2 and "Traceback" not in r.stderr:
            counts.errors += 1
        else:
            counts.escapes.append((f"exit {r.returncode}", r.stderr[:300], prog.read_bytes()[:300]))
    counts.report()


# ------------------------------------------------------------ grammar-aware

TOKEN = re.compile(r"<->|<\+>|\[-\]|\[\+\]|<S>|<U>|:-|[A-Za-z_][A-Za-z0-9_]*|-?\d+(?:\.\d+)?(?:/\d+)?|\+inf|-inf|\S")
NUMBERS = ["0", "-1", "1/0", "0/0", "1e400", "-inf", "+inf", "99999999999999999999", "1/3", "0.5", "-0"]


@st.composite
def edited_programs(draw):
    """A random valid program (tests/strategies.py), then a few token edits."""
    case = draw(cases(nest=2, negation=True, head_boxes=True, recursion=draw(st.booleans()), comparisons=True))
    tokens = TOKEN.findall(case.program + "\n" + case.facts)
    for _ in range(draw(st.integers(0, 3))):
        if not tokens:
            break
        i = draw(st.integers(0, len(tokens) - 1))
        edit = draw(st.sampled_from(["number", "drop", "double", "swap", "rename", "insert"]))
        if edit == "number" and re.match(r"-?\d", tokens[i]):
            tokens[i] = draw(st.sampled_from(NUMBERS))
        elif edit == "drop":
            del tokens[i]
        elif edit == "double":
            tokens.insert(i, tokens[i])
        elif edit == "swap" and i + 1 < len(tokens):
            tokens[i], tokens[i + 1] = tokens[i + 1], tokens[i]
        elif edit == "rename" and re.match(r"[A-Z]", tokens[i]):
            tokens[i] = "Unbound"
        elif edit == "insert":
            tokens.insert(i, draw(st.sampled_from(["not", "<->[0,1]", "@[S,E)", "Y = X * 2,", ",", ".", "@", "[-][0,1]"])))
    text = " ".join(tokens).replace(" . ", ".\n")
    horizon = draw(st.one_of(st.none(), st.just(case.horizon), st.tuples(st.integers(-5, 5), st.integers(-5, 20))))
    return text, horizon


GRAMMAR_COUNTS = Counts("api, generated programs")


@settings(max_examples=examples(100), deadline=None, suppress_health_check=list(HealthCheck))
@given(edited_programs())
def test_generated_programs_through_the_api(drawn):
    text, horizon = drawn
    try:
        with time_limit(LIMIT):
            reason(text, horizon=horizon, max_rounds=MAX_ROUNDS).to_text()
        GRAMMAR_COUNTS.ok += 1
    except ChronologError:
        GRAMMAR_COUNTS.errors += 1
    except Timeout:
        GRAMMAR_COUNTS.timeouts.append(text)
        raise AssertionError(f"no answer within {LIMIT} s: {text!r} horizon={horizon}") from None


def test_generated_programs_report():
    """Runs after the generated programs (file order): prints their counts."""
    GRAMMAR_COUNTS.report()
