"""Seminaive rounds as Spark SQL statements, for programs with no key.

A program whose rules join facts of different keys (ownership chains,
reachability, a join with a small global table) cannot run as one engine
per key group.  Here each stratum runs as seminaive rounds driven from the
driver, in the relational formulation of the columnar executor
(engine/columns): a relation is a DataFrame with one column per argument
(``c0``, ``c1``, …) and the interval as two exact integers on the doubled
grid (``s = 2·lo·L + open``, ``e = 2·hi·L + closed``, the range
``[s, e)``, ``L`` a power of ten covering every time of the run; ±∞ are the
sentinels ±2^62), always coalesced to maximal intervals.

Each operator is described where its SQL is written (the modules below):
joins, negation and the head in ``rules``, coalescing and the shifts in
``sql`` (their time arithmetic shared with the columns, engine/exprs.py),
a round's merge in ``merge``; a round's one Spark action, and a small
call's relations held on the driver, in ``rounds``.

The driver holds plans and counts, never relations.  What this path cannot
run exactly (aggregation beyond ``aggregate``'s, recursion through time
with no horizon (but a Since/Until recursive through one operand only,
and a recursion whose moves an atom outside it confines: rounds.py reads
that atom's facts before the second round),
terms of two types in one argument, times off a decimal grid or, on a
calendar, off the microsecond grid; arithmetic Spark cannot do exactly,
found per row) raises :class:`NotRelational` naming the
rule; the caller runs the program in ONE Spark task instead, with a
warning (:mod:`chronolog.connectors.spark_paths`, which also sends small
inputs there: the rounds' fixed cost per round loses to one engine).  Times are never
floats; a float a rule computes is a ``double`` term, computed where Spark's
IEEE operation is the engine's, else by the engine's own function in a
Python UDF (functions.py, udfs.py); a float input (a
``double`` column, a Python float among the facts) is one too, equal as
the engine finds floats equal (``-0.0`` is ``0.0``, NaN refused, never
beside exact numbers in one join or argument: classes.py).

The modules, one concept each:

* ``fragment``: what the path can run (``check_rules``, ``describe``: the
  plan's decision, planner/backend_choice.py) and ``NotRelational``;
* ``classes``: the class of each term column (number, string, boolean, float,
  date, timestamp, set, term text), inferred from the inputs' Spark types and
  the program; a join of classes the engine never finds equal binds nothing;
* ``grid``: times as 64-bit codes on the doubled decimal grid (``Grid``);
* ``terms``: a run's term columns as SQL, their types and constants
  (``TermTypes``);
* ``sql``: the statement under construction (``Stmt``), literals, and the
  interval operators (coalescing, new codes, shift, box);
* ``catalog``: the run's Spark calls: statements, temporary views,
  checkpoints and the one action that writes them (``Catalog``);
* ``relations``: the current relation of each predicate (``Rel``,
  ``Relations``), kept partitioned on its first term;
* ``rules``: the SQL of one variant of a rule: atoms, joins, conditions,
  negation, head (``RuleSql``);
* ``merge``: the SQL of a round's merge and of its probe;
* ``aggregate``: aggregation per time segment (a step like a rule's);
* ``sets``: ``munion``'s set as a term, the engine's text of it;
* ``since_until``: Since and Until (one join with the closed intervals),
  and which recursions through them run;
* ``interval_terms``: ``lit@[S,E]``, time capture ``lit@T`` and heads placed by terms;
* ``chase``: existential rules, the restricted chase between rounds, labelled nulls as term text;
* ``rounds``: the driver: rounds per stratum, probe, commit, statistics and
  the session's settings while they run (``Rounds``);
* ``inputs``: loading and coalescing the inputs;
* ``csv_inputs``: a ``spark csv`` input's text typed in SQL as the embedded CSV reader types it;
* ``outputs``: a relation back in the caller's layout;
* ``calendar``: a calendar timeline (``@timeGranularity``) on a microsecond grid;
* ``arithmetic``: conditions and assignments, exact in Spark SQL or refused;
* ``functions``: string functions and floats computed in a rule, the
  engine's values in Spark SQL or refused;
* ``udfs``: the engine's own functions (and its sums and sets of floats) as
  Python UDFs, where Spark's differ;
* ``constraints``: constraints checked after the strata, the engine's error;
* ``entry``: ``prepare`` and ``reason``, the entry point.

The tunables live where they are read (patch them there): ``PROBE_RATIO``,
``SHUFFLE_ROWS``, ``HELD_ROWS`` and ``ROUND_CONF`` in ``rounds``, ``LITERAL_ROWS`` in ``inputs``, ``BROADCAST_ROWS`` and ``IN_PLACE_JOINS``
in ``rules``, ``MAX_DIGITS`` in ``entry``.
"""

from .entry import prepare, reason
from .fragment import NotRelational, check_rules, describe

__all__ = ["NotRelational", "check_rules", "describe", "prepare", "reason"]
