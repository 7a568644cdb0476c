"""Queries with variables (chronolog/query.py) against brute force over
``Model.facts()``: every fact of the predicate is matched against the
pattern by hand and clipped to the window."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.language.timeline import EVERYWHERE, coalesce, intersect, make
from strategies import cases

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), max_examples=examples(40))


def brute_force(model, pred, pattern, window):
    """pattern: a tuple of constants and variable names (uppercase strings)."""
    out: dict = {}
    for terms, iv in model.facts(pred):
        binding, ok = {}, True
        for p, v in zip(pattern, terms):
            if isinstance(p, str) and p[:1].isupper():
                if binding.setdefault(p, v) != v:
                    ok = False
            elif p != "_" and p != v:
                ok = False
        if not ok or len(pattern) != len(terms):
            continue
        clipped = intersect(iv, window or EVERYWHERE)
        if clipped is not None:
            out.setdefault(tuple(sorted(binding.items())), []).append(clipped)
    return {k: sorted(coalesce(v)) for k, v in out.items()}  # (a binding's maximal intervals: `_` merges atoms)


def as_dict(answers):
    return {tuple(sorted(a.binding.items())): sorted(a.intervals) for a in answers}


def _window_text(w):
    lo, hi, lc, hc = w
    return f"{'[' if lc else '('}{lo},{hi}{']' if hc else ')'}"


@pytest.mark.parametrize("engine", ["rows", "columns"])
@settings(**SETTINGS)
@given(
    cases(ops=("<->", "<+>", "[-]", "S"), nest=1, max_arity=2),
    st.lists(st.sampled_from(["X", "Y", "a", "b", "_"]), min_size=0, max_size=2),
    st.one_of(st.none(), st.tuples(st.integers(-3, 6), st.integers(0, 5), st.booleans(), st.booleans())),
)
def test_queries_match_brute_force(engine, case, pattern, win):
    """Also where a string constant picks the atoms from the relation's
    index (chronolog/query._atoms_named), on the rows' relations and the
    columns', each query asked twice (the index kept from the first)."""
    model = chronolog.reason(case.program, case.facts, horizon=case.horizon, engine=engine)
    for pred in case.idb * 2:
        facts = model.facts(pred)
        arity = len(facts[0][0]) if facts else model.plan.arities.get(pred, (0,))[0]
        pat = (pattern + ["X", "Y"])[:arity]
        window = None
        if win is not None:
            window = make(Fraction(win[0]), Fraction(win[0] + win[1]), win[2], win[3]) or make(win[0], win[0], True, True)
        atom = pred + (f"({', '.join(pat)})" if pat else "")
        text = atom + (f"@{_window_text(window)}" if window is not None else "")
        got = model.query(text)
        if all(not (p[:1].isupper()) for p in pat) and "_" not in pat:  # ground: entailment
            assert got == model.holds(pred, tuple(pat), window or EVERYWHERE)
            continue
        assert as_dict(got) == brute_force(model, pred, tuple(pat), window), text


M = chronolog.reason("""
controls(X,Y) :- owns(X,Y,S), S > 0.5.
controls(X,Z) :- controls(X,Y), controls(Y,Z).
owns(a,beta,0.6)@[0,8]. owns(b,beta,0.7)@[5,20]. owns(beta,c,0.9)@[2,12].
""")


def test_an_anonymous_variable_gives_each_binding_its_maximal_intervals():
    """q(_)@1 answered [1,1] three times over, once per atom the _ stood for,
    and p(X,_) overlapping pieces: an Answer's intervals are maximal."""
    m = chronolog.reason('q(X) :- p(X, Y).\np(a, b)@[0,2].\np(a, c)@[1,5].\np(b, c)@(-inf,+inf).\np("x y", b)@1.')
    assert m.query("q(_)@1") == [chronolog.query.Answer({}, [(1, 1, True, True)])]
    assert m.query("p(X, _)@[0,9]") == [
        chronolog.query.Answer({"X": "a"}, [(0, 5, True, True)]),
        chronolog.query.Answer({"X": "b"}, [(0, 9, True, True)]),
        chronolog.query.Answer({"X": "x y"}, [(1, 1, True, True)]),
    ]


def test_windows_points_and_all_time():
    assert [(a.binding, a.intervals) for a in M.query("controls(X, beta)@[0,10]")] == [
        ({"X": "a"}, [(0, 8, True, True)]), ({"X": "b"}, [(5, 10, True, True)])]
    assert [a.binding["X"] for a in M.query("controls(X, c)@7")] == ["a", "b", "beta"]
    assert len(M.query("controls(X, Y)")) == 5
    assert M.query("controls(X, X)") == []
    assert M.query("controls(a, c)@[2,8]") is True and M.query("controls(a, c)@[2,9]") is False


def test_repeating_facts_need_a_window():
    m = chronolog.reason("job(X) :- <->[30,30] job(X). job(a)@0.")
    assert [a.intervals for a in m.query("job(X)@[0,70]")] == [[(0, 0, True, True), (30, 30, True, True), (60, 60, True, True)]]
    with pytest.raises(chronolog.ChronologError, match="repeat forever"):
        m.query("job(X)")


def test_bad_queries_are_positioned_errors():
    with pytest.raises(chronolog.ChronologError, match="cannot read the query"):
        M.query("controls(X")
    with pytest.raises(chronolog.ChronologError, match="2 arguments"):
        M.query("controls(X)")
    with pytest.raises(chronolog.ChronologError, match="window"):
        M.query("controls(X, Y)@[5")


@pytest.mark.parametrize("text, message", [
    ("controls(X", "cannot read the query 'controls(X': the query ends early; expected ',', ')'"),
    ("", "cannot read the query '': the query ends early; expected a name"),
    ("controls(X, Y)@", "cannot read the window '' of the query: the window ends early; expected a date"),
])
def test_a_query_that_ends_early_says_so(text, message):
    """The query is read as the body of a rule the reader closes with a
    '.', its window as a fact's: a query cut short was reported as
    "unexpected '.'" (a character the user never wrote), a window as a
    fact that ends early."""
    with pytest.raises(chronolog.ChronologError) as e:
        M.query(text)
    assert e.value.message.startswith(message)


def test_cli_query(tmp_path):
    prog = tmp_path / "c.vada"
    prog.write_text("controls(X,Y) :- owns(X,Y).\nowns(a,b)@[0,8].\nowns(c,b)@[5,20].\n")
    run = lambda *a: subprocess.run([sys.executable, "-m", "chronolog", "query", str(prog), *a], capture_output=True, text=True)
    assert run("controls(X, b)@[0,10]").stdout == "X=a: [0,8]\nX=c: [5,10]\n"
    assert run("controls(X, b)", "--format", "csv").stdout == "X,start,end,start_closed,end_closed\na,0,8,true,true\nc,5,20,true,true\n"
    assert json.loads(run("controls(X, b)@3", "--format", "json").stdout) == {"binding": {"X": "a"}, "intervals": ["[3,3]"]}
    assert run("controls(a, b)@[1,2]").stdout == "true\n"
    # only anonymous variables: the intervals alone (the line began ": ")
    assert run("controls(_, b)@[0,10]").stdout == "[0,10]\n"
    assert run("controls(_, b)", "--format", "csv").stdout == "start,end,start_closed,end_closed\n0,20,true,true\n"
    bad = run("controls(X")
    assert bad.returncode == 2 and "cannot read the query" in bad.stderr


def test_holds_reads_a_fact_as_query_and_proof_read_it():
    """``holds`` (and ``chronolog entails``) of a fact the query and the
    proof answer: with the model's labelled null it said False where
    ``query`` said True (its _:n1 was a null of the question's text); with
    the wrong number of arguments it said False where ``query`` refuses;
    and ``every`` was dropped, so ``q(a)@[1,2] every 3`` of a ``q(a)`` on
    [0,12] said True though it fails at 13."""
    m = chronolog.reason("q(X, Y) :- p(X, Y).\nr(X) :- <->[0,2] s(X).", "p(a, _:n1)@[0,10]\ns(a)@[0,10]")
    assert m.query("q(a,_:n1)@[0,1]") is True
    assert m.holds("q(a,_:n1)@[0,1]") is True
    for bad in ("q(a)@1", "r(a, b)@1"):
        with pytest.raises(chronolog.ChronologError):
            m.query(bad)
        with pytest.raises(chronolog.ChronologError, match=r"has \d argument"):
            m.holds(bad)
    with pytest.raises(chronolog.ChronologError, match="every"):
        m.holds("r(a)@[1,2] every 3")
    with pytest.raises(chronolog.ChronologError, match="every"):
        m.proof("r(a)@[1,2] every 3")


@pytest.mark.parametrize("ask", [lambda m: m.holds("controls(X, beta)@1"), lambda m: m.proof("controls(X, beta)@1")])
def test_a_fact_with_a_variable_given_to_holds_points_to_query(ask):
    # the hint was the fact files' one ("constants start with a lowercase
    # letter..."), which does not say what the user asking about X wants
    with pytest.raises(chronolog.ChronologError) as e:
        ask(M)
    assert "cannot contain the variable X" in e.value.message and "chronolog query" in e.value.hint


@pytest.mark.parametrize("query", ["d(a)@[15,15.5] every 5", "d(X)@[15,15.5] every 5"])
def test_a_repeating_window_is_refused_not_cut_to_its_first_interval(query):
    """query() read the window as a fact and kept its first interval: True
    for d(a) although d(a) does not hold at 20; holds() refused it."""
    m = chronolog.reason("d(X) :- g(X).", "g(a)@[15,16)")
    with pytest.raises(chronolog.ChronologError, match=r"the window '\[15,15.5\] every 5' of the query repeats"):
        m.query(query)


def test_a_ground_query_names_query_in_its_errors():
    m = chronolog.reason("d(X) :- g(X).", "g(a)@[15,16)")
    with pytest.raises(chronolog.ChronologError) as e:
        m.query("d@15")
    assert e.value.message == "query(): d has 1 argument, the fact gives 0"


def test_json_gives_a_float_as_a_json_float(tmp_path):
    """``--format json`` wrote a float term as its text (``"1.0"``, the
    same JSON as the name "1.0") beside an integer as a number: the float
    is a JSON float now (1.0 beside 1), an infinity its text, -0.0 as 0.0."""
    (tmp_path / "q.csv").write_text("v,w,start,end\n1.0,1,0,2\n-0.0,2,1,3\n2.5,0,0,1\ninf,3,0,1\n")
    prog = tmp_path / "f.vada"
    prog.write_text('@bind("q", "csv useHeaders=true", ".", "q.csv").\n@mapping("q", 0, "v", "float").\n'
                    '@mapping("q", 1, "w", "int").\nl(X,Y) :- q(X,Y).\nl(1,4)@[0,1].\nl("1.0",5)@[0,1].\n')
    run = lambda *a: subprocess.run([sys.executable, "-m", "chronolog", *a], capture_output=True, text=True, cwd=tmp_path)
    got = [json.loads(line)["terms"] for line in run("run", str(prog), "--format", "json").stdout.splitlines()]
    want = [[0.0, 2], [1, 4], [1.0, 1], [2.5, 0], ["+inf", 3], ["1.0", 5]]
    assert sorted(map(repr, got)) == sorted(map(repr, want))
    answers = [json.loads(line)["binding"] for line in run("query", str(prog), "l(X, 1)", "--format", "json").stdout.splitlines()]
    assert [(a["X"], type(a["X"])) for a in answers] == [(1.0, float)]


def test_a_query_naming_a_string_reads_the_repeating_facts_of_its_atoms():
    """A string constant picks atoms from the relation's index and from the
    facts that repeat forever (which no index holds); the rest of the answer
    as a query without it gives, filtered."""
    m = chronolog.reason("report(X, Y) :- <->[30,30] report(X, Y).  report(a, b)@0.  report(c, d)@1.  note(a, e)@[5,6].")
    named = m.query("report(a, Y)@[0,100]")
    every = [a for a in m.query("report(X, Y)@[0,100]") if a.binding["X"] == "a"]
    assert [a.binding for a in named] == [{"Y": "b"}] and named[0].intervals == every[0].intervals
    assert named[0].intervals == [(t, t, True, True) for t in (0, 30, 60, 90)]
    assert m.query("report(c, d)@31") is True and m.query("report(c, b)@31") is False
    assert m.query("report(zz, Y)@[0,100]") == [] and [tuple(a) for a in m.query("note(a, Y)")] == [({"Y": "e"}, [(5, 6, True, True)])]


TERMS = [0, 1, 2, -1, 0.0, -0.0, 1.0, 2.0, 0.5, 2.5, Fraction(1, 2), Fraction(5, 2), True, False, "a", "1"]
CONSTANTS = ["0", "1", "2", "-1", "0.0", "-0.0", "1.0", "0.5", "2.5", "#T", "#F", "a", '"1"', "3"]


@pytest.mark.parametrize("engine", ["rows", "columns"])
@settings(**SETTINGS)
@given(
    st.lists(st.tuples(st.sampled_from(TERMS), st.sampled_from(TERMS), st.integers(0, 6), st.integers(0, 3)),
             min_size=1, max_size=25),
    st.lists(st.tuples(st.sampled_from(CONSTANTS + ["X", "Y", "_"]), st.sampled_from(CONSTANTS + ["X", "Y", "_"])),
             min_size=1, max_size=6),
)
def test_a_query_naming_numbers_gives_what_reading_every_fact_gives(engine, rows, patterns):
    """Number constants pick atoms from the relation's index (a dict: 1, 1.0
    and 1/1 one key, as the query compares terms): the answers equal those
    of reading every fact of the predicate (the path before), with ints,
    floats, exact fractions, -0.0, booleans and strings side by side; each
    query asked twice."""
    from unittest.mock import patch

    import chronolog.query as query

    facts = {"p": [((x, y), (t, t + d)) for x, y, t, d in rows]}
    model = chronolog.reason('r(X, Y) :- p(X, Y).\n@output("r").', facts, engine=engine)
    for pat in patterns:
        if not any(p in ("X", "Y", "_") for p in pat):
            pat = (pat[0], "X")
        text = f"r({', '.join(pat)})"

        def ask():  # (a number the float and the exact columns both print is refused alike: the same error)
            try:
                return model.query(text)
            except chronolog.ChronologError as e:
                return str(e)

        got = [ask(), ask()]
        with patch.object(query, "_atoms_named", lambda model, q: None):  # (no index: every fact read)
            every = ask()
        assert got[0] == every and got[1] == every, text


def test_a_query_without_nulls_and_the_predicates_read_only_what_they_need(tmp_path):
    """A query, holds() or proof() adopts the model's labelled nulls for
    those its text names; finding them read every relation's atoms, so a
    first query of a model of a million given facts made all their rows
    (3.7 s of a 4.5 s query).  Now only a request that names a null looks,
    and a null it names is still the model's."""
    facts = tmp_path / "f.facts"
    facts.write_text("".join(f"p(a{i % 700},{i % 13})@[{i % 50},{i % 50 + 2}].\n" for i in range(6000)))
    m = chronolog.reason("q(X) :- <->[0,1] p(X, Y).", facts, engine="columns")
    assert m.store._pending, "the given facts were not left as columns"
    assert [a.binding for a in m.query("q(X)@[0,0]")][:1] == [{"X": "a0"}]
    assert m.holds("q(a1)@[1,3]") and "q(a1)@2" in m
    assert m.predicates() == ["p", "q"] and "p" in m  # (told by the columns' counts: it made every relation's rows)
    assert "p" not in m.store.materialised()
    e = chronolog.reason("o(X, Z) :- p(X).\np(a)@[0,5].")  # (a null the text names: the model's)
    (null,) = {terms[1] for terms, _ in e.facts("o")}
    assert e.holds(f"o(a, {null})@[0,5]") and not e.holds("o(a, _:other)@[0,5]")
    assert [a.binding for a in e.query(f"o(X, {null})")] == [{"X": "a"}]
