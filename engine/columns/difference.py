"""DifferenceNode: ``not p(...)`` as interval difference.  The holes are the
facts of ``p`` (a lower stratum, complete) projected to the variables bound
before, coalesced per key (free variables are existential: "no p(X, _) at
all"); each row keeps the gaps between the holes that meet it."""

from __future__ import annotations

from . import code_frames
from .base import AgainstTableNode
from .coalesce import coalesce


class DifferenceNode(AgainstTableNode):
    """``other``: the scan of the holes' predicate."""

    def process(self, df):
        holes = self.table()
        if holes is None:
            return df
        df, holes, keys = self.matched(df, holes)
        holes = coalesce(holes.select(*keys, "s", "e"), keys).rename({"s": "hs", "e": "he"})
        return self.unkeyed(subtract(df, holes, keys), keys)


def subtract(df, holes, keys):
    """Rows of ``df`` minus the maximal intervals ``holes`` (``hs``, ``he``)
    with the same ``keys`` (maximal: those meeting a row are apart), by
    code_frames.subtract (the row pairs by a sort in numpy or a polars hash
    join, by their size: code_frames.path)."""
    return code_frames.subtract(df, holes, keys, code_frames.path(df, holes))
