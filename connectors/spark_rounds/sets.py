"""``munion``'s set as a term: one string, the engine's text of the set.

The engine's set is a tuple of the distinct values, sorted (language/
text.py ``term_sort_key``), and a term like any other: it joins and
compares by tuple equality and prints as ``{a,"b c",2.5}``
(``format_term``); the answers give that text.  Here a set is its text,
a term class of its own (``SET``, a string column): the values of one
column are of one class, sorted by Spark as Python sorts them (numbers by
value, strings by code point: UTF-8 byte order, ``false`` before
``true``, dates and timestamps in time), each printed as the engine
prints it (a string or an instant as its key text, which is that text:
terms.TermTypes.key_text_sql), so two sets are equal
exactly when their texts are; a set of floats is its term text, as
``Model.to_arrow`` writes it (``{float(1.5)}``, which reads back as
floats), in a UDF (Java prints ``1.0E10``, Python ``10000000000.0``).
The outputs mark a set column as term text (entry.outputs_of).  Not
here: sets of sets (the engine flattens them); an order between sets
(tuples compare element by element, texts by character) is refused by the
conditions (rules.py).
"""

from __future__ import annotations

from .classes import BOOL, DATE, FLOAT, NUM, STR, TS
from .fragment import NotRelational
from .udfs import fold_sql


def set_text(values: str, c, functions, rule) -> str:
    """SQL: the engine's text of the set of the array SQL ``values`` (of
    class ``c``: distinct, unsorted); ``functions``: the run's
    functions.Functions (a number's or a boolean's text, as ``concat``)."""
    if c in (STR, DATE, TS):  # (a string's or an instant's key text is the engine's text of it)
        text = functions.arith.types.key_text_sql("x", c)
    elif c in (NUM, BOOL):
        text = functions.text("x", c, "munion", rule)
    elif c == FLOAT:  # its term text, in a UDF (Java prints 1.0E10, Python 10000000000.0)
        return fold_sql(functions.arith.spark, "munion", values, "string")
    else:
        raise NotRelational(f"aggregation: munion of {c or 'unknown'} terms", rule)
    return f"concat('{{', array_join(transform(sort_array({values}), x -> {text}), ','), '}}')"
