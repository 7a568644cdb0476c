"""The golden examples (tests/test_golden.py) on the Spark backend: each
program in the seminaive rounds of Spark SQL (one task by size off), its
answers the golden ones, written out as the engine writes facts.

A program the plan places in one Spark task (recursion through time with
no horizon: its model is infinite) is not among them; tests/test_golden.py
holds those on the embedded executors."""

from __future__ import annotations

import warnings

import pytest

from chronolog.engine.arrow import table_to_rows
from chronolog.language.text import format_fact
from chronolog.language.timeline import coalesce
from test_golden import JOB_REPORT, LONG_TIME_INVESTOR, MATINEE, METEOR_41, METEOR_41_DATA, MICRO

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("rounds", "chronolog_conf")]  # chronolog's own settings (conftest.py)


def spark_text(spark, program, preds, **options) -> dict:
    """``{pred: [fact lines]}`` from the Spark rounds, sorted as the model's to_text sorts."""
    from chronolog import spark as cs

    stats: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", cs.DriverFallback)
        out = cs.reason(spark, program, distributed=True, outputs=list(preds), stats=stats, **options)
    assert stats.get("path") in ("relational", "keyed"), stats.get("why")  # rounds, or per key where the program has one
    text = {}
    for p in preds:
        atoms: dict = {}
        for terms, iv in table_to_rows(out[p].toArrow(), p):
            atoms.setdefault(terms, []).append(iv)
        facts = [(t, iv) for t, ivs in atoms.items() for iv in coalesce(ivs)]
        text[p] = [format_fact(p, t, iv) for t, iv in sorted(facts, key=lambda f: (f[0], f[1][0], not f[1][2]))]
    return text


def test_recently_opened(spark):
    got = spark_text(spark, "recentlyOpened(X) :- <->[0,12] inauguration(X).  inauguration(a)@[5,6].", ["recentlyOpened"])
    assert got == {"recentlyOpened": ["recentlyOpened(a)@[5,18]"]}


def test_long_time_investor(spark):
    got = spark_text(spark, LONG_TIME_INVESTOR, ["investor", "longTimeInvestor"])
    assert got == {
        "investor": ["investor(a,b)@[0.1,1.1)", "investor(a,b)@[1.5,4.2)"],
        "longTimeInvestor": ["longTimeInvestor(a,b)@[3.1,4.7)"],
    }


def test_matinee(spark):
    got = spark_text(spark, MATINEE, ["discountedTicket"])
    assert got == {"discountedTicket": ["discountedTicket(a)@[15,16)"]}


def test_meteor_example_4_1_within_a_horizon(spark):
    got = spark_text(spark, METEOR_41 + METEOR_41_DATA, ["R1", "R4", "R5", "R6"], dialect="meteor", horizon=(0, 10))
    assert got == {
        "R1": ["R1(c1,c2)@[0,10]"],
        "R4": ["R4(c2)@[0,3]"],
        "R5": ["R5(c2)@[0,1]", "R5(c2)@[2,2]"],
        "R6": ["R6(c2)@[2,2]"],
    }


def test_stream_example(spark):
    program = """
        p(Z) :- <->[0,2] signal(Z).
        p2(Z) :- [-][0,4] p(Z).
        flag(X,Z) :- monit(X,Z), p2(Z).
        nested(X,Z) :- monit(X,Z), [-][0,4] <->[0,2] signal(Z).
        signal(s1)@96.3.  signal(s1)@98.  signal(s1)@100.  monit(n,s1)@101.
        """
    assert spark_text(spark, program, ["p", "p2", "flag", "nested"]) == {
        "p": ["p(s1)@[96.3,102]"],
        "p2": ["p2(s1)@[100.3,102]"],
        "flag": ["flag(n,s1)@[101,101]"],
        "nested": ["nested(n,s1)@[101,101]"],
    }


def test_job_report_within_a_horizon(spark):
    got = spark_text(spark, JOB_REPORT, ["possibleCause", "jobReport"], horizon=(0, 200))
    assert got == {
        "possibleCause": ['possibleCause(a,"JR")@[121,121]'],
        "jobReport": [f"jobReport@[{t},{t}]" for t in range(0, 181, 30)],
    }


@pytest.mark.parametrize("rule,data,expected", MICRO)
def test_micro_cases(spark, rule, data, expected):
    pred = "q" if "q" in rule.split(":-")[0] else "p"
    assert spark_text(spark, rule + "\n" + data, [pred]) == {pred: expected}


def test_runs_on_chronolog_settings(spark):
    """These examples run on the settings users get (conftest.py's
    chronolog_conf): Spark's code generation, not the tests' interpreter."""
    assert spark.conf.get("spark.sql.codegen.wholeStage") == "true"
    assert spark.conf.get("spark.sql.codegen.factoryMode") == "FALLBACK"
