"""Term equality and term typing: the one rule every path follows (the
embedded engine's, on rows and columns; the Spark driver, keyed and
rounds paths; @bind files; the chronolog data source).

Equality, as the engine compares terms:

- exact numbers (``int``, ``Fraction``) by value (``1`` = ``1.0``); a binary
  float equals the exact number of its value;
- ``#T``/``#F`` are terms of their own, never ``1``/``0`` (language/booleans.py);
- strings equal strings;
- a **date or timestamp is an instant**: a naive ``datetime`` read as UTC
  (:func:`instant`). A DATE is its midnight UTC, a timestamp with a zone is
  converted to UTC, one without is read as UTC, so a date and a timestamp at
  the same instant are one term. An instant never equals a number: a DATE
  2024-01-01 is not the integer 1704067200, on any path and in any Spark
  session time zone.

Typing out (:func:`value_kind`, :func:`merge_kind`, :func:`arrow_type`,
:func:`typed_array`): a column's kind is the exact Arrow type its values
need; instants go out as ``date32`` when every one is a midnight, else as
``timestamp[us]`` (no zone: UTC). So a DATE in gives a DATE out.

Term text (:func:`text_marker`): a column no Arrow type holds (several
kinds of constants, sets, floats beside exact numbers; exact numbers past
decimal128) is written as canonical term text, which reads back as the
same terms where the column is marked so: a table's schema metadata
(engine/arrow.py), a Spark column's field metadata :data:`KIND_KEY` (every
Spark path's outputs, the chronolog data source's reads); an unmarked
string column is strings.

Keys (Spark's partitioning, connectors/spark.py): equal terms must share a
key; an instant keys by its UTC microseconds, computed by
:func:`instant_micros_sql`, which no session time zone changes.
"""

from __future__ import annotations

import datetime as _dt
from decimal import Context, Decimal
from fractions import Fraction

from chronolog.language.booleans import Boolean

# ------------------------------------------------------------ instants


def instant(v) -> _dt.datetime:
    """A date or datetime value (Python's, or Arrow's ``as_py``) as the
    engine's instant term: a naive ``datetime`` in UTC."""
    if not isinstance(v, _dt.datetime):
        return _dt.datetime(v.year, v.month, v.day)
    if v.tzinfo is not None:
        return v.astimezone(_dt.timezone.utc).replace(tzinfo=None)
    return v


_FIRST_US, _LAST_US = -62135596800 * 10**6, 253402300800 * 10**6 - 1  # 0001-01-01 .. 9999-12-31T23:59:59.999999


def instants(arr) -> list:
    """:func:`instant` of each value of an Arrow date or timestamp array (no
    nulls), by Arrow's cast to UTC microseconds and numpy's datetimes: the
    values' ``as_py`` converted a zoned timestamp's zone each, 1.8 s for
    500,000 of them (0.02 s so).  Values past Python's datetimes (or a cast
    that would lose nanoseconds) raise as ``as_py`` does."""
    import pyarrow as pa

    micros = arr.cast(pa.timestamp("us")).cast(pa.int64()).to_numpy(zero_copy_only=False)
    if len(micros) and not (_FIRST_US <= int(micros.min()) and int(micros.max()) <= _LAST_US):
        return [instant(v) for v in arr.to_pylist()]
    return micros.astype("datetime64[us]").astype(object).tolist()


def is_instant_type(typ) -> bool:
    """An Arrow date or timestamp type (a term column of instants)."""
    import pyarrow as pa

    return pa.types.is_date(typ) or pa.types.is_timestamp(typ)


def instant_micros_sql(col: str, spark_type: str) -> str | None:
    """Spark SQL of the UTC microseconds since 1970 of the column ``col``
    of Spark type ``spark_type`` (its ``simpleString()``), or None for a
    type that holds no instant. A DATE counts its days (``unix_date``) and
    a TIMESTAMP_NTZ its wall clock read as UTC, from its date and its
    fields: a ``CAST(... AS TIMESTAMP)``, and even ``timestampdiff`` on NTZ
    values, read the wall clock in the session's time zone (which moves a
    date away from its timestamp, and a time in a daylight-saving gap by
    an hour)."""
    day = "(CAST(unix_date({}) AS BIGINT) * 86400000000)"
    if spark_type == "date":
        return day.format(col)
    if spark_type == "timestamp":
        return f"unix_micros({col})"
    if spark_type == "timestamp_ntz":
        return (f"({day.format(f'CAST({col} AS DATE)')} + CAST(hour({col}) AS BIGINT) * 3600000000"
                f" + CAST(minute({col}) AS BIGINT) * 60000000 + CAST(date_part('SECOND', {col}) * 1000000 AS BIGINT))")
    return None


def text_instant_micros_sql(text: str) -> str:
    """Spark SQL of the UTC microseconds of ISO date or datetime text (a CSV
    cell mapped ``date``), as the CSV reader reads it: with an offset or
    ``Z`` at that offset, else as UTC; null where Spark cannot parse it."""
    zoned = f"{text} RLIKE '[T ][0-9:.]+([zZ]|[+-][0-9][0-9](:?[0-9][0-9])?)$'"
    return (f"CASE WHEN {zoned} THEN unix_micros(try_cast({text} AS TIMESTAMP)) "
            f"ELSE {instant_micros_sql(f'try_cast({text} AS TIMESTAMP_NTZ)', 'timestamp_ntz')} END")


def key_text(v) -> str:
    """A term as text that two terms share exactly when the engine finds
    them equal (the keyed stream's groups, connectors/spark_keyed_stream.py;
    the Spark rounds' column of term text, connectors/spark_rounds/classes.py):
    numbers by exact value (``1`` = ``1.0`` = ``2/2``; a float by its binary
    value, so ``0.1`` is not ``1/10``), ``#T``/``#F`` never numbers,
    instants by their ISO text, a set by its members' key texts, anything
    else by its term text.  The text is also term text that reads back as
    an equal term (engine/arrow.py): a number that is exactly a float
    whose shortest text is another number (the float ``0.1``, or the
    rational of its binary value) reads ``float(0.1)``, every other number
    its exact text."""
    import math

    from chronolog.language.text import format_term, format_term_text
    from chronolog.language.timeline import format_number, normalize

    if isinstance(v, bool) or type(v) is Boolean:
        return format_term(v)
    if type(v) is tuple:  # a set: its members in term order, distinct (language/text.make_set)
        return "{" + ",".join(map(key_text, v)) + "}"
    if (type(v) is float and math.isfinite(v)) or isinstance(v, (int, Fraction)):
        x = Fraction(v)
        if x.denominator > 1 and x.denominator & (x.denominator - 1) == 0:  # (only such a number is a float's value)
            f = float(x)
            if Fraction(f) == x and Fraction(repr(f)) != x:
                return format_term_text(f)
        return format_number(normalize(x))
    return format_term(v)


# ------------------------------------------------------------ column kinds

INT64 = (-(2**63), 2**63)


def value_kind(values) -> list:
    """The exact type a column of Python values needs, as a JSON-able list:
    ``["empty"]``, ``["int", digits, past 64 bits]``, ``["dec", int_digits, scale]``,
    ``["rat"]`` (exact numbers as text), ``["bool"]``, ``["str"]``,
    ``["float"]`` (binary floats alone: ``float(X)``, measured values),
    ``["date"]`` (instants at midnight), ``["timestamp"]`` (other instants)
    or ``["mixed"]`` (canonical term text)."""
    from chronolog.language.timeline import format_number

    kind = ["empty"]
    for v in values:
        if v is None:
            continue
        t = type(v)
        if t is int:
            k = ["int", len(str(abs(v))), not INT64[0] <= v < INT64[1]]
        elif t is Boolean or t is bool:
            k = ["bool"]
        elif t is str:
            k = ["str"]
        elif t is float:
            k = ["float"]
        elif t is _dt.datetime:
            k = ["date"] if v.time() == _dt.time(0) else ["timestamp"]
        elif isinstance(v, Fraction):
            text = format_number(v)
            if "/" in text:
                k = ["rat"]
            else:
                whole, frac = text.lstrip("-").split(".")
                k = ["dec", len(whole), len(frac)]
        else:
            k = ["mixed"]
        kind = merge_kind(kind, k)
    return kind


def merge_kind(a, b) -> list:
    if a[0] == "empty":
        return b
    if b[0] == "empty":
        return a
    if a[0] == b[0] == "int":
        return ["int", max(a[1], b[1]), a[2] or b[2]]
    numeric = {"int", "dec", "rat"}
    if a[0] in numeric and b[0] in numeric:
        if "rat" in (a[0], b[0]):
            return ["rat"]
        ai, asc = (a[1], 0) if a[0] == "int" else (a[1], a[2])
        bi, bsc = (b[1], 0) if b[0] == "int" else (b[1], b[2])
        return ["dec", max(ai, bi), max(asc, bsc)]
    if a[0] == b[0] and a[0] in ("bool", "str", "float", "date", "timestamp"):
        return a
    if {a[0], b[0]} == {"date", "timestamp"}:
        return ["timestamp"]
    return ["mixed"]


# a Spark field's (and an Arrow field's) metadata key: "mixed" where the
# column holds canonical term text, "rat" where it holds exact numbers as text
KIND_KEY = "chronolog.kind"


def text_marker(kind):
    """``"mixed"`` or ``"rat"`` for a column of ``kind`` that
    :func:`typed_array` writes as text other than plain strings (term text
    of several kinds; exact numbers no decimal128 holds), None otherwise."""
    import pyarrow as pa

    if kind[0] in ("str", "empty", "date", "timestamp") or arrow_type(kind) != pa.string():
        return None
    return "mixed" if kind[0] == "mixed" else "rat"


def arrow_type(kind):
    import pyarrow as pa

    k = kind[0]
    if k in ("empty", "int"):
        if k == "int" and kind[2]:  # (an int64 of 19 digits stays int64, as embedded)
            return pa.decimal128(kind[1], 0) if kind[1] <= 38 else pa.string()
        return pa.int64()
    if k == "dec":
        precision = max(1, kind[1] + kind[2])
        return pa.decimal128(precision, kind[2]) if precision <= 38 else pa.string()
    if k == "bool":
        return pa.bool_()
    if k == "float":
        return pa.float64()
    if k == "date":
        return pa.date32()
    if k == "timestamp":
        return pa.timestamp("us")
    return pa.string()


def type_kind(typ):
    """The kind of the values an Arrow column of type ``typ`` holds (what
    :func:`value_kind` gives them: integers of up to 19 digits, a decimal's
    digits); None for a type that holds no terms (binary, nested)."""
    import pyarrow as pa

    if pa.types.is_integer(typ):
        return ["int", 19, pa.types.is_uint64(typ)]
    if pa.types.is_decimal(typ):
        return ["dec", typ.precision - typ.scale, typ.scale]
    if pa.types.is_string(typ) or pa.types.is_large_string(typ):
        return ["str"]
    if pa.types.is_boolean(typ):
        return ["bool"]
    if pa.types.is_floating(typ):
        return ["float"]
    if pa.types.is_date(typ):
        return ["date"]
    if pa.types.is_timestamp(typ):
        return ["timestamp"]
    if pa.types.is_null(typ):
        return ["empty"]
    return None


def typed_array(values, kind, typ):
    """Values as an Arrow array of the merged type ``typ`` (exact)."""
    import pyarrow as pa

    from chronolog.language.text import format_term_text
    from chronolog.language.timeline import format_number

    if pa.types.is_decimal(typ):
        q = Decimal(1).scaleb(-typ.scale)
        wide = Context(prec=38)  # (the default context's 28 digits fail on a 29-digit answer)
        return pa.array([None if v is None else wide.quantize(Decimal(format_number(v)), q) for v in values], type=typ)
    if pa.types.is_string(typ):
        if kind[0] in ("str",):
            return pa.array(values, type=typ)
        if kind[0] in ("mixed", "date", "timestamp"):  # (a float beside exact numbers: float(1.5), as engine/arrow.py)
            return pa.array([None if v is None else format_term_text(v) for v in values], type=typ)
        return pa.array([None if v is None else format_number(v) for v in values], type=typ)
    if pa.types.is_boolean(typ):  # #T/#F terms as Arrow booleans
        return pa.array([None if v is None else bool(v) for v in values], type=typ)
    if pa.types.is_date32(typ):
        return pa.array([None if v is None else v.date() for v in values], type=typ)
    return pa.array(values, type=typ)
