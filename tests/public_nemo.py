"""Nemo's test cases (resources/testcases of the Nemo rule engine) in
chronolog's language.

A Nemo case is a ``.rls`` program with ``@import`` (CSV files) and
``@export`` directives; the expected answer of an exported predicate P of
``dir/name.rls`` is ``dir/name/P.csv``.  Nemo is not temporal: every fact
becomes a fact at time 0, and a derived fact holds at 0.  The translation:

* ``?x`` is the variable ``Vx``, ``!z`` the existential ``Wz``, ``_`` stays;
* a predicate P is ``nP`` (chronolog predicates start with a lowercase
  letter); a name or string constant is a string, a number a number;
* ``~atom`` is ``not atom``; comparisons and ``+ - * /`` stay as they are;
* a head of several atoms sharing existential variables becomes a
  predicate ``xhN`` for the whole head (frontier and existential variables):
  ``xhN :- body``, each head atom from ``xhN``, and ``xhN :- head atoms`` so
  that the restricted chase fires only where the whole head does not hold.

* an aggregate ``#count``, ``#sum``, ``#min``, ``#max`` in a head: Nemo
  aggregates the *distinct* tuples of its arguments (``#sum(?Y, ?Z)`` sums
  ``?Y`` over the distinct pairs ``?Y, ?Z``) per group of the head's other
  terms' values, and chronolog the bindings of a body: so the body is
  first projected onto (group, the variables outside the aggregate in its
  term, the aggregated value, the rest of its arguments) in a predicate
  ``xaN``, whose distinct facts are aggregated in ``xgN``, and the head's
  term computed from the result (``?Z * #sum(?Y)``) in a last rule;
  ``MAX``/``MIN``/``ABS`` of numbers are chronolog's ``max``/``min``/``abs``.

Anything else (other functions, IRIs, typed literals, other formats,
import options) is outside what is translated: :class:`Unsupported`.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from public_suites import ARITHMETIC, COMPARISON, Unsupported, split_top, tokenize
from public_suites import expression as shared_expression

TOKEN = re.compile(
    r"""(?P<ws>\s+)|(?P<comment>%[^\n]*)|(?P<string>"(?:[^"\\]|\\.)*")|(?P<var>[?!][A-Za-z_][A-Za-z0-9_]*)"""
    r"""|(?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"""
    r"""|(?P<op>:-|<=|>=|!=|[(),.~<>=+\-*/@{}\[\]#^;:])"""
)


def tokens(text: str) -> list:
    return tokenize(text, TOKEN, ("ws", "comment"))


def statements(toks: list) -> list:
    """Token lists of the statements (ended by a '.' outside brackets)."""
    out, cur, depth = [], [], 0
    for t in toks:
        if t[1] in "({[" and t[0] == "op":
            depth += 1
        elif t[1] in ")}]" and t[0] == "op":
            depth -= 1
        if t == ("op", ".") and depth == 0:
            out.append(cur)
            cur = []
        else:
            cur.append(t)
    if cur:
        raise Unsupported("a statement without its final '.'")
    return out


def pred(name: str) -> str:
    return "n" + name


def term(t) -> str:
    kind, text = t
    if kind == "var":
        return ("V" if text[0] == "?" else "W") + text[1:]
    if kind == "name":
        return "_" if text == "_" else f'"{text}"'
    if kind == "number":
        return text
    if kind == "string":  # Nemo writes a string literal out with its quotes
        return '"\\"' + text[1:-1] + '\\""'
    raise Unsupported(f"the term {text}")


FUNCTIONS = {"MAX": "max", "MIN": "min", "ABS": "abs"}  # Nemo's functions chronolog has, with the same meaning on numbers
AGGREGATES = {"count", "sum", "min", "max"}


def expression(toks: list) -> str:
    if not any(t[0] == "name" and t[1] in FUNCTIONS for t in toks):
        return shared_expression(toks, term)
    parts = []  # (a function's arguments: each an expression)
    for i, t in enumerate(toks):
        if t[0] == "name" and i + 1 < len(toks) and toks[i + 1] == ("op", "(") and t[1] in FUNCTIONS:
            parts.append(FUNCTIONS[t[1]])
        elif t == ("op", ","):
            parts.append(",")
        else:
            parts.append(shared_expression([t], term))
    return " ".join(parts)


def aggregate_rule(head: list, body: list, n: int) -> list:
    """The rules of a head with an aggregate (see the module's docstring)."""
    if len(head) < 3 or head[0][0] != "name" or head[1] != ("op", "(") or head[-1] != ("op", ")"):
        raise Unsupported("an atom of another form: " + " ".join(t[1] for t in head))
    key, assigns, out, agg = [], [], [], None
    for arg in split_top(head[2:-1]):
        at = [i for i, t in enumerate(arg) if t == ("op", "#")]
        if not at:
            if len(arg) == 1:
                out.append(term(arg[0]))
                key += [v for v in variables([out[-1]]) if v not in key]
            else:
                out.append(f"Ug{len(assigns)}")
                assigns.append(f"{out[-1]} = {expression(arg)}")
                key.append(out[-1])
            continue
        if agg is not None or len(at) != 1 or len(arg) < at[0] + 4 or arg[at[0] + 2] != ("op", "("):
            raise Unsupported("two aggregates in a head")
        i = at[0]
        func = arg[i + 1][1].lower()
        if func not in AGGREGATES:
            raise Unsupported(f"the aggregate #{arg[i + 1][1]}")
        depth, j = 0, i + 2
        while True:  # the aggregate's closing bracket
            depth += {"(": 1, ")": -1}.get(arg[j][1], 0) if arg[j][0] == "op" else 0
            if depth == 0:
                break
            j += 1
        args = split_top(arg[i + 3 : j])
        if any(len(a) != 1 or a[0][0] != "var" for a in args[1:]):
            raise Unsupported("an aggregate's distinct argument that is not a variable")
        value = expression(args[0])
        agg = (func, value, [term(a[0]) for a in args[1:]])
        outer = arg[:i] + [("var", "?$")] + arg[j + 1 :]
        result = expression(outer).replace("V$", "Ua")
        out.append(result if result == "Ua" else "Ur")
        if result != "Ua":
            assigns.append(f"Ur = {result}")  # (in the last rule: over the group and the result)
    func, value, distinct = agg
    outside = [v for v in variables([a for a in assigns if a.startswith("Ur")]) if v not in key]
    if not re.fullmatch(r"[VW]\w*", value):
        body = body + [f"Uv = {value}"]
        value = "Uv"
    group = key + outside
    first = [a for a in assigns if not a.startswith("Ur")]
    projected = f"xa{n}({', '.join(group + [value] + distinct)})"
    grouped = f"xg{n}({', '.join(group + ['Ua'])})"
    last = [a for a in assigns if a.startswith("Ur")]
    return [
        f"{projected} :- {', '.join(body + first)}.",
        f"{grouped} :- {projected}, Ua = {func}({'' if func == 'count' else value}).",
        f"{pred(head[0][1])}({', '.join(out)}) :- {', '.join([grouped] + last)}.",
    ]


def atom(toks: list, assigns=None) -> tuple:
    """(predicate, [term text]) of ``name(args)``; with ``assigns`` (a list),
    an argument that is an expression becomes a fresh variable assigned there."""
    if len(toks) < 3 or toks[0][0] != "name" or toks[1] != ("op", "(") or toks[-1] != ("op", ")"):
        raise Unsupported("an atom of another form: " + " ".join(t[1] for t in toks))
    args = split_top(toks[2:-1]) if len(toks) > 3 else []
    out = []
    for a in args:
        if len(a) != 1 and assigns is not None and all(t[0] in ("var", "number") or t[1] in ARITHMETIC for t in a):
            out.append(f"Vexpr{len(assigns)}")
            assigns.append(f"{out[-1]} = {expression(a)}")
        elif len(a) != 1:
            raise Unsupported("a function or expression as an argument: " + " ".join(t[1] for t in a))
        else:
            out.append(term(a[0]))
    return toks[0][1], out


def atom_text(a) -> str:
    return f"{pred(a[0])}({', '.join(a[1])})"


def literal(toks: list) -> str:
    if toks and toks[0] == ("op", "~"):
        return "not " + atom_text(atom(toks[1:]))
    ops = [i for i, t in enumerate(toks) if t[0] == "op" and t[1] in COMPARISON]
    if ops:
        if len(ops) != 1:
            raise Unsupported("a chained comparison")
        return expression(toks)
    return atom_text(atom(toks))


def equality(lit: str, bound: list) -> str:
    """Nemo's ``=`` is an assignment to an unbound variable on its left and
    a test otherwise (chronolog's ``==``)."""
    if " = " not in lit:
        return lit
    left = lit.split(" = ")[0]
    if re.fullmatch(r"[VW]\w*", left) and left not in bound:
        bound.append(left)
        return lit
    return lit.replace(" = ", " == ")


def variables(texts) -> list:
    out = []
    for t in texts:
        for v in re.findall(r"\b[VW][A-Za-z0-9_]*", t):
            if v not in out:
                out.append(v)
    return out


def options(toks: list, where: str) -> dict:
    """``csv {key = value, ...}`` of an import or export."""
    if not toks or toks[0] != ("name", "csv"):
        raise Unsupported(f"a {where} in another format")
    if len(toks) == 1:
        return {}
    if toks[1] != ("op", "{") or toks[-1] != ("op", "}"):
        raise Unsupported(f"the {where} options")
    out = {}
    for part in split_top(toks[2:-1]):
        if not part:
            continue
        if len(part) < 3 or part[1] != ("op", "="):
            raise Unsupported(f"the {where} option " + " ".join(t[1] for t in part))
        key = part[0][1]
        if key == "resource" and len(part) == 3 and part[2][0] == "string":
            out[key] = part[2][1][1:-1]
        elif key == "format" and all(t[0] == "op" or t == ("name", "any") for t in part[2:]):
            pass  # every column read as Nemo infers it: what the facts reader does too
        else:
            raise Unsupported(f"the {where} option {key}")
    return out


def csv_value(text: str) -> str:
    text = text.strip()
    if re.fullmatch(r"-?\d+", text):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def translate(path: Path) -> tuple:
    """(chronolog program text, {predicate: expected rows or None}) of the
    case at ``path``; rows are tuples of text, a null is ("null", label)."""
    toks = tokens(path.read_text())
    lines, facts, exports = [], [], []
    aux = 0
    for st in statements(toks):
        if not st:
            continue
        if st[0] == ("op", "@"):
            kind = st[1][1] if len(st) > 1 else ""
            if kind not in ("import", "export") or len(st) < 4 or st[3] != ("op", ":-"):
                raise Unsupported(f"the directive @{kind}")
            name = st[2][1]
            opts = options(st[4:], kind)
            if kind == "export":
                if opts:
                    raise Unsupported("an export to a named resource")
                exports.append(name)
                continue
            if "resource" not in opts:
                raise Unsupported("an import without a resource")
            src = path.parent / opts["resource"]
            if src.suffix != ".csv" or not src.exists():
                raise Unsupported(f"the import {opts['resource']}")
            with open(src, newline="") as f:
                for row in csv.reader(f):
                    if row:
                        facts.append(f"{pred(name)}({', '.join(csv_value(c) for c in row)})@0.")
            continue
        parts = split_top(st, ":-")
        if len(parts) == 1:
            assigns = []
            fact = atom_text(atom(st, assigns))
            if assigns:  # arithmetic over constants in a fact: computed by a rule at time 0
                lines.append(f"{fact} :- xnow, {', '.join(assigns)}.")
                if "xnow@0." not in facts:
                    facts.append("xnow@0.")
            else:
                facts.append(fact + "@0.")
            continue
        if len(parts) != 2:
            raise Unsupported("a rule with two ':-'")
        assigns: list = []
        head_toks = split_top(parts[0])
        aggregated = [h for h in head_toks if ("op", "#") in h]
        heads = [atom(h, assigns) for h in head_toks if h not in aggregated]
        body = [literal(b) for b in split_top(parts[1])] + assigns
        body_vars = variables(body)
        bound = variables(x for x in body if not x.startswith("not ") and re.match(r"n\w*\(", x))
        body = [equality(b, bound) for b in body]
        for h in aggregated:
            aux += 1
            lines += aggregate_rule(h, body, aux)
        if not heads:
            continue
        head_texts = [atom_text(h) for h in heads]
        existential = [v for v in variables(head_texts) if v.startswith("W")]
        if len(heads) == 1 or not existential:
            lines += [f"{h} :- {', '.join(body)}." for h in head_texts]
            continue
        aux += 1
        frontier = [v for v in variables(head_texts) if v in body_vars]
        whole = f"xh{aux}({', '.join(frontier + existential)})"
        lines.append(f"{whole} :- {', '.join(body)}.")
        lines += [f"{h} :- {whole}." for h in head_texts]
        lines.append(f"{whole} :- {', '.join(head_texts)}.")
    if not exports:
        raise Unsupported("no export to compare")
    expected = {}
    for name in exports:
        f = path.parent / path.stem / f"{name}.csv"
        if f.exists():  # an export without a file is not checked by the suite either
            expected[name] = read_expected(f)
    if not expected:
        raise Unsupported("no expected output")
    return "\n".join(lines + facts) + "\n", expected


def read_expected(f: Path) -> set:
    rows = set()
    with open(f, newline="") as fh:
        for row in csv.reader(fh):
            if row:
                rows.add(tuple(("null", c[2:]) if c.startswith("_:") else c for c in row))
    return rows


def cases(root: Path) -> list:
    """Every .rls program of the suite, by its path from ``root``."""
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.rls"))
