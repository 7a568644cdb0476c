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

from ..interval_codes import DoubledGrid

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
    """A Dictionary's values by code, in parts: polars String Series for the
    strings coded in bulk (a fact file's names, an Arrow table's string
    columns, the strings a rule computes: no Python string each, where one
    cost about 64 bytes; 15 MB of temporal LUBM 1M's 238,010 names) and
    Python lists for the other values (and the few strings coded one by
    one), each part holding the codes from its start to the next part's.
    ``names`` is the first part when it is a Series (codes ``0 ..
    named-1``: the writers' and the retraction's fast paths), else None.
    Indexing gives a Python value (a new string for one of a Series);
    :meth:`take` gives many at once, :meth:`strings_at` a Series."""

    __slots__ = ("parts", "starts", "names", "named", "stringed", "_n")

    def __init__(self):
        self.parts: list = []  # polars String Series or lists, in code order
        self.starts: list = []  # the first code of each part
        self.names = None  # the first part when it is a Series
        self.named = 0  # its length (kept: a Series' len() costs ~1 us, and every value read asks it)
        self.stringed = 0  # how many codes the Series hold
        self._n = 0

    def _push(self, part) -> None:
        self.parts.append(part)
        self.starts.append(self._n)

    def add_strings(self, strings) -> None:
        """Append a polars String Series of new strings (joined to the
        last part when that is a Series too: one part, one join)."""
        import polars as pl

        n = len(strings)
        if not n:
            return
        if self.parts and not isinstance(self.parts[-1], list):
            self.parts[-1] = pl.concat([self.parts[-1], strings], rechunk=True)
        else:
            self._push(strings)
        self._n += n
        self.stringed += n
        if not isinstance(self.parts[0], list):
            self.names, self.named = self.parts[0], len(self.parts[0])

    def __len__(self) -> int:
        return self._n

    def _part(self, i: int) -> int:
        from bisect import bisect_right

        return bisect_right(self.starts, i) - 1

    def __getitem__(self, i):
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if step != 1:
                return self.tolist()[i]
            out: list = []
            if start >= stop:
                return out
            for k in range(self._part(start), len(self.parts)):
                s = self.starts[k]
                if s >= stop:
                    break
                p = self.parts[k]
                a, b = max(start - s, 0), min(stop - s, len(p))
                out += p[a:b] if isinstance(p, list) else p.slice(a, b - a).to_list()
            return out
        i = int(i)
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        k = self._part(i)
        return self.parts[k][i - self.starts[k]]

    def __iter__(self):
        for p in self.parts:
            yield from (p if isinstance(p, list) else p.to_list())

    def __add__(self, other: list) -> list:
        return self.tolist() + list(other)

    def append(self, value) -> None:
        self.extend((value,))

    def extend(self, values) -> None:
        values = list(values)
        if not values:
            return
        if not self.parts or not isinstance(self.parts[-1], list):
            self._push([])
        self.parts[-1].extend(values)
        self._n += len(values)

    def tolist(self) -> list:
        return self[:]

    def _split(self, codes):
        """``codes`` (numpy int64) by part: ``[(part index, positions in
        codes, offsets in the part)]``."""
        import numpy as np

        if len(self.parts) == 1 or not len(codes):
            return [(0, None, codes)]
        k = np.searchsorted(np.asarray(self.starts, dtype=np.int64), codes, side="right") - 1
        ks = np.flatnonzero(np.bincount(k))  # (the parts hit: few; numpy 2.4's unique without an inverse hashes, 10x slower)
        if len(ks) == 1:
            j = int(ks[0])
            return [(j, None, codes - self.starts[j])]
        out = []
        for j in ks.tolist():
            at = np.flatnonzero(k == j)
            out.append((j, at, codes[at] - self.starts[j]))
        return out

    def take(self, codes) -> list:
        """The values of ``codes`` (ints ``0 .. len-1``), in their order."""
        import numpy as np

        codes = np.asarray(codes, dtype=np.int64)
        if not self.parts:
            return []
        out = None
        for j, at, off in self._split(codes):
            p = self.parts[j]
            got = [p[c] for c in off.tolist()] if isinstance(p, list) else p.gather(off).to_list()
            if at is None:
                return got
            if out is None:
                out = [None] * len(codes)
            for i, v in zip(at.tolist(), got):
                out[i] = v
        return out

    def runaway_at(self, codes):
        """engine/runaway.py's ``too_big`` of the largest value of
        ``codes`` that is a runaway one, else None; strings measured in
        their Series."""
        from chronolog.engine.runaway import MAX_CHARS, too_big

        strings = self.strings_at(codes)
        if strings is None:
            return max(filter(None, map(too_big, self.take(codes))), default=None)
        longest = strings.str.len_chars().max() or 0
        return (longest, f"a string of {longest} characters") if longest > MAX_CHARS else None

    def strings_at(self, codes):
        """The values of ``codes`` as a polars String Series when every one
        is in a Series part (no Python string made), else None."""
        import numpy as np
        import polars as pl

        codes = np.asarray(codes, dtype=np.int64)
        if not len(codes) or not self.stringed:
            return None
        split = self._split(codes)
        if any(isinstance(self.parts[j], list) for j, _, _ in split):
            return None
        if len(split) == 1:
            j, _, off = split[0]
            return self.parts[j].gather(off)
        pieces = pl.concat([self.parts[j].gather(off) for j, _, off in split])
        where = np.concatenate([at for _, at, _ in split])
        back = np.empty(len(codes), dtype=np.int64)
        back[where] = np.arange(len(codes), dtype=np.int64)
        return pieces.gather(back)


def _number_kind(v) -> int:
    """Which of the kinds that compare equal across types a value is: a
    binary float, or anything else (an exact int or rational).  A boolean
    is a term of its own (language/booleans.py): it never equals a number,
    so it gets its own code and never counts here."""
    return 1 if type(v) is float else 2


class Dictionary:
    """Term value <-> integer code, one per run (dict equality, as the rows).

    ``values`` (code -> value) is always complete; the dict ``codes`` (value
    -> code) is built when a lookup first needs it, and for the strings of
    ``values``' Series only when a single string is looked up
    (:meth:`_dict_for`): strings coded in bulk (:meth:`code_names`) are
    found by joins, whatever was coded before them, and a run that never
    looks a value up (a large ``chronolog run`` whose rules name no
    constant) never builds it.  On temporal LUBM 1M (238,010 names) the
    dict and its int objects were 18 MB of the 30 MB the Dictionary held."""

    def __init__(self):
        self._codes: dict = {}
        self._decoded: dict = {}  # code -> value, of codes :meth:`value` gave
        self._in_dict: list = []  # per part of ``values``: how many of its values are keys of _codes
        self._indexed = 0  # how many strings of the Series parts are keys of _codes
        self.values = TermValues()
        # lookups that found an equal value of another kind (1 beside 1.0;
        # never #T, a term of its own): one code would give one the other's type, where the rows keep
        # each fact's own value; the columnar evaluator gives such a stratum
        # to the rows (evaluator._run_columns)
        self.conflations = 0
        self._name_hashes = None  # (names Series, its hashes sorted, their codes): look_up_names
        self._floats = False  # whether a float was ever coded (else only a float looked up can conflate)
        self._loose: list = []  # codes (numpy arrays) of the strings in list parts: joined too (code_names)
        self._loose_frame = None  # (how many codes, their frame of strings and codes)

    def _add(self, values) -> None:
        """Append new ``values`` (codes ``len(self.values) ..``)."""
        import numpy as np

        kinds = set(map(type, values))
        if float in kinds:
            self._floats = True
        n0 = len(self.values)
        if str in kinds:
            at = [i for i, v in enumerate(values) if type(v) is str] if len(kinds) > 1 else range(len(values))
            self._loose.append(np.asarray(at, dtype=np.int64) + n0)
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
        found = [(v, c) for v, c in zip(looked_up, codes) if c is not None and type(v) is not str]
        if found:  # (their values taken at once: indexing each, a bisect of the parts, was 2.6 s of 1M floats coded again)
            held = self.values.take([c for _, c in found])
            self.conflations += sum(_number_kind(v) != _number_kind(w) for (v, _), w in zip(found, held))

    @property
    def codes(self) -> dict:
        """value -> code (built from ``values`` for what was only appended)."""
        return self._index()

    def _index(self, series: bool = True) -> dict:
        """The dict of every value (``series``: of the Series parts' strings
        too, else at least of every value of the list parts)."""
        vals, done, d = self.values, self._in_dict, self._codes
        done += [0] * (len(vals.parts) - len(done))
        for k, p in enumerate(vals.parts):
            m = done[k]
            if m < len(p) and (series or isinstance(p, list)):
                s = vals.starts[k]
                d.update(zip(p[m:] if isinstance(p, list) else p.slice(m).to_list(), range(s + m, s + len(p))))
                done[k] = len(p)
                if not isinstance(p, list):
                    self._indexed += len(p) - m
        return d

    def _index_rest(self) -> dict:
        """The dict holding at least every value of the list parts
        (:class:`TermValues`), not built for the Series' strings where
        they are not in it yet: a lookup without a string asks it."""
        return self._index(series=self._indexed >= self.values.stringed)

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
        the one of the list parts (:meth:`_index_rest`: a string of a
        Series equals no value of another type)."""
        if self._indexed >= self.values.stringed or any(isinstance(v, str) for v in values):
            return self._index()  # (every string in the dict already: no pass over ``values``)
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
            if all(type(v) is str for v in values) or len(set(values)) == len(values):
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

    def code_new(self, values):
        """The codes of ``values`` no code holds yet and no two of them
        equal (a chase's new nulls): appended, no lookup; the dict learns
        them when a lookup next needs it (:meth:`_index`).  200,000 nulls
        looked up and indexed at once took 0.13 s."""
        import numpy as np

        n0 = len(self.values)
        self._add(values)
        return np.arange(n0, n0 + len(values), dtype=np.int64)

    def code_names(self, names):
        """The codes of ``names``, a polars String Series of distinct strings
        (a fact file's names, an Arrow column's, a rule's results): found by
        a join against every string coded before (whatever else was coded
        between them: no Python string each), the new ones appended as a
        Series part in order (the codes code_all gives)."""
        import numpy as np
        import polars as pl

        vals = self.values
        n = len(vals)
        if not n:
            vals.add_strings(names)
            return np.arange(len(names), dtype=np.int64)
        codes = self._join_strings(names)
        new = codes < 0
        k = int(new.sum())
        if k:
            codes[new] = np.arange(n, n + k, dtype=np.int64)
            vals.add_strings(names.filter(pl.Series(new)) if k < len(names) else names)
        return codes

    def _join_strings(self, names, after_names: bool = False):
        """The codes of ``names`` (distinct strings) among the strings coded
        so far (numpy int64, -1 where none), by a join (``after_names``:
        among those coded after the first part's names only)."""
        import numpy as np
        import polars as pl

        vals = self.values
        known = [
            p.to_frame("t").with_columns(pl.int_range(s, s + len(p), dtype=pl.Int64).alias("i"))
            for k, (p, s) in enumerate(zip(vals.parts, vals.starts))
            if not isinstance(p, list) and not (after_names and k == 0)
        ]
        loose = self._loose_strings()
        if loose is not None:
            known.append(loose)
        if not known:
            return np.full(len(names), -1, dtype=np.int64)
        table = known[0] if len(known) == 1 else pl.concat(known)
        # (an inner join, its rows put back by their index: a third of the
        # CPU of a left join keeping the left order, 1M names among 2M)
        got = names.to_frame("t").with_row_index("r").join(table, on="t", how="inner")
        out = np.full(len(names), -1, dtype=np.int64)
        out[got["r"].to_numpy()] = got["i"].to_numpy()
        return out

    def _loose_strings(self):
        """The strings of the list parts and their codes, a polars frame
        (kept until more come), or None without any."""
        import numpy as np
        import polars as pl

        if not self._loose:
            return None
        count = sum(map(len, self._loose))
        if self._loose_frame is None or self._loose_frame[0] != count:
            codes = np.concatenate(self._loose) if len(self._loose) > 1 else self._loose[0]
            self._loose = [codes]
            strs = self.values.take(codes)
            try:
                t = pl.Series(strs, dtype=pl.String)
            except Exception:  # noqa: BLE001 - a lone surrogate (no UTF-8): it equals no string of a Series
                keep = [i for i, s in enumerate(strs) if _utf8(s)]
                codes, t = codes[keep], pl.Series([strs[i] for i in keep], dtype=pl.String)
            self._loose_frame = (count, pl.DataFrame({"t": t, "i": pl.Series(codes, dtype=pl.Int64)}))
        return self._loose_frame[1]

    def lookup(self, value):
        """The code of ``value``, or None when no fact of the run has it."""
        return self._dict_for((value,)).get(value)

    def look_up_names(self, names):
        """The codes of a polars String Series of names (numpy int64, -1 for
        a name no fact of the run has), adding none.  The first part's names
        (``values.names``) are found through their 64-bit hashes, sorted
        once (``searchsorted``, then the names compared), the others by a
        join: a dict lookup cost 0.5-0.7 us a name among temporal LUBM
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
        if len(missed) and (shared or self._loose or self.values.stringed > self.values.named):
            # (a name whose hash another shares: the first part joined too)
            out[missed] = self._join_strings(names.gather(missed), after_names=not shared)
        return out


def _utf8(s: str) -> bool:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class TimeScale(DoubledGrid):
    """The common integer scale of a run's time points (its codes: interval_codes.py)."""

    def __init__(self, scale: int = 1):
        self.scale = self.L = scale

    @staticmethod
    def for_points(points) -> "TimeScale":
        """The least common denominator of ``points`` (finite rationals, ±inf)."""
        den = 1
        for p in points:
            if isinstance(p, Fraction):
                den = lcm(den, p.denominator)
                if den > MAX_SCALE:
                    raise Fallback(f"time points with a common denominator above {MAX_SCALE}")
        return TimeScale(den)

    def unit(self, t) -> int:
        """A finite time point in units of 1/scale (exact; Fallback if not on the grid)."""
        v = t * self.scale
        if isinstance(v, Fraction):
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
