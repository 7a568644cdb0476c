"""Binary floats that become time points, as exact rationals.

Time is exact (language/timeline.py), but a Python ``float`` can arrive
where a time point is expected: the ends of a fact given as Python values,
a ``float64`` start or end column of a table, a head interval term
``p(X)@[S, F]`` whose ``F`` was computed with a float.  Such a float is the
number its user wrote, so it becomes the exact rational of its **shortest
round-trip decimal text** (Python's ``repr``): ``0.1`` is 1/10, ``1.2`` is
6/5, ``1e20`` the integer 10**20 -- what a DuckDB or Polars user casting
a double to a decimal expects, not the binary value (``0.1`` as a binary
fraction is 3602879701896397/36028797018963968).  ``float('inf')`` and
``-inf`` stay the infinities; NaN is no time point (callers report it with
its place).  The conversion is strictly increasing (the shortest text of a
float lies inside the float's rounding interval, and those are disjoint
and ordered), so comparing the floats compares the times.

One float at a time: whole floats below 2**53 are their integer, others
parse ``repr``.  A column at a time (:func:`float_time_pairs`): numpy for
whole numbers and halves, and for the rest Arrow's float-to-string cast,
which writes the same shortest digits as ``repr`` in another layout
(``1e+20``, ``1.5e-7``; connectors/float_text.py), taken apart by one
regular expression pass into digits and a power of ten, reduced by
language/exact_pairs.py's ``reduce``.  Values whose numerator or
denominator would not fit 64 bits are left to the scalar path.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

WHOLE = float(2**53)  # below it every whole float is its own shortest text


class NotATime(ValueError):
    """NaN where a time point is expected (callers add where it came from)."""


NAN_HINT = "NaN marks a missing value: drop or fill those rows; an unbounded end is float('inf') or -float('inf')"


def float_time(x: float):
    """The exact time point of the float ``x`` (see the module docstring)."""
    if x.is_integer() and -WHOLE < x < WHOLE:
        return int(x)  # (also -0.0 -> 0)
    if x != x:
        raise NotATime("NaN is not a time point")
    if x in (math.inf, -math.inf):
        return float(x)
    text = repr(float(x))
    mant, _, exp = text.partition("e")
    whole, _, frac = mant.partition(".")
    num = int(whole + frac)
    power = (int(exp) if exp else 0) - len(frac)
    if power >= 0:
        return num * 10**power
    f = Fraction(num, 10**-power)
    return f.numerator if f.denominator == 1 else f


def printed_float(t):
    """The float that prints as the exact fraction ``t`` (the float 0.1 for
    1/10: :func:`float_time` of it is ``t``), or None where no float does
    (1/3, 0.1000000000000000001) or ``t`` is not a fraction (whole numbers
    are one term with their floats already)."""
    if not isinstance(t, Fraction) or t.denominator == 1:
        return None
    try:
        f = float(t)
    except OverflowError:
        return None
    return f if math.isfinite(f) and float_time(f) == t else None


def exact_time(v):
    """A time point given from Python as an exact number: floats by
    :func:`float_time`, ``Decimal`` exactly; other values unchanged."""
    if isinstance(v, float):
        return float_time(v)
    if isinstance(v, Decimal):
        if not v.is_finite():
            if v.is_nan():
                raise NotATime("NaN is not a time point")
            return math.inf if v > 0 else -math.inf
        f = Fraction(v)
        return f.numerator if f.denominator == 1 else f
    return v


def exact_interval(iv):
    """:func:`exact_time` on the ends of a tuple interval (or a point)."""
    if isinstance(iv, tuple):
        if isinstance(iv[0], (float, Decimal)) or isinstance(iv[1], (float, Decimal)):
            return (exact_time(iv[0]), exact_time(iv[1])) + iv[2:]
        return iv
    return exact_time(iv)


_POW10 = [10**k for k in range(19)]
_SHORTEST = r"^(?P<i>-?[0-9]+)(?:\.(?P<f>[0-9]+))?(?:e\+?(?P<e>-?[0-9]+))?$"


def float_time_pairs(values):
    """``(num, den, ok)`` for a numpy array of finite floats: ``num / den``
    (int64, lowest terms, ``den > 0``) is each value's exact time where
    ``ok``; elsewhere (a numerator or denominator beyond 64 bits, e.g.
    ``1e300`` or ``1e-30``) use :func:`float_time`."""
    import numpy as np

    v = np.ascontiguousarray(values, dtype=np.float64)
    num = np.zeros(len(v), dtype=np.int64)
    den = np.ones(len(v), dtype=np.int64)
    small = np.abs(v) < 2.0**52
    twice = np.where(small, v, 0.0) * 2  # (exact)
    fast = small & (twice == np.floor(twice))
    if fast.all():  # integers and halves (times in days, seconds, half steps): numpy alone
        whole = v == np.floor(v)
        num = np.where(whole, v, twice).astype(np.int64)
        den = np.where(whole, 1, 2).astype(np.int64)
        return num, den, np.ones(len(v), dtype=bool)
    ok = fast.copy()
    at = np.flatnonzero(fast)
    if at.size:
        whole = v[at] == np.floor(v[at])
        num[at] = np.where(whole, v[at], twice[at]).astype(np.int64)
        den[at] = np.where(whole, 1, 2)
    rest = np.flatnonzero(~fast)
    n, d, good = _shortest_pairs(v[rest])
    num[rest], den[rest], ok[rest] = n, d, good
    return num, den, ok


def _shortest_pairs(v):
    """:func:`float_time_pairs` of floats that are not integers or halves,
    from their shortest text (Arrow's cast; the digits are ``repr``'s)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from chronolog.language.exact_pairs import reduce

    if not len(v):
        return np.zeros(0, np.int64), np.ones(0, np.int64), np.ones(0, bool)
    parts = pc.extract_regex(pc.cast(pa.array(v, pa.float64()), pa.string()), _SHORTEST)
    whole, frac, exp = (parts.field(k) for k in ("i", "f", "e"))
    digits = pc.cast(pc.binary_join_element_wise(whole, frac, ""), pa.int64()).to_numpy(zero_copy_only=False)
    exp = pc.cast(pc.if_else(pc.equal(exp, ""), "0", exp), pa.int64()).to_numpy(zero_copy_only=False)
    power = exp - pc.utf8_length(frac).to_numpy(zero_copy_only=False).astype(np.int64)
    num = np.zeros(len(v), dtype=np.int64)
    den = np.ones(len(v), dtype=np.int64)
    # 10**power * digits within int64 (digits have at most 17 figures), or 10**-power a denominator of 18 figures at most
    up = (power >= 0) & (power <= 18)
    limit = (2**63 - 1) // np.array(_POW10, dtype=np.int64)
    up &= np.abs(digits) <= limit[np.clip(power, 0, 18)]
    down = (power < 0) & (power >= -18)
    pows = np.array(_POW10, dtype=np.int64)
    num[up] = digits[up] * pows[power[up]]
    for p in np.unique(power[down]).tolist():  # one denominator at a time (a column has few): reduce's gcd table
        at = np.flatnonzero(down & (power == p))
        num[at], den[at] = reduce(digits[at], pows[-p])
    return num, den, up | down


def float_time_values(values) -> list:
    """The exact time of each float of a numpy array (finite or ±inf, no
    NaN) as the row engine's values: ints, Fractions, ±inf floats."""
    import numpy as np

    v = np.ascontiguousarray(values, dtype=np.float64)
    out = v.tolist()  # (±inf stay as they are)
    at = np.flatnonzero(np.isfinite(v))
    num, den, ok = float_time_pairs(v[at])
    for i, a, b, good in zip(at.tolist(), num.tolist(), den.tolist(), ok.tolist()):
        out[i] = (a if b == 1 else coprime_fraction(a, b)) if good else float_time(out[i])
    return out


_new = object.__new__


def coprime_fraction(num: int, den: int) -> Fraction:
    """``Fraction(num, den)`` of a pair already in lowest terms with
    ``den > 1``, without the gcd the constructor computes again (a fifth of
    its time: the constructor was most of reading a column of a million
    float times).  What Python 3.12's ``Fraction._from_coprime_ints`` does."""
    f = _new(Fraction)
    f._numerator, f._denominator = num, den
    return f
