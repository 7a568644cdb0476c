"""The memory allocators of a ``chronolog`` command: freed memory goes back early.

A run on a large fact file allocates through three allocators: glibc's
malloc (Python objects, numpy arrays), Arrow's memory pool (the fact
reader's and the printer's kernels; mimalloc by default) and polars'
jemalloc (the columnar executor).  Each keeps the memory freed to it for
its own later use, so a run's peak resident memory was close to the sum of
their three peaks, although the kernels of one phase are gone when the
next starts.  Arrow on the system allocator shares glibc's free memory
with numpy and Python; jemalloc returning freed pages at once (instead of
after 10 s, longer than a whole run) lets the next phase's glibc and Arrow
allocations use them.  Measured on temporal LUBM 1M (bench/README.md,
"Figures behind design choices"): 63-90 MiB (18-23 %) less peak memory for
the whole command at about 0.1 s more system CPU time.

Both are environment variables read when the library first allocates, so
this runs before pyarrow and polars are imported; a value the user set is
kept.  :func:`release` returns glibc's free pages between a command's
phases; :func:`settled` keeps Python's cyclic collector off the objects
of the libraries' modules.
"""

from __future__ import annotations

import contextlib
import os

# jemalloc's options: purge freed pages at once (dirty) and never keep
# them lazily freed (muzzy); the prefix is that of polars' build
JEMALLOC_CONF = "dirty_decay_ms:0,muzzy_decay_ms:0"


_configured = False
YOUNG_OBJECTS = 50_000  # a command's threshold of the collector's youngest generation (:func:`configure`)


def configure() -> None:
    """Arrow on the system allocator, jemalloc purging at once, glibc with
    one arena (from before the first thread: :func:`before_threads`),
    OpenBLAS on one thread (each unless set)."""
    global _configured, _arena_pending
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
    os.environ.setdefault("_RJEM_MALLOC_CONF", JEMALLOC_CONF)
    # numpy's OpenBLAS starts a thread per core when numpy is imported; a
    # command does no linear algebra, and one thread saves 40-50 ms of that
    # import's CPU (0.07-0.09 s instead of 0.12-0.15 s on this 2-core machine)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    _arena_pending = "MALLOC_ARENA_MAX" not in os.environ
    import gc

    # a command makes objects by the tens of thousands that live to its end
    # (a rule, its plan and its frames per predicate): at Python's 700
    # allocations a young collection, 10,000 one-rule predicates paid 426
    # collections, 48 ms of CPU; at YOUNG_OBJECTS 3, 14 ms (a run of one
    # predicate: 191 collections, 12 ms; 1, 1.4 ms)
    gc.set_threshold(YOUNG_OBJECTS, *gc.get_threshold()[1:])
    if _arena_pending:  # (one_arena before the first thread: before_threads)
        import sys

        sys.meta_path.insert(0, _BeforeThreads())
    _configured = True


M_ARENA_MAX = -8  # glibc's mallopt parameter
# the libraries whose import comes before any thread of a command but the
# background import's (chronolog/preload.py): their own threads, and the
# fact reader's workers, which run their kernels
THREADED = ("numpy", "polars", "pyarrow", "pandas", "pyspark")
_arena_pending = False  # (one_arena is the command's to call, and not called yet)


class _BeforeThreads:
    """A finder that calls :func:`one_arena` before the first of the
    THREADED libraries is imported, then leaves; it finds nothing itself.
    (ctypes, which calls mallopt, is 8M instructions of a 10-fact run that
    never starts a thread.)"""

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in THREADED:
            before_threads()
        return None


def before_threads() -> None:
    """:func:`one_arena` once, in a command whose user left the arenas to
    it (:func:`configure`), before its first thread starts."""
    import sys

    global _arena_pending
    for finder in [f for f in sys.meta_path if isinstance(f, _BeforeThreads)]:
        sys.meta_path.remove(finder)
    if _arena_pending:
        _arena_pending = False
        one_arena()


def one_arena() -> None:
    """Every thread allocates from glibc's main arena, before any thread
    starts: the fact reader's workers and Arrow's threads (Arrow is on the
    system allocator) otherwise each get an arena of their own, whose freed
    blocks only that arena reuses.  Temporal LUBM 1M: 3-5 MiB less peak,
    the same CPU time (bench/README.md, "Figures behind design choices").  What
    ``MALLOC_ARENA_MAX=1`` does, set from inside the process; a no-op off
    glibc."""
    try:
        import ctypes

        ctypes.CDLL(None).mallopt(M_ARENA_MAX, 1)
    except (OSError, AttributeError):  # not glibc
        pass


_trim = None


def release() -> None:
    """Return glibc's free pages to the system between the phases of a
    command (after the fact file is read, after each stratum run on columns,
    after each relation printed): numpy's and Arrow's temporaries of one
    phase are freed into glibc's heap, where they stayed resident while
    the next phase allocated mostly through polars' jemalloc.
    ``malloc_trim(0)`` gives back every whole free page, not only the top
    of the heap (1-2 ms a call; on temporal LUBM 1M 5-27 MB after a
    stratum).  Only in a command (after :func:`configure`): a host process
    of the Python API keeps its allocator to itself; a no-op off glibc."""
    global _trim, _pending
    _pending = 0
    if not _configured:
        return
    if _trim is None:
        try:
            import ctypes

            _trim = ctypes.CDLL(None).malloc_trim
        except (OSError, AttributeError):  # not glibc
            _trim = False
    if _trim:
        _trim(0)


RELEASE_ROWS = 1 << 14  # rows handled between two trims at least (release_after)
_pending = 0  # rows handled since the last trim


def release_after(rows: int) -> None:
    """:func:`release` once the phases since the last one handled
    ``RELEASE_ROWS`` rows or more: a phase of a few rows leaves little to
    give back, and a trim's 1-2 ms were most of a small stratum's time
    (200 strata of 1,000 facts, issue 37)."""
    global _pending
    _pending += rows
    if _pending >= RELEASE_ROWS:
        release()


@contextlib.contextmanager
def settled():
    """In a command, import the large libraries (polars, numpy: some 50,000
    objects of their modules) with the cyclic collector paused, then move
    every object alive into its permanent generation (``gc.freeze``), so
    that no collection walks them: one would find nothing to free there
    (modules live until the process ends), yet the full collection and the
    middle ones that met them during and after the imports cost 35-60 ms of
    CPU in a command on temporal LUBM 100k (bench/README.md,
    "Figures behind design choices").  So too for what a command builds
    that lives to its end: the program, its plan, the physical plan and
    the batches of one shape (10,000 one-rule predicates: collections
    walking their objects were a third of the run's CPU).  Objects that die
    later are freed as usual, by their count of references (a cycle among
    them would not be: a command ends with its run).  Only in a command
    (after :func:`configure`): the Python API leaves a host process's
    collector alone."""
    if not _configured:
        yield
        return
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
