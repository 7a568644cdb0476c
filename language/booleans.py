"""The boolean constants ``#T`` and ``#F`` as terms of their own.

``#T`` is not the number ``1`` (nor ``#F`` the number ``0``): they are
different constants.  Python's ``True == 1`` and ``hash(True) == hash(1)``
would make them one key in every dict and set of the executors (relations,
join indexes, the columns' term dictionary), so inside the engine a boolean
is one of the two singletons :data:`TRUE` / :data:`FALSE`, which equal only
themselves and hash apart from every number.  The keys stay plain tuples: no
key function on the hot path.

Python ``bool`` is the public form: :func:`term` converts it where values
enter (the readers, dictionary and table input), :func:`public` where they
leave (``Model.facts``, Arrow tables, Spark rows); text prints ``#T``/``#F``.
"""

from __future__ import annotations


class Boolean:
    """``#T`` or ``#F``.  Two instances only (pickling returns them, so
    Spark's and multiprocessing's workers keep identity); equality is
    identity; the hash is fixed (not the object's address) so that every
    process partitions a boolean the same way."""

    __slots__ = ("value", "_hash")

    def __init__(self, value: bool):
        self.value = value
        self._hash = 0x5EED_B00F + value  # (no number's hash is special: a collision only costs an __eq__)

    def __hash__(self) -> int:
        return self._hash

    def __bool__(self) -> bool:
        return self.value

    def __repr__(self) -> str:
        return "#T" if self.value else "#F"

    __str__ = __repr__

    def __reduce__(self):
        return (boolean, (self.value,))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __lt__(self, other):
        if type(other) is not Boolean:
            return NotImplemented
        return self.value < other.value

    def __gt__(self, other):
        if type(other) is not Boolean:
            return NotImplemented
        return self.value > other.value

    def __le__(self, other):
        if type(other) is not Boolean:
            return NotImplemented
        return self.value <= other.value

    def __ge__(self, other):
        if type(other) is not Boolean:
            return NotImplemented
        return self.value >= other.value


TRUE = Boolean(True)
FALSE = Boolean(False)


def boolean(value) -> Boolean:
    """The term of a Python truth value."""
    return TRUE if value else FALSE


def term(v):
    """A value as it enters the engine: a Python ``bool`` becomes its term,
    and so does one in a set of values (as :func:`public` gives a set);
    anything else stays."""
    t = type(v)
    if t is bool:
        return TRUE if v else FALSE
    if t is tuple and bool in map(type, v):
        return tuple([(TRUE if x else FALSE) if type(x) is bool else x for x in v])
    return v


def terms(values) -> tuple:
    """A tuple of values as they enter the engine (see :func:`term`)."""
    t = tuple(values)
    for v in t:
        if type(v) is bool or type(v) is tuple:
            return tuple(map(term, t))
    return t


def public(v):
    """A term as it leaves the engine: a :class:`Boolean` becomes Python's
    ``bool``, the float -0.0 is 0.0 (one term with it, printed ``0.0``:
    executors that keep either give the same answer); anything else stays."""
    t = type(v)
    if t is Boolean:
        return v.value
    if t is tuple:  # a set of values: its booleans too ((1, True), as the set was given)
        return tuple([m.value if type(m) is Boolean else m for m in v])
    return 0.0 if t is float and v == 0.0 else v


_CHANGED = frozenset((TRUE, FALSE, 0.0))  # (0.0 also finds -0.0, 0 and Fraction(0): equal, hashed alike)

# whether this process has made a set of values (language/text.make_set,
# the one maker of set terms: readers, munion, Python input): until then no
# tuple needs a look for the booleans in it
sets_made = [False]


def any_changed(tuples) -> bool:
    """Whether some tuple of ``tuples`` (a list: read twice) holds a term
    :func:`public` changes (a boolean, a zero that may be -0.0, a set):
    one C-level pass of hashing (half the time of :func:`public_terms` on
    every tuple), and where sets were made and none of those is found, one
    over the terms' types, so a relation without them leaves the engine
    without a copy."""
    from itertools import chain

    if not _CHANGED.isdisjoint(chain.from_iterable(tuples)):
        return True
    return sets_made[0] and tuple in set(map(type, chain.from_iterable(tuples)))


def public_terms(t: tuple) -> tuple:
    """A tuple of terms as it leaves the engine (a new tuple only when it
    holds a boolean, a set or a float zero)."""
    for v in t:
        k = type(v)
        if k is Boolean or k is float and v == 0.0 or k is tuple:
            return tuple(map(public, t))
    return t
