"""The Python API: ``reason(program, facts)`` returns a :class:`Model`.

    >>> m = reason("p(X) :- <->[0,2] q(X).  q(a)@[1,2].")
    >>> m.facts("p")
    [(('a',), (1, 4, True, True))]
    >>> m.holds("p(a)@[3,4]")
    True
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Optional, Union

from chronolog.engine.evaluator import Evaluator
from chronolog.engine.store import Store
from chronolog.language import ast
from chronolog.language.errors import DataError, ProgramError
from chronolog.language.facts import FactRows, parse_fact_lines, read_fact_rows
from chronolog.language.text import format_fact as _format_fact
from chronolog.language.text import term_sort_key
from chronolog.language.timeline import contains, parse_number
from chronolog.planner import plan as make_plan
from chronolog.planner.normalize import is_fresh

DIALECTS = ("vadalog", "meteor")


def _parse(text: str, source: str, dialect: str) -> ast.Program:
    if dialect == "vadalog":
        from chronolog.language import vadalog

        return vadalog.parse(text, source)
    if dialect == "meteor":
        from chronolog.language import meteor

        return meteor.parse(text, source)
    raise ProgramError(f"unknown dialect {dialect!r}", hint="use 'vadalog' or 'meteor'")


def load_program(program, *, dialect: str = "vadalog", source: Optional[str] = None) -> ast.Program:
    """Parse program text, or read and parse a file given as a ``Path``."""
    if isinstance(program, ast.Program):
        return program
    if isinstance(program, Path):
        try:
            text = program.read_text(encoding="utf-8")
        except OSError as e:
            raise ProgramError(f"cannot read the program {program}: {e.strerror}") from None
        return _parse(text, source or str(program), dialect)
    if not isinstance(program, str):
        raise TypeError("program must be a string of rules, a pathlib.Path or a parsed Program")
    return _parse(program, source or "<program>", dialect)


def load_facts(facts, dialect: str = "vadalog", calendar=None) -> FactRows:
    """Facts from text, a Path, lines, a list of Paths, or ``{pred: rows}``,
    as :class:`~chronolog.language.facts.FactRows`.  ``calendar``: the
    program's (``program.calendar``) when its time points are dates."""
    if isinstance(facts, FactRows):
        return facts
    rows = FactRows()
    if facts is None:
        return rows
    if isinstance(facts, Path):
        try:
            with facts.open(encoding="utf-8") as fh:
                return _read(fh, str(facts), dialect, calendar)
        except OSError as e:
            raise DataError(f"cannot read the facts file {facts}: {e.strerror}") from None
    if isinstance(facts, str):
        return _read(facts.splitlines(), "<facts>", dialect, calendar)
    if isinstance(facts, dict):
        for pred, items in facts.items():
            pos = ast.Pos(f"<facts {pred}>", 0, 0)
            if not isinstance(items, (list, tuple)):  # an Arrow table or DataFrame
                from chronolog.connectors.arrow import table_to_rows

                for terms, iv in table_to_rows(items, pred, calendar):
                    rows.add(pred, terms, iv, pos)
                continue
            for terms, iv in items:
                rows.add(pred, tuple(terms), _interval(iv, calendar), pos)
        return rows
    items = list(facts)
    if items and all(isinstance(x, Path) for x in items):
        for p in items:
            rows.merge(load_facts(p, dialect, calendar))
        return rows
    if items and all(isinstance(x, ast.Fact) for x in items):
        rows.extend_facts(items)
        return rows
    return _read([str(x) for x in items], "<facts>", dialect, calendar)


def _read(lines, source, dialect, calendar=None) -> FactRows:
    if dialect == "meteor":
        from chronolog.language import meteor

        rows = FactRows()
        rows.extend_facts(meteor.parse_facts(list(lines), source))
        return rows
    return read_fact_rows(lines, source, calendar)


def _interval(iv, calendar=None):
    from chronolog.language.timeline import make

    from chronolog.language.dates import to_points

    iv = to_points(iv, calendar)
    if isinstance(iv, tuple) and len(iv) == 4:
        r = make(*iv)
    elif isinstance(iv, tuple) and len(iv) == 2:
        r = make(iv[0], iv[1], True, True)
    else:
        r = make(iv, iv, True, True)
    if r is None:
        raise DataError(f"empty interval {iv!r}", hint="intervals are (start, end) or (start, end, start_closed, end_closed)")
    return r


def parse_horizon(h, calendar=None):
    """``(lo, hi)`` or ``"lo,hi"`` -> the closed interval tuple (dates on a
    calendar timeline)."""
    if h is None:
        return None
    if calendar is not None:
        from chronolog.language.dates import horizon_points

        h = horizon_points(h, calendar)
    if isinstance(h, str):
        parts = h.split(",")
        if len(parts) != 2:
            raise ProgramError(f"bad horizon {h!r}", hint="write it as FROM,TO, e.g. 0,1000")
        try:
            h = tuple(parse_number(p) for p in parts)
        except ValueError:
            raise ProgramError(f"bad horizon {h!r}", hint="write it as FROM,TO with numbers, e.g. 0,1000") from None
    lo, hi = h[0], h[1]
    if lo > hi:
        raise ProgramError(f"bad horizon: {lo} > {hi}", hint="FROM must not be after TO")
    from chronolog.language.timeline import make

    return make(lo, hi, True, True)


def reason(
    program: Union[str, Path, ast.Program],
    facts=None,
    *,
    dialect: str = "vadalog",
    horizon=None,
    source: Optional[str] = None,
    strategy: str = "blocking",
    explain: bool = False,
    base_dir: Optional[Path] = None,
) -> "Model":
    """Evaluate ``program`` over its own facts plus ``facts``; return the model.

    ``facts``: fact text (one fact per line, trailing '.' optional), a Path to
    such a file, an iterable of lines, a list of Paths, or a dict
    ``{pred: [(terms_tuple, interval), ...]}`` where an interval is
    ``(start, end)`` (closed) or ``(start, end, start_closed, end_closed)``,
    or ``{pred: pyarrow.Table | pandas.DataFrame}`` in the layout of
    :meth:`Model.to_arrow`.
    ``horizon``: ``(from, to)``; derived facts are confined to it.  Programs
    whose recursion moves time need one (or ``@temporal(from, to).``).
    ``explain``: record one derivation per derived piece (``Model.explain``).
    """
    return Reasoner(
        program, facts, dialect=dialect, horizon=horizon, source=source,
        strategy=strategy, explain=explain, base_dir=base_dir,
    ).model


class Reasoner:
    """A reasoning session: the least model now, kept up to date as facts arrive.

        >>> r = Reasoner("q(X) :- <->[0,1] p(X).", "p(a)@0")
        >>> r.add("p(b)@5").to_text()
        'q(a)@[0,1]\nq(b)@[5,6]'

    A positive program continues from the new facts alone (seminaive); a
    program with negation is recomputed, since new facts may retract
    conclusions.
    """

    def __init__(
        self,
        program,
        facts=None,
        *,
        dialect: str = "vadalog",
        horizon=None,
        source: Optional[str] = None,
        strategy: str = "blocking",
        explain: bool = False,
        base_dir: Optional[Path] = None,
    ):
        if strategy not in ("blocking", "streaming"):
            raise ProgramError(f"unknown merge strategy {strategy!r}", hint="use 'blocking' or 'streaming'")
        self.dialect = dialect
        prog = load_program(program, dialect=dialect, source=source)
        if base_dir is None and isinstance(program, Path):
            base_dir = program.parent
        extra = load_facts(facts, dialect, prog.calendar)
        from chronolog.connectors.bindings import load_bound_inputs

        extra.extend_facts(load_bound_inputs(prog, base_dir or Path.cwd()))
        self.plan = make_plan(prog, extra)
        hz = parse_horizon(horizon, prog.calendar) if horizon is not None else None
        if hz is None and self.plan.temporal is not None:
            hz = parse_horizon(self.plan.temporal)
        store = Store()
        derived = self.plan.derived_predicates()
        base = {}
        for f in prog.facts:
            store.relation(f.pred).add(f.terms, f.interval)
            if f.pred in derived:
                base.setdefault(f.pred, []).append((f.terms, f.interval))
        for pred, rows in extra.items():
            store.relation(pred).bulk_add(rows)
            if pred in derived:
                base.setdefault(pred, []).extend(rows)
        self.evaluator = Evaluator(self.plan, store, hz, strategy, explain=explain, base=base)
        self.evaluator.run()
        self.model = Model(store, self.plan, hz, self.evaluator.stats, self.evaluator.provenance)

    def add(self, facts) -> "Model":
        """Add facts (any form :func:`reason` accepts) and update the model."""
        rows = load_facts(facts, self.dialect, self.plan.program.calendar)
        from chronolog.planner.validate import collect_arities

        collect_arities(self.plan.program, rows)
        for pred, r in rows.items():
            known = self.plan.arities.get(pred)
            if known is not None and r and len(r[0][0]) != known[0]:
                raise DataError(
                    f"{pred} has {len(r[0][0])} arguments here but {known[0]} in the program",
                    rows.positions.get(pred),
                )
        self.evaluator.update(dict(rows))
        return self.model


class Model:
    """The least model: per predicate, ground atoms with maximal intervals."""

    def __init__(self, store: Store, plan, horizon=None, stats=None, provenance=None):
        self.store = store
        self.plan = plan
        self.horizon = horizon
        self.stats = stats or {}
        self._provenance = provenance

    # ------------------------------------------------------------ reading
    def predicates(self) -> list:
        """Predicates with at least one fact (fresh internal ones excluded)."""
        return sorted(p for p, r in self.store.relations.items() if r.atoms and not is_fresh(p))

    @property
    def output_predicates(self) -> list:
        """The ``@output`` predicates, or every derived predicate if none."""
        if self.plan.outputs:
            return list(self.plan.outputs)
        heads = {r.head_pred for r in self.plan.rules if r.head_pred and not is_fresh(r.head_pred)}
        return sorted(heads)

    def facts(self, pred: str) -> list:
        """Sorted ``(terms, interval)`` pairs of ``pred``, one per maximal interval."""
        rel = self.store.get(pred)
        if rel is None:
            return []
        out = []
        for terms in sorted(rel.atoms, key=lambda t: tuple(term_sort_key(v) for v in t)):
            for iv in rel.atoms[terms]:
                out.append((terms, iv))
        return out

    def __len__(self) -> int:
        return sum(r.fact_count() for p, r in self.store.relations.items() if not is_fresh(p))

    def holds(self, query, terms=None, interval=None) -> bool:
        """Whether a fact holds throughout an interval.

        ``holds("p(a)@[1,2]")`` or ``holds("p", ("a",), (1, 2))``.
        """
        if terms is None and interval is None:
            f = parse_fact_lines([query], "<query>", calendar=self.calendar)[0]
            pred, terms, iv = f.pred, f.terms, f.interval
        else:
            pred, iv = query, _interval(interval, self.calendar)
        rel = self.store.get(pred)
        if rel is None:
            return False
        ivs = rel.atoms.get(tuple(terms))
        if not ivs:
            return False
        return any(contains(x, iv) for x in ivs)

    def explain(self, query) -> list:
        """How a fact was derived: one recorded derivation per derived piece
        that overlaps the queried interval (needs ``reason(..., explain=True)``).

        Each item is a dict: ``rule`` (text), ``at`` (file:line:col),
        ``binding`` (variable values), ``piece`` (the interval it derived),
        ``body`` (the interval on which the rule's body held).
        """
        if self._provenance is None:
            raise ProgramError("explanations were not recorded", hint="call reason(..., explain=True)")
        f = parse_fact_lines([query], "<query>", calendar=self.calendar)[0]
        from chronolog.language.timeline import format_interval, intersect

        if self.calendar is not None:
            format_interval = self.calendar.format_interval  # noqa: F811
        out = []
        for piece, rule, binding, body_iv in self._provenance.get((f.pred, f.terms), []):
            if intersect(piece, f.interval) is None:
                continue
            src = rule.source
            out.append(
                {
                    "rule": src.text if src is not None and src.text else rule.describe(),
                    "at": str(src.pos) if src is not None else "",
                    "binding": binding,
                    "piece": format_interval(piece),
                    "body": format_interval(body_iv),
                }
            )
        return out

    # ------------------------------------------------------------ output
    @property
    def calendar(self):
        """The program's :class:`~chronolog.language.dates.Calendar` when its
        time points are dates (printed as dates), else None."""
        return getattr(self.plan.program, "calendar", None)

    def lines(self, preds: Optional[Iterable[str]] = None) -> list:
        preds = self.output_predicates if preds is None else list(preds)
        out = []
        cal = self.calendar
        if cal is None:
            for p in sorted(preds):
                for terms, iv in self.facts(p):
                    out.append(_format_fact(p, terms, iv))
            return out
        from chronolog.language.dates import format_fact

        for p in sorted(preds):
            for terms, iv in self.facts(p):
                out.append(format_fact(p, terms, iv, cal))
        return out

    def to_text(self, preds: Optional[Iterable[str]] = None) -> str:
        """Canonical text, one fact per line, sorted by predicate, terms, start."""
        return "\n".join(self.lines(preds))

    def to_arrow(self, pred: str):
        """The facts of ``pred`` as a ``pyarrow.Table`` (layout in docs/api.md)."""
        from chronolog.connectors.arrow import facts_to_arrow

        return facts_to_arrow(self.facts(pred), self.column_names(pred), self.calendar)

    def to_pandas(self, pred: str):
        """The facts of ``pred`` as a DataFrame; integer columns use pandas'
        nullable ``Int64`` so an unbounded end is ``<NA>``, never a float NaN."""
        import pandas as pd
        import pyarrow as pa

        return self.to_arrow(pred).to_pandas(types_mapper=lambda t: pd.Int64Dtype() if t == pa.int64() else None)

    def column_names(self, pred: str) -> list:
        from chronolog.connectors.bindings import column_names

        arity = self.plan.arities.get(pred, (None,))[0]
        if arity is None:
            facts = self.facts(pred)
            arity = len(facts[0][0]) if facts else 0
        return column_names(self.plan.program, pred, arity)

    def __repr__(self) -> str:
        return f"<chronolog.Model: {len(self)} facts in {len(self.predicates())} predicates>"
