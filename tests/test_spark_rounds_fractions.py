"""Exact fractions in Spark's relational rounds (issue 36), on real Spark
against the embedded engine on the same facts (``chronolog.reason``, the
oracle), each asserted to run in the rounds (no fall back to one task).

The engine's numbers are exact: ``avg`` of 1 and 2 is 3/2, of 0, 0 and 1
is 1/3.  An average that a rule only writes into its head is term text
(its exact value's key text, connectors/spark_rounds/fractions.py), which
the run's one number type (64-bit integers, ``decimal(38, S)``) need not
hold: the rule runs in the rounds, and so do the rules that join, order
or compute on the mean."""

from decimal import Decimal
from fractions import Fraction

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from budget import examples

from test_spark_rounds import check
from test_spark_rounds_functions import check as check_typed

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("rounds")]  # the rounds, not one task (conftest.py)

NO_KEY = "far(X, Z) :- owns(X, Y, P), owns(Y, Z, Q).\n"  # (no partition key: the rounds, not per-key tasks)
MEANS = NO_KEY + """
mean(C, A) :- owns(I, C, P), A = avg(P).
twice(C, A, A) :- owns(I, C, P), A = avg(P).
above(C) :- mean(C, A), A > 1.
same(C, D) :- mean(C, A), mean(D, A), C != D.
@output("mean"). @output("twice"). @output("above"). @output("same").
"""


def owns(rows, decimals=False):
    """``owns(I, C, P)`` from ``(i, c, p, start, end)``: integers, or decimal(10, 2)."""
    p = [Decimal(r[2]) / 4 if decimals else r[2] for r in rows]
    return pa.table({"i": [r[0] for r in rows], "c": [r[1] for r in rows],
                     "p": pa.array(p, pa.decimal128(10, 2) if decimals else pa.int64()),
                     "start": [r[3] for r in rows], "end": [r[4] for r in rows]})


def test_integer_means_are_the_engines_fractions(spark):
    """1 and 2: 3/2, written 1.5; 0, 0 and 1: 1/3; -1 and -2 beside 0:
    -1; 7 alone: 7; and, as segments change, 2/3 and -1/2: the engine's
    exact numbers, and ``above`` and ``same`` order and join them."""
    rows = [("i", "a", 1, 0, 4), ("j", "a", 2, 0, 6), ("i", "b", 0, 0, 5), ("j", "b", 0, 0, 5), ("k", "b", 1, 0, 9),
            ("i", "c", -1, 0, 3), ("j", "c", -2, 2, 3), ("k", "c", 0, 1, 8), ("l", "d", 7, 0, 2), ("m", "e", 3, 4, 9)]
    stats, model = check(spark, MEANS, {"owns": owns(rows)})
    mean = {(t, iv) for t, iv in model.facts("mean")}
    assert (("a", Fraction(3, 2)), (0, 4, True, True)) in mean and (("b", Fraction(1, 3)), (0, 5, True, True)) in mean


def test_decimal_means_are_the_engines_fractions(spark):
    """decimal(38, 2) runs: 0.25 and 0.5 give 0.375 (three decimals),
    0.25, 0.25 and 0.5 give 1/3."""
    rows = [("i", "a", 1, 0, 4), ("j", "a", 2, 0, 6), ("i", "b", 1, 0, 5), ("j", "b", 1, 0, 5), ("k", "b", 2, 0, 9)]
    check(spark, MEANS, {"owns": owns(rows, decimals=True)})


def test_kinds_of_means_are_the_engines(spark):
    """The mean read back as an exact number (never a float), whole or not."""
    rows = [("i", "a", 1, 0, 4), ("j", "a", 2, 0, 6), ("k", "b", 4, 0, 2)]
    check_typed(spark, NO_KEY + 'mean(C, A) :- owns(I, C, P), A = avg(P).\n@output("mean").', {"owns": owns(rows)}, ["mean"])


@settings(max_examples=examples(20), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from("ijkl"), st.sampled_from("ab"), st.integers(-9, 9), st.integers(0, 6), st.integers(0, 3)),
                min_size=1, max_size=10), st.booleans())
@example(rows=[("i", "a", 0, 0, 0), ("j", "a", 1, 0, 0), ("k", "a", -2, 0, 0)], decimals=False)  # -1/3
def test_random_means_are_the_engines(spark, rows, decimals):
    """Any means of integers or decimals, with the rules that order and
    join them: the engine's exact numbers, in the rounds."""
    check(spark, MEANS, {"owns": owns([(i, c, p, s, s + n) for i, c, p, s, n in rows], decimals)})


# ------------------------------------------------------------------ program facts of fractions

FACTS = NO_KEY + """
same(K, L) :- v(K, X), v(L, X), K != L.
less(K, L) :- v(K, X), v(L, Y), X < Y.
both(K, X) :- v(K, X), owns(I, K, X).
@output("same"). @output("less"). @output("both").
"""


def test_program_facts_of_fractions_and_long_numbers_run_in_the_rounds(spark):
    """``1/3`` has no finite decimal and a 40-digit number no place in
    ``decimal(38, S)``: a program fact's argument holding one is term text,
    each fact's key text (2/6 is 1/3), joined with an input's integers
    keyed at the load, and ordered in the engine's order of numbers."""
    big = "1234567890123456789012345678901234567890"
    facts = ("v(a, 1/3)@[0,5]. v(b, 2)@[0,5]. v(c, 0.5)@[0,5]. v(e, 2/6)@[1,3]. "
             f"v(d, {big})@[0,5]. w(d, {big})@[0,5].\n")
    prog = facts + FACTS.replace("X < Y.", "K != d, L != d, X < Y.") + 'big(K) :- v(K, X), w(L, X).\n@output("big").\n'
    rows = [("i", "a", 1, 0, 4), ("j", "b", 2, 0, 6), ("k", "c", 3, 0, 5)]
    check(spark, prog, {"owns": owns(rows)})


@settings(max_examples=examples(10), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from("abcd"), st.integers(-6, 6), st.integers(1, 7), st.integers(0, 4), st.integers(0, 3)),
                min_size=1, max_size=6))
@example(facts=[("a", 1, 3, 0, 2), ("b", 2, 6, 1, 3), ("c", 3, 2, 0, 4)])  # 1/3 = 2/6, beside 1.5
def test_random_program_facts_of_fractions_are_the_engines(spark, facts):
    """Program facts ``v(K, p/q)`` (1/3, 3/2, 2/6 = 1/3, -4/2 = -2):
    joined, ordered and matched with an input's integers as the engine does."""
    text = "".join(f"v({k}, {p}/{q})@[{s},{s + n}]. " for k, p, q, s, n in facts)
    rows = [("i", "a", 1, 0, 4), ("j", "b", -2, 0, 6), ("k", "c", 0, 0, 5)]
    check(spark, text + "\n" + FACTS, {"owns": owns(rows)})
