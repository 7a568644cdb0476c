"""The Python API: ``reason(program, facts)`` returns a :class:`Model`.

    >>> m = reason("p(X) :- <->[0,2] q(X).  q(a)@[1,2].")
    >>> m.facts("p")
    [(('a',), (1, 4, True, True))]
    >>> m.holds("p(a)@[3,4]")
    True
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterable

from chronolog.engine.rows.evaluator import Evaluator
from chronolog.engine.store import Store
from chronolog.language import ast
from chronolog.language.errors import ArgumentError, ChronologError, DataError, Note, ProgramError, counted, failure_text
from chronolog.language.facts import FactRows, parse_fact_lines, read_dialect_facts
from chronolog.language.dialect_hints import in_dialect
from chronolog.language.booleans import any_changed, public, public_terms
from chronolog.language.text import term_sort_key
from chronolog.language.source_text import KERNEL_BYTES, NamedText
from chronolog.language.timeline import EVERYWHERE, contains, parse_number
from chronolog.planner import plan as make_plan
from chronolog.planner.input_size import direct_min_rows, direct_min_table_rows, rows_alone
from chronolog.planner.normalize import is_fresh

DIALECTS = ("vadalog", "meteor", "lars")
# chosen by measurement (bench/README.md, "Figures behind design choices")
DEFAULT_PLACEMENT = "always"
# the counters an update reports as its own work, and as the session's totals (Reasoner.update)
_COUNTERS = ("rounds", "derivations")


def _parse_apart(fh, source: str):
    """The program in the binary file ``fh`` with its fact lines read by the
    kernel fact reader (``prog.fact_columns``) and only the rest by the
    grammar (language/program_facts.py); None when it is read whole: then
    also on any error, which the whole reading reports as it always has.
    Facts whose times are dates are read on the program's calendar, which
    the facts read first as numbers do not match (a program of 100,000
    readings to the millisecond went to the grammar whole: 21 s)."""
    from chronolog.language import allocators, program_facts

    with allocators.settled():  # (a command: the libraries' objects out of the collector's walks)
        import numpy  # noqa: F401
        import polars  # noqa: F401
    try:
        guess = program_facts.timeline(fh, program_facts.TIMELINE_HEAD)
        prog = _read_apart(fh, source, guess)
        if prog is not None and (guess is not None or prog.calendar is None):
            return prog
        fh.seek(0)
        calendar = program_facts.timeline(fh)
        return None if calendar is None or calendar == guess else _read_apart(fh, source, calendar)
    except (ChronologError, OSError):
        return None


def _read_apart(fh, source: str, calendar):
    """:func:`_parse_apart` with the facts' times read on ``calendar`` (None:
    numbers): the program, whose own timeline (``prog.calendar``) the caller
    compares where ``calendar`` is None; else None where the rules' timeline
    is not ``calendar``.  Rules that declare none and write no date are on
    the days of the facts' dates, as the whole reading puts them."""
    from chronolog.language import dates, program_facts, vadalog
    from chronolog.engine.columns.encoding import Dictionary

    fh.seek(0)
    parts = program_facts.read(fh, source, Dictionary(), calendar)
    if parts is None:
        return None
    rules, fc = parts
    prog = vadalog.parse(rules, source)
    if calendar is not None and prog.calendar != calendar:
        if prog.calendar is not None or dates.declared_calendar(prog) is not None or calendar != dates.Calendar("days"):
            return None
        prog = vadalog.parse(rules, source, calendar)
    prog.fact_columns.append(fc)
    return prog


def _parse_large(path, source: str):
    """:func:`_parse_apart` of a program file of KERNEL_BYTES or more, read
    block by block; None otherwise (or when it is read whole)."""
    try:
        if os.stat(path).st_size < KERNEL_BYTES:
            return None
        fh = open(path, "rb")
    except OSError:
        return None  # (the whole reading reports it)
    with fh:
        return _parse_apart(fh, source)


def load_program(program, *, dialect: str = "vadalog", source: str | None = None, facts_apart: bool = False) -> ast.Program:
    """Parse program text, or read and parse a file given as a ``Path`` (any ``os.PathLike``).
    ``facts_apart``: a large program's fact lines may be read by the kernel
    fact reader, into ``prog.fact_columns`` (for reason(), which takes them)."""
    if facts_apart and dialect == "vadalog":  # (a large program's bytes: no text of them all)
        prog = None
        if isinstance(program, os.PathLike):
            prog = _parse_large(program, source or os.fspath(program))
        elif isinstance(program, str):
            from chronolog.language.source_text import plain_text

            text = plain_text(program)
            if len(text) >= KERNEL_BYTES:
                import io

                prog = _parse_apart(io.BytesIO(text.encode("utf-8")), source or "<program>")
        if prog is not None:
            return prog
    from chronolog.language.programs import read_program

    return read_program(program, dialect, source)


def load_facts(facts, dialect: str = "vadalog", calendar=None) -> FactRows:
    """Facts from text, a Path, lines, a list of Paths, or ``{pred: rows}``,
    as :class:`~chronolog.language.facts.FactRows`.  ``calendar``: the
    program's (``program.calendar``) when its time points are dates."""
    if isinstance(facts, FactRows):
        return facts
    from chronolog import arguments

    arguments.check_facts(facts)
    rows = FactRows()
    if facts is None:
        return rows
    if isinstance(facts, os.PathLike):
        from chronolog.connectors.fact_tables import reader_of

        table = reader_of(facts)
        if table is not None:  # (a CSV or JSON Lines of facts, as run --format csv|json writes them)
            rows = table.read(facts, calendar)
            if dialect == "lars":  # ticks, as LARS fact text and bound files are read: start 5, end 7 is ticks 5 to 7
                from chronolog.language.lars import fact_rows

                fact_rows(rows, "a table of facts read by a LARS program holds ticks: whole numbers, "
                                "the range 5 to 7 as start 5, end 7, both closed (as run --format csv|json writes them)",
                          where=lambda pred, i: table.position_of(facts, calendar, pred, i))
            return rows
        from chronolog.language.source_text import read_text

        text = read_text(facts, "facts file")  # decoded once: a bad byte is reported at its place
        if len(text) >= KERNEL_BYTES and dialect in ("vadalog", "meteor"):  # kernels; small files skip importing polars
            from chronolog.language.fact_columns import read_facts_text

            return read_facts_text(text, os.fspath(facts), dialect, calendar)
        return read_dialect_facts(text.splitlines(), os.fspath(facts), dialect, calendar)
    if isinstance(facts, str):
        from chronolog.language.source_text import plain_text

        named = isinstance(facts, NamedText)  # (standard input's text, naming <stdin>: chronolog/standard_input.py)
        source = facts.source if named else "<facts>"
        from chronolog.connectors.fact_tables import are_records

        if are_records(facts):  # JSON records, as run --format json writes them
            from chronolog.connectors.fact_json import read_text_records

            rows = read_text_records(plain_text(facts), source, calendar)
            if dialect == "lars":
                from chronolog.language.lars import fact_rows

                fact_rows(rows, "records read by a LARS program hold ticks: whole numbers, the range 5 to 7 as start 5, end 7")
            return rows
        if named and len(facts) >= KERNEL_BYTES and dialect in ("vadalog", "meteor"):  # (as a large file's)
            from chronolog.language.fact_columns import read_facts_text

            return read_facts_text(str(facts), source, dialect, calendar)
        return _fact_text(plain_text(facts).splitlines(), source, dialect, calendar)
    from chronolog import frames

    if frames.is_frame(facts):  # one table of every predicate, with a pred column
        from chronolog.language.nulls import reading_file

        with reading_file():  # (one scope for its labelled nulls, as a file's: every predicate's _:n1 is one null)
            return load_facts(frames.split_by_pred(facts), dialect, calendar)
    if isinstance(facts, dict):
        for pred, items in facts.items():
            arguments.check_predicate_name(pred, dialect=dialect)
            pos = ast.Pos(f"facts[{pred!r}]")
            if not isinstance(items, (list, tuple)):  # an Arrow table or DataFrame
                for terms, iv in frames.table_rows(items, pred, calendar):
                    rows.add(pred, terms, iv, pos)
                continue
            plain = _plain_rows(items, calendar) if items else None
            if plain is not None:
                rows.add(pred, *plain[0], ast.Pos(f"facts[{pred!r}][0]"))
                rows[pred].extend(plain[1:])
                continue
            for i, row in enumerate(items):
                where = f"facts[{pred!r}][{i}]"
                terms = arguments.check_fact_row(row, where)
                rows.add(pred, terms, _interval(row[1], calendar, where), ast.Pos(where))
        if dialect == "lars":  # ticks, as LARS fact text is read: (5, 7) is ticks 5 to 7, [5, 8)
            from chronolog.language.lars import fact_rows

            fact_rows(rows, "give ticks as whole numbers: (5, 5) is tick 5, (5, 7) ticks 5 to 7 (both ends closed)",
                      where=lambda pred, i: ast.Pos(f"facts[{pred!r}][{i}]"))
        return rows
    items = list(facts)
    if items and all(isinstance(x, (os.PathLike, NamedText)) for x in items):  # (files, and standard input's text)
        for p in items:
            rows.merge(load_facts(p, dialect, calendar))
        return rows
    if items and all(isinstance(x, ast.Fact) for x in items):
        rows.extend_facts(items)
        return rows
    for i, x in enumerate(items):  # (str() of a number would read as a fact line that ends early)
        if not isinstance(x, (str, ast.Fact)):
            raise DataError(f"<facts>[{i}]: {x!r} ({type(x).__name__}) is not a fact",
                            hint="give fact lines as text (\"p(a)@[1,5]\"), or a dict of rows {\"p\": [((\"a\",), (1, 5))]}")
    return _fact_text([str(x) for x in items], "<facts>", dialect, calendar)


def _plain_rows(items, calendar=None, points=True) -> list | None:
    """Rows given as pairs of a tuple of strings, ints (not booleans) and
    floats (not NaN), and ``(start, end)`` or ``(start, end, start_closed,
    end_closed)`` of finite ints, Fractions and floats (on a date timeline,
    ``calendar``, of dates and naive datetimes), all of one width, as the
    engine's rows, checked by their types alone (the checks of any row,
    ``check_fact_row`` and ``_interval``, cost 17 us a row, 37 us with
    datetimes: 0.34 s of 20,000 keys' facts); None where any row is of
    another form (or empty), which the checks of any row then read and
    name.  ``points=False``: dates and datetimes left as they are (both
    ends of one type, which compare), and times between whole numbers as
    Fractions, for a table of them."""
    import datetime as dt
    from fractions import Fraction

    from chronolog.language.float_times import float_time
    from chronolog.language.timeline import as_point

    def end(x):  # (None: not of the plain forms)
        t = type(x)
        if calendar is None:
            if t is float:  # (the number its text shows; NaN and the infinities, a float still: the checks of any row)
                if x != x:
                    return None
                x = float_time(x)
                t = type(x)
            if t is Fraction and not points:  # (a table's column of them: their numerators and denominators)
                return x
            return x if t is int else as_point(x) if t is Fraction else None
        if t is dt.date or (t is dt.datetime and x.tzinfo is None):
            if not points:
                return x
            x = calendar.point(x)
            return as_point(x) if type(x) is Fraction else x
        return None

    out = []
    width = len(items[0][0]) if type(items[0]) is tuple and len(items[0]) == 2 and type(items[0][0]) is tuple else -1
    for row in items:
        if type(row) is not tuple or len(row) != 2:
            return None
        terms, iv = row
        if type(terms) is not tuple or len(terms) != width or type(iv) is not tuple:
            return None
        for v in terms:
            t = type(v)
            if t is not str and t is not int and (t is not float or v != v):
                return None
        n = len(iv)
        if n == 2:
            lo, hi = iv
            lc = hc = True
        elif n == 4:
            lo, hi, lc, hc = iv
            if type(lc) is not bool or type(hc) is not bool:
                return None
        else:
            return None
        if type(lo) is not int or calendar is not None:
            lo = end(lo)
            if lo is None:
                return None
        if type(hi) is not int or calendar is not None:
            hi = end(hi)
            if hi is None:
                return None
        if (not points and calendar is not None and type(lo) is not type(hi)) or not (lo < hi or (lo == hi and lc and hc)):
            return None
        out.append((terms, (lo, hi, lc, hc)))
    return out


def _fact_text(lines: list, source: str, dialect: str, calendar) -> FactRows:
    """Fact lines given as text; a file's name given so is named as one."""
    try:
        return read_dialect_facts(lines, source, dialect, calendar)
    except ChronologError:
        if len(lines) == 1:
            from chronolog.language.source_text import refuse_file_name

            refuse_file_name(lines[0], "facts", "fact text")
        raise


def _base_dir(base_dir, program):
    """Where a program's @bind paths start: ``base_dir``, else the program
    file's directory, else the current one."""
    from pathlib import Path

    if base_dir is not None:
        return Path(base_dir)
    return Path(program).parent if isinstance(program, os.PathLike) else Path.cwd()


def _terms_of(prog):
    """The term dictionary of the program's own fact columns (the file columns share it)."""
    return prog.fact_columns[0].terms if prog.fact_columns else None


def _same_widths(columns) -> bool:
    """Whether every predicate has one arity across ``columns`` (else the
    rows' reading names both places)."""
    from chronolog.language.fact_columns import _Fallback

    widths: dict = {}
    try:
        return all(widths.setdefault(p, fc.width(p)) == fc.width(p) for fc in columns for p in fc.predicates())
    except _Fallback:
        return False


def _fact_columns(facts, dialect: str, calendar=None, terms=None):
    """Fact files read by the kernel reader and kept as its columns (a list
    of FactColumns), or None when the rows' reading applies: small files
    (no polars import for them), other kinds of input, or a file the
    kernels cannot take whole.  Facts that repeat forever
    (``every``) are among the exact parser's rows (``fc.slow.repeating``):
    :func:`_repeating_apart` hands them to the rows.  LARS facts are
    Vadalog's text at ticks: read so, then ticked (language/lars.py)."""
    if dialect == "lars":
        if calendar is not None:
            return None
        got = _fact_columns(facts, "vadalog", calendar, terms)
        if got is None:
            return None
        from chronolog.language.lars import columns_in_ticks

        return got if all(columns_in_ticks(fc) for fc in got) else None
    if dialect not in ("vadalog", "meteor"):
        return None
    if isinstance(facts, str):
        from chronolog.connectors.fact_tables import are_records

        if are_records(facts):  # (JSON records: load_facts reads them)
            return None
    if isinstance(facts, str) and len(facts) >= KERNEL_BYTES:
        return _text_columns(facts, dialect, calendar, terms)
    if isinstance(facts, (list, tuple)) and len(facts) > 1 and all(type(x) is str for x in facts):
        text = "\n".join(facts)  # (fact lines: one text, its lines theirs, when none holds a line end)
        if len(text) >= KERNEL_BYTES and text.count("\n") == len(facts) - 1 and "\r" not in text:
            return _text_columns(text, dialect, calendar, terms)
        return None
    paths = [facts] if isinstance(facts, os.PathLike) else facts if isinstance(facts, (list, tuple)) else None
    if not paths or not all(isinstance(p, os.PathLike) for p in paths):
        return None
    from chronolog.connectors.fact_csv import is_fact_csv
    from chronolog.connectors.fact_tables import is_fact_json
    from chronolog.connectors.paths import exists

    try:
        # (together: 200 files of 22 KB each went through the line reader and the rows, 7x the CPU of one file)
        if not all(exists(p, "facts file") and os.path.isfile(p) for p in paths):
            return None
        from chronolog.language.compressed import is_compressed

        if sum(os.stat(p).st_size for p in paths) < KERNEL_BYTES and not any(map(is_compressed, paths)):  # (a compressed file's text is larger)
            return None
    except (OSError, ChronologError):
        return None  # the rows' reading reports it
    from pathlib import Path

    paths = [Path(p) for p in paths]  # (the kernel reader's; a small run imports no pathlib)
    if any(map(is_fact_json, paths)):
        return _json_columns(paths[0], dialect, calendar, terms) if len(paths) == 1 else None
    from chronolog.language import allocators

    kinds = [is_fact_csv(p) for p in paths]
    if not all(kinds):  # (CSV files alone: Arrow's reader before polars' import, whose heap it would sit above: 1M rows' peak 298 -> 266 MB)
        with allocators.settled():  # (a command: the libraries' objects out of the collector's walks)
            import numpy  # noqa: F401  (the kernels': here, not first in a reader thread)
            import polars  # noqa: F401

    with allocators.settled():  # (as the program's: the reader's parts live to the run's end; 10,000 predicates' parts met two collections)
        if not any(kinds):
            return _read_columns(paths, dialect, calendar, terms)
        return _each_kind_columns(paths, kinds, dialect, calendar, terms)


def _each_kind_columns(paths, kinds, dialect: str, calendar=None, terms=None):
    """Fact files of which some are CSV files of many predicates (``kinds``:
    which), each run of consecutive files of one kind read by its own
    kernels into columns coded by one Dictionary, in the files' order; None
    when the rows' reading applies (a fact text the kernels leave, a
    predicate of two arities in two files: it names both places)."""
    from itertools import groupby

    from chronolog.engine.columns.encoding import Dictionary
    from chronolog.language.fact_columns import line_counts, restore_line_counts

    if terms is None:
        terms = Dictionary()  # the run's term codes, shared with the columnar executor
    counts = line_counts()
    out = []
    for csv, run in groupby(zip(paths, kinds), key=lambda pk: pk[1]):
        run = [p for p, _ in run]
        got = [_csv_columns(p, calendar, terms) for p in run] if csv else _kernel_columns(run, dialect, calendar, terms)
        if got is None:
            restore_line_counts(counts)
            return None
        out += got
    if not _same_widths(out):
        restore_line_counts(counts)
        return None
    return out


def _csv_columns(path, calendar, terms):
    """A CSV file of many predicates (as ``run --format csv`` writes it) read
    by kernels (connectors/fact_csv_columns.py) as a FactColumns; where they
    leave it (a small file, a form the csv module reads otherwise), its rows
    by the row reader as the FactColumns' parsed facts."""
    from chronolog.connectors import fact_csv
    from chronolog.connectors.fact_csv_columns import read_columns
    from chronolog.language.fact_columns import FactColumns

    fc = read_columns(path, calendar, terms)
    if fc is None:
        fc = FactColumns()
        fc.terms = terms
        fc.slow = fact_csv.read_rows(path, calendar)
    return fc


def _json_columns(path, dialect: str, calendar=None, terms=None):
    """A file of JSON records (connectors/fact_json.py) read as the fact
    text they hold, by kernels, the records without a text among its rows;
    None when the rows' reading applies."""
    from chronolog.connectors.fact_json import read_records
    from chronolog.language.source_text import read_text

    def kernels(lines, source, calendar):
        return _text_columns(NamedText("\n".join(lines), source), dialect, calendar, terms)

    got, rows = read_records(read_text(path, "facts file"), str(path), calendar, kernels)
    if not got:
        return None  # (the rows' reading)
    got[0].slow.merge(rows)
    return got


def _text_columns(text: str, dialect: str, calendar=None, terms=None):
    """Fact text of a file's size read as a file is (a million lines given
    as a str took the line reader 5.6 s of CPU, the same file 0.8 s);
    None when the rows' reading applies."""
    import io

    from chronolog.language import allocators
    from chronolog.language.source_text import plain_text

    source = text.source if isinstance(text, NamedText) else "<facts>"
    data = io.BytesIO(plain_text(text).encode("utf-8"))  # (in blocks, read by the reader threads)
    with allocators.settled():  # (as a file's: numpy and polars out of the collector's walks)
        import numpy  # noqa: F401
        import polars  # noqa: F401

        return _read_columns([], dialect, calendar, terms, inputs=[(source, data)])


def _read_columns(paths, dialect: str, calendar=None, terms=None, inputs=None):
    """The kernel reading of :func:`_fact_columns` (None: the rows' reading
    applies, and counts the lines it reads for ``--stats`` instead)."""
    from chronolog.language.fact_columns import line_counts, restore_line_counts

    counts = line_counts()
    out = _kernel_columns(paths, dialect, calendar, terms, inputs)
    if out is None:
        restore_line_counts(counts)
    return out


def _kernel_columns(paths, dialect: str, calendar=None, terms=None, inputs=None):
    """``inputs``: ``(source, text or file)`` pairs read instead of the
    files ``paths`` (fact text given as a str: :func:`_text_columns`)."""
    from chronolog.language import joined_files
    from chronolog.language.fact_columns import _Fallback, read_fact_columns, read_file_columns

    from chronolog.engine.columns.encoding import Dictionary

    out = []
    widths: dict = {}
    if terms is None:
        terms = Dictionary()  # the run's term codes, shared with the columnar executor
    try:
        # consecutive small files joined into one text (their lines named by file)
        for source, text in joined_files.inputs(paths) if inputs is None else inputs:
            memos = out[-1] if out else None
            if text is None:
                fc = read_file_columns(source, dialect, calendar, share=False, terms=terms, memos=memos)
            else:
                fc = read_fact_columns(text, source, dialect, calendar, share=False, terms=terms, memos=memos)
            for pred, width in fc.widths().items():
                if widths.setdefault(pred, width) != width:
                    return None  # the rows' reading names both places
            out.append(fc)
    except (_Fallback, OSError):
        return None  # the rows' reading says why, where
    return out


def _repeating_apart(columns, rows) -> None:
    """Move the facts that repeat forever from the kernel-read ``columns``
    to ``rows`` (FactRows), where the Reasoner reads them: one ``every``
    line leaves the rest of its file in columns, read once."""
    for fc in columns or ():
        for pred, lst in fc.slow.repeating.items():
            for terms, iv, every, pos in lst:
                rows.add(pred, terms, iv, pos, every)
        fc.slow.repeating = {}


def _tables_read(facts):
    """``facts`` with each value that is not rows or text given to
    frames.read_table_like (frames imported only then)."""
    plain = (str, list, tuple, os.PathLike)
    if isinstance(facts, dict):
        if all(isinstance(v, plain) for v in facts.values()):
            return facts
        from chronolog.frames import read_table_like

        return {p: v if isinstance(v, plain) else read_table_like(v, p) for p, v in facts.items()}
    if facts is None or isinstance(facts, plain):
        return facts
    from chronolog.frames import read_table_like

    return read_table_like(facts)


def placed_times(program, facts, closed=None):
    """``facts`` with their tables' times placed (chronolog.frames.place_times)
    where the program's ``@timeMapping`` or ``closed`` asks for it; else as
    they are, frames left unimported (a small run's start: tests/test_start_up.py).
    Tables of other libraries and Polars LazyFrames are read first
    (frames.read_table_like)."""
    facts = _tables_read(facts)
    if closed is None and not any(a.name == "timeMapping" for a in program.annotations):
        return facts
    from chronolog.frames import place_times

    return place_times(program, facts, closed)


def check_tables(program, facts) -> None:
    """Tables given as ``{pred: table}`` whose columns the program's
    ``@mapping`` names in another order: arguments are read in the
    table's column order, so each would take another's values.  And a
    note for a table whose intervals, closed at both ends by default, meet
    (:func:`chronolog.frames.closed_ends_meet`)."""
    if not isinstance(facts, dict):
        return
    from chronolog import frames

    for pred, items in facts.items():
        if frames.is_table(items) and not len(items):
            _refuse_empty_of_other_arity(program, pred, items)
        if frames.is_table(items):
            met = frames.closed_ends_meet(items)
            if met is not None:
                import warnings

                from chronolog.language.errors import Note

                warnings.warn(Note(
                    f"facts[{pred!r}]: the table has no start_closed and end_closed columns, so its intervals are closed "
                    f"at both ends, and one ends at {met} where another starts: both hold at {met} (for intervals "
                    "[start, end), as pandas and SQL ranges mean, pass closed=\"left\" or add a column end_closed=False)"), stacklevel=3)
    if not any(a.name == "mapping" for a in program.annotations):
        return
    from chronolog.connectors.bindings import check_mapped_header

    for pred, items in facts.items():
        if frames.is_table(items):
            names = items.column_names if hasattr(items, "column_names") else items.columns  # (Arrow; pandas, Polars)
            check_mapped_header(program, pred, [str(c) for c in names], None)


def note_zoned_times(program, facts) -> None:
    """A note for a table given with times in a zone other than UTC to a
    program that groups by days, weeks, months or years: the times are
    read as UTC instants and the periods are UTC's, so such a day is not
    the zone's (pandas' resample of a zoned index groups the zone's)."""
    if not isinstance(facts, dict):
        return
    from chronolog.language.dates import calendar_groupings

    grouped = calendar_groupings(program)
    if not grouped:
        return
    from chronolog import frames  # (only here: a ten-fact run imports no frames, tests/test_start_up.py)

    for pred, items in facts.items():
        zoned = frames.zoned_column(items) if frames.is_table(items) else None
        if zoned is not None:
            import warnings

            from chronolog.language.errors import Note

            col, zone = zoned
            warnings.warn(Note(
                f"facts[{pred!r}]: the column {col} holds times in {zone}, read as UTC instants, and the program groups "
                f"by {grouped[0]}, whose periods are UTC's, not {zone}'s (for {zone}'s periods, as pandas' resample gives "
                f"them, pass the wall clock: df[{col!r}].dt.tz_convert({zone!r}).dt.tz_localize(None))"), stacklevel=4)


def _refuse_empty_of_other_arity(program, pred: str, table) -> None:
    """An empty table whose argument columns are not ``pred``'s arity, as
    one with rows is refused (it was taken as no facts), by its columns (a
    table without its time columns is left to the error naming them)."""
    from chronolog.frames import as_table
    from chronolog.planner.validate import collect_arities

    names = as_table(table, pred).schema.names
    if {"start", "end"} <= set(names):
        width = len([n for n in names if n not in ("start", "end", "start_closed", "end_closed")])
        rows = FactRows()
        rows.add(pred, (None,) * width, (0, 0, True, True), ast.Pos(f"facts[{pred!r}]"))
        collect_arities(program, rows)


def _table_facts(facts, dialect: str, calendar=None, min_rows=None):
    """``{pred: table}`` facts (Arrow tables and record batches, pandas and
    Polars DataFrames; or one frame with a ``pred`` column) read straight
    into columns (connectors/table_columns.py): ``(list of FactColumns,
    FactRows of the rest)``, or None for other kinds of facts.  ``min_rows``:
    the smallest table read so (None: none is, as for ``engine="rows"``).
    Tables the columns cannot take whole (a null, a timestamp, an unbounded
    end, number text, ...) and lists of rows are read as rows, predicate by
    predicate in the dict's order, so the first bad value is reported as
    the rows' reading reports it.  Values already read (a FactColumns or
    a FactRows: a Spark task's tables, connectors/distributed.py) are taken
    as they are."""
    if facts is None or isinstance(facts, FactRows):
        return None
    from chronolog import frames
    from chronolog.language.fact_columns import FactColumns

    if isinstance(facts, dict):
        if min_rows is None and not any(isinstance(v, (FactColumns, FactRows)) for v in facts.values()):
            return None  # (the rows' reading of them all)
    elif min_rows is None or not frames.is_frame(facts):
        return None
    from chronolog import arguments

    arguments.check_facts(facts)
    if not isinstance(facts, dict):
        from chronolog.language.nulls import reading_file

        with reading_file():  # (one scope for the frame's labelled nulls, as load_facts reads it)
            return _table_facts(frames.split_by_pred(facts), dialect, calendar, min_rows)
    columns, rest = [], FactRows()
    for pred, items in facts.items():
        if isinstance(items, FactColumns):
            if min_rows is not None and dialect != "lars":
                columns.append(items)
            else:
                rest.merge(items.rows())
            continue
        if isinstance(items, FactRows):
            rest.merge(items)
            continue
        if min_rows is not None and frames.is_table(items):
            arguments.check_predicate_name(pred, dialect=dialect)
            table = frames.as_table(items, pred)
            fc = _in_dialects_time(_table_columns(table, pred, calendar, min_rows), dialect)
            if fc is not None:
                columns.append(fc)
                continue
            if not frames.has_exact_columns(table):  # (read as it is: converted once)
                items = table
        elif min_rows is not None and isinstance(items, list) and len(items) >= max(min_rows, 1):
            arguments.check_predicate_name(pred, dialect=dialect)
            table = _plain_table(items, calendar)
            fc = _in_dialects_time(_table_columns(table, pred, calendar, min_rows), dialect) if table is not None else None
            if fc is not None:
                columns.append(fc)
                continue
        rest.merge(load_facts({pred: items}, dialect, calendar))
    return columns, rest


def _in_dialects_time(fc, dialect: str):
    """A table's FactColumns on the dialect's time: LARS's at ticks (start 5,
    end 7 is ticks 5 to 7, ``[5,8)``), or None where a row is off them (the
    rows' reading names it)."""
    if fc is None or dialect != "lars":
        return fc
    from chronolog.language.lars import columns_in_ticks

    return fc if columns_in_ticks(fc) else None


def _plain_table(items, calendar=None):
    """A list of rows of the plain forms (:func:`_plain_rows`) as an Arrow
    table of given facts, read straight into columns as a table is (on
    rows, 20,000 such rows took 4x, 200,000 10x the time of the same facts
    as a table): each term column of one kind (strings, 64-bit ints or
    floats); ends whole, or the floats that print as them, or on a date
    timeline datetimes or dates; else None (read as rows)."""
    import datetime as dt
    from operator import attrgetter, itemgetter

    rows = _plain_rows(items, calendar, points=False)
    if rows is None:
        return None
    import numpy as np
    import pyarrow as pa

    from fractions import Fraction

    from chronolog.language.float_times import float_time_pairs

    def column(values, end=False):
        kinds = set(map(type, values))
        if kinds == {str}:
            return pa.array(values, pa.string())
        if kinds == {int} and -(1 << 63) <= min(values) and max(values) < (1 << 63):
            return pa.array(values, pa.int64())
        if kinds == {float} and not end:
            return pa.array(values, pa.float64())
        if end and calendar is None and kinds <= {int, Fraction}:  # (times between whole numbers: the floats that print as them)
            floats = np.array(list(map(float, values)))
            num, den, ok = float_time_pairs(floats)
            try:
                same = (ok.all() and np.array_equal(num, np.fromiter(map(attrgetter("numerator"), values), np.int64, len(values)))
                        and np.array_equal(den, np.fromiter(map(attrgetter("denominator"), values), np.int64, len(values))))
            except OverflowError:  # (past 64 bits)
                same = False
            if same:
                return pa.array(floats, pa.float64())
        if end and kinds == {dt.datetime}:
            return pa.array(values, pa.timestamp("us"))
        if end and kinds == {dt.date}:
            return pa.array(values, pa.date32())
        return None

    terms = [t for t, _ in rows]
    ivs = [iv for _, iv in rows]
    arrays = [column(list(map(itemgetter(j), terms))) for j in range(len(terms[0]))]
    if any(a is None for a in arrays):
        return None
    ends = [list(map(itemgetter(k), ivs)) for k in (0, 1)]
    scale = None
    kinds = set(map(type, ends[0])) | set(map(type, ends[1]))
    if calendar is None and Fraction in kinds and kinds <= {int, Fraction}:
        # ends between whole numbers: whole multiples of 1/scale, the least common denominator (exact, 1/3 too)
        times, scale = _scaled_times(*ends)
        if times is None:  # (past 62 bits: as floats where they print as the ends)
            times = [column(e, end=True) for e in ends]
    else:
        times = [column(e, end=True) for e in ends]
    if any(t is None for t in times):
        return None
    arrays += times
    arrays += [pa.array([iv[k] if len(iv) == 4 else True for iv in ivs], pa.bool_()) for k in (2, 3)]
    names = [f"c{j}" for j in range(len(terms[0]))] + ["start", "end", "start_closed", "end_closed"]
    table = pa.Table.from_arrays(arrays, names=names)
    if scale is not None:
        from chronolog.connectors.table_columns import with_time_scale

        table = with_time_scale(table, scale)
    return table


def _scaled_times(starts: list, ends: list):
    """Exact ends (ints and Fractions) as int64 columns of whole multiples of
    ``1/scale``, the least common denominator, and ``scale``; ``(None, None)``
    where they would leave 62 bits."""
    import math
    from operator import attrgetter

    import numpy as np
    import pyarrow as pa

    values = starts + ends
    try:
        num = np.fromiter(map(attrgetter("numerator"), values), np.int64, len(values))
        den = np.fromiter(map(attrgetter("denominator"), values), np.int64, len(values))
    except OverflowError:
        return None, None
    scale = math.lcm(*np.unique(den).tolist())
    widest = int(np.abs(num).max(initial=0)) * scale  # (|num/den| * scale <= |num| * scale)
    if widest >= 1 << 62:
        return None, None
    units = num * (scale // den)
    n = len(starts)
    return [pa.array(units[:n], pa.int64()), pa.array(units[n:], pa.int64())], scale


def _table_columns(table, pred: str, calendar, min_rows: int):
    """One table (:func:`chronolog.frames.as_table`'s) as a FactColumns, or
    None when the rows' reading applies."""
    from chronolog.connectors.table_columns import read_table_columns

    return read_table_columns(table, pred, ast.Pos(f"facts[{pred!r}]"), calendar, min_rows, in_memory=True)


def _with_shapes(extra: FactRows, columns) -> FactRows:
    """``extra`` plus one row per predicate of ``columns``: what planning
    reads of the given facts (their arities and where they are)."""
    if not columns:
        return extra
    out = FactRows()
    out.merge(extra)
    for fc in columns:
        out.merge(fc.shape())
    return out


def _has_existentials(prog) -> bool:
    from chronolog.planner.existential import existential_variables

    return any(existential_variables(r) for r in prog.rules)


def _without_null_labels(facts) -> bool:
    """Whether ``facts`` holds no FactColumns read before the run (a Spark
    task's): the chase names its nulls past every label the given facts
    use, and the run notes those of what it reads itself (nulls.labels_read),
    not of columns read before it.  A table never holds one in columns (a
    column of term text is read as rows: connectors/table_columns.py)."""
    if isinstance(facts, dict):
        read = sys.modules.get("chronolog.language.fact_columns")  # (none made unless imported)
        return read is None or not any(isinstance(v, read.FactColumns) for v in facts.values())
    return True


class _Changes:
    """Small changes waiting for a predicate's rows, folded into their net
    effect: the rows minus ``holes`` (terms -> a tuple of intervals), plus
    ``added`` (terms -> a tuple of intervals).  A hole arriving after an addition
    is cut from the addition too, so a session of many small updates of the
    same facts (amends, a stream of corrections) keeps them the size of the
    atoms changed: a list of every update's changes grew by two entries an
    amend.  Tuples, not lists, on both sides: a tuple of numbers is one the garbage
    collector stops tracking, so a session's waiting changes do not bring
    on full collections (a list per atom added did, every ~4 updates of 1%
    of LUBM 1M, ~0.1 s each in a host holding a million objects)."""

    __slots__ = ("holes", "added")
    TIDY = 8  # an atom's holes coalesced once it has more (repeated retractions of one atom)
    FOLD = 1000  # changes of at most this many atoms are folded (larger ones wait as they are)

    def __init__(self):
        self.holes: dict = {}
        self.added: dict = {}

    def take_back(self, holes: dict) -> None:
        from chronolog.engine.rows.maintenance import without
        from chronolog.language.timeline import coalesce

        added = self.added
        for terms, ivs in holes.items():
            old = self.holes.get(terms)
            ivs = tuple(ivs) if old is None else old + tuple(ivs)
            self.holes[terms] = tuple(coalesce(ivs)) if len(ivs) > _Changes.TIDY else ivs
            if terms in added:
                left = without(added[terms], holes[terms])
                if left:
                    added[terms] = tuple(left)
                else:
                    del added[terms]

    def add(self, rows) -> None:
        added = self.added
        for terms, iv in rows:
            added[terms] = added.get(terms, ()) + (iv,)

    def steps(self) -> list:
        """The net effect as changes to apply in order."""
        return [("holes", self.holes), ("rows", [(terms, iv) for terms, ivs in self.added.items() for iv in ivs])]


class _GivenRows(dict):
    """The given facts as rows (``pred -> [(terms, interval)]``), for a
    proof's re-run or an update that recomputes; facts still in the kernel
    reader's columns become rows only when one of those asks, predicate by
    predicate, and a retraction (:meth:`take_back`) or an addition
    (:meth:`add_rows`) is applied to a predicate's rows only then (an
    update costs what it changes)."""

    def __init__(self, rows, columns=None):
        super().__init__(rows)
        self._columns = columns
        self._filled: set = set()
        self._pending: dict = {}  # pred -> [("holes", {terms: intervals}) | ("rows", rows) | _Changes] not applied yet, in order

    def _fill_one(self, pred):
        if self._columns and pred not in self._filled:
            self._filled.add(pred)
            for fc in self._columns:
                if pred in fc.predicates():
                    dict.setdefault(self, pred, []).extend(fc.pred_rows(pred))
        pending = self._pending.pop(pred, None)
        if pending:
            from chronolog.corrections import without_holes

            rows = dict.get(self, pred) or []
            steps = [s for c in pending for s in (c.steps() if type(c) is _Changes else [c])]
            if hasattr(rows, "take_back"):  # (a GivenAtoms: by atom, in place; a GivenColumns stays one)
                for kind, x in steps:
                    rows.take_back(x) if kind == "holes" else rows.extend(x)
                return
            for kind, x in steps:
                rows = without_holes(rows, x) if kind == "holes" else rows + list(x)
            dict.__setitem__(self, pred, rows)

    def columns_only(self, pred) -> bool:
        """Whether ``pred``'s rows are the fact columns' alone, not made yet
        (engine/columns/evaluator.py keeps them as a frame instead: put)."""
        return bool(self._columns) and pred not in self._filled and not dict.get(self, pred) and pred not in self._pending

    def atom_rows(self, pred, terms):
        """The given rows of one atom, read from the fact columns without
        making the predicate's other rows where its rows are theirs alone
        (:meth:`columns_only`), else None."""
        if not self.columns_only(pred):
            return None
        return [r for fc in self._columns if pred in fc.predicates() for r in fc.atom_rows(pred, terms)]

    def put(self, pred, given) -> None:
        """``pred``'s given facts are ``given`` (the columns not read again,
        the changes waiting for its rows dropped: ``given`` has them)."""
        self._filled.add(pred)
        self._pending.pop(pred, None)
        dict.__setitem__(self, pred, given)

    def waiting(self, pred) -> bool:
        """Whether changes wait to be applied to ``pred``'s rows."""
        return pred in self._pending

    def _fill(self):
        preds = {p for fc in self._columns for p in fc.predicates()} if self._columns else set()
        for pred in preds | set(self._pending):
            self._fill_one(pred)

    def take_back(self, pred, holes) -> None:
        """Retract ``holes`` (terms -> intervals) from ``pred``'s rows."""
        self._wait(pred, "holes", holes)

    def add_rows(self, pred, rows) -> None:
        """Add ``rows`` (``(terms, interval)``) to ``pred``'s rows."""
        self._wait(pred, "rows", rows)

    def _wait(self, pred, kind, x) -> None:
        """A change waits, in order: a small one by atoms (a dict or list of
        at most FOLD atoms: amends, an update by atoms) folded into the last
        entry's net effect, any other as it is: a retraction on frames
        comes as a frame made rows only when read (AtomsLater: folding it
        cost a 1% retraction of LUBM 1M 15-30 ms), compact beside rows."""
        waiting = self._pending.setdefault(pred, [])
        if type(x) not in (dict, list) or len(x) > _Changes.FOLD:
            waiting.append((kind, x))
            return
        if not waiting or type(waiting[-1]) is not _Changes:
            waiting.append(_Changes())
        waiting[-1].take_back(x) if kind == "holes" else waiting[-1].add(x)

    def __getitem__(self, k):
        self._fill_one(k)
        return super().__getitem__(k)

    def __iter__(self):
        self._fill()
        return super().__iter__()

    def __contains__(self, k):
        self._fill_one(k)
        return super().__contains__(k)

    def __len__(self):
        self._fill()
        return super().__len__()

    def get(self, k, default=None):
        self._fill_one(k)
        return super().get(k, default)

    def setdefault(self, k, default=None):
        self._fill_one(k)
        return super().setdefault(k, default)

    def items(self):
        self._fill()
        return super().items()

    def keys(self):
        self._fill()
        return super().keys()

    def values(self):
        self._fill()
        return super().values()


def _repeating_rows(rows) -> list:
    """``(pred, terms, interval, period)`` of the repeating facts in rows."""
    return [(p, t, iv, every) for p, lst in getattr(rows, "repeating", {}).items() for t, iv, every, _ in lst]


def _text_date(text: str, where: str):
    """An end of a window or interval given as ISO text on a date timeline
    (as a query or ``--window`` writes it, and pandas slices by): the date
    or datetime it spells, or ±inf; other text is left for the check to
    refuse."""
    from chronolog.language.dates import DATE_RE, date_problem, parse_date
    from chronolog.language.errors import ArgumentError

    t = text.strip()
    low = t.lower().lstrip("+")
    if low in ("inf", "-inf"):
        return math.inf if low == "inf" else -math.inf
    if not DATE_RE.match(t):
        return text
    try:
        value, cycles, _ = parse_date(t)
    except ValueError as e:
        message, hint = date_problem(e, f"{where}: {text!r} is not a date", "write 2020-01-31 or 2020-01-31T12:30:00", t)
        raise ArgumentError(message, hint=hint) from None
    return text if cycles else value


def _interval(iv, calendar=None, where="interval"):
    if where == "window" and isinstance(iv, str) and "," in iv:
        return parse_horizon(iv, calendar, where)  # "FROM,TO", as a horizon reads it
    from chronolog.arguments import check_interval, plain_interval
    from chronolog.language.timeline import make, why_empty

    from chronolog.language.dates import to_points
    from chronolog.language.float_times import exact_interval

    iv = plain_interval(iv)  # (numpy numbers: a DataFrame row's cells)
    if calendar is not None and where in ("window", "interval") and isinstance(iv, (tuple, list)):
        iv = tuple(_text_date(x, where) if isinstance(x, str) else x for x in iv)  # ("2024-01-01", "2024-02-01")
    check_interval(iv, where)

    try:
        iv = to_points(tuple(iv) if isinstance(iv, list) else iv, calendar)
    except DataError as e:
        if e.pos is not None or where in ("window", "interval"):
            raise
        raise DataError(f"{where}: {e.message}", hint=e.hint) from None  # (the row, as the other errors of a row name it)
    iv = exact_interval(iv)  # a float end is the number its text shows (0.1 is 1/10)
    if isinstance(iv, tuple) and len(iv) == 4:
        ends = iv
    elif isinstance(iv, tuple) and len(iv) == 2:
        ends = (iv[0], iv[1], True, True)
    else:
        ends = (iv, iv, True, True)
    r = make(*ends)
    if r is None:
        raise DataError(f"{where}: the interval {iv!r} is empty",
                        hint=why_empty(*ends) + "; intervals are (start, end) or (start, end, start_closed, end_closed)")
    return r


def _format_period(per, calendar) -> str:
    """A repetition's period: a number of time units, or on a date timeline
    an ISO-8601 duration (``P30D``, ``PT12H``; negative: ``-P1D``)."""
    from chronolog.language.timeline import format_number

    if calendar is None:
        return format_number(per)
    from fractions import Fraction

    sign = "-" if per < 0 else ""
    seconds = abs(Fraction(per)) * calendar.unit_seconds
    for size, fmt in ((86400, "P{}D"), (3600, "PT{}H"), (60, "PT{}M"), (1, "PT{}S")):
        if (seconds / size).denominator == 1:
            return sign + fmt.format(int(seconds / size))
    return sign + "PT" + format_number(seconds) + "S"


def placed_at_origin(err, prog, dialect: str, base_dir, tables=None, rows=None):
    """``err`` (a comparison's or a built-in's error, with ``operands``)
    placed at the input row of ``prog``'s program facts or bound files, or
    of the ``tables`` given as ``inputs`` (``{pred: Arrow or pandas}``),
    or that ``rows(pred, i, value)`` finds (a Spark DataFrame's), that gave
    one of its values (chronolog/value_origin.py), for the Spark
    connector, a layer below, which gets the API as ``embedded``."""
    from chronolog.value_origin import with_origin

    return with_origin(err, prog, tables or None, dialect, prog.calendar, base_dir, name="inputs", rows=rows)


def refuse_unknown_predicate(pred: str, known, what: str, facts: str = "its facts") -> None:
    """The API's error for a predicate that neither the program nor its
    facts name, for the Spark connector a layer below (its ``outputs=``)."""
    from chronolog import arguments

    arguments.refuse_unknown_predicate(pred, known, what, facts)


def parse_horizon(h, calendar=None, what="horizon"):
    """``(lo, hi)`` or ``"lo,hi"`` -> the closed interval tuple (dates on a
    calendar timeline); ``what`` names it in errors (``--window``)."""
    if h is None:
        return None
    from chronolog.arguments import check_horizon, plain_interval

    if isinstance(h, (tuple, list)):
        h = plain_interval(h)  # (numpy numbers: the values they hold)
    check_horizon(h, what, calendar)
    if calendar is not None:
        from chronolog.language.dates import horizon_points

        h = horizon_points(h, calendar, what)
    if isinstance(h, str):
        from chronolog.language.dates import DATE_RE

        parts = h.split(",")
        if len(parts) != 2:
            raise ProgramError(f"bad {what} {h!r}", hint="write it as FROM,TO, e.g. 0,1000")
        if dated := [p.strip() for p in parts if DATE_RE.match(p.strip())]:
            raise ProgramError(f"bad {what} {h!r}: {dated[0]} is a date, but this program's timeline is numeric",
                               hint='write both ends as numbers, e.g. 0,1000, or declare @timeGranularity("days"). in the program')
        try:
            h = tuple(parse_number(p) for p in parts)
        except ValueError:
            raise ProgramError(f"bad {what} {h!r}", hint="write it as FROM,TO with numbers, e.g. 0,1000") from None
    from chronolog.language.float_times import exact_time

    lo, hi = exact_time(h[0]), exact_time(h[1])
    if lo > hi:
        shown = (calendar.format_point(lo), calendar.format_point(hi)) if calendar is not None else (lo, hi)
        raise ProgramError(f"bad {what}: {shown[0]} > {shown[1]}", hint="FROM must not be after TO")
    from chronolog.language.timeline import format_number, make, why_empty

    iv = make(lo, hi, True, True)
    if iv is None:  # [+inf,+inf]: no time point (None would read as no horizon at all)
        raise ProgramError(f"bad {what}: from {format_number(lo)} to {format_number(hi)} holds no time point", hint=why_empty(lo, hi))
    return iv


def reason(
    program: str | os.PathLike | ast.Program,
    facts=None,
    *,
    dialect: str = "vadalog",
    horizon=None,
    source: str | None = None,
    strategy: str | None = None,
    placement: str | None = None,
    explain: bool = False,
    base_dir: os.PathLike | None = None,
    max_rounds: int | None = None,
    progress=None,
    engine: str | None = None,
    closed=None,
) -> "Model":
    """Evaluate ``program`` over its own facts plus ``facts``; return the model.

    ``facts``: fact text (one fact per line, trailing '.' optional), a Path to
    such a file, an iterable of lines, a list of Paths, or a dict
    ``{pred: [(terms_tuple, interval), ...]}`` where an interval is
    ``(start, end)`` (closed) or ``(start, end, start_closed, end_closed)``,
    or ``{pred: pyarrow.Table | pandas.DataFrame}`` in the layout of
    :meth:`Model.to_arrow`.
    ``horizon``: ``(from, to)``; derived facts are confined to it.  Programs
    whose recursion moves time need one (or ``@temporal(from, to).``).
    ``strategy``: the merge strategy, ``"blocking"`` or ``"streaming"``;
    ``placement``: which given facts are coalesced at load, ``"always"``,
    ``"earliest"`` or ``"minimal"`` (both default to ``@config`` in the
    program, then to the measured best).  The answer is the same.
    ``explain``: record one derivation per derived piece (``Model.explain``).
    ``max_rounds``: how many rounds a recursion that may not end (one that
    moves through time or creates values) may take before it is reported
    as not reaching a fixpoint (default 100,000); plain rules always end.
    ``engine``: ``"auto"`` (default; the environment variable
    ``CHRONOLOG_ENGINE`` overrides it), ``"rows"`` or ``"columns"``: which
    executor runs the strata the columnar executor supports (others always
    run on rows; ``chronolog plan`` says which run where).  Same model.
    ``progress``: True draws a progress bar on standard error; a callable
    is called with a ``chronolog.progress.Progress`` after every round.
    ``closed``: which ends of the intervals of tables given as facts without
    ``start_closed``/``end_closed`` columns are closed: ``"both"`` (the
    default), ``"left"`` (``[start, end)``, as pandas and SQL ranges),
    ``"right"`` or ``"neither"``; or a dict of them by predicate.
    """
    from chronolog.arrow_import import without_pandas
    from chronolog.progress import reporter

    with reporter(progress) as report, without_pandas():  # (pyarrow's first import, if any, without pandas')
        return _Answer(
            program, facts, dialect=dialect, horizon=horizon, source=source,
            strategy=strategy, placement=placement, explain=explain, base_dir=base_dir,
            max_rounds=max_rounds, progress=report, engine=engine, closed=closed,
        ).model


def _analysis_under_way():
    """EXPLAIN ANALYZE's record (engine/analysis.py) when one is under way,
    else None: a plain run does not import the module to ask
    (tests/test_start_up.py)."""
    analysis = sys.modules.get("chronolog.engine.analysis")
    return analysis.current() if analysis is not None else None


class Reasoner:
    """A reasoning session: the least model now, kept up to date as facts arrive.

        >>> r = Reasoner("q(X) :- <->[0,1] p(X).", "p(a)@0")
        >>> r.add("p(b)@5").to_text()
        'q(a)@[0,1]\nq(b)@[5,6]'

    Updates (``add``, ``retract``, ``amend``, ``update``) keep the model
    stratum by stratum: new facts continue seminaively, retracted ones are
    deleted and re-derived (engine/rows/maintenance.py, or
    engine/columns/maintenance.py when every stratum ran on columns); a
    stratum that negates or aggregates what changed is recomputed.
    """

    @in_dialect  # (its hints in its dialect: a LARS program has no dates, a MeTeoR program no annotations)
    def __init__(
        self,
        program,
        facts=None,
        *,
        dialect: str = "vadalog",
        horizon=None,
        source: str | None = None,
        strategy: str | None = None,
        placement: str | None = None,
        explain: bool = False,
        base_dir: os.PathLike | None = None,
        max_rounds: int | None = None,
        progress=None,
        engine: str | None = None,
        closed=None,
    ):
        from chronolog.arguments import check_choice, check_max_rounds
        from chronolog.planner.input_size import engine_choice

        check_choice("dialect", dialect, DIALECTS)
        check_max_rounds(max_rounds)
        self.max_rounds = max_rounds
        self.dialect = dialect
        self._base_of = (base_dir, program)  # (an update's data error reads bound files again from there: value_origin.py)
        self._progress = progress  # a callback (chronolog/progress.py)
        self.engine = engine_choice(engine)
        from chronolog.language import allocators

        with allocators.settled():  # (a command: the program's objects live to its end, out of the collector's walks)
            prog = load_program(program, dialect=dialect, source=source, facts_apart=True)
        self._closed = closed
        facts = _tables_read(facts)  # (other libraries' tables as Arrow, before closed= looks for tables)
        if closed is not None and not self.updates_follow:  # (a session's updates may bring its tables)
            from chronolog.frames import check_closed_read

            check_closed_read(facts, closed)
        note_zoned_times(prog, facts)
        facts = placed_times(prog, facts, closed)  # (@timeMapping and closed= of tables: their times by name)
        check_tables(prog, facts)
        # large fact files stay in the kernel reader's columns (no Python row
        # per fact) when the columnar executor may read them; the labels of
        # the labelled nulls they hold are noted as read (the chase names its
        # nulls past them: ``labels``)
        from chronolog.language.nulls import labels_read

        with labels_read() as labels:
            columns, extra = self._read_facts(prog, facts, dialect, base_dir, program, explain)
        if getattr(prog, "tuple_windows", None):  # LARS tuple windows filter the input
            from chronolog.language.lars import tuple_window_rows

            for pred, rows in tuple_window_rows(prog, extra).items():  # input facts only, as on a stream
                for terms, iv in rows:
                    extra.add(pred, terms, iv, ast.NOWHERE)
        shapes = _with_shapes(extra, columns)
        with allocators.settled():  # (as the program's)
            self.plan = make_plan(prog, shapes)
        analysis = _analysis_under_way()
        if analysis is not None:  # (EXPLAIN ANALYZE prints the figures beside the plan that ran)
            analysis.plan = self.plan
        from chronolog.planner.validate import note_unsupplied

        note_unsupplied(prog, {p for p, rows in shapes.items() if rows} | set(shapes.repeating), dialect)
        hz = parse_horizon(horizon, prog.calendar) if horizon is not None else None
        if hz is None and self.plan.temporal is not None:
            hz = parse_horizon(self.plan.temporal)
        if hz == EVERYWHERE:
            hz = None  # (it confines nothing: a model that repeats is then found and answered exactly)
        from chronolog.engine.placement import load_raw, predicates_to_coalesce
        from chronolog.planner.config import check_choice, coalesce_hints, read_config

        config = read_config(prog)
        strategy = check_choice("merge", strategy or config.get("merge", "blocking"), "strategy")
        placement = check_choice("placement", placement or config.get("placement", DEFAULT_PLACEMENT))
        self.strategy, self.placement = strategy, placement
        given: dict = {}
        for f in prog.facts:
            if f.every is None:
                given.setdefault(f.pred, []).append((f.terms, f.interval))
        for pred, rows in extra.items():
            given.setdefault(pred, []).extend(rows)
        self.horizon = hz
        # a horizon open where a recursion moves time (or where a given fact
        # repeats) bounds no rounds there: the model is found where it
        # repeats, as without one, confined to it (planner/confine.py)
        self._open_horizon = hz if hz is not None and self.plan.open_toward(hz) else None
        self._repeating_given: dict = {}  # pred -> {terms: [Repeating]}
        self._repetitions: list = []  # every given fact that repeats forever, (pred, terms, Repeating)
        self._add_repeating_given([(f.pred, f.terms, f.interval, f.every) for f in prog.facts if f.every is not None]
                                  + _repeating_rows(extra), given)
        # the whole run on rows, where the model repeats, when the plan's
        # placement says so (Plan.repeats_forever, which it reads)
        self.terminating = bool(self._repeats(hz))
        # where the model is finite wherever the given facts end and they do,
        # the run takes the horizon they imply instead (engine/implied_horizon.py)
        self._window = self._hull = None
        if self.terminating and hz is None and not self._repetitions:
            from chronolog.engine.implied_horizon import facts_hull, implied_horizon

            self._hull = facts_hull(given, columns)
            self._window = implied_horizon(self.plan, self._hull)
            self.terminating = self._window is None
        derived = self.plan.derived_predicates()
        if columns and self.terminating:
            for fc in columns:  # rows after all: the row-only paths read them
                for pred, rows in fc.rows().items():
                    given.setdefault(pred, []).extend(rows)
            columns = None
        self._columns = columns
        hints = coalesce_hints(config, self.plan)
        coalesce = None if self.terminating else predicates_to_coalesce(self.plan, placement, hints)
        self._given = _GivenRows(given, columns)
        store = Store()
        base = {}
        for pred, rows in given.items():
            if coalesce is None or pred in coalesce:
                store.relation(pred).bulk_add(rows)
            else:
                load_raw(store.relation(pred), rows)
            if pred in derived:
                base[pred] = list(rows)
        # one factory of labelled nulls for the whole run (language/nulls.py):
        # every evaluator of it names a witness alike, skipping given labels
        from chronolog.language.nulls import NullFactory, null_labels, run_scope

        nulls = NullFactory(lambda: null_labels([t for t, _ in rows] for rows in given.values()) | labels)
        try:
            with run_scope(nulls):
                self._evaluate(store, hz, strategy, explain, _GivenRows(base, columns) if columns else base)
        except DataError as e:
            if not hasattr(e, "operands"):
                raise
            from chronolog.value_origin import with_origin

            raise with_origin(e, prog, facts, dialect, prog.calendar, _base_dir(base_dir, program), program) from None
        self.model._nulls = nulls  # a proof's re-run names the witnesses alike

    def _read_facts(self, prog, facts, dialect, base_dir, program, explain) -> tuple:
        """``(columns, rows)`` of the given facts: fact files, tables and
        bound CSV files the columnar executor may read as the readers'
        columns (a list of FactColumns, or None), the rest as FactRows."""
        # (given FactColumns, a Spark task's, read before this run noted their labels: rows for a chase)
        direct = self.engine != "rows" and not explain and (not _has_existentials(prog) or _without_null_labels(facts))
        min_rows = direct_min_rows(self.engine) or 0
        # (LARS's tuple windows filter the input rows: read as rows)
        columns = _fact_columns(facts, dialect, prog.calendar, _terms_of(prog)) if direct and not getattr(prog, "tuple_windows", None) else None
        in_program = prog.fact_columns  # (the program's fact lines, read by the kernel reader)
        if in_program:
            prog.fact_columns = []  # (the run holds them from here on)
            if direct and (facts is None or columns is not None) and _same_widths(in_program + (columns or [])):
                columns = in_program + (columns or [])
                in_program = []
        # large tables given as facts as columns too (connectors/table_columns.py;
        # LARS's at ticks, language/lars.py, but where tuple windows filter the input rows)
        tables = None if columns else _table_facts(facts, dialect, prog.calendar, direct_min_table_rows(self.engine)
                                                   if direct and not getattr(prog, "tuple_windows", None) else None)
        if tables is not None:
            columns, extra = tables
        else:
            extra = load_facts(None if columns else facts, dialect, prog.calendar)
            _repeating_apart(columns, extra)
        if in_program:  # rows after all (before the given facts: the program's come first)
            given_rows = FactRows()
            for fc in in_program:
                given_rows.merge(fc.rows())
            given_rows.merge(extra)
            extra = given_rows
        if any(a.name == "bind" for a in prog.annotations):  # (else nor the connectors imported)
            from chronolog.connectors.bindings import load_bound_inputs

            # large bound CSV files as columns too (connectors/csv_columns.py)
            bound = [] if direct else None
            extra.extend_facts(load_bound_inputs(prog, _base_dir(base_dir, program), columns=bound, min_rows=min_rows))
            if bound:
                columns = (columns or []) + bound
        return columns, extra

    def _evaluate(self, store, hz, strategy, explain, base) -> None:
        if self.terminating:
            # no horizon and a recursion that moves time: find where the
            # model repeats (engine/termination.py)
            self._rows = {p: [(t, iv) for t, ivs in rel.atoms.items() for iv in ivs] for p, rel in store.relations.items()}
            self.evaluator = None
            self.model = self._terminate()
            if explain:
                from chronolog.explain_tree import recorded

                recorded(self.model)  # (refused for a model that repeats forever)
            return
        self._finish(store, hz, strategy, explain, base)

    def _add_repeating_given(self, facts, given) -> None:
        """Given facts that repeat forever: kept as such when the model is
        computed without a horizon; unrolled into ``given`` over the horizon
        (and as far around it as the rules read) when there is one."""
        if not facts:
            return  # (nor the modules imported)
        from chronolog.engine.periodic import given_repetition
        from chronolog.planner.fragment import program_reach

        reps = []
        for pred, terms, iv, period in facts:
            core, rep = given_repetition(iv, period)
            if core is not None:
                given.setdefault(pred, []).append((terms, core))
            else:
                reps.append((pred, terms, rep))
        if not reps:
            return
        self._repetitions.extend(reps)
        if self.horizon is not None and self._open_horizon is None:
            if not self.plan.repeats_forever(self.horizon, [rep.period for _, _, rep in reps]):
                reach, (lo, hi) = program_reach(self.plan.rules), self.horizon[:2]
                for pred, terms, rep in reps:  # (finitely many instances there: the placement says so)
                    ends = (lo - reach - abs(rep.period) - 1, hi + reach + abs(rep.period) + 1)
                    given.setdefault(pred, []).extend((terms, x) for x in rep.instances(*ends))
                return
            # infinitely many instances: the model is found where it repeats,
            # confined to the horizon, from every repeating fact given so far
            self._open_horizon, reps = self.horizon, self._repetitions
        for pred, terms, rep in reps:
            self._repeating_given.setdefault(pred, {}).setdefault(terms, []).append(rep)

    def _repeats(self, hz) -> str:
        """Why the plan's placement of this run finds the model where it
        repeats ("": it does not; Plan.repeats_forever), told the periods of
        the given facts that repeat forever (``hz`` None: no horizon, not
        the program's @temporal, which a run's horizon replaces)."""
        from chronolog.language.timeline import NEG_INF, POS_INF

        return self.plan.repeats_forever(hz if hz is not None else (NEG_INF, POS_INF),
                                         [rep.period for _, _, rep in self._repetitions])

    def _finish(self, store, hz, strategy, explain, base) -> None:
        run_hz = hz if hz is not None else self._window  # (the model's horizon stays the user's: none)
        if self.engine == "rows" or self._rows_alone(store):
            self.evaluator = Evaluator(self.plan, store, run_hz, strategy, explain=explain, base=base, max_rounds=self.max_rounds)
            self.evaluator.stats["executors"] = {s.index: "rows" for s in self.plan.strata}  # (as the columnar executor reports)
        else:
            from chronolog.engine.columns.evaluator import HybridEvaluator

            self.evaluator = HybridEvaluator(
                self.plan, store, run_hz, strategy, explain=explain, base=base, engine=self.engine, max_rounds=self.max_rounds,
                columns=self._columns, updates_follow=self.updates_follow,
            )
        self.evaluator.progress = self._progress
        self.evaluator.analysis = _analysis_under_way()
        self.evaluator.run()
        if run_hz is not hz:
            self.evaluator.stats["implied_horizon"] = run_hz
        self.model = Model(self.evaluator.store, self.plan, hz, self.evaluator.stats, self.evaluator.provenance)
        self.model.dialect = self.dialect
        self.model._given, self.model._strategy = self._given, strategy  # for a proof's re-run
        self.model._columns = self.evaluator if hasattr(self.evaluator, "output_columns") else None

    # whether updates may follow the first model (not for reason()'s _Answer)
    updates_follow = True

    def _rows_alone(self, store) -> bool:
        """Whether auto runs every stratum of this run on rows and nothing
        asks for the columnar executor after it (planner/input_size.py)."""
        if self.engine != "auto" or self.updates_follow or self._columns:
            return False
        return rows_alone(len(self.plan.strata), sum(r.fact_count() for r in store.relations.values()))

    def _terminate(self) -> "Model":
        from chronolog.engine.runaway import round_limit
        from chronolog.engine.termination import evaluate

        with round_limit(self.max_rounds):
            out = evaluate(self.plan, self._rows, self.strategy, self._repeating_given, self._open_horizon, self.engine)
        analysis = _analysis_under_way()
        if analysis is not None:
            analysis.repeated(self.plan, out)
        ran = {s.index: "columns" if s.preds & out.on_columns else "rows" for s in self.plan.strata}
        stats = dict(out.stats, components=out.components, executors=ran)
        model = Model(out.store, self.plan, self._open_horizon, stats, None, repeating=out.repeating)
        model.dialect = self.dialect
        if model.is_finite:  # (it stops: the plain rounds reach it too, and a proof re-runs them, recording)
            model._given, model._strategy = self._given, self.strategy
        return model

    def _read_new(self, facts, what: str = "add()") -> FactRows:
        """Facts given to an update, read and checked against the program's arities."""
        rows = load_facts(facts, self.dialect, self.plan.program.calendar)
        from chronolog.planner.validate import collect_arities

        program = self.plan.program
        known = getattr(self, "_program_arities", None)  # (its program's, found once a session)
        if known is None or known[0] is not program:
            known = self._program_arities = (program, collect_arities(program))
        collect_arities(program, rows, known[1])
        for pred, r in rows.items():
            known = self.plan.arities.get(pred)
            if known is not None and r and len(r[0][0]) != known[0]:
                raise DataError(
                    f"{what}: {pred} has {counted(len(r[0][0]), 'argument')} here but {known[0]} in the program",
                    rows.positions.get(pred),
                )
        return rows

    def _extend_given(self, rows) -> None:
        """Record added facts as given (repeating ones unrolled over the
        horizon when there is one); ``rows`` gets the unrolled ones too."""
        new_given: dict = {}
        for pred, r in rows.items():
            self._given.add_rows(pred, r)
        self._add_repeating_given(_repeating_rows(rows), new_given)
        for pred, r in new_given.items():
            self._given.add_rows(pred, r)
            rows.setdefault(pred, []).extend(r)
        if not self.terminating and self._repetitions:  # the placement again, with them
            if self._repeats(self.horizon):  # the model now repeats forever
                self.terminating = True
                self._rows = self._given

    def add(self, facts) -> "Model":
        """Add facts (any form :func:`reason` accepts) and update the model."""
        return self._update(facts, None, "add()")

    def retract(self, facts) -> "Model":
        """Take back given facts (any form :func:`reason` accepts) and update
        the model: retracting ``p(a)@[3,5]`` from a given ``p(a)@[0,10]``
        leaves ``p(a)@[0,3)`` and ``p(a)@(5,10]``.  Time points that were not
        given are skipped; a fact only the rules derive cannot be retracted
        (an error says so).  docs/api.md, "Corrections"."""
        return self._update(None, facts, "retract()")

    def amend(self, old, new) -> "Model":
        """Replace given facts: retract ``old``, then add ``new``."""
        return self._update(new, old, "amend()")

    def update(self, add=None, retract=None) -> "Model":
        """Retract, then add, given facts in one update of the model, kept up
        to date incrementally (engine/rows/maintenance.py); the model's
        ``stats["maintenance"]`` says which strata were maintained and which
        recomputed, and why; ``stats["maintained_on"]`` on which executor
        ("columns" when every stratum ran there: engine/columns/maintenance.py)."""
        return self._update(add, retract, "update()")

    def _update(self, add, retract, call: str) -> "Model":
        """:meth:`update`, its messages naming ``call``, the method the user called."""
        if getattr(self, "_failed", None):
            raise ProgramError(
                f"an earlier update of this session failed ({self._failed}), so its model is not the model of its facts",
                hint="start a new Reasoner (or chronolog.reason) on the corrected facts",
            )
        from collections.abc import Iterator

        if isinstance(retract, Iterator):
            retract = list(retract)  # (read once here, and again to name a fact that met nothing)
        note_zoned_times(self.plan.program, add)
        # (@timeMapping and the session's closed= of tables, once: their times by name from here on)
        retract, add = (placed_times(self.plan.program, x, getattr(self, "_closed", None)) for x in (retract, add))
        for facts in (retract, add):  # (tables read by column order, as reason() checks them)
            check_tables(self.plan.program, facts)
        gone = self._read_retraction(retract, call) if retract is not None else {}
        rows = self._read_new(add, call) if add is not None else FactRows()
        if hasattr(self.evaluator, "plan_update") and not (self.terminating or self.evaluator.explain):
            self.evaluator.plan_update(gone, rows)  # (atom by atom or on frames: before the given pieces are found)
        removed = self._take_back(gone, call, rows)  # (its refusals come before any change)
        stats = self.model.stats
        before = {k: stats.get(k, 0) for k in _COUNTERS}
        try:
            self._apply(removed, rows)
            self._count_update(stats, before)
        except BaseException as e:  # (the given facts and part of the model have changed: no undo)
            self._failed = failure_text(e)
            if isinstance(e, DataError) and getattr(e, "operands", None) is not None and add is not None:
                from chronolog.value_origin import with_origin

                # a value of the facts added placed at their row, as reason() places its facts'
                named = {"update()": "add", "amend()": "new"}.get(call, "facts")
                raise with_origin(e, self.plan.program, add, self.dialect, self.plan.program.calendar, _base_dir(*self._base_of),
                                  name=named) from None
            raise
        self._say_unmet(retract, gone, removed, call, rows)
        return self.model

    def _say_unmet(self, retract, gone: dict, removed: dict, call: str, added=None) -> None:
        """``stats["retracted facts that met nothing"]``, and a warning naming
        the first such fact (corrections.py, :func:`unmet_count`)."""
        from chronolog.corrections import holes_of, unmet, unmet_count, unmet_message
        from chronolog.language.reader import dialect

        count = unmet_count(self.evaluator, gone, removed) if gone else 0
        self.model.stats["retracted facts that met nothing"] = count
        if not count:
            return
        if not all(isinstance(by, dict) for by in gone.values()) or getattr(gone, "unknown", 0):
            # to name it, read again as atoms (and count again: the rows naming unknown values may repeat)
            gone = holes_of(self._read_retracted(retract, call), call)
        met_nothing = unmet(gone, removed)
        count = self.model.stats["retracted facts that met nothing"] = len(met_nothing)
        first = min(met_nothing, key=lambda f: (f[0], f[2][0], str(f[1])))
        printer, calendar = dialect(self.dialect), self.plan.program.calendar
        import warnings

        warnings.warn(Note(unmet_message(first, count, lambda p, t, iv: printer.format_fact(p, t, iv, calendar), call,
                                         added=added)), stacklevel=4)

    def _apply(self, removed: dict, rows) -> "Model":
        """The rest of :meth:`update`: the given facts ``removed`` (taken
        back already) and ``rows`` added, the model maintained."""
        self._extend_given(rows)
        windows = getattr(self.plan.program, "tuple_windows", None)
        beyond = self._rewindow(rows)
        if beyond or self.terminating or self.evaluator.explain or windows:
            if self.terminating and self._rows is not self._given:
                for pred, r in rows.items():
                    self._rows.setdefault(pred, []).extend(r)
            if windows:
                self._refill_tuple_windows()
            why = ("the model repeats forever" if self.terminating else beyond if beyond else "explanations are recorded"
                   if self.evaluator.explain else "tuple windows count the input facts")
            self._reason_again()
            self.model.stats["maintenance"] = [{"stratum": "all", "maintained": False, "why": f"{why}: reasoned again"}]
            return self.model
        store = self.evaluator.store
        from chronolog.engine.placement import coalesce_relation

        for rel in list(store.materialised().values() if hasattr(store, "materialised") else store.relations.values()):
            coalesce_relation(rel)
        from chronolog.language.nulls import NullFactory, run_scope

        with run_scope(getattr(self.model, "_nulls", None) or NullFactory()):
            report = self.evaluator.maintain(removed, {p: r for p, r in rows.items() if r})
        self.model.stats["maintenance"] = report
        self.model.stats["maintained_on"] = getattr(self.evaluator, "maintained_on", "rows")
        self.model._provenance = None  # (derivations a proof recorded before the update: recorded again by the next one)
        return self.model

    def _rewindow(self, rows) -> str:
        """Why the model is reasoned again where the run took the horizon its
        given facts imply ("": it is not): facts an update adds reach beyond
        those facts (a new horizon from every given fact), or an added fact
        without end or that repeats takes it away (the model found where it
        repeats, as with no horizon)."""
        if self._window is None:
            return ""
        from chronolog.engine.implied_horizon import facts_hull, implied_horizon

        if not self.terminating:  # (an added repeating fact has made it so: _extend_given)
            added = facts_hull(rows)
            if added is None or self._hull[0] <= added[0] and added[1] <= self._hull[1]:
                return ""
            self._hull = facts_hull(self._given)
            self._window = implied_horizon(self.plan, self._hull)
        if self._window is None or self.terminating:
            self._window, self.terminating, self._rows = None, True, self._given
            return ""  # (why: the model repeats forever)
        return "facts were added beyond those the run's horizon was implied from"

    def _count_update(self, stats_before: dict, before: dict) -> None:
        """After an update ``stats["rounds"]`` and ``["derivations"]`` count
        that update's own work (what a user timing it asks), and
        ``stats["session"]`` the session's totals: the first run and every
        update (the evaluator adds to its counters; a run again starts anew)."""
        stats = self.model.stats
        own = {k: stats.get(k, 0) - (before[k] if stats is stats_before else 0) for k in _COUNTERS}
        session = stats_before.get("session") or {"updates": 0, **before}
        stats["session"] = {"updates": session["updates"] + 1, **{k: session[k] + own[k] for k in _COUNTERS}}
        stats.update(own)

    def _read_retraction(self, facts, call: str) -> dict:
        """``{pred: holes}`` of retraction facts: frames coded by the model's
        dictionaries where the update runs on columns (corrections.py,
        :func:`retraction_frames`), else ``{terms: maximal intervals}``."""
        from collections.abc import Iterator

        from chronolog.corrections import holes_of, retraction_frames

        if isinstance(facts, Iterator):
            facts = list(facts)  # (read once: the general path may read them again)
        few = getattr(self.evaluator, "few_facts", None)
        frames = None if few is not None and few(facts) else retraction_frames(self, facts, call)
        if frames is not None:
            return frames
        return holes_of(self._read_retracted(facts, call), call)

    def _read_retracted(self, facts, call: str) -> FactRows:
        """Facts to take back, read as :meth:`_read_new` reads them, the
        numbers of fact text matching the model's floats
        (chronolog/float_terms.py); Python rows and tables keep the values
        they hold (``Fraction(1, 2)`` is the exact number, ``0.5`` the float)."""
        rows = self._read_new(facts, call)
        if not isinstance(facts, dict):
            self.model._float_columns(call).read_rows(rows)
        return rows

    def _take_back(self, gone: dict, call: str, adding=()) -> dict:
        """Remove the retracted points from the given facts: ``{pred: {terms:
        pieces}}`` of what was given and is now taken back.  A predicate
        neither the program nor its facts name is a typo, unless ``adding``
        (the same update's added facts) names it."""
        from chronolog.arguments import check_known_predicate
        from chronolog.corrections import as_atoms, check_derived_only, taken, without_holes
        from chronolog.engine.placement import coalesce_relation
        from chronolog.engine.rows.maintenance import given_atoms
        from chronolog.language.reader import dialect

        printer, calendar = dialect(self.dialect), self.plan.program.calendar

        def format_fact(pred, terms, iv):  # (as the user wrote it: dates, ticks)
            return printer.format_fact(pred, terms, iv, calendar)

        derived = self.plan.derived_predicates()
        removed: dict = {}
        for pred, by in gone.items():
            if pred not in adding:
                check_known_predicate(self.model, pred, call)
            repeating = self._repeating_given.get(pred, {})
            if not isinstance(by, dict):  # a frame of codes (retraction_frames)
                if not by.height:
                    continue  # (none of its facts names only values the model has)
                got = None if repeating else self.evaluator.given_pieces(pred, by)
                if got is not None:
                    if got:
                        removed[pred] = got
                    continue
                by = as_atoms(self.evaluator, by)
            for terms in by:
                if terms in repeating:
                    raise DataError(
                        f"{call}: {format_fact(pred, terms, by[terms][0])} meets a given fact that repeats forever",
                        hint="give a horizon to reason on, so that repeating facts become intervals that can be retracted",
                    )
            if self.terminating:
                given: dict = {}
                for t, iv in self._rows.get(pred, ()):
                    if t in by:
                        given.setdefault(t, []).append(iv)
            elif pred in derived:
                given = given_atoms(self.evaluator, pred)
                given.read_atoms(by)
                given = given.atoms
            elif (on_columns := getattr(self.evaluator, "given_pieces", None)) and (got := on_columns(pred, by)) is not None:
                if got:
                    removed[pred] = got
                continue
            else:
                rel = self.evaluator.store.get(pred)
                if rel is not None:
                    coalesce_relation(rel)
                    rel.read_atoms(by)
                given = rel.atoms if rel is not None else {}
            for terms, holes in by.items():
                ivs = given.get(terms, ())
                if pred in derived:
                    check_derived_only(self.model, pred, terms, holes, ivs, format_fact)
                pieces = taken(ivs, holes)
                if pieces:
                    removed.setdefault(pred, {})[terms] = pieces
        for pred, by in removed.items():
            self._given.take_back(pred, by)
            if self.terminating:
                if self._rows is not self._given:
                    self._rows[pred] = without_holes(self._rows.get(pred, ()), by)
        return removed

    def _refill_tuple_windows(self) -> None:
        """LARS's tuple windows filled in again from the corrected input: a
        retracted or added atom moves every window after it (the helper
        facts were given once, from the first input)."""
        from chronolog.language.lars import tuple_window_rows

        windows = self.plan.program.tuple_windows
        inputs = {pred: list(self._given.get(pred, ())) for pred, _ in windows.values()}
        for helper, rows in tuple_window_rows(self.plan.program, inputs).items():
            self._given.put(helper, rows)
            if self.terminating and self._rows is not self._given:
                self._rows[helper] = list(rows)

    def _reason_again(self) -> None:
        """The model from the (corrected) given facts, from scratch."""
        if self.terminating:
            self.model = self._terminate()
            return
        store = Store()
        derived = self.plan.derived_predicates()
        base = {}
        for pred, rows in self._given.items():
            store.relation(pred).bulk_add(rows)
            if pred in derived:
                base[pred] = list(rows)
        self._columns = None
        nulls = getattr(self.model, "_nulls", None)
        from chronolog.language.nulls import NullFactory, run_scope

        with run_scope(nulls or NullFactory()):
            self._finish(store, self.horizon, self.strategy, self.evaluator.explain, base)
        self.model._nulls = nulls



class _Answer(Reasoner):
    """The session of one ``reason()`` call: its model is the answer and no
    update follows, so a small run on auto builds the row executor alone."""

    updates_follow = False


class Model:
    """The least model: per predicate, ground atoms with maximal intervals."""

    def __init__(self, store: Store, plan, horizon=None, stats=None, provenance=None, repeating=None):
        self.store = store
        self.plan = plan
        self.horizon = horizon
        self.stats = stats or {}
        self._provenance = provenance
        # pred -> {terms: [Repeating]}: facts that recur forever (no horizon)
        self._repeating = repeating or {}
        self.dialect = "vadalog"  # of queries given as text (the program's)
        self._columns = None  # the columnar executor of the run, when it had one

    # ------------------------------------------------------------ reading
    def predicates(self) -> list:
        """Predicates with at least one fact (fresh internal ones excluded),
        told by the columns' counts where they hold them (making the rows of
        every relation took 6,000 predicates 0.66 s)."""
        preds = set()
        for p in self.store.predicates():
            known = self.store.known_count(p)
            if known is None:
                rel = self._relation(p)
                known = len(rel.atoms) if rel is not None else 0
            if known:
                preds.add(p)
        preds |= {p for p, by in self._repeating.items() if by}
        return sorted(p for p in preds if not is_fresh(p))

    @property
    def output_predicates(self) -> list:
        """The ``@output`` predicates, or every derived predicate if none."""
        if self.plan.outputs:
            return list(self.plan.outputs)
        heads = {r.head_pred for r in self.plan.rules if r.head_pred and not is_fresh(r.head_pred)}
        return sorted(heads)

    def _relation(self, pred: str):
        rel = self.store.get(pred)
        if rel is not None and rel.raw:
            from chronolog.engine.placement import coalesce_relation

            coalesce_relation(rel)
        return rel

    # ------------------------------------------------- time as the user sees it
    def _shown(self, iv):
        """An interval as the program's dialect shows it (LARS: ticks,
        language/lars.to_ticks), in every output alike."""
        if self.dialect == "lars":
            from chronolog.language.lars import to_ticks

            return to_ticks(iv)
        return iv

    def _given_interval(self, iv):
        """An interval a user gives (LARS: ticks) on the model's timeline."""
        if self.dialect == "lars":
            from chronolog.language.lars import from_ticks

            return from_ticks(iv)
        return iv

    def _holding_fact(self, query: str, caller: str, so: str, shows: str):
        """The fact of ``query`` (its nulls the model's), refused with a
        sentence when it does not hold: what ``explain`` and ``proof`` ask."""
        from chronolog.language.nulls import model_nulls

        f = self._read_fact(query, caller)
        f.terms = model_nulls(self).adopt(f.terms)
        if not self._holds(f.pred, f.terms, f.interval, caller):
            raise ProgramError(f"{query} does not hold in the model, {so}", hint=f"{shows} the intervals on which a fact holds")
        f.terms = self._held_terms(f.pred, tuple(f.terms))
        return f

    def _held_terms(self, pred: str, terms: tuple) -> tuple:
        """The model's own terms of its fact equal to ``terms``: text reads
        ``1.0`` as the number 1, equal to the float 1.0 (one fact), and a
        proof prints the fact as the model holds it, ``q(1.0)``."""
        if not any(type(t) is int or type(t) is float for t in terms):
            return terms
        rel = self._relation(pred)
        atoms = rel.atoms if rel is not None else {}
        if terms in atoms:
            for held in atoms:  # (the dict gives no key: one pass, for one fact asked about)
                if held == terms:
                    return held
        return terms

    def _read_fact(self, query, what: str, dialect: str | None = None):
        """The fact ``query`` names (``"p(a)@[1,2]"``), in the program's
        dialect, its interval on the model's timeline."""
        if not isinstance(query, str):
            from chronolog.arguments import ArgumentError

            raise ArgumentError(
                f'{what}: expected a fact as text such as "p(a)@[1,2]", not {query!r}',
                hint='or give the predicate, its terms and an interval: holds("p", ("a",), (1, 2))',
            )
        dialect = dialect or self.dialect
        if dialect == "meteor":
            from chronolog.language import meteor

            facts = meteor.parse_facts([query], "<query>")
        else:
            from chronolog.language.errors import SyntaxError_

            try:
                facts = parse_fact_lines([query], "<query>", calendar=self.calendar)
            except SyntaxError_ as e:  # (the fact reader's hint is about data files)
                if "cannot contain the variable" not in e.message:
                    raise
                raise SyntaxError_(e.message, e.pos, "a fact with variables is a query: chronolog query "
                                   "(Model.query) gives each binding with its intervals", e.source_line) from None
        if len(facts) != 1:  # (blank or a comment: more than one is a syntax error of its own)
            from chronolog.arguments import ArgumentError

            raise ArgumentError(f"{what}: expected one fact, not {query!r}", hint='write it as text such as "p(a)@[1,2]"')
        f = facts[0]
        if getattr(f, "every", None) is not None:
            from chronolog.arguments import ArgumentError

            raise ArgumentError(f"{what}: {query!r} repeats ('every'), but a question is about one interval",
                                hint="ask about one stretch of time, e.g. p(a)@[1,2]")
        if dialect == "lars":
            from chronolog.language.lars import from_ticks

            f.interval = from_ticks(f.interval)
        f.terms = self._float_columns(what).read(f.pred, f.terms, lambda: query.strip())
        return f

    def _float_columns(self, what: str):
        """The model's arguments as text numbers are read against them
        (chronolog/float_terms.py: a float's printed line reads back)."""
        from chronolog.float_terms import FloatColumns

        def held(pred):
            rel = self._relation(pred)
            yield from rel.atoms if rel is not None else ()
            yield from self._repeating.get(pred, {})

        return FloatColumns(held, what)

    def _time_format(self):
        """What formats the model's intervals: the calendar of a dated
        program, LARS's ticks, or None (numbers)."""
        if self.calendar is None and self.dialect == "lars":
            from chronolog.language.lars import Ticks

            return Ticks()
        return self.calendar

    def _format_interval(self, iv) -> str:
        from chronolog.language.timeline import format_interval

        fmt = self._time_format()
        return fmt.format_interval(iv) if fmt is not None else format_interval(iv)

    def facts(self, pred: str) -> list:
        """Sorted ``(terms, interval)`` pairs of ``pred``, one per maximal
        interval (of a LARS program in ticks: ``(5, 7, True, True)`` is ticks 5 to 7)."""
        return self._facts(pred)

    def _facts(self, pred, only=None) -> list:
        """:meth:`facts`, of the atoms ``only`` (``{terms: intervals}``) where given."""
        if only is not None:
            from chronolog.arguments import check_known_predicate

            check_known_predicate(self, pred, "facts()")
            atoms = only
        else:
            rel = self._relation(pred) if isinstance(pred, str) else None  # (a list: refused below, by name)
            if rel is None:
                from chronolog.arguments import check_known_predicate

                check_known_predicate(self, pred, "facts()")
                return []
            atoms = rel.atoms
        from chronolog.connectors.text_rows import sorted_atoms

        out = []
        keys = sorted_atoms(atoms if only is None else {t: None for t, ivs in only.items() if ivs})
        public = any_changed(keys)  # #T/#F as Python bools, -0.0 as 0.0 (language/booleans.py)
        for terms in keys:
            t = public_terms(terms) if public else terms
            for iv in atoms[terms]:
                out.append((t, self._shown(iv)))
        return out

    def repeating(self, pred: str) -> list:
        """Facts that recur forever: sorted ``(terms, interval, period)``; the
        fact holds on ``interval`` shifted by every ``k * period``, ``k >= 0``
        (a negative period repeats into the past)."""
        by = self._repeating.get(pred)
        if by is None:
            from chronolog.arguments import check_known_predicate

            check_known_predicate(self, pred, "repeating()")  # (a typo answered [])
            by = {}
        out = []
        for terms in sorted(by, key=lambda t: tuple(term_sort_key(v) for v in t)):
            for r in by[terms]:
                out.append((public_terms(terms), self._shown(r.iv), r.period))
        return out

    @property
    def is_finite(self) -> bool:
        """False when some fact repeats forever (see :meth:`repeating`)."""
        return not any(by for p, by in self._repeating.items() if not is_fresh(p))

    def fact_counts(self, pred: str) -> tuple:
        """``(atoms, facts, facts that repeat)`` of ``pred`` (EXPLAIN
        ANALYZE's), counted off the columns' frame where they hold it, else
        off its relation's atoms, as the engine holds their terms (#T apart
        from 1): no fact made public, no interval shown, one per fact (the
        as-of recipe's 1M fills took 33 s so)."""
        by = self._repeating.get(pred) or {}
        if not by:
            atoms, facts = self.store.known_atoms(pred), self.store.known_count(pred)
            if atoms is not None and facts is not None:
                return atoms, facts, 0
        rel = self._relation(pred)
        held = {t for t, ivs in rel.atoms.items() if ivs} if rel is not None else set()
        repeating = sum(len(rs) for rs in by.values())
        return len(held | {t for t, rs in by.items() if rs}), (rel.fact_count() if rel is not None else 0) + repeating, repeating

    def __len__(self) -> int:
        """Facts (an atom on one maximal interval each), counted off the
        columns where they hold them: ``--stats`` builds no rows to count."""
        n = 0
        for p in self.store.predicates():
            if not is_fresh(p):
                known = self.store.known_count(p)
                n += known if known is not None else self._relation(p).fact_count()
        return n + sum(len(rs) for p, by in self._repeating.items() if not is_fresh(p) for rs in by.values())

    @in_dialect
    def holds(self, query, terms=None, interval=None, dialect: str | None = None) -> bool:
        """Whether a fact holds throughout an interval, however far in time.

        ``holds("p(a)@[1,2]")`` or ``holds("p", ("a",), (1, 2))``.
        """
        if terms is None and interval is None:
            from chronolog.language.nulls import model_nulls

            f = self._read_fact(query, "holds()", dialect)
            pred, terms, iv = f.pred, model_nulls(self).adopt(f.terms), f.interval  # (its nulls the model's, as a proof's)
        else:
            from chronolog.arguments import check_terms_tuple, engine_terms

            check_terms_tuple(terms, "holds()")
            pred, iv = query, self._given_interval(_interval(interval, self.calendar, "interval"))
            terms = engine_terms(terms)  # (a Python bool is #T/#F, never 1/0; a date the instant)
        return self._holds(pred, terms, iv)

    def _holds(self, pred: str, terms, iv, what: str = "holds()") -> bool:
        """:meth:`holds` for an interval already on the program's timeline
        (a parsed query's window; real time for LARS)."""
        from chronolog.arguments import check_known_predicate

        check_known_predicate(self, pred, what)
        arity = self.plan.arities.get(pred, (None,))[0]
        if arity is not None and arity != len(terms):
            from chronolog.arguments import ArgumentError

            raise ArgumentError(f"{what}: {pred} has {counted(arity, 'argument')}, the fact gives {len(terms)}")
        terms = tuple(terms)
        if terms:  # (the atom's intervals alone: chronolog/model_atoms.py)
            from chronolog.model_atoms import model_atoms

            ivs = model_atoms(self).where(pred, [(tuple(range(len(terms))), {terms})]).get(terms) or []
        else:
            rel = self._relation(pred)
            ivs = (rel.atoms.get(terms) if rel is not None else None) or []
        rep = self._repeating.get(pred, {}).get(tuple(terms))
        if rep:
            from chronolog.engine.periodic import covers

            return covers(ivs, rep, iv)
        return any(contains(x, iv) for x in ivs)

    @in_dialect
    def query(self, query: str, dialect: str | None = None):
        """Every binding of the variables of ``query`` (``"controls(X, beta)@[0,10]"``;
        the window may be a point or left out) with the intervals, within the
        window, on which it holds: a list of ``Answer(binding, intervals)``.
        A ground query returns :meth:`holds` (True/False).  chronolog/query.py."""
        from chronolog.query import run_query

        return run_query(self, query, dialect)

    def proof(self, query):
        """The proof tree of a fact that holds (``"p(a)@[1,2]"``): at each step
        the rule, the variable values, the body facts' intervals and the
        interval arithmetic, down to given facts.  Prints as a text tree,
        shows as HTML in a notebook, ``.to_json()``.  Without ``explain=True``
        each stratum the proof reaches runs once more, recording, for the
        keys of the facts it reaches (chronolog/explain_demand.py)."""
        from chronolog.explain_tree import Proof, explain_tree

        return Proof(explain_tree(self, query), self._time_format())

    def explain(self, query) -> list:
        """How a fact was derived: one recorded derivation per derived piece
        that overlaps the queried interval (without ``reason(..., explain=True)``
        the fact's stratum runs once more for its key, recording; :meth:`proof` gives the whole tree).

        Each item is a dict: ``rule`` (text), ``at`` (file:line:col),
        ``binding`` (variable values), ``piece`` (the interval it derived),
        ``body`` (the interval on which the rule's body held).
        """
        from chronolog.explain_tree import recorded

        f = self._holding_fact(query, "explain()", "so nothing derived it", "query() shows")
        recorded(self, f.pred)  # (records the fact's stratum for its key, if it did not record)
        from chronolog.language.timeline import intersect

        format_interval = self._format_interval
        out = []
        for piece, rule, binding, body_iv, *_ in self._provenance.get((f.pred, f.terms), []):
            if intersect(piece, f.interval) is None:
                continue
            src = rule.source
            out.append(
                {
                    "rule": src.text if src is not None and src.text else rule.describe(),
                    "at": str(src.pos) if src is not None else "",
                    "binding": {k: public(v) for k, v in binding.items()} if isinstance(binding, dict) else binding,
                    "piece": format_interval(piece),
                    "body": format_interval(body_iv),
                }
            )
        return out

    # ------------------------------------------------------------ output
    @property
    def calendar(self):
        """The program's :class:`~chronolog.language.dates.Calendar` when its
        time points are dates (printed as dates), else None."""
        return getattr(self.plan.program, "calendar", None)

    def _known(self, preds, what: str) -> list:
        """``preds`` the caller named, each one the program or its facts name
        (a typo is said, not answered with nothing); one name alone is a list
        of one (``to_text("p")`` read it letter by letter)."""
        from collections.abc import Iterable

        from chronolog.arguments import check_known_predicate

        if isinstance(preds, str):
            preds = [preds]
        elif not isinstance(preds, Iterable):
            raise ArgumentError(f"{what}: expected a predicate name or a list of them, not {preds!r}",
                                hint=f'e.g. {what[:-1]}"p") or {what[:-1]}["p", "q"])')
        preds = list(preds)
        for p in preds:
            check_known_predicate(self, p, what)
        return preds

    def lines(self, preds: Iterable[str] | None = None) -> list:
        preds = self.output_predicates if preds is None else self._known(preds, "lines()")
        out = []
        from chronolog.language.dates import OffGrid, naming
        from chronolog.language.reader import Dialect, dialect

        printer = dialect(self.dialect)  # each dialect prints what it reads back
        # a dialect that prints time its own way (LARS: ticks) shows each interval so
        plain_intervals = type(printer).format_fact is Dialect.format_fact
        for names, arrays in self._text_runs(sorted(preds), printer):
            if arrays is not None:
                try:
                    for arr in arrays:
                        out.extend(s[:-1] for s in arr.to_list())
                except OffGrid as e:  # a time no date holds: the relation that holds it names itself
                    if len(names) == 1:
                        raise e.of(names[0]) from None
                    for p in names:
                        self.lines([p])
                    raise
                continue
            (p,) = names
            with naming(p):
                out.extend(self._relation_lines(p, printer, plain_intervals))
        return out

    def _relation_lines(self, p: str, printer, plain_intervals: bool) -> list:
        """The lines of the relation ``p`` (its facts held as rows)."""
        cal = self.calendar
        shown = None if plain_intervals else printer.shown_interval  # (LARS: ticks)
        if not self.repeating(p) and (plain_intervals or shown is not None):  # formatted once per distinct value (connectors/text_rows.py)
            from chronolog.connectors.text_rows import relation_lines

            rel = self._relation(p)
            return relation_lines(p, rel.atoms, cal, printer.format_term, shown) if rel is not None else []
        format_dated = printer.format_fact
        rows = [(tuple(term_sort_key(v) for v in t), iv[0], format_dated(p, t, iv, cal)) for t, iv in self.facts(p)]
        rows += [
            (tuple(term_sort_key(v) for v in t), iv[0], f"{format_dated(p, t, iv, cal)} every {_format_period(per, cal)}")
            for t, iv, per in self.repeating(p)
        ]
        rows.sort(key=lambda r: (r[0], r[1]))
        return [r[2] for r in rows]

    def _text_runs(self, preds: list, printer):
        """``(names, arrays)`` in the order of ``preds``: the lines of the
        relations ``names`` as string arrays from the columns the run left,
        or None for one predicate the rows hold (or whose facts repeat
        forever); LARS's intervals in ticks."""
        if self._columns is None or not self._columns.holds_columns():
            return (([p], None) for p in preds)
        from chronolog.connectors.text_out import columns_text_runs

        return columns_text_runs(self._columns, preds, self.calendar, printer.format_term,
                                 held=lambda p: not self._repeating.get(p), ticks=self.dialect == "lars")

    def write_text(self, fh, preds: Iterable[str] | None = None) -> None:
        """Write :meth:`to_text` and a final newline to ``fh`` (when not
        empty); relations held as columns go from the columns to the bytes."""
        if not callable(getattr(fh, "write", None)):
            from chronolog.arguments import ArgumentError

            raise ArgumentError(f"write_text(): expected a file open for writing, not {fh!r}",
                                hint='with open("out.txt", "w") as fh: model.write_text(fh)')
        from chronolog.language.reader import dialect

        printer = dialect(self.dialect)
        preds = self.output_predicates if preds is None else self._known(preds, "write_text()")
        for names, arrays in self._text_runs(sorted(preds), printer):
            if arrays is not None:
                from chronolog.connectors.text_out import write_arrays

                write_arrays(fh, arrays)
                from chronolog.language import allocators

                allocators.release()  # the relations' sort keys and texts (a command only)
                continue
            lines = self.lines(names)
            for i in range(0, len(lines), 10_000):  # few write calls, no copy of the whole text
                fh.write("\n".join(lines[i : i + 10_000]))
                fh.write("\n")

    def to_text(self, preds: Iterable[str] | None = None) -> str:
        """Canonical text, one fact per line, sorted by predicate, terms, start."""
        return "\n".join(self.lines(preds if preds is None else self._known(preds, "to_text()")))

    @in_dialect
    def facts_within(self, pred: str, window) -> list:
        """The facts of ``pred`` inside ``window`` (``(from, to)``, closed, or a
        4-tuple interval), repeating facts unrolled, intervals clipped to it."""
        self._known([pred], "facts_within()")
        return self._clipped(pred, self._given_interval(_interval(window, self.calendar, "window")))

    def _clipped(self, pred: str, w, only=None) -> list:
        """:meth:`facts_within` for a window already on the program's timeline
        (numbers, as :meth:`facts` gives them, also on a date timeline; real
        time for LARS): the command line, queries and plots convert their
        window once.  The intervals are shown as :meth:`facts` shows them.
        ``only``: of those atoms alone (``{terms: intervals}``)."""
        from chronolog.engine.periodic import unroll

        rep = self._repeating.get(pred, {})
        if only is None and not rep and self.dialect != "lars":  # (the atoms near the window alone, from its frame)
            from chronolog.model_atoms import model_atoms

            only = model_atoms(self).overlapping(pred, w)
        if only is not None:
            atoms = {t: ivs for t, ivs in only.items() if ivs}
        else:
            rel = self._relation(pred)
            atoms = {} if rel is None else dict(rel.atoms)
        if only is not None:
            rep = {t: rs for t, rs in rep.items() if t in only}
        for r in (r for rs in rep.values() for r in rs):
            r.check_window(w[0], w[1], pred)
        out = []
        for terms in sorted(set(atoms) | set(rep), key=lambda t: tuple(term_sort_key(v) for v in t)):
            public = public_terms(terms)
            for iv in unroll(atoms.get(terms, []), rep.get(terms, []), w):
                out.append((public, self._shown(iv)))
        return out

    def to_arrow(self, pred: str | None = None, window=None):
        """The facts of ``pred`` as a ``pyarrow.Table`` (layout in docs/api.md);
        of every output predicate (or a list of them) with a ``pred`` column
        when ``pred`` is None or a list.

        ``window=(from, to)`` clips the facts to it and unrolls the ones that
        repeat forever; without a window such facts are an error."""
        return self._table(pred, window, "to_arrow()")

    def _table(self, pred, window, call: str):
        """:meth:`to_arrow`, its messages naming ``call`` (to_pandas() and
        to_polars() read their tables here: they named to_arrow())."""
        from chronolog.arguments import check_known_predicate
        from chronolog.language.dates import naming

        if not isinstance(pred, str):
            from chronolog.frames import all_facts_table

            return all_facts_table(self, pred, window, call)
        check_known_predicate(self, pred, call)
        with naming(pred):  # (a time off the microsecond grid names the predicate)
            return self._arrow_table(pred, window, call)

    def _arrow_table(self, pred: str, window, call: str = "to_arrow()"):
        from chronolog.engine.arrow import facts_to_arrow

        if window is not None:
            return facts_to_arrow(self.facts_within(pred, window), self.column_names(pred), self.calendar)
        if self._repeating.get(pred):
            raise ProgramError(
                f"{pred} has facts that repeat forever, which a table cannot hold",
                hint=f"pass a window: {call[:-1]}{pred!r}, window=(0, 1000))",
            )
        if self._columns is not None:  # straight from the columns the run left (LARS: in ticks)
            from chronolog.connectors.text_out import columns_arrow_table

            table = columns_arrow_table(self._columns, pred, self.column_names(pred), self.calendar, ticks=self.dialect == "lars")
            if table is not None:
                return table
        rel = self._relation(pred)
        if rel is not None and self.dialect != "lars":  # (LARS shows ticks: facts() converts each interval)
            from chronolog.connectors.text_rows import atoms_arrow_table

            return atoms_arrow_table(rel.atoms, self.column_names(pred), self.calendar)
        return facts_to_arrow(self.facts(pred), self.column_names(pred), self.calendar)

    def to_pandas(self, pred: str | None = None, window=None):
        """The facts of ``pred`` (or of all output predicates, with a ``pred``
        column) as a typed DataFrame: ``Int64`` integers (an unbounded end is
        ``<NA>``), datetimes on a date timeline, rationals as floats with the
        exact value beside them in ``<column>_exact`` (chronolog/frames.py)."""
        from chronolog.frames import to_pandas

        return to_pandas(self, pred, window)

    def to_polars(self, pred: str | None = None, window=None):
        """As :meth:`to_pandas`, a Polars DataFrame."""
        from chronolog.frames import to_polars

        return to_polars(self, pred, window)

    def plot(self, preds=None, window=None, by=None, title: str | None = None):
        """A timeline (matplotlib ``Figure``): one row per ground atom, one bar
        per maximal interval; ``window=(from, to)`` bounds it (facts that
        repeat forever are drawn over it); ``by``: colour by the argument at
        this index.  ``chronolog.plot.save(fig, "out.svg")`` writes it."""
        from chronolog.plot import plot

        return plot(self, preds, window, by, title)

    def __getitem__(self, pred: str) -> list:
        """``model["p"]``: the facts of ``p`` (``chronolog.frames.Fact``)."""
        from chronolog.frames import get_item

        return get_item(self, pred)

    def __iter__(self):
        from chronolog.frames import iterate

        return iterate(self)

    def __contains__(self, x) -> bool:
        """``"p" in model``: whether ``model["p"]`` answers (iteration gives
        facts, which a name never equals)."""
        from chronolog.frames import contains

        return contains(self, x)

    def _repr_html_(self) -> str:
        from chronolog.frames import repr_html

        return repr_html(self)

    def column_names(self, pred: str) -> list:
        from chronolog.connectors.bindings import column_names

        arity = self.plan.arities.get(pred, (None,))[0]
        if arity is None:
            facts = self.facts(pred)
            arity = len(facts[0][0]) if facts else 0
        return column_names(self.plan.program, pred, arity)

    def __repr__(self) -> str:
        return f"<chronolog.Model: {self._size_text()}>"

    def _size_text(self) -> str:
        """``3 facts in 2 predicates`` (``1 fact in 1 predicate``): what the
        repr and the notebook view say of the model."""
        facts, preds = len(self), len(self.predicates())
        return f"{counted(facts, 'fact')} in {counted(preds, 'predicate')}"
