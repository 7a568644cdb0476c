"""EXPLAIN ANALYZE's rows and time per operator (engine/operator_figures.py,
printed by ``chronolog plan --analyze`` as ``rows=... time=...``): the rows
are checked against answers worked out apart from the engine (on paper,
or by a nested loop over the facts), on rows and on columns; the times are
each node's own (their sum is within the strata's time); a run without
``analyze`` measures nothing."""

import re
import subprocess
import sys
from itertools import groupby

import pytest
from budget import examples
from hypothesis import example, given, settings
from hypothesis import strategies as st

import chronolog

ENGINES = ["rows", "columns"]
FIGURES = re.compile(r"^(\s*)(?:[│ ]*)(?:[├└]─ )?(.*?)(?:  → .*?)?  rows=([\d,]+) time=([\d.]+)ms")


def figures(text: str) -> dict:
    """Per stratum, per rule (in the plan's order), ``{label: (rows, ms)}``
    of the operators that print figures; ``"stratum"``: the strata's ms."""
    out, cur, rule = {}, None, None
    for line in text.splitlines():
        if m := re.match(r"stratum (\d+) ", line):
            cur = out[int(m[1])] = {"rules": []}
        elif cur is None:
            continue
        elif m := re.match(r"  ran on \w+: (?:\d+ rounds?, )?([\d.]+) ms", line):
            cur["ms"] = float(m[1])
        elif line.startswith("  rule "):
            rule = {}
            cur["rules"].append(rule)
        elif m := FIGURES.match(line):
            label = re.sub(r" \(the merge of its \d+ rules\)$", "", m[2])
            rule[label] = (int(m[3].replace(",", "")), float(m[4]))
    return out


def rows_of(text: str, stratum: int = 0, rule: int = 0) -> dict:
    return {label: rows for label, (rows, _) in figures(text)[stratum]["rules"][rule].items()}


@pytest.mark.parametrize("engine", ENGINES)
def test_join_counted_on_paper(engine):
    # p's Y meets q's Y with overlapping intervals three times:
    # (a,b)@[0,5] with (b,x)@[1,2] and (b,y)@[4,7]; (d,b)@[6,8] with (b,y)@[4,7];
    # (a,c)@[0,5] and (c,z)@[9,10] never meet; p(a,b) is given twice, one maximal interval
    facts = """p(a,b)@[0,3]\np(a,b)@[2,5]\np(a,c)@[0,5]\np(d,b)@[6,8]
q(b,x)@[1,2]\nq(b,y)@[4,7]\nq(c,z)@[9,10]\n"""
    text = chronolog.explain_plan("both(X,Y,Z) :- p(X,Y), q(Y,Z).", facts, analyze=True, engine=engine)
    got = rows_of(text)
    assert got["IntervalJoin on (Y)"] == 3
    assert got["Output both(X,Y,Z)"] == 3
    assert got["Coalesce both"] == 3  # (a,b,x)@[1,2], (a,b,y)@[4,5], (d,b,y)@[6,7]
    # p drives (three atoms each: the first); its scan reads p's three maximal intervals.
    # The rows probe q through an index (no scan of it), the columns read it whole
    assert got["Scan[full] p(X,Y)"] == 3
    assert got.get("Scan[full] q(Y,Z)") == (None if engine == "rows" else 3)


@pytest.mark.parametrize("engine", ENGINES)
def test_filter_and_difference_counted_on_paper(engine):
    program = "late(T) :- arrival(T, D), D > 5, not excused(T)."
    facts = "arrival(t1,3)@[1,2]\narrival(t2,9)@[1,5]\narrival(t3,7)@[0,9]\nexcused(t3)@[2,4]\n"
    got = rows_of(chronolog.explain_plan(program, facts, analyze=True, engine=engine))
    assert got["Scan[full] arrival(T,D)"] == 3
    assert got["Filter D > 5"] == 2  # t2 and t3
    assert got["Difference not excused(T)"] == 3  # t2@[1,5]; t3@[0,2) and (4,9]
    assert got["Output late(T)"] == got["Coalesce late"] == 3


@pytest.mark.parametrize("engine", ENGINES)
def test_recursion_summed_over_rounds(engine):
    # reach's deltas: 3 edges, then a-c and b-d, then a-d (3 + 2 + 1 rows scanned);
    # the joins: a-b/b-c, b-c/c-d in round 2, a-c/c-d in round 3: 3 rows
    program = "reach(X,Y) :- edge(X,Y).\nreach(X,Z) :- reach(X,Y), edge(Y,Z)."
    facts = "edge(a,b)@[0,10]\nedge(b,c)@[2,8]\nedge(c,d)@[5,12]\n"
    text = chronolog.explain_plan(program, facts, analyze=True, engine=engine)
    exit_rule, step = rows_of(text, 0, 0), rows_of(text, 0, 1)
    assert exit_rule["Scan[full] edge(X,Y)"] == 3
    assert step["Scan[full] reach(X,Y)"] == 6
    assert step["IntervalJoin on (Y)"] == step["Output reach(X,Z)"] == 3
    assert exit_rule["Coalesce reach"] == step["Coalesce reach"] == 6  # every new maximal interval once
    if engine == "columns":  # (each of the three rounds with a delta reads edge whole)
        assert step["Scan[full] edge(Y,Z)"] == 9


@pytest.mark.parametrize("engine", ENGINES)
def test_since_and_temporal(engine):
    program = "alarm(X) :- hot(X) <S>[0,3] smoke(X).\nwarm(X) :- <->[1,2] hot(X)."
    facts = "hot(k)@[0,10]\nhot(m)@[20,21]\nsmoke(k)@[2,3]\n"
    text = chronolog.explain_plan(program, facts, analyze=True, engine=engine)
    rules = {label.split()[1]: {k: n for k, (n, _) in r.items()}
             for s in figures(text).values() for r in s["rules"] for label in r if label.startswith("Output")}
    assert rules["warm(X)"]["Scan[full] hot(X)"] == 2
    assert rules["warm(X)"]["Temporal shift[1,2]"] == 2
    since = next(r for r in rules.values() if any(label.startswith("Since") for label in r))
    assert since["Scan[full] smoke(X)"] == 1  # the right operand drives
    assert [n for label, n in since.items() if label.startswith("Since")] == [1]  # k, from 2 until 13


@pytest.mark.parametrize("engine", ENGINES)
def test_times_are_each_nodes_own(engine):
    program = "reach(X,Y) :- edge(X,Y).\nreach(X,Z) :- reach(X,Y), edge(Y,Z).\nn(N) :- reach(a,Y), N = count(Y)."
    facts = "".join(f"edge(v{i},v{i + 1})@[{i},{i + 30}]\n" for i in range(40)) + "edge(a,v0)@[0,5]\n"
    for s in figures(chronolog.explain_plan(program, facts, analyze=True, engine=engine)).values():
        # (a merge's figures print under each rule of its predicate: counted once)
        merges = {label: ms for r in s["rules"] for label, (_, ms) in r.items() if label.startswith("Coalesce")}
        others = [ms for r in s["rules"] for label, (_, ms) in r.items() if not label.startswith("Coalesce")]
        rounding = 0.005 * (len(merges) + len(others) + 1)  # (each figure printed to 0.01 ms)
        assert 0 < sum(merges.values()) + sum(others) <= s["ms"] + rounding


def test_fallback_to_rows_prints_the_rows_figures():
    # time points on no common 64-bit grid: the columns give the stratum to rows.
    # Round 1 derives the 2 edges, round 2 joins them (a-b then b-c: 1 path), round 3 nothing
    program = "reach(X,Y) :- edge(X,Y).\nreach(X,Z) :- reach(X,Y), edge(Y,Z)."
    facts = "edge(a,b)@[0,10]\nedge(b,c)@[1/1000000009,1/1000000007]\n"
    text = chronolog.explain_plan(program, facts, analyze=True, engine="columns")
    assert "fell back from columns to rows" in text
    step = rows_of(text, 0, 1)
    assert step["Scan[full] reach(X,Y)"] == 3 and step["IntervalJoin on (Y)"] == 1
    assert "Scan[full] edge(Y,Z)" not in step  # (the rows probe it inside the join)


def coalesced(intervals) -> list:
    """Closed integer intervals merged where they meet (dense time: [0,2] and [2,4] meet, [0,2] and [3,4] do not)."""
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


FACTS = st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("xyz"), st.integers(0, 9), st.integers(0, 3)), max_size=8)


@settings(max_examples=examples(25), deadline=None)
@given(p=FACTS, q=FACTS, engine=st.sampled_from(ENGINES))
@example(p=[], q=[("a", "x", 0, 0)], engine="columns")  # (p empty: the columns never read q)
def test_random_joins_against_a_nested_loop(p, q, engine):
    """``r(X,Y,Z) :- p(X,Y), q(Z,Y)``: the join's rows are the pairs of
    maximal intervals of p and q with the same Y that meet; each scan that
    prints figures read its predicate's maximal intervals once (or, where
    the join's other side is empty, nothing: the columns skip it)."""
    def maximal(facts):
        key = lambda f: f[:2]  # noqa: E731
        return {k: coalesced((s, s + d) for *_, s, d in g) for k, g in groupby(sorted(facts, key=key), key)}

    mp, mq = maximal(p), maximal(q)
    pairs = sum(1 for (_, y1), ivs1 in mp.items() for (_, y2), ivs2 in mq.items() if y1 == y2
                for s1, e1 in ivs1 for s2, e2 in ivs2 if max(s1, s2) <= min(e1, e2))
    facts = "".join(f"p({x},{y})@[{s},{s + d}]\n" for x, y, s, d in p) + "".join(f"q({x},{y})@[{s},{s + d}]\n" for x, y, s, d in q)
    program = "r(X,Y,Z) :- p(X,Y), q(Z,Y)."
    text = chronolog.explain_plan(program, facts or None, analyze=True, engine=engine)
    got = rows_of(text)
    model = chronolog.reason(program, facts or None, engine=engine)
    if mp and mq:
        assert got["IntervalJoin on (Y)"] == got["Output r(X,Y,Z)"] == pairs
    assert got.get("Coalesce r", 0) == len(model.facts("r"))
    scans = {"Scan[full] p(X,Y)": sum(map(len, mp.values())), "Scan[full] q(Z,Y)": sum(map(len, mq.values()))}
    for label, n in got.items():  # (a join with an empty side may skip the other: its scan read nothing)
        if label.startswith("Scan"):
            assert n == scans[label] or (n == 0 and not (mp and mq)), (label, n, scans)
    assert any(label.startswith("Scan") for label in got) or not (mp or mq)


def test_off_measures_nothing():
    """A plain ``reason`` neither imports the meter nor wraps a node."""
    code = ("import sys, chronolog\n"
            "for engine in ('rows', 'columns'):\n"
            "    r = chronolog.Reasoner('r(X) :- p(X), q(X).', 'p(a)@[0,2]\\nq(a)@[1,3]', engine=engine)\n"
            "    assert r.evaluator.meter is None and r.model.facts('r')\n"
            "    assert not any(type(n).__name__ == 'Measured' for n in r.evaluator._pipeline_cache.values())\n"
            "print('chronolog.engine.operator_figures' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
