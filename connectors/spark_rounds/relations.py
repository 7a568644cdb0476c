"""The run's relations by predicate: each one coalesced, checkpointed,
hash-partitioned on its first term, and known to the driver by its count.

A relation is a DataFrame with one column per argument (``c0``, ``c1``, …)
and the interval as two codes ``s``, ``e`` (grid.py), always coalesced to
maximal intervals.  A predicate that nothing holds yet reads as an empty
relation, and the one-row relation of facts that always hold: both fixed text.
"""

from __future__ import annotations

from dataclasses import dataclass

from chronolog.planner.normalize import TOP

from .grid import NEG, POS
from .sql import Stmt, int64, term_columns

PARTITIONS = "spark.sql.shuffle.partitions"  # every relation's partitions (see Relations.keyed)


@dataclass
class Rel:
    """A coalesced relation (or a part of one: a delta, the old facts) and
    its row count, the only figure the driver keeps of it.  ``df``: its
    checkpointed DataFrame, of which statements read ``cols`` where
    ``where`` holds (see :meth:`Catalog.read`); ``sql``: fixed text instead
    (the one-row relation of facts that always hold)."""

    df: object
    count: int
    cols: tuple = ()
    where: str = ""
    sql: str = ""


class Relations:
    """``rels``: ``{pred: Rel}``, the current relation of each predicate."""

    def __init__(self, catalog, types):
        self.catalog, self.types = catalog, types
        self.rels: dict = {}

    def columns(self, pred: str) -> tuple:
        """The columns of ``pred``'s relation: its terms, ``s``, ``e``."""
        return (*term_columns(self.types.arity(pred)), "s", "e")

    def empty(self, pred: str) -> Rel:
        """``pred`` holding nothing: fixed text, no DataFrame (a statement of
        its own, analysed, for every head predicate of a call before its
        first merge, which reads only its count)."""
        cols = [f"CAST(NULL AS {self.types.sql_type(c)}) AS c{i}" for i, c in enumerate(self.types.classes.get(pred) or [])]
        sql = f"(SELECT {', '.join([*cols, 'CAST(NULL AS BIGINT) AS s', 'CAST(NULL AS BIGINT) AS e'])} WHERE false)"
        return Rel(None, 0, self.columns(pred), sql=sql)

    def rel(self, pred: str) -> Rel:
        r = self.rels.get(pred)
        if r is None:
            if pred == TOP:
                r = Rel(None, 1, sql=f"(SELECT {int64(NEG)} AS s, {int64(POS)} AS e)")
            else:
                r = self.empty(pred)
            self.rels[pred] = r
        return r

    def keyed(self, q: Stmt, src: str, terms: list) -> str:
        """``src`` hash-partitioned on its first term column, as every relation
        is kept: a checkpoint keeps its plan's partitioning and a union of
        children partitioned alike keeps theirs, so a merge's window (per
        atom, which the first column clusters) and a join on that column read
        the old relation where it lies, and only the new facts move."""
        if not terms:
            return src
        n = int(self.catalog.spark.conf.get(PARTITIONS))
        return q.add(f"SELECT /*+ REPARTITION({n}, {terms[0]}) */ * FROM {src}", q.cols[src])
