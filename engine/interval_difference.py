"""Negation's interval difference, written once for the columns and the
Spark rounds as ordered windows (exprs.window): a row (its interval
``[s, e)``) joined with each maximal hole ``[hs, he)`` it overlaps keeps,
over its holes in the order of their starts, the gap before each hole
(from the hole before's end, or the row's start) and, after its last hole,
the gap up to its end.  The join is each backend's (the row pairs of
columns/code_frames.py, whose ``left_over`` takes these windows in numpy;
a left join, spark_rounds/rules.py).
"""

from __future__ import annotations

from .exprs import Expr, col, window
from .interval_codes import POS

_AFTER_EVERY_START = POS + 1  # (no hole starts there: a row's last hole has it as the next start)


def gap_start(row) -> Expr:
    """The start of the gap before a row's hole (columns ``row``: what
    tells the row apart), the end of the hole before it (which overlaps the
    row: it ends after the row's start) or the row's start."""
    return window("lag", col("he"), row, ("hs",), default=col("s"))


def last_hole(row) -> Expr:
    """True on a row's last hole: its gap after it reaches the row's end."""
    return window("lead", col("hs"), row, ("hs",), default=_AFTER_EVERY_START).eq(_AFTER_EVERY_START)
