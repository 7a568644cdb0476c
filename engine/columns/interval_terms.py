"""Interval terms on columns (planner/interval_terms.py): time as data and
back, the rows' engine/rows/interval_terms.py per column, the numbers and
codes each way engine/interval_terms.py's (written once with the Spark
rounds), in numpy over the distinct values.

* :class:`WrapNode` (``lit@[S,E]`` in a body) appends the start and end of
  each row's maximal interval as term columns: the distinct ends become
  numbers (``±inf`` for an unbounded end) and are coded once each.
* :class:`PlaceNode` (a head ``p(X)@[S,E]``) takes each row's interval from
  two of its values: distinct values become interval codes once each; a
  float is the number its shortest text shows (language/float_times.py),
  as on rows.  A value that is not a number on the run's time grid (NaN,
  a string, a new denominator) raises Fallback: rows decide, with their
  error.
* :class:`CaptureNode` (``lit@T`` in a body) repeats each row once per
  integer time point its interval meets, on the part inside
  ``[point, point + 1)``, the point appended as a term: in numpy, the
  pieces' codes the interval's met with each point's range."""

from __future__ import annotations

import math
from fractions import Fraction

from chronolog.language import ast
from chronolog.language.float_times import float_time, float_time_values
from chronolog.language.timeline import NEG_INF, POS_INF

from ..exprs import Refused, col, to_numpy
from ..interval_codes import NEG, POS
from ..interval_terms import code_of, number_of
from . import exact_columns as ex
from .base import ColumnMapNode
from .encoding import LIMIT, Fallback
from .scan import var_column


class WrapNode(ColumnMapNode):
    def __init__(self, child, start_var, end_var, terms, scale):
        super().__init__(child)
        self.start_var, self.end_var, self.terms, self.scale = start_var, end_var, terms, scale

    def _terms(self, codes, sentinel, inf):
        """The term codes of the ends ``codes``: each distinct end's time as a
        number over the grid's ``L`` (engine/interval_terms.py), ``inf`` at
        the ``sentinel``."""
        import numpy as np

        uniq, inv = np.unique(codes, return_inverse=True)
        units = to_numpy(number_of(col("c"), self.scale.L, self.scale.L), {"c": uniq}).tolist()  # (over L: a number always)
        vals = [inf if c == sentinel else self.scale.point(u) for c, u in zip(uniq.tolist(), units)]
        return np.asarray(self.terms.code_all(vals), dtype=np.int64)[inv.reshape(-1)]

    def process(self, df):
        import polars as pl

        return df.with_columns(
            pl.Series(var_column(self.start_var), self._terms(df["s"].to_numpy(), NEG, NEG_INF)),
            pl.Series(var_column(self.end_var), self._terms(df["e"].to_numpy(), POS, POS_INF)),
        )


class CaptureNode(ColumnMapNode):
    def __init__(self, child, var, terms, scale):
        super().__init__(child)
        self.var, self.terms, self.scale = var, terms, scale

    def process(self, df):
        import numpy as np
        import polars as pl

        from .code_frames import ranges

        s, e = df["s"].to_numpy(), df["e"].to_numpy()
        if len(s) and ((s == NEG) | (e == POS)).any():
            raise Fallback("a time capture over an unbounded interval")  # (the rows' error, at the rule)
        grid = self.scale.L
        # (a code's time in grid units is code >> 1, whatever the end's closedness)
        first = (s >> 1) // grid
        count = (e >> 1) // grid - first + 1
        row = np.repeat(np.arange(len(s)), count)
        point = ranges(first, count)
        del first, count
        s = np.maximum(s[row], 2 * grid * point)  # (a point's range [k, k + 1): codes 2kL to 2(k + 1)L)
        e = np.minimum(e[row], 2 * grid * (point + 1))
        keep = np.flatnonzero(s < e)
        point = point[keep]
        uniq, inv = np.unique(point, return_inverse=True)
        codes = np.asarray(self.terms.code_all(uniq.tolist()), dtype=np.int64)[inv.reshape(-1)]
        return df[row[keep]].with_columns(pl.Series("s", s[keep]), pl.Series("e", e[keep]),
                                          pl.Series(var_column(self.var), codes))


class PlaceNode(ColumnMapNode):
    def __init__(self, child, timed, terms, scale):
        super().__init__(child)
        self.timed, self.terms, self.scale = timed, terms, scale

    def _values(self, term, df):
        """The distinct values of ``term`` (a float as the number its shortest
        text shows) and each row's position among them."""
        import numpy as np
        import polars as pl

        if isinstance(term, ast.Const):
            return [term.value], np.zeros(df.height, dtype=np.int64)
        c = df[var_column(term.name)]
        if ex.is_exact(c):  # exact pairs (exact_columns.py)
            un, ud, inv = ex.distinct(*ex.parts(c))
            return ex.python_values(un, ud), inv
        if c.dtype != pl.Int64:  # float values (value_columns.py): each distinct float once, exactly
            floats = c.cast(pl.Float64).to_numpy()
            if np.isnan(floats).any():
                raise Fallback(f"an interval end of {term.name} that is NaN")  # (the rows' error, at the rule)
            uniq, inv = np.unique(floats, return_inverse=True)
            return float_time_values(uniq), inv.reshape(-1)
        uniq, inv = np.unique(c.to_numpy(), return_inverse=True)
        vals = self.terms.values.take(uniq)
        return [float_time(v) if type(v) is float and math.isfinite(v) else v for v in vals], inv.reshape(-1)

    def _codes(self, term, df, start):
        """Each row's start (end) code: the distinct exact values over their
        common denominator through engine/interval_terms.code_of, the
        infinity of the end's side its sentinel."""
        import numpy as np

        vals, inv = self._values(term, df)
        inf = NEG_INF if start else POS_INF
        unbounded = np.array([type(v) is float and v == inf for v in vals], dtype=bool)
        exact = [0 if u else v for v, u in zip(vals, unbounded.tolist())]
        if any(not (type(v) is int or isinstance(v, Fraction)) or abs(v.numerator) >= ex.BOUND or v.denominator >= ex.BOUND for v in exact):
            raise Fallback("an interval end that is not an exact number of 64 bits")  # (NaN, strings, the other infinity: rows decide or report)
        n, den = ex.common(np.array([v.numerator for v in exact], dtype=np.int64), np.array([v.denominator for v in exact], dtype=np.int64))
        bit = (0 if self.timed.start_closed else 1) if start else (1 if self.timed.end_closed else 0)
        try:
            codes = to_numpy(code_of(col("n"), den, self.scale.L, bit, (-LIMIT, LIMIT)), {"n": n})
        except Refused as why:
            raise Fallback(str(why)) from None
        return np.where(unbounded, NEG if start else POS, codes)[inv]

    def process(self, df):
        import polars as pl

        s = self._codes(self.timed.start, df, True)
        e = self._codes(self.timed.end, df, False)
        return df.with_columns(pl.Series("s", s), pl.Series("e", e)).filter(pl.col("s") < pl.col("e"))

