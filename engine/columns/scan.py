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
        exact = _exact_tests(df, self.terms)
        if exact is None and any(isinstance(t, ast.Const) or t in self.terms[:i] for i, t in enumerate(self.terms)):
            from .value_columns import codes

            df = codes(df, [str(i) for i in range(len(self.terms))], self.state.values)  # constants are codes
        first: dict = {}
        conds = []
        for i, t in enumerate(self.terms):
            col = pl.col(str(i))
            if exact is not None and i in exact:  # (a constant or a repeated variable on exact pairs)
                conds.append(exact[i])
            elif isinstance(t, ast.Const):
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


def _exact_tests(df, terms):
    """The tests of a scan's constants and repeated variables, by argument,
    where each falls on exact value columns (exact_columns.py) and needs no
    code: a whole or rational constant compared with its pair, a variable
    repeated over two exact columns by their pairs (lowest terms: equal
    pairs, equal values).  None where any test needs codes (a constant of
    another kind, a variable over an exact and a coded column): every
    value column is coded then (a path's 2M exact rows coded for
    ``path(X, X)``: 4.8 s)."""
    from fractions import Fraction

    import polars as pl

    from .exact_columns import is_exact

    tests, first = {}, {}
    for i, t in enumerate(terms):
        col = str(i)
        if isinstance(t, ast.Const):
            if not is_exact(df[col]):
                return None
            v = t.value
            if type(v) is int:
                num, den = v, 1
            elif type(v) is Fraction:
                num, den = v.numerator, v.denominator
            else:
                return None
            if not -(1 << 63) <= num < 1 << 63:
                return None
            tests[i] = (pl.col(col).struct.field("n") == num) & (pl.col(col).struct.field("d") == den)
        elif t.name in first:
            j = first[t.name]
            if not (is_exact(df[col]) and is_exact(df[j])):
                return None
            tests[i] = pl.col(col) == pl.col(j)
        else:
            first[t.name] = col
    return tests
