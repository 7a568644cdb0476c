"""Since and Until, as SQL on the relations' layout.

``A S_ϱ B`` holds at ``t`` when B held at some ``s`` with ``t - s ∈ ϱ`` and
A at every point of ``(s, t)``; Until is the mirror.  The columnar
executor's formulation (engine/columns/since.py), one hash join: per
maximal interval ``I`` of A, closed to ``Iᶜ``, and interval ``J`` of B
sharing its variables, ``((Iᶜ ∩ J) ⊕ ϱ) ∩ Iᶜ`` (Until: shifted by
``-ϱ``).  The planner splits ``0 ∈ ϱ`` off into a plain rule, so the
formula is exact (a SinceRule, planner/ir.py).

On the doubled grid closing is one step per end: an odd (open) start goes
down by one, an even (open) end up by one; the sentinels stay (``-2^62``
is even: ``s - (s & 1)`` leaves it).  A's relation is coalesced; a box or
a diamond on A is applied first and coalesced again (a diamond's intervals
may overlap, and ``I`` must be maximal).

Inside a recursion the step reads both operands whole, never a delta (the
join wants A's maximal intervals whole): the rounds recompute the rule
over the full relations once per round in which an operand changed
(rounds.py), as aggregation inside a recursion; Since/Until is monotone in
both operands, so what it derived before is derived again and the merge
keeps only what is new.  The planner counts every Since/Until reading its
own recursion as moving time; the rounds run those whose recursion goes
through the left operand only (planner/backend_choice.py, ``through_time``): each head fact lies
in the closure of a maximal interval of A, so the recursion holds nowhere
beyond the closure of the time the facts it reads from outside hold, and
on a bounded stretch of the grid the rounds end (should they not, past
``MAX_ROUNDS`` one task answers).
"""

from __future__ import annotations

from chronolog.engine.interval_shift import shift
from chronolog.language import ast
from chronolog.language.timeline import NEG_INF, POS_INF

from .grid import POS
from .sql import Stmt, coalesce_sql, int64, moved_sql, with_codes


def _neg(x):
    return NEG_INF if x == POS_INF else -x


def since_step(rules, q: Stmt, rule):
    """The step of ``q`` with the head facts of the SinceRule ``rule``
    (None: an operand holds nowhere); ``rules``: the run's RuleSql."""
    varcols = {}
    for lit in (rule.left, rule.right):
        for t in lit.terms:
            if isinstance(t, ast.Var) and t.name not in varcols:
                varcols[t.name] = f"v{len(varcols)}"
    right, n, _ = rules.atom(q, rule.right, {}, varcols, rule)
    left, m, _ = rules.atom(q, rule.left, {}, varcols, rule)
    if n == 0 or m == 0:
        return None
    lvars = [c for c in q.cols[left] if c not in ("s", "e")]
    if rule.left.box is not None or rule.left.shift is not None:
        left = coalesce_sql(q, left, lvars)  # maximal intervals of A after its operator
    left = q.add(f"SELECT {', '.join([*lvars, 's - (s & 1) AS cs', f'CASE WHEN e = {int64(POS)} THEN e ELSE e + 1 - (e & 1) END AS ce'])} "
                 f"FROM {left}", [*lvars, "cs", "ce"])
    rvars = [c for c in q.cols[right] if c not in ("s", "e")]
    shared = [c for c in rvars if c in lvars]
    cols = [*shared, *(c for c in rvars if c not in shared), *(c for c in lvars if c not in shared)]
    on = f"JOIN {left} AS l USING ({', '.join(shared)})" if shared else f"CROSS JOIN {left} AS l"
    j = q.add(f"SELECT {', '.join([*cols, 'greatest(s, cs) AS s', 'least(e, ce) AS e', 'cs', 'ce'])} FROM {right} AS r {on}",
              [*cols, "s", "e", "cs", "ce"])
    j = q.add(f"SELECT * FROM {j} WHERE s < e", q.cols[j])
    r1, r2, c1, c2 = rule.window
    offset = rule.window if rule.op == "S" else (_neg(r2), _neg(r1), c2, c1)
    j = with_codes(q, j, *moved_sql(shift, rules.grid.window_units(offset)))
    df = with_codes(q, j, "greatest(s, cs)", "least(e, ce)")
    df = q.add(f"SELECT {', '.join([*cols, 's', 'e'])} FROM {df}", [*cols, "s", "e"])
    return rules.head(q, df, rule, varcols)
