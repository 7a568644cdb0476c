"""What chronolog prints, its readers read back as the same values, and a
value given in a table or a bound file is the same value on every path
(issue 38): float infinities as arguments, date and timestamp arguments."""

from __future__ import annotations

import datetime as dt
import math

import pyarrow as pa
import pyarrow.parquet as pq

import chronolog
from chronolog.language.fact_columns import read_fact_columns
from chronolog.language.facts import read_fact_rows

INF_ROWS = [(("f4", math.inf), (0, 1, True, True)), (("f5", -math.inf), (0, 1, True, True)), (("f6", 1.5), (0, 1, True, True))]


def test_float_infinities_print_as_the_readers_read_them():
    m = chronolog.reason("", {"t": INF_ROWS})
    text = m.to_text(["t"])
    assert text.splitlines() == ["t(f4,+inf)@[0,1]", "t(f5,-inf)@[0,1]", "t(f6,1.5)@[0,1]"]
    assert chronolog.reason("", text).facts("t") == m.facts("t")  # the program's reader
    assert read_fact_rows(text.splitlines())["t"] == m.facts("t")  # the fact reader
    many = "\n".join(f"t(g{i},{'+inf' if i % 2 else '-inf'})@[0,1]" for i in range(5000)) + "\n" + text + "\n"
    rows = dict(read_fact_columns(many).rows())["t"]  # the kernel fact reader
    assert [r for r in rows if r[0][0].startswith("f")] == m.facts("t")
    assert rows[:2] == [(("g0", -math.inf), (0, 1, True, True)), (("g1", math.inf), (0, 1, True, True))]


def test_infinity_is_a_term_a_rule_compares_with_and_bare_inf_a_name():
    m = chronolog.reason("top(X) :- t(X, V), V == +inf.\nlow(X) :- t(X, V), V < -1.\nname(X) :- u(X, inf).",
                         "t(a,+inf)@1\nt(b,-inf)@1\nu(c,inf)@1\nu(d,\"inf\")@1")
    assert m.lines() == ["low(b)@[1,1]", "name(c)@[1,1]", "name(d)@[1,1]", "top(a)@[1,1]"]


def test_date_and_timestamp_arguments_of_a_bound_parquet_file_stay_dates(tmp_path):
    """As a table given to reason() keeps them (one rule for both paths);
    the time columns of a file are seconds since 1970 on a numeric timeline."""
    day, noon = dt.date(2020, 1, 31), dt.datetime(2020, 1, 31, 12, 30)
    table = pa.table({"d": pa.array([day], pa.date32()), "t": pa.array([noon], pa.timestamp("us")), "start": [0], "end": [5]})
    prog = "q(D, T) :- p(D, T).\n"
    given = chronolog.reason(prog, {"p": table})
    pq.write_table(table, tmp_path / "p.parquet")
    (tmp_path / "p.vada").write_text('@bind("p", "parquet", ".", "p.parquet").\n' + prog)
    bound = chronolog.reason(tmp_path / "p.vada")
    assert bound.facts("q") == given.facts("q") == [((dt.datetime(2020, 1, 31), noon), (0, 5, True, True))]
    assert bound.lines() == ["q(2020-01-31,2020-01-31T12:30:00)@[0,5]"]
    timed = pa.table({"d": ["a"], "start": pa.array([day], pa.date32()), "end": pa.array([dt.date(2020, 2, 1)], pa.date32())})
    pq.write_table(timed, tmp_path / "r.parquet")
    (tmp_path / "r.vada").write_text('@bind("r", "parquet", ".", "r.parquet").\ns(X) :- r(X).\n')
    assert chronolog.reason(tmp_path / "r.vada").facts("s") == [(("a",), (1580428800, 1580515200, True, True))]


def test_exact_numbers_past_decimal128_go_back_in_from_pandas_and_polars():
    """A column of exact numbers needing more than 38 digits (10^300, 10^-40)
    came out of to_pandas/to_polars with its exact text, and reading that
    frame back stopped on pyarrow's ArrowInvalid ("precision 301 does not
    fit"), a traceback; it is read as the same exact numbers."""
    m = chronolog.reason("q(X) :- p(X).  p(0.1)@[0,1].  p(1e300)@[0,1].  p(1e-40)@[1,2].  p(-7)@[0,1].")
    want = m.to_text(["q"])
    for frame in (m.to_pandas("q"), m.to_polars("q"), m.to_arrow("q")):
        assert chronolog.reason("r(X) :- q(X).", {"q": frame}).to_text(["q"]) == want, type(frame)
    for frame in (m.to_pandas(["p", "q"]), m.to_polars(["p", "q"]), m.to_arrow(["p", "q"])):
        assert chronolog.reason("", frame).to_text(["p", "q"]) == m.to_text(["p", "q"]), type(frame)


def test_a_set_of_values_going_back_in_is_named_with_its_column():
    """munion's sets come out as term text ``{a,b}``, which no reader takes
    as a constant; reading the table back said "<a column of term text>:1:5:
    syntax error" about a line ``t(0,{a,b})@0`` the user never wrote."""
    import pytest

    m = chronolog.reason("q(S) :- p(X), S = munion(X).  p(a)@[0,1].  p(b)@[0,2].")
    for frame in (m.to_arrow("q"), m.to_pandas("q"), m.to_polars("q")):
        for engine in ("rows", "columns"):
            with pytest.raises(chronolog.ChronologError) as e:
                chronolog.reason("", {"q": frame}, engine=engine)
            assert e.value.message == "q: the column c0 holds {a,b}, which is no constant", e.value.message
            assert "munion" in e.value.hint
