"""Human-readable text of what the planner knows of a plan's model: its
kind and how each recursion through time terminates (the first lines of
``chronolog plan``; chronolog/plan_text.py adds where each stratum runs and
the executors' pipelines)."""

from __future__ import annotations


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
