"""MeTeoR rule lines of the common shape, read without lark.

Long MeTeoR programs are tens of thousands of plain rule lines
(``ShortStop(V):-OnLane(V,a,b),Boxminus[1,1]OnLane(V,c,d)``); lark's LALR
parser and its tree transformer take about 0.5 ms for such a line, most of
it per token in lark's Python.  This reader walks the line once with the
grammar's own terminal regular expressions (taken from the loaded lark
parser, so the two tokenise alike) and builds the same AST, positions
included, as :mod:`.meteor`'s grammar and transformer.  It reads heads that
are an atom or boxes around one, bodies of atoms under the four named
operators and ``Since``/``Until``, and ``||`` negation; anything else
(``Top``, ``Bottom``, ``SOMETIME``, ``ALWAYS``, ``UNTIL``, the symbolic
operators, parentheses around a literal, any error) returns None and the
line goes to lark, which reads it or names what is wrong.  A hand-written
reader because lark has no faster mode for this grammar (its standalone
parser runs the same per-token Python); tests/test_meteor_rules.py checks
that both readers give the same rules.
"""

from __future__ import annotations

import re

from . import ast
from .reader import _lark
from .text import unquote
from .timeline import NEG_INF, POS_INF, make, parse_number

__all__ = ["read_rule"]

_OPS = {"Diamondminus": "<->", "Diamondplus": "<+>", "Boxminus": "[-]", "Boxplus": "[+]"}
_BOXES = ("[-]", "[+]")
_DEEPEST = 32  # operators nested in one line (lark's recursion gives out somewhere in the hundreds)


class _Unread(Exception):
    """This line is not of the common shape: lark reads it."""


def _terminals() -> dict:
    return {t.name: re.compile(t.pattern.to_regexp()) for t in _lark("meteor.lark").terminals}


class _Line:
    """One line, read left to right; ``i`` is the position in it."""

    __slots__ = ("text", "i", "lineno", "source", "variable", "seen", "depth")

    def __init__(self, text, lineno, source, variable, seen):
        self.text, self.i, self.lineno, self.source, self.variable, self.seen = text, 0, lineno, source, variable, seen
        self.depth = 0  # operators nested so far

    def deeper(self) -> None:
        """One more nested operator; deep nesting goes to lark, which reads
        it or says it is nested too deeply, as it did."""
        self.depth += 1
        if self.depth > _DEEPEST:
            raise _Unread

    def skip(self) -> None:
        i = self.i
        if i < len(self.text) and self.text[i] in _BLANKS:  # (most lines have none: no regular expression call)
            self.i = _WS(self.text, i).end()

    def take(self, match):
        """The token ``match`` reads here (after blanks), or None."""
        self.skip()
        m = match(self.text, self.i)
        if m is None:
            return None
        self.i = m.end()
        return m

    def char(self, chars: str):
        """The next character (after blanks) if it is one of ``chars``."""
        self.skip()
        c = self.text[self.i : self.i + 1]
        if c and c in chars:
            self.i += 1
            return c
        return None

    def pos(self, at: int) -> ast.Pos:
        return ast.Pos(self.source, self.lineno, at + 1)

    # ------------------------------------------------------------ grammar
    def head(self):
        self.skip()
        at = self.i
        if _PREFIX_OTHER(self.text, at):
            raise _Unread
        m = _OP(self.text, at)
        if m is not None:
            self.i = m.end()
            self.deeper()
            name, window = self.window(m.group())
            if name not in _BOXES:
                raise _Unread  # (lark's transformer explains why a diamond head is refused)
            return ast.Temporal(name, window, self.head(), self.pos(at))
        return self.atom()

    def body(self) -> list:
        body = self.literals()
        if self.take(_NEG) is not None:
            body += [ast.Negation(lit, lit.pos) for lit in self.literals()]
        return body

    def literals(self) -> list:
        out = [self.literal()]
        while self.char(","):
            out.append(self.literal())
        return out

    def literal(self):
        left = self.unary()
        self.skip()
        at = self.i
        if _UNTIL_ALIAS(self.text, at):
            raise _Unread
        m = _BINOP(self.text, at)
        if m is None:
            return left
        self.i = m.end()
        self.deeper()
        window = self.bounds()
        if window[0] < 0:
            raise _Unread
        return ast.Binary("S" if m.group() == "Since" else "U", window, left, self.literal(), self.pos(at))

    def unary(self):
        self.skip()
        at = self.i
        if _PREFIX_OTHER(self.text, at):
            raise _Unread
        m = _OP(self.text, at)
        if m is None:
            return self.atom()
        self.i = m.end()
        self.deeper()
        name, window = self.window(m.group())
        return ast.Temporal(name, window, self.unary(), self.pos(at))

    def window(self, op: str):
        window = self.bounds()
        if window[0] < 0:
            raise _Unread
        return _OPS[op], window

    def bounds(self):
        """A window's interval; a window written before on this program's
        lines (``[1,1]``) is looked up."""
        self.skip()
        m = _WINDOW_TEXT(self.text, self.i)
        if m is None:
            return self.read_bounds()
        text = m.group()
        iv = self.seen.get(text)
        if iv is None:
            iv = self.seen[text] = self.read_bounds()
        else:
            self.i = m.end()
        return iv

    def read_bounds(self):
        left = self.char("[(")
        if left is None:
            raise _Unread
        lo = self.bound()
        hi = self.bound() if self.char(",") else lo
        right = self.char("])")
        if right is None:
            raise _Unread
        iv = make(lo, hi, left == "[", right == "]")
        if iv is None:
            raise _Unread
        return iv

    def bound(self):
        sign = self.char("+-")
        if self.take(_INF) is not None:
            return NEG_INF if sign == "-" else POS_INF
        n = self.number()
        return -n if sign == "-" else n

    def number(self):
        m = self.take(_NUMBER)
        if m is None:
            raise _Unread
        try:
            return parse_number(m.group())
        except ValueError:
            raise _Unread from None

    def atom(self):
        m = self.take(_WORD)
        if m is None:
            raise _Unread
        at, name = m.start(), m.group()
        names = _NAMES(self.text, self.i)
        if names is not None:  # arguments that are all plain names: one match
            self.i = names.end()
            return ast.Atom(name, tuple(map(self.name, names.group(1).split(","))), self.pos(at))
        if not self.char("("):
            return ast.Atom(name, (), self.pos(at))
        terms = []
        if not self.char(")"):
            terms.append(self.term())
            while self.char(","):
                terms.append(self.term())
            if not self.char(")"):
                raise _Unread
        return ast.Atom(name, tuple(terms), self.pos(at))

    def name(self, word: str):
        """A variable or a constant, by the dialect's convention (one object
        per name in a program: they are immutable)."""
        word = word.strip(_BLANKS)
        term = self.seen.get(word)
        if term is None:
            term = self.seen[word] = ast.Var(word) if self.variable(word) else ast.Const(word)
        return term

    def term(self):
        m = self.take(_WORD)
        if m is not None:
            return self.name(m.group())
        m = self.take(_STRING)
        if m is not None:
            return ast.Const(unquote(m.group()))
        sign = self.char("+-")
        n = self.number()
        return ast.Const(-n if sign == "-" else n)


def read_rule(line: str, lineno: int, source: str, is_variable, seen=None):
    """The :class:`~.ast.Rule` on ``line`` (a line of a file, blanks and
    all), as the grammar reads it, or None to leave the line to lark.
    ``is_variable``: the dialect's convention for names; ``seen``: a dict
    kept across the lines of one program (the terms and windows read)."""
    if _WS is None:
        _load()
    r = _Line(line, lineno, source, is_variable, {} if seen is None else seen)
    try:
        r.skip()
        at = r.i
        head = r.head()
        if r.take(_IF) is None:
            return None
        body = r.body()
        r.take(_DOT)
        r.skip()
        if r.i != len(line):
            return None
    except _Unread:
        return None
    return ast.Rule(head, body, r.pos(at), line.strip())


_BLANKS = " \t\f\r\n"  # the grammar's WS
# "(a, Xb, c_1)": names without namespaces, which WORD reads whole (no '[' for a Since to look at)
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_NAMES = re.compile(rf"[{_BLANKS}]*\(([{_BLANKS}]*{_NAME}[{_BLANKS}]*(?:,[{_BLANKS}]*{_NAME}[{_BLANKS}]*)*)\)").match
# a window's text up to its closing bracket: "[1,1]", "(0, +inf)"
_WINDOW_TEXT = re.compile(r"[\[(][^\[\]()]*[\])]").match
_WS = _OP = _PREFIX_OTHER = _BINOP = _UNTIL_ALIAS = _INF = _NUMBER = _WORD = _STRING = _IF = _NEG = _DOT = None


def _load() -> None:
    """The grammar's terminals as bound ``match`` methods (once per process)."""
    global _WS, _OP, _PREFIX_OTHER, _BINOP, _UNTIL_ALIAS, _INF, _NUMBER, _WORD, _STRING, _IF, _NEG, _DOT
    t = _terminals()

    def either(*names):
        return re.compile("|".join(f"(?:{t[n].pattern})" for n in names)).match

    # The priority-3 keywords lark tries before a name: the four named
    # operators are read here, the others (and the symbolic operators and a
    # parenthesised literal, which a name cannot start with) go to lark.
    _OP = either("DMINUS", "DPLUS", "BMINUS", "BPLUS")
    _PREFIX_OTHER = re.compile(
        "|".join(f"(?:{t[n].pattern})" for n in ("SOMETIME", "ALWAYS", "TOP", "BOTTOM", "SYM_OP")) + r"|\("
    ).match
    _BINOP = either("SINCE", "UNTIL")
    _UNTIL_ALIAS = t["UNTIL_ALIAS"].match
    _INF, _NUMBER, _WORD, _STRING = t["INF"].match, t["NUMBER"].match, t["WORD"].match, t["STRING"].match
    _IF, _NEG, _DOT = t["IF"].match, t["NEG"].match, t["DOT"].match
    _WS = t["WS"].match
