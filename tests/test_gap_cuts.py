"""A stratum that does not move time, reading facts that repeat, costs what
its data costs, not its time span (engine/gap_cuts.py): the long gaps
between clusters of its inputs are cut out of its timeline and the answer
put back.  Checked on a gap of 10^8 units over a fact repeating every 2
(5 * 10^7 instances, which were refused), and as a property: random
periodic programs read by random readers that stay in time, over data in
two clusters far apart, give the same answers with the gap cut as without."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.engine import gap_cuts
from test_property_engine import _norm, _render
from test_termination import periodic_programs

CLOCK = "clock@0.\nclock :- <->[2,2] clock.\n"
FAR = "p(x)@0. p(x)@100000000.\n"


def test_readers_of_a_fact_repeating_every_2_over_a_gap_of_10_to_the_8():
    m = chronolog.reason(CLOCK + FAR + "d(X) :- p(X), clock.\ne :- clock, <+>[0,5] p(x).\nf(X) :- <->[0,3] p(X), clock.\n")
    assert m.to_text().splitlines() == [
        "clock@[0,0] every 2",
        "d(x)@[0,0]", "d(x)@[100000000,100000000]",
        "e@[0,0]", "e@[99999996,99999996]", "e@[99999998,99999998]", "e@[100000000,100000000]",
        "f(x)@[0,0]", "f(x)@[2,2]", "f(x)@[100000000,100000000]", "f(x)@[100000002,100000002]",
    ]
    assert m.stats["rounds"] < 50


def test_a_fact_holding_across_the_gap_and_one_repeating_across_it_come_back_whole():
    """A reader holding throughout the gap is one interval again, and one
    that repeats from before the gap repeats across it, not listed."""
    m = chronolog.reason(CLOCK + "q@[1,100000001]. p(x)@0. p(x)@100000000.\n"
                         "g :- q, <->[0,2] clock.\nh :- clock, not p(y).\n")
    assert m.to_text().splitlines() == [
        "clock@[0,0] every 2",
        "g@[1,100000001]",
        "h@[0,0] every 2",
    ]


def test_a_reader_whose_model_repeats_in_the_gap_lists_it_or_is_refused():
    """The answer's form repeats only forever: between the clusters a
    periodic model is listed, as without the cut; beyond
    MAX_INSTANCES pieces it is refused as it was."""
    listed = chronolog.reason(CLOCK + "p(x)@0. p(x)@100000.\ng :- clock, not p(x).\n")
    assert len(listed.facts("g")) == 49_999 and listed.repeating("g") == [((), (100002, 100002, True, True), 2)]
    with pytest.raises(chronolog.ProgramError, match="instances, too many"):
        chronolog.reason(CLOCK + FAR + "g :- clock, not p(x).\n")


def test_explain_analyze_and_run_stats_say_the_gap_was_cut(tmp_path):
    text = str(chronolog.explain_plan(CLOCK + FAR + "d(X) :- p(X), clock.\n", analyze=True))
    assert "attempt with 1 long gap (99999968 units) cut out of its timeline" in text
    from click.testing import CliRunner

    from chronolog.cli import cli

    (tmp_path / "p.vada").write_text(CLOCK + FAR + "d(X) :- p(X), clock.\n")
    got = CliRunner().invoke(cli, ["run", str(tmp_path / "p.vada"), "--stats"])
    assert got.exit_code == 0, got.output
    assert ("d: none, constant from 100000001 (computed up to 100000010 in 1 attempt(s), a gap of 99999968 units "
            "cut out of its timeline)") in got.output


@st.composite
def readers(draw):
    """Rules over p0..p2 (random periodic programs) and the data d that do
    not move time: their own predicates r, s are read without operators."""
    ops = ["", "", "<->[0,2]", "<+>[1,3]", "[-][0,1]", "[+][0,1/2]", "<->[1,1]", "<+>[1/2,3/2]"]
    pool = ["p0(X)", "p1(X)", "p2(X)", "e0(X)", "d(X)", "c(X)", "c(X)"]
    k = draw(st.sampled_from(["1", "2", "3/2", "5"]))
    rules = [f"c(X) :- <->[{k},{k}] c(X)."]  # (a cycle of its own: p0..p2 are often constant)
    for _ in range(draw(st.integers(1, 3))):
        head = draw(st.sampled_from(["r(X)", "s(X)"]))
        lits = [f"{draw(st.sampled_from(ops))} {draw(st.sampled_from(pool))}".strip()
                for _ in range(draw(st.integers(1, 3)))]
        if draw(st.integers(0, 2)) == 0:
            lits.append(draw(st.sampled_from(["not d(X)", "not e1(X)", "not p1(X)"])))
        rules.append(f"{head} :- {', '.join(lits)}.")
    if draw(st.booleans()):  # recursion that stays in time
        rules.append(f"s(X) :- r(X), {draw(st.sampled_from(pool))}.")
        rules.append("r(X) :- s(X).")
    return "\n".join(rules)


GAP = 3000


@settings(max_examples=examples(60), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(periodic_programs(both_ways=True), readers(), st.sampled_from([GAP, GAP + Fraction(1, 2), GAP + 7]))
def test_cutting_the_gap_gives_the_uncut_answers(prog, reader, second):
    program, facts = prog
    program += "\n" + reader
    facts += f"\nc(a)@[0,1/2]\nc(b)@2\nd(a)@[0,1]\nd(b)@[1,2]\nd(a)@[{second},{second + 1}]\nd(b)@({second},{second + 3})\nd(b)@[{2 * second + 7},{2 * second + 8}]"
    cut = []
    real = gap_cuts.put_back
    with pytest.MonkeyPatch.context() as mp:  # (a spy: the real put_back runs)
        mp.setattr(gap_cuts, "put_back", lambda *a: cut.append(1) or real(*a))
        mp.setattr(gap_cuts, "MIN_CUT_PERIODS", 2)
        got = _answers_or_error(program, facts)
        assume(cut)
        mp.setattr(gap_cuts, "MIN_CUT_PERIODS", 10**18)
        want = _answers_or_error(program, facts)
    assert got == want, f"{program}\n{facts}\n" + (
        "\n".join(f"{p}: expected {_render(want[p])}\n got {_render(got.get(p, []))}" for p in want if want[p] != got.get(p))
        if isinstance(want, dict) and isinstance(got, dict) else f"expected {want}\n got {got}")


def _answers_or_error(program, facts):
    try:
        m = chronolog.reason(program, facts)
    except chronolog.ProgramError as e:  # (the cut must not change that either)
        return str(e)
    return {p: _norm(m.facts_within(p, (-100, 2 * GAP + 300))) for p in ("r", "s") if p in m.plan.arities}


def test_a_listing_too_long_names_what_and_why():
    """Where the answer would list a fact's instances between clusters far
    apart, or a stratum read a repeating fact's instances over its data's
    span, the error names that fact, its period and the span."""
    with pytest.raises(chronolog.ProgramError) as e:
        chronolog.reason(CLOCK + FAR + "g :- clock, not p(x).\n")
    assert "g, which holds between clusters of data far apart, repeats every 2" in str(e.value)
    assert "more than 10,000,000 instances" in str(e.value) and "on its own" in str(e.value)
    with pytest.raises(chronolog.ProgramError) as e:  # (a recursion reading both ways: computed over the whole span)
        chronolog.reason(CLOCK + FAR + "q(X) :- p(X).\nq(X) :- <->[4,4] q(X), clock.\nq(X) :- <+>[4,4] q(X), clock.\n")
    assert "clock, read over the span of the data of the rules that read it and as far as their operators reach, " \
           "repeats every 2 from [0,0]" in str(e.value)


def test_many_keys_far_apart_each_meet_the_clock_at_their_own_facts():
    """1,000 keys each given once somewhere in 10^9 units (a cut between
    each two, ~1,000 cuts): each answer is the closed form at its fact."""
    import random

    rng = random.Random(1)
    at = {f"k{i}": rng.randrange(10**9) for i in range(1000)}
    m = chronolog.reason(CLOCK + "d(X) :- p(X), clock.\ne(X) :- clock, <+>[0,5] p(X).\n"
                         + "\n".join(f"p({k})@{x}." for k, x in at.items()))
    assert m.facts("d") == sorted(((k,), (x, x, True, True)) for k, x in at.items() if x % 2 == 0)
    assert m.facts("e") == sorted(((k,), (y, y, True, True)) for k, x in at.items() for y in range(x - 5, x + 1)
                                  if y % 2 == 0 and y >= 0)
