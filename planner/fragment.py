"""Which kind of model a program has, and which way its recursion moves time.

Two analyses over the normalised rules, both at compile time:

* :func:`classify` is the Temporal Vadalog paper's classification: no harmful temporal cycle
  → *Finite*; harmful cycles but temporal linear with non-punctual operators,
  or union-free with non-punctual boxes → *Constant*; otherwise *Periodic*.
  ``chronolog plan`` prints it with the rules that make the cycle.
* :func:`direction` says whether every rule only looks at the past of the
  time it derives (*forward*), only at its future (*backward*), or both
  (*mixed*).  The run-time termination strategy (engine/termination.py)
  relies on it: in a forward program the model up to a time ``x`` depends on
  nothing after ``x``, so it can be computed exactly up to a bound, and a
  window of the model that repeats proves the rest repeats too.

Times are relative: a literal ``B<w1,w2>`` (box) then ``D<d1,d2>`` (shift)
holding at body time ``t`` reads its atom at times in
``[t - d2 + w1, t - d1 + w2]``; a head shift ``D<h1,h2>`` puts the head at
``t + [h1, h2]``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional

from .ir import NegScan, Scan, SinceRule

INF = math.inf


def _window(w):
    return (0, 0) if w is None else (w[0], w[1])


def literal_reach(lit, rule) -> tuple:
    """``(lookahead, lookback)`` of ``lit`` relative to the time the head gets.

    ``lookahead`` is how far after the head time the literal may read its
    atom (``<= 0`` means it reads only the past), ``lookback`` how far before.
    """
    h1, h2 = _window(rule.head_shift)
    if isinstance(lit, Scan):
        w1, w2 = _window(lit.box)
        d1, d2 = _window(lit.shift)
        g = _group_reach(lit)
        return (w2 - d1 - h1 + g, d2 - w1 + h2 + g)
    if isinstance(lit, NegScan):
        return (-h1, h2)
    raise TypeError(lit)  # pragma: no cover


def _group_reach(lit):
    """How far a time grouping widens what a literal reads, each way: the
    whole period around ``t`` (its longest, for months and years)."""
    group = getattr(lit, "group", None)
    if group is None:
        return 0
    return group.reach()


def group_period(rules):
    """The lcm of the cycles of the time groupings in ``rules`` (their
    length, or 400 years for months and years; None if there are none);
    raises ValueError naming a rule whose grouping's cycle is too long."""
    lengths = []
    for rule in rules:
        for lit in getattr(rule, "body", ()):
            group = getattr(lit, "group", None)
            if group is None:
                continue
            cycle = group.cycle()
            if cycle is None:
                raise ValueError(rule)
            lengths.append(cycle)
    return lcm_of(lengths) if lengths else None


def rule_reach(rule) -> list:
    """``(pred, lookahead, lookback)`` for each atom the rule reads."""
    if isinstance(rule, SinceRule):
        a, b = rule.window[0], rule.window[1]
        h1, h2 = _window(rule.head_shift)
        if rule.op == "S":  # B in [t-b, t-a], A on (r, t)
            return [(rule.right.pred, -a - h1, b + h2), (rule.left.pred, -h1, b + h2)]
        return [(rule.right.pred, b - h1, -a + h2), (rule.left.pred, b - h1, h2)]
    out = []
    for lit in rule.body:
        if isinstance(lit, (Scan, NegScan)):
            ahead, back = literal_reach(lit, rule)
            out.append((lit.pred, ahead, back))
    return out


def _fin(x, other):
    """``x`` if finite, else the other (finite) bound of the same window."""
    return x if x not in (INF, -INF) else (other if other not in (INF, -INF) else 0)


def finite_reach(rule) -> object:
    """The largest finite distance between a time the rule derives and a
    time it reads.  A window that wide holds everything one derivation step
    reads (unbounded operators are materialised by the termination strategy,
    and then their finite bound is what counts)."""
    h1, h2 = _window(rule.head_shift)
    h1, h2 = _fin(h1, h2), _fin(h2, h1)
    if isinstance(rule, SinceRule):
        a, b = rule.window[0], rule.window[1]
        b = _fin(b, a)
        return max(abs(a), abs(b)) + max(abs(h1), abs(h2))
    best = max(abs(h1), abs(h2))
    for lit in rule.body:
        if not isinstance(lit, Scan):
            continue
        w1, w2 = _window(lit.box)
        d1, d2 = _window(lit.shift)
        w1, w2 = _fin(w1, w2), _fin(w2, w1)
        d1, d2 = _fin(d1, d2), _fin(d2, d1)
        g = _group_reach(lit)
        g = 0 if g == INF else g
        back = d2 - w1 + h2 + g
        ahead = w2 - d1 - h1 + g
        best = max(best, abs(back), abs(ahead))
    return best


def program_reach(rules) -> object:
    """The widest :func:`finite_reach` over the rules (at least 1)."""
    best = 0
    for r in rules:
        best = max(best, finite_reach(r))
    return best if best else 1


@dataclass
class Direction:
    kind: str  # "none" | "forward" | "backward" | "mixed"
    forward_rule: Optional[object] = None  # a rule that looks into the future
    backward_rule: Optional[object] = None  # a rule that looks into the past


def direction(rules, derived: set) -> Direction:
    """How the rules move time, judged on the literals over derived predicates
    (the given facts are known everywhere, so reading them ahead is harmless)."""
    looks_ahead = looks_back = None
    for r in rules:
        for pred, ahead, back in rule_reach(r):
            if pred not in derived:
                continue
            if ahead > 0 and looks_ahead is None:
                looks_ahead = r
            if back > 0 and looks_back is None:
                looks_back = r
    if looks_ahead is None and looks_back is None:
        return Direction("none")
    if looks_ahead is None:
        return Direction("forward", backward_rule=looks_back)
    if looks_back is None:
        return Direction("backward", forward_rule=looks_ahead)
    return Direction("mixed", forward_rule=looks_ahead, backward_rule=looks_back)


# --------------------------------------------------------------------------
# the model kind, as in the Temporal Vadalog paper


@dataclass
class Fragment:
    kind: str  # "finite" | "constant" | "periodic"
    reason: str
    cycle_rules: list = field(default_factory=list)
    pattern_length: object = None  # compile-time step of the repeating pattern


def _punctual(w) -> bool:
    return w is not None and w[0] == w[1]


def gcd_of(values) -> Optional[Fraction]:
    """The greatest common divisor of non-zero rationals (None if none)."""
    g = None
    for v in values:
        v = Fraction(v)
        if v == 0:
            continue
        v = abs(v)
        if g is None:
            g = v
        else:
            num = math.gcd(g.numerator * v.denominator, v.numerator * g.denominator)
            g = Fraction(num, g.denominator * v.denominator)
    return g


def lcm_of(values):
    """The least common multiple of rationals (None if there are none),
    normalised (a whole number comes back as an int)."""
    from chronolog.language.timeline import normalize

    out = None
    for v in values:
        v = Fraction(abs(v))
        out = v if out is None else out * v / gcd_of([out, v])
    return normalize(out) if out is not None else None


def classify(strata) -> Fragment:
    harmful = [s for s in strata if s.recursive and s.shifting_rules]
    if not harmful:
        return Fragment("finite", "no recursion moves time")
    cycle = [r for s in harmful for r in s.shifting_rules]

    def ops(rule):
        if isinstance(rule, SinceRule):
            yield rule.window
            return
        if rule.head_shift is not None:
            yield rule.head_shift
        for lit in rule.body:
            if isinstance(lit, Scan):
                if lit.box is not None:
                    yield lit.box
                if lit.shift is not None:
                    yield lit.shift

    # the pattern step: the gcd of the punctual shifts around each cycle,
    # combined over the components by lcm
    pattern = None
    for s in harmful:
        steps = [w[0] for r in s.shifting_rules for w in ops(r) if _punctual(w) and w[0] != INF]
        g = gcd_of(steps)
        if g is not None:
            pattern = g if pattern is None else lcm_of([pattern, g])
    linear = all(
        sum(1 for lit in r.body if isinstance(lit, Scan) and lit.pred in s.preds) <= 1
        for s in harmful
        for r in s.rules
    )
    if linear and not any(_punctual(w) for r in cycle for w in ops(r)):
        return Fragment("constant", "temporal linear with non-punctual operators", cycle, pattern)
    heads = [r.head_pred for s in harmful for r in s.rules]
    boxes = [lit.box for r in cycle if not isinstance(r, SinceRule) for lit in r.body
             if isinstance(lit, Scan) and lit.box is not None]
    if len(heads) == len(set(heads)) and not any(_punctual(b) for b in boxes) and not linear:
        return Fragment("constant", "union-free with non-punctual boxes", cycle, pattern)
    why = "temporal linear but with punctual operators" if linear else "neither temporal linear nor union-free"
    return Fragment("periodic", why, cycle, pattern)
