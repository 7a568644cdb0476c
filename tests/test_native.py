"""engine/columns/native.py against polars' public API: the same
Series and frames from any int64 array (views, strides, byte orders, empty,
views of a Series' buffer),
polars' own errors for frames of unequal heights or repeated names, the
check for Int64 columns without nulls and the columns read into numpy."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from budget import examples
from chronolog.engine.columns import native
from chronolog.engine.columns.base import frame_of
from chronolog.engine.columns.code_frames import frame

INT64 = st.integers(-(1 << 63), (1 << 63) - 1)


@st.composite
def int64_arrays(draw):
    """An int64 array as the engine's numpy steps leave them: fresh, a
    gather, a strided or reversed view, big-endian, a slice of a 2-D array."""
    a = draw(hnp.arrays(np.int64, st.integers(0, 40), elements=INT64))
    way = draw(st.sampled_from(["as is", "step", "reversed", "big-endian", "column", "of a series", "part of a series"]))
    if way == "of a series":  # to_numpy's view of a (sliced) Series, whose buffer it shares
        return pl.Series(a).slice(draw(st.integers(0, 5))).to_numpy()
    if way == "part of a series":
        view = pl.Series(a).to_numpy()
        return view[draw(st.integers(0, 5)): draw(st.integers(0, 40))][:: draw(st.integers(1, 2))]
    if way == "step":
        return a[:: draw(st.integers(2, 3))]
    if way == "reversed":
        return a[::-1]
    if way == "big-endian":
        return a.astype(">i8")
    if way == "column":
        return np.stack([a, a]).T[:, 1]
    return a


@settings(max_examples=examples(200), deadline=None)
@given(int64_arrays(), st.text(max_size=3))
def test_int64_series_is_the_public_series(a, name):
    got = native.int64_series(name, a)
    want = pl.Series(name, a)
    assert got.dtype == pl.Int64 and got.name == name
    assert got.to_list() == want.to_list() == [int(x) for x in a]


@settings(max_examples=examples(100), deadline=None)
@given(st.integers(0, 30), st.integers(1, 5), st.data())
def test_frame_is_the_public_frame(height, width, data):
    cols = {f"c{k}": data.draw(hnp.arrays(np.int64, height, elements=INT64)) for k in range(width)}
    got = frame(cols)
    want = pl.DataFrame({n: pl.Series(n, a, pl.Int64) for n, a in cols.items()})
    assert got.schema == want.schema and got.equals(want)
    assert frame_of([native.int64_series(n, a) for n, a in cols.items()]).equals(want)


def test_frame_of_other_kinds():
    """frame_of takes Series of any type (value columns beside codes)."""
    cols = [pl.Series("0", [1.5, 2.0]), pl.Series("1", ["a", "b"]), pl.Series("s", [0, 1]), pl.Series("e", [2, 3])]
    assert frame_of(cols).equals(pl.DataFrame(cols))


def test_frame_errors_are_polars_errors():
    with pytest.raises(pl.exceptions.ShapeError):
        native.frame([pl.Series("a", [1, 2]), pl.Series("b", [1])])
    with pytest.raises(pl.exceptions.DuplicateError):
        native.frame([pl.Series("a", [1]), pl.Series("a", [2])])


def test_bindings_found():
    """The installed polars has the bindings (else every frame takes the
    slower public path: a polars upgrade that moved them shows here)."""
    assert native.bindings() is not None


@st.composite
def mixed_frames(draw):
    """Frames of Int64 columns, some with nulls, some of another type."""
    height = draw(st.integers(0, 6))
    cols = {}
    for k in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["codes", "nulls", "floats", "int32"]))
        values = draw(st.lists(st.integers(-5, 5), min_size=height, max_size=height))
        if kind == "nulls" and height:
            values[draw(st.integers(0, height - 1))] = None
        dtype = {"floats": pl.Float64, "int32": pl.Int32}.get(kind, pl.Int64)
        cols[f"c{k}"] = pl.Series(f"c{k}", values, dtype)
    return pl.DataFrame(list(cols.values()))


@settings(max_examples=examples(200), deadline=None)
@given(mixed_frames(), st.data())
def test_int64_without_nulls_is_the_public_check(df, data):
    cols = data.draw(st.none() | st.lists(st.sampled_from(df.columns), min_size=1, unique=True))
    named = df.columns if cols is None else cols
    want = all(df.schema[c] == pl.Int64 and df.get_column(c).null_count() == 0 for c in named)
    assert native.int64_without_nulls(df, cols) == want


@settings(max_examples=examples(100), deadline=None)
@given(mixed_frames())
def test_array_is_the_public_array(df):
    for c in df.columns:
        got, want = native.array(df, c), df.get_column(c).to_numpy()
        assert got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True)


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(mixed_frames(), min_size=1, max_size=3), st.data())
def test_all_codes_leaves_frames_as_the_general_path(frames, data):
    """value_columns.same_kinds's and match_kinds's shortcut (the frames as
    they are) is taken where every column named is Int64 in every frame,
    where their general path leaves the frames as they are."""
    cols = data.draw(st.lists(st.sampled_from(["c0", "c1"]), min_size=1, unique=True))
    frames = [f for f in frames if all(c in f.columns for c in cols)]
    want = all(f.schema[c] == pl.Int64 for f in frames for c in cols)
    assert all(native.int64_columns(f, cols) for f in frames) == want


def test_a_long_chain_of_strata_frees_without_a_crash(tmp_path):
    """A Series made on a numpy view of another keeps that one alive through
    its buffer; relations shifted stratum by stratum (the rule ``p1 :-
    <->[0,1] p0``, 1,000 times) made a chain that polars and numpy freed by
    recursion, past the C stack: a segmentation fault as the process ended
    (at 20,000 strata with the usual 8 MiB stack; here at 500 on 256 KiB).
    ``int64_series`` now makes such a Series of the one viewed."""
    import resource
    import subprocess
    import sys

    n = 1000
    rules = "".join(f"p{i + 1}(X,V) :- <->[0,1] p{i}(X,V).\n" for i in range(n))
    program = tmp_path / "chain.vada"
    for first, last in (("p0(a,1)@[0,1]. p0(b,2.5)@[3,4].", "p1000(a,1)@[0,1001]\np1000(b,2.5)@[3,1004]"),
                        ('@timeGranularity("days"). p0(a,1)@[2024-01-01,2024-01-05].', "p1000(a,1)@[2024-01-01,2026-10-01]")):
        program.write_text(f"{first}\n{rules.replace('[0,1]', '[0,P1D]') if 'days' in first else rules}@output(\"p{n}\").\n")
        run = subprocess.run([sys.executable, "-m", "chronolog", "run", "--engine", "columns", str(program)],
                             capture_output=True, text=True, timeout=300,
                             preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_STACK, (256 << 10, 256 << 10)))
        assert (run.returncode, run.stdout.strip()) == (0, last), run.stderr[-2000:]
