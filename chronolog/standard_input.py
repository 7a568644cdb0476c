"""``-`` on the command line: the program, or a facts file, read from
standard input, as Unix tools read ``-`` (``cat rules.vada | chronolog run -``,
``grep ... | chronolog run rules.vada --facts -``).  Errors name
``<stdin>`` with their line and column.  Standard input is read once, so
``-`` may stand for one of them only (a file named ``-`` is named by a
path with a directory in it, e.g. ``$PWD/-``: a command line's paths are
read as ``pathlib.Path`` reads them, ``./-`` as ``-``).

A file named on the command line is a :class:`FileName`: ``reason()`` reads
any ``os.PathLike`` as a file, and a command imports no pathlib (with
urllib.parse and ipaddress, ~18M instructions of a 10-fact run's 215M)."""

from __future__ import annotations

import os
import sys

from chronolog.language.errors import ChronologError
from chronolog.language.source_text import NamedText

SOURCE = "<stdin>"


class FileName(os.PathLike):
    """A path from the command line, spelled as ``pathlib.Path`` spells it
    (``./-`` is ``-``, ``a//b/`` is ``a/b``: messages name files as they
    did), read by the API as a file like any ``os.PathLike``."""

    __slots__ = ("_path",)

    def __init__(self, path):
        self._path = _as_pathlib_spells(os.fspath(path))

    def __fspath__(self) -> str:
        return self._path

    __str__ = __fspath__

    def __repr__(self) -> str:
        return f"FileName({self._path!r})"

    def __eq__(self, other) -> bool:
        return type(other) is FileName and other._path == self._path

    def __hash__(self) -> int:
        return hash(self._path)


def _as_pathlib_spells(path: str) -> str:
    """``str(pathlib.Path(path))`` without importing pathlib on POSIX (its
    rule: repeated separators and ``.`` parts dropped, ``..`` kept, two
    leading slashes kept, nothing left is ``.``); Windows' rules are
    pathlib's own."""
    if os.name == "nt":
        from pathlib import Path

        return str(Path(path))
    root = "//" if path.startswith("//") and not path.startswith("///") else "/" if path.startswith("/") else ""
    return root + "/".join(p for p in path.split("/") if p and p != ".") or "."


def is_stdin(path) -> bool:
    return path is not None and str(path) == "-"


def check_program_file(program) -> None:
    """The program named on a command line is ``-`` or a file that exists."""
    from chronolog.connectors.paths import exists

    if not is_stdin(program) and not exists(program, "the program file"):
        raise ChronologError(f"the program file {program} does not exist", hint="check the path (relative paths start at the current directory)")


def _read(what: str) -> str:
    from chronolog.language.source_text import decode

    if sys.stdin is None or sys.stdin.isatty():  # (a terminal: it would wait for typed input without a word)
        raise ChronologError(f"the {what} is `-` (standard input), but standard input is a terminal",
                             hint="pipe it in (cat FILE | chronolog ...) or give a file name")
    return decode(sys.stdin.buffer.read(), SOURCE, what)


def command_inputs(program, facts=(), dialect: str = "vadalog", stdin_taken: str | None = None):
    """``(program, facts)`` for ``reason``: ``-`` replaced by what standard
    input holds (the program parsed, naming ``<stdin>``; fact text as a
    NamedText), other paths as they are.  ``stdin_taken``: what else of the
    command reads standard input (``stream``'s facts), refused with ``-``."""
    named = [what for what, p in [("the program", program), *(("--facts", f) for f in facts)] if is_stdin(p)]
    if stdin_taken is not None and named:
        named.insert(0, stdin_taken)
    if len(named) > 1:
        both = "--facts - is given twice" if named[0] == named[1] else f"{named[0]} and {named[1]} both read it"
        raise ChronologError(f"standard input (`-`) can be read once, and {both}",
                             hint="give one of them as a file (a file named - by a path with its directory, e.g. $PWD/-)")
    if is_stdin(program):
        from chronolog.api import load_program

        program = load_program(_read("program"), dialect=dialect, source=SOURCE)
    facts = [NamedText(_read("facts file"), SOURCE) if is_stdin(f) else f for f in facts]
    return program, facts or None
