"""Exact numbers as typed value columns: numerator/denominator int64 pairs.

A decimal price read exactly (``12.25``) and the sums and means of such
prices are exact rationals.  Coding each distinct one through the run's
Dictionary made a Python ``Fraction`` per value (hashing it cost more than
the aggregation itself: 1.8 s of CPU for the rolling-window recipe, 40x
pandas).  So exact results of kernels, and decimal input columns, are a
polars **Struct** column ``{n: Int64, d: Int64}``: each row's value is
``n / d`` in lowest terms with ``d > 0`` (so equal values are equal pairs;
a whole number has ``d == 1`` and is the int the rows hold).  The dtype is
the mark, as Float64 marks float values (value_columns.py); like them these
columns are coded only where equality needs a term code (joins, negation,
constants, ``==``, two rules of one predicate with different kinds).

Kernels work on integers over a common denominator (a decimal column's is
a power of ten: an int64 scaled by 10^k).  Every kernel checks its bounds
before it computes; a value or result that does not fit 64 bits raises
:class:`~.encoding.Fallback`, and the stratum runs on the row executor's
Fractions: never a float, never a wrapped integer.
"""

from __future__ import annotations

from fractions import Fraction

from chronolog.language import exact_pairs
from chronolog.language.exact_pairs import small_unique

from ..exprs import partition_starts
from .encoding import Fallback

BOUND = 2**62  # every numerator, denominator and intermediate product stays below
DEN_BOUND = 2**31  # a common denominator above this is "exploding": rows instead


def is_exact(series) -> bool:
    """Whether a frame column holds exact number pairs (not codes, not floats)."""
    import polars as pl

    return isinstance(series.dtype, pl.Struct)


def exact_series(name: str, num, den):
    """An exact value column of ``num / den`` (reduced here)."""
    from .base import column

    return column(name, reduce(num, den))


def struct_dtype():
    import polars as pl

    return pl.Struct({"n": pl.Int64, "d": pl.Int64})


def reduce(num, den):
    """``num / den`` in lowest terms with a positive denominator
    (language/exact_pairs.py); a zero denominator falls back to rows."""
    try:
        return exact_pairs.reduce(num, den)
    except ZeroDivisionError as e:
        raise Fallback(str(e)) from None


def parts(series):
    """``(num, den)`` numpy int64 arrays of an exact column."""
    f = series.struct.unnest()  # (``struct.field`` is a query: 600x slower)
    return f["n"].to_numpy(), f["d"].to_numpy()


def whole(num, den) -> bool:
    """Whether exact pairs are whole numbers only (every denominator 1):
    their numerators are then ints, as coded ints are."""
    return not len(den) or int(den.max()) == 1


def numerators(series):
    """The numerators of an exact column of whole numbers only (numpy
    int64), else None (a fraction among them, or not an exact column)."""
    if not is_exact(series):
        return None
    num, den = parts(series)
    return num if whole(num, den) else None


def common(num, den):
    """The values as ``(integers, L)``: ``num/den == integers/L``, L the
    least common denominator; Fallback when L or a scaled value leaves the
    bounds.  L is numpy's ``lcm.reduce`` (a sort for the distinct
    denominators cost 16 ms a column of 100,000): when the true L is within
    the bound no step overflows; when it is not, a wrapped result cannot pass
    the check that it is a positive common multiple within the bound."""
    import numpy as np

    if not num.size:
        return num, 1
    # (over the distinct denominators when they are small: 1 against 4 ms a column of 500,000)
    dens = small_unique(den)[0] if den.size > 4096 and 0 < den.min() and den.max() < 1 << 22 else den
    big = int(np.lcm.reduce(dens))
    if not 0 < big <= DEN_BOUND or np.any(big % den):
        raise Fallback("rationals with a large common denominator")
    factor = big // den
    if float(np.abs(num).max()) * float(factor.max()) >= BOUND:
        raise Fallback("a rational beyond 64 bits when scaled")
    return num * factor, big


def python_values(num, den) -> list:
    """The row engine's values: an int when whole, else a Fraction."""
    return [a if b == 1 else Fraction(a, b) for a, b in zip(num.tolist(), den.tolist())]


def texts(num, den):
    """``format_number`` of each ``num / den`` (numpy int64, lowest terms,
    ``den > 0``) as a polars String Series, by kernels: a whole number's
    digits, a finite decimal's digits around its point (a denominator of
    2s and 5s: ``max(twos, fives)`` places), else ``p/q``; where a scaled
    value would pass 64 bits, the Python text.  300,000 distinct prices
    printed one by one took ~1 s of Fraction arithmetic."""
    import numpy as np
    import polars as pl

    from chronolog.language.timeline import format_number

    num, den = np.asarray(num, dtype=np.int64), np.asarray(den, dtype=np.int64)
    dens, at = small_unique(den)  # (few denominators: each factored once)
    places = exact_pairs.decimal_places(dens)  # (-1: p/q)
    places[places > 18] = -2  # (10**places past 64 bits: Python)
    k = places[at]
    factor = np.ones(len(dens), dtype=np.int64)
    ok = places >= 0
    factor[ok] = 10 ** places[ok] // dens[ok]
    f = factor[at]
    decimal = k > 0
    mag = np.abs(num)
    python = (k == -2) | (num == np.iinfo(np.int64).min) | (decimal & (mag > np.iinfo(np.int64).max // np.maximum(f, 1)))
    decimal &= ~python
    scaled = np.where(decimal, mag * np.where(decimal, f, 1), 0)
    power = 10 ** np.where(decimal, k, 0)
    frame = pl.DataFrame({"n": num, "d": den, "i": scaled // power, "f": scaled % power, "k": np.maximum(k, 0),
                          "neg": num < 0, "kind": np.where(decimal, 1, np.where(k == -1, 2, 0))})
    whole = pl.col("n").cast(pl.String)
    out = frame.select(
        pl.when(pl.col("kind") == 1).then(pl.concat_str(
            pl.when(pl.col("neg")).then(pl.lit("-")).otherwise(pl.lit("")),
            pl.col("i").cast(pl.String), pl.lit("."), pl.col("f").cast(pl.String).str.zfill(pl.col("k"))))
        .when(pl.col("kind") == 2).then(pl.concat_str(whole, pl.lit("/"), pl.col("d").cast(pl.String)))
        .otherwise(whole).alias("t")
    ).to_series()
    if python.any():
        at_py = np.flatnonzero(python)
        fixed = [format_number(Fraction(a, b)) for a, b in zip(num[at_py].tolist(), den[at_py].tolist())]
        out = out.scatter(at_py, pl.Series(fixed, dtype=pl.String))
    return out


def of_decimals(arr):
    """``(num, den)`` in lowest terms of an Arrow ``decimal128`` array of
    precision 18 or less (the unscaled integers fit int64: the low words of
    the 16-byte values), by numpy; None for another type, a null or a
    larger precision (then the row reader's Decimals)."""
    import numpy as np
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    typ = arr.type
    if not pa.types.is_decimal128(typ) or typ.precision > 18 or arr.null_count:
        return None
    words = np.frombuffer(arr.buffers()[1], dtype="<i8")[2 * arr.offset : 2 * (arr.offset + len(arr))]
    num = words[0::2].astype(np.int64)
    if typ.scale < 0:
        return None
    return reduce(num, np.int64(10**typ.scale)) if typ.scale else (num, np.ones(len(num), dtype=np.int64))


def distinct(num, den):
    """The distinct pairs (in value order) and each row's position among them."""
    import numpy as np

    _, first, inv = np.unique(sort_keys(num, den), return_index=True, return_inverse=True)
    return num[first], den[first], inv.reshape(-1)


def value_ranks(num, den):
    """Each row's rank among the distinct values, in value order, when no
    common denominator fits 64 bits (means over windows of 1 to 20 rows have
    denominators up to 100 * lcm(1..20)): rows sorted by the float of the
    value, ties by the pair (equal pairs adjacent), then the order of each
    adjacent pair checked exactly (``a/b <= c/d`` as ``a*d <= c*b``); only
    when that check fails or does not fit are the distinct values sorted as
    Fractions."""
    import numpy as np

    order = np.lexsort((den, num, num / den))
    n, d = num[order], den[order]
    new = partition_starts([n, d], len(n))
    sorted_ok = False
    if _big(n) * _big(d) < BOUND:
        sorted_ok = bool(np.all(n[:-1] * d[1:] <= n[1:] * d[:-1]))
    if not sorted_ok:  # Fractions, for the distinct values only
        starts = np.flatnonzero(new)
        vals = python_values(n[starts], d[starts])
        by_value = sorted(range(len(vals)), key=vals.__getitem__)
        rank_of = np.empty(len(vals), dtype=np.int64)
        rank_of[by_value] = np.arange(len(vals))
        ranks_sorted = rank_of[np.cumsum(new) - 1]
    else:
        ranks_sorted = np.cumsum(new) - 1
    rank = np.empty(len(n), dtype=np.int64)
    rank[order] = ranks_sorted
    return rank


def order_key(num, den):
    """``(key, injective)``: an int64 per row, non-decreasing in the value:
    the integers over the common denominator (one per value); else the value
    as a float (numerator and denominator below 2**53: one correctly rounded
    quotient, monotone in the value) scaled by ``2 D**2`` and floored when
    ``D**2 * M < 2**48`` (:func:`_scaled_key`), else mapped to int64 in the
    same order -- one per value too when ``D**2 * M < 2**50`` (D the largest denominator,
    M the largest magnitude: two distinct values differ by at least
    ``1/D**2``, more than the float's rounding can close); else the exact
    ranks (:func:`value_ranks`).  What relations are sorted and coalesced
    by: ranking distinct Fractions cost 30 ms a column of means."""
    import numpy as np

    try:
        return common(num, den)[0], True
    except Fallback:
        pass
    top, dmax = _big(num), _big(den)
    if top >= 2**53 or dmax >= 2**53:
        return value_ranks(num, den), True
    q = num / den
    if dmax * dmax * float(np.abs(q).max(initial=0)) < 2**48:
        return _scaled_key(q, dmax), True
    return float_order_key(q), dmax * dmax * float(np.abs(q).max(initial=0)) < 2**50


def float_order_key(q):
    """Float64 values as int64 in the same order (their bits, the negative
    ones flipped), equal values equal (-0.0 taken as 0.0 first); no NaN."""
    import numpy as np

    bits = (q + 0.0).view(np.int64)
    return bits ^ ((bits >> 63) & 0x7FFFFFFFFFFFFFFF)


def _scaled_key(q, dmax):
    """``floor(q * 2 dmax**2)``: an int64 key one per value with a small
    span (so that a group and an aggregate combine into one argsort key,
    where the float bits of :func:`order_key` span 2**60 and sent the
    answers of a rolling mean to ``np.lexsort``: 35 against 17 ms per
    500,000).  Sound when ``dmax**2 * M < 2**48`` (M the largest magnitude):
    two distinct values differ by at least ``1/dmax**2``, so their scaled
    values by at least 2, while each computed product is within 0.2 of the
    exact one (two roundings of 2**-53 relative error on at most 2**49):
    the floors are strictly in order; equal pairs give equal floats."""
    import numpy as np

    return np.floor(q * (2.0 * dmax * dmax)).astype(np.int64)


def key_arrays(series) -> list:
    """Integer arrays standing for a column's values in equality and order:
    the codes or floats themselves; for an exact column its
    :func:`order_key`, then its numerator and denominator."""
    if is_exact(series):
        num, den = parts(series)
        return [order_key(num, den)[0], num, den]
    return [series.to_numpy()]


def steps(num, den):
    """For consecutive rows, whether the value grows (``greater``) and
    whether it stays (``equal``), by cross-multiplication, without sorting
    (the check that a relation is in order already)."""
    if _big(num) * _big(den) >= BOUND:
        k = sort_keys(num, den)
        return k[1:] > k[:-1], k[1:] == k[:-1]
    x, y = num[:-1] * den[1:], num[1:] * den[:-1]
    return x < y, (num[1:] == num[:-1]) & (den[1:] == den[:-1])


def codes(series, values):
    """Term codes of an exact column (each distinct value coded once)."""
    num, den = parts(series)
    return values.encode_rational(num, den)


class Rows:
    """An exact column's values, row by row, for the writers
    (connectors/text_out.py): ``num``, ``den`` (the writers format each
    distinct value once, or make Arrow's column by numpy)."""

    __slots__ = ("num", "den")

    def __init__(self, num, den):
        self.num, self.den = num, den

    def __len__(self) -> int:
        return len(self.num)


def sort_keys(num, den):
    """An int64 key per row in the order of the values (the integers over
    the common denominator, or the rank of each distinct value)."""
    try:
        return common(num, den)[0]
    except Fallback:
        return value_ranks(num, den)


# ---------------------------------------------------------------- arithmetic
def _big(a) -> float:
    import numpy as np

    return float(np.abs(a).max(initial=0))


def arith(op, a, b):
    """``a op b`` of exact pairs ``(num, den)`` (reduced), exactly; Fallback
    where a product could leave 64 bits or a divisor is zero."""
    import numpy as np

    (an, ad), (bn, bd) = a, b
    if op in ("+", "-"):
        if (_big(an) * _big(bd) + _big(bn) * _big(ad)) >= BOUND or _big(ad) * _big(bd) >= BOUND:
            raise Fallback("an exact sum beyond 64 bits")
        n = an * bd + bn * ad if op == "+" else an * bd - bn * ad
        d = ad * bd
    elif op == "*":
        if _big(an) * _big(bn) >= BOUND or _big(ad) * _big(bd) >= BOUND:
            raise Fallback("an exact product beyond 64 bits")
        n, d = an * bn, ad * bd
    elif op == "/":
        if np.any(bn == 0):
            raise Fallback("a division by zero")
        if _big(an) * _big(bd) >= BOUND or _big(ad) * _big(bn) >= BOUND:
            raise Fallback("an exact quotient beyond 64 bits")
        n, d = an * bd, ad * bn
    else:
        raise Fallback(f"the operator {op} on exact numbers")
    return reduce(n, d)


def compare(op, a, b):
    """The mask of ``a op b`` for exact pairs: ``an/ad < bn/bd`` is
    ``an*bd < bn*ad`` (denominators positive; bounds checked)."""
    (an, ad), (bn, bd) = a, b
    if _big(an) * _big(bd) >= BOUND or _big(bn) * _big(ad) >= BOUND:
        raise Fallback("a comparison of rationals beyond 64 bits")
    x, y = an * bd, bn * ad
    return {"==": x == y, "!=": x != y, "<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op]
