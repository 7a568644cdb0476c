"""What the relational rounds can run exactly, and the exception that says
what they cannot.

Checked before any Spark work (and by ``chronolog plan``, which prints the
path a program takes): a rule the rounds cannot run raises
:class:`NotRelational` naming it, and the caller runs the program in one
Spark task with a warning (connectors/spark_paths.py).  The other modules raise it too, for what only the inputs
reveal (a term's type, a time off the grid, a bad row).
"""

from __future__ import annotations


class NotRelational(Exception):
    """The relational path cannot run this program exactly; ``rule`` is the
    user's rule that needs what it lacks (None: the whole program)."""

    def __init__(self, why: str, rule=None):
        super().__init__(why)
        self.why, self.rule = why, rule

    def render(self) -> str:
        from chronolog.planner.backend_choice import describe_refusal

        return describe_refusal(self.why, self.rule)


def check_rules(plan) -> None:
    """Raise :class:`NotRelational` for the first rule this path cannot run
    (decided at plan time: planner/backend_choice.py)."""
    from chronolog.planner.backend_choice import spark_rounds_refusal

    refused = spark_rounds_refusal(plan)
    if refused is not None:
        raise NotRelational(refused.why, refused.rule)


def describe(plan) -> str:
    """One line for ``chronolog plan``: where ``--spark --distributed``
    runs a program with no key (connectors/spark_paths.py)."""
    from chronolog.connectors.spark_paths import describe_small, refusal

    try:
        check_rules(plan)
    except NotRelational as e:
        return f"in ONE Spark task, not distributed ({refusal(e)})"
    return "seminaive rounds of DataFrame joins per stratum (the driver holds plans and counts only)" + describe_small()
