"""Aggregation: time-point semantics, maximal intervals, contributors,
recursion through monotonic aggregates, stratification errors.

Expected answers are worked by hand from docs/language.md ("Aggregation")
or come from the pointwise oracle (tests/oracle/aggregates.py), which
evaluates the aggregate cell by cell and shares no code with the engine.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chronolog
from budget import examples
from chronolog.language.errors import ChronologError, ProgramError
from oracle import evaluate_text


def lines(program: str, preds=None, **kw) -> list:
    """The model's facts as text, in a fixed order (by text)."""
    return sorted(chronolog.reason(program, **kw).to_text(preds).splitlines())


# --------------------------------------------------------------------------
# by hand


def test_sum_is_piecewise_constant_on_maximal_intervals():
    prog = """
    total(X, S) :- p(X, Y, V), S = sum(V).
    p(a, b, 1)@[0, 10].
    p(a, c, 2)@[5, 15).
    p(a, d, 4)@(8, 9).
    """
    assert lines(prog, ["total"]) == [
        "total(a,1)@[0,5)",
        "total(a,2)@(10,15)",
        "total(a,3)@[5,8]",
        "total(a,3)@[9,10]",
        "total(a,7)@(8,9)",
    ]


def test_every_aggregate_on_one_group():
    prog = """
    s(S) :- p(Y, V), S = sum(V).
    pr(S) :- p(Y, V), S = prod(V).
    c(S) :- p(Y, V), S = count().
    lo(S) :- p(Y, V), S = min(V).
    hi(S) :- p(Y, V), S = max(V).
    a(S) :- p(Y, V), S = avg(V).
    u(S) :- p(Y, V), S = munion(Y).
    p(x, 2)@[0, 2].
    p(y, 3)@[0, 2].
    p(z, 1/3)@[1, 2].
    """
    got = lines(prog)
    assert got == [
        "a(16/9)@[1,2]",
        "a(2.5)@[0,1)",
        "c(2)@[0,1)",
        "c(3)@[1,2]",
        "hi(3)@[0,2]",
        "lo(1/3)@[1,2]",
        "lo(2)@[0,1)",
        "pr(2)@[1,2]",
        "pr(6)@[0,1)",
        "s(16/3)@[1,2]",
        "s(5)@[0,1)",
        "u({x,y,z})@[1,2]",
        "u({x,y})@[0,1)",
    ]


def test_bag_of_bindings_equal_values_both_count():
    # two bindings with the same value: a bag over bindings, not a set of values
    prog = """
    s(S) :- p(Y, V), S = sum(V).
    p(x, 5)@[0, 1].
    p(y, 5)@[0, 1].
    """
    assert lines(prog) == ["s(10)@[0,1]"]


def test_the_same_binding_twice_counts_once():
    # after a diamond one ground atom has overlapping intervals; at each time
    # point the binding holds or not, it is never counted twice
    prog = """
    s(S) :- <->[0, 5] p(V), S = sum(V).
    c(N) :- <->[0, 5] p(V), N = count().
    p(3)@0.
    p(3)@2.
    """
    assert lines(prog) == ["c(1)@[0,7]", "s(3)@[0,7]"]


def test_empty_groups_have_no_aggregate():
    # count is never 0: where no binding holds, the group has no fact
    prog = """
    c(X, N) :- p(X, V), N = count().
    s(X, S) :- p(X, V), q(V), S = sum(V).
    p(a, 1)@[0, 1].
    p(a, 2)@[3, 4].
    p(b, 7)@[0, 4].
    q(1)@[0, 10].
    """
    assert lines(prog) == ["c(a,1)@[0,1]", "c(a,1)@[3,4]", "c(b,1)@[0,4]", "s(a,1)@[0,1]"]


def test_contributor_changing_value_over_time():
    # investor i holds 30% then 60% of c; j holds 20% throughout.  With
    # contributors each investor counts once: at the overlap [4,5] i's
    # greatest value (60) counts, not 30+60.
    prog = """
    held(C, S) :- owns(I, C, P), S = msum(P, <I>).
    owns(i, c, 30)@[0, 5].
    owns(i, c, 60)@[4, 10].
    owns(j, c, 20)@[2, 8].
    """
    assert lines(prog) == [
        "held(c,30)@[0,2)",
        "held(c,50)@[2,4)",
        "held(c,60)@(8,10]",
        "held(c,80)@[4,8]",
    ]


def test_contributors_for_min_take_the_least():
    prog = """
    m(S) :- bid(W, P), S = mmin(P, <W>).
    s(S) :- bid(W, P), S = sum(P, <W>).
    bid(u, 5)@[0, 2].
    bid(u, 3)@[1, 2].
    bid(v, 4)@[0, 2].
    """
    # s: u's greatest value 5 counts throughout, so the sum stays 9
    assert lines(prog) == ["m(3)@[1,2]", "m(4)@[0,1)", "s(9)@[0,2]"]


def test_conditions_and_assignments_on_the_result():
    prog = """
    big(X, D) :- p(X, V), S = sum(V), D = S * 2, S > 3.
    p(a, 1)@[0, 4].
    p(a, 3)@[2, 6].
    """
    assert lines(prog) == ["big(a,8)@[2,4]"]


def test_floats_are_summed_correctly_rounded():
    # 0.1 + 0.2 + 0.3 as binary floats: math.fsum's correctly rounded 0.6,
    # whatever the order of the bindings
    m = chronolog.reason(
        "s(S) :- p(Y, V), S = sum(V).",
        {"p": [(("a", 0.1), (0, 1)), (("b", 0.2), (0, 1)), (("c", 0.3), (0, 1))]},
    )
    assert m.facts("s") == [((0.6,), (0, 1, True, True))]


def _exact_product(values):
    """The oracle: the product of the values as rationals, rounded once to a float."""
    p = Fraction(1)
    for v in values:
        p *= Fraction(v)
    return float(p)


def test_floats_are_multiplied_exactly_and_rounded_once():
    # (0.1 * 0.2) * 0.3 is 0.006000000000000001 and 0.1 * (0.2 * 0.3) is
    # 0.006: the exact product rounds to 0.006 in either order of the bindings
    for order in ([0.1, 0.2, 0.3], [0.3, 0.2, 0.1]):
        m = chronolog.reason("s(S) :- p(Y, V), S = prod(V).",
                             {"p": [((str(v), v), (0, 1)) for v in order]})
        assert m.facts("s") == [((0.006,), (0, 1, True, True))]


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from([0.1, 0.2, 0.3, 1e-300, 1e300, -0.0]),
                min_size=1, max_size=8), st.randoms(use_true_random=False))
def test_random_float_products_do_not_depend_on_the_order(values, rnd):
    """Any order of the bindings gives the exact product rounded once (an
    infinity beyond the float range, as a float multiplication gives)."""
    facts = [((f"k{i}", v), (0, 1)) for i, v in enumerate(values)]
    shuffled = list(facts)
    rnd.shuffle(shuffled)
    got = []
    for order in (facts, shuffled):
        m = chronolog.reason("s(S) :- p(Y, V), S = prod(V).\nq(S) :- p(Y, V), S = mprod(V).", {"p": order})
        got.append((m.facts("s"), m.facts("q")))
    try:
        want = _exact_product(values)
    except OverflowError:
        want = -math.inf if sum(1 for v in values if v < 0) % 2 else math.inf
    assert got[0] == got[1] == ([((want,), (0, 1, True, True))],) * 2


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_a_sum_past_the_float_range_beside_an_infinity_is_that_infinity(engine):
    """Finite floats whose sum leaves the float range and an infinity, with
    contributors (the bindings folded again each piece): the infinity, as a
    float addition gives it in any order; +inf beside -inf is no number
    (fsum gave up on the finite ones first, and their exact sum met the
    infinity: an internal error)."""
    program = "each(S) :- m(K, V), S = msum(V, <K>).\nall(S) :- m(K, V), S = sum(V)."
    huge = [1.7976931348623157e308, 1e308]
    for inf in (math.inf, -math.inf):
        m = chronolog.reason(program, {"m": [((k, v), (0, 1)) for k, v in enumerate(huge + [inf])]}, engine=engine)
        assert m.facts("each") == m.facts("all") == [((inf,), (0, 1, True, True))]
    with pytest.raises(chronolog.ChronologError, match=r"of \+inf and -inf is not a number"):
        chronolog.reason(program, {"m": [((k, v), (0, 1)) for k, v in enumerate(huge + [math.inf, -math.inf])]}, engine=engine)


def test_grouped_values_in_python():
    m = chronolog.reason(
        """
        avgPrice(I, A) :- price(I, D, P), A = avg(P).
        price(x, mon, 10)@[0, 1). price(x, tue, 11)@[0, 1). price(y, mon, 4)@[0, 1).
        """
    )
    assert m.facts("avgPrice") == [(("x", Fraction(21, 2)), (0, 1, True, False)), (("y", 4), (0, 1, True, False))]


# --------------------------------------------------------------------------
# recursion


CONTROL = """
controls(X, X) :- company(X).
cs(X, Y, S) :- controls(X, Z), owns(Z, Y, V), S = msum(V, <Z>).
controls(X, Y) :- cs(X, Y, S), S > 1/2.
"""

CONTROL_DATA = """
company(a)@[0, 10]. company(b)@[0, 10]. company(c)@[0, 10]. company(d)@[0, 10].
owns(a, b, 0.6)@[0, 10].
owns(a, c, 0.3)@[0, 10].
owns(b, c, 0.3)@[2, 6].
owns(c, d, 0.4)@[0, 10].
owns(a, d, 0.2)@[0, 8].
"""


def test_recursion_through_msum_company_control():
    got = lines(CONTROL + CONTROL_DATA, ["controls"])
    assert got == [
        "controls(a,a)@[0,10]",
        "controls(a,b)@[0,10]",
        "controls(a,c)@[2,6]",  # a's 0.3 plus b's 0.3 while a controls b
        "controls(a,d)@[2,6]",  # a's 0.2 plus c's 0.4 while a controls c (and a owns d)
        "controls(b,b)@[0,10]",
        "controls(c,c)@[0,10]",
        "controls(d,d)@[0,10]",
    ]


def _final_values(facts, points):
    """pred facts (terms, iv) -> {(group, point): greatest value}."""
    from chronolog.language.timeline import contains_point

    out = {}
    for terms, iv in facts:
        for t in points:
            if contains_point(iv, t):
                k = (terms[:-1], t)
                out[k] = max(out.get(k, terms[-1]), terms[-1])
    return out


def test_recursion_through_msum_matches_the_oracle():
    m = chronolog.reason(CONTROL + CONTROL_DATA, horizon=(0, 10))
    o = evaluate_text(CONTROL, CONTROL_DATA, (0, 10))
    assert sorted(m.facts("controls")) == sorted(o.facts("controls"))
    points = o.grid.reps
    assert _final_values(m.facts("cs"), points) == _final_values(o.facts("cs"), points)


def test_stratified_aggregate_inside_recursion_is_refused():
    prog = """
    cs(X, Y, S) :- controls(X, Z), owns(Z, Y, V), S = sum(V, <Z>).
    controls(X, Y) :- cs(X, Y, S), S > 1/2.
    owns(a, b, 1)@0.
    """
    with pytest.raises(ProgramError) as e:
        chronolog.reason(prog)
    msg = str(e.value)
    assert "sum aggregates over controls" in msg and "<program>:2:" in msg and "msum" in msg


def test_max_inside_recursion_runs_as_mmax_with_a_note(tmp_path):
    """As in Vadalog: the same model as the m-form, and a note that says so
    (the command line prints it on standard error)."""
    import subprocess
    import sys
    import warnings

    from chronolog.language.errors import Note

    prog = """
    best(X, M) :- reach(X, V), M = {f}(V).
    reach(X, V) :- start(X, V).
    reach(Y, M) :- best(X, M), edge(X, Y).
    start(a, 3)@[0,5]. start(b, 7)@[2,4]. start(c, 1)@[0,9].
    edge(a, b)@[0,9]. edge(b, c)@[0,9]. edge(c, a)@[0,9].
    """
    for f in ("max", "min"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", Note)
            m = chronolog.reason(prog.format(f=f))
        assert [str(w.message) for w in caught if f"{f} as m{f}" in str(w.message)]
        assert m.to_text() == chronolog.reason(prog.format(f="m" + f)).to_text()
    path = tmp_path / "p.vada"
    path.write_text(prog.format(f="max"))
    r = subprocess.run([sys.executable, "-m", "chronolog", "run", str(path)], capture_output=True, text=True)
    assert r.returncode == 0 and "note:" in r.stderr and "max as mmax" in r.stderr
    assert "best(c,7)@[2,4]" in r.stdout  # b's 7 reaches c through the edge while b holds it


def test_aggregate_result_in_an_atom_is_refused():
    with pytest.raises(ProgramError) as e:
        chronolog.reason("q(S) :- p(V), S = sum(V), r(S).\np(1)@0. r(1)@0.")
    assert "cannot be used in an atom" in str(e.value)


def test_aggregate_syntax_errors_have_positions():
    with pytest.raises(ChronologError) as e:
        chronolog.reason("q(S) :- p(V, W), S = sum(V, W, W).")
    assert "<program>:1:" in str(e.value) and "aggregates one expression" in str(e.value)
    with pytest.raises(ChronologError) as e:
        chronolog.reason("q(S) :- p(V), S = abs(V, <V>).")
    assert "contributors" in str(e.value)
    with pytest.raises(ChronologError) as e:
        chronolog.reason("q(S) :- p(V), S = 1 + sum(V).")
    assert "whole right side of an assignment" in str(e.value)


def test_aggregate_of_strings_is_a_type_error_with_position():
    with pytest.raises(ChronologError) as e:
        chronolog.reason('q(S) :- p(V), S = sum(V).\np("x")@0.')
    assert "<program>:1:15" in str(e.value) and "sum() needs numbers" in str(e.value)


def test_plan_shows_the_aggregate_node():
    from chronolog.language.vadalog import parse
    from chronolog.planner import plan

    from chronolog.plan_text import describe_plan

    text = describe_plan(plan(parse("s(X, S) :- p(X, V), S = msum(V, <V>).")))
    assert "Aggregate S = msum(V, <V>) by (X) per time segment  → X, S:number" in text


def test_update_recomputes_a_stratified_aggregate():
    r = chronolog.Reasoner("s(S) :- p(V), S = sum(V).\np(1)@[0,1].")
    r.add("p(2)@[0,1].")
    assert r.model.to_text(["s"]) == "s(3)@[0,1]"


# --------------------------------------------------------------------------
# random programs against the oracle

AGG_RULES = [
    "out(X, S) :- p(X, Y, V), S = {f}(V).",
    "out(X, S) :- p(X, Y, V), S = {f}(V, <Y>).",
    "out(X, S) :- <->[0,2] p(X, Y, V), S = {f}(V).",
    "out(X, S) :- p(X, Y, V), q(Y), S = {f}(V).",
    "out(X, S) :- [-][0,1] p(X, Y, V), S = {f}(V, <Y>).",
    "out(S) :- p(X, Y, V), not q(X), S = {f}(V).",
]
FUNCS = ["sum", "count", "min", "max", "avg", "prod", "msum", "mcount", "mmin", "mmax"]


def _random_data(rng):
    out = []
    for _ in range(rng.randint(1, 7)):
        lo = Fraction(rng.randint(0, 12), rng.choice([1, 2]))
        hi = lo + Fraction(rng.randint(0, 6), rng.choice([1, 2]))
        lb = "[" if rng.random() < 0.7 or lo == hi else "("
        rb = "]" if rng.random() < 0.7 or lo == hi else ")"
        v = rng.choice(["1", "2", "3", "1/2", "-1"])
        out.append(f"p({rng.choice('ab')}, {rng.choice('xyz')}, {v})@{lb}{lo},{hi}{rb}.")
    for _ in range(rng.randint(0, 3)):
        lo = rng.randint(0, 10)
        out.append(f"q({rng.choice('abxyz')})@[{lo},{lo + rng.randint(0, 5)}].")
    return "\n".join(out)


@pytest.mark.parametrize("seed", range(60))
def test_random_aggregates_match_the_oracle(seed):
    rng = random.Random(seed)
    rule = rng.choice(AGG_RULES).format(f=rng.choice(FUNCS))
    data = _random_data(rng)
    m = chronolog.reason(rule + "\n" + data)
    o = evaluate_text(rule, data, paranoid=True)
    assert sorted(m.facts("out")) == sorted(o.facts("out")), f"{rule}\n{data}"


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_an_aggregate_over_since_or_until_whose_window_holds_0_matches_the_oracle(engine):
    """``A U[0,2] B`` is split into B (distance 0) and ``A U(0,2] B``: one
    rule each aggregated each case alone and unioned the results, so
    g(1)@[4,6] stood beside g(2)@(3,6), two counts at one time."""
    data = "q(a)@[4,6).\nr(a)@(3,6).\nr(b)@(3,6].\nq(b)@[5,5].\nr(c)@[0,1)."
    for rule in ("g(N) :- q(X) <U>[0,2] r(X), N = count().", "g(N) :- q(X) <S>[0,2] r(X), N = count().",
                 "g(X, S) :- q(X) <U>[0,1] r(X), r(Y), S = count().", "g(S) :- q(X) <U>[0,2] r(X), S = sum(1), S > 1."):
        m = chronolog.reason(rule + "\n" + data, engine=engine)
        o = evaluate_text(rule, data, paranoid=True)
        assert sorted(m.facts("g")) == sorted(o.facts("g")), rule
    m = chronolog.reason("g(N) :- q(X) <U>[0,2] r(X), N = count().\n" + data, engine=engine)
    assert m.to_text() == "g(1)@[0,1)\ng(1)@[6,6]\ng(2)@(3,6)"


def test_explain_names_the_group_and_the_value():
    m = chronolog.reason("s(X, S) :- p(X, V), S = sum(V).\np(a, 1)@[0,2]. p(a, 2)@[1,3].", explain=True)
    (why,) = m.explain("s(a,3)@[1,2]")
    assert why["binding"] == {"X": "a", "S": 3} and why["piece"] == "[1,2]"


def test_recursion_through_msum_and_time_matches_the_oracle():
    # the weight of the edges into Y from nodes active the moment before;
    # a node with weight at least 2 is active: recursion through msum that
    # also moves time (so it needs a horizon)
    prog = """
    active(X) :- seed(X).
    w(Y, S) :- <->[1,1] active(X), edge(X, Y, W), S = msum(W, <X>).
    active(Y) :- w(Y, S), S >= 2.
    """
    data = """
    seed(a)@[0, 2]. seed(b)@[1, 3].
    edge(a, c, 1)@[0, 10]. edge(b, c, 1)@[0, 10]. edge(c, d, 2)@[0, 10].
    edge(d, a, 1)@[0, 10]. edge(d, b, 1)@[3, 10]. edge(a, b, 3/2)@[4, 10].
    """
    m = chronolog.reason(prog + data, horizon=(0, 12))
    o = evaluate_text(prog, data, (0, 12), paranoid=True)
    assert sorted(m.facts("active")) == sorted(o.facts("active"))
    points = o.grid.reps
    assert _final_values(m.facts("w"), points) == _final_values(o.facts("w"), points)
