"""A stratum's relations changed through an Overlay
(engine/columns/sorted_given.py, as engine/columns/maintenance.py uses it):
the atoms replaced are kept beside the relation and spliced in once, at
the stratum's end.  Whatever is read through the overlay must be what the
spliced relation holds.  The oracle counts time points per atom (a frame
of code intervals ``[s, e)`` is a set of (atom, point) pairs), nobody's
interval arithmetic."""

from __future__ import annotations

import numpy as np
import polars as pl
from hypothesis import example, given, settings, strategies as st

import chronolog
from budget import examples
from chronolog.engine.columns.coalesce import coalesce_arrays
from chronolog.engine.columns.relation import _frame, term_columns
from chronolog.engine.columns.sorted_given import Overlay

NAMES = term_columns(2)


def frame_of(rows):
    """A coalesced frame in key order of ``((a, b), s, e)`` rows (codes)."""
    cols = [np.array([a[i] for a, _, _ in rows], dtype=np.int64) for i in range(2)]
    s = np.array([x for _, x, _ in rows], dtype=np.int64)
    e = np.array([x for _, _, x in rows], dtype=np.int64)
    return _frame(*coalesce_arrays(cols, s, e))


def points(df) -> set:
    return {((r[0], r[1]), t) for r in df.select(*NAMES, "s", "e").iter_rows() for t in range(r[2], r[3])}


def keys_frame(atoms) -> pl.DataFrame:
    atoms = sorted(set(atoms))
    return pl.DataFrame({"0": [a for a, _ in atoms], "1": [b for _, b in atoms]}, schema={"0": pl.Int64, "1": pl.Int64})


atom = st.tuples(st.integers(0, 5), st.integers(0, 5))
piece = st.tuples(atom, st.integers(0, 30), st.integers(1, 8)).map(lambda x: (x[0], x[1], x[1] + x[2]))
pieces = st.lists(piece, max_size=40)


@settings(max_examples=examples(200), deadline=None)
@given(base=pieces, changes=st.lists(st.tuples(st.lists(atom, min_size=1, max_size=6), pieces), max_size=4),
       asked=st.lists(atom, max_size=8), shuffled=st.booleans())
@example(base=[((0, 0), 0, 1), ((0, 0), 2, 3)], changes=[], asked=[], shuffled=True)  # (one atom: in key order whatever the shuffle)
def test_an_overlay_reads_as_the_spliced_relation(base, changes, asked, shuffled):
    """Read by atoms, by values of either column or both, and whole (in
    key order where the relation is, by masks where it is in no order)."""
    base = frame_of(base)
    # (shuffled: out of key order, the masks' path; each atom's rows by start,
    # as relations are kept: one in key order is read in its own order, not sorted)
    if shuffled:
        base = base.sort(NAMES + ["s"], descending=[True, True, False])
    held = Overlay.over(base, NAMES)
    assert (held.order is None) == (shuffled and len(set(base.select(NAMES).iter_rows())) > 1)
    truth, changed = points(base), set()
    for atoms, rows in changes:
        keys = keys_frame(atoms)
        mine = frame_of([r for r in rows if r[0] in set(atoms)])  # (rows of those atoms only, as a merge gives)
        held = held.replaced(keys, mine)
        truth = {p for p in truth if p[0] not in set(atoms)} | points(mine)
        changed.update(atoms)
        # the rows now of some atoms, and of the rows matching a value on either column or both
        wanted = keys_frame(asked)
        for cols in (["0"], ["1"], ["0", "1"]):
            by = wanted.select(cols).unique()
            values = set(by.iter_rows())
            got = held.rows(by, cols)
            assert points(got) == {p for p in truth if tuple(p[0][int(c)] for c in cols) in values}
            assert got.height == len(set(got.iter_rows()))  # (each row once: the relation's or a held atom's)
            if held.order is not None:
                assert got.rows() == sorted(got.rows())  # (in key order)
    spliced = held.frame()
    assert points(spliced) == truth and spliced.height == held.height == len(set(spliced.iter_rows()))
    if held.order is not None:
        assert spliced.rows() == sorted(spliced.rows())
    assert points(held.hidden_rows()) == {p for p in points(base) if p[0] in changed}  # (the held atoms' rows before: maintenance.Touched)


@settings(max_examples=examples(200), deadline=None)
@given(base=pieces, changes=st.lists(st.tuples(st.lists(atom, min_size=1, max_size=6), pieces), max_size=5),
       shuffled=st.booleans(), floats=st.booleans())
def test_an_overlay_holds_the_changed_atoms_before_and_now(base, changes, shuffled, floats):
    """What a stratum's change is compared on (maintenance.py's gone and
    new): after any replacements, the rows hidden are the changed atoms'
    rows in the relation before, the rows beside their rows now; also with
    a column of floats (value columns: by masks) and out of key order."""
    from chronolog.engine.columns.expressions import Values
    from chronolog.engine.columns.encoding import Dictionary

    first = frame_of(base)
    if floats:  # (a value column: no packed key)
        first = first.with_columns(pl.col("1").cast(pl.Float64))
    if shuffled:
        first = first.reverse()
    held, now, changed = Overlay.over(first, NAMES, Values(Dictionary())), {r for r in first.iter_rows()}, set()
    for atoms, rows in changes:
        mine = frame_of([r for r in rows if r[0] in set(atoms)])
        keys = keys_frame(atoms)
        if floats:
            mine, keys = (f.with_columns(pl.col("1").cast(pl.Float64)) for f in (mine, keys))
        held = held.replaced(keys, mine)
        these = {(float(a), float(b)) for a, b in atoms}
        changed |= these
        now = {r for r in now if (float(r[0]), float(r[1])) not in these} | set(mine.iter_rows())
        was = sorted(r for r in first.iter_rows() if (float(r[0]), float(r[1])) in changed)
        assert sorted(held.hidden_rows().select(first.columns).iter_rows()) == was
        beside = sorted(held.extra.select(first.columns).iter_rows())
        assert beside == sorted(r for r in now if (float(r[0]), float(r[1])) in changed)
        assert sorted(held.frame().select(first.columns).iter_rows()) == sorted(now)


def test_a_recursive_relation_is_spliced_once_an_update(monkeypatch):
    """A retraction through a recursion over-deletes, re-derives and inserts
    into the same relation; it changes in one splice (three before), and
    the model is the one reasoned from scratch."""
    from chronolog.engine.columns import evaluator, maintenance

    monkeypatch.setattr(evaluator, "POINT_ATOMS", -1)  # (the frames' path)
    spliced = []
    set_ = maintenance.ColumnMaintenance._set

    def spy(self, pred, df):
        spliced.append(pred)
        return set_(self, pred, df)

    monkeypatch.setattr(maintenance.ColumnMaintenance, "_set", spy)
    program = "reach(X,Y) :- e(X,Y).\nreach(X,Z) :- reach(X,Y), e(Y,Z)."
    facts = ["e(a,b)@[0,10]", "e(b,c)@[0,10]", "e(a,c)@[2,8]", "e(c,d)@[0,10]", "reach(a,d)@[1,3]"]
    r = chronolog.Reasoner(program, "\n".join(facts), engine="columns")
    m = r.retract("e(a,b)@[0,10]\nreach(a,d)@[2,3]")
    left = [f for f in facts if f not in ("e(a,b)@[0,10]", "reach(a,d)@[1,3]")] + ["reach(a,d)@[1,2)"]
    assert m.to_text() == chronolog.reason(program, "\n".join(left), engine="rows").to_text()
    assert m.stats["maintained_on"] == "columns"
    assert spliced.count("reach") == 1, spliced


def test_a_rule_reading_a_held_relation_whole_splices_it_first(monkeypatch):
    """A re-derivation of ``t(X,Z) :- t(X,Y), t(Y,Z)`` reads t twice, so
    neither atom is cut down: it reads the relation whole, the held atoms
    spliced in first; the model is the one reasoned from scratch."""
    from chronolog.engine.columns import evaluator

    monkeypatch.setattr(evaluator, "POINT_ATOMS", -1)  # (the frames' path)
    program = "t(X,Y) :- e(X,Y).\nt(X,Z) :- t(X,Y), t(Y,Z)."
    facts = ["e(a,b)@[0,10]", "e(b,a)@[0,10]", "e(b,c)@[0,10]", "e(c,b)@[3,12]", "e(c,a)@[0,4]"]
    r = chronolog.Reasoner(program, "\n".join(facts), engine="columns")
    m = r.retract("e(b,c)@[2,5]")
    left = [f for f in facts if f != "e(b,c)@[0,10]"] + ["e(b,c)@[0,2)", "e(b,c)@(5,10]"]
    assert m.to_text() == chronolog.reason(program, "\n".join(left), engine="rows").to_text()
    assert m.stats["maintained_on"] == "columns"


@settings(max_examples=examples(200), deadline=None)
@given(relation=pieces, other=pieces)
def test_a_relation_in_key_order_meets_a_frame_by_its_codes(relation, other):
    """take_back without the relation after (ColumnMaintenance.met, a round
    of a recursive over-deletion: the pieces of a relation's intervals
    inside a derived frame's, and the rows they are pieces of) against the
    points themselves; ``other`` is not coalesced nor in key order."""
    from chronolog.engine.columns.sorted_given import take_back

    df = frame_of(relation)
    theirs = _frame([np.array([a[i] for a, _, _ in other], dtype=np.int64) for i in range(2)],
                    np.array([s for _, s, _ in other], dtype=np.int64), np.array([e for _, _, e in other], dtype=np.int64))
    got = take_back(df, theirs, NAMES, after=None)
    assert got is not None
    pieces_, rows_ = got.pieces, got.touched
    assert points(pieces_) == points(df) & points(theirs)
    meeting = {r for r in df.iter_rows() if any(a == (r[0], r[1]) and s < r[3] and r[2] < e for a, s, e in other)}
    assert set(rows_.iter_rows()) == meeting and rows_.height == len(meeting)
