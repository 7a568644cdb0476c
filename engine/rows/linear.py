"""LinearNode: selection and arithmetic on each row — conditions filter,
assignments append a new variable (or, when the variable is already bound,
test equality)."""

from __future__ import annotations

from chronolog.language.errors import DataError

from .expressions import compile_condition, compile_expr
from ..node import MapNode


class ConditionNode(MapNode):
    def __init__(self, child, comparison, slots):
        super().__init__(child)
        self.comparison = comparison
        self.test = compile_condition(comparison, slots)

    def label(self) -> str:
        return f"Linear filter {self.comparison}"

    def process(self, batch):
        test = self.test
        try:
            return [row for row in batch if test(row[0])]
        except DataError:
            _raise_first_in_term_order(test, batch)
            raise


class AssignNode(MapNode):
    def __init__(self, child, var, expr, slots, where):
        super().__init__(child)
        self.var, self.expr = var, expr
        self.fn = compile_expr(expr, slots, where)

    def label(self) -> str:
        return f"Linear assign {self.var} = {self.expr}"

    def process(self, batch):
        fn = self.fn
        try:
            return [(b + (fn(b),), iv) for b, iv in batch]
        except DataError:
            _raise_first_in_term_order(fn, batch)
            raise


def _raise_first_in_term_order(fn, batch) -> None:
    """Raise the error of the least failing binding of ``batch`` in term
    order (only after one failed: nothing on the good path), so that the
    message names the same values whatever order the rows came in (the
    columns hand the rows their relations in another order).  The error
    keeps that order (``binding_order``): Spark's tasks each raise their
    least, and the driver reports the least of them (connectors/spark.py)."""
    from chronolog.language.text import term_sort_key

    def order(row):
        return tuple(term_sort_key(v) for v in row[0]), row[1][0], not row[1][2]

    for row in sorted(batch, key=order):
        try:
            fn(row[0])
        except DataError as e:
            e.binding_order = order(row)
            raise
