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


SHORT = 7  # bytes: a token of at most this many is its own 64-bit key (its bytes and its length)


def encode_ranges(data, starts, ends, pick=None) -> Encoded:
    """:func:`encode` of :func:`ranges` ``(data, starts, ends, pick, checked=True)``
    without a string per row: when every range has at most SHORT bytes
    (names, numbers and times as facts write them), each is keyed by one
    64-bit word of its bytes and length, exact, and only the distinct ones
    become strings.  Encoding a block's 270,000 argument tokens as strings
    (views, a hash of each, an Enum cast) was a third of reading facts of
    12 arguments (issue 37); as words, polars' ``arg_unique`` and a table of
    the distinct words (:func:`_positions`) take less than half of that
    (25 against 10 ms a block).  Longer ranges are encoded as strings
    and both merged in order of first appearance, as :func:`encode` gives."""
    import numpy as np

    starts, ends = np.asarray(starts), np.asarray(ends)
    if pick is not None:
        pick = np.asarray(pick, dtype=np.int64)
        starts, ends = starts[pick], ends[pick]
    lens = np.subtract(ends, starts, dtype=np.int64)
    short = lens <= SHORT
    if len(starts) == 0 or not short.any():
        return encode(ranges(data, starts, ends, checked=True))
    if short.all():
        return _encode_keys(_keys(data, starts, lens), data, starts, ends)
    # (both kinds: each encoded its way, then one dictionary in order of first appearance)
    rows = [np.flatnonzero(short), np.flatnonzero(~short)]
    parts = [_encode_keys(_keys(data, starts[rows[0]], lens[rows[0]]), data, starts[rows[0]], ends[rows[0]]),
             encode(ranges(data, starts[rows[1]], ends[rows[1]], checked=True))]
    firsts = [r[_first_rows(p.indices, len(p.dictionary))] for r, p in zip(rows, parts)]
    order = np.argsort(np.concatenate(firsts), kind="stable")
    rank = np.empty(len(order), dtype=np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    indices = np.empty(len(starts), dtype=np.int32)
    indices[rows[0]] = rank[parts[0].indices]
    indices[rows[1]] = rank[len(parts[0].dictionary) + parts[1].indices]
    dictionary = _pl().concat([parts[0].dictionary, parts[1].dictionary], rechunk=True).gather(order)
    return Encoded(indices, dictionary)


def _keys(data, starts, lens):
    """The 64-bit key of each range of at most SHORT bytes: its bytes (the
    low ones, little-endian) and its length in the top byte."""
    import numpy as np

    global _KEEP
    if _KEEP is None:
        _KEEP = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
    size = len(data)
    last = max(size - 8, 0)  # (a range from here on reads its word from a zero-padded copy of the end)
    tail = starts > last if size >= 8 else np.ones(len(starts), dtype=bool)
    if size >= 8:  # (a gather of 8-byte items that start at every byte)
        keys = np.ndarray((size - 7,), dtype="<u8", buffer=data, strides=(1,))[np.minimum(starts, last)]
    else:
        keys = np.empty(len(starts), dtype=np.uint64)
    if tail.any():
        padded = np.zeros(16, dtype=np.uint8)
        padded[: size - last] = data[last:]
        keys[tail] = np.ndarray((9,), dtype="<u8", buffer=padded, strides=(1,))[starts[tail] - last]
    keys &= _KEEP[lens]
    keys |= lens.astype(np.uint64) << np.uint64(56)
    return keys


def _encode_keys(keys, data, starts, ends) -> Encoded:
    """:func:`encode` of ranges by their exact keys (:func:`_keys`)."""
    import numpy as np

    pl = _pl()
    col = pl.Series(keys)
    first = np.sort(col.arg_unique().to_numpy())  # (each distinct key's first row: in order of first appearance)
    if len(first) == len(keys):
        indices = np.arange(len(keys), dtype=np.int32)
    else:
        indices = _positions(keys[first], keys)
    return Encoded(indices, _import(data, starts[first], ends[first], "utf8"))


# odd 64-bit multipliers of :func:`_positions`' rounds (any odd ones do)
_MULTIPLIERS = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93, 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53)


def _positions(distinct, keys):
    """Each key's position in ``distinct`` (numpy uint64, distinct, holding
    every key), as int32.  A table of 4-8 slots a distinct key, filled in
    rounds: a round hashes the keys left by a multiplier to a slot, and the
    distinct keys alone in their slot settle their rows (a key's slot holds
    its own distinct key or none: no comparison); the rest, about a fifth,
    go to the next round.  Written
    out because it is the step a block's tokens pay per row: a polars join
    of the keys cost 1.5-2x this (5.5 against 2.5-4 ms for 270,000 tokens)."""
    import numpy as np

    n_distinct = len(distinct)
    bits = max(n_distinct.bit_length() + 2, 6)
    shift = np.uint64(64 - bits)
    d_left = np.arange(n_distinct, dtype=np.int32)
    out, rows = None, None  # (the rows not settled yet; None: all)
    for m in _MULTIPLIERS:
        m = np.uint64(m)
        d_slot = (distinct[d_left] * m) >> shift
        alone = np.bincount(d_slot.astype(np.int64), minlength=1 << bits)[d_slot] == 1
        table = np.full(1 << bits, -1, dtype=np.int32)  # (-1: a slot of no distinct key or of several)
        table[d_slot[alone]] = d_left[alone]
        got = table[((keys if rows is None else keys[rows]) * m) >> shift]
        ok = got >= 0
        if rows is None:
            out, rows = got, np.flatnonzero(~ok)
        else:
            out[rows[ok]] = got[ok]
            rows = rows[~ok]
        d_left = d_left[~alone]
        if not len(rows):
            return out
    pl = _pl()
    table = pl.DataFrame({"k": distinct, "i": np.arange(n_distinct, dtype=np.int32)})
    out[rows] = pl.DataFrame({"k": keys[rows]}).join(table, on="k", how="left", maintain_order="left")["i"].to_numpy()
    return out
    # (left after every round: a join settles them)
    pl = _pl()
    table = pl.DataFrame({"k": distinct, "i": np.arange(len(distinct), dtype=np.int32)})
    out[rows] = pl.DataFrame({"k": keys[rows]}).join(table, on="k", how="left", maintain_order="left")["i"].to_numpy()
    return out


def _first_rows(indices, distinct: int):
    """The first row of each of ``distinct`` values given each row's index."""
    import numpy as np

    first = np.full(distinct, len(indices), dtype=np.int64)
    np.minimum.at(first, indices, np.arange(len(indices)))
    return first


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


def encode_any_order(series) -> Encoded:
    """:func:`encode` with the distinct values in no particular order (that
    of their 64-bit hashes): one numpy sort of the hashes, then every row
    compared with its group's string at once; the exact :func:`encode`
    when two strings share a hash.  For long columns where the order does
    not matter (a rule's 1M computed strings, a table's string columns):
    0.05 s of CPU where :func:`_by_hashes`' order of first appearance
    took 0.17 and Arrow's ``dictionary_encode`` 0.14-0.2."""
    import numpy as np

    n = len(series)
    if n == 0 or series.null_count():
        return encode(series)
    h = series.hash(0).to_numpy()
    order = np.argsort(h)
    hs = h[order]
    first = np.empty(n, dtype=bool)
    first[0] = True
    np.not_equal(hs[1:], hs[:-1], out=first[1:])
    indices = np.empty(n, dtype=np.int32)
    indices[order] = np.cumsum(first, dtype=np.int32) - 1
    dictionary = series.gather(order[first])
    if not (dictionary.gather(indices) == series).all():  # (two strings of one hash: never seen)
        return encode(series)
    return Encoded(indices, dictionary)


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
