"""An aggregation's time segments, written once for the columns and the
Spark rounds as frames of engine/exprs.py: the intervals ``[s, e)`` of a
group's coalesced bindings cut its timeline at every start and end, and on
each piece between two consecutive cuts the set of bindings holding is
constant -- a segment, where an aggregate has one value.

Each binding gives two events, its start (``+1``) and its end (``-1``);
the events of a group are summed per point (a GROUP BY of the group and
the point); a point's running sum in time order is how many bindings hold
from it to the next point, its segment's end (the next point: ``lead``).
The points with none are dropped.  Summed values ride along: ``+v`` at a
start, ``-v`` at an end, their running sum the segment's sum.

The columns emit it in numpy (one sort of a single int64 key, reduceat,
cumsum) and read each binding's first and after-last segment from the
group's numbering of its events (the folds' difference arrays and sparse
table); the rounds emit it as SQL (exprs.frame_sql) and fold their sums
in its running sums.
"""

from __future__ import annotations

from .exprs import Frame, SOURCE, col, group, lit, select, unpivot, where, window

# the columns of the frame: a segment's start and end, and how many bindings hold on it
S, E, COUNT = "s", "e", "n"


def segments(partition, values=(), negated=None) -> Frame:
    """The segments of the rows (columns ``partition``, ``s``, ``e`` and
    ``values``, integers to sum) per ``partition``: the partition's
    columns, ``s``, ``e``, ``n`` and each value's sum over the bindings
    holding on the segment.  ``negated``: value -> a column of the rows
    holding its negation (the rounds': Spark's unary minus of a decimal
    rounds, arithmetic.negated), else ``-value``."""
    negated = negated or {}
    plus = {"p": col("s"), "dn": lit(1), **{f"d_{v}": col(v) for v in values}}
    minus = {"p": col("e"), "dn": lit(-1), **{f"d_{v}": col(negated[v]) if v in negated else -col(v) for v in values}}
    events = unpivot(SOURCE, partition, [plus, minus])
    points = group(events, [*partition, "p"], {d: col(d) for d in ["dn", *(f"d_{v}" for v in values)]})
    order = ("p",)
    running = {v: window("sum_through", col(f"d_{v}"), partition, order) for v in values}
    segs = select(points, {**{c: col(c) for c in partition}, S: col("p"), E: window("lead", col("p"), partition, order),
                           COUNT: window("sum_through", col("dn"), partition, order), **running})
    return where(segs, col(COUNT).compare(">", 0))


def points_of(frame: Frame) -> Frame:
    """The group node of a :func:`segments` frame (each event's point number on numpy)."""
    return frame.args[0].args[0]
