"""Correctly rounded means of floats, vectorised: ``(hi * 2**32 + lo) *
2**k / n`` rounded once to a double, bit-identical to Python's ``int / int``
(what the rows' Fraction mean gives), in integer numpy arithmetic.

The exact sum ``T = hi * 2**32 + lo`` comes from aggregate.py's two limbs
(``|hi| < 2**52``, ``0 <= lo < 2**32``) and the count is ``1 <= n < 2**31``
(its limbs hold fewer than 2**30 rows a segment).
Three cases, each exact by construction (no error bound, no near-tie to
decide):

* ``-2**53 <= T < 2**53``: ``T`` is a double; ``T / n`` is one IEEE division of
  exact operands, which is correctly rounded.
* ``|Q| >= 2**54`` with ``Q = floor(T / n)`` (long division by limbs:
  ``hi = q1 n + r1``, ``r1 * 2**32 + lo = q2 n + r2``, both below 2**63):
  ``Q`` is rounded *to odd* at integer precision (``Q | 1`` when the
  remainder is not zero).  The doubles near ``T / n`` and their midpoints
  are even integers there (their spacing is at least 4), and no even integer
  lies strictly between ``Q`` and ``Q + 1``: ``T / n`` and the odd one of
  the two round the same.  ``float(q1) * 2**32 + float(q2 | sticky)`` is
  one IEEE addition of two exact doubles: correctly rounded.
* otherwise (``|T| >= 2**53``, ``|Q| <= 2**54``, so ``|T / n| > 2**22``):
  the division goes on by ``j`` bits, ``floor(T * 2**j / n) = Q * 2**j +
  floor(r2 * 2**j / n)`` (``r2 * 2**j < 2**63``), rounded to odd as above,
  then one int64 to double conversion (correctly rounded), scaled by
  ``2**-j``.  ``j = min(32, 61 - b)``, ``2**(b-1) <= |fl(fl(T) / n)| <
  2**b`` (within two roundings of ``T / n``): then ``|Q| < 2**(b+1)``, the
  quotient stays below 2**62 + 2**32, and ``|T * 2**j / n|`` is at least
  2**54 (``2**53 * 2**32 / 2**31`` where ``j = 32``, about 2**60 else).

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
BLOCK = 1 << 15


def float_means(hi, lo, k: int, n):
    """Per segment, ``(hi * 2**32 + lo) * 2**k / n`` correctly rounded (int64
    arrays ``hi``, ``lo``, ``n``; ``k`` an int or an array; see the module's docstring).  In blocks
    of :data:`BLOCK` segments: the two dozen temporaries of a block stay in
    the cache (half the time of whole arrays at 200,000 segments and more)."""
    out = np.empty(len(hi))
    k = np.broadcast_to(np.asarray(k, dtype=np.int64), len(hi))  # (one scale, or one a segment: the wide sums')
    for at in range(0, len(hi), BLOCK):
        part = slice(at, at + BLOCK)
        out[part], undecided = _means_and_undecided(hi[part], lo[part], k[part], n[part])
        for i in (np.flatnonzero(undecided) + at).tolist():
            out[i] = exact_mean(int(hi[i]), int(lo[i]), int(k[i]), int(n[i]))
    return out


def _means_and_undecided(hi, lo, k, n):
    """The vectorised means, and the mask of the segments they leave to
    :func:`exact_mean` (subnormal results).  The third case runs on every
    segment (it is the usual one; masks and gathers cost more than its
    lanes), the other two replace their lanes."""
    q1, r = np.divmod(hi, n)
    r <<= 32
    r |= lo  # < n * 2**32 <= 2**63
    q2, r = np.divmod(r, n)  # T = n * (q1 * 2**32 + q2) + r
    near = hi.astype(np.float64)
    near *= 2.0**32
    near += lo
    near /= n  # T / n within two roundings (case 1: correctly rounded)
    bits = near.view(np.int64) >> 52
    bits &= 0x7FF
    bits -= 1022  # 2**(bits - 1) <= |near| < 2**bits
    j = np.clip(61 - bits, 0, 32, out=bits)  # case 3: floor(T / n) * 2**j < 2**62
    quot, rest = np.divmod(r << j, n)
    q = q1 << 32
    q += q2  # floor(T / n) (wrapped where case 2)
    q <<= j
    q += quot  # floor(T * 2**j / n)
    q |= rest != 0  # rounded to odd
    mean = q.astype(np.float64)
    small = (hi >= -(1 << 21)) & (hi < 1 << 21)  # case 1: T in [-2**53, 2**53), a double
    if small.any():
        mean[small] = near[small]
        j[small] = 0
    huge = (q1 >= 1 << 22) | (q1 < -(1 << 22))  # case 2: |floor(T / n)| >= 2**54
    if huge.any():
        mean[huge] = _two_limbs(q1[huge], q2[huge], r[huge])
        j[huge] = 0
    np.subtract(k, j, out=j)
    out = np.ldexp(mean, j)
    undecided = np.abs(out) < TINY
    undecided &= mean != 0
    return out, undecided


def _two_limbs(q1, q2, rem):
    """Case 2: ``q1 * 2**32 + q2`` rounded to odd (its low bit set where
    the division's remainder ``rem`` is not zero), as one correctly rounded
    addition of two exact doubles."""
    odd = q2 | (rem != 0)
    whole = q1.astype(np.float64)
    whole *= 2.0**32
    whole += odd
    return whole


def exact_mean(hi: int, lo: int, k: int, n: int) -> float:
    """The mean by Python's ``int / int``, correctly rounded (subnormals
    included)."""
    t = (hi << 32) + lo
    return (t << k) / n if k >= 0 else t / (n << -k)
