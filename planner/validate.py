"""Checks on a parsed program that the grammar cannot make: arities, safety,
annotations.  Each failure is a :class:`ProgramError` at the offending place."""

from __future__ import annotations

from chronolog.language import ast
from chronolog.language.errors import ProgramError, counted
from chronolog.language.mapping_types import MAPPING_TYPES
from chronolog.language.rule_shapes import decisions

from .existential import check_existential_rule, existential_variables

KNOWN_ANNOTATIONS = {
    "input": (1, 1),
    "output": (1, 1),
    "timeGranularity": (1, 1),
    "bind": (4, 4),
    "mapping": (3, 4),
    "timeMapping": (3, 5),
    "temporal": (2, 2),
    "config": (2, 2),
    # Vadalog's relaxed safety: accepted, safety here is already what the
    # engine can evaluate (an unsafe rule is still an error)
    "relaxedSafety": (0, 0),
    # @temporalType("p", "double"): the time columns of p's input are numbers
    "temporalType": (2, 2),
}


def _where(pos) -> str:
    return f"{pos}" if pos is not None and pos.line else "elsewhere"


def collect_arities(program: ast.Program, extra_facts=None, program_arities=None) -> dict:
    """``pred -> (arity, pos)`` for every predicate; raises on a mismatch.
    ``program_arities``: what this returned for ``program`` alone, its
    rules and facts not read again (an update's facts, checked against a
    program of 2,000 rules: 4 ms each)."""
    arities: dict = dict(program_arities) if program_arities is not None else {}
    extra_facts = extra_facts if extra_facts is not None else {}  # (FactRows of repeating facts only: empty as a dict)

    def see(pred, n, pos):
        if pred in arities:
            want, first = arities[pred]
            if want != n:
                raise ProgramError(
                    f"{pred} has {counted(n, 'argument')} here but {want} at {_where(first)}",
                    pos,
                    hint=f"use {pred} with the same number of arguments everywhere",
                )
        else:
            arities[pred] = (n, pos)

    Atom = ast.Atom
    for rule in program.rules if program_arities is None else ():
        head = rule.head if type(rule.head) is Atom else ast.head_atom(rule.head)
        if head is not None:
            known = arities.get(head.pred)
            if known is None or known[0] != len(head.terms):  # (else nothing to see: most heads are new)
                see(head.pred, len(head.terms), head.pos if head.pos.line else rule.pos)
        for lit in rule.body:
            for atom in (lit,) if type(lit) is Atom else ast.atoms_of(lit):  # (most literals are atoms: no walk)
                known = arities.get(atom.pred)
                if known is None or known[0] != len(atom.terms):
                    see(atom.pred, len(atom.terms), atom.pos if atom.pos.line else rule.pos)
    for fact in program.facts if program_arities is None else ():
        see(fact.pred, len(fact.terms), fact.pos)
    # extra facts come as FactRows (pred -> rows, all of one arity)
    positions = getattr(extra_facts, "positions", {})
    for pred, rows in dict(extra_facts).items():
        if rows:
            see(pred, len(rows[0][0]), positions.get(pred))
    for pred, rows in getattr(extra_facts, "repeating", {}).items():
        for terms, _, _, pos in rows:
            see(pred, len(terms), pos)
    return arities


def check_safety(rule: ast.Rule, meanings=None) -> None:
    """Every head variable, compared variable and assignment input must be
    bound by a positive atom (not only under ``not``, not only on the left
    of an S/U whose window holds 0), or by an assignment from bound
    variables.  A head variable that occurs nowhere in the body is
    existential (planner/existential.py), allowed in rules without temporal
    operators."""
    bound: set = set()
    for lit in rule.body:
        bound |= _binding_vars(lit)
    assignments = [(lit, ast.variables_of(lit.expr)) for lit in rule.body if isinstance(lit, ast.Assignment)]
    changed = True
    while changed:
        changed = False
        for a, uses in assignments:
            if a.var.name not in bound and uses <= bound:
                bound.add(a.var.name)
                changed = True
    for a, uses in assignments:
        missing = uses - bound
        if missing:
            raise ProgramError(
                f"unsafe rule: {_names(missing)} in the assignment '{_as_written(a)}' {_is(missing)} not bound by a positive atom",
                a.pos if a.pos.line else rule.pos,
                hint="every variable used in an expression must occur in a positive body atom"
                + ("; each _ is a variable of its own: name it (V) to use it twice" if "_" in _names(missing).split(", ") else ""),
                source_line=rule.text,
            )
    for lit in rule.body:
        if isinstance(lit, ast.Comparison):
            missing = ast.variables_of(lit) - bound
            if missing:
                raise ProgramError(
                    f"unsafe rule: {_names(missing)} in the condition '{_as_written(lit)}' {_is(missing)} not bound by a positive atom",
                    lit.pos if lit.pos.line else rule.pos,
                    hint="every variable in a condition must occur in a positive body atom or an assignment"
                    + ("; each _ is a variable of its own: name it (V) to use it twice" if "_" in _names(missing).split(", ") else ""),
                    source_line=rule.text,
                )
    if isinstance(rule.head, ast.Timed):
        missing = (ast.variables_of(rule.head.start) | ast.variables_of(rule.head.end)) - bound
        if missing:
            raise ProgramError(
                f"unsafe rule: the head's interval variable{'s' if len(missing) > 1 else ''} {_names(missing)} "
                f"{_is(missing)} not bound by the body",
                rule.pos,
                hint="bind them in a body literal such as q(X)@[S,E], or by an assignment S = ...",
                source_line=rule.text,
            )
    head = ast.head_atom(rule.head)
    if head is not None:
        missing = ast.variables_of(head) - bound
        existentials = [v for v in existential_variables(rule) if v in missing] if missing else []  # (existentials are missing)
        if existentials:  # occur nowhere in the body: invented by the chase
            check_existential_rule(rule, existentials, meanings)
            missing -= set(existentials)
        if missing:
            raise ProgramError(
                f"unsafe rule: head variable{'s' if len(missing) > 1 else ''} {_names(missing)} "
                f"{_is(missing)} not bound by a positive body atom",
                rule.pos,
                hint="a head variable must occur in a positive body atom (not only under 'not', "
                "and not only on the left of <S>/<U> whose window holds 0)",
                source_line=rule.text,
            )


def _binding_vars(lit) -> set:
    if isinstance(lit, ast.Atom):
        return ast.variables_of(lit)
    if isinstance(lit, ast.Temporal):
        return _binding_vars(lit.inner)
    if isinstance(lit, ast.Binary):
        # with 0 outside the window the left operand holds on a non-empty
        # interval (between the right one and now), so it binds too
        if _excludes_zero(lit.window):
            return _binding_vars(lit.left) | _binding_vars(lit.right)
        return _binding_vars(lit.right)
    if isinstance(lit, ast.Timed):  # lit@[S,E] binds the interval's ends too
        return _binding_vars(lit.inner) | ast.variables_of(lit.start) | (set() if lit.end is None else ast.variables_of(lit.end))
    return set()


def _excludes_zero(window) -> bool:
    lo, lc = window[0], window[2]
    try:
        return lo > 0 or (lo == 0 and not lc)
    except TypeError:  # a duration not yet resolved to a number
        return bool(getattr(lo, "seconds", 0))


def _names(vs) -> str:
    return ", ".join(sorted({_as_written(v) for v in vs}))


def _as_written(x) -> str:
    """A variable name or a literal as the user wrote it: the reader names
    each anonymous ``_`` apart (``_2``), which the user never wrote."""
    if isinstance(x, str):
        return "_" if _anonymous(x) else x
    return str(ast.substitute(x, {v: ast.Var("_") for v in ast.variables_of(x) if _anonymous(v)}))


def _anonymous(name: str) -> bool:
    return name.startswith("_") and name[1:].isdigit()


def _is(vs) -> str:
    return "are" if len(vs) > 1 else "is"


def _setting(ann):
    """What an annotation sets, for those that set one thing a single way
    (``@temporal``, the timeline, the merge or the placement, one column's
    ``@mapping``, a predicate's ``@timeMapping``), else None."""
    if ann.name in ("timeGranularity", "temporal"):
        return (ann.name,)
    if ann.name == "config" and ann.args[0] in ("merge", "placement"):  # ("coalesce" repeats, one predicate each)
        return ("config", ann.args[0])
    if ann.name == "mapping":
        return ("mapping", ann.args[0], ann.args[1])
    if ann.name == "timeMapping":
        return ("timeMapping", ann.args[0])
    return None


def check_annotations(program: ast.Program, arities: dict) -> None:
    settings: dict = {}
    for ann in program.annotations:
        if ann.name not in KNOWN_ANNOTATIONS:
            close = close_name(ann.name, KNOWN_ANNOTATIONS)
            raise ProgramError(
                f"unknown annotation @{ann.name}",
                ann.pos,
                hint=(f"did you mean @{close}? " if close else "") + "known annotations: " + ", ".join("@" + k for k in KNOWN_ANNOTATIONS),
            )
        lo, hi = KNOWN_ANNOTATIONS[ann.name]
        if not lo <= len(ann.args) <= hi:
            want = str(lo) if lo == hi else f"{lo} to {hi}"
            raise ProgramError(f"@{ann.name} takes {counted(want, 'argument')}, not {len(ann.args)}", ann.pos)
        if ann.name in ("input", "output", "bind", "mapping", "timeMapping", "temporalType"):
            pred = ann.args[0]
            if not isinstance(pred, str):
                raise ProgramError(f'@{ann.name} expects a predicate name in quotes first, e.g. @{ann.name}("p")', ann.pos)
            if pred not in arities:
                raise ProgramError(
                    f'@{ann.name} names the predicate "{pred}", which no rule or fact uses',
                    ann.pos,
                    hint=_suggest(pred, arities),
                )
        if ann.name == "mapping":
            check_mapped_position(program, ann, arities[ann.args[0]][0])
            check_mapped_type(ann)
        key = _setting(ann)
        first = settings.setdefault(key, ann) if key is not None else ann
        if list(first.args) != list(ann.args):  # (one of them would be dropped without a word)
            raise ProgramError(f"@{ann.name}({_args(ann)}) contradicts @{ann.name}({_args(first)}) at {_where(first.pos)}",
                               ann.pos, hint="keep one of them")


def _args(ann) -> str:
    from chronolog.language.text import format_term

    return ", ".join(f'"{a}"' if isinstance(a, str) else format_term(a) for a in ann.args)


def check_mapped_type(ann) -> None:
    """A ``@mapping`` type spelt like one of MAPPING_TYPES (the readers'
    list, language/mapping_types.py) but not one (``"strng"``): it read as
    no type at all, so ``007`` became 7 without a word.  Any other type
    reads as numbers, #T/#F and names (docs/language.md)."""
    if len(ann.args) < 4 or not isinstance(ann.args[3], str):
        return
    kind = ann.args[3].lower()
    close = close_name(kind, MAPPING_TYPES) if kind not in MAPPING_TYPES else None
    if close is not None:
        raise ProgramError(f'@mapping of {ann.args[0]}: "{ann.args[3]}" is not a type chronolog reads', ann.pos,
                           hint=f'did you mean "{close}"? (types: {", ".join(MAPPING_TYPES)})')


def close_name(name: str, known):
    """The one of ``known`` that ``name`` most likely misspells, or None
    (an annotation, a type, a function; a column @timeMapping names)."""
    import difflib

    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.75)
    return close[0] if close else None


def check_mapped_position(program: ast.Program, ann, arity: int) -> None:
    """A ``@mapping`` names an argument the predicate has, or a time column
    its ``@timeMapping`` names, by position or by name (iTemporal maps
    those as dates): any other position named a column no fact fills,
    without a word."""
    pred, pos = ann.args[0], ann.args[1]
    times = {t for a in program.annotations if a.name == "timeMapping" and a.args[:1] == [pred] for t in a.args[1:3]}
    name = ann.args[2] if len(ann.args) > 2 and isinstance(ann.args[2], str) else None
    if type(pos) is int and (0 <= pos < arity or pos in times or name in times):
        return
    if type(pos) is not int:
        raise ProgramError(f"@mapping of {pred} names the argument position as a number, not {pos!r}", ann.pos,
                           hint=f'e.g. @mapping("{pred}", 0, "name", "string").')
    last = f"0 to {arity - 1}" if arity > 1 else "0" if arity else "none: it has no arguments"
    raise ProgramError(
        f"@mapping of {pred} names argument {pos}, but {pred} has {counted(arity, 'argument')}",
        ann.pos,
        hint=f"argument positions count from 0 (for {pred}: {last}), or name a time column of its @timeMapping",
    )


def note_unsupplied(program: ast.Program, given, dialect: str = "vadalog") -> None:
    """Say aloud a predicate that a rule body reads but no rule derives, no
    fact or input gives (``given``: the predicates of the given facts) and
    no ``@input``/``@bind`` declares: most likely a misspelling
    (``p(X) :- qq(X).``), which would otherwise only derive nothing, as an
    existential head variable is said aloud (planner/existential.py).  A
    MeTeoR program has no annotations: its note names no ``@input``."""
    import warnings

    from chronolog.language.errors import Note

    supplied = set(given) | {f.pred for f in program.facts}
    supplied |= {a.args[0] for a in program.annotations if a.name in ("input", "bind") and a.args}
    Atom = ast.Atom
    heads = [r.head for r in program.rules]
    supplied |= {head.pred for head in heads if type(head) is Atom}  # (most heads: no walk)
    supplied |= {head.pred for head in map(ast.head_atom, [h for h in heads if type(h) is not Atom]) if head is not None}
    read = {lit.pred for r in program.rules for lit in r.body if type(lit) is Atom}  # (most literals: one set of them all)
    read.update(a.pred for r in program.rules for lit in r.body if type(lit) is not Atom for a in ast.atoms_of(lit))
    if all(p.startswith("$") for p in read - supplied):  # (nothing to say: no walk rule by rule)
        return
    seen = set()
    for rule in program.rules:
        for lit in rule.body:
            for atom in (lit,) if type(lit) is ast.Atom else ast.atoms_of(lit):  # (most literals are atoms: no walk)
                p = atom.pred
                if p in supplied or p in seen or p.startswith("$"):  # $: the dialects' helpers
                    continue
                seen.add(p)
                pos = atom.pos if atom.pos.line else rule.pos
                where = f"{pos}: " if pos is not None and pos.line else ""
                import difflib

                close = difflib.get_close_matches(p, sorted(supplied - {p}), n=1)
                said = [f"did you mean {close[0]}?"] if close else []
                if dialect != "meteor":
                    said.append(f'declare it with @input("{p}"). when its facts come later')
                warnings.warn(Note(
                    f"{where}{p} is read in a rule body, but no rule derives it and no fact or input gives it, "
                    f"so it holds nowhere" + (f" ({' '.join(said)})" if said else "")
                ), stacklevel=2)


def note_unused_assignments(rule: ast.Rule) -> None:
    """Say aloud an assignment whose variable nothing else in the rule reads
    (``p(X) :- q(X, V), S = sum(V).``): it computes a value no fact
    receives, most likely a head that forgot it or a misspelt variable.
    An assignment to a variable an atom binds too is a condition."""
    assigned = [lit for lit in rule.body if type(lit) is ast.Assignment]
    if not assigned:
        return
    for a in assigned:
        name = a.var.name
        if name.startswith("_"):
            continue
        if name in ast.variables_of(rule.head) or any(name in ast.variables_of(lit) for lit in rule.body if lit is not a):
            continue
        import warnings

        from chronolog.language.errors import Note

        pos = a.pos if a.pos.line else rule.pos
        where = f"{pos}: " if pos is not None and pos.line else ""
        what = "an aggregate" if isinstance(a.expr, ast.Aggregate) else "a value"
        warnings.warn(Note(
            f"{where}{name} = {a.expr} computes {what} that nothing reads: {name} is not in the head nor in "
            f"another literal of the rule (put {name} in the head, or drop the assignment)"
        ), stacklevel=2)


def _suggest(name: str, known) -> str:
    import difflib

    close = difflib.get_close_matches(name, list(known), n=1)
    return f"did you mean {close[0]}?" if close else "check the spelling of the predicate"


# The executors pull a rule's body through one node per literal, each
# calling the next (engine/node.py), and the plan's printers walk it the
# same way: Python's stack holds about a thousand such calls.
MAX_BODY_LITERALS = 500


def check_body_length(rule: ast.Rule) -> None:
    """A body too long to evaluate is refused with the way out, not a crash."""
    if len(rule.body) > MAX_BODY_LITERALS:
        raise ProgramError(
            f"this rule's body has {len(rule.body)} literals, more than the {MAX_BODY_LITERALS} chronolog evaluates in one rule",
            rule.pos,
            hint="give part of the body a rule of its own, e.g. part(X, Y) :- <some of the literals>. and use part(X, Y) in their place",
        )


def check_calls(rule: ast.Rule, checked: dict | None = None) -> None:
    """A function a condition or an assignment calls that does not exist or
    takes other arguments (``abs(X, 1)``, ``foo(X)``): refused when the
    program loads.  The row executor said so only when the rule first
    matched a fact, the columnar one never, so a rule over data that had
    not arrived yet ran silently on one executor and failed on the other.
    ``checked``: id -> expression of the expressions found right so far
    (rules read by shape share them: language/rule_shapes.py; 10,000 rules
    walked the same expression each)."""
    for lit in rule.body:
        if isinstance(lit, ast.Comparison):
            exprs = (lit.left, lit.right)
        elif isinstance(lit, ast.Assignment):
            exprs = (lit.expr,)
        else:
            continue
        for e in exprs:
            if checked is None or checked.get(id(e)) is not e:
                check_expression(e, lit, rule)
                if checked is not None:
                    checked[id(e)] = e  # (the object held: its id names no other while the dict lives)


def check_expression(e, lit, rule: ast.Rule) -> None:
    """:func:`check_calls` of one expression ``e`` of ``lit`` in ``rule``."""
    if isinstance(e, ast.BinOp):
        check_expression(e.left, lit, rule)
        check_expression(e.right, lit, rule)
    elif isinstance(e, ast.Call):
        from chronolog.language.builtins import AGGREGATES, FUNCTIONS, check_arity

        problem = check_arity(e.name, len(e.args))
        if problem is not None:
            # (a whole assignment's unknown call, A = mavg(V), is most often a misspelt aggregate)
            whole = isinstance(lit, ast.Assignment) and lit.expr is e and e.name not in FUNCTIONS
            close = close_name(e.name, list(FUNCTIONS) + (sorted(AGGREGATES) if whole else [])) if e.name not in FUNCTIONS else None
            raise ProgramError(f"{problem}, in {lit}", getattr(lit, "pos", None) or rule.pos,
                               hint=(f"did you mean {close}()? " if close else "") + "available functions: " + ", ".join(sorted(FUNCTIONS))
                               + ("; aggregates: " + ", ".join(sorted(AGGREGATES)) if whole else ""))
        for a in e.args:
            check_expression(a, lit, rule)
    elif isinstance(e, ast.Aggregate) and e.expr is not None:
        check_expression(e.expr, lit, rule)


def validate(program: ast.Program, extra_facts=None) -> dict:
    arities = collect_arities(program, extra_facts)
    checked: dict = {}
    for rule in program.rules:
        check_calls(rule, checked)
        note_unused_assignments(rule)
        shared = decisions(rule)
        if shared is not None and shared.get("safe"):  # (its structure is one found safe: language/rule_shapes.py)
            continue
        check_body_length(rule)
        check_safety(rule, getattr(program, "helper_meanings", None))
        if shared is not None and not existential_variables(rule):  # (an existential rule's note names each rule)
            shared["safe"] = True
    check_annotations(program, arities)
    return arities
