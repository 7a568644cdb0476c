"""The text output (connectors/text_out.py) byte for byte against formatting
fact by fact and sorting by the full key, as `chronolog run` did before."""

from __future__ import annotations

import datetime as dt
from fractions import Fraction

import pytest

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.connectors.text_out import relation_lines
from chronolog.language.booleans import FALSE, TRUE
from chronolog.language.dates import Calendar, format_fact
from chronolog.language.text import term_sort_key
from chronolog.language.timeline import NEG_INF, POS_INF, coalesce, make

from strategies import cases


def reference_lines(pred, atoms, calendar=None):
    rows = [
        (tuple(term_sort_key(v) for v in t), iv[0], format_fact(pred, t, iv, calendar))
        for t, ivs in atoms.items()
        for iv in ivs
    ]
    rows.sort(key=lambda r: (r[0], r[1]))
    return [r[2] for r in rows]


TERMS = st.one_of(
    st.integers(-10**20, 10**20),
    st.fractions(max_denominator=7),
    st.sampled_from(["a", "b", "B", "x y", 'q"uote', "back\\slash", "not", "inf", "", "1"]),
    st.sampled_from([TRUE, FALSE]),  # the engine's #T/#F (language/booleans.py)
    st.dates(dt.date(1999, 1, 1), dt.date(2030, 1, 1)).map(lambda d: dt.datetime(d.year, d.month, d.day)),
    st.sampled_from([0.0, -0.0, 1.0, 2.5, -3.0]),  # floats equal to ints: 0.0 == 0 yet prints 0.0
)
POINTS = st.one_of(st.integers(-50, 50), st.fractions(-20, 20, max_denominator=6))


@st.composite
def relations(draw):
    width = draw(st.integers(0, 3))
    atoms = {}
    for _ in range(draw(st.integers(0, 80))):
        t = tuple(draw(TERMS) for _ in range(width))
        t = tuple(Fraction(v) if type(v) is Fraction and v.denominator != 1 else (int(v) if type(v) is Fraction else v) for v in t)
        ivs = []
        for _ in range(draw(st.integers(1, 3))):
            a, b = sorted((draw(POINTS), draw(POINTS)))
            if draw(st.integers(0, 8)) == 0:
                a = NEG_INF
            if draw(st.integers(0, 8)) == 0:
                b = POS_INF
            iv = make(a, b, draw(st.booleans()), draw(st.booleans()))
            if iv is not None:
                ivs.append(iv)
        if ivs:
            atoms[t] = coalesce(ivs)
    return atoms


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(relations())
def test_random_relations_print_as_fact_by_fact(atoms):
    assert relation_lines("p", atoms) == reference_lines("p", atoms)


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.integers(0, 400), min_size=1, max_size=200))
def test_dated_relations_print_as_fact_by_fact(days):
    cal = Calendar("days")
    atoms = {("s", i % 7): coalesce([(d, d + 3, True, i % 2 == 0) for d in days[i::7]]) for i in range(7) if days[i::7]}
    assert relation_lines("p", atoms, cal) == reference_lines("p", atoms, cal)


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.integers(-4 * 10**13, 3 * 10**14) | st.integers(0, 2000).map(lambda k: k * 86_400_000 + 1_700_000_000_000),
                min_size=1, max_size=200, unique=True), st.sampled_from(["milliseconds", "seconds"]), st.booleans())
def test_dated_ends_under_a_second_print_as_fact_by_fact(points, unit, unbounded):
    """A relation held as columns on a timeline of milliseconds
    (microseconds written where there are some, a midnight as its date) or
    seconds, some ends before year 1000 or past 9999 (then written one by
    one), some unbounded: the lines fact by fact."""
    import polars as pl

    from chronolog.connectors.text_out import frame_lines
    from chronolog.engine.columns.encoding import Dictionary, TimeScale
    from chronolog.engine.interval_codes import POS
    from chronolog.language.timeline import POS_INF

    cal, d = Calendar(unit), Dictionary()
    keys = [f"k{i % 7}" for i in range(len(points))]
    ends = [None if unbounded and i % 5 == 0 else t + 1500 for i, t in enumerate(points)]
    df = pl.DataFrame({"0": d.code_all(keys).tolist(), "s": [2 * t for t in points],
                       "e": [POS if e is None else 2 * e + 1 for e in ends]}, schema={k: pl.Int64 for k in ("0", "s", "e")})
    atoms = {}
    for k, t, e in zip(keys, points, ends):
        atoms.setdefault((k,), []).append((t, POS_INF if e is None else e, True, e is not None))
    got = "".join("".join(a.to_list()) for a in frame_lines("p", df, 1, d, TimeScale(), cal))
    assert got == "".join(line + "\n" for line in reference_lines("p", {k: sorted(v) for k, v in atoms.items()}, cal))


def test_many_atoms_use_the_vectorised_order():
    atoms = {(i % 13, f"c{i % 17}", Fraction(i, 3)): [(i, i + 1, True, False)] for i in range(500)}
    assert relation_lines("p", atoms) == reference_lines("p", atoms)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(negation=True))
def test_random_programs_print_as_fact_by_fact(case):
    m = chronolog.reason(case.program + "\n" + case.facts, horizon=case.horizon)
    want = []
    for p in sorted(m.output_predicates):
        rel = m._relation(p)
        if rel is not None:
            want += reference_lines(p, rel.atoms, m.calendar)
    assert m.lines() == want


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(relations())
def test_csv_output_as_cell_by_cell(tmp_path_factory, atoms):
    import csv
    import io

    from chronolog.connectors.csv_files import _cell, write_csv_facts
    from chronolog.language.timeline import format_number

    facts = [(t, iv) for t, ivs in atoms.items() for iv in ivs]
    width = len(next(iter(atoms))) if atoms else 0
    names = [f"c{i}" for i in range(width)]
    path = tmp_path_factory.mktemp("csv") / "p.csv"
    write_csv_facts(path, facts, names)
    want = io.StringIO(newline="")
    w = csv.writer(want)
    w.writerow(names + ["start", "end", "start_closed", "end_closed"])
    for t, (lo, hi, lc, hc) in facts:
        w.writerow([_cell(v) for v in t] + [format_number(lo), format_number(hi), str(lc).lower(), str(hc).lower()])
    assert path.read_bytes().decode("utf-8") == want.getvalue()


@pytest.mark.parametrize("order", [1, -1])
def test_a_boolean_beside_the_equal_number_is_written_as_a_boolean(tmp_path, order):
    """``Model.facts`` gives #T as Python's True, which equals 1 as a key:
    the CSV writer's cache of formatted cells wrote ``q(#T)`` as ``1`` after
    ``q(1)`` (or ``q(1)`` as ``true`` after it), so ``chronolog run --output``
    changed the model."""
    import csv

    from chronolog.connectors.files import write_facts

    m = chronolog.reason("q(X) :- p(X).  p(1)@[0,1].  p(#T)@[0,2].  p(0)@[0,3].  p(#F)@[0,4].")
    facts = m.facts("q")[::order]
    write_facts(tmp_path / "q.csv", facts, ["c0"], "q")
    with open(tmp_path / "q.csv", newline="") as fh:
        cells = [[row[0], row[2]] for row in csv.reader(fh)][1:]
    want = {(1, 1): "1", (True, 2): "#T", (0, 3): "0", (False, 4): "#F"}  # (a boolean term's CSV form: docs/cli.md)
    assert cells == [[want[t[0], iv[1]], str(iv[1])] for t, iv in facts], cells


def test_a_boolean_beside_the_equal_number_sorts_as_a_boolean():
    """Found by the property above: False == 0, so a set of a column's values
    could hide the boolean and the fast sort ranked #F as 0 (the engine's
    #F is now a term of its own, never equal to 0)."""
    atoms = {(0, i, 0): [(0, 1, True, True)] for i in range(70)}
    atoms[(0, FALSE, 8)] = [(0, 1, True, True)]
    atoms[(0, 0, 8)] = [(0, 1, True, True)]
    assert relation_lines("p", atoms) == reference_lines("p", atoms)


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.tuples(st.text(alphabet=' a,"\r\n\t;\'\\é', max_size=4), st.integers(0, 9), st.integers(1, 5)), min_size=1, max_size=12))
def test_columns_csv_quotes_as_the_csv_module(rows):
    """A relation held as columns is written to CSV cell by cell as the csv
    module writes it: cells with a comma, a quote or a line break quoted,
    and those with a blank at an end, the others as they are (those are
    not passed through the module)."""
    import csv
    import io

    import polars as pl

    from chronolog.connectors.text_out import frame_csv_lines
    from chronolog.engine.columns.coalesce import coalesce
    from chronolog.engine.columns.encoding import Dictionary, TimeScale

    terms = Dictionary()
    codes = terms.code_all([t for t, _, _ in rows])
    df = coalesce(pl.DataFrame({"0": codes, "s": [2 * lo for _, lo, _ in rows], "e": [2 * (lo + n) for _, lo, n in rows]},
                               schema={"0": pl.Int64, "s": pl.Int64, "e": pl.Int64}), ["0"])
    got = "".join(a.to_pylist()[i] for a in frame_csv_lines(df, 1, terms, TimeScale()) for i in range(len(a)))
    want = io.StringIO(newline="")
    facts = chronolog.reason("", {"p": [((t,), (lo, lo + n, True, False)) for t, lo, n in rows]}).facts("p")
    for (t,), (lo, hi, lc, hc) in sorted(facts, key=lambda f: (term_sort_key(f[0][0]), f[1][0])):
        if t[:1].isspace() or t[-1:].isspace():  # quoted too: a bare cell's blanks are trimmed when it is read
            csv.writer(want, quoting=csv.QUOTE_ALL).writerow([t])
            want.seek(want.tell() - 2)  # (its line end: the other cells follow)
            csv.writer(want).writerow(["", lo, hi, str(lc).lower(), str(hc).lower()])
        else:
            csv.writer(want).writerow([t, lo, hi, str(lc).lower(), str(hc).lower()])
    assert got == want.getvalue()


NAME_TEXTS = st.one_of(
    st.sampled_from(["a", "b_2", "not", "inf", "infty", "<http://www.lubm.org/x>", "a b", 'a"b', "a\\b", "é", "x\u2028y", "x\x85", "\t", ""]),
    st.text(alphabet='ab_ <>:/#"\\\n\r\t\x0b\x0c\x1c\x1d\x1eé€\x85\u2028\u2029😀', max_size=8),
)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(NAME_TEXTS, max_size=12))
def test_names_of_a_file_print_as_format_term_prints_them(names):
    """A fact file's names are printed by kernels (quoted, escaped, their
    line breaks by format_term): the text format_term gives each."""
    import polars as pl

    from chronolog.connectors.text_out import _name_texts
    from chronolog.language.text import format_term

    assert _name_texts(pl.Series(names, dtype=pl.String), format_term).to_list() == [format_term(v) for v in names]


MEMBERS = st.one_of(st.integers(-5, 5), st.sampled_from([0.0, -0.0, 1.0, 0.1, 2.5, Fraction(1, 3), True, False]),
                    st.sampled_from(["a", "b c", 'say "hi"', "x\ny", "1", "ID1", "a1:Lecturer"]),
                    st.sampled_from([dt.datetime(2024, 1, 1), dt.datetime(2024, 1, 1, 12)]))


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.one_of(MEMBERS, st.lists(st.one_of(MEMBERS, st.lists(MEMBERS, max_size=2).map(tuple)),
                                            max_size=4).map(tuple)), max_size=12))
def test_sets_print_as_each_printer_prints_them(vals):
    """The output makes a set's members' texts once each (TermTexts.of): the
    text each printer gives the set, the dialects' and term text's too
    (a member 0.0 beside -0.0, 1 beside 1.0 and True, a set in a set)."""
    import numpy as np

    from chronolog.connectors.text_out import TermTexts
    from chronolog.language.lars import LarsDialect
    from chronolog.language.meteor import MeteorDialect
    from chronolog.language.text import format_term, format_term_text

    def term(v):
        return (TRUE if v else FALSE) if type(v) is bool else tuple(map(term, v)) if type(v) is tuple else v

    vals = [term(v) for v in vals]
    for printer in (format_term, format_term_text, MeteorDialect().format_term, LarsDialect().format_term):
        codes = np.arange(len(vals), dtype=np.int64)
        assert TermTexts().of(codes, vals, printer) == [printer(v) for v in vals]


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(NAME_TEXTS, unique=True, max_size=30))
def test_string_ranks_are_pythons_order(strings):
    """Distinct strings ranked by a polars sort and a join: their places in
    Python's sorted order (code point order, UTF-8 byte order)."""
    import polars as pl

    from chronolog.language import term_ranks

    want = {v: i for i, v in enumerate(sorted(strings))}
    for by_join in (term_ranks.RANK_BY_JOIN, 3):  # (a set larger than RANK_BY_JOIN: by arg_sort)
        old, term_ranks.RANK_BY_JOIN = term_ranks.RANK_BY_JOIN, by_join
        try:
            assert term_ranks.string_ranks(pl.Series(strings, dtype=pl.String)).tolist() == [want[v] for v in strings]
        finally:
            term_ranks.RANK_BY_JOIN = old


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(NAME_TEXTS, unique=True, max_size=30))
def test_term_ranks_of_a_few_strings_are_the_rows_order(strings):
    """A few distinct strings ranked by Python's sort, more by polars: both
    their places in the rows' term order (term_sort_key)."""
    from chronolog.language import term_ranks
    from chronolog.language.text import term_sort_key

    want = {v: i for i, v in enumerate(sorted(strings, key=term_sort_key))}
    for few in (term_ranks.FEW_STRINGS, 0):
        old, term_ranks.FEW_STRINGS = term_ranks.FEW_STRINGS, few
        try:
            assert term_ranks.term_ranks(strings).tolist() == [want[v] for v in strings]
        finally:
            term_ranks.FEW_STRINGS = old


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.datetimes(), unique=True, min_size=1, max_size=300))
def test_term_ranks_of_instants_are_the_rows_order(instants):
    """Instants rank by their microseconds from 257 of them (by Python's
    sort below): the rows' order, term_sort_key's, either way."""
    from chronolog.language.term_ranks import FEW_NUMBERS, term_ranks

    pad = [dt.datetime(2000, 1, 1) + dt.timedelta(seconds=k, microseconds=k) for k in range(FEW_NUMBERS + 1)]
    many = list(dict.fromkeys(instants + pad if len(instants) <= FEW_NUMBERS else instants))
    want = sorted(range(len(many)), key=lambda i: term_sort_key(many[i]))
    assert [many[i] for i in want] == sorted(many)
    ranks = term_ranks(many)
    assert sorted(range(len(many)), key=ranks.__getitem__) == want


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_an_int_beside_the_equal_float_prints_as_given(engine):
    """0 == 0.0 and 1 == 1.0 are one dict key: the memo of each term's text
    printed the int 0 of an atom holding the float 0.0 as ``0.0`` (and the
    float 1.0 after an int 1 as ``1``).  Each prints as ``Model.facts`` gives it."""
    data = {"o": [((0.0, "a", 0), (0, 1, True, False)), ((1, "b", 1.0), (0, 1, True, False)), ((-0.0, "c", 2), (0, 1, True, False))]}
    m = chronolog.reason("l(X,Y,Z) :- o(X,Y,Z).", data, engine=engine)
    assert m.to_text().splitlines() == ["l(0.0,a,0)@[0,1)", "l(0.0,c,2)@[0,1)", "l(1,b,1.0)@[0,1)"]
    assert sorted(m.lines()) == sorted(format_fact("l", t, iv, None) for t, iv in m.facts("l"))


MIXED_PROGRAMS = [
    "l(X,Y) :- p(X,Y). m(X,Y) :- q(X,Y).",
    "j(X,Y) :- p(X,Y), q(X,Y).",
    "j(X,Y) :- p(X,Y), not q(X,Y).",
    "l(X,Y) :- p(X,Y). l(X,Y) :- q(X,Y).",
    "s(X,N) :- q(X,Y), N = count().",
    "l(X,X,Z) :- p(X,Z), q(Z,X).",
]


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(MIXED_PROGRAMS),
    st.lists(st.tuples(st.sampled_from(["p", "q"]), st.sampled_from([0, 0.0, -0.0, 1, 1.0, 2, 2.5, "a"]),
                       st.sampled_from([0, 0.0, 1, 1.0, 2.5, "a"]), st.integers(0, 4)), min_size=1, max_size=10),
)
def test_ints_and_equal_floats_print_alike_on_rows_and_columns(program, given_facts):
    """Each fact of the text is ``format_fact`` of the fact ``Model.facts``
    gives (ints as ints, floats in Python's form), and rows and columns print alike."""
    data = {"p": [], "q": []}
    for p, x, y, t in given_facts:
        data[p].append(((x, y), (t, t + 2, True, False)))
    texts = []
    for engine in ("rows", "columns"):
        m = chronolog.reason(program, data, engine=engine)
        want = sorted(format_fact(p, t, iv, None) for p in m.output_predicates for t, iv in m.facts(p))
        assert sorted(m.lines()) == want
        texts.append(sorted(m.lines()))
    assert texts[0] == texts[1]


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(TERMS, unique=True, max_size=40), st.data(), st.booleans())
def test_a_column_of_a_distinct_term_each_row_orders_alone(firsts, data, as_series):
    """A relation whose first column holds a different term in each row
    (the later columns' ranks are then not made): the lines are in the
    order of the full key, as fact by fact, in whatever order the rows are."""
    import polars as pl

    from chronolog.connectors.text_out import frame_lines
    from chronolog.engine.columns.encoding import Dictionary, TimeScale

    d = Dictionary()
    d.code("a")  # (a value coded before: strings after it are a later Series part)
    if as_series:
        firsts = list(dict.fromkeys(str(v) for v in firsts))
        c0 = d.code_names(pl.Series(firsts, dtype=pl.String)).tolist()
    else:
        c0 = d.code_all(firsts).tolist()
    n = len(c0)
    c1 = d.code_all(data.draw(st.lists(TERMS, min_size=n, max_size=n))).tolist()
    c2 = d.code_names(pl.Series(data.draw(st.lists(st.sampled_from(["b", "a", "ß", "Z", "1"]), min_size=n, max_size=n)), dtype=pl.String)
                      .unique(maintain_order=True)).tolist()
    c2 = [c2[i % len(c2)] for i in range(n)] if c2 else []
    los = data.draw(st.lists(st.integers(-5, 5), min_size=n, max_size=n))
    order = data.draw(st.permutations(range(n)))
    df = pl.DataFrame({"0": [c0[i] for i in order], "1": [c1[i] for i in order], "2": [c2[i] for i in order],
                       "s": [2 * los[i] for i in order], "e": [2 * los[i] + 3 for i in order]},
                      schema={k: pl.Int64 for k in ("0", "1", "2", "s", "e")})
    atoms = {(d.values[c0[i]], d.values[c1[i]], d.values[c2[i]]): [(los[i], los[i] + 1, True, True)] for i in range(n)}
    got = "".join("".join(a.to_list()) for a in frame_lines("p", df, 3, d, TimeScale()))
    assert got == "".join(line + "\n" for line in reference_lines("p", atoms))


@pytest.mark.parametrize("granularity, step, ends", [
    ("hours", dt.timedelta(days=1), "[{a},{b}]"),  # midnights on a timeline of hours: date32
    ("minutes", dt.timedelta(seconds=1), "[{a},{b})"),  # seconds on a timeline of minutes: timestamps
    ("seconds", dt.timedelta(milliseconds=1), "({a},+inf)"),  # milliseconds, unbounded ends: nulls
    ("days", dt.timedelta(hours=8), "[{a},{b}]"),  # a third of a day
])
def test_columns_time_columns_typed_by_numpy_as_the_rows_type_them(granularity, step, ends):
    """A relation held as columns gives its start and end columns by numpy
    from the grid's codes (no Fraction per distinct end): date32 where
    every point is a midnight, else timestamp[us], null where unbounded,
    the rows' table to the value and type."""
    day0 = dt.datetime(2024, 1, 1)
    facts = "\n".join(f"p(k{i % 7}, {i})@" + ends.format(a=(day0 + step * i * 5).isoformat(), b=(day0 + step * (i * 5 + 3)).isoformat()) + "."
                      for i in range(200))
    program = f'@timeGranularity("{granularity}").\nq(K, I) :- p(K, I).\n@output("q").\n' + facts
    rows = chronolog.reason(program, engine="rows").to_arrow("q")
    cols = chronolog.reason(program, engine="columns").to_arrow("q")
    assert cols.equals(rows), (cols.schema, rows.schema)
    assert rows.num_rows == 200


_SORTED_TERMS = st.one_of(
    st.integers(-5, 5), st.integers(-(2**70), 2**70), st.fractions(-5, 5, max_denominator=6), st.floats(-5, 5, width=16),
    st.text("ab", max_size=2), st.sampled_from([TRUE, FALSE, dt.datetime(2024, 1, 1), (1, "a"), ()]))


@settings(max_examples=examples(300), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(1, 3).flatmap(lambda w: st.lists(st.tuples(*[_SORTED_TERMS] * w), min_size=64, max_size=100)),
       st.sampled_from(["mixed", "ints", "strings", "numbers"]))
def test_atoms_sorted_as_the_term_order_says(keys, kind):
    """connectors/text_rows.sorted_atoms (columns sorted by their values
    where all are 64-bit ints, by Python's order where all are strings or
    all numbers, else by term_sort_key's ranks) orders atoms as sorting by
    term_sort_key does."""
    from chronolog.connectors.text_rows import sorted_atoms
    from chronolog.language.timeline import as_point

    if kind == "ints":
        keys = [tuple(hash(v) % 1000 - 500 for v in t) for t in keys]
    elif kind == "strings":
        keys = [tuple(str(v) for v in t) for t in keys]
    elif kind == "numbers":
        keys = [tuple((as_point(v) if type(v) is Fraction else v) if type(v) in (int, Fraction, float) else 0 for v in t) for t in keys]
    atoms = dict.fromkeys(t + (i,) for i, t in enumerate(keys))  # (64 atoms or more: the columns' sort)
    want = sorted(atoms, key=lambda t: tuple(term_sort_key(v) for v in t))
    assert [tuple(map(term_sort_key, t)) for t in sorted_atoms(atoms)] == [tuple(map(term_sort_key, t)) for t in want]


_ENDS = st.one_of(st.integers(-20, 20), st.fractions(-20, 20, max_denominator=4))


@st.composite
def _atoms_with_intervals(draw):
    """An atoms dict as a row relation holds it: terms -> sorted maximal
    intervals, some unbounded, some atoms on several intervals."""
    width = draw(st.integers(0, 3))
    terms = draw(st.lists(st.tuples(*[st.one_of(_SORTED_TERMS, st.just(-0.0))] * width), min_size=1, max_size=80, unique=True))
    atoms = {}
    for t in terms:
        ivs = []
        for _ in range(draw(st.integers(1, 3))):
            lo, hi = sorted((draw(_ENDS), draw(_ENDS)))
            lo = NEG_INF if draw(st.integers(0, 9)) == 0 else lo
            hi = POS_INF if draw(st.integers(0, 9)) == 0 else hi
            iv = make(lo, hi, draw(st.booleans()) and lo != NEG_INF, draw(st.booleans()) and hi != POS_INF)
            ivs.append(iv or make(0, 1, True, True))
        atoms[t] = coalesce(ivs)
    return width, atoms


@settings(max_examples=examples(200), deadline=None, suppress_health_check=list(HealthCheck))
@given(_atoms_with_intervals(), st.booleans())
def test_a_row_relations_table_equals_its_facts_table(case, dated):
    """connectors/text_rows.atoms_arrow_table (a rows model's to_arrow,
    column by column) gives the table facts_to_arrow gives of the facts in
    the model's order, their terms public (#T as True, -0.0 as 0.0): terms
    of every kind, ends whole or between, unbounded, several per atom; on a
    numeric timeline and on days."""
    from chronolog.connectors.text_rows import atoms_arrow_table, sorted_atoms
    from chronolog.engine.arrow import facts_to_arrow
    from chronolog.language.booleans import public_terms

    width, atoms = case
    cal = Calendar("days") if dated else None
    if dated:  # (a date timeline's points are whole units here)
        atoms = {t: [iv for iv in ivs if all(type(x) is int or x in (NEG_INF, POS_INF) for x in iv[:2])] or [make(0, 1, True, True)]
                 for t, ivs in atoms.items()}
    names = [f"c{j}" for j in range(width)]
    facts = [(public_terms(t), iv) for t in sorted_atoms(atoms) for iv in atoms[t]]
    want = facts_to_arrow(facts, names, cal)
    got = atoms_arrow_table(atoms, names, cal)
    assert got.equals(want, check_metadata=True), (got.to_pylist()[:3], want.to_pylist()[:3])
    assert repr(got.to_pylist()) == repr(want.to_pylist())  # (-0.0 is 0.0 to equals())


TERMS_OF_EVERY_KIND = st.one_of(
    st.integers(-10**20, 10**20), st.fractions(max_denominator=50), st.floats(allow_nan=False),
    NAME_TEXTS, st.booleans(), st.dates(), st.sampled_from(["n1", "n2", "n10", "n007", "x1", "n"]),
    st.lists(st.integers(-5, 5), max_size=3).map(lambda v: tuple(sorted(set(v)))),
)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(TERMS_OF_EVERY_KIND, max_size=40), st.sampled_from([0, 3, 256]))
def test_term_ranks_of_terms_of_every_kind_are_the_rows_order(vals, few):
    """Terms of several kinds, each kind ranked apart by its own order
    (strings by polars, nulls by their labels' numbers, exact numbers over
    a common denominator): the rows' term order (term_sort_key) all the same."""
    from chronolog.language import term_ranks
    from chronolog.language.booleans import TRUE, FALSE
    from chronolog.language.nulls import Null
    from chronolog.language.text import term_sort_key

    scope = object()
    terms, seen = [], set()
    for v in vals:
        if type(v) is bool:
            v = TRUE if v else FALSE
        elif isinstance(v, str) and v[:1] in "nx" and v[1:].isdigit() or v in ("n",):
            v = Null(v, scope)
        if (type(v).__name__, v) not in seen and not (isinstance(v, float) and any(type(t) in (int, Fraction) and t == v for t in terms)):
            seen.add((type(v).__name__, v))
            terms.append(v)
    want = {i: r for r, i in enumerate(sorted(range(len(terms)), key=lambda i: term_sort_key(terms[i])))}
    old = term_ranks.FEW_STRINGS, term_ranks.FEW_NUMBERS
    term_ranks.FEW_STRINGS = term_ranks.FEW_NUMBERS = few
    try:
        assert term_ranks.term_ranks(terms).tolist() == [want[i] for i in range(len(terms))]
        ints = [v for v in terms if type(v) is int]  # (by numpy's sort where they fit 64 bits)
        assert term_ranks.term_ranks(ints).tolist() == [sorted(ints).index(v) for v in ints]
    finally:
        term_ranks.FEW_STRINGS, term_ranks.FEW_NUMBERS = old


_BASE_DATETIMES = [dt.datetime(1999, 1, 1) + dt.timedelta(days=37 * k, seconds=k % 3) for k in range(256)]


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.datetimes(min_value=dt.datetime(1, 1, 1), max_value=dt.datetime(9999, 12, 31, 23, 59, 59, 999999))
                | st.dates().map(lambda d: dt.datetime(d.year, d.month, d.day)), min_size=1, max_size=40))
def test_many_datetimes_print_and_order_as_one_by_one(drawn):
    """Many naive datetime terms are printed by polars (a midnight as its
    date, microseconds only when there are some, years below 1000 with
    their zeros) and ordered by their own comparison: the texts
    format_term gives and the order of term_sort_key's ISO text."""
    import numpy as np

    from chronolog.connectors.text_out import _datetime_texts
    from chronolog.language.term_ranks import term_ranks
    from chronolog.language.text import format_term

    values = list(dict.fromkeys(drawn + _BASE_DATETIMES))  # (many: the kernels' path)
    assert _datetime_texts(values) == [format_term(v) for v in values]
    want = sorted(range(len(values)), key=lambda i: term_sort_key(values[i]))
    assert np.argsort(term_ranks(values)).tolist() == want


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.one_of(st.integers(-5, 5), st.floats(-3, 3, allow_nan=False), st.sampled_from(["a", "b c", "n10", "n2", ""]),
                          st.integers(0, 30).map(lambda k: ("null", k)), st.sampled_from([TRUE, FALSE]),
                          st.fractions(-3, 3, max_denominator=7)), min_size=1, max_size=60))
def test_mixed_terms_rank_in_term_order(drawn):
    """Distinct terms of several kinds (numbers of three types, strings, a
    chase's nulls, booleans) ranked at once are in term_sort_key's order,
    whichever way term_order splits them by kind."""
    from chronolog.language.nulls import NullFactory
    from chronolog.language.term_ranks import term_order

    nulls = NullFactory()._new(31)
    values = list(dict.fromkeys(nulls[d[1]] if type(d) is tuple else d for d in drawn))
    got = [values[i] for i in term_order(values)]
    assert got == sorted(values, key=term_sort_key)
