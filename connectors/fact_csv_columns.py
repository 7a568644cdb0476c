"""The CSV file of many predicates (connectors/fact_csv.py: ``pred``, term
columns, ``start``, ``end``, closedness, ``every``) read by kernels into
the columnar executor's input form (language/fact_columns.py's
FactColumns), without a Python row per fact.

``pyarrow.csv`` splits the file into string columns, each cell's text as
the csv module reads it (quotes, doubled quotes and newlines inside
quotes).  Each column is dictionary-encoded and its **distinct** cells are
typed: a name (``[a-z][A-Za-z0-9_]*``, read back as itself) and a plain
integer by kernels, a plain decimal by numpy, every other cell by
:class:`fact_csv._Terms`, the language's term reader (one call per
distinct cell); start and end by ``csv_files.convert`` where they are not
plain integers (or dates on a timeline of days).  A predicate's arity is
its count of non-empty term cells, checked for gaps and for one count per
predicate by numpy.  A fact that repeats (an ``every`` cell) goes to the
parsed rows (``FactColumns.slow``), as the fact text reader's do.  With a
run's term Dictionary the term columns are coded as read, once per column
for every predicate.

The facts and values are the row reader's (:func:`fact_csv._read`,
tests/test_fact_csv.py compares them), and so are its errors.  The rows the
row reader refuses -- a bad cell, a gap, another arity than the
predicate's first row's, an empty interval -- are marked as the distinct
cells are typed; the row reader then reads the header and the rows from
the first of them on, numbered as the file's lines, and raises its error
there (:func:`_row_error`).  Where Arrow's reader refuses a row of
another count of cells than the header's, the lines are found by numpy
(:func:`_without_blanks`): lines of blanks of that kind are taken out (the
row reader skips them), and a ragged row is the first bad row after the
rows before it.  What this reader cannot read as the csv module
does -- a byte order mark the header keeps, a lone carriage return, a
quote not at a cell's ends, a blank first line, a NUL byte, a cell past
the csv module's size limit, a ragged row after a quoted line break --
makes it return None, and the row reader reads the whole file.  A row's line is its row's number plus
the header's line where no line is blank and no quoted cell holds a
newline; otherwise the lines are counted from the newlines outside quotes.
"""

from __future__ import annotations

from fractions import Fraction

from chronolog.language import ast
from chronolog.language.compressed import read_bytes, smaller_than
from chronolog.language.errors import ChronologError
from chronolog.language.source_text import KERNEL_BYTES

from . import cell_types

BLOCK = 1 << 22  # bytes parsed by Arrow at a time (a chunk of the columns each; the whole file at once took 3x its size at the peak)
CELL_LIMIT = 131072  # the csv module's field_size_limit(): a longer cell is its error, on the row reader's path
_PLAIN = r"^[a-z][A-Za-z0-9_]*$"  # fact_csv._PLAIN: a name, read back as itself
# words of letters, digits and _ after a letter, one blank between two: no
# term of the grammar (a sum of primaries: no two side by side), so the
# term reader gives the cell's text (its parse fails: ~150 us a cell)
_WORDS = r"^[A-Za-z][A-Za-z0-9_]*( [A-Za-z0-9_]+)+$"


class _Refused(Exception):
    """The file is left to the row reader (which reads it, or names its first problem)."""


class _BadRow(Exception):
    """The first row the row reader refuses: its ``line``, and ``seen``, the
    first line and arity of each predicate of the rows before it."""

    def __init__(self, line: int, seen: dict):
        super().__init__(line)
        self.line, self.seen = line, seen


def read_columns(path, calendar=None, terms=None, min_bytes: int = KERNEL_BYTES):
    """The facts of the CSV file of many predicates ``path`` as a
    FactColumns, or None when the row reader reads it (a small file, or
    one this reader refuses: see the module docstring).  ``terms``: the
    run's term Dictionary (the term columns coded as read), or None
    (values, for rows)."""
    try:
        if smaller_than(path, min_bytes):
            return None
    except OSError:
        return None
    import pyarrow as pa

    from chronolog.language.nulls import reading_file

    try:
        with reading_file():  # one scope for the file's labelled nulls
            return _read(path, calendar, terms)
    except _BadRow as bad:
        _row_error(path, calendar, bad)  # (raises the row reader's error at its place)
        return None
    except (_Refused, ChronologError, pa.ArrowException, OSError):
        return None


def _row_error(path, calendar, bad: _BadRow) -> None:
    """Raise the row reader's error of the file's first bad row: it reads
    the header and the rows from that row's line on (numbered as the
    file's lines; each predicate seen before it seeded at its first line
    and arity, as the whole file's reading would have it).  Returns when
    it finds none there (the whole file is then the row reader's)."""
    import numpy as np

    from chronolog.language.facts import FactRows
    from chronolog.language.nulls import reading_file

    from .fact_csv import _read as read_rows

    source = str(path)
    data = read_bytes(path)  # (decompressed: a file.csv.gz)
    off = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    end = data.find(b"\n", off)
    start = end + 1 if bad.line == 2 else int(np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord("\n"))[bad.line - 2]) + 1
    text = (data[off : end + 1] + data[start:]).decode("utf-8")
    del data
    rows = FactRows()
    for pred, (line, width) in bad.seen.items():
        rows.add(pred, (None,) * width, (0, 0, True, True), ast.Pos(source, line, 1))
    with reading_file():
        read_rows(text, source, calendar, bad.line - 2, rows)


def _read(path, calendar, terms):
    import numpy as np
    import pyarrow as pa

    from chronolog.language.fact_columns import FactColumns, _Column

    from .fact_csv import _columns, _predicate, _Terms

    source = str(path)
    data = read_bytes(path)  # (decompressed: a file.csv.gz)
    if data.startswith((b"PAR1", b"ARROW1")) or b"\x00" in data:
        raise _Refused  # (a table file named .csv; a NUL byte)
    if b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):
        raise _Refused  # a lone carriage return ends a line for the csv module
    off = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    end = data.find(b"\n", off)
    first = data[off : end if end >= 0 else len(data)]
    if b'"' in first:
        raise _Refused  # (a quoted header cell)
    try:
        head = first.decode("utf-8")
    except UnicodeDecodeError:
        raise _Refused from None
    head = head[:-1] if head.endswith("\r") else head
    if not head.strip():
        raise _Refused  # blank lines before the header
    header = [h.strip() for h in head.split(",")]
    cols = _columns(header, source, 1)
    b = np.frombuffer(data, dtype=np.uint8)
    quotes = _quotes(b, off) if b'"' in data else None
    ragged = kept = None  # (the first ragged row's line; the lines kept of the file)
    try:
        table = _arrow_csv(data, len(header), quotes is not None)
    except pa.ArrowInvalid:
        # a ragged row, or a line of blanks of another count of cells
        # (which the row reader skips): the lines are found by numpy, those
        # dropped, and the rows before a ragged one read here; the row
        # reader then reads that row (its error: _row_error)
        data, kept, ragged = _without_blanks(data, len(header))
        b = np.frombuffer(data, dtype=np.uint8)
        quotes = _quotes(b, off) if b'"' in data else None
        table = _arrow_csv(data, len(header), quotes is not None)
    n = table.num_rows
    if n == 0:
        if ragged is not None:
            raise _BadRow(ragged, {})
        raise _Refused
    lines = _Lines(data, b, off, quotes, n, kept)
    del data, b, quotes  # (the text's bytes: Arrow holds the cells)
    cells = [_cells(table.column(i)) for i in range(len(header))]
    del table
    reader = _Terms(calendar, source)
    # the rows the row reader refuses (a bad cell, a gap, another arity, an
    # empty interval): the first is reported as it reports it (_row_error)
    bad = np.zeros(n, dtype=bool)

    # the predicates, each distinct cell stripped and checked once
    pid, preds = _predicates(*cells[cols["pred"]], lambda p: _predicate(p, ast.Pos(source, 1, 1), reader), bad)
    pid, preds, order, at = _grouped(pid, preds)
    # arities: the non-empty term cells are a prefix of the row's, of one count per predicate
    term_cols = cols["terms"]
    arity = np.zeros(n, dtype=np.int8 if len(term_cols) < 127 else np.int64)
    before = None
    for i in term_cols:
        idx, dictionary = cells[i]
        filled = (cell_types.lengths(dictionary) > 0)[idx]
        if before is not None:
            bad |= filled & ~before  # an empty cell before an argument
        arity += filled
        before = filled
    first_rows = order[at[:-1]]
    widths = arity[first_rows]  # (each predicate's arity on its first row; a row of another is refused)
    bad |= arity != widths[pid]
    del arity
    # the facts that repeat forever: rows of their own
    every_rows = _every_rows(*cells[cols["every"]], reader, bad) if "every" in cols else []

    lo, hi = _time_columns(cells[cols["start"]], cells[cols["end"]], calendar, bad)
    lc = _flags(*cells[cols["start_closed"]], "start_closed", bad) if "start_closed" in cols else np.ones(n, dtype=bool)
    hc = _flags(*cells[cols["end_closed"]], "end_closed", bad) if "end_closed" in cols else np.ones(n, dtype=bool)
    lc, hc, empty = cell_types.empty_intervals(lo, hi, lc, hc)
    if empty is not None:
        bad |= empty  # an empty interval: the row reader names the first

    values = [_TermColumn(*cells[i], header[i], reader, bad) for i in term_cols]
    if bool(bad.any()) or ragged is not None:
        r = int(np.argmax(bad)) if bool(bad.any()) else n
        seen = {preds[k]: (int(lines.of(first_rows[k : k + 1])[0]), int(widths[k])) for k in range(len(preds)) if first_rows[k] < r}
        raise _BadRow(int(lines.of(np.array([r]))[0]) if r < n else ragged, seen)
    for i, col in zip(term_cols, values):
        col.note_leading_zeros(lines, source, i, header[i])
    every = cells[cols["every"]] if every_rows else None
    del cells
    out = FactColumns()
    out.terms = terms
    if terms is not None and (terms.has_floats or any(col.floats for col in values)):
        # a float beside an equal number of another kind would share its
        # code, and rows decoded from the codes would give it the other's
        # type: the columns keep their values (the executor codes them,
        # and counts such a meeting: the stratum then runs on these rows)
        terms = None
    if terms is not None:
        for col in values:
            col.code_strings(terms)
        for col in values:
            col.code_rest(terms)

    first_lines = lines.of(first_rows)
    keep = None
    if every_rows:
        keep = np.ones(n, dtype=bool)
        keep[every_rows] = False
    parts = []  # (first row, pred, part): in the order of each one's first fact that does not repeat, as the row reader's
    for k, pred in enumerate(preds):
        rows = order[at[k] : at[k + 1]]
        if keep is not None:
            rows = rows[keep[rows]]
        out.positions[pred] = ast.Pos(source, int(first_lines[k]), 1)
        if not len(rows):
            continue
        whole = len(rows) == n  # (one predicate: the columns as they are)
        pick = (lambda a: a) if whole else (lambda a: a[rows])
        cols_k = [values[j].column(pick, terms) for j in range(int(widths[k]))]
        lo_k, hi_k = _Column.of(pick(lo.indices), lo.values), _Column.of(pick(hi.indices), hi.values)
        lo_k.ints = hi_k.ints = lo.ints
        parts.append((int(rows.min()), pred, [(cols_k, lo_k, hi_k, pick(lc), pick(hc))]))
    for _, pred, part in sorted(parts, key=lambda x: x[0]):
        out.parts[pred] = part
    if every_rows:
        _repeating(out, every_rows, pid, preds, widths, values, terms, lo, hi, lc, hc, every, lines, source, reader)
    return out


def _arrow_csv(data: bytes, ncols: int, quoted: bool):
    """The rows after the header as an Arrow table of dictionary-encoded
    string columns, one dictionary per column (the csv module's reading of
    cells whose quotes :func:`_quotes` checked; empty lines skipped, as the
    row reader skips them; a row of another count of cells refused:
    ArrowInvalid)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    names = [f"c{i}" for i in range(ncols)]
    cell = pa.dictionary(pa.int32(), pa.string())  # (each distinct cell's text once: a third of the memory of string columns)
    table = pcsv.read_csv(
        pa.py_buffer(data),
        read_options=pcsv.ReadOptions(column_names=names, skip_rows=1, use_threads=False, block_size=BLOCK),
        parse_options=pcsv.ParseOptions(quote_char='"' if quoted else False, double_quote=True, newlines_in_values=quoted,
                                        ignore_empty_lines=True),
        convert_options=pcsv.ConvertOptions(column_types={c: cell for c in names}, strings_can_be_null=False,
                                            quoted_strings_can_be_null=False, null_values=[]),
    )
    return table.unify_dictionaries()


def _cells(column):
    """``(each row's index among the distinct cells (numpy), the distinct
    cells)`` of a column of :func:`_arrow_csv` (refused past the csv
    module's cell size)."""
    import numpy as np
    import pyarrow as pa

    chunks = column.chunks
    if not chunks:
        return np.zeros(0, dtype=np.int32), pa.array([], type=pa.string())
    dictionary = chunks[0].dictionary  # (unified: one for the chunks)
    if not pa.types.is_string(dictionary.type) or column.null_count:
        raise _Refused
    if len(dictionary) and int(cell_types.lengths(dictionary).max()) > CELL_LIMIT:
        raise _Refused  # (bytes: a cell of that many characters or more)
    idx = [c.indices.to_numpy(zero_copy_only=False) for c in chunks]
    return (idx[0] if len(idx) == 1 else np.concatenate(idx)), dictionary


def _quotes(b, off: int):
    """The positions of the quotes of the bytes ``b`` when each opens a
    cell (after a comma, a newline or the file's start), closes one (before
    a comma, a line end or the file's end), or is one of a doubled quote
    inside one: then Arrow's reader and the csv module read the cells
    alike, and a newline is inside a cell where an odd count of quotes
    comes before it.  Refused otherwise (``a"b``, ``"a"b``, an open quote
    at the end)."""
    import numpy as np

    q = np.flatnonzero(b == ord('"'))
    if len(q) % 2:
        raise _Refused
    opening, closing = q[0::2], q[1::2]  # (an even count of quotes before: outside a cell's quotes)
    before = b[np.maximum(opening - 1, 0)]
    # (a quote right after a closing one: the second of a doubled quote)
    ok = (opening == off) | (before == ord(",")) | (before == ord("\n")) | ((before == ord('"')) & (opening > off))
    after = b[np.minimum(closing + 1, len(b) - 1)]
    ok_after = (closing == len(b) - 1) | (after == ord(",")) | (after == ord("\n")) | (after == ord("\r")) | (after == ord('"'))
    if not (bool(ok.all()) and bool(ok_after.all())):
        raise _Refused
    return q


def _without_blanks(data: bytes, ncols: int):
    """``(data, kept, ragged)``: the file without its lines of blanks of
    another count of cells than the header's (the row reader skips them;
    one of its count is a row) and cut before its first ragged row (filled,
    another count), the lines kept (numpy, 1-based: the header first), and
    that row's line or None.  Refused when there is neither, or a line
    break inside quotes."""
    import numpy as np

    got = cell_types.csv_lines(data)
    if got is None:
        raise _Refused
    starts, ends, filled, cells = got
    other = cells != ncols
    other[0] = False  # (the header)
    skipped = other & ~filled
    ragged = np.flatnonzero(other & filled)
    stop = int(ragged[0]) if len(ragged) else len(starts)
    if stop == len(starts) and not bool(skipped.any()):
        raise _Refused
    if stop < len(starts):
        try:
            data[int(ends[stop]) :].decode("utf-8")  # (the row reader decodes the whole file first)
        except UnicodeDecodeError:
            raise _Refused from None
    keep = np.flatnonzero(~skipped[:stop])
    return cell_types.lines_kept(data, starts, ends, keep), keep + 1, (stop + 1 if stop < len(starts) else None)


class _Lines:
    """The line of each row (0-based, after the header): the header's
    line + 1 + the row where no newline is inside quotes and no line is
    blank; otherwise counted from the newlines outside quotes (refused
    when those do not give the rows Arrow read); ``kept``: the file's
    lines that ``data`` holds (lines of blanks taken out), or None."""

    def __init__(self, data: bytes, b, off: int, quotes, n: int, kept=None):
        self.table = None
        if data.count(b"\n") != n + (1 if data.endswith(b"\n") else 0):
            self.table = self._count(b, off, quotes, n)
        if kept is not None:  # (a line of the text kept: the file's line)
            import numpy as np

            self.table = kept[(self.table if self.table is not None else np.arange(n) + 2) - 1]

    @staticmethod
    def _count(b, off: int, quotes, n: int):
        import numpy as np

        nl = np.flatnonzero(b == ord("\n"))
        k = np.arange(len(nl), dtype=np.int64)
        if quotes is not None:
            outside = (np.searchsorted(quotes, nl) % 2) == 0
            nl, k = nl[outside], k[outside]
        starts = np.concatenate(([off], nl + 1))
        ends = np.concatenate((nl, [len(b)]))
        line = np.concatenate(([1], k + 2))  # (the k-th newline ends line k + 1)
        size = ends - starts
        lone_cr = (size == 1) & (b[np.minimum(starts, len(b) - 1)] == ord("\r"))
        rows = line[(size > 0) & ~lone_cr][1:]  # (the header first)
        if len(rows) != n:
            raise _Refused
        return rows

    def of(self, rows):
        """The lines of ``rows`` (a numpy array of row numbers)."""
        return rows + 2 if self.table is None else self.table[rows]


def _predicates(indices, dictionary, check, bad):
    """``(each row's predicate index, the predicates in order of first
    appearance)``: each distinct cell stripped and checked once (the rows
    of a bad one marked in ``bad``)."""
    import numpy as np

    index: dict = {}
    remap = []
    wrong = []
    for cell in dictionary.to_pylist():
        pred = cell.strip()
        k = index.get(pred)
        if k is None:
            try:
                check(pred)
            except ChronologError:
                wrong.append(len(index))
            k = index[pred] = len(index)
        remap.append(k)
    pid = np.asarray(remap, dtype=np.int64)[indices]
    if wrong:
        bad |= np.isin(pid, wrong)
    return pid, list(index)


def _grouped(pid, preds: list):
    """``(pid, preds, order, at)``: the rows by predicate, in the file's
    order within each (``order[at[k]:at[k + 1]]`` are predicate ``k``'s),
    the predicates numbered in order of first appearance, as the row
    reader meets them."""
    import numpy as np

    def group(pid):
        order = np.argsort(pid.astype(np.uint16) if len(preds) <= 1 << 16 else pid, kind="stable")
        return order, np.concatenate(([0], np.cumsum(np.bincount(pid, minlength=len(preds)))))

    order, at = group(pid)
    first = order[at[:-1]]
    if bool((np.diff(first) < 0).any()):  # (Arrow's dictionary lists them in order of first appearance: not relied upon)
        by_first = np.argsort(first)
        rank = np.empty(len(preds), dtype=np.int64)
        rank[by_first] = np.arange(len(preds))
        pid, preds = rank[pid], [preds[i] for i in by_first.tolist()]
        order, at = group(pid)
    return pid, preds, order, at


def _every_rows(indices, dictionary, reader, bad) -> list:
    """The rows whose ``every`` cell holds more than blanks (those of a
    cell that is no period marked in ``bad``)."""
    import numpy as np

    from .fact_csv import _period

    cells = dictionary.to_pylist()
    blank = np.array([not c.strip() for c in cells], dtype=bool)
    if blank.all():
        return []
    wrong = np.zeros(len(cells), dtype=bool)
    for i in np.flatnonzero(~blank).tolist():
        try:
            _period(cells[i].strip(), ast.NOWHERE, reader)
        except ChronologError:
            wrong[i] = True
    if wrong.any():
        bad |= wrong[indices]
    return np.flatnonzero(~blank[indices]).tolist()


def _time_columns(start, end, calendar, bad):
    """The start and end columns over one array of their distinct values
    (``cell_types.time_points``, the rest by csv_files.convert; the rows of
    a cell that is no time point marked in ``bad``, its value 0)."""
    import numpy as np
    import pyarrow as pa

    from chronolog.language.fact_columns import _Column

    from .csv_files import convert

    (si, sd), (ei, ed) = start, end
    # (an empty end: unbounded, as csv_files.time_cell reads it)
    sd, ed = cell_types.blanks_written(sd, "-inf"), cell_types.blanks_written(ed, "+inf")
    enc = pa.concat_arrays([sd, ed]).dictionary_encode()  # (the two columns' distinct cells as one)
    both = enc.indices.to_numpy(zero_copy_only=False)
    dictionary = enc.dictionary
    vals = cell_types.time_points(dictionary, calendar)
    left = [i for i, v in enumerate(vals) if v is None]
    wrong = []
    if left:
        cells = dictionary.take(pa.array(left)).to_pylist()
        for i, cell in zip(left, cells):
            try:
                vals[i] = convert(cell, "time", ast.NOWHERE, "start", calendar)
            except ChronologError:
                vals[i] = 0
                wrong.append(i)
    shared = np.empty(len(vals), dtype=object)
    shared[:] = vals
    lo, hi = _Column.of(both[: len(sd)][si], shared), _Column.of(both[len(sd) :][ei], shared)
    lo.ints = hi.ints = cell_types.all_ints(shared)
    if wrong:
        mask = np.zeros(len(vals), dtype=bool)
        mask[wrong] = True
        bad |= mask[lo.indices] | mask[hi.indices]
    return lo, hi


def _flags(indices, dictionary, name: str, bad):
    """A closedness column as numpy bools (``csv_files.convert``'s ``bool``
    of each distinct cell; the rows of a cell that is none marked in ``bad``)."""
    import numpy as np

    from .csv_files import convert

    vals, wrong = [], []
    for i, cell in enumerate(dictionary.to_pylist()):
        try:
            vals.append(bool(convert(cell, "bool", ast.NOWHERE, name)))
        except ChronologError:
            vals.append(False)
            wrong.append(i)
    if wrong:
        bad |= np.isin(indices, wrong)
    return np.asarray(vals, dtype=bool)[indices]


class _TermColumn:
    """One term column: each row's index into its distinct cells, and
    their terms: names and plain integers and decimals typed by kernels,
    the other cells by the term reader; the empty cell (after a
    predicate's last argument) None.  Coded by a run's Dictionary
    (:meth:`code_strings`, then :meth:`code_rest`) or as values."""

    def __init__(self, indices, d, name: str, reader, bad):
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        self.indices, self.dictionary = indices, d
        m = len(d)
        self.plain = pc.match_substring_regex(d, _PLAIN).to_numpy(zero_copy_only=False)
        self.empty = cell_types.lengths(d) == 0
        ints = cell_types.matching(d, cell_types.INT)
        decimals = cell_types.matching(d, cell_types.DECIMAL)
        words = pc.match_substring_regex(d, _WORDS).to_numpy(zero_copy_only=False)
        self.values = np.empty(m, dtype=object)  # the terms of the cells that are not names (None for a name, and the empty cell)
        at = np.flatnonzero(ints)
        if len(at):
            self.values[at] = cell_types.ints(d.filter(pa.array(ints)))
        at = np.flatnonzero(decimals)
        if len(at):
            got = cell_types.decimals(d.filter(pa.array(decimals)))
            if got is None:
                raise _Refused
            self.values[at] = got
        at = np.flatnonzero(words)
        if len(at):
            self.values[at] = d.filter(pa.array(words)).to_pylist()
        other = np.flatnonzero(~(self.plain | self.empty | ints | decimals | words))
        self.floats = False  # a float among the terms (in a set too)
        if len(other):
            values = self.values
            wrong = []
            for i, cell in zip(other.tolist(), d.take(pa.array(other)).to_pylist()):
                try:
                    v = values[i] = reader.term(cell, 0, 0, name)  # (one by one: a set is a tuple, which numpy would spread)
                except ChronologError:
                    wrong.append(i)  # (its rows marked in bad: the row reader says why)
                    continue
                if type(v) is float or (type(v) is tuple and any(type(x) is float for x in v)):
                    self.floats = True
            if wrong:
                bad |= np.isin(indices, wrong)
        self.codes = None

    def note_leading_zeros(self, lines, source: str, i: int, name: str) -> None:
        """The row reader's note (csv_files.note_leading_zeros) of the
        column's first cell written with leading zeros and read as a number
        (its distinct cells looked at; before they are coded)."""
        import numpy as np
        import pyarrow.compute as pc

        from .csv_files import note_leading_zeros

        zeros = np.flatnonzero(pc.match_substring_regex(self.dictionary, r"^\s*[+-]?0[0-9]").to_numpy(zero_copy_only=False))
        numbers = [j for j in zeros.tolist() if type(self.values[j]) is not bool and isinstance(self.values[j], (int, Fraction))]
        if numbers:
            r = int(np.flatnonzero(np.isin(self.indices, numbers))[0])
            j = int(self.indices[r])
            where = ast.Pos(source, int(lines.of(np.array([r]))[0]), i + 1)
            note_leading_zeros(self.dictionary[j].as_py(), self.values[j], where, name)

    def _names(self):
        import polars as pl

        return pl.from_arrow(self.dictionary.filter(self.plain))

    def code_strings(self, terms) -> None:
        """Code the names and the other strings (one ``code_names`` join: a
        string looked up one by one has the Dictionary build its dict of
        every name)."""
        import numpy as np
        import polars as pl

        self.codes = np.full(len(self.values), -1, dtype=np.int64)
        names = np.flatnonzero(self.plain)
        other = [i for i, v in enumerate(self.values.tolist()) if type(v) is str]
        if not len(names) and not other:
            return
        series = self._names() if len(names) else pl.Series([], dtype=pl.String)
        if other:
            series = pl.concat([series, pl.Series([self.values[i] for i in other], dtype=pl.String)])
        uniq = series.unique(maintain_order=True)
        if len(uniq) != len(series):  # (a quoted cell that reads as a name, or two that read alike)
            at = {v: k for k, v in enumerate(uniq.to_list())}
            codes = terms.code_names(uniq)[np.array([at[v] for v in series.to_list()], dtype=np.int64)]
        else:
            codes = terms.code_names(uniq)
        self.codes[np.concatenate((names, np.array(other, dtype=np.int64)))] = codes

    def code_rest(self, terms) -> None:
        """Code the terms that are not strings (numbers, booleans, nulls, sets, dates)."""
        import numpy as np

        vals = self.values.tolist()
        at = [i for i, v in enumerate(vals) if v is not None and type(v) is not str]
        if at:
            self.codes[np.array(at, dtype=np.int64)] = terms.code_all([vals[i] for i in at])
        from chronolog.language.fact_columns import _int32

        self.codes = _int32(self.codes)
        self.values = None

    def decoded_values(self):
        """The terms of every distinct cell (names included), as a numpy object array."""
        import numpy as np

        names = np.flatnonzero(self.plain)
        if len(names):
            self.values[names] = self.dictionary.filter(self.plain).to_pylist()
            self.plain = np.zeros(len(self.plain), dtype=bool)
        return self.values

    def column(self, pick, terms):
        """The column of the facts ``pick`` takes of every row's."""
        from chronolog.language.fact_columns import _CodedColumn, _Column

        idx = pick(self.indices)
        if terms is not None:
            return _CodedColumn.of(idx, self.codes, terms)
        return _Column.of(idx, self.decoded_values())

    def value(self, i: int, terms):
        """The term of distinct cell ``i``."""
        if terms is not None:
            return terms.values[int(self.codes[i])]
        return self.decoded_values()[i]


def _repeating(out, every_rows, pid, preds, widths, values, terms, lo, hi, lc, hc, every, lines, source, reader) -> None:
    """The facts of ``every_rows`` (a period each), into ``out.slow`` as the
    row reader reads them (``terms``: the Dictionary that coded ``values``, or None)."""
    import numpy as np

    from .fact_csv import _interval, _period

    rows = np.array(every_rows, dtype=np.int64)
    indices, dictionary = every
    periods = dictionary.take(indices[rows]).to_pylist()
    for r, line, text in zip(every_rows, lines.of(rows).tolist(), periods):
        k = int(pid[r])
        args = tuple(values[j].value(int(values[j].indices[r]), terms) for j in range(int(widths[k])))
        a, b = int(lo.indices[r]), int(hi.indices[r])
        iv = _interval(lo.values[a], hi.values[b], bool(lc[r]), bool(hc[r]), source, line, 0, None)
        pos = ast.Pos(source, line, 1)
        out.slow.add(preds[k], args, iv, pos, _period(text.strip(), pos, reader))
