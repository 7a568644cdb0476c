"""@bind Parquet and Arrow IPC inputs into the columnar executor's input
form (language/fact_columns.py's FactColumns), without a Python row per
fact -- what connectors/csv_columns.py does for CSV files.

The table is in the layout of engine/arrow.py (a column per argument,
``start``, ``end``, optionally ``start_closed``, ``end_closed``).  Each
column is dictionary-encoded and each **distinct** value converted once:
strings, integers and booleans as they are, float64 as float values (the
engine's value columns), ``decimal128`` (precision up to 18) as exact
numerator/denominator pairs by numpy (engine/columns/exact_columns.py),
dates and timestamps as instants (engine/term_types.py),
integer times and ``date32`` times on a timeline of whole days by numpy
(integer times counting 1/n units where the table says so, :data:`TIME_SCALE`),
timestamp times on a date timeline as exact points (each distinct instant once),
float64 times as exact numbers (each distinct float once: the number its
shortest text shows, language/float_times.py); a null start or end, or a
float's infinity, unbounded (a value of its own below or above every other).
The facts are indices into those values.

Same answers and the same errors as the row reader
(:func:`~chronolog.engine.arrow.table_to_rows`): any other type
(wider decimals, number text, nanoseconds between microseconds), a null term, a NaN, an empty interval --
returns None, and the row reader reads the table and reports the first bad
value with its row.
"""

from __future__ import annotations

_TIME = ("start", "end", "start_closed", "end_closed")

# schema metadata: integer time columns that count 1/scale units (exact ends
# between whole numbers given from Python as lists, chronolog/api.py), not units
TIME_SCALE = b"chronolog.time_scale"


def with_time_scale(table, scale: int):
    """``table`` whose integer start and end count ``1/scale`` units."""
    meta = dict(table.schema.metadata or {})
    meta[TIME_SCALE] = str(scale).encode()
    return table.replace_schema_metadata(meta)


def read_table_columns(table, pred: str, where, calendar=None, min_rows: int = 0, in_memory: bool = False):
    """The facts of ``pred`` in the Arrow ``table`` as a FactColumns, or
    None when the row reader must read it (see the module docstring);
    ``where``: the file's position for messages; ``min_rows``: None for
    tables with fewer rows; ``in_memory``: a table given in memory, not read
    from a file (the executor's choice counts them apart, FactColumns.in_memory)."""
    import pyarrow as pa

    from chronolog.engine.arrow import term_text_names

    if term_text_names(table):
        return None  # columns of term text (several kinds of constants), parsed by the row reader
    try:
        fc = _read(table, pred, where, calendar, min_rows)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, OverflowError):
        return None  # (a cast that does not fit, e.g. uint64 beyond int64): the row reader
    if fc is not None:
        fc.in_memory = in_memory
    return fc


def _read(table, pred, where, calendar, min_rows):
    import numpy as np
    import pyarrow as pa

    from chronolog.language.fact_columns import FactColumns, TimeRatios, _Column, _RatioColumn

    from chronolog.planner.input_size import weighted_rows

    names = list(table.schema.names)
    n = table.num_rows
    if n == 0 or weighted_rows(n, True) < min_rows or "start" not in names or "end" not in names:
        return None
    cols = []
    for name in names:
        if name in _TIME:
            continue
        col = _term_column(table.column(name))
        if col is None:
            return None
        cols.append(col)
    times = _time_values(table, calendar)
    if times is None:
        return None
    idx, values, units, ints = times
    if isinstance(values, TimeRatios):  # (instants between the timeline's units: fractions over one denominator; or unbounded ends)
        between_units = n < min_rows and values.den != 1
        lo, hi = _RatioColumn(idx[:n], values), _RatioColumn(idx[n:], values)
    else:
        between_units = n < min_rows and _between_units(values)
        lo, hi = _Column(idx[:n], values), _Column(idx[n:], values)
        lo.ints = hi.ints = ints  # (whole numbers: no time scale to look for, the units read by numpy)
    if weighted_rows(n, between_units) < min_rows:
        return None

    def closed(name):
        if name not in names:
            return np.ones(n, dtype=bool)
        c = table.column(name)
        if c.null_count or not pa.types.is_boolean(c.type):
            return None
        return np.asarray(c.to_numpy(), dtype=bool)

    lc, hc = closed("start_closed"), closed("end_closed")
    if lc is None or hc is None:
        return None
    a, b = units[lo.indices], units[hi.indices]
    if not np.all((a < b) | ((a == b) & lc & hc)):
        return None  # an empty interval: the row reader names its row
    fc = FactColumns.of_table(pred, cols, lo, hi, lc, hc, where)
    fc.between_units = between_units
    return fc


def _between_units(values) -> bool:
    """Whether a time point of ``values`` falls between the timeline's units."""
    return any(type(v) is not int and v.denominator != 1 for v in values)


def _term_column(col):
    """A term column as indices into its converted distinct values, or None."""
    import numpy as np
    import pyarrow as pa

    from chronolog.engine.term_types import instants, is_instant_type
    from chronolog.language.fact_columns import _Column

    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks()
    if pa.types.is_dictionary(col.type):  # (pandas' category, Arrow's dictionary: decoded by Arrow, then coded as any
        col = col.cast(col.type.value_type)  # column; to the row reader it was a Python value per row, 10x the time)
    if pa.types.is_string_view(col.type):  # (Polars' and DuckDB's newest Arrow strings: the row reader took 10x the time)
        col = col.cast(pa.large_string())
    typ = col.type
    if col.null_count:
        return None
    if pa.types.is_floating(typ):
        v = col.cast(pa.float64()).to_numpy(zero_copy_only=False)
        if np.isnan(v).any():
            return None
        return _Column(np.arange(len(v), dtype=np.int64), v)  # float values: one per row (value columns)
    if pa.types.is_decimal(typ):  # exact pairs, one per row, no Python Decimal
        from chronolog.engine.columns.exact_columns import of_decimals
        from chronolog.language.fact_columns import _ExactColumn

        pairs = of_decimals(col)
        if pairs is None:
            return None
        return _ExactColumn(np.arange(len(col), dtype=np.int64), *pairs)
    if pa.types.is_timestamp(typ) and typ.unit == "ns":
        return None  # (nanoseconds: the row reader keeps whole microseconds, or names the row that has finer)
    if is_instant_type(typ):  # each distinct date or timestamp as its instant (engine/term_types.py)
        enc = col.dictionary_encode()
        return _Column(enc.indices.to_numpy(zero_copy_only=False).astype(np.int64), instants(enc.dictionary))
    if not (pa.types.is_string(typ) or pa.types.is_large_string(typ) or pa.types.is_integer(typ) or pa.types.is_boolean(typ)):
        return None
    if pa.types.is_integer(typ):  # exact pairs, one per row, no Python int coded per distinct value
        from .cell_types import distinct_ints, exact_ints

        num = col.cast(pa.int64()).to_numpy(zero_copy_only=False)
        got = distinct_ints(num)  # (a few distinct values, as a CSV's: a pair each, not a pair and an index a row)
        return exact_ints(*got) if got is not None else exact_ints(num, np.arange(len(num), dtype=np.int64))
    enc = col.dictionary_encode()
    indices = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    if pa.types.is_boolean(typ):  # #T/#F: terms of their own, never 1/0 (language/booleans.py)
        from chronolog.language.booleans import boolean

        return _Column(indices, [boolean(v) for v in enc.dictionary.to_pylist()])
    import polars as pl  # strings: a polars Series, coded by a join

    from chronolog.language.fact_columns import _NameColumn

    return _NameColumn(indices, pl.Series(pl.from_arrow(enc.dictionary), dtype=pl.String))


def _time_values(table, calendar):
    """``(indices of start then end, shared distinct values, their int64
    units, the units again where the values are those ints, else None)``
    when every end is an integer on the timeline or unbounded (a null, a
    float's infinity): integer columns on a numeric timeline, ``date32`` on
    a timeline of whole days (or a unit dividing a day); float64 columns
    (:func:`_float_times`); else None.
    (Whole values given as ints spare the run a Python pass over every
    distinct time for its scale: 13 ms of a 100 ms rolling-window call
    over 100,000 days of Parquet.)"""
    import pyarrow as pa

    both = pa.chunked_array(_one_type(table.column("start").combine_chunks(), table.column("end").combine_chunks()))
    unbounded = _unbounded(both.combine_chunks(), table.num_rows)
    if unbounded is None:
        return None
    both, starts, ends = pa.chunked_array([unbounded[0]]), *unbounded[1:]
    got = _bounded_time_values(table, both, calendar)
    if got is None or not (starts.any() or ends.any()):
        return got
    return _with_unbounded(*got, starts, ends)


def _bounded_time_values(table, both, calendar):
    """:func:`_time_values` of start and end columns of finite values."""
    from fractions import Fraction

    import numpy as np
    import pyarrow as pa

    typ = both.type
    if calendar is None and typ == pa.float64():  # (float32: the row reader, in its own width)
        return _float_times(both.combine_chunks().to_numpy(zero_copy_only=False), table.num_rows)
    if calendar is None and pa.types.is_integer(typ):
        ints = both.combine_chunks().cast(pa.int64())
    elif calendar is not None and pa.types.is_date32(typ):
        per_day = Fraction(86400) / calendar.unit_seconds
        if per_day.denominator != 1:
            return None
        ints = both.combine_chunks().cast(pa.int32()).cast(pa.int64())
        days = ints.to_numpy()
        if days.size and days.min() < -719162:  # before 0001-01-01: the row reader's dates
            return None
        ints = pa.array(days * int(per_day))
    elif calendar is None and pa.types.is_decimal128(typ):  # (exact decimals, as a database's NUMERIC epoch seconds)
        from chronolog.engine.columns.exact_columns import of_decimals
        from chronolog.language.exact_pairs import over_one_denominator

        pairs = of_decimals(both.combine_chunks())
        scaled = None if pairs is None else over_one_denominator(*pairs)
        if scaled is None:
            return None
        units, idx = np.unique(scaled[0], return_inverse=True)
        return (idx.reshape(-1).astype(np.int64), *_ratio_values(units, scaled[1], units))
    elif calendar is not None and pa.types.is_timestamp(typ):
        from chronolog.engine.timestamps import calendar_micros

        try:
            idx, micros = calendar_micros(both.combine_chunks())  # (the microseconds are the units)
        except pa.ArrowInvalid:  # (nanoseconds between microseconds: the row reader names them)
            return None
        if micros.dtype == object:  # (past 64 bits of microseconds: the row reader's exact points)
            return None
        ratios = calendar.unit_ratios(micros)
        if ratios is None:
            return None
        return (idx, *_ratio_values(*ratios, micros))
    else:
        return None
    enc = ints.dictionary_encode()
    units = enc.dictionary.to_numpy()
    if units.size and np.abs(units).max() >= 1 << 60:
        return None
    values = np.empty(len(units), dtype=object)
    scale = (table.schema.metadata or {}).get(TIME_SCALE, b"1")
    scale = int(scale) if scale.isdigit() else 1  # (only api._plain_table writes it)
    if calendar is None and scale > 1:  # (each distinct time once: an exact point between whole numbers)
        from chronolog.language.timeline import _ratio

        values[:] = [_ratio(u, scale) for u in units.tolist()]
        return enc.indices.to_numpy().astype(np.int64), values, units, None
    values[:] = units.tolist()
    return enc.indices.to_numpy().astype(np.int64), values, units, units


def _unbounded(both, n: int):
    """``(both, starts, ends)``: the start then end column ``both`` with a
    finite value in place of each unbounded end (a null; a float's -inf
    start or +inf end), and where those were (numpy bools of the starts,
    of the ends); None for a start at +inf or an end at -inf (the row
    reader names the row)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    mask = np.asarray(both.is_null(), dtype=bool)
    if pa.types.is_floating(both.type):
        v = both.to_numpy(zero_copy_only=False)  # (a null is NaN here, masked already)
        if np.any(v[:n] == np.inf) or np.any(v[n:] == -np.inf):
            return None
        mask |= np.isinf(v)
    if not mask.any():
        return both, mask[:n], mask[n:]
    finite = np.flatnonzero(~mask)
    if len(finite):
        fill = both[int(finite[0])]
    else:  # (every end unbounded: a zero of the type stands in, read by no fact)
        typ = pa.int64() if pa.types.is_null(both.type) else both.type
        if pa.types.is_decimal(typ):
            from decimal import Decimal

            fill = pa.scalar(Decimal(0), typ)
        else:  # (a type no cast reaches: read_table_columns hands the table to the row reader)
            fill = pa.array([0], pa.int32() if pa.types.is_date32(typ) else pa.int64()).cast(typ)[0]
        both = both.cast(typ)
    return pc.if_else(pa.array(mask), fill, both), mask[:n], mask[n:]


def _with_unbounded(idx, values, units, ints, starts, ends) -> tuple:
    """:func:`_time_values` with -inf at the ``starts`` marked and +inf at
    the ``ends``: a value more for each infinity they hold, its order key
    below or above every other (the values over one denominator:
    TimeRatios and its ``inf``)."""
    import numpy as np

    from chronolog.language.fact_columns import TimeRatios
    from chronolog.language.timeline import NEG_INF, POS_INF

    low, high = (-np.inf, np.inf) if units.dtype.kind == "f" else (np.iinfo(np.int64).min, np.iinfo(np.int64).max)
    k, n = len(units), len(starts)
    idx = idx.copy()
    added = [(part, at, value, sign, key) for part, at, value, sign, key in
             ((idx[:n], starts, NEG_INF, -1, low), (idx[n:], ends, POS_INF, 1, high)) if at.any()]
    for j, (part, at, *_) in enumerate(added):
        part[at] = k + j  # (a view of idx)
    units = np.concatenate([units, np.array([key for *_, key in added], dtype=units.dtype)])
    inf = np.zeros(len(units), dtype=np.int8)
    inf[k:] = [sign for *_, sign, _ in added]
    if isinstance(values, TimeRatios) or ints is not None:
        ratios = values if isinstance(values, TimeRatios) else TimeRatios(ints, 1)
        return idx, TimeRatios(np.concatenate([ratios.num, np.zeros(len(added), dtype=np.int64)]), ratios.den, inf), units, None
    out = np.empty(len(units), dtype=object)
    out[:k] = values
    out[k:] = [value for _, _, value, _, _ in added]
    return idx, out, units, None


def _ratio_values(num, den: int, units) -> tuple:
    """``(values, units, ints)`` of :func:`_time_values` for distinct times
    ``num / den`` (``units``: their order keys): the whole numbers, handed
    over as int64 too, where ``den`` is 1, else their TimeRatios."""
    import numpy as np

    from chronolog.language.fact_columns import TimeRatios

    if den != 1:
        return TimeRatios(num, den), units, None
    values = np.empty(len(num), dtype=object)
    values[:] = num.tolist()
    return values, units, num


def _one_type(start, end) -> list:
    """``[start, end]`` in one type where each holds the other's values
    exactly: integers of two widths as int64, integers beside float64 as
    float64 (a safe cast: an integer no float holds raises, and the row
    reader reads the table); other pairs as they are (two types: the row
    reader)."""
    import pyarrow as pa

    s, e = start.type, end.type
    if s == e:
        return [start, end]
    if pa.types.is_null(s) or pa.types.is_null(e):  # (every start, or every end, unbounded)
        return [start.cast(e), end] if pa.types.is_null(s) else [start, end.cast(s)]
    if pa.types.is_integer(s) and pa.types.is_integer(e):
        return [start.cast(pa.int64()), end.cast(pa.int64())]
    if {s, e} <= {pa.float64()} | {t for t in (s, e) if pa.types.is_integer(t)}:
        return [start.cast(pa.float64()), end.cast(pa.float64())]
    return [start, end]


def _float_times(v, n: int):
    """:func:`_time_values` of float64 start and end columns (``v``: the
    ``n`` starts then the ends): each distinct float as its exact time
    (language/float_times.py), over one denominator where they fit 64 bits;
    the floats themselves are the units, as the conversion keeps their
    order.  None for a NaN, a start at +inf or an end
    at -inf (the row reader reports the row)."""
    import numpy as np

    from chronolog.language.exact_pairs import over_one_denominator
    from chronolog.language.float_times import float_time_pairs, float_time_values

    if np.isnan(v).any():  # (no infinity here: :func:`_unbounded` put a finite value in its place)
        return None
    units, idx = np.unique(v, return_inverse=True)
    idx = idx.reshape(-1).astype(np.int64)
    if np.isfinite(units).all():  # (each float's exact time, all over one denominator where they fit: no Fraction each)
        num, den, ok = float_time_pairs(units)
        scaled = over_one_denominator(num, den) if ok.all() else None
        if scaled is not None:
            return (idx, *_ratio_values(*scaled, units))
    values = np.empty(len(units), dtype=object)
    values[:] = float_time_values(units)
    return idx, values, units, None
