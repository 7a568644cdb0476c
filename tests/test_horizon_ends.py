"""A horizon's ends as the language's intervals write them: signed numbers
and infinite ends in ``@temporal`` (in each dialect that has annotations),
and a horizon open on one side, which bounds a recursion only on the other."""

import subprocess
import sys

import pytest

import chronolog
from chronolog import ProgramError

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


@pytest.mark.parametrize("program, horizon", [
    (FORWARD, (0, float("inf"))),
    (FORWARD, "0,inf"),
    (BACKWARD, (float("-inf"), 200)),
    (FORWARD + "@temporal(0, inf).", None),
])
def test_a_horizon_open_where_the_recursion_moves_is_refused(executor, program, horizon):
    """The run never ended (the recursion ran toward the open end, round
    after round): now an error naming the rule."""
    with pytest.raises(ProgramError) as e:
        chronolog.reason(program, horizon=horizon)
    assert "is open on the side where this program's recursion" in str(e.value)
    assert "<->[30,30] jobReport" in str(e.value) or "<+>[30,30] p" in str(e.value)


def test_a_horizon_open_the_other_way_bounds_the_recursion(executor):
    assert chronolog.reason(FORWARD, horizon=(float("-inf"), 100)).to_text().splitlines() == [
        "jobReport@[0,0]", "jobReport@[30,30]", "jobReport@[60,60]", "jobReport@[90,90]"]
    assert chronolog.reason(BACKWARD, horizon=(0, float("inf"))).to_text().splitlines() == [
        "p@[10,10]", "p@[40,40]", "p@[70,70]", "p@[100,100]"]


def test_a_horizon_open_at_both_ends_confines_nothing(executor):
    """(-inf, +inf) is the model itself: the one found where it repeats."""
    for h in ((float("-inf"), float("inf")), "-inf,inf"):
        assert chronolog.reason(FORWARD, horizon=h).to_text() == "jobReport@[0,0] every 30"


def test_the_command_line_says_so_too(tmp_path):
    path = tmp_path / "job.vada"
    path.write_text(FORWARD)
    out = subprocess.run([sys.executable, "-m", "chronolog", "run", str(path), "--horizon=0,inf"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out
    assert f"{path}:1:1: program error: the horizon [0,+inf) is open" in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.spark
def test_spark_refuses_an_open_horizon_as_a_program_error_before_any_task(spark):
    """Through Spark's tasks the refusal came back as a data error "in a
    Spark task", after the job had started."""
    from chronolog import spark as cs

    program = "jobReport(X) :- <->[30,30] jobReport(X).\njobReport(a)@0.\n"
    for distributed in (False, True):
        with pytest.raises(ProgramError) as e:
            cs.reason(spark, program, horizon=(0, float("inf")), distributed=distributed)
        assert "Spark task" not in str(e.value) and "is open on the side where" in str(e.value), distributed
    out = cs.reason(spark, program, horizon=(float("-inf"), 100), distributed=True)
    assert sorted(map(tuple, out["jobReport"].collect())) == [("a", t, t, True, True) for t in (0, 30, 60, 90)]
