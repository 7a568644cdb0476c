"""Where ``chronolog run`` writes a model: ``--output DIR`` (one CSV per
output predicate) and the program's file ``@bind`` outputs, all staged and
published together (connectors/staging.py), so a failed run writes nothing."""

from __future__ import annotations

import os

from chronolog.language.errors import ChronologError
from chronolog.connectors.paths import exists


def finite_rows(model, pred, window, what: str, hint: str) -> list:
    """The facts of ``pred``, inside ``window`` (on the program's timeline)
    if given; facts that repeat forever cannot be listed without one
    (``what`` cannot hold them)."""
    if window is not None:
        return model._clipped(pred, window)
    if model.repeating(pred):
        raise ChronologError(f"{pred} has facts that repeat forever, which {what} cannot hold", hint=hint)
    return model.facts(pred)


def output_rows(model, window):
    """``rows(pred)``: the facts to write; repeating facts need a window."""

    def rows(pred, what="a file"):
        return finite_rows(model, pred, window, what, "add --window FROM,TO to write the facts inside a window")

    return rows


def check_output_dir(output) -> None:
    if exists(output, "--output") and not os.path.isdir(output):
        raise ChronologError(f"--output {output} is not a directory", hint="name a directory (it is created if missing)")


def write_outputs(model, program, output, overwrite: bool, window) -> None:
    """Write ``--output DIR`` and the file bindings of ``program``, all or none."""
    if output is None and not any(a.name == "bind" for a in model.plan.program.annotations):
        return  # (nor the connectors imported)
    import glob
    from pathlib import Path

    from chronolog.connectors.bindings import FILE_KINDS, binding_specs, declared_floats
    from chronolog.connectors.paths import exists

    specs = [b for b in binding_specs(model.plan.program, Path(program).parent) if b["output"]]
    for b in specs:
        if FILE_KINDS.get(b["kind"]) is None:
            raise ChronologError(f"the output {b['pred']} is bound to Spark", b["pos"], hint="run with --spark local[*]")
        if glob.has_magic(str(b["location"])) and not exists(b["location"], f"the output {b['pred']}'s file", b["pos"]):  # (an input's pattern reads many files)
            raise ChronologError(f"the output {b['pred']} is bound to the pattern {b['location']}: an output is written to one file",
                                 b["pos"], hint="name the one file to write")
    if output is None and not specs:
        return  # (nor the writers imported)
    if output is not None:
        check_output_dir(output)
    from chronolog.connectors.files import write_facts
    from chronolog.connectors.staging import Staging
    from chronolog.language.dates import naming

    rows = output_rows(model, window)
    checks = []  # each CSV file's values that do not read back (ReadBack), said once all are written
    with Staging() as staging:
        if output is not None:
            for pred in model.output_predicates:
                with naming(pred):
                    path, read_back = output / f"{pred}.csv", _read_back(model, pred)
                    checks.append((path, pred, read_back))
                    if window is None and write_from_columns(model, path, pred, "csv", overwrite, staging, read_back):
                        continue
                    write_facts(path, rows(pred, "a CSV file"), model.column_names(pred), pred, "csv", overwrite, staging=staging, calendar=model.calendar,
                                read_back=read_back)
        for b in specs:
            p, fmt = b["pred"], FILE_KINDS[b["kind"]]
            with naming(p):
                read_back = _read_back(model, p) if fmt == "csv" else None
                if read_back is not None:
                    checks.append((b["location"], p, read_back))
                if window is None and write_from_columns(model, b["location"], p, fmt, overwrite, staging, read_back):
                    continue
                what = {"csv": "a CSV file", "parquet": "a Parquet file", "ipc": "an Arrow file", "json": "a JSON Lines file"}.get(fmt, "a fact file")
                write_facts(b["location"], rows(p, what), model.column_names(p), p, fmt, overwrite, staging=staging, calendar=model.calendar,
                            read_back=read_back, floats=declared_floats(model.plan.program, p))
        staging.publish()
    for path, pred, read_back in checks:
        read_back.note(path, pred, model.column_names(pred))


def _read_back(model, pred: str):
    """A CSV file's check that its cells read back as the values written,
    by a reader mapping its columns as the program's ``@mapping`` of
    ``pred`` does (connectors/csv_files.ReadBack)."""
    from chronolog.connectors.bindings import mappings
    from chronolog.connectors.csv_files import ReadBack

    kinds = mappings(model.plan.program, pred)
    arity = len(model.column_names(pred))
    return ReadBack([kinds.get(k, ("", "auto"))[1] for k in range(arity)], model.calendar)


def write_from_columns(model, path, pred: str, fmt: str, overwrite: bool, staging, read_back=None) -> bool:
    """Write ``pred`` as CSV, Parquet or Arrow straight from the columns the
    run left (connectors/text_out.py: the same bytes or table as from rows);
    False when rows hold it (then the caller writes the rows)."""
    cols = getattr(model, "_columns", None)
    if cols is None or fmt not in ("csv", "parquet", "ipc", "json") or model.repeating(pred):
        return False
    ticks = model.dialect == "lars"  # (its times shown in ticks)
    names = model.column_names(pred)
    if fmt == "csv":
        from chronolog.connectors.text_out import columns_csv_arrays

        arrays = columns_csv_arrays(cols, pred, model.calendar, read_back, ticks)
        if arrays is None:
            return False
        from chronolog.connectors.files import atomic_write
        from chronolog.connectors.text_out import write_arrays

        def write(tmp):
            import csv

            from chronolog.language.compressed import text_for_writing

            with text_for_writing(tmp, path) as fh:  # (compressed as the name says: a file.csv.gz)
                csv.writer(fh).writerow(list(names) + ["start", "end", "start_closed", "end_closed"])
                write_arrays(fh, arrays)

        from pathlib import Path

        atomic_write(Path(path), write, overwrite, staging)
        return True
    from chronolog.connectors.text_out import columns_arrow_table

    table = columns_arrow_table(cols, pred, names, model.calendar, ticks)
    if table is None:
        return False
    if fmt == "json":
        from chronolog.connectors.json_lines import table_json_lines, write_json_lines

        lines = table_json_lines(table, model.calendar)  # (its numbers as the rows write them: a float mapping types Parquet's columns)
        if lines is None:
            return False
        write_json_lines(path, lines, overwrite, staging)
        return True
    from chronolog.connectors.bindings import declared_floats
    from chronolog.connectors.files import floats_as_declared, write_table

    write_table(floats_as_declared(table, declared_floats(model.plan.program, pred)), path, fmt, overwrite, staging)
    return True
