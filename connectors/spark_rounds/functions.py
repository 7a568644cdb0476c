"""String functions and floats computed in a rule, as Spark SQL that gives
the embedded engine's values (language/builtins.py,
engine/rows/expressions.py) exactly, as the engine's own functions in
Python UDFs where Spark's differ (udfs.py), or refused.

Floats (``float(X)``, ``sqrt``, arithmetic with a float operand): a
``double`` column of their own class (classes.py), whatever the run's
number type.  ``+ - * /``, ``sqrt``, ``abs``, ``floor``, ``ceil``,
``mod`` (Java's ``%`` is C's ``fmod``, then Python's sign fix), ``round``
to 0 digits (``rint``: half to even on the binary value) and an exact
number made a float (Java's conversions of a ``long`` and of a
``BigDecimal`` are correctly rounded, as Python's) are exact IEEE
operations in both, hence equal (the arithmetic, the built-ins and the
comparisons: engine/float_arithmetic.py, shared with the columns).  Where the engine raises (division by
zero, ``sqrt`` or ``mod`` out of domain, NaN) or keeps an infinite float,
and where ``sqrt`` of an exact square is exact, the run stops
(:func:`arithmetic.stop_sql`) and falls back to one task.  ``-0.0`` is written
``0.0``: one fact with it, as the engine's.  A float compares with a float
directly and with an exact constant through the two floats around it;
the engine compares a float with an exact number exactly, which Spark's
implicit cast would not: a float against a computed exact number is
refused.  ``exp``, ``log`` (Java's StrictMath and the C library Python
calls differ in the last bit, on 10% and 3.5% of random values here),
``round(F, D)`` for ``D`` other than 0 (Spark rounds the float's shortest
text: ``round(2.675, 2)`` gives 2.68, Python 2.67, as the binary value is
below 2.675), ``exact`` of a float (its binary value has up to 1074
decimals: in the run's numbers or the run stops) and a float in
``concat`` (Java prints ``1.0E10``, Python ``10000000000.0``: its text) are the
engine's own functions in Python UDFs (udfs.py).

Strings: engine/string_functions.py, the lowering shared with the
columns, emitted as SQL (``char_length``, ``substring``, ``concat``,
``least``/``greatest``; ``upper``/``lower`` guarded by the safe letters
and a locale probe in the row, the engine's own function in a UDF on the
other rows); positions of a decimal run must be whole, and ``F + N`` of
``substr`` is the run's checked sum.
"""

from __future__ import annotations

import math
from fractions import Fraction

from chronolog.engine import float_arithmetic as fa
from chronolog.engine import string_functions as sf
from chronolog.engine.exprs import col, to_sql
from chronolog.language import ast, builtins
from chronolog.planner.backend_choice import round_digits

from .arithmetic import unscaled
from .classes import BOOL, DATE, FLOAT, NUM, STR, TS
from .float_sums import INF
from .fragment import NotRelational


def double_literal(f: float) -> str:
    """The float ``f`` as SQL (Java parses Python's shortest text to it)."""
    if math.isinf(f):
        return INF if f > 0 else f"-{INF}"
    return f"CAST('{f!r}' AS DOUBLE)"


def float_vs_exact(op: str, d: str, c) -> str:
    """``d op c`` exactly, of the float SQL ``d`` and the exact number ``c``
    (engine/float_arithmetic.versus_exact, the columns' too)."""
    return to_sql(fa.versus_exact(op, col(d), c), _literal, None)


def _literal(v) -> str:
    """A float or a boolean of a comparison as SQL."""
    return double_literal(v) if type(v) is float else str(v).lower()


def constant_value(e):
    """The exact value of the expression ``e`` without variables, as the
    engine computes it (None: it has a variable or no exact value)."""
    from chronolog.engine.rows.expressions import compile_expr

    if ast.variables_of(e):
        return None
    try:
        v = compile_expr(e, {}, e)(None)
    except Exception:  # noqa: BLE001 - an error the engine reports: the driver's
        return None
    return v if type(v) is int or isinstance(v, Fraction) else None


def compare_float(op: str, left: tuple, right: tuple, rule) -> str:
    """A comparison with a float side: ``left``, ``right`` are ``(SQL,
    class, expression)`` (engine/float_arithmetic.compare, the columns'
    too; a float against an exact number computed in the row: refused)."""
    (a, ca, ea), (b, cb, eb) = left, right
    exact = constant_value(eb if ca == FLOAT else ea)
    cond = fa.compare(op, col(a), ca == FLOAT, col(b), cb == FLOAT, exact)
    if cond is None:
        raise NotRelational(f"the comparison of a float with the exact number {eb if ca == FLOAT else ea} computed in the row "
                            "(the engine compares them exactly, Spark through a float)", rule)
    return to_sql(cond, _literal, None)


class Functions:
    """SQL of the string functions and of float arithmetic, beside the
    exact arithmetic of ``arith`` (arithmetic.Arithmetic: its number type
    and its checks)."""

    def __init__(self, arith):
        self.arith = arith

    def engine(self, name: str, xs: list, result: str) -> str:
        """The engine's own ``name`` of the SQL ``xs`` in a Python UDF
        (udfs.py), its value of class ``result`` (``"double"``,
        ``"string"``, ``"num"``) or the row stops the run."""
        from .udfs import registered

        return f"{registered(self.arith.spark, name, self.arith.types.num_type, result)}({', '.join(xs)})"

    # floats: engine/float_arithmetic.py, the lowering shared with the columns

    def finite(self, r: str, text: str) -> str:
        """The float ``r``, or the run stops where it is NaN or infinite
        (the engine's error, or a value it keeps that the rounds do not);
        ``-0.0`` as ``0.0``."""
        return self.arith.tree(fa.finite(col(r), text, signed_zero=False))

    def double(self, x: str, c) -> str:
        """``x`` (of class ``c``) as a float: an exact number correctly rounded."""
        return x if c == FLOAT else f"CAST({x} AS DOUBLE)"

    def binop(self, op: str, a: str, ca, b: str, cb, text: str) -> str:
        return self.arith.tree(fa.binop(op, col(self.double(a, ca)), col(self.double(b, cb)), text, signed_zero=False))

    def sqrt_exact(self, x: str, text: str) -> str:
        """``sqrt`` of an exact number (engine/float_arithmetic.sqrt_exact,
        the columns' too): a square exactly when ``x·10^S`` is one, or
        ``x·10^(S+1)`` for an odd S; read past the bound only (OR stops
        at the first true)."""
        s = self.arith.scale or 0
        u = unscaled(x, s)  # x·10^S
        y = f"(CAST({u} AS BIGINT) * 10)" if s % 2 else f"CAST({u} AS BIGINT)"
        big = col(u).compare(">", fa.EXACT_ROOT // 10 if s % 2 else fa.EXACT_ROOT)
        return self.arith.tree(fa.sqrt_exact(col(f"CAST({x} AS DOUBLE)"), col(y), col(x).lt(0), big, text))

    def float_call(self, name: str, xs: list, cs: list, text: str, rule, digits=None) -> tuple:
        """``(SQL, class)`` of a function of numbers with a float among them
        (engine/float_arithmetic.function, the columns' too)."""
        if name in ("min", "max"):
            if set(cs) != {FLOAT}:
                raise NotRelational(f"{name}() of floats and exact numbers ({text}: the result keeps its operand's kind)", rule)
            return self.arith.tree(sf.extreme(name, [col(x) for x in xs])), FLOAT
        if name == "round" and digits not in (None, 0):  # (Spark's round() rounds the float's shortest text: 2.675 to 2.68)
            return self.engine("round", [xs[0], str(digits)], "double"), FLOAT
        x = fa.function(name, [col(self.double(x, c)) for x, c in zip(xs, cs)], text, 2**63, signed_zero=False, digits=digits)
        if x is None:  # pragma: no cover
            raise NotRelational(f"the function {name}() of a float ({text})", rule)
        if builtins.result_class(name, cs + ([NUM] if digits is not None else [])) == NUM:  # (a whole number)
            return f"CAST({self.arith.tree(x)} AS {self.arith.num})", NUM
        return self.arith.tree(x), FLOAT

    # strings: engine/string_functions.py, the lowering shared with the columns

    def text(self, x: str, c, whole: str, rule) -> str:
        """The engine's text of a term in ``concat`` (language/text.py,
        format_term): a string itself, a number's shortest decimal, #T/#F."""
        kind = {STR: "str", BOOL: "bool", FLOAT: "float", NUM: "int" if self.arith.scale is None else "decimal"}.get(c)
        if kind is None:
            raise NotRelational(f"concat() of {c or 'untyped'} terms ({whole})", rule)
        return self.arith.tree(sf.text(col(x), kind))

    def whole(self, x: str, text: str) -> str:
        """A position or a length: a whole number, or the run stops (the engine's error)."""
        if self.arith.scale is None:
            return x
        # (floor's decimal(38, 0) against decimal(38, S): Spark compares them
        # at scale 0, and -1.5 equals -2; both at the run's type, exactly)
        return self.arith.checked(x, f"{x} <> CAST(floor({x}) AS {self.arith.num})", f"{text} needs whole numbers")

    def substr(self, s: str, start: str, length, text: str) -> str:
        """Python's ``s[start:start + length]`` (``s[start:]``) on code points;
        the end's sum in the run's numbers (checked)."""
        start = self.whole(start, text)
        end = None if length is None else col(self.arith.binop("+", start, self.whole(length, text), text))
        return self.arith.tree(sf.substr(col(s), col(start), end))

    def case(self, name: str, s: str) -> str:
        """``upper``/``lower`` as Python maps (string_functions.case)."""
        return self.arith.tree(sf.case(name, col(s)))

    def call(self, e, args: list, text: str, rule) -> tuple:
        """``(SQL, class)`` of the call or operator ``e`` of ``args``
        (``[(SQL, class)]``) that is not exact arithmetic on numbers."""
        xs, cs = [a for a, _ in args], [c for _, c in args]
        if isinstance(e, ast.BinOp):
            if e.op == "+" and cs == [STR, STR]:
                return self.arith.tree(sf.concat(col(xs[0]), col(xs[1]))), STR
            if set(cs) <= {NUM, FLOAT}:
                return self.binop(e.op, xs[0], cs[0], xs[1], cs[1], text), FLOAT
            raise NotRelational(f"arithmetic on {' and '.join(c or 'untyped' for c in cs)} terms ({text})", rule)
        name = e.name
        if name == "concat":
            return self.arith.tree(sf.concat(*(col(self.text(x, c, text, rule)) for x, c in args))), STR
        if name in ("min", "max") and (set(cs) in ({STR}, {BOOL}) or set(cs) <= {DATE, TS}):
            # the order of terms, as the comparisons (rules.py): strings in
            # code points, #F before #T (Spark's false before true), instants
            # (a date at its midnight UTC beside a timestamp: classes.TS)
            c = TS if TS in cs else cs[0]
            if len(set(cs)) > 1:
                xs = [f"CAST({x} AS {self.arith.types.sql_type(TS)})" if k == DATE else x for x, k in zip(xs, cs)]
            return self.arith.tree(sf.extreme(name, [col(x) for x in xs])), c
        if name in ("min", "max") and not set(cs) <= {NUM, FLOAT}:  # (as the comparison of them: rules.py)
            raise NotRelational(f"{name}() of {' and '.join(c or 'untyped' for c in dict.fromkeys(cs))} terms ({text})", rule)
        if name in sf.STRING_FUNCTIONS:
            if cs[0] != STR or any(c != NUM for c in cs[1:]):
                raise NotRelational(f"{name}() of {', '.join(c or 'untyped' for c in cs)} terms ({text})", rule)
            if name == "strlen":
                return f"CAST({self.arith.tree(sf.strlen(col(xs[0])))} AS {self.arith.num})", NUM
            if name == "substr":
                return self.substr(xs[0], xs[1], xs[2] if len(xs) > 2 else None, text), STR
            return self.case(name, xs[0]), STR
        if not set(cs) <= {NUM, FLOAT}:
            raise NotRelational(f"arithmetic on {' and '.join(c or 'untyped' for c in cs)} terms ({text})", rule)
        if name in ("exp", "log"):  # Java's StrictMath and Python's C library differ in the last bit
            return self.engine(name, xs, "double"), FLOAT
        if name == "exact":  # an exact number is its own; a float's binary value, in the engine
            return (xs[0] if cs == [NUM] else self.engine("exact", xs, "num")), NUM
        if name == "sqrt" and cs == [NUM]:
            return self.finite(self.sqrt_exact(xs[0], text), text), FLOAT
        digits = round_digits(e) if name == "round" and len(e.args) == 2 else None
        return self.float_call(name, xs, cs, text, rule, digits)
