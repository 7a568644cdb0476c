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
from .timeline import normalize

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
    """A built-in was given a value of the wrong type (message only)."""


_NUMERIC = frozenset({int, Fraction, float})


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


def _same_kind(name, values):
    if all(is_number(v) for v in values) or all(type(v) is str for v in values):
        return values
    raise BuiltinTypeError(f"{name}() compares numbers with numbers and strings with strings, not {', '.join(map(shown, values))}")


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
    "min": (2, None, lambda *xs: min(_same_kind("min", xs))),
    "max": (2, None, lambda *xs: max(_same_kind("max", xs))),
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
    numbers, ``min``/``max`` their operands' class, ``sqrt`` a float (an
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
