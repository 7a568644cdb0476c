"""Parser for the Temporal Vadalog dialect: text in, :class:`~.ast.Program` out.

The grammar lives in ``vadalog.lark`` (LALR, so a syntax error can list the
tokens that were expected).  Facts in data files take the fast path in
:mod:`.facts`; this grammar is for programs.
"""

from __future__ import annotations

from fractions import Fraction

import math
import re

from . import ast, dates
from .booleans import Boolean, boolean
from .errors import SyntaxError_
from .reader import AstBuilder, Dialect, with_meta
from .text import make_set, unquote

# Friendly names for grammar terminals in "expected ..." messages.
_TERMINAL_NAMES = {
    "NAME": "a name (lowercase first letter)",
    "VAR": "a variable (uppercase first letter)",
    "ANON": "_",
    "INT": "a number",
    "DECIMAL": "a number",
    "FRACTION": "a number",
    "STRING": 'a "string"',
    "BOOL": "#T or #F",
    "INF": "inf",
    "TEMP_OP": "<-> or <+>",
    "BOX_OP": "[-] or [+]",
    "SINCE": "<S>",
    "UNTIL": "<U>",
    "CMP": "a comparison (==, !=, <, <=, >, >=)",
    "BOTTOM": "⊥",
    "COLON_MINUS": "':-'",
    "IF": "':-'",
    "DOT": "'.'",
    "COMMA": "','",
    "LPAR": "'('",
    "RPAR": "')'",
    "LSQB": "'['",
    "RSQB": "']'",
    "AT": "'@'",
    "PLUS": "'+'",
    "MINUS": "'-'",
    "STAR": "'*'",
    "SLASH": "'/'",
    "EQUAL": "'='",
    "NOT": "not",
    "$END": "end of input",
    "DATE": "a date (2020-01-31)",
    "DURATION": "a duration (P3D)",
    "GROUP_OP": "/\\",
}

_METEOR_EXAMPLE = {
    "Diamondminus": "<->[0,1] p(X)", "Diamondplus": "<+>[0,1] p(X)", "Boxminus": "[-][0,1] p(X)",
    "Boxplus": "[+][0,1] p(X)", "Since": "p(X) <S>[0,1] q(X)", "Until": "p(X) <U>[0,1] q(X)",
}
# MeTeoR's operator words and what Temporal Vadalog writes for them (a program of one dialect read as the other).
_METEOR_OPERATORS = {
    "Diamondminus": "<->", "Diamondplus": "<+>", "Boxminus": "[-]", "Boxplus": "[+]", "Since": "<S>", "Until": "<U>",
}

_METEOR_CASES = {word.lower(): word for word in _METEOR_OPERATORS}  # (since[0,5] as some papers write it)

_PRIORITY = ("COMMA", "DOT", "IF", "COLON_MINUS", "AT", "RPAR", "RSQB", "NAME", "VAR")


class VadalogDialect(Dialect):
    """Temporal Vadalog: lowercase constants and predicates, uppercase
    variables, ``<->``/``[-]``/``<S>`` operators, statements end with '.'."""

    name = "vadalog"
    grammar = "vadalog.lark"
    terminal_names = _TERMINAL_NAMES
    priority = _PRIORITY

    def parse(self, text, source="<program>"):
        return parse(text, source)

    @staticmethod
    def written_here(meteor: str) -> str:
        """How this dialect writes the MeTeoR operator ``meteor`` (a hint)."""
        return f"Temporal Vadalog writes {_METEOR_OPERATORS[meteor]} (e.g. {_METEOR_EXAMPLE[meteor]})"

    def explain(self, exc, text, src_line, column, **context):
        from . import lark_runtime as lark

        if isinstance(exc, lark.UnexpectedEOF) or (
            isinstance(exc, lark.UnexpectedToken) and exc.token.type == "$END"
        ):
            return "the program ends in the middle of a statement", "every rule, fact and annotation ends with '.'", column
        msg, hint, column = super().explain(exc, text, src_line, column)
        if isinstance(exc, lark.UnexpectedToken):
            tok = exc.token
            line = getattr(exc, "line", 0) or 0
            before = src_line[: max(column - 1, 0)].rstrip()
            prefix = text[: getattr(exc, "pos_in_stream", 0) or 0]
            stmt = re.split(r"\.(?:\s|$)", prefix)[-1]
            word = before.split()[-1] if before.split() else ""
            word = word.lstrip("(,:-[]<>+")
            meteor = next((w for w in (str(tok), word) if w in _METEOR_OPERATORS), None)
            spelt = None  # an operator word of MeTeoR in another case: since[0,5], UNTIL(0,5], boxminus[0,1]
            if meteor is None and re.match(r"\s*[\[(]", src_line[column - 1 + len(str(tok)):]):
                spelt = str(tok)
            elif meteor is None and str(tok) in "[(" and before.endswith(word):
                spelt = word
            if spelt is not None and spelt.lower() in _METEOR_CASES:
                hint = f"{spelt} is not an operator here: {self.written_here(_METEOR_CASES[spelt.lower()])}"
            elif meteor is not None:
                hint = (f"{meteor} is the MeTeoR dialect's operator; {self.written_here(meteor)}, or read the program "
                        'as MeTeoR: --dialect meteor, a .meteor file or dialect="meteor"')
            elif re.search(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?$", before) and (
                    re.match(r"\s*[+-]\d\d(\d\d)?\b", src_line[max(column - 1, 0):]) or re.fullmatch(r"[A-Za-z]{1,5}", str(tok))):
                # 2024-01-01 10:00:00 +0200, 2024-01-01 10:00:00 UTC
                from .dates import ZONE_HINT

                hint = ZONE_HINT
            elif tok.type in ("TEMP_OP", "BOX_OP") and before.endswith("("):  # <->(0,1] ([-][0,3] p(X))
                inner = re.sub(r"\(\s*(" + re.escape(str(tok)) + r"[^()]*\([^()]*\))\s*\)", r"\1", src_line.strip(), count=1)
                hint = f"temporal operators nest without parentheses: {inner}"
            elif str(tok) in ("/", ".") and re.search(r"\d" + re.escape(str(tok)) + r"\d+$", before):  # 01/31/2024, 31.01.2024
                hint = "dates are written year-month-day, 2024-01-31 (2024-01-31T12:30:00 with a time)"
            elif ":-" in stmt and re.search(r"@\s*[\[(]\s*$", before) and "VAR" in exc.expected:  # q(X) :- p(X)@[1,2].
                hint = ("in a rule, @[S,E] names the ends of an atom's maximal interval with variables: p(X)@[S,E], S <= 1, E >= 2 "
                        "picks the maximal intervals of p that start by 1 and end from 2 on; a fixed time belongs to a fact")
            elif tok.type in ("NAME", "VAR") and re.search(
                    r"(<->|<\+>|\[-\]|\[\+\]|<S>|<U>|/\\)\s*[\[(][^\])]*\d$", before):  # <->[0,1M], <->[0,30d]: a unit in a window
                hint = ("a duration is written in ISO 8601: P30D (30 days), PT12H (12 hours), PT5M (5 minutes), "
                        "or a plain number of the timeline's units; months and years have no fixed length (/\\[months] groups by them)")
            elif tok.type == "DOT" and {"AT", "IF"} <= set(exc.expected):  # q(a).
                plain = re.fullmatch(r"[a-z]\w*(\(.*\))?", stmt.strip())
                atom = stmt.strip() if plain else "p(a)"
                msg = f"a fact needs a time: {atom} ends without '@...'" if plain else "a statement without ':-' is a fact, and a fact needs a time ('@...')"
                hint = f"write {atom}@5. or {atom}@[1,5]. ({atom}@(-inf,+inf). for all time); a rule is written head :- body."
            elif str(tok) in ("S", "U") and re.match(r"\s*[\[(]", src_line[column:]):  # p(X) S[0,1] q(X), as the papers write it
                hint = f"{'Since' if str(tok) == 'S' else 'Until'} is written <{tok}>[a,b] here: e.g. s(X) :- a(X) <{tok}>[0,2] b(X)."
            elif tok.type in ("SINCE", "UNTIL"):  # (the grammar takes S/U only as a literal of its own)
                hint = (f"a {tok} goes between two operands that are atoms or unary operators, never under 'not' or inside "
                        f"another operator: define it in a rule of its own, e.g. s(X) :- a(X) {tok}[0,2] b(X). and use s(X) here")
            elif tok.type == "VAR" and "NAME" in exc.expected:
                hint = "predicate names and constants start with a lowercase letter, variables with an uppercase one"
            elif tok.type == "LPAR" and word[:1].isupper():
                hint = f"'{word}' starts with an uppercase letter, so it is a variable; predicate names start with a lowercase letter (or use --dialect meteor for MeTeoR files)"
            elif tok.type in ("NAME", "VAR", "TEMP_OP", "BOX_OP", "BOTTOM") and not before and "DOT" in exc.expected:
                hint = f"the statement before line {line} does not end with '.'"
            elif tok.type in ("NAME", "VAR", "TEMP_OP", "BOX_OP") and "COMMA" in exc.expected and ":-" in stmt:
                hint = "separate the literals of a rule body with ','"
            elif tok.type in ("NAME", "VAR", "TEMP_OP", "BOX_OP") and "IF" in exc.expected:
                hint = "a rule is written head :- body. and a fact p(a)@[1,2]."
            elif "DOT" in exc.expected and tok.type in ("NAME", "VAR", "TEMP_OP", "BOX_OP"):
                hint = "did you forget the '.' at the end of the previous statement?"
        return msg, hint, column


def syntax_error(exc, text: str, source: str) -> SyntaxError_:
    """Turn a lark error into one that names file, line, column and what was expected."""
    return DIALECT.syntax_error(exc, text, source)


class _ToAst(AstBuilder):
    """Builds AST objects; checks what the grammar cannot (atoms' arguments
    must be terms, intervals must be non-empty, operator windows non-negative)."""

    def _as_atom(self, x, pos) -> ast.Atom:
        if isinstance(x, _Call):
            terms = []
            for a in (self._constant(a, x.pos) for a in x.args):
                if not isinstance(a, (ast.Var, ast.Const)):
                    raise self._err(
                        f"the arguments of {x.name} must be variables or constants, not {a}",
                        x.pos,
                        "compute the value in an assignment first, e.g. Y = X + 1, and pass Y",
                    )
                terms.append(a)
            return ast.Atom(x.name, tuple(terms), x.pos)
        if isinstance(x, _Name):
            return ast.Atom(x.name, (), x.pos)
        raise self._err(f"expected an atom such as p(X), found {x}", pos)

    # ---------------------------------------------------------- statements
    def start(self, items):
        prog = ast.Program(source=self.source)
        for it in items:
            if isinstance(it, ast.Rule):
                prog.rules.append(it)
            elif isinstance(it, ast.Fact):
                prog.facts.append(it)
            else:
                prog.annotations.append(it)
        return prog

    @with_meta
    def rule(self, meta, items):
        head, _, body = items
        if isinstance(head, (_Call, _Name, ast.Const, ast.Var)):
            head = self._as_atom(head, self._pos(meta))
        return ast.Rule(head, body, self._pos(meta), self._lines_text(meta))

    @with_meta
    def fact(self, meta, items):
        prim, interval = items[0], items[1]
        every = items[2] if len(items) > 2 else None
        pos = self._pos(meta)
        atom = self._as_atom(prim, pos)
        values = []
        for t in atom.terms:
            if isinstance(t, ast.Var):
                written = "_" if t.name[1:].isdigit() else t.name  # (the reader names each _ apart: _1, _2)
                raise self._err(
                    f"a fact cannot contain the variable {written}",
                    atom.pos,
                    "constants start with a lowercase letter or are quoted strings or numbers",
                )
            values.append(t.value)
        return ast.Fact(atom.pred, tuple(values), interval, pos, every)

    @with_meta
    def every(self, meta, items):
        period = items[0]
        if not isinstance(period, (dates.Duration, dates.NegativeDuration)) and period == 0:
            raise self._err("a fact cannot repeat every 0", self._pos(meta), "give a non-zero period: every 7, every -1, every P7D")
        return period

    def period_number(self, items):
        return items[0]

    def period_negative(self, items):
        return -items[0]

    @with_meta
    def period_duration(self, meta, items):
        return self.duration_bound(meta, items)

    @with_meta
    def period_negative_duration(self, meta, items):
        return dates.NegativeDuration(self.duration_bound(meta, items))

    @with_meta
    def annotation(self, meta, items):
        name = str(items[0])
        return ast.Annotation(name, list(items[1:]), self._pos(meta))

    def ann_string(self, items):
        return unquote(str(items[0]))

    def ann_number(self, items):
        return items[0]

    def ann_date(self, items):
        return dates.date_point(str(items[0]))

    def ann_bool(self, items):
        return str(items[0]) == "#T"

    def ann_name(self, items):
        return str(items[0])

    # ---------------------------------------------------------- heads
    @with_meta
    def head_atom(self, meta, items):
        return self._as_atom(items[0], self._pos(meta))

    @with_meta
    def head_box(self, meta, items):
        op, window, inner = items
        self._check_window(op, window, meta)
        if isinstance(inner, (_Call, _Name)):
            inner = self._as_atom(inner, self._pos(meta))
        return ast.Temporal(str(op), window, inner, self._pos(meta))

    @with_meta
    def head_bottom(self, meta, items):
        return ast.Truth(False, self._pos(meta))

    # ---------------------------------------------------------- bodies
    def body(self, items):
        return list(items)

    @with_meta
    def plain(self, meta, items):
        x = items[0]
        pos = self._pos(meta)
        if isinstance(x, ast.Const) and type(x.value) is Boolean:
            return ast.Truth(x.value.value, pos)
        return self._as_atom(x, pos)

    @with_meta
    def temporal(self, meta, items):
        op, window, inner = items
        self._check_window(op, window, meta)
        return ast.Temporal(str(op), window, inner, self._pos(meta))

    @with_meta
    def since(self, meta, items):
        left, op, window, right = items
        self._check_window(op, window, meta)
        return ast.Binary("S", window, left, right, self._pos(meta))

    @with_meta
    def until(self, meta, items):
        left, op, window, right = items
        self._check_window(op, window, meta)
        return ast.Binary("U", window, left, right, self._pos(meta))

    @with_meta
    def negation(self, meta, items):
        return ast.Negation(items[0], self._pos(meta))

    @with_meta
    def comparison(self, meta, items):
        left, op, right = items
        op = str(op)
        if op == "<>":
            op = "!="
        return ast.Comparison(op, self._expr(left), self._expr(right), self._pos(meta))

    @with_meta
    def assignment(self, meta, items):
        var, expr = items
        pos = self._pos(meta)
        if isinstance(expr, _Call) and _is_aggregate_call(expr):
            return ast.Assignment(ast.Var(str(var)), self._aggregate(expr), pos)
        return ast.Assignment(ast.Var(str(var)), self._expr(expr), pos)

    def _aggregate(self, call) -> ast.Aggregate:
        """``msum(X, <C>)``, ``count()``, ``avg(X)``: see planner/aggregates.py."""
        args = list(call.args)
        contributors = ()
        if args and isinstance(args[-1], _Contributors):
            contributors = args.pop().terms
        for c in contributors:
            if not isinstance(c, (ast.Var, ast.Const)):
                raise self._err(f"the contributors of {call.name} must be variables, not {c}", call.pos)
        if len(args) > 1 or (not args and call.name not in ("count", "mcount")):
            raise self._err(
                f"{call.name}() aggregates one expression, e.g. {call.name}(X) or {call.name}(X, <C>)",
                call.pos,
                hint="contributors go in angle brackets: msum(X, <C1, C2>)",
            )
        expr = self._expr(args[0]) if args else None
        return ast.Aggregate(call.name, expr, tuple(contributors), call.pos)

    def contributors(self, items):
        opening, *terms, closing = items
        if str(opening) != "<" or str(closing) != ">":
            tok = opening if str(opening) != "<" else closing
            raise self._err(
                f"unexpected {str(tok)!r} in the arguments of a call",
                self._tok_pos(tok),
                hint="contributors of an aggregate are written in angle brackets: msum(X, <C>)",
            )
        return _Contributors(tuple(self._expr(i) for i in terms))

    @with_meta
    def timed(self, meta, items):
        inner, (lc, start, end, hc) = items
        pos = self._pos(meta)
        if isinstance(inner, ast.Truth):
            raise self._err("an interval can only be bound for an atom or a temporal literal", pos)
        return ast.Timed(inner, start, end, lc, hc, pos)

    @with_meta
    def head_timed(self, meta, items):
        prim, (lc, start, end, hc) = items
        pos = self._pos(meta)
        atom = self._as_atom(prim, pos)
        for v in (start, end):
            if v.name.startswith("_"):
                raise self._err("the interval of a head needs named variables for its ends", pos)
        return ast.Timed(atom, start, end, lc, hc, pos)

    @with_meta
    def captured(self, meta, items):
        """``lit@T``: time capture (see ast.Timed)."""
        inner, var = items
        pos = self._pos(meta)
        if isinstance(inner, ast.Truth):
            raise self._err("a time point can only be captured for an atom or a temporal literal", pos)
        return ast.Timed(inner, ast.Var(str(var)), None, True, True, pos)

    def term_interval(self, items):
        lc, start, end, hc = items
        return (lc, start, end, hc)

    def ivar(self, items):
        tok = items[0]
        if tok.type == "ANON":
            return self._fresh_anonymous()
        return ast.Var(str(tok))

    # ---------------------------------------------------------- expressions
    def _expr(self, x):
        if isinstance(x, _Contributors):
            raise self._err(
                f"contributors {x} only go in an aggregate, e.g. S = msum(X, {x})", ast.NOWHERE
            )
        if isinstance(x, _Call) and _is_aggregate_call(x):
            raise self._err(
                f"the aggregate {x.name}() must be the whole right side of an assignment",
                x.pos,
                hint=f"write S = {x.name}(...) as its own literal and use S",
            )
        if isinstance(x, _Call):
            if any(isinstance(a, _Contributors) for a in x.args):
                raise self._err(
                    f"contributors in angle brackets only go in an aggregate such as msum(X, <C>), not in {x.name}()",
                    x.pos,
                )
            return ast.Call(x.name, tuple(self._expr(a) for a in x.args))
        if isinstance(x, _Name):
            return ast.Const(x.name)
        return x

    def _arith(self, op, items):
        left, right = (self._expr(i) for i in items)
        if isinstance(left, ast.Const) and isinstance(right, ast.Const) and op == "/":
            if _is_num(left.value) and _is_num(right.value) and right.value != 0:
                from .timeline import normalize

                return ast.Const(normalize(Fraction(left.value) / Fraction(right.value)))
        return ast.BinOp(op, left, right)

    def add(self, items):
        return self._arith("+", items)

    def sub(self, items):
        return self._arith("-", items)

    def mul(self, items):
        return self._arith("*", items)

    def div(self, items):
        return self._arith("/", items)

    def inf_term(self, items):
        """``+inf`` as a term: a float's infinity, as terms print it."""
        return ast.Const(math.inf)

    def neg_inf_term(self, items):
        return ast.Const(-math.inf)

    def neg(self, items):
        x = self._expr(items[0])
        if isinstance(x, ast.Const) and _is_num(x.value):
            return ast.Const(-x.value)
        return ast.BinOp("-", ast.Const(0), x)

    @with_meta
    def call(self, meta, items):
        name = str(items[0])
        args = [a if isinstance(a, _Contributors) else self._expr(a) for a in items[1:]]
        return _Call(name, args, self._pos(meta))

    @with_meta
    def name(self, meta, items):
        return _Name(str(items[0]), self._pos(meta))

    def var(self, items):
        return ast.Var(str(items[0]))

    def anon(self, items):
        return self._fresh_anonymous()

    def null(self, items):
        """``_:n1``: the same label is the same null within one file."""
        from .nulls import NullTable, current_table

        table = current_table()
        if table is None:
            table = self.__dict__.setdefault("_nulls", NullTable())
        return ast.Const(table.get(str(items[0])[2:]))

    @with_meta
    def set_term(self, meta, items):
        """``{a,2,"b c"}``: a set of constants, as munion's value prints."""
        members = []
        for x in items:
            x = self._constant(self._expr(x), self._pos(meta))
            if not isinstance(x, ast.Const) or type(x.value) is tuple:
                raise self._err(
                    f"a set's members are constants, not {'a set' if isinstance(x, ast.Const) else x}",
                    self._pos(meta),
                    "write a set of values as munion prints it: {a,2,\"b c\"}",
                )
            members.append(x.value)
        return ast.Const(make_set(members))

    def _constant(self, x, pos):
        """``float(1.5)`` of a number is the float constant it makes (as
        columns of term text write a float beside exact numbers)."""
        if isinstance(x, ast.Call) and x.name == "float" and len(x.args) == 1:
            (a,) = x.args
            if isinstance(a, ast.Const) and _is_num(a.value):
                try:
                    return ast.Const(float(a.value))
                except OverflowError:  # float(1e400): no binary float is that large
                    raise self._err("float() of a number beyond a binary float's range (about 1.8e308)", pos,
                                    "write the number without float(): numbers are exact") from None
        return x

    def boolean(self, items):
        return ast.Const(boolean(str(items[0]) == "#T"))

    @with_meta
    def date(self, meta, items):
        # every date constant is a datetime (a date is its midnight), so that
        # dates and datetimes compare; a midnight prints as a date
        try:
            return ast.Const(dates.parse_datetime(str(items[0]))[0])
        except ValueError as e:  # (Python's datetime: years 1..9999)
            message, hint = dates.date_problem(e, f"{items[0]} is not a date a constant can hold",
                                               "a date constant is a valid date in years 1..9999 (a time point after @ may be any year)")
            raise self._err(message, self._pos(meta), hint) from None

    # ---------------------------------------------------------- dates, durations, grouping
    @with_meta
    def date_bound(self, meta, items):
        try:
            return dates.date_point(str(items[0]))
        except ValueError as e:
            message, hint = dates.date_problem(e, f"{items[0]} is not a valid date", "dates are written 2020-01-31 or 2020-01-31T12:30:00")
            raise self._err(message, self._pos(meta), hint) from None

    @with_meta
    def duration_bound(self, meta, items):
        try:
            return dates.parse_duration(str(items[0]))
        except ValueError as e:
            hint = "durations are written P3D, PT12H, P1DT6H30M, PT0.5S or P2W"
            if "fixed length" in str(e):
                hint = "months and years have no fixed length; write days (P30D) or group by months with /\\[months]"
            raise self._err(f"{items[0]} is not a duration of fixed length", self._pos(meta), hint) from None

    def group_spec(self, items):
        items = [i for i in items if i is not None]
        count, unit = 1, None
        for i in items:
            if isinstance(i, str):  # (lark's Token of the unit's name; the count is a number)
                unit = str(i)
            else:
                count = i
        return count, unit

    @with_meta
    def time_group(self, meta, items):
        from .time_grouping import make_group

        _, (count, unit), inner = items
        return make_group(count, unit, inner, self._pos(meta), self._err)

    # ---------------------------------------------------------- time
    def negative(self, items):
        return -items[0]

    def positive(self, items):
        return items[0]

    @with_meta
    def interval(self, meta, items):
        lc, lo, hi, hc = items
        if isinstance(lo, (dates.DatePoint, dates.Duration)) or isinstance(hi, (dates.DatePoint, dates.Duration)):
            return (lo, hi, lc, hc)  # resolved once the granularity is known (dates.resolve)
        return self._interval(lo, hi, lc, hc, self._pos(meta))

    @with_meta
    def punctual(self, meta, items):
        return self._point(items[0], self._pos(meta))


class _Call:
    __slots__ = ("name", "args", "pos")

    def __init__(self, name, args, pos):
        self.name, self.args, self.pos = name, args, pos

    def __str__(self):
        return f"{self.name}({', '.join(map(str, self.args))})"


class _Contributors:
    __slots__ = ("terms",)

    def __init__(self, terms):
        self.terms = terms

    def __str__(self):
        return "<" + ", ".join(map(str, self.terms)) + ">"


def _is_aggregate_call(call) -> bool:
    """An aggregate, not a function: an aggregate name with one argument (or
    none), or any call with contributors.  ``min(X, Y)`` is the function."""
    from .builtins import AGGREGATES

    if call.name not in AGGREGATES:
        return False
    args = call.args
    if call.name in ("min", "max"):
        return len(args) <= 1 or any(isinstance(a, _Contributors) for a in args)
    return True


class _Name:
    __slots__ = ("name", "pos")

    def __init__(self, name, pos):
        self.name, self.pos = name, pos

    def __str__(self):
        return self.name


def _is_num(v) -> bool:
    return isinstance(v, (int, Fraction)) and not isinstance(v, bool)


DIALECT = VadalogDialect()
VadalogDialect.builder = _ToAst


def parse(text: str, source: str = "<program>", calendar=None) -> ast.Program:
    """Parse a Temporal Vadalog program (rules, facts, annotations).

    ``calendar``: see :func:`.dates.resolve` (``None`` for a program)."""
    from .nulls import reading_file

    with reading_file():
        prog = _read(text, source)
    return dates.resolve(prog, calendar, text.splitlines())


def _read(text: str, source: str) -> ast.Program:
    """The program, its rules and annotations of the common shape read
    without lark (language/vadalog_rules.py) and the rest by the grammar.

    An error is the one the grammar gives on the whole text, without
    reading it again (a bad rule among 10,000: 7 s): the rest is the text
    with complete statements emptied where the statement before them has
    ended, every other line at its place, so lark meets the same tokens in
    the same states, between statements alike, and stops at the same one;
    the words, which quote the statement's text before it and the
    program's last line, are made against the whole text."""
    from .vadalog_rules import nothing_to_read, read_fact_lines, read_statements

    fast = read_statements(text, source, _ToAst(DIALECT, source, []))
    rules, annotations, rest = fast if fast is not None else ([], [], text)
    facts, rest = read_fact_lines(rest, source)
    if not rules and not facts:
        return DIALECT.read(text, source)
    if not rest.strip() or nothing_to_read(rest):  # (blanks and comments: nothing for lark)
        return ast.Program(rules=rules, facts=facts, annotations=annotations, source=source)
    prog = DIALECT.read(rest, source, whole=text)
    import heapq  # (here: a program read without lark whole never merges, 1M instructions of a 10-fact run)

    prog.rules = list(heapq.merge(rules, prog.rules, key=lambda r: r.pos.line))
    prog.facts = list(heapq.merge(facts, prog.facts, key=lambda f: f.pos.line))
    prog.annotations = list(heapq.merge(annotations, prog.annotations, key=lambda a: a.pos.line))
    return prog
