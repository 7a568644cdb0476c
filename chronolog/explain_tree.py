"""Proof trees: why a fact holds, down to the given facts.

The row executor records, with ``explain=True``, one derivation per derived
piece: the rule, the variable values, the interval on which the body held
and a derivation number (engine/rows/output.py).  A tree is built from the
queried fact downwards: the given facts that cover the queried interval
are leaves; the rest is covered by derivations, earliest first.  For each
derivation every body atom is found in the model with the maximal interval
that produced the body interval, and explained in turn over the part of
it the rule read, using only derivations made before (so a recursion is
followed down to its start, never round and round).  Each step shows the
interval arithmetic: the operator applied to the body atom's interval, the
intersection of the literals (the body) and the head's shift and horizon.

Recording costs time on every run, so it is off by default; asking a model
that did not record for a tree records the strata it reaches, for the keys
it reaches (chronolog/explain_demand.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from html import escape
from typing import Optional

from chronolog.language import ast
from chronolog.language.errors import ProgramError
from chronolog.language.timeline import (
    NEG_INF,
    POS_INF,
    contains,
    format_interval,
    intersect,
    make,
    subtract,
)

MAX_NODES = 2000  # a tree larger than this is cut (the cut nodes say so)
# and one deeper than this: building, printing and json.dumps take a few
# levels of Python's stack (about a thousand) per step of the proof
MAX_DEPTH = 100
# atoms of a predicate whose given facts a proof finds alone before it makes
# and indexes them all: over 1M given facts an atom's rows from the fact
# columns take ~10 ms, a scan of the rows ~50 ms, the index ~2.5 s
GIVEN_SCANS = 64


@dataclass
class Literal:
    """One body literal of a step: its text, the interval it contributed and
    how it was computed; ``fact`` is the body atom's proof (None for
    negations and conditions)."""

    text: str
    interval: Optional[tuple]
    arithmetic: str
    fact: Optional["Node"] = None
    scan: object = None  # the planner's literal (planner/ir.py Scan), for recomputing


@dataclass
class Step:
    """One derivation: the rule with its variable values, its literals, the
    body interval and the head interval it produced."""

    rule: str
    at: str
    binding: dict
    literals: list
    body: tuple
    head: tuple
    arithmetic: str
    plan_rule: object = None  # the planner's rule (planner/ir.py), for recomputing


@dataclass
class Node:
    """A fact over an interval: given (a leaf), or derived by ``steps``."""

    pred: str
    terms: tuple
    interval: tuple
    given: list = field(default_factory=list)  # given intervals covering part of it
    steps: list = field(default_factory=list)
    note: str = ""
    shown: str = ""  # the user's formula, for a predicate the planner made (``<->[0,1] q(a)`` for ``$t1(a)``)


class _Builder:
    def __init__(self, model, provenance, given):
        self.model = model
        self.prov = provenance
        self.given = given  # pred -> its given rows, (terms, interval)
        self._given_by: dict = {}  # pred -> {terms: [intervals]}, made once the proof reads many (_given_of)
        self._given_asked: dict = {}  # pred -> atoms of it read so far
        self.cal = model._time_format()
        self.fmt = self.cal.format_interval if self.cal is not None else format_interval
        self.count = 0
        self.depth = 0  # of the node being built
        self.stratum_of = {p: st.index for st in model.plan.strata for p in st.preds}
        from chronolog.model_atoms import model_atoms

        self.atoms = model_atoms(model)

    def fact_text(self, pred, terms) -> str:
        """An atom as the user wrote it: a predicate the planner made shows
        as the formula it stands for."""
        from chronolog.language.dates import format_fact
        from chronolog.planner.explain import shown_atom

        shown = shown_atom(self.model.plan, pred, terms)
        if shown is not None:
            return shown
        return format_fact(pred, terms, (0, 0, True, True), self.cal).split("@")[0]

    def node(self, pred, terms, want, limit) -> Node:
        from chronolog.planner.explain import shown_atom

        n = Node(pred, terms, want, shown=shown_atom(self.model.plan, pred, terms) or "")
        self.count += 1
        if self.count > MAX_NODES:
            n.note = f"not expanded: the tree has more than {MAX_NODES} facts"
            return n
        rest = [want]
        for iv in self._given_of(pred, terms):
            if intersect(iv, want) is not None and rest:
                n.given.append(iv)
                rest = [r for x in rest for r in subtract(x, [iv])]
        if not rest:
            return n
        if self.depth >= MAX_DEPTH:
            n.note = f"not expanded: the proof is more than {MAX_DEPTH} steps deep"
            return n
        self.depth += 1
        try:
            self._derive(n, pred, terms, rest, limit)
        finally:
            self.depth -= 1
        return n

    def _given_of(self, pred, terms) -> list:
        """The given intervals of the atom: the first few atoms of a
        predicate from its fact columns (their rows alone) or by a scan of
        its given rows, then by an index of them (the rows of 1M given facts
        and their index take 2-3 s, the columns' rows of an atom 10-50 ms: a
        proof reads a few atoms of a predicate, or many)."""
        by = self._given_by.get(pred)
        if by is None:
            asked = self._given_asked[pred] = self._given_asked.get(pred, 0) + 1
            if asked <= GIVEN_SCANS:
                of_atom = getattr(self.given, "atom_rows", None)  # (the fact columns' rows of the atom alone)
                rows = of_atom(pred, terms) if of_atom is not None else None
                if rows is not None:
                    return [iv for _, iv in rows]
                rows = self.given.get(pred, ())
                return [iv for t, iv in rows if t == terms or type(t) is list and tuple(t) == terms]
            rows = self.given.get(pred, ())
            by = self._given_by[pred] = {}
            for t, iv in rows:
                by.setdefault(tuple(t), []).append(iv)
        return by.get(terms, ())

    def _derive(self, n, pred, terms, rest, limit) -> None:
        """``n``'s steps: the derivations that cover ``rest``, widest first;
        within the stratum of ``limit`` (``(stratum, derivation number)``:
        the step that reads it) those made before that step only (a lower
        stratum's were all made before, whenever a proof recorded them)."""
        before = limit[1] if self.stratum_of.get(pred) == limit[0] else float("inf")
        entries = sorted((e for e in self.prov.get((pred, terms), ()) if e[4] < before), key=lambda e: e[4])
        chosen = []
        while rest and entries:
            # the derivation covering most of what is left: a recursion
            # through time records one piece per round, each reaching
            # further, and taking them in round order made the tree double
            # with every round (each piece's own proof repeats the earlier
            # ones); the widest piece covers them, and reads only facts
            # derived before it (its seq), so the proof stays well founded
            e = max(entries, key=lambda e: _coverage(e[0], rest))
            if _coverage(e[0], rest) == (False, 0):
                break
            entries.remove(e)
            chosen.append(e)
            rest = [r for x in rest for r in subtract(x, [e[0]])]
        for e in sorted(chosen, key=lambda e: e[4]):  # (shown in the order they were derived)
            n.steps.extend(_unwrapped(self.step(e), n))
        if rest and not n.given and not n.steps:
            n.note = "no recorded derivation (aggregates and time groupings are not recorded)"

    def step(self, entry) -> Step:
        piece, rule, binding, body_iv, seq = entry
        limit = (self.stratum_of.get(rule.head_pred), seq)  # (what its literals' proofs may use: _derive)
        src = rule.source
        text = src.text if src is not None and src.text else rule.describe()
        at = str(src.pos) if src is not None and src.pos.line else ""
        lits = []
        from chronolog.planner.ir import Assign, Condition, NegScan, Scan, variable_order
        from chronolog.planner.normalize import TOP
        from chronolog.planner.physical import is_since_until

        from chronolog.planner.physical import Aggregate, rule_operator

        since = is_since_until(rule)
        if not since and isinstance(rule_operator(rule), Aggregate):
            lits = self.aggregate_literals(rule, binding, body_iv, limit)
        for i, lit in enumerate(() if lits else rule.body):  # (a Since/Until's: its left and right operands)
            if since:
                lits.append(self.since_literal(rule, lit, i == 1, binding, body_iv, limit))
            elif isinstance(lit, Scan) and lit.pred == TOP:
                continue  # (a body without atoms: it holds everywhere)
            elif isinstance(lit, Scan):
                lits.append(self.scan_literal(lit, binding, body_iv, limit))
            elif isinstance(lit, NegScan):
                atom = self.fact_text(lit.pred, self.ground(lit.terms, binding))
                lits.append(Literal(f"not {atom}", body_iv, f"{atom} holds nowhere in {self.fmt(body_iv)}", None, lit))
            elif isinstance(lit, Assign) and not _users(lit.var):
                continue  # (a dialect's own arithmetic: LARS's @T head at [T, T+1))
            elif isinstance(lit, (Condition, Assign)):
                lits.append(Literal(lit.describe(), None, "true with " + _binding_text(binding)))
        shown = [l.interval for l in lits if l.interval is not None]
        if since:  # (not an intersection: the event's window, the other operand throughout in between)
            event, held = (shown[1], shown[0]) if len(shown) == 2 else (None, None)
            arith = f"body {self.fmt(body_iv)}" + (
                f": {'after' if rule.op.upper().startswith('S') else 'before'} the event on {self.fmt(event)}"
                f" by {format_interval(rule.window)}, held on {self.fmt(held)} in between" if event else "")
        elif len(shown) > 1:
            arith = "body " + " ∩ ".join(self.fmt(iv) for iv in shown) + f" ⊇ {self.fmt(body_iv)}"
        else:
            arith = f"body {self.fmt(body_iv)}"
        head = "head"
        if rule.head_shift is not None:
            head += f" = body ⊕ {format_interval(rule.head_shift)}"
        if self.model.horizon is not None and not rule.fresh:
            head += f" ∩ horizon {self.fmt(self.model.horizon)}"
        order = variable_order(rule)  # (as the rule names them, not as the join bound them: that follows the relations' sizes)
        shown = {k: binding[k] for k in sorted(binding, key=lambda k: order.get(k, len(order))) if _users(k)}
        return Step(text, at, shown, lits, body_iv, piece, f"{arith}; {head} = {self.fmt(piece)}", rule)

    def aggregate_literals(self, rule, binding, body_iv, limit) -> list:
        """Every binding an aggregate ranges over on body_iv, as one literal
        per atom read: its value comes from all of them, so its proof names
        them all (the first atom found would explain a sum by one addend).
        The body is joined here again over the model, atom by atom."""
        from chronolog.engine.rows.expressions import compile_condition, compile_expr
        from chronolog.engine.rows.temporal import interval_transform
        from chronolog.planner.ir import Assign, Condition, NegScan, Scan

        rows = [(dict(binding), ())]  # (binding, the atoms it read)
        for lit in rule.body:
            grown = []
            for b, read in rows:
                slots = {name: name for name in b}
                if isinstance(lit, Scan):
                    fn = interval_transform(lit.box, lit.shift, lit.group) or (lambda iv: iv)
                    for ts, iv in self.candidates(lit.pred, lit.terms, b):
                        got = fn(iv)
                        nb = _extend(b, lit.terms, ts)
                        if got is not None and contains(got, body_iv) and nb is not None:
                            grown.append((nb, read + ((lit, ts, iv, got),)))
                elif isinstance(lit, NegScan):
                    if not any(intersect(iv, body_iv) for _, iv in self.candidates(lit.pred, lit.terms, b)):
                        grown.append((b, read))
                elif isinstance(lit, Condition):
                    if compile_condition(lit.comparison, slots)(b):
                        grown.append((b, read))
                elif isinstance(lit, Assign):
                    v = compile_expr(lit.expr, slots, lit)(b)
                    if lit.var not in b or b[lit.var] == v:
                        grown.append(({**b, lit.var: v}, read))
            rows = grown
        lits, seen = [], set()
        for _, read in rows:
            for lit, ts, iv, got in read:
                if (id(lit), ts, iv) not in seen:
                    seen.add((id(lit), ts, iv))
                    child = self.node(lit.pred, ts, intersect(iv, _read_part(lit, body_iv)) or iv, limit)
                    lits.append(Literal(_literal_text(lit, self.fact_text(lit.pred, ts)), got, _arith(lit, iv, got, self.fmt), child, lit))
        for lit in rule.body:
            if not isinstance(lit, Scan):
                lits.append(Literal(lit.describe(), None, f"true for each of the {len(rows)} bindings"))
        return lits

    def ground(self, terms, binding) -> tuple:
        return tuple(t.value if isinstance(t, ast.Const) else binding.get(t.name, t) for t in terms)

    def candidates(self, pred, terms, binding):
        """(terms, maximal interval) of the atoms that match the pattern
        (those with its values, where it has some: chronolog/model_atoms.py)."""
        pattern = self.ground(terms, binding)
        at = tuple(i for i, p in enumerate(pattern) if not isinstance(p, ast.Var))
        if at:
            atoms = self.atoms.where(pred, [(at, {tuple(pattern[i] for i in at)})])
        else:
            atoms = self.atoms.whole(pred)
        for ts, ivs in atoms.items():
            if len(ts) == len(pattern) and all(isinstance(p, ast.Var) or p == v for p, v in zip(pattern, ts)):
                for iv in ivs:
                    yield ts, iv

    def scan_literal(self, lit, binding, body_iv, limit) -> Literal:
        from chronolog.engine.rows.temporal import interval_transform

        fn = interval_transform(lit.box, lit.shift, lit.group) or (lambda iv: iv)
        for ts, iv in self.candidates(lit.pred, lit.terms, binding):
            got = fn(iv)
            if got is not None and contains(got, body_iv):
                read = intersect(iv, _read_part(lit, body_iv)) or iv
                child = self.node(lit.pred, ts, read, limit)
                return Literal(_literal_text(lit, self.fact_text(lit.pred, ts)), got, _arith(lit, iv, got, self.fmt), child, lit)
        return Literal(lit.describe(), None, "not found in the model")

    def since_literal(self, rule, lit, right, binding, body_iv, limit) -> Literal:
        for ts, iv in self.candidates(lit.pred, lit.terms, binding):
            near = intersect(iv, _since_reach(rule, body_iv, right))
            if near is not None:
                child = self.node(lit.pred, ts, near, limit)
                word = "since" if rule.op.upper().startswith("S") else "until"
                role = "the event" if right else f"held throughout {word} the event"
                return Literal(
                    f"{self.fact_text(lit.pred, ts)} ({role}, {word} {format_interval(rule.window)})",
                    iv, _fact_line(Node(lit.pred, ts, iv, shown=child.shown), self.cal), child,
                )
        return Literal(lit.describe(), None, "not found in the model")


def _unwrapped(step: Step, node: Node) -> list:
    """The step, or where it only reads the same formula again (LARS's
    ``@T a`` through the planner's time capture: two predicates made for one
    formula) the steps of what it reads."""
    lits = step.literals
    if node.shown and len(lits) == 1 and lits[0].fact is not None and lits[0].fact.shown == node.shown:
        return lits[0].fact.steps or [step]
    return [step]


def _extend(binding, terms, values):
    """binding with an atom's variables bound to values; None where a
    variable already has another value (p(X,X) against p(a,b))."""
    out = dict(binding)
    for t, v in zip(terms, values):
        if isinstance(t, ast.Var):
            if t.name in out and out[t.name] != v:
                return None
            out[t.name] = v
    return out


def _coverage(piece, rest) -> tuple:
    """How much of ``rest`` (disjoint intervals) ``piece`` covers: whether it
    meets it at all, then the total length (points count as 0, ±inf as inf)."""
    parts = [x for r in rest if (x := intersect(piece, r)) is not None]
    return (bool(parts), sum(float(x[1]) - float(x[0]) if x[1] != x[0] else 0.0 for x in parts))


def _literal_text(lit, atom: str) -> str:
    parts = []
    if lit.group is not None:
        parts.append(lit.group.describe())
    if lit.shift is not None:
        parts.append(f"diamond {format_interval(lit.shift)}")
    if lit.box is not None:
        parts.append(f"box {format_interval(lit.box)}")
    return " ".join(parts + [atom])


def _arith(lit, iv, got, fmt) -> str:
    s = fmt(iv)
    if lit.box is not None:
        s = f"box({s}, {format_interval(lit.box)})"
    if lit.shift is not None:
        s = f"{s} ⊕ {format_interval(lit.shift)}"
    if lit.group is not None:
        s = f"{lit.group.describe()}({s})"
    return s if got == iv else f"{s} = {fmt(got)}"


def _read_part(lit, body_iv) -> tuple:
    """The time points of the body atom a literal reads to hold on body_iv
    (closed: an over-approximation at the ends is harmless, it is intersected
    with the atom's interval)."""
    if lit.group is not None:
        return (NEG_INF, POS_INF, False, False)
    lo, hi = body_iv[0], body_iv[1]
    if lit.shift is not None:
        lo, hi = lo - lit.shift[1], hi - lit.shift[0]
    if lit.box is not None:
        lo, hi = lo + lit.box[0], hi + lit.box[1]
    return make(lo, hi, lo != NEG_INF, hi != POS_INF) or body_iv


def _since_reach(rule, body_iv, right) -> tuple:
    w = rule.window
    if rule.op.upper().startswith("S"):  # the event is in the past
        lo, hi = body_iv[0] - w[1], body_iv[1] - (0 if not right else w[0])
    else:
        lo, hi = body_iv[0] + (0 if not right else w[0]), body_iv[1] + w[1]
    return make(lo, hi, lo != NEG_INF, hi != POS_INF) or body_iv


def _users(name: str) -> bool:
    """Whether a variable is the user's: anonymous ones (``_2``) and those
    the planner or a dialect made (``$start``, ``T$``) are not shown."""
    return not name.startswith("_") and "$" not in name


def _binding_text(binding) -> str:
    from chronolog.language.text import format_term

    return ", ".join(f"{k}={format_term(v)}" for k, v in binding.items() if _users(k)) or "no variables"


# ------------------------------------------------------------ entry points
def recorded(model, pred: str | None = None):
    """The model's recorded derivations, ``{(pred, terms): entries}`` as
    ``get`` reads them: all of them, re-running its plan with recording if
    it has none; with ``pred``, those a proof asks for, each stratum
    recorded when the proof first reaches it, for the keys it reaches
    (chronolog/explain_demand.py), kept on the model."""
    from chronolog.explain_demand import DemandedProvenance

    prov = model._provenance
    if prov is not None and (pred is not None or not isinstance(prov, DemandedProvenance)):
        return prov
    if not model.is_finite:
        raise ProgramError(
            "explanations are not recorded for models that repeat forever",
            hint="give a horizon (--horizon FROM,TO or horizon=(FROM, TO)) to explain a fact"
            if model.horizon is None else "give the horizon two finite ends to explain a fact",
        )
    if model.horizon is not None and model.plan.open_toward(model.horizon):
        from chronolog.language.timeline import format_interval

        raise ProgramError(
            f"explanations are not recorded within the horizon {format_interval(model.horizon)}: it is open on the side "
            "where this program's recursion through a temporal operator moves time, so its model is found where it "
            "repeats, not by rounds a proof can record",
            hint="give the horizon a finite end on that side to explain a fact",
        )
    given = getattr(model, "_given", None)
    if given is None:
        raise ProgramError("this model cannot be explained", hint="call reason(..., explain=True)")
    if pred is not None:
        model._provenance = DemandedProvenance(model, lambda plan, store, base: _recording_run(model, plan, store, base))
        return model._provenance
    from chronolog.engine.store import Store

    store, base, derived = Store(), {}, model.plan.derived_predicates()
    for p, rows in given.items():
        store.relation(p).bulk_add(rows)
        if p in derived:
            base[p] = list(rows)
    model._provenance = _recording_run(model, model.plan, store, base)
    return model._provenance


def _recording_run(model, plan, store, base) -> dict:
    """The derivations the rows record running ``plan`` over ``store``
    (``base``: the given facts of derived predicates), as the model's run did."""
    from chronolog.engine.rows.evaluator import Evaluator

    horizon = model.horizon
    searched = horizon is None and bool(model.plan.infinite_strata())
    if searched:
        # a recursion through time found to stop repeating (no fact repeats):
        # the whole line confines nothing, and rounds reach the model
        horizon = (NEG_INF, POS_INF, False, False)
    ev = Evaluator(plan, store, horizon, getattr(model, "_strategy", "blocking"), explain=True, base=base)
    if searched:
        # unless a fact holds for good from some time on, grown a little in
        # every round (b :- <->[0,1] b. over b@0): the search saw where it
        # stops changing, rounds never get there; they are bounded by the
        # search's own work, not run forever
        ev.rounds_bounded = True
        ev.max_rounds = min(ev.max_rounds, max(SEARCHED_ROUNDS, 4 * model.stats.get("rounds", 0)))
    from chronolog.language.nulls import NullFactory, run_scope

    try:
        with run_scope(getattr(model, "_nulls", None) or NullFactory()):
            ev.run()
    except ProgramError as e:
        if not (searched and e.message.startswith("no fixpoint after")):
            raise
        raise ProgramError(
            f"explanations are not recorded for this model: a fact of its recursion through time holds for good from "
            f"some time on, which rounds reach only in the limit (none after {ev.max_rounds:,} rounds)",
            e.pos, hint="give a horizon (--horizon FROM,TO or horizon=(FROM, TO)) to explain a fact within it",
        ) from None
    return ev.provenance


# rounds a proof's re-run of a model found without a horizon may take at least
SEARCHED_ROUNDS = 2_000


def explain_tree(model, query: str) -> Node:
    """The proof tree of ``query`` (``"p(a)@[1,2]"``, which must hold)."""
    f = model._holding_fact(query, "proof()", "so it has no proof", "chronolog query shows")
    prov = recorded(model, f.pred)
    given = model._given if getattr(model, "_given", None) is not None else {}  # (not truth-tested: that reads every predicate's)
    b = _Builder(model, prov, given)  # (each predicate's given rows indexed as the proof reaches it: 1M given facts took 2 s)
    return b.node(f.pred, tuple(f.terms), f.interval, (None, float("inf")))


def to_text(node: Node, calendar=None) -> str:
    fmt = calendar.format_interval if calendar is not None else format_interval
    lines: list = []

    def fact(n):
        return _fact_line(n, calendar)

    def walk(n: Node, indent: str, head: str):
        tag = []
        if n.given:
            tag.append("given" + ("" if len(n.given) == 1 and contains(n.given[0], n.interval) else " on " + ", ".join(fmt(g) for g in n.given)))
        if n.note:
            tag.append(n.note)
        lines.append(f"{indent}{head}{fact(n)}" + (f"   [{'; '.join(tag)}]" if tag else ""))
        sub = indent + "    "
        for s in n.steps:
            lines.append(f"{sub}by {s.rule}" + (f"   ({s.at})" if s.at else ""))
            if s.binding:
                lines.append(f"{sub}  with {_binding_text(s.binding)}")
            for l in s.literals:
                lines.append(f"{sub}  {l.text}: {l.arithmetic}")
            lines.append(f"{sub}  {s.arithmetic}")
            for l in s.literals:
                if l.fact is not None:
                    walk(l.fact, sub + "  ", "└─ ")

    walk(node, "", "")
    return "\n".join(lines)


def _fact_line(node: Node, calendar) -> str:
    """``p(a)@[1,2]``, or for a predicate the planner made the formula it
    stands for and where: ``<->[0,1] q(a) on [0,11]``."""
    from chronolog.language.dates import format_fact

    if node.shown:
        return f"{node.shown} on {(calendar.format_interval if calendar is not None else format_interval)(node.interval)}"
    return format_fact(node.pred, node.terms, node.interval, calendar)


def to_dict(node: Node, calendar=None) -> dict:
    fmt = calendar.format_interval if calendar is not None else format_interval
    from chronolog.language.text import format_term

    return {
        "fact": _fact_line(node, calendar),
        "given": [fmt(g) for g in node.given],
        **({"note": node.note} if node.note else {}),
        "steps": [
            {
                "rule": s.rule,
                "at": s.at,
                "binding": {k: format_term(v) for k, v in s.binding.items()},
                "body": fmt(s.body),
                "head": fmt(s.head),
                "arithmetic": s.arithmetic,
                "literals": [
                    {
                        "literal": l.text,
                        "interval": fmt(l.interval) if l.interval is not None else None,
                        "arithmetic": l.arithmetic,
                        **({"proof": to_dict(l.fact, calendar)} if l.fact is not None else {}),
                    }
                    for l in s.literals
                ],
            }
            for s in node.steps
        ],
    }


def to_json(node: Node, calendar=None) -> str:
    return json.dumps(to_dict(node, calendar), indent=2, ensure_ascii=False)


def to_html(node: Node, calendar=None) -> str:
    """Nested ``<details>`` (each step folds open), for notebooks."""
    d = to_dict(node, calendar)

    def walk(d) -> str:
        tag = " <i>given</i>" if d["given"] else ""
        if d.get("note"):
            tag += f" <i>{escape(d['note'])}</i>"
        inner = []
        for s in d["steps"]:
            lits = "".join(
                f"<li><code>{escape(l['literal'])}</code>: {escape(l['arithmetic'])}"
                + (walk(l["proof"]) if "proof" in l else "")
                + "</li>"
                for l in s["literals"]
            )
            inner.append(
                f"<div>by <code>{escape(s['rule'])}</code> {escape(s['at'])}"
                + (f" with {escape(', '.join(f'{k}={v}' for k, v in s['binding'].items()))}" if s["binding"] else "")
                + f"<ul>{lits}</ul>= {escape(s['arithmetic'])}</div>"
            )
        body = "".join(inner)
        if not body:
            return f"<div><code>{escape(d['fact'])}</code>{tag}</div>"
        return f"<details open><summary><code>{escape(d['fact'])}</code>{tag}</summary><div style=\"margin-left:1.5em\">{body}</div></details>"

    return walk(d)


class Proof:
    """What :meth:`Model.proof` returns: prints as a text tree, shows as
    nested HTML in a notebook, ``.to_json()`` / ``.to_dict()``; ``.root`` is
    the :class:`Node`."""

    def __init__(self, root: Node, calendar=None):
        self.root, self.calendar = root, calendar

    def __str__(self) -> str:
        return to_text(self.root, self.calendar)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return to_html(self.root, self.calendar)

    def to_dict(self) -> dict:
        return to_dict(self.root, self.calendar)

    def to_json(self) -> str:
        return to_json(self.root, self.calendar)
