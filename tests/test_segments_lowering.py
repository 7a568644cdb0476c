"""An aggregation's time segments, written once (engine/segments.py) with
the frames of engine/exprs.py (unpivot, group, select, where): the
columns' numpy translation and the Spark rounds' SQL give each group's
segments as computed from scratch (cut at every start and end, the
bindings covering each piece counted and their values summed), and
aggregations over multi-variable groups and far-apart codes (the group's
lexsort path) give the row executor's answers on the columns."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from chronolog.engine import exprs
from chronolog.engine.segments import points_of, segments

from test_columns_kernels import both, intervals  # noqa: F401

# group codes: small (one int64 key) or far apart (past 62 bits with the points: a lexsort)
CODES = st.one_of(st.integers(0, 3), st.sampled_from([-(2**62), 2**62]))
ROWS = st.lists(st.tuples(CODES, st.integers(0, 1), st.integers(-10, 30), st.integers(1, 8), st.integers(-50, 50))
                .map(lambda t: (t[0], t[1], t[2], t[2] + t[3], t[4])), max_size=30)


def from_scratch(rows, n_keys):
    """Per group (the first ``n_keys`` columns), the pieces between its
    consecutive starts and ends that some row covers: ``(group..., s, e,
    count, sum)`` sorted."""
    out = []
    groups = {}
    for r in rows:
        groups.setdefault(r[:n_keys], []).append(r)
    for g, rs in groups.items():
        cuts = sorted({p for r in rs for p in r[n_keys:n_keys + 2]})
        for a, b in zip(cuts, cuts[1:]):
            on = [r for r in rs if r[n_keys] <= a and b <= r[n_keys + 1]]
            if on:
                out.append((*g, a, b, len(on), sum(r[n_keys + 2] for r in on)))
    return sorted(out)


def arrays(rows, names):
    return {c: np.asarray([r[i] for r in rows], dtype=np.int64) for i, c in enumerate(names)}


@given(ROWS, st.integers(0, 2))
@settings(max_examples=examples(300), deadline=None)
def test_segments_in_numpy_are_from_scratch(rows, n_keys):
    """The columns' translation, with each row's first and after-last
    segment from the group node's numbering of its events."""
    keys = ["g", "h"][:n_keys]
    rows = [(*r[:n_keys], *r[2:]) for r in rows]
    frame, memo = segments(keys, ["v"]), {}
    got = exprs.frame_numpy(frame, arrays(rows, [*keys, "s", "e", "v"]), memo)
    segs = sorted(zip(*(got[c].tolist() for c in [*keys, "s", "e", "n", "v"])))
    assert segs == from_scratch(rows, n_keys)
    # each row's events numbered by the group: its segments run from its start's point to its end's
    points = memo[id(points_of(frame))]
    number, p = points["inverse"], points["cols"]["p"]
    for i, r in enumerate(rows):
        assert (p[number[i]], p[number[len(rows) + i]]) == (r[-3], r[-2])


@given(st.lists(st.tuples(CODES, st.integers(-(2**61), 2**61), st.integers(-5, 5)), max_size=30))
@settings(max_examples=examples(200), deadline=None)
def test_group_in_numpy_is_a_group_by(rows):
    """The group node alone (its single-key sort, and the lexsort where the
    key would not fit): distinct keys in order, the sums per key."""
    frame, memo = exprs.group(exprs.SOURCE, ["g", "p"], {"t": exprs.col("v")}), {}
    got = exprs.frame_numpy(frame, arrays(rows, ["g", "p", "v"]), memo)
    want = {}
    for g, p, v in rows:
        want[(g, p)] = want.get((g, p), 0) + v
    assert list(zip(got["g"].tolist(), got["p"].tolist(), got["t"].tolist())) == [(*k, t) for k, t in sorted(want.items())]
    inverse = memo[id(frame)]["inverse"]
    assert [(got["g"][i], got["p"][i]) for i in inverse] == [(g, p) for g, p, _ in rows]


@pytest.mark.spark
@given(st.lists(st.tuples(ROWS, st.integers(0, 2)), min_size=1, max_size=4))
@settings(max_examples=examples(15), deadline=None)
def test_segments_in_spark_sql_are_numpys(spark, cases):
    """The rounds' translation (exprs.frame_sql, as aggregate.py sends it)
    of the same frame against the numpy translation and from scratch."""
    from chronolog.connectors.spark_rounds.sql import Stmt, int64

    for rows, n_keys in cases:
        keys = ["c0", "c1"][:n_keys]
        rows = [(*r[:n_keys], *r[2:]) for r in rows] or [(*[0] * n_keys, 0, 1, 0)]
        names = [*keys, "s", "e", "v"]
        spark.createDataFrame(rows, ", ".join(f"{c} bigint" for c in names)).createOrReplaceTempView("t")
        q = Stmt()
        src = q.add("SELECT * FROM t", names)
        step = exprs.frame_sql(segments(keys, ["v"]), q, src, int64, None)
        got = spark.sql(f"SELECT {', '.join([*keys, 's', 'e', 'n', 'v'])} FROM {step}").collect()
        assert sorted(tuple(r) for r in got) == from_scratch(rows, n_keys)
        numpy = exprs.frame_numpy(segments(keys, ["v"]), arrays(rows, names), {})
        assert sorted(tuple(r) for r in got) == sorted(zip(*(numpy[c].tolist() for c in [*keys, "s", "e", "n", "v"])))


AGGREGATES = """
s(K, L, X) :- <->[0,2] p(K, L, D, V), X = sum(V).
m(K, L, X) :- <->[0,1] p(K, L, D, V), X = max(V), N = count(), N >= 2.
a(L, X) :- p(K, L, D, V), X = avg(V).
"""


@given(st.lists(st.tuples(st.sampled_from(["x", "y"]), st.sampled_from([0, 2**62, -(2**62)]), st.integers(0, 3),
                          st.integers(-5, 5), intervals()), max_size=10))
@settings(max_examples=examples(40), deadline=None)
def test_aggregates_over_two_group_variables_match_the_rows(rows):
    """Groups of two variables (numbered densely before the sort) and of
    numbers far apart, on the columns against the row executor."""
    both(AGGREGATES, {"p": [((k, g, d, v), iv) for k, g, d, v, iv in rows]})


def test_unpivot_in_numpy_gives_each_row_once_per_case():
    frame = exprs.unpivot(exprs.SOURCE, ["g"], [{"p": exprs.col("s"), "d": exprs.lit(1)}, {"p": exprs.col("e"), "d": exprs.lit(-1)}])
    got = exprs.frame_numpy(frame, arrays([(7, 0, 2), (8, 1, 3)], ["g", "s", "e"]), {})
    assert {c: v.tolist() for c, v in got.items()} == {"g": [7, 8, 7, 8], "p": [0, 1, 2, 3], "d": [1, 1, -1, -1]}
