"""Interval terms: ``lit@[S,E]`` binds the ends of the maximal interval on
which a body literal holds; ``p(X)@[S,E]`` as a head takes its interval from
terms.  Expected answers are worked by hand from docs/language.md."""

from __future__ import annotations

import math

import pytest

import chronolog
from chronolog.language.errors import ChronologError, ProgramError


def lines(program: str, preds=None, **kw) -> list:
    return sorted(chronolog.reason(program, **kw).to_text(preds).splitlines())


def test_laser_very_hot_time_as_data():
    # the Laser paper Fig. 4: veryHot(T) if steam(V) with V >= 150 at time T
    prog = """
    steam(V) :- temp(V), V >= 100.
    veryHot(T) :- steam(V)@[T, _], V >= 150.
    temp(90)@1. temp(120)@2. temp(160)@3. temp(200)@4. temp(155)@5.
    """
    assert lines(prog, ["veryHot"]) == ["veryHot(3)@[3,3]", "veryHot(4)@[4,4]", "veryHot(5)@[5,5]"]


def test_write_and_read_interval_columns():
    prog = """
    row(X, S, E) :- on(X)@[S, E].
    back(X)@[S, E) :- row(X, S, E).
    on(a)@[1, 4). on(a)@[6, 7]. on(b)@[0, 1/2].
    """
    assert lines(prog) == [
        "back(a)@[1,4)",
        "back(a)@[6,7)",
        "back(b)@[0,0.5)",
        "row(a,1,4)@[1,4)",
        "row(a,6,7)@[6,7]",
        "row(b,0,0.5)@[0,0.5]",
    ]


def test_the_interval_is_the_maximal_one_after_an_operator():
    # <->[0,1] p on p@[0,1] and p@[2,3]: [0,2] and [2,4] coalesce to [0,4]
    prog = """
    span(S, E) :- <->[0, 1] p@[S, E].
    p@[0, 1]. p@[2, 3].
    """
    assert lines(prog) == ["span(0,4)@[0,4]"]


def test_durations():
    prog = """
    long(X, D) :- on(X)@[S, E], D = E - S, D >= 5.
    on(a)@[0, 3]. on(a)@[10, 20). on(b)@[1, 6].
    """
    assert lines(prog) == ["long(a,10)@[10,20)", "long(b,5)@[1,6]"]


def test_unbounded_ends_are_infinite_numbers():
    m = chronolog.reason("ends(S, E) :- alive(X)@[S, E].\nalive(adam)@[0, +inf).")
    ((terms, iv),) = m.facts("ends")
    assert terms == (0, math.inf) and iv[:2] == (0, math.inf)
    assert m.to_text(["ends"]) == "ends(0,+inf)@[0,+inf)"


def test_head_interval_from_a_computation():
    # a maintenance window one day after each fault, lasting its duration
    prog = """
    maintenance(X)@[S2, E2] :- fault(X)@[S, E], S2 = E + 1, E2 = S2 + E - S.
    fault(m)@[3, 5].
    """
    assert lines(prog, ["maintenance"]) == ["maintenance(m)@[6,8]"]


def test_empty_head_interval_gives_nothing():
    assert lines("q(X)@[S, E] :- r(X, S, E).\nr(a, 5, 1)@0. r(b, 1, 1)@0.", ["q"]) == ["q(b)@[1,1]"]


def test_head_interval_ends_must_be_numbers():
    with pytest.raises(ChronologError) as e:
        chronolog.reason('q(X)@[S, E] :- r(X, S, E).\nr(a, "x", 1)@0.')
    assert "<program>:1:" in str(e.value) and "needs time points for its ends, not x and 1" in str(e.value)


def test_binding_the_interval_inside_its_own_recursion_is_refused():
    prog = """
    p(X) :- q(X).
    p(Y) :- p(X)@[S, E], next(X, Y).
    q(a)@[0, 1]. next(a, b)@[0, 1].
    """
    with pytest.raises(ProgramError) as e:
        chronolog.reason(prog)
    assert "<program>:3:" in str(e.value) and "inside a recursion" in str(e.value)


def test_head_interval_in_recursion_is_fine():
    prog = """
    reach(X)@[S, E] :- start(X, S, E).
    reach(Y)@[S, E] :- reach(X), edge(X, Y, S, E).
    start(a, 0, 10)@0.
    edge(a, b, 2, 3)@[5, 6].
    edge(b, c, 20, 30)@[2, 3].
    edge(b, d, 7, 8)@[1, 2].
    edge(c, e, 0, 1)@[0, 19].
    """
    # b holds on [2,3]: edge(b,c) meets it on [2,3], edge(b,d) at 2; reach(c)
    # holds on [20,30], where edge(c,e) does not: no e
    assert lines(prog, ["reach"]) == ["reach(a)@[0,10]", "reach(b)@[2,3]", "reach(c)@[20,30]", "reach(d)@[7,8]"]


def test_anonymous_head_ends_are_refused():
    with pytest.raises(ChronologError) as e:
        chronolog.reason("q(X)@[S, _] :- r(X, S).")
    assert "named variables" in str(e.value)


def test_plan_shows_the_wrap():
    from chronolog.language.vadalog import parse
    from chronolog.planner import plan

    from chronolog.plan_text import describe_plan

    text = describe_plan(plan(parse("len(L) :- on(X)@[S, E], L = E - S.")))
    assert "Wrap" in text


def test_explain_a_head_placed_by_terms():
    m = chronolog.reason("q(X)@[S, E] :- w(X, S, E).\nw(a, 1, 2)@0.", explain=True)
    (why,) = m.explain("q(a)@[1,2]")
    assert why["binding"] == {"X": "a", "S": 1, "E": 2} and why["body"] == "[0,0]"


@pytest.mark.parametrize("program, facts, holding", [
    ("p(X) :- <->[1,1] p(X).\nd(X,S,E) :- p(X)@[S,E].", "p(a)@10", "d(a,14,14)@[14,14]"),
    ("p(X) :- <+>[1,1] p(X).\nd(X,S,E) :- p(X)@[S,E].", "p(a)@10", "d(a,4,4)@[4,4]"),  # (backward: computed mirrored)
    ("p(X) :- <->[2,2] p(X).\nd(X,S) :- p(X)@S.", "p(a)@10", "d(a,16)@[16,16]"),
    ("d(X,S) :- p(X)@S.", "p(a)@10 every 3", "d(a,16)@[16,16]"),
])
def test_time_as_data_over_facts_that_repeat_forever_needs_a_horizon(program, facts, holding):
    # printed "d(a,12,12)@[12,12] every 1", so holds("d(a,12,12)@[14,14]")
    # said True and holds("d(a,14,14)@[14,14]") False: p(a) holds at 14 on
    # its own maximal interval [14,14], so only d(a,14,14) holds there
    with pytest.raises(chronolog.ProgramError, match="turns the time of facts that repeat forever into data.*needs a horizon"):
        chronolog.reason(program, facts)
    model = chronolog.reason(program, facts, horizon=(0, 20))
    ds = [f for f in model if f.pred == "d"]
    assert ds and all(f.interval[0] == f.interval[1] == f.terms[1] == f.terms[-1] for f in ds)  # each time its own terms
    assert model.holds(holding)


@pytest.mark.parametrize("engine", ["rows", "columns"])
@pytest.mark.parametrize("rows", [2, 12_000])  # (12,000: a table the columns read whole)
def test_a_head_placed_by_date_arguments_on_a_date_timeline(engine, rows):
    """Dates given as data (a pandas datetime64, an Arrow date32 column,
    fact text) are time points on a date timeline: they were refused as
    'needs numbers for its ends, not datetime.datetime(2020, 1, 1, 0, 0)'.
    The oracle: the same ends written as numbers of days since 1970."""
    import datetime as dt

    import pandas as pd
    import pyarrow as pa

    program = '@timeGranularity("days").\nspan(X)@[S,E) :- r(X, S, E).\n'
    starts = [dt.date(2020, 1, 1) + dt.timedelta(days=i % 40) for i in range(rows)]
    ends = [d + dt.timedelta(days=1 + i % 3) for i, d in enumerate(starts)]
    names = [f"a{i}" for i in range(rows)]
    day = lambda d: (d - dt.date(1970, 1, 1)).days
    expected = chronolog.reason(program.replace("@timeGranularity", "% "), {"r": [((x, day(s), day(e)), (0, 1)) for x, s, e in zip(names, starts, ends)]})
    expected = sorted((t, (iv[0], iv[1])) for t, iv in ((f[0], f[1]) for f in expected.facts("span")))
    frames = {
        "pandas": pd.DataFrame({"c0": names, "c1": pd.to_datetime(starts), "c2": pd.to_datetime(ends), "start": pd.to_datetime(starts), "end": pd.to_datetime(ends)}),
        "arrow": pa.table({"c0": names, "c1": pa.array(starts, pa.date32()), "c2": pa.array(ends, pa.date32()),
                           "start": pa.array(starts, pa.date32()), "end": pa.array(ends, pa.date32())}),
        "text": "\n".join(f"r({x}, {s}, {e})@{s}" for x, s, e in zip(names, starts, ends)),
    }
    for form, facts in frames.items():
        m = chronolog.reason(program, {"r": facts} if form != "text" else facts, engine=engine)
        got = sorted((t, (iv[0], iv[1])) for t, iv in m.facts("span"))
        assert got == expected, form
        assert all(iv[2] and not iv[3] for _, iv in m.facts("span"))
    assert m.to_text().splitlines()[0] == "span(a0)@[2020-01-01,2020-01-02)"


@pytest.mark.parametrize("program, facts, message, hint", [
    ("span(X)@[S,E) :- r(X, S, E).", "r(a, 2020-01-01, 2020-01-03)@[0,1]",
     "the interval of span(X) needs time points for its ends, not 2020-01-01 and 2020-01-03", "declare @timeGranularity"),
    ('@timeGranularity("days").\nspan(X)@[S,E) :- r(X, S, E).', 'r(a, "2020-01-01", 2020-01-03)@2020-01-01',
     'the interval of span(X) needs time points for its ends, not "2020-01-01" and 2020-01-03', '"date"). reads it as dates'),
    ("span(X)@[S,E) :- r(X, S, E).", 'r(a, "x", 5)@[0,1]', "needs time points for its ends, not x and 5", "ends are numbers"),
])
def test_ends_that_are_no_time_points_are_named_as_written(program, facts, message, hint):
    with pytest.raises(ChronologError) as e:
        chronolog.reason(program, facts)
    assert message in e.value.message and hint in e.value.hint
