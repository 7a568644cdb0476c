"""A fact's JSON as ``chronolog run --format json`` and ``query --format
json`` write it: one JSON Lines record per fact, each value of a kind JSON
has as that (a whole number of a double's range, a float, a string, a
boolean), anything else as its text."""

from __future__ import annotations

# characters a line reader may take for a line's end (Python's splitlines,
# JavaScript before ES2019) that JSON leaves unescaped in a string
LINE_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def json_line(rec: dict) -> str:
    """``rec`` as one line of JSON Lines: non-ASCII text as itself, but
    every character a line reader may split on escaped, so that each
    record is one line however the file is read."""
    import json

    return json.dumps(rec, ensure_ascii=False).translate(LINE_BREAKS) + "\n"


def json_string(text: str) -> str:
    """``text`` as a JSON string, as :func:`json_line` writes one (quoted,
    non-ASCII as itself, the line breaks escaped)."""
    from json.encoder import encode_basestring  # (a str as json.dumps writes it with ensure_ascii=False)

    return encode_basestring(text).translate(LINE_BREAKS)


def json_point(t, point, calendar=None):
    """An integer time point as a JSON number; anything else (rationals,
    ±inf) as its exact text, and on a date timeline every point as its date
    (an integer there counts units since 1970, which the CSV and the text
    print as the date)."""
    return t if calendar is None and type(t) is int and abs(t) < 2**53 else point(t)


def json_term(v):
    """A term as the value ``json.dumps`` writes for it: #T/#F true and
    false, a whole number or a string as itself, a finite float a JSON
    float, anything else (a fraction, an infinity, a date, a set, a
    labelled null) its text."""
    from chronolog.language.booleans import public

    v = public(v)  # #T/#F: JSON true/false
    if isinstance(v, (bool, int, str)):
        return v
    if type(v) is float and abs(v) != float("inf"):
        return v + 0.0  # a float stays a JSON float (1.0 beside the integer 1), -0.0 as 0.0 (format_number)
    from chronolog.language.text import format_term

    return format_term(v)
