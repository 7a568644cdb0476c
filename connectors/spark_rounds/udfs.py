"""The engine's own built-ins as Python UDFs in the executors, for what
Spark SQL cannot compute as the engine does (functions.py): ``exp`` and
``log`` (Java's StrictMath and the C library Python calls differ in the
last bit), ``round`` of a float to digits (Spark rounds the float's
shortest text, the engine its binary value), ``exact`` of a float, a
float in ``concat`` (Java prints ``1.0E10``) and ``upper``/``lower`` of
strings beyond the letters whose mapping Spark shares with Python; and the
engine's product and set of a time segment's floats, and its sum and mean
where float_sums.py's exact SQL does not fit (aggregate.py, :class:`EngineFold`).

A UDF calls the row engine's compiled call (engine/rows/expressions.py,
over language/builtins.py), so its value is the engine's by construction.
The arguments come exactly as the engine holds them: a ``decimal(38, S)``
as the rational it is (``Fraction``, or ``int`` when whole), a ``bigint``
an ``int``, a ``double`` a float, a boolean ``#T``/``#F``.  The value goes
back in the column class the rounds expect (a float finite, ``-0.0`` as
``0.0``; an exact number in the run's number type), or the row stops the
run as :func:`arithmetic.stop_sql` does: the UDF raises an error carrying
:data:`arithmetic.MARKER`, which :func:`arithmetic.refused` finds in
Spark's exception; so does the engine's own error.  A NULL argument gives
NULL (a row the SQL computes with Spark's own function).

One UDF per function and result type, registered once per session under a
stable name (``chronolog_exp``, ``chronolog_exact_decimal_38_6``) and
called in the statements' SQL like a Spark function.  Spark evaluates it
in a projection of its own below the step that reads it (also below a
filter, or a join whose condition it is in), in Arrow batches; executors
need chronolog, as one task does.
"""

from __future__ import annotations

import math
import warnings
from datetime import date
from decimal import Decimal
from fractions import Fraction

from .arithmetic import MARKER, UDF_PREFIX


class RowStop(Exception):
    """A row whose value the rounds cannot keep: the run stops (arithmetic.refused)."""


def engine_value(v):
    """A value from Spark as the engine holds it (a DATE: the instant of its
    midnight, engine/term_types.py)."""
    from chronolog.engine.term_types import instant
    from chronolog.language.booleans import term
    from chronolog.language.timeline import normalize

    if type(v) is Decimal:
        return normalize(Fraction(v))
    if type(v) is date:
        return instant(v)
    return term(v)


class EngineCall:
    """The engine's ``name(...)`` on a row's values, given back as a
    ``result`` (``"double"``, ``"string"``, ``"bigint"``, ``"decimal(38,
    S)"``).  Pickled by reference to this module into the Python workers."""

    def __init__(self, name: str, result: str, scale=None):
        self.name, self.result, self.scale = name, result, scale
        self._calls: dict = {}  # arity -> the engine's compiled call (built in the worker)

    def engine_call(self, n: int):
        fn = self._calls.get(n)
        if fn is None:
            from chronolog.engine.rows.expressions import compile_expr
            from chronolog.language import ast

            e = ast.Call(self.name, [ast.Var(f"a{i}") for i in range(n)])
            fn = self._calls[n] = compile_expr(e, {f"a{i}": i for i in range(n)}, e)
        return fn

    def __call__(self, *xs):
        if any(x is None for x in xs):
            return None
        args = tuple(engine_value(x) for x in xs)
        try:
            v = self.engine_call(len(args))(args)
        except Exception as err:  # noqa: BLE001 - the engine's error: the run stops, one task reports it
            msg = getattr(err, "message", str(err)).split(" in '")[0]  # (the place it names is this call of a0, a1)
            raise RowStop(stop_text(f"{self.name}({shown(args)}): {msg}")) from None
        return self.back(v, args)

    def back(self, v, args):
        """The engine's value ``v`` in the result's column type, or the row stops."""
        why = f"{self.name}({shown(args)}) = {shown([v])}"
        if self.result == "string":
            return v
        if self.result == "double":
            if type(v) is not float or math.isinf(v):
                raise RowStop(stop_text(f"{why}: no finite float"))
            return v if v else 0.0  # -0.0: one fact with 0.0, as the engine's
        if not (type(v) is int or isinstance(v, Fraction)):
            raise RowStop(stop_text(f"{why}: no exact number"))  # pragma: no cover - exact() gives one
        if self.scale is None:
            if type(v) is int and -(2**63) <= v < 2**63:
                return v
            raise RowStop(stop_text(f"{why}: beyond 64-bit integers"))
        n = Fraction(v) * 10**self.scale
        if n.denominator != 1 or abs(n.numerator) >= 10**38:
            raise RowStop(stop_text(f"{why}: needs more digits than {self.result}"))
        return Decimal(f"{n.numerator}E-{self.scale}")  # exact (a context would round)


class EngineFold:
    """The engine's aggregate ``func`` (sum, avg, prod, munion) over one time
    segment's values, an array of floats: a float sum or product computed
    exactly and rounded once (whatever the order Spark collected them in), a
    set as its term text (Python prints ``1e10`` as ``10000000000.0``, Java as
    ``1.0E10``; a float member is ``float(1.5)``).  ``result``: ``"double"`` or ``"string"``."""

    def __init__(self, func: str, result: str):
        self.func, self.result = func, result

    def __call__(self, values):
        if values is None:
            return None
        from chronolog.engine.rows.aggregate import aggregate_value
        from chronolog.language.text import format_term_text

        args = [engine_value(x) for x in values]
        try:
            v = aggregate_value(self.func, args)
        except Exception as err:  # noqa: BLE001 - the engine's error: the run stops, one task reports it
            raise RowStop(stop_text(f"{self.func}({shown(args)}): {getattr(err, 'message', str(err))}")) from None
        if self.result == "string":  # (a set's floats as float(1.5), as Model.to_arrow writes them: they read back floats)
            return format_term_text(v)
        if v != v:  # (a product of an infinity and a zero: the engine reports it)
            raise RowStop(stop_text(f"{self.func}({shown(args)}) is not a number (NaN)"))
        return v if v else 0.0  # -0.0: one fact with 0.0, as the engine's


class KeyText:
    """Each term of a column as its key text (engine/term_types.key_text),
    which two cells share exactly when the engine finds their terms equal:
    the rounds' class of term text (classes.TEXT).  ``text``: the column
    holds term text, read as the engine reads it (engine/arrow.py); else
    typed values (an input column joined with term text), as the engine
    holds them.  A null, a NaN or a labelled null (whose scope is its
    table: language/nulls.py) gives null, a row the load refuses to one
    task (inputs.refuse_bad), as text that is no term stops the run.

    An Arrow UDF, once per input cell at the load (each batch's distinct
    texts parsed once); in the rounds only where a rule writes a float it
    computes into term text (terms.TermTypes.key_text_sql): after the
    load a column of term text is compared, joined and grouped as strings."""

    def __init__(self, text: bool):
        self.text = text

    def __call__(self, column):
        import pyarrow as pa

        from chronolog.engine.term_types import instant, key_text
        from chronolog.language.nulls import Null

        values = column.to_pylist()
        try:
            if self.text:
                from chronolog.engine.arrow import parse_term_texts

                terms = parse_term_texts(values, None)
            else:
                terms = [None if v is None else instant(v) if isinstance(v, date) else engine_value(v) for v in values]
        except Exception as err:  # noqa: BLE001 - the engine's error: the run stops, one task reports it
            raise RowStop(stop_text(f"a cell of term text: {getattr(err, 'message', str(err))}")) from None
        return pa.array([None if t is None or type(t) is Null or t != t else key_text(t) for t in terms], pa.string())


class TermKind:
    """Each cell of a column of term text (or of key text, which reads back
    as an equal term) as the kind of its term, JSON of
    engine/term_types.value_kind (``["dec", 1, 2]``, ``["str"]``, ...; a
    set, a labelled null or text that is no term ``["mixed"]``, a null
    cell null): what :func:`entry.decodable` merges per column to find
    whether its terms share one kind.  An Arrow UDF, one job at the load."""

    def __call__(self, column):
        import json

        import pyarrow as pa

        from chronolog.engine.arrow import parse_term_texts
        from chronolog.engine.term_types import value_kind

        values = column.to_pylist()
        out, seen = [], {}
        for v in values:
            if v not in seen:
                try:
                    (t,) = parse_term_texts([v], None)
                    seen[v] = None if t is None else json.dumps(value_kind([t]))
                except Exception:  # noqa: BLE001 - no term: the run's load of its key text reports it
                    seen[v] = json.dumps(["mixed"])
            out.append(seen[v])
        return pa.array(out, pa.string())


class Decoded:
    """Each cell of a column of term text (or of key text) whose terms share
    one kind (:class:`TermKind`) as text SQL casts to that kind's type
    exactly (inputs.encode): an exact number's decimal digits, a string
    itself, ``true``/``false``, a float's shortest text (``Infinity``), an
    instant's ISO date or UTC wall clock."""

    def __call__(self, column):
        import pyarrow as pa

        from chronolog.engine.arrow import parse_term_texts
        from chronolog.language.booleans import Boolean
        from chronolog.language.timeline import format_number

        def text(t):
            if t is None:
                return None
            if type(t) is Boolean or type(t) is bool:
                return "true" if t else "false"
            if type(t) is float:
                return repr(t) if math.isfinite(t) else ("Infinity" if t > 0 else "-Infinity" if t < 0 else None)
            if isinstance(t, (int, Fraction)):
                return format_number(t)
            if hasattr(t, "isoformat"):
                return t.isoformat(sep=" ")
            return t if type(t) is str else None

        try:
            terms = parse_term_texts(column.to_pylist(), None)
        except Exception as err:  # noqa: BLE001 - the engine's error: the run stops, one task reports it
            raise RowStop(stop_text(f"a cell of term text: {getattr(err, 'message', str(err))}")) from None
        return pa.array([text(t) for t in terms], pa.string())


def key_text_sql(spark, x: str, text: bool) -> str:
    """SQL: the key text of each term of the column SQL ``x`` (:class:`KeyText`)."""
    return text_udf_sql(spark, f"key_text{'' if text else '_typed'}", KeyText(text), x)


def text_udf_sql(spark, name: str, fn, x: str) -> str:
    """SQL: the Arrow UDF ``fn`` (a column to strings) of the column SQL
    ``x``, registered once per session as ``chronolog_<name>``."""
    from pyspark.sql import types as T

    return f"{_register(spark, f'{UDF_PREFIX}{name}', fn, T.StringType(), column=True)}({x})"


def shown(values) -> str:
    """Values as the engine prints them."""
    from chronolog.language.text import format_term

    return ", ".join(format_term(v) for v in values)


def stop_text(why: str) -> str:
    """The error text :func:`arithmetic.refused` reads back (one line)."""
    return MARKER + " ".join(why.split())


def registered(spark, name: str, num_type=None, result: str = "double") -> str:
    """The SQL name of the UDF of the engine's ``name`` with a ``result``
    of class ``"double"``, ``"string"`` or ``"num"`` (the run's
    ``num_type``), registered in ``spark`` on first use."""
    from pyspark.sql import types as T

    typ = num_type if result == "num" else T.DoubleType() if result == "double" else T.StringType()
    scale = typ.scale if isinstance(typ, T.DecimalType) else None
    text = typ.simpleString()
    return _register(spark, f"{UDF_PREFIX}{name}_{text}", EngineCall(name, text, scale), typ)


def fold_sql(spark, func: str, values: str, result: str) -> str:
    """SQL: the engine's aggregate ``func`` of the array of floats SQL
    ``values`` (:class:`EngineFold`), a ``"double"`` or a ``"string"``."""
    from pyspark.sql import types as T

    typ = T.DoubleType() if result == "double" else T.StringType()
    return f"{_register(spark, f'{UDF_PREFIX}fold_{func}_{result}', EngineFold(func, result), typ)}({values})"


def _register(spark, sql_name: str, fn, typ, column: bool = False) -> str:
    """``sql_name`` (but letters and digits made ``_``: ``decimal(38, 6)``),
    registered in ``spark`` on first use as the UDF of ``fn`` (of result type
    ``typ``), in Arrow batches: row by row, or ``column`` by column (an Arrow UDF)."""
    from pyspark.sql.functions import arrow_udf, udf

    sql_name = "".join(c if c.isalnum() else "_" for c in sql_name)
    done = spark.__dict__.setdefault("_chronolog_udfs", set())
    if sql_name not in done:
        with warnings.catch_warnings():  # pyspark's notice on the pandas version, once per UDF
            warnings.simplefilter("ignore", FutureWarning)
            spark.udf.register(sql_name, arrow_udf(fn, typ) if column else udf(fn, typ, useArrow=True))
        done.add(sql_name)
    return sql_name
