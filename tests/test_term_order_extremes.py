"""The built-ins ``min(X, Y)``/``max(X, Y)`` follow the order of terms,
as the aggregates ``min``/``max`` and the comparisons do: the aggregate
over ``{X, Y}`` is the oracle of the built-in for random pairs of
comparable terms of every kind (numbers exact and float, strings,
booleans, dates, timestamps, sets), and a pair the comparison ``X < Y``
refuses is refused by the built-in with the comparison's error, on the
rows and the columns (the Spark rounds: test_spark_rounds_functions.py)."""

import datetime as dt
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.engine.term_types import key_text

ORACLE = """
v(K, X) :- p(K, X, Y).
v(K, Y) :- p(K, X, Y).
aggmin(K, Z) :- v(K, W), Z = min(W).
aggmax(K, Z) :- v(K, W), Z = max(W).
funmin(K, Z) :- p(K, X, Y), Z = min(X, Y).
funmax(K, Z) :- p(K, X, Y), Z = max(X, Y).
"""

numbers = st.one_of(
    st.integers(-5, 5), st.integers(-2**70, 2**70),
    st.fractions(max_denominator=8).map(lambda f: f if f.denominator > 1 else f.numerator),
    st.floats(allow_nan=False, width=64).map(lambda f: 0.0 if f == 0 else f),
    st.sampled_from([1.0, 2.0, 0.5, -1.0])).filter(lambda v: v == v)
strings = st.one_of(st.sampled_from(["a", "b", "ab", "B", "é", ""]), st.text(max_size=3))
booleans = st.booleans()
dates = st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(2100, 1, 1)).map(
    lambda d: dt.datetime(d.year, d.month, d.day))  # (a date's term: the instant of its midnight)
timestamps = st.datetimes(min_value=dt.datetime(1900, 1, 1), max_value=dt.datetime(2100, 1, 1)).map(
    lambda t: t.replace(microsecond=0))
instants = st.one_of(dates, timestamps)
members = st.one_of(st.integers(-3, 3), st.sampled_from(["a", "b"]))
sets = st.frozensets(members, max_size=3)
KINDS = {"number": numbers, "string": strings, "boolean": booleans, "instant": instants, "set": sets}


def comparable_pair(kind):
    s = KINDS[kind]
    if kind == "set":  # members of one kind: every two such sets compare
        one = st.sampled_from([st.integers(-3, 3), st.sampled_from(["a", "b", "c"])])
        return one.flatmap(lambda m: st.tuples(st.frozensets(m, max_size=3), st.frozensets(m, max_size=3)))
    return st.tuples(s, s)


def answers(model, pred):
    return {k: z for (k, z), _ in model.facts(pred)}


def same_term(got, want, x, y):
    """``got`` is ``want``: of one kind and value, but where ``x`` and
    ``y`` are equal terms of two kinds (``1`` and ``1.0``, a date and its
    midnight), which one a fold keeps is the executor's."""
    if key_text(x) == key_text(y):
        return key_text(got) == key_text(want)
    return type(got) is type(want) and key_text(got) == key_text(want)


@pytest.mark.parametrize("engine", ["rows", "columns"])
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_min_max_of_two_comparable_terms_are_the_aggregates(engine, data):
    pairs = [data.draw(st.sampled_from(sorted(KINDS)).flatmap(comparable_pair)) for _ in range(6)]
    facts = {"p": [((k, x, y), (0, 0)) for k, (x, y) in enumerate(pairs)]}
    model = chronolog.reason(ORACLE, facts, engine=engine)
    for f in ("min", "max"):
        fun, agg = answers(model, "fun" + f), answers(model, "agg" + f)
        assert set(fun) == set(agg) == set(range(len(pairs)))
        for k, (x, y) in enumerate(pairs):
            assert same_term(fun[k], agg[k], x, y), (f, x, y, fun[k], agg[k])


def _error(program, facts, engine):
    with pytest.raises(chronolog.ChronologError) as e:
        chronolog.reason(program, facts, engine=engine)
    text = str(e.value)
    # the literal and its place in the rule differ (Z = min(X, Y) or X < Y); the rest is the same
    return re.sub(r" in '[^']*'(, the rule at \S+:\d+:\d+)?", "", text.split("data error: ", 1)[-1])


def incomparable_pair():
    kinds = st.lists(st.sampled_from(sorted(KINDS)), min_size=2, max_size=2, unique=True)
    mixed = kinds.flatmap(lambda ks: st.tuples(KINDS[ks[0]], KINDS[ks[1]]))
    # sets whose first members that differ are of two kinds: {1} and {a}
    sets_apart = st.tuples(st.frozensets(st.integers(-3, 3), min_size=1, max_size=2),
                           st.frozensets(st.sampled_from(["a", "b"]), min_size=1, max_size=2))
    return st.one_of(mixed, sets_apart, sets_apart.map(lambda p: p[::-1]))


@pytest.mark.parametrize("engine", ["rows", "columns"])
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=incomparable_pair(), f=st.sampled_from(["min", "max"]))
def test_incomparable_terms_give_the_comparisons_error(engine, pair, f):
    facts = {"p": [((0, *pair), (0, 0))]}
    compared = _error("c(K) :- p(K, X, Y), X < Y.", facts, engine)
    assert compared.startswith("cannot compare"), compared
    assert _error(f"z(K, Z) :- p(K, X, Y), Z = {f}(X, Y).", facts, engine) == compared
    _error(f"v(K, X) :- p(K, X, Y).\nv(K, Y) :- p(K, X, Y).\nz(K, Z) :- v(K, W), Z = {f}(W).", facts, engine)


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_sets_whose_members_do_not_compare_are_refused_as_by_the_comparison(engine):
    program = "s(Z) :- r(X, Y), Z = min(X, Y).\nr({1,2}, {1,a})@0.\n"
    # {1,2} against {1,a}: the second members, 2 and a, do not compare
    with pytest.raises(chronolog.ChronologError, match=r"cannot compare \{1,2\} and \{1,a\} in 'Z = min\(X, Y\)'"):
        chronolog.reason(program, engine=engine)
