"""``chronolog run --format json`` and ``--format csv`` written from the
columns a run left (connectors/records_out.py) are the bytes written fact
by fact (chronolog/ux_cli.py): terms of every kind, a fact file's names,
floats of a table, dated and unbounded ends, answers of several widths,
and each path's choice (small relations, a window, repeating facts)."""

from __future__ import annotations

import datetime as dt
from fractions import Fraction
import io
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import chronolog
from budget import examples
from chronolog.connectors import records_out
from chronolog.language.booleans import FALSE, TRUE
from chronolog.language.timeline import NEG_INF, POS_INF
from chronolog.ux_cli import model_facts, write_answers, write_facts

TERMS = st.one_of(
    st.integers(-3, 3), st.integers(2**53 - 2, 2**53 + 2), st.integers(2**60, 2**70),
    st.sampled_from([1.0, -0.0, 0.5, 1e300, 1e16, float("inf"), float("-inf")]),
    st.fractions(-2, 2, max_denominator=5), st.sampled_from([TRUE, FALSE]),
    st.text('a"\\\n\r\u2028\x85\x01é ,;<>:', max_size=4), st.sampled_from(["a", "b_2", "not", "inf", "_:x", "#T", "1"]),
    st.dates(dt.date(1999, 1, 1), dt.date(2030, 1, 1)).map(lambda d: dt.datetime(d.year, d.month, d.day)),
)
POINTS = st.one_of(st.integers(-50, 50), st.fractions(-20, 20, max_denominator=6), st.integers(2**53 - 3, 2**53 + 3))


def fact_by_fact(model, fmt: str) -> str:
    buf = io.StringIO()
    write_facts(model, model_facts(model, model.output_predicates, None), fmt, buf)
    return buf.getvalue()


def from_columns(model, fmt: str) -> str:
    buf = io.StringIO()
    write_answers(model, fmt, None, buf)
    return buf.getvalue()


@pytest.fixture
def every_relation(monkeypatch):
    """Every relation the columns hold written from them, however small."""
    monkeypatch.setattr(records_out, "MIN_ROWS", 1)


@st.composite
def given_facts(draw):
    facts = {}
    for pred, width in (("p", draw(st.integers(1, 3))), ("z", 0)):
        rows = []
        for _ in range(draw(st.integers(1 if width else 0, 25))):
            a, b = sorted((draw(POINTS), draw(POINTS)))
            lc, hc = draw(st.booleans()), draw(st.booleans())
            if draw(st.integers(0, 6)) == 0:
                a, lc = NEG_INF, False
            if draw(st.integers(0, 6)) == 0:
                b, hc = POS_INF, False
            if a == b:
                lc = hc = True
            rows.append((tuple(draw(TERMS) for _ in range(width)), (a, b, lc, hc)))
        facts[pred] = rows
    return facts


def program(width: int) -> str:
    """Answers of widths 0, 1, ``width`` and 2 (the last reversed)."""
    xs = ", ".join(f"X{j}" for j in range(width))
    return (f"q(X0) :- p({xs}).\nw :- z.\nr(X{width - 1}, X0) :- p({xs}).\n"
            '@input("z"). @output("q"). @output("w"). @output("r"). @output("p").')


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(given_facts(), st.sampled_from(["json", "csv"]))
@example({"p": [((0,), (Fraction(-1, 2), float("inf"), False, False))], "z": []}, "json")  # (a decimal end: its text in JSON)
@example({"p": [((0,), (NEG_INF, POS_INF, False, False)), ((1,), (NEG_INF, POS_INF, False, False))], "z": []}, "json")  # (ends at the starts' points:
@example({"p": [((0,), (Fraction(1, 2), Fraction(1, 2), True, True)), ((1,), (3, 3, True, True))], "z": []}, "csv")  # their texts made once)
def test_answers_from_columns_are_the_facts_written_one_by_one(every_relation, facts, fmt):
    prog = program(len(facts["p"][0][0]))
    columns = chronolog.reason(prog, facts, engine="columns")
    rows = chronolog.reason(prog, facts, engine="rows")
    # (the columns hold the answers in 99 of 100 examples; a float beside an equal
    # integer in a column, 1.0 and 1, runs on rows: compared all the same)
    assert from_columns(columns, fmt) == fact_by_fact(rows, fmt) == fact_by_fact(columns, fmt)


NAMES = st.one_of(st.sampled_from(["a", "b_2", "not", "inf", "<http://x.org/a>", "a b", 'a"b', "a\\b", "é", "x\u2028y", "x\x85", "1"]),
                  st.text(alphabet='ab_ <>:/#"\\\n\t\x01é€\x85\u2028😀,', min_size=1, max_size=6))


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(NAMES, st.integers(0, 99), st.integers(0, 30)), min_size=1, max_size=40), st.sampled_from(["json", "csv"]))
def test_a_fact_files_names_are_written_as_one_by_one(every_relation, tmp_path_factory, rows, fmt):
    """Names read by the fact file's kernels (a polars Series of them, no
    Python string each) are escaped and quoted by kernels."""
    from chronolog.language.text import format_term

    d = tmp_path_factory.mktemp("names")
    (d / "f.vada").write_text("".join(f"p({format_term(n)}, {v})@[{t},{t + 3}].\n" for n, v, t in rows), encoding="utf-8")
    (d / "r.vada").write_text('q(X, V) :- p(X, V).\n@output("q").\n')
    columns = chronolog.reason(d / "r.vada", [d / "f.vada"], engine="columns")
    rows_model = chronolog.reason(d / "r.vada", [d / "f.vada"], engine="rows")
    assert from_columns(columns, fmt) == fact_by_fact(rows_model, fmt)


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_a_tables_floats_and_dates_are_written_as_one_by_one(every_relation, fmt):
    """Float value columns of an Arrow table (Python's repr by kernels,
    infinities as text) and ends on timelines of days and milliseconds,
    some between whole units, some past year 9999, some unbounded."""
    import pyarrow as pa

    n = 300
    floats = [0.1 * i if i % 7 else (float("inf") if i % 2 else -0.0) for i in range(n)]
    keys = [f"k{i % 9}" for i in range(n)]
    numbers = pa.table({"k": keys, "v": floats, "start": list(range(n)), "end": [i + 1 + i % 4 for i in range(n)]})
    days = pa.table({"k": keys, "v": floats, "start": pa.array([i + (3_000_000 if i % 17 == 0 else 19_000) for i in range(n)], pa.date32()),
                     "end": pa.array([i + (3_000_000 if i % 17 == 0 else 19_000) + 1 + i % 4 for i in range(n)], pa.date32())})
    ms = pa.table({"k": keys, "v": floats, "start": pa.array([1_700_000_000_000 + 7 * i for i in range(n)], pa.timestamp("ms")),
                   "end": pa.array([1_700_000_000_000 + 7 * i + 86_400_000 * (i % 3) + 1 for i in range(n)], pa.timestamp("ms"))})
    for prog, table in (('q(K, V) :- p(K, V).\n@output("q").', numbers),
                        ('@timeGranularity("days").\nq(K, V) :- p(K, V).\n@output("q").', days),
                        ('@timeGranularity("milliseconds").\nq(K, V) :- p(K, V).\nq(K, V) :- p(K, V), V > 100.\n@output("q").', ms)):
        columns = chronolog.reason(prog, {"p": table}, engine="columns")
        rows = chronolog.reason(prog, {"p": table}, engine="rows")
        assert records_out.held(columns, ["q"])
        assert from_columns(columns, fmt) == fact_by_fact(rows, fmt)
    day = dt.datetime(2024, 1, 1)
    dated = [((f"k{i % 5}",), (day + dt.timedelta(hours=i * (i % 3)), POS_INF if i % 13 == 0 else day + dt.timedelta(days=i + 2),
                               True, i % 13 != 0)) for i in range(n)]
    prog = '@timeGranularity("days").\nq(K) :- p(K).\n@output("q").'
    columns = chronolog.reason(prog, {"p": dated}, engine="columns")
    rows = chronolog.reason(prog, {"p": dated}, engine="rows")
    assert records_out.held(columns, ["q"])
    assert from_columns(columns, fmt) == fact_by_fact(rows, fmt)


def test_which_relations_are_written_from_columns():
    """From MIN_ROWS answers, not in LARS (its ticks), not repeating ones,
    never on rows; a window writes fact by fact."""
    big = {"p": [((f"k{i}",), (i, i + 1, True, False)) for i in range(records_out.MIN_ROWS)]}
    small = {"p": [((f"k{i}",), (i, i + 1, True, False)) for i in range(records_out.MIN_ROWS - 1)]}
    prog = 'q(X) :- p(X).\n@output("q").'
    assert records_out.held(chronolog.reason(prog, big, engine="columns"), ["q"]) == {"q": 1}
    assert records_out.held(chronolog.reason(prog, small, engine="columns"), ["q"]) == {}
    assert records_out.held(chronolog.reason(prog, big, engine="rows"), ["q"]) == {}
    model = chronolog.reason(prog, big, engine="columns")
    buf = io.StringIO()
    write_answers(model, "csv", (0, 5, True, False), buf)
    assert buf.getvalue().splitlines()[1:] == [f"q,k{i},{i},{i + 1},true,false" for i in range(5)]


def test_an_end_no_date_holds_names_its_predicate_and_writes_nothing(every_relation):
    """An end between two microseconds (a rule's 1/7 of a day, computed by
    the rows) stops the command before anything is written, even the
    relations before it written from the columns, and names its predicate."""
    prog = ('@timeGranularity("days").\nq(X) :- p(X).\nzz(X)@[S, E] :- p(X)@[S, E0], E = S + 1/7.\n'
            '@output("q"). @output("zz").')
    day = dt.datetime(2024, 1, 1)
    facts = {"p": [((f"k{i}",), (day + dt.timedelta(days=i), day + dt.timedelta(days=i + 1), True, False)) for i in range(300)]}
    model = chronolog.reason(prog, facts, engine="columns")
    assert "q" in records_out.held(model, ["q", "zz"])
    for fmt in ("json", "csv"):
        buf = io.StringIO()
        with pytest.raises(chronolog.DataError, match="zz: the time .* is not a whole number of microseconds"):
            write_answers(model, fmt, None, buf)
        assert buf.getvalue() == ""


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_answers_from_columns_beside_repeating_facts(fmt):
    """A relation written from the columns beside facts that repeat
    (written fact by fact, with an ``every``; a run with such facts runs
    on rows today, so they are handed in): the CSV's rows all have the
    ``every`` column, empty where nothing repeats."""
    from chronolog.frames import Fact

    prog = 'q(X, V) :- p(X, V).\n@output("q").'
    facts = {"p": [((f"k{i % 40}", i), (i, i + 2, True, False)) for i in range(records_out.MIN_ROWS * 2)]}
    columns = chronolog.reason(prog, facts, engine="columns")
    rows = chronolog.reason(prog, facts, engine="rows")
    held = records_out.held(columns, ["q"])
    assert held == {"q": 2}
    repeating = [Fact("j", ("a",), (0, 0, True, True), 30, None)]
    got, want = io.StringIO(), io.StringIO()
    write_facts(columns, {"j": repeating, "q": []}, fmt, got, held)
    write_facts(rows, {"j": repeating, "q": model_facts(rows, ["q"], None)["q"]}, fmt, want)
    assert got.getvalue() == want.getvalue()
    if fmt == "csv":
        lines = got.getvalue().splitlines()
        assert lines[0].endswith(",every") and {line.count(",") for line in lines} == {7}


def test_the_command_writes_json_and_csv_from_columns(tmp_path):
    """The whole command: the bytes of --format json and csv on columns as
    on rows, with a relation of fewer answers than MIN_ROWS beside."""
    from click.testing import CliRunner

    from chronolog.cli import cli

    (tmp_path / "f.vada").write_text("".join(f'p("s{i % 50}", {i % 7}, {i / 8})@[{i},{i + 5}].\n' for i in range(2000)))
    (tmp_path / "r.vada").write_text('q(X, V, W) :- p(X, V, W).\nfew(X) :- p(X, 3, _), X = "s1".\n@output("q"). @output("few").\n')
    for fmt in ("json", "csv"):
        out = {}
        for engine in ("rows", "columns"):
            res = CliRunner().invoke(cli, ["run", str(tmp_path / "r.vada"), "--facts", str(tmp_path / "f.vada"),
                                            "--format", fmt, "--engine", engine])
            assert res.exit_code == 0, res.output
            out[engine] = res.output
        assert out["rows"] == out["columns"]
        assert sum(line.startswith(('{"pred": "q"', "q,")) for line in out["rows"].splitlines()) == 2000
