"""Public test suites that nobody here wrote: where their files are, and how
a model is compared with a suite's expected answer.

The suites' files (programs, facts, expected outputs) are not part of this
repository: they are the suites' own, under their own licences.  A suite
is looked for, by name, under the directory named by the environment
variable ``CHRONOLOG_PUBLIC_SUITES``, then ``tests/data/public`` and then
``shared/public-suites`` beside the checkout; a test of a suite that is not
there is skipped with a sentence saying where it was looked for.
tests/data/public/README.md says which suite comes from which repository.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from chronolog.language.nulls import Null

HERE = Path(__file__).resolve().parent


class Unsupported(Exception):
    """A construct of a suite's case that its translation does not cover."""


COMPARISON = {"<", "<=", ">", ">=", "!=", "="}
ARITHMETIC = {"+", "-", "*", "/", "(", ")"}


def tokenize(text: str, pattern, skip=("ws",)) -> list:
    """``(kind, text)`` of each token of ``pattern`` (named groups) in
    ``text``, those of the kinds in ``skip`` left out."""
    out, i = [], 0
    while i < len(text):
        m = pattern.match(text, i)
        if m is None:
            raise Unsupported(f"character {text[i]!r}")
        i = m.end()
        if m.lastgroup not in skip:
            out.append((m.lastgroup, m.group()))
    return out


def expression(toks: list, term) -> str:
    """Arithmetic over variables, numbers and constants in chronolog's words
    (``term``: the suite's translation of one term)."""
    parts = []
    for i, t in enumerate(toks):
        if t[0] == "op" and t[1] not in COMPARISON and t[1] not in ARITHMETIC:
            raise Unsupported(f"the operator {t[1]}")
        if t[0] == "name" and i + 1 < len(toks) and toks[i + 1] == ("op", "("):
            raise Unsupported(f"the function {t[1]}")
        parts.append(t[1] if t[0] == "op" else term(t))
    return " ".join(parts)


def split_top(toks: list, sep=","):
    """``toks`` split at ``sep`` outside brackets."""
    out, cur, depth = [], [], 0
    for t in toks:
        if t[0] == "op" and t[1] in "({[":
            depth += 1
        elif t[0] == "op" and t[1] in ")}]":
            depth -= 1
        if t == ("op", sep) and depth == 0:
            out.append(cur)
            cur = []
        else:
            cur.append(t)
    out.append(cur)
    return out


def places() -> list:
    """The directories a suite is looked for in, in order."""
    out = []
    if os.environ.get("CHRONOLOG_PUBLIC_SUITES"):
        out.append(Path(os.environ["CHRONOLOG_PUBLIC_SUITES"]))
    out += [HERE / "data" / "public", HERE.parent.parent / "shared" / "public-suites"]
    return out


def find(name: str):
    """The directory of suite ``name``, or None."""
    for p in places():
        if (p / name).is_dir():
            return p / name
    return None


def require(name: str) -> Path:
    """The directory of suite ``name``; the test is skipped without it."""
    d = find(name)
    if d is None:
        pytest.skip(f"public suite {name} not found in {', '.join(str(p) for p in places())} (see tests/data/public/README.md)")
    return d


# ---------------------------------------------------------------- comparing


def value_text(v) -> object:
    """A model's value as a suite writes it: nulls stay nulls, numbers and
    names become their text."""
    if type(v) is Null:
        return v
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def is_null(v) -> bool:
    return type(v) is Null or (type(v) is tuple and v[:1] == ("null",))


def colours(facts) -> dict:
    """A colour for each null of ``facts`` (tuples), from how it occurs:
    colour refinement (Weisfeiler and Leman), so that two nulls that
    a renaming could swap get the same colour, and most others differ."""
    occurs: dict = {}
    for f in facts:
        for i, v in enumerate(f):
            if is_null(v):
                occurs.setdefault(v, []).append((f, i))
    colour = {n: 0 for n in occurs}
    classes = 1
    while True:
        table: dict = {}
        new = {}
        for n, places in occurs.items():
            sig = (colour[n], tuple(sorted(
                (i, tuple(("n", colour[v]) if is_null(v) else ("c", repr(v)) for v in f)) for f, i in places
            )))
            new[n] = table.setdefault(sig, len(table))
        colour = new
        if len(table) == classes:
            return colour
        classes = len(table)


def same_up_to_nulls(actual: set, expected: set) -> bool:
    """Whether two sets of tuples are equal once the nulls of one are renamed
    one-to-one into the nulls of the other (a chase names its nulls as it
    likes).  Nulls are ``Null`` in ``actual`` and any ``("null", label)``
    pair in ``expected``.  Colour refinement over both sets at once narrows
    each null to the nulls of its colour; a backtracking search, fact by
    fact, settles what colours leave open."""
    if len(actual) != len(expected):
        return False
    colour = colours(set(actual) | set(expected))

    def canon(f):
        return tuple(("null", colour[v]) if is_null(v) else v for v in f)

    if sorted(map(canon, actual), key=repr) != sorted(map(canon, expected), key=repr):
        return False
    by_colour: dict = {}
    for n, c in colour.items():
        by_colour.setdefault(c, []).append(n)
    if all(len(ns) == 2 and sum(type(n) is Null for n in ns) == 1 for ns in by_colour.values()):
        return True  # one null each side per colour: the renaming is forced
    rest_e = sorted((f for f in expected if any(is_null(v) for v in f)), key=repr)
    rest_a = {f for f in actual if any(is_null(v) for v in f)}

    def fits(e, a, m, used):
        if len(e) != len(a):
            return None
        m, used = dict(m), set(used)
        for x, y in zip(e, a):
            if is_null(x) != is_null(y):
                return None
            if not is_null(x):
                if x != y:
                    return None
            elif x in m:
                if m[x] != y:
                    return None
            elif y in used or colour[x] != colour[y]:
                return None
            else:
                m[x] = y
                used.add(y)
        return m, used

    def search(todo, m, used, free):
        if not todo:
            return True
        e, todo = todo[0], todo[1:]
        for a in free:
            r = fits(e, a, m, used)
            if r is not None and search(todo, *r, free - {a}):
                return True
        return False

    return search(rest_e, {}, set(), rest_a)
