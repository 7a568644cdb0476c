"""Time grouping (the Temporal Vadalog paper's downsampling ``△unit``; Vadalog's ``/\\``).

``/\\[months] daily(X, V)`` holds on the whole calendar month around every
time point at which ``daily(X, V)`` holds: a fact valid at a point becomes
valid over the whole enclosing period.  Periods are half-open,
``[2020-03-01, 2020-04-01)``, so consecutive periods touch without
overlapping.  Forms:

* ``/\\[UNIT]`` and ``/\\[N UNIT]`` (also ``/\\N UNIT`` and ``△[UNIT]``) with
  UNIT one of years, months, weeks (ISO, from Monday), days, hours,
  minutes, seconds — a calendar timeline (dates) is needed; years and
  months follow the calendar, N months are aligned to January (``[3 months]``
  are quarters), N days/hours/... to 1970-01-01T00:00 UTC;
* ``/\\[N]``: periods of N time units ``[kN, (k+1)N)``, on any timeline.

The operator maps each interval to one interval (the union of the periods it
meets), distributes over union, and so needs no coalesced input: the engine
applies it like a shift (``Scan.group``).  An unbounded end stays unbounded.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

from .dates import Calendar, epoch, unit_name
from .records import record
from .timeline import NEG_INF, POS_INF, format_number, normalize

UNITS = ("years", "months", "weeks", "days", "hours", "minutes", "seconds")
_FIXED = {"weeks": 7 * 86400, "days": 86400, "hours": 3600, "minutes": 60, "seconds": 1}
_MONDAY = 4 * 86400  # 1970-01-05, the first Monday after the epoch
_CYCLE_DAYS = 146097  # 400 Gregorian years: the calendar repeats to the day
_REF_YEAR = 1600  # times outside [1600, 1600 + cycle) are grouped through it
_MAX_CYCLES = 20  # 8,000 years: 1600 + 8000 stays below Python's year 9999


def make_group(count, unit, inner, pos, err):
    """The AST node for ``/\\[count unit] inner`` (called by the parser)."""
    from . import ast

    if unit is not None:
        u = unit_name(unit)
        if u not in UNITS:
            raise err(f"unknown time unit {unit!r}", pos, "group by one of: " + ", ".join(UNITS) + ", or by a number: /\\[7]")
        unit = u
        if not (isinstance(count, int) and count >= 1):
            raise err(f"the number of {unit} must be a positive whole number", pos)
    elif not (isinstance(count, (int, Fraction)) and not isinstance(count, bool) and count > 0):
        raise err("the period of a time grouping must be positive", pos, "e.g. /\\[7] p(X) or /\\[months] p(X)")
    if not isinstance(inner, (ast.Atom, ast.Temporal, ast.Binary)):
        inner = _atom(inner, pos, err)
    return ast.TimeGroup("/\\", None, inner, pos, unit=unit, count=count)


def _atom(x, pos, err):
    from . import ast

    # the parser hands over an atom still in its raw form (name or call)
    name = getattr(x, "name", None)
    args = getattr(x, "args", None)
    if name is None:
        raise err(f"time grouping applies to an atom, not {x}", pos)
    terms = tuple(args or ())
    for a in terms:
        if not isinstance(a, (ast.Var, ast.Const)):
            raise err(f"the arguments of {name} must be variables or constants, not {a}", pos)
    return ast.Atom(name, terms, pos)


@record(frozen=True)
class Grouping:
    """The interval transform of one time grouping."""

    count: object
    unit: str | None
    calendar: Calendar | None

    def describe(self) -> str:
        u = f" {self.unit}" if self.unit else ""
        return f"G[{format_number(self.count)}{u}]"

    def length(self):
        """The length of every period in time units, or None when periods
        differ (months, years).  Periods of one length start at a fixed
        offset plus multiples of it, so shifting time by a multiple of it
        maps periods onto periods (what the termination strategies need)."""
        if self.unit is None:
            return normalize(Fraction(self.count))
        if self.unit in _FIXED:
            return normalize(Fraction(self.count * _FIXED[self.unit]) / self.calendar.unit_seconds)
        return None

    def _constants(self):
        """``(cycle, start of the reference stretch)``, computed once."""
        got = _CONSTANTS.get(self)
        if got is None:
            c = self._cycle()
            import datetime as _dt  # (here, where a grouping of months or years meets a date: language/dates.py)

            lo = self.calendar.point(_dt.datetime(_REF_YEAR, 1, 1)) if self.calendar is not None else 0
            got = _CONSTANTS[self] = (c, lo)
        return got

    def cycle(self):
        return self._constants()[0]

    def _cycle(self):
        """The shortest shift of time that maps periods onto periods: the
        length for fixed units; for months and years a multiple of 400
        years, after which the Gregorian calendar repeats to the day
        (146,097 days; N months aligned to January need N to divide the
        4,800 months of the cycle, else a multiple of it).  None when that
        is longer than the dates Python represents."""
        length = self.length()
        if length is not None:
            return length
        k = self._cycles()
        if k is None:
            return None
        return normalize(Fraction(k * _CYCLE_DAYS * 86400) / self.calendar.unit_seconds)

    def reach(self):
        """How far from ``t`` the period around it may reach (its longest
        length): what a rule with this grouping reads."""
        length = self.length()
        if length is not None:
            return length
        days = (31 if self.unit == "months" else 366) * self.count
        return normalize(Fraction(days * 86400) / self.calendar.unit_seconds)

    def _cycles(self):
        per_cycle = 4800 if self.unit == "months" else 400
        k = per_cycle * self.count // math.gcd(per_cycle, self.count) // per_cycle
        return k if k <= _MAX_CYCLES else None

    # ---------------------------------------------------------------- periods
    def start(self, t):
        """The start of the period containing the point ``t``."""
        if self.unit is None:
            return normalize(Fraction(math.floor(Fraction(t) / Fraction(self.count))) * self.count)
        secs = Fraction(t) * self.calendar.unit_seconds
        if self.unit in _FIXED:
            size = self.count * _FIXED[self.unit]
            off = _MONDAY if self.unit == "weeks" else 0
            s = math.floor((secs - off) / size) * size + off
            return normalize(Fraction(s) / self.calendar.unit_seconds)
        t, shift = self._reduce(t)
        import datetime as _dt

        dt = epoch() + _dt.timedelta(seconds=self._floor_seconds(t))
        if self.unit == "months":
            idx = (dt.year * 12 + dt.month - 1) // self.count * self.count
            return normalize(_month_point(self.calendar, idx) + shift)
        year = dt.year // self.count * self.count
        return normalize(_month_point(self.calendar, max(year, 1) * 12) + shift)

    def after(self, start):
        """The start of the period after the one starting at ``start``."""
        if self.unit is None:
            return normalize(start + self.count)
        if self.unit in _FIXED:
            return normalize(start + Fraction(self.count * _FIXED[self.unit]) / self.calendar.unit_seconds)
        start, shift = self._reduce(start)
        import datetime as _dt

        dt = epoch() + _dt.timedelta(seconds=self._floor_seconds(start))
        if self.unit == "months":
            idx = dt.year * 12 + dt.month - 1 + self.count
            return normalize(_month_point(self.calendar, idx) + shift)
        return normalize(_month_point(self.calendar, (dt.year + self.count) * 12) + shift)

    def _reduce(self, t):
        """``(t - shift, shift)`` with ``shift`` a multiple of the cycle and
        ``t - shift`` in a reference stretch of the calendar that Python's
        dates cover, so that times thousands of years away group exactly as
        their counterparts in it.  Times already in range stay as they are."""
        c, lo = self._constants()
        if c is None or lo <= t < lo + c:
            return t, 0
        k = (t - lo) // c  # ints on a days timeline: no Fraction arithmetic
        return t - k * c, k * c

    def _floor_seconds(self, t) -> int:
        us = self.calendar.unit_seconds
        if type(t) is int and us.denominator == 1:
            return t * us.numerator
        return math.floor(Fraction(t) * us)

    def __call__(self, iv):
        lo, hi, lc, hc = iv
        if lo == NEG_INF:
            new_lo, new_lc = NEG_INF, False
        else:
            new_lo, new_lc = self.start(lo), True
        if hi == POS_INF:
            return (new_lo, POS_INF, new_lc, False)
        s = self.start(hi)
        new_hi = hi if (s == hi and not hc) else self.after(s)
        return (new_lo, new_hi, new_lc, False)


_CONSTANTS: dict = {}  # Grouping -> (cycle, reference start)


@functools.lru_cache(maxsize=1 << 16)
def _month_point(calendar, idx):
    """The time point where month ``idx`` (year * 12 + month - 1) starts."""
    import datetime as _dt

    return calendar.point(_dt.datetime(idx // 12, idx % 12 + 1, 1))


def resolve_group(node, calendar, err):
    """Attach the timeline's calendar to a TimeGroup, checking the unit fits it."""
    if node.unit is not None and calendar is None:
        raise err(
            f"grouping by {node.unit} needs a calendar timeline",
            node.pos,
            'declare @timeGranularity("days"). and use dates, or group by a number of time units: /\\[7]',
        )
    return Grouping(node.count, node.unit, calendar)

