"""Relations as columns: the facts of one predicate as a polars DataFrame with
one Int64 code column per argument (``"0"``, ``"1"``, …) and the interval
codes ``s``, ``e`` (encoding.py), always coalesced to maximal intervals.

Conversions live here: to and from the row engine's :class:`Relation` (a
stratum on columns reads what row strata wrote; a row stratum or the Model
reads what columns wrote, lazily, see store.py), and to and from Arrow tables
in the layout of engine/arrow.py (one column per term, ``start``, ``end``
with null for an unbounded end, ``start_closed``, ``end_closed``).  Each
distinct term value goes through the run's Dictionary once; the per-fact work
is in numpy and Arrow kernels."""

from __future__ import annotations

from contextlib import contextmanager
from fractions import Fraction

from chronolog.language.timeline import NEG_INF, POS_INF

from ..exprs import col, to_numpy
from ..interval_codes import NEG, POS, closed_ends, from_ends

from .coalesce import coalesce
from .encoding import LIMIT, Fallback, inside, int64s


@contextmanager
def no_gc():
    """Bulk conversions create millions of acyclic tuples: the cyclic garbage
    collector's passes over them cost more than the conversion (measured 5x)."""
    import gc

    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def term_columns(arity: int) -> list:
    return [str(i) for i in range(arity)]


def _frame(cols: list, s, e):
    """A relation's frame of the arrays ``cols``, ``s``, ``e`` (base.column:
    from Series, a third of the cost of a dict with a schema, ~25 against 70
    us a frame)."""
    from .base import frame_of_arrays

    return frame_of_arrays(term_columns(len(cols)), cols, s, e)


def empty(arity: int):
    return _frame([[] for _ in range(arity)], [], [])


def term_column(values: list, terms):
    """A column of Python term values: a float value column (numpy float64,
    value_columns.py: coded only where equality needs a code) when every
    value is a finite float, as a "float" CSV column is; else codes.  (Coded,
    a price 101.0 would take the code of a day 101 and come back an int.)"""
    if values and all(type(v) is float for v in values):
        import numpy as np

        a = np.array(values, dtype=np.float64)
        if np.isfinite(a).all():
            return a
    return encode_column(values, terms)


def encode_column(arr, terms):
    """Codes (numpy int64) of an Arrow array or Python list of term values:
    each distinct value is coded once, by the run's Dictionary."""
    import numpy as np

    if isinstance(arr, list):
        return _encode_list(arr, terms)
    import pyarrow as pa  # (an Arrow array: the caller has pyarrow)

    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if arr.null_count:
        raise Fallback("a null term")
    enc = arr.dictionary_encode()
    if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):  # (by a join: no Python string each)
        import polars as pl

        mapping = np.asarray(terms.code_names(pl.Series(pl.from_arrow(enc.dictionary), dtype=pl.String)), dtype=np.int64)
        return mapping[enc.indices.to_numpy(zero_copy_only=False)]
    mapping = np.asarray(terms.code_all(enc.dictionary.to_pylist()), dtype=np.int64)
    return mapping[enc.indices.to_numpy(zero_copy_only=False)]


def _encode_list(values: list, terms):
    """:func:`encode_column` of a Python list, its distinct values coded in
    order of first appearance; only a column of strings or of 64-bit
    integers is encoded in bulk (there equality is Python's), any other one
    value by value."""
    import numpy as np

    kinds = set(map(type, values))
    if len(kinds) == 2 and type(None) in kinds and kinds & {str, int}:
        raise Fallback("a null term")  # (as a null in a column of strings or integers)
    if kinds == {str}:
        import polars as pl

        from chronolog.language.string_columns import encode

        idx, distinct = encode(pl.Series(values, dtype=pl.String))
        return np.asarray(terms.code_names(distinct), dtype=np.int64)[idx]
    if kinds == {int}:
        ints = int64s(values)
        if ints is not None:
            distinct, first, inverse = np.unique(ints, return_index=True, return_inverse=True)
            order = np.argsort(first, kind="stable")  # (first appearance, as the values come)
            rank = np.empty(len(order), dtype=np.int64)
            rank[order] = np.arange(len(order))
            mapping = np.asarray(terms.code_all(distinct[order].tolist()), dtype=np.int64)
            return mapping[rank[inverse.reshape(-1)]]
    code = terms.code
    return np.fromiter((code(v) for v in values), dtype=np.int64, count=len(values))


def time_units(values, scale, ints=None):
    """Per time value (a list, or the fact reader's distinct values): its
    units (int64) and whether it is finite (``ints``: the values as int64
    when the reader has them so)."""
    import numpy as np

    if ints is not None and inside(ints, LIMIT // (4 * scale.scale)):
        return ints * scale.scale, np.ones(len(ints), dtype=bool)
    vals = values if isinstance(values, list) else list(values) if isinstance(values, tuple) else values.tolist()
    if vals and all(type(v) is int for v in vals):  # the usual case (days, seconds): one numpy pass
        units = int64s(vals)
        if units is not None and inside(units, LIMIT // (4 * scale.scale)):
            return units * scale.scale, np.ones(len(vals), dtype=bool)
    fast = _rational_units(vals, scale)
    if fast is not None:
        return fast
    out = np.zeros(len(vals), dtype=np.int64)
    fin = np.ones(len(vals), dtype=bool)
    unit = scale.unit
    for i, v in enumerate(vals):
        if v is None:  # a token the kernels could not convert: no kept fact uses it
            fin[i] = False
        elif v == NEG_INF or v == POS_INF:
            fin[i] = False
        elif type(v) is int or isinstance(v, Fraction):
            out[i] = unit(v)  # (TimeScale.unit refuses a point off the grid or outside 64-bit codes)
        else:  # never a float on the exact grid
            raise Fallback(f"time point {v!r} is not exact")
    return out, fin


def ratio_units(num, den: int, scale):
    """:func:`time_units` of the values ``num / den`` (numpy int64 over one
    int), by numpy; None where they are off the scale's grid or past its
    64-bit codes (the values' loop raises Fallback for them)."""
    import numpy as np

    if scale.scale % den:
        return None
    factor = scale.scale // den
    if num.size and not inside(num, LIMIT // (4 * factor)):
        return None
    return num * factor, np.ones(len(num), dtype=bool)


def _rational_units(vals, scale):
    """:func:`time_units` by numpy when every value is an int, a Fraction
    (decimals, float times: language/float_times.py) or ±inf, each on the
    scale's grid and within 64-bit codes; else None (the loop decides, and
    raises Fallback where it must).  A Fraction per value compared with
    ±inf and scaled one at a time cost 2 s per million distinct times."""
    import numpy as np

    exact = np.array([type(v) is int or isinstance(v, Fraction) for v in vals], dtype=bool)
    if not exact.all() and not all(v == NEG_INF or v == POS_INF for v, e in zip(vals, exact.tolist()) if not e):
        return None
    rats = [v for v, e in zip(vals, exact.tolist()) if e]
    num, den = int64s([v.numerator for v in rats]), int64s([v.denominator for v in rats])
    if num is None or den is None:
        return None
    if np.any(scale.scale % den):
        return None
    factor = scale.scale // den
    if num.size and not inside(num, LIMIT // (4 * int(factor.max()))):  # (not np.abs: -2**63 is its own abs)
        return None
    out = np.zeros(len(vals), dtype=np.int64)
    out[exact] = num * factor
    return out, exact


def interval_codes(lo, hi, lc, hc, scale):
    """``s``, ``e`` codes (numpy) of sequences of interval ends."""
    import numpy as np

    lo_u, lo_fin = time_units(lo, scale)
    hi_u, hi_fin = time_units(hi, scale)
    return _codes(lo_u, lo_fin, np.asarray(lc, dtype=bool), hi_u, hi_fin, np.asarray(hc, dtype=bool))


def rows_columns(rows: list, arity: int, terms, scale) -> tuple:
    """``(term columns, s, e)`` of ``(terms, interval)`` rows (not none)."""
    keys = [t for t, _ in rows]
    cols = [term_column([k[i] for k in keys], terms) for i in range(arity)]
    return (cols, *interval_codes(*zip(*[iv for _, iv in rows]), scale))


def _codes(*ends) -> tuple:
    """``s``, ``e`` (numpy) of the arrays ``lo, lo_finite, lo_closed, hi,
    hi_finite, hi_closed`` (interval_codes.from_ends)."""
    names = ("lo", "lf", "lc", "hi", "hf", "hc")
    arrays = dict(zip(names, ends))
    return tuple(to_numpy(x, arrays) for x in from_ends(*map(col, names)))


def from_relation(rel, arity: int, terms, scale):
    """A stored Relation as a coalesced DataFrame."""
    with no_gc():
        return _from_relation(rel, arity, terms, scale)


def _from_relation(rel, arity, terms, scale):
    import numpy as np

    atoms = rel.atoms
    if not atoms:
        return empty(arity)
    counts = np.fromiter((len(v) for v in atoms.values()), dtype=np.int64, count=len(atoms))
    keys = list(atoms)
    cols = [term_column([k[i] for k in keys], terms) for i in range(arity)]
    if np.any(counts != 1):
        cols = [np.repeat(c, counts) for c in cols]
    ivs = [iv for v in atoms.values() for iv in v]
    lo, hi, lc, hc = ([iv[i] for iv in ivs] for i in range(4))
    s, e = interval_codes(lo, hi, lc, hc, scale)
    df = _frame(cols, s, e)
    return coalesce(df, term_columns(arity)) if rel.raw else df  # a stored relation is maximal unless raw


def _decode_points(codes, fin, scale, inf):
    """The engine's time of each code; off a grid of whole units each
    distinct point is made once (a Fraction each of 1.4 million ends on a
    grid of halves cost seconds; they take a few thousand values)."""
    import numpy as np

    if scale.scale == 1:
        return [u if f else inf for u, f in zip((codes >> 1).tolist(), fin.tolist())]
    units, index = np.unique(codes >> 1, return_inverse=True)
    points = np.empty(len(units), dtype=object)
    points[:] = [scale.point(u) for u in units.tolist()]
    out = points[index.reshape(-1)]
    out[~fin] = inf
    return out.tolist()


class _Few:
    """A Dictionary's values indexed by a few codes at a time: the values of
    those codes only, not the whole list made an array first."""

    def __init__(self, values):
        self.values = values

    def __getitem__(self, codes):
        import numpy as np

        out = np.empty(len(codes), dtype=object)
        out[:] = self.values.take(codes)
        return out


def decode(df, arity: int, terms, scale):
    """Term value columns (numpy object arrays) and interval tuples of ``df``."""
    import numpy as np

    from .value_columns import python_values

    if df.height * 16 < len(terms.values):  # a few rows of a large run (an update): only their values
        values = _Few(terms.values)
    else:
        values = np.array(terms.values + [None], dtype=object)
    cols = [python_values(df[n], values) for n in term_columns(arity)]
    s = df["s"].to_numpy()
    e = df["e"].to_numpy()
    sfin, efin = s != NEG, e != POS
    lo = _decode_points(s, sfin, scale, NEG_INF)
    hi = _decode_points(e, efin, scale, POS_INF)
    lc, hc = (to_numpy(x, {"s": s, "e": e}).tolist() for x in closed_ends())
    return cols, lo, hi, lc, hc


def atom_count(df, arity: int):
    """How many atoms (distinct term tuples) a relation's frame holds, in
    numpy: codes as they are, exact pairs by their (lowest-term) parts,
    floats by their order keys (-0.0 one with 0.0, as one term); None
    for a column of another kind."""
    from .code_frames import row_ids
    from .coalesce import int_key
    from .exact_columns import is_exact, parts

    if not arity or not df.height:
        return min(df.height, 1)
    keys = []
    for c in term_columns(arity):
        series = df[c]
        keys.extend(parts(series) if is_exact(series) else [int_key(series.to_numpy())])
    if any(k is None for k in keys):
        return None
    return int(row_ids(keys).max()) + 1


def to_atoms(df, arity: int, terms, scale) -> dict:
    """A coalesced DataFrame (sorted by atom, then start) as the row
    engine's ``{terms: [intervals]}``."""
    with no_gc():
        return _to_atoms(df, arity, terms, scale)


def _to_atoms(df, arity, terms, scale):
    cols, lo, hi, lc, hc = decode(df, arity, terms, scale)
    keys = list(zip(*cols)) if cols else [()] * df.height
    atoms: dict = {}
    for k, iv in zip(keys, zip(lo, hi, lc, hc)):
        lst = atoms.get(k)
        if lst is None:
            atoms[k] = [iv]
        else:
            lst.append(iv)
    return atoms


def _value_or_codes(arr, terms, name: str = "?", pred: str = "?", table=None):
    """A float64 column of finite floats stays float values
    (value_columns.py), a decimal128 one exact pairs; any other column is coded."""
    import numpy as np
    import pyarrow as pa

    if pa.types.is_decimal(arr.type):  # exact pairs (exact_columns.py), as an (n, 2) array
        from .exact_columns import of_decimals

        pairs = of_decimals(arr)
        if pairs is not None:
            return np.stack(pairs, axis=1)
    if pa.types.is_floating(arr.type) and not arr.null_count:
        from chronolog.engine.arrow import float_terms

        v = float_terms(arr, name, pred, table)  # (NaN refused, as the row reader refuses it)
        if np.all(np.isfinite(v)):
            return v
        return encode_column(list(v.tolist()), terms)
    return encode_column(arr, terms)


def from_arrow(table, arity: int, terms, scale, pred: str = "?"):
    """A table in the layout of engine/arrow.py as a coalesced DataFrame.
    Integer time columns are read by kernels; any other time type (decimals,
    number text, dates) goes through the exact row reader first."""
    import numpy as np
    import pyarrow as pa

    names = list(table.schema.names)
    term_names = [n for n in names if n not in ("start", "end", "start_closed", "end_closed")]
    if len(term_names) != arity or "start" not in names or "end" not in names:
        raise Fallback(f"the table for {pred} is not in the layout of its predicate")
    n = table.num_rows
    if not all(pa.types.is_integer(table.column(c).type) for c in ("start", "end")):
        from chronolog.engine.arrow import table_to_rows

        rows = table_to_rows(table, pred)
        return coalesce(_frame(*rows_columns(rows, arity, terms, scale)), term_columns(arity)) if rows else empty(arity)
    cols = [_value_or_codes(table.column(c), terms, c, pred, table) for c in term_names]

    def ends(col):
        c = table.column(col).combine_chunks().cast(pa.int64())
        fin = ~np.asarray(c.is_null().to_numpy(zero_copy_only=False))
        u = np.asarray(c.fill_null(0).to_numpy(zero_copy_only=False), dtype=np.int64)
        if not inside(u[fin], LIMIT // (2 * scale.scale)):  # (checked before scaling, which could wrap)
            raise Fallback("a time point outside 64-bit codes")
        return u * scale.scale, fin

    def closed(col):
        if col not in names:
            return np.ones(n, dtype=bool)
        c = table.column(col).combine_chunks()
        return np.asarray(c.fill_null(True).to_numpy(zero_copy_only=False), dtype=bool)

    s, e = _codes(*ends("start"), closed("start_closed"), *ends("end"), closed("end_closed"))
    if np.any(s >= e):
        from chronolog.engine.arrow import EMPTY_HINT
        from chronolog.language.errors import DataError

        raise DataError(f"row {int(np.argmax(s >= e))} of the table for {pred} has an empty interval", hint=EMPTY_HINT)
    return coalesce(_frame(cols, s, e), term_columns(arity))
