"""engine/columns/code_frames.py beyond what test_small_frames.py draws: keys
of three columns or past the codes' range (not packed into one int64), the
cross join, a temporal move against the polars path."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from chronolog.engine.columns import code_frames
from chronolog.engine.columns.coalesce import coalesce
from chronolog.engine.columns.encoding import Fallback

BIG = 1 << 40  # past the codes' 2**31: keys of two such columns are not packed


@st.composite
def frames(draw, names, values=st.sampled_from([0, 1, BIG])):
    rows = draw(st.lists(st.tuples(*[values] * len(names), st.integers(0, 12), st.integers(1, 6)), max_size=14))
    data = {n: [r[k] for r in rows] for k, n in enumerate(names)}
    data["s"] = [r[-2] for r in rows]
    data["e"] = [r[-2] + r[-1] for r in rows]
    return pl.DataFrame(data, schema={c: pl.Int64 for c in data})


def rows(df) -> list:
    return sorted(df.iter_rows())


def points(df, cols) -> set:
    return {(*(r[c] for c in cols), t) for r in df.iter_rows(named=True) for t in range(r["s"], r["e"])}


@settings(max_examples=examples(200), deadline=None)
@given(st.data(), st.sampled_from([(["a", "b", "c"], ["a", "b", "c"]), (["a", "b"], ["b", "c"]), (["a"], ["b"])]),
       st.sampled_from(["numpy", "polars"]), st.booleans())
def test_join(data, names, way, floats):
    """The pairs by a sort (``numpy``) or by a polars join (``polars``: any
    size, value columns: here a float column on the right)."""
    df, right = data.draw(frames(names[0])), data.draw(frames(names[1]))
    shared = [c for c in names[0] if c in names[1]]
    if floats and way == "polars":
        right = right.with_columns((pl.col(names[1][-1]) / 3).alias("f"))
        names = (names[0], [*names[1], "f"])
    extra = [c for c in names[1] if c not in shared]
    got = code_frames.join(df, right, shared, way if shared else "numpy")
    expected = []
    for a in df.iter_rows(named=True):
        for b in right.iter_rows(named=True):
            s, e = max(a["s"], b["s"]), min(a["e"], b["e"])
            if all(a[c] == b[c] for c in shared) and s < e:
                expected.append((*(a[c] for c in names[0]), s, e, *(b[c] for c in extra)))
    assert got.columns == [*names[0], "s", "e", *extra]
    assert rows(got) == sorted(expected)


@settings(max_examples=examples(200), deadline=None)
@given(frames(["a", "b", "c"]), frames(["a", "b", "c"]), st.sampled_from(["numpy", "polars"]))
def test_subtract_distinct_anti_member(df, other, way):
    keys = ["a", "b", "c"]
    df = df.unique()  # (a relation's rows are a set)
    holes = coalesce(other, keys).rename({"s": "hs", "e": "he"})
    got = code_frames.subtract(df, holes, keys, way)
    gone = points(other, keys)
    assert points(got, keys) == {p for p in points(df, keys) if p not in gone}
    if way == "polars":  # (a value column rides along with its row's pieces)
        floated = code_frames.subtract(df.with_columns((pl.col("c") / 3).alias("f")), holes, keys, way)
        assert sorted(floated.iter_rows()) == sorted((*r[:5], r[2] / 3) for r in got.iter_rows())
    # a relation's rows of one atom are apart (coalesced), and so are their
    # pieces (rows that overlap, as drawn above, may each leave the same piece)
    relation = coalesce(df, keys)
    pieces = code_frames.subtract(relation, holes, keys, way)
    assert points(pieces, keys) == {p for p in points(relation, keys) if p not in gone}
    assert sorted(pieces.iter_rows()) == sorted(set(pieces.iter_rows()))
    assert all(a[4] <= b[3] for a, b in zip(rows(pieces), rows(pieces)[1:]) if a[:3] == b[:3])
    assert rows(code_frames.distinct(df, keys)) == sorted({r[:3] for r in df.iter_rows()})
    assert rows(code_frames.distinct(df, ["c", "a"], ["x", "y"])) == sorted({(r[2], r[0]) for r in df.iter_rows()})
    there = set(other.iter_rows())
    assert rows(code_frames.anti(df, other)) == sorted(r for r in df.iter_rows() if r not in there)
    only_df, only_other = code_frames.differences(df, other)
    assert rows(only_df) == sorted(r for r in df.iter_rows() if r not in there)
    assert rows(only_other) == sorted(r for r in other.iter_rows() if r not in set(df.iter_rows()))
    atoms = set(other.select(keys).iter_rows())
    assert code_frames.member(df, other, keys).tolist() == [r[:3] in atoms for r in df.iter_rows()]


@settings(max_examples=examples(200), deadline=None)
@given(frames(["a"], st.integers(0, 3)), st.integers(-8, 8), st.integers(0, 8), st.booleans(), st.booleans(), st.booleans())
def test_moved_as_the_polars_path(df, lo, width, c1, c2, is_box):
    """temporal.apply's numpy path against its polars one (one tree, the lowering shared with Spark)."""
    from chronolog.engine.interval_shift import box, shift

    named = dict(zip("se", (box if is_box else shift)((lo, lo + width, c1, c2))))
    assert rows(code_frames.ends(df, named, moved=True, way="numpy")) == rows(code_frames.ends(df, named, moved=True, way="polars"))


@pytest.mark.parametrize("way", ["numpy", "polars"])
def test_moved_refuses_a_time_beyond_the_codes(way):
    from chronolog.engine.columns.encoding import LIMIT
    from chronolog.engine.interval_shift import shift

    df = pl.DataFrame({"a": [1], "s": [LIMIT - 4], "e": [LIMIT - 2]})
    with pytest.raises(Fallback):
        code_frames.ends(df, dict(zip("se", shift((10, 10, True, True)))), moved=True, way=way)


@st.composite
def intervals(draw):
    """A non-empty interval of the timeline (integer ends, open or closed, ±inf)."""
    from chronolog.language.timeline import NEG_INF, POS_INF

    lo = draw(st.one_of(st.just(NEG_INF), st.integers(0, 12)))
    hi = draw(st.one_of(st.just(POS_INF), st.integers(0, 12)))
    lc, hc = draw(st.booleans()) and lo != NEG_INF, draw(st.booleans()) and hi != POS_INF
    if lo != NEG_INF and hi != POS_INF and (lo > hi or lo == hi and not (lc and hc)):
        lo, hi, lc, hc = hi, hi, True, True
    return lo, hi, lc, hc


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), intervals()), max_size=8), st.lists(st.tuples(st.integers(0, 2), intervals()), max_size=8),
       st.integers(0, 5), st.integers(0, 6), st.booleans(), st.booleans(), st.sampled_from(["S", "U"]), st.booleans(),
       st.sampled_from(["numpy", "polars"]))
def test_since_as_the_rows(b_rows, a_rows, lo, width, c1, c2, op, keyed, way):
    """since.SinceNode's closure of A and its numpy step against the rows' SinceJoinNode formula
    (``((Iᶜ ∩ J) ⊕ ϱ) ∩ Iᶜ``, engine/rows/since.py) on timeline intervals:
    each pair of a B interval ``J`` and an A interval ``I`` sharing ``x``
    (or every pair, no shared variable), ``0`` not in the window."""
    from chronolog.engine import interval_shift
    from chronolog.engine.columns.encoding import TimeScale
    from chronolog.engine.interval_shift import since_offset
    from chronolog.language.timeline import closure, intersect, shift

    if lo == 0:
        c1 = False  # (the planner splits 0 ∈ ϱ off)
    w = (lo, lo + width, c1, c2 or width == 0 and c1)
    if w[0] == w[1] and not (w[2] and w[3]):
        return
    grid = TimeScale(1)
    b = pl.DataFrame([(x, *grid.codes(iv)) for x, iv in b_rows], schema={"v:x": pl.Int64, "s": pl.Int64, "e": pl.Int64}, orient="row")
    left = [(x, *grid.codes(closure(iv))) for x, iv in a_rows]
    a = pl.DataFrame([(x, cs, ce, 7) for x, cs, ce in left] if keyed else [(x, cs, ce) for x, cs, ce in left],
                     schema={"v:x" if keyed else "v:y": pl.Int64, "cs": pl.Int64, "ce": pl.Int64, **({"v:z": pl.Int64} if keyed else {})},
                     orient="row")
    opened = pl.DataFrame([(x, *grid.codes(iv)) for x, iv in a_rows], schema={"v:x": pl.Int64, "s": pl.Int64, "e": pl.Int64}, orient="row")
    closing = dict(zip(("cs", "ce"), interval_shift.closure()))
    assert code_frames.ends(opened, closing, ("s", "e"), way=way).rows() == [(x, cs, ce) for x, cs, ce in left]  # (A's closure, as since.py takes it)
    offset = since_offset(op, w)
    expected = []
    for x, j in b_rows:
        for y, i in a_rows:
            if keyed and x != y:
                continue
            k = intersect(closure(i), j)
            t = k and shift(k, grid.window(offset))
            got = t and intersect(t, closure(i))
            if got:
                expected.append((x, *grid.codes(got), *((7,) if keyed else (y,))))
    got = code_frames.since(b, a, ["v:x"] if keyed else [], grid.window(offset), way)
    assert (rows(got) if got is not None else []) == sorted(expected)
    if got is not None:
        assert got.columns == ["v:x", "s", "e", "v:z" if keyed else "v:y"]


@settings(max_examples=examples(300), deadline=None)
@given(frames(["a", "b"], st.sampled_from([0, 1, 2, 5, 1 << 20])), frames(["a", "b"], st.sampled_from([0, 1, 2, 5, 1 << 20])),
       st.sampled_from([["a"], ["b"], ["a", "b"], ["b", "a"]]))
def test_matches_and_kept_rows(df, keys, cols):
    """The semi-join's numpy membership (any size of ``df``: a presence
    table of codes) and the rows it keeps, against Python sets."""
    got = code_frames.matches(df, keys, cols)
    wanted = {tuple(r[c] for c in cols) for r in keys.iter_rows(named=True)}
    expected = [tuple(r[c] for c in cols) in wanted for r in df.iter_rows(named=True)]
    assert got.tolist() == expected
    assert rows(code_frames.kept_rows(df, got)) == sorted(r for r, hit in zip(df.iter_rows(), expected) if hit)


WIDE = st.sampled_from([0, 3, -(2**40), 2**62, int(np.array([-1.25]).view(np.int64)[0]), int(np.array([1e300]).view(np.int64)[0])])


@settings(max_examples=examples(300), deadline=None)
@given(frames(["a", "b"], st.sampled_from([0, 1, 2, 5])), frames(["a", "b"], st.sampled_from([0, 1, 2, 5])), st.data())
def test_matches_a_second_column_of_wide_values(df, keys, data):
    """A second column of int64 values past the codes' range (a float's
    bits: value_columns.float_keys; negative, past 2**32) is ranked among
    the keys' values, not left to a polars join: the membership against
    Python sets."""
    df = df.with_columns(pl.Series("b", [data.draw(WIDE) for _ in range(df.height)], dtype=pl.Int64))
    keys = keys.with_columns(pl.Series("b", [data.draw(WIDE) for _ in range(keys.height)], dtype=pl.Int64))
    got = code_frames.matches(df, keys, ["a", "b"])
    wanted = {(r["a"], r["b"]) for r in keys.iter_rows(named=True)}
    assert got is not None and got.tolist() == [(r["a"], r["b"]) in wanted for r in df.iter_rows(named=True)]


def test_matches_leaves_codes_past_its_table_to_polars():
    df = pl.DataFrame({"a": [1, code_frames.TABLE_CODES], "s": [0, 0], "e": [1, 1]})
    assert code_frames.matches(df, df, ["a"]) is None


@settings(max_examples=examples(20), deadline=None)
@given(st.integers(1, 600), st.integers(4097, 15_000), st.integers(1, 3000), st.integers(0, 2**32))
def test_sorted_path_past_code_rows_as_duckdb(small, large, key_range, seed):
    """A join or a difference of rows past CODE_ROWS rows (a delta of a few
    hundred rows on a relation of thousands: an update's re-derivation)
    runs in numpy up to SORT_ROWS, with DuckDB's answer."""
    import random

    import duckdb

    rnd = random.Random(seed)

    def frame(n, names):
        cols = {c: [rnd.randrange(key_range) for _ in range(n)] for c in names}
        cols["s"] = [rnd.randrange(50) for _ in range(n)]
        cols["e"] = [s + 1 + rnd.randrange(9) for s in cols["s"]]
        return pl.DataFrame(cols, schema={c: pl.Int64 for c in cols})

    df, right = frame(small, ["v:X", "v:Y"]), frame(large, ["v:Y", "v:Z"])
    for a, b in ((df, right), (right, df.rename({"v:X": "v:W"}))):  # (the small side on either side)
        assert code_frames.sorted_path(a, b) == "numpy"
        got = code_frames.join(a, b, ["v:Y"])
        x, y = (c for c in [*a.columns, *b.columns] if c.startswith("v:") and c != "v:Y")
        expected = duckdb.sql(
            f'select "{x}", greatest(a.s, b.s), least(a.e, b.e), "{y}" from a join b on a."v:Y" = b."v:Y" '
            "where greatest(a.s, b.s) < least(a.e, b.e)").fetchall()
        assert sorted(got.select(x, "s", "e", y).iter_rows()) == sorted(expected)
    mixed = pl.concat([df.rename({"v:X": "v:Z"}).select(right.columns).head(small // 2), right]).unique()
    rel = right.unique()
    assert code_frames.sorted_path(mixed, rel) == "numpy"
    expected = duckdb.sql("select * from mixed except select * from rel").fetchall()
    assert rows(code_frames.anti(mixed, rel)) == sorted(expected)


def _same_rows_same_ids(ids, cols):
    """Whether ``ids`` number the rows of ``cols`` densely from 0, equal
    rows alike and different rows apart (Python tuples the oracle)."""
    tuples = list(zip(*(c.tolist() for c in cols)))
    by_row, by_id = {}, {}
    for t, i in zip(tuples, ids.tolist()):
        if by_row.setdefault(t, i) != i or by_id.setdefault(i, t) != t:
            return False
    return sorted(by_id) == list(range(len(by_id)))


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(1, 5), st.lists(st.lists(st.sampled_from([0, 1, 2, -1, BIG, -BIG, (1 << 63) - 1]), min_size=5, max_size=5), max_size=30),
       st.booleans())
def test_row_ids_number_equal_rows_alike(width, table, collide):
    """code_frames.row_ids of one to five int64 columns (three and more by
    a hash of the row, checked; a collision, forced here, by np.lexsort):
    equal rows one id, different rows different ids, dense from 0."""
    import numpy as np

    cols = [np.array([r[k] for r in table], dtype=np.int64) for k in range(width)]
    if not table:
        return
    hashed = code_frames._hashed_order
    if collide:
        code_frames._hashed_order = lambda cols: (None, None)
    try:
        ids = code_frames.row_ids(cols)
    finally:
        code_frames._hashed_order = hashed
    assert _same_rows_same_ids(ids, cols)


@settings(max_examples=examples(100), deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["disjoint", "one width", "any", "far disjoint", "far any"]),
       st.sampled_from([[], ["a"], ["a", "b", "c"]]),
       st.sampled_from(["numpy", "polars"]))
def test_many_intervals_of_a_key_pair_by_their_times(seed, right_kind, shared, way):
    """A join and a difference where a key's rows meet only a few of its
    many intervals (past the pairs :func:`code_frames._meeting_pairs`
    leaves to a pairing by keys): the same answer as every pair checked,
    whether ``right``'s ends run in the order of its starts (disjoint, of
    one width: from the first ending after a row's start) or not (any: from
    the first starting less than the longest interval before it), with
    times too far apart to subtract (far: ranked, or paired by keys), the
    pairs counted in numpy or in polars."""
    import numpy as np

    rng = np.random.default_rng(seed)
    far, right_kind = right_kind.startswith("far"), right_kind.split()[-1]
    n, m = rng.integers(100, 160, size=2)
    def keyed(k):
        return {c: rng.integers(0, 2, size=k) for c in ["a", "b", "c"]}
    df = pl.DataFrame({**keyed(n), "s": (s := rng.integers(0, 400, size=n)), "e": s + rng.integers(1, 30, size=n)})
    if right_kind == "disjoint":  # (maximal intervals of one key: apart)
        cuts = np.sort(rng.choice(np.arange(1000), size=2 * m, replace=False))
        rs, re = cuts[0::2], cuts[1::2]
    else:
        rs = rng.integers(0, 400, size=m)
        re = rs + (7 if right_kind == "one width" else rng.integers(1, 60, size=m))
    right = pl.DataFrame({**keyed(m), "s": rs, "e": re}).with_columns(pl.all().cast(pl.Int64))
    df = df.with_columns(pl.all().cast(pl.Int64))
    if far:  # (the last interval of each side far on: the keys times the span pass 2**62)
        last = pl.int_range(pl.len()) == pl.len() - 1
        right = right.with_columns(pl.when(last).then(pl.col(c) + (1 << 62)).otherwise(pl.col(c)).alias(c) for c in ("s", "e"))
        df = df.with_columns(pl.when(last).then(pl.col(c) + (1 << 62)).otherwise(pl.col(c)).alias(c) for c in ("s", "e"))
    if right_kind == "disjoint":  # (the same key on all of them)
        right = right.with_columns(pl.lit(0, pl.Int64).alias(c) for c in ["a", "b", "c"])
    other = right.select(*shared, "s", "e") if shared else right.select("s", "e", pl.col("a").alias("r"))
    got = code_frames.join(df, other, shared, way)
    expected = []
    for r in df.iter_rows(named=True):
        for q in right.iter_rows(named=True):
            s, e = max(r["s"], q["s"]), min(r["e"], q["e"])
            if all(r[c] == q[c] for c in shared) and s < e:
                expected.append((r["a"], r["b"], r["c"], s, e, *([] if shared else [q["a"]])))
    assert rows(got) == sorted(expected)
    if right_kind == "disjoint":
        keys = shared or []
        holes = right.select(*keys, "s", "e").rename({"s": "hs", "e": "he"})
        left = code_frames.subtract(df, holes, keys, way)
        gone = {(*(r[c] for c in keys), t) for r in right.iter_rows(named=True) for t in range(r["s"], r["e"])}
        want = {(*(r[c] for c in ["a", "b", "c"]), t) for r in df.iter_rows(named=True) for t in range(r["s"], r["e"]) if (*(r[c] for c in keys), t) not in gone}
        assert points(left, ["a", "b", "c"]) == want
