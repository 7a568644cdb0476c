"""OutputNode: the end of a rule's pipeline on columns: the head atom's code
columns from the bindings (constants encoded), a head box (a shift of the
body interval) and the horizon, which confines the user's predicates."""

from __future__ import annotations

from chronolog.language import ast

from .base import ColumnMapNode, frame_of
from .scan import var_column
from ..interval_shift import clipped, shift
from . import code_frames
from .temporal import apply


class OutputNode(ColumnMapNode):
    def __init__(self, child, head_pred, head_terms, terms_dict, head_shift=None, horizon=None, scale=None):
        super().__init__(child)
        self.head_pred, self.head_terms = head_pred, head_terms
        self.shift_u = scale.window(head_shift) if head_shift is not None else None
        self.horizon = scale.codes(horizon) if horizon is not None else None
        self.consts = {i: terms_dict.code(t.value) for i, t in enumerate(head_terms) if isinstance(t, ast.Const)}

    def process(self, df):
        import polars as pl

        if self.shift_u is not None:
            df = apply(df, shift, self.shift_u)
        if self.horizon is not None:
            df = code_frames.ends(df, dict(zip("se", clipped(*self.horizon))), cut=True)
        cols = []
        for i, t in enumerate(self.head_terms):
            if i in self.consts:
                cols.append(pl.repeat(self.consts[i], df.height, dtype=pl.Int64, eager=True).alias(str(i)))
            else:
                cols.append(df.get_column(var_column(t.name)).alias(str(i)))
        return frame_of([*cols, df.get_column("s"), df.get_column("e")])
