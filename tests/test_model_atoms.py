"""chronolog/model_atoms.py: a model's atoms near a window, read from the
relation's frame on columns, give the facts within it that the rows give
(the filter keeps a superset near the window's ends; the clip is exact)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import assume, given, settings
from hypothesis import strategies as st

import chronolog
from budget import examples

ENDS = st.sampled_from([0, 1, 2, 3, 5, 8, Fraction(1, 2), Fraction(7, 3), 2.5, float("-inf"), float("inf")])


@st.composite
def cases(draw):
    facts = []
    for _ in range(draw(st.integers(1, 12))):
        lo = draw(st.sampled_from([0, 1, 2, 4, 6, Fraction(3, 2), Fraction(9, 4)]))
        hi = lo + draw(st.sampled_from([0, 1, 3, Fraction(1, 3)]))
        left, right = ("[" if draw(st.booleans()) or lo == hi else "("), ("]" if draw(st.booleans()) or lo == hi else ")")
        facts.append(f"p({draw(st.sampled_from(['a', 'b', 'c']))},{draw(st.integers(0, 2))})@{left}{lo},{hi}{right}")
    a, b = sorted([draw(ENDS), draw(ENDS)])
    assume(not (a == b and abs(a) == float("inf")))  # (an empty window: an error, tests/test_bad_input.py's)
    rule = draw(st.sampled_from(["q(X, Y) :- <->[0,1] p(X, Y).", "q(X, Y) :- [-][0,1] p(X, Y).", "q(X, Y) :- p(X, Y)."]))
    return rule, "\n".join(facts), (a, b)


@settings(max_examples=examples(100), deadline=None)
@given(cases())
def test_facts_within_a_window_on_columns_are_the_rows(case):
    rule, facts, window = case
    rows = chronolog.reason(rule, facts, engine="rows")
    columns = chronolog.reason(rule, facts, engine="columns")
    for pred in ("p", "q"):
        assert columns.facts_within(pred, window) == rows.facts_within(pred, window), (pred, window)
    lo, hi = (str(x).replace("inf", "+inf").replace("-+", "-") if isinstance(x, float) else str(x) for x in window)
    assert columns.query(f"q(X, Y)@[{lo},{hi}]") == rows.query(f"q(X, Y)@[{lo},{hi}]")


def test_a_window_reads_the_atoms_near_it_alone(tmp_path, monkeypatch):
    """The facts within a window of a relation on columns come from its
    frame: its rows are not made (600k facts made rows: 4 s)."""
    from chronolog import api

    monkeypatch.setattr(api, "KERNEL_BYTES", 0)
    (tmp_path / "p.facts").write_text("".join(f"p(k{i % 50},{i})@[{i},{i + 2}]\n" for i in range(2000)))
    m = chronolog.reason("q(X, Y) :- <->[0,1] p(X, Y).", tmp_path / "p.facts", engine="columns")
    got = m.facts_within("q", (100, 101.5))
    assert {t for t, _ in got} == {("k47", 97), ("k48", 98), ("k49", 99), ("k0", 100), ("k1", 101)}
    assert m.store.pending("q") and m.store.pending("p")
    assert m.to_arrow("q", window=(100, 101.5)).num_rows == 5 and m.store.pending("q")
