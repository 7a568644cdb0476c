"""ChaseNode: the end of an existential rule's pipeline (the restricted chase).

For each body row ``(binding, interval)`` the head is already satisfied at a
time point when some fact of the head predicate agrees with the head on its
constants and bound variables there (whatever the existential positions
hold, constants or nulls, as long as a repeated existential variable gets
one value).  Only the part of the interval where no such fact holds gets a
new fact, with a labelled null for each existential variable; where the head
is satisfied nothing is made (that is what makes the chase *restricted*).

The witness is named after the rule, the existential variable and the
values of the head's bound variables (language/nulls.py, ``NullFactory``):
the same binding at another time, or in another evaluator of the same run,
gets the same null.  So time never multiplies nulls, and the repetition
search over models that repeat sees the same terms in every period.

The rows of a round wait (``process``) until the other rules of the stratum
have reached their fixpoint, and are then fired (``fire_waiting``, called by
the evaluator): a Datalog-first restricted chase, so a fact that a plain
rule derives satisfies the head before any null is made for it.  The rules
fire in the program's order, each rule's facts in the store before the next
rule fires, so a second existential rule with the same head sees them.
Within one rule, rows with the same head values get the same witness
anyway, so they need not see each other's facts; its new witnesses are
made in the term order of their frontiers, so the labels depend on the
program and the facts alone, not on the order pipelines produced rows in
(the columns' chase, engine/columns/chase.py, makes the same ones).
"""

from __future__ import annotations

from chronolog.language import ast
from chronolog.language.errors import ProgramError, counted
from chronolog.language.nulls import Null, NullFactory, current_factory, null_labels
from chronolog.language.text import term_sort_key
from chronolog.language.timeline import coalesce, format_interval, intersect, subtract

from ..node import MapNode


def null_factory(state) -> NullFactory:
    """The run's factory (language/nulls.run_scope), else the evaluator's own."""
    f = getattr(state, "_null_factory", None)
    if f is None:
        f = current_factory()
        if f is None:
            store = state.store
            f = NullFactory(lambda: null_labels(rel.atoms for rel in store.relations.values()))
        state._null_factory = f
    return f


class ChaseNode(MapNode):
    def __init__(self, child, rule, slots, state, horizon=None, explain=False):
        super().__init__(child)
        self.rule, self.state, self.horizon, self.explain = rule, state, horizon, explain
        self.head_pred = rule.head_pred
        terms = rule.head_terms
        exist = rule.existentials
        # what a satisfying fact must agree on: constants and bound variables
        self.key_positions = tuple(i for i, t in enumerate(terms) if not (isinstance(t, ast.Var) and t.name in exist))
        self.key_parts = tuple(
            ("const", terms[i].value) if isinstance(terms[i], ast.Const) else ("slot", slots[terms[i].name])
            for i in self.key_positions
        )
        # repeated existential variables must agree with themselves
        same = {}
        for i, t in enumerate(terms):
            if isinstance(t, ast.Var) and t.name in exist:
                same.setdefault(t.name, []).append(i)
        self.same = [ps for ps in same.values() if len(ps) > 1]
        self.exist_at = {i: t.name for i, t in enumerate(terms) if isinstance(t, ast.Var) and t.name in exist}
        # the head's other variables in head order, whatever order the variant's joins bound them in
        self.frontier_slots = tuple(slots[v] for v in frontier_vars(rule))
        self.rule_key = witness_rule(rule)
        self.slots = slots

    def label(self) -> str:
        s = f"Chase {ast.Atom(self.head_pred, self.rule.head_terms)} (new nulls for {', '.join(self.rule.existentials)})"
        if self.horizon is not None:
            s += f" within {format_interval(self.horizon)}"
        return s

    def _matching(self, rel, key) -> list:
        """The intervals of ``rel``'s facts that satisfy the head for ``key``."""
        if rel is None or not rel.atoms:
            return []
        if not self.key_positions:
            candidates = rel.atoms.keys()
        else:
            idx = rel.index(self.key_positions)
            candidates = idx.get(key[0] if len(key) == 1 else key, ())
        out = []
        for terms in candidates:
            if all(all(terms[p] == terms[ps[0]] for p in ps[1:]) for ps in self.same):
                out.extend(rel.atoms[terms])
        return out

    def process(self, batch):
        """Body rows wait until the rest of the stratum is at its fixpoint
        (:func:`fire_waiting`): a fact a plain rule would still derive may
        satisfy the head, and then no null is needed (the Datalog-first
        order of the restricted chase)."""
        waiting = getattr(self.state, "_chase_waiting", None)
        if waiting is None:
            waiting = self.state._chase_waiting = {}
        waiting.setdefault(id(self), (self, []))[1].extend(batch)
        return []

    def uncovered(self, batch) -> list:
        """``(binding, body interval, frontier, key, pieces)`` of each row of
        ``batch`` where the head does not hold yet (``pieces``: the times it
        does not; ``key``: the head's values but the existential ones)."""
        store, hz = self.state.store, self.horizon
        rel = store.get(self.head_pred)
        out = []
        for b, body_iv in batch:
            iv = body_iv if hz is None else intersect(body_iv, hz)
            if iv is None:
                continue
            key = tuple(v if k == "const" else b[v] for k, v in self.key_parts)
            covered = self._matching(rel, key)
            rest = subtract(iv, coalesce(covered)) if covered else [iv]
            if rest:  # (else the head holds already: the restricted chase does not fire)
                out.append((b, body_iv, tuple(b[s] for s in self.frontier_slots), key, rest))
        return out

    def existentials(self) -> list:
        """The existential variables in head order, each once."""
        return list(dict.fromkeys(self.exist_at.values()))

    def make(self, rows, factory) -> list:
        """The new facts of the uncovered ``rows``, their nulls the witnesses
        ``factory`` holds (made by :func:`fire_waiting` in frontier order)."""
        n = len(self.rule.head_terms)
        out = []
        for b, body_iv, frontier, key, rest in rows:
            values = [None] * n
            for i, v in zip(self.key_positions, key):
                values[i] = v
            nulls = {}
            for i, var in self.exist_at.items():
                if var not in nulls:
                    wkey = (self.rule_key, var, frontier)
                    nulls[var] = factory.witness(wkey)
                    if self.rule.watched is not None:
                        self._watch(factory, nulls[var], wkey, i)
                values[i] = nulls[var]
            terms = tuple(values)
            for piece in rest:
                if self.explain:
                    binding = {v: b[i] for v, i in self.slots.items() if not v.startswith("_")}
                    binding.update(nulls)
                    out.append((terms, piece, (self.rule, binding, body_iv, _next_seq())))
                else:
                    out.append((terms, piece))
        return out

    def _watch(self, factory, null, key, i) -> None:
        """Stop a chase that may not terminate (planner/existential.py): a
        null nesting nulls of its own rule and variable more deeply than
        there are facts without nulls."""
        depth = factory.nesting.get(null, {}).get(key[:2]) or factory.nest(null, key)
        if depth <= factory.limit:
            return
        factory.limit = sum(
            1 for rel in self.state.store.relations.values() for terms in rel.atoms if not any(type(v) is Null for v in terms)
        )
        if depth <= factory.limit:
            return
        src = self.rule.source
        cycle = self.rule.watched
        raise ProgramError(
            f"the chase may not terminate: the rule makes a new null at argument {i + 1} of {self.head_pred} "
            f"nested {depth} deep in its own nulls, deeper than the {counted(factory.limit, 'fact')} "
            "without nulls, and values from that position can flow back into the rule's body" + (f" (through: {cycle})" if cycle else ""),
            src.pos if src is not None else None,
            hint="a chase whose nulls feed back into the rule that makes them runs only while they nest no deeper "
            "than the data is large (programs that are jointly acyclic, which includes weakly acyclic ones, "
            "always run); bound the recursion, or give the witness as data",
            source_line=src.text if src is not None else "",
        )


def frontier_vars(rule) -> list:
    """The head's variables the body binds (its frontier), in head order, each once."""
    return list(dict.fromkeys(t.name for t in rule.head_terms if isinstance(t, ast.Var) and t.name not in rule.existentials))


def witness_rule(rule) -> tuple:
    """The rule's part of its witnesses' keys (language/nulls.NullFactory):
    its place and text, the same in every evaluator of a run."""
    src = rule.source
    return (str(src.pos), src.text) if src is not None else (rule.describe(),)


def fire_waiting(state, merges, order, produced=None) -> bool:
    """Fire the existential rules' waiting body rows into their MergeNodes;
    whether there were any.

    The labels do not depend on the order the pipelines produced rows in:
    the rules fire in ``order`` (the stratum plan's RulePlans: the
    program's order), each seeing the facts of those before it, all of a
    rule's variants at once; a rule's new witnesses are made in the term
    order of their frontiers (:func:`frontier_order`).  The columns' chase
    (engine/columns/chase.py) fires so too, and makes the same nulls.

    Under EXPLAIN ANALYZE the facts each rule makes are its rows (into
    ``produced`` per RulePlan, and its ChaseStep's and Output's figures
    with the firing's time: the round only buffered them)."""
    waiting = getattr(state, "_chase_waiting", None)
    if not waiting:
        return False
    state._chase_waiting = {}
    planned = {id(rp.rule): rp for rp in order}
    place = {id(rp.rule): i for i, rp in enumerate(order)}
    by_rule: dict = {}
    for node, rows in waiting.values():
        by_rule.setdefault(id(node.rule), []).append((node, rows))
    factory = null_factory(state)
    meter = getattr(state, "meter", None)
    for nodes in sorted(by_rule.values(), key=lambda ns: place.get(id(ns[0][0].rule), len(place))):
        first = nodes[0][0]
        rp = planned.get(id(first.rule))
        started = meter.start() if meter is not None and rp is not None else None
        found = [(node, node.uncovered(rows)) for node, rows in nodes]
        factory.witnesses(first.rule_key, first.existentials(),
                          sorted({f for _, rows in found for _, _, f, _, _ in rows}, key=frontier_order))
        made = 0
        for node, rows in found:
            out = node.make(rows, factory)
            if out:
                made += len(out)
                merges[node.head_pred].merge(out)
        if produced is not None and rp is not None:
            produced[id(rp)] = produced.get(id(rp), 0) + made
        if started is not None:
            meter.stop(started, rp.operator, made)
            meter.figure(rp.root)[1] += made
    return True


def frontier_order(frontier) -> tuple:
    """The order in which a firing makes its witnesses: the frontier's terms
    in term order (language/text.term_sort_key; 2 before 2.0)."""
    return tuple((term_sort_key(v), type(v) is float) for v in frontier)


def _next_seq():
    from .output import _SEQ

    return next(_SEQ)


# ---------------------------------------------------------------- lowering
def chase_pipeline(op, rule, state, variant=None, horizon=None, explain=False, scans_first=False):
    """The row pipeline of a ChaseStep (planner/physical.py): its body, then the chase step."""
    from .pipeline import body_pipeline

    body, slots = body_pipeline(op.input, rule, state, variant, scans_first)
    node = ChaseNode(body, rule, slots, state, horizon, explain)
    node.slots, node.rule = slots, rule
    return node
