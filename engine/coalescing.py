"""Coalescing to maximal intervals, written once for the columns and the
Spark rounds as ordered windows (exprs.window): over an atom's rows in the
order of their starts, a row joins the interval of the rows before it when
its start lies within their running end (``s <= running max of e``: on the
doubled grid that is exactly "overlapping or meeting at a covered point"),
else it begins a new one.  The runs of rows that join are then reduced to
one row each, ``min(s)``, ``max(e)``: numpy's ``reduceat`` at the rows that
begin one (columns/coalesce.py), SQL's running sum of those rows as a run
number and a GROUP BY (spark_rounds/sql.py).

The same reduction merges an aggregation's answers: a segment joins the
one before when it meets it with the same values (:func:`continues_equal`).
"""

from __future__ import annotations

from .exprs import Expr, col, window
from .interval_codes import NEG

# the order of an atom's rows; a row's flag does not depend on how rows of
# equal starts are ordered (one of them lies before its own end), so the
# columns sort by the start alone
ORDER = ("s", "e")


def joins_interval(atom) -> Expr:
    """True on a row that joins the maximal interval of its atom's rows
    before it (columns ``atom``, then ``s``, ``e``)."""
    return col("s").le(window("max_before", col("e"), atom, ORDER, default=NEG - 1))


def continues_equal(partition, values) -> Expr:
    """True on a segment that meets the one before in its partition (a
    group's segments in time order) with equal ``values`` (columns)."""
    same = col("s").eq(window("lag", col("e"), partition, ("s",), default=NEG - 1))
    for v in values:
        same = same.both(col(v).eq(window("lag", col(v), partition, ("s",))))
    return same
