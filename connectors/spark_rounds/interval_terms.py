"""Interval terms: a maximal interval's ends as terms, and a head placed on
the interval its terms give (planner/interval_terms.py), as SQL on the
codes.

* ``lit@[S,E]`` (a WrapRule): ``$i(vars, S, E)`` holds on each maximal
  interval of ``lit`` with its ends as two more terms.  On the doubled grid
  an end's time in grid units is ``shiftright(code, 1)``; as a term it is
  that over ``L``, written exactly in the run's number type (digits as
  text, ``E-k``, then the decimal type: a cast of a plain decimal string,
  never a division).  An unbounded end (a float infinity in the engine)
  or a time with more decimals than the run's numbers has no exact term
  here: a check in the statement sends the run to the driver.
* ``p(X)@[S,E] :- body`` (a TimedHeadRule): one fact per binding of the
  body, wherever the body holds, on ``[S, E]`` with the written ends; the
  codes ``2·S·L + open`` and ``2·E·L + closed`` need ``S·L`` whole (a
  check, else the driver) and inside the 64-bit codes; an empty interval
  gives nothing.

Time capture ``lit@T`` (one row per integer point) stays on the driver.
"""

from __future__ import annotations

from chronolog.language import ast
from chronolog.planner.ir import PlanRule

from .arithmetic import stop_sql
from .classes import NUM
from .fragment import NotRelational
from .grid import LIMIT, NEG, POS
from .sql import Stmt, coalesce_sql, int64, term_columns, with_codes


def check(rule) -> None:
    if getattr(rule, "capture", False):
        raise NotRelational("time capture (lit@T)", rule)


def _scale(types) -> int:
    from pyspark.sql import types as T

    return types.num_type.scale if isinstance(types.num_type, T.DecimalType) else 0


def _term(types, grid, code: str, sentinel: int) -> str:
    """The time of an end code as an exact term of the run's number type."""
    scale, k = _scale(types), grid.digits
    u = f"shiftright({code}, 1)"
    if k <= scale:
        x = f"CAST(concat(CAST({u} AS STRING), 'E-{k}') AS {types.num_type.simpleString()})"
        ok = "true"
    else:  # more digits on the grid than in the numbers: only times they hold
        step = int64(10 ** (k - scale))
        x, ok = f"({u} div {step})", f"pmod({u}, {step}) = 0"
        if scale:
            x = f"CAST(concat(CAST({x} AS STRING), 'E-{scale}') AS {types.num_type.simpleString()})"
    if scale == 0 and k == 0:
        x = u
    return (f"CASE WHEN {code} = {int64(sentinel)} THEN {stop_sql('an unbounded end as a term')} "
            f"WHEN {ok} THEN {x} ELSE {stop_sql('a time with more decimals than the numbers of the run')} END")


def wrap_step(rules, q: Stmt, rule):
    """The step of the WrapRule ``rule``: the scan's maximal intervals with
    their ends appended as terms."""
    types = rules.types
    inner = PlanRule(rule.head_pred, rule.inner_terms, rule.body, None, rule.source, fresh=True)
    cls = types.classes.get(rule.head_pred) or [None] * len(rule.head_terms)
    if cls[-2:] != [NUM, NUM]:  # pragma: no cover - classes.infer_classes sets them
        raise NotRelational("interval ends of an unknown class", rule)
    n = len(rule.inner_terms)
    body = _inner(rules, q, inner, cls[:n])
    if body is None:
        return None
    terms = term_columns(n)
    body = coalesce_sql(q, body, terms)
    start, end = _term(types, rules.grid, "s", NEG), _term(types, rules.grid, "e", POS)
    return q.add(f"SELECT {', '.join([*terms, f'{start} AS c{n}', f'{end} AS c{n + 1}', 's', 'e'])} FROM {body}",
                 [*term_columns(n + 2), "s", "e"])


def _inner(rules, q, plain, cls):
    """``plain``'s step with its head's own classes (a fresh name for them)."""
    name = f"$interval-body-{id(plain)}"
    rules.types.classes[name] = list(cls)
    plain.head_pred = name
    return rules.step(q, plain, None, {})


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
            c = _var_class(types, rule, x.name)
        if c != NUM:
            raise NotRelational(f"an interval end {x} that is not a number known to the run", rule)
    name = f"$placed-body-{id(rule)}"
    types.classes[name] = [*hcls, NUM, NUM]
    body_rule = PlanRule(name, (*rule.head_terms, *ends), rule.body, None, rule.source, True)
    body = rules.step(q, body_rule, driver, views)
    if body is None:
        return None
    n = len(rule.head_terms)
    terms = term_columns(n)
    distinct = q.add(f"SELECT DISTINCT {', '.join(term_columns(n + 2))} FROM {body}", term_columns(n + 2))
    s = _code(types, grid, f"c{n}", 0 if t.start_closed else 1)
    e = _code(types, grid, f"c{n + 1}", 1 if t.end_closed else 0)
    df = q.add(f"SELECT {', '.join([*terms, f'{s} AS s', f'{e} AS e'])} FROM {distinct}", [*terms, "s", "e"])
    return rules.clip(q, with_codes(q, df, "s", "e"), rule)


def _var_class(types, rule, var):
    from chronolog.planner.ir import Scan

    for lit in rule.body:
        if isinstance(lit, Scan):
            cls = types.classes.get(lit.pred) or []
            for i, x in enumerate(lit.terms):
                if isinstance(x, ast.Var) and x.name == var and i < len(cls) and cls[i] is not None:
                    return cls[i]
    return None


def _code(types, grid, col: str, bit: int) -> str:
    """``2·x·L + bit`` of the number column ``col``, exactly, or the check's error."""
    scale, k = _scale(types), grid.digits
    if scale == 0:
        units = f"CAST({col} AS DECIMAL(38, 0)) * {10 ** k}"
        ok = "true"
    else:
        digits = f"CAST(replace(CAST({col} AS STRING), '.', '') AS DECIMAL(38, 0))"  # x·10^scale
        if k >= scale:
            units, ok = f"{digits} * {10 ** (k - scale)}", "true"
        else:
            units, ok = f"({digits} div {10 ** (scale - k)})", f"pmod({digits}, {10 ** (scale - k)}) = 0"
    return (f"CASE WHEN NOT ({ok}) THEN {stop_sql('an interval end off the time grid of the run')} "
            f"WHEN abs({units}) >= {LIMIT // 4} THEN {stop_sql('an interval end beyond the 64-bit codes')} "
            f"ELSE CAST(2 * {units} + {bit} AS BIGINT) END")
