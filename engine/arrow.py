"""Facts to Arrow tables.

Layout: one column per term, then ``start``, ``end``, ``start_closed``,
``end_closed``.  Time columns are ``int64`` when every finite end is an
integer, ``decimal128`` when every end has a finite decimal expansion, and
otherwise strings in the canonical number text (``1/3``); an infinite end is
null (``start`` null means -inf, ``end`` null means +inf).  Term columns keep
their Python type (int, string, bool, float as float64); exact non-integer
numbers become decimals or canonical strings the same way.  Nothing is
rounded: a float64 column is a column of binary floats, read back as the
same floats; a float64 time column is read as exact times, each float the
number its shortest text shows (``0.1`` is 1/10: language/float_times.py).
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from chronolog.language.booleans import Boolean
from chronolog.language.timeline import NEG_INF, POS_INF, format_number

# why a table row's interval is empty (also engine/columns/relation.py)
EMPTY_HINT = "start must not be after end, and a point (start == end) needs both ends closed"


def one_time_type(start, end) -> list:
    """``[start, end]`` on a calendar timeline as columns of one type: both
    timestamps when either holds a time of day (a date32 beside a
    timestamp made pandas' ``end - start`` fail, datetime64 against
    Python dates); as they are otherwise."""
    import pyarrow as pa

    for a, b in ((start, end), (end, start)):
        if pa.types.is_date32(a.type) and pa.types.is_timestamp(b.type):
            return [x.cast(b.type) if x is a else x for x in (start, end)]
    return [start, end]


def _whole_days(values, calendar):
    """``date32`` by numpy when every point is an integer on a timeline of
    whole days (int32 days: any year Arrow takes); else None."""
    import numpy as np
    import pyarrow as pa

    per_day = calendar.unit_seconds / 86400
    if len(values) < 64 or per_day.denominator != 1 or not all(type(v) is int for v in values):
        return None
    try:
        d = np.array(values, dtype=np.int64) * int(per_day)
    except OverflowError:
        return None
    if d.size and (d.min() < -(2**31) or d.max() >= 2**31):
        return None
    return pa.array(d.astype(np.int32), type=pa.date32())


_DAY_MICROS = 86_400_000_000


def _time_column(values, calendar):
    """Time points on a calendar timeline: ``date32`` when every point is a
    midnight, else ``timestamp[us]``, from the points' microseconds since
    1970 (no Python datetime in between: its years stop at 1..9999, Arrow's
    do not); canonical unit counts as strings if a point falls beyond
    64-bit microseconds (nothing is rounded).  A point between two
    microseconds is no date or timestamp: :class:`~.dates.OffGrid`."""
    import pyarrow as pa

    from chronolog.language.dates import OffGrid

    days = _whole_days(values, calendar)
    if days is not None:
        return days
    # each point's microseconds, v * unit_us, in integers (a Fraction product
    # per value cost 2.5 us of the 3.5 of a point; the rows' outputs of the
    # sensor recipe spent a quarter of their call here)
    per_unit = calendar.unit_seconds * 1_000_000
    kn, kd = per_unit.numerator, per_unit.denominator
    micros = []
    for v in values:
        if v is None:
            micros.append(None)
            continue
        num, den = (v * kn, kd) if type(v) is int else (v.numerator * kn, v.denominator * kd)
        u, rest = divmod(num, den)
        if rest:
            raise OffGrid(Fraction(num, den) / 1_000_000)
        micros.append(u)
    if any(u is not None and not -(2**63) <= u < 2**63 for u in micros):
        return pa.array([None if v is None else format_number(v) for v in values], type=pa.string())
    if all(u is None or u % _DAY_MICROS == 0 for u in micros):
        return pa.array([None if u is None else u // _DAY_MICROS for u in micros], type=pa.int32()).cast(pa.date32())
    return pa.array(micros, type=pa.timestamp("us"))


def _decimal_column(values, finite):
    """The decimal128 column ``_column`` makes of ints and Fractions with
    finite decimals, by numpy instead of formatting each number as text:
    the same precision and scale (the most digits before the point, at
    least one, plus the scale), the values as
    integers at the column's scale.  None when a value has no finite
    decimal, a text would pass 38 characters or an integer 18 digits (the
    text path decides then)."""
    import numpy as np

    if not finite or len(finite) != len(values) or len(finite) < 64:
        return None
    try:
        num = np.array([v.numerator for v in finite], dtype=np.int64)
        den = np.array([v.denominator for v in finite], dtype=np.int64)
    except OverflowError:
        return None
    return decimal_parts(num, den)


def decimal_parts(num, den):
    """:func:`_decimal_column` of the numbers ``num / den`` (numpy int64, in
    lowest terms, ``den > 0``): the columnar executor's exact value columns
    (engine/columns/exact_columns.py) go to Arrow here, no Python number made."""
    import numpy as np
    import pyarrow as pa

    if not len(num) or np.abs(num).max() >= 10**17:
        return None
    from chronolog.language.exact_pairs import decimal_places, small_unique

    dens, at = small_unique(den)  # (a column has few denominators: each factored once)
    own_u = decimal_places(dens)  # each denominator's own decimals
    if np.any(own_u < 0):
        return None  # p/q text: the text path
    if own_u.max() > 17:
        return None
    scale = int(own_u.max())
    # per distinct denominator, then gathered: the value at its own scale
    # (``num * 10**own // den``) and at the column's (times 10**(scale-own))
    n_own = num * (10**own_u // dens)[at]
    big = int(np.abs(n_own).max())
    if big >= 10**17:
        return None
    unscaled = n_own * (10 ** (scale - own_u))[at]
    if np.abs(unscaled).max() >= 10**18:
        return None
    # the digits of the largest |value at the column's scale|, at least one
    # before the point: the kinds' precision (engine/term_types.py)
    precision = max(len(str(int(np.abs(unscaled).max()))), scale + 1)
    words = np.empty((len(num), 2), dtype="<i8")  # (filled in place and handed to Arrow without a copy)
    words[:, 0] = unscaled
    np.right_shift(unscaled, 63, out=words[:, 1])
    return pa.Array.from_buffers(pa.decimal128(precision, scale), len(num), [None, pa.py_buffer(words)])


def _column(values):
    import pyarrow as pa

    kinds = set(map(type, values))  # (one pass in C: most columns are of one kind)
    unbounded = type(None) in kinds
    kinds.discard(type(None))
    finite = [v for v in values if v is not None] if unbounded else values
    if kinds <= {int} and (not finite or (-(1 << 63) <= min(finite) and max(finite) < (1 << 63))):
        return pa.array(values, type=pa.int64())
    if all(issubclass(k, (int, Fraction)) and k is not bool for k in kinds):  # (Point is a Fraction)
        fast = _decimal_column(values, finite)
        if fast is not None:
            return fast
        # each distinct number is formatted once (columns repeat values)
        text = {v: format_number(v) for v in set(finite)}
        texts = list(text.values())
        if all("/" not in t for t in texts):
            scale = max((len(t.split(".")[1]) if "." in t else 0) for t in texts) if texts else 0
            whole = max((len(t.lstrip("-").split(".")[0]) for t in texts), default=1)
            precision = whole + scale  # (the kinds' precision: engine/term_types.py)
            if precision <= 38:  # decimal128's digits, the column's widest whole part and finest fraction together
                dec = {v: Decimal(t) for v, t in text.items()}
                return pa.array([None if v is None else dec[v] for v in values], type=pa.decimal128(precision, scale))
        return pa.array([None if v is None else text[v] for v in values], type=pa.string())
    if kinds <= {Boolean, bool}:  # #T/#F (language/booleans.py)
        return pa.array([None if v is None else bool(v) for v in values], type=pa.bool_())
    if kinds == {float}:  # binary floats (measured values): float64
        return pa.array(values, type=pa.float64())
    if kinds == {str}:
        return pa.array(values, type=pa.string())
    import datetime as _dt

    if kinds == {_dt.datetime}:  # instants (engine/term_types.py): date32 when every one is a midnight, else timestamp[us]
        if len(finite) >= 256 and all(v.tzinfo is None for v in finite):  # (naive, as the engine makes them:
            return _instant_column(values, finite)  # engine/term_types.instant; a few by their kinds, without polars' 0.3 ms)
        from chronolog.engine.term_types import arrow_type, typed_array, value_kind

        kind = value_kind(finite)
        return typed_array(values, kind, arrow_type(kind))
    from chronolog.language.text import format_term_text

    return pa.array([None if v is None else format_term_text(v) for v in values], type=pa.string())


def _instant_column(values, finite):
    """:func:`_column` of instants (naive datetimes, None for a null), by
    their microseconds (language/dates.datetime_micros): a kind merged per
    value and a conversion by Arrow took 1.1 s for 500,000 timestamps."""
    import numpy as np
    import pyarrow as pa

    from chronolog.language.dates import datetime_micros

    micros = datetime_micros(finite)
    day = 86_400_000_000
    dated = len(micros) > 0 and not (micros % day).any()
    if len(finite) != len(values):
        mask = np.array([v is None for v in values])
        full = np.zeros(len(values), dtype=np.int64)
        full[~mask] = micros
        micros = full
    else:
        mask = None
    if dated:
        return pa.array((micros // day).astype(np.int32), type=pa.date32(), mask=mask)
    return pa.array(micros, type=pa.timestamp("us"), mask=mask)


# schema metadata: the term columns written as canonical term text (a
# column of several kinds of constants, which no Arrow type holds)
TERM_TEXT = b"chronolog.term_text"


def holds_term_text(column, values) -> bool:
    """Whether ``_column(values)`` gave ``column`` as canonical term text:
    strings, but not every value a string."""
    import pyarrow as pa

    return column.type == pa.string() and not set(map(type, values)) <= {type(None), str}


def with_term_text(table, names):
    """``table`` with its columns ``names`` marked as term text, so reading
    it back (:func:`table_to_rows`) parses them: ``1``, ``#T`` and
    ``"x,y"`` come back a number, a boolean and a string."""
    if not names:
        return table
    import json

    meta = dict(table.schema.metadata or {})
    meta[TERM_TEXT] = json.dumps(list(names)).encode()
    return table.replace_schema_metadata(meta)


def term_text_names(table) -> list:
    """The columns of ``table`` marked by :func:`with_term_text`."""
    import json

    marked = (table.schema.metadata or {}).get(TERM_TEXT)
    return json.loads(marked) if marked else []


def parse_term_texts(texts, calendar, pred="?", name="?"):
    """Canonical term texts to terms, by the language's own fact reader
    (each distinct text once)."""
    from chronolog.language.errors import ChronologError
    from chronolog.language.facts import read_fact_rows

    distinct = list(dict.fromkeys(t for t in texts if t is not None))
    at = calendar.format_point(0) if calendar is not None else "0"
    try:
        rows = read_fact_rows([f"t({i},{text})@{at}" for i, text in enumerate(distinct)], "<a column of term text>", calendar)
    except ChronologError:
        _refuse_term_text(distinct, at, calendar, pred, name)
        raise
    term = {distinct[t[0]]: t[1] for t, _ in rows.get("t", [])}
    return [None if t is None else term[t] for t in texts]


def _refuse_term_text(texts, at, calendar, pred, name):
    """The first of ``texts`` that reads as no constant, named with its
    column (the reader's error quoted a line of its own, ``t(0,{a,b)@0``)."""
    from chronolog.language.errors import ChronologError, DataError
    from chronolog.language.facts import read_fact_rows

    for text in texts:
        try:
            read_fact_rows([f"t(0,{text})@{at}"], "<a column of term text>", calendar)
        except ChronologError:
            hint = "a column of term text holds constants as chronolog prints them (a name, a number, a quoted string, #T, #F, a date, a set {a,2})"
            raise DataError(f"{pred}: the column {name} holds {text}, which is no constant", hint=hint) from None


def facts_to_arrow(facts, names, calendar=None):
    from chronolog.language.float_times import float_time

    cols = {n: [] for n in names}
    starts, ends, sc, ec = [], [], [], []
    for terms, (lo, hi, lc, hc) in facts:
        for n, v in zip(names, terms):
            cols[n].append(v)
        if calendar is None and (type(lo) is float or type(hi) is float):  # (given ends: a model's are exact)
            # a float end is the number it shows, so that 0 beside 0.5 is one column of numbers, not term text
            lo, hi = (float_time(x) if type(x) is float else x for x in (lo, hi))
        starts.append(None if lo == NEG_INF else lo)
        ends.append(None if hi == POS_INF else hi)
        sc.append(lc)
        ec.append(hc)
    return columns_to_arrow([cols[n] for n in names], names, starts, ends, sc, ec, calendar)


def columns_to_arrow(cols, names, starts, ends, sc, ec, calendar=None):
    """The table of :func:`facts_to_arrow` from its columns as lists: the
    terms' (``cols``, one per name), the ends (None where unbounded) and
    their closedness."""
    import pyarrow as pa

    arrays = [_column(c) for c in cols]
    text = [n for n, a, c in zip(names, arrays, cols) if holds_term_text(a, c)]
    if calendar is not None:
        arrays += one_time_type(_time_column(starts, calendar), _time_column(ends, calendar))
    else:
        arrays += [_column(starts), _column(ends)]
    arrays += [pa.array(sc, pa.bool_()), pa.array(ec, pa.bool_())]
    table = pa.Table.from_arrays(arrays, names=list(names) + ["start", "end", "start_closed", "end_closed"])
    return with_term_text(table, text)


def table_to_rows(table, pred: str = "?", calendar=None, timestamps: str = "error"):
    """Rows ``(terms, interval)`` from a table in the layout above.

    Term columns are every column except ``start``, ``end``,
    ``start_closed`` and ``end_closed`` (in order); a missing closedness
    column means closed.  Decimal and integer values stay exact, strings in
    time columns are read as exact numbers (``1/3``); a null start or end is
    unbounded.  A float term column gives Python floats (NaN, pandas' missing
    value, is refused); a float time column gives exact times, each float
    the number its shortest text shows (NaN refused with its row).

    Dates and timestamps: arguments are instants, date constants (the one
    rule of engine/term_types.py); with a ``calendar`` (the program
    declares ``@timeGranularity``) time columns become its time points;
    without one, ``timestamps="times"`` (files bound with ``@bind``, the
    Spark connectors) reads them as exact seconds since the epoch, and the
    default refuses date time columns (the program's timeline is numeric).
    """
    import pyarrow as pa

    from chronolog.language.errors import DataError

    if not isinstance(table, (pa.Table, pa.RecordBatch)):
        check_pandas_frame(table, pred)  # (NaN times: an error, not unbounded ends; a named index)
        try:  # pandas DataFrame
            table = pa.Table.from_pandas(table, preserve_index=False)
        except Exception:
            raise DataError(f"facts for {pred} must be a pyarrow Table or a pandas DataFrame") from None
    if calendar is None and timestamps == "times":
        from chronolog.engine.timestamps import numbers_for_times

        table = numbers_for_times(table, pred)  # time columns: exact seconds
    table = _microsecond_timestamps(table, pred)
    names = list(table.schema.names)
    for needed in ("start", "end"):
        if needed not in names:
            raise missing_time_column(names, needed, f"the table for {pred}")
    term_names = [n for n in names if n not in ("start", "end", "start_closed", "end_closed")]
    for n in term_names:
        if table.column(n).null_count:
            _null_term(table, n, pred)
        _refuse_non_constant(table.column(n).type, n, pred)
    for n in ("start", "end"):
        _refuse_non_constant(table.column(n).type, n, pred, time=True)
    reader = _ExactColumns(table, pred, calendar)
    text = term_text_names(table)
    from chronolog.language.nulls import reading_file

    with reading_file():  # one scope for the table's labelled nulls, in every column (a frame of every predicate: one for it)
        cols = [parse_term_texts(reader.column(n, False), calendar, pred, n) if n in text else reader.column(n, False)
                for n in term_names]
    n = table.num_rows
    terms = list(zip(*cols)) if cols else [()] * n
    sc = table.column("start_closed").to_pylist() if "start_closed" in names else [True] * n
    ec = table.column("end_closed").to_pylist() if "end_closed" in names else [True] * n
    ivs = _intervals(reader.column("start", True), reader.column("end", True), sc, ec, table, pred)
    return list(zip(terms, ivs))


def missing_time_column(names, needed: str, what: str):
    """The error for a table without its ``start`` or ``end`` column,
    naming a column that differs only in case or spaces (``Start``, a CSV
    header's `` end``), which is read as an argument otherwise."""
    from chronolog.language.errors import DataError

    near = [n for n in names if str(n).strip().lower() == needed]
    hint = "columns: one per argument, then start, end (and optionally start_closed, end_closed)"
    if near:
        hint = f"rename the column {near[0]!r} to {needed!r} (the names are read exactly); " + hint
    return DataError(f"{what} has no '{needed}' column", hint=hint)


def _microsecond_timestamps(table, pred: str):
    """``table`` with its nanosecond timestamp columns as microseconds, the
    precision of the engine's dates and instants (a Python ``datetime``);
    a value between microseconds is refused with its row rather than
    truncated (pandas' ``Timestamp``, which keeps nanoseconds, is not the
    engine's instant: it equalled no ``datetime`` and read back as text)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from chronolog.language.errors import DataError

    for i, (name, col) in enumerate(zip(table.schema.names, table.columns)):
        typ = col.type
        if not (pa.types.is_timestamp(typ) and typ.unit == "ns"):
            continue
        try:
            col = col.cast(pa.timestamp("us", typ.tz))
        except pa.ArrowInvalid:
            finer = pc.not_equal(pc.cast(pc.cast(col, pa.timestamp("us", typ.tz), safe=False), typ), col)
            row = pc.index(finer, True).as_py()
            raise DataError(
                f"{pred}: the column {name} holds {pc.cast(col[row:row + 1], pa.string())[0]} (row {row}), "
                "finer than a microsecond, the precision of chronolog's dates",
                hint="round the column to microseconds (pandas: .dt.floor('us'); Polars: .dt.cast_time_unit('us'))",
            ) from None
        table = table.set_column(i, name, col)
    return table


def _intervals(starts, ends, sc, ec, table, pred: str) -> list:
    """The rows' intervals (a null end unbounded, a null closedness closed);
    an empty one is refused with the row's values."""
    from chronolog.language.errors import DataError
    from chronolog.language.timeline import make

    out = []
    append = out.append
    for i, lo, hi, lc, hc in zip(range(len(starts)), starts, ends, sc, ec):
        if type(lc) is not bool or type(hc) is not bool:
            lc, hc = _closedness(lc, "start_closed", table, i, pred), _closedness(hc, "end_closed", table, i, pred)
        if lo is None or hi is None or type(lo) is not int or type(hi) is not int:
            iv = make(NEG_INF if lo is None else lo, POS_INF if hi is None else hi, lc, hc)
        elif lo < hi or (lo == hi and lc and hc):
            iv = (lo, hi, lc, hc)  # the common case, checked as make() would
        else:
            iv = None
        if iv is None:
            values = ", ".join(f"{n}={table.column(n)[i].as_py()!r}" for n in table.schema.names)
            raise DataError(f"{pred}: the row {values} has an empty interval", hint=EMPTY_HINT)
        append(iv)
    return out


def _closedness(v, name: str, table, i: int, pred: str) -> bool:
    """A closedness cell as a bool: null is closed, and 1/0 (a CSV's or a
    database's booleans) are true and false; anything else is refused (a
    text such as 'false' is true to Python)."""
    if v is None:
        return True
    if type(v) is bool or v in (0, 1) and type(v) in (int, float):
        return bool(v)
    from chronolog.language.errors import DataError

    values = ", ".join(f"{n}={table.column(n)[i].as_py()!r}" for n in table.schema.names if n not in TIME_COLUMNS)
    hint = f"{name} is true or false (or 1 or 0); a null is closed"
    if isinstance(v, str):  # ('true' itself: the column read as text)
        hint = f'{name} is text, not a boolean: {hint}; convert it, e.g. df["{name}"] = df["{name}"].str.lower() == "true"'
    raise DataError(f"{pred}: {name} is {v!r} in the row {values}", hint=hint)


TIME_COLUMNS = ("start", "end", "start_closed", "end_closed")


def _calendar_points(col, calendar) -> list:
    """A date or timestamp time column's points (None where null): each
    distinct instant once by numpy (engine/timestamps.calendar_points),
    else (nanoseconds between microseconds) value by value through
    Calendar.point, which names a bad one."""
    import numpy as np
    import pyarrow as pa

    from chronolog.engine.timestamps import calendar_points

    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks()
    valid = col.drop_null() if col.null_count else col
    try:
        idx, points, _ = calendar_points(valid, calendar)
    except pa.ArrowInvalid:  # (a cast to microseconds that would lose nanoseconds)
        return [None if v is None else calendar.point(v) for v in col.to_pylist()]
    if valid is col:
        return points[idx].tolist()
    out = np.full(len(col), None, dtype=object)
    out[np.flatnonzero(col.is_valid().to_numpy(zero_copy_only=False))] = points[idx]
    return out.tolist()


def _past_datetimes(col, name: str, pred: str):
    """The DataError of a date or timestamp argument column that holds an
    instant past Python's datetimes (years 1 to 9999), naming its first row
    (a time column holds any year: calendar_points)."""
    import pyarrow as pa

    from chronolog.language.errors import DataError

    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks()
    row = next(i for i in range(len(col)) if _overflows(col, i))
    unit = "days" if pa.types.is_date32(col.type) else "milliseconds" if pa.types.is_date64(col.type) else {
        "s": "seconds", "ms": "milliseconds", "us": "microseconds", "ns": "nanoseconds"}[col.type.unit]
    count = col.cast(pa.int32() if pa.types.is_date32(col.type) else pa.int64())[row].as_py()
    return DataError(f"{pred}: the column {name} holds {count:,} {unit} since 1970-01-01 in row {row + 1}, "
                     "past the years 1 to 9999 that a date or timestamp argument holds",
                     hint="a date argument is a Python datetime; give such an instant as a number, or drop the row "
                          "(the start and end columns hold any year)")


def _overflows(col, i: int) -> bool:
    try:
        col[i].as_py()
    except OverflowError:
        return True
    return False


class _ExactColumns:
    """A table's columns as exact Python values, by the column's Arrow type
    and whether it holds times (``calendar``: the program's date timeline,
    or None for a numeric one)."""

    def __init__(self, table, pred: str, calendar):
        self.table, self.pred, self.calendar = table, pred, calendar

    def column(self, name: str, time: bool) -> list:
        """Each distinct decimal, date or number text converted once
        (columns repeat values: sensors, prices)."""
        import pyarrow as pa

        from chronolog.language.dates import NUMBERS_ON_DATES
        from chronolog.language.booleans import boolean
        from chronolog.language.errors import DataError

        col = self.table.column(name)
        typ = col.type
        calendar, pred = self.calendar, self.pred
        if time and pa.types.is_null(typ):  # (every cell null: every end unbounded, on any timeline)
            return [None] * len(col)
        if time and (pa.types.is_date(typ) or pa.types.is_timestamp(typ)):
            if calendar is None:
                raise DataError(
                    f"column {name} of {pred} holds dates, but the program's timeline is numeric",
                    hint='declare @timeGranularity("days"). (or hours, minutes, seconds) in the program',
                )
            return _calendar_points(col, calendar)
        if time and calendar is not None and not (pa.types.is_string(typ) or pa.types.is_large_string(typ)):
            raise DataError(
                f"column {name} of {pred} holds numbers, but the program's timeline is dates",
                hint="give start/end as date32 or timestamp columns (or ISO strings); " + NUMBERS_ON_DATES,
            )
        if pa.types.is_floating(typ) and not time:  # binary float terms, as Python floats given as facts
            return float_terms(col, name, pred, self.table).tolist()
        if pa.types.is_floating(typ):  # each float the number its text shows (0.1 is 1/10)
            return float_time_column(col, name, pred, self.table)
        if pa.types.is_date(typ) or pa.types.is_timestamp(typ):
            try:
                cells = col.to_pylist()
            except OverflowError:  # (Arrow's conversion to a Python date past years 1 to 9999)
                raise _past_datetimes(col, name, pred) from None
            return [None if v is None else self.value(v, name, time) for v in cells]
        if pa.types.is_boolean(typ) and not time:  # #T/#F: terms of their own, never 1/0 (language/booleans.py)
            return [None if v is None else boolean(v) for v in col.to_pylist()]
        if not (pa.types.is_decimal(typ) or (time and (pa.types.is_string(typ) or pa.types.is_large_string(typ)))):
            return col.to_pylist()
        try:
            enc = col.dictionary_encode()
            if isinstance(enc, pa.ChunkedArray):
                enc = enc.combine_chunks() if enc.num_chunks else pa.array([], typ).dictionary_encode()
        except (pa.ArrowNotImplementedError, pa.ArrowInvalid):
            return [None if v is None else self.value(v, name, time) for v in col.to_pylist()]
        values = [self.value(v, name, time) for v in enc.dictionary.to_pylist()]
        return [None if i is None else values[i] for i in enc.indices.to_pylist()]

    def value(self, v, name: str, time: bool):
        """One cell: a decimal exact, a date or timestamp a datetime constant
        (UTC, naive), a number or date text in a time column a time point."""
        from chronolog.language.errors import DataError
        from chronolog.language.timeline import normalize, parse_number

        if isinstance(v, Decimal):
            return normalize(Fraction(v))
        if hasattr(v, "isoformat") and not isinstance(v, str):  # date32/timestamp: an instant
            from chronolog.engine.term_types import instant

            return instant(v)
        if time and isinstance(v, str):
            calendar = self.calendar
            try:
                return calendar.parse_point(v) if calendar is not None else parse_number(v)
            except ValueError:
                what = "a date" if calendar is not None else "a number"
                raise DataError(
                    f"column {name} of {self.pred}: {v!r} is not {what}",
                    hint="a time column holds numbers (or dates on a date timeline); -inf/+inf for open ends",
                ) from None
        return v


def float_terms(col, name: str, pred: str, table=None):
    """A float term column as a numpy float64 array; NaN (pandas' mark of
    a missing value, and equal to nothing) is refused with its row (its
    values when the ``table`` it is a column of is given)."""
    import numpy as np
    import pyarrow as pa

    from chronolog.language.errors import DataError

    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks()
    v = col.cast(pa.float64()).to_numpy(zero_copy_only=False)
    if np.isnan(v).any():
        i = int(np.flatnonzero(np.isnan(v))[0])
        raise DataError(
            f"{pred}: the column {name} is NaN in " + (f"the row {row_values(table, i)}" if table is not None else f"row {i}"),
            hint=f"NaN marks a missing value: drop or fill those rows of {pred} (e.g. DataFrame.dropna())",
        )
    return v


def float_time_column(col, name: str, pred: str, table=None) -> list:
    """A float start or end column as exact time points (language/
    float_times.py), each distinct float converted once; null is unbounded
    (None), NaN refused with its row."""
    import numpy as np
    import pyarrow as pa

    from chronolog.language.float_times import float_time_values

    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks()
    if col.type != pa.float64():
        return _narrow_float_times(col, name, pred, table)
    nulls = col.null_count
    v = col.fill_null(0.0).to_numpy(zero_copy_only=False) if nulls else col.to_numpy(zero_copy_only=False)
    if np.isnan(v).any():
        i = int(np.flatnonzero(np.isnan(v))[0])
        raise _nan_time(pred, name, i, table=table)
    uniq, inv = np.unique(v, return_inverse=True)
    values = np.empty(len(uniq), dtype=object)
    values[:] = float_time_values(uniq)
    out = values[inv.reshape(-1)]
    if nulls:
        out[np.asarray(col.is_null().to_numpy(zero_copy_only=False), dtype=bool)] = None
    return out.tolist()


def _narrow_float_times(col, name: str, pred: str, table=None) -> list:
    """A float32 (or float16) time column: the number each float shows in
    its own width (a float32 0.1 is 1/10, not the float64 text of its
    value), by Arrow's cast to text (float32's shortest digits; a float16
    as its exact value, which Arrow writes in full)."""
    import pyarrow as pa

    from chronolog.language.timeline import parse_number

    enc = col.cast(pa.string()).dictionary_encode()
    values = []
    for text in enc.dictionary.to_pylist():
        try:
            values.append(parse_number(text))
        except ValueError:  # nan
            i = enc.indices.to_pylist().index(len(values))
            raise _nan_time(pred, name, i, table=table) from None
    return [None if i is None else values[i] for i in enc.indices.to_pylist()]


def _nan_time(pred: str, name: str, i: int, hint: str = "", table=None):
    """The error for a NaN in a float time column (row ``i`` of ``table``,
    named by its values when given)."""
    from chronolog.language.errors import DataError
    from chronolog.language.float_times import NAN_HINT

    row = f"the row {row_values(table, i)}" if table is not None else f"row {i}"
    return DataError(f"{pred}: the column {name} is NaN in {row}, which is not a time point", hint=NAN_HINT + hint)


def pandas_table(frame, pred: str):
    """A pandas DataFrame's Arrow table, its columns the arguments: checked
    first (:func:`check_pandas_frame`), and a column that no Arrow column
    holds named (:func:`refuse_mixed_column`)."""
    import pyarrow as pa

    check_pandas_frame(frame, pred)
    try:
        return pa.Table.from_pandas(frame, preserve_index=False)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        refuse_mixed_column(frame, pred)
        raise


# what errors about one table of every predicate (a ``pred`` column) name in place of a predicate
EVERY_PREDICATE = "the facts table"


def refuse_mixed_column(frame, pred: str) -> None:
    """A pandas column of Python values of several kinds (1 beside 'x',
    True beside 'false'), which no Arrow column holds: named, with its kinds
    (it was reported as a frame that is not a DataFrame, and through Spark
    as pyarrow's "Expected bytes, got a 'int' object")."""
    import pyarrow as pa

    from chronolog.language.errors import DataError

    for name in frame.columns:
        try:
            pa.array(frame[name], from_pandas=True)
        except pa.ArrowNotImplementedError:  # (complex numbers: no Arrow type holds them)
            raise DataError(f"{pred}: the column {name} holds values of type {frame[name].dtype}, which are not constants",
                            hint=f"make it a type a table holds (e.g. df[{str(name)!r}].astype(str)), or drop the column") from None
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            if str(frame[name].dtype).startswith("Sparse"):  # (its values are of one kind: Arrow reads no sparse column)
                raise DataError(f"{pred}: the column {name} is sparse ({frame[name].dtype}), which a table cannot hold",
                                hint=f"make it dense: df[{str(name)!r}] = df[{str(name)!r}].sparse.to_dense()") from None
            kinds = sorted({type(v).__name__ for v in frame[name] if v is not None})
            what = f"values of several kinds ({', '.join(kinds)})" if len(kinds) > 1 else f"{', '.join(kinds)} values"
            one = pred != EVERY_PREDICATE
            raise DataError(
                f"{'facts for ' if one else ''}{pred}: the column {name} holds {what}, which no column of a table holds",
                hint=f"make it one kind a table holds (e.g. df[{str(name)!r}].astype(str); an exact number as its "
                f"text in a column {name}_exact)" + (f", or give the facts as rows: {{{pred!r}: [((terms...), "
                                                     "(start, end)), ...]}" if one else ""),
            ) from None


def check_pandas_frame(frame, pred: str) -> None:
    """What a pandas DataFrame must hold before Arrow reads it without its
    index: no NaN times (:func:`refuse_nan_times`), no named index."""
    refuse_named_index(frame, pred)
    refuse_nan_times(frame, pred)


def refuse_named_index(frame, pred: str) -> None:
    """A pandas frame whose index is named (``df.set_index("c0")``): an
    error naming it.  Its columns are the arguments and the index is not
    read (as DuckDB and Polars read a DataFrame), so the facts came one
    argument short with only an arity error to say so."""
    names = [n for n in getattr(getattr(frame, "index", None), "names", ()) if n is not None]
    if names:
        from chronolog.language.errors import DataError

        shown = ", ".join(map(str, names))
        index = frame.index
        times = [str(n) for n, kind in zip(index.names, getattr(index, "dtypes", [index.dtype])) if getattr(kind, "kind", "") == "M"]
        said = f'; an index of times is read where @timeMapping names it: @timeMapping("{pred}", "{times[0]}", "{times[0]}").' if times else ""
        raise DataError(
            f"facts for {pred}: the DataFrame's index ({shown}) is not read: its columns are the arguments",
            hint="call df.reset_index() to read the index as columns, or df.reset_index(drop=True) to drop it" + said,
        )


def refuse_nan_times(frame, pred: str) -> None:
    """A pandas frame's float ``start``/``end`` holding NaN: an error with
    its row.  (Arrow's ``from_pandas`` makes NaN a null, which would be an
    unbounded end: pandas writes NaN for a missing value, not for infinity.)"""

    names = list(getattr(frame, "columns", ()))
    for name in ("start", "end"):
        if name + "_exact" in names:  # (Model.to_pandas: the exact text is read, null where unbounded)
            continue
        col = frame[name] if name in names else None
        if col is None or getattr(col.dtype, "kind", None) != "f":
            continue
        missing = col.isna().to_numpy()
        if missing.any():
            i = int(missing.nonzero()[0][0])
            raise _nan_time(pred, name, i, " (in pandas, a nullable Int64 or object column holds None for an unbounded end)")


def _is_constant_type(typ, time: bool) -> bool:
    """Whether an Arrow column of type ``typ`` holds what the engine reads:
    strings, numbers and instants (arguments also booleans, time columns
    also number text).  Durations, times of day, intervals, bytes and nested
    values are no constants and no time points (pandas' timedelta would
    otherwise pass through as an opaque object, and True as the time 1)."""
    import pyarrow as pa

    if pa.types.is_dictionary(typ):
        typ = typ.value_type
    t = pa.types
    text = t.is_string(typ) or t.is_large_string(typ) or t.is_string_view(typ)
    number = t.is_integer(typ) or t.is_floating(typ) or t.is_decimal(typ)
    instant = t.is_date(typ) or t.is_timestamp(typ)
    return text or number or instant or t.is_null(typ) or (t.is_boolean(typ) and not time)


def _refuse_non_constant(typ, name: str, pred: str, time: bool = False) -> None:
    """A column of a type the engine does not read: one sentence naming
    the column, its type and what it takes."""
    from chronolog.language.errors import DataError

    if _is_constant_type(typ, time):
        return
    if time:
        raise DataError(
            f"{pred}: the column {name} holds values of type {typ}, which are not time points",
            hint=f"give {name} as numbers (a duration as its count of time units), or as dates or timestamps "
            'in a program that declares @timeGranularity("days") (or hours, minutes, seconds)',
        )
    raise DataError(
        f"{pred}: the column {name} holds values of type {typ}, which are not constants",
        hint="an argument is a string, a number, a boolean or a date: convert or drop the column "
        "(a duration as a number, such as its seconds; a time of day as its text)",
    )


def row_values(table, i: int) -> str:
    """Row ``i`` of ``table`` as ``name=value, ...``: a row named by its
    values, which a Spark task's slice of the input (whose row numbers are
    not the input's) names as well as the whole table."""
    return ", ".join(f"{n}={table.column(n)[i].as_py()!r}" for n in table.schema.names)


def _null_term(table, name: str, pred: str):
    """A null argument has no value to reason with (the engine's terms are
    constants): refuse it, showing the row, on the driver and in Spark
    tasks alike."""
    from chronolog.language.errors import DataError

    col = table.column(name)
    i = col.is_null().to_pylist().index(True)
    raise DataError(
        f"{pred}: the column {name} is empty (null) in the row {row_values(table, i)}",
        hint=f"every argument of {pred} needs a value: filter or fill the nulls (only start and end may be null: unbounded)",
    )
