"""A run with no horizon of a program that stays near its facts takes the
horizon they imply (engine/implied_horizon.py): every given fact ends, and
every stratum derives within the facts it reads widened by its reach
(planner/confining.reach_where_facts_end), so the model is finite and lies
within the given facts widened by the strata's reach.  The run is then one
with that horizon (on columns from Arrow and the kernel reader), not the
search for a repetition stratum by stratum; the answers must be the
search's, which the termination tests hold to the pointwise evaluator and
MeTeoR."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chronolog
from budget import examples
from nulls_renamed import same_models
from strategies_wide import wide_cases

# a tip passed on 20 to 40 units later to an investor of the same company
# (owns confines the recursion), then what follows from it: a join, a
# diamond, a box, a Since, a negation and an aggregate per time segment
PROGRAM = """
tip(I, C) :- owns(I, C, P), P > 97.
tip(J, C) :- <->[20,40] tip(I, C), owns(J, C, Q), Q > 50.
pair(I, J) :- tip(I, C), tip(J, C), I != J.
warned(I) :- <+>[0,5] tip(I, C).
steady(I, C) :- [-][0,3] owns(I, C, P).
since(I, C) :- owns(I, C, P) <S>[1,10] tip(I, C).
quiet(I, C) :- owns(I, C, P), not tip(I, C).
tips(C, N) :- tip(I, C), N = count().
"""
PREDICATES = ("tip", "pair", "warned", "steady", "since", "quiet", "tips")
# each stratum's twice its reach plus one: tip 2*40+1, pair 3, warned 2*5+1,
# steady 2*3+1, the Since 2*10+1 and its copy into since 3, quiet 3, tips 3
REACH = 81 + 3 + 11 + 7 + 21 + 3 + 3 + 3


def _owns(n=60, seed=3):
    import random

    rng = random.Random(seed)
    out = []
    for k in range(n):
        start = rng.randrange(0, 300)
        out.append(((f"i{k % 17}", f"c{k % 5}", rng.randrange(40, 100)), (start, start + rng.randrange(0, 60), True, True)))
    return {"owns": out}


def _searched(program, facts, **kw):
    """The model found as before: the search for a repetition, stratum by stratum."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("chronolog.engine.implied_horizon.implied_horizon", lambda plan, hull: None)
        return chronolog.reason(program, facts, **kw)


def _hull(facts):
    ivs = [iv for rows in facts.values() for _, iv in rows]
    return min(iv[0] for iv in ivs), max(iv[1] for iv in ivs)


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_a_program_that_stays_near_its_facts_runs_within_the_horizon_they_imply(engine):
    facts = _owns()
    m = chronolog.reason(PROGRAM, facts, engine=engine)
    lo, hi = _hull(facts)
    assert m.stats["implied_horizon"] == (lo - REACH, hi + REACH, True, True)
    assert m.horizon is None and m.is_finite and "components" not in m.stats
    want = _searched(PROGRAM, facts, engine="rows")
    assert "implied_horizon" not in want.stats
    for p in PREDICATES:
        assert m.facts(p) == want.facts(p), p
    assert m.facts("tip") and m.facts("since") and m.facts("tips")
    assert not m.holds("tip(i1, c1)@1000000")


@pytest.mark.parametrize("change, why", [
    ('owns(x, c0, 99)@[5, +inf).', "a fact without end"),
    ('owns(x, c0, 99)@[5, 5] every 100.', "a fact that repeats forever"),
])
def test_facts_that_do_not_end_leave_the_search(change, why):
    program = PROGRAM + change
    m = chronolog.reason(program, _owns())
    assert "implied_horizon" not in m.stats and m.stats["components"], why


@pytest.mark.parametrize("rule", [
    "ever(I) :- <->[0,+inf) tip(I, C).",  # a window without end
    "at(I, T) :- tip(I, C)@T.",  # time captured as a value
    "placed(I)@[S, E] :- tip(I, C), owns(I, C, S), E = S + 1.",  # a head interval made of terms
    "both(J, C) :- <+>[1,1] both(I, C), owns(J, C, Q).\nboth(J, C) :- <->[2,2] both(I, C), owns(J, C, Q).\n"
    "both(I, C) :- tip(I, C).",  # a recursion both ways in time
    "loose(J) :- <->[1,1] loose(I), j(I, J).\nj(I, J) :- tip(I, C), tip(J, C).\nloose(I) :- tip(I, C).\n"
    "loose(I) :- <->[1,1] loose(I).",  # a recursion nothing from outside confines
])
def test_a_program_not_known_to_stay_near_its_facts_is_searched(rule):
    m = chronolog.reason(PROGRAM + rule, _owns(20), engine="rows")
    assert "implied_horizon" not in m.stats and "components" in m.stats


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_a_recursion_backward_in_time_runs_within_the_implied_horizon(engine):
    """A tip passed on to earlier investors (``<+>``): confined by owns as
    the forward one, within the same reach; the columns sweep it in
    reversed time."""
    program = PROGRAM + "back(J, C) :- <+>[1,1] back(I, C), owns(J, C, Q).\nback(I, C) :- tip(I, C).\n"
    facts = _owns()
    m = chronolog.reason(program, facts, engine=engine)
    lo, hi = _hull(facts)
    assert m.stats["implied_horizon"] == (lo - REACH - 3, hi + REACH + 3, True, True)
    want = _searched(program, facts, engine="rows")
    assert "implied_horizon" not in want.stats
    for p in PREDICATES + ("back",):
        assert m.facts(p) == want.facts(p), p
    assert len(m.facts("back")) > len(m.facts("tip")) > 0
    if engine == "columns":  # (every stratum: the recursions swept, forward and in reversed time)
        assert set(m.stats["executors"].values()) == {"columns"}, m.stats.get("fallbacks")


def test_the_columns_read_the_hull_from_the_kernel_reader_and_arrow(tmp_path):
    """Facts the kernel reader keeps in columns (a CSV file, an Arrow table)
    give their hull from their distinct time values."""
    import pyarrow as pa

    facts = _owns(80)
    (lo, hi) = _hull(facts)
    table = pa.table({"i": [t[0] for t, _ in facts["owns"]], "c": [t[1] for t, _ in facts["owns"]],
                      "p": [t[2] for t, _ in facts["owns"]], "start": [iv[0] for _, iv in facts["owns"]],
                      "end": [iv[1] for _, iv in facts["owns"]]})
    want = _searched(PROGRAM, facts, engine="rows")
    m = chronolog.reason(PROGRAM, {"owns": table}, engine="columns")
    assert m.stats["implied_horizon"][:2] == (lo - REACH, hi + REACH)
    assert set(m.stats["executors"].values()) == {"columns"}
    (tmp_path / "owns.csv").write_text("i,c,p,start,end\n" + "".join(f"{i},{c},{p},{iv[0]},{iv[1]}\n" for (i, c, p), iv in facts["owns"]))
    bound = f'@bind("owns", "csv", "{tmp_path}", "owns.csv").\n' + PROGRAM
    b = chronolog.reason(bound, engine="columns")
    assert b.stats["implied_horizon"][:2] == (lo - REACH, hi + REACH)
    for p in PREDICATES:
        assert m.facts(p) == want.facts(p) == b.facts(p), p
    (tmp_path / "owns.csv").write_text((tmp_path / "owns.csv").read_text() + "z,c0,99,5,inf\n")
    endless = chronolog.reason(bound, engine="columns")
    assert "implied_horizon" not in endless.stats
    assert endless.facts("steady") == _searched(bound, None, engine="rows").facts("steady")


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_updates_within_the_facts_are_maintained_beyond_them_reasoned_again(engine):
    """An update within the hull the horizon was implied from keeps it (the
    model maintained); one beyond it implies a new horizon, from every
    given fact (reasoned again); a fact without end takes it away (the
    model found where it repeats).  Each model is a fresh run's."""
    facts = _owns()
    lo, hi = _hull(facts)
    r = chronolog.Reasoner(PROGRAM, facts, engine=engine)
    inside = {"owns": [(("i3", "c3", 99), (lo + 10, lo + 20, True, True))]}
    r.add(inside)
    assert r.model.stats["implied_horizon"] == (lo - REACH, hi + REACH, True, True)
    assert all("reasoned again" not in row.get("why", "") for row in r.model.stats["maintenance"])
    every = {"owns": facts["owns"] + inside["owns"]}
    _same(r.model, chronolog.reason(PROGRAM, every, engine="rows"))
    beyond = {"owns": [(("i4", "c3", 99), (hi + 500, hi + 520, True, True)), (("i5", "c3", 70), (hi + 530, hi + 560, True, True))]}
    r.add(beyond)
    assert r.model.stats["maintenance"] == [{"stratum": "all", "maintained": False,
                                            "why": "facts were added beyond those the run's horizon was implied from: reasoned again"}]
    assert r.model.stats["implied_horizon"] == (lo - REACH, hi + 560 + REACH, True, True)
    every["owns"] += beyond["owns"]
    _same(r.model, chronolog.reason(PROGRAM, every, engine="rows"))
    assert any(iv[0] >= hi + 500 for _, iv in r.model.facts("tip"))  # (i5's tip, 30 units after i4's)
    r.retract({"owns": [beyond["owns"][0]]})
    every["owns"].remove(beyond["owns"][0])
    _same(r.model, chronolog.reason(PROGRAM, every, engine="rows"))
    endless = {"owns": [(("i6", "c3", 99), (hi + 600, math.inf, True, False))]}
    r.add(endless)
    assert "implied_horizon" not in r.model.stats and r.model.stats["components"]
    every["owns"] += endless["owns"]
    _same(r.model, chronolog.reason(PROGRAM, every, engine="rows"))


def _same(got, want):
    for p in PREDICATES:
        assert got.facts(p) == want.facts(p), p
        assert got.repeating(p) == want.repeating(p), p


def test_a_fact_of_the_implied_run_is_explained():
    m = chronolog.reason(PROGRAM, _owns(), explain=True)
    assert m.stats["implied_horizon"]
    (terms, iv) = next(f for f in m.facts("tip") if f[1][0] > 20)
    proof = m.explain(f"tip({terms[0]}, {terms[1]})@{iv[0]}")
    assert "owns(" in str(proof)


def test_the_plan_says_where_the_run_takes_the_horizon_its_facts_imply(tmp_path):
    path = tmp_path / "p.vada"
    path.write_text(PROGRAM)
    from chronolog.cli import main

    import io
    import contextlib

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["plan", str(path)])
    text = out.getvalue()
    assert (f"horizon: none given; where every given fact ends (known at run time) the model lies within them widened "
            f"by {REACH} time units (the strata's reach): the run takes that horizon (its implied horizon)") in text
    assert "where a given fact has no end (no implied horizon): columns when 10,000+ facts are given, else rows" in text
    path.write_text(PROGRAM + "ever(I) :- <->[0,+inf) tip(I, C).")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["plan", str(path)])
    assert "implied horizon" not in out.getvalue()


@st.composite
def confined_cases(draw):
    """A wide random program (no recursion of its own) whose rules read,
    instead of the given ``v``, ``r``: ``v`` carried forward (or back) in
    time near where ``w`` holds for its key (a recursion through time ``w``
    confines, moved a bounded way);
    the given facts end, but now and then one does not."""
    case = draw(wide_cases(floats=False))
    window = draw(st.sampled_from(["<->", "<+>"])) + draw(st.sampled_from(["[1,1]", "[0,1]", "[1,2]", "(0,1]", "[0.5,1.5]"]))
    confining = draw(st.sampled_from(["w(K, _)", "<->[0,3] w(K, _)", "<->[2,4] w(K, _)", "[-][0,1] w(K, _)",
                                      "<+>[1,2] w(K, _)"]))
    program = (f"r(K, N) :- v(K, N).\nr(K, N) :- {window} r(K, N), {confining}.\n"
               + re.sub(r"\bv\(", "r(", case.program))
    facts = case.facts
    if draw(st.integers(0, 3)):
        facts = {p: [(t, iv) for t, iv in rows if math.inf not in (abs(iv[0]), abs(iv[1]))] for p, rows in facts.items()}
    return program, facts, ["r"] + case.idb


def _with_repeating(model, preds) -> dict:
    """``{pred: facts}`` and ``{pred every: (terms, (interval, period))}``:
    one model whose nulls a renaming maps together."""
    out = {p: model.facts(p) for p in preds}
    out.update({f"{p} every": [(t, (iv, period)) for t, iv, period in model.repeating(p)] for p in preds})
    return out


@settings(max_examples=examples(100), deadline=None, suppress_health_check=list(HealthCheck), print_blob=True)
@given(confined_cases())
def test_random_programs_without_a_horizon_are_the_searchs(case):
    """Random programs over a recursion through time their facts confine,
    with no horizon: the implied horizon's run, where it takes one, has the
    model the search finds, on rows and on columns."""
    program, facts, idb = case
    try:
        want = _searched(program, facts, engine="rows")
    except chronolog.ChronologError:
        return  # (no strategy ends it)
    for engine in ("rows", "columns"):
        got = chronolog.reason(program, facts, engine=engine)
        assert same_models(_with_repeating(got, idb), _with_repeating(want, idb)), f"{program}\n{facts}\n{engine}"


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_a_fact_file_of_whole_times_gives_its_hull(tmp_path, engine):
    """A fact file of whole times, large enough for the kernel reader to
    keep its times as int64 (5,000 lines), gives the hull by numpy: its
    least and greatest were called with the array as an axis, and the run
    stopped with an internal TypeError."""
    path = tmp_path / "p.facts"
    path.write_text("".join(f"p(s{i % 7})@[{i * 3},{i * 3 + 1}]\n" for i in range(5000)))
    program = "q(X) :- <->[0,1] q(X), r(X).\nq(X) :- p(X).\nr(X) :- p(X).\n"
    m = chronolog.reason(program, path, engine=engine)
    assert m.stats["implied_horizon"][:2] == (0 - 6, 14998 + 6)
    assert m.facts("q") == _searched(program, path.read_text(), engine="rows").facts("q")
