"""Constraints (``⊥ :- ...``) in the relational rounds
(connectors/spark_rounds/constraints.py): checked on the relations in Spark
after the strata, with the embedded engine's error (marked ``spark``)."""

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from budget import examples

import chronolog
from chronolog.engine.arrow import facts_to_arrow, table_to_rows
from chronolog.language.errors import InconsistencyError

from test_spark_rounds import RULES, check, cs, programs

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("rounds")]  # the rounds, not one task (conftest.py)

PROGRAM = """
r(X, Y) :- e(X, Y).
r(X, Z) :- r(X, Y), e(Y, Z).
⊥ :- r(X, X), banned(X).
⊥ :- e(X, Y), W = X + Y, W > 100.
@output("r").
"""


def edges(rows):
    return facts_to_arrow([((a, b), iv) for a, b, iv in rows], ["x", "y"])


def banned(rows):
    return facts_to_arrow([((a,), iv) for a, iv in rows], ["x"])


def test_a_consistent_model_runs_in_rounds(spark):
    e = edges([(1, 2, (0, 5, True, True)), (2, 3, (1, 6, True, True))])
    check(spark, PROGRAM, {"e": e, "banned": banned([(1, (0, 9, True, True))])})


def embedded_error(program, tables):
    with pytest.raises(InconsistencyError) as got:
        chronolog.reason(program, {p: table_to_rows(t, p) for p, t in tables.items()})
    return got.value


def spark_error(spark, program, tables):
    with pytest.raises(InconsistencyError) as got:
        cs().reason(spark, program, inputs=tables, distributed=True, stats=(stats := {}))
    assert "path" not in stats  # (raised before the run reports its path: never on the driver)
    return got.value


def test_a_violated_constraint_is_the_engines_error(spark):
    """The same error: the constraint's text and position, where it holds
    and the facts that make it hold; every violation Spark reports is one
    the engine finds."""
    tables = {
        "e": edges([(1, 2, (0, 5, True, True)), (2, 1, (1, 6, True, True)), (3, 4, (0, 1, True, True))]),
        "banned": banned([(1, (4, 9, True, False)), (3, (0, 9, True, True))]),
    }
    want, got = embedded_error(PROGRAM, tables), spark_error(spark, PROGRAM, tables)
    assert got.render() == want.render()
    assert "⊥ :- r(X, X), banned(X). (<program>:4:1) holds on [4,5] with r(1,1), banned(1)" in got.render()
    assert {(r, tuple(sorted(b.items())), iv) for r, b, iv in got.violations} <= {
        (r, tuple(sorted(b.items())), iv) for r, b, iv in want.violations}


def test_a_constraint_with_arithmetic_and_strings(spark):
    """The second constraint computes ``X + Y`` in Spark and names strings."""
    prog = PROGRAM + '⊥ :- r(X, Y), tag(X, "stop").\n'
    tables = {"e": edges([(1, 2, (0, 5, True, True)), (60, 70, (2, 3, True, True))]),
              "banned": banned([(9, (0, 1, True, True))]),
              "tag": facts_to_arrow([((7, "stop"), (0, 1, True, True))], ["x", "t"])}
    want, got = embedded_error(prog, tables), spark_error(spark, prog, tables)
    assert got.render() == want.render()
    assert "W > 100. (<program>:5:1) holds on [2,3] with e(60,70)" in got.render()
    tables["tag"] = pa.table({"x": [1], "t": ["stop"], "start": [4], "end": [8]})
    want, got = embedded_error(prog, tables), spark_error(spark, prog, tables)
    assert got.render() == want.render()
    assert "r(1,2), tag(1,stop)" in got.render()


def test_plan_names_the_path_for_constraints():
    from chronolog.api import load_program
    from chronolog.connectors.spark_rounds import describe
    from chronolog.planner import plan

    assert describe(plan(load_program(PROGRAM))).startswith("seminaive rounds")
    rooted = PROGRAM + "⊥ :- e(X, Y), round(X / 3, Y) > 5.\n"
    assert describe(plan(load_program(rooted))) == (
        "in ONE Spark task, not distributed (relational rounds cannot run it: round() to digits other than a whole constant within 37 (round((X / 3), Y)) "
        "in the rule ⊥ :- e(X, Y), round(X / 3, Y) > 5. (<program>:7:1))")
    assert describe(plan(load_program(PROGRAM + "⊥ :- e(X, Y), log(X / 3) > 5.\n"))).startswith("seminaive rounds")
    assert describe(plan(load_program(PROGRAM + "⊥ :- e(X, Y), round(X, -1) > 5.\n"))).startswith("seminaive rounds")


@settings(max_examples=examples(3), deadline=None, suppress_health_check=list(HealthCheck))
@given(programs())
def test_random_programs_with_arithmetic_and_a_constraint(spark, case):
    """The random programs of test_spark_rounds with its arithmetic rules
    and its constraint added: the same model, or the same violations."""
    prog, e = case
    extra = RULES[-3:]  # w (a condition), v (an assignment), the constraint
    assert extra[0].startswith("w(") and extra[2].startswith("⊥")
    check(spark, "\n".join([prog, *extra]), {"e": e})


def test_a_relation_only_a_constraint_reads_is_kept_to_the_check(spark):
    """Relations no later stratum reads are released after their last
    reader (rounds.py); one a constraint reads must still hold its rows
    when the constraints are checked after the strata."""
    prog = """
    b(X) :- banned(X).
    r(X, Y) :- e(X, Y).
    r(X, Z) :- r(X, Y), e(Y, Z).
    ⊥ :- r(X, X), b(X).
    @output("r").
    """
    tables = {"e": edges([(1, 2, (0, 5, True, True)), (2, 1, (1, 6, True, True))]),
              "banned": banned([(1, (4, 9, True, False))])}
    want, got = embedded_error(prog, tables), spark_error(spark, prog, tables)
    assert got.render() == want.render()
    assert "holds on [4,5] with r(1,1), b(1)" in got.render()
