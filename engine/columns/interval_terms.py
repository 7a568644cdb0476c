"""Interval terms on columns (planner/interval_terms.py): time as data and
back, the rows' engine/rows/interval_terms.py per column.

* :class:`WrapNode` (``lit@[S,E]`` in a body) appends the start and end of
  each row's maximal interval as term columns: the distinct ends are turned
  into numbers (``±inf`` for an unbounded end) and coded once each.
* :class:`PlaceNode` (a head ``p(X)@[S,E]``) takes each row's interval from
  two of its values: distinct values become interval codes once each; a
  float is the number its shortest text shows (language/float_times.py),
  as on rows.  A value that is not a number on the run's time grid (NaN,
  a string, a new denominator) raises Fallback: rows decide, with their
  error.
Time capture (``lit@T``) stays on rows."""

from __future__ import annotations

from fractions import Fraction

from chronolog.language import ast
from chronolog.language.float_times import float_time, float_time_values
from chronolog.language.timeline import NEG_INF, POS_INF

from .base import ColumnMapNode
from .encoding import NEG, POS, Fallback
from .scan import var_column


class WrapNode(ColumnMapNode):
    def __init__(self, child, start_var, end_var, terms, scale):
        super().__init__(child)
        self.start_var, self.end_var, self.terms, self.scale = start_var, end_var, terms, scale

    def process(self, df):
        import polars as pl

        point = self.scale.point

        def values_of(codes, inf, sentinel):
            import numpy as np

            uniq, inv = np.unique(codes, return_inverse=True)
            vals = [inf if c == sentinel else point(c >> 1) for c in uniq.tolist()]
            return np.asarray(self.terms.code_all(vals), dtype=np.int64)[inv.reshape(-1)]

        return df.with_columns(
            pl.Series(var_column(self.start_var), values_of(df["s"].to_numpy(), NEG_INF, NEG)),
            pl.Series(var_column(self.end_var), values_of(df["e"].to_numpy(), POS_INF, POS)),
        )


class PlaceNode(ColumnMapNode):
    def __init__(self, child, timed, terms, scale):
        super().__init__(child)
        self.timed, self.terms, self.scale = timed, terms, scale

    def _codes(self, term, df, start):
        import numpy as np
        import polars as pl

        t = self.timed
        if isinstance(term, ast.Const):
            vals, inv = [term.value], np.zeros(df.height, dtype=np.int64)
        else:
            col = df[var_column(term.name)]
            if isinstance(col.dtype, pl.Struct):  # exact pairs (exact_columns.py): each distinct value once
                from .exact_columns import distinct, parts, python_values

                un, ud, inv = distinct(*parts(col))
                vals = python_values(un, ud)
            elif col.dtype != pl.Int64:  # float values (value_columns.py): each distinct float once, exactly
                floats = col.cast(pl.Float64).to_numpy()
                if np.isnan(floats).any():
                    raise Fallback(f"an interval end of {term.name} that is NaN")  # (the rows' error, at the rule)
                uniq, inv = np.unique(floats, return_inverse=True)
                vals = float_time_values(uniq)
            else:
                uniq, inv = np.unique(col.to_numpy(), return_inverse=True)
                vals = self.terms.values.take(uniq)
        out = []
        for v in vals:
            if type(v) is float and v == v:  # a coded float: the number its shortest text shows
                v = float_time(v)
            if v == (NEG_INF if start else POS_INF):
                out.append(NEG if start else POS)
                continue
            if type(v) not in (int, Fraction):  # the wrong infinity, NaN, strings: rows decide (or report)
                raise Fallback(f"an interval end {v!r} that is not an exact number")
            out.append(self.scale.start(v, t.start_closed) if start else self.scale.end(v, t.end_closed))
        return np.asarray(out, dtype=np.int64)[inv.reshape(-1)]

    def process(self, df):
        import polars as pl

        s = self._codes(self.timed.start, df, True)
        e = self._codes(self.timed.end, df, False)
        return df.with_columns(pl.Series("s", s), pl.Series("e", e)).filter(pl.col("s") < pl.col("e"))
