"""``chronolog.preload()``: import ahead what reasoning over large inputs uses.

chronolog imports its heavy libraries on first use, so that a small program
starts in a fraction of a second: polars and numpy (the fact-file reader's
kernels, the columnar executor), pyarrow (Arrow tables, Parquet and CSV
files), lark's parser tables.  A process
that reasons more than once, or a service that wants its first answer fast,
pays for them up front instead (0.4-0.5 s of CPU on a 2-core machine, more
than reasoning over 100,000 facts takes once they are loaded)::

    import chronolog
    chronolog.preload()
"""

from __future__ import annotations

from _thread import allocate_lock  # (threading itself only to start the thread: 4M instructions of a small command)


def preload(background: bool = False):
    """Import pyarrow (without pandas), polars, numpy, the Vadalog reader,
    the fact-file reader and the columnar executor now rather than in the
    first :func:`reason`, run one tiny program on columns (the executor's
    own modules and first calls) and one over a generated file of ~1.5 MB
    (the reader's threads and the allocators' first memory).

    ``background=True``: the imports and what a first call does once per
    process beside them (:func:`_first_uses`: no run of a program), in a
    thread, and return it at once (``join()`` waits for it); a
    :func:`reason` meanwhile waits for a module the thread is importing
    rather than importing it twice.  Worth
    it where the caller's own work between here and the first call leaves
    a core and the interpreter free (reading files, waiting): module code
    holds the interpreter's lock, so Python work on both sides takes turns
    (bench/startup.py measures both)."""
    if background:
        return import_in_background()
    _import_libraries(modules=True)

    from chronolog.api import reason
    from chronolog.language.fact_columns import read_fact_columns

    read_fact_columns("q(a)@[0,1].\n")
    reason("p(X) :- <->[0,1] q(X).  r(X) :- p(X), q(X).", {"q": [(("a",), (0, 1))]}, engine="columns")
    _first_large_run()


# chronolog's own modules a first large run imports (the readers of files
# and tables, the columnar executor and every node of it: Since/Until,
# conditions, negation, aggregates, ...; the columns' printer; the
# bindings, the allocators and the plan's placement (backend_choice: the
# evaluator asks it whether a stratum recurs): every module a first
# call on a CSV file, an Arrow table or a pandas frame imported after these)
MODULES = (
    "chronolog.language.vadalog", "chronolog.language.fact_columns", "chronolog.connectors.csv_columns",
    "chronolog.connectors.table_columns", "chronolog.connectors.text_out", "chronolog.frames", "chronolog.engine.arrow",
    "chronolog.engine.columns.evaluator", "chronolog.connectors.bindings", "chronolog.connectors.paths",
    "chronolog.language.allocators", "chronolog.language.time_grouping", "chronolog.planner.config",
    "chronolog.engine.placement", "chronolog.engine.progress", "chronolog.engine.term_types", "chronolog.progress",
    "chronolog.engine.int_arithmetic", "chronolog.planner.same_shape", "chronolog.planner.backend_choice", "chronolog.language.vadalog_rules",
    "chronolog.language.rule_lines", "chronolog.language.vadalog_terminals", "encodings.utf_8_sig",
) + tuple(f"chronolog.engine.columns.{node}" for node in (
    "given", "since", "linear", "difference", "aggregate", "grouping", "interval_terms", "expressions", "lowering", "output",
    "code_frames", "same_shape", "float_mean"))

# the modules whose records a first large run builds (their methods compile
# at first call: language/records.py; 28-36 methods, ~2 ms of a first call)
RECORD_MODULES = ("chronolog.language.ast", "chronolog.planner", "chronolog.planner.ir", "chronolog.planner.physical",
                  "chronolog.engine.exprs")

# a program of the forms the rule reader reads without lark (its patterns
# compile on a first reading: ~1 ms); no predicate or constant of any user's
WARM_PROGRAM = """@output("p"). @input("q").
p(X, Y) :- <->[0, 1.5] q(X, Y), not [-][0,2] r(X), Y >= 2, Z = Y * 2 + 1.
r(X) :- q(X, Y) <S>[0, 3] s(X), [+][0,1] s(X), <+>[1/2,inf) s(X), X != c.
t(X, N) :- q(X, Y), N = sum(Y), M = count(), M == 2.
"""


WARM_FACTS = 60_000  # a warm-up file of ~1.5 MB: two of the reader's blocks


def _first_large_run() -> None:
    """One run over a generated fact file of two reader blocks: a first
    large run otherwise pays for memory its allocators (glibc's, Arrow's,
    polars') get from the system and for pools that grow on first use;
    measured on temporal LUBM 100k, the first run after preload() took
    10-30 ms of CPU more than the next ones without this, about the same
    with it.  The file is generic (no predicate or constant of any user's
    data) and deleted afterwards."""
    import tempfile
    from pathlib import Path

    from chronolog.api import reason

    with tempfile.TemporaryDirectory(prefix="chronolog-preload-") as tmp:
        facts = Path(tmp) / "warm.vada"
        facts.write_text("".join(f"q(c{i % 997},d{i % 13})@[{i % 50},{i % 50 + 3}).\n" for i in range(WARM_FACTS)))
        reason("p(X) :- <->[0,1] q(X, Y).  r(X,Y) :- p(X), [-][0,1] q(X,Y).", facts=facts, engine="columns")


def _import_libraries(pyarrow: bool = True, modules: bool = False) -> None:
    """numpy, polars and (``pyarrow``) pyarrow; ``modules``: also MODULES
    and the Vadalog parser with every lexer (lark builds one per parser
    state the first time a program reaches it, ~0.3 ms each)."""
    import numpy  # noqa: F401
    import numpy.ma  # noqa: F401  (polars imports it for its first Series of a numpy array: ~10 ms)
    import polars  # noqa: F401

    if pyarrow:
        from chronolog.arrow_import import import_pyarrow

        import_pyarrow()
        import pyarrow.compute  # noqa: F401
        import pyarrow.csv  # noqa: F401
    if modules:
        import importlib

        for name in MODULES:
            importlib.import_module(name)
        from chronolog.language.reader import build_lexers
        from chronolog.language.vadalog import DIALECT

        build_lexers(DIALECT.parser())
        _first_uses()


def _first_uses() -> None:
    """What a first columnar call does once per process beside its imports,
    done now, none of it a run (a thread may do it while a call runs):
    the rule reader's patterns compiled (a reading of WARM_PROGRAM), the
    records' methods (RECORD_MODULES), the check of polars' bindings
    (``engine/columns/native.py``), polars' thread pool started and its
    first lazy filter, join, group-by and sort (a first call's polars was
    2-4 ms slower than a later one's, measured in bench/startup.py)."""
    import importlib

    import numpy as np
    import polars as pl

    from chronolog.api import load_program
    from chronolog.engine.columns import native
    from chronolog.language.records import compile_methods
    from chronolog.language.timeline import parse_number

    load_program(WARM_PROGRAM)
    parse_number("1.5")
    for name in RECORD_MODULES:
        compile_methods(importlib.import_module(name))
    native.bindings()
    a = np.arange(2048, dtype=np.int64)
    left = pl.DataFrame({"k": a % 97, "v": a}).lazy()
    right = pl.DataFrame({"k": np.arange(97, dtype=np.int64), "w": np.arange(97, dtype=np.int64)}).lazy()
    (left.filter(pl.col("v") > 3).join(right, on="k").with_columns(x=pl.col("v") + pl.col("w"))
     .group_by("k").agg(pl.col("x").sum(), pl.len()).sort("k").collect())


_thread = None
_starting = allocate_lock()


def import_in_background(pyarrow: bool = True, modules: bool = True) -> threading.Thread:
    """The column libraries (and chronolog's modules for them, the
    parser's lexers) imported in a daemon thread, started once per process
    (``pyarrow=False``: numpy and polars, what a fact file's reading and the
    columnar executor use).  An import error is left to the call that needs
    the module: it meets the same error where it is reported today."""
    global _thread

    def run():
        try:
            _import_libraries(pyarrow, modules)
        except Exception:  # (reported by the reader that imports it)
            pass

    with _starting:
        if _thread is None:
            import threading

            from chronolog.language import allocators

            allocators.before_threads()
            _thread = threading.Thread(target=run, name="chronolog-preload", daemon=True)
            _thread.start()
    return _thread
