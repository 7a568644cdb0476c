"""Several test cases in one Spark reasoning call.

A reasoning call on Spark costs a few Spark jobs per stratum and a fixed
part besides (the inputs' load, the settings, the plan), so a test that
loops over cases by hand pays the fixed part once per case.  Here the cases
run as ONE program: each case's predicates (its rules, facts, inputs and
outputs) renamed apart with a suffix of its own, so that no case reads
another's facts, and its outputs are handed back under the case's own
names, to compare with the embedded engine's answer for that case alone.

Cases that must stay apart do not belong here: one whose error or
fallback stops the whole run, one whose stratum falls to one task, or one
that needs a session setting of its own.
"""

from __future__ import annotations

import dataclasses
import re

import chronolog
from chronolog.language import ast

# a string (skipped, but for an annotation's first argument), a comment
# (skipped), or a lowercase word followed by "(" or "@": a predicate if
# the program says so (a function's name is followed by "(" too)
_TOKEN = re.compile(
    r'(?P<ann>@[A-Za-z_]\w*\(\s*)"(?P<arg>[^"\\\n]*)"'
    r'|"(?:\\.|[^"\\\n])*"'
    r"|%[^\n]*"
    r"|(?<![A-Za-z0-9_:#@])(?P<word>[a-z][A-Za-z0-9_]*)(?=\s*[(@])"
)


def predicates(program: str) -> set:
    """The predicates ``program`` names: its rules' heads and bodies, its facts."""
    prog = chronolog.load_program(program)
    found: set = {f.pred for f in prog.facts}
    stack = list(prog.rules)
    while stack:  # every Atom anywhere in a rule (heads, operators, negations, interval terms)
        node = stack.pop()
        if isinstance(node, ast.Atom):
            found.add(node.pred)
        if dataclasses.is_dataclass(node):
            stack.extend(getattr(node, f.name) for f in dataclasses.fields(node))
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
    return found


def renamed(program: str, suffix: str, extra=()) -> str:
    """``program`` with each of its predicates (and ``extra``, its inputs'
    names) spelled with ``suffix``; checked by reading it back: the same
    rules and facts, every predicate renamed and no other word."""
    preds = predicates(program) | set(extra)

    def rename(m):
        if m.group("ann") is not None:
            arg = m.group("arg")
            return f'{m.group("ann")}"{arg + suffix if arg in preds else arg}"'
        word = m.group("word")
        return word + suffix if word in preds else m.group(0)

    out = _TOKEN.sub(rename, program)
    before, after = chronolog.load_program(program), chronolog.load_program(out)
    assert (len(after.rules), len(after.facts)) == (len(before.rules), len(before.facts)), out
    assert predicates(out) == {p + suffix for p in predicates(program)}, out
    return out


@dataclasses.dataclass
class Folded:
    """The cases as one program: ``program``, ``tables`` (the inputs, by
    their renamed predicates) and ``outputs`` (renamed) for the one call;
    :meth:`split` hands each case's outputs back under its own names."""

    program: str
    tables: dict
    outputs: list
    suffixes: list
    case_outputs: list

    def split(self, out: dict) -> list:
        """``[{pred: value}]`` per case, from ``{renamed pred: value}``."""
        return [{p: out[p + s] for p in outs} for s, outs in zip(self.suffixes, self.case_outputs)]


def fold(cases) -> Folded:
    """``cases``: ``(program, tables, outputs)`` each; the suffix of case
    ``i`` is ``_case{i}``."""
    programs, tables, outputs, suffixes, case_outputs = [], {}, [], [], []
    for i, (program, case_tables, outs) in enumerate(cases):
        suffix = f"_case{i}"
        programs.append(renamed(program, suffix, extra=case_tables))
        tables.update({p + suffix: t for p, t in case_tables.items()})
        outputs += [p + suffix for p in outs]
        suffixes.append(suffix)
        case_outputs.append(list(outs))
    return Folded("\n".join(programs), tables, outputs, suffixes, case_outputs)
