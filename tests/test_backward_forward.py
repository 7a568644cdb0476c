"""The rows' DRed (engine/rows/maintenance.py, the row executor's and the
columns' updates by atoms) deletes from a stratum without recursion only
the candidate pieces that no derivation left gives (the check of the
backward/forward algorithm): random programs where several rules derive
the same head over overlapping intervals, with recursion, negation and
aggregation above them, and random retractions, give after each update the
model of reasoning from scratch on the rows (the pointwise-checked
executor), and a non-recursive stratum never deletes a piece the model
still holds."""

from __future__ import annotations

from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples

import chronolog
from chronolog.engine.columns import evaluator
from chronolog.engine.rows.maintenance import Maintenance
from chronolog.language.timeline import intersect
from test_corrections_property import SETTINGS, as_dict, facts_of, minus, run_steps, update

VALUES = ("x", "y", "z")

# bodies of ``h(X)``, each over the base predicates, several read with a
# temporal operator: the same head atom from several rules, over intervals
# that overlap (and meet) differently
H_BODIES = (
    "a(X, Y)",
    "<->[0,2] b(X, Y)",
    "[-][0,1] a(X, Y), c(Y)",
    "b(X, X)",
    "c(X), <+>[0,1] a(Y, X)",
    "a(X, Y) <S>[0,2] c(X)",
)

# what sits above ``h``: recursion through a join, negation, aggregation
ABOVE = (
    "r(X, Y) :- h(X), a(X, Y).\nr(X, Z) :- r(X, Y), b(Y, Z).",
    "g(X) :- h(X), not c(X).",
    "k(N) :- h(X), N = count().",
    "m(X) :- [-][0,1] h(X), c(X).",
)


@st.composite
def programs(draw):
    """``(program, given rows, the derived predicates)``."""
    bodies = draw(st.lists(st.sampled_from(H_BODIES), min_size=2, max_size=4, unique=True))
    above = draw(st.lists(st.sampled_from(ABOVE), min_size=1, max_size=3, unique=True))
    program = "\n".join([f"h(X) :- {b}." for b in bodies] + above)
    derived = {line.split("(", 1)[0] for line in program.splitlines()}
    rows = []
    for pred, arity in (("a", 2), ("b", 2), ("c", 1)):
        atoms = st.lists(st.tuples(*[st.sampled_from(VALUES)] * arity), min_size=pred == "a", max_size=5, unique=True)
        for terms in draw(atoms):
            for _ in range(draw(st.integers(1, 2))):  # (one atom given over two stretches: they may meet or overlap)
                lo = draw(st.integers(0, 8))
                rows.append((pred, terms, (lo, lo + draw(st.integers(0, 4)), True, True)))
    return program, rows, derived


@st.composite
def retractions(draw, rows):
    """One to three updates, each retracting one to three stretches of given atoms."""
    steps = []
    for _ in range(draw(st.integers(1, 3))):
        gone = []
        for _ in range(draw(st.integers(1, 3))):
            pred, terms, (lo, hi, _, _) = draw(st.sampled_from(rows))
            start = draw(st.integers(lo - 1, hi))
            gone.append((pred, terms, (start, start + draw(st.integers(0, 3)), True, True)))
        steps.append(([], gone))
    return steps


PATHS = {"rows": ("rows", None), "columns by atoms": ("columns", 10**9), "columns on frames": ("columns", -1)}


@pytest.mark.parametrize("path", list(PATHS))
@settings(max_examples=examples(80), **SETTINGS)
@given(st.data())
def test_retractions_under_several_derivations_match_reasoning_from_scratch(path, data):
    program, rows, derived = data.draw(programs())
    steps = data.draw(retractions(rows))
    engine, point_atoms = PATHS[path]
    with patch.object(evaluator, "POINT_ATOMS", point_atoms if point_atoms is not None else evaluator.POINT_ATOMS):
        run_steps(program, rows, steps, (0, 20), engine, derived, False, oracle="rows")


def deleted_pieces_still_held(program, rows, steps, engine) -> list:
    """Pieces a stratum without recursion deleted in an update (pure
    retractions) that the model after it holds: ``[(pred, terms, piece)]``."""
    r = chronolog.Reasoner(program, as_dict(rows), horizon=(0, 20), engine=engine)
    flat = {p for s in r.evaluator.plan.strata if not s.recursive for p in s.preds}
    removed = []
    remove = Maintenance._remove

    def spy(self, rel, holes):
        if rel.name in flat and rel.name in self.ev.plan.derived_predicates():
            removed.extend((rel.name, terms, h) for terms, hs in holes.items() for h in hs)
        return remove(self, rel, holes)

    wrong = []
    with patch.object(Maintenance, "_remove", spy):
        for adds, gone in steps:
            removed.clear()
            update(r, adds, gone, False)
            for pred, terms, piece in removed:
                for t, iv in facts_of(r.model, pred):
                    if t == terms and intersect(iv, piece) is not None:
                        wrong.append((pred, terms, piece))
    return wrong


@pytest.mark.parametrize("engine, point_atoms", [("rows", None), ("columns", 10**9)], ids=["rows", "columns by atoms"])
@settings(max_examples=examples(80), **SETTINGS)
@given(st.data())
def test_no_piece_a_derivation_still_gives_is_deleted(engine, point_atoms, data):
    program, rows, _ = data.draw(programs())
    steps = data.draw(retractions(rows))
    with patch.object(evaluator, "POINT_ATOMS", point_atoms if point_atoms is not None else evaluator.POINT_ATOMS):
        assert deleted_pieces_still_held(program, rows, steps, engine) == []


@pytest.mark.parametrize("engine, point_atoms", [("rows", None), ("columns", 10**9)], ids=["rows", "columns by atoms"])
def test_a_head_another_rule_still_gives_is_not_deleted(engine, point_atoms):
    """``h(x)`` from ``a`` over [0,10] and from ``b`` over [4,12]: retracting
    ``a(x)`` over [2,6] deletes only [2,4) (delete-and-rederive deleted
    [0,10] and put back [0,2) and [4,10]).  (No negation: the columns'
    updates by atoms refuse it.)"""
    program = "h(X) :- a(X).\nh(X) :- b(X).\ng(X) :- [-][0,1] h(X), c(X)."
    rows = [("a", ("x",), (0, 10, True, True)), ("b", ("x",), (4, 12, True, True)), ("c", ("x",), (11, 11, True, True))]
    steps = [([], [("a", ("x",), (2, 6, True, True))])]
    with patch.object(evaluator, "POINT_ATOMS", point_atoms if point_atoms is not None else evaluator.POINT_ATOMS):
        assert deleted_pieces_still_held(program, rows, steps, engine) == []
        r = chronolog.Reasoner(program, as_dict(rows), horizon=(0, 20), engine=engine)
        update(r, [], steps[0][1], False)
    assert {e.get("path") for e in r.model.stats["maintenance"]} == {None if engine == "rows" else "atoms"}
    expected = chronolog.reason(program, as_dict(minus(rows, "a", ("x",), (2, 6, True, True))), horizon=(0, 20),
                                engine="rows")
    assert r.model.facts("h") == expected.facts("h") != []
    assert r.model.facts("g") == expected.facts("g")
