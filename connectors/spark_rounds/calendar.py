"""A calendar timeline (``@timeGranularity``) in the rounds: dates and
timestamps as time points, durations as windows.

The engine's time point on a calendar is the exact number of granularity
units since 1970-01-01 UTC (language/dates.py).  Spark holds timestamps as
microseconds since then, so here the grid (grid.py) is the microsecond:
a unit is ``L = unit_seconds * 10^6`` codes' worth of points (a day is
86,400,000,000), a date column's point is ``unix_date * 86400 * 10^6``, a
timestamp's ``unix_micros``, and an output end is ``timestamp_micros`` of
it, the UTC instants the engine's answers hold.  Nothing is rounded: a
window that is not a whole number of microseconds (a seventh of a day)
never gets here (language/dates.py refuses it when the program loads); a
time column of numbers or text (the engine reads ISO text and reports
numbers) and an input time too near the years 1 or 9999 for the program's
windows to keep its answers inside the years a timestamp holds fall back
to one task.
"""

from __future__ import annotations

from fractions import Fraction

from .fragment import NotRelational

MICROS = 10**6
DAY = 86400 * MICROS
# the first and last microsecond a timestamp holds (0001-01-01, 9999-12-31T23:59:59.999999)
MIN_US, MAX_US = -62135596800 * MICROS, 253402300800 * MICROS - 1


def micros_per_unit(calendar) -> int:
    """Microseconds in one unit of ``calendar`` (a whole number for every
    granularity chronolog knows: days to milliseconds)."""
    v = Fraction(calendar.unit_seconds) * MICROS
    if v.denominator != 1:  # pragma: no cover - every unit is a whole number of microseconds
        raise NotRelational(f"a time granularity of {calendar.unit} (not whole microseconds)")
    return v.numerator


def reaches(plan) -> list:
    """How far each calendar-unit time grouping of ``plan`` may move a time
    (one period: 31 days a month, 366 a year), in the timeline's units,
    among the windows that keep an input's answers inside the years a
    timestamp holds (entry.py; ``/\\[N]`` is among the window points)."""
    from chronolog.planner.physical import TimeGroup, rule_operator, walk

    return [op.grouping.reach() for r in plan.rules for op in walk(rule_operator(r))
            if isinstance(op, TimeGroup) and op.grouping.unit is not None]


def micros_sql(name: str, typ) -> str:
    """SQL of the microseconds since the epoch of the time column ``name``
    (SQL text) of Spark type ``typ``; NotRelational for a column the
    calendar reads on the driver (numbers are reported there, text parsed)."""
    from pyspark.sql import types as T

    from chronolog.engine.term_types import instant_micros_sql

    micros = instant_micros_sql(name, typ.simpleString())  # (a wall-clock time read as UTC, as the engine reads it)
    if micros is not None:
        return micros
    if isinstance(typ, T.NullType):
        return "CAST(NULL AS BIGINT)"
    raise NotRelational(f"a time column of Spark type {typ.simpleString()} on a calendar (dates or timestamps only on this path)")


def code_bounds(drift: int, per_micro=1) -> tuple:
    """The codes an input end may have so that every answer, moved by at
    most ``drift`` codes by the program's windows, stays inside the years
    a timestamp holds: ``(lo, hi)``, exclusive.  ``per_micro``: grid
    points per microsecond (1 on a calendar; ``10^digits / 10^6`` for
    seconds on a numeric timeline whose answers are timestamps)."""
    import math

    lo, hi = Fraction(2 * MIN_US) * Fraction(per_micro), Fraction(2 * MAX_US) * Fraction(per_micro)
    return math.ceil(lo) + drift - 1, math.floor(hi) - drift + 1


def seconds_sql(name: str, typ, L: int) -> str:
    """On a numeric timeline (no calendar), a date or timestamp time column
    is its exact seconds since 1970 UTC, as the engine reads it: SQL of
    those seconds on a grid of ``L`` points per second (``L`` at least
    10^6 for a timestamp: classes.time_digits)."""
    from pyspark.sql import types as T

    if isinstance(typ, T.DateType):
        return f"(CAST(unix_date({name}) AS BIGINT) * {86400 * L})"
    if L % MICROS:  # pragma: no cover - time_digits gives timestamps 6 digits
        raise NotRelational("timestamps on a grid coarser than microseconds")
    return f"({micros_sql(name, typ)} * {L // MICROS})"


def utc_times(table):
    """The program's own facts (an Arrow table of facts_to_arrow on the
    calendar) with naive timestamps marked UTC, so that Spark reads the
    instants the engine means whatever the session's time zone."""
    import pyarrow as pa

    cols = [c.cast(pa.timestamp("us", tz="UTC")) if pa.types.is_timestamp(c.type) and c.type.tz is None else c
            for c in table.columns]
    return pa.Table.from_arrays(cols, names=table.schema.names)


def term_decimals(typ):
    """Digits after the point of a decimal term column of Spark type
    ``typ``, None for any other."""
    from pyspark.sql import types as T

    return typ.scale if isinstance(typ, T.DecimalType) else None
