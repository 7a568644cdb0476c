"""String terms as 64-bit codes during the rounds (``STRING_CODES``).

Each string becomes ``xxhash64`` of it: joins, windows and shuffles hash
and compare 8 bytes instead of a string.  The load's one action also
builds the dictionary code -> string (:func:`dictionary_sql`) and counts
its collisions (none: the codes are exact; any: the inputs are loaded
again as strings), and the outputs decode by a join with it
(outputs.py).  Here: whether a run uses codes, the code of a column or a
constant as SQL, and the dictionary's statement.
"""

from __future__ import annotations

from chronolog.language import ast
from chronolog.planner.ir import Assign, Condition
from chronolog.planner.physical import Aggregate, rule_operator

from ..spark import _sql_name  # a column name as a Spark SQL identifier
from .aggregate import EXTREMES, literals, program_constants
from .arithmetic import expr_class
from .classes import STR, body_classes, value_class
from .sql import hex_string

# String terms as 64-bit codes during the rounds (see dictionary_sql).  Off:
# at 1M ownership facts (8 rounds) the rounds' task CPU fell 20% (5.1 ->
# 4.1 s) but building the dictionary (0.6 s) and decoding the outputs by a
# join (0.9 s, two broadcast jobs per output) cost more than that, and the
# extra plans 24 more generated classes for the JIT (bench/README.md,
# "Figures behind design choices").  A program with many rounds
# over the same relations may gain: set it True.
STRING_CODES = False
HASH = "xxhash64"  # the SQL function of a string's code (64 bits, seed 42)


def use_codes(plan, classes: dict) -> bool:
    """Whether the run's string terms are codes: ``STRING_CODES`` on, some
    string column, and no comparison of strings by order."""
    return STRING_CODES and STR in {c for cols in classes.values() for c in cols} and not orders_strings(plan, classes)


def code_sql(x: str) -> str:
    """The 64-bit code of the string SQL ``x`` (null stays null: Spark's hash
    of a null is its seed, which is some string's code)."""
    return f"CASE WHEN {x} IS NULL THEN NULL ELSE {HASH}({x}) END"


def code_literal(v: str) -> str:
    """The code of the string constant ``v`` as SQL."""
    return f"{HASH}({hex_string(v)})"  # folded to the literal code by the optimizer


def string_constants(plan) -> list:
    """The program's string constants (body, conditions, heads), once each."""
    return list(dict.fromkeys(v for v in program_constants(plan) if type(v) is str))


def orders_strings(plan, classes: dict) -> bool:
    """Whether a condition compares strings by order (``<``, ``>=``, ...),
    an aggregate takes their least or greatest, or a function reads or
    makes a string (``concat``, ``A + B``, ``upper``, ``strlen``, ...:
    functions.py), which codes would not keep: then the rounds run on the
    strings."""
    for r in plan.rules:
        env = body_classes(r.body, classes)  # (Z = W of a string W is a string too)
        op = rule_operator(r)
        for _, a in op.aggregates if isinstance(op, Aggregate) else ():
            if (a.func in EXTREMES or a.func == "munion") and expr_class(a.expr, env) == STR:  # (a set prints its strings)
                return True
        for lit in r.body:
            if isinstance(lit, Condition) and lit.comparison.op not in ("==", "!="):
                for x in (lit.comparison.left, lit.comparison.right):
                    c = env.get(x.name) if isinstance(x, ast.Var) else value_class(x.value) if isinstance(x, ast.Const) else None
                    if c == STR:
                        return True
        for lit in literals(r):
            exprs = [lit.comparison.left, lit.comparison.right] if isinstance(lit, Condition) else [lit.expr] if isinstance(lit, Assign) else []
            if any(_computes_strings(e, env) for e in exprs):
                return True
    return False


def _computes_strings(e, env: dict) -> bool:
    """Whether a call or an operator of ``e`` reads or makes a string."""
    if not isinstance(e, (ast.BinOp, ast.Call)):
        return False
    args = [e.left, e.right] if isinstance(e, ast.BinOp) else list(e.args)
    if expr_class(e, env) == STR or STR in [expr_class(a, env) for a in args]:
        return True
    return any(_computes_strings(a, env) for a in args)


def dictionary_sql(catalog, classes: dict, constants: list, inputs: list) -> str:
    """The dictionary of string codes: every string of the inputs' string
    columns and of the program (``constants``), with its code
    (``xxhash64``), once per string, flagged ``_collides`` where another
    string has the same code.  A collision is rare (about n^2 / 2^65 for n
    strings: 10^-9 at a million), but the codes are exact only without one:
    the caller checks the count."""
    from chronolog.connectors.spark import _term_columns

    parts = []
    for pred, df in inputs:
        cls = classes.get(pred) or []
        names = [f"CAST({_sql_name(t)} AS STRING)" for t, c in zip(_term_columns(df), cls) if c == STR]
        if names:  # one scan per input, whatever its number of string columns
            parts.append(f"SELECT explode(array({', '.join(names)})) AS n FROM {catalog.view(df)}")
    if constants:
        parts.append(f"SELECT explode(array({', '.join(hex_string(v) for v in constants)})) AS n")
    names = "\nUNION ALL ".join(parts)
    # distinct (code, name) pairs (a hash aggregate: no string buffers), then
    # the number of names per code
    return (f"SELECT code, name, count(1) OVER (PARTITION BY code) > 1 AS _collides FROM "
            f"(SELECT DISTINCT {HASH}(n) AS code, n AS name FROM ({names}) AS a WHERE n IS NOT NULL) AS d")
