"""Exact numbers as numpy numerator/denominator int64 pairs: the helpers the
fact reader (float_times.py) and the columnar executor
(engine/columns/exact_columns.py) share."""

from __future__ import annotations

PLAIN_INT = r"^-?[0-9]{1,18}$"  # a token or cell every reader reads as its int, in 64 bits


def reduce(num, den):
    """``num / den`` in lowest terms with a positive denominator."""
    import numpy as np

    num = np.asarray(num, dtype=np.int64)
    if np.ndim(den) == 0 and 0 < int(den) <= 1 << 16 and num.size > int(den):
        # one denominator L (a sum or an extreme over a common one): gcd(n, L) =
        # gcd(n mod L, L), a table of L entries (np.gcd per row cost 5 ms per 100,000)
        big = int(den)
        g = np.gcd(np.arange(big, dtype=np.int64), big)[num % big]
        return num // g, big // g
    den = np.broadcast_to(np.asarray(den, dtype=np.int64), num.shape)
    if not num.size:
        return num, den.copy()
    if np.ndim(den) == 1 and num.size > 4096 and den.min() > 0:  # few small denominators (a mean's L * count): tables too
        dens, at = small_unique(den)
        if len(dens) <= 256 and int(dens.sum()) <= 1 << 20:
            offsets = np.concatenate([[0], np.cumsum(dens)[:-1]])
            table = np.concatenate([np.gcd(np.arange(u, dtype=np.int64), u) for u in dens.tolist()])
            g = table[offsets[at] + num % den]
            return num // g, den // g
    if np.any(den == 0):
        raise ZeroDivisionError("a division by zero")
    g = np.gcd(num, den)
    g = np.where(den < 0, -g, g)
    return num // g, den // g


def over_one_denominator(num, den):
    """``(num', common)``: the values ``num / den`` (numpy int64 pairs) over
    their least common denominator, a Python int (numpy int64 numerators);
    None where a numerator would pass 62 bits (time values read over one
    denominator: language/fact_columns.TimeRatios)."""
    import numpy as np

    common = int(np.lcm.reduce(den)) if len(den) else 1
    factor = common // den
    if num.size and float(np.abs(num.astype(np.float64) * factor).max()) >= 2.0**62:
        return None
    return num * factor, common


def small_unique(a):
    """``np.unique(a, return_inverse=True)`` of non-negative integers, by
    ``bincount`` when they are small (denominators, term codes: a sort cost
    16 ms for 100,000) and not far more than ``a`` has values (a table that
    large would cost more than the sort)."""
    import numpy as np

    if a.size and 0 <= a.min() and a.max() < min(1 << 22, 8 * a.size + (1 << 16)):
        uniq = np.flatnonzero(np.bincount(a))
        at = np.zeros(int(uniq[-1]) + 1, dtype=np.int64)
        at[uniq] = np.arange(len(uniq))
        return uniq, at[a]
    uniq, inv = np.unique(a, return_inverse=True)
    return uniq, inv.reshape(-1)


def decimal_places(dens):
    """Per denominator of ``dens`` (numpy int64, positive), the digits after
    the point of a fraction over it written as a decimal, ``max(twos,
    fives)`` of its factors 2 and 5, or -1 where another prime divides it
    (``p/q``): timeline.decimal_places over an array."""
    import numpy as np

    rest, twos, fives = dens.copy(), np.zeros(len(dens), np.int64), np.zeros(len(dens), np.int64)
    for p, count in ((2, twos), (5, fives)):
        while True:
            hit = rest % p == 0
            if not hit.any():
                break
            rest[hit] //= p
            count += hit
    return np.where(rest == 1, np.maximum(twos, fives), -1)


def pair_values(num, den) -> list:
    """The values of pairs in lowest terms (``den > 0``): an int when whole,
    else a Fraction made without the constructor's gcd (float_times.coprime_fraction)."""
    from .float_times import coprime_fraction

    return [a if b == 1 else coprime_fraction(a, b) for a, b in zip(num.tolist(), den.tolist())]


def all_ints(values):
    """``values`` (an object array) as int64 when every one is a Python int
    in 62 bits, else None."""
    import numpy as np

    vals = values.tolist()
    if not all(type(v) is int for v in vals):
        return None
    try:
        arr = np.array(vals, dtype=np.int64)
    except OverflowError:
        return None
    return arr if not arr.size or np.abs(arr).max() < 1 << 62 else None
