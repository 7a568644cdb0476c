"""Existential rules: the restricted chase as SQL (the engine's is
engine/rows/chase.py, whose semantics this follows).

An existential rule does not run in the rounds' variants.  Once the rest
of its dependency level is at its fixpoint (``Rounds.settle``: after
round 1 in a level with no recursion), every existential rule of the
level whose body read a relation that changed since its last firing
fires (those that share a head predicate: below), all of them against the same relations (as the engine's waiting
body rows were all found before any fired):

* its body's bindings over the full relations, clipped to the horizon,
  minus the time where the head already holds: an interval difference
  (rules.difference) against the head atom with its existential variables
  left free, ``not h(X, _)``, which is the restricted check (a fact
  agreeing on the head's constants and frontier variables, whatever it
  holds at the existential positions, a repeated existential variable
  one value);
* the frontier tuples of what is left that have no witness yet (a left
  anti join with the rule's witnesses: one witness per rule, existential
  variable and frontier values, wherever in time it is needed), numbered
  in the order of their frontier terms (``row_number`` over them), then
  the rule's existential variables in head order: checkpointed and
  counted in ONE action with the uncovered bindings;
* the head facts: the uncovered bindings joined with the rule's
  witnesses, a null's cell the key text of ``_:n`` and its number (a
  column of term text, classes.TEXT: a null equals only itself, never a
  constant, as in the engine); merged as a round's facts (rounds.commit),
  their new facts the next round's deltas.

Existential rules that share a head predicate fire as the engine's do
(engine/rows/chase.py): one after another in the program's order, each
restricted check seeing the facts of those before it.  The rounds write
each variant's body rows in each round's own action (:meth:`Chase.rows`,
rounds.Rounds._keep) and fire them here one node (a rule, all its
variants' rows) at a time, among the other rules in the engine's order:
a node of a head an earlier node of the action has starts the next
action, its difference against the head relation and the earlier nodes'
facts (:meth:`Chase._with_made`).

The labels run ``n1, n2, ...`` over the run as the engine numbers them:
stratum after stratum (a stratum with existential rules runs in a level
above every earlier one with them: planner/physical.dependency_levels),
the rules of one firing in the plan's order, each rule's in the order
of its frontier terms (a column of term text in the engine's order of
terms as far as SQL holds it: text_order.sort_struct), its existential
variables in head order; the two executors' models are equal up to a
one-to-one renaming of nulls in any case (docs/spark.md).

A run's inputs hold no null (a null in an input goes to one task).

A watched rule (planner/existential.py: its nulls may flow back into its
own body) makes nulls only while they nest no deeper in its own nulls
than there are facts without nulls, else the engine stops the run.  A
null made in the rule's k-th firing that made nulls nests at most k
deep, so the rounds go on while k is at most the number of distinct
facts without nulls in the relations they hold (one action counts them
when k passes the last count); past that, one task runs the program and
decides as the engine does.
"""

from __future__ import annotations

from chronolog.engine.rows.chase import frontier_vars
from chronolog.language import ast
from chronolog.planner.ir import NegScan, Scan
from chronolog.planner.normalize import TOP

from .classes import TEXT, body_classes
from .fragment import NotRelational
from .relations import Rel
from .sql import Stmt, variable_columns
from .text_order import sort_struct


class Chase:
    """The run's chase: its nulls so far, each rule's witnesses."""

    def __init__(self, rules, catalog, relations):
        self.rules, self.catalog, self.relations = rules, catalog, relations
        self.made = 0  # nulls made so far: the next is n{made + 1}
        self.witnesses: dict = {}  # id(rule) -> [(checkpoint of frontier values and _rn, first null's number - 1)]
        self.fired: dict = {}  # id(rule) -> firings that made nulls (a watched rule's nesting bound)
        self.limit = 0  # distinct facts without nulls at the last count (watched rules)

    def fire(self, firing) -> tuple:
        """The head facts of ``firing`` (``[(rule, parts)]``, the level's
        existential rules that fire now, in the engine's order: its strata's,
        each's rules in the plan's) where their heads do not hold yet:
        ``({pred: Stmt}, {pred: [step]})`` as a round's
        (rounds.Rounds.round).  A rule of ``parts`` None fires over its
        body's full relations; one that shares its head with another over
        ``parts``, its variants' recorded body rows since the last firing
        (:meth:`rows`).  They fire in as few actions as the engine's order
        allows: a rule of a head an earlier one of this action shares
        starts the next action, its restricted check reading their facts;
        their nulls are numbered in that order, as the engine numbers them."""
        batches: list = [[]]
        for rule, parts in firing:
            if parts is not None and any(r.head_pred == rule.head_pred for r, _ in batches[-1]):
                batches.append([])
            batches[-1].append((rule, parts))
        stmts, outs = {}, {}
        made: dict = {}  # head predicate -> [(SQL of a node's facts, its uncovered rows)]: the later nodes' checks read them
        watch = []
        for batch in batches:
            found = []
            for rule, parts in batch:
                q = Stmt()
                got = self.rules.bindings(q, rule, None, {}) if parts is None else self._recorded(q, rule, parts)
                if got is None:
                    continue
                df, varcols, varcls = got
                df = self.rules.clip(q, df, rule)
                # the restricted check: not h(...) with the existential variables free
                df = self.rules.difference(q, df, NegScan(rule.head_pred, rule.head_terms), varcols, rule, varcls,
                                           self._with_made(rule.head_pred, made.get(rule.head_pred)))
                frontier = list(dict.fromkeys(varcols[v] for v in frontier_vars(rule)))
                keys = frontier or ["_one"]
                un = q.text(q.add(f"SELECT {', '.join([*(frontier or ['1 AS _one']), 's', 'e'])} FROM {df}", [*keys, "s", "e"]))
                found.append((rule, parts is not None, keys, varcols, varcls, self.catalog.checkpoint(un)))
            if not found:
                continue
            items = []
            for rule, _, keys, varcols, varcls, un in found:
                k = ", ".join(keys)
                fresh = f"(SELECT DISTINCT {k} FROM {self.catalog.view(un)})"
                old = self._known(rule, keys)
                if old:
                    fresh = f"(SELECT * FROM {fresh} AS d LEFT ANTI JOIN ({old}) AS w USING ({k}))"
                # (the frontiers in the engine's order of terms: a column of term text by its kinds, text_order.sort_struct)
                classes = {varcols[v]: varcls.get(v) for v in frontier_vars(rule)}
                order = ", ".join(sort_struct(c) if classes.get(c) == TEXT else c for c in keys)
                items += [(un, True, None), (f"SELECT {k}, row_number() OVER (ORDER BY {order}) AS _rn FROM {fresh} AS f", True, None)]
            done = self.catalog.materialize(items)
            for (rule, node, keys, varcols, varcls, _), (un, n_un, _), (w, n_new, _) in zip(found, done[0::2], done[1::2]):
                if n_new:
                    if rule not in watch:
                        watch.append(rule)
                    self.witnesses.setdefault(id(rule), []).append((w, self.made))
                    self.made += n_new * len(rule.existentials)
                else:
                    self.catalog.discard(w)
                if not n_un:
                    self.catalog.discard(un)
                    continue
                q = stmts.setdefault(rule.head_pred, Stmt())
                k = ", ".join(keys)
                src = q.add(f"SELECT * FROM {self.catalog.view(un)}", [*keys, "s", "e"])
                ids = q.add(f"SELECT u.*, w._id FROM {src} AS u JOIN ({self._known(rule, keys)}) AS w USING ({k})",
                            [*keys, "s", "e", "_id"])
                cols = dict(varcols)
                nulls = []
                for j, var in enumerate(rule.existentials):
                    cols[var] = f"_x{j}"
                    nulls.append(f"concat('_:n', CAST(_id + {j + 1} AS STRING)) AS _x{j}")  # a null's key text
                df = q.add(f"SELECT {', '.join([*keys, *nulls, 's', 'e'])} FROM {ids}", [*keys, *(f"_x{j}" for j in range(len(nulls))), "s", "e"])
                facts = self.rules.head(q, df, rule, cols, varcls)
                outs.setdefault(rule.head_pred, []).append(facts)
                if node:
                    made.setdefault(rule.head_pred, []).append((q.text(facts), n_un))
        for rule in watch:
            self._watch(rule)
        return stmts, outs

    def rows(self, rule, driver, views: dict):
        """One variant's body rows of ``rule`` (an existential rule that
        shares its head predicate with another of its stratum), to fire at
        the next fixpoint in the engine's order: ``(name, SQL)``, its
        frontier variables' columns ``c0, c1, ...`` and ``s``, ``e`` (not
        clipped to the horizon), typed as the predicate ``name`` (the
        rule's own), or None (it binds nothing).  ``driver``, ``views``:
        the variant's, as :meth:`RuleSql.step` takes them.

        The engine's chase fires such rules, at the stratum's fixpoint,
        in the program's order, each restricted check seeing the facts of
        those before it, so that order decides which rule's null covers a
        time both bodies hold (docs/spark.md)."""
        front = frontier_vars(rule)
        env = body_classes(rule.body, self.relations.types.classes)
        name = f"$chase-rows-{id(rule)}"
        q = Stmt()
        step = self.rules.fresh_step(q, name, [ast.Var(v) for v in front], [env.get(v) for v in front], rule.body, rule,
                                     driver, views)
        return None if step is None else (name, q.text(step))

    def _recorded(self, q: Stmt, rule, parts: list) -> tuple:
        """The body rows ``parts`` (Rels of :meth:`rows`) as the bindings
        :meth:`RuleSql.bindings` gives: ``(step, {variable: column}, {variable: class})``."""
        front = frontier_vars(rule)
        varcols = variable_columns(rule.body)
        cls = self.relations.types.classes[f"$chase-rows-{id(rule)}"]
        rows = " UNION ALL ".join(f"SELECT * FROM {self.catalog.read(p)}" for p in parts)
        sel = [*(f"c{i} AS {varcols[v]}" for i, v in enumerate(front)), "s", "e"]
        step = q.add(f"SELECT {', '.join(sel)} FROM ({rows}) AS r", [*(varcols[v] for v in front), "s", "e"])
        return step, varcols, dict(zip(front, cls))

    def _with_made(self, pred: str, made):
        """``pred``'s relation and the facts ``made`` (``[(SQL, rows)]``)
        this firing's earlier nodes made, as one Rel (None: none made)."""
        if not made:
            return None
        rel = self.relations.rel(pred)
        cols = ", ".join(self.relations.columns(pred))
        parts = [f"SELECT {cols} FROM {self.catalog.read(rel)} AS r", *(f"SELECT {cols} FROM ({sql}) AS m" for sql, _ in made)]
        return Rel(None, rel.count + sum(n for _, n in made), self.relations.columns(pred), sql=f"({' UNION ALL '.join(parts)})")

    def _known(self, rule, keys) -> str:
        """SQL of ``rule``'s witnesses so far: its frontier columns and
        ``_id``, the number of its first null less one."""
        k = len(rule.existentials)
        return " UNION ALL ".join(f"SELECT {', '.join(keys)}, {base} + (_rn - 1) * {k} AS _id FROM {self.catalog.view(w)}"
                                  for w, base in self.witnesses.get(id(rule), ()))

    def _watch(self, rule) -> None:
        """Count a firing of ``rule`` that made nulls; a watched rule past
        the facts without nulls goes to one task (see the module)."""
        fired = self.fired[id(rule)] = self.fired.get(id(rule), 0) + 1
        if rule.watched is None or fired <= self.limit:
            return
        self.limit = self.facts_without_nulls()
        if fired > self.limit:
            raise NotRelational(f"a watched chase (its nulls flow back into its body: {rule.watched}) in its "
                                f"{fired}th firing, past the {self.limit} facts without nulls the rounds hold "
                                "(the engine stops it where its nulls nest deeper than that, which one task checks)", rule)

    def facts_without_nulls(self) -> int:
        """The distinct facts with no null in the relations held now (one
        action): at most the engine's count, which reads every relation."""
        parts = []
        for pred, rel in self.relations.rels.items():
            if pred == TOP or not rel.count:
                continue
            cls = self.relations.types.classes.get(pred) or []
            cols = [f"c{i}" for i in range(len(cls))]
            where = " AND ".join(f"NOT startswith(c{i}, '_:')" for i, c in enumerate(cls) if c == TEXT)
            rows = f"SELECT DISTINCT {', '.join(cols) or '1 AS _one'} FROM {self.catalog.read(rel)} AS t{f' WHERE {where}' if where else ''}"
            parts.append(f"SELECT count(1) AS n FROM ({rows}) AS d")
        if not parts:
            return 0
        return sum(r[0] for r in self.catalog.sql(" UNION ALL ".join(parts)).collect())


def body_preds(rule) -> set:
    """The predicates ``rule``'s body reads."""
    return {lit.pred for lit in rule.body if isinstance(lit, (Scan, NegScan))}
