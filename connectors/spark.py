"""Spark in and out: DataFrames to facts and derived facts to DataFrames.

The public entry points are :mod:`chronolog.spark` (``from chronolog import
spark as cs``), which gives this module the embedded reasoner
(:mod:`chronolog.api`, a layer above the connectors) as ``embedded``.

Facts cross between Spark and the engine as Arrow (``toArrow``,
``createDataFrame(pyarrow.Table)``, ``mapInArrow``) in the layout of
:mod:`chronolog.engine.arrow`; a ``double`` start or end is the exact
number each float shows (language/float_times.py), never rounded.  ``distributed=True`` runs the engine inside Spark
tasks, one per partition of key groups, when the planner finds the program
partitionable (:mod:`chronolog.planner.partition`); otherwise as seminaive
rounds of Spark SQL or, for small inputs and what the rounds cannot run,
in one Spark task (:mod:`chronolog.connectors.spark_paths`).
"""

from __future__ import annotations

import os
import pickle
import re
import sys
import warnings
from contextlib import contextmanager
from functools import partial, reduce
from pathlib import Path

from chronolog.language import ast
from chronolog.language.errors import ArgumentError, DataError, InconsistencyError, ProgramError
from chronolog.engine.arrow import TIME_COLUMNS
from chronolog.language.timeline import EVERYWHERE, MAX_DIGITS

from . import distributed as dist


class DriverFallback(UserWarning):
    """``distributed=True`` could not spread the program over Spark's
    tasks.  Only its subclass :class:`OneTaskFallback` is warned now (the
    driver path of a program with no key became one task); catching this
    class still catches it."""


class OneTaskFallback(DriverFallback):
    """``distributed=True`` ran the whole program in ONE Spark task: it has
    no key and the relational rounds cannot run it (the text says why)."""


# The driver JVM's options when session() starts it (a local master runs
# the tasks in that JVM too).  Measured on ownership rounds at 1M facts
# (bench/README.md, "Figures behind design choices"): a fresh JVM spent more CPU
# in its JIT compilers than in its task thread, most of it C2 compiling
# planner, serialization and Janino code that runs a few thousand times;
# 10x higher tier-4 thresholds leave those at C1 while the tasks' loops
# (millions of iterations, counted by back edges) still reach C2.  The
# parallel collector took less CPU than G1 (2.1-2.9 s against 2.4-7.3 s
# per run; its pauses inside tasks are longer), and Spark's and the
# generated classes' metadata outgrew the default initial Metaspace, each
# step a full collection: 256 MB starts above it.
JVM_OPTIONS = (
    "-XX:+UseParallelGC -XX:MetaspaceSize=256m "
    "-XX:Tier4InvocationThreshold=50000 -XX:Tier4MinInvocationThreshold=6000 -XX:Tier4CompileThreshold=150000"
)
SESSION_DEFAULTS = {
    "spark.driver.extraJavaOptions": JVM_OPTIONS,
    # generated classes kept per JVM (Spark's default 100): a run of
    # seminaive rounds makes about 85, so a second run compiled 64 again
    "spark.sql.codegen.cache.maxEntries": "1000",
}


def jobs_so_far(spark) -> int:
    """The jobs the session has submitted so far: the scheduler's next job
    id (every action, broadcast and schema inference takes one)."""
    return int(spark.sparkContext._jsc.sc().dagScheduler().nextJobId())


def session(master: str | None = "local[*]", app_name: str = "chronolog", tuned: bool = True, **conf):
    """A SparkSession set up for chronolog: workers run this Python (so they
    import pyarrow and chronolog), UTC session time, the ``chronolog`` data
    source registered.  ``conf``: extra Spark settings.  ``tuned``: start
    the JVM with :data:`SESSION_DEFAULTS` (``conf`` overrides them; a JVM
    already running keeps its own)."""
    check_master(master)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    b = SparkSession.builder.appName(app_name)
    if master:
        b = b.master(master)
    settings = {
        "spark.sql.session.timeZone": "UTC",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        **(SESSION_DEFAULTS if tuned else {}),
    }
    settings.update(conf)
    for k, v in settings.items():
        b = b.config(k, v)
    spark = b.getOrCreate()
    register(spark)
    return spark


def check_master(master) -> None:
    """A master URL of the forms Spark's launcher takes (yarn, or one
    starting spark, k8s or local), refused before the JVM starts: Spark
    printed its stack trace and the gateway died ("JAVA_GATEWAY_EXITED")."""
    import re

    if master is None or master == "yarn" or (isinstance(master, str) and (
            master.startswith(("spark", "k8s")) if not master.startswith("local") else re.fullmatch(
                r"local(\[([0-9]+|\*)(\s*,\s*[0-9]+)?\])?|local-cluster\[\s*[0-9]+\s*,\s*[0-9]+\s*,\s*[0-9]+\s*\]", master))):
        return  # (SparkSubmit's prefixes; the local forms SparkContext parses)
    from chronolog.language.errors import ArgumentError

    raise ArgumentError(f"master: {master!r} is not a Spark master URL",
                        hint="e.g. master=\"local[*]\" (every core of this machine), local[2], spark://HOST:7077, yarn or k8s://HOST:443")


def register(spark) -> None:
    """Register the ``chronolog`` data source (fact text files) with ``spark``."""
    from .spark_source import ChronologDataSource

    spark.dataSource.register(ChronologDataSource)


# ------------------------------------------------------------ bindings


def read_binding(spark, b: dict):
    """The DataFrame of an input ``@bind("p", "spark <format>", dir, name)``."""
    fmt = b["format"] or "parquet"
    if fmt == "table":
        return spark.table(str(b["location"]))
    opts = {k: v for k, v in b["options"].items()}
    if fmt == "csv":
        opts.setdefault("header", "true")
        opts["inferSchema"] = "false"  # Spark would read decimals as doubles
        for trim in ("ignoreLeadingWhiteSpace", "ignoreTrailingWhiteSpace"):
            opts.setdefault(trim, "true")  # a bare cell trimmed, a quoted one kept, as the CSV reader reads them
        opts.setdefault("escape", '"')  # a quote in a quoted cell doubled (RFC 4180: "a""b" is a"b), as every writer writes it
        # a line break in a quoted cell is part of it, as chronolog writes a string with one (without
        # this, Spark ends the row there: its rest was other rows, or an unbounded interval's row)
        opts.setdefault("multiLine", "true")
        _refuse_compressed_apart(b)
    if fmt == "chronolog":
        opts.setdefault("predicate", b["pred"])
    if fmt == "json":
        opts.setdefault("prefersDecimal", "true")  # a number exact, as the embedded reader reads it (Spark's default: a double)
        if _json_array_file(b["location"]):  # (one JSON array, as the embedded reader reads one: Spark reads it as one document)
            opts.setdefault("multiLine", "true")
    reader = spark.read.format(fmt).options(**opts)
    if fmt == "parquet" and not opts:
        schema = parquet_schema(b["location"])
        if schema is not None:
            reader = reader.schema(schema)
    try:
        df = reader.load(str(b["location"]))
        return _keys_in_file_order(spark, df, b) if fmt == "json" else df
    except Exception as e:  # Spark's AnalysisException: missing path, unknown format
        location = str(b["location"])
        if "://" not in location and not any(c in location for c in "*?[{") and not Path(location).exists():
            # (a local file: the embedded reader's words)
            raise ProgramError(f"@bind of {b['pred']}: the file {location} does not exist", b["pos"],
                               hint="check the directory and file name") from None
        raise ProgramError(f"@bind of {b['pred']}: Spark cannot read {b['location']} as {fmt}: {_first_line(e)}", b["pos"]) from None


def _json_arguments(prog, b: dict, df):
    """A ``spark json`` input with its times placed and its arguments the
    keys ``@mapping`` names, as the embedded reader chooses them
    (bindings.mapped_keys: a log line's other keys left)."""
    from chronolog.connectors.bindings import mapped_keys, time_mapping
    from chronolog.connectors.table_times import time_columns

    times = ("start", "end", "start_closed", "end_closed")
    mapping = time_columns(time_mapping(prog, b["pred"]), df.columns, str(b["location"]))  # (names: the keys)
    at_times = set(mapping[:2]) if mapping is not None else set()
    keys = [c for i, c in enumerate(df.columns) if i not in at_times and c not in times]
    chosen = mapped_keys(prog, b["pred"], keys, b["location"])
    df = placed_times(prog, b["pred"], df, None, str(b["location"]))
    if chosen is None:
        return df
    placed = [c for c in df.columns if c not in times]  # (the keys in their order, renamed c0, c1, ... by a time mapping)
    by_key = dict(zip(keys, placed))
    return df.select(*[df[f"`{by_key[k]}`"].alias(k) for k in chosen], *[df[f"`{t}`"] for t in times if t in df.columns])


def _json_array_file(location) -> bool:
    """Whether a ``spark json`` input is a local file that is one JSON
    array (``[`` first)."""
    path = Path(str(location))
    if "://" in str(location) or not path.is_file():
        return False
    from chronolog.connectors.json_lines import is_array_file

    return is_array_file(path)


def _keys_in_file_order(spark, df, b: dict):
    """A ``spark json`` input's columns in the order its first record
    writes its keys, as the embedded reader takes them (Spark's inferred
    schema sorts them by name: ``sensor``, ``reading`` would be read as
    ``reading``, ``sensor``, the arguments swapped); keys first met later
    after them, in Spark's order."""
    import json

    if _json_array_file(b["location"]):
        from chronolog.connectors.json_lines import first_element_keys

        keys = first_element_keys(Path(str(b["location"])))
    else:
        first = spark.read.text(str(b["location"])).filter("trim(value) != ''").limit(1).collect()
        try:
            keys = list(json.loads(first[0][0])) if first else []
        except ValueError:
            return df  # (Spark's reader says what it made of it: a _corrupt_record column)
    order = [k for k in keys if k in df.columns] + [c for c in df.columns if c not in keys]
    return df.select(*[df[f"`{c}`"] for c in order]) if order != df.columns else df


# A cell's end characters that the two readers trim apart: Spark's CSV
# reader (univocity) trims a bare cell's characters up to the space,
# U+0000-U+0020, and no blank past ASCII; the embedded one strips what
# str.strip strips (Unicode's blanks and \x1c-\x1f, not \x01).  After a
# comma or a line's start (or before a comma or its end), blanks of
# either kind between: then the cell may be bare or quoted, which Spark's
# text does not say, and the embedded reader reads the file instead.
_TRIMMED_BY_ONE = "[\\x00-\\x08\\x0e-\\x1b\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
_TRIMMED_BY_ANY = "[\\x00-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
TRIMMED_APART = f"(^|,){_TRIMMED_BY_ANY}*{_TRIMMED_BY_ONE}|{_TRIMMED_BY_ONE}{_TRIMMED_BY_ANY}*(,|$)"


def _csv_scan_sql(width: int) -> tuple:
    """SQL over a line ``value`` of a ``spark csv`` input's files (Spark's
    text reader: a line ends at ``\\n``, ``\\r\\n`` or a lone ``\\r``, as
    the csv module's lines), whether Spark's CSV reader may read it
    otherwise than the embedded reader: ``(apart, odd, bad)``, a cell
    ending in a character the two readers trim apart
    (:data:`TRIMMED_APART`) or a line of blanks and commas only (a row the
    embedded reader skips); an odd count of quotes (a quoted line break,
    whose ``\\r\\n`` Spark reads as ``\\n``, or a quote never closed); bytes
    that are no UTF-8 (Spark reads U+FFFD) or another count of cells
    than ``width`` (a ragged row, which Spark pads or cuts: the embedded
    reader names it), counted outside quotes (wrong past a quoted line
    break: ``odd`` then says so)."""
    bare = "CASE WHEN instr(value, '\"') > 0 THEN regexp_replace(value, '\"[^\"]*\"', '') ELSE value END"
    commas = f"length({bare}) - length(replace({bare}, ',', ''))"
    quotes = "length(value) - length(replace(value, '\"', ''))"
    blank = "value RLIKE '^[\\\\s,]*$'"
    sql_apart = TRIMMED_APART.replace("\\", "\\\\")  # (a SQL literal: its backslashes read as escapes)
    apart = f"value RLIKE '{sql_apart}' OR (value != '' AND {blank})"
    odd = f"({quotes}) % 2 = 1"
    bad = f"NOT is_valid_utf8(value) OR (({commas}) != {width - 1} AND NOT {blank})"
    return apart, odd, bad


def scan_csv_lines(spark, location: str, width: int) -> tuple:
    """``(apart, odd, bad)`` of a ``spark csv`` input's lines
    (:func:`_csv_scan_sql`): whether a line has a cell the two readers
    trim apart, or blanks only; the files (Spark's paths) with a line of
    an odd count of quotes; those with a line not UTF-8 or ragged; and
    ``zeros``, those with a cell written with leading zeros (``007``,
    which the readers note where they read it as a number).  One job."""
    apart, odd, bad = _csv_scan_sql(width)
    zeros = "value RLIKE '(^|,) *\"?[+-]?0[0-9]'"
    flagged = f"({apart}) OR ({odd}) OR ({bad}) OR ({zeros})"  # (the aggregates, and the files' paths, on flagged lines only)
    got = spark.read.text(location).where(flagged).selectExpr(
        f"coalesce(max(CASE WHEN {apart} THEN 1 ELSE 0 END), 0)",
        f"collect_set(CASE WHEN {odd} THEN _metadata.file_path END)",
        f"collect_set(CASE WHEN {bad} THEN _metadata.file_path END)",
        f"collect_set(CASE WHEN {zeros} THEN _metadata.file_path END)",
    ).collect()[0]
    return bool(got[0]), sorted(got[1]), sorted(got[2]), sorted(got[3])


def held_by_csv_reader(spark, b: dict, df, prog=None):
    """``df`` (Spark's read of a ``spark csv`` input, every column text),
    or the same columns read by the embedded reader where Spark's may read
    otherwise: where a cell of its files starts or ends with a character the
    two readers trim apart (:data:`TRIMMED_APART`: a bare ``a\\u00a0`` is
    ``a`` to the embedded reader, a quoted one ``a\\u00a0``, and Spark's
    text is ``a\\u00a0`` for both), or a line is ragged, not UTF-8, blank
    but for commas, or has an odd count of quotes (:func:`scan_csv_lines`,
    one job over the files' lines).  A local file with a ragged line or
    bytes not UTF-8 and no quoted line break is read by the embedded
    reader on the driver (``prog`` given), whose error names its file,
    line and column.  Otherwise the files are read as their bytes (Spark's
    ``binaryFile``, the files Spark's CSV reader reads), each parsed in a
    task (``csv_files.held_cells``), each cell the text that reader holds,
    which every Spark path then converts as it converts Spark's; that
    parse raises the reader's errors of the file's bytes, quotes and
    ragged rows (which the connector then reports as the embedded reader
    reports the local files: ``_data_errors_placed``).  For the options
    both readers share (``header``) only."""
    if set(b["options"]) - {"header"}:
        return df
    location = str(b["location"])
    apart, odd, bad, zeros = scan_csv_lines(spark, location, len(df.columns))
    if prog is not None and set(bad) - set(odd):  # (a ragged row, bytes not UTF-8: the embedded reader's error, one parse)
        embedded_csv_error(prog, b, sorted(set(bad) - set(odd)))
    if prog is not None and zeros:
        _note_leading_zeros(prog, b, zeros)
    if not apart and not odd and not bad:
        return df
    from .csv_files import held_cells

    use_headers = str(b["options"].get("header", "true")).lower() == "true"
    schema, names, pred = df.schema, list(df.columns), b["pred"]

    def parse(batches):
        import pyarrow as pa

        for batch in batches:
            for path, data in zip(batch.column("path").to_pylist(), batch.column("content").to_pylist()):
                rows = held_cells(data, path, use_headers, len(names), pred)
                yield pa.RecordBatch.from_arrays([pa.array([r[i] for r in rows], pa.string()) for i in range(len(names))],
                                                 names=names)

    return spark.read.format("binaryFile").load(location).select("path", "content").mapInArrow(parse, schema)


# the suffix by which Spark's readers (Hadoop's codecs) decompress a file of each kind
_SPARK_SUFFIXES = {"gzip": ".gz", "bzip2": ".bz2", "zstd": ".zst"}


def _refuse_compressed_apart(b: dict) -> None:
    """Refuse a local file of a ``spark csv`` input that is compressed where
    Spark would read its compressed bytes as text (its columns then garbage):
    xz, which Spark does not decompress, or a compressed file whose name
    lacks the suffix by which Spark tells it (``day.csv`` holding gzip)."""
    from chronolog.language.compressed import kind_of_file

    for f in _local_files(b):
        kind = kind_of_file(f)
        if kind is None or (kind in _SPARK_SUFFIXES and f.name.endswith(_SPARK_SUFFIXES[kind])):
            continue
        if kind not in _SPARK_SUFFIXES:
            raise DataError(f"{f} is {kind}-compressed, which Spark's CSV reader does not decompress", ast.Pos(str(f)),
                            hint=f'bind it as "csv" (read on the driver), or compress it with gzip or zstd: xz -dc {f.name} | gzip > {f.stem}.gz')
        raise DataError(f"{f} is {kind}-compressed, but Spark tells a compressed file by its name", ast.Pos(str(f)),
                        hint=f"name it {f.name}{_SPARK_SUFFIXES[kind]}")


def _local_files(b: dict, among=None) -> list:
    """The local files of a ``spark csv`` (or parquet) input as the embedded reader
    would name them (the bound file, or each file of the bound directory,
    by name), only those among Spark's paths ``among`` when given; none
    for a remote location or a pattern."""
    from urllib.parse import unquote, urlparse

    location = str(b["location"])
    path = Path(location)
    if "://" in location or not path.exists():
        return []
    files = sorted(f for f in path.iterdir() if f.is_file() and not f.name.startswith(("_", "."))) if path.is_dir() else [path]
    if among is None:
        return files
    wanted = {Path(unquote(urlparse(u).path)).resolve() if u.startswith("file:") else Path(u).resolve() for u in among}
    return [f for f in files if f.resolve() in wanted]


# a local file with a cell written with leading zeros is read again on the
# driver, by the embedded reader, for its note at the cell's line only up to
# this size: that reading holds the whole file in the driver's memory
NOTE_READ_BYTES = 64 << 20


def _note_leading_zeros(prog, b: dict, zeros: list) -> None:
    """The note of a ``spark csv`` input's cell written with leading zeros
    (``007`` read as 7: csv_files.note_leading_zeros), at its file's line
    as the embedded reader gives it for a local file of at most
    :data:`NOTE_READ_BYTES`; a larger file is named without its line."""
    from chronolog.language.errors import Note

    files = _local_files(b, zeros)
    small = [str(f) for f in files if f.stat().st_size <= NOTE_READ_BYTES]
    if small:
        embedded_csv_error(prog, b, small)
    for f in files:
        if str(f) not in small:
            warnings.warn(Note(
                f"{f}: a cell written with leading zeros (as 007) is read as a number, its zeros dropped; "
                f'@mapping("{b["pred"]}", K, "NAME", "string"). for its column keeps them'), stacklevel=2)


def embedded_csv_error(prog, b: dict, among=None) -> None:
    """Raise the embedded CSV reader's error of a ``spark csv`` input's
    local files (or those among Spark's paths ``among``), naming the
    file, line and column, as ``chronolog`` reading the file bound as
    ``csv`` raises it (the Arrow kernels for a large file, else the row
    reader); return when it reads them all.  Only for the options both
    readers share (``header``)."""
    from chronolog.connectors.bindings import mappings, time_mapping
    from chronolog.connectors.csv_columns import read_csv_columns
    from chronolog.connectors.csv_files import read_csv_facts

    if b["kind"] != "spark" or b["format"] != "csv" or b["output"] or set(b["options"]) - {"header"}:
        return
    opts = {"useHeaders": str(b["options"].get("header", "true"))}
    args = (b["pred"], opts, mappings(prog, b["pred"]))
    for f in _local_files(b, among):
        if read_csv_columns(f, *args, time_mapping(prog, b["pred"]), prog.calendar) is None:
            read_csv_facts(f, b["pred"], None, *args[1:], time_mapping(prog, b["pred"]), prog.calendar)


def placed_times(prog, pred: str, df, closed, where: str):
    """An input (a Spark DataFrame, an Arrow table, a pandas DataFrame) with
    its times where the program's ``@timeMapping`` of ``pred`` places them,
    or closed as ``closed`` says (connectors/table_times.py, as the
    embedded ``reason`` reads a table)."""
    from chronolog.connectors.bindings import time_mapping
    from chronolog.connectors.table_times import closed_ends, time_mapped, with_closed

    mapping, ends = time_mapping(prog, pred), closed_ends(closed, pred)
    if mapping is not None and ends is not None:
        raise ArgumentError(
            f"{where}: closed= was given, and @timeMapping of {pred} says which ends are closed",
            hint=f"leave out closed= for {pred}, or the closedness of @timeMapping (#T, #F)",
        )
    if mapping is None and ends is None:
        return df
    if not hasattr(df, "toArrow"):  # an Arrow table or a pandas DataFrame: as the embedded reason() rewrites it
        import pyarrow as pa

        from chronolog.engine.arrow import pandas_table

        table = df if isinstance(df, (pa.Table, pa.RecordBatch)) else pandas_table(df, pred)
        table = table if isinstance(table, pa.Table) else pa.Table.from_batches([table])
        if mapping is None:
            return with_closed(table, ends, pred)
        pos = next(a.pos for a in prog.annotations if a.name == "timeMapping" and a.args and a.args[0] == pred)
        return time_mapped(table, mapping, pred, where, pos, prog.calendar)
    if mapping is not None:
        return _time_mapped(df, mapping, {"pred": pred, "location": where, "pos": None}, boolean=True, prog=prog)
    have = [c for c in df.columns if c in ("start_closed", "end_closed")]
    if have:
        raise ArgumentError(
            f"{where}: closed= was given, but the input has the column {have[0]}, which says per row which ends are closed",
            hint=f"leave out closed= for {pred} (closed={{...}} names the inputs it is for), or drop the column",
        )
    return df.selectExpr("*", f"{str(ends[0]).lower()} AS start_closed", f"{str(ends[1]).lower()} AS end_closed")


def _time_mapped(df, mapping, b: dict, boolean: bool = False, prog=None):
    """A CSV input's columns as ``@timeMapping`` places its times (start
    and end by position, their closedness from the annotation), as the
    embedded CSV reader reads them; the other columns stay the terms, in
    their order.  ``boolean``: the closedness as booleans (a typed input),
    not a CSV's text."""
    if mapping is None:
        return df
    from chronolog.connectors.table_times import check_positions, time_columns

    cols = df.columns
    mapping = time_columns(mapping, cols, str(b["location"]))
    start, end, sc, ec = mapping
    pos = b["pos"]
    if pos is None:  # (an input given from Python: the annotation's place)
        pos = next(a.pos for a in prog.annotations if a.name == "timeMapping" and a.args and a.args[0] == b["pred"])

    check_positions(cols, mapping, b["pred"], str(b["location"]), pos)
    if getattr(prog, "calendar", None) is not None:  # (numbers there: refused by their own names, as embedded)
        _refuse_numbers_on_dates(df, {cols[start], cols[end]}, b["pred"], str(b["location"]))
    names = [c for i, c in enumerate(cols) if i not in (start, end) and c not in ("start_closed", "end_closed")]
    exprs = [f"{_sql_name(c)} AS {_sql_name(f'c{k}')}" for k, c in enumerate(names)]
    first = _sql_name(cols[start])
    if start == end:  # (a null time point, an empty cell: read as two unbounded ends, it held forever)
        first = _null_point_refused(cols[start], names, b["pred"], str(b["location"]), text=not boolean)
    exprs += [f"{first} AS start", f"{_sql_name(cols[end])} AS `end`"]
    quote = "" if boolean else "'"
    exprs += [f"{quote}{str(bool(sc)).lower()}{quote} AS start_closed", f"{quote}{str(bool(ec)).lower()}{quote} AS end_closed"]
    return df.selectExpr(*exprs)


NULL_POINT = "chronolog refused a null time point: "  # raise_error's text, found again in Spark's exception


def _null_point_refused(name: str, others: list, pred: str, where: str, text: bool = False) -> str:
    """Column ``name`` of time points as SQL that stops the job at a null
    (connectors/table_times.refuse_null_point, the embedded readers'),
    naming the row by its other columns' values; :func:`_null_points_refused`
    turns the job's failure into the embedded error."""
    from .spark_rounds.sql import hex_string

    col = _sql_name(name)
    row = ", ".join(f"concat({hex_string(c + '=')}, coalesce(CAST({_sql_name(c)} AS STRING), 'None'))" for c in others) or "''"
    said = hex_string(NULL_POINT + "\x1f".join((name, pred, where)) + "\x1f")
    empty = f" OR {_trimmed(col)} = ''" if text else ""  # (a CSV's cell of blanks: empty too)
    return f"CASE WHEN {col} IS NULL{empty} THEN raise_error(concat({said}, concat_ws(', ', {row}))) ELSE {col} END"


def _null_points_refused(call):
    """``call`` with a null time point of a Spark DataFrame (a failed job,
    :func:`_null_point_refused`) raised as the embedded readers' DataError."""
    import functools

    @functools.wraps(call)
    def refusing(*args, **kwargs):
        from .spark_rounds.sql import expected_failures, raised
        from .table_times import null_point_error

        with expected_failures():
            try:
                return call(*args, **kwargs)
            except Exception as e:
                said = raised(e, NULL_POINT)
                if said is None or said.count("\x1f") < 3:
                    raise
                name, pred, where, row = said.split("\x1f", 3)
                raise null_point_error(name, pred, where, f"in a row: {row}") from None

    return refusing


def _refuse_numbers_on_dates(df, names, pred: str, where: str) -> None:
    """connectors/table_times.refuse_numbers_on_dates of a Spark DataFrame, by its schema (no job)."""
    from pyspark.sql.types import NumericType

    from chronolog.connectors.table_times import numbers_on_dates

    for name in sorted(names):
        typ = df.schema[name].dataType
        if isinstance(typ, NumericType):
            raise numbers_on_dates(name, typ.simpleString(), pred, where)


PARQUET_FOOTERS = 64  # more files than this: Spark's own inference (one job)


def parquet_schema(location):
    """The schema Spark would infer for the Parquet dataset at ``location``,
    from its files' footers read on the driver with pyarrow; None (let
    Spark infer it) unless that is certain.

    Spark's inference is a job of its own (it reads one footer in a task):
    a fixed cost of every call that reads Parquet, serial on the driver
    (bench/README.md, "Figures behind design choices").  Certain means: a
    local file or a directory of files with no subdirectories (partition
    columns come from directory names), at most :data:`PARQUET_FOOTERS`
    files, every footer the same, every column of a type whose Spark type
    has no option or version behind it (integers, booleans, floats,
    decimals, text, dates; not timestamps, binary, unsigned or nested)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyspark.sql import types as T

    path = Path(str(location))
    if "://" in str(location) or not path.exists():
        return None
    if path.is_dir():
        files = []
        for p in sorted(path.iterdir()):
            if p.name in ("_metadata", "_common_metadata"):
                return None  # Parquet summary files: Spark's inference reads those
            if p.name.startswith(("_", ".")):  # Spark's hidden files (_SUCCESS, .crc)
                continue
            if not p.is_file():
                return None
            files.append(p)
    else:
        files = [path]
    if not files or len(files) > PARQUET_FOOTERS:
        return None
    try:
        schemas = [pq.read_schema(f) for f in files]
    except (OSError, pa.ArrowException):
        return None  # not Parquet: Spark's own error names the file
    first = schemas[0].remove_metadata()
    if any(not s.remove_metadata().equals(first) for s in schemas[1:]):
        return None
    simple = {
        pa.int8(): T.ByteType(), pa.int16(): T.ShortType(), pa.int32(): T.IntegerType(), pa.int64(): T.LongType(),
        pa.bool_(): T.BooleanType(), pa.float32(): T.FloatType(), pa.float64(): T.DoubleType(),
        pa.string(): T.StringType(), pa.large_string(): T.StringType(), pa.date32(): T.DateType(),
    }
    fields = []
    for f in first:
        if pa.types.is_decimal128(f.type):
            typ = T.DecimalType(f.type.precision, f.type.scale)
        elif f.type in simple:
            typ = simple[f.type]
        else:
            return None
        fields.append(T.StructField(f.name, typ, True))  # Spark reads every file column as nullable
    schema = T.StructType(fields)
    written = (schemas[0].metadata or {}).get(b"org.apache.spark.sql.parquet.row.metadata")
    if written is not None:  # written by Spark: its inference restores that schema (types, field metadata)
        import json

        spark_schema = T.StructType.fromJson(json.loads(written))
        same = [(f.name, f.dataType, f.metadata) for f in spark_schema.fields] == [(f.name, f.dataType, {}) for f in fields]
        if not same:
            return None
    return schema


def _first_line(e) -> str:
    """The reason in Spark's error: its first line, or where that line opens
    a Python traceback (a data source's error), the exception's own message."""
    lines = str(e).strip().splitlines()
    if not lines:
        return type(e).__name__
    if lines[0].endswith("Traceback (most recent call last):"):
        raised = [m.group(1) for line in lines if (m := re.match(r"[\w.]+(?:Error|Exception)\w*: (.+)", line))]
        if raised:
            return raised[-1]
    return lines[0]


def check_writable(spark, b: dict, overwrite: bool) -> None:
    """Refuse before any work when an output exists and may not be replaced."""
    if overwrite:
        return
    fmt = b["format"] or "parquet"
    if fmt == "table":
        exists = spark.catalog.tableExists(str(b["location"]))
    else:
        loc = str(b["location"])
        exists = "://" not in loc and Path(loc).exists()
    if exists:
        raise DataError(
            f"the output {b['location']} of {b['pred']} exists already; not overwriting it",
            b["pos"],
            hint="choose another location, or pass --overwrite (mode('overwrite') in Spark)",
        )


def write_binding(df, b: dict, overwrite: bool, staging=None) -> None:
    """Write ``df`` to an output binding.  Spark's file committer makes each
    write all-or-nothing; the existence check happens before reasoning.
    With a :class:`~chronolog.connectors.staging.Staging`, a path on the
    local file system is written under a hidden name and renamed into place
    with the run's other outputs (a table or a remote path is written
    directly: call this for them after ``staging.publish()``)."""
    fmt = b["format"] or "parquet"
    mode = "overwrite" if overwrite else "errorifexists"
    options = dict(b["options"])
    if fmt == "csv":
        df = _booleans_as_terms(df)
        options.setdefault("header", "true")  # as read_binding reads it: without, each part's first fact was read as a header
        # a string's blanks kept (Spark trims them by default) and every cell
        # quoted, since a reader trims a bare cell's (Spark quotes no cell for
        # its blanks alone); a quote doubled, as read_binding and the embedded
        # reader read it (Spark writes \" by default)
        for key, value in (("ignoreLeadingWhiteSpace", "false"), ("ignoreTrailingWhiteSpace", "false"),
                           ("quoteAll", "true"), ("escape", '"')):
            options.setdefault(key, value)
    if staging is not None and stageable(b):
        tmp = staging.temp_path(Path(str(b["location"])), overwrite, is_dir=True)
        if fmt == "chronolog":
            tmp.rmdir()  # the chronolog source creates its directory itself
            df.write.format("chronolog").option("predicate", b["pred"]).mode("append").save(str(tmp))
        else:
            df.write.format(fmt).options(**options).mode("overwrite").save(str(tmp))
        return
    if fmt == "table":
        df.write.mode(mode).saveAsTable(str(b["location"]))
    elif fmt == "chronolog":
        w = df.write.format("chronolog").option("predicate", b["pred"])
        w.mode("overwrite" if overwrite else "append").save(str(b["location"]))
    else:
        df.write.format(fmt).options(**options).mode(mode).save(str(b["location"]))


def _booleans_as_terms(df):
    """``df`` with its boolean argument columns as the text ``#T``/``#F``
    for Spark's CSV writer, which writes ``true``: an untyped CSV cell reads
    that back as a name, ``#T`` as the boolean (connectors/csv_files.py).
    The closedness columns stay ``true``/``false``."""
    from pyspark.sql import types as T

    fields = df.schema.fields
    if not any(isinstance(f.dataType, T.BooleanType) and f.name not in TIME_COLUMNS for f in fields):
        return df
    return df.selectExpr(*(
        f"CASE WHEN {c} THEN '#T' WHEN NOT {c} THEN '#F' END AS {c}"
        if isinstance(f.dataType, T.BooleanType) and f.name not in TIME_COLUMNS else c
        for f in fields for c in [_sql_name(f.name)]
    ))


def stageable(b: dict) -> bool:
    """Whether a Spark output can be staged: a path on the local file system."""
    return (b["format"] or "parquet") != "table" and "://" not in str(b["location"])


# ------------------------------------------------------------ reasoning


def _strip(program: ast.Program, facts: bool) -> ast.Program:
    """The program without @bind annotations (read here) and, for tasks,
    without its facts (they travel with the data, keyed)."""
    return ast.Program(
        list(program.rules),
        [] if facts else list(program.facts),
        [a for a in program.annotations if a.name != "bind"],
        program.source,
        program.calendar,
    )


def _refuse_tuple_windows(prog) -> None:
    """A LARS tuple window filters the input before reasoning (the embedded
    reasoner and streams do it); Spark's paths do not, and a program read
    with it would answer as if no atom were in the window: refused."""
    from chronolog.language import ast
    from chronolog.language.errors import ProgramError

    windows = getattr(prog, "tuple_windows", None) or {}
    for rule in prog.rules:
        for lit in rule.body:
            for atom in ast.atoms_of(lit):
                if atom.pred in windows:
                    pred, n = windows[atom.pred]
                    raise ProgramError(
                        f"the tuple window [#{n}] over {pred} does not run on Spark",
                        rule.pos, hint="run the program without Spark (chronolog run, chronolog.reason) or as a stream",
                        source_line=rule.text or "")


def _refuse_lars_frames(prog, frames) -> None:
    """A LARS program's facts are given at ticks (language/lars.py,
    ``fact_rows``); Spark's paths read a DataFrame's rows as real time (a
    row from 5 to 7 as the closed [5,7], not ticks 5 to 7), so they would
    answer otherwise than the embedded reasoner: refused."""
    from chronolog.language.errors import ProgramError
    from chronolog.language.ast import is_lars

    if frames and is_lars(prog):
        raise ProgramError(
            f"the input {frames[0][0]} of a LARS program is not read at ticks through Spark",
            hint="run the program without Spark: chronolog.reason(program, {pred: df.toArrow()}, dialect=\"lars\") "
                 "reads tables at ticks (or push them to a chronolog.Stream)")


@_null_points_refused
def reason_with(
    spark,
    program,
    inputs: dict | None = None,
    *,
    embedded,
    horizon=None,
    dialect: str = "vadalog",
    distributed: bool = False,
    key: dict | None = None,
    partitions: int | None = None,
    outputs=None,
    timestamps: bool = False,
    base_dir=None,
    window=None,
    stats: dict | None = None,
    arrow: bool = False,
    one_task_bytes: int | None = None,
    closed=None,
    _fail_first_attempt: bool = False,
) -> dict:
    """Reason over Spark DataFrames; return ``{pred: DataFrame}`` for the
    output predicates (``@output``, else every derived one, or ``outputs``).

    ``inputs``: ``{pred: DataFrame | pyarrow.Table | pandas.DataFrame}`` in the
    layout (term columns, then ``start``, ``end`` and optional
    ``start_closed``, ``end_closed``); ``@bind("p", "spark parquet", ...)``
    inputs of the program are read too.  ``@timeMapping`` places the times
    of any of them by column position; ``closed`` (``"left"``: ``[start,
    end)``, ``"right"``, ``"neither"``, ``"both"`` the default, or a dict of
    them by predicate) closes the intervals of inputs without closedness
    columns.  ``distributed``: run the engine in
    Spark tasks per key group (``key={pred: position}`` fixes keys, found by
    the planner otherwise; ``partitions`` defaults to the default
    parallelism).  ``timestamps``: output time columns as UTC timestamps.
    ``window``: ``(from, to)`` (or ``"from,to"``); output only the facts
    inside it, with facts that repeat forever unrolled: a model that repeats
    forever has no finite table without one (an error says so).
    A program with no key runs as seminaive rounds of DataFrame joins
    (:mod:`chronolog.connectors.spark_rounds`), or in ONE Spark task when
    Spark estimates its inputs at most ``one_task_bytes`` (default: the
    session's ``spark.chronolog.oneTaskBytes``, else 4 MiB; -1: never) or
    the rounds cannot run it (:mod:`chronolog.connectors.spark_paths`).
    ``stats``: a dict that gets the path taken (``"keyed"``,
    ``"relational"``, ``"one task"``, ``"driver"``) and ``"why"``, and for
    rounds a line per round.
    ``arrow``: return ``{pred: pyarrow.Table}`` collected on the driver, the
    tables ``toArrow()`` of each DataFrame would give; on the keyed path in
    one Spark job for all outputs (the DataFrames' ``toArrow`` is a job each,
    over a checkpoint of the tasks' output).
    ``embedded``: :mod:`chronolog.api` (its ``reason``, ``parse_horizon`` and
    ``refuse_unknown_predicate``),
    given by :func:`chronolog.spark.reason`: the API is a layer above.
    """
    from chronolog.connectors.bindings import binding_specs, column_names, load_bound_inputs, time_mapping
    from chronolog.language.programs import read_program
    from chronolog.planner import plan as make_plan

    prog = read_program(program, dialect)
    _refuse_tuple_windows(prog)
    parse_horizon = embedded.parse_horizon

    if window is not None:
        window = parse_horizon(window, prog.calendar, "window")
    if base_dir is None:
        base_dir = program.parent if isinstance(program, Path) else Path.cwd()
    frames = []  # (pred, DataFrame or Arrow table, read from CSV)
    sources = {}  # pred -> where its bound input comes from (for errors)
    from chronolog.connectors.table_times import check_closed

    check_closed(closed)
    given = []  # (pred, a Spark DataFrame as given or read, where): the row of a value a task's error met is sought there
    for pred, df in _checked_inputs(inputs).items():
        frames.append((pred, placed_times(prog, pred, df, closed, f"inputs[{pred!r}]"), False))
        if hasattr(df, "toArrow"):
            given.append((pred, df, f"inputs[{pred!r}]"))
    for b in binding_specs(prog, Path(base_dir)):
        if b["kind"] == "spark" and not b["output"]:
            df = read_binding(spark, b)
            given.append((b["pred"], df, str(b["location"])))
            if b["format"] == "csv" and not df.columns:
                continue  # (empty files, or lines of blanks: no facts, as the embedded reader reads them)
            if b["format"] == "csv":
                from chronolog.connectors.csv_files import header_time_columns

                if str(b["options"].get("header", "true")).lower() == "true":
                    from chronolog.connectors.bindings import check_mapped_header
                    from chronolog.connectors.csv_files import refuse_data_header, refuse_unnamed_columns

                    _refuse_csv_names_alike(spark, df, b)
                    header = [c.strip() for c in df.columns]
                    # Spark names a header cell without a name _c<its index>
                    named = ["" if c == f"_c{i}" else c for i, c in enumerate(header)]
                    refuse_unnamed_columns(named, ast.Pos(str(b["location"]), 1, 1), time_mapping(prog, b["pred"]))
                    tm = header_time_columns(header, time_mapping(prog, b["pred"]), ast.Pos(str(b["location"]), 1, 1), prog.calendar)
                    refuse_data_header(header, ast.Pos(str(b["location"]), 1, 1), tm, prog.calendar)
                    check_mapped_header(prog, b["pred"], header, b["location"])
                else:  # (Spark's names _c0, _c1, ... are no header's: names refused)
                    tm = header_time_columns(None, time_mapping(prog, b["pred"]), ast.Pos(str(b["location"]), 1, 1), prog.calendar)
                df = _time_mapped(held_by_csv_reader(spark, b, df, prog), tm, b)
            elif b["format"] == "json":
                df = _json_arguments(prog, b, df)
            else:
                df = placed_times(prog, b["pred"], df, None, str(b["location"]))
            frames.append((b["pred"], df, b["format"] == "csv"))
            sources[b["pred"]] = str(b["location"])
    _refuse_lars_frames(prog, frames)
    local_facts = list(prog.facts) + load_bound_inputs(prog, Path(base_dir), spark_inputs=True)
    from chronolog.language.facts import refuse_repeating

    refuse_repeating(local_facts, "reasoning through Spark")
    plan = make_plan(_strip(prog, True))
    _refuse_other_arities(prog, frames)
    if outputs is None:
        outputs = plan.outputs or sorted(p for p in plan.derived_predicates() if not p.startswith("$"))
    outputs = list(outputs)
    # a typo is named before any job (the rounds answered it empty, the tasks refused it after the job)
    known = set(plan.arities) | {p for p, _, _ in frames} | {f.pred for f in local_facts}
    for p in outputs:
        if p not in known:
            embedded.refuse_unknown_predicate(p, known, "outputs", "its inputs")

    names = {}
    for p in outputs:
        arity = plan.arities.get(p, (None,))[0]
        if arity is None:
            arity = next((len(_term_columns(df)) for q, df, _ in frames if q == p), 0)
        names[p] = column_names(prog, p, arity)

    tables = {p: t for p, t in (inputs or {}).items() if not hasattr(t, "toArrow")}  # (the driver holds them: a Spark DataFrame it does not)
    with _data_errors_placed(prog, Path(base_dir), dialect, embedded, tables, given):
        if prog.calendar is not None:
            timestamps = True  # @timeGranularity: time columns are instants, never unit counts
        if distributed:
            from chronolog.planner.partition import NotPartitionable, analyse

            _refuse_names_alike(spark, frames, sources)

            hz = parse_horizon(horizon, prog.calendar) if horizon is not None else None
            if hz is None and plan.temporal is not None:
                hz = parse_horizon(plan.temporal)
            if hz == EVERYWHERE:
                hz = None  # (it confines nothing, as in reason())
            try:
                keys = analyse(plan, _key_positions(key, frames)).keys
            except NotPartitionable as e:
                from . import spark_paths, spark_rounds

                # no key: seminaive rounds of DataFrame joins (connectors/spark_rounds/),
                # or one task when the inputs are small or the rounds cannot run it
                path, why = spark_paths.choose(spark, plan, frames, local_facts, one_task_bytes, hz)
                no_key = f"no key ({e.why})"
                if path == "relational":
                    try:
                        out = spark_rounds.reason(spark, plan, frames, local_facts, outputs, names, hz, window, timestamps, stats)
                        if stats is not None:
                            stats["why"] = f"{no_key}; {why}"
                        return _as_arrow(out, arrow)
                    except spark_rounds.NotRelational as r:
                        _csv_cell_error(prog, r, Path(base_dir))  # (a bad cell: the embedded reader's error)
                        path, why = "refused", spark_paths.refusal(r)
                if path == "refused":
                    warnings.warn(
                        f"running in ONE Spark task, not distributed: the program has no key to split it by ({e.why}), and {why}",
                        OneTaskFallback, stacklevel=2,
                    )
                if stats is not None:
                    stats.update(path="one task", why=f"{no_key}; {why}")
                keys = {}  # one key, '': the whole program in one task
            else:
                if stats is not None:
                    stats.update(path="keyed", why=f"partitioned by key {keys}")
            from .spark_rounds.sql import expected_failures, raised

            try:
                with expected_failures():  # an unkeyable CSV cell: one task runs it instead
                    return _distributed(
                        spark, _strip(prog, True), frames, local_facts, keys, outputs, names, horizon,
                        partitions if keys else 1, timestamps, _fail_first_attempt, window, sources, arrow, embedded,
                    )
            except Exception as e:
                cell = raised(e, UNKEYABLE)  # (_key_sql)
                if cell is None or not keys:
                    raise
            why = f"the CSV cell {cell}, which Spark SQL cannot key exactly"
            warnings.warn(f"running in ONE Spark task, not distributed: {why}", OneTaskFallback, stacklevel=2)
            if stats is not None:
                stats.update(path="one task", why=why)
            return _distributed(
                spark, _strip(prog, True), frames, local_facts, {}, outputs, names, horizon,
                1, timestamps, _fail_first_attempt, window, sources, arrow, embedded,
            )
        if stats is not None:
            stats.update(path="driver", why="distributed=False")
        return _as_arrow(_on_driver(spark, _strip(prog, True), frames, local_facts, outputs, names, horizon, timestamps, window, sources, embedded), arrow)


def _refuse_other_arities(prog, frames) -> None:
    """An input whose argument columns are not the program's arity is
    refused by its schema, before any job: the tasks refused it only after
    the job, and an empty one was taken as no facts (CSV inputs are read by
    their reader, which says it of a row; an input without its time columns
    is named for those, where a ``Start`` would count as an argument)."""
    from chronolog.planner.validate import collect_arities

    shapes = {pred: [((None,) * len(_term_columns(df)), (0, 0, True, True))] for pred, df, csv in frames
              if not csv and {"start", "end"} <= set(_columns(df))}
    collect_arities(prog, dist.fact_rows(shapes))


def _csv_cell_error(prog, r, base_dir: Path) -> None:
    """Where the rounds refused a ``"spark csv"`` input's cells
    (spark_rounds.csv_inputs: a column SQL does not read as the embedded
    CSV reader does, or a cell that reader refuses), that reader's own
    error, naming the file, line and column, when it refuses a cell of
    the input's local files; else nothing (one task runs the program)."""
    from .spark_rounds.csv_inputs import UnreadCells

    if isinstance(r, UnreadCells) or "a CSV cell: " in r.why:
        _csv_inputs_error(prog, base_dir)


def _csv_inputs_error(prog, base_dir: Path) -> None:
    """The embedded CSV reader's error of the first ``"spark csv"`` input
    whose local files it refuses (:func:`embedded_csv_error`), if any."""
    from chronolog.connectors.bindings import binding_specs

    for b in binding_specs(prog, base_dir):
        embedded_csv_error(prog, b)


@contextmanager
def _data_errors_placed(prog, base_dir: Path, dialect: str, embedded, tables=None, given=()):
    """A run that stops on an error of its data (a cell Spark's paths
    cannot convert, on the driver or in a task) raises instead the embedded
    CSV reader's error of a ``"spark csv"`` input's local files, naming
    the file, line and column, when that reader refuses one of them; a
    comparison or a built-in that met a value it cannot take, placed at
    the row of such a file that gave the value (:func:`_placed_at_its_row`),
    or of a Spark DataFrame among ``given`` (:func:`_row_holding`)."""
    from chronolog.language.errors import ChronologError

    try:
        yield
    except Exception as e:
        if isinstance(e, Warning) or (isinstance(e, ChronologError) and not isinstance(e, DataError)):
            raise
        try:
            _csv_inputs_error(prog, base_dir)
        except DataError as err:
            raise err from None
        if isinstance(e, DataError):
            placed = _placed_at_its_row(e, prog, base_dir, dialect, embedded, tables, given)
            if placed is not e:
                raise placed from None
        raise


def _placed_at_its_row(err, prog, base_dir: Path, dialect: str, embedded, tables=None, given=()):
    """``err`` (a task's error of a comparison or a built-in, with the
    values it met: ``operands``) placed at the row of a ``spark csv`` or
    ``spark parquet`` input's local file, or of an Arrow or pandas table
    among ``tables`` (the ``inputs`` the driver holds: ``inputs['q'], row
    3``), that gave one, as the embedded path places it
    (``embedded.placed_at_origin``, the files read as the embedded CSV
    reader reads them, each up to :data:`NOTE_READ_BYTES`); else at a row
    of a Spark DataFrame among ``given`` that holds it (a job:
    :func:`_row_holding`); ``err`` itself where none did."""
    from chronolog.connectors.bindings import binding_specs

    if getattr(err, "operands", None) is None:
        return err
    binds = []
    for b in binding_specs(prog, base_dir):
        if b["kind"] != "spark" or b["output"]:
            continue
        if b["format"] == "csv" and not set(b["options"]) - {"header"}:
            spec = f"csv useHeaders={b['options'].get('header', 'true')}"
        elif b["format"] == "parquet" and not b["options"]:  # (a row of a file: no lines)
            spec = "parquet"
        else:
            continue
        for f in _local_files(b):
            if f.stat().st_size <= NOTE_READ_BYTES:
                binds.append(ast.Annotation("bind", [b["pred"], spec, str(f.parent), f.name], b["pos"]))
    if not binds and not tables and not given:
        return err
    local = ast.Program(rules=prog.rules, facts=prog.facts, annotations=[a for a in prog.annotations if a.name != "bind"] + binds,
                        source=prog.source, calendar=prog.calendar)

    def rows(pred, i, value):
        for p, df, where in given:
            if p != pred:
                continue
            try:
                found = _row_holding(df, _term_column(prog, pred, df, i), value, where)
            except Exception:  # (a source that fails now, a type we did not foresee: the task's error, at the rule, stands)
                found = None
            if found is not None:
                return found
        return None

    return embedded.placed_at_origin(err, local, dialect, base_dir, tables, rows)


def _term_column(prog, pred: str, df, i: int):
    """The column of ``df`` (an input of ``pred`` as given) that holds term
    ``i``: the columns but the times, in their order, as ``placed_times``
    and ``_time_mapped`` read them (None: ``df`` has fewer)."""
    from chronolog.connectors.bindings import time_mapping
    from chronolog.connectors.table_times import time_columns

    cols = list(df.columns)
    mapping = time_columns(time_mapping(prog, pred), cols, "the input")
    times = set(cols[k] for k in mapping[:2] if k < len(cols)) if mapping is not None else set(TIME_COLUMNS)
    terms = [c for c in cols if c not in times and c not in ("start_closed", "end_closed")]
    return terms[i] if i < len(terms) else None


def _row_holding(df, column, value, where: str):
    """(position, the row's text) of a row of the Spark DataFrame ``df``
    whose ``column`` holds the term ``value``, found by a job that stops at
    the first (a DataFrame's rows have no numbers to name, so the row is
    shown by its columns, as a null time point's is); None where the
    column's type is not one that reads as ``value``'s kind (a CSV's text
    column, a number: its text has many spellings; a column of term text
    holds each term's canonical text)."""
    import datetime
    from decimal import Decimal
    from fractions import Fraction

    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    from chronolog.engine.term_types import value_kind
    from chronolog.language.booleans import Boolean
    from chronolog.language.timeline import decimal_places

    if column is None:
        return None
    typ = df.schema[column].dataType
    held = None  # (SQL of the value where a literal of Python's would read in the session's time zone)
    if column in dist.text_columns(df.schema):  # (term text, an output read back: a term by its canonical text)
        from chronolog.language.text import format_term_text

        ok, value = isinstance(typ, T.StringType), format_term_text(value)
    else:  # the column holds the value's kind of term (engine/term_types.py's kinds: numbers of any width, instants alike)
        alike = {"int": "number", "dec": "number", "rat": "number", "date": "instant", "timestamp": "instant"}
        have, want = (spark_kind(typ) or ["other"])[0], value_kind([value])[0]
        ok = alike.get(have, have) == alike.get(want, want)
    if not ok:
        return None
    if isinstance(value, Boolean):
        value = bool(value)
    elif isinstance(value, Fraction):
        places = decimal_places(value)
        if places is None:  # (no finite decimal: no column of Spark's holds it)
            return None
        value = Decimal(value.numerator * 10 ** places // value.denominator).scaleb(-places)
    elif isinstance(value, datetime.datetime):  # (an instant of the engine's: UTC)
        if isinstance(typ, T.DateType):
            if value != datetime.datetime(value.year, value.month, value.day):
                return None
            value = value.date()
        elif isinstance(typ, T.TimestampNTZType):
            held = f"TIMESTAMP_NTZ '{value.isoformat(sep=' ')}'"
        else:
            held = f"timestamp_micros({(value - datetime.datetime(1970, 1, 1)) // datetime.timedelta(microseconds=1)})"
    row = df.where(F.col(_sql_name(column)) == (F.expr(held) if held else F.lit(value))).limit(1).collect()
    if not row:
        return None
    instants = {f.name for f in df.schema.fields if isinstance(f.dataType, T.TimestampType)}

    def cell(k, v):
        if k in instants and v is not None:  # (collect() gives the driver's local clock: the instant in UTC, as the engine names it)
            v = v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}"

    return ast.Pos(where), ", ".join(cell(k, v) for k, v in row[0].asDict().items())


def _as_arrow(out: dict, arrow: bool) -> dict:
    """``{pred: DataFrame}`` as ``{pred: pyarrow.Table}`` when ``arrow``,
    term text columns marked as ``Model.to_arrow`` marks them."""
    return {p: _arrow(df, p) for p, df in out.items()} if arrow else out


def _columns(df) -> list:
    import pyarrow as pa

    return df.schema.names if isinstance(df, (pa.Table, pa.RecordBatch)) else list(df.columns)


def _term_columns(df) -> list:
    return [c for c in _columns(df) if c not in TIME_COLUMNS]


def _key_positions(key, frames):
    """``key`` may name a column instead of a position."""
    if not key:
        return None
    out = {}
    for pred, k in key.items():
        if isinstance(k, str):
            cols = next((_term_columns(df) for p, df, _ in frames if p == pred), [])
            if k not in cols:
                raise ProgramError(f"key column {k!r} is not a column of {pred}", hint=f"columns: {', '.join(cols)}")
            k = cols.index(k)
        out[pred] = k
    return out


def _arrow(df, pred: str = "?"):
    import pyarrow as pa

    if isinstance(df, (pa.Table, pa.RecordBatch)):
        return df
    if _OUTPUT_CLASS and isinstance(df, _OUTPUT_CLASS[0]):
        return df.toArrow()  # (marked already, without Spark analysing its plan for a schema)
    if hasattr(df, "toArrow"):  # a term text column's mark: its field's metadata, which toArrow drops
        return dist.with_text_marks(df.toArrow(), df.schema)
    from chronolog.engine.arrow import pandas_table

    return pandas_table(df, pred)


def _rows_by_pred(frames, local_facts, calendar=None, sources=None, program=None) -> dict:
    from chronolog.engine.arrow import table_to_rows

    facts = {}
    for pred, df, csv in frames:
        with dist.named_source(pred, sources or {}):
            t = _arrow(df, pred)
            if csv:
                kinds = dist.csv_kinds(program, pred) if program is not None else None
                rows = dist.csv_rows(t, set(_term_columns(t)) | {"start_closed", "end_closed"}, pred, calendar, kinds)
            else:
                rows = table_to_rows(t, pred, calendar, timestamps="times")
            facts.setdefault(pred, []).extend(rows)
    for f in local_facts:
        facts.setdefault(f.pred, []).append((f.terms, f.interval))
    return dist.fact_rows(facts)


def _on_driver(spark, prog, frames, local_facts, outputs, names, horizon, timestamps, window=None, sources=None, embedded=None) -> dict:
    """The driver path: the embedded engine on the driver, each output a
    DataFrame of its Arrow table whose first ``toArrow()`` is that table,
    as Spark would return it, without a job (a DataFrame made from a table
    on the driver costs a Spark job per collection, 0.1-0.2 s each)."""
    from pyspark.sql.pandas.types import to_arrow_schema

    model = embedded.reason(prog, _rows_by_pred(frames, local_facts, prog.calendar, sources, prog), horizon=horizon)
    large = large_var_types(spark)
    tables, out = {}, {}
    served = _Tables(tables)
    for p in outputs:
        fs = dist.in_seconds(dist.output_facts(model, p, window), prog.calendar)
        table = dist.typed_table(fs, names[p], dist.kinds_of(fs, len(names[p])), timestamps, p)
        schema = dist.spark_schema(table.schema)
        typed = table.cast(to_arrow_schema(schema, timezone="UTC", prefers_large_types=large))  # (as toArrow casts)
        tables[p] = dist.with_text_marks(typed, table.schema)
        out[p] = _keyed_output(spark, partial(_arrow_jdf, spark, table), served, p)
    return out


def _arrow_jdf(spark, table):
    """The Java DataFrame of an Arrow table on the driver (:func:`arrow_frame`)."""
    return arrow_frame(spark, table)._jdf


class _Tables:
    """Output tables already on the driver, each given once to its
    DataFrame's first ``toArrow()`` (as :class:`_Answers` gives a keyed
    call's)."""

    def __init__(self, tables: dict):
        self._tables = tables

    def take(self, pred: str):
        return self._tables.pop(pred, None)


def _spark_df(spark, x, pred: str = "?"):
    import pyarrow as pa

    if isinstance(x, (pa.Table, pa.RecordBatch)):
        return arrow_frame(spark, x if isinstance(x, pa.Table) else pa.Table.from_batches([x]))
    if hasattr(x, "toArrow"):
        return x
    from chronolog.engine.arrow import pandas_table

    return arrow_frame(spark, pandas_table(x, pred))


def _refuse_names_alike(spark, frames, sources) -> None:
    """Refuse an input whose column names are one name to Spark SQL, which
    matches names without case unless ``spark.sql.caseSensitive`` is true
    (``Start`` beside the time column ``start``, ``x`` beside ``X``): the
    distributed paths read columns by name in Spark SQL, which stopped on
    an AnalysisException (AMBIGUOUS_REFERENCE); the driver reads them by
    Arrow, where they are apart."""
    import pyarrow as pa
    from chronolog.language.errors import ArgumentError

    if str(spark.conf.get("spark.sql.caseSensitive", "false")).lower() == "true":
        return
    for pred, df, _ in frames:
        cols = df.schema.names if isinstance(df, (pa.Table, pa.RecordBatch)) else list(df.columns)
        seen = {}
        for c in cols:
            other = seen.setdefault(c.lower(), c)
            if other != c:
                where = f" ({sources[pred]})" if pred in sources else ""
                raise ArgumentError(
                    f"{pred}{where}: the columns {other!r} and {c!r} are one column to Spark SQL, "
                    "which matches column names without case (spark.sql.caseSensitive is false)",
                    hint="rename one of them (df.withColumnRenamed), or set spark.sql.caseSensitive to true, "
                    "or run with distributed=False")


def _refuse_csv_names_alike(spark, df, b: dict) -> None:
    """Refuse a ``"spark csv"`` input whose header has names alike to Spark
    SQL (``Start`` beside ``start``; spark.sql.caseSensitive false), as
    :func:`_refuse_names_alike` a DataFrame's, naming them as written:
    Spark's CSV reader renames each such header cell to its name and its
    index (``Start0``, ``start2``), and the load then missed ``start``
    ("the DataFrame for owns has no 'start' column"), on the driver too.
    The header's row is read as written only where the names read look
    renamed so (a header of ``x0``, ``X1`` is read as such)."""
    from chronolog.language.errors import ArgumentError

    if str(spark.conf.get("spark.sql.caseSensitive", "false")).lower() == "true":
        return
    cols = list(df.columns)
    stems = [c[: -len(str(i))].lower() for i, c in enumerate(cols) if c.endswith(str(i)) and len(c) > len(str(i))]
    if len(stems) == len(set(stems)):
        return
    first = read_binding(spark, {**b, "options": {**b["options"], "header": "false"}}).limit(1).collect()
    written = [str(c).strip() for c in first[0]] if first else []
    seen = {}
    for i, c in enumerate(written):
        other = seen.setdefault(c.lower(), (c, i))
        if other[1] != i:
            j = other[1]
            renamed = f"; Spark's CSV reader renames them {cols[j]!r} and {cols[i]!r}" if len(cols) == len(written) else ""
            raise ArgumentError(
                f"{b['pred']} ({b['location']}): the header's columns {other[0]!r} and {c!r} are one column to Spark SQL, "
                f"which matches column names without case (spark.sql.caseSensitive is false){renamed}",
                hint="rename one of them in the header, or set spark.sql.caseSensitive to true")


def _checked_inputs(inputs) -> dict:
    """``inputs`` (``{pred: table}``) with a Polars DataFrame or LazyFrame
    as its Arrow table; any other value than a Spark DataFrame, an Arrow
    table or a pandas or Polars DataFrame refused by name (it stopped on an
    AttributeError deep in the load: "'list' object has no attribute
    'columns'")."""
    from chronolog.language.errors import ArgumentError

    if inputs is None:
        return {}
    if not isinstance(inputs, dict):
        raise ArgumentError(f"inputs: expected a dict {{predicate: table}}, not {type(inputs).__name__}",
                            hint='reason(spark, program, {"p": df}); facts as text go in the program')
    out = {}
    for pred, df in inputs.items():
        mod, name = type(df).__module__, type(df).__name__
        if mod.startswith("polars") and name in ("DataFrame", "LazyFrame"):
            df = (df.collect() if name == "LazyFrame" else df).to_arrow()
        elif not (hasattr(df, "toArrow") or (mod.startswith("pyarrow") and name in ("Table", "RecordBatch"))
                  or (mod.startswith("pandas") and name == "DataFrame")):
            raise ArgumentError(
                f"inputs[{pred!r}]: expected a Spark DataFrame, a pyarrow Table or a pandas or Polars DataFrame, "
                f"not {name}",
                hint="facts as text or rows go in the program, or in a table: "
                "pyarrow.table({'c0': [...], 'start': [...], 'end': [...]})")
        out[pred] = df
    return out


def spark_typed(table):
    """``table`` with the columns of types Spark has none for in types that
    hold the same values: unsigned integers as ``int64`` (``decimal(20,0)``
    for a ``uint64`` column beyond it), half floats as ``float64``, string
    views as strings, as the engine reads them (pyspark refused them:
    "uint8 is not supported in conversion to Arrow")."""
    import pyarrow as pa
    import pyarrow.compute as pc

    types = []
    for f in table.schema:
        t = f.type
        if pa.types.is_unsigned_integer(t):
            big = t == pa.uint64() and len(table) and (pc.max(table.column(f.name)).as_py() or 0) > 2**63 - 1
            t = pa.decimal128(20, 0) if big else pa.int64()
        elif pa.types.is_float16(t):
            t = pa.float64()
        elif t == pa.string_view():
            t = pa.string()
        types.append(t)
    if types == table.schema.types:
        return table
    return table.cast(pa.schema([f.with_type(t) for f, t in zip(table.schema, types)], metadata=table.schema.metadata))


def arrow_frame(spark, table):
    """A DataFrame of an Arrow ``table`` with a timestamp without a zone
    kept as ``TIMESTAMP_NTZ``, the wall clock read as UTC as the engine
    reads it (engine/term_types.py): Spark's own choice, ``TIMESTAMP``,
    would read it in the session's time zone and move the instant."""
    table = spark_typed(table)
    schema = dist.spark_schema(table.schema)
    return spark.createDataFrame(table, schema=schema) if table.num_rows else spark.createDataFrame([], schema)


def _key_sql(typ, col: str, csv: bool = False, kind: str = "auto") -> str:
    """The partitioning key of column ``col`` (of Spark type ``typ``), as
    Spark SQL: equal whenever the engine finds two values equal, so one
    key's facts meet in one task.

    The engine compares terms by engine/term_types.py's rule: exact
    numbers by value (``1`` = ``1.0``; a boolean is never a number: its
    key is ``true``/``false``, the key of CSV cells ``#T`` and ``true`` too), and
    dates and timestamps as instants, keyed by their UTC microseconds
    whatever the session's time zone.  Every number goes through a
    double: the conversion is correctly rounded, so equal exact values give
    equal doubles (distinct values that share a double only share a task,
    which is harmless).  CSV text (``csv``) is read as numbers by the tasks,
    so text that looks like a number gets that number's key too; any other
    text is a string to the engine, never equal to a number, and is its own
    key (``try_cast`` on every string cost more JVM time than the rest of
    the key: a failed cast is an exception per row).  Literals are doubles
    (``D``): a plain ``0.0`` in Spark SQL is a decimal.  A CSV column the
    program maps to a ``kind`` (``@mapping``) is keyed as the tasks read
    it: ``string`` by its text, ``bool`` by ``true``/``false``,
    dates by their instant; a kind whose reading SQL cannot follow
    (``time`` on a calendar) sends every row to one task (right, slower)."""
    from pyspark.sql import types as T

    from chronolog.engine.term_types import instant_micros_sql, text_instant_micros_sql
    from chronolog.language.mapping_types import BOOLEAN_TYPES, DATE_TYPES, STRING_TYPES

    from .spark_rounds.sql import hex_string

    if csv and kind != "auto" and isinstance(typ, T.StringType):
        if kind in STRING_TYPES:
            return col  # (Spark's reader trimmed a bare cell, kept a quoted one's blanks, as the CSV reader: read_binding)
        text = _trimmed(col)
        if kind in BOOLEAN_TYPES:
            return f"CASE WHEN {_csv_true(text)} THEN 'true' WHEN {_csv_true(text, False)} THEN 'false' ELSE {text} END"
        if kind in DATE_TYPES:  # text Spark SQL does not read as the CSV reader does: one task
            unread = f"raise_error(concat({hex_string(UNKEYABLE)}, {text}, ' (a date Spark SQL does not read)'))"
            return f"coalesce(CAST({text_instant_micros_sql(text)} AS STRING), {unread})"
        if kind == "time":  # (points of the program's calendar: not followed in SQL)
            return "''"
        # float and every other kind read numbers as auto does: its key below

    held = (spark_kind(typ) or ["other"])[0]  # what the column holds (engine/term_types.py)
    if held in ("date", "timestamp"):  # an instant (never equal to a number: sharing a key with one is harmless)
        return f"CAST({instant_micros_sql(col, typ.simpleString())} AS STRING)"
    if held == "bool":  # #T is not 1 (language/booleans.py)
        return f"CAST({col} AS STRING)"
    elif held in ("int", "dec", "float"):
        number = f"CAST({col} AS DOUBLE)"
    elif held == "str" and csv:
        # CSV text is a number where the CSV reader reads one
        # (language/timeline.py parse_number), else a name: the same
        # patterns, so ``1d`` or ``1e5000`` stay names (Spark's cast reads
        # both as doubles).  A fraction p/q keys as the double p / q,
        # correctly rounded when both terms are exact doubles (at most 15
        # digits), so ``2/6`` meets ``1/3`` and ``1/2`` a decimal 0.5.
        # Longer terms, and a number with characters past ASCII (digits and
        # blanks that Python's \d and strip() read, Java's do not) stop the
        # job (UNKEYABLE) and the call runs in one task
        bare = f"regexp_replace({col}, '\\\\s', '')"

        def stop(why):
            return f"raise_error(concat({hex_string(UNKEYABLE)}, {bare}, {hex_string(' (' + why + ')')}))"

        fraction = (f"CASE WHEN {col} RLIKE '{_FRACTION}' THEN try_divide(try_cast(split_part({bare}, '/', 1) AS DOUBLE), "
                    f"try_cast(split_part({bare}, '/', 2) AS DOUBLE)) "
                    f"WHEN {col} RLIKE '{_LONG_FRACTION}' THEN {stop('a fraction with a term past 15 digits or characters past ASCII')} END")
        # (a name fails the first test, at its first letter: one pattern per name)
        number = (f"CASE WHEN {col} RLIKE '{_NUMBERISH}' THEN CASE WHEN instr({col}, '/') > 0 THEN {fraction} "
                   f"WHEN {col} RLIKE '{_NUMBER}' AND (length({col}) <= {MAX_DIGITS} OR length({bare}) <= {MAX_DIGITS}) "
                   f"THEN try_cast({col} AS DOUBLE) "
                   f"WHEN {col} RLIKE '{_PAST_ASCII}' THEN {stop('a number with characters past ASCII')} END END")
        # a name is its text (Spark's reader trimmed a bare cell's blanks, as
        # the CSV reader does: read_binding); #T and #F are booleans, keyed
        # as a boolean column is, with blanks around them in a quoted cell
        boolean = f"CASE {_trimmed(col)} WHEN '#T' THEN 'true' WHEN '#F' THEN 'false' ELSE {col} END"
        return f"coalesce(CAST(({number}) + 0.0D AS STRING), CASE WHEN instr({col}, '#') > 0 THEN {boolean} ELSE {col} END)"
    else:
        return f"CAST({col} AS STRING)"
    # + 0.0 makes -0.0 the same key as 0.0
    return f"coalesce(CAST(({number}) + 0.0D AS STRING), CAST({col} AS STRING))"


_FRACTION = "^\\\\s*[-+]?0*\\\\d{1,15}\\\\s*/\\\\s*0*\\\\d{1,15}\\\\s*$"
# parse_number's decimals and exponents (at most 1000 either way)
_NUMBER = "^\\\\s*[-+]?(\\\\d+(\\\\.\\\\d*)?|\\\\.\\\\d+)([eE][-+]?0*(\\\\d{1,3}|1000))?\\\\s*$"
_PAST_ASCII = "[^\\\\x00-\\\\x1b\\\\x20-\\\\x7f]"  # (\\x1c-\\x1f: blanks to Python, not to Java's \\s)
# Python's blanks (str.isspace: what str.strip() removes, as the CSV reader
# does) are Java's Unicode \s (the (?U) flag) and the four separators \x1c-\x1f
_BLANK = "[\\\\s\\\\x1c-\\\\x1f]"
_LONG_FRACTION = f"(?U)^{_BLANK}*[-+]?\\\\d+{_BLANK}*/{_BLANK}*\\\\d+{_BLANK}*$"
_NUMBERISH = f"(?U)^{_BLANK}*[-+]?(\\\\d|\\\\.\\\\d)"


def spark_kind(typ):
    """The kind (engine/term_types.py) of a column of Spark type ``typ``,
    through its Arrow type; None for a type that holds no terms."""
    from pyspark.sql.pandas.types import to_arrow_type

    from chronolog.engine.term_types import type_kind

    try:
        return type_kind(to_arrow_type(typ, timezone="UTC"))
    except Exception:  # (intervals, variants, ...: pyspark has no Arrow type for them)
        return None


def _trimmed(col: str) -> str:
    """SQL: CSV text without the blanks around it, as the CSV reader
    strips a cell it reads as a number or a boolean."""
    return f"regexp_replace({col}, '(?U)^{_BLANK}+|{_BLANK}+$', '')"


UNKEYABLE = "chronolog has no exact key for the CSV cell "  # raise_error's text, found again in Spark's exception


def _csv_true(text: str, truth: bool = True) -> str:
    """SQL: whether CSV text spells true (or false), as the CSV reader
    reads a boolean (csv_files._TRUE/_FALSE)."""
    from chronolog.connectors.csv_files import _FALSE, _TRUE

    return f"lower({text}) IN ({', '.join(repr(v) for v in sorted(_TRUE if truth else _FALSE))})"


def large_var_types(spark) -> bool:
    """Whether the session's ``toArrow()`` writes large strings and binaries."""
    return str(spark.conf.get("spark.sql.execution.arrow.useLargeVarTypes", "false")).lower() == "true"


def _sql_name(name: str) -> str:
    """``name`` as a quoted Spark SQL identifier."""
    return "`" + name.replace("`", "``") + "`"


def _wide_input(spark, prog, frames, local_facts, keys):
    """Every input predicate (and the program's facts) in one DataFrame for
    the tasks, and the SQL of each row's partitioning key.

    Columns are shared between predicates by type: a predicate's ``n``-th
    column of a Spark type goes to that type's ``n``-th slot ``_v<k>``
    (``__in`` says whose row it is, ``_sc``/``_ec`` hold the closedness),
    so a row carries its own columns and few nulls, and the shuffle and the
    Arrow batches to the tasks stay narrow (one set of columns per predicate
    made each row carry every other predicate's columns as nulls).  The key
    is an expression Spark hashes while it shuffles, not a column that
    travels.  Returns ``(wide, key SQL, [(pred, terms, {column: slot},
    term text columns)], CSV-read predicates)``; ``wide`` is None without any input."""
    from chronolog.engine.arrow import facts_to_arrow

    local = {}
    for f in local_facts:  # the program's facts and file bindings travel keyed too
        local.setdefault(f.pred, []).append((f.terms, f.interval))
    items = [(p, _spark_df(spark, df, p), csv) for p, df, csv in frames]
    held = {}  # pred -> its program facts, for the inputs that carry row numbers into them
    for p, rows in local.items():
        table = facts_to_arrow(rows, [f"c{i}" for i in range(len(rows[0][0]))], prog.calendar)
        if _reads_back(table, rows):
            items.append((p, arrow_frame(spark, table), False))
            continue
        held[p] = rows
        items += [(p, arrow_frame(spark, t), HELD) for t in _held_tables(rows, keys.get(p))]
    slots = {}  # (type, n-th of that type in a predicate) -> slot column
    parts, inputs, key_cases, csv_preds = [], [], [], {}  # csv_preds: pred -> its @mapping kinds
    unkeyed = False
    texts = []  # per keyed input: (input, key slot, key column of term text, CSV)
    strings = _JavaStrings(spark)
    for i, (pred, df, csv) in enumerate(items):
        schema = df.schema  # one round trip for names, types and marks
        types = {f.name: f.dataType for f in schema.fields}
        if csv is HELD:
            exprs, where = _slotted(i, list(types), types, slots)
            parts.append(_select(df, exprs, strings))
            if "_k" in types:
                key_cases.append(f"WHEN {i} THEN {_key_sql(types['_k'], where['_k'])}")
            inputs.append((pred, None, where, []))
            continue
        terms = [c for c in types if c not in TIME_COLUMNS]
        for needed in ("start", "end"):
            if needed not in types:
                from chronolog.engine.arrow import missing_time_column

                raise missing_time_column(list(types), needed, f"the DataFrame for {pred}")
        if csv:
            csv_preds[pred] = dist.csv_kinds(prog, pred)
        # SQL text, not Columns built in Python: each of those costs a
        # dozen py4j round trips, and the driver's chatter is serial time
        exprs, where = _slotted(i, terms + ["start", "end"], types, slots)
        for c, slot in (("start_closed", "_sc"), ("end_closed", "_ec")):
            if c not in types:
                src = "true"
            elif csv:
                src = _csv_true(_trimmed(_sql_name(c)))
            else:
                src = f"CAST({_sql_name(c)} AS BOOLEAN)"
            exprs.append(f"{src} AS {slot}")
            where[c] = slot
        parts.append(_select(df, exprs, strings))
        text = [] if csv else dist.text_columns(schema)  # term text (an output read back): parsed in the task
        k = keys.get(pred)
        if k is not None and k < len(terms):
            kind = csv_preds[pred].get(k, "auto") if csv else "auto"
            key_cases.append(f"WHEN {i} THEN {_key_sql(types[terms[k]], where[terms[k]], csv, kind)}")
            texts.append((i, where[terms[k]], terms[k] in text, bool(csv)))
        inputs.append((pred, terms, where, text))
    if not parts:
        return None, None, inputs, csv_preds, held
    wide = reduce(lambda a, b: a.unionByName(b, allowMissingColumns=True), parts)
    if any(t for _, _, t, _ in texts):  # a key column of term text: no SQL key follows its equality (1 = float(1.0))
        from .spark_rounds.udfs import key_text_sql

        # every key its term's key text (term_types.key_text, an Arrow UDF over the input: equal terms share
        # it); CSV cells and the program's held facts (their _k a double past 38 digits) have none: one task
        unkeyed = len(texts) < len(key_cases) or any(csv for *_, csv in texts)
        key_cases = [f"WHEN {i} THEN {key_text_sql(spark, col, is_text)}" for i, col, is_text, _ in texts]
    key = f"coalesce(CASE __in {' '.join(key_cases)} END, '')" if key_cases and not unkeyed else "''"
    return wide, key, inputs, csv_preds, held


def _slotted(i: int, cols, types: dict, slots: dict):
    """Input ``i``'s columns ``cols`` put in the wide table's slots: the
    ``n``-th column of a Spark type goes to that type's ``n``-th slot
    (``slots``: ``(type, n) -> slot``, grown as new ones are needed).
    Returns the SELECT's expressions (``__in`` first) and ``{column: slot}``."""
    exprs, where, seen = [f"{i} AS __in"], {}, {}
    for c in cols:
        t = types[c].simpleString()
        seen[t] = seen.get(t, -1) + 1
        where[c] = slots.setdefault((t, seen[t]), f"_v{len(slots)}")
        exprs.append(f"{_sql_name(c)} AS {where[c]}")
    return exprs, where


HELD = "held"  # an input of row numbers into the program's facts (_held_tables)


def _reads_back(table, rows) -> bool:
    """Whether a task reads the program's facts of one predicate back from
    their Arrow ``table`` as the same terms.  Not so where ``facts_to_arrow``
    wrote a column of other values as text (``1`` beside ``a``, ``1/3``,
    past 38 digits: a task reads them as strings, so ``X == 1`` found nothing);
    instants travel held too (pickled, no Spark type between)."""
    import pyarrow as pa

    for i, col in enumerate(table.columns[: len(rows[0][0])]):
        typ = col.type
        if pa.types.is_string(typ) and any(type(t[i]) is not str for t, _ in rows):
            return False
        if pa.types.is_date(typ) or pa.types.is_timestamp(typ):
            return False
    return True


def _held_tables(rows, key):
    """Arrow tables of row numbers (``_pf``) into ``rows``, the program's
    facts of one predicate that no Arrow column types exactly: the facts
    themselves travel with the job, pickled, so each task gets the
    engine's own values (rewriting the terms as text for the tasks to
    parse again would be a second reader of our own to keep exact).  With
    a ``key`` argument, one table per Python type of its values, the key
    beside the row number in the column ``facts_to_arrow`` gives that type
    (``_k``), so the key's SQL is the one every other input of that type
    gets and equal values meet in one task."""
    from fractions import Fraction

    import pyarrow as pa

    from chronolog.engine.arrow import _column
    from chronolog.language.booleans import Boolean

    if key is None or key >= len(rows[0][0]):
        return [pa.table({"_pf": pa.array(range(len(rows)), pa.int64())})]
    groups = {}
    for n, (terms, _) in enumerate(rows):
        v = terms[key]
        groups.setdefault(bool if type(v) is Boolean else type(v), []).append(n)
    out = []
    for typ, ns in groups.items():
        values = [rows[n][0][key] for n in ns]
        k = _column(values)
        if (typ is int or issubclass(typ, Fraction)) and pa.types.is_string(k.type):
            # past 38 digits, or a fraction with no decimal: keyed by its
            # correctly rounded double, as CSV text is (_key_sql)
            k = pa.array([_double(v) for v in values], pa.float64())
        out.append(pa.table({"_pf": pa.array(ns, pa.int64()), "_k": k}))
    return out


def _double(v) -> float:
    """The double nearest the exact number ``v``; past the largest one,
    an infinity, as Spark's cast of the number's text gives."""
    try:
        return float(v)
    except OverflowError:
        return float("inf") if v > 0 else float("-inf")


def _distributed(spark, prog, frames, local_facts, keys, outputs, names, horizon, partitions, timestamps, fail_first, window=None, sources=None, arrow=False, embedded=None) -> dict:
    import pyspark.sql.functions as F

    from chronolog.engine.runaway import MAX_ROUNDS

    wide, key, job_inputs, csv_preds, held = _wide_input(spark, prog, frames, local_facts, keys)
    job = {
        "program": prog,
        "horizon": horizon,
        "inputs": job_inputs,
        "held": held,  # pred -> the program's facts that travel with the job (_held_tables)
        "outputs": [(p, names[p]) for p in outputs],
        "csv": csv_preds,  # pred -> the @mapping kinds of its CSV columns
        "fail_first": fail_first,
        "max_rounds": MAX_ROUNDS.get(),  # the caller's round_limit (--max-rounds), which a task's context lacks
        "window": window,
        "calendar": prog.calendar,
        "timestamps": timestamps,
        "sources": sources or {},
    }
    sc = spark.sparkContext
    n = partitions or sc.defaultParallelism
    job["partitions"] = n
    if not arrow:  # small answers also come to the driver in the one job (_Answers)
        job["send"] = ANSWER_BYTES // n
    if wide is None:
        return _as_arrow(_on_driver(spark, prog, [], [], outputs, names, horizon, timestamps, window, embedded=embedded), arrow)
    # the tasks emit their facts already typed (in lanes, distributed.lanes_ddl)
    # and report each column's kind and any error through an accumulator, so
    # one stage reasons and materializes: no signature pass, no conversion job.
    # localCheckpoint keeps it outside Spark's cache (whose plan matching
    # would serve a later call with the same inputs from this one's result)
    report = sc.accumulator(dist.TaskReport.empty(), dist.TaskReport())
    task = dist.make_task(job, report, embedded.reason)
    arity = max((len(names[p]) for p in outputs), default=0)
    reasoned = wide.repartition(n, F.expr(key)).mapInArrow(task, dist.lanes_ddl(arity))
    with _session_conf(spark, ONE_JOB_CONF):  # the shuffle and the reasoning: one job
        # arrow: the lanes come to the driver in that job and are typed
        # there; otherwise they stay in the executors for the DataFrames
        lanes = reasoned.toArrow() if arrow else reasoned.localCheckpoint(eager=True)
    got = report.value
    _forget(report)
    if got["errors"]:
        # the first task's error, or, where tasks failed on bindings, the
        # least binding in term order of all of them: the engine's choice
        # (engine/rows/linear.py), whatever partitions the rows fell in
        first = min(got["errors"])
        ordered = [(pickle.loads(e[-1]), e) for e in got["errors"] if e[-1]]
        try:
            first = min(ordered, key=lambda x: x[0])[1] if ordered else first
        except TypeError:  # (bindings of two rules' literals whose terms do not compare: the first task's)
            pass
        _, kind, message, pos, hint, operands, _ = first
        where = ast.Pos(*pos) if pos else None
        if kind == "InconsistencyError":
            raise InconsistencyError(f"in a Spark task: {message}", where)
        err = (ProgramError if kind == "ProgramError" else DataError)(f"in a Spark task: {message}", where, hint=hint)
        if operands:  # (_data_errors_placed names the row of a local file that gave a value)
            err.operands = pickle.loads(operands)
        raise err
    if arrow:
        return _typed_tables(spark, lanes, outputs, names, got["kinds"], timestamps)
    parts = got["parts"]
    answers = None
    if len(parts) == n and all(b is not None for b in parts.values()):
        answers = _Answers(spark, [parts[i] for i in sorted(parts)], outputs, names, got["kinds"], timestamps, arity)
    out = {}
    strings = _JavaStrings(spark)
    for i, p in enumerate(outputs):
        kinds = got["kinds"].get(p, [["empty"]] * (len(names[p]) + 2))
        cols = [f"{e} AS {_sql_name(c)}" for e, c in dist.output_exprs(names[p], kinds, timestamps)]
        marks = [(n, dist.text_marker(k)) for n, k in zip(names[p], kinds) if dist.text_marker(k)]
        out[p] = _keyed_output(spark, partial(_output_frame, lanes, i, cols, strings, marks), answers, p)
    return out


def _output_frame(lanes, index: int, cols, strings, marks=()):
    """Output ``index``'s Java DataFrame over the checkpointed lanes, its
    term text columns (``marks``: ``(name, mark)``) marked."""
    df = _select(lanes.filter(f"__out = {index}"), cols, strings)
    for n, mark in marks:
        df = marked(df, [n], mark)
    return df._jdf


# What the tasks of a keyed call that returns DataFrames may send to the
# driver beside the checkpoint, in all (each task its share): when every
# task's answers fit, a caller who collects the outputs (``toArrow``) gets
# them with no job of their own.  Beyond it (a skewed or a large output)
# each ``toArrow`` reads the checkpoint in a job, as any DataFrame.
ANSWER_BYTES = 32 << 20


def _forget(accumulator) -> None:
    """Drop a finished call's accumulator from pyspark's registry of every
    accumulator the driver ever made, which would keep its value (the
    answers the tasks sent) for the session's life."""
    from pyspark.accumulators import _accumulatorRegistry

    _accumulatorRegistry.pop(accumulator.aid, None)


class _Answers:
    """A keyed call's answers that came to the driver in its one job (the
    lanes of every partition, as Arrow IPC bytes), typed into an output's
    table when its DataFrame is first collected, and then forgotten: the
    driver holds at most what the tasks sent (``ANSWER_BYTES``), only
    until each output has been taken or the DataFrames are gone."""

    def __init__(self, spark, parts, outputs, names, kinds, timestamps, arity):
        import threading

        self._spark, self._parts, self._outputs = spark, parts, list(outputs)
        self._names, self._kinds, self._timestamps, self._arity = names, kinds, timestamps, arity
        self._lanes, self._left, self._lock = None, set(outputs), threading.Lock()

    def take(self, pred: str):
        """``pred``'s table (the one ``toArrow`` of its DataFrame gives), once."""
        with self._lock:
            if pred not in self._left:
                return None
            if self._lanes is None:
                self._lanes = dist.ipc_table(self._parts, self._arity)
                self._parts = None
            self._left.discard(pred)
            lanes = self._lanes
            if not self._left:
                self._lanes = None
        i = self._outputs.index(pred)
        return _typed_tables(self._spark, lanes, [pred], self._names, self._kinds, self._timestamps, index=i)[pred]


_OUTPUT_CLASS: list = []


def _keyed_output(spark, make, answers, pred: str):
    """A DataFrame of output ``pred`` whose first ``toArrow()`` is its table
    from ``answers`` (no Spark job, when there are answers); every other
    use, and a later ``toArrow()``, is Spark's.  Its Java DataFrame (a
    filter and a projection of the checkpoint, each analyzed by Spark when
    made) is made by ``make`` on first use, so a caller who only collects
    the outputs never pays those analyses."""
    if not _OUTPUT_CLASS:
        from pyspark.sql.classic.dataframe import DataFrame

        class KeyedOutput(DataFrame):
            """An output DataFrame of the keyed call or the driver path (see :func:`_keyed_output`)."""

            @property
            def _jdf(self):
                d = self.__dict__  # (never getattr: DataFrame.__getattr__ reads columns through _jdf)
                if d.get("_chronolog_jdf") is None:
                    d["_chronolog_jdf"] = d.pop("_chronolog_make")()
                return d["_chronolog_jdf"]

            @_jdf.setter
            def _jdf(self, jdf):
                self.__dict__["_chronolog_jdf"] = jdf

            def toArrow(self):
                """The table, its term text columns marked as ``Model.to_arrow`` marks them."""
                answers = self.__dict__.get("_chronolog_answers")
                table = answers.take(self.__dict__["_chronolog_pred"]) if answers is not None else None
                return table if table is not None else dist.with_text_marks(DataFrame.toArrow(self), self.schema)

        _OUTPUT_CLASS.append(KeyedOutput)
    out = _OUTPUT_CLASS[0](None, spark)
    out.__dict__.update(_chronolog_make=make, _chronolog_answers=answers, _chronolog_pred=pred)
    return out


def _typed_tables(spark, lanes, outputs, names, kinds, timestamps, index: int = 0) -> dict:
    """The tasks' lanes collected on the driver as one typed table per
    output predicate: the tables ``toArrow`` of the keyed DataFrames gives
    (their schema too: Spark's Arrow schema for the same Spark types).
    ``index``: the call's number of ``outputs[0]`` (the lanes' ``__out``)."""
    from pyspark.sql.pandas.types import to_arrow_schema

    large = large_var_types(spark)
    out = {}
    for i, p in enumerate(outputs, index):
        ks = kinds.get(p, [["empty"]] * (len(names[p]) + 2))
        spark_types = dist.spark_schema(dist.schema_for(names[p], ks, timestamps))
        schema = to_arrow_schema(spark_types, timezone="UTC", prefers_large_types=large)
        out[p] = dist.with_text_marks(dist.lanes_table(lanes, i, names[p], ks, timestamps, schema), spark_types)
    return out


# Spark settings while the keyed call's one action runs (restored after).
# Adaptive execution off: with it the shuffle's map stage is submitted as a
# job of its own and the rest of the plan is optimized and planned again on
# the driver once it ends; without it the shuffle and the reasoning stage
# are one job.  The partitions are fixed by the call (``partitions``), so
# there is nothing for it to coalesce.  No byte limit on the Arrow batches
# sent to the tasks' Python workers (Int.MaxValue turns the check off;
# ``maxRecordsPerBatch``, 10,000 rows, still bounds them): Spark measures
# the batch after every row it writes, and on 500k sensor readings that
# was 27% of the executor threads' samples (JFR) and 0.27 s of their
# 0.77 s CPU per call.
ONE_JOB_CONF = {"spark.sql.adaptive.enabled": "false", "spark.sql.execution.arrow.maxBytesPerBatch": str(2**31 - 1)}


@contextmanager
def _session_conf(spark, settings: dict, unset_after=()):
    """``settings`` on ``spark``'s session conf meanwhile, then restored
    (unset again where the session had no value of its own, and for the
    keys ``unset_after``: the caller knows the value read is Spark's default)."""
    conf = spark.conf
    saved = {k: None if k in unset_after else conf.get(k, None) for k in settings}
    for k, v in settings.items():
        conf.set(k, v)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                conf.unset(k)
            else:
                conf.set(k, v)


class _JavaStrings:
    """Python lists of strings as Java ``String[]`` in one py4j round trip
    each (Jackson reads them from JSON in the JVM).  py4j converts a list
    element by element, a round trip per string, and a keyed call passes a
    few dozen SQL expressions: the driver's chatter is serial time.  The
    reader is made once per JVM (finding a Java class by name is a round
    trip per dot of its name)."""

    _readers: dict = {}  # id(py4j gateway) -> (gateway, ObjectMapper, String[].class)

    def __init__(self, spark):
        sc = spark.sparkContext
        got = self._readers.get(id(sc._gateway))
        if got is None or got[0] is not sc._gateway:
            jvm = sc._jvm
            got = (sc._gateway, jvm.com.fasterxml.jackson.databind.ObjectMapper(), jvm.java.lang.Class.forName("[Ljava.lang.String;"))
            self._readers[id(sc._gateway)] = got
        _, self._mapper, self._cls = got

    def __call__(self, strings):
        import json

        return self._mapper.readValue(json.dumps(list(strings)), self._cls)


def marked(df, names, mark: str = "mixed"):
    """``df`` with its columns ``names`` marked as term text in their
    fields' metadata (distributed.text_columns), so they read back as the
    terms they spell."""
    for n in names:
        df = df.withMetadata(n, {dist.KIND_KEY: mark})
    return df


def _select(df, exprs, strings: _JavaStrings):
    """``df.selectExpr(*exprs)`` with the expressions passed in one round trip."""
    from pyspark.sql import DataFrame

    return DataFrame(df._jdf.selectExpr(strings(exprs)), df.sparkSession)


# ------------------------------------------------------------ command line


def run_program_with(spark, program_path: Path, *, embedded, horizon=None, dialect="vadalog", distributed=False, overwrite=False, window=None, stats=None,
                     written_out=None):
    """What ``chronolog run --spark`` does: read the bindings, reason, write
    the output bindings (all checked for existence first, so a refused run
    writes nothing); returns ``{pred: DataFrame}`` of the unbound outputs
    (``stats``: as :func:`reason_with`'s; ``written_out``: a dict that gets the
    DataFrames of the bound outputs, for ``--plot``; ``embedded``: as
    :func:`reason_with`'s)."""
    from chronolog.connectors.bindings import binding_specs
    from chronolog.language.programs import read_program

    prog = read_program(program_path, dialect)
    specs = [b for b in binding_specs(prog, program_path.parent) if b["output"]]
    for b in specs:
        if b["kind"] == "spark":
            check_writable(spark, b, overwrite)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DriverFallback)
        out = reason_with(spark, prog, embedded=embedded, horizon=horizon, distributed=distributed, base_dir=program_path.parent, window=window, stats=stats)
    for w in caught:
        print(str(w.message), file=sys.stderr)
    from chronolog.connectors.staging import Staging

    bound = set()
    with Staging() as staging:  # every output or none (connectors/staging.py)
        for b in specs:
            if b["kind"] == "spark":
                if stageable(b):
                    write_binding(out[b["pred"]], b, overwrite, staging)
            else:
                from chronolog.engine.arrow import table_to_rows
                from chronolog.connectors.bindings import FILE_KINDS
                from chronolog.connectors.files import write_facts

                df = out[b["pred"]]
                rows = table_to_rows(df.toArrow(), b["pred"], timestamps="times")
                write_facts(b["location"], rows, _term_columns(df), b["pred"], FILE_KINDS.get(b["kind"], b["kind"]), overwrite, staging=staging)
            bound.add(b["pred"])
        staging.publish()
    for b in specs:  # tables and remote paths: written by Spark's own committer, last
        if b["kind"] == "spark" and not stageable(b):
            write_binding(out[b["pred"]], b, overwrite)
    if written_out is not None:
        written_out.update({p: out[p] for p in bound})
    return {p: df for p, df in out.items() if p not in bound}


MOVED_UP = ("reason", "run_program")  # to chronolog.spark, above the API


def __getattr__(name):
    """A clear sentence for the entry points that moved up to :mod:`chronolog.spark`."""
    if name in MOVED_UP:
        raise AttributeError(
            f"chronolog.connectors.spark.{name} is now chronolog.spark.{name}: "
            "write `from chronolog import spark as cs` (session, register and the rest are there too)"
        )
    raise AttributeError(f"module 'chronolog.connectors.spark' has no attribute {name!r}")
