"""Coalescing to maximal intervals, as a kernel: sort by the atom's columns and
the start, a running maximum of the end per atom, a new interval wherever a
start lies beyond it (``s > running e``: on the doubled grid of encoding.py
that is exactly "neither overlapping nor meeting at a covered point")."""

from __future__ import annotations


def coalesce(df, keys: list):
    """``df`` (columns ``keys`` + ``s``, ``e``) with each atom's intervals
    merged into maximal ones, sorted by ``keys`` then ``s``."""
    import numpy as np
    import polars as pl

    if df.height <= 1:
        return df.select(*keys, "s", "e")
    df = df.select(*keys, "s", "e").sort([*keys, "s"])
    if keys:
        prev = df.select(pl.col("e").cum_max().shift(1).over(keys)).to_series()
    else:
        prev = df.select(pl.col("e").cum_max().shift(1)).to_series()
    s = df["s"].to_numpy()
    e = df["e"].to_numpy()
    prev = prev.fill_null(np.iinfo(np.int64).min).to_numpy()
    new = s > prev  # an atom's first row: prev is null, below every start
    starts = np.flatnonzero(new)
    out = df[starts]
    return out.with_columns(pl.Series("e", np.maximum.reduceat(e, starts)))
