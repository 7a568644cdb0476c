"""Given facts that repeat forever: ``p(a)@[0,1] every 7.`` (docs/language.md).

The notation is the one chronolog prints for models that repeat, so an
answer reads back as data: the round trip is tested on random periodic
programs.  Repeating given facts must mean exactly what a rule that makes
them repeat means, with or without a horizon.
"""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from test_termination import periodic_programs

FAR = 10**6


def _everything(m):
    return m.to_text(m.predicates())


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(periodic_programs(both_ways=True))
def test_printed_model_reads_back_as_the_same_facts(prog):
    program, facts = prog
    m = chronolog.reason(program, facts)
    text = _everything(m)
    again = chronolog.reason("", text)  # the answer, read as given facts
    assert _everything(again) == text
    for pred in m.predicates():
        for terms, _ in m.facts(pred)[:2] + [(t, None) for t, _, _ in m.repeating(pred)[:2]]:
            atom = f"{pred}({','.join(terms)})" if terms else pred
            for t in (FAR, FAR + 0.5, -FAR, -FAR - 0.25):
                q = f"{atom}@[{t},{t}]"
                assert again.holds(q) == m.holds(q), (program, facts, q)


RULE_MADE = """shift(X) :- <->[7,7] shift(X).
alert(X) :- shift(X), <->[0,1] incident(X).
late(X) :- incident(X), not shift(X).
shift(a)@[0,1]. shift(b)@(2,3].
incident(a)@[14.5,14.5]. incident(a)@100. incident(b)@[9,10].
"""
GIVEN = """alert(X) :- shift(X), <->[0,1] incident(X).
late(X) :- incident(X), not shift(X).
shift(a)@[0,1] every 7. shift(b)@(2,3] every 7.
incident(a)@[14.5,14.5]. incident(a)@100. incident(b)@[9,10].
"""


def test_repeating_given_facts_mean_what_a_repeating_rule_means():
    made, given = chronolog.reason(RULE_MADE), chronolog.reason(GIVEN)
    for pred in ("shift", "alert", "late"):
        assert given.to_text([pred]) == made.to_text([pred]), pred
    assert given.to_text(["alert", "late"]).splitlines() == [
        "alert(a)@[14.5,15]", "alert(b)@(9,10]", "late(a)@[100,100]", "late(b)@[9,9]",
    ]
    assert given.holds("shift(b)@[7000002.5,7000003]") and not given.holds("shift(b)@[7000002,7000002]")
    # with a horizon they are unrolled over it (and as far around as the rules read)
    bounded = chronolog.reason(GIVEN, horizon=(0, 50))
    for pred in ("alert", "late"):
        assert bounded.facts(pred) == made.facts_within(pred, (0, 50)), pred
    assert bounded.facts_within("shift", (0, 50)) == made.facts_within("shift", (0, 50))


def test_repeating_given_facts_of_a_derived_predicate():
    # p is derived and also given every 10: the given instances feed the recursion
    prog = "p(X) :- <->[1,1] q(X).\nq(X) :- p(X), g(X).\np(a)@0 every 10.\ng(a)@[0,25]."
    m = chronolog.reason(prog)
    bounded = chronolog.reason(prog, horizon=(-20, 200))
    for pred in ("p", "q"):
        assert m.facts_within(pred, (-10, 150)) == bounded.facts_within(pred, (-10, 150)), pred
    assert m.holds("p(a)@[1000000,1000000]") and not m.holds("p(a)@[1000001,1000001]")
    assert m.holds("q(a)@[25,25]") and not m.holds("q(a)@[30,30]")


def test_touching_instances_hold_for_good_and_negative_periods_repeat_into_the_past():
    assert chronolog.reason("q :- p.\np@[0,1] every 1.").to_text() == "q@[0,+inf)"
    assert chronolog.reason("q :- p.\np@[0,1) every -1.").to_text() == "q@(-inf,1)"
    assert chronolog.reason("q :- p.\np@[0,1) every 2.").to_text() == "q@[0,1) every 2"
    m = chronolog.reason("q :- p.\np@[0,0.5] every -1/2.")
    assert m.to_text() == "q@(-inf,0.5]"
    m = chronolog.reason("q :- p.\np@3 every -2.")
    assert m.to_text() == "q@[3,3] every -2" and m.holds("q@-999997") and not m.holds("q@5")


def test_dates_fact_files_and_incremental_add(tmp_path):
    m = chronolog.reason('@timeGranularity("days").\nq(X) :- shift(X).\nshift(a)@[2024-01-01,2024-01-02) every P7D.')
    assert m.to_text() == "q(a)@[2024-01-01,2024-01-02) every P7D"
    assert m.holds("q(a)@2030-01-07") and not m.holds("q(a)@2030-01-08")  # Mondays
    # a fact file (also through @bind "facts")
    (tmp_path / "shifts.facts").write_text("p(a)@[0,0] every 3\np(b)@2\n")
    assert chronolog.reason("q(X) :- p(X).", tmp_path / "shifts.facts").to_text().splitlines() == [
        "q(a)@[0,0] every 3", "q(b)@[2,2]",
    ]
    prog = f'@bind("p", "facts", "{tmp_path}", "shifts.facts").\nq(X) :- p(X).'
    assert chronolog.reason(prog).to_text().splitlines() == ["q(a)@[0,0] every 3", "q(b)@[2,2]"]
    # adding one to a finite model makes it repeat
    r = chronolog.Reasoner("q(X) :- p(X).", "p(a)@1")
    r.add("p(b)@0 every 2")
    assert r.model.to_text().splitlines() == ["q(a)@[1,1]", "q(b)@[0,0] every 2"]


@pytest.mark.parametrize("text, message, line", [
    ("p(a)@1 every 0.", "cannot repeat every 0", 1),
    ("q :- p.\np@1 every P1D.", "needs a calendar timeline", 2),
    ('@timeGranularity("days").\np@2024-01-01 every P1M.', "not a duration of fixed length", 2),
    ("p(a)@1 every.", "syntax error", 1),
])
def test_bad_repetitions_are_positioned_errors(text, message, line):
    with pytest.raises(chronolog.ChronologError) as e:
        chronolog.reason(text)
    assert message in str(e.value) and e.value.pos.line == line


def test_a_stream_refuses_repeating_facts_instead_of_keeping_one_instance():
    s = chronolog.Stream("q(X) :- p(X).")
    with pytest.raises(chronolog.DataError) as e:
        s.push("p(a)@1 every 2")
    assert "repeats forever" in str(e.value)


def test_cli_reads_repeating_facts(tmp_path):
    (tmp_path / "p.vada").write_text("alert(X) :- shift(X), <->[0,1] incident(X).\n")
    (tmp_path / "f.facts").write_text("shift(a)@[0,1] every 7\nincident(a)@[14.5,14.5]\n")
    run = [sys.executable, "-m", "chronolog", "run", str(tmp_path / "p.vada"), "--facts", str(tmp_path / "f.facts")]
    r = subprocess.run(run, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["alert(a)@[14.5,15]"]
    ask = [sys.executable, "-m", "chronolog", "entails", str(tmp_path / "p.vada"), "shift(a)@[7000000,7000001]",
           "--facts", str(tmp_path / "f.facts")]
    r = subprocess.run(ask, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "true"


def _instances_by_definition(rep, lo, hi):
    """Every shift of ``rep.iv`` by ``k * period``, k >= 0, that meets
    [lo, hi], found by stepping k from 0 (the windows drawn are small)."""
    a, b, lc, hc = rep.iv
    out = []
    for k in range(0, 400):
        iv = (a + k * rep.period, b + k * rep.period, lc, hc)
        if iv[1] >= lo and iv[0] <= hi:
            out.append(iv)
    return out


@settings(max_examples=examples(100), deadline=None)
@given(st.data())
def test_instances_of_a_repeating_interval_are_its_shifts_that_meet_the_window(data):
    """The instances ``Repeating.instances`` lists (its numbers of periods
    by exact floor and ceiling divisions of integers and fractions, a float
    only for an infinite end) are those the definition gives: whole and
    fractional times, both directions, windows before, inside and after
    the first instance, an infinite end the other way; an interval shorter
    than its period, as every repetition is (``given_repetition``)."""
    from fractions import Fraction

    from chronolog.engine.periodic import Repeating

    num = st.one_of(st.integers(-30, 30), st.fractions(-30, 30, max_denominator=6))
    a = data.draw(num)
    period = data.draw(st.one_of(st.integers(1, 9), st.fractions(Fraction(1, 3), 9, max_denominator=6)))
    # shorter than the period: a repetition leaves a gap in every period
    b = a + period * data.draw(st.fractions(0, 1, max_denominator=7).filter(lambda x: x < 1))
    period = period if data.draw(st.booleans()) else -period
    rep = Repeating((a, b, True, data.draw(st.booleans())), period)
    lo = data.draw(num)
    hi = lo + data.draw(st.one_of(st.integers(0, 40), st.fractions(0, 40, max_denominator=6)))
    if data.draw(st.booleans()):  # an infinite end the way the instances do not repeat
        lo, hi = (-math.inf, hi) if period > 0 else (lo, math.inf)
    want = _instances_by_definition(rep, lo, hi)
    assert rep.instances(lo, hi) == want, (rep, lo, hi)


def test_given_facts_that_all_repeat_name_their_predicate_for_the_annotations():
    """Given facts that all repeat forever (a printed model read back by a
    program of @output lines only) give their predicates to the program's
    checks: @output of such a predicate was refused as used by nothing."""
    model = chronolog.reason('@output("late").', "late(a)@[2,4) every 7")
    assert model.lines() == ["late(a)@[2,4) every 7"]
