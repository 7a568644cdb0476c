"""Arithmetic of binary floats in conditions and assignments, written once
for the columnar executor and the Spark rounds (engine/exprs.py emits
each).

``+ - * /``, ``floor``, ``ceil``, ``rint``, ``sqrt`` and the remainder of
floats are exact IEEE operations in numpy, Polars, Java and Python alike
(:func:`function`: the built-ins; :func:`compare`: comparisons with a
float side) (an exact number operand is
made a float first, correctly rounded in all three), hence equal.  Where
the engine raises (a division by zero) or gets NaN or an infinity (which
it keeps and the backends do not) the row is refused; a whole number
beyond the backend's integers too.  Which operands are floats stays each
backend's (the columns read it from the values, the rounds from the
columns' classes), and so do ``-0.0`` (the rounds write it ``0.0``) and
the functions whose last bit differs (the rounds' UDFs).  The columns emit
it in numpy (exprs.to_numpy: a Polars query per operator cost 3x, and
Polars adds a scalar zero by returning the other operand, so ``-0.0 +
0.0`` would stay ``-0.0``).
"""

from __future__ import annotations

import math
from fractions import Fraction

from .exprs import Expr, call, checked, lit, when

MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}  # x op y is y MIRROR[op] x


def finite(value: Expr, text: str, signed_zero: bool = True) -> Expr:
    """``value``, refused where it is NaN or infinite; ``-0.0`` as ``0.0``
    unless ``signed_zero``."""
    return checked(unsigned(value, signed_zero), call("not_finite", value), f"{text} is NaN or infinite")


def unsigned(value: Expr, signed_zero: bool) -> Expr:
    """``value`` with ``-0.0`` as ``0.0`` unless ``signed_zero``."""
    return value if signed_zero else when(value.eq(0.0), 0.0, value)


def binop(op: str, x: Expr, y: Expr, text: str, signed_zero: bool = True) -> Expr:
    """``x op y`` (``+ - * /``) of floats."""
    if op == "/":
        return finite(checked(call("divide", x, y), y.eq(0.0), f"division by zero in {text}"), text, signed_zero)
    return finite(Expr(op, (x, y)), text, signed_zero)


def whole(name: str, x: Expr, bound: int, text: str) -> Expr:
    """``floor``, ``ceil`` or ``rint`` (half to even) of the float ``x`` as an
    integer, refused where the magnitude of ``x`` reaches ``bound`` (read on
    ``x``: Spark's ``floor`` of a double is a ``bigint`` already, saturated)."""
    return checked(call("to_int", call(name, x)), call("abs", x).ge(float(bound)), f"{text} is beyond 64-bit integers")


def function(name: str, xs: list, text: str, bound: int, signed_zero: bool = True, digits=None):
    """The Expr of the built-in ``name`` of the float Exprs ``xs`` (an
    exact operand made a float first), as Python computes it: ``abs``,
    ``floor``, ``ceil`` and ``round`` (no ``digits``: half to even) as
    whole numbers below ``bound``, ``round(X, 0)`` (``rint``), ``mod``
    (the divisor's sign, Python's ``%``: the IEEE remainder, then the
    divisor added where the signs differ, as CPython and numpy compute
    it), ``sqrt`` (correctly rounded in all three), ``float``; None for
    another (``round`` to other digits, ``exp``, ``log``, ``min`` and
    ``max``: per backend)."""
    x = xs[0]
    if name == "abs":
        return call("abs", x)
    if name in ("floor", "ceil") or (name == "round" and digits is None):
        return whole("rint" if name == "round" else name, x, bound, text)
    if name == "round" and digits == 0:
        return finite(call("rint", x), text, signed_zero)
    if name == "mod":
        return finite(checked(call("mod", x, xs[1]), xs[1].eq(0.0), f"{text} by zero"), text, signed_zero)
    if name == "sqrt":
        return checked(unsigned(call("sqrt", x), signed_zero), x.lt(0.0), f"{text} of a negative number")  # (sqrt(-0.0) is -0.0)
    return unsigned(x, signed_zero) if name == "float" else None


EXACT_ROOT = 2**53  # an integer square below it is found exactly by a float's sqrt


def sqrt_exact(x: Expr, y: Expr, negative: Expr, big: Expr, text: str) -> Expr:
    """``sqrt`` of an exact number (``x``: it as a float, correctly rounded)
    as the float the engine gives where the number is no square of a
    rational (``sqrt(float(x))``), refused where it is negative, where it
    is one (the engine's root is exact) or where that is unknown (``big``):
    ``y``, an integer below :data:`EXACT_ROOT` where ``big`` is false, is a
    square exactly when the number is one (the rounded root squared gives
    it back)."""
    r = call("to_int", call("rint", call("sqrt", call("to_float", y))))
    why = f"{text}: a negative number, an exact square (an exact root) or beyond 2^53 (unknown)"
    return checked(call("sqrt", x), negative.either(big).either((r * r).eq(y)), why)


def compare(op: str, x: Expr, x_float: bool, y: Expr, y_float: bool, exact):
    """``x op y`` where one side at least is a float, exactly, as the
    engine compares numbers: two floats directly (no NaN is ever kept);
    a float with an exact number through the floats around it
    (:func:`versus_exact`), ``exact`` its value (None: computed in the row,
    which a float cannot bracket: None, each backend refuses or decides)."""
    if x_float and y_float:
        return x.compare(op, y)
    if not x_float:  # the float on the left
        x, y, op = y, x, MIRROR[op]
    return None if exact is None else versus_exact(op, x, exact)


def bracket(c) -> tuple:
    """``(lo, hi)``: the greatest float <= the exact number ``c`` and the
    least >= it (equal when ``c`` is a float's value; ±inf beyond them)."""
    try:
        f = float(c)
    except OverflowError:
        f = math.inf if c > 0 else -math.inf
    if math.isinf(f):
        big = math.nextafter(f, 0)
        return (big, f) if f > 0 else (f, big)
    x = Fraction(f)
    if x == c:
        return f, f
    return (f, math.nextafter(f, math.inf)) if x < c else (math.nextafter(f, -math.inf), f)


def versus_exact(op: str, x: Expr, c) -> Expr:
    """``x op c`` of the floats ``x`` (finite, no NaN) and the exact number
    ``c``, exactly, as the engine compares them (a cast of ``c`` to a float
    would round it): against the floats around ``c`` (:func:`bracket`),
    between which no float lies."""
    lo, hi = bracket(c)
    if op in ("==", "!="):
        return x.compare(op, lo) if lo == hi else lit(op == "!=")
    return x.compare(op, hi if op in ("<", ">=") else lo)
