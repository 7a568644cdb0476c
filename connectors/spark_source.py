"""The ``chronolog`` Spark data source: canonical fact text files.

    spark.read.format("chronolog").option("predicate", "p").load("facts/")
    df.write.format("chronolog").option("predicate", "q").mode("append").save("out/")

Reading: every file under the path (or the file itself), one fact per line
(``p(a,1.5)@[0,10)``), the facts of ``predicate`` (optional when the files
hold one predicate) in the Arrow layout, typed exactly as the embedded
``Model.to_arrow`` would.  One Spark partition per file.  The schema comes
from ``spark.read.schema(...)`` when given, else from a bounded sample: the
first ``samplingFacts`` facts (default 10,000) of the files in order, so the
driver never parses the whole input.  Each task checks its file against the
schema; a value the schema cannot hold exactly (a longer decimal, text in a
number column) is an error naming the file and line, never a rounded or
re-typed value; in a ``double`` column a number is the float that prints as
it (what a float column wrote reads back: docs/language.md, "Floats").

Writing: each task writes a part file into a hidden staging directory beside
the target; the driver's commit renames the directory into place only when
every task succeeded (``overwrite`` swaps old and new in one step on Linux),
and abort removes it, so a failed job leaves no output.  Readers skip hidden
and underscore names at any depth, so a staging directory left by a killed
driver is never read as data; its name carries the driver's process
(connectors/leftovers.py), so the next write of the same path removes it,
and a task whose driver is gone stops writing into it.  Spark lets Python data sources write only in ``append`` and
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
from typing import Optional

from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition, WriterCommitMessage

from chronolog.language.compressed import open_text
from chronolog.engine.term_types import KIND_KEY  # (a term text column's mark: it reads back as the terms it spells)

from .leftovers import running, sweep

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


def _fact_rows(lines, source: str, pred, first_line: int = 1):
    """The facts of fact text on the numeric timeline the data source reads
    (its time columns are numbers: what it writes of a date or timestamp
    column is seconds since 1970).  A dated time point is refused as the
    data source's, not with the hint to declare a program's calendar; a
    fact of ``pred`` (of any predicate when None) that repeats forever
    (``every``), which no row holds, is refused."""
    from chronolog.language.dates import NUMERIC_TIMELINE
    from chronolog.language.errors import DataError
    from chronolog.language.facts import read_fact_rows

    try:
        rows = read_fact_rows(lines, source, first_line=first_line)
        for p, lst in rows.repeating.items():  # (kept apart from the rows, it would vanish)
            if lst and (pred is None or p == pred):
                raise DataError(
                    f"the fact of {p} repeats forever (every ...), which the chronolog data source does not take",
                    lst[0][-1],
                    hint="give its instances as ordinary facts (chronolog.reason reads it)",
                )
        return rows
    except DataError as e:
        if f"is a date, but {NUMERIC_TIMELINE}" not in e.message:
            raise
        raise DataError(
            e.message.replace(NUMERIC_TIMELINE, "the chronolog data source reads numeric time points"),
            e.pos,
            hint="write the time points as numbers (the data source writes a date or timestamp column as seconds "
            "since 1970-01-01 UTC); chronolog.reason and chronolog run read dated fact text",
            source_line=e.source_line,
        ) from None


def _facts(files, pred):
    """``(pred, rows)`` of ``files``: ``pred`` may be None when they hold one predicate."""
    all_rows = {}
    for f in files:
        with open_text(f, "facts file") as fh:
            for p, rows in _fact_rows(fh, f, pred).items():
                all_rows.setdefault(p, []).extend(rows)
    return _chosen(all_rows, pred)


def _chosen(found: dict, pred):
    """``(pred, rows)``: ``pred``'s rows, or the only predicate's when none is named."""
    from chronolog.language.errors import DataError

    if pred is None:
        if len(found) > 1:
            raise DataError(
                f"the files hold several predicates ({', '.join(sorted(found))})",
                hint='choose one with .option("predicate", "p")',
            )
        pred = next(iter(found), "?")
    return pred, found.get(pred, [])


class ChronologDataSource(DataSource):
    """``format("chronolog")``: options ``path``, ``predicate``, and
    ``columns`` (comma-separated term column names; default c0, c1, ...)."""

    @classmethod
    def name(cls):
        return "chronolog"

    def _names(self, arity):
        cols = self.options.get("columns")
        if not cols:
            return [f"c{i}" for i in range(arity)]
        names = [c.strip() for c in cols.split(",")]
        _check_names(names, arity, f"the columns option {cols!r}")
        return names

    def schema(self):
        from . import distributed as dist

        _check_options(self.options, "load")
        limit = _sampling(self.options)
        pred, rows = _sample(_files(_path(self.options, "load")), self.options.get("predicate"), limit)
        arity = len(rows[0][0]) if rows else 0
        kinds = dist.kinds_of(rows, arity)
        schema = dist.spark_schema(dist.schema_for(self._names(arity), kinds))
        # a text column of mixed values holds canonical term text: the tasks
        # must render every file's values that way, so the kind travels along
        for f, k in zip(schema.fields, kinds):
            if dist.text_marker(k):
                f.metadata = {KIND_KEY: dist.text_marker(k)}
        return schema

    def reader(self, schema):
        _check_options(self.options, "load")
        _check_layout(schema)
        return _Reader(self.options, schema)

    def writer(self, schema, overwrite):
        from chronolog.language.errors import DataError

        _check_options(self.options, "save")
        path = _path(self.options, "save")
        pred = self.options.get("predicate", "p")
        _check_predicate(pred)
        if Path(path).exists() and not overwrite:
            raise DataError(f"{path} exists already; not overwriting it", hint='use .mode("overwrite") to replace it')
        from .distributed import text_columns

        return _FactWriter(path, pred, overwrite, uuid.uuid4().hex, text_columns(schema))


TIME_COLUMNS = ("start", "end", "start_closed", "end_closed")

# the options each way takes (Spark hands them over lowercased: options are
# case-insensitive); a misspelt one is refused, not silently ignored
OPTIONS = {"load": ("path", "predicate", "columns", "samplingFacts"), "save": ("path", "predicate")}


def _check_options(options, verb: str) -> None:
    import difflib

    from chronolog.language.errors import DataError

    known = OPTIONS[verb]
    by_lower = {k.lower(): k for k in known}
    for key in options:
        if key.lower() in by_lower:
            continue
        near = difflib.get_close_matches(key.lower(), list(by_lower), n=1)
        said = f'did you mean .option("{by_lower[near[0]]}", ...)? ' if near else ""
        way = "a read" if verb == "load" else "a write"
        raise DataError(
            f"the chronolog data source has no option {key!r} for {way}",
            hint=said + "its options are " + ", ".join(k for k in known if k != "path") + " (and the path)",
        )


def _path(options, verb: str) -> str:
    from chronolog.language.errors import DataError

    path = options.get("path")
    if not path:
        way = "spark.read.format(\"chronolog\").load(path)" if verb == "load" else "df.write.format(\"chronolog\").save(path)"
        raise DataError(f"the chronolog data source needs a path: {way}")
    return path


def _check_names(names, arity, what):
    """The argument columns' names: one per argument, each once, none
    empty and none a time column's (Spark's Arrow reader crashes on a
    repeated name; a count off by one shifts every value a column over)."""
    from chronolog.language.errors import DataError, counted

    hint = f'name each of the {arity} arguments once, e.g. .option("columns", "{",".join(f"c{i}" for i in range(arity))}")'
    if len(names) != arity:
        raise DataError(f"{what} names {counted(len(names), 'column')}, but the facts have {counted(arity, 'argument')}", hint=hint)
    for n in names:
        if not n:
            raise DataError(f"{what} has an empty column name", hint=hint)
        if n in TIME_COLUMNS:
            raise DataError(f"{what} names an argument {n}, the name of a time column ({', '.join(TIME_COLUMNS)})", hint=hint)
        if names.count(n) > 1:
            raise DataError(f"{what} names the column {n} more than once", hint=hint)


def _check_layout(schema):
    """A schema (given or inferred) must be the facts' Arrow layout: the
    argument columns, then the four time columns (without them values
    were read into the wrong columns; without the closed flags an open end
    would read as closed)."""
    from chronolog.language.errors import DataError

    names = [f.name for f in schema.fields]
    if tuple(names[-4:]) != TIME_COLUMNS:
        raise DataError(
            f"the schema ({', '.join(names)}) does not end with the time columns {', '.join(TIME_COLUMNS)}",
            hint='give one column per argument, then the interval: spark.read.schema("c0 string, c1 decimal(10,3), '
            'start bigint, end bigint, start_closed boolean, end_closed boolean")',
        )


def _check_predicate(pred):
    """The predicate a write names must read back from the fact text it
    writes (a lowercase name: ``Bad Pred(a)@[0,0]`` is no fact)."""
    from chronolog.language.errors import ChronologError, DataError
    from chronolog.language.facts import read_fact_rows
    from chronolog.language.text import format_fact

    try:
        ok = list(read_fact_rows([format_fact(pred, ("a",), (0, 0, True, True))], "<predicate>")) == [pred]
    except ChronologError:
        ok = False
    if not ok:
        raise DataError(
            f"the predicate option {pred!r} is not a name the fact files can hold",
            hint='a predicate starts with a lowercase letter and has letters, digits and _ only: .option("predicate", "p")',
        )


def _driver() -> Optional[str]:
    """The owner (connectors/leftovers.py) of the Spark driver running this
    write: the first ancestor of this Python worker that is not a PySpark
    worker or daemon (the driver's JVM); None where /proc cannot tell."""
    from .leftovers import owner

    pid = os.getppid()
    for _ in range(4):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                cmd = fh.read()
            with open(f"/proc/{pid}/stat", "rb") as fh:
                parent = int(fh.read().rpartition(b")")[2].split()[1])
        except (OSError, IndexError, ValueError):
            return None
        if not any(arg.startswith(b"pyspark.") for arg in cmd.split(b"\0")):  # python -m pyspark.daemon ...
            return owner(pid)
        pid = parent
    return None


class _Reader(DataSourceReader):
    def __init__(self, options, schema):
        self.path = _path(options, "load")
        self.pred = options.get("predicate")
        self.schema = schema

    def partitions(self):
        return [InputPartition(f) for f in _files(self.path)]

    def read(self, partition):
        import pyarrow as pa
        from pyspark.sql.pandas.types import to_arrow_schema

        if partition is None or partition.value is None:  # no files (an empty write's output): Spark's one empty partition
            return
        target = to_arrow_schema(self.schema, timezone="UTC")  # (a TIMESTAMP column: instants, as Spark reads Arrow)
        kinds = [f.metadata.get(KIND_KEY) for f in self.schema.fields]
        _, rows = _facts([partition.value], self.pred)
        if not rows:
            return
        yield from pa.Table.from_arrays(_columns(rows, target, kinds, partition.value, self.pred), schema=target).to_batches()


SAMPLING = 10_000  # facts read on the driver to infer a schema


def _sampling(options) -> int:
    from chronolog.language.errors import DataError

    text = options.get("samplingFacts", str(SAMPLING))
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise DataError(f"samplingFacts must be a positive whole number, not {text!r}", hint='e.g. .option("samplingFacts", "100000")')
    return n


def _sample(files, pred, limit):
    """``(pred, rows)`` from the first ``limit`` facts of ``files`` in order
    (of ``pred``, or of every predicate when it is None): the driver reads
    only as many lines as it takes."""
    from itertools import islice

    def enough():
        have = len(found.get(pred, [])) if pred is not None else sum(map(len, found.values()))
        return have >= limit or (pred is None and len(found) > 1)

    found = {}
    for f in files:
        with open_text(f, "facts file") as fh:
            line = 1
            while not enough() and (chunk := list(islice(fh, 4096))):
                for p, rows in _fact_rows(chunk, f, pred, first_line=line).items():
                    found.setdefault(p, []).extend(rows)
                line += len(chunk)
        if enough():
            break
    if pred is not None and pred not in found and found:  # every file read: a typo, not a later fact
        from chronolog.language.errors import DataError

        raise DataError(
            f"the files hold no facts of {pred}, only of {', '.join(sorted(found))}",
            hint='choose one of them with .option("predicate", ...)',
        )
    pred, rows = _chosen(found, pred)
    return pred, rows[:limit]


def fits(kind, typ, sampled=None, time: bool = False) -> bool:
    """Whether values of ``kind`` (see ``engine/term_types.value_kind``) go
    into an Arrow column of type ``typ`` exactly and rendered as the schema
    says (``sampled``: the kind a text column was inferred with; ``time``:
    ``start`` or ``end``)."""
    import pyarrow as pa

    k = kind[0]
    if k == "empty":
        return True
    if time and (pa.types.is_timestamp(typ) or pa.types.is_date(typ)):
        return k in ("int", "dec", "rat")  # seconds; off-grid instants are refused by the conversion
    if pa.types.is_date(typ):  # an argument: an instant (engine/term_types.py)
        return k == "date"
    if pa.types.is_timestamp(typ):
        return k in ("date", "timestamp")
    if pa.types.is_integer(typ):
        return k == "int" and not kind[2]
    if pa.types.is_decimal(typ):
        if k == "int":
            return kind[1] <= typ.precision - typ.scale
        return k == "dec" and kind[2] <= typ.scale and kind[1] <= typ.precision - typ.scale
    if pa.types.is_boolean(typ):
        return k == "bool"
    if pa.types.is_floating(typ):  # (numbers that floats print as are floats by then: _printed_floats)
        return k == "float"
    if pa.types.is_string(typ) or pa.types.is_large_string(typ):
        if sampled == "mixed":
            return True
        if sampled == "rat":
            return k in ("int", "dec", "rat")
        return k == "str"
    return False


def _columns(rows, target, sampled, path, pred):
    """The arrays of ``rows`` in the ``target`` schema; a value that does
    not fit is an error at its file and line."""
    import pyarrow as pa

    from . import distributed as dist

    names = [f.name for f in target][:-4]
    _check_arity(rows, names, path, pred)
    kinds = dist.kinds_of(rows, len(names))
    cols = [[t[i] for t, _ in rows] for i in range(len(names))]
    from chronolog.language.timeline import NEG_INF, POS_INF

    cols.append([None if iv[0] == NEG_INF else iv[0] for _, iv in rows])
    cols.append([None if iv[1] == POS_INF else iv[1] for _, iv in rows])
    arrays = []
    for i, f in enumerate(list(target)[:-2]):
        time = i >= len(names)
        if not time and pa.types.is_floating(f.type) and kinds[i][0] in ("int", "dec", "mixed"):
            floats = _printed_floats(cols[i])
            if floats is not None:
                cols[i], kinds[i] = floats, dist.value_kind(floats)
        if not fits(kinds[i], f.type, sampled[i], time):
            _refuse(path, pred, i, f, sampled[i], time)
        if time and pa.types.is_date(f.type) and not all(map(_whole_day, cols[i])):
            _refuse(path, pred, i, f, sampled[i], time, fit=_whole_day)  # (the cast to days would drop the rest)
        if time and (pa.types.is_timestamp(f.type) or pa.types.is_date(f.type)):
            from chronolog.engine.timestamps import to_timestamps

            plain = dist.typed_array(cols[i], kinds[i], dist.arrow_type(kinds[i]))
            arrays.append(to_timestamps(pa.table({f.name: plain}), (f.name,)).column(0).cast(f.type))
            continue
        kind = [sampled[i]] if sampled[i] in ("mixed", "rat") else kinds[i]
        arrays.append(dist.typed_array(cols[i], kind, f.type))
    arrays.append(pa.array([iv[2] for _, iv in rows], pa.bool_()))
    arrays.append(pa.array([iv[3] for _, iv in rows], pa.bool_()))
    return arrays


def _check_arity(rows, names, path, pred):
    """Each fact has one argument per argument column of the schema (else
    its values would fill the wrong columns): an error at the first line
    that has not."""
    from chronolog.language import ast
    from chronolog.language.errors import DataError, counted
    from chronolog.language.facts import read_fact_rows

    if all(len(terms) == len(names) for terms, _ in rows):
        return
    with open_text(path, "facts file") as fh:
        for n, line in enumerate(fh, 1):
            for p, found in read_fact_rows([line], path).items():
                if pred in (None, p) and any(len(terms) != len(names) for terms, _ in found):
                    raise DataError(
                        f"{p} has {counted(len(found[0][0]), 'argument')} here, but the schema has {len(names)} "
                        f"argument column(s) ({', '.join(names) or 'none'}) before {', '.join(TIME_COLUMNS)}",
                        ast.Pos(path, n, 1),
                        hint="give one schema column per argument, then the time columns",
                    )


def _printed_floats(values):
    """A text column read into a floating schema column: each number the
    float that prints as it (``0.1``, ``2.0``: the lines a float column
    writes read back, docs/language.md, "Floats"); None when a number no
    float prints as (``1/3``, a longer decimal) is among them: refused."""
    from chronolog.language.float_times import printed_float

    out = []
    for v in values:
        if v is None or type(v) is float:
            f = v
        elif type(v) is int:
            f = float(v) if abs(v) < 2**53 else None
        else:
            f = printed_float(v)
        if f is None and v is not None:
            return None
        out.append(f)
    return out


def _whole_day(t) -> bool:
    """A time (seconds since 1970) that a DATE time column holds: a whole day, or none (infinite)."""
    from fractions import Fraction

    return t is None or Fraction(t) % 86400 == 0


def _refuse(path, pred, i, field, sampled, time, fit=None):
    """The error for the first line of ``path`` whose column ``i`` does not
    fit ``field`` (read again line by line: only on this error path);
    ``fit`` tells a value that fits, where its kind alone does not."""
    import pyarrow as pa

    from chronolog.language import ast
    from chronolog.language.errors import DataError
    from chronolog.language.facts import read_fact_rows
    from chronolog.language.text import format_term
    from chronolog.language.timeline import NEG_INF, POS_INF

    from . import distributed as dist

    with open_text(path, "facts file") as fh:
        for n, line in enumerate(fh, 1):
            for p, rows in read_fact_rows([line], path).items():
                if pred not in (None, p):
                    continue
                for terms, iv in rows:
                    v = terms[i] if i < len(terms) else (iv[0] if i == len(terms) else iv[1])
                    if v in (NEG_INF, POS_INF) or fits(dist.value_kind([v]), field.type, sampled, time) and (fit is None or fit(v)):
                        continue
                    if not time and pa.types.is_floating(field.type) and _printed_floats([v]) is not None:
                        continue
                    raise DataError(
                        f"{format_term(v) if not isinstance(v, str) else repr(v)} in column "
                        f"{field.name} does not fit its type {field.type} (the schema given, or inferred "
                        "from the first facts)",
                        ast.Pos(path, n, 1),
                        hint='give the schema with spark.read.schema("c0 string, c1 decimal(10,3), start bigint, '
                        'end bigint, start_closed boolean, end_closed boolean"), or sample more facts with '
                        '.option("samplingFacts", N)',
                    )
    raise DataError(f"{path}: a value in column {field.name} does not fit its type {field.type}")


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
    def __init__(self, path, pred, overwrite, job, text=()):
        self.path = str(Path(path).absolute())
        self.text = list(text)  # term text columns (marked: an output of chronolog), written as the terms they spell
        self.pred = pred
        self.overwrite = overwrite
        self.driver = _driver()  # built on the driver; the tasks get a copy
        parent, name = Path(self.path).parent, Path(self.path).name
        sweep(parent, name)  # what a killed write of this path left
        self.staging = str(parent / f".{name}.chronolog-{self.driver + '-' if self.driver else ''}{job}")

    def write(self, iterator):
        import pyarrow as pa
        from pyspark import TaskContext

        from chronolog.engine.arrow import table_to_rows, with_term_text
        from chronolog.language.text import format_fact

        ctx = TaskContext.get()
        part = ctx.partitionId() if ctx else 0
        attempt = ctx.attemptNumber() if ctx else 0
        name = f"part-{part:05d}-{attempt}.facts"
        fh = None  # opened with the first batch: a task failing upstream leaves nothing
        try:
            for batch in iterator:
                if self.driver is not None and not running(self.driver):
                    raise RuntimeError(f"the Spark driver of this write to {self.path} is gone; stopping")
                if not isinstance(batch, (pa.RecordBatch, pa.Table)):  # pyspark 4.0 rows
                    batch = pa.Table.from_pylist([batch.asDict()])
                if fh is None:
                    os.makedirs(self.staging, exist_ok=True)
                    fh = open(os.path.join(self.staging, name), "w", encoding="utf-8")
                batch = with_term_text(batch, [n for n in self.text if n in batch.schema.names])
                for terms, iv in table_to_rows(batch, self.pred, timestamps="times"):
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
