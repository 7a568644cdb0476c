"""Fast loading of fact files: one fact per line, ``p(a,1.5,"x")@[1,5)``.

Running every line through the full grammar costs tens of microseconds; a
compiled regular expression handles the common shapes in a few.  A line the
fast path does not recognise is handed to the grammar, which either parses
it or raises a positioned syntax error — so nothing is skipped silently.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Iterable

from . import ast
from .errors import SyntaxError_
from .timeline import NEG_INF, POS_INF, make, normalize

_FACT = re.compile(
    r"^\s*([A-Za-z_][A-Za-z0-9_:\-]*)\s*(?:\((.*)\))?\s*@\s*(?:([\[(])\s*([^,\s]+)\s*,\s*([^\])\s]+)\s*([\])])|([^\s\[(.][^\s]*?))\s*\.?\s*$"
)
_INT = re.compile(r"^[+-]?\d+$")
_DEC = re.compile(r"^[+-]?\d*\.\d+$|^[+-]?\d+\.\d*$")
_FRAC = re.compile(r"^[+-]?\d+/\d+$")
_IDENT = re.compile(r"^[a-z][A-Za-z0-9_]*$")

_INFS = {"inf": POS_INF, "+inf": POS_INF, "infty": POS_INF, "+infty": POS_INF, "-inf": NEG_INF, "-infty": NEG_INF}


def _number(tok: str):
    if _INT.match(tok):
        return int(tok)
    if _DEC.match(tok):
        return normalize(Fraction(tok))
    if _FRAC.match(tok):
        n, d = tok.split("/")
        return normalize(Fraction(int(n), int(d))) if int(d) else None
    return _INFS.get(tok.lower())


def _value(tok: str, ident_ok):
    """A constant's value, or None when the fast path cannot tell."""
    if not tok:
        return None
    c = tok[0]
    if c == '"':
        if len(tok) >= 2 and tok[-1] == '"' and '\\' not in tok and '"' not in tok[1:-1]:
            return tok[1:-1]
        return None
    if c.isdigit() or c in "+-.":
        v = _number(tok)
        return None if v is None or v in (POS_INF, NEG_INF) else v
    if ident_ok(tok):
        return tok
    return None


def _split_args(s: str):
    if '"' not in s:
        return [a.strip() for a in s.split(",")]
    return None


def fast_fact(line: str, ident_ok=None):
    """Parse one fact line; returns ``(pred, terms, interval)``, or ``None``
    when the line needs the full grammar (or is bad)."""
    m = _FACT.match(line)
    if m is None:
        return None
    pred, args, lb, lo_s, hi_s, rb, pt = m.groups()
    ident_ok = ident_ok or _IDENT.match
    terms = ()
    if args is not None:
        if not args.strip():
            return None
        parts = _split_args(args)
        if parts is None:
            return None
        vals = []
        for p in parts:
            v = _value(p, ident_ok)
            if v is None:
                return None
            vals.append(v)
        terms = tuple(vals)
    if pt is not None:
        t = _number(pt)
        if t is None or t in (POS_INF, NEG_INF):
            return None
        return pred, terms, (t, t, True, True)
    lo, hi = _number(lo_s), _number(hi_s)
    if lo is None or hi is None:
        return None
    iv = make(lo, hi, lb == "[", rb == "]")
    if iv is None:
        return None
    return pred, terms, iv


def parse_fact_lines(lines: Iterable[str], source: str = "<facts>", dialect: str = "vadalog") -> list:
    """Facts from lines (blank lines and ``%``/``#`` comments ignored)."""
    if dialect == "meteor":
        from . import meteor

        return meteor.parse_facts(list(lines), source)
    out = []
    pred_ok = re.compile(r"^[a-z][A-Za-z0-9_]*$").match
    for n, line in enumerate(lines, 1):
        s = line.strip()
        if not s or s[0] == "%" or s.startswith("//"):
            continue
        r = fast_fact(s)
        if r is not None and pred_ok(r[0]):
            out.append(ast.Fact(r[0], r[1], r[2], ast.Pos(source, n, 1)))
            continue
        out.append(_slow_fact(line, n, source))
    return out


def _slow_fact(line: str, lineno: int, source: str) -> ast.Fact:
    from . import vadalog

    text = line.rstrip().rstrip("\n")
    if not text.rstrip().endswith("."):
        text = text.rstrip() + "."
    try:
        prog = vadalog.parse(text, source)
    except SyntaxError_ as e:
        pos = ast.Pos(source, lineno, e.pos.column if e.pos else 0)
        raise SyntaxError_(
            e.message, pos, hint=e.hint or "a fact looks like p(a, 1.5, \"x\")@[1,5) or p(a)@3", source_line=line
        ) from None
    if len(prog.facts) != 1 or prog.rules or prog.annotations:
        raise SyntaxError_(
            "expected one fact on this line", ast.Pos(source, lineno, 1), hint="a fact looks like p(a)@[1,5)", source_line=line
        )
    f = prog.facts[0]
    f.pos = ast.Pos(source, lineno, 1)
    return f
