"""Loading the inputs: each input DataFrame encoded in a relation's layout
(terms in their run's types, times as codes), coalesced, partitioned on
its first term and checkpointed, all inputs in one action that also counts
the rows the driver must report; or, when the inputs are only the program's own facts, in the
first round's action (:func:`deferred_inputs`).  A predicate of at most
``LITERAL_ROWS`` facts of the program, or an input table of at most as
many rows (:func:`input_facts`, :func:`local_rows`), is encoded and
coalesced on the driver instead, a literal relation in the statements
that read it (:func:`literal_inputs`): no statement, checkpoint or view
of its own.
"""

from __future__ import annotations

from chronolog.engine.exprs import col
from chronolog.engine.interval_codes import NEG, POS, from_ends
from chronolog.language.timeline import coalesce

from ..spark import _sql_name  # a column name as a Spark SQL identifier
from .calendar import micros_sql, seconds_sql
from .classes import BOOL, DATE, FLOAT, NUM, STR, TEXT, TS
from .fragment import NotRelational
from .relations import Rel
from .sql import Stmt, codes, coalesce_sql, int64, term_columns, union


# A predicate with at most this many facts in the program (and no input
# DataFrame) is a literal relation, coalesced on the driver: a small call's
# load was a statement, a DataFrame of the facts, a view and a checkpoint
# per predicate (0.05-0.1 s each warm).  A literal's rows are parsed and
# analysed in every statement that reads it, about as much as a view's
# DataFrame at a few hundred rows.
LITERAL_ROWS = 100
_LITERAL_CLASSES = {NUM, STR, BOOL, FLOAT}  # the term classes a literal writes (TermTypes.const)


class ProgramFacts:
    """Facts of one predicate kept on the driver (the program's own, or a
    small input table: :func:`input_facts`): ``rows`` (``[(terms,
    interval)]``) and ``table`` (their Arrow table), with the ``columns``
    and ``schema`` their DataFrame would have (what entry.prepare reads of
    an input), made a DataFrame only where a load reads it (:meth:`frame`,
    by ``make``: the connector's own for an input table)."""

    def __init__(self, spark, table, rows, make, schema=None):
        from chronolog.connectors.distributed import spark_schema

        self.spark, self.table, self.rows, self.make = spark, table, rows, make
        self.columns = list(table.schema.names)
        # (a column of term text keeps its mark, as its DataFrame would: arrow_frame)
        self.schema = schema if schema is not None else spark_schema(table.schema)

    def frame(self):
        return self.make(self.spark, self.table)


def literal_facts(spark, table, rows, make=None, schema=None, keyed=()):
    """A :class:`ProgramFacts` of ``rows`` (of the Arrow ``table``) when
    they can be a literal relation: at most ``LITERAL_ROWS``, each argument
    of one class that a literal writes, or among ``keyed``, arguments of
    term text (each term its key text: TermTypes.const); else None.
    ``make``: how its DataFrame is made (the session's of the table: the
    program's facts)."""
    from .classes import value_class

    try:
        classes = [{value_class(v) for v in col} for i, col in enumerate(zip(*(t for t, _ in rows))) if i not in keyed]
    except NotRelational:  # (a term no literal writes: by its DataFrame)
        return None
    if len(rows) > LITERAL_ROWS or not all(len(c) == 1 and c <= _LITERAL_CLASSES for c in classes):
        return None
    return ProgramFacts(spark, table, rows, make or (lambda spark, table: spark.createDataFrame(table)), schema)


def input_facts(spark, table, pred: str, calendar, frame=None):
    """A small input ``table`` (an Arrow table or a pandas frame given as an
    input) held as the program's facts are (:func:`literal_facts`): its
    rows as the engine reads them (engine/arrow.py: exact times of any
    time type, the wall clock of a timestamp without a zone read as UTC),
    its size known on the driver with no job.  None (the input goes by
    its DataFrame, as before) past ``LITERAL_ROWS`` rows, when a term
    column holds a class a literal does not write (dates, timestamps), or
    when the engine refuses a row (a null, a NaN: the load reports it).
    ``frame``: the input's own Spark DataFrame, when it is one (its rows
    collected from a local relation: :func:`local_rows`)."""
    from chronolog.engine.arrow import table_to_rows

    from ..spark import arrow_frame

    if table.num_rows > LITERAL_ROWS:
        return None
    try:
        rows = table_to_rows(table, pred, calendar, timestamps="times")
    except Exception:  # noqa: BLE001 - the engine's error, reported by the load's checks or one task
        return None
    if frame is not None:
        return literal_facts(spark, table, rows, lambda spark, table: frame, frame.schema)
    return literal_facts(spark, table, rows, arrow_frame)


def local_rows(df):
    """The Arrow table of a Spark DataFrame ``df`` of local data (its plan a
    ``LocalRelation``: made from a pandas frame or an Arrow table) of at
    most ``LITERAL_ROWS`` rows, with no job (Spark collects a local
    relation on the driver; its size is read off the plan); else None (any
    other plan, which only a job could count, a timestamp with a time zone,
    which pyspark collects in the driver's local zone, a nested type)."""
    import pyarrow as pa
    from pyspark.sql import types as T
    from pyspark.sql.pandas.types import to_arrow_type

    try:
        plan = df._jdf.queryExecution().analyzed()
        if plan.getClass().getSimpleName() != "LocalRelation" or plan.data().size() > LITERAL_ROWS:
            return None
    except Exception:  # noqa: BLE001 - not a classic DataFrame (Spark Connect): by its DataFrame
        return None
    fields = df.schema.fields
    if any(isinstance(f.dataType, (T.TimestampType, T.ArrayType, T.MapType, T.StructType, T.BinaryType)) for f in fields):
        return None
    from chronolog.connectors.distributed import with_text_marks

    rows = df.collect()
    table = pa.Table.from_arrays([pa.array([r[i] for r in rows], to_arrow_type(f.dataType)) for i, f in enumerate(fields)],
                                 names=[f.name for f in fields])
    return with_text_marks(table, df.schema)  # (a column of term text read as its terms, as the DataFrame's load reads it)


def literal_inputs(relations, grid, facts: list) -> None:
    """Each :class:`ProgramFacts` of ``facts`` (``[(pred, ProgramFacts)]``)
    into ``relations`` as the statements' literal of its rows: terms as
    literals of the run's types (TermTypes.const), intervals as codes,
    coalesced per atom (timeline.coalesce, as the load's statement
    coalesces them); refused
    (:func:`refuse_bad`) as the load refuses an empty interval or a time
    beyond 64-bit codes."""
    types = relations.types
    lo, hi = grid.bounds
    by_pred: dict = {}  # (a predicate's facts and its input tables coalesced as one)
    for pred, f in facts:
        by_pred.setdefault(pred, []).extend(f.rows)
    for pred, facts_rows in by_pred.items():
        atoms: dict = {}
        cls = types.classes.get(pred) or [None] * types.arity(pred)
        for terms, iv in facts_rows:
            try:
                s, e = grid.codes(iv)
            except NotRelational:
                refuse_bad(pred, 1)  # (refused as its DataFrame's load refuses it)
            if s >= e or (s != NEG and not lo < s < hi) or (e != POS and not lo < e < hi):
                refuse_bad(pred, 1)
            atoms.setdefault(tuple(types.const(v, c) for v, c in zip(terms, cls)), []).append(iv)
        out = [(*key, *map(int64, grid.codes(iv))) for key, ivs in atoms.items() for iv in coalesce(ivs)]
        relations.rels[pred] = relations.literal(pred, out)


def float_sql(x: str) -> str:
    """A float term column: ``-0.0`` as ``0.0`` (one term to the engine,
    Python's ``0.0 == -0.0``, and one fact; the engine keeps the sign of
    the first it reads, the rounds always ``0.0``); a NaN stays NaN, for
    the load to refuse (the engine's error: engine/arrow.py)."""
    d = f"CAST({x} AS DOUBLE)"
    return f"CASE WHEN {d} = 0 THEN CAST(0 AS DOUBLE) ELSE {d} END"


def instant_sql(x: str, typ) -> str:
    """An instant term column (classes.TS) of Spark type ``typ`` as a
    TIMESTAMP_NTZ of its UTC wall clock, in any session time zone: a
    TIMESTAMP (with a zone) by its UTC microseconds added to the epoch's
    wall clock (``CAST(... AS TIMESTAMP_NTZ)`` reads it in the session's
    zone), a DATE or a TIMESTAMP_NTZ by Spark's cast, which is zone-free."""
    from pyspark.sql import types as T

    if isinstance(typ, T.TimestampType):
        return f"timestampadd(MICROSECOND, unix_micros({x}), TIMESTAMP_NTZ'1970-01-01 00:00:00')"
    return f"CAST({x} AS TIMESTAMP_NTZ)"


def decoded_sql(spark, x: str, c, types) -> str:
    """SQL: a column of term text (or of a CSV's key text) whose terms share
    one kind (entry.decodable) as the class ``c`` of that kind: the text
    udfs.Decoded gives each term, cast exactly (a cell no cast reads is
    null, a bad row: one task)."""
    from .udfs import Decoded, text_udf_sql

    text = text_udf_sql(spark, "decoded", Decoded(), x)
    if c == FLOAT:
        return float_sql(f"try_cast({text} AS DOUBLE)")
    if c == DATE:
        return f"CAST(try_cast({text} AS TIMESTAMP_NTZ) AS DATE)"
    return f"try_cast({text} AS {types.sql_type(c)})"


def encode(q: Stmt, df, pred: str, terms: list, relations, grid) -> str:
    """An input DataFrame in the layout as the relation's columns (not
    coalesced): a step of ``q`` reading the input's view."""
    from pyspark.sql import types as T

    from chronolog.connectors.distributed import KIND_KEY, text_columns

    from .csv_inputs import KEYED
    from .udfs import key_text_sql

    types = relations.types
    cls = types.classes.get(pred) or [None] * len(terms)
    schema = {f.name: f.dataType for f in df.schema.fields}
    text = text_columns(df.schema)  # (a typed column holding term text's class: its terms' key text too)
    cols = [f"{decoded_sql(relations.catalog.spark, _sql_name(t), c, types)} AS c{i}" if t in text and c != TEXT
            else f"{float_sql(_sql_name(t))} AS c{i}" if c == FLOAT else f"{instant_sql(_sql_name(t), schema[t])} AS c{i}" if c == TS
            else f"{_sql_name(t)} AS c{i}" if c == TEXT and (df.schema[t].metadata or {}).get(KIND_KEY) == KEYED
            else f"{key_text_sql(relations.catalog.spark, _sql_name(t), t in text)} AS c{i}" if c == TEXT
            else f"CAST({_sql_name(t)} AS {types.sql_type(c)}) AS c{i}" for i, (t, c) in enumerate(zip(terms, cls))]
    L = grid.L

    def units(name):
        x = _sql_name(name)
        if grid.calendar is not None:  # dates and timestamps: microseconds (calendar.py)
            return micros_sql(x, schema[name])
        if isinstance(schema[name], (T.DateType, T.TimestampType, T.TimestampNTZType)):  # seconds since 1970
            return seconds_sql(x, schema[name], L)
        if isinstance(schema[name], T.DecimalType):
            return f"CAST({x} * {L} AS BIGINT)"  # exact: the scale is at most the grid's digits
        return f"(CAST({x} AS BIGINT) * {L})"

    def closed(name):
        return col(f"coalesce(`{name}`, true)" if name in schema else "true")

    ends = [(col(units(end)), col(f"`{end}` IS NOT NULL"), closed(f"{end}_closed")) for end in ("start", "end")]
    s, e = codes(from_ends(*ends[0], *ends[1]))  # (interval_codes: written once)
    out = [*cols, f"CAST({s} AS BIGINT) AS s", f"CAST({e} AS BIGINT) AS e"]
    return q.add(f"SELECT {', '.join(out)} FROM {relations.catalog.view(df)}", [*term_columns(len(terms)), "s", "e"])


def _statements(relations, grid, inputs: list) -> dict:
    """``{pred: SQL}``: each predicate's inputs (``[(pred, DataFrame)]``)
    encoded, coalesced and partitioned on the first term, its bad rows
    flagged ``_bad`` in the same pass (a group of the coalescing flags
    whether it holds one: a second query read every input again)."""
    from chronolog.connectors.spark import _term_columns

    types = relations.types
    by_pred: dict = {}
    for pred, df in inputs:
        by_pred.setdefault(pred, []).append((df, _term_columns(df)))
    texts = {}
    lo, hi = grid.bounds
    for pred, parts in by_pred.items():
        terms = term_columns(types.arity(pred))
        q = Stmt()
        steps = []
        for df, t in parts:
            enc = encode(q, df, pred, t, relations, grid)
            # a null code: an overflow that Spark without ANSI mode turns into null
            floats = [f"isnan(c{i})" for i, c in enumerate(types.classes.get(pred) or []) if c == FLOAT]
            bad = [f"c{i} IS NULL" for i in range(len(t))] + floats + [
                "s IS NULL", "e IS NULL", "s >= e",
                f"(s <> {int64(NEG)} AND (s <= {int64(lo)} OR s >= {int64(hi)}))",
                f"(e <> {int64(POS)} AND (e <= {int64(lo)} OR e >= {int64(hi)}))",
            ]
            steps.append(q.add(f"SELECT *, coalesce({' OR '.join(bad)}, true) AS _bad FROM {enc}", [*q.cols[enc], "_bad"]))
        both = union(q, steps, [*terms, "s", "e", "_bad"])
        texts[pred] = q.text(coalesce_sql(q, relations.keyed(q, both, terms), terms, [("max(_bad)", "_bad")]))
    return texts


def refuse_bad(pred: str, bad: int) -> None:
    """Refuse (to one task, whose engine names the row) an input of ``pred`` with ``bad`` rows."""
    if bad:
        raise NotRelational(f"an input row of {pred} the engine must report (a null, a NaN, an empty interval or a time beyond 64-bit codes)")


def load_inputs(relations, grid, inputs: list) -> None:
    """Encode and coalesce every input (``[(pred, DataFrame)]``) into
    ``relations``, in one action that also counts each relation's rows;
    refuse (:func:`refuse_bad`) nulls, empty intervals, NaN terms and times
    beyond 64-bit codes."""
    texts = _statements(relations, grid, inputs)
    got = relations.catalog.materialize([(t, True, "_bad") for t in texts.values()])
    for pred, (df, n, bad) in zip(texts, got):
        refuse_bad(pred, bad)
        relations.rels[pred] = Rel(df, n, relations.columns(pred))


def deferred_inputs(relations, grid, inputs: list, rows: dict) -> list:
    """The inputs as :func:`load_inputs` loads them, with no action of their
    own: each a lazy checkpoint that the first round's action writes, counts
    and checks (:func:`refuse_bad`) beside the round's relations, counted
    meanwhile by ``rows`` (``{pred: input rows}``, known on the driver: the
    program's own facts), an upper bound of the coalesced rows that is 0
    only when they are, which is all a round's plans need of a count (a
    join's order and strategy, an empty relation skipped).  A small call's
    load was an action of its own (a job, and the statement of its
    counts); the round's action computes the inputs' stages beside its
    own.  Returns the pending ``[(pred, DataFrame)]`` for it (rounds.py)."""
    pending = []
    for pred, text in _statements(relations, grid, inputs).items():
        df = relations.catalog.checkpoint(text)
        relations.rels[pred] = Rel(df, rows[pred], relations.columns(pred))
        pending.append((pred, df))
    return pending
