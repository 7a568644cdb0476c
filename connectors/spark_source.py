"""The ``chronolog`` Spark data source: canonical fact text files.

    spark.read.format("chronolog").option("predicate", "p").load("facts/")
    df.write.format("chronolog").option("predicate", "q").mode("append").save("out/")

Reading: every file under the path (or the file itself), one fact per line
(``p(a,1.5)@[0,10)``), the facts of ``predicate`` (optional when the files
hold one predicate) in the Arrow layout, typed exactly as the embedded
``Model.to_arrow`` would.  One Spark partition per file.

Writing: each task writes a part file into a hidden staging directory beside
the target; the driver's commit renames the directory into place only when
every task succeeded (``overwrite`` swaps old and new in one step on Linux),
and abort removes it, so a failed job leaves no output.  Readers skip hidden
and underscore names at any depth, so a staging directory left by a killed
driver is never read as data.  Spark lets Python data sources write only in ``append`` and
``overwrite`` modes: ``append`` here creates the output and refuses an
existing one (nothing is replaced without ``overwrite``); ``overwrite``
swaps the new directory in.  Paths are on a file system every executor and
the driver share (local, NFS).  All methods run in Spark's Python workers,
so the configuration travels as string options.
"""

from __future__ import annotations

import os
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path

from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition, WriterCommitMessage

try:
    from pyspark.sql.datasource import DataSourceArrowWriter as _Writer
except ImportError:  # pyspark 4.0: rows instead of Arrow batches
    from pyspark.sql.datasource import DataSourceWriter as _Writer


def _files(path: str) -> list:
    p = Path(path)
    if p.is_dir():
        # a hidden or underscore name anywhere below the path is not data:
        # a staging directory of a write in progress or killed, _SUCCESS, .crc
        return sorted(
            str(f) for f in p.rglob("*")
            if f.is_file() and not any(part.startswith((".", "_")) for part in f.relative_to(p).parts)
        )
    if p.exists():
        return [str(p)]
    from chronolog.language.errors import DataError

    raise DataError(f"{path} does not exist")


def _facts(files, pred):
    """``(pred, rows)`` of ``files``: ``pred`` may be None when they hold one predicate."""
    from chronolog.language.errors import DataError
    from chronolog.language.facts import read_fact_rows

    all_rows = {}
    for f in files:
        with open(f, encoding="utf-8") as fh:
            for p, rows in read_fact_rows(fh, f).items():
                all_rows.setdefault(p, []).extend(rows)
    if pred is None:
        if len(all_rows) > 1:
            raise DataError(
                f"the files hold several predicates ({', '.join(sorted(all_rows))})",
                hint='choose one with .option("predicate", "p")',
            )
        pred = next(iter(all_rows), "?")
    return pred, all_rows.get(pred, [])


class ChronologDataSource(DataSource):
    """``format("chronolog")``: options ``path``, ``predicate``, and
    ``columns`` (comma-separated term column names; default c0, c1, ...)."""

    @classmethod
    def name(cls):
        return "chronolog"

    def _names(self, arity):
        cols = self.options.get("columns")
        return [c.strip() for c in cols.split(",")] if cols else [f"c{i}" for i in range(arity)]

    def schema(self):
        from . import distributed as dist

        pred, rows = _facts(_files(self.options["path"]), self.options.get("predicate"))
        arity = len(rows[0][0]) if rows else 0
        return dist.spark_schema(dist.schema_for(self._names(arity), dist.kinds_of(rows, arity)))

    def reader(self, schema):
        return _Reader(self.options, schema)

    def writer(self, schema, overwrite):
        from chronolog.language.errors import DataError

        path = self.options.get("path")
        if not path:
            raise DataError('the chronolog data source needs a path: df.write.format("chronolog").save(path)')
        if Path(path).exists() and not overwrite:
            raise DataError(f"{path} exists already; not overwriting it", hint='use .mode("overwrite") to replace it')
        return _FactWriter(path, self.options.get("predicate", "p"), overwrite, uuid.uuid4().hex)


class _Reader(DataSourceReader):
    def __init__(self, options, schema):
        self.path = options["path"]
        self.pred = options.get("predicate")
        self.schema = schema

    def partitions(self):
        return [InputPartition(f) for f in _files(self.path)]

    def read(self, partition):
        import pyarrow as pa
        from pyspark.sql.pandas.types import to_arrow_schema

        from . import distributed as dist

        target = to_arrow_schema(self.schema)
        _, rows = _facts([partition.value], self.pred)
        names = [f.name for f in target][:-4]
        kinds = dist.kinds_of(rows, len(names))
        if not rows:
            return
        arrays = []
        cols = [[t[i] for t, _ in rows] for i in range(len(names))]
        table = dist.typed_table(rows, names, kinds)
        for i, f in enumerate(target):
            col = table.column(i)
            if col.type != f.type:
                if pa.types.is_timestamp(f.type):
                    from chronolog.connectors.timestamps import to_timestamps

                    col = to_timestamps(pa.table({f.name: col}), (f.name,)).column(0)
                elif pa.types.is_string(f.type) and i < len(names):
                    col = dist.typed_array(cols[i], ["mixed"] if kinds[i][0] != "str" else kinds[i], f.type)
                col = col.cast(f.type)  # widening only; a value that does not fit raises
            arrays.append(col)
        yield from pa.Table.from_arrays(arrays, schema=target).to_batches()


def _exchange(a: str, b: str) -> bool:
    """Swap two paths in one step (Linux ``renameat2(RENAME_EXCHANGE)``), so
    a reader sees the old output or the new one, never none; False where
    the system cannot (another OS, a file system without it).  Written here
    because Python's os module has no renameat2."""
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    AT_FDCWD, RENAME_EXCHANGE = -100, 2
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    return fn(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) == 0


@dataclass
class _Written(WriterCommitMessage):
    file: str


class _FactWriter(_Writer):
    def __init__(self, path, pred, overwrite, job):
        self.path = str(Path(path).absolute())
        self.pred = pred
        self.overwrite = overwrite
        self.staging = str(Path(self.path).parent / f".{Path(self.path).name}.chronolog-{job}")

    def write(self, iterator):
        import pyarrow as pa
        from pyspark import TaskContext

        from chronolog.connectors.arrow import table_to_rows
        from chronolog.language.text import format_fact

        ctx = TaskContext.get()
        part = ctx.partitionId() if ctx else 0
        attempt = ctx.attemptNumber() if ctx else 0
        name = f"part-{part:05d}-{attempt}.facts"
        fh = None  # opened with the first batch: a task failing upstream leaves nothing
        try:
            for batch in iterator:
                if not isinstance(batch, (pa.RecordBatch, pa.Table)):  # pyspark 4.0 rows
                    batch = pa.Table.from_pylist([batch.asDict()])
                if fh is None:
                    os.makedirs(self.staging, exist_ok=True)
                    fh = open(os.path.join(self.staging, name), "w", encoding="utf-8")
                for terms, iv in table_to_rows(batch, self.pred, timestamps="seconds"):
                    fh.write(format_fact(self.pred, terms, iv))
                    fh.write("\n")
                fh.flush()  # batch by batch, as a long task's output reaches the disk
        finally:
            if fh is not None:
                fh.close()
        return _Written(name if fh is not None else None)

    def commit(self, messages):
        keep = {m.file for m in messages if m is not None and m.file}
        os.makedirs(self.staging, exist_ok=True)  # a job with no tasks
        for f in os.listdir(self.staging):
            if f not in keep:  # a failed attempt's leftovers
                os.unlink(os.path.join(self.staging, f))
        if os.path.exists(self.path):
            if not self.overwrite:
                shutil.rmtree(self.staging, ignore_errors=True)
                raise FileExistsError(f"{self.path} exists already; not overwriting it")
            if _exchange(self.staging, self.path):  # the old output now sits in the staging path
                old = self.staging
            else:  # no atomic exchange here: two renames, a short window without the target
                old = self.staging + ".old"
                os.rename(self.path, old)
                os.rename(self.staging, self.path)
            if os.path.isdir(old):
                shutil.rmtree(old)
            else:
                os.unlink(old)
        else:
            os.rename(self.staging, self.path)

    def abort(self, messages):
        shutil.rmtree(self.staging, ignore_errors=True)
