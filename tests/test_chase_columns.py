"""Existential rules on columns: the same model as the rows, nulls and
their labels included, and labels that depend on the program and the facts
alone (not on the executor, nor on the order the facts came in)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

import chronolog
import pytest
from budget import examples
from differential import agree, outcomes

from chronolog.engine.columns.encoding import CONFLATION
from chronolog.language.errors import ProgramError

PREDS = {"p": 1, "q": 2, "r": 2, "s": 1, "t": 3}
VARS = ["X", "Y", "Z"]
EXISTENTIAL = ["V", "W"]
# terms of several kinds, their term order not their text's: 10 after 9, names after numbers
TERMS = ["a", "b", "zeta", '"c d"', "2", "9", "10", "2.5", "-1"]
TEMPORAL = ["<->[0,1] ", "[-][0,1] ", "<+>[1,2] ", ""]


@st.composite
def rule(draw, existential: bool):
    body = []
    for _ in range(draw(st.integers(1, 2))):
        pred = draw(st.sampled_from(sorted(PREDS)))
        terms = [draw(st.sampled_from([*VARS, "a"])) for _ in range(PREDS[pred])]
        op = "" if existential else draw(st.sampled_from(TEMPORAL))
        body.append(f"{op}{pred}({', '.join(terms)})")
    bound = sorted({t for b in body for t in VARS if f"{t}," in b or f"{t})" in b})
    if bound and draw(st.booleans()):
        pred = draw(st.sampled_from(["p", "s"]))
        body.append(f"not {pred}({draw(st.sampled_from(bound))})")
    head_pred = draw(st.sampled_from(sorted(PREDS)))
    pool = [*bound, "a"] + (EXISTENTIAL if existential else [])
    head = [draw(st.sampled_from(pool)) for _ in range(PREDS[head_pred])]
    if existential and not set(head) & set(EXISTENTIAL):
        head[draw(st.integers(0, len(head) - 1))] = draw(st.sampled_from(EXISTENTIAL))
    return f"{head_pred}({', '.join(head)}) :- {', '.join(body)}."


@st.composite
def programs(draw):
    rules = [draw(rule(existential=True)) for _ in range(draw(st.integers(1, 3)))]
    rules += [draw(rule(existential=False)) for _ in range(draw(st.integers(0, 2)))]
    draw(st.randoms()).shuffle(rules)
    facts = []
    for _ in range(draw(st.integers(1, 8))):
        pred = draw(st.sampled_from(sorted(PREDS)))
        terms = [draw(st.sampled_from(TERMS)) for _ in range(PREDS[pred])]
        lo = draw(st.integers(0, 6))
        hi = lo + draw(st.integers(0, 4))
        facts.append(f"{pred}({','.join(terms)})@[{lo},{hi}].")
    horizon = draw(st.sampled_from([None, (1, 8)]))
    return "\n".join(rules), facts, horizon


@settings(max_examples=examples(200), deadline=None)
@given(programs())
def test_the_columns_chase_as_the_rows(case):
    rules, facts, horizon = case
    program = rules + "\n" + "\n".join(facts)
    outs = outcomes(program, None, horizon, engines=("rows", "columns", "auto-small"))
    agree(f"{program}\nhorizon {horizon}", outs)
    for engine in ("columns", "auto-small"):
        got = outs[engine]
        if isinstance(got, str):
            continue
        if "components" not in got.stats:  # (a model found where it repeats: on rows)
            ran = set(got.stats["executors"].values())
            fell = str(got.stats.get("fallbacks"))
            assert ran == {"columns"} or CONFLATION in fell or "a chase whose nulls nest" in fell, got.stats


@settings(max_examples=examples(100), deadline=None)
@given(programs(), st.randoms())
def test_labels_do_not_depend_on_the_order_facts_come_in(case, rnd):
    rules, facts, horizon = case
    first = outcomes(rules + "\n" + "\n".join(facts), None, horizon, engines=("rows", "columns"))
    rnd.shuffle(facts)
    again = outcomes(rules + "\n" + "\n".join(facts), None, horizon, engines=("rows", "columns"))
    for engine in ("rows", "columns"):
        a, b = first[engine], again[engine]
        assert (a if isinstance(a, str) else a.to_text()) == (b if isinstance(b, str) else b.to_text())


# recursive strata with existential rules: {k} a random bound
SHAPES = {
    "two rules for one head feed a walk": "a(X, Y) :- p(X).\na(X, Y) :- k(X).\np(Z) :- a(X, Y), e(X, Z).",
    "a walk through unknown owners": "o(Y, X) :- p(X).\np(Z) :- o(Y, X), e(X, Z), not s(Z).",
    "a null and a constant": "h(X, V, c) :- p(X), not q(X, X).\nh(X, a, W) :- q(X, Z).\np(Z) :- h(X, V, W), e(X, Z).",
    "a repeated null": "h(X, V, V) :- p(X).\nh(X, X, Z) :- q(X, Z).\np(Z) :- h(X, U, W), e(X, Z), r(Z).",
    "a count beside the chase": "a(X, Y) :- p(X).\np(Z) :- a(X, Y), e(X, Z).\nn(X, C) :- a(X, Y), C = count(Y).",
    "a value made in the frontier": "h(X, V, N) :- p(X), c(X, M), N = M * {k}.\np(Z) :- h(X, V, N), e(X, Z), N < 20.",
}
NODES = ["x1", "x2", "x3", "10", "9", '"y z"']


@st.composite
def walk_facts(draw):
    out = []
    for pred, arity in (("p", 1), ("k", 1), ("q", 2), ("s", 1), ("r", 1), ("e", 2), ("e", 2), ("e", 2)):
        for _ in range(draw(st.integers(0, 3))):
            terms = ",".join(draw(st.sampled_from(NODES)) for _ in range(arity))
            lo = draw(st.integers(0, 5))
            out.append(f"{pred}({terms})@[{lo},{lo + draw(st.integers(0, 4))}].")
    for _ in range(draw(st.integers(0, 4))):  # weights of three kinds (a float beside an equal exact number: rows)
        lo = draw(st.integers(0, 5))
        out.append(f"c({draw(st.sampled_from(NODES))},{draw(st.sampled_from(['1', '2', '2.5', '1/3', '10', '0.5']))})@[{lo},{lo + 2}].")
    return out


@settings(max_examples=examples(150), deadline=None)
@given(st.sampled_from(sorted(SHAPES)), walk_facts(), st.sampled_from([None, (1, 6)]), st.sampled_from(["2", "1.5", "1/2"]))
def test_a_recursive_chase_on_columns_as_the_rows(name, facts, horizon, k):
    program = SHAPES[name].format(k=k) + "\n" + "\n".join(facts)
    outs = outcomes(program, None, horizon, engines=("rows", "columns", "auto-small"))
    agree(f"{program}\nhorizon {horizon}", outs)
    got = outs["columns"]
    assert not isinstance(got, str), got  # (every shape is a program)
    if "components" not in got.stats:
        assert set(got.stats["executors"].values()) == {"columns"} or CONFLATION in str(got.stats.get("fallbacks")), got.stats


def test_nulls_are_numbered_in_the_order_of_the_frontier_terms():
    program = "owner(Y, Z, C) :- c(C).\nc(zeta)@1. c(10)@1. c(alpha)@1. c(9)@[1,2]. c(2.5)@1."
    for engine in ("rows", "columns"):
        m = chronolog.reason(program, engine=engine)
        assert m.to_text().splitlines() == [
            "owner(_:n1,_:n2,2.5)@[1,1]", "owner(_:n3,_:n4,9)@[1,2]", "owner(_:n5,_:n6,10)@[1,1]",
            "owner(_:n7,_:n8,alpha)@[1,1]", "owner(_:n9,_:n10,zeta)@[1,1]"], engine


def test_rules_for_one_head_fire_in_the_programs_order():
    """The first rule's null covers the time both bodies hold; written the
    other way round, the other rule's does."""
    facts = "\nc(a)@[0,4]. d(a)@[2,6]."
    one = "o(C, Y) :- c(C).\no(C, Y) :- d(C)."
    two = "o(C, Y) :- d(C).\no(C, Y) :- c(C)."
    got = {}
    for program in (one, two):
        for engine in ("rows", "columns"):
            m = chronolog.reason(program + facts, engine=engine)
            assert set(m.stats["executors"].values()) == {engine}
            got.setdefault(program, set()).add(m.to_text())
    assert got[one] == {"o(a,_:n1)@[0,4]\no(a,_:n2)@(4,6]"}
    assert got[two] == {"o(a,_:n1)@[2,6]\no(a,_:n2)@[0,2)"}


def test_a_recursive_chase_fires_at_each_fixpoint():
    """A task made urgent gets someone assigned, which makes the next task
    urgent: the chase fires at each fixpoint of the other rules, its labels
    in the order of the frontiers of each firing; a task whose owner is
    known gets no null."""
    program = ("assigned(M, T) :- task(T), urgent(T).\n"
               "done(T) :- assigned(M, T).\n"
               "urgent(T2) :- done(T), next(T, T2).\n"
               "task(t1)@[0,9]. task(t2)@[0,9]. task(t3)@[2,9]. task(t0)@[0,9]. urgent(t1)@[0,9]. urgent(t0)@[0,1].\n"
               "next(t1, t3)@[0,9]. next(t3, t2)@[0,9]. next(t0, t2)@[0,9]. assigned(ann, t3)@[5,6].")
    texts = {}
    for engine in ("rows", "columns"):
        m = chronolog.reason(program, engine=engine)
        texts[engine] = m.to_text()
        assert set(m.stats["executors"].values()) == {engine}
    assert texts["rows"] == texts["columns"]
    assigned = [line for line in texts["rows"].splitlines() if line.startswith("assigned")]
    # firings: t0 and t1 urgent; then t2 (after t0) and t3 (after t1, but where ann has it); then t2
    # again after t3 (from 2 on: its witness made already)
    assert assigned == ["assigned(ann,t3)@[5,6]", "assigned(_:n1,t0)@[0,1]", "assigned(_:n2,t1)@[0,9]",
                        "assigned(_:n3,t2)@[0,1]", "assigned(_:n3,t2)@[2,9]", "assigned(_:n4,t3)@[2,5)",
                        "assigned(_:n4,t3)@(6,9]"]


def test_given_nulls_keep_their_labels_on_columns(tmp_path):
    """Nulls in a fact file read on columns: the chase skips their labels."""
    path = tmp_path / "facts.vada"
    rnd = random.Random(3)
    lines = [f"c(k{i})@[{rnd.randint(0, 5)},{rnd.randint(6, 9)}]." for i in range(60)]
    lines += ["o(_:n1, k0)@[0,3].", "o(_:n2, k1)@[0,9]."]
    path.write_text("\n".join(lines) + "\n")
    texts = {}
    for engine in ("rows", "columns"):
        m = chronolog.reason("o(Y, C) :- c(C).", path, engine=engine)
        assert m.stats["executors"] == {0: engine}
        texts[engine] = m.to_text()
    assert texts["rows"] == texts["columns"]
    made = [line for line in texts["rows"].splitlines() if line.startswith("o(_:n") and ",k0)" not in line and ",k1)" not in line]
    assert not any(line.startswith(("o(_:n1,", "o(_:n2,")) for line in made)


def test_a_large_table_with_an_existential_rule_goes_straight_to_columns():
    """Tables given in memory hold no labelled null in columns (a column of
    term text is read as rows): an existential program reads them so, and
    its chase numbers nulls from n1 as the rows do."""
    import pyarrow as pa

    n = 3000
    table = pa.table({"c": [f"k{i % 1000}" for i in range(n)], "start": [i % 7 for i in range(n)],
                      "end": [i % 7 + 3 for i in range(n)]})
    texts = {}
    for engine in ("rows", "auto"):
        m = chronolog.reason("o(Y, C) :- company(C).", {"company": table}, engine=engine)
        texts[engine] = m.to_text()
        assert set(m.stats["executors"].values()) == {"rows" if engine == "rows" else "columns"}
    assert texts["rows"] == texts["auto"]
    assert texts["rows"].startswith("o(_:n1,k0)@[0,3]\no(_:n1,k0)@[5,9]\no(_:n2,k1)@")  # (k10 after k1: term order)


def test_a_watched_chase_past_what_the_columns_count_goes_on_on_rows():
    """Managers of managers up to rank 3: the nulls nest 3 deep, which the
    rows allow while there are at least 3 facts without nulls in the run
    (counting the x facts, which the columns never read); the columns
    count only the relations they hold, fall back at depth 2, and the rows
    go on to the same model, labels and all; without the x facts both
    stop it with the rows' error."""
    program = ("manager(M, E, L2) :- employee(E, L), L < 3, L2 = L + 1.\nemployee(M, L) :- manager(M, E, L).\n"
               "employee(bob, 0)@[0,5].\n")
    extra = " ".join(f"x({i})@0." for i in range(5))
    rows = chronolog.reason(program + extra, engine="rows")
    cols = chronolog.reason(program + extra, engine="columns")
    assert cols.to_text() == rows.to_text()
    assert "manager(_:n3,_:n2,3)@[0,5]" in rows.to_text().splitlines()
    assert cols.stats["fallbacks"] == ["stratum 0: a chase whose nulls nest 2 deep in their own: the rows count every "
                                       "fact without nulls, to go on or stop it"]
    errors = []
    for engine in ("rows", "columns"):
        with pytest.raises(ProgramError, match="nested 2 deep in its own nulls, deeper than the 1 fact without nulls") as e:
            chronolog.reason(program, engine=engine)
        errors.append(str(e.value))
    assert errors[0] == errors[1]


def test_a_firings_rules_fire_on_the_bindings_found_before_any_fires():
    """Two rules for r, the second reading r: in one firing it fires on the
    bindings found before the first made its null (the rows' waiting rows),
    not on that null, which the plain rule then covers; the columns once
    read the first rule's facts at once, made nulls three deep and fell
    back (a hunt found it)."""
    program = "r(a, X) :- r(X, Y).\nr(W, X) :- q(X, X).\nr(Z, V) :- r(X, Z).\nq(a, a)@[0,0]."
    rows = chronolog.reason(program, engine="rows")
    cols = chronolog.reason(program, engine="columns")
    assert cols.to_text() == rows.to_text() == "r(a,a)@[0,0]\nr(a,_:n1)@[0,0]\nr(_:n1,a)@[0,0]"
    assert set(cols.stats["executors"].values()) == {"columns"} and not cols.stats.get("fallbacks")
