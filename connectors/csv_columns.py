"""@bind CSV inputs read by Arrow kernels into the columnar executor's input
form (language/fact_columns.py's FactColumns), without a Python row per fact.

``pyarrow.csv`` splits the file into string columns (or, for columns
mapped ``float``, ``int`` or ``string`` and dates on a days timeline,
typed columns: :func:`_arrow_types`); each other column is
dictionary-encoded and its **distinct** cells are typed once: plain
integers, decimals and ISO dates by kernels (connectors/cell_types.py, as
the CSV of facts' reader types them), each other cell by the row reader's
own :func:`~chronolog.connectors.csv_files.convert` (fractions, dates on
the program's timeline, booleans, the mapping's types), at the position of
its first occurrence.  The facts are then indices
into those values: the columnar executor codes each distinct value once, and
a row stratum or the Python API gets rows from the same columns.

Same answers and the same errors as the row reader
(connectors/csv_files.py).  Lines of blanks, which it skips, are taken out
of the text (their lines counted), and a ragged row (another count of
cells than the header's) is its error: the rows before it are read here,
then the row reader reads the header and that row alone and raises its
own error at the row's file:line:column (:func:`_blank_and_ragged`).
Whatever else the kernels cannot take exactly as it does -- a quote
anywhere but around a whole cell of one line (an escaped quote, an
embedded newline: :func:`_plain_quotes`), a blank line before the header,
a ragged row without one, a cell that does not convert, an empty interval
-- returns None, and the row reader reads the file and reports the first
bad cell with its file:line:column.  Small files are left to the row
reader too (no pyarrow import for them).
"""

from __future__ import annotations

import csv
import re
from fractions import Fraction
from pathlib import Path

from chronolog.language import ast
from chronolog.language.compressed import read_bytes, smaller_than
from chronolog.language.errors import ChronologError
from chronolog.language.exact_pairs import over_one_denominator
from chronolog.language.mapping_types import DATE_TYPES, NUMBER_TYPES, STRING_TYPES
from chronolog.language.source_text import KERNEL_BYTES  # from this size on a bound CSV file is read by kernels

from . import cell_types
from .csv_files import _is_closed_col, _time_columns, convert, header_is_data, header_time_columns, time_cell, time_label
from .fact_csv_columns import CELL_LIMIT
from .table_times import is_named


def read_csv_columns(path: Path, pred: str, options: dict, mapping: dict, time_mapping, calendar=None, min_rows: int = 0):
    """The facts of ``pred`` in the CSV file ``path`` as a FactColumns, or
    None when the row reader must read it (see the module docstring);
    ``min_rows``: None for files with fewer lines (a run that stays on rows
    would only convert them back)."""
    try:
        if smaller_than(path, KERNEL_BYTES):
            return None
        data = read_bytes(path)  # (decompressed: a file.csv.gz)
    except (OSError, ChronologError):
        return None  # the row reader reports it
    if len(data) < KERNEL_BYTES:
        return None
    if min_rows and data.count(b"\n") < min_rows:
        return None
    if data.startswith(b"\xef\xbb\xbf") or (b'"' in data and not _plain_quotes(data)):
        return None  # a byte order mark, quotes Arrow might read otherwise: the csv module's reading
    from chronolog.language.nulls import reading_file

    try:
        with reading_file():  # one scope for the file's labelled nulls (csv_files.convert reads them)
            return _read(data, path, pred, options, mapping, time_mapping, calendar)
    except _Reported as bad:
        raise bad.error from None  # (the row reader's own error of the file's first bad row)
    except ChronologError:
        return None  # the row reader reports it at its first place


def _plain_quotes(data: bytes) -> bool:
    """Whether every ``"`` of ``data`` opens or closes a whole quoted cell
    on one line with no quote inside (``"n1",5``): Arrow's reader and the
    csv module read such cells alike, their text between the quotes.  An
    escaped quote, a quote inside a cell, a newline inside quotes or a
    quoted cell with a blank at either end inside its quotes (kept, where a
    bare cell's are trimmed): False (the csv module reads the file).  Every quoted file went to the row
    reader: 10x the CPU of the same file unquoted (issue 37)."""
    import numpy as np

    b = np.frombuffer(data, dtype=np.uint8)
    q = np.flatnonzero(b == ord('"'))
    if len(q) % 2:
        return False
    opening, closing = q[0::2], q[1::2]
    before = b[np.maximum(opening - 1, 0)]
    after = b[np.minimum(closing + 1, len(b) - 1)]
    if not (np.isin(before, (ord(","), ord("\n"))) | (opening == 0)).all():
        return False
    if not (np.isin(after, (ord(","), ord("\n"), ord("\r"))) | (closing == len(b) - 1)).all():
        return False
    if _blank_inside_quotes(data, b, opening, closing):
        return False  # a quoted cell keeps blanks at its ends, a bare one's are trimmed
    lines = np.flatnonzero(b == ord("\n"))
    return bool((np.searchsorted(lines, opening) == np.searchsorted(lines, closing)).all())


def _blank_inside_quotes(data: bytes, b, opening, closing) -> bool:
    """Whether a quoted cell (quotes at ``opening``/``closing`` of the bytes
    ``b``) starts or ends with a blank (``str.isspace``) inside its quotes."""
    import numpy as np

    first, last = b[np.minimum(opening + 1, len(b) - 1)], b[np.maximum(closing - 1, 0)]
    if np.isin(first, _BLANK_BYTES).any() or np.isin(last, _BLANK_BYTES).any():
        return True
    # past ASCII: the character decoded (a few cells: Unicode blanks such as U+3000 are rare)
    for o in opening[first >= 0x80].tolist():
        if data[o + 1 : o + 5].decode("utf-8", "ignore")[:1].isspace():
            return True
    for c in closing[last >= 0x80].tolist():
        start = c - 1
        while start > 0 and b[start] & 0xC0 == 0x80:  # (back over UTF-8 continuation bytes)
            start -= 1
        if data[start:c].decode("utf-8", "ignore").isspace():
            return True
    return False


_BLANK_BYTES = tuple(b" \t\v\f\x1c\x1d\x1e\x1f")  # (what str.isspace reads as blank in ASCII, but the line ends)


_EXACT_KINDS = ("auto",) + NUMBER_TYPES
_DECIMAL = re.compile(r"-?(\d{1,17})(?:\.(\d{1,17}))?")


def _quick(dictionary, tokens, kind):
    """The values ``convert`` gives the distinct cells ``tokens`` of a
    column of ``kind`` (not a time column: :func:`cell_types.time_points`),
    for the common shapes, or None (then ``convert`` converts each): a
    ``float`` column's numbers (:func:`_floats`); plain integers and
    decimals (``7``, ``-12.50``) in a number column, ``Fraction(digits,
    10**k)`` in lowest terms, an int when whole (``parse_number``'s value,
    without its text parsing): integers (Arrow's cast) and decimals
    (:func:`cell_types.exact_decimals`) as exact integer pairs
    ``("exact", num, den)``, longer ones by Python."""
    if kind == "float":
        return _floats(dictionary)
    if kind not in _EXACT_KINDS:
        return None  # (before pyarrow.compute's import: 23 ms of CPU that a first call on names alone skips)
    import pyarrow.compute as pc

    if pc.all(pc.match_substring_regex(dictionary, cell_types.INT)).as_py():  # integers: int(cell), as exact pairs
        import numpy as np
        import pyarrow as pa

        ints = dictionary.cast(pa.int64()).to_numpy(zero_copy_only=False)  # (INT: at most 18 digits)
        return ("exact", ints, np.ones(len(ints), dtype=np.int64))
    exact = cell_types.exact_decimals(dictionary)
    if exact is not None:
        return exact
    out = []
    match = _DECIMAL.fullmatch
    for tok in tokens:
        m = match(tok)
        if m is None:
            return None
        frac = m.group(2) or ""
        num = int(m.group(1) + frac)
        f = Fraction(-num if tok[0] == "-" else num, 10 ** len(frac))
        out.append(f.numerator if f.denominator == 1 else f)
    return out


# below this many distinct cells a column's are converted one by one (a few ms),
# without importing pyarrow.compute (20 ms of a first call's CPU)
FEW_CELLS = 256

# an ISO date or datetime to the second in years 1..9999, no zone: Arrow's cast
# reads it as convert does (a day or time out of range: the cast refuses it)
_PLAIN_DATETIME = r"^(000[1-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-9][0-9]{3})-[0-9]{2}-[0-9]{2}(T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?)?$"


def _plain_datetimes(dictionary):
    """The values ``convert`` gives the distinct cells of a date column when
    every one is a plain ISO date or datetime (naive datetimes, by Arrow's
    cast), else None (``convert`` reads or refuses each).  223,000
    distinct datetimes converted one by one took ~0.5 s."""
    if len(dictionary) < FEW_CELLS:
        return None
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pc.all(pc.match_substring_regex(dictionary, _PLAIN_DATETIME)).as_py():
        return None
    try:
        return dictionary.cast(pa.timestamp("us")).to_pylist()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None


# a cell that is its own value: its ends printable ASCII, no blank (``convert``
# strips Python's blanks, more than a pattern's \s); in an untyped column it
# starts with a letter too, so it is no number, boolean (#T), null (_:x) or set
# ({...}); an infinity's word (inf) stays its text there
_OWN_TEXT = {"auto": r"^[A-Za-z](.*[!-~])?$", "string": r"^[!-~](.*[!-~])?$", "str": r"^[!-~](.*[!-~])?$"}


def _own_values(dictionary, kind):
    """Per distinct cell of a column of ``kind`` (numpy bool), whether
    :func:`convert` gives its text as it is (a name); None for a kind
    that converts every cell.  A column of 300,000 distinct names took
    ``convert``'s Python per cell, 1.2 s of a 1.9 s command."""
    pattern = _OWN_TEXT.get(kind)
    if pattern is None or len(dictionary) < FEW_CELLS:
        return None
    import pyarrow.compute as pc

    return pc.match_substring_regex(dictionary, pattern).to_numpy(zero_copy_only=False)


class _Tokens:
    """A column's distinct cells as Python strings, made only when iterated
    (the kernels convert most columns without them)."""

    def __init__(self, dictionary):
        self.dictionary = dictionary
        self._list = None

    def __iter__(self):
        if self._list is None:
            self._list = self.dictionary.to_pylist()
        return iter(self._list)


_FLOAT = r"^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$"


def _floats(dictionary):
    """The floats of a ``"float"`` column's distinct cells as a float64
    array (the column then stays a value column: engine/columns/value_columns.py),
    when every cell is a plain decimal or exponent number, which Arrow's
    cast parses correctly rounded, as ``float()`` does; else None (``convert``
    reads or refuses each cell)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pc.all(pc.match_substring_regex(dictionary, _FLOAT)).as_py():
        return None
    try:
        return dictionary.cast(pa.float64()).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None


def _int_column(arr):
    """A column of plain integers (the cells ``^-?[0-9]{1,18}$`` accepts,
    as :func:`_quick` reads them) by Arrow's int64 cast of the whole column
    and a ``bincount`` for the distinct values, or None (then the
    dictionary path).  Arrow's cast also takes ``0x10`` and longer digit
    strings: only cells of digits and ``-`` (checked on the column's bytes)
    of at most 18 characters come here.  Dictionary-encoding 500,000 day
    numbers cost 22-27 ms, this 5-7 ms."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_string(arr.type) or not len(arr) or arr.null_count:
        return None
    head = arr.slice(0, 16).to_pylist()  # (a column of decimals or names: rejected before the whole column's checks)
    if not all(h and h.lstrip("-").isdigit() and h.isascii() for h in head):
        return None
    offsets = cell_types.offsets(arr)
    data = np.frombuffer(arr.buffers()[2], dtype=np.uint8)[int(offsets[0]) : int(offsets[-1])]
    if int(np.diff(offsets).max()) > 18 or not bool(np.all(((data - np.uint8(48)) < 10) | (data == 45))):
        return None
    try:
        ints = pc.cast(arr, pa.int64()).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None  # a lone or misplaced "-": convert decides
    got = cell_types.distinct_ints(ints)
    if got is None:
        return None
    return cell_types.exact_ints(*got)


def _days(column):
    """Days since 1970-01-01 of a column of ISO dates, as numpy: the reader's
    date32 viewed as integers (no cast: Arrow's casts import
    ``pyarrow.compute``, 23 ms of CPU in a first call), strings by Arrow's
    ``date32`` cast."""
    import pyarrow as pa

    if column.type == pa.date32():
        return column.to_numpy().view("int64")  # (datetime64[D]: whole days)
    first = next((c[0].as_py() for c in column.chunks if len(c)), None)
    if isinstance(first, str) and len(first) != 10:  # (date-times: the cast would refuse them after parsing
        raise pa.ArrowInvalid("not a date")          # every cell, 50 ms per 200,000)
    return column.cast(pa.date32()).cast(pa.int32()).to_numpy()


def _date_micros(dictionary, calendar):
    """``(micros, read)`` of the distinct time cells (an Arrow string array)
    on ``calendar``: ``Calendar.micros_where`` (dates and date-times, by
    polars), else None (no calendar, cells not strings).  A reading every
    37 s over 100,000 rows parsed cell by cell took 1.2 s of a 1.4 s run."""
    import pyarrow as pa

    if calendar is None or not (pa.types.is_string(dictionary.type) or pa.types.is_large_string(dictionary.type)):
        return None
    import polars as pl

    return calendar.micros_where(pl.Series(pl.from_arrow(dictionary), dtype=pl.String))


def _infinities(dictionary, calendar):
    """``(marks, cells)``: the distinct time cells (Arrow strings) that are
    infinities as ``convert`` reads them (fact_columns.infinity_marks), and
    the cells with a finite one of theirs in those places, for the
    readers by polars and numpy; ``(None, dictionary)`` where none is (or
    none is finite)."""
    import numpy as np
    import pyarrow as pa

    if not (pa.types.is_string(dictionary.type) or pa.types.is_large_string(dictionary.type)):
        return None, dictionary
    import polars as pl
    import pyarrow.compute as pc

    from chronolog.language.fact_columns import infinity_marks
    from chronolog.language.timeline import parse_number

    def value(cell):
        try:
            return calendar.parse_point(cell) if calendar is not None else parse_number(cell)
        except ValueError:
            return None

    marks = infinity_marks(pl.Series(pl.from_arrow(dictionary), dtype=pl.String), None, value)
    finite = np.flatnonzero(marks == 0) if marks is not None else ()
    if not len(finite):
        return None, dictionary
    return marks, pc.if_else(pa.array(marks != 0), dictionary[int(finite[0])], dictionary)


def _unbounded_blanks(table, i_lo: int, i_hi: int):
    """The start and end columns with their blank cells written ``-inf``
    and ``+inf``, as ``csv_files.time_cell`` reads them (a start and an end
    share one dictionary of cells, where an empty start and an empty end
    are not one time); None where a row is blank in every cell (a line
    of commas, or of blanks), which the row reader skips: the file is
    then its (:func:`_read`)."""
    import functools

    import pyarrow as pa

    lo, hi = table.column(i_lo).combine_chunks(), table.column(i_hi).combine_chunks()
    lo_blank, hi_blank = cell_types.blanks(lo), cell_types.blanks(hi)
    if lo_blank is None and hi_blank is None:
        return table.column(i_lo), table.column(i_hi)
    import pyarrow.compute as pc

    if lo_blank is not None and hi_blank is not None:
        rows = table.filter(pc.and_(lo_blank, hi_blank))
        marks = [cell_types.blanks(c) for c in rows.columns] if rows.num_rows else [None]
        if None not in marks and pc.any(functools.reduce(pc.and_, marks)).as_py():
            return None
    return (table.column(i_lo) if lo_blank is None else pa.chunked_array([pc.if_else(lo_blank, "-inf", lo)]),
            table.column(i_hi) if hi_blank is None else pa.chunked_array([pc.if_else(hi_blank, "+inf", hi)]))


def _date_columns(lo, hi, calendar):
    """The start and end columns of ISO dates on a timeline of days (or a
    unit dividing a day) by Arrow's ``date32`` cast of the whole columns and
    a ``bincount`` for the distinct days (a sort when they are far apart),
    sharing one array of values as the dictionary path does (columns the
    reader parsed as date32 are cast to themselves); None when the cast
    refuses a cell or a date is before year 1 (then that path, where
    ``convert`` reports a bad cell).  The cast takes exactly the valid
    ``YYYY-MM-DD`` dates, as the row reader reads them (tests/test_csv_columns.py).  Dictionary-encoding the 1,000,000
    cells of 5 series x 100,000 days cost 27-50 ms, this 14 ms."""
    import numpy as np
    import pyarrow as pa

    per_day = cell_types.days_per_unit(calendar)
    if per_day is None:
        return None
    try:
        days = [_days(c) for c in (lo, hi)]
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    both = np.concatenate(days).astype(np.int64)
    if not both.size or both.min() < cell_types.FIRST_DAY:  # (convert reads it)
        return None
    got = cell_types.distinct_ints(both)
    ints, idx = got if got is not None else np.unique(both, return_inverse=True)  # (days far apart: by a sort)
    n = len(days[0])
    shared = cell_types.int_values(ints * per_day, idx)
    from chronolog.language.fact_columns import _Column

    hi_col = _Column(idx[n:], shared.values)
    hi_col.ints = shared.ints
    shared.indices = idx[:n]
    return shared, hi_col


def _arrow_types(kinds: dict, times, calendar, data: bytes) -> dict:
    """The columns the CSV reader can convert itself to what ``convert``
    gives, by index: a ``"float"`` column as float64 (its parser, fast_float,
    takes the cells ``float()`` takes and rounds them alike: a non-finite
    one sends the file to the strings, :func:`_read`), an ``"int"`` column
    as int64 (unless the file has an ``x``: Arrow also reads ``0x1f``), a
    ``"string"`` one dictionary-encoded, start and end as date32 on a days
    timeline.  A cell the reader refuses (``+inf``, a bad cell) sends the
    file to the strings too.  Reading the
    value column as strings, encoding and casting it cost 5 ms per 100,000
    rows, parsing it as float64 1 ms (tests/test_csv_columns.py checks the
    cells against ``convert``)."""
    import pyarrow as pa

    types = {}
    for i, (_, kind) in kinds.items():
        if kind == "float":
            types[i] = pa.float64()
        elif kind == "int" and b"x" not in data and b"X" not in data:  # (one byte: memchr; "0x" took 5 ms per 4 MB)
            types[i] = pa.int64()
        elif kind in STRING_TYPES:
            types[i] = pa.dictionary(pa.int32(), pa.string())
    if cell_types.days_per_unit(calendar) is not None:
        for i in times:
            types[i] = pa.date32()
    return types


def _arrow_csv(data: bytes, ncols: int, use_headers: bool, types: dict):
    """The rows of ``data`` as an Arrow table (columns ``c0..``): the
    columns of ``types`` converted, the others strings; None when the reader
    refuses the file or a cell.  Quotes are read only where the file has
    them (:func:`_plain_quotes` checked them)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    names = [f"c{i}" for i in range(ncols)]
    try:
        return pcsv.read_csv(
            pa.py_buffer(data),
            read_options=pcsv.ReadOptions(
                column_names=names, skip_rows=1 if use_headers else 0, use_threads=False, block_size=max(len(data), 1 << 20)
            ),  # (one block: one chunk, one dictionary per column)
            parse_options=pcsv.ParseOptions(quote_char='"' if b'"' in data else False, double_quote=False,
                                            newlines_in_values=False, ignore_empty_lines=False),
            convert_options=pcsv.ConvertOptions(
                column_types={c: types.get(i, pa.string()) for i, c in enumerate(names)},
                strings_can_be_null=False, quoted_strings_can_be_null=False, null_values=[],
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError):
        return None


def _blank_and_ragged(data: bytes, ncols: int, use_headers: bool):
    """``(data, lines, bad)``: the file without its lines of blanks (which
    the row reader skips) and cut before its first ragged row (another
    count of cells than the header's, counted outside the quotes that
    :func:`_plain_quotes` checked), each row's line in the file (numpy),
    and that ragged row as ``(its line, the header's text and its)`` or
    None; None when the file has neither, or a ragged row without a header (each row of it has its
    own columns to the row reader), or a blank first line (the row reader
    looks further for the header).  2 ms of CPU per 100,000 lines."""
    import numpy as np

    got = cell_types.csv_lines(data)
    if got is None:
        return None  # (_plain_quotes: no line break inside quotes)
    starts, ends, filled, cells = got
    head = 1 if use_headers else 0
    if head and not filled[0]:
        return None
    ragged = np.flatnonzero(filled[head:] & (cells[head:] != ncols)) + head
    if len(ragged) and not use_headers:
        return None
    stop = int(ragged[0]) if len(ragged) else len(starts)
    if stop == len(starts) and bool(filled[head:].all()):
        return None
    if stop and int((ends[:stop] - starts[:stop]).max()) > CELL_LIMIT:
        return None  # (a cell past the csv module's size limit may be there: its error comes first)
    keep = np.flatnonzero(filled[:stop])  # (the header first)
    text = cell_types.lines_kept(data, starts, ends, keep)
    view = memoryview(data)
    bad = None
    if stop < len(starts):
        try:
            row = bytes(view[: int(ends[0])]) + bytes(view[int(starts[stop]) : int(ends[stop])])  # (the header and the row)
            bad = (stop + 1, row.decode("utf-8"))
            bytes(view[int(ends[stop]) :]).decode("utf-8")  # (the row reader decodes the whole file first)
        except UnicodeDecodeError:
            return None  # (the row reader names the byte)
    return text, keep[head:] + 1, bad


class _Reported(Exception):
    """The row reader's error of the file's first bad row (a ragged row),
    raised past the fast path's refusals."""

    def __init__(self, error):
        super().__init__(str(error))
        self.error = error


def _read(data: bytes, path, pred, options, mapping, time_mapping, calendar):
    use_headers = str(options.get("useHeaders", "true")).lower() in ("true", "#t", "1", "yes")
    if b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):
        return None  # a lone carriage return ends a row for the csv module
    try:
        end = data.find(b"\n")
        first = data[: end if end >= 0 else len(data)].decode("utf-8").rstrip("\r")
    except UnicodeDecodeError:
        return None
    cells = next(csv.reader([first])) if '"' in first else first.split(",")  # (plain quotes: _plain_quotes)
    ncols = len(cells)
    header = [h.strip() for h in cells] if use_headers else None
    if header is not None and not all(header) and (time_mapping is None or is_named(time_mapping)):
        return None  # a column without a name: the row reader says where
    time_mapping = header_time_columns(header, time_mapping, ast.Pos(str(path), 1, 1), calendar)  # (refused: the row reader says why)
    if header is not None and header_is_data(header, time_mapping, calendar):
        return None  # a row of data read as the header: the row reader says so
    first_line = 2 if use_headers else 1
    where = ast.Pos(str(path), first_line, 1)
    start_pos, end_pos, sc, ec = _time_columns(header, ncols, time_mapping, where)
    if ncols < 2 or min(start_pos, end_pos) < 0 or max(start_pos, end_pos) >= ncols:
        return None
    term_cols = [i for i in range(ncols) if i not in (start_pos, end_pos) and not _is_closed_col(header, i)]
    layout = (ncols, use_headers, header, start_pos, end_pos, sc, ec, term_cols)
    try:
        got = _facts(data, path, pred, mapping, calendar, layout)
        if got is not None:
            return got
    except ChronologError:
        pass
    # A line of blanks (the row reader skips it, and its line numbers count
    # it) is a row of empty cells for Arrow's reader, or a ragged one; a
    # ragged row is the row reader's error.  Either sent the whole file to
    # the row reader (1M rows: 15 s of CPU at load 18 to report the last
    # one, 2.1 s so): the lines are found by numpy, the lines of blanks
    # dropped, and the rows before a ragged one read here before the row
    # reader reads that one.
    scan = _blank_and_ragged(data, ncols, use_headers)
    if scan is None:
        return None
    data, lines, bad = scan
    got = _facts(data, path, pred, mapping, calendar, layout, lines) if len(lines) else None
    if bad is None:
        return got
    if got is None and len(lines):
        return None  # (a row before it that the kernels leave to the row reader: the whole file is its)
    from .csv_files import row_error

    try:
        row_error(path, pred, options, mapping, time_mapping, calendar, bad)
    except ChronologError as e:
        raise _Reported(e) from None
    return None


def _note_leading_zeros(arr, path, line_of, i: int, name: str, pred: str, k: int) -> None:
    """The row reader's note (csv_files.note_leading_zeros) of the first
    cell of column ``i`` written with leading zeros and read as a number
    (the distinct cells looked at, and only in a column with a cell that
    starts so)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_string(arr.type) or not any(pc.any(pc.starts_with(arr, c)).as_py() for c in ("0", "-0", "+0")):
        return
    from .csv_files import note_leading_zeros

    cells = pc.unique(arr)
    cells = cells.filter(pc.match_substring_regex(cells, r"^[+-]?0[0-9]"))
    numbers = [c for c in cells.to_pylist() if not isinstance(convert(c, "auto", None, name), str)]
    if numbers:
        r = pc.index(pc.is_in(arr, value_set=pa.array(numbers)), True).as_py()
        cell = arr[r].as_py()
        note_leading_zeros(cell, convert(cell, "auto", None, name), ast.Pos(str(path), line_of(r), i + 1), name, pred, k)


def _facts(data: bytes, path, pred, mapping, calendar, layout, lines=None):
    """The facts of the rows of ``data`` (a ChronologError, or None, where the
    kernels leave them to the row reader); ``lines``: each row's line in
    the file, where lines of blanks were taken out of ``data``."""
    import numpy as np
    import pyarrow as pa

    ncols, use_headers, header, start_pos, end_pos, sc, ec, term_cols = layout
    first_line = 2 if use_headers else 1
    line_of = (lambda r: first_line + r) if lines is None else (lambda r: int(lines[r]))
    kinds = {i: mapping.get(k, (header[i] if header else f"c{k}", "auto")) for k, i in enumerate(term_cols)}
    types = _arrow_types(kinds, (start_pos, end_pos), calendar, data)
    table = _arrow_csv(data, ncols, use_headers, types) if types else None
    if table is not None and not all(
        np.isfinite(table.column(i).to_numpy()).all() for i, t in types.items() if t == pa.float64()
    ):
        table = None  # inf and nan: their own path (convert's values, coded as terms)
    if table is None:
        table = _arrow_csv(data, ncols, use_headers, {})
        if table is None:
            return None
    n = table.num_rows
    if n == 0:
        return None

    from chronolog.language.fact_columns import FactColumns, TimeRatios, _Column, _ExactColumn, _NameColumn, _RatioColumn

    def column(i, kind, name, cal=None):
        arr = table.column(i).combine_chunks()
        if arr.type == pa.float64():  # parsed by the reader (_arrow_types), finite: a value column
            return _Column(np.arange(n), arr.to_numpy())
        if arr.type == pa.int64():
            got = cell_types.distinct_ints(arr.to_numpy())
            if got is not None:
                return cell_types.exact_ints(*got)
            return cell_types.exact_ints(arr.to_numpy(), np.arange(n, dtype=np.int64))  # (ints far apart: one pair a row)
        if kind in _EXACT_KINDS:
            fast = _int_column(arr)
            if fast is not None:
                return fast
        enc = arr if pa.types.is_dictionary(arr.type) else arr.dictionary_encode()
        idx = enc.indices.to_numpy().astype(np.int64)
        tokens = _Tokens(enc.dictionary)
        vals = _quick(enc.dictionary, tokens, kind)
        if isinstance(vals, tuple):  # exact decimals as integer pairs
            return _ExactColumn(idx, vals[1], vals[2])
        if vals is None and kind in DATE_TYPES:
            vals = _plain_datetimes(enc.dictionary)
        if vals is None:
            own = _own_values(enc.dictionary, kind)
            if own is not None and own.all():  # (names: coded by a join, no Python string each)
                import polars as pl

                return _NameColumn(idx, pl.Series(pl.from_arrow(enc.dictionary), dtype=pl.String))
            _, at = np.unique(idx, return_index=True)  # the row of each distinct cell's first occurrence
            own = own.tolist() if own is not None else [False] * len(at)
            vals = [tok if o else convert(tok, kind, ast.Pos(str(path), line_of(r), i + 1), name, cal)
                    for tok, o, r in zip(tokens, own, at.tolist())]
        return _Column(idx, vals)

    ends = _unbounded_blanks(table, start_pos, end_pos) if start_pos != end_pos else None
    if start_pos != end_pos and ends is None:
        return None  # (a row of blank cells: the row reader skips it)

    def time_columns(i_lo, i_hi):
        """The start and end columns over one array of distinct values, as
        the fact reader gives them (the run's time scale reads every value
        from it; an end such as 1/3 counts as much as a start)."""
        if i_lo == i_hi:  # (time points, @timeMapping(p, 2, 2): the column encoded once)
            fast = _date_columns(table.column(i_lo), table.column(i_hi), calendar)
            if fast is not None:
                return fast
            enc = table.column(i_lo).combine_chunks().dictionary_encode()
            idx = np.tile(enc.indices.to_numpy().astype(np.int64), 2)
        else:
            lo_cells, hi_cells = ends
            fast = _date_columns(lo_cells, hi_cells, calendar)
            if fast is not None:
                return fast
            both = pa.chunked_array([lo_cells.combine_chunks(), hi_cells.combine_chunks()]).combine_chunks()
            enc = both.dictionary_encode()
            idx = enc.indices.to_numpy().astype(np.int64)
        inf, cells = _infinities(enc.dictionary, calendar)  # (facts valid until further notice: +inf among epoch seconds)
        got = _date_micros(cells, calendar)
        ratios = calendar.unit_ratios(got[0]) if got is not None and got[1].all() else None
        if calendar is None and (pa.types.is_string(cells.type) or pa.types.is_large_string(cells.type)):
            exact = cell_types.exact_decimals(cells)  # (epoch seconds to the millisecond: 1709285400.137)
            ratios = None if exact is None else over_one_denominator(exact[1], exact[2])
        if ratios is not None and inf is not None:  # (the infinities marked among them)
            shared = TimeRatios(np.where(inf != 0, 0, ratios[0]), ratios[1], inf)
            return _RatioColumn(idx[:n], shared), _RatioColumn(idx[n:], shared)
        if ratios is not None and ratios[1] == 1:  # (date-times of whole units: by polars, handed over as int64)
            whole = ratios[0]
            shared = np.empty(len(whole), dtype=object)
            shared[:] = whole.tolist()
            lo, hi = _Column(idx[:n], shared), _Column(idx[n:], shared)
            lo.ints = hi.ints = whole
            return lo, hi
        if ratios is not None:  # (between units, as ticks to the millisecond on a timeline of minutes, or decimals: over one denominator)
            shared = TimeRatios(*ratios)
            return _RatioColumn(idx[:n], shared), _RatioColumn(idx[n:], shared)
        dated = None
        if got is not None:  # (each point in whole units where it is one; the others one by one)
            micros, read = got
            if inf is not None:  # (the infinities' places held a finite cell: theirs converted one by one)
                read = read & (inf == 0)
            per = calendar._unit_micros
            dated = (micros // per, read & (micros % per == 0))
        vals = cell_types.time_points(enc.dictionary, calendar, dated)
        left = [i for i, v in enumerate(vals) if v is None]
        if left:
            _, at = np.unique(idx, return_index=True)  # the row of each distinct cell's first occurrence
            for i, tok, r in zip(left, enc.dictionary.take(pa.array(left)).to_pylist(), at[left].tolist()):
                vals[i] = time_cell(tok, i_lo == i_hi, None, ast.Pos(str(path), line_of(r % n), (i_lo if r < n else i_hi) + 1),
                                    time_label(header, i_lo, "start") if r < n else time_label(header, i_hi, "end"), calendar, pred)
        shared = np.empty(len(vals), dtype=object)
        shared[:] = vals
        return _Column(idx[:n], shared), _Column(idx[n:], shared)

    cols = []
    for k, i in enumerate(term_cols):
        name, kind = mapping.get(k, (header[i] if header else f"c{k}", "auto"))
        cols.append(column(i, kind, name))
        if kind == "auto":
            _note_leading_zeros(table.column(i), path, line_of, i, name, pred, k)
    lo, hi = time_columns(start_pos, end_pos)

    def closed(col_name, default):
        if header is None or col_name not in header:
            return np.full(n, bool(default))
        c = column(header.index(col_name), "bool", col_name)
        return np.asarray(c.values.take(c.indices), dtype=bool)

    lc, hc, empty = cell_types.empty_intervals(lo, hi, closed("start_closed", sc), closed("end_closed", ec))
    if empty is not None:
        return None  # an empty interval: the row reader names the first
    return FactColumns.of_table(pred, cols, lo, hi, lc, hc, ast.Pos(str(path), line_of(0), 1))
