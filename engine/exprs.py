"""One lowering of column expressions, emitted as Polars expressions or
numpy calls (the columnar executor) or as Spark SQL text (the Spark rounds).

An operator's meaning on columns -- a temporal shift of interval codes,
checked integer arithmetic, a comparison -- is written once as a small
tree of :class:`Expr`; :func:`to_polars`, :func:`to_numpy` and
:func:`to_sql` turn it into each backend's expression.  A :func:`checked`
value carries the test that refuses a row (an overflow, a division by
zero): on the columns a true one raises ``Fallback`` (the stratum runs on
rows), in Spark the row stops the run (``raise_error``).  Its ``kind`` says
what would hold the value (:data:`PAST_64_BITS`, :data:`NOT_WHOLE`,
:data:`MORE_DECIMALS`): the rounds run again in such numbers, and on no
kind (a division by zero) one task gives the engine's answer or error.
A :func:`window` reads the rows of a partition in order (a running
maximum, lag, lead): numpy kernels over sorted arrays, SQL window
functions; coalescing.py and interval_difference.py are written with them.
A :class:`Frame` is a relation made from the caller's rows (events of
each row, a GROUP BY, columns, a filter): numpy arrays or SQL steps;
segments.py, an aggregation's time segments, is written with them.
The string nodes (``strlen``, ``slice``, ``case``, ``concat``, a term's
text) are string_functions.py's: Polars' string kernels (numpy has none
for UTF-8) and Spark's string functions.

Our own interface rather than narwhals or Ibis: both emit the same Polars
expressions and Spark plans, but PySpark Column objects cost py4j round
trips per call (the rounds write SQL text for that reason: spark_rounds/
sql.py), narwhals has no ``raise_error`` or try-arithmetic, and the tree
below is about a hundred lines (docs/design.md, "One lowering for both
backends", has the figures).
"""

from __future__ import annotations

import math

from chronolog.language.records import record

# the binary operators and their SQL spelling ("//" and "%": floored, as
# Python's, on both backends; ">>1": the arithmetic shift by one bit)
_SQL_OPS = {"+": "+", "-": "-", "*": "*", "&": "&", "|": "|", "==": "=", "!=": "<>",
            "<": "<", "<=": "<=", ">": ">", ">=": ">=", "and": "AND", "or": "OR"}


@record(frozen=True)
class Expr:
    """A node: ``op`` over ``args`` (a column's name or a literal for the
    leaves ``col``/``lit``)."""

    op: str
    args: tuple

    def _bin(self, op, other):
        return Expr(op, (self, wrap(other)))

    def __neg__(self):
        return Expr("neg", (self,))

    def __add__(self, o):
        return self._bin("+", o)

    def __sub__(self, o):
        return self._bin("-", o)

    def __mul__(self, o):
        return self._bin("*", o)

    def __and__(self, o):
        return self._bin("&", o)

    def __or__(self, o):
        return self._bin("|", o)

    def eq(self, o):
        return self._bin("==", o)

    def ne(self, o):
        return self._bin("!=", o)

    def lt(self, o):
        return self._bin("<", o)

    def le(self, o):
        return self._bin("<=", o)

    def ge(self, o):
        return self._bin(">=", o)

    def both(self, o):
        """Boolean and."""
        return self._bin("and", o)

    def either(self, o):
        """Boolean or."""
        return self._bin("or", o)

    def compare(self, op: str, o):
        """``self op o`` for a comparison written ``==``, ``<`` ... (the language's)."""
        return self._bin(op, o)

    def half(self):
        """``floor(self / 2)``: an interval code's time in grid units."""
        return Expr(">>1", (self,))


def col(name: str) -> Expr:
    return Expr("col", (name,))


def lit(v) -> Expr:
    return Expr("lit", (v,))


def wrap(x) -> Expr:
    return x if isinstance(x, Expr) else lit(x)


def when(cond: Expr, then, otherwise) -> Expr:
    return Expr("when", (cond, wrap(then), wrap(otherwise)))


def call(name: str, *args) -> Expr:
    """A function of both backends: ``abs``, ``least``, ``greatest``,
    ``floordiv`` and ``mod`` (floored: Python's ``//``, ``%``), of floats
    (numpy and SQL) ``divide``, ``floor``, ``ceil``, ``rint`` (half to
    even), ``sqrt``, ``not_finite``, ``to_int`` and ``to_float``,
    ``month_index`` (of a day since 1970: ``year * 12 + month - 1``, the
    proleptic Gregorian calendar of both) and ``month_start`` (the day
    since 1970 a month index starts)."""
    return Expr(name, tuple(wrap(a) for a in args))


# why a checked value has no result in the run's numbers, where wider
# numbers would hold it (spark_rounds/entry.py runs the rounds again in them)
PAST_64_BITS = "past 64 bits"  # decimal(38, 0) holds it
NOT_WHOLE = "not whole"  # a quotient with no finite decimal in the run's: exact term text holds it
MORE_DECIMALS = "more decimals"  # a product of the run's decimals: twice as many hold it


def exact(op: str, a, b, why: str) -> Expr:
    """``a op b`` (``+ - *``) of 64-bit integers, refused where the exact
    result may not fit: on Polars where the operands' largest magnitudes
    could reach :data:`POLARS_BOUND` (the ints the columns' Values hold;
    ``max|a| + max|b|``, ``max|a| * max|b|`` in floats, far below 2^63, so the
    int64 result never wraps), in Spark beyond 64 bits per row
    (``try_add``/``try_subtract``/``try_multiply``: null)."""
    return Expr("exact", (op, wrap(a), wrap(b), why))


POLARS_BOUND = 2**62
_NEAR_BOUND = float(POLARS_BOUND) * (1 - 2**-50)  # (three roundings to float stay inside 2^-50 of the value)
_TRY = {"+": "try_add", "-": "try_subtract", "*": "try_multiply"}


def checked(value: Expr, bad: Expr, why: str, kind: str | None = None) -> Expr:
    """``value``, refused on a row where ``bad`` holds (see the module);
    ``kind``: what numbers would hold it (None: none, an error)."""
    return Expr("check", (value, bad, why, kind))


def window(func: str, x, partition, order, default=None) -> Expr:
    """An ordered window over each partition (rows of equal ``partition``
    columns) in the order of the columns ``order``: ``max_before`` (the
    running maximum of ``x`` over the rows before this one), ``sum_through``
    (the running sum through this one), ``lag`` and ``lead`` (``x`` of the
    row before, after); ``default`` where there is none (a partition's
    first row; else null in SQL, and on numpy, which has no null, a value
    to be read only under a test that is false there).
    On numpy the rows come sorted by ``partition`` then ``order`` (the
    caller sorts: one sort serves every window of a step)."""
    return Expr("window", (func, wrap(x), tuple(partition), tuple(order), None if default is None else wrap(default)))


# ------------------------------------------------------------------ Polars


def to_polars(e: Expr, checks: list):
    """The Polars expression of ``e``; each check's ``(bad, why)`` appended
    to ``checks`` (:func:`with_values` evaluates them)."""
    import polars as pl

    op, a = e.op, e.args
    if op == "col":
        return pl.col(a[0])
    if op == "lit":
        return pl.lit(a[0], dtype=pl.Int64) if type(a[0]) is int else pl.lit(a[0])
    if op == "check":
        checks.append((to_polars(a[1], checks), a[2]))
        return to_polars(a[0], checks)
    if op == "window":  # (its callers sort in numpy and emit there: to_numpy)
        raise NotImplementedError("an ordered window on Polars")
    if op == "exact":  # refused by the operands' largest magnitudes (one reduction each, as numpy did)
        x, y = (to_polars(v, checks) for v in a[1:3])
        mx, my = (v.abs().max().cast(pl.Float64) for v in (x, y))
        checks.append(((mx * my if a[0] == "*" else mx + my) >= _NEAR_BOUND, a[3]))
        return {"+": x + y, "-": x - y, "*": x * y}[a[0]]
    if op == "case":  # (its name and safe pattern are no operands)
        return _case_polars(to_polars(a[0], checks), a[1], a[2])
    xs = [to_polars(x, checks) for x in a]
    if op == "when":
        return pl.when(xs[0]).then(xs[1]).otherwise(xs[2])
    if op == "strlen":
        return xs[0].str.len_chars().cast(pl.Int64)
    if op == "slice":  # (0 <= a <= len; b - a may be negative: an empty cut)
        return xs[0].str.slice(xs[1], pl.max_horizontal(xs[2] - xs[1], 0))
    if op == "concat":
        return pl.concat_str(xs)
    if op == "int_text":
        return xs[0].cast(pl.String)
    if op == ">>1":
        return xs[0] // 2
    if op == "neg":
        return -xs[0]
    if op == "floordiv":
        return xs[0] // xs[1]
    if op == "mod":
        return xs[0] % xs[1]
    if op == "abs":
        return xs[0].abs()
    if op in ("least", "greatest"):
        return (pl.min_horizontal if op == "least" else pl.max_horizontal)(*xs)
    if op == "month_index":
        day = pl.from_epoch(xs[0], time_unit="d")
        return day.dt.year().cast(pl.Int64) * 12 + day.dt.month().cast(pl.Int64) - 1
    if op == "month_start":
        return pl.date(xs[0] // 12, xs[0] % 12 + 1, 1).cast(pl.Int64)
    if op == "and":
        return xs[0] & xs[1]
    if op == "or":
        return xs[0] | xs[1]
    return {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
            "&": lambda x, y: x & y, "|": lambda x, y: x | y,
            "==": lambda x, y: x == y, "!=": lambda x, y: x != y, "<": lambda x, y: x < y,
            "<=": lambda x, y: x <= y, ">": lambda x, y: x > y, ">=": lambda x, y: x >= y}[op](*xs)


def _case_polars(x, name: str, safe: str):
    """``upper``/``lower`` as Python's ``str`` maps: Polars' (Rust's) mapping
    on the strings that match ``safe`` (letters whose mapping no Unicode
    version has changed, where the two agree), Python's own on the rest
    (Rust's Unicode version is not Python's: U+019B has an upper case in
    Unicode 16, none in Python 3.11's 14)."""
    import polars as pl

    def mapped(s):
        out = s.str.to_uppercase() if name == "upper" else s.str.to_lowercase()
        odd = (~s.str.contains(safe)).arg_true()
        if len(odd):
            out = out.scatter(odd, [getattr(v, name)() for v in s.gather(odd).to_list()])
        return out
    return x.map_batches(mapped, return_dtype=pl.String)


def with_values(df, named: dict) -> tuple:
    """``(df with the columns of named {name: Expr}, None)``, or ``(None,
    why)`` when a check refuses a row.  The checks first, in one lazy query
    (Polars computes an expression several checks share once)."""
    checks: list = []
    values = [to_polars(x, checks).alias(name) for name, x in named.items()]
    if checks and df.height:
        hits = df.lazy().select(*(bad.any().alias(f"c{i}") for i, (bad, _) in enumerate(checks))).collect().row(0)
        for hit, (_, why) in zip(hits, checks):
            if hit:
                return None, why
    return df.with_columns(*values), None


# ------------------------------------------------------------------ numpy

_NUMPY = {"+": "add", "-": "subtract", "*": "multiply", "divide": "divide", "abs": "abs", "floor": "floor",
          "ceil": "ceil", "rint": "rint", "sqrt": "sqrt", "==": "equal", "!=": "not_equal", "<": "less", "<=": "less_equal",
          ">": "greater", ">=": "greater_equal", "and": "logical_and", "or": "logical_or", "&": "bitwise_and",
          "|": "bitwise_or", "neg": "negative", "floordiv": "floor_divide", "mod": "mod", "least": "minimum", "greatest": "maximum"}
_EPOCH_MONTH = 1970 * 12  # numpy's datetime64[M] counts months from January 1970


class Refused(Exception):
    """A check of :func:`to_numpy` refused a row (the message: why)."""


def to_numpy(e: Expr, cols: dict, memo: dict | None = None):
    """The numpy array of ``e`` over the arrays ``cols`` ({name: array}),
    each node computed once (a node read twice is one object); :class:`Refused` at a check that
    holds on a row (before the value it guards is computed).  The
    columns' float arithmetic (float_arithmetic.py): one numpy call an
    operator, where a Polars query costs ~0.2 ms fixed and 3x per row; their
    time grouping (interval_shift.py): a Polars query computes every copy of
    a subtree (months' first tree read an end's month three times), numpy's
    ``datetime64[M]`` the same proleptic Gregorian months."""
    import numpy as np

    memo = {} if memo is None else memo  # by id: equal Exprs may differ (0.0 == -0.0 == False)
    if id(e) in memo:
        return memo[id(e)]
    op, a = e.op, e.args
    if op == "col":
        r = cols[a[0]]
    elif op == "window":
        r = _window_numpy(a, cols, memo)
    elif op == "lit":
        r = a[0]
    elif op == "check":
        bad = a[1]
        if bad.op == "not_finite" and not np.all(np.isfinite(to_numpy(bad.args[0], cols, memo))) or \
                bad.op != "not_finite" and np.any(to_numpy(bad, cols, memo)):  # (no negated copy)
            raise Refused(a[2])
        r = to_numpy(a[0], cols, memo)
    elif op == "exact":  # refused by the operands' largest magnitudes, as on Polars (to_polars)
        x, y = (np.asarray(to_numpy(v, cols, memo)) for v in a[1:3])
        mx, my = (float(np.abs(v).max(initial=0)) for v in (x, y))
        if (mx * my if a[0] == "*" else mx + my) >= _NEAR_BOUND:
            raise Refused(a[3])
        r = getattr(np, _NUMPY[a[0]])(x, y)
    else:
        xs = [to_numpy(x, cols, memo) for x in a]
        if op == "when":
            r = np.where(*xs)
        elif op == "not_finite":
            r = ~np.isfinite(xs[0])
        elif op in ("to_int", "to_float"):
            r = np.asarray(xs[0]).astype(np.int64 if op == "to_int" else np.float64)
        elif op == ">>1":
            r = np.right_shift(xs[0], 1)
        elif op in ("least", "greatest"):  # (any number of operands: numpy's ufuncs take two)
            r = xs[0]
            for x in xs[1:]:
                r = getattr(np, _NUMPY[op])(r, x)
        elif op == "month_index":
            r = np.asarray(xs[0], np.int64).view("datetime64[D]").astype("datetime64[M]").view(np.int64) + _EPOCH_MONTH
        elif op == "month_start":
            r = np.asarray(xs[0] - _EPOCH_MONTH, np.int64).view("datetime64[M]").astype("datetime64[D]").view(np.int64)
        else:
            r = getattr(np, _NUMPY[op])(*xs)
    memo[id(e)] = r
    return r


def _window_numpy(a, cols, memo):
    """A :func:`window` over rows sorted by its partition then its order:
    partitions found by comparing each row with the one before, the running
    values by one accumulate over all partitions (:func:`running_max`)."""
    import numpy as np

    func, x, partition, _, default = a
    x = to_numpy(x, cols, memo)
    first = memo.get(("first", partition))  # (several windows of one partition: found once)
    if first is None:
        first = memo[("first", partition)] = partition_starts([cols[c] for c in partition], len(x))

    def starts():  # (after the running values: not alive beside their temporaries)
        if ("starts", partition) not in memo:
            memo[("starts", partition)] = np.flatnonzero(first)
        return memo[("starts", partition)]
    if func == "sum_through":
        run = np.cumsum(x)
        return run - np.repeat((run - x)[starts()], np.diff(np.append(starts(), len(x))))
    if func == "max_before":
        x = running_max(np.cumsum(first) - 1, x)  # (before ``out``: the peak holds one of them)
    out = np.empty_like(x)
    out[:1] = x[:1]
    if func == "lead":
        out[-1:] = x[-1:]
        out[:-1] = x[1:]
        at = np.append(starts()[1:] - 1, len(x) - 1)  # each partition's last row
    else:
        out[1:] = x[:-1]  # (max_before and lag: the value of the row before)
        at = starts()
    if default is not None and len(x):
        d = to_numpy(default, cols, memo)
        out[at] = d[at] if getattr(d, "ndim", 0) else d  # (indices: 2x a masked assignment)
    return out  # (no default: a partition's first row holds the row before's value, or its own)


def partition_starts(partition: list, n: int):
    """The flag of each row (sorted by the arrays ``partition``) that begins
    its partition: the first row, and each row unlike the one before."""
    import numpy as np

    first = np.zeros(n, dtype=bool)
    first[:1] = True
    for c in partition:
        first[1:] |= c[1:] != c[:-1]
    return first


def running_max(part, x):
    """Each row's running maximum of the int64 ``x`` over its partition's
    rows so far (``part``: the rows' partition numbers, ascending).  One
    ``maximum.accumulate`` over ``part * span + x``: a later partition's keys
    exceed every earlier one's.  With the values shifted to ``0 .. span``
    (an unbounded end ``POS`` just above the largest finite one, ``NEG``
    just below the least) that is 8x cheaper than ranking them by
    ``np.unique``, which remains for values too far apart for 64 bits.
    (polars' ``cum_max().over(keys)`` took 0.5 s on 100,000 rows in 100,000
    partitions; this takes milliseconds.)"""
    import numpy as np

    from .interval_codes import NEG, POS

    unbounded = len(x) and (int(x.min()) == NEG or int(x.max()) == POS)  # (else no mask, clip or where)
    finite = x[(x > NEG) & (x < POS)] if unbounded else x
    lo = int(finite.min()) - 1 if len(finite) else -1
    span = (int(finite.max()) + 1 if len(finite) else 1) - lo + 1
    if len(part) and (int(part[-1]) + 1) * span < 2**62:
        base = part * span
        run = np.maximum.accumulate(base + ((np.clip(x, lo, lo + span - 1) if unbounded else x) - lo))
        run -= base
        if not unbounded:
            run += lo
            return run
        return np.where(run == span - 1, POS, np.where(run == 0, NEG, run + lo))
    values, rank = np.unique(x, return_inverse=True)
    run = np.maximum.accumulate(part * len(values) + rank.reshape(-1))
    return values[run % len(values)]


# ------------------------------------------------------------------ Spark SQL

_SQL_FLOATS = {"divide": "({} / {})", "not_finite": "(NOT (abs({}) < CAST('Infinity' AS DOUBLE)))",
               "to_int": "CAST({} AS BIGINT)", "to_float": "CAST({} AS DOUBLE)"}


def to_sql(e: Expr, literal, stop, engine=None) -> str:
    """The Spark SQL text of ``e``: ``literal(v)`` writes a constant,
    ``stop(why, kind)`` the SQL that stops the run on a refused row,
    ``engine(name, xs, result)`` a call of the engine's own function (a
    Python UDF) where Spark's differs."""
    op, a = e.op, e.args
    if op == "col":
        return a[0]
    if op == "lit":
        return literal(a[0])
    if op == "check":
        value, bad = to_sql(a[0], literal, stop, engine), to_sql(a[1], literal, stop, engine)
        return f"(CASE WHEN {bad} THEN {stop(a[2], a[3])} ELSE {value} END)"
    if op == "exact":
        x, y = (to_sql(v, literal, stop, engine) for v in a[1:3])
        return f"coalesce({_TRY[a[0]]}({x}, {y}), {stop(a[3], PAST_64_BITS)})"
    if op == "window":
        return _window_sql(a, literal, stop)
    if op == "case":
        return _case_sql(to_sql(a[0], literal, stop, engine), a[1], a[2], literal, engine)
    xs = [to_sql(x, literal, stop, engine) for x in a]
    if op == "strlen":
        return f"CAST(char_length({xs[0]}) AS BIGINT)"
    if op == "slice":  # (substring's positions from 1)
        x, y = f"CAST({xs[1]} AS INT)", f"CAST({xs[2]} AS INT)"
        return f"(CASE WHEN {y} > {x} THEN substring({xs[0]}, {x} + 1, {y} - {x}) ELSE '' END)"
    if op == "concat":
        return f"concat({', '.join(xs)})"
    if op == "int_text":
        return f"CAST({xs[0]} AS STRING)"
    if op == "decimal_text":  # 2.500 -> 2.5, 2.000 -> 2; 100 of decimal(38, 0) stays 100 (no point: no zero to drop)
        text = f"CAST({xs[0]} AS STRING)"
        return f"CASE WHEN instr({text}, '.') > 0 THEN regexp_replace({text}, {literal(_TRAILING_ZEROS)}, '') ELSE {text} END"
    if op == "engine_text":  # (Java prints 1.0E10, Python 10000000000.0)
        return engine("concat", xs, "string")
    if op == "when":
        return f"CASE WHEN {xs[0]} THEN {xs[1]} ELSE {xs[2]} END"
    if op == ">>1":
        return f"shiftright({xs[0]}, 1)"
    if op == "neg":
        return f"(- {xs[0]})"
    if op == "floordiv":  # (Spark's div truncates: floor it for a remainder of the other sign)
        return f"({xs[0]} div {xs[1]} - CASE WHEN pmod({xs[0]}, {xs[1]}) <> 0 AND ({xs[0]} < 0) <> ({xs[1]} < 0) THEN 1 ELSE 0 END)"
    if op == "mod" and a[1].op == "lit" and type(a[1].args[0]) is int and a[1].args[0] > 0:  # (floats: pmod rounds twice)
        return f"pmod({xs[0]}, {xs[1]})"
    if op == "mod":  # try_mod has the dividend's sign (null for a zero divisor); Python's the divisor's
        r = f"try_mod({xs[0]}, {xs[1]})"
        return f"(CASE WHEN {r} <> 0 AND ({r} < 0) <> ({xs[1]} < 0) THEN {r} + {xs[1]} ELSE {r} END)"
    if op in ("abs", "least", "greatest", "floor", "ceil", "rint", "sqrt"):
        return f"{op}({', '.join(xs)})"
    if op in _SQL_FLOATS:
        return _SQL_FLOATS[op].format(*xs)
    if op == "month_index":
        day = f"date_from_unix_date(CAST({xs[0]} AS INT))"
        return f"(year({day}) * 12 + month({day}) - 1)"
    if op == "month_start":
        return f"CAST(unix_date(make_date(CAST(({xs[0]}) div 12 AS INT), CAST(pmod({xs[0]}, 12) + 1 AS INT), 1)) AS BIGINT)"
    return f"({xs[0]} {_SQL_OPS[op]} {xs[1]})"


_TRAILING_ZEROS = r"\.?0+$"  # of a decimal's text (its point too when nothing follows)


def _case_sql(x: str, name: str, safe: str, literal, engine) -> str:
    """``upper``/``lower`` as Python's ``str`` maps: Spark's mapping (ICU,
    or the JVM's, and in either the executor's default locale: Turkish maps
    ``i`` to ``İ``) on the strings that match ``safe`` where a probe in the
    row finds the root locale's mapping, the engine's own function in a
    UDF on the other rows (handed the string, the safe ones a NULL: a null
    costs the UDF a bit)."""
    # the row's probe: in the root locale 'ié' -> 'IÉ' and 'IÌ' -> 'iì'
    # (Turkish: 'İÉ', 'ıì'; Lithuanian: 'ii̇̀'); read from the row so that
    # it runs in the executor, not folded on the driver
    empty = f"substring({x}, 1, 0)"
    probe = (f"upper(concat({empty}, {literal('ié')})) = {literal('IÉ')} AND "
             f"lower(concat({empty}, {literal('IÌ')})) = {literal('iì')}")
    other = engine(name, [f"(CASE WHEN {x} RLIKE {literal(safe)} AND {probe} THEN NULL ELSE {x} END)"], "string")
    return f"coalesce({other}, {name}({x}))"


_FRAMES = {"max_before": ("max", " ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING"),
           "sum_through": ("sum", " ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"), "lag": ("lag", ""), "lead": ("lead", "")}


def _window_sql(a, literal, stop) -> str:
    """A :func:`window` as a window function of Spark SQL."""
    func, x, partition, order, default = a
    name, frame = _FRAMES[func]
    part = f"PARTITION BY {', '.join(partition)} " if partition else ""
    value = f"{name}({to_sql(x, literal, stop)}) OVER ({part}ORDER BY {', '.join(order)}{frame})"
    return value if default is None else f"coalesce({value}, {to_sql(default, literal, stop)})"


# ------------------------------------------------------------------ frames


@record(frozen=True)
class Frame:
    """A relation made from the caller's rows (:data:`SOURCE`): ``op``
    over ``args``.  Emitted as numpy arrays (:func:`frame_numpy`) or as
    the steps of a Spark SQL statement (:func:`frame_sql`); an
    aggregation's time segments are written with them (engine/segments.py)."""

    op: str
    args: tuple


SOURCE = Frame("source", ())


def unpivot(frame: Frame, keep, cases) -> Frame:
    """Each row of ``frame`` once per case, with the columns ``keep`` and
    the case's ``{name: Expr}`` (an interval's start event and its end event)."""
    return Frame("unpivot", (frame, tuple(keep), tuple(tuple(c.items()) for c in cases)))


def group(frame: Frame, keys, sums: dict) -> Frame:
    """One row per distinct ``keys`` (integer columns of ``frame``) with
    the ``{name: Expr}`` summed over its rows (integers: exact, int64 wraps
    only in between); a GROUP BY.  On numpy the groups come in the order of
    their keys (the windows of a :func:`select` after it read that order),
    and the group of each row of ``frame`` is kept: ``memo[id(node)]["inverse"]``."""
    return Frame("group", (frame, tuple(keys), tuple(sums.items())))


def select(frame: Frame, named: dict) -> Frame:
    """The columns ``{name: Expr}`` of ``frame``'s rows (windows in its order)."""
    return Frame("select", (frame, tuple(named.items())))


def where(frame: Frame, cond: Expr) -> Frame:
    """The rows of ``frame`` where ``cond`` holds (on numpy their indices:
    ``memo[id(node)]["kept"]``)."""
    return Frame("where", (frame, cond))


def frame_numpy(f: Frame, cols: dict, memo: dict) -> dict:
    """The columns of ``f`` as numpy arrays over ``cols``, the source's;
    each node's in ``memo[id(node)]["cols"]``, beside what a group or a
    filter keeps for the caller."""
    import numpy as np

    if id(f) in memo:
        return memo[id(f)]["cols"]
    op, a = f.op, f.args
    got: dict = {}
    if op == "source":
        out = cols
    elif op == "group":  # (over an unpivot, from its rows: no doubled copy of the keys)
        out, got = _group_numpy(_cases(a[0], cols, memo), a[1], a[2])
    elif op == "unpivot":
        size, cases = _cases(f, cols, memo)
        out = {c: np.concatenate([np.broadcast_to(case[c], (size,)) for case in cases]) for c in cases[0]}
    else:
        inner = frame_numpy(a[0], cols, memo)
        if op == "select":
            sub: dict = {}
            out = {name: to_numpy(x, inner, sub) for name, x in a[1]}
        else:  # where
            kept = got["kept"] = np.flatnonzero(to_numpy(a[1], inner))
            out = {c: v[kept] for c, v in inner.items()}
    memo[id(f)] = {**got, "cols": out}
    return out


def _cases(f: Frame, cols: dict, memo: dict) -> tuple:
    """``(size, cases)``: the rows of ``f`` as ``cases`` of ``size`` rows
    each, one after the other ({column: array, or a number for every row});
    an unpivot's kept columns are its rows' own arrays in every case."""
    if f.op != "unpivot":
        got = frame_numpy(f, cols, memo)
        return (len(next(iter(got.values()))) if got else 0), [got]
    inner = frame_numpy(f.args[0], cols, memo)
    kept = {c: inner[c] for c in f.args[1]}
    return (len(next(iter(inner.values()))) if inner else 0), [{**kept, **{k: to_numpy(x, inner) for k, x in case}} for case in f.args[2]]


def _group_numpy(cases, keys, sums):
    """A :func:`group` in numpy: one stable sort of a single int64 key,
    the leading keys' number (:func:`_lead_number`) times the span of the
    last key, plus it, where that fits 62 bits, else a lexsort; the groups
    begin where the sorted key changes, which numbers each row's group;
    sums are scattered to their groups (``add.at``: 3x cheaper than
    ``reduceat`` over the sorted rows).  The key gives the keys back.  An
    interval's start and end events come in two sorted runs (a relation
    sorted by its atoms and start), which the stable sort merges: the
    columns' aggregation, the rolling windows' hot path."""
    import numpy as np

    size, cases = cases
    lead_keys = keys[:-1]
    if any(c[k] is not cases[0][k] for k in lead_keys for c in cases):  # (a leading key not every case's own: one case)
        size, cases = size * len(cases), [{k: np.concatenate([np.broadcast_to(c[k], (size,)) for c in cases]) for k in cases[0]}]
    n = size * len(cases)
    number, ranges = _lead_number([cases[0][k] for k in lead_keys])
    points = [np.broadcast_to(c[keys[-1]], (size,)) for c in cases]
    order, new, key = _sorted_key(number, points, n)
    starts = np.flatnonzero(new)
    inverse = np.empty(n, dtype=np.int64)
    run = np.cumsum(new)
    run -= 1
    inverse[order] = run
    del run
    out = {}
    first = None if key is not None else order[starts]
    if key is not None:
        *number, out[keys[-1]] = unranged(key[0][starts], key[1])  # (the group's number, then the point)
        if number and ranges:  # the leading keys back from their number
            out.update(zip(lead_keys, unranged(number[0], ranges)))
    else:
        out[keys[-1]] = np.concatenate(points)[first]
    if lead_keys and (key is None or ranges is None):  # (numbered densely: the keys of a row of each group)
        at = (order[starts] if first is None else first) % size
        out.update({k: cases[0][k][at] for k in lead_keys})
    for name, x in sums:
        total = np.zeros(len(starts), dtype=np.int64)
        for i, c in enumerate(cases):
            np.add.at(total, inverse[i * size:(i + 1) * size], to_numpy(x, c))
        out[name] = total
    return {c: out[c] for c in [*keys, *(nm for nm, _ in sums)]}, {"inverse": inverse}


def _lead_number(columns):
    """``(number, ranges)``: the leading keys of a group as one int64 per
    row (None for no key): int64 keys combined by their ranges
    (:func:`ranged_key`), else a single key itself or the keys numbered
    densely (``ranges`` None: the keys read from a row of each group)."""
    import numpy as np

    if not columns:
        return None, ()
    got = ranged_key(columns) if all(c.dtype == np.int64 for c in columns) else None
    if got is not None or len(columns) == 1:
        return got or (columns[0], None)
    return np.unique(np.stack(columns, axis=1), axis=0, return_inverse=True)[1].reshape(-1), None


def ranged_key(columns, ranges=None):
    """``(key, ranges)``: one int64 per row of signed integer columns (numpy,
    one length), in the order of the rows (the first column first) and
    equal where they are equal: each column less its least value, times
    the ranges of the columns after it; ``ranges`` each column's ``(least,
    range)`` (given: those, None where a value is outside its column's;
    :func:`unranged` decodes).  None when the ranges' product passes 2**63
    (every partial key and the last, the product less 1, fit int64)."""
    import numpy as np

    if ranges is None:
        lows = [int(c.min()) if len(c) else 0 for c in columns]
        spans = [int(c.max()) - lo + 1 if len(c) else 1 for c, lo in zip(columns, lows)]
    else:
        lows, spans = [lo for lo, _ in ranges], [r for _, r in ranges]
        if any(len(c) and (int(c.min()) < lo or int(c.max()) >= lo + r) for c, (lo, r) in zip(columns, ranges)):
            return None
    if math.prod(spans) > 1 << 63:
        return None
    key = np.zeros(len(columns[0]), dtype=np.int64)
    for c, lo, r in zip(columns, lows, spans):
        key *= r
        key += c  # (in place, no temporary per key; int64 wraps, exact as the product fits)
        key -= lo
    return key, list(zip(lows, spans))


def unranged(key, ranges) -> list:
    """The columns :func:`ranged_key` made ``key`` of by ``ranges``."""
    cols = []
    for lo, r in reversed(ranges):
        cols.append(key % r + lo)
        key = key // r
    return cols[::-1]


def _sorted_key(gid, points, n):
    """``(order, new, key)``: the stable order of the rows by ``gid`` (None:
    one group; the rows of every case) then ``points`` (one array per case,
    one after the other), ``new`` marking each sorted row unlike the one
    before; ``key`` (the sorted keys, their ranges: :func:`ranged_key` of
    the group and the point) when one int64 holds both, else None (a
    lexsort)."""
    import numpy as np

    p = points[0] if len(points) == 1 else np.concatenate(points)
    cols = [p] if gid is None else [gid if len(points) == 1 else np.tile(gid, len(points)), p]
    got = ranged_key(cols) if gid is None or gid.dtype == np.int64 else None
    order = np.argsort(got[0], kind="stable") if got is not None else np.lexsort(cols[::-1])
    ordered = [got[0][order]] if got is not None else [c[order] for c in cols]
    return order, partition_starts(ordered, n), None if got is None else (ordered[0], got[1])


def frame_sql(f: Frame, q, src: str, literal, stop) -> str:
    """The step of ``f`` in the statement ``q`` (``q.add(sql, columns)``
    returns a step, ``q.cols[step]`` its columns; the source: ``src``)."""
    op, a = f.op, f.args
    if op == "source":
        return src
    inner = frame_sql(a[0], q, src, literal, stop)

    def sql(x):
        return to_sql(x, literal, stop)
    if op == "unpivot":
        names = [name for name, _ in a[2][0]]
        events = ", ".join("named_struct(" + ", ".join(f"'{name}', {sql(dict(case)[name])}" for name in names) + ")"
                           for case in a[2])
        return q.add(f"SELECT {''.join(f'{c}, ' for c in a[1])}inline(array({events})) FROM {inner}", [*a[1], *names])
    if op == "group":
        keys = ", ".join(a[1])
        return q.add(f"SELECT {', '.join([*a[1], *(f'sum({sql(x)}) AS {name}' for name, x in a[2])])} FROM {inner} "
                     f"GROUP BY {keys}", [*a[1], *(name for name, _ in a[2])])
    if op == "select":
        return q.add(f"SELECT {', '.join(f'{sql(x)} AS {name}' for name, x in a[1])} FROM {inner}", [name for name, _ in a[1]])
    return q.add(f"SELECT * FROM {inner} WHERE {sql(a[1])}", q.cols[inner])
