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


def test_a_set_of_values_goes_back_in_as_that_set():
    """munion's sets come out as term text ``{a,b}``, which no reader took
    as a constant (reading a table back was an error naming its column);
    the set term is part of the language, so each table reads it back."""
    m = chronolog.reason("q(S) :- p(X), S = munion(X).  p(a)@[0,1].  p(b)@[0,2].")
    for frame in (m.to_arrow("q"), m.to_pandas("q"), m.to_polars("q")):
        for engine in ("rows", "columns"):
            assert chronolog.reason("", {"q": frame}, engine=engine).facts("q") == m.facts("q") == [
                ((("a", "b"),), (0, 1, True, True)), ((("b",),), (1, 2, False, True))]


# ------------------------------------------------ every term kind, written and read back

# One predicate per kind of term, so that a CSV column (which has no types of
# its own) is mapped as the docs say a program reading such a file maps it.
KINDS = {
    "integer": ("", ["42", "-7", "9223372036854775808"]),
    "rational": ("", ["0.1", "1/3", "-2.5"]),
    "float": ("float", ["+inf", "-inf"]),  # (and FLOATS: a program's 1.5 is exact)
    "string": ("string", ['"a,b"', r'"say \"hi\""', '"line1\nline2"', '"42"', '" pad "', '"_:n1"', '"#T"', '"2020-01-31"']),
    "name": ("", ["abc", '"http://x.org/a#b"']),
    "date": ("date", ["2020-01-31", "2020-01-31T12:30:00"]),
    "boolean": ("", ["#T", "#F"]),
}
KIND_FACTS = "".join(f"{kind}({v}, x)@[0,1].\n" for kind, (_, vs) in KINDS.items() for v in vs) + "\n".join([
    "ends(a, x)@(-inf,+inf).", "ends(b, x)@(0,1).", "ends(c, x)@[1/3,5).", "ends(d, x)@[5,5]."])
FLOATS = {"float": [((v, "x"), (0, 1, True, True)) for v in (1.5, -0.0, 1e308, 5e-324, 0.1)]}
NULLS = "company(acme)@[0,10].\ncompany(emca)@[0,5].\ncontroller(Y, C) :- company(C).\n"


def _by_label(rows):
    """Facts with each labelled null as its label (nulls of another file are
    other nulls, never equal) and each term with its kind (#T is not 1, 1.0
    not 1; -0.0 is 0.0, as the language compares them)."""
    from chronolog.language.nulls import Null

    def term(v):
        return ("null", v.label) if type(v) is Null else (type(v).__name__, v + 0.0 if type(v) is float else v)

    return sorted(((tuple(map(term, t)), iv) for t, iv in rows), key=repr)


import pytest  # noqa: E402


@pytest.mark.parametrize("kind, ext", [("csv", "csv"), ("parquet", "parquet"), ("arrow", "arrow")])
def test_every_term_kind_written_reads_back_the_same(tmp_path, kind, ext):
    """A labelled null written to CSV (``_:n1``) read back as the string
    "_:n1": the one term kind a written file did not give back.  Every kind
    (numbers exact and float, strings with commas, quotes, line breaks and
    the spelling of other kinds, names, IRIs, dates, timestamps, booleans,
    nulls, infinite and open ends) reads back the same through each format,
    by the row reader and, for CSV, by the Arrow kernels on a large file."""
    from unittest import mock

    from chronolog.outputs import write_outputs
    from chronolog.connectors import csv_columns

    preds = [*KINDS, "ends", "controller"]
    model = chronolog.reason(NULLS + KIND_FACTS, FLOATS)
    out = "".join(f'@output("{p}"). @bind("{p}", "{kind}", "out", "{p}.{ext}").\n' for p in preds)
    (tmp_path / "w.vada").write_text(out + NULLS + KIND_FACTS)
    write_outputs(chronolog.reason(tmp_path / "w.vada", FLOATS), tmp_path / "w.vada", None, overwrite=False, window=None)
    back = "".join(f'@bind("{p}", "{kind}", "out", "{p}.{ext}"). r_{p}(A, B) :- {p}(A, B). @output("r_{p}").\n' for p in preds)
    if kind == "csv":
        back += "".join(f'@mapping("{p}", 0, "c0", "{t}").\n' for p, (t, _) in KINDS.items() if t)
    (tmp_path / "r.vada").write_text(back)
    for engine in ("rows", "columns"):
        again = chronolog.reason(tmp_path / "r.vada", engine=engine)
        for p in preds:
            assert _by_label(again.facts(f"r_{p}")) == _by_label(model.facts(p)), (p, engine)
        nulls = [t[0] for t, _ in again.facts("r_controller")]
        assert len(set(nulls)) == 2 and all(type(v).__name__ == "Null" for v in nulls)  # two nulls, one per label
    if kind == "csv":
        with mock.patch.object(csv_columns, "KERNEL_BYTES", 0):  # the Arrow kernels, on a small file
            assert csv_columns.read_csv_columns(tmp_path / "out" / "controller.csv", "controller", {}, {}, None) is not None
            again = chronolog.reason(tmp_path / "r.vada", engine="columns")
            assert _by_label(again.facts("r_controller")) == _by_label(model.facts("controller"))


@pytest.mark.spark
def test_every_term_kind_written_to_csv_reads_back_the_same_through_spark(spark, tmp_path):
    """Spark's CSV binding read an untyped ``_:n1`` cell as the string
    "_:n1", where the embedded reader reads the labelled null.  Each file
    written is bound twice in one Spark call, ``csv`` (the embedded reader,
    checked against the model above) and ``spark csv`` (read by Spark, its
    cells converted in the task): no fact of one is missing from the other;
    the nulls (which differ between two bindings, as two files' nulls do)
    are nulls, one per label, not their spelling."""
    from chronolog import spark as cs
    from chronolog.outputs import write_outputs

    preds = [*KINDS, "ends", "controller"]
    out = "".join(f'@output("{p}"). @bind("{p}", "csv", "out", "{p}.csv").\n' for p in preds)
    (tmp_path / "w.vada").write_text(out + NULLS + KIND_FACTS)
    write_outputs(chronolog.reason(tmp_path / "w.vada", FLOATS), tmp_path / "w.vada", None, overwrite=False, window=None)
    back = []
    for p in preds:
        mapped = KINDS.get(p, ("",))[0]
        for name, how in ((p, "csv"), (f"s_{p}", "spark csv")):
            back.append(f'@bind("{name}", "{how}", "out", "{p}.csv").')
            back += [f'@mapping("{name}", 0, "c0", "{mapped}").'] if mapped else []
        if p != "controller":
            back.append(f"missing_{p}(A, B) :- {p}(A, B), not s_{p}(A, B). extra_{p}(A, B) :- s_{p}(A, B), not {p}(A, B).")
    back += ['spelt(A) :- s_controller(A, B), A == "_:n1".', "spelt(A) :- s_controller(A, B), A == \"_:n2\".",
             "one(A, B) :- s_controller(A, acme), s_controller(B, acme).",
             "two(A, B) :- s_controller(A, acme), s_controller(B, emca), A != B."]
    (tmp_path / "r.vada").write_text("\n".join(back) + "\n")
    got = {p: sorted(map(tuple, df.collect())) for p, df in cs.reason(spark, tmp_path / "r.vada", distributed=True).items()}
    assert {p: rows for p, rows in got.items() if p.startswith(("missing_", "extra_", "spelt")) and rows} == {}
    assert got["one"] == [("_:n1", "_:n1", 0, 10, True, True)]
    assert got["two"] == [("_:n1", "_:n2", 0, 5, True, True)]


def test_a_csv_column_mapped_string_keeps_a_null_spelling_as_text(tmp_path):
    """``_:n1`` in an untyped CSV cell is a labelled null (as ``#T`` is a
    boolean); mapped ``string``, the column keeps the text, as it keeps "#T"."""
    (tmp_path / "p.csv").write_text("v,start,end\n_:n1,0,1\n_:n1,2,3\n_:n2,0,1\n")
    prog = '@bind("p", "csv", ".", "p.csv"). q(V) :- p(V). @output("q").\n'
    (tmp_path / "a.vada").write_text(prog)
    (tmp_path / "b.vada").write_text(prog + '@mapping("p", 0, "v", "string").\n')
    nulls = chronolog.reason(tmp_path / "a.vada").facts("q")
    assert [(str(t[0]), type(t[0]).__name__, iv) for t, iv in nulls] == [
        ("_:n1", "Null", (0, 1, True, True)), ("_:n1", "Null", (2, 3, True, True)), ("_:n2", "Null", (0, 1, True, True))]
    assert nulls[0][0] == nulls[1][0] != nulls[2][0]  # one label, one null in one file
    assert chronolog.reason(tmp_path / "b.vada").lines() == ['q("_:n1")@[0,1]', 'q("_:n1")@[2,3]', 'q("_:n2")@[0,1]']
