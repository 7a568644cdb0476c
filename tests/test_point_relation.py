"""A column relation that takes point changes (engine/columns/point_relation.py)
reads and writes as the row Relation holding the same atoms does (the
oracle: a plain ``Relation``, a dict per atom), and gives back a column
frame of what it holds; updates small enough run on it atom by atom, and
the model after each equals reasoning from scratch on the rows."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from budget import examples

import chronolog
from chronolog.engine.columns.encoding import Dictionary, TimeScale
from chronolog.engine.columns.point_relation import ColumnRelation
from chronolog.engine.columns.relation import from_relation, to_atoms
from chronolog.engine.rows.maintenance import apply_intervals, drop_emptied
from chronolog.engine.store import Relation
from chronolog.language.timeline import coalesce

NAMES = ["a", "b", "c", "d", 7]


@st.composite
def intervals(draw):
    lo = draw(st.integers(0, 12))
    hi = lo + draw(st.integers(0, 4))
    lc, hc = draw(st.booleans()), draw(st.booleans())
    if lo == hi:
        lc = hc = True
    return (lo, hi, lc, hc)


@st.composite
def relations(draw):
    arity = draw(st.integers(0, 3))
    atoms = {}
    for _ in range(draw(st.integers(0, 12))):
        terms = tuple(draw(st.sampled_from(NAMES)) for _ in range(arity))
        atoms[terms] = coalesce(atoms.get(terms, []) + draw(st.lists(intervals(), min_size=1, max_size=3)))
    return arity, atoms


def refused(terms, codes) -> bool:
    """Whether an update writing ``terms`` runs by recomputation instead
    (point_relation.values_refusal: 7.0 may equal the term 7, which the
    codes of a column relation cannot tell apart)."""
    from chronolog.engine.columns.encoding import Fallback
    from chronolog.engine.columns.retraction import lookup

    try:
        lookup([v for v in terms if type(v) is not str], codes)
    except Fallback:
        return True
    return False


def pair(arity, atoms):
    """The same atoms as a plain Relation and as a ColumnRelation over their frame."""
    plain = Relation("p")
    plain.bulk_add((t, iv) for t, ivs in atoms.items() for iv in ivs)
    terms, scale = Dictionary(), TimeScale(1)
    for v in NAMES:  # (some values coded before any fact names them)
        terms.code(v)
    df = from_relation(plain, arity, terms, scale)
    return plain, ColumnRelation("p", df, arity, terms, scale)


def operations(arity, atoms=()):
    some_terms = st.tuples(*[st.sampled_from(NAMES + ["new"])] * arity)
    held = st.one_of(some_terms, st.sampled_from(sorted(atoms, key=repr))) if atoms else some_terms  # (an update's atoms are mostly held)
    positions = st.lists(st.integers(0, max(0, arity - 1)), unique=True, max_size=arity).map(lambda ps: tuple(sorted(ps)))
    return st.lists(
        st.one_of(
            st.tuples(st.just("get"), some_terms),
            st.tuples(st.just("set"), some_terms, st.lists(intervals(), min_size=0, max_size=2).map(coalesce)),
            st.tuples(st.just("del"), some_terms),
            st.tuples(st.just("add"), some_terms, intervals()),
            st.tuples(st.just("index"), positions, some_terms),
            st.tuples(st.just("len"),),
            st.tuples(st.just("frame"),),
            st.tuples(st.just("bulk"), st.lists(st.tuples(some_terms, intervals()), max_size=3)),
            # the rows' DRed: many atoms' intervals set at once (some left with none), the emptied ones dropped
            st.tuples(st.just("apply"), st.dictionaries(held, st.lists(intervals(), max_size=2).map(coalesce), max_size=4)),
            st.tuples(st.just("drop"),),
        ),
        max_size=25,
    )


def same(plain, rel):
    assert len(rel.atoms) == len(plain.atoms)
    assert {t: list(v) for t, v in rel.atoms.items()} == {t: list(v) for t, v in plain.atoms.items()}


@settings(max_examples=examples(300), deadline=None, suppress_health_check=list(HealthCheck))
@given(relations(), st.data())
def test_random_point_changes_read_as_a_plain_relation(relation, data):
    arity, atoms = relation
    plain, rel = pair(arity, atoms)
    for p in range(arity):
        rel.index((p,))
        plain.index((p,))
    emptied = {}
    for op in data.draw(operations(arity, atoms)):
        kind = op[0]
        if kind == "apply":  # (a ColumnRelation's in one pass a relation, the plain one's an atom at a time)
            for r in (rel, plain):
                apply_intervals(r, {t: list(ivs) for t, ivs in op[1].items()}, emptied)
        elif kind == "drop":  # (the indexes made before it drop the atoms too)
            drop_emptied(emptied)
            emptied = {}
            for ps in [(p,) for p in range(arity)]:
                for key in NAMES + ["new"]:
                    want = sorted((t for t in plain.atoms if t[ps[0]] == key), key=repr)
                    assert sorted(rel.index(ps).get(key, ()), key=repr) == sorted(plain.index(ps).get(key, ()), key=repr) == want
        elif kind == "get":
            assert rel.atoms.get(op[1]) == plain.atoms.get(op[1])
            assert (op[1] in rel.atoms) == (op[1] in plain.atoms)
        elif kind == "set":  # (as the rows write an atom: a new one added first, which indexes it)
            for r in (rel, plain):
                if op[1] in r.atoms:
                    r.atoms[op[1]] = list(op[2])
                elif op[2]:
                    r.add(op[1], op[2][0])
                    r.atoms[op[1]] = list(op[2])
        elif kind == "del":  # (then dropped from the indexes, as the rows do)
            if op[1] in plain.atoms:
                for r in (rel, plain):
                    del r.atoms[op[1]]
                    r.drop_from_indexes({op[1]})
            else:
                with pytest.raises(KeyError):
                    del rel.atoms[op[1]]
        elif kind == "add":
            assert rel.add(op[1], op[2]) == plain.add(op[1], op[2])
        elif kind == "bulk":
            rel.bulk_add(op[1])
            plain.bulk_add(op[1])
        elif kind == "index":
            ps, terms = op[1], op[2]
            key = terms[ps[0]] if len(ps) == 1 else tuple(terms[p] for p in ps)
            want = [t for t in plain.atoms if (t[ps[0]] if len(ps) == 1 else tuple(t[p] for p in ps)) == key]
            for r in (rel, plain):  # (each relation's index, made now or kept up to date since)
                assert sorted(r.index(ps).get(key, ()), key=repr) == sorted(want, key=repr)
        elif kind == "len":
            assert len(rel.atoms) == len(plain.atoms)
            assert bool(rel.atoms) == bool(plain.atoms)
        elif kind == "frame":
            df = rel.frame()
            assert to_atoms(df, arity, rel.terms, rel.scale) == {t: v for t, v in plain.atoms.items() if v}
    same(plain, rel)
    assert to_atoms(rel.frame(), arity, rel.terms, rel.scale) == {t: v for t, v in plain.atoms.items() if v}


@settings(max_examples=examples(1000), deadline=None, suppress_health_check=list(HealthCheck))
@given(relation=relations(), data=st.data())
def test_atoms_read_together_as_one_by_one(monkeypatch, relation, data):
    """Atoms and probe keys read together (one search for all: read_atoms,
    read_ahead) give what reading them one by one gives (another relation
    over the same frame), and what the plain relation holds; then reads
    one by one, writes and deletions go on as before."""
    from chronolog.engine.columns import point_relation

    monkeypatch.setattr(point_relation, "FEW_KEYS", 1)  # (every batch searched together)
    arity, atoms = relation
    plain, together = pair(arity, atoms)
    _, one_by_one = pair(arity, atoms)
    values = NAMES + ["new", 7.0]
    some_terms = st.tuples(*[st.sampled_from(values)] * arity)
    if atoms:  # (mostly the relation's own atoms: keys that find several)
        some_terms = st.one_of(st.sampled_from(sorted(atoms, key=repr)), some_terms)
    for _ in range(data.draw(st.integers(1, 3))):
        if data.draw(st.booleans()):
            many = data.draw(st.lists(some_terms, max_size=8))
            together.read_atoms(many)
            for terms in many:
                assert together.atoms.get(terms) == one_by_one.atoms.get(terms) == plain.atoms.get(terms), terms
        elif arity:
            ps = tuple(sorted(data.draw(st.sets(st.integers(0, arity - 1), min_size=1))))
            keys = [t[ps[0]] if len(ps) == 1 else tuple(t[p] for p in ps) for t in data.draw(st.lists(some_terms, max_size=8))]
            together.read_ahead(ps, keys)
            for key in keys:
                got, want = together.index(ps).get(key, ()), one_by_one.index(ps).get(key, ())
                assert sorted(got, key=repr) == sorted(want, key=repr), key
                assert all(together.atoms.get(t) == plain.atoms.get(t) for t in got)
        terms = data.draw(some_terms)  # (a write between reads, to each)
        if refused(terms, together.terms):  # (an update that writes it is recomputed: values_refusal)
            continue
        if terms in plain.atoms and data.draw(st.booleans()):
            for rel in (together, one_by_one, plain):
                del rel.atoms[terms]
                rel.drop_from_indexes({terms})
        else:
            iv = data.draw(intervals())
            assert together.add(terms, iv) == one_by_one.add(terms, iv) == plain.add(terms, iv)
    for ps in [tuple(p for p in range(arity) if mask >> p & 1) for mask in range(1, 2**arity)]:  # (every index, after the writes)
        for terms in set(plain.atoms) | {data.draw(some_terms)}:
            key = terms[ps[0]] if len(ps) == 1 else tuple(terms[p] for p in ps)
            want = [t for t in plain.atoms if (t[ps[0]] if len(ps) == 1 else tuple(t[p] for p in ps)) == key]
            assert sorted(together.index(ps).get(key, ()), key=repr) == sorted(want, key=repr), (ps, key)
    same(plain, together)
    assert to_atoms(together.frame(), arity, together.terms, together.scale) == {t: v for t, v in plain.atoms.items() if v}


def test_clear_then_add():
    plain, rel = pair(1, {("a",): [(0, 2, True, True)], ("b",): [(1, 1, True, True)]})
    rel.atoms.clear()
    rel.bulk_add([(("c",), (3, 4, True, True))])
    assert dict(rel.atoms.items()) == {("c",): [(3, 4, True, True)]}
    assert rel.index((0,)).get("a", ()) == () and rel.index((0,)).get("c") == [("c",)]
    assert to_atoms(rel.frame(), 1, rel.terms, rel.scale) == {("c",): [(3, 4, True, True)]}


PROGRAM = "reach(X,Y) :- edge(X,Y).\nreach(X,Z) :- reach(X,Y), edge(Y,Z).\nnear(X) :- <->[0,2] reach(X,b)."


def facts(n):
    return "\n".join(f"edge(n{i},n{i + 1})@[{i % 7},{i % 7 + 3}]" for i in range(n)) + "\nedge(n3,b)@[0,9]"


@pytest.fixture
def point_atoms(monkeypatch):
    from chronolog.engine.columns import evaluator

    monkeypatch.setattr(evaluator, "POINT_ATOMS", 3)


def test_each_update_takes_the_path_its_size_says(point_atoms):
    """Up to POINT_ATOMS pieces and facts: atom by atom; more: on frames;
    each model equal to reasoning from scratch on the rows."""
    given = facts(40).splitlines()
    r = chronolog.Reasoner(PROGRAM, "\n".join(given), engine="columns")
    steps = [
        (["edge(n3,b)@[0,9]"], [], "atoms"),
        (given[:5], [], "frames"),
        ([], ["edge(n3,b)@[2,4]", "edge(x,n1)@[0,1]"], "atoms"),
        ([], given[:5], "frames"),
        (["edge(x,n1)@[0,1]"], ["edge(n2,n3)@[0,20]", "edge(n9,b)@[1,2]"], "atoms"),
        (given[10:14], ["edge(n1,n5)@[1,3]"], "frames"),
    ]
    now = list(given)
    for gone, added, path in steps:
        m = r.update(add="\n".join(added) or None, retract="\n".join(gone) or None)
        now = [f for f in now if f not in gone] + added
        assert {s["path"] for s in m.stats["maintenance"]} == {path}
        assert m.stats["maintained_on"] == "columns"
        assert m.to_text() == chronolog.reason(PROGRAM, "\n".join(now), engine="rows").to_text(), (gone, added)


def test_a_value_or_time_the_columns_cannot_hold_takes_the_frames(point_atoms):
    """A float beside names, or a time off the run's grid: not atom by atom
    (the frames' path decides; a time off the grid moves to the rows)."""
    r = chronolog.Reasoner(PROGRAM, facts(10), engine="columns")
    m = r.add("edge(n1,2.5)@[1,2]")
    assert {s["path"] for s in m.stats["maintenance"]} == {"frames"}
    assert m.to_text() == chronolog.reason(PROGRAM, facts(10) + "\nedge(n1,2.5)@[1,2]", engine="rows").to_text()
    r = chronolog.Reasoner(PROGRAM, facts(10), engine="columns")
    m = r.add("edge(n1,n2)@[1/3,1]")
    assert m.stats["maintained_on"].startswith("rows (time point 1/3")
    assert m.to_text() == chronolog.reason(PROGRAM, facts(10) + "\nedge(n1,n2)@[1/3,1]", engine="rows").to_text()


@pytest.mark.parametrize("point_atoms", [-1, 10**9], ids=["frames", "atoms"])
def test_given_facts_of_derived_predicates_read_from_the_fact_columns(point_atoms, tmp_path, monkeypatch):
    """A fact file past the kernel reader's size gives its facts as columns;
    a derived predicate's given facts (reach below) are then kept as a
    frame (GivenColumns) by updates by atoms: retracting and adding them,
    and the facts they depend on, gives the model of reasoning from scratch."""
    import random

    from chronolog.engine.columns import evaluator

    from chronolog.engine.columns import maintenance

    monkeypatch.setattr(evaluator, "POINT_ATOMS", point_atoms)
    # (the many updates of the thorough and hunt profiles would hand over to rows: maintenance.ROWS_AFTER)
    monkeypatch.setattr(maintenance, "ROWS_AFTER", float("inf"))
    monkeypatch.setattr(maintenance, "ROWS_AFTER_SECONDS", float("inf"))
    rng = random.Random(3)
    edges = [f"edge(n{i},n{i + 1})@[{i % 7},{i % 7 + 3}]" for i in range(5000) if i % 5 != 4]
    given = [f"reach(n{rng.randrange(5000)},b)@[{k % 5},{k % 5 + 4}]" for k in range(40)] + ["edge(n3,b)@[0,9]"]
    now = edges + sorted(set(given))
    path = tmp_path / "facts.vada"
    path.write_text("".join(f + ".\n" for f in now))
    r = chronolog.Reasoner(PROGRAM, path, engine="columns")
    for _ in range(examples(8)):
        gone = rng.sample(now, rng.randint(0, 4))
        added = [f"reach(n{rng.randrange(5000)},b)@[1,2]" for _ in range(rng.randint(0, 2))] + rng.sample(edges, 1)
        added = [f for f in dict.fromkeys(added) if f not in now or f in gone]
        if not gone and not added:
            continue  # (an update with nothing to do reports no path: drawn under the thorough and hunt profiles)
        m = r.update(add="\n".join(added) or None, retract="\n".join(gone) or None)
        now = [f for f in now if f not in gone] + added
        assert m.stats["maintained_on"] == "columns"
        assert {s["path"] for s in m.stats["maintenance"]} == {"atoms" if point_atoms > 0 else "frames"}
        assert m.to_text() == chronolog.reason(PROGRAM, "\n".join(now), engine="rows").to_text(), (gone, added)
    if point_atoms > 0:  # (the given facts of reach were read as a frame, not as rows)
        from chronolog.engine.columns.point_relation import GivenColumns

        assert isinstance(r.evaluator.base.get("reach"), GivenColumns)


@pytest.mark.parametrize("engine", ["rows", "columns"])
@pytest.mark.parametrize("path", ["atoms", "frames"])
def test_retracting_an_equal_number_of_another_type_keeps_the_atoms_own_value(engine, path, monkeypatch):
    """The rows keep each atom's own object (docs/design.md, "Equal numbers
    of two types"): retracting 2.0 from a given 2 leaves 2, on both
    executors and both paths (the atoms' path gave 2.0: it kept the atom
    under the retraction's terms)."""
    from chronolog.engine.columns import evaluator

    if path == "frames":
        monkeypatch.setattr(evaluator, "POINT_ATOMS", -1)
    r = chronolog.Reasoner("q(X) :- p(X).", "p(2)@[0,10]\np(a)@[0,3]", engine=engine)
    r.retract({"p": [((2.0,), (3, 5))]})
    if engine == "columns" and path == "atoms":  # (the frames hand such an update to the rows)
        assert r.model.stats["maintenance"][0]["path"] == path
    for pred in ("p", "q"):
        got = [(terms, iv) for terms, iv in r.model.facts(pred) if terms != ("a",)]
        assert got == [((2,), (0, 3, True, False)), ((2,), (5, 10, False, True))]
        assert {type(terms[0]) for terms, _ in got} == {int}
    r.retract({"p": [((2.0,), (8, 9))]})
    assert [type(t[0]) for t, _ in r.model.facts("q")] == [int, int, int, str]
    assert r.model.to_text() == "q(2)@[0,3)\nq(2)@(5,8)\nq(2)@(9,10]\nq(a)@[0,3]"


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(0, 3), st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(0, 5)), max_size=30),
       st.booleans(), st.tuples(st.integers(0, 6), st.integers(0, 6), st.integers(0, 6)))
def test_sorted_keys_find_the_rows_a_scan_finds(width, rows, in_order, probe):
    """SortedKeys over a frame in key order (its own index) or not (sorted
    here) gives, for any codes, the rows a scan of the columns finds."""
    import numpy as np

    from chronolog.engine.columns.point_relation import SortedKeys

    if in_order:
        rows = sorted(rows)
    cols = [np.array([r[i] for r in rows], dtype=np.int64) for i in range(width)]
    keys = SortedKeys(cols, len(rows))
    codes = probe[:width]
    want = [i for i, r in enumerate(rows) if r[:width] == codes]
    assert sorted(keys.rows(codes)) == want
    if width == 1:  # (one column: the rows of a code in their order)
        assert list(keys.rows(codes)) == want
    assert keys.distinct() == len({r[:width] for r in rows})
    # many keys in one search: each key's rows in turn, as rows() gives them
    many = [codes, tuple(reversed(codes)), codes, tuple(c + 1 for c in codes)]
    got, counts = keys.spans(many)
    assert counts == [len(keys.rows(c)) for c in many]
    assert got == [r for c in many for r in keys.rows(c)]


def test_updates_by_atoms_after_updates_on_frames(monkeypatch, tmp_path):
    """Updates by atoms after updates on frames read the relations those
    replaced and a derived predicate's given facts from the frame the
    frames' update left (not its rows' copy with the changes replayed);
    the model after each equals reasoning from scratch on the rows."""
    import random

    from chronolog.engine.columns import evaluator, maintenance
    from chronolog.engine.columns.point_relation import GivenColumns

    monkeypatch.setattr(maintenance, "ROWS_AFTER", float("inf"))
    monkeypatch.setattr(maintenance, "ROWS_AFTER_SECONDS", float("inf"))
    rng = random.Random(5)
    edges = [f"edge(n{i},n{i + 1})@[{i % 7},{i % 7 + 3}]" for i in range(5000) if i % 5 != 4]
    given = sorted({f"reach(n{rng.randrange(5000)},b)@[{k % 5},{k % 5 + 4}]" for k in range(40)}) + ["edge(n3,b)@[0,9]"]
    now = edges + given
    path = tmp_path / "facts.vada"
    path.write_text("".join(f + ".\n" for f in now))
    r = chronolog.Reasoner(PROGRAM, path, engine="columns")
    for step in range(examples(6) + 2):
        by_frames = step % 2 == 0
        monkeypatch.setattr(evaluator, "POINT_ATOMS", -1 if by_frames else 10**9)
        gone = rng.sample(now, 3) + [g for g in given if g in now][:1]
        added = [f"reach(n{rng.randrange(5000)},b)@[1,{step + 2}]", rng.choice(edges)]
        added = [f for f in dict.fromkeys(added) if f not in now or f in gone]
        m = r.update(add="\n".join(added), retract="\n".join(gone))
        now = [f for f in now if f not in gone] + added
        assert {s["path"] for s in m.stats["maintenance"]} == {"frames" if by_frames else "atoms"}
        assert m.to_text() == chronolog.reason(PROGRAM, "\n".join(now), engine="rows").to_text(), (step, gone, added)
        if step == 1:  # (the frames' given facts of reach, as they left them)
            base = r.evaluator.base.get("reach")
            assert isinstance(base, GivenColumns) and not r.evaluator.base.waiting("reach")


@pytest.mark.parametrize("kind", ["int", "bool", "string", "date", "float", "signed zeros"])
def test_a_first_update_by_atoms_reads_a_given_tables_frame_not_its_rows(kind, monkeypatch):
    """A given table whose integer column is read back as exact pairs (its
    frame released after its last reader, read again at the first update)
    is coded and held as a ColumnRelation, not made a Python atom per row:
    the first add of three rows to 1M took 5 s (10x reasoning from
    scratch), its first retraction 1.1 s; a float column (a value column)
    is coded likewise (3.3 s of a first retraction).  Each model equals
    reasoning from scratch on the rows."""
    import datetime

    import pandas as pd

    from chronolog.engine.columns import evaluator, maintenance

    def no_rows(pred, *_):
        raise AssertionError(f"{pred if isinstance(pred, str) else 'a'} relation's rows were made Python atoms")

    monkeypatch.setattr(evaluator, "_given_atoms", no_rows)
    n = 3000
    value = {"int": lambda i: i % 50, "bool": lambda i: i % 3 == 0, "string": lambda i: f"v{i % 50}",
             "date": lambda i: datetime.date(2024, 1, 1) + datetime.timedelta(days=i % 50),
             "float": lambda i: 0.5 + i * 0.37, "signed zeros": lambda i: (-0.0, 0.0, 1.5)[i % 3]}[kind]
    table = pd.DataFrame({"k": [f"k{i % 400}" for i in range(n)], "v": [value(i) for i in range(n)],
                          "start": [i % 97 for i in range(n)], "end": [i % 97 + 1 + i % 5 for i in range(n)]})
    program = 'hot(K, V) :- p(K, V).\nwarm(K) :- <->[0,5] hot(K, V).\n@output("warm"). @output("hot").\n'
    r = chronolog.Reasoner(program, {"p": table}, engine="columns")
    added = table.iloc[:3].assign(start=200, end=203)
    m = r.add({"p": added})
    path = {"atoms"} if kind in ("int", "string") else {"atoms", "frames"}  # (values added the frames' path takes: values_refusal)
    assert {s["path"] for s in m.stats["maintenance"]} <= path and m.stats["maintained_on"] == "columns"
    assert m.to_text() == chronolog.reason(program, {"p": pd.concat([table, added])}, engine="rows").to_text()
    monkeypatch.setattr(maintenance, "to_atoms", no_rows)  # (the frames' rows, as an update on frames left them)
    m = r.retract({"p": table.iloc[5:7]})  # (rows 5 and 6: k5@[5,6], k6@[6,8], given once each)
    path = {"atoms"} if kind in ("int", "string", "float") else path  # (a float retracted: atoms)
    assert {s["path"] for s in m.stats["maintenance"]} <= path and m.stats["maintained_on"] == "columns"
    now = pd.concat([table.drop(index=[5, 6]), added])
    assert m.to_text() == chronolog.reason(program, {"p": now}, engine="rows").to_text()


@pytest.mark.parametrize("seed", range(3))
def test_float_readings_are_added_atom_by_atom(seed, monkeypatch):
    """Once an update by atoms has coded the model's relations, readings of
    floats are added atom by atom too, those the model holds and new ones
    (they took the frames: 0.2 s an add of three readings to 1M, against
    0.005 s for integers); a new float takes the frames while a frame
    holds a value column (an update on frames leaves twice's), and one equal
    to a number of another kind (2.75 beside half's 11/4) hands the
    model to the rows.  Each model equals the row executor's after the
    same updates (readings overlap: a retraction takes its points from
    every reading of the atom), through joins on the floats and across
    the types."""
    import random

    import pandas as pd

    from chronolog.engine.columns import evaluator, maintenance

    monkeypatch.setattr(maintenance, "ROWS_AFTER", float("inf"))  # (kept on columns: the paths are what is checked)
    monkeypatch.setattr(maintenance, "ROWS_AFTER_SECONDS", float("inf"))
    monkeypatch.setattr(evaluator, "POINT_ATOMS", 10)
    rng = random.Random(seed)
    held = [0.5, 1.25, -0.0, 3.75, 1e-300, 2.0**60]

    def readings(count, values, start=0):
        return pd.DataFrame({"k": [f"k{rng.randrange(300)}" for _ in range(count)],
                             "v": [float(rng.choice(values)) for _ in range(count)],
                             "start": [start + rng.randrange(90) for _ in range(count)]}).assign(
            end=lambda d: d.start + 1 + rng.randrange(4), end_closed=False)

    program = ('hot(K, V) :- p(K, V).\nwarm(K) :- <->[0,5] hot(K, V).\nmark(K, V) :- p(K, V), lim(V).\n'
               'pair(K, L) :- p(K, V), p(L, V), K != L, V > 3.\nhalf(K, H) :- c(K, N), H = N / 4.\n'
               'same(K, L) :- p(K, V), half(L, V).\ntwice(K, W) :- p(K, V), W = V * 2.\n'
               '@output("twice"). @output("warm"). @output("hot"). @output("mark"). @output("pair"). @output("half"). @output("same").\n')
    table = readings(3000, held)
    given = {"lim": pd.DataFrame({"v": [2, 7], "start": [0, 0], "end": [200, 200]}),
             "c": pd.DataFrame({"k": ["a", "b", "c"], "n": [1, 7, 11], "start": [0, 0, 0], "end": [300, 300, 300]})}
    r = chronolog.Reasoner(program, {"p": table, **given}, engine="columns")
    oracle = chronolog.Reasoner(program, {"p": table, **given}, engine="rows")
    now = table
    steps = [  # (what, the values of the readings added, the path expected)
        ("add", [6.5], {"frames"}),  # (no update by atoms yet: the floats are value columns)
        ("retract", None, {"atoms"}),  # (the first update by atoms: every relation coded)
        ("add", held, {"atoms"}),
        ("add", [7.125, 0.5], {"atoms"}),  # (a new float: every number of the model is coded)
        ("add", held + [9.0], {"frames"}),  # (more than POINT_ATOMS: on frames, which leave value columns)
        ("add", [8.5], {"frames"}),
        ("retract", None, None),
        ("add", [2.75], "rows"),  # (11/4, of another kind)
        ("add", held + [4.5], None),
    ]
    for step, (what, values, path) in enumerate(steps):
        if what == "add":
            change = readings(20 if len(values) > len(held) else 3, values, start=100 + step)
            m, want = r.add({"p": change}), oracle.add({"p": change})
            now = pd.concat([now, change], ignore_index=True)
        else:
            change = now.sample(2, random_state=step)
            m, want = r.retract({"p": change}), oracle.retract({"p": change})
            now = now.drop(index=change.index)
        if path == "rows":
            assert m.stats["maintained_on"].startswith("rows (equal numbers of two types"), step
        elif path:
            assert {s["path"] for s in m.stats["maintenance"]} == path, step
            assert m.stats["maintained_on"] == "columns"
        assert m.to_text() == want.to_text(), step


@pytest.mark.parametrize("changed", ["p", "q"])
@pytest.mark.parametrize("order", ["floats first", "integers first"])
def test_an_update_by_atoms_keeps_each_numbers_kind(changed, order):
    """An update by atoms codes the model's value columns; a float equal to
    an integer the model holds (twice's 1.0 beside q's 1, either coded
    first) keeps its own kind: twice(a,1.0) came back twice(a,1), one
    code for both, where reasoning from scratch and the rows keep 1.0.
    The relation whose values met the other kind is read as rows."""
    import pandas as pd

    program = 'twice(K, W) :- p(K, V), W = V * 2.\nboth(K, V) :- q(K, V).\nhalf(K, H) :- q(K, V), H = V / 2.\n'
    p = pd.DataFrame({"k": ["a", "b", "c"], "v": [0.5, 1.0, 3.0], "start": [0, 0, 5], "end": [10, 10, 10]})
    q = pd.DataFrame({"k": ["x", "y", "z"], "v": [1, 2, 6], "start": [0, 0, 0], "end": [10, 10, 10]})
    given = {"p": p, "q": q} if order == "floats first" else {"q": q, "p": p}
    gone = {changed: given[changed].iloc[1:2]}
    columns = chronolog.Reasoner(program, given, engine="columns")
    rows = chronolog.Reasoner(program, given, engine="rows")
    got, want = columns.retract(gone), rows.retract(gone)
    assert {s["path"] for s in got.stats["maintenance"]} == {"atoms"} and got.stats["maintained_on"] == "columns"
    assert got.to_text() == want.to_text()
    assert {type(t[1]) for t, _ in got.facts("twice")} == {float}
    assert {type(t[1]) for t, _ in got.facts("both")} == {int}
    added = {changed: given[changed].iloc[1:2]}
    assert columns.add(added).to_text() == rows.add(added).to_text()
