"""Human-readable text of a plan: strata, normalised rules and the node
pipelines the engine builds for them (what ``chronolog plan`` prints)."""

from __future__ import annotations

from chronolog.language.timeline import format_interval


class _SizeOnly:
    """Stands in for the evaluator when pipelines are built only to be shown."""

    store = None

    def relation_size(self, pred):
        return 0

    def delta_of(self, pred):
        return {}


def describe_fragment(plan) -> list:
    """The model kind (finite, constant or periodic, as in the Temporal Vadalog paper), the pattern step, and how each
    component whose recursion moves time will terminate."""
    from chronolog.language.timeline import format_number

    from .fragment import classify, direction

    frag = classify(plan.strata)
    out = [f"model: {frag.kind} ({frag.reason})"]
    if frag.kind == "finite":
        return out
    if frag.pattern_length is not None:
        out.append(f"pattern step: {format_number(frag.pattern_length)} (the period found at run time is a multiple of it)")
    for st in plan.strata:
        if not (st.recursive and st.shifting_rules):
            continue
        d = direction(st.rules, set(st.preds))
        how = {
            "forward": "reads only the past: computed forward until it repeats",
            "backward": "reads only the future: computed backward (time mirrored) until it repeats",
            "none": "computed until it repeats",
            "mixed": "reads both the past and the future: a repeating guess from a growing window, proved a model",
        }[d.kind]
        preds = sorted(p for p in st.preds if not p.startswith("$"))
        out.append(f"recursion through {', '.join(preds)}: {how}")
        for r in st.shifting_rules:
            src = r.source
            text = src.text if src is not None and src.text else r.describe()
            out.append(f"    {text}")
    return out


def describe_partitioning(plan) -> str:
    """Whether Spark can spread the program over key groups (planner/partition.py)."""
    from .partition import NotPartitionable, analyse

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
    from chronolog.engine.columns.evaluator import where_runs
    from chronolog.engine.rows.pipeline import build_rule_pipeline, build_since_pipeline, describe_pipeline
    from chronolog.planner.ir import SinceRule

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
        out.append(f"  runs on {where_runs(st, engine)}")
        if st.shifting_rules:
            out.append("  moves time inside its cycle through:")
            for r in st.shifting_rules:
                out.append(f"    {r.describe()}")
        for rule in st.rules:
            src = rule.source
            where = f"   [{src.pos}]" if src is not None and src.pos.line else ""
            out.append(f"  rule {rule.describe()}{where}")
            out.append(f"    Merge {rule.head_pred}")
            if isinstance(rule, SinceRule):
                pipe = build_since_pipeline(rule, state)
            else:
                pipe = build_rule_pipeline(rule, state)
            out.extend(describe_pipeline(pipe, indent="    "))
    if plan.constraints:
        out.append("")
        out.append("constraints (checked after the last stratum):")
        for rule in plan.constraints:
            out.append(f"  rule {rule.describe()}")
            out.extend(describe_pipeline(build_rule_pipeline(rule, state), indent="    "))
    return "\n".join(out)
