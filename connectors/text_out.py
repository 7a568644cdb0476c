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


def frame_lines(pred: str, df, arity: int, terms, scale, calendar=None, term_text=format_term, chunk: int = 1 << 20):
    """The lines of one relation held as columns (engine/columns/relation.py:
    term codes of ``terms``, interval codes on the grid of ``scale``), in the
    order of :func:`relation_lines` and byte-identical to it, as Arrow string
    arrays of at most ``chunk`` lines, each line ending in a newline.

    No Python object per fact: each distinct term, start and end is formatted
    once, the order is one ``numpy.lexsort`` over per-column ranks and the
    start code, and the lines are assembled by ``take`` and
    ``binary_join_element_wise``."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    if df.height == 0:
        return
    point = calendar.format_point if calendar is not None else format_number
    values = terms.values
    keys, texts = [], []
    for j in range(arity):
        codes = df[str(j)].to_numpy()
        used, pos = np.unique(codes, return_inverse=True)
        vals = [values[i] for i in used.tolist()]
        order = sorted(range(len(vals)), key=lambda i: term_sort_key(vals[i]))
        rank = np.empty(len(vals), dtype=np.int64)
        rank[order] = np.arange(len(vals))
        keys.append(rank[pos])
        texts.append((pa.array([term_text(v) for v in vals], pa.string()), pa.array(pos)))
    s = df["s"].to_numpy()
    e = df["e"].to_numpy()
    order = np.lexsort([s, *reversed(keys)])  # the last key sorts first: terms, then the start

    def ends(codes, start: bool):
        used, pos = np.unique(codes, return_inverse=True)
        out = []
        for c in used.tolist():
            lo, hi, lc, hc = scale.interval(c, c)  # (one side of it is read)
            out.append(("[" if lc else "(") + point(lo) if start else point(hi) + ("]" if hc else ")"))
        return pa.array(out, pa.string()), pa.array(pos)

    stxt, spos = ends(s, True)
    etxt, epos = ends(e, False)
    head = f"{pred}(" if arity else f"{pred}@"
    for a in range(0, len(order), chunk):
        idx = pa.array(order[a : a + chunk])
        parts = [head]
        for j, (txt, pos) in enumerate(texts):
            if j:
                parts.append(",")
            parts.append(txt.take(pos.take(idx)))
        if arity:
            parts.append(")@")
        parts += [stxt.take(spos.take(idx)), ",", etxt.take(epos.take(idx)), "\n"]
        yield pc.binary_join_element_wise(*parts, "")


def write_arrays(fh, arrays) -> None:
    """Write Arrow string arrays (whole lines) to a text or binary file: the
    bytes of each array's data buffer, no Python string per line."""
    import numpy as np

    raw = getattr(fh, "buffer", None)
    if raw is not None:
        fh.flush()
    for arr in arrays:
        if len(arr) == 0:
            continue
        offsets = np.frombuffer(arr.buffers()[1], dtype=np.int32)[arr.offset : arr.offset + len(arr) + 1]
        data = memoryview(arr.buffers()[2])[int(offsets[0]) : int(offsets[-1])]
        if raw is not None:
            raw.write(data)
        else:
            fh.write(bytes(data).decode("utf-8"))
    if raw is not None:
        raw.flush()
