"""String functions and floats computed in rules inside the relational
rounds (connectors/spark_rounds/functions.py), against the embedded engine
on the same facts, asserted to run in Spark tasks (no DriverFallback), and
what they refuse, each named (marked ``spark``).

Answers are compared with the kind of each number: a float ``2.0`` and
the exact ``2`` are equal in Python but not the same answer."""

import math
import sys
import warnings
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import chronolog
from chronolog.connectors.arrow import facts_to_arrow, table_to_rows

from test_spark_rounds import canon, cs

pytestmark = pytest.mark.spark

# a rule joining facts of different keys: the program runs as rounds
NO_KEY = "pair(X, Z) :- w(X, A), w(Z, B), X != Z.\n"


def typed(facts):
    """``canon`` with each term's kind beside it (float, exact, other)."""
    def kind(v):
        return "float" if type(v) is float else "exact" if type(v) in (int, Fraction) else type(v).__name__

    return {(tuple((kind(v), v) for v in terms), iv) for terms, iv in canon(facts)}


def run(spark, program, tables: dict, outputs):
    """``(stats, {pred: typed facts})`` of the rounds (None for a fallback,
    with its warning's text)."""
    stats = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", cs().DriverFallback)
        out = cs().reason(spark, program, inputs=tables, distributed=True, stats=stats, outputs=outputs)
    falls = [str(w.message) for w in caught if issubclass(w.category, cs().DriverFallback)]
    return stats, {p: typed(table_to_rows(df.toArrow(), p)) for p, df in out.items()}, falls


def check(spark, program, tables: dict, outputs):
    """Run ``program`` both ways: the rounds ran (no fallback) and gave the
    engine's answers, kinds of numbers included; return the engine's model."""
    rows = {p: table_to_rows(t, p) for p, t in tables.items()}
    model = chronolog.reason(program, rows)
    stats, got, falls = run(spark, program, tables, outputs)
    assert not falls and stats.get("path") == "relational", falls
    for p in outputs:
        assert got[p] == typed(model.facts(p)), p
    return model


def refused(spark, program, tables: dict, outputs, why: str):
    """The rounds refuse ``program`` naming ``why`` in the fallback's
    warning, and the driver's answers are the engine's."""
    rows = {p: table_to_rows(t, p) for p, t in tables.items()}
    try:
        model = chronolog.reason(program, rows)
    except chronolog.ChronologError as e:
        with pytest.warns(cs().DriverFallback, match=why):
            with pytest.raises(type(e)):
                cs().reason(spark, program, inputs=tables, distributed=True, outputs=outputs)
        return
    stats, got, falls = run(spark, program, tables, outputs)
    assert stats.get("path") != "relational" and falls and why in falls[0], falls
    for p in outputs:
        assert got[p] == typed(model.facts(p)), p


def words(rows, names=("k", "s")):
    return facts_to_arrow(rows, list(names))


STRINGS = NO_KEY + """
len(X, N) :- w(X, S), N = strlen(S).
cut(X, A, B, C, D) :- w(X, S), A = substr(S, 1), B = substr(S, -2), C = substr(S, 1, 2), D = substr(S, -3, 2).
glue(X, Y, G, H) :- w(X, S), w(Y, T), X < Y, G = concat(S, "|", T, X, #T), H = S + T.
least(X, M, N) :- w(X, S), w(Y, T), M = min(S, T), N = max(S, T, "m").
long(X) :- w(X, S), strlen(S) > 2, S != "ΟΔΟΣ".
@output("len"). @output("cut"). @output("glue"). @output("least"). @output("long").
"""
STRING_OUTPUTS = ["len", "cut", "glue", "least", "long"]
CASES = NO_KEY + """
up(X, U, L) :- w(X, S), U = upper(S), L = lower(S).
same(X) :- w(X, S), upper(S) == S, lower(S) != S.
@output("up"). @output("same").
"""


def test_string_functions_by_hand(spark):
    """Code points, not UTF-16 units or bytes (an astral character is one,
    a combining accent another); Python's slices (negative positions from
    the end, clamped, an empty cut); numbers and booleans in their printed
    form."""
    rows = [((1, "straße"), (0, 4, True, False)), ((2, "ΟΔΟΣ"), (2, 6, True, True)), ((3, "a😀b"), (1, 3, True, True)),
            ((4, ""), (0, 9, True, True)), ((5, "ﬁİx"), (0, 2, False, True)), ((6, "e\u0301t\u00e9"), (3, 5, True, True))]
    model = check(spark, STRINGS, {"w": words(rows)}, STRING_OUTPUTS)
    assert ((1, 6), (0, 4, True, False)) in {(t, iv) for t, iv in canon(model.facts("len"))}
    assert ((3, 3), (1, 3, True, True)) in canon(model.facts("len"))  # 😀 is one character


def test_upper_and_lower_by_hand(spark):
    """Python's case mapping: ß -> SS, İ -> i̇, ŉ -> ʼN, a final sigma
    (also before an apostrophe), accents decomposed or not."""
    rows = [((1, "straße"), (0, 4, True, False)), ((2, "ΟΔΟΣ ΟΔΟΣ'"), (2, 6, True, True)), ((3, "İstanbul ŉ"), (1, 3, True, True)),
            ((4, ""), (0, 9, True, True)), ((5, "ПРИВЕТ ёж"), (0, 2, False, True)), ((6, "E\u0301T\u00e9 ſ µ ÿ"), (3, 5, True, True))]
    check(spark, CASES, {"w": words(rows)}, ["up", "same"])


def test_upper_beyond_the_safe_letters_goes_to_the_driver(spark):
    """ﬁ (U+FB01) and an astral letter: Spark's mapping may be another
    Unicode version's; the run stops there, the driver answers."""
    for s in ("ﬁx", "𐐨"):
        rows = [((1, "abc"), (0, 4, True, False)), ((2, s), (2, 6, True, True))]
        refused(spark, CASES, {"w": words(rows)}, ["up", "same"], "upper(S) of a string beyond Latin")


def test_string_functions_on_decimal_numbers(spark):
    """A decimal run: positions are decimals that must be whole, and
    ``concat`` prints 2.50 as 2.5 and 3.00 as 3, as the engine."""
    rows = [(("a", "hello", Fraction(5, 2)), (0, 4, True, False)), (("b", "wörld", 3), (2, 6, True, True)),
            (("c", "", Fraction(-1, 20)), (0, 1, True, True))]
    prog = NO_KEY.replace("w(X, A), w(Z, B)", "w(X, A, P), w(Z, B, Q)") + """
    t(X, T, U) :- w(X, S, P), T = concat(S, P, "/", P * 2), Q = floor(P), U = substr(S, Q, 2).
    @output("t").
    """
    check(spark, prog, {"w": words(rows, ("k", "s", "p"))}, ["t"])


FLOATS = NO_KEY + """
f(X, F, G, H, R) :- w(X, A), F = float(A) / 3, G = F * F - 1, H = sqrt(abs(F)), R = A + F.
g(X, M, N, P, Q) :- f(X, F, G, H, R), M = floor(G), N = round(F * 7), P = mod(F * 10, 3), Q = mod(0 - R, 0.5 * F).
h(X, K) :- f(X, F, G, H, R), K = max(F, G, H), F > 0.1, G <= 3, H != 1.
z(X, Z) :- w(X, A), Z = float(A) * 0, A != 0.
r(X, S) :- w(X, A), A > 0, S = sqrt(A).
@output("f"). @output("g"). @output("h"). @output("z").
"""
FLOAT_OUTPUTS = ["f", "g", "h", "z"]


def test_floats_by_hand(spark):
    """Floats out as doubles, a float result in a decimal run still a float;
    a comparison with the exact constant 0.1 (no float equals it); -0.0 as
    0.0; floor and round of floats exact integers."""
    rows = [((1, 3), (0, 4, True, False)), ((2, -6), (2, 6, True, True)), ((3, 2), (1, 3, True, True)),
            ((4, Fraction(3, 10)), (0, 9, True, True)), ((5, 1234567), (0, 2, False, True))]
    check(spark, FLOATS, {"w": facts_to_arrow(rows, ["k", "a"])}, FLOAT_OUTPUTS)
