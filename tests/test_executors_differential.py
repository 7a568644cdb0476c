"""rows == columns == auto on the wide random programs of
tests/strategies_wide.py (aggregates with operators, ints beside exact
rationals beside floats, constants, interval terms, time grouping, head
boxes, recursion through time), and against the pointwise oracle where it
applies (no floats, no time grouping or interval terms).

How hard they try: tests/budget.py (HYPOTHESIS_PROFILE=hunt for a long
campaign, with CHRONOLOG_DIFF_LOG below)."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from budget import examples

from chronolog import ChronologError
from chronolog.language.vadalog import parse
from differential import _iv, _typed, agree, outcomes, typed_facts
from oracle.pointwise import OracleError, evaluate
from strategies_wide import dated_cases, replicated, series_cases, wide_cases

pytest.importorskip("polars")

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), print_blob=True)


# CHRONOLOG_DIFF_LOG=path: the campaign mode; a disagreement is appended to
# the file (unshrunk) and the run goes on, so one campaign finds many
LOG = os.environ.get("CHRONOLOG_DIFF_LOG")


def check(case, typed=True):
    """Every executor alike, types included (floats equal to exact numbers
    of the run too: such a stratum runs on the rows)."""
    outs = outcomes(case.program, case.facts, case.horizon)
    if not LOG:
        agree(str(case), outs, typed=typed)
        return outs
    try:
        agree(str(case), outs, typed=typed)
    except AssertionError as e:
        with open(LOG, "a") as fh:
            fh.write(f"===== {os.environ.get('PYTEST_CURRENT_TEST', '')}\n{e}\n")
    return outs


@settings(max_examples=examples(40), **SETTINGS)
@given(wide_cases(floats=False))
def test_exact_numbers(case):
    outs = check(case)
    if not case.floats and not isinstance(outs["rows"], str):
        against_the_oracle(case, outs["rows"])


def against_the_oracle(case, model):
    """The row model against the pointwise oracle (which has no floats, time
    grouping or interval terms: those cases are skipped)."""
    try:
        oracle = evaluate(parse(case.program + "\n" + case.facts_text), case.horizon)
    except (OracleError, ChronologError, ZeroDivisionError, TypeError):
        return
    for pred in case.idb:
        want = sorted((tuple(_typed(t) for t in terms), _iv(iv)) for terms, iv in oracle.facts(pred))
        got = typed_facts(model, pred)
        if want != got:
            msg = f"the oracle and the rows disagree on\n{case}\n  {pred}: oracle {want}\n  {' ' * len(pred)}  rows   {got}"
            if LOG:
                with open(LOG, "a") as fh:
                    fh.write(f"===== oracle\n{msg}\n")
            else:
                raise AssertionError(msg)


@settings(max_examples=examples(40), **SETTINGS)
@given(wide_cases(floats=True))
def test_floats_beside_exact_numbers(case):
    check(case)


@settings(max_examples=examples(30), **SETTINGS)
@given(wide_cases(floats=True, recursion=True))
def test_recursion_through_time(case):
    check(case)


@settings(max_examples=examples(30), **SETTINGS)
@given(wide_cases(floats=False, templates=("aggregate", "temporal", "negation", "since")))
def test_aggregates_among_operators(case):
    check(case)


@settings(max_examples=examples(30), **SETTINGS)
@given(dated_cases())
def test_time_grouping_on_dates(case):
    check(case)


@settings(max_examples=examples(15), **SETTINGS)
@given(wide_cases(floats=True, recursion=True))
def test_many_keys(case):
    check(replicated(case, 30))


@settings(max_examples=examples(30), **SETTINGS)
@given(series_cases(floats=False))
def test_time_series_recipes_exact(case):
    check(case)


@settings(max_examples=examples(30), **SETTINGS)
@given(series_cases(floats=True))
def test_time_series_recipes_with_floats(case):
    check(case)


@pytest.mark.slow
@settings(max_examples=examples(400), **SETTINGS)
@given(wide_cases(floats=True, recursion=True))
def test_wide_programs_at_length(case):
    """The slow variant: ten times the widest family (about half a minute)."""
    check(case)
