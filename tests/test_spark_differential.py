"""The wide random programs of tests/strategies_wide.py through Spark
(``chronolog.spark.reason``, whichever path it takes: rounds of
DataFrame operations, keyed tasks, or the driver) against the row executor
on the same facts.  Exact numbers only as arguments; given interval ends
are now and then floats (each the number it shows)."""

from __future__ import annotations

import os
import warnings
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from budget import examples

import chronolog
from chronolog import ChronologError
from chronolog.engine.arrow import facts_to_arrow, table_to_rows
from chronolog.language.booleans import terms as as_terms
from chronolog.language.timeline import coalesce
from strategies_wide import wide_cases

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("chronolog_conf")]  # chronolog's own settings (conftest.py)


def _decimal(t) -> bool:
    if not isinstance(t, Fraction):
        return True
    d = t.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


def canon(facts):
    """Facts as (terms, maximal interval), booleans as the engine's #T/#F
    (Model.facts gives Python bools, which would be keys equal to 1/0)."""
    atoms = {}
    for terms, iv in facts:
        atoms.setdefault(as_terms(terms), []).append(iv)
    return {(t, iv) for t, ivs in atoms.items() for iv in coalesce(ivs)}


def arrow_inputs(case):
    """``(facts, tables)``: a random case's given facts and the Arrow tables
    Spark reads them from; None where Arrow cannot hold them as given (a
    rational such as 1/3 is the text "1/3", a column mixing kinds, #T
    beside 0, is text: documented in docs/spark.md)."""
    if not all(_decimal(t) for rows in case.facts.values() for terms, _ in rows for t in terms):
        return None
    facts = {p: rows for p, rows in case.facts.items() if rows}
    tables = {p: facts_to_arrow(rows, [f"c{i}" for i in range(len(rows[0][0]))]) for p, rows in facts.items()}
    if any(canon(table_to_rows(t, p)) != canon(facts[p]) for p, t in tables.items()):
        return None
    return facts, tables


@settings(max_examples=examples(8), deadline=None, suppress_health_check=list(HealthCheck), print_blob=True)
@given(wide_cases(floats=False, templates=("temporal", "since", "cond", "arith", "join", "negation", "aggregate", "const_head", "const_body", "head_box")))
def test_spark_gives_the_rows_model(spark, case):
    from chronolog import spark as cs

    inputs = None if case.floats else arrow_inputs(case)
    if inputs is None:
        return
    facts, tables = inputs
    try:
        model = chronolog.reason(case.program, facts, engine="rows", horizon=case.horizon)
    except ChronologError:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = cs.reason(spark, case.program, inputs=tables, horizon=case.horizon, outputs=case.idb)
        except ChronologError as e:
            if "no facts" in str(e) or "unknown" in str(e):
                return
            raise
    for p, df in out.items():
        got = canon(table_to_rows(df.toArrow(), p))
        # Spark's columns are typed as the model's own to_arrow types them:
        # a derived rational such as 1/3, or a column mixing kinds (#T beside
        # 0), is the exact text there (docs/spark.md); every other column is
        # compared typed
        want = table_to_rows(model.to_arrow(p), p)
        assert got == canon(want), f"{case}\n{p}: spark {sorted(got, key=str)}\n rows {sorted(canon(want), key=str)}"
