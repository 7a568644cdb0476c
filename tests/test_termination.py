"""Models that repeat forever, computed with no horizon (engine/termination.py).

Golden answers are the termination theorem (checked there against meteor-reasoner's
period finder) and §6 items 4 and 6.  The property tests compare the
repeating model, unrolled over a window, with two independent computations
of the same window: the pointwise reference evaluator (tests/oracle) and the
engine run under a horizon.  Both miss facts near the ends of their window
(derivations that read outside it), so they run over a wider window and are
compared inside it.
"""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.language.errors import ProgramError
from chronolog.language.text import format_fact
from oracle.pointwise import evaluate
from strategies import cases, fmt_num
from test_property_engine import _norm, _render

INF = math.inf


def test_reference_boxplus_boxminus():
    m = chronolog.reason("[+][0,1] p :- p.\n[-][1,1] q :- q.\np@0. q@1.5.")
    assert m.to_text().splitlines() == ["p@[0,+inf)", "q@[1.5,1.5] every -1"]
    assert m.holds("p@[100.5,100.5]") and m.holds("q@[-20.5,-20.5]")
    assert not m.holds("q@[-20,-20]") and not m.holds("p@[-1,-1]")
    assert m.holds("p@[0,1000000000000]")
    assert not m.holds("q@[-21.5,-20.5]")


def test_reference_period_three():
    m = chronolog.reason(
        "r(X,Y) :- <->[1,1] r(X,Y).\nq(Y) :- p(X), r(X,Y).\np(X) :- <->[1,1] q(X).\n"
        "p(a)@0. r(a,b)@0. r(b,c)@0. r(c,a)@0."
    )
    assert m.repeating("p") == [(("a",), (0, 0, True, True), 3), (("b",), (1, 1, True, True), 3), (("c",), (2, 2, True, True), 3)]
    assert m.repeating("q") == [(("a",), (2, 2, True, True), 3), (("b",), (0, 0, True, True), 3), (("c",), (1, 1, True, True), 3)]
    assert m.holds("p(a)@300") and m.holds("p(b)@301") and not m.holds("p(a)@301")
    assert m.facts("p") == []
    assert not m.is_finite


def test_reference_meteor_dialect_period_finder_example():
    m = chronolog.reason("Boxplus[0,1]P:-P\nBoxminus[1,1]Q:-Q\n", "P@0\nQ@1.5\n", dialect="meteor")
    assert m.holds("P@[100.5,100.5]") and m.holds("Q@[-20.5,-20.5]")
    assert not m.holds("Q@[-20,-20]") and not m.holds("P@[-1,-1]")


def test_job_report_periodic():
    m = chronolog.reason(
        'jobReport :- <->[30,30] jobReport.\npriceEvent(X) :- stockPriceChange(X,V), V > 5.\n'
        'possibleCause(X,"JR") :- priceEvent(X), <->[0,1] jobReport.\n'
        "jobReport@[0,0]. stockPriceChange(a,6)@[121,121]."
    )
    assert m.to_text().splitlines() == ["jobReport@[0,0] every 30", 'possibleCause(a,"JR")@[121,121]', "priceEvent(a)@[121,121]"]
    assert m.holds("jobReport@[30000000000,30000000000]")
    assert not m.holds("jobReport@[30000000000,30000000001]")
    assert m.facts_within("jobReport", (-100, 70)) == [((), (0, 0, True, True)), ((), (30, 30, True, True)), ((), (60, 60, True, True))]
    t = m.to_arrow("jobReport", window=(0, 90))
    assert t.column("start").to_pylist() == [0, 30, 60, 90]
    with pytest.raises(ProgramError, match="window"):
        m.to_arrow("jobReport")


def test_open_ends_and_fractions_repeat_exactly():
    m = chronolog.reason("p :- <->[1/3,1/3] p.\np@[0,1/6).")
    assert m.to_text() == "p@[0,1/6) every 1/3"
    from fractions import Fraction

    assert m.holds("p", (), (Fraction(10**9, 3), Fraction(10**9, 3) + Fraction(1, 7)))
    assert not m.holds("p", (), (Fraction(10**9, 3) + Fraction(1, 6), Fraction(10**9, 3) + Fraction(1, 6)))


def test_unbounded_operators_in_recursion():
    # "once true, stays true" with an unbounded diamond, joined with a periodic tick
    m = chronolog.reason(
        "tick :- <->[2,2] tick.\nseen :- <->[0,+inf) start.\nalarm :- tick, <->[5,+inf) start.\n"
        "armed :- alarm, <->[1,1] armed.\narmed :- alarm.\n"
        "tick@0. start@3."
    )
    assert m.to_text(["alarm", "tick"]).splitlines() == ["alarm@[8,8] every 2", "tick@[0,0] every 2"]
    assert m.holds("alarm@[1000,1000]") and not m.holds("alarm@[6,6]")


TWO_WAY_UNBOUNDED = [
    "p(X) :- <->[0,+inf) q(X).\nq(X) :- <+>[1,1] p(X).\nq(a)@0.",
    "p(X) :- <->[0,+inf) q(X).\nq(X) :- <+>[1,1] p(X), g(X).\nq(a)@0.\ng(a)@[-5,3].",
    "p(X) :- <->(2,+inf) q(X).\nq(X) :- <+>[1,1] p(X), g(X).\nq(a)@0.\ng(a)@[-5,3].",
    "p(X) :- <+>[1,+inf) q(X).\nq(X) :- <->[1,1] p(X), g(X).\nq(a)@0.\ng(a)@[-5,3].",
    "[+][2,+inf) p(X) :- q(X).\nq(X) :- <+>[1,1] p(X), g(X).\nq(a)@0.\ng(a)@[-5,8].",
    "[-][2,+inf) p(X) :- q(X).\nq(X) :- <->[1,1] p(X), g(X).\nq(a)@0.\ng(a)@[-5,8].",
    # Since/Until with unbounded windows over the recursion's own predicates
    "p(X) :- q(X) <S>[1,+inf) s(X).\nq(X) :- <+>[1,1] p(X), g(X).\ns(X) :- <+>[2,2] q(X).\nq(a)@0.\ns(a)@[3,4].\ng(a)@[-5,8].",
    "p(X) :- g(X) <S>(0,+inf) q(X).\nq(X) :- <+>[1,1] p(X), g(X).\nq(a)@0.\ng(a)@[-5,8].",
    "p(X) :- q(X) <U>[1,+inf) g(X).\nq(X) :- <->[1,1] p(X), h(X).\nq(a)@0.\ng(a)@[6,7].\nh(a)@[-5,8].",
    "p(X) :- q(X) <U>(0,+inf) s(X).\nq(X) :- <->[0.5,0.5] p(X), h(X).\ns(X) :- <->[2,2] q(X).\n"
    "q(a)@[0,1].\nh(a)@[-5,8].\np(a)@[-3,-2].",
    "p(X) :- q(X) <S>[2,+inf) q(X).\nq(X) :- <+>[0.5,0.5] p(X), h(X).\nq(X) :- <->[1,1] q(X), h(X).\n"
    "q(a)@0.\nh(a)@[-6,9].",
    # a variable of the left operand that the right one lacks (the local
    # rules once derived their Z from B alone, leaving it unbound)
    "p(X, Y) :- e(X, Y).\np(X, Y) :- p(Y, X) <S>[2,+inf) g(X).\np(X, Z) :- p(X, Y) <U>[1,3] e(Y, Z).\n"
    "e(a, b)@[0,6].\ne(b, a)@[3,4].\ne(a, a)@[6,9].\ng(a)@[-1,0].\ng(b)@1.",
]


@pytest.mark.parametrize("program", TWO_WAY_UNBOUNDED)
def test_two_way_recursion_through_unbounded_diamonds(program):
    """Unbounded diamonds (and head boxes) over a two-way recursion's own
    predicates are rewritten into local rules; the model equals a run over a
    far wider horizon inside the window, and the pointwise evaluator's."""
    m = chronolog.reason(program)
    bounded = chronolog.reason(program, horizon=(-80, 80))
    oracle = evaluate(chronolog.api.load_program(program), (-40, 40))
    for pred in [p for p in ("p", "q", "s") if p in m.plan.arities]:  # (facts() refuses a name the program lacks)
        got = _norm(m.facts_within(pred, (-20, 20)))
        assert got == _norm(_clip(bounded.facts(pred), (-20, 20))), (program, pred)
        assert got == _norm(_clip(oracle.facts(pred), (-20, 20))), (program, pred)


def test_two_way_recursion_inventing_values_is_a_positioned_error_or_a_model_when_bounded():
    import time

    prog = "c(Y) :- <->[1,1] c(X), Y = X + 1{cond}, <+>[1,1] d(X).\nd(X) :- c(X).\nd(X) :- <->[1,1] d(X).\nc(0)@0."
    t0 = time.perf_counter()
    with pytest.raises(ProgramError) as e:
        chronolog.reason(prog.format(cond=""))
    assert time.perf_counter() - t0 < 20  # gives up once the model keeps growing with the window
    assert e.value.pos.line == 1 and "c(Y) :- <->[1,1] c(X), Y = X + 1" in str(e.value) and "horizon" in e.value.hint
    m = chronolog.reason(prog.format(cond=", Y < 4"))
    assert m.to_text(["c"]).splitlines() == ["c(0)@[0,0]", "c(1)@[1,1]", "c(2)@[2,2]", "c(3)@[3,3]"]
    assert m.holds("d(3)@[1000000,1000000]") and not m.holds("d(3)@[1000000.5,1000000.5]")


def test_until_beside_an_unbounded_diamond_keeps_its_own_fresh_predicate():
    # the planner names Until's fresh predicate "$u1"; the termination
    # strategy once named the unbounded diamond it materialises "$u1" too,
    # merging the two (p0 came out on (-inf,-0.5] instead of never)
    prog = "[-][1,1] e0(X) :- e0(X).\np0(X) :- e0(X) <U>[1,+inf) e0(X), <+>[1,+inf) e0(X).\ne0(a)@[0.5,0.5]."
    assert chronolog.reason(prog).to_text(["p0"]) == ""
    prog = prog.replace("e0(X) <U>[1,+inf) e0(X)", "e0(X) <U>[1,2] g(X)") + "\ng(a)@[-3,10]."
    m = chronolog.reason(prog)
    bounded = chronolog.reason(prog, horizon=(-60, 60))
    assert m.facts_within("p0", (-20, 20)) == bounded.facts_within("p0", (-20, 20))


def test_unbounded_box_over_a_fact_holding_since_minus_inf_that_also_repeats():
    # q(a) holds on (-inf,1] and then repeats: a stratum reading it must see
    # the whole (-inf,1], not the piece inside its computation window (the
    # engine once clipped it there, and u(a) came out empty)
    base = "q(X) :- <->[5,5] q(X), g(X).\nq(a)@(-inf,1].\ng(a)@[4,+inf).\n"
    m = chronolog.reason(base + "u(X) :- [-][0,+inf) q(X).")
    assert m.to_text(["q", "u"]).splitlines() == ["q(a)@(-inf,1]", "q(a)@[4,6] every 5", "u(a)@(-inf,1]"]
    # and inside a recursion reading both ways
    m = chronolog.reason(base + "u(X) :- [-][0,+inf) q(X).\nw(X) :- <->[1,1] u(X).\nu(X) :- <+>[1,1] w(X).")
    assert m.to_text(["u", "w"]).splitlines() == ["u(a)@(-inf,1]", "w(a)@(-inf,2]"]


def test_constraint_violated_far_in_the_future_is_found():
    with pytest.raises(chronolog.InconsistencyError):
        chronolog.reason("a :- <->[7,7] a.\nb :- <->[5,5] b.\n⊥ :- a, b.\na@0. b@1.")
    # a and b never meet when both periods keep them apart
    m = chronolog.reason("a :- <->[2,2] a.\nb :- <->[2,2] b.\n⊥ :- a, b.\na@0. b@1.")
    assert m.to_text().splitlines() == ["a@[0,0] every 2", "b@[1,1] every 2"]


def test_incremental_add_recomputes_the_repetition():
    r = chronolog.Reasoner("p(X) :- <->[2,2] p(X).", "p(a)@0")
    assert r.model.to_text() == "p(a)@[0,0] every 2"
    r.add("p(a)@1")
    assert r.model.to_text() == "p(a)@[0,0] every 1"
    r.add("p(b)@[0,0.5]")
    assert r.model.to_text().splitlines() == ["p(a)@[0,0] every 1", "p(b)@[0,0.5] every 2"]


# --------------------------------------------------------------- properties
WINDOW = (-12, 60)
# A window evaluation misses, near its ends, facts whose derivations read
# outside it (a rule reading ahead at the right end, a recursion reading both
# ways): answers are compared this far inside the window.
MARGIN = 10
INNER = (WINDOW[0] + MARGIN, WINDOW[1] - MARGIN)


def _terminating(case):
    try:
        return chronolog.reason(case.program, case.facts)
    except ProgramError as e:
        if "looks both into the future and into the past" in str(e):
            return None  # refused, with the rules named: a horizon is needed
        raise


def _compare(case, model, window, reference):
    diffs = []
    for pred in case.idb:
        want = _norm(reference(pred))
        got = _norm(model.facts_within(pred, window))
        if want != got:
            diffs.append(f"{pred}:\n  expected {_render(want)}\n  got      {_render(got)}")
    assert not diffs, f"{case}\n" + "\n".join(diffs)


def _clip(items, window):
    from chronolog.language.timeline import intersect, make

    w = make(window[0], window[1], True, True)
    return [(t, x) for t, iv in items if (x := intersect(iv, w)) is not None]


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(cases(ops=("<->", "<+>", "[-]", "[+]", "S", "U"), nest=1, recursion=True, allow_inf=False, head_boxes=True, negation=True))
def test_repeating_model_equals_horizon_run(case):
    model = _terminating(case)
    if model is None:
        return
    bounded = chronolog.reason(case.program, case.facts, horizon=WINDOW)
    _compare(case, model, INNER, lambda p: _clip(bounded.facts(p), INNER))


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(cases(ops=("<->", "<+>", "[-]", "[+]"), nest=1, recursion=True, allow_inf=False, head_boxes=True))
def test_repeating_model_equals_pointwise_oracle(case):
    model = _terminating(case)
    if model is None:
        return
    window = (-3, 14)
    oracle = evaluate(case.parsed, (window[0] - MARGIN, window[1] + MARGIN))
    _compare(case, model, window, lambda p: _clip(oracle.facts(p), window))


@st.composite
def periodic_programs(draw, both_ways=False):
    """Recursion through punctual and short windows, all one way in time
    (or, with ``both_ways``, each literal either way), with joins, a negated
    given predicate and several interacting cycles."""
    forward = draw(st.booleans())
    ops = ("<->", "[-]") if forward else ("<+>", "[+]")
    head_op = "[+]" if forward else "[-]"
    if both_ways:
        ops = draw(st.permutations(["<->", "<+>"])) + draw(st.permutations(["[-]", "[+]"]))
    k = st.sampled_from([1, 2, 3, Fraction(1, 2), Fraction(3, 2), 5])
    preds = ["p0", "p1", "p2"]
    rules = []
    for i in range(draw(st.integers(2, 5))):
        head = draw(st.sampled_from(preds))
        lits = []
        for _ in range(draw(st.integers(1, 2))):
            pred = draw(st.sampled_from(preds * 2 + ["e0"]))
            a = draw(k)
            b = a if draw(st.integers(0, 4)) else a + draw(st.sampled_from([Fraction(1, 2), 1]))
            op = draw(st.sampled_from((ops[0],) * 4 + (ops[1], "")))
            if both_ways:
                op = draw(st.sampled_from((ops[0],) * 3 + (ops[1],) * 2 + (ops[2], ops[3], "")))
            if op == "[-]" or op == "[+]":
                a = 0 if draw(st.booleans()) else a
            window = f"[{fmt_num(a)},{fmt_num(b)}]" if op else ""
            if both_ways and op in ("<->", "<+>") and draw(st.integers(0, 5)) == 0:
                window = f"[{fmt_num(a)},+inf)"  # rewritten into local rules (two_way.py)
            if both_ways and op and draw(st.integers(0, 7)) == 0:  # Since/Until, sometimes unbounded
                left = draw(st.sampled_from(preds + ["e0"]))
                end = "+inf)" if draw(st.booleans()) else fmt_num(b + 1) + "]"
                lits.append(f"{left}(X) {draw(st.sampled_from(['<S>', '<U>']))}[{fmt_num(a)},{end} {pred}(X)")
                continue
            lits.append(f"{op}{window} {pred}(X)".strip())
        if draw(st.integers(0, 3)) == 0:
            lits.append("not e1(X)")
        h = f"{head}(X)"
        if draw(st.integers(0, 3)) == 0:
            end = fmt_num(draw(k))
            if both_ways:
                head_op = draw(st.sampled_from(["[+]", "[-]"]))
                end = "+inf)" if draw(st.integers(0, 4)) == 0 else end + "]"
            else:
                end += "]"
            h = f"{head_op}[0,{end} {h}"
        rules.append(f"{h} :- {', '.join(lits)}.")
    facts = []
    for pred in ("p0", "e0", "e1"):
        for c in draw(st.lists(st.sampled_from(["a", "b"]), max_size=2, unique=True)):
            lo = draw(st.sampled_from([0, 1, Fraction(1, 2), 2]))
            hi = lo + draw(st.sampled_from([0, 0, 0, Fraction(1, 2), 1]))
            facts.append(f"{pred}({c})@[{fmt_num(lo)},{fmt_num(hi)}].")
    if draw(st.booleans()):
        # e0 repeats the other way in time: a one-way recursion then reads
        # facts that repeat into its past (or future), forever
        other = "[-]" if forward else "[+]"
        step = fmt_num(draw(k))
        rules.insert(0, f"{other}[{step},{step}] e0(X) :- e0(X).")
    return "\n".join(rules), "\n".join(facts)


def _equals_wide_horizon_run(prog):
    """The model without a horizon, inside (-40, 40), against a run over
    (-400, 400): far enough out on both sides that the clipped run has
    reached the steady state inside the window."""
    program, facts = prog
    model = chronolog.reason(program, facts)
    window = (-40, 40)
    bounded = chronolog.reason(program, facts, horizon=(-400, 400))
    for pred in [p for p in ("p0", "p1", "p2", "e0") if p in model.plan.arities]:  # (facts() refuses a name the program lacks)
        want = _norm(_clip(bounded.facts(pred), window))
        got = _norm(model.facts_within(pred, window))
        assert want == got, f"{program}\n{facts}\n{pred}: expected {_render(want)}\n got {_render(got)}\n{model.to_text()}"


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(periodic_programs())
def test_periodic_programs_equal_horizon_run(executor, prog):
    """(On both executors: the columns run the attempts of the recurrences among them.)"""
    _equals_wide_horizon_run(prog)


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(periodic_programs(both_ways=True))
def test_two_way_programs_equal_horizon_run(prog):
    """Recursions reading both the past and the future (engine/two_way.py):
    the proved guess agrees with a run over a far wider horizon."""
    _equals_wide_horizon_run(prog)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(periodic_programs(both_ways=True))
def test_two_way_closure_shown_by_the_window_holds_when_checked(prog):
    """engine/two_way.py skips the explicit closure check when the window
    model already shows W closed; the explicit check must agree every time,
    and forcing it gives the same model."""
    from chronolog.engine import two_way

    program, facts = prog
    saved = two_way.CHECK_CLOSURE
    try:
        two_way.CHECK_CLOSURE = "both"
        m = chronolog.reason(program, facts)
        two_way.CHECK_CLOSURE = True
        explicit = chronolog.reason(program, facts)
    finally:
        two_way.CHECK_CLOSURE = saved
    assert m.to_text(m.predicates()) == explicit.to_text(explicit.predicates())


def test_streaming_merge_gives_the_same_repeating_model():
    prog = "r(X,Y) :- <->[1,1] r(X,Y).\nq(Y) :- p(X), r(X,Y).\np(X) :- <->[1,1] q(X).\np(a)@0. r(a,b)@0. r(b,c)@0. r(c,a)@0."
    assert chronolog.reason(prog, strategy="streaming").to_text() == chronolog.reason(prog).to_text()


def test_plan_reports_kind_and_direction():
    from chronolog.api import load_program
    from chronolog.planner import plan

    from chronolog.plan_text import describe_plan

    text = describe_plan(plan(load_program("p :- <->[2,2] p.\nq :- <+>[1,1] q.\nr :- <->[1,1] s.\ns :- <+>[1,1] r.")))
    assert text.splitlines()[0] == "model: periodic (temporal linear but with punctual operators)"
    assert "recursion through p: reads only the past: computed forward until it repeats" in text
    assert "recursion through q: reads only the future: computed backward (time mirrored) until it repeats" in text
    assert "recursion through r, s: reads both the past and the future: a repeating guess from a growing window, proved a model" in text
    assert "pattern step: 2 (the period found at run time is a multiple of it)" in text
    # within a closed horizon (given, or the program's @temporal) no repetition is searched: the run stops at its end
    program = "p :- <->[2,2] p.\nq :- <+>[1,1] q.\nr :- <->[1,1] s.\ns :- <+>[1,1] r."
    for bounded in (describe_plan(plan(load_program(program)), horizon=(0, 50, True, True)),
                    describe_plan(plan(load_program("@temporal(0, 50).\n" + program)))):
        assert "recursion through p: reads only the past: computed within the horizon" in bounded
        assert "recursion through q: reads only the future: computed within the horizon" in bounded
        assert "recursion through r, s: reads both the past and the future: computed within the horizon" in bounded
        assert "until it repeats" not in bounded and "pattern step" not in bounded
    from chronolog.plan_text import describe_plan

    text = describe_plan(plan(load_program("p :- <->[0,2] p.")))
    assert text.splitlines()[0] == "model: constant (temporal linear with non-punctual operators)"


LEFT_STEADY = [
    "[-][1,1] q :- q.\np :- q.\np :- <->[0.5,0.5] p.\nq@1.5.",
    "[-][1,1] q :- q.\np :- <->[2,2] p, r.\np :- q, <->[0,0.5] s.\nr@(-inf,30]. s@[-100,-50]. s@[0,1].\nq@1.5.",
    "[-][2,2] q(X) :- q(X).\np(X) :- <->[3,3] p(X).\np(X) :- q(X).\nt(X) :- p(X), not q(X).\nq(a)@0. q(b)@[0.5,1].",
    "[-][1,1] q :- q.\nc :- <->[0,+inf) q.\nd :- <->[1,1] d, q.\nd :- c, <->[0,0.5] q.\nq@1.5.",
    # the mirror image: a backward recursion over facts that repeat into the future
    "[+][1,1] q :- q.\np :- q.\np :- <+>[0.5,0.5] p.\nq@1.5.",
]


@pytest.mark.parametrize("program", LEFT_STEADY)
def test_forward_recursion_over_facts_repeating_into_the_past(program):
    """The past of such a recursion depends on the whole infinite past; its
    steady state is found by starting further and further back.  Compared
    with a horizon run that starts far enough back to have reached it."""
    from chronolog.language.timeline import intersect, make

    m = chronolog.reason(program)
    bounded = chronolog.reason(program, horizon=(-200, 200))
    window = (-30, 30)
    w = make(*window, True, True)
    for pred in bounded.predicates():
        want = [(t, x) for t, iv in bounded.facts(pred) if (x := intersect(iv, w)) is not None]
        assert sorted(m.facts_within(pred, window)) == sorted(want), (program, pred)
    # far away, holds() (which reasons about the periods) agrees with the
    # facts unrolled around the same point
    from chronolog.language.timeline import contains

    for t in (-10**6, -10**6 + 0.5, -10**6 + 0.25, 10**6, 10**6 + 0.5):
        for pred in bounded.predicates():
            near = m.facts_within(pred, (t - 3, t + 3))
            for terms in {terms for terms, _ in bounded.facts(pred)}:
                args = ",".join(terms)
                atom = f"{pred}({args})" if terms else pred
                unrolled = any(contains(iv, (t, t, True, True)) for tt, iv in near if tt == terms)
                assert m.holds(f"{atom}@[{t},{t}]") == unrolled, (program, atom, t)


@st.composite
def many_keys(draw):
    program, _ = draw(periodic_programs())
    facts = []
    for i in range(draw(st.integers(16, 40))):
        for pred in ("p0", "e0", "e1"):
            if draw(st.integers(0, 2)):
                lo = draw(st.sampled_from([0, 1, Fraction(1, 2), 2, 7, 30]))
                hi = lo + draw(st.sampled_from([0, 0, Fraction(1, 2), 1]))
                facts.append(f"{pred}(k{i})@[{fmt_num(lo)},{fmt_num(hi)}].")
    return program, "\n".join(facts)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(many_keys())
def test_key_groups_give_the_same_model(executor, prog):
    """With many keys a partitionable recursion is computed in batches of
    keys, each to its own bound: the model is the one computed all at once."""
    from chronolog.engine import termination

    program, facts = prog
    grouped = chronolog.reason(program, facts)
    saved = termination._key_groups
    termination._key_groups = lambda *a: None
    try:
        whole = chronolog.reason(program, facts)
    finally:
        termination._key_groups = saved
    for pred in sorted({"p0", "p1", "p2", "e0"} & set(grouped.plan.arities)):  # holds() refuses unknown predicates
        assert grouped.facts_within(pred, (-60, 90)) == whole.facts_within(pred, (-60, 90)), (program, pred)
        assert grouped.holds(f"{pred}(k3)@[1000000,1000000]") == whole.holds(f"{pred}(k3)@[1000000,1000000]")


@st.composite
def keys_far_apart(draw):
    """many_keys' facts, each key's moved by its own large amount (up to
    10^9 units, and between units)."""
    program, _ = draw(periodic_programs())
    by_key = []
    for i in range(draw(st.integers(18, 24))):
        base = draw(st.sampled_from([10**6, 10**9, 7 * 10**8 + 3])) * (i + 1) + draw(st.sampled_from([0, Fraction(1, 2), 3]))
        facts = []
        for pred in ("p0", "e0", "e1"):
            if draw(st.integers(0, 2)):
                lo = base + draw(st.sampled_from([0, 1, Fraction(1, 2), 2, 7, 30]))
                hi = lo + draw(st.sampled_from([0, 0, Fraction(1, 2), 1]))
                facts.append(f"{pred}(k{i})@[{fmt_num(lo)},{fmt_num(hi)}].")
        by_key.append((f"k{i}", facts))
    return program, by_key


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(keys_far_apart())
def test_keys_far_apart_batched_aligned_give_each_keys_own_model(prog):
    """Keys whose facts lie far apart in time are batched with each key's
    facts moved to start near 0 and its answer moved back
    (engine/termination._aligned_groups; a search per key otherwise): every
    key's facts, finite and repeating, are those of the key reasoned alone."""
    from unittest.mock import patch

    from chronolog.engine import termination

    program, by_key = prog
    with patch.dict(termination.KEY_BUCKETS, {"rows": 4, "columns": 4, "auto": 4}):  # (batches from 18 keys on)
        m = chronolog.reason(program, "\n".join(f for _, fs in by_key for f in fs))
    aligned = any(c.get("keys aligned") for c in m.stats.get("components", ()))
    for key, facts in by_key:
        alone = chronolog.reason(program, "\n".join(facts))
        known = set(alone.plan.arities) | set(alone.predicates())  # (facts() refuses a name it never met)
        for pred in sorted({"p0", "p1", "p2", "e0"} & set(m.plan.arities)):
            facts, repeating = (alone.facts(pred), alone.repeating(pred)) if pred in known else ([], [])
            assert [f for f in m.facts(pred) if f[0] == (key,)] == facts, (program, key, pred, aligned)
            assert [f for f in m.repeating(pred) if f[0] == (key,)] == repeating, (program, key, pred, aligned)


def test_a_key_group_whose_early_facts_repeat_ahead_keeps_them_in_the_steady_state():
    """Found by the key-group property above: in a batch of keys read by a
    recursion that also reads facts repeating into its past, the only early
    facts of k16 repeated ahead (p0 every 3 back from 30, time mirrored);
    the steady state started after them and p1(k16) lost [19,19.5] ...
    [28,28.5]."""
    program = ("[+][1,1] e0(X) :- e0(X).\np0(X) :- p0(X), <+>[5,5.5] p2(X).\n"
               "[-][0,0.5] p1(X) :- <+>[0.5,1.5] p0(X), <+>[1.5,1.5] p0(X).\n"
               "p1(X) :- <+>[1,1] p2(X), <+>[2,2] p1(X).\np0(X) :- <+>[5,5] e0(X), <+>[0.5,0.5] e0(X).\n"
               "p0(X) :- <+>[3,3] p0(X), <+>[3,3] p0(X).")
    facts = ("p0(k0)@[30,31].\ne0(k0)@[1,2].\ne1(k0)@[30,31].\ne0(k1)@[1,2].\ne0(k2)@[0.5,1].\ne1(k2)@[0,0].\n"
             "e0(k3)@[30,31].\np0(k4)@[0.5,0.5].\ne1(k4)@[0,0].\np0(k5)@[7,7].\ne0(k6)@[2,2.5].\np0(k7)@[2,2].\n"
             "e0(k7)@[7,8].\ne1(k7)@[0.5,0.5].\ne1(k8)@[0,1].\ne1(k9)@[0,0].\ne0(k10)@[0.5,0.5].\ne0(k11)@[1,1].\n"
             "e1(k11)@[7,7].\np0(k12)@[7,7].\ne1(k12)@[0,1].\np0(k13)@[1,1].\ne0(k13)@[0.5,1].\np0(k14)@[1,1].\n"
             "e0(k14)@[0,0].\ne1(k14)@[7,8].\ne0(k15)@[2,2].\ne1(k15)@[2,2].\np0(k16)@[30,30].\ne0(k16)@[0.5,0.5].\n"
             "p0(k18)@[0,0.5].\ne0(k18)@[2,2].\np0(k19)@[0,0].\ne0(k19)@[7,7.5].\ne1(k19)@[2,2].\np0(k20)@[0.5,0.5].\n"
             "e1(k20)@[2,2].\ne0(k21)@[7,7.5].\ne0(k22)@[7,7].\ne1(k22)@[7,7].\ne0(k24)@[2,2].\ne0(k26)@[30,31].\n"
             "e1(k26)@[1,1].\np0(k27)@[0.5,0.5].\ne1(k27)@[7,7].")
    m = chronolog.reason(program, facts)
    assert any(c.get("key groups") for c in m.stats["components"] if c["predicates"] == ["p1"])
    bounded = chronolog.reason(program, facts, horizon=(-100, 100))  # (its p1 agrees from -60 on)
    for pred in ("p0", "p1"):
        assert _norm(m.facts_within(pred, (-20, 40))) == _norm(_clip(bounded.facts(pred), (-20, 40))), pred
    assert [iv for t, iv in m.facts_within("p1", (18, 30)) if t == ("k16",)] == [
        (19, Fraction(39, 2), True, True), (22, Fraction(45, 2), True, True),
        (25, Fraction(51, 2), True, True), (28, Fraction(57, 2), True, True)]


@pytest.mark.parametrize("program, facts", [
    ("tick(X) :- <->[2,2] tick(X).\nc(X,N) :- N = sum(V), <->[0,+inf) tick(X), v(X,V).", "tick(a)@0\nv(a,1)@[0,100]\nv(a,2)@[50,60]"),
    ("tick(X) :- <->[2,2] tick(X), <->[0,+inf) s(X).\nc(N) :- N = count(), tick(X), <->[0,+inf) q(X).", "tick(a)@0\ns(a)@0\nq(a)@[0,5]"),
    ("p(X) :- <->[1,1] p(X).\np(X) :- <+>[1,1] p(X), r(X).\nc(N) :- N = count(), p(X), <->[0,+inf) r(X).", "p(a)@0\nr(a)@[0,3]"),
    ("p(X) :- <->[1,1] p(X).\nq(X)@[S,E] :- p(X), r(X,S,E), <->[0,+inf) s(X).", "p(a)@0\nr(a,1,2)@[0,3]\ns(a)@0"),
])
@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_an_aggregate_or_a_placed_head_with_an_unbounded_diamond_over_a_repeating_model(program, facts, engine):
    # stopped on "TypeError: AggregateRule.__init__() got an unexpected
    # keyword argument 'body'" (exit 3): the unbounded literal is put in a
    # predicate of its own by rebuilding the rule, which dataclasses.replace
    # cannot do for these rules
    model = chronolog.reason(program, facts, engine=engine)
    bounded = chronolog.reason(program, facts, engine=engine, horizon=(-5, 120))  # (computed round by round)
    for pred in ("c", "q"):
        if pred not in bounded.predicates():
            continue
        for terms, iv in bounded.facts(pred):
            if iv[1] <= 110:
                assert model.holds(format_fact(pred, terms, iv)), (pred, terms, iv)
        assert model.facts_within(pred, (-4, 110)) == bounded.facts_within(pred, (-4, 110))


def test_a_quiet_stretch_longer_than_the_float_range_is_searched_exactly():
    """Found by test_fuzz's mutated docs: a fact at 1e400 after a recursion
    through time's quiet stretch failed with an internal OverflowError
    (half the stretch was taken as a float)."""
    model = chronolog.reason("s(Y) :- t(X), r(X,Y).\nt(X) :- <->[1,1] s(X).\n"
                             "t(a)@0. r(a,b)@0. r(b,c)@0. r(c,a)@1e400.")
    assert model.is_finite
    assert model.to_text() == "s(b)@[0,0]\nt(a)@[0,0]\nt(b)@[1,1]"
    model = chronolog.reason("q :- <->[1,1] q, ok.\nq@0.\nok@[0,3].\nok@[1e400,1e400].")
    assert model.to_text() == "q@[0,0]\nq@[1,1]\nq@[2,2]\nq@[3,3]"



@pytest.mark.parametrize("program, repeats_toward", [
    ("p(X) :- <->[2,2] p(X).\np(a)@[0,1).", INF),   # forward: a window with a finite end may start at -inf
    ("p(X) :- <+>[2,2] p(X).\np(a)@[0,1).", -INF),  # into the past: the mirror
])
def test_a_window_unbounded_on_one_side_unrolls_or_says_why(program, repeats_toward, tmp_path):
    """A window unbounded where the facts do not repeat holds finitely many
    of them; one unbounded where they repeat is refused, naming the
    predicate.  Both once stopped on an OverflowError (math.floor of an
    infinite quotient), an internal error on the command line."""
    m = chronolog.reason(program)
    if repeats_toward == INF:
        bounded, unbounded, text, pieces = (-INF, 4), (0, INF), ("(-inf,4]", "[0,+inf)"), [(0, 1), (2, 3), (4, 4)]
    else:
        bounded, unbounded, text, pieces = (-4, INF), (-INF, 0), ("[-4,+inf)", "(-inf,0]"), [(-4, -3), (-2, -1), (0, 1)]
    assert [iv[:2] for _, iv in m.facts_within("p", bounded)] == pieces
    assert m.to_arrow("p", window=bounded).num_rows == 3
    assert [iv[:2] for iv in m.query(f"p(X)@{text[0]}")[0].intervals] == pieces
    end = "+inf" if repeats_toward == INF else "-inf"
    with pytest.raises(ProgramError, match=f"p has facts that repeat forever toward \\{end}"):
        m.facts_within("p", unbounded)
    with pytest.raises(ProgramError, match="repeat forever"):
        m.to_pandas(window=unbounded)
    with pytest.raises(ProgramError, match="repeat forever"):
        m.query(f"p(X)@{text[1]}")
    path = tmp_path / "p.vada"
    path.write_text(program)
    for args in (["run", str(path), f"--window={fmt_num(unbounded[0])},{fmt_num(unbounded[1])}"], ["query", str(path), f"p(X)@{text[1]}"]):
        r = subprocess.run([sys.executable, "-m", "chronolog", *args], capture_output=True, text=True)
        assert r.returncode == 2 and "repeat forever toward" in r.stderr, r.stderr


@pytest.mark.parametrize("fact, horizon", [("p@[0,1) every 3.", (0, INF)), ("p@[0,1) every -3.", (-INF, 0))])
def test_a_horizon_unbounded_where_a_given_fact_repeats_is_answered(fact, horizon):
    """Unrolling a given repeating fact over a horizon that reaches the
    infinity it repeats toward once stopped on an OverflowError, then was
    refused: now the model is found where it repeats, confined to the
    horizon, as a horizon with a far finite end has it."""
    m = chronolog.reason("q :- p.\n" + fact, horizon=horizon)
    finite = (0, 90) if horizon[1] == INF else (-90, 0)
    assert m.facts_within("q", finite) == chronolog.reason("q :- p.\n" + fact, horizon=finite).facts("q")
    assert m.holds("q@[3000000,3000000.5]" if horizon[1] == INF else "q@[-3000000,-2999999.5]")
    # a horizon unbounded the other way holds finitely many instances
    other = (-INF, 0) if horizon[1] == INF else (0, INF)
    assert chronolog.reason("q :- p.\n" + fact, horizon=other).to_text(["q"]) == ("q@[0,0]" if horizon[1] == INF else "q@[0,1)")


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0, Fraction(1, 3), Fraction(1, 2)]), st.sampled_from([0, Fraction(1, 6), Fraction(1, 4)]),
                          st.booleans(), st.booleans()), min_size=1, max_size=3, unique_by=lambda x: x[0]),
       st.sampled_from([1, Fraction(3, 2), 2]), st.integers(0, 6), st.integers(0, 3), st.sampled_from([None, 2, 5]))
def test_fold_keeps_the_intervals_and_folds_all_the_core_repeats(shapes, period, before, broken, limit):
    """``periodic.fold`` over a core that repeats the pattern ``before``
    periods back (but for one interval ``broken`` periods back, moved
    aside): the core and the repeating pattern it returns hold the same
    intervals as before (unrolled over a window), and the core's last
    interval is not the pattern's first shifted back a period, unless that
    would start before ``limit``."""
    from chronolog.engine.periodic import Repeating, fold, unroll

    # pattern: intervals starting in [10, 10 + period), each narrower than the period
    start = 10
    pattern = sorted({(start + lo * period, start + lo * period + w * period, lc, rc if w else lc)
                      for lo, w, lc, rc in shapes if w or (lc and rc)})
    if not pattern:
        return
    core = [(a - k * period, b - k * period, lc, rc) for k in range(1, before + 1) for a, b, lc, rc in pattern]
    if broken and core:  # one instance shortened: folding stops there
        k = min(broken, len(core)) - 1
        a, b, lc, rc = sorted(core)[-1 - k]
        core.remove((a, b, lc, rc))
        core.append((a, a, True, True))
    core = sorted(core)
    new_core, new_pattern = fold(core, pattern, period, limit)
    window = (-10, 40, True, True)
    assert unroll(new_core, [Repeating(iv, period) for iv in new_pattern], window) == \
        unroll(core, [Repeating(iv, period) for iv in pattern], window)
    assert len(new_pattern) == len(pattern)
    if new_core:
        last = new_pattern[-1]
        back = (last[0] - period, last[1] - period, last[2], last[3])
        assert new_core[-1] != back or (limit is not None and back[0] < limit)


def _fold_by_fractions(core, pattern, period, limit):
    """The fold as ``periodic.fold`` defines it, on exact Fractions: the
    oracle of the grid's integers."""
    seq, m = core + pattern, len(pattern)
    i = len(core) - 1
    while i >= 0 and pattern:
        a, b = seq[i], seq[i + m]
        if (a[0] + period, a[1] + period, a[2], a[3]) != b or (limit is not None and a[0] < limit):
            break
        i -= 1
    return core[: i + 1], seq[i + 1 : i + 1 + m]


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0, Fraction(1, 3), Fraction(1, 2), Fraction(3, 4)]),
                          st.sampled_from([0, Fraction(1, 6), Fraction(1, 5)]), st.booleans(), st.booleans()),
                min_size=1, max_size=3, unique_by=lambda x: x[0]),
       st.sampled_from([1, Fraction(3, 2), 2, Fraction(5, 3)]), st.integers(0, 5),
       st.lists(st.tuples(st.integers(0, 20), st.sampled_from(["lo", "hi", "flag"])), max_size=2),
       st.booleans(), st.sampled_from([None, 3, Fraction(13, 2)]))
def test_fold_sorted_folds_as_fold_on_fractions(shapes, period, before, changes, endless, limit):
    """``periodic.fold_sorted`` (the answer's fold, ends on their integer
    grid, lists taken as sorted) against the fold on exact Fractions and
    against ``periodic.fold`` of the lists shuffled: a core repeating the
    pattern ``before`` periods back, some of its intervals changed (an end
    moved by a sixth, a bound's closedness flipped) and perhaps a first
    interval from -inf."""
    import random

    from chronolog.engine.periodic import fold, fold_sorted

    start = 10
    pattern = sorted({(start + lo * period, start + lo * period + w * period, lc, rc if w else lc)
                      for lo, w, lc, rc in shapes if w or (lc and rc)})
    if not pattern:
        return
    core = sorted((a - k * period, b - k * period, lc, rc) for k in range(1, before + 1) for a, b, lc, rc in pattern)
    for at, what in changes:
        if not core:
            break
        k = at % len(core)
        a, b, lc, rc = core[k]
        core[k] = {"lo": (a + Fraction(1, 6), b, lc, rc) if a + Fraction(1, 6) < b else core[k],
                   "hi": (a, b - Fraction(1, 6), lc, rc) if b - Fraction(1, 6) > a else core[k],
                   "flag": (a, b, not lc, not rc) if a < b else core[k]}[what]
    core.sort()  # (a change may move an interval among those starting together)
    if endless:
        first = core[0][0] if core else pattern[0][0]
        core.insert(0, (-INF, first - 1, False, True))
    got = fold_sorted(core, pattern, period, limit)
    assert got == _fold_by_fractions(core, pattern, period, limit)
    mixed_core, mixed_pattern = core[:], pattern[:]
    random.Random(len(core)).shuffle(mixed_core)
    random.Random(len(pattern)).shuffle(mixed_pattern)
    assert fold(mixed_core, mixed_pattern, period, limit) == got
