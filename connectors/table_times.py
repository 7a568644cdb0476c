"""Where a table's times are, and which of their ends are closed, when the
table does not say it by its column names.

A table given as facts (an Arrow table, a pandas or Polars DataFrame, a
Parquet or Arrow IPC file, a Spark DataFrame) is read by name: ``start``
and ``end``, and ``start_closed``/``end_closed`` per row, closed when
absent.  Two things say otherwise, for a whole table:

- ``@timeMapping("p", S, E, SC, EC).`` places the times by column position
  or name (as for CSV files: connectors/csv_files.py), closed as it says;
- ``closed="left"`` (pandas' word for ``[start, end)``; also ``"right"``,
  ``"both"``, ``"neither"``) gives the closedness of a table that has no
  closedness columns.

Both rewrite the table into the layout of engine/arrow.py before any
reader sees it, so every reader (rows, columns, Spark) reads it alike.
"""

from __future__ import annotations

from chronolog.language.errors import ArgumentError, ProgramError, counted

CLOSED = {"both": (True, True), "left": (True, False), "right": (False, True), "neither": (False, False)}
CLOSEDNESS = ("start_closed", "end_closed")


def closed_ends(closed, pred: str, what: str = "closed"):
    """``closed`` (a word of :data:`CLOSED`, or a dict of them by predicate)
    for ``pred``, as ``(start_closed, end_closed)``; None when not given."""
    if isinstance(closed, dict):
        closed = closed.get(pred)
    if closed is None:
        return None
    if closed not in CLOSED:
        raise ArgumentError(
            f"{what}={closed!r}: which ends of the intervals are closed is one of {', '.join(map(repr, CLOSED))}",
            hint='closed="left" reads each row as [start, end), as pandas\' closed="left" and SQL ranges\' default "[)"',
        )
    return CLOSED[closed]


def check_closed(closed, what: str = "closed") -> None:
    """Refuse a bad ``closed`` argument before any input is read."""
    if isinstance(closed, dict):
        for pred, c in closed.items():
            closed_ends(c, pred, f"{what}[{pred!r}]")
    else:
        closed_ends(closed, "?", what)


def with_closed(table, ends, pred: str):
    """The Arrow ``table`` with constant ``start_closed``/``end_closed``
    columns ``ends``; a table that has either column already is refused
    (it says per row which ends are closed)."""
    import pyarrow as pa

    names = list(table.schema.names)
    have = [c for c in CLOSEDNESS if c in names]
    if have:
        raise ArgumentError(
            f"facts for {pred}: closed= was given, but the table has the column {have[0]}, which says per row "
            "which ends are closed",
            hint=f"leave out closed= for {pred} (closed={{...}} names the tables it is for), or drop the column",
        )
    n = table.num_rows
    for name, value in zip(CLOSEDNESS, ends):
        table = table.append_column(name, pa.array([value] * n, pa.bool_()))
    return table


class TimeMapping(tuple):
    """``@timeMapping`` of ``pred`` as ``(start, end, start_closed,
    end_closed)``; start and end are column positions, or column names
    until a reader that knows its columns resolves them
    (:func:`time_columns`); ``pos`` is the annotation's place, for errors."""

    def __new__(cls, values, pred: str = "", pos=None):
        self = super().__new__(cls, values)
        self.pred, self.pos = pred, pos
        return self


def is_named(mapping) -> bool:
    """Whether ``mapping`` gives a time column by name (not resolved yet)."""
    return mapping is not None and any(isinstance(c, str) for c in mapping[:2])


def time_columns(mapping, columns, where: str):
    """``mapping`` (bindings.time_mapping's) with the column names of its
    start and end resolved to their positions among ``columns`` (the
    table's column names in order: a CSV header, an Arrow schema's, a
    JSON record's keys; None: a CSV file without a header line).  The one
    place names become positions, called by each reader where it knows
    its columns: JSON keys and pandas columns have no order a program
    should count.  ``where`` names the table in errors."""
    if not is_named(mapping):
        return mapping
    pred, pos = getattr(mapping, "pred", "?"), getattr(mapping, "pos", None)
    how = f'give its position, counting from 0 (@timeMapping("{pred}", 2, 3). for columns 2 and 3)'
    if columns is None:
        name = next(c for c in mapping[:2] if isinstance(c, str))
        raise ProgramError(
            f'@timeMapping of {pred} names the column "{name}", but {where} has no header line to name its columns',
            pos, hint=f"names need a header: write the column names as the file's first line (useHeaders=true), or {how}")
    columns = [str(c) for c in columns]

    def position(name):
        if columns.count(name) == 1:
            return columns.index(name)
        if columns.count(name) > 1:
            raise ProgramError(
                f'@timeMapping of {pred} names the column "{name}", but {where} has {columns.count(name)} columns named so',
                pos, hint=f"rename all but one of them, or {how}")
        from chronolog.planner.validate import close_name

        alike = [c for c in columns if c.lower() == name.lower()]
        close = alike[0] if alike else close_name(name, columns)
        shown = ", ".join(columns[:20]) + (", ..." if len(columns) > 20 else "")
        raise ProgramError(
            f'@timeMapping of {pred} names the column "{name}", which {where} does not have (its columns: {shown or "none"})',
            pos, hint=(f'did you mean "{close}"? ' if close else "") + f"name one of its columns (names match exactly), or {how}")

    start, end = (position(c) if isinstance(c, str) else c for c in mapping[:2])
    if start == end and not (mapping[2] and mapping[3]):  # (a name and a position of one column)
        raise point_error(pred, start, pos)
    return TimeMapping((start, end, mapping[2], mapping[3]), pred, pos)


def point_error(pred: str, column, pos):
    """The error of one column as a start and an end not both closed: its
    rows are time points, ``[t,t]``, never empty."""
    said = f'"{column}"' if isinstance(column, str) else column
    return ProgramError(
        f"@timeMapping of {pred}: one column {said} for the start and the end is a time point, closed at both ends",
        pos,
        hint=f'@timeMapping("{pred}", {said}, {said}, #T, #T). (or {said}, {said} alone)',
    )


def check_positions(names, mapping, pred: str, where: str, pos) -> None:
    """Refuse a ``@timeMapping`` that places a time past the columns ``names``
    of ``where``."""
    last = max(mapping[0], mapping[1])
    if last >= len(names):
        raise ProgramError(
            f"@timeMapping of {pred}: {where} has {counted(len(names), 'column')} ({', '.join(map(str, names))}), no column {last}",
            pos, hint="positions count from 0, in the table's column order",
        )


def time_mapped(table, mapping, pred: str, where: str, pos=None, calendar=None):
    """The Arrow ``table`` with its times where ``@timeMapping`` places them
    (``mapping``: ``(start, end, start_closed, end_closed)``, positions over
    the table's columns counted from 0, or names): those columns named ``start``
    and ``end`` (one column as both for time points), the closedness
    constant columns; the other columns stay the arguments in their order,
    closedness columns dropped as the CSV readers drop them.  ``where``
    names the table in errors, ``pos`` the annotation, ``calendar`` the
    program's date timeline (None: numeric)."""
    import pyarrow as pa

    names = list(table.schema.names)
    mapping = time_columns(mapping, names, where)
    start, end, sc, ec = mapping
    check_positions(names, mapping, pred, where, pos)
    if calendar is not None:
        refuse_numbers_on_dates(table, {names[start], names[end]}, pred, where)
    keep = [i for i, n in enumerate(names) if i not in (start, end) and n not in CLOSEDNESS]
    clash = [names[i] for i in keep if names[i] in ("start", "end")]
    if clash:
        raise ProgramError(
            f"@timeMapping of {pred}: {where} has a column {clash[0]} that @timeMapping does not place "
            f"(it places columns {start} and {end}: {names[start]}, {names[end]})",
            pos,
            hint=f"rename the column {clash[0]}, or leave out @timeMapping: columns named start and end are the times",
        )
    if start == end and table.column(start).null_count:
        refuse_null_point(table, names[start], pred, where)
    n = table.num_rows
    cols = [table.column(i) for i in keep] + [table.column(start), table.column(end)]
    cols += [pa.array([bool(sc)] * n, pa.bool_()), pa.array([bool(ec)] * n, pa.bool_())]
    out = pa.Table.from_arrays(cols, names=[names[i] for i in keep] + ["start", "end", *CLOSEDNESS])
    return out.replace_schema_metadata(table.schema.metadata)


def refuse_null_point(table, name: str, pred: str, where: str) -> None:
    """A null in a column of time points (``@timeMapping("p", K, K)``): a
    reading with no time.  As a start and an end it read as unbounded on
    both sides, a reading that holds forever."""
    from chronolog.engine.arrow import row_values

    i = table.column(name).is_null().to_pylist().index(True)
    raise null_point_error(name, pred, where, f"in row {i}: {row_values(table, i)}")


def null_point_error(name: str, pred: str, where: str, row: str):
    """The error of a null time point in column ``name`` (:func:`refuse_null_point`;
    Spark's, connectors/spark.py, where ``row`` has no number)."""
    from chronolog.language.ast import Pos
    from chronolog.language.errors import DataError

    return DataError(
        f"the column {name}, which @timeMapping of {pred} reads as each row's time point, is empty (null) {row}",
        Pos(where),
        hint=f"a row without a time holds at no time point: drop or fill those rows of {pred} "
             f"(df.dropna(subset=[{name!r}]) in pandas and in Spark)",
    )


def refuse_numbers_on_dates(table, names, pred: str, where: str) -> None:
    """Time columns ``names`` of numbers (epoch seconds, most often) on a
    date timeline, refused by their own names: once placed they are
    called start and end."""
    import pyarrow as pa

    for name in sorted(names):
        typ = table.schema.field(name).type
        if pa.types.is_integer(typ) or pa.types.is_floating(typ) or pa.types.is_decimal(typ):
            raise numbers_on_dates(name, typ, pred, where)


def refuse_dates_on_numbers(table, names, pred: str, where: str) -> None:
    """Time columns ``names`` of dates or timestamps on a numeric timeline
    (a table given in memory: no reader turns them into epoch seconds),
    refused by their own names, as :func:`refuse_numbers_on_dates` the
    other way round."""
    import pyarrow as pa

    from chronolog.language.ast import Pos
    from chronolog.language.errors import DataError

    for name in sorted(names):
        typ = table.schema.field(name).type
        if pa.types.is_date(typ) or pa.types.is_timestamp(typ):
            raise DataError(f"the column {name}, which @timeMapping of {pred} reads as times, holds dates ({typ}), "
                            "but the program's timeline is numeric", Pos(where),
                            hint='declare @timeGranularity("days"). (or hours, minutes, seconds) in the program')


def numbers_on_dates(name: str, typ, pred: str, where: str):
    """The error of a time column ``name`` of numbers of type ``typ`` on a date timeline."""
    from chronolog.language.dates import NUMBERS_ON_DATES
    from chronolog.language.ast import Pos
    from chronolog.language.errors import DataError

    return DataError(f"the column {name}, which @timeMapping of {pred} reads as times, holds numbers ({typ}), "
                     "but the program's timeline is dates", Pos(where), hint=NUMBERS_ON_DATES)
