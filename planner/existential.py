"""Existential rules: a head variable that occurs nowhere in the body.

``controller(Y, C) :- company(C).`` says every company has *some*
controller.  As in the Temporal Vadalog system, existential reasoning and
temporal reasoning are separate fragments: existential variables are allowed
only in rules without temporal operators (no diamond, box, Since/Until, time
grouping, head box; an interval term ``lit@[S,E]`` in the body is allowed:
it turns time into data, the paper's "unwrapping").  Temporal rules may read
and copy the nulls the existential rules invent.

Evaluation is the restricted chase (engine/rows/chase.py).  It terminates
when the program is *weakly acyclic* (Fagin, Kolaitis, Miller and Popa,
"Data exchange: semantics and query answering"): in the graph of predicate
positions, with an ordinary edge wherever a rule copies a variable from one
position to another and a special edge from every body position of a copied
variable to each position of an existential variable, no cycle goes through
a special edge.  Then only finitely many nulls can be made.  It is a
sufficient condition, not a necessary one: some programs it refuses would
still terminate (the warded fragment of Vadalog is wider, and the Vadalog
system terminates on it by checking isomorphic facts, which is not done
here).  A refused program gets an error naming the existential rule and the
position whose nulls can feed back into it.
"""

from __future__ import annotations

from dataclasses import dataclass

from chronolog.language import ast
from chronolog.language.errors import ProgramError

from .ir import PlanRule, Scan


# ---------------------------------------------------------------- the AST side


def existential_variables(rule: ast.Rule) -> list:
    """Head variables that occur nowhere in the body, in head order."""
    head = ast.head_atom(rule.head)
    if head is None:
        return []
    body_vars: set = set()
    for lit in rule.body:
        body_vars |= ast.variables_of(lit)
    out = []
    for t in head.terms:
        if isinstance(t, ast.Var) and t.name not in body_vars and t.name not in out:
            out.append(t.name)
    return out


def _temporal_literal(lit):
    """The first temporal construct inside a body literal, or None."""
    if isinstance(lit, ast.Temporal):  # diamonds, boxes, time grouping
        return lit
    if isinstance(lit, ast.Binary):
        return lit
    if isinstance(lit, (ast.Negation, ast.Timed)):
        return _temporal_literal(lit.inner)
    return None


def check_existential_rule(rule: ast.Rule, existentials: list) -> None:
    """Existential variables only in rules the chase can run: no temporal
    operator, no aggregate, no interval from terms in the head."""
    names = ", ".join(existentials)
    plural = "s" if len(existentials) > 1 else ""
    why, where = None, rule.pos
    if isinstance(rule.head, ast.Temporal):
        why = f"its head has the temporal operator {rule.head.op}"
    elif isinstance(rule.head, ast.Timed):
        why = "its head takes its interval from terms (@[S,E])"
    else:
        for lit in rule.body:
            found = _temporal_literal(lit)
            if found is not None:
                op = f"<{found.op}>" if isinstance(found, ast.Binary) else found.op
                why = f"its body uses the temporal operator {op}"
                where = getattr(found, "pos", None) or rule.pos
                if not where.line:
                    where = rule.pos
                break
            if isinstance(lit, ast.Assignment) and isinstance(lit.expr, ast.Aggregate):
                why = f"it aggregates ({lit.expr.func})"
                break
    if why is None:
        _note_existential(rule, existentials)
        return
    raise ProgramError(
        f"unsafe rule: head variable{plural} {names} {'are' if plural else 'is'} not bound by the body, "
        f"and an existential variable is not allowed here: {why}",
        where,
        hint="existential variables (a head variable that occurs nowhere in the body) are allowed only in rules "
        "without temporal operators; derive the fact with a plain rule and apply the operator in another rule",
        source_line=rule.text,
    )


def _note_existential(rule: ast.Rule, existentials: list) -> None:
    """Say aloud that a head variable is existential: before existential
    rules, such a rule was refused as unsafe, and a misspelt variable now
    runs the chase instead of failing."""
    import warnings

    from chronolog.language.errors import Note

    names = ", ".join(existentials)
    where = f"{rule.pos}: " if rule.pos is not None and rule.pos.line else ""
    verb = "occur" if len(existentials) > 1 else "occurs"
    warnings.warn(Note(
        f"{where}{names} {verb} in the head of {ast.head_atom(rule.head).pred} but nowhere in its body, so the rule "
        "is existential: each body match gets a labelled null (_:n1, ...) unless the head already holds "
        "(if a variable is misspelt, bind it in the body)"
    ), stacklevel=2)


# ---------------------------------------------------------------- the plan side


@dataclass
class ExistentialRule(PlanRule):
    """A plan rule whose head has existential variables.  Its row pipeline
    (engine/rows/chase.py's ``chase_pipeline``) ends in a ChaseNode instead
    of an OutputNode; the columnar executor never runs it (a PlanRule
    subclass is a row-only rule unless an executor lowers its kind)."""

    existentials: tuple = ()
    # a fact added later may satisfy a head that got a null: an update
    # recomputes the model (as for negation) instead of extending it
    nonmonotonic = True

    @classmethod
    def of(cls, base: PlanRule, existentials) -> "ExistentialRule":
        return cls(base.head_pred, base.head_terms, base.body, base.head_shift, base.source, base.fresh, tuple(existentials))

    def describe(self) -> str:
        return f"{super().describe()}  [exists {', '.join(self.existentials)}: restricted chase]"



def _positions(rule):
    """(body occurrences, head occurrences) of each variable: var -> [(pred, i)]."""
    from .ir import Assign

    body: dict = {}
    for lit in rule.body:
        if isinstance(lit, Scan):
            for i, t in enumerate(lit.terms):
                if isinstance(t, ast.Var):
                    body.setdefault(t.name, []).append((lit.pred, i))
    # an assignment (Z = X, Z = X + 1) carries its inputs' positions: a null
    # copied by Z = X flows on (arithmetic on a null is an error)
    assigns = [l for l in rule.body if isinstance(l, Assign)]
    for _ in assigns:
        for a in assigns:
            for v in ast.variables_of(a.expr):
                for p in body.get(v, ()):
                    if p not in body.setdefault(a.var, []):
                        body[a.var].append(p)
    head: dict = {}
    for i, t in enumerate(rule.head_terms):
        if isinstance(t, ast.Var):
            head.setdefault(t.name, []).append((rule.head_pred, i))
    return body, head


def check_weakly_acyclic(rules) -> None:
    """Refuse a program whose chase might not terminate (see the module)."""
    from .stratify import strongly_connected_components

    if not any(isinstance(r, ExistentialRule) for r in rules):
        return
    succ: dict = {}
    special = []  # (from, to, rule)
    nodes: list = []

    def edge(a, b):
        succ.setdefault(a, []).append(b)

    for r in rules:
        if r.head_pred is None:
            continue
        body, head = _positions(r)
        for p in [p for ps in body.values() for p in ps] + [p for ps in head.values() for p in ps]:
            nodes.append(p)
        exist = set(getattr(r, "existentials", ()))
        for v, targets in head.items():
            if v in exist:
                continue
            for src in body.get(v, ()):
                for dst in targets:
                    edge(src, dst)
        if exist:
            frontier = [v for v in head if v not in exist and v in body]
            for v in frontier:
                for src in body[v]:
                    for e in exist:
                        for dst in head[e]:
                            edge(src, dst)
                            special.append((src, dst, r))
    comps = strongly_connected_components(list(dict.fromkeys(nodes)), succ)
    comp_of = {p: i for i, c in enumerate(comps) for p in c}
    for src, dst, r in special:
        if comp_of.get(src) == comp_of.get(dst):
            cycle = _cycle_rules(rules, comps[comp_of[dst]])
            src_rule = r.source
            pred, i = dst
            raise ProgramError(
                f"the chase may not terminate: the rule makes a new null at argument {i + 1} of {pred}, "
                f"and values from that position can flow back into the rule's body"
                + (f" (through: {cycle})" if cycle else ""),
                src_rule.pos if src_rule is not None else None,
                hint="existential rules must be weakly acyclic: no new null may feed, through any chain of rules, "
                "the body of a rule that makes a null; bound the recursion, or give the witness as data",
                source_line=src_rule.text if src_rule is not None else "",
            )


def _cycle_rules(rules, comp) -> str:
    """The user's rules whose edges lie inside the cycle's component, as text."""
    inside = set(comp)
    texts = []
    for r in rules:
        if r.head_pred is None:
            continue
        body, head = _positions(r)
        hit = any(p in inside for ps in head.values() for p in ps) and any(
            p in inside for ps in body.values() for p in ps
        )
        src = r.source
        if hit and src is not None and src.text:
            t = src.text.strip()
            if t not in texts:
                texts.append(t)
    return " ".join(texts[:4])
