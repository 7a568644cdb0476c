"""What a large run keeps in memory: the same answers with less held.

The term Dictionary builds its value -> code dict only when a lookup needs
it, the fact reader's columns of one block share one array of codes, and
the text printer's chunks give the same bytes at any size."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

from chronolog.engine.columns.encoding import Dictionary
from chronolog.language import allocators
from chronolog.language.fact_columns import _CodedColumn, read_fact_columns


def test_names_appended_without_the_dict_code_as_before():
    d = Dictionary()
    names = [f"n{i}" for i in range(1000)]
    assert d.code_all(names, distinct=True).tolist() == list(range(1000))
    assert d._indexed == 0  # nothing looked up yet: no dict built
    # every later use sees the appended values, as if coded one by one
    assert d.lookup("n7") == 7 and d.lookup("other") is None
    assert d.code("n999") == 999 and d.code("new") == 1000
    assert d.code_all(["n3", "new", "newer", "n3"]).tolist() == [3, 1000, 1001, 3]
    assert d.codes == {v: i for i, v in enumerate(d.values)}
    # the rows' equality: 1 and 1.0 and Fraction(1) are one term
    d2 = Dictionary()
    d2.code_all([1, "a"], distinct=True)
    assert d2.code_all([1.0, Fraction(1), "a", 2]).tolist() == [0, 0, 1, 2]
    # "distinct" values of a first batch that are one term after all get one code
    d3 = Dictionary()
    assert d3.code_all([1, 1.0, Fraction(2)], distinct=True).tolist() == [0, 0, 1]
    assert len(d3.values) == 2 and d3.lookup(2) == 1


@pytest.mark.parametrize("batch", [10, 2_000_000])
def test_a_blocks_columns_share_one_array_of_codes(monkeypatch, batch):
    from chronolog.language import fact_columns

    monkeypatch.setattr(fact_columns, "BLOCK", 256)  # several blocks
    monkeypatch.setattr(fact_columns, "NAMES_BATCH", batch)  # names coded in one batch or several
    text = "".join(f"p(a{i % 7},b{i % 5})@[{i},{i + 1}]\nq(c{i % 3})@{i}\n" for i in range(200))
    d = Dictionary()
    fc = read_fact_columns(io.BytesIO(text.encode()), terms=d)
    arrays = {}
    for parts in fc.parts.values():
        for cols, *_ in parts:
            for c in cols:
                assert isinstance(c, _CodedColumn) and c.codes.dtype == np.int32
                arrays[id(c.codes)] = c.codes
    blocks = len(fc.parts["p"])
    assert blocks > 1 and len(arrays) <= blocks  # one per block, not one per column
    got = sorted((p, tuple(t), iv[:2]) for p in ("p", "q") for t, iv in fc.pred_rows(p))
    want = sorted(
        [("p", (f"a{i % 7}", f"b{i % 5}"), (i, i + 1)) for i in range(200)] + [("q", (f"c{i % 3}",), (i, i)) for i in range(200)]
    )
    assert got == want
    assert d.values.named == len(d.values) == 15  # every name in Arrow, each once


def test_printed_chunks_join_to_the_same_text():
    import polars as pl

    from chronolog.connectors.text_out import frame_lines
    from chronolog.engine.columns.encoding import TimeScale

    d = Dictionary()
    codes = d.code_all([f"x{i}" for i in range(50)], distinct=True)
    rng = np.random.default_rng(1)
    n = 1000
    df = pl.DataFrame({"0": codes[rng.integers(0, 50, n)], "s": np.arange(n) * 4, "e": np.arange(n) * 4 + 1})
    df = df.sort(["0", "s"])
    texts = ["".join("".join(a.to_list()) for a in frame_lines("p", df, 1, d, TimeScale(), chunk=k)) for k in (7, 100, 1 << 20)]
    assert texts[0] == texts[1] == texts[2]
    assert texts[0].count("\n") == n


def test_release_gives_back_free_heap_only_in_a_command(monkeypatch):
    from chronolog.language import allocators

    monkeypatch.setattr(allocators, "_trim", None)
    monkeypatch.setattr(allocators, "_configured", False)
    allocators.release()  # the Python API: a host's allocator is left alone
    assert allocators._trim is None
    monkeypatch.setattr(allocators, "_configured", True)
    allocators.release()  # glibc's malloc_trim here, nothing elsewhere; never an error
    assert allocators._trim is not None


def test_small_phases_trim_once_their_rows_add_up(monkeypatch):
    """A trim costs 1-2 ms: phases of a few rows (200 strata of 1,000
    facts) trim once RELEASE_ROWS rows have passed since the last trim."""
    from chronolog.language import allocators

    trims = []
    monkeypatch.setattr(allocators, "_configured", True)
    monkeypatch.setattr(allocators, "_trim", lambda pad: trims.append(pad))
    monkeypatch.setattr(allocators, "_pending", 0)
    step = allocators.RELEASE_ROWS // 4
    for _ in range(10):
        allocators.release_after(step)
    assert len(trims) == 2  # after the 4th and the 8th
    allocators.release_after(allocators.RELEASE_ROWS)  # a large phase trims at once
    assert len(trims) == 3
    allocators.release()  # (a trim starts the count again)
    allocators.release_after(step)
    assert len(trims) == 4


_SETTLED = """
import gc, sys
from chronolog.language import allocators
if sys.argv[1] == "command":
    allocators.configure()
runs = []
gc.callbacks.append(lambda phase, info: runs.append(info["generation"]) if phase == "start" else None)
with allocators.settled():
    import numpy, polars
print(gc.get_freeze_count() > 10_000, gc.isenabled(), len(runs) > 0)
"""


@pytest.mark.parametrize("caller, expected", [("command", "True True False"), ("api", "False True True")])
def test_a_command_imports_the_libraries_without_collections_and_freezes_their_objects(caller, expected):
    """allocators.settled(): in a command no collection runs while polars
    and numpy are imported, and every object alive then is out of the
    collector's later walks; the Python API imports them with the host's
    collector as it was (running, nothing frozen)."""
    out = subprocess.run([sys.executable, "-c", _SETTLED, caller], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[0] == expected


def test_a_command_collects_its_young_objects_by_the_tens_of_thousands():
    """configure(): a command's youngest generation is collected every
    YOUNG_OBJECTS allocations, not Python's 700 (10,000 one-rule predicates
    paid 426 collections); the Python API leaves the host's thresholds."""
    code = "import gc, sys\nif sys.argv[1] != 'host': from chronolog.language import allocators\nif sys.argv[1] == 'command': allocators.configure()\nprint(gc.get_threshold()[0])"

    def threshold(caller):  # (a fresh interpreter each: a test that ran a command in this process configured it)
        return int(subprocess.run([sys.executable, "-c", code, caller], capture_output=True, text=True, check=True).stdout)

    host = threshold("host")
    assert (threshold("command"), threshold("api")) == (allocators.YOUNG_OBJECTS, host)
    assert allocators.YOUNG_OBJECTS >= 10_000 and host < 10_000


def test_a_files_names_stay_in_one_column_and_read_as_a_list():
    import polars as pl

    d = Dictionary()
    names = pl.Series(["b", "a", "not", "c_1"])
    assert d.code_names(names).tolist() == [0, 1, 2, 3]
    assert d.values.named == 4 and d._indexed == 0
    assert d.code(5) == 4 and d.code("a") == 1 and d.code("z") == 5
    v = d.values
    assert len(v) == 6 and list(v) == ["b", "a", "not", "c_1", 5, "z"] == v.tolist() == v[:]
    assert v[1] == "a" and v[-1] == "z" and v[np.int64(4)] == 5
    assert v.take(np.array([5, 0, 4, 3])) == ["z", "b", 5, "c_1"]
    assert v + [None] == ["b", "a", "not", "c_1", 5, "z", None]
    full = v.tolist()
    for sl in (slice(4, None), slice(1, 3), slice(2, 5), slice(0, 0), slice(3, 1), slice(None, None, 2), slice(-3, None)):
        assert v[sl] == full[sl]
    assert d.lookup("c_1") == 3 and d.lookup("nope") is None
    # names of a second file are coded against the first's
    assert d.code_names(pl.Series(["z", "new", "a"])).tolist() == [5, 6, 1]
    # a later batch of one file's names, while the Dictionary holds names only
    d3 = Dictionary()
    d3.code_names(pl.Series(["a", "b"]))
    assert d3.code_names(pl.Series(["c", "b", "d"])).tolist() == [2, 1, 3]
    assert d3.code_names(pl.Series(["d"])).tolist() == [3]
    assert d3.values.named == 4 and d3.values.tolist() == ["a", "b", "c", "d"]
    assert d3.code("c") == 2 and d3.code("e") == 4 and d3.values.take(np.array([4, 0])) == ["e", "a"]


def test_a_files_names_print_as_format_term_prints_them():
    import polars as pl

    from chronolog.connectors.text_out import frame_lines
    from chronolog.engine.columns.encoding import TimeScale
    from chronolog.language.reader import dialect
    from chronolog.language.text import format_term

    names = ["a", "not", "inf", "b_2", "zz"]
    d1, d2 = Dictionary(), Dictionary()
    d1.code_names(pl.Series(names))  # a file's names, one column
    d2.code_all(names + [7, "x y"], distinct=True)  # Python values
    d1.code_all([7, "x y"], distinct=True)
    df = pl.DataFrame({"0": [0, 1, 2, 3, 4, 5, 6], "1": [6, 5, 4, 3, 2, 1, 0], "s": [0] * 7, "e": [1] * 7})
    names_only = pl.DataFrame({"0": [4, 3, 2, 1, 0], "1": [0, 0, 1, 1, 2], "s": [0, 2, 4, 6, 8], "e": [1, 3, 5, 7, 9]})
    for printer in (format_term, dialect("vadalog").format_term, dialect("meteor").format_term):
        got = "".join("".join(a.to_list()) for a in frame_lines("q", names_only, 2, d1, TimeScale(), term_text=printer))
        want = "".join("".join(a.to_list()) for a in frame_lines("q", names_only, 2, d2, TimeScale(), term_text=printer))
        assert got == want and got.count("\n") == 5
    texts = {}
    for name, printer in (("plain", format_term), ("vadalog", dialect("vadalog").format_term), ("meteor", dialect("meteor").format_term)):
        got = "".join("".join(a.to_list()) for a in frame_lines("p", df, 2, d1, TimeScale(), term_text=printer))
        want = "".join("".join(a.to_list()) for a in frame_lines("p", df, 2, d2, TimeScale(), term_text=printer))
        assert got == want
        texts[name] = got
    assert '"not"' in texts["vadalog"] and '"x y"' in texts["vadalog"] and "p(b_2,b_2)@[0,0]" in texts["vadalog"]


def _run_in_a_fresh_process(code: str) -> str:
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_a_command_loads_no_libcrypto(tmp_path):
    """hashlib (and with it OpenSSL's libcrypto, 3-4 MB resident) is a
    stand-in in a command: polars and lark import it, nothing of the run
    uses it; a later use still gets the real module."""
    prog = tmp_path / "p.vada"
    prog.write_text("q(X) :- <->[0,1] p(X).\np(a)@[1,2].\n")
    out = _run_in_a_fresh_process(
        "import sys\n"
        "from chronolog.cli import main\n"
        f"try:\n    main(['run', {str(prog)!r}])\nexcept SystemExit:\n    pass\n"
        "import polars, lark\n"  # (both import hashlib)
        "from chronolog import lazy_modules\n"
        "print('_hashlib' in sys.modules, lazy_modules.loaded('hashlib'))\n"
        "import hashlib\n"
        "print(hashlib.sha256(b'abc').hexdigest()[:12], lazy_modules.loaded('hashlib'))\n"
        "from hashlib import md5\n"
        "print(md5(b'abc').hexdigest()[:12])\n"
    )
    assert out.split("\n")[1:4] == ["False False", "ba7816bf8f01 True", "900150983cd2"], out


def test_a_command_keeps_glibc_to_one_arena_unless_told_otherwise(monkeypatch):
    """Set once, before the command's first thread (allocators.before_threads:
    the background import's thread, or the first import of a library that
    starts threads), not at start: ctypes is not imported by a run that
    starts none."""
    from chronolog.language import allocators

    calls = []
    monkeypatch.setattr(allocators, "one_arena", lambda: calls.append(1))
    monkeypatch.setattr(allocators, "_configured", False)
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    for var in ("ARROW_DEFAULT_MEMORY_POOL", "_RJEM_MALLOC_CONF", "OPENBLAS_NUM_THREADS"):
        monkeypatch.setenv(var, "x")  # (configure would otherwise set them for the rest of the tests)
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")  # the user's setting is kept
    allocators.configure()
    allocators.before_threads()
    assert calls == []
    monkeypatch.delenv("MALLOC_ARENA_MAX")
    allocators.configure()
    assert calls == []
    allocators.before_threads()
    allocators.before_threads()
    assert calls == [1]


def test_one_arena_is_set_when_the_first_threaded_library_is_imported():
    code = (
        "import sys; from chronolog.language import allocators; allocators.configure(); "
        "print('ctypes' in sys.modules, allocators._arena_pending); import numpy; "
        "print('ctypes' in sys.modules, allocators._arena_pending, any(isinstance(f, allocators._BeforeThreads) for f in sys.meta_path))"
    )
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:2] == ["False True", "True False False"]


def test_a_command_imports_numpy_with_one_blas_thread_unless_told_otherwise():
    """A command does no linear algebra: OpenBLAS's thread per core only
    costs numpy's import time; a user's own setting is kept."""
    code = (
        "import os, sys; from chronolog.language import allocators; allocators.configure(); import numpy; "
        "print(os.environ['OPENBLAS_NUM_THREADS'], len(os.listdir('/proc/self/task')))"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["1", "1"]  # one thread: OpenBLAS started none
    env["OPENBLAS_NUM_THREADS"] = "2"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split()[0] == "2"


def test_reading_returns_free_pages_between_blocks_with_the_same_columns(monkeypatch):
    """The reader gives glibc's free pages back every RELEASE_EVERY blocks
    (in a command); the columns are those of a reading that never does."""
    from chronolog.language import allocators
    from chronolog.language import fact_columns

    monkeypatch.setattr(fact_columns, "BLOCK", 256)
    text = "".join(f"p(a{i % 7},b{i % 5})@[{i},{i + 1}]\nq(c{i % 3})@{i}\n" for i in range(300)).encode()

    def rows(calls):
        monkeypatch.setattr(allocators, "release", lambda: calls.append(1))
        fc = read_fact_columns(io.BytesIO(text), terms=Dictionary())
        return sorted((p, tuple(t), iv) for p in ("p", "q") for t, iv in fc.pred_rows(p))

    many, none = [], []
    want = rows(many)
    monkeypatch.setattr(fact_columns, "RELEASE_EVERY", 10**9)
    assert rows(none) == want and len(many) >= 4 and none == []
