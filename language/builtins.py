"""The built-in functions of expressions and the names of the aggregates.

Numbers are exact (``int`` and ``Fraction``) unless a value is a binary
``float`` (a measured value from a CSV column mapped as ``"float"``, Python
data, or ``float(X)``): arithmetic mixing a float with an exact number gives a
float, as in Python, and stays a float; everything else stays exact.

Each function checks the types of its arguments and raises
:class:`BuiltinTypeError` with a plain message; the engine adds the position
of the literal (see engine/expressions.py).
"""

from __future__ import annotations

import math
from fractions import Fraction

from .errors import counted
from .nulls import Null
from .timeline import Point, normalize

# stratified aggregates need their body complete (a lower stratum); the
# monotonic ones may be used inside recursion (see planner/aggregates.py)
STRATIFIED_AGGREGATES = {"sum", "prod", "count", "min", "max", "avg"}
MONOTONIC_AGGREGATES = {"msum", "mprod", "mcount", "mmin", "mmax", "munion"}
# the fold of each over the bindings holding at a point (none hold: no
# value); a monotonic form folds as its plain one (inside a recursion its
# answers only accumulate); the columns and the Spark rounds read it
FOLDS = {"sum": "sum", "msum": "sum", "count": "count", "mcount": "count", "avg": "avg", "min": "min", "mmin": "min",
         "max": "max", "mmax": "max", "prod": "prod", "mprod": "prod", "munion": "munion"}
AGGREGATES = STRATIFIED_AGGREGATES | MONOTONIC_AGGREGATES


class BuiltinTypeError(Exception):
    """A built-in was given a value of the wrong type (a message, and a hint
    where the comparison ``<`` has one)."""

    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.hint = hint


_NUMERIC = frozenset({int, Fraction, Point, float})


def is_number(v) -> bool:
    # the exact-type test first: isinstance on Fraction goes through the ABC
    # machinery, and this runs for every row of every assignment
    return type(v) in _NUMERIC or (isinstance(v, (int, Fraction, float)) and not isinstance(v, bool))


def is_exact(v) -> bool:
    return isinstance(v, (int, Fraction)) and not isinstance(v, bool)


def shown(v) -> str:
    """A value in an error as a program writes it (``1/2``, ``2020-01-01``,
    ``#T``), a string quoted: never Python's repr (``Fraction(1, 2)``)."""
    from .text import format_term

    return repr(v) if type(v) is str else format_term(v)


def _num(name, v):
    if not is_number(v):
        raise BuiltinTypeError(f"{name}() needs a number, not {shown(v)}")
    return v


def _str(name, v):
    if type(v) is not str:
        raise BuiltinTypeError(f"{name}() needs a string, not {shown(v)}")
    return v


def _int(name, v):
    if type(v) is not int:
        raise BuiltinTypeError(f"{name}() needs a whole number, not {shown(v)}")
    return v


def compare_problem(x, y):
    """None where ``x < y`` is defined, else the comparison's error as
    ``(message, hint)``: the order of terms orders numbers among themselves
    (exact and floats), strings, dates and timestamps (instants), booleans
    (``#F < #T``) and sets (member by member) each among their own kind; a
    labelled null, and two terms of different kinds, have none (the order
    ``<`` and the like, the aggregates ``min``/``max`` and the built-ins
    ``min(X, Y)``/``max(X, Y)`` follow)."""
    if type(x) is Null or type(y) is Null:
        return (f"cannot compare the labelled null {x if type(x) is Null else y}",
                "a null is an unknown value: only == and != apply to it")
    if is_number(x) != is_number(y) or (not is_number(x) and type(x) is not type(y)):  # e.g. a date and a string, #T and a name
        return f"cannot compare {shown(x)} and {shown(y)}", compare_hint(x, y)
    if type(x) is tuple:
        try:
            x < y
        except TypeError:  # two sets whose members differ first in kind: {1} < {a}, {1} < {#T}
            return (f"cannot compare {shown(x)} and {shown(y)}",
                    "sets compare member by member, in term order: the first members that differ "
                    "must be comparable (numbers with numbers, strings with strings, dates with dates)")
    return None


def compare_hint(x, y) -> str:
    if hasattr(x, "isoformat") != hasattr(y, "isoformat") and (is_number(x) or is_number(y)):
        return ("compare dates with dates; on a date timeline an interval term's ends (p(X)@[S,E]) and a time capture "
                "(p(X)@T) are numbers, the granularity units since 1970-01-01")
    return "compare numbers with numbers and strings with strings"


def _extreme(name, least):
    """``min``/``max`` of two or more terms in the order of terms, as the
    aggregates fold them (the first of equal terms kept, as Python's
    ``min``); terms ``<`` cannot compare are its error."""

    def extreme(*xs):
        best = xs[0]
        for y in xs[1:]:
            if type(y) is not type(best) or type(y) is tuple or type(y) is Null:
                problem = compare_problem(best, y)  # (a null, a set, two kinds: else the same type compares)
                if problem is not None:
                    raise BuiltinTypeError(problem[0], hint=problem[1])
            if (y < best) if least else (y > best):
                best = y
        return best

    return extreme


MAX_ROUND_DIGITS = 10_000


def _round(x, digits=None):
    """Half to even, like Python and numpy; exact numbers stay exact."""
    _num("round", x)
    if digits is None:
        return round(x)
    _int("round", digits)
    if abs(digits) > MAX_ROUND_DIGITS:  # 10**digits would not fit in memory
        raise BuiltinTypeError(f"round() to {digits} digits: at most {MAX_ROUND_DIGITS} either side of the point")
    r = round(x, digits)
    return normalize(r) if is_exact(x) else r


def _mod(x, y):
    """The remainder with the sign of the divisor (Python's %, floored)."""
    _num("mod", x)
    _num("mod", y)
    if y == 0:
        raise BuiltinTypeError("mod() by zero")
    r = x % y
    return normalize(r) if is_exact(r) else r


def _float(x):
    _num("float", x)
    return float(x)


def _exact(x):
    """The exact value of a number (a float's binary value as a fraction)."""
    _num("exact", x)
    return normalize(Fraction(x))


def _sqrt(x):
    _num("sqrt", x)
    if x < 0:
        raise BuiltinTypeError(f"sqrt() of a negative number {shown(x)}")
    if is_exact(x):
        f = Fraction(x)
        n, d = math.isqrt(f.numerator), math.isqrt(f.denominator)
        if n * n == f.numerator and d * d == f.denominator:
            return normalize(Fraction(n, d))
    return math.sqrt(x)


def _concat(*parts):
    from .text import format_term

    return "".join(p if type(p) is str else format_term(p) for p in parts)


def _substr(s, start, length=None):
    _str("substr", s)
    _int("substr", start)
    if length is None:
        return s[start:]
    _int("substr", length)
    return s[start : start + length]


# name -> (min arity, max arity or None, function)
FUNCTIONS = {
    "abs": (1, 1, lambda x: abs(_num("abs", x))),
    "min": (2, None, _extreme("min", True)),
    "max": (2, None, _extreme("max", False)),
    "round": (1, 2, _round),
    "floor": (1, 1, lambda x: math.floor(_num("floor", x))),
    "ceil": (1, 1, lambda x: math.ceil(_num("ceil", x))),
    "mod": (2, 2, lambda x, y: _mod(x, y)),
    "float": (1, 1, _float),
    "exact": (1, 1, _exact),
    "sqrt": (1, 1, _sqrt),
    "exp": (1, 1, lambda x: math.exp(_num("exp", x))),
    "log": (1, 1, lambda x: _log(x)),
    "concat": (1, None, _concat),
    "strlen": (1, 1, lambda s: len(_str("strlen", s))),
    "substr": (2, 3, _substr),
    "lower": (1, 1, lambda s: _str("lower", s).lower()),
    "upper": (1, 1, lambda s: _str("upper", s).upper()),
}


def result_class(name: str, args: list):
    """The class of the value of the built-in or operator ``name`` (``+``
    ... for arithmetic) from its arguments' classes (``"num"``: an exact
    number, ``"float"``, ``"str"``, ``"bool"``; None: not known yet), as
    the backends that type their columns (the columns' kernels, the Spark
    rounds) compute it: a float operand makes a float (Python's rule),
    ``floor``, ``ceil``, ``round`` without digits and ``exact`` give exact
    numbers, ``min``/``max`` their operands' class (``"timestamp"`` for
    dates beside timestamps: a date is its midnight), ``sqrt`` a float (an
    exact square's exact root the engine gives is refused there).  A
    combination the engine rejects gets a class; the backend refuses it."""
    if name == "+" and args == ["str", "str"]:
        return "str"
    if name in ("concat", "substr", "lower", "upper"):
        return "str"
    if name in ("strlen", "floor", "ceil", "exact"):
        return "num"
    if name in ("float", "sqrt", "exp", "log"):
        return "float"
    if None in args:
        return None
    if name == "round":
        return "float" if args[0] == "float" and len(args) == 2 else "num"
    if name in ("min", "max") and len(set(args)) == 1:
        return args[0]
    if name in ("min", "max") and set(args) == {"date", "timestamp"}:
        return "timestamp"
    return "float" if "float" in args else "num"


def _log(x):
    _num("log", x)  # (before x > 0: a string compared with 0 was a TypeError, an internal error)
    if x <= 0:
        raise BuiltinTypeError(f"log() of a non-positive number {shown(x)}")
    return math.log(x)


def check_arity(name: str, n: int):
    """An error message when ``name`` cannot take ``n`` arguments, else None."""
    spec = FUNCTIONS.get(name)
    if spec is None:
        return f"unknown function {name}()"
    lo, hi, _ = spec
    if n < lo or (hi is not None and n > hi):
        want = str(lo) if lo == hi else (f"{lo} or more" if hi is None else f"{lo} to {hi}")
        return f"{name}() takes {counted(want, 'argument')}, not {n}"
    return None
