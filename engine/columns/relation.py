"""Relations as columns: the facts of one predicate as a polars DataFrame with
one Int64 code column per argument (``"0"``, ``"1"``, …) and the interval
codes ``s``, ``e`` (encoding.py), always coalesced to maximal intervals.

Conversions to and from the row engine's :class:`Relation` live here: a
stratum on columns reads what row strata wrote, and a row stratum or the
Model reads what columns wrote (lazily, see store.py)."""

from __future__ import annotations

from .coalesce import coalesce


def term_columns(arity: int) -> list:
    return [str(i) for i in range(arity)]


def empty(arity: int):
    import polars as pl

    return pl.DataFrame({c: [] for c in term_columns(arity) + ["s", "e"]}, schema={c: pl.Int64 for c in term_columns(arity) + ["s", "e"]})


def from_relation(rel, arity: int, terms, scale):
    """A stored Relation as a coalesced DataFrame (encodes each fact once)."""
    import polars as pl

    cols = [[] for _ in range(arity)]
    ss, es = [], []
    code = terms.code
    start, end = scale.start, scale.end
    for t, ivs in rel.atoms.items():
        c = [code(v) for v in t]
        for lo, hi, lc, hc in ivs:
            for col, x in zip(cols, c):
                col.append(x)
            ss.append(start(lo, lc))
            es.append(end(hi, hc))
    names = term_columns(arity)
    df = pl.DataFrame({**dict(zip(names, cols)), "s": ss, "e": es}, schema={n: pl.Int64 for n in names + ["s", "e"]})
    return coalesce(df, names) if rel.raw else df  # a stored relation is maximal unless raw


def to_atoms(df, arity: int, terms, scale) -> dict:
    """A coalesced DataFrame as the row engine's ``{terms: [intervals]}``."""
    values = terms.values
    cols = [[values[c] for c in df[n].to_list()] for n in term_columns(arity)]
    keys = list(zip(*cols)) if cols else [()] * df.height
    interval = scale.interval
    atoms: dict = {}
    for k, s, e in zip(keys, df["s"].to_list(), df["e"].to_list()):
        iv = interval(s, e)
        lst = atoms.get(k)
        if lst is None:
            atoms[k] = [iv]
        else:
            lst.append(iv)
    return atoms
