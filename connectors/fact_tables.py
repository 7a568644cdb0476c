"""Fact files of many predicates written as tables rather than fact text:
the CSV ``run --format csv`` writes (fact_csv.py) and the JSON Lines
``run --format json`` writes (fact_json.py), told apart by the file's name.
Each module reads a file with ``read`` (FactRows), ``rows_in_order`` (a
stream's order) and ``position_of`` (where a fact is)."""

from __future__ import annotations

import re

_RECORDS = re.compile(r"\s*[{\[]")


def reader_of(path):
    """The module that reads the fact file ``path``, or None for fact text."""
    from . import fact_csv

    if fact_csv.is_fact_csv(path):
        return fact_csv
    if is_fact_json(path):
        from . import fact_json

        return fact_json
    return None


def are_records(text: str) -> bool:
    """Whether a text of facts is JSON records (standard input's), one a
    line or one JSON array of them: no line of fact text starts with ``{``
    or ``[``."""
    return _RECORDS.match(text) is not None


def is_fact_json(path) -> bool:
    """Whether a fact file holds JSON records (its name ends in ``.jsonl``,
    ``.ndjson`` or ``.json``, compressed or not)."""
    from chronolog.language.compressed import inner_name

    return inner_name(path).lower().endswith((".jsonl", ".ndjson", ".json"))
