"""Fact files read by kernels: numpy over the text's bytes, polars strings.

The line reader (:func:`.facts.read_fact_rows`) spends a few microseconds of
Python per line.  Here a block of the file is a numpy byte array: its lines
are the ranges between newlines, one regular-expression pass (polars'
``str.contains``) says which lines have the simple form the kernels read,
and the positions of ``@``, ``(`` and ``,`` cut those into tokens (or, on
lines with blanks and in the MeTeoR dialect, polars' string splits and
trims do).  Each token role becomes one polars string column
(string_columns.py) and is dictionary-encoded, so only its *distinct*
tokens are converted in Python, by the same functions as the line reader
(exact numbers, dates on a calendar timeline).  No pyarrow: a run that
reads text and prints text never imports it (its import alone held 35-60
MB of such a run; docs/design.md).

Quoted strings are read here too: in a block whose strings hold
separators, blanks or ``%``, those bytes are masked inside strings
(:func:`_mask`), so a string is one token to the pattern and the cuts; a
comment after a fact is cut off (:func:`_uncomment`).  Whatever the kernels
cannot read (repeating facts ``every P``, several statements on one line,
bad syntax) goes to the exact parser with its original line and column, so
an error keeps its ``file:line:column`` (``parsed_lines`` counts them).  Several statements on one line are cut by one linear
scan that respects strings and brackets, then read like lines; nothing is
quadratic in the length of a line.

The result, :class:`FactColumns`, holds per predicate the dictionary-encoded
columns (indices + converted distinct values): ``rows()`` gives the
:class:`~.facts.FactRows` the row engine loads, ``table(pred)`` an Arrow table
in the layout of ``engine/arrow.py`` (Arrow-only: for the API's tables).
"""

from __future__ import annotations

import re

from . import ast
from .errors import ChronologError
from .facts import _EXP, FactRows, _IDENT, _PRED_OK, _number, _slow_fact, _value
from .exact_pairs import PLAIN_INT
from .nulls import Null
from .string_columns import _pl, compact, encode, encode_ranges, matches, ranges, strings  # (numpy and polars: imported on first use)
from .timeline import NEG_INF, POS_INF, make, parse_number

BLOCK = 1 << 20  # bytes of text per kernel pass: bounds the memory of the pass (1 MB: as fast as 4 or 16 MB, lower peak)

_END = r"[ \t\r]*$"
_TOK = r"[^,\s\[\]()]+"
_INTERVAL = (
    rf"@[ \t]*(?:(?P<lb>[\[(])[ \t]*(?P<lo>{_TOK})[ \t]*,[ \t]*(?P<hi>{_TOK})[ \t]*(?P<rb>[\])])"
    r"|(?P<pt>[0-9+\-.][^\s\[\]()%,@\"]*?))"
)
# a quoted string (the grammar's STRING) without the bytes the kernels cut
# at: in a block with quotes, those inside strings are masked (_mask), so a
# string holding them matches too
_STR = r'"(?:[^"\\\n,()@%\[\]]|\\[^\n,()@%\[\]])*"'
# what the kernels read; everything else goes to the exact parser
_PATTERNS = {
    "vadalog": (
        r"^(?P<ws>[ \t]*)(?P<pred>[a-z][A-Za-z0-9_]*)[ \t]*(?P<targs>\((?:[^()\"%@\[\]\\]|" + _STR + r")*\))?[ \t]*" + _INTERVAL + r"[ \t]*\.?" + _END
    ),
    "meteor": (
        r"^(?P<ws>[ \t]*)(?P<pred>[A-Za-z_][A-Za-z0-9_]*(?::[A-Za-z0-9_]+)*)[ \t]*(?P<targs>\((?:[^()@\"'\[\]\\]|" + _STR + r")*\))?[ \t]*"
        + _INTERVAL
        + r"[ \t]*\.?"
        + _END
    ),
}
# the same for a block without a quote: 1.5x faster a match than with the
# strings' alternative (which could match nothing there)
_PLAIN = {
    "vadalog": r"^(?P<ws>[ \t]*)(?P<pred>[a-z][A-Za-z0-9_]*)[ \t]*(?P<targs>\([^()\"%@\[\]]*\))?[ \t]*" + _INTERVAL + r"[ \t]*\.?" + _END,
    "meteor": (
        r"^(?P<ws>[ \t]*)(?P<pred>[A-Za-z_][A-Za-z0-9_]*(?::[A-Za-z0-9_]+)*)[ \t]*(?P<targs>\([^()@\"'\[\]]*\))?[ \t]*"
        + _INTERVAL
        + r"[ \t]*\.?"
        + _END
    ),
}


def _pattern(dialect: str, quotes: bool, program: bool = False) -> str:
    """The kernels' pattern of a block (``quotes``: it holds a quote); in a
    ``program`` a fact ends with its ``.`` (the grammar's rule)."""
    p = (_PATTERNS if quotes else _PLAIN)[dialect]
    return p[: -len(_END) - 3] + r"\." + _END if program else p


class _Fallback(Exception):
    """The file needs the line reader (one predicate with two arities: its
    error message names both places)."""


def _vadalog_time(tok):
    v = _number(tok)
    if v is None and _EXP.match(tok):  # (1e3: as the grammar's DECIMAL)
        try:
            v = parse_number(tok)
        except ValueError:
            return None
    return v


def _meteor_time(tok):
    """As the MeTeoR reader's regular expression: plain decimals and inf
    (``1/3`` and exponents go to its grammar)."""
    from .meteor import _BOUND
    from .timeline import parse_number

    if re.fullmatch(_BOUND, tok) is None:
        return None
    try:
        v = parse_number(tok)
    except ValueError:
        return None
    return None if type(v) is float and v not in (POS_INF, NEG_INF) else v


def _meteor_term(tok):
    from .meteor import _arg_value

    if tok[:1] == '"':  # a quoted string, as the vadalog reader's
        return _value(tok, _IDENT.match)
    v = _arg_value(tok)
    if v == tok and tok[:1] in "0123456789+-.":
        return None  # (like a number but not one, "1/0": the line's reader decides, by its grammar when the line has a string)
    return v


class _Column:
    """One dictionary-encoded column: ``indices`` (numpy) into ``values``
    (converted distinct tokens, a numpy object array, or float64 for a
    column of binary floats): decoding shares the value objects instead of
    making one per fact."""

    __slots__ = ("indices", "values", "ints")

    def __init__(self, indices, values):
        import numpy as np

        self.indices = indices
        self.ints = None  # the values as int64 when a kernel read them as such (csv_columns.py)
        if not isinstance(values, np.ndarray):
            arr = np.empty(len(values), dtype=object)
            arr[:] = values
            values = arr
        self.values = values

    @classmethod
    def of(cls, indices, values, ints=None) -> "_Column":
        """A column of ``values`` that are a numpy array already (a part per
        predicate and block: no checks); ``ints``: the values as int64."""
        col = cls.__new__(cls)
        col.indices, col.values, col.ints = indices, values, ints
        return col

    def decoded(self) -> list:
        return self.values.take(self.indices).tolist()


class _NameColumn(_Column):
    """A column of strings given as Arrow (connectors/table_columns.py):
    ``indices`` into ``names``, its distinct strings as a polars String
    Series, coded by the run's Dictionary with a join
    (encoding.Dictionary.code_names), no Python string per value; the
    Python ``values`` are made only when rows ask."""

    __slots__ = ("names", "_values")

    def __init__(self, indices, names):
        self.indices, self.names, self.ints, self._values = indices, names, None, None

    @property
    def values(self):
        if self._values is None:
            import numpy as np

            arr = np.empty(len(self.names), dtype=object)
            arr[:] = self.names.to_list()
            self._values = arr
        return self._values

    @values.setter
    def values(self, values) -> None:
        self._values = values


class TimeRatios:
    """The distinct time values of a table's or a block's start and end
    columns as exact fractions over one denominator, ``num / den`` (numpy
    int64 over the least common denominator, a Python int), as instants
    between a timeline's units come (``Calendar.unit_ratios``) and decimal
    times: the columnar executor scales ``num`` by numpy
    (engine/columns/given.py); the values (ints and Fractions) are made
    once, only when rows ask (a Fraction per distinct instant: 2.5 s of a
    million millisecond ticks on a timeline of minutes).  ``inf`` (int8:
    -1, 0, +1 per value, or None: all finite) marks the unbounded ends, a
    table's nulls and infinities and a file's infinity words, ``num`` 0
    there (facts valid until further notice sent a table to the row
    reader: 4 s a million rows, not 0.5)."""

    __slots__ = ("num", "den", "inf", "_values")

    def __init__(self, num, den: int, inf=None):
        self.num, self.den, self.inf, self._values = num, den, inf, None

    def __len__(self) -> int:
        return len(self.num)

    def finite(self):
        """Which values are finite (numpy bools)."""
        import numpy as np

        return np.ones(len(self.num), dtype=bool) if self.inf is None else self.inf == 0

    def keys(self):
        """int64 keys in the values' order: the numerators, -inf below and
        +inf above every one."""
        import numpy as np

        if self.inf is None:
            return self.num
        low, high = np.iinfo(np.int64).min, np.iinfo(np.int64).max
        return np.where(self.inf == 0, self.num, np.where(self.inf > 0, high, low))

    def values(self):
        if self._values is None:
            from fractions import Fraction

            import numpy as np

            from .timeline import NEG_INF, POS_INF

            den = self.den
            arr = np.empty(len(self.num), dtype=object)
            arr[:] = [Fraction(a, den) if a % den else a // den for a in self.num.tolist()]
            if self.inf is not None:
                arr[self.inf < 0], arr[self.inf > 0] = NEG_INF, POS_INF
            self._values = arr
        return self._values

    def value(self, i: int):
        """The ``i``-th value alone (a proof reads a few)."""
        from fractions import Fraction

        from .timeline import NEG_INF, POS_INF, normalize

        if self.inf is not None and self.inf[i]:
            return NEG_INF if self.inf[i] < 0 else POS_INF
        return normalize(Fraction(int(self.num[i]), self.den))

    def hull(self):
        """The least and greatest value (None: none)."""
        from fractions import Fraction

        from .timeline import NEG_INF, POS_INF, normalize

        if not len(self.num):
            return None
        num = self.num if self.inf is None else self.num[self.inf == 0]
        bounds = [normalize(Fraction(int(f()), self.den)) for f in (num.min, num.max)] if len(num) else [POS_INF, NEG_INF]  # (none finite: the infinities below)
        if self.inf is not None:
            bounds[0] = NEG_INF if (self.inf < 0).any() else bounds[0]
            bounds[1] = POS_INF if (self.inf > 0).any() else bounds[1]
        return tuple(bounds)


class _RatioColumn(_Column):
    """A start or end column whose distinct values are :class:`TimeRatios`
    (the start and end columns of one table share them)."""

    __slots__ = ("ratios",)

    def __init__(self, indices, ratios: TimeRatios):
        self.indices, self.ratios, self.ints = indices, ratios, None

    @property
    def values(self):
        return self.ratios.values()


class _ExactColumn:
    """A column of exact decimals read by kernels: ``indices`` into the
    distinct values ``num / den`` (numpy int64, lowest terms).  The columnar
    executor takes them as an exact value column
    (engine/columns/exact_columns.py) without a Python number per cell; the
    values (ints and Fractions, as ``convert`` gives them) are made only
    when rows ask."""

    __slots__ = ("indices", "num", "den", "_values")

    def __init__(self, indices, num, den):
        self.indices, self.num, self.den = indices, num, den
        self._values = None

    @property
    def values(self):
        if self._values is None:
            from fractions import Fraction

            import numpy as np

            arr = np.empty(len(self.num), dtype=object)
            arr[:] = [a if b == 1 else Fraction(a, b) for a, b in zip(self.num.tolist(), self.den.tolist())]
            self._values = arr
        return self._values

    def decoded(self) -> list:
        return self.values.take(self.indices).tolist()


class _CodedColumn:
    """A term column coded by a run's term Dictionary
    (engine/columns/encoding.py): ``indices`` into ``codes``, the codes of
    the block's distinct values.  The values live once, in the Dictionary."""

    __slots__ = ("indices", "codes", "terms")

    def __init__(self, indices, codes, terms):
        codes = _int32(codes)  # kept until the run ends: 4 bytes a code
        self.indices, self.codes, self.terms = indices, codes, terms

    @classmethod
    def of(cls, indices, codes, terms) -> "_CodedColumn":
        """A column of ``codes`` that are :func:`_int32` already (a part per
        predicate and block: no checks)."""
        col = cls.__new__(cls)
        col.indices, col.codes, col.terms = indices, codes, terms
        return col

    @property
    def values(self):
        import numpy as np

        codes = self.codes
        arr = np.empty(len(codes), dtype=object)
        if len(codes) and codes.min() < 0:
            vals = self.terms.values
            arr[:] = [None if c < 0 else vals[c] for c in codes.tolist()]
        else:
            arr[:] = self.terms.values.take(codes)
        return arr

    def decoded(self) -> list:
        if len(self.indices) >= len(self.codes):
            return self.values.take(self.indices).tolist()
        # (fewer facts than the block's codes: a predicate's few facts among a
        # block's many names; decoding every name per predicate was quadratic)
        codes = self.codes[self.indices]
        if len(codes) and codes.min() < 0:
            vals = self.terms.values
            return [None if c < 0 else vals[c] for c in codes.tolist()]
        return self.terms.values.take(codes)


class _Block:
    """A block's facts coded by the run's dictionary, in predicate order
    (``at``: where each predicate's rows start; ``width``, ``named``: its
    width, and per argument whether that column of it is names), for its
    predicates' :class:`_Part` views: a name column's ``name_idx`` into the
    block's distinct tokens (``names``, coded later by :func:`_code_names`
    into ``name_codes``), a value column's ``value_idx`` into
    ``value_codes`` (coded after the names: :func:`_code_terms`); time
    indices into ``times``, closedness."""

    __slots__ = ("at", "width", "named", "name_idx", "names", "name_codes", "value_idx", "value_codes", "terms", "times",
                 "time_ints", "lo", "hi", "lc", "hc", "exact", "num", "den")

    def __init__(self, at, width, named, name_idx, names, value_idx, value_codes, terms, times, lo, hi, lc, hc, time_ints=None):
        self.at, self.width, self.named = at, width, named
        self.name_idx, self.names, self.name_codes = name_idx, names, None
        self.value_idx, self.value_codes, self.terms = value_idx, value_codes, terms
        self.times, self.lo, self.hi, self.lc, self.hc = times, lo, hi, lc, hc
        self.time_ints = time_ints  # the times as int64 when all are whole (_read_times)
        # (``times``: the distinct times' values, or their TimeRatios where they fall between units)
        # per argument, per predicate: its column exact decimals (_ExactColumn over the value
        # tokens' pairs ``num / den``), or None: every value column coded (_exact_columns)
        self.exact, self.num, self.den = None, None, None

    def columns(self, k: int, a: int, b: int) -> list:
        """The term columns of predicate ``k`` (rows ``a:b``)."""
        out, named, terms = [], self.named, self.terms
        exact = self.exact
        for j in range(self.width[k]):
            if not named[j][k]:
                if exact is not None and exact[j] is not None and exact[j][k]:
                    out.append(_ExactColumn(self.value_idx[j][a:b], self.num, self.den))
                    continue
                out.append(_CodedColumn.of(self.value_idx[j][a:b], self.value_codes, terms))
            elif self.name_codes is None:  # (names not coded yet: while the file is read)
                out.append(_Names(self.name_idx[j][a:b], self.names))
            else:
                out.append(_CodedColumn.of(self.name_idx[j][a:b], self.name_codes, terms))
        return out

    def time_column(self, indices):
        """A start or end column of the block's times at ``indices``."""
        if type(self.times) is TimeRatios:
            return _RatioColumn(indices, self.times)
        return _Column.of(indices, self.times, self.time_ints)

    def item(self, k: int, i: int):
        a, b = self.at[k], self.at[k + 1]
        if i == 0:
            return self.columns(k, a, b)
        if i == 1 or i == 2:
            return self.time_column((self.lo if i == 1 else self.hi)[a:b])
        return (self.lc if i == 3 else self.hc)[a:b]


class _Part:
    """One predicate's facts of a :class:`_Block` (its ``k``-th predicate):
    reads as the tuple ``(term columns, lo, hi, lc, hc)`` of any other part,
    each item made when read."""

    __slots__ = ("block", "k")

    def __init__(self, block, k):
        self.block, self.k = block, k

    def __len__(self) -> int:
        return 5

    def __getitem__(self, i):
        if not -5 <= i < 5:
            raise IndexError(i)
        return self.block.item(self.k, i % 5)

    def __iter__(self):
        block, k = self.block, self.k
        a, b = block.at[k], block.at[k + 1]
        return iter((block.columns(k, a, b), block.time_column(block.lo[a:b]), block.time_column(block.hi[a:b]),
                     block.lc[a:b], block.hc[a:b]))

    @property
    def width(self) -> int:
        return self.block.width[self.k]

    @property
    def size(self) -> int:
        return self.block.at[self.k + 1] - self.block.at[self.k]


def _width(part) -> int:
    """How many terms the facts of ``part`` have (a _Part's: no column made)."""
    return part.width if type(part) is _Part else len(part[0])


def _size(part) -> int:
    """How many facts ``part`` holds."""
    return part.size if type(part) is _Part else len(part[3])


def _int32(codes):
    """``codes`` as int32 when they fit (a copy only when not int32 already)."""
    import numpy as np

    if codes.dtype != np.int32 and len(codes) and -(1 << 31) <= codes.min() and codes.max() < 1 << 31:
        return codes.astype(np.int32)
    return codes


def _codes(vals: list, terms):
    """Codes of ``vals`` in ``terms``; -1 for None (a token no kept fact uses)."""
    import numpy as np

    if None not in vals:
        return terms.code_all(vals)
    out = np.full(len(vals), -1, dtype=np.int64)
    at = [i for i, v in enumerate(vals) if v is not None]
    out[at] = terms.code_all([vals[i] for i in at])
    return out


class FactColumns:
    """Facts read by kernels, per predicate, plus the facts the exact parser
    read (``slow``); :meth:`rows` and :meth:`table` give both together."""

    def __init__(self):
        self.parts: dict = {}  # pred -> [(term columns, lo, hi, lc list, hc list)]
        self.positions: dict = {}
        self.slow = FactRows()
        # token -> value for the whole file: one object per distinct constant
        # and time point, however many blocks, predicates and columns use it
        self.term_memo: dict = {}
        self.terms = None  # a run's term Dictionary: term columns are coded as read
        self.pending_names = 0  # name and value tokens not coded yet (_Names columns; value_blocks)
        self.name_blocks: list = []  # the _Blocks whose names are not coded yet
        self.value_blocks: list = []  # (block, its value tokens' values) not coded yet: coded after the names
        # share one object per distinct name across blocks (for rows built
        # from the columns); the columnar executor codes names without it
        self.share = True
        self.time_memo: dict = {}
        self.iv_memo: dict = {}  # (lo, hi, lc, hc) -> the one shared tuple
        # read from a table in memory (given to reason, or a Spark task's
        # input), not from a file: the auto executor choice counts them
        # apart (planner/backend_choice.py, AUTO_MIN_TABLE_FACTS)
        self.in_memory = False
        # its times fall between the timeline's units (counted apart too:
        # planner/input_size.weighted_rows)
        self.between_units = False

    @classmethod
    def of_table(cls, pred: str, cols, lo, hi, lc, hc, where):
        """The facts of one predicate read from a table (a CSV, Parquet or
        Arrow file): one part, ``where`` its source for error messages."""
        out = cls()
        out.parts[pred] = [(cols, lo, hi, lc, hc)]
        out.positions[pred] = where
        return out

    def rows(self) -> FactRows:
        """All the facts as :class:`~.facts.FactRows` (consumes the columns)."""
        out = FactRows()
        self.drain(out)
        out.merge(self.slow)
        return out

    def drain(self, out: FactRows) -> None:
        """Move the kernel-read facts into ``out``, releasing their columns."""
        for pred in list(self.parts):
            parts = self.parts.pop(pred)
            lst = out.get(pred)
            if lst is None:
                lst = out[pred] = []
                out.positions[pred] = self.positions[pred]
            for cols, lo, hi, lc, hc in parts:
                terms = zip(*[c.decoded() for c in cols]) if cols else [()] * len(lc)
                lst.extend(zip(terms, _intervals(lo, hi, lc, hc, self.iv_memo)))

    def predicates(self) -> list:
        return sorted(set(self.parts) | set(self.slow) | set(self.slow.repeating))

    # ---------------------------------------------- for the columnar executor
    def width(self, pred: str):
        """``pred``'s arity in this file (None when absent); raises
        :class:`_Fallback` when its kernel-read and parsed facts disagree
        (the line reader then names both places)."""
        parts = self.parts.get(pred)
        slow = self.slow.get(pred) or [(r[0],) for r in self.slow.repeating.get(pred, [])]
        w = _width(parts[0]) if parts else None
        if slow:
            if w is not None and len(slow[0][0]) != w:
                raise _Fallback(pred)
            w = len(slow[0][0])
        return w

    def widths(self) -> dict:
        """``{pred: width}`` of every predicate here (:meth:`width` of each;
        of the kernel-read parts alone, their first part's columns: no list
        of parsed rows looked up a predicate, 10,000 predicates)."""
        if not self.slow and not self.slow.repeating:
            return {p: _width(parts[0]) for p, parts in self.parts.items()}
        return {p: self.width(p) for p in self.predicates()}

    def count(self, pred: str) -> int:
        return sum(_size(p) for p in self.parts.get(pred, ())) + len(self.slow.get(pred, ()))

    def size(self) -> int:
        """The facts of every predicate: :meth:`count` summed over :meth:`predicates`
        (one pass, not a call per predicate: 10,000 predicates of one fact)."""
        return sum([_size(p) for parts in self.parts.values() for p in parts]) + sum(map(len, self.slow.values()))

    def pred_rows(self, pred: str) -> list:
        """The ``(terms, interval)`` rows of ``pred`` (the columns stay)."""
        out = []
        for cols, lo, hi, lc, hc in self.parts.get(pred, ()):
            terms = zip(*[c.decoded() for c in cols]) if cols else [()] * len(lc)
            out.extend(zip(terms, _intervals(lo, hi, lc, hc, self.iv_memo)))
        out.extend(self.slow.get(pred, ()))
        return out

    def atom_rows(self, pred: str, terms: tuple) -> list:
        """The rows of ``pred`` whose terms are ``terms`` (equal as Python
        compares them, as a dict of rows would find them), the others'
        rows not made: a proof's leaves are a few atoms of relations of
        millions (all the rows of 1M facts: 1.4 s)."""
        import numpy as np

        out = []
        for cols, lo, hi, lc, hc in self.parts.get(pred, ()):
            if len(cols) != len(terms):
                continue
            if cols:  # (the rows of the first value, by its column's index of values; then the others checked)
                found = np.flatnonzero(np.isin(cols[0].indices, self._places(cols[0], terms[0]))).tolist()
            else:
                found = range(len(lc))
            for r in found:
                got = tuple(_value_at(c, r) for c in cols)
                if got == terms:
                    out.append((got, make(_time_at(lo, r), _time_at(hi, r), bool(lc[r]), bool(hc[r]))))
        out.extend(row for row in self.slow.get(pred, ()) if tuple(row[0]) == terms)
        return out

    def _places(self, col, value):
        """Where ``value`` is among the column's distinct values: a coded
        column's by the code the run's dictionary gave it (a block's
        thousands of names not made values), another's by its values."""
        import numpy as np

        codes = getattr(col, "codes", None)
        if codes is not None and hasattr(col.terms, "lookup"):
            code = col.terms.lookup(value)
            return np.flatnonzero(codes == code) if code is not None else ()
        return self._value_places(col).get(value, ())

    def _value_places(self, col) -> dict:
        """``{value: [places among the column's distinct values]}``, made
        once per set of distinct values (a part's columns are made at each
        read, over the block's shared values): equal values as a dict finds
        them, 1, 1.0 and 1/1 one key."""
        source = col.codes if hasattr(col, "codes") else col.num if hasattr(col, "num") else col.values
        memo = self.__dict__.setdefault("_value_memo", {})
        got = memo.get(id(source))
        if got is None or got[0] is not source:
            places: dict = {}
            for k, x in enumerate(col.values.tolist()):
                places.setdefault(x, []).append(k)
            got = memo[id(source)] = (source, places)
        return got[1]

    def time_values(self) -> list:
        """The distinct time values of the file the run's time scale is due
        (every one; for values over one denominator, one of it)."""
        from fractions import Fraction

        seen, denominators = {}, set()
        for parts in self.parts.values():
            for p in parts:
                if type(p) is _Part:  # (its block's time values: no column made a part)
                    if type(p.block.times) is TimeRatios:
                        denominators.add(p.block.times.den)
                    elif p.block.time_ints is None:
                        seen[id(p.block.times)] = p.block.times
                elif getattr(p[1], "ratios", None) is not None:  # (one point of their denominator is the scale's due)
                    denominators.add(p[1].ratios.den)
                    denominators.add(p[2].ratios.den)
                elif getattr(p[1], "ints", None) is None or getattr(p[2], "ints", None) is None:  # (whole numbers: no denominator to see)
                    seen[id(p[1].values)] = p[1].values
                    seen[id(p[2].values)] = p[2].values
        out = [v for vals in seen.values() for v in vals.tolist() if v is not None]
        out += [Fraction(1, d) for d in denominators if d != 1]
        for rows in self.slow.values():
            for _, iv in rows:
                out.append(iv[0])
                out.append(iv[1])
        return out

    def time_hull(self):
        """``(least start, greatest end)`` of every fact here, read from the
        distinct time values (a block's are its facts' times, of all its
        predicates), or None: no fact (engine/implied_horizon.py)."""
        seen, ints, ratios = {}, {}, {}
        for parts in self.parts.values():
            for p in parts:
                if type(p) is _Part:
                    if type(p.block.times) is TimeRatios:
                        ratios[id(p.block.times)] = p.block.times
                    elif p.block.time_ints is None:
                        seen[id(p.block.times)] = p.block.times
                    else:  # (their least and greatest by numpy)
                        ints[id(p.block.time_ints)] = p.block.time_ints
                elif getattr(p[1], "ratios", None) is not None:  # (their least and greatest by numpy)
                    ratios[id(p[1].ratios)] = p[1].ratios
                    ratios[id(p[2].ratios)] = p[2].ratios
                else:
                    seen[id(p[1].values)] = p[1].values
                    seen[id(p[2].values)] = p[2].values
        ends = [v for vals in seen.values() for v in vals.tolist() if v is not None]
        ends += [v for r in ratios.values() for v in (r.hull() or ())]
        ends += [int(f()) for a in ints.values() if len(a) for f in (a.min, a.max)]
        ends += [x for rows in self.slow.values() for _, iv in rows for x in iv[:2]]
        return (min(ends), max(ends)) if ends else None

    def shape(self) -> FactRows:
        """One row per predicate, with its first position, and the repeating
        facts: what planning needs to check arities, without every row.  A
        kernel-read predicate's row is a placeholder of its width, terms
        None and no interval (planning reads a row's width and where the
        predicate is, not its values: 10,000 predicates' first facts
        decoded were 2% of their run)."""
        out = FactRows()
        slow, repeating = self.slow, self.slow.repeating
        parts, positions, out_positions = self.parts, self.positions, out.positions
        blanks: dict = {}  # width -> the placeholder row
        for pred in self.predicates():
            if (slow or repeating) and (slow.get(pred) or repeating.get(pred)):  # (kernel-read facts alone: one arity, nothing to check)
                self.width(pred)
            got = parts.get(pred)
            if got is not None:
                w = _width(got[0])
                row = blanks.get(w)
                if row is None:
                    row = blanks[w] = ((None,) * w, None)
                out[pred] = [row]
                out_positions[pred] = positions[pred]
            elif self.slow.get(pred):
                out[pred] = [self.slow[pred][0]]
                out.positions[pred] = self.slow.positions[pred]
        for pred, lst in self.slow.repeating.items():
            out.repeating[pred] = list(lst)
            out.positions.setdefault(pred, self.slow.positions.get(pred))
        return out



def _value_at(col, r: int):
    """The value of row ``r`` of a term column (a coded column's without
    making its ``values``, an array of every code of its block)."""
    codes = getattr(col, "codes", None)
    if codes is not None:
        c = int(codes[col.indices[r]])
        return None if c < 0 else col.terms.values[c]
    return col.values[col.indices[r]]


def _time_at(col, r: int):
    """The time value of row ``r`` of a start or end column (fractions over
    one denominator without making every value: a proof reads a few)."""
    ratios = getattr(col, "ratios", None)
    if ratios is None:
        return col.values[col.indices[r]]
    return ratios.value(col.indices[r])


def _intervals(lo: "_Column", hi: "_Column", lc, hc, memo: dict) -> list:
    """One interval tuple per fact, one shared tuple per distinct interval
    (as the line reader's memo does: intervals repeat)."""
    import numpy as np

    lc = np.asarray(lc, dtype=np.int64)
    hc = np.asarray(hc, dtype=np.int64)
    n = len(hi.values)
    key = (lo.indices.astype(np.int64) * n + hi.indices) * 4 + lc * 2 + hc
    uniq, inverse = np.unique(key, return_inverse=True)
    ivs = np.empty(len(uniq), dtype=object)
    shared = []
    for k in uniq.tolist():
        iv = make(lo.values[k // 4 // n], hi.values[k // 4 % n], bool(k & 2), bool(k & 1))
        shared.append(memo.setdefault(iv, iv) if len(memo) < 1_000_000 else iv)
    ivs[:] = shared
    return ivs.take(inverse.reshape(-1)).tolist()


def read_fact_columns(
    fh, source: str = "<facts>", dialect: str = "vadalog", calendar=None, rows=None, share: bool = True, terms=None, program=None,
    memos=None,
) -> FactColumns:
    """Read an open file (text or binary), a str, the bytes of facts or a
    list of blocks of whole lines (bytes) with kernels.  ``source``: the
    file's name, or the :class:`~.joined_files.FilePlaces` of files joined
    in the text (errors and positions name each line's own file).
    ``rows``: a FactRows that takes the facts block by block (then the
    columns of only one block are alive at a time).  ``program``: the file
    is a program (a :class:`~.program_facts.Statements`, which takes every
    line that is not a fact the kernels read, for the grammar).  ``memos``:
    the FactColumns of another file of the run, whose tokens' values this
    one shares (200 files of 1,000 facts converted the same times and
    numbers 200 times)."""
    from .nulls import reading_file

    out = FactColumns()
    out.share = share
    out.terms = terms
    if memos is not None:
        out.term_memo, out.time_memo, out.iv_memo = memos.term_memo, memos.time_memo, memos.iv_memo
    lineno = 0
    if isinstance(fh, str):
        blocks = [fh.encode("utf-8")]
    elif isinstance(fh, bytes):
        blocks = [fh]
    elif isinstance(fh, list):
        blocks = fh
    else:
        blocks = _blocks(getattr(fh, "buffer", fh))
    from contextlib import closing

    # (closing: on an error the reader's threads are done when it propagates)
    with reading_file(), closing(_prepared(blocks, dialect, program is not None)) as prepared_blocks:  # one scope for the file's labelled nulls
        for i, prepared in enumerate(prepared_blocks):
            lineno = _read_lines(prepared, lineno, source, dialect, calendar, out, program)
            del prepared
            if i % RELEASE_EVERY == RELEASE_EVERY - 1:
                _release()
            if rows is not None:
                out.drain(rows)
            if out.pending_names >= NAMES_BATCH:
                _code_terms(out)
        if out.terms is not None:
            _code_terms(out)
    return out


def read_file_columns(path, dialect: str = "vadalog", calendar=None, **kw) -> FactColumns:
    """:func:`read_fact_columns` of the fact file ``path``: decompressed as it
    is read (a file.facts.gz), its byte order mark dropped (as the rows'
    reading drops it), a file of one block read whole (no reader threads),
    a larger one in blocks (its text never whole in memory)."""
    import os

    from .compressed import open_bytes
    from .joined_files import BOM  # (the byte order mark's bytes)

    with open_bytes(path, "facts file") as fh:
        fh.seek(len(BOM) if fh.read(len(BOM)) == BOM else 0)
        try:
            whole = os.fstat(fh.fileno()).st_size <= BLOCK
        except OSError:
            whole = False  # (a compressed file: its size on disk is not its text's)
        return read_fact_columns(fh.read() if whole else fh, str(path), dialect, calendar, **kw)


RELEASE_EVERY = 4  # blocks read between two returns of glibc's free pages (in a command)


def _release():
    from chronolog.language import allocators

    allocators.release()


NAMES_BATCH = 2_000_000  # distinct-per-block name tokens coded together: bounds their memory (~50 MB)


class _Names:
    """A term column of names (tokens that are their own value) not coded
    yet: ``indices`` into ``tokens``, the block's distinct tokens (polars)."""

    __slots__ = ("indices", "tokens")

    def __init__(self, indices, tokens):
        self.indices, self.tokens = indices, tokens


def _code_terms(out: FactColumns) -> None:
    """Code the terms read so far by the run's dictionary: the names
    first (:func:`_code_names`), then the other values of each block, so
    that a first file's names are the dictionary's first codes, a Series
    the writers and the retraction print and find by kernels
    (encoding.TermValues.names; coded after a block's numbers, a chase's
    200,000 company names were printed and ranked one by one in Python).
    Called every NAMES_BATCH tokens and at the end."""
    out.pending_names = 0
    _code_names(out)
    values, out.value_blocks = out.value_blocks, []
    for block, vals in values:
        block.value_codes = _int32(_codes(vals, out.terms))  # (one array the block's columns share)


def _code_names(out: FactColumns) -> None:
    """Code the name columns read so far by the run's dictionary, once per
    distinct name of those blocks: their distinct tokens of every predicate
    and argument are unified by one encoding of them all, so only
    those become Python strings (a name recurs across blocks and
    predicates)."""
    import numpy as np

    pending = out.name_blocks  # (the reader's parts of names: _Parts of these blocks)
    if not pending:
        return
    out.name_blocks = []
    blocks = [b.names for b in pending]
    if len(blocks) == 1 and blocks[0].n_unique() == len(blocks[0]):
        # one block's names: distinct already, and copied out of it by _fast (a
        # retraction's 10,000 lines: 3.5 of its 25 ms of reading went to encoding them again)
        names = blocks[0]
        idx = np.arange(len(names), dtype=np.int32)
    else:  # one dictionary for every block's tokens (copied: the blocks' own go with them)
        idx, names = encode(_pl().concat(blocks, rechunk=False), mostly_distinct=True)
        names = compact(names)
    codes = out.terms.code_names(names)
    del names, blocks
    # one int32 array of codes per block, shared by all its columns (a copy
    # per column was 35 MB of LUBM 1M's 44 MB of reader columns)
    at = 0
    for b in pending:
        n = len(b.names)
        b.name_codes = _int32(codes[idx[at : at + n]]) if n else np.zeros(0, dtype=np.int32)
        b.names = None  # (its tokens: no longer needed)
        at += n
    del idx


def _blocks(fh):
    """Blocks of whole lines of about BLOCK bytes (read as bytes: no Python
    string of the text, no UTF-8 copy of it).  A binary file is read into
    a buffer that starts with the last block's unfinished line, and the
    block is a view of it: no copy of the text besides the read itself
    (the slices and concatenations of bytes were two more per block)."""
    readinto = getattr(fh, "readinto", None)
    if readinto is not None and not hasattr(fh, "encoding"):
        yield from _blocks_into(readinto, _block_size(fh))
        return
    rest = b""
    while True:
        chunk = fh.read(BLOCK)
        if not chunk:
            if rest:
                yield rest
            return
        if isinstance(chunk, str):
            chunk = chunk.encode("utf-8")
        chunk = rest + chunk
        cut = chunk.rfind(b"\n")
        if cut < 0:
            rest = chunk
            continue
        rest = chunk[cut + 1 :]
        yield chunk[: cut + 1]


SMALL_FILE = 8  # blocks: a file of at most that many is read in two


def _block_size(fh) -> int:
    """BLOCK, or for a file of at most SMALL_FILE blocks half of it (two
    blocks, one per reader thread): each block has fixed costs (two dozen
    kernel calls, a dozen numpy steps per predicate in the conversion, the
    same per predicate for its frame), a tenth of a 100,000-fact file's
    reading CPU with 1 MB blocks, while the memory of two blocks in flight
    only counts for large files (LUBM 1M rec: 2 MB blocks +13 MB peak)."""
    import os

    try:
        size = os.fstat(fh.fileno()).st_size - fh.tell()
    except (AttributeError, OSError, ValueError):
        return BLOCK
    return block_size(size)


def block_size(size: int) -> int:
    """The block of a text of ``size`` bytes (:func:`_block_size`)."""
    return max(BLOCK, -(-size // 2)) if size <= SMALL_FILE * BLOCK else BLOCK


LINE_BYTES = 44  # a line of temporal LUBM's bare facts: a block of BLOCK bytes holds 24,000 of them


def _blocks_into(readinto, block: int = BLOCK):
    """Blocks of whole lines; after the first, of as many lines as ``block``
    bytes of LINE_BYTES lines when its lines are longer (at most 4 times
    ``block``): a block's fixed costs (its kernel calls, a dozen numpy
    steps per predicate) are then paid per lines, not per bytes (quoted
    IRIs, twice the bytes a line: 0.33 -> 0.30 s of CPU for 300k facts)."""
    rest = b""
    first = True
    while True:
        buf = bytearray(len(rest) + block)
        buf[: len(rest)] = rest
        got = readinto(memoryview(buf)[len(rest) :])
        size = len(rest) + (got or 0)
        if not got:
            if rest:
                yield rest
            return
        cut = buf.rfind(b"\n", 0, size)
        if cut < 0:
            rest = bytes(buf[:size])
            continue
        rest = bytes(buf[cut + 1 : size])
        if first:
            first = False
            line = (cut + 1) // (buf.count(b"\n", 0, cut + 1) or 1)  # (bytes a line)
            block = max(block, min(4 * block, block * line // LINE_BYTES))
        yield memoryview(buf)[: cut + 1]


AHEAD = 2  # blocks whose kernels run ahead of the conversion (each holds its lines and fields)


def _prepared(blocks, dialect: str, program: bool = False):
    """``(lines, fields, slow, keep)`` of each block, in order.  The kernels
    of the next AHEAD blocks (splitting, matching, cutting the fields: numpy
    and polars, which release the GIL) run in worker threads while the caller
    converts this one's tokens in Python: on two cores the kernels, 60% of
    the reading, no longer wait for the conversion nor it for them."""
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    if isinstance(blocks, list) and len(blocks) <= 1:  # (a text read whole: nothing to overlap, and
        # a pool's start and hand-over cost 1.5-2 ms, a tenth of a 1% retraction's reading)
        yield from (_kernels(data, dialect, program) for data in blocks)
        return
    with ThreadPoolExecutor(AHEAD, thread_name_prefix="chronolog-read") as pool:
        ahead: deque = deque()
        for data in blocks:
            ahead.append(pool.submit(_kernels, data, dialect, program))
            del data
            if len(ahead) > AHEAD:
                yield ahead.popleft().result()
        while ahead:
            yield ahead.popleft().result()


def _kernels(data: bytes, dialect: str, program: bool = False):
    """The kernel part of reading a block: its lines, which match the
    kernels' pattern (``keep``) or not (``slow``), and the matched lines'
    fields (None when no line matched).  Lines and tokens are found by
    numpy over the block's bytes and become polars strings (string_columns.py).
    ``program``: the block is a program's (a fact ends with its '.'; a
    labelled null sends the program to the grammar whole: one scope with
    its rules')."""
    import numpy as np

    data = memoryview(data)  # (a view of the buffer read: no copy)
    if len(data) and data[-1] == 10:
        data = data[:-1]
    if len(data) >= 1 << 31:
        raise _Fallback("a block of more than 2 GB")
    text = np.frombuffer(data, np.uint8)
    if program and data.obj.find(b"_", 0, len(data)) >= 0 and _holds_null_labels(text):  # (memchr first: most blocks hold no '_')
        raise _Fallback("labelled nulls in a program")
    if (text >= 128).any():
        try:  # the block as one value, checked as UTF-8 by polars' cast
            strings(text, np.array([0, len(text)], dtype=np.int32), "binary").cast(_pl().String)
        except _pl().exceptions.PolarsError:  # not UTF-8: the line reader says where (as a decoding error)
            raise _Fallback("not UTF-8") from None
    nl = np.flatnonzero(text == 10).astype(np.int32)
    starts = np.concatenate([np.zeros(1, dtype=np.int32), nl + 1])
    ends = np.concatenate([nl, np.array([len(text)], dtype=np.int32)])
    lines = ranges(text, starts, ends, checked=True)  # (UTF-8: checked above, cut at newlines)
    cut = lines
    blanks = any(data.obj.find(c, 0, len(data)) >= 0 for c in (b" ", b"\t", b"\r"))  # (memchr: no trims when no line has one)
    comments = dialect == "vadalog" and data.obj.find(b"%", 0, len(data)) >= 0
    quotes = data.obj.find(b'"', 0, len(data)) >= 0
    pattern = _pattern(dialect, quotes, program)
    matched = matches(lines, pattern)
    settled = False
    if dialect == "vadalog" and (blanks or comments):
        got = _inert_misses(text, starts, ends, lines, matched)
        if got is not None:  # (the blanks and comments of the lines that may be facts)
            (blanks, comments), settled = got, True
    masked = None
    if quotes and (blanks or comments or (not settled and _quoted_misses(lines, matched))):
        # strings that hold separators, blanks or '%': the kernels see the
        # masked text (then the tight cuts apply), the exact parser the lines as written
        masked = _mask(text, starts, ends)
        if masked is not None:
            text = masked
            cut = ranges(text, starts, ends, checked=True)
            blanks = bool(np.isin(text, _BLANKS).any())
            matched = matches(cut, pattern)
    if comments and (masked is not None or not quotes):  # (a '%' in a string is not a comment: masked)
        text, ends, blanks, undotted = _uncomment(text, starts, ends)
        cut = ranges(text, starts, ends, checked=True)
        matched = matches(cut, pattern)
        matched[undotted] = False
    slow = np.flatnonzero(~matched)
    keep = np.flatnonzero(matched)
    fields = None
    if len(keep):
        if not blanks:  # (both dialects' lines: pred[(args)]@(point|[lo,hi])[.], no '(' in args)
            fields = _TightFields(text, starts, ends, slow, cut)
        else:
            fields = _Fields(cut.filter(_pl().Series(matched)) if len(slow) else cut, blanks)
        fields.encode(dialect, quotes)
        fields.quoted = quotes  # (no quote in the block: its names are kept as cut, not stripped of quotes)
        if masked is not None:
            fields.fdict = _unmask(fields.fdict)
    return lines, fields, slow, keep


# the bytes the kernels cut or trim at, and what _mask writes for them
# inside quoted strings: control bytes that are neither blanks for a regex
# nor separators (a block that holds one of them as written is not masked)
_CUT_BYTES = b",()@%[]' \t\r"
_MASK_BYTES = bytes([1, 2, 3, 4, 5, 6, 7, 8, 14, 15, 16])
_BLANKS = (32, 9, 13)


def _uncomment(text, starts, ends):
    """``(text, ends, blanks, undotted)``: the block with each line's comment (from
    its first '%', strings masked) cut off: the line's end moved before it
    and the blanks before it, those bytes zeroed (the tight cuts look for
    separators in the whole block); whether a blank is left; the lines
    whose statement before the comment lacks its final '.'."""
    import numpy as np

    pct = np.flatnonzero(text == 37)
    line = np.searchsorted(starts, pct, "right") - 1
    first = np.ones(len(pct), dtype=bool)
    first[1:] = line[1:] != line[:-1]
    pct, line = pct[first], line[first]
    cut = ends.copy()
    cut[line] = pct
    blank = np.zeros(256, dtype=bool)
    blank[list(_BLANKS)] = True
    while True:  # (one pass per blank before a comment, on the commented lines only)
        e = cut[line]
        more = line[(e > starts[line]) & blank[text[np.maximum(e - 1, 0)]]]
        if not len(more):
            break
        cut[more] -= 1
    gone = np.zeros(len(text) + 1, dtype=np.int8)  # +1 where a comment starts, -1 where its line ends
    gone[cut[line]] = 1
    gone[ends[line]] = -1
    text = text.copy()
    text[np.cumsum(gone[:-1], dtype=np.int8) > 0] = 0
    # a fact before a comment must end with its '.' (the exact parser's rule)
    undotted = line[(cut[line] > starts[line]) & (text[np.maximum(cut[line] - 1, 0)] != 46)]
    return text, cut, bool(blank[text].any()), undotted


def _holds_null_labels(text) -> bool:
    """Whether the bytes hold ``_:`` (a labelled null), by numpy over the
    '_' bytes: ``bytes.find`` took 20 ms on a program of 300k facts with
    IRIs (2 ms here), each ':' of theirs starting a comparison."""
    import numpy as np

    at = np.flatnonzero(text[:-1] == 95)  # '_'
    return bool((text[at + 1] == 58).any())  # ':' after it


INERT_MISSES = 1024  # missed lines of a block looked at one by one (a program's rules and comments among its facts)


def _inert_misses(text, starts, ends, lines, matched):
    """``(blanks, comments)`` of the block's other lines when every line
    the pattern missed is one that neither masking strings nor cutting a
    comment can make a fact (a comment, an annotation, a line with neither
    '%' nor a quote: a program's rules), so those lines are left out; None
    when not so.  A few rules in a block of facts then no longer send it
    through the kernels of blanks, comments and strings (3x the CPU)."""
    import numpy as np

    missed = np.flatnonzero(~matched)
    if not 0 < len(missed) <= INERT_MISSES:
        return None
    other = lines.gather(missed)
    if not (other.str.contains(r"^[ \t\r]*[%@]") | ~other.str.contains('[%"]')).all():
        return None
    rest = text.copy()
    for s, e in zip(starts[missed].tolist(), ends[missed].tolist()):
        rest[s:e] = 0
    rest = rest.tobytes()
    return any(rest.find(c) >= 0 for c in (b" ", b"\t", b"\r")), rest.find(b"%") >= 0


def _quoted_misses(lines, matched) -> bool:
    """Whether a line the pattern missed holds a quote (its strings may hold
    separators: the block is then masked and matched again)."""
    import numpy as np

    missed = np.flatnonzero(~matched)
    return len(missed) > 0 and bool(lines.gather(missed).str.contains('"', literal=True).any())


def _mask(text, starts, ends):
    """A copy of the block ``text`` (numpy bytes; lines ``starts``..``ends``)
    whose separators and blanks inside quoted strings are replaced by
    _MASK_BYTES, so the kernels' patterns and cuts see a string as one
    token, or None (the block already holds such a control byte).  A
    quote opens or closes a string unless an odd run of backslashes
    precedes it; a line with an unclosed string closes it at its end (the
    line goes to the parser anyway)."""
    import numpy as np

    lut = np.zeros(256, dtype=bool)
    lut[list(_MASK_BYTES)] = True
    if lut[text].any():
        return None
    q = _quotes(text)
    toggles = np.zeros(len(text) + 1, dtype=np.uint8)
    toggles[q] = 1
    odd = np.bincount(np.searchsorted(starts, q, "right") - 1, minlength=len(starts)) & 1
    toggles[ends[odd.astype(bool)]] ^= 1
    inside = np.cumsum(toggles[:-1], dtype=np.uint8) & 1  # (parity: a wrap of uint8 keeps it)
    swap = np.arange(256, dtype=np.uint8)
    swap[list(_CUT_BYTES)] = list(_MASK_BYTES)
    return np.where(inside.astype(bool), swap[text], text)


def _quotes(text):
    """Where the quotes that open or close a string are in ``text`` (numpy
    bytes): all but those after an odd run of backslashes."""
    import numpy as np

    q = np.flatnonzero(text == 34)
    if len(q) and (text[np.maximum(q - 1, 0)] == 92).any():  # escaped quotes
        other = np.where(text != 92, np.arange(len(text)), -1)
        np.maximum.accumulate(other, out=other)
        before = np.maximum(q - 1, 0)
        run = np.where(q > 0, before - other[before], 0)  # backslashes just before each quote
        q = q[run % 2 == 0]
    return q


def _unmask(series):
    """Tokens of a masked block as written (only those holding a mask byte change)."""
    pl = _pl()
    if not series.str.contains("[\x01-\x08\x0e-\x10]").any():
        return series
    out = series
    for a, b in zip(_MASK_BYTES, _CUT_BYTES):
        out = out.str.replace_all(chr(a), chr(b), literal=True)
    return out


def _read_lines(prepared, first_line: int, source, dialect, calendar, out: FactColumns, program=None) -> int:
    """``prepared``: a block's :func:`_kernels`; its first line is line
    ``first_line + 1``; returns the number of its last line.  No Python
    object per line: short-lived objects between the facts' tuples would
    fragment the heap (and keep the peak memory up).  ``program``: see
    :func:`read_fact_columns` (the lines the kernels do not read are its)."""
    import numpy as np

    global kernel_lines
    lines, m, slow, keep = prepared
    kernel_lines += len(keep)
    inside = program.inside_statements(lines, slow, keep) if program is not None else None
    if m is not None:
        bad = _fast(m, keep + (first_line + 1), source, dialect, calendar, out, inside)
        if len(bad):
            slow = np.sort(np.concatenate([slow, keep[bad]]))
    kernel_lines -= len(slow) - len(prepared[2])  # (matched, but not converted by the kernels)
    if program is not None:
        program.take(lines, slow, first_line)
        return first_line + len(lines)
    for i in slow.tolist():
        _slow(lines[i], first_line + 1 + i, source, dialect, calendar, out)
    return first_line + len(lines)


class _Fields:
    """The parts of lines that match the kernels' pattern, as polars string
    columns: ``pred``, ``args`` (between the parentheses; ``has_args``), and
    the interval ``lo``, ``hi`` with whether its ends are closed (``lc``,
    ``hc``) or the point ``pt`` (``point``).  One regular-expression match (no captures)
    said each line has the form; the parts are then cut by splitting at the
    first ``@`` and ``(`` and trimming, which is 10x cheaper than
    extracting capture groups and gives the same groups for
    lines of that form (names and arguments hold no ``@`` or ``(``)."""

    def __init__(self, lines, blanks: bool = True):
        """``blanks``: whether the lines may hold a blank, tab or carriage
        return; without any, the trims are skipped (each is a copy)."""
        pl = _pl()

        def trim(a, chars=" \t"):
            return a.str.strip_chars(chars) if blanks else a

        def rtrim(a, chars=" \t"):
            return a.str.strip_chars_end(chars) if blanks else a

        self.lines = lines
        line = pl.col("l")
        at = line.str.splitn("@", 2)
        head, tail = at.struct.field("field_0"), at.struct.field("field_1")
        # ``(`` appended: every head splits in two; ``args`` ends in ")", then blanks, then the "(" added
        hp = (head + "(").str.splitn("(", 2)
        rest = rtrim(hp.struct.field("field_1").str.head(-1))
        t = rtrim(tail, " \t\r")
        t = trim(pl.when(t.str.ends_with(".")).then(t.str.head(-1)).otherwise(t))
        first = t.str.head(1)
        closed_start = first == "["
        point = ~(closed_start | (first == "("))
        inner = (t.str.slice(1).str.head(-1) + ",").str.splitn(",", 2)
        got = pl.DataFrame({"l": lines}).select(
            pred=trim(hp.struct.field("field_0")),
            has_args=rest != "",
            args=rest.str.head(-1),
            point=point,
            # a point is closed at both ends; an interval by its brackets
            lc=point | closed_start,
            hc=point | (t.str.tail(1) == "]"),
            pt=t,  # (the point's token, on the point lines)
            lo=trim(inner.struct.field("field_0")),
            hi=trim(inner.struct.field("field_1").str.head(-1)),
        )
        for name in got.columns:
            setattr(self, name, got[name])

    def encode(self, dialect: str, quotes: bool = True) -> None:
        """The rest of the block's kernel work, done where the fields were
        cut (a worker thread, see :func:`_prepared`): the interval ends'
        tokens in one dictionary, the argument tokens of every line in
        another (with which are names), the predicates', and each
        predicate's rows.  :func:`_fast` converts from there in Python."""
        import numpy as np

        pl = _pl()
        point = self.point
        lo_tok = pl.select(pl.when(point).then(self.pt).otherwise(self.lo)).to_series()
        hi_tok = pl.select(pl.when(point).then(self.pt).otherwise(self.hi)).to_series()
        self.lc = self.lc.to_numpy()
        self.hc = self.hc.to_numpy()
        self.point = point.to_numpy()
        # time points: one dictionary over both ends, distinct tokens converted once
        self.times = encode(pl.concat([lo_tok, hi_tok], rechunk=True))
        lists = self.args.str.split(",")
        lengths = lists.list.len().to_numpy().astype(np.int64)
        self.arity = np.where(self.has_args.to_numpy(), lengths, 0)
        # every argument token of the block in one column, dictionary-encoded once:
        # a predicate's column is then a numpy take of token numbers
        self.starts = np.zeros(len(lengths), dtype=np.int64)
        np.cumsum(lengths[:-1], out=self.starts[1:])
        flat = lists.explode()
        if dialect == "meteor":
            flat = flat.str.strip_chars()
        self.ftok, self.fdict = encode(flat)
        self.is_name = _names(self.fdict, dialect, quotes)
        pidx, self.preds = encode(self.pred)
        self.by_pred = np.argsort(pidx, kind="stable")  # each predicate's rows, in line order
        self.bounds = np.concatenate([[0], np.cumsum(np.bincount(pidx, minlength=len(self.preds)))])
        del self.pt, self.lo, self.hi, self.args, self.has_args, self.pred

    def __len__(self) -> int:
        return len(self.lines)

    def leading_blanks(self, i: int) -> int:
        line = self.lines[i]
        return len(line) - len(line.lstrip(" \t"))


class _TightFields(_Fields):
    """The same fields as :class:`_Fields` for a block (either dialect)
    without a blank, tab or carriage return, found from the positions of ``@``, ``(``
    and ``,`` in the lines' bytes (numpy) instead of a dozen string kernels
    that each copy the block (splits, slices, joins): the lines matched the
    kernels' pattern, so without blanks each is exactly
    ``pred[(args)]@(point|[lo,hi])[.]``.  Each token is then a range of the
    lines' bytes; each role's tokens become one polars column
    (string_columns.ranges) and are encoded.
    2-3x less CPU than the kernels (temporal LUBM: 9 -> 4 ms a block)."""

    def __init__(self, text, starts, ends, slow, lines):  # (encode() does the work, in the worker thread)
        """``text``: the block's bytes (numpy), its lines ``text[starts[i]:
        ends[i]]`` of which ``slow`` did not match the pattern; ``lines``:
        the block's lines."""
        self.kept = (text, starts, ends, slow)
        self.lines = lines
        self.n = len(starts) - len(slow)  # (the matched lines)

    def __len__(self) -> int:
        return self.n

    def leading_blanks(self, i: int) -> int:
        return 0  # (a block without a blank)

    def encode(self, dialect: str, quotes: bool = True) -> None:
        import numpy as np

        text, line_start, line_end, slow = self.kept
        del self.kept
        if len(slow):  # the lines that did not match are blanked out (their '@', '(' and ',' are not looked for)
            text = text.copy()
            for i in slow.tolist():
                text[line_start[i] : line_end[i]] = 0
            keep = np.ones(len(line_start), dtype=bool)
            keep[slow] = False
            line_start, line_end = line_start[keep], line_end[keep]
        n = len(line_start)
        i32 = np.int32
        mask = np.empty(len(text), dtype=bool)  # (one mask for the three bytes looked for)

        def where(byte):
            return np.flatnonzero(np.equal(text, byte, out=mask)).astype(i32)

        # the first '@' of each line (a line has one; an interval's ends may hold more)
        at = where(64)
        if len(at) != n:
            line_of = np.searchsorted(line_start, at, "right") - 1
            first = np.ones(len(at), dtype=bool)
            first[1:] = line_of[1:] != line_of[:-1]
            at = at[first]
        end = line_end - (text[line_end - 1] == 46)  # without the final '.'
        has_args = text[at - 1] == 41  # the head ends in ')'
        # the arguments' '(' : the last one before the '@' (names hold none)
        pars = where(40)
        popen = pars[np.maximum(np.searchsorted(pars, at) - 1, 0)] if len(pars) else at
        pend = np.where(has_args, popen, at)
        # commas: those before a line's '@' cut its arguments; the first one
        # after it (there is one exactly when the line has an interval) cuts the interval
        commas = where(44)
        del mask
        c_at = np.searchsorted(commas, at)
        n_head = c_at - np.searchsorted(commas, line_start)
        self.arity = np.where(has_args, n_head + 1, 0)
        t0 = at + 1
        opening = text[t0]
        point = (opening != 91) & (opening != 40)
        self.point = point
        self.lc = point | (opening == 91)
        self.hc = point | (text[end - 1] == 93)
        comma = commas[np.minimum(c_at, len(commas) - 1)] if len(commas) else t0
        is_tail = np.zeros(len(commas), dtype=bool)
        is_tail[c_at[~point]] = True
        head_commas = commas[~is_tail]
        # each argument's range, in order: a line's arguments from its first one
        starts = np.zeros(n, dtype=np.int64)
        np.cumsum(self.arity[:-1], out=starts[1:])
        self.starts = starts
        total = int(starts[-1] + self.arity[-1]) if n else 0
        first_comma = np.zeros(n, dtype=np.int64)
        np.cumsum(n_head[:-1], out=first_comma[1:])
        slot = np.arange(len(head_commas)) + np.repeat(starts - first_comma, n_head)  # the argument before each comma
        a_starts = np.empty(total, dtype=i32)
        a_ends = np.empty(total, dtype=i32)
        a_starts[starts[has_args]] = pend[has_args] + 1
        a_starts[slot + 1] = head_commas + 1
        a_ends[slot] = head_commas
        a_ends[starts[has_args] + self.arity[has_args] - 1] = at[has_args] - 1
        pidx, self.preds = encode_ranges(text, line_start, pend)  # (the block is UTF-8, cut at ASCII bytes)
        self.ftok, self.fdict = encode_ranges(text, a_starts, a_ends)
        self.is_name = _names(self.fdict, dialect, quotes)
        # time tokens: lo of every line, then hi (a point is both): the
        # distinct ranges (an interval's two ends, a point once) taken in that order
        k = np.where(point, 1, 2)
        first_t = np.zeros(n, dtype=np.int64)
        np.cumsum(k[:-1], out=first_t[1:])
        m = int(first_t[-1] + k[-1]) if n else 0
        t_starts = np.empty(m, dtype=i32)
        t_ends = np.empty(m, dtype=i32)
        t_starts[first_t] = np.where(point, t0, t0 + 1)
        t_ends[first_t] = np.where(point, end, comma)
        iv = first_t[~point] + 1
        t_starts[iv] = comma[~point] + 1
        t_ends[iv] = end[~point] - 1
        self.times = encode_ranges(text, t_starts, t_ends, np.concatenate([first_t, first_t + (~point)]))
        # (as 16-bit numbers numpy's stable sort is a radix sort: 3x faster)
        self.by_pred = np.argsort(pidx.astype(np.uint16) if len(self.preds) <= 1 << 16 else pidx, kind="stable")
        self.bounds = np.concatenate([[0], np.cumsum(np.bincount(pidx, minlength=len(self.preds)))])


def _fast(m, where, source, dialect, calendar, out: FactColumns, skip=None):
    """Read the matched rows (``where``: their line numbers) into ``out``;
    returns the row numbers (in ``m``) the kernels could not convert (they
    go to the exact parser), and those of ``skip`` (numpy bool: rows not
    to read)."""
    import numpy as np

    n = len(m)
    lc, hc, times = m.lc, m.hc, m.times
    if calendar is not None:
        def conv(tok):
            try:
                return calendar.parse_point(tok)
            except ValueError:
                return None
    else:
        conv = _meteor_time if dialect == "meteor" else _vadalog_time
    units, read = _read_times(times.dictionary, calendar)
    inf = infinity_marks(times.dictionary, read, conv)  # (facts valid until further notice, @[1609459200,+inf): read with the rest)
    tints = units if len(read) and (read if inf is None else read | (inf != 0)).all() else None
    tidx = times.indices
    bad = np.zeros(n, dtype=bool) if skip is None else skip.copy()
    lo_i, hi_i = tidx[:n], tidx[n:]
    ratios = None if tints is not None else _time_ratios(times.dictionary, calendar, inf)
    if inf is not None and tints is not None:  # (whole numbers and infinities: their TimeRatios)
        ratios, tints = TimeRatios(np.where(inf != 0, 0, tints), 1, inf), None
    if ratios is not None:  # (between units, or decimals, or infinities: over one denominator, ranked by numpy)
        tcol = ratios
        order = np.unique(ratios.keys(), return_inverse=True)[1].reshape(-1)
        if ratios.inf is not None:  # a point is finite; no interval starts at +inf or ends at -inf
            bad |= (m.point & (ratios.inf != 0)[lo_i]) | (ratios.inf > 0)[lo_i] | (ratios.inf < 0)[hi_i]
    elif tints is not None:  # (whole numbers or dates: no conversion, no infinity, ranked by numpy)
        tcol = np.empty(len(tints), dtype=object)
        tcol[:] = tints.tolist()
        order = np.unique(tints, return_inverse=True)[1].reshape(-1)
    else:
        tvals = _mostly_read(times.dictionary, units, read, conv, out.time_memo)
        if tvals is None:
            tvals = _convert(times.dictionary.to_list(), conv, out.time_memo)
        tcol = _Column(np.zeros(0, dtype=np.int64), tvals).values
        tbad = np.array([v is None for v in tvals], dtype=bool)
        if tbad.any():
            bad |= tbad[tidx[:n]] | tbad[tidx[n:]]
        # a point must be finite
        pnt = m.point
        pinf = np.array([v == POS_INF if v is not None else False for v in tvals], dtype=bool)
        ninf = np.array([v == NEG_INF if v is not None else False for v in tvals], dtype=bool)
        if pinf.any() or ninf.any():  # a point is finite; no interval starts at +inf or ends at -inf
            bad |= (pnt & (pinf | ninf)[lo_i]) | pinf[lo_i] | ninf[hi_i]
        order = None if bad.all() else np.array(_ranks(tvals), dtype=np.int64)
    # empty intervals (exact comparison on the converted values): the parser reports them
    if order is not None:
        rl, rh = order[lo_i], order[hi_i]
        bad |= (rl > rh) | ((rl == rh) & ~(lc & hc))

    arity, starts, ftok, fdict = m.arity, m.starts, m.ftok, m.fdict
    is_name = m.is_name if out.terms is not None else None
    names_pending = False
    kept_names = None  # the block's distinct tokens, copied out of it once (string_columns.compact)
    by_pred, bounds = m.by_pred, m.bounds
    term_conv = _meteor_term if dialect == "meteor" else (lambda t: _value(t.strip(), _IDENT.match))
    # Every step runs over the rows of all predicates at once, in by_pred's
    # order (each predicate's rows together), and each predicate's part is
    # slices of those arrays: a dozen numpy steps per predicate and block
    # cost 200 predicates of 1,000 facts +25 ms against one predicate (issue 37).
    names = m.preds.to_list()
    first = bounds[:-1]
    fine = np.ones(len(names), dtype=bool)  # predicates of a valid name
    if dialect == "vadalog":
        for k, name in enumerate(names):
            if not _PRED_OK(name):
                fine[k] = False
                bad[by_pred[bounds[k] : bounds[k + 1]]] = True
    widths = arity[by_pred]
    width_of = widths[first]
    uneven = (np.maximum.reduceat(widths, first) != np.minimum.reduceat(widths, first)) & fine
    if uneven.any():
        raise _Fallback(names[int(np.flatnonzero(uneven)[0])])
    at = starts[by_pred]
    last_tok = len(ftok) - 1
    tokens, named = [], []  # per argument: each row's token (any where the predicate is narrower), names-only per predicate
    seen = None  # which of the block's tokens a column of values holds
    for j in range(int(width_of.max()) if len(names) else 0):
        tok = ftok[np.minimum(at + j, last_tok)]
        wide = (width_of > j) & fine
        name_col = np.logical_and.reduceat(is_name[tok], first) & wide if is_name is not None else np.zeros(len(names), dtype=bool)
        value_col = wide & ~name_col
        if value_col.any():
            if seen is None:
                seen = np.zeros(len(fdict), dtype=bool)
            seen[tok[np.repeat(value_col, np.diff(bounds))]] = True
        if name_col.any() and kept_names is None:  # (a quoted string's value: without its quotes)
            kept_names = compact(fdict.str.strip_prefix('"').str.strip_suffix('"') if m.quoted else fdict)
            names_pending = True
        tokens.append(tok)
        named.append(name_col)
    # the distinct tokens of every predicate's value columns converted in one
    # pass and coded by the run's Dictionary at once, each column indexing
    # them all: a pass costs a few polars queries (~1 ms), then a sort and a
    # search per column, which 200 predicates of 1,000 facts paid each (issue 37)
    if seen is not None:
        every = np.flatnonzero(seen)
        position = np.cumsum(seen) - 1  # a token's place among every
        pairs = _plain_pairs(fdict.gather(every)) if dialect == "vadalog" and out.terms is not None else None
        every_vals = _terms(fdict.gather(every), dialect, term_conv, out.term_memo, out.share, pairs)
        every_bad = np.array([v is None for v in every_vals], dtype=bool)
        if every_bad.any():  # (their rows go to the exact parser)
            tok_bad = np.zeros(len(fdict), dtype=bool)
            tok_bad[every[every_bad]] = True
            for j, tok in enumerate(tokens):
                value_rows = np.repeat((width_of > j) & fine & ~named[j], np.diff(bounds))
                bad[by_pred[value_rows & tok_bad[tok]]] = True
        if out.terms is None:
            every_vals = _Column(every[:0], every_vals).values
    keep = ~bad[by_pred]
    rows, kept = by_pred, bounds
    if not keep.all():
        rows = by_pred[keep]
        kept = np.concatenate([[0], np.cumsum(np.add.reduceat(keep.astype(np.int64), first))]) if len(names) else bounds
        tokens = [tok[keep] for tok in tokens]
    lo_all, hi_all = _narrow(lo_i[rows], len(tcol)), _narrow(hi_i[rows], len(tcol))
    lc_all, hc_all = lc[rows], hc[rows]
    name_idx = [_narrow(tok, len(fdict)) if named[j].any() else None for j, tok in enumerate(tokens)]
    value_idx = [position[tok] if seen is not None and not named[j].all() else None for j, tok in enumerate(tokens)]
    exact = None
    if seen is not None and pairs is not None:
        exact, needed = _exact_columns(pairs, value_idx, named, width_of, kept, getattr(out.terms, "whole_as_exact", True))
        if exact is not None:  # (the tokens only exact columns read: not coded)
            every_vals = [v if n else None for v, n in zip(every_vals, needed.tolist())]
    if out.terms is not None:
        value_idx = [None if v is None else _narrow(v, len(every)) for v in value_idx]
    # (one part per predicate and block: coded by the run's dictionary, a
    # _Part, the predicate's range of the block's arrays, its columns sliced
    # when read (10,000 predicates of one fact: ~2 us a part, where its five
    # slices and four columns made were ~4 us); else slices made by plain
    # Python per predicate)
    kept_at, widths_of, named_at = kept.tolist(), width_of.tolist(), [c.tolist() for c in named]
    terms, parts, slow = out.terms, out.parts, out.slow
    block = None
    if terms is not None:
        block = _Block(kept_at, widths_of, named_at, name_idx, kept_names, value_idx, None,
                       terms, tcol, lo_all, hi_all, lc_all, hc_all, tints)
        if exact is not None:
            block.exact, block.num, block.den = exact, pairs[1], pairs[2]
        if names_pending:
            out.name_blocks.append(block)
        if seen is not None:  # (coded after the names: _code_terms)
            out.value_blocks.append((block, every_vals))
            out.pending_names += len(every_vals)
    for k, name in enumerate(names):
        a, b = kept_at[k], kept_at[k + 1]
        if a == b:
            continue
        width = widths_of[k]
        if block is None:  # (values of their own per column: rows decode them)
            columns = []
            for j in range(width):
                used, idx = np.unique(value_idx[j][a:b], return_inverse=True)
                columns.append(_Column(_narrow(idx.reshape(-1), len(used)), every_vals[used]))
            lo_col, hi_col = ((_RatioColumn(lo_all[a:b], tcol), _RatioColumn(hi_all[a:b], tcol)) if ratios is not None
                              else (_Column.of(lo_all[a:b], tcol, tints), _Column.of(hi_all[a:b], tcol, tints)))
            part = (columns, lo_col, hi_col, lc_all[a:b], hc_all[a:b])
        else:
            part = _Part(block, k)
        if name in parts:
            parts[name].append(part)
        else:
            parts[name] = [part]
            row = int(rows[a])
            col = 1 + m.leading_blanks(row) if dialect == "meteor" else 1
            out.positions[name] = ast.Pos(*_place(source, int(where[row])), col)
        if slow or slow.repeating:
            prev = slow.get(name) or slow.repeating.get(name)
            if prev and len(prev[0][0]) != width:
                raise _Fallback(name)
    if names_pending:
        out.pending_names += len(fdict)
    return np.nonzero(bad)[0]


def _narrow(indices, distinct: int):
    """``indices`` into ``distinct`` values as uint16 when they fit (a block's
    distinct tokens per column nearly always do): the indices are what the
    reader keeps per fact until the run ends, 2 bytes instead of 4."""
    import numpy as np

    return indices.astype(np.uint16) if distinct <= 1 << 16 else indices


def _convert(tokens: list, conv, memo: dict) -> list:
    """The values of ``tokens``, each converted once into ``memo`` (which
    the files of a run share; a labelled null is not kept there: it is
    its file's, nulls.py)."""
    out = []
    for t in tokens:
        v = memo.get(t)
        if v is None:
            v = conv(t)
            if v is not None and len(memo) < 2_000_000 and type(v) is not Null:
                memo[t] = v
        out.append(v)
    return out


# tokens that are their own value (a name): matched by one kernel, no
# conversion in Python (the meteor dialect: any argument not starting like a number)
_NAME = {"vadalog": r"^[a-z][A-Za-z0-9_]*$", "meteor": r"^[^\s,()@\[\]\"'0-9+\-.][^\s,()@\[\]\"']*$"}


def _names(tokens, dialect: str, quotes: bool = True):
    """Which tokens are names or quoted strings without escapes (``quotes``:
    the block has a quote): their values are their text (without the
    quotes), coded with no Python conversion (numpy bool)."""
    return tokens.str.contains(_NAME[dialect] + (r'|^"[^"\\]*"$' if quotes else "")).to_numpy()


def _terms(tokens, dialect: str, conv, memo: dict, share: bool = True, pairs=None) -> list:
    """The values of the distinct argument tokens (a polars String Series);
    ``pairs``: their :func:`_plain_pairs`, made already."""
    import numpy as np

    toks = tokens.to_list()
    names = matches(tokens, _NAME[dialect])
    if not share:
        vals = toks if names.all() else [t if n else None for t, n in zip(toks, names.tolist())]
    elif len(memo) < 2_000_000:
        keep = memo.setdefault  # one object per distinct name in the whole file
        vals = [keep(t, t) if n else None for t, n in zip(toks, names.tolist())]
    else:
        vals = [t if n else None for t, n in zip(toks, names.tolist())]
    other = np.flatnonzero(~names)
    if len(other) and dialect == "vadalog":  # (plain numbers by kernels: the same values)
        if pairs is None:
            got, vals_of = _plain_numbers(tokens.gather(other))
        else:
            from .exact_pairs import pair_values

            got, num, den = pairs
            got = got[other]
            vals_of = pair_values(num[other][got], den[other][got])
        for i, v in zip(other[got].tolist(), vals_of):
            vals[i] = v
        other = other[~got]
    if len(other):
        conv_vals = _convert([toks[i] for i in other.tolist()], conv, memo)
        for i, v in zip(other.tolist(), conv_vals):
            vals[i] = v
    return vals


def _plain_numbers(tokens):
    """Which of ``tokens`` (a polars String Series) are plain integers or
    decimals of at most 18 digits (numpy bool), and their values, as
    ``_value`` gives them (an int when whole, else a Fraction in lowest
    terms), by kernels: 300,000 distinct prices converted one by one took
    ~0.9 s of a fact file's reading."""
    from .exact_pairs import pair_values

    got, num, den = _plain_pairs(tokens)
    return got, pair_values(num[got], den[got])


def _exact_columns(pairs, value_idx, named, width_of, kept, whole=True):
    """Which predicates' value columns of a block are exact numbers (every
    token a plain integer or decimal: read as an exact value column,
    engine/columns/exact_columns.py, as a bound CSV's decimals are), per
    argument a list of bools per predicate (None: no value column), or None
    for none; and which value tokens the other columns read (numpy bool:
    only those are coded).  300,000 distinct prices coded as Fractions, a
    hash each, took ~0.6 s of reading; 300,000 distinct integers coded as
    Python ints and coded again after a rule's arithmetic, 1.9-2.1 s of a
    command's CPU against 1.15 s as exact pairs.  ``whole``: False where a
    column of whole numbers only stays coded (a retraction's facts, coded
    by the model's dictionary: engine/columns/retraction.Known)."""
    import numpy as np

    got = pairs[0]
    frac = got & (pairs[2] != 1)
    kept = np.asarray(kept, dtype=np.int64)
    sizes = np.diff(kept)
    nonempty = sizes > 0
    starts = kept[:-1][nonempty]
    needed = np.zeros(len(got), dtype=bool)
    exact, anyone = [], False
    for j, idx in enumerate(value_idx):
        if idx is None:
            exact.append(None)
            continue
        col = (width_of > j) & ~named[j] & nonempty  # (the predicates with a value column j)
        idx = np.clip(idx, 0, len(got) - 1)  # (rows of predicates narrower than j index any token: masked by col)
        others = np.zeros(len(sizes), dtype=np.int64)
        fracs = np.ones(len(sizes), dtype=np.int64)
        if len(starts):
            others[nonempty] = np.add.reduceat((~got[idx]).astype(np.int64), starts)
            if not whole:
                fracs[:] = 0
                fracs[nonempty] = np.add.reduceat(frac[idx].astype(np.int64), starts)
        ex = col & (others == 0) & (fracs > 0)
        anyone = anyone or bool(ex.any())
        exact.append(ex.tolist())
        needed[idx[np.repeat(col & ~ex, sizes)]] = True
    return (exact, needed) if anyone else (None, None)


def _plain_pairs(tokens):
    """:func:`_plain_numbers` as ``(got, num, den)``: numpy int64 pairs in
    lowest terms for every token (0/1 where ``got`` is False)."""
    import numpy as np

    from .exact_pairs import reduce

    pl = _pl()
    n = len(tokens)
    num, den = np.zeros(n, dtype=np.int64), np.ones(n, dtype=np.int64)
    ints = matches(tokens, PLAIN_INT)
    decs = matches(tokens, r"^-?[0-9]{1,17}\.[0-9]{1,17}$") & (tokens.str.len_bytes().to_numpy() <= 20)
    decs &= ~ints
    got = ints | decs
    if not got.any():
        return got, num, den
    toks = tokens.filter(pl.Series(got))
    point = toks.str.find(".", literal=True).fill_null(-1).to_numpy().astype(np.int64)
    places = np.where(point >= 0, toks.str.len_bytes().to_numpy().astype(np.int64) - point - 1, 0)
    digits = toks.str.replace(".", "", literal=True)
    ok = digits.str.strip_chars_start("-").str.len_bytes().to_numpy() <= 18  # (64 bits; more: converted one by one)
    a, b = reduce(digits.cast(pl.Int64, strict=False).fill_null(0).to_numpy(), (10 ** places).astype(np.int64))
    at = np.flatnonzero(got)
    num[at], den[at] = a, b
    got[at[~ok]] = False
    num[at[~ok]], den[at[~ok]] = 0, 1
    return got, num, den


def _read_times(tokens, calendar):
    """``(units, read)``: the time tokens (a polars String Series) as int64
    where ``read`` (numpy bool) says numpy and polars read them: plain
    integers of at most 18 digits on a numeric timeline (both dialects read
    such a token as its int), dates and date-times in whole units on a
    calendar (``Calendar.whole_points_where``).  Epoch seconds are a
    distinct token per fact: one conversion each in Python, then a pass
    over the ints for the run's time scale, took 0.45 s of a 1.1 s run over
    100,000 facts."""
    import numpy as np

    if calendar is not None:
        return calendar.whole_points_where(tokens)
    read = matches(tokens, PLAIN_INT)
    if not read.any():
        return np.zeros(len(tokens), dtype=np.int64), read
    return tokens.cast(_pl().Int64, strict=False).fill_null(0).to_numpy(), read


def infinity_marks(tokens, read, conv):
    """Per distinct time token (a polars String Series) -1 or +1 where it
    is an infinity the reader takes (``conv``: the token's value, None if
    none), else 0; None: none is.  Only tokens the kernels did not ``read``
    (None: any) are looked at, by their words first (a handful of distinct
    tokens at most are infinities)."""
    import numpy as np

    odd = np.flatnonzero(~read) if read is not None else np.arange(len(tokens))
    if not len(odd):
        return None
    words = tokens.gather(odd).str.to_lowercase().str.strip_chars_start("+-")
    cand = odd[words.is_in(["inf", "infty", "infinity"]).to_numpy()]
    marks = np.zeros(len(tokens), dtype=np.int8)
    for i, tok in zip(cand.tolist(), tokens.gather(cand).to_list()):
        v = conv(tok)
        marks[i] = 1 if v == POS_INF else -1 if v == NEG_INF else 0
    return marks if marks.any() else None


def _time_ratios(tokens, calendar, inf=None):
    """The time tokens (a polars String Series) as :class:`TimeRatios`
    where all are read by polars and numpy and some fall between units:
    date-times on a calendar (``Calendar.micros_where``), plain decimals on
    a numeric timeline (both dialects read them so); else None; ``inf``:
    :func:`infinity_marks` (those tokens are the infinities).  A Fraction
    per token, then ranked by sorting them, took 7 s of 500,000 facts to
    the millisecond on a timeline of minutes."""
    import numpy as np

    if inf is not None:  # (a finite token in their place, marked again after)
        finite = np.flatnonzero(inf == 0)
        if not len(finite):
            return None
        tokens = tokens.clone().scatter(np.flatnonzero(inf), tokens[int(finite[0])])
    if calendar is not None:
        micros, read = calendar.micros_where(tokens)
        got = calendar.unit_ratios(micros) if len(read) and read.all() else None
    else:
        from .exact_pairs import over_one_denominator

        read, num, den = _plain_pairs(tokens)
        if not len(read) or not read.all():
            return None
        got = over_one_denominator(num, den)
    if got is None:
        return None
    return TimeRatios(*got) if inf is None else TimeRatios(np.where(inf != 0, 0, got[0]), got[1], inf)


def _mostly_read(tokens, units, read, conv, memo: dict):
    """The values of the time tokens where most were read (``units``, where
    ``read``: :func:`_read_times`) and the others few (an unbounded end, a
    decimal, a point between units: converted one by one, as
    :func:`_convert` does), else None.  Facts valid until further notice
    (``@[1609459200,+inf)``) put an infinity in most blocks of epoch
    seconds: every token was converted in Python for it."""
    import numpy as np

    odd = np.flatnonzero(~read)
    if len(odd) * 8 > len(tokens):
        return None
    vals = units.tolist()
    for i, v in zip(odd.tolist(), _convert(tokens.gather(odd).to_list(), conv, memo)):
        vals[i] = v
    return vals


def _ranks(values) -> list:
    """Ranks of the values in numeric order (None: rank 0; never compared)."""
    known = sorted({v for v in values if v is not None})
    rank = {v: i + 1 for i, v in enumerate(known)}
    return [0 if v is None else rank[v] for v in values]


_CUT = re.compile(r'"(?:[^"\\]|\\.)*"?|%|//|[\[\]()]|\.(?=\s|$)')


def split_statements(line: str) -> list:
    """``[(column, text), ...]``: the statements of one line, cut after each
    final ``.`` outside strings (one linear scan); a comment ends the line."""
    out = []
    start = 0
    depth = 0
    end = len(line)
    for m in _CUT.finditer(line):
        g = m.group()
        if g in ("%", "//"):
            end = m.start()
            break
        if g in "[(":
            depth += 1
        elif g in "])":
            depth -= 1
        elif g == "." and depth <= 0:
            out.append((start, line[start : m.end()]))
            start = m.end()
    if line[start:end].strip():
        out.append((start, line[start:end]))
    res = []
    for col, text in out:
        stripped = text.lstrip()
        if stripped:
            res.append((col + len(text) - len(stripped) + 1, stripped))
    return res


# fact lines of this process's kernel readings that the kernels read, and
# that they left to the exact parser (comments and blank lines aside):
# ``chronolog run --stats`` prints them
kernel_lines = 0
parsed_lines = 0


def line_counts() -> tuple:
    return kernel_lines, parsed_lines


def restore_line_counts(counts: tuple) -> None:
    """Back to ``counts`` (:func:`line_counts`): a reading whose columns are
    dropped, the file read again another way, is not counted twice."""
    global kernel_lines, parsed_lines
    kernel_lines, parsed_lines = counts


def _place(source, lineno: int) -> tuple:
    """``(file, line)`` of the text's line ``lineno``: ``source`` names the
    file, or is the places of the files joined in the text."""
    return (source, lineno) if isinstance(source, str) else source.place(lineno)


def _slow(text: str, lineno: int, source, dialect, calendar, out: FactColumns) -> None:
    global parsed_lines
    s = text.strip()
    if not s or s[0] == "%" or s.startswith("//") or (dialect == "meteor" and s[0] == "#"):
        return
    if "\r" in s:
        raise _Fallback  # (a lone carriage return, an old Mac line end: the line reader's text reads it as a newline)
    parsed_lines += 1
    source, lineno = _place(source, lineno)
    if dialect == "meteor":
        from .meteor import parse_facts

        try:
            facts = parse_facts([text], source)
        except ChronologError as e:
            _move(e, lineno, 0)
            raise
        for f in facts:
            _add_slow(out, f, ast.Pos(source, lineno, f.pos.column), getattr(f, "every", None))
        return
    pieces = split_statements(text)
    if len(pieces) > 1:
        # the line reader's rule, one fact per line, found by one linear scan
        # instead of a parse of the whole line (a 50 MB line of facts)
        c0, first = pieces[0]
        try:
            _slow_fact(first, lineno, source, calendar)
        except ChronologError as e:
            if c0 != 1:
                _move(e, lineno, c0 - 1)
                e.source_line = ""
                e.args = (e.render(),)
            raise
        from .errors import SyntaxError_

        raise SyntaxError_(
            "expected one fact on this line",
            ast.Pos(source, lineno, pieces[1][0]),
            hint="a fact file has one fact per line: p(a)@[1,5)",
            source_line=text if len(text) <= 200 else text[:200] + " ...",
        )
    f = _slow_fact(text, lineno, source, calendar)
    _add_slow(out, f, f.pos, f.every)


def _add_slow(out: FactColumns, f, pos, every) -> None:
    """A parsed fact into ``out.slow``.  One whose arity differs from the
    kernels' facts of its predicate sends the file to the line reader at
    once: its first error (this one, or an earlier line's) is the one the
    line reader reports, with the first place of the predicate."""
    parts = out.parts.get(f.pred)
    if parts and _width(parts[0]) != len(f.terms):
        raise _Fallback(f.pred)
    out.slow.add(f.pred, f.terms, f.interval, pos, every)


def _move(e: ChronologError, lineno: int, shift: int) -> None:
    """Put the error of a statement read on its own at its place in the file."""
    if e.pos is not None:
        e.pos = ast.Pos(e.pos.file, lineno, e.pos.column + shift if e.pos.column else e.pos.column)
        e.args = (e.render(),)


def read_facts_text(fh, source: str = "<facts>", dialect: str = "vadalog", calendar=None) -> FactRows:
    """FactRows of a fact file read by kernels; a file the kernels cannot
    take as a whole (one predicate with two arities) is read by the line
    reader, whose message names both places."""
    try:
        rows = FactRows()
        cols = read_fact_columns(fh, source, dialect, calendar, rows)
        rows.merge(cols.slow)
        return rows
    except _Fallback:
        if hasattr(fh, "seek"):
            fh.seek(0)
            lines = fh
        else:
            lines = fh.splitlines()
        if dialect == "meteor":
            from .meteor import parse_facts

            rows = FactRows()
            rows.extend_facts(parse_facts(list(lines), source))
            return rows
        from .facts import read_fact_rows

        return read_fact_rows(lines, source, calendar)
