"""Reader for the MeTeoR dialect: programs and datasets in MeTeoR's own syntax.

Programs (:func:`parse`) have one rule per line, ``head :- body``, literals
separated by ``,``, no final ``.`` (one is tolerated)::

    R1(X,Y):- Diamondminus[1,1]R1(X,Y)
    Boxplus[1,1]R5(Y):- R2(X,Y),Boxplus[1,2]R3(Y,Z)
    a1:LecturerCandidate(X):- a1:publicationAuthor(Y,X)Since(0,1]a1:Publication(Y)

Operators and what they become in the AST:

==========================  =================================================
``Diamondminus[a,b]``       ``Temporal("<->", [a,b], ...)``
``Diamondplus[a,b]``        ``Temporal("<+>", ...)``
``Boxminus[a,b]``           ``Temporal("[-]", ...)``
``Boxplus[a,b]``            ``Temporal("[+]", ...)``
``<->``, ``<+>``, ``[-]``,  the same four (MeTeoR's file loader rewrites them
``[+]``                     to the names above)
``SOMETIME[a,b]``           ``<+>[a,b]`` when ``a >= 0``; with ``b <= 0`` it
                            looks back: ``SOMETIME[-2,-1]`` is ``<->[1,2]``
``ALWAYS[a,b]``             ``[+][a,b]`` when ``a >= 0``; ``ALWAYS[-2,-1]``
                            is ``[-][1,2]``
``A Since[a,b] B``          ``Binary("S", [a,b], A, B)``
``A Until[a,b] B``          ``Binary("U", ...)``; ``UNTIL[-2,-1]`` is
                            ``Since[1,2]``, ``UNTIL[1,2]`` is ``Until[1,2]``
``Top`` / ``Bottom``        ``Truth(True)`` / ``Truth(False)``
``A(X) || B(X), C(X)``      every literal after ``||`` is negated
                            (``Negation``)
==========================  =================================================

The sign conventions of the aliases follow ``meteor_reasoner.utils.parser``
(``parse_operator``).  A window written ``[a]`` is ``[a,a]``.  Windows that
mix signs (``SOMETIME[-1,2]``) or a negative window on a named operator are
errors, not silently reinterpreted.

Deliberate differences from MeTeoR, which skips or drops what it cannot read:

* **Negation** (``||``): MeTeoR parses the negative literals and then drops
  them, so ``P(X):- A(X)||B(X)`` means ``P(X):- A(X)`` there.  Here they are
  kept as :class:`~.ast.Negation` (stratified negation, as in Temporal
  Vadalog).
* **Bad lines raise** :class:`~.errors.SyntaxError_` naming file, line and
  column; MeTeoR's dataset loader skips malformed facts silently.
* Heads may only carry boxes (``Boxminus``/``Boxplus``/``ALWAYS``/``[-]``/
  ``[+]``): a diamond head is not DatalogMTL, and MeTeoR fails on it at run
  time.

**Names.** In rules an argument whose first character is an uppercase letter
is a variable; everything else is a constant (MeTeoR's rule, so ``_x`` is a
constant too).  Predicate names may start with either case, may carry
``:``-separated namespaces (``a1:Lecturer``) and reach the AST unchanged.
A bare name in literal position (``C`` in ``B(X)Since[1,2]C``) is a
propositional atom with no terms.  In facts every argument is a constant
(datasets use constants such as ``ID12``).

**Constants that look like numbers are numbers**: ``g528(197,876)`` has the
``int`` constants 197 and 876, and ``p(0.5)`` the ``Fraction`` 1/2, exactly
as the Temporal Vadalog fact ``g528(197,876).`` gives, so that both dialects
agree on data.  (MeTeoR compares constants as strings, so there ``1`` and
``1.0`` differ; here they are the same number.)  Everything else is a
``str``.  Time points are exact (:func:`~.timeline.parse_number`):
``0.1`` is 1/10 and ``1/3`` is accepted too.

Datasets (:func:`parse_facts`) have one fact per line: ``P(a,b)@[1,2)``,
``A(a)@1``, ``C@(1,2]``, ``Alive(adam)@[0,+inf)``, blank lines and lines
starting with ``#`` or ``%`` ignored, a final ``.`` tolerated.  A compiled
regular expression reads the usual lines; only a line it rejects goes
through the grammar, which then either reads it (quoted strings, ``[a]``)
or reports exactly what is wrong.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Union

from . import lark_runtime as lark
from .lark_runtime import v_args

from . import ast
from .errors import SyntaxError_
from .meteor_rules import read_rule
from .reader import AstBuilder, Dialect, interval_text
from .timeline import make, parse_number

__all__ = ["parse", "parse_facts"]


_TERMINAL_NAMES = {
    "WORD": "a name",
    "NUMBER": "a number",
    "STRING": 'a "string"',
    "INF": "inf",
    "DMINUS": "Diamondminus",
    "DPLUS": "Diamondplus",
    "BMINUS": "Boxminus",
    "BPLUS": "Boxplus",
    "SOMETIME": "SOMETIME",
    "ALWAYS": "ALWAYS",
    "SYM_OP": "<->, <+>, [-] or [+]",
    "SINCE": "Since",
    "UNTIL": "Until",
    "UNTIL_ALIAS": "UNTIL",
    "TOP": "Top",
    "BOTTOM": "Bottom",
    "IF": "':-'",
    "NEG": "'||'",
    "DOT": "'.'",
    "COMMA": "','",
    "LPAR": "'('",
    "RPAR": "')'",
    "LSQB": "'['",
    "RSQB": "']'",
    "AT": "'@'",
    "PLUS": "'+'",
    "MINUS": "'-'",
    "$END": "end of line",
}

# a unary operator by its MeTeoR name or its Vadalog symbol (both read)
_OPS = {**{name: op for op, name in ast.METEOR_OPERATORS.items() if op not in ("S", "U")},
        **{op: op for op in ("<->", "<+>", "[-]", "[+]")}}

_OP_HINT = (
    "MeTeoR's temporal operators are Diamondminus, Diamondplus, Boxminus, Boxplus, "
    "SOMETIME, ALWAYS (prefix) and Since, Until (infix), each followed by a window such as [1,2]"
)


_FACT_HINT = "a fact looks like P(a,b)@[1,2), A(a)@1, C@(1,2] or Alive(adam)@[0,+inf)"
_BODY_ONLY = {"NEG", "SINCE", "UNTIL", "UNTIL_ALIAS"}


class MeteorDialect(Dialect):
    """MeTeoR: one statement per line, names of either case for predicates,
    uppercase-first arguments are variables in rules, named operators
    (``Diamondminus[1,2]``, ``A Since[1,2] B``)."""

    name = "meteor"
    grammar = "meteor.lark"
    terminal_names = _TERMINAL_NAMES
    max_expected = 10

    def parse(self, text, source="<program>"):
        return parse(text, source)

    def format_term(self, value) -> str:
        """A string constant prints bare when this reader and meteor-reasoner
        both read it back as the same string (``ID1``, ``a1:Lecturer``,
        ``x-1``); meteor-reasoner keeps quotes as part of a constant, so
        ``"ID1"`` would be another constant there.  Strings that cannot be
        bare (blanks, commas, brackets, or that read as a number) stay
        quoted, which this reader reads back and meteor-reasoner cannot."""
        if type(value) is str and _arg_value(value) == value and type(_arg_value(value)) is str:
            return value
        return super().format_term(value)

    def explain(self, exc, line_text, src_line, column, facts=False):
        """``facts``: the line came from a dataset."""
        prefix = line_text[: max(column - 1, 0)]
        in_body = re.search(r":[ \t]*-", prefix) is not None
        hint = ""

        def expected_text(expected) -> str:
            expected = set(expected)
            # LALR merges states of heads, facts and bodies: drop what cannot
            # follow on this side of ':-'.
            if in_body:
                expected -= {"IF", "AT"}
            elif facts or "@" in prefix:
                expected -= _BODY_ONLY | {"IF"}
            else:
                expected -= _BODY_ONLY
            return self.describe_expected(expected)

        if isinstance(exc, lark.UnexpectedCharacters):
            ch = line_text[exc.pos_in_stream] if exc.pos_in_stream < len(line_text) else ""
            msg = f"unexpected character {ch!r}"
            allowed = getattr(exc, "allowed", None)
            if allowed:
                msg += f"; expected {expected_text(allowed)}"
            from .reader import lookalike_hint

            after = line_text[exc.pos_in_stream + 1 : exc.pos_in_stream + 2]  # (':–': the lexer stops at the ':')
            look = lookalike_hint(ch) or (lookalike_hint(after) if after else "")
            if ch == "." and exc.pos_in_stream + 1 < len(line_text) and line_text[exc.pos_in_stream + 1].isdigit():
                hint = "write numbers with a leading digit, e.g. 0.5"
            elif look:
                hint = look
            elif facts:
                hint = _FACT_HINT
            elif ch == "|":
                hint = "negation in the MeTeoR dialect is written after '||': P(X):- A(X) || B(X)"
            elif ch == "&":
                hint = "separate body literals with ','"
            elif ch in "{}<>=!~":
                hint = _OP_HINT
            else:
                from .reader import non_ascii_hint

                hint = non_ascii_hint(ch) or hint
        elif isinstance(exc, lark.UnexpectedToken):
            tok = exc.token
            expected = set(exc.expected)
            if tok.type == "$END":
                column = len(line_text.rstrip()) + 1
                msg = f"the line ends too early; expected {expected_text(expected)}"
                if facts or "@" in line_text:
                    hint = _FACT_HINT
                elif "IF" in expected and "AT" in expected:
                    hint = "a line is either a rule 'head :- body' or a fact 'P(a)@[1,2]'"
                else:
                    hint = "MeTeoR programs have one rule per line, 'head :- body'"
            else:
                msg = f"unexpected {str(tok)!r}; expected {expected_text(expected)}"
                if str(tok) == "-" and re.search(r"@\s*[\[(]?\s*\d{4}$", prefix):  # P(a)@2024-01-05
                    hint = ("MeTeoR's time points are numbers, with no dates; a program over dates is written in "
                            "Temporal Vadalog (@timeGranularity(\"days\"), --dialect vadalog)")
                elif re.search(r"(^|[\s,])not\s*$", prefix):
                    hint = "negation in the MeTeoR dialect is written after '||': P(X):- A(X) || B(X)"
                elif tok.type == "LSQB" or (tok.type == "LPAR" and "AT" in expected and in_body):
                    hint = _OP_HINT
                elif facts:
                    hint = _FACT_HINT
                elif "RPAR" in expected and "COMMA" in expected and "IF" not in expected and "AT" not in expected:
                    hint = "separate arguments with ','"
                elif tok.type in ("WORD", "DMINUS", "DPLUS", "BMINUS", "BPLUS", "SOMETIME", "ALWAYS", "SYM_OP") and (
                    in_body
                ):
                    hint = "separate body literals with ',' (and write one rule per line)"
                elif tok.type == "IF":
                    hint = "write one rule per line"
                elif not in_body and "IF" in expected:
                    hint = "a rule is written 'head :- body', a fact 'P(a)@[1,2]'"
        elif isinstance(exc, lark.UnexpectedEOF):  # pragma: no cover - LALR reports $END tokens
            column = len(line_text.rstrip()) + 1
            msg = "the line ends too early"
        else:  # pragma: no cover - lark has no other kinds
            msg = str(exc)
        return msg, hint, column


# ---------------------------------------------------------------- transformer


class _ToAst(AstBuilder):
    """Builds AST objects for one line; checks what the grammar cannot
    (windows non-negative and non-empty, heads carry only boxes)."""

    # ---------------------------------------------------------- statements
    def start(self, items):
        return items[0]

    @v_args(meta=True)
    def rule(self, meta, items):
        head, body = items[0], items[2]
        return ast.Rule(head, body, self._pos(meta), self.lines[0].strip())

    @v_args(meta=True)
    def fact(self, meta, items):
        atom, interval = items[0], items[1]
        values = tuple(t.name if isinstance(t, ast.Var) else t.value for t in atom.terms)
        return ast.Fact(atom.pred, values, interval, self._pos(meta))

    # ---------------------------------------------------------- heads
    def head_atom(self, items):
        return items[0]

    @v_args(meta=True)
    def head_op(self, meta, items):
        (kind, tok), window, inner = items
        pos = self._tok_pos(tok)
        op = self._resolve_op(kind, tok, window, pos)
        name, window = op
        if name not in ("[-]", "[+]"):
            raise self._err(
                f"{tok} cannot be applied to a rule head: only boxes can",
                pos,
                "a head may carry Boxminus/Boxplus (or ALWAYS, [-], [+]); "
                "move a diamond into the body of the rules that use this predicate",
            )
        return ast.Temporal(name, window, inner, pos, dialect="meteor")

    @v_args(meta=True)
    def head_bottom(self, meta, items):
        return ast.Truth(False, self._pos(meta))

    @v_args(meta=True)
    def head_top(self, meta, items):
        raise self._err(
            "Top cannot be the head of a rule",
            self._pos(meta),
            "a head is an atom, Bottom (a constraint), or a box applied to a head",
        )

    # ---------------------------------------------------------- bodies
    def body(self, items):
        positive = list(items[0])
        if len(items) > 1:
            for lit in items[2]:
                positive.append(ast.Negation(lit, getattr(lit, "pos", ast.NOWHERE)))
        return positive

    def literals(self, items):
        return list(items)

    def plain(self, items):
        return items[0]

    @v_args(meta=True)
    def top(self, meta, items):
        return ast.Truth(True, self._pos(meta))

    @v_args(meta=True)
    def bottom(self, meta, items):
        return ast.Truth(False, self._pos(meta))

    @v_args(meta=True)
    def temporal(self, meta, items):
        (kind, tok), window, inner = items
        pos = self._tok_pos(tok)
        name, window = self._resolve_op(kind, tok, window, pos)
        return ast.Temporal(name, window, inner, pos, dialect="meteor")

    @v_args(meta=True)
    def binary(self, meta, items):
        left, (kind, tok), window, right = items
        pos = self._tok_pos(tok)
        lo, hi, lc, hc = window
        if kind == "UNTIL_ALIAS":
            if hi <= 0 and lo < 0:
                kind, window = "SINCE", _mirror(window)
            elif lo >= 0:
                kind = "UNTIL"
            else:
                raise self._mixed(tok, window, pos)
        self._check_window(tok, window, pos)
        return ast.Binary("S" if kind == "SINCE" else "U", window, left, right, pos, dialect="meteor")

    def op(self, items):
        tok = items[0]
        return (tok.type, tok)

    def binop(self, items):
        tok = items[0]
        return (tok.type, tok)

    def _mixed(self, tok, window, pos):
        return self._err(
            f"the window {interval_text(*window)} of {tok} mixes past and future",
            pos,
            f"{tok}[-2,-1] looks back 1 to 2, {tok}[1,2] looks ahead 1 to 2; "
            "split a window that spans 0 into two literals",
        )

    def _check_window(self, tok, window, pos):
        lo = window[0]
        if lo < 0:
            raise self._err(
                f"the window {interval_text(*window)} of {tok} is negative",
                pos,
                "operator windows are non-negative: Diamondminus[1,2] looks back 1 to 2 "
                "(MeTeoR's alias SOMETIME[-2,-1] means the same)",
            )

    def _resolve_op(self, kind, tok, window, pos):
        """(ast op, window) for a prefix operator token, aliases resolved."""
        text = str(tok)
        lo, hi, lc, hc = window
        if kind in ("SOMETIME", "ALWAYS"):
            past = lo < 0
            if past and hi > 0:
                raise self._mixed(tok, window, pos)
            if past:
                window = _mirror(window)
                name = "<->" if kind == "SOMETIME" else "[-]"
            else:
                name = "<+>" if kind == "SOMETIME" else "[+]"
        else:
            name = _OPS[text]
        self._check_window(tok, window, pos)
        return name, window

    # ---------------------------------------------------------- atoms and terms
    @v_args(meta=True)
    def atom(self, meta, items):
        name = str(items[0])
        return ast.Atom(name, tuple(items[1:]), self._pos(meta))

    def word_arg(self, items):
        return self._word(str(items[0]))

    def num_arg(self, items):
        return ast.Const(items[0])

    def string_arg(self, items):
        return self.string(items)

    # ---------------------------------------------------------- time
    def unsigned(self, items):
        return self._number(items[0])

    def negative(self, items):
        return -self._number(items[0])

    def _make(self, lo, hi, lc, hc, meta, what="interval"):
        return self._interval(lo, hi, lc, hc, self._pos(meta), what)

    @v_args(meta=True)
    def window(self, meta, items):
        lc, lo, hi, hc = items
        return self._make(lo, hi, lc, hc, meta, "window")

    @v_args(meta=True)
    def point_window(self, meta, items):
        lc, t, hc = items
        return self._make(t, t, lc, hc, meta, "window")

    @v_args(meta=True)
    def interval(self, meta, items):
        lc, lo, hi, hc = items
        return self._make(lo, hi, lc, hc, meta)

    @v_args(meta=True)
    def point_interval(self, meta, items):
        lc, t, hc = items
        self._point(t, self._pos(meta), _UNBOUNDED_HINT)
        return self._make(t, t, lc, hc, meta)

    @v_args(meta=True)
    def punctual(self, meta, items):
        return self._point(items[0], self._pos(meta), _UNBOUNDED_HINT)


_UNBOUNDED_HINT = "an unbounded fact is written P(a)@[0,+inf)"


def _mirror(window):
    """``[-b,-a]`` for ``[a,b]``: a window written with negative numbers."""
    lo, hi, lc, hc = window
    return make(-hi, -lo, hc, lc)


DIALECT = MeteorDialect()
MeteorDialect.builder = _ToAst


def _parse_line(line_text: str, lineno: int, source: str, facts: bool = False):
    return DIALECT.read(line_text, source, [line_text], lineno, facts=facts)


def _is_comment(stripped: str) -> bool:
    return stripped.startswith(("#", "%", "//"))


# ---------------------------------------------------------------- programs


def parse(text: str, source: str = "<program>") -> ast.Program:
    """Parse a MeTeoR program: one rule per line.

    Lines holding a fact (``P(a)@[1,2]``) are accepted too and land in
    ``Program.facts``; blank lines and lines starting with ``#``, ``%`` or
    ``//`` are skipped.  Raises :class:`~.errors.SyntaxError_`.
    """
    prog = ast.Program(source=source)
    seen: dict = {}  # the names and windows of the rules read so far
    for lineno, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if not s or _is_comment(s):
            continue
        if ":-" not in raw:
            fact = _fast_fact(raw, lineno, source)
            if fact is not None:
                prog.facts.append(fact)
                continue
        else:
            rule = read_rule(raw, lineno, source, DIALECT.is_variable, seen)
            if rule is not None:
                prog.rules.append(rule)
                continue
        item = _parse_line(raw, lineno, source)
        if isinstance(item, ast.Rule):
            prog.rules.append(item)
        else:
            prog.facts.append(item)
    return prog


# ---------------------------------------------------------------- datasets

_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_BOUND = rf"(?:{_NUM}|[-+]?inf)"
_FACT_RE = re.compile(
    r"\s*([A-Za-z_][A-Za-z0-9_]*(?::[A-Za-z0-9_]+)*)\s*"  # predicate
    r"(?:\(([^()@\"'\[\]]*)\))?\s*"  # arguments
    r"@\s*(?:([\[(])\s*(" + _BOUND + r")\s*,\s*(" + _BOUND + r")\s*([\])])|(" + _NUM + r"))"
    r"\s*\.?\s*\Z"
)
_ARG_RE = re.compile(r"[^\s,()@\[\]\"']+\Z")
_NUM_START = frozenset("0123456789+-.")

# token -> python value; shared across calls (constants repeat a lot)
_arg_cache: dict = {}
_num_cache: dict = {}


def _arg_value(tok: str):
    """The constant for a dataset argument token, or None if it is not one."""
    v = _arg_cache.get(tok)
    if v is not None:
        return v
    if not _ARG_RE.match(tok):
        return None
    v = tok
    if tok[0] in _NUM_START:
        try:
            n = parse_number(tok)
        except ValueError:
            n = None
        if n is not None and type(n) is not float:
            v = n
    if len(_arg_cache) < 1_000_000:
        _arg_cache[tok] = v
    return v


def _number(tok: str):
    v = _num_cache.get(tok)
    if v is None:
        v = parse_number(tok)
        if len(_num_cache) < 100_000:
            _num_cache[tok] = v
    return v


def _fast_fact(line: str, lineno: int, source: str):
    """The fact on ``line`` if the regular expression reads it, else None."""
    m = _FACT_RE.match(line)
    if m is None:
        return None
    pred, args, lb, lo, hi, rb, pt = m.groups()
    if args is None:
        terms = ()
    elif not args.strip():
        terms = ()
    else:
        vals = []
        for a in args.split(","):
            v = _arg_value(a.strip())
            if v is None:
                return None
            vals.append(v)
        terms = tuple(vals)
    try:
        if pt is not None:
            t = _number(pt)
            iv = (t, t, True, True)
        else:
            iv = make(_number(lo), _number(hi), lb == "[", rb == "]")
    except ValueError:  # a number beyond the exact limits, 1/0: the grammar reports it with its place
        return None
    if iv is None:
        return None  # the grammar reports the empty interval
    return ast.Fact(pred, terms, iv, ast.Pos(source, lineno, m.start(1) + 1))


def parse_facts(text_or_lines: Union[str, Path, Iterable[str]], source: str = "<facts>") -> list:
    """Parse a MeTeoR dataset, one fact per line, into :class:`~.ast.Fact`\\ s.

    ``text_or_lines``: the text, an iterable of lines, or a ``Path`` to read
    (then ``source`` defaults to the path).  Blank lines and lines starting
    with ``#``, ``%`` or ``//`` are skipped; every other line must be a fact,
    or :class:`~.errors.SyntaxError_` is raised naming file, line and column.
    """
    if isinstance(text_or_lines, Path):
        if source == "<facts>":
            source = str(text_or_lines)
        from .source_text import read_text

        text_or_lines = read_text(text_or_lines, "facts file")
    lines = text_or_lines.splitlines() if isinstance(text_or_lines, str) else text_or_lines
    out = []
    append = out.append
    match = _FACT_RE.match
    for lineno, raw in enumerate(lines, 1):
        m = match(raw)
        if m is not None:
            # inline fast path (same as _fast_fact)
            pred, args, lb, lo, hi, rb, pt = m.groups()
            ok = True
            if args is None or not args.strip():
                terms = ()
            else:
                vals = []
                for a in args.split(","):
                    a = a.strip()
                    v = _arg_cache.get(a)
                    if v is None:
                        v = _arg_value(a)
                        if v is None:
                            ok = False
                            break
                    vals.append(v)
                terms = tuple(vals)
            if ok:
                try:
                    if pt is not None:
                        t = _num_cache.get(pt)
                        if t is None:
                            t = _number(pt)
                        iv = (t, t, True, True)
                    else:
                        a = _num_cache.get(lo)
                        if a is None:
                            a = _number(lo)
                        b = _num_cache.get(hi)
                        if b is None:
                            b = _number(hi)
                        lc, hc = lb == "[", rb == "]"
                        if type(a) is float or type(b) is float:
                            iv = make(a, b, lc, hc)
                        elif a < b or (a == b and lc and hc):
                            iv = (a, b, lc, hc)
                        else:
                            iv = None
                except ValueError:  # a number beyond the exact limits, 1/0: the grammar reports it with its place
                    iv = None
                if iv is not None:
                    append(ast.Fact(pred, terms, iv, ast.Pos(source, lineno, m.start(1) + 1)))
                    continue
        s = raw.strip()
        if not s or _is_comment(s):
            continue
        line = raw.rstrip("\r\n")
        item = _parse_line(line, lineno, source, facts=True)
        if not isinstance(item, ast.Fact):
            raise SyntaxError_(
                "expected a fact such as P(a,b)@[1,2), found a rule",
                ast.Pos(source, lineno, 1),
                hint="rules belong in the program, facts in the dataset",
                source_line=line,
            )
        append(item)
    return out
