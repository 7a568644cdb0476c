"""MeTeoR's experiment programs (experiments/AAAI2022 of the MeTeoR
repository) with data, for a comparison with meteor-reasoner's naive
materialisation (tests/meteor_oracle.py).

The weather programs (w*.txt) read the experiments' weather data
(data/weather.json: per predicate a list of {constant: interval}).  The LUBM
programs (p*.txt) were run on a LUBM dataset that the repository does not
hold; they get seeded random data over their own input predicates instead
(the same seed, the same data).  The programs of meteor-reasoner's sdist, at the end,
are read the same way.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from chronolog.language import meteor
from chronolog.language.ast import Const, head_atom


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


def _input_atoms(lines: list) -> list:
    """The atoms of rule bodies over predicates no rule derives."""
    prog = meteor.parse("\n".join(lines))
    heads = {head_atom(r.head).pred for r in prog.rules if head_atom(r.head) is not None}
    out: list = []

    def walk(node):
        if hasattr(node, "pred") and hasattr(node, "terms"):
            if node.pred not in heads:
                out.append(node)
            return
        for attr in ("inner", "left", "right", "lit"):
            if hasattr(node, attr):
                walk(getattr(node, attr))

    for r in prog.rules:
        for lit in r.body:
            walk(lit)
    return out


def inputs(lines: list) -> dict:
    """The predicates a program reads and no rule derives: name -> arity."""
    return {a.pred: len(a.terms) for a in _input_atoms(lines)}


def input_constants(lines: list) -> dict:
    """The constants the rules give each argument of an input predicate:
    ``(pred, position) -> sorted names`` (for data that the rules match)."""
    out: dict = {}
    for a in _input_atoms(lines):
        for i, t in enumerate(a.terms):
            if isinstance(t, Const):
                out.setdefault((a.pred, i), set()).add(str(t.value))
    return {k: sorted(v) for k, v in out.items()}


def random_facts(lines: list, seed: int, names=("c0", "c1", "c2", "c3"), per_predicate=6, span=20, skip=(), constants=None) -> list:
    """Seeded data over the program's input predicates (but ``skip``):
    arguments from ``names`` (or, where ``constants`` has some for the
    argument, from those), integer interval ends in [0, span], open or
    closed at random."""
    rng = random.Random(seed)
    constants = constants or {}
    out = []
    for pred, arity in sorted(inputs(lines).items()):
        if pred in skip:
            continue
        for _ in range(per_predicate):
            args = ",".join(rng.choice(constants.get((pred, i), names)) for i in range(arity))
            lo = rng.randrange(span)
            hi = lo + rng.randrange(6)
            left = "[" if lo == hi or rng.random() < 0.7 else "("
            right = "]" if lo == hi or rng.random() < 0.7 else ")"
            out.append(f"{pred}({args})@{left}{lo},{hi}{right}")
    return out


# ---------------------------------------------------------------- the sdist's programs
#
# meteor-reasoner 1.0.14's sdist (suite meteor-sdist, fetched from PyPI by
# scripts/public-suites.sh) holds other experiments: KR2022's program and
# dataset pairs (the canonical representation of a program's model, models
# that repeat without end) and JWS's programs without their data.


def kr2022_cases(root: Path) -> list:
    """The numbers of KR2022's program and dataset pairs."""
    found = (root / "experiments" / "KR2022" / "programs").glob("case_*_program.txt")
    return sorted(int(p.name.split("_")[1]) for p in found)


def _lines(path: Path) -> list:
    return [line.strip() for line in path.read_text().splitlines() if line.strip()]


def kr2022_case(root: Path, n: int) -> tuple:
    """(program lines, fact lines) of KR2022's case ``n``."""
    d = root / "experiments" / "KR2022" / "programs"
    return _lines(d / f"case_{n}_program.txt"), _lines(d / f"case_{n}_dataset.txt")


def jws_programs(root: Path) -> list:
    return sorted(p.name for p in (root / "experiments" / "JWS" / "programs").glob("*.txt"))


def jws_program_lines(root: Path, name: str) -> list:
    return _lines(root / "experiments" / "JWS" / "programs" / name)
