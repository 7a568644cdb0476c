"""``@config("key", "value").``: evaluation settings carried by the program.

Keys: ``merge`` (``blocking`` | ``streaming``: when a MergeNode merges what
the rules derive) and ``placement`` (``always`` | ``earliest`` | ``minimal``:
which given facts are coalesced before the rules read them, as in the Temporal Vadalog paper).
Arguments of ``reason()`` and the command line take precedence.  The planner
hint ``coalesce`` (repeatable: ``@config("coalesce", "shares").``) also
coalesces that given predicate at load under ``earliest`` and ``minimal``,
e.g. when it arrives as many duplicate or overlapping pieces.
"""

from __future__ import annotations

from chronolog.language.errors import ProgramError

CHOICES = {
    "merge": ("blocking", "streaming"),
    "placement": ("always", "earliest", "minimal"),
}


def read_config(program) -> dict:
    out = {}
    for ann in program.annotations:
        if ann.name != "config":
            continue
        key, value = ann.args
        if key == "coalesce":
            out.setdefault("coalesce", []).append((value, ann.pos))
            continue
        if key not in CHOICES:
            raise ProgramError(
                f"unknown @config key {key!r}",
                ann.pos,
                hint="known keys: " + ", ".join(f'"{k}"' for k in (*CHOICES, "coalesce")),
            )
        if value not in CHOICES[key]:
            raise ProgramError(
                f"@config(\"{key}\", ...) must be one of " + ", ".join(f'"{v}"' for v in CHOICES[key]) + f", not {value!r}",
                ann.pos,
            )
        out[key] = value
    return out


def check_choice(key: str, value, what: str = None) -> str:
    """``value`` of the argument ``what`` (named as its caller names it:
    ``strategy`` is @config's ``merge``)."""
    if value not in CHOICES[key]:
        raise ProgramError(
            f"{what or key}: {value!r} is not one of " + ", ".join(repr(v) for v in CHOICES[key]),
            hint="use " + " or ".join(repr(v) for v in CHOICES[key]),
        )
    return value


def coalesce_hints(config: dict, plan) -> set:
    """The predicates named by ``@config("coalesce", ...)``; each must be one
    the program reads."""
    known = set(plan.arities) if getattr(plan, "arities", None) else set()
    out = set()
    for pred, pos in config.get("coalesce", []):
        if known and pred not in known:
            raise ProgramError(
                f'@config("coalesce", "{pred}"): the program has no predicate {pred!r}',
                pos,
                hint="name a predicate whose facts are given: " + ", ".join(sorted(known)[:8]),
            )
        out.add(pred)
    return out
