"""The distinct cells of a CSV column typed by kernels: what both Arrow CSV
readers share (connectors/csv_columns.py, ``@bind`` files with
``@mapping``; connectors/fact_csv_columns.py, the CSV of many predicates
``run --format csv`` writes).

A reader dictionary-encodes a column and types its distinct cells once:
plain integers by Arrow's int64 cast, plain decimals by numpy as exact
integer pairs, ISO dates by Arrow's date32 cast on a timeline of days (or a
unit dividing a day); each function gives the value the row readers'
conversion (``csv_files.convert``, ``fact_csv._Terms``) gives the cells it
takes and None for the others, which the reader converts one by one with
its own row reader's function, at its own place.  Time columns and their
intervals are checked here for both (:func:`time_points`,
:func:`empty_intervals`, :func:`blanks`: an empty end is unbounded), and so are the lines of a file whose rows Arrow
refused (:func:`csv_lines`: lines of blanks, ragged rows).
"""

from __future__ import annotations

from chronolog.language.exact_pairs import all_ints  # noqa: F401 (the readers' check, in the language layer)
from fractions import Fraction

from chronolog.language.exact_pairs import PLAIN_INT, pair_values, reduce

INT = PLAIN_INT  # the readers' int, in 64 bits
DECIMAL = r"^-?[0-9]{1,17}\.[0-9]{1,17}$"  # an exact decimal (an int when whole), at most 18 digits in all: numpy's
FIRST_DAY = -719162  # 0001-01-01 in days since 1970-01-01: a date before it is convert's (language/dates.py, by 400-year cycles)


def offsets(arr):
    """Where each cell of a string array starts in its data buffer, and
    where the last ends (its offsets, no copy)."""
    import numpy as np

    return np.frombuffer(arr.buffers()[1], dtype=np.int32)[arr.offset : arr.offset + len(arr) + 1]


def lengths(arr):
    """The byte length of each cell of a string array (its offsets, no copy)."""
    import numpy as np

    return np.diff(offsets(arr))


def matching(dictionary, pattern: str):
    """Which cells of ``dictionary`` match ``pattern``, as numpy bools."""
    import pyarrow.compute as pc

    return pc.match_substring_regex(dictionary, pattern).to_numpy(zero_copy_only=False)


def typed(dictionary, pattern: str, cast) -> list:
    """The values ``cast`` gives the cells matching ``pattern`` (None for the others)."""
    import numpy as np
    import pyarrow.compute as pc

    mask = pc.match_substring_regex(dictionary, pattern)
    out = [None] * len(dictionary)
    at = np.flatnonzero(mask.to_numpy(zero_copy_only=False))
    if len(at):
        for i, v in zip(at.tolist(), cast(dictionary.filter(mask))):
            out[i] = v
    return out


def ints(arr) -> list:
    """The Python ints of cells that match :data:`INT` (Arrow's int64 cast)."""
    import pyarrow as pa

    return arr.cast(pa.int64()).to_numpy(zero_copy_only=False).tolist()


def exact_decimals(dictionary):
    """Plain decimals (``-12.50``) as ``("exact", num, den)``, numpy int64
    in lowest terms, by kernels (the value ``Fraction(digits, 10**k)``
    gives, no Python number per cell: a column of them is an exact value
    column, engine/columns/exact_columns.py); None when a cell is not a
    number or its value holds no pair of 64-bit integers.  Cells of more
    digits or an exponent (Python's floats written by ``repr``: a value
    under 0.1 takes 18 digits after the point, ``1e-05``) are parsed one
    by one, where they are a few (a column of 1M such floats went cell by
    cell whole for 630 of them: 31 s against 1 s)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    plain = pc.match_substring_regex(dictionary, r"^-?[0-9]{1,17}(\.[0-9]{1,17})?$")
    if not pc.all(plain).as_py():
        return _mostly_decimals(dictionary, plain)
    got = _plain_pairs(dictionary)
    return None if got is None else ("exact", *got)


def _plain_pairs(dictionary):
    """``(num, den)`` of plain decimals of at most 18 digits, or None."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    point = pc.find_substring(dictionary, ".").to_numpy(zero_copy_only=False).astype(np.int64)
    length = pc.utf8_length(dictionary).to_numpy(zero_copy_only=False).astype(np.int64)
    k = np.where(point >= 0, length - point - 1, 0)
    try:
        num = pc.replace_substring(dictionary, ".", "").cast(pa.int64()).to_numpy(zero_copy_only=False).astype(np.int64)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None  # more than 18 digits
    return reduce(num, (10**k).astype(np.int64))


# at most this share of a column's distinct cells parsed one by one
_FEW_OTHERS = 0.05


def _mostly_decimals(dictionary, plain):
    """:func:`exact_decimals` of cells most of which are plain decimals
    (``plain``: which), the others parsed by the language's own number
    reader (``parse_number``: what ``convert`` gives a number cell); None
    where the others are many, not numbers, or beyond 64-bit pairs."""
    import numpy as np
    import pyarrow.compute as pc

    from chronolog.language.timeline import parse_number

    mask = pc.fill_null(plain, False).to_numpy(zero_copy_only=False)
    others = np.flatnonzero(~mask)
    if len(others) > max(16, _FEW_OTHERS * len(dictionary)):
        return None
    got = _plain_pairs(dictionary.filter(mask))
    if got is None:
        return None
    num = np.empty(len(dictionary), dtype=np.int64)
    den = np.empty(len(dictionary), dtype=np.int64)
    num[mask], den[mask] = got
    for i, text in zip(others.tolist(), dictionary.take(pc.cast(others, "int64")).to_pylist()):
        try:
            v = Fraction(parse_number(text))
        except (ValueError, TypeError, OverflowError):  # (a name, inf: not a pair)
            return None
        if not (-(2**63) <= v.numerator < 2**63 and v.denominator < 2**63):
            return None
        num[i], den[i] = v.numerator, v.denominator
    return ("exact", num, den)


def decimals(arr):
    """The exact values of cells that are plain decimals (``12.50``: 25/2,
    an int when whole) as Python numbers, or None (more than 18 digits)."""
    got = exact_decimals(arr)
    if got is None:
        return None
    _, num, den = got
    return pair_values(num, den)  # (lowest terms: exact_decimals reduced them)


def days_per_unit(calendar):
    """The time units in a day of ``calendar``'s timeline, or None where a
    unit does not divide a day (or there is no calendar)."""
    if calendar is None:
        return None
    per_day = Fraction(86400) / calendar.unit_seconds
    return int(per_day) if per_day.denominator == 1 else None


def blanks(cells):
    """The blank cells (empty or whitespace alone: ``utf8_is_space`` is
    ``str.isspace``, \\x1c too) of a column of strings (a dictionary one
    too), an Arrow boolean array, or None where none is (or the reader
    parsed the column: numbers, dates).  An empty start or end is
    unbounded (``csv_files.time_cell``).  Cells that cannot be blank (none
    empty, none starting with a blank's first byte) are told by numpy from
    their offsets, without ``pyarrow.compute`` (20 ms of a cold call to
    import: tests/test_start_up.py); 5 ms per 1M cells either way."""
    import pyarrow as pa

    typ = cells.type.value_type if pa.types.is_dictionary(cells.type) else cells.type
    if not (pa.types.is_string(typ) or pa.types.is_large_string(typ)):
        return None
    if pa.types.is_string(cells.type) and not _maybe_blank(cells):
        return None
    import pyarrow.compute as pc

    if typ != cells.type:
        cells = cells.cast(typ)
    blank = pc.or_(pc.equal(cells, ""), pc.utf8_is_space(cells))
    return blank if pc.any(blank).as_py() else None


# the first bytes of the characters str.isspace takes (ASCII blanks, \x1c-\x1f;
# U+0085 and U+00A0 start 0xC2, U+1680 0xE1, U+2000-U+205F 0xE2, U+3000 0xE3)
_BLANK_STARTS = (9, 10, 11, 12, 13, 28, 29, 30, 31, 32, 0xC2, 0xE1, 0xE2, 0xE3)


def _maybe_blank(cells) -> bool:
    """Whether a string column (an array or chunked) has an empty cell or
    one starting with a byte a blank starts with."""
    import numpy as np

    for chunk in getattr(cells, "chunks", [cells]):
        if not len(chunk):
            continue
        starts = offsets(chunk)
        if not np.diff(starts).all():
            return True
        if np.isin(np.frombuffer(chunk.buffers()[2], dtype=np.uint8)[starts[:-1]], _BLANK_STARTS).any():
            return True
    return False


def blanks_written(cells, word: str):
    """``cells`` (strings) with their blank cells (:func:`blanks`) written
    ``word``, or as they are where none is."""
    blank = blanks(cells)
    if blank is None:
        return cells
    import pyarrow.compute as pc

    return pc.if_else(blank, word, cells)


def time_points(dictionary, calendar, dated=None) -> list:
    """The time points of the distinct cells of a start or end column, as
    ``convert(cell, "time", ...)`` gives them: plain integers and decimals
    on a numeric timeline, ISO dates on a calendar of days, date-times in
    whole units of a calendar (``Calendar.whole_points_where``: a column of
    date-times with a few ``+inf`` ends went cell by cell, 2.4 s for
    200,000 rows; ``dated``: its ``(units, read)`` when the caller has
    them); None for each other cell (the reader's ``convert`` reads it, or
    reports it)."""
    import numpy as np
    import pyarrow as pa

    if calendar is not None:
        if dated is None and (pa.types.is_string(dictionary.type) or pa.types.is_large_string(dictionary.type)):
            import polars as pl

            dated = calendar.whole_points_where(pl.Series(pl.from_arrow(dictionary), dtype=pl.String))
        if dated is None:  # (cells that are not text: convert's)
            return [None] * len(dictionary)
        units, read = dated
        return [u if r else None for u, r in zip(units.tolist(), read.tolist())]
    out = typed(dictionary, INT, ints)
    mask = matching(dictionary, DECIMAL)
    if mask.any():
        vals = decimals(dictionary.filter(pa.array(mask)))
        if vals is None:  # (a decimal of more than 18 digits: convert's, the others still typed here)
            import pyarrow.compute as pc

            signs = pc.starts_with(dictionary, "-").to_numpy(zero_copy_only=False)
            digits = pc.utf8_length(dictionary).to_numpy(zero_copy_only=False) - 1 - signs
            mask &= digits <= 18
            vals = decimals(dictionary.filter(pa.array(mask))) if mask.any() else []
        for i, v in zip(np.flatnonzero(mask).tolist(), vals):
            out[i] = v
    return out


def distinct_ints(a):
    """``(distinct values ascending, each row's index among them)`` of an
    int64 array whose range is at most a few times its length, by
    ``bincount`` (no sort, no hash); None for a wider range."""
    import numpy as np

    if not a.size:
        return None
    lo = int(a.min())
    span = int(a.max()) - lo + 1
    if span > 4 * a.size + 1024:
        return None
    off = a - lo
    present = np.flatnonzero(np.bincount(off, minlength=span))
    rank = np.zeros(span, dtype=np.int64)
    rank[present] = np.arange(len(present), dtype=np.int64)
    return present + lo, rank[off]


def int_values(ints, idx):
    """A column of the distinct ints ``ints`` (Python ints, as ``convert``
    gives them) indexed by ``idx``, with the int64 array kept beside (time
    columns: the time scale reads the ints)."""
    from chronolog.language.fact_columns import _Column

    col = _Column(idx, ints.tolist())
    col.ints = ints
    return col


def exact_ints(ints, idx):
    """A term column of the distinct int64 ``ints`` indexed by ``idx``: an
    exact value column (engine/columns/exact_columns.py), no Python int
    coded per distinct value (300,000 distinct integers of a CSV file
    through a rule: 1.35 -> 0.67 s of CPU)."""
    import numpy as np

    from chronolog.language.fact_columns import _ExactColumn

    ints = np.asarray(ints, dtype=np.int64)
    return _ExactColumn(idx, ints, np.ones(len(ints), dtype=np.int64))




def time_keys(col):
    """int64 keys in the order of ``col``'s distinct time values (exact:
    each scaled by the values' common denominator; -inf below and +inf
    above every finite one), and which values are finite; None for a value
    that is none of int, Fraction, ±inf, or keys beyond 62 bits.  Times with
    decimals were checked one distinct interval at a time by ``make`` (a
    Fraction compared with ±inf four times each): 0.1 s for the 50,000
    intervals of 200,000 rows, where integer times took 1 ms."""
    import math

    import numpy as np

    from chronolog.language.timeline import NEG_INF, POS_INF

    ratios = getattr(col, "ratios", None)
    if ratios is not None:  # (over one denominator: the numerators are the keys)
        return ratios.keys(), ratios.finite()
    ints = col.ints if getattr(col, "ints", None) is not None else all_ints(col.values)
    if ints is not None:
        return ints, np.ones(len(ints), dtype=bool)
    vals = col.values.tolist()
    finite = [type(v) is int or isinstance(v, Fraction) for v in vals]
    if not all(f or v in (NEG_INF, POS_INF) for f, v in zip(finite, vals)):
        return None
    rats = [v for f, v in zip(finite, vals) if f]
    dens = [v.denominator for v in rats]
    common = math.lcm(*set(dens)) if dens else 1
    try:
        num = np.array([v.numerator for v in rats], dtype=np.int64)
        factor = np.array([common // d for d in dens], dtype=np.int64)
    except OverflowError:
        return None
    if num.size and float(np.abs(num.astype(np.float64) * factor).max()) >= 2.0**62:
        return None
    finite = np.array(finite, dtype=bool)
    keys = np.where(np.array([v == POS_INF for v in vals], dtype=bool), np.iinfo(np.int64).max, np.iinfo(np.int64).min)
    keys[finite] = num * factor
    return keys, finite


def empty_intervals(lo, hi, lc, hc):
    """``(lc, hc, empty)``: the closedness flags with an infinite end open
    (as ``timeline.make`` makes it), and which rows' intervals are empty
    (numpy bools, or None where none is) -- by exact keys of the start and
    end columns' shared values (:func:`time_keys`), else each distinct
    interval by ``make``."""
    import numpy as np

    got = time_keys(lo)  # (start and end share their values)
    if got is None:
        from chronolog.language.timeline import NEG_INF, POS_INF, make

        fin = np.array([v not in (NEG_INF, POS_INF) for v in lo.values.tolist()], dtype=bool)
        lc, hc = lc & fin[lo.indices], hc & fin[hi.indices]
        m = len(lo.values)
        key = (lo.indices.astype(np.int64) * m + hi.indices) * 4 + lc.astype(np.int64) * 2 + hc
        uniq, inverse = np.unique(key, return_inverse=True)
        empty = np.array([make(lo.values[kk // 4 // m], hi.values[kk // 4 % m], bool(kk & 2), bool(kk & 1)) is None
                          for kk in uniq.tolist()], dtype=bool)
        return lc, hc, (empty[inverse.reshape(-1)] if empty.any() else None)
    keys, finite = got
    lc, hc = lc & finite[lo.indices], hc & finite[hi.indices]
    a, b = keys[lo.indices], keys[hi.indices]
    ok = (a < b) | ((a == b) & lc & hc)
    return lc, hc, (None if bool(ok.all()) else ~ok)


# what leaves a line's cells blank to the csv module and str.strip (ASCII
# blanks, commas, the quotes of empty cells); a line of other blanks
# (U+00A0) counts as filled here, and the row reader then reads it
_BLANK_LINE_BYTES = tuple(b" \t\r\v\f\x1c\x1d\x1e\x1f,\"")


def csv_lines(data: bytes):
    """``(starts, ends, filled, cells)`` of the lines of a CSV file whose
    quotes wrap whole cells (each reader checks its own), as numpy arrays:
    where each line starts and ends (after its line break), whether it has
    a byte that is no blank, comma or quote, and its count of cells (its
    commas outside quotes, plus one); None when a line break is inside
    quotes (its lines are no rows).  2 ms of CPU per 100,000 lines."""
    import numpy as np

    b = np.frombuffer(data, dtype=np.uint8)
    nl = np.flatnonzero(b == 10)
    starts = np.concatenate(([0], nl + 1))
    if starts[-1] == len(b):
        starts = starts[:-1]  # (the line break that ends the last line)
    filled = ~np.isin(b, _BLANK_LINE_BYTES)
    filled[nl] = False
    filled = np.add.reduceat(filled, starts, dtype=np.int64) > 0
    comma = b == 44
    if b'"' in data:
        inside = (np.cumsum(b == 34, dtype=np.uint8) & 1) == 1  # (an odd count of quotes before: inside a quoted cell)
        if bool(inside[nl].any()):
            return None
        comma &= ~inside
        del inside
    cells = np.add.reduceat(comma, starts, dtype=np.int64) + 1
    return starts, np.append(starts[1:], len(b)), filled, cells


def lines_kept(data: bytes, starts, ends, keep):
    """The bytes of the lines ``keep`` (their indices, in order) of ``data``:
    a slice per run of consecutive lines."""
    import numpy as np

    if not len(keep):
        return b""
    run = np.flatnonzero(np.diff(keep) != 1)
    firsts, lasts = keep[np.concatenate(([0], run + 1))], keep[np.append(run, len(keep) - 1)]
    view = memoryview(data)
    return b"".join(view[int(starts[f]) : int(ends[t])] for f, t in zip(firsts.tolist(), lasts.tolist()))
