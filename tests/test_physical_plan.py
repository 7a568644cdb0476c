"""The physical plan (planner/physical.py): each rule kind lowers to its
operator, with schemas and seminaive delta variants; backend choice and the
printed plan (planner/backend_choice.py, chronolog/plan_text.py)."""

from __future__ import annotations

import warnings
from fractions import Fraction

import pytest

from chronolog.language.builtins import AGGREGATES
from chronolog.api import load_program
from chronolog.planner import physical as ph
from chronolog.planner import plan


def physical(src: str):
    return plan(load_program(src)).physical


def rule_ops(src: str) -> dict:
    """head predicate -> the rule operators under its outputs."""
    out: dict = {}
    for st in physical(src).strata:
        for rp in st.rules:
            out.setdefault(rp.rule.head_pred, []).append(rp.operator)
    return out


def test_each_rule_kind_lowers_to_its_operator():
    ops = rule_ops(
        "j(X) :- p(X), q(X).\n"
        "s(X) :- a(X) <S>[1,2] b(X).\n"
        "m(X, A) :- r(X, Y), A = avg(Y).\n"
        "len(L) :- on(X)@[S, E], L = E - S.\n"
        "cap(X, T) :- on(X)@T.\n"
        "h(X)@[S,E] :- w(X, S, E).\n"
    )
    assert isinstance(ops["j"][0], ph.Body)
    assert isinstance(ops["m"][0], ph.Aggregate)
    assert any(isinstance(op, ph.SinceUntil) for ops_ in ops.values() for op in ops_)
    assert any(isinstance(op, ph.WrapInterval) for ops_ in ops.values() for op in ops_)
    assert any(isinstance(op, ph.CaptureTime) for ops_ in ops.values() for op in ops_)
    assert isinstance(ops["h"][0], ph.PlaceInterval)


def test_the_chase_step_and_its_new_column():
    (op,) = rule_ops("o(Y, C) :- c(C).")["o"]
    assert isinstance(op, ph.ChaseStep) and op.existentials == ("Y",)
    assert [c.name for c in op.schema] == ["C", "Y"]


def test_a_body_keeps_the_ir_positions_and_prints_bound_first():
    (body,) = rule_ops("r(X, Z) :- X != Z, e(X, Y), not b(Y), <->[0,1] e(Y, Z).")["r"]
    kinds = [type(s).__name__ for s in body.steps]
    assert kinds == ["Filter", "IntervalJoin", "Difference", "IntervalJoin"]
    # the filter needs X and Z: after the second atom; the difference after the first
    assert body.order == (1, 2, 3, 0)
    assert body.steps[3].on == ("Y",) and isinstance(body.steps[3].atom, ph.TemporalShift)
    assert [c.name for c in body.schema] == ["X", "Y", "Z"]


def test_schemas_carry_the_types_the_program_gives():
    (agg,) = rule_ops("m(X, N, A, U) :- r(X, Y), N = count(), A = avg(Y), U = munion(Y).")["m"]
    assert {c.name: c.type for c in agg.schema} == {"X": "term", "N": "integer", "A": "number", "U": "set"}
    (wrap,) = [op for ops in rule_ops("len(L) :- on(X)@[S, E], L = E - S.").values() for op in ops if isinstance(op, ph.WrapInterval)]
    assert [c.type for c in wrap.schema] == ["term", "time", "time"]
    st = physical("c(X, 1) :- p(X).\nc(X, 2) :- q(X).").strata[0]
    assert [str(c) for c in st.coalesce[0].schema] == ["c0", "c1:number"]


def test_recursive_strata_list_their_delta_variants():
    p = physical("t(X, Y) :- e(X, Y).\nt(X, Z) :- t(X, Y), t(Y, Z).\n")
    (st,) = [s for s in p.strata if s.recursive]
    base, step = st.rules
    assert base.variants == ()
    assert [(v.position, v.pred, v.old) for v in step.variants] == [(0, "t", ()), (1, "t", (0,))]
    assert all(not s.rules[0].variants for s in p.strata if not s.recursive)


def test_constraints_lower_to_outputs_without_a_predicate():
    p = physical("⊥ :- a(X), b(X).")
    (c,) = p.constraints
    assert c.root.pred is None and isinstance(c.operator, ph.Body)


# ---------------------------------------------------------------- backend choice
import chronolog  # noqa: E402
from chronolog.planner import backend_choice as bc  # noqa: E402


def placement(src: str, engine: str = "auto"):
    return bc.choose(plan(load_program(src)), engine)


def test_what_may_send_a_stratum_back_to_rows_is_decided_at_plan_time():
    p = placement("n(Y) :- n(X), Y = X + 1, X < 10.\nn(0)@0.\n", engine="columns")
    assert p.strata[-1].backend == bc.COLUMNS and "leaves 64 bits, or it reaches the round limit" in p.strata[-1].fallbacks[-1]
    p = placement("o(Y, C) :- o(C, Z).", engine="columns")  # (a chase whose nulls flow back: watched)
    assert p.strata[0].backend == bc.COLUMNS and "a chase's nulls nest in their own deeper" in p.strata[0].fallbacks[-1]
    p = placement("o(X, Y) :- p(X).", engine="columns")
    assert p.strata[0].backend == bc.COLUMNS and not p.strata[0].fallbacks
    p = placement("j(X) :- p(X), q(X), Y = X * 2.", engine="columns")
    assert p.strata[0].backend == bc.COLUMNS and "an expression fails on a value" in p.strata[0].fallbacks[0]
    p = placement("m(K, S) :- p(K, V), S = sum(strlen(K)).", engine="columns")
    assert any("an aggregate's expression fails on a value" in f for f in p.strata[0].fallbacks)
    p = placement("m(K, S) :- p(K, V), S = sum(V).", engine="columns")
    assert not any("expression fails" in f for f in p.strata[0].fallbacks)


def test_aggregates_the_columns_once_lacked_run_on_columns():
    """A constant contributor (one contributor for every binding: the
    greatest value counts), prod and aggregates of other contributors in
    one rule, once placed on rows by the plan, run on columns."""
    src = "m(K, A) :- v(K, X), A = msum(X, <1>)."
    assert placement(src, engine="columns").strata[0].backend == bc.COLUMNS
    cols = chronolog.reason(src + "\nv(a, 2)@[0,2]. v(a, 3)@[1,3].", engine="columns")
    assert sorted(cols.to_text().splitlines()) == ["m(a,2)@[0,1)", "m(a,3)@[1,3]"]
    assert set(cols.stats["executors"].values()) == {"columns"} and not cols.stats.get("fallbacks")
    src = "m(K, A, B) :- v(K, X), A = mcount(<X>), B = mcount(<K>)."
    assert placement(src, engine="columns").strata[0].backend == bc.COLUMNS
    cols = chronolog.reason(src + "\nv(a, 2)@[0,2]. v(a, 3)@[1,3].", engine="columns")
    assert sorted(cols.to_text().splitlines()) == ["m(a,1,1)@(2,3]", "m(a,1,1)@[0,1)", "m(a,2,1)@[1,2]"]
    assert set(cols.stats["executors"].values()) == {"columns"}
    p = placement("m(K, P) :- v(K, X), P = prod(X).", engine="columns")
    assert p.strata[0].backend == bc.COLUMNS
    cols = chronolog.reason("m(K, P) :- v(K, X), P = prod(X).\nv(a, 2)@[0,2]. v(a, 3)@[1,3].", engine="columns")
    # by hand: 2 on [0,1), 2*3 on [1,2], 3 on (2,3]
    assert sorted(cols.to_text().splitlines()) == ["m(a,2)@[0,1)", "m(a,3)@(2,3]", "m(a,6)@[1,2]"]
    assert set(cols.stats["executors"].values()) == {"columns"}


def test_spark_paths_are_chosen_at_plan_time():
    keyed = placement("q(X) :- <->[0,1] p(X).")
    assert keyed.spark.path == "per-key tasks"
    avg = placement("a(A) :- v(K, X), A = avg(X).")
    assert avg.spark.path == "rounds"
    assert "an avg written as term text (its exact value: 1/3, 1.5) needs more than 32 digits before the point or 31 decimals, or has 16+ significant digits over a power of two (perhaps a float's value)" in avg.strata[0].spark_fallbacks
    read = placement("a(A) :- v(K, X), A = avg(X), A > 1.")
    assert read.spark.path == "rounds"
    assert not any("calendar" in f for f in read.strata[0].spark_fallbacks)  # (a mean read after: term text there too)
    chase = placement("o(Y, C) :- c(C, D), d(D).")
    assert chase.spark.path == "rounds"
    twice = placement("o(Y, C) :- c(C, D), d(D).\no(Y, C) :- d(C).")
    assert twice.spark.path == "rounds"  # (two existential rules of one head: fired in the engine's order, chase.py)
    through = placement("r(X) :- s(X).\nr(Y) :- <->[1,1] r(X), e(X, Y).\n")  # (e confines it: the rounds read its facts)
    assert through.spark.path == "rounds"
    assert any("the facts of e, which confine the recursion through time" in f for f in through.strata[-1].spark_fallbacks)
    unconfined = placement("r(X) :- s(X).\nr(Y) :- <->[1,1] r(X), s(Y).\nr(X) :- <->[1,1] r(X).\n")
    assert unconfined.spark.path == "one task" and "recursion through time" in unconfined.spark.why


def test_spark_refusals_name_the_rule():
    p = plan(load_program("w(X, R) :- v(X, Y), R = round(Y, 40)."))
    refused = bc.spark_rounds_refusal(p)
    assert refused.why == "round() to digits other than a whole constant within 37 (round(Y, 40))"
    assert refused.render().endswith("in the rule w(X, R) :- v(X, Y), R = round(Y, 40). (<program>:1:1)")
    with pytest.raises(chronolog.ProgramError, match="the window 0.0001 milliseconds is not a whole number of microseconds"):
        load_program('@timeGranularity("milliseconds").\nq(X) :- <->[0, 0.0001] p(X).')  # (no plan: refused at load)


# ---------------------------------------------------------------- the printed plan
from chronolog.plan_text import describe_plan  # noqa: E402


def printed(src: str, engine: str = "auto") -> list:
    return describe_plan(plan(load_program(src)), engine).splitlines()


def test_the_plan_of_an_avg_says_rounds_and_when_one_task_takes_over():
    lines = printed("mean(A) :- reading(S, V), A = avg(V).")
    assert lines[2].startswith("spark --distributed: seminaive rounds of DataFrame joins per stratum")
    assert "  on spark rounds, may fall back to one Spark task if an avg written as term text (its exact value: 1/3, 1.5) needs more than 32 digits before the point or 31 decimals, or has 16+ significant digits over a power of two (perhaps a float's value)" in lines
    assert "       └─ Aggregate A = avg(V) (no group) per time segment  → A:number" in lines


@pytest.mark.parametrize("src", ["p(a)@1.\n", "% only a comment\n"])
def test_the_plan_of_a_program_without_rules_says_so(src):
    """A program of facts said "no predicate has arguments" although p(a) has one."""
    assert printed(src)[1] == "partitioning: none needed (no rules: the model is the given facts)"


def test_the_plan_of_a_watched_chase_says_when_the_rows_take_it():
    src = "w(X, Y) :- v(X, Y).\ns(Y) :- v(X, Y).\nw(Y, X) :- w(X, Z), s(Z).\nd(K) :- w(K, A), s(K).\n"
    lines = printed(src, engine="columns")
    i = lines.index("stratum 1 (recursive): w")
    assert lines[i + 1:i + 3] == ["  runs on columns (forced)",
                                  "  may fall back to rows if a chase's nulls nest in their own deeper than the facts without "
                                  "nulls the columns count: the rows count them all, to go on or stop it"]
    facts = "v(a, b)@[0,2]. v(b, c)@[1,3]. v(c, c)@[3,4]."
    m = chronolog.reason(src + facts, engine="columns")
    assert m.to_text() == chronolog.reason(src + facts, engine="rows").to_text()
    # a's owner unknown where w(a, b) and s(b) hold; b's where nothing owns b (w(a, b) does on [0,2]);
    # c's owned all along (w(b, c), w(c, c)); no s(a), no s(b) after 2: the chase stops
    assert [line for line in m.to_text().splitlines() if line.startswith("w(_")] == ["w(_:n1,a)@[0,2]", "w(_:n2,b)@(2,3]"]
    assert "d(b)@[1,2]" in m.to_text().splitlines()
    assert m.stats["executors"] == {0: "columns", 1: "columns", 2: "columns"}
    # past the facts without nulls the columns counted: the rows count them all and stop it, with their error
    runaway = "manager(M, E) :- employee(E), E != top.\nemployee(M) :- manager(M, E).\nemployee(bob)@[0,5]. manager(top, bob)@[0,2]."
    errors = []
    for engine in ("rows", "columns"):
        with pytest.raises(chronolog.ChronologError, match="the chase may not terminate") as e:
            chronolog.reason(runaway, engine=engine)
        errors.append(str(e.value))
    assert errors[0] == errors[1]


def test_a_time_capture_runs_on_columns():
    src = "c(X, T) :- on(X)@T.\nd(X) :- c(X, T), T > 2.\n"
    lines = printed(src, engine="columns")
    i = lines.index("stratum 0 (non-recursive): $i1")
    assert lines[i + 1] == "  runs on columns (forced)"
    assert "       └─ CaptureTime: each integer time point as $time  → X, $time:time" in lines
    m = chronolog.reason(src + "on(a)@[1,4).", engine="columns")
    assert m.to_text() == chronolog.reason(src + "on(a)@[1,4).", engine="rows").to_text()
    assert "d(a)@[3,4)" in m.to_text().splitlines()
    assert m.stats["executors"] == {0: "columns", 1: "columns", 2: "columns"}


def test_the_plan_of_a_program_the_rounds_cannot_run_says_one_task_and_why():
    lines = printed("r(X, Y) :- e(X, Y).\nr(X, Z) :- r(X, Y), e(Y, Z).\nlater(N) :- <->[1,1] later(N), not sink(N).\nlater(N) :- sink(N).\n")
    assert ("spark --distributed: in ONE Spark task, not distributed (relational rounds cannot run it: "
            f"{bc.THROUGH_TIME} in the rule later(N) :- <->[1,1] later(N), not sink(N). (<program>:3:1))") in lines
    assert "  spark rounds cannot run it: " + bc.THROUGH_TIME in lines
    assert "    seminaive deltas: Δr at 0" in lines


def test_the_plan_of_an_existential_rule_says_rounds():
    """One existential rule per head predicate: the rounds' chase
    (connectors/spark_rounds/chase.py), not one task."""
    lines = printed("r(X, Y) :- e(X, Y).\nr(X, Z) :- r(X, Y), e(Y, Z).\nnode(N, Y) :- r(X, Z), sink(N).\n")
    assert lines[2].startswith("spark --distributed: seminaive rounds of DataFrame joins per stratum"), lines[2]


@pytest.mark.parametrize("func", sorted(AGGREGATES))
def test_the_plan_gives_every_aggregate_to_spark_rounds(func):
    """The rounds fold every aggregate (connectors/spark_rounds/aggregate.py):
    no stratum of one is refused them."""
    lines = printed(f"t(N) :- p(X, V), N = {func}(V).")
    assert lines[2].startswith("spark --distributed: seminaive rounds of DataFrame joins per stratum"), lines[2]
    assert not any("spark rounds cannot run it" in line for line in lines), lines


@pytest.mark.parametrize("func", ["prod", "mprod", "munion", "sum", "avg", "mmin"])
def test_the_columns_fold_every_aggregate(func):
    """Every fold runs on columns (prod and munion by the rows' own folds,
    once per segment), with the rows' model."""
    import chronolog

    src = (f"g(X, A) :- r(X, V), A = {func}(V).\n"
           "r(a, 2)@[0,4].\nr(a, 3)@[2,6].\nr(b, 5)@[1,3].\nr(b, 7)@[1,2].\n")
    model = chronolog.reason(src, engine="columns")
    assert model.stats["executors"] == {0: "columns"} and not model.stats.get("fallbacks")
    assert model.lines() == chronolog.reason(src, engine="rows").lines()


@pytest.mark.spark
@pytest.mark.usefixtures("rounds")  # the rounds, not one task by size (conftest.py)
def test_an_avg_read_after_its_aggregate_runs_in_the_rounds_exactly(spark):
    """The plan says rounds, and that only a mean whose exact value's text
    is too long for SQL may send them to one task; on Spark the avg of 1 and 2 in an integer run (3/2), compared after its
    aggregate, runs in the rounds as term text and gets the engine's exact
    answer."""
    from chronolog import spark as cs
    from chronolog.engine.arrow import facts_to_arrow

    prog = 'far(X, Z) :- owns(X, Y, P), owns(Y, Z, Q).\nmean(C, A) :- owns(I, C, P), A = avg(P), A != 0.\n@output("mean").'
    lines = printed(prog)
    assert lines[1] == "outputs: mean" and lines[3].startswith("spark --distributed: seminaive rounds")
    assert "  on spark rounds, may fall back to one Spark task if an avg written as term text (its exact value: 1/3, 1.5) needs more than 32 digits before the point or 31 decimals, or has 16+ significant digits over a power of two (perhaps a float's value)" in lines
    assert not any("calendar" in line for line in lines if "avg" in line)
    owns = facts_to_arrow([(("i", "a", 1), (0, 4, True, True)), (("j", "a", 2), (2, 6, True, True))], ["i", "c", "p"])
    stats: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", cs.DriverFallback)
        out = cs.reason(spark, prog, inputs={"owns": owns}, distributed=True, stats=stats)
    assert stats["path"] == "relational"
    from chronolog.engine.arrow import table_to_rows

    got = sorted(table_to_rows(out["mean"].toArrow(), "mean"))
    # by hand: 1 on [0,2), (1+2)/2 on [2,4], 2 on (4,6]
    assert got == [(("a", 1), (0, 2, True, False)), (("a", Fraction(3, 2)), (2, 4, True, True)), (("a", 2), (4, 6, False, True))]


# ---------------------------------------------------------------- the plan says where a stratum runs
from hypothesis import HealthCheck, given, settings  # noqa: E402

from budget import examples  # noqa: E402
from strategies import ALL_OPS, cases  # noqa: E402


@settings(max_examples=examples(60), deadline=None, suppress_health_check=list(HealthCheck))
@given(cases(ops=ALL_OPS, nest=2, negation=True, recursion=True, comparisons=True, head_boxes=True, horizon=(0, 12)))
def test_the_printed_plan_is_where_each_stratum_ran(case):
    """Random programs: every rule's tree is printed, and with --engine
    columns a stratum the plan puts on rows runs on rows, one it puts on
    columns runs there or its fallback is recorded (what only the data can tell)."""
    p = plan(case.parsed)
    text = describe_plan(p, "columns")
    assert text.count("  rule ") == sum(len(st.rules) for st in p.physical.strata) + len(p.physical.constraints)
    placed = {s.index: s.backend for s in bc.choose(p, "columns", case.horizon).strata}  # (the run's horizon)
    try:
        m = chronolog.reason(case.program, case.facts, horizon=case.horizon, engine="columns")
    except chronolog.ChronologError:
        return  # (an inconsistency or a refused program: nothing ran to compare)
    fallbacks = " ".join(m.stats.get("fallbacks", []))
    for index, ran in m.stats["executors"].items():
        if placed[index] == bc.ROWS:
            assert ran == "rows", (index, text)
        else:
            assert ran == "columns" or f"stratum {index}:" in fallbacks, (index, text)


def test_the_plan_of_a_lars_tuple_window_says_spark_refuses_it():
    # Spark refuses the program when it runs (connectors/spark.py: no Spark
    # path filters the input through [#n]); the plan said per-key tasks
    src = 'q(X,Y,Z) :- [3] <> a(X,Y), [#1] <> b(Y,Z).\n@output("q").'
    lines = describe_plan(plan(load_program(src, dialect="lars"))).splitlines()
    spark = [line for line in lines if line.startswith("spark --distributed:")]
    assert spark == ["spark --distributed: refused: the LARS tuple window [#1] over b does not run on Spark "
                     "(run the program without Spark, or as a stream)"]
    assert not any("spark rounds" in line for line in lines)


_EMA = ("ema(X, V) :- price(X, V), not <->(0,inf) price(X, _).\n"
        "ema(X, E) :- price(X, V), <->[1,1] ema(X, P), E = 0.5 * V + 0.5 * P.\n"
        "price(a, 10)@0.\nprice(a, 12)@1.\nprice(a, 14)@2.\n")


@pytest.mark.parametrize("src", [
    _EMA,  # a recurrence without a horizon: the model is found where it repeats, on rows
    _EMA + "@temporal(0, 10).\n",
    _EMA + "@temporal(0, inf).\n",  # open where the recursion moves time
    "p(X) :- shift(X).\nq(X) :- <->[0,1] p(X).\nshift(a)@[0,2) every 7.\n",  # a given fact that repeats
    "p(X) :- shift(X).\nq(X) :- <->[0,1] p(X).\nshift(a)@[0,8) every 7.\n",  # ... one that holds for good from 0
    "p(X) :- shift(X).\nshift(a)@[0,8) every 7.\n@temporal(0, 30).\n",
    _EMA + "@temporal(-inf, inf).\n",  # a horizon of the whole line bounds nothing: as none
    # a given fact repeating forever toward the horizon's open end: infinitely many instances there
    "p(X) :- shift(X).\nq(X) :- <->[0,1] p(X).\nshift(a)@[0,2) every 7.\n@temporal(0, inf).\n",
    "p(X) :- shift(X).\nshift(a)@[0,2) every -7.\n@temporal(-inf, 0).\n",
    "p(X) :- shift(X).\nshift(a)@[0,2) every -7.\n@temporal(0, inf).\n",  # ... repeating the other way: unrolled
    "r(X) :- <->[1,1] r(X), s(X).\nr(a)@0.\ns(a)@[0,5].\n@temporal(0, 8).\n",
    "a(X) :- p(X) <S>[0,2] a(X).\na(X) :- q(X).\np(a)@[0,4].\nq(a)@1.\n",
    "m(X, S) :- r(X, V), S = sum(V).\nn(X) :- m(X, S), not q(X).\nr(a, 1)@[0,2].\nr(b, 2)@[1,3].\nq(b)@2.\n",
    "c(Y, C) :- company(C).\nd(Y) :- c(Y, C).\ncompany(a)@[0,5].\n",
    "p(X, V) :- q(X, V), V > 1.\nq(a, 1.5)@[0,1].\nq(b, 3/2)@[0,1].\n",
])
@pytest.mark.parametrize("engine", ["rows", "columns", "auto"])
def test_the_plan_names_the_backend_each_stratum_runs_on(src, engine):
    """Per stratum, the plan's backend is the one the run reports (a few
    facts: what auto leaves to the size runs on rows), or the plan says it
    may fall back and the run names that stratum's fallback.  A model that
    may repeat forever, with no horizon or one open where it repeats (or a
    given fact repeating without one), runs on rows however the strata are
    placed: the plan said columns for them."""
    import warnings

    import chronolog
    from chronolog.planner.backend_choice import BY_SIZE, choose

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = chronolog.reason(src, engine=engine)
    placement = choose(plan(load_program(src)), engine)
    ran = model.stats["executors"]
    fell = {int(f.split(":")[0].split()[1]) for f in model.stats.get("fallbacks", [])}
    for choice in placement.strata:
        said = "rows" if choice.backend == BY_SIZE else choice.backend
        if choice.index in fell:
            assert said == "columns" and ran[choice.index] == "rows"
        else:
            assert ran[choice.index] == said, (choice.index, choice.why)


@pytest.mark.parametrize("placed, ran", [("rows", "rows"), ("columns or rows by input size", "rows"), ("columns", "columns")])
def test_the_columnar_executor_runs_each_stratum_where_the_placement_puts_it(monkeypatch, placed, ran):
    """The run asks the plan's placement and decides nothing of its own:
    told every stratum's backend under --engine columns, it runs each there,
    a few facts deciding "by size" for rows, with the same model."""
    import chronolog
    from chronolog.planner import backend_choice as bc

    assert placed in (bc.ROWS, bc.BY_SIZE, bc.COLUMNS)
    src = "a(X) :- p(X), not q(X).\nb(X, S) :- r(X, V), S = sum(V).\np(a)@[0,4].\nq(a)@[1,2].\nr(a, 1)@[0,2].\nr(a, 2)@[1,3].\n"
    expected = chronolog.reason(src, engine="rows").lines()
    monkeypatch.setattr(bc.Placement, "backend", lambda self, index: placed)
    model = chronolog.reason(src, engine="columns")
    assert set(model.stats["executors"].values()) == {ran}
    assert model.lines() == expected


def test_plan_with_a_horizon_says_where_the_run_with_it_runs(tmp_path):
    """``chronolog plan --horizon`` places the strata as a run with that
    horizon runs them (it replaces the program's ``@temporal``, as ``run
    --horizon`` does): a recursion through time (a recurrence) is found
    where it repeats with none, each bounded attempt on columns from the
    recurrences' threshold, and runs on columns within one, as the run reports;
    the Spark line takes the horizon too (rounds, within it; with none,
    rounds where edge's facts confine the recursion)."""
    from click.testing import CliRunner

    from chronolog.commands import cli

    src = "reach(X, Y) :- edge(X, Y).\nreach(X, Z) :- <->[1,1] reach(X, Y), edge(Y, Z).\n@output(\"reach\").\n"
    path = tmp_path / "reach.vada"
    path.write_text(src)
    edges = [((f"n{i}", f"n{i + 1}"), (i % 50, i % 50 + 3)) for i in range(12_000)]
    for horizon, ran in ((None, "columns"), ("0,100", "columns")):
        args = ["plan", str(path)] + (["--horizon", horizon] if horizon else [])
        out = CliRunner().invoke(cli, args)
        assert out.exit_code == 0, out.output
        stratum = out.output.split("stratum 0 (recursive): reach\n")[1].splitlines()[0]
        model = chronolog.reason(src, {"edge": edges}, horizon=horizon)
        assert set(model.stats["executors"].values()) == {ran}
        assert stratum.startswith(f"  runs on {ran} "), stratum
        spark = next(line for line in out.output.splitlines() if line.startswith("spark --distributed:"))
        assert "ONE Spark task" not in spark, spark
        # (with none, edge's facts confine the recursion, read at run time; with one, the horizon does)
        assert ("the facts of edge, which confine the recursion through time" in out.output) == (horizon is None), out.output
        assert ("more rounds within the horizon than the round limit" in out.output) == (horizon is not None), out.output


@pytest.mark.parametrize("every, horizon", [
    ("every 7", None),  # repeats forever, no horizon: the model is found where it repeats, on rows
    ("every 7", "0,30"),  # unrolled over a closed horizon: the strata as placed
    ("every 7", "0,inf"),  # open the way it repeats: infinitely many instances there, on rows
    ("every -7", "0,inf"),  # ... open the other way: unrolled
    ("", None),  # no repetition
])
def test_plan_with_facts_places_a_fact_files_repeating_facts_as_the_run_does(tmp_path, every, horizon):
    """``chronolog plan --facts FILE`` reads the file's facts that repeat
    forever (``every``) as ``run --facts FILE`` does: one with no horizon
    (or a horizon open the way it repeats) sends every stratum to rows,
    where the model is found where it repeats; the plan says so, and the
    run reports it."""
    from click.testing import CliRunner

    import chronolog
    from chronolog.commands import cli

    src = "p(X) :- shift(X).\nq(X) :- <->[0,1] p(X).\n"
    prog, facts = tmp_path / "shift.vada", tmp_path / "shift.facts"
    prog.write_text(src)
    facts.write_text(f"shift(b)@[0,1]\nshift(a)@[0,2) {every}\n")
    args = ["plan", str(prog), "--facts", str(facts), "--engine", "columns"] + (["--horizon", horizon] if horizon else [])
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 0, out.output
    said = {int(line.split()[1]): line_after.split()[2]
            for line, line_after in zip(out.output.splitlines(), out.output.splitlines()[1:]) if line.startswith("stratum ")}
    model = chronolog.reason(prog, facts, horizon=horizon, engine="columns")
    assert said == model.stats["executors"], out.output
    assert set(said.values()) == {"rows" if every == "every 7" and horizon != "0,30" else "columns"}


def test_plan_with_facts_checks_their_arities_as_the_run_does(tmp_path):
    from click.testing import CliRunner

    from chronolog.commands import cli

    prog, facts = tmp_path / "p.vada", tmp_path / "p.facts"
    prog.write_text("q(X) :- p(X).\n")
    facts.write_text("p(a, b)@[0,1]\n")
    out = CliRunner().invoke(cli, ["plan", str(prog), "--facts", str(facts)])
    run = CliRunner().invoke(cli, ["run", str(prog), "--facts", str(facts)])
    assert out.exit_code == run.exit_code == 2
    assert "p.facts:1" in out.output and "p.facts:1" in run.output, (out.output, run.output)
