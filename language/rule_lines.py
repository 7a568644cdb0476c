"""The cursor the dialects' rule-line readers share (language/meteor_rules.py,
language/vadalog_rules.py): one line read left to right over the grammar's
own terminal regular expressions, with the windows and numbers both
grammars write alike.  A reader raises :class:`Unread` wherever the line is
not of the shape it reads for certain; the line then goes to lark.
"""

from __future__ import annotations

import re

from . import ast
from .timeline import NEG_INF, POS_INF, make, parse_number

DEEPEST = 32  # operators nested in one line (lark's recursion gives out somewhere in the hundreds)
BLANKS = " \t\f\r\n"  # the grammars' WS (lark's common.WS)
# a window's text up to its closing bracket: "[1,1]", "(0, +inf)"
_WINDOW_TEXT = re.compile(r"[\[(][^\[\]()]*[\])]").match


class Unread(Exception):
    """This line is not of the common shape: lark reads it."""


def terminals(grammar: str) -> dict:
    """A grammar file's terminals, the text of their regular expressions by
    name, as lark's lexer has them (language/<dialect>_terminals.py,
    generated beside its tables by scripts/generate_parsers.py; a reader
    compiles those it uses): a program whose statements this reader and the
    fact lines' take never loads lark's runtime, its tables nor builds its
    lexers (40-60 ms of a 10-fact ``chronolog run``)."""
    import importlib

    return importlib.import_module(f"{__package__}.{grammar.partition('.')[0]}_terminals").TERMINALS


class LineCursor:
    """One line, read left to right; ``i`` is the position in it.  ``seen``
    is a dict kept across the lines of one program (the terms and windows
    read: one object per name and window text).  A dialect's subclass sets
    the matchers of its grammar's terminals (``WS``, ``INF``, ``NUMBER``)
    and ``POINT_WINDOWS`` (whether ``[2]`` is a window)."""

    __slots__ = ("text", "i", "lineno", "source", "seen", "depth")
    WS = INF = NUMBER = None
    POINT_WINDOWS = False

    def __init__(self, text, lineno, source, seen):
        self.text, self.i, self.lineno, self.source, self.seen = text, 0, lineno, source, seen
        self.depth = 0  # operators nested so far

    def deeper(self) -> None:
        """One more nested operator; deep nesting goes to lark, which reads
        it or says it is nested too deeply, as it did."""
        self.depth += 1
        if self.depth > DEEPEST:
            raise Unread

    def skip(self) -> None:
        i = self.i
        if i < len(self.text) and self.text[i] in BLANKS:  # (most lines have none: no regular expression call)
            self.i = self.WS(self.text, i).end()

    def take(self, match):
        """The token ``match`` reads here (after blanks), or None."""
        self.skip()
        m = match(self.text, self.i)
        if m is None:
            return None
        self.i = m.end()
        return m

    def listed(self, read, close: str) -> list:
        """What ``read()`` reads, again after each comma, up to ``close``
        (nothing before it: an empty list), after an opening bracket."""
        out = []
        if not self.char(close):
            out.append(read())
            while self.char(","):
                out.append(read())
            if not self.char(close):
                raise Unread
        return out

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

    # ------------------------------------------------------------ windows
    def window(self):
        """An operator's window: non-negative, non-empty (else lark reads
        the line and says what is wrong)."""
        window = self.bounds()
        if window[0] < 0:
            raise Unread
        return window

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
            raise Unread
        lo = self.bound()
        if self.char(","):
            hi = self.bound()
        elif self.POINT_WINDOWS:
            hi = lo
        else:
            raise Unread
        right = self.char("])")
        if right is None:
            raise Unread
        return self.interval(lo, hi, left == "[", right == "]")

    def interval(self, lo, hi, lc: bool, hc: bool):
        """The interval of a window's bounds (an empty one: lark says so)."""
        iv = make(lo, hi, lc, hc)
        if iv is None:
            raise Unread
        return iv

    def bound(self):
        sign = self.char("+-")
        if self.take(self.INF) is not None:
            return NEG_INF if sign == "-" else POS_INF
        n = self.number()
        return -n if sign == "-" else n

    def number(self):
        m = self.take(self.NUMBER)
        if m is None:
            raise Unread
        try:
            return parse_number(m.group())
        except ValueError:
            raise Unread from None
