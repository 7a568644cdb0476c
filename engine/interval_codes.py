"""Intervals as two 64-bit codes on the doubled grid, one encoding for the
columnar executor (columns/encoding.py's TimeScale) and the Spark rounds
(spark_rounds/grid.py's Grid), which differ only in their grid (how many
points a time unit holds) and in how they refuse a time off it.

``<lo, hi>`` is the range ``[s, e)`` with ``s = 2·lo·L + (0 if closed else
1)`` and ``e = 2·hi·L + (1 if closed else 0)``; the unbounded ends are the
sentinels ``NEG``/``POS``, far outside every finite code.
"""

from __future__ import annotations

from fractions import Fraction

from chronolog.language.timeline import NEG_INF, POS_INF

NEG, POS = -(2**62), 2**62


class DoubledGrid:
    """A run's interval codes, ``L`` grid points per time unit; a backend's
    ``unit(t)`` gives a finite time in grid units, exactly, or refuses it."""

    L = 1

    def unit(self, t) -> int:  # pragma: no cover - each backend's
        raise NotImplementedError

    def start(self, lo, closed) -> int:
        return NEG if lo == NEG_INF else 2 * self.unit(lo) + (0 if closed else 1)

    def end(self, hi, closed) -> int:
        return POS if hi == POS_INF else 2 * self.unit(hi) + (1 if closed else 0)

    def codes(self, iv) -> tuple:
        lo, hi, lc, hc = iv
        return self.start(lo, lc), self.end(hi, hc)

    def window(self, w) -> tuple:
        """An operator window ``(d1, d2, c1, c2)`` in grid units, ±inf kept."""
        d1, d2, c1, c2 = w
        return (*(d if d in (NEG_INF, POS_INF) else self.unit(d) for d in (d1, d2)), c1, c2)

    def point(self, units: int):
        """Grid units back to the engine's time (an int when whole)."""
        if self.L == 1:
            return units
        f = Fraction(units, self.L)
        return f.numerator if f.denominator == 1 else f

    def interval(self, s: int, e: int) -> tuple:
        """Codes back to the engine's interval ``(lo, hi, lc, hc)``."""
        lo = NEG_INF if s == NEG else self.point(s >> 1)
        hi = POS_INF if e == POS else self.point(e >> 1)
        return lo, hi, s != NEG and not s & 1, e != POS and bool(e & 1)

    def intervals(self, starts: list, ends: list) -> list:
        """:meth:`interval` of each pair of codes, in one comprehension on
        a grid of whole units (an update by atoms decodes a few hundred:
        half the cost of a call each)."""
        if self.L != 1:
            return [self.interval(s, e) for s, e in zip(starts, ends)]
        return [(NEG_INF if s == NEG else s >> 1, POS_INF if e == POS else e >> 1, s != NEG and not s & 1, e != POS and e & 1 == 1)
                for s, e in zip(starts, ends)]


def from_ends(lo, lo_finite, lo_closed, hi, hi_finite, hi_closed) -> tuple:
    """``(s, e)`` as engine/exprs.py trees of ends given as trees: a time in
    grid units, whether it is finite, whether it is closed (the columns'
    arrays of a table's ends, to_numpy; the rounds' input columns, to_sql)."""
    from .exprs import when

    return (when(lo_finite, lo * 2 + when(lo_closed, 0, 1), NEG),
            when(hi_finite, hi * 2 + when(hi_closed, 1, 0), POS))


def closed_ends() -> tuple:
    """``(start_closed, end_closed)`` of the codes ``s``, ``e`` as
    engine/exprs.py trees (an unbounded end is open), for every writer of
    intervals: the columns' decoding and writers (to_numpy), the rounds'
    outputs (to_sql)."""
    from .exprs import col

    s, e = col("s"), col("e")
    return s.ne(NEG).both((s & 1).eq(0)), e.ne(POS).both((e & 1).eq(1))
