"""Hypothetical answers (the hypothetical-answers paper), step by step: the golden examples item 8 (the
paper's wind-turbine example, its supported answers S0, S1, S2), Ex. 8 (an
answer that needs no future facts), refusals."""

from __future__ import annotations

import pytest

import chronolog
from chronolog.hypothetical import Hypothetical

TURBINES = """
flag(X) :- temp(X,high).
cool(X) :- flag(X), [-][1,1] flag(X).
shdn(X) :- flag(X), [-][1,1] cool(X).
malf(X) :- [+][2,2] shdn(X).
@output("malf").
"""


def T(k):
    return ("temp", ("wt25", "high"), k)


def triples(answers):
    return {(a.terms, a.time, frozenset(a.evidence), frozenset(a.hypotheses)) for a in answers}


def test_reference_item_8_step_by_step():
    h = Hypothetical(TURBINES)
    s0 = h.step(0, "temp(wt25,high)@0")
    assert triples(s0) == {(("wt25",), 0, frozenset({T(0)}), frozenset({T(1), T(2)}))}
    assert not any(a.definite for a in s0)
    s1 = h.step(1, "temp(wt25,high)@1")
    assert triples(s1) == {
        (("wt25",), 0, frozenset({T(0), T(1)}), frozenset({T(2)})),
        (("wt25",), 1, frozenset({T(1)}), frozenset({T(2), T(3)})),
    }
    s2 = h.step(2, "temp(wt25,high)@2")
    assert triples(s2) == {
        (("wt25",), 0, frozenset({T(0), T(1), T(2)}), frozenset()),
        (("wt25",), 1, frozenset({T(1), T(2)}), frozenset({T(3)})),
        (("wt25",), 2, frozenset({T(2)}), frozenset({T(3), T(4)})),
    }
    assert [a.time for a in s2 if a.definite] == [0]  # malf(wt25)@0 is definite at 2
    # the definite answer is reported once; a refuted hypothesis kills its answers
    s3 = h.step(3, "")
    assert s3 == []
    assert h.state == []


def test_definite_at_once_and_refutation_example_8():
    h = Hypothetical(TURBINES + "malf(X) :- temp(X,na).")
    h.step(0, "temp(wt25,high)@0")
    s1 = h.step(1, "temp(wt25,high)@1\ntemp(wt42,na)@1")
    assert (("wt42",), 1, frozenset({("temp", ("wt42", "na"), 1)}), frozenset()) in triples(s1)
    # the paper's caveat: step 1 also starts the candidate for T = 1
    assert (("wt25",), 1, frozenset({T(1)}), frozenset({T(2), T(3)})) in triples(s1)
    s2 = h.step(2, "temp(wt42,high)@2")  # wt25 is not hot at 2: its answers die
    assert all(a.terms == ("wt42",) for a in s2)


def test_skipped_time_points_refute_hypotheses():
    h = Hypothetical(TURBINES)
    h.step(0, "temp(wt25,high)@0")
    assert h.step(5, "temp(wt25,high)@5")[0].time == 5
    assert len(h.state) == 1


def test_comparisons_filter_answers():
    h = Hypothetical("hot(X) :- temp(X,V), V > 100, [+][1,1] temp(X,W), W > 100.")
    a = h.step(0, "temp(a,150)@0\ntemp(b,50)@0")
    assert [x.terms for x in a] == [("a",)]
    assert h.step(1, "temp(a,90)@1") == []


def test_recursive_query_is_refused():
    with pytest.raises(chronolog.ProgramError, match="recursive query: p -> q -> p goes back 1 time point.*without a window"):
        Hypothetical("p(X) :- q(X). q(X) :- <->[1,1] p(X). q(X) :- r(X). @output(\"p\").")


def test_non_punctual_operator_is_refused():
    with pytest.raises(chronolog.ProgramError, match=r"punctual.*<->\[0,2\]"):
        Hypothetical("p(X) :- <->[0,2] q(X).")


def test_out_of_order_and_non_punctual_facts():
    h = Hypothetical(TURBINES)
    h.step(3, "temp(a,high)@3")
    with pytest.raises(chronolog.DataError, match="time order"):
        h.step(2, "temp(a,high)@2")
    with pytest.raises(chronolog.DataError, match="not a fact at time point 4"):
        h.step(4, "temp(a,high)@[4,5]")
