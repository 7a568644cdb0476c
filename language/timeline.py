"""Exact time: numbers, intervals and the interval arithmetic of DatalogMTL.

Time points are Python ``int`` or ``fractions.Fraction`` (normalised so that
whole numbers are always ``int``: integer arithmetic is the fast path).  The
only floats anywhere in time arithmetic are ``NEG_INF`` and ``POS_INF``, used
as exact sentinels for the unbounded ends; every operation that could combine
two infinities of opposite sign handles that case explicitly.

An interval is a plain tuple ``(lo, hi, lo_closed, hi_closed)``.  Tuples, not
objects, because the engine creates millions of them in its hot loops.  An
infinite end is always open.  ``None`` stands for the empty interval.

An *operator window* (the ``[a,b]`` of ``<->[a,b]``) uses the same tuple.  The
engine works with two generic operators (the Temporal Vadalog paper):

* a **shift** ``D<d1,d2>`` (every diamond): the result holds at ``t`` when the
  operand holds at some ``t - d`` with ``d`` in the window, so
  ``<a,b>`` becomes ``<a+d1, b+d2>``; ``<->[r1,r2]`` is ``D[r1,r2]`` and
  ``<+>[r1,r2]`` is ``D[-r2,-r1]``;
* a **box** ``B<w1,w2>``: the result holds at ``t`` when the operand holds at
  every ``t + w`` with ``w`` in the window; ``[-][r1,r2]`` is ``B[-r2,-r1]``
  and ``[+][r1,r2]`` is ``B[r1,r2]``.
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from collections.abc import Iterable
from operator import itemgetter

from .patterns import LazyPattern

Number = int | Fraction
NEG_INF = -math.inf
POS_INF = math.inf

Interval = tuple  # (lo, hi, lo_closed, hi_closed)

LO, HI, LC, HC = 0, 1, 2, 3

EVERYWHERE: Interval = (NEG_INF, POS_INF, False, False)


# --------------------------------------------------------------------------
# numbers


def normalize(x):
    """Return ``x`` as an int when it is whole, otherwise unchanged."""
    if type(x) is Fraction and x.denominator == 1:
        return x.numerator
    return x


_NUMBER_RE = LazyPattern(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_FRACTION_RE = LazyPattern(r"^[+-]?\d+\s*/\s*\d+$")


MAX_DIGITS = 1000  # exact numbers stay printable (Python refuses to print ints beyond 4300 digits)


def parse_number(text: str) -> Number:
    """Parse an exact number: ``3``, ``-1.25``, ``1e3``, ``2/3``, ``inf``.

    Decimals become exact fractions (``0.1`` is 1/10, never the binary float).
    Raises ``ValueError`` for anything else.
    """
    t = text.strip()
    low = t.lower().lstrip("+")
    if low in ("inf", "infty", "infinity"):
        return POS_INF
    if low in ("-inf", "-infty", "-infinity"):
        return NEG_INF
    if len(t) > MAX_DIGITS:
        raise ValueError(f"the number {t[:20]}… has more than {MAX_DIGITS} digits")
    if _NUMBER_RE.match(t):
        if "." not in t and "e" not in t and "E" not in t:
            return int(t)
        mantissa, _, exp = t.lower().partition("e")
        if exp and abs(int(exp)) > MAX_DIGITS:
            raise ValueError(f"the exponent of {text!r} is beyond ±{MAX_DIGITS}: the number is too large or too small to be exact")
        return normalize(Fraction(t))
    if _FRACTION_RE.match(t):
        num, den = t.split("/")
        if int(den) == 0:
            raise ValueError(f"division by zero in {text!r}")
        return normalize(Fraction(int(num), int(den)))
    raise ValueError(f"not a number: {text!r}")


def format_number(x) -> str:
    """Canonical text of a time point or numeric constant.

    Integers as integers; other rationals as a finite decimal where they have
    one, otherwise ``p/q``; ``-inf``/``+inf``.
    """
    if type(x) is int:
        return _int_text(x)
    if type(x) is bool:
        return "#T" if x else "#F"
    if type(x) is float:
        if x == POS_INF:
            return "+inf"
        if x == NEG_INF:
            return "-inf"
        # -0.0 == 0.0: one term, whichever derivation reached it first
        return repr(x) if x else "0.0"
    if isinstance(x, Fraction):
        if x.denominator == 1:
            return _int_text(x.numerator)
        digits = decimal_places(x)
        if digits is None:
            return f"{_int_text(x.numerator)}/{_int_text(x.denominator)}"
        scaled = abs(x) * 10**digits
        assert scaled.denominator == 1
        s = _int_text(scaled.numerator).rjust(digits + 1, "0")
        sign = "-" if x < 0 else ""
        return f"{sign}{s[:-digits]}.{s[-digits:]}"
    return str(x)


def decimal_places(x: Fraction):
    """The digits after the point of ``x`` written as a decimal, or None
    when its expansion is infinite (a denominator with a prime other than 2
    and 5)."""
    den = x.denominator
    twos = fives = 0
    while den % 2 == 0:
        den //= 2
        twos += 1
    while den % 5 == 0:
        den //= 5
        fives += 1
    return max(twos, fives) if den == 1 else None


def _int_text(n: int) -> str:
    """``str(n)`` also beyond Python's limit on converting long integers to
    text (4300 digits, a guard against slow conversions of untrusted text):
    arithmetic on exact numbers (``round(X, 10000)``, ``X * X * X``) may
    produce such a value, and printing it must not fail."""
    try:
        return str(n)
    except ValueError:
        if n < 0:
            return "-" + _int_text(-n)
        high, low = divmod(n, 10**_CHUNK)
        return _int_text(high) + str(low).rjust(_CHUNK, "0")


_CHUNK = 4000
_HASH_MODULUS = sys.hash_info.modulus
_INVERSES: dict = {}  # denominator -> its inverse modulo _HASH_MODULUS (Point.__hash__)


class Point(Fraction):
    """A time point between whole numbers: a Fraction (equal to, hashed and
    ordered as one) whose comparisons with ints, Fractions and Points and
    whose hash skip what Python's Fraction pays on each call (the numeric
    tower's ABC checks, a modular inverse per hash): 0.1-0.2 us against
    0.3-0.7 us.  The row executor compares and hashes interval ends millions
    of times; with times between units (readings to the second on a
    timeline of minutes, decimal times) that was most of its run.
    :func:`make` and the stream's edge make them; their sums and
    differences with ints, Fractions and Points are Points again (or ints
    when whole), as shifting a time by a window does; other arithmetic
    gives Fractions.  Never whole (:func:`as_point`)."""

    __slots__ = ("_hash",)

    def __repr__(self) -> str:
        return f"Fraction({self._numerator}, {self._denominator})"

    def __hash__(self) -> int:
        h = self._hash  # (None until asked; made by this module's functions)
        if h is None:
            # Fraction's hash, its modular inverse kept per denominator
            # (Fraction computes one per call: 0.8 against 0.2 us)
            d = self._denominator
            inv = _INVERSES.get(d)
            if inv is None:
                if d % _HASH_MODULUS == 0:  # (no inverse: Fraction hashes it as infinity)
                    self._hash = h = Fraction.__hash__(self)
                    return h
                if len(_INVERSES) > 4096:
                    _INVERSES.clear()
                inv = _INVERSES[d] = pow(d, -1, _HASH_MODULUS)
            n = self._numerator
            h = hash(hash(-n if n < 0 else n) * inv)
            if n < 0:
                h = -h
            if h == -1:
                h = -2
            self._hash = h
        return h

    def __new__(cls, *args, **kwargs):  # (copies and unpickling; this module's functions skip it)
        p = Fraction.__new__(cls, *args, **kwargs)
        p._hash = None
        return p

    def __eq__(self, other):
        t = type(other)
        if t is int:
            return self._denominator == 1 and self._numerator == other
        if t is Point or t is Fraction:
            return self._numerator == other._numerator and self._denominator == other._denominator
        if t is float and (other == POS_INF or other == NEG_INF):  # (an unbounded end)
            return False
        return Fraction.__eq__(self, other)

    def __lt__(self, other):
        t = type(other)
        if t is int:
            return self._numerator < other * self._denominator
        if t is Point or t is Fraction:
            return self._numerator * other._denominator < other._numerator * self._denominator
        if t is float and (other == POS_INF or other == NEG_INF):
            return other > 0
        return Fraction.__lt__(self, other)

    def __le__(self, other):
        t = type(other)
        if t is int:
            return self._numerator <= other * self._denominator
        if t is Point or t is Fraction:
            return self._numerator * other._denominator <= other._numerator * self._denominator
        if t is float and (other == POS_INF or other == NEG_INF):
            return other > 0
        return Fraction.__le__(self, other)

    def __gt__(self, other):
        t = type(other)
        if t is int:
            return self._numerator > other * self._denominator
        if t is Point or t is Fraction:
            return self._numerator * other._denominator > other._numerator * self._denominator
        if t is float and (other == POS_INF or other == NEG_INF):
            return other < 0
        return Fraction.__gt__(self, other)

    def __ge__(self, other):
        t = type(other)
        if t is int:
            return self._numerator >= other * self._denominator
        if t is Point or t is Fraction:
            return self._numerator * other._denominator >= other._numerator * self._denominator
        if t is float and (other == POS_INF or other == NEG_INF):
            return other < 0
        return Fraction.__ge__(self, other)


def as_point(x: Fraction):
    """The Fraction ``x`` as an int when whole, else as a :class:`Point`."""
    if x._denominator == 1:
        return x._numerator
    p = object.__new__(Point)
    p._numerator, p._denominator, p._hash = x._numerator, x._denominator, None
    return p


def _ratio(n: int, d: int):
    """n/d (``d > 0``) in lowest terms: an int when whole, else a Point."""
    g = math.gcd(n, d)
    if g != 1:
        n //= g
        d //= g
    if d == 1:
        return n
    p = object.__new__(Point)
    p._numerator, p._denominator, p._hash = n, d, None
    return p


def _point_add(a, b):
    t = type(b)
    if t is int:  # (n + b*d)/d is in lowest terms already
        p = object.__new__(Point)
        p._numerator, p._denominator, p._hash = a._numerator + b * a._denominator, a._denominator, None
        return p
    if t is Point or t is Fraction:
        return _ratio(a._numerator * b._denominator + b._numerator * a._denominator, a._denominator * b._denominator)
    return Fraction.__add__(a, b)


def _point_sub(a, b):
    t = type(b)
    if t is int:
        p = object.__new__(Point)
        p._numerator, p._denominator, p._hash = a._numerator - b * a._denominator, a._denominator, None
        return p
    if t is Point or t is Fraction:
        return _ratio(a._numerator * b._denominator - b._numerator * a._denominator, a._denominator * b._denominator)
    return Fraction.__sub__(a, b)


def _point_rsub(a, b):  # b - a
    t = type(b)
    if t is int:
        p = object.__new__(Point)
        p._numerator, p._denominator, p._hash = b * a._denominator - a._numerator, a._denominator, None
        return p
    if t is Fraction:
        return _ratio(b._numerator * a._denominator - a._numerator * b._denominator, a._denominator * b._denominator)
    return Fraction.__rsub__(a, b)


def _point_neg(a):
    p = object.__new__(Point)
    p._numerator, p._denominator, p._hash = -a._numerator, a._denominator, None
    return p


def with_points(rows: list) -> list:
    """``(terms, interval)`` rows with their Fraction ends as Points (the
    list itself when it has none: whole times cost two type tests a row)."""
    out = None
    for k, row in enumerate(rows):
        lo, hi, lc, hc = row[1]
        if type(lo) is Fraction or type(hi) is Fraction:
            if out is None:
                out = list(rows[:k])
            out.append((row[0], (as_point(lo) if type(lo) is Fraction else lo, as_point(hi) if type(hi) is Fraction else hi, lc, hc)))
        elif out is not None:
            out.append(row)
    return rows if out is None else out


Point.__add__ = Point.__radd__ = _point_add
Point.__sub__ = _point_sub
Point.__rsub__ = _point_rsub
Point.__neg__ = _point_neg


# --------------------------------------------------------------------------
# intervals


def make(lo, hi, lc=True, hc=True) -> Interval | None:
    """Build an interval, or ``None`` if it is empty. Infinite ends are open;
    whole Fractions become ints (the fast path, and one value per number),
    others Points (their comparisons the fast path)."""
    if type(lo) is Fraction:
        lo = as_point(lo)
    if type(hi) is Fraction:
        hi = as_point(hi)
    if lo == NEG_INF:
        lc = False
    elif lo == POS_INF:
        return None
    if hi == POS_INF:
        hc = False
    elif hi == NEG_INF:
        return None
    if lo < hi or (lo == hi and lc and hc):
        return (lo, hi, lc, hc)
    return None


def why_empty(lo, hi, lc=True, hc=True) -> str:
    """Why :func:`make` found the interval empty, as an error's hint: the
    three ways differ ([+inf,+inf] has its start equal to its end, and "the
    start must not be after the end" sent the reader looking elsewhere)."""
    if lo == POS_INF:
        return "+inf is no time point (an infinite end is always open): an interval from +inf holds none; write [t, +inf) for one that never ends"
    if hi == NEG_INF:
        return "-inf is no time point (an infinite end is always open): an interval up to -inf holds none; write (-inf, t] for one that never began"
    if lo == hi:
        return "a single time point needs both ends closed: [t,t] (or @t)"
    return "an interval goes from its start to its end: the start must not be after the end"


def point(t) -> Interval:
    return (t, t, True, True)


def contains_point(iv: Interval, t) -> bool:
    lo, hi, lc, hc = iv
    return (lo < t or (lc and lo == t)) and (t < hi or (hc and t == hi))


def contains(outer: Interval, inner: Interval) -> bool:
    """Whether ``inner`` is a subset of ``outer``."""
    olo, ohi, olc, ohc = outer
    ilo, ihi, ilc, ihc = inner
    if ilo < olo or (ilo == olo and ilc and not olc):
        return False
    if ihi > ohi or (ihi == ohi and ihc and not ohc):
        return False
    return True


def intersect(a: Interval, b: Interval) -> Interval | None:
    alo, ahi, alc, ahc = a
    blo, bhi, blc, bhc = b
    if alo > blo:
        lo, lc = alo, alc
    elif alo < blo:
        lo, lc = blo, blc
    else:
        lo, lc = alo, alc and blc
    if ahi < bhi:
        hi, hc = ahi, ahc
    elif ahi > bhi:
        hi, hc = bhi, bhc
    else:
        hi, hc = ahi, ahc and bhc
    if lo < hi or (lo == hi and lc and hc):
        return (lo, hi, lc, hc)
    return None


def start_key(iv: Interval):
    """Sort key: by start, a closed start before an open one at the same point."""
    return (iv[0], not iv[2])


_START, _CLOSED_START = itemgetter(0), itemgetter(2)


def coalesce(intervals: Iterable[Interval]) -> list:
    """Merge overlapping and adjacent intervals into maximal ones, sorted.

    ``[0,1)`` and ``[1,2]`` merge (the point 1 is covered); ``[0,1)`` and
    ``(1,2]`` do not (the point 1 is missing).
    """
    # start_key's order by two stable sorts on C-level keys (closed starts
    # first, then by start): no Python call per interval
    ivs = sorted(intervals, key=_CLOSED_START, reverse=True)
    ivs.sort(key=_START)
    out: list = []
    for iv in ivs:
        if out:
            lo, hi, lc, hc = out[-1]
            nlo, nhi, nlc, nhc = iv
            if nlo < hi or (nlo == hi and (hc or nlc)):
                if nhi > hi:
                    out[-1] = (lo, nhi, lc, nhc)
                elif nhi == hi and nhc and not hc:
                    out[-1] = (lo, hi, lc, True)
                continue
        out.append(iv)
    return out



def instances_meet(iv, period) -> bool:
    """Whether a fact on ``iv`` repeating every ``period`` (``p(a)@[0,8)
    every 7``) meets or overlaps its next instance, and so holds for good
    from its first on (engine/periodic.py, ``given_repetition``): else it
    leaves a gap in every period and repeats forever."""
    return len(coalesce([iv, (iv[0] + period, iv[1] + period, iv[2], iv[3])])) == 1


def subtract(iv: Interval, holes: Iterable[Interval]) -> list:
    """``iv`` minus the union of ``holes`` (which need not be sorted), as
    sorted, disjoint pieces.

    One sweep over the holes coalesced: linear in them, where punching the
    holes one at a time into every piece so far was quadratic (a machine's
    week minus its 500 readings: 3 s of 4 in a sensor program)."""
    lo, hi, lc, hc = iv
    out = []
    for hlo, hhi, hlc, hhc in coalesce(holes):
        # the piece from the current start up to the hole (it ends where
        # the hole starts, closed there if the hole's start is open)
        if hlo > hi or (hlo == hi and not (hlc and hc)):
            piece = make(lo, hi, lc, hc)
            if piece is not None:
                out.append(piece)
            return out
        piece = make(lo, hlo, lc, not hlc)
        if piece is not None:
            out.append(piece)
        # the rest starts after the hole, unless it started later already
        if hhi > lo or (hhi == lo and hhc and lc):
            lo, lc = hhi, not hhc
    piece = make(lo, hi, lc, hc)
    if piece is not None:
        out.append(piece)
    return out


def closure(iv: Interval) -> Interval:
    """The smallest closed interval containing ``iv`` (infinite ends stay open)."""
    lo, hi, _, _ = iv
    return (lo, hi, lo != NEG_INF, hi != POS_INF)


# --------------------------------------------------------------------------
# operator windows and the generic operators


def diamond_window(past: bool, window: Interval) -> Interval:
    """The shift ``D<d1,d2>`` of ``<->window`` (past) or ``<+>window``."""
    r1, r2, c1, c2 = window
    if past:
        return (r1, r2, c1, c2)
    return (-r2, -r1, c2, c1)


def box_window(past: bool, window: Interval) -> Interval:
    """The window ``B<w1,w2>`` of ``[-]window`` (past) or ``[+]window``."""
    r1, r2, c1, c2 = window
    if past:
        return (-r2, -r1, c2, c1)
    return (r1, r2, c1, c2)


def plus(x, y):
    """``x + y`` where one side may be infinite and the other an integer too
    large for a float (Python converts the integer and overflows)."""
    try:
        return x + y
    except OverflowError:
        return x if x in (POS_INF, NEG_INF) else y


def add_windows(a: Interval, b: Interval) -> Interval:
    """Minkowski sum of two windows: composes two shifts, or two boxes."""
    return (plus(a[0], b[0]), plus(a[1], b[1]), a[2] and b[2], a[3] and b[3])


def shift(iv: Interval, d: Interval) -> Interval | None:
    """Apply the shift ``D<d1,d2>``: ``<a,b>`` becomes ``<a+d1, b+d2>``.

    An end is closed only when both contributing ends are closed.
    """
    a, b, ac, bc = iv
    d1, d2, dc1, dc2 = d
    try:  # the common case; plus() only when an integer meets an infinity and overflows
        lo = a + d1 if not (a == POS_INF and d1 == NEG_INF) else None
        hi = b + d2 if not (b == NEG_INF and d2 == POS_INF) else None
    except OverflowError:
        lo, hi = plus(a, d1), plus(b, d2)
    if lo is None or hi is None:  # pragma: no cover - windows are finite-start
        return None
    return make(lo, hi, ac and dc1, bc and dc2)


def box(iv: Interval, w: Interval) -> Interval | None:
    """Apply the box ``B<w1,w2>`` to one *maximal* interval of the operand.

    ``t`` qualifies when ``<t+w1, t+w2>`` lies inside ``<a,b>``, so the result
    is ``<a-w1, b-w2>``; its start is open only when ``a`` is open and ``w1``
    closed (the window would touch the missing point), and likewise the end.
    """
    a, b, ac, bc = iv
    w1, w2, wc1, wc2 = w
    if w1 == NEG_INF:
        if a != NEG_INF:
            return None
        lo, lc = NEG_INF, False
    else:
        lo, lc = plus(a, -w1), not ((not ac) and wc1)
    if w2 == POS_INF:
        if b != POS_INF:
            return None
        hi, hc = POS_INF, False
    else:
        hi, hc = plus(b, -w2), not ((not bc) and wc2)
    return make(lo, hi, lc, hc)


def format_interval(iv: Interval) -> str:
    lo, hi, lc, hc = iv
    return f"{'[' if lc else '('}{format_number(lo)},{format_number(hi)}{']' if hc else ')'}"


def without_zero(w: Interval) -> Interval | None:
    """The window minus the point 0 (operator windows are non-negative, so 0
    can only be their start)."""
    lo, hi, lc, hc = w
    if lo == 0 and lc:
        return make(0, hi, False, hc)
    return w
