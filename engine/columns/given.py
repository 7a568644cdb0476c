"""Given facts straight from the kernel fact reader into columns.

The reader (language/fact_columns.py) keeps each column of a fact file as
indices into its distinct, already converted values.  Here each distinct
value is coded once (terms by the run's Dictionary, time points by its
TimeScale) and the codes are ``take``n by the indices: no Python object per
fact between the text and the coalesced relation.  Facts the exact parser
read (quotes, exponents, ...) are few and join as rows."""

from __future__ import annotations

from chronolog.language.fact_columns import _CodedColumn, _Column, _ExactColumn, _NameColumn, _Part, _RatioColumn

from ..interval_codes import NEG, POS
from .coalesce import coalesce, coalesce_owned
from .code_frames import ranges
from .relation import _frame, empty, ratio_units, rows_columns, term_columns, time_units


def _part_columns(part, terms, scale, units_memo):
    """One block's facts of a predicate: term codes per argument, ``s``, ``e``."""
    cols, lo, hi, lc, hc = part
    codes = []
    for c in cols:
        coded = _term_codes(c, terms)
        if coded is not None:
            codes.append(coded)
        elif isinstance(c, _ExactColumn):  # exact numbers: an exact value column, (n, 2) pairs
            codes.append(_pairs_at(c.num, c.den, c.indices))
        else:  # a "float" column: a value column
            codes.append(c.values[c.indices])
    return (codes, *interval_columns(lo, hi, lc, hc, scale, units_memo))


def _pairs_at(num, den, at):
    """The ``(n, 2)`` pairs ``num[at]``, ``den[at]`` of an exact value
    column, each of the two contiguous (the kernels read them apart)."""
    import numpy as np

    pairs = np.empty((len(at), 2), dtype=np.int64, order="F")
    np.take(num, at, out=pairs[:, 0])
    np.take(den, at, out=pairs[:, 1])
    return pairs


def _term_codes(c, terms):
    """A block's term column as codes of the run's Dictionary (coded by the
    reader, or now); None for exact decimals and a column of floats (value
    columns)."""
    if type(c) is _CodedColumn and c.terms is terms:  # (the reader's term columns: the common case, a part per predicate and block)
        return c.codes[c.indices]
    import numpy as np

    if type(c) is _NameColumn:  # (strings given as Arrow: a join against the Dictionary's names)
        return terms.code_names(c.names)[c.indices]
    if isinstance(c, _ExactColumn) or (isinstance(c, _Column) and c.values.dtype == np.float64 and np.isfinite(c.values).all()):
        return None
    if getattr(c, "terms", None) is terms:
        mapping = c.codes
    else:  # (ints a kernel read are distinct: no check for equal new values)
        mapping = terms.code_all(c.values.tolist(), distinct=getattr(c, "ints", None) is not None)
    return mapping[c.indices]


def _block_codes(columns, terms):
    """One term column of a block's predicates as codes (a list of arrays),
    or None as :func:`_term_codes`: one gather where they share the block's
    codes, as a block's predicates do (10,000 predicates of one fact: a
    gather each was ~2 µs of numpy's fixed cost)."""
    import numpy as np

    first = columns[0]
    codes = getattr(first, "codes", None)
    if getattr(first, "terms", None) is terms and all(getattr(c, "codes", None) is codes for c in columns):
        return [codes[np.concatenate([c.indices for c in columns])]]
    out = [_term_codes(c, terms) for c in columns]
    return None if any(c is None for c in out) else out


def interval_columns(lo, hi, lc, hc, scale, units_memo):
    """``s``, ``e`` codes of one block's intervals (the reader's ends and
    closedness); each distinct time value is scaled once (``units_memo``)."""
    import numpy as np

    source = _time_source(lo)
    got = units_memo.get(id(source))
    if got is None:
        got = units_memo[id(source)] = (source, *_units(lo, scale))  # (the source kept alive: the id stays its)
    _, u, fin = got
    if _time_source(hi) is not source:
        hu, hfin = _units(hi, scale)
    else:
        hu, hfin = u, fin
    lc = np.asarray(lc, dtype=bool)
    hc = np.asarray(hc, dtype=bool)
    li, hi_ = lo.indices, hi.indices
    s = np.where(fin[li], 2 * u[li] + (~lc).astype(np.int64), NEG)
    e = np.where(hfin[hi_], 2 * hu[hi_] + hc.astype(np.int64), POS)
    return s, e


def _time_source(col):
    """What a time column's values are made of (shared by a block's
    columns): its fractions over one denominator, or its values."""
    ratios = getattr(col, "ratios", None)
    return col.values if ratios is None else ratios


def _reindexed(col, indices):
    """A time column of ``col``'s values at other ``indices`` (a block's
    parts read together)."""
    ratios = getattr(col, "ratios", None)
    if ratios is not None:
        return _RatioColumn(indices, ratios)
    return _Column.of(indices, col.values, getattr(col, "ints", None))


def _units(col, scale):
    """:func:`time_units` of a time column's distinct values; fractions
    over one denominator scaled by numpy (a Fraction each: 1 s a million)."""
    ratios = getattr(col, "ratios", None)
    if ratios is not None:
        got = ratio_units(ratios.num, ratios.den, scale)
        if got is not None:
            return got[0], ratios.finite()
    return time_units(col.values, scale, getattr(col, "ints", None))


def _given_parts(sources, pred: str, arity: int, terms, scale, memo) -> list:
    """``[term codes, s, e]`` per block of ``pred``'s facts in ``sources``."""
    parts = []  # (term codes, s, e) per block: one DataFrame is built from all of them
    for fc in sources:
        for part in fc.parts.get(pred, ()):
            parts.append(list(_part_columns(part, terms, scale, memo)))
        slow = fc.slow.get(pred)
        if slow:
            parts.append(list(rows_columns(slow, arity, terms, scale)))
    return parts


def tagged_given_frame(sources, preds, arity: int, terms, scale, memo=None):
    """The facts of each of ``preds`` as :func:`given_frame` reads them, in
    one coalesced frame whose first column ``0`` is the index of each row's
    predicate (planner/same_shape.py's tag) and the others named one
    further: one sort for them all and each block's times scaled at once,
    not a frame per predicate (200 predicates of 1,000 facts: ~0.2 ms
    each).  None where a column is not term codes or exact pairs alike in
    every block (floats; exact in one block, coded in another) or the exact
    parser read some facts: given_frame reads those."""
    import numpy as np

    memo = {} if memo is None else memo
    blocks: dict = {}  # a block (or its time columns) -> its parts of each predicate, in order
    for j, pred in enumerate(preds):
        for fc in sources:
            if fc.slow.get(pred):
                return None
            for part in fc.parts.get(pred, ()):
                if type(part) is _Part:
                    blocks.setdefault(id(part.block), []).append((j, part))
                else:
                    cols, lo, hi, lc, hc = part
                    blocks.setdefault((id(_time_source(lo)), id(_time_source(hi))), []).append((j, cols, lo, hi, lc, hc))
    arrays: list = [[] for _ in range(arity + 3)]  # tag, term codes, s, e: pieces per block
    for parts in blocks.values():
        if len(parts[0]) == 2:  # (a block's _Parts: one range of its arrays where they follow each other)
            got = _block_range(parts, arity, terms, scale, memo)
            if got is not None:
                for i, a in enumerate(got):
                    arrays[i].append(a)
                continue
            parts = [(j, *part) for j, part in parts]
        lo, hi = parts[0][2], parts[0][3]
        sizes = [len(p[2].indices) for p in parts]
        arrays[0].append(np.repeat(np.array([p[0] for p in parts], dtype=np.int64), sizes))
        for i in range(arity):
            codes = _block_codes([p[1][i] for p in parts], terms)
            if codes is None:
                return None
            arrays[1 + i].extend(codes)
        both = [np.concatenate([p[k].indices for p in parts]) for k in (2, 3)]
        s, e = interval_columns(_reindexed(lo, both[0]), _reindexed(hi, both[1]),
                                np.concatenate([p[4] for p in parts]), np.concatenate([p[5] for p in parts]), scale, memo)
        arrays[-2].append(s)
        arrays[-1].append(e)
    if any(len({a.ndim for a in pieces}) > 1 for pieces in arrays):  # (a column exact in one block, codes in another)
        return None
    arrays = [np.concatenate(a, dtype=np.int64) if a else np.zeros(0, np.int64) for a in arrays]
    if any(a.ndim == 2 for a in arrays):  # (exact value columns: coalesced on their keys, as given_frame does)
        arrays = [np.asfortranarray(a) if a.ndim == 2 else a for a in arrays]
        return coalesce(_frame(arrays[: arity + 1], arrays[-2], arrays[-1]), term_columns(arity + 1))
    coalesce_owned(arrays)
    return _frame(arrays[: arity + 1], arrays[-2], arrays[-1])


def _block_range(parts, arity: int, terms, scale, memo):
    """``[tag, term codes ..., s, e]`` of a block's ``(j, _Part)``
    ``parts``, each of ``arity`` terms, read from the block's arrays by
    one gather of their rows (one slice where they follow each other
    there) when each argument is names in all of them or in none (else
    None: part by part).  10,000 one-fact predicates in one block: their
    ranges' slices made and joined again were ~10 ms."""
    import numpy as np

    block = parts[0][1].block
    width, ks = block.width, [p.k for _, p in parts]
    if block.terms is not terms or any(width[k] != arity for k in ks):
        return None
    kinds = []  # per argument: "names", "exact" (pairs) or "codes", alike in every part
    for i in range(arity):
        named = block.named[i]
        exact = block.exact[i] if block.exact is not None else None
        kind = {"names" if named[k] else "exact" if exact is not None and exact[k] else "codes" for k in ks}
        if len(kind) != 1 or ("names" in kind and block.name_codes is None):
            return None
        kinds.append(kind.pop())
    at = np.asarray(block.at, dtype=np.int64)
    ks = np.array(ks, dtype=np.int64)
    starts, sizes = at[ks], at[ks + 1] - at[ks]
    if bool((starts[1:] == starts[:-1] + sizes[:-1]).all()):  # (one range)
        rows = slice(int(starts[0]), int(starts[-1] + sizes[-1]))
    else:
        rows = ranges(starts, sizes)
    out = [np.repeat(np.array([j for j, _ in parts], dtype=np.int64), sizes)]
    for i, kind in enumerate(kinds):
        if kind == "names":
            out.append(block.name_codes[block.name_idx[i][rows]])
        elif kind == "exact":  # (an exact value column: its (n, 2) pairs, as _part_columns takes them)
            out.append(_pairs_at(block.num, block.den, block.value_idx[i][rows]))
        else:
            out.append(block.value_codes[block.value_idx[i][rows]])
    out.extend(interval_columns(block.time_column(block.lo[rows]), block.time_column(block.hi[rows]),
                                block.lc[rows], block.hc[rows], scale, memo))
    return out


def given_frame(sources, pred: str, arity: int, terms, scale, memo=None):
    """The facts of ``pred`` in the FactColumns ``sources`` as one coalesced
    DataFrame (columns of encoding.py).  ``memo``: the time units of each
    block's time values, kept across predicates (blocks share them)."""
    import numpy as np

    parts = _given_parts(sources, pred, arity, terms, scale, {} if memo is None else memo)
    if not parts:
        return empty(arity)
    for i in range(arity):  # a column of floats in one block and coded in another: coded
        if len({p[0][i].dtype == np.float64 for p in parts}) > 1:
            for p in parts:
                if p[0][i].dtype == np.float64:
                    p[0][i] = terms.code_all(p[0][i].tolist())
    for i in range(arity):  # a column exact in one block and coded in another: coded
        if len({p[0][i].ndim for p in parts}) > 1:
            from .exact_columns import python_values

            for p in parts:
                if p[0][i].ndim == 2:
                    p[0][i] = terms.code_all(python_values(p[0][i][:, 0], p[0][i][:, 1]))
    if all(np.asarray(p[0][i]).dtype.kind in "iu" and np.asarray(p[0][i]).ndim == 1 for p in parts for i in range(arity)):
        # term codes: each column concatenated once as int64 and freed block by
        # block, coalesced in place (coalesce_owned), one frame built
        arrays = []
        for j in range(arity + 2):
            arrays.append(np.concatenate([np.asarray(p[0][j] if j < arity else p[1 + j - arity]) for p in parts], dtype=np.int64))
            for p in parts:  # (this column of every block: no longer needed)
                if j < arity:
                    p[0][j] = None
                else:
                    p[1 + j - arity] = None
        del parts
        coalesce_owned(arrays)
        return _frame(arrays[:arity], arrays[arity], arrays[arity + 1])
    if len(parts) == 1:
        cols, s, e = parts.pop()
    else:
        cols = [np.concatenate([p[0][i] for p in parts]) for i in range(arity)]
        s = np.concatenate([p[1] for p in parts])
        e = np.concatenate([p[2] for p in parts])
    del parts
    cols = [np.asarray(c) for c in cols]
    frame = [_frame(cols, s, e)]
    del cols, s, e  # (the blocks' arrays and their concatenation: freed before coalescing sorts a copy)
    return coalesce(frame.pop(), term_columns(arity))  # (handed over: coalesce frees it once sorted)
