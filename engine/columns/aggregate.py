"""AggregateNode on columns: time-point aggregation per group, as the rows'
engine/rows/aggregate.py defines it, as a sweep in numpy.

Each binding's intervals are coalesced first (it counts once at a point).
The interval codes of a group's rows cut its timeline into segments
``[p_i, p_i+1)`` (on the doubled grid a segment is exactly a run of the
rows' elementary pieces); every row covers a contiguous range of segments.
sum and count are a difference array and a cumulative sum; min and max a
range update on a segment tree (log n numpy passes).  A segment with no row
gives nothing; adjacent segments with the same values coalesce.

Float results stay Float64 value columns (value_columns.py), exact numbers
are coded.  Exact as the rows: integer sums in int64 (bounds checked), float sums
correctly rounded (each float is an integer times a common power of two,
summed exactly, rounded once at the end -- what the rows' Fraction sum then
``float()`` gives), an integer average as a Fraction.  Contributors,
prod and munion, strings, mixed ints and floats: Fallback to rows.
"""

from __future__ import annotations

from fractions import Fraction

from .base import ColumnMapNode, drain
from .coalesce import coalesce
from .encoding import Fallback
from chronolog.language import ast

from .expressions import FLOAT, INT, RATIONAL, evaluate
from .scan import var_column
from .value_columns import float_series, mixed

SUPPORTED = {"sum", "msum", "count", "mcount", "avg", "min", "mmin", "max", "mmax"}


class AggregateNode(ColumnMapNode):
    """Drains the body; one batch of group columns, aggregate columns, s, e."""

    def __init__(self, child, group, aggregates, values):
        super().__init__(child)
        self.group = list(group)  # variable names
        self.aggregates = aggregates  # [(var, ast.Aggregate)]
        self.values = values
        for _, a in aggregates:
            if a.func not in SUPPORTED or a.contributors:
                raise Fallback(f"the aggregate {a.func}{' with contributors' if a.contributors else ''}")

    def label(self) -> str:
        aggs = ", ".join(f"{v} = {a.func}" for v, a in self.aggregates)
        return f"Aggregate {aggs} by {len(self.group)} group variable(s)"

    def next(self) -> bool:
        if self._batch is not None:
            return False
        body = drain(self.child)
        if body is None:
            return False
        self._batch = aggregate(body, self.group, self.aggregates, self.values)
        return self._batch.height > 0

    def reset(self) -> None:
        super().reset()
        self._batch = None


def aggregate(df, group, aggregates, values):
    import numpy as np
    import polars as pl

    binding = [c for c in df.columns if c.startswith("v:")]
    df = coalesce(df, binding)
    gcols = [var_column(g) for g in group]
    n = df.height
    gid = _group_ids(df, gcols)
    # the segment boundaries of each group: the distinct (group, point) of all
    # starts and ends, numbered in order; each row's first and after-last segment
    g2 = np.concatenate([gid, gid])
    p2 = np.concatenate([df["s"].to_numpy(), df["e"].to_numpy()])
    order = np.lexsort((p2, g2))
    gs, ps = g2[order], p2[order]
    new = np.ones(2 * n, dtype=bool)
    new[1:] = (gs[1:] != gs[:-1]) | (ps[1:] != ps[:-1])
    number = np.empty(2 * n, dtype=np.int64)
    number[order] = np.cumsum(new) - 1
    i_s, i_e = number[:n], number[n:]
    p = ps[new]
    m = p.size
    row_of = (order % n)[new]  # a row of each boundary's group
    count = _range_sum(m, i_s, i_e, np.ones(n, dtype=np.int64))
    seg = np.flatnonzero(count[: m - 1] > 0)  # a segment is [p_i, p_i+1), within one group (count > 0)
    out = pl.DataFrame({c: df[c].to_numpy()[row_of[seg]] for c in gcols} | {"s": p[seg], "e": p[seg + 1]})
    n_seg = count[seg]
    most = int(count.max(initial=1))
    names = []
    for var, agg in aggregates:
        col = var_column(var)
        names.append(col)
        if agg.func in ("count", "mcount"):
            codes = values.encode(INT, n_seg)
        else:
            try:
                kind, v = evaluate(agg.expr, df, values)
                den = 1
            except Fallback:
                if not isinstance(agg.expr, ast.Var):
                    raise
                kind = RATIONAL
                v, den = values.rational(df[var_column(agg.expr.name)].to_numpy())
            codes = _fold(agg.func, kind, v, m, i_s, i_e, seg, n_seg, values, den, most)
            if isinstance(codes, pl.Series) and mixed(agg.expr, df, values):
                codes = values.encode(FLOAT, codes.to_numpy())  # coded, as before (value_columns.mixed)
        out = out.with_columns(codes.alias(col) if isinstance(codes, pl.Series) else pl.Series(col, codes, dtype=pl.Int64))
    return coalesce(out, [*gcols, *names]).select(*gcols, *names, "s", "e")


def _group_ids(df, gcols):
    """A dense integer per group (the code itself for one group variable)."""
    import numpy as np

    if not gcols:
        return np.zeros(df.height, dtype=np.int64)
    if len(gcols) == 1:
        return df[gcols[0]].to_numpy()
    return np.unique(np.stack([df[c].to_numpy() for c in gcols], axis=1), axis=0, return_inverse=True)[1].reshape(-1)


def _range_sum(m, i_s, i_e, v):
    """Per segment, the sum of ``v`` over the rows covering it.  int64 wraps
    around, so the running sum is exact whenever every segment's sum fits,
    however large the prefix sums in between."""
    import numpy as np

    diff = np.zeros(m + 1, dtype=v.dtype)
    np.add.at(diff, i_s, v)
    np.add.at(diff, i_e, -v)
    return np.cumsum(diff)[:m]


def _range_extreme(m, i_s, i_e, v, least):
    """Per segment, the max (min when ``least``) of ``v`` over the rows
    covering it: each row's range [i_s, i_e) updates O(log m) nodes of a
    bottom-up segment tree; a leaf's value is the extreme over its ancestors."""
    import numpy as np

    size = 1
    while size < m:
        size *= 2
    fill = np.inf if least else -np.inf
    if v.dtype == np.int64:
        fill = np.iinfo(np.int64).max if least else np.iinfo(np.int64).min
    tree = np.full(2 * size, fill, dtype=v.dtype)
    at = np.minimum.at if least else np.maximum.at
    lo, hi = i_s + size, i_e + size
    while True:
        live = lo < hi
        if not live.any():
            break
        take = live & ((lo & 1) == 1)
        at(tree, lo[take], v[take])
        lo = lo + take
        take = live & ((hi & 1) == 1)
        hi = hi - take
        at(tree, hi[take], v[take])
        lo, hi = lo >> 1, hi >> 1
    leaf = np.arange(m) + size
    best = tree[leaf].copy()
    node = leaf >> 1
    pick = np.minimum if least else np.maximum
    while node.any():
        best = pick(best, tree[node])
        node >>= 1
    return best


def _fold(func, kind, v, m, i_s, i_e, seg, n_seg, values, den=1, most=1):
    """The codes of one aggregate per segment (a float aggregate: a Float64
    value column, value_columns.py); a RATIONAL ``v`` is ``v / den``;
    ``most``: the most rows covering one segment (bounds every sum)."""
    import numpy as np

    if func in ("min", "mmin", "max", "mmax"):
        r = _range_extreme(m, i_s, i_e, v, func in ("min", "mmin"))[seg]
        if kind == FLOAT:
            return float_series("", r)
        return values.encode_rational(r, den) if kind == RATIONAL else values.encode(kind, r)
    if kind in (INT, RATIONAL):
        if v.size and float(np.abs(v).max()) * most >= 2**62:
            raise Fallback("an integer sum that may leave 64 bits")
        total = _range_sum(m, i_s, i_e, v)[seg]
        if kind == RATIONAL:
            return values.encode_rational(total, den if func in ("sum", "msum") else den * n_seg)
        if func in ("sum", "msum"):
            return values.encode(INT, total)
        whole = total % n_seg == 0
        if whole.all():
            return values.encode(INT, total // n_seg)
        code = values.terms.code
        t, n = total.tolist(), n_seg.tolist()
        return np.fromiter((code(a // b if a % b == 0 else Fraction(a, b)) for a, b in zip(t, n)), np.int64, len(t))
    total = _exact_float_sum(m, i_s, i_e, v, seg, most)
    if func == "avg":
        total = total / n_seg
    return float_series("", total)


def _exact_float_sum(m, i_s, i_e, v, seg, most):
    """Correctly rounded sums of floats, as the rows' exact Fraction sum then
    ``float()``: each float is ``mant * 2**exp`` with a 53-bit integer
    ``mant``; scaled to the least exponent they are integers, summed exactly
    and rounded once.  The integers are split into two int64 limbs,
    ``hi * 2**32 + lo``, summed separately; the carry is moved into ``hi``;
    then ``float(hi) * 2**32 + float(lo)`` is one IEEE addition of two exact
    doubles, which is correctly rounded.  Floats too far apart in magnitude
    for the limbs are summed as Python ints."""
    import numpy as np

    mant, exp = np.frexp(v)
    mant = (mant * 2.0**53).astype(np.int64)
    exp = exp.astype(np.int64) - 53
    nz = mant != 0
    if not nz.any():
        return np.zeros(len(seg))
    k = int(exp[nz].min())
    shift = np.where(nz, exp - k, 0)
    span = int(shift.max())
    if k > -1000 and span <= 32 and span + int(np.ceil(np.log2(most + 1))) < 31:
        lo = (mant << shift) & 0xFFFFFFFF  # the low 32 bits survive the wrap-around
        hi = mant >> (32 - shift)  # floor: mant * 2**shift == hi * 2**32 + lo
        lo_sum = _range_sum(m, i_s, i_e, lo)[seg]
        hi_sum = _range_sum(m, i_s, i_e, hi)[seg] + (lo_sum >> 32)
        lo_sum &= 0xFFFFFFFF
        total = hi_sum.astype(np.float64) * 2.0**32 + lo_sum.astype(np.float64)
        return np.ldexp(total, k)
    scaled = np.array([int(a) << int(b) for a, b in zip(mant.tolist(), shift.tolist())], dtype=object)
    total = _range_sum(m, i_s, i_e, scaled)[seg]
    if k >= 0:
        return np.array([float(t << k) for t in total.tolist()], dtype=np.float64)
    d = 1 << -k
    return np.array([t / d for t in total.tolist()], dtype=np.float64)
