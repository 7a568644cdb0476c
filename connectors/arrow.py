"""Facts to Arrow tables.

Layout: one column per term, then ``start``, ``end``, ``start_closed``,
``end_closed``.  Time columns are ``int64`` when every finite end is an
integer, ``decimal128`` when every end has a finite decimal expansion, and
otherwise strings in the canonical number text (``1/3``); an infinite end is
null (``start`` null means -inf, ``end`` null means +inf).  Term columns keep
their Python type (int, string, bool); exact non-integer numbers become
decimals or canonical strings the same way.  Nothing is rounded.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from chronolog.language.timeline import NEG_INF, POS_INF, format_number


def _column(values):
    import pyarrow as pa

    finite = [v for v in values if v is not None]
    if all(type(v) is int for v in finite):
        return pa.array(values, type=pa.int64())
    if all(isinstance(v, (int, Fraction)) and not isinstance(v, bool) for v in finite):
        texts = [format_number(v) for v in finite]
        if all("/" not in t for t in texts):
            scale = max((len(t.split(".")[1]) if "." in t else 0) for t in texts) if texts else 0
            digits = max((len(t.replace("-", "").replace(".", "")) for t in texts), default=1)
            precision = min(38, max(digits + scale, scale + 1, 1))
            return pa.array([None if v is None else Decimal(format_number(v)) for v in values], type=pa.decimal128(precision, scale))
        return pa.array([None if v is None else format_number(v) for v in values], type=pa.string())
    if all(type(v) is bool for v in finite):
        return pa.array(values, type=pa.bool_())
    if all(type(v) is str for v in finite):
        return pa.array(values, type=pa.string())
    from chronolog.language.text import format_term

    return pa.array([None if v is None else format_term(v) for v in values], type=pa.string())


def facts_to_arrow(facts, names):
    import pyarrow as pa

    arity = len(names)
    cols = {n: [] for n in names}
    starts, ends, sc, ec = [], [], [], []
    for terms, (lo, hi, lc, hc) in facts:
        for n, v in zip(names, terms):
            cols[n].append(v)
        starts.append(None if lo == NEG_INF else lo)
        ends.append(None if hi == POS_INF else hi)
        sc.append(lc)
        ec.append(hc)
    arrays = [_column(cols[n]) for n in names[:arity]]
    arrays += [_column(starts), _column(ends), pa.array(sc, pa.bool_()), pa.array(ec, pa.bool_())]
    return pa.Table.from_arrays(arrays, names=list(names) + ["start", "end", "start_closed", "end_closed"])
