"""engine/columns/code_frames.py: the interval operations on small frames
of codes in numpy give what the polars paths give (as multisets of rows)
and what reasoning point by point gives (the oracle: sets of integer time
points)."""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from chronolog.engine.columns import code_frames, difference, maintenance
from chronolog.engine.columns.coalesce import coalesce

KEYS = ["0", "1"]


@st.composite
def frames(draw, extra: bool = False):
    """Rows of two small code columns and an interval ``[s, e)`` on a small
    grid (empty intervals left out, as in a relation); ``extra``: a third
    column the operations carry along."""
    rows = draw(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 1), st.integers(0, 12), st.integers(1, 6),
                                   st.integers(0, 3)), max_size=12))
    data = {"0": [r[0] for r in rows], "1": [r[1] for r in rows]}
    if extra:
        data["x"] = [r[4] for r in rows]
    data["s"] = [r[2] for r in rows]
    data["e"] = [r[2] + r[3] for r in rows]
    return pl.DataFrame(data, schema={c: pl.Int64 for c in data})


def points(df, cols) -> set:
    """``{(*row's cols, t)}``: each integer point of each row's interval."""
    return {(*(r[c] for c in cols), t) for r in df.iter_rows(named=True) for t in range(r["s"], r["e"])}


def rows(df) -> list:
    return sorted(df.iter_rows())


def on_path(fn, *args, code_rows=-1):
    """``fn(*args)`` with the paths' thresholds set (by default: the polars path)."""
    kept = code_frames.CODE_ROWS, code_frames.SORT_ROWS
    code_frames.CODE_ROWS = code_frames.SORT_ROWS = code_rows
    try:
        return fn(*args)
    finally:
        code_frames.CODE_ROWS, code_frames.SORT_ROWS = kept


def polars_path(fn, *args):
    """``fn(*args)`` on the callers' polars path (numpy turned off)."""
    return on_path(fn, *args)


def numpy_path(fn, *args):
    """``fn(*args)`` on the callers' numpy path (code_frames.py)."""
    return on_path(fn, *args, code_rows=10**9)


@settings(max_examples=examples(300), deadline=None)
@given(frames(extra=True), frames())
def test_subtract(df, holes):
    holes = coalesce(holes, KEYS).rename({"s": "hs", "e": "he"})
    assert code_frames.path(df, holes) == "numpy"
    got = difference.subtract(df, holes, KEYS)
    assert rows(got) == rows(polars_path(difference.subtract, df, holes, KEYS))
    assert rows(got) == rows(numpy_path(difference.subtract, df, holes, KEYS))
    assert points(got, [*KEYS, "x"]) == {
        p for p in points(df, [*KEYS, "x"]) if (p[0], p[1], p[3]) not in points(holes.rename({"hs": "s", "he": "e"}), KEYS)}


@settings(max_examples=examples(300), deadline=None)
@given(frames(), frames())
def test_overlap_and_overlapping(df, other):
    got = maintenance.overlap(df, other, KEYS)
    assert rows(got) == rows(polars_path(maintenance.overlap, df, other, KEYS))
    assert points(got, KEYS) == points(df, KEYS) & points(other, KEYS)
    meeting = maintenance.overlapping(df, other, KEYS)
    assert rows(meeting) == rows(polars_path(maintenance.overlapping, df, other, KEYS))
    assert rows(numpy_path(maintenance.overlapping, df, other, KEYS)) == rows(meeting)
    hit = points(other, KEYS)
    assert set(meeting.iter_rows()) == {r for r in df.iter_rows() if any((r[0], r[1], t) in hit for t in range(r[2], r[3]))}


@settings(max_examples=examples(300), deadline=None)
@given(frames(), frames())
def test_distinct_and_anti(df, other):
    assert rows(maintenance.atoms_of(df, KEYS)) == sorted({r[:2] for r in df.iter_rows()})
    renamed = code_frames.distinct(df, ["1"], ["0"])
    assert renamed.columns == ["0"] and rows(renamed) == sorted({(r[1],) for r in df.iter_rows()})
    assert rows(code_frames.distinct(df, KEYS)) == sorted({r[:2] for r in df.iter_rows()})
    there = set(other.iter_rows())
    assert rows(code_frames.anti(df, other)) == sorted(r for r in df.iter_rows() if r not in there)
    only_df, only_other = code_frames.differences(df, other)
    assert rows(only_df) == sorted(r for r in df.iter_rows() if r not in there)
    assert rows(only_other) == sorted(r for r in other.iter_rows() if r not in set(df.iter_rows()))
    keys = set(other.select(KEYS).iter_rows())
    assert code_frames.member(df, other, KEYS).tolist() == [r[:2] in keys for r in df.iter_rows()]


def test_frames_of_values_or_many_rows_take_polars():
    codes = pl.DataFrame({"0": [1], "s": [0], "e": [2]})
    assert code_frames.path(codes) == "numpy"
    assert code_frames.path(codes.with_columns(pl.col("0").cast(pl.Float64))) == "polars"
    many = pl.DataFrame({"0": range(code_frames.CODE_ROWS + 1), "s": 0, "e": 1})
    assert code_frames.path(codes, many) == "polars"
    assert code_frames.path(pl.DataFrame({"0": [1, None], "s": [0, 0], "e": [2, 2]})) == "polars"


def join_node(df, right):
    """``df`` joined with ``right`` by join.JoinNode (its right side given)."""
    from chronolog.engine.columns.join import JoinNode

    node = JoinNode(None, None)
    node._table = right
    return node.process(df)


@st.composite
def bindings(draw, names):
    """A frame of variable columns ``names`` and an interval."""
    rows = draw(st.lists(st.tuples(*[st.integers(0, 2)] * len(names), st.integers(0, 12), st.integers(1, 6)), max_size=10))
    data = {n: [r[k] for r in rows] for k, n in enumerate(names)}
    data["s"] = [r[-2] for r in rows]
    data["e"] = [r[-2] + r[-1] for r in rows]
    return pl.DataFrame(data, schema={c: pl.Int64 for c in data})


@settings(max_examples=examples(300), deadline=None)
@given(st.data(), st.sampled_from([(["v:X", "v:Y"], ["v:Y", "v:Z"]), (["v:X"], ["v:X"]), (["v:X"], ["v:Y"]),
                                   (["v:X", "v:Y"], ["v:X", "v:Y"])]))
def test_join(data, names):
    df, right = data.draw(bindings(names[0])), data.draw(bindings(names[1]))
    got = join_node(df, right)
    assert rows(got) == rows(polars_path(join_node, df, right))
    assert rows(got) == rows(numpy_path(join_node, df, right))
    shared = [c for c in names[0] if c in names[1]]
    extra = [c for c in names[1] if c not in shared]
    expected = []
    for a in df.iter_rows(named=True):
        for b in right.iter_rows(named=True):
            s, e = max(a["s"], b["s"]), min(a["e"], b["e"])
            if all(a[c] == b[c] for c in shared) and s < e:
                expected.append((*(a[c] for c in names[0]), s, e, *(b[c] for c in extra)))
    assert got.columns == [*names[0], "s", "e", *extra]
    assert rows(got) == sorted(expected)
