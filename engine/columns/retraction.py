"""Retraction facts as column frames coded by a model's own dictionaries.

A retraction names facts to take back from a model the columnar executor
holds (engine/columns/maintenance.py).  Its facts, as the kernel fact
reader's columns (language/fact_columns.py) or as rows, become one coalesced
frame per predicate (relation.py's layout) by *looking up* each distinct
value in the run's term Dictionary and scaling each distinct time point on
its TimeScale: nothing of the model is encoded again, and nothing is added
to its dictionary.  A fact naming a value the run never saw cannot meet the
model, so it is left out.

Where such frames could differ from what the general path finds (a float,
a fraction, or a number equal to a term of another kind, whose match the
value columns decide; a time point off the run's grid), :class:`Fallback`
says so and the caller takes the general path.
"""

from __future__ import annotations

from fractions import Fraction

from itertools import repeat

from chronolog.language.fact_columns import _CodedColumn, _Column, _NameColumn

from .coalesce import coalesce_arrays
from .encoding import Fallback
from .given import interval_columns
from .relation import _frame, empty, interval_codes, term_columns


def hole_frames(columns: list, rows, arities: dict, terms, scale) -> dict:
    """``{pred: coalesced frame}`` of the facts in ``columns`` (FactColumns)
    and ``rows`` (FactRows), ``arities`` their predicates' arities."""
    memo: dict = {}
    known = {}
    unknown = 0  # rows naming a value the model never had: they meet nothing
    for pred, arity in arities.items():
        parts = []
        for fc in columns:
            for cols, lo, hi, lc, hc in fc.parts.get(pred, ()):
                codes = [_column_codes(c, terms) for c in cols]
                parts.append((codes, *interval_columns(lo, hi, lc, hc, scale, memo)))
            if fc.slow.get(pred):
                parts.append(_rows_codes(fc.slow[pred], arity, terms, scale))
        if rows.get(pred):
            parts.append(_rows_codes(rows[pred], arity, terms, scale))
        *known[pred], dropped = _known(parts, arity)
        unknown += dropped
    return HoleFrames(_coalesced(known, arities), unknown=unknown)


class HoleFrames(dict):
    """``{pred: coalesced frame}``, and how many retraction rows named a
    value the model never had (left out: they meet nothing)."""

    def __init__(self, frames: dict, unknown: int = 0):
        super().__init__(frames)
        self.unknown = unknown


def _known(parts: list, arity: int):
    """``(term codes, s, e, rows left out)`` of the parts' rows whose every
    term has a code."""
    import numpy as np

    parts = [p for p in parts if len(p[1])]
    if not parts:
        return [np.zeros(0, dtype=np.int64) for _ in range(arity)], np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), 0
    cols = [np.concatenate([p[0][i] for p in parts]) for i in range(arity)]
    s = np.concatenate([p[1] for p in parts])
    e = np.concatenate([p[2] for p in parts])
    known = np.ones(len(s), dtype=bool)
    for c in cols:
        known &= c >= 0
    dropped = 0
    if not known.all():
        dropped = len(s) - int(known.sum())
        cols, s, e = [c[known] for c in cols], s[known], e[known]
    return cols, s, e, dropped


def _coalesced(known: dict, arities: dict) -> dict:
    """``{pred: coalesced frame}`` of ``known`` rows, coalesced by one sort
    of them all: the predicate's number the first key, absent term columns
    zero (numpy's calls, not polars': a predicate's own coalescing cost
    ~0.1 ms of fixed costs, a retraction's 24 predicates 2.5 ms)."""
    import numpy as np

    from .base import frame_of

    preds = list(known)
    width = max(arities.values(), default=0)
    of = np.concatenate([np.full(len(known[p][1]), i, dtype=np.int64) for i, p in enumerate(preds)] or [np.zeros(0, dtype=np.int64)])
    pad = [np.zeros(len(known[p][1]), dtype=np.int64) for p in preds]
    cols = [np.concatenate([known[p][0][j] if j < arities[p] else z for p, z in zip(preds, pad)] or [of[:0]]) for j in range(width)]
    s = np.concatenate([known[p][1] for p in preds] or [of[:0]])
    e = np.concatenate([known[p][2] for p in preds] or [of[:0]])
    (of, *cols), s, e = coalesce_arrays([of, *cols], s, e)
    at = of.searchsorted(np.arange(len(preds) + 1))
    # (one frame of them all, sliced per predicate: a frame built per predicate cost ~25 us, 0.4 ms of 24)
    whole = _frame(cols, s, e)
    series = {c: whole[c] for c in whole.columns}
    return {p: frame_of([series[c].slice(a, b - a) for c in (*term_columns(arities[p]), "s", "e")]) if b > a else empty(arities[p])
            for p, a, b in zip(preds, at[:-1].tolist(), at[1:].tolist())}


class Known:
    """A Dictionary as the kernel fact reader codes term columns with it
    (language/fact_columns.py, ``terms``), looking values up without adding
    them: each block's distinct names are looked up once, and no Python
    value is made per column (a retraction's facts, read into codes)."""

    whole_as_exact = False  # (whole numbers coded, as the model's given ones are where it was read from text)

    def __init__(self, terms):
        self.terms = terms

    @property
    def values(self):  # (what the reader's coded columns decode by)
        return self.terms.values

    def code_names(self, names):
        """The codes of a polars String Series of distinct names (-1: unknown)."""
        return self.terms.look_up_names(names)

    def code_all(self, values: list, distinct: bool = False):
        return lookup(values, self.terms, absent_ints=False)


def _column_codes(col, terms):
    """Per fact of a reader's term column, its code (-1: a value the run never saw)."""
    import numpy as np

    if isinstance(col, _CodedColumn) and isinstance(col.terms, Known):
        return col.codes.astype(np.int64)[col.indices]
    if type(col) is _NameColumn:  # (strings given as Arrow: found by their hashes, no Python string each)
        return terms.look_up_names(col.names)[col.indices]
    if not isinstance(col, _Column) or col.values.dtype != object:
        raise Fallback("a term column of numbers read as values")  # (floats, exact decimals: value columns decide)
    values = col.values.tolist()
    if Fraction in set(map(type, values)):  # (it may name a float of the model: chronolog/float_terms.py)
        raise Fallback("a fraction, read against the model's floats on rows")
    return lookup(values, terms, absent_ints=False)[col.indices]


def _rows_codes(rows: list, arity: int, terms, scale):
    """``(codes per argument, s, e)`` of ``(terms, interval)`` rows."""
    import numpy as np

    cols = []
    for i in range(arity):
        values = [t[i] for t, _ in rows]
        distinct = list(dict.fromkeys(values))
        at = {v: k for k, v in enumerate(distinct)}
        cols.append(lookup(distinct, terms, absent_ints=False)[np.array(list(map(at.__getitem__, values)), dtype=np.int64)])
    lo, hi, lc, hc = zip(*[iv for _, iv in rows])
    return (cols, *interval_codes(lo, hi, lc, hc, scale))


def lookup(values: list, terms, absent_ints: bool = True, found_floats: bool = False, absent_floats: bool = False):
    """The codes of distinct ``values`` in ``terms`` (numpy int64), -1 for
    one it does not hold; only names and integers (and floats, as the
    flags below say), and an integer only where it found an integer (else
    :class:`Fallback`: 1 equals 1.0, and the value columns decide such
    matches).  ``absent_ints=False`` for
    facts to meet the model's (a retraction's): an integer it does not hold
    may equal a float of a column of floats, which it never holds.
    ``found_floats``: a float found holding a float is its code too (for
    the updates by atoms, whose relations code every value column when
    first built: point_relation.py, so an equal float of the model has
    that code); ``absent_floats``: a float it does not hold equals no term
    (the caller knows every number of the model is coded)."""
    import numpy as np

    # (map over the dict's get: half the CPU of a generator's Python frame per value)
    out = np.array(list(map(terms.codes.get, values, repeat(-1, len(values)))), dtype=np.int64)
    kinds = (int, float) if found_floats else (int,)
    if not set(map(type, values)) <= {str}:  # (a set of the types: a tenth of a generator's CPU)
        known = terms.values
        for v, c in zip(values, out.tolist()):
            if type(v) is str:
                continue
            if c >= 0 and type(v) in kinds and type(known[c]) is type(v):
                continue  # (found, of its own kind)
            if c < 0 and ((type(v) is int and absent_ints) or (type(v) is float and absent_floats)):
                continue
            raise Fallback(f"the term {v!r} may equal a term of another kind")
    return out


def conclusions_only(holes, given, model, names: list, values) -> bool:
    """Whether an atom's ``holes`` meet none of its ``given`` intervals but
    meet the ``model``: a retraction of what only the rules derive."""
    from .maintenance import overlapping, semi, split

    ok = overlapping(holes, given, names, values)
    doubt = split(holes, ok.select(names), names, values)[1] if ok.height and names else holes.clear() if ok.height else holes
    if not doubt.height:
        return False
    near = semi(model, doubt.select(names) if names else doubt, names, values)  # (the doubted atoms' rows: a small frame)
    return bool(overlapping(doubt, near, names, values).height)
