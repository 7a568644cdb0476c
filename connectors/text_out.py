"""The canonical fact text of a model, sorted, formatted once per distinct value.

``chronolog run`` prints every fact as ``p(a,1)@[1,5)``, sorted by
predicate, terms (numbers, then strings, then booleans) and start.  Formatting
each fact on its own cost about half of a run on a large model.  Here:

* the ground atoms are ordered by ``numpy.lexsort`` over per-column ranks
  (each distinct constant is ranked once by ``term_sort_key``), and the
  intervals of one atom are already sorted in the store (maximal, disjoint);
* each atom's text and each distinct interval's text are formatted once;
* from an Arrow table (the columnar executor's relations, layout of
  ``connectors/arrow.py``) the lines are assembled by kernels: distinct
  values formatted once, ``take`` and ``binary_join_element_wise``.

The text is byte-identical to :func:`chronolog.language.dates.format_fact`
applied fact by fact.
"""

from __future__ import annotations

from chronolog.language.text import format_term, term_sort_key
from chronolog.language.timeline import format_number


def _ranks(column: list):
    """Per value of ``column``, the rank of its distinct value in term order."""
    import numpy as np

    distinct = sorted(set(column), key=term_sort_key)
    rank = {v: i for i, v in enumerate(distinct)}
    return np.fromiter(map(rank.__getitem__, column), dtype=np.int64, count=len(column))


def sorted_atoms(atoms) -> list:
    """The terms tuples of ``atoms`` in the order of the text output."""
    keys = list(atoms)
    if len(keys) < 2 or not keys[0]:
        return keys
    import numpy as np

    width = len(keys[0])
    if len(keys) < 64:
        return sorted(keys, key=lambda t: tuple(term_sort_key(v) for v in t))
    cols = list(zip(*keys))
    if any(type(v) is bool for col in cols for v in set(col)):  # True == 1 as a dict key
        return sorted(keys, key=lambda t: tuple(term_sort_key(v) for v in t))
    order = np.lexsort([_ranks(list(cols[j])) for j in reversed(range(width))])
    return [keys[i] for i in order.tolist()]


def relation_lines(pred: str, atoms, calendar=None, term_text=format_term) -> list:
    """The lines of one relation (``terms -> sorted maximal intervals``);
    ``term_text``: the dialect's printing of a constant."""
    point = calendar.format_point if calendar is not None else format_number
    points: dict = {}
    ivs: dict = {}
    terms_text: dict = {}
    out = []
    append = out.append
    for terms in sorted_atoms(atoms):
        if terms:
            parts = []
            for v in terms:
                if type(v) is bool:  # True == 1 as a dict key: never cached
                    t = term_text(v)
                else:
                    t = terms_text.get(v)
                    if t is None:
                        t = terms_text[v] = term_text(v)
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
