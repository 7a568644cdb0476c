"""Random programs of three shapes through Spark's relational rounds
(forced: no one task by size), against the embedded engine's model:

- existential rules (labelled nulls, chase.py) with recursion and
  negation after them, and plain rules into their heads: equal, the
  labels too (and up to a one-to-one renaming of nulls,
  tests/nulls_renamed.py, saying where else they differ); windows,
  Since and interval terms around them, and a recursion through time
  under a horizon feeding their bodies;
- arguments of two kinds of terms: rules' heads and the program's facts
  mixing numbers, strings, booleans and dates (classes.TwoKinds,
  terms.TermTypes.key_text_sql), joined, negated, compared with
  constants and counted; min and max of booleans and dates; an input's
  numbers as term text, decoded at the load where a rule orders or sums
  them (entry.decodable);
- floats joined with exact numbers (``0.1`` and ``1/10``, ``1.0`` and
  ``1``, ``-0.0`` and ``0``), from inputs and the program's facts.

Each asserts the rounds ran (the path ``relational``, no fall back, but
for the refusals docs/spark.md names, where one task ran) and
the engine's facts (by its equality: the rounds print a number of term
text as its key text, docs/spark.md)."""

from __future__ import annotations

import warnings
from datetime import date
from decimal import Decimal

import pyarrow as pa
import pytest
from budget import examples
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import chronolog
from chronolog.engine.arrow import table_to_rows, with_term_text
from chronolog.language.nulls import reading_file

from nulls_renamed import assert_same_up_to_nulls

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("rounds")]

SETTINGS = settings(deadline=None, suppress_health_check=list(HealthCheck), max_examples=examples(10))


def _rounds(spark, program, tables, outputs, refused=()):
    """``{pred: facts}`` of the rounds (asserting they ran, no fall back);
    ``refused``: what docs/spark.md says goes to one task, whose facts are
    then the answer (asserting that one task ran, for that reason alone)."""
    from chronolog import spark as cs

    stats: dict = {}
    path = "relational"
    with warnings.catch_warnings():
        warnings.simplefilter("error", cs.DriverFallback)
        try:
            out = cs.reason(spark, program, inputs=tables or None, distributed=True, outputs=list(outputs), stats=stats)
        except cs.OneTaskFallback as e:
            if not any(why in str(e) for why in refused):
                raise
            warnings.simplefilter("ignore", cs.DriverFallback)
            path = "one task"
            out = cs.reason(spark, program, inputs=tables or None, distributed=True, outputs=list(outputs), stats=stats)
    assert stats["path"] == path, stats
    with reading_file():  # one scope for the run's nulls
        return {p: table_to_rows(out[p].toArrow(), p) for p in outputs}


def _engine(program, tables, arrow=False):
    """The engine's facts of the rules' heads (``arrow``: read back from its
    Arrow tables, as the rounds' outputs are)."""
    rows = {p: table_to_rows(t, p) for p, t in tables.items()}
    m = chronolog.reason(program, rows)
    preds = sorted(p for p in m.predicates() if not p.startswith("$") and p in _heads(program))
    return {p: table_to_rows(m.to_arrow(p), p) if arrow else m.facts(p) for p in preds}


def _heads(program):
    return {line.split("(")[0].strip() for line in program.splitlines() if ":-" in line}


def _interval(draw):
    s = draw(st.integers(0, 5))
    return f"[{s},{s + draw(st.integers(0, 4))}]"


# ---------------------------------------------------------------- the chase

CONSTS = ["a", "b", "c", "d"]
# existential rules (Y, Z not in the body); two or more of one head predicate fire one after
# another in the engine's order (SAME_HEAD below: o, own and tag from a second body)
EXISTENTIAL = [
    "o(Y, C) :- c(C).",
    "own(Y, C) :- reach(C, D).",
    "m(Z, Y) :- o(Y, C).",
    "pair(Y, Y, C) :- c(C), f(P, C).",
    "tag(Y, C, fixed) :- top(C).",
    "span(Y, C, S) :- c(C)@[S, E].",
    "ward(Y, C) :- win(C), not top(C).",
]
SAME_HEAD = [
    "o(Y, C) :- link(C, D).",
    "o(Y, C) :- win(C), not top(C).",
    "own(Y, C) :- c(C).",
    "tag(Y, C, fixed) :- reach(C, D).",
]
PLAIN = [
    "o(P, C) :- f(P, C).",
    "reach(A, B) :- link(A, B).",
    "reach(A, C) :- reach(A, B), link(B, C).",
    "top(C) :- c(C), not f(P, C).",
    "seen(Y) :- o(Y, b).",
    "miss(Y, C) :- o(Y, C), not seen(Y).",
    "alone(Y) :- o(Y, C), not o(Y, a).",
    "both(A, B) :- o(Y, A), o(Y, B), A != B.",
    "via(Y, C) :- o(Y, A), reach(A, C).",
    "via(Y, C) :- via(Y, A), link(A, C).",
    "late(Y, C) :- <->[1,1] o(Y, C), not c(C).",
    "deep(Z) :- m(Z, Y), o(Y, C), not f(Y, C).",
    "owned(C) :- pair(Y, Y, C).",
    "named(C) :- tag(Y, C, fixed), o(Y, C).",
    "cnt(C, N) :- o(Y, C), N = count(Y).",
    "c(C) :- link(C, D).",
    "win(C) :- <+>[0,2] c(C).",
    "hold(Y, C) :- [-][0,1] o(Y, C).",
    "sn(Y, C) :- c(C) <S>[0,2] o(Y, C).",
    "started(Y, S) :- span(Y, C, S), o(Y, C).",
    "link(D, C) :- own(Y, C), link(C, D).",  # (a recursion through the chase: own's and reach's bodies grow)
    "c(D) :- o(Y, C), link(C, D).",
    "nown(C, N) :- own(Y, C), not top(C), N = count(Y).",
]
# recursion through time under a horizon, feeding the existential rules' bodies
REPEATING = "@temporal(0, 12).\nc(C) :- <->[4,4] c(C).\n"


@st.composite
def chase_programs(draw):
    rules = draw(st.lists(st.sampled_from(EXISTENTIAL + SAME_HEAD), min_size=1, max_size=4, unique=True))
    rules += draw(st.lists(st.sampled_from(PLAIN), min_size=1, max_size=6, unique=True))
    facts = []
    for pred, arity in (("c", 1), ("f", 2), ("link", 2)):
        for _ in range(draw(st.integers(0 if pred != "c" else 1, 4))):
            args = ", ".join(draw(st.sampled_from(CONSTS + ["alice"] if pred == "f" and i == 0 else CONSTS)) for i in range(arity))
            facts.append(f"{pred}({args})@{_interval(draw)}.")
    return (draw(st.sampled_from(["", REPEATING])) + "\n".join(rules + facts) + "\n")


# (docs/spark.md: a recursion through time with no horizon that no facts from
# outside it confine, here one through the future, goes to one task)
NO_HORIZON = "recursion through time with no horizon"


@SETTINGS
@given(chase_programs())
@example("o(Y, C) :- c(C).\nown(Y, C) :- reach(C, D).\nm(Z, Y) :- o(Y, C).\no(Y, C) :- win(C), not top(C).\n"
         "win(C) :- <+>[0,2] c(C).\nc(D) :- o(Y, C), link(C, D).\nc(a)@[0,0].\n")
def test_random_chase_programs_in_the_rounds_as_the_engine(spark, program):
    try:
        want = _engine(program, {})
    except chronolog.ChronologError:  # (a chase the engine refuses: not this test's shape)
        return
    got = _rounds(spark, program, {}, want, refused=[NO_HORIZON])
    assert_same_up_to_nulls(got, want)
    # and the engine's labels: every frontier here is names alone (docs/spark.md)
    assert _labelled(got) == _labelled(want)


def _labelled(model) -> dict:
    """``{pred: facts}`` with each null as its label (two runs' nulls are never equal)."""
    from chronolog.language.nulls import Null

    return {p: sorted(((tuple(str(t) if type(t) is Null else t for t in terms), iv) for terms, iv in rows), key=repr)
            for p, rows in model.items()}


# ---------------------------------------------------------------- two kinds

KIND_VALUES = {
    "num": ["1", "2", "-1", "0", "2.5", "1/3", "1.0"],
    "str": ["a", '"a"', '"1"', '"x y"', "b", '"#T"', '"2024-01-01"'],
    "bool": ["#T", "#F"],
    "date": ["2024-01-01", "2024-01-02"],
}
# (docs/spark.md: a run's numbers are one type, 64-bit integers or decimal(38, S), so an
# argument of numbers alone holding 1/3 goes to one task; as it does for a float compared
# with an exact number computed in the row, in the float programs below)
NO_DECIMAL = "has no finite decimal expansion"
FLOAT_VS_ROW = "the comparison of a float with the exact number"
INPUT_TYPES = {"num": pa.int64(), "str": pa.string(), "bool": pa.bool_(), "date": pa.date32()}
# an input's numbers as term text of one kind (decoded at the load where a rule orders or computes on them)
NUMBER_TEXT = ["1", "2", "0", "-1", "2.5", "1.0", "-0.5"]
INPUT_VALUES = {"num": [1, 2, 0, -1], "str": ["a", "1", "x y", "#T", "b"], "bool": [True, False],
                "date": [date(2024, 1, 1), date(2024, 1, 2)]}
TWO_KINDS = [
    "v(X) :- a(K, X).",
    "v(X) :- s(K, X).",
    "v(X) :- t(K, X).",
    "v(X) :- p(X).",
    "v(Y) :- a(K, X), Y = X + 1.",
    "v(Y) :- s(K, X), Y = concat(X, \"!\").",
    "v(true) :- t(K, X), X == #T.",
    "hit(X) :- v(X), p(X).",
    "hit(X) :- v(X), a(K, X).",
    "gone(X) :- v(X), not p(X).",
    "gone(X) :- p(X), not v(X).",
    "cross(X, Y) :- v(X), s(K, Y), X != Y.",
    "same(K) :- a(K, X), v(Y), X == Y.",
    "pick(X) :- v(X), X == {c}.",
    "pick(X) :- p(X), X != {c}.",
    "cnt(N) :- v(X), N = count(X).",
    "r(X) :- v(X).",
    "r(Y) :- r(X), step(X, Y).",
    "w(X) :- <->[0,2] v(X), p(X).",
    "top(M) :- t(K, X), M = max(X).",
    "low(L, M) :- t(K, X), s(L, _), M = min(X).",
    "big(X) :- a(K, X), X > 0.",
    "total(S) :- a(K, X), S = sum(X).",
    # negation and aggregation together, over and grouped by arguments of two kinds
    "cn(N) :- v(X), not p(X), N = count(X).",
    "per(X, N) :- v(X), not hit(X), s(L, Y), N = count(Y).",
    "sumby(X, S) :- p(X), not v(X), a(K, Y), S = sum(Y).",
    "hi(X, M) :- v(X), t(K, Y), not gone(X), M = max(Y).",
]


def _table(kind, draw, n):
    text = kind == "num" and draw(st.booleans())
    vals = [draw(st.sampled_from(NUMBER_TEXT if text else INPUT_VALUES[kind])) for _ in range(n)]
    starts = [draw(st.integers(0, 5)) for _ in range(n)]
    table = pa.table({"k": [f"k{i}" for i in range(n)], "x": pa.array(vals, pa.string() if text else INPUT_TYPES[kind]),
                      "start": starts, "end": [s + draw(st.integers(0, 4)) for s in starts]})
    return with_term_text(table, ["x"]) if text else table


@st.composite
def two_kinds_programs(draw):
    # a rule across two keys, so that no key splits the program: the rounds, not one engine per key
    rules = ["x(X, Y) :- a(K, X), s(L, Y)."] + draw(st.lists(st.sampled_from(TWO_KINDS), min_size=2, max_size=6, unique=True))
    if not any(r.startswith("v(") for r in rules):
        rules.append(draw(st.sampled_from(TWO_KINDS[:4])))
    everything = [v for vs in KIND_VALUES.values() for v in vs]
    rules = [r.replace("{c}", draw(st.sampled_from(everything))) for r in rules]
    kinds = draw(st.lists(st.sampled_from(sorted(KIND_VALUES)), min_size=1, max_size=3))
    facts = [f"p({draw(st.sampled_from(KIND_VALUES[draw(st.sampled_from(kinds))]))})@{_interval(draw)}."
             for _ in range(draw(st.integers(1, 6)))]
    facts += [f"step({draw(st.sampled_from(everything))}, {draw(st.sampled_from(everything))})@{_interval(draw)}."
              for _ in range(draw(st.integers(0, 3)))]
    tables = {"a": _table("num", draw, draw(st.integers(1, 3))), "s": _table("str", draw, draw(st.integers(1, 3))),
              "t": _table(draw(st.sampled_from(["bool", "date"])), draw, draw(st.integers(1, 3)))}
    outs = sorted(_heads("\n".join(rules)))
    text = "\n".join(rules + facts) + "\n" + " ".join(f'@output("{h}").' for h in outs) + "\n"
    return text, tables


@SETTINGS
@given(two_kinds_programs())
def test_random_two_kinds_programs_in_the_rounds_as_the_engine(spark, case):
    program, tables = case
    try:
        want = _engine(program, tables, arrow=True)
    except chronolog.ChronologError:
        return
    got = _rounds(spark, program, tables, want, refused=[NO_DECIMAL])
    for p in want:
        assert set(got[p]) == set(want[p]) and len(set(got[p])) == len(got[p]), (p, sorted(map(str, got[p])), sorted(map(str, want[p])))


# ---------------------------------------------------------------- floats and exact numbers

FLOATS = [0.1, 1.0, -0.0, 0.0, 2.5, 0.5, 1e16, 3.0, 0.30000000000000004, 2.0**60]
EXACTS = [1, 0, 3, 2**60, 2**60 + 1, 10**16]
DECIMALS = [Decimal("0.1"), Decimal("2.5"), Decimal("1.0"), Decimal("0.5"), Decimal("-0.0"), Decimal("0.3")]
PROGRAM_NUMBERS = ["0.1", "1/10", "1", "1.0", "-0.0", "0", "5/2", "2.5", "1/2", "3", "0.3"]
FLOAT_RULES = [
    "j(K, L) :- m(K, V), n(L, V).",
    "jd(K, L) :- m(K, V), d(L, V).",
    "jp(K) :- m(K, V), g(V).",
    "jn(L) :- n(L, V), g(V).",
    "x(K) :- m(K, V), not n(L, V).",
    "xg(V) :- g(V), not m(K, V).",
    "both(V) :- m(K, V), n(L, V).",
    "all(V) :- m(K, V).",
    "all(V) :- n(L, V).",
    "all(V) :- g(V).",
    "eq(K, L) :- m(K, V), d(L, W), V == W.",
    "ne(K) :- m(K, V), g(W), V != W.",
    # aggregation and negation over the joined column of floats and exact numbers
    "cv(V, N) :- m(K, V), not g(V), N = count().",
    "kn(V, N) :- m(K, V), n(L, V), N = count(L).",
    "hm(M) :- all(V), not xg(V), M = max(V).",
    "lo(K, M) :- m(K, V), n(L, W), M = min(W), not g(V).",
]


def _numbers(draw, values, typ):
    n = draw(st.integers(1, 4))
    vals = [draw(st.sampled_from(values)) for _ in range(n)]
    starts = [draw(st.integers(0, 5)) for _ in range(n)]
    return pa.table({"k": [f"k{i}" for i in range(n)], "v": pa.array(vals, typ), "start": starts,
                     "end": [s + draw(st.integers(0, 4)) for s in starts]})


@st.composite
def float_programs(draw):
    # a rule across two keys, so that no key splits the program: the rounds, not one engine per key
    rules = ["cx(K, L) :- m(K, V), n(L, W)."] + draw(st.lists(st.sampled_from(FLOAT_RULES), min_size=1, max_size=5, unique=True))
    facts = [f"g({draw(st.sampled_from(PROGRAM_NUMBERS))})@{_interval(draw)}." for _ in range(draw(st.integers(1, 4)))]
    tables = {"m": _numbers(draw, FLOATS, pa.float64()), "n": _numbers(draw, EXACTS, pa.int64()),
              "d": _numbers(draw, DECIMALS, pa.decimal128(10, 1))}
    outs = sorted(_heads("\n".join(rules)))
    return "\n".join(rules + facts) + "\n" + " ".join(f'@output("{h}").' for h in outs) + "\n", tables


@SETTINGS
@given(float_programs())
def test_random_float_and_exact_joins_in_the_rounds_as_the_engine(spark, case):
    program, tables = case
    want = _engine(program, tables, arrow=True)
    got = _rounds(spark, program, tables, want, refused=[FLOAT_VS_ROW])
    for p in want:
        assert set(got[p]) == set(want[p]) and len(set(got[p])) == len(got[p]), (p, sorted(map(str, got[p])), sorted(map(str, want[p])))
