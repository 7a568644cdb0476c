"""``chronolog run --format json`` and ``--format csv`` written from the
columns a run left: the same bytes as fact by fact (chronolog/ux_cli.py),
in the order of the text output.

Fact by fact, each answer became a Python ``Fact``, its text and its cells
or JSON record: 200,000 answers took 2.1 s as JSON and 1.3 s as CSV against
the text output's 0.5 s.  Here, as the text printer does
(connectors/text_out.py), each distinct term and time is written once, as
its text, its JSON or its CSV cell, and the lines are assembled by polars
(``gather`` and ``concat_str``).  JSON escapes character by character, so
a fact's text escaped is its pieces' texts escaped: each distinct one
once.
"""

from __future__ import annotations

from chronolog.engine.columns.exact_columns import Rows
from chronolog.engine.columns.exact_columns import distinct as exact_distinct
from chronolog.engine.columns.exact_columns import texts as exact_texts
from chronolog.engine.exprs import to_numpy
from chronolog.engine.interval_codes import closed_ends
from chronolog.language.text import format_term
from chronolog.language.timeline import format_number

from .text_out import TermTexts, _end_texts, _float_texts, _point_texts, _take, frame_columns, in_ticks, term_texts

# a relation of fewer answers is written fact by fact: the columns' sort and
# polars queries cost 3-6 ms a relation, a fact by fact 5 (CSV) to 13 (JSON)
# us (even at about 500 as JSON and 700 as CSV; 1,000 answers 4.0 against
# 5.3 ms as CSV, 6.6 against 13 ms as JSON)
MIN_ROWS = 512

# a name a CSV cell holds as it is (connectors/fact_csv.py's _PLAIN)
_PLAIN_NAME = r"^[a-z][A-Za-z0-9_]*$"
# what a JSON string escapes (json's encode_basestring), and the line
# breaks json_records escapes too (a line reader may split on them)
_JSON_SPECIAL = r'[\\"\x00-\x1f\x{85}\x{2028}\x{2029}]'


def held(model, preds) -> dict:
    """``{pred: arity}`` of the predicates ``preds`` whose answers the
    columns of ``model`` hold (none repeating, at least MIN_ROWS of them)."""
    cols = getattr(model, "_columns", None)
    if cols is None or not cols.holds_columns():
        return {}
    out = {}
    for p in preds:
        got = cols.output_columns(p)
        if got is not None and got[0].height >= MIN_ROWS and not model.repeating(p):
            out[p] = got[1]
    return out


def records(model, pred: str, fmt: str, width: int, every: bool = False) -> list:
    """``pred``'s answers (one of :func:`held`'s) as JSON Lines or CSV rows
    of ``width`` term cells (and an empty ``every`` cell where other
    relations repeat: ``every``): polars String Series of whole lines, made
    before any is written (an end that no date holds stops the command
    with nothing written, as fact by fact)."""
    df, arity, terms, scale, memos = model._columns.output_columns(pred)
    if model.dialect == "lars":  # (its times shown in ticks)
        df = in_ticks(df, scale)
    memo = memos.setdefault(format_term, TermTexts())
    return list(frame_records(pred, df, arity, terms, scale, model.calendar, fmt, memo, width, every))


def frame_records(pred, df, arity: int, terms, scale, calendar, fmt: str, memo, width: int = 0, every: bool = False,
                  chunk: int = 1 << 15):
    """The JSON Lines (``fmt`` "json") or CSV rows (``fmt`` "csv", the
    terms padded to ``width`` cells, an empty ``every`` cell last where
    ``every``) of one relation held as columns, as polars String Series of
    at most ``chunk`` lines."""
    import numpy as np
    import polars as pl

    if df.height == 0:
        return
    json = fmt == "json"
    from chronolog.language.dates import OffGrid

    texts = term_texts(terms, format_term, memo)
    beside: list = []  # JSON: each column's distinct values' JSON, beside their texts (same positions)
    cells = None if json else _Cells()

    def point(t):
        try:
            return calendar.format_point(t) if calendar is not None else format_number(t)
        except OffGrid as e:  # (an end between microseconds on a calendar: named by its predicate)
            raise e.of(pred) from None

    def term_array(codes, vals):
        if not json:
            return cells.of(codes, vals)
        if isinstance(vals, Rows):  # (numbers: each distinct one's text once, for both)
            un, ud, pos = exact_distinct(vals.num, vals.den)
            text = exact_texts(un, ud)
            beside.append(_quoted_unless(text, ud == 1).gather(pos))
            return text.gather(pos)
        beside.append(_json_terms(codes, vals))
        return _escaped(_polars(texts(codes, vals)))

    def ends(pairs, start: bool):
        points = [point(t) for t, _ in pairs]
        if not json:
            return pl.Series(points, dtype=pl.String)
        beside.append(pl.Series([_json_point(t, p, calendar) for (t, _), p in zip(pairs, points)], dtype=pl.String))
        if start:
            return pl.Series([("[" if c else "(") + p for (_, c), p in zip(pairs, points)], dtype=pl.String)
        return pl.Series([p + ("]" if c else ")") for (_, c), p in zip(pairs, points)], dtype=pl.String)

    points: list = []  # (the starts' point texts, for ends at the same points)

    def whole_ends(used, lim):
        nums = _point_texts(used, lim, scale, calendar, points)
        if nums is None:
            return None
        if not json:
            return nums
        bare = np.zeros(len(used), dtype=bool)
        if calendar is None:  # (a JSON number where the point is an integer of a double's range: json_records.json_point)
            grid, k = used >> 1, scale.scale
            whole = (grid % k == 0) if k != 1 else np.ones(len(used), dtype=bool)  # (a decimal between integers: its text)
            bare = (used != lim) & whole & (np.abs(grid // k) < 2**53)
        beside.append(_quoted_unless(nums, bare))
        return _end_texts(used, lim, scale, calendar, nums)

    order, cols = frame_columns(df, arity, terms, scale, term_array, lambda p: ends(p, True), lambda p: ends(p, False),
                                names_by_kernels=True, ends_array=whole_ends)
    flags = pl.Series(["false", "true"])
    s = df["s"].to_numpy()
    e = df["e"].to_numpy()
    sc, ec = (to_numpy(x, {"s": s, "e": e}).astype("int64") for x in closed_ends())
    if json:
        parts = _json_parts(pred, arity)
    else:
        parts = [pl.lit(_csv_cell(pred) + ",")]
        for j in range(arity):
            parts += [pl.col(f"t{j}"), pl.lit(",")]
        parts += [pl.lit("," * (width - arity)), pl.col(f"t{arity}"), pl.lit(","), pl.col(f"t{arity + 1}"), pl.lit(","),
                  pl.col("sc"), pl.lit(","), pl.col("ec"), pl.lit(",\n" if every else "\n")]
    for a in range(0, df.height, chunk):
        taken = {f"t{j}": _polars(_take(d, p, order, a, chunk)) for j, (d, p) in enumerate(cols)}
        taken.update({f"j{j}": _take(b, cols[j][1], order, a, chunk) for j, b in enumerate(beside)})
        taken["sc"] = _take(flags, sc, order, a, chunk)
        taken["ec"] = _take(flags, ec, order, a, chunk)
        yield pl.DataFrame(taken).select(pl.concat_str(parts)).to_series()


def _json_parts(pred: str, arity: int) -> list:
    """The pieces of a JSON line, as ux_cli._json_lines writes it: ``tJ``
    the texts of column J (escaped), ``jJ`` its JSON (J = arity, arity + 1:
    the start and the end)."""
    import polars as pl

    name = _escape_json(pred)
    parts = [pl.lit(f'{{"pred": "{name}", "terms": [')]
    for j in range(arity):
        if j:
            parts.append(pl.lit(", "))
        parts.append(pl.col(f"j{j}"))
    parts += [pl.lit('], "start": '), pl.col(f"j{arity}"), pl.lit(', "end": '), pl.col(f"j{arity + 1}"),
              pl.lit(', "start_closed": '), pl.col("sc"), pl.lit(', "end_closed": '), pl.col("ec"),
              pl.lit(f', "text": "{name}' + ("(" if arity else "@"))]
    for j in range(arity):
        if j:
            parts.append(pl.lit(","))
        parts.append(pl.col(f"t{j}"))
    if arity:
        parts.append(pl.lit(")@"))
    parts += [pl.col(f"t{arity}"), pl.lit(","), pl.col(f"t{arity + 1}"), pl.lit('"}\n')]
    return parts


def _quoted_unless(texts, bare):
    """``texts`` (polars) as JSON: as they are where ``bare`` (numpy), else
    quoted (texts that need no escape: numbers and dates)."""
    import polars as pl

    return pl.select(pl.when(pl.Series(bare)).then(texts).otherwise('"' + texts + '"')).to_series()


def _polars(texts):
    """A polars String Series of an Arrow string array or a polars one."""
    import polars as pl

    return texts if isinstance(texts, pl.Series) else pl.Series(texts, dtype=pl.String)


def _escaped(texts):
    """``texts`` (polars) as inside a JSON string (ux_cli's escapes): as
    they are where none needs one (names, numbers, dates), else those by
    json's own encoder."""
    import numpy as np

    special = texts.str.contains(_JSON_SPECIAL)
    if not special.any():
        return texts
    at = np.flatnonzero(special.to_numpy())
    return texts.clone().scatter(at, [_escape_json(t) for t in texts.gather(at).to_list()])  # (scatter writes in place)


def _escape_json(text: str) -> str:
    """``text`` inside a JSON string as json_records writes it."""
    from .json_records import json_string

    return json_string(text)[1:-1]


def _json_terms(codes, vals):
    """The JSON of the distinct terms of a column (frame_columns' values:
    every row's float, a fact file's names, Python values), as
    json_records.json_term gives them: a whole number bare, a float as Python's
    repr, a string quoted, anything else its text quoted."""
    import polars as pl

    from .json_records import LINE_BREAKS, json_term

    if codes is None:  # finite floats: repr (json's), infinities their text quoted
        return _polars(_float_texts(vals, _json_float))
    if isinstance(vals, pl.Series):  # a fact file's names
        return '"' + _escaped(vals) + '"'
    import json

    dump = json.JSONEncoder(ensure_ascii=False).encode  # (json.dumps' own encoder, as ux_cli's)
    return pl.Series([dump(json_term(v)).translate(LINE_BREAKS) for v in vals], dtype=pl.String)


def _json_float(v) -> str:
    """A float's JSON as ux_cli writes it: repr, or an infinity's text quoted."""
    return repr(v + 0.0) if abs(v) != float("inf") else f'"{format_term(v)}"'


def _json_point(t, text: str, calendar) -> str:
    """A time point's JSON (json_records.json_point) from its ``text``."""
    from .json_records import json_point

    return f'"{text}"' if json_point(t, lambda _: None, calendar) is None else text


def _csv_cell(text: str) -> str:
    from chronolog.connectors.csv_files import quoted_cell

    return quoted_cell(text)


class _Cells:
    """The CSV cells of a column's distinct terms as ux_cli writes them
    (connectors/fact_csv.Cells, quoted as csv_files.write_rows quotes):
    numbers and plain names by kernels, anything else one by one."""

    def __init__(self):
        from chronolog.connectors.fact_csv import Cells

        self.cells = Cells()

    def of(self, codes, vals):
        import polars as pl

        if isinstance(vals, Rows):  # (format_term's numbers: nothing a CSV quotes)
            un, ud, pos = exact_distinct(vals.num, vals.den)
            return exact_texts(un, ud).gather(pos)
        if codes is None:
            return _polars(_float_texts(vals, format_term))
        if isinstance(vals, pl.Series):  # a fact file's names: a plain one as it is
            import numpy as np

            odd = ~vals.str.contains(_PLAIN_NAME)
            if not odd.any():
                return vals
            at = np.flatnonzero(odd.to_numpy())
            return vals.clone().scatter(at, [self.cell(v) for v in vals.gather(at).to_list()])  # (scatter writes in place)
        return pl.Series([self.cell(v) for v in vals], dtype=pl.String)

    def cell(self, v) -> str:
        return _csv_cell(self.cells.cell(v))
