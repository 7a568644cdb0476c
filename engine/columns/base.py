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


def drain(node):
    """Every batch of ``node`` as one DataFrame, or None when it gives none."""
    import polars as pl

    parts = []
    while node.next():
        parts.append(node.get())
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else pl.concat(parts, how="vertical_relaxed")


def int64_series(name: str, a):
    """An Int64 Series over the numpy int64 array ``a`` (no copy, as
    ``pl.Series(name, a)`` makes it), by polars' own constructor of one:
    ``pl.Series`` first spends ~8 us idle (~30 us under load) in Python
    checks for masked, strided and foreign-order arrays (``np.require``,
    ``np.ma``), against ~1 us for the constructor, and an update on frames
    makes about a thousand such columns.  Any other array, or a polars
    without that constructor, goes through ``pl.Series``."""
    import numpy as np
    import polars as pl

    global _NEW_I64
    if _NEW_I64 is _UNSET:
        _NEW_I64 = _new_i64()
    if _NEW_I64 is not None and type(a) is np.ndarray and a.dtype == np.int64 and a.ndim == 1 and a.flags.c_contiguous and a.flags.aligned:
        return pl.Series._from_pyseries(_NEW_I64(name, a, True))
    return pl.Series(name, a, dtype=pl.Int64)


def _new_i64():
    """polars' constructor of an Int64 Series from an int64 array, found on
    a Series of its own (its module's name changed between releases), or
    None if this polars has none that works as expected."""
    import numpy as np
    import polars as pl

    try:
        new = type(pl.Series([1], dtype=pl.Int64)._s).new_i64
        probe = np.array([3, -1], dtype=np.int64)
        got = pl.Series._from_pyseries(new("x", probe, True))
        ok = got.dtype == pl.Int64 and got.name == "x" and got.to_list() == [3, -1]
    except Exception:  # (a polars whose internals differ: the public constructor serves)
        return None
    return new if ok else None


_UNSET = object()
_NEW_I64 = _UNSET  # (found on first use: polars is imported lazily)


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
