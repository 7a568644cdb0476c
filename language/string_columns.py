"""Polars string columns cut from a byte buffer, and dictionary-encoded.

The fact reader (fact_columns.py) finds every line, token and separator of
a block of text by numpy over its bytes; what it needs from a string
library is a column of those tokens and their distinct values.  Polars (the
columnar executor's library, loaded anyway) has the kernels, but no public
constructor of a string column from a buffer and its ranges, and cutting
each token by ``bin.slice`` cost 3x Arrow's ``take`` (13 against 4 ms for a
1 MB block's 160,000 tokens).  Polars does read any object that exports the
Arrow C data interface (``__arrow_c_array__``, the PyCapsule protocol).
Its strings are Arrow string *views* (16 bytes each: the length, and the
string itself when it has at most 12 bytes, else its first 4 bytes and
where it lies in a buffer), so :class:`_Views` exports views that numpy
builds (:func:`views`) and that point into the block itself: polars takes
them as they are, without a copy of the text or a conversion (the
offsets-and-bytes layout it had before was converted to views on import,
and each line and token range cut by a ``gather``).  The export is a few
ctypes structures written by hand because the library that has them,
pyarrow, held 35-60 MB of a ``chronolog run`` that reads and prints text
by its import alone.
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
_FORMAT = {"utf8": b"vu", "binary": b"vz"}


class _Views:
    """Strings as one Arrow string-view array (``views``: :func:`views` of
    ``data``), for ``polars.Series(...)`` to import.  Polars holds strings
    as views itself, so it takes the buffers as they are: no copy of the
    text, and ``data`` stays alive (in ``_alive``) until polars drops the
    last string that points into it (then it calls ``release``)."""

    def __init__(self, views, data, kind: str = "utf8"):
        import numpy as np

        self.views, self.data, self.kind = views, data, kind
        self.sizes = np.array([len(data)], dtype=np.int64)  # (the variadic buffers' lengths: Arrow's last buffer)

    def __arrow_c_array__(self, requested_schema=None):
        schema = _Schema(format=_FORMAT[self.kind], name=b"", flags=2, release=_release_schema)  # (flags 2: nullable)
        bufs = (ctypes.c_void_p * 4)(None, self.views.ctypes.data, self.data.ctypes.data, self.sizes.ctypes.data)
        array = _Array(length=len(self.views), n_buffers=4, buffers=bufs, release=_release_array)
        key = id(array)
        array.private_data = key
        # the structures and buffers live until the consumer calls release
        _alive[key] = (schema, array, bufs, self.views, self.data, self.sizes)
        return (
            _capsule(ctypes.addressof(schema), b"arrow_schema", None),
            _capsule(ctypes.addressof(array), b"arrow_array", None),
        )


_KEEP = None  # (made on first use: numpy is imported lazily)


def views(data, starts, ends):
    """The Arrow string views of the ranges ``data[starts[i]:ends[i]]``
    (``data`` numpy uint8, at most 2 GB): 16 bytes each, the length, then
    up to 12 bytes inline (zero-padded), or for a longer string its first
    4 bytes, buffer 0 and its offset.  By numpy: one gather of the 16 bytes
    from 4 before every start (a 16-byte item at each byte of ``data``,
    whose first 4 are then the length), masked by the lengths."""
    global _KEEP
    import numpy as np

    if _KEEP is None:
        _KEEP = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)  # the low k bytes
    starts = np.asarray(starts)
    if starts.dtype.kind != "i":  # (signed: the starts are compared with, and moved before, the data's ends)
        starts = starts.astype(np.int64)
    n, size = len(starts), len(data)
    if n == 0:
        return np.empty(0, dtype="V16")
    lens = np.subtract(ends, starts, dtype=np.int32)
    head = starts < 4
    tail = starts > size - 12
    if size >= 16:
        at = starts - 4
        np.clip(at, 0, size - 16, out=at)
        out = np.ndarray((size - 15,), dtype="V16", buffer=data, strides=(1,))[at]
        del at
    else:
        out = np.empty(n, dtype="V16")
    for edge in (head, tail & ~head):  # (the first 4 and last 11 bytes: from a padded copy of them)
        if edge.any():
            out[edge] = _windows(data, starts[edge])
    cells = out.view(np.int32).reshape(n, 4)
    cells[:, 0] = lens
    words = out.view(np.uint64).reshape(n, 2)  # (little-endian: a string's first bytes are a word's low bytes)
    words[:, 0] &= _KEEP[4 + np.clip(lens, 0, 4)]
    words[:, 1] &= _KEEP[np.clip(lens - 4, 0, 8)]
    long = np.flatnonzero(lens > 12)
    if len(long):
        cells[long, 2] = 0
        cells[long, 3] = starts[long]
    return out


def _windows(data, starts):
    """The 16 bytes from 4 before each of ``starts`` (close together), zero
    outside ``data``: from a padded copy of that stretch."""
    import numpy as np

    a, b = int(starts.min()), int(starts.max())
    pad = np.zeros(b - a + 16, dtype=np.uint8)
    lo, hi = max(a - 4, 0), min(b + 12, len(data))
    pad[lo - (a - 4) : hi - (a - 4)] = data[lo:hi]
    return np.ndarray((b - a + 1,), dtype="V16", buffer=pad, strides=(1,))[starts - a]


def strings(data, offsets, kind: str = "utf8"):
    """A polars String (or Binary) Series of the ranges ``offsets[i] ..
    offsets[i+1]`` of ``data`` (numpy uint8); strings are checked as UTF-8
    by polars (an error when not)."""
    import numpy as np

    offsets = np.asarray(offsets)
    binary = _import(data, offsets[:-1], offsets[1:], "binary")
    return binary if kind == "binary" else binary.cast(_pl().String)


def _import(data, starts, ends, kind):
    import numpy as np

    pl = _pl()
    if len(starts) == 0:
        return pl.Series([], dtype=pl.String if kind == "utf8" else pl.Binary)
    data = np.ascontiguousarray(data, dtype=np.uint8)
    return pl.Series(_Views(views(data, starts, ends), data, kind))


def _pl():
    import polars

    return polars


def ranges(data, starts, ends, pick=None, checked: bool = False):
    """The strings ``data[starts[i]:ends[i]]`` as a polars String Series
    that points into ``data`` (no copy of the text); ``pick``: which of
    them, in what order.  ``checked``: the caller knows them to be UTF-8
    (``data`` is, and they are cut at ASCII bytes); otherwise ASCII data is
    taken as it is and polars checks the strings of other data (an error
    when one is not UTF-8)."""
    import numpy as np

    if pick is not None:
        pick = np.asarray(pick, dtype=np.int64)
        starts, ends = np.asarray(starts)[pick], np.asarray(ends)[pick]
    if checked or not (np.asarray(data) >= 128).any():
        return _import(data, starts, ends, "utf8")
    return _import(data, starts, ends, "binary").cast(_pl().String)


class Encoded(NamedTuple):
    indices: object  # numpy int32: each row's index in ``dictionary``
    dictionary: object  # polars String Series of the distinct values


HASHED = 1 << 17  # from this many rows on, :func:`encode` of mostly distinct values groups by hashes


def encode(series, mostly_distinct: bool = False) -> Encoded:
    """``(indices, dictionary)``: the distinct values of a String Series in
    order of first appearance and each row's index among them (numpy
    int32), as Arrow's ``dictionary_encode`` gives them.  A block's tokens
    by a cast to an Enum of polars' ``unique``, or a join on it when most
    are distinct; a long column the caller knows to be ``mostly_distinct``
    (a file's names, 500,000 on LUBM 1M) by :func:`_by_hashes`,
    1.6x faster there and 1.5-2x slower on a block's tokens, however many
    (12 arguments a line: 280,000 tokens of 6,000 values, 36 against 22 ms)."""
    import numpy as np
    import polars as pl

    if len(series) == 0:
        return Encoded(np.zeros(0, dtype=np.int32), series)
    if series.null_count():
        raise ValueError("a null token")  # (never: tokens are cut from text)
    if mostly_distinct and len(series) >= HASHED:
        got = _by_hashes(series)
        if got is not None:
            return got
    distinct = series.unique(maintain_order=True)
    if len(distinct) * 4 > len(series):  # mostly distinct (names): a join on the distinct values'
        # positions, where an Enum of them costs more to build than it saves
        # (a retraction's 17,600 arguments, 15,800 distinct: 2.1 -> 1.2 ms; a block's 70,000: 8.1 -> 4.8 ms)
        at = distinct.to_frame("t").with_row_index("i")
        joined = series.to_frame("t").join(at, on="t", how="left", maintain_order="left")
        return Encoded(joined["i"].to_numpy().astype(np.int32), distinct)
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
