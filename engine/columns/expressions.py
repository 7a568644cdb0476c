"""Arithmetic and comparisons over columns of term codes, exactly.

A term column holds Dictionary codes (encoding.py); :class:`Values` turns
codes into numpy numbers.  Only what numpy computes exactly as Python does is
vectorised: 64-bit integers with ``+ - *``, ``mod`` and floored
division (engine/int_arithmetic.py, the lowering the Spark rounds share:
checked, so nothing wraps), exact rationals (``EXACT``: numerator/denominator pairs,
exact_columns.py; ``/`` of integers that is not whole is one), and binary
floats with their built-ins (engine/float_arithmetic.py, shared with the
rounds too: IEEE arithmetic is the same in numpy, Java and Python).
The string built-ins and strings compared in order run in Polars' string
kernels (:func:`strings`: engine/string_functions.py, the rounds'
lowering too); booleans and instants compared, and their ``min``/``max``,
by their int64 order keys (:meth:`Values.order_keys`).  An exact number
meeting a float in arithmetic is its float, as Python's int and Fraction
meet one (within 2^53; compared with a float, exactly).  Anything else --
a string in arithmetic, ints mixed with floats in one column, an exact
number past 2^53 meeting a float, a division by zero, a result beyond 64 bits, a
float printed by ``concat``, ``exp`` -- raises :class:`Fallback`; an
assignment, a condition or an aggregate's expression then computes it
with the rows' own closures once per distinct value (distinct_calls.py);
where those fail, the stratum runs on rows, which give the exact value or
the positioned error.
"""

from __future__ import annotations

import datetime as _dt
from collections import defaultdict
from fractions import Fraction

from chronolog.language import ast, builtins
from chronolog.language.booleans import Boolean
from chronolog.language.exact_pairs import pair_values
from chronolog.language.timeline import Point

from .. import float_arithmetic as fa
from .. import string_functions as sf
from ..exprs import Refused, call, col, exact, lit, to_numpy, with_values
from .encoding import Fallback
from .scan import var_column
from . import exact_columns as ex
from .value_columns import column_codes, is_values

INT, FLOAT, RATIONAL, EXACT = "int", "float", "rational", "exact"  # EXACT: a (num, den) pair of arrays
_BOUND = 2**62
# floats at least this many are found among the coded ones in numpy
# (Values.known: a pass over every float coded), fewer by the Dictionary
_MANY = 10_000
_KINDS = defaultdict(int, {int: 1, float: 2, Fraction: 3, Point: 3, Boolean: 4, _dt.datetime: 5})  # a value's type -> its kind (0: other)
# the order keys of booleans (#F 0, #T 1) and instants (UTC microseconds since 1970; years 1 to 9999 fit int64)
_EPOCH, _US, _UNKEYED = _dt.datetime(1970, 1, 1), _dt.timedelta(microseconds=1), -(2**63)
_ORDERED = {4: lambda b: int(b.value), 5: lambda t: (t - _EPOCH) // _US}


class Values:
    """The numbers behind a Dictionary's codes, rebuilt when it grows."""

    def __init__(self, terms):
        self.terms = terms
        self._n = -1
        self._known = {}  # kind (INT, FLOAT) -> (values, their codes, sorted by value; the codes below which it is complete): known
        self._keys = None  # each code's order key once asked (order_keys), else _UNKEYED

    def _build(self):
        """Extends the arrays by the values coded since the last call."""
        import numpy as np

        vals = self.terms.values
        n0, n = max(self._n, 0), len(vals)
        if n0 == n and self._n >= 0:
            return
        ints = np.zeros(n - n0, dtype=np.int64)
        floats = np.zeros(n - n0, dtype=np.float64)
        dens = np.ones(n - n0, dtype=np.int64)
        # 0 other, 1 int, 2 float, 3 Fraction (numerator in ints): the
        # kinds by type, ints and floats converted by numpy, range checks
        # on whole arrays (a loop over every value took 4 ms at 27k values);
        # the names of a fact file (encoding.TermValues) are strings: kind 0,
        # no Python string made for them
        named = max(0, min(getattr(vals, "named", 0), n) - n0)
        kind = np.zeros(n - n0, dtype=np.int8)
        new = vals[n0 + named :]
        kind[named:] = np.fromiter(map(_KINDS.__getitem__, map(type, new)), dtype=np.int8, count=n - n0 - named)
        of = (lambda at: map(new.__getitem__, (at - named).tolist()))  # (the values at positions ``at``)
        at = np.flatnonzero(kind == 2)
        if at.size:
            got = np.fromiter(of(at), dtype=np.float64, count=at.size)
            finite = np.isfinite(got)
            floats[at[finite]] = got[finite]
            kind[at[~finite]] = 0
        at = np.flatnonzero(kind == 1)
        if at.size:
            try:
                got = np.fromiter(of(at), dtype=np.int64, count=at.size)
                small = (got > -_BOUND) & (got < _BOUND)
            except OverflowError:  # beyond 64 bits: compared as Python ints
                got = np.array(list(of(at)), dtype=object)
                small = ((got > -_BOUND) & (got < _BOUND)).astype(bool)
            ints[at[small]] = floats[at[small]] = got[small].astype(np.int64)
            kind[at[~small]] = 0
        for i in np.flatnonzero(kind == 3).tolist():
            v = new[i - named]
            if -_BOUND < v.numerator < _BOUND and v.denominator < _BOUND:
                ints[i], dens[i] = v.numerator, v.denominator
            else:
                kind[i] = 0
        if self._n < 0:
            self.ints, self.floats, self.dens, self.kind = ints, floats, dens, kind
        else:
            self.ints = np.concatenate([self.ints, ints])
            self.floats = np.concatenate([self.floats, floats])
            self.dens = np.concatenate([self.dens, dens])
            self.kind = np.concatenate([self.kind, kind])
        self._n = n

    def exact_pairs(self, codes, whole: bool = False):
        """``(num, den)`` of coded exact numbers (ints and Fractions, at least
        one Fraction, or with ``whole`` ints alone too), or None when another
        kind is among them."""
        import numpy as np

        if self._n != len(self.terms.values):
            self._build()
        k = self.kind[codes]
        if not k.size or not np.all((k == 1) | (k == 3)) or not (whole or np.any(k == 3)):
            return None
        return self.ints[codes], self.dens[codes]

    def order_keys(self, codes):
        """``(kind, int64 keys)`` in term order of coded booleans or of coded
        instants, all of one kind (equal keys, equal terms: one code), each
        code's key made once a run; None where another term or both
        kinds are among them."""
        import numpy as np

        if self._n != len(self.terms.values):
            self._build()
        k = self.kind[codes]
        if not k.size or k.min() != k.max() or k[0] < 4:
            return None
        keys = self._keys if self._keys is not None else np.zeros(0, dtype=np.int64)
        if keys.size < self._n:
            keys = self._keys = np.concatenate([keys, np.full(self._n - keys.size, _UNKEYED, dtype=np.int64)])
        new = np.flatnonzero(np.bincount(codes[keys[codes] == _UNKEYED]))  # (numpy 2.4's unique without an inverse: 20x slower)
        if new.size:
            keys[new] = np.fromiter(map(_ORDERED[int(k[0])], self.terms.values.take(new)), dtype=np.int64, count=new.size)
        return int(k[0]), keys[codes]

    def encode_rational(self, num, den):
        """Codes of the exact numbers ``num / den`` (arrays or a scalar ``den``)."""
        import numpy as np

        if num.size == 0:
            return np.zeros(0, dtype=np.int64)
        from .value_columns import pair_ids

        num, den = ex.reduce(num, den)  # lowest terms: equal values, equal pairs
        den = np.broadcast_to(den, num.shape)
        ids = pair_ids(num, den)  # (one sort: np.unique of the pairs as rows took ~0.2 s for 12,000)
        first = np.empty(int(ids.max()) + 1, dtype=np.int64)
        first[ids] = np.arange(len(ids), dtype=np.int64)  # (a row of each distinct pair)
        vals = pair_values(num[first], den[first])  # (reduced above: no gcd again)
        return self.terms.code_all(vals, distinct=True)[ids]

    def column(self, codes):
        """``(INT | FLOAT, numpy array)`` of the values of ``codes``."""
        if self._n != len(self.terms.values):
            self._build()
        import numpy as np

        k = self.kind[codes]
        if k.size == 0:
            return INT, self.ints[codes]
        lo, hi = int(k.min()), int(k.max())
        if lo == hi == 1:
            return INT, self.ints[codes]
        if lo >= 1 and hi == 2:
            # a float equal to an int shares its code (1000.0 is 1000): a
            # column with floats is a float column; its ints convert exactly
            if np.any(np.abs(self.ints[codes][k == 1]) > 2**53):
                raise Fallback("an integer beyond a float's exact range in a float column")
            return FLOAT, self.floats[codes]
        raise Fallback("a value that is not a 64-bit integer or a float, or both kinds in one column")

    def known(self, kind):
        """``(values, codes)`` of the integers (``kind`` INT) or the floats
        (FLOAT) coded so far (as far as the arrays are built), sorted by
        value: extended by the codes added since the last call, merged in
        by ``searchsorted`` (each number has one code; a float equal to an
        int coded first shares the int's code, kind 1, so it is not among
        the floats)."""
        import numpy as np

        dtype, mark, numbers = (np.int64, 1, self.ints) if kind == INT else (np.float64, 2, self.floats)
        vals, codes, n = self._known.get(kind) or (np.zeros(0, dtype), np.zeros(0, np.int64), 0)
        if n < self._n:
            new = np.flatnonzero(self.kind[n : self._n] == mark) + n
            order = np.argsort(numbers[new], kind="stable")
            new_vals, new_codes = numbers[new][order], new[order]
            at = np.searchsorted(vals, new_vals)
            vals, codes = np.insert(vals, at, new_vals), np.insert(codes, at, new_codes)
            self._known[kind] = (vals, codes, self._n)
        return vals, codes

    def encode(self, kind, arr):
        """Codes of the numbers ``arr`` (each distinct value coded once):
        numbers of its kind coded before are found by :meth:`known` (a
        Dictionary lookup each cost 200 strata of 1,000 rows 0.1 s, and a
        retraction's coding again of 1M distinct floats 4 s), the rest by
        the Dictionary."""
        import numpy as np

        if arr.size == 0:
            return np.zeros(0, dtype=np.int64)
        uniq, inv = np.unique(arr, return_inverse=True)
        before = len(self.terms.values)
        many = uniq.size >= _MANY
        if kind == FLOAT and many and self._n != before:
            self._build()  # (floats coded elsewhere, as a table's read at a session's first update)
        if self._n > 0 and (kind == INT or many):
            vals, known = self.known(kind)
            at = np.minimum(np.searchsorted(vals, uniq), max(len(vals) - 1, 0))
            found = vals[at] == uniq if len(vals) else np.zeros(len(uniq), dtype=bool)
            codes = np.where(found, known[at] if len(vals) else 0, -1)
            if not found.all():  # (a number the Dictionary holds in the other kind is not among them: it counts as a conflation there)
                codes[~found] = self.code_list(uniq[~found].tolist())
        else:
            codes = np.asarray(self.code_list(uniq.tolist()), dtype=np.int64)
        # the new codes' numbers are known: no Python pass over them (a few
        # floats wait for the next build: a concatenation copies every number)
        if self._n == before and (kind == INT or many):
            new = uniq[codes >= before]
            m = new.size
            self.ints = np.concatenate([self.ints, new if kind == INT else np.zeros(m, np.int64)])
            self.floats = np.concatenate([self.floats, new.astype(np.float64)])
            self.dens = np.concatenate([self.dens, np.ones(m, np.int64)])
            self.kind = np.concatenate([self.kind, np.full(m, 1 if kind == INT else 2, np.int8)])
            self._n = len(self.terms.values)
        return codes[inv.reshape(-1)]

    def code_list(self, py: list) -> list:
        """Codes of distinct Python values (np.unique's)."""
        return self.terms.code_all(py, distinct=True)


_A, _B = ast.Var("a0"), ast.Var("a1")


def integers(e, *arrays):
    """``e`` of the integer arrays (its variables ``a0``, ``a1``, ...):
    engine/int_arithmetic.py's lowering (shared with the Spark rounds), in
    numpy: a Polars query costs ~0.35 ms fixed (200 strata of 1,000 rows
    paid it twice each), and numpy is 3x faster at 200,000 rows too."""
    import numpy as np

    from ..int_arithmetic import lower

    try:
        with np.errstate(all="ignore"):  # (a mod by zero a check refuses is computed beside it)
            r = to_numpy(lower(e, col), {f"a{i}": a for i, a in enumerate(arrays)})
    except Refused as why:
        raise Fallback(str(why)) from None
    r = np.asarray(r, dtype=np.int64)
    return r if r.ndim else np.full(len(arrays[0]), r, dtype=np.int64)  # (of constants alone: one value a row)


def floats(lowering, *arrays):
    """``lowering(a0, a1, ...)`` of engine/float_arithmetic.py over the float
    arrays, in numpy (exprs.to_numpy); Fallback where it refuses a row."""
    import numpy as np

    try:
        with np.errstate(all="ignore"):  # (an overflow to inf is refused by its check, not a warning)
            return to_numpy(lowering(*(col(f"a{i}") for i in range(len(arrays)))), {f"a{i}": a for i, a in enumerate(arrays)})
    except Refused as why:
        raise Fallback(str(why)) from None


def _pair(kind, a):
    """An INT or EXACT operand as an exact pair."""
    import numpy as np

    return a if kind == EXACT else (a, np.ones(len(a), dtype=np.int64))


def _float_operand(kind, a):
    """An operand meeting a float in ``+ - * /``: an EXACT pair as
    ``float(Fraction)`` (one IEEE division of its numerator and
    denominator, both exact as floats within 2^53: rounded once, as
    Python's true division of the ints); Fallback beyond."""
    import numpy as np

    if kind != EXACT:
        return kind, a
    num, den = a
    if len(num) and (int(np.abs(num).max()) > 2**53 or int(den.max()) > 2**53):
        raise Fallback("an exact number beyond a float's exact range met a float")
    return FLOAT, num.astype(np.float64) / den.astype(np.float64)


def evaluate(expr, df, values):
    """``(kind, array)`` of ``expr`` for every row of ``df`` (EXACT: a
    ``(num, den)`` pair of arrays in lowest terms)."""
    import numpy as np

    n = df.height
    if isinstance(expr, ast.Var):
        series = df[var_column(expr.name)]
        if ex.is_exact(series):  # exact pairs (exact_columns.py); whole ones (a table's integers) by the int kernels,
            num, den = ex.parts(series)  # which meet floats as the rows do (1M rows of V * 2 + C went to the closures)
            if np.all(den == 1) and (not len(num) or int(np.abs(num).max()) < _BOUND):
                return INT, num
            return EXACT, (num, den)
        if is_values(series):  # float values, not codes (value_columns.py)
            return FLOAT, series.to_numpy()
        codes = series.to_numpy()
        pairs = values.exact_pairs(codes)
        if pairs is not None:
            return EXACT, pairs
        return values.column(codes)
    if isinstance(expr, ast.Const):
        v = expr.value
        if type(v) is int and -_BOUND < v < _BOUND:
            return INT, np.full(n, v, dtype=np.int64)
        if isinstance(v, Fraction) and abs(v.numerator) < _BOUND and v.denominator < _BOUND:
            return EXACT, (np.full(n, v.numerator, dtype=np.int64), np.full(n, v.denominator, dtype=np.int64))
        if type(v) is float and v == v and abs(v) != float("inf"):
            return FLOAT, np.full(n, v, dtype=np.float64)
        raise Fallback(f"the constant {v!r} in arithmetic")
    if isinstance(expr, ast.BinOp):
        lk, a = evaluate(expr.left, df, values)
        rk, b = evaluate(expr.right, df, values)
        op = expr.op
        if FLOAT in (lk, rk):  # an exact number meeting a float is its float, as Python's Fraction meets one
            lk, a = _float_operand(lk, a)
            rk, b = _float_operand(rk, b)
        if EXACT in (lk, rk) or (lk == rk == INT and op == "/"):
            r = ex.arith(op, _pair(lk, a), _pair(rk, b))
            if lk == rk == INT and np.all(r[1] == 1):
                return INT, r[0]  # a whole quotient of integers: an int, as the rows'
            return EXACT, r
        if lk == rk == INT:
            return INT, integers(ast.BinOp(op, _A, _B), a, b)
        if lk != rk and (np.any(np.abs(a if lk == INT else b) > 2**53)):
            raise Fallback("an integer beyond a float's exact range met a float")
        return FLOAT, floats(lambda x, y: fa.binop(op, x, y, str(expr)), a.astype(np.float64), b.astype(np.float64))
    if isinstance(expr, ast.Call):
        return _call(expr, df, values)
    raise Fallback(f"{expr} is not vectorised")


def _call(expr, df, values):
    """abs, floor, ceil, round, mod, sqrt, float, exact, min and max where numpy
    gives Python's exact answer: of integers the shared integer lowering
    (``floor(A / B)`` a floor division, no Fraction between), of floats
    the shared float lowering (float_arithmetic.function, the rounds'
    too), of exact pairs floor, ceil, abs, float and exact."""
    import numpy as np

    from chronolog.planner.backend_choice import round_digits

    name, args = expr.name, expr.args
    if name == "strlen" and len(args) == 1:  # (of strings: string_functions, in Polars)
        frames: dict = {}
        s = _string(args[0], df, values, frames)
        return INT, _polars(sf.strlen(s), frames, df.height).to_numpy()
    if name in ("floor", "ceil") and len(args) == 1 and isinstance(args[0], ast.BinOp) and args[0].op == "/":
        lk, x = evaluate(args[0].left, df, values)
        rk, y = evaluate(args[0].right, df, values)
        if lk == rk == INT:
            return INT, integers(ast.Call(name, (ast.BinOp("/", _A, _B),)), x, y)
    digits = round_digits(expr) if name == "round" and len(args) == 2 else None
    if name not in _CALLS or builtins.check_arity(name, len(args)) or (name == "round" and len(args) == 2 and digits is None):
        raise Fallback(f"{expr} is not vectorised")
    got = [evaluate(a, df, values) for a in args[:1 if name == "round" else None]]
    kinds, xs = {k for k, _ in got}, [x for _, x in got]
    if kinds == {INT}:
        if name in ("floor", "ceil", "exact") or (name == "round" and (digits or 0) >= 0):
            return INT, xs[0]  # a whole number is its own
        if name == "sqrt":  # a float where the engine's is one (float_arithmetic.sqrt_exact, the rounds' too)
            return FLOAT, floats(lambda a: fa.sqrt_exact(call("to_float", a), a, a.lt(0), a.compare(">", fa.EXACT_ROOT), str(expr)), xs[0])
        if name in ("abs", "mod", "min", "max"):
            return INT, integers(ast.Call(name, tuple(ast.Var(f"a{i}") for i in range(len(xs)))), *xs)
    if EXACT in kinds and FLOAT not in kinds:
        num, den = _pair(got[0][0], xs[0]) if len(xs) == 1 else (None, None)
        if name in ("floor", "ceil") and num is not None:  # floor division of the pair: exact
            return INT, (np.floor_divide(num, den) if name == "floor" else -np.floor_divide(-num, den))
        if name == "exact" and num is not None:  # an exact number is its own
            return EXACT, (num, den)
        if name == "abs" and num is not None:
            return EXACT, (np.abs(num), den)
        if name == "float" and num is not None and np.all(np.abs(num) <= 2**53) and np.all(den <= 2**53):
            # both exact as floats, so one IEEE division rounds n/d once, as Python's float(Fraction)
            return FLOAT, num.astype(np.float64) / den.astype(np.float64)
    elif EXACT not in kinds and (FLOAT in kinds or name == "float"):
        if name == "exact" or (name == "round" and digits):  # (a float's exact value: the rows' closure, which
            raise Fallback(f"{expr} is not vectorised")        # names an infinity; a float to digits: Python's round)
        if name in ("min", "max") or name != "float" and any(k == INT and np.any(np.abs(x) > 2**53) for k, x in got):
            raise Fallback(f"{expr}: floats beside exact numbers")  # (min of 0.0, -0.0 keeps the first)
        # int64 -> float64 rounds to nearest, ties to even: Python's float(int); within 2^53 exact
        r = floats(lambda *v: fa.function(name, list(v), str(expr), _BOUND, digits=digits), *(x.astype(np.float64, copy=False) for x in xs))
        classes = ["float" if k == FLOAT else "num" for k, _ in got] + ([] if digits is None else ["num"])
        return (INT if builtins.result_class(name, classes) == "num" else FLOAT), r
    raise Fallback(f"{expr} is not vectorised")


_CALLS = {"abs", "floor", "ceil", "round", "mod", "sqrt", "float", "exact", "min", "max"}  # (their arities: language/builtins.py)


def compare(cmp, df, values):
    """The boolean mask of ``cmp`` over ``df``."""
    import numpy as np

    plain = (ast.Var, ast.Const)
    if cmp.op in ("==", "!=") and isinstance(cmp.left, plain) and isinstance(cmp.right, plain):
        # equal terms have equal codes (one Dictionary per run); variables
        # first: coding a float value column may add the constant's value
        got = {id(x): _codes(x, df, values) for x in sorted((cmp.left, cmp.right), key=lambda x: isinstance(x, ast.Const))}
        a, b = got[id(cmp.left)], got[id(cmp.right)]
        if a is None or b is None:  # a constant no fact has: never equal
            return np.full(df.height, cmp.op == "!=")
        return (a == b) if cmp.op == "==" else (a != b)
    try:
        lk, a = evaluate(cmp.left, df, values)
        rk, b = evaluate(cmp.right, df, values)
    except Fallback:  # booleans or instants by their order keys, strings (code points, Python's order of str), or Fallback
        try:
            (lk, a, _), (rk, b, _) = _ordered(cmp.left, df, values), _ordered(cmp.right, df, values)
            if None not in (lk, rk) and lk != rk:
                raise Fallback(f"{cmp}: booleans beside instants")  # (the closures: the rows' answer or error)
            return to_numpy(col("a").compare(cmp.op, col("b")), {"a": a, "b": b})
        except Fallback:
            pass
        frames: dict = {}
        got = _string(cmp.left, df, values, frames).compare(cmp.op, _string(cmp.right, df, values, frames))
        return _polars(got, frames, df.height).to_numpy()
    if FLOAT in (lk, rk):
        return _float_versus_exact(cmp, lk, a, rk, b)
    if EXACT in (lk, rk):
        return ex.compare(cmp.op, _pair(lk, a), _pair(rk, b))
    return to_numpy(col("a").compare(cmp.op, col("b")), {"a": a, "b": b})


def _float_versus_exact(cmp, lk, a, rk, b):
    """Floats against floats or exact numbers, exactly (float_arithmetic.compare,
    the rounds' too): an exact constant (``F > 0.1``) through the floats
    around it, computed integers within 2^53 as floats; else Fallback
    (distinct_calls.py)."""
    import numpy as np

    kind, exact, side = (rk, b, cmp.right) if lk == FLOAT else (lk, a, cmp.left)
    if not len(a if lk == FLOAT else b):
        return np.zeros(0, dtype=bool)
    c = None
    if kind != FLOAT and not ast.variables_of(side):
        c = int(exact[0]) if kind == INT else Fraction(int(exact[0][0]), int(exact[1][0]))
    cond = fa.compare(cmp.op, col("a"), lk == FLOAT, col("b"), rk == FLOAT, c)
    if cond is None and kind == INT and not np.any(np.abs(exact) > 2**53):
        cond = col("a").compare(cmp.op, col("b"))  # (numpy compares them as floats: exact within 2^53)
    if cond is None:
        raise Fallback("an exact number computed in the row compared with a float")
    r = to_numpy(cond, {"a": a, "b": b})
    return r if np.ndim(r) else np.full(len(a if lk == FLOAT else b), bool(r))


def _codes(x, df, values):
    import numpy as np

    if isinstance(x, ast.Var):  # equality of terms is equality of codes: the values coded
        return column_codes(df[var_column(x.name)], values)
    c = values.terms.lookup(x.value)
    if c is None:
        if isinstance(x.value, (int, float, Fraction, str, Boolean, _dt.datetime)):
            return None
        raise Fallback(f"the constant {x.value!r}")
    return np.full(df.height, c, dtype=np.int64)


def extremes(expr, df, values):
    """The codes of ``min``/``max`` (nested) of booleans or of instants,
    variables and constants, by their order keys (:meth:`Values.order_keys`):
    the first of equal terms is their one code.  Fallback where a term is
    of another kind or two kinds meet (the rows' closures, or their error)."""
    import polars as pl

    return pl.Series(_ordered(expr, df, values)[2], dtype=pl.Int64)


def _ordered(e, df, values):
    """``(kind, keys, codes)`` of a boolean or instant ``e`` (kind None: no row)."""
    import numpy as np

    if isinstance(e, ast.Var) and not is_values(df[var_column(e.name)]):
        codes = df[var_column(e.name)].to_numpy()
        got = values.order_keys(codes) if codes.size else (None, codes)
    elif isinstance(e, ast.Const) and type(e.value) in (Boolean, _dt.datetime):
        code = values.terms.code(e.value)
        got = values.order_keys(np.array([code]))
        codes = np.full(df.height, code, dtype=np.int64)
        got = (got[0], np.full(df.height, got[1][0], dtype=np.int64))
    elif isinstance(e, ast.Call) and e.name in ("min", "max") and not builtins.check_arity(e.name, len(e.args)):
        args = [_ordered(a, df, values) for a in e.args]
        if len({k for k, _, _ in args} - {None}) > 1:
            raise Fallback(f"{e}: booleans beside instants")
        _, keys, codes = args[0]
        for _, k, c in args[1:]:
            better = k < keys if e.name == "min" else k > keys  # (strictly: the first of equal terms kept)
            keys, codes = np.where(better, k, keys), np.where(better, c, codes)
        return next((k for k, _, _ in args if k is not None), None), keys, codes
    else:
        got = None
    if got is None:
        raise Fallback(f"{e} is not a boolean or an instant")
    return got[0], got[1], codes


# ------------------------------------------------------------------ strings


def strings(expr, df, values):
    """The codes of the string ``expr`` (``concat``, ``substr``, ``upper``,
    ``lower``, ``min``/``max`` of strings, ``S + T``) over ``df``:
    engine/string_functions.py's lowering (the rounds' too) in Polars'
    string kernels, each distinct result coded once; Fallback where a
    value is not of the kind the function takes (the rows' error, or a
    term Polars cannot hold: a lone surrogate)."""
    import polars as pl

    frames: dict = {}
    got = _polars(_string(expr, df, values, frames), frames, df.height)
    if got.null_count():
        raise Fallback("a string function without a value")
    # each distinct result and each row's place among them by their hashes
    # (an eighth of the CPU of a unique and a replace_strict), then a join
    # codes them (Dictionary.code_names)
    from chronolog.language.string_columns import encode_any_order

    enc = encode_any_order(got)
    codes = values.terms.code_names(enc.dictionary)
    return pl.Series(codes[enc.indices], dtype=pl.Int64)


def _polars(tree, frames: dict, n: int):
    """The Polars Series of the Expr ``tree`` over the columns ``frames``
    ({name: Series}, ``n`` rows); Fallback where a check refuses a row."""
    import polars as pl

    df = pl.DataFrame(frames) if frames else pl.DataFrame({"_": pl.repeat(0, n, eager=True)})
    got, why = with_values(df, {"_out": tree})
    if got is None:
        raise Fallback(why)
    return got["_out"]


def _column(frames: dict, series):
    """A column of ``frames`` holding ``series``, as an Expr."""
    name = f"c{len(frames)}"
    frames[name] = series.alias(name)
    return col(name)


def _string(e, df, values, frames: dict):
    """The Expr of the string-valued ``e`` over columns it adds to ``frames``."""
    if isinstance(e, ast.Const):
        if type(e.value) is not str:
            raise Fallback(f"the constant {e.value!r} where a string is taken")
        return lit(e.value)
    if isinstance(e, ast.Var):
        return _column(frames, _term_strings(df[var_column(e.name)], values, texts=False))
    if isinstance(e, ast.BinOp) and e.op == "+":  # of strings: their concatenation (of numbers: no string)
        return sf.concat(_string(e.left, df, values, frames), _string(e.right, df, values, frames))
    if not isinstance(e, ast.Call) or builtins.check_arity(e.name, len(e.args)):
        raise Fallback(f"{e} is not a string")
    name, args = e.name, e.args
    if name == "concat":
        return sf.concat(*(_text(a, df, values, frames) for a in args))
    if name in ("upper", "lower"):
        return sf.case(name, _string(args[0], df, values, frames))
    if name in ("min", "max"):
        return sf.extreme(name, [_string(a, df, values, frames) for a in args])
    if name == "substr":
        s = _string(args[0], df, values, frames)
        start = _integer(args[1], df, values, frames)
        end = None if len(args) < 3 else exact("+", start, _integer(args[2], df, values, frames), f"{e} overflows")
        return sf.substr(s, start, end)
    raise Fallback(f"{e} is not a string")


def whole_ints(kind, a):
    """``(kind, a)`` of :func:`evaluate`, exact pairs of whole numbers
    only (an exact column of integers) as ``(INT, numerators)``: where a
    kernel takes integers alone (a position, a product)."""
    if kind == EXACT and ex.whole(*a):
        return INT, a[0]
    return kind, a


def _integer(e, df, values, frames: dict):
    """A position or a length: the integers of ``e`` (the kernels'), as an Expr."""
    import polars as pl

    if isinstance(e, ast.Const) and type(e.value) is int and -_BOUND < e.value < _BOUND:
        return lit(e.value)
    kind, a = whole_ints(*evaluate(e, df, values))
    if kind != INT:
        raise Fallback(f"{e}: a position or length that is not a whole number")
    return _column(frames, pl.Series(a, dtype=pl.Int64))


def _text(e, df, values, frames: dict):
    """The engine's text of the term ``e`` in ``concat`` (builtins._concat:
    a string itself, else language/text.format_term), as an Expr."""
    from chronolog.language.text import format_term

    if isinstance(e, ast.Const):
        return lit(e.value if type(e.value) is str else format_term(e.value))
    if isinstance(e, ast.Var):
        return _column(frames, _term_strings(df[var_column(e.name)], values, texts=True))
    try:
        return _string(e, df, values, frames)
    except Fallback:  # a number computed in the row: an integer's digits (a float's repr is Python's alone)
        return sf.text(_integer(e, df, values, frames), "int")


def _term_strings(series, values, texts: bool):
    """The strings of a term column (``texts``: any term's text, as
    ``concat`` prints it); Fallback where a term is no string (and not
    ``texts``) or Polars cannot hold it.  The names of a fact file are a
    Polars Series already (encoding.TermValues): gathered, no Python
    string; the other terms are made strings once per distinct code."""
    import numpy as np
    import polars as pl

    from chronolog.language.text import format_term

    terms = values.terms.values
    if is_values(series) or ex.is_exact(series):  # (floats and exact numbers as values: not strings)
        if not texts:
            raise Fallback("a number where a string is taken")
        if ex.is_exact(series):  # (an exact number's text: format_number, as format_term prints a number)
            un, ud, at = ex.distinct(*ex.parts(series))
            return ex.texts(un, ud).gather(at)
        raise Fallback("a float printed in concat")
    codes = series.to_numpy()
    if not len(codes):
        return pl.Series([], dtype=pl.String)
    got = terms.strings_at(codes)
    if got is not None:
        return got
    u, inv = np.unique(codes, return_inverse=True)
    got = terms.take(u)
    if texts:
        got = [v if type(v) is str else format_term(v) for v in got]
    elif not all(type(v) is str for v in got):
        raise Fallback("a term that is not a string where a string is taken")
    try:
        return pl.Series(got, dtype=pl.String).gather(inv.reshape(-1))
    except Exception:  # noqa: BLE001 - a lone surrogate: no UTF-8 (the rows' closures)
        raise Fallback("a string Polars cannot hold") from None
