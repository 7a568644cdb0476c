"""tests/folded.py, the Spark tests' folding of cases into one program,
against the embedded engine: a renamed program's model is the original's
under the new names, and each case of a folded program has the model it
has alone (no case reads another's facts)."""

import pytest

import chronolog
from chronolog.engine.arrow import facts_to_arrow, table_to_rows

from folded import fold, predicates, renamed
from test_spark_rounds_aggregate_values import EXPRESSIONS
from test_spark_rounds_former_one_task import FLOAT_SUMS, SINCE_RIGHT, THROUGH_TIME
from test_spark_rounds_functions import CASES, ENGINE_FUNCTIONS, STRINGS

W2 = [((1, "straße"), (0, 4, True, False)), ((2, "ΟΔΟΣ"), (2, 6, True, True))]
W3 = [((1, 3, 7), (0, 4, True, False)), ((2, -6, 4), (2, 6, True, True))]
OWNS = [(("i", "a", -3), (0, 4, True, False)), (("j", "a", 3), (2, 6, True, True)), (("i", "b", 35), (0, 2, True, True))]
PROGRAMS = {  # program, its inputs
    "functions": (STRINGS, {"w": W2}),  # function names beside predicates (strlen, len), string constants
    "exp and e": (ENGINE_FUNCTIONS, {"w": W3}),  # a predicate e beside exp(), r beside round()
    "comment": (EXPRESSIONS, {"owns": OWNS}),  # a % comment naming words
    "since": (SINCE_RIGHT, {"a": [((1,), (0, 9, True, True))], "b": [((1,), (0, 0, True, True))]}),
    "horizon and facts": ("@temporal(0, 12).\n" + THROUGH_TIME + "q(7)@[0, 2].\nr(7)@[1, 9].\n", {}),
    "propositional facts": ('z(X) :- w(X, A), q(X).\nq(1)@[1, 3].\nflag@[0, 2].\n@output("z").\n', {"w": W2}),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_renamed_program_has_the_same_model_under_the_new_names(name):
    program, inputs = PROGRAMS[name]
    before = chronolog.reason(program, inputs)
    after = chronolog.reason(renamed(program, "_case7", extra=inputs), {p + "_case7": f for p, f in inputs.items()})
    assert any(before.facts(p) for p in predicates(program) - set(inputs))  # (real answers to compare)
    for p in predicates(program):
        assert after.facts(p + "_case7") == before.facts(p), p


def test_a_name_it_cannot_tell_is_a_predicate_is_refused_not_missed():
    """A propositional atom in a rule (``p :- q.``) reads like a constant
    without its parentheses: the renaming is refused, not left half done."""
    with pytest.raises(AssertionError, match="p :- q"):
        renamed('p :- q.\nq@[1, 3].\n@output("p").\n', "_case1")


def test_each_folded_case_has_its_own_model():
    """Three cases of one program on different facts, folded: each case's
    outputs are the ones it has alone."""
    rows = [[((1, "abc"), (0, 4, True, False)), ((2, s), (2, 6, True, True))] for s in ("ﬁx", "ΟΔΟΣ", "ab")]
    cases = [(CASES, {"w": facts_to_arrow(r, ["k", "s"])}, ["up", "same"]) for r in rows]
    folded = fold(cases)
    assert sorted(folded.tables) == ["w_case0", "w_case1", "w_case2"]
    model = chronolog.reason(folded.program, {p: table_to_rows(t, p) for p, t in folded.tables.items()})
    got = folded.split({p: model.facts(p) for p in folded.outputs})
    for r, answers in zip(rows, got):
        alone = chronolog.reason(CASES, {"w": r})
        assert answers == {p: alone.facts(p) for p in ("up", "same")}
    assert got[0] != got[1]  # (the cases differ: a case reading another's facts would show)
