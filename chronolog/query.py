"""Queries with variables: ``controls(X, beta)@[0,10]`` asks for every
binding of X and the intervals, within the window, on which the fact holds.

The window may be an interval, a point (``@5``) or left out (all time).  A
ground query (no variables) is a question of entailment: does the fact hold
throughout the window?  The atom is parsed by the program's grammar (as the
body of a rule), so terms are written as in rules; ``_`` matches anything.
"""

from __future__ import annotations

from typing import NamedTuple, Optional

from chronolog.language import ast
from chronolog.language.errors import ChronologError, ProgramError, counted


class Query(NamedTuple):
    pred: str
    terms: tuple  # ast.Var | ast.Const
    window: Optional[tuple]  # None: all time

    @property
    def variables(self) -> list:
        seen = []
        for t in self.terms:
            if isinstance(t, ast.Var) and not t.name.startswith("_") and t.name not in seen:
                seen.append(t.name)
        return seen

    @property
    def ground(self) -> bool:
        return all(isinstance(t, ast.Const) for t in self.terms)


class Answer(NamedTuple):
    """One binding of the query's variables and the maximal intervals
    (clipped to the window) on which the fact holds with it."""

    binding: dict
    intervals: list


def _ends_early(message: str, what: str, at_end: bool = True) -> str:
    """A reader's message about the end it added (the '.' closing the
    query's rule, the end of the window's fact) said of the query or its
    window: the user never wrote that '.'."""
    for said in ("unexpected '.'", "the fact ends early"):
        if at_end and message.startswith(said):
            return f"the {what} ends early" + message[len(said):]
    return message


def parse_query(text: str, calendar=None, dialect: str = "vadalog") -> Query:
    """``p(X, a)@[0,10]``, ``p(X)@5`` or ``p(X)`` -> :class:`Query`."""
    atom_text, at, window_text = _split_window(text)
    rule_text = f"query__ :- {atom_text}."
    try:
        if dialect == "meteor":
            from chronolog.language import meteor

            rule = meteor.parse(f"Query__ :- {atom_text}", "<query>").rules[0]
        else:
            from chronolog.language import vadalog

            rule = vadalog.parse(rule_text, "<query>").rules[0]
    except ChronologError as e:
        at_end = e.pos is None or e.pos.column >= len(rule_text)  # (columns count from 1: the closing '.')
        raise ProgramError(
            f"cannot read the query {text!r}: {_ends_early(e.message, 'query', at_end)}",
            hint='write an atom with an optional window, e.g. "controls(X, beta)@[0,10]"',
        ) from None
    if len(rule.body) != 1 or not isinstance(rule.body[0], ast.Atom):
        raise ProgramError(f"the query {text!r} is not one atom", hint='e.g. "controls(X, beta)@[0,10]"')
    atom = rule.body[0]
    window = None
    if at:
        from chronolog.language.facts import parse_fact_lines

        try:
            read = parse_fact_lines([f"w__@{window_text}"], "<query>", calendar=calendar)[0]
        except ChronologError as e:
            raise ProgramError(
                f"cannot read the window {window_text!r} of the query: {_ends_early(e.message, 'window')}",
                hint="a window is a point (@5) or an interval (@[0,10], @(0,10], @[0,+inf))",
            ) from None
        if read.every is not None:  # (it was dropped: the answer of the first interval alone)
            raise ProgramError(f"the window {window_text!r} of the query repeats ('every'), but a query asks about one interval",
                               hint="ask about each interval, or about one window that covers them")
        window = read.interval
        if dialect == "lars":  # a window in ticks
            from chronolog.language.lars import from_ticks

            window = from_ticks(window)
    return Query(atom.pred, tuple(atom.terms), window)


def _split_window(text: str):
    text = text.strip().rstrip(".").strip()
    depth = 0
    for i, c in enumerate(text):
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "@" and depth == 0:
            return text[:i].strip(), True, text[i + 1 :].strip()
    return text, False, ""


def match(q: Query, terms: tuple) -> Optional[dict]:
    """The binding of q's variables that makes its atom ``terms``, or None."""
    if len(terms) != len(q.terms):
        return None
    binding: dict = {}
    for pat, v in zip(q.terms, terms):
        if isinstance(pat, ast.Const):
            if pat.value != v:
                return None
        elif not pat.name.startswith("_"):
            if pat.name in binding and binding[pat.name] != v:
                return None
            binding[pat.name] = v
    return binding


def answer(model, q: Query) -> list:
    """Every binding with the intervals on which the atom holds, clipped to
    the window; sorted by binding.  Facts that repeat forever need a window."""
    from chronolog.language.booleans import public, terms as as_terms
    from chronolog.language.text import term_sort_key

    arity = model.plan.arities.get(q.pred, (None,))[0]
    if arity is not None and arity != len(q.terms):
        raise ProgramError(f"{q.pred} has {counted(arity, 'argument')}, the query gives {len(q.terms)}")
    only = _atoms_named(model, q)
    if q.window is not None:
        rows = model._clipped(q.pred, q.window, only)  # (clipped to it, as the model shows intervals)
    else:
        if model.repeating(q.pred):
            raise ProgramError(
                f"{q.pred} has facts that repeat forever: the answer over all time is infinite",
                hint=f"give the query a window, e.g. {q.pred}(...)@[0,1000]",
            )
        rows = model._facts(q.pred, only)
    by: dict = {}
    for terms, iv in rows:
        b = match(q, as_terms(terms))  # (#T/#F as terms again: never equal to 1/0)
        if b is None:
            continue
        key = tuple(b[v] for v in q.variables)
        by.setdefault(key, []).append(iv)
    from chronolog.language.timeline import coalesce

    out = []
    for key in sorted(by, key=lambda k: tuple(term_sort_key(v) for v in k)):
        # (several atoms give one binding where a `_` stands for what tells them apart)
        out.append(Answer(dict(zip(q.variables, map(public, key))), coalesce(by[key])))
    return out


def _atoms_named(model, q: Query):
    """``{terms: intervals}`` of the atoms of ``q.pred`` with the query's
    constants at their places (chronolog/model_atoms.py: a filter of the
    relation's columns, or its index at those places, kept for the next
    query), or None (every atom) where the query names none: a query read
    every fact of the predicate (0.5-0.9 s of 200,000; 3.9 s for the first
    of a relation of 1M facts read by the kernels, its rows made)."""
    from chronolog.model_atoms import model_atoms

    at = tuple(i for i, t in enumerate(q.terms) if isinstance(t, ast.Const))
    if not at:
        return None
    values = tuple(q.terms[i].value for i in at)
    atoms = dict(model_atoms(model).where(q.pred, [(at, {values})]))
    for terms in model._repeating.get(q.pred, {}):
        if len(terms) > at[-1] and all(terms[i] == v for i, v in zip(at, values)):
            atoms.setdefault(terms, [])
    return atoms


def run_query(model, text: str, dialect: Optional[str] = None):
    """``Model.query``: a list of :class:`Answer`, or a bool for a ground query."""
    from chronolog.arguments import check_known_predicate

    if not isinstance(text, str):
        from chronolog.language.errors import ArgumentError

        raise ArgumentError(f'query(): expected a query as text such as "p(X)@[0,10]", not {text!r}',
                            hint='model.query("controls(X, beta)@[0,10]"); the window may be left out')
    if dialect is not None and dialect not in ("vadalog", "meteor", "lars"):  # (query("p(X)", (0, 10)): a window taken for it)
        from chronolog.language.errors import ArgumentError

        raise ArgumentError(
            f"query(): dialect {dialect!r} is not one of 'vadalog', 'meteor', 'lars'",
            hint=f"the window is part of the query's text: query(\"{text}@[FROM,TO]\")" if "@" not in str(text) else "",
        )

    from chronolog.language.nulls import model_nulls

    q = parse_query(text, model.calendar, dialect or model.dialect)
    q = Query(q.pred, model_nulls(model).adopt_terms(q.terms), q.window)
    check_known_predicate(model, q.pred, "query()")  # a typo answers nothing otherwise
    q = _float_constants(model, q, text)
    if q.ground:
        from chronolog.language.timeline import EVERYWHERE

        return model._holds(q.pred, tuple(t.value for t in q.terms), q.window or EVERYWHERE, "query()")
    return answer(model, q)


def _float_constants(model, q, text: str):
    """``q`` with each number constant read against the model's floats, as
    :meth:`Model.holds` reads a fact (chronolog/float_terms.py)."""
    from chronolog.language.ast import Const

    values = tuple(t.value if type(t) is Const else t for t in q.terms)
    read = model._float_columns("query()").read(q.pred, values, lambda: text.strip())
    if read is values:
        return q
    return Query(q.pred, tuple(Const(r) if r is not v else t for t, v, r in zip(q.terms, values, read)), q.window)


def format_answers(answers, calendar=None) -> list:
    """One line per binding: ``X=a, Y=b: [0,10], [12,14)``."""
    from chronolog.language.text import format_term
    from chronolog.language.timeline import format_interval

    fmt = calendar.format_interval if calendar is not None else format_interval
    out = []
    for a in answers:
        binding = ", ".join(f"{k}={format_term(v)}" for k, v in a.binding.items())
        intervals = ", ".join(fmt(iv) for iv in a.intervals)
        out.append(f"{binding}: {intervals}" if binding else intervals)  # (only `_`: the intervals alone)
    return out
