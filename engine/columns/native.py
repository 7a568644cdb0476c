"""Series and frames of int64 codes made by polars' own constructors,
without the checks of ``pl.Series(name, array)`` and ``pl.DataFrame``.

An update on frames (maintenance.py) builds about a thousand columns from
numpy arrays of a few hundred codes, most of them read back into numpy by
the next operation.  ``pl.Series(name, array)`` spends ~90% of its 3-14 us
in Python (``np.require``, ``np.ma.getmask``, the dtype's dispatch) before
it calls the constructor this module calls directly (~1 us); a frame of
them made with ``pl.DataFrame``/``hstack`` costs as much again.  The
constructors are polars' internal bindings (their module moved between
versions, hence the lookup); where they are missing, or an array is not
one they take as it is (not C-contiguous, aligned, native int64), the
public constructors run instead.  Same Series as ``pl.Series``
(tests/test_native.py).
"""

from __future__ import annotations


def _bindings():
    """``(PySeries, PyDataFrame)`` of the installed polars, or None."""
    import importlib

    for module in ("polars._plr", "polars.polars"):
        try:
            got = importlib.import_module(module)
        except ImportError:
            continue
        series, frame = getattr(got, "PySeries", None), getattr(got, "PyDataFrame", None)
        if hasattr(series, "new_i64") and frame is not None and _works(series, frame):
            return series, frame
    return None


def _works(series, frame) -> bool:
    """Whether the bindings take what this module gives them and make what
    the public constructors make: an internal signature may change in any
    polars release, and then the public path must run, not an error."""
    import numpy as np
    import polars as pl

    probe = np.array([3, -1, 2**62], dtype=np.int64)
    try:
        made = pl.Series._from_pyseries(series.new_i64("p", probe, True))
        table = pl.DataFrame._from_pydf(frame([made._s]))
    except Exception:  # noqa: BLE001 (any failure means: not these bindings)
        return False
    return made.equals(pl.Series("p", probe)) and table.equals(pl.DataFrame([pl.Series("p", probe)]))


_BINDINGS: list = []  # [the bindings or None], looked up once


def bindings():
    if not _BINDINGS:
        _BINDINGS.append(_bindings())
    return _BINDINGS[0]


def int64_series(name: str, a):
    """An Int64 Series of the codes ``a``, as ``pl.Series(name, a,
    pl.Int64)``: a 1-D native int64 numpy array by the bindings (no copy),
    anything else (a list, a strided or foreign-order array) by the
    public constructor."""
    import numpy as np
    import polars as pl

    if type(a) is np.ndarray and a.base is not None:
        owner = _series_viewed(a)
        if owner is not None:
            return _without_chain(owner, a).alias(name)
    got = bindings()
    if got is None or type(a) is not np.ndarray or a.dtype != np.int64 or a.ndim != 1:
        return pl.Series(name, a, pl.Int64)
    flags = a.flags
    if not (flags.c_contiguous and flags.aligned) or not a.dtype.isnative:
        return pl.Series(name, a, pl.Int64)
    return pl.Series._from_pyseries(got[0].new_i64(name, a, True))


def _series_viewed(a):
    """The polars Series (its ``PySeries``) whose buffer the numpy array
    ``a`` views, or None."""
    import numpy as np

    base = a.base
    while type(base) is np.ndarray:
        base = base.base
    return base if type(base).__name__ == "PySeries" else None


def _without_chain(owner, a):
    """A Series of the codes ``a``, a view of the Series ``owner``: that
    Series itself, sliced to ``a`` (no copy), else a copy of ``a``.

    Why: a Series made on the view keeps ``owner`` alive through its
    buffer, and a relation derived from one derived from one ... (a rule
    per stratum, 20,000 strata) made a chain of buffers that polars and
    numpy free by recursion, past the C stack: the process crashed."""
    import numpy as np
    import polars as pl

    whole = pl.Series._from_pyseries(owner)
    if type(whole.dtype) is pl.Int64 and a.dtype == np.int64 and a.ndim == 1 and a.strides == (8,):
        if a.base is owner and len(a) == len(whole):  # (the view to_numpy gives)
            return whole
        if whole.n_chunks() == 1 and not whole.null_count():
            start, off = divmod(a.ctypes.data - whole.to_numpy(allow_copy=False).ctypes.data, 8)
            if not off and 0 <= start <= len(whole) - len(a):
                return whole.slice(start, len(a))
    return pl.Series("", a.copy(), pl.Int64)


def frame(columns: list):
    """A frame of the named Series ``columns`` (one height, distinct
    names: polars checks both and raises as ``pl.DataFrame`` does)."""
    import polars as pl

    got = bindings()
    if got is None:
        return pl.DataFrame(columns)
    return pl.DataFrame._from_pydf(got[1]([c._s for c in columns]))


def int64_columns(df, cols=None) -> bool:
    """Whether the columns ``cols`` of ``df`` (all when None) are Int64,
    from the frame's dtypes (no Series made per column)."""
    import polars as pl

    if cols is None:
        return all(type(t) is pl.Int64 for t in df.dtypes)
    kinds = dict(zip(df.columns, df.dtypes))
    return all(type(kinds.get(c)) is pl.Int64 for c in cols)


def int64_without_nulls(df, cols=None) -> bool:
    """Whether the columns ``cols`` of ``df`` (all when None) are Int64
    without nulls: the check before each operation on codes (a few hundred
    an update), from the frame's dtypes and its columns' null counts
    without a Series made per column (~5 us each under load: the public
    ``iter_columns`` took 20-60 us a frame)."""
    if not int64_columns(df, cols):
        return False
    if cols is None:
        cols = df.columns
    inner = getattr(df, "_df", None)
    if inner is None or not hasattr(inner, "get_column"):
        return not any(df.get_column(c).null_count() for c in cols)
    return not any(inner.get_column(c).null_count() for c in cols)


def array(df, col: str):
    """The column ``col`` of ``df`` as a numpy array (no copy where polars
    makes none), as ``df[col].to_numpy()`` without the Series made between
    (~5 us under load; an update on frames reads ~2,500 columns so)."""
    try:
        return df._df.get_column(col).to_numpy(writable=False, allow_copy=True)
    except (AttributeError, TypeError):  # (another polars: its public path)
        return df[col].to_numpy()
