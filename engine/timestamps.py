"""Timestamps and dates in Arrow tables, exactly.

The engine's time line is the rationals.  A ``timestamp`` column becomes
the exact number of seconds since 1970-01-01 UTC (a decimal for sub-second
parts, never a float); a ``date32``/``date64`` column the seconds of its
midnight UTC.  :func:`to_timestamps` turns time columns back into
``timestamp[us, UTC]`` — the unit Spark holds — and refuses a value that is
not a whole number of microseconds rather than rounding it.
"""

from __future__ import annotations

from fractions import Fraction

from chronolog.language.dates import OffGrid
from chronolog.language.errors import DataError
from chronolog.language.timeline import normalize

_PER_SECOND = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}
_MIN_US, _MAX_US = -62135596800 * 10**6, (253402300800 * 10**6) - 1  # 0001-01-01 .. 9999-12-31T23:59:59.999999


def numbers_for_times(table, pred: str = "?"):
    """``table`` with its timestamp/date time columns (``start``, ``end``)
    replaced by exact seconds (int64 when whole, otherwise decimal text the
    layout reads exactly); date and timestamp arguments stay instants
    (engine/term_types.py)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    cols, changed = [], False
    for name, col in zip(table.schema.names, table.columns):
        t = col.type
        if (pa.types.is_timestamp(t) or pa.types.is_date(t)) and name in ("start", "end"):
            changed = True
            if pa.types.is_date32(t):
                ints = pc.multiply(col.cast(pa.int32()).cast(pa.int64()), 86400)
                col = ints
            elif pa.types.is_date64(t):
                col = _seconds(col.cast(pa.int64()), 1000)
            else:
                col = _seconds(col.cast(pa.int64()), _PER_SECOND[t.unit])
        cols.append(col)
    if not changed:
        return table
    return pa.Table.from_arrays(cols, names=table.schema.names) if isinstance(table, pa.Table) else pa.RecordBatch.from_arrays(cols, names=table.schema.names)


def _seconds(ints, per_second: int):
    import pyarrow as pa
    import pyarrow.compute as pc

    if per_second == 1:
        return ints
    whole = pc.all(pc.equal(pc.remainder(ints, per_second), 0)).as_py() if len(ints) else True
    if whole is not False:
        return pc.divide(ints, per_second)
    # sub-second values: exact decimal text (``1.5``), read back exactly
    from chronolog.language.timeline import format_number

    return pa.array(
        [None if v is None else format_number(normalize(Fraction(v, per_second))) for v in ints.to_pylist()],
        type=pa.string(),
    )


def to_timestamps(table, columns=("start", "end"), pred: str = "?"):
    """``table`` with ``columns`` (seconds since the epoch, exact) as
    ``timestamp[us, UTC]``; null (an infinite end) stays null."""
    import pyarrow as pa

    from chronolog.language.timeline import parse_number

    cols = []
    for name, col in zip(table.schema.names, table.columns):
        if name in columns and not pa.types.is_timestamp(col.type):
            out = []
            for v in col.to_pylist():
                if v is None:
                    out.append(None)
                    continue
                x = parse_number(v) if isinstance(v, str) else Fraction(v)
                us = Fraction(x) * 10**6
                if not _MIN_US <= us <= _MAX_US:
                    raise DataError(
                        f"{pred}: the time {v} (seconds since 1970) is outside the years 1 to 9999 that a timestamp holds",
                        hint="keep number time columns (the default), or give a horizon or window inside those years",
                    )
                if us.denominator != 1:  # (the message the embedded outputs give: language/dates.py)
                    raise OffGrid(x, pred, hint="keep number time columns (the default) or use times on a microsecond grid")
                out.append(int(us))
            col = pa.array(out, type=pa.timestamp("us", tz="UTC"))
        cols.append(col)
    return pa.Table.from_arrays(cols, names=table.schema.names)


def check_instants(facts, pred: str = "?") -> None:
    """Refuse ``(terms, interval)`` facts whose finite times a
    ``timestamp[us]`` cannot hold, before Spark meets them (where the
    failure would be a Java stack trace naming no predicate)."""
    import pyarrow as pa

    from chronolog.language.timeline import NEG_INF, POS_INF, format_number

    times = sorted({t for _, iv in facts for t in iv[:2] if t not in (NEG_INF, POS_INF)})
    if times:
        # all as text (a column of ints and fractions is no Arrow array), a
        # time's canonical text, which errors show as the driver's do
        to_timestamps(pa.table({"start": [format_number(t) for t in times]}), ("start",), pred)


def calendar_points(col, calendar):
    """``(indices, points, micros)`` of a date or timestamp column ``col``
    (no nulls) on the date timeline ``calendar``: each distinct instant
    once, as the exact point Calendar.point gives its datetime (its
    microseconds since 1970-01-01, UTC for a zoned column, over the unit's;
    a Fraction between units), by numpy rather than a Python datetime per
    row; ``micros`` the distinct instants' microseconds (int64, or Python
    ints where they pass 64 bits: dates some 292,000 years away),
    ``indices`` each row's.  Years past Python's datetimes (1 to 9999) are
    points as any others (``+10000-01-01`` is one in a fact): Arrow's
    conversion to Python refused them with an OverflowError.  A cast of
    nanoseconds that would lose some raises ``pyarrow.ArrowInvalid``."""
    import numpy as np

    idx, units = calendar_micros(col)
    per_unit = calendar.unit_seconds * 1_000_000  # (a whole number of microseconds for every unit)
    points = np.empty(len(units), dtype=object)
    whole = units % int(per_unit) == 0 if per_unit.denominator == 1 else np.zeros(len(units), dtype=bool)
    points[whole] = (units[whole] // int(per_unit) if whole.any() else units[whole]).tolist()
    for k in np.flatnonzero(~whole):  # (between units: an exact fraction each)
        points[k] = normalize(Fraction(int(units[k])) / per_unit)
    return idx, points, units


def calendar_micros(col):
    """``(indices, micros)``: each row's index into the distinct instants
    of a date or timestamp column ``col`` (no nulls), their microseconds
    since 1970-01-01 (int64, or Python ints past 64 bits)."""
    import numpy as np
    import pyarrow as pa

    typ = col.type
    if pa.types.is_date32(typ):
        raw, per = col.cast(pa.int32()).to_numpy(zero_copy_only=False).astype(np.int64), _DAY_US
    elif pa.types.is_date64(typ):
        raw, per = col.cast(pa.int64()).to_numpy(zero_copy_only=False), 1000
    else:
        if typ.unit == "ns":
            col = col.cast(pa.timestamp("us", typ.tz))
        raw, per = col.cast(pa.int64()).to_numpy(zero_copy_only=False), 10**6 // _PER_SECOND[col.type.unit]
    fits = not raw.size or max(-int(raw.min()), int(raw.max())) <= (2**63 - 1) // per
    micros = raw * per if fits else raw.astype(object) * per
    units, idx = np.unique(micros, return_inverse=True)
    return idx.reshape(-1).astype(np.int64), units


_DAY_US = 86_400_000_000
