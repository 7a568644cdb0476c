"""How far a stream's correction replays (chronolog/stream_corrections.py):
from the state before the first step whose input it meets, kept for the
latest steps (``RECENT``), else from the sparse checkpoint before; either
way the answers, net of their retractions, are those of the same stream fed
the corrected input from the start."""

from __future__ import annotations

from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog import stream_corrections
from chronolog.corrections import without_holes
from chronolog.language.errors import DataError
from chronolog.language.timeline import POS_INF
from test_stream_corrections import applied, from_scratch
from test_stream_property import SETTINGS


def cooling(n: int, hi: int) -> list:
    """Laser's cooling program's rules (bench/stream_cooling.py): readings
    from ``hi`` on are steam, a window of ``n`` over each kind, and neither."""
    return [f"steam(V) :- temp(V), V >= {hi}.", f"liquid(V) :- temp(V), V < {hi}.", "isSteam :- steam(V).",
            "isLiquid :- liquid(V).", f"alarm :- [-][0,{n}] isSteam.", f"normal :- [-][0,{n}] isLiquid.",
            "freeze :- not alarm, not normal."]


def reading(v, t):
    return ((v,), (t, t + 1, True, False))


def test_a_correction_of_the_step_before_replays_that_step_and_the_last():
    """Laser's cooling program, a reading of the step before retracted every
    third step: each correction replays two steps (from the state before
    the step that took the reading; from the checkpoints alone these 9
    replayed 48); the answers are those of the corrected input."""
    program = "\n".join(cooling(2, 5))
    s = chronolog.Stream(program, reach_back=3)
    kept, emitted = {}, []
    for t in range(30):
        rows = [reading((7 * t + k) % 10, t) for k in range(3)]
        kept[t] = rows
        s.push_rows({"temp": rows})
        s.advance(t)
        emitted += s.take()
        if t % 3 == 0 and t > 0:
            gone = kept[t - 1].pop(1)
            s.retract({"temp": [gone]})
            emitted += s.take()
    s.close()
    emitted += s.take()
    assert s.stats["corrections"] == 9 and s.stats["replayed steps"] == 2 * 9
    given = {"temp": [r for rows in kept.values() for r in rows]}
    outputs = ["steam", "liquid", "isSteam", "isLiquid", "alarm", "normal", "freeze"]
    assert applied(emitted, False) == from_scratch(program, given, outputs, (POS_INF, False))


@st.composite
def cooling_like(draw):
    """A program in the cooling program's shape (readings split by a
    threshold, windows over what they make, negation of the windows) with
    random thresholds and windows, and some of: an aggregate per time point,
    a diamond, Since; readings per time point."""
    n = draw(st.integers(0, 3))
    rules = cooling(n, draw(st.integers(2, 8))) + draw(st.lists(st.sampled_from([
        "many(C) :- C = count(V), steam(V).",
        "peak(M) :- M = max(V), temp(V).",
        f"warm :- <->[0,{n}] isSteam, not alarm.",
        "rising :- isSteam <S>[0,2] isLiquid.",
        "calm(V) :- liquid(V), not isSteam.",
    ]), unique=True, max_size=3))
    readings = draw(st.lists(st.lists(st.integers(0, 9), max_size=3), min_size=2, max_size=14))
    return "\n".join(rules), readings


@settings(max_examples=examples(60), **SETTINGS)
@given(st.data(), cooling_like())
def test_random_corrections_give_the_answers_of_the_corrected_input(data, case):
    """Readings pushed time point by time point, with random corrections
    between (retractions, amends to another value or time point, late
    readings), some too old to take; with few or no recent states kept, so
    that replays start from recent states and from checkpoints: the answers,
    net of their retractions, equal those of a stream fed the corrected
    readings from the start, and reasoning from scratch on them."""
    program, readings = case
    mode = data.draw(st.sampled_from(["pieces", "maximal"]))
    reach_back = data.draw(st.sampled_from([1, 2, 4, 10**6]))
    with mock.patch.object(stream_corrections, "RECENT", data.draw(st.sampled_from([0, 1, 8]))):
        s = chronolog.Stream(program, emit=mode, reach_back=reach_back)
        given, emitted = [], []
        for t, values in enumerate(readings):
            rows = [reading(v, t) for v in values]
            s.push_rows({"temp": rows})
            given += rows
            s.advance(t)
            emitted += s.take()
            for _ in range(data.draw(st.integers(0, 2))):
                old = [data.draw(st.sampled_from(given))] if given and data.draw(st.booleans()) else []
                new = [reading(data.draw(st.integers(0, 9)), data.draw(st.integers(max(0, t - 3), t + 1)))]
                add = new if not old or data.draw(st.booleans()) else None
                try:
                    s.update(add={"temp": add} if add else None, retract={"temp": old} if old else None)
                except DataError as e:
                    assert "older than the stream keeps" in str(e) and reach_back < 10**6, e
                    continue
                if old:
                    given = without_holes(given, {old[0][0]: [old[0][1]]})
                given += add or []
                emitted += s.take()
        s.close()
        emitted += s.take()
    fresh = chronolog.Stream(program, emit=mode)
    for t in range(len(readings) + 1):
        fresh.push_rows({"temp": [r for r in given if r[1][0] == t]})
        fresh.advance(t)
    fresh.close()
    maximal = mode == "maximal"
    want = applied(fresh.take(), maximal)
    assert applied(emitted, maximal) == want, (program, readings, s.stats)
    outputs = [r.split("(")[0].split(" ")[0] for r in program.splitlines()]
    assert want == from_scratch(program, {"temp": given}, outputs, (POS_INF, False)), (program, given)


def test_cli_stats_say_how_many_steps_corrections_replayed(capsys):
    """``--stats`` names the steps a correction evaluated again (here both
    steps the stream had run: the first took the retracted signal(a)@1)."""
    import io

    from chronolog.stream_cli import run_stream
    from test_stream_corrections import PROGRAM

    lines = "signal(a)@1\nsignal(b)@4\n-signal(a)@1\n+signal(c)@2\nsignal(d)@7\n"
    run_stream(PROGRAM, io.StringIO(lines), "<stdin>", "vadalog", True, io.StringIO(), reach_back=10)
    end = capsys.readouterr().err.splitlines()[-1]
    assert ", 1 correction, 2 retracted, 2 steps replayed," in end, end


def test_a_snapshot_of_another_format_is_refused_with_a_hint():
    """A snapshot pickled by an older chronolog (no format, the expiry heap
    inside) gets one sentence, not a KeyError deep in the restore."""
    s = chronolog.Stream("a(X) :- <->[0,2] r(X).", reach_back=3)
    s.push("r(x)@1")
    s.advance(2)
    old = {k: v for k, v in s.snapshot().items() if k != "format"}
    try:
        chronolog.Stream("a(X) :- <->[0,2] r(X).", reach_back=3).restore(old)
    except DataError as e:
        assert "another version of chronolog" in str(e) and "start the stream again" in str(e)
    else:
        raise AssertionError("an old snapshot was restored")
    again = chronolog.Stream("a(X) :- <->[0,2] r(X).", reach_back=3).restore(s.snapshot())
    assert again.watermark == s.watermark
