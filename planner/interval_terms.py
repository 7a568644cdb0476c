"""Interval terms: time as data and back (temporal unwrapping and wrapping).

* In a body, ``lit@[S,E]`` holds at ``t`` when ``lit`` holds at ``t``, with
  ``S`` and ``E`` the start and end of the maximal interval of ``lit`` that
  contains ``t``.  The planner reads ``lit``'s maximal intervals (a fresh
  predicate when ``lit`` has operators, so a MergeNode coalesces it first)
  through a :class:`WrapRule` into a fresh predicate ``$iN(vars, S, E)``
  that holds on the same intervals, and the user's rule scans that.
  Maximal intervals are only final once ``lit``'s predicate is complete, so
  it must come from a lower stratum (like ``not``).
* As a head, ``p(X)@[S,E]`` (or ``@[S,E)``, ``@(S,E]``, ``@(S,E)``) puts
  ``p(X)`` on the interval with those ends for every binding of the body,
  whatever time the body holds at (:class:`TimedHeadRule`).  An empty
  interval (S > E) gives no fact.
"""

from __future__ import annotations

from chronolog.language import ast
from chronolog.language.errors import ProgramError

from .ir import PlanRule, Scan


class WrapRule(PlanRule):
    """``$iN(vars, start, end) :- scan``, on the scan's maximal intervals."""

    nonmonotonic = True

    def __init__(self, name, scan: Scan, variables, source, capture=False, lit=None):
        terms = tuple(ast.Var(v) for v in variables)
        ends = (ast.Var("$time"),) if capture else (ast.Var("$start"), ast.Var("$end"))
        super().__init__(name, terms + ends, [scan], None, source, True)
        self.inner_terms = terms
        self.capture, self.lit = capture, lit

    def describe(self) -> str:
        if self.capture:
            return f"{ast.Atom(self.head_pred, self.inner_terms)} + its time point :- {self.body[0].describe()}"
        return f"{ast.Atom(self.head_pred, self.inner_terms)} + its interval's ends :- {self.body[0].describe()}"



class TimedHeadRule(PlanRule):
    """``p(terms)@[S,E] :- body``: the head's interval comes from terms."""

    def __init__(self, base: PlanRule, timed: ast.Timed):
        super().__init__(base.head_pred, base.head_terms, base.body, base.head_shift, base.source, base.fresh)
        self.timed = timed

    def describe(self) -> str:
        t = self.timed
        iv = f"{'[' if t.start_closed else '('}{t.start},{t.end}{']' if t.end_closed else ')'}"
        return super().describe().replace(" :- ", f"@{iv} :- ", 1)



def unwrap(normalizer, lit: ast.Timed, rule) -> Scan:
    """The IR for a body literal ``lit@[S,E]`` (adds a WrapRule)."""
    scan = normalizer.plain_scan(lit.inner, rule)
    if scan is None:  # Bottom never holds
        from .normalize import _Impossible

        raise _Impossible()
    variables = []
    for t in scan.terms:
        if isinstance(t, ast.Var) and t.name not in variables:
            variables.append(t.name)
    name = normalizer._fresh("i")
    capture = lit.end is None  # lit@T: time capture
    normalizer.rules.append(WrapRule(name, scan, variables, rule, capture, lit))
    terms = tuple(ast.Var(v) for v in variables) + ((lit.start,) if capture else (lit.start, lit.end))
    # (a proof shows p(a)@[S,E], its ends named, not p(a)@[1,5]: the interval may be open at either end)
    shown = terms if capture else terms[:-2] + (ast.Var("$start"), ast.Var("$end"))
    normalizer.meanings[name] = (shown, lit)
    return Scan(name, terms, origin=lit)


def place_head(plan_rule: PlanRule, timed: ast.Timed) -> TimedHeadRule:
    if plan_rule.head_shift is not None:  # pragma: no cover - the grammar has no such head
        raise ProgramError("a head with an interval from terms cannot also have a box", timed.pos)
    return TimedHeadRule(plan_rule, timed)


def check_interval_strata(strata) -> None:
    """``lit@[S,E]`` needs lit's maximal intervals final: a lower stratum."""
    for st in strata:
        for rule in st.rules:
            if isinstance(rule, WrapRule) and rule.body[0].pred in st.preds:
                src = rule.source
                shown = rule.body[0].pred
                origin = rule.body[0].origin
                if origin is not None and not shown.startswith("$"):
                    shown = str(origin)
                what = f"the time of {shown} is captured with @T" if rule.capture else f"the interval of {shown} is bound with @[S,E]"
                raise ProgramError(
                    f"{what} inside a recursion through it",
                    src.pos if src is not None else None,
                    hint="a maximal interval is only known once its predicate is complete: "
                    "bind interval ends (or capture times) only of predicates from lower strata",
                    source_line=src.text if src is not None else "",
                )
