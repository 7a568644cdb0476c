"""What an aggregate ranges over in the relational rounds beyond a body
variable (connectors/spark_rounds/aggregate.py): expressions
(``sum(P * Q)``), variables bound by an assignment before the aggregate
(groups, values, contributors), the least and greatest of strings, and
``round()`` (arithmetic.py), against the embedded engine on the same facts
and asserted to run in Spark tasks (no DriverFallback; marked ``spark``)."""

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

from chronolog.engine.arrow import facts_to_arrow

from test_spark_rounds import canon, drawn_interval
from test_spark_rounds import check as check_both

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("rounds")]  # the rounds, not one task (conftest.py)

# a rule joining facts of different keys: the program runs as rounds
NO_KEY = "far(X, Z) :- owns(X, Y, P), owns(Y, Z, Q).\n"


def check(spark, program, tables: dict, **kw):
    """Run ``program`` both ways; assert the rounds ran (no DriverFallback)
    and agree with the embedded engine; return the engine's model."""
    stats, model = check_both(spark, program, tables, **kw)
    assert stats is not None and stats["path"] == "relational"
    return model


def owns(rows):
    return facts_to_arrow(rows, ["i", "c", "p"])


EXPRESSIONS = NO_KEY + """
total(C, S) :- owns(I, C, P), S = sum(P * 2 - 1).
square(C, M, N) :- owns(I, C, P), M = max(P * P), N = min(0 - P).
cross(C, S) :- owns(I, C, P), owns(J, C, Q), I != J, S = sum(P * Q).
stake(C, S) :- owns(I, C, P), S = msum(abs(P) + 1, <I>).
% 2520 = lcm(1..9): the mean of at most nine facts is exact (an inexact avg runs in one task)
mean(C, A) :- owns(I, C, P), A = avg(P * 2520).
level(C, D, S) :- owns(I, C, P), D = mod(P, 3), S = sum(P).
copied(C, K, N) :- owns(I, C, P), K = I, N = mcount(<K>).
viaassign(C, M) :- owns(I, C, P), V = P * 3 + 1, M = mmax(V, <I>).
ten(C, R, N) :- owns(I, C, P), R = round(P, -1), N = count().
big(C, S) :- owns(I, C, P), S = sum(P + 1), S >= 5.
doubled(C, T, H) :- owns(I, C, P), S = sum(P), T = S * 2 - 1, H = S, S * 3 > 4.
@output("doubled"). @output("total"). @output("square"). @output("cross"). @output("stake"). @output("mean").
@output("level"). @output("copied"). @output("viaassign"). @output("ten"). @output("big").
"""


def test_expressions_and_assigned_groups_by_hand(spark):
    """Negative values (their squares tie), overlapping and touching
    intervals, a group by a computed remainder (``mod`` of a negative) and
    by a copied string, contributors with a computed value, round() to
    tens with ties (25 -> 20, 35 -> 40, -25 -> -20), and a group whose
    condition after the aggregate leaves it empty."""
    rows = [(("i", "a", -3), (0, 4, True, False)), (("j", "a", 3), (2, 6, True, True)), (("k", "a", 25), (4, 8, True, False)),
            (("i", "b", 35), (0, 2, True, True)), (("j", "b", -25), (2, 5, False, True)), (("k", "b", 0), (5, 9, True, True)),
            (("i", "c", -7), (1, 1, True, True))]
    model = check(spark, EXPRESSIONS, {"owns": owns(rows)})
    assert (("a", 9, -3), (2, 4, True, False)) in canon(model.facts("square"))  # (-3)^2 = 3^2; -3 the least of 3, -3
    assert {t for t, _ in model.facts("ten") if t[0] == "b"} >= {("b", 40, 1), ("b", -20, 1), ("b", 0, 1)}
    assert not [t for t, _ in model.facts("big") if t[0] == "c"]  # -7 + 1 < 5: no fact for c


def test_a_decimal_constant_of_an_aggregate_makes_the_run_decimal(spark):
    """``sum(P * 0.5)`` and ``S / 2`` after the aggregate over integers:
    the constants' decimals are the run's (no constant is cut to an
    integer), so the halves stop nothing."""
    rows = [(("i", "a", 3), (0, 4, True, False)), (("j", "a", 5), (2, 6, True, True)), (("k", "b", -1), (0, 1, True, True))]
    prog = NO_KEY + """
    half(C, S) :- owns(I, C, P), S = sum(P * 0.5).
    quarter(C, Q) :- owns(I, C, P), S = sum(P), Q = S / 2, Q > 1.5.
    @output("half"). @output("quarter").
    """
    model = check(spark, prog, {"owns": owns(rows)})
    assert (("a", 4), (2, 4, True, False)) in canon(model.facts("half"))
    assert (("a", Fraction(5, 2)), (4, 6, True, True)) in canon(model.facts("quarter"))


def test_decimal_expressions_and_round_half_to_even(spark):
    """decimal(38, 2): round() half to even at 0 and 1 digits (2.5 -> 2,
    3.5 -> 4, -2.5 -> -2, 0.25 -> 0.2, 0.35 -> 0.4, 9.5 -> 10 with a carry,
    -0.05 -> -0.0), as terms and inside aggregates with products."""
    values = ["5/2", "7/2", "-5/2", "1/4", "7/20", "19/2", "-1/20"]
    rows = [((i, c, Fraction(v)), (k, k + 4, True, False)) for k, (i, c, v) in enumerate(zip("ijklmno", "aabbbcc", values))]
    prog = NO_KEY + """
    r(I, R0, R1, R5) :- owns(I, C, P), R0 = round(P), R1 = round(P, 1), R5 = round(P, 5).
    s(C, S, M) :- owns(I, C, P), S = sum(round(P, 1) * 2), M = max(round(P)).
    @output("r"). @output("s").
    """
    model = check(spark, prog, {"owns": owns(rows)})
    got = {terms[0]: terms[1:] for terms, _ in model.facts("r")}
    assert [got[i][0] for i in "ijkn"] == [2, 4, -2, 10]
    assert [got[i][1] for i in "lmo"] == [Fraction(1, 5), Fraction(2, 5), 0]


TRAPS = ["B", "a", "é", "e", "ä", "Z", "zz", "z", "", "ab", "ｱ", "😀", "Ω", "a b"]  # ASCII case, accents, empty, BMP above the surrogates vs an emoji


STRINGS = NO_KEY + """
first(C, M) :- owns(I, C, P), M = min(I).
last(C, M) :- owns(I, C, P), M = max(I).
lo(C, M) :- <->[0,1] owns(I, C, P), M = mmin(I, <P>).
hi(M) :- owns(I, C, P), M = mmax(I).
named(C, M) :- owns(I, C, P), K = I, M = max(K), M != "z".
after(C, M) :- owns(I, C, P), M = min(I), M > "a".
@output("first"). @output("last"). @output("lo"). @output("hi"). @output("named"). @output("after").
"""


@pytest.mark.slow  # (bash test.sh --thorough)
def test_least_and_greatest_strings_by_hand(spark):
    """Strings order by code point, as Python's ``<``: "B" < "a", "e" < "é",
    "" first, and U+FF71 before an emoji (whose UTF-16 surrogates would
    sort first)."""
    rows = [((s, "a" if k % 2 else "b", k % 3), (k % 4, k % 4 + 2, True, k % 2 == 0)) for k, s in enumerate(TRAPS)]
    rows += [(("ｱ", "c", 1), (0, 3, True, True)), (("😀", "c", 1), (1, 4, True, True))]
    model = check(spark, STRINGS, {"owns": owns(rows)})
    assert (("c", "ｱ"), (0, 3, True, True)) in canon(model.facts("first"))  # U+FF71 < U+1F600
    assert (("c", "😀"), (1, 4, True, True)) in canon(model.facts("last"))
    assert (("b", ""), (0, 2, True, True)) in canon(model.facts("first"))  # "" first
    assert (("a", "Z"), (1, 3, True, False)) in canon(model.facts("first"))  # "Z" < "a" < "e" (by case: "a")
    assert ("😀",) in {t for t, _ in model.facts("hi")}


@st.composite
def cases(draw, values):
    facts = draw(st.lists(
        st.tuples(st.sampled_from(["i", "j", "B", "é"]), st.sampled_from("ab"), values, st.integers(0, 6), st.integers(0, 3),
                  st.booleans(), st.booleans(), st.sampled_from([0, 0, 0, 0, 1, 2])),
        min_size=1, max_size=9))
    return [((i, c, p), drawn_interval(lo, d, lc, hc, kind)) for i, c, p, lo, d, lc, hc, kind in facts]


@settings(max_examples=examples(5), deadline=None, suppress_health_check=list(HealthCheck))
@given(cases(st.integers(-40, 40)))
def test_random_expressions_and_strings_equal_embedded(spark, rows):
    """The programs above on random facts: open, closed, punctual and
    unbounded intervals, ties and gaps, negative values, names whose order
    is not their bytes' in UTF-16 nor their case's."""
    check(spark, EXPRESSIONS + STRINGS.replace(NO_KEY, ""), {"owns": owns(rows)})


@settings(max_examples=examples(4), deadline=None, suppress_health_check=list(HealthCheck))
@given(cases(st.decimals(-20, 20, places=2, allow_nan=False, allow_infinity=False).map(Fraction)))
def test_random_decimal_rounding_equal_embedded(spark, rows):
    """round() half to even at -1, 0 and 1 digits of random two-decimal
    values, as a term and inside aggregates."""
    prog = NO_KEY + """
    r(I, C, A, B, D) :- owns(I, C, P), A = round(P), B = round(P, 1), D = round(P, -1).
    s(C, S, M) :- owns(I, C, P), S = sum(round(P, 1)), M = min(round(P) - P).
    @output("r"). @output("s").
    """
    check(spark, prog, {"owns": owns(rows)})


BOOLEANS = NO_KEY + """
first(C, M) :- owns(I, C, B), M = min(B).
last(C, M) :- owns(I, C, B), M = max(B).
lo(C, M) :- <->[0,1] owns(I, C, B), M = mmin(B, <I>).
hi(M) :- owns(I, C, B), M = mmax(B).
both(C, M, N) :- owns(I, C, B), M = min(B), N = max(B), M < N.
set(C) :- owns(I, C, B), M = min(B), M == #T.
@output("first"). @output("last"). @output("lo"). @output("hi"). @output("both"). @output("set").
"""


def test_least_and_greatest_booleans_by_hand(spark):
    """``min``/``max`` (and ``mmin``/``mmax``, with contributors) of
    booleans in the rounds, #F before #T as the engine orders them, and
    the results compared after the aggregate; they ran in one Spark task
    before."""
    rows = [(("i", "a", True), (0, 4, True, False)), (("j", "a", False), (2, 6, True, True)),
            (("k", "b", True), (1, 3, True, True)), (("i", "b", True), (3, 5, False, True)), (("j", "c", False), (0, 1, True, True))]
    model = check(spark, BOOLEANS, {"owns": owns(rows)})
    assert (("a", False), (2, 6, True, True)) in model.facts("first")  # (the oracle's order: #F first)
    assert (("a", True), (0, 4, True, False)) in model.facts("last")


@settings(max_examples=examples(4), deadline=None, suppress_health_check=list(HealthCheck))
@given(cases(st.booleans()))
def test_random_least_and_greatest_booleans_equal_embedded(spark, rows):
    check(spark, BOOLEANS, {"owns": owns(rows)})


def test_least_boolean_inside_a_recursion(spark):
    """``mmin`` of booleans recomputed in a recursive stratum: a node is
    clean (#T) while every flag reaching it is."""
    prog = """
    flag(X, B) :- given(X, B).
    least(Y, M) :- flag(X, B), e(X, Y), M = mmin(B).
    flag(Y, M) :- least(Y, M).
    @output("flag"). @output("least").
    """
    edges = [((1, 2), (0, 9, True, True)), ((2, 3), (0, 9, True, True)), ((3, 1), (2, 5, True, False)), ((4, 3), (0, 9, True, True))]
    given_ = [((1, True), (0, 9, True, True)), ((4, False), (3, 6, True, True))]
    model = check(spark, prog, {"e": facts_to_arrow(edges, ["x", "y"]), "given": facts_to_arrow(given_, ["x", "b"])})
    assert ((3, False), (3, 6, True, True)) in model.facts("least")


@pytest.mark.slow  # (bash test.sh --thorough)
def test_inside_a_recursion(spark):
    """Monotonic aggregates of an expression and of strings in a recursive
    stratum (recomputed per round for the groups the deltas reach): the
    shortest distances, ``mmin(D + W)``, and the least name that reaches
    each node, ``mmin(L)`` ("B" < "a" < "é")."""
    prog = """
    d(X, 0) :- src(X).
    best(Y, M) :- d(X, D), e(X, Y, W), M = mmin(D + W).
    d(Y, M) :- best(Y, M).
    label(X, L) :- name(X, L).
    least(X, M) :- label(X, L), M = mmin(L).
    label(Y, M) :- least(X, M), e(X, Y, W).
    @output("d"). @output("least").
    """
    edges = [((1, 2, 4), (0, 9, True, True)), ((2, 3, 1), (0, 9, True, True)), ((1, 3, 7), (2, 5, True, False)),
             ((3, 4, 2), (1, 8, False, True)), ((4, 2, 1), (0, 9, True, True)), ((3, 1, 3), (4, 6, True, True))]
    names = [((1, "é"), (0, 9, True, True)), ((3, "a"), (3, 7, True, True)), ((4, "B"), (5, 6, True, True))]
    model = check(spark, prog, {"e": facts_to_arrow(edges, ["x", "y", "w"]), "src": facts_to_arrow([((1,), (0, 9, True, True))], ["x"]),
                                "name": facts_to_arrow(names, ["x", "n"])})
    assert ((2, "B"), (5, 6, True, True)) in canon(model.facts("least"))
    assert ((3, 5), (0, 9, True, True)) in canon(model.facts("d"))


def recorded_statements(monkeypatch) -> list:
    """The list the rounds' Spark statements are appended to, as they are run."""
    from chronolog.connectors.spark_rounds import catalog

    texts = []
    sql = catalog.Catalog.sql

    def recorded(self, text):
        texts.append(text)
        return sql(self, text)

    monkeypatch.setattr(catalog.Catalog, "sql", recorded)
    return texts


def test_a_coalesced_body_is_coalesced_and_written_once(spark, monkeypatch):
    """An aggregate over one atom reading every column of its relation
    (coalesced already) is not coalesced again, and its fold, which reads
    its ranked points twice, finds them written once in the statement (a
    common table expression); the input, held on the driver, is written once in the
    round's statement (a CTE shared by far's self join, the aggregate's
    body and the union of the two merged relations), and the statement
    coalesces twice (far's merge and the fold's segments), where the
    body's coalescing, the merge of the aggregate's already coalesced
    facts and the body's second copy made 299 SELECTs 41 parentheses deep
    of six such rules, and each atom and each merged relation wrote the
    input's rows again."""
    texts = recorded_statements(monkeypatch)
    rows = [(("i", "a", True), (0, 4, True, False)), (("j", "a", False), (2, 6, True, True)), (("k", "b", True), (1, 3, True, True))]
    check(spark, NO_KEY + "first(C, M) :- owns(I, C, B), M = min(B).\n@output(\"first\").", {"owns": owns(rows)})
    rounds = [t for t in texts if "dense_rank" in t]  # the statements folding the aggregate
    assert rounds
    for t in rounds:
        assert t.count("FROM VALUES") == 1
        assert t.count(" AS _grp ") == 2


def test_a_round_writes_a_step_once_however_many_relations_read_it(spark, monkeypatch):
    """Two aggregates of one body (first, last) and far's self join, in
    one round held on the driver: its union of the three merged relations
    writes each step once, the input's rows (read by three atoms of three
    statements), the two folds' ranked points (one CTE of the round's:
    the same step) and the body under them (sql.written_once), where each
    statement wrote its own."""
    texts = recorded_statements(monkeypatch)
    rows = [(("i", "a", True), (0, 4, True, False)), (("j", "a", False), (2, 6, True, True)), (("k", "b", True), (1, 3, True, True))]
    program = NO_KEY + "first(C, M) :- owns(I, C, B), M = min(B).\nlast(C, M) :- owns(I, C, B), M = max(B).\n@output(\"first\"). @output(\"last\")."
    check(spark, program, {"owns": owns(rows)})
    rounds = [t for t in texts if "dense_rank" in t]
    assert len(rounds) == 1  # (one round: its relations held on the driver, collected in one statement)
    assert rounds[0].count("FROM VALUES") == 1
    assert rounds[0].count("dense_rank") == 1
    assert rounds[0].count("CAST(v2 AS boolean)") == 1  # (the body's head, under both folds)
