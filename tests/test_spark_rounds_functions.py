"""String functions and floats computed in rules inside the relational
rounds (connectors/spark_rounds/functions.py), against the embedded engine
on the same facts, asserted to run in Spark tasks (no DriverFallback), and
what they refuse, each named (marked ``spark``).

Answers are compared with the kind of each number: a float ``2.0`` and
the exact ``2`` are equal in Python but not the same answer."""

import math
from datetime import datetime
import re
import sys
import warnings
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.engine.arrow import facts_to_arrow, table_to_rows

from folded import fold
from test_spark_rounds import canon, cs

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("rounds")]  # the rounds, not one task (conftest.py)

# a rule joining facts of different keys: the program runs as rounds
NO_KEY = "pair(X, Z) :- w(X, A), w(Z, B), X != Z.\n"


def typed(facts):
    """``canon`` with each term's kind beside it (float, exact, other; a
    set of munion as its text, as the connectors give it)."""
    from chronolog.language.text import format_term

    def kind(v):
        if type(v) is tuple:
            return "str", format_term(v)
        return "float" if type(v) is float else "exact" if type(v) in (int, Fraction) else type(v).__name__, v

    return {(tuple(kind(v) for v in terms), iv) for terms, iv in canon(facts)}


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


def check_folded(spark, cases: dict, again=None) -> dict:
    """:func:`check` of several cases, ``{name: (program, tables, outputs)}``,
    in ONE Spark call (tests/folded.py): the rounds ran, and each case's
    answers are the engine's for that case alone, a difference named by its
    case; returns the engine's model of each.  ``again``: the stops the
    rounds ran again after (``stats["ran_again"]``), when given."""
    models = {name: chronolog.reason(prog, {p: table_to_rows(t, p) for p, t in tables.items()})
              for name, (prog, tables, _) in cases.items()}
    folded = fold(cases.values())
    stats, got, falls = run(spark, folded.program, folded.tables, folded.outputs)
    assert not falls and stats.get("path") == "relational", falls
    for (name, (_, _, outputs)), answers in zip(cases.items(), folded.split(got)):
        for p in outputs:
            assert answers[p] == typed(models[name].facts(p)), (name, p)
    assert again is None or stats.get("ran_again", []) == again, stats.get("ran_again")
    return models


def refused(spark, program, tables: dict, outputs, why: str):
    """The rounds refuse ``program`` naming ``why`` in the fallback's
    warning, and the answers are the engine's."""
    rows = {p: table_to_rows(t, p) for p, t in tables.items()}
    try:
        model = chronolog.reason(program, rows)
    except chronolog.ChronologError as e:
        with pytest.warns(cs().DriverFallback, match=re.escape(why)):
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


def test_upper_beyond_the_safe_letters_runs_the_engines_mapping(spark):
    """ﬁ (U+FB01) and an astral letter: Spark's mapping may be another
    Unicode version's; those rows are mapped by the engine's own upper
    and lower in a UDF (udfs.py), in the rounds."""
    cases = {s: (CASES, {"w": words([((1, "abc"), (0, 4, True, False)), ((2, s), (2, 6, True, True))])}, ["up", "same"])
             for s in ("ﬁx", "𐐨", "ƛა")}
    check_folded(spark, cases)


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
one(X) :- f(X, 1, G, H, R).
tenth(X) :- f(Y, F, G, H, R), f(X, 0.1, G2, H2, R2).
@output("f"). @output("g"). @output("h"). @output("z"). @output("one"). @output("tenth").
"""
FLOAT_OUTPUTS = ["f", "g", "h", "z", "one", "tenth"]


def test_floats_by_hand(spark):
    """Floats out as doubles, a float result in a decimal run still a float;
    a comparison with the exact constant 0.1 (no float equals it), an atom
    with the constants 1 (3 / 3 is the float 1.0) and 0.1 (none) on a
    column of floats; -0.0 as 0.0; floor and round of floats exact
    integers."""
    rows = [((1, 3), (0, 4, True, False)), ((2, -6), (2, 6, True, True)), ((3, 2), (1, 3, True, True)),
            ((4, Fraction(3, 10)), (0, 9, True, True)), ((5, 1234567), (0, 2, False, True))]
    check(spark, FLOATS, {"w": facts_to_arrow(rows, ["k", "a"])}, FLOAT_OUTPUTS)


def agree(spark, program, tables: dict, outputs, stops=()):
    """The engine's answers or its error, from ``distributed=True``: in the
    rounds, or in one task after a row stopped them for one of ``stops``
    (the reasons a random row may meet); returns the path taken."""
    rows = {p: table_to_rows(t, p) for p, t in tables.items()}
    try:
        model = chronolog.reason(program, rows)
    except chronolog.ChronologError as e:  # a row's error: the rounds stop, the engine reports it
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", cs().DriverFallback)
            with pytest.raises(type(e)):
                cs().reason(spark, program, inputs=tables, distributed=True, outputs=outputs)
        return "error"
    stats, got, falls = run(spark, program, tables, outputs)
    if falls:
        assert any(s in falls[0] for s in stops), falls
    for p in outputs:
        assert got[p] == typed(model.facts(p)), p
    return stats.get("path")


def agree_all(spark, program, cases: list, outputs, stops=()) -> list:
    """:func:`agree` of ``program`` on each of ``cases`` (its tables),
    those of one schema (so one number type) in ONE Spark call
    (tests/folded.py), each case's answers compared with the engine's for
    that case alone; alone as :func:`agree` runs them: a case the engine
    refuses (its error would stop the others), and every case of a folded
    call that a row stopped.  Returns each case's path."""
    paths, models, groups = [None] * len(cases), {}, {}
    for i, tables in enumerate(cases):
        try:
            models[i] = chronolog.reason(program, {p: table_to_rows(t, p) for p, t in tables.items()})
        except chronolog.ChronologError:
            paths[i] = agree(spark, program, tables, outputs, stops)
            continue
        groups.setdefault(tuple((p, str(t.schema)) for p, t in sorted(tables.items())), []).append(i)
    for group in groups.values():
        if len(group) > 1:
            folded = fold([(program, cases[i], outputs) for i in group])
            stats, got, falls = run(spark, folded.program, folded.tables, folded.outputs)
            if not falls:
                for i, answers in zip(group, folded.split(got)):
                    for p in outputs:
                        assert answers[p] == typed(models[i].facts(p)), (f"case {i}", p, cases[i])
                    paths[i] = stats.get("path")
                continue
        for i in group:  # alone (or a row stopped the folded run: each case on its own path)
            paths[i] = agree(spark, program, cases[i], outputs, stops)
    return paths


WEIRD = ["", "ß", "İ", "ﬁ", "e\u0301", "😀", "ΟΔΟΣ", "a\x00b", "\U0010ffff", "ǅ", "ς"]
texts = st.one_of(st.sampled_from(WEIRD), st.text(st.characters(blacklist_categories=("Cs",)), max_size=6),
                  st.lists(st.sampled_from(WEIRD), max_size=3).map("".join))


@st.composite
def string_facts(draw):
    n = draw(st.integers(1, 5))
    return [((k, draw(texts), draw(st.integers(-8, 8))), (draw(st.integers(0, 2)), draw(st.integers(3, 6)), True, False))
            for k in range(n)]


SLICES = NO_KEY.replace("w(X, A), w(Z, B)", "w(X, A, P), w(Z, B, Q)") + """
cut(X, A, B, C) :- w(X, S, P), A = substr(S, P), B = substr(S, P, 3 - P), C = substr(S, 0 - P, P).
len(X, N, M) :- w(X, S, P), N = strlen(S), M = strlen(S + S).
glue(X, Y, G) :- w(X, S, P), w(Y, T, Q), X != Y, G = concat(S, P, T).
least(X, M, N) :- w(X, S, P), w(Y, T, Q), M = min(S, T), N = max(T, S), S < T.
@output("cut"). @output("len"). @output("glue"). @output("least").
"""


@settings(max_examples=examples(12), deadline=None, suppress_health_check=list(HealthCheck))
@given(string_facts())
def test_random_strings_equal_the_engine(spark, rows):
    """Random text of all of Unicode (astral characters, combining marks,
    NUL, ß, İ, ﬁ, empty strings) through strlen, substr at random positions
    (negative ones, past the end), concat with numbers, + and min/max."""
    assert agree(spark, SLICES, {"w": words(rows, ("k", "s", "p"))}, ["cut", "len", "glue", "least"]) == "relational"


def case_sql(spark, name):
    """Functions.case's SQL over a column ``s``, in a run of 64-bit numbers."""
    from pyspark.sql import types as T

    from chronolog.connectors.spark_rounds.arithmetic import Arithmetic
    from chronolog.connectors.spark_rounds.terms import TermTypes

    return Arithmetic(TermTypes({}, T.LongType()), spark).functions.case(name, "s")


def test_case_mapping_equals_python_on_every_safe_code_point(spark):
    """Every code point of CASE_RANGES alone, and random strings of them
    (final sigmas beside apostrophes and accents), upper and lower: Spark's
    guarded mapping is Python's."""
    import random

    from chronolog.engine.string_functions import CASE_RANGES

    points = [chr(c) for lo, hi in CASE_RANGES for c in range(lo, hi + 1)]
    rnd = random.Random(7)
    extra = ["Σ", "'", "\u0301", " ", "Α", "."]
    strs = points + ["".join(rnd.choice(points + extra * 20) for _ in range(rnd.randint(0, 8))) for _ in range(20000)]
    df = spark.createDataFrame([(s,) for s in strs], "s string")
    got = df.selectExpr("s", f"{case_sql(spark, 'upper')} AS u", f"{case_sql(spark, 'lower')} AS l").collect()
    bad = [(r.s, r.u, r.l) for r in got if r.u != r.s.upper() or r.l != r.s.lower()]
    assert not bad, bad[:10]


def test_case_mapping_beyond_the_safe_code_points_is_pythons(spark):
    """Letters whose mapping differs between Unicode versions (ƛ got an
    upper case in Unicode 16, ა in 11) or that lie beyond the ranges are
    mapped by Python (the engine's own function in a UDF), whatever this
    Spark does with them (each letter in a row of its own, one query)."""
    strs = [x for s in ("ﬁ", "𐐨", "ƛ", "ა", "Ⱥ", "\u1c89") for x in ("a" + s, "b")]
    df = spark.createDataFrame([(x,) for x in strs], "s string")
    got = df.selectExpr("s", f"{case_sql(spark, 'upper')} AS u", f"{case_sql(spark, 'lower')} AS l").collect()
    assert sorted(r.s for r in got) == sorted(strs)
    for r in got:
        assert (r.u, r.l) == (r.s.upper(), r.s.lower()), r.s


@settings(max_examples=examples(10), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.text(st.sampled_from("aZßİıσςΣΟΔ' \u0301ŉĳſµÿПрёЁ"), max_size=7), min_size=1, max_size=4))
def test_random_case_mapping_in_the_rounds(spark, strs):
    rows = [((k, s), (k, k + 3, True, False)) for k, s in enumerate(strs)]
    assert agree(spark, CASES, {"w": words(rows)}, ["up", "same"]) == "relational"


numbers = st.one_of(st.integers(-5, 5), st.integers(-(2**62), 2**62), st.sampled_from([0, 1, -1, 2**53 + 1, 10**18]),
                    st.integers(-10**6, 10**6).map(lambda n: Fraction(n, 100)))
FLOAT_STOPS = ("exact square", "beyond 64-bit", "NaN or infinite", "needs more digits", "overflows")

ROUNDED = NO_KEY.replace("w(X, A), w(Z, B)", "w(X, A, B), w(Z, C, D)") + """
f(X, F, G, H) :- w(X, A, B), F = float(A), G = F / B, H = float(B) * F - A.
g(X, R, S, T, M) :- w(X, A, B), f(X, F, G, H), R = sqrt(abs(G)), S = floor(H), T = round(G), M = mod(F, B).
c(X, Y) :- f(X, F, G, H), f(Y, F2, G2, H2), X != Y, G < G2, F >= 0.25, H != 3.
@output("f"). @output("g"). @output("c").
"""


@st.composite
def number_facts(draw):
    n = draw(st.integers(1, 4))
    return [((k, draw(numbers), draw(numbers)), (draw(st.integers(0, 3)), draw(st.integers(3, 6)), True, True)) for k in range(n)]


@settings(max_examples=examples(5), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(number_facts(), min_size=3, max_size=3))
def test_random_floats_equal_the_engine(spark, cases):
    """Floats from random integers (zero, negative, beyond 2^53 and up to
    2^62) and decimals: division (by zero: the engine's error), products,
    sqrt, floor, round, mod, comparisons with floats and with exact
    constants; the run stops only for the named reasons (three cases an
    example, folded where they can be: agree_all)."""
    agree_all(spark, ROUNDED, [{"w": facts_to_arrow(rows, ["k", "a", "b"])} for rows in cases], ["f", "g", "c"], FLOAT_STOPS)


def test_floats_and_strings_in_a_recursion(spark):
    """A path's text grows by concatenation, its length by floats, round
    after round, until strlen stops it."""
    prog = """
    path(X, Y, P, D) :- e(X, Y, W), P = concat(X, ">", Y), D = sqrt(float(W)).
    path(X, Z, Q, L) :- path(X, Y, P, D), e(Y, Z, W), strlen(P) < 12, Q = P + ">" + Z, L = D + sqrt(float(W)) / 2.
    far(X, Z, D) :- path(X, Z, P, D), D > 2.5, upper(P) != P.
    @output("path"). @output("far").
    """
    rows = [(("a", "b", 2), (0, 9, True, True)), (("b", "c", 3), (1, 8, True, True)), (("c", "a", 5), (2, 7, True, False)),
            (("c", "d", 7), (0, 5, True, True))]
    check(spark, prog, {"e": facts_to_arrow(rows, ["x", "y", "w"])}, ["path", "far"])


INTS = [((1, 4), (0, 4, True, False)), ((2, -3), (2, 6, True, True)), ((3, 0), (1, 3, True, True))]


# the engine's own functions in UDFs (udfs.py)
PAIRS = NO_KEY.replace("w(X, A), w(Z, B)", "w(X, A, B), w(Z, C, D)")
ENGINE_FUNCTIONS = PAIRS + """
f(X, F) :- w(X, A, B), F = float(A) / B.
e(X, E, L, M) :- f(X, F), w(X, A, B), E = exp(F), A > 0, L = log(A), M = log(F * F + 1).
r(X, R1, R2, R3, R4, R5, R6, R7, R8, R9) :- f(X, F), R1 = round(F, -3), R2 = round(F, -2), R3 = round(F, -1), R4 = round(F, 1),
    R5 = round(F, 2), R6 = round(F, 3), R7 = round(F, 4), R8 = round(F, 5), R9 = round(F, 0).
c(X, S) :- f(X, F), w(X, A, B), S = concat("f=", F, "/", A, #T, F * 10000000000, ";", F / 10000000, ";", float(A) * 0).
up(X, U) :- c(X, S), U = upper(S + "ﬁ").
less(X, Y) :- f(X, F), f(Y, G), X != Y, exp(F) < G + 1.
rr(Y, L) :- f(Y, G), L = round(G, 1).
j(X, Y) :- f(X, F), L = round(F, 1), rr(Y, L), X != Y.
@output("e"). @output("r"). @output("c"). @output("up"). @output("less"). @output("j").
"""
ENGINE_OUTPUTS = ["e", "r", "c", "up", "less", "j"]


def test_engine_functions_by_hand(spark):
    """exp, log, round to digits (2.675 is below 2.675: 2.67), concat of
    floats (1e10, 1e-07, 0.0 of -0.0), upper of a string beyond the safe
    letters: the engine's values in the rounds; a comparison on a UDF's
    value across two atoms and a join on a value a UDF computed."""
    rows = [((1, 3, 7), (0, 4, True, False)), ((2, -6, 4), (2, 6, True, True)), ((3, Fraction(2675, 1000), 1), (1, 3, True, True)),
            ((4, 1, 3), (0, 9, True, True)), ((5, Fraction(-15, 100), 2), (0, 2, False, True)), ((6, 4, 15), (1, 5, True, True))]
    model = check(spark, ENGINE_FUNCTIONS, {"w": facts_to_arrow(rows, ["k", "a", "b"])}, ENGINE_OUTPUTS)
    r = {t[0]: t[1:] for t, _ in canon(model.facts("r"))}
    assert r[3][4] == 2.67 and model.facts("j")  # (the join found pairs)
    c = {t[0]: t[1] for t, _ in canon(model.facts("c"))}
    f = 3 / 7
    assert c[1] == f"f={f!r}/3#T{f * 10000000000!r};{f / 10000000!r};0.0" and "E" not in c[1], c[1]  # Python's text, not Java's


def test_exact_of_floats_in_the_rounds(spark):
    """exact() of a float that fits the run's numbers: in the rounds (a
    64-bit run, a decimal run); exact() of an exact number is itself."""
    prog = PAIRS + "x(X, N, M) :- w(X, A, B), N = exact(float(A) * B), M = exact(A).\n@output(\"x\").\n"
    ints = [((1, 3, 4), (0, 4, True, False)), ((2, -6, 0), (2, 6, True, True)), ((3, 2**53 + 1, 1), (1, 3, True, True))]
    check(spark, prog, {"w": facts_to_arrow(ints, ["k", "a", "b"])}, ["x"])
    decimals = [((1, Fraction(1, 4), 2), (0, 4, True, False)), ((2, Fraction(-3, 4), 3), (2, 6, True, True))]
    check(spark, prog, {"w": facts_to_arrow(decimals, ["k", "a", "b"])}, ["x"])


@pytest.mark.parametrize("a, b, why", [(1, 10, "exact(0.1) = 0.1000000000000000055511151231257827021181583404541015625: beyond 64-bit"),
                                       (Fraction(-69077, 100), 1, "needs more digits than decimal(38,2)"),
                                       (Fraction(1, 10), 1, "needs more digits than decimal(38,1)")])
def test_exact_beyond_the_run_goes_to_one_task(spark, a, b, why):
    """exact() of 0.1 (55 decimals, above 1/10) or of a float near 1e-300
    (exp(-690.77)): no 64-bit integer or decimal(38) holds it; the row
    stops the rounds, one task answers."""
    f = "exp(float(A))" if a < -1 else "float(A) / B"
    prog = PAIRS + f"x(X) :- w(X, A, B), exact({f}) > A / B / 10, exact({f}) < 1.\n@output(\"x\").\n"  # (no column holds the value)
    refused(spark, prog, {"w": facts_to_arrow([((1, a, b), (0, 4, True, False))], ["k", "a", "b"])}, ["x"], why)


EDGES = [0, 1, -1, 2, 709, 710, -745, -746, 2**53 + 1, 2**62, Fraction(2675, 1000), Fraction(-1, 100), Fraction(1, 3 * 10**6)]
floaty = st.one_of(st.sampled_from(EDGES), st.integers(-800, 800), st.integers(-10**8, 10**8).map(lambda n: Fraction(n, 10**6)))


@st.composite
def float_facts(draw):
    n = draw(st.integers(1, 4))
    return [((k, draw(floaty), draw(st.sampled_from([1, 2, 3, -7, 1000, 3600]))), (draw(st.integers(0, 3)), draw(st.integers(3, 6)), True, True))
            for k in range(n)]


EXP_LOG = PAIRS + """
f(X, E, L, M) :- w(X, A, B), F = float(A) / B, E = exp(F), L = log(abs(F) + 0.5), M = exp(0 - abs(F) * B).
g(X, E, L) :- w(X, A, B), A > 0, A < 700, L = log(A), E = exp(A).
@output("f"). @output("g").
"""


@settings(max_examples=examples(5), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(float_facts(), min_size=3, max_size=3))
def test_random_exp_and_log_equal_the_engine(spark, cases):
    """exp and log of random floats and exact numbers (0, ±1, the edges of
    overflow at 709.78 and of underflow near -745, up to 2^62): the
    engine's bits in the rounds, or its error (exp overflows) reported
    (three cases an example, folded where they can be: agree_all)."""
    paths = agree_all(spark, EXP_LOG, [{"w": facts_to_arrow(rows, ["k", "a", "b"])} for rows in cases], ["f", "g"])
    assert all(p in ("relational", "error") for p in paths), paths


ROUND_DIGITS = PAIRS + "f(X, F) :- w(X, A, B), F = float(A) / B.\n" + "".join(
    f"r{i}(X, R) :- f(X, F), R = round(F, {d}).\n@output(\"r{i}\").\n" for i, d in enumerate(range(-3, 6)))


@settings(max_examples=examples(12), deadline=None, suppress_health_check=list(HealthCheck))
@given(float_facts())
def test_random_round_to_digits_equals_the_engine(spark, rows):
    """round(F, D) for D in -3..5 of random floats (2.675 among them):
    Python's rounding of the binary value, in the rounds."""
    outs = [f"r{i}" for i in range(9)]
    assert agree(spark, ROUND_DIGITS, {"w": facts_to_arrow(rows, ["k", "a", "b"])}, outs) == "relational"


CONCAT_EXACT = PAIRS + """
c(X, S) :- w(X, A, B), F = float(A) / B, S = concat(F, "|", F * 10000000000, "|", exp(0 - F * F), "|", A, "|", F / 10000000).
d(X, S) :- w(X, A, B), A >= 700, A <= 709, E = exp(float(A)) * 10, S = concat(E, "").
x(X) :- w(X, A, B), N = exact(float(A) * 2), N != A * 2.
y(X) :- w(X, A, B), exact(float(A) * B) != A * B.
@output("c"). @output("d"). @output("x"). @output("y").
"""


@settings(max_examples=examples(12), deadline=None, suppress_health_check=list(HealthCheck))
@given(float_facts())
def test_random_concat_and_exact_of_floats_equal_the_engine(spark, rows):
    """concat of floats (large, tiny, and exp(709) * 10: the engine keeps
    inf, the rounds stop) and exact of floats (stops beyond the run's
    numbers; compared, not output: no column of one task holds 55
    decimals either): the engine's answers, in the rounds or in one task
    for the named reasons."""
    agree(spark, CONCAT_EXACT, {"w": facts_to_arrow(rows, ["k", "a", "b"])}, ["c", "d", "x", "y"],
          ("NaN or infinite", "beyond 64-bit", "needs more digits", "overflows", "has more than"))


@pytest.mark.parametrize("rule, why", [
    ("t(X, Y) :- w(X, A), Y = exp(float(A) * 1000).", "exp(4000.0): exp(...) gives a value too large"),
    ("t(X, Y) :- w(X, A), A >= 0, Y = log(A).", "log(0): log() of a non-positive number 0"),
    ("t(X, Y) :- w(X, A), A != 0, Y = log(float(A)).", "log(-3.0): log() of a non-positive number -3.0"),
    ("t(X) :- w(X, A), exact(float(A) / 3) > 1.", "exact(1.3333333333333333) = 1.3333333333333332593184650249895639717578887939453125: beyond 64-bit integers"),
    ('t(X, Y) :- w(X, A), Y = round(float(A), A + 1).', "round() to digits other than a whole constant"),
    ('t(X, Y) :- w(X, A), A > 0, F = exp(float(A) + 705) * 10, Y = concat(F, "").', "NaN or infinite"),
    ("t(X, Y) :- w(X, A), Y = float(A) / 3, Y > A.", "the comparison of a float with the exact number A"),
    ("t(X, Y) :- w(X, A), Y = min(float(A), A).", "min() of floats and exact numbers"),
    ("t(X, Y) :- w(X, A), Y = sqrt(A * A).", "an exact square"),
    ("t(X, Y) :- w(X, A), Y = float(A) / A.", "division by zero"),
    ("t(X, Y) :- w(X, A), Y = sqrt(float(A)).", "of a negative number"),
    # (NaN or infinite from a SQL operation: the exp(...) * 10 case above; this deep product is refused for its size first)
    ("t(X, Y) :- w(X, A), F = float(A) * 1000000000000000000, G = F * F * F * F * F * F, Y = G * G * G.",
     "an expression whose Spark SQL grows to"),
    ("t(X, Y) :- w(X, A), Y = floor(float(A) * 1e30).", "beyond 64-bit integers"),
    ('t(X, Y) :- w(X, A), Y = substr("abc", A * 0.5).', "needs whole numbers"),
])
def test_refusals_are_named_and_one_task_answers(spark, rule, why):
    """What the rounds cannot run as the engine does falls back to one task
    (before any job, or when a row stops the run), naming why; the answers
    or the error are the engine's."""
    refused(spark, NO_KEY + rule + '\n@output("t").\n', {"w": facts_to_arrow(INTS, ["k", "a"])}, ["t"], why)


def test_floats_beside_the_integers_they_equal_run_in_rounds(spark):
    """``Y = float(A)`` beside ``t(X, Y) :- w(X, Y)``: argument 2 of t is
    term text of two kinds, each float written as the engine's key text
    (test_spark_rounds_term_text.py), so 4.0 and 4 are one fact, as in the
    engine's model; it went to one task. (The rounds print a number its key
    text, the engine the first of equal terms it met: compared by key.)"""
    from chronolog.engine.term_types import key_text

    program = NO_KEY + 't(X, Y) :- w(X, A), Y = float(A).\nt(X, Y) :- w(X, Y).\n@output("t").\n'
    tables = {"w": facts_to_arrow(INTS, ["k", "a"])}
    model = chronolog.reason(program, {p: table_to_rows(t, p) for p, t in tables.items()})
    stats = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", cs().DriverFallback)
        out = cs().reason(spark, program, inputs=tables, distributed=True, stats=stats, outputs=["t"])
    assert stats.get("path") == "relational", stats
    keyed = lambda facts: sorted((tuple(map(key_text, terms)), iv) for terms, iv in facts)  # noqa: E731
    assert keyed(table_to_rows(out["t"].toArrow(), "t")) == keyed(model.facts("t"))
    assert len(model.facts("t")) == len(INTS)  # (each float one fact with its integer)


def test_plan_names_the_new_functions_as_rounds():
    from chronolog.connectors.spark_rounds import describe
    from chronolog.planner import plan

    for rule in ('t(X, Y) :- w(X, A), Y = concat("x", A, upper("y")), strlen(Y) > 1.',
                 "t(X, Y) :- w(X, A), Y = sqrt(float(A) / 3) + mod(A, 2.5)."):
        assert describe(plan(chronolog.load_program(NO_KEY + rule))).startswith("seminaive rounds"), rule
    for rule in ("t(X, Y) :- w(X, A), Y = exp(A) + log(float(A)).", 't(X, Y) :- w(X, A), Y = concat(round(float(A), 2), exact(A)).'):
        assert describe(plan(chronolog.load_program(NO_KEY + rule))).startswith("seminaive rounds"), rule
    assert "recursion through time" in describe(plan(chronolog.load_program(NO_KEY + "t(X) :- <->[1,1] t(X), not w(X, 1).")))
    # (w's facts confine it: the rounds read them before their second round)
    assert describe(plan(chronolog.load_program(NO_KEY + "t(X) :- <->[1,1] t(X), w(X, A)."))).startswith("seminaive rounds")


LOCALE_PROBE = """
import os, sys
os.environ["PYSPARK_PYTHON"] = sys.executable
from pyspark.sql import SparkSession, types as T
from chronolog.connectors.spark_rounds.arithmetic import Arithmetic
from chronolog.connectors.spark_rounds.terms import TermTypes
spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
         .config("spark.driver.extraJavaOptions", "-Duser.language=" + sys.argv[1]).getOrCreate())
spark.sparkContext.setLogLevel("OFF")
f = Arithmetic(TermTypes({}, T.LongType()), spark).functions
df = spark.createDataFrame([("straße",), ("TITLE Iİ ié",)], "s string")
for name in ("upper", "lower"):
    try:
        got = [r.u for r in df.selectExpr(f.case(name, "s") + " AS u").collect()]
        print(name, got == [getattr(s, name)() for s in ("straße", "TITLE Iİ ié")], got)
    except Exception as e:
        print(name, "ERROR " + str(e)[:200])
spark.stop()
"""


@pytest.mark.slow  # (bash test.sh --thorough)
@pytest.mark.parametrize("lang", ["tr", "lt"])
def test_case_mapping_in_a_turkish_or_lithuanian_jvm_is_pythons(lang):
    """In a JVM whose default locale is Turkish (``i`` -> ``İ`` in any
    non-ASCII string) or Lithuanian, the row's probe hands upper and lower
    to the engine's mapping in a UDF (a JVM of its own: the locale is read
    when it starts)."""
    import subprocess

    pytest.importorskip("pyspark")
    out = subprocess.run([sys.executable, "-c", LOCALE_PROBE, lang], capture_output=True, text=True, timeout=300).stdout
    assert "upper True" in out and "lower True" in out, out


@pytest.mark.parametrize("c", [Fraction(1, 10), Fraction(1, 3), Fraction(1, 2), 3, 2**53 + 1, -(2**1100), 2**1100,
                               Fraction(1, 10**400), -Fraction(7, 10**320)])
def test_bracket_is_the_two_floats_around_an_exact_number(c):
    """What ``F op c`` of an exact constant compares with: every float
    between ``lo`` and ``hi`` is one of them, and the order is exact."""
    from chronolog.engine.float_arithmetic import bracket

    lo, hi = bracket(c)
    assert lo <= c <= hi and (lo == hi) == (not math.isinf(lo) and Fraction(lo) == c)
    assert math.nextafter(lo, math.inf) >= hi


ORDERED = """
pair(X, Z) :- w(X, A, B), w(Z, C, D), X != Z.
fmin(X, Z) :- w(X, A, B), Z = min(A, B).
fmax(X, Z) :- w(X, A, B), Z = max(A, B, A).
@output("fmin"). @output("fmax").
"""
AGGREGATES = """
v(X, A) :- w(X, A, B).
v(X, B) :- w(X, A, B).
fmin(X, Z) :- v(X, W), Z = min(W).
fmax(X, Z) :- v(X, W), Z = max(W).
"""
_instants = st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2100, 1, 1)).map(lambda t: t.replace(microsecond=0))
_dates = _instants.map(lambda t: t.replace(hour=0, minute=0, second=0))  # (a date's term: its midnight; a column of them: DATE)
ORDERED_KINDS = {
    "boolean": (st.booleans(), st.booleans()),
    "date": (_dates, _dates),
    "timestamp": (_instants, _instants),
    "date and timestamp": (_dates, _instants),
}


@settings(max_examples=examples(10), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_min_max_of_booleans_and_instants_in_the_rounds_are_the_aggregates(spark, data):
    """``min(A, B)``/``max(A, B)`` of booleans (#F before #T), dates and
    timestamps (a date at its midnight UTC) run in the rounds and give the
    embedded engine's aggregate ``min``/``max`` over ``{A, B}``."""
    cases = {}
    for kind, (a, b) in ORDERED_KINDS.items():
        rows = [((k, data.draw(a), data.draw(b)), (0, 4, True, False)) for k in range(4)]
        cases[kind] = facts_to_arrow(rows, ["k", "a", "b"])
    for kind, table in cases.items():
        oracle = chronolog.reason(AGGREGATES, {"w": table_to_rows(table, "w")})
        stats, got, falls = run(spark, ORDERED, {"w": table}, ["fmin", "fmax"])
        assert not falls and stats.get("path") == "relational", (kind, falls)
        for p in ("fmin", "fmax"):
            assert {(ts, iv) for ts, iv in got[p]} == typed(oracle.facts(p)), (kind, p)


def test_max_of_a_date_and_a_timestamp_in_the_rounds_is_an_instant(spark):
    """``max(A, B, A)`` of a DATE column and a timestamp column is an
    instant (a date at its midnight): the head's column holds instants,
    not numbers (Spark refused the statement that cast it to BIGINT)."""
    midnight, early = datetime(2000, 1, 1), datetime(1944, 6, 16, 0, 36, 20)
    rows = [((k, midnight, b), (0, 4, True, False)) for k, b in enumerate([midnight, early, midnight, datetime(2001, 3, 4, 5, 6, 7)])]
    table = facts_to_arrow(rows, ["k", "a", "b"])
    oracle = chronolog.reason(AGGREGATES, {"w": table_to_rows(table, "w")})
    stats, got, falls = run(spark, ORDERED, {"w": table}, ["fmin", "fmax"])
    assert not falls and stats.get("path") == "relational", falls
    assert got["fmax"] == typed(oracle.facts("fmax")) and got["fmin"] == typed(oracle.facts("fmin"))
    assert ((("exact", 3), ("datetime", datetime(2001, 3, 4, 5, 6, 7))), (0, 4, True, False)) in got["fmax"]


CONCAT_TEXT = NO_KEY + 'c(X, S) :- w(X, A), S = concat("<", A, ">").\n@output("c").\n'


def test_concat_of_whole_decimals_keeps_their_zeros(spark):
    """A DECIMAL(10, 0) column runs as decimal(38, 0): concat wrote 100 as
    "1" and 0 as "" (a decimal's trailing zeros were dropped with no point
    before them), a silent wrong answer; the engine writes 100 and 0."""
    from decimal import Decimal

    import pyarrow as pa

    t = pa.table({"k": [1, 2, 3, 4], "a": pa.array([Decimal(0), Decimal(100), Decimal(-10), Decimal(7)], pa.decimal128(10, 0)),
                  "start": [0] * 4, "end": [3] * 4})
    prog = NO_KEY + 'c(X, S) :- w(X, A), S = concat(A, "|", A * 10, "|", A / 4).\n@output("c").\n'
    model = check(spark, prog, {"w": t}, ["c"])
    assert {s for (_, s), _ in model.facts("c")} == {"0|0|0", "100|1000|25", "-10|-100|-2.5", "7|70|1.75"}


def test_concat_of_term_text_is_its_terms_text(spark):
    """concat of a column of term text (a fraction no decimal holds,
    1/3000000, beside integers past the run's, names, a boolean, instants):
    each term's text, which is its key text, in the rounds (they stopped:
    "not a number of the run", found by the fresh profile in the concat of
    test_random_concat_and_exact_of_floats_equal_the_engine); a quoted
    string's text is not its key text: the rounds stop, one task answers."""
    from chronolog.language.booleans import TRUE

    values = [Fraction(1, 3000000), 4611686018427387904, -746, Fraction(-3, 2), "abc", TRUE, datetime(2024, 1, 1),
              datetime(2024, 1, 1, 10, 0, 0, 500)]
    rows = [((k, v), (k, k + 2, True, True)) for k, v in enumerate(values)]
    model = check(spark, CONCAT_TEXT, {"w": facts_to_arrow(rows, ["k", "a"])}, ["c"])
    assert ((0, "<1/3000000>"), (0, 2, True, True)) in model.facts("c")
    rows.append(((9, "a b"), (0, 1, True, True)))
    assert agree(spark, CONCAT_TEXT, {"w": facts_to_arrow(rows, ["k", "a"])}, ["c"], ("on term text other than",)) == "one task"
