"""``munion`` inside the relational rounds (connectors/spark_rounds/sets.py):
the engine's set term as its text, values sorted and printed as the
engine's ``format_term``, sets joined and compared by equality; against
the embedded engine on the same facts (a set compared as its text, as the
connectors give it), asserted to run in Spark tasks, and what is refused,
named (marked ``spark``)."""

from decimal import Decimal

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

from chronolog.engine.arrow import facts_to_arrow
from chronolog.language.text import format_term

from test_spark_rounds_functions import check, refused

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("rounds")]  # the rounds, not one task (conftest.py)

NO_KEY = "far(X, Z) :- owns(X, Y, P), owns(Y, Z, Q).\n"
SETS = NO_KEY + """
names(C, S) :- owns(I, C, P), S = munion(I).
stakes(C, S) :- owns(I, C, P), S = munion(P).
each(C, S) :- owns(I, C, P), S = munion(P, <I>).
twins(C, D) :- stakes(C, S), stakes(D, T), S == T, C != D.
apart(C, D) :- names(C, S), names(D, T), S != T, C < D.
shared(C, D) :- names(C, S), names(D, S), C != D.
@output("names"). @output("stakes"). @output("each"). @output("twins"). @output("apart"). @output("shared").
"""
OUTPUTS = ["names", "stakes", "each", "twins", "apart", "shared"]


def owns(rows, ptype=None):
    return facts_to_arrow(rows, ["i", "c", "p"]) if ptype is None else pa.table(
        {"i": [r[0][0] for r in rows], "c": [r[0][1] for r in rows], "p": pa.array([r[0][2] for r in rows], ptype),
         "start": [r[1][0] for r in rows], "end": [r[1][1] for r in rows]})


ROWS = [(("a", "x", 1), (0, 4, True, False)), (("b", "x", 2), (2, 6, True, True)), (("c", "y", 2), (1, 3, True, True)),
        (("a c", "y", 5), (0, 9, True, True)), (('q"\\', "x", -1), (3, 5, False, True)), (("not", "y", 7), (0, 2, True, True)),
        (("nl\n", "x", 3), (4, 8, True, True)), (("Ab", "z", 3), (0, 9, True, True)), (("é", "z", 4), (0, 9, True, True)),
        (("tab\t\u2028", "w", 1), (2, 6, True, True)), (("b", "w", 2), (2, 6, True, True)), (("inf", "v", 2), (0, 1, True, True)),
        (("a", "u", 9), (0, 4, True, True)), (("a", "t", 8), (1, 5, True, True))]


def test_sets_by_hand(spark):
    """Names printed bare or quoted as the engine prints them (a reserved
    word, a quote and a backslash escaped, line breaks as ``\\n``,
    ``\\u2028``, a name ending in a newline quoted), numbers sorted by
    value, booleans, contributors, and sets joined and compared by equality."""
    model = check(spark, SETS, {"owns": owns(ROWS)}, OUTPUTS)
    assert model.facts("twins") and model.facts("shared") and model.facts("apart")


def test_names_ending_in_line_breaks_are_quoted_as_the_engines(spark):
    """``"abc\\n"``, ``"abc\\r\\n"``, ``"a\\u2028"``: no bare names (Java's
    ``$``, as Python's, matches before a final line terminator; the whole
    text is matched, as the engine now does), each set one line of text."""
    names = ["abc\n", "abc\r\n", "a\u2028", "b\r", "abc", "x\x85", "y\n\n"]
    rows = [((n, "xyz"[i % 3], i), (i % 3, 5, True, True)) for i, n in enumerate(names)]
    model = check(spark, SETS, {"owns": owns(rows)}, OUTPUTS)
    texts = [format_term(t[1]) for t, _ in model.facts("names")]
    assert any('"abc\\n"' in x for x in texts) and not any("\n" in x or "\r" in x for x in texts), texts


@pytest.mark.slow  # (bash test.sh --thorough)
def test_sets_of_decimals_print_as_the_engine(spark):
    """In a run of decimals, ``2.50`` prints ``2.5`` and ``3.00`` ``3``."""
    rows = [((r[0][0], r[0][1], Decimal(r[0][2]) / 4), r[1]) for r in ROWS]
    check(spark, SETS, {"owns": owns(rows, pa.decimal128(8, 2))}, OUTPUTS)


@pytest.mark.slow  # (bash test.sh --thorough)
def test_sets_of_booleans(spark):
    """``#F`` sorts before ``#T``, as the engine's sets."""
    rows = [((r[0][0], r[0][1], r[0][2] > 2), r[1]) for r in ROWS]
    check(spark, SETS, {"owns": owns(rows, pa.bool_())}, OUTPUTS)


def test_a_union_in_a_recursion(spark):
    """``munion`` over a recursive relation, and inside the recursion
    (companies with equal pools share links): the engine's sets as they
    accumulate."""
    prog = NO_KEY + """
    reach(C, D) :- owns(I, C, P), owns(I, D, Q).
    reach(C, E) :- reach(C, D), reach(D, E).
    from(C, S) :- reach(C, D), S = munion(D).
    link(C, D) :- owns(I, C, P), owns(J, D, P), C != D.
    pool(C, S) :- link(C, D), S = munion(D).
    link(C, E) :- pool(C, S), pool(D, S), link(D, E).
    @output("from"). @output("pool"). @output("link").
    """
    check(spark, prog, {"owns": owns(ROWS)}, ["from", "pool", "link"])


def test_sets_of_floats(spark):
    """A set of floats is the engine's text of it (Python's float repr, not Java's)."""
    prog = NO_KEY + "t(C, S) :- owns(I, C, P), F = float(P) * 1e10 / 3, S = munion(F).\n@output(\"t\").\n"
    check(spark, prog, {"owns": owns(ROWS)}, ["t"])


@pytest.mark.parametrize("rule, why", [
    ("t(C, D) :- s(C, S), s(D, T), S < T.\ns(C, S) :- owns(I, C, P), S = munion(P).", "the comparison S < T of set with set terms"),
    ("t(C, U) :- s(C, S), U = munion(S).\ns(C, S) :- owns(I, C, P), S = munion(P).", "aggregation: munion of set terms"),
])
def test_refused_sets_are_named(spark, rule, why):
    """What the engine's sets do that a text cannot: fall back naming why."""
    refused(spark, NO_KEY + rule + '\n@output("t").\n', {"owns": owns(ROWS)}, ["t"], why)


@settings(max_examples=examples(5), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.text(st.sampled_from('ab Z_"\\\n\té9-'), max_size=4), st.sampled_from("xyz"), st.integers(-3, 3),
                          st.integers(0, 6), st.integers(0, 4)), min_size=1, max_size=10))
def test_random_sets(spark, rows):
    """Random names (bare, quoted, escaped, empty) and numbers: the sets,
    their joins and comparisons are the engine's."""
    check(spark, SETS, {"owns": owns([((i, c, p), (s, s + n, True, True)) for i, c, p, s, n in rows])}, OUTPUTS)
