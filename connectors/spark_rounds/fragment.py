"""What the relational rounds can run exactly, and the exception that says
what they cannot.

Checked before any Spark work (and by ``chronolog plan``, which prints the
path a program takes): a rule the rounds cannot run raises
:class:`NotRelational` naming it, and the caller runs the program in one
Spark task with a warning (connectors/spark_paths.py).  The other modules raise it too, for what only the inputs
reveal (a term's type, a time off the grid, a bad row).
"""

from __future__ import annotations

from chronolog.planner.ir import Assign, Condition, NegScan, PlanRule, Scan, SinceRule


class NotRelational(Exception):
    """The relational path cannot run this program exactly; ``rule`` is the
    user's rule that needs what it lacks (None: the whole program)."""

    def __init__(self, why: str, rule=None):
        super().__init__(why)
        self.why, self.rule = why, rule

    def render(self) -> str:
        src = getattr(self.rule, "source", None)
        if src is None:
            return self.why
        text = src.text.strip() if getattr(src, "text", None) else self.rule.describe()
        where = f" ({src.pos})" if getattr(src.pos, "line", 0) else ""
        return f"{self.why} in the rule {text}{where}"


def check_rules(plan) -> None:
    """Raise :class:`NotRelational` for the first rule this path cannot run."""
    if plan.program.calendar is not None:
        from .calendar import check_windows

        check_windows(plan)  # dates run on a microsecond grid (calendar.py)
    for r in plan.constraints:  # checked in Spark after the strata (constraints.py)
        from .constraints import check_rule

        check_rule(r)
    from .since_until import through_time

    for st in plan.strata:
        moving = [r for r in st.shifting_rules if through_time(r, st)] if st.recursive else []
        if moving:  # (but a Since/Until recursive through its left operand only: since_until.py)
            raise NotRelational("recursion through time", moving[0])
        for r in st.rules:
            if hasattr(r, "aggregates"):
                from .aggregate import check as check_aggregate

                check_aggregate(r, st)
            elif isinstance(r, SinceRule) or hasattr(r, "inner_terms") or hasattr(r, "timed"):
                pass  # (since_until.py; lit@[S,E], lit@T, p(X)@[S,E]: interval_terms.py)
            elif type(r) is not PlanRule:
                raise NotRelational("existential variables (new values)" if hasattr(r, "existentials") else "this kind of rule", r)
            for lit in r.body:  # (every time grouping runs: grouping.py)
                if isinstance(lit, (Condition, Assign)):
                    from .arithmetic import check

                    check(lit, r)  # what arithmetic.py writes exactly
                elif not isinstance(lit, (Scan, NegScan)):
                    raise NotRelational(f"the literal {lit.describe()}", r)


def describe(plan) -> str:
    """One line for ``chronolog plan``: where ``--spark --distributed``
    runs a program with no key (connectors/spark_paths.py)."""
    from chronolog.connectors.spark_paths import describe_small, refusal

    try:
        check_rules(plan)
    except NotRelational as e:
        return f"in ONE Spark task, not distributed ({refusal(e)})"
    return "seminaive rounds of DataFrame joins per stratum (the driver holds plans and counts only)" + describe_small()
