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

from .encoding import Fallback

BOUND = 2**62  # every numerator, denominator and intermediate product stays below
DEN_BOUND = 2**31  # a common denominator above this is "exploding": rows instead


def is_exact(series) -> bool:
    """Whether a frame column holds exact number pairs (not codes, not floats)."""
    import polars as pl

    return isinstance(series.dtype, pl.Struct)


def exact_series(name: str, num, den):
    """An exact value column of ``num / den`` (reduced here)."""
    import polars as pl

    num, den = reduce(num, den)
    return pl.DataFrame({"n": pl.Series(num, dtype=pl.Int64), "d": pl.Series(den, dtype=pl.Int64)}).to_struct(name)


def struct_dtype():
    import polars as pl

    return pl.Struct({"n": pl.Int64, "d": pl.Int64})


def parts(series):
    """``(num, den)`` numpy int64 arrays of an exact column."""
    return series.struct.field("n").to_numpy(), series.struct.field("d").to_numpy()


def reduce(num, den):
    """``num / den`` in lowest terms with a positive denominator."""
    import numpy as np

    num = np.asarray(num, dtype=np.int64)
    den = np.broadcast_to(np.asarray(den, dtype=np.int64), num.shape)
    if not num.size:
        return num, den.copy()
    if np.any(den == 0):
        raise Fallback("a division by zero")
    g = np.gcd(num, den)
    g = np.where(den < 0, -g, g)
    return num // g, den // g


def common(num, den):
    """The values as ``(integers, L)``: ``num/den == integers/L``, L the
    least common denominator; Fallback when L or a scaled value leaves the
    bounds."""
    import math

    import numpy as np

    if not num.size:
        return num, 1
    big = 1
    for d in np.unique(den).tolist():
        big = math.lcm(big, d)
        if big > DEN_BOUND:
            raise Fallback("rationals with a large common denominator")
    factor = big // den
    if float(np.abs(num).max()) * float(factor.max()) >= BOUND:
        raise Fallback("a rational beyond 64 bits when scaled")
    return num * factor, big


def python_values(num, den) -> list:
    """The row engine's values: an int when whole, else a Fraction."""
    return [a if b == 1 else Fraction(a, b) for a, b in zip(num.tolist(), den.tolist())]


def of_python(values):
    """``(num, den)`` of exact Python numbers (ints, Fractions), or None
    when one is not exact or does not fit."""
    import numpy as np

    try:
        num = np.array([v if type(v) is int else v.numerator for v in values], dtype=np.int64)
        den = np.array([1 if type(v) is int else v.denominator for v in values], dtype=np.int64)
    except (OverflowError, AttributeError):
        return None
    if num.size and (np.abs(num).max() >= BOUND or den.max() >= BOUND):
        return None
    return num, den


def distinct(num, den):
    """The distinct pairs (in value order) and each row's position among them."""
    import numpy as np

    try:
        ints, _ = common(num, den)  # one int64 key per value: a plain sort
    except Fallback:
        ints = None
    if ints is not None:
        _, first, inv = np.unique(ints, return_index=True, return_inverse=True)
        return num[first], den[first], inv.reshape(-1)
    pairs = np.stack([num, den], axis=1)
    uniq, inv = np.unique(pairs, axis=0, return_inverse=True)
    un, ud = uniq[:, 0].copy(), uniq[:, 1].copy()
    rank = value_ranks(un, ud)
    order = np.argsort(rank, kind="stable")
    where = np.empty_like(order)
    where[order] = np.arange(len(order))
    return un[order], ud[order], where[inv.reshape(-1)]


def value_ranks(num, den):
    """The rank of each (distinct, reduced) pair in the order of the values."""
    import numpy as np

    try:
        ints, _ = common(num, den)
        order = np.argsort(ints, kind="stable")
    except Fallback:  # denominators too far apart for int64: Fractions, for the distinct values only
        vals = python_values(num, den)
        order = np.array(sorted(range(len(vals)), key=vals.__getitem__), dtype=np.int64)
    rank = np.empty(len(num), dtype=np.int64)
    rank[order] = np.arange(len(num))
    return rank


def key_arrays(series) -> list:
    """Integer arrays standing for a column's values in equality and a
    consistent order: the codes or floats themselves, an exact column's
    numerator and denominator (reduced: equal values, equal pairs)."""
    if is_exact(series):
        return list(parts(series))
    return [series.to_numpy()]


def codes(series, values):
    """Term codes of an exact column (each distinct value coded once)."""
    num, den = parts(series)
    return values.encode_rational(num, den)


class Distinct:
    """The distinct values of an exact column in value order, for the
    writers (connectors/text_out.py): ``num``, ``den``; the Python values
    (ints and Fractions) are made only when a writer asks."""

    __slots__ = ("num", "den")

    def __init__(self, num, den):
        self.num, self.den = num, den

    def python(self) -> list:
        return python_values(self.num, self.den)

    def __len__(self) -> int:
        return len(self.num)


# ---------------------------------------------------------------- arithmetic
def _check(*arrays):
    import numpy as np

    for a in arrays:
        if a.size and float(np.abs(a).max()) >= BOUND:
            raise Fallback("an exact result beyond 64 bits")


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


# ---------------------------------------------------------------- Arrow
def arrow_array(num, den):
    """The Arrow column the rows' typing gives these values
    (connectors/arrow.py's ``_column``): ``int64`` when all are whole,
    ``decimal128`` when all have finite decimals (by numpy), else its text
    path on the Python values."""
    import pyarrow as pa

    from chronolog.connectors.arrow import _column, decimal_parts

    if not len(num) or (den == 1).all():
        return pa.array(num, pa.int64())
    fast = decimal_parts(num, den) if len(num) >= 64 else None  # (as _column: few values take its text path)
    if fast is not None:
        return fast
    un, ud, pos = distinct(num, den)
    return _column(python_values(un, ud)).take(pa.array(pos))

