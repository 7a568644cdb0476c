"""DifferenceNode: ``not p(...)`` as interval difference.  The holes are the
facts of ``p`` (a lower stratum, complete) projected to the variables bound
before, coalesced per key (free variables are existential: "no p(X, _) at
all"); each row keeps the gaps between the holes that meet it."""

from __future__ import annotations

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
        return subtract(df, holes, keys)


def subtract(df, holes, keys):
    """Rows of ``df`` minus the maximal intervals ``holes`` (``hs``, ``he``)
    with the same ``keys`` (maximal: those meeting a row are apart)."""
    import polars as pl

    from chronolog.engine.exprs import to_numpy
    from chronolog.engine.interval_difference import gap_start, last_hole

    from . import code_frames

    if code_frames.path(df, holes) == "numpy":
        return code_frames.subtract(df, holes, keys)
    rows = df.with_row_index("_r")
    if keys:
        m = rows.join(holes, on=keys, how="inner")
    else:
        m = rows.join(holes, how="cross")
    m = m.filter((pl.col("hs") < pl.col("e")) & (pl.col("he") > pl.col("s")))
    if m.height == 0:
        return df
    # the gaps between a row's holes (engine/interval_difference.py, as on Spark; as
    # fast where each row meets one hole as a path of that case alone was)
    m = m.sort("_r", "hs")
    arrays = {c: m[c].to_numpy() for c in ("_r", "s", "hs", "he")}
    start, last = to_numpy(gap_start(["_r"]), arrays), to_numpy(last_hole(["_r"]), arrays)
    before = m.select(pl.exclude("s", "e", "hs", "he"), pl.Series("s", start), pl.col("hs").alias("e"))
    after = m.filter(pl.Series(last)).select(pl.exclude("s", "e", "hs", "he"), pl.col("he").alias("s"), "e")
    untouched = rows.filter(~pl.col("_r").is_in(m["_r"].implode()))
    cols = untouched.columns
    pieces = pl.concat([untouched, before.select(cols), after.select(cols)], how="vertical_relaxed")
    return pieces.filter(pl.col("s") < pl.col("e")).drop("_r")
