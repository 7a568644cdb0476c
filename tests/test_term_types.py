"""The one rule of term equality (engine/term_types.py) against Python's own
equality of the engine's values, which nobody here wrote: ``key_text``
(the keyed stream's groups) is shared exactly by equal terms, and an
instant is equal to another exactly at the same UTC instant."""

import datetime as dt
from fractions import Fraction

from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from chronolog.engine.term_types import instant, key_text
from chronolog.language.booleans import boolean
from chronolog.language.text import make_set
from chronolog.language.timeline import normalize

UTC = dt.timezone.utc
_days = st.dates(min_value=dt.date(1969, 12, 30), max_value=dt.date(1970, 1, 2))
_zones = st.sampled_from([UTC, dt.timezone(dt.timedelta(hours=9)), dt.timezone(dt.timedelta(hours=-5))])
instants = st.one_of(
    _days.map(instant),
    st.builds(lambda d, h, z: instant(dt.datetime(d.year, d.month, d.day, h, tzinfo=z)), _days, st.sampled_from([0, 5, 9, 19]), _zones),
    st.builds(lambda d, h: dt.datetime(d.year, d.month, d.day, h), _days, st.sampled_from([0, 5])),
)
terms = st.one_of(
    st.integers(-3, 3),
    st.integers(2**62, 2**64),
    st.fractions(min_value=-3, max_value=3, max_denominator=4),
    st.sampled_from([0.0, -0.0, 0.5, 1.0, 2.0, 0.1, 1e300, float("inf"), -float("inf"), 2.0**63]),
    st.booleans(),
    st.booleans().map(boolean),
    st.sampled_from(["a", "1", "#T", "2024-01-01", "1.0"]),
    instants,
)


def engine_equal(a, b) -> bool:
    """The engine's equality: Python's, with #T/#F (and Python's bool, read as them) never a number."""
    if isinstance(a, bool):
        a = boolean(a)
    if isinstance(b, bool):
        b = boolean(b)
    return a == b


@settings(max_examples=examples(2000))
@given(terms, terms)
def test_key_text_is_shared_exactly_by_equal_terms(a, b):
    assert (key_text(a) == key_text(b)) == engine_equal(a, b), (a, b)


@settings(max_examples=examples(500))
@given(st.one_of(terms, st.lists(st.one_of(st.integers(-3, 3), st.sampled_from(["a", "b c", 0.1, 0.5])), min_size=1, max_size=3).map(make_set),
                 st.sampled_from([Fraction(0.1), Fraction(2.0**-60), 2.0**-60])))
def test_key_text_reads_back_as_an_equal_term(a):
    """The text is term text (the Spark rounds' column of term text writes
    it out as it is): the fact reader gives back an equal term of that key
    text, and a float whose shortest text is another number reads back a
    float (``float(0.1)``), not the rational of its binary value (a whole
    float reads back as the integer it equals)."""
    from chronolog.engine.arrow import parse_term_texts

    (back,) = parse_term_texts([key_text(a)], None)
    assert engine_equal(back, a) and key_text(back) == key_text(a), (a, key_text(a), back)
    if type(a) is float and a - a == 0 and not a.is_integer() and Fraction(repr(a)) != Fraction(a):
        assert type(back) is float and key_text(a) == f"float({a!r})", (a, key_text(a))


def test_an_instant_is_its_utc_wall_clock():
    assert instant(dt.date(2024, 1, 1)) == dt.datetime(2024, 1, 1)
    assert instant(dt.datetime(2024, 1, 1, 9, tzinfo=dt.timezone(dt.timedelta(hours=9)))) == dt.datetime(2024, 1, 1)
    assert instant(dt.datetime(2024, 3, 10, 2, 30)) == dt.datetime(2024, 3, 10, 2, 30)  # a wall clock read as UTC
    assert key_text(instant(dt.date(2024, 1, 1))) != key_text(1704067200)  # never a number
    assert key_text(1) == key_text(1.0) == key_text(Fraction(2, 2)) != key_text(boolean(True))


_column_values = st.one_of(
    st.lists(st.integers(-(2**64), 2**64) | st.sampled_from([2**63 - 1, -(2**63), 2**63, 10**18, -(10**18) - 1]), min_size=1, max_size=5),
    st.lists(st.booleans().map(boolean), min_size=1, max_size=3),
    st.lists(st.sampled_from([0.5, 1.0, -2.25]), min_size=1, max_size=3),
    st.lists(st.fractions(min_value=-1000, max_value=1000, max_denominator=8).map(normalize) | st.integers(-(10**20), 10**20),
             min_size=1, max_size=5),  # (the engine's numbers: a whole Fraction is an int)
    st.lists(st.sampled_from([Fraction(1, 4), Fraction(-5, 2), 100, 0]), min_size=64, max_size=80),  # numpy's decimals (64+)
    st.lists(instants, min_size=1, max_size=4),
    # (instants of Python's every year, to the microsecond, or every one a midnight: a DATE column; a null among them;
    # 256 and more: by their microseconds in numpy)
    st.lists(st.one_of(st.datetimes(), st.dates().map(instant)), min_size=1, max_size=6),
    st.lists(st.one_of(st.datetimes(), st.dates().map(instant)), min_size=256, max_size=260),
    st.lists(st.one_of(st.dates().map(instant), st.none()), min_size=256, max_size=260).filter(lambda vs: any(v is not None for v in vs)),
    st.lists(st.one_of(st.integers(0, 3), st.sampled_from(["a", 0.5]), instants), min_size=1, max_size=4),
)


@settings(max_examples=examples(300))
@given(_column_values)
def test_the_kinds_type_a_column_as_model_to_arrow_does(values):
    """The Spark paths type an answer column by its kind (value_kind, merged
    over tasks); ``Model.to_arrow`` (engine/arrow.py ``_column``) by its
    values: the same Arrow type and values, 19-digit integers that fit 64
    bits included (decimal(19, 0) on Spark before)."""
    from chronolog.engine.arrow import _column
    from chronolog.engine.term_types import arrow_type, typed_array, value_kind

    kind = value_kind(values)
    want = _column(values)
    assert arrow_type(kind) == want.type, (values, kind)
    assert typed_array(values, kind, want.type).equals(want)


_TOKYO = dt.timezone(dt.timedelta(hours=9))
# (a Python value given as a term in a dict of rows, the fact text of the same instant)
_GIVEN_INSTANTS = [
    (dt.date(2024, 1, 1), "2024-01-01"),
    (dt.datetime(2024, 1, 1, 9, tzinfo=_TOKYO), "2024-01-01T00:00:00"),
    (dt.datetime(2024, 1, 1, 6, 30), "2024-01-01T06:30:00"),
]


def test_a_date_or_datetime_given_in_rows_is_the_instant_its_text_writes():
    """A date or an aware datetime in a dict of rows was kept as Python's
    value: ``datetime.date`` made printing stop on an AttributeError (it
    has no ``hour``), and neither equalled the program's constant of the
    same instant (``V == 2024-01-01`` held nowhere).  The oracle: the same
    facts as text, read by the parser."""
    import chronolog

    program = "\n".join(f"q{i}(X) :- p(X, V), V == {text}." for i, (_, text) in enumerate(_GIVEN_INSTANTS)) + "\nr(X, V) :- p(X, V)."
    rows = {"p": [((f"a{i}", v), (0, 1)) for i, (v, _) in enumerate(_GIVEN_INSTANTS)]}
    text = "\n".join(f"p(a{i}, {t})@[0,1]" for i, (_, t) in enumerate(_GIVEN_INSTANTS))
    for engine in ("rows", "columns"):
        expected = chronolog.reason(program, text, engine=engine).to_text()
        assert "q2(a2)" in expected
        assert chronolog.reason(program, rows, engine=engine).to_text() == expected
        r = chronolog.Reasoner(program, text, engine=engine)
        m = r.model
        assert all(m.holds("r", (f"a{i}", v), (0, 1)) for i, (v, _) in enumerate(_GIVEN_INSTANTS))  # (it said False)
        assert r.retract(rows).to_text() == ""  # the same atoms, taken back


def test_a_stream_checks_the_rows_it_is_given_as_reason_does():
    """``Stream.push`` of a dict of rows took the terms unchecked: a string
    as the terms tuple ('ab' read as ('a', 'b')), None, NaN and a date
    (which stopped the printing) went in."""
    import pytest

    import chronolog

    for terms in ("ab", ("a", None), ("a", float("nan")), ("a", [1])):
        s = chronolog.Stream("q(X, V) :- p(X, V).")
        with pytest.raises(chronolog.ChronologError):
            s.push({"p": [(terms, 1)]})
    s = chronolog.Stream("q(X) :- p(X, V), V == 2024-01-01.")
    s.push({"p": [(("a", dt.date(2024, 1, 1)), 1)]})
    s.close()
    assert [str(f) for f in s] == ["q(a)@[1,1]"]


def test_a_decimal_given_in_rows_is_the_exact_number_its_text_writes():
    """A ``Decimal`` in a dict of rows was kept as Python's value: sums and
    averages refused it ("sum() needs numbers, but a binding gives 1.50"),
    comparisons with a number did too, and it printed as ``1.50``.  The
    oracle: the same facts as text, read by the parser (and a decimal
    NaN is refused as a float NaN is)."""
    from decimal import Decimal

    import pytest

    import chronolog

    program = "s(S) :- p(X, V), S = sum(V). a(A) :- p(X, V), A = avg(V). b(X, V) :- p(X, V), V > 1. w(X, W) :- p(X, V), W = V * 2."
    values = ["1.50", "-0.00", "2", "12345678901234567890.125", "-7.3"]
    rows = {"p": [((f"x{i}", Decimal(v)), (i, i + 3)) for i, v in enumerate(values)]}
    text = "\n".join(f"p(x{i}, {v})@[{i},{i + 3}]" for i, v in enumerate(values))
    for engine in ("rows", "columns"):
        expected = chronolog.reason(program, text, engine=engine)
        assert "b(x0,1.5)" in expected.to_text()
        model = chronolog.reason(program, rows, engine=engine)
        assert model.to_text() == expected.to_text()
        assert model.holds("b", ("x0", Decimal("1.5")), (0, 3))
        r = chronolog.Reasoner(program, text, engine=engine)
        assert r.retract(rows).to_text() == ""  # the same atoms, taken back
    for nan in (Decimal("NaN"), Decimal("sNaN")):
        with pytest.raises(chronolog.ChronologError, match="NaN is not a value"):
            chronolog.reason(program, {"p": [(("x", nan), (0, 1))]})


def test_numpy_numbers_given_in_rows_are_the_python_values_they_hold():
    """Rows built from a DataFrame's column arrays hold numpy scalars: ``np.int64(3)`` was refused as "not a constant" (the hint
    said constants are numbers), an ``np.int64`` end as "not a time
    point" and numpy booleans as closedness flags.  The oracle: the same
    rows of Python's own values."""
    import numpy as np
    import pandas as pd

    import chronolog

    program = "s(X, S) :- p(X, V, F, B), S = sum(V). w(X, W) :- p(X, V, F, B), W = V * F. t(X, B) :- p(X, V, F, B), B == #T."
    frame = pd.DataFrame({"x": ["a", "b", "a"], "v": np.array([3, -2**40, 7], np.int64), "f": np.array([0.5, 2.0, 1.25], np.float32),
                          "b": [True, False, True], "start": np.array([0, 2, 1], np.int32), "end": [4, 5, 9],
                          "start_closed": [True, False, True], "end_closed": [False, True, True]})
    cells = zip(*(frame[c].to_numpy() for c in frame.columns))
    rows = {"p": [((x, v, f, b), (s, e, sc, ec)) for x, v, f, b, s, e, sc, ec in cells]}
    assert type(rows["p"][0][0][1]).__module__ == "numpy" and type(rows["p"][0][1][2]).__module__ == "numpy"
    python = {"p": [((x, int(v), float(f), bool(b)), (int(s), int(e), bool(sc), bool(ec))) for (x, v, f, b), (s, e, sc, ec) in rows["p"]]}
    for engine in ("rows", "columns"):
        expected = chronolog.reason(program, python, engine=engine)
        assert "t(a,#T)@[0,9]" in expected.to_text()
        assert chronolog.reason(program, rows, engine=engine).to_text() == expected.to_text()
        model = chronolog.reason(program, rows, engine=engine)
        assert model.holds("t", (np.str_("a"), np.True_), (np.int64(0), np.int64(9)))  # (np.True_ was not #T: False)
        assert not model.holds("t", ("a", np.int64(1)), (0, 9))  # (#T is never the number 1)
        r = chronolog.Reasoner(program, python, engine=engine)
        assert r.retract(rows).to_text() == ""  # the same atoms, taken back
        # a horizon's ends and a stream's watermark too ("np.int64(1) is not a time point")
        assert (chronolog.reason(program, rows, engine=engine, horizon=(np.int64(1), np.int32(4))).to_text()
                == chronolog.reason(program, python, engine=engine, horizon=(1, 4)).to_text())
    streams = []
    for t in (np.int64(3), 3):
        s = chronolog.Stream("q(X) :- <->[0,1] p(X).")
        s.push("p(a)@1")
        s.advance(t)
        streams.append([str(f) for f in s])
    assert streams[0] == streams[1] == ["q(a)@[1,2]"]
