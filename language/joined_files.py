"""Many small fact files read as one text by the kernel fact reader.

Each reading of a text pays fixed costs (a few dozen kernel calls and
polars queries, ~3 ms, and one part per predicate for the executor to
merge): 200 files of 22 KB read one by one took 2.1x the CPU of the same
facts in one file (issue 37).  Consecutive small files are joined into the
reader's blocks instead, and :class:`FilePlaces` names each line of the
joined text by its own file and line, so an error points where it is.

A file joins when it is at most BLOCK bytes and holds no ``_:``: labelled
nulls are scoped by file (nulls.py), which one text of several files
cannot keep.  Each file ends with a newline in the joined text and loses a
byte order mark, as the line reader reads it (source_text.py).
"""

from __future__ import annotations

import bisect
from pathlib import Path

from . import fact_columns
from .compressed import read_bytes
from .source_text import BOM as _BOM_TEXT

BOM = _BOM_TEXT.encode("utf-8")  # a byte order mark, as the file's bytes start with it
BATCH_BLOCKS = fact_columns.SMALL_FILE  # blocks of files joined at most: what is held in memory at once


class FilePlaces:
    """The files of a joined text, in order, and the joined text's line
    where each one's first line is."""

    __slots__ = ("names", "firsts")

    def __init__(self):
        self.names: list = []
        self.firsts: list = []

    def add(self, name: str, first: int) -> None:
        self.names.append(name)
        self.firsts.append(first)

    def place(self, line: int) -> tuple:
        """``(file, line)`` of the joined text's line ``line`` (from 1)."""
        k = bisect.bisect_right(self.firsts, line) - 1
        return self.names[k], line - self.firsts[k] + 1


def inputs(paths: list):
    """The fact reader's inputs for ``paths``, in order: ``(places, blocks)``
    for a run of consecutive joinable files (at most BATCH_BLOCKS blocks
    together, in blocks of whole files cut as one file of the run's size
    is), ``(name, bytes)`` for a run of one file, or ``(path, None)`` for a
    file read on its own from disk (larger than a block, or with labelled
    nulls)."""
    block = fact_columns.BLOCK
    run: list = []  # (name, bytes) of the run being gathered
    size = 0
    for p in paths:
        data = _small(p, block)
        if data is None:
            if run:
                yield _joined(run)
                run, size = [], 0
            yield p, None
            continue
        if size + len(data) > BATCH_BLOCKS * block and run:
            yield _joined(run)
            run, size = [], 0
        run.append((str(p), data))
        size += len(data)
    if run:
        yield _joined(run)


def _small(path: Path, block: int):
    """The bytes of ``path`` ready to join (without a byte order mark,
    ending with a newline unless empty), or None when it is read alone."""
    if path.stat().st_size > block:
        return None
    data = read_bytes(path, "facts file")  # (decompressed: a file.facts.gz)
    if len(data) > block:
        return None
    if data.startswith(BOM):
        data = data[len(BOM) :]
    if b"_:" in data:
        return None
    if data and data[-1] != 10:
        data += b"\n"
    return data


def _joined(run: list) -> tuple:
    """``(places, blocks)`` of the files ``run`` (name, bytes): blocks of
    whole files, each cut once it holds the block size of a file of the
    run's bytes; ``(name, bytes)`` for one file."""
    if len(run) == 1:
        return run[0]
    places = FilePlaces()
    cut = fact_columns.block_size(sum(len(d) for _, d in run))
    blocks, parts, size, line = [], [], 0, 1
    for name, data in run:
        places.add(name, line)
        line += data.count(b"\n")
        parts.append(data)
        size += len(data)
        if size >= cut:
            blocks.append(b"".join(parts))
            parts, size = [], 0
    if parts:
        blocks.append(b"".join(parts))
    return places, blocks
