"""ConditionNode and AssignNode on columns: a comparison keeps the rows
where it holds, an assignment adds the variable's code column (a float result: its
values, value_columns.py); the
arithmetic and the string functions are expressions.py's kernels, and
what they do not vectorise (``exp``, a float printed by ``concat``) the
rows' closures once per distinct value (distinct_calls.py)."""

from __future__ import annotations

from chronolog.language import ast

from .base import ColumnMapNode
from .distinct_calls import assigned, holds
from .encoding import Fallback
from .exact_columns import exact_series
from .expressions import EXACT, FLOAT, compare, evaluate, extremes, strings
from .scan import var_column
from .value_columns import evaluate_by_kind, float_series, mixed


class ConditionNode(ColumnMapNode):
    def __init__(self, child, comparison, values):
        super().__init__(child)
        self.comparison, self.values = comparison, values

    def process(self, df):
        import polars as pl

        try:
            mask = compare(self.comparison, df, self.values)
        except Fallback:
            mask = holds(self.comparison, df, self.values)
        return df.filter(pl.Series(mask))


class AssignNode(ColumnMapNode):
    def __init__(self, child, var, expr, values, where=None):
        super().__init__(child)
        self.var, self.expr, self.values, self.where = var, expr, values, where

    def process(self, df):
        import polars as pl

        e = self.expr
        if isinstance(e, ast.Var):
            col = df[var_column(e.name)]
        elif isinstance(e, ast.Const):
            col = pl.Series([self.values.terms.code(e.value)] * df.height, dtype=pl.Int64)
        else:
            try:
                col = self._vectorised(e, df)
            except Fallback:
                try:  # a string function (expressions.strings), min/max of booleans or instants (extremes)
                    col = strings(e, df, self.values)
                except Fallback:
                    try:
                        col = extremes(e, df, self.values)
                    except Fallback:
                        col = assigned(e, self.where, df, self.values, var_column(self.var))
        name = var_column(self.var)
        # (a new column: added to the batch without a query, as base.frame_of)
        if name not in df.columns and len(col) == df.height:
            return df.hstack([col.alias(name)])
        return df.with_columns(col.alias(name))

    def _vectorised(self, e, df):
        """The kernels' column of ``e`` (expressions.py); Fallback where they refuse it."""
        import polars as pl

        if mixed(e, df, self.values):  # ints beside floats: each row computed as its own kinds
            return pl.Series(evaluate_by_kind(e, df, self.values), dtype=pl.Int64)
        kind, arr = evaluate(e, df, self.values)
        if kind == EXACT:  # exact pairs: a value column too (exact_columns.py)
            return exact_series(var_column(self.var), *arr)
        if kind == FLOAT:  # a value column: coded only where equality needs it
            return float_series(var_column(self.var), arr)
        return pl.Series(self.values.encode(kind, arr), dtype=pl.Int64)
