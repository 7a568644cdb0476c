"""Reading the user's text files: UTF-8, with an optional byte-order mark
(some Windows editors write one), and an undecodable byte reported at its
line and column instead of a ``UnicodeDecodeError``."""

from __future__ import annotations

import os

from .ast import Pos
from .compressed import read_bytes
from .errors import DataError, ProgramError

BOM = "\ufeff"
# From this size on, a fact file or a bound CSV file is read by the column
# kernels (numpy and polars); smaller ones skip importing them.
KERNEL_BYTES = 1 << 16


_FILE_SUFFIXES = ("vada", "meteor", "mtl", "lars", "facts", "csv", "tsv", "txt", "parquet", "arrow", "feather", "ipc", "json")


def refuse_file_name(text: str, what: str, read_as: str) -> None:
    """Text that did not parse and is one file name (``reason("rules.vada")``):
    a str is always text, so say how to read the file instead of how the
    name fails as a program.  Returns when the text is no file name; the
    error does not chain the reader's (called from its ``except``)."""
    name = text.strip()
    if not name or any(c.isspace() or c in "@:()[]" for c in name):
        return
    stem, dot, suffix = name.rpartition(".")
    if not (dot and stem and suffix.lower() in _FILE_SUFFIXES) and not os.path.isfile(name):
        return
    gone = "" if os.path.exists(name) else " (which does not exist)"
    from .errors import ArgumentError

    raise ArgumentError(f"{what}: {name!r} is read as {read_as}, but it is the name of a file{gone}",
                        hint=f'a str is the text itself; to read the file, pass a Path: Path("{name}")') from None


class NamedText(str):
    """Text that names where it came from in its errors (``<stdin>``):
    ``reason`` reads facts given so as it reads a facts file."""

    source: str

    def __new__(cls, text: str, source: str):
        self = super().__new__(cls, text)
        self.source = source
        return self


def decode(data: bytes, source: str, what: str = "file", csv: bool = False) -> str:
    """``data`` as text, as :func:`plain_text` reads it; a CSV file
    (``csv``) only without its byte-order mark: the csv module reads a
    lone carriage return as a line end itself, and one inside a quoted
    cell is the cell's own (the writers write it so)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise not_utf8(data, e.start, source, what) from None
    if csv:
        return text[1:] if text.startswith(BOM) else text
    return plain_text(text)


def not_utf8(data: bytes, offset: int, source: str, what: str):
    """The error for the undecodable byte at ``offset``."""
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[start:offset].decode("utf-8", "replace")) + 1
    end = data.find(b"\n", offset)
    shown = data[start : end if end >= 0 else len(data)][:200].decode("utf-8", "replace")
    cls = ProgramError if what == "program" else DataError
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):  # UTF-16's byte-order mark (a spreadsheet's "Unicode text")
        return cls(f"the {what} is UTF-16 text, not UTF-8", Pos(source, 1, 1), hint="save the file as UTF-8 (e.g. iconv -f utf-16 -t utf-8 FILE)")
    return cls(
        f"the {what} is not UTF-8 text (byte 0x{data[offset]:02x})",
        Pos(source, line, column),
        hint="save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8 FILE)",
        source_line=shown,
    )


# the binary table files a user may give where text goes: (magic bytes, what, @bind kind)
_TABLE_FILES = ((b"PAR1", "a Parquet file", "parquet"), (b"ARROW1", "an Arrow file", "arrow"))


def read_text(path, what: str = "file", csv: bool = False) -> str:
    """The text of the file ``path`` (``what``: "program", "facts file", ...;
    ``csv``: a CSV file, its carriage returns kept: :func:`decode`)."""
    path = os.fspath(path)
    cls = ProgramError if what == "program" else DataError
    try:
        data = read_bytes(path, what)  # (decompressed: a file.csv.gz)
    except IsADirectoryError:
        raise cls(f"cannot read the {what} {path}: it is a directory", hint="name a file") from None
    except FileNotFoundError:
        raise cls(f"the {what} {path} does not exist",
                  hint="check the path (relative paths start at the current directory)") from None
    except OSError as e:
        raise cls(f"cannot read the {what} {path}: {e.strerror or e}") from None
    for magic, name, kind in _TABLE_FILES:
        if data.startswith(magic):  # (not a bad byte of a text at 'line 2', its bytes shown)
            raise cls(f"the {what} {path} is {name}, not {'fact ' if what == 'facts file' else ''}text",
                      hint=f'bind it in the program: @bind("pred", "{kind}", "{_parent(path)}", "{os.path.basename(path)}"). '
                      '(from Python, a table also goes as facts: {"pred": table})')
    return decode(data, str(path), what, csv)


def csv_hint(source: str, line: int):
    """The hint for a fact line that does not parse on the first line of a
    file named .csv (its header): how a CSV file is read; else None."""
    if line != 1 or not source.lower().endswith(".csv"):
        return None
    return (f'this reads fact text, one fact a line; a CSV file is read by @bind("pred", "csv useHeaders=true", '
            f'"{_parent(source)}", "{os.path.basename(source)}"). in the program (from Python, a table also goes as facts: {{"pred": table}})')


def _parent(path: str) -> str:
    """The directory of ``path`` as ``pathlib`` names it (``.`` for none)."""
    return os.path.dirname(path) or "."


def plain_text(text: str) -> str:
    """``text`` without a byte-order mark, and each lone carriage return
    (an old Mac line end) a newline, as Python's text files read it: the
    parser, the line reader and the kernels all count lines by ``\n``
    (a file of such lines read as one line, or its errors placed on line 1)."""
    if text.startswith(BOM):
        text = text[1:]
    if "\r" in text and text.count("\r") != text.count("\r\n"):
        import re

        text = re.sub("\r(?!\n)", "\n", text)
    return text
