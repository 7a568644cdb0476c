"""A sorted key's offsets table (engine/columns/code_offsets.py) against
numpy's ``searchsorted`` of the same key: random sorted code columns,
random probes (codes held, absent, past either end), random splices the
table is carried through; and the relations that use it against the time
points and against reasoning from scratch with every key tabled."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import chronolog
from budget import examples
from chronolog.engine.columns import code_offsets
from chronolog.engine.columns.code_offsets import bounds, carry, table
from chronolog.engine.columns.sorted_given import spliced

ROOT = Path(__file__).resolve().parent.parent


def every_key_tabled():
    """Every key probed gets a table, however short or few its probes."""
    return patch.multiple(code_offsets, MIN_ROWS=0, MIN_PROBES=0, MAX_SPAN_PER_ROW=64)


# codes from 0, or up to the last code there is (2**31 - 1)
LOW, HIGH = 0, 2**31 - 13
codes = st.integers(LOW, LOW + 12) | st.integers(HIGH, HIGH + 12)
pairs = st.sampled_from([LOW, HIGH]).flatmap(lambda base: st.lists(st.tuples(st.integers(base, base + 12), codes), max_size=40))


def key_of(rows, two: bool):
    a = np.array([x for x, _ in rows], dtype=np.int64)
    b = np.array([y for _, y in rows], dtype=np.int64)
    return np.sort(a << 32 | b if two else a)


def searched(key, probe, prefix: bool):
    """The oracle: numpy's binary search of the whole key (``prefix``: of its first codes)."""
    if prefix:
        key = key >> 32
    lo = key.searchsorted(probe, "left")
    return lo, key.searchsorted(probe, "right") - lo


def assert_bounds(key, probe, two: bool, prefix: bool):
    lo, count = bounds(key, probe, two, prefix)
    want_lo, want_count = searched(key, probe, prefix)
    assert count.tolist() == want_count.tolist()
    met = want_count > 0
    assert lo[met].tolist() == want_lo[met].tolist()


def probes_of(rows, data, two: bool, prefix: bool):
    pool = [x for x, _ in rows] if prefix or not two else [x << 32 | y for x, y in rows]
    drawn = data.draw(st.lists(st.sampled_from(pool) if pool else st.nothing(), max_size=30)) if pool else []
    absent = data.draw(st.lists(codes, max_size=5))
    absent = absent if prefix or not two else [a << 32 | data.draw(codes) for a in absent]
    return np.array(sorted(set(drawn + absent)), dtype=np.int64)


@settings(max_examples=examples(300), deadline=None)
@given(pairs, st.data(), st.booleans(), st.booleans())
def test_the_table_finds_what_searchsorted_finds(rows, data, two, prefix):
    prefix = prefix and two
    key = key_of(rows, two)
    with every_key_tabled():
        assert_bounds(key, probes_of(rows, data, two, prefix), two, prefix)


@settings(max_examples=examples(300), deadline=None)
@given(pairs, st.lists(st.tuples(st.lists(st.integers(0, 60), max_size=8), pairs), min_size=1, max_size=4),
       st.data(), st.booleans(), st.booleans())
def test_a_table_carried_through_splices(rows, steps, data, two, prefix):
    """Each splice takes some rows out and puts others in their places: the
    new key's table is the old one's and the changes (no new pass over the
    key), and finds what a search of the new key finds."""
    with every_key_tabled(), patch.object(code_offsets, "MAX_CHANGED_SHARE", float("inf")):
        splices(rows, steps, data, two, prefix and two)


def splices(rows, steps, data, two: bool, prefix: bool):
    key = key_of(rows, two)
    if len(key):
        assert table(key, two) is not None
    held = list(rows)
    for taken, put in steps:
        taken = sorted({i for i in taken if i < len(key)})
        add = key_of(put, two)
        kept = np.delete(key, taken)
        at = kept.searchsorted(add, "left")
        (new,) = spliced([key], np.array(taken, dtype=np.int64), at, [add])
        assert new.tolist() == sorted(kept.tolist() + add.tolist())
        tabled = id(key) in code_offsets._TABLES
        carry(key, new, np.array(taken, dtype=np.int64), add)
        if len(new) and tabled:
            assert code_offsets._TABLES[id(new)][1].offsets is code_offsets._TABLES[id(key)][1].offsets  # (carried, not made again)
        held = [r for i, r in enumerate(sorted(held, key=lambda r: (r[0] << 32 | r[1]) if two else r[0]))
                if i not in set(taken)] + list(put)
        key = new
        assert_bounds(key, probes_of(held, data, two, prefix), two, prefix)


def test_codes_absent_past_either_end_and_an_empty_key():
    with every_key_tabled():
        absent_and_empty()


def absent_and_empty():
    key = np.array([3 << 32 | 1, 3 << 32 | 4, 5 << 32 | 0, 5 << 32 | 0, 9 << 32 | 2], dtype=np.int64)
    for prefix, probe in [(True, [0, 3, 4, 5, 9, 10, 2**31 - 1]), (False, [3 << 32 | 4, 3 << 32 | 2, 5 << 32, 9 << 32 | 2, 9 << 32 | 3, 1, 2**62])]:
        assert_bounds(key, np.array(probe, dtype=np.int64), True, prefix)
    one = np.array([2**31 - 9, 2**31 - 9, 2**31 - 4, 2**31 - 1], dtype=np.int64)  # (the last code the codes reach)
    assert_bounds(one, np.array([0, 2**31 - 9, 2**31 - 5, 2**31 - 4, 2**31 - 1], dtype=np.int64), False, False)
    empty = np.zeros(0, dtype=np.int64)
    assert_bounds(empty, np.array([0, 5], dtype=np.int64), True, True)
    assert_bounds(key, empty, True, False)


def test_short_keys_and_few_probes_are_searched():
    """The defaults: no table for a short key, nor for a long one probed a
    few times (its first build would cost more than it saves)."""
    short = np.arange(10, dtype=np.int64)
    assert table(short, False, probes=10**6) is None
    long = np.repeat(np.arange(10_000, dtype=np.int64), 2)
    assert table(long, False, probes=3) is None
    assert table(long, False) is not None
    spread = np.arange(0, 10**9, 10**5, dtype=np.int64)  # (codes spanning far more than the rows: values)
    assert table(spread, False) is None


@pytest.mark.slow
@pytest.mark.parametrize("name", ["nonrec", "rec"])
def test_lubm_retractions_with_every_key_tabled(tmp_path, name, monkeypatch):
    """Both LUBM programs on generated data, every update on frames with
    every relation probed through a table carried across updates: the
    model after each retraction and addition back equals the rows' from
    scratch."""
    from chronolog.engine.columns import evaluator, maintenance

    monkeypatch.setattr(maintenance, "ROWS_AFTER", float("inf"))
    monkeypatch.setattr(evaluator, "POINT_ATOMS", -1)
    for name_, value in [("MIN_ROWS", 0), ("MIN_PROBES", 0), ("MAX_SPAN_PER_ROW", 10**4)]:
        monkeypatch.setattr(code_offsets, name_, value)
    sys.path.insert(0, str(ROOT / "bench"))
    from lubm_gen import generate

    vada, _ = generate(1500, tmp_path / "lubm", seed=3)
    lines = [s for s in Path(vada).read_text().splitlines() if s.strip()]
    program = ROOT / "bench" / "programs" / f"lubm_{name}.vada"
    r = chronolog.Reasoner(program, "\n".join(lines), engine="columns")
    rng = random.Random(11)
    for _ in range(examples(6)):
        gone = rng.sample(lines, rng.choice([15, 75]))
        left = set(lines) - set(gone)
        assert r.retract(gone).to_text() == chronolog.reason(program, "\n".join(x for x in lines if x in left), engine="rows").to_text()
        assert r.add(gone).to_text() == chronolog.reason(program, "\n".join(lines), engine="rows").to_text()
