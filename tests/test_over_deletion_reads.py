"""The rows' DRed (engine/rows/maintenance.py, the row executor's and the
columns' updates by atoms) gives a lower predicate that changed its old
facts back only while an over-deletion reads it as a relation: beside an
atom of a predicate whose loss drives it.  Random programs whose rules join
two changed predicates (one reading the other's old facts), read one
alone, join a predicate with itself, or recurse over a changed one, under
updates that add and retract in one step (the added facts must not meet the
lost ones while over-deleting), give the model of reasoning from scratch
on the rows; and a stratum that reads each changed predicate alone has
nothing put back."""

from __future__ import annotations

from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples

import chronolog
from chronolog.engine.columns import evaluator
from chronolog.engine.rows.maintenance import Maintenance
from test_corrections_property import SETTINGS, as_dict, check, update

VALUES = ("x", "y", "z")

# rules over the given a/2, b/1 and c/1: two changed predicates joined, one
# alone, a self-join, a Since/Until of two, recursion over a changed one
RULES = (
    "h(X) :- a(X, Y), b(Y).",
    "h(X) :- b(X).",
    "h(X) :- a(X, Y), a(Y, X).",
    "h(X) :- c(X) <S>[0,2] b(X).",
    "h(X) :- [-][0,1] a(X, Y), <->[0,1] c(Y).",
    "t(X, Y) :- a(X, Y).\nt(X, Z) :- t(X, Y), a(Y, Z).",
    "t(X, Y) :- b(X), c(Y).\nt(X, Z) :- t(X, Y), a(Y, Z).",
)

# above them (the derived predicate each reads): a changed derived predicate
# beside a changed given one, or alone
ABOVE = (
    ("h", "k(X) :- h(X), c(X)."),
    ("h", "m(X) :- <+>[0,1] h(X)."),
    ("t", "n(X) :- t(X, X), b(X)."),
    ("t", "o(Y) :- t(X, Y)."),
)

PATHS = {"rows": ("rows", None), "columns by atoms": ("columns", 10**9)}


@st.composite
def programs(draw):
    """``(program, given rows, the derived predicates)``."""
    rules = draw(st.lists(st.sampled_from(RULES), min_size=1, max_size=4, unique=True))
    heads = {line.split("(", 1)[0] for rule in rules for line in rule.splitlines()}
    above = [rule for reads, rule in draw(st.lists(st.sampled_from(ABOVE), max_size=2, unique=True)) if reads in heads]
    program = "\n".join(rules + above)
    derived = {line.split("(", 1)[0] for line in program.splitlines()}
    rows = []
    for pred, arity in (("a", 2), ("b", 1), ("c", 1)):
        for terms in draw(st.lists(st.tuples(*[st.sampled_from(VALUES)] * arity), min_size=1, max_size=4, unique=True)):
            lo = draw(st.integers(0, 8))
            rows.append((pred, terms, (lo, lo + draw(st.integers(0, 4)), True, True)))
    return program, rows, derived


@pytest.mark.parametrize("path", list(PATHS))
@settings(max_examples=examples(80), **SETTINGS)
@given(st.data())
def test_updates_of_joined_changed_predicates_match_reasoning_from_scratch(path, data):
    program, rows, derived = data.draw(programs())
    engine, point_atoms = PATHS[path]
    with patch.object(evaluator, "POINT_ATOMS", point_atoms if point_atoms is not None else evaluator.POINT_ATOMS):
        check(program, rows, (0, 20), engine, derived, data, False, both=True, oracle="rows")


def put_back(program, rows, adds, gone, engine) -> list:
    """The predicates an update's over-deletions gave their old facts back, in turn."""
    r = chronolog.Reasoner(program, as_dict(rows), horizon=(0, 20), engine=engine)
    seen = []
    original = Maintenance._put_back

    def spy(self, changed):
        seen.extend(sorted(changed))
        return original(self, changed)

    with patch.object(Maintenance, "_put_back", spy):
        update(r, adds, gone, False)
    expected = chronolog.reason(program, as_dict([f for f in rows if f not in gone] + adds), horizon=(0, 20),
                                engine="rows")
    for pred in ("h", "k"):
        assert r.model.facts(pred) == expected.facts(pred)
    assert {e.get("path") for e in r.model.stats["maintenance"]} == {None if engine == "rows" else "atoms"}
    return seen


@pytest.mark.parametrize("engine, point_atoms", [("rows", None), ("columns", 10**9)], ids=["rows", "columns by atoms"])
def test_old_facts_are_put_back_only_where_read_beside_a_loss(engine, point_atoms):
    """``h`` reads ``a`` and ``b`` each alone, ``k`` reads ``h`` beside
    ``c``: an update that takes ``a(x)`` back and adds ``b(y)`` and ``c(x)``
    puts back nothing for ``h`` (its variants read only their own delta),
    and for ``k`` only ``c`` (read beside ``h``'s loss), not ``h``."""
    program = "h(X) :- a(X).\nh(X) :- b(X).\nk(X) :- h(X), c(X)."
    rows = [("a", ("x",), (0, 4, True, True)), ("b", ("x",), (6, 9, True, True)), ("c", ("x",), (2, 3, True, True))]
    adds = [("b", ("y",), (1, 2, True, True)), ("c", ("x",), (7, 8, True, True))]
    gone = [("a", ("x",), (0, 4, True, True))]
    with patch.object(evaluator, "POINT_ATOMS", point_atoms if point_atoms is not None else evaluator.POINT_ATOMS):
        assert put_back(program, rows, adds, gone, engine) == ["c"]
