"""A given relation's changes through its sorted codes
(engine/columns/sorted_given.py), against the time points themselves: a
frame of code intervals ``[s, e)`` is a set of (atom, point) pairs, and a
retraction takes the holes' pairs out of it, an addition puts its pairs in
(the oracle counts points, nobody's interval arithmetic).  The answers must also be frames as the
relations are kept: coalesced and in the order of the packed codes."""

from __future__ import annotations

import numpy as np
import polars as pl
from hypothesis import assume, given, settings, strategies as st

from budget import examples
from chronolog.engine.columns.coalesce import coalesce_arrays
from chronolog.engine.columns.relation import _frame, term_columns
from chronolog.engine.columns.maintenance import semi, split
from chronolog.engine.columns.sorted_given import Overlay, atoms_missing, packed, take_back
from chronolog.engine.columns.sorted_given import _order_key


def frame_of(rows, arity):
    """A coalesced frame of ``(atom, s, e)`` rows (codes)."""
    cols = [np.array([a[i] for a, _, _ in rows], dtype=np.int64) for i in range(arity)]
    s = np.array([x for _, x, _ in rows], dtype=np.int64)
    e = np.array([x for _, _, x in rows], dtype=np.int64)
    return _frame(*coalesce_arrays(cols, s, e))


def points(df, arity) -> set:
    names = term_columns(arity)
    return {(tuple(r[:arity]), t) for r in df.select(*names, "s", "e").iter_rows() for t in range(r[arity], r[arity + 1])}


def rows(df) -> list:
    return list(df.iter_rows())


def holes_met(holes, have: set, arity) -> int:
    """How many rows of ``holes`` share a point with the points ``have``."""
    names = term_columns(arity)
    return sum(any((tuple(r[:arity]), t) in have for t in range(r[arity], r[arity + 1]))
               for r in holes.select(*names, "s", "e").iter_rows())


def assert_kept(df, arity):
    """Coalesced (no two rows of an atom meet or touch) and in key order."""
    names = term_columns(arity)
    key = packed([df[c].to_numpy() for c in names], df.height)
    assert (np.diff(key) >= 0).all()
    assert (_order_key(df, names) == key).all()  # (the key remembered for the frame, if one was, is its own)
    got = sorted(rows(df))
    for a, b in zip(got, got[1:]):
        if a[:arity] == b[:arity]:
            assert a[arity + 1] < b[arity], (a, b)


atoms = st.tuples(st.integers(0, 3), st.integers(0, 3))
spans = st.tuples(st.integers(0, 30), st.integers(1, 8)).map(lambda p: (p[0], p[0] + p[1]))
facts = st.lists(st.tuples(atoms, spans).map(lambda x: (x[0], *x[1])), max_size=25)
# codes from 0 and the last code there is (2**31 - 1: a probe of its rows
# must not overflow past it)
last_code_atoms = st.tuples(st.integers(0, 3) | st.just(2**31 - 1), st.integers(0, 3) | st.just(2**31 - 1))
last_code_facts = st.lists(st.tuples(last_code_atoms, spans).map(lambda x: (x[0], *x[1])), max_size=25)


def given_frame(given_rows, arity: int, shuffled: bool):
    """The given rows cut to ``arity`` terms as a frame, shuffled out of key
    order when asked (a merge can leave it so: sorted again first)."""
    df = frame_of([(a[:arity], s, e) for a, s, e in given_rows], arity)
    return df.sample(fraction=1.0, shuffle=True, seed=1) if shuffled and df.height > 1 else df


@settings(max_examples=examples(300), deadline=None)
@given(facts, facts, st.integers(0, 2), st.booleans())
def test_a_retraction_against_the_points(given_rows, hole_rows, arity, shuffled):
    df = given_frame(given_rows, arity, shuffled)
    holes = frame_of([(a[:arity], s, e) for a, s, e in hole_rows], arity)
    got = take_back(df, holes, term_columns(arity))
    have, gone = points(df, arity), points(holes, arity)
    assert points(got.relation, arity) == have
    assert points(got.pieces, arity) == have & gone
    assert points(got.after, arity) == have - gone
    met = {(r[:arity], r[arity], r[arity + 1]) for r in rows(got.relation)
           if any(((r[:arity]), t) in gone for t in range(r[arity], r[arity + 1]))}
    assert {(r[:arity], r[arity], r[arity + 1]) for r in rows(got.touched)} == met
    assert got.touched.height == len(met)  # (each row once)
    assert got.met == holes_met(holes, have, arity)
    for f in (got.relation, got.pieces, got.after, got.touched):
        assert_kept(f, arity)


def in_another_order_of_atoms(holes, arity: int, rank: list):
    """``holes`` (coalesced, in key order) with their atoms in the order
    ``rank`` gives them (each atom's rows still by start): a retraction
    lists its atoms in any order, and their codes may have been made in
    another one."""
    names = term_columns(arity)
    atoms = [r[:arity] for r in rows(holes.select(names))]
    distinct = list(dict.fromkeys(atoms))
    place = {a: rank[i % len(rank)] * len(distinct) + i for i, a in enumerate(distinct)}
    order = sorted(range(len(atoms)), key=lambda i: (place[atoms[i]], i))
    return holes[order] if order else holes


@settings(max_examples=examples(300), deadline=None)
@given(facts, facts, st.integers(1, 2), st.booleans(), st.lists(st.integers(0, 9), min_size=1, max_size=6),
       st.sampled_from(["frame", "hidden", None]))
def test_a_retraction_of_atoms_in_another_order_against_the_points(given_rows, hole_rows, arity, shuffled, rank, after):
    """take_back of holes whose atoms come in another order than the
    relation's (each atom's holes by start): the same pieces, rows met and
    relation after as the points give, kept as the relations are (each
    hole was taken back from another atom's rows: found by the corrections'
    property test only)."""
    from chronolog.engine.columns.sorted_given import as_frame

    df = given_frame(given_rows, arity, shuffled)
    holes = in_another_order_of_atoms(frame_of([(a[:arity], s, e) for a, s, e in hole_rows], arity), arity, rank)
    got = take_back(df, holes, term_columns(arity), after=after)
    have, gone = points(df, arity), points(holes, arity)
    assert points(got.pieces, arity) == have & gone
    met = {(r[:arity], r[arity], r[arity + 1]) for r in rows(got.relation)
           if any(((r[:arity]), t) in gone for t in range(r[arity], r[arity + 1]))}
    assert {(r[:arity], r[arity], r[arity + 1]) for r in rows(got.touched)} == met
    assert got.touched.height == len(met)
    assert got.met == holes_met(holes, have, arity)
    kept = [got.pieces, got.touched]
    if after is not None:
        assert points(as_frame(got.after), arity) == have - gone
        kept.append(as_frame(got.after))
    for f in kept:
        assert_kept(f, arity)


@settings(max_examples=examples(300), deadline=None)
@given(facts, facts, st.integers(0, 2), st.booleans())
def test_an_addition_against_the_points(given_rows, added_rows, arity, shuffled):
    """Overlay.merged (maintenance.py's merge of added rows), a relation
    out of key order sorted first."""
    from chronolog.engine.columns.maintenance import atoms_of

    df = given_frame(given_rows, arity, shuffled)
    added = frame_of([(a[:arity], s, e) for a, s, e in added_rows], arity)
    names = term_columns(arity)
    held = Overlay.over(df, names, sort=True)
    assert held.order is not None
    held, new = held.merged(atoms_of(added, names), [added])
    after = held.frame()
    assert points(after, arity) == points(df, arity) | points(added, arity)
    assert set(rows(new)) == set(rows(after)) - set(rows(df))
    for f in (new, after):
        assert_kept(f, arity)


@settings(max_examples=examples(200), deadline=None)
@given(facts, facts, st.integers(0, 2), st.booleans())
def test_the_rows_of_atoms_missing_from_another_frame(given_rows, hole_rows, arity, shuffled):
    """atoms_missing: a retraction's holes of atoms with no given row met
    (those a derived predicate's retraction checks against the model)."""
    df = given_frame(given_rows, arity, shuffled)
    holes = frame_of([(a[:arity], s, e) for a, s, e in hole_rows], arity)
    have = {r[:arity] for r in rows(df)}
    got = atoms_missing(holes, df, term_columns(arity))
    assert rows(got) == [r for r in rows(holes) if r[:arity] not in have]


def test_unbounded_ends_and_a_row_cut_in_three():
    from chronolog.engine.interval_codes import NEG, POS

    df = frame_of([((1,), NEG, 20), ((1,), 30, POS), ((2,), 0, 10)], 1)
    holes = frame_of([((1,), 5, 7), ((1,), 9, 12), ((1,), 40, 50), ((3,), 0, 5)], 1)
    got = take_back(df, holes, ["0"])
    assert rows(got.after) == [(1, NEG, 5), (1, 7, 9), (1, 12, 20), (1, 30, 40), (1, 50, POS), (2, 0, 10)]
    assert rows(got.pieces) == [(1, 5, 7), (1, 9, 12), (1, 40, 50)]
    assert rows(got.touched) == [(1, NEG, 20), (1, 30, POS)]


def test_value_columns_and_wide_atoms_are_left_to_polars():
    floats = pl.DataFrame({"0": [1.5], "s": [0], "e": [4]})
    assert take_back(floats, floats, ["0"]) is None
    wide = frame_of([((1, 2, 3), 0, 4)], 3)
    assert take_back(wide, wide, term_columns(3)) is None
    assert Overlay.over(floats, ["0"], sort=True).order is None and Overlay.over(wide, term_columns(3), sort=True).order is None
    assert atoms_missing(floats, floats, ["0"]) is None and atoms_missing(wide, wide, term_columns(3)) is None


def as_set(df) -> set:
    return set(df.select(sorted(df.columns, key=lambda c: (c in ("s", "e"), c))).iter_rows())


@settings(max_examples=examples(300), deadline=None)
@given(last_code_facts, st.lists(last_code_atoms, max_size=6), st.integers(1, 2), st.integers(1, 2), st.booleans())
def test_the_semi_join_and_the_split_by_the_sorted_key(given_rows, key_atoms, arity, width, shuffled):
    """maintenance.py's semi-join (keys on the leading ``width`` term
    columns) and split (keys on the atom), against a filter of Python
    tuples; of a relation in key order, by its sorted codes and in key
    order (a relation out of it: by masks)."""
    df = given_frame(given_rows, arity, shuffled)
    names = term_columns(arity)
    in_order = (np.diff(packed([df[c].to_numpy() for c in names], df.height)) >= 0).all()
    cols = names[: min(width, arity)]
    keys = pl.DataFrame([k[: len(cols)] for k in key_atoms], schema={c: pl.Int64 for c in cols}, orient="row").unique()
    wanted = {k for k in keys.iter_rows()}
    got = semi(df, keys, cols, None)
    assert as_set(got) == {r for r in as_set(df) if r[: len(cols)] in wanted}
    assert got.height == len(as_set(got))
    if not in_order:
        return
    assert_kept(got, arity)
    atom_keys = pl.DataFrame([k[:arity] for k in key_atoms], schema={c: pl.Int64 for c in names}, orient="row").unique()
    hit, rest = split(df, atom_keys, names, None)
    chosen = set(atom_keys.iter_rows())
    assert as_set(hit) == {r for r in as_set(df) if r[:arity] in chosen}
    assert as_set(rest) == {r for r in as_set(df) if r[:arity] not in chosen}
    assert hit.height + rest.height == df.height
    assert_kept(rest, arity)


@settings(max_examples=examples(300), deadline=None)
@given(facts, st.lists(atoms, max_size=6), facts, st.integers(1, 2), st.booleans())
def test_the_rows_of_some_atoms_replaced_in_one_splice(given_rows, key_atoms, new_rows, arity, shuffled):
    """maintenance.py's read_out and put_back: the rows of some atoms read
    without a split (an Overlay with them hidden), then replaced by other
    rows of those atoms (one splice), against a filter of Python tuples;
    every row once, and of a relation in key order, in key order with the
    remembered key right (one out of it: by masks)."""
    df = given_frame(given_rows, arity, shuffled)
    names = term_columns(arity)
    in_order = (np.diff(packed([df[c].to_numpy() for c in names], df.height)) >= 0).all()
    keys = pl.DataFrame([k[:arity] for k in key_atoms], schema={c: pl.Int64 for c in names}, orient="row").unique()
    chosen = set(keys.iter_rows())
    back = frame_of([(a[:arity], s, e) for a, s, e in new_rows if a[:arity] in chosen], arity)
    held = Overlay.over(df, names).without(keys)
    assert (held.order is not None) == in_order
    hit, got = held.hidden_rows(), held.plus(back).frame()
    assert sorted(rows(hit)) == sorted(r for r in rows(df) if r[:arity] in chosen)
    assert sorted(rows(got)) == sorted([r for r in rows(df) if r[:arity] not in chosen] + rows(back))
    if not in_order:
        return
    assert_kept(hit, arity)
    assert_kept(got, arity)
    first = got.select(names[:1]).unique().head(3)
    again = semi(got, first, names[:1], None)  # (by the remembered key)
    assert rows(again) == [r for r in rows(got) if r[:1] in set(first.iter_rows())]


@settings(max_examples=examples(300), deadline=None)
@given(facts, facts, st.integers(0, 2), st.booleans())
def test_maintenance_minus_against_the_points(given_rows, hole_rows, arity, shuffled):
    """maintenance.minus (a re-derivation's kept rows, a derived predicate's
    given facts less a retraction) of frames of codes, by their sorted codes."""
    from chronolog.engine.columns.maintenance import minus

    df = given_frame(given_rows, arity, shuffled)
    holes = frame_of([(a[:arity], s, e) for a, s, e in hole_rows], arity)
    got = minus(df, holes, term_columns(arity), None)
    assert points(got, arity) == points(df, arity) - points(holes, arity)
    assert_kept(got, arity)


@settings(max_examples=examples(300), deadline=None)
@given(facts, st.lists(facts, min_size=1, max_size=4), st.integers(0, 2), st.booleans(), st.sampled_from([0.0, 0.25, float("inf")]))
def test_retractions_one_after_another_with_rows_hidden(given_rows, hole_steps, arity, shuffled, share):
    """Retractions of a given relation one after another with its rows
    hidden (take_back(after="hidden"): an Overlay, compacted past
    ``share``), each against the points; each step's pieces and old rows
    met are frames as the relations are kept, and the relation read whole
    (Overlay.frame) equals the one copied at each step (after="frame")."""
    from unittest.mock import patch

    from chronolog.engine.columns import sorted_given
    from chronolog.engine.columns.sorted_given import as_frame

    names = term_columns(arity)
    hidden = copied = given_frame(given_rows, arity, shuffled)
    have = points(copied, arity)
    with patch.object(sorted_given, "HIDDEN_SHARE", share):
        for hole_rows in hole_steps:
            holes = frame_of([(a[:arity], s, e) for a, s, e in hole_rows], arity)
            got, eager = take_back(hidden, holes, names, after="hidden"), take_back(copied, holes, names)
            gone = points(holes, arity)
            assert points(got.pieces, arity) == have & gone
            assert got.met == eager.met == holes_met(holes, have, arity)
            assert rows(got.pieces) == rows(eager.pieces) and rows(got.touched) == rows(eager.touched)
            for f in (got.pieces, got.touched):
                assert_kept(f, arity)
            assert got.relation is hidden or sorted(rows(got.relation)) == sorted(rows(hidden))  # (put in key order)
            have -= gone
            assert got.after.height == eager.after.height
            whole = as_frame(got.after)
            assert points(whole, arity) == have
            assert rows(whole) == rows(eager.after)
            assert_kept(whole, arity)
            hidden, copied = got.after, eager.after


def test_a_hidden_relation_keeps_its_pieces_beside_until_read():
    """A hole inside a row hides it and keeps both sides beside it; a later
    retraction meets those pieces (not the hidden row), and one that empties
    the relation leaves it empty; read whole, each step is the copied one."""
    from unittest.mock import patch

    from chronolog.engine.columns import sorted_given
    from chronolog.engine.columns.sorted_given import Overlay

    df = frame_of([((1,), 0, 20), ((2,), 0, 10), ((3,), 5, 6)], 1)
    with patch.object(sorted_given, "HIDDEN_SHARE", float("inf")):
        first = take_back(df, frame_of([((1,), 5, 7)], 1), ["0"], after="hidden")
        assert isinstance(first.after, Overlay) and first.after.height == 4
        assert rows(first.after.frame()) == [(1, 0, 5), (1, 7, 20), (2, 0, 10), (3, 5, 6)]
        second = take_back(first.after, frame_of([((1,), 3, 9), ((3,), 0, 9)], 1), ["0"], after="hidden")
        assert second.relation is first.after
        assert rows(second.pieces) == [(1, 3, 5), (1, 7, 9), (3, 5, 6)]
        assert rows(second.touched) == [(1, 0, 5), (1, 7, 20), (3, 5, 6)]
        assert rows(second.after.frame()) == [(1, 0, 3), (1, 9, 20), (2, 0, 10)]
        last = take_back(second.after, frame_of([((1,), 0, 30), ((2,), 0, 30)], 1), ["0"], after="hidden")
        assert last.after.height == 0 and rows(last.after.frame()) == []
    assert not isinstance(take_back(df, frame_of([((1,), 5, 7)], 1), ["0"], after="hidden").after, Overlay)  # (past HIDDEN_SHARE: one of three rows)


@settings(max_examples=examples(300), deadline=None)
@given(facts, st.lists(facts, min_size=1, max_size=3), st.lists(atoms, max_size=6), st.integers(1, 2), st.sampled_from(["0", "1", "01"]))
def test_a_hidden_relation_cut_down_as_the_copied_one(given_rows, hole_steps, key_atoms, arity, by):
    """maintenance.semi (a rule's atom cut down to the rows sharing the
    driving atom's values) of an Overlay, probed by its sorted codes
    or filtered by masks, gives the rows the copied relation gives, in key
    order."""
    from unittest.mock import patch

    from chronolog.engine.columns import sorted_given
    from chronolog.engine.columns.maintenance import semi
    from chronolog.engine.columns.sorted_given import as_frame

    names = term_columns(arity)
    cols = [c for c in by if int(c) < arity]
    assume(cols)
    rel = frame_of([(a[:arity], s, e) for a, s, e in given_rows], arity)
    with patch.object(sorted_given, "HIDDEN_SHARE", float("inf")):
        for hole_rows in hole_steps:
            rel = take_back(rel, frame_of([(a[:arity], s, e) for a, s, e in hole_rows], arity), names, after="hidden").after
    keys = pl.DataFrame([tuple(k[int(c)] for c in cols) for k in key_atoms], schema={c: pl.Int64 for c in cols}, orient="row").unique()
    whole = as_frame(rel)
    wanted = {tuple(k) for k in keys.iter_rows()}
    expected = [r for r in rows(whole) if tuple(r[int(c)] for c in cols) in wanted]
    got = semi(rel, keys, cols, None)
    assert rows(got) == expected  # (in key order, by the sorted codes or by masks)


@settings(max_examples=examples(300), deadline=None)
@given(facts, facts, facts, st.lists(atoms, max_size=6), st.integers(1, 2))
def test_a_semi_join_of_a_hidden_relation_on_its_last_column(given_rows, hole_rows, more_holes, key_atoms, arity):
    """maintenance.semi of a relation with hidden rows (two retractions
    taken back: rows hidden, pieces beside) on its last term column (with
    two, not the key's first): its rows filtered as they are, not made one
    frame (Overlay.rows), give the points left whose column is a key."""
    from chronolog.engine.columns.maintenance import semi
    from chronolog.engine.columns.sorted_given import Overlay

    names = term_columns(arity)
    df, left = given_frame(given_rows, arity, False), points(given_frame(given_rows, arity, False), arity)
    for holes in (hole_rows, more_holes):
        holes = frame_of([(a[:arity], s, e) for a, s, e in holes], arity)
        df, left = take_back(df, holes, names, after="hidden").after, left - points(holes, arity)
    assume(isinstance(df, Overlay))
    col = names[-1]
    keys = pl.DataFrame({col: sorted({a[arity - 1] for a in key_atoms})}, schema={col: pl.Int64})
    cut = semi(df, keys, [col], None)
    assert df._frame is None  # (not made one frame)
    assert points(cut, arity) == {(a, t) for a, t in left if a[-1] in set(keys[col].to_list())}


@settings(max_examples=examples(300), deadline=None)
@given(st.data(), st.integers(0, 25), st.integers(1, 4))
def test_spliced_as_np_insert(data, n, width):
    """sorted_given.spliced (a splice of every column by one set of masks)
    against numpy's own delete and insert, column by column."""
    from chronolog.engine.columns.sorted_given import spliced

    arrays = [np.array(data.draw(st.lists(st.integers(-9, 9), min_size=n, max_size=n)), dtype=np.int64) for _ in range(width)]
    removed = np.array(sorted(data.draw(st.sets(st.integers(0, n - 1), max_size=n))) if n else [], dtype=np.int64)
    left = n - len(removed)
    at = np.array(sorted(data.draw(st.lists(st.integers(0, left), max_size=6))), dtype=np.int64)
    extras = [np.array(data.draw(st.lists(st.integers(-9, 9), min_size=len(at), max_size=len(at))), dtype=np.int64) for _ in range(width)]
    got = spliced(arrays, removed, at, extras)
    for a, x, g in zip(arrays, extras, got):
        assert g.tolist() == np.insert(np.delete(a, removed), at, x).tolist()
