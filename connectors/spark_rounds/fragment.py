"""What the relational rounds can run exactly, and the exception that says
what they cannot.

What the rounds cannot run is decided at plan time, from the physical
plan (planner/backend_choice.py, ``spark_rounds_refusal``, which
``chronolog plan`` prints too); before any Spark work :func:`check_rules`
raises :class:`NotRelational` naming the rule, and the caller runs the
program in one Spark task with a warning (connectors/spark_paths.py).  The
other modules raise it too, for what only the inputs reveal (a term's
type, a time off the grid, a bad row).
"""

from __future__ import annotations


class NotRelational(Exception):
    """The relational path cannot run this program exactly; ``rule`` is the
    user's rule that needs what it lacks (None: the whole program).  A row
    check's refusal (spark_rounds/arithmetic.refused) also has ``kind``,
    what numbers would hold the value (engine/exprs.py; None: none), and
    ``decimals``, the run's (None: 64-bit integers): entry.py's second runs."""

    def __init__(self, why: str, rule=None, kind=None):
        super().__init__(why)
        self.why, self.rule, self.kind, self.decimals = why, rule, kind, None

    def render(self) -> str:
        from chronolog.planner.backend_choice import describe_refusal

        return describe_refusal(self.why, self.rule)


def check_rules(plan, horizon=None) -> None:
    """Raise :class:`NotRelational` for the first rule this path cannot run
    (decided at plan time: planner/backend_choice.py; ``horizon``: the
    run's, parsed, else the program's)."""
    from chronolog.planner.backend_choice import spark_rounds_refusal

    refused = spark_rounds_refusal(plan, horizon)
    if refused is not None:
        raise NotRelational(refused.why, refused.rule)


def describe(plan) -> str:
    """Where ``--spark --distributed`` runs a program with no key, as
    ``chronolog plan`` says it (planner/backend_choice.py)."""
    from chronolog.planner.backend_choice import unkeyed_spark

    return unkeyed_spark(plan).describe()
