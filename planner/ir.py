"""The planner's intermediate form: normalised rules the engine can run.

After normalisation every body literal is one of a handful of shapes, each
run by one kind of engine node:

* :class:`Scan` — an atom whose maximal intervals go through at most one box
  and then at most one shift (TemporalNode), joined with what is bound so far
  (TemporalJoinNode, intersection);
* :class:`NegScan` — ``not`` an atom of a lower stratum (difference);
* :class:`Condition` / :class:`Assign` — comparisons and arithmetic (linear);
* a rule whose body is exactly one ``A S B`` / ``A U B`` is a
  :class:`SinceRule` (ClosingNode + the Since/Until join).

Deeper nesting is flattened into fresh predicates named ``$t1``, ``$t2``, …
(a box applied to a diamond needs the MergeNode in between, which a fresh
predicate provides).
"""

from __future__ import annotations

from chronolog.language import ast
from chronolog.language.records import copied, field, record


@record(frozen=True)
class Scan:
    pred: str
    terms: tuple  # ast.Var | ast.Const
    box: tuple | None = None  # generic box window B<w1,w2>, applied first
    shift: tuple | None = None  # generic shift D<d1,d2>, applied after the box
    origin: object = None  # the ast literal it came from
    group: object = None  # a time_grouping.Grouping, applied last (only in a fresh rule's single scan)

    def describe(self) -> str:
        s = str(ast.Atom(self.pred, self.terms))
        if self.box is not None:
            s = f"B{_w(self.box)} {s}"
        if self.shift is not None:
            s = f"D{_w(self.shift)} {s}"
        if self.group is not None:
            s = f"{self.group.describe()} {s}"
        return s


@record(frozen=True)
class NegScan:
    pred: str
    terms: tuple
    origin: object = None

    def describe(self) -> str:
        return f"not {ast.Atom(self.pred, self.terms)}"


@record(frozen=True)
class Condition:
    comparison: ast.Comparison

    def describe(self) -> str:
        return str(self.comparison)


@record(frozen=True)
class Assign:
    var: str
    expr: object  # ast expression

    def describe(self) -> str:
        return f"{self.var} = {self.expr}"


@record
class PlanRule:
    """``head_pred(head_terms) shifted by head_shift :- body``.

    ``head_pred`` is ``None`` for a constraint (``⊥``).  ``source`` is the
    user's rule this one came from (fresh rules point at the rule that needed
    them), for messages and explanations.
    """

    head_pred: str | None
    head_terms: tuple
    body: list
    head_shift: tuple | None = None
    source: ast.Rule | None = None
    fresh: bool = False

    def positive(self) -> list:
        return [lit for lit in self.body if isinstance(lit, Scan)]

    def replaced(self, **changes) -> "PlanRule":
        """A copy with other ``body``/``head_shift`` (``dataclasses.replace``
        builds through ``__init__``, which the rules of aggregates, interval
        terms and existentials take other arguments for)."""
        out = copied(self)
        for name, value in changes.items():
            setattr(out, name, value)
        return out

    def describe(self) -> str:
        head = "⊥" if self.head_pred is None else str(ast.Atom(self.head_pred, self.head_terms))
        if self.head_shift is not None:
            head = f"D{_w(self.head_shift)} {head}"
        return f"{head} :- {', '.join(l.describe() for l in self.body)}"


def variable_order(rule) -> dict:
    """Each variable of ``rule`` by where it first occurs: its body's
    literals in order (an aggregate's conditions after it too), then its
    head (a proof shows a step's values so, whatever order a join bound
    them in)."""
    order: dict = {}
    for lit in (*rule.body, *getattr(rule, "after", ()), None):
        terms = rule.head_terms if lit is None else getattr(lit, "terms", ())
        for t in (*terms, *((ast.Var(lit.var),) if isinstance(lit, Assign) else ())):
            if isinstance(t, ast.Var):
                order.setdefault(t.name, len(order))
    return order


@record
class SinceRule:
    """``head(terms) :- left S_window right`` (op "S") or the Until mirror.

    The window never contains 0 (normalisation splits that case off into a
    plain rule ``head :- right``).  ``Top`` operands scan the predicate
    ``$top``, which holds everywhere.
    """

    head_pred: str
    head_terms: tuple
    op: str
    window: tuple
    left: Scan
    right: Scan
    source: ast.Rule | None = None
    fresh: bool = True
    head_shift: tuple | None = None

    @property
    def body(self) -> list:
        return [self.left, self.right]

    def positive(self) -> list:
        return self.body

    def describe(self) -> str:
        left = self.left.describe()
        return f"{ast.Atom(self.head_pred, self.head_terms)} :- {left} <{self.op}>{_w(self.window)} {self.right.describe()}"


@record
class Stratum:
    """One strongly connected component of the predicate graph (or a single
    predicate), evaluated to its fixpoint before the next one starts."""

    index: int
    preds: set
    rules: list
    recursive: bool
    shifting_rules: list = field(default_factory=list)  # rules that move time inside the cycle
    inventing_rules: list = field(default_factory=list)  # rules that create values inside the cycle
    reads: set = field(default_factory=set)  # predicates its rules read

    def ends_by_itself(self) -> bool:
        """Whether its recursion reaches a fixpoint whatever the data: plain
        rules that neither move time nor make values (no aggregate, interval
        term or existential) derive only atoms of the values given, at time
        points where the facts they come from hold; no cap on its rounds
        applies (a chain of 400,000 edges takes 400,000 rounds)."""
        return not self.shifting_rules and not self.inventing_rules and all(type(r) in (PlanRule, SinceRule) for r in self.rules)


def _w(iv) -> str:
    from chronolog.language.timeline import format_interval

    return format_interval(iv)
