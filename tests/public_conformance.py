"""The core Datalog corpus of datalog-conformance (the package's
``_tests/{basic,negation,recursion,errors}``) in chronolog's language.

A case gives facts (predicate -> rows of strings, numbers or booleans),
rules as text in a Datalog convention harvested mostly from Souffle, and
either the expected rows of some predicates or an expected error.  The
translation:

* every fact holds at time 0 (so every derived fact at 0);
* in a rule, a bare name in an argument is a variable (Souffle's
  convention, which the harvested cases keep: ``Store(_, v)``), written
  ``Vname``; numbers and quoted strings are constants;
* a predicate P is ``dP`` (chronolog predicates start with a lowercase
  letter); ``not`` and ``!`` negate; ``=`` assigns an unbound variable on
  its left and tests equality otherwise.

Anything else (aggregates, functors, records) is :class:`Unsupported`.
"""

from __future__ import annotations

import re
from pathlib import Path

from public_suites import COMPARISON, Unsupported, split_top, tokenize
from public_suites import expression as shared_expression

TOKEN = re.compile(
    r"""(?P<ws>\s+)|(?P<string>"(?:[^"\\]|\\.)*")|(?P<number>\d+(?:\.\d+)?)"""
    r"""|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>:-|<=|>=|!=|[(),.<>=+\-*/!])"""
)


def tokens(text: str) -> list:
    return tokenize(text, TOKEN, ("ws",))


def pred(name: str) -> str:
    return "d" + name


def value(v) -> str:
    """A fact's value as chronolog text."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


def term(t) -> str:
    kind, text = t
    if kind == "name":
        return "_" if text == "_" else "V" + text
    if kind in ("number", "string"):
        return text
    raise Unsupported(f"the term {text}")


def atom(toks: list, assigns=None, tests=None) -> str:
    """``name(args)``; with ``assigns`` (a list: a head), an argument that is
    an arithmetic expression becomes a fresh variable assigned there; with
    ``tests`` (a body atom), a fresh variable the atom binds, equal to the
    expression (Souffle's ``Fib(n - 1, x)`` matches where the first
    argument is ``n - 1``)."""
    if len(toks) < 3 or toks[0][0] != "name" or toks[1] != ("op", "(") or toks[-1] != ("op", ")"):
        raise Unsupported("an atom of another form: " + " ".join(t[1] for t in toks))
    args = split_top(toks[2:-1]) if len(toks) > 3 else []
    out = []
    for a in args:
        if len(a) == 1:
            out.append(term(a[0]))
        elif assigns is not None:
            out.append(f"Vexpr{len(assigns)}")
            assigns.append(f"{out[-1]} = {expression(a)}")
        elif tests is not None:
            out.append(f"Vmatch{len(tests)}")
            tests.append(f"{out[-1]} == {expression(a)}")
        else:
            raise Unsupported("an expression or functor as an argument: " + " ".join(t[1] for t in a))
    return f"{pred(toks[0][1])}({', '.join(out)})"


def expression(toks: list) -> str:
    return shared_expression(toks, term)


def rule(text: str) -> str:
    toks = tokens(text.strip())
    if toks and toks[-1] == ("op", "."):
        toks = toks[:-1]
    parts = split_top(toks, ":-")
    if len(parts) == 1:
        raise Unsupported("a fact among the rules")
    if len(parts) != 2:
        raise Unsupported("a rule with two ':-'")
    assigns: list = []
    tests: list = []  # (a body atom's expression arguments)
    head = atom(parts[0], assigns)
    body, bound = [], set()
    for lit in split_top(parts[1]):
        if lit and lit[0] in (("name", "not"), ("op", "!")) and len(lit) > 1 and lit[1] != ("op", "="):
            body.append("not " + atom(lit[1:]))
        elif any(t[0] == "op" and t[1] in COMPARISON for t in lit):
            text = expression(lit)
            left = text.split(" = ")[0] if " = " in text else None
            if left is not None:
                if re.fullmatch(r"V\w*", left) and left not in bound:
                    bound.add(left)
                else:
                    text = text.replace(" = ", " == ")
            body.append(text)
        else:
            body.append(atom(lit, tests=tests))
            bound |= set(re.findall(r"\bV\w*", body[-1]))
    return f"{head} :- {', '.join(body + tests + assigns)}."


def translate(case: dict) -> str:
    """chronolog program text of a core case (facts at time 0)."""
    lines = [rule(r) for r in case["program"].get("rules", [])]
    for p, rows in (case["program"].get("facts") or {}).items():
        for row in rows:
            lines.append(f"{pred(p)}({', '.join(value(v) for v in row)})@0.")
    return "\n".join(lines) + "\n"


def expected_value(v) -> str:
    """A row value of ``expect`` as the model's value is compared."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def files(root: Path) -> list:
    """The corpus files, from ``root``."""
    return sorted(str(f.relative_to(root)) for f in root.rglob("*.yaml"))


def cases(path: Path) -> list:
    """(name, case) of every core case of one file."""
    import yaml

    doc = yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return [(case["name"], case) for case in doc.get("tests", [doc]) if "program" in case]
