"""Models as dataframes and in notebooks: one or all predicates as Arrow,
pandas or Polars tables with typed columns, DataFrames (pandas, Polars,
Arrow) as input, iteration over facts and an HTML summary.

Typed columns (pandas and Polars): integer columns are nullable ``Int64``
(an unbounded end is null, never NaN); on a date timeline ``start``/``end``
are datetimes; a column holding non-integer rationals becomes ``float64``
for computing plus a ``<name>_exact`` text column with the exact value
(``1/3``), which is what is read back when the frame is given as facts.
The Arrow table keeps the exact layout of ``engine/arrow.py``.
"""

from __future__ import annotations

import os
import re
from collections import namedtuple

from chronolog.language.errors import ArgumentError, ChronologError, DataError

EXACT = "_exact"


class Fact(namedtuple("Fact", "pred terms interval every calendar", defaults=(None, None))):
    """One fact of a model; ``every`` is the period of a fact that repeats
    forever (None otherwise).  ``str(fact)`` is its canonical text.
    (collections' namedtuple, not typing's NamedTuple: a command imports
    no typing.)"""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Fact({str(self)!r})"

    def __str__(self) -> str:
        from chronolog.language.dates import format_fact

        text = format_fact(self.pred, self.terms, self.interval, self.calendar)
        if self.every is not None:
            from chronolog.api import _format_period

            text += f" every {_format_period(self.every, self.calendar)}"
        return text


def facts_of(model, pred: str) -> list:
    """``Fact``s of one predicate: maximal intervals, then repeating ones."""
    cal = model.calendar
    out = [Fact(pred, t, iv, None, cal) for t, iv in model.facts(pred)]
    out += [Fact(pred, t, iv, per, cal) for t, iv, per in model.repeating(pred)]
    return out


def has_predicate(model, pred: str) -> bool:
    """Whether ``model[pred]`` answers: ``pred in model`` and indexing agree."""
    return pred in model.plan.arities or pred in model.predicates()


def contains(model, x) -> bool:
    """``x in model``: a predicate name as indexing takes it; a fact's text
    (``"q(a)@1"``: no name holds '(' or '@') whether it holds, as
    ``model.holds``; else a Fact."""
    if isinstance(x, str):
        return model.holds(x) if "@" in x or "(" in x else has_predicate(model, x)
    return any(f == x for f in iterate(model))


def get_item(model, pred: str) -> list:
    if not isinstance(pred, str):
        raise TypeError("model[...] takes a predicate name, e.g. model['p']")
    if not has_predicate(model, pred):
        known = ", ".join(model.predicates()) or "none"
        raise KeyError(f"no predicate {pred!r} in the model (predicates with facts: {known})")
    return facts_of(model, pred)


def iterate(model):
    for p in model.predicates():
        yield from facts_of(model, p)


# ------------------------------------------------------------ tables
def all_facts_table(model, preds=None, window=None, what: str = "to_arrow()"):
    """Facts of several predicates in one Arrow table: ``pred``, the terms as
    ``c0, c1, ...`` (null past a predicate's arity), then the interval."""
    import pyarrow as pa

    from chronolog.engine.arrow import facts_to_arrow
    from chronolog.language.dates import OffGrid

    preds = model.output_predicates if preds is None else model._known(preds, what)
    if window is not None:
        from chronolog.api import _interval

        window = _interval(window, model.calendar, "window")
    rows, names = [], []
    for p in preds:
        for terms, iv in _rows(model, p, window):
            rows.append((p, terms, iv))
    arity = max((len(t) for _, t, _ in rows), default=0)
    cols = [f"c{i}" for i in range(arity)]
    try:
        table = facts_to_arrow([(t + (None,) * (arity - len(t)), iv) for _, t, iv in rows], cols, model.calendar)
    except OffGrid as e:  # (named by the predicate whose fact holds the time)
        t = e.seconds / model.calendar.unit_seconds
        raise e.of(next(p for p, _, iv in rows if t in iv[:2])) from None
    names = [p for p, _, _ in rows]
    return table.add_column(0, "pred", pa.array(names, pa.string()))


def _rows(model, pred, window):
    from chronolog.outputs import finite_rows

    return finite_rows(model, pred, window, "a table", "pass a window, e.g. window=(0, 1000)")


def _split_exact(table):
    """Decimal and rational-text columns -> (float column, exact text column),
    term-text columns (several kinds of constants) -> (the text, the text);
    ``(name, float or text array, text array)`` per such column."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from chronolog.engine.arrow import term_text_names

    out = []
    marked = term_text_names(table)
    for name in table.schema.names:
        if name in ("pred", "start_closed", "end_closed"):
            continue
        col = table.column(name)
        typ = col.type
        if pa.types.is_decimal(typ):
            text = _decimal_text(col)
            out.append((name, pc.cast(col, pa.float64()), text))
        elif pa.types.is_string(typ) and (name in ("start", "end") or name in marked and _rational_text(col)):
            # (a term column of rationals is marked as term text, with_term_text; an
            # unmarked string column holds strings, "1/3" among them)
            from fractions import Fraction

            vals = col.to_pylist()
            try:
                floats = [None if v is None else float(Fraction(v)) for v in vals]
            except (ValueError, ZeroDivisionError):  # (+inf beside 1/3: term text, as below)
                if name in marked:
                    out.append((name, col, col))
                continue
            out.append((name, pa.array(floats, pa.float64()), col))
        elif name in marked:  # constants of several kinds: the text, and again as the exact text read back
            out.append((name, col, col))
    return out


def _decimal_text(col):
    """Arrow's decimal-to-text cast, through ``decimal64`` when the
    precision allows (18 digits: every decimal the columnar executor
    writes): its cast works in 64 bits, 18 against 25 ms per 500,000
    values, the same text."""
    import pyarrow as pa
    import pyarrow.compute as pc

    typ = col.type
    if pa.types.is_decimal128(typ) and typ.precision <= 18 and hasattr(pa, "decimal64"):
        try:
            return pc.cast(pc.cast(col, pa.decimal64(typ.precision, typ.scale)), pa.string())
        except (pa.ArrowNotImplementedError, pa.ArrowInvalid):
            pass
    return pc.cast(col, pa.string())


def _has_slash(col) -> bool:
    """Whether a ``/`` may be in the strings of ``col``: one ``memchr`` over
    each chunk's character buffer (a whole buffer: a slice's neighbours may
    answer yes, then the values decide), 0.25 ms less than a kernel's
    per-string match for 100,000 names."""
    for chunk in getattr(col, "chunks", [col]):
        data = chunk.buffers()[2] if len(chunk) else None
        if data is not None and b"/" in memoryview(data).tobytes():
            return True
    return False


def _rational_text(col) -> bool:
    """A term column that the Arrow layout holds as text because some value
    is a rational such as ``1/3`` (every value a number)."""
    from chronolog.language.timeline import parse_number

    if not _has_slash(col):  # (names are most string columns)
        return False
    vals = [v for v in col.to_pylist() if v is not None]
    try:
        for v in vals:
            parse_number(v)
    except (ValueError, ZeroDivisionError):
        return False
    return True


def to_pandas(model, pred=None, window=None):
    """A typed pandas DataFrame of one predicate or of several (``pred`` column)."""
    try:
        import pandas as pd
    except ImportError:
        raise ChronologError(
            "to_pandas() needs pandas, which is not installed",
            hint="pip install pandas (the [pandas] extra: pip install '.[pandas]' in chronolog's checkout), "
            "or use to_polars() or to_arrow(), which need nothing more",
        ) from None
    import pyarrow as pa

    table = model._table(pred, window, "to_pandas()")
    exact = _split_exact(table)
    for name, floats, _ in exact:
        table = table.set_column(table.schema.get_field_index(name), name, floats)
    df = table.to_pandas(
        types_mapper=lambda t: pd.Int64Dtype() if t == pa.int64() else None,
        date_as_object=False,
        split_blocks=True,  # (a block per column, not the columns of a type copied into one: 1.3 of 4.9 ms for the rolling bench's four answers)
    )
    for name, _, text in exact:  # (from Arrow by pandas: no Python string list in between)
        df.insert(df.columns.get_loc(name) + 1, name + EXACT, text.to_pandas(types_mapper={pa.string(): pd.StringDtype()}.get))
    return df


def to_polars(model, pred=None, window=None):
    """A typed Polars DataFrame (same columns as :func:`to_pandas`)."""
    import polars as pl

    table = model._table(pred, window, "to_polars()")
    exact = _split_exact(table)
    for name, floats, _ in exact:
        table = table.set_column(table.schema.get_field_index(name), name, floats)
    df = pl.from_arrow(table)
    for name, _, text in exact:
        df = df.insert_column(df.columns.index(name) + 1, pl.Series(name + EXACT, text).cast(pl.String))
    return df


# ------------------------------------------------------------ input
def as_table(frame, pred: str = "?"):
    """An Arrow table from a pyarrow Table, pandas or Polars DataFrame; an
    ``X_exact`` column replaces the float column ``X`` (the exact value is
    read, never the rounded one)."""
    import pyarrow as pa

    wide = []  # Polars' 128-bit integer columns, read as their text
    if isinstance(frame, (pa.Table, pa.RecordBatch)):
        _refuse_repeated_names(frame.schema.names, pred)
        table = frame if isinstance(frame, pa.Table) else pa.Table.from_batches([frame])
    elif type(frame).__module__.startswith("polars"):
        if not hasattr(frame, "schema") or not hasattr(frame, "columns"):  # (a Series: one column, no start and end)
            raise DataError(f"facts for {pred} must be a table with start and end columns, not a Polars {type(frame).__name__}",
                            hint="make it a frame with its times, e.g. series.to_frame().with_columns(start=..., end=...)")
        table, wide = _polars_table(frame.collect() if hasattr(frame, "collect") else frame, pred)  # (a LazyFrame: its query run)
    else:
        from chronolog.engine.arrow import check_pandas_frame

        if type(frame).__module__.startswith("pyspark"):
            raise ArgumentError(f"facts for {pred}: a Spark DataFrame is read by chronolog.spark.reason(), not by reason()",
                                hint="chronolog.spark.reason(spark, program, {" + repr(pred) + ": df}); or give reason() "
                                "its Arrow table: df.toArrow()")
        if hasattr(frame, "columns"):
            _refuse_repeated_names(list(frame.columns), pred)
            check_pandas_frame(frame, pred)
        try:
            table = pa.Table.from_pandas(frame, preserve_index=False)
        except Exception:
            if hasattr(frame, "columns"):
                from chronolog.engine.arrow import refuse_mixed_column

                refuse_mixed_column(frame, pred)
            hint = ""
            if isinstance(frame, os.PathLike):  # {"p": Path("p.csv")}
                path = os.fspath(frame)
                kind = "parquet" if path.endswith(".parquet") else "arrow" if path.endswith((".arrow", ".feather")) else "csv"
                hint = (f'bind the file in the program, @bind("{pred}", "{kind}", "{os.path.dirname(path) or "."}", '
                        f'"{os.path.basename(path)}"). (@timeMapping places a CSV\'s times), or read it into a table '
                        "with start and end columns (pl.read_csv, pd.read_parquet); a file of facts of many predicates "
                        "goes as reason(program, Path(...))")
            if isinstance(frame, dict):  # {"p": {"c0": [...], "start": [...], "end": [...]}}
                hint = "a dict of columns is a table once made one: pa.table(columns), pl.DataFrame(columns)"
            raise DataError(
                f"facts for {pred} must be a table (a pyarrow Table, a pandas or Polars DataFrame, a DuckDB relation, "
                f"any Arrow stream) or a list of rows, not {type(frame).__name__}",
                hint=hint,
            ) from None
    from chronolog.engine.arrow import term_text_names, with_term_text

    names = table.schema.names
    _refuse_unnamed_columns(names, pred)
    text = set(term_text_names(table)) | {n for n in wide if n not in ("start", "end")}
    for name in list(names):
        if name.endswith(EXACT) and name[: -len(EXACT)] in names:
            base = name[: -len(EXACT)]
            col = table.column(name).cast(pa.string())
            if base not in ("start", "end"):
                col = _exact_terms(col)
                if pa.types.is_string(col.type):
                    text.add(base)
            table = table.set_column(table.schema.get_field_index(base), base, col)
            table = table.drop_columns([name])
    # term columns of exact rationals, or of several kinds of constants, as
    # their canonical text: parsed when read (engine/arrow.py), not strings
    return with_term_text(table, sorted(text))


def _polars_table(frame, pred: str):
    """(the Arrow table of a Polars frame, the names of its 128-bit integer
    columns): Arrow has no such integers (pyarrow refuses the frame), so
    those columns go as their decimal text, read back as the same exact
    integers."""
    import polars as pl

    wide = [n for n, t in frame.schema.items() if t in (pl.Int128, getattr(pl, "UInt128", pl.Int128))]
    objects = next((n for n, t in frame.schema.items() if t == pl.Object), None)
    if objects is not None:  # (Arrow would get them as raw pointers: "fixed_size_binary[8]")
        kinds = sorted({type(v).__name__ for v in frame[objects].head(1000) if v is not None})
        raise DataError(f"{pred}: the column {objects} holds Python objects ({', '.join(kinds) or 'none'}), which are not constants",
                        hint=f"make it a type a table holds, e.g. pl.col({objects!r}).map_elements(str, return_dtype=pl.String)")
    return frame.with_columns(pl.col(wide).cast(pl.String)).to_arrow(), wide


def _refuse_repeated_names(names, pred: str) -> None:
    """Two columns of one name (pandas and Arrow allow them): which one is
    the argument, or the start, cannot be told."""
    seen = set()
    for name in names:
        if name in seen:
            raise DataError(
                f"the table for {pred} has two columns named {name!r}",
                hint="give each column its own name (arguments are read in column order, whatever their names)",
            )
        seen.add(name)


def _refuse_unnamed_columns(names, pred: str) -> None:
    """pandas' ``read_csv`` names a header cell without a name ``Unnamed:
    <index>`` (``to_csv`` writes its index under one): read as an argument
    it shifts every other one, as the CSV reader refuses it for (its
    ``refuse_unnamed_columns``)."""
    name = next((n for n in names if re.fullmatch(r"Unnamed: \d+", n)), None)
    if name is not None:
        raise DataError(
            f"facts for {pred}: the column {name!r} has no name in its CSV file (pandas' read_csv named it; to_csv writes its index there)",
            hint=f"drop it: pd.read_csv(..., index_col=0) reads it as the index, or df.drop(columns=[{name!r}])",
        )


def has_exact_columns(table) -> bool:
    """Whether ``table`` has an ``X_exact`` column beside ``X`` (which
    :func:`as_table` would still replace)."""
    names = set(table.schema.names)
    return any(n.endswith(EXACT) and n[: -len(EXACT)] in names for n in names)


def table_rows(frame, pred: str, calendar=None) -> list:
    """``(terms, interval)`` rows of a frame given as facts (see :func:`as_table`)."""
    from chronolog.engine.arrow import table_to_rows

    return table_to_rows(as_table(frame, pred), pred, calendar)


def _exact_terms(col):
    """Exact text of a term column: decimals when every value is one (read
    back as exact numbers), else the text as it is (``1/3`` stays text, as in
    the Arrow layout)."""
    from decimal import Decimal, InvalidOperation

    import pyarrow as pa

    vals = col.to_pylist()
    try:
        decs = [None if v is None else Decimal(v) for v in vals]
    except InvalidOperation:
        return col
    if not all(d is None or d.is_finite() for d in decs):  # (a float's +inf, -inf, nan: no decimal holds them)
        return col
    scale = max((-d.as_tuple().exponent for d in decs if d is not None), default=0)
    scale = max(scale, 0)
    digits = max((len(d.as_tuple().digits) for d in decs if d is not None), default=1)
    precision = max(digits, scale + 1) + scale
    if precision > 38:  # (past decimal128: the text, read as the same exact numbers)
        return col
    return pa.array(decs, pa.decimal128(precision, scale))


def split_by_pred(frame) -> dict:
    """A frame with a ``pred`` column (as :func:`to_pandas` of all
    predicates writes it) -> ``{pred: table}``, trailing null term columns
    dropped per predicate."""
    import pyarrow.compute as pc

    from chronolog.engine.arrow import EVERY_PREDICATE

    table = as_table(frame, EVERY_PREDICATE)  # (its errors name no one predicate)
    if table.column("pred").null_count:  # (before sorting: None does not sort beside names)
        raise DataError("a row of the facts table has no pred", hint="fill the pred column")
    out = {}
    for p in sorted(set(table.column("pred").to_pylist())):
        part = table.filter(pc.equal(table.column("pred"), p)).drop_columns(["pred"])
        terms = [n for n in part.schema.names if n not in ("start", "end", "start_closed", "end_closed")]
        while terms and part.column(terms[-1]).null_count == part.num_rows:
            part = part.drop_columns([terms.pop()])
        out[p] = part
    return out


MEETS_SEEN = 10_000  # rows of a table closed_ends_meet looks at (a note: the first rows tell)


def closed_ends_meet(frame):
    """The first end of a table's interval that is another interval's start
    for the same value of the first argument (a sensor, a ticker, an owner)
    when the table has no ``start_closed``/``end_closed`` columns (both ends
    closed): a series of values given as start and end, each ending where
    the next starts, then has two values at each of those points, which a
    user of pandas or SQL ranges (half-open) does not expect.  None when
    none meets in the first MEETS_SEEN rows, or the columns are not there
    (their own error says so)."""
    try:
        names = [str(c) for c in (frame.column_names if hasattr(frame, "column_names") else frame.columns)]
        if "start" not in names or "end" not in names or "start_closed" in names or "end_closed" in names:
            return None
        import polars as pl

        key = [n for n in names if n not in ("pred", "start", "end")][:1]
        cols = key + ["start", "end"]
        mod = type(frame).__module__
        if mod.startswith("polars"):
            head = frame.head(MEETS_SEEN).select(cols)
        elif mod.startswith("pandas"):
            head = pl.from_pandas(frame.iloc[:MEETS_SEEN][cols])
        else:
            head = pl.from_arrow(frame.slice(0, MEETS_SEEN).select(cols))
        if head.schema[cols[0]] == pl.Object:  # (Python objects: polars panics joining them; the readers refuse them)
            return None
        ends = head.filter(pl.col("start") != pl.col("end")).select(key + [pl.col("end").alias("t")])
        met = ends.join(head.select(key + [pl.col("start").alias("t")]), on=key + ["t"], how="semi")
        return str(met["t"][0]) if met.height else None
    except Exception:  # (a note only: a column these conversions cannot take is read, and refused, by the readers)
        return None


def is_frame(x) -> bool:
    mod = type(x).__module__
    return mod.startswith(("pandas", "polars", "pyarrow"))


def zoned_column(frame):
    """``(column, zone)`` of a table's first timestamp column in a time
    zone other than UTC, else None."""
    mod = type(frame).__module__
    if mod.startswith("pandas"):
        zones = [(str(c), str(getattr(t, "tz", None) or "")) for c, t in frame.dtypes.items()]
    elif mod.startswith("polars"):
        zones = [(c, getattr(t, "time_zone", None) or "") for c, t in frame.schema.items()]
    else:
        zones = [(f.name, getattr(f.type, "tz", None) or "") for f in frame.schema]
    return next(((c, z) for c, z in zones if z and z not in ("UTC", "Etc/UTC", "Z", "+00:00")), None)


def is_table(x) -> bool:
    """An Arrow table or record batch, or a pandas or Polars DataFrame (what
    :func:`as_table` takes as one predicate's facts)."""
    mod, name = type(x).__module__, type(x).__name__
    if mod.startswith("pyarrow"):
        return name in ("Table", "RecordBatch")
    return name == "DataFrame" and mod.startswith(("pandas", "polars"))


def read_table_like(x, pred: str = "?"):
    """``x`` where it is a table the readers take; a Polars LazyFrame
    collected, and a table of another library read into Arrow once (an
    Arrow stream reads once): one exporting an Arrow stream
    (``__arrow_c_stream__``, the Arrow PyCapsule interface: a DuckDB
    relation, an Arrow RecordBatchReader, nanoarrow's) or a pyarrow
    Dataset (Parquet files opened lazily).  Anything else as it is: a
    Spark DataFrame too, which exports a stream but is read by
    ``chronolog.spark.reason`` (collected to one process here, a cluster's
    data would be; as_table refuses it with that call)."""
    mod = type(x).__module__
    if mod.startswith("polars") and type(x).__name__ == "LazyFrame":
        return x.collect()
    if mod.startswith(("pandas", "polars", "pyspark")) or isinstance(x, (str, bytes, os.PathLike, list, tuple, dict)) or is_table(x):
        return x
    if not (hasattr(x, "__arrow_c_stream__") or (mod.startswith("pyarrow._dataset") and hasattr(x, "to_table"))):
        return x
    import pyarrow as pa

    try:
        return pa.table(x) if hasattr(x, "__arrow_c_stream__") else x.to_table()
    except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
        raise DataError(f"facts for {pred}: the {type(x).__name__} is not a table of columns ({e})",
                        hint="give a table with a column per argument and start and end columns") from None


# ------------------------------------------------------------ notebooks
def repr_html(model, sample: int = 5) -> str:
    """Per-predicate counts and the first facts of each (Jupyter)."""
    from html import escape  # (here: html.entities is 1.4 ms of a first call on a table)

    rows = []
    for p in model.predicates():
        fs = facts_of(model, p)
        shown = "<br>".join(escape(str(f)) for f in fs[:sample])
        more = f"<br>… {len(fs) - sample} more" if len(fs) > sample else ""
        kind = "derived" if p in model.output_predicates else "given"
        rows.append(f"<tr><td><code>{escape(p)}</code></td><td>{kind}</td><td>{len(fs)}</td><td><code>{shown}</code>{more}</td></tr>")
    head = f"<b>chronolog model</b>: {model._size_text()}"
    if not model.is_finite:
        head += " (some repeat forever)"
    return (
        f"<div>{head}<table><thead><tr><th>predicate</th><th></th><th>facts</th><th>sample</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def check_closed_read(facts, closed) -> None:
    """Refuse a ``closed`` of one reason() call that no table of ``facts``
    reads (rows and text write their own ends; a dict's key may be
    misspelt): it was dropped without a word, the intervals left closed."""
    if closed is None or facts is None:
        return
    from chronolog.connectors import table_times

    table_times.check_closed(closed)  # (a bad value named first)
    tables = {p for p, items in facts.items() if is_table(items)} if isinstance(facts, dict) else set()
    if isinstance(closed, dict):
        for pred in closed:
            if pred not in tables:
                raise ArgumentError(f"closed[{pred!r}]: no table of facts is given for {pred}",
                                    hint="closed= is for tables; name their predicates" + (f": {', '.join(sorted(tables))}" if tables else
                                    "; rows and text write their own ends: (start, end, True, False) is [start, end)"))
    elif not tables and not (not isinstance(facts, dict) and is_table(facts)):
        raise ArgumentError(f"closed={closed!r} was given, but no table of facts is: rows and text write their own ends",
                            hint="write each row's ends: (start, end, True, False) is [start, end), p(a)@[0,5) in text")


def _index_read(frame, mapping):
    """A pandas frame whose named index holds a time column ``mapping``
    names (a time series' ``DatetimeIndex`` named ``ts``, ``@timeMapping("p",
    "ts", "ts")``) with its index as columns, in front, as
    ``df.reset_index()`` gives them; any other frame as it is (a named
    index the program does not name stays refused: engine.arrow.refuse_named_index)."""
    if not type(frame).__module__.startswith("pandas"):
        return frame
    index = [str(n) for n in frame.index.names if n is not None]
    named = {c for c in mapping[:2] if isinstance(c, str)}
    if named & set(index) and not named & {str(c) for c in frame.columns}:
        return frame.reset_index()
    return frame


def place_times(program, facts, closed=None):
    """``facts`` with each table given as ``{pred: table}`` rewritten where
    the program's ``@timeMapping`` of ``pred`` places its times (by position or name),
    or ``closed`` (``"left"``, ... or a dict of them by predicate) gives the
    closedness of a table without closedness columns
    (connectors/table_times.py); a single frame of every predicate (a
    ``pred`` column) takes ``closed`` alone.  Other facts as they are.
    Called where the program or ``closed`` asks for it (api.placed_times)."""
    from chronolog.connectors import table_times
    from chronolog.language.facts import FactRows

    table_times.check_closed(closed)
    if isinstance(facts, FactRows):  # (rows already read, their times placed: Spark's driver path)
        return facts
    if not isinstance(facts, dict):
        if closed is None or isinstance(closed, dict) or not is_table(facts):
            return facts
        return table_times.with_closed(as_table(facts), table_times.closed_ends(closed, "?"), "the table")
    from chronolog.connectors.bindings import time_mapping

    out = {}
    for pred, items in facts.items():
        if is_table(items):
            mapping, ends = time_mapping(program, pred), table_times.closed_ends(closed, pred)
            if mapping is not None and ends is not None:
                raise ArgumentError(
                    f"facts for {pred}: closed= was given, and @timeMapping of {pred} says which ends are closed",
                    hint=f"leave out closed= for {pred}, or the closedness of @timeMapping (#T, #F)",
                )
            if mapping is not None:
                pos = next(a.pos for a in program.annotations if a.name == "timeMapping" and a.args and a.args[0] == pred)
                table = as_table(_index_read(items, mapping), pred)
                mapping = table_times.time_columns(mapping, table.schema.names, f"the table for {pred}")
                if program.calendar is None and all(0 <= i < table.num_columns for i in mapping[:2]):
                    table_times.refuse_dates_on_numbers(table, {table.schema.names[i] for i in mapping[:2]}, pred, f"the table for {pred}")
                items = table_times.time_mapped(table, mapping, pred, f"the table for {pred}", pos, program.calendar)
            elif ends is not None:
                items = table_times.with_closed(as_table(items, pred), ends, pred)
        out[pred] = items
    return out
