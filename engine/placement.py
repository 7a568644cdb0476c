"""Where the given facts are coalesced (the Temporal Vadalog paper, *placement*).

The engine always coalesces what rules derive (its MergeNodes are the
relations).  Given facts can arrive as many adjacent or overlapping pieces;
coalescing them costs a sort per atom, and pays off when fewer pieces then
flow through the rules:

* ``always``: every given predicate is coalesced when it is loaded;
* ``earliest``: the predicates read under a temporal operator (diamond, box,
  Since/Until) or ``not`` are coalesced at load; those only joined are not;
* ``minimal``: only what correctness needs: predicates read under a box,
  Since/Until, ``not`` or an interval term ``p(X)@[S,E]`` (a box of a
  piece is not the box of the whole, nor a piece's ends the interval's).

Pieces that were not coalesced are joined and shifted one by one, and the
derived facts are coalesced by the MergeNodes as always; the model coalesces
a given predicate's facts when they are read.
"""

from __future__ import annotations

from chronolog.planner.ir import NegScan, Scan
from chronolog.planner.physical import CaptureTime, WrapInterval, is_since_until


def predicates_to_coalesce(plan, placement: str, hints=()):
    """The given predicates to coalesce at load (``None``: all of them).
    ``hints``: predicates the program asks to coalesce anyway
    (``@config("coalesce", ...)``, planner/config.py)."""
    if placement == "always":
        return None
    need = set(plan.derived_predicates()) | set(hints)  # facts given for derived predicates merge with derived ones
    for rp in (rp for st in plan.physical.strata for rp in st.rules):  # (each rule with the operator the planner lowered it to)
        rule = rp.rule
        if is_since_until(rule):
            need.add(rule.left.pred)
            need.add(rule.right.pred)
            continue
        if isinstance(rp.operator, (WrapInterval, CaptureTime)):  # (p(X)@[S,E]: the ends of p's maximal interval)
            need.add(rule.body[0].pred)
            continue
        for lit in rule.body:
            if isinstance(lit, NegScan):
                need.add(lit.pred)
            elif isinstance(lit, Scan):
                if lit.box is not None or (placement == "earliest" and lit.shift is not None):
                    need.add(lit.pred)
    return need


def load_raw(relation, rows) -> None:
    """Add pieces as they are (duplicates dropped), marking the relation raw."""
    atoms = relation.atoms
    for terms, iv in rows:
        lst = atoms.get(terms)
        if lst is None:
            atoms[terms] = [iv]
        elif iv not in lst[-1:]:
            lst.append(iv)
    relation.raw = True
    relation.clear_indexes()


def coalesce_relation(relation) -> None:
    """Make a raw relation's intervals maximal (before output or updates)."""
    if not getattr(relation, "raw", False):
        return
    from chronolog.language.timeline import coalesce

    relation.atoms = {t: coalesce(ivs) if len(ivs) > 1 else ivs for t, ivs in relation.atoms.items()}
    relation.raw = False
    relation.clear_indexes()
