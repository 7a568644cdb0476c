"""Recursions through time that are not recurrences (a box over the
recursive atom, two predicates in one cycle, a join of two recursive atoms,
Since/Until over the recursion, a head box), run on columns in seminaive
rounds where the run has a horizon: the same model as the rows, which
define them (one round per delay on both), the same plan text, progress
and updates.  The recurrence kernel's shapes have their own tests
(test_recurrence.py)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chronolog
from budget import examples
from differential import agree, outcomes

from chronolog.language.errors import ChronologError

# {name: program}: each has a stratum whose recursion moves time and that the
# sweep does not take (planner/recurrence.py); {lo}/{hi} a random window
SHAPES = {
    "box over the recursive atom": "p(X) :- q(X).\np(X) :- [-][{lo},{hi}] p(X), r(X).",
    "future box": "p(X) :- q(X).\np(X) :- [+][{lo},{hi}] p(X), r(X).",
    "two predicates in a cycle": "a(X) :- q(X).\na(X) :- <->[{lo},{hi}] b(X).\nb(X) :- a(X), r(X).",
    "both directions": "p(X) :- q(X).\np(X) :- <->[{lo},{hi}] p(X), r(X).\np(X) :- <+>[{lo},{hi}] p(X), s(X).",
    "two recursive atoms": "t(X,Y) :- e(X,Y).\nt(X,Z) :- <->[{lo},{hi}] t(X,Y), <->[0,1] t(Y,Z).",
    "reach with a negation": "t(X,Y) :- e(X,Y).\nt(X,Z) :- <->[{lo},{hi}] t(X,Y), e(Y,Z), not s(Z).",
    "Since over the recursion": "p(X) :- q(X).\np(X) :- r(X) <S>[{lo},{hi}] p(X).",
    "Until over the recursion": "p(X) :- q(X).\np(X) :- r(X) <U>[{lo},{hi}] p(X).",
    "Since beside a join": "t(X,Y) :- e(X,Y).\nt(X,Z) :- t(X,Y) <S>[{lo},{hi}] e(Y,Z).",
    "head box": "p(X) :- q(X).\n[+][0,{hi}] p(X) :- <->[{lo},{lo}] p(X), r(X).",
}
NAMES = ["a", "b", "c", "d"]
ends = st.sampled_from([0, 1, 2, 3, 5, 8, Fraction(1, 2), Fraction(5, 2), 13])


@st.composite
def intervals(draw):
    start = draw(ends)
    length = draw(st.sampled_from([0, 0, 1, 2, 4, Fraction(3, 2), 7]))
    lo_open, hi_open = (draw(st.booleans()), draw(st.booleans())) if length else (False, False)
    return f"{'(' if lo_open else '['}{start},{start + length}{')' if hi_open else ']'}"


@st.composite
def facts(draw):
    out = []
    for pred in ("q", "r", "s"):
        for x in draw(st.lists(st.sampled_from(NAMES), max_size=4)):
            out.append(f"{pred}({x})@{draw(intervals())}.")
    for x, y in draw(st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES)), max_size=6)):
        out.append(f"e({x},{y})@{draw(intervals())}.")
    return "\n".join(out)


@st.composite
def windows(draw, since: bool):
    lo = draw(st.sampled_from([0, 1, 1, 2] if since else [1, 1, 2, Fraction(1, 2)]))
    return lo, lo + draw(st.sampled_from([0, 1, 2, Fraction(3, 2)]))


@settings(max_examples=examples(150), deadline=None)
@given(name=st.sampled_from(sorted(SHAPES)), data=st.data(), given_facts=facts(),
       horizon=st.sampled_from([(0, 12), (0, 20), (2, 9), (Fraction(1, 2), 15)]))
def test_columns_run_the_rounds_of_a_recursion_through_time_as_the_rows(name, data, given_facts, horizon):
    lo, hi = data.draw(windows("Since" in name or "Until" in name))
    program = SHAPES[name].format(lo=lo, hi=hi)
    outs = outcomes(program + "\n" + given_facts, None, horizon, engines=("rows", "columns", "auto-small"))
    agree(f"{program}\n{given_facts}\nhorizon {horizon}", outs)
    for engine in ("columns", "auto-small"):
        if not isinstance(outs[engine], str):
            assert set(outs[engine].stats["executors"].values()) == {"columns"}, (engine, outs[engine].stats)


def test_auto_takes_columns_from_the_recurrences_threshold():
    """10,000 given facts: the threshold of a recurrence (a round per delay
    costs the columns about a millisecond, so a small run stays on rows)."""
    from chronolog.planner.input_size import AUTO_MIN_RECURRENCE_FACTS

    program = SHAPES["box over the recursive atom"].format(lo=1, hi=2)
    for n, executor in ((AUTO_MIN_RECURRENCE_FACTS // 2, "columns"), (100, "rows")):
        data = "\n".join(f"q(n{i})@[{i % 7},{i % 7 + 2}].\nr(n{i})@[0,{10 + i % 13}]." for i in range(n))
        m = chronolog.reason(program + "\n" + data, horizon=(0, 30))
        assert m.stats["executors"] == {0: executor}, (n, m.stats)
        if executor == "columns":
            rows = chronolog.reason(program + "\n" + data, horizon=(0, 30), engine="rows")
            assert m.to_text() == rows.to_text()


def test_tables_count_as_facts_for_such_a_recursion():
    """Tables of 2,000 rows take the other strata to columns; a recursion
    through time in rounds (a millisecond each on columns) waits for
    10,000 given facts."""
    program = SHAPES["box over the recursive atom"].format(lo=1, hi=2) + "\nn(X) :- q(X), not r(X)."
    n = 3_000
    given = {"q": [((f"n{i}",), (i % 7, i % 7 + 2)) for i in range(n)],
             "r": [((f"n{i}",), (0, 10 + i % 13)) for i in range(n)]}
    m = chronolog.reason(program, given, horizon=(0, 30))
    strata = {s.index: s.preds for s in m.plan.strata}
    assert {tuple(strata[i]): e for i, e in m.stats["executors"].items()} == {("p",): "rows", ("n",): "columns"}
    assert m.to_text() == chronolog.reason(program, given, horizon=(0, 30), engine="rows").to_text()


def test_the_plan_says_where_such_a_recursion_runs():
    from chronolog.plan_text import describe_plan
    from chronolog.planner import plan

    program = chronolog.load_program(SHAPES["two predicates in a cycle"].format(lo=1, hi=1))
    text = describe_plan(plan(program), "auto", horizon=(0, 30))
    assert "runs on columns when 10,000+ facts are given, tables included, else rows (one round per delay)" in text
    # no horizon: the model is found where it repeats, on rows
    text = describe_plan(plan(program), "columns")
    assert "the model is found where it repeats, on rows; with a closed horizon (--horizon, horizon=): columns (forced)" in text


def test_progress_reports_each_round_as_the_rows_do():
    program = SHAPES["box over the recursive atom"].format(lo=1, hi=1) + "\nq(a)@[0,2]. r(a)@[0,9]. q(b)@[1,3]. r(b)@[0,5]."
    seen = {}
    for engine in ("columns", "rows"):
        events = []
        chronolog.reason(program, engine=engine, horizon=(0, 20), progress=events.append)
        seen[engine] = [(e.stratum, e.round, e.done) for e in events]
    assert seen["columns"] == seen["rows"]
    assert len(seen["rows"]) > 5 and seen["rows"][-1][2]


def test_a_round_limit_the_rows_would_hit_falls_back_for_them_to_report():
    """max_rounds binds a window chronolog chose itself (rounds_bounded):
    the columns stop there and the rows give their error."""
    from chronolog.engine.columns.evaluator import HybridEvaluator
    from chronolog.engine.store import Store
    from chronolog.language.errors import ProgramError
    from chronolog.planner import plan

    program = chronolog.load_program(SHAPES["box over the recursive atom"].format(lo=1, hi=1))
    store = Store()
    store.relation("q").add(("a",), (0, 2, True, True))
    store.relation("r").add(("a",), (0, 100, True, True))
    ev = HybridEvaluator(plan(program), store, (0, 100, True, True), engine="columns", max_rounds=10)
    ev.rounds_bounded = True
    with pytest.raises(ProgramError, match="no fixpoint after 10 rounds"):
        ev.run()
    assert ev.stats["fallbacks"] == ["stratum 0: no fixpoint after 10 rounds"]


@settings(max_examples=examples(40), deadline=None)
@given(name=st.sampled_from(sorted(SHAPES)), given_facts=facts(), data=st.data())
def test_updates_of_such_a_stratum_on_columns_equal_reasoning_again(name, given_facts, data):
    program = SHAPES[name].format(lo=1, hi=2)
    lines = [line for line in given_facts.splitlines() if line]
    # (a retraction takes time away from an atom: taken from an atom given once, the rest is its other lines)
    alone = [line for line in lines if sum(x.split("@")[0] == line.split("@")[0] for x in lines) == 1]
    if not alone:
        return
    gone = data.draw(st.lists(st.sampled_from(alone), max_size=2, unique=True))
    extra = data.draw(facts())
    try:
        r = chronolog.Reasoner(program, given_facts, engine="columns", horizon=(0, 15))
    except ChronologError:
        return
    m = r.retract("\n".join(gone))
    left = [line for line in lines if line not in gone]
    assert m.to_text() == chronolog.reason(program, "\n".join(left), engine="rows", horizon=(0, 15)).to_text()
    m = r.add(extra)
    again = chronolog.reason(program, "\n".join(left) + "\n" + extra, engine="rows", horizon=(0, 15))
    assert m.to_text() == again.to_text()
