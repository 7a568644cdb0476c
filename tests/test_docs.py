"""Every example in the documentation runs, and prints what the docs say.

Conventions in ``docs/*.md`` (fenced code blocks, by their info string):

* ```` ```vadalog ```` (or ```` ```meteor ````) — a program.  It must be
  followed by an ```` ```output ```` block (the expected ``model.to_text()``,
  i.e. what ``chronolog run`` prints) or an ```` ```error ```` block (the
  expected message of the :class:`chronolog.ChronologError` it raises).  An
  optional ```` ```facts ```` block may sit in between (extra facts, passed
  as ``reason(program, facts)``).  Options after the language word:
  ``horizon=FROM,TO`` (passed to ``reason``).
* ```` ```LANG file=NAME ```` — any block with ``file=``: its text is written
  to ``NAME`` in the working directory of every later example of the same
  document (programs and CSV files used by ``console`` and ``python``
  examples).  It is not run by itself.
* ```` ```console ```` — a shell session: lines starting with ``$ `` are run
  with bash (``chronolog`` on the PATH) in that working directory; the lines
  up to the next ``$ `` are the expected output (standard output and error).
* ```` ```python ```` — executed (in that working directory); if an
  ```` ```output ```` block follows, the captured standard output must equal it.
* ``no-run`` after the language word exempts a block (syntax-only fragments).

A ``vadalog``/``meteor`` block without ``no-run``, ``file=``, or a following
output/error block fails the test, so no example goes unchecked.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import chronolog

pytestmark = pytest.mark.usefixtures("executor")  # every test on both executors

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted((ROOT / "docs").glob("*.md"))
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.S | re.M)
PROGRAM_LANGS = ("vadalog", "meteor", "lars")


class Block:
    def __init__(self, doc: Path, info: str, text: str, line: int):
        words = info.split()
        self.doc = doc
        self.lang = words[0] if words else ""
        self.opts = {}
        self.flags = set()
        for w in words[1:]:
            if "=" in w:
                k, v = w.split("=", 1)
                self.opts[k] = v
            else:
                self.flags.add(w)
        self.text = text
        self.line = line

    @property
    def where(self) -> str:
        return f"{self.doc.name}:{self.line}"


def blocks_of(doc: Path) -> list:
    src = doc.read_text(encoding="utf-8")
    out = []
    for m in FENCE.finditer(src):
        line = src.count("\n", 0, m.start()) + 1
        out.append(Block(doc, m.group(1).strip(), m.group(2), line))
    return out


def collect():
    """``(id, kind, blocks, files)`` for every runnable example."""
    examples = []
    problems = []
    for doc in DOCS:
        blocks = blocks_of(doc)
        files = {}
        i = 0
        while i < len(blocks):
            b = blocks[i]
            if "no-run" in b.flags:
                i += 1
                continue
            if "file" in b.opts:
                files[b.opts["file"]] = b.text
                i += 1
                continue
            if b.lang in PROGRAM_LANGS:
                j = i + 1
                facts = None
                if j < len(blocks) and blocks[j].lang == "facts":
                    facts = blocks[j]
                    j += 1
                if j >= len(blocks) or blocks[j].lang not in ("output", "error"):
                    problems.append(f"{b.where}: a {b.lang} block needs an ```output or ```error block after it")
                    i += 1
                    continue
                examples.append((b.where, "program", (b, facts, blocks[j]), dict(files)))
                i = j + 1
                continue
            if b.lang == "python":
                expected = None
                if i + 1 < len(blocks) and blocks[i + 1].lang == "output":
                    expected = blocks[i + 1]
                    i += 1
                examples.append((b.where, "python", (b, expected), dict(files)))
                i += 1
                continue
            if b.lang == "console":
                if not any(l.startswith("$ ") for l in b.text.splitlines()):
                    problems.append(f"{b.where}: a console block without a '$ ' command")
                examples.append((b.where, "console", (b,), dict(files)))
                i += 1
                continue
            if b.lang in ("output", "error", "facts"):
                problems.append(f"{b.where}: an ```{b.lang} block that follows no example")
            i += 1
    return examples, problems


EXAMPLES, PROBLEMS = collect()


def test_docs_exist_and_every_example_is_checked():
    names = {d.name for d in DOCS}
    assert {"language.md", "api.md", "cli.md", "recipes.md"} <= names
    assert not PROBLEMS, "\n".join(PROBLEMS)
    assert len(EXAMPLES) >= 40


def _write_files(files: dict, where: Path) -> None:
    for name, text in files.items():
        p = where / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


def _expected(block) -> str:
    return block.text.rstrip("\n")


@pytest.mark.parametrize("where,kind,parts,files", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_doc_example(where, kind, parts, files, tmp_path, monkeypatch):
    _write_files(files, tmp_path)
    monkeypatch.chdir(tmp_path)
    if kind == "program":
        _run_program(*parts)
    elif kind == "python":
        _run_python(*parts)
    else:
        _run_console(parts[0], tmp_path)


def _run_program(prog, facts, expected):
    kw = {"dialect": prog.lang}
    if "horizon" in prog.opts:
        kw["horizon"] = prog.opts["horizon"]
    facts_text = facts.text if facts is not None else None
    if expected.lang == "error":
        with pytest.raises(chronolog.ChronologError) as e:
            chronolog.reason(prog.text, facts_text, **kw)
        assert str(e.value) == _expected(expected), f"{prog.where}: the error message differs"
    else:
        got = chronolog.reason(prog.text, facts_text, **kw).to_text()
        assert got == _expected(expected), f"{prog.where}: the output differs"


def _run_python(code, expected):
    out = io.StringIO()
    namespace = {"__name__": "__doc_example__"}
    with contextlib.redirect_stdout(out):
        exec(compile(code.text, code.where, "exec"), namespace)
    if expected is not None:
        assert out.getvalue().rstrip("\n") == _expected(expected), f"{code.where}: the printed output differs"


def _run_console(block, cwd: Path):
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    commands = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            commands.append([line[2:], []])
        elif commands:
            commands[-1][1].append(line)
    for command, lines in commands:
        r = subprocess.run(
            ["bash", "-c", command], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        want = "\n".join(lines).rstrip("\n")
        assert r.stdout.rstrip("\n") == want, f"{block.where}: `{command}` printed something else"
