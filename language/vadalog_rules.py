"""Temporal Vadalog rules of the common shape, read without lark.

A program's rules went through lark's LALR parser and tree transformer at
0.3-0.8 ms a rule, most of it per token in lark's Python (a generated
200-rule program: 70 ms before anything runs).  This reader takes a rule
that starts where the statement before it has ended, on one line or a few
(comments between its tokens), and walks it once over the grammar's own
terminal regular expressions (the cursor of :mod:`.rule_lines`, shared
with the MeTeoR reader), building the same AST, positions and rule text
included, as :mod:`.vadalog`'s grammar and transformer: the transformer's
own methods build expressions, atoms, aggregates and time groups.  It reads
heads that are an atom, ``⊥``, boxes around a head or ``p(X)@[S,E)``; body
literals that are atoms, ``#T``/``#F``, the unary operators, ``<S>``/``<U>``,
``not``, time grouping, ``@[S,E]``/``@T``, comparisons and assignments
(aggregates and contributors included) over names, variables, numbers,
strings, booleans, dates, sets (``{1,a}``) and ``_`` (numbered as lark numbers them, over
the whole program), windows of numbers, dates or durations, and
annotations.  Anything else (labelled nulls, a statement over more than 16
lines or beside another on its lines, ``_`` where lark reads one after it,
any error) is left to lark,
which reads it or names what is wrong: the whole program's error, as
before.

Hand-written because lark has no faster mode for this grammar: the parser
is already lark's LALR from cached tables (language/vadalog_tables.py), and
lark's own ``Lark(parser="lalr", cache=True)`` runs the same per-token
Python, its parse alone 5-13x this reader's whole work (bench/vadalog_parse.py).
tests/test_vadalog_rules.py checks that both readers give the same rules.
"""

from __future__ import annotations

import re

from . import ast, dates
from .booleans import boolean
from .errors import ChronologError
from .rule_lines import BLANKS, LineCursor, Unread, terminals
from .rule_shapes import Shapes
from .text import unquote
from .time_grouping import make_group
from .timeline import NEG_INF, POS_INF, make, parse_number

__all__ = ["read_statements", "read_fact_lines", "nothing_to_read"]

_KEYWORDS = frozenset(("not", "every"))  # names the grammar reads as keywords


class _Line(LineCursor):
    """One statement of a program; ``build``: the program's transformer,
    which builds expressions, atoms and aggregates as lark's tree would have
    them; ``anon``: the anonymous variables ``_`` before this statement in
    the program (lark numbers them ``_1``, ``_2``, ... in the text's order),
    None to leave a statement with one to lark."""

    __slots__ = ("build", "anon", "statement")

    def __init__(self, text, lineno, source, seen, build, anon):
        super().__init__(text, lineno, source, seen)
        self.build, self.anon = build, anon

    def number(self):
        if _DATE(self.text, self.i):  # (a date's digits: lark's DATE comes first)
            raise Unread
        return super().number()

    # ------------------------------------------------------------ dates and durations
    def bound(self):
        """A window's end; a date or a duration is placed once the timeline
        is known (dates.resolve), as the transformer leaves it."""
        self.skip()
        for match, read in ((_DATE, dates.date_point), (_DURATION, dates.parse_duration)):
            m = match(self.text, self.i)
            if m is not None:
                self.i = m.end()
                try:
                    return read(m.group())
                except ValueError:
                    raise Unread from None
        return super().bound()

    def interval(self, lo, hi, lc, hc):
        if type(lo) in _DATED or type(hi) in _DATED:
            return (lo, hi, lc, hc)
        return super().interval(lo, hi, lc, hc)

    def window(self):
        window = self.bounds()
        if type(window[0]) not in _DATED and window[0] < 0:
            raise Unread
        return window

    def skip(self) -> None:
        """Blanks and comments (a rule's lines may hold comments)."""
        i = self.i
        if i < len(self.text) and self.text[i] in _SKIPPED:
            self.i = _BLANKS_AND_COMMENTS(self.text, i).end()

    def pos(self, at: int) -> ast.Pos:
        """The line and column of ``at`` in a rule over one line or several."""
        nl = self.text.rfind("\n", 0, at)
        if nl < 0:
            return ast.Pos(self.source, self.lineno, at + 1)
        return ast.Pos(self.source, self.lineno + self.text.count("\n", 0, at), at - nl)

    # ------------------------------------------------------------ statements
    def rule(self) -> ast.Rule:
        self.skip()
        at = self.i
        head = self.head()
        if self.take(_IF) is None:
            raise Unread
        body = [self.literal()]
        while self.char(","):
            body.append(self.literal())
        end = self.end()
        text = self.text[at:end]
        if "\n" in text:  # (lark's rule text: its lines stripped, joined by a blank)
            text = " ".join(part.strip() for part in text.split("\n"))
        return ast.Rule(head, body, self.pos(at), text)

    def end(self) -> int:
        """The statement's '.', its position after it; nothing but blanks
        and comments may follow (else another statement, or an error)."""
        if not self.char("."):
            raise Unread
        end = self.i
        self.skip()
        if self.i < len(self.text):
            raise Unread
        return end

    def annotations(self) -> list:
        """The annotations of a statement's lines: one, or several beside
        each other (``@output("a"). @output("b").``); anything else after
        one is left to lark."""
        out = [self.annotation()]
        while self.i < len(self.text):
            out.append(self.annotation())
        return out

    def annotation(self) -> ast.Annotation:
        """``@output("p").``, ``@temporal(0, 100).``, ``@relaxedSafety.``:
        up to its '.' and the blanks and comments after it."""
        self.skip()
        at = self.i
        if not self.char("@"):
            raise Unread
        name = self.word()
        args = []
        if self.char("("):
            if not self.char(")"):
                args.append(self.annotation_argument())
                while self.char(","):
                    args.append(self.annotation_argument())
                if not self.char(")"):
                    raise Unread
        if not self.char("."):
            raise Unread
        self.skip()
        return ast.Annotation(name, args, self.pos(at))

    def annotation_argument(self):
        """A string, number (signed or infinite, as a bound), boolean (``#T``:
        True) or name, as ``ann_*`` make them."""
        self.skip()
        c = self.text[self.i : self.i + 1]
        if c == '"':
            m = self.take(_STRING)
            if m is None:
                raise Unread
            return unquote(m.group())
        if c == "#":
            m = self.take(_BOOL)
            if m is None:
                raise Unread
            return m.group() == "#T"
        if c.isdigit() or c in "+-" or self.INF(self.text, self.i):
            return LineCursor.bound(self)  # (the grammar's bound_number: no duration here)
        return self.word()

    def word(self) -> str:
        """A name (lowercase first), not a keyword."""
        m = self.take(_NAME)
        if m is None or m.group() in _KEYWORDS:
            raise Unread
        return m.group()

    def temporal(self, pattern, at: int, operand):
        """A unary temporal operator of ``pattern`` at ``at``, its window
        and ``operand()`` (a head's box or a body's diamond or box), or None."""
        m = pattern(self.text, at)
        if m is None:
            return None
        self.i = m.end()
        self.deeper()
        window = self.window()
        return ast.Temporal(m.group(), window, operand(), self.pos(at))

    def head(self):
        self.skip()
        at = self.i
        box = self.temporal(_BOX_OP, at, self.head)
        if box is not None:
            return box
        if self.text.startswith("⊥", at):
            self.i += 1
            return ast.Truth(False, self.pos(at))
        atom = self.build._as_atom(self.primary(), self.pos(at))
        if self.char("@"):  # p(X)@[S,E) :- ...
            return self.interval_terms(atom, at)
        return atom

    # ------------------------------------------------------------ literals
    def literal(self):
        self.skip()
        at = self.i
        t = self.text
        m = _NAME(t, at)
        if m is not None and m.group() == "not":
            self.i = m.end()
            return ast.Negation(self.operand(), self.pos(at))
        m = _VAR(t, at)
        if m is not None:
            self.i = m.end()
            if self.char("=") and not self.char("="):
                return self.assignment(m.group(), at)
            self.i = at
        if t.startswith("(", at):  # (a parenthesised sum: a comparison's)
            return self.comparison(self.sum(), at)
        left = self.unary()
        self.skip()
        m = _BINARY(t, self.i)
        if m is not None:
            self.i = m.end()
            self.deeper()
            window = self.window()
            if type(left) is _Sum:
                raise Unread
            return ast.Binary("S" if m.group() == "<S>" else "U", window, left, self.operand(), self.pos(at))
        if type(left) is _Sum:
            return self.comparison(left.value, at)
        if self.char("@"):  # lit@[S,E], lit@T
            if type(left) is ast.Truth:
                raise Unread
            m = self.take(_VAR_NOT_DURATION)
            if m is None:
                return self.interval_terms(left, at, anonymous=True)
            return ast.Timed(left, ast.Var(m.group()), None, True, True, self.pos(at))
        return left

    def interval_terms(self, inner, at, anonymous: bool = False) -> ast.Timed:
        """``@[S,E)``: the ends of an interval as variables; in a body
        (``anonymous``) an end may be ``_`` (``p(X)@[T, _]``), a head's
        ``_`` is lark's error."""
        left = self.char("[(")
        if left is None:
            raise Unread
        start = self.interval_end(anonymous)
        if not self.char(","):
            raise Unread
        end = self.interval_end(anonymous)
        right = self.char("])")
        if right is None:
            raise Unread
        return ast.Timed(inner, start, end, left == "[", right == "]", self.pos(at))

    def interval_end(self, anonymous: bool) -> ast.Var:
        """A variable at an interval's end, or a fresh one for ``_``
        numbered as every ``_`` here is (in the order of the text, as lark's)."""
        m = self.take(_VAR_NOT_DURATION)
        if m is not None:
            return ast.Var(m.group())
        after = self.text[self.i + 1 : self.i + 2]  # (``_1`` or ``_:n``: not an anonymous variable)
        if not anonymous or self.anon is None or self.text[self.i : self.i + 1] != "_" or after.isalnum() or after in ("_", ":"):
            raise Unread
        self.i += 1
        self.anon += 1
        return ast.Var(f"_{self.anon}")

    def unary(self):
        """An operator's literal, or the atom or truth a plain sum is (a
        :class:`_Sum` when it is neither: a comparison's left side)."""
        self.skip()
        at = self.i
        op = self.temporal(_TEMP_OR_BOX, at, self.operand)
        if op is not None:
            return op
        if self.text.startswith(_GROUP_OPS, at):  # /\[months] p(X)
            self.i = at + (2 if self.text[at] == "/" else 1)
            self.deeper()
            count, unit = self.group_spec()
            return make_group(count, unit, self.operand(), self.pos(at), self.build._err)
        if self.text.startswith("(", at):
            raise Unread
        x = self.sum()
        self.skip()
        if _CMP(self.text, self.i) and not _BINARY(self.text, self.i):  # (lark's lexer tries <S> before <)
            return _Sum(x)
        if type(x) is _vadalog._Call or type(x) is _vadalog._Name:
            return self.build._as_atom(x, None)
        if type(x) is ast.Const and type(x.value) is _Boolean:
            return ast.Truth(x.value.value, self.pos(at))
        return _Sum(x)

    def group_spec(self):
        """``[3 months]``, ``[months]``, ``[7]``, ``1 years``: (count, unit)."""
        if not self.char("["):
            count = self.number()
            return count, self.word()
        if self.char("]"):
            return 1, None
        self.skip()
        count = self.number() if self.text[self.i : self.i + 1].isdigit() else 1
        unit = None if self.char("]") else self.word()
        if unit is not None and not self.char("]"):
            raise Unread
        return count, unit

    def operand(self):
        """The literal an operator or ``not`` applies to."""
        x = self.unary()
        if type(x) is _Sum:
            raise Unread
        return x

    def comparison(self, left, at):
        m = self.take(_CMP)
        if m is None or _BINARY(self.text, m.start()):
            raise Unread
        op = "!=" if m.group() == "<>" else m.group()
        b = self.build
        return ast.Comparison(op, b._expr(left), b._expr(self.sum()), self.pos(at))

    def assignment(self, var: str, at: int):
        expr = self.sum()
        b = self.build
        if type(expr) is _vadalog._Call and _vadalog._is_aggregate_call(expr):
            return ast.Assignment(ast.Var(var), b._aggregate(expr), self.pos(at))
        return ast.Assignment(ast.Var(var), b._expr(expr), self.pos(at))

    # ------------------------------------------------------------ expressions
    def sum(self):
        x = self.product()
        while True:
            c = self.char("+-")
            if c is None:
                return x
            self.deeper()
            x = (self.build.add if c == "+" else self.build.sub)([x, self.product()])

    def product(self):
        x = self.factor()
        while True:
            self.skip()
            c = self.text[self.i : self.i + 1]
            if c not in ("*", "/") or self.text.startswith("/\\", self.i):
                return x
            self.i += 1
            self.deeper()
            x = (self.build.mul if c == "*" else self.build.div)([x, self.factor()])

    def factor(self):
        self.skip()
        if self.text[self.i : self.i + 1] in _SIGNS and _DATE(self.text, self.i):  # (-2020-01-01: a date, not a minus)
            return self.primary()
        c = self.char("-+(")
        if c == "(":
            self.deeper()
            x = self.sum()
            if not self.char(")"):
                raise Unread
            return x
        if c is not None:
            if self.take(_INF) is not None:  # +inf, -inf: a float's infinities
                return self.build.inf_term(()) if c == "+" else self.build.neg_inf_term(())
            if c == "+":
                raise Unread
            self.deeper()
            return self.build.neg([self.factor()])
        return self.primary()

    def primary(self):
        """A term or a call, as the transformer's ``call``/``name``/``var``/
        ``num``/``string``/``boolean`` make them."""
        self.skip()
        t, at = self.text, self.i
        m = _NAME(t, at)
        if m is not None:
            word = m.group()
            if word in _KEYWORDS:
                raise Unread
            self.i = m.end()
            names = _NAMES(t, self.i)
            if names is not None:  # arguments that are all plain names: one match
                self.i = names.end()
                return _vadalog._Call(word, list(map(self.name, names.group(1).split(","))), self.pos(at))
            if not self.char("("):
                return _vadalog._Name(word, self.pos(at))
            self.deeper()  # (a call's arguments nest as brackets do)
            return _vadalog._Call(word, self.listed(self.argument, ")"), self.pos(at))
        m = _VAR(t, at)
        if m is not None:
            self.i = m.end()
            return self.name(m.group())
        c = t[at : at + 1]
        m = _DATE(t, at) if c in _DIGITS_AND_SIGNS else None
        if m is not None:  # (a date constant is its midnight's datetime)
            self.i = m.end()
            try:
                return ast.Const(dates.parse_datetime(m.group())[0])
            except ValueError:
                raise Unread from None
        if c == "_":
            if self.anon is None or t.startswith(":", at + 1):  # (a labelled null: its table is lark's)
                raise Unread
            self.i += 1
            self.anon += 1
            return ast.Var(f"_{self.anon}")
        if c == '"':
            m = self.take(_STRING)
            if m is None:
                raise Unread
            return ast.Const(unquote(m.group()))
        if c == "#":
            m = self.take(_BOOL)
            if m is None:
                raise Unread
            return ast.Const(boolean(m.group() == "#T"))
        if c == "{":
            return self.set_term()
        return ast.Const(self.number())

    def set_term(self):
        """``{1, a, "b c"}``: its members' sums, made a set by the
        transformer's own ``set_term`` (which refuses a member that is no
        constant: lark then names it at its place)."""
        self.i += 1
        self.deeper()
        return self.build.set_term(None, self.listed(self.sum, "}"))

    def argument(self):
        """A call's argument: an expression, or contributors ``<C1, C2>``."""
        self.skip()
        if not self.text.startswith("<", self.i):
            return self.build._expr(self.sum())
        m = _CMP(self.text, self.i)
        if m.group() != "<" or _BINARY(self.text, self.i):
            raise Unread
        self.i = m.end()
        terms = [self.sum()]
        while self.char(","):
            terms.append(self.sum())
        m = self.take(_CMP)
        if m is None or m.group() != ">":
            raise Unread
        return _vadalog._Contributors(tuple(self.build._expr(t) for t in terms))

    def name(self, word: str):
        """A variable or a name's constant (one object per name in a program:
        they are immutable)."""
        word = word.strip(BLANKS)
        term = self.seen.get(word)
        if term is None:
            if word in _KEYWORDS:
                raise Unread
            term = self.seen[word] = ast.Var(word) if word[0].isupper() else ast.Const(word)
        return term


class _Sum:
    """A sum that is no literal by itself (a comparison's left side)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def read_statements(text: str, source: str, build, anonymous: bool = True):
    """``(rules, annotations, rest)``: the rules and annotations of ``text``
    read here, each in order, and the text lark reads (their lines left
    empty, so every other line keeps its number and column); None where
    lark reads it all.  ``build``: the transformer of this program (its
    methods build what lark's tree would become); ``anonymous``: whether
    statements with ``_`` are read here (they are unless lark reads one
    after them: it numbers its own from 1)."""
    if _vadalog is None:  # (set last by _load)
        _load()
    if ":-" not in text or _OTHER_BREAKS(text):  # (lark counts lines by '\n' alone, the rules' text by splitlines)
        return None
    lines = text.split("\n")
    rules, annotations = [], []
    seen: dict = {}
    shapes = Shapes(source, seen, lines)
    ended = True  # (the program starts between statements)
    anon, numbered = 0, False  # the '_' so far; whether one was numbered here
    n = 0
    while n < len(lines):
        line = lines[n]
        ends = _ends(line)
        if ended and (":-" in line or ends == _OPEN or line.lstrip(BLANKS).startswith("@")):
            r, upto = _statement(lines, n, ends, source, seen, build, anon if anonymous else None, shapes)
            if r is not None:
                if type(r.statement) is list:  # (the annotations of its lines)
                    annotations += r.statement
                else:
                    rules.append(r.statement)
                if anonymous:
                    numbered, anon = numbered or r.anon != anon, r.anon
                lines[n:upto] = [""] * (upto - n)
                n = upto
                continue
        if ends is None:
            if numbered:  # (lark's '_' in the rest not counted)
                return read_statements(text, source, build, anonymous=False)
            break  # a string over several lines: lark reads the rest as it is
        if ends != _NOTHING:
            ended = ends == _ENDED
        if anonymous and "_" in line:
            k = _anonymous(line)
            if k and numbered:
                return read_statements(text, source, build, anonymous=False)
            anon += k
        n += 1
    if not rules:
        return None
    return rules, annotations, "\n".join(lines)


def read_fact_lines(text: str, source: str):
    """``(facts, rest)``: the facts of ``text`` written one to a line in
    the common shape (``p(a, 1, 2.5)@[1,5).``: names, unsigned numbers and
    ``#T``/``#F`` as terms, an interval or a time point of numbers) that
    start where the statement before has ended, as the grammar builds them,
    in order; and ``text`` with their lines emptied, for lark (every other
    line keeps its number).  Any other line, or a text with line breaks
    lark counts apart, is left to lark, which reads it or says what is
    wrong: a small program read here whole never loads lark's parser.
    Not facts.py's line reader: fact files read more than the grammar
    (signed terms, strings, nulls, ``INF`` in any case), and here a line
    read must be exactly what lark would make of it, or lark's to refuse."""
    if "@" not in text or _OTHER_BREAKS(text):
        return [], text
    lines = text.split("\n")
    facts = []
    ended = True
    values: dict = {}  # a term's text -> its value
    intervals: dict = {}  # a time's text -> its interval (None: lark reads it)
    for n, line in enumerate(lines):
        m = _FACT_LINE(line) if ended else None
        if m is not None and m.group(1) not in _KEYWORDS:
            time = m.group(3)
            interval = intervals[time] if time in intervals else intervals.setdefault(time, _plain_time(time))
            terms = _plain_terms(m.group(2), values) if interval is not None else None
            if terms is not None:
                column = len(line) - len(line.lstrip(" \t")) + 1
                facts.append(ast.Fact(m.group(1), terms, interval, ast.Pos(source, n + 1, column)))
                lines[n] = ""
                continue
        elif ended and line.count("@") > 1:  # (several facts on the line: p(a)@1. q(b)@[2,3].)
            several = _facts_of_line(line, n + 1, source, values, intervals)
            if several is not None:
                facts += several
                lines[n] = ""
                continue
        ends = _ends(line)
        if ends is None:
            break  # a string over several lines: lark reads the rest as it is
        if ends != _NOTHING:
            ended = ends == _ENDED
    if not facts:
        return [], text
    return facts, "\n".join(lines)


def _facts_of_line(line: str, number: int, source: str, values: dict, intervals: dict):
    """The facts of a line of several, each in :func:`read_fact_lines`'
    common shape and ended by its ``.`` (a generated program writes an
    order's facts on one line: lark read them at 500 us a fact); None
    unless the whole line is such facts."""
    if not _PRINTABLE(line):
        return None
    facts, at, end = [], 0, len(line.rstrip(" \t\r"))
    while at < end:
        m = _ONE_FACT(line, at)
        if m is None or m.group(1) in _KEYWORDS:
            return None
        time = m.group(3)
        interval = intervals[time] if time in intervals else intervals.setdefault(time, _plain_time(time))
        terms = _plain_terms(m.group(2), values) if interval is not None else None
        if terms is None:
            return None
        column = m.start(1) + 1
        facts.append(ast.Fact(m.group(1), terms, interval, ast.Pos(source, number, column)))
        at = m.end()
    return facts


def nothing_to_read(text: str) -> bool:
    """Whether ``text`` (what the readers here left to lark) holds blanks
    and comments alone, which the grammar ignores: a program whose every
    statement was read here but that has comments (as most do) needs no
    lark, whose runtime's import and lexers were most of a first parse."""
    m = _BLANKS_AND_COMMENTS(text)
    return not text or (m is not None and m.end() == len(text))


def _plain_time(text: str):
    """The interval of a fact's time ``text`` (``[1, 5)``, ``(-inf,3]``,
    ``7``, ``[2024-01-01, 2024-01-01T10:00:00.5Z)``) as the grammar reads
    it (dates as they are written, resolved with the program's timeline);
    None for anything else (a duration, an empty interval, an infinite time
    point, a date that is none): lark reads it or says what is wrong.  A
    program of 1,300 dated facts took 0.17 s in lark, 15 times its numbers."""
    m = _PLAIN_TIME(text)
    if m is None:
        return None
    left, lo, hi, right, point = m.groups()
    try:
        if point is not None:
            t = _bound(point)
            return None if t in (POS_INF, NEG_INF) else (t, t, True, True)
        lo, hi, lc, hc = _bound(lo), _bound(hi), left == "[", right == "]"
        if type(lo) is dates.DatePoint or type(hi) is dates.DatePoint:
            return lo, hi, lc, hc  # (the grammar's: made once the granularity is known, dates.resolve)
        return make(lo, hi, lc, hc)
    except ValueError:  # (beyond the digits an exact number may have; a date that is none)
        return None


def _bound(text: str):
    """A signed number, infinity or a date, as the grammar's ``bound``."""
    if "-" in text[1:]:  # (a number has no sign past its first character)
        return dates.date_point(text)
    if text[0] in "+-":
        v = parse_number(text[1:])
        return -v if text[0] == "-" else v
    return parse_number(text)


def _plain_terms(args, values: dict):
    """The terms of a fact's ``args`` text (None: no parentheses), each a
    name, an unsigned integer, decimal or fraction or a boolean, as the
    grammar reads them; None when one is anything else."""
    if args is None:
        return ()
    terms = []
    for tok in args.split(","):
        v = values.get(tok)
        if v is None:
            word = tok.strip(" \t")
            if not _PLAIN_TERM(word) or word in _KEYWORDS:
                return None
            if word[0] == "#":
                v = boolean(word == "#T")
            elif word[0].isalpha():
                v = word
            else:
                try:
                    v = parse_number(word)
                except ValueError:  # (a fraction over 0, too many digits)
                    return None
            values[tok] = v
        terms.append(v)
    return tuple(terms)


def _statement(lines: list, n: int, ends, source: str, seen: dict, build, anon, shapes):
    """The reader of the statement starting on line ``n`` (its index in
    ``lines``, ``ends`` its :func:`_ends`; the statement before has ended),
    over lines up to the first that ends a statement, and the line after
    it; or ``(None, n)``.  The reader holds the statement read (a rule or an
    list of annotations) and the program's count of ``_`` after it; a rule on one
    line is built from the program's ``shapes`` where its shape was read
    (language/rule_shapes.py)."""
    upto = n + 1
    while ends != _ENDED:
        if ends is None or upto == len(lines) or upto - n == _LONGEST:
            return None, n
        upto += 1
        ends = _ends(lines[upto - 1])
    text = lines[n] if upto == n + 1 else "\n".join(lines[n:upto])
    r = _Line(text, n + 1, source, seen, build, anon)
    try:
        if text.lstrip(BLANKS).startswith("@"):
            r.statement = r.annotations()
            return r, upto
        if ":-" in text:
            r.statement = r.rule() if upto > n + 1 else shapes.rule(text, n + 1, r.rule)
            return r, upto
    except (Unread, ChronologError):
        pass
    return None, n


def _anonymous(line: str) -> int:
    """The anonymous variables ``_`` lark reads on a line of a program that
    reads (outside strings and comments; not in a name or a labelled null)."""
    code = _CODE(line).group()
    return sum(1 for m in _ANON_OR_STRING(code) if m.group() == "_")


_ENDED, _OPEN, _NOTHING = "ended", "open", "nothing"
_LONGEST = 16  # lines of one statement read here


def _ends(line: str):
    """Whether ``line`` ends a statement (its code before a comment ends in
    '.'), leaves one open, or holds none; None when a string in it does not
    close on it."""
    if '"' in line or "%" in line:
        code = _CODE(line)
        if line.startswith('"', code.end()):
            return None
        code = code.group().rstrip(BLANKS)
    else:  # (no string, no comment: the whole line is code; _CODE's walk was a third of a rule line's keying)
        code = line.rstrip(BLANKS)
    return _NOTHING if not code else _ENDED if code[-1] == "." else _OPEN


_ANON_OR_STRING = re.compile(r'"(?:\\.|[^"\\])*"|(?<![A-Za-z0-9_])_(?![:A-Za-z0-9_])').finditer
# the code of a line before a comment, its strings whole; an unclosed string stops it at its '"'
_CODE = re.compile(r'(?:[^"%]|"(?:\\.|[^"\\\n])*")*').match
# line breaks of str.splitlines that are not '\n' or '\r\n'
_OTHER_BREAKS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]|\r(?!\n)").search
# "(a, Xb, c_1)": names and variables, which NAME and VAR read whole
_PLAIN = r"[A-Za-z][A-Za-z0-9_]*"
_NAMES = re.compile(rf"[{BLANKS}]*\(([{BLANKS}]*{_PLAIN}[{BLANKS}]*(?:,[{BLANKS}]*{_PLAIN}[{BLANKS}]*)*)\)").match
_SKIPPED = BLANKS + "%"
# a fact on a line of its own, printable ASCII: predicate, arguments' text, time (no string, comment or second '@')
_FACT_LINE = re.compile(r"(?=[\t -~]*\r?\Z)[ \t]*([a-z][A-Za-z0-9_]*)[ \t]*(?:\(([^()\"%@]*)\))?[ \t]*@([^\"%@]*)\.[ \t]*\r?").fullmatch
# one fact of a line of several: its '.' is followed by a blank or the line's end (1.5 is a number)
_ONE_FACT = re.compile(r"[ \t]*([a-z][A-Za-z0-9_]*)[ \t]*(?:\(([^()\"%@]*)\))?[ \t]*@([^\"%@]*?)\.(?=[ \t\r]|\Z)[ \t]*").match
_PRINTABLE = re.compile(r"[\t -~]*\r?\Z").match
_PLAIN_NUMBER = r"[0-9]+(?:\.[0-9]+|/[0-9]+)?"
# the grammar's DATE terminal (vadalog.lark), which it lexes before a number
_PLAIN_DATE = (r"(?:[+-][0-9]{4,}|[0-9]{4})-[0-9]{2}-[0-9]{2}"
               r"(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?(?:Z|[+-][0-9]{2}(?::?[0-9]{2})?)?)?(?![0-9:])")
_PLAIN_BOUND = rf"{_PLAIN_DATE}|[+-]?(?:inf|infty|infinity|{_PLAIN_NUMBER})"
_PLAIN_TIME = re.compile(rf"[ \t]*(?:([\[(])[ \t]*({_PLAIN_BOUND})[ \t]*,[ \t]*({_PLAIN_BOUND})[ \t]*([\])])"
                         rf"|({_PLAIN_DATE}|[+-]?{_PLAIN_NUMBER}))[ \t]*").fullmatch
_PLAIN_TERM = re.compile(r"[a-z][A-Za-z0-9_]*|[0-9]+(?:\.[0-9]+|/[0-9]+)?|#[TF]").fullmatch
_BLANKS_AND_COMMENTS = re.compile(r"(?:[ \t\f\r\n]+|%[^\n]*)+").match  # (the grammar's WS and COMMENT, ignored)
_GROUP_OPS = ("/\\", "△")
_DATED = (dates.DatePoint, dates.Duration)
_SIGNS = frozenset("+-")
_DIGITS_AND_SIGNS = frozenset("0123456789+-")
_NAME = _VAR = _VAR_NOT_DURATION = _STRING = _BOOL = _DATE = _DURATION = _INF = _CMP = _IF = None
_BOX_OP = _TEMP_OR_BOX = _BINARY = None
_vadalog = _Boolean = None


def _load() -> None:
    """The grammar's terminals as bound ``match`` methods (once per process)."""
    global _NAME, _VAR, _VAR_NOT_DURATION, _STRING, _BOOL, _DATE, _DURATION, _INF, _CMP, _IF, _BOX_OP, _TEMP_OR_BOX, _BINARY, _vadalog, _Boolean
    from . import vadalog
    from .booleans import Boolean

    t = terminals("vadalog.lark")

    def either(*names):
        return re.compile("|".join(f"(?:{t[n]})" for n in names)).match

    _Line.WS = re.compile(t["WS"]).match
    _Line.INF = _INF = re.compile(t["INF"]).match
    # lark tries FRACTION (priority 2) before DECIMAL before INT
    _Line.NUMBER = either("FRACTION", "DECIMAL", "INT")
    _NAME, _VAR, _STRING, _BOOL, _DATE, _DURATION = (re.compile(t[n]).match for n in ("NAME", "VAR", "STRING", "BOOL", "DATE", "DURATION"))
    _CMP, _IF, _BOX_OP = re.compile(t["CMP"]).match, re.compile(t["IF"]).match, re.compile(t["BOX_OP"]).match
    _TEMP_OR_BOX = either("TEMP_OP", "BOX_OP")
    # a variable where lark may read a duration (P, P3D): left to lark
    _VAR_NOT_DURATION = re.compile(f"(?!{t['DURATION']})(?:{t['VAR']})").match
    _BINARY = either("SINCE", "UNTIL")
    _vadalog, _Boolean = vadalog, Boolean
