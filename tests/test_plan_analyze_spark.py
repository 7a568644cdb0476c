"""``chronolog.spark.explain_plan(..., analyze=True)`` on the test suite's
Spark session: the facts it prints are those of the embedded model
(``chronolog.reason`` on the same input), its Spark jobs those the session
counted, each stratum's rounds and jobs those of the rounds that ran it,
the path and its reason ``reason``'s ``stats``; and the example of
docs/spark.md prints what the doc says."""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_plan_analyze import model_counts

import chronolog

pytestmark = pytest.mark.spark

# two strata of one dependency level (one Spark round for both), a
# recursion and an aggregate; no key: the closure joins across keys
PROGRAM = """control(X, Y) :- own(X, Y, S), S > 50.
control(X, Z) :- control(X, Y), control(Y, Z), X != Z.
big(X) :- own(X, Y, S), S > 80.
n(N) :- control(X, Y), N = count(X).
"""
FACTS = "own(a, b, 60)@[0,10]. own(b, c, 70)@[2,8]. own(c, d, 90)@[5,12]. own(a, d, 40)@[0,3]."


def parse(text: str) -> dict:
    """The header (jobs, path), and per stratum its rounds line and facts."""
    out = {"jobs": int(re.search(r"; ([\d,]+) Spark jobs?$", text.splitlines()[0])[1].replace(",", "")),
           "path": re.search(r"^spark ran on: (.*)$", text, re.M)[1], "strata": {}}
    cur = None
    for line in text.splitlines():
        if m := re.match(r"stratum (\d+) ", line):
            cur = out["strata"][int(m[1])] = {"holds": {}, "ran": None}
        elif cur is not None and (m := re.match(r"  ran on spark rounds: (\d+) rounds?, [\d.]+ ms, (\d+) Spark jobs?", line)):
            cur["ran"] = (int(m[1]), int(m[2]))
        elif cur is not None and (m := re.match(r"  ran in (.*): no rounds of its own recorded$|  ran on (\w+): ", line)):
            cur["ran"] = m[1] or m[2]
        elif cur is not None and (m := re.match(r"  holds (\S+): ([\d,]+) facts? on ([\d,]+) maximal intervals?$", line)):
            cur["holds"][m[1]] = (int(m[2]), int(m[3]), 0)
    return out


def test_rounds(spark):
    from chronolog import spark as cs

    stats = {}
    text = cs.explain_plan(spark, PROGRAM + FACTS, analyze=True, distributed=True, one_task_bytes=-1, stats=stats)
    got, model = parse(text), chronolog.reason(PROGRAM + FACTS)
    assert stats["path"] == "relational" and got["path"].startswith(f"seminaive rounds of Spark SQL: {stats['why']}")
    assert {p: c for s in got["strata"].values() for p, c in s["holds"].items()} == model_counts(model)
    # every job of the call is a round's (the inputs are the program's own facts: held, no load of their own)
    assert got["jobs"] == sum(r.jobs for r in stats["rounds"]) + stats["load"].jobs
    for i, s in got["strata"].items():
        mine = [r for r in stats["rounds"] if i in r.strata]
        assert s["ran"] == (len(mine), sum(r.jobs for r in mine)) and mine
    assert re.search(r"stratum 0 .*\n(.*\n)*  ran on spark rounds: 1 round, [\d.]+ ms, \d+ Spark jobs? "
                     r"\(rounds shared with strata 1\)", text)
    assert_no_operator_figures(text)


def test_rounds_that_ran_again(spark):
    """A quotient that is not whole stops the first run: the plan says the
    rounds ran again, and why; the facts are the model's."""
    from chronolog import spark as cs

    prog = "half(X, H) :- own(X, Y, S), own(Y, Z, T), H = S / 4.\n"
    stats = {}
    text = cs.explain_plan(spark, prog + FACTS, analyze=True, distributed=True, one_task_bytes=-1, stats=stats)
    assert stats["path"] == "relational"
    assert "\nspark ran the rounds again: a row computed in Spark: (S / 4) is not a whole number (or divides by zero)\n" in text
    assert {p: c for st in parse(text)["strata"].values() for p, c in st["holds"].items()} == model_counts(chronolog.reason(prog + FACTS))


def assert_no_operator_figures(text: str) -> None:
    """A Spark call says it has no rows or time per operator, and prints none."""
    assert "\nper operator: no rows or time on Spark (" in text
    assert not re.search(r"rows=[\d,]+ time=", text)


def test_one_task_and_driver(spark):
    from chronolog import spark as cs

    model = chronolog.reason(PROGRAM + FACTS)
    for options, path in (({"distributed": True}, "one task"), ({}, "driver")):
        stats = {}
        text = cs.explain_plan(spark, PROGRAM + FACTS, analyze=True, stats=stats, **options)
        got = parse(text)
        assert stats["path"] == path and got["path"].endswith(f": {stats['why']}")
        assert {p: c for s in got["strata"].values() for p, c in s["holds"].items()} == model_counts(model)
        if path == "one task":  # (small inputs: why it is not the rounds)
            assert_no_operator_figures(text)
            assert "oneTaskBytes" in stats["why"] and got["jobs"] >= 1
            assert all(s["ran"] == "one Spark task (the whole program, the embedded engine)" for s in got["strata"].values())
        else:  # the embedded engine on the driver, its strata recorded as an embedded run's; no job
            assert got["jobs"] == 0
            assert {i: s["ran"] for i, s in got["strata"].items()} == {i: "rows" for i in model.stats["executors"]}
            # and its figures per rule and operator, on the plan it ran: the embedded run's
            embedded = chronolog.explain_plan(PROGRAM + FACTS, analyze=True)
            assert "per operator: no rows" not in text
            assert _figures(text) == _figures(embedded) and len(_figures(text)) > 10


def _figures(text: str) -> list:
    """The rows per rule and operator a plan prints (its times apart)."""
    return re.findall(r"^(.*?(?:produced [\d,]+ rows?, [\d,]+ in the last round|rows=[\d,]+))", text, re.M)


def doc_example() -> tuple:
    """docs/spark.md's example of explain_plan and the text it shows."""
    text = (Path(__file__).parent.parent / "docs" / "spark.md").read_text()
    m = re.search(r"```python no-run\n(# explain_plan\n.*?)```\n\n```text\n(.*?)```", text, re.S)
    return m[1], m[2]


def test_doc_example(spark):
    code, want = doc_example()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/spark.md", "exec"), {"spark": spark})
    assert out.getvalue() == want


@pytest.mark.slow
def test_command_line(spark, tmp_path):
    """``chronolog plan --analyze --spark`` (a session of its own, in a
    process of its own) prints the path and facts the API's call does."""
    from chronolog import spark as cs

    prog = tmp_path / "control.vada"
    prog.write_text(PROGRAM + FACTS)
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    r = subprocess.run([sys.executable, "-m", "chronolog", "plan", str(prog), "--analyze", "--spark", "local[1]", "--distributed",
                        "--conf", "spark.chronolog.oneTaskBytes=-1"], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    got, want = parse(r.stdout), parse(cs.explain_plan(spark, prog, analyze=True, distributed=True, one_task_bytes=-1))
    assert got["path"] == want["path"] and got["path"].startswith("seminaive rounds of Spark SQL")
    assert {i: s["holds"] for i, s in got["strata"].items()} == {i: s["holds"] for i, s in want["strata"].items()}
    assert [s["ran"][0] for s in got["strata"].values()] == [s["ran"][0] for s in want["strata"].values()]  # rounds
