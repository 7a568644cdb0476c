"""Human-readable text of a plan, as ``chronolog plan`` prints it: the
model's kind, the Spark path, and per stratum where it runs and why, what
may still send it elsewhere at run time, and each rule's operator tree
(the physical plan, planner/physical.py, placed by planner/backend_choice.py;
printed as DataFusion's and Polars' EXPLAIN print theirs)."""

from __future__ import annotations

from chronolog.language.timeline import POS_INF, format_interval, format_number
from chronolog.planner.backend_choice import BY_SIZE, COLUMNS_FALLBACK, ROWS, choose
from chronolog.planner.explain import coalesce_tree, describe_fragment, operator_tree
from chronolog.planner.physical import Coalesce
from chronolog.planner.same_shape import batches


def describe_partitioning(plan) -> str:
    """Whether Spark can spread the program over key groups (planner/partition.py)."""
    from chronolog.planner.partition import NotPartitionable, analyse

    try:
        keys = analyse(plan).describe()
    except NotPartitionable as e:
        return f"partitioning: none ({e.message.removeprefix('not partitionable: ')})"
    except Exception as e:  # pragma: no cover - the analysis has a step budget
        return f"partitioning: not analysed ({e})"
    if not plan.rules and not plan.constraints:
        return "partitioning: none needed (no rules: the model is the given facts)"
    if not keys:
        return "partitioning: none (no predicate has arguments)"
    return f"partitioning: by key {keys}"


def describe_spark(spark) -> list:
    """Where ``--spark --distributed`` runs the program, and its run-time fallbacks."""
    out = [f"spark --distributed: {spark.describe()}"]
    if spark.fallbacks:  # (a list: docs/spark.md, "What rounds do not run yet", has each case in full)
        out.append("  may fall back to one Spark task at run time if:")
        out += [f"    - {f}" for f in spark.fallbacks]
    return out


def describe_columns(placement) -> list:
    """What may send any stratum on columns back to rows at run time."""
    if all(s.backend == ROWS for s in placement.strata):
        return []
    return [f"columns: a stratum may fall back to rows if {COLUMNS_FALLBACK}"]


def describe_plan(plan, engine: str = "auto", horizon=None, repeating=None, analysis=None) -> str:
    """What ``chronolog plan`` prints; ``horizon``: the run's (``--horizon``,
    parsed), which replaces the program's ``@temporal`` as a run's does;
    ``repeating``: the periods of the given facts that repeat forever
    (planner.repeating_periods; None: the program's own); ``analysis``: what
    a run of the plan did (engine/analysis.py), printed beside what it planned
    (``plan --analyze``, as EXPLAIN ANALYZE)."""
    placement = choose(plan, engine, horizon, repeating)
    out = []
    calendar = plan.program.calendar  # (an infinite end open; on a date timeline, dates)
    shown = calendar.format_interval if calendar is not None else format_interval
    if analysis is not None and analysis.spark is not None:
        out.extend(_on_spark(analysis.spark))
    elif analysis is not None:
        out.append(f"analyzed: {_ran_in_all(analysis)}")
    hz = horizon if horizon is not None else plan.temporal
    out.extend(describe_fragment(plan, closed=hz is not None and -POS_INF < hz[0] and hz[1] < POS_INF))
    if hz is not None:
        from chronolog.language.timeline import make

        out.append(f"horizon: {shown(make(hz[0], hz[1], True, True))}")
    elif placement.implied_reach is not None:
        out.append(f"horizon: none given; where every given fact ends (known at run time) the model lies within them "
                   f"widened by {format_number(placement.implied_reach)} time units (the strata's reach): the run takes "
                   "that horizon (its implied horizon)")
    if plan.outputs:
        out.append("outputs: " + ", ".join(plan.outputs))
    out.append(describe_partitioning(plan))
    out.extend(describe_spark(placement.spark))
    out.extend(describe_columns(placement))
    batch_of = {m: b for b in batches(plan).values() for m in b.members}
    level_of = {i: (n, level) for n, level in enumerate(plan.physical.levels) for i in level}
    for st, choice in zip(plan.physical.strata, placement.strata):
        ir = st.stratum
        tag = "recursive" if st.recursive else "non-recursive"
        out.append("")
        out.append(f"stratum {st.index} ({tag}): {', '.join(st.preds)}")
        if choice.backend == BY_SIZE:
            out.append(f"  runs on {choice.why}")
        else:
            out.append(f"  runs on {choice.backend} ({choice.why})")
        out += [f"  may fall back to rows if {f}" for f in choice.fallbacks]
        if analysis is not None:
            out.extend(_stratum_ran(analysis, st, shown))
        batch = batch_of.get(st.index)
        if batch is not None and choice.backend != ROWS:
            others = ", ".join(str(m) for m in batch.members if m != st.index)
            out.append(f"  on columns, runs as one rule with strata {others} (the same rule but for its predicates); "
                       "a fallback or an error runs each alone")
        if placement.spark.path in ("rounds", "one task"):
            if choice.spark_refusal is not None:
                out.append(f"  spark rounds cannot run it: {choice.spark_refusal.why}")
            elif placement.spark.path == "rounds":
                if choice.spark_form:
                    out.append(f"  on spark rounds: {choice.spark_form}")
                n, level = level_of[st.index]
                if len(level) > 1:
                    others = ", ".join(str(i) for i in level if i != st.index)
                    out.append(f"  on spark rounds, runs together with stratum{'s' if len(level) > 2 else ''} {others} "
                               f"(dependency level {n}: none reads another's predicates)")
                out += [f"  on spark rounds, may fall back to one Spark task if {f}" for f in choice.spark_fallbacks]
        if ir is not None and ir.shifting_rules:
            out.append("  moves time inside its cycle through:")
            for r in ir.shifting_rules:
                out.append(f"    {r.describe()}")
        merges = {c.pred: c for c in st.coalesce}
        ran = analysis.strata.get(st.index) if analysis is not None else None
        figures = _figures(ran, st) if ran is not None else None
        for rp in st.rules:
            out.extend(_rule(rp, merges.get(rp.rule.head_pred), ran, figures))
    if plan.physical.constraints:
        out.append("")
        # (on rows whichever executor ran the strata: engine/rows/evaluator.py, check_constraints)
        out.append("constraints (checked after the last stratum, on rows):")
        for rp in plan.physical.constraints:
            out.append(f"  rule {rp.rule.describe()}")
            out.extend(operator_tree(rp.root))
    return "\n".join(out)


def _rule(rp, merge, ran=None, figures=None) -> list:
    rule = rp.rule
    src = rule.source
    where = f"   [{src.pos}]" if src is not None and src.pos.line else ""
    out = [f"  rule {rule.describe()}{where}"]
    produced = ran.rule(rp) if ran is not None else None
    if produced is not None:
        out.append(f"    produced {_rows(produced[0])}, {produced[1]:,} in the last round")
    out.extend(coalesce_tree(rule.head_pred, merge.schema if merge is not None else (), rp.root,
                             figures=figures, coalesce=merge))
    if rp.variants:
        out.append("    seminaive deltas: " + "; ".join(v.describe() for v in rp.variants))
    return out


# ---------------------------------------------------------------- analyze


def _figures(ran, st):
    """What ``plan --analyze`` prints beside an operator of stratum ``st``:
    ``rows=... time=...`` over all rounds (engine/operator_figures.py), or
    None where none of its nodes ran; a merge says how many rules feed it."""
    rules: dict = {}
    for rp in st.rules:
        rules[rp.rule.head_pred] = rules.get(rp.rule.head_pred, 0) + 1

    def shown(op):
        got = ran.operator(op)
        if got is None:
            return None
        text = f"rows={got[0]:,} time={got[1] * 1000:.2f}ms"
        feeding = rules.get(op.pred, 0) if isinstance(op, Coalesce) else 0
        return text + (f" (the merge of its {feeding} rules)" if feeding > 1 else "")

    return shown


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def _rows(n: int) -> str:
    return f"{n:,} row{'' if n == 1 else 's'}"


# the Spark paths as a run names them (stats["path"]) and as they are printed
_SPARK_PATHS = {
    "relational": "seminaive rounds of Spark SQL",
    "one task": "one Spark task (the whole program, the embedded engine)",
    "keyed": "Spark tasks per key group (the embedded engine in each)",
    "driver": "the driver (the embedded engine)",
}


def _on_spark(spark) -> list:
    """The lines of a Spark call: its path and why, its jobs and time."""
    out = [f"analyzed: {_ms(spark.seconds)} in all (reading, planning, running; collecting the counts after); "
           f"{_counted(spark.jobs, 'Spark job')}",
           f"spark ran on: {_SPARK_PATHS.get(spark.path, spark.path)}: {spark.why}"]
    out += [f"spark ran the rounds again: {why}" for why in spark.again]  # (its time and jobs counted above)
    if spark.load is not None:
        out.append(f"spark loaded the inputs: {_counted(spark.load.jobs, 'Spark job')}, {_ms(spark.load.seconds)}")
    if spark.path != "driver":  # (the driver's embedded run prints its figures per operator, as embedded)
        out.append(f"per operator: no rows or time on Spark ({_NO_SPARK_FIGURES})")
    return out


# why a Spark call prints no figures per operator (the embedded executors do: engine/operator_figures.py)
_NO_SPARK_FIGURES = ("a round's statements run as Spark SQL, whose operators Catalyst rewrites and fuses and whose "
                     "rows only Spark's SQL metrics hold; the keyed and one-task paths run the embedded engine in "
                     "Spark's workers")


def _ran_in_all(analysis) -> str:
    """The first line of ``plan --analyze``: the whole call, and the strata's share."""
    on: dict = {}
    for run in analysis.strata.values():
        on[run.executor] = on.get(run.executor, 0) + 1
    where = ", ".join(f"{n} on {ex}" for ex, n in sorted(on.items()))
    out = f"{_ms(analysis.seconds)} in all (reading, planning, running); strata {where} in " \
          f"{_ms(sum(r.seconds for r in analysis.strata.values()))}"
    if analysis.loading >= 0.0005:
        out += f"; loading the columnar executor's libraries {_ms(analysis.loading)}"
    if any(r.bounded is not None for r in analysis.strata.values()):
        out += "; the model found where it repeats, in bounded runs"
    if analysis.helpers:
        h = analysis.helpers
        out += (f"; {len(h)} bounded run{'' if len(h) == 1 else 's'} of the search's own predicates "
                f"(unbounded literals): {_counted(sum(r.rounds for r in h), 'round')}, "
                f"{_rows(sum(r.derivations for r in h))}, {_ms(sum(r.seconds for r in h))}")
    return out


def _counted(n: int, what: str) -> str:
    return f"{n:,} {what}{'' if n == 1 else 's'}"


# how each direction of a recursion through time was searched (engine/termination.py)
_SEARCHED = {
    "forward": "computed forward",
    "backward": "computed backward, time mirrored",
    "both": "guessed and proved on both sides",
    "none": "no recursion through time: where its inputs repeat",
}


def _bounded(run, shown) -> list:
    """A stratum of a model found where it repeats (engine/termination.py):
    its bounded runs, each to its window's end, and where the model repeats."""
    from chronolog.engine.termination import describe_repetition

    rep = run.repetition
    found = f" (the model {describe_repetition(rep)}; {_SEARCHED[rep['direction']]})" if rep is not None else ""
    out = [f"  ran on {run.executor}: {_counted(run.rounds, 'round')}, {_ms(run.seconds)} "
           f"in {_counted(len(run.bounded), 'bounded run')}{found}"]
    for r in run.bounded:
        within = f"within {shown(r.window)}" if r.window is not None else "over all time"
        out.append(f"    {r.what} {within}: {_counted(r.rounds, 'round')}, {_rows(r.derivations)}, {_ms(r.seconds)}")
    return out


def _stratum_ran(analysis, st, shown) -> list:
    """What stratum ``st`` did: where it ran, its rounds and time (in a
    model found where it repeats, each bounded run), a fallback, and its
    predicates' facts in the model."""
    run = analysis.strata.get(st.index)
    out = []
    if run is not None:
        if run.bounded is not None:
            out.extend(_bounded(run, shown))
        elif run.jobs is not None:
            shared = ", ".join(map(str, sorted(run.shared)))
            out.append(f"  ran on spark rounds: {_counted(run.rounds, 'round')}, {_ms(run.seconds)}, "
                       f"{_counted(run.jobs, 'Spark job')}" + (f" (rounds shared with strata {shared})" if shared else ""))
        elif run.batch is not None and run.batch != st.index:
            out.append(f"  ran on {run.executor}, as one rule with stratum {run.batch} (in its time)")
        elif run.batch is not None:
            others = ", ".join(str(i) for i, r in analysis.strata.items() if r.batch == st.index and i != st.index)
            out.append(f"  ran on {run.executor}, as one rule with strata {others}: {_ms(run.seconds)}")
        else:
            rounds = "" if run.rounds is None else f"{_counted(run.rounds, 'round')}, "
            out.append(f"  ran on {run.executor}: {rounds}{_ms(run.seconds)}")
        if run.fallback is not None:
            out.append(f"  fell back from columns to rows: {run.fallback}")
    elif analysis.spark is not None:
        out.append(f"  ran in {_SPARK_PATHS.get(analysis.spark.path, analysis.spark.path)}: no rounds of its own recorded")
    for pred in st.preds:
        counts = analysis.counts.get(pred)
        if counts is not None:
            facts, intervals, repeating = counts
            more = f" ({repeating:,} repeat forever)" if repeating else ""
            out.append(f"  holds {pred}: {facts:,} fact{'' if facts == 1 else 's'} on "
                       f"{intervals:,} maximal interval{'' if intervals == 1 else 's'}{more}")
    return out
