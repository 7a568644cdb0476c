"""Facts written inside a program, read by the kernel fact reader
(fact_columns.py) as it reads a fact file, and the rest left to the grammar.

A program that carries its data as fact lines was parsed by lark fact by
fact (103k facts: 35 s and 700 MB).  Here the kernel reader reads the
program's bytes block by block (no copy of the whole program), and its
kernels' match (in its worker threads) finds the lines that are facts of
their form, ended by their ``.``.  Such a line is a fact where the statement
before it has ended (so never a line inside a rule that spans several
lines): :class:`Statements` decides that per block, and takes every other
line (rules, annotations, comments, facts the kernels do not read) for the
grammar.  The rules' text keeps those lines and an empty line in place of
each fact: every line keeps its number and column, for errors.
"""

from __future__ import annotations

# a line that ends a statement (its last character outside a comment is a '.')
_ENDS = r"\.[ \t\r]*$"
# a line with no statement (blank, or a comment)
_NOTHING = r"^[ \t\r]*(?:%.*)?$"


def read(fh, source: str, terms=None, calendar=None):
    """``(rules' text, FactColumns)`` of the program in the binary file
    ``fh`` (its facts coded by the Dictionary ``terms``, their times read on
    ``calendar``: see :func:`timeline`), or None when the
    program is better read whole: no fact line the kernels read, a string
    over several lines, labelled nulls (one scope with the rules'), lines
    that hold the control bytes the reader's mask writes, a byte-order mark,
    or bytes that are not UTF-8 (the whole reading says where)."""
    from .fact_columns import _Fallback, read_fact_columns

    if fh.read(3) == b"\xef\xbb\xbf":
        return None
    fh.seek(0)
    while True:  # (every fact line the kernels read has its '@': a program of rules alone is not read block by block)
        chunk = fh.read(1 << 20)
        if not chunk:
            return None
        if b"@" in chunk:
            break
    fh.seek(0)
    statements = Statements()
    try:
        fc = read_fact_columns(fh, source, "vadalog", calendar, share=False, terms=terms, program=statements)
    except _Fallback:
        return None
    if not fc.parts:
        return None
    return statements.rules(), fc


# a @timeGranularity annotation's unit; a fact line's time that is a date
_DECLARED = rb'@timeGranularity\s*\(\s*"([^"\n]*)"'
_DATED = rb"@\s*[\[(]?\s*[0-9]{4}-[0-9]{2}-[0-9]{2}"


# the bytes a program's timeline is guessed from before its facts are read
# (where a program declares it; a guess the rules deny costs a second reading)
TIMELINE_HEAD = 1 << 20


def timeline(fh, limit=None):
    """The calendar the kernels read a program's dated facts on (its time
    tokens are dates only for a calendar): the unit its ``@timeGranularity``
    declares, else days where a fact line's time is a date (the program's
    timeline then, unless its rules say otherwise: the caller checks what
    the rules declare), else None.  One pass over the bytes (the first
    ``limit`` or more of them), as ``in`` and ``re`` search them."""
    import re

    from .dates import NO_DATE, UNIT_SECONDS, Calendar, unit_name

    dated, tail, seen = False, b"", 0
    while (limit is None or seen < limit) and (chunk := fh.read(1 << 20 if limit is None else min(1 << 20, limit - seen))):
        seen += len(chunk)
        data = tail + chunk
        if b"timeGranularity" in data and (m := re.search(_DECLARED, data)) is not None:
            unit = m.group(1).decode("utf-8", "replace")
            if unit.strip().lower() == NO_DATE or unit_name(unit) not in UNIT_SECONDS:
                return None
            return Calendar(unit_name(unit))
        dated = dated or re.search(_DATED, data) is not None
        tail = data[-64:]  # (a statement cut by the chunk's end is whole in the next search)
    return Calendar("days") if dated else None


class Statements:
    """The lines of a program around its facts, block by block, in order:
    whether the statement before a block has ended, and the lines that are
    not facts (line number, text), for the grammar."""

    def __init__(self):
        self.ended = True  # (the program starts between statements)
        self.others: list = []

    def inside_statements(self, lines, slow, keep):
        """Which matched lines of a block (``keep``; ``slow`` the others, of
        its ``lines``) continue a statement that has not ended (numpy bool
        over ``keep``): they are part of it, not facts.  Raises the
        reader's fallback when a line holds an unclosed string (a string
        over several lines) or a byte the reader's mask writes: the grammar
        then reads the program whole."""
        import numpy as np

        from .fact_columns import _Fallback

        n = len(lines)
        if not len(slow):  # (a block of facts: only its first line may continue a statement)
            inside = np.zeros(n, dtype=bool)
            inside[:1] = not self.ended
            self.ended = self.ended or n > 0
            return inside
        state = np.ones(n, dtype=np.int8)  # 1: ends its statement (a matched line does), 0: does not, -1: holds none
        if len(slow):
            got = _other_lines([t.encode("utf-8") for t in lines.gather(slow).to_list()])
            if got is None:
                raise _Fallback("a string over several lines of a program")
            ended, nothing = got
            state[slow] = np.where(nothing, -1, ended)
        at = np.where(state >= 0, np.arange(n), -1)
        np.maximum.accumulate(at, out=at)
        prev = np.concatenate([[-1], at[:-1]])  # the last line with a statement before each line
        before = np.where(prev >= 0, state[np.maximum(prev, 0)] == 1, self.ended)
        if n and at[-1] >= 0:
            self.ended = bool(state[at[-1]] == 1)
        return ~before[keep]

    def take(self, lines, other, first_line: int) -> None:
        """Keep the block's lines ``other`` (numpy; the block's first line is
        line ``first_line + 1``) for the grammar."""
        if len(other):
            self.others.extend(zip((other + first_line).tolist(), lines.gather(other).to_list()))

    def rules(self) -> str:
        """The text the grammar reads: the other lines at their places."""
        out, line = [], 0
        for i, text in self.others:
            out.append("\n" * (i - line))
            out.append(text)
            line = i
        return "".join(out)


def _other_lines(lines: list):
    """``(ends, nothing)`` (numpy bools) of lines that are not facts (UTF-8
    bytes each): a statement's end, blank or a comment, their strings
    masked as the fact reader masks them; None when one holds an unclosed
    string (a string over several lines) or a mask byte."""
    import numpy as np

    from .fact_columns import _mask, _quotes
    from .string_columns import matches, ranges

    data = b"\n".join(lines)
    buf = np.frombuffer(data, np.uint8)
    lens = np.array([len(x) for x in lines], dtype=np.int64)
    ends = np.cumsum(lens + 1) - 1
    starts = (ends - lens).astype(np.int32)
    ends = ends.astype(np.int32)
    if b'"' in data:
        if (np.bincount(np.searchsorted(starts, _quotes(buf), "right") - 1, minlength=len(lines)) & 1).any():
            return None
        buf = _mask(buf, starts, ends)
        if buf is None:
            return None
    cut = ranges(buf, starts, ends, checked=True)
    return matches(cut.str.replace(r"%.*$", ""), _ENDS), matches(cut, _NOTHING)
