"""The class of every term column (number, string, boolean, float, date),
inferred before the rounds start from each term's kind (engine/term_types.py).

Spark compares a string with a number by an implicit cast; the engine never
finds them equal.  So every column and every join variable must hold one
class (integers and decimals are one: numbers; binary floats, from a
``double``/``float`` input column, a Python float given as a fact, or a
rule's computation (functions.py), are another), known from the inputs'
Spark types and the program's constants and carried through the rules to
the heads; a column that mixes them is term text (TEXT, below), but for
dates beside timestamps, one instant class (:func:`meet`).  A
variable that joins two classes no term of which the engine finds equal
(:func:`disjoint`: an instant and a number, a string and a number, a set
and a string, ...) binds nothing: the rule derives nothing
(:func:`never_binds`, its head takes no class from it), and a negated
atom it meets so never holds (rules.py), as the engine's equality says.
The engine finds a float equal to the exact number of its value (``1.0``
= ``1``: Python's equality), which Spark's implicit cast would decide
through a float (``2^53 + 1`` = ``2.0^53``): a join variable (a negated
atom's too) holding floats and exact numbers makes the columns it links
term text (:class:`TwoKinds`), compared by key text; a constant of one
kind against a column of the other is compared exactly (rules.py,
functions.float_vs_exact, terms.TermTypes.float_equals).

A column of term text (constants of several kinds, sets, exact numbers
past decimals: engine/term_types.text_marker) is its own class, TEXT: each
cell, once at the load, as the text ``term_types.key_text`` gives its term
(udfs.key_text_sql), which two cells share exactly when the engine finds
their terms equal, so joins, negation and grouping compare strings; the
program's constants against it are written the same way (terms.py), and
every column a variable joins with one (:func:`text_positions`) is
such text too, an input's typed column keyed at its load.  An argument
that two rules' heads give two classes (or the program's facts: entry.py)
is term text as well (:class:`TwoKinds`): each head writes its typed
value's key text in SQL (terms.TermTypes.key_text_sql; a float's is the
engine's key_text in a UDF, :func:`writes_floats`; a set has none:
:func:`writes_key_text`).  Where a rule orders, computes on or
folds it (:func:`works_on_text`), an input's column of term text whose
terms share one kind is decoded to that kind's class at the load
(entry.decodable, inputs.decoded_sql); a column whose kinds mix is
ordered, folded by min/max and computed on from each cell's key text
(text_order.py), the run stopping where the engine has no order or SQL
no exact value.
"""

from __future__ import annotations

import math
from fractions import Fraction

from chronolog.engine.term_types import value_kind
from chronolog.language import ast
from chronolog.language.timeline import decimal_places
from chronolog.planner.ir import Assign, Condition, NegScan, Scan
from chronolog.planner.normalize import TOP
from chronolog.planner.physical import Aggregate, CaptureTime, ChaseStep, WrapInterval, rule_operator

from .fragment import NotRelational

NUM, STR, BOOL, FLOAT = "num", "str", "bool", "float"
DATE = "date"  # instants at midnight, as Spark DATEs (an instant never equals a number: engine/term_types.py)
# other instants (a TIMESTAMP or TIMESTAMP_NTZ argument, a datetime constant
# off midnight), as Spark TIMESTAMP_NTZs of their UTC wall clock: Spark
# compares a DATE with one, and casts between them, at midnight UTC in any
# session time zone, so a date and a timestamp at one instant are one term
# as the engine finds them; typed out as DATEs when every answer is a
# midnight (outputs.midnights)
TS = "timestamp"
SET = "set"  # munion's set, as the engine's text of it (sets.py)
TEXT = "term text"  # any term, as its key text (term_types.key_text): a column of term text


# the rounds' class of each kind of term (engine/term_types.py: the rule);
# exact numbers past a finite decimal and the rest have none
_CLASS_OF_KIND = {"int": NUM, "dec": NUM, "str": STR, "bool": BOOL, "float": FLOAT, "date": DATE, "timestamp": TS}


def value_class(v):
    """The class of a constant term, from its kind (#T/#F never a number)."""
    if type(v) is float and math.isnan(v):  # (the engine refuses a NaN term where it reads one: engine/arrow.py)
        raise NotRelational("the float nan as a term")
    if isinstance(v, Fraction):
        decimal_digits(v)  # only finite decimals
    c = _CLASS_OF_KIND.get(value_kind([v])[0])
    if c is None:
        from chronolog.language.text import format_term

        raise NotRelational(f"the term {format_term(v)} (only numbers, strings, floats, booleans, dates and timestamps are handled)")
    return c


# the most decimals a term of the run's numbers has: decimal(38, S) holds
# 64-bit integers (19 digits) beside them
MAX_SCALE = 38 - 19


def past_decimals(kind) -> bool:
    """Whether a term kind (engine/term_types.value_kind) is decimals no
    decimal(38, S) holds beside 64-bit integers: 39+ digits, or more than
    MAX_SCALE after the point."""
    return kind[0] == "dec" and (kind[1] + kind[2] > 38 or kind[2] > MAX_SCALE)


def rational(v) -> bool:
    """Whether ``v`` is an exact number with no finite decimal (1/3), or
    one of more than MAX_SCALE decimals (2^-20: 20): no number of the
    run's type, its key text where a rule computes on it (fractions.py)."""
    if not isinstance(v, Fraction):
        return False
    places = decimal_places(v)
    return places is None or places > MAX_SCALE


def meet(a, b):
    """The class of a column or a variable holding terms of classes ``a``
    and ``b`` (None: not known), or False where the rounds hold no such
    column: dates beside other instants are instants (TS), any other two
    classes are refused."""
    if a is None or a == b:
        return b
    if b is None:
        return a
    return TS if {a, b} == {DATE, TS} else False


def disjoint(a, b) -> bool:
    """Whether no term of class ``a`` equals one of class ``b`` as the
    engine compares them (engine/term_types.py): both known, and neither
    one class (:func:`meet`) nor floats beside exact numbers (``1.0`` =
    ``1``), nor term text (any term).  A DATE 2024-01-01 is not the
    integer 1704067200, a string ``"1"`` not the number 1, ``#T`` not 1."""
    return None not in (a, b) and meet(a, b) is False and {a, b} != {NUM, FLOAT} and TEXT not in (a, b)


def never_binds(lits, classes: dict) -> bool:
    """Whether the positive atoms among ``lits`` bind no variable at all
    with ``classes`` (``{pred: [class per argument]}``): a variable at two
    positions of :func:`disjoint` classes, in two atoms or one, is equal
    to no term of both, so the body holds nowhere."""
    seen: dict = {}
    for lit in lits:
        if not isinstance(lit, Scan) or lit.pred == TOP:
            continue
        cols = classes.get(lit.pred) or ()
        for i, t in enumerate(lit.terms):
            if isinstance(t, ast.Var) and i < len(cols) and cols[i] is not None:
                have = seen.setdefault(t.name, cols[i])
                if disjoint(have, cols[i]):
                    return True
                seen[t.name] = meet(have, cols[i]) or have
    return False


def mixed(a, b) -> str:
    """Why floats beside exact numbers are refused, when ``a``, ``b`` are those."""
    if {a, b} == {NUM, FLOAT}:
        return " (the engine finds a float equal to the exact number of its value, Spark would compare them through a float)"
    return ""


def decimal_digits(x) -> int:
    """Decimal digits after the point of a rational; NotRelational if infinite."""
    if not isinstance(x, Fraction) or x.denominator == 1:
        return 0
    k = decimal_places(x)
    if k is None:
        raise NotRelational(f"the number {x} has no finite decimal expansion")
    return k


def spark_class(typ):
    """``(class, digits after the point, digits before it)`` of a term
    column of Spark type ``typ``, from its kind (floats are binary floats,
    as the engine reads them: inputs.py)."""
    from ..spark import spark_kind

    kind = spark_kind(typ) or ["other"]
    if kind[0] == "empty":
        return None, 0, 0
    got = kind_class(kind)
    if got is None:
        raise NotRelational(f"a term column of Spark type {typ.simpleString()}")
    return got


def kind_class(kind):
    """``(class, digits after the point, digits before it)`` of terms of
    ``kind`` (engine/term_types.value_kind: a Spark type's, or a column of
    term text's, entry.decodable), None for a kind no typed column holds."""
    c = _CLASS_OF_KIND.get(kind[0])
    if c is None:
        return None
    return c, kind[2] if kind[0] == "dec" else 0, kind[1] if kind[0] in ("int", "dec") else 0


def time_digits(typ) -> int:
    """Decimal digits of a time column of Spark type ``typ``."""
    from pyspark.sql import types as T

    if isinstance(typ, (T.LongType, T.IntegerType, T.ShortType, T.ByteType, T.NullType)):
        return 0
    if isinstance(typ, T.DecimalType):
        return typ.scale
    if isinstance(typ, T.DateType):  # seconds since 1970 at midnight UTC (calendar.seconds_sql)
        return 0
    if isinstance(typ, (T.TimestampType, T.TimestampNTZType)):  # seconds to the microsecond
        return 6
    raise NotRelational(f"a time column of Spark type {typ.simpleString()} (numbers, dates and timestamps only on this path)")


def text_positions(plan, given: dict, more=frozenset()) -> set:
    """The ``(pred, argument)`` positions that hold term text (TEXT): those
    ``given`` so, labelled nulls (:func:`null_positions`), those in ``more`` (arguments two rules' heads give
    two classes, and body columns keyed for such a head: :class:`TwoKinds`),
    and, transitively, every position a rule's variable links to one in
    its body (a body atom's argument, a negated atom's, the head's): a
    column compared with term text must hold the same text (its input
    keyed at the load, a constant written as its key text), and a head
    copying term text holds it.  A head's argument of term text does not
    make its rule's body columns text: the head writes the key text of
    their typed terms (terms.TermTypes.key_text_sql)."""
    texts = {(p, i) for p, cols in given.items() for i, c in enumerate(cols) if c == TEXT} | set(more)
    texts |= null_positions(plan)
    links = []  # per rule and variable: the positions it occupies in the body, and in the head
    for r in plan.rules:
        at: dict = {}
        for lit in r.body:
            if isinstance(lit, (Scan, NegScan)) and lit.pred != TOP:
                for i, t in enumerate(lit.terms):
                    if isinstance(t, ast.Var):
                        at.setdefault(t.name, (set(), set()))[0].add((lit.pred, i))
        for i, t in enumerate(r.head_terms):
            if isinstance(t, ast.Var) and t.name in at:
                at[t.name][1].add((r.head_pred, i))
        links.extend((body, body | head) for body, head in at.values() if len(body | head) > 1)
    changed = bool(texts)
    while changed:
        changed = False
        for body, ps in links:
            if body & texts and not ps <= texts:
                texts |= ps
                changed = True
    return texts


def null_positions(plan) -> set:
    """The ``(pred, argument)`` positions where an existential rule puts a
    labelled null (chase.py): term text, a null's cell its key text."""
    out = set()
    for r in plan.rules:
        op = rule_operator(r)
        if isinstance(op, ChaseStep):
            out |= {(r.head_pred, i) for i, t in enumerate(r.head_terms) if isinstance(t, ast.Var) and t.name in op.existentials}
    return out


def text_constants(plan, texts: set) -> list:
    """The constants of ``plan`` written as key text (any term): in atoms
    and heads at positions of term text (:func:`text_positions`), and
    compared (``==``, ``!=``) with a variable bound at one (rules.condition)."""
    out = []
    for r in plan.rules:
        bound = set()  # the rule's variables at positions of term text
        for lit in r.body:
            if isinstance(lit, (Scan, NegScan)):
                out += [t.value for i, t in enumerate(lit.terms) if isinstance(t, ast.Const) and (lit.pred, i) in texts]
                bound |= {t.name for i, t in enumerate(lit.terms) if isinstance(t, ast.Var) and (lit.pred, i) in texts}
        for lit in r.body:
            sides = (lit.comparison.left, lit.comparison.right) if isinstance(lit, Condition) else ()
            if sides and any(isinstance(x, ast.Var) and x.name in bound for x in sides):  # (ordered too: text_order.py)
                out += [x.value for x in sides if isinstance(x, ast.Const)]
        out += [t.value for i, t in enumerate(r.head_terms) if isinstance(t, ast.Const) and (r.head_pred, i) in texts]
    return out


def infer_classes(plan, given: dict, texts: frozenset = frozenset()) -> dict:
    """``{pred: [class per argument]}`` over the whole program: input classes
    flow through rule variables to the heads.  A column or a join variable
    with two classes (other than integers with decimals) would be compared by
    Spark's implicit casts where the engine compares exactly: refused.
    ``texts``: the positions of term text (:func:`text_positions`), where
    a head's constant is term text too.  An average of
    exact numbers is term text, and so are the head's arguments it is
    written into (:class:`TwoKinds`): its exact value, which the run's
    number type need not hold (planner/aggregates.exact_means); so is a
    sum or product of term text (fractions.fold_sql).

    As a least fixpoint: a rule gives its head classes once every atom of
    its body may hold facts (given, or derived by a rule that did), and
    a rule whose body binds nothing (:func:`never_binds`) gives none, nor
    makes its head hold facts (a predicate no rule gives a class has none:
    it holds nothing, typed out as the engine types an empty table)."""
    classes = {p: list(c) for p, c in given.items()}
    derived = set(given)  # the predicates that may hold facts

    def put(pred, i, c, rule):
        cols = classes.setdefault(pred, [None] * len(rule.head_terms))
        if (pred, i) in texts:  # term text: the head writes its value's key text (terms.TermTypes.key_text_sql)
            writes_key_text(c, pred, i, rule)
            c = TEXT
        m = meet(cols[i], c)
        if m is False:
            raise TwoKinds({(pred, i)}, f"argument {i + 1} of {pred} holds both {cols[i]} and {c} terms{mixed(cols[i], c)}", rule)
        changed, cols[i] = m != cols[i], m
        return changed

    operators = {id(r): rule_operator(r) for r in plan.rules}  # what kind each rule is (planner/physical.py)
    dead: set = set()  # the rules whose body binds nothing (never_binds): their heads take no class from them

    def fires(r) -> bool:  # every atom of its body may hold facts
        return all(lit.pred in derived for lit in r.body if isinstance(lit, Scan) and lit.pred != TOP)

    changed = True
    while changed:
        changed = False
        for r in plan.rules:
            if id(r) in dead or not fires(r):
                continue
            if never_binds(r.body, classes):
                # classes only grow more precise (None to a class, DATE to TS), so a
                # rule found dead stays so; what it gave before is undone
                dead.add(id(r))
                classes, derived = {p: list(c) for p, c in given.items()}, set(given)
                changed = True
                break
            if r.head_pred not in derived:
                derived.add(r.head_pred)
                changed = True
            op = operators[id(r)]
            env = {}
            for lit in r.body:
                if not isinstance(lit, Scan) or lit.pred == TOP:
                    continue
                cols = classes.get(lit.pred)
                for i, t in enumerate(lit.terms):
                    c = cols[i] if cols else None
                    if isinstance(t, ast.Var) and c is not None:
                        m = meet(env.get(t.name), c)
                        if m is False:
                            why = f"the variable {t.name} joins {env[t.name]} with {c} terms{mixed(env[t.name], c)}"
                            if {env[t.name], c} == {NUM, FLOAT}:  # compared by their key texts, exactly (1.0 = 1, 0.1 != 1/10)
                                raise TwoKinds(_body_positions(r, t), why, r)
                            raise NotRelational(why, r)
                        env[t.name] = m
            if isinstance(op, (WrapInterval, CaptureTime)):  # lit@[S,E], lit@T: the ends and the point are numbers (interval_terms.py)
                env["$start"] = env["$end"] = env["$time"] = NUM
            _assigned(r.body, env)
            assigned = {lit.var for lit in r.body if isinstance(lit, Assign)}  # (a head of exact arithmetic's key text: below)
            for lit in r.body:  # a negated atom's variables meet its columns in a join too (rules.difference)
                cols = classes.get(lit.pred) if isinstance(lit, NegScan) else None
                for i, t in enumerate(lit.terms if cols else ()):
                    c, have = cols[i], env.get(t.name) if isinstance(t, ast.Var) else None
                    if meet(c, have) is False and not disjoint(c, have):  # (disjoint: it never holds there)
                        if {c, have} == {NUM, FLOAT}:  # compared by their key texts
                            raise TwoKinds(_body_positions(r, t), f"the variable {t.name} of not {lit.pred}(...) joins {have} with {c} terms", r)
                        raise NotRelational(f"the variable {t.name} of not {lit.pred}(...) joins {have} with {c} terms{mixed(have, c)}", r)
            if isinstance(op, Aggregate):
                from chronolog.planner.aggregates import exact_means

                from chronolog.language.builtins import FOLDS

                from .aggregate import exact_quotients, result_class
                from .arithmetic import expr_class

                means_here = exact_means(r)
                for (v, a), (_, given_a) in zip(exact_quotients(op.aggregates), op.aggregates):  # (aggregate.py)
                    c = result_class(a, env)  # a number, or min/max's strings
                    # (a sum or product of term text: exact on fractions, fractions.fold_sql; min or max of a quotient)
                    text = a.expr is not None and expr_class(a.expr, env) == TEXT
                    folded = text and FOLDS[a.func] in ("sum", "prod")
                    quotient = text and a.expr != given_a.expr and c == TEXT
                    if (c == NUM and (v in means_here or folded)) or quotient:  # (its exact value as term text)
                        heads = {(r.head_pred, i) for i, t in enumerate(r.head_terms) if t == ast.Var(v)}
                        if not heads <= texts:
                            raise TwoKinds(heads, f"{v} = {a.func}(...) is an average, or a sum or product of term text, "
                                                  "or of a quotient: any exact number, as term text", r)
                        c = TEXT
                    if c is not None:
                        env[v] = c
                _assigned(r.after, env)  # assignments on the aggregates' results
                assigned |= {lit.var for lit in r.after if isinstance(lit, Assign)}
            for i, t in enumerate(r.head_terms):
                if isinstance(t, ast.Const):  # (term text: written as its key text, terms.TermTypes.const)
                    c = TEXT if (r.head_pred, i) in texts else value_class(t.value)
                elif isinstance(op, ChaseStep) and t.name in op.existentials:  # a labelled null (chase.py)
                    c = TEXT
                else:
                    c = env.get(t.name)
                    if c == TEXT and (r.head_pred, i) not in texts and t.name in assigned:  # (exact arithmetic's key text)
                        raise TwoKinds({(r.head_pred, i)}, f"{t.name} is computed exactly as term text (fractions.py)", r)
                    if (r.head_pred, i) in texts and c in (FLOAT, SET):  # its body's columns keyed at the load instead
                        body = _body_positions(r, t)
                        if body and not body <= texts:
                            raise TwoKinds(body, f"{t.name} binds {c} terms for argument {i + 1} of {r.head_pred}, term text", r)
                if c is not None:
                    changed |= put(r.head_pred, i, c, r)
    for r in plan.rules:  # (a rule found dead beside classes another dead rule gave: live without them)
        if id(r) in dead and fires(r) and not never_binds(r.body, classes):
            raise NotRelational("a join of two kinds of terms that binds nothing only beside another such join", r)
    return classes


class TwoKinds(NotRelational):
    """The ``positions`` (``{(pred, argument)}``) that must hold term text
    (TEXT): an argument two rules' heads give two classes, each head then
    writing its value's key text; or the body columns that bind a float
    or a set for a head of term text, keyed at their load (no SQL writes
    their key text: :func:`writes_key_text`).  entry.prepare infers the
    classes again with them."""

    def __init__(self, positions, why: str, rule=None):
        super().__init__(why, rule)
        self.positions = set(positions)


def _body_positions(rule, var) -> set:
    """The ``(pred, argument)`` positions of the variable ``var`` in the atoms of ``rule``'s body, negated ones too."""
    return {(lit.pred, j) for lit in rule.body if isinstance(lit, (Scan, NegScan)) and lit.pred != TOP
            for j, x in enumerate(lit.terms) if x == var}


def writes_key_text(c, pred: str, i: int, rule) -> None:
    """Refuse a rule's value of class ``c`` into argument ``i`` of ``pred``,
    a column of term text, when nothing writes its key text exactly as
    key_text does (terms.TermTypes.key_text_sql): a set (its members' key
    texts).  A float's is the engine's own key_text, in a UDF: see
    :func:`writes_floats`."""
    if c == SET:
        raise NotRelational(f"argument {i + 1} of {pred} holds term text (two kinds of terms, or terms joined with term text), "
                            "and a rule computes a set for it: no SQL writes a set's key text as the engine does", rule)


def writes_floats(plan, classes: dict) -> bool:
    """Whether a rule writes a float it computes (``Y = V * float(1.5)``,
    a sum of floats) into a column of term text, as its key text (the
    engine's key_text: ``6.0`` is ``6``, ``4.5`` the exact ``4.5``): then a
    cell's text no longer says whether its term is a float, and arithmetic
    or a sum on term text stays with the engine (entry.floats_in_text)."""
    from .aggregate import exact_quotients, lowered, result_class

    for r in plan.rules:
        cols = classes.get(r.head_pred) or ()
        op = rule_operator(r)
        lits = (*lowered(r)[0], *r.after) if isinstance(op, Aggregate) else tuple(r.body)
        env = body_classes(lits, classes)
        if isinstance(op, Aggregate):
            env.update({v: result_class(a, env) for v, a in exact_quotients(op.aggregates)})
            _assigned(r.after, env)
        for i, t in enumerate(r.head_terms):
            if isinstance(t, ast.Var) and i < len(cols) and cols[i] == TEXT and env.get(t.name) == FLOAT:
                return True
    return False


def body_classes(lits, classes: dict) -> dict:
    """The class of each variable the body ``lits`` binds, in the order it
    first binds them: a positive atom's argument's (the first known of
    them), then each assignment's (its expression's; None: not known)."""
    env = {}
    for lit in lits:
        if isinstance(lit, Scan):
            cls = classes.get(lit.pred) or ()
            for i, t in enumerate(lit.terms):
                if isinstance(t, ast.Var) and env.get(t.name) is None:
                    env[t.name] = cls[i] if i < len(cls) else None
    _assigned(lits, env, unknown=True)
    return env


def _assigned(lits, env: dict, unknown: bool = False) -> None:
    """Each assignment's variable of ``lits`` into ``env`` with its
    expression's class (arithmetic.py), where that is known: an assignment
    to a variable whose class is known already is an equality, and one of
    unknown class (None) leaves it to a later one (``Y = A + B, Y = 3``:
    a number, as :func:`infer_classes` and :func:`body_classes` both say).
    ``unknown``: a variable no assignment gives a class is in ``env`` as None."""
    from .arithmetic import expr_class

    for lit in lits:
        if isinstance(lit, Assign) and env.get(lit.var) is None:
            c = expr_class(lit.expr, env)
            if c is not None or (unknown and lit.var not in env):
                env[lit.var] = c


def works_on_text(plan, classes: dict) -> bool:
    """Whether a rule of ``plan`` orders term text (``<`` and the like),
    computes on it (arithmetic, a function), compares it with a term of
    another class or folds it (an aggregate other than ``count``): then
    the inputs' columns of term text whose terms share one kind are
    decoded to it (entry.decodable), the others read from their key text
    (text_order.py)."""
    from chronolog.language.builtins import FOLDS

    from .aggregate import lowered

    def mentions(e, names) -> bool:
        return bool(ast.variables_of(e) & names)

    for r in plan.rules:
        op = rule_operator(r)
        body, aggregates = lowered(r) if isinstance(op, Aggregate) else (r.body, ())
        lits = (*body, *r.after) if isinstance(op, Aggregate) else tuple(body)
        texts = {v for v, c in body_classes(lits, classes).items() if c == TEXT}
        if not texts:
            continue
        for lit in lits:
            if isinstance(lit, Condition):
                sides = (lit.comparison.left, lit.comparison.right)
                plain = all(isinstance(x, ast.Const) or (isinstance(x, ast.Var) and x.name in texts) for x in sides)
                if any(mentions(x, texts) for x in sides) and (lit.comparison.op not in ("==", "!=") or not plain):
                    return True
            elif isinstance(lit, Assign) and not isinstance(lit.expr, (ast.Var, ast.Const)) and mentions(lit.expr, texts):
                return True
        if any(FOLDS[a.func] != "count" and mentions(a.expr, texts) for _, a in aggregates):  # (a quotient's too)
            return True
    return False
