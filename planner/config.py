"""``@config("key", "value").``: evaluation settings carried by the program.

Keys: ``merge`` (``blocking`` | ``streaming``: when a MergeNode merges what
the rules derive) and ``placement`` (``always`` | ``earliest`` | ``minimal``:
which given facts are coalesced before the rules read them, seed 003 §3.3).
Arguments of ``reason()`` and the command line take precedence.
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
        if key not in CHOICES:
            raise ProgramError(
                f"unknown @config key {key!r}",
                ann.pos,
                hint="known keys: " + ", ".join(f'"{k}"' for k in CHOICES),
            )
        if value not in CHOICES[key]:
            raise ProgramError(
                f"@config(\"{key}\", ...) must be one of " + ", ".join(f'"{v}"' for v in CHOICES[key]) + f", not {value!r}",
                ann.pos,
            )
        out[key] = value
    return out


def check_choice(key: str, value) -> str:
    if value not in CHOICES[key]:
        raise ProgramError(
            f"unknown {key} {value!r}", hint="use " + " or ".join(repr(v) for v in CHOICES[key])
        )
    return value
