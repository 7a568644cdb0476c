"""The physical plan: what each stratum does, as typed operator values.

The planner lowers its IR (planner/ir.py and the rule kinds beside it)
into this value ONCE, in :func:`lower`; it is the only place that looks at
what kind a rule is.  The executors and ``chronolog plan`` read the
operators: a backend dispatches on the operator's type (one table from
type to function), and planner/backend_choice.py decides from them which
backend runs each stratum.

A rule becomes a tree whose root is an :class:`Output` (the head's
columns, shift and horizon clip) over one rule operator: a :class:`Body`
(a conjunction: interval joins of atoms, differences, filters and
assignments), a :class:`SinceUntil`, an :class:`Aggregate` per time
segment, a :class:`WrapInterval` or :class:`CaptureTime` (time as data),
a :class:`PlaceInterval` (a head placed by interval terms) or a
:class:`ChaseStep` (existential values).  A stratum's outputs meet in one
:class:`Coalesce` per predicate (merge to maximal intervals).  Every
operator has its output schema (:class:`Column`s, with the term type where
the program says it); a recursive stratum lists each rule's seminaive
delta variants (:class:`DeltaVariant`).

A :class:`Body`'s steps stay aligned with the IR body's positions: the
backends order the joins at run time by relation sizes (the plan prints
the order of the program text, bound variables first).
"""

from __future__ import annotations

from chronolog.language import ast
from chronolog.language.records import field, record

from .closure import closure
from .ir import Assign as IRAssign
from .ir import Condition, NegScan, PlanRule, Scan as IRScan, SinceRule

FULL, DELTA, OLD = "full", "delta", "old"

# term types of a schema's columns ("term": whatever the data brings)
TERM, NUMBER, INTEGER, SET, TIME, STRING, BOOLEAN = "term", "number", "integer", "set", "time", "string", "boolean"


@record(frozen=True)
class Column:
    name: str
    type: str = TERM

    def __str__(self) -> str:
        return self.name if self.type == TERM else f"{self.name}:{self.type}"


class Operator:
    """An operator of the plan: its inputs, a one-line label, its schema
    (the term columns; every row also carries its interval)."""

    schema: tuple = ()

    def children(self) -> tuple:
        return ()

    def label(self) -> str:  # pragma: no cover - every operator says
        raise NotImplementedError


class Unary(Operator):
    """An operator over one input, its field ``input``."""

    def children(self) -> tuple:
        return (self.input,)


# ------------------------------------------------------------------ atoms
@record(frozen=True)
class Scan(Operator):
    """A relation's coalesced facts, constants and repeated variables
    filtered; ``view``: full, or for a seminaive variant its delta or old facts."""

    pred: str
    terms: tuple
    schema: tuple
    view: str = FULL

    def label(self) -> str:
        return f"Scan[{self.view}] {ast.Atom(self.pred, self.terms)}"


@record(frozen=True)
class TemporalShift(Unary):
    """A box (``[-]``/``[+]``: shrink each interval) then a shift
    (diamonds: widen and move it), on the input's maximal intervals."""

    input: Operator
    box: tuple | None
    shift: tuple | None

    @property
    def schema(self) -> tuple:
        return self.input.schema

    def label(self) -> str:
        parts = []
        if self.box is not None:
            parts.append(f"box{_w(self.box)}")
        if self.shift is not None:
            parts.append(f"shift{_w(self.shift)}")
        return f"Temporal {', '.join(parts)}"


@record(frozen=True)
class TimeGroup(Unary):
    """Time grouping (``/\\[3 months] p``): each interval widened to the periods it meets."""

    input: Operator
    grouping: object  # language.time_grouping.Grouping

    @property
    def schema(self) -> tuple:
        return self.input.schema

    def label(self) -> str:
        return f"TimeGroup {self.grouping.describe()}"


# ------------------------------------------------------------------ body steps
@record(frozen=True)
class IntervalJoin(Operator):
    """A positive atom joined with the bindings so far: equal shared
    variables, the intersection of the intervals (the first atom starts them)."""

    atom: Operator  # Scan, maybe under TemporalShift / TimeGroup
    on: tuple  # shared variables with the literals before it in the printed order

    @property
    def schema(self) -> tuple:
        return self.atom.schema

    def children(self) -> tuple:
        return (self.atom,)

    def label(self) -> str:
        return f"IntervalJoin on ({', '.join(self.on)})" if self.on else "IntervalJoin (cross)"


@record(frozen=True)
class Difference(Operator):
    """``not p(...)``: each binding's intervals minus where p holds (p from a lower stratum)."""

    negated: Scan
    on: tuple

    def children(self) -> tuple:
        return (self.negated,)

    def label(self) -> str:
        return f"Difference not {ast.Atom(self.negated.pred, self.negated.terms)}"


@record(frozen=True)
class Filter(Operator):
    """A comparison of bound terms (exact arithmetic)."""

    comparison: ast.Comparison

    def label(self) -> str:
        return f"Filter {self.comparison}"


@record(frozen=True)
class Assign(Operator):
    """A new column computed from bound terms (a test when ``var`` is bound already)."""

    var: str
    expr: object
    type: str = TERM

    @property
    def schema(self) -> tuple:
        return (Column(self.var, self.type),)

    def label(self) -> str:
        return f"Assign {self.var} = {self.expr}"


@record(frozen=True)
class Body(Operator):
    """A conjunction; ``steps[i]`` runs the IR body's literal ``i``;
    ``order``: the positions in the order the plan prints them."""

    steps: tuple
    order: tuple
    schema: tuple

    def label(self) -> str:
        return "Body"


# ------------------------------------------------------------------ rule operators
@record(frozen=True)
class SinceUntil(Operator):
    """``left S[a,b] right`` (or U): right at some s in the window from t,
    left throughout between; operands are plain atoms."""

    op: str
    window: tuple
    left: Scan
    right: Scan
    schema: tuple

    def children(self) -> tuple:
        return (self.left, self.right)

    def label(self) -> str:
        return f"{'Since' if self.op == 'S' else 'Until'}{_w(self.window)}"


@record(frozen=True)
class Aggregate(Unary):
    """Per group and per time segment, the aggregates over the distinct
    bindings holding there; then ``after`` (filters and assignments on the results)."""

    input: Body
    group: tuple
    aggregates: tuple  # ((var, ast.Aggregate), ...)
    after: tuple  # Filter / Assign steps
    schema: tuple

    def label(self) -> str:
        aggs = ", ".join(f"{v} = {a}" for v, a in self.aggregates)
        after = "".join(f"; {s.label()}" for s in self.after)
        by = f"by ({', '.join(self.group)})" if self.group else "(no group)"
        return f"Aggregate {aggs} {by} per time segment{after}"


@record(frozen=True)
class WrapInterval(Unary):
    """``lit@[S,E]``: each maximal interval's ends appended as terms."""

    input: Body
    start: str
    end: str
    schema: tuple

    def label(self) -> str:
        return f"WrapInterval: the maximal interval's ends as {self.start}, {self.end}"


@record(frozen=True)
class CaptureTime(Unary):
    """``lit@T``: one row per integer time point of the interval, the point appended."""

    input: Body
    var: str
    schema: tuple

    def label(self) -> str:
        return f"CaptureTime: each integer time point as {self.var}"


@record(frozen=True)
class PlaceInterval(Unary):
    """``p(X)@[S,E] :- body``: the head's interval from terms, whatever time the body holds at."""

    input: Body
    timed: object  # ast.Timed
    schema: tuple

    def label(self) -> str:
        t = self.timed
        iv = f"{'[' if t.start_closed else '('}{t.start},{t.end}{']' if t.end_closed else ')'}"
        return f"PlaceInterval {iv}"


@record(frozen=True)
class ChaseStep(Unary):
    """A restricted chase step: a labelled null for each existential
    variable, where no fact names a value already."""

    input: Body
    existentials: tuple
    schema: tuple

    def label(self) -> str:
        return f"ChaseStep (new nulls for {', '.join(self.existentials)}, at each fixpoint of the rest of its stratum)"


@record(frozen=True)
class Output(Unary):
    """The head's terms (``pred`` None: a constraint's violations), shifted
    by a head box, clipped to the horizon unless the predicate is fresh."""

    input: Operator
    pred: str | None
    terms: tuple
    shift: tuple | None
    clip: bool
    schema: tuple

    def label(self) -> str:
        head = "⊥" if self.pred is None else str(ast.Atom(self.pred, self.terms))
        s = f"Output {head}"
        if self.shift is not None:
            s += f" shifted by {_w(self.shift)}"
        return s + ("" if self.clip else " (not clipped: fresh)")


@record(frozen=True)
class Coalesce(Operator):
    """A stratum's relation: its rules' outputs merged to maximal intervals."""

    pred: str
    inputs: tuple  # Output
    schema: tuple

    def children(self) -> tuple:
        return self.inputs

    def label(self) -> str:
        return f"Coalesce {self.pred}"


# ------------------------------------------------------------------ plan values
@record(frozen=True)
class DeltaVariant:
    """A seminaive variant: body position ``position`` reads ``pred``'s
    delta, the positions in ``old`` read the facts before it (no
    derivation twice).  A backend that recomputes an operator over the full
    relations (an aggregate) runs only the first variant of its rule."""

    position: int
    pred: str
    old: tuple

    def describe(self) -> str:
        old = f", old {', '.join(str(p) for p in self.old)}" if self.old else ""
        return f"Δ{self.pred} at {self.position}{old}"


@record(frozen=True)
class RulePlan:
    rule: object  # the IR rule (messages, explanations, the row executor)
    root: Output
    variants: tuple = ()

    @property
    def operator(self) -> Operator:
        """The rule operator under the Output."""
        return self.root.input


@record
class StratumPlan:
    index: int
    preds: tuple
    recursive: bool
    rules: tuple  # RulePlan
    coalesce: tuple  # Coalesce, one per predicate
    stratum: object = field(repr=False, default=None)  # the IR Stratum
    # a transitive closure (planner/closure.py): the same stratum with its
    # recursive rule doubled, for a backend whose rounds cost more than their joins
    doubled: StratumPlan | None = field(repr=False, default=None)
    # a dependency level's strata run as one (:func:`level_plan`); empty: a stratum
    parts: tuple = field(repr=False, default=())
    _variants: dict = field(repr=False, compare=False, default_factory=dict)
    _readers: dict = field(repr=False, compare=False, default_factory=dict)  # pred -> the rules (by index) reading it
    _merges: dict = field(repr=False, compare=False, default_factory=dict)  # pred -> its Coalesce (merge_of)

    def recursion(self, deltas: dict) -> dict:
        """What a round's new facts (``deltas``) give the next round: all
        of them in a recursive stratum (its rules read every predicate of
        its cycle), none in a non-recursive one; in a level, those of its
        recursive strata (no stratum of a level reads another's)."""
        if not self.parts:
            return deltas if self.recursive else {}
        looping = {p for st in self.parts if st.recursive for p in st.preds}
        return {p: d for p, d in deltas.items() if p in looping}

    def merge_of(self, pred: str):
        """The Coalesce that merges ``pred``'s rules (None: no rule of the stratum derives it)."""
        if not self._merges:  # (by a dict made once: a search each, per predicate and round, was quadratic)
            self._merges.update((c.pred, c) for c in reversed(self.coalesce))
        return self._merges.get(pred)

    def operators(self):
        """Every operator of the stratum, each rule's tree top-down."""
        for rp in self.rules:
            yield from walk(rp.root)

    def delta_variants(self, changed: frozenset, recomputed: tuple = ()) -> tuple:
        """``(RulePlan, DeltaVariant)`` of a round after predicates
        ``changed``: per rule, a variant per atom of a changed predicate;
        one per rule whose operator is of a type in ``recomputed`` (the
        backend runs it over the full relations).  Remembered per argument:
        a recursion through time asks for the same ones round after round."""
        key = (changed, recomputed)
        found = self._variants.get(key)
        if found is None:
            if not self._readers:  # (only the rules that read a changed predicate: a cycle of 2,000 rules changes one a round)
                for n, rp in enumerate(self.rules):
                    for _, pred in positive_atoms(rp.operator):
                        self._readers.setdefault(pred, set()).add(n)
            found = []
            for rp in (self.rules[n] for n in sorted(set().union(*(self._readers.get(p, ()) for p in changed)))):
                variants = delta_variants(rp.operator, changed)
                if variants and isinstance(rp.operator, recomputed):
                    variants = variants[:1]
                found.extend((rp, v) for v in variants)
            found = self._variants[key] = tuple(found)
        return found


class PhysicalPlan:
    """The physical plan of a planner Plan: its constraints' rule plans and
    its strata's, each stratum lowered when first asked for (a batch of
    strata of one shape, planner/same_shape.py, runs as its tagged rule:
    10,000 one-rule strata, each lowered, cost a fifth of their run)."""

    def __init__(self, plan):
        self._ir = {st.index: st for st in plan.strata}
        self._lowered: dict = {}  # stratum index -> StratumPlan
        self.constraints = tuple(rule_plan(r) for r in plan.constraints)  # RulePlan of each (checked after the strata)

    @property
    def strata(self) -> tuple:
        from chronolog.language import allocators

        with allocators.settled():  # (a command: the plan lives to its end, out of the collector's walks)
            return tuple(self.stratum(i) for i in self._ir)

    def stratum(self, index: int) -> StratumPlan:
        found = self._lowered.get(index)
        if found is None:
            found = self._lowered[index] = lower_stratum(self._ir[index])
        return found

    @property
    def levels(self) -> tuple:
        """The strata's indexes by dependency level (:func:`dependency_levels`)."""
        found = self.__dict__.get("_levels")
        if found is None:
            found = self.__dict__["_levels"] = dependency_levels(self._ir.values())
        return found

    def of(self, stratum) -> StratumPlan | None:
        """The plan of IR ``stratum`` when it is one of the plan's strata, else None."""
        return self.stratum(stratum.index) if self._ir.get(stratum.index) is stratum else None


def walk(op: Operator):
    """``op`` and every operator under it, a body's steps and an aggregate's
    steps after it included."""
    yield op
    if isinstance(op, Body):
        for i in op.order:
            yield from walk(op.steps[i])
        return
    for c in op.children():
        yield from walk(c)
    for s in getattr(op, "after", ()):
        yield from walk(s)


# ------------------------------------------------------------------ lowering
def lower(plan) -> PhysicalPlan:
    """The physical plan of a planner Plan (planner/__init__.py)."""
    return PhysicalPlan(plan)


def lower_stratum(st) -> StratumPlan:
    """The physical plan of one IR stratum (and of its doubled form, when it is a transitive closure)."""
    rules = tuple(rule_plan(r, st) for r in st.rules)
    preds = tuple(sorted(st.preds))
    by_head: dict = {}  # (each predicate's rules, found once: 2,000 predicates each scanning 2,000 rules cost 0.14 s)
    for rp in rules:
        by_head.setdefault(rp.rule.head_pred, []).append(rp)
    merge = tuple(
        Coalesce(p, tuple(rp.root for rp in by_head.get(p, ())), _head_schema(p, by_head.get(p, ()))) for p in preds
    )
    tc = closure(st) if st.recursive else None
    return StratumPlan(st.index, preds, st.recursive, rules, merge, st, lower_stratum(tc.doubled) if tc else None)


def dependency_levels(strata) -> tuple:
    """IR ``strata`` (in evaluation order) grouped by dependency level, as
    tuples of stratum indexes: a stratum's level is 1 + the highest level of
    the strata whose predicates it reads (0: it reads given facts only).
    No stratum of a level reads another's predicates, directly or through
    others, so a backend whose rounds cost more than their joins (Spark's)
    runs a level's strata as one (:func:`level_plan`); what a stratum
    negates or aggregates lies in a lower level, as it lay in an earlier
    stratum.  A stratum with existential rules lies above every earlier
    one with them: the engine numbers nulls stratum after stratum (every
    firing of one before the next's), and a level's firings would
    interleave them."""
    level_of: dict = {}  # predicate -> the level of the stratum deriving it
    levels: list = []
    chase_floor = 0  # the lowest level a stratum with existential rules may take
    for st in strata:
        reads = {lit.pred for r in st.rules for lit in r.body if isinstance(lit, (IRScan, NegScan))}
        level = 1 + max((level_of[p] for p in reads if p in level_of and p not in st.preds), default=-1)
        if any(getattr(r, "existentials", None) for r in st.rules):  # (a PlanRule of an aggregate has none)
            level = max(level, chase_floor)
            chase_floor = level + 1
        level_of.update(dict.fromkeys(st.preds, level))
        if level == len(levels):
            levels.append([])
        levels[level].append(st.index)
    return tuple(map(tuple, levels))


def level_plan(parts) -> StratumPlan:
    """One plan for strata of one dependency level (``parts``, each in the
    form it runs in): their rules, predicates and merges together, so one
    seminaive loop runs them all.  Its round 1 runs every rule; a later
    round the variants of what changed, which are each recursive stratum's
    own (their predicates are disjoint and no stratum reads another's), so
    the loop over the union is each one's loop (:meth:`StratumPlan.recursion`
    drops the non-recursive strata's new facts)."""
    if len(parts) == 1:
        return parts[0]
    return StratumPlan(parts[0].index, tuple(p for st in parts for p in st.preds), any(st.recursive for st in parts),
                       tuple(rp for st in parts for rp in st.rules), tuple(c for st in parts for c in st.coalesce),
                       parts=tuple(parts))


def stratum_plan(plan, stratum) -> StratumPlan:
    """The physical plan of ``stratum``: the plan's own when the stratum is
    one of its strata, else lowered alone (a driver may run a stratum it
    built itself, such as engine/termination.py's)."""
    found = plan.physical.of(stratum) if hasattr(plan, "physical") else None
    return found if found is not None else lower_stratum(stratum)


def rule_plan(rule, stratum=None) -> RulePlan:
    """The plan of one rule (its seminaive variants when ``stratum`` is recursive)."""
    op = rule_operator(rule)
    head = [Column(t.name, _column_type(op.schema, t.name)) if isinstance(t, ast.Var) else Column(f"c{i}", _const_type(t.value))
            for i, t in enumerate(rule.head_terms)]
    root = Output(op, rule.head_pred, rule.head_terms, rule.head_shift, not rule.fresh, tuple(head))
    variants = ()
    if stratum is not None and stratum.recursive:
        variants = delta_variants(op, frozenset(stratum.preds))
    return RulePlan(rule, root, variants)


def rule_operator(rule) -> Operator:
    """The operator of one rule: the one place that looks at a rule's kind
    (also for rules a backend builds itself, such as Spark's constraint probes)."""
    from .aggregates import AggregateRule
    from .existential import ExistentialRule
    from .interval_terms import TimedHeadRule, WrapRule

    if isinstance(rule, SinceRule):
        left, right = _scan(rule.left), _scan(rule.right)
        return SinceUntil(rule.op, rule.window, left, right, _union(left.schema, right.schema))
    body = _body(rule.body)
    if isinstance(rule, AggregateRule):
        bound = set(rule.group) | {v for v, _ in rule.aggregates}
        after = tuple(_step(lit, bound, ()) for lit in rule.after)
        cols = [c for c in body.schema if c.name in rule.group]
        cols += [Column(v, _aggregate_type(a, body.schema)) for v, a in rule.aggregates]
        cols += [c for s in after for c in s.schema]
        return Aggregate(body, tuple(rule.group), tuple(rule.aggregates), after, tuple(cols))
    if isinstance(rule, WrapRule):
        inner = tuple(Column(t.name, _column_type(body.schema, t.name)) for t in rule.inner_terms)
        if rule.capture:
            return CaptureTime(body, rule.head_terms[-1].name, inner + (Column(rule.head_terms[-1].name, TIME),))
        s, e = rule.head_terms[-2].name, rule.head_terms[-1].name
        return WrapInterval(body, s, e, inner + (Column(s, TIME), Column(e, TIME)))
    if isinstance(rule, TimedHeadRule):
        return PlaceInterval(body, rule.timed, body.schema)
    if isinstance(rule, ExistentialRule):
        return ChaseStep(body, tuple(rule.existentials), body.schema + tuple(Column(v) for v in rule.existentials))
    if type(rule) is not PlanRule:  # pragma: no cover - a new rule kind needs its operator here
        raise TypeError(f"no physical operator for {type(rule).__name__}")
    return body


def is_since_until(rule) -> bool:
    """Whether :func:`rule_operator` makes ``rule`` a :class:`SinceUntil`
    (told without lowering its body: the engine's rewritings of rules ask
    it for every rule of a program)."""
    return isinstance(rule, SinceRule)


def _scan(lit: IRScan, view: str = FULL) -> Operator:
    seen = []
    for t in lit.terms:
        if isinstance(t, ast.Var) and t.name not in seen:
            seen.append(t.name)
    op = Scan(lit.pred, lit.terms, tuple(Column(v) for v in seen), view)
    if lit.box is not None or lit.shift is not None:
        op = TemporalShift(op, lit.box, lit.shift)
    if lit.group is not None:
        op = TimeGroup(op, lit.group)
    return op


def _body(lits) -> Body:
    """The steps of a conjunction, and the printed order: atoms as written,
    each other literal as soon as its variables are bound."""
    bound: set = set()
    order, pending = [], [i for i, lit in enumerate(lits) if not isinstance(lit, IRScan)]
    steps: list = [None] * len(lits)
    cols: list = []

    def flush(last=False):
        ready = [i for i in pending if last or _needs(lits[i]) <= bound]
        while ready:
            i = ready[0]
            steps[i] = _step(lits[i], bound, cols)
            if isinstance(steps[i], Assign) and steps[i].var not in bound:
                bound.add(steps[i].var)
                cols.append(steps[i].schema[0])
            order.append(i)
            pending.remove(i)
            ready = [i for i in pending if last or _needs(lits[i]) <= bound]

    for i, lit in enumerate(lits):
        if isinstance(lit, IRScan):
            atom = _scan(lit)
            steps[i] = IntervalJoin(atom, tuple(c.name for c in atom.schema if c.name in bound))
            for c in atom.schema:
                if c.name not in bound:
                    bound.add(c.name)
                    cols.append(c)
            order.append(i)
            flush()
    flush(last=True)
    return Body(tuple(steps), tuple(order), tuple(cols))


def _needs(lit) -> set:
    if isinstance(lit, NegScan):
        return {t.name for t in lit.terms if isinstance(t, ast.Var)}
    if isinstance(lit, Condition):
        return ast.variables_of(lit.comparison)
    return ast.variables_of(lit.expr)


def _step(lit, bound, cols) -> Operator:
    if isinstance(lit, NegScan):
        neg = Scan(lit.pred, lit.terms, tuple(Column(t.name) for t in lit.terms if isinstance(t, ast.Var)))
        return Difference(neg, tuple(c.name for c in neg.schema if c.name in bound))
    if isinstance(lit, Condition):
        return Filter(lit.comparison)
    if isinstance(lit, IRAssign):
        return Assign(lit.var, lit.expr, _expr_type(lit.expr, cols))
    raise TypeError(f"no physical step for {lit!r}")  # pragma: no cover


def positive_atoms(op: Operator) -> tuple:
    """``(position, pred)`` of a rule operator's positive atoms, in the
    order of its seminaive variants: a body's by position; a Since/Until's
    right operand (1) before its left (0), so that the variant reading the
    left's delta reads the right's old facts and the left is read whole
    where the right's delta drives (its maximal intervals matter)."""
    if isinstance(op, SinceUntil):
        return ((1, op.right.pred), (0, op.left.pred))
    body = op if isinstance(op, Body) else op.input
    return tuple((i, atom_scan(s.atom).pred) for i, s in enumerate(body.steps) if isinstance(s, IntervalJoin))


def driving_constants(op: Operator, position: int) -> tuple:
    """``(argument, value)`` of the constants of the body atom at
    ``position`` (a delta variant's driving atom), or () (none, or a
    Since/Until's operand): a variant whose delta holds no atom with them
    derives nothing."""
    if isinstance(op, SinceUntil):
        return ()
    body = op if isinstance(op, Body) else op.input
    scan = atom_scan(body.steps[position].atom)
    return tuple((k, t.value) for k, t in enumerate(scan.terms) if isinstance(t, ast.Const))


def delta_variants(op: Operator, changed) -> tuple:
    """The seminaive variants of a rule operator after predicates
    ``changed``: one per atom of a changed predicate, the atoms before it
    in :func:`positive_atoms`'s order reading the old facts."""
    atoms = positive_atoms(op)
    out = []
    for k, (i, pred) in enumerate(atoms):
        if pred in changed:
            out.append(DeltaVariant(i, pred, tuple(j for j, p in atoms[:k] if p in changed)))
    return tuple(out)


def atom_scan(op: Operator) -> Scan:
    """The Scan under an atom's temporal operators."""
    while not isinstance(op, Scan):
        op = op.input
    return op


# ------------------------------------------------------------------ schemas
def _union(a, b) -> tuple:
    names = {c.name for c in a}
    return tuple(a) + tuple(c for c in b if c.name not in names)


def _column_type(schema, name) -> str:
    return next((c.type for c in schema if c.name == name), TERM)


def _const_type(v) -> str:
    if isinstance(v, bool):  # pragma: no cover - booleans are language.booleans values
        return BOOLEAN
    if isinstance(v, str):
        return STRING
    if isinstance(v, (int, float)) or type(v).__name__ in ("Fraction", "Point"):
        return NUMBER
    return TERM


def _expr_type(expr, cols) -> str:
    if isinstance(expr, ast.BinOp):
        return NUMBER
    if isinstance(expr, ast.Const):
        return _const_type(expr.value)
    if isinstance(expr, ast.Var):
        return _column_type(cols, expr.name)
    return TERM


def _aggregate_type(a, schema) -> str:
    if a.func in ("count", "mcount"):
        return INTEGER
    if a.func == "munion":
        return SET
    if a.func in ("min", "max", "mmin", "mmax"):
        return _column_type(schema, a.expr.name) if isinstance(a.expr, ast.Var) else TERM
    return NUMBER


def _head_schema(pred, rules) -> tuple:
    """A predicate's columns ``c0``, ``c1``, …, typed where its rules agree."""
    outs = [rp.root.schema for rp in rules if rp.rule.head_pred == pred]
    cols = []
    for i, at_i in enumerate(zip(*outs)):
        kinds = {c.type for c in at_i}
        cols.append(Column(f"c{i}", kinds.pop() if len(kinds) == 1 else TERM))
    return tuple(cols)


def _w(iv) -> str:
    from chronolog.language.timeline import format_interval

    return format_interval(iv)


# ------------------------------------------------------------------ windows
def window_points(plan, horizon) -> list:
    """Every finite number a run's windows and horizon bring to time."""
    from chronolog.language.timeline import NEG_INF, POS_INF

    pts = []
    for r in list(plan.rules) + list(plan.constraints):
        for w in (getattr(r, "head_shift", None), getattr(r, "window", None)):
            if w is not None:
                pts.extend(w[:2])
        for lit in getattr(r, "body", ()):
            for w in (getattr(lit, "box", None), getattr(lit, "shift", None)):
                if w is not None:
                    pts.extend(w[:2])
            g = getattr(lit, "group", None)
            if g is not None and g.unit is None:  # periods [kN, (k+1)N)
                pts.append(g.count)
    if horizon is not None:
        pts.extend(horizon[:2])
    return [p for p in pts if p not in (NEG_INF, POS_INF)]
