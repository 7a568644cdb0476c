"""The fact reader on Arrow kernels against the exact readers.

Random fact files in both dialects (numbers of every kind, quoted strings
with escapes and commas, dates, open/closed and infinite ends, comments,
bad lines) must give the same facts as the line readers, or the same error
at the same file:line:column."""

from __future__ import annotations

import io
import time
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

from chronolog.language import fact_columns, meteor
from chronolog.language.dates import Calendar
from chronolog.language.errors import ChronologError
from chronolog.language.fact_columns import read_fact_columns, read_facts_text, split_statements
from chronolog.language.facts import FactRows, read_fact_rows


def _reference(text, dialect, calendar=None):
    if dialect == "meteor":
        rows = FactRows()
        rows.extend_facts(meteor.parse_facts(text.splitlines(), "f.txt"))
        return rows
    return read_fact_rows(text.splitlines(), "f.txt", calendar)


def _grammar(text, calendar=None):
    """Every fact line parsed by the grammar (lark), none by a fast path."""
    from chronolog.language.facts import _slow_fact
    from chronolog.language.nulls import reading_file

    rows = FactRows()
    with reading_file():
        for n, line in enumerate(text.splitlines(), 1):
            s = line.strip()
            if s and s[0] != "%" and not s.startswith("//"):
                f = _slow_fact(line, n, "f.txt", calendar)
                rows.add(f.pred, f.terms, f.interval, f.pos, f.every)
    return rows


def _norm(rows):
    facts = {p: sorted(map(repr, lst)) for p, lst in rows.items() if lst}
    rep = {p: sorted(repr(x[:3]) for x in lst) for p, lst in rows.repeating.items() if lst}
    return facts, rep


def _outcome(read):
    try:
        return "ok", _norm(read())
    except ChronologError as e:
        return "error", str(e.pos), e.message
    except Exception as e:  # a defect of the exact parser (division by zero): both must share it
        return "crash", type(e).__name__


def _same(text, dialect, calendar=None):
    want = _outcome(lambda: _reference(text, dialect, calendar))
    got = _outcome(lambda: read_facts_text(text, "f.txt", dialect, calendar))
    assert got == want, text
    return want


NAMES = st.sampled_from(["a", "b1", "x_y", "abc"])
INTS = st.integers(-10**20, 10**20).map(str)
DECIMALS = st.tuples(st.integers(-999, 999), st.integers(0, 999)).map(lambda t: f"{t[0]}.{t[1]}")
FRACTIONS = st.tuples(st.integers(-50, 50), st.integers(0, 9)).map(lambda t: f"{t[0]}/{t[1]}")
EXPONENTS = st.tuples(st.integers(-9, 9), st.integers(-3, 3)).map(lambda t: f"{t[0]}e{t[1]}")
# quoted strings holding the bytes the kernels cut at, escapes, unicode and
# the control bytes their mask writes (language/fact_columns.py, _mask)
STRINGS = st.text(alphabet='ab ,.\\"@()[]%\'#:/<>\té€\x01', max_size=6).map(lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"')
ESCAPES = st.sampled_from(['"a\\"b"', '"\\\\"', '"x\\n"', '"\\u00e9"', '"a\\\\\\"@"', '"<http://a.org/x#1>"', '"a\\,b"'])
OTHER = st.sampled_from(["#T", "#F", "_:n1", "_:b2", "2020-01-05", "2021-12-31T10:00", "2021-12-31T10:00:00Z", "2020-02-30", "-3", "-inf", "+5", "-0.5", "1E3"])
BAD = st.sampled_from(['"unclosed', "1/0", "Xvar", "a b", "", "@", "1..2"])
SMALL = st.one_of(st.integers(-5, 30).map(str), DECIMALS, FRACTIONS)
ENDS = st.one_of(SMALL, st.sampled_from(["-inf", "+inf", "inf", "1e2", "x"]))


@st.composite
def fact_lines(draw, dialect="vadalog", dates=False):
    pred = draw(st.sampled_from(["p", "q", "r_1"] if dialect == "vadalog" else ["P", "q", "ns:R"]))
    arity = {"p": 2, "q": 1, "r_1": 0, "P": 2, "ns:R": 0}[pred]
    term = st.one_of(NAMES, INTS, DECIMALS, FRACTIONS, EXPONENTS, STRINGS, ESCAPES, OTHER if dialect == "vadalog" else NAMES)
    if draw(st.integers(0, 20)) == 0:
        term = st.one_of(term, BAD)
    terms = [draw(term) for _ in range(arity)]
    head = pred + (f"({', '.join(terms) if draw(st.booleans()) else ','.join(terms)})" if terms else "")
    ends = st.sampled_from(["2020-01-01", "2020-02-29", "2021-12-31T10:00", "-inf", "+inf", "2020-13-01"]) if dates else ENDS
    if draw(st.integers(0, 3)) == 0:
        iv = draw(SMALL if not dates else st.sampled_from(["2020-01-05", "2020-01-05T12:30"]))
    else:
        iv = f"{draw(st.sampled_from('[('))}{draw(ends)},{' ' * draw(st.integers(0, 1))}{draw(ends)}{draw(st.sampled_from('])'))}"
    line = f"{head}@{iv}"
    if dialect == "vadalog" and draw(st.integers(0, 10)) == 0:
        line += " every 5"
    if dialect == "vadalog" or draw(st.booleans()):
        line += "."
    if draw(st.integers(0, 10)) == 0:
        line += "  % a comment" if dialect == "vadalog" else ""
    return " " * draw(st.integers(0, 1)) + line


# lines near the fact form whose separators would mislead the cuts: the
# kernels' pattern sends them to the exact parser, or they are read alike
MISLEADING = st.sampled_from([
    "p)@1", "p(a)@[1,25", "p(a)@1,2", "@p(a)@1", "p(a@b)@1", "p(a))@1", "p(a)(b)@1", "p(a)@", "p(a)@[1,2]x", "p(a)@[1,2].x",
    "p(a)@[1]", "p(a)@[1,2,3]", 'p("a(b")@1', 'p("x)y",b)@1', ")@1", "p(a)@(1,2)", "p(a,)@1", "p(,a)@1", "p()@1",
    "p(a)@[1,2)]", "p(a)@[[1,2]", "p(a)@1]", "p(a)@[1,2", "pa)@1", "p(a)@@1", "p(a)@[,2]", "p(a)x@1", "p[a]@1", "p(a)@1.5.",
    'p("a@b",c)@1', 'p("a,b")@[1,2]', "p(a),q(b)@1", "p(a)@1.p(b)@2", "p(a)@1 .", "p(a)@1@2", "p(a)@[1@,2]", "p(a)@1..", "p(a)@[1,2]..",
])


@st.composite
def fact_files(draw, dialect="vadalog", dates=False):
    others = ["", "% note", "   ", '  % a "quoted, note" 5%', "\t@anno."]
    kinds = [fact_lines(dialect, dates), st.sampled_from(others)] + ([MISLEADING] if dialect == "vadalog" else [])
    lines = draw(st.lists(st.one_of(*kinds), max_size=12))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


SETTINGS = settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(fact_files("vadalog"))
def test_vadalog_files_read_as_the_line_reader(text):
    _same(text, "vadalog")


@SETTINGS
@given(st.booleans().flatmap(lambda dates: st.tuples(fact_files("vadalog", dates), st.just(dates))), st.booleans())
def test_the_rows_of_one_atom_are_its_rows_among_all(case, coded):
    """FactColumns.atom_rows (a proof's leaves, without the other rows)
    against the rows of every fact of the predicate (``coded``: its terms
    coded by a run's dictionary as read, as the API reads files)."""
    from chronolog.engine.columns.encoding import Dictionary

    text, dates = case
    try:
        fc = read_fact_columns(io.BytesIO(text.encode()), "f.txt", calendar=Calendar("days") if dates else None,
                               terms=Dictionary() if coded else None)
    except (ChronologError, fact_columns._Fallback):  # (not the kernels' file: the line reader's)
        return
    for pred in fc.predicates():
        rows = fc.pred_rows(pred)
        for terms in {tuple(t) for t, _ in rows}:
            assert fc.atom_rows(pred, terms) == [r for r in rows if tuple(r[0]) == terms], (pred, terms)


@SETTINGS
@given(fact_files("vadalog"))
def test_vadalog_files_read_as_the_grammar(text):
    """The kernels against lark alone on every form: strings with escapes and
    separators, booleans, nulls, dates, exponents, infinities."""
    want = _outcome(lambda: _grammar(text))
    got = _outcome(lambda: read_facts_text(text, "f.txt", "vadalog"))
    if want[0] == "error" and "one fact on this line" in want[2]:
        return  # (a comment after a fact: the grammar alone, line by line, reads it as two statements)
    assert got == want, text


@SETTINGS
@given(fact_files("vadalog").map(lambda t: t.replace(" ", "")))
def test_files_without_blanks_read_as_the_line_reader(text):
    # (no blank, tab or carriage return: the fields are cut by numpy, _TightFields)
    _same(text, "vadalog")


def _tight_against_kernels(rows, dialect):
    """The fields _TightFields cuts by numpy from ``rows`` (lines without
    blanks) are those of the polars kernels (_Fields); returns how many
    lines matched the dialect's pattern."""
    import numpy as np
    import polars as pl

    from chronolog.language import string_columns

    text = "\n".join(rows)
    raw = np.frombuffer(text.encode(), np.uint8)
    nl = np.flatnonzero(raw == 10)
    starts = np.concatenate([[0], nl + 1]).astype(np.int32)
    ends = np.concatenate([nl, [len(raw)]]).astype(np.int32)
    lines = string_columns.ranges(raw, starts, ends)
    assert lines.to_list() == list(rows)
    matched = string_columns.matches(lines, fact_columns._PATTERNS[dialect])
    want = fact_columns._Fields(lines.filter(pl.Series(matched)), False)
    want.encode(dialect)
    # (the lines that did not match hold '@', '(' and ',' of their own: blanked out)
    got = fact_columns._TightFields(raw, starts, ends, np.flatnonzero(~matched), lines)
    got.encode(dialect)
    assert len(got) == len(want) == int(matched.sum())
    for k in ("lc", "hc", "point", "arity", "is_name", "by_pred", "bounds"):
        assert np.array_equal(getattr(got, k), getattr(want, k)), k
    assert got.preds.to_list() == want.preds.to_list()
    decode = lambda d: d.dictionary.gather(d.indices).to_list()  # noqa: E731
    assert decode(got.times) == decode(want.times)
    kept = lines.filter(pl.Series(matched))
    for i in range(len(kept)):
        args = lambda f: [f.fdict[int(f.ftok[f.starts[i] + j])] for j in range(f.arity[i])]  # noqa: E731
        assert args(got) == args(want), kept[i]
    return len(got)


def test_fields_without_blanks_are_the_kernels_fields():
    rows = [
        "p(a,b)@[1,2].", "q@5", "r()@(1,2)", "s(x)@1.5.", "t(a,1,c)@[-inf,+inf)", "p(c,d)@[1@,2]", "u(a)@(0,3].",
        "w(a)@1.", "v(a,,b)@[0,1)", "x(\"a@b\")@1", "y(1/2,-3)@[1/2,3/4]", "z(a)@[2,1]", "p(a,b)@[1,2]x",
    ]
    assert _tight_against_kernels(rows, "vadalog") == 11


@SETTINGS
@given(fact_files("meteor"))
def test_meteor_files_read_as_the_meteor_reader(text):
    _same(text, "meteor")


@SETTINGS
@given(fact_files("meteor").map(lambda t: t.replace(" ", "")))
def test_meteor_files_without_blanks_read_as_the_meteor_reader(text):
    # (no blank: the MeTeoR dialect's fields are cut by numpy too, _TightFields)
    _same(text, "meteor")


def test_meteor_fields_without_blanks_are_the_kernels_fields():
    rows = [
        "A(x1,y2)@[1,2]", "B(y2)@5", "C:d(x)@(1,2]", "E()@[0,3)", "#comment", "F(a,b)@[1.5,2.25]", "G(1,x)@[-inf,+inf)",
        "H(a)@1.", "P(a,,b)@[0,1)", "Q('a')@1", "R(a)@[2,1]",
    ]
    assert _tight_against_kernels(rows, "meteor") >= 8


@SETTINGS
@given(fact_files("vadalog", dates=True))
def test_dated_files_read_as_the_line_reader(text):
    _same(text, "vadalog", Calendar("days"))


@SETTINGS
@given(fact_files("vadalog"), st.booleans())
def test_the_line_reader_reads_strings_as_the_grammar(text, dated):
    """The line reader splits a head holding strings at the commas outside
    them (facts.py, _quoted_split) where it sent the line to the grammar,
    30x the cost of a bare line: the same facts, the same errors."""
    from chronolog.language.nulls import reading_file

    calendar = Calendar("days") if dated else None
    want = _outcome(lambda: _grammar(text, calendar))
    if want[0] == "error" and "one fact on this line" in want[2]:
        return  # (a comment after a fact: the grammar alone, line by line, reads it as two statements)

    def lines():
        with reading_file():
            return read_fact_rows(text.splitlines(), "f.txt", calendar)

    assert _outcome(lines) == want, text


@pytest.mark.parametrize("head, terms", [
    ('p("ACME, Inc.", 2)', ("ACME, Inc.", 2)), ('p( "a(b)" ,"@x")', ("a(b)", "@x")), ('p("", c)', ("", "c")),
    ('p("say \\"hi\\", ok")', ('say "hi", ok',)), ('p("\\u00e9t\\u00e9",1/2)', ("été", Fraction(1, 2)))])
def test_strings_with_separators_read_on_the_line_readers_fast_path(head, terms, monkeypatch):
    from chronolog.language import facts

    def refused(*args, **kwargs):
        raise AssertionError("read by the grammar")

    monkeypatch.setattr(facts, "_slow_fact", refused)
    assert read_fact_rows([head + "@[0,1]."])["p"] == [(terms, (0, 1, True, True))]


def test_values_are_exact():
    text = 'p(a, -1.50)@[1/3, 2.5).\np(b, 7)@(-inf, 3].\nq("x, \\"y\\"")@[0,+inf).\n'
    rows = read_facts_text(text)
    assert _norm(rows) == _norm(read_fact_rows(text.splitlines()))
    from fractions import Fraction

    assert sorted(rows["p"]) == [
        (("a", Fraction(-3, 2)), (Fraction(1, 3), Fraction(5, 2), True, False)),
        (("b", 7), (float("-inf"), 3, False, True)),
    ]
    assert rows["q"] == [(('x, "y"',), (0, float("inf"), True, False))]


def test_error_positions_are_kept():
    text = "p(a)@1.\n\np(b)@[3,1].\n"
    with pytest.raises(ChronologError) as e:
        read_facts_text(text, "f.txt")
    with pytest.raises(ChronologError) as want:
        read_fact_rows(text.splitlines(), "f.txt")
    assert str(e.value) == str(want.value)
    assert e.value.pos.line == 3


def test_blocks_keep_line_numbers(monkeypatch):
    monkeypatch.setattr(fact_columns, "BLOCK", 64)
    lines = [f"p(a{i})@[{i},{i + 1})." for i in range(200)] + ["p(a, b)@1."]
    with pytest.raises(ChronologError) as e:
        read_facts_text(io.StringIO("\n".join(lines) + "\n"), "f.txt")
    assert e.value.pos.line == 201  # arity error: named at its own line
    rows = read_facts_text(io.StringIO("\n".join(lines[:200])), "f.txt")
    assert sorted(rows["p"]) == sorted(read_fact_rows(lines[:200])["p"])
    # a binary file is read into buffers (one line longer than a block, no final newline)
    lines = lines[:200] + [f"q({'x' * 150})@[1,2]."] + lines[:5]
    rows = read_facts_text(io.BytesIO("\n".join(lines).encode()), "f.txt")
    want = read_fact_rows(lines)
    assert {p: sorted(rows[p]) for p in ("p", "q")} == {p: sorted(want[p]) for p in ("p", "q")}
    with pytest.raises(ChronologError) as e:
        read_fact_columns(io.BytesIO(("\n".join(lines) + "\np(a0)@[1,2.\n").encode()), "f.txt")
    assert e.value.pos.line == 207


def test_one_long_line_of_facts_is_refused_in_linear_time():
    text = "q(a)@1. " * 200_000  # 1.6 MB on one line
    t0 = time.perf_counter()
    with pytest.raises(ChronologError) as e:
        read_facts_text(text, "f.txt")
    assert time.perf_counter() - t0 < 10
    assert "one fact" in e.value.message
    assert (e.value.pos.line, e.value.pos.column) == (1, 9)
    assert len(str(e.value)) < 1000  # the line is not echoed whole


def test_statements_are_cut_outside_strings_and_brackets():
    assert split_statements('p("a. b")@1. q(x)@[1. , 2].') == [(1, 'p("a. b")@1.'), (14, "q(x)@[1. , 2].")]
    assert split_statements("p(a)@1.  % c. d") == [(1, "p(a)@1.")]


@pytest.mark.parametrize("line", ["p(a)@1..", "p(a)@[1,2].."])
def test_a_second_final_dot_is_refused_by_the_line_reader_too(line):
    """The grammar and the kernels refuse ``p(a)@1..``; the line reader
    once read it as ``p(a)@1``."""
    with pytest.raises(ChronologError, match=r"<facts>:1:\d+: syntax error"):
        read_fact_rows([line])


@pytest.mark.parametrize("line, read", [
    ("p(a)@1 % a reading", ("a",)),  # the final '.' is optional, a comment may follow: "the fact ends early"
    ('p("x % y")@1 % c "q"', ("x % y",)),
    ("p(a)@1. % c.", ("a",)),
])
def test_a_fact_line_without_its_final_dot_may_end_with_a_comment(line, read, tmp_path):
    import chronolog

    assert [t for t, _ in read_fact_rows([line])["p"]] == [read]
    big = tmp_path / "f.facts"  # (read by the kernels)
    big.write_text(line + "\n" + "".join(f"p(n{i})@{i}\n" for i in range(20000)))
    assert read in [t for t, _ in chronolog.reason("q(X) :- p(X).", [big], engine="columns").facts("q")]
    stream = chronolog.Stream("q(X) :- p(X).")
    stream.push(line)
    stream.close()
    assert [f.terms for f in stream] == [read]


@pytest.mark.parametrize("odd", ["p(b, c)@[1,2] .  % x\n", "p(b,\n c)@[1,2].\n", "p(b, _:n1)@[1,2].\n"])
def test_an_arity_between_kernel_read_and_parsed_facts_of_a_program_is_an_error(odd):
    """Facts in a program's text, most read by kernels and one of another
    arity left to the parser: the error names its line and column, and the
    first fact's place (the given facts' shapes check no arity of a
    predicate the kernels alone read; this is checked where they meet)."""
    import chronolog
    from chronolog.language.errors import ChronologError

    facts = "".join(f"p(a{i})@[{i},{i + 1}].\n" for i in range(50))
    with pytest.raises(ChronologError) as e:
        chronolog.reason("q(X) :- p(X).\n" + facts + odd + facts.replace("a", "z"))
    assert (e.value.pos.line, e.value.pos.column) == (52, 1)
    assert "p has 2 arguments here but 1 at <program>:1:9" in str(e.value)


_DIGITS = st.text("0123456789", min_size=1, max_size=20)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.one_of(
    st.tuples(st.sampled_from(["", "-", "+"]), _DIGITS, st.none() | _DIGITS).map(lambda t: t[0] + t[1] + ("" if t[2] is None else "." + t[2])),
    st.sampled_from(["5.", ".5", "1e3", "1/3", "-", "-0", "00.10", "0.000", "a", "inf", "-inf", "9" * 18, "9" * 19, "-" + "9" * 18]),
), min_size=1, max_size=30, unique=True))
def test_plain_numbers_read_by_kernels_are_the_line_readers_values(tokens):
    """The fact reader's kernel for plain integers and decimals of at most 18
    digits gives each the value (and type: an int when whole) the line
    reader's ``_value`` gives; longer ones, signs it does not take and
    other numbers are left to it."""
    from chronolog.language.facts import _IDENT, _value

    pl = pytest.importorskip("polars")
    got, values = fact_columns._plain_numbers(pl.Series(tokens, dtype=pl.String))
    taken = [t for t, g in zip(tokens, got.tolist()) if g]
    assert [(v, type(v)) for v in values] == [(_value(t, _IDENT.match), type(_value(t, _IDENT.match))) for t in taken]
    for t in taken:
        assert "+" not in t and len(t.lstrip("-").replace(".", "")) <= 18


@st.composite
def between_units(draw):
    """A fact file whose times all fall on a grid the kernels read by
    polars and numpy, some between the timeline's units (or none): plain decimals
    (``1709285400.137``, ``-0.5``) on a numeric timeline, or date-times to
    the millisecond on a calendar of coarser units, some ends unbounded in
    the words each dialect reads; both dialects for the decimals; the
    calendar (None: numeric)."""
    import datetime

    dated = draw(st.booleans())
    whole = draw(st.booleans())  # (every point on the units: whole numbers, midnights)
    if dated:
        base = datetime.datetime(2024, 3, 1, 0 if whole else 9, 0 if whole else 30)
        step = 86_400_000 if whole else 1
        point = st.integers(0, 3 * 86_400_000 // step).map(lambda k: (k * step, (base + datetime.timedelta(milliseconds=k * step)).isoformat(timespec="milliseconds")))
    else:
        point = st.tuples(st.integers(-10**6, 10**6), st.sampled_from([0] if whole else [0, 1, 2, 3])).map(
            lambda t: (Fraction(t[0], 10 ** t[1]), f"{'-' if t[0] < 0 else ''}{abs(t[0]) // 10 ** t[1]}" + (f".{abs(t[0]) % 10 ** t[1]:0{t[1]}d}" if t[1] else "")))
    dialect = "vadalog" if dated else draw(st.sampled_from(["vadalog", "meteor"]))
    unbounded = draw(st.booleans())  # (some ends infinite: facts valid until further notice)
    lines = []
    for _ in range(draw(st.integers(1, 40))):
        (a, ta), (b, tb) = sorted([draw(point), draw(point)])
        if unbounded and draw(st.integers(0, 3)) == 0:
            ta, a = draw(st.sampled_from(["-inf", "-infty"] if dialect == "vadalog" else ["-inf"])), None
        if unbounded and draw(st.integers(0, 2)) == 0:
            tb, b = draw(st.sampled_from(["+inf", "inf", "INF"] if dialect == "vadalog" else ["+inf", "inf"])), None
        name = draw(NAMES) if dialect == "vadalog" else draw(st.sampled_from(["A", "b1", "c"]))
        point_only = a is not None and b is not None and draw(st.integers(0, 3)) == 0
        iv = ta if point_only else f"{'[' if a == b or draw(st.booleans()) else '('}{ta},{tb}{']' if a == b or draw(st.booleans()) else ')'}"
        lines.append(f"p({name})@{iv}" + ("." if dialect == "vadalog" else ""))
    unit = draw(st.sampled_from(["seconds", "minutes", "hours", "days"])) if dated else None
    return "\n".join(lines) + "\n", dialect, unit


@SETTINGS
@given(between_units())
def test_times_between_units_read_as_the_line_reader(case):
    """Times between the units, read by kernels over one denominator
    (fact_columns._time_ratios), are the line readers' facts, and a run
    over them answers alike on rows and columns."""
    import chronolog

    from chronolog.engine.columns.encoding import Dictionary

    text, dialect, unit = case
    calendar = Calendar(unit) if unit else None
    _same(text, dialect, calendar)
    fc = read_fact_columns(io.BytesIO(text.encode()), "f.txt", dialect, calendar=calendar, terms=Dictionary())
    rows = fc.pred_rows("p")
    for terms in {tuple(t) for t, _ in rows}:  # (a proof's leaves: a few rows' times, not every value made)
        assert fc.atom_rows("p", terms) == [r for r in rows if tuple(r[0]) == terms]
    if dialect == "vadalog":
        program = (f'@timeGranularity("{unit}").\n' if unit else "") + "q(X) :- <->[0,1] p(X).\nr(X) :- p(X), p(Y), X != Y.\n"
        want = chronolog.reason(program, text, engine="rows")
        got = chronolog.reason(program, text, engine="columns")
        assert got.to_text() == want.to_text()
        assert got.to_arrow("q").equals(want.to_arrow("q"))
