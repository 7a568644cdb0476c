"""Correctly rounded means of floats, vectorised: ``(hi * 2**32 + lo) *
2**k / n`` rounded once to a double, bit-identical to Python's ``int / int``
(what the rows' Fraction mean gives), in integer numpy arithmetic.

The exact sum ``T = hi * 2**32 + lo`` comes from aggregate.py's two limbs
(``|hi| < 2**52``, ``0 <= lo < 2**32``) and the count is ``1 <= n < 2**31``.
Three cases, each exact by construction (no error bound, no near-tie to
decide):

* ``|T| <= 2**53``: ``T`` is a double; ``T / n`` is one IEEE division of
  exact operands, which is correctly rounded.
* ``|Q| >= 2**54`` with ``Q = floor(T / n)`` (long division by limbs:
  ``hi = q1 n + r1``, ``r1 * 2**32 + lo = q2 n + r2``, both below 2**63):
  ``Q`` is rounded *to odd* at integer precision (``Q | 1`` when the
  remainder is not zero).  The doubles near ``T / n`` and their midpoints
  are even integers there (their spacing is at least 4), and no even integer
  lies strictly between ``Q`` and ``Q + 1``: ``T / n`` and the odd one of
  the two round the same.  ``float(q1) * 2**32 + float(q2 | sticky)`` is
  one IEEE addition of two exact doubles: correctly rounded.
* otherwise (``2**22 < |T / n| < 2**54``): the division goes on by ``j <=
  32`` more bits, ``floor(T * 2**j / n) = Q * 2**j + floor(r2 * 2**j / n)``,
  ``j`` chosen per segment so the quotient stays below 2**62 and
  ``|T * 2**j / n| >= 2**54``; rounded to odd as above, it is one int64 to
  double conversion (correctly rounded), scaled by ``2**-j``.

Scaling by ``2**k`` (``np.ldexp``) is exact unless the result is subnormal
(or zero from a non-zero mean): those segments, rare (a mean below 2**-1022),
take Python's exact ``int / int``.  A mean never overflows (it lies between
its finite values).  Hand-written: numpy has no wide-integer or
correctly-rounded division of a two-limb integer, and a Python int per
segment cost ~1 us (a second per million segments).
"""

from __future__ import annotations

import numpy as np

TINY = 2.0**-1022  # the least normal double: below it ldexp rounds again


def float_means(hi, lo, k: int, n):
    """Per segment, ``(hi * 2**32 + lo) * 2**k / n`` correctly rounded (int64
    arrays ``hi``, ``lo``, ``n``; see the module's docstring)."""
    out, exact = _means_and_undecided(hi, lo, k, n)
    for i in np.flatnonzero(exact).tolist():
        out[i] = exact_mean(int(hi[i]), int(lo[i]), k, int(n[i]))
    return out


def _means_and_undecided(hi, lo, k, n):
    """The vectorised means, and the mask of the segments they leave to
    :func:`exact_mean` (subnormal results)."""
    hi, lo, n = (np.asarray(a, dtype=np.int64) for a in (hi, lo, n))
    small = (hi >= -(1 << 21)) & (hi < 1 << 21)  # T in [-2**53, 2**53): an exact double
    as_double = hi.astype(np.float64)
    as_double *= 2.0**32
    as_double += lo  # (exact where small)
    mean = as_double / n  # case 1
    q1, r1 = np.divmod(hi, n)
    r1 <<= 32
    r1 |= lo  # < n * 2**32 <= 2**63
    q2, r2 = np.divmod(r1, n)
    huge = (q1 >= 1 << 22) | (q1 < -(1 << 22))  # |floor(T / n)| >= 2**54
    odd = q2 | (r2 != 0)
    two = q1.astype(np.float64)
    two *= 2.0**32
    two += odd  # case 2: one correctly rounded addition
    middle = ~(small | huge)
    shift = np.zeros(len(hi), dtype=np.int64)
    if middle.any():
        q = q1[middle] << 32
        q += q2[middle]  # floor(T / n), |q| < 2**55
        bits = np.frexp(np.abs(q).astype(np.float64))[1]  # its bit length (or one more)
        j = np.minimum(32, 62 - bits)
        quot, rem = np.divmod(r2[middle] << j, n[middle])
        q <<= j
        q += quot  # floor(T * 2**j / n), |.| < 2**62
        q |= rem != 0
        two[middle] = q
        shift[middle] = j
    np.copyto(mean, two, where=~small)
    shift -= k
    np.negative(shift, out=shift)  # k - j
    nonzero = mean != 0
    out = np.ldexp(mean, shift)
    undecided = nonzero & (np.abs(out) < TINY)
    return out, undecided


def exact_mean(hi: int, lo: int, k: int, n: int) -> float:
    """The mean by Python's ``int / int``, correctly rounded (subnormals
    included)."""
    t = (hi << 32) + lo
    return (t << k) / n if k >= 0 else t / (n << -k)
