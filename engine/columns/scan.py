"""ScanNode: one body atom over a relation's columns: keeps the rows whose
constants and repeated variables match, and names the columns by variable."""

from __future__ import annotations

from chronolog.language import ast

from ..node import Node
from .base import frame_of


def var_column(name: str) -> str:
    return "v:" + name


class ScanNode(Node):
    def __init__(self, pred: str, terms: tuple, view: str, state):
        self.pred, self.terms, self.view, self.state = pred, terms, view, state
        self.new_vars = []
        seen = set()
        for t in terms:
            if isinstance(t, ast.Var) and t.name not in seen:
                seen.add(t.name)
                self.new_vars.append(t.name)
        self._done = False

    def reset(self) -> None:
        self._done, self._batch = False, None

    def next(self) -> bool:
        if self._done:
            return False
        self._done = True
        import polars as pl

        df = self.state.table(self.pred, self.view)
        if any(isinstance(t, ast.Const) or t in self.terms[:i] for i, t in enumerate(self.terms)):
            from .value_columns import codes

            df = codes(df, [str(i) for i in range(len(self.terms))], self.state.values)  # constants are codes
        first: dict = {}
        conds = []
        for i, t in enumerate(self.terms):
            col = pl.col(str(i))
            if isinstance(t, ast.Const):
                c = self.state.terms.lookup(t.value)
                if c is None:  # no fact of the run has this value
                    return False
                conds.append(col == c)
            elif t.name in first:
                conds.append(col == pl.col(first[t.name]))
            else:
                first[t.name] = str(i)
        if conds:
            df = df.filter(*conds)
        named = [df.get_column(first[v]).alias(var_column(v)) for v in self.new_vars]
        self._batch = frame_of([*named, df.get_column("s"), df.get_column("e")])
        return self._batch.height > 0
