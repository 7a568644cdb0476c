"""Nodes for interval terms (see planner/interval_terms.py).

* :class:`WrapNode` appends the ends of each row's interval to its terms
  (the rows are a predicate's maximal intervals, so the ends are theirs);
* :class:`PlacedOutputNode` is an OutputNode that takes the head's interval
  from two of the binding's values instead of from the body.
"""

from __future__ import annotations

import math

from chronolog.language import ast
from chronolog.language.builtins import is_number
from chronolog.language.errors import DataError
from chronolog.language.float_times import float_time
from chronolog.language.text import format_term
from chronolog.language.timeline import NEG_INF, POS_INF, format_interval, intersect, make

from ..node import MapNode
from .output import _SEQ, OutputNode


class WrapNode(MapNode):
    def label(self) -> str:
        return "Wrap: append the interval's start and end to the terms"

    def process(self, batch):
        return [(terms + (iv[0], iv[1]), iv, *why) for terms, iv, *why in batch]  # (why: see _wrapped)


class CaptureNode(MapNode):
    """Time capture (``lit@T``): each row once per integer time point its
    interval meets, with that point appended, on the part of the interval
    inside [point, point + 1)."""

    def __init__(self, child, lit):
        super().__init__(child)
        self.lit = lit

    def label(self) -> str:
        return "Capture: one row per integer time point, the point appended"

    def process(self, batch):
        out = []
        for terms, iv, *why in batch:
            lo, hi = iv[0], iv[1]
            if lo in (NEG_INF, POS_INF) or hi in (NEG_INF, POS_INF):
                raise DataError(
                    f"cannot capture the time points of {self.lit.inner} on {format_interval(iv)}: there are infinitely many",
                    self.lit.pos if self.lit.pos.line else None,
                    hint="capture time from facts on bounded intervals, or bind the ends with lit@[S,E]",
                )
            k = math.floor(lo)
            while k <= hi:
                piece = intersect(iv, (k, k + 1, True, False))
                if piece is not None:
                    out.append((terms + (k,), piece, *why))
                k += 1
        return out


class PlacedOutputNode(OutputNode):
    """``calendar``: the program's, on a date timeline, where a date or
    datetime end (a date argument of the data) is its time point."""

    def __init__(self, child, head_pred, head_terms, slots, timed: ast.Timed, horizon=None, calendar=None):
        super().__init__(child, head_pred, head_terms, slots, None, horizon)
        self.timed, self.calendar = timed, calendar

        def getter(t):
            if isinstance(t, ast.Const):
                return lambda b, v=t.value: v
            s = slots[t.name]
            return lambda b: b[s]

        self.start, self.end = getter(timed.start), getter(timed.end)

    def label(self) -> str:
        t = self.timed
        iv = f"{'[' if t.start_closed else '('}{t.start},{t.end}{']' if t.end_closed else ')'}"
        return f"Output {ast.Atom(self.head_pred, self.head_terms)} on {iv}"

    def process(self, batch):
        build, hz, t = self.build, self.horizon, self.timed
        lc, hc = t.start_closed, t.end_closed
        out = []
        for b, _ in batch:
            lo, hi = self.start(b), self.end(b)
            if not (is_number(lo) and is_number(hi)):
                lo, hi = self._time_points(lo, hi)
            if type(lo) is not int or type(hi) is not int:
                lo, hi = self._exact(lo, b), self._exact(hi, b)
            iv = make(lo, hi, lc, hc)
            if iv is None:
                continue
            if hz is not None:
                iv = intersect(iv, hz)
                if iv is None:
                    continue
            out.append((b if build is None else build(b), iv))
        return out

    def _time_points(self, lo, hi) -> tuple:
        """Ends that are not numbers: dates on a date timeline become their
        time points; anything else is an error naming the values as written."""
        import datetime as dt

        from chronolog.language.dates import DATE_RE

        t = self.timed
        dated = [isinstance(v, dt.date) for v in (lo, hi)]
        if self.calendar is not None and all(d or is_number(v) for d, v in zip(dated, (lo, hi))):
            return tuple(self.calendar.point(v) if d else v for d, v in zip(dated, (lo, hi)))
        if any(dated) and self.calendar is None:
            hint = 'dates are time points on a date timeline: declare @timeGranularity("days"). (or the unit of the data)'
        elif self.calendar is not None and any(isinstance(v, str) and DATE_RE.match(v) for v in (lo, hi)):
            hint = 'a CSV column holds text unless mapped: @mapping("p", K, "NAME", "date"). reads it as dates'
        else:
            hint = "an interval's ends are numbers (on a date timeline, dates)"
        raise DataError(
            f"the interval of {t.inner} needs time points for its ends, not {format_term(lo)} and {format_term(hi)}",
            t.pos if t.pos.line else None, hint=hint,
        )

    def _exact(self, v, binding):
        """A float end as the number its shortest text shows (``S + 0.1``
        with ``S = 1`` is 11/10; ``0.1 + 0.2`` is 0.30000000000000004
        exactly), as the columns and every reader take it
        (language/float_times.py); NaN is an error at the rule."""
        if not isinstance(v, float):
            return v
        if v != v:
            t = self.timed
            names = ", ".join(f"{name} = {format_term(binding[i])}" for name, i in sorted(self.slots.items(), key=lambda kv: kv[1]) if not name.startswith("_"))
            raise DataError(
                f"the interval of {t.inner} has NaN as an end, which is not a time point (for {names})",
                t.pos if t.pos.line else None,
                hint="a NaN end comes from a float NaN in the data or from float arithmetic without a value; filter it out in the body",
            )
        return float_time(v)


class ExplainingPlacedOutputNode(PlacedOutputNode):
    """A PlacedOutputNode that records why (see output.ExplainingOutputNode)."""

    def process(self, batch):
        names = sorted(self.slots.items(), key=lambda kv: kv[1])
        out = []
        for b, body_iv in batch:
            for terms, iv in PlacedOutputNode.process(self, [(b, body_iv)]):
                binding = {v: b[i] for v, i in names if not v.startswith("_")}
                out.append((terms, iv, (self.rule, binding, body_iv, next(_SEQ))))
        return out


# ---------------------------------------------------------------- lowering
def wrap_pipeline(op, rule, state, variant=None, horizon=None, explain=False, scans_first=False):
    """The row pipeline of a WrapInterval (planner/physical.py): ``lit@[S,E]``."""
    return _wrapped(WrapNode, op, rule, state, variant, scans_first, explain)


def capture_pipeline(op, rule, state, variant=None, horizon=None, explain=False, scans_first=False):
    """The row pipeline of a CaptureTime (planner/physical.py): ``lit@T``."""
    return _wrapped(lambda out: CaptureNode(out, rule.lit), op, rule, state, variant, scans_first, explain)


def _wrapped(make_node, op, rule, state, variant, scans_first, explain):
    """The node over the rule's output; with ``explain`` each row carries
    its derivation after its interval, and the nodes pass it on (a proof
    goes through the fresh predicate down to the atom read)."""
    from .output import ExplainingOutputNode
    from .pipeline import body_pipeline

    body, slots = body_pipeline(op.input, rule, state, variant, scans_first)
    out = (ExplainingOutputNode if explain else OutputNode)(body, rule.head_pred, rule.inner_terms, slots)
    out.slots, out.rule = slots, rule
    node = make_node(out)
    node.slots, node.rule = slots, rule
    return node


def timed_head_pipeline(op, rule, state, variant=None, horizon=None, explain=False, scans_first=False):
    """The row pipeline of a PlaceInterval (planner/physical.py): ``p(X)@[S,E] :- body``."""
    from .pipeline import body_pipeline

    body, slots = body_pipeline(op.input, rule, state, variant, scans_first)
    cls = ExplainingPlacedOutputNode if explain else PlacedOutputNode
    program = getattr(getattr(state, "plan", None), "program", None)
    out = cls(body, rule.head_pred, rule.head_terms, slots, op.timed, horizon, getattr(program, "calendar", None))
    out.slots, out.rule = slots, rule
    return out
