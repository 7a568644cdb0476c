"""Float results as value columns, coded only where equality needs a code.

A term column is normally Int64 codes of the run's Dictionary (encoding.py).
Coding every float a kernel computes costs one Python dict operation per
distinct value (400,000 of them for the rolling-window recipe, more than the
kernels themselves): so aggregates and arithmetic leave binary floats as a
polars **Float64** column of the values themselves.  The dtype is the mark:
Int64 is codes, Float64 is float values (finite; ``-0.0`` keeps its sign,
as the rows keep the object).

Float columns go through scans, intervals, coalescing and grouping as they
are; they are coded (:func:`codes`) only where equality is asked of them: a join,
a negation or a Since on the variable (Python's equality, 0.0 == -0.0 == 0,
is the Dictionary's; a hash join on float bits is not), a constant or repeated
variable in a scan, ``==``/``!=``, and two rules writing one predicate with
different kinds.  The answers are printed and converted to Arrow straight
from the floats.  Exact numbers are never floats: ints stay coded, decimals
and fractions that kernels read or compute are exact value columns
(exact_columns.py: numerator/denominator pairs), coded at the same places.
"""

from __future__ import annotations

from .native import int64_columns


def is_values(series) -> bool:
    """Whether a frame column holds values (floats, or exact pairs), not codes."""
    import polars as pl

    return series.dtype == pl.Float64 or isinstance(series.dtype, pl.Struct)


def kind_of(series) -> str:
    """``"codes"``, ``"float"`` or ``"exact"``."""
    import polars as pl

    if series.dtype == pl.Float64:
        return "float"
    return "exact" if isinstance(series.dtype, pl.Struct) else "codes"


def float_series(name: str, arr):
    """A Float64 value column of finite floats."""
    import polars as pl

    return pl.Series(name, arr, dtype=pl.Float64)


def codes(df, cols, values):
    """``df`` with the value columns among ``cols`` replaced by codes."""
    import polars as pl

    out = [pl.Series(c, column_codes(df[c], values), dtype=pl.Int64) for c in cols if c in df.columns and is_values(df[c])]
    return df.with_columns(out) if out else df


def column_codes(series, values):
    """The term codes of a frame column: its own, or its values' (float
    values, exact pairs) coded by the Dictionary."""
    from . import exact_columns
    from .expressions import FLOAT

    if exact_columns.is_exact(series):
        return exact_columns.codes(series, values)
    if is_values(series):
        return values.encode(FLOAT, series.to_numpy())
    return series.to_numpy()


PAIR_KEY = "pairs:"  # (a key column of exact pairs: value columns of a variable are "v:...")


def pair_key_columns(left, right, cols):
    """``left``, ``right`` and ``cols`` where each column of ``cols`` that
    is exact values on both sides (and on neither side empty) is matched by
    a key column instead, equal where the pairs are (in lowest terms:
    where the values are): one numpy sort of both sides' pairs, where
    coding them made a Fraction and a hash per distinct value (a join on
    300,000 distinct decimals, ~2 s); floats on both sides likewise, by
    their bits (:func:`float_keys`)."""
    import numpy as np
    import polars as pl

    from . import exact_columns as ex

    out = list(cols)
    for k, c in enumerate(cols):
        if not (left.height and right.height):
            continue
        if left[c].dtype == pl.Float64 and right[c].dtype == pl.Float64:
            lk, rk = float_keys(left[c]), float_keys(right[c])
        elif ex.is_exact(left[c]) and ex.is_exact(right[c]):
            (ln, ld), (rn, rd) = ex.parts(left[c]), ex.parts(right[c])
            ids = pair_ids(np.concatenate([ln, rn]), np.concatenate([ld, rd]))
            lk, rk = ids[: len(ln)], ids[len(ln):]
        else:
            continue
        name = PAIR_KEY + c
        left = left.with_columns(pl.Series(name, lk, dtype=pl.Int64))
        right = right.with_columns(pl.Series(name, rk, dtype=pl.Int64))
        out[k] = name
    return left, right, out


def float_keys(series):
    """An int64 key per float of a value column, equal where the floats
    are (Python's equality, the Dictionary's: a value column holds finite
    floats, and ``x + 0.0`` makes ``-0.0`` the bits of ``0.0``): the
    bits, where coding each distinct float was a dict lookup (an update
    matching 3 facts against 1M distinct float readings: 10 s)."""
    import numpy as np

    return (series.to_numpy() + 0.0).view(np.int64)


def pair_ids(num, den):
    """A dense int64 id per row, equal where the pairs are (in the pairs'
    order).  Pairs of one denominator (whole numbers: an update's first
    coding of 1M readings) are ranked by their numerators alone: over a
    range a few times their count, by a table of the values present, no
    sort (the sort of the pairs took 0.1 s of 1M)."""
    import numpy as np

    if len(num) and den.min() == den.max():
        lo, hi = int(num.min()), int(num.max())
        if hi - lo < 4 * len(num) + 1024:
            present = np.zeros(hi - lo + 1, dtype=bool)
            present[num - lo] = True
            return (np.cumsum(present) - 1)[num - lo]
        return np.unique(num, return_inverse=True)[1].reshape(-1).astype(np.int64, copy=False)
    order = np.lexsort((den, num))
    n, d = num[order], den[order]
    first = np.empty(len(n), dtype=bool)
    first[:1] = True
    np.not_equal(n[1:], n[:-1], out=first[1:])
    first[1:] |= d[1:] != d[:-1]
    ids = np.empty(len(n), dtype=np.int64)
    ids[order] = np.cumsum(first) - 1
    return ids


def match_kinds(left, right, cols, values):
    """``left`` and ``right`` with the join columns ``cols`` as codes on
    both sides (an empty side is cast instead)."""
    import polars as pl

    if int64_columns(left, cols) and int64_columns(right, cols):  # (nothing to make of one kind)
        return left, right
    for c in cols:
        lv, rv = is_values(left[c]), is_values(right[c])
        if not (lv or rv):
            continue
        left = codes(left, [c], values) if left.height else _cast_empty(left, c, pl.Int64)
        right = codes(right, [c], values) if right.height else _cast_empty(right, c, pl.Int64)
    return left, right


def exact_where_coded(frames, cols, values) -> list:
    """``frames`` with each of ``cols`` that is exact pairs in some of them
    and codes in the others made exact pairs in all, where those codes are
    exact numbers (ints and Fractions: Values.exact_pairs), not the exact
    ones coded: a few facts an update adds as codes met the model's exact
    columns of 12,000 rows, every value of them coded (a Fraction or an int
    and a hash each), 0.04 -> 0.32 s an update."""
    from .base import column
    from .exact_columns import is_exact

    out = list(frames)
    for c in cols:
        full = [f for f in out if f.height and c in f.columns]
        exact = [is_exact(f[c]) for f in full]
        if not any(exact) or all(exact) or any(is_values(f[c]) and not x for f, x in zip(full, exact)):
            continue  # (none or all exact, or floats among them)
        made = []
        for f in out:
            if not f.height or c not in f.columns or is_exact(f[c]):
                made.append(f)
                continue
            codes = f[c].to_numpy()
            pairs = values.exact_pairs(codes, whole=True) if codes.min() >= 0 else None
            if pairs is None:  # (another kind of term among them: the exact ones are coded)
                break
            made.append(f.with_columns(column(c, pairs)))
        else:
            out = made
    return out


def same_kinds(frames, cols, values) -> list:
    """``frames`` (to be concatenated) with each of ``cols`` of one kind:
    floats (or exact pairs) where every non-empty frame has them (exact
    numbers beside exact pairs made pairs: :func:`exact_where_coded`), else
    codes."""
    import polars as pl

    from .exact_columns import struct_dtype

    frames = list(frames)
    if all(int64_columns(f, cols) for f in frames):
        return frames
    frames = exact_where_coded(frames, cols, values)
    for c in cols:
        full = [f for f in frames if f.height]
        kinds = {kind_of(f[c]) for f in full}
        if len(kinds) > 1:
            frames = [codes(f, [c], values) if f.height else f for f in frames]
            want = pl.Int64
        elif kinds == {"float"}:
            want = pl.Float64
        elif kinds == {"exact"}:
            want = struct_dtype()
        else:
            want = pl.Int64
        frames = [f if f[c].dtype == want else _cast_empty(f, c, want) for f in frames]
    return frames


def _cast_empty(f, c, want):
    """An (empty) frame's column ``c`` as the dtype ``want``."""
    import polars as pl

    if f.height:
        return f.with_columns(pl.col(c).cast(want))
    return f.with_columns(pl.Series(c, [], dtype=want))


def _code_kinds(name: str, df, values):
    """The kind of each row's value of the variable ``name`` (Values.kind:
    1 an int, 2 a float), or None for a value column."""
    from .scan import var_column

    col = df[var_column(name)]
    if is_values(col):
        return None
    c = col.to_numpy()
    values.column(c[:0])  # (brings the kinds of every code up to date)
    return values.kind[c]


def mixed(expr, df, values) -> bool:
    """Whether a variable of ``expr`` is a coded column holding ints beside
    floats.  Such results are computed per row kind and coded, instead of
    a float column that would make every one a float (where a float equals
    an int of the run the stratum goes to the rows: encoding.Dictionary)."""
    from chronolog.language import ast

    for name in ast.variables_of(expr):
        k = _code_kinds(name, df, values)
        if k is not None and bool((k == 1).any()) and bool((k == 2).any()):
            return True
    return False


def python_values(series, terms_values):
    """A frame column as a numpy object array of the row engine's values."""
    import numpy as np

    from . import exact_columns

    if exact_columns.is_exact(series):
        out = np.empty(series.len(), dtype=object)
        out[:] = exact_columns.python_values(*exact_columns.parts(series))
        return out
    if is_values(series):
        out = np.empty(series.len(), dtype=object)
        out[:] = series.to_list()
        return out
    return terms_values[series.to_numpy()]


def python_list(series, terms):
    """A frame column as a list of the row engine's values (codes decoded
    by the Dictionary ``terms``, value columns read)."""
    if is_values(series):
        return list(python_values(series, None))
    return terms.values.take(series.to_numpy())


def float_rows(expr, df, values):
    """Per row of ``df``: whether a variable of ``expr`` holds a float there
    (a float value column, or a float-kind code of a coded column).  Python
    arithmetic gives a float exactly where one operand is a float, so a
    mixed column's other rows are computed exactly (an int 0 + 1 is 1, not
    1.0), as the rows compute them."""
    import numpy as np

    from chronolog.language import ast

    from .exact_columns import is_exact
    from .scan import var_column

    out = np.zeros(df.height, dtype=bool)
    for name in ast.variables_of(expr):
        if is_exact(df[var_column(name)]):  # (exact pairs: no float among them)
            continue
        k = _code_kinds(name, df, values)
        out |= True if k is None else k == 2
    return out


def evaluate_by_kind(expr, df, values):
    """The codes of ``expr`` over a frame where it meets ints beside floats
    (:func:`mixed`): the rows without a float computed exactly, the others
    as floats, each coded (equal numbers are one code)."""
    import numpy as np
    import polars as pl

    from .expressions import EXACT, evaluate

    fl = float_rows(expr, df, values)
    out = np.zeros(df.height, dtype=np.int64)
    for mask in (~fl, fl):  # exact first: a float equal to one then shares its code
        if mask.any():
            kind, arr = evaluate(expr, df.filter(pl.Series(mask)), values)
            out[mask] = values.encode_rational(*arr) if kind == EXACT else values.encode(kind, arr)
    return out
