"""The horizon a run without one can take: its given facts widened by how
far the program's rules reach beyond them.

A program whose recursion moves time has, with no horizon, a model that
may be infinite; the embedded engine then searches it for a repetition
(engine/termination.py), stratum by stratum on Python rows.  Where every
stratum derives near the facts it reads (planner/confining.
reach_where_facts_end: each time-moving rule confined by facts from
outside its cycle, every window finite) and every given fact ends, the
model is finite and lies within the hull of the given facts widened by
that reach: a run with that horizon cuts nothing and reaches the same
model the way any run with a horizon does, on columns from Arrow and the
kernel reader's columns (1,000,000 facts of bench/spark_aggregate.py's
confined program: 3.3 s against 13.8 s searched stratum by stratum).
Whether the facts end is known only from them, so this is decided per
run (chronolog/api.py), and again when an update adds facts beyond them.
"""

from __future__ import annotations

import math
from typing import Optional

from chronolog.language.timeline import NEG_INF, POS_INF, make
from chronolog.planner.confining import reach_where_facts_end


def facts_hull(rows, columns=()) -> Optional[tuple]:
    """``(least start, greatest end)`` of the facts ``rows`` (``{pred:
    [(terms, interval)]}``) and ``columns`` (the kernel reader's
    FactColumns, read by their distinct time values: FactColumns.time_hull), or None: no fact."""
    lo, hi = POS_INF, NEG_INF
    for r in rows.values():
        if r:
            lo = min(lo, min(iv[0] for _, iv in r))
            hi = max(hi, max(iv[1] for _, iv in r))
    for fc in columns or ():
        ends = fc.time_hull()
        if ends is not None:
            lo, hi = min(lo, ends[0]), max(hi, ends[1])
    return None if lo == POS_INF and hi == NEG_INF else (lo, hi)


def implied_horizon(plan, hull) -> Optional[tuple]:
    """The closed interval within which ``plan``'s model lies when its
    given facts lie within ``hull`` (:func:`facts_hull`), or None: no fact,
    one without end, or a program not known to stay near its facts."""
    if hull is None or hull[0] == NEG_INF or hull[1] == POS_INF:
        return None
    reach = reach_where_facts_end(plan)
    if reach is None:
        return None
    # (whole numbers outward: ends the facts gave as binary floats, or
    # fractions, widen to an exact horizon that still holds the model)
    return make(math.floor(hull[0]) - math.ceil(reach), math.ceil(hull[1]) + math.ceil(reach), True, True)
