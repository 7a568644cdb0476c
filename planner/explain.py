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


def describe_plan(plan) -> str:
    from chronolog.engine.pipeline import build_rule_pipeline, build_since_pipeline, describe_pipeline
    from chronolog.planner.ir import SinceRule

    state = _SizeOnly()
    out = []
    kind = "finite"
    if plan.infinite_strata():
        kind = "possibly infinite (needs a horizon)"
    out.append(f"model: {kind}")
    if plan.temporal is not None:
        out.append(f"horizon: {format_interval((plan.temporal[0], plan.temporal[1], True, True))}")
    if plan.outputs:
        out.append("outputs: " + ", ".join(plan.outputs))
    for st in plan.strata:
        tag = "recursive" if st.recursive else "non-recursive"
        out.append("")
        out.append(f"stratum {st.index} ({tag}): {', '.join(sorted(st.preds))}")
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
