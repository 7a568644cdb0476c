"""A horizon's ends as the language's intervals write them: signed numbers
and infinite ends in ``@temporal`` (in each dialect that has annotations),
and a horizon open on one side, which bounds a recursion only on the other."""

import subprocess
import sys

from fractions import Fraction

import pytest
from budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chronolog
from chronolog import ProgramError
from oracle.pointwise import evaluate
from strategies import cases
from test_property_engine import _norm, _render

FACTS = "q(X) :- p(X).\np(a)@[-20,20].\n"


@pytest.mark.parametrize("annotation, answer", [
    ("@temporal(-10, 10).", [(("a",), (-10, 10, True, True))]),
    ("@temporal(- 10, +10).", [(("a",), (-10, 10, True, True))]),
    ("@temporal(0, inf).", [(("a",), (0, 20, True, True))]),
    ("@temporal(-inf, -5).", [(("a",), (-20, -5, True, True))]),
    ("@temporal(-infinity, +inf).", [(("a",), (-20, 20, True, True))]),
    ("@temporal(-1/2, 0.5).", [(("a",), (-0.5, 0.5, True, True))]),
])
def test_temporal_takes_signed_and_infinite_ends(executor, annotation, answer):
    """``@temporal(-10, 10).`` was a syntax error at '-', ``@temporal(0, inf).``
    an error saying it needs two numbers."""
    for program in (FACTS + annotation, annotation + "\n" + FACTS):  # (after rules: the reader without lark)
        assert chronolog.reason(program).facts("q") == answer, program


def test_temporal_on_dates_takes_an_infinite_end(executor):
    program = '@timeGranularity("days").\nq(X) :- p(X).\np(a)@[2020-01-01,2020-01-05].\n'
    assert chronolog.reason(program + "@temporal(2020-01-03, inf).").to_text() == "q(a)@[2020-01-03,2020-01-05]"
    assert chronolog.reason(program + "@temporal(-inf, 2020-01-03).").to_text() == "q(a)@[2020-01-01,2020-01-03]"


def test_lars_temporal_takes_signed_and_infinite_ends():
    program = "q(X) :- [3] <> p(X).\np(a)@5.\n"
    assert chronolog.reason(program + "@temporal(-2, inf).", dialect="lars").to_text() == "q(a)@[5,8]"
    assert chronolog.reason(program + "@temporal(-2, 6).", dialect="lars").to_text() == "q(a)@[5,6]"


@pytest.mark.parametrize("annotation, says", [
    ("@temporal(3, -1).", "@temporal(3, -1) holds no time point"),
    ("@temporal(inf, inf).", "@temporal(+inf, +inf) holds no time point"),
    ("@temporal(a, 3).", "@temporal(from, to) needs two numbers"),
])
def test_a_temporal_holding_no_point_is_refused_where_it_is_written(annotation, says):
    """``@temporal(inf, inf).`` was refused with no file, line or column."""
    with pytest.raises(ProgramError) as e:
        chronolog.reason(FACTS + annotation, source="prog.vada")
    assert says in str(e.value)
    assert (e.value.pos.file, e.value.pos.line) == ("prog.vada", 3)


FORWARD = "jobReport :- <->[30,30] jobReport.\njobReport@0.\n"
BACKWARD = "p :- <+>[30,30] p.\np@100.\n"
INF = float("inf")


def _clip(items, window):
    from chronolog.language.timeline import intersect, make

    w = make(window[0], window[1], True, True)
    return [(t, x) for t, iv in items if (x := intersect(iv, w)) is not None]


def _same_within(model, reference, preds, window):
    """``model`` (which may repeat forever) and ``reference`` (a finite
    model, or the pointwise evaluator's) agree on ``window``."""
    for pred in preds:
        assert _norm(model.facts_within(pred, window)) == _norm(_clip(reference.facts(pred), window)), pred


@pytest.mark.parametrize("program, horizon, window, far", [
    (FORWARD, (0, INF), (0, 400), "jobReport@[3000000000,3000000000]"),
    (FORWARD, "0,inf", (0, 400), "jobReport@[3000000000,3000000000]"),
    (FORWARD, (45, INF), (45, 400), None),  # (the recursion passes 30, outside it: jobReport@0 alone)
    (FORWARD + "@temporal(0, inf).", None, (0, 400), "jobReport@[3000000000,3000000000]"),
    (BACKWARD, (-INF, 200), (-300, 200), "p@[-2999999900,-2999999900]"),
    # (windows of 100 here: the pointwise evaluator is quadratic in this two-way recursion's points, 8.7 s over 460)
    ("a :- <->[1,1] a.\na :- <+>[1,1] a.\na@5.5.\n", (0, INF), (0, 100), "a@[1000000.5,1000000.5]"),
    ("a :- <->[1,1] a.\na :- <+>[1,1] a.\na@5.5.\n", (-INF, 8), (-100, 8), "a@[-1000000.5,-1000000.5]"),
])
def test_a_horizon_open_where_the_recursion_moves_is_answered(executor, program, horizon, window, far):
    """It was refused ("open on the side where this program's recursion
    moves time"): now the model is found where it repeats, confined to the
    horizon as a horizon confines it, and agrees with a run over a horizon
    with two finite ends and with the pointwise evaluator."""
    model = chronolog.reason(program, horizon=horizon)
    hz = horizon if horizon is not None else (0, INF)
    if isinstance(hz, str):
        hz = tuple(float(x) for x in hz.split(","))
    lo, hi = window
    finite = (hz[0] if hz[0] != -INF else lo - 60, hz[1] if hz[1] != INF else hi + 60)  # (wider where it is open)
    preds = sorted(model.plan.derived_predicates())
    _same_within(model, chronolog.reason(program, horizon=finite), preds, window)
    _same_within(model, evaluate(chronolog.api.load_program(program), finite), preds, window)
    if far is not None:
        assert model.holds(far)
    assert model.horizon[:2] == hz


@pytest.mark.parametrize("program, horizon", [
    ("p@0 every 10.\nq :- p.\n", (5, INF)),
    ("p@0 every 10.\nq :- <->[0,3] p.\n", (-INF, 42)),
    ("p@0 every -10.\nq :- <+>[1,1] p.\n", (-INF, 5)),
])
def test_a_horizon_open_where_a_given_fact_repeats_is_answered(executor, program, horizon):
    """"the horizon reaches +inf, where the given fact ... repeats forever"
    was an error: the model is found where it repeats, confined."""
    finite = (horizon[0] if horizon[0] != -INF else -200, horizon[1] if horizon[1] != INF else 200)
    window = (max(finite[0], -150), min(finite[1], 150))
    _same_within(chronolog.reason(program, horizon=horizon), chronolog.reason(program, horizon=finite), ["q"], window)


@pytest.mark.parametrize("side", ["future", "past"])
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(case=cases(ops=("<->", "<+>", "[-]", "[+]"), nest=1, recursion=True, allow_inf=False, head_boxes=True),
       end=st.sampled_from([-2, 0, 1, Fraction(5, 2), 6]))
def test_an_open_horizon_agrees_with_the_pointwise_evaluator(side, case, end):
    """Random recursive programs under a horizon open at one end: inside a
    window the model equals the pointwise evaluator's under a horizon with
    the same finite end and a far other one, and the rows' run there."""
    horizon = (end, INF) if side == "future" else (-INF, end)
    window = (end, end + 12) if side == "future" else (end - 12, end)
    finite = (end, end + 22) if side == "future" else (end - 22, end)
    try:
        model = chronolog.reason(case.program, case.facts, horizon=horizon)
    except ProgramError as e:
        if "looks both into the future and into the past" in str(e):
            return  # (refused with no horizon too, naming the rules)
        raise
    oracle = evaluate(case.parsed, finite)
    bounded = chronolog.reason(case.program, case.facts, horizon=finite, engine="rows")
    for pred in case.idb:
        got = _norm(model.facts_within(pred, window))
        for name, ref in (("oracle", oracle), ("rows within two finite ends", bounded)):
            want = _norm(_clip(ref.facts(pred), window))
            assert got == want, f"{case}\n{horizon}, {pred} against the {name}:\n  expected {_render(want)}\n  got      {_render(got)}"


def test_a_horizon_open_the_other_way_bounds_the_recursion(executor):
    assert chronolog.reason(FORWARD, horizon=(float("-inf"), 100)).to_text().splitlines() == [
        "jobReport@[0,0]", "jobReport@[30,30]", "jobReport@[60,60]", "jobReport@[90,90]"]
    assert chronolog.reason(BACKWARD, horizon=(0, float("inf"))).to_text().splitlines() == [
        "p@[10,10]", "p@[40,40]", "p@[70,70]", "p@[100,100]"]


def test_a_horizon_open_at_both_ends_confines_nothing(executor):
    """(-inf, +inf) is the model itself: the one found where it repeats."""
    for h in ((float("-inf"), float("inf")), "-inf,inf"):
        assert chronolog.reason(FORWARD, horizon=h).to_text() == "jobReport@[0,0] every 30"


def test_an_open_horizon_updates_as_it_answers():
    """A session under such a horizon stays confined by it after an update."""
    r = chronolog.Reasoner(FORWARD, horizon=(45, INF))
    assert r.model.to_text() == chronolog.reason(FORWARD, horizon=(45, 1000)).to_text()
    r.add("jobReport@50.")
    assert r.model.facts_within("jobReport", (0, 1000)) == chronolog.reason(
        FORWARD + "jobReport@50.", horizon=(45, 1000)).facts("jobReport")


def test_explaining_under_an_open_horizon_says_why_not():
    with pytest.raises(ProgramError) as e:
        chronolog.reason("b :- <->[0,1] b.\nb@0.\n", horizon=(0, INF), explain=True)
    assert "explanations are not recorded within the horizon [0,+inf)" in str(e.value)
    assert "give the horizon a finite end on that side" in str(e.value)


def test_the_command_line_answers_too(tmp_path):
    path = tmp_path / "job.vada"
    path.write_text(FORWARD)
    run = [sys.executable, "-m", "chronolog"]
    out = subprocess.run(run + ["run", str(path), "--horizon=0,inf", "--window", "0,100"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out
    assert out.stdout.splitlines() == chronolog.reason(FORWARD, horizon=(0, 100)).to_text().splitlines()
    out = subprocess.run(run + ["entails", str(path), "jobReport@[3000,3000]", "--horizon=0,inf"],
                         capture_output=True, text=True, timeout=120)
    assert (out.returncode, out.stdout.strip()) == (0, "true"), out


@pytest.mark.spark
def test_spark_answers_an_open_horizon(spark):
    """Spark refused it before any task; now each path answers it as the
    embedded engine does (the rounds leave it to one task)."""
    import warnings

    from chronolog import spark as cs

    program = "jobReport(X) :- <->[30,30] jobReport(X).\njobReport(a)@0.\n"
    want = chronolog.reason(program, horizon=(0, 100)).facts("jobReport")
    for distributed in (False, True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = cs.reason(spark, program, horizon=(0, float("inf")), distributed=distributed, window=(0, 100))
        got = sorted(map(tuple, out["jobReport"].collect()))
        assert got == [(t[0], *iv) for t, iv in want], distributed
        with pytest.raises(chronolog.ChronologError) as e:  # (no window: no finite table)
            cs.reason(spark, program, horizon=(0, float("inf")), distributed=distributed)
        # (the fact was shown as a Python tuple: "jobReport('a',) every 30")
        assert "repeat forever (e.g. jobReport(a)@[0,0] every 30)" in str(e.value), distributed
        assert "a horizon with two finite ends" in str(e.value)
    out = cs.reason(spark, program, horizon=(float("-inf"), 100), distributed=True)
    assert sorted(map(tuple, out["jobReport"].collect())) == [("a", t, t, True, True) for t in (0, 30, 60, 90)]


STREAM_CLOSE = """
import chronolog
s = chronolog.Stream("jobReport :- <->[30,30] jobReport.\\n@temporal(0, inf).")
s.push("jobReport@0.")
try:
    s.close()
except chronolog.ProgramError as e:
    print(e)
"""


def test_closing_a_stream_under_an_open_temporal_says_why_not(tmp_path):
    """``@temporal(0, inf).`` counted as a bound: close() (and ``chronolog
    stream`` at the end of its input) ran the recursion forever."""
    out = subprocess.run([sys.executable, "-c", STREAM_CLOSE], capture_output=True, text=True, timeout=120)
    assert "cannot close this stream: its model may be infinite" in out.stdout, out
    path = tmp_path / "job.vada"
    path.write_text("jobReport :- <->[30,30] jobReport.\n@temporal(0, inf).\n")
    out = subprocess.run([sys.executable, "-m", "chronolog", "stream", str(path)], input="jobReport@0.\njobReport@45.\n",
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "answers are final up to 45" in out.stderr, out
    assert out.stdout.splitlines() == ["jobReport@[0,0]", "jobReport@[30,30]"]


@pytest.mark.parametrize("program, says", [
    ("@temporal(0, inf).\n" + FORWARD, "horizon: [0,+inf)"),
    ("@temporal(-5, 5).\n" + FORWARD, "horizon: [-5,5]"),
    ('@timeGranularity("days").\n@temporal(2020-01-01, inf).\np(X) :- q(X).\nq(a)@2020-01-03.\n',
     "horizon: [2020-01-01,+inf)"),
])
def test_the_plan_prints_the_horizon_as_an_interval_of_the_timeline(program, says):
    """``chronolog plan`` printed [0,+inf] (an infinite end closed) and a date
    horizon in day numbers ([18262,+inf))."""
    from chronolog.plan_text import describe_plan

    assert says in describe_plan(chronolog.reason(program).plan).splitlines()
