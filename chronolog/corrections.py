"""Retractions of given facts, as :meth:`Reasoner.update` reads them.

Semantics (as RDFox's incremental deletion, over time): the given facts are
a set of (ground atom, time point) pairs, and retracting ``p(a)@[3,5]``
removes those points of ``p(a)`` from it: retracting ``[3,5]`` from a given
``p(a)@[0,10]`` leaves ``[0,3)`` and ``(5,10]``.  Points that were not given
are skipped (a retraction of something not there changes nothing), and a
retracted fact that meets no given point at all is counted and warned of
(:func:`unmet_count`, as RDFox reports counts: a typo); a retraction that meets no given point of a fact the rules derive is
refused, since only given facts can be taken back, never a conclusion.
"""

from __future__ import annotations

from pathlib import Path

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
    from chronolog.language.nulls import Null

    out: dict = {}
    for pred, lst in rows.items():
        by = out.setdefault(pred, {})
        for terms, iv in lst:
            if any(type(t) is Null for t in terms):
                _refuse_null(pred, terms, iv, what, rows)
            by.setdefault(tuple(terms), []).append(iv)
    for by in out.values():
        for terms in by:
            by[terms] = coalesce(by[terms])
    return out


def _refuse_null(pred: str, terms, iv, what: str, rows) -> None:
    """A labelled null of a retraction's text is its own, never the model's
    (docs/language.md): the fact would meet nothing, and stay."""
    from chronolog.language.nulls import Null
    from chronolog.language.text import format_fact

    null = next(t for t in terms if type(t) is Null)
    raise DataError(
        f"{what}: {format_fact(pred, terms, iv)} names the labelled null {null}, which is never the model's {null}: "
        "a null is equal only to itself, and the nulls of each text are its own",
        getattr(rows, "positions", {}).get(pred),
        hint="a fact with a labelled null cannot be retracted by name; reason again from the corrected facts",
    )


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


def unmet(gone: dict, removed: dict) -> list:
    """``(pred, terms, interval)`` of the retracted facts (``gone``: ``{pred:
    {terms: maximal intervals}}``; facts of one atom that touch count as
    one) that met no given point: no piece ``removed`` lies in them."""
    out = []
    for pred, by in gone.items():
        got = removed.get(pred) or {}
        for terms, holes in by.items():
            pieces = got[terms] if terms in got else ()
            out += [(pred, terms, h) for h in holes if not any(intersect(h, p) is not None for p in pieces)]
    return out


def unmet_count(evaluator, gone: dict, removed: dict) -> int:
    """How many retracted facts met no given point (:func:`unmet`), with
    ``gone`` as :meth:`Reasoner.update` read it: frames of codes
    (:func:`retraction_frames`) or atoms."""
    from chronolog.engine.columns.relation import term_columns

    n = getattr(gone, "unknown", 0)  # (rows naming a value the model never had: left out of the frames)
    for pred, by in gone.items():
        got = removed.get(pred)
        if isinstance(by, dict):
            n += len(unmet({pred: by}, {pred: got or {}}))
        elif not got:
            n += by.height
        elif isinstance(got, dict):  # (taken on rows after all)
            n += len(unmet({pred: as_atoms(evaluator, by)}, {pred: got}))
        elif (met := getattr(got, "holes_met", None)) is not None:  # (counted as the pieces were found: given_pieces)
            n += by.height - met
        else:  # the pieces' frame: a hole met something when a piece starts in it (pieces lie in holes)
            names = term_columns(by.width - 2)
            holes = [by[c].to_numpy() for c in names], by["s"].to_numpy(), by["e"].to_numpy()
            n += by.height - holes_met(holes, [got.df[c].to_numpy() for c in names], got.df["s"].to_numpy())
    return n


def holes_met(holes, piece_terms: list, piece_starts) -> int:
    """How many of ``holes`` (term code columns, s, e: one atom's holes
    apart, as a coalesced retraction's are) hold the start of a piece of the
    same atom (``piece_terms``, ``piece_starts``). One sort of holes and
    pieces together, each piece after the holes of its atom that start at or
    before it, so its hole is the last hole before it: numpy, as a polars
    join, filter and distinct per predicate cost ~0.4 ms (24 predicates a
    retraction on LUBM)."""
    import numpy as np

    terms, s, e = holes
    if not len(s) or not len(piece_starts):
        return 0
    cols = [np.concatenate([h, p]) for h, p in zip(terms, piece_terms)]
    starts = np.concatenate([s, piece_starts])
    is_piece = np.concatenate([np.zeros(len(s), dtype=np.int8), np.ones(len(piece_starts), dtype=np.int8)])
    order = np.lexsort((is_piece, starts, *reversed(cols)))
    at = np.arange(len(order))
    hole_at = np.maximum.accumulate(np.where(is_piece[order] == 0, at, -1))  # (the last hole at or before each row)
    pieces = at[is_piece[order] == 1]
    h = hole_at[pieces]
    ok = h >= 0
    pieces, h = pieces[ok], h[ok]
    rows_p, rows_h = order[pieces], order[h]  # (rows of the concatenation: a hole's row is its index)
    for c in cols:
        ok = c[rows_p] == c[rows_h]
        rows_p, rows_h = rows_p[ok], rows_h[ok]
    inside = starts[rows_p] <= e[rows_h]
    return int(np.count_nonzero(np.bincount(rows_h[inside])))  # (distinct rows; numpy 2.4's unique without an inverse hashes: slow)


def unmet_message(first, count: int, format_fact, call: str, given: str = "given", added=None) -> str:
    """The warning of an update (``call``: the method called) whose
    retraction met nothing: the count and the first such fact, and, where
    the update's ``added`` facts (``{pred: [(terms, interval)]}``) give it,
    that an update retracts before it adds (RDFox's order: a fact both
    retracted and added holds afterwards).  ``call`` None: no method was
    called (the stream command's correction lines, which say their place)."""
    pred, terms, iv = first
    others = f" (and {count - 1} more)" if count > 1 else ""
    message = f"{call + ': ' if call else ''}{format_fact(pred, terms, iv)} met no {given} fact{others}, so it took nothing away"
    if added and any(t == terms and intersect(a, iv) is not None for t, a in added.get(pred, ())):
        message += f" ({call or 'a correction'} retracts, then adds: its added facts give it)"
    return message


def as_atoms(evaluator, frame) -> dict:
    """A frame of :func:`retraction_frames` as ``{terms: maximal intervals}``."""
    from chronolog.engine.columns.relation import to_atoms

    return to_atoms(frame, frame.width - 2, evaluator.terms, evaluator._scale)


def taken(given_ivs, holes) -> list:
    """The pieces of ``given_ivs`` that ``holes`` take away (what goes)."""
    if len(given_ivs) == 1 and given_ivs[0] in holes:  # (all of it: a retracted line's own interval, the usual)
        return list(given_ivs)
    out = [x for g in given_ivs for h in holes if (x := intersect(g, h)) is not None]
    return out if len(out) < 2 else coalesce(out)  # (one piece, the usual: maximal as it is)


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



def retraction_frames(reasoner, facts, call: str):
    """``{pred: frame}`` of retraction facts, coded by the model's own
    dictionaries (engine/columns/retraction.py), when the update will run on
    columns and each predicate is the program's with its arity; else None,
    and the general path (:func:`holes_of`) reads them, with its checks and
    messages.  What reads them is :func:`read_for_columns`."""
    from chronolog.engine.columns.encoding import Fallback
    from chronolog.engine.columns.maintenance import refusal
    from chronolog.engine.columns.retraction import Known, hole_frames
    from chronolog.language.fact_columns import _Fallback

    ev = reasoner.evaluator
    if reasoner.terminating or ev.explain or not hasattr(ev, "given_pieces") or refusal(ev) is not None:
        return None
    try:
        for p in reasoner.plan.arities:  # (a relation no stratum read is encoded when first asked: its values then have codes)
            ev.coded(p)
        read = read_for_columns(facts, reasoner.dialect, reasoner.plan.program.calendar, Known(ev.terms))
    except Fallback:
        return None
    if read is None:
        return None
    columns, rows = read
    reasoner.model._float_columns(call).read_rows(rows)  # (the kernels' columns hold no fraction: _column_codes)
    if rows.repeating or any(fc.slow.repeating for fc in columns):
        return None  # (refused, with its place, by holes_of)
    widths = {p: len(r[0][0]) for p, r in rows.items() if r}
    try:
        for fc in columns:
            for p in fc.predicates():
                if widths.setdefault(p, fc.width(p)) != fc.width(p):
                    return None
    except _Fallback:
        return None
    for p, w in widths.items():
        known = reasoner.plan.arities.get(p)
        if known is None or known[0] != w:
            return None
    try:
        return hole_frames(columns, rows, widths, ev.terms, ev._scale)
    except Fallback:
        return None


def read_for_columns(facts, dialect: str, calendar, terms=None):
    """``(FactColumns list, FactRows)`` of facts in any form ``reason()``
    takes: texts and files of KERNEL_BYTES or more through the kernel fact
    reader (``reason()``'s, 1M+ facts/s), tables through the table reader,
    the rest by the line reader (its fixed cost is lower: 0.02 ms for one
    line against the kernels' 3 ms).  ``terms``: the kernels code the term
    columns by it (retraction.Known: looked up, never added).  None where
    only the general path reads them (LARS; lines that hold several; a
    file the kernels cannot take whole)."""
    from chronolog.api import _table_facts, load_facts
    from chronolog.language.facts import FactRows, read_dialect_facts
    from chronolog.language.source_text import KERNEL_BYTES

    if dialect not in ("vadalog", "meteor"):
        return None
    text = facts if isinstance(facts, str) else _joined_lines(facts)
    if text is not None:
        if len(text) < KERNEL_BYTES:
            return [], load_facts(facts, dialect, calendar)
        if not isinstance(facts, str) and text.count("\n") != len(facts) - 1:
            return None  # (a line of the list holds several: its own line numbers)
        if any(c in text for c in _OTHER_BREAKS):
            return None  # (str.splitlines breaks lines there too, the kernels only at newlines)
        from chronolog.language.source_text import plain_text

        return _kernel_read(plain_text(text) if isinstance(facts, str) else text, "<facts>", dialect, calendar, terms)
    paths = [facts] if isinstance(facts, Path) else facts if isinstance(facts, (list, tuple)) else None
    if paths and all(isinstance(p, Path) for p in paths):
        from chronolog.language.source_text import read_text

        from chronolog.connectors.fact_tables import reader_of

        columns, rows = [], FactRows()
        for p in paths:
            if reader_of(p) is not None:  # (a CSV or JSON Lines of facts, as load_facts reads it)
                rows.merge(load_facts(p, dialect, calendar))
                continue
            text = read_text(p, "facts file")  # (decoded once: a bad byte is reported at its place)
            if len(text) < KERNEL_BYTES:  # (as load_facts reads a small file)
                rows.merge(read_dialect_facts(text.splitlines(), str(p), dialect, calendar))
                continue
            got = _kernel_read(text, str(p), dialect, calendar, terms)
            if got is None:
                return None
            columns += got[0]
        return columns, rows
    got = _table_facts(facts, dialect, calendar, min_rows=0)
    return got if got is not None else ([], load_facts(facts, dialect, calendar))


_OTHER_BREAKS = "\v\f\x1c\x1d\x1e\x85\u2028\u2029"


def _joined_lines(facts):
    """A list or tuple of strings (lines) as one text; else None.  The join
    is the test (it takes only strings): a pass of its own over the lines
    of a retraction cost 3-4 ms a 1% of LUBM 1M, each line's first touch."""
    if not isinstance(facts, (list, tuple)) or not facts:
        return None
    try:
        return "\n".join(facts)
    except TypeError:
        return None


def _kernel_read(text: str, source: str, dialect: str, calendar, terms=None):
    from chronolog.language.fact_columns import _Fallback, read_fact_columns
    from chronolog.language.facts import FactRows

    try:
        return [read_fact_columns(text, source, dialect, calendar, share=False, terms=terms)], FactRows()
    except _Fallback:
        return None
