"""The canonical fact text of relations held as rows (``terms -> sorted
maximal intervals``), formatted once per distinct value: each atom's
terms and each distinct interval are formatted once; the atoms are ordered
by ``numpy.lexsort`` over per-column ranks when there are many of them.
Apart from connectors/text_out.py (the text of relations held as
columns) so that a run on rows prints without importing the column
helpers that module builds on.
"""

from __future__ import annotations

from fractions import Fraction
from operator import itemgetter

from chronolog.language.text import format_term, term_sort_key
from chronolog.language.timeline import format_number


_NUMBERS = frozenset((int, Fraction, float))


def _ranks(column: list):
    """Per value of ``column``, its place in term order: the value itself
    where every one is a 64-bit int, else the rank of its distinct value (a
    column of strings alone, or of numbers alone, sorted in Python's own
    order, which is term order there: no key per value)."""
    import numpy as np

    from chronolog.language.timeline import Point

    kinds = set(map(type, column))
    if kinds == {int} and -(1 << 63) <= min(column) and max(column) < (1 << 63):
        return np.fromiter(column, dtype=np.int64, count=len(column))
    distinct = set(column)
    kinds.discard(Point)
    if kinds == {str} or (kinds and kinds <= _NUMBERS) or not kinds:
        distinct = sorted(distinct)
    else:
        distinct = sorted(distinct, key=term_sort_key)
    rank = {v: i for i, v in enumerate(distinct)}
    return np.fromiter(map(rank.__getitem__, column), dtype=np.int64, count=len(column))


def sorted_atoms(atoms) -> list:
    """The terms tuples of ``atoms`` in the order of the text output."""
    keys = list(atoms)
    if len(keys) < 2 or not keys[0]:
        return keys
    if len(keys) < 64:  # (no numpy import for a small model)
        return sorted(keys, key=lambda t: tuple(term_sort_key(v) for v in t))
    import numpy as np

    width = len(keys[0])  # (#T/#F are terms of their own, never equal to 1/0: language/booleans.py)
    order = np.lexsort([_ranks(list(map(itemgetter(j), keys))) for j in reversed(range(width))])
    return list(itemgetter(*order.tolist())(keys))


def relation_lines(pred: str, atoms, calendar=None, term_text=format_term) -> list:
    """The lines of one relation (``terms -> sorted maximal intervals``);
    ``term_text``: the dialect's printing of a constant."""
    point = calendar.format_point if calendar is not None else format_number
    points: dict = {}
    ivs: dict = {}
    terms_text: dict = {}
    # floats apart: 0.0 == 0 and 1.0 == 1 are one dict key, yet print 0.0 and 0
    float_text: dict = {}
    out = []
    append = out.append
    for terms in sorted_atoms(atoms):
        if terms:
            parts = []
            for v in terms:
                memo = float_text if type(v) is float else terms_text
                t = memo.get(v)
                if t is None:
                    t = memo[v] = term_text(v)
                parts.append(t)
            prefix = f"{pred}({','.join(parts)})@"
        else:
            prefix = pred + "@"
        for iv in atoms[terms]:
            s = ivs.get(iv)
            if s is None:
                lo, hi, lc, hc = iv
                a = points.get(lo)
                if a is None:
                    a = points[lo] = point(lo)
                b = points.get(hi)
                if b is None:
                    b = points[hi] = point(hi)
                s = ivs[iv] = f"{'[' if lc else '('}{a},{b}{']' if hc else ')'}"
            append(prefix + s)
    return out
