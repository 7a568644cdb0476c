"""``chronolog run``'s command line read without click (chronolog/cli.py,
``run_arguments``) against click's own reading of it (the ``run`` command
of chronolog/commands.py) as the oracle: on random command lines, whatever
the reader accepts, click accepts with the same parameters; what it leaves
to click includes everything click refuses.  And the command itself runs
without importing click."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
from hypothesis import example, given, settings
from hypothesis import strategies as st

from budget import examples
from chronolog.cli import MULTIPLE, RUN_OPTIONS, run_arguments
from chronolog.commands import cli

RUN = cli.commands["run"]


def click_reading(args: list):
    """click's parameters for ``run ARGS``, or None where it refuses them
    (or ends early, as for --help)."""
    try:
        ctx = RUN.make_context("run", list(args), resilient_parsing=False)
    except (click.exceptions.UsageError, click.exceptions.Exit):
        return None
    return ctx.params


def test_the_reader_knows_every_option_of_run_as_click_declares_it():
    declared = {}
    for p in RUN.params:
        if isinstance(p, click.Option):
            names = p.opts + p.secondary_opts
            for n in names:
                declared[n] = p
    assert sorted(declared) == sorted(RUN_OPTIONS)
    for name, (param, kind, choices) in RUN_OPTIONS.items():
        p = declared[name]
        assert p.name == param, name
        assert p.multiple == (param in MULTIPLE), name
        assert (kind == "flag") == p.is_flag, name
        if kind == "choice":
            assert tuple(p.type.choices) == choices, name
        if kind == "path":
            assert isinstance(p.type, click.Path), name
        if kind == "positive":
            assert isinstance(p.type, click.IntRange) and p.type.min == 1, name


VALUES = ["ten.vada", "a b.vada", "x=y", "", "-", "-1,3", "0,10", "5", "0", "+5", "07", "１", "x", "local[2]", "k=v",
          "--stats", "-h", "vadalog", "meteor", "LARS", "csv", "json", "rows", "columns", "streaming", "minimal", "é.vada"]


@st.composite
def command_lines(draw):
    tokens = []
    for _ in range(draw(st.integers(0, 7))):
        kind = draw(st.sampled_from(["option", "option=", "value", "odd"]))
        if kind == "odd":
            tokens.append(draw(st.sampled_from(["--", "--help", "-h", "--bogus", "--fact", "--stat", "-x", "--no-stats"])))
            continue
        if kind == "value":
            tokens.append(draw(st.sampled_from(VALUES)))
            continue
        name = draw(st.sampled_from(sorted(RUN_OPTIONS)))
        value = draw(st.sampled_from(VALUES + list(RUN_OPTIONS[name][2] or ()) if isinstance(RUN_OPTIONS[name][2], tuple) else VALUES))
        if kind == "option=":
            tokens.append(f"{name}={value}")
        else:
            tokens += [name] if RUN_OPTIONS[name][1] == "flag" else [name, value]
    if draw(st.booleans()):
        tokens.insert(draw(st.integers(0, len(tokens))), draw(st.sampled_from(["ten.vada", "p.vada", "dir/p.lars"])))
    return tokens


@settings(max_examples=examples(1500), deadline=None)
@given(command_lines())
@example(["--conf", "ten.vada", ""])  # (found here: the reader took the empty path for ".", a directory)
def test_what_the_reader_accepts_click_reads_alike(args):
    ours, theirs = run_arguments(args), click_reading(args)
    if ours is not None:
        assert theirs is not None, args
        assert ours == theirs, args
        assert all(type(ours[k]) is type(theirs[k]) for k in ours), args


def test_plain_command_lines_are_read_without_click():
    for args in (["p.vada"], ["--facts", "f.txt", "p.vada", "--facts=g.txt", "--format", "csv", "--max-rounds", "12"],
                 ["p.vada", "--stats", "--no-progress", "--engine=rows", "--window", "0,5", "--spark", "local[2]", "--conf", "a=b"]):
        assert run_arguments(args) == click_reading(args) is not None, args


def test_a_run_imports_no_click(tmp_path):
    program = tmp_path / "p.vada"
    program.write_text("q(X) :- <->[0,1] p(X).\np(a)@[1,2].\n")
    code = ("import sys\nfrom chronolog.cli import main\nsys.argv = ['chronolog', 'run', sys.argv[1]]\n"
            "try:\n    main()\nfinally:\n    print('click' in sys.modules, file=sys.stderr)\n")
    r = subprocess.run([sys.executable, "-c", code, str(program)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "q(a)@[1,3]\n"
    assert r.stderr.strip() == "False"
    bad = subprocess.run([sys.executable, "-m", "chronolog", "run", str(program), "--format", "xml"], capture_output=True, text=True)
    assert bad.returncode == 2 and "Invalid value for '--format'" in bad.stderr  # (click's message, through click)
    assert Path(program).read_text().startswith("q(X)")
