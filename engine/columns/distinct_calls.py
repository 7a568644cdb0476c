"""What the kernels do not vectorise -- a built-in function (``exp(V)``,
``sqrt`` of an exact number, a float printed by ``concat``), an exact
number meeting a float, a string function of terms of another kind --
computed by the rows' own closures
(engine/rows/expressions.py over language/builtins.py) once per DISTINCT
tuple of the values of the expression's variables, and gathered back to
every row by numpy.  Exact by construction (the rows' code on the rows'
values), and the cost follows the distinct values, not the rows: 200,000
rows of 5,000 values call ``exp`` 5,000 times.

An error (a division by zero, a string where a number is expected) sends
the stratum to the rows, which raise it with the rule's position, naming
the value their order meets first: the message is theirs, whatever order
the columns met the values in (the columns may join a rule's atoms in
another order, and the test of a bound variable is then an assignment)."""

from __future__ import annotations

from chronolog.language import ast
from chronolog.language.errors import DataError

from .encoding import Fallback
from .exact_columns import is_exact, parts
from .scan import var_column
from .value_columns import float_series, is_values, python_list


def assigned(expr, where, df, values, name: str):
    """The column ``name`` of ``expr`` over ``df``: codes, or float values
    where every result is a finite float (value_columns.py: a float is then
    coded only where equality needs it)."""
    import math

    import numpy as np
    import polars as pl

    from ..rows.expressions import compile_expr

    slots, tuples, inverse = _distinct(ast.variables_of(expr), df, values)
    fn = compile_expr(expr, slots, where)
    results = _each(fn, tuples)
    if results and all(type(r) is float and math.isfinite(r) for r in results):
        return float_series(name, np.asarray(results, dtype=np.float64)[inverse])
    codes = values.terms.code_all(results) if results else np.zeros(0, dtype=np.int64)
    return pl.Series(name, codes[inverse], dtype=pl.Int64)


def holds(cmp, df, values):
    """The boolean mask of the comparison ``cmp`` over ``df``."""
    import numpy as np

    from ..rows.expressions import compile_condition

    slots, tuples, inverse = _distinct(ast.variables_of(cmp), df, values)
    test = compile_condition(cmp, slots)
    return np.asarray(_each(test, tuples), dtype=bool)[inverse]


def _each(fn, tuples) -> list:
    """``fn`` of each tuple; Fallback at an error, which the rows then raise."""
    try:
        return [fn(t) for t in tuples]
    except DataError as e:
        raise Fallback(f"an expression fails: {e.message}") from None


def _distinct(names, df, values):
    """``(slots, tuples, inverse)``: the variables' positions in a tuple,
    the distinct tuples of their Python values in ``df``, and each row's
    tuple number."""
    import numpy as np

    names = sorted(names)
    n = df.height
    ids = np.zeros(n, dtype=np.int64)
    for c in names:
        for key in _keys(df[var_column(c)]):
            k, inv = _dense(key)
            ids = ids * k + inv  # (below n * k <= n**2: no overflow under 3e9 rows)
            _, ids = _dense(ids)
    count, ids = _dense(ids)
    first = np.empty(count, dtype=np.int64)
    first[ids] = np.arange(n)  # (a row of each tuple: any one holds its values)
    cols = [python_list(df[var_column(c)].gather(first), values.terms) for c in names]
    tuples = list(zip(*cols)) if cols else [()] * count
    return {c: i for i, c in enumerate(names)}, tuples, ids


def _keys(col) -> list:
    """Integer or float arrays whose tuples tell the column's values apart."""
    if is_exact(col):
        return list(parts(col))  # (lowest terms: equal values, equal pairs)
    if is_values(col):
        return [col.to_numpy() + 0.0]  # (-0.0 is 0.0, one term as on rows)
    return [col.to_numpy()]


def _dense(key):
    """``(k, ids)``: the distinct values of ``key`` numbered 0..k-1 in order."""
    import numpy as np

    n = key.size
    if key.dtype.kind in "iu" and n and 0 <= key.min() and key.max() < 4 * n + (1 << 16):
        # codes: a table over their range, no sort (5,000 names over 200,000 rows)
        present = np.zeros(int(key.max()) + 1, dtype=bool)
        present[key] = True
        rank = np.cumsum(present) - 1
        return int(present.sum()), rank[key]
    u, inv = np.unique(key, return_inverse=True)
    return u.size, inv.reshape(-1)
