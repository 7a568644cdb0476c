"""The canonical fact text of a model, sorted, formatted once per distinct value.

``chronolog run`` prints every fact as ``p(a,1)@[1,5)``, sorted by
predicate, terms (numbers, then strings, then booleans) and start.  Formatting
each fact on its own cost about half of a run on a large model.  Here:

* the ground atoms are ordered by ``numpy.lexsort`` over per-column ranks
  (each distinct constant is ranked once by ``term_sort_key``), and the
  intervals of one atom are already sorted in the store (maximal, disjoint);
* each atom's text and each distinct interval's text are formatted once;
* from the columnar executor's relations the lines are assembled by
  polars kernels: distinct values formatted once, ``gather`` and
  ``concat_str`` (no pyarrow: a run that reads and prints text never
  loads it); the Arrow table and CSV writers here use Arrow's.

The text is byte-identical to :func:`chronolog.language.dates.format_fact`
applied fact by fact.  Relations held as rows print by connectors/text_rows.py,
which a run on rows imports without this module's column libraries' helpers.
"""

from __future__ import annotations

from fractions import Fraction

from chronolog.engine.columns.exact_columns import Rows
from chronolog.engine.columns.exact_columns import distinct as exact_distinct
from chronolog.engine.columns.exact_columns import python_values as exact_values
from chronolog.engine.columns.exact_columns import texts as exact_texts
from chronolog.engine.exprs import to_numpy
from chronolog.engine.interval_codes import closed_ends
from chronolog.language.nulls import Null
from chronolog.language.term_ranks import string_ranks, term_ranks
from chronolog.language.text import format_term
from chronolog.language.timeline import format_number

from .text_rows import relation_lines, sorted_atoms  # noqa: F401 (re-exported: callers print relations held as rows through text_out)


def frame_columns(
    df, arity: int, terms, scale, term_array, start_array, end_array, time_array=None, names_by_kernels: bool = False,
    name_memo=None, lead=None, ends_array=None,
):
    """A relation held as columns (engine/columns/relation.py: term codes of
    ``terms``, interval codes on the grid of ``scale``) in the order of the
    text output (terms in term order, then the start): ``(order, columns)``
    where each column is ``(distinct, positions)``: the distinct values
    (what ``term_array``, ``start_array`` and ``end_array`` give: polars or
    Arrow) and each row's position among them (numpy), with
    ``distinct[positions[order]]`` the column in that order
    (:func:`_take`); ``order`` is None when the rows are in that order
    already (a relation sorted by its codes usually is: no sort, no take).

    Each distinct term goes through ``term_array(codes, values)`` once (a
    column of float values goes whole: ``term_array(None, floats)``, a numpy
    array of every row's float, and its ``positions`` is None: the array is
    taken by the order directly), each distinct start through
    ``start_array([(lo, lo_closed)])`` and end through
    ``end_array([(hi, hi_closed)])``: no Python object per fact.
    ``time_array(codes, unbounded_code)``, when given, makes the whole
    ``s`` or ``e`` column at once by numpy (or returns None: then the
    distinct ends are converted).  ``ends_array(used, unbounded_code)``,
    when given, makes the distinct ends of the sorted codes ``used`` at
    once (or returns None: then they are converted one by one).
    ``names_by_kernels``: a column whose terms are all names of a fact file
    (the Dictionary's names, a polars Series: encoding.TermValues) is ranked by a
    polars sort and goes to ``term_array(codes, names)`` as that
    Series: no Python string per name (LUBM 1M: 6 MB for student's 94k).
    ``name_memo(used)``: such a column's ``(texts, ranks)`` kept for the
    run (:meth:`TermTexts.names`), or None.  ``lead``: a key (numpy
    integers) that sorts before the terms, as the relation of each row of
    relations printed together (:func:`columns_text_runs`)."""
    import numpy as np

    from chronolog.engine.interval_codes import NEG, POS
    from chronolog.language.timeline import NEG_INF, POS_INF

    from chronolog.engine.columns import exact_columns as ex

    values = terms.values
    keys, cols = ([] if lead is None else [lead]), []
    ordered = False  # whether the keys so far order the rows alone (a column of a distinct term each row: no later key)
    for j in range(arity):
        col = df[str(j)]
        if ex.is_exact(col):  # exact pairs: its distinct values go (ex.Rows), with each row's position among them
            num, den = ex.parts(col)
            if not ordered:
                keys.append(ex.Rows(num, den))  # value order (term order of numbers): a key made only to sort
            # (as codes go: a text per distinct value, gathered chunk by chunk; a text per row
            # of a path's 2M rows over 100,000 whole numbers held ~100 MB more at the peak)
            un, ud, at = ex.distinct(num, den)
            cols.append((term_array(None, ex.Rows(un, ud)), at))
            continue
        if col.dtype.is_float():  # float values, not codes (engine/columns/value_columns.py)
            floats = col.to_numpy()
            if not ordered:
                keys.append(floats)  # finite: sorted by value, as term order sorts numbers (-0.0 ties 0.0)
            cols.append((term_array(None, floats), None))
            continue
        used, pos = _term_positions(col.to_numpy(), len(values))
        named = getattr(values, "named", 0) if names_by_kernels else 0
        known = name_memo(used) if name_memo is not None and len(used) and used[-1] < named else None
        if known is not None:  # (the texts and ranks of every name, made once: name_memo)
            texts, rank = known
            if not ordered:
                keys.append(rank[pos])
            cols.append((texts, pos))
        else:
            vals = values.strings_at(used) if names_by_kernels and hasattr(values, "strings_at") else None
            if vals is not None:  # (strings of the Dictionary's Series: no Python string each)
                if not ordered:
                    keys.append(string_ranks(vals)[pos])  # UTF-8 byte order: Python's
            else:
                vals = values.take(used) if hasattr(values, "take") else [values[i] for i in used.tolist()]
                if not ordered:
                    rank = term_ranks(vals).astype(np.int32)
                    # (ranks rising with the codes, as a run's terms usually are: the
                    # positions sort alike, no gather of a key per row)
                    keys.append(pos if bool(np.all(rank[1:] > rank[:-1])) else rank[pos])
            cols.append((term_array(used, vals), pos))
        ordered = ordered or len(used) == len(pos)
        del pos
    s = df["s"].to_numpy()
    e = df["e"].to_numpy()
    if not _in_order([*keys, s]):
        from chronolog.engine.columns.coalesce import sort_order

        # ranks, codes and floats: one argsort of a combined key where it fits (np.lexsort
        # of the as-of recipe's 1M fills, a float among their keys: 0.3 s against 0.05 s)
        order = sort_order([ex.sort_keys(k.num, k.den) if isinstance(k, ex.Rows) else k for k in keys], s)
    else:
        order = None
    del keys
    point = scale.point
    for codes, make, inf, lim in ((s, start_array, NEG_INF, NEG), (e, end_array, POS_INF, POS)):
        whole = time_array(codes, lim) if time_array is not None else None
        if whole is not None:
            cols.append((whole, None))
            continue
        lo, hi = (int(codes.min()), int(codes.max())) if len(codes) else (0, 0)
        if hi - lo <= 16 * len(codes):  # (ends in a short range, none unbounded: a table over it, no search;
            # times of three decimals on 200,000 rows span 10x their count: the sort and search took 28 ms, the table 1-4)
            used, pos = _term_positions(codes - lo, hi - lo + 1)
            used += lo
        else:
            used, pos = _sorted_positions(codes)
        made = ends_array(used, lim) if ends_array is not None else None
        if made is None:
            made = make([(inf, False) if c == lim else (point(c >> 1), (c & 1) == (lim == POS)) for c in used.tolist()])
        cols.append((made, pos))
        del pos
    return order, cols


def _in_order(keys) -> bool:
    """Whether the rows are sorted by ``keys`` (the first key first), in one
    pass: each row's key tuple is at least the one before."""
    import numpy as np

    n = len(keys[0]) if keys else 0
    if n < 2:
        return True
    from chronolog.engine.columns.exact_columns import steps

    greater = np.zeros(n - 1, dtype=bool)
    equal = np.ones(n - 1, dtype=bool)
    for k in keys:
        g, q = steps(k.num, k.den) if isinstance(k, Rows) else (k[1:] > k[:-1], k[1:] == k[:-1])
        greater |= equal & g
        equal &= q
    return bool((greater | equal).all())


def _take(distinct, positions, order, start: int = 0, length=None):
    """Rows ``start .. start+length`` (all by default) of a column of
    :func:`frame_columns` in the order ``order`` (None: as they are)."""
    if order is None:
        n = len(distinct) if positions is None else len(positions)
        stop = n if length is None else min(n, start + length)
        if positions is None:
            return distinct.slice(start, stop - start)
        rows = positions[start:stop]
    else:
        idx = order if length is None else order[start : start + length]
        rows = idx if positions is None else positions[idx]
    if hasattr(distinct, "gather"):  # polars
        return distinct.gather(rows)
    import pyarrow as pa  # (an Arrow column: the writer of a table or CSV file)

    return _arrow_take(distinct, pa.array(rows))


def _arrow_take(array, indices):
    """``array.take(indices)`` without importing ``pyarrow.compute``: its
    Python module writes a wrapper for each of Arrow's ~300 functions, 20
    ms of CPU in a first call whose user never asked for them (the kernel
    is the same ``call_function("take")``, from the extension module that
    holds it; the public module where pyarrow moves it)."""
    try:
        from pyarrow._compute import call_function
    except ImportError:  # (a pyarrow that moved it)
        from pyarrow.compute import call_function
    return call_function("take", [array, indices])


def _float_texts(vals, term_text):
    """The texts of a float value column as an Arrow string array: Python's
    ``repr`` by Arrow kernels (float_text.py) when ``term_text`` prints
    floats so (every printer does: format_number), else one call per
    distinct float.  Arrow-only, and only for float value columns (a CSV
    or Parquet input's floats), never for a fact file's numbers, which are
    exact."""
    import numpy as np
    import pyarrow as pa

    from .float_text import float_texts

    vals = np.asarray(vals, dtype=np.float64) + 0.0  # -0.0 prints 0.0: one term (format_number)
    if term_text(0.5) == "0.5" and term_text(1e-05) == "1e-05":
        text = float_texts(vals)
        infinite = np.isinf(vals)
        if infinite.any():  # repr's "inf" is a name in a fact: printers write "+inf"
            import pyarrow.compute as pc

            fixed = pa.array([term_text(v) for v in np.asarray(vals)[infinite].tolist()], pa.string())
            text = pc.replace_with_mask(text, pa.array(infinite), fixed)
        return text
    used, pos = np.unique(vals, return_inverse=True)
    return pa.array([term_text(v) for v in used.tolist()], pa.string()).take(pa.array(pos.reshape(-1)))


def _sorted_positions(codes):
    """The distinct values of an integer array, in order, and each row's
    position among them (int32), by one argsort: a binary search of each
    row among them cost 0.4 s for 1M ends spread over 40M codes (a random
    access each), the sort 0.08 s."""
    import numpy as np

    order = np.argsort(codes)
    ordered = codes[order]
    new = np.empty(len(ordered), dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    pos = np.empty(len(ordered), dtype=np.int32)
    pos[order] = np.cumsum(new, dtype=np.int32) - 1
    return ordered[new], pos


def _term_positions(codes, size: int):
    """The distinct term codes of a column, in order, and each row's
    position among them (int32): term codes are ``0 .. size-1``, so a table
    over that range finds both in one pass, without sorting the column."""
    import numpy as np

    if len(codes) and (codes.min() < 0 or codes.max() >= size):  # (never for a run's codes)
        return _sorted_positions(codes)
    seen = np.zeros(size, dtype=bool)
    seen[codes] = True
    used = np.flatnonzero(seen)
    at = np.zeros(size, dtype=np.int32)
    at[used] = np.arange(len(used), dtype=np.int32)
    return used, at[codes]


class TermTexts:
    """The text of each term code, kept for a whole run (each term formatted
    once): a numpy object array indexed by code, 8 bytes a code, where a dict
    took about 70 (its entry and an int object per key)."""

    def __init__(self):
        import numpy as np

        self.texts = np.empty(0, dtype=object)
        self._names = None  # (names, their texts, their ranks): :meth:`names`

    def names(self, names, used, term_text):
        """``(texts, ranks)`` of the fact files' names ``used`` (codes), cut
        from those of every name, made once a run where the relations use
        much of them (200 predicates of 1,000 facts over 5,000 names paid
        a few polars queries each, ~2 ms); None where they use few."""
        if self._names is None or self._names[0] is not names:
            if len(names) > 8 * len(used):
                return None
            self._names = (names, _name_texts(names, term_text), string_ranks(names))
        _, texts, ranks = self._names
        return texts.gather(used), ranks[used]

    def of(self, codes, vals, term_text) -> list:
        """The texts of the distinct ``codes`` whose values are ``vals``."""
        import numpy as np

        if not len(codes):
            return []
        need = int(codes.max()) + 1
        if need > len(self.texts):
            grown = np.empty(max(need, 2 * len(self.texts)), dtype=object)
            grown[: len(self.texts)] = self.texts
            self.texts = grown
        got = self.texts[codes]
        missing = np.flatnonzero(np.equal(got, None))
        if len(missing):
            todo = list(map(vals.__getitem__, missing.tolist()))
            text = _with_members_once(term_text) if any(type(v) is tuple for v in todo) else term_text
            # (a labelled null prints as its str in every dialect: a chase's 400,000 nulls without
            # the printer's type tests, 0.3 -> 0.1 s)
            made = np.empty(len(todo), dtype=object)
            made[:] = _number_texts(todo) or _datetime_texts(todo) or [str(v) if type(v) is Null else text(v) for v in todo]
            got[missing] = made
            self.texts[codes[missing]] = made
        return got.tolist()


def _number_texts(vals):
    """The texts of ``vals`` when many and all exact numbers of 64 bits
    (ints and Fractions: a number prints alike in every dialect), by
    kernels (exact_columns.texts); else None."""
    if len(vals) < 256 or not all(type(v) is int or type(v) is Fraction for v in vals):
        return None
    import numpy as np

    try:
        num = np.fromiter((v.numerator for v in vals), dtype=np.int64, count=len(vals))
        den = np.fromiter((v.denominator for v in vals), dtype=np.int64, count=len(vals))
    except OverflowError:
        return None
    return exact_texts(num, den).to_list()


def _datetime_texts(vals):
    """The texts of ``vals`` when many and all naive datetimes (a date or
    datetime term, as format_term prints it in every dialect: a midnight as
    its date, a microsecond only when there is one), by polars; else None.
    223,000 distinct datetimes printed one by one took ~0.2 s."""
    import datetime

    if len(vals) < 256 or not all(type(v) is datetime.datetime and v.tzinfo is None for v in vals):
        return None
    from chronolog.language.dates import datetime_micros

    return _date_time_texts(datetime_micros(vals)).to_list()


def _with_members_once(term_text):
    """``term_text``, a set's members each formatted once: munion's sets
    share their members (170,000 sets of 5,000 numbers: 0.8 s of
    format_term per member, most of a command's 1.3 s).  A set prints as
    language/text.py prints it, ``{`` its members ``}``, each by
    format_term (format_term_text's by itself: a dialect's printer leaves
    sets to format_term); a float member each time (0.0 and -0.0 are
    equal keys, two texts)."""
    from chronolog.language.text import format_term_text

    member = format_term_text if term_text is format_term_text else format_term
    done: dict = {}

    def text(v):
        if type(v) is not tuple:
            return term_text(v)
        if set(map(type, v)) == {int}:  # (integers: their str, as format_number prints one)
            try:
                return "{" + ",".join(map(str, v)) + "}"
            except ValueError:  # (past Python's digits for str: format_number's chunks)
                pass
        parts = []
        for x in v:
            if type(x) is float or type(x) is tuple:
                parts.append(member(x))
                continue
            key = (type(x), x)
            t = done.get(key)
            if t is None:
                t = done[key] = member(x)
            parts.append(t)
        return "{" + ",".join(parts) + "}"

    return text


def _plain(term_text) -> bool:
    """Whether ``term_text`` prints a name as :func:`format_term` does (the
    Vadalog dialect's printer; others may quote differently)."""
    if term_text is format_term:
        return True
    from chronolog.language.reader import Dialect

    owner = getattr(term_text, "__self__", None)
    return owner is not None and getattr(term_text, "__func__", None) is Dialect.format_term and type(owner).format_term is Dialect.format_term


def _name_texts(names, term_text):
    """The texts of names read from a fact file (a polars String Series):
    a bare name prints as itself, found by one kernel (no Python string and
    no TermTexts entry per name: the Dictionary keeps them in polars), the
    rest by ``term_text``."""
    import polars as pl

    from chronolog.language.text import _BARE, _BREAKS, _RESERVED

    bare = names.str.contains(_BARE.pattern) & ~names.is_in(pl.Series(sorted(_RESERVED), dtype=pl.String).implode())
    if bare.all():
        return names
    # a quoted string (an IRI, a name with a blank): quoted and escaped by kernels too,
    # as format_term does; one with a line break by term_text.  (Escapes and
    # breaks looked for first, by a class of ASCII bytes and a test for any
    # other byte: 3x cheaper than the breaks' Unicode class on 100k IRIs.)
    s = pl.col("s")
    plain = not names.str.contains(r'[\\"\n\r\t\x0b\x0c\x1c\x1d\x1e]').any() and bool((names.str.len_bytes() == names.str.len_chars()).all())
    escaped = s if plain else s.str.replace_all("\\", "\\\\", literal=True).str.replace_all('"', '\\"', literal=True)
    out = pl.DataFrame({"s": names, "b": bare}).select(pl.when(pl.col("b")).then(s).otherwise(pl.lit('"') + escaped + pl.lit('"'))).to_series()
    if plain:
        return out
    breaks = (~bare & names.str.contains(_BREAKS.pattern)).to_numpy()
    if breaks.any():
        import numpy as np

        at = np.flatnonzero(breaks)
        out = out.scatter(at, [term_text(v) for v in names.gather(at).to_list()])
    return out


def term_texts(terms, term_text, memo):
    """The function :func:`frame_columns` calls with each term column's
    distinct codes and values: their texts by ``term_text`` as a polars
    String Series, each distinct term formatted once (``memo``, a
    :class:`TermTexts` kept across relations), numbers, floats and a fact
    file's names by kernels."""
    import numpy as np
    import polars as pl

    names = getattr(terms.values, "names", None) if _plain(term_text) else None

    def strings(texts):
        return pl.Series(texts, dtype=pl.String)

    def texts(codes, vals):
        if isinstance(vals, Rows):  # exact values: each distinct one printed once
            un, ud, pos = exact_distinct(vals.num, vals.den)
            return exact_texts(un, ud).gather(pos)  # (a number prints alike in every dialect)
        if codes is None:  # float values: Python's repr of every row's float, by kernels
            return pl.Series(_float_texts(vals, term_text))
        if isinstance(vals, pl.Series):  # all names of a fact file (frame_columns' names_by_kernels)
            return _name_texts(vals, term_text)
        k = 0 if names is None or not len(codes) else int(np.searchsorted(codes, len(names)))
        if k and np.all(codes[1:] >= codes[:-1]):  # (sorted) a fact file's names first: texts by kernels
            head = _name_texts(names.gather(codes[:k]), term_text)
            return pl.concat([head, strings(memo.of(codes[k:], vals[k:], term_text))])
        return strings(memo.of(codes, vals, term_text))

    return texts


def frame_lines(pred, df, arity: int, terms, scale, calendar=None, term_text=format_term, chunk: int = 1 << 15, memo=None,
                groups=None, ticks: bool = False):
    """The lines of one relation held as columns, byte-identical to
    :func:`relation_lines` and in its order, as polars String Series of at
    most ``chunk`` lines, each ending in a newline (assembled by ``gather``
    and ``concat_str``; chunks of 2^15 lines hold a 32nd of
    the transients of 2^20, at the same CPU time of the whole command on
    temporal LUBM 1M: 7 MB less peak than 2^17 for the recursive program).
    ``memo``: a :class:`TermTexts` kept across relations.  ``groups``:
    ``df`` holds several relations, ``pred`` their names in order and
    ``groups`` each row's index among them (numpy, non-decreasing).
    ``ticks``: a LARS program's, its intervals shown in ticks
    (:func:`in_ticks`)."""
    import numpy as np
    import polars as pl

    if df.height == 0:
        return
    if ticks:
        df = in_ticks(df, scale)
    point = calendar.format_point if calendar is not None else format_number
    memo = TermTexts() if memo is None else memo
    names = getattr(terms.values, "names", None) if _plain(term_text) else None
    texts = term_texts(terms, term_text, memo)
    points: list = []  # (the starts' point texts, for ends at the same points)

    def strings(texts):
        return pl.Series(texts, dtype=pl.String)

    def starts(ends):
        return strings([("[" if c else "(") + point(t) for t, c in ends])

    def stops(ends):
        return strings([point(t) + ("]" if c else ")") for t, c in ends])

    order, cols = frame_columns(df, arity, terms, scale, texts, starts, stops, names_by_kernels=names is not None,
                                name_memo=None if names is None else lambda used: memo.names(names, used, term_text),
                                lead=groups, ends_array=lambda used, lim: _end_texts(used, lim, scale, calendar, memo=points))
    opening = "(" if arity else "@"
    if groups is not None:  # each row's relation's name, a column of its own
        cols.append((strings([p + opening for p in pred]), groups))
    for a in range(0, df.height, chunk):
        taken = pl.DataFrame({str(j): _take(d, p, order, a, chunk) for j, (d, p) in enumerate(cols)})
        parts = [pl.lit(pred + opening) if groups is None else pl.col(str(len(cols) - 1))]
        for j in range(arity):
            if j:
                parts.append(pl.lit(","))
            parts.append(pl.col(str(j)))
        if arity:
            parts.append(pl.lit(")@"))
        parts += [pl.col(str(arity)), pl.lit(","), pl.col(str(arity + 1)), pl.lit("\n")]
        yield taken.select(pl.concat_str(parts)).to_series()
        del taken


def in_ticks(df, scale):
    """A relation's frame with each interval LARS shows in ticks so
    (language/lars.to_ticks: ``[5,8)`` is ticks 5 to 7, ``[5,7]``): a start
    closed and an end open, both whole and apart, the end made closed one
    tick before; by numpy on the codes (the rows' printer converted each
    fact)."""
    import numpy as np
    import polars as pl

    from chronolog.engine.interval_codes import NEG, POS

    s, e = df["s"].to_numpy(), df["e"].to_numpy()
    k = scale.scale
    lo, hi = s >> 1, e >> 1
    tick = (s != NEG) & (e != POS) & (s & 1 == 0) & (e & 1 == 0) & (lo % k == 0) & (hi % k == 0) & (hi > lo)
    if not tick.any():
        return df
    return df.with_columns(pl.Series("e", np.where(tick, 2 * (hi - k) + 1, e), dtype=pl.Int64))


def frame_table(df, arity: int, terms, scale, names, calendar=None):
    """A relation held as columns as an Arrow table in the layout of
    engine/arrow.py, rows in the order of :meth:`Model.facts`, typed
    as :func:`~chronolog.engine.arrow.facts_to_arrow` types them (its
    column types depend only on the set of values: each distinct value is
    converted once, then ``take``)."""
    import pyarrow as pa

    from chronolog.engine.arrow import _column, _time_column, holds_term_text, one_time_type, with_term_text
    from chronolog.language.timeline import NEG_INF, POS_INF

    text = []

    def times(ends):
        vals = [None if t in (NEG_INF, POS_INF) else t for t, _ in ends]
        return _time_column(vals, calendar) if calendar is not None else _column(vals)

    def terms_array(codes, vals):  # (called once per term column, in order)
        if isinstance(vals, Rows):  # exact values: int64 / decimal128 by numpy, as _column types them
            column = arrow_array(vals.num, vals.den)
            marked = column.type == pa.string()  # (a number past a finite decimal, 1/3: _column's term text)
        elif codes is None:  # finite floats: a float64 column, as _column gives floats
            column, marked = pa.array(vals, pa.float64()), False
        elif hasattr(vals, "gather"):  # a fact file's names (the Dictionary's polars Series): strings, as _column types them
            column, marked = vals.to_arrow().cast(pa.string()), False
        else:
            column = _column(vals)
            marked = holds_term_text(column, vals)
        text.append(marked)
        return column

    def whole(codes, lim):
        return _whole_times(codes, lim, scale, calendar)

    order, cols = frame_columns(df, arity, terms, scale, terms_array, times, times, whole, names_by_kernels=True)
    arrays = [_take(d, p, order) for d, p in cols]
    if calendar is not None:
        arrays[-2:] = one_time_type(*arrays[-2:])
    s = df["s"].to_numpy()
    e = df["e"].to_numpy()
    if order is not None:
        s, e = s[order], e[order]
    sc, ec = (pa.array(to_numpy(x, {"s": s, "e": e}), pa.bool_()) for x in closed_ends())
    table = pa.Table.from_arrays(arrays + [sc, ec], names=list(names) + ["start", "end", "start_closed", "end_closed"])
    return with_term_text(table, [n for n, marked in zip(names, text) if marked])


_DAY_MICROS = 86_400_000_000


def _end_texts(used, lim, scale, calendar=None, nums=None, memo=None):
    """The texts of the distinct interval ends ``used`` (codes; ``lim``: the
    unbounded end's code, NEG for starts) where :func:`_point_texts`
    makes their points' (or made them: ``nums``; ``memo`` its): ``[5``/``(5`` or
    ``5]``/``5)``, ``(-inf``/``+inf)`` (a polars Series); None otherwise
    (they are written one by one)."""
    import numpy as np
    import polars as pl

    from chronolog.engine.interval_codes import POS

    if nums is None:
        nums = _point_texts(used, lim, scale, calendar, memo)
    if nums is None:
        return None
    closed = (used & 1) == (1 if lim == POS else 0)
    fin = used != lim
    mark = ("]", ")") if lim == POS else ("[", "(")
    if closed[fin].all() or not closed[fin].any():  # (one bracket for all: no array of them, 0.13 s a million)
        b = mark[0] if closed[fin].all() else mark[1]
        texts = nums + b if lim == POS else b + nums
    elif lim == POS:
        texts = nums + pl.Series(np.where(closed, *mark))
    else:
        texts = pl.Series(np.where(closed, *mark)) + nums
    if not fin.all():
        texts = texts.scatter(np.flatnonzero(~fin), "+inf)" if lim == POS else "(-inf")
    return texts


def _point_texts(used, lim, scale, calendar=None, memo=None):
    """The texts of the points of the distinct interval ends ``used`` (codes;
    ``lim``: the unbounded end's code) by polars, as ``format_number``
    writes them (epoch seconds are a distinct end per fact: 66,000 texts
    made one by one took 40 ms of a 0.5 s run; between integers, 1M to the
    millisecond 1.2 s); on a ``calendar``, where each is a whole microsecond, as
    ``Calendar.format_point`` writes them (a date at midnight, else the
    date-time to the second, and its fraction of a second where it has
    one) in years 1000 to 9999; an unbounded end ``-inf``/``+inf``.  None
    otherwise.  ``memo`` (a list, empty at first): the texts kept for the
    next call of the same points, a relation's ends after its starts
    (point intervals: the as-of recipe's 1M fills, 0.2 s of texts each)."""
    import numpy as np

    from chronolog.engine.interval_codes import POS

    fin = used != lim
    points = np.where(fin, used >> 1, 0)
    if memo and np.array_equal(memo[0], fin) and np.array_equal(memo[1], points):
        nums = memo[2]
    else:
        nums = _finite_point_texts(points, fin, scale, calendar)
        if memo is not None:
            memo[:] = [fin, points, nums]
    if nums is not None and not fin.all():  # (on a copy: scatter writes in place, and the memo keeps the texts)
        nums = nums.clone().scatter(np.flatnonzero(~fin), "+inf" if lim == POS else "-inf")
    return nums


def _finite_point_texts(points, fin, scale, calendar):
    """:func:`_point_texts` of the grid's ``points`` where ``fin`` (0 elsewhere)."""
    import numpy as np
    import polars as pl

    if calendar is None:
        units = _units_of(points, fin, scale.scale)
        if units is None:  # (between integers, as epoch seconds to the millisecond: 1709285400.137, by the exact columns' printer)
            from chronolog.engine.columns.exact_columns import texts
            from chronolog.language.exact_pairs import reduce

            return texts(*reduce(points, scale.scale))
        return pl.Series(units).cast(pl.String)
    # (on the grid's microseconds, whole units or not: ticks to the millisecond on a timeline of minutes)
    micros = _grid_micros(points, scale.scale, calendar)
    if micros is None:
        return None
    finite = micros[fin]
    if finite.size and (finite.min() < _YEAR_1000 or finite.max() >= _YEAR_10000):
        return None  # (years before 1000 or past 9999: written one by one)
    return _date_time_texts(micros)


def _date_time_texts(micros):
    """``Calendar.format_point``'s texts of the instants ``micros`` (numpy
    int64 since 1970, years 1000 to 9999) by polars: a date at midnight,
    else the date-time to the second and its fraction without trailing
    zeros.  One strftime, in the fewest digits the instants need, and its
    prefixes where some are midnights or whole seconds (a strftime per form
    of every row took 0.5 s of 1M ends, this 0.2)."""
    import numpy as np
    import polars as pl

    stamps = pl.Series(micros, dtype=pl.Int64).cast(pl.Datetime("us"))
    midnight = micros % 86_400_000_000 == 0
    if midnight.all():
        return stamps.dt.strftime("%Y-%m-%d")
    whole = micros % 1_000_000 == 0
    if whole.all():
        full = stamps.dt.strftime("%Y-%m-%dT%H:%M:%S")
        return full if not midnight.any() else pl.select(pl.when(pl.Series(midnight)).then(full.str.slice(0, 10)).otherwise(full)).to_series()
    full = stamps.dt.strftime("%Y-%m-%dT%H:%M:%S" + ("%.3f" if not np.any(micros % 1000) else "%.6f"))
    if not whole.any():
        return full.str.strip_chars_end("0")
    return pl.select(pl.when(pl.Series(midnight)).then(full.str.slice(0, 10)).when(pl.Series(whole)).then(full.str.slice(0, 19))
                     .otherwise(full.str.strip_chars_end("0"))).to_series()


def _whole_units(codes, lim, scale):
    """The points of the interval codes ``codes`` in whole units of the
    timeline (numpy int64; ``lim``, the unbounded end's code, gives a
    number of no meaning), or None where a finite one falls between units."""
    return _units_of(codes >> 1, codes != lim, scale.scale)


def _units_of(points, fin, k: int):
    """The grid's ``points`` (``k`` a unit) in whole units, or None where one
    of those ``fin`` marks falls between units."""
    import numpy as np

    if k == 1:
        return points
    if np.any(points[fin] % k):
        return None
    return points // k


_YEAR_1000 = -30610224000_000000  # 1000-01-01 in microseconds since 1970-01-01
_YEAR_10000 = 253402300800_000000  # 10000-01-01


def _whole_times(codes, lim, scale, calendar):
    """A ``start`` or ``end`` column by numpy when every finite point is an
    integer: ``int64`` (no calendar) or ``date32`` (a calendar of whole days,
    years 1-9999), null where unbounded -- the types ``_column`` and
    ``_time_column`` give such points; None otherwise (they decide)."""
    import numpy as np
    import pyarrow as pa

    fin = codes != lim
    bounded = bool(fin.all())  # (then no mask: Arrow's bitmap of a column of finite ends left out)
    units = codes >> 1
    mask = None if bounded else ~fin
    if calendar is not None and len(units) >= 64:
        stamps = _timestamps(units if bounded else np.where(fin, units, 0), scale.scale, calendar, mask)
        if stamps is not None:
            return stamps
    units = _whole_units(codes, lim, scale)
    if units is None:
        if calendar is None and bounded and len(codes) >= 64:  # (decimals, as epoch seconds to the millisecond: decimal128 by numpy)
            from chronolog.engine.arrow import decimal_parts
            from chronolog.language.exact_pairs import reduce

            return decimal_parts(*reduce(codes >> 1, scale.scale))
        return None
    if not bounded:
        units = np.where(fin, units, 0)
    if calendar is None:
        return pa.array(units, pa.int64(), mask=mask)
    per_day = calendar.unit_seconds / 86400
    if per_day.denominator != 1 or len(units) < 64:
        return None
    d = units * int(per_day) if per_day != 1 else units
    if d.size and (d.min() < -719162 or d.max() > 2932896):  # 0001-01-01 .. 9999-12-31
        return None
    return pa.array(d.astype(np.int32), pa.date32(), mask=mask)


def _timestamps(units, k: int, calendar, mask):
    """:func:`_whole_times` on a date timeline from the grid ``units`` (``k``
    a time unit) by numpy, as ``_time_column`` types the points: their
    microseconds since 1970, ``date32`` when every one is a midnight, else
    ``timestamp[us]``; None when a point falls between microseconds or past
    64-bit ones (``_time_column`` decides, or says why), or every point is a
    whole day on a timeline of days (the caller's ``date32``).  Readings
    to the second on a timeline of minutes: no Fraction per distinct end
    (30k readings' outputs as pandas: 1.9 of a call's 3.5 s)."""
    import math

    import numpy as np
    import pyarrow as pa

    micros = _grid_micros(units, k, calendar)
    if micros is None:
        return None
    if not np.any(micros % _DAY_MICROS):
        per_unit = int(calendar.unit_seconds * 1_000_000)
        if (per_unit // math.gcd(per_unit, k)) % _DAY_MICROS == 0:  # (whole days on a timeline of days: the caller's date32, in its years)
            return None
        days = micros // _DAY_MICROS
        if days.size and (days.min() < -(2**31) or days.max() >= 2**31):
            return None
        return pa.array(days.astype(np.int32), pa.date32(), mask=mask)
    return pa.array(micros, pa.timestamp("us"), mask=mask)


def _grid_micros(units, k: int, calendar):
    """The microseconds since 1970 of the points ``units / k`` (numpy
    int64, ``k`` the run's time scale) on ``calendar``'s timeline, by
    numpy; None when one falls between microseconds or past 64-bit ones."""
    import math

    import numpy as np

    per_unit = calendar.unit_seconds * 1_000_000
    if per_unit.denominator != 1:
        return None
    per_unit = per_unit.numerator
    g = math.gcd(per_unit, k)
    step, times = k // g, per_unit // g  # (micros = units / step * times, exactly where step divides units)
    if step != 1 and np.any(units % step):
        return None
    whole = units // step if step != 1 else units
    lo, hi = (int(whole.min()), int(whole.max())) if len(whole) else (0, 0)
    if not -(2**63) <= lo * times or hi * times >= 2**63:
        return None
    return whole * times


def write_arrays(fh, arrays) -> None:
    """Write string columns of whole lines (polars Series, or Arrow string
    arrays) to a text or binary file: each column's text in one write, no
    Python string per line."""
    import numpy as np

    raw = getattr(fh, "buffer", None)
    if raw is not None:
        fh.flush()
    for arr in arrays:
        if len(arr) == 0:
            continue
        if hasattr(arr, "gather"):  # polars: its lines joined in one string
            text = arr.str.join("").item()
            if raw is not None:
                raw.write(text.encode("utf-8"))
            else:
                fh.write(text)
            continue
        offsets = np.frombuffer(arr.buffers()[1], dtype=np.int32)[arr.offset : arr.offset + len(arr) + 1]
        data = memoryview(arr.buffers()[2])[int(offsets[0]) : int(offsets[-1])]
        if raw is not None:
            raw.write(data)
        else:
            fh.write(bytes(data).decode("utf-8"))
    if raw is not None:
        raw.flush()


def frame_csv_lines(df, arity: int, terms, scale, calendar=None, chunk: int = 1 << 20, read_back=None):
    """The data rows of the CSV file ``chronolog run --output`` writes for a
    relation held as columns, byte-identical to
    :func:`~chronolog.connectors.csv_files.write_csv_facts` (each distinct
    cell quoted by the csv module once; rows end in ``\\r\\n`` as its writer's).
    ``read_back``: a :class:`~chronolog.connectors.csv_files.ReadBack` that
    sees each distinct value of each column."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from chronolog.connectors.csv_files import BLANK_RE2, _cell, quoted_cell

    if df.height == 0:
        return
    point = calendar.format_point if calendar is not None else format_number

    def quoted(cells):
        # quoted_cell's quoting for the cells it would quote: those with a
        # comma, a quote or a line break, or a blank at an end (the others,
        # names and numbers, go as they are: 100,000 names took 0.5 s)
        arr = pa.array(cells, pa.string())
        special = pc.match_substring_regex(arr, f'[,"\r\n]|^{BLANK_RE2}|{BLANK_RE2}$')
        if not pc.any(special).as_py():
            return arr
        return pa.array([quoted_cell(c) if q else c for c, q in zip(cells, special.to_pylist())], pa.string())

    def ends(pairs):
        return quoted([point(t) for t, _ in pairs])

    column = iter(range(arity))  # (cells is called once per term column, in order)

    def cells(codes, vals):
        k = next(column)
        if isinstance(vals, Rows):
            un, ud, pos = exact_distinct(vals.num, vals.den)
            if (read_back is None or read_back.numbers_read_back(k)) and bool((ud == 1).all()):  # (integers: never quoted; a trade's number per row took 1 s of 1M rows)
                return pa.array(un, pa.int64()).cast(pa.string()).take(pa.array(pos))
            exact = exact_values(un, ud)
            seen(k, exact)
            return quoted([_cell(v) for v in exact]).take(pa.array(pos))
        if codes is None:  # floats: never quoted (digits, sign, point, e), the text is their repr
            seen(k, [float(v) for v in vals[:1]])  # (each float reads back as any other does)
            return _float_texts(vals, _cell)
        seen(k, vals)
        return quoted([_cell(v) for v in vals])

    def seen(k, vals):
        if read_back is not None:
            read_back.check_all(k, vals)

    points: list = []  # (the starts' point texts, for ends at the same points)

    def whole_ends(used, lim):  # (numbers and dates: nothing a CSV quotes)
        texts = _point_texts(used, lim, scale, calendar, points)
        return None if texts is None else texts.to_arrow().cast(pa.string())

    order, cols = frame_columns(df, arity, terms, scale, cells, ends, ends, ends_array=whole_ends)
    flags = pa.array(["false", "true"])
    s = df["s"].to_numpy()
    e = df["e"].to_numpy()
    sc, ec = (to_numpy(x, {"s": s, "e": e}).astype("int64") for x in closed_ends())
    for a in range(0, df.height, chunk):
        parts = [_take(d, p, order, a, chunk) for d, p in cols]
        parts += [_take(flags, sc, order, a, chunk), _take(flags, ec, order, a, chunk)]
        line = pc.binary_join_element_wise(*parts, ",")
        yield pc.binary_join_element_wise(line, "\r\n", "")


def arrow_array(num, den):
    """The Arrow column the rows' typing gives these values
    (engine/arrow.py's ``_column``; from engine/columns/exact_columns.py, whose pairs it converts): ``int64`` when all are whole,
    ``decimal128`` when all have finite decimals (by numpy), else its text
    path on the Python values."""
    import pyarrow as pa

    from chronolog.engine.arrow import _column, decimal_parts
    from chronolog.engine.columns.exact_columns import distinct, python_values

    if not len(num) or (den == 1).all():
        return pa.array(num, pa.int64())
    fast = decimal_parts(num, den) if len(num) >= 64 else None  # (as _column: few values take its text path)
    if fast is not None:
        return fast
    un, ud, pos = distinct(num, den)  # (each distinct value converted once)
    return _column(python_values(un, ud)).take(pa.array(pos))


# ---------------------------------------------------------------- from the columnar evaluator
# (the columnar evaluator's text_arrays, arrow_table and csv_arrays, moved here:
# the engine does not print; ``ev.output_columns(pred)`` gives what they need)
SMALL_RELATION = 1 << 12  # rows: relations up to this size print together (columns_text_runs)


def columns_text_runs(ev, preds, calendar=None, term_text=None, held=None, ticks: bool = False):
    """``(names, arrays)`` for the relations ``preds`` in their order:
    ``arrays`` the lines of ``names`` straight from the columns of ``ev``
    (polars String Series, :func:`frame_lines`), or None for a single relation the
    columns do not hold (or ``held(pred)`` refuses).  Consecutive small
    relations of one layout print from one frame, each row's relation a
    sort key and a column of names: a relation's own sort and polars
    queries cost ~1.5 ms, which 200 predicates of 1,000 facts paid each
    (issue 37)."""
    term_text = term_text or format_term
    run: list = []
    layout = None  # the run's columns' names and dtypes, or the batch's frame (its members': one layout)
    slice_of = getattr(ev, "output_slice", None)

    def flush():
        import numpy as np
        import polars as pl

        names = [p for p, _ in run]
        if type(layout) is not tuple:  # (members of one batch: their rows out of its frame, no frame each stacked)
            _, arity, terms, scale, texts = ev.output_columns(names[0])
            whole, groups = layout.rows_of([j for _, j in run])
            run.clear()
            memo = texts.setdefault(term_text, TermTexts())
            return names, frame_lines(names, whole, arity, terms, scale, calendar, term_text, memo=memo, groups=groups, ticks=ticks)
        frames = [out[0] for _, out in run]
        df, arity, terms, scale, texts = run[0][1]
        memo = texts.setdefault(term_text, TermTexts())
        run.clear()
        if len(names) == 1:
            return names, frame_lines(names[0], df, arity, terms, scale, calendar, term_text, memo=memo, ticks=ticks)
        groups = np.repeat(np.arange(len(names), dtype=np.int32), [f.height for f in frames])
        whole = pl.concat(frames, how="vertical", rechunk=True)
        return names, frame_lines(names, whole, arity, terms, scale, calendar, term_text, memo=memo, groups=groups, ticks=ticks)

    for p in preds:
        member = slice_of(p) if slice_of is not None and (held is None or held(p)) else None
        if member is not None and member[0].size(member[1]) <= SMALL_RELATION:
            if run and member[0] is not layout:
                yield flush()
            if not run:
                layout = member[0]
            run.append((p, member[1]))
            continue
        out = ev.output_columns(p) if held is None or held(p) else None
        small = out is not None and out[0].height <= SMALL_RELATION
        # (names and dtypes compared, not schemas: 15 against 4 us, 10,000 relations; the run's once)
        mine = (out[0].columns, out[0].dtypes) if small else None
        if run and mine != layout:
            yield flush()
        if small:
            if not run:
                layout = mine
            run.append((p, out))
        elif out is None:
            yield [p], None
        else:
            df, arity, terms, scale, texts = out
            yield [p], frame_lines(p, df, arity, terms, scale, calendar, term_text, memo=texts.setdefault(term_text, TermTexts()),
                                   ticks=ticks)
    if run:
        yield flush()


def columns_arrow_table(ev, pred: str, names, calendar=None, ticks: bool = False):
    """``pred``'s facts as an Arrow table made by kernels from the columns
    of ``ev``, or None when rows computed it (``ticks``: a LARS program's,
    :func:`in_ticks`)."""
    out = ev.output_columns(pred)
    if out is None:
        return None
    df, arity, terms, scale, _ = out
    return frame_table(in_ticks(df, scale) if ticks else df, arity, terms, scale, names, calendar)


def columns_csv_arrays(ev, pred: str, calendar=None, read_back=None, ticks: bool = False):
    """The CSV data rows of ``pred`` from the columns of ``ev``, or None."""
    out = ev.output_columns(pred)
    if out is None:
        return None
    df, arity, terms, scale, _ = out
    return frame_csv_lines(in_ticks(df, scale) if ticks else df, arity, terms, scale, calendar, read_back=read_back)
