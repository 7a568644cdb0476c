"""``munion``'s set as a term: one string, the engine's text of the set.

The engine's set is a tuple of the distinct values, sorted (language/
text.py ``term_sort_key``), and a term like any other: it joins and
compares by tuple equality and prints as ``{a,"b c",2.5}``
(``format_term``); the answers give that text.  Here a set is its text,
a term class of its own (``SET``, a string column): the values of one
column are of one class, sorted by Spark as Python sorts them (numbers by
value, strings by code point: UTF-8 byte order, ``false`` before
``true``, dates and timestamps in time), each printed as the engine
prints it (an instant by :func:`instant_text`), so two sets are equal
exactly when their texts are; a set of floats is its term text, as
``Model.to_arrow`` writes it (``{float(1.5)}``, which reads back as
floats), in a UDF (Java prints ``1.0E10``, Python ``10000000000.0``).
The outputs mark a set column as term text (entry.outputs_of).  Not
here: sets of sets (the engine flattens them); an order between sets
(tuples compare element by element, texts by character) is refused by the
conditions (rules.py).
"""

from __future__ import annotations

from chronolog.language.text import _BARE, _BREAKS, _RESERVED, _escape_break

from .classes import BOOL, DATE, FLOAT, NUM, STR, TS
from .fragment import NotRelational
from .sql import hex_string
from .udfs import fold_sql

# the engine's own printing rules (language/text.py), as SQL: each line
# break character with its escape; the bare-name pattern matched whole
# (Java's \z is the end of the text; its $ also matches before a final
# line terminator, as Python's does)
BREAKS = {c: _BREAKS.sub(_escape_break, c) for c in _BREAKS.pattern[1:-1]}
BARE = hex_string(_BARE.pattern.replace("$", "\\z"))


def string_text(x: str) -> str:
    """SQL: the engine's text of the string SQL ``x`` (bare, or quoted
    with ``\\``, ``"`` and line breaks escaped)."""
    q = f"replace(replace({x}, {hex_string(chr(92))}, {hex_string(chr(92) * 2)}), '\"', {hex_string(chr(92) + chr(34))})"
    for c, esc in BREAKS.items():
        q = f"replace({q}, {hex_string(c)}, {hex_string(esc)})"
    reserved = ", ".join(f"'{w}'" for w in _RESERVED)
    return f"(CASE WHEN {x} RLIKE {BARE} AND {x} NOT IN ({reserved}) THEN {x} ELSE concat('\"', {q}, '\"') END)"


def instant_text(x: str) -> str:
    """SQL: the engine's text of the instant SQL ``x`` (a DATE or a
    TIMESTAMP_NTZ of its UTC wall clock, classes.TS): a midnight as its
    date, ``2024-01-01``, else ``2024-01-01T12:00:00``, with six digits of
    microseconds where it has any (language/text.format_term: Python's
    ``isoformat``).  From the date and the fields of the wall clock, which
    no session time zone changes (a cast to TIMESTAMP or ``date_format``
    reads the wall clock in the session's zone)."""
    t = f"CAST({x} AS TIMESTAMP_NTZ)"  # (a DATE: its midnight, in any session time zone)
    micros = f"CAST(date_part('SECOND', {t}) * 1000000 AS BIGINT)"
    clock = (f"concat('T', lpad(CAST(hour({t}) AS STRING), 2, '0'), ':', lpad(CAST(minute({t}) AS STRING), 2, '0'), ':', "
             f"lpad(CAST({micros} div 1000000 AS STRING), 2, '0'), "
             f"CASE WHEN {micros} % 1000000 = 0 THEN '' ELSE concat('.', lpad(CAST({micros} % 1000000 AS STRING), 6, '0')) END)")
    midnight = f"(hour({t}) = 0 AND minute({t}) = 0 AND {micros} = 0)"
    return f"concat(CAST(CAST({t} AS DATE) AS STRING), CASE WHEN {midnight} THEN '' ELSE {clock} END)"


def set_text(values: str, c, functions, rule) -> str:
    """SQL: the engine's text of the set of the array SQL ``values`` (of
    class ``c``: distinct, unsorted); ``functions``: the run's
    functions.Functions (a number's or a boolean's text, as ``concat``)."""
    if c == STR:
        text = string_text("x")
    elif c in (NUM, BOOL):
        text = functions.text("x", c, "munion", rule)
    elif c in (DATE, TS):
        text = instant_text("x")
    elif c == FLOAT:  # its term text, in a UDF (Java prints 1.0E10, Python 10000000000.0)
        return fold_sql(functions.arith.spark, "munion", values, "string")
    else:
        raise NotRelational(f"aggregation: munion of {c or 'unknown'} terms", rule)
    return f"concat('{{', array_join(transform(sort_array({values}), x -> {text}), ','), '}}')"
