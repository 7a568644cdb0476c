"""A program as the API and the Spark paths take it (its text, a Path to
read, or a parsed Program) to the AST of its dialect: parsing is the
language's work, so the connectors read programs here, not through the API."""

from __future__ import annotations

import os
from _thread import allocate_lock  # (threading's Lock, without importing threading)

from . import ast
from .errors import ArgumentError, ChronologError, SyntaxError_
from .records import copied


def check_program(program) -> None:
    if not isinstance(program, (str, os.PathLike, ast.Program)):
        raise ArgumentError(
            f"program: expected the program's text, a pathlib.Path or a parsed Program, not {type(program).__name__}",
            hint='reason("p(X) :- q(X).  q(a)@1.") or reason(Path("rules.vada"))',
        )


def read_program(program, dialect: str = "vadalog", source: str | None = None) -> ast.Program:
    """Parse program text, or read and parse a file given as a ``Path`` (any ``os.PathLike``);
    a parsed Program is returned as it is."""
    if isinstance(program, ast.Program):
        return program
    from .reader import dialect as find_dialect

    if isinstance(program, os.PathLike):
        from .source_text import read_text

        text = read_text(program, "program")
        try:
            return _shallow(find_dialect(dialect).parse(text, source or os.fspath(program)))
        except ChronologError as e:
            raise _named_dialect(e, text, dialect) from None
    check_program(program)
    from .source_text import plain_text

    text = plain_text(program)
    key = (dialect, source or "<program>", text)
    prog = _PARSED.get(key)
    if prog is None:
        try:
            prog = _shallow(find_dialect(dialect).parse(text, key[1]))
        except ChronologError as e:
            from .source_text import refuse_file_name

            refuse_file_name(text, "program", "the program's text")
            raise _named_dialect(e, text, dialect) from None
        if len(text) <= CACHED_CHARS and not _noted(prog):
            with _KEEPING:
                _PARSED[key] = prog
                while len(_PARSED) > 32:
                    del _PARSED[next(iter(_PARSED))]  # (the oldest)
    return _copy(prog)


DIALECTS = {"vadalog": ("Temporal Vadalog", ".vada"), "meteor": ("MeTeoR", ".meteor"), "lars": ("LARS", ".lars")}
GUESSED_CHARS = 1 << 20  # (a larger program is not read again in the other dialects)


def _named_dialect(err: ChronologError, text: str, dialect: str) -> ChronologError:
    """``err``, a syntax error of ``text`` read as ``dialect``, with a hint
    naming the dialect that reads the whole text when one does: a program
    pasted into the wrong dialect otherwise stops at a token with a list of
    what that dialect expected there.  Only on the error's path."""
    if type(err) is not SyntaxError_ or "--dialect" in err.hint or len(text) > GUESSED_CHARS:
        return err
    from .reader import dialect as find_dialect

    for other, (title, suffix) in DIALECTS.items():
        if other == dialect or (dialect, other) == ("vadalog", "meteor"):
            continue  # (MeTeoR's reader takes Vadalog's operators, a line at a time: that it reads a
            # Vadalog text with a '.' missing proves nothing; the Vadalog hints name MeTeoR's operators)
        try:
            find_dialect(other).parse(text)
        except Exception:  # (whatever stops another dialect: the error to report is this one's)
            continue
        hint = f'the program reads as {title}: --dialect {other}, a {suffix} file or dialect="{other}"'
        return SyntaxError_(err.message, err.pos, hint=f"{err.hint}; {hint}" if err.hint else hint, source_line=err.source_line)
    return err


DEEPEST = 100  # operators, calls and arithmetic nested in one literal (the passes after the reader recurse per level)


def _shallow(prog):
    """``prog``, or the error that a rule nests deeper than :data:`DEEPEST`:
    the reader may read a few hundred levels, and the planner, executors and
    printers after it would stop on Python's RecursionError somewhere there
    (a call of calls at 200 levels, a sum at 400)."""
    from . import ast
    from .errors import SyntaxError_

    for rule in prog.rules:
        text = rule.text
        if text and sum(map(text.count, "([<+-*/@")) + text.count("not") <= DEEPEST // 2:
            continue  # (each such character opens at most two levels: too few to nest that deep, no walk)
        if ast.nesting(rule) > DEEPEST:
            raise SyntaxError_(
                f"operators are nested too deeply to read (more than {DEEPEST} levels)",
                rule.pos,
                hint="split the nesting into rules with intermediate predicates, or a long sum into partial sums",
                source_line=(rule.text or str(rule)).splitlines()[0][:200],
            )
    return prog


# The parses of program texts within the process: the same text reasoned on
# again (a notebook cell, a service, a benchmark's repeats) skips the grammar
# (3 ms of a 20-day rolling window's 60).  Callers get a copy (_copy).
_PARSED: dict = {}  # (dialect, source, text) -> Program
_KEEPING = allocate_lock()
CACHED_CHARS = 1 << 16  # programs of rules (a large one is mostly facts: not kept)


def _noted(prog) -> bool:
    """Whether parsing it may have said a note (a timeline of seconds chosen
    for dates in a bound file, language/dates.py): not kept, so the next
    parse says it again."""
    from .dates import _date_columns, declared_calendar

    return prog.calendar is not None and declared_calendar(prog) is None and bool(_date_columns(prog))


def _copy(prog: ast.Program) -> ast.Program:
    """A Program of its own: its lists and statements copied (the run
    reassigns and appends to them), the frozen terms and literals shared."""
    out = copied(prog)
    for name, value in vars(prog).items():
        if type(value) in (list, dict):
            setattr(out, name, value.copy())
        elif isinstance(value, (list, dict)):
            import copy

            setattr(out, name, copy.copy(value))
    out.rules = [_with(r, body=list(r.body)) for r in prog.rules]
    out.facts = [copied(f) for f in prog.facts]
    out.annotations = [_with(a, args=list(a.args)) for a in prog.annotations]
    return out


def _with(obj, **changes):
    out = copied(obj)
    for name, value in changes.items():
        setattr(out, name, value)
    return out
