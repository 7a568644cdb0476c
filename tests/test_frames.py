"""Dataframes and notebooks (chronolog/frames.py): typed pandas and Polars
columns, one or all predicates, and round trips (a frame given back as
facts gives the same model)."""

from __future__ import annotations

import datetime as dt
from fractions import Fraction

import pandas as pd
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog

PROGRAM = "q(X,Y) :- <->[0,1/3] p(X,Y).  p(a,1)@[1,2].  p(b,2.5)@[0,1/2).  p(c,3)@[4,+inf)."


def same_facts(m1, m2, preds):
    for p in preds:
        assert m1.facts(p) == m2.facts(p), p


def test_typed_pandas_columns():
    df = chronolog.reason(PROGRAM).to_pandas("q")
    assert list(df.columns) == ["c0", "c1", "c1_exact", "start", "end", "end_exact", "start_closed", "end_closed"]
    assert str(df["start"].dtype) == "Int64" and df["c1"].dtype == "float64" and df["end"].dtype == "float64"
    assert list(df["end_exact"]) == ["7/3", "5/6", pd.NA] or list(df["end_exact"].fillna("-")) == ["7/3", "5/6", "-"]
    assert df["end"].isna().tolist() == [False, False, True]  # +inf is null, never a float infinity
    assert df["c1"].tolist() == [1.0, 2.5, 3.0]


def test_all_predicates_with_a_pred_column_and_round_trip():
    m = chronolog.reason(PROGRAM)
    df = m.to_pandas(["p", "q"])
    assert df["pred"].tolist() == ["p"] * 3 + ["q"] * 3
    back = chronolog.reason("r(X,Y) :- q(X,Y).", df)
    same_facts(m, back, ["p", "q"])
    assert chronolog.reason("", m.to_polars(["p", "q"])).to_text(["p", "q"]) == m.to_text(["p", "q"])
    assert m.to_arrow().column_names[0] == "pred"  # every output predicate


def test_polars_typed_and_accepted_as_input():
    m = chronolog.reason(PROGRAM)
    df = m.to_polars("q")
    assert df.schema["start"] == pl.Int64 and df.schema["end_exact"] == pl.String
    assert isinstance(df, pl.DataFrame)
    back = chronolog.reason("r(X,Y) :- q(X,Y).", {"q": df})
    assert back.facts("r") == m.facts("q")
    typed = pl.DataFrame({"s": ["x", "y"], "start": [1, 5], "end": [3, None]})
    assert chronolog.reason("h(S) :- <->[0,1] m(S).", {"m": typed}).to_text() == "h(x)@[1,4]\nh(y)@[5,+inf)"


def test_dated_programs_have_datetime_columns():
    prog = '@timeGranularity("days"). q(X) :- <->[0,P1D] p(X). p(a)@[2024-01-01,2024-01-03).'
    m = chronolog.reason(prog)
    df = m.to_pandas("q")
    assert str(df["start"].dtype).startswith("datetime64") and df["start"][0] == pd.Timestamp("2024-01-01")
    pdf = m.to_polars()
    assert pdf["end"][0] == dt.date(2024, 1, 4)
    same_facts(m, chronolog.reason('@timeGranularity("days").', df.assign(pred="q")), ["q"])
    same_facts(m, chronolog.reason('@timeGranularity("days").', pdf), ["q"])


def test_repeating_facts_need_a_window():
    m = chronolog.reason("job(X) :- <->[30,30] job(X). job(a)@0.")
    with pytest.raises(chronolog.ChronologError, match="repeat forever"):
        m.to_pandas()
    assert m.to_pandas(window=(0, 60))["start"].tolist() == [0, 30, 60]


def test_getitem_iteration_and_html():
    m = chronolog.reason(PROGRAM)
    assert [str(f) for f in m["q"]] == ["q(a,1)@[1,7/3]", "q(b,2.5)@[0,5/6)", "q(c,3)@[4,+inf)"]
    assert [f.pred for f in m] == ["p"] * 3 + ["q"] * 3
    assert len(list(m)) == len(m)
    with pytest.raises(KeyError, match="no predicate 'zz'"):
        m["zz"]
    html = m._repr_html_()
    assert "6 facts in 2 predicates" in html and html.count("<tr>") == 3 and "q(a,1)@[1,7/3]" in html
    rep = chronolog.reason("job(X) :- <->[30,30] job(X). job(a)@0.")
    assert [str(f) for f in rep["job"]] == ["job(a)@[0,0] every 30"]


def test_a_predicate_is_in_the_model_exactly_when_the_model_can_be_indexed_by_it():
    m = chronolog.reason("@output(alert). alert(S) :- hot(S), not cold(S). hot(s1)@[0,5]. quiet(s1)@[0,1].")
    for pred in ("alert", "hot", "quiet", "cold", "zz", "s1"):
        try:
            m[pred]
            indexable = True
        except KeyError:
            indexable = False
        assert (pred in m) == indexable, pred
    assert "alert" in m and "cold" in m and "zz" not in m  # cold: in the program, without facts ([])
    assert m["cold"] == [] and m["alert"][0] in m  # a Fact is in the model it comes from
    # a fact's text asks whether it holds (it was taken for a predicate name: always False)
    assert "alert(s1)@[0,5]" in m and "alert(s1)@3" in m and "hot(s1)@[4,5]" in m
    assert "alert(s1)@6" not in m and "alert(s2)@1" not in m and "alert(s1)@[0,6]" not in m


numbers = st.one_of(st.integers(-5, 5), st.fractions(min_value=-5, max_value=5, max_denominator=7))


@settings(deadline=None, max_examples=examples(60), suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from(["a", "b"]), numbers, numbers, st.integers(0, 4), st.booleans(), st.booleans()), max_size=8))
def test_random_round_trips(rows):
    facts = []
    for s, v, lo, length, lc, hc in rows:
        hi = lo + length
        if length == 0:
            lc = hc = True
        facts.append(f"p({s},{v if not isinstance(v, Fraction) else str(v)})@{'[' if lc else '('}{lo},{hi}{']' if hc else ')'}")
    m = chronolog.reason("", "\n".join(facts))
    if not rows:  # no p at all: facts("p") refuses an unknown predicate
        return
    decimal = all((v.denominator & (v.denominator - 1)) == 0 or v.denominator == 5 for _, v, *_ in rows if isinstance(v, Fraction))
    # the Arrow layout keeps a rational term (1/3) as text; pandas and Polars add an exact column
    for make in (lambda: m.to_pandas("p"), lambda: m.to_polars("p")) + ((lambda: m.to_arrow("p")),) * decimal:
        if not m.facts("p"):
            continue
        assert chronolog.reason("", {"p": make()}).facts("p") == m.facts("p")
    if m.facts("p"):
        assert chronolog.reason("", m.to_pandas(["p"])).facts("p") == m.facts("p")
        assert chronolog.reason("", m.to_polars(["p"])).facts("p") == m.facts("p")


def test_rational_text_is_found_in_any_chunk_or_slice():
    """A string column is rational text when every value is a number and
    one is written p/q: a ``/`` in any chunk, not outside a slice's
    values (frames._has_slash reads whole buffers; the values decide)."""
    import pyarrow as pa

    from chronolog.frames import _rational_text

    assert _rational_text(pa.chunked_array([pa.array(["1", "2"]), pa.array(["1/3"])]))
    assert not _rational_text(pa.chunked_array([pa.array(["a/b", "2"])]))
    assert not _rational_text(pa.array(["1/3", "x", "2"]).slice(1))  # (the buffer has a /, the values none)
    assert _rational_text(pa.array(["x", "1/3", "2"]).slice(1))
    assert not _rational_text(pa.array(["a", "b"])) and not _rational_text(pa.array([], pa.string()))


def test_one_fact_is_said_in_the_singular():
    """The repr and the notebook view said '1 facts in 1 predicates'."""
    m = chronolog.reason("j :- <->[30,30] j.", "j@0")
    assert repr(m) == "<chronolog.Model: 1 fact in 1 predicate>"
    assert "1 fact in 1 predicate (some repeat forever)" in m._repr_html_()


def test_to_pandas_and_to_polars_name_themselves_in_their_errors():
    """An unknown predicate, or facts that repeat forever without a window,
    given to to_pandas() or to_polars() was reported as to_arrow()'s, a
    method the user had not called (its hint: "to_arrow('r', window=...)")."""
    import pytest

    model = chronolog.reason("r(X) :- <->[7,7] r(X).  r(a)@[0,1].")
    for call in ("to_pandas", "to_polars", "to_arrow"):
        with pytest.raises(chronolog.ChronologError) as e:
            getattr(model, call)("zzz")
        assert e.value.message.startswith(f"{call}(): the predicate 'zzz' does not occur"), e.value.message
        with pytest.raises(chronolog.ChronologError) as e:
            getattr(model, call)("r")
        assert e.value.hint == f"pass a window: {call}('r', window=(0, 1000))", e.value.hint
        assert len(getattr(model, call)("r", window=(0, 20))) == 3


def test_a_window_takes_the_text_from_to_as_a_horizon_does():
    """``window="0,3"`` was refused ('is not a time point') though
    ``horizon="0,3"`` is read: one parser reads both, numbers and dates."""
    m = chronolog.reason("job(X) :- <->[30,30] job(X). job(a)@0. owner(a)@[0,5].")
    assert m.to_pandas("job", window="0,60").equals(m.to_pandas("job", window=(0, 60)))
    assert m.to_pandas(window=" 0 , 60 ").equals(m.to_pandas(window=(0, 60)))
    assert m.to_arrow("owner", window="1,3") == m.to_arrow("owner", window=(1, 3))
    assert m.to_polars("owner", window="1,3").equals(m.to_polars("owner", window=(1, 3)))
    assert m.facts_within("job", "0,60") == m.facts_within("job", (0, 60))
    assert m.facts_within("owner", "2,inf") == [(("a",), (2, 5, True, True))]
    dated = chronolog.reason('@timeGranularity("days"). late(X) :- due(X). due(i7)@[2024-01-01,2024-01-09].')
    assert dated.to_pandas("late", window="2024-01-02,2024-01-04").equals(dated.to_pandas("late", window=("2024-01-02", "2024-01-04")))
    with pytest.raises(chronolog.ChronologError, match="bad window '0,3,4'"):
        m.to_pandas("owner", window="0,3,4")
    with pytest.raises(chronolog.ChronologError, match="bad window: 3 > 0"):
        m.facts_within("owner", "3,0")
