"""Compiles the expressions of conditions and assignments into closures over
a binding tuple.  Arithmetic is exact: ints and Fractions (``/`` gives a
Fraction, normalised back to int when whole); a float operand makes the
result a float (measured values).  Functions are in language/builtins.py."""

from __future__ import annotations

import math
import operator
from fractions import Fraction

from chronolog.language import ast
from chronolog.language.nulls import Null
from chronolog.language.builtins import FUNCTIONS, BuiltinTypeError, check_arity, compare_problem, is_number
from chronolog.language.errors import DataError
from chronolog.language.timeline import normalize
from chronolog.language.text import format_term


_is_number = is_number


def _div(a, b):
    if b == 0:
        raise ZeroDivisionError
    if type(a) is float or type(b) is float:
        return a / b
    return normalize(Fraction(a) / Fraction(b))


_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": _div}
_CMP = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def compile_expr(expr, slots: dict, where):
    """``where`` is the ast node used to report type errors with a position.
    Arithmetic and calls of constants only (``float(2 / 21)``) are computed
    once here (the built-ins are pure); one that fails is left to fail at
    run time, where and if a row reaches it, as before."""
    fn = _compile(expr, slots, where)
    if isinstance(expr, (ast.BinOp, ast.Call)) and _constant(expr):
        try:
            v = fn(None)
        except Exception:  # noqa: BLE001 - the row that reaches it reports it
            return fn
        return lambda b: v
    return fn


def _constant(expr) -> bool:
    if isinstance(expr, ast.Const):
        return True
    if isinstance(expr, ast.BinOp):
        return _constant(expr.left) and _constant(expr.right)
    if isinstance(expr, ast.Call):
        return all(_constant(a) for a in expr.args)
    return False


def _compile(expr, slots: dict, where):
    if isinstance(expr, ast.Var):
        s = slots[expr.name]
        return lambda b: b[s]
    if isinstance(expr, ast.Const):
        v = expr.value
        return lambda b: v
    if isinstance(expr, ast.BinOp):
        f = _ARITH[expr.op]
        left = compile_expr(expr.left, slots, where)
        right = compile_expr(expr.right, slots, where)
        text = str(expr)

        def arith(b):
            x, y = left(b), right(b)
            tx, ty = type(x), type(y)
            if (tx is float and (ty is float or ty is int)) or (ty is float and tx is int):
                # measured values (one recursive round per day of an EMA): the
                # same float operation f(x, y) as below, without the checks
                try:
                    r = f(x, y)
                except ZeroDivisionError:
                    raise _type_error(f"division by zero in {text}", where) from None
                except OverflowError:
                    raise _type_error(f"{text} is too large for a binary float", where) from None
                if r != r:  # inf - inf, inf * 0: NaN is no value (a fact would never equal itself)
                    raise _not_a_number(text, (x, y), where)
                return r
            if expr.op == "+" and isinstance(x, str) and isinstance(y, str):
                return x + y
            if not (_is_number(x) and _is_number(y)):
                raise _type_error(f"cannot compute {text} with {_shown(x)} and {_shown(y)}: both must be numbers", where)
            try:
                r = normalize(f(x, y))
            except ZeroDivisionError:
                raise _type_error(f"division by zero in {text}", where) from None
            except OverflowError:  # an exact number beyond a binary float's range met a float
                raise _type_error(f"{text} is too large for a binary float", where) from None
            if r != r:
                raise _not_a_number(text, (x, y), where)
            return r

        return arith
    if isinstance(expr, ast.Call):
        problem = check_arity(expr.name, len(expr.args))
        if problem is not None:
            raise _type_error(problem, where, hint="available functions: " + ", ".join(sorted(FUNCTIONS)))
        fn = FUNCTIONS[expr.name][2]
        args = [compile_expr(a, slots, where) for a in expr.args]

        def call(b):
            xs = [a(b) for a in args]
            try:
                r = fn(*xs)
            except BuiltinTypeError as e:
                err = _type_error(f"{e} in '{where}'", where, hint=e.hint)
                # the arguments the message names (not round()'s digits when X is fine): value_origin names their input
                err.operands = (where, tuple((a, x) for a, x in zip(expr.args, xs) if _names(str(e), x)))
                raise err from None
            except OverflowError:  # float() of an exact number beyond a binary float's range, floor(inf)
                infinite = next((x for x in xs if type(x) is float and x in (math.inf, -math.inf)), None)
                if infinite is not None:  # the argument is no number the function maps, not a result too large
                    raise _type_error(
                        f"{expr.name}() of {_shown(infinite)} has no value (an infinite float is no integer, no exact number) in '{where}'",
                        where, hint="keep infinite values out of it with a condition (X < +inf)",
                    ) from None
                raise _type_error(f"{expr.name}(...) gives a value too large for a binary float in '{where}'", where) from None
            if r != r:  # mod(inf, 2)
                raise _not_a_number(str(expr), xs, where)
            return r

        return call
    raise _type_error(f"cannot evaluate {expr}", where)  # pragma: no cover


def compile_condition(cmp: ast.Comparison, slots: dict):
    left = compile_expr(cmp.left, slots, cmp)
    right = compile_expr(cmp.right, slots, cmp)
    f = _CMP[cmp.op]
    ordered = cmp.op not in ("==", "!=")

    def test(b):
        x, y = left(b), right(b)
        if ordered and (type(x) is Null or type(y) is Null or _is_number(x) != _is_number(y)
                        or (not _is_number(x) and type(x) is not type(y)) or type(x) is tuple):
            problem = compare_problem(x, y)  # (the order of terms: the built-ins min/max share it)
            if problem is not None:
                err = _type_error(f"{problem[0]} in '{cmp}'", cmp, hint=problem[1])
                err.operands = (cmp, ((cmp.left, x), (cmp.right, y)))  # (chronolog/value_origin.py names their input)
                raise err
        if not ordered and _is_number(x) != _is_number(y):
            return cmp.op == "!="
        return f(x, y)

    return test


def _not_a_number(text, operands, where):
    """NaN is refused as a value in the input; computed, it is refused too."""
    vals = ", ".join(_shown(v) for v in operands)
    return _type_error(f"{text} is not a number (NaN) for {vals}", where,
                       hint="an infinite float met an operation without a value (inf - inf, inf * 0, mod(inf, y)); keep infinite values out of it with a condition")


def _names(message: str, v) -> bool:
    """Whether ``message`` names the value ``v`` as a whole word."""
    import re

    return re.search(r"(?<![\w./-])" + re.escape(_shown(v)) + r"(?![\w./])", message) is not None


def _shown(v) -> str:
    """A value in an error as the program writes it (a date as 2024-01-05,
    1/3 as 1/3), a string quoted so that it reads as one."""
    return repr(v) if type(v) is str else format_term(v)


def _type_error(msg, where, hint=""):
    pos = getattr(where, "pos", None)
    return DataError(msg, pos, hint=hint)
