"""Retractions of given facts, as :meth:`Reasoner.update` reads them.

Semantics (as RDFox's incremental deletion, over time): the given facts are
a set of (ground atom, time point) pairs, and retracting ``p(a)@[3,5]``
removes those points of ``p(a)`` from it: retracting ``[3,5]`` from a given
``p(a)@[0,10]`` leaves ``[0,3)`` and ``(5,10]``.  Points that were not given
are skipped silently (a retraction of something not there changes nothing);
a retraction that meets no given point of a fact the rules derive is
refused, since only given facts can be taken back, never a conclusion.
"""

from __future__ import annotations

from chronolog.language.errors import DataError
from chronolog.language.timeline import coalesce, intersect, subtract


def holes_of(rows, what: str) -> dict:
    """``{pred: {terms: maximal intervals}}`` of retraction facts read as
    :func:`load_facts` reads facts; a fact that repeats forever is refused."""
    for pred, lst in getattr(rows, "repeating", {}).items():
        if lst:
            raise DataError(
                f"{what}: {pred} has a fact that repeats forever ('every'), which cannot be retracted",
                lst[0][3],
                hint="retract the stretch of time to take back, e.g. p(a)@[0,100]",
            )
    out: dict = {}
    for pred, lst in rows.items():
        by = out.setdefault(pred, {})
        for terms, iv in lst:
            by.setdefault(tuple(terms), []).append(iv)
    for by in out.values():
        for terms in by:
            by[terms] = coalesce(by[terms])
    return out


def check_derived_only(model, pred: str, terms, holes, given_ivs, format_fact) -> None:
    """Refuse to retract a derived conclusion: ``holes`` meet no given
    interval (``given_ivs``) of ``pred(terms)`` but the model holds it there."""
    if any(intersect(h, g) is not None for h in holes for g in given_ivs):
        return
    rel = model.store.get(pred)
    held = rel.atoms.get(terms, ()) if rel is not None else ()
    for h in holes:
        if any(intersect(h, iv) is not None for iv in held):
            fact = format_fact(pred, terms, h)
            raise DataError(
                f"cannot retract {fact}: it is derived by the rules, not given, and only given facts can be retracted",
                hint=f"retract the given facts it comes from (model.proof({fact!r}) shows them)",
            )


def taken(given_ivs, holes) -> list:
    """The pieces of ``given_ivs`` that ``holes`` take away (what goes)."""
    out = [x for g in given_ivs for h in holes if (x := intersect(g, h)) is not None]
    return coalesce(out)


def without_holes(rows, holes: dict) -> list:
    """``(terms, interval)`` rows minus ``holes`` (terms -> intervals)."""
    out = []
    for terms, iv in rows:
        hs = holes.get(tuple(terms))
        if hs and any(intersect(iv, h) is not None for h in hs):
            out.extend((terms, x) for x in subtract(iv, hs))
        else:
            out.append((terms, iv))
    return out

