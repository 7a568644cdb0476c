"""Finding where a computed model starts to repeat, and facts that repeat.

The termination strategy (termination.py) computes a forward program's model
exactly up to a bound ``hi`` and asks :func:`find_repetition` whether the
model, from some time ``s0`` after the last given fact, repeats with a
period ``p``.  The model is cut into *segments* at every interval end; each
segment is summarised by a token (its length, the atoms holding at its left
end point, the atoms holding inside it).  Atom sets are compared through a
sum of 64-bit atom hashes, updated as the sweep passes each end, so a token
costs O(1) however many atoms hold (each atom gets two random 64-bit
numbers, so unequal sets collide with probability 2**-128).  The token sequence's periodic suffix is
found with the prefix function of the reversed sequence (Knuth–Morris–Pratt),
:func:`repetition_in`, which also takes the tokens a columnar attempt's
frames give (engine/columns/repetition.py).

A repetition counts only when it spans at least ``reach + 3p``: then a whole
window of width ``reach`` repeats, and since in a forward program what
happens after ``t`` depends only on the window before ``t`` (and the given
facts, all before ``s0``), the model repeats forever (the termination theorem).  A model
with no interval end in the last ``reach`` before ``hi`` is constant from
its last end on.

:class:`Repeating` facts are the answer's form: ``iv`` and every shift of it
by a positive multiple of ``period`` (a negative period repeats into the
past).
"""

from __future__ import annotations

import math
from fractions import Fraction
from dataclasses import dataclass
from typing import Optional

from chronolog.language.errors import ProgramError
from chronolog.language.timeline import coalesce, contains, format_interval, instances_meet, intersect, make

INF = math.inf
_MASK = (1 << 64) - 1


@dataclass(frozen=True)
class Repetition:
    start: object  # s0: membership at t equals membership at t + period for t >= s0
    period: object  # None: constant after start


class _AtomHashes:
    """Two independent random 64-bit numbers per atom.  A set of atoms is
    compared through their sums: Python's tuple hashes are too structured
    for that (``hash(p(b)) + hash(q(a))`` can equal ``hash(q(b)) + hash(p(a))``),
    random numbers make a false match a 2**-128 event."""

    def __init__(self):
        import random

        self._rng = random.Random(0x5EED)
        self._known: dict = {}

    def __call__(self, pred, terms) -> tuple:
        key = (pred, terms)
        h = self._known.get(key)
        if h is None:
            h = self._known[key] = (self._rng.getrandbits(64), self._rng.getrandbits(64))
        return h


def segment_tokens(store, lo_limit, hi_limit) -> tuple:
    """Endpoints ``E`` in ``[lo_limit, hi_limit)`` and one token per segment
    ``[E[i], E[i+1])``: ``(length, hash at E[i], hash inside (E[i], E[i+1]))``.
    Everything at or after ``hi_limit`` is ignored (it is not exact)."""
    starts: dict = {}  # x -> [closed, open, punctual] sums
    ends: dict = {}  # x -> [closed, open] sums
    active = [0, 0]
    hashes = _AtomHashes()

    def add(lst, i, h):
        lst[i] = ((lst[i][0] + h[0]) & _MASK, (lst[i][1] + h[1]) & _MASK)

    zero = (0, 0)
    for pred, rel in store.relations.items():
        for terms, ivs in rel.atoms.items():
            h = hashes(pred, terms)
            for lo, hi, lc, hc in ivs:
                if lo >= hi_limit:
                    continue
                if lo == hi:
                    add(starts.setdefault(lo, [zero, zero, zero]), 2, h)
                    continue
                if lo == -INF:
                    active[0] = (active[0] + h[0]) & _MASK
                    active[1] = (active[1] + h[1]) & _MASK
                else:
                    add(starts.setdefault(lo, [zero, zero, zero]), 0 if lc else 1, h)
                if hi < hi_limit:
                    add(ends.setdefault(hi, [zero, zero]), 0 if hc else 1, h)
    points = sorted(set(starts) | set(ends))
    out_e, out_tok = [], []
    empty_s, empty_e = (zero, zero, zero), (zero, zero)
    for x in points:
        s = starts.get(x, empty_s)
        e = ends.get(x, empty_e)
        at_point = tuple((active[j] - e[1][j] + s[0][j] + s[2][j]) & _MASK for j in (0, 1))
        active = [(active[j] - e[0][j] - e[1][j] + s[0][j] + s[1][j]) & _MASK for j in (0, 1)]
        if x >= lo_limit:
            out_e.append(x)
            out_tok.append((at_point, tuple(active)))
    tokens = []
    for i in range(len(out_e) - 1):
        tokens.append((out_e[i + 1] - out_e[i], out_tok[i][0], out_tok[i][1]))
    return out_e, tokens


def _prefix_function(seq) -> list:
    pi = [0] * len(seq)
    k = 0
    for i in range(1, len(seq)):
        while k and seq[i] != seq[k]:
            k = pi[k - 1]
        if seq[i] == seq[k]:
            k += 1
        pi[i] = k
    return pi


def _multiple(p, of) -> bool:
    if of is None:
        return True
    from fractions import Fraction

    return (Fraction(p) / Fraction(of)).denominator == 1


def find_repetition(store, t_data, hi, reach, multiple_of=None, constant_ok=None) -> Optional[Repetition]:
    """Where the model in ``store`` (exact before ``hi``) provably repeats.

    ``multiple_of``: the joint period of input facts that themselves repeat
    (and of time groupings); a repetition counts only if its period is a
    multiple of it (then the inputs after it repeat too).  ``constant_ok``:
    whether a stretch with no interval end wider than ``reach`` means the
    model is constant (not when inputs repeat: their next instance may be
    further away); by default when nothing repeats."""
    ends, tokens = segment_tokens(store, t_data, hi)
    return repetition_in(ends, tokens, t_data, hi, reach, multiple_of, constant_ok)


def repetition_in(ends, tokens, t_data, hi, reach, multiple_of=None, constant_ok=None) -> Optional[Repetition]:
    """:func:`find_repetition` in the model's :func:`segment_tokens` (or
    tokens equal where those are, over ends in any unit the other
    arguments are in: engine/columns/repetition.py)."""
    if constant_ok is None:
        constant_ok = multiple_of is None
    if not ends:
        last = t_data
    else:
        last = ends[-1]
    # (with a time grouping, shifting maps periods onto periods only by
    # multiples of its length: the stretch must hold one more of those)
    if constant_ok and hi - last > reach + (multiple_of or 0):
        return Repetition(last, None)
    n = len(tokens)
    if n < 2:
        return None
    rev = tokens[::-1]
    pi = _prefix_function(rev)
    for length in range(n, 1, -1):
        per = length - pi[length - 1]
        if length < 2 * per:
            continue
        i0 = n - length
        p = ends[i0 + per] - ends[i0]
        if ends[n] - ends[i0] >= reach + 3 * p and _multiple(p, multiple_of):
            return Repetition(ends[i0], p)
    return None


# --------------------------------------------------------------------------
# the answer's form


MAX_INSTANCES = 10_000_000  # a window spanning more repetitions than this is refused, not listed


def moved(iv, d):
    """``iv`` moved by ``d`` (an infinite end stays)."""
    if not d:
        return iv
    a, b = iv[0], iv[1]
    return make(a if a in (INF, -INF) else a + d, b if b in (INF, -INF) else b + d, iv[2], iv[3])


class TooManyInstances(ProgramError):
    """:meth:`Repeating.instances` over a window of more than
    :data:`MAX_INSTANCES` repetitions; a caller that knows why it lists
    them (the span of a stratum's data, an answer between clusters) says so
    instead (:func:`listing_refused`)."""


def listing_refused(what: str, r, lo, hi) -> ProgramError:
    """The error for listing ``r``'s instances between ``lo`` and ``hi``
    for ``what`` (a phrase: "q(x), which holds between clusters of data
    far apart,")."""
    return ProgramError(
        f"{what} repeats every {_short(abs(r.period))} from {format_interval(r.iv)}, and would be listed "
        f"instance by instance between {_short(lo)} and {_short(hi)}: more than {MAX_INSTANCES:,} instances, too many",
        hint="narrow a wide operator window, reason over the data near the time you need on its own, or within a "
             "horizon (--horizon FROM,TO or horizon=(FROM, TO)) that starts before that data's first fact: what is "
             "derived is confined to a horizon",
    )


def _short(x) -> str:
    """A time for a message: exact, or about it where that takes more than 24 digits."""
    from decimal import Decimal

    from chronolog.language.timeline import format_number

    text = format_number(x)
    return text if len(text) <= 24 else f"about {Decimal(int(x)):.3E}"


def _floor_ratio(x, y) -> int:
    """floor(x / y), y > 0, exactly: integers and fractions by floor
    division (a float quotient overflows for numbers beyond 1e308; a
    Fraction built for each instance made a query of a model with
    thousands of repeating pieces seconds long), a float end as a float."""
    if isinstance(x, float) or isinstance(y, float):  # an infinite end
        return math.floor(x / y)
    if isinstance(x, (int, Fraction)) and isinstance(y, (int, Fraction)):
        return x // y  # exact for int and Fraction (and bool, an int)
    return math.floor(Fraction(x) / Fraction(y))


def _ceil_ratio(x, y) -> int:
    """ceil(x / y), y > 0, exactly (:func:`_floor_ratio`)."""
    if isinstance(x, float) or isinstance(y, float):
        return math.ceil(x / y)
    return -_floor_ratio(-x, y)


@dataclass(frozen=True)
class Repeating:
    """``iv`` and its shifts by ``k * period`` for every ``k >= 0``."""

    iv: tuple
    period: object

    def instances(self, lo, hi) -> list:
        """The instances that meet ``[lo, hi]``: ``lo`` may be -inf when
        the instances repeat forward, ``hi`` +inf when they repeat back
        (there are finitely many of them then); a bound infinite the way
        they repeat is refused (:meth:`check_window`)."""
        self.check_window(lo, hi)
        p = self.period
        a, b = self.iv[0], self.iv[1]
        if p > 0:
            k0 = max(0, _floor_ratio(lo - b, p)) if lo != -INF else 0
            k1 = _ceil_ratio(hi - a, p)
        else:
            k0 = max(0, _floor_ratio(b - hi, -p)) if b != INF and hi != INF else 0
            k1 = _ceil_ratio(a - lo, -p)
        if k1 - k0 > MAX_INSTANCES:
            raise TooManyInstances(
                f"an operator's window reaches over more than {MAX_INSTANCES:,} repetitions of "
                f"{format_interval(self.iv)} every {self.period}, too many to list",
                hint="narrow the operator's window, or evaluate within a horizon (--horizon FROM,TO)",
            )
        out = []
        for k in range(k0, k1 + 1):
            iv = (a + k * p, b + k * p, self.iv[2], self.iv[3])
            if iv[1] >= lo and iv[0] <= hi:
                out.append(iv)
        return out

    def endless_toward(self, lo, hi):
        """``"+inf"`` or ``"-inf"`` when ``[lo, hi]`` is unbounded the way
        the instances repeat (it holds infinitely many), else None."""
        return "+inf" if self.period > 0 and hi == INF else "-inf" if self.period < 0 and lo == -INF else None

    def check_window(self, lo, hi, pred: str = "") -> None:
        """A window that is unbounded the way the instances repeat holds
        infinitely many of them: an error, naming ``pred`` when given."""
        end = self.endless_toward(lo, hi)
        if end is None:
            return
        from chronolog.language.errors import ProgramError

        what = f"{pred} has facts that repeat forever" if pred else f"{self.text()} repeats forever"
        raise ProgramError(f"{what} toward {end}: a window reaching {end} holds infinitely many of them",
                           hint=f"give the window a finite {'end' if end == '+inf' else 'start'}")

    def text(self) -> str:
        from chronolog.language.timeline import format_number

        return f"{format_interval(self.iv)} every {format_number(self.period)}"


def given_repetition(iv, period):
    """A given fact that repeats forever (``p(a)@[0,2] every 5``) in the
    answer's form: ``(interval, None)`` when its instances overlap or touch,
    so that it holds from its first instance on for good (``[0,+inf)``; the
    mirror for a negative period), else ``(None, Repeating)``.  A repeating
    fact thus always leaves a gap in every period."""
    if instances_meet(iv, period):
        if period > 0:
            return (iv[0], INF, iv[2], False), None
        return (-INF, iv[1], False, iv[3]), None
    return None, Repeating(iv, period)


def covers(core: list, repeating: list, q) -> bool:
    """Whether ``core`` intervals plus the ``repeating`` ones cover ``q``.

    A repeating atom leaves a gap in every period, so ``q`` is not covered
    when it reaches more than one period into a repeating part."""
    if any(contains(iv, q) for iv in core):
        return True
    if not repeating:
        return False
    lo, hi = q[0], q[1]
    ahead = [r for r in repeating if r.period > 0]
    back = [r for r in repeating if r.period < 0]
    if ahead:
        p = ahead[0].period
        tail_from = min(r.iv[0] for r in ahead)
        if hi == INF or hi - max(lo, tail_from) > p:
            return False
    if back:
        p = -back[0].period
        tail_to = max(r.iv[1] for r in back)
        if lo == -INF or min(hi, tail_to) - lo > p:
            return False
    if lo == -INF or hi == INF:
        return False  # only core intervals reach an infinite end, and none covered q
    span = max([abs(r.period) for r in repeating])
    pieces = [iv for iv in core if intersect(iv, q) is not None]
    for r in repeating:
        pieces.extend(r.instances(lo - span, hi + span))
    return any(contains(iv, q) for iv in coalesce(pieces))


def unroll(core: list, repeating: list, window) -> list:
    """The maximal intervals inside ``window`` (clipped to it)."""
    lo, hi = window[0], window[1]
    pieces = list(core)
    for r in repeating:
        pieces.extend(r.instances(lo, hi))
    out = []
    for iv in coalesce(pieces):
        x = intersect(iv, window)
        if x is not None:
            out.append(x)
    return out


def smallest_period(pattern: list, period) -> tuple:
    """One atom may repeat faster than the whole model: ``r(a,b)`` every 1
    while another atom needs 3.  ``pattern`` (sorted, the intervals starting
    in one window of ``period``) is checked for each divisor of its length."""
    n = len(pattern)
    for m in range(n, 1, -1):
        if n % m:
            continue
        k = n // m
        q = period / m
        if isinstance(q, float) or hasattr(q, "denominator"):
            from fractions import Fraction

            q = Fraction(period) / m
            q = q.numerator if q.denominator == 1 else q
        if all(
            pattern[i + k][0] == pattern[i][0] + q
            and pattern[i + k][1] == pattern[i][1] + q
            and pattern[i + k][2:] == pattern[i][2:]
            for i in range(n - k)
        ):
            return pattern[:k], q
    return pattern, period


def fold(core: list, pattern: list, period, limit=None) -> tuple:
    """Move repetitions that the core already holds into the pattern, so a
    repeating fact is printed from its first occurrence
    (``jobReport@[0,0] every 30``, not a list up to 150 and then a pattern).

    ``pattern`` holds the intervals starting in one window of ``period``
    and ``core`` the ones starting before it (``period > 0``).  One
    interval at a time: while the core's last interval is the pattern's last
    one shifted back by a period, it leaves the core and the pattern rotates
    to start with it (the set of intervals stays the same), unless it would
    start before ``limit`` (where another repetition, into the past, takes
    over).  So in the sorted sequence core + pattern, ``core[i]`` folds
    while it is the interval ``len(pattern)`` places later shifted back by
    a period; the ends compared as integers on their common grid (a
    Fraction subtracted per folded instance was a third of a 20,000-key
    cycle's time).
    """
    return fold_sorted(sorted(core), sorted(pattern), period, limit)


def fold_sorted(core: list, pattern: list, period, limit=None) -> tuple:
    """:func:`fold` of lists already sorted, as a Relation's atoms are:
    sorting them again compared every Fraction end once more (``==`` and
    ``<``), nearly half of the fold of a 20,000-key cycle."""
    m = len(pattern)
    if not m or not core:
        return core, pattern
    seq = core + pattern
    ends, step = _on_grid(seq, period)
    i = len(core) - 1
    while i >= 0:
        here, later = ends[i], ends[i + m]
        if later[0] - here[0] != step or later[1] - here[1] != step or seq[i][2:] != seq[i + m][2:]:
            break
        if limit is not None and seq[i][0] < limit:
            break
        i -= 1
    return core[: i + 1], seq[i + 1 : i + 1 + m]


def _on_grid(intervals: list, period) -> tuple:
    """The intervals (their ends first) and ``period`` with times as
    integers on their common grid: times are ints or Fractions, an
    infinite end stays infinite (so it never differs from another by a
    period); on a grid of whole units, as they are.  Each Fraction's
    numerator and denominator are read once, by one call (reading them
    is the conversion's main cost)."""
    ends = [x.as_integer_ratio() if isinstance(x, Fraction) else x for iv in intervals for x in iv[:2]]
    dens = {x[1] for x in ends if type(x) is tuple}
    if isinstance(period, Fraction):
        dens.add(period.denominator)
    scale = math.lcm(*dens) if dens else 1
    if scale == 1:
        return intervals, period
    units = [x[0] * (scale // x[1]) if type(x) is tuple else x if x in (INF, -INF) else x * scale for x in ends]
    step = period.numerator * (scale // period.denominator) if isinstance(period, Fraction) else period * scale
    return list(zip(units[::2], units[1::2])), step


__all__ = ["Repetition", "Repeating", "find_repetition", "covers", "unroll", "fold", "fold_sorted", "given_repetition", "make"]
