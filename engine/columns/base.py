"""The pull interface of engine/node.py for columns: a batch is a polars
DataFrame (one column per bound variable, ``v:NAME``, and the interval codes
``s``, ``e``) instead of a list of Python tuples."""

from __future__ import annotations

from ..node import Node
from .native import frame


class ColumnMapNode(Node):
    """A node that turns each input batch into one output batch (or none).
    A columnar pipeline is built for one pull (lowering.py), or reset
    for the next (a maintenance round's, kept a session: maintenance.py),
    and described by the plan's operators (planner/physical.py), not by its nodes."""

    def __init__(self, child):
        self.child = child
        self.children = (child,)
        self._batch = None

    def reset(self) -> None:
        """Ready for another pull; no frame of the last one held."""
        self._batch = None
        super().reset()

    def next(self) -> bool:
        while self.child.next():
            out = self.process(self.child.get())
            if out is not None and out.height:
                self._batch = out
                return True
        return False

    def process(self, df):
        raise NotImplementedError


class AgainstTableNode(ColumnMapNode):
    """A ColumnMapNode that reads each batch against the whole relation of a
    second pipeline (a join's atom, a negation's holes, Since's left
    operand), drained at the first batch of a pull and kept until reset."""

    def __init__(self, child, other, values=None):
        """``values``: codes float value columns that meet codes (value_columns.py)."""
        super().__init__(child)
        self.other, self.values = other, values
        self._table = None

    def reset(self) -> None:
        self._table = None
        self.other.reset()
        super().reset()

    def prepared(self, table):
        """The drained relation as the node reads it (kept for the pull)."""
        return table

    def table(self):
        """The second pipeline's relation, prepared, or None where it holds nothing."""
        if self._table is None:
            t = drain(self.other)
            self._table = False if t is None else self.prepared(t)
        return None if self._table is False else self._table

    def matched(self, df, table):
        """``df``, ``table`` and the columns to match them on: their shared
        variable columns, as codes on both sides where a value column meets
        codes; where both sides hold exact values, a key column of their
        pairs in its place (value_columns.pair_key_columns: no Fraction
        coded per value), which :meth:`unkeyed` drops from the result."""
        from .value_columns import exact_where_coded, match_kinds, pair_key_columns

        shared = [c for c in df.columns if c.startswith("v:") and c in table.columns]
        if self.values is not None:
            df, table = exact_where_coded([df, table], shared, self.values)
            df, table, shared = pair_key_columns(df, table, shared)
            df, table = match_kinds(df, table, shared, self.values)
        return df, table, shared

    @staticmethod
    def unkeyed(df, shared):
        """``df`` without the pair key columns :meth:`matched` added."""
        from .value_columns import PAIR_KEY

        keys = [c for c in shared if c.startswith(PAIR_KEY)]
        return df.drop(keys) if keys and df is not None else df


def drain(node):
    """Every batch of ``node`` as one DataFrame, or None when it gives none."""
    import polars as pl

    parts = []
    while node.next():
        parts.append(node.get())
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else pl.concat(parts, how="vertical_relaxed")


def frame_of(columns: list):
    """A batch of the Series ``columns`` (each named already), made without
    a polars query: a ``select`` that only names columns still costs a
    query's fixed cost (0.1 ms idle, milliseconds under load, its thread pool
    woken), which a scan and a head paid once a rule: 200 strata of one rule
    each (issue 37).  By polars' own constructor (native.py: ~8x faster
    than ``pl.DataFrame`` or ``hstack``), which an update on frames pays
    some 500 times (code_frames.frame)."""
    import polars as pl

    if not columns:
        return pl.DataFrame(columns)
    return frame(columns)


def column(name: str, a):
    """A frame column of the numpy array ``a``: an exact value column
    (exact_columns.py) of reduced pairs, given as ``(num, den)`` or as an
    ``(n, 2)`` array; Float64 values (value_columns.py) of floats; else Int64
    codes (a Series, not a query: the one constructor of every kernel's
    results)."""
    import numpy as np
    import polars as pl

    from .native import int64_series

    if isinstance(a, tuple) or getattr(a, "ndim", 1) == 2:
        num, den = a if isinstance(a, tuple) else (a[:, 0], a[:, 1])
        return pl.DataFrame({"n": pl.Series(num, dtype=pl.Int64), "d": pl.Series(den, dtype=pl.Int64)}).to_struct(name)
    if getattr(a, "dtype", None) == np.float64:
        return pl.Series(name, a, dtype=pl.Float64)
    return int64_series(name, a)


def frame_of_arrays(names, cols, s, e):
    """A batch of the arrays ``cols`` (as :func:`column` makes them) named
    ``names``, then ``s``, ``e``."""
    return frame_of([*map(column, names, cols), column("s", s), column("e", e)])

