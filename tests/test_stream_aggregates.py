"""Aggregates in a stream: what the stream emits, coalesced, is the batch
answer (reasoning from scratch on the facts pushed), with watermarks
between the pushes.  An aggregate's value at ``t`` is final only once every
fact holding at ``t`` has arrived, so it must not be kept past the
watermark as a positive rule's conclusion is."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples

import chronolog
from chronolog.language.timeline import coalesce, make
from test_stream_property import SETTINGS

PROGRAMS = [
    "t(X,S) :- S = sum(V), v(X,V).",
    "c(N) :- N = count(), v(X,V).",
    "m(X,M) :- M = max(V), v(X,V).\nlow(X,M) :- M = min(V), v(X,V).",
    "h(S) :- S = msum(V, <X>), v(X,V).",
    "a(X,M) :- M = avg(V), <->[0,2] v(X,V).\nbig(X) :- a(X,M), M > 3.",
]


def batch(program, pushed) -> dict:
    model = chronolog.reason(program, "\n".join(pushed))
    heads = {r.head_pred for r in model.plan.rules}
    return {(p, t): sorted(coalesce([iv for u, iv in model.facts(p) if u == t]))
            for p in heads for t, _ in model.facts(p)}


def streamed(emitted) -> dict:
    got: dict = {}
    for f in emitted:
        got.setdefault((f.pred, f.terms), []).append(f.interval)
    return {k: sorted(coalesce(v)) for k, v in got.items()}


def test_an_aggregate_pushed_past_a_watermark_takes_the_later_facts():
    # the sum of v(a,_) is 1 on [0,4), 6 on [4,6], 1 on (6,10] (reasoning
    # from scratch); the stream gave t(a,1)@(3,10] beside t(a,6)@[4,6]: the
    # first step's sum, kept past its watermark 3 as a positive rule's
    # conclusion is, was never taken back when v(a,5)@[4,6] came
    s = chronolog.Stream("t(X,S) :- S = sum(V), v(X,V).")
    s.push("v(a,1)@[0,10]")
    s.advance(3)
    s.push("v(a,5)@[4,6]")
    s.close()
    assert streamed(s) == {("t", ("a", 1)): [make(0, 4, True, False), make(6, 10, False, True)],
                           ("t", ("a", 6)): [make(4, 6)]}


@st.composite
def readings(draw):
    """Fact lines ``v(k,n)@[s,e]`` in non-decreasing start order."""
    out = []
    for _ in range(draw(st.integers(1, 8))):
        start = draw(st.integers(0, 12))
        end = start + draw(st.sampled_from([0, 1, 3, 8]))
        out.append((start, f"v({draw(st.sampled_from('ab'))},{draw(st.integers(0, 6))})@[{start},{end}]"))
    return sorted(out)


@settings(max_examples=examples(60), **SETTINGS)
@given(st.sampled_from(PROGRAMS), readings(), st.data())
def test_aggregates_in_a_stream_equal_the_batch_answer(program, facts, data):
    maximal = data.draw(st.booleans())
    s = chronolog.Stream(program, emit="maximal" if maximal else "pieces")
    emitted, pushed = [], []
    for start, line in facts:
        if data.draw(st.booleans()):
            s.advance(start - data.draw(st.sampled_from([Fraction(1, 2), 1])))  # (before what comes next)
            emitted += list(s)
        s.push(line)
        pushed.append(line)
    s.close()
    emitted += list(s)
    assert streamed(emitted) == batch(program, pushed), (program, facts)
