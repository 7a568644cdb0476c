"""Interval terms' numbers and interval codes, each way, written once for
the columnar executor and the Spark rounds (engine/exprs.py emits each;
planner/interval_terms.py says what the terms mean).

A time ``x = n / den`` (``n`` an integer column, ``den`` the run's
denominator of such numbers) on a grid of ``L`` points a time unit is
``x·L = (n / k)·d`` grid units, with ``g = gcd(L, den)``, ``k = den / g``
and ``d = L / g`` (:func:`ratio`): on the grid exactly when ``k`` divides
``n``.  Back, an end's ``u`` grid units are the number ``(u / d)·k`` over
``den``: one of the run's numbers exactly when ``d`` divides ``u``.

What stays each backend's is its number model: which values are numbers
and their ``(n, den)`` (the columns: exact pairs brought to a common
denominator, a float as the number its shortest text shows; the rounds:
a ``decimal(38, S)``'s digits over ``10^S``), and the unbounded ends (a
float infinity as a term on the columns; no decimal holds it, so the
rounds refuse it).
"""

from __future__ import annotations

import math

from .exprs import Expr, call, checked, lit

BEYOND = "an interval end beyond the times of the run"
OFF_GRID = "an interval end off the time grid of the run"
MORE_DECIMALS = "a time with more decimals than the numbers of the run"
_UNITS = 2**61  # grid units below it in magnitude: ``2·units + 1`` stays a 64-bit code


def ratio(L: int, den: int) -> tuple:
    """``(k, d)``: ``den / g`` and ``L / g``, ``g = gcd(L, den)``."""
    g = math.gcd(L, den)
    return den // g, L // g


def code_of(n: Expr, den: int, L: int, bit: int, bounds: tuple) -> Expr:
    """The end code ``2·x·L + bit`` of the times ``x = n / den``, refused
    off the grid or outside the exclusive codes ``bounds`` (``bit``: 0 a
    closed start or an open end, 1 an open start or a closed end).  The
    magnitude of ``n`` is refused first: the quotient is then no larger
    than a code (a backend's integer division of 38 digits may not wrap)."""
    k, d = ratio(L, den)
    units = n if k == 1 else call("floordiv", n, k)
    units = units if d == 1 else units * d
    code = units * 2 + bit
    code = checked(code, code.le(bounds[0]).either(code.ge(bounds[1])), BEYOND)
    if k != 1:
        code = checked(code, call("mod", n, k).ne(0), OFF_GRID)
    return checked(code, call("abs", n).ge(lit(_UNITS * k // d)), BEYOND)


def number_of(code: Expr, den: int, L: int) -> Expr:
    """The integer ``n`` over ``k`` (:func:`ratio`) of the time of the
    finite end ``code``: the time is ``n·k / den``, refused where it is no
    number of denominator ``den`` (the caller scales by ``k``, in its own
    numbers: a product in 64 bits may not fit)."""
    k, d = ratio(L, den)
    u = code.half()
    return u if d == 1 else checked(call("floordiv", u, d), call("mod", u, d).ne(0), MORE_DECIMALS)
