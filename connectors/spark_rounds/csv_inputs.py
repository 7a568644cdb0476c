"""A CSV input read by Spark's CSV reader (``@bind("p", "spark csv", ...)``),
typed for the rounds as the embedded CSV reader (connectors/csv_files.py)
types its cells.

Spark reads every cell as text (``inferSchema`` off: connectors/spark.py
``read_binding``).  One job (:func:`typed`) looks at every column once: per
column, whether each cell has a shape SQL reads as the engine does (an
integer, a decimal, a plain string, a boolean, an ISO date or datetime,
an infinite end), and the digits its numbers need.  Each column is then
typed in SQL:

- a term column mapped ``auto`` or a number type: ``bigint`` when every
  cell is an integer of at most 18 digits, ``decimal(38, S)`` when every
  cell is a decimal (``S``: the most digits after the point, trailing
  zeros dropped), a string (``auto`` only) when no cell reads as anything
  but a string (its first letter is no digit, sign, point, ``#``, ``_`` or
  ``{``, and it is no ``inf``); any other column (numbers beside names, ``1/3``,
  ``#T``, sets, ``1e3``) is term text (classes.TEXT), each cell the key
  text of the term the CSV reader reads (:class:`CsvKeyText`, an Arrow UDF);
- mapped ``string``: the text (an empty cell is ``""``, as the reader
  reads it); ``float``: a double; ``bool``: a boolean; ``date``: an
  instant (a ``TIMESTAMP_NTZ`` of its UTC wall clock);
- the time columns: ``bigint`` or ``decimal(38, S)`` on a numeric
  timeline (decimals, with an exponent too, and fractions whose decimals
  end: ``1/2``), instants on a calendar, ``-inf`` at a start and ``+inf``
  at an end (any case, ``infinity`` too) and an empty cell as an
  unbounded end (null);
- ``start_closed``/``end_closed``: booleans.

A column SQL does not read as the engine does (a time off the decimal
grid, ``1/3``, a date outside the years 1000-8999, a float ``nan``, a cell
that is an error) raises :class:`UnreadCells` before the load: the connector asks
the embedded reader, whose error names a bad cell, else one task runs the
program.  Every SQL here is zone-free: an ISO date or datetime is
rewritten as a ``TIMESTAMP_NTZ``'s text and its UTC offset subtracted
from its microseconds, the same instants in any session time zone.
"""

from __future__ import annotations

from chronolog.connectors.spark import _csv_true, _sql_name, _trimmed
from chronolog.language.mapping_types import BOOLEAN_TYPES, DATE_TYPES, FLOAT_TYPES, NUMBER_TYPES, STRING_TYPES

from .fragment import NotRelational
from .udfs import text_udf_sql

class UnreadCells(NotRelational):
    """A column of a CSV input holds a cell SQL does not read as the
    embedded reader does: the connector asks that reader (connectors/spark.py),
    whose error names the cell's file, line and column, else one task runs it."""


KEYED = "csv key"  # the term-text mark of a column already key text (inputs.encode reads it as it is)

_INT = "^[+-]?[0-9]{1,18}$"
_DEC = "^[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)$"
_FLOAT = "^[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)(e[+-]?[0-9]+)?$"  # (lower case; Python's other spellings: one task)
_POS_INF = "^[+]?(inf|infty|infinity)$"  # (lower case: parse_number's spellings)
_NEG_INF = "^-(inf|infty|infinity)$"
_NOT_STRING = "^([-+.#_{]|\\\\p{N})"  # a first letter after which an untyped cell may read as other than a string
_OFFSET = "[+-]([01][0-9]|2[0-3])"  # (and minutes 00-59: offsets parse_date accepts)
_DATE = ("^[1-8][0-9]{3}-[0-9]{2}-[0-9]{2}"
         f"([T ][0-9]{{2}}:[0-9]{{2}}(:[0-9]{{2}}([.][0-9]{{1,6}})?)?(Z|{_OFFSET}(:?[0-5][0-9])?)?|(Z|{_OFFSET}:[0-5][0-9]))?$")
# (language/dates.DATE_RE in years 1000-8999: +02:00, and after a time +0200 and +02)


_UNREAD = {"float": "a cell SQL does not read as a float as the CSV reader does", "bool": "a cell that is no boolean",
           "date": "a cell SQL does not read as a date as the CSV reader does"}  # (typed: a column's cells unread)


def _micros(t: str) -> str:
    """SQL: the UTC microseconds of ISO text ``t`` matching :data:`_DATE`,
    null where Spark reads no such date (``2020-02-30``): its wall clock
    rewritten ``yyyy-mm-dd hh:mm:ss[.f]`` and cast to a TIMESTAMP_NTZ
    (zone-free), its UTC offset subtracted."""
    from chronolog.engine.term_types import instant_micros_sql

    def part(pattern, default):
        return f"coalesce(nullif(regexp_extract({t}, '{pattern}', 1), ''), '{default}')"

    wall = (f"concat(substr({t}, 1, 10), ' ', {part('^.{10}[T ]([0-9]{2}:[0-9]{2})', '00:00')}, ':', "
            f"{part('^.{10}[T ][0-9]{2}:[0-9]{2}:([0-9]{2}([.][0-9]+)?)', '00')})")
    after = f"substr({t}, 11)"  # (after the date, yyyy-mm-dd: a sign there starts the offset, +02:00, +0200, +02)
    sign = f"CASE WHEN regexp_extract({after}, '([+-])[0-9]{{2}}(:?[0-9]{{2}})?$', 1) = '-' THEN -1 ELSE 1 END"
    hours = f"CAST(coalesce(nullif(regexp_extract({after}, '[+-]([0-9]{{2}})(:?[0-9]{{2}})?$', 1), ''), '0') AS BIGINT)"
    minutes = f"CAST(coalesce(nullif(regexp_extract({after}, '[+-][0-9]{{2}}:?([0-9]{{2}})$', 1), ''), '0') AS BIGINT)"
    return (f"({instant_micros_sql(f'try_cast({wall} AS TIMESTAMP_NTZ)', 'timestamp_ntz')}"
            f" - {sign} * ({hours} * 60 + {minutes}) * 60000000)")


def _instant(t: str) -> str:
    return f"timestampadd(MICROSECOND, {_micros(t)}, TIMESTAMP_NTZ'1970-01-01 00:00:00')"


def _scale(t: str) -> str:
    """SQL: digits after the point of decimal text ``t``, trailing zeros dropped."""
    return f"length(TRIM(TRAILING '0' FROM regexp_extract({t}, '[.]([0-9]*)$', 1)))"


def _whole(t: str) -> str:
    """SQL: digits before the point of decimal text ``t``, leading zeros dropped."""
    return f"length(TRIM(LEADING '0' FROM regexp_extract({t}, '^[+-]?([0-9]*)', 1)))"


# a time on a numeric timeline: a decimal with an exponent (parse_number's, up to 4 digits in SQL)
# or a fraction p/q of integers of at most 18 digits (blanks around the slash ASCII spaces)
_SCI = "^[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]{1,4})?$"
_RATIO = "^[+-]?[0-9]{1,18} */ *[0-9]{1,18}$"
_POWERS = range(13)  # a fraction's decimals tried (entry.MAX_DIGITS: a finer grid is one task's)


def _exponent(t: str) -> str:
    return f"CAST(coalesce(nullif(regexp_extract({t}, '[eE]([+-]?[0-9]+)$', 1), ''), '0') AS INT)"


def _sci_scale(t: str) -> str:
    """SQL: digits after the point of the decimal ``t`` (:data:`_SCI`), trailing zeros dropped, less its exponent."""
    frac = f"regexp_extract({t}, '^[^.eE]*[.]([0-9]*)', 1)"
    return f"greatest(0, length(TRIM(TRAILING '0' FROM {frac})) - {_exponent(t)})"


def _sci_whole(t: str) -> str:
    """SQL: at least the digits before the point of the decimal ``t`` (:data:`_SCI`)."""
    return f"greatest(0, {_whole(t)} + {_exponent(t)})"


def _ratio_p(t: str) -> str:
    return f"try_cast(regexp_extract({t}, '^([+-]?[0-9]+)', 1) AS DECIMAL(38, 0))"


def _ratio_q(t: str) -> str:
    return f"try_cast(regexp_extract({t}, '([0-9]+)$', 1) AS DECIMAL(38, 0))"


def _ratio_scale(t: str) -> str:
    """SQL: the fewest decimals that hold the fraction ``t`` (:data:`_RATIO`)
    exactly (``p * 10^k`` a multiple of ``q``), null when none of
    :data:`_POWERS` does (``1/3``) or ``q`` is 0."""
    p, q = _ratio_p(t), _ratio_q(t)
    cases = " ".join(f"WHEN pmod({p} * {10 ** k}, {q}) = 0 THEN {k}" for k in _POWERS)
    return f"CASE WHEN {q} = 0 THEN NULL {cases} END"


def _fraction_digits(df, columns, pred: str) -> list:
    """Per time column of ``columns`` (text ``p/q`` in some cells), the
    most decimals and the most whole digits of its fractions: one job.
    :class:`UnreadCells` for a fraction off the decimal grid (``1/3``) or
    with a zero denominator (the CSV reader's error)."""
    aggs = []
    for c in columns:
        t = _trimmed(_sql_name(c))
        ratio = f"{t} RLIKE '{_RATIO}'"
        aggs += [f"max(CASE WHEN {ratio} THEN coalesce({_ratio_scale(t)}, -1) END)",
                 f"max(CASE WHEN {ratio} THEN {_ratio_whole(t)} END)",
                 f"max(CASE WHEN {ratio} AND {_ratio_scale(t)} IS NULL AND {_ratio_q(t)} != 0 THEN 1 ELSE 0 END)",
                 f"max(CASE WHEN {ratio} AND {_ratio_q(t)} = 0 THEN 1 ELSE 0 END)"]
    got = list(df.selectExpr(*aggs).collect()[0])
    out = []
    for k, c in enumerate(columns):
        _, whole, off, zero = got[4 * k : 4 * k + 4]
        if zero:
            raise UnreadCells(f"the {c} column of {pred} holds a fraction with a zero denominator")
        if off:
            raise UnreadCells(f"the {c} column of {pred} holds a fraction off the decimal grid (such as 1/3: "
                              "its denominator has a prime factor other than 2 and 5, or needs more than "
                              f"{len(_POWERS) - 1} decimals), which the rounds' times cannot hold exactly")
        out += [got[4 * k], whole]
    return out


def _ratio_whole(t: str) -> str:
    """SQL: the digits before the point of the fraction ``t`` (:data:`_RATIO`)."""
    return f"length(CAST(abs({_ratio_p(t)}) div nullif({_ratio_q(t)}, 0) AS STRING))"


def _all(cond: str) -> str:
    return f"min(CASE WHEN {cond} THEN 1 ELSE 0 END)"


def typed(spark, df, pred: str, kinds: dict, calendar):
    """``df`` (Spark's CSV read of ``pred``, every column text: term columns,
    then ``start``, ``end`` and perhaps ``start_closed``/``end_closed``)
    with each column typed as the embedded CSV reader types it (module
    doc); ``kinds``: ``{argument: @mapping kind}``.  One job; :class:`NotRelational` for a column SQL
    cannot read as the engine does."""
    from chronolog.connectors.spark import _term_columns

    from chronolog.connectors.csv_files import _time_columns

    cols = list(df.columns)
    if not {"start", "end"} <= set(cols):  # (no @timeMapping, no start and end: the last two columns, as the reader reads them)
        start, end, _, _ = _time_columns(cols, len(cols), None, None)
        if len(cols) < 2 or {"start", "end"} & (set(cols) - {cols[start], cols[end]}):
            raise NotRelational(f"the CSV input of {pred} has no 'start' and 'end' columns")
        df = df.selectExpr(*(f"{_sql_name(c)} AS {_sql_name({start: 'start', end: 'end'}.get(i, c))}" for i, c in enumerate(cols)))
        cols = list(df.columns)
    terms = _term_columns(df)
    aggs, plans = ["count(1) AS a0"], {}

    def ask(sql: str) -> int:
        aggs.append(f"{sql} AS a{len(aggs)}")
        return len(aggs) - 1

    for k, c in enumerate(terms):
        x = _sql_name(c)
        t = _trimmed(f"coalesce({x}, '')")
        kind = kinds.get(k, "auto")
        if kind in STRING_TYPES:
            plans[c] = ("string", x)
        elif kind in FLOAT_TYPES:
            plans[c] = ("float", x, t, ask(_all(f"lower({t}) RLIKE '{_FLOAT}'")))
        elif kind in BOOLEAN_TYPES:
            yes, no = _csv_true(t), _csv_true(t, False)  # (whether t reads as true, as false)
            plans[c] = ("bool", x, t, ask(_all(f"{yes} OR {no}")))
        elif kind in DATE_TYPES:
            plans[c] = ("date", x, t, ask(_all(f"{t} RLIKE '{_DATE}' AND {_micros(t)} IS NOT NULL")))
        elif kind == "auto" or kind in NUMBER_TYPES:
            dec = f"{t} RLIKE '{_DEC}'"
            strings = f"NOT ({t} RLIKE '{_NOT_STRING}' OR lower({t}) RLIKE '{_POS_INF}')" if kind == "auto" else "false"
            plans[c] = ("auto", x, t, ask(_all(f"{t} RLIKE '{_INT}'")), ask(_all(dec)),
                        ask(f"max(CASE WHEN {dec} THEN {_scale(t)} END)"), ask(f"max(CASE WHEN {dec} THEN {_whole(t)} END)"),
                        ask(_all(strings)))
        else:  # pragma: no cover - the program check refuses other kinds
            raise NotRelational(f"argument {k + 1} of {pred} is mapped {kind!r}")
    for end, inf in (("start", _POS_INF), ("end", _NEG_INF)):
        x = _sql_name(end)
        t = _trimmed(x)
        bad_inf = f"lower({t}) RLIKE '{inf}'"  # (an empty interval: the engine's error)
        blank = f"({x} IS NULL OR {t} = '')"  # (an empty cell: unbounded, as csv_files.time_cell reads it)
        unbounded = f"({blank} OR lower({t}) RLIKE '{_NEG_INF if end == 'start' else _POS_INF}')"
        if calendar is not None:
            ok = f"({blank} OR (NOT {bad_inf} AND ({unbounded} OR ({t} RLIKE '{_DATE}' AND {_micros(t)} IS NOT NULL))))"
            plans[end] = ("time", x, t, unbounded, ask(_all(ok)))
        else:
            sci, ratio = f"{t} RLIKE '{_SCI}'", f"{t} RLIKE '{_RATIO}'"
            ok = f"({blank} OR (NOT {bad_inf} AND ({unbounded} OR {sci} OR {ratio})))"
            plans[end] = ("time", x, t, unbounded, ask(_all(ok)), ask(f"max(CASE WHEN {sci} THEN {_sci_scale(t)} END)"),
                          ask(f"max(CASE WHEN {sci} THEN {_sci_whole(t)} END)"), ask(f"max(CASE WHEN {ratio} THEN 1 ELSE 0 END)"))
    for c in ("start_closed", "end_closed"):
        if c in cols:
            x = _sql_name(c)
            t = _trimmed(x)
            yes, no = _csv_true(t), _csv_true(t, False)
            plans[c] = ("bool", x, t, ask(_all(f"{x} IS NOT NULL AND ({yes} OR {no})")))
    got = list(df.selectExpr(*aggs).collect()[0])
    if not got[0]:
        got = [1 if v is None else v for v in got]  # (no rows: every column holds nothing, any type reads it)
    fractions = [end for end in ("start", "end") if calendar is None and got[plans[end][7]]]
    if fractions:  # (a second job, for files with times p/q only: the first stays lean)
        got += _fraction_digits(df, fractions, pred)
    exprs, keyed = [], []
    for c in cols:
        p = plans[c]
        how, x = p[0], p[1]
        name = _sql_name(c)
        if how == "string":
            exprs.append(f"coalesce({x}, '') AS {name}")
            continue
        t = p[2]
        if how in _UNREAD and not got[p[3]]:
            raise UnreadCells(f"{c} of {pred} holds {_UNREAD[how]}")
        if how == "float":
            exprs.append(f"CAST({t} AS DOUBLE) AS {name}")
        elif how == "bool":
            yes, no = _csv_true(t), _csv_true(t, False)
            exprs.append(f"CASE WHEN {yes} THEN true WHEN {no} THEN false END AS {name}")
        elif how == "date":
            exprs.append(f"{_instant(t)} AS {name}")
        elif how == "auto":
            ints, decs, scale, whole, strings = (got[i] for i in p[3:])
            if ints:
                exprs.append(f"CAST({t} AS BIGINT) AS {name}")
            elif decs and (whole or 0) + (scale or 0) <= 38:
                exprs.append(f"CAST({t} AS DECIMAL(38, {scale or 0})) AS {name}")
            elif strings:
                exprs.append(f"coalesce({x}, '') AS {name}")
            else:
                kind = kinds.get(terms.index(c), "auto")
                udf = text_udf_sql(spark, f"csv_key_text_{kind}", CsvKeyText(kind), f"coalesce({x}, '')")
                exprs.append(f"{udf} AS {name}")
                keyed.append(c)
        else:  # time
            unbounded, ok = p[3], got[p[4]]
            if not ok:
                raise UnreadCells(f"the {c} column of {pred} holds a time SQL does not read as the CSV reader does "
                                  "(a number with an exponent past 4 digits or with digits past ASCII, a date beyond SQL's, "
                                  "an empty interval or an error)")
            if calendar is not None:
                exprs.append(f"CASE WHEN {unbounded} THEN NULL ELSE {_instant(t)} END AS {name}")
            else:
                scale, whole = got[p[5]] or 0, got[p[6]] or 0
                if c in fractions:
                    at = len(got) - 2 * len(fractions) + 2 * fractions.index(c)
                    scale, whole = max(scale, got[at] or 0), max(whole, got[at + 1] or 0)
                if whole + scale > 38:
                    raise UnreadCells(f"the {c} column of {pred} holds a number of more than 38 digits")
                # (Spark casts "2." and "1e3" to a decimal, not to a bigint; a fraction on the grid is
                # divided at a scale that holds its quotient exactly)
                value = (f"CAST(CASE WHEN {t} RLIKE '{_RATIO}' THEN CAST({_ratio_p(t)} AS DECIMAL(38, {scale})) / {_ratio_q(t)} "
                         f"ELSE CAST({t} AS DECIMAL(38, {scale})) END AS DECIMAL(38, {scale}))")
                if scale == 0 and whole <= 18:
                    value = f"CAST({value} AS BIGINT)"
                exprs.append(f"CASE WHEN {unbounded} THEN NULL ELSE {value} END AS {name}")
    out = df.selectExpr(*exprs)
    if keyed:
        from chronolog.connectors.spark import marked

        out = marked(out, keyed, KEYED)
    return out


class CsvKeyText:
    """Each CSV cell of a column mapped ``kind`` as the key text
    (engine/term_types.key_text) of the term the embedded CSV reader reads
    (csv_files.convert; Spark's reader kept a quoted cell's blanks and
    trimmed a bare one's, as that reader does): an Arrow UDF at the load.
    A labelled null (its scope is its file) gives null, a row the load
    refuses to one task; a cell the reader refuses stops the run
    (arithmetic.refused): one task, whose reader names it."""

    def __init__(self, kind: str):
        self.kind = kind

    def __call__(self, column):
        import pyarrow as pa

        from chronolog.connectors.csv_files import _NULL_CELL, convert
        from chronolog.engine.term_types import key_text
        from chronolog.language import ast

        from .udfs import RowStop, stop_text

        out, seen = [], {}
        for cell in column.to_pylist():
            got = seen.get(cell, seen)
            if got is seen:
                if cell is None or (self.kind not in STRING_TYPES and _NULL_CELL.fullmatch(cell.strip())):
                    got = None
                else:
                    try:
                        got = key_text(convert(cell, self.kind, ast.NOWHERE, "c", None, quoted=True))
                    except Exception as err:  # noqa: BLE001 - the reader's error: the run stops, one task reports it
                        raise RowStop(stop_text(f"a CSV cell: {getattr(err, 'message', str(err))}")) from None
                seen[cell] = got
            out.append(got)
        return pa.array(out, pa.string())
