"""The SQL of one variant of a rule: body atoms, joins, conditions,
negation and the head, as steps of one statement.

A join is a hash join on the shared variables, then ``greatest(s)``,
``least(e)``, keep ``s < e``; a body atom with no shared variable is a
cross join (broadcast when small).  Box, diamond (shift) and the head
shift are column arithmetic on ``s``, ``e`` (sql.py).  ``not p(...)`` is an
interval difference against ``p``'s coalesced intervals projected on the
bound variables (a window over each row's holes gives the gaps between
them).  The driver's counts of the relations choose the join strategies.
"""

from __future__ import annotations

from chronolog.engine.interval_difference import gap_start, last_hole
from chronolog.engine.exprs import col
from chronolog.engine.interval_shift import box, clipped, grouping, shift
from chronolog.language import ast
from chronolog.planner import physical as ph
from chronolog.planner.ir import Assign, Condition, NegScan, PlanRule, Scan

from .aggregate import aggregate_step
from .arithmetic import Arithmetic, expr_class, inlined_size
from .calendar import DAY
from .classes import BOOL, DATE, FLOAT, NUM, SET, STR, TEXT, TS, disjoint, meet, never_binds, value_class
from .fragment import NotRelational
from .interval_terms import placed_step, wrap_step
from .since_until import since_step
from .sql import Stmt, codes, coalesce_sql, hex_string, term_columns, variable_columns, with_codes

BROADCAST_ROWS = 100_000  # a relation this small is broadcast to every join task
# Joins against a relation partitioned on the join column read it in place
# and move the other side to it (a shuffle hash join), rather than
# broadcasting a small side or letting Spark broadcast a large one: see
# RuleSql.step.  False: the choice before (bench/README.md,
# "Figures behind design choices").
IN_PLACE_JOINS = True


class RuleSql:
    """Builds the steps of rule variants over the run's ``relations``
    (relations.py), with times on ``grid`` and head facts clipped to the
    ``horizon`` codes (None: no horizon)."""

    def __init__(self, relations, grid, horizon, strata=()):
        self.relations = relations
        self.strata = strata  # the plan's strata (IR): each rule's cycle (cycle)
        self.catalog, self.types = relations.catalog, relations.types
        self.grid = grid
        self.horizon = horizon
        self.arith = Arithmetic(self.types, self.catalog.spark)  # expressions, exact or refused (arithmetic.py)
        self.broadcasts = True  # False: the round's relations are small, its joins shuffle (rounds.SHUFFLE_ROWS)

    def atom(self, q: Stmt, lit, view: dict, varcols: dict):
        """A body atom's bindings: constants and repeated variables filtered,
        columns named by variable, box then shift applied."""
        rel = view.get(lit.pred) or self.relations.rel(lit.pred)
        cls = self.types.classes.get(lit.pred) or [None] * len(lit.terms)
        conds, first = [], {}
        for i, t in enumerate(lit.terms):
            if isinstance(t, ast.Const):
                c = TEXT if cls[i] == TEXT else value_class(t.value)  # (term text: the constant's key text)
                if cls[i] == FLOAT and c == NUM:  # an exact constant against floats, exactly (functions.py)
                    from .functions import float_vs_exact

                    conds.append(float_vs_exact("==", f"c{i}", t.value))
                elif cls[i] == NUM and c == FLOAT:  # a float constant against exact numbers, by value
                    conds.append(self.types.float_equals(f"c{i}", t.value))
                elif meet(cls[i], c) is False:
                    conds.append("false")  # a string or a boolean never equals a number
                else:
                    conds.append(f"c{i} = {self.types.const(t.value, c)}")
            elif t.name in first:  # (classes no term of which is equal: never, as the engine compares them)
                j = int(first[t.name][1:])
                conds.append("false" if disjoint(cls[j], cls[i]) else f"c{i} = {first[t.name]}")
            else:
                first[t.name] = f"c{i}"
        cols = [varcols[v] for v in first]
        sel = [f"{c} AS {varcols[v]}" for v, c in first.items()] + ["s", "e"]
        where = f" WHERE {' AND '.join(conds)}" if conds else ""
        name = q.add(f"SELECT {', '.join(sel)} FROM {self.relations.read(q, rel)} AS t{where}", cols + ["s", "e"])
        # a relation (or its delta, its old facts: some of its maximal
        # intervals) is coalesced, and so are its tuples a filter keeps,
        # whatever columns a constant or a repeated variable drops
        q.coalesced.add(name)
        if getattr(lit, "box", None) is not None:
            name = with_codes(q, name, *codes(box(self.grid.window(lit.box))))
        if getattr(lit, "shift", None) is not None:
            name = with_codes(q, name, *codes(shift(self.grid.window(lit.shift))))
        if getattr(lit, "group", None) is not None:
            # time grouping, applied last as the engine applies it (one interval
            # to one interval: the head's merge coalesces), engine/interval_shift.py's
            # on the grid's microseconds since 1970 UTC (calendar.py): periods of one
            # length floor with pmod, months and years through a DATE and make_date
            name = with_codes(q, name, *codes(grouping(lit.group, self.grid.unit, DAY)))
        # every checkpoint is hash-partitioned on c0 (see Relations.keyed), and the
        # renaming to the variable's column keeps that
        key = None
        if rel.df is not None and lit.terms and isinstance(lit.terms[0], ast.Var):
            key = varcols[lit.terms[0].name]
        return name, rel.count, key

    def condition(self, q: Stmt, src: str, cmp, varcls: dict, varcols: dict, rule) -> str:
        ordered = cmp.op not in ("==", "!=")
        sides = (cmp.left, cmp.right)
        if any(expr_class(x, varcls) == TEXT for x in sides):  # term text (classes.TEXT), exact arithmetic's too (fractions.py)
            keyable = (TEXT, NUM, STR, BOOL, DATE, TS)  # (a value of these classes: its key text, TermTypes.key_text_sql)
            typed = [None if isinstance(x, ast.Const) else self.arith.sql(x, varcols, varcls, rule) for x in sides]
            if ordered:  # the engine's order of the two terms, or the run stops (text_order.py)
                from .text_order import compare_sql, decoded, typed as typed_struct

                structs = [decoded(self.types.const(x.value, TEXT)) if t is None else typed_struct(t[0], t[1], self.types)
                           for x, t in zip(sides, typed)]
                if None in structs:
                    raise NotRelational(f"the comparison {cmp} of term text with {typed[structs.index(None)][1]} terms", rule)
                cond = compare_sql(cmp.op, structs[0], structs[1], hex_string(str(cmp)))
                inlined_size(q, cond, cmp, rule)
                return q.add(f"SELECT * FROM {src} WHERE {cond}", q.cols[src])
            if any(t is not None and t[1] not in keyable for t in typed):
                raise NotRelational(f"the comparison {cmp} with term text (it compares only with term text, a constant "
                                    "or a value of numbers, strings, booleans or instants)", rule)
            # equal exactly when the key texts are
            a, b = [self.types.const(x.value, TEXT) if t is None else self.types.key_text_sql(t[0], t[1]) for x, t in zip(sides, typed)]
            ca = cb = TEXT
        else:
            (a, ca), (b, cb) = [self.arith.sql(x, varcols, varcls, rule) for x in sides]
        if FLOAT in (ca, cb) and {ca, cb} <= {NUM, FLOAT}:  # a float beside a float or an exact number
            from .functions import compare_float

            cond = compare_float(cmp.op, (a, ca, cmp.left), (b, cb, cmp.right), rule)
        # (sets: tuples compare by element, texts would not; a date meets a timestamp at its midnight UTC: classes.TS;
        # booleans are Spark's BOOLEANs, false before true, as the engine orders #F and #T)
        elif (ca != cb and {ca, cb} != {DATE, TS}) or (ordered and ca == SET):
            if ordered or None in (ca, cb):
                raise NotRelational(f"the comparison {cmp} of {ca} with {cb} terms", rule)
            cond = "true" if cmp.op == "!=" else "false"  # a number never equals a string or a boolean
        else:
            op = {"==": "=", "!=": "<>"}.get(cmp.op, cmp.op)
            cond = f"{a} {op} {b}"
        inlined_size(q, cond, cmp, rule)  # Spark puts the assigned values it reads in place
        return q.add(f"SELECT * FROM {src} WHERE {cond}", q.cols[src])

    def difference(self, q: Stmt, src: str, lit, varcols: dict, rule, varcls=None, rel=None) -> str:
        """Rows of ``src`` minus the maximal intervals of ``not lit``: each
        row left-joined with the holes it overlaps, then its pieces between
        them (one read of ``src``: a step read twice runs twice, sql.Stmt;
        an anti join for the rows without holes beside the pieces read it
        four times, so three negated atoms inlined the body 64 times).
        ``varcls``: the bound variables' classes; a variable bound to terms
        of a class no term of ``lit``'s column equals (classes.disjoint: a
        date against numbers) meets no hole: ``src`` as it is.  ``rel``: a
        Rel read instead of ``lit``'s relation (the chase's: with the facts
        of a firing's earlier rules, chase.py)."""
        rel = rel or self.relations.rel(lit.pred)
        if rel.count == 0:
            return src
        cls = self.types.classes.get(lit.pred) or ()
        if any(isinstance(t, ast.Var) and i < len(cls) and disjoint((varcls or {}).get(t.name), cls[i]) for i, t in enumerate(lit.terms)):
            return src
        rowcols = q.cols[src]
        bound = set(varcols[v] for v in varcols if varcols[v] in rowcols)
        hv = {t.name: varcols.get(t.name, f"_h{i}") for i, t in enumerate(lit.terms) if isinstance(t, ast.Var)}
        holes, _, _ = self.atom(q, lit, {lit.pred: rel}, hv)
        keys = [c for c in dict.fromkeys(hv.values()) if c in bound]
        holes = q.add(f"SELECT {', '.join([*keys, 's', 'e'])} FROM {holes}", keys + ["s", "e"])
        holes = coalesce_sql(q, holes, keys)
        holes = q.add(f"SELECT {', '.join([*keys, 's AS hs', 'e AS he'])} FROM {holes}", keys + ["hs", "he"])
        hint = "/*+ BROADCAST(h) */ " if self.broadcasts and rel.count <= BROADCAST_ROWS else ""
        on = " AND ".join([*(f"x.{k} = h.{k}" for k in keys), "h.hs < x.e", "h.he > x.s"])
        others = [c for c in rowcols if c not in ("s", "e")]
        m = q.add(f"SELECT {hint}{', '.join([*(f'x.{c}' for c in rowcols), 'h.hs', 'h.he'])} FROM {src} AS x LEFT JOIN {holes} AS h ON {on}",
                  rowcols + ["hs", "he"])
        # the gaps between a row's holes (engine/interval_difference.py, as on the columns)
        start, last = codes([gap_start(rowcols), last_hole(rowcols)])
        m = q.add(f"SELECT *, {start} AS _from, {last} AS _last FROM {m}", q.cols[m] + ["_from", "_last"])
        before = "named_struct('s', _from, 'e', hs)"  # the piece before a hole
        pieces = (f"CASE WHEN hs IS NULL THEN array(named_struct('s', s, 'e', e)) "
                  f"WHEN _last THEN array({before}, named_struct('s', he, 'e', e)) ELSE array({before}) END")
        keep = ", ".join(others + [""]) if others else ""
        out = q.add(f"SELECT {keep}inline({pieces}) FROM {m}", others + ["s", "e"])
        return q.add(f"SELECT * FROM {out} WHERE s < e", others + ["s", "e"])

    def step(self, q: Stmt, rule, driver, views: dict):
        """The step of ``q`` with the head facts one variant of ``rule``
        derives (None: nothing).  ``views``: body position -> Rel read
        instead of the full relation (for an aggregation, the deltas of
        its changed atoms: it reads the full relations, aggregate.py)."""
        if never_binds(rule.body, self.types.classes):  # a variable joins classes no term of which is equal
            return None
        lowering = _STEPS.get(type(ph.rule_operator(rule)))
        if lowering is not None:  # a rule operator other than a plain body
            return lowering(self, q, rule, driver, views)
        got = self.bindings(q, rule, driver, views)
        return None if got is None else self.head(q, got[0], rule, got[1], got[2])

    def bindings(self, q: Stmt, rule, driver, views: dict):
        """The step of ``q`` with the bindings of one variant of ``rule``'s
        body, ``(step, {variable: column}, {variable: class})``, or None
        (it binds nothing); see :meth:`step`."""
        from chronolog.engine.rows.pipeline import choose_driver, order_body

        if never_binds(rule.body, self.types.classes):
            return None

        def size(pred):
            return self.relations.rel(pred).count

        drv = choose_driver(rule, size) if driver is None else driver
        order = order_body(rule, drv, size)
        varcols, varcls = variable_columns(rule.body), {}
        q.sizes.clear()  # column names are the rule's own: another rule with this head reuses them
        df, n_left, lkey = None, 0, None  # n_left, lkey: rows and partitioning column of df while it is one atom, else None
        for pos, lit in order:
            if isinstance(lit, Scan):
                view = {lit.pred: views[pos]} if pos in views else {}
                right, n, rkey = self.atom(q, lit, view, varcols)
                if n == 0:
                    return None
                cls = self.types.classes.get(lit.pred) or []
                for i, t in enumerate(lit.terms):
                    if isinstance(t, ast.Var) and i < len(cls):
                        varcls.setdefault(t.name, cls[i])
                if df is None:
                    df, n_left, lkey = right, n, rkey
                    continue
                lcols, rcols = q.cols[df], q.cols[right]
                shared = [c for c in rcols if c not in ("s", "e") and c in lcols]
                rvars = [c for c in rcols if c not in ("s", "e")]
                right = q.add(f"SELECT {', '.join([*rvars, 's AS _s', 'e AS _e'])} FROM {right}", rvars + ["_s", "_e"])
                # a side read where it lies: a relation partitioned on the one
                # join column (a small other side moves to it, this one does not)
                in_place_l = IN_PLACE_JOINS and n_left is not None and shared == [lkey]
                in_place_r = IN_PLACE_JOINS and shared == [rkey]
                # the counts are known: broadcast the smaller side when small (a
                # delta joined with a large relation ships the delta, not the
                # relation), unless the large side lies partitioned on the join
                # column: then the small side is shuffled to it (parallel tasks
                # of the round's own job; a broadcast is a job of its own and
                # its hash table is built on the driver, with no task running)
                hint = ""
                moved = "BROADCAST" if self.broadcasts else "SHUFFLE_HASH"  # (a small round: no job of its own)
                if n_left is not None and n_left < n and n_left <= BROADCAST_ROWS:
                    hint = "SHUFFLE_HASH(l)" if in_place_r else f"{moved}(l)"
                elif n <= BROADCAST_ROWS:
                    hint = "SHUFFLE_HASH(r)" if in_place_l else f"{moved}(r)"
                elif n_left is not None and shared:
                    # both large: a hash table of the smaller side per task, the
                    # larger streamed past it (a sort-merge join sorted the
                    # whole relation every round), unless Spark's own size
                    # estimate broadcasts it (a hint would override that).
                    # Not in place even when one side lies partitioned on the
                    # join column: at 1M ownership facts moving the other side
                    # cost more task CPU than Spark's broadcast (round 2: a 6.6
                    # MB shuffle of the delta, 0.86 against 0.57 s; influence:
                    # 12.5 MB of recentControl, 0.79-0.83 against 0.47-0.65 s)
                    small = ("l", df) if n_left < n else ("r", right)
                    if not self.catalog.broadcastable(q.text(small[1])):
                        hint = f"SHUFFLE_HASH({small[0]})"
                cols = shared + [c for c in lcols if c not in shared and c not in ("s", "e")]
                cols += [c for c in rvars if c not in shared]
                on = f"JOIN {right} AS r USING ({', '.join(shared)})" if shared else f"CROSS JOIN {right} AS r"
                if not shared and not self.broadcasts:
                    hint = ""  # (a cross join of small sides: a cartesian product in the round's job)
                hint = f"/*+ {hint} */ " if hint else ""
                ends = (f"{x} AS {n}" for x, n in zip(codes(clipped(col("_s"), col("_e"))), "se"))
                j = q.add(f"SELECT {hint}{', '.join([*cols, *ends])} FROM {df} AS l {on}",
                          cols + ["s", "e"])
                df = q.add(f"SELECT * FROM {j} WHERE s < e", cols + ["s", "e"])
                n_left = None
            elif isinstance(lit, NegScan):
                df = self.difference(q, df, lit, varcols, rule, varcls)
            elif isinstance(lit, (Condition, Assign)):
                df = q.keeps(df, self.test_or_assign(q, df, lit, varcls, varcols, rule))
        return df, varcols, varcls

    def test_or_assign(self, q: Stmt, df: str, lit, varcls: dict, varcols: dict, rule) -> str:
        """A Condition or an Assign over ``df`` (a body's or an aggregate's
        bindings); an assignment to a bound variable is an equality, as the engine reads it."""
        if isinstance(lit, Condition):
            return self.condition(q, df, lit.comparison, varcls, varcols, rule)
        if varcols.get(lit.var) in q.cols[df]:
            return self.condition(q, df, ast.Comparison("==", ast.Var(lit.var), lit.expr), varcls, varcols, rule)
        return self.arith.assign(q, df, lit, varcols, varcls, rule)

    def head(self, q: Stmt, df: str, rule, varcols: dict, varcls=None) -> str:
        """The head's facts from the body's bindings ``df``: shifted by a
        head box, clipped to the horizon, terms cast to the head's types
        (also the last step of aggregation and Since/Until rules); a value
        of another class (``varcls``: the variables') in a column of term
        text as its key text (TermTypes.key_text_sql)."""
        # coalesced bindings whose columns are the head's terms, each once:
        # coalesced head facts (the casts are to the bindings' own classes)
        body = df
        same = (rule.head_shift is None and all(isinstance(t, ast.Var) for t in rule.head_terms)
                and sorted(varcols[t.name] for t in rule.head_terms) == sorted(c for c in q.cols[df] if c not in ("s", "e")))
        if rule.head_shift is not None:
            df = with_codes(q, df, *codes(shift(self.grid.window(rule.head_shift))))
        df = self.clip(q, df, rule)
        cls = self.types.classes.get(rule.head_pred) or [None] * len(rule.head_terms)
        cols = []
        for i, t in enumerate(rule.head_terms):
            x = self.types.const(t.value, cls[i]) if isinstance(t, ast.Const) else varcols[t.name]
            if cls[i] == TEXT and isinstance(t, ast.Var) and (varcls or {}).get(t.name) not in (TEXT, None):
                x = self.types.key_text_sql(x, varcls[t.name])
            cols.append(f"CAST({x} AS {self.types.sql_type(cls[i])}) AS c{i}")
        out = q.add(f"SELECT {', '.join([*cols, 's', 'e'])} FROM {df}", [*term_columns(len(cols)), "s", "e"])
        return q.keeps(df, out) if same and df == body else out

    def fresh_step(self, q: Stmt, name: str, terms, classes, body, rule, driver=None, views=None):
        """The step of a rule of ``rule``'s own, ``name(terms) :- body``, its
        head's columns of ``classes`` (an aggregation's bindings, a
        constraint's violations, an interval term's ends)."""
        self.types.classes[name] = list(classes)
        return self.step(q, PlanRule(name, tuple(terms), body, None, rule.source, fresh=True), driver, views or {})

    def cycle(self, pred: str) -> set:
        """The predicates of ``pred``'s recursion (empty: not recursive)."""
        return next((st.preds for st in self.strata if st.recursive and pred in st.preds), set())

    def clip(self, q: Stmt, df: str, rule) -> str:
        """``df``'s intervals cut to the horizon (a rule's own fresh
        predicates are not clipped)."""
        if self.horizon is None or rule.fresh:
            return df
        return with_codes(q, df, *codes(clipped(*self.horizon)))


def _chased(rules, q, rule, driver, views):
    """An existential rule derives nothing in a round: it fires between
    rounds, at the level's fixpoint (chase.py, rounds.Rounds.settle)."""
    return None


# the table from a rule's physical operator (planner/physical.py) to its
# step; a plain body is RuleSql.step's own
_STEPS = {
    ph.ChaseStep: _chased,
    ph.Aggregate: aggregate_step,
    ph.SinceUntil: since_step,
    ph.WrapInterval: wrap_step,  # lit@[S,E]
    ph.CaptureTime: wrap_step,  # lit@T
    ph.PlaceInterval: placed_step,  # p(X)@[S,E]
}
