"""LinearNode: selection and arithmetic on each row — conditions filter,
assignments append a new variable (or, when the variable is already bound,
test equality)."""

from __future__ import annotations

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
        return [row for row in batch if test(row[0])]


class AssignNode(MapNode):
    def __init__(self, child, var, expr, slots, where):
        super().__init__(child)
        self.var, self.expr = var, expr
        self.fn = compile_expr(expr, slots, where)

    def label(self) -> str:
        return f"Linear assign {self.var} = {self.expr}"

    def process(self, batch):
        fn = self.fn
        return [(b + (fn(b),), iv) for b, iv in batch]
