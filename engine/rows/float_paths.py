"""A fast path for the row executor's compiled expressions over numbers.

engine/rows/expressions.py compiles an expression into one closure per
operation, each checking its operands' types (0.3-0.5 us an operation):
most of a step of a recurrence such as an EMA (engine/columns/recurrence.py).
:func:`float_fast` generates one Python function for the whole expression
or comparison, used when the binding's variables are numbers and every
operation meets a float, where the rows apply Python's float operator as it
is; anything else goes to the rows' closure, which computes or reports it.
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


def _generate(x, slots, exact, var_float):
    consts: list = []
    used: dict = {}

    def src(e):
        """(source, is surely a float) of ``e``, or None where the rows do more."""
        if isinstance(e, ast.Var):
            used[e.name] = slots[e.name]
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
        body, result = f"a = {left[0]}; c = {right[0]}", f"if a == a and c == c: return a {x.op} c"
    else:
        code = src(x)
        if code is None or not code[1]:
            return None
        body, result = f"r = {code[0]}", "if r == r: return r"
    if not used:
        return None
    kinds = "type(b[{0}]) is float" if var_float else "(type(b[{0}]) is float or type(b[{0}]) is int)"
    guard = " and ".join(kinds.format(i) for i in sorted(used.values()))
    loads = "; ".join(f"v{i} = b[{i}]" for i in sorted(used.values()))
    text = (
        "def fast(b):\n"
        f"    if {guard}:\n"
        f"        {loads}\n"
        "        try:\n"
        f"            {body}\n"
        "        except ArithmeticError:\n"
        "            return exact(b)\n"
        f"        {result}\n"
        "    return exact(b)\n"
    )
    scope = {"k": consts, "exact": exact}
    exec(text, scope)  # noqa: S102 - source built above from the rule's own operators, slots and constants
    return scope["fast"]
