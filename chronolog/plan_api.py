"""``chronolog.explain_plan``: the physical plan as ``chronolog plan`` prints
it, and with ``analyze=True`` annotated with what a run of it did, as
EXPLAIN ANALYZE annotates a query's plan (recorded by engine/analysis.py,
printed by chronolog/plan_text.py)."""

from __future__ import annotations

import os


def explain_plan(program, facts=None, *, analyze: bool = False, dialect: str = "vadalog", horizon=None,
                 engine: str | None = None, source: str | None = None, base_dir: os.PathLike | None = None,
                 max_rounds: int | None = None, closed=None) -> str:
    """The plan of ``program`` (arguments as ``chronolog.reason``'s): strata,
    the executor of each and why, each rule's operator tree.  ``analyze``:
    also run it on ``facts`` as ``reason`` does and say, per stratum, where
    it ran, its rounds, its time, a fallback and why, and its predicates'
    facts and maximal intervals in the model; per rule, the rows it produced
    in all and in the stratum's last round; per operator of its tree, its
    rows and own time over all rounds (engine/operator_figures.py)."""
    from chronolog.api import DIALECTS, load_facts, load_program, parse_horizon
    from chronolog.arguments import check_choice
    from chronolog.plan_text import describe_plan
    from chronolog.planner import plan as make_plan
    from chronolog.planner import repeating_periods
    from chronolog.planner.input_size import engine_choice

    check_choice("dialect", dialect, DIALECTS)
    engine = engine_choice(engine)
    if analyze:
        return _analyzed(program, facts, dialect, horizon, engine, source, base_dir, max_rounds, closed)
    prog = load_program(program, dialect=dialect, source=source)
    hz = parse_horizon(horizon, prog.calendar) if horizon is not None else None
    rows = load_facts(facts, dialect, prog.calendar) if facts is not None else None
    return describe_plan(make_plan(prog, rows), engine, hz, repeating_periods(prog, rows))


def _analyzed(program, facts, dialect, horizon, engine, source, base_dir, max_rounds, closed) -> str:
    from time import perf_counter

    from chronolog.api import _Answer, parse_horizon
    from chronolog.arrow_import import without_pandas
    from chronolog.engine.analysis import analysing
    from chronolog.plan_text import describe_plan

    started = perf_counter()
    with analysing() as analysis, without_pandas():
        answer = _Answer(program, facts, dialect=dialect, horizon=horizon, source=source, engine=engine,
                         base_dir=base_dir, max_rounds=max_rounds, closed=closed)
    analysis.seconds = perf_counter() - started
    model = answer.model
    analysis.count(model)
    hz = parse_horizon(horizon, model.plan.program.calendar) if horizon is not None else None
    periods = [rep.period for _, _, rep in answer._repetitions]
    return describe_plan(model.plan, engine, hz, periods, analysis)


def explain_spark_plan(spark, program, inputs=None, *, analyze: bool = False, reason, **options) -> str:
    """``chronolog.spark.explain_plan``: the plan as ``chronolog plan``
    prints it (its Spark lines say which path a run may take); with
    ``analyze`` it runs ``reason(spark, program, inputs, **options)``
    (``chronolog.spark.reason``, handed down: this module does not import
    Spark's) and says the path taken and why, its Spark jobs and time, per
    stratum on the rounds its rounds, time and jobs, and each output's
    facts and rows (every derived predicate unless ``outputs`` names some:
    counted from the tables after the call, outside its jobs)."""
    from time import perf_counter

    from chronolog.api import parse_horizon
    from chronolog.connectors.spark import _strip, jobs_so_far
    from chronolog.engine.analysis import analysing
    from chronolog.language.programs import read_program
    from chronolog.planner import plan as make_plan
    from chronolog.planner.normalize import is_fresh
    from chronolog.plan_text import describe_plan

    prog = read_program(program, options.get("dialect", "vadalog"))
    plan = make_plan(_strip(prog, True))  # (the plan the Spark paths make)
    horizon = options.get("horizon")
    hz = parse_horizon(horizon, prog.calendar) if horizon is not None else None
    if not analyze:
        return describe_plan(plan, "auto", hz)
    stats = options.pop("stats", None)
    stats = {} if stats is None else stats
    if options.get("outputs") is None:
        options["outputs"] = sorted(p for p in plan.derived_predicates() if not is_fresh(p))
    before, started = jobs_so_far(spark), perf_counter()
    with analysing() as analysis:  # (the driver path's embedded run records its strata too)
        out = reason(spark, program, inputs, stats=stats, **options)
    analysis.on_spark(stats, jobs_so_far(spark) - before, perf_counter() - started)
    analysis.seconds = analysis.spark.seconds
    analysis.count_tables({p: t if options.get("arrow") else t.toArrow() for p, t in out.items()})
    if analysis.spark.path == "driver" and analysis.plan is not None:
        plan = analysis.plan  # (the embedded engine ran in this process: its figures are its plan's)
    return describe_plan(plan, "auto", hz, None, analysis)

