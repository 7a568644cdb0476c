"""The string built-ins of engine/string_functions.py (strlen, substr,
upper, lower, concat, ``+``, min/max of strings, strings compared in
order): the columns' Polars kernels against the rows (the engine's own
functions) on random Unicode text -- astral characters, combining marks,
ß, Turkish İ and ı, final sigmas, empty strings -- beside arguments of
other kinds (numbers, booleans, rationals, floats, strings where numbers
are taken); the same model or the same error, and on the columns without
the rows' closures where every value is of the kind taken.  A small
selection on Spark: the rounds (their SQL from the same tree) against the
embedded engine."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.language.errors import ChronologError

pytest.importorskip("polars")

WEIRD = ["", "ß", "İ", "ı", "i", "I", "ﬁ", "e\u0301", "😀", "ΟΔΟΣ", "Σ'", "a\x00b", "\U0010ffff", "ǅ", "ς", "ŉ", "ƛ", "ა", "𐐨"]
texts = st.one_of(st.sampled_from(WEIRD), st.text(st.characters(blacklist_categories=("Cs",)), max_size=6),
                  st.lists(st.sampled_from(WEIRD), max_size=3).map("".join))
others = st.one_of(st.integers(-9, 9), st.sampled_from([2**70, Fraction(1, 3), Fraction(-5, 2), 0.5, 1e16, -0.0, True, False]), texts)
positions = st.one_of(st.integers(-9, 9), st.sampled_from([2**61, -(2**61), 2**70, Fraction(1, 2), 1.0, "2"]))

PROGRAMS = [  # one rule each: an error (a number where a string is taken) stops one program
    "a(K, L, U, W) :- p(K, S, V), L = strlen(S), U = upper(S), W = lower(S).",
    'c(K, C) :- p(K, S, V), C = concat(S, K, #T, 1/2, -3, "|").',
    "c(K, D) :- p(K, S, V), D = concat(V, S).",
    "b(K, A, B) :- p(K, S, V), n(K, P, Q), A = substr(S, P), B = substr(S, P, Q).",
    "b(K, C, D) :- p(K, S, V), n(K, P, Q), C = substr(upper(S), 0 - P, strlen(S)), D = strlen(substr(S, Q)) + P.",
    'm(K, M, N) :- p(K, S, V), p(J, T, W), M = min(S, T), N = max(T, S, "m"), S < T.',
    'd(K) :- p(K, S, V), strlen(S) > 2, upper(S) != S, S >= "a".',
    "e(K, X) :- p(K, S, V), X = S + lower(S).",
    "e(K, Y) :- p(K, S, V), Y = upper(V).",
    "e(K, Y) :- p(K, S, V), Y = V + S.",
]


def outcome(program, facts, engine):
    """The model's text, or the error's text."""
    try:
        m = chronolog.reason(program, facts, engine=engine)
    except ChronologError as e:
        return ("error", e.render()), None
    return ("model", m.to_text()), m


def given_facts(strs, nums):
    p = [((f"k{i}", s, v), (i % 3, i % 3 + 2, True, False)) for i, (s, v) in enumerate(strs)]
    n = [((f"k{i}", a, b), (0, 9, True, True)) for i, (a, b) in enumerate(nums)]
    return {"p": p, "n": n}


@settings(deadline=None, max_examples=examples(150), suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(texts, others), max_size=6), st.lists(st.tuples(positions, positions), max_size=6))
@example([("İıß", 1), ("ΟΔΟΣ ΟΔΟΣ'", "x"), ("a😀e\u0301", 2.5)], [(1, 2), (-2, 5), (9, -9)])
def test_string_functions_on_columns_equal_the_rows(strs, nums):
    facts = given_facts(strs, nums)
    for program in PROGRAMS:
        rows, _ = outcome(program, facts, "rows")
        cols, m = outcome(program, facts, "columns")
        assert cols == rows, program
        if m is not None:
            why = [f for f in m.stats.get("fallbacks", []) if "two types" not in f]  # (1 beside 1.0: documented)
            assert not why, (program, why)


def test_every_safe_code_point_maps_as_python_on_the_columns():
    """Polars' (Rust's) case mapping on each code point of CASE_RANGES and
    on random strings of them (final sigmas beside apostrophes and
    accents); letters whose mapping differs between Unicode versions (ƛ
    got an upper case in Unicode 16) or that lie beyond the ranges are
    mapped by Python."""
    import polars as pl

    from chronolog.engine.exprs import col, to_polars
    from chronolog.engine.string_functions import CASE_RANGES, case

    points = [chr(c) for lo, hi in CASE_RANGES for c in range(lo, hi + 1)]
    rnd = random.Random(7)
    extra = ["Σ", "'", "\u0301", " ", "Α", ".", "ƛ", "ა", "ﬁ", "𐐨", "Ⱥ", "\u1c89", "ǅ"]
    strs = points + ["".join(rnd.choice(points + extra * 20) for _ in range(rnd.randint(0, 8))) for _ in range(20000)]
    got = pl.DataFrame({"s": strs}).select(u=to_polars(case("upper", col("s")), []), l=to_polars(case("lower", col("s")), []))
    bad = [(s, u, lo) for s, u, lo in zip(strs, got["u"], got["l"]) if u != s.upper() or lo != s.lower()]
    assert not bad, bad[:10]


def test_the_columns_call_no_closure_for_string_functions(monkeypatch):
    """strlen, substr, upper, lower and concat of strings and integers run
    in Polars' kernels: the engine's own functions are never called."""
    from chronolog.language import builtins

    calls = []
    for name in ("strlen", "substr", "upper", "lower", "concat"):
        lo, hi, fn = builtins.FUNCTIONS[name]
        monkeypatch.setitem(builtins.FUNCTIONS, name, (lo, hi, lambda *xs, fn=fn, name=name: calls.append(name) or fn(*xs)))
    p = [((f"n{i}", "wörd😀" * (i % 4), i % 7 - 3), (i, i + 1, True, False)) for i in range(300)]
    prog = ('q(N, Y, L) :- p(N, S, V), Y = upper(substr(concat(S, "x", V), 1, 4)), L = strlen(lower(S)).\n'
            'r(N) :- p(N, S, V), strlen(S) > 6, substr(S, V) < "w".')
    m = chronolog.reason(prog, {"p": p}, engine="columns")
    assert set(m.stats["executors"].values()) == {"columns"}
    assert not calls, calls[:5]
    assert m.to_text() == chronolog.reason(prog, {"p": p}, engine="rows").to_text()


@pytest.mark.spark
@pytest.mark.usefixtures("rounds")
@settings(max_examples=examples(8), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(texts, st.integers(-8, 8)), min_size=1, max_size=4))
def test_the_rounds_compute_the_same_strings(spark, strs):
    """The rounds' SQL, emitted from the same tree, against the embedded engine."""
    from test_spark_rounds_functions import CASES, SLICES, agree, words

    rows = [((k, s, v), (k % 3, k % 3 + 3, True, False)) for k, (s, v) in enumerate(strs)]
    assert agree(spark, SLICES, {"w": words(rows, ("k", "s", "p"))}, ["cut", "len", "glue", "least"]) == "relational"
    rows = [((k, s), (k % 3, k % 3 + 3, True, False)) for k, (s, _) in enumerate(strs)]
    assert agree(spark, CASES, {"w": words(rows)}, ["up", "same"]) == "relational"


def test_a_position_beside_an_equal_float_falls_back_as_two_types():
    """n(k0,0,1) beside n(k1,1.0,0): only k0 joins p, its substr(S, 0, 1)
    is whole; one code stands for 1 and 1.0 on columns, so substr meets 1.0
    there, and the fallback names the two types, not substr's error (found
    by the hunt profile of the property test above)."""
    program = "b(K, B) :- p(K, S, V), n(K, P, Q), B = substr(S, P, Q)."
    facts = {"p": [(("k0", "", 0), (0, 2, True, False))],
             "n": [(("k0", 0, 1), (0, 9, True, True)), (("k1", 1.0, 0), (0, 9, True, True))]}
    rows, _ = outcome(program, facts, "rows")
    cols, m = outcome(program, facts, "columns")
    assert cols == rows == ("model", 'b(k0,"")@[0,2)')
    why = [f for f in m.stats.get("fallbacks", []) if "two types" not in f]
    assert not why, why


ORACLE = """
f(K, L, U, W, A, B) :- p(K, S, F, N), L = strlen(S), U = upper(S), W = lower(S), A = substr(S, F), B = substr(S, F, N).
g(K, J, C, M, X) :- p(K, S, F, N), p(J, T, G, O), C = concat(S, T, F), M = min(S, T), X = max(S, T, "m").
o(K, J) :- p(K, S, F, N), p(J, T, G, O), S < T, upper(S) >= lower(T).
"""


@settings(deadline=None, max_examples=examples(100), suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(texts, st.integers(-9, 9), st.integers(-9, 9)), min_size=1, max_size=5))
def test_string_functions_on_both_executors_are_pythons(strs):
    """The built-ins as their documented meaning, Python's own str (code
    points, slices, full case mapping, the order of str, an integer's
    digits in concat), computed here on the facts: the rows and the
    columns each give exactly those facts (a string that spells a name
    is that name)."""
    facts = {"p": [((f"k{i}", s, f, n), (0, 1, True, True)) for i, (s, f, n) in enumerate(strs)]}
    ks = [(f"k{i}", s, f, n) for i, (s, f, n) in enumerate(strs)]
    want = {
        "f": {(k, len(s), s.upper(), s.lower(), s[f:], s[f:f + n]) for k, s, f, n in ks},
        "g": {(k, j, s + t + str(f), min(s, t), max(s, t, "m")) for k, s, f, _ in ks for j, t, _, _ in ks},
        "o": {(k, j) for k, s, _, _ in ks for j, t, _, _ in ks if s < t and s.upper() >= t.lower()},
    }
    for engine in ("rows", "columns"):
        m = chronolog.reason(ORACLE, facts, engine=engine)
        for pred, rows in want.items():
            assert {t for t, _ in m.facts(pred)} == rows, (engine, pred)
