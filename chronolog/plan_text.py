"""Human-readable text of a plan: strata, normalised rules, where each
stratum runs and the node pipelines the engine builds for them (what
``chronolog plan`` prints).  Above the executors: it asks the columnar
executor and the Spark rounds where a stratum runs, and the row executor
for its pipelines (planner/explain.py gives the model's kind)."""

from __future__ import annotations

from chronolog.language.timeline import format_interval
from chronolog.planner.explain import describe_fragment


class _SizeOnly:
    """Stands in for the evaluator when pipelines are built only to be shown."""

    store = None

    def relation_size(self, pred):
        return 0

    def delta_of(self, pred):
        return {}


def describe_partitioning(plan) -> str:
    """Whether Spark can spread the program over key groups (planner/partition.py)."""
    from chronolog.planner.partition import NotPartitionable, analyse

    try:
        keys = analyse(plan).describe()
    except NotPartitionable as e:
        return f"partitioning: none ({e.message.removeprefix('not partitionable: ')})\n" + _spark_rounds(plan)
    except Exception as e:  # pragma: no cover - the analysis has a step budget
        return f"partitioning: not analysed ({e})"
    if not keys:
        return "partitioning: none (no predicate has arguments)\n" + _spark_rounds(plan)
    return f"partitioning: by key {keys}\nspark --distributed: per-key tasks (one engine per partition of keys)"


def _spark_rounds(plan) -> str:
    """Where ``--spark --distributed`` runs a program with no key."""
    from chronolog.connectors.spark_rounds import describe

    return f"spark --distributed: {describe(plan)}"


def describe_plan(plan, engine: str = "auto") -> str:
    """What ``chronolog plan`` prints: the planner's strata and rules, where
    each stratum runs and the row pipeline of each rule."""
    from chronolog.engine.columns.evaluator import where_runs
    from chronolog.engine.rows.pipeline import describe_pipeline, pipeline_for

    state = _SizeOnly()
    out = []
    out.extend(describe_fragment(plan))
    if plan.temporal is not None:
        out.append(f"horizon: {format_interval((plan.temporal[0], plan.temporal[1], True, True))}")
    if plan.outputs:
        out.append("outputs: " + ", ".join(plan.outputs))
    out.append(describe_partitioning(plan))
    for st in plan.strata:
        tag = "recursive" if st.recursive else "non-recursive"
        out.append("")
        out.append(f"stratum {st.index} ({tag}): {', '.join(sorted(st.preds))}")
        out.append(f"  runs on {where_runs(st, engine, plan)}")
        if st.shifting_rules:
            out.append("  moves time inside its cycle through:")
            for r in st.shifting_rules:
                out.append(f"    {r.describe()}")
        for rule in st.rules:
            src = rule.source
            where = f"   [{src.pos}]" if src is not None and src.pos.line else ""
            out.append(f"  rule {rule.describe()}{where}")
            out.append(f"    Merge {rule.head_pred}")
            pipe = pipeline_for(rule, state)
            out.extend(describe_pipeline(pipe, indent="    "))
    if plan.constraints:
        out.append("")
        out.append("constraints (checked after the last stratum):")
        for rule in plan.constraints:
            out.append(f"  rule {rule.describe()}")
            out.extend(describe_pipeline(pipeline_for(rule, state), indent="    "))
    return "\n".join(out)
