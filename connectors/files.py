"""Fact files in the Arrow layout: Parquet, Arrow IPC, CSV and fact text.

The format follows the file name (``.parquet``/``.pq``, ``.arrow``/
``.ipc``/``.feather``, ``.csv``, ``.facts``/``.txt`` for fact text) unless
given; a CSV or fact file may be compressed (``.csv.gz``:
language/compressed.py).  Parquet and IPC files hold one predicate in the layout of
:mod:`chronolog.engine.arrow`, read and written by pyarrow without
per-row Python work; values keep their exact types (int64, decimal128,
strings, timestamps).  Writes are atomic — a temporary file in the target
directory, renamed when complete — and never replace an existing file
unless ``overwrite``.
"""

from __future__ import annotations

from pathlib import Path

from chronolog.language.compressed import inner_name, kind_of_name, open_csv_text
from chronolog.language.errors import DataError
from .paths import exists

FORMATS = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".arrow": "ipc",
    ".ipc": "ipc",
    ".feather": "ipc",
    ".csv": "csv",
    ".facts": "facts",
    ".txt": "facts",
    ".jsonl": "json",
    ".ndjson": "json",
    ".json": "json",  # (JSON Lines, or one JSON array of objects: json_lines.py)
}
_ALIASES = {"parquet": "parquet", "arrow": "ipc", "ipc": "ipc", "feather": "ipc", "csv": "csv", "facts": "facts", "text": "facts",
            "json": "json", "jsonl": "json", "ndjson": "json"}


def format_of(path, fmt=None) -> str:
    if fmt is not None:
        if fmt.lower() not in _ALIASES:
            raise DataError(f"unknown file format {fmt!r}", hint="use parquet, arrow (IPC), csv, json (JSON Lines) or facts")
        return _ALIASES[fmt.lower()]
    kind = FORMATS.get(Path(inner_name(path)).suffix.lower())
    if kind in ("parquet", "ipc") and kind_of_name(path):
        raise DataError(f"{path}: a {'Parquet' if kind == 'parquet' else 'Arrow'} file is not compressed as a whole",
                        hint=f"drop the {Path(path).suffix} (its columns are compressed inside it)")
    if kind is None:
        raise DataError(
            f"cannot tell the format of {path} from its name",
            hint="name it .parquet, .arrow, .csv, .jsonl or .facts, or give the format",
        )
    return kind


def read_table(path, fmt=None):
    """A ``pyarrow.Table`` from a Parquet or Arrow IPC file (file or stream
    form) or a JSON Lines file (connectors/json_lines.py)."""
    import pyarrow as pa

    path = Path(path)
    kind = format_of(path, fmt)
    if not exists(path, "the file"):
        raise DataError(f"the file {path} does not exist", hint="check the path (relative paths start at the current directory)")
    if kind == "json":
        from chronolog.connectors.json_lines import read_json_table

        return read_json_table(path)
    try:
        if kind == "parquet":
            import pyarrow.parquet as pq

            return pq.read_table(path)
        if kind == "ipc":
            try:
                with pa.memory_map(str(path)) as src:
                    return pa.ipc.open_file(src).read_all()
            except pa.ArrowInvalid:
                with pa.OSFile(str(path)) as src:
                    return pa.ipc.open_stream(src).read_all()
    except (pa.ArrowInvalid, OSError) as e:
        raise DataError(f"cannot read {path} as {kind}: {e}") from None
    raise DataError(f"{path}: {kind} files are read as facts, not as one table", hint="use read_facts")


def read_facts(path, pred: str, fmt=None, program=None) -> list:
    """``(terms, interval)`` rows of ``pred`` from a file of any format."""
    path = Path(path)
    kind = format_of(path, fmt)
    if kind == "json" and not (program is not None and _maps_columns(program, pred)) and _of_fact_records(path):
        from chronolog.connectors import fact_json
        from chronolog.language.facts import refuse_repeating

        rows = fact_json.read(path, getattr(program, "calendar", None))  # (as run --format json prints them)
        refuse_repeating(rows, "a table of rows")
        return list(rows.get(pred, []))
    if kind in ("parquet", "ipc", "json"):
        if program is not None:
            from chronolog.connectors.bindings import bound_table

            table = bound_table(program, pred, path, kind)  # (@timeMapping: the times by position)
        else:
            table = read_table(path, kind)
        return table_facts(table, pred, path, getattr(program, "calendar", None))
    if kind == "csv":
        from chronolog.connectors.bindings import mappings, time_mapping
        from chronolog.connectors.csv_files import read_csv_facts

        m = mappings(program, pred) if program is not None else {}
        tm = time_mapping(program, pred) if program is not None else None
        if not exists(path, "the file"):
            raise DataError(f"the file {path} does not exist", hint="check the path (relative paths start at the current directory)")
        if not m and tm is None and _of_many_predicates(path):  # (as run --format csv prints one)
            from chronolog.connectors import fact_csv
            from chronolog.language.facts import refuse_repeating

            rows = fact_csv.read(path, getattr(program, "calendar", None))
            refuse_repeating(rows, "a table of rows")
            return list(rows.get(pred, []))
        return [(f.terms, f.interval) for f in read_csv_facts(path, pred, None, {}, m, tm)]
    from chronolog.language.facts import read_fact_rows, refuse_repeating

    from chronolog.language.source_text import read_text

    rows = read_fact_rows(read_text(path, "facts file").splitlines(), str(path), getattr(program, "calendar", None))
    refuse_repeating(rows, "a table of rows")
    return list(rows.get(pred, []))


def table_facts(table, pred: str, path, calendar=None) -> list:
    """``(terms, interval)`` rows of ``pred`` from the table of the file
    ``path`` (its times placed), an error without a place placed at the file."""
    from chronolog.engine.arrow import table_to_rows

    try:
        return table_to_rows(table, pred, calendar, timestamps="times")  # date arguments stay dates
    except DataError as e:
        if e.pos is not None:
            raise
        from chronolog.language.ast import Pos

        raise DataError(e.message, Pos(str(path)), hint=e.hint) from None


def _maps_columns(program, pred: str) -> bool:
    """Whether ``program`` maps ``pred``'s columns (``@mapping``,
    ``@timeMapping``): its file is then a table of ``pred``."""
    from chronolog.connectors.bindings import mappings, time_mapping

    return bool(mappings(program, pred)) or time_mapping(program, pred) is not None


def _of_fact_records(path) -> bool:
    """Whether a JSON Lines file holds the records of facts ``run --format
    json`` prints (its first record has ``pred`` and ``terms`` or
    ``text``: connectors/fact_json.py), not a table of one predicate."""
    import json

    from .json_lines import first_element_keys, is_array_file

    try:
        if is_array_file(path):
            rec = dict.fromkeys(first_element_keys(path))
        else:
            with open_csv_text(path) as fh:
                first = next((line for line in fh if line.strip()), "")
            rec = json.loads(first)
    except (DataError, ValueError, OSError):
        return False  # (the table's reader says what is wrong)
    return isinstance(rec, dict) and "pred" in rec and ("terms" in rec or "text" in rec)


def _of_many_predicates(path) -> bool:
    """Whether a CSV file is one of many predicates: its header's first
    column is ``pred`` and it has ``start`` and ``end`` (connectors/fact_csv.py)."""
    import csv

    try:
        with open_csv_text(path) as fh:
            header = next((row for row in csv.reader(fh) if any(c.strip() for c in row)), [])
    except DataError:
        return False  # (a damaged compressed file: the reader says so)
    names = [h.strip() for h in header]
    return names[:1] == ["pred"] and "start" in names and "end" in names


def read_fact_file(path, pred: str, program=None) -> list:
    """The facts of ``pred`` in a fact file (one per line) as ``ast.Fact``s,
    facts that repeat forever (``every``) included."""
    from chronolog.language import ast
    from chronolog.language.facts import read_fact_rows

    from chronolog.language.source_text import read_text

    rows = read_fact_rows(read_text(path, "facts file").splitlines(), str(path), getattr(program, "calendar", None))
    pos = ast.Pos(str(path), 0, 0)
    out = [ast.Fact(pred, t, iv, pos) for t, iv in rows.get(pred, [])]
    out += [ast.Fact(pred, t, iv, p, every) for t, iv, every, p in rows.repeating.get(pred, [])]
    return out


def atomic_write(path, write, overwrite: bool = False, staging=None) -> None:
    """Call ``write(tmp_path)`` and rename the result to ``path``; a failure
    leaves nothing behind, an existing ``path`` is kept unless ``overwrite``.
    With a :class:`~chronolog.connectors.staging.Staging`, the rename waits
    for its ``publish`` (all outputs of a run together)."""
    from chronolog.connectors.staging import Staging

    if staging is not None:
        return staging.stage(path, write, overwrite)
    with Staging() as one:
        one.stage(path, write, overwrite)
        one.publish()


def write_table(table, path, fmt=None, overwrite: bool = False, staging=None) -> None:
    """Write a ``pyarrow.Table`` as Parquet or Arrow IPC (file form), atomically."""
    import pyarrow as pa

    kind = format_of(path, fmt)

    def write(tmp):
        if kind == "parquet":
            import pyarrow.parquet as pq

            pq.write_table(table, tmp)
        elif kind == "ipc":
            with pa.OSFile(tmp, "wb") as sink, pa.ipc.new_file(sink, table.schema) as w:
                w.write_table(table)
        else:
            raise DataError(f"write_table writes parquet or arrow files, not {kind}")

    atomic_write(path, write, overwrite, staging)


def floats_as_declared(table, floats):
    """``table`` with the columns ``floats`` (``@mapping``'d ``"float"``)
    as float64, as declared: exact numbers (1, 2.5) otherwise type such a
    column int64 or decimal128 by its values."""
    import pyarrow as pa

    for name in floats:
        i = table.schema.get_field_index(name)
        if i >= 0 and table.schema.field(i).type != pa.float64() and (
                pa.types.is_integer(table.schema.field(i).type) or pa.types.is_decimal(table.schema.field(i).type)):
            table = table.set_column(i, name, table.column(i).cast(pa.float64(), safe=False))
    return table


def write_facts(path, facts, names, pred: str = "?", fmt=None, overwrite: bool = False, timestamps: bool = False, staging=None, calendar=None,
                read_back=None, floats=()) -> None:
    """Write ``(terms, interval)`` rows in any format, atomically.
    ``timestamps``: time columns as ``timestamp[us, UTC]`` (Parquet/IPC);
    ``read_back``: a CSV file's :class:`~.csv_files.ReadBack`; ``floats``:
    the columns written as float64 (Parquet/IPC, :func:`floats_as_declared`)."""
    kind = format_of(path, fmt)
    if kind == "csv":
        from chronolog.connectors.csv_files import write_csv_facts

        return write_csv_facts(Path(path), facts, names, overwrite, calendar, staging, read_back)
    if kind == "json":
        from chronolog.connectors.json_lines import write_json_facts

        return write_json_facts(Path(path), facts, names, overwrite, calendar, staging)
    if kind == "facts":
        from chronolog.language.dates import format_fact

        from chronolog.language.compressed import text_for_writing

        def write(tmp):
            with text_for_writing(tmp, path) as fh:  # (compressed as the name says: a file.facts.gz)
                for terms, iv in facts:
                    fh.write(format_fact(pred, terms, iv, calendar))
                    fh.write("\n")

        return atomic_write(path, write, overwrite, staging)
    from chronolog.engine.arrow import facts_to_arrow

    table = floats_as_declared(facts_to_arrow(facts, names, calendar), floats)  # (dates as to_arrow gives them)
    if timestamps:
        from chronolog.engine.timestamps import to_timestamps

        table = to_timestamps(table, pred=pred)
    write_table(table, path, kind, overwrite, staging)
