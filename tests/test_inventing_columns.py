"""Recursions that create values (a hop count, a path's weight, a share of
a share, a path spelled as a string) on columns, in the seminaive rounds:
the same model as the rows, which define them, or the same error where the
rows stop one (a runaway value, the round limit)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chronolog
from budget import examples
from differential import agree, outcomes
from test_recursion_through_time_columns import NAMES, intervals
from test_recursion_through_time_columns import facts as time_facts

from chronolog.engine.columns.encoding import CONFLATION

# {name: program}; {k}: a random bound, {lo}/{hi}: a random window
SHAPES = {
    "hop count": "h(X,Y,1) :- e(X,Y).\nh(X,Z,M) :- h(X,Y,N), e(Y,Z), M = N + 1, M <= {k}.",
    "path weight": "d(X,Y,W) :- w(X,Y,W).\nd(X,Z,V) :- d(X,Y,U), w(Y,Z,W), V = U + W, V < {k}.",
    "least weight": "d(X,Y,W) :- w(X,Y,W).\nd(X,Z,V) :- d(X,Y,U), w(Y,Z,W), V = U + W, V < {k}.\n"
                    "best(X,Y,M) :- d(X,Y,V), M = min(V).",
    "share of a share": "sh(X,Y,P) :- w(X,Y,P).\nsh(X,Z,Q) :- sh(X,Y,P), w(Y,Z,R), Q = P * R / {k}, Q > 1/100.",
    "spelled path": "p(X,Y,S) :- e(X,Y), S = concat(X, Y).\n"
                    "p(X,Z,T) :- p(X,Y,S), e(Y,Z), T = concat(S, Z), strlen(T) < {k}.",
    "two predicates": "a(X,N) :- q(X), N = 0.\nb(Y,M) :- a(X,N), e(X,Y), M = N + 2.\n"
                      "a(Y,M) :- b(Y,N), r(Y), M = N - 1, M < {k}.",
    "beside a negation": "h(X,Y,1) :- e(X,Y).\nh(X,Z,M) :- h(X,Y,N), e(Y,Z), not s(Z), M = N * 2, M <= {k}.",
    "under a diamond": "h(X,Y,0) :- e(X,Y).\nh(X,Z,M) :- <->[{lo},{hi}] h(X,Y,N), e(Y,Z), M = N + 1, M < {k}.",
    "under a box": "h(X,0) :- q(X).\nh(Y,M) :- [-][{lo},{hi}] h(X,N), e(X,Y), M = N + 1, M < {k}.",
}
# weights of three kinds: a float meeting an equal exact number puts the
# stratum on rows (a code holds one value), which the comparison then covers
weights = st.sampled_from([1, 2, 3, Fraction(1, 2), Fraction(3, 4), 0.5, 1.25, 2.0])


@st.composite
def facts(draw):
    """q, r and s as the recursions through time draw them, and edges e,
    each with a weighted twin w."""
    out = [line for line in draw(time_facts()).splitlines() if not line.startswith("e(")]
    for x, y in draw(st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES)), max_size=7)):
        out.append(f"e({x},{y})@{draw(intervals())}.")
        out.append(f"w({x},{y},{draw(weights)})@{draw(intervals())}.")
    return "\n".join(out)


@settings(max_examples=examples(150), deadline=None)
@given(name=st.sampled_from(sorted(SHAPES)), given_facts=facts(), k=st.sampled_from([2, 3, 5, 9]),
       window=st.sampled_from([(0, 1), (1, 1), (1, 2), (Fraction(1, 2), 2)]))
def test_columns_run_a_recursion_creating_values_as_the_rows(name, given_facts, k, window):
    program = SHAPES[name].format(k=k, lo=window[0], hi=window[1])
    horizon = (0, 20) if "under" in name else None
    outs = outcomes(program + "\n" + given_facts, None, horizon)
    agree(f"{program}\n{given_facts}\nhorizon {horizon}", outs)
    for engine in ("columns", "auto-small"):
        if not isinstance(outs[engine], str):  # (on rows only where a float met an equal exact number)
            ran = set(outs[engine].stats["executors"].values())
            assert ran == {"columns"} or CONFLATION in str(outs[engine].stats["fallbacks"]), outs[engine].stats


def _ran(program, engine, **kw):
    try:
        m = chronolog.reason(program, engine=engine, **kw)
    except chronolog.ChronologError as e:
        return str(e), None
    return m.to_text(), m.stats["executors"]


def test_a_recursion_of_a_single_kind_runs_on_columns():
    program = SHAPES["hop count"].format(k=4) + "\ne(a,b)@[0,5]. e(b,c)@[1,6]. e(c,a)@[2,3]. e(c,d)@[0,9]."
    text, executors = _ran(program, "columns")
    assert set(executors.values()) == {"columns"}
    assert text == _ran(program, "rows")[0]
    assert "h(a,a,3)@[2,3]" in text


def test_the_columns_report_a_runaway_value_as_the_rows():
    """A string that grows every round: the columns report it at the same
    round with the rows' words (not handing the stratum over: the rows
    would take every round again); a number that doubles leaves the int64
    columns first, and the rows report it."""
    from chronolog.engine.columns.evaluator import HybridEvaluator
    from chronolog.engine.store import Store
    from chronolog.language.errors import ProgramError
    from chronolog.planner import plan

    for program in ('s("a")@0. s(Y) :- s(X), Y = concat(X, X).',
                    'p(a)@0. s(X, "x") :- p(X).\ns(X, T) :- s(X, S), T = concat(S, S), strlen(T) < 1000000.',
                    "c(1)@0. c(Y) :- c(X), Y = X * 2."):
        rows, _ = _ran(program, "rows")
        assert "keeps inventing values" in rows
        assert _ran(program, "columns") == (rows, None)
    for program in ('s(Y) :- s(X), Y = concat(X, X).', 's(Y) :- s(X), Y = concat(X, "y", X).'):
        store = Store()
        store.relation("s").add(("a",), (0, 0, True, True))
        ev = HybridEvaluator(plan(chronolog.load_program(program)), store, engine="columns")
        with pytest.raises(ProgramError, match=r"keeps inventing values: after \d+ rounds s holds a string of \d+ characters"):
            ev.run()
        assert "fallbacks" not in ev.stats


def test_the_round_limit_of_a_recursion_creating_values_is_the_rows():
    program = "c(0)@0. c(Y) :- c(X), Y = X + 1."
    for engine in ("columns", "auto"):
        assert _ran(program, engine, max_rounds=50)[0] == _ran(program, "rows", max_rounds=50)[0]
    assert "no fixpoint after 50 rounds" in _ran(program, "rows", max_rounds=50)[0]


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_a_recursion_creating_values_stops_before_memory_runs_out(engine):
    """A counter per key that grows by one a round never reaches a
    fixpoint, its values stay small, and with many keys it fills memory
    long before the round limit: it is reported once the process holds
    most of the memory allowed (here the memory held now and 48 MB more;
    the machine's, or its container's, otherwise), naming its rule; a
    bounded counter that fits runs to its end under the same allowance."""
    from chronolog.engine.runaway import MEMORY_LIMIT, MEMORY_SHARE, memory_limit, resident_bytes
    from chronolog.language.scoped import scoped

    assert 0 < resident_bytes() < memory_limit()
    keys = "\n".join(f"c({i}, 0)@[0,5]." for i in range(2000))

    def allowing_48_mb_more():
        return scoped(MEMORY_LIMIT, int(resident_bytes() / MEMORY_SHARE) + (48 << 20))

    _ran("c(X, M) :- c(X, N), M = N + 1, N < 3.\n" + keys, engine)  # (the engine's imports made before the allowance)
    with allowing_48_mb_more():
        text, _ = _ran("c(X, M) :- c(X, N), M = N + 1, N < 20.\n" + keys[: keys.index("c(500,")], engine)
    assert text.count("\n") + 1 == 500 * 21 and "c(499,20)@[0,5]" in text
    with allowing_48_mb_more():
        text, _ = _ran("d(X) :- c(X, 0).\nc(X, M) :- c(X, N), M = N + 1.\n" + keys, engine)
    assert text.startswith("<program>:2:1: program error: no fixpoint in sight after ")
    assert int(text.split(" after ")[1].split()[0].replace(",", "")) > 20  # (48 MB hold more than 20 rounds)
    assert ("rounds: the recursion through c(X, M) :- c(X, N), M = N + 1. keeps creating new values, "
            "and this process now holds ") in text
    assert "bound the recursion with a condition" in text
