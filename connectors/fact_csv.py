"""One CSV file of the facts of many predicates, as ``chronolog run --format
csv`` writes it and ``--facts FILE.csv`` (``reason(program, Path(...))``)
reads it back.

The columns: ``pred`` (the predicate), one column per argument (``c0``,
``c1``, ... in the header's order; any names but the ones below), ``start``
and ``end`` (an empty one unbounded, as ``csv_files.time_cell`` reads it),
and optionally ``start_closed``/``end_closed`` (``true`` or
``false``; closed when absent) and ``every`` (a fact that repeats forever:
its period, as the fact text writes it).  A predicate with fewer arguments
than the file has columns leaves the cells after its last argument empty;
its arity is the same on each of its rows.

A cell is a term as the language writes it (``1/3``, ``#T``, ``_:n1`` a
labelled null of the file, ``{1,a}``, a date, ``"a string"`` with its
quotes), or else a string as it is (``hello world``, ``a,b`` quoted for the
CSV).  The writer (:class:`Cells`) writes a string bare only where it reads
back as itself: ``"1"``, ``"#T"``, ``""`` and a string that would read as
another term are written with the language's quotes, so that a file read
back gives the facts written.
"""

from __future__ import annotations

import csv
import io
import re

from chronolog.language import ast
from chronolog.language.errors import ChronologError, DataError, counted
from chronolog.language.nulls import current_table, reading_file

TIME_COLUMNS = ("start", "end", "start_closed", "end_closed", "every")
_PLAIN = re.compile(r"[a-z][A-Za-z0-9_]*\Z")  # a name: a string that reads back as itself, unparsed
_NULL = re.compile(r"_:[A-Za-z0-9_]+\Z")  # (the grammar's NULL, as csv_files reads one)


def is_fact_csv(path) -> bool:
    """Whether a fact file is read as such a CSV file (its name ends in
    ``.csv``, or ``.csv.gz`` and the like: compressed)."""
    from chronolog.language.compressed import inner_name

    return inner_name(path).lower().endswith(".csv")


class Cells:
    """The cells of terms, which :func:`read` reads back as the terms (one
    for a whole file: each distinct string is checked once)."""

    def __init__(self):
        from chronolog.language.text import format_term, format_term_text

        self.terms = _Terms(None)
        self.strings: dict = {}
        self.format_term, self.format_term_text = format_term, format_term_text

    def cell(self, v) -> str:
        if type(v) is str:
            got = self.strings.get(v)
            if got is None:
                bare = _PLAIN.match(v) or v and v[:1] != '"' and not _NULL.match(v) and self.terms.term(v) == v
                got = self.strings[v] = v if bare else self.format_term(v)  # ("1", "#T", "", "_:x": quoted, as the language writes them)
            return got
        if type(v) is tuple:  # a set, its floats as float(1.5) (they read back floats)
            return self.format_term_text(v)
        return self.format_term(v)


class _Terms:
    """The terms of cells, each distinct cell read once by the language's
    fact reader (as a fact's one argument)."""

    def __init__(self, calendar, source: str = "<a CSV cell>"):
        self.calendar, self.source = calendar, source
        self.zero = calendar.format_point(0) if calendar is not None else "0"
        self.known: dict = {}

    def term(self, text: str, line: int = 0, i: int = 0, column: str = ""):
        """The term of the cell ``text`` in column ``i`` (0-based) of ``line``."""
        got = self.known.get(text)
        if got is None:
            if _NULL.match(text):  # a labelled null: the file's (one per label)
                table = current_table()
                return table.get(text[2:]) if table is not None else text
            got = self.known[text] = (self._read(text, ast.Pos(self.source, line, i + 1), column),)
        return got[0]

    def _read(self, text: str, pos, column: str):
        from chronolog.language.facts import read_fact_rows

        quoted = text[:1] == '"'
        try:
            rows = read_fact_rows([f"t({text})@{self.zero}"], "<a CSV cell>", self.calendar)
            (((value,), _),) = rows["t"]
            if rows.keys() != {"t"} or rows.repeating:
                raise ValueError
        except (ChronologError, ValueError, KeyError):
            if quoted:
                raise DataError(f"column {column}: {text} is not a string as the language writes one", pos,
                                hint='a cell that starts with " is a quoted string: "a \\"b\\"" (or write it without quotes)') from None
            return text  # (a string as it is: x y, a,b)
        if quoted and type(value) is not str:
            raise DataError(f"column {column}: {text} is not a string as the language writes one", pos)
        return value if quoted or type(value) is not str else text


def read(path, calendar=None):
    """The facts of a CSV file of many predicates as FactRows: a large one
    read by kernels (connectors/fact_csv_columns.py), unless they leave it
    to :func:`read_rows`."""
    from .fact_csv_columns import read_columns

    columns = read_columns(path, calendar)
    if columns is not None:
        return columns.rows()
    return read_rows(path, calendar)


def read_rows(path, calendar=None):
    """:func:`read` by the csv module, row by row: each error at its
    file:line:column."""
    from chronolog.language.source_text import read_text

    text = read_text(path, "facts file", csv=True)
    with reading_file():  # one scope for the file's labelled nulls
        return _read(text, str(path), calendar)


def position_of(path, calendar, pred: str, i: int):
    """The position of the ``i``-th row of ``pred`` (not one that repeats)
    in the CSV file ``path``, read again: an error's place (the rows keep
    each predicate's first position alone)."""
    at = [pos for pos, p, _, _, every in rows_in_order(path, calendar) if p == pred and every is None]
    return at[i] if i < len(at) else None


def rows_in_order(path, calendar=None) -> list:
    """``(pos, pred, terms, interval, every)`` of each row of the CSV file
    of facts ``path``, in the file's order (FactRows keep them by predicate):
    a stream's order, and where a row is."""
    from chronolog.language.facts import FactRows
    from chronolog.language.source_text import read_text

    class InOrder(FactRows):
        def add(self, p, terms, iv, pos, every=None) -> None:
            out.append((pos, p, terms, iv, every))

    out: list = []
    with reading_file():
        _read(read_text(path, "facts file", csv=True), str(path), calendar, rows=InOrder())
    return out


def _read(text: str, source: str, calendar, skipped: int = 0, rows=None):
    """The facts of ``text`` (a header, then rows); ``skipped``: the file's
    lines left out after the header (``text`` from a later row on, its
    lines numbered as the file's), ``rows``: the FactRows they are added to."""
    from chronolog.language.facts import FactRows
    from chronolog.language.timeline import NEG_INF, POS_INF

    from .csv_files import convert, note_leading_zeros, time_cell

    rows = FactRows() if rows is None else rows
    lines = io.StringIO(text, newline="").readlines()
    reader = csv.reader(lines)
    terms = _Terms(calendar, source)
    names: set = set()  # the pred cells checked
    cells: dict = {}  # (kind, cell) -> its time point or flag, each distinct one read once
    header, done = None, 0
    zeros_noted: set = set()  # (the columns whose leading zeros were noted)

    def value(kind, record, i, line):
        text = record[i]
        got = cells.get((kind, text))
        if got is None:
            where = ast.Pos(source, line, i + 1)
            got = cells[(kind, text)] = (time_cell(text, False, NEG_INF if kind == "start" else POS_INF, where, header[i], calendar)
                                         if kind in ("start", "end") else convert(text, kind, where, header[i], calendar))
        return got

    try:
        for record in reader:
            line, done = done + 1 + (skipped if header is not None else 0), reader.line_num
            if header is None:
                if not any(c.strip() for c in record):
                    continue
                header = [h.strip() for h in record]
                cols = _columns(header, source, line)
                term_cols = [(i, header[i]) for i in cols["terms"]]
                p, st, en = cols["pred"], cols["start"], cols["end"]
                sc, ec, ev = cols.get("start_closed"), cols.get("end_closed"), cols.get("every")
                continue
            if len(record) != len(header):
                if not any(c.strip() for c in record):
                    continue
                raise DataError(f"the row has {counted(len(record), 'cell')} but the header names {len(header)} columns",
                                ast.Pos(source, line, min(len(record), len(header)) + 1),
                                hint="one cell per column of the header (an empty cell still needs its comma)")
            pred = record[p].strip()
            if pred not in names:
                _predicate(pred, ast.Pos(source, line, p + 1), terms)
                names.add(pred)
            args, gap = [], None
            for i, name in term_cols:
                cell = record[i]
                if cell == "":
                    gap = i if gap is None else gap
                    continue
                if gap is not None:
                    raise DataError(f"column {header[gap]}: an empty cell before {name}, which holds an argument",
                                    ast.Pos(source, line, gap + 1),
                                    hint='the cells after a predicate\'s last argument are empty; an empty string is written ""')
                args.append(terms.term(cell, line, i, name))
                if i not in zeros_noted and cell.lstrip()[:1] in "0+-" and note_leading_zeros(  # (most cells: no Pos built)
                        cell, args[-1], ast.Pos(source, line, i + 1), name):
                    zeros_noted.add(i)
            lo, hi = value("start", record, st, line), value("end", record, en, line)
            lc = True if sc is None else bool(value("bool", record, sc, line))
            hc = True if ec is None else bool(value("bool", record, ec, line))
            iv = _interval(lo, hi, lc, hc, source, line, st, calendar)
            every = None
            if ev is not None and record[ev].strip():
                every = _period(record[ev].strip(), ast.Pos(source, line, ev + 1), terms)
            rows.add(pred, tuple(args), iv, ast.Pos(source, line, 1), every)
    except csv.Error as e:
        raise DataError(f"the row cannot be read as CSV ({e})", ast.Pos(source, done + 1 + (skipped if header is not None else 0), 1),
                        hint="write one record per line, its cells separated by commas") from None
    return rows


def _columns(header, source, line) -> dict:
    missing = [c for c in ("pred", "start", "end") if c not in header]
    if missing:
        import os

        from chronolog.language.source_text import _parent

        raise DataError(f"the header has no {' and no '.join(missing)} column: a CSV file of facts names the predicate "
                        "of each row in a pred column and its interval in start and end", ast.Pos(source, line, 1),
                        hint="write it as chronolog run --format csv does (pred,c0,c1,...,start,end,start_closed,end_closed); "
                             f'a CSV file of one predicate is read by @bind("pred", "csv useHeaders=true", "{_parent(source)}", '
                             f'"{os.path.basename(source)}"). in the program (from Python, a table also goes as facts: {{"pred": table}})')
    for i, name in enumerate(header):
        if header.index(name) != i:
            raise DataError(f"the header names the column {name!r} twice", ast.Pos(source, line, i + 1))
    cols = {name: header.index(name) for name in ("pred", *TIME_COLUMNS) if name in header}
    cols["terms"] = [i for i, name in enumerate(header) if name != "pred" and name not in TIME_COLUMNS]
    return cols


def _predicate(pred: str, pos, terms: _Terms) -> None:
    from chronolog.language.facts import read_fact_rows

    try:
        ok = _PLAIN.match(pred) is not None or list(read_fact_rows([f"{pred}@{terms.zero}"], "<a CSV cell>", terms.calendar)) == [pred]
    except ChronologError:
        ok = False
    if not ok:
        raise DataError(f"column pred: {pred!r} is not a predicate name", pos,
                        hint="a predicate name starts with a lowercase letter (letters, digits and _ after it)")


def _interval(lo, hi, lc, hc, source, line, i, calendar):
    from chronolog.language.timeline import format_number, make, why_empty

    iv = make(lo, hi, lc, hc)
    if iv is None:
        fmt = calendar.format_point if calendar is not None else format_number
        raise DataError(f"the interval from {fmt(lo)} to {fmt(hi)} is empty", ast.Pos(source, line, i + 1),
                        hint=why_empty(lo, hi, lc, hc))
    return iv


def _period(text: str, pos, terms: _Terms):
    """An ``every`` cell's period (time units, or an ISO duration on a date
    timeline), read as the fact text reads ``every``."""
    from chronolog.language.facts import read_fact_rows

    try:
        rows = read_fact_rows([f"t@[{terms.zero},{terms.zero}] every {text}"], "<a CSV cell>", terms.calendar)
        ((_, _, every, _),) = rows.repeating["t"]
        return every
    except (ChronologError, KeyError, ValueError) as e:
        why = e.message if isinstance(e, ChronologError) else "not a period"
        raise DataError(f"column every: {text!r} is not a period ({why})", pos,
                        hint="a number of time units (30), or on a date timeline an ISO duration (P1D)") from None
