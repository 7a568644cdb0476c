"""min and max of booleans (#F before #T) and of instants (dates and
timestamps, in time order; a zoned timestamp is its UTC instant) on the
columnar executor, against the rows executor: the aggregates min, max,
mmin and mmax per time segment, and the built-ins min(X, Y)/max(X, Y),
run on columns (no fallback to rows, no rows' closure per distinct value);
terms of two kinds give the rows' error, word for word."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from budget import examples
from strategies import intervals

import chronolog

pytest.importorskip("polars")

UTC = dt.timezone.utc
_ZONES = st.sampled_from([None, UTC, dt.timezone(dt.timedelta(hours=2)), dt.timezone(dt.timedelta(hours=-5, minutes=-30))])
# near one another (ties across kinds and zones: a date and its midnight, 10:00+02:00 and 08:00Z), and anywhere
_NEAR = [dt.date(2020, 1, 1), dt.datetime(2020, 1, 1), dt.datetime(2020, 1, 1, 2, tzinfo=dt.timezone(dt.timedelta(hours=2))),
         dt.datetime(2020, 1, 1, 0, 0, 0, 1), dt.date(2019, 12, 31), dt.datetime(2019, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)]
instants = st.sampled_from(_NEAR) | st.dates() | st.datetimes(timezones=_ZONES).filter(
    lambda d: d.tzinfo is None or dt.datetime.min.replace(tzinfo=UTC) + dt.timedelta(days=1) < d < dt.datetime.max.replace(tzinfo=UTC) - dt.timedelta(days=1))
kinds = {"booleans": st.booleans(), "instants": instants}
keys = st.sampled_from(["x", "y"])


def facts_of(values):
    return st.lists(st.tuples(keys, values, intervals()), max_size=7).map(
        lambda rows: [((k, v), iv) for k, v, ivs in rows for iv in ivs])


AGGREGATES = """@input("p").
lo(K, M) :- p(K, V), M = min(V).
hi(K, M) :- p(K, V), M = max(V).
mlo(K, M) :- p(K, V), M = mmin(V).
mhi(K, M) :- p(K, V), M = mmax(V).
all(M) :- p(K, V), M = max(V).
"""

CALLS = """@input("q").
least(K, M) :- p(K, V), q(K, W), M = min(V, W).
most(K, M) :- p(K, V), q(K, W), M = max(W, V).
both(K, M, N) :- p(K, V), q(K, W), M = max(min(V, W), {c}), N = min({c}, V, W).
agg(K, M) :- p(K, V), q(K, W), M = max(min(V, W)).
"""


def _run(program, facts, engine):
    try:
        m = chronolog.reason(program, facts, engine=engine)
    except chronolog.DataError as e:  # (the error is the answer: its text compared)
        return str(e), None
    return m.to_text(), m


def on_columns_as_on_rows(program, facts, vectorised=True):
    """The model (or the error) of ``program`` on columns is the rows';
    ``vectorised``: every stratum ran on columns, and no assignment took
    the rows' closures (distinct_calls.py)."""
    from chronolog.engine.columns import linear

    rows, by_rows = _run(program, facts, "rows")
    with pytest.MonkeyPatch.context() as mp:
        if vectorised:
            mp.setattr(linear, "assigned", lambda *a: pytest.fail("a rows' closure per distinct value computed min/max"))
        cols, by_cols = _run(program, facts, "columns")
    assert cols == rows
    if by_rows is not None:
        for pred in by_rows.predicates():
            assert set(by_cols.facts(pred)) == set(by_rows.facts(pred)), pred
        if vectorised:
            assert not by_cols.stats.get("fallbacks"), by_cols.stats.get("fallbacks")
            assert set(by_cols.stats["executors"].values()) == {"columns"}


@settings(deadline=None, max_examples=examples(120))
@given(st.sampled_from(sorted(kinds)).flatmap(lambda k: facts_of(kinds[k])))
def test_min_and_max_aggregates_of_booleans_and_instants_run_on_columns(p):
    on_columns_as_on_rows(AGGREGATES, {"p": p})


@settings(deadline=None, max_examples=examples(120))
@given(st.sampled_from(sorted(kinds)).flatmap(lambda k: st.tuples(facts_of(kinds[k]), facts_of(kinds[k]), kinds[k])))
def test_min_and_max_of_two_booleans_or_instants_run_on_columns(case):
    from chronolog.language.text import format_term
    from chronolog.engine.term_types import instant

    p, q, c = case
    const = format_term(chronolog.language.booleans.boolean(c) if type(c) is bool else instant(c))
    on_columns_as_on_rows('@input("p").' + CALLS.format(c=const), {"p": p, "q": q})


@settings(deadline=None, max_examples=examples(80))
@given(facts_of(st.booleans() | instants | st.integers(-2, 2)), facts_of(st.booleans() | instants | st.integers(-2, 2)))
def test_booleans_or_instants_beside_other_kinds_give_the_rows_error(p, q):
    """An instant against a number, a boolean against an instant: the rows'
    error (or, where the kinds never meet in one segment or one call, their
    model), whichever executor runs."""
    on_columns_as_on_rows(AGGREGATES + CALLS.format(c="#F"), {"p": p, "q": q}, vectorised=False)
