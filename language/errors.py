"""User-facing errors.  Every error a user can cause is a :class:`ChronologError`
that knows where (file, line, column), what was expected, and how to fix it;
the command line prints its message and exits non-zero, never a traceback."""

from __future__ import annotations

import warnings

from .ast import Pos


class ChronologError(Exception):
    """Base class of every error caused by the user's program or data."""

    kind = "error"

    def __init__(self, message: str, pos: Pos | None = None, hint: str = "", source_line: str = ""):
        self.message = message
        self.pos = pos
        self.hint = hint
        self.source_line = source_line
        super().__init__(self.render())

    def render(self) -> str:
        where = f"{self.pos}: " if self.pos is not None else ""
        text = f"{where}{self.kind}: {self.message}"
        if self.source_line:
            line, col = _excerpt(self.source_line.rstrip(), self.pos.column if self.pos is not None else 0)
            text += f"\n    {line}"
            if col > 0:
                text += "\n    " + _under(line[: col - 1]) + "^"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


def counted(n, noun: str) -> str:
    """``1 argument``, ``2 arguments``: a count in a message, with the noun's
    number agreeing (``noun`` is singular and takes an ``s``)."""
    return f"{n} {noun}" if n == 1 or n == "1" else f"{n} {noun}s"


def failure_text(e: BaseException) -> str:
    """What an error said, in one phrase: a ChronologError's message without
    its place, else the exception's text or its class (a session or stream
    that failed midway quotes it at every later call)."""
    return getattr(e, "message", None) or str(e) or type(e).__name__


def _under(text: str) -> str:
    """The blanks that put a caret under the character after ``text`` on a
    terminal: a tab stays a tab (it stops where the line's tab stopped), a
    wide character (CJK, most emoji) takes two blanks, a combining mark none."""
    import unicodedata

    return "".join("\t" if c == "\t" else "" if unicodedata.combining(c)
                   else "  " if unicodedata.east_asian_width(c) in "WF" else " " for c in text)


def _excerpt(line: str, column: int, width: int = 100):
    """A long line cut to ``width`` characters around ``column`` (a one-line
    fact file of megabytes must not be echoed whole); the column adjusted."""
    if len(line) <= width:
        return line, column
    start = max(0, min(column - 1 - width // 2, len(line) - width)) if column > 0 else 0
    cut = line[start : start + width]
    prefix = "…" if start > 0 else ""
    suffix = "…" if start + width < len(line) else ""
    return prefix + cut + suffix, (column - start + len(prefix)) if column > 0 else 0


class ArgumentError(ChronologError):
    """A Python argument of the wrong type or value."""

    kind = "argument error"


class SyntaxError_(ChronologError):
    kind = "syntax error"


class ProgramError(ChronologError):
    """A well-formed program that is still wrong: unsafe rule, arity mismatch,
    unstratifiable negation, bad annotation, missing horizon."""

    kind = "program error"


HORIZON_HINT = ("give an evaluation horizon (@temporal(0, 1000). in the program, --horizon 0,1000, "
                "or horizon=(0, 1000) in reason())")


class HorizonNeeded(ProgramError):
    """A model chronolog cannot find where it repeats: it needs a horizon
    (the hint says how to give one).  Its own class, so that a caller that
    gave a horizon open on one side can say which end to close."""

    def __init__(self, message: str, pos: Pos | None = None, hint: str = HORIZON_HINT, source_line: str = ""):
        super().__init__(message, pos, hint, source_line)


class DataError(ChronologError):
    kind = "data error"


class LateCorrection(DataError):
    """A correction a stream cannot take: it reaches back further than the
    stream keeps, or meets processed input with corrections off (Spark's
    streams treat it as a late fact)."""


class InconsistencyError(ChronologError):
    """A constraint (a rule with head ``⊥``) is violated."""

    kind = "inconsistent"

    def __init__(self, message: str, pos: Pos | None = None, violations=None):
        self.violations = violations or []
        super().__init__(message, pos)


def too_deep(text: str, source: str, first_line: int = 1) -> SyntaxError_:
    """Operators nested beyond what the parser's recursion allows."""
    lines = text.splitlines() or [""]
    n = max(range(len(lines)), key=lambda i: lines[i].count("[") + lines[i].count("("))
    return SyntaxError_(
        "operators are nested too deeply to read",
        Pos(source, first_line + n, 1),
        hint="split the nesting into rules with intermediate predicates (a few dozen levels at most)",
        source_line=lines[n][:200],
    )


class Note(UserWarning):
    """Something chronolog decided that the program leaves open, said
    aloud: printed as ``note: ...`` by every command and in Python alike
    (:func:`_format_note`), never with the file and line of chronolog's
    code that raised it."""


def _format_note(message, category, filename, lineno, line=None):
    """``warnings.formatwarning`` for a :class:`Note`: the sentence alone (the
    place in chronolog's source and its line say nothing to a user)."""
    if isinstance(category, type) and issubclass(category, Note):
        return f"note: {message}\n"
    return _format_plain(message, category, filename, lineno, line)


if getattr(warnings.formatwarning, "__name__", "") != "_format_note":  # once, however often imported
    _format_plain = warnings.formatwarning
    warnings.formatwarning = _format_note
