"""Property tests: a stream's output equals the batch model (the reference).

Random forward-propagating programs from :mod:`strategies` (past operators
in bodies, ``[+]`` heads, negation, recursion, comparisons), their data fed
in non-decreasing start time in random groups with random watermarks in
between.  What the stream emits, coalesced, must be the batch answer
(``chronolog.reason``) restricted to the range the stream has closed.
"""

from __future__ import annotations

import os
from fractions import Fraction

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.language.timeline import POS_INF, coalesce, intersect, make, start_key
from chronolog.planner.forward import check_forward
from strategies import cases

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), print_blob=True)


def _forward(case) -> bool:
    try:
        check_forward(case.parsed)
    except chronolog.ProgramError:
        return False
    return True


def _groups(draw, case):
    """The case's facts as ``[(start, {pred: rows})]`` in start order."""
    by_start: dict = {}
    for f in case.parsed.facts:
        by_start.setdefault(start_key(f.interval), {}).setdefault(f.pred, []).append((f.terms, f.interval))
    keys = sorted(by_start)
    # merge neighbouring starts into one push sometimes
    groups = []
    for k in keys:
        if groups and draw(st.booleans()):
            for p, rows in by_start[k].items():
                groups[-1][1].setdefault(p, []).extend(rows)
        else:
            groups.append((k, by_start[k]))
    return groups


def run_stream(draw, case, until=POS_INF):
    program = case.program
    # CHRONOLOG_STREAM_EMIT=maximal runs every example in one mode
    mode = os.environ.get("CHRONOLOG_STREAM_EMIT") or draw(st.sampled_from(["pieces", "pieces", "maximal"]))
    s = chronolog.Stream(program, outputs=case.idb, emit=mode)
    emitted = []
    last_wm = None
    for (start, _), rows in _groups(draw, case):
        if start > until:
            break
        # sometimes a watermark just before this group (never past its start)
        if draw(st.integers(0, 2)) == 0 and start != -POS_INF:
            wm = start - Fraction(draw(st.sampled_from([0, 1, 1, 2])), 2)
            if last_wm is None or wm >= last_wm:
                if wm < start or not any(iv[2] and iv[0] == start for r in rows.values() for _, iv in r):
                    s.advance(wm)
                    last_wm = wm
        s.push(rows)
        if draw(st.booleans()):
            emitted.extend(s)
    if until == POS_INF:
        s.close()
    else:
        s.advance(until)
    emitted.extend(s)
    s.mode = mode
    return emitted, s


def compare(case, emitted, closed=(POS_INF, False), recursive=False, mode="pieces"):
    until, inclusive = closed
    horizon = (-100, until) if recursive else None
    model = chronolog.reason(case.program, case.facts, horizon=horizon)
    window = make(-POS_INF, until, False, inclusive)
    if mode == "maximal":
        # each answer once, with its maximal interval, once it has ended
        got = [(f.pred, f.terms, f.interval) for f in emitted]
        assert len(got) == len(set(got)), f"an answer came out twice\n{case}"
        want = {(p, t, iv) for p in case.idb for t, iv in model.facts(p)}
        if until == POS_INF:
            assert set(got) == want, f"stream (maximal) and batch disagree on\n{case}\n{got}\n{want}"
        else:
            assert set(got) <= want, f"stream (maximal) gave a non-answer on\n{case}\n{got}\n{want}"
        return
    diffs = []
    for pred in case.idb:
        got: dict = {}
        for f in emitted:
            if f.pred == pred:
                got.setdefault(f.terms, []).append(f.interval)
        for t, v in got.items():  # each point of an answer comes out once: its pieces never overlap
            v = sorted(v)
            assert all(intersect(x, y) is None for x, y in zip(v, v[1:])), f"{pred}{t}: pieces overlap: {v}\n{case}"
        got = {t: coalesce(v) for t, v in got.items()}
        want: dict = {}
        for terms, iv in model.facts(pred):
            piece = intersect(iv, window)
            if piece is not None:
                want.setdefault(terms, []).append(piece)
        if got != want:
            diffs.append(f"  {pred}: batch {want}\n  {' ' * len(pred)}  stream {got}")
    assert not diffs, f"stream and batch disagree on\n{case}\nclosed up to {until}\n" + "\n".join(diffs)


FORWARD = ("<->", "[-]", "S")


@settings(max_examples=examples(40), **SETTINGS)
@given(st.data(), cases(ops=FORWARD, nest=2, max_arity=1))
def test_stream_equals_batch_positive(data, case):
    emitted, s = run_stream(data.draw, case)
    compare(case, emitted, mode=s.mode)


@settings(max_examples=examples(40), **SETTINGS)
@given(st.data(), cases(ops=FORWARD, nest=1, negation=True, head_boxes=True, comparisons=True))
def test_stream_equals_batch_negation_head_boxes(data, case):
    assume(_forward(case))
    emitted, s = run_stream(data.draw, case)
    compare(case, emitted, mode=s.mode)


@settings(max_examples=examples(30), **SETTINGS)
@given(st.data(), cases(ops=FORWARD, nest=1, negation=True, head_boxes=True, recursion=True, allow_inf=False))
def test_stream_equals_batch_recursion(data, case):
    """Recursion through time has an infinite model: compare up to a watermark,
    against the batch model under a horizon that ends there (forward
    propagation: nothing after the horizon changes anything before it)."""
    assume(_forward(case))
    until = data.draw(st.sampled_from([2, Fraction(7, 2), 5]))
    emitted, s = run_stream(data.draw, case, until)
    compare(case, emitted, s.closed_range, recursive=True, mode=s.mode)


@settings(max_examples=examples(25), **SETTINGS)
@given(st.data(), cases(ops=FORWARD, nest=2, negation=True, head_boxes=True, comparisons=True, idb_data=True, max_arity=1))
def test_stream_equals_batch_data_on_derived(data, case):
    assume(_forward(case))
    emitted, s = run_stream(data.draw, case)
    compare(case, emitted, mode=s.mode)
