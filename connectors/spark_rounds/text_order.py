"""The order of term text, and its numbers as the run's numbers, in SQL.

A cell of term text (classes.TEXT) is the text ``term_types.key_text``
gives its term, and each kind's text says its kind (:func:`decoded`):

* an exact number is ``-?digits``, ``-?digits.digits`` or ``-?p/q`` (a
  fraction with no finite decimal, lowest terms); a float whose shortest
  text is another number is ``float(0.1)`` (the exact number of its
  binary value), any other float is written as the exact number of its
  value, so its text does not say that it is a float;
* a string is bare when it is a name (``^[a-z][A-Za-z0-9_]*``), else
  quoted with ``\\``, ``"`` and the line breaks escaped;
* ``#T``, ``#F``; an instant its ISO text (``2024-01-01``,
  ``2024-01-01T10:00:00[.000500]``); a set ``{...}``; a labelled null ``_:n1``.

Each side of an order (``<``, ``<=``, ``>``, ``>=``: :func:`compare_sql`)
is decoded to a struct of its kind and value, and the two compare as the
engine's order does (language/builtins.compare_problem): numbers among
themselves exactly, as ``p/q`` with ``q > 0`` in ``decimal(38, 0)``
cross-multiplied (a float's ``float(r)`` as its mantissa times a power of
two), strings by code point (Spark's UTF-8 bytes), instants in time,
``#F`` before ``#T``.  Two kinds the engine does not order, a set (its
members' order), a labelled null, a number past 38 digits, stop the run
(arithmetic.stop_sql) with the reason: one task then gives the engine's
order or its error.  min and max of term text fold with the same order
(aggregate.py).

Arithmetic and functions on term text (:func:`number_sql`): a cell that is
an exact number the run's number type holds is that number, any other
stops the run (``1/3`` has no decimal, a string is the engine's error).
Only where no term of the run's term text is a float (entry.prepare):
a float's text may be an exact number's, and the engine computes on a
float as a float.
"""

from __future__ import annotations

from functools import partial

from .float_sums import DEC, exponent, mantissa, two_to
from .sql import hex_string, lambda_name, let

_let = partial(let, prefix="_t")


def _re(pattern: str) -> str:
    return hex_string(pattern)


NUMBER = r"^-?[0-9]+(\.[0-9]+)?(/[0-9]+)?\z"
BARE = r"^[a-z][A-Za-z0-9_]*\z"
INSTANT = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}"


def _struct(k: str, **fields) -> str:
    """The decoded struct of kind ``k`` (``n`` a number, ``s`` a string,
    ``t`` an instant, ``b`` a boolean, ``x`` none the engine orders: a set,
    a null, text that is no term), its other fields null."""
    parts = {"k": f"'{k}'", "n": f"CAST(NULL AS {DEC})", "d": f"CAST(NULL AS {DEC})", "s": "CAST(NULL AS STRING)",
             "t": "CAST(NULL AS TIMESTAMP_NTZ)", "b": "CAST(NULL AS BOOLEAN)"}
    parts.update(fields)
    return "named_struct(" + ", ".join(f"'{f}', {v}" for f, v in parts.items()) + ")"


def power_of_two(j: str) -> str:
    """``2^j`` as ``decimal(38, 0)`` for ``0 <= j <= 124``, else null."""
    return f"(CASE WHEN ({j}) BETWEEN 0 AND 124 THEN {two_to(j)} END)"


def double_parts(d: str) -> str:
    """The struct of the float ``d`` (a finite double) as the exact number
    of its binary value: ``m·2^k`` (float_sums.py's ``m`` and ``k``),
    numerator and denominator null past 38 digits."""

    def body(a):
        def parts(k):
            m = f"CAST({mantissa(a, k)} AS {DEC})"
            n = f"(CASE WHEN {k} >= 0 THEN try_multiply({m}, {power_of_two(k)}) ELSE {m} END)"
            den = f"(CASE WHEN {k} >= 0 THEN CAST(1 AS {DEC}) ELSE {power_of_two(f'-{k}')} END)"
            return _struct("n", n=n, d=den)

        zero = _struct("n", n=f"CAST(0 AS {DEC})", d=f"CAST(1 AS {DEC})")
        return f"CASE WHEN {a} = 0 THEN {zero} ELSE {_let(f'CAST(floor(log2(abs({a}))) AS INT)', lambda e0: _let(exponent(a, e0), parts))} END"

    return _let(d, body)


def _unquoted(x: str) -> str:
    """The string of a quoted key text ``x`` (language/text.format_term's
    escapes undone: split at each escaped backslash, then the quote and
    the line breaks in each piece)."""
    from chronolog.language.text import _BREAKS, _escape_break

    def piece(p):
        out = f"replace({p}, {hex_string(chr(92) + chr(34))}, {hex_string(chr(34))})"
        for b in _BREAKS.pattern[1:-1]:
            out = f"replace({out}, {hex_string(_BREAKS.sub(_escape_break, b))}, {hex_string(b)})"
        return out

    body = f"substr({x}, 2, length({x}) - 2)"
    v = lambda_name("_p")
    return f"array_join(transform(split({body}, {_re(chr(92) * 4)}, -1), {v} -> {piece(v)}), {hex_string(chr(92))})"


def number_struct(t: str) -> str:
    """The struct of kind ``n`` of the key text ``t`` (a column or a
    lambda's variable) of an exact number (:data:`NUMBER`): ``p/q``, a
    decimal or a whole number, its fields null past 38 digits."""
    whole = f"try_cast({t} AS {DEC})"
    frac = _struct("n", n=f"try_cast(substring_index({t}, '/', 1) AS {DEC})",
                   d=f"try_cast(substring_index({t}, '/', -1) AS {DEC})")
    dec = _struct("n", n=f"try_cast(replace({t}, '.', '') AS {DEC})",
                  d=f"try_cast(concat('1', repeat('0', length(substring_index({t}, '.', -1)))) AS {DEC})")
    return (f"(CASE WHEN {t} LIKE '%/%' THEN {frac} WHEN {t} LIKE '%.%' THEN {dec} "
            f"ELSE {_struct('n', n=whole, d=f'CAST(1 AS {DEC})')} END)")


def decoded(x: str, numbers_only: bool = False) -> str:
    """The struct of the term whose key text is the SQL ``x``
    (``numbers_only``: of kind ``x`` when it is no exact number, for
    arithmetic, which reads nothing else: fractions.py)."""

    def body(t):
        if numbers_only:
            return f"CASE WHEN {t} RLIKE {_re(NUMBER)} THEN {number_struct(t)} ELSE {_struct('x')} END"
        flt = double_parts(f"try_cast(substr({t}, 7, length({t}) - 7) AS DOUBLE)")
        return (f"CASE WHEN {t} RLIKE {_re(NUMBER)} THEN {number_struct(t)} "
                f"WHEN startswith({t}, 'float(') THEN {flt} "
                f"WHEN {t} IN ('#T', '#F') THEN {_struct('b', b=f'{t} = {chr(39)}#T{chr(39)}')} "
                f"WHEN {t} RLIKE {_re(BARE)} THEN {_struct('s', s=t)} "
                f"WHEN startswith({t}, '\"') THEN {_struct('s', s=_unquoted(t))} "
                f"WHEN {t} RLIKE {_re(INSTANT)} THEN {_struct('t', t=f'try_cast({t} AS TIMESTAMP_NTZ)')} "
                f"ELSE {_struct('x')} END")

    return _let(x, body)


def sort_struct(x: str) -> str:
    """A struct of the key text ``x`` whose order (Spark's, field by field)
    is the engine's order of terms (language/term_ranks.py: numbers, then
    strings, instants, booleans, sets, labelled nulls) as far as SQL holds
    it: numbers by their double value, then whole ones exactly (a fraction
    or a decimal no double tells apart, a set, a null labelled other than
    ``n<k>`` by their text), strings by code point, instants in time,
    ``#F`` before ``#T``, the chase's nulls ``_:n<k>`` by ``k``; the text
    itself last.  What a chase numbers its witnesses by (chase.py): an
    order, not a comparison the run stops at."""

    def body(d):
        kind = (f"CASE {d}.k WHEN 'n' THEN 0 WHEN 's' THEN 1 WHEN 't' THEN 2 WHEN 'b' THEN 3 "
                f"ELSE (CASE WHEN startswith({x}, '{{') THEN 4 WHEN startswith({x}, '_:') THEN 5 ELSE 6 END) END")
        null = f"(CASE WHEN {x} RLIKE {_re('^_:n[0-9]{1,18}' + chr(92) + 'z')} THEN CAST(substr({x}, 4) AS BIGINT) END)"
        return (f"named_struct('k', {kind}, 'v', try_divide(CAST({d}.n AS DOUBLE), CAST({d}.d AS DOUBLE)), "
                f"'w', (CASE WHEN {d}.d = 1 THEN {d}.n END), 's', {d}.s, 't', {d}.t, 'b', {d}.b, 'z', {null}, 'x', {x})")

    return _let(decoded(x), body)


def typed(x: str, c, types) -> str | None:
    """The struct of the typed SQL ``x`` of class ``c`` (None: a class with
    no order here, a set)."""
    from .arithmetic import unscaled
    from .classes import BOOL, DATE, FLOAT, NUM, STR, TEXT, TS

    if c == TEXT:
        return decoded(x)
    if c == NUM:
        scale = getattr(types.num_type, "scale", 0) or 0
        den = f"CAST({'1' + '0' * scale} AS {DEC})"
        return _struct("n", n=unscaled(x, scale), d=den)
    if c == FLOAT:
        return double_parts(x)
    if c == STR:
        return _struct("s", s=x)
    if c in (DATE, TS):
        return _struct("t", t=f"CAST({x} AS TIMESTAMP_NTZ)")
    if c == BOOL:
        return _struct("b", b=x)
    return None


def compare_sql(op: str, a: str, b: str, why: str) -> str:
    """``a op b`` (``<``, ``<=``, ``>``, ``>=``) of two decoded structs
    (:func:`decoded`, :func:`typed`) in the engine's order; where the
    engine has none (two kinds, a set, a null) or SQL has no exact answer
    (a number past 38 digits) the run stops, ``why`` (SQL of a string)
    naming the comparison."""
    from .arithmetic import MARKER

    def stop(reason: str) -> str:
        return f"raise_error(concat({hex_string(MARKER + reason)}, {why}))"

    def body(p):
        x, y = f"{p}._a", f"{p}._b"
        left, right = f"try_multiply({x}.n, {y}.d)", f"try_multiply({y}.n, {x}.d)"
        return (f"CASE WHEN {x}.k <> {y}.k OR {x}.k = 'x' THEN {stop('term text the engine does not order in ')} "
                f"WHEN {x}.k = 'n' THEN (CASE WHEN {left} IS NULL OR {right} IS NULL "
                f"THEN {stop('numbers of term text past 38 digits in ')} ELSE {left} {op} {right} END) "
                f"WHEN {x}.k = 's' THEN {x}.s {op} {y}.s "
                f"WHEN {x}.k = 't' THEN (CASE WHEN {x}.t IS NULL OR {y}.t IS NULL "
                f"THEN {stop('an instant of term text Spark does not read in ')} ELSE {x}.t {op} {y}.t END) "
                f"ELSE {x}.b {op} {y}.b END")

    return _let(f"named_struct('_a', {a}, '_b', {b})", body)


def number_sql(x: str, types, why: str) -> str:
    """The term whose key text is the SQL ``x`` as the run's number type:
    an exact number it holds (no more decimals than the run's, within 38
    digits), else the run stops (``why``: the operation, SQL text)."""
    from pyspark.sql import types as T

    from .arithmetic import stop_sql

    num = types.num_type
    scale = num.scale if isinstance(num, T.DecimalType) else 0
    if scale == 0:
        ok = f"{{t}} RLIKE {_re('^-?[0-9]+' + chr(92) + 'z')}"
    else:
        places = "(CASE WHEN {t} LIKE '%.%' THEN length(substring_index({t}, '.', -1)) ELSE 0 END)"
        ok = f"{{t}} RLIKE {_re('^-?[0-9]+(' + chr(92) + '.[0-9]+)?' + chr(92) + 'z')} AND {places} <= {scale}"

    def body(t):
        value = f"try_cast({t} AS {num.simpleString()})"
        return (f"CASE WHEN {ok.format(t=t)} AND {value} IS NOT NULL THEN {value} "
                f"ELSE {stop_sql(f'{why} on term text that is not a number of the run (1/3, a string, a null)')} END")

    return _let(x, body)


def concat_text_sql(x: str, why: str) -> str:
    """The engine's text in ``concat`` of the term whose key text is the
    SQL ``x``: the key text itself for a number (``1/3``, ``-1.5``), a
    name, a boolean or an instant, which the engine writes alike; the run
    stops (``why``: the operation, SQL text) for a quoted string, a float,
    a set or a null, whose texts differ."""
    from .arithmetic import stop_sql

    def body(t):
        same = " OR ".join(f"{t} RLIKE {_re(p)}" for p in (NUMBER, BARE, INSTANT))
        return (f"CASE WHEN {same} OR {t} IN ('#T', '#F') THEN {t} "
                f"ELSE {stop_sql(f'{why} on term text other than a number, a name, a boolean or an instant')} END")

    return _let(x, body)


def extreme_sql(fold: str, values: str) -> str:
    """``min`` or ``max`` (``fold``) of the array ``values`` of key texts in
    the engine's order of terms (:func:`compare_sql`), as the engine folds
    them: each value against the least (greatest) so far."""
    op = "<" if fold == "min" else ">"
    best, x = lambda_name("_b"), lambda_name("_v")
    better = compare_sql(op, decoded(x), decoded(best), hex_string(f"{fold}() of term text"))
    return f"aggregate({values}, CAST(NULL AS STRING), ({best}, {x}) -> CASE WHEN {best} IS NULL THEN {x} WHEN {better} THEN {x} ELSE {best} END)"
