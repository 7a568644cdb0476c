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
"Peak memory per input fact"): 63-90 MiB (18-23 %) less peak memory for
the whole command at about 0.1 s more system CPU time.

Both are environment variables read when the library first allocates, so
this runs before pyarrow and polars are imported; a value the user set is
kept.
"""

from __future__ import annotations

import os

# jemalloc's options: purge freed pages at once (dirty) and never keep
# them lazily freed (muzzy); the prefix is that of polars' build
JEMALLOC_CONF = "dirty_decay_ms:0,muzzy_decay_ms:0"


def configure() -> None:
    """Arrow on the system allocator, jemalloc purging at once (unless set)."""
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
    os.environ.setdefault("_RJEM_MALLOC_CONF", JEMALLOC_CONF)
