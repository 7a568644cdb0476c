"""The dialects' generated parsers (language/lark_runtime.py and
language/<dialect>_tables.py, written by scripts/generate_parsers.py)
against lark itself as the oracle: the files are what the generator makes
of the grammars today, and lark's own parser built from each grammar gives
the same trees and the same errors (kind, line, column, what was expected)
on the suites' programs, the tests' program texts and random edits of them.
A command imports no lark."""

from __future__ import annotations

import ast as pyast
import subprocess
import sys
from pathlib import Path

import lark
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from chronolog.language import reader

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from generate_parsers import OPTIONS  # noqa: E402

SUFFIX = {"vadalog": ".vada", "meteor": ".meteor", "lars": ".lars"}
TEST_TEXTS = {"vadalog": ["test_golden.py", "test_errors.py", "test_bad_input.py", "test_dates.py"],
              "meteor": ["test_meteor_dialect.py", "test_meteor_rules.py"], "lars": ["test_lars.py"]}


def test_the_generated_files_are_what_the_grammars_give():
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "generate_parsers.py"), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def corpus(dialect: str) -> list:
    """Program files of the dialect, and every string in its tests that looks like a program."""
    texts = [p.read_text(encoding="utf-8") for d in ("tests/data", "examples", "bench/programs")
             for p in sorted((ROOT / d).rglob(f"*{SUFFIX[dialect]}"))]
    for name in TEST_TEXTS[dialect]:
        tree = pyast.parse((ROOT / "tests" / name).read_text(encoding="utf-8"))
        texts += [n.value for n in pyast.walk(tree) if isinstance(n, pyast.Constant) and isinstance(n.value, str)
                  and ("(" in n.value or ":-" in n.value) and len(n.value) < 5000]
    return texts


def lark_parser(dialect: str) -> lark.Lark:
    return lark.Lark((ROOT / "language" / f"{dialect}.lark").read_text(encoding="utf-8"), **OPTIONS)


def outcome(parser, text: str):
    """The tree (with positions), or the error's kind, place and expected tokens."""
    try:
        tree = parser.parse(text)
    except Exception as e:  # noqa: BLE001  (compared with the oracle's)
        return (type(e).__name__, getattr(e, "line", None), getattr(e, "column", None),
                sorted(getattr(e, "expected", None) or getattr(e, "allowed", None) or ()),
                str(getattr(e, "token", "")))
    return shape(tree)


def shape(node):
    """A tree as plain data: rule names, tokens (type, text, line, column), positions."""
    if hasattr(node, "children"):
        meta = node.meta
        where = (getattr(meta, "line", None), getattr(meta, "column", None), getattr(meta, "end_line", None),
                 getattr(meta, "end_column", None)) if not getattr(meta, "empty", True) else None
        return (str(node.data), where, [shape(c) for c in node.children])
    return (node.type, str(node), node.line, node.column, node.end_line, node.end_column)


@pytest.mark.parametrize("dialect", sorted(SUFFIX))
def test_the_same_trees_and_errors_as_lark_on_the_tests_programs(dialect):
    ours, theirs = reader._lark(f"{dialect}.lark"), lark_parser(dialect)
    texts = corpus(dialect)
    assert len(texts) > 20
    parsed = 0
    for text in texts:
        got = outcome(ours, text)
        assert got == outcome(theirs, text), text[:200]
        parsed += isinstance(got[0], str) and got[0] not in ("UnexpectedToken", "UnexpectedCharacters", "UnexpectedEOF")
    assert parsed > 5  # (programs, not only errors)


@settings(max_examples=examples(300), deadline=None)
@given(st.data())
def test_the_same_trees_and_errors_as_lark_on_edited_programs(data):
    dialect = data.draw(st.sampled_from(sorted(SUFFIX)))
    texts = _CORPUS.setdefault(dialect, corpus(dialect))
    text = data.draw(st.sampled_from(texts))
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(text)))
        if data.draw(st.booleans()) and i < len(text):
            text = text[:i] + text[i + 1:]
        else:
            text = text[:i] + data.draw(st.sampled_from(list("()[],.@:-<>|&\"' \nXa1"))) + text[i:]
    ours = reader._lark(f"{dialect}.lark")
    theirs = _PARSERS.setdefault(dialect, lark_parser(dialect))
    assert outcome(ours, text) == outcome(theirs, text), text


_CORPUS: dict = {}
_PARSERS: dict = {}


def test_a_command_imports_no_lark(tmp_path):
    program = tmp_path / "p.vada"
    program.write_text("q(X) :- <->[0,1] p(X).\np(a)@[1,2].\nbad(\n")
    code = ("import sys\nfrom chronolog.cli import main\nsys.argv = ['chronolog', 'run', sys.argv[1]]\n"
            "try:\n    main()\nfinally:\n    print(sorted(m for m in sys.modules if m.split('.')[0] == 'lark'), file=sys.stderr)\n")
    r = subprocess.run([sys.executable, "-c", code, str(program)], capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.startswith(f"{program}:3:5: syntax error: the program ends in the middle of a statement"), r.stderr
    assert r.stderr.rstrip().endswith("[]"), r.stderr
