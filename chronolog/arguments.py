"""Checks of what Python code passes to the API (``reason``, ``Model``,
``Stream``): a wrong argument is an :class:`ArgumentError` naming the
argument (and the row and column of table input) with the accepted forms,
never a bare ``TypeError`` from deep inside, never a silently odd answer."""

from __future__ import annotations

import math
import os
from contextlib import contextmanager
from decimal import Decimal
from fractions import Fraction

from chronolog.language.booleans import Boolean
from chronolog.language.dates import is_date
from chronolog.language.errors import ArgumentError, ChronologError
from chronolog.language.programs import check_program  # noqa: F401 (the API's checks, here with the rest)
from chronolog.language.patterns import LazyPattern

_NAME = LazyPattern(r"^[A-Za-z_][A-Za-z0-9_]*$")


def is_number(v) -> bool:
    return isinstance(v, (int, float, Fraction, Decimal)) and not isinstance(v, bool)


def check_facts(facts) -> None:
    """The forms ``reason(program, facts)`` accepts (docs/api.md)."""
    if facts is None or isinstance(facts, (str, os.PathLike, dict)):
        return
    if isinstance(facts, (bytes, bytearray)):
        raise ArgumentError("facts: bytes are not text", hint="decode them first: data.decode('utf-8')")
    if type(facts).__module__.startswith("pyspark"):
        raise ArgumentError("facts: a Spark DataFrame is read by chronolog.spark.reason(), not by reason()",
                            hint='chronolog.spark.reason(spark, program, {"q": df}); or give reason() its Arrow '
                            'table in a dict: {"q": df.toArrow()}')
    if _is_table(facts):
        # (an Arrow table's ``columns`` are its arrays, not their names)
        names = facts.schema.names if type(facts).__module__.startswith("pyarrow") else facts.columns
        if "pred" in list(names):  # one table of every predicate (Model.to_pandas() of all)
            return
        raise ArgumentError(
            f"facts: a {type(facts).__name__} of facts needs a pred column, or goes in a dict {{predicate: table}}",
            hint='reason(program, {"q": table}), or add a "pred" column naming each row\'s predicate',
        )
    if not hasattr(facts, "__iter__"):
        raise ArgumentError(
            f"facts: expected fact text, a Path, a list of lines or Paths, a table with a pred column, or a dict {{predicate: rows}}, not {type(facts).__name__}",
            hint='reason(program, "q(a)@[1,2]") or reason(program, {"q": [(("a",), (1, 2))]}); '
            'a table goes in a dict: {"q": table}',
        )


def _is_table(x) -> bool:
    return type(x).__name__ in ("Table", "DataFrame")


# A predicate name as each dialect's rules write it (language/*.lark): in the
# Temporal Vadalog syntax and LARS, a lowercase letter first (``Foo`` or
# ``_p`` is a variable there, so no rule could read facts given for it);
# MeTeoR's names take either case and namespaces (``a1:Lecturer``).
_PREDICATE_NAMES = {
    "meteor": (LazyPattern(r"[A-Za-z_][A-Za-z0-9_]*(:[A-Za-z0-9_]+)*"),
               "a letter or _ followed by letters, digits or _, with namespaces after ':' (e.g. q, a1:Lecturer)"),
}
_LOWERCASE_NAME = (LazyPattern(r"[a-z][A-Za-z0-9_]*"), "a lowercase letter followed by letters, digits or _ (e.g. q, sensorReading)")


def check_predicate_name(pred, what: str = "facts", dialect: str = "vadalog") -> None:
    """A predicate name of ``dialect``: facts given from Python for any
    other name could never be read by a rule (nor retracted as text)."""
    pattern, form = _PREDICATE_NAMES.get(dialect, _LOWERCASE_NAME)
    if not isinstance(pred, str) or not pattern.fullmatch(pred):
        meteor = isinstance(pred, str) and _PREDICATE_NAMES["meteor"][0].fullmatch(pred) is not None
        why = f" of the {dialect} dialect, whose rules read {pred} as a variable" if meteor and pred[0].isupper() else ""
        raise ArgumentError(
            f"{what}: {pred!r} is not a predicate name{why}",
            hint=f"a predicate name is {form}" + (f"; write {pred[0].lower() + pred[1:]}" if why else "")
                 + ("; MeTeoR's names take either case (dialect='meteor')" if meteor else ""),
        )


def check_term(v, where: str) -> None:
    """A constant of a fact: string, number, boolean, date or datetime; or
    a labelled null of a model (``model.facts()`` gives them: one object,
    one null, in every row it is given in)."""
    from chronolog.language.nulls import Null

    if isinstance(v, (str, bool, Boolean, Null)) or is_date(v) or is_number(v):
        if (isinstance(v, float) and math.isnan(v)) or (isinstance(v, Decimal) and v.is_nan()):
            raise ArgumentError(f"{where}: NaN is not a value", hint="leave the row out, or use a string such as 'unknown'")
        return
    if isinstance(v, (tuple, set, frozenset)):  # a set of values (what munion gives): its members are constants
        for x in v:
            if isinstance(x, (tuple, set, frozenset)):
                raise ArgumentError(f"{where}: a set's members are constants, not a set {x!r}", hint="give a set of constants, e.g. (\"a\", 2)")
            check_term(plain(x), where)
        return
    raise ArgumentError(
        f"{where}: {v!r} ({type(v).__name__}) is not a constant",
        hint="constants are strings, numbers, booleans, dates or datetimes" + ("; None has no meaning in a fact" if v is None else ""),
    )


def check_fact_row(row, where: str):
    """One ``(terms, interval)`` item of dictionary input -> terms tuple."""
    if not isinstance(row, (tuple, list)) or len(row) != 2:
        raise ArgumentError(
            f"{where}: expected a pair (terms, interval), not {row!r}",
            hint='e.g. {"q": [(("a",), (1, 2))]}: terms is a tuple, interval (start, end) or (start, end, start_closed, end_closed)',
        )
    terms, iv = row
    check_terms_tuple(terms, where)
    terms = [plain(v) for v in terms]
    for k, v in enumerate(terms):
        check_term(v, f"{where}, argument {k + 1}")
    check_interval(plain_interval(iv), f"{where}, interval")
    return engine_terms(terms)


def check_terms_tuple(terms, where: str) -> None:
    """A fact's terms are a tuple (or list): a string would be read as its letters."""
    if isinstance(terms, (str, bytes)) or not isinstance(terms, (tuple, list)):
        raise ArgumentError(f"{where}: the terms {terms!r} are not a tuple", hint='write one-argument terms as ("a",)')


def plain(v):
    """A numpy number or boolean (a cell of a DataFrame's row, ``np.int64(3)``)
    as the Python value it holds; anything else unchanged (numpy is not
    imported for it)."""
    if type(v).__module__ == "numpy" and getattr(v, "shape", None) == () and getattr(v, "dtype", None) is not None \
            and v.dtype.kind in "biuf":
        return v.item()
    return v


def plain_interval(iv):
    """:func:`plain` on each part of an interval (or a point)."""
    return type(iv)(plain(x) for x in iv) if isinstance(iv, (tuple, list)) else plain(iv)


def engine_terms(terms) -> tuple:
    """Terms given as Python values, as the engine's: a bool (numpy's too)
    is #T/#F (never the number 1/0), a date or datetime the instant term
    (naive UTC), a numpy number the value it holds, a ``Decimal`` the exact
    number it writes (``Decimal("1.50")`` is 3/2, as a
    table's decimal cell and the fact text ``1.50`` are), a whole
    ``Fraction`` the int (``Fraction(2)`` is 2, as the text ``4/2`` reads)."""
    from chronolog.engine.term_types import instant
    from chronolog.language.booleans import terms as as_terms
    from chronolog.language.float_times import exact_time

    terms = [plain(v) for v in terms]  # (numpy numbers and booleans: the values they hold)
    return as_terms(tuple(instant(v) if is_date(v) else exact_time(v) if isinstance(v, Decimal) else
                          v.numerator if isinstance(v, Fraction) and v.denominator == 1 else _set_term(v) if isinstance(v, (tuple, set, frozenset)) else v for v in terms))


def _set_term(members) -> tuple:
    """A set of values given in Python (a tuple, set or frozenset) as the
    engine's set term: its members' terms, each once, in one order."""
    from chronolog.language.text import make_set

    return make_set(engine_terms(members))


def _point(v, where: str, text_dates: bool = False) -> None:
    if is_date(v):  # resolved by the program's calendar
        return
    if isinstance(v, str):
        from chronolog.language.dates import DATE_RE

        if text_dates and DATE_RE.match(v.strip()):
            return
        raise ArgumentError(
            f"{where}: {v!r} is not a time point",
            hint="pass numbers, e.g. (0, 5)" + ("; on a date timeline, dates such as 2020-01-31" if text_dates else
                                              "; on a date timeline, datetime.date or datetime.datetime values"),
        )
    if not is_number(v):
        raise ArgumentError(f"{where}: {v!r} is not a time point", hint="time points are numbers (or dates on a date timeline); -inf/+inf: float('inf')")
    if v != v:  # NaN (float or Decimal)
        from chronolog.language.float_times import NAN_HINT

        raise ArgumentError(f"{where}: NaN is not a time point", hint=NAN_HINT)


def check_interval(iv, where: str) -> None:
    """``t``, ``(start, end)`` or ``(start, end, start_closed, end_closed)``."""
    if isinstance(iv, (tuple, list)):
        if len(iv) not in (2, 4):
            raise ArgumentError(
                f"{where}: {tuple(iv)!r} has {len(iv)} parts",
                hint="an interval is (start, end) or (start, end, start_closed, end_closed)",
            )
        _point(iv[0], where)
        _point(iv[1], where)
        if len(iv) == 4 and not all(isinstance(b, bool) for b in iv[2:]):
            raise ArgumentError(f"{where}: start_closed and end_closed must be True or False, not {iv[2]!r}, {iv[3]!r}")
        return
    _point(iv, where)


def check_horizon(h, what: str = "horizon", calendar=None) -> None:
    """``(from, to)`` or the text ``"from,to"`` (parsed later)."""
    if h is None or isinstance(h, str):
        return
    if not isinstance(h, (tuple, list)) or len(h) != 2:
        raise ArgumentError(
            f"{what}: expected (from, to) or \"from,to\", not {h!r}",
            hint=f"e.g. {what}=(0, 1000)",
        )
    for v in h:
        _point(v, what, text_dates=calendar is not None)
        _on_the_timeline(v, what, calendar)


def _on_the_timeline(v, what: str, calendar) -> None:
    """A horizon's end of the program's kind: on a date timeline a number
    is no date (5 was taken as the 5th day after 1970-01-01), on a numeric
    one a date no number (it met a number in a bare TypeError)."""
    if calendar is not None and is_number(v) and v not in (math.inf, -math.inf):
        raise ArgumentError(
            f"{what}: {v!r} is a number, but this program's timeline is dates",
            hint=f'give both ends as dates, e.g. {what}=("2020-01-01", "2020-12-31"); float("inf") for no end',
        )
    if calendar is None and is_date(v):
        raise ArgumentError(
            f"{what}: {v!r} is a date, but this program's timeline is numeric",
            hint=f'give numbers, e.g. {what}=(0, 1000), or declare @timeGranularity("days"). in the program',
        )


def check_span(v, what: str) -> None:
    """A length of time: a non-negative number (``float('inf')``: no bound)."""
    if not is_number(v) or v != v or v < 0:
        raise ArgumentError(f"{what}: expected a non-negative number of time units, not {v!r}", hint=f"e.g. {what}=10")


@contextmanager
def as_option(argument: str, option: str):
    """An error about the API's ``argument`` raised within names the
    command's ``option`` instead (``reach_back=10`` becomes ``--reach-back
    10``, "bad horizon '0'" "bad --horizon '0'"): the command line's user
    never wrote the former."""
    try:
        yield
    except ChronologError as e:
        for start in (f"{argument}:", f"bad {argument} ", f"bad {argument}:"):
            if e.message.startswith(start):
                import copy

                named = copy.copy(e)
                named.message = start.replace(argument, option) + e.message[len(start):]
                named.hint = e.hint.replace(f"{argument}=", f"{option} ")
                named.args = (named.render(),)
                raise named from None
        raise


def check_max_rounds(n) -> None:
    if n is None:
        return
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ArgumentError(f"max_rounds: expected a positive whole number, not {n!r}", hint="e.g. max_rounds=1_000_000")


def check_choice(what: str, value, choices) -> None:
    if value is not None and value not in choices:
        raise ArgumentError(f"{what}: {value!r} is not one of {', '.join(map(repr, choices))}")


def check_known_predicate(model, pred, what: str) -> None:
    """A predicate the program neither mentions nor was given facts for is
    most likely a typo: say so instead of answering empty."""
    if not isinstance(pred, str):
        raise ArgumentError(f"{what}: the predicate must be a name (a string), not {pred!r}")
    if pred in model.plan.arities or model.store.get(pred) is not None or pred in model._repeating:
        return
    refuse_unknown_predicate(pred, model.plan.arities, what)


def refuse_unknown_predicate(pred: str, known, what: str, facts: str = "its facts") -> None:
    """The error for ``pred``, which neither the program (``known``: its
    predicates) nor ``facts`` name."""
    check_predicate_name(pred, what)
    import difflib

    known = sorted(p for p in known if not p.startswith("_"))
    close = difflib.get_close_matches(pred, known, n=3)
    raise ArgumentError(
        f"{what}: the predicate {pred!r} does not occur in the program or {facts}",
        hint=(f"did you mean {', '.join(close)}?" if close else "known predicates: " + ", ".join(known[:12]) if known
              else "the program and its facts name no predicate (is the file empty?)"),
    )


def time_point(t, calendar, what: str):
    """A time point given in Python (a watermark), as a number on the
    program's timeline: on a date timeline a ``date``/``datetime`` or ISO
    text (±inf as ``float('inf')``), on a numeric one a number."""
    from chronolog.language.float_times import exact_time

    t = plain(t)  # (a numpy number: the value it holds)
    _point(t, what, text_dates=calendar is not None)
    dated = isinstance(t, str) or is_date(t)
    if calendar is None and dated:
        raise ArgumentError(f"{what}: {t} is a date, but this program's timeline is numeric",
                            hint='give a number, or declare @timeGranularity("days"). in the program')
    if calendar is not None and not dated and math.isfinite(t):
        raise ArgumentError(f"{what}: {t!r} is a number, but this program's timeline is dates",
                            hint="give a datetime.date / datetime.datetime, or ISO text such as '2024-01-05'")
    if isinstance(t, str):
        return calendar.parse_point(t)
    return calendar.point(t) if dated else exact_time(t)  # (a float is the number its text shows)


def span_units(span, calendar, what: str):
    """A length of time in the timeline's units: on a date timeline also a
    ``timedelta`` or an ISO duration (``P3D``, ``PT12H``); a number is
    granularity units there, as an operator window's is."""
    from datetime import timedelta

    if calendar is None or not isinstance(span, (timedelta, str)):
        return span
    from chronolog.language.dates import parse_duration

    if isinstance(span, timedelta):
        return calendar.duration_seconds(Fraction(span // timedelta(microseconds=1), 1_000_000))
    try:
        return calendar.duration(parse_duration(span))
    except ValueError:
        raise ArgumentError(f"{what}: {span!r} is not a length of time",
                            hint="give a number of granularity units, a timedelta, or an ISO duration such as P3D or PT12H") from None
