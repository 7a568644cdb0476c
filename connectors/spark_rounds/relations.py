"""The run's relations by predicate: each one coalesced, checkpointed,
hash-partitioned on its first term, and known to the driver by its count.

A relation is a DataFrame with one column per argument (``c0``, ``c1``, …)
and the interval as two codes ``s``, ``e`` (grid.py), always coalesced to
maximal intervals.  A predicate that nothing holds yet reads as an empty
relation, and the one-row relation of facts that always hold: both fixed
text, as is a literal relation of a few facts held on the driver.
"""

from __future__ import annotations

from dataclasses import dataclass

from chronolog.engine.interval_codes import NEG, POS
from chronolog.planner.normalize import TOP

from .sql import Stmt, int64, term_columns

PARTITIONS = "spark.sql.shuffle.partitions"  # every relation's partitions (see Relations.keyed)


@dataclass
class Rel:
    """A coalesced relation (or a part of one: a delta, the old facts) and
    its row count, the only figure the driver keeps of it.  ``df``: its
    checkpointed DataFrame, of which statements read ``cols`` where
    ``where`` holds (see :meth:`Catalog.read`); ``sql``: fixed text instead
    (an empty relation, the one-row relation of facts that always hold, a
    literal of a few facts: :meth:`Relations.literal`)."""

    df: object
    count: int
    cols: tuple = ()
    where: str = ""
    sql: str = ""
    table: object = None  # the rows held on the driver (a round's collected relation, with ``_fresh``: Relations.held)
    literal: bool = False  # ``sql`` is rows held on the driver (a statement reads them as one CTE: sql.Stmt.literal)


class Relations:
    """``rels``: ``{pred: Rel}``, the current relation of each predicate."""

    def __init__(self, catalog, types):
        self.catalog, self.types = catalog, types
        self.rels: dict = {}
        # every relation held on the driver (rounds.HELD_ROWS): none is
        # repartitioned then (nothing lies partitioned, and a window
        # shuffled the moved rows once more); else each is kept partitioned
        # on its first term
        self.on_driver = False

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

    def literal(self, pred: str, rows: list) -> Rel:
        """``pred`` holding ``rows`` (tuples of SQL literals of its columns,
        coalesced), held on the driver: the statements read them as text."""
        if not rows:
            return self.empty(pred)
        cols = self.columns(pred)
        values = ", ".join(f"({', '.join(r)})" for r in rows)
        return Rel(None, len(rows), cols, sql=f"(SELECT * FROM VALUES {values} AS _l({', '.join(cols)}))", literal=True)

    def flagged(self, pred: str, df, n: int, fresh: int, table=None) -> tuple:
        """``pred``'s merged relation ``df`` (``n`` rows, ``fresh`` of them
        flagged ``_fresh``) as ``(relation, delta, old facts)``."""
        cols = self.columns(pred)
        return Rel(df, n, cols, table=table), Rel(df, fresh, cols, "_fresh"), Rel(df, n - fresh, cols, "NOT _fresh")

    def held(self, pred: str, table) -> tuple:
        """``pred``'s merged relation collected to the driver (``table``: its
        columns and ``_fresh``, Spark's Arrow types) as literal relations:
        ``(relation, delta, old facts)``.  A relation of at most
        ``inputs.LITERAL_ROWS`` rows is written as its rows' literals (each
        term as the engine's value, TermTypes.const), a larger one is a
        DataFrame of the table (a local relation, read through a view)."""
        from .inputs import LITERAL_ROWS
        from .udfs import engine_value

        flags = table.column("_fresh").to_pylist()
        if len(flags) > LITERAL_ROWS:
            return self.flagged(pred, self.catalog.spark.createDataFrame(table), len(flags), sum(flags), table)
        terms = [[self.types.const(engine_value(v)) for v in table.column(f"c{i}").to_pylist()] for i in range(self.types.arity(pred))]
        rows = [(*(t[k] for t in terms), int64(s), int64(e))
                for k, (s, e) in enumerate(zip(table.column("s").to_pylist(), table.column("e").to_pylist()))]
        rel = self.literal(pred, rows)
        rel.table = table
        return (rel, self.literal(pred, [r for r, f in zip(rows, flags) if f]),
                self.literal(pred, [r for r, f in zip(rows, flags) if not f]))

    def rel(self, pred: str) -> Rel:
        r = self.rels.get(pred)
        if r is None:
            if pred == TOP:
                r = Rel(None, 1, sql=f"(SELECT {int64(NEG)} AS s, {int64(POS)} AS e)")
            else:
                r = self.empty(pred)
            self.rels[pred] = r
        return r

    def read(self, q: Stmt, rel: Rel) -> str:
        """What a step of ``q`` reads ``rel`` from: rows held on the driver
        as one CTE of the round's statements (sql.Stmt.literal), else its
        checkpoint's view or its fixed text (Catalog.read)."""
        return q.literal(rel.sql, rel.cols) if rel.literal else self.catalog.read(rel)

    def keyed(self, q: Stmt, src: str, terms: list) -> str:
        """``src`` hash-partitioned on its first term column, as every relation
        is kept: a checkpoint keeps its plan's partitioning and a union of
        children partitioned alike keeps theirs, so a merge's window (per
        atom, which the first column clusters) and a join on that column read
        the old relation where it lies, and only the new facts move."""
        if not terms or self.on_driver:
            return src
        n = int(self.catalog.spark.conf.get(PARTITIONS))
        return q.keeps(src, q.add(f"SELECT /*+ REPARTITION({n}, {terms[0]}) */ * FROM {src}", q.cols[src]))

