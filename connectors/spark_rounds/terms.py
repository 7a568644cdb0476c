"""A run's term columns as SQL: their types and the program's constants.

The classes (classes.py) say number, string, boolean or float; a run fixes
how each is stored: numbers as ``bigint``, or ``decimal(38, S)`` when a
decimal term occurs; strings as strings; floats as ``double`` whatever the numbers' type.
A constant is written in its column's type, so that a comparison never
goes through one of Spark's implicit casts; a float constant against a
column of exact numbers is the exact number of its value, or never equal
(:meth:`TermTypes.float_equals`); against a column of term text it is its
key text (classes.TEXT), and so is a value a rule computes into one
(:meth:`TermTypes.key_text_sql`).
"""

from __future__ import annotations

import math
from datetime import datetime
from fractions import Fraction

from chronolog.language.booleans import Boolean
from chronolog.language.timeline import format_number

from .classes import BOOL, DATE, FLOAT, NUM, STR, TEXT, TS, decimal_digits
from .fragment import NotRelational
from .sql import hex_string, int64

_SQL_TYPES = {BOOL: "boolean", FLOAT: "double", DATE: "date", TS: "timestamp_ntz"}  # (Spark's simpleString of each)


class TermTypes:
    """The term columns of every predicate (``classes``: ``{pred: [class
    per argument]}``) and how a class is stored in this run."""

    def __init__(self, classes: dict, num_type, spark=None):
        self.classes = classes
        self.num_type = num_type  # LongType, or DecimalType(38, S) when a decimal term occurs
        self.spark = spark  # (where the engine's key_text of a float is registered: udfs.KeyText)
        # every sum and mean of floats by the engine's fold, not in SQL's integers (aggregate.py): a
        # first run stopped at a group whose floats do not fit them (float_sums.UNFIT, entry.py)
        self.engine_float_sums = False

    def arity(self, pred: str) -> int:
        return len(self.classes.get(pred) or [])

    def sql_type(self, c) -> str:
        """The SQL type of a term column of class ``c`` (strings: sets, term text, unknown)."""
        return self.num_type.simpleString() if c == NUM else _SQL_TYPES.get(c, "string")

    def const(self, v, c=None) -> str:
        """A constant term as SQL of its column's type; in a column of term
        text (``c`` TEXT), its key text (engine/term_types.key_text)."""
        from pyspark.sql import types as T

        if c == TEXT:
            from chronolog.engine.term_types import key_text

            return hex_string(key_text(v))

        if type(v) is Boolean or type(v) is bool:
            return "true" if v else "false"
        if type(v) is datetime:  # Spark's date literal, or a wall clock without a zone (UTC): whatever the session's time zone
            if v.time() == datetime.min.time():  # a midnight (classes.DATE)
                return f"DATE'{v.date().isoformat()}'"
            return f"TIMESTAMP_NTZ'{v.isoformat(sep=' ')}'"  # (classes.TS)
        if type(v) is float:
            from .functions import double_literal

            return double_literal(0.0 if v == 0 else v)  # (-0.0 is 0.0: inputs.py)
        if type(v) is int or isinstance(v, Fraction):
            if isinstance(self.num_type, T.LongType):
                if not -(2**63) <= int(v) < 2**63:
                    raise NotRelational(f"the number {v} is beyond 64-bit integers")
                return int64(int(v))
            decimal_digits(v)  # (a finite decimal, or refused)
            return f"CAST({format_number(v)}BD AS {self.num_type.simpleString()})"
        return hex_string(v)

    def float_equals(self, col: str, f: float) -> str:
        """SQL: the exact number column ``col`` equals the float ``f``, as the
        engine compares them (by value: ``1 == 1.0``): the exact value of
        ``f`` in the run's number type, or ``false`` where no number of that
        type has it (infinite, more decimals than the type, beyond it)."""
        from pyspark.sql import types as T

        if math.isinf(f):
            return "false"
        x = Fraction(f)
        if isinstance(self.num_type, T.LongType):
            ok = x.denominator == 1 and -(2**63) <= x < 2**63
        else:
            s, p = self.num_type.scale, self.num_type.precision
            ok = decimal_digits(x) <= s and abs(x) < Fraction(10) ** (p - s)
        return f"{col} = {self.const(x.numerator if x.denominator == 1 else x)}" if ok else "false"

    def key_text_sql(self, x: str, c) -> str:
        """SQL: the key text (engine/term_types.key_text) of the terms of
        class ``c`` of the SQL ``x`` (in this run's type of ``c``), written
        as key_text writes them, for a rule's value in a column of term
        text (classes.TEXT): a number as its exact text (``-0.5``, ``100``:
        a decimal's trailing zeros dropped), a string bare when it is a
        name (``^[a-z][A-Za-z0-9_]*`` to the very end: Java's ``$`` also
        matches before a final line break) else quoted with ``\\``, ``"``
        and the line breaks escaped, ``#T``/``#F``, a date ``2024-01-01``,
        a timestamp ``2024-01-01T10:00:00[.0005]`` (its midnight as its
        date; its fraction without trailing zeros, as Spark's text writes it): Spark's cast of a date or a TIMESTAMP_NTZ to text is its
        wall clock in any session time zone (``date_format`` reads the
        zone).  A decimal past 15 significant digits whose last digit is
        5 might be a float's binary value, which key_text writes as that
        float (``float(...)``): the row stops the run (arithmetic.stop_sql).
        A float's key text is the engine's own (``key_text`` in the UDF
        udfs.KeyText): its exact value where Python's shortest text of it
        is that value (``6.0`` and ``6`` are one term, ``6``), else
        ``float(0.1)``, which Java's text of a double does not always
        give.  Sets have no such SQL (classes.writes_key_text)."""
        from .arithmetic import stop_sql

        if c == TEXT:
            return x
        if c == FLOAT:
            from .udfs import key_text_sql

            return key_text_sql(self.spark, x, False)
        if c == BOOL:
            return f"CASE WHEN {x} THEN '#T' ELSE '#F' END"
        if c == DATE:
            return f"CAST({x} AS STRING)"
        if c == TS:  # Spark: 2024-01-01 10:00:00.5, Python: 2024-01-01T10:00:00.5 (language/text.iso_text)
            t = f"CAST({x} AS STRING)"
            return (f"CASE WHEN {t} NOT RLIKE '^[0-9]{{4}}-' THEN {stop_sql('a timestamp beyond the years 1-9999 as term text')} "
                    f"WHEN {t} LIKE '% 00:00:00' THEN substr({t}, 1, 10) "
                    f"ELSE concat(substr({t}, 1, 10), 'T', substr({t}, 12)) END")
        if c == STR:  # (language/text.format_term: the engine's printing)
            from chronolog.language.text import _BREAKS, _RESERVED, _escape_break

            quoted = x  # (as format_term escapes: the backslash, the quote, then each line break)
            for ch, esc in [("\\", "\\\\"), ('"', '\\"'), *((b, _BREAKS.sub(_escape_break, b)) for b in _BREAKS.pattern[1:-1])]:
                quoted = f"replace({quoted}, {hex_string(ch)}, {hex_string(esc)})"
            reserved = ", ".join(f"'{w}'" for w in _RESERVED)
            return f"CASE WHEN {x} RLIKE '^[a-z][A-Za-z0-9_]*\\\\z' AND {x} NOT IN ({reserved}) THEN {x} ELSE concat('\"', {quoted}, '\"') END"
        if c == NUM:
            from pyspark.sql import types as T

            if not isinstance(self.num_type, T.DecimalType) or self.num_type.scale == 0:
                return f"CAST({x} AS STRING)"
            t = f"regexp_replace(regexp_replace(CAST({x} AS STRING), '0+$', ''), '\\\\.$', '')"
            digits = f"length(regexp_replace(regexp_replace({t}, '[-.]', ''), '^0+', ''))"
            why = stop_sql("a decimal of more than 15 significant digits ending in 5 as term text (it may be a float's binary value, "
                           "whose key text is the float's)")
            return f"CASE WHEN {t} LIKE '%.%5' AND {digits} > 15 THEN {why} ELSE {t} END"
        raise NotRelational(f"{c} terms as term text")  # pragma: no cover - classes.writes_key_text refuses them first

