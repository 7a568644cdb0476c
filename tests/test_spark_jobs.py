"""How many Spark jobs a small call costs, pinned: on small inputs each job
(an action, a broadcast) costs 0.1-0.25 s in a warm session whatever its
rows, so the count sets both the Spark tests' time and a cluster call's
fixed cost (bench/spark_jobs.py).  Every call's answers are the embedded
engine's."""

from __future__ import annotations

import warnings

import pytest

import chronolog
from chronolog.engine.arrow import table_to_rows
from chronolog.language.timeline import coalesce

pytestmark = pytest.mark.spark

EDGES = "e(a,b)@[0,5]. e(b,c)@[1,6]. e(c,d)@[2,3]. e(d,a)@[4,8]. f(b,x)@[0,9]. f(c,y)@[2,4]. g(a)@[1,2]."
ONE_RULE = "q(X,Z) :- e(X,Y), f(Y,Z). " + EDGES  # no key: the join is across keys
RECURSION = "r(X,Y) :- e(X,Y). r(X,Z) :- r(X,Y), e(Y,Z). " + EDGES
NEGATION = "n(X,Z) :- e(X,Y), f(Y,Z), not g(X). " + EDGES


def jobs_of(spark, call):
    """``call()``'s result and the Spark jobs it submitted (the scheduler's
    next job id before and after: the rounds set job groups of their own)."""
    from chronolog.connectors.spark import jobs_so_far

    before = jobs_so_far(spark)
    got = call()
    return got, jobs_so_far(spark) - before


def facts(tables: dict) -> dict:
    out = {}
    for p, t in tables.items():
        atoms: dict = {}
        for terms, iv in table_to_rows(t, p):
            atoms.setdefault(terms, []).append(iv)
        out[p] = sorted((terms, iv) for terms, ivs in atoms.items() for iv in coalesce(ivs))
    return out


def embedded(program: str, preds) -> dict:
    model = chronolog.reason(program)
    return facts({p: model.to_arrow(p) for p in preds})


def collected(spark, program: str, **options):
    """Every output of ``reason`` collected, as a caller does: ``(tables, stats)``."""
    from chronolog import spark as cs

    stats: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", cs.DriverFallback)
        out = cs.reason(spark, program, stats=stats, **options)
        return {p: df.toArrow() for p, df in out.items()}, stats


def counted_calls(spark, monkeypatch) -> dict:
    """``{"sql", "checkpoint", "createDataFrame": calls}``, counted from now
    on: the statements Spark analyses, the checkpoints and the DataFrames
    made (until ``monkeypatch`` is undone)."""
    from chronolog.connectors.spark_rounds import catalog

    made = {"sql": 0, "checkpoint": 0, "createDataFrame": 0}

    def counted(name, f):
        def g(*args, **kwargs):
            made[name] += 1
            return f(*args, **kwargs)
        return g

    monkeypatch.setattr(catalog.Catalog, "sql", counted("sql", catalog.Catalog.sql))
    monkeypatch.setattr(catalog.Catalog, "checkpoint", counted("checkpoint", catalog.Catalog.checkpoint))
    monkeypatch.setattr(type(spark), "createDataFrame", counted("createDataFrame", type(spark).createDataFrame))
    return made


@pytest.mark.parametrize("program,most", [(ONE_RULE, 1), (NEGATION, 1), (RECURSION, 4)], ids=["one_rule", "negation", "recursion"])
def test_a_small_program_on_the_rounds_costs_a_job_per_round_and_no_broadcast(spark, program, most):
    """One action per round, and none to collect the outputs: a small
    round's joins shuffle inside its job rather than broadcast (a job of
    its own each: one rule 4 jobs before, negation 5, recursion 9), the
    program's own facts are loaded by the first round's action (a job of
    their own before: one rule 3 jobs, recursion 6), and an output held on
    the driver answers its first collection there (a job each before: one
    rule 2 jobs, recursion 5)."""
    (tables, stats), jobs = jobs_of(spark, lambda: collected(spark, program, distributed=True, one_task_bytes=-1))
    assert stats["path"] == "relational", stats["why"]
    assert facts(tables) == embedded(program, tables)
    assert jobs == stats["load"].jobs + sum(r.jobs for r in stats["rounds"])
    assert all(r.jobs == 1 for r in stats["rounds"]), [r.jobs for r in stats["rounds"]]
    assert stats["load"].jobs == 0
    assert jobs <= most


@pytest.mark.parametrize("program", [ONE_RULE, NEGATION, RECURSION], ids=["one_rule", "negation", "recursion"])
def test_a_small_program_analyses_a_statement_per_round_and_output_and_checkpoints_nothing(spark, monkeypatch, program):
    """A small call's fixed cost is also the statements Spark analyses and
    the plans it optimizes for checkpoints: the program's few facts are
    literal relations (no DataFrame, statement or checkpoint of their
    own), and each round's merged relations come to the driver in its
    action and are held there (no checkpoint, no statement of counts).
    One rule analysed 6 statements and made 4 checkpoints and 3
    DataFrames of facts, then a statement per round and per output; now
    a statement per round: an output held as a literal has its schema
    known on the driver, its statement analysed only where the caller
    uses the DataFrame beyond its first ``toArrow()``."""
    made = counted_calls(spark, monkeypatch)
    tables, stats = collected(spark, program, distributed=True, one_task_bytes=-1)
    assert stats["path"] == "relational", stats["why"]
    assert facts(tables) == embedded(program, tables)
    assert made == {"sql": len(stats["rounds"]), "checkpoint": 0, "createDataFrame": 0}, made


@pytest.mark.parametrize("literal,held", [(1, 10_000), (100, 3), (4, 10_000)], ids=["facts_mixed", "held_then_checkpointed", "held_as_frames"])
def test_held_relations_past_their_limits(spark, monkeypatch, literal, held):
    """The held run's other forms give the engine's answers: predicates of
    more facts than ``LITERAL_ROWS`` loaded by the first round's action
    beside literal ones (the run then checkpoints); a round whose relation has more rows than
    ``HELD_ROWS`` run again to checkpoints, and the run checkpointed from
    then on; a held relation of more rows than ``LITERAL_ROWS`` read as a
    DataFrame of its rows."""
    from chronolog.connectors.spark_rounds import inputs, rounds

    monkeypatch.setattr(inputs, "LITERAL_ROWS", literal)
    monkeypatch.setattr(rounds, "HELD_ROWS", held)
    program = RECURSION + " @output(\"r\"). @output(\"n\"). n(X,Z) :- r(X,Y), f(Y,Z), not g(X)."
    tables, stats = collected(spark, program, distributed=True, one_task_bytes=-1)
    assert stats["path"] == "relational", stats["why"]
    assert facts(tables) == embedded(program, tables)
    r = stats["relations"]["r"]
    if held < 10_000:
        assert r.df is not None and r.table is None  # a checkpoint
    elif literal == 4:
        assert r.df is not None and r.table is not None and r.count > 4  # a DataFrame of the held rows
    else:  # e (4 facts) loaded beside g (1) literal: the run is not held
        assert r.table is None and stats["relations"]["e"].df is not None and stats["relations"]["g"].df is None


def test_a_constraint_that_holds_nowhere_costs_one_job(spark):
    """A constraint is checked under the rounds' settings: one job (its
    first rows), where adaptive execution made each shuffle stage a job."""
    from chronolog import spark as cs

    program = ONE_RULE + " ⊥ :- q(X,Z), e(Z,W)."
    (tables, stats), jobs = jobs_of(spark, lambda: collected(spark, program, distributed=True, one_task_bytes=-1))
    assert stats["path"] == "relational", stats["why"]
    assert facts(tables) == embedded(program, tables)
    assert jobs == stats["load"].jobs + sum(r.jobs for r in stats["rounds"]) + 1 == 2
    with pytest.raises(chronolog.InconsistencyError):  # and one that holds is still the engine's error
        cs.reason(spark, ONE_RULE + " ⊥ :- q(X,Z), e(X,W).", distributed=True, one_task_bytes=-1)


def test_a_large_round_still_broadcasts_small_sides(spark, monkeypatch):
    """Past ``SHUFFLE_ROWS`` a small side is broadcast again (a job of its
    own, a hash table per task instead of moving the large side)."""
    from chronolog.connectors.spark_rounds import rounds

    monkeypatch.setattr(rounds, "SHUFFLE_ROWS", 0)
    (tables, stats), _ = jobs_of(spark, lambda: collected(spark, ONE_RULE, distributed=True, one_task_bytes=-1))
    assert facts(tables) == embedded(ONE_RULE, tables)
    assert [r.jobs for r in stats["rounds"]] == [2]  # the broadcast and the action


def test_the_session_keeps_its_broadcast_threshold(spark):
    before = spark.conf.get("spark.sql.autoBroadcastJoinThreshold")
    collected(spark, ONE_RULE, distributed=True, one_task_bytes=-1)
    assert spark.conf.get("spark.sql.autoBroadcastJoinThreshold") == before


@pytest.mark.parametrize("mine", [None, "my-etl"])
def test_the_callers_job_group_is_kept(spark, mine):
    """The rounds name a job group per round; the caller's own (or none)
    is the thread's again after the call, not "chronolog"."""
    sc = spark.sparkContext
    if mine is not None:
        sc.setJobGroup(mine, "the caller's jobs")
    try:
        collected(spark, ONE_RULE, distributed=True, one_task_bytes=-1)
        assert sc.getLocalProperty("spark.jobGroup.id") == mine
        assert sc.getLocalProperty("spark.job.description") == (None if mine is None else "the caller's jobs")
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
        sc.setLocalProperty("spark.job.description", None)
        sc.setLocalProperty("spark.job.interruptOnCancel", None)


def test_one_task_is_one_job(spark):
    (tables, stats), jobs = jobs_of(spark, lambda: collected(spark, RECURSION, distributed=True))
    assert stats["path"] == "one task"
    assert facts(tables) == embedded(RECURSION, tables)
    assert jobs == 1


DRIVER_PROGRAMS = {
    "terms": ('q(X,N,F,B) :- p(X,N,F,B). p(a, 2.5, 1.0e0, #T)@[0,1). p("b c", -3, 0.25e0, #F)@(1,2]. p(c, 7, 2.0e0, #T)@[2,+inf).', {}),
    "empty": ("q(X) :- p(X), not p(X). p(a)@[0,1].", {}),
    "dates": ('@timeGranularity("days"). q(X) :- <->[0, P3D] p(X). p(a)@[2020-01-30, 2020-02-01).', {}),
    "timestamps": ("q(X) :- <->[0,2] p(X). p(a)@[0,1]. p(b)@[10,11).", {"timestamps": True}),
    "job_report": ('jobReport :- <->[30,30] jobReport. priceEvent(X) :- stockPriceChange(X,V), V > 5. '
                   'possibleCause(X,"JR") :- priceEvent(X), <->[0,1] jobReport. jobReport@[0,0]. stockPriceChange(a,6)@[121,121].',
                   {"horizon": (0, 200)}),
}


# programs with no key (a join across keys: p(Y)), so that they run on the rounds
HELD_PROGRAMS = {
    "terms": ('q(X,N,F,B) :- p(X,N,F,B), p(Y,M,G,C). p(a, 2.5, 1.0e0, #T)@[0,1). p("b c", -3, 0.25e0, #F)@(1,2]. '
              'p(c, 7, 2.0e0, #T)@[2,+inf).', {}),
    "empty": ("q(X) :- p(X), r(Y). p(a)@[0,1]. r(b)@[5,6].", {}),
    "window_empty": (ONE_RULE, {"window": (20, 30)}),
    "dates": ('@timeGranularity("days"). q(X) :- <->[0, P3D] p(X), p(Y). p(a)@[2020-01-30, 2020-02-01). p(b)@2020-01-02.', {}),
    "timestamps": ("q(X) :- <->[0,2] p(X), p(Y). p(a)@[0,1]. p(b)@[10,11).", {"timestamps": True}),
    "decimals": ("q(X) :- <->[0,0.5] p(X), p(Y). p(1.25)@[0,1.5). p(2)@(-inf,0].", {}),
    "window": (ONE_RULE, {"window": (1, 4)}),
    "job_report": DRIVER_PROGRAMS["job_report"],
}


@pytest.mark.parametrize("name", list(HELD_PROGRAMS))
def test_a_held_output_answers_toArrow_with_spark_own_table_and_no_job(spark, name):
    """On the rounds, an output whose relation is held on the driver
    answers its first ``toArrow()`` there, typed as Spark's ``toArrow()``
    of that DataFrame types it (schema, and the rows in any order), with
    no job; Spark's own collection is the oracle."""
    from chronolog import spark as cs
    from pyspark.sql.classic.dataframe import DataFrame

    program, options = HELD_PROGRAMS[name]
    stats: dict = {}
    out, _ = jobs_of(spark, lambda: cs.reason(spark, program, distributed=True, one_task_bytes=-1, stats=stats, **options))
    assert stats["path"] == "relational", stats["why"]
    tables, jobs = jobs_of(spark, lambda: {p: df.toArrow() for p, df in out.items()})
    assert jobs == 0
    for p, df in out.items():
        spark_own = DataFrame.toArrow(df)
        assert tables[p].schema == spark_own.schema, p
        assert sorted(tables[p].to_pylist(), key=repr) == sorted(spark_own.to_pylist(), key=repr), p


@pytest.mark.parametrize("name", list(DRIVER_PROGRAMS))
def test_the_driver_path_answers_toArrow_with_spark_own_table_and_no_job(spark, name):
    """On the driver (``distributed=False``) each output's first
    ``toArrow()`` is the table the engine made, typed as Spark's
    ``toArrow()`` of that DataFrame types it (schema and values), with no
    job; before, each was a job.  Spark's own collection is the oracle."""
    from chronolog import spark as cs
    from pyspark.sql.classic.dataframe import DataFrame

    program, options = DRIVER_PROGRAMS[name]
    out, jobs = jobs_of(spark, lambda: cs.reason(spark, program, **options))
    tables, more = jobs_of(spark, lambda: {p: df.toArrow() for p, df in out.items()})
    assert jobs + more == 0
    for p, df in out.items():
        spark_own = DataFrame.toArrow(df)  # a job: Spark collects the DataFrame itself
        assert tables[p].schema == spark_own.schema, p
        assert tables[p].equals(spark_own), p
        assert df.toArrow().equals(spark_own)  # a second collection is Spark's
    if not options and "@timeGranularity" not in program:  # (numbers: the engine's facts read back as they are)
        assert facts(tables) == embedded(program, tables)
