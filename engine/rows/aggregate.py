"""AggregateNode: time-point aggregation, grouped by the head's variables.

At every time point ``t`` an aggregate ranges over the bindings of the rule
body that hold at ``t``, in the group of the head's other variables (the
exact rules are in docs/language.md, "Aggregation").  Within a group the
result is piecewise constant: the node cuts the timeline at every interval
end of the group's rows into elementary pieces (points and the open gaps
between them), aggregates the rows covering each piece, and emits each value
on the maximal run of adjacent pieces that share it.

The node is blocking: it drains its input (the body over full relations)
before it emits anything.  Inside a recursive stratum it runs again each
round; monotonic aggregates only grow there, and each round's values are
facts of the model (the Temporal Vadalog paper: intermediate results of monotonic
aggregation are kept).
"""

from __future__ import annotations

import math
from fractions import Fraction

from chronolog.language.builtins import FOLDS, BuiltinTypeError, is_number, shown
from chronolog.language.errors import DataError
from chronolog.language.text import make_set, term_sort_key
from chronolog.language.timeline import NEG_INF, POS_INF, coalesce, normalize

from .expressions import compile_expr
from ..node import Node

# which of a contributor's values at a time point counts: the greatest,
# except for min/mmin, where the least does
_LEAST = {"min", "mmin"}


def _number_check(func, v, where):
    if not is_number(v):
        raise DataError(f"{func}() needs numbers, but a binding gives {shown(v)}", getattr(where, "pos", None))


_INFINITE = (math.inf, -math.inf)


def _infinities(func, where):
    return DataError(
        f"{func}() of +inf and -inf is not a number", getattr(where, "pos", None),
        hint="keep infinite values out of the aggregate with a condition",
    )


def _sum(values):
    if any(type(v) is float for v in values):
        try:
            return math.fsum(values)  # correctly rounded: independent of the order
        except ValueError:  # +inf beside -inf (raised with the aggregate's position by the caller)
            raise _InfiniteSum() from None
        except OverflowError:  # finite floats whose sum leaves the float range (before fsum meets an infinity)
            infinite = {v for v in values if v in _INFINITE}
            if len(infinite) == 2:
                raise _InfiniteSum() from None
            return infinite.pop() if infinite else _float(sum(Fraction(v) for v in values))
    return normalize(sum(values))


def _float(exact):
    """The float nearest an exact sum; beyond the float range it is an
    infinity, as a float addition gives (1e308 + 1e308 is +inf)."""
    try:
        return float(exact)
    except OverflowError:
        return math.inf if exact > 0 else -math.inf


class _InfiniteSum(ArithmeticError):
    """A float sum of +inf and -inf: no value."""


def _prod(values):
    """A product with a float in it is multiplied exactly and rounded once
    (as math.fsum sums): its value does not depend on the order of the
    bindings, which differs between executors (rows, Spark's tasks)."""
    if not any(type(v) is float for v in values):
        out = 1
        for v in values:
            out = out * v
        return normalize(out)
    if any(v in _INFINITE for v in values):  # (no exact value: the sign's infinity, or NaN beside a zero)
        if any(v == 0 for v in values):
            return math.nan
        return -math.inf if sum(1 for v in values if v < 0) % 2 else math.inf
    num, den = 1, 1
    for v in values:
        n, d = v.as_integer_ratio() if type(v) is float else Fraction(v).as_integer_ratio()
        num, den = num * n, den * d
    try:  # (Python's int / int is correctly rounded: no Fraction reduced first, a third of the time)
        return num / den  # (a zero product is 0.0, never -0.0)
    except OverflowError:
        return math.inf if num > 0 else -math.inf


def _avg(values):
    """A mean with a float in it is the exact sum divided by the count,
    rounded once (as _Running's): finite where the mean is, even when the
    float sum leaves the float range."""
    s = _sum(values)
    if not isinstance(s, float):
        return normalize(Fraction(s) / len(values))
    if not all(math.isfinite(v) for v in values if type(v) is float):  # an infinity or NaN: the mean's
        return s / len(values)
    return _float(sum(map(Fraction, values)) / len(values))


def _union(values):
    out = set()
    for v in values:
        if type(v) is tuple:
            out.update(v)
        else:
            out.add(v)
    return make_set(out)


# each aggregate's fold (language/builtins.py's FOLDS: a monotonic form folds as its plain one)
_FOLD = {func: {"sum": _sum, "prod": _prod, "count": len, "min": min, "max": max, "avg": _avg, "munion": _union}[fold]
         for func, fold in FOLDS.items()}


def aggregate_value(func: str, values: list):
    """The engine's value of the aggregate ``func`` over ``values`` (one per
    binding at a point): what another executor calls to give the engine's
    floats and sets (connectors/spark_rounds/udfs.py)."""
    try:
        return _FOLD[func](values)
    except _InfiniteSum:
        raise _infinities(func, None) from None


class AggregateSpec:
    """One aggregate of a rule, compiled against the body's slots."""

    def __init__(self, var, agg, slots, where):
        self.var, self.func, self.where = var, agg.func, where
        self.value = (lambda b: 1) if agg.expr is None else compile_expr(agg.expr, slots, where)
        if agg.contributors:
            cs = []
            for c in agg.contributors:
                if hasattr(c, "name"):
                    cs.append(slots[c.name])
            cs = tuple(cs)
            self.identity = lambda b: tuple([b[s] for s in cs])
        else:
            self.identity = None  # every distinct binding contributes
        self.fold = _FOLD[self.func]
        self.numeric = self.func not in ("munion", "min", "max", "mmin", "mmax", "count", "mcount")
        self.pick = min if self.func in _LEAST else max


class AggregateNode(Node):
    """Drains the body, emits ``(group values + aggregate values, interval)``."""

    def __init__(self, child, group_slots, specs):
        self.child = child
        self.children = (child,)
        self.group_slots = tuple(group_slots)
        self.specs = specs
        self._out = None
        self._batch = []

    def label(self) -> str:
        aggs = ", ".join(f"{s.var} = {s.func}" for s in self.specs)
        return f"Aggregate {aggs} by {len(self.group_slots)} group variable(s)"

    def reset(self) -> None:
        self._out = None
        super().reset()

    def next(self) -> bool:
        if self._out is None:
            self._out = self._compute()
        if self._out:
            self._batch, self._out = self._out, []
            return True
        return False  # drained until reset()

    # ------------------------------------------------------------------
    def _compute(self) -> list:
        gs = self.group_slots
        groups: dict = {}
        for b, iv in self.child.rows():
            key = tuple([b[s] for s in gs])
            per = groups.get(key)
            if per is None:
                per = groups[key] = {}
            lst = per.get(b)
            if lst is None:
                per[b] = [iv]
            else:
                lst.append(iv)
        out = []
        try:
            for key, per in groups.items():
                out.extend(self._group(key, _rows_of(per)))
        except DataError:
            # groups come in the order their rows arrived, which differs
            # between executors (the columnar one hands a stratum it falls
            # back on over in its own order): the error is the first group's
            # in term order, so every executor names the same values
            for key in sorted(groups, key=lambda k: tuple(map(term_sort_key, k))):
                self._group(key, _rows_of(groups[key]))
            raise
        return out

    def _group(self, key, rows):
        points = set()
        for _, (lo, hi, _, _) in rows:
            if lo != NEG_INF:
                points.add(lo)
            if hi != POS_INF:
                points.add(hi)
        pts = sorted(points)
        index = {p: i for i, p in enumerate(pts)}
        n_pieces = 2 * len(pts) + 1  # (-inf,p0) [p0] (p0,p1) [p1] ... (pk,+inf)
        starts = [[] for _ in range(n_pieces + 1)]
        ends = [[] for _ in range(n_pieces + 1)]
        for r, (b, (lo, hi, lc, hc)) in enumerate(rows):
            first = 0 if lo == NEG_INF else 2 * index[lo] + (1 if lc else 2)
            last = n_pieces - 1 if hi == POS_INF else 2 * index[hi] + (1 if hc else 0)
            if first <= last:
                starts[first].append(r)
                ends[last + 1].append(r)
        specs = self.specs
        inputs = [[s.value(b) for s in specs] for b, _ in rows]
        for si, s in enumerate(specs):
            if s.numeric:
                # the least value that is no number, in term order: the
                # order rows arrive in differs between executors
                bad = [inputs[r][si] for r in range(len(rows)) if not is_number(inputs[r][si])]
                if bad:
                    _number_check(s.func, min(bad, key=term_sort_key), s.where)
        active: dict = {}
        accs = [
            _Running(s.func, si, inputs, s.where) if s.identity is None and s.func in _RUNNING else _Recompute(s, si, rows, inputs, active)
            for si, s in enumerate(specs)
        ]
        out = []
        run_value = None
        run_start = None  # piece index
        for p in range(n_pieces + 1):
            leaving, entering = ends[p], starts[p]
            if not leaving and not entering and p < n_pieces:
                continue  # the same rows as the piece before: the run goes on
            for r in leaving:
                del active[r]
                for a in accs:
                    a.remove(r)
            for r in entering:
                active[r] = True
                for a in accs:
                    a.add(r)
            value = tuple([a.value() for a in accs]) if (active and p < n_pieces) else None
            if value is None and run_value is None:
                continue
            if value is not None and run_value is not None and value == run_value and _same(value, run_value):
                continue
            if run_value is not None:
                out.append((key + run_value, _piece_interval(pts, run_start, p - 1)))
            run_value, run_start = value, p
        return out


_RUNNING = {"sum", "msum", "count", "mcount", "avg"}


def _rows_of(per: dict) -> list:
    """A group's ``(binding, interval)`` rows: one binding may arrive with
    overlapping intervals (after a diamond), and at each point it counts once."""
    return [(b, iv) for b, ivs in per.items() for iv in (ivs if len(ivs) == 1 else coalesce(ivs))]


class _Running:
    """sum/count/avg kept up to date as rows enter and leave: O(1) a step.
    The running sum is exact (floats enter as their exact rational value), so
    it never drifts, and its rounding at the end is math.fsum's (a mean's:
    the exact mean's, rounded once)."""

    def __init__(self, func, si, inputs, where=None):
        self.func, self.si, self.inputs, self.where = func, si, inputs, where
        self.total = 0
        self.n = 0
        self.counting = func in ("count", "mcount")
        self.floats = 0
        self.infinite = [0, 0]  # how many -inf, +inf

    def add(self, r):
        v = self.inputs[r][self.si]
        self.n += 1
        if self.counting:  # (a count adds no values: they may be names or booleans)
            return
        if type(v) is float:
            self.floats += 1
            if v in _INFINITE:  # no exact value: counted apart, as math.fsum sees them
                self.infinite[v > 0] += 1
                return
            v = Fraction(v)
        self.total += v

    def remove(self, r):
        v = self.inputs[r][self.si]
        self.n -= 1
        if self.counting:
            return
        if type(v) is float:
            self.floats -= 1
            if v in _INFINITE:
                self.infinite[v > 0] -= 1
                return
            v = Fraction(v)
        self.total -= v

    def value(self):
        if self.func in ("count", "mcount"):
            return self.n
        neg, pos = self.infinite
        if neg or pos:
            if neg and pos:
                raise _infinities(self.func, self.where)
            return math.inf if pos else -math.inf
        if self.func == "avg":  # the exact mean, rounded once
            return _float(self.total / self.n) if self.floats else normalize(Fraction(self.total) / self.n)
        return _float(self.total) if self.floats else normalize(self.total)


class _Recompute:
    """Any aggregate, recomputed from the rows active on each piece."""

    def __init__(self, spec, si, rows, inputs, active):
        self.spec, self.si, self.rows, self.inputs, self.active = spec, si, rows, inputs, active

    def add(self, r):
        pass

    def remove(self, r):
        pass

    def value(self):
        s, si, inputs = self.spec, self.si, self.inputs
        if s.identity is None:
            vals = [inputs[r][si] for r in self.active]
        else:
            best: dict = {}
            pick = s.pick
            rows = self.rows
            try:
                for r in self.active:
                    ident = s.identity(rows[r][0])
                    v = inputs[r][si]
                    old = best.get(ident)
                    best[ident] = v if old is None else pick(old, v)
            except TypeError:  # one contributor's values: #T beside a number
                raise _incomparable(s, [inputs[r][si] for r in self.active]) from None
            vals = list(best.values())
        try:
            r = s.fold(vals)
        except _InfiniteSum:
            raise _infinities(s.func, s.where) from None
        except (TypeError, BuiltinTypeError):
            raise _incomparable(s, vals) from None
        if r != r:  # prod() of inf and 0.0
            raise DataError(
                f"{s.func}() of {vals[:5]!r} is not a number (NaN)", getattr(s.where, "pos", None),
                hint="keep infinite values out of the aggregate with a condition",
            )
        return r


def _incomparable(spec, vals) -> DataError:
    some = sorted(vals, key=term_sort_key)[:5]  # (in term order: the same text whatever the input order)
    return DataError(
        f"cannot compute {spec.func}() of [{', '.join(map(shown, some))}]: the values must be comparable",
        getattr(spec.where, "pos", None),
    )


def _same(a, b) -> bool:
    # 1 == 1.0 in Python, but an int and a float are different results
    return all(type(x) is type(y) and x == y for x, y in zip(a, b))


def _piece_interval(pts, first, last):
    """The union of the elementary pieces first..last as one interval."""

    def lo_of(i):
        if i == 0:
            return NEG_INF, False
        return pts[(i - 1) // 2], i % 2 == 1

    def hi_of(i):
        if i == 2 * len(pts):
            return POS_INF, False
        return pts[i // 2], i % 2 == 1

    lo, lc = lo_of(first)
    hi, hc = hi_of(last)
    return (lo, hi, lc, hc)


# ---------------------------------------------------------------- lowering
def aggregate_pipeline(op, rule, state, variant=None, horizon=None, explain=False, scans_first=False):
    """The row pipeline of an Aggregate operator (planner/physical.py): its
    body over the full relations (in a recursive round too: the seminaive
    loop runs one variant of it, engine/seminaive.py), an AggregateNode per
    group, the conditions and assignments after it."""
    from .pipeline import _STEPS, assignment_origin, body_pipeline, rule_output

    body, slots = body_pipeline(op.input, rule, state)
    specs = [AggregateSpec(v, a, slots, assignment_origin(rule, v)) for v, a in op.aggregates]
    node = AggregateNode(body, [slots[g] for g in op.group], specs)
    slots = {g: i for i, g in enumerate(op.group)}
    for v, _ in op.aggregates:
        slots[v] = len(slots)
    for step in op.after:
        node = _STEPS[type(step)](node, step, slots, None, state, rule)
    return rule_output(node, slots, rule, rule.head_terms, horizon, explain, rule.head_shift)
