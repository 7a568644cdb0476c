"""Reasoning inside Spark tasks, one engine per partition of key groups.

The driver unions every input predicate (and the program's own facts) into
one wide DataFrame (columns shared between predicates by type),
repartitions it by the key (each predicate's key argument as text) and
runs :func:`run_partition` on each partition with ``mapInArrow``.  Each task rebuilds the per-predicate tables,
runs the engine on them, and emits its output facts already typed, in
*lanes* (:func:`lanes_ddl`): per column an ``int64`` lane for integers, a
text lane for every other value in its exact canonical text and a lane for
the term text where that differs; it reports which exact Arrow type each
column needs (:func:`value_kind`) through an accumulator.  The driver
merges the kinds (:func:`merge_kind`) and picks each output column out of
its lanes with a Spark SQL cast to the merged type (:func:`output_exprs`),
so the result is column for column what one embedded process would return
(:func:`typed_table`), without a second pass of Python over the output.

Correctness rests on the planner's partitionability analysis
(:mod:`chronolog.planner.partition`): every rule instance reads facts of a
single key, so the union of the partitions' models is the model.
Deterministic tasks make Spark's retries harmless (merging kinds is
idempotent, so a kind reported twice changes nothing).
"""

from __future__ import annotations

import pickle
from contextlib import contextmanager

from chronolog.engine.term_types import INT64, KIND_KEY, arrow_type, merge_kind, text_marker, typed_array, value_kind  # noqa: F401 (the rule)
from chronolog.language.booleans import Boolean

# ------------------------------------------------------------ column kinds


def kinds_of(facts, arity: int) -> list:
    """Per column (terms, then start, end) the kind of ``(terms, iv)`` facts."""
    from chronolog.language.timeline import NEG_INF, POS_INF

    cols = [[t[i] for t, _ in facts] for i in range(arity)]
    cols.append([None if iv[0] == NEG_INF else iv[0] for _, iv in facts])
    cols.append([None if iv[1] == POS_INF else iv[1] for _, iv in facts])
    return [value_kind(c) for c in cols]


def schema_for(names, kinds, timestamps: bool = False):
    """The layout's schema for merged column kinds (``timestamps``: the
    time columns as ``timestamp[us, UTC]``)."""
    import pyarrow as pa

    fields = [pa.field(n, arrow_type(k)) for n, k in zip(list(names) + ["start", "end"], kinds)]
    for i, k in enumerate(kinds[:len(names)]):  # term text, marked so that it reads back (text_columns)
        if text_marker(k):
            fields[i] = fields[i].with_metadata({KIND_KEY: text_marker(k)})
    if timestamps:
        fields[-2:] = [pa.field(f.name, pa.timestamp("us", tz="UTC")) for f in fields[-2:]]
    return pa.schema(fields + [pa.field("start_closed", pa.bool_()), pa.field("end_closed", pa.bool_())])


def spark_schema(schema):
    """A Spark StructType for an Arrow schema, a term text column's mark
    (:data:`KIND_KEY` on its field, or the table's of ``Model.to_arrow``,
    engine/arrow.py) in its field's metadata."""
    import json

    from pyspark.sql.pandas.types import from_arrow_schema

    from chronolog.engine.arrow import TERM_TEXT

    out = from_arrow_schema(schema)
    text = set(json.loads((schema.metadata or {}).get(TERM_TEXT, b"[]")))
    for f, a in zip(out.fields, schema):
        mark = (a.metadata or {}).get(KIND_KEY.encode())
        if mark or a.name in text:
            f.metadata = {KIND_KEY: mark.decode() if mark else "mixed"}
    return out


def text_columns(schema) -> list:
    """The columns of a Spark StructType or an Arrow schema marked as term
    text (:data:`KIND_KEY`: every Spark path's outputs, the chronolog data
    source's reads), which read back as the terms they spell."""
    import pyarrow as pa

    if isinstance(schema, pa.Schema):
        return [f.name for f in schema if (f.metadata or {}).get(KIND_KEY.encode())]
    return [f.name for f in schema.fields if (f.metadata or {}).get(KIND_KEY)]


def with_text_marks(table, schema):
    """The Arrow ``table`` of a Spark DataFrame of ``schema`` with its term
    text columns marked in the table's metadata, as ``Model.to_arrow``
    marks them (engine/arrow.py): Spark's ``toArrow()`` drops the fields'."""
    from chronolog.engine.arrow import with_term_text

    return with_term_text(table, [n for n in text_columns(schema) if n in table.schema.names])


def typed_table(facts, names, kinds, timestamps: bool = False, pred: str = "?"):
    """``(terms, iv)`` facts as a table of the schema :func:`schema_for` gives."""
    import pyarrow as pa

    from chronolog.language.timeline import NEG_INF, POS_INF

    if timestamps:
        from chronolog.engine.timestamps import to_timestamps

        plain = typed_table(facts, names, kinds)
        return to_timestamps(plain, pred=pred).cast(schema_for(names, kinds, True))
    schema = schema_for(names, kinds)
    arity = len(names)
    cols = [[t[i] for t, _ in facts] for i in range(arity)]
    cols.append([None if iv[0] == NEG_INF else iv[0] for _, iv in facts])
    cols.append([None if iv[1] == POS_INF else iv[1] for _, iv in facts])
    arrays = [typed_array(c, k, f.type) for c, k, f in zip(cols, kinds, schema)]
    arrays.append(pa.array([iv[2] for _, iv in facts], pa.bool_()))
    arrays.append(pa.array([iv[3] for _, iv in facts], pa.bool_()))
    return pa.Table.from_arrays(arrays, schema=schema)


def fact_rows(facts: dict):
    """``{pred: [(terms, interval)]}`` whose intervals are already time
    points (a calendar timeline's too) as the engine's input rows."""
    from chronolog.language import ast
    from chronolog.language.facts import FactRows

    rows = FactRows()
    for pred, lst in facts.items():
        pos = ast.Pos(f"<facts {pred}>", 0, 0)
        for terms, iv in lst:
            rows.add(pred, tuple(terms), iv, pos)
    return rows


def in_seconds(facts, calendar):
    """Facts on ``calendar``'s timeline (``@timeGranularity``) with their
    time points as exact seconds since the epoch, the unit Spark's
    timestamps hold; unchanged on a numeric timeline."""
    if calendar is None:
        return facts
    from chronolog.language.timeline import normalize

    u = calendar.unit_seconds

    def sec(t):
        return t if t in (NEG_INF, POS_INF) else normalize(t * u)

    from chronolog.language.timeline import NEG_INF, POS_INF

    return [(terms, (sec(lo), sec(hi), lc, hc)) for terms, (lo, hi, lc, hc) in facts]


@contextmanager
def named_source(pred: str, sources: dict):
    """A data error while reading ``pred`` names the file or table it came
    from when it came from one (a Spark task's rows have no other origin)."""
    from chronolog.language.errors import DataError

    try:
        yield
    except DataError as e:
        if pred not in sources:
            raise
        raise DataError(f"reading {sources[pred]}: {e.message}", e.pos, e.hint) from None


# ------------------------------------------------------------ inside a task

def _cells(col, kind: str, where, name: str, calendar=None) -> list:
    """The cells of a text column as the CSV reader converts them
    (``csv_files.convert``), each distinct text converted once."""
    from chronolog.connectors.csv_files import convert

    if hasattr(col, "combine_chunks"):
        col = col.combine_chunks()
    enc = col.dictionary_encode()
    # (quoted: a string as Spark's reader gave it, which trimmed a bare cell: spark.read_binding)
    values = [convert(v, kind, where, name, calendar, quoted=True) for v in enc.dictionary.to_pylist()]
    return [None if i is None else values[i] for i in enc.indices.to_pylist()]


def auto_values(table, columns, kinds=None, calendar=None):
    """Columns read from CSV as text: numbers in ``columns`` become exact
    numbers, closedness columns booleans (``true``/``#F``/...), a column
    the program maps (``kinds``: name -> ``@mapping`` kind such as
    ``string`` or ``bool``) what that kind reads.  Returns the
    table and ``{name: cells}`` for the columns that mix kinds (``4.0`` and
    ``x``) or hold numbers only text holds (``1/3``, past 38 digits): no
    Arrow type holds them as the same values, so they stay text in the
    table and their converted cells come apart (see :func:`csv_rows`)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from chronolog.language import ast

    if not columns:
        return table, {}
    where = ast.Pos("<spark csv>", 0, 0)
    out, mixed = [], {}
    for name, col in zip(table.schema.names, table.columns):
        if name in ("start_closed", "end_closed") and pa.types.is_string(col.type):
            col = pa.array([None if v is None else bool(v) for v in _cells(col, "bool", where, name)], pa.bool_())
        elif name in columns and pa.types.is_string(col.type):
            col = pc.fill_null(col, "")  # (an empty cell, quoted or bare: null to Spark's reader, "" to the CSV reader)
            vals = _cells(col, (kinds or {}).get(name, "auto"), where, name, calendar)
            kind = value_kind(vals)
            typ = arrow_type(kind)
            if text_marker(kind):
                mixed[name] = vals  # (also 1/3 and numbers past 38 digits: a text column would make them names)
            else:
                col = typed_array(vals, kind, typ)
        out.append(col)
    return pa.Table.from_arrays(out, names=table.schema.names), mixed


def csv_kinds(program, pred: str) -> dict:
    """The ``@mapping`` kinds of ``pred``'s argument positions other than
    ``auto`` (a CSV column mapped ``string`` keeps ``007`` as text, one
    mapped ``bool`` reads ``true`` as ``#T``), as the embedded CSV reader
    applies them."""
    from chronolog.connectors.bindings import mappings

    return {pos: kind for pos, (_, kind) in mappings(program, pred).items() if kind != "auto"}


def _blank_times_unbounded(table):
    """A CSV input's table with its blank start and end cells null (Spark's
    reader gives an empty cell as null, one of blanks as its text): an
    unbounded end, as ``csv_files.time_cell`` reads an empty cell."""
    import pyarrow.compute as pc

    from chronolog.connectors.cell_types import blanks

    for name in ("start", "end"):
        blank = blanks(table.column(name)) if name in table.schema.names else None
        if blank is not None:
            table = table.set_column(table.schema.get_field_index(name), name, pc.if_else(blank, None, table.column(name)))
    return table


def csv_rows(table, columns, pred: str, calendar=None, kinds=None) -> list:
    """The rows ``(terms, interval)`` of a table Spark read from CSV as text,
    each cell the value chronolog's own CSV reader gives it: a column of
    numbers becomes one exact type (:func:`auto_values`); a column mixing
    numbers and names keeps each cell's own kind, set into the rows here
    (typing it as text would make ``4.0`` a string in Spark and a number
    embedded: different answers).  ``columns`` None: a table not read
    from CSV (the program's facts, a DataFrame), its null times unbounded."""
    from chronolog.engine.arrow import table_to_rows
    from chronolog.language.nulls import reading_file

    if columns is not None:  # (a CSV input's: an empty time cell is an unbounded end, as a table's null)
        table = _blank_times_unbounded(table)
    terms = [n for n in table.schema.names if n not in ("start", "end", "start_closed", "end_closed")]
    by_name = {terms[p]: k for p, k in (kinds or {}).items() if p < len(terms)}
    with reading_file():  # (one source's _:n1 cells: one labelled null, as the CSV reader reads a file)
        table, mixed = auto_values(table, columns, by_name, calendar)
    rows = table_to_rows(table, pred, calendar, timestamps="times")  # (one per table row, in order)
    if not mixed:
        return rows
    terms = [n for n in table.schema.names if n not in ("start", "end", "start_closed", "end_closed")]
    at = [(terms.index(n), cells) for n, cells in mixed.items()]
    out = []
    for i, (t, iv) in enumerate(rows):
        t = list(t)
        for j, cells in at:
            t[j] = cells[i]
        out.append((tuple(t), iv))
    return out


def direct_min_rows(engine):
    """From how many rows a task reads a typed input table straight into
    columns, as ``reason`` reads a table given as facts (chronolog/api.py):
    None when the task runs on rows (``CHRONOLOG_ENGINE=rows``)."""
    from chronolog.planner.input_size import direct_min_rows as for_engine
    from chronolog.planner.input_size import engine_choice

    return for_engine(engine_choice(engine))


def typed_columns(table, pred: str, calendar, min_rows: int):
    """A task's input table of a typed source (not CSV text) as a
    FactColumns (connectors/table_columns.py), or None when the rows'
    reading (:func:`csv_rows`) applies.  On a numeric timeline date and
    timestamp time columns become exact seconds first, as ``csv_rows``
    makes them (``table_to_rows(timestamps="times")``); date and timestamp
    arguments are instants, which the rows read: the same values either way."""
    from chronolog.language import ast
    from chronolog.connectors.table_columns import read_table_columns

    if calendar is None:
        from chronolog.engine.timestamps import numbers_for_times

        table = numbers_for_times(table, pred)
    return read_table_columns(table, pred, ast.Pos(f"<facts {pred}>", 0, 0), calendar, min_rows, in_memory=True)


def task_facts(parts: dict):
    """A task's facts for ``reason``: ``{pred: [FactColumns or rows]}`` ->
    ``{pred: FactColumns or FactRows}`` (a predicate read from several
    inputs, some as rows, is all rows)."""
    from chronolog.language.fact_columns import FactColumns

    out = {}
    for pred, got in parts.items():
        if len(got) == 1 and isinstance(got[0], FactColumns):
            out[pred] = got[0]
            continue
        rows = []
        for g in got:
            rows.extend(g.pred_rows(pred) if isinstance(g, FactColumns) else g)
        out[pred] = fact_rows({pred: rows})
    return out


def task_engine(rows: int, partitions: int):
    """The executor a task runs: the one the whole run would get.

    The automatic choice looks at the facts given to one run; a task gets
    only its partition's share, so splitting the same input over more tasks
    used to flip 500,000 sensor readings (columns, 2.7 s) into two tasks of
    250,000 on rows (2.1 s each instead of 1.4 s: the rows executor is not
    linear there).  Keys are hashed evenly, so this task's rows times the
    number of partitions estimates the whole input, with no count job.
    ``CHRONOLOG_ENGINE`` in the workers' environment still decides when set
    (``None`` lets ``reason`` read it)."""
    import os

    from chronolog.planner.input_size import AUTO_MIN_FACTS

    if os.environ.get("CHRONOLOG_ENGINE"):
        return None
    return "columns" if rows * max(1, partitions) >= AUTO_MIN_FACTS else None


def lanes_ddl(arity: int) -> str:
    """The tasks' output schema for output predicates of up to ``arity``
    arguments: ``__out`` (the output predicate's index), per argument ``j``
    the lanes ``_c<j>_l`` (integers that fit 64 bits), ``_c<j>_t`` (every
    other value as text: numbers in canonical text, strings as they are,
    booleans as ``true``/``false``, other terms as term text) and ``_c<j>_m``
    (the term text where it differs from ``_t``: quoted strings, ``#T``,
    ``float(1.5)``),
    then the same ``_l``/``_t`` lanes for ``start`` and ``end`` (with
    timestamps, ``_l`` holds microseconds) and the two closedness flags.
    One schema fits every predicate, so one task output holds them all."""
    cols = ["__out int"]
    for j in range(arity):
        cols += [f"_c{j}_l bigint", f"_c{j}_t string", f"_c{j}_m string"]
    cols += ["_s_l bigint", "_s_t string", "_e_l bigint", "_e_t string", "_sc boolean", "_ec boolean"]
    return ", ".join(cols)


def lanes(values):
    """``values`` as the three lanes of :func:`lanes_ddl`: a Spark SQL cast
    of one lane to the merged type is exact (text to a decimal of a scale
    at least the value's), so the tasks never round and the driver needs no
    second Python pass to type the output."""
    from fractions import Fraction

    from chronolog.language.text import format_term, format_term_text
    from chronolog.language.timeline import format_number

    lo, hi = INT64
    ints, text, terms = [], [], []
    for v in values:
        t = type(v)
        if t is int and lo <= v < hi:
            ints.append(v)
            text.append(None)
            terms.append(None)
            continue
        ints.append(None)
        if v is None:
            text.append(None)
            terms.append(None)
        elif t is str:
            text.append(v)
            f = format_term(v)
            terms.append(None if f == v else f)
        elif t is Boolean or t is bool:
            text.append("true" if v else "false")
            terms.append(format_term(v))
        elif t is int or isinstance(v, Fraction):
            text.append(format_number(v))
            terms.append(None)
        else:  # floats, instants (ISO text), sets of values, labelled nulls: a "mixed" column's text
            text.append(format_term(v))
            # (a float, or a set's floats, beside exact numbers: float(1.5), as engine/arrow.py writes it)
            f = format_term_text(v) if t is float or t is tuple else None
            terms.append(None if f == text[-1] else f)
    return ints, text, terms


def microseconds(values) -> list:
    """Exact seconds as whole microseconds (``check_instants`` refused the
    rest in the task already)."""
    from fractions import Fraction

    return [None if v is None else int(Fraction(v) * 10**6) for v in values]


def lane_batch(index: int, facts, arity: int, max_arity: int, timestamps: bool):
    """One output predicate's ``(terms, interval)`` facts as a batch of
    :func:`lanes_ddl` (``arity`` its arguments, ``max_arity`` the schema's)."""
    import pyarrow as pa

    from chronolog.language.timeline import NEG_INF, POS_INF

    n = len(facts)
    i64, text = pa.int64(), pa.string()
    arrays = [pa.array([index] * n, pa.int32())]
    for j in range(max_arity):
        if j < arity:
            ints, txt, terms = lanes([t[j] for t, _ in facts])
            arrays += [pa.array(ints, i64), pa.array(txt, text), pa.array(terms, text)]
        else:
            arrays += [pa.nulls(n, i64), pa.nulls(n, text), pa.nulls(n, text)]
    for end, inf in ((0, NEG_INF), (1, POS_INF)):
        values = [None if iv[end] == inf else iv[end] for _, iv in facts]
        if timestamps:
            arrays += [pa.array(microseconds(values), i64), pa.nulls(n, text)]
        else:
            ints, txt, _ = lanes(values)
            arrays += [pa.array(ints, i64), pa.array(txt, text)]
    arrays.append(pa.array([iv[2] for _, iv in facts], pa.bool_()))
    arrays.append(pa.array([iv[3] for _, iv in facts], pa.bool_()))
    names = [f.split(" ")[0] for f in lanes_ddl(max_arity).split(", ")]
    return pa.RecordBatch.from_arrays(arrays, names=names)


def output_exprs(names, kinds, timestamps: bool = False) -> list:
    """Per column of an output predicate, ``(Spark SQL expression, layout
    name)`` picking it out of the lanes as the type :func:`schema_for`
    gives its merged kind (``timestamps``: the time columns as UTC
    timestamps)."""
    out = [(_lane_expr(f"_c{j}", k, terms=True), n) for j, (n, k) in enumerate(zip(names, kinds))]
    for lane, name, kind in (("_s", "start", kinds[-2]), ("_e", "end", kinds[-1])):
        out.append((f"timestamp_micros({lane}_l)" if timestamps else _lane_expr(lane, kind, terms=False), name))
    return out + [("_sc", "start_closed"), ("_ec", "end_closed")]


def _lane_expr(lane: str, kind, terms: bool) -> str:
    import pyarrow as pa

    typ = arrow_type(kind)
    ints, text = f"{lane}_l", f"{lane}_t"
    if pa.types.is_int64(typ):
        return ints
    if pa.types.is_decimal(typ):
        sql = f"DECIMAL({typ.precision}, {typ.scale})"
        return f"coalesce(CAST({ints} AS {sql}), CAST({text} AS {sql}))"
    if pa.types.is_boolean(typ):
        return f"CAST({text} AS BOOLEAN)"
    if pa.types.is_floating(typ):  # (the text lane holds each float's shortest round-trip text)
        return f"CAST({text} AS DOUBLE)"
    if kind[0] in ("date", "timestamp"):  # ISO text of a UTC instant: no session time zone applies
        return f"CAST({text} AS {'DATE' if kind[0] == 'date' else 'TIMESTAMP_NTZ'})"
    if kind[0] == "str":
        return text
    if kind[0] == "mixed" and terms:
        return f"coalesce({lane}_m, CAST({ints} AS STRING), {text})"
    return f"coalesce(CAST({ints} AS STRING), {text})"


def lanes_table(lanes, index: int, names, kinds, timestamps: bool = False, schema=None):
    """Output predicate ``index``'s rows of a lanes table collected on the
    driver (``toArrow`` of the tasks' output), typed as :func:`output_exprs`
    types them in Spark: the same casts, done by pyarrow, so the table is
    the one ``toArrow`` of the typed DataFrame would give (``schema``: that
    table's Arrow schema, e.g. with large strings; :func:`schema_for`'s
    otherwise)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    rows = lanes.filter(pc.equal(lanes.column("__out"), index))
    cols = [_lane_array(rows, f"_c{j}", k, terms=True) for j, k in enumerate(kinds[: len(names)])]
    for lane, kind in (("_s", kinds[-2]), ("_e", kinds[-1])):
        if timestamps:
            cols.append(rows.column(f"{lane}_l").cast(pa.timestamp("us", tz="UTC")))
        else:
            cols.append(_lane_array(rows, lane, kind, terms=False))
    cols += [rows.column("_sc"), rows.column("_ec")]
    if schema is None:
        schema = schema_for(names, kinds, timestamps)
    return pa.Table.from_arrays([c.cast(f.type) for c, f in zip(cols, schema)], schema=schema)


def _lane_array(rows, lane: str, kind, terms: bool):
    """:func:`_lane_expr` in pyarrow (exact: a text lane holds each value in
    at most the merged scale, so the cast to the decimal never rounds)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    typ = arrow_type(kind)
    ints, text = rows.column(f"{lane}_l"), rows.column(f"{lane}_t").cast(pa.string())
    if pa.types.is_int64(typ):
        return ints
    if pa.types.is_decimal(typ):  # (int64 to a decimal of less than 19 digits is refused for any value: via text)
        return pc.coalesce(ints.cast(pa.string()), text).cast(typ)
    if pa.types.is_boolean(typ):
        return text.cast(pa.bool_())
    if pa.types.is_floating(typ):
        return text.cast(pa.float64())
    if kind[0] in ("date", "timestamp"):
        return text.cast(typ)
    if kind[0] == "str":
        return text
    if kind[0] == "mixed" and terms:
        return pc.coalesce(rows.column(f"{lane}_m").cast(pa.string()), ints.cast(pa.string()), text)
    return pc.coalesce(ints.cast(pa.string()), text)


class TaskReport:
    """What the tasks tell the driver beside their rows, as an accumulator
    (``SparkContext.accumulator(TaskReport.empty(), TaskReport())``): each
    output predicate's column kinds and any user error, so neither needs
    rows of its own nor a job to collect them, and (``parts``, when the job
    asks for them) each partition's lanes as Arrow IPC bytes, or ``None``
    where they exceeded the task's share of the driver's budget
    (:func:`make_task`).  Merging is idempotent, so a task that Spark runs
    twice reports nothing new."""

    @staticmethod
    def empty() -> dict:
        return {"kinds": {}, "errors": [], "parts": {}}

    def zero(self, value) -> dict:
        return self.empty()

    def addInPlace(self, a: dict, b: dict) -> dict:
        for p, ks in b["kinds"].items():
            a["kinds"][p] = [merge_kind(x, y) for x, y in zip(a["kinds"][p], ks)] if p in a["kinds"] else ks
        a["errors"] = sorted(set(map(tuple, a["errors"])) | set(map(tuple, b["errors"])))
        a["parts"].update(b.get("parts", {}))  # by partition: a retried task sends the same bytes
        return a


def make_task(job: dict, report, reason):
    """The ``mapInArrow`` function for one distributed run.

    ``job``: the program (without facts and bindings), the horizon, the input predicates as
    ``(pred, [term columns], {column: slot}, [term text columns])`` in wide-table order (``None``
    for the columns: the input holds row numbers ``_pf`` into ``job["held"][pred]``,
    program facts that travel with the job), the output predicates
    with their column names, and the CSV-read predicates; ``report``: the
    :class:`TaskReport` accumulator; ``reason``: the embedded reasoner each
    task runs (``chronolog.reason``, passed in: it is the API's, a layer
    above the connectors).  ``job["send"]``: when set, the bytes a
    task may also send its lanes in through the report (the driver then
    holds every answer after the one job, see ``spark._Answers``)."""
    max_arity = max((len(names) for _, names in job["outputs"]), default=0)
    budget = job.get("send")

    def run_partition(batches):
        import pyarrow as pa
        import pyarrow.compute as pc

        from chronolog.engine.arrow import with_term_text
        from chronolog.language.errors import ChronologError

        batches = list(batches)
        from pyspark import TaskContext

        ctx = TaskContext.get()
        if job.get("fail_first") and ctx is not None and ctx.attemptNumber() == 0:
            raise RuntimeError("injected failure (first attempt of every task)")
        part = ctx.partitionId() if ctx is not None else 0
        wide = pa.Table.from_batches(batches) if batches else None
        if wide is None or wide.num_rows == 0:
            if budget is not None:
                report.add({"kinds": {}, "errors": [], "parts": {part: b""}})
            return
        try:
            engine = task_engine(wide.num_rows, job.get("partitions", 1))
            min_rows = direct_min_rows(engine)
            facts = {}
            which = wide.column("__in")
            for i, (pred, terms, where, text) in enumerate(job["inputs"]):
                rows = wide.filter(pc.equal(which, i))
                if rows.num_rows == 0:
                    continue
                if terms is None:  # row numbers into the program's facts that came with the job
                    held = job["held"][pred]
                    facts.setdefault(pred, []).append([held[n] for n in rows.column(where["_pf"]).to_pylist()])
                    continue
                cols = terms + ["start", "end", "start_closed", "end_closed"]
                t = with_term_text(pa.Table.from_arrays([rows.column(where[c]) for c in cols], names=cols), text)
                with named_source(pred, job["sources"]):
                    fc = None
                    if pred not in job["csv"] and min_rows is not None:
                        fc = typed_columns(t, pred, job["calendar"], min_rows)
                    if fc is not None:  # straight into columns: no Python row per fact
                        facts.setdefault(pred, []).append(fc)
                    else:
                        facts.setdefault(pred, []).append(
                            csv_rows(t, set(terms) if pred in job["csv"] else None, pred, job["calendar"], job["csv"].get(pred))
                        )
            model = reason(job["program"], task_facts(facts), horizon=job["horizon"], engine=engine, max_rounds=job.get("max_rounds"))
            out, kinds = [], {}
            for index, (pred, names) in enumerate(job["outputs"]):
                fs = in_seconds(output_facts(model, pred, job.get("window")), job["calendar"])
                if not fs:
                    continue
                if job["timestamps"]:
                    from chronolog.engine.timestamps import check_instants

                    check_instants(fs, pred)
                out.append(lane_batch(index, fs, len(names), max_arity, job["timestamps"]))
                kinds[pred] = kinds_of(fs, len(names))
        except ChronologError as e:
            # a user error (e.g. an inconsistency) travels to the driver in
            # the report, in parts (not rendered: the driver raises it as
            # the same chronolog error, whose rendering adds the kind)
            pos = (e.pos.file, e.pos.line, e.pos.column) if e.pos is not None else ()
            # (the values a comparison or a built-in met, pickled: the driver
            # names the input row that gave one, chronolog/value_origin.py)
            operands = pickle.dumps(e.operands) if getattr(e, "operands", None) is not None else b""
            order = pickle.dumps(e.binding_order) if getattr(e, "binding_order", None) is not None else b""
            report.add({"kinds": {}, "errors": [(part, type(e).__name__, e.message, pos, e.hint, operands, order)]})
            return
        got = {"kinds": kinds, "errors": []}
        if budget is not None:
            got["parts"] = {part: ipc_bytes(out, budget)}
        report.add(got)
        yield from out

    return run_partition


def ipc_bytes(batches, budget: int):
    """Lane batches as the bytes of one Arrow IPC stream, or ``None`` when
    they exceed ``budget`` bytes (the driver then reads them from Spark)."""
    import pyarrow as pa

    if not batches:
        return b""
    if sum(b.nbytes for b in batches) > budget:
        return None
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batches[0].schema) as w:
        for b in batches:
            w.write_batch(b)
    data = sink.getvalue()
    return data.to_pybytes() if data.size <= budget else None


def ipc_table(parts, max_arity: int):
    """The lanes of :func:`ipc_bytes` streams (``b""``: none) as one table."""
    import pyarrow as pa

    batches = [b for p in parts if p for b in pa.ipc.open_stream(p)]
    return pa.Table.from_batches(batches or [lane_batch(0, [], max_arity, max_arity, False)])


def output_facts(model, pred: str, window=None) -> list:
    """The facts of ``pred`` to put in a table: inside ``window`` (repeating
    facts unrolled) when given; without one, a predicate with facts that
    repeat forever is an error rather than a table missing them."""
    if window is not None:
        return model._clipped(pred, window)
    if model.repeating(pred):
        from chronolog.language.errors import DataError

        first = next(line for line in model.lines([pred]) if " every " in line)  # (as the model prints it)
        raise DataError(
            f"{pred} has facts that repeat forever (e.g. {first}), which a table cannot hold",
            hint="give a window (window=(FROM, TO) in reason(), --window FROM,TO on the command line) "
            "or a horizon with two finite ends",
        )
    return model.facts(pred)
