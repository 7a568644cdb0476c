"""The data annotations: ``@bind``, ``@mapping``, ``@timeMapping``.

``@bind("p", "csv useHeaders=true", "dir", "p.csv").`` reads the facts of
``p`` from ``dir/p.csv`` (relative to the program's directory).
``@mapping("p", 0, "name", "string").`` names and types argument 0 of ``p``.
``@timeMapping("p", 2, 3, #T, #F).`` says the interval of ``p`` starts in
column 2 and ends in column 3, closed at the start and open at the end.
"""

from __future__ import annotations

from pathlib import Path

from chronolog.language import ast
from chronolog.language.errors import DataError, ProgramError, counted

from .csv_files import note_empty_file, read_csv_facts
from .paths import exists


def _parse_options(text: str):
    parts = text.split()
    if not parts:
        return "", {}
    kind = parts[0].lower()
    opts = {}
    for p in parts[1:]:
        if "=" in p:
            k, v = p.split("=", 1)
            opts[k] = v
    return kind, opts


# the options of a file binding (docs/language.md, @bind): a CSV file's header, no other
_HEADER_VALUES = ("true", "false", "#t", "#f", "1", "0", "yes", "no")


def _check_file_options(pred: str, kind: str, spec: str, pos) -> None:
    """A file binding's options are a CSV file's ``useHeaders`` alone: any
    other was ignored without a word (``separator=;`` read each row as one
    cell), and so was a header value that is no boolean."""
    for word in spec.split()[1:]:
        key, _, value = word.partition("=")
        if kind != "csv" or key != "useHeaders":
            raise ProgramError(
                f"@bind of {pred}: a {kind} file takes no option {word!r}", pos,
                hint="a csv file takes useHeaders=true or useHeaders=false (cells separated by commas), other files no options",
            )
        if value.lower() not in _HEADER_VALUES:
            raise ProgramError(f"@bind of {pred}: useHeaders is true or false, not {value!r}", pos, hint='e.g. "csv useHeaders=false"')


def mappings(program: ast.Program, pred: str) -> dict:
    out = {}
    for a in program.annotations:
        if a.name == "mapping" and a.args and a.args[0] == pred:
            pos = a.args[1]
            name = a.args[2] if len(a.args) > 2 else f"c{pos}"
            kind = a.args[3] if len(a.args) > 3 else "auto"
            if not isinstance(pos, int) or pos < 0:
                raise ProgramError("@mapping needs a non-negative argument position", a.pos, hint='e.g. @mapping("p", 0, "name", "string").')
            out[pos] = (str(name), str(kind).lower())
    return out


def check_mapped_columns(program: ast.Program, pred: str, path: Path, options: dict) -> None:
    """Refuse a ``@mapping`` that names a column a CSV file with a header
    lacks (a misspelling, or an argument past the file's value columns) or
    has at another argument's place (columns in another order):
    the reader takes argument K from the K-th value column, so the mistake
    would read another column, or none, without a word.  A number as the
    name (iTemporal's ``"0"``, ``"1"``, ...) names the position alone."""
    import csv

    if str(options.get("useHeaders", "true")).lower() not in ("true", "#t", "1", "yes") or Path(path).is_dir():
        return  # (a directory: the reader says it is one)
    from chronolog.language.compressed import open_csv_text
    from chronolog.language.errors import DataError

    try:
        with open_csv_text(path) as fh:
            header = next(csv.reader(fh, skipinitialspace=True), None)  # (as the reader reads it: connectors/csv_files.py)
    except (csv.Error, DataError):
        return  # (a quote never closed, a damaged compressed file: the reader says where)
    if header:
        check_mapped_header(program, pred, [h.strip() for h in header], path)
        _check_implicit_interval(program, pred, [h.strip() for h in header], Path(path))


def _first_atom(program: ast.Program, pred: str):
    """The first atom of ``pred`` in the program's rules (None: none reads it)."""
    for rule in program.rules:
        head = ast.head_atom(rule.head) if rule.head is not None else None
        for atom in ([head] if head is not None else []) + [x for lit in rule.body for x in ast.atoms_of(lit)]:
            if atom.pred == pred:
                return atom
    return None


def _check_implicit_interval(program: ast.Program, pred: str, header: list, path: Path) -> None:
    """A CSV file whose interval is its last two columns (no start and end
    in its header, no @timeMapping) read by rules with more arguments than
    the columns left: a time column (sensor,ts,value) was taken for the
    interval.  Said here, with which columns were taken and how to say
    others, rather than as an arity clash at the file's first row."""
    from .csv_files import _implicit_interval, _is_closed_col, _time_columns

    if not all(header) or time_mapping(program, pred) is not None:
        return
    atom = _first_atom(program, pred)
    start, end, _, _ = _time_columns(header, len(header), None, None)
    implicit = _implicit_interval(header, start, end, None, pred) if min(start, end) >= 0 else ""
    values = [h for i, h in enumerate(header) if i not in (start, end) and not _is_closed_col(header, i)]
    if atom is None or not implicit or len(atom.terms) == len(values):
        return
    raise DataError(
        f"{path.name} gives {pred} {counted(len(values), 'argument')} ({', '.join(values) or 'none'}), "
        f"but {pred} has {len(atom.terms)} at {atom.pos}",
        ast.Pos(str(path), 1, 1),
        hint=implicit,
    )


def check_mapped_header(program: ast.Program, pred: str, header: list, path) -> None:
    """:func:`check_mapped_columns` against the ``header`` of ``path``
    (the Spark CSV reader gives it as its DataFrame's columns); ``path``
    None: the columns of a table given from Python, whose ``@mapping``
    names only name output columns (one it lacks is no mistake) but may
    not sit at another argument's place."""
    from .csv_files import _is_closed_col, _time_columns, header_time_columns

    table = path is None
    path = f"the table for {pred}" if table else Path(str(path))
    given = time_mapping(program, pred)  # (as written: positions or names)
    tm = None if table else header_time_columns(header, given, ast.Pos(str(path), 1, 1), getattr(program, "calendar", None))
    start, end, _, _ = _time_columns(header, len(header), tm, None)
    values = [h for i, h in enumerate(header) if i not in (start, end) and not _is_closed_col(header, i)]
    for a in program.annotations:
        if a.name != "mapping" or not a.args or a.args[0] != pred or len(a.args) < 3:
            continue
        pos, name = a.args[1], str(a.args[2])
        if name.isdigit() or not isinstance(pos, int):
            continue
        hint = (f"the value columns of {path if table else path.name}, in argument order, are {', '.join(values) or '(none)'}: "
                + ("put them in the order of the @mapping annotations" if table else f'name one of them, or write the position alone ("{pos}")'))
        if table and (name not in values or pos >= len(values)):
            continue
        if tm is not None and pos >= len(values) and (pos in given[:2] or name in given[:2]):
            continue  # (a time column's type, as iTemporal maps them: accepted as planner/validate.check_mapped_position accepts it)
        if name not in header:
            raise ProgramError(f'@mapping of {pred} names the column "{name}", which {path} does not have', a.pos, hint=hint)
        if pos >= len(values):
            raise ProgramError(
                f"@mapping of {pred} names argument {pos}, but {path} has {counted(len(values), 'value column')}",
                a.pos, hint=hint,
            )
        if name in values and values.index(name) != pos:  # (columns in another order: each argument would read another's)
            raise ProgramError(
                f'@mapping of {pred} names argument {pos} "{name}", but "{name}" is value column {values.index(name)} of {path} '
                f'and argument {pos} is read from column "{values[pos]}"',
                a.pos, hint=hint,
            )


def time_mapping(program: ast.Program, pred: str):
    """``@timeMapping`` of ``pred`` as a table_times.TimeMapping (None:
    none); a start or end given by a column's name stays a name until a
    reader resolves it against its columns (table_times.time_columns)."""
    from .table_times import TimeMapping, point_error

    for a in program.annotations:
        if a.name == "timeMapping" and a.args and a.args[0] == pred:
            args = list(a.args[1:]) + [None] * (3 - len(a.args)) + [True, True]  # (a missing end: refused below)
            start, end, sc, ec = args[0], args[1], args[2], args[3]
            if not all(isinstance(c, int) and c >= 0 or isinstance(c, str) and c.strip() for c in (start, end)):
                raise ProgramError(
                    "@timeMapping needs the column positions of the interval's start and end (or their names)",
                    a.pos,
                    hint='e.g. @timeMapping("p", 2, 3, #T, #F). — start in column 2, end in column 3, closed start, open end; '
                    '@timeMapping("p", 1, 1). — time points in column 1; @timeMapping("p", "ts", "ts"). — in the column named ts',
                )
            if any(type(c) is not bool and c not in (0, 1) for c in (sc, ec)):  # (bool("false") is True)
                raise ProgramError(
                    f"@timeMapping of {pred}: whether the start and the end are closed is #T or #F, not {sc!r} and {ec!r}",
                    a.pos,
                    hint='e.g. @timeMapping("p", 2, 3, #T, #F). — a closed start, an open end',
                )
            if start == end and not (sc and ec):  # (a time point: [t,t], never empty)
                raise point_error(pred, start, a.pos)
            return TimeMapping((start, end, bool(sc), bool(ec)), pred, a.pos)
    return None


def _refuse_time_mapping_of_fact_files(program: ast.Program, pred: str, kind: str) -> None:
    """``@timeMapping`` of a predicate bound to a fact file, whose lines
    write their intervals: the annotation would be passed over without a
    word, its closedness with it (#F read as closed).  (CSV, Parquet and
    Arrow files and Spark inputs are tables: it places their times.)"""
    if kind != "facts" or time_mapping(program, pred) is None:
        return
    a = next(a for a in program.annotations if a.name == "timeMapping" and a.args and a.args[0] == pred)
    raise ProgramError(
        f"@timeMapping of {pred}: {pred} is bound to a file of facts, whose lines write their intervals; "
        "@timeMapping places the times of tables (CSV, Parquet, Arrow)",
        a.pos,
        hint=f"leave out @timeMapping of {pred}",
    )


def declared_floats(program: ast.Program, pred: str) -> list:
    """The columns of ``pred`` its ``@mapping`` types ``"float"`` (by name:
    a JSON Lines key, an output's column)."""
    from chronolog.language.mapping_types import FLOAT_TYPES

    return [name for name, kind in mappings(program, pred).values() if kind in FLOAT_TYPES]


def bound_table(program: ast.Program, pred: str, path: Path, fmt: str):
    """The table of a Parquet, Arrow or JSON Lines file bound to ``pred``,
    its times placed by the program's ``@timeMapping``.  A JSON Lines
    file's arguments are the keys its ``@mapping`` names (an object's keys
    have no order a writer must keep; a log line has more keys than a rule
    reads), each checked for a value on every line, and its numbers read
    exact but for a ``"float"`` mapping (connectors/json_lines.py)."""
    if fmt != "json":
        from .files import read_table

        return time_mapped_table(program, pred, read_table(path, fmt), str(path))
    from .json_lines import JsonLines
    from .table_times import time_columns

    lines = JsonLines(path)
    table = lines.table
    tm = time_columns(time_mapping(program, pred), table.schema.names, str(path))  # (names: the keys)
    if tm is not None and tm[0] == tm[1] and tm[0] < table.num_columns:  # (before the time mapping, which names the row alone)
        lines.refuse_nulls(table, [table.schema.names[tm[0]]], lambda name, said: (
            f"{name} {said} here: @timeMapping of {pred} reads it as the line's time point",
            f"a reading without a time holds at no time point: give {name} a time or leave the line out"))
    table = _keys_by_mapping(program, pred, time_mapped_table(program, pred, table, str(path)), path)
    arguments = [n for n in table.schema.names if n not in ("start", "end", "start_closed", "end_closed")]
    lines.refuse_nulls(table, arguments, lambda name, said: (
        f"{name} {said} here: every argument of {pred} needs a value",
        f"give {name} a value on every line, or leave the line out (only the times may be null: unbounded)"))
    return lines.exact(table, declared_floats(program, pred))


def _keys_by_mapping(program: ast.Program, pred: str, table, path):
    """A JSON Lines table (its times placed) with the arguments
    :func:`mapped_keys` chooses."""
    times = [n for n in ("start", "end", "start_closed", "end_closed") if n in table.schema.names]
    chosen = mapped_keys(program, pred, [n for n in table.schema.names if n not in times], path)
    return table if chosen is None else table.select(chosen + times)


def mapped_keys(program: ast.Program, pred: str, names: list, path) -> list | None:
    """The argument columns of a JSON Lines input of ``pred`` among its
    keys ``names`` (in order, its times left out): those ``@mapping``
    names, each at its argument, the keys not named filling the other
    arguments in order, as many as the program's atoms of ``pred`` have
    (the rest left: a log line has more keys than a rule reads); None
    where no name of ``@mapping`` is a key (the keys are the arguments)."""
    from chronolog.planner.validate import collect_arities

    m = mappings(program, pred)
    named = {i: name for i, (name, _) in m.items() if name in names}
    if not named:
        return None
    pos = next(a.pos for a in program.annotations if a.name == "mapping" and a.args and a.args[0] == pred)
    hint = f"name each argument by its key (the keys: {', '.join(names)})"
    absent = next((i for i in sorted(m) if i not in named), None)
    if absent is not None:
        raise ProgramError(f"@mapping of {pred} names argument {absent} {m[absent][0]!r}, which no line of {path} has as a key "
                           f"(and others by keys: {', '.join(named.values())})", pos, hint=hint)
    arity = collect_arities(program).get(pred, (len(names), None))[0]
    rest = [n for n in names if n not in named.values()]
    if arity > len(named) + len(rest):
        raise ProgramError(f"{pred} has {counted(arity, 'argument')}, but {path} has {counted(len(names), 'key')} beside its times",
                           pos, hint=hint)
    return [named[i] if i in named else rest.pop(0) for i in range(arity)]


def time_mapped_table(program: ast.Program, pred: str, table, where: str):
    """A table bound or given for ``pred`` with its times where the
    program's ``@timeMapping`` places them (as it is without one)."""
    mapping = time_mapping(program, pred)
    if mapping is None:
        return table
    from .table_times import time_mapped

    pos = next(a.pos for a in program.annotations if a.name == "timeMapping" and a.args and a.args[0] == pred)
    return time_mapped(table, mapping, pred, where, pos, getattr(program, "calendar", None))


def column_names(program: ast.Program, pred: str, arity: int) -> list:
    m = mappings(program, pred)
    return [m[i][0] if i in m else f"c{i}" for i in range(arity)]


def _bind_args(a):
    """The four arguments of a @bind (read before the program is checked)."""
    if len(a.args) != 4:
        raise ProgramError(
            f"@bind takes 4 arguments, not {len(a.args)}",
            a.pos,
            hint='@bind("pred", "parquet", "directory", "file.parquet")',
        )
    return a.args


def load_bound_inputs(program: ast.Program, base_dir: Path, spark_inputs=None, columns=None, min_rows: int = 0) -> list:
    """Facts of the input bindings read without Spark; ``spark_inputs`` (not
    None) means a Spark connector reads the "spark" ones.  ``columns`` (a
    list): large CSV files are read by kernels into FactColumns appended to
    it (connectors/csv_columns.py) instead of rows, from ``min_rows`` lines,
    and so are Parquet and Arrow IPC tables (connectors/table_columns.py)."""
    facts = []
    lars = ast.is_lars(program)
    if lars and getattr(program, "tuple_windows", None):
        columns = None  # (LARS's tuple windows filter the input rows)
    outputs = {a.args[0] for a in program.annotations if a.name == "output"}
    for a in program.annotations:
        if a.name != "bind":
            continue
        pred, spec, directory, name = _bind_args(a)
        kind, opts = _parse_options(str(spec))
        if kind not in FILE_KINDS and kind != "spark":
            raise ProgramError(
                f"@bind of {pred}: unsupported source {kind!r}", a.pos,
                hint='use "csv", "parquet", "arrow" (IPC), "json" (JSON Lines), "facts" or "spark <format>"',
            )
        if kind != "spark":
            _check_file_options(pred, kind, str(spec), a.pos)
        if pred in outputs:
            continue  # an output binding: written after reasoning
        _refuse_time_mapping_of_fact_files(program, pred, kind)
        if kind == "spark":
            if spark_inputs is None:
                raise ProgramError(
                    f"@bind of {pred} reads through Spark", a.pos,
                    hint="run it with `chronolog run --spark local[*]` or chronolog.spark.reason",
                )
            continue  # read by the Spark connector
        path = Path(str(directory)) / str(name)
        if not path.is_absolute():
            path = base_dir / path
        for file in bound_files(path, pred, a.pos):
            _read_bound(program, pred, kind, opts, file, columns, min_rows, facts, lars)
    if lars:  # (ticks: the rows read as rows, then as ticks; the columns ticked as read)
        from chronolog.language.lars import tick_facts

        return tick_facts(facts)
    return facts


def bound_files(path: Path, pred: str, pos) -> list:
    """The files an input @bind reads: its path, or where no such file is
    and its name holds a pattern (``*``, ``?``, ``[...]``, as a shell's:
    ``"events/2024-*.parquet"``, a day's file each), every file it matches,
    in name order, each read as if bound alone."""
    import glob

    if exists(path, f"@bind of {pred}: the file", pos):
        return [path]
    if not glob.has_magic(str(path)):
        raise ProgramError(f"@bind of {pred}: the file {path} does not exist", pos, hint="check the directory and file name")
    files = sorted(Path(f) for f in glob.glob(str(path)) if not Path(f).is_dir())
    if not files:
        raise ProgramError(f"@bind of {pred}: no file matches {path}", pos,
                           hint="check the directory and the pattern (* matches any part of one name, ? one character)")
    return files


def _read_bound(program, pred: str, kind: str, opts: dict, path: Path, columns, min_rows: int, facts: list, ticks: bool = False) -> None:
    """One bound input file of ``pred``: its FactColumns appended to
    ``columns`` where kernels read it, else its facts to ``facts``
    (``ticks``: a LARS program's, its columns read at ticks, or as rows
    where one is off them: the rows' reading names it)."""
    if FILE_KINDS[kind] in ("csv", "json") and note_empty_file(path, pred, blank_too=FILE_KINDS[kind] == "json"):
        return
    m = mappings(program, pred)
    if kind == "csv":
        check_mapped_columns(program, pred, path, opts)
    fc = table = None
    if kind == "csv" and columns is not None:
        from .csv_columns import read_csv_columns

        fc = read_csv_columns(path, pred, opts, m, time_mapping(program, pred), getattr(program, "calendar", None), min_rows)
    if FILE_KINDS[kind] == "facts" and columns is not None:
        fc = _fact_file_columns(program, pred, path, facts)
    if FILE_KINDS[kind] in ("parquet", "ipc", "json") and columns is not None:
        from .table_columns import read_table_columns

        table = bound_table(program, pred, path, FILE_KINDS[kind])
        fc = read_table_columns(table, pred, ast.Pos(str(path), 0, 0), getattr(program, "calendar", None), min_rows)
    if fc is not None and ticks:
        from chronolog.language.lars import columns_in_ticks

        fc = fc if columns_in_ticks(fc) else None
    if fc is not None:
        columns.append(fc)
        return
    if kind == "csv":
        facts.extend(read_csv_facts(path, pred, None, opts, m, time_mapping(program, pred), getattr(program, "calendar", None)))
    elif FILE_KINDS[kind] == "facts":
        from .files import read_fact_file

        facts.extend(read_fact_file(path, pred, program))
    else:
        from .files import table_facts

        if table is None:
            table = bound_table(program, pred, path, FILE_KINDS[kind])
        pos = ast.Pos(str(path), 0, 0)  # (the table the kernels left, not read again)
        facts.extend(ast.Fact(pred, t, iv, pos) for t, iv in table_facts(table, pred, path, getattr(program, "calendar", None)))


def _fact_file_columns(program, pred: str, path: Path, facts: list):
    """A bound fact file's facts of ``pred`` read by the kernel fact reader,
    as ``--facts`` reads a file (1M lines: 0.9 s, where the line reader and
    a Fact per row took 4.4 s), or None (a small file, or one the kernels
    leave: the rows' reading then reads it, or names its problem).  Its
    facts of other predicates are left, as the rows' reading leaves them;
    those of ``pred`` that repeat forever go to ``facts``."""
    from chronolog.language.compressed import smaller_than
    from chronolog.language.fact_columns import _Fallback, read_file_columns
    from chronolog.language.facts import FactRows
    from chronolog.language.source_text import KERNEL_BYTES

    try:
        if smaller_than(path, KERNEL_BYTES):
            return None
        fc = read_file_columns(path, "vadalog", getattr(program, "calendar", None))
        fc.width(pred)  # (_Fallback where the kernels' and the parser's facts of pred differ in arity: the rows name both)
    except (_Fallback, OSError):
        return None
    fc.parts = {p: parts for p, parts in fc.parts.items() if p == pred}
    fc.positions = {p: where for p, where in fc.positions.items() if p == pred}
    facts.extend(ast.Fact(pred, terms, iv, pos, every) for terms, iv, every, pos in fc.slow.repeating.get(pred, []))
    slow, fc.slow = fc.slow, FactRows()
    if pred in slow:
        fc.slow[pred], fc.slow.positions[pred] = slow[pred], slow.positions[pred]
    return fc


# @bind kinds read and written without Spark, and their file format
FILE_KINDS = {"csv": "csv", "parquet": "parquet", "arrow": "ipc", "ipc": "ipc", "feather": "ipc", "facts": "facts", "json": "json", "jsonl": "json"}


def binding_specs(program: ast.Program, base_dir: Path) -> list:
    """Every @bind as a dict: pred, kind (csv, parquet, ..., spark), format
    (the word after "spark"), options, location (a path, or a table name
    for "spark table"), output (bool) and pos."""
    outputs = {a.args[0] for a in program.annotations if a.name == "output"}
    out = []
    for a in program.annotations:
        if a.name != "bind":
            continue
        pred, spec, directory, name = _bind_args(a)
        words = str(spec).split()
        kind, opts = _parse_options(str(spec))
        fmt = words[1].lower() if kind == "spark" and len(words) > 1 and "=" not in words[1] else None
        if kind == "spark" and fmt == "table":
            location = f"{directory}.{name}" if str(directory) else str(name)
        else:
            path = Path(str(directory)) / str(name)
            location = path if path.is_absolute() or "://" in str(directory) else base_dir / path
        out.append({"pred": pred, "kind": kind, "format": fmt, "options": opts, "location": location, "output": pred in outputs, "pos": a.pos})
    return out

