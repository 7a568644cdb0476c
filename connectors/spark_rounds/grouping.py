"""Time grouping ``/\\[N] p(X)`` and ``/\\[N months] p(X)`` as SQL on the
interval codes.

``/\\[...]`` makes a fact hold on the whole of every period it meets
(language/time_grouping.py, ``Grouping.__call__``): the start goes down to
its period's start (closed), the end up to the next period's start (open),
unless the end is already an open end at a period's start; an unbounded
end stays.  One interval to one interval, so it needs no coalescing before
it (the head's merge coalesces what overlaps), and is applied after the
scan's box and shift, as the engine applies it.

On the doubled grid (grid.py) a time ``t`` in grid units is
``shiftright(code, 1)`` of either end (on a calendar, microseconds since
1970 UTC: calendar.py).  Periods of one length ``n`` units (``/\\[N]``:
``N·L``, the grid covers N as one of the run's window points; weeks, days,
hours, ... on a calendar: their microseconds) start at an offset (a
Monday for weeks, else 0) plus multiples of ``n``: the floor to a period
is ``u - pmod(u - off, n)`` (``pmod`` is never negative for ``n > 0``, so
times before 1970 floor down too).  Months and years have no one length:
a time's UTC day is a DATE (``date_from_unix_date``, no time zone), its
month index ``year·12 + month - 1`` floors to the count (N years are 12N
months: January of a year divisible by N, as the engine aligns them), and
the period's start is the midnight of that month's first day
(``make_date``), the next one ``N`` months on.  The engine's Gregorian
calendar is Spark's (proleptic).  A period's reach (one length, 31 days a
month, 366 a year) counts among the windows that keep an input's answers
inside the years a timestamp holds (entry.py, :func:`reaches`).
"""

from __future__ import annotations

from .grid import NEG, POS
from .sql import int64

DAY = 86400 * 10**6  # microseconds
_FIXED = {"weeks": 7 * 86400, "days": 86400, "hours": 3600, "minutes": 60, "seconds": 1}
_MONDAY = 4 * 86400  # 1970-01-05, the first Monday after the epoch (as the engine's)


def reaches(plan) -> list:
    """How far each calendar-unit grouping of ``plan`` may move a time, in
    the timeline's units (``/\\[N]`` is among the window points already)."""
    return [lit.group.reach() for r in plan.rules for lit in r.body
            if getattr(lit, "group", None) is not None and lit.group.unit is not None]


def group_sql(grid, grouping) -> tuple:
    """New ``(s, e)`` codes as SQL of the old ones."""
    lo, hi = "shiftright(s, 1)", "shiftright(e, 1)"
    if grouping.unit in ("months", "years"):
        months = grouping.count * (12 if grouping.unit == "years" else 1)
        start = _month_micros(_month_index(lo, months))
        idx = _month_index(hi, months)
        at_start, after = f"{_month_micros(idx)} = {hi}", _month_micros(f"{idx} + {months}")
    else:
        if grouping.unit is None:
            n, off = grid.unit(grouping.count), 0
        else:
            n, off = grouping.count * _FIXED[grouping.unit] * 10**6, (_MONDAY * 10**6 if grouping.unit == "weeks" else 0)
        n, off = int64(n), int64(off)
        start = f"({lo} - pmod({lo} - {off}, {n}))"
        at_start = f"pmod({hi} - {off}, {n}) = 0"
        after = f"({hi} - pmod({hi} - {off}, {n}) + {n})"
    s2 = f"CASE WHEN s = {int64(NEG)} THEN s ELSE 2 * {start} END"
    # an open end (e even) at a period's start stays; else the next period's start
    e2 = f"CASE WHEN e = {int64(POS)} THEN e WHEN {at_start} AND (e & 1) = 0 THEN e ELSE 2 * {after} END"
    return s2, e2


def _month_index(u: str, months: int) -> str:
    """The index (``year·12 + month - 1``) of the first month of the
    period of ``months`` months holding the microsecond ``u``."""
    d = f"date_from_unix_date(CAST(({u} - pmod({u}, {int64(DAY)})) div {int64(DAY)} AS INT))"
    i = f"(year({d}) * 12 + month({d}) - 1)"
    return f"({i} - pmod({i}, {months}))"


def _month_micros(idx: str) -> str:
    """The microsecond the month of index ``idx`` starts."""
    d = f"make_date(CAST(({idx}) div 12 AS INT), CAST(pmod({idx}, 12) + 1 AS INT), 1)"
    return f"(CAST(unix_date({d}) AS BIGINT) * {int64(DAY)})"
