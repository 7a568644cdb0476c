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

Inside a recursion the join wants A's maximal intervals whole, so A is
never read as a delta: in a round in which A changed the rule is
recomputed over the full relations (rounds.py), as aggregation inside a
recursion; Since/Until is monotone in both operands, so what it derived
before is derived again and the merge keeps only what is new.  In a round
in which only B changed it is seminaive on B: B's delta (the maximal
intervals of B that are new, which hold every new point of B) against A
whole, since ``A S (B ∪ Δ) = (A S B) ∪ (A S Δ)`` point by point.

The planner counts every Since/Until reading its own recursion as moving
time; with no horizon the rounds run those whose recursion goes through
one operand only (planner/backend_choice.py, ``through_time``): each head
fact lies in the closure of a maximal interval of A, so on a bounded
stretch of the grid the rounds end (should they not, past ``MAX_ROUNDS``
one task answers).  Through B, with A outside the cycle, that stretch is
A's: where A holds without end in the direction B's facts move (to +inf
for Since, from -inf for Until) and no horizon ends it, the model may
repeat forever (``s :- a S[1,1] s``), and a row check stops the run for
one task, whose engine finds the repetition.
"""

from __future__ import annotations

from chronolog.engine.interval_codes import NEG, POS
from chronolog.engine.interval_shift import clipped, closure, shift, since_offset

from .arithmetic import stop_sql
from .sql import Stmt, codes, coalesce_sql, int64, variable_columns, with_codes


def since_step(rules, q: Stmt, rule, driver, views):
    """The step of ``q`` with the head facts of the SinceRule ``rule``
    (None: an operand holds nowhere); ``rules``: the run's RuleSql;
    ``views``: body position (0: A, 1: B) -> the Rel read instead of the
    full relation in a round of a recursion (only B's delta is read as
    one, when A lies outside the cycle; else A and B are read whole)."""
    varcols = variable_columns((rule.left, rule.right))
    # B's delta alone only while A cannot change: A outside the rule's cycle
    # (where both change in one round, the round's one variant reads B's)
    fixed = rule.left.pred not in rules.cycle(rule.head_pred)
    delta = {rule.right.pred: views[1]} if fixed and views and 1 in views and 0 not in views else {}
    right, n, _ = rules.atom(q, rule.right, delta, varcols)
    left, m, _ = rules.atom(q, rule.left, {}, varcols)
    if n == 0 or m == 0:
        return None
    lvars = [c for c in q.cols[left] if c not in ("s", "e")]
    if rule.left.box is not None or rule.left.shift is not None:
        left = coalesce_sql(q, left, lvars)  # maximal intervals of A after its operator
    cs, ce = codes(closure())
    endless = _endless(rules, rule)
    if endless is not None:
        why = stop_sql(f"the left operand {rule.left.pred} of {rule.describe()}, recursive through its right operand, "
                       f"holds without end ({'to +inf' if rule.op == 'S' else 'from -inf'}): its model may repeat forever; "
                       f"give a horizon")
        ce = f"CASE WHEN {endless} THEN {why} ELSE {ce} END"
    left = q.add(f"SELECT {', '.join([*lvars, f'{cs} AS cs', f'{ce} AS ce'])} FROM {left}", [*lvars, "cs", "ce"])
    rvars = [c for c in q.cols[right] if c not in ("s", "e")]
    shared = [c for c in rvars if c in lvars]
    cols = [*shared, *(c for c in rvars if c not in shared), *(c for c in lvars if c not in shared)]
    on = f"JOIN {left} AS l USING ({', '.join(shared)})" if shared else f"CROSS JOIN {left} AS l"
    s, e = codes(clipped())
    j = q.add(f"SELECT {', '.join([*cols, f'{s} AS s', f'{e} AS e', 'cs', 'ce'])} FROM {right} AS r {on}",
              [*cols, "s", "e", "cs", "ce"])
    j = q.add(f"SELECT * FROM {j} WHERE s < e", q.cols[j])
    j = with_codes(q, j, *codes(shift(rules.grid.window(since_offset(rule.op, rule.window)))))
    df = with_codes(q, j, s, e)
    df = q.add(f"SELECT {', '.join([*cols, 's', 'e'])} FROM {df}", [*cols, "s", "e"])
    return rules.head(q, df, rule, varcols)


def _endless(rules, rule):
    """SQL true on a row of A that holds without end in the direction the
    recursion through B moves, beyond any horizon (None: no such row can
    keep the rounds going: B outside the cycle, or the horizon ends it)."""
    if rule.right.pred not in rules.cycle(rule.head_pred):
        return None
    if rule.op == "S":
        return None if rules.horizon is not None and rules.horizon[1] < POS else f"e = {int64(POS)}"
    return None if rules.horizon is not None and rules.horizon[0] > NEG else f"s = {int64(NEG)}"
