"""Both merge strategies compute the same model."""

import random

import pytest

import chronolog
from test_incremental import PROGRAMS, random_facts
from budget import examples

RECURSIVE_THROUGH_TIME = """
p(X) :- <->[1,2] p(X).
q(X) :- p(X), [-][0,1] p(X).
"""


@pytest.mark.parametrize("program", PROGRAMS)
@pytest.mark.parametrize("seed", range(6))
def test_streaming_equals_blocking(program, seed):
    facts = random_facts(random.Random(seed), 20)
    a = chronolog.reason(program, facts, strategy="blocking")
    b = chronolog.reason(program, facts, strategy="streaming")
    assert a.to_text() == b.to_text()


def test_strategies_agree_under_a_horizon():
    facts = ["p(a)@[0,0.5]", "p(b)@(3,4)"]
    a = chronolog.reason(RECURSIVE_THROUGH_TIME, facts, horizon=(0, 20), strategy="blocking")
    b = chronolog.reason(RECURSIVE_THROUGH_TIME, facts, horizon=(0, 20), strategy="streaming")
    assert a.to_text() == b.to_text()
    half = chronolog.api.parse_number("0.5")
    # [0,0.5] shifts to [1,2.5], leaving the gap (0.5,1); (3,4) shifts to (4,6),
    # leaving the point 4 out
    assert a.facts("p") == [
        (("a",), (0, half, True, True)),
        (("a",), (1, 20, True, True)),
        (("b",), (3, 4, False, False)),
        (("b",), (4, 20, False, True)),
    ]


def test_unknown_strategy():
    with pytest.raises(chronolog.ProgramError):
        chronolog.reason("q(X) :- p(X).", strategy="eager")


PLACEMENTS = ("always", "earliest", "minimal")


def _pieces(rng, n):
    """Facts cut into adjacent and overlapping pieces, as loaded data often is."""
    out = []
    for line in random_facts(rng, n):
        pred, _, iv = line.partition("@")
        out.append(line)
        if rng.random() < 0.5:
            out.append(f"{pred}@[{rng.randint(0, 5)},{rng.randint(6, 9)})")
    return out


@pytest.mark.parametrize("program", PROGRAMS)
@pytest.mark.parametrize("seed", range(4))
def test_every_placement_and_strategy_gives_the_same_model(program, seed):
    facts = _pieces(random.Random(seed), 20)
    m0 = chronolog.reason(program, facts)
    everything = sorted(m0.predicates())
    want = m0.to_text(everything)
    for placement in PLACEMENTS:
        for strategy in ("blocking", "streaming"):
            m = chronolog.reason(program, facts, placement=placement, strategy=strategy)
            assert m.to_text(everything) == want, (placement, strategy)
            assert len(m) == len(m0)


def test_placements_agree_with_the_oracle_on_random_programs():
    from hypothesis import HealthCheck, given, settings

    from strategies import ALL_OPS, cases
    from test_property_engine import check

    @settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(cases(ops=ALL_OPS, nest=2, negation=True, head_boxes=True, comparisons=True))
    def run(case):
        check(case, placement="minimal", strategy="streaming")
        check(case, placement="earliest")

    run()


@pytest.mark.parametrize("engine", ["rows", "columns"])
@pytest.mark.parametrize("placement", PLACEMENTS)
def test_an_interval_term_reads_the_maximal_interval_under_every_placement(placement, engine):
    """``v(K)@[S, E]`` binds the ends of v's maximal interval: under
    ``earliest`` and ``minimal`` the rows read the given pieces as they
    came (v only read this way was not coalesced at load), and [0,0] gave
    a second start (q(a)@[-1,1] instead of q(a)@[-1,0]); found by a random
    search against placement="always"."""
    program = "q(K)@[S, F] :- v(K)@[S, E], F = S + 1.\nr(K, E) :- v(K)@[S, E]."
    m = chronolog.reason(program, "v(a)@(-1,0)\nv(a)@[-1,-1]\nv(a)@[0,0]", placement=placement, engine=engine)
    assert m.to_text() == "q(a)@[-1,0]\nr(a,0)@[-1,0]"


def test_config_annotation_selects_and_arguments_override():
    prog = '@config("placement", "minimal").\n@config("merge", "streaming").\nq(X) :- <->[0,1] p(X).\np(a)@[0,1). p(a)@[1,2].'
    r = chronolog.Reasoner(prog)
    assert (r.placement, r.strategy) == ("minimal", "streaming")
    assert r.model.to_text(["p", "q"]).splitlines() == ["p(a)@[0,2]", "q(a)@[0,3]"]
    r = chronolog.Reasoner(prog, placement="always", strategy="blocking")
    assert (r.placement, r.strategy) == ("always", "blocking")


def test_coalesce_hint_merges_a_given_predicate_at_load():
    """Seed 003 §3.3's planner hint "after the input, to eliminate
    duplicates": under minimal placement p is only joined, so its pieces stay
    raw unless the program asks to coalesce it; the model is the same."""
    prog = "q(X) :- p(X), r(X).\n" + "".join(f"p(a)@[{i},{i + 2}]. " for i in range(20)) + "r(a)@[0,30]."
    plain = chronolog.Reasoner(prog, placement="minimal")
    hinted = chronolog.Reasoner('@config("coalesce", "p").\n' + prog, placement="minimal")
    assert hinted.model.to_text(["q"]) == plain.model.to_text(["q"]) == "q(a)@[0,21]"
    assert plain.model.stats["derivations"] > hinted.model.stats["derivations"] == 1
    with pytest.raises(chronolog.ProgramError) as e:
        chronolog.reason('q(X) :- p(X).\n@config("coalesce", "pp").')
    assert e.value.pos.line == 2 and "'pp'" in str(e.value)


def test_bad_config_is_a_positioned_error():
    with pytest.raises(chronolog.ProgramError) as e:
        chronolog.reason('q(X) :- p(X).\n@config("placement", "sometimes").')
    assert e.value.pos.line == 2 and '"minimal"' in str(e.value)
    with pytest.raises(chronolog.ProgramError) as e:
        chronolog.reason('@config("merging", "blocking").\nq(X) :- p(X).')
    assert "unknown @config key" in str(e.value) and '"placement"' in e.value.hint
    with pytest.raises(chronolog.ProgramError):
        chronolog.reason("q(X) :- p(X).", placement="never")


def test_incremental_add_after_minimal_placement():
    r = chronolog.Reasoner("q(X) :- <->[0,1] p(X).", ["p(a)@[0,1)", "p(a)@[1,2]"], placement="minimal")
    r.add("p(a)@(2,3]")
    assert r.model.to_text(["p", "q"]).splitlines() == ["p(a)@[0,3]", "q(a)@[0,4]"]
