"""SQL text for the interval operators, and the statement it is built in.

A round's plans are SQL text, one statement per merged relation, not
DataFrames built column by column: every pyspark Column function is five
or six py4j round trips (the call's origin is set and cleared in the JVM),
and every DataFrame operation an analysis of its own on the driver.  The
DataFrame version made 900-2,600 round trips per round and 10-40
analyses; a statement is one round trip and one analysis, and Spark's
plan is the one the DataFrames made.

Here: :class:`Stmt`, literals, and the operators every part of a rule or a
merge uses on a relation's ``s``, ``e`` codes (grid.py): coalescing to
maximal intervals, new codes, the diamond's shift and the box (their
lowering shared with the columns: engine/interval_shift.py).
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from itertools import count

from chronolog.language import ast

_CTES = count(1)  # CTE names, unique within the process (a statement may be a subquery of another)


_LAMBDA_NAMES = count()  # lambda variables, unique within the process and so within a statement


def lambda_name(prefix: str) -> str:
    """A fresh name for a lambda's variable (``prefix`` then a number)."""
    return f"{prefix}{next(_LAMBDA_NAMES)}"


def let(value: str, body, prefix: str = "_l") -> str:
    """``body(v)`` of the SQL ``value`` written once (a lambda's variable
    ``v``): Spark shares no subexpression of a CASE's branches, so a value
    a body reads several times is bound rather than repeated."""
    v = lambda_name(prefix)
    return f"transform(array({value}), {v} -> {body(v)})[0]"


def int64(x: int) -> str:
    """A 64-bit SQL literal."""
    return f"({int(x)}L)"


def hex_string(v: str) -> str:
    """A string constant as SQL with nothing to escape (UTF-8 bytes in hex,
    folded to the string by the optimizer)."""
    return f"CAST(X'{v.encode('utf-8').hex()}' AS STRING)"


def raised(e, marker: str) -> str | None:
    """The text after ``marker`` in a Spark exception that SQL's
    ``raise_error`` raised with it (None: another exception)."""
    text = str(e)
    i = text.find(marker)
    if i < 0:
        return None
    return text[i + len(marker):].splitlines()[0].split(" SQLSTATE")[0].strip()


@contextmanager
def expected_failures():
    """Spark jobs whose failure the caller turns into a fallback (an
    overflow in ANSI mode, a ``raise_error`` marker): pyspark logs every SQL
    error it converts at ERROR, with the Java stack trace, before the caller
    sees it, so a run that then succeeds would look failed.  Its two query
    context loggers are off meanwhile (process-wide: they are pyspark's)."""
    from pyspark.logger import PySparkLogger

    loggers = [PySparkLogger.getLogger(n) for n in ("SQLQueryContextLogger", "DataFrameQueryContextLogger")]
    before = [lg.disabled for lg in loggers]
    for lg in loggers:
        lg.disabled = True
    try:
        yield
    finally:
        for lg, d in zip(loggers, before):
            lg.disabled = d


def variable_columns(lits) -> dict:
    """Each variable of the atoms of ``lits`` (conditions and assignments
    have no terms) named ``v0``, ``v1``, ... by its first place."""
    names = (t.name for lit in lits for t in getattr(lit, "terms", ()) if isinstance(t, ast.Var))
    return {v: f"v{i}" for i, v in enumerate(dict.fromkeys(names))}


def term_columns(arity: int) -> list:
    """A relation's term columns: ``c0``, ``c1``, …"""
    return [f"c{i}" for i in range(arity)]


class Stmt:
    """One SQL statement under construction: each step is a subquery of the
    ones before (nested, not a chain of common table expressions: Spark
    forgets a checkpoint's partitioning through a CTE that reads another,
    and the relation was shuffled again every round), with its column
    names; ``add`` returns the step's text to read it from.  A step read
    k times is planned and computed k times, broadcasts included, and a
    step built on it multiplies that: read each step once where one read
    can do (aggregate.py's fold).  A step that must be read twice is
    written once, as a CTE (:meth:`shared`), so that Spark analyses it
    once; a round's statements may share their CTEs (``ctes``).
    ``coalesced``: the steps known coalesced, which :func:`coalesce_sql`
    returns as they are."""

    def __init__(self, ctes: "Ctes | None" = None):
        self.cols: dict = {}
        self.sizes: dict = {}  # an assigned column: its value's SQL length once inlined (arithmetic.py)
        # the steps whose rows are coalesced over all their columns (no two
        # rows of one tuple overlap or touch): coalescing one again is skipped
        self.coalesced: set = set()
        # the steps written once (shared): the statement's own, or the
        # round's, shared by its statements (one CTE list for a round's
        # union of held relations: rounds.Rounds.collect)
        self.ctes = ctes if ctes is not None else Ctes()

    def keeps(self, src: str, step: str) -> str:
        """``step``, coalesced when ``src`` is: it drops whole tuples of
        ``src`` (a filter on its terms, a semi join, a repartition), or adds
        a column that is a function of its terms."""
        if src in self.coalesced:
            self.coalesced.add(step)
        return step

    def add(self, sql: str, cols) -> str:
        step = f"({explicit_star(sql, self.cols)})"
        self.cols[step] = list(cols)
        return step

    def shared(self, step: str) -> str:
        """``step`` written once, as a common table expression the
        statement names, for a step read more than once: Spark analyses a
        CTE once and puts it in place of each name (the optimizer inlines
        a deterministic one), where each inlined copy of the text was
        analysed again, pass after pass of the analyser."""
        name = self.ctes.names.get(step)
        if name is None:
            name = self.ctes.names[step] = f"_w{next(_CTES)}"
            self.ctes.defs.append((name, step))
        self.cols[name] = self.cols[step]
        if step in self.coalesced:
            self.coalesced.add(name)
        return name

    def literal(self, sql: str, cols) -> str:
        """A relation held on the driver (``sql``: its rows' literal,
        coalesced) written once: every atom of the round's statements
        reading it reads one CTE (a self join read its rows twice, and a
        round's union of held relations once per relation: :meth:`shared`)."""
        self.cols[sql] = list(cols)
        self.coalesced.add(sql)
        return self.shared(sql)

    def parts(self, last: str) -> tuple:
        """``(ctes, body)``: the statement of :meth:`text` without its
        ``WITH``, and the CTEs ``[(name, step)]`` it reads, in order
        (each reads only those before it)."""
        body = f"SELECT {', '.join(f'{c} AS {c}' for c in self.cols[last])} FROM {last}"
        read, texts = [], [body]
        for name, step in reversed(self.ctes.defs):
            if any(re.search(rf"\b{name}\b", x) for x in texts):
                read.append((name, step))
                texts.append(step)
        return read[::-1], body

    def text(self, last: str) -> str:
        """The statement: the last step, every column aliased.  A checkpoint
        records its plan's partitioning; read through a subquery, a column
        carries the subquery's name as qualifier, and the partitioning
        named it so while the checkpoint's own columns have none: Spark
        then failed to follow the partitioning to the renamed columns of a
        second read of that checkpoint, and shuffled the relation again."""
        ctes, body = self.parts(last)
        ctes, (body,) = read_once_inlined(ctes, [body])
        return with_ctes(ctes, body)


class Ctes:
    """The common table expressions of one statement, or of a round's
    statements together (:meth:`Stmt.shared`): ``defs`` ``[(name, step)]``
    in order, ``names`` step -> name."""

    def __init__(self):
        self.defs: list = []
        self.names: dict = {}


def read_once_inlined(ctes: list, bodies: list) -> tuple:
    """``(ctes, bodies)`` with each CTE that is read once written in its
    place, as it was before the statements shared their CTEs (rows held on
    the driver that one atom reads: a CTE costs the analyser more than
    the subquery, and the optimizer inlines it anyway)."""
    defs = dict(ctes)
    for name in list(defs):
        pattern = re.compile(rf"\b{name}\b")
        texts = [*bodies, *(defs[n] for n in defs if n != name)]
        if sum(len(pattern.findall(x)) for x in texts) != 1:
            continue
        step = defs.pop(name)
        bodies = [pattern.sub(lambda _: step, x) for x in bodies]
        defs = {n: pattern.sub(lambda _: step, x) for n, x in defs.items()}
    return list(defs.items()), bodies


def with_ctes(ctes, body: str) -> str:
    """``body`` under ``WITH`` the CTEs ``ctes`` (``[(name, step)]``: none, ``body``)."""
    return f"WITH {', '.join(f'{n} AS {step}' for n, step in ctes)}\n{body}" if ctes else body


def written_once(stmts: list, least: int = 100) -> tuple:
    """The statements ``stmts`` (``[(Stmt, last step)]``) as one union's
    parts: ``(ctes, bodies)``, every step written more than once among them
    (a body's chain under several aggregates of one head, a rule's atoms
    under every relation it derives into) written once, as a CTE, its
    copies replaced by its name, largest first (a step at least ``least``
    characters long).  Only for statements with no checkpoint to read
    (Spark forgets a checkpoint's partitioning through a CTE that reads
    another: :class:`Stmt`): a round held on the driver."""
    ctes, bodies = {}, []
    for q, last in stmts:
        read, body = q.parts(last)
        ctes.update(read)
        bodies.append(body)
    steps = sorted({s for q, _ in stmts for s in q.cols if s.startswith("(SELECT ") and len(s) >= least}, key=len, reverse=True)
    texts = [*bodies, *ctes.values()]
    known = {step: name for name, step in ctes.items()}  # (a CTE's own step: its copies read it)
    for step in steps:
        if sum(x.count(step) for x in texts) < 2:
            continue
        name = known.get(step)
        if name is None:
            name = f"_w{next(_CTES)}"
            ctes[name] = step
            texts.append(step)
        n = len(bodies)
        texts = [x if k >= n and x == step else x.replace(step, name) for k, x in enumerate(texts)]
    bodies, defs = texts[:len(bodies)], dict(zip(ctes, texts[len(bodies):]))
    # in order: each after those it reads
    ordered: dict = {}

    def place(name):
        if name not in ordered:
            ordered[name] = None
            for other in defs:
                if other != name and re.search(rf"\b{other}\b", defs[name]):
                    place(other)
            ordered.pop(name)
            ordered[name] = defs[name]

    for name in defs:
        place(name)
    return read_once_inlined(list(ordered.items()), bodies)


def union(q: Stmt, parts: list, cols: list) -> str:
    """The rows of the steps ``parts`` one after the other, as their
    columns ``cols`` (one step: itself)."""
    sel = ", ".join(cols)
    return parts[0] if len(parts) == 1 else q.add("\nUNION ALL ".join(f"SELECT {sel} FROM {p}" for p in parts), list(cols))


def coalesce_sql(q: Stmt, src: str, terms: list, extra=()) -> str:
    """Maximal intervals per atom (engine/coalescing.py, shared with the
    columns).  ``extra``: ``[(aggregate SQL, name)]`` more per maximal
    interval."""
    from chronolog.engine.coalescing import ORDER, joins_interval

    if not extra and src in q.coalesced and q.cols[src] == [*terms, "s", "e"]:
        return src  # coalesced already (a relation read whole, a step keeping its tuples)
    out = runs_sql(q, src, joins_interval(terms), terms, ORDER, ["min(s) AS s", "max(e) AS e"], extra)
    if not extra:
        q.coalesced.add(out)
    return out


def runs_sql(q: Stmt, src: str, joins, partition: list, order, reduced: list, extra=(), carried=()) -> str:
    """The rows of ``src`` reduced per run (engine/coalescing.py): a row
    starts a run unless ``joins`` (an exprs.Expr of windows) holds on it, a
    running sum of those starts numbers the runs, a GROUP BY reduces each
    to ``reduced`` (``min(s) AS s``, ...) and ``extra`` (``[(aggregate SQL,
    name)]``); the columns ``carried`` are constant along a run."""
    from chronolog.engine.exprs import col, window

    cols = q.cols[src]
    # the window's result read once (read twice, Spark computes the window twice)
    starts, run = codes([joins, window("sum_through", col("_start"), partition, order)])
    a = q.add(f"SELECT *, CASE WHEN {starts} THEN 0 ELSE 1 END AS _start FROM {src}", cols + ["_start"])
    b = q.add(f"SELECT *, {run} AS _grp FROM {a}", cols + ["_start", "_grp"])
    out = [*partition, *reduced, *carried, *[f"{x} AS {name}" for x, name in extra]]
    return q.add(f"SELECT {', '.join(out)} FROM {b} GROUP BY {', '.join([*partition, *carried, '_grp'])}",
                 [*partition, *(r.rsplit(' AS ', 1)[1] for r in reduced), *carried, *[name for _, name in extra]])


def with_codes(q: Stmt, src: str, s: str, e: str) -> str:
    """``src`` with new interval codes (SQL of its ``s``, ``e``), empty ones dropped."""
    keep = [c for c in q.cols[src] if c not in ("s", "e")]
    a = q.add(f"SELECT {', '.join([*keep, f'CAST({s} AS BIGINT) AS s', f'CAST({e} AS BIGINT) AS e'])} FROM {src}", keep + ["s", "e"])
    return q.add(f"SELECT * FROM {a} WHERE s < e", keep + ["s", "e"])


def codes(exprs) -> tuple:
    """The SQL of engine/exprs.py trees over the codes ``s``, ``e`` (a
    shift, a box, a grouping, Since's closure: engine/interval_shift.py,
    written once with the columnar executor), each bigint literal typed."""
    from chronolog.engine.exprs import to_sql

    return tuple(to_sql(x, int64, None) for x in exprs)


_STAR = re.compile(r"SELECT \*(?=, | FROM )")


def explicit_star(sql: str, known: dict) -> str:
    """``SELECT *`` over a step whose columns are known, with its columns
    named: Spark's analyser expands a star only once the subquery under it
    is resolved, one level of nesting per pass over the whole plan, so a
    statement of steps each ``SELECT *, x FROM (...)`` cost passes as deep
    as its nesting (a round of float sums: 3.4 s of analysis for 70 kB)."""
    m = _STAR.match(sql)
    if m is None:
        return sql
    src = _top_from(sql)
    cols = known.get(src) if src is not None else None
    if not cols:
        return sql
    return f"SELECT {', '.join(cols)}{sql[m.end():]}"


_NAME = re.compile(r"\w+")
_TOKENS = re.compile(r"'(?:\\.|[^'\\])*'|[()]| FROM ")  # a string literal, a parenthesis, FROM


def _top_from(sql: str) -> str | None:
    """The source after the top-level ``FROM`` of ``sql``: a step (a
    parenthesised subquery) or a CTE's name, or None."""
    depth, start = 0, None
    for m in _TOKENS.finditer(sql):
        t = m.group(0)
        if t == "(":
            depth += 1
        elif t == ")":
            depth -= 1
            if start is not None and depth == 0:
                return sql[start:m.end()]
        elif t == " FROM " and depth == 0 and start is None:
            if not sql.startswith("(", m.end()):
                name = _NAME.match(sql, m.end())
                return name.group(0) if name else None
            start = m.end()
    return None
