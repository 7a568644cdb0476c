"""Terms and time as integers, exactly.

Terms: one :class:`Dictionary` per run maps each value to a code, with a
Python dict's equality, so two values get the same code exactly when the
row engine's dicts and tuples treat them as the same term (``1``, ``1.0``
and ``Fraction(1)`` are one term there, and so they are here).  Strings
are kept in a polars column and found by joins (a string equals only a
string, byte for byte), the other terms in a dict.  But a code
holds one value, where the rows keep each atom's own (``1`` in one fact,
``1.0`` in another): a stratum whose lookups meet an equal number of
another kind runs on the rows (:attr:`Dictionary.conflations`).

Time: every time point and window of a run is a rational; :class:`TimeScale`
multiplies them by the least common denominator ``L`` of all of them, so a
point is an exact integer.  An interval is two integers on the doubled grid::

    s = 2*lo*L + (0 if lo closed else 1)      e = 2*hi*L + (1 if hi closed else 0)

and stands for the integer range ``[s, e)``: the even number ``2t`` is the
point ``t``, the odd ``2t+1`` the open stretch just after it.  With that one
encoding intersection is ``max(s), min(e)``, an interval is non-empty when
``s < e``, two intervals touch (overlap or meet at a covered point) when the
later start is ``<=`` the earlier end, and sorting by ``s`` puts a closed start
before an open one at the same point (the rows' ``start_key``).  The unbounded
ends are the sentinels ``NEG``/``POS``, far outside every finite code; a finite
result that leaves ``(-LIMIT, LIMIT)`` raises :class:`Fallback` (the stratum
then runs on the row executor), so nothing ever wraps or rounds.
"""

from __future__ import annotations

from fractions import Fraction
from math import lcm

from ..interval_codes import NEG, POS, DoubledGrid

LIMIT = 2**60  # finite codes stay inside (-LIMIT, LIMIT); sums of two stay far from the sentinels
MAX_SCALE = 2**24  # a larger common denominator is treated as "exploding": rows instead


def inside(values, bound: int) -> bool:
    """Whether every int64 of ``values`` lies strictly inside (-bound, bound).
    Not ``np.abs(values).max() < bound``: abs(-2**63) is -2**63 (no int64
    is its opposite), which passed that test and then doubled to code 0."""
    return not len(values) or (int(values.min()) > -bound and int(values.max()) < bound)


def int64s(values):
    """The Python ints ``values`` as an int64 array, or None where one does not fit."""
    import numpy as np

    try:
        return np.array(values, dtype=np.int64)
    except OverflowError:
        return None


# the reason a stratum whose run met equal numbers of two types gives (evaluator, maintenance)
CONFLATION = "equal numbers of two types (such as 1 and 1.0): one code on columns would give both one type"


class Fallback(Exception):
    """The columnar executor cannot run this stratum exactly; rows will.
    ``point``: the time point the reason names (``{point}`` in it, and
    ``{unit}`` after a length), written as the timeline writes it by
    :meth:`text` (a date timeline's dates, not the engine's day numbers)."""

    def __init__(self, why: str, point=None):
        super().__init__(why)
        self.point = point

    def text(self, calendar=None) -> str:
        why = self.args[0]
        if self.point is None:
            return why
        if calendar is None:
            return why.format(point=self.point, unit="")
        return why.format(point=calendar.format_point(self.point), unit=f" {calendar.unit}")

    def __str__(self) -> str:
        return self.text()


class TermValues:
    """A Dictionary's values by code, as a list: the names a fact file
    codes into an empty Dictionary are one polars String Series (codes ``0 ..
    len(names)-1``) instead of a Python string each (about 64 bytes a name:
    15 MB of temporal LUBM 1M's 238,010), then a list of what came after.
    Indexing gives a Python value (a new string for a name); :meth:`take`
    gives many at once."""

    __slots__ = ("_names", "named", "_rest")

    def __init__(self):
        self.names = None  # polars String Series, or None
        self._rest: list = []

    def set_names(self, names) -> None:
        assert not len(self), "names come first"
        self.names = names

    @property
    def names(self):
        return self._names

    @names.setter
    def names(self, names) -> None:
        self._names = names
        # how many codes the file's names hold (the first ones), kept: a
        # Series' len() costs ~1 us, and every value read asks it
        self.named = 0 if names is None else len(names)

    def __len__(self) -> int:
        return self.named + len(self._rest)

    def __getitem__(self, i):
        if isinstance(i, slice):
            n = self.named
            start, stop, step = i.indices(len(self))
            if step != 1 or not n:
                return self.tolist()[i] if n else self._rest[i]
            if start >= n:  # (what was coded after the names: no string made for them)
                return self._rest[start - n : stop - n]
            head = self.names.slice(start, max(0, min(stop, n) - start)).to_list()
            return head + self._rest[: max(0, stop - n)]
        i = int(i)
        n = self.named
        if i < 0:
            i += len(self)
        if 0 <= i < n:
            return self._names[i]
        if i < 0:
            raise IndexError(i)
        return self._rest[i - n]

    def __iter__(self):
        if self.named:
            yield from self.names.to_list()
        yield from self._rest

    def __add__(self, other: list) -> list:
        return self.tolist() + list(other)

    def append(self, value) -> None:
        self._rest.append(value)

    def extend(self, values) -> None:
        self._rest.extend(values)

    def tolist(self) -> list:
        return (self.names.to_list() if self.named else []) + self._rest

    def take(self, codes) -> list:
        """The values of ``codes`` (ints ``0 .. len-1``), in their order."""
        import numpy as np

        codes = np.asarray(codes, dtype=np.int64)
        n = self.named
        if not n:
            rest = self._rest
            return [rest[c] for c in codes.tolist()]
        if len(codes) == 0 or codes.max() < n:
            return self.names.gather(codes).to_list()
        out = [None] * len(codes)
        head = np.flatnonzero(codes < n)
        for i, v in zip(head.tolist(), self.names.gather(codes[head]).to_list()):
            out[i] = v
        rest = self._rest
        for i in np.flatnonzero(codes >= n).tolist():
            out[i] = rest[int(codes[i]) - n]
        return out


def _number_kind(v) -> int:
    """Which of the kinds that compare equal across types a value is: a
    binary float, or anything else (an exact int or rational).  A boolean
    is a term of its own (language/booleans.py): it never equals a number,
    so it gets its own code and never counts here."""
    return 1 if type(v) is float else 2


class Dictionary:
    """Term value <-> integer code, one per run (dict equality, as the rows).

    ``values`` (code -> value) is always complete; the dict ``codes`` (value
    -> code) is built when a lookup first needs it, and for the names only
    when a single string is looked up (:meth:`_dict_for`): the distinct names of a
    fact file coded into an empty Dictionary (``code_all(..., distinct=True)``)
    are only appended, and a run that never looks a value up (a large
    ``chronolog run`` whose rules name no constant) never builds it.  On
    temporal LUBM 1M (238,010 names) the dict and its int objects were 18 MB
    of the 30 MB the Dictionary held."""

    def __init__(self):
        self._codes: dict = {}
        self._decoded: dict = {}  # code -> value, of codes :meth:`value` gave
        self._indexed = 0  # values[:_indexed] are keys of _codes
        self._rest_indexed = 0  # values.rest[:_rest_indexed] are keys too (the names not all: _index_rest)
        self.values = TermValues()
        # lookups that found an equal value of another kind (1 beside 1.0;
        # never #T, a term of its own): one code would give one the other's type, where the rows keep
        # each fact's own value; the columnar evaluator gives such a stratum
        # to the rows (evaluator._run_columns)
        self.conflations = 0
        self._name_hashes = None  # (names Series, its hashes sorted, their codes): look_up_names
        self._floats = False  # whether a float was ever coded (else only a float looked up can conflate)

    def _add(self, values) -> None:
        """Append new ``values`` (codes ``len(self.values) ..``)."""
        if not self._floats:
            self._floats = any(type(v) is float for v in values)
        self.values.extend(values)

    @property
    def has_floats(self) -> bool:
        """Whether a float was ever coded: else a value coded meets an equal
        number of another kind only if it is a float (:meth:`_check_kinds`)."""
        return self._floats

    def _check_kinds(self, looked_up, codes) -> None:
        """Count the numbers among ``looked_up`` whose code holds an equal
        number of another kind (strings never equal a number: skipped).
        Without a float on either side there is none: the pass over the
        codes' values is skipped (200 predicates of one fact file looked
        up the same 1,000 integers each: 0.1 s)."""
        if not self._floats and not any(type(v) is float for v in looked_up):
            return
        values = self.values
        for v, c in zip(looked_up, codes):
            if c is not None and type(v) is not str and _number_kind(v) != _number_kind(values[c]):
                self.conflations += 1

    @property
    def codes(self) -> dict:
        """value -> code (built from ``values`` for what was only appended)."""
        return self._index()

    def _index(self) -> dict:
        vals = self.values
        n = len(vals)
        if self._indexed < n:
            named = vals.named
            if self._indexed < named and self._rest_indexed:  # (the names, then what came after and is not in yet)
                self._codes.update(zip(vals[self._indexed : named], range(self._indexed, named)))
                self._indexed = named + self._rest_indexed
            self._codes.update(zip(vals[self._indexed :], range(self._indexed, n)))
            self._indexed = n
        return self._codes

    def _index_rest(self) -> dict:
        """The dict holding at least every value coded after the names
        (:class:`TermValues`), not built for the names where they are not
        in it yet: a lookup that found no name by a join asks it."""
        vals = self.values
        named, rest = vals.named, vals._rest
        if self._indexed >= named:
            return self._index()
        if self._rest_indexed < len(rest):
            k = self._rest_indexed
            self._codes.update(zip(rest[k:], range(named + k, named + len(rest))))
            self._rest_indexed = len(rest)
        return self._codes

    def value(self, code: int):
        """The value of one code, kept once fetched (a name is an element of a
        polars Series: ~30 us to fetch; an update by atoms fetches a few
        hundred, point_relation.py)."""
        got = self._decoded.get(code)
        if got is None:
            got = self._decoded[code] = self.values[code]
        return got

    def values_of(self, codes: list) -> list:
        """:meth:`value` of each of ``codes`` (a list), those fetched before
        read in one pass (an update by atoms decodes a few hundred terms
        an update, most of them read before)."""
        out = list(map(self._decoded.get, codes))
        if None in out:  # (fetched for the first time; or a value that is None, fetched again)
            value = self.value
            out = [value(c) if v is None else v for c, v in zip(codes, out)]
        return out

    def _dict_for(self, values) -> dict:
        """The dict to look ``values`` up in: without a string among them,
        the one of what came after the names (:meth:`_index_rest`: a name
        is a string, equal to no value of another type)."""
        if self._indexed >= self.values.named or any(isinstance(v, str) for v in values):
            return self._index()  # (every name in the dict already: no pass over ``values``)
        return self._index_rest()

    def code(self, value) -> int:
        c = self._dict_for((value,)).get(value)
        if c is None:
            c = len(self.values)
            self._add((value,))
            self._index_rest()  # (the value appended just now)
        elif type(value) is not str:
            self._check_kinds((value,), (c,))
        return c

    def code_all(self, values: list, distinct: bool = False):
        """The codes of ``values`` (numpy int64): a dict lookup each in one
        pass, the new ones added in bulk in order (one by one when two of
        them are equal, such as 0.0 and -0.0; ``distinct``: the caller knows
        no two are, as after ``np.unique``)."""
        import numpy as np

        if distinct and not self.values:  # every value is new: appended, no lookup (``codes``)
            if all(type(v) is str for v in values):
                self.values.extend(values)  # (no float among them)
                return np.arange(len(values), dtype=np.int64)
            if len(set(values)) == len(values):
                self._add(values)
                return np.arange(len(values), dtype=np.int64)
            distinct = False  # (two were equal after all, as 1 and 1.0: one by one below)
        get = self._dict_for(values).get
        out = [get(v) for v in values]
        if out.count(None) == len(out) and (distinct or len(set(values)) == len(values)):
            # none known yet (a column of day numbers): appended in bulk, no per-value pass
            n0 = len(self.values)
            self._add(values)
            self._index_rest()
            return np.arange(n0, n0 + len(values), dtype=np.int64)
        self._check_kinds(values, out)
        if None in out:
            new = [v for v, c in zip(values, out) if c is None]
            if not distinct and len(set(new)) != len(new):
                code = self.code
                out = [code(v) if c is None else c for v, c in zip(values, out)]
            else:
                n0 = len(self.values)
                self._add(new)
                self._index_rest()  # (the values appended just now)
                it = iter(range(n0, n0 + len(new)))
                out = [next(it) if c is None else c for c in out]
        return np.array(out, dtype=np.int64)

    def code_names(self, names):
        """The codes of ``names``, a polars String Series of distinct names
        (a fact file's, an Arrow column's, a rule's results): kept as that
        Series when the Dictionary is empty (:class:`TermValues`), else
        found by a join against its names (appended to them while nothing
        else is coded), the others looked up in the dict of what came
        after the names."""
        import numpy as np

        vals = self.values
        if not len(vals):
            vals.set_names(names)
            return np.arange(len(names), dtype=np.int64)
        if vals.named and not vals._rest:  # names only so far (a later batch of the file's): looked up by a join
            import polars as pl

            n = vals.named
            codes = self._join_names(names)
            new = codes < 0
            codes[new] = np.arange(n, n + int(new.sum()), dtype=np.int64)
            vals.names = pl.concat([vals.names, names.filter(pl.Series(new))], rechunk=True)
            return codes
        if not vals.named:
            return self.code_all(names.to_list(), distinct=True)
        # names, then other values: the names found by a join, the others
        # looked up in the dict of what came after them (the dict of every
        # name, 1M names: ~1 s, is not built), the new ones appended after
        # them in order (the codes code_all gives)
        codes = self._join_names(names)
        missed = np.flatnonzero(codes < 0)
        if len(missed):
            get = self._index_rest().get
            strs = names.gather(missed).to_list()
            got = [get(v) for v in strs]
            fresh = [v for v, c in zip(strs, got) if c is None]
            if fresh:
                it = iter(range(len(vals), len(vals) + len(fresh)))
                got = [next(it) if c is None else c for c in got]
                vals.extend(fresh)
                self._index_rest()  # (the values appended just now)
            codes[missed] = got
        return codes

    def _join_names(self, names):
        """The codes of ``names`` (distinct strings) among the Dictionary's
        names (numpy int64, -1 where not one of them), by a join."""
        import numpy as np

        known = self.values.names.to_frame("t").with_row_index("i")
        at = names.to_frame("t").join(known, on="t", how="left", maintain_order="left")["i"]
        return at.fill_null(-1).to_numpy().astype(np.int64)

    def lookup(self, value):
        """The code of ``value``, or None when no fact of the run has it."""
        return self._dict_for((value,)).get(value)

    def look_up_names(self, names):
        """The codes of a polars String Series of names (numpy int64, -1 for
        a name no fact of the run has), adding none.  The file's names
        (``values.names``) are found through their 64-bit hashes, sorted
        once (``searchsorted``, then the names compared), the others through
        the dict: a dict lookup cost 0.5-0.7 us a name among temporal LUBM
        1M's 238,010 (cache misses), 10 ms for a retraction's 15,000 names."""
        import numpy as np

        out = np.full(len(names), -1, dtype=np.int64)
        known, shared = self.values.names, False
        if known is not None and len(known) and len(names):
            if self._name_hashes is None or self._name_hashes[0] is not known:
                hashes = known.hash(0).to_numpy()
                order = np.argsort(hashes)
                hashes = hashes[order]
                self._name_hashes = (known, hashes, order, bool((hashes[1:] == hashes[:-1]).any()))
            _, hashes, order, shared = self._name_hashes
            mine = names.hash(0).to_numpy()
            # (probes in order: a quarter of the CPU of random ones, whose
            # binary searches miss the cache; 15,000 among 238,000: 2.2 -> 0.6 ms)
            by = np.argsort(mine)
            at = np.empty(len(mine), dtype=np.int64)
            at[by] = np.minimum(hashes.searchsorted(mine[by]), len(hashes) - 1)
            maybe = np.flatnonzero(hashes[at] == mine)
            same = (known.gather(order[at[maybe]]) == names.gather(maybe)).to_numpy()  # (two names may share a hash)
            out[maybe[same]] = order[at[maybe[same]]]
        missed = np.flatnonzero(out < 0)
        if len(missed) and (known is None or self.values._rest or shared):
            get = (self.codes if shared else self._index_rest()).get  # (what came after the names, and a name whose hash another shares)
            found = [get(v, -1) for v in names.gather(missed).to_list()]
            out[missed] = found
        return out


class TimeScale(DoubledGrid):
    """The common integer scale of a run's time points (its codes: interval_codes.py)."""

    def __init__(self, scale: int = 1):
        self.scale = self.L = scale

    @staticmethod
    def for_points(points) -> "TimeScale":
        """The least common denominator of ``points`` (finite rationals, ±inf)."""
        den = 1
        for p in points:
            if type(p) is Fraction:
                den = lcm(den, p.denominator)
                if den > MAX_SCALE:
                    raise Fallback(f"time points with a common denominator above {MAX_SCALE}")
        return TimeScale(den)

    def unit(self, t) -> int:
        """A finite time point in units of 1/scale (exact; Fallback if not on the grid)."""
        v = t * self.scale
        if type(v) is Fraction:
            if v.denominator != 1:
                raise Fallback(f"time point {{point}} is not a multiple of 1/{self.scale}{{unit}}", t)
            v = v.numerator
        elif type(v) is float and not v.is_integer():
            # a float time point (a head interval term computed from a float)
            # is on no grid: int() would cut 1.2 to 1
            raise Fallback("time point {point} is a float", t)
        if not -LIMIT < 2 * v < LIMIT:
            raise Fallback("time point {point} is outside 64-bit codes", t)
        return int(v)
