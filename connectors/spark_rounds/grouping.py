"""Time grouping ``/\\[N] p(X)`` and ``/\\[N months] p(X)`` as SQL on the
interval codes.

``/\\[...]`` makes a fact hold on the whole of every period it meets
(language/time_grouping.py, ``Grouping.__call__``): the start goes down to
its period's start (closed), the end up to the next period's start (open),
unless the end is already an open end at a period's start; an unbounded
end stays.  One interval to one interval, so it needs no coalescing before
it (the head's merge coalesces what overlaps), and is applied after the
scan's box and shift, as the engine applies it.

The codes' new ends are engine/interval_shift.py's ``grouping`` (its
``periods`` and ``months``), written once with the columns, on the grid's microseconds
since 1970 UTC here (calendar.py): periods of one length (``/\\[N]``: ``N·L``;
weeks, days, hours, ... : their microseconds, weeks from a Monday) floor
with ``pmod``; months and years through a time's UTC day as a DATE
(``date_from_unix_date``, no time zone) and ``make_date``, Spark's
proleptic Gregorian calendar as the engine's.  A period's reach (one
length, 31 days a month, 366 a year) counts among the windows that keep an
input's answers inside the years a timestamp holds (entry.py, :func:`reaches`).
"""

from __future__ import annotations

from .sql import int64

DAY = 86400 * 10**6  # microseconds

def reaches(plan) -> list:
    """How far each calendar-unit grouping of ``plan`` may move a time, in
    the timeline's units (``/\\[N]`` is among the window points already)."""
    from chronolog.planner.physical import TimeGroup, rule_operator, walk

    return [op.grouping.reach() for r in plan.rules for op in walk(rule_operator(r))
            if isinstance(op, TimeGroup) and op.grouping.unit is not None]


def group_sql(grid, grouping) -> tuple:
    """New ``(s, e)`` codes as SQL of the old ones (engine/interval_shift.py,
    written once with the columns)."""
    from chronolog.engine.exprs import to_sql
    from chronolog.engine.interval_shift import grouping as grouped

    return tuple(to_sql(x, int64, None) for x in grouped(grouping, grid.unit, DAY))
