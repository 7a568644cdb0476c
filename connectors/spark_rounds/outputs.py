"""The outputs: a relation back in the layout of engine/arrow.py (term
columns by name, ``start``/``end`` as numbers with null for ±∞, whether
each end is closed), clipped to the caller's window, string codes decoded.

Each output is a lazy DataFrame over the run's last checkpoint of the
relation; nothing is computed until the caller reads it.
"""

from __future__ import annotations

from chronolog.engine.exprs import to_sql
from chronolog.engine.interval_codes import closed_ends

from ..spark import _sql_name  # a column name as a Spark SQL identifier
from .calendar import point_sql, timestamp_sql
from .classes import STR
from .grid import NEG, POS
from .sql import Stmt, int64, with_codes

DICT_BROADCAST_ROWS = 2_000_000  # a dictionary this small is broadcast to the output's decoding join


def decoded(q: Stmt, src: str, pred: str, relations, dictionary) -> str:
    """``src`` with its string codes replaced by the strings (a join with
    the ``dictionary`` per string column; broadcast when it is small)."""
    types = relations.types
    strs = [i for i, c in enumerate(types.classes.get(pred) or []) if c == STR]
    if not types.str_codes or not strs:
        return src
    cols = q.cols[src]
    sel = [f"d{i}.name AS c{i}" if i in strs else f"x.c{i} AS c{i}" for i in range(types.arity(pred))]
    joins = "".join(f" LEFT JOIN {relations.catalog.read(dictionary)} AS d{i} ON x.c{i} = d{i}.code" for i in strs)
    hint = ""
    if dictionary.count <= DICT_BROADCAST_ROWS:
        hint = f"/*+ BROADCAST({', '.join(f'd{i}' for i in strs)}) */ "
    return q.add(f"SELECT {hint}{', '.join([*sel, 'x.s AS s', 'x.e AS e'])} FROM {src} AS x{joins}", cols)


def output(relations, grid, dictionary, pred: str, names: list, window=None):
    """``pred`` in the layout of engine/arrow.py (``names`` for the
    term columns), clipped to ``window`` codes when given."""
    q = Stmt()
    src = q.add(f"SELECT * FROM {relations.catalog.read(relations.rel(pred))} AS t", list(relations.columns(pred)))
    if window is not None:
        src = with_codes(q, src, f"greatest(s, {int64(window[0])})", f"least(e, {int64(window[1])})")
    src = decoded(q, src, pred, relations, dictionary)
    if grid.calendar is not None:  # UTC timestamps, as the engine's answers on a calendar
        point = point_sql
    elif grid.timestamps:  # timestamps=True: seconds as UTC timestamps
        def point(x):
            return timestamp_sql(x, grid.digits)
    elif grid.digits == 0:
        def point(x):
            return f"shiftright({x}, 1)"
    else:
        def point(x):
            return (f"CAST(CAST(shiftright({x}, 1) AS DECIMAL(38, 0)) / CAST({grid.L} AS DECIMAL(38, 0)) "
                    f"AS DECIMAL(38, {grid.digits}))")

    # (a predicate no input or rule gives a class holds nothing: its columns
    # are int64, as the engine types an empty table's)
    have = set(relations.columns(pred))
    cols = [f"{f'c{i}' if f'c{i}' in have else 'CAST(NULL AS BIGINT)'} AS {_sql_name(n)}" for i, n in enumerate(names)]
    cols += [
        f"CASE WHEN s = {int64(NEG)} THEN NULL ELSE {point('s')} END AS `start`",
        f"CASE WHEN e = {int64(POS)} THEN NULL ELSE {point('e')} END AS `end`",
        *(f"{to_sql(x, int64, None)} AS {name}" for x, name in zip(closed_ends(), ("start_closed", "end_closed"))),
    ]
    return relations.catalog.sql(q.text(q.add(f"SELECT {', '.join(cols)} FROM {src}", [*names, "start", "end", "start_closed", "end_closed"])))
