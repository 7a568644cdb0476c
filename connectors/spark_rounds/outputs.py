"""The outputs: a relation back in the layout of engine/arrow.py (term
columns by name, ``start``/``end`` as numbers with null for ±∞, whether
each end is closed), clipped to the caller's window.

Each output is a lazy DataFrame over the run's last checkpoint of the
relation; nothing is computed until the caller reads it.  A relation held
on the driver (rounds.HELD_ROWS) also gives its output's first
``toArrow()`` with no job (:func:`held_answer`), and one held as a literal
has its statement analysed only where the caller uses the DataFrame
otherwise (its schema known on the driver: :func:`held_schema`).
"""

from __future__ import annotations

from chronolog.engine.exprs import to_numpy
from chronolog.engine.interval_codes import NEG, POS, closed_ends
from chronolog.engine.interval_shift import clipped

from ..spark import _sql_name  # a column name as a Spark SQL identifier
from .sql import Stmt, codes, int64, with_codes


def point_type(grid) -> tuple:
    """How an end's time is written out from its grid units ``u``:
    ``(Spark type, k)``, UTC timestamps of ``u·k`` microseconds (on a
    calendar, ``k`` 1: its grid is the microsecond; with timestamps=True,
    seconds of ``grid.digits`` decimals), else the number ``u / L``, whole
    or of ``grid.digits`` decimals (``k`` None)."""
    from pyspark.sql import types as T

    if grid.calendar is not None or grid.timestamps:
        return T.TimestampType(), 1 if grid.calendar is not None else 10 ** (6 - grid.digits)
    return (T.LongType() if grid.digits == 0 else T.DecimalType(38, grid.digits)), None


def output_sql(relations, grid, pred: str, names: list, window=None, dates=()) -> str:
    """The statement of ``pred``'s output in the layout of engine/arrow.py
    (``names`` for the term columns), clipped to ``window`` codes when
    given; the term columns at the indices ``dates`` (instants, every one a
    midnight: :func:`midnights`) as DATEs."""
    q = Stmt()
    src = q.add(f"SELECT * FROM {relations.catalog.read(relations.rel(pred))} AS t", list(relations.columns(pred)))
    if window is not None:
        src = with_codes(q, src, *codes(clipped(*window)))
    typ, k = point_type(grid)

    def point(x):
        u = f"shiftright({x}, 1)"
        if k is not None:
            return f"timestamp_micros({u} * {k})"
        return u if grid.digits == 0 else f"CAST(CAST({u} AS DECIMAL(38, 0)) / CAST({grid.L} AS DECIMAL(38, 0)) AS {typ.simpleString()})"

    # (a predicate no input or rule gives a class holds nothing: its columns
    # are int64, as the engine types an empty table's)
    have = set(relations.columns(pred))
    cols = [f"{f'c{i}' if f'c{i}' in have else 'CAST(NULL AS BIGINT)'} AS {_sql_name(n)}" for i, n in enumerate(names)]
    for i in dates:  # (a TIMESTAMP_NTZ's cast to DATE is zone-free)
        cols[i] = f"CAST(c{i} AS DATE) AS {_sql_name(names[i])}"
    cols += [
        f"CASE WHEN s = {int64(NEG)} THEN NULL ELSE {point('s')} END AS `start`",
        f"CASE WHEN e = {int64(POS)} THEN NULL ELSE {point('e')} END AS `end`",
        *(f"{x} AS {name}" for x, name in zip(codes(closed_ends()), ("start_closed", "end_closed"))),
    ]
    return q.text(q.add(f"SELECT {', '.join(cols)} FROM {src}", [*names, "start", "end", "start_closed", "end_closed"]))


def midnights(df, columns: list) -> list:
    """The indices of ``columns`` (instant columns, TIMESTAMP_NTZ, of the
    output DataFrame ``df``) whose every value is a midnight: the engine
    types such a column out as DATEs (engine/term_types.value_kind), known
    only once the answers are, so one job of the output asks."""
    if not columns:
        return []
    checks = [f"bool_and(CAST(CAST({_sql_name(c)} AS DATE) AS TIMESTAMP_NTZ) = {_sql_name(c)})" for c in columns]
    row = df.selectExpr(*checks).collect()[0]
    return [i for i, v in enumerate(row) if v]


def held_schema(rel, grid, names: list):
    """The Spark schema of :func:`output_sql`'s statement over a relation held
    as a literal (``VALUES``, or the empty relation), known without
    analysing the statement (one analysis per output): the terms' types
    those of the collected columns, not null unless the relation is empty
    (a literal's values are never null); ``start``/``end`` nullable (±∞);
    the closedness flags not null unless empty.  None for a relation not
    held as a literal (a DataFrame of held rows, a checkpoint)."""
    from pyspark.sql import types as T
    from pyspark.sql.pandas.types import from_arrow_type

    table = rel.table if rel is not None else None
    if table is None or rel.df is not None or any(f"c{i}" not in table.column_names for i in range(len(names))):
        return None
    empty, point = rel.count == 0, point_type(grid)[0]
    terms = [T.StructField(n, from_arrow_type(table.schema.field(f"c{i}").type), empty) for i, n in enumerate(names)]
    return T.StructType([*terms, T.StructField("start", point, True), T.StructField("end", point, True),
                         T.StructField("start_closed", T.BooleanType(), empty), T.StructField("end_closed", T.BooleanType(), empty)])


def held_answer(rel, grid, names: list, window, schema, large: bool):
    """The table Spark's ``toArrow()`` of ``pred``'s output DataFrame (of
    Spark ``schema``) gives, made on the driver from its relation held
    there (``rel.table``, the round's collected rows), as :func:`output_sql`'s
    statement computes it (window clipped, ends decoded, closedness); None
    where that relation is not held or lacks a term column."""
    import decimal

    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    from pyspark.sql.pandas.types import to_arrow_schema

    table = rel.table if rel is not None else None
    if table is None or any(f"c{i}" not in table.column_names for i in range(len(names))):
        return None
    s, e = table.column("s").to_numpy(), table.column("e").to_numpy()
    keep = np.arange(len(s))
    if window is not None:
        s, e = (to_numpy(x, {"s": s, "e": e}) for x in clipped(*window))  # (output_sql's clip)
        keep = np.flatnonzero(s < e)
        s, e = s[keep], e[keep]
    k = point_type(grid)[1]

    def ends(codes, inf):  # (as output_sql writes them)
        units = pa.array(codes >> 1, mask=codes == inf)
        if k is not None:
            return pc.multiply(units, k).cast(pa.timestamp("us", tz="UTC"))
        if grid.digits == 0:
            return units
        return pa.array([None if u is None else decimal.Decimal(u).scaleb(-grid.digits) for u in units.to_pylist()],
                        pa.decimal128(38, grid.digits))

    terms = [table.column(f"c{i}").take(keep) for i in range(len(names))]
    closed = [pa.array(to_numpy(x, {"s": s, "e": e}), pa.bool_()) for x in closed_ends()]  # (output_sql's trees)
    cols = [*terms, ends(s, NEG), ends(e, POS), *closed]
    arrow = to_arrow_schema(schema, timezone="UTC", prefers_large_types=large)
    return pa.Table.from_arrays(cols, names=arrow.names).cast(arrow)
