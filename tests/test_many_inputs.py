"""Inputs split many ways (issue 37: no input form a user is likely to write
should be slow): many small fact files, thousands of predicates of a few
facts, thousands of rules.  The paths that pay their fixed costs once give
the answers of the plain forms and of the row executor."""

from __future__ import annotations

import datetime
import random
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from budget import examples

import chronolog
from chronolog.language import fact_columns
from chronolog.language.source_text import KERNEL_BYTES
from chronolog.planner.stratify import stratify


def _facts(n, seed=1):
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        s = rnd.randint(0, 300)
        out.append(f"p(n{rnd.randint(0, 99)},{rnd.choice(['7', '1.5', '-2', '1/3', '12'])})@[{s},{s + rnd.randint(0, 20)}]\n")
    return out


def test_many_small_files_are_read_by_the_kernels_as_one_file(tmp_path):
    """40 files each under the kernel reader's size, above it together:
    read by the kernels (each file's tokens converted once for them all),
    the model of the same facts in one file and of the row executor."""
    lines = _facts(4000)
    files = []
    for j in range(40):
        f = tmp_path / f"p{j}.facts"
        f.write_text("".join(lines[j * 100 : (j + 1) * 100]))
        files.append(f)
    assert all(f.stat().st_size < KERNEL_BYTES for f in files) and sum(f.stat().st_size for f in files) >= KERNEL_BYTES
    whole = tmp_path / "all.facts"
    whole.write_text("".join(lines))
    program = "q(N, Y) :- p(N, V), Y = V * 2.\nr(N) :- <->[0,3] p(N, V).\nt(N, V) :- p(N, V), N = \"n7\".\n"
    before = fact_columns.kernel_lines
    split = chronolog.reason(program, files)
    assert fact_columns.kernel_lines - before == len(lines)
    assert split.lines() == chronolog.reason(program, whole).lines()
    assert split.lines() == chronolog.reason(program, files, engine="rows").lines()


def test_a_bad_line_in_one_of_many_small_files_is_reported_where_it_is(tmp_path):
    files = []
    for j in range(40):
        f = tmp_path / f"p{j}.facts"
        f.write_text("".join(_facts(100, seed=j)) + ("p(a)@[5,3]\n" if j == 17 else ""))
        files.append(f)
    with pytest.raises(chronolog.ChronologError) as e:
        chronolog.reason("q(N) :- p(N, V).", files)
    assert "p17.facts:101" in str(e.value)


def test_thousands_of_predicates_of_one_fact_each(tmp_path, monkeypatch):
    """1,000 predicates of one fact and a rule each, read by the kernels:
    each predicate's rows decoded from its own facts, not from the block's
    every name (which was quadratic: 10,000 such predicates took 17 s of
    the rows' 60), the answers reasoned from scratch, on both executors."""
    from chronolog.engine.columns import encoding

    monkeypatch.setattr(chronolog.api, "KERNEL_BYTES", 1)
    n = 1000
    many = tmp_path / "many.facts"
    many.write_text("".join(f"r{j}(n{j % 700},{j})@[{j % 100},{j % 100 + 5}]\n" for j in range(n)))
    rules = "".join(f"s{j}(N, Y) :- r{j}(N, V), Y = V * 2 + 1.\n" for j in range(n))
    want = {(f"s{j}", f"n{j % 700}", 2 * j + 1, j % 100) for j in range(n)}
    decoded = []
    take = encoding.TermValues.take
    monkeypatch.setattr(encoding.TermValues, "take", lambda self, codes: decoded.append(len(codes)) or take(self, codes))
    for engine in ("rows", "columns"):
        got = chronolog.reason(rules, many, engine=engine)
        facts = {(p, t[0], t[1], iv[0]) for p in got.predicates() if p[0] == "s" for t, iv in got.facts(p)}
        assert facts == want, engine
    assert sum(decoded) < 10 * n


def test_strata_of_thousands_of_rules_say_which_recurse():
    """A self-loop, a cycle of two and 2,000 rules that do not recurse."""
    rules = chronolog.load_program(
        "a(X) :- a(X), b(X).\nc(X) :- d(X).\nd(X) :- c(X).\n"
        + "".join(f"e{j}(X) :- b(X).\n" for j in range(2000))
    )
    from chronolog.planner import plan

    strata = stratify([r for r in plan(rules).rules if r.head_pred is not None])
    recursive = {frozenset(s.preds): s.recursive for s in strata}
    assert recursive[frozenset({"a"})] and recursive[frozenset({"c", "d"})]
    assert sum(recursive.values()) == 2 and len(recursive) == 2002


def test_a_batch_of_many_strata_runs_on_columns_however_small_the_input():
    """Under auto, MANY_STRATA strata of one shape over a few facts run as
    one rule on columns (each on rows cost ~0.26 ms), with the rows'
    answers; fewer stay on rows."""
    from chronolog.planner.input_size import MANY_STRATA

    for k, where in ((MANY_STRATA, {"columns"}), (MANY_STRATA - 1, {"rows"})):
        facts = "".join(f"r{j}(n{j % 7},{j})@[{j % 10},{j % 10 + 2}].\n" for j in range(k))
        rules = "".join(f"s{j}(N, Y) :- r{j}(N, V), Y = V * 2 + 1.\n" for j in range(k))
        got = chronolog.reason(rules + facts)
        assert set(got.stats["executors"].values()) == where
        assert got.lines() == chronolog.reason(rules + facts, engine="rows").lines()


@pytest.mark.parametrize("same", [100, 99, 50, 1])
def test_the_plan_says_where_a_batch_of_many_strata_runs(same):
    """``chronolog plan`` names the backend each stratum runs on under auto
    with a few facts: the members of a batch of MANY_STRATA strata of one
    shape on columns (it said "columns when 300,000+ facts are given, else
    rows"), and a batch whose reads come from strata that run one by one
    on rows (fewer of one shape: ``same`` of the 100 ``a`` rules) where it
    runs."""
    from chronolog.api import load_program
    from chronolog.plan_text import describe_plan
    from chronolog.planner import plan as make_plan
    from chronolog.planner.backend_choice import choose

    rules = "".join(f"a{j}(X) :- q{j}(X), not r{j}(X).\n" if j < same else f"a{j}(X) :- q{j}(X), s{j}(X).\n"
                    for j in range(100))
    rules += "".join(f"b{j}(X) :- <->[0,1] a{j}(X).\n" for j in range(100))
    facts = "".join(f"q{j}(a)@[0,1].\nr{j}(b)@[0,1].\ns{j}(a)@[0,1].\n" for j in range(100))
    ran = chronolog.reason(rules + facts).stats["executors"]
    plan = make_plan(load_program(rules + facts))
    said = {s.index: {"columns": "columns", "rows": "rows"}.get(s.backend, "rows") for s in choose(plan).strata}
    assert said == ran
    text = describe_plan(plan)
    assert text.count("runs on columns (one of a batch of 100 strata") == sum(v == "columns" for v in ran.values())


# programs of each kind a stratum may read through: plain joins, negation,
# Since, aggregates (and conditions after them), a recursion, a recurrence
_READ_FAMILY = (
    "a(X) :- p(X), q(X).\nb(X) :- a(X), not q(X).\nc(X) :- a(X) <S>[0,3] p(X).\n"
    "m(X, S) :- p(X), r(X, V), S = sum(V), S > 1.\nt(X, Y) :- r(X, Y).\nt(X, Z) :- t(X, Y), r(Y, Z).\n"
    "e(X, V) :- <->[0,2] p(X), r(X, V).\nf(V) :- [-][1,1] f(V), r(n, V).\n",
    "".join(f"q{j}(N, Y) :- p{j}(N, V), not s{j % 3}(N), Y = V * 2 + 1.\n" for j in range(40)),
)


@pytest.mark.parametrize("text", _READ_FAMILY)
def test_what_a_run_learns_of_the_plan_is_what_its_lowered_strata_say(text):
    """Where each predicate is last read and whether a stratum is a
    recurrence, told from the IR strata, are what every stratum lowered says
    (the physical plan lowers a stratum only when first asked for)."""
    from chronolog.engine.columns.evaluator import _last_reads
    from chronolog.planner import physical as ph
    from chronolog.planner import plan
    from chronolog.planner.backend_choice import _is_recurrence, has_recurrence

    p = plan(chronolog.load_program(text))
    lowered = [ph.lower_stratum(st) for st in p.strata]
    scans = {op.pred: st.index for st in lowered for op in st.operators() if isinstance(op, ph.Scan)}
    assert _last_reads(p) == scans
    assert has_recurrence(p) == any(_is_recurrence(st) for st in lowered)
    def labels(strata):
        return [(st.index, st.preds, [op.label() for op in st.operators()], st.coalesce) for st in strata]

    assert labels(p.physical.strata) == labels(lowered)
    assert all(ph.stratum_plan(p, st) is p.physical.stratum(st.index) for st in p.strata)


def test_a_batch_of_thousands_of_strata_lowers_one_of_them(monkeypatch):
    """2,000 strata of one shape run as their batch's one tagged rule, on
    columns: one member's stratum lowered (to choose its backend), not
    each (10,000 such strata lowered cost a fifth of their run); the rows'
    answers."""
    from chronolog.planner import physical as ph

    k = 2000
    facts = "".join(f"r{j}(n{j % 7},{j})@[{j % 10},{j % 10 + 2}].\n" for j in range(k))
    rules = "".join(f"s{j}(N, Y) :- r{j}(N, V), Y = V * 2 + 1.\n" for j in range(k))
    lowered = []
    lower = ph.lower_stratum
    monkeypatch.setattr(ph, "lower_stratum", lambda st: lowered.append(st.index) or lower(st))
    got = chronolog.reason(rules + facts)
    assert set(got.stats["executors"].values()) == {"columns"}
    assert len(lowered) <= 2, lowered
    monkeypatch.setattr(ph, "lower_stratum", lower)
    assert got.lines() == chronolog.reason(rules + facts, engine="rows").lines()


@pytest.mark.parametrize("bad, where, what", [
    ("q7345(N, Y) :- p7345(N, V), Y = W * 2 + 1.\n", ":7346:", "W"),  # an unsafe variable
    ("q7345(N, Y) :- p7345(N, V), Y = V * 2 +.\n", ":7346:", ""),  # bad syntax
])
def test_an_error_in_a_program_of_ten_thousand_rules_names_its_line(tmp_path, bad, where, what):
    """One bad rule among 10,000 of one shape: the error names its file,
    line and column, as in a program of one rule."""
    lines = [f"q{j}(N, Y) :- p{j}(N, V), Y = V * 2 + 1.\n" for j in range(10_000)]
    lines[7345] = bad
    prog = tmp_path / "many.vada"
    prog.write_text("".join(lines))
    alone = tmp_path / "one.vada"
    alone.write_text(bad)
    with pytest.raises(chronolog.ChronologError) as e:
        chronolog.reason(prog)
    with pytest.raises(chronolog.ChronologError) as one:
        chronolog.reason(alone)
    assert f"many.vada{where}" in str(e.value) and what in str(e.value)
    assert str(e.value).replace(f"many.vada{where}", "one.vada:1:") == str(one.value)

# ------------------------------------------------ small files joined into one text


def _read(program, files, engine="auto"):
    """The model's lines, or the error's message (what a user sees)."""
    try:
        return chronolog.reason(program, files, engine=engine).lines()
    except chronolog.ChronologError as e:
        return str(e)


def _two_hundred_files(tmp_path, bad_file, bad_line, bad):
    files = []
    for j in range(200):
        lines = _facts(60, seed=j)
        if j == bad_file:
            lines.insert(bad_line - 1, bad + "\n")
        f = tmp_path / f"p{j}.facts"
        f.write_text("".join(lines))
        files.append(f)
    return files


@pytest.mark.parametrize("bad_file", [0, 100, 199])
@pytest.mark.parametrize("bad", ["p(n1,7)@[5,3]", "p(n1,7)@[1,2", "p(n1, 7) @ [1,2] junk", 'p("n1,7)@[1,2]', "p(n1,7)@[1,2] every"])
def test_a_bad_line_in_the_first_middle_or_last_of_200_files(tmp_path, bad_file, bad):
    """200 small files read as one text by the kernels: a bad line is
    reported at its own file, line and column, as the line reader (each
    file alone, the row executor's reading) reports it."""
    files = _two_hundred_files(tmp_path, bad_file, 31, bad)
    program = "q(N) :- p(N, V).\n"
    got = _read(program, files)
    assert f"p{bad_file}.facts:31:" in got
    assert got == _read(program, files, engine="rows")


def test_files_of_every_ending_are_read_by_the_kernels_as_each_alone(tmp_path):
    """A file without a final newline, an empty one, one with a byte order
    mark, one of CRLF lines, one of comments and blank lines: read together
    by the kernels (every fact line counted there), the model of the line
    reader's reading of each file and of all the lines in one file."""
    lines = _facts(6000)
    forms = {
        "no_newline": lambda text: text.rstrip("\n"),
        "empty": lambda text: "",
        "bom": lambda text: "\ufeff" + text,
        "crlf": lambda text: text.replace("\n", "\r\n"),
        "comments": lambda text: "% facts\n\n" + text.replace("\n", "\n\n") + "% end",
        "plain": lambda text: text,
    }
    files = []
    for j in range(30):
        name, form = list(forms.items())[j % len(forms)]
        f = tmp_path / f"f{j}_{name}.facts"
        f.write_bytes(form("".join(lines[j * 200 : (j + 1) * 200])).encode("utf-8"))
        files.append(f)
    kept = [x for j in range(30) if j % len(forms) != 1 for x in lines[j * 200 : (j + 1) * 200]]
    whole = tmp_path / "all.facts"
    whole.write_text("".join(kept))
    assert whole.stat().st_size >= KERNEL_BYTES
    program = "q(N, Y) :- p(N, V), Y = V * 2.\nr(N) :- <->[0,3] p(N, V).\n"
    before = fact_columns.kernel_lines
    got = _read(program, files)
    assert fact_columns.kernel_lines - before == len(kept)
    assert got == _read(program, whole) == _read(program, files, engine="rows")


@pytest.mark.parametrize("form", ["bom", "crlf", "no_newline"])
def test_a_bad_line_of_a_file_read_with_others_keeps_its_column(tmp_path, form):
    """The bad fact on the first or last line of a file with a byte order
    mark, CRLF lines or no final newline: its place as the line reader's."""
    files = []
    for j in range(40):
        text = "".join(_facts(60, seed=j))
        if j == 17:
            text = ("  p(n1,7)@[1,2)) \n" + text) if form != "no_newline" else text + "p(n1,7)@[1,2"
            text = {"bom": "\ufeff" + text, "crlf": text.replace("\n", "\r\n")}.get(form, text)
        f = tmp_path / f"p{j}.facts"
        f.write_bytes(text.encode("utf-8"))
        files.append(f)
    got = _read("q(N) :- p(N, V).\n", files)
    assert "p17.facts:" in got
    assert got == _read("q(N) :- p(N, V).\n", files, engine="rows")


def test_labelled_nulls_of_two_files_are_two_nulls(tmp_path):
    """``_:x`` in two fact files names two nulls (a null is its file's), as
    the row executor reads them; the kernels' reading of many files kept
    the first file's null for the second's token."""
    lines = _facts(4000)
    files = []
    for j in range(2):
        f = tmp_path / f"n{j}.facts"
        f.write_text("p(_:x,7)@[0,1]\n" + "".join(lines[j * 2000 : (j + 1) * 2000]))
        files.append(f)
    assert sum(f.stat().st_size for f in files) >= KERNEL_BYTES
    program = "q(N) :- p(N, 7).\n"
    got = chronolog.reason(program, files)
    assert [x for x in got.lines() if "_:" in x] == ["q(_:x)@[0,1]", "q(_:x)@[0,1]"]
    assert got.lines() == chronolog.reason(program, files, engine="rows").lines()


def test_one_predicate_of_two_arities_in_two_joined_files(tmp_path):
    """The line reader's message names both places."""
    files = []
    for j in range(40):
        text = "".join(_facts(60, seed=j))
        f = tmp_path / f"p{j}.facts"
        f.write_text(text.replace("(", "(x,") if j == 30 else text)
        files.append(f)
    got = _read("q(N) :- p(N, V).\n", files)
    assert "p30.facts:1:" in got and "p0.facts:1:" in got
    assert got == _read("q(N) :- p(N, V).\n", files, engine="rows")


_FILE = st.fixed_dictionaries({
    "facts": st.integers(0, 30),
    "seed": st.integers(0, 1000),
    "bom": st.booleans(),
    "crlf": st.booleans(),
    "final_newline": st.booleans(),
    "comment": st.booleans(),
    "bad": st.none() | st.tuples(st.integers(0, 30), st.sampled_from(["p(n1,7)@[5,3]", "p(n1,7)@[1,2", "p(n1)@[1,2]", " p(n1 ,7)@[1,2] % c", "p(n1,7)@3 every 2"])),
})


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_FILE, min_size=1, max_size=12))
def test_small_files_read_together_as_the_line_reader_reads_each(tmp_path_factory, monkeypatch, specs):
    """Random small files (byte order marks, CRLF lines, no final newline,
    comments, empty ones, a bad line anywhere) read by the kernels as one
    text: the model, or the error with its file, line and column, of the
    line reader reading each file (the row executor's reading)."""
    tmp = tmp_path_factory.mktemp("files")
    files = []
    for j, spec in enumerate(specs):
        lines = _facts(spec["facts"], seed=spec["seed"])
        if spec["comment"]:
            lines.insert(len(lines) // 2, "% a comment\n")
        if spec["bad"] is not None:
            at, bad = spec["bad"]
            lines.insert(min(at, len(lines)), bad + "\n")
        text = "".join(lines)
        if not spec["final_newline"]:
            text = text.rstrip("\n")
        if spec["crlf"]:
            text = text.replace("\n", "\r\n")
        f = tmp / f"f{j}.facts"
        f.write_bytes((("\ufeff" if spec["bom"] else "") + text).encode("utf-8"))
        files.append(f)
    program = "q(N, Y) :- p(N, V), Y = V * 2.\nr(N) :- <->[0,3] p(N, V).\n"
    want = _read(program, files, engine="rows")  # (files under KERNEL_BYTES: the line reader)
    monkeypatch.setattr(chronolog.api, "KERNEL_BYTES", 0)  # the kernels for these few facts
    assert _read(program, files) == want
    monkeypatch.undo()


_ODD_TERMS = st.sampled_from([True, Decimal("1.5"), float("nan"), None, (1, "a"), Fraction(3, 2), Fraction(4, 2), "#T"])
_ENDS = st.one_of(st.integers(-5, 5), st.fractions(-5, 5, max_denominator=4), st.sampled_from([0.1, 2.5, -0.0, 1e-7, 3.0]))
_ODD_ENDS = st.sampled_from([float("inf"), -float("inf"), float("nan"), Decimal("2.5"), "3", None, True])


_DAY = datetime.datetime(2024, 3, 1)
_DATED_ENDS = st.one_of(st.integers(0, 400).map(lambda m: _DAY + datetime.timedelta(minutes=m * 7.5)),
                        st.integers(0, 3).map(lambda d: (_DAY + datetime.timedelta(days=d)).date()))
_ODD_DATED_ENDS = st.sampled_from([3, float("inf"), "2024-03-02", _DAY.replace(tzinfo=datetime.timezone.utc), None])


@st.composite
def _python_rows(draw, dated=False):
    """Rows of a predicate as a user gives them from Python: mostly plain
    pairs, sometimes a row of another form (a boolean, float or set term, a
    list, an interval of 3 parts or with other ends, another width)."""
    width = draw(st.integers(0, 3))
    odd = draw(st.booleans())  # (else every row plain)
    mixed = st.one_of(st.text("ab", min_size=0, max_size=2), st.integers(-3, 3), st.floats(-3, 3, width=16))
    kinds = [draw(st.sampled_from([st.text("ab", min_size=0, max_size=2), st.integers(-3, 3), st.floats(-3, 3, width=16), mixed]))
             for _ in range(width)]  # (a column of one kind, or of several)
    rows = []
    for _ in range(draw(st.integers(1, 8))):
        terms = tuple(draw(k) for k in kinds)
        if odd and draw(st.integers(0, 9)) == 0:
            terms = terms + (draw(_ODD_TERMS),) if draw(st.booleans()) or not terms else terms[:-1] + (draw(_ODD_TERMS),)
        if dated:
            lo, hi = sorted((draw(_DATED_ENDS), draw(_DATED_ENDS)), key=lambda x: str(x)[:10] + str(x)[10:].ljust(9, " "),
                            reverse=not draw(st.integers(0, 9)))  # (mostly not empty)
        else:
            lo = draw(_ENDS)
            hi = lo + draw(_ENDS) if draw(st.integers(0, 9)) else draw(_ENDS)  # (mostly not empty)
            hi = abs(hi - lo) + lo if draw(st.integers(0, 9)) else hi
        if odd and draw(st.integers(0, 9)) == 0:
            ends = _ODD_DATED_ENDS if dated else _ODD_ENDS
            lo, hi = draw(st.sampled_from([(draw(ends), hi), (lo, draw(ends))]))
        iv = (lo, hi) if draw(st.booleans()) else (lo, hi, draw(st.sampled_from([True, False, 1] if odd else [True, False])), draw(st.booleans()))
        if odd and draw(st.integers(0, 9)) == 0:
            iv = draw(st.sampled_from([iv[:1] + iv, list(iv), 4]))
        row = (terms, iv)
        if odd and draw(st.integers(0, 19)) == 0:
            row = draw(st.sampled_from([list(row), row + (None,), (list(terms), iv)]))
        rows.append(row)
    return rows


@settings(max_examples=examples(500), deadline=None)
@given(st.booleans().flatmap(lambda dated: st.tuples(st.just(dated), _python_rows(dated))))
@example((False, [(("a", True), (0, 1))]))
@example((False, [(("a", 1), (0, 1)), (("a", Fraction(1, 2)), (0, 1))]))
@example((False, [(("a",), (0, Fraction(4, 2))), (("b",), (Fraction(1, 3), 2.5, True, False))]))
@example((False, [(("a",), (0, 1)), (("a", "b"), (0, 1))]))
@example((False, [(("a",), (1, 1, True, False))]))
@example((False, [(("a", 0.5), (0.1, float("inf"))), (("b", -0.0), (-float("inf"), 2, True, True))]))
@example((False, [(("a",), (0.1, float("nan")))]))
@example((True, [(("a",), (_DAY, _DAY + datetime.timedelta(seconds=20)))]))
@example((True, [(("a",), (_DAY.date(), _DAY.replace(tzinfo=datetime.timezone.utc)))]))
def test_plain_python_rows_read_as_every_row_is_read(dated_rows):
    """Rows of strings and ints with int or Fraction ends (on a date
    timeline, date and naive datetime ends) are read by their types alone
    (api._plain_rows); the same rows, and any list with one row of another
    form, read as the checks of every row read them: the same rows, or the
    same error."""
    from chronolog import api
    from chronolog.language.dates import Calendar

    dated, rows = dated_rows

    def read(fast):
        saved = api._plain_rows
        if not fast:
            api._plain_rows = lambda *args, **kwargs: None
        try:
            got = api.load_facts({"p": rows}, calendar=Calendar("minutes") if dated else None)
            return "rows", dict(got), {k: str(v) for k, v in got.positions.items()}
        except chronolog.ChronologError as e:
            return "error", str(e)
        finally:
            api._plain_rows = saved

    fast, checked = read(True), read(False)
    assert fast == checked
    if fast[0] == "rows":  # (the types too: a Point where an end is between whole numbers, #T for True)
        def types(got):
            return [(tuple(map(type, terms)), tuple(map(type, iv))) for terms, iv in got["p"]]

        assert types(fast[1]) == types(checked[1])


@settings(max_examples=examples(200), deadline=None)
@given(st.booleans().flatmap(lambda dated: st.tuples(st.just(dated), _python_rows(dated))))
@example((False, [(("a", 1), (0, 1))] * 3 + [(("b", 1), (Fraction(1, 3), 1))]))
@example((True, [(("a",), (_DAY, _DAY + datetime.timedelta(minutes=1))), (("b",), (_DAY, _DAY + datetime.timedelta(seconds=1)))]))
@example((False, [(("a", 1.5), (Fraction(1, 2), 2.25))] * 3))
@example((False, [(("a", 1), (0, 1)), ((2, 1), (0, 1))]))
@example((True, [(("a",), (_DAY, _DAY + datetime.timedelta(minutes=1))), (("b",), (_DAY.date(), _DAY))]))
def test_plain_python_rows_as_a_table_give_the_rows_model(dated_rows):
    """Lists of plain rows go straight into columns as a table of them
    (api._plain_table, on columns at any size) where each column holds
    one kind: the model of the rows read row by row, or the same error."""
    dated, rows = dated_rows
    width = len(rows[0][0]) if isinstance(rows[0], tuple) and isinstance(rows[0][0], tuple) else 1
    args = ", ".join(f"X{j}" for j in range(width))
    head = f"q({args})" if width else "q"
    program = ('@timeGranularity("minutes").\n' if dated else "") + f"{head} :- <->[0,1] {head.replace('q', 'p', 1)}."

    def run(engine):
        try:
            m = chronolog.reason(program, {"p": rows}, engine=engine)
            return "model", m.facts("q"), m.facts("p")
        except chronolog.ChronologError as e:
            return "error", str(e)

    assert run("columns") == run("rows")


@pytest.mark.parametrize("ends", [(Fraction(1, 3), Fraction(5, 6)), (0, 2.5), (Fraction(-7, 12), 3)])
def test_a_list_with_ends_between_whole_numbers_goes_to_the_columns_exactly(ends):
    """Ends no float prints (1/3), and an int start beside a Fraction or
    float end, still make a table (integer multiples of the least common
    denominator, api._scaled_times): its facts read back exactly, and the
    model on columns is the rows'."""
    from chronolog import api
    import pyarrow as pa

    from chronolog.connectors.table_columns import TIME_SCALE

    lo, hi = ends
    rows = [((f"k{i % 7}", i), (lo + i, hi + i)) for i in range(3000)]
    table = api._plain_table(rows, None)
    assert table is not None and table.column("start").type == pa.int64()
    fc = api._table_columns(table, "p", None, 0)
    assert fc is not None
    program = "q(X, Y) :- <->[0,1] p(X, Y)."
    cols, by_rows = (chronolog.reason(program, {"p": rows}, engine=e) for e in ("columns", "rows"))
    assert cols.facts("p") == by_rows.facts("p") and cols.facts("q") == by_rows.facts("q")
    assert cols.facts("p")[0] == (("k0", 0), (lo if type(lo) is not float else Fraction(str(lo)), hi if type(hi) is not float else Fraction(str(hi)), True, True))
    assert int((table.schema.metadata or {}).get(TIME_SCALE, b"1")) in (6, 2, 12)


def test_a_table_whose_time_scale_metadata_is_not_a_number_reads_its_times_as_units():
    """The time-scale metadata is api._plain_table's own; a table given
    with another value under that name reads as any table does."""
    import pyarrow as pa

    from chronolog.connectors.table_columns import TIME_SCALE

    table = pa.table({"c0": [f"k{i}" for i in range(3000)], "start": list(range(3000)), "end": list(range(1, 3001))})
    table = table.replace_schema_metadata({TIME_SCALE: b"not a number"})
    m = chronolog.reason("q(X) :- p(X).", {"p": table}, engine="columns")
    assert m.facts("q")[:2] == [(("k0",), (0, 1, True, True)), (("k1",), (1, 2, True, True))]
