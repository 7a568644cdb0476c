"""JSON Lines files (NDJSON: one JSON object a line, as log shippers,
``jq -c``, pandas' ``to_json(orient="records", lines=True)`` and DuckDB's
``COPY ... (FORMAT json)`` write it), read as a table: its keys are the
columns, in the order they first appear, and the table is then read as a
bound Parquet or Arrow table is (``start``/``end`` or ``@timeMapping``).

A value keeps its JSON kind: a string is a string (an ISO date among the
arguments too; in a time column a date on a date timeline), true and false
booleans, null or a missing key no value (an unbounded end in a time
column).  A number is the exact number its text writes, as a CSV cell's
is (``0.1`` is one tenth, not the float nearest it; ``7`` and ``7.0`` one
number), unless ``@mapping`` types its column ``"float"``.

pyarrow's reader does the work (1M lines in about 0.3 s); it reads a
number with a fraction as a double, whose shortest text is the number as
written wherever the literal has at most 15 digits or is itself a
double's shortest text (as JSON writers write floats); a file with other
numbers of 16 digits or more has their texts read line by line.  What pyarrow cannot say well is found by reading the lines with
Python's ``json``, so that each refusal names its line and column: a line
that is no JSON object, a nested object or array, a key whose values
change kind between lines.  The writer (:func:`write_json_facts`) writes
what the reader reads back.
"""

from __future__ import annotations

import contextlib
import os
import re

from chronolog.language.ast import Pos
from chronolog.language.errors import DataError

_KINDS = {str: "a string", bool: "a boolean", int: "a number", float: "a number", dict: "an object", list: "an array", type(None): "null"}


def read_json_table(path, floats=()):
    """A ``pyarrow.Table`` of the JSON Lines file ``path`` (compressed or
    not), its numbers exact but in the columns ``floats``; a
    :class:`DataError` at the line and column of a problem."""
    lines = JsonLines(path)
    return lines.exact(lines.table, floats)


class JsonLines:
    """A JSON Lines file read by pyarrow (``table``: its numbers with a
    fraction still doubles), with its bytes kept for what a caller asks
    after choosing its columns: the line of a missing value
    (:meth:`refuse_nulls`) and the exact numbers (:meth:`exact`)."""

    def __init__(self, path, what: str = "JSON Lines file"):
        from chronolog.language.compressed import read_bytes
        from chronolog.language.joined_files import BOM

        data = read_bytes(path, what)
        data = data[len(BOM):] if data.startswith(BOM) else data
        self.source = os.fspath(path)
        self.places = LinePlaces(self.source)  # where a line's error is: the file's line, or the array's (ArrayPlaces)
        if _is_array(data):
            data, self.places = _as_lines(_utf8(data, self.source), self.source)
        self.data = data
        with self.places.errors():
            self.table = _read(self.data, self.source)

    def refuse_nulls(self, table, names, why) -> None:
        with self.places.errors():
            self._refuse_nulls(table, names, why)

    def _refuse_nulls(self, table, names, why) -> None:
        """The first line where a column of ``names`` of ``table`` (rows as
        the file's) is null or left out, refused there; ``why(name, said)``
        gives the message and hint."""
        import json

        import pyarrow.compute as pc

        for name in names:
            if not table.column(name).null_count:
                continue
            row = pc.index(pc.is_null(table.column(name)), True).as_py()
            n, text = next(line for i, line in enumerate(_lines(self.data, self.source)) if i == row)
            message, hint = why(name, "is null" if json.dumps(name, ensure_ascii=False) in text else "is left out")
            raise DataError(message, Pos(self.source, n, _column_of_key(text, name)), source_line=text, hint=hint)

    def exact(self, table, floats=()):
        """``table`` (this file's columns, any chosen) with each column of
        doubles but ``floats`` made the exact numbers its texts write
        (:func:`_exact_numbers`)."""
        with self.places.errors():
            return _exact_numbers(table, self.data, self.source, floats)


def _read(data: bytes, source: str):
    import pyarrow as pa
    import pyarrow.json as pj

    if not data or data.isspace():  # (blank lines only; isspace stops at the first other byte, strip would copy the file)
        return pa.table({})
    _utf8(data, source)  # (pyarrow keeps a string's bytes unchecked: a bad byte would fail far from its line)
    first = _first_line_keys(data)
    strings = [k for k, v in first.items() if isinstance(v, str)]
    while True:  # (again where keys seen past the first line hold strings pyarrow took for dates: their text kept)
        try:
            table = pj.read_json(pa.py_buffer(data), parse_options=_schema(strings))
        except pa.ArrowInvalid as e:
            kinds = _refuse_first_problem(data, source)  # (raises where a line is at fault)
            more = [k for k, kind in kinds.items() if kind == "a string" and k not in strings]
            if not more:
                raise DataError(f"cannot read the JSON Lines: {e}", Pos(source),
                                hint="write one JSON object a line, each key holding values of one kind") from None
            strings = strings + more
            continue
        dated = [f.name for f in table.schema if pa.types.is_timestamp(f.type) and f.name not in strings]
        if not dated:
            break
        strings = strings + dated
    _check_columns(table, data, source)
    order = [k for k in first if k in table.schema.names] + [k for k in table.schema.names if k not in first]
    return table.select(order) if order != table.schema.names else table  # (pyarrow puts a schema's keys first)


def _schema(strings):
    import pyarrow as pa
    import pyarrow.json as pj

    # pyarrow takes a string that spells an ISO date for a timestamp: a key
    # holding strings is read as strings (a time column's dates are read from
    # the text as a Parquet file's are)
    return pj.ParseOptions(explicit_schema=pa.schema([(k, pa.string()) for k in strings]) if strings else None)


def _first_line_keys(data: bytes) -> dict:
    """The object of the first line that is not blank (its keys in their
    order), or {} where it is not one."""
    import json

    at = 0
    while True:  # (the first line not blank, the data not split whole)
        end = data.find(b"\n", at)
        first = data[at:] if end < 0 else data[at:end]
        if first.strip() or end < 0:
            break
        at = end + 1
    try:
        rec = json.loads(first)
    except ValueError:
        return {}
    return rec if isinstance(rec, dict) else {}


def _utf8(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        from chronolog.language.source_text import not_utf8

        raise not_utf8(data, e.start, source, "JSON Lines file") from None


def is_array_file(path) -> bool:
    """Whether the file ``path`` is one JSON array (its first character
    not blank ``[``; compressed or not)."""
    from chronolog.language.compressed import open_bytes

    with open_bytes(path) as fh:
        return _is_array(fh.read(4096).lstrip())


def first_element_keys(path) -> list:
    """The keys of the first object of a JSON array file, in its order."""
    from chronolog.language.compressed import read_bytes

    import json

    text = _utf8(read_bytes(path), str(path))
    at = json.decoder.WHITESPACE.match(text, text.index("[") + 1).end()
    try:
        first, _ = json.JSONDecoder().raw_decode(text, at)
    except ValueError:
        return []  # (the reader says what is wrong)
    return list(first) if isinstance(first, dict) else []


class ArrayPlaces:
    """Where the objects of a JSON array begin in its text (``starts``), for
    the lines made of them (:func:`_array_as_lines`): each object's line
    keeps its characters where they were, its line breaks made blanks, so
    a place on a made line is a place in the array."""

    def __init__(self, source: str, text: str, starts: list):
        self.source, self.text, self.starts = source, text, starts

    def pos(self, line: int, column: int = 1) -> Pos:
        """The array's line and column of ``column`` on made line ``line``."""
        at = self.starts[line - 1] + max(column - 1, 0)
        return Pos(self.source, self.text.count("\n", 0, at) + 1, at - self.text.rfind("\n", 0, at))

    def source_line(self, line: int) -> str:
        """The array's line where the array's line ``line`` is (its text)."""
        return self.text.split("\n")[line - 1].rstrip("\r")

    @contextlib.contextmanager
    def errors(self):
        """An error at a made line placed at the array's line and column."""
        try:
            yield
        except DataError as e:
            if e.pos is None or e.pos.file != self.source or not e.pos.line or e.pos.line > len(self.starts):
                raise
            e.pos = self.pos(e.pos.line, e.pos.column)
            e.source_line = self.source_line(e.pos.line)
            e.message = re.sub(r"on line (\d+)", lambda m: f"on line {self.pos(int(m.group(1))).line}",
                               e.message).replace("the line holds", "the array's element holds")  # (its lines are the array's)
            raise


class LinePlaces:
    """The places of a text's own lines (:class:`ArrayPlaces`' counterpart
    for a text that is no JSON array): an error stays where it is."""

    def __init__(self, source: str):
        self.source = source

    def pos(self, line: int, column: int = 1) -> Pos:
        return Pos(self.source, line, column)

    def errors(self):
        return contextlib.nullcontext()


def array_lines(text: str, source: str):
    """``(lines, places)``: a text that is one JSON array as the lines of its
    objects (:func:`_array_as_lines`) and their :class:`ArrayPlaces`; any
    other text as it is, and its :class:`LinePlaces`."""
    if not re.match(r"\s*\[", text):
        return text, LinePlaces(source)
    lines, places = _as_lines(text, source)
    return lines.decode("utf-8"), places


def _as_lines(text: str, source: str):
    """``(bytes, ArrayPlaces)`` of a text that is one JSON array (:func:`_array_as_lines`)."""
    starts: list = []
    return _array_as_lines(text, source, starts), ArrayPlaces(source, text, starts)


def _is_array(data: bytes) -> bool:

    return re.match(rb"\s*\[", data) is not None


def _array_as_lines(text: str, source: str, starts: list) -> bytes:
    """A file that is one JSON array of objects (pandas' ``to_json(orient=
    "records")`` without ``lines``, ``json.dump`` of a list, an API's
    response) as JSON Lines: each element's own text (its numbers as
    written) on a line of its own, its line breaks made blanks; ``starts``
    gets where each begins in ``text`` (errors are placed there).  pyarrow
    reads no JSON array, and reading the elements as Python values would
    lose the texts of their numbers."""
    import json

    decode = json.JSONDecoder().raw_decode
    ws = json.decoder.WHITESPACE.match
    at = ws(text, text.index("[") + 1).end()
    out = []
    if text[at : at + 1] == "]":
        at += 1
    else:
        while True:
            try:
                _, end = decode(text, at)
            except json.JSONDecodeError as e:
                raise _array_error(text, e.pos, source, f"not JSON: {e.msg}") from None
            starts.append(at)
            out.append(text[at:end].replace("\r", " ").replace("\n", " "))
            at = ws(text, end).end()
            if text[at : at + 1] == "]":
                at += 1
                break
            if text[at : at + 1] != ",":
                raise _array_error(text, at, source, "expected , or ] after an element of the array")
            at = ws(text, at + 1).end()
    at = ws(text, at).end()
    if at < len(text):
        raise _array_error(text, at, source, "text after the array's closing ]")
    return ("\n".join(out) + "\n").encode("utf-8") if out else b""


def _array_error(text: str, at: int, source: str, message: str) -> DataError:
    line_start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return DataError(message, Pos(source, text.count("\n", 0, at) + 1, at - line_start + 1),
                     source_line=text[line_start : end if end >= 0 else len(text)].rstrip("\r"),
                     hint="a JSON array of objects: [{\"s\": \"a\", \"start\": 0}, ...]")


def _lines(data: bytes, source: str):
    """``(line number, text)`` of each line that is not blank (the file's
    UTF-8 checked before: :func:`_read`)."""
    for n, raw in enumerate(data.split(b"\n"), 1):
        if raw.strip():
            yield n, raw.decode("utf-8").rstrip("\r")


def _refuse_first_problem(data: bytes, source: str) -> dict:
    """Read the lines one by one and raise the first problem found: a line
    that is not JSON or not an object, a nested value, a key written twice
    or whose values change kind; with none, each key's kind (``"a
    string"``, ``"a number"``, ...)."""
    import json

    first_kind = {}
    for n, text in _lines(data, source):
        try:
            rec = json.loads(text, object_pairs_hook=_once_each)  # (NaN and Infinity read as floats, as pyarrow reads them)
        except json.JSONDecodeError as e:
            raise DataError(f"not JSON: {e.msg}", Pos(source, n, e.colno), source_line=text,
                            hint="write one JSON object a line (a string in double quotes, no trailing comma)") from None
        except _Twice as e:
            quoted = json.dumps(e.key, ensure_ascii=False)
            at = text.find(quoted, text.find(quoted) + 1)
            raise DataError(f"{e.key} is written twice in one object", Pos(source, n, at + 1 if at >= 0 else 1), source_line=text,
                            hint=f"write {e.key} once on each line") from None
        if not isinstance(rec, dict):
            raise DataError(f"the line holds {_KINDS.get(type(rec), 'a value')}, not a JSON object", Pos(source, n, 1), source_line=text,
                            hint='each line is one object of the columns: {"sensor": "s1", "start": 0, "end": 5}')
        for k, v in rec.items():
            where = Pos(source, n, _column_of_key(text, k))
            if isinstance(v, (dict, list)):
                raise DataError(f"{k} holds {_KINDS[type(v)]}, which is no constant", where, source_line=text,
                                hint="an argument is a string, a number or a boolean: flatten the record (jq, pandas.json_normalize) or write the value as a string")
            if v is None:
                continue
            kind = _KINDS[type(v)]
            seen = first_kind.setdefault(k, (kind, n))
            if seen[0] != kind:
                raise DataError(f"{k} holds {kind} here, but {seen[0]} on line {seen[1]}", where, source_line=text,
                                hint=f"write {k} as one kind on every line (a number as a string, \"7\", where others are strings)")
    return {k: kind for k, (kind, _) in first_kind.items()}


class _Twice(Exception):
    def __init__(self, key):
        self.key = key


def _once_each(pairs):
    """An object's dict, each key once (pyarrow refuses an object that
    writes one twice, naming no line)."""
    out = dict(pairs)
    if len(out) < len(pairs):
        raise _Twice(next(k for i, (k, _) in enumerate(pairs) if any(k == j for j, _ in pairs[:i])))
    return out


def _column_of_key(text: str, key: str) -> int:
    import json

    at = text.find(json.dumps(key, ensure_ascii=False))
    return at + 1 if at >= 0 else 1


def _check_columns(table, data: bytes, source: str) -> None:
    """A nested value, which pyarrow reads as a struct or list column and
    the table cannot hold: the line scan names its line."""
    import pyarrow as pa

    if any(pa.types.is_nested(f.type) for f in table.schema):
        _refuse_first_problem(data, source)


def _exact_numbers(table, data: bytes, source: str, floats):
    """``table`` with each column pyarrow read as doubles (numbers with a
    fraction or exponent, integers beyond 64 bits, both kinds of numbers in
    one key) replaced by the exact numbers its texts write: decimals where
    they fit (the kernels read decimal128 as exact numbers), else the
    numbers' text marked as term text (the rows' reader parses it)."""
    import pyarrow as pa

    from chronolog.engine.arrow import term_text_names, with_term_text

    for f in table.schema:  # (a key @mapping types "float" whose numbers are all integers: pyarrow read them as such)
        if f.name in floats and pa.types.is_integer(f.type):
            table = table.set_column(table.schema.get_field_index(f.name), f.name, table.column(f.name).cast(pa.float64()))
    doubles = [f.name for f in table.schema if pa.types.is_floating(f.type) and f.name not in floats]
    if not doubles:
        return table
    texts = _number_texts(table, data, source, doubles)
    marked = list(term_text_names(table))
    for name in doubles:
        col = _decimals(texts[name])
        if col is None:
            col, marked = texts[name], marked + [name]
        if table.num_rows >= _MANY and (name in marked or col.type.precision > 18):
            _note_long_decimals(source, name, table.num_rows)
        table = table.set_column(table.schema.get_field_index(name), name, col)
    return with_term_text(table, marked)


# from this many rows, a key of numbers no 64-bit pair holds is said aloud
_MANY = 100_000


def _note_long_decimals(source: str, name: str, rows: int) -> None:
    """Say that a key's numbers are exact decimals of many digits (Python's
    unrounded floats), which only the rows hold (1M: about a minute), and
    how to read them as the floats they likely are."""
    import warnings

    from chronolog.language.errors import Note

    warnings.warn(Note(f"{source}: {name} holds numbers of up to 20 digits, read exactly as written ({rows:,} rows: slow); "
                       f'if they are measured floats, @mapping the key "float" reads them as such'), stacklevel=4)


# a number of 16 significant digits or more (leading zeros counted: a
# candidate, checked), which a double may not hold as written (RE2's syntax:
# Python's re took 8.6 s over 66 MB, pyarrow's RE2 0.22 s)
_LONG_NUMBER = r"(?:[0-9]\.?){16,}(?:[eE][-+]?[0-9]+)?"


def _number_texts(table, data: bytes, source: str, keys) -> dict:
    """The text of each number of the double columns ``keys`` (a string
    column, null where none): the shortest text of its double (Python's
    repr, by kernels), which is the number as written wherever the file
    writes no number of 16 digits or more that its double does not hold
    exactly (``0.30000000000000004`` as json.dumps writes it is held; a
    20-digit decimal or a 23-digit integer is not): then, and for NaN and
    Infinity, read line by line."""
    import pyarrow as pa

    from .float_text import float_texts

    out = {}
    for k in keys:
        col = table.column(k).combine_chunks()
        if not _all_finite(col):
            return _number_texts_by_lines(data, source, keys)
        text = float_texts(col.to_numpy(zero_copy_only=False))
        out[k] = text if not col.null_count else pa.array(text, pa.string(), mask=col.is_null().to_numpy(zero_copy_only=False))
    if not _held_as_written(data):
        return _number_texts_by_lines(data, source, keys)
    return out


def _all_finite(col) -> bool:
    """Whether a float column's values (its nulls aside) are all finite:
    no NaN or infinity, which no exact number or JSON number writes."""
    import pyarrow.compute as pc

    return pc.all(pc.is_finite(col)).as_py() is not False


def _held_as_written(data: bytes) -> bool:
    """Whether each number of 16 digits or more in ``data`` is the
    shortest text of its double (as JSON writers write floats: json.dumps'
    ``0.30000000000000004``), by kernels: the lines holding one, each such
    number cut out in turn, parsed as a double and written back (digits
    inside a string are taken for a number too: not held, the lines then
    read one by one, exact either way)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from .float_text import float_texts

    whole = pa.array([data], pa.large_binary())
    if not pc.any(pc.match_substring_regex(whole, _LONG_NUMBER)).as_py():
        return True
    try:
        lines = pc.list_flatten(pc.split_pattern(whole.cast(pa.large_string()), "\n"))
    except pa.ArrowInvalid:
        return False
    lines = lines.filter(pc.match_substring_regex(lines, _LONG_NUMBER))
    while len(lines):
        literal = pc.struct_field(pc.extract_regex(lines, f"(?P<n>{_LONG_NUMBER})"), "n")
        if not pc.all(pc.match_substring_regex(literal, r"^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$")).as_py():
            return False
        written = pa.array(float_texts(literal.cast(pa.float64()).to_numpy(zero_copy_only=False)), pa.large_string())
        if not pc.all(pc.equal(_plain(literal), _plain(written))).as_py():
            return False
        lines = pc.replace_substring_regex(lines, _LONG_NUMBER, "", max_replacements=1)
        lines = lines.filter(pc.match_substring_regex(lines, _LONG_NUMBER))
    return True


def _plain(texts):
    """Number texts without the zeros that end a fraction (and its point
    then): ``35.0``, ``35.000`` and ``35`` alike."""
    import pyarrow.compute as pc

    return pc.replace_substring_regex(pc.replace_substring_regex(texts.cast("large_string"), r"(\.[0-9]*?)0+($|[eE])", r"\1\2"), r"\.($|[eE])", r"\1")


def _number_texts_by_lines(data: bytes, source: str, keys) -> dict:
    import pyarrow as pa

    out = {k: [] for k in keys}
    for n, text in _lines(data, source):
        try:
            for rec in _objects(text):
                for k in keys:
                    v = rec.get(k)
                    out[k].append(None if v is None else str(v))
        except _NotANumber as e:
            raise DataError(f"{e} is no number a JSON Lines file holds exactly", Pos(source, n, 1), source_line=text,
                            hint='write null for a missing value, or @mapping the column "float" to read floats') from None
    return {k: pa.array(v, pa.string()) for k, v in out.items()}


def _objects(text: str):
    """The JSON objects of one line (pyarrow reads ``{...}{...}`` as two
    rows), numbers as their text."""
    import json

    decoder = json.JSONDecoder(parse_float=str, parse_int=str, parse_constant=_no_constant)
    at = 0
    while at < len(text):
        rec, at = decoder.raw_decode(text, at)
        while at < len(text) and text[at].isspace():
            at += 1
        yield rec


class _NotANumber(Exception):
    """NaN, Infinity or -Infinity, which pyarrow reads but no exact number is."""


def _no_constant(name):
    raise _NotANumber(name)


def _decimals(texts):
    """Number texts as a decimal128 column when each is a plain decimal
    (``-12.50``) and they fit 38 digits, else None."""
    import pyarrow as pa
    import pyarrow.compute as pc

    plain = texts.drop_null()
    if not pc.all(pc.match_substring_regex(plain, r"^-?[0-9]+(\.[0-9]+)?$")).as_py():
        return None
    if len(plain) == 0:
        return texts.cast(pa.int64())
    point = pc.find_substring(plain, ".")
    length = pc.utf8_length(plain)
    scale = pc.max(pc.if_else(pc.less(point, 0), 0, pc.subtract(pc.subtract(length, point), 1))).as_py()
    whole = pc.max(pc.if_else(pc.less(point, 0), length, point)).as_py()  # (a sign counted: a digit to spare)
    if whole + scale > 38:
        return None
    return texts.cast(pa.decimal128(whole + scale, scale))


def write_json_facts(path, facts, names, overwrite: bool = False, calendar=None, staging=None) -> None:
    """Write ``(terms, interval)`` rows as JSON Lines, atomically: one
    object a fact, its arguments under ``names``, then ``start``, ``end``,
    ``start_closed``, ``end_closed``, as a bound JSON Lines input reads it
    back (and pandas' ``read_json(lines=True)`` or DuckDB's ``read_json``
    read it).  A number is a JSON number of its exact text (``0.1``, a
    float's shortest text), which reads back as the same exact number; a
    rational without a decimal (``1/3``), a date, a set or a labelled null
    its text, as ``chronolog run --format json`` writes it; an unbounded
    end null, as a Parquet file's is."""
    from chronolog.language.compressed import text_for_writing

    from .files import atomic_write
    from .json_records import json_string

    keys = [json_string(str(n)) + ": " for n in [*names, "start", "end", "start_closed", "end_closed"]]
    term, point = _memo(_term_json), _memo(_point_json(calendar))

    def write(tmp):
        with text_for_writing(tmp, path) as fh:  # (compressed as the name says: a file.jsonl.gz)
            for terms, (lo, hi, lc, hc) in facts:
                values = [*map(term, terms), point(lo), point(hi), "true" if lc else "false", "true" if hc else "false"]
                fh.write("{" + ", ".join(k + v for k, v in zip(keys, values)) + "}\n")

    atomic_write(path, write, overwrite, staging)


def _memo(convert):
    """``convert`` of each distinct value once (values repeat down a
    column: a fact each took 60 us converted anew), keyed by the value and
    its type (1, 1.0 and #T are equal in Python, not in JSON)."""
    seen: dict = {}

    def converted(v):
        key = (type(v), v)
        text = seen.get(key)
        if text is None:
            text = seen[key] = convert(v)
        return text

    return converted


def _term_json(v) -> str:
    """A term's JSON text: a number as a JSON number where its text is one."""
    from fractions import Fraction

    from chronolog.language.timeline import format_number

    from .json_records import json_line, json_term

    if type(v) is int or isinstance(v, Fraction) or (type(v) is float and abs(v) != float("inf") and v == v):
        text = format_number(v)
        if _JSON_NUMBER.fullmatch(text):
            return text
    return json_line(json_term(v))[:-1]


def _point_json(calendar):
    """A time point's JSON text: a number (null where unbounded), or on a
    date timeline the date's text."""
    from chronolog.language.timeline import NEG_INF, POS_INF

    from .json_records import json_string

    if calendar is not None:
        return lambda t: "null" if t == NEG_INF or t == POS_INF else json_string(calendar.format_point(t))
    return lambda t: "null" if t == NEG_INF or t == POS_INF else _term_json(t)


_JSON_NUMBER = __import__("re").compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")


def table_json_lines(table, calendar=None):
    """The JSON Lines :func:`write_json_facts` writes, from the Arrow table
    of a relation held as columns (text_out.frame_table: typed as
    facts_to_arrow types them, rows in the model's order), each column's
    JSON made by kernels (800,000 facts fact by fact took 35 s, most of it
    making the facts); a polars String Series of lines, or None where a
    column holds what only the rows write (term text such as ``1/3``, a
    float's infinity, a date argument, a time off the second)."""
    import polars as pl

    from chronolog.engine.arrow import term_text_names

    from .json_records import json_string

    if term_text_names(table):
        return None
    parts = []
    for i, name in enumerate(table.schema.names):
        col = table.column(name).combine_chunks()
        text = _point_texts(col) if name in ("start", "end") and calendar is not None else _value_texts(col)
        if text is None:
            return None
        parts += [pl.lit(("{" if i == 0 else ", ") + json_string(name) + ": "), pl.Series(f"c{i}", text, dtype=pl.String)]
    if not parts:
        return None
    parts.append(pl.lit("}\n"))
    return pl.select(pl.concat_str(parts)).to_series() if table.num_rows else pl.Series([], dtype=pl.String)


def _value_texts(col):
    """A column's values as JSON texts (an Arrow string array), null as
    ``null``, or None (see :func:`table_json_lines`)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    t = col.type
    if pa.types.is_boolean(t):
        text = pc.if_else(col, "true", "false")
    elif pa.types.is_integer(t):
        text = col.cast(pa.string())
    elif pa.types.is_decimal(t):  # (a column's scale: 7.00 beside 10.04, written 7 as its fact's text)
        text = pc.replace_substring_regex(pc.replace_substring_regex(col.cast(pa.string()), r"(\.[0-9]*?)0+$", r"\1"), r"\.$", "")
    elif pa.types.is_floating(t):
        from .float_text import float_texts

        if not _all_finite(col):
            return None
        text = float_texts(col.to_numpy(zero_copy_only=False))
    elif pa.types.is_string(t) or pa.types.is_large_string(t):
        from .records_out import _escaped

        import polars as pl

        text = ('"' + _escaped(pl.Series(col.cast(pa.string()))) + '"').to_arrow()
    else:
        return None
    return pc.fill_null(text, "null") if col.null_count else text


def _point_texts(col):
    """A date timeline's time points as JSON strings (iso_text's: a date
    at midnight, else to the second), null where unbounded, or None (a
    fraction of a second, a year beyond 1..9999)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_timestamp(col.type) or col.type.tz not in (None, "UTC", "+00:00"):
        return None
    col = col.cast(pa.timestamp("us", tz=col.type.tz))
    micros = col.cast(pa.int64())
    if pc.any(pc.not_equal(pc.remainder(micros, 1_000_000), 0)).as_py():
        return None
    years = pc.year(col)
    if pc.any(pc.or_(pc.less(years, 1), pc.greater(years, 9999))).as_py():
        return None
    naive = col.cast(pa.timestamp("s"))  # (whole seconds, checked: Arrow's %S writes a fraction of a finer unit, 04:00:00.000000)
    midnight = pc.equal(pc.remainder(micros, 86_400_000_000), 0)
    text = pc.if_else(midnight, pc.strftime(naive, "%Y-%m-%d"), pc.strftime(naive, "%Y-%m-%dT%H:%M:%S"))
    text = pc.binary_join_element_wise('"', text, '"', "")
    return pc.fill_null(text, "null") if col.null_count else text


def write_json_lines(path, lines, overwrite: bool = False, staging=None) -> None:
    """Write :func:`table_json_lines`' lines, atomically (compressed as
    the name says)."""
    from pathlib import Path

    from chronolog.language.compressed import text_for_writing

    from .files import atomic_write

    def write(tmp):
        with text_for_writing(tmp, path) as fh:
            for at in range(0, len(lines), 65_536):
                fh.write("".join(lines.slice(at, 65_536).to_list()))

    atomic_write(Path(path), write, overwrite, staging)
