"""ConditionNode and AssignNode on columns: a comparison keeps the rows
where it holds, an assignment adds the variable's code column (a float result: its
values, value_columns.py); the
arithmetic is expressions.py's (exact, or Fallback to rows)."""

from __future__ import annotations

from chronolog.language import ast

from .base import ColumnMapNode
from .exact_columns import exact_series
from .expressions import EXACT, FLOAT, compare, evaluate
from .scan import var_column
from .value_columns import evaluate_by_kind, float_series, mixed


class ConditionNode(ColumnMapNode):
    def __init__(self, child, comparison, values):
        super().__init__(child)
        self.comparison, self.values = comparison, values

    def label(self) -> str:
        return f"Condition {self.comparison}"

    def process(self, df):
        import polars as pl

        return df.filter(pl.Series(compare(self.comparison, df, self.values)))


class AssignNode(ColumnMapNode):
    def __init__(self, child, var, expr, values):
        super().__init__(child)
        self.var, self.expr, self.values = var, expr, values

    def label(self) -> str:
        return f"Assign {self.var} = {self.expr}"

    def process(self, df):
        import polars as pl

        e = self.expr
        if isinstance(e, ast.Var):
            col = df[var_column(e.name)]
        elif isinstance(e, ast.Const):
            col = pl.Series([self.values.terms.code(e.value)] * df.height, dtype=pl.Int64)
        else:
            if mixed(e, df, self.values):  # ints beside floats: each row computed as its own kinds
                col = pl.Series(evaluate_by_kind(e, df, self.values), dtype=pl.Int64)
            else:
                kind, arr = evaluate(e, df, self.values)
                if kind == EXACT:  # exact pairs: a value column too (exact_columns.py)
                    col = exact_series(var_column(self.var), *arr)
                elif kind == FLOAT:  # a value column: coded only where equality needs it
                    col = float_series(var_column(self.var), arr)
                else:
                    col = pl.Series(self.values.encode(kind, arr), dtype=pl.Int64)
        return df.with_columns(col.alias(var_column(self.var)))
