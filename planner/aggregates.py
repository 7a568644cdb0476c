"""Aggregation in rules: ``S = msum(V, <C>)`` and friends.

After normalisation a rule with aggregates becomes an :class:`AggregateRule`:
its body is split into what comes before the aggregation (atoms, negations,
and the conditions and assignments that do not use an aggregate's result)
and what comes after (conditions and assignments on the results).  The group
is the head's variables that the body binds before the aggregation.

Stratified aggregates (``sum prod count min max avg``) need the predicates of
their body complete: they must come from lower strata.  Monotonic ones
(``msum mprod mcount mmin mmax munion``) may read their own head's
predicates (recursion), since their value at a time point only grows as the
recursion adds bindings (for ``msum``/``mprod`` this needs values >= 0 and
>= 1 respectively, as in Vadalog; the user's data decides).
"""

from __future__ import annotations

from chronolog.language import ast
from chronolog.language.builtins import FOLDS, STRATIFIED_AGGREGATES
from chronolog.language.errors import ProgramError

from .ir import Assign, Condition, NegScan, PlanRule, Scan
from .normalize import spelled


class AggregateRule(PlanRule):
    """A :class:`PlanRule` whose body ends in an aggregation.

    ``body`` holds the literals before the aggregation; ``aggregates`` is
    ``[(var, ast.Aggregate)]``; ``after`` the conditions/assignments on the
    results; ``group`` the head variables that form the group.
    """

    def __init__(self, base: PlanRule, before, aggregates, after, group):
        super().__init__(base.head_pred, base.head_terms, before, base.head_shift, base.source, base.fresh)
        self.aggregates = aggregates
        self.after = after
        self.group = group

    @property
    def nonmonotonic(self) -> bool:
        return any(a.func in STRATIFIED_AGGREGATES for _, a in self.aggregates)

    def describe(self) -> str:
        base = super().describe()
        aggs = ", ".join(f"{v} = {a}" for v, a in self.aggregates)
        after = "".join(", " + l.describe() for l in self.after)
        return f"{base}, {aggs}{after}"





def exact_means(rule) -> dict:
    """``{variable: {(head predicate, argument)}}`` of the averages of the
    AggregateRule ``rule``, each with the head's arguments it is written
    into (none, when only a literal after the aggregate reads it).  Spark's
    rounds hold a mean of exact numbers as the key text of its exact value
    (connectors/spark_rounds/fractions.py), which their one number type
    need not hold (``avg`` of 1 and 2 is 3/2), and compare and compute on
    it exactly there."""
    out = {}
    for v, a in rule.aggregates:
        if FOLDS[a.func] == "avg":
            out[v] = {(rule.head_pred, i) for i, t in enumerate(rule.head_terms) if t == ast.Var(v)}
    return out


def valued(aggregates) -> tuple:
    """``(assignments, aggregates)`` of an aggregation's ``aggregates``
    (``[(var, ast.Aggregate)]``): each aggregated expression other than a
    variable (``sum(X * Y)``) an :class:`Assign` to a fresh variable
    ``$valueK``, computed after the body (whose positions stay its own),
    and the aggregate reading that variable.  A binding's value is a
    function of the binding, so the distinct bindings, hence the aggregate,
    are the rows'.  The columns and the Spark rounds evaluate it so, as any
    assignment of a body (their kernels or the rows' closures; SQL), and
    fold a variable's column."""
    from dataclasses import replace  # (here: dataclasses is not on a small run's path, tests/test_start_up.py)

    assignments, out = [], []
    for k, (v, a) in enumerate(aggregates):
        if a.expr is not None and not isinstance(a.expr, ast.Var):
            assignments.append(Assign(f"$value{k}", a.expr))
            a = replace(a, expr=ast.Var(f"$value{k}"))
        out.append((v, a))
    return tuple(assignments), out


def _vars(lit) -> set:
    if isinstance(lit, (Scan, NegScan)):
        return {t.name for t in lit.terms if isinstance(t, ast.Var)}
    if isinstance(lit, Condition):
        return ast.variables_of(lit.comparison)
    if isinstance(lit, Assign):
        return ast.variables_of(lit.expr)
    return set()


def _error(msg, rule, hint=""):
    src = rule.source
    return ProgramError(msg, src.pos if src is not None else None, hint=hint, source_line=src.text if src else "")


def lift_aggregates(rules) -> list:
    """Turn every normalised rule with an aggregate into an AggregateRule."""
    out = []
    for rule in rules:
        body = getattr(rule, "body", None)
        if not isinstance(rule, PlanRule) or not any(
            isinstance(l, Assign) and isinstance(l.expr, ast.Aggregate) for l in body
        ):
            out.append(rule)
            continue
        if rule.head_pred is None:
            raise _error("a constraint (⊥) cannot aggregate", rule, "derive the aggregate in its own rule first")
        aggregates = [(l.var, l.expr) for l in body if isinstance(l, Assign) and isinstance(l.expr, ast.Aggregate)]
        late = {v for v, _ in aggregates}
        grew = True
        while grew:  # assignments computed from the results are late too
            grew = False
            for lit in body:
                if isinstance(lit, Assign) and lit.var not in late and _vars(lit) & late:
                    late.add(lit.var)
                    grew = True
        before, after = [], []
        for lit in body:
            if isinstance(lit, Assign) and isinstance(lit.expr, ast.Aggregate):
                continue
            if _vars(lit) & late:
                if isinstance(lit, (Scan, NegScan)):
                    raise _error(
                        f"the result of an aggregate ({', '.join(sorted(_vars(lit) & late))}) cannot be used in an atom of the same rule",
                        rule,
                        "derive the aggregate into its own predicate and join with that in another rule",
                    )
                after.append(lit)
            else:
                before.append(lit)
        after = [l for l in after if isinstance(l, Assign)] + [l for l in after if not isinstance(l, Assign)]
        head_vars = [t.name for t in rule.head_terms if isinstance(t, ast.Var)]
        group = []
        for v in head_vars:
            if v not in late and v not in group:
                group.append(v)
        available = set(group) | late
        for lit in after:
            missing = _vars(lit) - available
            if missing:
                raise _error(
                    f"after the aggregation only the group ({', '.join(group) or 'none'}) and the results are known, "
                    f"not {', '.join(sorted(missing))}",
                    rule,
                    "put the variable in the head to group by it, or compute it before the aggregate",
                )
        for v, a in aggregates:
            for c in a.contributors:
                if isinstance(c, ast.Var) and c.name in late:
                    raise _error(f"the contributor {c.name} of {a} is itself an aggregate result", rule)
        out.append(AggregateRule(rule, before, aggregates, after, group))
    return out


def check_aggregate_strata(strata, meanings=None) -> None:
    """Stratified aggregates need their body complete before they run.

    ``max`` and ``min`` inside recursion are the exception: they run as
    ``mmax`` and ``mmin``, as in Vadalog (whose published benchmark programs
    use them so), with a note, since intermediate values remain as facts.
    ``sum``, ``count``, ``prod`` and ``avg`` have no monotonic reading."""
    for st in strata:
        for rule in st.rules:
            if isinstance(rule, AggregateRule) and rule.nonmonotonic:
                inside = sorted({spelled(l.pred, meanings or {}) for l in rule.body
                                 if isinstance(l, (Scan, NegScan)) and l.pred in st.preds})
                if inside and all(a.func in ("max", "min") for _, a in rule.aggregates if a.func in STRATIFIED_AGGREGATES):
                    _as_monotonic(rule, inside)
                    continue
                if inside:
                    funcs = ", ".join(sorted({a.func for _, a in rule.aggregates if a.func in STRATIFIED_AGGREGATES}))
                    raise _error(
                        f"{funcs} aggregates over {', '.join(inside)}, which depends on this rule's own head {rule.head_pred}",
                        rule,
                        "a stratified aggregate needs its body complete; inside recursion use the monotonic "
                        "msum, mprod, mcount, mmin, mmax or munion",
                    )


def _as_monotonic(rule, inside) -> None:
    import dataclasses
    import warnings

    from chronolog.language.errors import Note

    names = []
    for i, (v, a) in enumerate(rule.aggregates):
        if a.func in ("max", "min"):
            names.append(f"{a.func} as m{a.func}")
            rule.aggregates[i] = (v, dataclasses.replace(a, func="m" + a.func))
    src = rule.source
    where = f"{src.pos}: " if src is not None and src.pos.line else ""
    warnings.warn(Note(
        f"{where}{', '.join(names)}: the aggregate reads {', '.join(inside)}, which depends on its own head "
        f"{rule.head_pred}, so it runs as the monotonic form (as in Vadalog); intermediate values remain as facts "
        "beside the final one (write the m-form to say so and silence this note)"
    ), stacklevel=2)
