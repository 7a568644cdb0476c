"""Every answer chronolog writes reads back as the same answer.

A model written as text (``Model.to_text()``), as Arrow, pandas or Polars
tables (one predicate, or all of them with a ``pred`` column), as Parquet
(pyarrow's writer over ``to_arrow``), by the command line (``--output`` CSV
files, ``--format csv``, ``--format json``'s ``text``, Parquet and Arrow
output bindings) and read back as facts through the public API or the
command line is the same model: every kind of term (ints, floats with
their extremes and ``-0.0``, exact rationals, strings that look like
anything else, dates and timestamps, ``munion`` sets, labelled nulls) and
interval end (open, closed, unbounded), on both executors.  The oracle is
the model itself: what was written must come back, kind and value.

Where a format cannot carry a kind by design, the comparison says how
(docs/language.md, docs/cli.md): fact text reads a float's printed number
as the exact number it shows, and a CSV column reads back by its
``@mapping`` type."""

from __future__ import annotations

import datetime as dt
import json
import math
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import chronolog
from chronolog.language.booleans import Boolean
from chronolog.language.nulls import Null
from chronolog.language.booleans import terms as bool_terms
from chronolog.language.text import make_set

from budget import examples

ENGINES = ["rows", "columns"]
pytestmark = pytest.mark.filterwarnings("ignore:.*the rule is existential")

# ---------------------------------------------------------------- terms

TRICKY = [
    "", " ", " a", "a ", " a b ", "1", "-1", "\u0661", "\uff11", " 1", "+1", ".5", "1.5", "1/3", "1e5", "+inf", "-inf", "inf", "nan", "NaN",
    "2020-01-01", "2020-01-01T10:00:00", "#T", "#F", "true", "_:n1", "{a}", "{}", "not", "every",
    "a,b", 'say "hi"', "back\\slash", "\\", "line\nbreak", "tab\there", "cr\r", "\u2028", "é", "日本",
    "😀", "a\"b\\\"c", "Upper", "_", "p(a)@1", "%", "a b",
]

ints = st.one_of(st.integers(-1000, 1000), st.integers(-(2**70), 2**70), st.sampled_from([2**63 - 1, -(2**63), 2**53 + 1]))
floats = st.one_of(
    st.floats(allow_nan=False, width=64),
    st.sampled_from([-0.0, 0.0, 1e300, -1e300, 5e-324, -5e-324, math.inf, -math.inf, 0.1, 1.0, 2.0**63, 1e16]),
)
exacts = st.one_of(
    st.fractions(min_value=-(10**6), max_value=10**6, max_denominator=10**4),
    st.decimals(allow_nan=False, allow_infinity=False, places=4, min_value=-(10**6), max_value=10**6),
    st.sampled_from([Fraction(1, 3), Decimal("1.50"), Fraction(-7, 3), Fraction(10**30 + 1, 7)]),
)
strings = st.one_of(st.sampled_from(TRICKY), st.text(max_size=6), st.from_regex(r"[a-z][A-Za-z0-9_]{0,4}", fullmatch=True))
UTC = dt.timezone.utc
moments = st.one_of(
    st.dates(dt.date(1, 1, 1), dt.date(9999, 12, 31)).map(lambda d: dt.datetime(d.year, d.month, d.day)),
    st.datetimes(dt.datetime(1, 1, 2), dt.datetime(9999, 12, 30)),
    st.datetimes(dt.datetime(2, 1, 1), dt.datetime(9998, 12, 31), timezones=st.sampled_from([UTC, dt.timezone(dt.timedelta(hours=5, minutes=30)), dt.timezone(-dt.timedelta(hours=8))])),
)
booleans = st.booleans()
# a set of values (what munion gives), as the Python API takes one: a tuple
# or a set of constants of any kind but sets
set_members = st.one_of(
    st.integers(-5, 5), st.sampled_from(["a", "b c", "1", "{x}", 'q"', "", "#T"]), st.fractions(-3, 3, max_denominator=4),
    st.sampled_from([1.5, -0.0, math.inf, 1e300]), st.booleans(), st.sampled_from([dt.datetime(2020, 1, 31), dt.datetime(2020, 1, 31, 12, 30)]),
)
sets = st.lists(set_members, max_size=4).flatmap(lambda xs: st.sampled_from([tuple(xs), frozenset(xs)]))

KINDS = {"int": ints, "float": floats, "exact": exacts, "string": strings, "date": moments, "bool": booleans, "set": sets}
any_term = st.one_of(*KINDS.values())

ends = st.one_of(st.integers(-50, 50), st.fractions(-50, 50, max_denominator=8))


@st.composite
def intervals(draw, ends=ends):
    """An interval of the points ``ends`` gives, or unbounded, each end
    open or closed (an unbounded one open)."""
    lo = draw(st.one_of(ends, st.just(-math.inf)))
    hi = draw(st.one_of(ends.filter(lambda x: x >= lo) if lo != -math.inf else ends, st.just(math.inf)))
    if lo == hi:
        return (lo, hi, True, True)
    lc = draw(st.booleans()) and lo != -math.inf
    hc = draw(st.booleans()) and hi != math.inf
    return (lo, hi, lc, hc)


@st.composite
def datasets(draw):
    """Facts of ``p/2``: each column one kind (what CSV's @mapping can
    type) or any mix of kinds (a column of term text in tables)."""
    kinds = draw(st.lists(st.sampled_from([*KINDS, "mixed"]), min_size=2, max_size=2))
    cols = [any_term if k == "mixed" else KINDS[k] for k in kinds]
    rows = draw(st.lists(st.tuples(st.tuples(*cols), intervals()), min_size=1, max_size=5))
    return kinds, rows


# ---------------------------------------------------------------- comparing models


def key(v):
    """A term's identity: its kind and exact value (a float by its bits:
    -0.0 and 0.0 are one term, which leaves the engine as 0.0; a null by
    kind alone, see ``canon``)."""
    if type(v) is float:
        return ("float", v.hex())
    if type(v) is tuple:
        return ("set", tuple(key(x) for x in v))
    if type(v) is Null:
        return ("null",)
    if type(v) is Boolean or type(v) is bool:
        return ("bool", bool(v))
    if isinstance(v, dt.datetime):
        return ("date", v.isoformat())
    if type(v) is str:
        return ("str", v)
    assert type(v) in (int, Fraction), (type(v), v)
    return ("num", Fraction(v))  # (an exact number: 0 and Fraction(0) are one)


def canon(model, preds):
    """The facts of ``preds``, kinds and values, in one order; nulls by the
    pattern of their sharing (read back, a null is a new one)."""
    out = {}
    for p in preds:
        facts = sorted((tuple(map(key, t)), iv, tuple(t)) for t, iv in model.facts(p))
        labels: dict = {}
        for _, _, terms in facts:
            for v in terms:
                if type(v) is Null:
                    labels.setdefault(v.label, len(labels))
        out[p] = sorted(
            (tuple(("null", labels[v.label]) if type(v) is Null else key(v) for v in terms), iv) for _, iv, terms in facts
        )
    return out


def as_text_reads(v):
    """What fact text reads for a term the model holds: a float's printed
    number is the exact number it shows (docs/language.md, "Floats"),
    its infinities stay floats."""
    if type(v) is float and math.isfinite(v):
        return Fraction(repr(v)) if v else 0
    if type(v) is tuple:  # (its booleans leave the engine as Python's: the terms again, apart from 1 and 0)
        return make_set(map(as_text_reads, bool_terms(v)))
    return v


# ---------------------------------------------------------------- the round trips

PROGRAM = "q(A, B) :- p(A, B).\n"
EXISTENTIAL = "n(Y, A) :- p(A, B).\n"  # a labelled null per A (non-temporal rule)


def _model(engine, rows, nulls):
    prog = PROGRAM + (EXISTENTIAL if nulls else "")
    return chronolog.reason(prog, {"p": rows}, engine=engine)


def _preds(m):
    return [p for p in ("q", "n") if p in m.predicates()]


def _back(engine, facts, preds):
    """``facts`` read back by a program that outputs ``preds``."""
    return chronolog.reason("".join(f'@output("{p}").\n' for p in preds), facts, engine=engine)


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=datasets(), nulls=st.booleans())
def test_tables_read_back_as_the_same_model(engine, data, nulls, tmp_path_factory):
    """Arrow, pandas, Polars (one predicate or all) and Parquet files of
    them read back as the model, every kind exactly."""
    import pyarrow.parquet as pq

    _, rows = data
    m = _model(engine, rows, nulls)
    preds = _preds(m)
    want = canon(m, preds)
    path = tmp_path_factory.mktemp("pq")
    for how in ("arrow", "pandas", "polars", "parquet"):
        if how == "parquet":
            for p in preds:
                pq.write_table(m.to_arrow(p), path / f"{p}.parquet")
            one = {p: pq.read_table(path / f"{p}.parquet") for p in preds}
            pq.write_table(m.to_arrow(), path / "all.parquet")
            every = pq.read_table(path / "all.parquet")
        else:
            write = getattr(m, f"to_{how}")
            one, every = {p: write(p) for p in preds}, write()
        assert canon(_back(engine, one, preds), preds) == want, how
        assert canon(_back(engine, every, preds), preds) == want, how + " (every predicate)"


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=datasets(), nulls=st.booleans())
def test_text_reads_back_as_the_same_model(engine, data, nulls):
    """``Model.to_text()`` read back as facts: the same model, floats as
    the exact numbers they print."""
    _, rows = data
    m = _model(engine, rows, nulls)
    preds = _preds(m)
    want = {p: sorted(r for r in v) for p, v in canon_text(m, preds).items()}
    assert canon(_back(engine, m.to_text(), preds), preds) == want


BASE = dt.datetime(2020, 1, 31, 12, 30)
dated_ends = st.one_of(st.integers(-200, 200).map(lambda k: BASE + dt.timedelta(milliseconds=250 * k)), st.sampled_from([dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59, 999999)]))


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=datasets(), ends=st.data())
def test_dated_models_read_back(engine, data, ends):
    """On a calendar (``@timeGranularity("seconds")``, times as dates and
    timestamps to the microsecond), text and tables read back as the model."""
    _, rows = data
    rows = [(t, ends.draw(intervals(dated_ends))) for t, _ in rows]
    head = '@timeGranularity("seconds").\n'
    m = chronolog.reason(head + PROGRAM, {"p": rows}, engine=engine)
    want = canon(m, ["q"])
    back = head + '@output("q").\n'
    for facts in ({"q": m.to_arrow("q")}, {"q": m.to_pandas("q")}, {"q": m.to_polars("q")}, m.to_arrow(["q"])):
        assert canon(chronolog.reason(back, facts, engine=engine), ["q"]) == want, type(facts)
    assert canon(chronolog.reason(back, m.to_text(), engine=engine), ["q"]) == canon_text(m, ["q"])


def canon_text(m, preds):
    class _AsRead:
        def __init__(self, m):
            self.m = m

        def facts(self, p):
            return [(tuple(map(as_text_reads, t)), iv) for t, iv in self.m.facts(p)]

    return canon(_AsRead(m), preds)


@pytest.mark.parametrize("rule", ["r(S) :- p(K, X), S = min(X).", "r(S) :- p(K, X), S = max(X).", "r(K, S) :- p(K, X), S = X * -1."])
def test_negative_zero_is_one_term_on_both_executors(rule):
    """-0.0 equals 0.0 and prints 0.0 (docs/language.md, "Floats"): the
    minimum of -0.0 and 0.0 was -0.0 on rows and 0.0 on columns (the
    maximum the other way round), so Model.facts and the tables differed
    between executors; a term leaves the engine as 0.0 whichever it holds."""
    facts = {"p": [(("a", -0.0), (0, 1)), (("b", 0.0), (0, 1))]}
    got = {}
    for engine in ENGINES:
        m = chronolog.reason(rule, facts, engine=engine)
        got[engine] = (repr(m.facts("r")), m.to_text(), m.to_arrow("r").to_pylist(), m.to_pandas("r").to_dict("list"))
        assert all(math.copysign(1, v) > 0 for t, _ in m.facts("r") for v in t if type(v) is float)
    assert got["rows"] == got["columns"]


def test_a_munion_set_reads_back_from_text_and_tables():
    """munion's set prints {2,a,"b c"} and reads back as that set: from fact
    text, a program's facts and an Arrow table's column of term text."""
    prog = "s(G, S) :- v(G, X), S = munion(X).\n"
    facts = {"v": [(("g", "a"), (0, 5)), (("g", 2), (0, 3)), (("g", "b c"), (1, 2))]}
    for engine in ENGINES:
        m = chronolog.reason(prog, facts, engine=engine)
        want = canon(m, ["s"])
        assert ("set", (("num", 2), ("str", "a"), ("str", "b c"))) in {t[1] for t, _ in want["s"]}
        text = m.to_text()
        assert canon(chronolog.reason("", text, engine=engine), ["s"]) == want
        program = "".join(line + ".\n" for line in text.splitlines())  # (facts of a program)
        assert canon(chronolog.reason(program + '@output("s").', engine=engine), ["s"]) == want
        assert canon(chronolog.reason("", {"s": m.to_arrow("s")}, engine=engine), ["s"]) == want
        assert canon(chronolog.reason("", m.to_pandas(), engine=engine), ["s"]) == want


@pytest.mark.parametrize(
    "text, message",
    [("s({{a}})@0", "a set's members are constants, not a set"), ("s({X})@0", "a set's members are constants, not X")],
)
def test_a_set_holds_constants(text, message):
    with pytest.raises(chronolog.ChronologSyntaxError, match=message):
        chronolog.reason("", text)


def test_sets_read_as_one_term_however_written():
    m = chronolog.reason("", 's({b,a,a,2})@0.\ns({2,b,a})@1.\ns({})@2.\ns({-1,+inf,1/3,2020-01-01,#T,_:n1})@3.')
    got = sorted(m.facts("s"), key=lambda f: f[1])
    assert [t for t, _ in got[:2]] == [((2, "a", "b"),)] * 2
    assert got[2][0] == ((),)
    assert "s({-1,1/3,+inf,2020-01-01,#T,_:n1})@[3,3]" in m.to_text(["s"]).splitlines()


# ---------------------------------------------------------------- the command line

# how a program reading a CSV file back maps a column of one kind (docs/cli.md)
CSV_MAPPING = {"float": "float", "string": "string", "date": "date"}


def _cli(d, *args):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "chronolog", *args], capture_output=True, text=True, cwd=d)
    assert r.returncode == 0, r.stderr
    return r


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=datasets(), nulls=st.booleans())
@example(data=(["date", "string"], [((dt.datetime(2000, 1, 1), ""), (0, 0, True, True)),
                                    ((dt.datetime(2000, 1, 1), "\u2028\x85\u2029"), (0, 0, True, True))]),
         nulls=False)  # (found here: JSON left U+2028 raw, and a line reader split the record there)
def test_command_line_outputs_read_back_or_say_why(engine, data, nulls, tmp_path_factory):
    """``chronolog run``'s Parquet and Arrow output bindings read back as
    the model, and ``--format json``'s ``text`` as fact text does; its
    ``--output`` CSV files read back as the model by a program mapping
    each column as the writer's program does, or a note names the file
    whose values a CSV cell cannot carry (a CSV file has no types)."""
    import pyarrow.parquet as pq

    kinds, rows = data
    m = _model(engine, rows, nulls)
    preds = _preds(m)
    want = canon(m, preds)
    d = tmp_path_factory.mktemp("cli")
    pq.write_table(chronolog.reason('@output("p").', {"p": rows}).to_arrow("p"), d / "p.parquet")  # (tables read back exactly: above)
    maps = "".join(f'@mapping("q", {k}, "c{k}", "{CSV_MAPPING[kind]}").\n' for k, kind in enumerate(kinds) if kind in CSV_MAPPING)
    outs = "".join(f'@output("{p}").\n' for p in preds)
    (d / "w.vada").write_text(
        '@bind("p", "parquet", ".", "p.parquet").\n' + PROGRAM + (EXISTENTIAL if nulls else "") + outs + maps
        + 'qp(A, B) :- q(A, B). @output("qp"). @bind("qp", "parquet", "o", "qp.parquet").\n'
        + 'qa(A, B) :- q(A, B). @output("qa"). @bind("qa", "arrow", "o", "qa.arrow").\n'
        + 'qf(A, B) :- q(A, B). @output("qf"). @bind("qf", "facts", "o", "qf.txt").\n'
    )
    written = _cli(d, "run", "w.vada", "--engine", engine, "--output", "csv")
    (d / "r.vada").write_text(
        "".join(f'@bind("{p}", "csv", "csv", "{p}.csv").\n' for p in preds) + maps
        + '@bind("qp", "parquet", "o", "qp.parquet").\n@bind("qa", "arrow", "o", "qa.arrow").\n@bind("qf", "facts", "o", "qf.txt").\n'
    )
    back = chronolog.reason(d / "r.vada", engine=engine)
    assert canon(back, ["qp"])["qp"] == want["q"]
    assert canon(back, ["qa"])["qa"] == want["q"]
    assert canon(back, ["qf"])["qf"] == canon_text(m, ["q"])["q"]  # (a fact file: text)
    for p in preds:
        if canon(back, [p])[p] != want[p]:
            assert f"csv/{p}.csv: column" in written.stderr and "a CSV file has no types" in written.stderr, (p, written.stderr)
    printed = _cli(d, "run", "w.vada", "--engine", engine, "--format", "json", "--overwrite")
    text = "\n".join(json.loads(line)["text"] for line in printed.stdout.splitlines())
    got = canon(chronolog.reason("".join(f'@output("{p}").\n' for p in [*preds, "qp", "qa", "qf"]), text, engine=engine), preds)
    assert got == canon_text(m, preds)


def test_a_csv_file_says_which_value_it_cannot_carry(tmp_path):
    """The string "1" beside the number 1 in one CSV column reads back as
    the number: the file is written, and a note names the column and the
    value (it said nothing, and the read-back model lost a fact)."""
    import subprocess
    import sys

    (tmp_path / "w.vada").write_text('q(A) :- p(A).\np("1")@[0,1].\np(1)@[2,3].\np(s)@[0,1].\n')
    r = subprocess.run([sys.executable, "-m", "chronolog", "run", "w.vada", "--output", "out"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out" / "q.csv").read_text().splitlines()[1:] == ["1,2,3,true,true", "1,0,1,true,true", "s,0,1,true,true"]
    assert r.stderr == (
        'note: out/q.csv: column c0 holds "1" (a string), which a CSV cell reads back as 1 (a number): a CSV file has no types; '
        'a reader keeps it by @mapping("q", 0, "c0", "string") if the column holds only strings; Parquet and Arrow files keep every kind\n'
    )



def test_a_csv_file_says_which_value_its_mapping_refuses(tmp_path):
    """A string in a column mapped "int" is written, and reading the file
    back is an error: the note says so (it read "which a CSV cell is
    refused")."""
    import subprocess
    import sys

    (tmp_path / "w.vada").write_text('@mapping("q", 0, "co", "int").\nq(A) :- p(A).\np(acme)@[0,1].\np(7)@[2,3].\n')
    r = subprocess.run([sys.executable, "-m", "chronolog", "run", "w.vada", "--output", "out"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stderr == (
        'note: out/q.csv: column co holds acme (a string), which a column mapped "int" refuses, so reading the file back '
        'is an error: a CSV file has no types; a reader keeps it by @mapping("q", 0, "co", "string") if the column holds '
        'only strings; Parquet and Arrow files keep every kind\n'
    )
    (tmp_path / "r.vada").write_text('@mapping("q", 0, "co", "int").\n@bind("q", "csv useHeaders=true", "out", "q.csv").\nb(X) :- q(X).\n')
    back = subprocess.run([sys.executable, "-m", "chronolog", "run", "r.vada"], capture_output=True, text=True, cwd=tmp_path)
    assert back.returncode == 2 and "'acme' is not a number" in back.stderr


@pytest.mark.parametrize("engine", ENGINES)
def test_booleans_written_to_csv_make_no_note(tmp_path, engine):
    """#T and #F read back from a CSV cell as themselves: no note (one said
    "column c0 holds #F (a null), which a CSV cell reads back as #F (a
    boolean)", of every boolean column a run wrote)."""
    import subprocess
    import sys

    (tmp_path / "w.vada").write_text("q(A, B) :- p(A, B).\np(#T, a)@[0,1].\np(#F, {#T,1})@[2,3].\n")
    r = subprocess.run([sys.executable, "-m", "chronolog", "run", "w.vada", "--output", "out", "--engine", engine],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    back = chronolog.reason('@bind("q", "csv useHeaders=true", "out", "q.csv"). r(A, B) :- q(A, B).', base_dir=tmp_path, engine=engine)
    assert back.to_text() == "r(#F,{1,#T})@[2,3]\nr(#T,a)@[0,1]"

def test_a_set_in_a_csv_cell_reads_back_as_that_set(tmp_path):
    """munion's sets written to a CSV file read back as the sets (they read
    back as strings), floats in them as floats, by the row reader and the
    Arrow kernels of a large file."""
    from unittest import mock

    from chronolog.connectors import csv_columns

    prog = "s(G, S) :- v(G, X), S = munion(X).\n@output(\"s\").\n"
    facts = {"v": [(("g", "a"), (0, 5)), (("g", 2), (0, 3)), (("g", 'b "c"'), (1, 2)), (("h", 1.5), (0, 1)), (("h", "1"), (0, 1))]}
    (tmp_path / "w.vada").write_text(prog)
    pq_rows = chronolog.reason('@output("v").', facts).to_arrow("v")
    import pyarrow.parquet as pq

    pq.write_table(pq_rows, tmp_path / "v.parquet")
    (tmp_path / "w.vada").write_text('@bind("v", "parquet", ".", "v.parquet").\n' + prog)
    _cli(tmp_path, "run", "w.vada", "--output", "out")
    (tmp_path / "r.vada").write_text('@bind("s", "csv", "out", "s.csv").\n')
    want = canon(chronolog.reason(prog, facts), ["s"])
    assert ("set", (("float", (1.5).hex()), ("str", "1"))) in {t[1] for t, _ in want["s"]}
    assert canon(chronolog.reason(tmp_path / "r.vada"), ["s"]) == want
    with mock.patch.object(csv_columns, "KERNEL_BYTES", 0):  # the Arrow kernels, on a small file
        assert canon(chronolog.reason(tmp_path / "r.vada", engine="columns"), ["s"]) == want


@pytest.mark.parametrize(
    "value, kind, reads",
    [("x", "auto", None), ("1", "auto", "int 1"), ("\u0661", "auto", "int 1"), (" 1", "auto", "int 1"), ("#T", "auto", "Boolean #T"),
     ("_:n1", "auto", "Null _:n1"), ("{a}", "auto", "tuple {a}"), ("1", "string", None), (1.5, "auto", "Fraction 1.5"), (1.5, "float", None),
     (dt.datetime(2020, 1, 31), "auto", 'str "2020-01-31"'), (dt.datetime(2020, 1, 31), "date", None), ((1.5, "a"), "auto", None),
     (2, "string", 'str "2"'), (Boolean(True), "auto", None)],
)
def test_a_csv_writer_knows_which_cells_read_back_otherwise(value, kind, reads):
    """The check behind the CSV writers' note: a cell read as a column of
    the mapped kind reads it, against the value written."""
    from chronolog.connectors.csv_files import ReadBack
    from chronolog.language.text import format_term

    r = ReadBack([kind])
    r.check(0, value)
    got = r.changed and f"{type(r.changed[2]).__name__} {format_term(r.changed[2])}"
    assert got == reads


@settings(deadline=None, max_examples=examples(100))
@given(st.lists(st.one_of(st.integers(), st.from_regex(r"[a-z][A-Za-z0-9_]{0,5}", fullmatch=True),
                          st.sampled_from(["true", "false", "inf", "nan", "e", "not", "null", "x1e5"])), min_size=1, max_size=5))
def test_a_set_of_integers_and_names_reads_back_without_its_parse(members):
    """ReadBack takes a set of integers and names as reading back without
    parsing its cell (a CSV of 160,000 sets: 40 s of parses): what that
    parse gives is the set itself."""
    from chronolog.connectors.csv_files import ReadBack, _bare_member, _cell, convert
    from chronolog.language import ast
    from chronolog.language.text import make_set

    v = make_set(members)
    assert all(map(_bare_member, v))
    got = convert(_cell(v), "auto", ast.NOWHERE, "c0", None)
    assert type(got) is tuple and got == v and list(map(type, got)) == list(map(type, v))
    r = ReadBack(["auto"])
    r.check(0, v)
    assert r.changed is None


@settings(deadline=None, max_examples=examples(100))
@given(st.sampled_from([st.integers(-5, 5), st.sampled_from("abcde")]).flatmap(
    lambda members: st.lists(st.lists(members, min_size=1, max_size=4), max_size=30)))
def test_sets_of_one_kind_are_ranked_in_term_order(sets):
    """The writers rank sets of integers only, or of strings only, by the
    tuples themselves (no key per member): term order, as term_sort_key
    orders them."""
    from chronolog.language.term_ranks import term_ranks
    from chronolog.language.text import make_set, term_sort_key

    vals = list(dict.fromkeys(make_set(m) for m in sets))
    rank = term_ranks(vals)
    assert sorted(vals, key=lambda v: rank[vals.index(v)]) == sorted(vals, key=term_sort_key)


_CELL_VALUES = st.one_of(
    st.text(max_size=4), st.sampled_from(["x", "1", "\u0661", " 1", "#T", "_:n1", "{a}", "-", "+2", ".5", "", "ab"]),
    st.integers(-5, 5), st.sampled_from([1.5, Boolean(True), dt.datetime(2020, 1, 31), (1.5, "a"), Fraction(1, 3)]),
)


@settings(deadline=None, max_examples=examples(100))
@given(st.lists(_CELL_VALUES, max_size=12), st.sampled_from(["auto", "string", "int", "float", "date"]))
def test_a_column_checked_at_once_finds_what_each_check_finds(values, kind):
    """ReadBack.check_all (the column writers: the plain strings and ints
    of an unmapped column left out before the checks) names the value
    that reads back otherwise that a check of each value in turn names."""
    from chronolog.connectors.csv_files import ReadBack

    each, whole = ReadBack([kind]), ReadBack([kind])
    for v in values:
        each.check(0, v)
    whole.check_all(0, values)
    assert repr(whole.changed) == repr(each.changed)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("value", [math.inf, -math.inf])
def test_an_infinite_float_beside_a_null_reads_back_from_the_frame_of_every_predicate(engine, value):
    """A float infinity in a column that also holds a labelled null (to_pandas
    and to_polars of every predicate: the column is text, its exact text
    beside it) reads back as the float, where the exact column's reader
    raised a TypeError (Decimal('Infinity') has no exponent); found by the
    hunt profile of test_tables_read_back_as_the_same_model."""
    m = _model(engine, [((value, 0), (0, 0, True, True))], nulls=True)
    preds = _preds(m)
    want = canon(m, preds)
    for how in ("pandas", "polars", "arrow"):
        assert canon(_back(engine, getattr(m, f"to_{how}")(), preds), preds) == want, how


@pytest.mark.parametrize("engine", ENGINES)
def test_a_string_that_reads_as_a_rational_stays_a_string_in_pandas(engine):
    """The string "1/3" is a string in to_pandas (and reads back as one),
    the number 1/3 a float with its exact text beside it: the Arrow layout
    marks a column of rationals as term text; an unmarked string column was
    taken for rationals when all its values parsed as numbers (found by the
    hunt profile of test_tables_read_back_as_the_same_model)."""
    m = _model(engine, [(("1/3", False), (0, 0, True, True)), ((Fraction(1, 3), True), (1, 1, True, True))], nulls=False)
    strings = _model(engine, [(("1/3", False), (0, 0, True, True))], nulls=False)
    frame = strings.to_pandas("q")
    assert list(frame["c0"]) == ["1/3"] and "c0_exact" not in frame.columns
    for model in (m, strings):
        want = canon(model, ["q"])
        for how in ("pandas", "polars", "arrow"):
            assert canon(_back(engine, {"q": getattr(model, f"to_{how}")("q")}, ["q"]), ["q"]) == want, how
            assert canon(_back(engine, getattr(model, f"to_{how}")(), ["q"]), ["q"]) == want, how + " (every predicate)"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_rational_beside_an_infinite_float_reads_back_from_the_frame_of_every_predicate(engine):
    """A term-text column holding 1/3 (q) and +inf (n's float) got no exact
    text column in to_pandas() of every predicate (its floats could not be
    made), so both read back as strings (found by the hunt profile)."""
    m = _model(engine, [((math.inf, Fraction(1, 3)), (0, 0, True, True))], nulls=True)
    preds = _preds(m)
    want = canon(m, preds)
    for how in ("pandas", "polars"):
        assert canon(_back(engine, getattr(m, f"to_{how}")(), preds), preds) == want, how
