"""A program as the API and the Spark paths take it (its text, a Path to
read, or a parsed Program) to the AST of its dialect: parsing is the
language's work, so the connectors read programs here, not through the API."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from . import ast
from .errors import ArgumentError


def check_program(program) -> None:
    if not isinstance(program, (str, Path, ast.Program)):
        raise ArgumentError(
            f"program: expected the program's text, a pathlib.Path or a parsed Program, not {type(program).__name__}",
            hint='reason("p(X) :- q(X).  q(a)@1.") or reason(Path("rules.vada"))',
        )


def read_program(program, dialect: str = "vadalog", source: Optional[str] = None) -> ast.Program:
    """Parse program text, or read and parse a file given as a ``Path``;
    a parsed Program is returned as it is."""
    if isinstance(program, ast.Program):
        return program
    from .reader import dialect as find_dialect

    if isinstance(program, Path):
        from .source_text import read_text

        return find_dialect(dialect).parse(read_text(program, "program"), source or str(program))
    check_program(program)
    from .source_text import strip_bom

    return find_dialect(dialect).parse(strip_bom(program), source or "<program>")
