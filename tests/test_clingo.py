"""Datalog without time against clingo: random stratified programs
(recursion, negation, comparisons, arithmetic and aggregates over the
levels below) on facts that all hold at one time point give exactly the
atoms of clingo's one stable model, on both executors."""

from __future__ import annotations

import random

import pytest

import chronolog
from budget import examples

clingo = pytest.importorskip("clingo")

# each level's rules read the levels below, and their own positively (so
# every program drawn is stratified); each rule with its clingo spelling
# where the two differ (an aggregate ranges over the distinct bindings of
# its body, as clingo's #count{Y: ...} over the distinct tuples)
LEVELS = [
    [
        ("r(X,Y) :- e(X,Y).", None),
        ("r(X,Z) :- r(X,Y), e(Y,Z).", None),
        ("r(X,Z) :- r(X,Y), r(Y,Z).", None),
        ("s(X) :- n(X), e(X,Y), Y > X.", None),
        ("s(X) :- e(X,X).", None),
        ("s(Y) :- s(X), e(X,Y).", None),
        ("t(X,Y) :- e(X,Y), e(Y,X), X != Y.", None),
        ("w(X,S) :- n(X), S = X * 2 + 1.", None),
    ],
    [
        ("a(X) :- n(X), not r(X,X).", None),
        ("b(X,Y) :- r(X,Y), not e(X,Y).", None),
        ("c(X) :- n(X), not s(X), not t(X,X).", None),
        ("d(X) :- r(X,Y), not s(Y).", None),
        ("h(Y) :- e(X,Y), not r(Y,X).", None),
        ("k(X,N) :- r(X,Y), N = count().", "k(X,N) :- r(X,_), N = #count{Y: r(X,Y)}."),
        ("m(X,M) :- r(X,Y), M = max(Y).", "m(X,M) :- r(X,_), M = #max{Y: r(X,Y)}."),
        ("mn(X,M) :- r(X,Y), M = min(Y).", "mn(X,M) :- r(X,_), M = #min{Y: r(X,Y)}."),
        ("g(X,S) :- e(X,Y), S = sum(Y).", "g(X,S) :- e(X,_), S = #sum{Y: e(X,Y)}."),
    ],
    [
        ("z(X) :- n(X), not a(X).", None),
        ("y(X) :- k(X,N), N > 2.", None),
        ("x(X,Y) :- b(X,Y), not d(Y).", None),
        ("v(X) :- a(X), a(Y), X < Y.", None),
        ("q(X) :- n(X), not k(X,1).", None),
        ("zz(X) :- m(X,M), not a(M).", None),
        ("cc(N) :- a(X), N = count().", "cc(N) :- a(_), N = #count{X: a(X)}."),
    ],
]


def _draw(rng):
    rules = [r for level in LEVELS for r in rng.sample(level, rng.randint(1, 4))]
    n = rng.randint(2, 6)
    facts = [f"n({i})" for i in range(n)]
    facts += sorted({f"e({rng.randrange(n)},{rng.randrange(n)})" for _ in range(rng.randint(0, 2 * n))})
    return rules, facts


def _head(rule: str) -> str:
    return rule.split("(", 1)[0]


def _clingo_atoms(rules, facts) -> set:
    ctl = clingo.Control(["--warn=none"])
    shows = {(_head(text), text.split(":-")[0].count(",") + 1) for text, _ in rules}
    program = [asp or text for text, asp in rules] + [f + "." for f in facts]
    program += ["#show."] + [f"#show {p}/{arity}." for p, arity in shows]
    ctl.add("base", [], "\n".join(program))
    ctl.ground([("base", [])])
    models = []
    ctl.solve(on_model=lambda m: models.append({str(s) for s in m.symbols(shown=True)}))
    assert len(models) == 1  # a stratified program has one stable model
    return models[0]


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_stratified_datalog_matches_clingo(engine):
    for seed in range(examples(300)):
        rng = random.Random(seed)
        rules, facts = _draw(rng)
        want = _clingo_atoms(rules, facts)
        program = "\n".join(text for text, _ in rules) + "\n" + "\n".join(f + "@0." for f in facts)
        model = chronolog.reason(program, engine=engine)
        got = set()
        for p in {_head(text) for text, _ in rules}:
            for terms, iv in model.facts(p):
                assert iv == (0, 0, True, True), (seed, p, terms, iv)
                got.add(f"{p}({','.join(map(str, terms))})")
        assert got == want, (seed, program)
