"""Where a value in a comparison's error came from: the input row that gave it.

``cannot compare 'x' and 2 in 'V > 2'`` names the rule; the value came from a
row of a CSV file, a line of fact text or a row of a DataFrame, and that row
is what the user has to fix.  The engine keeps no position per row (a
predicate's rows keep its first position alone), so the inputs are read
again here, on the error's path only, and the first row of the body atom
that binds the compared variable with that value is named."""

from __future__ import annotations

import os

from chronolog.language import ast
from chronolog.language.builtins import is_number
from chronolog.language.errors import ChronologError, DataError

SCANNED_BYTES = 64 << 20  # (a larger fact file is not read again for the line of a value)


def with_origin(err: DataError, prog: ast.Program, facts, dialect: str, calendar, base_dir, text=None, name="facts",
                rows=None) -> DataError:
    """``err`` (the error of a comparison or a built-in, ``err.operands``:
    its literal and each operand with its value) placed at the input row
    the first value an input gave came from, the rule named in its message;
    ``err`` itself when no input gave one (derived or computed values).
    ``text``: the program's text, whose fact lines the reader may have read
    apart from its rules (api.KERNEL_BYTES), so not in ``prog.facts``;
    ``name``: what the caller calls ``facts`` (a table's row is
    ``facts['q'], row 3``; Spark's ``inputs``); ``rows``: where the caller
    finds the rest, ``rows(pred, i, value)`` -> (position, row text) or
    None (a Spark DataFrame's row, by a job the driver runs)."""
    pushed, err = err, getattr(err, "at_rule", err)  # (a stream's error naming its pushed fact: placed at the file's line instead)
    literal, operands = err.operands
    for operand, value in operands:
        if not isinstance(operand, ast.Var):
            continue
        for pred, i in _binders(prog, literal, operand.name):
            try:
                found = None
                if isinstance(text, str):  # (the program's facts in their order, those the reader read apart too: the first)
                    found = _in_lines(pred, i, value, text.splitlines(), literal.pos.file, dialect, calendar)
                    found = found and (found[0], "")
                if found is None:
                    found = _find(pred, i, value, prog, facts, dialect, calendar, base_dir, name)
                if found is None and rows is not None:
                    found = rows(pred, i, value)
            except ChronologError:  # (an input that no longer reads as it did, e.g. a file changed since: the error as it was)
                return pushed
            if found is not None:
                where, line = found
                return DataError(f"{err.message}, the rule at {err.pos}: {_shown(value)} comes from this row of {pred} (term {i + 1})",
                                 where, hint=err.hint, source_line=line)
    return pushed


def with_pushed_origin(err: DataError, prog: ast.Program, rows: dict, fact_text, held=None) -> DataError:
    """``err`` (as :func:`with_origin` takes it) naming the fact of
    ``rows`` that gave one of its values: a stream's facts pushed since its
    last watermark (``{pred: [(terms, interval)]}``), which it holds in
    memory as it evaluates them, shown by ``fact_text(pred, terms,
    interval)``; else one that ``held(pred)`` gives (``[(terms,
    interval)]``: the facts pushed before that the stream still holds, on
    the intervals it holds them); ``err`` itself where none did (a value
    derived, or of a fact the stream forgot).  The error keeps ``err`` as
    ``at_rule`` and a pushed fact as ``pushed`` (``pred, terms, i,
    value``): a caller that knows the facts' file places it there
    (``chronolog stream --input FILE``, :func:`with_origin`; on standard
    input, :func:`at_pushed_line`)."""
    literal, operands = err.operands
    sources = [(rows.get, "the pushed fact {}")] + ([(held, "the fact {}, pushed before this step")] if held is not None else [])
    for operand, value in operands:  # (each operand's sources in turn, as with_origin's)
        if not isinstance(operand, ast.Var):
            continue
        for source, what in sources:
            for pred, i in _binders(prog, literal, operand.name):
                for terms, iv in source(pred) or ():
                    if len(terms) > i and _same(terms[i], value):
                        placed = DataError(f"{err.message}: {_shown(value)} comes from {what.format(fact_text(pred, terms, iv))} "
                                           f"(term {i + 1})", err.pos, hint=err.hint)
                        placed.operands, placed.at_rule, placed.pushed = err.operands, err, (pred, terms, i, value)
                        return placed
    return err


def at_pushed_line(err: DataError, source: str, lines: dict) -> DataError:
    """A stream's error naming its pushed fact (:func:`with_pushed_origin`)
    placed at the line of ``source`` that gave the fact (``lines``:
    ``(pred, terms)`` -> line number, of the facts not yet evaluated), as
    :func:`with_origin` places a file's; ``err`` where it names none."""
    pushed = getattr(err, "pushed", None)
    n = lines.get(pushed[:2]) if pushed is not None else None
    if n is None:
        return err
    pred, _, i, value = pushed
    rule = err.at_rule
    return DataError(f"{rule.message}, the rule at {rule.pos}: {_shown(value)} comes from this row of {pred} (term {i + 1})",
                     ast.Pos(source, n, 1), hint=rule.hint)


def _binders(prog, literal, name):
    """(pred, index) of each positive atom of the rule holding ``literal``
    that has the variable ``name`` at ``index``."""
    for rule in prog.rules:
        if not any(lit is literal or (type(lit) is type(literal) and lit.pos == literal.pos and str(lit) == str(literal))
                   for lit in rule.body):
            continue
        out = []
        for lit in rule.body:
            for atom in _atoms(lit):
                out += [(atom.pred, i) for i, t in enumerate(atom.terms) if isinstance(t, ast.Var) and t.name == name]
        return out
    return []


def _atoms(lit):
    if isinstance(lit, ast.Atom):
        yield lit
    elif isinstance(lit, ast.Binary):
        yield from _atoms(lit.left)
        yield from _atoms(lit.right)
    elif isinstance(lit, ast.Temporal):
        yield from _atoms(lit.inner)


def _same(a, b) -> bool:
    return (type(a) is type(b) or is_number(a) and is_number(b)) and a == b


def _find(pred, i, value, prog, facts, dialect, calendar, base_dir, name="facts"):
    """(position, source line) of the first input row of ``pred`` with
    ``value`` as its term ``i``, or None."""
    for f in prog.facts:
        if f.pred == pred and len(f.terms) > i and _same(f.terms[i], value):
            return f.pos, ""
    if facts is not None:
        found = _in_facts(pred, i, value, facts, dialect, calendar, name)
        if found is not None:
            return found
    if any(a.name == "bind" for a in prog.annotations):
        from chronolog.connectors.bindings import load_bound_inputs

        kept = {}
        for f in load_bound_inputs(prog, base_dir):
            if f.pred != pred:
                continue
            n = kept[f.pos.file] = kept.get(f.pos.file, -1) + 1
            if len(f.terms) > i and _same(f.terms[i], value):
                if f.pos.line > 0:
                    return f.pos, _line_of(f.pos.file, f.pos.line)
                return ast.Pos(f"{f.pos.file}, row {n}"), ""  # (a Parquet or Arrow file: no lines)
    return None


def _in_facts(pred, i, value, facts, dialect, calendar, name="facts"):
    from chronolog import frames
    from chronolog.api import load_facts
    from chronolog.language.fact_columns import FactColumns
    from chronolog.language.facts import FactRows

    if isinstance(facts, FactRows):  # (read already: the Spark driver's rows of its inputs, not the user's; it places them)
        return None
    if isinstance(facts, (list, tuple)) and all(isinstance(f, os.PathLike) for f in facts):
        return next((w for f in facts if (w := _in_facts(pred, i, value, f, dialect, calendar)) is not None), None)
    if isinstance(facts, os.PathLike):
        from chronolog.connectors.fact_tables import reader_of

        table = reader_of(facts)
        if table is not None:
            for pos, p, terms, _, _ in table.rows_in_order(facts, calendar):
                if p == pred and len(terms) > i and _same(terms[i], value):
                    return pos, _line_of(os.fspath(facts), pos.line)
            return None
        if os.path.getsize(facts) > SCANNED_BYTES:
            return None
        from chronolog.language.source_text import read_text

        return _in_lines(pred, i, value, read_text(facts, "facts file").splitlines(), os.fspath(facts), dialect, calendar)
    if isinstance(facts, str):
        return _in_lines(pred, i, value, facts.splitlines(), getattr(facts, "source", "<facts>"), dialect, calendar)
    if isinstance(facts, dict) and pred in facts and not frames.is_frame(facts):  # (a table of every predicate: not read again)
        if isinstance(facts[pred], (FactRows, FactColumns)):  # (read already: a Spark task's slice, its rows not the user's)
            return None
        rows = load_facts({pred: facts[pred]}, dialect, calendar).get(pred, [])
        n = next((k for k, (terms, _) in enumerate(rows) if len(terms) > i and _same(terms[i], value)), None)
        if n is not None:
            what = "row" if not isinstance(facts[pred], (list, tuple)) else "item"
            return ast.Pos(f"{name}[{pred!r}], {what} {n}"), ""
    return None


def _in_lines(pred, i, value, lines, source, dialect, calendar):
    """The line of fact text that gives ``pred`` ``value`` as term ``i``:
    each line that names the predicate is read alone."""
    from chronolog.language.facts import read_dialect_facts

    text = value if type(value) is str else None  # (a string is on its line as it is, or escaped: then read each line)
    if text is not None and ("\\" in text or '"' in text):
        text = None
    for n, line in enumerate(lines, 1):  # (a line with a backslash may escape the string: "\u00e9t\u00e9" is 'été')
        if pred not in line or (text is not None and text not in line and "\\" not in line):
            continue
        try:
            rows = read_dialect_facts([line], source, dialect, calendar)
        except Exception:  # (a line that reads only with its neighbours, a comment: not the one)
            continue
        if any(len(terms) > i and _same(terms[i], value) for terms, _ in rows.get(pred, [])):
            return ast.Pos(source, n, _column(pred, i, value, line, source, dialect, calendar)), line
    return None


def _line_of(path, line: int) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for n, text in enumerate(fh, 1):
                if n == line:
                    return text.rstrip("\r\n")[:200]
    except OSError:
        pass
    return ""


def _shown(v) -> str:
    from chronolog.engine.rows.expressions import _shown as shown

    return shown(v)


def _column(pred, i, value, line, source, dialect, calendar) -> int:
    """The column where the fact of ``line`` giving ``pred`` ``value`` as
    term ``i`` starts (a line may hold several facts, and indentation), as
    the program's reader places a fact: the first start of ``pred`` from
    which the line's first fact is that one."""
    import re

    from chronolog.language.facts import read_dialect_facts

    for m in re.finditer(rf"(?<![\w$]){re.escape(pred)}\b", line):
        try:
            rows = read_dialect_facts([line[m.start():]], source, dialect, calendar)
        except Exception:  # (inside a string or a comment: not a fact's start)
            continue
        first = rows.get(pred, [])[:1]
        if first and len(first[0][0]) > i and _same(first[0][0][i], value):
            return m.start() + 1
    return 1
