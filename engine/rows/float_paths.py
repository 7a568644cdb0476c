"""A fast path for the row executor's compiled expressions over numbers.

engine/rows/expressions.py compiles an expression into one closure per
operation, each checking its operands' types (0.3-0.5 us an operation):
most of a step of a recurrence such as an EMA (engine/columns/recurrence.py).
:func:`float_fast` generates one Python function for the whole expression
or comparison, used when the binding's variables are numbers and every
operation meets a float, where the rows apply Python's float operator as it
is; anything else goes to the rows' closure, which computes or reports it.
:func:`fused_step` generates one function for a whole step of the kernel
(its tests and head), a call per step rather than one per test.
"""

from __future__ import annotations

from chronolog.language import ast


def float_fast(x, slots: dict, exact):
    """``exact`` (the rows' closure of an expression or a comparison), with a
    fast path for bindings of numbers: one generated function instead of a
    closure per operation (0.3-0.5 us each, most of an EMA step).  Only
    where the rows compute the same: every operation meets a float (the rows
    then apply Python's float operator as it is; two ints would be exact
    arithmetic), no function call; a NaN or a division by zero goes to
    ``exact``, which reports it.  The variables are guarded as ints or
    floats, or as floats where an operation needs one of them to be."""
    for var_float in (False, True):
        fast = _generate(x, slots, exact, var_float)
        if fast is not None:
            return fast
    return exact


def fused_step(tests: list, slots: dict, picks: list, slow):
    """One generated function for a whole step of the recurrence kernel
    (engine/columns/recurrence.py): the step's tests in order, then its head
    tuple (None when a condition fails), where each test alone has a
    :func:`float_fast` path; ``slow(b)`` (the tests one closure each) takes
    the binding wherever one of those paths would leave for the rows'
    closure, so the answer or the error is always the tests' own.
    ``tests``: ``(assigned variable or None, expression or comparison)``;
    ``slots``: the binding's variables; ``picks``: the head's ``("c", value)``
    and ``("v", slot)``.  None when a test has no fast path."""
    consts: list = []
    slots = dict(slots)
    bound = len(slots)
    need: dict = {}  # input slot -> it must be a float (not an int) for some test's path
    lines = []
    for var, x in tests:
        for var_float in (False, True):
            part = _source(x, slots, var_float, consts)
            if part is not None:
                break
        else:
            return None
        used, body, ok, value = part
        for i in used:
            if i < bound:  # (assigned slots hold the floats a path computed)
                need[i] = need.get(i, False) or var_float
        lines += [body, f"if not ({ok}): return fallback(b)"]
        if var is None:
            lines.append(f"if not ({value}): return None")
        else:
            slots[var] = len(slots)
            lines.append(f"v{slots[var]} = {value}")
    if not need:
        return None
    head = []
    for kind, x in picks:
        if kind == "c":
            consts.append(x)
            head.append(f"k[{len(consts) - 1}]")
        else:
            head.append(f"v{x}" if x in need or x >= bound else f"b[{x}]")
    kinds = {False: "(type(b[{0}]) is float or type(b[{0}]) is int)", True: "type(b[{0}]) is float"}
    guard = " and ".join(kinds[need[i]].format(i) for i in sorted(need))
    loads = "; ".join(f"v{i} = b[{i}]" for i in sorted(need))
    return _compile(guard, loads, lines, f"return ({''.join(h + ', ' for h in head)})", slow, consts)


def _compile(guard: str, loads: str, lines: list, last: str, fallback, consts: list):
    """The generated function: when ``guard`` holds, ``lines`` then ``last``;
    otherwise, or on an ArithmeticError, ``fallback(b)`` (the exact path)."""
    body = "\n".join(f"            {line}" for line in lines)
    text = (
        "def generated(b):\n"
        f"    if {guard}:\n"
        f"        {loads}\n"
        "        try:\n"
        f"{body}\n"
        "        except ArithmeticError:\n"
        "            return fallback(b)\n"
        f"        {last}\n"
        "    return fallback(b)\n"
    )
    scope = {"k": consts, "fallback": fallback}
    exec(text, scope)  # noqa: S102 - source built by _source from the rule's own operators, slots and constants
    return scope["generated"]


def _generate(x, slots, exact, var_float):
    consts: list = []
    part = _source(x, slots, var_float, consts)
    if part is None:
        return None
    used, body, ok, value = part
    kinds = "type(b[{0}]) is float" if var_float else "(type(b[{0}]) is float or type(b[{0}]) is int)"
    guard = " and ".join(kinds.format(i) for i in sorted(used))
    loads = "; ".join(f"v{i} = b[{i}]" for i in sorted(used))
    return _compile(guard, loads, [body], f"if {ok}: return {value}", exact, consts)


def _source(x, slots, var_float, consts: list):
    """``(slots read, statements, the test that no NaN came out, the
    value)`` of ``x``'s fast path (its constants appended to ``consts``), or
    None where the rows do more than Python's float operators."""
    used = set()

    def src(e):
        """(source, is surely a float) of ``e``, or None where the rows do more."""
        if isinstance(e, ast.Var):
            used.add(slots[e.name])
            return f"v{slots[e.name]}", var_float
        if isinstance(e, ast.Const) and type(e.value) in (int, float):
            consts.append(e.value)
            return f"k[{len(consts) - 1}]", type(e.value) is float
        if isinstance(e, ast.BinOp) and e.op in ("+", "-", "*", "/"):
            left, right = src(e.left), src(e.right)
            if left is None or right is None or not (left[1] or right[1]):
                return None
            return f"({left[0]} {e.op} {right[0]})", True
        return None

    if isinstance(x, ast.Comparison):  # (numbers of any two kinds: the rows compare them as Python does)
        left, right = src(x.left), src(x.right)
        if left is None or right is None:
            return None
        # (a side computed to NaN, 0.0 * inf, is the rows' error: each side checked)
        part = f"a = {left[0]}; c = {right[0]}", "a == a and c == c", f"a {x.op} c"
    else:
        code = src(x)
        if code is None or not code[1]:
            return None
        part = f"r = {code[0]}", "r == r", "r"
    if not used:
        return None
    return (used, *part)
