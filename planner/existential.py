"""Existential rules: a head variable that occurs nowhere in the body.

``controller(Y, C) :- company(C).`` says every company has *some*
controller.  As in the Temporal Vadalog system, existential reasoning and
temporal reasoning are separate fragments: existential variables are allowed
only in rules without temporal operators (no diamond, box, Since/Until, time
grouping, head box; an interval term ``lit@[S,E]`` in the body is allowed:
it turns time into data, the paper's "unwrapping").  Temporal rules may read
and copy the nulls the existential rules invent.

Evaluation is the restricted chase (engine/rows/chase.py).  Whether a chase
terminates is undecidable; chronolog runs it when either

* the program is *jointly acyclic* (Kroetzsch and Rudolph, "Extending
  decidable existential rules by joining acyclicity and guardedness"): for
  each existential variable, follow the positions its nulls can move to (a
  rule moves a variable's value when every body position of the variable can
  hold the null); no existential rule may be fed, through a variable all of
  whose body positions can hold its own nulls, back into itself.  Then the
  chase terminates on any data.  Joint acyclicity accepts every weakly
  acyclic program and more; or
* it is not, and the chase is *watched*: the rules on such a cycle make
  nulls as usual, and the run stops with an error as soon as a null would
  nest nulls of its own rule and variable more deeply than there are facts
  without nulls.  No data-independent condition can accept every program
  whose chase stops on the data at hand (a rule whose chase stops on one
  instance may run forever on another), so this guard bounds the run
  instead: a finished run is the exact restricted chase; a chase that keeps
  counting with nulls past the size of its data is refused.
"""

from __future__ import annotations

from chronolog.language import ast
from chronolog.language.errors import ProgramError
from chronolog.language.records import record
from chronolog.language.rule_shapes import decisions

from .ir import PlanRule, Scan


# ---------------------------------------------------------------- the AST side


def existential_variables(rule: ast.Rule) -> list:
    """Head variables that occur nowhere in the body, in head order (found
    once for the rules of one shape: language/rule_shapes.py)."""
    shared = decisions(rule)
    if shared is None:
        return _existential_variables(rule)
    found = shared.get("existentials")
    if found is None:
        found = shared["existentials"] = tuple(_existential_variables(rule))
    return list(found)


def _existential_variables(rule: ast.Rule) -> list:
    head = ast.head_atom(rule.head)
    if head is None:
        return []
    missing = {t.name for t in head.terms if type(t) is ast.Var}
    for lit in rule.body:  # (first the body's atoms and assigned variables: no walk of expressions, most rules)
        kind = type(lit)
        if kind is ast.Atom:
            missing.difference_update(t.name for t in lit.terms if type(t) is ast.Var)
        elif kind is ast.Assignment:
            missing.discard(lit.var.name)
    if missing:
        for lit in rule.body:
            if type(lit) is not ast.Atom:
                missing -= ast.variables_of(lit)
    if not missing:
        return []
    return list(dict.fromkeys(t.name for t in head.terms if type(t) is ast.Var and t.name in missing))


def _temporal_literal(lit):
    """The first temporal construct inside a body literal, or None."""
    if isinstance(lit, ast.Temporal):  # diamonds, boxes, time grouping
        return lit
    if isinstance(lit, ast.Binary):
        return lit
    if isinstance(lit, (ast.Negation, ast.Timed)):
        return _temporal_literal(lit.inner)
    return None


def check_existential_rule(rule: ast.Rule, existentials: list, meanings=None) -> None:
    """Existential variables only in rules the chase can run: no temporal
    operator, no aggregate, no interval from terms in the head.  ``meanings``
    (a dialect's helper predicates, see normalize.meaning_of) spell a
    formula the message quotes as the user wrote it."""
    names = ", ".join(existentials)
    plural = "s" if len(existentials) > 1 else ""
    why, where = None, rule.pos
    if isinstance(rule.head, ast.Temporal):
        why = f"its head has a temporal operator: {rule.head}"  # (the formula as its dialect writes it)
    elif isinstance(rule.head, ast.Timed):
        why = "its head takes its interval from terms (@[S,E])"
    else:
        for lit in rule.body:
            found = _temporal_literal(lit)
            if found is not None:
                why = f"its body uses a temporal operator: {_as_written(found, meanings or {})}"
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


def _as_written(formula, meanings: dict):
    """``formula`` as its dialect writes it, a helper predicate a dialect
    made (a LARS time capture) as the formula it stands for."""
    from .normalize import meaning_of

    return ast.substitute(formula, {}, lambda atom: meaning_of(meanings, atom))


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


@record
class ExistentialRule(PlanRule):
    """A plan rule whose head has existential variables.  Its row pipeline
    (engine/rows/chase.py's ``chase_pipeline``) ends in a ChaseNode instead
    of an OutputNode; the columns fire it between rounds
    (engine/columns/chase.py)."""

    existentials: tuple = ()
    # None when the program is jointly acyclic; else the rules through which
    # this rule's nulls come back (the chase is watched: see the module)
    watched: object = None
    # a fact added later may satisfy a head that got a null: an update
    # recomputes the model (as for negation) instead of extending it
    nonmonotonic = True

    @classmethod
    def of(cls, base: PlanRule, existentials) -> "ExistentialRule":
        return cls(base.head_pred, base.head_terms, base.body, base.head_shift, base.source, base.fresh, tuple(existentials))

    def describe(self) -> str:
        watch = "; nesting watched" if self.watched is not None else ""
        return f"{super().describe()}  [exists {', '.join(self.existentials)}: restricted chase{watch}]"



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


def check_termination(rules) -> None:
    """Mark the existential rules that lie on a cycle of the joint-acyclicity
    graph as watched (see the module), with the rules of the cycle."""
    from .stratify import strongly_connected_components

    exist = [(r, z) for r in rules if isinstance(r, ExistentialRule) for z in r.existentials]
    if not exist:
        return
    shape = [(r, *_positions(r)) for r in rules if r.head_pred is not None]
    moves = [_moves(shape, r, z) for r, z in exist]
    succ = {
        i: [j for j, (r2, _z) in enumerate(exist) if _carries(shape, r2, moves[i])] for i in range(len(exist))
    }
    for comp in strongly_connected_components(list(range(len(exist))), succ):
        if len(comp) > 1 or comp[0] in succ[comp[0]]:
            inside = set().union(*(moves[i] for i in comp))
            text = _cycle_rules(rules, inside)
            for i in comp:
                exist[i][0].watched = text


def _moves(shape, rule, z) -> set:
    """Mov(z): the positions a null made for ``z`` by ``rule`` can reach."""
    _body, head = next((b, h) for r, b, h in shape if r is rule)
    mov = set(head[z])
    changed = True
    while changed:
        changed = False
        for _r, body, head in shape:
            for v, targets in head.items():
                if body.get(v) and set(body[v]) <= mov and not set(targets) <= mov:
                    mov |= set(targets)
                    changed = True
    return mov


def _carries(shape, rule, mov) -> bool:
    """Whether a value at positions ``mov`` can reach the frontier of the
    existential ``rule``: a frontier variable all of whose body positions
    are in ``mov``."""
    body, head = next((b, h) for r, b, h in shape if r is rule)
    return any(body.get(v) and set(body[v]) <= mov for v in head if v not in rule.existentials)


def _cycle_rules(rules, inside) -> str:
    """The user's rules that move values between the cycle's positions, as text."""
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
