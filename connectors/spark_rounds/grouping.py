"""Time grouping ``/\\[N] p(X)`` as SQL on the interval codes.

``/\\[N]`` makes a fact hold on the whole of every period ``[kN, (k+1)N)``
it meets (language/time_grouping.py, ``Grouping.__call__``): the start goes
down to its period's start (closed), the end up to the next period's start
(open), unless the end is already an open end at a period's start; an
unbounded end stays.  One interval to one interval, so it needs no
coalescing before it (the head's merge coalesces what overlaps), and is
applied after the scan's box and shift, as the engine applies it.

On the doubled grid (grid.py) a time ``t`` in units of ``1/L`` is
``shiftright(code, 1)`` of either end, the period ``n = N·L`` units (the
grid covers N: it is one of the run's window points), and the floor to a
period ``u - pmod(u, n)`` (``pmod`` is never negative for ``n > 0``, so
negative times floor down too).  Calendar units (months, weeks, ...) need a
calendar timeline, which this path does not run: ``NotRelational``.
"""

from __future__ import annotations

from .fragment import NotRelational
from .grid import NEG, POS
from .sql import int64


def check(grouping, rule) -> None:
    if grouping.unit is not None:
        raise NotRelational(f"time grouping by {grouping.unit} (a calendar timeline)", rule)


def group_sql(grid, grouping) -> tuple:
    """New ``(s, e)`` codes as SQL of the old ones."""
    n = int64(grid.unit(grouping.count))
    lo = "shiftright(s, 1)"
    s2 = f"CASE WHEN s = {int64(NEG)} THEN s ELSE 2 * ({lo} - pmod({lo}, {n})) END"
    hi = "shiftright(e, 1)"
    floor = f"({hi} - pmod({hi}, {n}))"
    # an open end (e even) at a period's start stays; else the next period's start
    e2 = (f"CASE WHEN e = {int64(POS)} THEN e WHEN pmod({hi}, {n}) = 0 AND (e & 1) = 0 THEN e "
          f"ELSE 2 * ({floor} + {n}) END")
    return s2, e2
