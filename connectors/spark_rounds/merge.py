"""The SQL of a round's merge and of its probe.

What a round derives is recoalesced with the relation in one window pass
that flags each maximal interval ``_fresh`` unless it is one old interval,
so the next delta and old facts are filters, not joins (:func:`merged`).
A round with few new facts against large relations first probes which of
them the relations do not hold yet (:func:`uncovered`), and merges only
those, recoalescing only the atoms they touch (``touched``): the other
atoms' intervals are copied as they are, through an anti join, instead
of being sorted again with the rest (rounds.py, ``PROBE_RATIO``).
"""

from __future__ import annotations

from .sql import Stmt, coalesce_sql, term_columns, union


def new_facts(q: Stmt, relations, pred: str, parts: list) -> str:
    """The union of a round's derivations of ``pred`` (steps ``parts`` of
    ``q``), moved to their first term's partition."""
    terms = term_columns(relations.types.arity(pred))
    return relations.keyed(q, union(q, parts, [*terms, "s", "e"]), terms)


def merged(q: Stmt, relations, pred: str, parts: list, touched: bool = False) -> str:
    """``pred`` with the facts derived this round merged in (the last step
    of ``q``): recoalesced in one window pass over the old relation and
    the new facts, each maximal interval flagged ``_fresh`` unless it is
    exactly one old interval (whatever new pieces fell inside it).  The
    flag gives the next round's delta and old facts as filters, with no
    join.  ``touched``: the new facts are few (the probe's), so only the
    atoms they name are recoalesced; the others are copied unflagged."""
    terms = term_columns(relations.types.arity(pred))
    old = relations.rel(pred)
    new = new_facts(q, relations, pred, parts)
    if old.count == 0:
        out = coalesce_sql(q, new, terms)
        return q.add(f"SELECT *, true AS _fresh FROM {out}", q.cols[out] + ["_fresh"])
    if not (touched and terms):
        return _recoalesced(q, relations.read(q, old), new, terms)
    # the atoms the new facts name, moved to their first term's partition
    # and hashed per task, split the old relation where it lies (a left
    # semi and a left anti join; a duplicate atom changes neither, so no
    # DISTINCT; no broadcast, which would be a job of its own): a window
    # over 480k rows took 0.45 s of task CPU per round where a few thousand
    # new facts touched a few thousand of them (temporal reachability, 100k edges)
    named = ", ".join(f"{c} AS {c}" for c in terms)
    atoms = relations.keyed(q, q.add(" UNION ALL ".join(f"SELECT {named} FROM {p}" for p in parts), terms), terms)
    on = " AND ".join(f"o.{t} = a.{t}" for t in terms)
    cols = ", ".join(f"o.{c} AS {c}" for c in [*terms, "s", "e"])
    old_sql = relations.read(q, old)
    kept = q.add(f"SELECT /*+ SHUFFLE_HASH(a) */ {cols}, false AS _fresh FROM {old_sql} AS o LEFT ANTI JOIN {atoms} AS a ON {on}",
                 [*terms, "s", "e", "_fresh"])
    hit = q.add(f"SELECT /*+ SHUFFLE_HASH(a) */ {cols} FROM {old_sql} AS o LEFT SEMI JOIN {atoms} AS a ON {on}", [*terms, "s", "e"])
    redone = _recoalesced(q, hit, new, terms)
    flagged = ", ".join(f"{c} AS {c}" for c in [*terms, "s", "e", "_fresh"])
    return q.add(f"SELECT {flagged} FROM {kept}\nUNION ALL SELECT {flagged} FROM {redone}", [*terms, "s", "e", "_fresh"])


def _recoalesced(q: Stmt, old: str, new: str, terms: list) -> str:
    """The old intervals ``old`` and the new facts ``new`` coalesced in one
    window pass, flagged ``_fresh`` where not exactly one old interval."""
    # every column aliased: a column read through a subquery carries its
    # alias as qualifier, which the checkpoint's partitioning does not, and
    # a union keeps its children's partitioning only when the attributes
    # are equal, qualifier included (else the whole relation was shuffled
    # again by the window)
    named = ", ".join(f"{c} AS {c}" for c in [*terms, "s", "e"])
    both = q.add(f"SELECT {named}, 1 AS _old FROM {old} AS o\nUNION ALL SELECT {named}, 0 AS _old FROM {new}",
                 [*terms, "s", "e", "_old"])
    is_old = ("sum(_old) = 1 AND min(CASE WHEN _old = 1 THEN s END) = min(s) "
              "AND max(CASE WHEN _old = 1 THEN e END) = max(e)")
    return coalesce_sql(q, both, terms, [(f"NOT coalesce({is_old}, false)", "_fresh")])


def uncovered(q: Stmt, relations, pred: str, new: str) -> str:
    """The facts of step ``new`` that ``pred`` does not hold yet: a fact
    lies inside one maximal interval of its atom or adds something (the
    relation is coalesced).  A left join of the new facts (a hash table
    of them per task) with the relation read where it lies."""
    terms = term_columns(relations.types.arity(pred))
    on = " AND ".join([*(f"n.{t} = o.{t}" for t in terms), "o.s <= n.s", "n.e <= o.e"])
    sel = ", ".join(f"n.{c} AS {c}" for c in [*terms, "s", "e"])
    return q.add(f"SELECT /*+ SHUFFLE_HASH(n) */ {sel} FROM {new} AS n LEFT JOIN {relations.read(q, relations.rel(pred))} AS o "
                 f"ON {on} WHERE o.s IS NULL", [*terms, "s", "e"])
