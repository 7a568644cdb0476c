"""MeTeoR's experiment programs (experiments/AAAI2022 of the MeTeoR
repository) with data, for a comparison with meteor-reasoner's naive
materialisation (tests/meteor_oracle.py).

The weather programs (w*.txt) read the experiments' weather data
(data/weather.json: per predicate a list of {constant: interval}).  The LUBM
programs (p*.txt) were run on a LUBM dataset that the repository does not
hold; they get seeded random data over their own input predicates instead
(the same seed, the same data).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from chronolog.language import meteor
from chronolog.language.ast import head_atom


def programs(root: Path) -> list:
    """The experiment programs, by file name."""
    return sorted(p.name for p in (root / "experiments" / "AAAI2022" / "programs").glob("*.txt") if p.name != "README.txt")


def program_lines(root: Path, name: str) -> list:
    text = (root / "experiments" / "AAAI2022" / "programs" / name).read_text()
    return [line.strip() for line in text.splitlines() if line.strip()]


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def weather_facts(root: Path, per_predicate=None) -> list:
    """The weather data as MeTeoR fact lines (the first ``per_predicate``
    intervals of each predicate, or all)."""
    data = json.loads((root / "experiments" / "AAAI2022" / "data" / "weather.json").read_text())
    out = []
    for pred, entries in data.items():
        for entry in entries[:per_predicate]:
            for const, iv in entry.items():
                lo = "(" if iv["left_open"] else "["
                hi = ")" if iv["right_open"] else "]"
                out.append(f"{pred}({const})@{lo}{_number(iv['left_value'])},{_number(iv['right_value'])}{hi}")
    return out


def weather_case(root: Path, name: str, per_predicate=None, seed=0) -> list:
    """The weather data, with seeded facts for the input predicates it
    lacks (TempAbove41, LocatedInState), about its one station."""
    data = weather_facts(root, per_predicate)
    given = {line.split("(")[0] for line in data}
    extra = random_facts(program_lines(root, name), seed, names=("station1", "ohio"), span=2000, skip=given)
    return data + extra


def inputs(lines: list) -> dict:
    """The predicates a program reads and no rule derives: name -> arity."""
    prog = meteor.parse("\n".join(lines))
    heads = {head_atom(r.head).pred for r in prog.rules if head_atom(r.head) is not None}
    out: dict = {}

    def walk(node):
        if hasattr(node, "pred") and hasattr(node, "terms"):
            if node.pred not in heads:
                out[node.pred] = len(node.terms)
            return
        for attr in ("inner", "left", "right", "lit"):
            if hasattr(node, attr):
                walk(getattr(node, attr))

    for r in prog.rules:
        for lit in r.body:
            walk(lit)
    return out


def random_facts(lines: list, seed: int, names=("c0", "c1", "c2", "c3"), per_predicate=6, span=20, skip=()) -> list:
    """Seeded data over the program's input predicates (but ``skip``):
    arguments from ``names``, integer interval ends in [0, span], open or
    closed at random."""
    rng = random.Random(seed)
    out = []
    for pred, arity in sorted(inputs(lines).items()):
        if pred in skip:
            continue
        for _ in range(per_predicate):
            args = ",".join(rng.choice(names) for _ in range(arity))
            lo = rng.randrange(span)
            hi = lo + rng.randrange(6)
            left = "[" if lo == hi or rng.random() < 0.7 else "("
            right = "]" if lo == hi or rng.random() < 0.7 else ")"
            out.append(f"{pred}({args})@{left}{lo},{hi}{right}")
    return out
