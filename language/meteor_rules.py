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
from .rule_lines import BLANKS as _BLANKS, LineCursor, Unread, terminals
from .text import unquote

__all__ = ["read_rule"]

# MeTeoR's unary operators by name (ast.METEOR_OPERATORS, which prints them, read backwards)
_OPS = {name: op for op, name in ast.METEOR_OPERATORS.items() if op not in ("S", "U")}
_BOXES = ("[-]", "[+]")


class _Line(LineCursor):
    """One MeTeoR line; ``variable``: the dialect's convention for names."""

    __slots__ = ("variable",)
    POINT_WINDOWS = True  # (Boxplus[2])

    def __init__(self, text, lineno, source, variable, seen):
        super().__init__(text, lineno, source, seen)
        self.variable = variable

    # ------------------------------------------------------------ grammar
    def head(self):
        self.skip()
        at = self.i
        if _PREFIX_OTHER(self.text, at):
            raise Unread
        m = _OP(self.text, at)
        if m is not None:
            self.i = m.end()
            self.deeper()
            name, window = _OPS[m.group()], self.window()
            if name not in _BOXES:
                raise Unread  # (lark's transformer explains why a diamond head is refused)
            return ast.Temporal(name, window, self.head(), self.pos(at), dialect="meteor")
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
            raise Unread
        m = _BINOP(self.text, at)
        if m is None:
            return left
        self.i = m.end()
        self.deeper()
        window = self.window()
        return ast.Binary("S" if m.group() == "Since" else "U", window, left, self.literal(), self.pos(at), dialect="meteor")

    def unary(self):
        self.skip()
        at = self.i
        if _PREFIX_OTHER(self.text, at):
            raise Unread
        m = _OP(self.text, at)
        if m is None:
            return self.atom()
        self.i = m.end()
        self.deeper()
        name, window = _OPS[m.group()], self.window()
        return ast.Temporal(name, window, self.unary(), self.pos(at), dialect="meteor")

    def atom(self):
        m = self.take(_WORD)
        if m is None:
            raise Unread
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
                raise Unread
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
    if _DOT is None:  # (set last by _load)
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
    except Unread:
        return None
    return ast.Rule(head, body, r.pos(at), line.strip())


# "(a, Xb, c_1)": names without namespaces, which WORD reads whole (no '[' for a Since to look at)
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_NAMES = re.compile(rf"[{_BLANKS}]*\(([{_BLANKS}]*{_NAME}[{_BLANKS}]*(?:,[{_BLANKS}]*{_NAME}[{_BLANKS}]*)*)\)").match
_OP = _PREFIX_OTHER = _BINOP = _UNTIL_ALIAS = _WORD = _STRING = _IF = _NEG = _DOT = None


def _load() -> None:
    """The grammar's terminals as bound ``match`` methods (once per process)."""
    global _OP, _PREFIX_OTHER, _BINOP, _UNTIL_ALIAS, _WORD, _STRING, _IF, _NEG, _DOT
    t = terminals("meteor.lark")

    def either(*names):
        return re.compile("|".join(f"(?:{t[n]})" for n in names)).match

    # The priority-3 keywords lark tries before a name: the four named
    # operators are read here, the others (and the symbolic operators and a
    # parenthesised literal, which a name cannot start with) go to lark.
    _OP = either("DMINUS", "DPLUS", "BMINUS", "BPLUS")
    _PREFIX_OTHER = re.compile(
        "|".join(f"(?:{t[n]})" for n in ("SOMETIME", "ALWAYS", "TOP", "BOTTOM", "SYM_OP")) + r"|\("
    ).match
    _BINOP = either("SINCE", "UNTIL")
    _UNTIL_ALIAS = re.compile(t["UNTIL_ALIAS"]).match
    _Line.INF, _Line.NUMBER, _Line.WS = re.compile(t["INF"]).match, re.compile(t["NUMBER"]).match, re.compile(t["WS"]).match
    _WORD, _STRING = re.compile(t["WORD"]).match, re.compile(t["STRING"]).match
    _IF, _NEG, _DOT = re.compile(t["IF"]).match, re.compile(t["NEG"]).match, re.compile(t["DOT"]).match
