"""The company-ownership scenarios (the Temporal Vadalog paper §5.1): generator and programs.

Oracles: the pointwise evaluator (tests/oracle) for every scenario, and
MeTeoR for Diamond and Box (the two it can express), on generated data."""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import pytest

import chronolog
from oracle import evaluate

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "ownership"
sys.path.insert(0, str(ROOT / "bench"))

import ownership_gen  # noqa: E402

RUNNABLE = ["temporal", "negation", "diamond", "box"]


def test_generator_is_deterministic_and_exact():
    a = list(ownership_gen.facts(500, seed=3))
    assert a == list(ownership_gen.facts(500, seed=3))
    assert a != list(ownership_gen.facts(500, seed=4))
    assert len(a) == 500 and len(set(a)) == 500


def test_generated_shares_are_consistent():
    """Per company and time point, the shares add up to at most 100%."""
    m = chronolog.reason("", list(l + "." for l in ownership_gen.facts(2000, seed=1)))
    per_company = defaultdict(list)
    for (x, y, s), iv in m.facts("own"):
        assert 1 <= s <= 100 and x != y
        per_company[y].append((iv, s))
    for y, items in per_company.items():
        points = {iv[0] for iv, _ in items}
        for t in points:
            assert sum(s for iv, s in items if iv[0] <= t < iv[1]) <= 100, y


def test_recursion_stays_inside_groups():
    """Chains of holdings never leave a group of companies: the model grows linearly."""
    lines = [l + "." for l in ownership_gen.facts(3000, seed=2, group=8)]
    m = chronolog.reason((EXAMPLES / "diamond.vada").read_text(), lines)
    for (x, z), _ in m.facts("linked"):
        if x.startswith("c"):
            assert int(x[1:]) // 8 == int(z[1:]) // 8


@pytest.mark.parametrize("name", RUNNABLE)
def test_examples_run_on_the_shipped_data(name):
    m = chronolog.reason(EXAMPLES / f"{name}.vada", EXAMPLES / "own.facts")
    assert m.output_predicates
    assert all(m.facts(p) for p in m.output_predicates), name


@pytest.mark.parametrize("name", RUNNABLE)
def test_scenarios_against_the_pointwise_oracle(name):
    from chronolog.language.vadalog import parse

    facts = "\n".join(l + "." for l in ownership_gen.facts(60, seed=5, group=5, tmax=30))
    text = (EXAMPLES / f"{name}.vada").read_text()
    horizon = (-10, 50)
    oracle = evaluate(parse(text + "\n" + facts), horizon)
    model = chronolog.reason(text + "\n" + facts, horizon=horizon)
    for pred in model.output_predicates:
        assert sorted(model.facts(pred)) == sorted(oracle.facts(pred)), pred
        assert model.facts(pred), pred


@pytest.mark.parametrize("name", ["diamond", "box"])
def test_diamond_and_box_against_meteor(name):
    pytest.importorskip("meteor_reasoner")
    from meteor_oracle import chronolog_model, meteor_model

    facts = list(ownership_gen.facts(400, seed=9))
    program = [l for l in (ROOT / "bench" / "programs" / f"own_{name}.meteor").read_text().splitlines() if l.strip()]
    want = meteor_model(program, facts)
    got = chronolog_model(chronolog.reason((EXAMPLES / f"{name}.vada").read_text(), [l + "." for l in facts]))
    assert got == want


def _control_at(edges, t):
    """Company control at time ``t`` by the textbook fixpoint: X controls Z
    when the shares of Z held by X itself or by companies X controls add up
    to more than 50 (each holder counted once)."""
    own = {}
    for (x, y, s), ivs in edges.items():
        if any((lo < t < hi) or (lo == t and lc) or (hi == t and hc) for lo, hi, lc, hc in ivs):
            own[(x, y)] = max(own.get((x, y), 0), s)
    companies = {c for xy in own for c in xy}
    control = {(c, c) for c in companies}
    changed = True
    while changed:
        changed = False
        for x in companies:
            held = defaultdict(int)
            for (y, z), s in own.items():
                if (x, y) in control:
                    held[z] += s
            for z, total in held.items():
                if total > 50 and (x, z) not in control:
                    control.add((x, z))
                    changed = True
    return control


@pytest.mark.parametrize("seed", [1, 2])
def test_aggregation_scenario_matches_a_pointwise_control_fixpoint(seed):
    facts = list(ownership_gen.facts(300, seed=seed))
    m = chronolog.reason((EXAMPLES / "aggregation.vada").read_text(), [l + "." for l in facts])
    edges = defaultdict(list)
    for terms, iv in chronolog.reason("o(X,Y,S) :- own(X,Y,S).", [l + "." for l in facts]).facts("own"):
        edges[terms].append(iv)
    points = sorted({x for ivs in edges.values() for iv in ivs for x in iv[:2]})
    probes = points + [(a + b) / 2 for a, b in zip(points, points[1:])]
    got = defaultdict(set)
    for terms, iv in m.facts("control"):
        got[terms].add(iv)
    for t in probes:
        want = _control_at(edges, t)
        have = {terms for terms, ivs in got.items() if any(chronolog.api.contains(iv, (t, t, True, True)) for iv in ivs)}
        assert have == want, f"at {t}: missing {sorted(want - have)[:5]}, extra {sorted(have - want)[:5]}"


def test_dated_example_from_csv():
    import datetime as dt

    m = chronolog.reason(EXAMPLES / "dated.vada")
    text = m.to_text()
    assert "control(alpha,gamma)@[2012-01-01,2015-07-01)" in text
    assert "controlYear(beta,gamma)@[2012-01-01,2023-01-01)" in text
    for line in m.lines(["recentlyAcquired"]):
        lo, hi = line.split("@")[1][1:-1].split(",")
        assert dt.date.fromisoformat(hi) - dt.date.fromisoformat(lo) == dt.timedelta(days=90)
