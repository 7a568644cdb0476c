"""Both merge strategies compute the same model."""

import random

import pytest

import chronolog
from test_incremental import PROGRAMS, random_facts

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
