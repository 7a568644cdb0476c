"""CSV files in and out, with exact values.

Reading: each cell becomes an exact number when it looks like one (integer,
decimal, ``p/q``), a boolean when it is ``#T``/``#F`` (or, where the mapping
says ``bool``, true/false/1/0/yes/no too), a labelled null when it is
``_:label`` (one null per label in one file, as in a fact file), otherwise a
string.  Writing: the canonical number text, ``#T``/``#F`` and ``_:n1``, so a
written file reads back to the same facts.  Uses the standard library's ``csv``:
pyarrow's reader would turn decimals into binary floats.
"""

from __future__ import annotations

import csv
import re
from fractions import Fraction
from pathlib import Path

from chronolog.language import ast
from chronolog.language.booleans import FALSE, TRUE, Boolean, terms as bool_terms
from chronolog.language.compressed import decompressed, is_compressed, read_bytes, text_for_writing
from chronolog.language.errors import DataError, counted
from chronolog.language.mapping_types import BOOLEAN_TYPES, DATE_TYPES, NUMBER_TYPES, STRING_TYPES
from chronolog.language.nulls import current_table, reading_file
from chronolog.language.timeline import NEG_INF, POS_INF, Point, format_number, make, parse_number, why_empty

_TRUE = {"#t", "true", "t", "1", "yes"}
_FALSE = {"#f", "false", "f", "0", "no"}
_BOOLEAN_CELLS = {"#T": TRUE, "#F": FALSE}  # an untyped cell's booleans: the language's own spelling
_NUMBER_SHAPE = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\Z|[+-]?\d+\s*/\s*\d+\Z")  # (parse_number's shapes)
_NULL_CELL = re.compile(r"_:[A-Za-z0-9_]+")  # an untyped cell's labelled null: the language's spelling (the grammar's NULL)


def convert(cell: str, kind: str, where: ast.Pos, column: str, calendar=None, quoted: bool = False):
    """The term a CSV cell holds.  A number, boolean or time is read
    without the blanks around it (as pandas and DuckDB read one); a string
    too unless the cell was ``quoted`` (``" a "``: quotes say the spaces are
    part of the value, as every CSV reader keeps them)."""
    text = cell
    cell = cell.strip()
    if kind in STRING_TYPES:
        return text if quoted else cell
    if kind == "float":  # a measured value: binary floating point on purpose
        try:
            value = float(cell)
        except ValueError:
            raise DataError(f"column {column}: {cell!r} is not a number", where) from None
        if value != value:  # as a table's NaN is: no term is equal to it, so no join or merge could hold
            raise DataError(
                f"column {column}: {cell!r} is not a number that equals itself (NaN)", where,
                hint="leave the row out (a missing reading is a gap in time), or map the column as string",
            )
        return value
    if kind == "time" and calendar is not None:
        try:
            return calendar.parse_point(cell)
        except ValueError as e:
            from chronolog.language.dates import date_problem

            message, hint = date_problem(e, f"{cell!r} is not a date",
                                         "the program's timeline is dates: write 2020-01-31 or 2020-01-31T12:30:00 (or -inf, +inf)", cell)
            if _NUMBER_SHAPE.match(cell):  # (epoch seconds, most often)
                from chronolog.language.dates import NUMBERS_ON_DATES

                hint += "; " + NUMBERS_ON_DATES
            raise DataError(f"column {column}: {message}", where, hint=hint) from None
    if kind in DATE_TYPES:
        from chronolog.language.dates import DATE_RE, date_problem, parse_datetime

        try:
            value, is_date = parse_datetime(cell)
        except ValueError as e:
            if DATE_RE.match(cell) and int(DATE_RE.match(cell).group(1)) not in range(1, 10000):
                raise DataError(f"column {column}: {cell!r} is a date no value can hold", where,
                                hint="a date as a value is in years 1..9999 (a time point, in the interval columns, may be any year)") from None
            message, hint = date_problem(e, f"{cell!r} is not a date", "write 2020-01-31 or 2020-01-31T12:30:00", cell)
            raise DataError(f"column {column}: {message}", where, hint=hint) from None
        return value  # a datetime; a midnight prints as a date (language/dates.py)
    if kind in BOOLEAN_TYPES:
        low = cell.lower()
        if low in _TRUE:
            return TRUE  # #T: a term of its own, never the number 1 (language/booleans.py)
        if low in _FALSE:
            return FALSE
        raise DataError(f"column {column}: {cell!r} is not a boolean", where, hint="use true/false or #T/#F")
    try:
        v = parse_number(cell)
        if v in (POS_INF, NEG_INF) and kind not in ("time",):
            return cell
        return v
    except ValueError as e:
        if _NUMBER_SHAPE.match(cell):  # a number's shape, but no exact value (1/0, 1e99999): as the program's reader says
            raise DataError(f"column {column}: {e}", where,
                            hint="write a number chronolog holds exactly, or map the column as string" if kind == "auto" else "") from None
        if kind == "time":
            from chronolog.language.dates import DATE_RE

            if DATE_RE.match(cell):
                raise DataError(
                    f"column {column}: {cell!r} is a date, but the program's timeline is numeric",
                    where,
                    hint='declare @timeGranularity("days"). (or hours, minutes, seconds) in the program',
                ) from None
        if kind in NUMBER_TYPES or kind == "time":
            raise DataError(
                f"column {column}: {cell!r} is not a number",
                where,
                hint="numbers are written like 3, -1.25 or 2/3" + ("; an infinite end is -inf or +inf" if kind == "time" else ""),
            ) from None
        if cell in _BOOLEAN_CELLS:  # as the language writes them (#t is a name; true stays a name: existing data)
            return _BOOLEAN_CELLS[cell]
        if cell[:2] == "_:" and _NULL_CELL.fullmatch(cell):  # as the writer writes a null; a column mapped string keeps the text
            table = current_table()
            if table is not None:
                return table.get(cell[2:])
        if cell[:1] == "{" and cell[-1:] == "}":  # a set of values, as the writer writes munion's; mapped string, the text
            values = _set_cell(cell, calendar)
            if values is not None:
                return values
        return text if quoted else cell


def time_cell(cell: str, point: bool, unbounded: Point, where: ast.Pos, column: str, calendar=None, pred: str = ""):
    """The time a start or end cell holds: an empty one is ``unbounded``
    (-inf for a start, +inf for an end), as a Parquet or Arrow null is and
    as pandas' ``to_csv`` and DuckDB's ``COPY`` write a missing ``valid_to``;
    an empty time point (``point``: one column is both ends) is refused,
    since a reading without a time holds at no time point."""
    if cell.strip():
        return convert(cell, "time", where, column, calendar)
    if point:
        raise DataError(f"column {column}: the time point is empty", where,
                        hint=f"a row without a time holds at no time point: drop or fill those rows of {pred}")
    return unbounded


def _set_cell(cell: str, calendar):
    """The set of values a cell ``{2,a,"b c"}`` spells, by the language's
    fact reader; None when it spells none (the cell is then a string)."""
    from chronolog.language.errors import ChronologError
    from chronolog.language.facts import read_fact_rows

    try:
        rows = read_fact_rows([f"t({cell})@{calendar.format_point(0) if calendar is not None else 0}"], "<a CSV cell>", calendar)
    except ChronologError:
        return None
    (value,), _ = rows["t"][0]
    return value if type(value) is tuple else None


def read_csv_facts(path: Path, pred: str, arity, options: dict, mapping: dict, time_mapping, calendar=None) -> list:
    """Facts of ``pred`` from a CSV file.  See docs/language.md (@bind)."""
    with reading_file():  # one scope for the file's labelled nulls
        return _read_csv_facts(path, pred, arity, options, mapping, time_mapping, calendar)


def row_error(path, pred: str, options: dict, mapping: dict, time_mapping, calendar, bad) -> None:
    """Raise this reader's error of one row of the CSV file ``path``
    (``bad``: the row's line and the text of the header and that row), as
    reading the whole file raises it when no row before it has one: what
    the kernels' reader (csv_columns.py) reports of a ragged row.  Returns
    when the row has none."""
    line, text = bad
    with reading_file():
        _read_csv_facts(path, pred, None, options, mapping, time_mapping, calendar, text, line - 2)


def _read_csv_facts(path, pred, arity, options, mapping, time_mapping, calendar, text=None, offset=0) -> list:
    """``text``: the file's text (else read from ``path``); ``offset``: lines
    before its second line that it leaves out (its rows numbered as the file's lines)."""
    use_headers = str(options.get("useHeaders", "true")).lower() in ("true", "#t", "1", "yes")
    import io

    from chronolog.language.source_text import read_text

    if text is None:
        text = read_text(path, f"CSV file (bound to {pred})", csv=True)
    facts = []
    with io.StringIO(text, newline="") as fh:
        lines = fh.readlines()  # (as the csv module reads them: its line_num says which lines made a row)
        # (blanks before a quoted cell skipped: `a, "b"` reads b, as DuckDB and
        # Spark's reader as chronolog sets it read it -- the readers that, as
        # chronolog, drop the blanks around a cell; see _quoted_cells)
        reader = csv.reader(lines, skipinitialspace=True)
        done = 0  # (lines read so far: a row's first line is the next)
        rows = _rows(reader, path, lines, lambda: done, offset)
        header = None
        if use_headers:
            for header in rows:  # (blank lines before it skipped, as between rows)
                if any(c.strip() for c in header):
                    break
                done = reader.line_num
            else:
                return []
            if reader.line_num == len(lines) and '"' in lines[done]:  # (a quote never closed: the file read as the header)
                _refuse_open_quote(lines[done:], path, done + 1)
            header = [h.strip() for h in header]
            refuse_unnamed_columns(header, ast.Pos(str(path), done + 1, 1), time_mapping)
            time_mapping = header_time_columns(header, time_mapping, ast.Pos(str(path), done + 1, 1), calendar)
            refuse_data_header(header, ast.Pos(str(path), done + 1, 1), time_mapping, calendar)
        else:
            time_mapping = header_time_columns(None, time_mapping, ast.Pos(str(path), 1, 1), calendar)
        done = reader.line_num
        zeros_noted: set = set()  # (the columns whose leading zeros were noted)
        for row in rows:
            row_no, record, done = done + 1 + offset, lines[done : reader.line_num], reader.line_num
            if not row or all(not c.strip() for c in row):
                continue
            where = ast.Pos(str(path), row_no, 1)
            if reader.line_num == len(lines) and '"' in record[0]:
                _refuse_open_quote(record, path, row_no)
            if header is not None and len(row) > len(header):
                _refuse_ragged(row, header, record, where)
            if time_mapping is None and len(row) < 2:
                _refuse_one_column(row, where)
            if header is not None and len(row) < len(header):
                _refuse_ragged(row, header, record, where)
            start_pos, end_pos, sc, ec = _time_columns(header, len(row), time_mapping, where)
            if max(start_pos, end_pos) >= len(row) == 1:
                _refuse_one_column(row, where)
            if max(start_pos, end_pos) >= len(row):
                raise DataError(
                    f"the row has {counted(len(row), 'column')} but the interval is expected in columns "
                    f"{start_pos + 1} and {end_pos + 1}",
                    where,
                    hint="check @timeMapping or the file's columns",
                )
            term_cols = [i for i in range(len(row)) if i not in (start_pos, end_pos) and not _is_closed_col(header, i)]
            if arity is not None and len(term_cols) != arity:
                raise DataError(
                    f"{pred} has {counted(arity, 'argument')} but this row has {counted(len(term_cols), 'value column')} besides the interval",
                    where,
                    hint="one column per argument plus start and end",
                )
            quoted = _quoted_in(row, record)
            terms = []
            for k, i in enumerate(term_cols):
                name, kind = mapping.get(k, (header[i] if header else f"c{k}", "auto"))
                terms.append(convert(_unquoted(row, i, quoted), kind, ast.Pos(str(path), row_no, i + 1), name, quoted=i in quoted))
                if kind == "auto" and i not in zeros_noted and note_leading_zeros(
                        row[i], terms[-1], ast.Pos(str(path), row_no, i + 1), name, pred, k):
                    zeros_noted.add(i)
            try:
                lo = time_cell(row[start_pos], start_pos == end_pos, NEG_INF, ast.Pos(str(path), row_no, start_pos + 1),
                               time_label(header, start_pos, "start"), calendar, pred)
                hi = time_cell(row[end_pos], start_pos == end_pos, POS_INF, ast.Pos(str(path), row_no, end_pos + 1),
                               time_label(header, end_pos, "end"), calendar, pred)
            except DataError as e:
                implicit = _implicit_interval(header, start_pos, end_pos, time_mapping, pred)
                if not implicit:
                    raise
                raise DataError(e.message, e.pos, hint=f"{implicit}; {e.hint}" if e.hint else implicit) from None
            if header is not None and "start_closed" in header:
                sc = bool(convert(row[header.index("start_closed")], "bool", where, "start_closed"))
            if header is not None and "end_closed" in header:
                ec = bool(convert(row[header.index("end_closed")], "bool", where, "end_closed"))
            iv = make(lo, hi, sc, ec)
            if iv is None:
                fmt = calendar.format_point if calendar is not None else format_number
                raise DataError(
                    f"the interval from {fmt(lo)} to {fmt(hi)} is empty",
                    where,
                    hint=why_empty(lo, hi, sc, ec),
                )
            facts.append(ast.Fact(pred, tuple(terms), iv, where))
    return facts


def _quoted_in(row, record) -> dict:
    """The quoted cells of ``row`` (read from the lines ``record``) as
    :func:`_quoted_cells` gives them, looked for only where a cell starts
    or ends with a blank (elsewhere quoted and bare read alike)."""
    return _quoted_cells("".join(record)) if any(c[:1].isspace() or c[-1:].isspace() for c in row) else {}


def _unquoted(row, i: int, quoted: dict) -> str:
    """Cell ``i`` of ``row`` without the blanks after its closing quote (`"c" ` is c)."""
    return row[i][: len(row[i]) - quoted[i]] if quoted.get(i) else row[i]


def held_cells(data: bytes, source: str, use_headers: bool, width: int, pred: str = "") -> list:
    """The rows of a CSV file's bytes ``data`` as this reader holds their
    cells before it converts them: a quoted cell's text, a bare cell's
    without the blanks around it (``str.strip``: Unicode blanks, not
    ``\\x01``); blank lines skipped, and the first row when
    ``use_headers``; each row padded with None to ``width`` cells (when
    the file's header has fewer, as Spark's reader pads the rows of a
    directory's files to its first file's header).  This reader's errors
    of the file's bytes (not UTF-8: ``pred`` names the binding as it
    does; compressed bytes are decompressed first), its quotes and its ragged rows are raised as it raises them.
    Converting such a text as quoted (:func:`convert`) gives the term this
    reader reads.  For the ``spark csv`` inputs whose cells Spark's reader
    reads otherwise (connectors/spark.py)."""
    import io

    from chronolog.language.source_text import decode

    what = f"CSV file (bound to {pred})" if pred else "CSV file"
    with io.StringIO(decode(decompressed(data, source, what), source, what, csv=True), newline="") as fh:  # (Spark's binaryFile: a file.csv.gz's own bytes)
        lines = fh.readlines()
    reader = csv.reader(lines, skipinitialspace=True)
    out, done, header = [], 0, None
    for row in _rows(reader, source, lines, lambda: done):
        row_no, record, done = done + 1, lines[done : reader.line_num], reader.line_num
        if not row or all(not c.strip() for c in row):
            continue
        if reader.line_num == len(lines) and '"' in record[0]:
            _refuse_open_quote(record, source, row_no)
        if use_headers and header is None:
            header = row
            continue
        if header is not None and len(row) != len(header):
            _refuse_ragged(row, header, record, ast.Pos(source, row_no, 1))
        quoted = _quoted_in(row, record)
        cells = [_unquoted(row, i, quoted) if i in quoted else row[i].strip() for i in range(min(len(row), width))]
        out.append(cells + [None] * (width - len(cells)))
    return out


def _refuse_ragged(row, header, record, where) -> None:
    """This reader's error of a row of another count of cells than the header's."""
    if len(row) > len(header):
        raise DataError(
            f"the row has {counted(len(row), 'column')} but the header names {len(header)}",
            ast.Pos(where.file, where.line, len(header) + 1),
            hint="one cell per column of the header (quote a cell that has a comma)",
        )
    raise DataError(
        f"the row has {counted(len(row), 'column')} but the header names {len(header)}",
        ast.Pos(where.file, where.line, len(record[0].rstrip("\r\n")) + 1),
        hint="one cell per column of the header (an empty cell still needs its comma)",
    )


def _rows(reader, path, lines, done, offset=0):
    """The rows of ``reader``; the csv module's own error (a quote never
    closed reads the rest of a large file as one cell, past its field
    limit) as a DataError at the line where that row begins (``done()``:
    the lines read before it; ``offset``: lines left out after the first)."""
    try:
        yield from reader
    except csv.Error as e:
        row_no = done() + 1
        _refuse_open_quote(lines[row_no - 1 :], path, row_no + (offset if row_no > 1 else 0))
        row_no += offset if row_no > 1 else 0
        raise DataError(f"the row cannot be read as CSV ({e})", ast.Pos(str(path), row_no, 1),
                        hint="write one record per line, its cells separated by commas") from None


def _refuse_open_quote(record, path, row_no) -> None:
    """A row whose quoted cell never closes (it ran to the end of the file,
    every line after it read into that cell): refused at the quote that
    opens it, not read as a row of one long cell."""
    text = "".join(record)
    quoted = _open_quote(text)
    if quoted < 0:
        return
    line = text[:quoted].count("\n")
    column = quoted - (text.rfind("\n", 0, quoted) + 1) + 1
    raise DataError(
        "a quoted cell is never closed: every line after it would be read into it",
        ast.Pos(str(path), row_no + line, column),
        hint='close the cell with a " (a quote inside a quoted cell is written "")',
    )


def _open_quote(record: str) -> int:
    """The offset of the quote that opens a cell of ``record`` and never
    closes (-1: every quoted cell closes)."""
    return next((opened for _, opened, closed in _quotes(record) if closed < 0), -1)


def _quoted_cells(record: str) -> dict:
    """The quoted cells of one CSV record, read as the csv module reads it
    with ``skipinitialspace``: ``{index: how many blanks follow its closing
    quote}``, blanks the csv module keeps and chronolog drops (``"c" `` is
    ``c``, as DuckDB and Spark read it).  The csv module does not say which
    cells were quoted, and only a quoted cell keeps the blanks inside its
    quotes."""
    quoted = {}
    for k, _, i in _quotes(record):
        if i < 0:
            quoted[k] = 0
            break
        end = record.find(",", i)
        after = record[i : end if end >= 0 else len(record)].rstrip("\r\n")
        quoted[k] = len(after) if not after.strip() else 0
    return quoted


def _quotes(record: str):
    """``(index, opening quote's offset, offset after its closing quote or
    -1)`` of each quoted cell of one CSV record, read as the csv module
    reads it with ``skipinitialspace`` (a cell is quoted when it starts
    with ``"`` after blanks; ``""`` in it is a quote; text after its
    closing quote runs to the next comma); a cell never closed is the last."""
    i, k = 0, 0
    while True:
        j = i
        while record.startswith(" ", j):
            j += 1
        if record.startswith('"', j):
            opened, i = j, j + 1
            while (j := record.find('"', i)) >= 0 and record.startswith('"', j + 1):
                i = j + 2
            if j < 0:
                yield k, opened, -1
                return
            i = j + 1
            yield k, opened, i
        i = record.find(",", i)
        if i < 0:
            return
        i, k = i + 1, k + 1


def refuse_unnamed_columns(header, where, time_mapping) -> None:
    """A header cell without a name (without @timeMapping, which names the
    time columns by position): pandas' ``to_csv`` writes its index under
    one, and a trailing comma makes one; read as arguments they shift every
    other one, an answer that may be silently wrong.  (A time mapping by
    names cannot name it: it is an argument then.)"""
    from .table_times import is_named

    if (time_mapping is not None and not is_named(time_mapping)) or all(header):
        return
    i = header.index("")
    raise DataError(
        f"column {i + 1} of the header has no name",
        ast.Pos(where.file, where.line, sum(len(h) + 1 for h in header[:i]) + 1),
        hint="name every column, or drop that one (pandas: to_csv(..., index=False); a comma at the end of each line makes an empty last column)",
    )


_LEADING_ZEROS = re.compile(r"[+-]?0[0-9]").match


def note_leading_zeros(cell: str, value, where, column: str, pred: str | None = None, k: int = 0) -> bool:
    """Say aloud (once per column: True when said) that a cell of a column
    without a type, written with leading zeros, is read as a number: an
    identifier or a zip code loses them, and 007 becomes the constant 7.
    What keeps them: a bound file's ``@mapping`` of ``pred``'s argument
    ``k``; in a CSV of facts (``pred`` None), the cell quoted as a string."""
    if type(value) is bool or not isinstance(value, (int, Fraction)) or not _LEADING_ZEROS(cell.strip()):
        return False
    import warnings

    from chronolog.language.errors import Note

    cell = cell.strip()
    keep = (f'@mapping("{pred}", {k}, "{column}", "string").' if pred is not None else
            f'the cell written """{cell}""" (the string "{cell}", as --format csv writes it)')
    warnings.warn(Note(
        f"{where}: column {column}: {cell!r} is read as the number {format_number(value)}, its leading zeros dropped "
        f"(so are those of every such cell): {keep} keeps them"), stacklevel=2)
    return True


def note_empty_file(path, pred: str, blank_too: bool = False) -> bool:
    """Say aloud (True when said) that a bound file is empty, 0 bytes: an
    export that wrote nothing reads as no facts, which looks like a model
    where nothing holds; a compressed file holding no bytes too, and with
    ``blank_too`` a small file of blank lines alone or an empty array (a
    JSON file has no header to hold)."""
    size = path.stat().st_size
    if size > 512 or (size and not is_compressed(path) and not blank_too):  # (a compressed file of nothing is a few dozen bytes)
        return False
    data = read_bytes(path) if size else b""
    empty_array = blank_too and data.strip().startswith(b"[") and data.strip()[1:-1].strip() == b"" and data.strip().endswith(b"]")
    if (data.strip() if blank_too else data) and not empty_array:
        return False
    import warnings

    from chronolog.language.errors import Note

    said = ("is an empty JSON array" if empty_array else "holds blank lines alone" if data
            else f"is empty (0 bytes{' inside its compression' if size else ''})")
    warnings.warn(Note(f"{path}: the file {said}, so it gives {pred} no facts"), stacklevel=3)
    return True


def refuse_data_header(header, where, time_mapping, calendar=None) -> None:
    """A header whose time columns hold time points is the first row of a
    file without a header: read as the header (``useHeaders`` is true by
    default), that fact was silently lost.  No header names a column 0."""
    if header_is_data(header, time_mapping, calendar):
        start, end, _, _ = _time_columns(header, len(header), time_mapping, where)
        raise DataError(
            f"the first line is read as the header, but its time columns hold {header[start]} and {header[end]}, a row of data",
            where,
            hint="for a file without a header write useHeaders=false in its @bind (\"csv useHeaders=false\"); else name the columns in its first line",
        )


def header_time_columns(header, time_mapping, where, calendar=None):
    """``time_mapping`` with the names it gives resolved against a CSV
    file's ``header`` (None: the file has none, useHeaders=false;
    ``where``: the header's place) by table_times.time_columns.  A first
    line of data read as the header (no name of it matches and one of its
    cells is a time point) is said to be one: its cells listed as the
    columns would hide why."""
    from .table_times import is_named, time_columns

    if not is_named(time_mapping):
        return time_mapping
    names = [c for c in time_mapping[:2] if isinstance(c, str)]
    if header is not None and not set(names) & set(header) and any(c and _is_time(c, calendar) for c in header):
        raise DataError(
            f"the first line is read as the header, but it holds {', '.join(header)}, a row of data, "
            f'not the column "{names[0]}" that @timeMapping of {time_mapping.pred} names',
            where,
            hint="names need a header: write the column names as the file's first line, or give the positions "
                 f'of the time columns counting from 0 (@timeMapping("{time_mapping.pred}", 2, 3).) and useHeaders=false in its @bind',
        )
    return time_columns(time_mapping, header, where.file if where is not None else "the file")


def _is_time(cell: str, calendar) -> bool:
    try:
        convert(cell, "time", None, "start", calendar)
    except DataError:
        return False
    return True


def header_is_data(header, time_mapping, calendar=None) -> bool:
    """Whether the cells of ``header`` where the times are read are time points."""
    start, end, _, _ = _time_columns(header, len(header), time_mapping, None)
    if min(start, end) < 0 or max(start, end) >= len(header):
        return False
    try:
        for i, name in ((start, "start"), (end, "end")):
            convert(header[i], "time", None, name, calendar)
    except DataError:
        return False
    return True


def _refuse_one_column(row, where) -> None:
    """A row of one cell has no start and end: most often a file separated
    by semicolons or tabs (a spreadsheet's export), which this reader,
    reading commas, sees as one column."""
    cell = row[0] if row else ""
    sep = next((name for c, name in ((";", "semicolons"), ("\t", "tabs"), ("|", "bars")) if c in cell), None)
    raise DataError(
        "the row has one column, but a fact needs at least a start and an end column"
        + (f" (the cells look separated by {sep})" if sep else ""),
        where,
        hint="write the file with commas between the cells (chronolog reads comma-separated CSV)",
    )


def _is_closed_col(header, i) -> bool:
    return header is not None and header[i] in ("start_closed", "end_closed")


def _implicit_interval(header, start_pos, end_pos, time_mapping, pred) -> str:
    """What a file whose interval is its last two columns (no ``start`` and
    ``end`` in its header, no ``@timeMapping``) should be told when a time
    in them does not read: which columns were taken, and how to say others
    ("" when its times were named)."""
    if time_mapping is not None or (header is not None and "start" in header and "end" in header):
        return ""
    cols = f"{header[start_pos]} and {header[end_pos]}" if header is not None else f"columns {start_pos} and {end_pos}, counting from 0"
    named = "name them start and end, or " if header is not None else ""
    return (f"the file has no start and end columns and no @timeMapping, so its last two columns ({cols}) are read as the "
            f'interval: {named}give the times\' columns with @timeMapping("{pred}", START, END) '
            f'(@timeMapping("{pred}", K, K). for time points in column K, counting from 0)')


def time_label(header, i: int, end: str) -> str:
    """How an error names time column ``i``: by its header (``ts``, where
    ``@timeMapping`` places the times), else by the ``end`` it holds."""
    return header[i] if header is not None and i < len(header) and header[i] else end


def _time_columns(header, ncols, time_mapping, where):
    if time_mapping is not None:
        return time_mapping
    if header is not None and "start" in header and "end" in header:
        return header.index("start"), header.index("end"), True, True
    n = ncols
    if header is not None:
        n -= sum(1 for h in header if h in ("start_closed", "end_closed"))
    return n - 2, n - 1, True, True


_SPELLS = frozenset("+-.#_{")  # with digits (any script's) and blanks: the first letters of cells an untyped column reads as other than a string


def _bare_member(v) -> bool:
    """Whether a set's member ``v`` is an integer or a name the set's text
    spells bare and reads back as itself (cliffs' sets: parsing each of
    160,000 cells took most of the output's time)."""
    return type(v) is int or type(v) is str and v.isascii() and v.isidentifier() and v[:1].islower()


def _plain(text: str) -> bool:
    """Whether an unmapped column reads the string ``text`` back as itself:
    its first letter is no other kind's."""
    c = text[:1]
    return c not in _SPELLS and not c.isspace() and not c.isdigit()


class ReadBack:
    """Whether the cells a CSV file is written with read back as the values
    written, by the reader of a column of the ``kinds`` its ``@mapping``
    gives (``auto`` where none does).  A CSV cell has no type: a string
    ``"1"`` reads back as the number 1, a float 1.5 as the exact 3/2 and a
    date as a string unless the column is mapped ``string``, ``float`` or
    ``date``.  The writers call :meth:`check` on each distinct value of a
    column; :meth:`note` then says which value first did not read back, as
    a note (the file is written all the same: the values are as the
    language prints them)."""

    __slots__ = ("kinds", "calendar", "seen", "changed")

    def __init__(self, kinds, calendar=None):
        self.kinds, self.calendar = kinds, calendar
        self.seen: set = set()
        self.changed = None  # (column, value, what it reads back as)

    def check(self, k: int, v) -> None:
        if self.changed is not None:
            return
        t = type(v)
        if t is bool:  # (the public form a model's facts give: the term #T/#F, which a cell spells)
            v, t = (TRUE if v else FALSE), Boolean
        elif t is tuple:  # (a set's booleans too)
            v = bool_terms(v)
        kind = self.kinds[k] if k < len(self.kinds) else "auto"
        if kind == "auto" and (t is int or issubclass(t, Fraction) or t is Boolean or t.__name__ == "Null"
                               or t is str and _plain(v)):
            return  # (a number, #T/#F, _:n1 and a string of no other kind's first letter read back as themselves, unmapped)
        if (k, t, v) in self.seen:
            return
        if kind == "auto" and t is tuple and all(map(_bare_member, v)):
            return  # (a set of integers and names reads back as itself: no parse of its cell each)
        self.seen.add((k, t, v))
        cell = _cell(v)
        try:
            with reading_file():  # (a cell _:n1 reads as a null of the file)
                got = convert(cell, kind, ast.NOWHERE, f"c{k}", self.calendar, quoted=cell[:1].isspace() or cell[-1:].isspace())
        except DataError:
            got = None
        if type(got) is not t or got != v and not (t is tuple and any(type(x).__name__ == "Null" for x in v)):
            self.changed = (k, v, got)  # (a set's nulls read back as the file's own: new ones)

    def numbers_read_back(self, k: int) -> bool:
        """Whether every number (int or Fraction) of column ``k`` reads back
        as itself: an unmapped column's (:meth:`check` skips them)."""
        return (self.kinds[k] if k < len(self.kinds) else "auto") == "auto"

    def check_all(self, k: int, vals) -> None:
        """:meth:`check` of each of ``vals``, the strings and integers of an
        unmapped column that read back as themselves left out in one pass
        first (a column of 194,000 node names: 0.33 s of calls, a third of
        the output's time, against 0.03 s)."""
        if self.changed is not None:
            return
        if (self.kinds[k] if k < len(self.kinds) else "auto") == "auto":
            vals = [v for v in vals if type(v) is not int and not (type(v) is str and _plain(v))]
        for v in vals:
            self.check(k, v)

    def note(self, path, pred: str, names) -> None:
        if self.changed is None:
            return
        import warnings

        from chronolog.language.errors import Note
        from chronolog.language.text import format_term

        k, v, got = self.changed
        kinds = {str: "string", float: "float"}
        kind = kinds.get(type(v), "date" if hasattr(v, "isoformat") else None)
        if got is None:  # (only a typed column refuses a cell)
            mapped = self.kinds[k] if k < len(self.kinds) else "auto"
            back = f"which a column mapped \"{mapped}\" refuses, so reading the file back is an error"
        else:
            back = f"which a CSV cell reads back as {format_term(got)} ({_kind_name(got)})"
        warnings.warn(Note(
            f"{path}: column {names[k]} holds {format_term(v)} ({_kind_name(v)}), {back}: a CSV file has no types"
            + (f"; a reader keeps it by @mapping(\"{pred}\", {k}, \"{names[k]}\", \"{kind}\") if the column holds only {kind}s" if kind else "")
            + "; Parquet and Arrow files keep every kind"), stacklevel=2)


def _kind_name(v) -> str:
    if type(v) is tuple:
        return "a set"
    if hasattr(v, "isoformat"):
        return "a date"
    return {str: "a string", float: "a float", int: "a number", Fraction: "a number", Point: "a number", Boolean: "a boolean", bool: "a boolean"}.get(type(v), "a null")


def write_csv_facts(path: Path, facts, names, overwrite: bool = False, calendar=None, staging=None, read_back=None) -> None:
    """Write facts atomically (temporary file, then rename; with ``staging``,
    renamed with the run's other outputs); never replaces an existing file
    unless ``overwrite``.  ``read_back``: a :class:`ReadBack` that sees
    each distinct value of each column."""
    from chronolog.connectors.files import atomic_write

    def write(tmp):
        with text_for_writing(tmp, path) as fh:  # (compressed as the name says: a file.csv.gz)
            w = csv.writer(fh)
            w.writerow(list(names) + ["start", "end", "start_closed", "end_closed"])
            for row in _csv_rows(facts, calendar.format_point if calendar is not None else format_number, read_back):
                if type(row) is list:
                    w.writerow(row)
                else:  # (a row with a string that starts or ends with a blank: its cells quoted here)
                    fh.write(",".join(map(quoted_cell, row)) + "\r\n")

    atomic_write(Path(path), write, overwrite, staging)


def _csv_rows(facts, fmt, read_back=None):
    """The CSV rows of facts; each distinct constant and time point is
    formatted once (columns repeat values)."""
    cells: dict = {}
    points: dict = {}
    blank_ended: set = set()  # cells that must be quoted to keep their blanks: such rows come as tuples
    flag = {True: "true", False: "false"}
    # read_back sees each (column, value) where the columns' @mapping kinds
    # differ; where they are one kind, each value cached once and each type
    # of the others once (a float, a boolean or a set reads back or not by
    # the column's kind alone)
    each = read_back is not None and len(set(read_back.kinds)) > 1
    seen = None if read_back is None or each else set()  # the types checked once
    for terms, (lo, hi, lc, hc) in facts:
        row = []
        if each and read_back.changed is None:
            for k, v in enumerate(terms):
                read_back.check(k, v)
        for v in terms:
            if type(v) is tuple or type(v) is Boolean or type(v) is bool or type(v) is float:
                # (a munion set; a boolean or a float, one key with 1 in a dict, where 1.0 was written "1")
                if seen is not None and type(v) not in seen:
                    seen.add(type(v))
                    read_back.check(_position(terms, v), v)
                row.append(_cell(v))
                continue
            c = cells.get(v)
            if c is None:
                c = cells[v] = _cell(v)
                if c[:1].isspace() or c[-1:].isspace():
                    blank_ended.add(c)
                if seen is not None:
                    read_back.check(_position(terms, v), v)
            row.append(c)
        a = points.get(lo)
        if a is None:
            a = points[lo] = fmt(lo)
        b = points.get(hi)
        if b is None:
            b = points[hi] = fmt(hi)
        row += (a, b, flag[lc], flag[hc])
        yield tuple(row) if blank_ended and not blank_ended.isdisjoint(row) else row


def _position(terms, v) -> int:
    """The column of ``terms`` that holds ``v`` itself."""
    return next(i for i, x in enumerate(terms) if x is v)


BLANK_RE2 = "[\\t-\\r\\x1c-\\x1f\\x85\\pZ]"  # what str.isspace reads as blank, as an Arrow (RE2) pattern


def write_rows(out, rows, lineterminator: str = "\n") -> None:
    """``rows`` (lists of cell text) as CSV on ``out``: the csv module's
    minimal quoting, and a row with a cell that starts or ends with a blank
    (a reader trims a bare cell's blanks) or holds a carriage return (a
    line end for a reader; the csv module quotes only the characters of
    ``lineterminator``) written by :func:`quoted_cell`."""
    w = csv.writer(out, lineterminator=lineterminator)
    for a in range(0, len(rows), ROWS_BATCH):  # (a batch searched once: cell by cell, the test took a third
        batch = rows[a:a + ROWS_BATCH]         # of --format csv's 1.8 s over 200,000 facts)
        if _ODD_CELL.search("\0".join(["\0".join(row) for row in batch])) is None:
            w.writerows(batch)
            continue
        for row in batch:
            if any(c[:1].isspace() or c[-1:].isspace() or "\r" in c for c in row):
                out.write(",".join(map(quoted_cell, row)) + lineterminator)
            else:
                w.writerow(row)


ROWS_BATCH = 4096  # rows tested and written at once

# a cell of cells joined by NUL that starts or ends with a blank (re's \s is
# str.isspace), or holds a carriage return (a NUL inside a cell may flag a
# batch: its rows are then tested one by one)
_ODD_CELL = re.compile(r"(?:^|\0)\s|\s(?:\0|$)|\r")


def quoted_cell(cell: str) -> str:
    """``cell`` as a CSV file holds it: the csv module's minimal quoting,
    and quoted too where it starts or ends with a blank, which the readers
    trim from a bare cell (the csv module has no option for that)."""
    import io

    buf = io.StringIO()
    blank_ended = cell[:1].isspace() or cell[-1:].isspace()
    csv.writer(buf, quoting=csv.QUOTE_ALL if blank_ended else csv.QUOTE_MINIMAL).writerow([cell, ""])
    return buf.getvalue()[: -len(",\r\n") - (2 if blank_ended else 0)]  # (a lone empty cell would be written "")


def _cell(v) -> str:
    if type(v) is str:
        return v
    if type(v) is Boolean or type(v) is bool:
        return "#T" if v else "#F"  # (an untyped cell reads them back as booleans; true would be a name)
    if type(v) is tuple or hasattr(v, "isoformat"):  # a munion set (its floats as float(1.5): they read back floats), or a date
        from chronolog.language.text import format_term_text

        return format_term_text(v)
    return format_number(v)
