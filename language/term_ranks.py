"""Ranks of terms in term order (language/text.term_sort_key), computed
for many at once: the output's order of facts (connectors/text_out.py)
and the order in which the columns' chase makes its nulls
(engine/columns/chase.py) rank a column's distinct terms here, the same
order the rows get from sorting by ``term_sort_key``, without a key built
per term where the terms are of one kind."""

from __future__ import annotations

from datetime import datetime as _datetime

from .nulls import Null
from .text import term_sort_key
from .timeline import Point


def exact_order(vals: list):
    """The order of ``vals`` when all are ints and Fractions (the value
    order), as integers over their common denominator: comparing Fractions
    one pair at a time cost seconds for 100,000 decimals.  None otherwise."""
    from fractions import Fraction
    from math import lcm

    types = set(map(type, vals))
    if not vals or not types <= {int, Fraction, Point}:
        return None
    if types == {int} and len(vals) > FEW_NUMBERS:  # (within 64 bits: numpy's sort, 1M integers 0.1 s, not Python's 2 s)
        import numpy as np

        try:
            return np.argsort(np.array(vals, dtype=np.int64), kind="stable").tolist()
        except OverflowError:
            pass
    den = 1
    for d in {v.denominator for v in vals if type(v) is not int}:
        den = lcm(den, d)
    keys = [v * den if type(v) is int else v.numerator * (den // v.denominator) for v in vals]
    return sorted(range(len(vals)), key=keys.__getitem__)


FEW_NUMBERS = 256  # integers ranked by Python's sort up to this many (numpy's above)
FEW_STRINGS = 256  # ranked by Python's sort up to this many (polars' above)
RANK_BY_JOIN = 1 << 16  # distinct strings ranked by a sort and a join up to this many (above, arg_sort's lower peak memory)


def string_ranks(strings):
    """The rank of each of the distinct ``strings`` (a polars String Series)
    in UTF-8 byte order (numpy int32): polars sorts strings 2-4x faster
    than it arg-sorts them (100k IRIs: 11 against 45 ms), so they are
    sorted and each finds its place by a join (19 ms in all).  The join's
    table is transient memory: 94k names of temporal LUBM 1M's output
    raised its command's peak by 5 MB, so larger sets are arg-sorted
    (RANK_BY_JOIN)."""
    import numpy as np
    import polars as pl

    if len(strings) > RANK_BY_JOIN:
        rank = np.empty(len(strings), dtype=np.int32)
        rank[strings.arg_sort().to_numpy()] = np.arange(len(strings), dtype=np.int32)
        return rank
    if len(strings) == 0:
        return np.zeros(0, dtype=np.int32)
    places = strings.sort().to_frame("s").with_row_index("r")
    got = strings.to_frame("s").join(places, on="s", how="left", maintain_order="left")["r"]
    return got.cast(pl.Int32).to_numpy()


def term_ranks(vals: list):
    """The rank of each of the distinct ``vals`` in term order (numpy int64)."""
    import numpy as np

    if len(vals) > FEW_STRINGS and all(type(v) is str for v in vals):  # (their ranks at once)
        import polars as pl

        return string_ranks(pl.Series(vals, dtype=pl.String)).astype(np.int64)
    rank = np.empty(len(vals), dtype=np.int64)
    rank[term_order(vals)] = np.arange(len(vals))
    return rank


def term_order(vals: list) -> list:
    """The positions of the distinct ``vals`` in term order: each kind of
    term (numbers, strings, ..., labelled nulls: term_sort_key's first
    part) apart, in the kinds' order, each by its own order where it has
    one: strings by a polars sort (UTF-8 byte order is code point order,
    Python's order of strings), exact numbers over a common denominator,
    nulls by their labels, sets of one kind of member as tuples; only
    the rest by a key built per term (a chase's nulls beside names,
    400,000 of them: 0.9 s of keys)."""
    from fractions import Fraction

    types = set(map(type, vals))
    if len(types) <= 1 or types <= {int, Fraction, Point, float}:  # (one kind: no pass in Python to split them)
        return _one_kind(vals)
    if types <= _KINDS.keys():  # (each value's kind by its type, in one pass of C: a chase's 400,000 nulls beside names)
        import numpy as np

        kind = np.fromiter(map(_KINDS.__getitem__, map(type, vals)), dtype=np.int8, count=len(vals))
        order = []
        for k in np.unique(kind).tolist():
            at = np.flatnonzero(kind == k)
            sub = _one_kind(list(map(vals.__getitem__, at.tolist())))
            order.extend(at[sub].tolist())
        return order
    kinds: dict = {}
    for i, v in enumerate(vals):
        kinds.setdefault(_kind(v), []).append(i)
    if len(kinds) == 1:
        return _one_kind(vals)
    order = []
    for kind in sorted(kinds):
        at = kinds[kind]
        sub = _one_kind([vals[i] for i in at])
        order.extend(at[j] for j in sub)
    return order


_KINDS = {int: 0, float: 0, str: 1, Null: 3}  # (term_sort_key's first part of the types that say it alone)


def _kind(v):
    """term_sort_key(v)[0], without the key where the type says it (_KINDS)."""
    k = _KINDS.get(type(v))
    return term_sort_key(v)[0] if k is None else k


def _one_kind(vals: list) -> list:
    """:func:`term_order` of terms of one kind."""
    exact = exact_order(vals)
    if exact is not None:
        return exact
    if all(type(v) is str for v in vals):
        if len(vals) > FEW_STRINGS:
            import numpy as np
            import polars as pl

            return np.argsort(string_ranks(pl.Series(vals, dtype=pl.String)), kind="stable").tolist()
        return sorted(range(len(vals)), key=vals.__getitem__)  # (a few: Python's sort, without a polars query's fixed 0.3 ms)
    if all(type(v) is Null for v in vals):  # (their labels' order: n2 before n10)
        return _null_order(vals)
    if all(type(v) is _datetime and v.tzinfo is None for v in vals):  # (naive datetimes: their ISO text's order is theirs)
        if len(vals) > FEW_NUMBERS:  # (by their microseconds: 500,000 sorted by Python 0.19 s, by numpy 0.1 s with the conversion)
            import numpy as np

            from .dates import datetime_micros

            return np.argsort(datetime_micros(vals), kind="stable").tolist()
        return sorted(range(len(vals)), key=vals.__getitem__)
    if sets_of_one_kind(vals):
        return sorted(range(len(vals)), key=vals.__getitem__)
    return sorted(range(len(vals)), key=lambda i: term_sort_key(vals[i]))


def _null_order(vals: list) -> list:
    """Nulls in their labels' order: the chase's ``n1, n2, ...`` by their
    numbers in numpy (400,000 of them: 0.1 s, a key each 0.4 s), those it
    made by the numbers they hold."""
    import numpy as np

    numbers = [v.number for v in vals]
    if None not in numbers:
        return np.argsort(np.array(numbers, dtype=np.int64), kind="stable").tolist()
    labels = [v.label for v in vals]
    if all(label[:1] == "n" and label[1:].isascii() and label[1:].isdigit() and len(label) < 19 for label in labels):
        return np.argsort(np.array([int(label[1:]) for label in labels], dtype=np.int64), kind="stable").tolist()
    return sorted(range(len(vals)), key=lambda i: vals[i].sort_key())


def sets_of_one_kind(vals: list) -> bool:
    """Whether ``vals`` are sets (munion's tuples) of integers only or of
    strings only: their term order is then the tuples' own (a member's
    key would be ``(0, m)`` or ``(1, m)`` for all alike), without a key
    built per member (160,000 sets: 2.7 of a command's 3 s)."""
    if not all(type(v) is tuple for v in vals):
        return False
    kinds = {type(m) for v in vals for m in v}
    return kinds <= {int} or kinds <= {str}
