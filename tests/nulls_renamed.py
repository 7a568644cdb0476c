"""Models compared up to a one-to-one renaming of labelled nulls: two
executors that name their nulls in different orders (the engine by
creation, Spark's rounds by frontier terms: docs/spark.md) must still give
the same facts, every non-null term and every interval exactly equal."""

from __future__ import annotations

from chronolog.language.nulls import Null


def _shape(fact):
    pred, terms, iv = fact
    return pred, tuple(None if type(t) is Null else t for t in terms), iv


def _signatures(facts) -> dict:
    """Each null's occurrences as ``(shape of the fact, position)``: equal
    for two nulls a renaming may map onto each other."""
    sig: dict = {}
    for f in facts:
        for i, t in enumerate(f[1]):
            if type(t) is Null:
                sig.setdefault(t, []).append((repr(_shape(f)), i))
    return {n: tuple(sorted(s)) for n, s in sig.items()}


def renaming(got, want):
    """A one-to-one map of the nulls of ``got`` onto those of ``want``
    (``{pred: iterable of (terms, interval)}``) under which the two are
    equal, or None."""
    g = {(p, _keyed(t), iv) for p, rows in got.items() for t, iv in rows}
    w = {(p, _keyed(t), iv) for p, rows in want.items() for t, iv in rows}
    if len(g) != len(w) or sorted(map(repr, map(_shape, g))) != sorted(map(repr, map(_shape, w))):
        return None
    gs, ws = _signatures(g), _signatures(w)
    if sorted(gs.values()) != sorted(ws.values()):
        return None
    # the nulls of one label first (executors that label alike): no search, which is
    # exponential where many nulls look alike
    by_label = {n.label: n for n in ws}
    same = {n: by_label.get(n.label) for n in gs}
    if None not in same.values() and len(set(same.values())) == len(same) and \
            {(p, tuple(same.get(t, t) for t in terms), iv) for p, terms, iv in g} == w:
        return same
    by_sig: dict = {}
    for n, s in ws.items():
        by_sig.setdefault(s, []).append(n)
    # a null whose occurrences no other null shares maps to its one match; only the others are searched
    mapping = {n: by_sig[gs[n]][0] for n in gs if len(by_sig[gs[n]]) == 1}
    order = sorted((n for n in gs if n not in mapping), key=lambda n: len(by_sig[gs[n]]))

    def search(k):
        if k == len(order):
            return {(p, tuple(mapping.get(t, t) for t in terms), iv) for p, terms, iv in g} == w
        n = order[k]
        for m in by_sig[gs[n]]:
            if m not in mapping.values():
                mapping[n] = m
                if search(k + 1):
                    return True
                del mapping[n]
        return False

    return dict(mapping) if search(0) else None


def assert_same_up_to_nulls(got, want) -> None:
    """``got`` equals ``want`` (``{pred: iterable of (terms, interval)}``)
    up to a one-to-one renaming of nulls."""
    facts = [sorted(str((p, r)) for p, rows in m.items() for r in rows) for m in (got, want)]
    assert renaming(got, want) is not None, facts


def same_models(got, want) -> bool:
    """``got`` and ``want`` (``{pred: list of (terms, interval)}``) equal,
    up to a one-to-one renaming of nulls where they hold any (two runs'
    nulls are never equal, and a run that keeps the witnesses it made, or
    searches where a model repeats, may label them otherwise).  Terms are
    compared as the engine compares them: equal numbers of two types are
    one term (``1/2`` and ``0.5``; which object an atom keeps follows the
    order it was first derived in: from scratch and in an update, one
    model), a boolean never a number."""
    if any(type(t) is Null for rows in want.values() for terms, _ in rows for t in terms):
        return renaming(got, want) is not None
    return all(_canonical(got[p]) == _canonical(want[p]) for p in want) and set(got) == set(want)


def _term_key(t):
    """A term as the engine's equality sees it, ordered (numbers by value;
    ``False`` apart from ``0``)."""
    from fractions import Fraction

    if isinstance(t, (int, float, Fraction)) and not isinstance(t, bool):  # (a time point between units is a Fraction's subclass)
        # the exact value, one repr whatever the type (0.5 and 1/2 alike; 0.1 the binary fraction, not 1/10)
        return (0, Fraction(t)) if t == t and abs(t) != float("inf") else (0, t)
    return (1, "bool" if isinstance(t, bool) else type(t).__name__, repr(t))


def _keyed(terms) -> tuple:
    """``terms`` with each term but a null as :func:`_term_key` sees it."""
    return tuple(t if type(t) is Null else _term_key(t) for t in terms)


def _canonical(rows) -> list:
    return sorted((tuple(map(_term_key, terms)), iv) for terms, iv in rows)
