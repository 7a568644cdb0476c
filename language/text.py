"""Canonical text of terms, facts and intervals.

``P(a,b)@[1,5)``: identifiers print bare, other strings quoted; numbers as in
:func:`~chronolog.language.timeline.format_number`."""

from __future__ import annotations

from fractions import Fraction

from .booleans import Boolean, sets_made
from .nulls import Null
from .timeline import format_interval, format_number
from .patterns import LazyPattern

# matched whole (fullmatch: Python's $ also matches before a final newline,
# which printed "abc\n" bare over two lines); the pattern is also polars'
# (connectors/text_out.py), whose $ is the end of the text only
_BARE = LazyPattern(r"^[a-z][A-Za-z0-9_]*$")
_RESERVED = ("not", "inf", "infty")  # bare-looking names printed quoted


_UNESCAPE = {"n": "\n", "t": "\t", "r": "\r"}
# every character str.splitlines() breaks at, and the tab
_BREAKS = LazyPattern("[\n\r\t\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def _escape_break(m) -> str:
    c = m.group(0)
    return {"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(c) or f"\\u{ord(c):04x}"


def unquote(s: str) -> str:
    """The value of a quoted string token: ``"a\\"b"`` is ``a"b``."""
    body = s[1:-1]
    if "\\" not in body:
        return body
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt == "u" and len(body) >= i + 6:  # \u2028: a line break written as text
                try:
                    out.append(chr(int(body[i + 2 : i + 6], 16)))
                    i += 6
                    continue
                except ValueError:
                    pass
            out.append(_UNESCAPE.get(nxt, nxt))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def format_term(v) -> str:
    if type(v) is tuple:  # a set of values (munion)
        return "{" + ",".join(format_term(x) for x in v) + "}"
    if type(v) is str:
        if _BARE.fullmatch(v) and v not in _RESERVED:
            return v
        text = v.replace("\\", "\\\\").replace('"', '\\"')
        if _BREAKS.search(text):  # a fact stays on one line, so files read back
            text = _BREAKS.sub(_escape_break, text)
        return '"' + text + '"'
    if type(v) is Null:  # a labelled null (language/nulls.py)
        return str(v)
    if type(v) is Boolean or type(v) is bool:  # (a Python bool: API values not yet terms)
        return "#T" if v else "#F"
    if hasattr(v, "isoformat"):  # a date or datetime constant (language/dates.py)
        return iso_text(v)
    return format_number(v)


def iso_text(dt) -> str:
    """A datetime as ISO 8601 writes it shortest: a date alone at midnight,
    no fraction on a whole second, else its fraction without trailing
    zeros (``10:00:00.5``, as the user wrote it, not ``10:00:00.500000``)."""
    if dt.hour == dt.minute == dt.second == dt.microsecond == 0:
        return dt.date().isoformat()
    text = dt.isoformat()
    if dt.microsecond and dt.utcoffset() is None:  # (an offset would follow the fraction)
        text = text.rstrip("0")
    return text


def format_term_text(v) -> str:
    """A term as a column of term text holds it (engine/arrow.py): as
    :func:`format_term`, but a finite float as ``float(1.5)``, the float
    the language's ``float()`` makes of the number it prints, so that it
    reads back a float beside numbers that are exact."""
    if type(v) is float and v - v == 0:
        return f"float({format_number(v)})"
    if type(v) is tuple:
        return "{" + ",".join(map(format_term_text, v)) + "}"
    return format_term(v)


def format_atom(pred: str, terms) -> str:
    if not terms:
        return pred
    return f"{pred}({','.join(format_term(t) for t in terms)})"


def format_fact(pred: str, terms, interval) -> str:
    return f"{format_atom(pred, terms)}@{format_interval(interval)}"


def term_sort_key(v):
    """Total order over mixed constants: numbers, then strings, then dates,
    then bools, then sets (member by member, in this order: {} < {1} <
    {1,2} < {2} < {10}, as a tuple of one kind compares), then labelled
    nulls."""
    if type(v) is Boolean or type(v) is bool:
        return (2, bool(v))
    if type(v) is Null:
        return (3, v.sort_key())
    if isinstance(v, (int, Fraction, float)):
        return (0, v)
    if hasattr(v, "isoformat"):  # dates and datetimes, in time order
        return (1.5, v.isoformat())
    if type(v) is tuple:  # a set of values (make_set: its members in this order)
        return (2.5, tuple([term_sort_key(m) for m in v]))
    return (1, str(v))


def make_set(members) -> tuple:
    """A set of constants as a term (munion's value, ``{2,a}`` read back):
    its distinct members in :func:`term_sort_key` order, so that equal sets
    are one term however their members came (-0.0 as 0.0: one value)."""
    sets_made[0] = True  # (booleans.any_changed looks into sets from now on)
    distinct = {0.0 if type(v) is float and v == 0.0 else v for v in members}
    if all(type(v) is str for v in distinct) or all(type(v) is int for v in distinct):
        return tuple(sorted(distinct))  # (strings alone, or integers: term order is theirs, without a key each)
    return tuple(sorted(distinct, key=term_sort_key))
