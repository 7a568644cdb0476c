"""Whole numbers read as exact value columns (fact files, bound CSV files,
Arrow and Parquet integer columns): the columns give the rows' answers,
byte for byte, where they recurse over them (a GrowingRelation keyed by
their numerators), scan them with constants and repeated variables (their
pairs compared, not coded), join them with coded numbers and print them."""

from __future__ import annotations

import random

import pytest

from chronolog import api
from chronolog.api import reason


@pytest.fixture(autouse=True)
def small_files(monkeypatch):
    from chronolog.connectors import csv_columns

    monkeypatch.setattr(api, "KERNEL_BYTES", 0)  # the kernel readers for small files too
    monkeypatch.setattr(csv_columns, "KERNEL_BYTES", 0)


RECURSIVE = """
    path(X, Y) :- e(X, Y).
    path(X, Z) :- path(X, Y), e(Y, Z).
    loop(X) :- path(X, X).
    seven(Y) :- path(7, Y).
    half(X) :- path(X, 1/2).
    hop(X, Y, 1) :- e(X, Y).
    hop(X, Z, K) :- hop(X, Y, J), e(Y, Z), J < 4, K = J + 1.
    @output("path"). @output("loop"). @output("seven"). @output("half"). @output("hop").
"""
# (fractions beside the whole numbers: the columns that meet them coded, or the merge on whole frames)
HALVES = """
    mid(X, H) :- e(X, Y), H = Y / 2.
    reach(X, H) :- mid(X, H).
    reach(X, H) :- reach(X, G), mid(G, H).
    @output("reach").
"""


def _edges(rnd, n: int, nodes: int) -> list:
    out = []
    for _ in range(n):
        s, d = rnd.randint(0, 20), rnd.randint(0, 8)
        out.append((rnd.randrange(-2, nodes), rnd.randrange(-2, nodes), s, s + d))
    return out


def _counted_growth(monkeypatch) -> dict:
    """How many recursive merges a GrowingRelation of whole numbers took."""
    from chronolog.engine.columns import growing

    taken = {"whole": 0}
    merge = growing.GrowingRelation.merge

    def counted(self, parts):
        got = merge(self, parts)
        taken["whole"] += got is not None and bool(self.whole)
        return got

    monkeypatch.setattr(growing.GrowingRelation, "merge", counted)
    return taken


@pytest.mark.parametrize("seed", range(8))
def test_recursion_over_whole_numbers_of_a_fact_file(tmp_path, monkeypatch, seed):
    rnd = random.Random(seed)
    taken = _counted_growth(monkeypatch)
    edges = _edges(rnd, rnd.choice([10, 60, 200]), rnd.choice([5, 30]))
    (tmp_path / "e.facts").write_text("".join(f"e({a},{b})@[{s},{t}]\n" for a, b, s, t in edges))
    for program in (RECURSIVE, HALVES):
        (tmp_path / "p.vada").write_text(program)
        cols = reason(tmp_path / "p.vada", [tmp_path / "e.facts"], engine="columns").to_text()
        rows = reason(tmp_path / "p.vada", [tmp_path / "e.facts"], engine="rows").to_text()
        assert cols == rows
        if program is RECURSIVE:
            assert taken["whole"] > 0, "no recursion grew a relation of whole numbers"


@pytest.mark.parametrize("seed", range(6))
def test_recursion_over_integer_columns_of_csv_and_parquet(tmp_path, monkeypatch, seed):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from chronolog.connectors import csv_columns

    monkeypatch.setattr(csv_columns, "FEW_CELLS", 0)  # (a small file's cells through the kernels too)
    rnd = random.Random(seed)
    taken = _counted_growth(monkeypatch)
    edges = _edges(rnd, rnd.choice([10, 60, 400]), rnd.choice([5, 30, 300]))
    kind = rnd.choice(["csv", "parquet"])
    if kind == "csv":
        (tmp_path / "e.csv").write_text("x,y,start,end\n" + "".join(f"{a},{b},{s},{t}\n" for a, b, s, t in edges))
    else:
        cols = list(zip(*edges))
        typ = rnd.choice([pa.int64(), pa.int32(), pa.int16()])
        pq.write_table(pa.table({"x": pa.array(cols[0], typ), "y": pa.array(cols[1], typ),
                                 "start": pa.array(cols[2], pa.int64()), "end": pa.array(cols[3], pa.int64())}),
                       tmp_path / "e.parquet")
    bind = f'@bind("e", "{kind}", "{tmp_path}", "e.{kind}").'
    if kind == "csv":
        bind += ' @timeMapping("e", 2, 3).'
    for program in (RECURSIVE, HALVES):
        (tmp_path / "p.vada").write_text(bind + program)
        got = reason(tmp_path / "p.vada", engine="columns").to_text()
        want = reason(tmp_path / "p.vada", engine="rows").to_text()
        assert got == want
        if program is RECURSIVE:
            assert taken["whole"] > 0, "no recursion grew a relation of whole numbers"


@pytest.mark.parametrize("seed", range(6))
def test_integer_csv_columns_meet_fact_file_numbers_as_the_rows(tmp_path, monkeypatch, seed):
    """A bound CSV's integers (exact pairs, or coded where the file has few
    distinct cells) joined with a fact file's numbers (exact, or coded where
    a fraction or a float is among them), scanned with constants of several
    kinds, negated and summed."""
    from chronolog.connectors import csv_columns

    rnd = random.Random(seed)
    if rnd.random() < 0.5:
        monkeypatch.setattr(csv_columns, "FEW_CELLS", 0)
    ints = [rnd.randrange(-5, 40) for _ in range(rnd.choice([5, 50, 300]))] + [2**62, -(2**62)]
    (tmp_path / "q.csv").write_text("v,w,start,end\n" + "".join(f"{v},{rnd.randrange(9)},{i % 7},{i % 7 + 3}\n" for i, v in enumerate(ints)))
    odd = ["1/3", "2.5", "7.0"] if rnd.random() < 0.5 else []
    lines = [f"p(n{rnd.randrange(5)},{rnd.choice([str(rnd.randrange(-5, 40)), *odd])})@[{rnd.randrange(9)},{rnd.randrange(9, 14)}]"
             for _ in range(rnd.choice([5, 80]))]
    (tmp_path / "p.facts").write_text("\n".join(lines) + "\n")
    (tmp_path / "p.vada").write_text(f"""
        @bind("q", "csv", "{tmp_path}", "q.csv"). @timeMapping("q", 2, 3).
        j(N, W) :- p(N, V), q(V, W).
        k(V) :- q(V, 7).
        c(V) :- q(V, W), W = V.
        s(W, S) :- q(V, W), S = sum(V).
        n(V) :- q(V, W), not p(n1, V).
        f(N) :- p(N, 7).
        @output("j"). @output("k"). @output("c"). @output("s"). @output("n"). @output("f").
    """)
    got = reason(tmp_path / "p.vada", [tmp_path / "p.facts"], engine="columns").to_text()
    want = reason(tmp_path / "p.vada", [tmp_path / "p.facts"], engine="rows").to_text()
    assert got == want


@pytest.mark.parametrize("seed", range(4))
def test_string_functions_of_exact_numbers_run_in_the_kernels(tmp_path, monkeypatch, seed):
    """concat prints an exact column's numbers (whole ones and decimals) as
    format_term does, substr takes whole numbers as positions, in Polars'
    kernels (the engine's own functions never called), as the rows."""
    from chronolog.language import builtins

    calls = []
    for name in ("substr", "concat"):
        lo, hi, fn = builtins.FUNCTIONS[name]
        monkeypatch.setitem(builtins.FUNCTIONS, name, (lo, hi, lambda *xs, fn=fn, name=name: calls.append(name) or fn(*xs)))
    rnd = random.Random(seed)
    decimal = rnd.random() < 0.5
    (tmp_path / "p.facts").write_text("".join(
        f"p(n{i % 7},{rnd.randrange(-3, 9)}{'.' + str(rnd.randrange(1, 99)) if decimal and i % 3 else ''})@[{i % 5},{i % 5 + 2}]\n"
        for i in range(rnd.choice([20, 200]))))
    (tmp_path / "w.facts").write_text("".join(f"w(n{i % 7},{rnd.randrange(0, 6)})@[{i % 5},{i % 5 + 3}]\n" for i in range(60)))
    (tmp_path / "p.vada").write_text("""
        q(N, Y) :- p(N, V), Y = concat(N, "-", V).
        r(N, Y) :- w(N, K), Y = substr("abcdefgh", K).
        @output("q"). @output("r").
    """)
    got = reason(tmp_path / "p.vada", [tmp_path / "p.facts", tmp_path / "w.facts"], engine="columns")
    assert not calls, calls[:5]
    want = reason(tmp_path / "p.vada", [tmp_path / "p.facts", tmp_path / "w.facts"], engine="rows")
    assert got.to_text() == want.to_text()


def _folded_as_the_rows(tmp_path, monkeypatch, seed, program: str, lo: int, hi: int, refused: str) -> None:
    """``program`` over a fact file of whole numbers in ``[lo, hi)``: the
    rows' answers on columns, ``aggregate.<refused>`` never called."""
    from chronolog.engine.columns import aggregate

    def refuse(*args):
        raise AssertionError(f"aggregate.{refused}: a Python value a row or segment")

    monkeypatch.setattr(aggregate, refused, refuse)
    rnd = random.Random(seed)
    (tmp_path / "p.facts").write_text("".join(
        f"p(n{i % 9},{rnd.randrange(lo, hi)})@[{i % 6},{i % 6 + rnd.randrange(1, 4)}]\n" for i in range(rnd.choice([30, 300]))))
    (tmp_path / "p.vada").write_text(program)
    got = reason(tmp_path / "p.vada", [tmp_path / "p.facts"], engine="columns").to_text()
    assert got == reason(tmp_path / "p.vada", [tmp_path / "p.facts"], engine="rows").to_text()


@pytest.mark.parametrize("seed", range(4))
def test_products_of_whole_numbers_take_the_int_kernel(tmp_path, monkeypatch, seed):
    """prod over an exact column of whole numbers is numpy's product per
    segment (no float among exact pairs: value_columns.float_rows), not the
    rows' fold per segment."""
    _folded_as_the_rows(tmp_path, monkeypatch, seed, "m(N, P) :- p(N, V), P = prod(V).\nt(N, P) :- p(N, V), P = prod(V * 2 - 1).\n",
                        -4, 12, "_python_folds")


@pytest.mark.parametrize("seed", range(4))
def test_sets_of_whole_numbers_are_ranked_by_numpy(tmp_path, monkeypatch, seed):
    """munion over an exact column of whole numbers ranks them by numpy, no
    Python int a row (aggregate._sets_of_one_kind)."""
    _folded_as_the_rows(tmp_path, monkeypatch, seed, "m(N, S) :- p(N, V), S = munion(V).\nk(S) :- p(N, V), S = munion(V).\n",
                        -40, 40, "_sets_of_one_kind")
