"""Monotonic aggregates inside a recursion, and aggregates with contributors
(``msum(V, <Z>)``), on the columns: the same model as the rows, which
define them (docs/language.md, "Aggregation"), intermediate values included.

Company control is the classic program of the Temporal Vadalog paper; the
random cases put its shapes (msum, mcount, mmax, mmin with and without
contributors, a threshold on the result, a diamond or box on the shares)
over random ownership graphs whose shares are integers, exact rationals or
floats, on overlapping intervals."""

from __future__ import annotations

import warnings
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

import chronolog
from budget import examples

from chronolog.language.errors import ChronologError

COMPANIES = ["a", "b", "c", "d", "e"]
SHARES = [1, 2, 3, Fraction(1, 2), Fraction(3, 10), Fraction(6, 10), 0.25, 0.6]


def _both(program: str, facts):
    """``(columns, rows)`` models, or the error each raised."""
    out = []
    for engine in ("columns", "rows"):
        try:
            out.append(chronolog.reason(program + "\n" + facts, engine=engine))
        except ChronologError as e:
            out.append(type(e).__name__)
    return out


def _same(program: str, facts) -> None:
    cols, rows = _both(program, facts)
    if isinstance(rows, str) or isinstance(cols, str):
        assert cols == rows, (cols, rows)
        return
    assert set(cols.stats["executors"].values()) == {"columns"}, cols.stats["executors"]
    assert cols.to_text(cols.predicates()) == rows.to_text(rows.predicates())


def test_company_control_runs_on_columns_with_its_intermediate_values():
    """The docs' program: cs(a,c,0.3) on [0,10] is an intermediate value
    of the recursion, kept as the rows keep it."""
    program = """
        controls(X, X) :- company(X).
        cs(X, Y, S) :- controls(X, Z), owns(Z, Y, V), S = msum(V, <Z>).
        controls(X, Y) :- cs(X, Y, S), S > 0.5.
    """
    facts = """
        company(a)@[0, 10]. company(b)@[0, 10]. company(c)@[0, 10].
        owns(a, b, 0.6)@[0, 10]. owns(a, c, 0.3)@[0, 10]. owns(b, c, 0.3)@[2, 6].
    """
    m = chronolog.reason(program + "\n" + facts, engine="columns")
    assert set(m.stats["executors"].values()) == {"columns"}
    assert m.to_text(["controls", "cs"]).splitlines() == [
        "controls(a,a)@[0,10]", "controls(a,b)@[0,10]", "controls(a,c)@[2,6]", "controls(b,b)@[0,10]",
        "controls(c,c)@[0,10]", "cs(a,b,0.6)@[0,10]", "cs(a,c,0.3)@[0,10]", "cs(a,c,0.6)@[2,6]", "cs(b,c,0.3)@[2,6]",
    ]
    _same(program, facts)


def test_a_contributor_counts_once_with_its_greatest_value():
    """The docs' example: investor i holds 30 until 5 and 60 from 4; on
    [4,5] it counts once, with 60."""
    program = "held(C, S) :- owns(I, C, P), S = msum(P, <I>)."
    facts = "owns(i, c, 30)@[0, 5]. owns(i, c, 60)@[4, 10]. owns(j, c, 20)@[2, 8]."
    m = chronolog.reason(program + "\n" + facts, engine="columns")
    assert set(m.stats["executors"].values()) == {"columns"}
    assert m.to_text(["held"]).splitlines() == ["held(c,30)@[0,2)", "held(c,50)@[2,4)", "held(c,60)@(8,10]", "held(c,80)@[4,8]"]


def test_the_plan_says_where_aggregates_of_other_contributors_run():
    for program in ("t(C, S, N) :- owns(I, C, P), S = msum(P, <I>), N = count().\nowns(i, c, 1)@0.",
                    "t(C, S, N) :- owns(I, C, P), S = msum(P, <I>), N = mcount(<I>).\nowns(i, c, 1)@0."):
        assert "runs on columns" in chronolog.explain_plan(program, engine="columns")
    program = ("t(C, S, N) :- owns(I, C, P), S = msum(P, <I>), N = count().\n"
               "owns(i, c, 1)@[0,4]. owns(i, c, 2)@[1,2]. owns(j, c, 5)@[3,6].")
    cols = chronolog.reason(program, engine="columns")
    assert cols.stats["executors"] == {0: "columns"}
    # by hand: i's greatest share counts once (1, then 2 on [1,2]), j's 5 from 3; count() counts bindings
    assert cols.to_text() == chronolog.reason(program, engine="rows").to_text() == (
        "t(c,1,1)@[0,1)\nt(c,1,1)@(2,3)\nt(c,2,2)@[1,2]\nt(c,5,1)@(4,6]\nt(c,6,2)@[3,4]")


@st.composite
def ownership(draw):
    facts = []
    for x in COMPANIES:
        if draw(st.integers(0, 3)):
            facts.append(f"company({x})@[{draw(st.integers(0, 3))},{draw(st.integers(6, 10))}].")
    for _ in range(draw(st.integers(1, 12))):
        x, y = draw(st.sampled_from(COMPANIES)), draw(st.sampled_from(COMPANIES))
        v = draw(st.sampled_from(SHARES))
        lo = draw(st.integers(0, 8))
        hi = lo + draw(st.integers(0, 5))
        br = draw(st.sampled_from(["[", "("])) if hi > lo else "["
        kt = draw(st.sampled_from(["]", ")"])) if hi > lo else "]"
        facts.append(f"owns({x},{y},{v})@{br}{lo},{hi}{kt}.")
    return "\n".join(facts)


@st.composite
def programs(draw):
    func = draw(st.sampled_from(["msum", "mcount", "mmax", "mmin", "max"]))
    contributors = draw(st.sampled_from(["<Z>", "", "<Z>"]))
    atom = draw(st.sampled_from(["owns(Z, Y, V)", "owns(Z, Y, V)", "<->[0,1] owns(Z, Y, V)", "[-][0,1] owns(Z, Y, V)"]))
    arg = ", ".join(a for a in ("" if func == "mcount" else "V", contributors) if a)
    if func == "mcount" and not contributors:
        arg = ""
    threshold = {"msum": draw(st.sampled_from(["1/2", "1", "0.5", "2"])), "mcount": draw(st.sampled_from(["1", "2"])),
                 "mmax": "1/2", "mmin": "1/2", "max": "1/2"}[func]
    keep = draw(st.booleans())  # the aggregate's value in the head (intermediate values in the model)
    head = "cs(X, Y, S)" if keep else "cs(X, Y)"
    rules = [
        "controls(X, X) :- company(X).",
        f"{head} :- controls(X, Z), {atom}, S = {func}({arg}), S > {threshold}." if not keep
        else f"{head} :- controls(X, Z), {atom}, S = {func}({arg}).",
        "controls(X, Y) :- cs(X, Y)." if not keep else f"controls(X, Y) :- cs(X, Y, S), S > {threshold}.",
    ]
    if draw(st.booleans()):  # a recursion through an aggregate grouped by a share (ints, rationals, floats)
        rules.append(f"byshare(X, V, S) :- controls(X, Z), owns(Z, Y, V), S = {draw(st.sampled_from(['msum(V, <Z>)', 'mcount(<Y>)', 'mmax(V)']))}.")
        rules.append("controls(X, Y) :- byshare(X, V, S), owns(X, Y, V), S > 1.")
    if draw(st.booleans()):  # two atoms of the recursion in the aggregate's body: a group reached through either
        rules.append(f"two(X, Y, N) :- controls(X, Z), controls(Z, Y), N = {draw(st.sampled_from(['mcount(<Z>)', 'mcount()']))}.")
        rules.append(f"controls(X, Y) :- two(X, Y, N), N > {draw(st.sampled_from(['1', '2']))}.")
    if draw(st.booleans()):  # a stratified aggregate with contributors over the result
        folds = ["sum(V, <Z>)", "count(<Z>)", "avg(V, <Z>)", "min(V, <Z>)", "max(V, <Z>)"]
        g = draw(st.lists(st.sampled_from(folds), min_size=1, max_size=3, unique=True))  # (several: one contributor, the plan's)
        if draw(st.integers(0, 4)) == 0:
            g = ["sum(V, <Y>)"]
        heads = [f"T{k}" for k in range(len(g))]
        rules.append(f"held(Y, {', '.join(heads)}) :- controls(X, Z), owns(Z, Y, V), "
                     + ", ".join(f"{h} = {f}" for h, f in zip(heads, g)) + ".")
    return "\n".join(rules)


@settings(deadline=None, max_examples=examples(60))
@given(programs(), ownership())
def test_recursive_and_contributor_aggregates_are_the_rows_on_columns(program, facts):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (max inside the recursion runs as mmax, with a note)
        _same(program, facts)
