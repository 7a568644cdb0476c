"""Streams on a date timeline (``@timeGranularity("days")``): facts pushed
and read as dates, answers printed as dates.

Oracles: the same stream on day numbers (dates written by Python's
``datetime``, not chronolog's calendar), ``chronolog run`` / ``reason`` on
the same facts, and answers worked out by hand.
"""

from __future__ import annotations

import datetime as dt
import io
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.language.timeline import POS_INF, coalesce
from chronolog.stream_cli import run_stream

RULES = """
own(X)   :- <->[0,2] buy(X).
alarm(X) :- [-][0,1] hot(X).
calm(X)  :- own(X), not hot(X).
@input("buy"). @input("hot").
"""
DATED = '@timeGranularity("days").\n' + RULES
BASE = 19723  # 2024-01-01 as a day number


def day(n) -> str:
    """Day number ``n`` as an ISO date, by Python's datetime (the oracle's calendar)."""
    if n == POS_INF:
        return "+inf"
    if n == -POS_INF:
        return "-inf"
    return (dt.date(1970, 1, 1) + dt.timedelta(days=int(n))).isoformat()


def as_dates(f) -> str:
    """A numeric stream's answer as the date stream should print it."""
    lo, hi, lc, hc = f.interval
    sign = "-" if f.retracted else ""
    return f"{sign}{f.pred}({','.join(f.terms)})@{'[' if lc else '('}{day(lo)},{day(hi)}{']' if hc else ')'}"


facts = st.lists(
    st.tuples(st.sampled_from(["buy", "hot"]), st.sampled_from(["a", "b"]), st.integers(0, 20), st.integers(0, 3)),
    max_size=12,
).map(lambda fs: sorted(fs, key=lambda f: f[2]))


def numeric_line(f) -> str:
    pred, c, start, length = f
    return f"{pred}({c})@[{BASE + start},{BASE + start + length}]"


def dated_line(f) -> str:
    pred, c, start, length = f
    return f"{pred}({c})@[{day(BASE + start)},{day(BASE + start + length)}]"


def run(program, lines, emit="pieces") -> list:
    s = chronolog.Stream(program, emit=emit)
    out = []
    for line in lines:
        s.push(line)
        out += s.take()
    s.close()
    return out + s.take()


@settings(max_examples=examples(60), deadline=None, suppress_health_check=list(HealthCheck))
@given(facts, st.sampled_from(["pieces", "maximal"]))
def test_a_date_stream_answers_as_the_same_stream_on_day_numbers(fs, emit):
    numeric = run(RULES, [numeric_line(f) for f in fs], emit)
    dated = run(DATED, [dated_line(f) for f in fs], emit)
    assert [str(f) for f in dated] == [as_dates(f) for f in numeric]
    assert [f.interval for f in dated] == [f.interval for f in numeric]  # (the intervals stay the engine's numbers)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=list(HealthCheck))
@given(facts)
def test_the_stream_command_on_dates_prints_what_chronolog_run_prints(fs):
    lines = [dated_line(f) for f in fs]
    model = chronolog.reason(DATED, "\n".join(lines))
    out = io.StringIO()
    run_stream(DATED, io.StringIO("".join(x + "\n" for x in lines)), "<in>", "vadalog", False, out, emit="maximal")
    assert sorted(out.getvalue().splitlines()) == sorted(model.lines())
    # the pieces, coalesced, are the batch answer
    pieces: dict = {}
    for f in run(DATED, lines):
        pieces.setdefault((f.pred, f.terms), []).append(f.interval)
    want = {(p, t): [iv for t2, iv in model.facts(p) if t2 == t] for p in ("own", "alarm", "calm") for t, _ in model.facts(p)}
    assert {k: coalesce(v) for k, v in pieces.items()} == want


def test_push_advance_and_rows_take_dates():
    s = chronolog.Stream(DATED)
    s.push("buy(a)@2024-01-05")
    s.advance(dt.date(2024, 1, 6))
    assert [str(f) for f in s] == ["calm(a)@[2024-01-05,2024-01-06]", "own(a)@[2024-01-05,2024-01-06]"]
    s.push({"hot": [(("a",), (dt.date(2024, 1, 7), dt.datetime(2024, 1, 8, 12)))]})
    s.advance("2024-01-08T06:00:00")
    assert [str(f) for f in s] == ["calm(a)@(2024-01-06,2024-01-07)", "own(a)@(2024-01-06,2024-01-07]",
                                   "alarm(a)@[2024-01-08,2024-01-08T06:00:00]"]
    s.close()
    assert [str(f) for f in s] == ["alarm(a)@(2024-01-08T06:00:00,2024-01-08T12:00:00]"]


def test_corrections_on_a_date_timeline():
    """A retraction and an amend, by hand: buy(a) on the 5th owns the 5th to
    the 7th; taking it back retracts that answer, printed as dates."""
    s = chronolog.Stream(DATED, emit="maximal", reach_back=dt.timedelta(days=10))
    s.push("buy(a)@2024-01-05")
    s.advance("2024-01-09")
    assert [str(f) for f in s] == ["calm(a)@[2024-01-05,2024-01-07]", "own(a)@[2024-01-05,2024-01-07]"]
    s.amend("buy(a)@2024-01-05", "buy(a)@2024-01-04")
    assert [str(f) for f in s] == ["-calm(a)@[2024-01-05,2024-01-07]", "-own(a)@[2024-01-05,2024-01-07]",
                                   "calm(a)@[2024-01-04,2024-01-06]", "own(a)@[2024-01-04,2024-01-06]"]
    s.retract("buy(a)@2024-01-04")
    assert [str(f) for f in s] == ["-calm(a)@[2024-01-04,2024-01-06]", "-own(a)@[2024-01-04,2024-01-06]"]
    # the same as a numeric stream on day numbers, with reach_back in days
    n = chronolog.Stream(RULES, emit="maximal", reach_back=10)
    n.push(f"buy(a)@{BASE + 4}")
    n.advance(BASE + 8)
    n.amend(f"buy(a)@{BASE + 4}", f"buy(a)@{BASE + 3}")
    n.retract(f"buy(a)@{BASE + 3}")
    assert [as_dates(f) for f in n] == ["calm(a)@[2024-01-05,2024-01-07]", "own(a)@[2024-01-05,2024-01-07]",
                                        "-calm(a)@[2024-01-05,2024-01-07]", "-own(a)@[2024-01-05,2024-01-07]",
                                        "calm(a)@[2024-01-04,2024-01-06]", "own(a)@[2024-01-04,2024-01-06]",
                                        "-calm(a)@[2024-01-04,2024-01-06]", "-own(a)@[2024-01-04,2024-01-06]"]


def test_cli_correction_lines_and_reach_back_as_a_duration():
    lines = "buy(a)@2024-01-05\nbuy(b)@2024-01-08\n-buy(a)@2024-01-05\n+buy(a)@2024-01-06\n"
    out = io.StringIO()
    run_stream(DATED, io.StringIO(lines), "<in>", "vadalog", False, out, emit="maximal", reach_back="P5D")
    assert out.getvalue().splitlines() == [
        "calm(a)@[2024-01-05,2024-01-07]", "own(a)@[2024-01-05,2024-01-07]",
        "-calm(a)@[2024-01-05,2024-01-07]", "-own(a)@[2024-01-05,2024-01-07]",
        "calm(a)@[2024-01-06,2024-01-08]", "own(a)@[2024-01-06,2024-01-08]",
        "calm(b)@[2024-01-08,2024-01-10]", "own(b)@[2024-01-08,2024-01-10]",
    ]


def test_errors_speak_in_dates():
    s = chronolog.Stream(DATED, reach_back=3)
    for fact in ("buy(a)@2024-01-05", "buy(b)@[2024-01-06,2024-01-07]", "buy(c)@2024-01-08T12:00:00"):
        s.push(fact)
        s.take()  # (each push evaluated: the log keeps steps)
    with pytest.raises(chronolog.DataError) as e:
        s.retract("buy(a)@2024-01-05")
    assert e.value.message == ("cannot retract buy(a)@[2024-01-05,2024-01-05]: it is older than the stream keeps (corrections "
                               "reach back 3 days before the watermark 2024-01-08T12:00:00, to facts that start after 2024-01-05)")
    s.advance("2024-01-09")
    with pytest.raises(chronolog.DataError) as e:
        s.push("buy(a)@2024-01-08")
    assert e.value.message == "out-of-order fact buy(a)@[2024-01-08,2024-01-08]: the stream is closed up to 2024-01-09 (inclusive)"


@pytest.mark.parametrize("when, error", [
    (19727, "advance(): 19727 is a number, but this program's timeline is dates"),
    (dt.date(2024, 1, 5), None),
    ("5", "advance(): '5' is not a time point"),
])
def test_a_watermark_on_a_date_timeline_is_a_date(when, error):
    s = chronolog.Stream(DATED)
    if error is None:
        s.advance(when)
        assert s.watermark == BASE + 4
        return
    with pytest.raises(chronolog.ChronologError) as e:
        s.advance(when)
    assert e.value.message == error


def test_a_date_on_a_numeric_stream_is_refused():
    s = chronolog.Stream(RULES)
    with pytest.raises(chronolog.ChronologError) as e:
        s.advance(dt.date(2024, 1, 5))
    assert e.value.message == "advance(): 2024-01-05 is a date, but this program's timeline is numeric"
    with pytest.raises(chronolog.DataError, match="2024-01-05 is a date, but this program's timeline is numeric"):
        s.push("buy(a)@2024-01-05")
    with pytest.raises(chronolog.ChronologError, match="reach_back: expected a non-negative number"):
        chronolog.Stream(RULES, reach_back="P3D")
    with pytest.raises(chronolog.ChronologError, match="reach_back: 'P3X' is not a length of time"):
        chronolog.Stream(DATED, reach_back="P3X")


def _cli(*args, stdin=""):
    return subprocess.run([sys.executable, "-m", "chronolog", *args], input=stdin, capture_output=True, text=True, timeout=120)


def test_cli_stream_of_dates_equals_run_and_refuses_numbers_naming_line_and_column(tmp_path: Path):
    prog = tmp_path / "own.vada"
    prog.write_text(DATED + "buy(z)@2024-01-01.\n")
    data = tmp_path / "in.txt"
    data.write_text("buy(a)@2024-01-05\nhot(a)@[2024-01-06,2024-01-06T12:00:00]\nbuy(b)@2024-01-08\n")
    streamed = _cli("stream", str(prog), "--input", str(data), "--maximal", "--stats")
    batch = _cli("run", str(prog), "--facts", str(data))
    assert streamed.returncode == 0 and batch.returncode == 0, streamed.stderr + batch.stderr
    assert sorted(streamed.stdout.splitlines()) == sorted(batch.stdout.splitlines())
    assert "own(z)@[2024-01-01,2024-01-03]" in streamed.stdout and "end: watermark +inf" in streamed.stderr
    data.write_text("buy(a)@2024-01-05\n  buy(b)@19730\n")
    r = _cli("stream", str(prog), "--input", str(data))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"{data}:2:3: data error: the time point 19730 is a number, but this program's timeline is dates"), r.stderr
    data.write_text("buy(a)@2024-01-05\n-buy(a)@5\n")
    r = _cli("stream", str(prog), "--input", str(data), "--reach-back", "P2D")
    assert r.returncode == 2 and r.stderr.startswith(f"{data}:2:"), r.stderr
    assert "the time point 5 is a number, but this program's timeline is dates" in r.stderr


def test_hypothetical_answers_refuse_a_date_timeline_saying_why():
    from chronolog.hypothetical import Hypothetical

    with pytest.raises(chronolog.ProgramError) as e:
        Hypothetical('@timeGranularity("days").\nq(X) :- <->[1,1] p(X).')
    assert e.value.message == "hypothetical answers take numeric time points, but this program's timeline is dates"


def test_a_spark_stream_refuses_a_date_timeline_saying_why(tmp_path):
    """(Refused before Spark is touched: no session needed.)"""
    from chronolog.spark_stream import stream_query

    with pytest.raises(chronolog.ProgramError) as e:
        stream_query(DATED, None, checkpoint=tmp_path / "cp", output=tmp_path / "out")
    assert e.value.message == "a Spark stream takes numeric time points, but this program's timeline is dates"
    assert list(tmp_path.iterdir()) == []  # (nothing left behind)
