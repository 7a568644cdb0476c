"""The forward-propagation check and the look-back of every predicate.

A program is *forward-propagating* (“Stream reasoning with DatalogMTL”) when its bodies
use only past operators (``<->``, ``[-]``, ``<S>``) and its heads only future
ones (``[+]``).  Then what holds at time ``t`` depends only on facts at times
``<= t``, which is what lets a stream emit its answers for a closed time range
and never revise them.  Anything else (``<+>``, ``[+]`` or ``<U>`` in a body,
``[-]`` in a head) looks into the future and is refused, naming the rule and
the operator, as are an interval term ``lit@[S,E]`` in a body (the end of
a maximal interval is only known once it has ended) and a time grouping (it
holds over the whole period of a point where its operand holds).
"""

from __future__ import annotations

from chronolog.language import ast
from chronolog.language.errors import ProgramError
from chronolog.language.timeline import POS_INF

_FUTURE_BODY = {"<+>": "diamond-plus <+>", "[+]": "box-plus [+]", "U": "until <U>"}


def _future_in_body(lit):
    """The first literal under ``lit`` that looks into the future, or None."""
    if isinstance(lit, ast.TimeGroup):  # (the whole period, also before the points where its operand holds)
        return lit, f"the time grouping {lit}"
    if isinstance(lit, ast.Temporal):
        if lit.op in _FUTURE_BODY:
            return lit, _FUTURE_BODY[lit.op]
        return _future_in_body(lit.inner)
    if isinstance(lit, ast.Binary):
        if lit.op in _FUTURE_BODY:
            return lit, _FUTURE_BODY[lit.op]
        return _future_in_body(lit.left) or _future_in_body(lit.right)
    if isinstance(lit, ast.Negation):
        return _future_in_body(lit.inner)
    if isinstance(lit, ast.Timed):  # (lit@T, a time capture, reads the present only)
        if lit.end is not None:
            return lit, f"the interval term {lit} ({lit.end}: where its maximal interval ends)"
        return _future_in_body(lit.inner)
    return None


def check_forward(program: ast.Program) -> None:
    """Raise a :class:`ProgramError` naming the first rule that is not
    forward-propagating and the operator that makes it so."""
    for rule in program.rules:
        head = rule.head
        while isinstance(head, ast.Temporal):
            if head.op == "[-]":
                _refuse(rule, head, "box-minus [-] in the head derives facts in the past")
            head = head.inner
        for lit in rule.body:
            bad = _future_in_body(lit)
            if bad is not None:
                node, name = bad
                _refuse(rule, node, f"{name} in the body looks into the future")


def _refuse(rule, node, what: str) -> None:
    pos = getattr(node, "pos", None)
    if pos is None or not pos.line:
        pos = rule.pos
    same_line = rule.text and rule.pos.column == 1 and pos.line == rule.pos.line and "\n" not in rule.text
    raise ProgramError(
        f"a stream needs a forward-propagating program, but {what}: {rule.text or rule}",
        pos,
        source_line=rule.text if same_line else "",
        hint="in a stream, bodies may use <->, [-] and <S>, heads [+]; "
        "run this program in batch with `chronolog run` instead",
    )


def lookback(plan_rules) -> dict:
    """Per predicate, how far into the past a rule body reads it.

    A fact of ``p`` whose interval ended more than ``lookback[p]`` before
    the frontier can no longer change anything at or after the frontier, so
    a stream may forget it.  ``+inf`` means "keep" (an unbounded window).
    """
    from chronolog.planner.ir import NegScan, Scan, SinceRule

    out: dict = {}

    def need(pred, amount):
        if amount > out.get(pred, -1):
            out[pred] = amount

    for r in plan_rules:
        if isinstance(r, SinceRule):
            reach = r.window[1]
            for s in (r.left, r.right):
                need(s.pred, _scan_reach(s) + reach)
            continue
        for lit in r.body:
            if isinstance(lit, Scan):
                need(lit.pred, _scan_reach(lit))
            elif isinstance(lit, NegScan):
                need(lit.pred, 0)
    return out


def _scan_reach(scan) -> object:
    """How far before the body's time point a Scan reads its predicate."""
    reach = 0
    if scan.box is not None:  # B<w1,w2> with w1 <= w2 <= 0 in a forward program
        reach += -scan.box[0]
    if scan.shift is not None:  # D<d1,d2>, 0 <= d1 <= d2
        reach += scan.shift[1]
    return POS_INF if reach == POS_INF or reach != reach else reach
