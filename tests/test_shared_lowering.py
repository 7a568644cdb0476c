"""The lowering written once for both column backends (engine/exprs.py,
int_arithmetic.py, float_arithmetic.py, interval_shift.py) gives the same
values on Polars and on Spark, and those values are Python's: random
integer and float expressions over random rows, random temporal shifts and
boxes of random intervals (the rows' timeline.shift and timeline.box are
the oracle)."""

import math
from fractions import Fraction

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from budget import examples
from chronolog.engine import exprs
from chronolog.engine import float_arithmetic as fa
from chronolog.engine import int_arithmetic as ia
from chronolog.language import ast
from chronolog.language import timeline as tl

# the integers a column of the columnar executor holds (expressions.Values): inside ±2^62
NUMBERS = st.one_of(st.integers(-(2**20), 2**20), st.integers(-(2**62) + 1, 2**62 - 1),
                    st.sampled_from([0, 1, -1, 2**62 - 1, -(2**62) + 1, 2**31]))


def integer_exprs(whole: bool):
    """Expressions of A and B that int_arithmetic lowers (``/`` bare only when ``whole``)."""
    leaves = st.one_of(st.sampled_from([ast.Var("A"), ast.Var("B")]), NUMBERS.map(ast.Const))

    def grow(sub):
        ops = ["+", "-", "*"] + (["/"] if whole else [])
        return st.one_of(
            st.builds(ast.BinOp, st.sampled_from(ops), sub, sub),
            st.builds(lambda f, a, b: ast.Call(f, (ast.BinOp("/", a, b),)), st.sampled_from(["floor", "ceil"]), sub, sub),
            st.builds(lambda a, b: ast.Call("mod", (a, b)), sub, sub),
            st.builds(lambda a: ast.Call("abs", (a,)), sub),
            st.builds(lambda f, xs: ast.Call(f, tuple(xs)), st.sampled_from(["min", "max"]), st.lists(sub, min_size=1, max_size=3)),
        )

    return st.recursive(leaves, grow, max_leaves=6)


def python_value(e, row: dict, spans: dict):
    """The exact value of ``e`` (Python's integers), and the largest
    magnitude met on the way; ZeroDivisionError / ValueError where the
    engine would refuse (a division by zero, a quotient not whole).
    ``spans``: per ``+ - *`` node, the largest magnitude of each operand so far."""
    biggest = 0

    def ev(x):
        nonlocal biggest
        if isinstance(x, ast.Var):
            v = row[x.name]
        elif isinstance(x, ast.Const):
            v = x.value
        elif isinstance(x, ast.BinOp):
            a, b = ev(x.left), ev(x.right)
            if x.op == "/":
                if b == 0 or Fraction(a, b).denominator != 1:
                    raise ValueError
                v = a // b
            else:
                v = {"+": a + b, "-": a - b, "*": a * b}[x.op]
                span = spans.setdefault(id(x), [x.op, 0, 0])
                span[1], span[2] = max(span[1], abs(a)), max(span[2], abs(b))
        elif x.name in ("floor", "ceil"):
            q = x.args[0]
            a, b = ev(q.left), ev(q.right)
            if b == 0:
                raise ZeroDivisionError
            v = a // b if x.name == "floor" else -(-a // b)
        elif x.name == "mod":
            a, b = ev(x.args[0]), ev(x.args[1])
            if b == 0:
                raise ZeroDivisionError
            v = a % b
        elif x.name == "abs":
            v = abs(ev(x.args[0]))
        else:
            v = (min if x.name == "min" else max)(ev(a) for a in x.args)
        biggest = max(biggest, abs(v))
        return v

    v = ev(e)
    return v, biggest


def expected(e, rows, bound, by_largest=False):
    """Python's values of ``e`` on ``rows``, or None where the backend may
    refuse (an error, or a value near or beyond ``bound``; ``by_largest``:
    an operation whose operands' largest magnitudes over the rows could
    reach it, as Polars checks: exprs.exact); and whether it must refuse
    (a row with an error, or with a value beyond ``bound``)."""
    out, must, spans = [], False, {}
    near = bound * (1 - 2**-48)
    for r in rows:
        try:
            v, biggest = python_value(e, r, spans)
        except (ZeroDivisionError, ValueError):
            out.append(None)
            must = True
            continue
        if biggest >= bound:
            must = True
        out.append(v if biggest < near else None)
    if by_largest and any((a * b if op == "*" else a + b) >= near for op, a, b in spans.values()):
        out = [None] * len(out)
    return out, must


def polars_values(e, rows):
    df = pl.DataFrame({"A": [r["A"] for r in rows], "B": [r["B"] for r in rows]}, schema={"A": pl.Int64, "B": pl.Int64})
    out, why = exprs.with_values(df, {"r": ia.lower(e, exprs.col)})
    return None if why is not None else out["r"].to_list()


def agrees(got, want, must):
    """``got`` (None: refused) against Python's ``want`` (see :func:`expected`)."""
    if got is None:
        return must or None in want
    return not must and all(w is None or g == w for g, w in zip(got, want))


ROWS = st.lists(st.fixed_dictionaries({"A": NUMBERS, "B": NUMBERS}), min_size=1, max_size=6)


@settings(max_examples=examples(400), deadline=None)
@given(integer_exprs(whole=False), ROWS)
def test_integer_lowering_on_polars_is_pythons_arithmetic(e, rows):
    want, must = expected(e, rows, exprs.POLARS_BOUND, by_largest=True)
    assert agrees(polars_values(e, rows), want, must), (str(e), rows)


def numpy_values(e, rows):
    """As the columns executor emits it (expressions.integers)."""
    from chronolog.engine.columns.expressions import integers
    from chronolog.engine.columns.encoding import Fallback

    cols = [np.array([r[c] for r in rows], dtype=np.int64) for c in ("A", "B")]
    try:  # (its variables are a0, a1: A, B renamed)
        return integers(_renamed(e, {"A": "a0", "B": "a1"}), *cols).tolist()
    except Fallback:
        return None


def _renamed(e, names):
    if isinstance(e, ast.Var):
        return ast.Var(names[e.name])
    if isinstance(e, ast.BinOp):
        return ast.BinOp(e.op, _renamed(e.left, names), _renamed(e.right, names))
    if isinstance(e, ast.Call):
        return ast.Call(e.name, tuple(_renamed(a, names) for a in e.args))
    return e


@settings(max_examples=examples(400), deadline=None)
@given(integer_exprs(whole=False), ROWS)
def test_integer_lowering_on_numpy_is_pythons_arithmetic_as_on_polars(e, rows):
    want, must = expected(e, rows, exprs.POLARS_BOUND, by_largest=True)
    got = numpy_values(e, rows)
    assert agrees(got, want, must), (str(e), rows)
    assert got == polars_values(e, rows), (str(e), rows)  # (the same refusals too)


@pytest.mark.spark
@settings(max_examples=examples(30), deadline=None, suppress_health_check=list(HealthCheck))
@given(integer_exprs(whole=False), ROWS)
def test_integer_lowering_gives_the_same_values_on_polars_and_spark(spark, e, rows):
    on_polars = polars_values(e, rows)
    marker = "shared lowering refused: "
    sql = exprs.to_sql(ia.lower(e, exprs.col, whole=True), lambda v: f"({v}L)", lambda why, kind=None: f"raise_error('{marker}')")
    df = spark.createDataFrame([(r["A"], r["B"]) for r in rows], "A bigint, B bigint")
    try:
        on_spark = [x[0] for x in df.selectExpr(f"{sql} AS r").collect()]
    except Exception as err:  # noqa: BLE001 - the refusal's raise_error, or an ANSI overflow error
        assert marker in str(err) or "ARITHMETIC_OVERFLOW" in str(err), err
        on_spark = None
    want, must = expected(e, rows, 2**63)
    assert agrees(on_spark, want, must), (str(e), rows, sql)
    if on_polars is not None and on_spark is not None:
        assert on_polars == on_spark


FLOATS = st.one_of(st.floats(allow_nan=False, allow_infinity=False),
                   st.sampled_from([0.0, -0.0, 0.5, 2.5, -1.5, 1e308, -1e308, 5e-324, 2.0**62, -(2.0**63), 2.0**63]))


def float_exprs():
    """``+ - * /`` of A, B and float constants, under ``floor``, ``ceil``,
    ``rint`` or nothing."""
    leaves = st.one_of(st.sampled_from([ast.Var("A"), ast.Var("B")]), FLOATS.map(ast.Const))
    tree = st.recursive(leaves, lambda sub: st.builds(ast.BinOp, st.sampled_from(["+", "-", "*", "/"]), sub, sub), max_leaves=6)
    return st.tuples(st.sampled_from([None, "floor", "ceil", "rint"]), tree)


def float_lowering(e, bound: int, signed_zero: bool):
    """The float_arithmetic Expr of ``(outer, tree)`` (:func:`float_exprs`)."""
    outer, tree = e

    def lower(x):
        if isinstance(x, ast.Var):
            return exprs.col(x.name)
        if isinstance(x, ast.Const):
            return exprs.lit(x.value)
        return fa.binop(x.op, lower(x.left), lower(x.right), str(x), signed_zero)

    return lower(tree) if outer is None else fa.whole(outer, lower(tree), bound, outer)


def python_floats(e, rows, bound: int):
    """Python's values of ``e`` on ``rows``, or None where some row must be
    refused (a division by zero, NaN or an infinity on the way, a whole
    number of magnitude ``bound`` or more)."""
    outer, tree = e

    def ev(x, row):
        if isinstance(x, ast.Var):
            return row[x.name]
        if isinstance(x, ast.Const):
            return x.value
        a, b = ev(x.left, row), ev(x.right, row)
        v = a / b if x.op == "/" else {"+": a + b, "-": a - b, "*": a * b}[x.op]  # (ZeroDivisionError: refused)
        if not math.isfinite(v):
            raise ZeroDivisionError
        return v

    out = []
    for row in rows:
        try:
            v = ev(tree, row)
        except ZeroDivisionError:
            return None
        if outer is not None:
            if abs(v) >= bound:
                return None
            v = {"floor": math.floor, "ceil": math.ceil, "rint": round}[outer](v)
        out.append(v)
    return out


def same_floats(got, want, signed_zero: bool) -> bool:
    """Equal values, and equal signs of zeros where they are kept."""
    if got is None or want is None:
        return got is want
    fix = (lambda v: v) if signed_zero else (lambda v: 0.0 if v == 0 else v)
    return all(g == fix(w) and type(g) is type(w) and math.copysign(1, g) == math.copysign(1, fix(w))
               for g, w in zip(got, want))


FLOAT_ROWS = st.lists(st.fixed_dictionaries({"A": FLOATS, "B": FLOATS}), min_size=1, max_size=6)


def numpy_floats(e, rows):
    """As the columns executor emits it (expressions.floats)."""
    import numpy as np

    cols = {c: np.array([r[c] for r in rows], dtype=np.float64) for c in ("A", "B")}
    try:
        with np.errstate(all="ignore"):
            got = exprs.to_numpy(float_lowering(e, 2**62, signed_zero=True), cols)
    except exprs.Refused:
        return None
    return np.broadcast_to(np.asarray(got), (len(rows),)).tolist()  # (constants are scalars here)


@settings(max_examples=examples(400), deadline=None)
@given(float_exprs(), FLOAT_ROWS)
def test_float_lowering_on_numpy_is_pythons_arithmetic(e, rows):
    assert same_floats(numpy_floats(e, rows), python_floats(e, rows, 2**62), signed_zero=True), (e, rows)


@pytest.mark.spark
@settings(max_examples=examples(30), deadline=None, suppress_health_check=list(HealthCheck))
@given(float_exprs(), FLOAT_ROWS)
def test_float_lowering_gives_pythons_values_on_spark(spark, e, rows):
    on_spark, sql = spark_values(spark, float_lowering(e, 2**63, signed_zero=False), rows)
    bare = e[0] is None and not isinstance(e[1], ast.BinOp)  # (a column or constant as it is: its zero's sign kept)
    assert same_floats(on_spark, python_floats(e, rows, 2**63), signed_zero=bare), (e, rows, sql)


def spark_values(spark, x, rows) -> tuple:
    """``(values, sql)``: the Expr ``x`` of the float columns A, B of
    ``rows`` computed by Spark SQL (values None where a check refuses a row)."""
    from chronolog.connectors.spark_rounds.functions import double_literal

    marker = "shared lowering refused: "
    sql = exprs.to_sql(x, double_literal, lambda why, kind=None: f"raise_error('{marker}')")
    df = spark.createDataFrame([(r["A"], r["B"]) for r in rows], "A double, B double")
    try:
        return [r[0] for r in df.selectExpr(f"{sql} AS r").collect()], sql
    except Exception as err:  # noqa: BLE001 - the refusal's raise_error
        assert marker in str(err), err
        return None, sql


# the built-ins of floats the lowering writes once (float_arithmetic.function): (name, arguments, round's digits)
FLOAT_CALLS = [("abs", 1, None), ("floor", 1, None), ("ceil", 1, None), ("round", 1, None), ("round", 1, 0),
               ("mod", 2, None), ("sqrt", 1, None), ("float", 1, None)]


def python_call(call, rows, bound: int):
    """The engine's values of the built-in ``call`` (language/builtins.py)
    on ``rows``, or None where some row must be refused (the engine's
    error, NaN or an infinity, a whole number of magnitude ``bound`` or more)."""
    from chronolog.language.builtins import FUNCTIONS, BuiltinTypeError

    name, n, digits = call
    out = []
    for row in rows:
        args = [row["A"], row["B"]][:n] + ([] if digits is None else [digits])
        try:
            v = FUNCTIONS[name][2](*args)
        except BuiltinTypeError:
            return None
        if not math.isfinite(v) or type(v) is int and abs(v) >= bound:
            return None
        out.append(v)
    return out


def call_lowering(call, bound: int, signed_zero: bool):
    name, n, digits = call
    return fa.function(name, [exprs.col("A"), exprs.col("B")][:n], name, bound, signed_zero, digits)


@settings(max_examples=examples(400), deadline=None)
@given(st.sampled_from(FLOAT_CALLS), FLOAT_ROWS)
def test_float_functions_on_numpy_are_the_engines(call, rows):
    cols = {c: np.array([r[c] for r in rows], dtype=np.float64) for c in ("A", "B")}
    try:
        with np.errstate(all="ignore"):
            got = np.asarray(exprs.to_numpy(call_lowering(call, 2**62, signed_zero=True), cols)).tolist()
    except exprs.Refused:
        got = None
    assert same_floats(got, python_call(call, rows, 2**62), signed_zero=True), (call, rows)


@pytest.mark.spark
@settings(max_examples=examples(30), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(FLOAT_CALLS), FLOAT_ROWS)
def test_float_functions_on_spark_are_the_engines(spark, call, rows):
    on_spark, sql = spark_values(spark, call_lowering(call, 2**63, signed_zero=False), rows)
    want = python_call(call, rows, 2**63)
    if on_spark is not None and call[0] in ("floor", "ceil", "round") and call[2] is None:
        on_spark = [int(v) for v in on_spark]  # (a bigint, which the rounds cast to their number type)
    assert same_floats(on_spark, want, signed_zero=False), (call, rows, sql)


def intervals():
    ends = st.integers(-50, 50)
    return st.tuples(ends, ends, st.booleans(), st.booleans()).filter(lambda t: t[0] < t[1] or (t[0] == t[1] and t[2] and t[3]))


def windows():
    ends = st.one_of(st.integers(0, 20), st.just(tl.POS_INF))
    return st.tuples(st.integers(0, 20), ends, st.booleans(), st.booleans()).filter(
        lambda w: w[0] < w[1] or (w[0] == w[1] and w[2] and w[3]))


def codes(iv):
    lo, hi, lc, hc = iv
    return 2 * lo + (0 if lc else 1), 2 * hi + (1 if hc else 0)


def interval(s, e):
    return (s // 2, e // 2, s % 2 == 0, e % 2 == 1)


@pytest.mark.spark
@settings(max_examples=examples(30), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(intervals(), min_size=1, max_size=5), windows(), st.booleans())
def test_shift_and_box_give_the_rows_answers_on_polars_and_spark(spark, ivs, w, past):
    from chronolog.engine.interval_shift import box, shift

    ivs = tl.coalesce(ivs)
    if not ivs:
        return
    rows = [codes(iv) for iv in ivs]
    df = pl.DataFrame({"s": [s for s, _ in rows], "e": [e for _, e in rows]}, schema={"s": pl.Int64, "e": pl.Int64})
    sdf = spark.createDataFrame(rows, "s bigint, e bigint")
    for transform, window, oracle in ((shift, tl.diamond_window(past, w), tl.shift), (box, tl.box_window(past, w), tl.box)):
        units = tuple(x if x in (tl.NEG_INF, tl.POS_INF) else int(x) for x in window[:2]) + window[2:]
        s2, e2 = transform(units)
        got_polars = exprs.with_values(df, {"s": s2, "e": e2})[0].filter(pl.col("s") < pl.col("e")).rows()
        sql = [exprs.to_sql(x, lambda v: f"({v}L)", None) for x in (s2, e2)]
        got_spark = [tuple(r) for r in sdf.selectExpr(f"{sql[0]} AS s", f"{sql[1]} AS e").where("s < e").collect()]
        want = [codes(r) if r[0] != tl.NEG_INF and r[1] != tl.POS_INF else None for iv in ivs if (r := oracle(iv, window)) is not None]
        back = [(None if s == exprs_neg() or e == exprs_pos() else (s, e)) for s, e in got_polars]
        assert back == want, (ivs, window)
        assert got_spark == got_polars, (ivs, window, sql)


def exprs_neg():
    from chronolog.engine.interval_shift import NEG

    return NEG


def exprs_pos():
    from chronolog.engine.interval_shift import POS

    return POS


@pytest.mark.spark
@settings(max_examples=examples(20), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(intervals(), min_size=1, max_size=5), st.integers(1, 12), st.integers(0, 11))
def test_periods_give_the_same_codes_on_polars_and_spark(spark, ivs, n, off):
    """Time grouping into periods of one length (the columns' side is
    tested against the rows in test_columns_kernels.py)."""
    from chronolog.engine.interval_shift import periods

    rows = [codes(iv) for iv in ivs] + [(exprs_neg(), 4), (-3, exprs_pos())]
    df = pl.DataFrame({"s": [s for s, _ in rows], "e": [e for _, e in rows]}, schema={"s": pl.Int64, "e": pl.Int64})
    s2, e2 = periods(n, off % n)
    got_polars = exprs.with_values(df, {"s": s2, "e": e2})[0].rows()
    sql = [exprs.to_sql(x, lambda v: f"({v}L)", None) for x in (s2, e2)]
    got_spark = [tuple(r) for r in spark.createDataFrame(rows, "s bigint, e bigint").selectExpr(f"{sql[0]} AS s", f"{sql[1]} AS e").collect()]
    assert got_spark == got_polars, (rows, n, off, sql)


def unbounded_intervals():
    """Intervals with an unbounded end now and then (an unbounded end is open)."""
    ends = st.one_of(st.integers(-50, 50), st.just(None))
    return st.tuples(ends, ends, st.booleans(), st.booleans()).map(
        lambda t: (tl.NEG_INF if t[0] is None else t[0], tl.POS_INF if t[1] is None else t[1],
                   t[2] and t[0] is not None, t[3] and t[1] is not None)).filter(
        lambda t: t[0] < t[1] or (t[0] == t[1] and t[2] and t[3]))


def ends_columns(ivs):
    """The columns from_ends reads, of the intervals ``ivs`` on a grid of one unit."""
    return {"lo": [0 if iv[0] == tl.NEG_INF else iv[0] for iv in ivs], "lf": [iv[0] != tl.NEG_INF for iv in ivs],
            "lc": [iv[2] for iv in ivs], "hi": [0 if iv[1] == tl.POS_INF else iv[1] for iv in ivs],
            "hf": [iv[1] != tl.POS_INF for iv in ivs], "hc": [iv[3] for iv in ivs]}


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(unbounded_intervals(), min_size=1, max_size=8))
def test_interval_codes_from_ends_and_back_on_numpy(ivs):
    """from_ends gives DoubledGrid's codes of each interval, and closed_ends
    its closed flags back (numpy, as the columns and the writers emit them)."""
    import numpy as np

    from chronolog.engine import interval_codes as ic

    grid = ic.DoubledGrid()
    grid.unit = int
    cols = {k: np.array(v) for k, v in ends_columns(ivs).items()}
    s, e = (exprs.to_numpy(x, cols) for x in ic.from_ends(*map(exprs.col, ("lo", "lf", "lc", "hi", "hf", "hc"))))
    assert list(zip(s.tolist(), e.tolist())) == [grid.codes(iv) for iv in ivs]
    flags = [exprs.to_numpy(x, {"s": s, "e": e}).tolist() for x in ic.closed_ends()]
    assert list(zip(*flags)) == [(iv[2], iv[3]) for iv in ivs]
    assert [grid.interval(a, b) for a, b in zip(s.tolist(), e.tolist())] == ivs


@pytest.mark.spark
@settings(max_examples=examples(20), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(unbounded_intervals(), min_size=1, max_size=8))
def test_interval_codes_from_ends_and_back_on_spark(spark, ivs):
    """The same on Spark (the rounds' inputs and outputs)."""
    from chronolog.engine import interval_codes as ic

    grid = ic.DoubledGrid()
    grid.unit = int
    cols = ends_columns(ivs)
    df = spark.createDataFrame(list(zip(*cols.values())), "lo bigint, lf boolean, lc boolean, hi bigint, hf boolean, hc boolean")
    lit = lambda v: f"({v}L)"  # noqa: E731
    s, e = (exprs.to_sql(x, lit, None) for x in ic.from_ends(*map(exprs.col, cols)))
    flags = [exprs.to_sql(x, lit, None) for x in ic.closed_ends()]
    coded = df.selectExpr(f"{s} AS s", f"{e} AS e")
    rows = coded.selectExpr("s", "e", *flags).collect()
    assert [(r[0], r[1]) for r in rows] == [grid.codes(iv) for iv in ivs]
    assert [(r[2], r[3]) for r in rows] == [(iv[2], iv[3]) for iv in ivs]


# ---------------------------------------------------------------- interval terms' ends

BIG_NUMBERS = st.one_of(st.integers(-(2**20), 2**20), st.integers(-(10**37), 10**37))
DENS = st.sampled_from([1, 2, 3, 4, 10, 12, 100, 1000, 10**6, 10**18])
GRIDS = st.sampled_from([1, 2, 4, 10, 60, 1000, 86_400 * 10**6])


def placed_code(n: int, den: int, L: int, bit: int, bounds: tuple):
    """The code of the end ``n / den`` from scratch, None where it is off
    the grid or outside ``bounds``."""
    units = Fraction(n, den) * L
    if units.denominator != 1 or not bounds[0] < 2 * units.numerator + bit < bounds[1]:
        return None
    return 2 * units.numerator + bit


def end_number(code: int, den: int, L: int):
    """``q`` with ``q / gcd(L, den)`` the time of the end ``code``, None where that is no integer."""
    q = Fraction(code >> 1, L) * math.gcd(L, den)
    return q.numerator if q.denominator == 1 else None


def numpy_or_none(e, cols):
    try:
        return int(np.asarray(exprs.to_numpy(e, {k: np.array([v], dtype=np.int64) for k, v in cols.items()}))[0])
    except exprs.Refused:
        return None


@settings(max_examples=examples(400), deadline=None)
@given(st.integers(-(2**62) + 1, 2**62 - 1) | st.integers(-1000, 1000), DENS, GRIDS, st.integers(0, 1))
def test_interval_end_codes_on_numpy_are_exact(n, den, L, bit):
    """engine/interval_terms.code_of of a 64-bit numerator (the columns'),
    and number_of of a code, against Fraction arithmetic."""
    from chronolog.engine import interval_terms as it

    bounds = (-(2**60), 2**60)
    assert numpy_or_none(it.code_of(exprs.col("n"), den, L, bit, bounds), {"n": n}) == placed_code(n, den, L, bit, bounds)
    code = n >> 1  # (any 62-bit code)
    assert numpy_or_none(it.number_of(exprs.col("c"), den, L), {"c": code}) == end_number(code, den, L)


@pytest.mark.spark
@settings(max_examples=examples(20), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(BIG_NUMBERS, st.integers(-(2**58), 2**58)), min_size=1, max_size=8), DENS, GRIDS,
       st.integers(0, 1))
def test_interval_end_codes_on_spark_are_exact(spark, rows, den, L, bit):
    """The same trees as the rounds' SQL: numerators of 38 digits (a
    ``decimal(38, 0)``'s), a refused row null instead of stopping the job."""
    from decimal import Decimal

    from chronolog.engine import interval_terms as it

    bounds = (-(2**57), 2**57)
    lit = lambda v: f"({v}L)" if -(2**63) <= v < 2**63 else f"{min(v, 10**38 - 1)}BD"  # noqa: E731 (the rounds' _literal)
    null = lambda why, kind=None: "CAST(NULL AS BIGINT)"  # noqa: E731
    placed = exprs.to_sql(it.code_of(exprs.col("n"), den, L, bit, bounds), lit, null)
    number = exprs.to_sql(it.number_of(exprs.col("c"), den, L), lit, null)
    df = spark.createDataFrame([(Decimal(n), c) for n, c in rows], "n decimal(38, 0), c bigint")
    got = df.selectExpr(f"{placed} AS p", f"{number} AS q").collect()
    assert [r[0] for r in got] == [placed_code(n, den, L, bit, bounds) for n, _ in rows]
    assert [r[1] for r in got] == [end_number(c, den, L) for _, c in rows]


@pytest.mark.spark
def test_float_mod_by_a_constant_on_spark_is_pythons(spark):
    """A float remainder by a constant is the remainder with the divisor
    added where the signs differ (Python's), not Spark's ``pmod``, which
    adds the divisor and takes the remainder again: a second rounding
    (``-1e-20 % 2.5`` is 2.5 in Python, ``pmod`` gives 0.0)."""
    rows = [{"A": a, "B": 0.0} for a in (-1e-20, -7.5, 7.5, -0.1, 1e300)]
    x = fa.function("mod", [exprs.col("A"), exprs.lit(2.5)], "mod(A, 2.5)", 2**63, signed_zero=False)
    on_spark, sql = spark_values(spark, x, rows)
    assert on_spark == [r["A"] % 2.5 for r in rows], sql
