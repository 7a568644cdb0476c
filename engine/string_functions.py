"""The string built-ins, written once for the columnar executor and the
Spark rounds (engine/exprs.py emits each: Polars' string kernels on the
columns, Spark SQL in the rounds), with the engine's meaning
(language/builtins.py):

- ``strlen``: code points (Polars' ``len_chars``, Spark's ``char_length``:
  an astral character is one, a combining accent another);
- ``substr(S, F, N)``: Python's slice ``S[F:F + N]`` (``S[F:]``): a
  negative index from the end, each clamped to ``[0, len]``, an empty cut
  where the end is not past the start; the backend cuts code points
  ``[a, b)`` (Polars' ``str.slice``, Spark's ``substring`` from 1);
- ``upper``/``lower``: Python's ``str.upper``/``lower`` (full case mapping:
  ß -> SS, a final sigma).  A backend maps as Python only where their
  Unicode versions agree: on strings of :data:`CASE_RANGES` (Latin, Greek
  and Cyrillic letters and the combining accents, whose mappings have not
  changed since Unicode 5; Polars' agrees on each of them and on random
  strings of them, final sigmas included: tests/test_string_functions.py),
  Python's own function on the other rows (the columns: ``str.upper`` on
  just those rows; Spark: the engine's function in a UDF, also where the
  executor's locale maps otherwise);
- ``concat`` and ``S + T`` of strings: the engine's text of each term
  (language/text.format_term: a string itself, an integer's digits, an
  exact number's shortest decimal, ``#T``/``#F``; a float's shortest
  repr, which Java does not print, in the engine's own function on Spark);
- ``min``/``max`` of strings: ``least``/``greatest`` (UTF-8 byte order is
  code point order, Python's order of ``str``).

Which terms are strings, integers or other stays each backend's (the
columns read it from the values, the rounds from the columns' classes),
as does the number model of positions (the rounds' ``decimal(38, S)``
must be whole).
"""

from __future__ import annotations

from .exprs import Expr, call, lit, when

# code points whose upper and lower case Polars and Spark map as Python
# does (tested on every one of them: tests/test_string_functions.py,
# tests/test_spark_rounds_functions.py)
CASE_RANGES = ((0x0000, 0x017F), (0x0300, 0x036F), (0x0370, 0x03FF), (0x0400, 0x04FF))
SAFE_CASE = "^[" + "".join(f"\\x{{{lo:x}}}-\\x{{{hi:x}}}" for lo, hi in CASE_RANGES) + "]*$"  # (Rust's and Java's regex)
STRING_FUNCTIONS = {"concat", "strlen", "substr", "lower", "upper"}


def strlen(s: Expr) -> Expr:
    """The number of code points of ``s`` (a 64-bit integer)."""
    return Expr("strlen", (s,))


def _index(i: Expr, n: Expr) -> Expr:
    """A slice index of a string of ``n`` code points: from the end when
    negative, clamped to ``[0, n]``."""
    return when(i.lt(0), call("greatest", i + n, 0), call("least", i, n))


def substr(s: Expr, start: Expr, end: Expr | None = None) -> Expr:
    """Python's ``s[start:end]`` (``s[start:]`` without ``end``); ``end`` is
    ``start + length`` in the caller's number model."""
    n = strlen(s)
    return Expr("slice", (s, _index(start, n), n if end is None else _index(end, n)))


def case(name: str, s: Expr) -> Expr:
    """``upper`` or ``lower`` of ``s`` as Python maps it (see the module)."""
    return Expr("case", (s, name, SAFE_CASE))


def text(x: Expr, kind: str) -> Expr:
    """The engine's text of a term in ``concat``, of ``kind``: ``"str"``
    (itself), ``"int"`` (its digits), ``"decimal"`` (a decimal's text
    without trailing zeros), ``"bool"`` (``#T``/``#F``), ``"float"``
    (Python's repr: the engine's own function)."""
    if kind == "str":
        return x
    if kind == "bool":
        return when(x, lit("#T"), lit("#F"))
    return Expr({"int": "int_text", "decimal": "decimal_text", "float": "engine_text"}[kind], (x,))


def concat(*texts: Expr) -> Expr:
    """The strings ``texts`` one after the other (:func:`text` of each term)."""
    return Expr("concat", tuple(texts))


def extreme(name: str, xs: list) -> Expr:
    """``min``/``max`` of terms of one ordered kind, in the order of terms:
    numbers by value, strings in Python's order of ``str`` (code points),
    booleans ``#F`` before ``#T`` (false before true), instants in time order."""
    return call("least" if name == "min" else "greatest", *xs)
