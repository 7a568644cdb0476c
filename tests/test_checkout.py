"""chronolog run from its source checkout without being installed
(chronolog/checkout.py): ``python3 -m chronolog`` and ``import chronolog``
at the checkout's root find the subpackages beside chronolog/, and a Python
without chronolog's dependencies is told to run setup.sh.  ``python -S``
stands for a Python where chronolog is not installed (no .pth file, so no
editable install); PYTHONPATH lends it the dependencies or not."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _python(args, deps: bool, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    if deps:
        env["PYTHONPATH"] = sysconfig.get_paths()["purelib"]
    return subprocess.run([sys.executable, "-S", *args], cwd=ROOT, env=env, capture_output=True, text=True)


@pytest.fixture
def program(tmp_path):
    p = tmp_path / "p.vada"
    p.write_text("q(X) :- <->[0,2] p(X).\np(a)@1.\n")
    return p


def test_python_m_chronolog_at_the_checkout_root(tmp_path, program):
    r = _python(["-m", "chronolog", "run", str(program)], True, tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (0, "q(a)@[1,3]\n", "")


def test_import_chronolog_at_the_checkout_root(tmp_path):
    code = "import chronolog; print(chronolog.reason('q(X) :- p(X). p(a)@[1,2).').to_text())"
    r = _python(["-c", code], True, tmp_path)
    assert (r.returncode, r.stdout.strip()) == (0, "q(a)@[1,2)"), r.stderr


def test_a_python_without_the_dependencies_is_told_to_run_setup(tmp_path, program):
    r = _python(["-m", "chronolog", "plan", str(program)], False, tmp_path)  # (click's command line)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith("error: chronolog needs the Python package ") and "bash setup.sh" in r.stderr
    # a small run needs none of them (its parser is generated, its command line read without click)
    r = _python(["-m", "chronolog", "run", str(program)], False, tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (0, "q(a)@[1,3]\n", "")


def test_the_command_line_names_a_missing_dependency(monkeypatch, capsys, program):
    import chronolog.api
    from chronolog.cli import main

    def reason(*a, **k):
        raise ModuleNotFoundError("No module named 'lark'", name="lark")

    monkeypatch.setattr(chronolog.api, "reason", reason)
    with pytest.raises(SystemExit) as e:
        main(["run", str(program)])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: chronolog needs the Python package lark,") and "bash setup.sh" in err
