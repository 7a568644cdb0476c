"""Reasoning inside Spark tasks, one engine per partition of key groups.

The driver unions every input predicate (and the program's own facts) into
one wide DataFrame with a ``__key`` column (the predicate's key argument as
text), repartitions it by that key and runs :func:`run_partition` on each
partition with ``mapInArrow``.  Each task rebuilds the per-predicate tables,
runs the engine on them, and emits its output facts as canonical fact text
(the *wire*), plus one signature row per output predicate saying which
exact Arrow type each column needs.  The driver merges the signatures
(:func:`merge_kind`) and converts the wire into typed DataFrames in the
layout of :mod:`chronolog.connectors.arrow` (:func:`typed_table`), so the
result is column for column what one embedded process would return.

Correctness rests on the planner's partitionability analysis
(:mod:`chronolog.planner.partition`): every rule instance reads facts of a
single key, so the union of the partitions' models is the model.
Deterministic tasks make Spark's retries harmless.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from decimal import Decimal

WIRE_COLUMNS = [("__pred", "string"), ("fact", "string"), ("sig", "string")]
WIRE_DDL = ", ".join(f"{n} {t}" for n, t in WIRE_COLUMNS)
ERROR = "\x00error"
SIGNATURE = "\x00sig"


def pred_column(index: int, name: str) -> str:
    """The wide table's column for ``name`` of the ``index``-th predicate:
    letters and digits kept, any other character as ``_hex_`` (one name per
    name), because pyspark's ``mapInArrow`` looks its columns up by their
    bare names and a backtick or a dot there is a syntax error."""
    safe = "".join(ch if ch.isascii() and ch.isalnum() else f"_{ord(ch):x}_" for ch in name)
    return f"_p{index}_{safe}"


# ------------------------------------------------------------ column kinds


def value_kind(values) -> list:
    """The exact type a column of Python values needs, as a JSON-able list:
    ``["empty"]``, ``["int", digits]``, ``["dec", int_digits, scale]``,
    ``["rat"]`` (exact numbers as text), ``["bool"]``, ``["str"]`` or
    ``["mixed"]`` (canonical term text).  Mirrors ``arrow._column``."""
    from fractions import Fraction

    from chronolog.language.timeline import format_number

    kind = ["empty"]
    for v in values:
        if v is None:
            continue
        if type(v) is int:
            k = ["int", len(str(abs(v)))]
        elif type(v) is bool:
            k = ["bool"]
        elif type(v) is str:
            k = ["str"]
        elif isinstance(v, Fraction):
            t = format_number(v)
            if "/" in t:
                k = ["rat"]
            else:
                whole, frac = t.lstrip("-").split(".")
                k = ["dec", len(whole), len(frac)]
        else:
            k = ["mixed"]
        kind = merge_kind(kind, k)
    return kind


def merge_kind(a, b) -> list:
    if a[0] == "empty":
        return b
    if b[0] == "empty":
        return a
    if a[0] == b[0] == "int":
        return ["int", max(a[1], b[1])]
    numeric = {"int", "dec", "rat"}
    if a[0] in numeric and b[0] in numeric:
        if "rat" in (a[0], b[0]):
            return ["rat"]
        ai, asc = (a[1], 0) if a[0] == "int" else (a[1], a[2])
        bi, bsc = (b[1], 0) if b[0] == "int" else (b[1], b[2])
        return ["dec", max(ai, bi), max(asc, bsc)]
    if a[0] == b[0] and a[0] in ("bool", "str"):
        return a
    return ["mixed"]


def arrow_type(kind):
    import pyarrow as pa

    k = kind[0]
    if k in ("empty", "int"):
        if k == "int" and kind[1] > 18:
            return pa.decimal128(min(38, kind[1]), 0) if kind[1] <= 38 else pa.string()
        return pa.int64()
    if k == "dec":
        precision = max(1, kind[1] + kind[2])
        return pa.decimal128(precision, kind[2]) if precision <= 38 else pa.string()
    if k == "bool":
        return pa.bool_()
    return pa.string()


def typed_array(values, kind, typ):
    """Values as an Arrow array of the merged type ``typ`` (exact)."""
    import pyarrow as pa

    from chronolog.language.text import format_term
    from chronolog.language.timeline import format_number

    if pa.types.is_decimal(typ):
        q = Decimal(1).scaleb(-typ.scale)
        return pa.array([None if v is None else Decimal(format_number(v)).quantize(q) for v in values], type=typ)
    if pa.types.is_string(typ):
        if kind[0] in ("str",):
            return pa.array(values, type=typ)
        if kind[0] == "mixed":
            return pa.array([None if v is None else format_term(v) for v in values], type=typ)
        return pa.array([None if v is None else format_number(v) for v in values], type=typ)
    return pa.array(values, type=typ)


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
    if timestamps:
        fields[-2:] = [pa.field(f.name, pa.timestamp("us", tz="UTC")) for f in fields[-2:]]
    return pa.schema(fields + [pa.field("start_closed", pa.bool_()), pa.field("end_closed", pa.bool_())])


def spark_schema(schema):
    """A Spark StructType for an Arrow schema."""
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(schema)


def typed_table(facts, names, kinds, timestamps: bool = False, pred: str = "?"):
    """``(terms, iv)`` facts as a table of the schema :func:`schema_for` gives."""
    import pyarrow as pa

    from chronolog.language.timeline import NEG_INF, POS_INF

    if timestamps:
        from chronolog.connectors.timestamps import to_timestamps

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

def auto_values(table, columns):
    """Columns read from CSV as text: numbers in ``columns`` become exact
    numbers, closedness columns booleans (``true``/``#F``/...)."""
    import pyarrow as pa

    from chronolog.connectors.csv_files import convert
    from chronolog.language import ast

    if not columns:
        return table
    where = ast.Pos("<spark csv>", 0, 0)
    out = []
    for name, col in zip(table.schema.names, table.columns):
        if name in ("start_closed", "end_closed") and pa.types.is_string(col.type):
            col = pa.array([None if v is None else convert(v, "bool", where, name) for v in col.to_pylist()], pa.bool_())
        elif name in columns and pa.types.is_string(col.type):
            vals = [None if v is None else convert(v, "auto", where, name) for v in col.to_pylist()]
            kind = value_kind(vals)
            col = typed_array(vals, kind, arrow_type(kind))
        out.append(col)
    return pa.Table.from_arrays(out, names=table.schema.names)


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

    from chronolog.engine.columns.evaluator import AUTO_MIN_FACTS

    if os.environ.get("CHRONOLOG_ENGINE"):
        return None
    return "columns" if rows * max(1, partitions) >= AUTO_MIN_FACTS else None


def make_task(job: dict):
    """The ``mapInArrow`` function for one distributed run.

    ``job``: the program (without facts and bindings), the horizon, the input predicates as
    ``(pred, [term columns])`` in wide-table order, the output predicates
    with their column names, and the CSV-read predicates."""

    def run_partition(batches):
        import pyarrow as pa
        import pyarrow.compute as pc

        from chronolog.api import reason
        from chronolog.connectors.arrow import table_to_rows
        from chronolog.language.errors import ChronologError
        from chronolog.language.text import format_fact

        batches = list(batches)
        if job.get("fail_first"):
            from pyspark import TaskContext

            ctx = TaskContext.get()
            if ctx is not None and ctx.attemptNumber() == 0:
                raise RuntimeError("injected failure (first attempt of every task)")
        if not batches:
            return
        wide = pa.Table.from_batches(batches)
        if wide.num_rows == 0:
            return
        out_schema = pa.schema([(n, pa.string()) for n, _ in WIRE_COLUMNS])
        try:
            facts = {}
            for i, (pred, terms) in enumerate(job["inputs"]):
                rows = wide.filter(pc.equal(wide.column("__pred"), pred))
                if rows.num_rows == 0:
                    continue
                cols = terms + ["start", "end", "start_closed", "end_closed"]
                t = pa.Table.from_arrays([rows.column(pred_column(i, c)) for c in cols], names=cols)
                with named_source(pred, job["sources"]):
                    t = auto_values(t, set(terms) if pred in job["csv"] else set())
                    facts.setdefault(pred, []).extend(table_to_rows(t, pred, job["calendar"], timestamps="seconds"))
            model = reason(job["program"], fact_rows(facts), horizon=job["horizon"], engine=task_engine(wide.num_rows, job.get("partitions", 1)))
            for pred, names in job["outputs"]:
                fs = in_seconds(output_facts(model, pred, job.get("window")), job["calendar"])
                if not fs:
                    continue
                if job["timestamps"]:
                    from chronolog.connectors.timestamps import check_instants

                    check_instants(fs, pred)
                text = [format_fact(pred, t, iv) for t, iv in fs]
                yield pa.RecordBatch.from_arrays(
                    [pa.array([pred] * len(fs)), pa.array(text), pa.array([None] * len(fs), pa.string())], schema=out_schema
                )
                sig = json.dumps(kinds_of(fs, len(names)))
                yield pa.RecordBatch.from_arrays([pa.array([SIGNATURE + pred]), pa.array([None], pa.string()), pa.array([sig])], schema=out_schema)
        except ChronologError as e:
            # a user error (e.g. an inconsistency) travels to the driver as data,
            # which raises it as the same chronolog error
            msg = json.dumps({"type": type(e).__name__, "text": e.render()})
            yield pa.RecordBatch.from_arrays([pa.array([ERROR]), pa.array([None], pa.string()), pa.array([msg])], schema=out_schema)

    return run_partition


def output_facts(model, pred: str, window=None) -> list:
    """The facts of ``pred`` to put in a table: inside ``window`` (repeating
    facts unrolled) when given; without one, a predicate with facts that
    repeat forever is an error rather than a table missing them."""
    if window is not None:
        return model.facts_within(pred, window)
    if model.repeating(pred):
        from chronolog.language.errors import DataError

        raise DataError(
            f"{pred} has facts that repeat forever (e.g. {pred}{model.repeating(pred)[0][0]!r} every "
            f"{model.repeating(pred)[0][2]}), which a table cannot hold",
            hint="give a window (window=(FROM, TO) in reason(), --window FROM,TO on the command line) "
            "or a horizon",
        )
    return model.facts(pred)


def outputs_schema(outputs, schemas):
    """One Arrow schema holding every output predicate's layout side by side
    (``__pred``, then ``_o<i>_<column>`` per predicate), and per predicate
    its ``[(wide column, layout column)]``."""
    import pyarrow as pa

    fields = [pa.field("__pred", pa.string())]
    columns = {}
    for i, p in enumerate(outputs):
        columns[p] = []
        for f in schemas[p]:
            wide = f"_o{i}_{f.name}"
            fields.append(pa.field(wide, f.type))
            columns[p].append((wide, f.name))
    return pa.schema(fields), columns


def make_wide_converter(outputs, names, kinds, timestamps, wide):
    """The ``mapInArrow`` function turning wire rows into the layouts of
    their predicates, side by side in the ``wide`` schema."""

    def convert(batches):
        import pyarrow as pa
        import pyarrow.compute as pc

        from chronolog.language.facts import read_fact_rows

        for b in batches:
            preds = b.column(b.schema.get_field_index("__pred"))
            lines = b.column(b.schema.get_field_index("fact"))
            for i, p in enumerate(outputs):
                mask = pc.equal(preds, p)
                mine = lines.filter(mask).to_pylist()
                if not mine:
                    continue
                rows = read_fact_rows(mine, "<wire>").get(p, [])
                t = typed_table(rows, names[p], kinds[p], timestamps, p)
                arrays = []
                for f in wide:
                    if f.name == "__pred":
                        arrays.append(pa.array([p] * t.num_rows, pa.string()))
                    elif f.name.startswith(f"_o{i}_"):
                        arrays.append(t.column(f.name[len(f"_o{i}_"):]).combine_chunks())
                    else:
                        arrays.append(pa.nulls(t.num_rows, f.type))
                yield pa.RecordBatch.from_arrays(arrays, schema=wide)

    return convert


def make_converter(pred: str, names, kinds, timestamps: bool = False):
    """The ``mapInArrow`` function turning wire rows of one predicate ``pred``
    into its layout (the keyed path converts all outputs at once with
    :func:`make_wide_converter`)."""

    def convert(batches):
        from chronolog.language.facts import read_fact_rows

        for b in batches:
            lines = b.column(b.schema.get_field_index("fact")).to_pylist()
            rows = read_fact_rows(lines, "<wire>").get(pred, [])
            yield from typed_table(rows, names, kinds, timestamps, pred).to_batches()

    return convert
