"""Arithmetic in conditions and assignments (``Z = X + Y``, ``X * 2 > Y``)
as Spark SQL that is exact or refuses.

The engine computes on unbounded integers and exact rationals.  Here every
value of an expression is in the run's number type (terms.py): ``bigint``,
or ``decimal(38, S)``.  Each operation is written so that Spark cannot
round or wrap it, and a row where the exact value does not fit stops the
run (``raise_error``), which then goes whole to one task
(:class:`NotRelational`, see :func:`refused`) -- as a bad input row does:

* ``bigint``: ``try_add``, ``try_subtract``, ``try_multiply`` (null on
  overflow, whatever the session's ANSI mode); ``/`` only when the
  quotient is whole (the engine's ``7 / 2`` is the rational 7/2);
* ``decimal(38, S)``: ``+``/``-`` of operands cast to ``decimal(37, S)``
  (Spark's result, ``decimal(38, S)``, is then exact: with both operands
  at 38 digits it drops a digit of scale when S > 6), ``*`` of operands
  cast to ``decimal(19, S)`` and ``decimal(18, S)`` (an exact ``decimal(38,
  2S)``) cast back to scale S only when no digit is lost; ``/`` when the
  quotient times the divisor gives the dividend back exactly;
* ``abs``, ``min``, ``max``, ``floor``, ``ceil``, ``mod`` (the sign of
  the divisor, as Python's ``%``) and ``round`` to a constant number of
  digits (half to even: ``bround``) likewise; string functions and
  floats computed in the rule are functions.py's, and arithmetic on
  booleans is refused.

An assignment's value is also kept by a filter (``IS NOT NULL``), so that
Spark cannot prune a column nothing reads and skip the row's check where
the engine would report the row.

Each checked operation reads its operands up to four times (the value,
and the tests that stop the row); a compound operand is written once, as
the argument of a lambda the operation reads (:class:`Bound`), so an
expression's SQL grows linearly with its nesting (written in place it
multiplied by 3-4 a level: ``substr("abc", A * 0.5)`` made a statement of
67,674 characters that Spark parsed and analysed in 12 s).  Spark's
optimizer still puts an assignment's value into every filter and
projection that reads its column, once per reference: six float
squarings chained through assignments planned for minutes.  An
expression whose SQL would exceed :data:`LARGEST_SQL` characters once so
inlined is refused (one task runs the program) before Spark sees it.
"""

from __future__ import annotations

import re

from chronolog.engine import int_arithmetic
from chronolog.engine import string_functions as sf
from chronolog.engine.exprs import MORE_DECIMALS, NOT_WHOLE, PAST_64_BITS, col, exact, to_sql
from chronolog.engine.int_arithmetic import NotInteger
from chronolog.language import ast, builtins
from chronolog.planner.backend_choice import round_digits  # (what plan time refuses: backend_choice.expression_refusal)

from .classes import FLOAT, NUM, STR, TEXT, rational, value_class
from .fragment import NotRelational
from .sql import Stmt, hex_string, raised

LARGEST_SQL = 100_000  # characters once inlined: two chained float squarings (40,000) plan in seconds; literal SQL of ~600,000 ran the driver's parser out of memory
UDF_PREFIX = "chronolog_"  # of the SQL name of every UDF udfs.py registers (Bound.wrap finds them by it)
MARKER = "chronolog rounds refused a row: "  # the text of raise_error, found again in Spark's exception
FUNCTIONS = {"abs": 1, "min": None, "max": None, "floor": 1, "ceil": 1, "mod": 2, "round": None}  # exact, here


WHOLE = ("floor", "ceil")  # of term text: exact on its pair (fractions.py), as round(X); abs and round(X, D) stay term text
CHOICES = ("min", "max", "mod")  # of exact numbers, one at least term text: on their pairs, term text


def on_text(e, env: dict) -> bool:
    """Whether ``e`` is ``floor``, ``ceil``, ``abs`` or ``round`` (to a
    constant number of digits) of term text, or ``min``, ``max`` or
    ``mod`` of exact numbers one of which at least is term text, computed
    exactly on their pairs (fractions.py)."""
    if not isinstance(e, ast.Call):
        return False
    if e.name in CHOICES:
        args = [expr_class(a, env) for a in e.args]
        return TEXT in args and set(args) <= {NUM, TEXT} and (e.name != "mod" or len(args) == 2)
    return (e.name in WHOLE + ("abs", "round") and expr_class(e.args[0], env) == TEXT
            and (e.name != "round" or round_digits(e) is not None))


class Quotient(ast.BinOp):
    """``X / Y`` of exact numbers computed exactly as term text, the key
    text of the quotient (fractions.py), where the run's number type need
    not hold it: in an aggregated expression (aggregate.exact_quotients),
    whose sum, mean, product, least or greatest the engine gives as an
    exact rational (``sum(X / 3)`` of 1 and 1 is 2/3)."""


def quotients(e):
    """``e`` with each of its divisions a :class:`Quotient`."""
    if isinstance(e, ast.BinOp):
        return (Quotient if e.op == "/" else ast.BinOp)(e.op, quotients(e.left), quotients(e.right))
    if isinstance(e, ast.Call):
        return ast.Call(e.name, tuple(map(quotients, e.args)))
    return e


def expr_class(e, env: dict):
    """The class of an expression's values: a plain variable's or constant's
    own, a call's or an operator's from its arguments'
    (language/builtins.result_class, the columns' too; None: not known
    yet; a combination the engine rejects gets a class, functions.py
    refuses it)."""
    if isinstance(e, ast.Var):
        return env.get(e.name)
    if isinstance(e, ast.Const):
        return TEXT if rational(e.value) else value_class(e.value)
    if isinstance(e, ast.BinOp):
        args = [expr_class(a, env) for a in (e.left, e.right)]
        if (TEXT in args or isinstance(e, Quotient)) and set(args) <= {NUM, TEXT}:  # exact, as term text (fractions.py)
            return TEXT
        return builtins.result_class(e.op, args)
    if on_text(e, env):  # (a whole number is one of the run's: the engine's int)
        return NUM if e.name in WHOLE or (e.name == "round" and len(e.args) == 1) else TEXT
    return builtins.result_class(e.name, [expr_class(a, env) for a in e.args])


def python_sign(r: str, y: str, fix: str) -> str:
    """The remainder ``r`` (SQL's, with the dividend's sign) given the
    divisor ``y``'s sign as Python's ``%``: ``fix`` (``r + y``) where they
    differ; ``|r| < |y|``, so no overflow."""
    return f"(CASE WHEN {r} <> 0 AND ({r} < 0) <> ({y} < 0) THEN {fix} ELSE {r} END)"


def stop_sql(why: str, kind: str | None = None) -> str:
    """SQL that stops the run from a row check (arithmetic, aggregation,
    interval terms): an error carrying :data:`MARKER`, ``kind`` and
    ``why``, which :func:`refused` turns into a :class:`NotRelational`
    (the rounds run again in numbers of that kind, engine/exprs.py, or
    with the engine's float sums, float_sums.UNFIT; on none, one task)."""
    return f"raise_error({hex_string(MARKER + (f'<{kind}> ' if kind else '') + why)})"


def unscaled(x: str, scale: int) -> str:
    """``x·10^scale`` of the SQL ``x`` (the run's ``decimal(38, scale)``) as a
    ``decimal(38, 0)``: its digits, read from its text without the point (a
    product would round past 38 digits)."""
    if scale == 0:
        return f"CAST({x} AS DECIMAL(38, 0))"
    return f"CAST(replace(CAST({x} AS STRING), '.', '') AS DECIMAL(38, 0))"


def scaled(digits: str, scale: int, typ: str) -> str:
    """``digits·10^-scale`` (``digits`` whole) as the decimal type ``typ``,
    exactly: the text ``digitsE-scale`` cast (a division would round)."""
    return f"CAST(concat(CAST({digits} AS STRING), 'E-{scale}') AS {typ})"


def negated(x: str, scale: int = 0) -> str:
    """SQL: ``-x`` of the ``decimal(38, scale)`` ``x``, exactly.  Spark's
    unary minus and ``abs`` of a decimal of more than 34 digits round it
    to 34 (Spark's Decimal negates in Scala's default MathContext,
    DECIMAL128): ``-125478394663591287307151166784143360`` came out
    ``...143400``, and a float sum's segments summed to -40 for 0.
    ``0 - x`` is exact and keeps ``decimal(38, S)`` up to ``S`` = 6
    (beyond, Spark's result type drops a decimal): there the digits are
    negated whole and the point put back."""
    if scale <= 6:
        return f"(0 - {x})"
    return scaled(f"(0 - {unscaled(x, scale)})", scale, f"DECIMAL(38, {scale})")


def magnitude(x: str, scale: int = 0) -> str:
    """SQL: ``abs(x)`` of the ``decimal(38, scale)`` ``x``, exactly (see :func:`negated`)."""
    return f"CASE WHEN {x} < 0 THEN {negated(x, scale)} ELSE {x} END"


MARKED = "a row computed in Spark: "  # (what a row check's refusal starts with)


def refused(e):
    """The :class:`NotRelational` of a Spark exception raised by a row
    check of this module (None: another exception), its ``kind`` that
    of the check (:func:`stop_sql`)."""
    why = raised(e, MARKER)
    if why is None:
        return None
    kind = re.match(r"<([^<>]+)> ", why)
    return NotRelational(f"{MARKED}{why[kind.end():] if kind else why}", kind=kind and kind.group(1))


class Arithmetic:
    """SQL of expressions in the run's number type (``types``: terms.py);
    ``spark``: the session where the engine's functions are registered as
    UDFs (udfs.py)."""

    def __init__(self, types, spark):
        from pyspark.sql import types as T

        self.types = types
        self.spark = spark
        num = types.num_type
        self.scale = None if isinstance(num, T.LongType) else num.scale
        self.num = num.simpleString()
        from .functions import Functions

        self.functions = Functions(self)  # strings and floats
        self.past_64_bits = PAST_64_BITS if self.scale is None else None  # (a value past the run's numbers: wider ones hold it)

    def tree(self, x) -> str:
        """The SQL of the engine/exprs.py tree ``x`` (a lowering shared with
        the columns: int_arithmetic, float_arithmetic, string_functions) in
        the run's constants, a refused row stopping the run, the engine's
        own function in a UDF where Spark's differs (functions.Functions.engine)."""
        return to_sql(x, self.types.const, stop_sql, self.functions.engine)

    def checked(self, value: str, bad: str, why: str, kind: str | None = None) -> str:
        """``value`` unless ``bad`` (SQL) holds for the row, when the run stops."""
        return f"(CASE WHEN {bad} THEN {stop_sql(why, kind)} ELSE {value} END)"

    def present(self, value: str, why: str, kind: str | None = None) -> str:
        """``value`` unless it is null, when the run stops: ``value`` written
        once (``coalesce`` evaluates the stop only on a null), so a chain of
        operations grows linearly, not twice per level."""
        return f"coalesce({value}, {stop_sql(why, kind)})"

    def fits(self, x: str, precision: int, why: str) -> str:
        """``x`` as ``decimal(precision, S)``, or the run stops."""
        c = f"try_cast({x} AS decimal({precision}, {self.scale}))"
        return self.present(c, why)

    def sql(self, e, varcols: dict, varcls: dict, rule) -> tuple:
        """``(SQL, class)`` of the expression ``e``, refused as it grows
        beyond :data:`LARGEST_SQL` (before it grows by another level)."""
        value, c = self._sql(e, varcols, varcls, rule)
        if len(value) > LARGEST_SQL:
            raise too_large(len(value), e, rule)
        return value, c

    def _sql(self, e, varcols: dict, varcls: dict, rule) -> tuple:
        if isinstance(e, ast.Var):
            return varcols[e.name], varcls.get(e.name)
        if isinstance(e, ast.Const):
            if rational(e.value):  # (1/3: no decimal, its key text)
                return self.types.const(e.value, TEXT), TEXT
            return self.types.const(e.value), value_class(e.value)
        if on_text(e, varcls):
            if expr_class(e, varcls) == NUM:
                return self.whole(e, varcols, varcls, rule), NUM
            return self.fraction(e, varcols, varcls, rule), TEXT
        if isinstance(e, ast.BinOp) and expr_class(e, varcls) == TEXT:
            return self.fraction(e, varcols, varcls, rule), TEXT
        bound = Bound()
        operands: dict = {}  # each operand's (SQL, class), computed once
        # an exact operand of term text where the result is a float: its
        # value rounded once (not min/max/mod, which keep an operand's kind,
        # nor sqrt, exact on an exact square)
        beside_float = expr_class(e, varcls) == FLOAT and not (isinstance(e, ast.Call) and e.name in (*CHOICES, "sqrt"))

        def operand(x):
            if id(x) not in operands:
                sql, c = self.sql(x, varcols, varcls, rule)
                plain = isinstance(x, (ast.Var, ast.Const)) and c != TEXT
                if c == TEXT:  # (a cell of term text is any term: classes.TEXT)
                    if getattr(self.types, "text_floats", True):
                        raise NotRelational(f"{e}: arithmetic or a function on term text that may hold floats "
                                            "(a float's key text may be an exact number's)", rule)
                    if beside_float:  # (float(M), M * F of a float F, exp(M): Python makes the fraction a float first)
                        from .fractions import float_sql

                        sql, c = float_sql(self.pair(x, e, varcols, varcls, rule), str(e)), FLOAT
                    elif isinstance(e, ast.Call) and e.name == "concat":  # (any term: its text, 1/3 too)
                        from .text_order import concat_text_sql

                        sql, c = concat_text_sql(sql, str(e)), STR
                    else:
                        from .text_order import number_sql

                        sql, c = number_sql(sql, self.types, str(e)), NUM  # an exact number of the run's, or the run stops
                operands[id(x)] = (sql if plain else bound.name(sql), c)
            return operands[id(x)]

        if self.scale is None and not (isinstance(e, ast.Call) and e.name == "round"):
            try:  # 64-bit integers: the lowering shared with the columns
                return bound.wrap(self.integers(e, lambda x: _number(x, operand(x)))), NUM
            except NotInteger:
                pass
        if isinstance(e, ast.BinOp):
            args = [operand(x) for x in (e.left, e.right)]
        else:  # (round's digits are a constant: round_digits)
            args = [operand(x) for x in e.args[:1 if e.name == "round" else None]]
        text = str(e)
        if any(c != NUM for _, c in args) or (isinstance(e, ast.Call) and e.name not in FUNCTIONS):
            value, c = self.functions.call(e, args, text, rule)  # strings, floats (functions.py)
            return bound.wrap(value), c
        xs = [a for a, _ in args]
        if isinstance(e, ast.BinOp):
            return bound.wrap(self.binop(e.op, xs[0], xs[1], text)), NUM
        if e.name == "round":
            return bound.wrap(self.round(xs[0], round_digits(e), text)), NUM
        return bound.wrap(self.call(e.name, xs, text)), NUM

    def fraction(self, e, varcols: dict, varcls: dict, rule) -> str:
        """The key text of ``e``, arithmetic (``+ - * /``), ``abs``,
        ``round(X, D)``, ``min``, ``max`` or ``mod`` on exact numbers of
        which one at least is term text
        (a mean, ``1/3``): exact, on pairs ``(n, d)`` (fractions.py),
        written as key text once at the end; the run stops past 38 digits."""
        from .fractions import text_sql

        return text_sql(self.pair(e, e, varcols, varcls, rule))

    def whole(self, e, varcols: dict, varcls: dict, rule) -> str:
        """``floor``, ``ceil`` or ``round`` of term text (:func:`on_text`):
        the engine's whole number, exact on the argument's pair, in the
        run's number type or the run stops."""
        from .fractions import whole_sql

        n = whole_sql(e.name, self.pair(e.args[0], e, varcols, varcls, rule), str(e))
        return self.present(f"try_cast({n} AS {self.num})", f"{e} needs more digits than {self.num}", self.past_64_bits)

    def pair(self, x, e, varcols: dict, varcls: dict, rule) -> str:
        """The pair ``(n, d)`` of the exact number ``x`` within ``e``
        (fractions.py).  An operand of term text read from a column must
        hold no float (its text may be an exact number's)."""
        from .fractions import constant_parts, extreme_sql, function_sql, mod_sql, number_parts, operation_sql
        from .text_order import decoded, typed

        if isinstance(x, ast.Const):
            return constant_parts(x.value)
        if expr_class(x, varcls) == TEXT and isinstance(x, ast.BinOp):
            return operation_sql(x.op, *(self.pair(y, e, varcols, varcls, rule) for y in (x.left, x.right)), str(x))
        if expr_class(x, varcls) == TEXT and on_text(x, varcls) and x.name in CHOICES:
            pairs = [self.pair(y, e, varcols, varcls, rule) for y in x.args]
            return mod_sql(*pairs, str(x)) if x.name == "mod" else extreme_sql(x.name, pairs, str(x))
        if expr_class(x, varcls) == TEXT and on_text(x, varcls):
            return function_sql(x.name, self.pair(x.args[0], e, varcols, varcls, rule), round_digits(x), str(x))
        sql, c = self.sql(x, varcols, varcls, rule)
        if c == TEXT and getattr(self.types, "text_floats", True):
            raise NotRelational(f"{e}: arithmetic or a function on term text that may hold floats "
                                "(a float's key text may be an exact number's)", rule)
        return number_parts(decoded(sql, numbers_only=True) if c == TEXT else typed(sql, c, self.types), str(e))

    def integers(self, e, sub) -> str:
        """The SQL of ``e`` on 64-bit integers (engine/int_arithmetic.py, the
        lowering shared with the columns), ``sub(x)`` each operand's Expr."""
        return self.tree(int_arithmetic.node(e, sub, whole=True))

    def binop(self, op: str, a: str, b: str, text: str) -> str:
        if self.scale is None:  # bigint
            return self.tree(exact(op, col(a), col(b), f"{text} overflows 64-bit integers"))
        s = self.scale
        big = f"{text} needs more digits than decimal(38, {s})"
        if op in ("+", "-"):
            return f"CAST({self.fits(a, 37, big)} {op} {self.fits(b, 37, big)} AS {self.num})"
        if op == "*":
            return self.times(a, b, text)
        q = f"CAST(try_divide({a}, {b}) AS {self.num})"
        q = self.present(q, f"{text} divides by zero or needs more digits than decimal(38, {s})")
        back = self.times(q, b, text, NOT_WHOLE)  # (the quotient's decimals, not a product's)
        return self.checked(q, f"{back} <> {a}", f"{text} has more than {s} decimals", NOT_WHOLE)

    def times(self, a: str, b: str, text: str, kind: str = MORE_DECIMALS) -> str:
        s = self.scale
        if s > 17:
            raise NotRelational(f"a product of decimals with {s} digits after the point ({text})")
        big = f"{text} needs more digits than decimal(38, {s})"
        if s == 0:  # (whole numbers: Spark's product of two decimal(38, 0) is exact where it fits 38 digits)
            return self.present(f"try_multiply(CAST({a} AS {self.num}), CAST({b} AS {self.num}))", big)
        wide = f"({self.fits(a, 19, big)} * {self.fits(b, 18, big)})"  # decimal(38, 2S): exact
        r = f"try_cast({wide} AS {self.num})"
        lost = f"CAST({r} AS decimal(38, {2 * s})) <> {wide}"
        return self.checked(self.present(r, big), lost, f"{text} has more than {s} decimals", kind)

    def call(self, name: str, xs: list, text: str) -> str:
        num = self.num
        if name in ("min", "max"):
            return self.tree(sf.extreme(name, [col(x) for x in xs]))
        x = xs[0]  # (decimals: 64-bit integers take the shared lowering, integers())
        if name == "abs":
            return magnitude(x, self.scale or 0)
        if name in ("floor", "ceil"):
            r = f"try_cast({name}({x}) AS {num})"
            return self.present(r, f"{text} needs more digits than {num}")
        y = xs[1]  # mod: the remainder with the divisor's sign (Python's %)
        r = self.checked(f"try_mod({x}, {y})", f"{y} = 0", f"{text} by zero")
        return python_sign(r, y, f"CAST({self.fits(r, 37, text)} + {self.fits(y, 37, text)} AS {num})")

    def round(self, x: str, d: int, text: str) -> str:
        """``round(x, d)``, half to even as Python's exact rounding:
        Spark's ``bround`` on a decimal with room for the carry (9.5 gives
        10), cast back when it fits."""
        if self.scale is None:
            if d >= 0:
                return x  # a whole number has no digits after the point
            r = f"try_cast(bround(CAST({x} AS decimal(20, 0)), {d}) AS bigint)"
            return self.present(r, f"{text} overflows 64-bit integers", PAST_64_BITS)
        if d >= self.scale:
            return x
        r = f"try_cast(bround({self.fits(x, 37, text)}, {d}) AS {self.num})"
        return self.present(r, f"{text} needs more digits than {self.num}")

    def assign(self, q: Stmt, src: str, lit, varcols: dict, varcls: dict, rule) -> str:
        """``src`` with the assignment's variable (not bound yet) as a column."""
        col = varcols.setdefault(lit.var, f"v{len(varcols)}")
        value, c = self.sql(lit.expr, varcols, varcls, rule)
        varcls[lit.var] = c
        if c is not None:
            value = f"CAST({value} AS {self.types.sql_type(c)})"
        q.sizes[col] = inlined_size(q, value, lit.expr, rule)
        # a filter that reads the value: Spark keeps (and checks) it even when nothing else does
        return q.add(f"SELECT * FROM (SELECT *, {value} AS {col} FROM {src}) AS a WHERE {col} IS NOT NULL",
                     q.cols[src] + [col])


class Bound:
    """The operands of one operation, each written once: a checked
    operation reads an operand up to four times (its value and the tests
    that stop the row), so written in place an expression's SQL would
    multiply with every level of nesting.  Each operand that is not a
    column or a constant is the argument of a lambda (``transform`` of a
    one-element array, its fields ``_o._0``, ``_o._1``, ...), which Spark's
    optimizer does not inline back; the operation reads the lambda's
    variable.  A Python UDF cannot read a lambda's variable: an operation
    that calls one (udfs.py) has its operands written in place."""

    def __init__(self):
        self.sqls: list = []

    def name(self, sql: str) -> str:
        self.sqls.append(sql)
        return f"_o._{len(self.sqls) - 1}"

    def wrap(self, body: str) -> str:
        """``body`` (of the names) as SQL of the operands."""
        used = [i for i in range(len(self.sqls)) if re.search(rf"\b_o\._{i}\b", body)]
        if not used:
            return body
        if UDF_PREFIX in body:  # written in place
            return re.sub(r"\b_o\._(\d+)\b", lambda m: self.sqls[int(m.group(1))], body)
        fields = ", ".join(f"'_{i}', {self.sqls[i]}" for i in used)
        return f"transform(array(named_struct({fields})), _o -> {body})[0]"


def _number(x, operand: tuple):
    """An operand ``(SQL, class)`` as an Expr of the shared lowering, when it is a number."""
    sql, c = operand
    if c != NUM:
        raise NotInteger(f"{x}")
    return col(sql)


def too_large(n: int, e, rule) -> NotRelational:
    return NotRelational(f"an expression whose Spark SQL grows to {n:,} characters ({e}, with the assigned "
                         f"values it reads in place): split it into fewer nested operations", rule)


def inlined_size(q: Stmt, sql: str, e, rule) -> int:
    """The length of ``sql`` once Spark has put the value of every column an
    assignment of this statement made in place of each reference to it
    (``q.sizes``); refused beyond :data:`LARGEST_SQL`."""
    n = len(sql)
    for name, size in q.sizes.items():
        n += len(re.findall(rf"\b{name}\b", sql)) * (size - len(name))
    if n > LARGEST_SQL:
        raise too_large(n, e, rule)
    return n
