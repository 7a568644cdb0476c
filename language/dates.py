"""Dates and times at the edges of an exact numeric timeline.

The engine only knows numbers (``int``/``Fraction``, ±inf).  A program that
writes dates (``@[2020-01-01, 2020-02-01)``), durations (``<->[0, P3D]``) or
declares ``@timeGranularity("days").`` is on a *calendar timeline*: every
date becomes the number of granularity units since 1970-01-01T00:00:00
(UTC; naive datetimes are read as UTC), exactly — a datetime at day
granularity is a fraction of a day, never rounded.  Results are printed back
as dates.  The conversion happens here, called by the parser, the fact
loader and the CSV/Arrow connectors, and by the output formatting; nothing
in the planner or the engine changes.

A :class:`Calendar` is that mapping.  The parser leaves :class:`DatePoint`
and :class:`Duration` placeholders in the AST and :func:`resolve` replaces
them once the whole program (and so its granularity) is known.
"""

from __future__ import annotations

import contextlib
import math
import re
from fractions import Fraction

from .errors import DataError, Note, ProgramError
from .records import record
from .timeline import NEG_INF, POS_INF, format_number, make, normalize, why_empty
from .patterns import LazyPattern


NUMBERS_ON_DATES = ("a number is no date: convert numbers such as epoch seconds to timestamps first "
                    "(pandas.to_datetime(column, unit='s')), or leave out @timeGranularity to count time in numbers")  # (a time column of numbers on a date timeline)


def epoch():
    """1970-01-01, the origin of every timeline.  (datetime is imported
    where a date is met: a program without one imports none of it, 5M
    instructions of a 10-fact run.)"""
    import datetime as _dt

    return _dt.datetime(1970, 1, 1)

# Seconds per unit of the fixed-length units.  Months and years have no fixed
# length: they are a granularity of grouping (time_grouping), not of the
# timeline.
UNIT_SECONDS = {
    "days": 86400,
    "hours": 3600,
    "minutes": 60,
    "seconds": 1,
    "milliseconds": Fraction(1, 1000),
}
CALENDAR_UNITS = ("years", "months")
_ALIASES = {
    "day": "days", "d": "days", "hour": "hours", "h": "hours", "minute": "minutes", "min": "minutes",
    "second": "seconds", "s": "seconds", "sec": "seconds", "millisecond": "milliseconds", "ms": "milliseconds",
    "year": "years", "month": "months", "week": "weeks",
}

# ISO 8601's astronomical years: four digits (0000 is 1 BC), or a sign and
# four or more (the expanded form: -0030, +10000); a UTC offset ``Z``,
# ``+02:00``, and after a time also ``+0200`` and ``+02`` (ISO 8601's basic
# forms: Polars writes ``+0000``, PostgreSQL and DuckDB ``+00``).
DATE_RE = LazyPattern(
    r"^([+-]\d{4,}|\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?"
    r"(Z|[+-]\d{2}:\d{2}|(?(4)[+-]\d{2}(?:\d{2})?|(?!)))?$"
)
# DATE_RE's forms that Calendar.whole_points_where computes by polars: a four-digit
# year, a time to the microsecond, in UTC or at an offset of the time.
_WHOLE_POINT = (
    r"^([0-9]{4}-[01][0-9]-[0-3][0-9])(?:[T ]([0-2][0-9]):([0-5][0-9])(?::([0-5][0-9])(?:\.([0-9]{1,6}))?)?"
    r"(Z|([+-])([0-2][0-9])(?::?([0-5][0-9]))?)?)?$"
)
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _fixed_layout_micros(texts):
    """:meth:`Calendar.micros_where` of ``texts`` (a polars String Series)
    that all share one layout of :data:`_WHOLE_POINT` (``2024-03-01``,
    ``2024-03-01T10:00``, ``...:05``, ``...:05.125``, a ``T`` or a blank;
    after a time no zone, ``Z``, or an offset ``+01:00``, ``+0100``,
    ``+01``): each field read at its place in one matrix of the texts'
    bytes by numpy, the date checked and counted by the civil calendar's
    arithmetic (days from 1970-01-01 as ``datetime.date`` counts them);
    None where any text is of another shape (the pattern reads them all).
    The pattern's groups and a date parse per distinct text took 0.43 s
    of 1.2M ticks to the millisecond; their bytes so, 0.14 s."""
    import numpy as np
    import pyarrow as pa

    n = len(texts)
    arr = texts.to_arrow()
    if arr.type != pa.large_string():
        arr = arr.cast(pa.large_string())
    if n == 0 or arr.null_count:
        return None
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int64)[arr.offset: arr.offset + n + 1]
    width = int(offsets[1] - offsets[0])
    if not 10 <= width <= 32 or np.any(np.diff(offsets) != width):
        return None
    m = np.frombuffer(arr.buffers()[2], dtype=np.uint8)[offsets[0]: offsets[0] + n * width].reshape(n, width)
    for zone in (0, 1, 6, 5, 3):  # (the layouts of this width: their marks tell them apart)
        core = width - zone
        if (core in (10, 16, 19) or 21 <= core <= 26) and not (zone and core == 10):
            got = _layout_fields(m, core, zone)
            if got is not None:
                return got
    return None


def _layout_fields(m, core: int, zone: int):
    """:func:`_fixed_layout_micros` of the texts' bytes ``m`` (a row each)
    as ``core`` characters of date and time then ``zone`` of a zone (0:
    none, 1: ``Z``, 6: ``+01:00``, 5: ``+0100``, 3: ``+01``), or None where
    a text is not of that layout."""
    import numpy as np

    n = len(m)
    digits = [0, 1, 2, 3, 5, 6, 8, 9] + ([11, 12, 14, 15] if core >= 16 else []) + ([17, 18] if core >= 19 else []) + list(range(20, core))
    marks = {4: b"-", 7: b"-"}
    if core >= 16:
        marks.update({10: b"T ", 13: b":"})
    if core >= 19:
        marks[16] = b":"
    if core >= 21:
        marks[19] = b"."
    if zone == 1:
        marks[core] = b"Z"
    elif zone:
        marks[core] = b"+-"
        digits += [core + 1, core + 2] + ([core + zone - 2, core + zone - 1] if zone > 3 else [])
        if zone == 6:
            marks[core + 3] = b":"
    d = np.ascontiguousarray(m[:, digits].T)  # (a row of uint8 per place: each field's arithmetic contiguous)
    d -= ord("0")  # (a byte below "0" wraps past 9)
    if not (d <= 9).all() or not all(np.isin(m[:, at], np.frombuffer(chars, dtype=np.uint8)).all() for at, chars in marks.items()):
        return None
    row = dict(zip(digits, d))

    def number(*places):
        value = row[places[0]].astype(np.int32)
        for at in places[1:]:
            value = value * 10 + row[at]
        return value

    year, month, day = number(0, 1, 2, 3), number(5, 6), number(8, 9)
    fine = (row[5] <= 1) & (row[8] <= 3)  # (the pattern's [01] and [0-3])
    seconds = np.zeros(n, dtype=np.int64)
    if core >= 16:
        hour = number(11, 12)
        fine &= (row[11] <= 2) & (row[14] <= 5) & (hour <= 23)
        seconds += hour * 3600 + number(14, 15) * 60
    if core >= 19:
        fine &= row[17] <= 5
        seconds += number(17, 18)
    leap = ((year % 4 == 0) & (year % 100 != 0)) | (year % 400 == 0)
    month_days = np.array(_MONTH_DAYS, dtype=np.int32)[np.clip(month - 1, 0, 11)] + (leap & (month == 2))
    fine &= (month >= 1) & (month <= 12) & (day >= 1) & (day <= month_days) & (year >= 2) & (year <= 9998)
    y = year - (month <= 2)  # (days from the civil date: March first, eras of 400 years)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * ((month + 9) % 12) + 2) // 5 + day - 1
    days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    micros = (days.astype(np.int64) * 86400 + seconds) * 1_000_000
    if core >= 21:  # (the fraction's digits, to the microsecond)
        micros += number(*range(20, core)).astype(np.int64) * 10 ** (26 - core)
    if zone > 1:  # (the pattern's [0-2][0-9] and [0-5][0-9]; an offset past a day left to parse_point, which names it)
        hours = number(core + 1, core + 2)
        minutes = number(core + zone - 2, core + zone - 1) if zone > 3 else 0
        fine &= (row[core + 1] <= 2) & (hours <= 23) & ((row[core + zone - 2] <= 5) if zone > 3 else True)
        sign = np.where(m[:, core] == ord("-"), -1, 1)
        micros -= sign * (hours.astype(np.int64) * 3600 + minutes * 60) * 1_000_000
    return micros, np.asarray(fine, dtype=bool)


_DURATION_RE = LazyPattern(
    r"^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$"
)


# The Gregorian calendar repeats every 400 years (146,097 days, whole weeks):
# a date beyond Python's years 1..9999 is computed as the same date whole
# cycles away and the cycles added back (Python's datetime has no wider type).
CYCLE_YEARS = 400
CYCLE_SECONDS = 146_097 * 86400


def datetime_micros(values):
    """The microseconds since 1970-01-01 of naive datetimes (instant terms,
    read as UTC; no None) as numpy int64, by polars' conversion:
    numpy's own of Python datetimes took 1.1 us each, Arrow's 0.5, polars'
    0.2 (500,000 timestamps as terms, ordered and typed for Arrow)."""
    import polars as pl

    return pl.Series(values, dtype=pl.Datetime("us")).cast(pl.Int64).to_numpy()


def unit_name(text: str) -> str:
    """The canonical (plural) name of a time unit, or the text unchanged."""
    t = str(text).strip().lower()
    return _ALIASES.get(t, t)


# ---------------------------------------------------------------- placeholders


# how a dated point on a numeric timeline is refused (the Spark data source,
# which reads fact text without a program, rewords it by this phrase)
NUMERIC_TIMELINE = "this program's timeline is numeric"


@record(frozen=True)
class DatePoint:
    """A date or datetime literal as written, before the granularity is known."""

    text: str
    value: _dt.datetime
    is_date: bool
    cycles: int = 0  # 400-year cycles to add to value (a year beyond 1..9999)


@record(frozen=True)
class Duration:
    """An ISO-8601 duration (``P3D``, ``PT12H30M``) as written."""

    text: str
    seconds: Fraction


@record(frozen=True)
class NegativeDuration:
    """``-P7D``: a repetition period running into the past."""

    duration: Duration

    @property
    def text(self) -> str:
        return "-" + self.duration.text


class TooFine(ValueError):
    """A datetime written past the microsecond: a point printed back as a
    datetime has at most 6 fractional digits, and Arrow's and Spark's
    timestamps hold microseconds, so a finer one is refused (not rounded)."""

    hint = "a datetime is exact to the microsecond: write at most 6 fractional digits of a second (2020-01-31T12:30:15.123456)"


# A date-time with a zone written otherwise than ISO 8601's ``Z``,
# ``+02:00``, ``+0200`` or ``+02`` right after the time: a name (`` UTC``,
# ``GMT``: BigQuery's exports) or an offset after a space
_OTHER_ZONE = LazyPattern(r"^\S*\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(\s+[+-]\d{2}(:?\d{2})?|\s*[A-Za-z]{1,5})$")
ZONE_HINT = ("a date-time's zone is an ISO 8601 offset right after the time, +02:00 (+0200, +02), or Z for UTC: "
             "2024-01-01T10:00:00+02:00, 2024-01-01T10:00:00Z (without one it is UTC already)")


def date_problem(error: ValueError, message: str, hint: str, text: str | None = None) -> tuple:
    """``(message, hint)`` of an error about a date that did not read:
    :class:`TooFine`'s own, else the caller's, or how to write the zone
    where ``text`` has one ISO 8601 does not read (`` UTC``, `` +0200``)."""
    if isinstance(error, TooFine):
        return str(error), error.hint
    if text is not None and _OTHER_ZONE.match(text.strip()):
        return message, ZONE_HINT
    return message, hint


def parse_date(text: str) -> tuple:
    """``(datetime, cycles, is_date)`` for an ISO date or datetime, any year:
    the instant is ``datetime`` plus ``cycles`` 400-year cycles (0 for years
    2..9998); ``ValueError`` when it is not one.  A UTC offset (``Z``,
    ``+02:00``) is converted to UTC."""
    m = DATE_RE.match(text.strip())
    if m is None:
        raise ValueError(f"not a date: {text!r}")
    y, mo, d, hh, mi, ss, frac, tz = m.groups()
    if frac is not None and len(frac) > 6:
        raise TooFine(f"{text.strip()} has {len(frac)} fractional digits of a second, past the microsecond")
    year = int(y)
    # near Python's year limits, compute in years 2000..2399 so that a UTC offset stays in range
    cycles = 0 if 1 < year < 9999 else (year - 2000) // CYCLE_YEARS
    micro = int((frac or "0").ljust(6, "0"))
    import datetime as _dt

    value = _dt.datetime(year - cycles * CYCLE_YEARS, int(mo), int(d), int(hh or 0), int(mi or 0), int(ss or 0), micro)
    if tz and tz != "Z":
        sign = 1 if tz[0] == "+" else -1
        hours, minutes = int(tz[1:3]), int(tz[-2:]) if len(tz) > 3 else 0
        if hours > 23 or minutes > 59:  # +25:00 is no UTC offset (it was taken as one day and an hour)
            raise ValueError(f"not a UTC offset: {tz!r}")
        value -= sign * _dt.timedelta(hours=hours, minutes=minutes)
    return value, cycles, hh is None


def parse_datetime(text: str) -> tuple:
    """``(datetime, is_date)`` for an ISO date or datetime within Python's
    years 1..9999 (a date as a value); ``ValueError`` otherwise."""
    value, cycles, is_date = parse_date(text)
    if cycles:
        value = value.replace(year=value.year + cycles * CYCLE_YEARS)  # (ValueError beyond 1..9999)
    return value, is_date


def date_point(text: str) -> DatePoint:
    value, cycles, is_date = parse_date(text)
    return DatePoint(text, value, is_date, cycles)


def parse_duration(text: str) -> Duration:
    """An ISO-8601 duration of fixed length; months and years are refused."""
    m = _DURATION_RE.match(text.strip())
    if m is None or text.strip() in ("P", "PT") or text.strip().endswith("T"):
        raise ValueError(f"not a duration: {text!r}")
    y, mo, w, d, h, mi, s = m.groups()
    if y or mo:
        raise ValueError("months and years have no fixed length")
    secs = Fraction(s or 0) + int(mi or 0) * 60 + int(h or 0) * 3600 + int(d or 0) * 86400 + int(w or 0) * 7 * 86400
    return Duration(text, secs)


class OffGrid(DataError):
    """A time between two microseconds met on its way out (text, a table, a
    file): computed by a rule's arithmetic (``E = S + 1/7`` on days), it
    is no date or timestamp, and printing it as a number among dates would
    read back as something else.  ``seconds``: the time since 1970."""

    def __init__(self, seconds, pred: str | None = None, hint: str = ""):
        self.seconds, self.pred = seconds, pred
        micros = Fraction(seconds) * 1_000_000
        around = ""
        import datetime as _dt

        try:
            lo = epoch() + _dt.timedelta(microseconds=math.floor(micros))
            around = f" (between {lo.isoformat()} and {(lo + _dt.timedelta(microseconds=1)).isoformat()})"
        except OverflowError:  # (beyond Python's years: the seconds say it)
            pass
        super().__init__(
            f"{pred + ': ' if pred else ''}the time {format_number(normalize(Fraction(seconds)))} is not a whole number "
            f"of microseconds, so a timestamp cannot hold it exactly{around}",
            hint=hint or "on a date timeline the rules' arithmetic must keep times on whole microseconds "
                         "(Model.facts() and query() give the exact numbers)",
        )

    def of(self, pred: str) -> "OffGrid":
        """The same error naming the predicate whose fact holds the time."""
        return self if self.pred is not None else OffGrid(self.seconds, pred, self.hint)


@contextlib.contextmanager
def naming(pred: str):
    """An :class:`OffGrid` raised within names ``pred``, whose output met it."""
    try:
        yield
    except OffGrid as e:
        raise e.of(pred) from None


# ---------------------------------------------------------------- calendar


class Calendar:
    """The mapping between datetimes and time points at one granularity."""

    def __init__(self, unit: str = "days"):
        self.unit = unit
        self.unit_seconds = Fraction(UNIT_SECONDS[unit])
        self._unit_micros = int(self.unit_seconds * 1_000_000)  # (every unit's is whole)
        self._texts: dict = {}  # point -> its text: a stream prints the same few points again and again

    def __repr__(self) -> str:
        return f"Calendar({self.unit!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Calendar) and other.unit == self.unit

    def __hash__(self) -> int:
        return hash(self.unit)

    # datetimes -> points
    def point(self, value, cycles: int = 0) -> object:
        """The exact time point of a ``date``/``datetime`` (or a DatePoint),
        ``cycles`` 400-year cycles later."""
        import datetime as _dt

        if isinstance(value, DatePoint):
            value, cycles = value.value, value.cycles
        if not isinstance(value, _dt.datetime):
            value = _dt.datetime(value.year, value.month, value.day)
        if value.tzinfo is not None:
            value = value.astimezone(_dt.timezone.utc).replace(tzinfo=None)
        delta = value - epoch()
        micros = (delta.days * 86400 + delta.seconds + cycles * CYCLE_SECONDS) * 1_000_000 + delta.microseconds
        per = self._unit_micros  # (a whole number of microseconds: one divmod, not three Fraction operations)
        q, r = divmod(micros, per)
        return q if r == 0 else Fraction(micros, per)

    def parse_point(self, text: str):
        """A time cell or token: an ISO date/datetime, or ±inf."""
        t = text.strip()
        low = t.lower().lstrip("+")
        if low in ("inf", "infty", "infinity"):
            return POS_INF
        if low in ("-inf", "-infty", "-infinity"):
            return NEG_INF
        value, cycles, _ = parse_date(t)
        return self.point(value, cycles)

    def whole_points_where(self, texts):
        """``(units, read)``: the points of ``texts`` (a polars String
        Series) as int64 where ``read`` (numpy bool) says that one is an ISO
        date, or a date-time to the minute, second or microsecond, in UTC or
        at an offset (``2024-01-01``, ``2024-01-01T10:00``, ``2024-01-01
        10:00:00.125Z``, ``2024-01-01T10:00:00+02:00``), in years 2 to 9998
        (no 400-year cycles), and a whole number of this calendar's units:
        computed by polars and numpy, as :meth:`parse_point` reads them one
        by one (the others, ``+inf`` or an hour 24, are left to it, which
        names a bad one).  A reading every 37 s over 100,000 facts parsed one
        by one took most of a 1.4 s run; 200,000 readings to the millisecond
        4.3 s of 5."""
        import numpy as np

        micros, read = self.micros_where(texts)
        at = np.flatnonzero(read)
        read[at] = micros[at] % self._unit_micros == 0  # (a point between units: a fraction, one by one)
        return micros // self._unit_micros, read

    def micros_where(self, texts):
        """``(micros, read)``: :meth:`whole_points_where`'s instants as
        microseconds since 1970-01-01 (int64) where ``read``, in whole units
        of the calendar or between them."""
        import numpy as np
        import polars as pl

        fixed = _fixed_layout_micros(texts)
        if fixed is not None:
            return fixed
        units = np.zeros(len(texts), dtype=np.int64)
        # (the pattern has no second past 59: chrono reads 23:59:60 as the next minute, Python refuses it)
        parts = texts.str.extract_groups(_WHOLE_POINT).struct.unnest()
        read = parts[:, 0].is_not_null().to_numpy().copy()  # (a token the pattern does not match: every group null)
        if not read.any():
            return units, read
        if not read.all():
            parts = parts.filter(pl.Series(read))
        days = parts[:, 0].str.to_date("%Y-%m-%d", strict=False)  # (null: a day past its month's end)

        def number(k):
            return parts[:, k].cast(pl.Int64).fill_null(0).to_numpy()

        years = parts[:, 0].str.slice(0, 4).cast(pl.Int64).to_numpy()
        hours, offset_hours = number(1), number(7)  # (no hour 24, no offset past a day: parse_point names them)
        fine = days.is_not_null().to_numpy() & (years >= 2) & (years <= 9998) & (hours <= 23) & (offset_hours <= 23)
        seconds = days.cast(pl.Int64).fill_null(0).to_numpy() * 86400 + hours * 3600 + number(2) * 60 + number(3)
        sign = np.where(parts[:, 6].to_numpy() == "-", -1, 1)
        seconds = seconds - sign * (offset_hours * 3600 + number(8) * 60)
        micros = seconds * 1_000_000 + parts[:, 4].str.pad_end(6, "0").cast(pl.Int64).fill_null(0).to_numpy()
        at = np.flatnonzero(read)
        read[at] = fine
        units[at] = micros
        return units, read

    def unit_ratios(self, micros):
        """The points of the instants ``micros`` (numpy int64, microseconds
        since 1970-01-01) on this timeline as ``(num, den)``: ``num / den``
        each (numpy int64 over one Python int, their least common
        denominator), the points :meth:`point` gives, without a Fraction
        each (a million millisecond ticks on a timeline of minutes: 2.5 s
        of Fractions); None where the numerators would pass 64 bits."""
        import math

        import numpy as np

        per_unit = self.unit_seconds * 1_000_000  # (microseconds per unit: p / q)
        p, q = per_unit.numerator, per_unit.denominator
        if micros.size and max(-int(micros.min()), int(micros.max())) > (2**62) // q:
            return None
        num = micros * q if q != 1 else micros
        g = math.gcd(p, int(np.gcd.reduce(num)) if num.size else 0)
        return (num // g if g != 1 else num), p // g

    def duration(self, d: Duration):
        return self.duration_seconds(d.seconds)

    def duration_seconds(self, seconds):
        """A length of ``seconds`` in the granularity's units, exactly."""
        return normalize(Fraction(seconds) / self.unit_seconds)

    # points -> datetimes
    def datetime(self, t) -> _dt.datetime | None:
        """The datetime of a finite point, or None if it falls between microseconds."""
        per_unit = self.unit_seconds * 1_000_000  # (whole microseconds for every unit: integer arithmetic,
        if per_unit.denominator == 1 and (type(t) is int or isinstance(t, Fraction)):  # not a Fraction per point written)
            n, d = (t, 1) if type(t) is int else (t.numerator, t.denominator)
            micros, rest = divmod(n * per_unit.numerator, d)
            if rest:
                return None
        else:
            micros = Fraction(t) * per_unit
            if micros.denominator != 1:
                return None
            micros = int(micros)
        import datetime as _dt

        try:
            return epoch() + _dt.timedelta(microseconds=micros)
        except OverflowError:
            return None

    def format_point(self, t) -> str:
        """``2020-01-01`` at midnight, ``2020-01-01T12:30:00`` otherwise, ±inf;
        a year beyond 1..9999 as ISO 8601 writes it (``0000-01-01``,
        ``+10000-01-01``, ``-0030-01-01``)."""
        text = self._texts.get(t)
        if text is None:
            if len(self._texts) >= 10_000:  # (bounded: an endless stream has endless points)
                self._texts.clear()
            text = self._texts[t] = self._point_text(t)
        return text

    def _point_text(self, t) -> str:
        if t == POS_INF:
            return "+inf"
        if t == NEG_INF:
            return "-inf"
        cycles = 0
        dt = self.datetime(t)
        if dt is None:  # beyond Python's years, or between microseconds
            cycles = math.floor(Fraction(t) * self.unit_seconds / CYCLE_SECONDS)
            dt = self.datetime(Fraction(t) - cycles * CYCLE_SECONDS / self.unit_seconds)
        if dt is None:  # not on the microsecond grid: no date holds it
            raise OffGrid(Fraction(t) * self.unit_seconds)
        from .text import iso_text

        text = iso_text(dt)
        return _iso_year(dt.year + cycles * CYCLE_YEARS) + text[4:] if cycles else text

    def format_interval(self, iv) -> str:
        lo, hi, lc, hc = iv
        return f"{'[' if lc else '('}{self.format_point(lo)},{self.format_point(hi)}{']' if hc else ')'}"


def _iso_year(year: int) -> str:
    """A year as ISO 8601's expanded form writes it: four digits, a sign beyond 0..9999."""
    if 0 <= year <= 9999:
        return f"{year:04d}"
    return f"+{year}" if year > 0 else f"-{-year:04d}"


def format_fact(pred: str, terms, iv, calendar: Calendar | None) -> str:
    from .text import format_atom, format_fact as plain

    if calendar is None:
        return plain(pred, terms, iv)
    with naming(pred):
        return f"{format_atom(pred, terms)}@{calendar.format_interval(iv)}"


# ---------------------------------------------------------------- resolution

NUMERIC = "numeric"  # the calendar argument for data read on a numeric timeline


class TimelineNote(Note):
    """How chronolog chose a timeline the program does not declare (the CLI
    prints it as a note on standard error)."""


NO_DATE = "no_date"  # @timeGranularity("no_date"): a numeric timeline, said explicitly


def declared_calendar(program):
    """The calendar a ``@timeGranularity`` annotation declares, if any
    (:data:`NO_DATE` for Vadalog's ``"no_date"``: numbers, not dates)."""
    for a in program.annotations:
        if a.name == "timeGranularity":
            if len(a.args) != 1 or not isinstance(a.args[0], str):
                raise ProgramError(
                    "@timeGranularity needs one unit", a.pos, hint='e.g. @timeGranularity("days").'
                )
            if a.args[0].strip().lower() == NO_DATE:
                return NO_DATE
            unit = unit_name(a.args[0])
            if unit not in UNIT_SECONDS:
                hint = "one of: " + ", ".join(UNIT_SECONDS)
                if unit in CALENDAR_UNITS:
                    hint = f"{unit} have no fixed length; use days and group by {unit} with /\\[{unit}]"
                raise ProgramError(f"unknown time granularity {a.args[0]!r}", a.pos, hint=hint)
            return Calendar(unit)
    return None


def _uses_dates(program, rules) -> bool:
    """Whether the program writes a date or a duration (``rules``: those of
    its rules that may)."""
    for f in program.facts:
        if _dated(f.interval):
            return True
    for a in program.annotations:
        if any(isinstance(x, (DatePoint, Duration)) for x in a.args):
            return True
    return any(_dated(w) for r in rules for w in _windows(r))


def _dated(iv) -> bool:
    return iv is not None and (isinstance(iv[0], (DatePoint, Duration)) or isinstance(iv[1], (DatePoint, Duration)))


def _changes(x) -> bool:
    """Whether :func:`resolve` changes the literal or head ``x``: a window
    of a date or a duration, or time grouping."""
    from . import ast

    return any(type(n) is ast.TimeGroup or _dated(n.window) for n in _temporal_nodes(x))


def _date_columns(program):
    """``@bind of p`` when a bound input maps a time column (by its
    position or its name) as a date (and no ``@temporalType`` says its
    times are numbers), else None."""
    from .mapping_types import DATE_TYPES

    numeric = {a.args[0] for a in program.annotations if a.name == "temporalType" and len(a.args) == 2
               and str(a.args[1]).lower() not in DATE_TYPES}
    bound = {a.args[0] for a in program.annotations if a.name == "bind" and a.args}
    times = {}
    for a in program.annotations:
        if a.name == "timeMapping" and len(a.args) >= 3:
            times[a.args[0]] = {a.args[1], a.args[2]}
    for a in program.annotations:
        if a.name == "mapping" and len(a.args) >= 4 and str(a.args[3]).lower() in DATE_TYPES:
            pred = a.args[0]
            named = isinstance(a.args[2], str) and a.args[2] in times.get(pred, ())  # (a named @timeMapping's column)
            if pred in bound and pred not in numeric and (a.args[1] in times.get(pred, ()) or named):
                return f"@bind of {pred}"
    return None


def _temporal_nodes(x):
    """The time grouping, temporal and binary (Since/Until) nodes of the
    literal or head ``x``, outermost first, through negation and interval
    terms: the one walk over what resolving dates reads and changes."""
    from . import ast

    if isinstance(x, ast.TimeGroup):
        yield x
        yield from _temporal_nodes(x.inner)
    elif isinstance(x, ast.Temporal):
        yield x
        yield from _temporal_nodes(x.inner)
    elif isinstance(x, ast.Binary):
        yield x
        yield from _temporal_nodes(x.left)
        yield from _temporal_nodes(x.right)
    elif isinstance(x, (ast.Negation, ast.Timed)):
        yield from _temporal_nodes(x.inner)


def calendar_groupings(program) -> list:
    """The units of the program's groupings by days, weeks, months and
    years, whose periods are UTC's (a zoned time given for them groups by
    its UTC day: chronolog.api.check_tables' note)."""
    from . import ast

    return sorted({n.unit for rule in program.rules for lit in (rule.head, *rule.body) for n in _temporal_nodes(lit)
                   if type(n) is ast.TimeGroup and n.unit in ("days", "weeks", "months", "years")})


def _windows(rule):
    from . import ast

    return [n.window for lit in (rule.head, *rule.body) for n in _temporal_nodes(lit)
            if type(n) is not ast.TimeGroup and n.window is not None]


def resolve(program, calendar=None, lines=None):
    """Replace the date and duration placeholders of ``program`` by numbers.

    ``calendar``: ``None`` for a program (its own ``@timeGranularity``, else
    days when it writes any date or duration, else a numeric timeline);
    a :class:`Calendar` for facts read for a program on that timeline;
    :data:`NUMERIC` for facts read for a program on a numeric timeline.
    Sets ``program.calendar``.  Mixing dates and plain numbers as time points
    is an error at the offending statement.
    """
    from . import ast

    # the rules resolving changes, in one walk (most programs write no date:
    # 10,000 rules walked three times were a tenth of their reading)
    plain = frozenset((ast.Atom, ast.Assignment, ast.Comparison))  # (most literals: a rule of them alone is passed by C loops)
    changed = [r for r in program.rules if not (type(r.head) in plain and plain.issuperset(map(type, r.body)))
               and any(type(x) not in plain and _changes(x) for x in (r.head, *r.body))]
    if calendar is None:
        cal = declared_calendar(program)
        if cal == NO_DATE:
            cal = None
        elif cal is None and _uses_dates(program, changed):
            cal = Calendar("days")
        elif cal is None and (bound := _date_columns(program)):
            # iTemporal's published programs read CSV dates with windows in
            # seconds (its SQL translation adds them as seconds)
            import warnings

            cal = Calendar("seconds")
            warnings.warn(TimelineNote(
                f"{bound} reads dates but the program declares no @timeGranularity: its timeline is "
                'seconds (operator windows count seconds); declare @timeGranularity("days"). '
                "(or hours, minutes, seconds) to choose another"), stacklevel=2)
        where_dates = _first_date_pos(program)
    else:
        cal = None if calendar == NUMERIC else calendar
        where_dates = None
    program.calendar = cal

    def err(msg, pos, hint):
        from .errors import DataError

        line = ""
        if lines is not None and pos is not None and 0 < pos.line <= len(lines):
            line = lines[pos.line - 1]
        return (ProgramError if calendar is None else DataError)(msg, pos, hint=hint, source_line=line)

    def point(x, pos, what):
        if isinstance(x, DatePoint):
            if cal is None:
                raise err(
                    f"{x.text} is a date, but {NUMERIC_TIMELINE}",
                    pos,
                    'declare the timeline with @timeGranularity("days"). (or hours, minutes, seconds) '
                    "and write every time point as a date",
                )
            return cal.point(x)
        if isinstance(x, Duration):
            if cal is None:
                raise err(f"the duration {x.text} needs a calendar timeline", pos, 'declare @timeGranularity("days").')
            if what != "window":
                raise err(f"{x.text} is a duration, not a point in time", pos, "write a date such as 2020-01-01")
            return cal.duration(x)
        if cal is not None and what != "window" and x not in (POS_INF, NEG_INF):
            since = f" (dates are used at {where_dates})" if where_dates else ""
            raise err(
                f"the time point {format_number(x)} is a number, but this program's timeline is dates{since}",
                pos,
                "write time points as dates (2020-01-01 or 2020-01-01T12:00:00); "
                "plain numbers are allowed only as operator windows, in granularity units",
            )
        return x

    def interval(iv, pos, what):
        if iv is None or not any(isinstance(x, (DatePoint, Duration)) for x in iv[:2]) and (cal is None or what == "window"):
            return iv
        lo, hi, lc, hc = iv
        lo, hi = point(lo, pos, what), point(hi, pos, what)
        r = make(lo, hi, lc, hc)
        if r is None:
            raise err(f"the interval {_text(iv)} is empty", pos, why_empty(lo, hi, lc, hc))
        return r

    def period(x, pos):
        if isinstance(x, NegativeDuration):
            return -point(x.duration, pos, "window")
        return point(x, pos, "window")

    if cal is not None:
        _refuse_windows_off_the_grid(program, cal, err, lines)
    for f in program.facts:
        f.interval = interval(f.interval, f.pos, "fact")
        if f.every is not None:
            f.every = period(f.every, f.pos)
    for a in program.annotations:
        if a.name == "temporal":
            if cal is not None and any(isinstance(x, str) for x in a.args):  # (point() called inf and "2020-01-01" numbers)
                raise err("@temporal(from, to) needs two dates on this program's date timeline", a.pos,
                          "write them unquoted, e.g. @temporal(2020-01-01, 2020-12-31).; for no end, leave @temporal out "
                          'or pass the horizon ("2020-01-01", float("inf")) to reason()')
            a.args = [point(x, a.pos, "horizon") for x in a.args]
        elif any(isinstance(x, (DatePoint, Duration)) for x in a.args):
            raise err(f"@{a.name} does not take dates", a.pos, "")
    from .time_grouping import resolve_group

    def group(node):
        return resolve_group(node, cal, lambda msg, pos, hint: err(msg, pos, hint))

    for r in changed:
        r.head = _map_windows(r.head, lambda w: interval(w, r.pos, "window"), ast, group)
        r.body = [_map_windows(lit, lambda w: interval(w, r.pos, "window"), ast, group) for lit in r.body]
    if cal is not None:
        for r in program.rules:
            _refuse_dates_beside_time_points(r, cal, err)
    return program


def _refuse_windows_off_the_grid(program, cal, err, lines) -> None:
    """A window, time grouping or ``every`` period that is no whole number
    of microseconds (``<->[0,1/7]`` on days, ``PT0.0000005S``) would move
    time points between the ones a date or timestamp holds, which no output
    can print: refused where it is written, with the microseconds on either
    side of it to write instead."""
    from . import ast

    def lengths(x):  # (the node, the lengths it moves time by) of a literal or head
        for n in _temporal_nodes(x):
            if type(n) is not ast.TimeGroup:
                if n.window is not None:
                    yield n, n.window[:2]
            elif n.unit is None:  # (a named unit is whole seconds)
                yield n, (n.count,)

    found = [(f, (f.every.duration if isinstance(f.every, NegativeDuration) else f.every,))
             for f in program.facts if f.every is not None]
    for r in program.rules:
        found += [hit for lit in (r.head, *r.body) for hit in lengths(lit)]
    for node, ends in found:
        for x in ends:
            seconds = x.seconds if isinstance(x, Duration) else None
            if seconds is None and x not in (POS_INF, NEG_INF) and not isinstance(x, DatePoint):
                seconds = Fraction(x) * cal.unit_seconds
            if seconds is None or (seconds * 1_000_000).denominator == 1:
                continue
            written = x.text if isinstance(x, Duration) else f"{format_number(x)} {cal.unit}"
            micros = seconds * 1_000_000
            lo, hi = (iso_duration(Fraction(math.floor(micros), 1_000_000)),
                      iso_duration(Fraction(math.ceil(micros), 1_000_000)))
            what = "the period" if isinstance(node, (ast.Fact, ast.TimeGroup)) else "the window"
            raise err(
                f"{what} {written} is not a whole number of microseconds, the precision of a date timeline's "
                "times, so it would move time points between the ones a date or timestamp holds",
                _window_pos(node, lines),
                f"write it in whole microseconds: {written} lies between {lo} and {hi}",
            )


def iso_duration(seconds: Fraction) -> str:
    """``seconds`` (a whole number of microseconds, >= 0) as an ISO 8601
    duration: ``P1DT3H25M42.857142S``, ``PT0S``."""
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, rest = divmod(rest, 60)
    text = "P" + (f"{days}D" if days else "")
    clock = (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes else "")
    if rest or not (days or clock):
        clock += f"{format_number(normalize(rest))}S"
    return text + ("T" + clock if clock else "")


def _window_pos(node, lines):
    """Where ``node``'s window is written: the bracket after its operator
    (``<->``, ``[-]``, ``<S>``, ``/\\``), or a fact's period after
    ``every``, on the node's line; else the node's position."""
    from . import ast

    pos = node.pos
    if lines is None or not 0 < pos.line <= len(lines) or not pos.column:
        return pos
    line, start = lines[pos.line - 1], pos.column - 1
    if isinstance(node, ast.Fact):
        m = re.compile(r"\bevery\s*").search(line, start)
        return pos if m is None else ast.Pos(pos.file, pos.line, m.end() + 1)
    if isinstance(node, ast.Binary):
        m = re.compile(r"<\s*[SU]\s*>").search(line, start)
        if m is None:
            return pos
        start = m.end()
    else:
        start += len(node.op)
    m = re.compile(r"[\[(]").search(line, start)
    return pos if m is None else ast.Pos(pos.file, pos.line, m.start() + 1)


def _refuse_dates_beside_time_points(rule, cal, err) -> None:
    """An interval term's ends and a time capture bind time points, numbers
    of granularity units also on a date timeline (docs/language.md,
    "Interval terms"), so a date constant compared with one (or added to
    one) would meet a number when the rule runs: refused at its literal,
    with the number to write instead."""
    from . import ast

    origin = {}  # a time-point variable -> the literal that binds it
    for lit in rule.body:
        if isinstance(lit, ast.Timed):
            origin.update({x.name: str(lit) for x in (lit.start, lit.end) if isinstance(x, ast.Var)})
    grew = bool(origin)
    while grew:  # (F = E + 2 is a time point too, wherever the assignment is written)
        grew = False
        for lit in rule.body:
            if isinstance(lit, ast.Assignment) and lit.var.name not in origin and _date_in(lit.expr) is None:
                src = next((origin[v] for v in sorted(ast.variables_of(lit.expr)) if v in origin), None)
                if src is not None:
                    origin[lit.var.name], grew = src, True
    for lit in rule.body:
        if not isinstance(lit, (ast.Comparison, ast.Assignment)):
            continue
        names = sorted(ast.variables_of(lit.expr if isinstance(lit, ast.Assignment) else lit) & origin.keys())
        date = _date_in(lit.expr) if isinstance(lit, ast.Assignment) else _date_in(lit.left) or _date_in(lit.right)
        if not names or date is None:
            continue
        text = cal.format_point(cal.point(date))
        raise err(
            f"{names[0]} is a time point (bound by {origin[names[0]]}), a number of {cal.unit} since 1970-01-01 on this "
            f"timeline, never a date, so '{lit}' would meet the date {text} with a number",
            lit.pos,
            f"write the date as its time point: {text} is {format_number(cal.point(date))}",
        )


def _date_in(expr):
    """The first date constant of an expression, or None."""
    from . import ast

    if isinstance(expr, ast.Const):
        return expr.value if is_date(expr.value) else None
    for part in (getattr(expr, "left", None), getattr(expr, "right", None), *getattr(expr, "args", ())):
        if part is not None and (d := _date_in(part)) is not None:
            return d
    return None


def _map_windows(x, fn, ast, group=None):
    """``x`` with its windows mapped by ``fn`` (a node whose windows stay
    the same is kept: a numeric program's rules are not copied)."""
    from .records import replace

    if isinstance(x, ast.TimeGroup):
        return replace(x, grouping=group(x), inner=_map_windows(x.inner, fn, ast, group))
    if isinstance(x, ast.Temporal):
        w = fn(x.window) if x.window is not None else None
        inner = _map_windows(x.inner, fn, ast, group)
        return x if w is x.window and inner is x.inner else replace(x, window=w, inner=inner)
    if isinstance(x, ast.Binary):
        w, left, right = fn(x.window), _map_windows(x.left, fn, ast, group), _map_windows(x.right, fn, ast, group)
        return x if w is x.window and left is x.left and right is x.right else replace(x, window=w, left=left, right=right)
    if isinstance(x, (ast.Negation, ast.Timed)):
        inner = _map_windows(x.inner, fn, ast, group)
        return x if inner is x.inner else replace(x, inner=inner)
    return x


def _first_date_pos(program):
    for f in program.facts:
        if any(isinstance(x, DatePoint) for x in f.interval[:2]):
            return f.pos
    return None


def _text(iv) -> str:
    lo, hi, lc, hc = iv

    def s(x):
        return x.text if isinstance(x, (DatePoint, Duration)) else format_number(x)

    return f"{'[' if lc else '('}{s(lo)},{s(hi)}{']' if hc else ')'}"


def is_date(x) -> bool:
    """Whether ``x`` is a ``datetime.date`` (a ``datetime`` included)."""
    import sys

    # (no date exists before datetime is imported; while another thread (chronolog/preload.py)
    # imports it, the module is in sys.modules without its classes yet, and no date exists either)
    date = getattr(sys.modules.get("datetime"), "date", None)
    return date is not None and isinstance(x, date)


def to_points(iv, calendar):
    """An interval given in Python (``(start, end)`` or 4-tuple, or a point)
    with ``date``/``datetime`` ends, as numbers on ``calendar``'s timeline."""
    from .errors import DataError

    items = iv if isinstance(iv, tuple) else (iv,)
    if calendar is not None and any(_finite_number(x) for x in items[:2]):  # (beside a date too: (date, 5) read 5 as day 5 of 1970)
        raise DataError(
            f"the interval {iv!r} has numbers as time points, but the program's timeline is dates",
            hint="give datetime.date / datetime.datetime ends (None is not allowed: use float('inf')); "
                 "for a date and a length, add a datetime.timedelta to the date",
        )
    if not any(is_date(x) for x in items[:2]):
        return iv
    if calendar is None:
        raise DataError(
            f"the interval {iv!r} has dates, but the program's timeline is numeric",
            hint='declare @timeGranularity("days"). in the program',
        )
    conv = tuple(calendar.point(x) if is_date(x) else x for x in items)
    return conv if isinstance(iv, tuple) else conv[0]


def _finite_number(x) -> bool:
    """A number other than ±inf (floats and Decimals too: they are numbers,
    which a date timeline does not take)."""
    from decimal import Decimal

    if isinstance(x, bool) or not isinstance(x, (int, Fraction, float, Decimal)):
        return False
    return not isinstance(x, (float, Decimal)) or math.isfinite(x)


def _is_number_text(text: str) -> bool:
    """Whether ``text`` spells a finite number (``5``, ``1/2``, ``-0.5``)."""
    from .timeline import parse_number

    try:
        return parse_number(text) not in (POS_INF, NEG_INF)
    except ValueError:
        return False


def horizon_points(h, calendar, what: str = "horizon"):
    """A horizon ``(from, to)`` or ``"from,to"`` given as dates, as numbers
    (``what`` names it in errors: ``--window``)."""
    from .errors import ProgramError as _PE

    if isinstance(h, str):
        parts = h.split(",")
        if len(parts) != 2:
            return h
    else:
        parts = h
    for x in parts:
        if isinstance(x, str) and _is_number_text(x):  # (calendar.parse_point's error said only "bad horizon")
            raise _PE(f"bad {what} {h!r}: {x.strip()} is a number, but this program's timeline is dates",
                      hint="write both ends as dates: 2020-01-01,2020-12-31 (inf for no end)")
    try:
        return tuple(calendar.point(x) if is_date(x) else calendar.parse_point(x) if isinstance(x, str) else x for x in parts)
    except ValueError as e:
        message, hint = date_problem(e, f"bad {what} {h!r}", "on a calendar timeline, write it as FROM,TO dates: 2020-01-01,2021-01-01")
        raise _PE(message if message.startswith("bad") else f"bad {what} {h!r}: {message}", hint=hint) from None
