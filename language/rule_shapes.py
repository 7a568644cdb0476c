"""Rules of one shape read once per program.

Generated programs (ontologies, rule generators) write thousands of rules
that differ only in their names: ``q0(N, Y) :- p0(N, V), Y = V * 2 + 1.``,
then ``q1 ... p1``, and so on.  The rule reader (language/vadalog_rules.py)
walks each at 40-110 µs; here a rule's *shape* is its line with every name
replaced by a placeholder numbered by the name's first place in the line,
the reader reads the first rule of a shape, and every later rule of that
shape is built from that reading with its own names and its positions
moved by the lengths of the names before them (rule text included).

A name is a word of a lowercase first letter (the grammar's NAME) outside
strings and comments and not right after a word character, ``:`` or ``#``
(the letters of a number, a labelled null, a boolean); words that the
reader reads as more than a name (keywords, infinities, aggregates) stay in
the shape as they are.  Lines the reader may read differently for other
names are read whole, never by shape: an anonymous variable or a labelled
null (``_``, numbered over the program), time grouping (its unit is a word),
a set (``{b,a}``: its members sorted, not where the names stand),
a string equal to one of the line's names (built as the same constant), a
rule over several lines.  Anything the reader leaves to lark has no shape
kept, so lark still reads it and its error is lark's.  A line with no
string, comment, ``_`` or reserved word (most generated rules) is keyed by
the regular expression engine alone (:func:`quick_key`); where its names
are is found only for the first line of its shape.

The rules of one shape also share what the planner decides from a rule's
structure alone (safety, existential variables: planner/validate.py,
planner/normalize.py): :func:`decisions` gives a rule its shape's table of
them, and only while the rule holds the very head and body literals it was
read with, so a rule rewritten since (``dataclasses.replace``, windows of
dates mapped in place) is decided on its own.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from operator import is_

from . import ast, records
from .builtins import AGGREGATES
from .text import unquote

# words the reader reads as more than a name (keywords, the grammar's INF, aggregates)
RESERVED = frozenset(("not", "every", "inf", "infty", "infinity")) | frozenset(AGGREGATES)

# a string, a comment, a name (group 1), an anonymous variable or labelled null's '_' (group 2)
_WORDS = re.compile(r'"(?:\\.|[^"\\\n])*"|%[^\n]*|(?<![A-Za-z0-9_:#])([a-z][A-Za-z0-9_]*)|(?<![A-Za-z0-9_])(_)(?![A-Za-z0-9_])')
_UNSHAPED = ("/\\", "△", "\x00", "{")  # time grouping; the placeholder's byte; a set (its members sorted: not placed by name)


def shape(line: str):
    """``(key, names, places)`` of a one-line rule: the line with its names
    replaced by placeholders, its distinct names in order, and each name it
    replaced as (where it starts, its number in ``names``); None when the
    line is read whole."""
    if any(u in line for u in _UNSHAPED):
        return None
    names: list = []
    slots: dict = {}
    places: list = []
    strings: list = []

    def placeholder(m):
        word = m.group(1)
        if word is None:
            if m.group(2) is not None:
                strings.append(None)  # (an anonymous variable or a labelled null: no shape)
            elif m.group().startswith('"'):
                strings.append(m.group())
            return m.group()
        if word in RESERVED:
            return word
        k = slots.get(word)
        if k is None:
            k = slots[word] = len(names)
            names.append(word)
        places.append((m.start(), k))
        return f"\x00{k}"

    key = _WORDS.sub(placeholder, line)
    if strings and (None in strings or any(unquote(s) in slots for s in strings)):
        return None
    return key, names, places


# a name where the line has no string, comment or '_' (then _WORDS' other branches find nothing)
_PLAIN_NAME = re.compile(r"(?<![A-Za-z0-9_:#])[a-z][A-Za-z0-9_]*")
_NOT_PLAIN = re.compile("[\"%_\x00△{]|/\\\\").search  # (a string, a comment, '_', _UNSHAPED)


def quick_key(line: str):
    """``(key, names)`` of a one-line rule with no string, comment, ``_`` or
    reserved word, found by the regular expression engine alone (no Python
    call per name, as :func:`shape`'s substitution makes): the line with
    each name replaced by one placeholder, with the names' numbers in
    order, and its distinct names in order; None for any other line (read
    by :func:`shape`).  Two such lines share a key exactly when their
    :func:`shape` keys are equal."""
    if _NOT_PLAIN(line):
        return None
    found = _PLAIN_NAME.findall(line)
    if not RESERVED.isdisjoint(found):
        return None
    slots: dict = {}
    numbers = tuple([slots.setdefault(w, len(slots)) for w in found])
    return (_PLAIN_NAME.sub("\x00", line), numbers), list(slots)


class _Rest:
    """The quick keys (:func:`quick_key`) of a program's lines from one on,
    found by one substitution and one findall over their text (not two
    searches a line): the lines keyed alike, each line's names a slice of
    the names found, a line's numbers from its names.  Every match of
    ``_PLAIN_NAME`` lies within a line, and the character before a line's
    first is a line break, as no character is before the line alone."""

    __slots__ = ("start", "keyed", "names", "at", "unplain", "reserved")

    def __init__(self, lines: list, start: int):
        from itertools import accumulate

        text = "\n".join(lines[start:])
        self.start = start
        self.names = _PLAIN_NAME.findall(text)
        self.keyed = _PLAIN_NAME.sub("\x00", text).split("\n") if "\x00" not in text else None
        if self.keyed is not None:  # where each line's names start among them (a placeholder per name)
            self.at = list(accumulate([k.count("\x00") for k in self.keyed], initial=0))
        self.unplain = _NOT_PLAIN(text) is not None  # (else no line has a string, comment or '_')
        self.reserved = not RESERVED.isdisjoint(self.names)

    def key(self, line: str, index: int):
        """:func:`quick_key` of ``line``, the program's line ``index``."""
        i = index - self.start
        keyed = self.keyed
        if keyed is None or not 0 <= i < len(keyed) or (self.unplain and _NOT_PLAIN(line)):
            return quick_key(line)
        found = self.names[self.at[i] : self.at[i + 1]]
        if self.reserved and not RESERVED.isdisjoint(found):
            return None
        if len(set(found)) == len(found):  # (distinct names, most lines: numbered in order)
            return (keyed[i], _IN_ORDER[len(found)] if len(found) < len(_IN_ORDER) else tuple(range(len(found)))), found
        slots: dict = {}
        numbers = tuple([slots.setdefault(w, len(slots)) for w in found])
        return (keyed[i], numbers), list(slots)


_IN_ORDER = [tuple(range(n)) for n in range(32)]


TRIED = 32  # lines keyed before the share of rules built by shape decides whether keying goes on


class Shapes:
    """The shapes of one program's rules read so far (key -> :class:`_Shape`,
    or the first rule of its shape as read, its names and their places)."""

    def __init__(self, source: str, seen: dict, lines=None):
        self.source, self.seen, self.known = source, seen, {}
        self.tried = self.built = 0  # lines keyed, and rules built by shape
        self.lines = lines  # the program's lines (a line's index its number - 1), for the rest keyed at once
        self.rest = None  # (_Rest: the quick keys of the lines after the first TRIED keyed)

    def rule(self, line: str, lineno: int, read):
        """The rule on ``line`` (line ``lineno``): built from its shape's
        first reading, else ``read()`` (the reader's, which may raise) and
        its shape kept.  Once TRIED lines found fewer than half their shapes
        read before (a hand-written program: keying them costs more than
        it saves), the program's other lines are read, not keyed."""
        if self.tried >= TRIED and 2 * self.built < self.tried:
            return read()
        self.tried += 1
        rest = self.rest
        if rest is None and self.tried > TRIED and self.lines is not None:  # (keying goes on: the rest keyed at once)
            rest = self.rest = _Rest(self.lines, lineno - 1)
        got = quick_key(line) if rest is None else rest.key(line, lineno - 1)
        if got is None:
            got = shape(line)
            if got is None:
                return read()
            key, names, places = got
        else:
            (key, names), places = got, None
        known = self.known.get(key)
        if known is None:  # (the first of its shape: kept as read, its makers built when a second comes)
            rule = read()
            if places is None:  # (where its names are: from the full keying, once a shape)
                places = shape(line)[2]
            self.known[key] = rule, names, places, _tag(rule, {})
            return rule
        if type(known) is tuple:
            known = self.known[key] = _Shape(*known, self.source)
        self.built += 1
        rule = known.instance(line, lineno, names, self.seen)
        _tag(rule, known.decided)
        return rule


_TAG = "_shape_decisions"  # a rule's attribute (not a field: dataclasses.replace makes a rule without it)


def _tag(rule: ast.Rule, decided: dict) -> dict:
    """Give ``rule`` its shape's table of decisions, with the head and body
    literals it is valid for."""
    rule.__dict__[_TAG] = (rule.head, tuple(rule.body), decided)
    return decided


def decisions(rule: ast.Rule):
    """The table (a dict the planner fills) of what the rules of ``rule``'s
    shape share, or None: a rule not built by shape, or one whose head or
    body literals are no longer those it was read with (its structure may
    differ from its shape's)."""
    tag = rule.__dict__.get(_TAG)
    if tag is None:
        return None
    head, body, decided = tag
    if rule.head is not head or len(rule.body) != len(body) or not all(map(is_, rule.body, body)):
        return None
    return decided


COMPILED = 64  # rules of a shape built by its makers before one generated function builds the rest


class _Shape:
    """One reading of a rule and how to build it for other names: a maker
    (a function of an :class:`_Instance`) per node that differs between
    rules of the shape; a node that does not is shared.  From the
    COMPILED-th rule of the shape on, one generated function builds the
    head and the body (the makers' calls and lists were half of such a
    rule's building; generating the function costs ~40 of them)."""

    __slots__ = ("lengths", "slots", "source", "head", "body", "make_head", "make_body", "at", "end", "decided",
                 "code", "scope", "build", "built")

    def __init__(self, rule: ast.Rule, names: list, places: list, decided: dict, source: str):
        self.decided = decided  # (what the planner decided for the shape: shared by its rules)
        self.lengths = [len(n) for n in names]
        self.slots = [k for _, k in places]  # the number of each replaced name, in order
        self.source = source
        starts = [at for at, _ in places]
        make = _Makers({n: k for k, n in enumerate(names)}, starts, source)
        self.head, self.body = rule.head, list(rule.body)
        head, body = make(rule.head), [make(lit) for lit in rule.body]
        self.make_head = None if head is None else head[0]
        self.make_body = [None if made is None else made[0] for made in body]
        self.code = (make.code(rule.head, head), [make.code(lit, made) for lit, made in zip(rule.body, body)])
        self.scope, self.build, self.built = make.scope, None, 0
        at = rule.pos.column - 1  # the rule's text: where it starts and ends, and the names before each
        end = at + len(rule.text)
        self.at, self.end = (at, bisect_left(starts, at)), (end, bisect_left(starts, end))

    def instance(self, line: str, lineno: int, names: list, seen: dict) -> ast.Rule:
        shift = [0]
        total = 0
        lengths = self.lengths
        for k in self.slots:
            total += len(names[k]) - lengths[k]
            shift.append(total)
        build = self.build
        if build is None:
            self.built += 1
            if self.built >= COMPILED:
                build = self._compile()
        if build is not None:
            head, body = build(names, seen, lineno, shift)
        else:
            i = _Instance(names, seen, lineno, shift)
            head = self.head if self.make_head is None else self.make_head(i)
            body = [lit if make is None else make(i) for lit, make in zip(self.body, self.make_body)]
        (at, before_at), (end, before_end) = self.at, self.end
        at += shift[before_at]
        return ast.Rule(head, body, ast.Pos(self.source, lineno, at + 1), line[at : end + shift[before_end]])

    def _compile(self):
        """The generated function ``build(names, seen, line, shift)`` of
        ``(head, body)``, each node built by what its maker does."""
        head, body = self.code
        text = f"def build(names, seen, line, shift):\n    return {head}, [{''.join(lit + ', ' for lit in body)}]\n"
        exec(text, self.scope)  # noqa: S102 - source built by _Makers.code from the shape's nodes: constants of the scope, arguments
        self.build = self.scope["build"]
        return self.build


class _Instance:
    """What differs in one rule of a shape: its names (by slot), the
    program's constants (one object per name), its line and the shift of
    each column (by the count of replaced names before it)."""

    __slots__ = ("names", "seen", "line", "shift")

    def __init__(self, names, seen, line, shift):
        self.names, self.seen, self.line, self.shift = names, seen, line, shift

    def const(self, k: int) -> ast.Const:
        return _const(self.names, self.seen, k)


def _const(names: list, seen: dict, k: int) -> ast.Const:
    """The program's constant of the ``k``-th name (one object per name)."""
    name = names[k]
    term = seen.get(name)
    if term is None:
        term = seen[name] = ast.Const(name)
    return term


class _Makers:
    """Makes a node's maker: None for a node every rule of the shape shares,
    else ``(a function of an :class:`_Instance` that builds it, the
    expression that builds it in the generated function)``; there ``names``,
    ``seen``, ``line`` and ``shift`` are the instance's, and a shared node
    is a constant of ``scope``."""

    def __init__(self, slot_of: dict, starts: list, source: str):
        self.slot_of, self.starts, self.source = slot_of, starts, source
        self.scope = {"_Pos": ast.Pos, "_const": _const, "_source": source}

    def code(self, x, made) -> str:
        """The expression of ``x`` (``made``: what this makes of it)."""
        if made is not None:
            return made[1]
        name = f"_c{len(self.scope)}"
        self.scope[name] = x
        return name

    def __call__(self, x):
        kind = type(x)
        if kind is ast.Pos:
            column, before, source = x.column, bisect_left(self.starts, x.column - 1), self.source
            return (lambda i: ast.Pos(source, i.line, column + i.shift[before])), f"_Pos(_source, line, {column} + shift[{before}])"
        if kind is str:
            k = self.slot_of.get(x)
            return None if k is None else ((lambda i: i.names[k]), f"names[{k}]")
        if kind is ast.Const:
            k = self.slot_of.get(x.value) if type(x.value) is str else None
            return None if k is None else ((lambda i: i.const(k)), f"_const(names, seen, {k})")
        if kind is tuple or kind is list:
            parts = [(e, self(e)) for e in x]
            if all(made is None for _, made in parts):
                return None
            makers = [(e, None if made is None else made[0]) for e, made in parts]
            items = "".join(self.code(e, made) + ", " for e, made in parts)
            return (lambda i: kind([e if make is None else make(i) for e, make in makers])), (f"({items})" if kind is tuple else f"[{items}]")
        if records.is_record(x) and kind is not ast.Rule:
            parts = [(v, self(v)) for v in (getattr(x, f.name) for f in records.fields(x))]
            if all(made is None for _, made in parts):
                return None
            makers = [(v, None if made is None else made[0]) for v, made in parts]
            args = ", ".join(self.code(v, made) for v, made in parts)
            return (lambda i: kind(*[v if make is None else make(i) for v, make in makers])), f"{self.code(kind, None)}({args})"
        return None  # (numbers, booleans, None)
