"""The entry point: from the caller's inputs to the outputs.

:func:`reason` turns the caller's frames and the program's own facts into
input DataFrames, :func:`prepare` checks the program and the inputs and
sets up the run (term classes, the number type, the time grid, string
codes or not), then the rounds run and the outputs are read back.  All
that this path cannot run exactly raises :class:`NotRelational` before any
reasoning.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from functools import partial

from chronolog.language import ast
from chronolog.language.timeline import NEG_INF, POS_INF, format_number
from chronolog.planner.ir import Assign, Condition, NegScan, Scan

from .aggregate import program_constants
from .arithmetic import refused
from .calendar import code_bounds, reaches, term_decimals, utc_times
from .classes import (DATE, MAX_SCALE, NUM, SET, TEXT, TS, TwoKinds, decimal_digits, infer_classes, kind_class, meet, null_positions,
                      past_decimals, rational, spark_class, text_constants, text_positions, time_digits, value_class, works_on_text, writes_floats)
from .constraints import check as check_constraints
from .csv_inputs import KEYED
from .float_sums import UNFIT
from .fragment import NotRelational, check_rules
from .grid import LIMIT, Grid
from .inputs import LITERAL_ROWS, input_facts, literal_facts, local_rows
from .outputs import held_answer, held_schema, midnights, output_sql
from .rounds import Rounds

MAX_DIGITS = 12  # a time grid finer than 10^-12 is left to one task


def prepare(spark, plan, inputs: list, horizon, window=None, timestamps: bool = False, decimals=None):
    """Check ``plan`` and the inputs (``[(pred, DataFrame)]``, term columns
    then the time columns) and set up a :class:`Rounds`; raises
    :class:`NotRelational` when this path cannot run them exactly.
    ``decimals``: None, the inputs and the constants choose the run's
    numbers; else ``decimal(38, S)`` of at least so many decimals (a
    product's, or 0: integers past 64 bits)."""
    from pyspark.sql import types as T

    from chronolog.connectors.distributed import KIND_KEY, text_columns
    from chronolog.connectors.spark import _term_columns
    from chronolog.planner.physical import PlaceInterval, rule_operator, walk, window_points

    check_rules(plan, horizon)
    calendar = plan.program.calendar  # dates: a microsecond grid (calendar.py)
    places_terms = any(isinstance(op, PlaceInterval) for r in plan.rules for op in walk(rule_operator(r)))

    def classes_of(decoded: dict):
        """The classes of the inputs' and the program's terms, with the
        columns of term text in ``decoded`` (``{(input, column): kind}``)
        as their kind's class; ``classes`` None where a rule refuses term
        text (a fold of it: its terms' kind may run it)."""
        given, digits, int_digits, scaled = {}, 0, 0, []
        for k, (pred, df) in enumerate(inputs):
            terms = _term_columns(df)
            cols = given.setdefault(pred, [None] * len(terms))
            if len(cols) != len(terms):
                raise NotRelational(f"two inputs of {pred} with different numbers of columns")
            text = text_columns(df.schema)
            for i, t in enumerate(terms):
                if (k, t) in decoded:  # term text whose terms share one kind: decoded at the load (inputs.encode)
                    c, scale, whole = decoded[k, t]
                    scaled.append((pred, i, scale if c == NUM and scale else None))
                    if meet(cols[i], c) is False:  # (decoded, it cannot be keyed beside the other input)
                        raise NotRelational(f"argument {i + 1} of {pred} holds both {cols[i]} and {c} terms")
                elif t in text:  # constants of several kinds, sets, exact numbers as text: their key text (classes.TEXT)
                    if calendar is not None and (df.schema[t].metadata or {}).get(KIND_KEY) != KEYED:
                        # (term text is read without the calendar at the load, udfs.KeyText; a CSV
                        # column's cells are keyed as the CSV reader reads them, with no calendar)
                        raise NotRelational(f"argument {i + 1} of {pred} is a column of term text in a program with a calendar")
                    c, scale, whole = TEXT, 0, 0
                else:
                    c, scale, whole = spark_class(df.schema[t].dataType)
                    if c == NUM and scale > MAX_SCALE:  # (decimals no decimal(38) holds beside 64-bit integers: as 1/3)
                        c, scale, whole = TEXT, 0, 0
                    else:
                        scaled.append((pred, i, term_decimals(df.schema[t].dataType)))
                if places_terms:  # (a term's decimals are a time's where a head's interval is made of terms)
                    digits = max(digits, scale)
                int_digits = max(int_digits, whole)
                # two inputs of two kinds in one argument: term text, each keyed at its load
                cols[i] = TEXT if meet(cols[i], c) is False else meet(cols[i], c)
            for t in ("start", "end"):
                if t in df.columns and calendar is None:
                    digits = max(digits, time_digits(df.schema[t].dataType))
        mixed_heads: set = set()  # the arguments that must hold term text for a head's sake (classes.TwoKinds)
        while True:
            texts = text_positions(plan, given, mixed_heads)
            for pred, i in texts:  # an input's typed column joined with term text: its key text at the load
                if pred in given:
                    given[pred][i] = TEXT
            if texts and calendar is not None:
                made = null_positions(plan)  # (the rule that makes them named: chase.py)
                if made:
                    rule = next(r for r in plan.rules if any((r.head_pred, i) in made for i in range(len(r.head_terms))))
                    raise NotRelational("labelled nulls (term text) in a program with a calendar", rule)
                if mixed_heads and any(pred in given for pred, _ in texts):
                    # (written by the rounds' SQL only, term text is the engine's key
                    # text of the terms, as without a calendar; an input's column
                    # keyed at the load is read without the calendar: udfs.KeyText)
                    raise NotRelational("an argument of two kinds of terms (term text) in a program with a calendar, "
                                        "joined with an input's column")
            try:
                classes = infer_classes(plan, given, texts)
                break
            except TwoKinds as e:
                if e.positions <= texts:  # pragma: no cover - a position of term text takes any class
                    raise
                mixed_heads |= e.positions
            except NotRelational:
                if not texts:
                    raise
                classes = None
                break
        return given, texts, classes, digits, int_digits, [x for pred, i, x in scaled if given[pred][i] != TEXT]

    given, texts, classes, digits, int_digits, scales = classes_of({})
    cells = None  # {(input, column): [the kinds of its cells]} of the inputs' columns of term text, where asked
    if texts:
        # the program orders, computes on or folds term text: a column of it whose terms share one kind runs as that kind
        decoded, cells = decodable(spark, inputs) if classes is None or works_on_text(plan, classes) else ({}, None)
        if decoded:  # (inputs.encode decodes them, literal_inputs writes their terms)
            given, texts, classes, digits, int_digits, scales = classes_of(decoded)
        cells = {key: kinds for key, kinds in (cells or {}).items() if key not in decoded} if cells is not None else None
    text_floats, text_scale = floats_in_text(inputs, texts, cells)
    if text_scale is not None and text_scale[0] and max(19, text_scale[1]) + text_scale[0] <= 38:
        scales.append(text_scale[0])  # arithmetic on term text: its decimals are the run's numbers (text_order.number_sql)
    term_scale = 0
    written = text_constants(plan, texts)  # constants written as key text: any term
    for v in program_constants(plan):  # (in order: the first a run cannot hold is the one reported)
        if any(v is w for w in written):
            written.remove(next(w for w in written if w is v))
            continue
        if rational(v):  # (1/3: its key text where a rule computes on it, else refused where it is read)
            continue
        value_class(v)
        term_scale = max(term_scale, decimal_digits(v))
    if classes is None:  # (the refusal of term text no decoding took away)
        classes = infer_classes(plan, given, texts)
    any_dec = term_scale > 0 or any(x is not None for x in scales) or decimals is not None
    if any_dec:
        scale = max(term_scale, decimals or 0, max((x for x in scales if x is not None), default=0))
        if max(int_digits, 19) + scale > 38:
            raise NotRelational("decimal terms that need more than 38 digits next to 64-bit integers")
        num_type = T.DecimalType(38, scale)
    else:
        num_type = T.LongType()
    pts = window_points(plan, horizon) + (list(window[:2]) if window is not None else [])
    for p in pts if calendar is None else ():
        digits = max(digits, decimal_digits(p))
    if digits > MAX_DIGITS:
        raise NotRelational(f"times with {digits} decimal digits")
    grid = Grid(digits, calendar)
    if calendar is not None:  # (a month's grouping moves a time by up to 31 days)
        moves = sum(abs(grid.unit(p)) for p in window_points(plan, None) + reaches(plan))
        grid.bounds = code_bounds(2 * moves * (len(plan.strata) + 1))
    if timestamps and calendar is None:  # answers as timestamps: seconds on the microsecond grid
        if digits > 6:
            raise NotRelational(f"answers as timestamps (timestamps=True) of times with {digits} decimal digits")
        grid.timestamps = True
        moves = sum(abs(grid.unit(p)) for p in window_points(plan, None))
        grid.bounds = code_bounds(2 * moves * (len(plan.strata) + 1), Fraction(grid.L, 10**6))
    rounds = Rounds(spark, plan, classes, num_type, grid, horizon)
    rounds.types.text_floats = text_floats or writes_floats(plan, classes)
    # a static bound keeps every finite code inside 64 bits: inputs (checked
    # below) plus every window of every rule, applied once per stratum
    reach = sum(abs(rounds.grid.unit(p)) for p in pts if p not in (NEG_INF, POS_INF))
    if calendar is not None:  # dates are far from 0 in microseconds: only the windows move a time
        reach = moves
    if 2 * reach * (len(plan.strata) + 1) >= LIMIT // 4:
        raise NotRelational("windows too large for 64-bit codes")
    return rounds


def floats_in_text(inputs: list, texts: set, cells) -> tuple:
    """``(may hold floats, (decimals, whole digits) or None)`` of the run's
    term text: whether a float may be among its terms (``cells``: the
    kinds of the cells of the inputs' columns of term text, None where
    not asked), which arithmetic on term text cannot tell from an exact
    number's text (``float(1.5)`` is written ``1.5``: text_order.py);
    and, where none is, the most decimals and whole digits of its
    numbers, which the run's number type then holds."""
    from chronolog.connectors.distributed import text_columns
    from chronolog.connectors.spark import _term_columns

    if cells is None:
        return bool(texts), None
    scale = whole = 0
    for kinds in cells.values():
        for k in kinds:
            if k[0] == "float":
                return True, None
            if k[0] == "dec":
                scale, whole = max(scale, k[2]), max(whole, k[1])
            elif k[0] == "int":
                whole = max(whole, k[1])
    for k, (pred, df) in enumerate(inputs):  # a typed column keyed as term text (classes.text_positions)
        text = text_columns(df.schema)
        for i, t in enumerate(_term_columns(df)):
            if (pred, i) in texts and t not in text and spark_class(df.schema[t].dataType)[0] not in (NUM, None):
                return True, None
    return False, (scale, whole)


def decodable(spark, inputs: list) -> tuple:
    """``{(input, column): (class, digits after the point, before it)}`` of
    the inputs' columns of term text (``[(pred, DataFrame)]``) whose terms
    share one kind that a typed column holds: all exact numbers of a finite
    decimal within 38 digits and MAX_SCALE decimals (64 bits for integers), all strings, all
    booleans, all floats or all instants; found in ONE Spark job
    (udfs.TermKind per cell, merged per column as engine/term_types merges
    kinds).  Such a column is decoded at the load (inputs.encode) and runs
    as a typed one: ordered, computed on and folded as the engine does its
    terms.  A column whose kinds mix stays term text, ordered and folded
    by its key text (text_order.py).  Also ``{(input, column): [kind of
    each distinct cell]}`` of every column of term text (:func:`floats_in_text`)."""
    import json

    from pyspark.sql import functions as F

    from chronolog.connectors.distributed import text_columns
    from chronolog.connectors.spark import _sql_name, _term_columns
    from chronolog.engine.term_types import merge_kind, value_kind

    from .udfs import TermKind, text_udf_sql

    parts, kinds, cells = [], {}, {}
    for k, (pred, df) in enumerate(inputs):
        terms = _term_columns(df)
        for t in text_columns(df.schema):
            if t not in terms:
                continue
            if not hasattr(df, "select"):  # held on the driver (inputs.ProgramFacts): its terms are known
                values = [row[terms.index(t)] for row, _ in df.rows]
                kinds[k, t] = value_kind(values)
                cells[k, t] = [value_kind([v]) for v in values]
                continue
            kind = F.expr(text_udf_sql(spark, "term_kind", TermKind(), _sql_name(t)))
            parts.append(df.select(F.lit(k).alias("i"), F.lit(t).alias("c"), kind.alias("k")).distinct())
    if parts:
        union = parts[0]
        for p in parts[1:]:
            union = union.unionByName(p)
        for row in union.distinct().collect():
            if row["k"] is not None:
                kinds[row["i"], row["c"]] = merge_kind(kinds.get((row["i"], row["c"]), ["empty"]), json.loads(row["k"]))
                cells.setdefault((row["i"], row["c"]), []).append(json.loads(row["k"]))
    # (any other kind stays term text)
    return {key: kind_class(kind) for key, kind in kinds.items() if kind_class(kind) is not None
            and not (kind[0] == "int" and kind[2]) and not past_decimals(kind)}, cells


def _fact_class(v):
    """The class of a program fact's term ``v`` (classes.value_class); an
    exact number the run's numbers cannot hold (``1/3``, 39+ digits) is
    term text (classes.TEXT), as is one of more than MAX_SCALE decimals
    (2^-20): its argument is keyed (:func:`keyed_facts`),
    the engine's exact number compared, ordered and joined by its key text."""
    from chronolog.engine.term_types import value_kind

    kind = value_kind([v])
    if kind[0] == "rat" or (kind[0] == "int" and kind[1] > 38) or past_decimals(kind):
        return TEXT
    return value_class(v)


def held_table(spark, df, pred: str, calendar):
    """An input held on the driver when it is small (:func:`inputs.input_facts`),
    else None: an Arrow table or a pandas frame, or a Spark DataFrame of
    local data (:func:`inputs.local_rows`)."""
    import pyarrow as pa

    frame = df if hasattr(df, "toArrow") else None  # a Spark DataFrame: held when it is a small local relation
    if frame is not None:
        df = local_rows(frame)
    elif isinstance(df, pa.RecordBatch):
        df = pa.Table.from_batches([df])
    elif not isinstance(df, pa.Table):
        from chronolog.engine.arrow import pandas_table

        if len(df) > LITERAL_ROWS:
            return None
        df = pandas_table(df, pred)
    if df is None or not {"start", "end"} <= set(df.schema.names):
        return None  # (refused with its DataFrame's message)
    from ..spark import spark_typed

    return input_facts(spark, spark_typed(df), pred, calendar, frame)


def keyed_facts(spark, table, rows, keyed: list, naive: bool):
    """The program's facts ``rows`` of one predicate (their Arrow ``table``)
    whose arguments ``keyed`` hold terms of two kinds: those columns as
    each term's key text (engine/term_types.key_text, on the driver),
    marked so that the load reads them as they are (csv_inputs.KEYED); a
    literal relation (inputs.literal_facts) when small, else a DataFrame."""
    import pyarrow as pa
    from pyspark.sql import types as T
    from pyspark.sql.pandas.types import from_arrow_schema

    from chronolog.connectors.distributed import KIND_KEY
    from chronolog.connectors.spark import arrow_frame, marked
    from chronolog.engine.term_types import key_text

    names = table.schema.names
    arrays = [pa.array([key_text(t[i]) for t, _ in rows], pa.string()) if i in keyed else table.column(i) for i in range(len(names))]
    table = pa.Table.from_arrays(arrays, names=names)
    fields = from_arrow_schema(table.schema).fields
    schema = T.StructType([T.StructField(f.name, f.dataType, f.nullable, {KIND_KEY: KEYED} if i in keyed else None)
                           for i, f in enumerate(fields)])

    def make(spark, table):
        return marked(arrow_frame(spark, table) if naive else spark.createDataFrame(table), [names[i] for i in keyed], KEYED)

    return literal_facts(spark, table, rows, make, schema, keyed) or make(spark, table)


def kept(plan, outputs) -> set:
    """The relations a run must hold to its end: the outputs and what the
    constraints read after the last stratum (the others are released after
    their last reader, rounds.py)."""
    return set(outputs) | {lit.pred for r in plan.constraints for lit in r.body if isinstance(lit, (Scan, NegScan))}


def reason(spark, plan, frames: list, local_facts: list, outputs: list, names: dict, horizon, window, timestamps: bool, stats=None) -> dict:
    """The relational run behind ``connectors.spark.reason(distributed=True)``
    for a program with no key: ``{pred: DataFrame}`` in the layout.
    ``frames``: ``[(pred, DataFrame | Arrow | pandas, read from CSV)]``;
    ``local_facts``: the program's own facts (small, sent from the driver);
    ``horizon``, ``window``: parsed intervals or None.  Raises
    :class:`NotRelational` before any reasoning when it cannot run them."""
    import pyarrow as pa

    from chronolog.engine.arrow import facts_to_arrow
    from chronolog.connectors.spark import _spark_df, arrow_frame

    inputs, local = [], {}  # local: {pred: rows} of what the driver holds
    framed = False  # an input only Spark can count (a DataFrame, or a table not held)
    for pred, df, csv in frames:
        if csv:  # every cell text: typed as the embedded CSV reader types it, in SQL (one job)
            from chronolog.connectors.distributed import csv_kinds

            from .csv_inputs import typed

            framed = True
            inputs.append((pred, typed(spark, df, pred, csv_kinds(plan.program, pred), plan.program.calendar)))
            continue
        held = held_table(spark, df, pred, plan.program.calendar)
        if held is not None:
            inputs.append((pred, held))
            local.setdefault(pred, []).extend(held.rows)
            continue
        framed = True
        df = _spark_df(spark, df, pred)
        for needed in ("start", "end"):
            if needed not in df.columns:
                raise NotRelational(f"the DataFrame for {pred} has no '{needed}' column")
        inputs.append((pred, df))
    local_classes, program = {}, {}
    for f in local_facts:
        cols = local_classes.setdefault(f.pred, [set() for _ in f.terms])
        if len(cols) != len(f.terms):
            raise NotRelational(f"facts of {f.pred} with different numbers of terms")
        for i, v in enumerate(f.terms):
            cols[i].add(_fact_class(v))
        program.setdefault(f.pred, []).append((f.terms, f.interval))
    for pred, rows in program.items():
        local.setdefault(pred, []).extend(rows)
        table = facts_to_arrow(rows, [f"c{i}" for i in range(len(rows[0][0]))], plan.program.calendar)
        for i, cls in enumerate(local_classes[pred]):
            if cls == {NUM} and pa.types.is_string(table.column(i).type):  # (pragma: no cover - _fact_class keys them)
                big = max((t[i] for t, _ in rows), key=lambda v: len(format_number(v)))
                raise NotRelational(f"the number {format_number(big)} in argument {i + 1} of {pred} has more than 38 digits")
        if plan.program.calendar is not None:
            table = utc_times(table)
        # (a timestamp without a zone stays one, its wall clock UTC: Spark's own choice reads it in the session's zone)
        naive = any(pa.types.is_timestamp(t) and t.tz is None for t in table.schema.types)
        # an argument of two kinds (dates beside timestamps are instants): term text, each fact's key text (classes.TEXT)
        # and an argument holding an exact number with no finite decimal or past 38 digits (1/3): its key text too
        keyed = [i for i, cls in enumerate(local_classes[pred]) if (len(cls) > 1 and not cls <= {DATE, TS}) or TEXT in cls]
        if keyed:
            inputs.append((pred, keyed_facts(spark, table, rows, keyed, naive)))
            continue
        inputs.append((pred, literal_facts(spark, table, rows) or (arrow_frame(spark, table) if naive else spark.createDataFrame(table))))
    rows = None if framed else {pred: len(r) for pred, r in local.items()}
    decimals, engine_floats, again = None, False, []
    while True:
        try:
            out = _rounds(spark, plan, inputs, rows, outputs, names, horizon, window, timestamps, stats, decimals, engine_floats)
            if stats is not None and again:
                stats["ran_again"] = again  # (each run's stop: the rounds ran again, exact where it stopped)
            return out
        except NotRelational as r:
            why, exact = r.why, exact_divisions(plan, r)
            wider = wider_numbers(plan, r) if exact is None else None
            unfit = r.kind == UNFIT and not engine_floats  # (floats a sum's integers do not hold: the engine's fold)
            if exact is None and wider is None and not unfit:
                raise
        again.append(why)
        if unfit:
            engine_floats = True
        else:
            plan, decimals = (exact, decimals) if exact is not None else (plan, wider)


def _rounds(spark, plan, inputs: list, rows, outputs: list, names: dict, horizon, window, timestamps: bool, stats,
            decimals: int, engine_floats: bool = False) -> dict:
    """:func:`reason`'s rounds over its ``inputs`` (``rows``: the count of
    facts of each, where every input's rows are known here; else None),
    in decimals of at least ``decimals`` digits after the point where the
    run has decimals; ``engine_floats``: every sum and mean of floats by
    the engine's fold (terms.TermTypes.engine_float_sums)."""
    from pyspark.errors import ArithmeticException

    from .sql import expected_failures

    rounds = prepare(spark, plan, inputs, horizon, window, timestamps, decimals)
    rounds.types.engine_float_sums = engine_floats
    done = False
    try:
        try:
            with expected_failures():  # an overflow or a row check: one task runs it instead
                # then the engine's error for a violated constraint (constraints.py)
                # only the program's own facts and small input tables: their rows
                # are known here (``rows``), the first round's action loads them
                rounds.run(inputs, keep=kept(plan, outputs), after=partial(check_constraints, rounds), rows=rows)
        except ArithmeticException as e:  # ANSI mode: a 64-bit or decimal overflow, never a wrapped value
            raise NotRelational(f"Spark arithmetic overflowed ({e.getCondition()})") from None
        except Exception as e:  # a row check inside a statement: no exact value in the run's types
            r = refused(e)  # arithmetic.stop_sql
            if r is None:
                raise
            r.decimals = getattr(rounds.types.num_type, "scale", None)  # (the run's, None: 64-bit integers; wider_numbers)
            raise r from None
        if stats is not None:
            stats["path"] = "relational"
            stats["rounds"] = rounds.stats.rounds
            stats["load"] = rounds.stats.load  # the load of the inputs: a RoundStat (stratum -1)
            stats["relations"] = dict(rounds.relations.rels)  # {pred: Rel}: checkpointed plans and counts, to inspect
        w = rounds.grid.codes(window) if window is not None else None
        out = outputs_of(spark, rounds, outputs, names, w)
        done = True
        return out
    finally:
        rounds.catalog.close(failed=not done)  # the outputs keep their analysed plans


def exact_divisions(plan, refused: NotRelational):
    """``plan`` with every division in its conditions and assignments
    computed exactly as term text (arithmetic.Quotient), where ``refused``
    stopped its rounds at a quotient that is not whole (``P / Q`` of the
    integers 7 and 2, whose 3.5 the run's numbers, 64-bit integers or
    ``decimal(38, S)``, may not hold: engine/exprs.NOT_WHOLE); None where
    it did not.  The run's numbers are tried first: a quotient that is
    whole runs on them, far faster than on exact pairs, and the rounds run
    again on term text only where the data needs it (one task answered
    such a program, however large)."""
    import copy

    from chronolog.engine.exprs import NOT_WHOLE

    from .arithmetic import Quotient, quotients

    def divisions(lit) -> list:
        return [e for e in _subexpressions(lit) if isinstance(e, ast.BinOp) and e.op == "/" and not isinstance(e, Quotient)]

    if refused.kind != NOT_WHOLE or not any(divisions(lit) for lit in _literals(plan)):
        return None
    exact = {id(plan.program): plan.program}  # id(literal) -> the literal with its divisions exact; the user's program not copied
    for lit in _literals(plan):
        if divisions(lit) and isinstance(lit, Assign):
            exact[id(lit)] = Assign(lit.var, quotients(lit.expr))
        elif divisions(lit):
            c = lit.comparison
            exact[id(lit)] = Condition(replace(c, left=quotients(c.left), right=quotients(c.right)))
    out = copy.deepcopy(plan, exact)  # (the rules, the strata and the constraints share the literals: each replaced once)
    out.__dict__.pop("_physical", None)  # (lowered again, from the new literals)
    return out


def wider_numbers(plan, refused: NotRelational):
    """The decimals of the run of ``plan`` that holds the number ``refused``
    stopped its rounds at, or None (another stop; past 16 decimals,
    arithmetic.Arithmetic.times): a value past 64-bit integers (a sum, a
    product, ``A + B``: engine/exprs.PAST_64_BITS) in ``decimal(38, 0)``;
    a product with more decimals than the run's (two prices of 2 decimals:
    MORE_DECIMALS) in twice its decimals, as a product of two of its
    numbers has.  Unlike a quotient such a number has a finite decimal:
    the run's numbers widened hold it, far cheaper than exact pairs."""
    from chronolog.engine.exprs import MORE_DECIMALS, PAST_64_BITS

    s = refused.decimals
    if refused.kind == PAST_64_BITS and s is None:  # (a run of 64-bit integers)
        return 0
    if refused.kind == MORE_DECIMALS and s and 2 * s <= 16:
        return 2 * s
    return None


def _literals(plan):
    """The conditions and assignments of ``plan``'s rules and constraints
    (an aggregate's after it too)."""
    from chronolog.planner.physical import Aggregate, rule_operator

    for r in (*plan.rules, *plan.constraints):
        for lit in (*r.body, *(r.after if isinstance(rule_operator(r), Aggregate) else ())):
            if isinstance(lit, (Assign, Condition)):
                yield lit


def _subexpressions(lit) -> list:
    """Every expression inside a condition or an assignment."""
    exprs = [lit.expr] if isinstance(lit, Assign) else [lit.comparison.left, lit.comparison.right]
    return [x for e in exprs for x in ast.subexpressions(e)]


def outputs_of(spark, rounds, outputs: list, names: dict, window) -> dict:
    """``{pred: DataFrame}`` of the outputs; one whose relation is held on
    the driver (rounds.HELD_ROWS) answers its first ``toArrow()`` with the
    table Spark would collect, made on the driver (no job: a small call's
    collection of its outputs was a job each)."""
    from chronolog.connectors.spark import _keyed_output, _Tables, large_var_types, marked

    from chronolog.engine.arrow import with_term_text

    large = large_var_types(spark)
    out, tables = {}, {}
    served = _Tables(tables)
    for p in outputs:
        text = output_sql(rounds.relations, rounds.grid, p, names[p], window)
        classes = rounds.relations.types.classes.get(p) or []
        instants = [i for i, c in enumerate(classes) if c == TS]
        rel = None if instants else rounds.relations.rels.get(p)  # (not held: the output's types are known after a job)
        if instants:  # DATEs out where every answer is a midnight: one job asks (outputs.midnights)
            found = midnights(rounds.catalog.sql(text, lasting=True), [names[p][i] for i in instants])
            text = output_sql(rounds.relations, rounds.grid, p, names[p], window, [instants[i] for i in found])
        schema = held_schema(rel, rounds.grid, names[p])  # a literal's: its statement analysed only where the caller uses the DataFrame
        # munion's sets and term text's key texts: term text, marked so that the output reads back as its terms
        # (connectors/distributed.text_columns)
        sets = [n for n, c in zip(names[p], classes) if c in (SET, TEXT)]
        df = None if schema is not None else marked(rounds.catalog.sql(text, lasting=True), sets)
        answer = held_answer(rel, rounds.grid, names[p], window, schema or df.schema, large)
        if answer is None:  # (with sets, a DataFrame whose toArrow() marks them, as Model.to_arrow)
            out[p] = _keyed_output(spark, partial(lambda jdf: jdf, df._jdf), None, p) if sets else df
            continue
        make = partial(lambda t, m: marked(rounds.catalog.sql(t, lasting=True), m)._jdf, text, sets) if df is None else partial(lambda jdf: jdf, df._jdf)
        tables[p] = with_term_text(answer, sets)
        out[p] = _keyed_output(spark, make, served, p)
    return out
