"""Arithmetic and comparisons of 64-bit integers, written once for the
columnar executor and the Spark rounds (engine/exprs.py emits each).

The engine computes on unbounded integers (engine/rows/expressions.py);
here each operation is exact or refuses the row: ``+ - *`` beyond 64 bits
(exprs.exact), a division or ``mod`` by zero.  ``floor(A / B)`` and
``ceil(A / B)`` are floored divisions (no rational between), ``mod`` has
the divisor's sign (Python's ``%``), ``abs``, ``min`` and ``max`` are
their own.  A quotient ``A / B`` outside ``floor``/``ceil`` is a rational:
each backend's number model (columns/exact_columns.py, the rounds'
decimals in spark_rounds/arithmetic.py) computes it.
"""

from __future__ import annotations

from chronolog.language import ast

from .exprs import NOT_WHOLE, PAST_64_BITS, call, checked, exact, lit

MIN_LONG = -(2**63)


class NotInteger(Exception):
    """The expression is not integer arithmetic of this module."""


def lower(e, var, whole=False):
    """The :class:`~chronolog.engine.exprs.Expr` of the expression ``e``
    whose variables are integers, ``var(name)`` each one's column (it
    raises NotInteger for another kind).  ``whole``: a quotient ``A / B``
    is an integer too, refused where it is not whole (the rounds' numbers
    in ``bigint``); else it is NotInteger (a rational)."""
    if isinstance(e, ast.Var):
        return var(e.name)
    if isinstance(e, ast.Const):
        if type(e.value) is int and MIN_LONG < e.value < -MIN_LONG:
            return lit(e.value)
        raise NotInteger(f"the constant {e.value!r}")
    return node(e, lambda a: lower(a, var, whole), whole)


def node(e, sub, whole=False):
    """The Expr of the operator or call ``e`` itself, ``sub(x)`` the Expr of
    each operand ``x`` it reads (a backend that has lowered the operands
    already passes their columns)."""
    if isinstance(e, ast.BinOp) and e.op in ("+", "-", "*"):
        return exact(e.op, sub(e.left), sub(e.right), f"{e} overflows 64-bit integers")
    if isinstance(e, ast.BinOp) and e.op == "/" and whole:
        # one check (one message in SQL, nested expressions stay small):
        # exact term text holds the quotient; there a division by zero
        # stops the rounds again, and one task gives the engine's error
        x, y = sub(e.left), sub(e.right)
        bad = y.eq(0).either(call("mod", x, y).ne(0)).either(x.lt(MIN_LONG + 1).both(y.eq(-1)))
        return checked(call("floordiv", x, y), bad, f"{e} is not a whole number (or divides by zero)", NOT_WHOLE)
    if isinstance(e, ast.Call):
        return _call(e, sub)
    raise NotInteger(f"{e}")


def _call(e, sub):
    name, args = e.name, e.args
    if name in ("floor", "ceil") and len(args) == 1:
        a = args[0]
        if isinstance(a, ast.BinOp) and a.op == "/":
            x, y = sub(a.left), sub(a.right)
            why = f"{e} divides by zero or overflows 64-bit integers"
            bad = y.eq(0).either(x.lt(MIN_LONG + 1).both(y.eq(-1)))
            if name == "floor":
                return checked(call("floordiv", x, y), bad, why)
            negated = exact("-", 0, x, f"{e} overflows 64-bit integers")
            return exact("-", 0, checked(call("floordiv", negated, y), bad, why), why)  # ceil(x/y) = -floor(-x/y)
        return sub(a)  # an integer is its own floor
    if name == "mod" and len(args) == 2:
        x, y = sub(args[0]), sub(args[1])
        return checked(call("mod", x, y), y.eq(0), f"{e} by zero")
    if name == "abs" and len(args) == 1:
        x = sub(args[0])
        return checked(call("abs", x), x.lt(MIN_LONG + 1), f"{e} overflows 64-bit integers", PAST_64_BITS)
    if name in ("min", "max") and len(args) == 1:
        return sub(args[0])  # (Spark's least and greatest need two)
    if name in ("min", "max") and args:
        return call("least" if name == "min" else "greatest", *(sub(a) for a in args))
    raise NotInteger(f"{e}")


def compare(cmp, var):
    """The boolean :class:`~chronolog.engine.exprs.Expr` of the comparison ``cmp`` of integers."""
    return lower(cmp.left, var).compare(cmp.op, lower(cmp.right, var))
