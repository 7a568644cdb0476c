"""Times as exact 64-bit integers on a doubled decimal grid.

Every operator of the rounds works on these codes, never on times (nothing
is computed on floats): the interval ``<lo, hi>`` is the range ``[s, e)``
with ``s = 2·lo·L + open`` and ``e = 2·hi·L + closed``, ``L`` a power of
ten covering every time of the run; ±∞ are the sentinels ±2^62.
"""

from __future__ import annotations

from fractions import Fraction

from chronolog.engine.interval_codes import DoubledGrid

from .fragment import NotRelational

LIMIT = 2**59  # finite codes, and their sums along a run, stay far from the sentinels


class Grid(DoubledGrid):
    """The run's time grid: ``digits`` decimal places, ``L = 10**digits``
    (on a calendar, ``L`` is the microseconds of its unit: calendar.py)."""

    def __init__(self, digits: int, calendar=None):
        self.digits = digits
        self.L = 10**digits
        self.calendar = calendar
        self.timestamps = False  # answers' ends as UTC timestamps of seconds (timestamps=True, no calendar)
        if calendar is not None:
            from .calendar import micros_per_unit

            self.L = micros_per_unit(calendar)
        # the finite codes an input end may have (exclusive): far from the
        # sentinels, and on a calendar inside the years a timestamp holds
        self.bounds = (-(LIMIT // 4), LIMIT // 4)

    def unit(self, t) -> int:
        v = Fraction(t) * self.L
        if v.denominator != 1:  # pragma: no cover - digits cover every point
            raise NotRelational(f"time point {t} is off the grid")
        if not -LIMIT < 2 * v.numerator < LIMIT:
            raise NotRelational(f"time point {t} is outside 64-bit codes")
        return v.numerator
