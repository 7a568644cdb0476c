"""Constraints (rules with head ``⊥``) checked on the relations in Spark
after the last stratum, with the embedded engine's error.

Each constraint's body is one more rule variant (rules.py) whose "head"
keeps every body variable, read over the final relations; a body that
holds anywhere brings its first rows (at most 20 in all, ordered by time
then values) to the driver, which raises the engine's
:class:`InconsistencyError` (engine/rows/evaluator.py, ``inconsistency``):
the constraint's text and position, where it holds, and the facts that
make it hold.  As in the engine, the horizon does not clip a constraint's
body (its rows are read before the head).  A consistent model costs one
small job per constraint, its first row.
"""

from __future__ import annotations

from chronolog.language import ast

from .classes import body_classes
from .sql import Stmt, term_columns
from .udfs import engine_value

MAX_VIOLATIONS = 20  # as many as the engine collects


def check(rounds) -> None:
    """Raise the engine's InconsistencyError if a constraint of the run's
    plan holds on its final relations."""
    from chronolog.engine.rows.evaluator import inconsistency

    types, violations = rounds.types, []
    for k, rule in enumerate(rounds.plan.constraints):
        env = body_classes(rule.body, types.classes)
        names = sorted(env)
        pred = f"$violation{k}"
        q = Stmt()
        step = rounds.rules.fresh_step(q, pred, map(ast.Var, names), [env[v] for v in names], rule.body, rule)
        if step is None:  # an atom of the body holds nowhere
            continue
        cols = term_columns(len(names))
        order = ", ".join(["s", "e", *cols])
        # held relations (rounds.HELD_ROWS): Spark drops a LIMIT that their
        # rows cannot reach, and its global sort then sampled the rows in a
        # job of its own; sorted in one partition, the check is one job
        hint = "/*+ REPARTITION(1) */ " if rounds.held else ""
        got = rounds.catalog.sql(f"SELECT {hint}* FROM ({q.text(step)}) AS v ORDER BY {order} LIMIT {MAX_VIOLATIONS - len(violations)}").collect()
        slots = {v: i for i, v in enumerate(names)}
        for row in got:
            b = tuple(engine_value(row[c]) for c in cols)
            violations.append((rule, b, rounds.grid.interval(row["s"], row["e"]), slots))
        if len(violations) >= MAX_VIOLATIONS:
            break
    if violations:
        raise inconsistency(violations)
