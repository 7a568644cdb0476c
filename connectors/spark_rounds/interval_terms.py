"""Interval terms: a maximal interval's ends as terms, and a head placed on
the interval its terms give (planner/interval_terms.py), as SQL on the
codes.

* ``lit@[S,E]`` (a WrapRule): ``$i(vars, S, E)`` holds on each maximal
  interval of ``lit`` with its ends as two more terms.  On the doubled grid
  an end's time in grid units is ``shiftright(code, 1)``; as a term it is
  that over ``L`` (on a calendar, days or hours since 1970:
  engine/interval_terms.py, written once with the columns),
  written exactly in the run's number type (digits as text, ``E-k``, then
  the decimal type: a cast of a plain decimal string, never a division).
  An unbounded end (a float infinity in the engine) or a time with more
  decimals than the run's numbers has no exact term here: a check in the
  statement sends the run to one task.
* ``lit@T`` (time capture, a WrapRule too): one row per integer point
  ``T`` the interval meets, on its part inside ``[T, T + 1)``: an
  ``explode(sequence(...))`` of the points (:func:`_capture`).
* ``p(X)@[S,E] :- body`` (a TimedHeadRule): one fact per binding of the
  body, wherever the body holds, on ``[S, E]`` with the written ends; the
  codes ``2·S·L + open`` and ``2·E·L + closed`` need ``S·L`` whole (a
  check, else one task) and inside the codes an input may have (on a
  calendar, the years a timestamp holds); an empty interval gives nothing.
"""

from __future__ import annotations

from chronolog.engine.exprs import col, to_sql
from chronolog.engine.interval_codes import NEG, POS
from chronolog.engine.interval_shift import clipped
from chronolog.engine.interval_terms import code_of, number_of, ratio
from chronolog.language import ast

from .arithmetic import scaled, stop_sql, unscaled
from .calendar import term_decimals
from .classes import NUM, body_classes
from .fragment import NotRelational
from .sql import Stmt, codes, coalesce_sql, int64, term_columns, with_codes

CAPTURE_POINTS = 1 << 20  # integer points of one fact in a time capture: more fall back to one task


def _literal(v: int) -> str:
    """An integer of the shared trees as SQL: a bigint, or beyond 64 bits
    (a bound on a number's 38 digits) a ``decimal(38, 0)``, at most
    ``10^38 - 1`` (no digits reach a larger bound, and a bound of 38 nines
    refuses only a time far beyond the grid's bounds too)."""
    if -(2**63) <= v < 2**63:
        return int64(v)
    return f"{min(v, 10**38 - 1)}BD"


def _term(types, grid, code: str, sentinel: int) -> str:
    """The time of an end code as an exact term of the run's number type
    (engine/interval_terms.number_of over the run's ``10^S``)."""
    scale = term_decimals(types.num_type) or 0
    k, _ = ratio(grid.L, 10**scale)
    x = to_sql(number_of(col(code), 10**scale, grid.L), _literal, stop_sql)
    if scale:  # (u / d) · k digits after the point: at most 38 (entry.py)
        x = scaled(f"CAST({x} AS DECIMAL(38, 0)) * {k}", scale, types.num_type.simpleString())
    return f"CASE WHEN {code} = {int64(sentinel)} THEN {stop_sql('an unbounded end as a term')} ELSE {x} END"


def wrap_step(rules, q: Stmt, rule, driver, views):
    """The step of the WrapRule ``rule``: the scan's maximal intervals with
    their ends appended as terms (time capture: :func:`_capture`)."""
    types = rules.types
    cls = types.classes.get(rule.head_pred) or [None] * len(rule.head_terms)
    n = len(rule.inner_terms)
    if cls[n:] != [NUM] * (len(cls) - n):  # pragma: no cover - classes.infer_classes sets them
        raise NotRelational("interval ends of an unknown class", rule)
    body = rules.fresh_step(q, f"$interval-body-{id(rule)}", rule.inner_terms, cls[:n], rule.body, rule)
    if body is None:
        return None
    terms = term_columns(n)
    body = coalesce_sql(q, body, terms)
    if rule.capture:
        return _capture(types, rules.grid, q, body, n)
    start, end = _term(types, rules.grid, "s", NEG), _term(types, rules.grid, "e", POS)
    return q.add(f"SELECT {', '.join([*terms, f'{start} AS c{n}', f'{end} AS c{n + 1}', 's', 'e'])} FROM {body}",
                 [*term_columns(n + 2), "s", "e"])


def _capture(types, grid, q: Stmt, body: str, n: int):
    """``lit@T``: each interval once per integer time point ``k`` from the
    floor of its start to its end, ``k`` appended, on the part inside
    ``[k, k + 1)`` (the engine's CaptureNode; empty parts dropped).  An
    unbounded interval has infinitely many points (the engine reports it),
    and one of more than ``CAPTURE_POINTS`` falls back to one task too rather
    than exploding in a task."""
    L = int64(grid.L)
    first, last = (f"((shiftright({c}, 1) - pmod(shiftright({c}, 1), {L})) div {L})" for c in ("s", "e"))
    points = (f"CASE WHEN s = {int64(NEG)} OR e = {int64(POS)} THEN {stop_sql('time capture of an unbounded interval')} "
              f"WHEN {last} - {first} >= {CAPTURE_POINTS} THEN {stop_sql(f'time capture of more than {CAPTURE_POINTS} points of one fact')} "
              f"ELSE sequence({first}, {last}) END")
    terms = term_columns(n)
    each = q.add(f"SELECT {', '.join(terms)}, s, e, explode({points}) AS k FROM {body}", [*terms, "s", "e", "k"])
    k = f"CAST(k AS {types.num_type.simpleString()})"
    s, e = codes(clipped(col("k") * (2 * grid.L), (col("k") + 1) * (2 * grid.L)))  # (the part inside [k, k + 1))
    parts = q.add(f"SELECT {', '.join([*terms, f'{k} AS c{n}', f'{s} AS s', f'{e} AS e'])} FROM {each}", [*term_columns(n + 1), "s", "e"])
    return q.add(f"SELECT * FROM {parts} WHERE s < e", [*term_columns(n + 1), "s", "e"])


def placed_step(rules, q: Stmt, rule, driver, views):
    """The step of the TimedHeadRule ``rule`` (a variant reading ``views``):
    its head on the interval its terms give."""
    types, grid = rules.types, rules.grid
    t = rule.timed
    hcls = types.classes.get(rule.head_pred) or [None] * len(rule.head_terms)
    ends = [t.start, t.end]
    for x in ends:
        c = NUM if isinstance(x, ast.Const) and type(x.value) is int else None
        if isinstance(x, ast.Var):
            c = body_classes(rule.body, types.classes).get(x.name)
        if c != NUM:
            raise NotRelational(f"an interval end {x} that is not a number known to the run", rule)
    body = rules.fresh_step(q, f"$placed-body-{id(rule)}", (*rule.head_terms, *ends), [*hcls, NUM, NUM], rule.body, rule,
                            driver, views)
    if body is None:
        return None
    n = len(rule.head_terms)
    terms = term_columns(n)
    distinct = q.add(f"SELECT DISTINCT {', '.join(term_columns(n + 2))} FROM {body}", term_columns(n + 2))
    s = _code(types, grid, f"c{n}", 0 if t.start_closed else 1)
    e = _code(types, grid, f"c{n + 1}", 1 if t.end_closed else 0)
    df = q.add(f"SELECT {', '.join([*terms, f'{s} AS s', f'{e} AS e'])} FROM {distinct}", [*terms, "s", "e"])
    return rules.clip(q, with_codes(q, df, "s", "e"), rule)


def _code(types, grid, column: str, bit: int) -> str:
    """``2·x·L + bit`` of the number column ``column``, exactly, or the
    check's error (engine/interval_terms.code_of: off the grid, or outside
    the codes an input may have, grid.bounds: on a calendar, inside the
    years a timestamp holds), ``x`` the digits over the run's ``10^S``."""
    scale = term_decimals(types.num_type) or 0
    return to_sql(code_of(col(unscaled(column, scale)), 10**scale, grid.L, bit, grid.bounds), _literal, stop_sql)
