"""A stream advancing over a long quiet stretch does not step through it
(engine/quiet_stretch.py): a recursion through time over 10^6 time units
with no input costs a few rounds, and the answers equal the batch model."""

from __future__ import annotations

import os
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.language.text import format_fact
from chronolog.language.timeline import coalesce, intersect, make
from strategies import cases
from test_stream_property import SETTINGS, _forward

FAR = 1_000_000

PROGRAMS = [
    # a box recursion: p grows two units per round
    "p(X) :- b(X).\np(X) :- [-][2,3] p(X).\nq(X) :- <->[0,1] p(X), not c(X).",
    # periodic: p every 3 units after b
    "p(X) :- b(X).\np(X) :- <->[3,3] p(X).\nq(X) :- p(X), c(X).",
    # Since inside the recursion, and a head box
    "p(X) :- b(X).\np(X) :- g(X) <S>[1,2] p(X).\n[+][0,1] r(X) :- <->[1,1] p(X).",
]
DATA = [
    ("b(a)@[0,10].\ng(a)@[0,2000000].\nc(a)@[5,6].", 20),
    ("c(c)@[1000000,1000001].\nb(c)@[1000000,1000010].\nc(a)@[1000003,1000004].", FAR + 20),
]


def _stream(program, data):
    s = chronolog.Stream(program)
    got = []
    for facts, until in data:
        s.push(facts)
        s.advance(until)
        got.extend(s)
    return s, got


@pytest.mark.parametrize("program", PROGRAMS)
def test_a_million_quiet_time_units_cost_few_rounds(program):
    s, got = _stream(program, DATA)
    assert s.evaluator.stats["rounds"] < 2000, s.evaluator.stats
    facts = "\n".join(f for f, _ in DATA)
    model = chronolog.reason(program + "\n" + facts)
    window = make(float("-inf"), FAR + 20, False, True)
    preds = sorted({f.pred for f in got} | {"p", "q", "r"} & set(model.predicates()))
    for pred in preds:
        have: dict = {}
        for f in got:
            if f.pred == pred:
                have.setdefault(f.terms, []).append(f.interval)
        want: dict = {}
        for terms, iv in model.facts_within(pred, (float("-inf"), FAR + 20)):
            if (x := intersect(iv, window)) is not None:
                want.setdefault(terms, []).append(x)
        assert {t: coalesce(v) for t, v in have.items()} == {t: coalesce(v) for t, v in want.items()}, pred


@settings(max_examples=examples(60), **SETTINGS)
@given(st.data(), cases(ops=("<->", "[-]", "S"), nest=1, negation=True, head_boxes=True, recursion=True, allow_inf=False))
def test_a_far_copy_of_the_data_streams_like_the_batch_model(data, case):
    """The case's facts, then the same facts 10^4 time units later: the
    stream jumps the gap, and equals the batch model (which jumps it too,
    by another route: engine/termination.py) up to the last watermark."""
    from hypothesis import assume

    assume(_forward(case))
    far = 10_000
    facts = case.parsed.facts
    shifted = [(f.pred, f.terms, (f.interval[0] + far, f.interval[1] + far, *f.interval[2:])) for f in facts]
    mode = data.draw(st.sampled_from(["pieces", "maximal"]))
    s = chronolog.Stream(case.program, outputs=case.idb, emit=mode)
    rows: dict = {}
    for f in facts:
        rows.setdefault(f.pred, []).append((f.terms, f.interval))
    s.push(rows)
    s.advance(10)
    got = list(s)
    later: dict = {}
    for p, t, iv in shifted:
        later.setdefault(p, []).append((t, iv))
    s.push(later)
    until = far + data.draw(st.sampled_from([2, Fraction(7, 2), 5]))
    s.advance(until)
    got.extend(s)
    every = "\n".join(format_fact(p, t, iv) + "." for p, t, iv in
                      [(f.pred, f.terms, f.interval) for f in facts] + shifted)
    until, inclusive = s.closed_range  # pushing a fact closes the stream up to its start
    model = chronolog.reason(case.program + "\n" + every, horizon=(-100, until))
    window = make(float("-inf"), until, False, inclusive)
    if mode == "maximal":  # each answer once, whole, when it has ended: a fact of the batch model
        want = {(p, t, iv) for p in case.idb for t, iv in model.facts(p)}
        got_set = [(f.pred, f.terms, f.interval) for f in got]
        assert len(got_set) == len(set(got_set)) and set(got_set) <= want, (case, got_set, want)
        return
    for pred in case.idb:
        have: dict = {}
        for f in got:
            if f.pred == pred:
                have.setdefault(f.terms, []).append(f.interval)
        want: dict = {}
        for terms, iv in model.facts(pred):
            if (x := intersect(iv, window)) is not None:
                want.setdefault(terms, []).append(x)
        assert {t: coalesce(v) for t, v in have.items()} == want, (case, pred)
