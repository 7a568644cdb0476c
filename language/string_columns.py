"""Polars string columns cut from a byte buffer, and dictionary-encoded.

The fact reader (fact_columns.py) finds every line, token and separator of
a block of text by numpy over its bytes; what it needs from a string
library is a column of those tokens and their distinct values.  Polars (the
columnar executor's library, loaded anyway) has the kernels, but no public
constructor of a string column from a buffer and offsets, and cutting each
token by ``bin.slice`` cost 3x Arrow's ``take`` (13 against 4 ms for a 1 MB
block's 160,000 tokens).  Polars does read any object that exports the
Arrow C data interface (``__arrow_c_array__``, the PyCapsule protocol), so
:class:`_Utf8` exports numpy offsets and bytes in that layout by hand
(a few ctypes structures) instead of through pyarrow, whose import alone
held 35-60 MB of a ``chronolog run`` that reads and prints text.
"""

from __future__ import annotations

import ctypes
from typing import NamedTuple


class _Schema(ctypes.Structure):
    pass


class _Array(ctypes.Structure):
    pass


_RELEASE_SCHEMA = ctypes.CFUNCTYPE(None, ctypes.POINTER(_Schema))
_RELEASE_ARRAY = ctypes.CFUNCTYPE(None, ctypes.POINTER(_Array))

_Schema._fields_ = [
    ("format", ctypes.c_char_p),
    ("name", ctypes.c_char_p),
    ("metadata", ctypes.c_char_p),
    ("flags", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("children", ctypes.c_void_p),
    ("dictionary", ctypes.c_void_p),
    ("release", _RELEASE_SCHEMA),
    ("private_data", ctypes.c_void_p),
]
_Array._fields_ = [
    ("length", ctypes.c_int64),
    ("null_count", ctypes.c_int64),
    ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.c_void_p),
    ("dictionary", ctypes.c_void_p),
    ("release", _RELEASE_ARRAY),
    ("private_data", ctypes.c_void_p),
]

# what an exported array keeps alive until its consumer releases it
_alive: dict = {}


@_RELEASE_SCHEMA
def _release_schema(p, null=_RELEASE_SCHEMA()):
    p.contents.release = null


@_RELEASE_ARRAY
def _release_array(p, alive=_alive, null=_RELEASE_ARRAY()):
    alive.pop(p.contents.private_data, None)
    p.contents.release = null


# polars may drop an imported array at the interpreter's exit, after this
# module's globals are gone: the two callbacks are never freed (a reference
# of their own), or it would call freed code
for _f in (_release_schema, _release_array):
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(_f))
del _f

_capsule = ctypes.pythonapi.PyCapsule_New
_capsule.restype = ctypes.py_object
_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_FORMAT = {"utf8": b"u", "binary": b"z"}


class _Utf8:
    """Strings ``data[offsets[i]:offsets[i+1]]`` (``offsets`` int32, ``data``
    uint8) as one Arrow array, for ``polars.Series(...)`` to import."""

    def __init__(self, offsets, data, kind: str = "utf8"):
        import numpy as np

        self.offsets = np.ascontiguousarray(offsets, dtype=np.int32)
        self.data = np.ascontiguousarray(data, dtype=np.uint8)
        self.kind = kind

    def __arrow_c_array__(self, requested_schema=None):
        schema = _Schema(format=_FORMAT[self.kind], name=b"", flags=2, release=_release_schema)  # (flags 2: nullable)
        bufs = (ctypes.c_void_p * 3)(None, self.offsets.ctypes.data, self.data.ctypes.data if len(self.data) else self.offsets.ctypes.data)
        array = _Array(length=len(self.offsets) - 1, n_buffers=3, buffers=bufs, release=_release_array)
        key = id(array)
        array.private_data = key
        # the structures and buffers live until the consumer calls release (a move: polars does at once)
        _alive[key] = (schema, array, bufs, self.offsets, self.data)
        return (
            _capsule(ctypes.addressof(schema), b"arrow_schema", None),
            _capsule(ctypes.addressof(array), b"arrow_array", None),
        )


def strings(data, offsets, kind: str = "utf8"):
    """A polars String (or Binary) Series of the ranges ``offsets[i] ..
    offsets[i+1]`` of ``data`` (numpy uint8); strings are checked as UTF-8
    by polars (an error when not)."""
    import polars as pl

    return pl.Series(_Utf8(offsets, data, kind))


def ranges(data, starts, ends, pick=None):
    """The strings ``data[starts[i]:ends[i]]`` (ranges in order, not
    overlapping), as a polars String Series; ``pick``: which of them, in
    what order.  Exported as one array whose values alternate range and
    gap, of which the ranges are then gathered."""
    import numpy as np
    import polars as pl

    if len(starts) == 0:
        return pl.Series([], dtype=pl.String)
    offsets = np.empty(2 * len(starts), dtype=np.int32)
    offsets[0::2] = starts
    offsets[1::2] = ends
    alt = strings(data, offsets)
    return alt.gather(np.arange(0, len(offsets) - 1, 2, dtype=np.int64) if pick is None else 2 * np.asarray(pick, dtype=np.int64))


class Encoded(NamedTuple):
    indices: object  # numpy int32: each row's index in ``dictionary``
    dictionary: object  # polars String Series of the distinct values


HASHED = 1 << 17  # from this many rows on, :func:`encode` groups by hashes (a block has 20-60 thousand tokens per role)


def encode(series) -> Encoded:
    """``(indices, dictionary)``: the distinct values of a String Series in
    order of first appearance and each row's index among them (numpy
    int32), as Arrow's ``dictionary_encode`` gives them.  A block's tokens
    (tens of thousands) by a cast to an Enum of polars' ``unique``; a long
    column (a file's names, 500,000 on LUBM 1M) by :func:`_by_hashes`, 1.6x
    faster there and 2x slower on a block's."""
    import numpy as np
    import polars as pl

    if len(series) == 0:
        return Encoded(np.zeros(0, dtype=np.int32), series)
    if series.null_count():
        raise ValueError("a null token")  # (never: tokens are cut from text)
    if len(series) >= HASHED:
        got = _by_hashes(series)
        if got is not None:
            return got
    distinct = series.unique(maintain_order=True)
    return Encoded(series.cast(pl.Enum(distinct)).to_physical().to_numpy().astype(np.int32), distinct)


def _by_hashes(series, check: int = 1 << 16):
    """:func:`encode` by grouping the rows on a 64-bit hash of their strings
    (one stable numpy sort of the hashes), then comparing every row with its
    group's first string, ``check`` rows at a time; None when two strings
    share a hash (never seen, but possible: then the exact way).  Written
    out rather than ``np.unique(..., return_index, return_inverse)``, which
    held twice the transient memory (30 MB for a file's 500,000 names, at
    the reading's peak)."""
    import numpy as np

    n = len(series)
    hashes = series.hash(0).to_numpy()
    perm = np.argsort(hashes, kind="stable")  # (stable: a group's first row is its first appearance)
    new = np.empty(n, dtype=bool)
    new[0] = True
    sorted_hashes = hashes[perm]
    del hashes
    np.not_equal(sorted_hashes[1:], sorted_hashes[:-1], out=new[1:])
    del sorted_hashes
    group = np.cumsum(new, dtype=np.int32)
    group -= 1
    first = perm[new]
    del new
    order = np.argsort(first, kind="stable")  # the groups in order of first appearance
    rank = np.empty(len(order), dtype=np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    indices = np.empty(n, dtype=np.int32)
    indices[perm] = rank[group]
    del perm, group, rank
    distinct = series.gather(first[order])
    del first, order
    for at in range(0, n, check):
        if not (distinct.gather(indices[at : at + check]) == series.slice(at, check)).all():
            return None
    return Encoded(indices, distinct)


def compact(series):
    """``series`` with its strings copied into buffers of their own.  A
    polars string longer than 12 bytes is a view into a shared buffer, so a
    few tokens kept from a block (its distinct names) would keep the whole
    block's text alive: 1 MB a block."""
    import polars as pl

    return series.to_frame("t").select(pl.concat_str([pl.col("t"), pl.lit("")])).to_series()


def matches(series, pattern: str):
    """Which strings of ``series`` match the regular expression (numpy bool)."""
    return series.str.contains(pattern).to_numpy()
