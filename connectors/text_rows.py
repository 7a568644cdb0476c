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


def atoms_arrow_table(atoms, names, calendar=None):
    """A relation held as rows (``terms -> sorted maximal intervals``) as
    the Arrow table of engine/arrow.facts_to_arrow, in the model's order of
    facts, gathered column by column by maps that run in C (a loop over the
    facts appending to each column took 0.8 of 1.0 s for 200,000 facts)."""
    import math
    from itertools import chain, repeat

    from chronolog.engine.arrow import columns_to_arrow, facts_to_arrow
    from chronolog.language.booleans import any_changed, public_terms

    keys = sorted_atoms(atoms)
    ivs = list(map(atoms.__getitem__, keys))
    flat = list(chain.from_iterable(ivs))
    if any_changed(keys):  # #T/#F as Python bools, -0.0 as 0.0 (language/booleans.py), as facts() gives them
        keys = list(map(public_terms, keys))
    if len(flat) != len(keys):  # (an atom on several intervals: its terms once per interval)
        keys = list(chain.from_iterable(map(repeat, keys, map(len, ivs))))
    starts, ends = list(map(itemgetter(0), flat)), list(map(itemgetter(1), flat))
    if float in set(map(type, starts)) or float in set(map(type, ends)):  # an unbounded end: None
        if any(not math.isinf(v) for v in chain(starts, ends) if type(v) is float):  # (a model's are exact: given ones)
            return facts_to_arrow(list(zip(keys, flat)), names, calendar)
        starts = [None if type(v) is float else v for v in starts]
        ends = [None if type(v) is float else v for v in ends]
    cols = [list(map(itemgetter(j), keys)) for j in range(len(names))]
    return columns_to_arrow(cols, names, starts, ends, list(map(itemgetter(2), flat)), list(map(itemgetter(3), flat)), calendar)


def relation_lines(pred: str, atoms, calendar=None, term_text=format_term, shown=None) -> list:
    """The lines of one relation (``terms -> sorted maximal intervals``);
    ``term_text``: the dialect's printing of a constant; ``shown``: how it
    shows an interval (LARS's ticks), each distinct one once."""
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
                lo, hi, lc, hc = iv if shown is None else shown(iv)
                a = points.get(lo)
                if a is None:
                    a = points[lo] = point(lo)
                b = points.get(hi)
                if b is None:
                    b = points[hi] = point(hi)
                s = ivs[iv] = f"{'[' if lc else '('}{a},{b}{']' if hc else ')'}"
            append(prefix + s)
    return out
