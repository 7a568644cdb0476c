"""Runs a plan to its least model: strata in order, each to its fixpoint.

Within a recursive stratum the evaluation is seminaive with the
non-repetition property: round 1 reads everything; every later round runs,
for each rule and each body literal whose predicate changed in the previous
round, one variant in which that literal reads only the changed maximal
intervals (the delta), the literals before it read the old facts, and the
ones after it read everything.

Constraints (``⊥`` heads) are checked once all strata are done.
"""

from __future__ import annotations

from chronolog.language import ast
from chronolog.language.errors import InconsistencyError, ProgramError
from chronolog.language.text import format_fact
from chronolog.language.timeline import EVERYWHERE, format_interval
from chronolog.planner.ir import Scan, SinceRule

from .merge import MergeNode
from .pipeline import build_rule_pipeline, build_since_pipeline
from .store import Store

_EMPTY: dict = {}


class Evaluator:
    def __init__(self, plan, store: Store = None, horizon=None, strategy: str = "blocking", max_rounds: int = 100_000):
        self.plan = plan
        self.store = store if store is not None else Store()
        self.horizon = horizon
        self.strategy = strategy
        self.max_rounds = max_rounds
        self.delta: dict = {}
        self.stats = {"rounds": 0, "derivations": 0}

    # ---------------------------------------------------------- state
    def delta_of(self, pred: str) -> dict:
        return self.delta.get(pred, _EMPTY)

    def relation_size(self, pred: str) -> int:
        rel = self.store.get(pred)
        return len(rel.atoms) if rel is not None else 0

    # ---------------------------------------------------------- running
    def run(self) -> None:
        self.plan.check_horizon(self.horizon)
        if self.plan.uses_top:
            self.store.relation("_top").add((), EVERYWHERE)
        for stratum in self.plan.strata:
            self.run_stratum(stratum)
        self.check_constraints()

    def _pipelines(self, rule, driver, delta_preds):
        if isinstance(rule, SinceRule):
            return build_since_pipeline(rule, self, driver, delta_preds, self.horizon)
        return build_rule_pipeline(rule, self, driver, delta_preds, self.horizon)

    def run_stratum(self, stratum) -> None:
        merges = {p: MergeNode(self.store.relation(p), strategy=self.strategy) for p in stratum.preds}
        self.delta = {}
        # round 1: every rule over everything
        for rule in stratum.rules:
            merges[rule.head_pred].inputs.append(self._pipelines(rule, None, frozenset()))
        delta = self._round(merges)
        if not stratum.recursive:
            return
        rounds = 1
        while delta:
            rounds += 1
            if rounds > self.max_rounds and (stratum.inventing_rules or self.horizon is None):
                rules = stratum.inventing_rules or stratum.rules
                raise ProgramError(
                    f"no fixpoint after {self.max_rounds} rounds: the recursion through "
                    + "; ".join(_rule_text(r) for r in rules[:3])
                    + " keeps creating new values",
                    _rule_pos(rules[0]),
                    hint="bound the recursion with a condition (e.g. X < 100) or raise max_rounds",
                )
            self.delta = delta
            delta_preds = frozenset(delta)
            for m in merges.values():
                m.inputs = []
            for rule in stratum.rules:
                if isinstance(rule, SinceRule):
                    if rule.right.pred in delta_preds:
                        merges[rule.head_pred].inputs.append(self._pipelines(rule, "right", delta_preds))
                    if rule.left.pred in delta_preds:
                        merges[rule.head_pred].inputs.append(self._pipelines(rule, "left", delta_preds))
                    continue
                for i, lit in enumerate(rule.body):
                    if isinstance(lit, Scan) and lit.pred in delta_preds:
                        merges[rule.head_pred].inputs.append(self._pipelines(rule, i, delta_preds))
            delta = self._round(merges)
        self.delta = {}
        self.stats["rounds"] += rounds

    def _round(self, merges) -> dict:
        for m in merges.values():
            m.pull_inputs()
        for m in merges.values():
            m.flush()
        delta = {}
        for p, m in merges.items():
            ch = m.take_changes()
            if ch:
                delta[p] = ch
        return delta

    # ---------------------------------------------------------- constraints
    def check_constraints(self) -> None:
        violations = []
        for rule in self.plan.constraints:
            pipe = self._pipelines(rule, None, frozenset())
            slots = pipe.slots
            for b, iv in pipe.child.rows():
                violations.append((rule, b, iv, slots))
                if len(violations) >= 20:
                    break
        if not violations:
            return
        lines = []
        for rule, b, iv, slots in violations[:5]:
            binding = {v: b[s] for v, s in slots.items() if not v.startswith("_")}
            facts = []
            src = rule.source
            for lit in src.body if src else []:
                for atom in ast.atoms_of(lit):
                    if all(isinstance(t, ast.Const) or t.name in binding for t in atom.terms):
                        vals = tuple(t.value if isinstance(t, ast.Const) else binding[t.name] for t in atom.terms)
                        facts.append(format_fact(atom.pred, vals, iv).split("@")[0])
            where = f" ({src.pos})" if src is not None and src.pos.line else ""
            lines.append(
                f"  {_rule_text(rule)}{where} holds on {format_interval(iv)}"
                + (f" with {', '.join(facts)}" if facts else "")
            )
        more = f"\n  … and {len(violations) - 5} more" if len(violations) > 5 else ""
        raise InconsistencyError(
            "the data violates a constraint:\n" + "\n".join(lines) + more,
            _rule_pos(violations[0][0]),
            violations=[(_rule_text(r), {v: b[s] for v, s in sl.items()}, iv) for r, b, iv, sl in violations],
        )


def _rule_text(rule) -> str:
    src = rule.source
    return src.text if src is not None and src.text else rule.describe()


def _rule_pos(rule):
    src = rule.source
    return src.pos if src is not None else None
