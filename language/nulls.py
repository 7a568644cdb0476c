"""Labelled nulls: the unknown individuals that existential rules invent.

``controller(Y, C) :- company(C).`` says every company has some controller;
when no known fact names one, the chase (engine/rows/chase.py) invents a
labelled null for it.  A null is a term of its own: it never equals a
constant (not even the string ``"_:n1"``), only itself.  It prints as
``_:n1`` and reads back as a null: within one file (one program text, one
fact file) the same label is the same null; in another file it is another
null, as with RDF's blank nodes.

Identity is ``(label, scope)``: every file read and every reasoning run has
its own scope, so nulls from different places never meet by accident.  The
chase labels its nulls ``n1, n2, ...`` per run, skipping the labels of the
nulls it was given, so a printed model never shows one label for two nulls
that came from one input and one run.
"""

from __future__ import annotations

import contextlib
import contextvars

from .patterns import LazyPattern
from .scoped import scoped

_DIGITS = LazyPattern(r"(\d+)")


class Null:
    """A labelled null.  ``scope``: the file or run it belongs to (compared
    by identity).  Hand-written rather than a dataclass: nulls are hashed
    with every atom that holds one, so the hash is computed once."""

    __slots__ = ("label", "scope", "_hash", "number")

    def __init__(self, label: str, scope: object = None, number: int | None = None):
        self.label, self.scope, self.number = label, scope, number  # (number: k of the chase's n<k>, else None)
        self._hash = hash((label, id(scope)))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other) -> bool:
        return self is other or (type(other) is Null and other.label == self.label and other.scope is self.scope)

    def __ne__(self, other) -> bool:
        return not self.__eq__(other)

    def __str__(self) -> str:
        return "_:" + self.label

    __repr__ = __str__  # messages quote values with !r

    def sort_key(self) -> tuple:
        """Natural order of labels: n2 before n10."""
        if self.number is not None:
            return ("n", self.number, "")
        label = self.label
        if label[:1] == "n" and label[1:].isascii() and label[1:].isdigit():  # (the chase's: the split's result, at once)
            return ("n", int(label[1:]), "")
        return tuple(int(p) if p.isdigit() else p for p in _DIGITS.split(label))

    def __lt__(self, other):
        if type(other) is not Null:
            return NotImplemented
        return self.sort_key() < other.sort_key()


class NullTable:
    """The nulls of one file: label -> Null (same label, same null).  Made
    inside :func:`labels_read`, it adds each label it meets to that block's
    set (a run's readers, whichever they are, say which labels its facts
    hold; its reader threads too, which do not inherit the block)."""

    def __init__(self):
        self.scope = object()
        self.nulls: dict = {}
        self.read = _LABELS_READ.get()

    def get(self, label: str) -> Null:
        n = self.nulls.get(label)
        if n is None:
            n = self.nulls[label] = Null(label, self.scope)
            if self.read is not None:
                self.read.add(label)
        return n


_TABLE: contextvars.ContextVar = contextvars.ContextVar("chronolog_null_table", default=None)
_LABELS_READ: contextvars.ContextVar = contextvars.ContextVar("chronolog_null_labels_read", default=None)


def labels_read():
    """A block whose files' labelled nulls (read by any reader, into rows or
    columns) leave their labels in the set it gives: the labels a run's
    chase names its own nulls past (the given facts' columns hold no row
    to look into)."""
    return scoped(_LABELS_READ, set())


@contextlib.contextmanager
def reading_file():
    """One scope for the nulls of everything read inside (a whole file, even
    when its lines are parsed one at a time).  Nested uses share the outer
    file's table."""
    if _TABLE.get() is not None:
        yield _TABLE.get()
        return
    with scoped(_TABLE, NullTable()) as table:
        yield table


def using_table(table: NullTable):
    """Read with ``table`` (a stream: one scope across many reads)."""
    return scoped(_TABLE, table)


def current_table():
    """The table of the file being read, or None."""
    return _TABLE.get()


class NullFactory:
    """The nulls one reasoning run invents.  ``witness(key)`` gives the same
    null for the same key (a rule, one of its existential variables and the
    values of the head's other variables), so the witness for a binding is
    one individual wherever in time it is needed, and every evaluator of
    one run (the repetition search makes several) agrees on it.

    ``given``: a callable returning the labels of the nulls the run was
    given; called once, when the first null is made.

    ``nesting`` counts, for a null made by a watched rule, how deeply the
    nulls of each (rule, variable) nest in it: the measure of a chase that
    may not stop (planner/existential.py)."""

    def __init__(self, given=None):
        self.scope = object()
        self.made: dict = {}
        self.nesting: dict = {}
        self.limit = 0  # how deep a watched rule's nulls may nest (engine/rows/chase.py)
        self._given = given
        self._skip = None
        self._next = 1

    def witness(self, key) -> Null:
        """The null of ``key``: (rule, variable, frontier values)."""
        per = self.made.get(key[:2])
        if per is None:
            per = self.made[key[:2]] = {}
        n = per.get(key[2])
        if n is None:
            n = per[key[2]] = self._new(1)[0]
        return n

    def witnesses(self, rule, variables, frontiers) -> list:
        """Per variable of ``variables``, :meth:`witness` of ``(rule,
        variable, f)`` for each of the distinct ``frontiers``, the new ones
        made in their order, a frontier's variables in theirs (a chase
        firing's new witnesses, rows or columns: the labels in one pass).
        The witnesses are kept per rule and variable, keyed by frontier:
        200,000 of them, a key tuple each, took 0.6 s."""
        made = self.made
        per = [made.get((rule, v)) for v in variables]
        for j, v in enumerate(variables):
            if per[j] is None:
                per[j] = made[(rule, v)] = {}
        if not any(per):  # (a first firing: every witness new, made in one pass)
            k = len(variables)
            fresh = self._new(len(frontiers) * k)
            cols = [fresh[j::k] for j in range(k)]
            for p, col in zip(per, cols):
                p.update(zip(frontiers, col))
            return cols
        cols = [list(map(p.get, frontiers)) for p in per]
        if any(None in col for col in cols):
            k = len(variables)
            missing = [(i, j) for i in range(len(frontiers)) for j in range(k) if cols[j][i] is None]
            for (i, j), n in zip(missing, self._new(len(missing))):
                cols[j][i] = per[j][frontiers[i]] = n
        return cols

    @property
    def next_number(self) -> int:
        """The number the next null made gets at least (those made from
        here on are new to every dictionary of terms)."""
        return self._next

    def _new(self, count: int) -> list:
        """``count`` new nulls, labelled ``n<k>`` past the given nulls' labels."""
        scope = self.scope
        return [Null(f"n{k}", scope, k) for k in self._numbers(count)]

    def _numbers(self, count: int) -> list:
        """The next ``count`` label numbers, past the given nulls' labels."""
        if self._skip is None:
            self._skip = set(self._given()) if self._given is not None else set()
        start = self._next
        if not self._skip:
            self._next = start + count
            return range(start, start + count)
        out = []
        while len(out) < count:
            k = self._next
            self._next += 1
            if f"n{k}" not in self._skip:
                out.append(k)
        return out

    def nest(self, null: Null, key) -> int:
        """Record how ``null`` (made for ``key``: rule, variable, frontier
        values) nests nulls; how many times its own rule and variable occur
        along its deepest chain."""
        own = key[:2]
        depth: dict = {}
        for v in key[2]:
            for f, d in self.nesting.get(v, {}).items() if type(v) is Null else ():
                if d > depth.get(f, 0):
                    depth[f] = d
        depth[own] = depth.get(own, 0) + 1
        self.nesting[null] = depth
        return depth[own]


_FACTORY: contextvars.ContextVar = contextvars.ContextVar("chronolog_null_factory", default=None)


def run_scope(factory: NullFactory):
    """Every evaluator created inside shares ``factory`` (one run)."""
    return scoped(_FACTORY, factory)


def current_factory():
    return _FACTORY.get()


def null_labels(relations) -> set:
    """The labels of the nulls in ``relations`` (iterables of term tuples)."""
    out = set()
    for terms_iter in relations:
        for terms in terms_iter:
            for v in terms:
                if type(v) is Null:
                    out.add(v.label)
    return out


class ModelNulls:
    """The nulls of a model by label, so that ``_:n1`` in a query or a proof
    request means the model's ``_:n1`` (not a null of the query's own text).
    Found only when a request holds a null: finding them reads every
    relation's atoms (a first query of a model of 1M given facts spent 3.7 s
    making their rows, for a query without a null)."""

    def __init__(self, model):
        self._model = model

    @property
    def by_label(self) -> dict:
        return _null_labels_of(self._model)

    def adopt(self, values: tuple) -> tuple:
        if not any(type(v) is Null for v in values):
            return values
        by_label = self.by_label
        return tuple(by_label.get(v.label, v) if type(v) is Null else v for v in values)

    def adopt_terms(self, terms: tuple) -> tuple:
        """The same for AST terms (``Const`` values)."""
        from .ast import Const

        if not any(isinstance(t, Const) and type(t.value) is Null for t in terms):
            return terms
        return tuple(Const(self.adopt((t.value,))[0]) if isinstance(t, Const) and type(t.value) is Null else t for t in terms)


def model_nulls(model) -> ModelNulls:
    """The nulls of ``model``, found when a request first holds one."""
    return ModelNulls(model)


def _null_labels_of(model) -> dict:
    """``{label: Null}`` of ``model``'s facts (computed once, kept on the model)."""
    found = getattr(model, "_null_labels", None)
    if found is None:
        found = {}
        store = getattr(model, "store", None)
        for rel in getattr(store, "relations", {}).values():
            for terms in rel.atoms:
                for v in terms:
                    if type(v) is Null:
                        found.setdefault(v.label, v)
        for by in (getattr(model, "_repeating", None) or {}).values():
            for terms in by:
                for v in terms:
                    if type(v) is Null:
                        found.setdefault(v.label, v)
        try:
            model._null_labels = found
        except AttributeError:  # pragma: no cover - a model without attributes
            pass
    return found
