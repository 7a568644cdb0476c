"""Reasoner.add with facts given for a derived predicate: the lower
stratum's own derivations must not hide the given facts from the strata
above (found while building streams, issue 6)."""

import chronolog


def test_given_facts_of_a_derived_predicate_reach_later_strata():
    program = "q(X) :- p(X).\nr(X) :- q(X)."
    r = chronolog.Reasoner(program, "p(c)@0")
    r.add("q(a)@1\np(b)@1")
    assert r.model.to_text() == chronolog.reason(program, "p(c)@0\nq(a)@1\np(b)@1").to_text()
    assert r.model.holds("r(a)@1")
