"""One reader for every dialect: a lark grammar in, :class:`~.ast.Program` out.

A dialect is a small subclass of :class:`Dialect` (its grammar file, how it
names variables and constants, the names of its tokens in error messages, how
it prints facts) paired with a subclass of :class:`AstBuilder` (the lark
transformer for the productions only it has).  What every dialect shares lives
here: the cached LALR parser, positions (file:line:column, also for a dialect
read one line at a time), the conversion of lark's errors into
:class:`~.errors.SyntaxError_`, intervals and time points with their checks,
terms, and the printing of constants.  This is the layout of sqlglot's
dialects (one parser and generator, a subclass per dialect overriding tokens
and a few methods).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from . import ast
from .errors import ChronologError, SyntaxError_, too_deep
from .interval_tokens import IntervalTokens
from .text import format_term as _format_term
from .text import unquote
from .timeline import NEG_INF, POS_INF, format_interval, format_number, make, parse_number, why_empty

@lru_cache(maxsize=None)
def _lark(grammar: str) -> "lark.Lark":
    """The LALR parser of a grammar file, from the tables generated from it
    (language/<dialect>_tables.py, by scripts/generate_parsers.py) on lark's
    standalone runtime (language/lark_runtime.py): a command imports
    neither lark nor its grammar compiler (lark's import and the loading
    of its cached tables were 140M instructions of a 10-fact run, these
    modules' 90M; tests/test_generated_parsers.py keeps them equal to what
    lark makes of the grammar)."""
    import importlib
    import os

    from . import lark_runtime as lark

    stem = os.path.splitext(os.path.basename(grammar))[0]
    tables = importlib.import_module(f"{__package__}.{stem}_tables")
    return lark.Lark._load_from_dict(tables.DATA, tables.MEMO)


def build_lexers(parser) -> None:
    """Build every parser state's lexer now: lark builds each one (a regular
    expression over that state's terminals, ~0.3 ms) the first time a
    program reaches that state, so a first program with operators not seen
    before pays for them (``chronolog.preload`` calls this)."""
    lexers = getattr(getattr(getattr(parser, "parser", None), "lexer", None), "lexers", None)
    for lexer in {id(x): x for x in (lexers or {}).values()}.values():
        getattr(lexer, "scanner", None)  # (a property: builds the lexer's scanner once)


def interval_text(lo, hi, lc, hc) -> str:
    return f"{'[' if lc else '('}{format_number(lo)},{format_number(hi)}{']' if hc else ')'}"


def with_meta(method):
    """A builder's method that lark calls with the production's positions
    (``meta``) and its children: lark's ``v_args(meta=True)``, applied by
    :func:`transformer` (a builder is defined without lark's runtime)."""
    method.with_meta = True
    return method


@lru_cache(maxsize=None)
def transformer(builder: type) -> type:
    """``builder`` as the lark Transformer that turns lark's trees into the
    AST, made when lark first reads a text: a program whose statements
    the readers without lark take (language/vadalog_rules.py) never
    imports lark's runtime (with logging, dataclasses and inspect: 15-20
    ms of a 10-fact ``chronolog run``)."""
    from . import lark_runtime as lark

    wrapped = {}
    for name in {n for klass in builder.__mro__ for n in vars(klass)}:
        f = next(vars(klass)[name] for klass in builder.__mro__ if name in vars(klass))  # (the one the builder has)
        if getattr(f, "with_meta", False):
            wrapped[name] = lark.v_args(meta=True)(f)
    return type(builder.__name__, (builder, lark.Transformer), wrapped)


class AstBuilder(IntervalTokens):
    """What every dialect's builder of the AST extends: positions, errors,
    intervals, time points and terms (lark's transformer: :func:`transformer`).

    ``lines``: the source lines the parsed text starts with; ``first_line``:
    the line number of ``lines[0]`` (a dialect read line by line parses each
    line alone and still reports the line of the file)."""

    dialect: "Dialect"

    def __init__(self, dialect: "Dialect", source: str, lines, first_line: int = 1):
        super().__init__()
        self.dialect = dialect
        self.source = source
        self.lines = lines
        self.first_line = first_line
        self._anon = 0

    # ---------------------------------------------------------- positions and errors
    def _pos(self, meta) -> ast.Pos:
        return ast.Pos(self.source, self.first_line - 1 + (getattr(meta, "line", 1) or 1), getattr(meta, "column", 0) or 0)

    def _tok_pos(self, tok) -> ast.Pos:
        return ast.Pos(self.source, self.first_line - 1 + (tok.line or 1), tok.column or 0)

    def _source_line(self, lineno: int) -> str:
        i = lineno - self.first_line
        return self.lines[i] if 0 <= i < len(self.lines) else ""

    def _err(self, msg, pos, hint=""):
        return SyntaxError_(msg, pos, hint=hint, source_line=self._source_line(pos.line))

    def _lines_text(self, meta) -> str:
        """The text a production spans, its lines joined by one blank."""
        try:
            first, last = meta.line - self.first_line + 1, meta.end_line - self.first_line + 1
            lines = self.lines
            if first == last:
                return lines[first - 1][meta.column - 1 : meta.end_column - 1]
            head = lines[first - 1][meta.column - 1 :]
            mid = lines[first : last - 1]
            tail = lines[last - 1][: meta.end_column - 1]
            return " ".join(s.strip() for s in [head, *mid, tail])
        except Exception:  # pragma: no cover - positions are always there
            return ""

    # ---------------------------------------------------------- time
    def _interval(self, lo, hi, lc, hc, pos, what="interval"):
        """The interval, or an error naming it when it is empty."""
        iv = make(lo, hi, lc, hc)
        if iv is None:
            raise self._err(
                f"the {what} {interval_text(lo, hi, lc, hc)} is empty",
                pos,
                why_empty(lo, hi, lc, hc),
            )
        return iv

    def _point(self, t, pos, hint=""):
        """A punctual interval ``[t,t]``; ``t`` must be finite."""
        if t in (POS_INF, NEG_INF):
            raise self._err("a time point must be finite", pos, hint)
        return (t, t, True, True)

    def number(self, items):
        return self._number(items[0])

    def _number(self, tok):
        try:
            return parse_number(str(tok))
        except ValueError as e:  # 3/0, or beyond the size limit
            raise self._err(str(e), self._tok_pos(tok), hint=_number_hint(e)) from None

    def _check_window(self, op, window, meta) -> None:
        """Operator windows are non-negative: the direction is the operator's."""
        lo = window[0] if isinstance(window, tuple) else None
        if (_is_num(lo) or lo == NEG_INF) and lo < 0:
            raise self._err(
                f"the window of {op} starts at a negative distance",
                self._pos(meta),
                hint="windows are non-negative distances: <->[1,2] looks 1 to 2 back, <+>[1,2] 1 to 2 ahead",
            )

    # ---------------------------------------------------------- terms
    def _word(self, text: str):
        """A name in argument position: variable or constant by the dialect's convention."""
        return ast.Var(text) if self.dialect.is_variable(text) else ast.Const(text)

    def _fresh_anonymous(self) -> ast.Var:
        self._anon += 1
        return ast.Var(f"_{self._anon}")

    def string(self, items):
        return ast.Const(unquote(str(items[0])))

    def num(self, items):
        return ast.Const(items[0])


class Dialect:
    """A dialect: its grammar, conventions, error vocabulary and printing.

    Subclasses set ``name``, ``grammar`` (a ``.lark`` file beside this module),
    ``builder`` (an :class:`AstBuilder` subclass), ``terminal_names`` and
    override :meth:`syntax_error`'s hints, :meth:`is_variable` and
    :meth:`format_term` where they differ."""

    name = ""
    grammar = ""
    builder: type = AstBuilder
    terminal_names: dict = {}
    # tokens listed first in "expected ..." (the structurally important ones)
    priority: tuple = ()
    max_expected = 6
    # how the dialect shows a model's interval in its facts (None: as it is; LARS: in ticks)
    shown_interval = None

    # ---------------------------------------------------------- reading
    def parse(self, text: str, source: str = "<program>") -> ast.Program:
        """A whole program in this dialect."""
        raise NotImplementedError

    def parser(self) -> "lark.Lark":
        return _lark(self.grammar)

    def read(self, text: str, source: str, lines=None, first_line: int = 1, whole=None, **context):
        """Parse ``text`` and build its AST; every error is a positioned
        :class:`~.errors.SyntaxError_`.  ``lines``/``first_line``: see
        :class:`AstBuilder`; ``context`` goes to :meth:`syntax_error`.
        ``whole``: the program ``text`` is the rest of, every line at its
        place (:func:`.vadalog._read`): a syntax error is worded against it."""
        from . import lark_runtime as lark

        lines = text.splitlines() if lines is None else lines
        try:
            tree = self.parser().parse(text)
        except lark.UnexpectedInput as exc:
            if whole is not None:
                if isinstance(exc.line, int) and exc.line > 0:
                    exc.pos_in_stream = offset(whole, exc.line, exc.column)
                text = whole
            raise self.syntax_error(exc, text, source, first_line, **context) from None
        except RecursionError:  # lark recurses once per nesting level
            raise too_deep(whole or text, source, first_line) from None
        try:
            return transformer(self.builder)(self, source, lines, first_line).transform(tree)
        except lark.VisitError as exc:
            if isinstance(exc.orig_exc, ChronologError):
                raise exc.orig_exc from None
            if isinstance(exc.orig_exc, RecursionError):
                raise too_deep(whole or text, source, first_line) from None
            raise
        except RecursionError:
            raise too_deep(whole or text, source, first_line) from None

    def describe_expected(self, expected) -> str:
        """The expected tokens in words, the structurally important ones first."""
        prio = self.priority
        ranked = sorted(expected, key=lambda e: (prio.index(e) if e in prio else len(prio), e))
        names = []
        for e in ranked:
            n = self.terminal_names.get(e, e.lower() if e.isupper() else repr(e))
            if n not in names:
                names.append(n)
        if not prio:
            names.sort()
        if len(names) > self.max_expected:
            names = names[: self.max_expected] + ["…"]
        return ", ".join(names)

    def syntax_error(self, exc, text: str, source: str, first_line: int = 1, **context) -> SyntaxError_:
        """A lark error as a SyntaxError_ naming file, line, column and what
        was expected; :meth:`explain` gives the dialect's message and hint."""
        from . import lark_runtime as lark

        lines = text.splitlines()
        line = getattr(exc, "line", 0) or 0
        column = getattr(exc, "column", 0) or 0
        if isinstance(exc, lark.UnexpectedToken) and exc.token.type == "$END" or isinstance(
            exc, lark.UnexpectedEOF
        ):
            line = len(lines)
            column = len((lines[-1] if lines else "").rstrip()) + 1
        src_line = lines[line - 1] if 0 < line <= len(lines) else ""
        msg, hint, column = self.explain(exc, text, src_line, column, **context)
        return SyntaxError_(msg, ast.Pos(source, first_line - 1 + line, column), hint=hint, source_line=src_line)

    def explain(self, exc, text: str, src_line: str, column: int, **context):
        """(message, hint, column) for a lark error; dialects add hints."""
        from . import lark_runtime as lark

        if isinstance(exc, lark.UnexpectedCharacters):
            ch = text[exc.pos_in_stream] if exc.pos_in_stream < len(text) else ""
            msg = f"unexpected character {ch!r}"
            allowed = getattr(exc, "allowed", None)
            if allowed:
                msg += f"; expected {self.describe_expected(allowed)}"
            after = text[exc.pos_in_stream + 1 : exc.pos_in_stream + 2]  # (':–': the lexer stops at the ':')
            return msg, non_ascii_hint(ch) or (lookalike_hint(after) if after and not after.isascii() else ""), column
        if isinstance(exc, lark.UnexpectedToken):
            tok = exc.token
            what = "end of input" if tok.type == "$END" else repr(str(tok))
            return f"unexpected {what}; expected {self.describe_expected(exc.expected)}", "", column
        return str(exc), "", column  # pragma: no cover - lark has no other kinds

    # ---------------------------------------------------------- conventions
    def is_variable(self, name: str) -> bool:
        """Whether a name in argument position is a variable."""
        return name[:1].isupper()

    # ---------------------------------------------------------- printing
    def format_term(self, value) -> str:
        return _format_term(value)

    def format_atom(self, pred: str, terms) -> str:
        if not terms:
            return pred
        return f"{pred}({','.join(self.format_term(t) for t in terms)})"

    def format_fact(self, pred: str, terms, interval, calendar=None) -> str:
        if calendar is None:
            return f"{self.format_atom(pred, terms)}@{format_interval(interval)}"
        from .dates import naming

        with naming(pred):  # (a time no date holds names its predicate)
            return f"{self.format_atom(pred, terms)}@{calendar.format_interval(interval)}"


# Characters that text pasted from a word processor or a web page puts where
# the language has an ASCII one: it looks right, so the message alone misleads.
_LOOKALIKES = {
    **dict.fromkeys("\u201c\u201d\u201e\u201f\u00ab\u00bb", '"'),
    **dict.fromkeys("\u2212\u2010\u2011\u2012\u2013\u2014\ufe63\uff0d", "-"),
    **dict.fromkeys("\u00a0\u2007\u202f\u2009\u2002\u2003\u3000", " "),
    "\u2260": "!=", "\u2264": "<=", "\u2265": ">=", "\u00d7": "*", "\u00f7": "/", "\uff0c": ",", "\u2024": ".",
}
_INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad")


def lookalike_hint(ch: str) -> str:
    """The hint for a typographic character that stands for an ASCII one
    (curly quotes, a minus sign, an en dash, a no-break space), or ""."""
    if len(ch) != 1 or ch.isascii():
        return ""
    import unicodedata

    name = unicodedata.name(ch, "")
    if ch in _INVISIBLE:
        return f"{ch!r} ({name}) is invisible: delete it (text pasted from a word processor or a web page carries such characters)"
    if ch in "\u2018\u2019\u201a\u201b":
        return f'{ch!r} ({name}) is a typographic quote (text pasted from a word processor or a web page): a string is written in plain double quotes, "a b"'
    plain = _LOOKALIKES.get(ch)
    if plain is None:
        return ""
    return f"{ch!r} ({name}) looks like {plain!r} but is another character: write {plain!r} (text pasted from a word processor or a web page)"


def non_ascii_hint(ch: str) -> str:
    """The hint for a letter outside ASCII where a name may stand: names
    (predicates, constants, variables) are ASCII letters, digits and ``_``
    ('é' is a lowercase letter, yet no name starts with it); for a
    typographic stand-in of an ASCII character, :func:`lookalike_hint`."""
    if not ch.isascii() and lookalike_hint(ch):
        return lookalike_hint(ch)
    if ch.isascii() or not (ch.isalpha() or ch.isdigit()):
        return ""
    return ('names of predicates, constants and variables are written with ASCII letters, digits and _; '
            'a constant with other characters is a quoted string, e.g. "café"')


def dialect(name: str) -> Dialect:
    """The dialect called ``name`` (``vadalog``, ``meteor``, ``lars``)."""
    import importlib

    modules = ("vadalog", "meteor", "lars")  # imported when asked for (each costs milliseconds to import)
    if name not in modules:
        from .errors import ProgramError

        names = [repr(n) for n in modules]
        raise ProgramError(f"unknown dialect {name!r}", hint=f"use {', '.join(names[:-1])} or {names[-1]}")
    return importlib.import_module(f"{__package__}.{name}").DIALECT


def offset(text: str, line: int, column: int) -> int:
    """The offset in ``text`` of ``line`` (counted by '\\n', as lark counts)
    and ``column`` (1-based both)."""
    at = 0
    for _ in range(line - 1):
        at = text.index("\n", at) + 1
    return at + column - 1


def _number_hint(e) -> str:
    if "division by zero" in str(e):
        return "a fraction's denominator must not be 0"
    return "exact numbers have at most 1000 digits, and exponents within ±1000"


def _is_num(v) -> bool:
    return isinstance(v, (int, Fraction)) and not isinstance(v, bool)
