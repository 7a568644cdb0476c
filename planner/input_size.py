"""The engine a run asks for, and auto's run-time half: from how many given facts (or rows of a table) a run goes to columns.

The plan (planner/backend_choice.py) says which strata columns may run;
these thresholds on the inputs, known only when the run starts, say
whether they do.  Kept apart from the plan so that a run under every
threshold decides "rows" without lowering the physical plan or importing
it (a small ``chronolog run`` pays no more than it uses).
"""

ENGINES = ("auto", "rows", "columns")

# auto: columns when the run is given this many facts (bench/README.md,
# "Figures behind design choices": temporal LUBM at 100k facts reasons 2x
# faster on rows, at 1M 1.5x faster on columns; the 4-rule workload at 500k
# is faster on columns)
AUTO_MIN_FACTS = 300_000
# ... and from this many facts read from fact files straight into columns
# (no Python row to code or decode; bench/README.md, same section: at 100k
# facts the whole command takes 0.6-0.85x the CPU of rows, at 20k the same)
AUTO_MIN_FILE_FACTS = 50_000
# ... and from this many facts of tables given in memory, which are read
# straight into columns from as many rows (reason(program, {pred: table});
# a Spark task's typed inputs from AUTO_MIN_ROWS): no file to read and
# usually a warm process.  The rows' cost per fact grows with the program,
# the columns' first call pays their imports once (~0.2 s); at 2,000
# (bench/README.md, "Figures behind design choices") the sensor recipe
# (bench/sensor_readings.py: Since, negation, a box, a count) takes 0.05 s
# on columns against 0.21 s on rows warm, 0.27 against 0.34 s in a fresh
# process; the four rules (bench/four_rules.py's tables) 0.03 against
# 0.02 s warm, 0.23 against 0.05 s fresh: a few milliseconds lost where
# the rows are cheap, tenths of a second won where they are not
AUTO_MIN_TABLE_FACTS = 2_000
# a table whose times fall between the timeline's units (readings to the
# second on a timeline of minutes: exact fractions, whose arithmetic costs
# the rows more than integers' even as timeline.Points) counts this many
# times its rows toward both thresholds: at 1,000 such readings the sensor
# recipe takes 0.04 s on columns against 0.11-0.18 s on rows warm, 0.27
# against 0.28 s fresh (the four rules 0.043 against 0.037 s warm)
BETWEEN_UNITS_WEIGHT = 2
# ... and from this many given facts when a stratum is a recurrence the
# sweep takes (planner/recurrence.py): the rows take one round per delay of
# it (bench/README.md, timeseries_ema: 13,600 days); the whole run then
# takes this one threshold
AUTO_MIN_RECURRENCE_FACTS = 10_000
# ... and then, in a model found where it repeats (engine/termination.py),
# each bounded attempt of such a recurrence runs on columns where it is
# expected to derive this many facts, else on rows.  One attempt of a cycle
# over keys seeded together breaks even at 100-300 keys (1,600-4,800
# derivations, 0.02-0.05 s either way), the columns 1.5-2.5x faster from
# 3,000 keys; every attempt on columns from 10,000 given facts took 20,000
# keys spread over 10^9 units (a stretch of search per key) 271 s against
# 18 s on rows (CPU); by the attempts' size 19 s.  Whole runs under auto
# (CPU, one each; a weekly report over 16,000 keys with an alert, 20,000
# keys seeded within 10 units with and without a driver): 4,000 1.04, 1.25
# and 3.27 s; 8,000 0.75, 1.27, 3.15 s; 16,000 0.84, 2.55, 3.16 s; 32,000
# 0.78, 2.42, 5.2 s
ATTEMPT_MIN_DERIVATIONS = 8_000
# a recursion auto runs on columns whose rounds stay small, deriving fewer
# facts on average than SMALL_ROUND_FACTS a round from round SMALL_ROUNDS_FROM on,
# is run again on rows: a round costs the columns about half a millisecond
# to one however few its rows, the rows some 30 us, and a fact about 4 us
# on columns against 10 us on rows (a chain of 2,000 edges, one new fact a
# round: reach 1.04 s on columns against 0.064 s on rows, a hop count
# 2.05 against 0.068 s; hop counts over 2,000 random nodes, 240,000 facts
# in 6 rounds: 0.94 against 2.4 s).  Under that average the rows' run
# again costs less than the columns' rounds so far (at most twice what a
# stratum of small rounds costs the rows alone)
SMALL_ROUNDS_FROM = 32
SMALL_ROUND_FACTS = 25
# a table (a bound CSV file, a Spark task's input) is read straight into columns
# from this many rows with engine "auto": even when the run stays on rows,
# the kernels and rows made from the columns beat the csv module from about
# 10,000 lines (13,600 lines: 0.16 s -> 0.03 s CPU, bench/timeseries_ema.py),
# importing numpy and pyarrow costs 0.15 s once
AUTO_MIN_ROWS = 10_000
# a batch of at least this many strata of one shape (planner/same_shape.py)
# runs on columns where the plan allows, however small the input: one
# columnar rule for them all costs less than a row stratum each (10,000
# predicates of one fact with a rule each: 2.6 s of the rows' strata
# against ~1 s)
MANY_STRATA = 100


def engine_choice(engine) -> str:
    """The engine a run asks for: ``engine``, else ``CHRONOLOG_ENGINE``, else auto."""
    import os

    from chronolog.language.errors import ProgramError

    choice = engine if engine is not None else os.environ.get("CHRONOLOG_ENGINE") or "auto"
    if choice not in ENGINES:
        raise ProgramError(f"unknown engine {choice!r}", hint="use engine='auto', 'rows' or 'columns'")
    return choice


def direct_min_rows(engine: str):
    """From how many rows a table (given as facts, bound, or a Spark task's
    input) goes straight into columns for ``engine`` (a resolved choice):
    None on rows, every table on columns, from AUTO_MIN_ROWS on auto."""
    if engine == "rows":
        return None
    return AUTO_MIN_ROWS if engine == "auto" else 0


def direct_min_table_rows(engine: str):
    """From how many rows a table given in memory goes straight into
    columns for ``engine`` (a resolved choice): None on rows, every table
    on columns, from AUTO_MIN_TABLE_FACTS on auto (where such a table then
    runs on columns: :func:`by_size`), counted as :func:`weighted_rows`."""
    if engine == "rows":
        return None
    return AUTO_MIN_TABLE_FACTS if engine == "auto" else 0


def weighted_rows(rows: int, between_units: bool) -> int:
    """How many rows a table counts for toward the thresholds: its rows,
    BETWEEN_UNITS_WEIGHT times over when its times fall between the
    timeline's units."""
    return rows * BETWEEN_UNITS_WEIGHT if between_units else rows


def by_size(given: int, file_facts: int, table_facts: int, recurrences: bool = False, rounds: bool = False) -> bool:
    """The run-time half of ``auto``: whether the inputs are large enough for
    columns; ``rounds``: for a recursion through time in seminaive rounds,
    one per delay, each costing the columns about a millisecond however few
    its rows, only the count of given facts decides, from
    AUTO_MIN_RECURRENCE_FACTS (bench/through_time.py: a box over the
    recursive atom, 2,000 keys given as a table, 272 rounds: 0.13 s on rows,
    0.52 s on columns; 10,000 keys 0.83 against 0.73 s)."""
    if rounds:
        return given >= AUTO_MIN_RECURRENCE_FACTS
    if recurrences and given >= AUTO_MIN_RECURRENCE_FACTS:
        return True
    return given >= AUTO_MIN_FACTS or file_facts >= AUTO_MIN_FILE_FACTS or table_facts >= AUTO_MIN_TABLE_FACTS


def rows_alone(strata: int, given: int) -> bool:
    """Whether auto runs every stratum on rows, for a plan of ``strata``
    strata given ``given`` facts all as rows (no file columns, no tables):
    under every threshold, and too few strata for a batch of MANY_STRATA.
    Then a run that no update follows (reason()) builds the row executor
    alone: a 10-fact run imported and built the columnar one for nothing."""
    return not by_size(given, 0, 0, recurrences=True) and strata < MANY_STRATA
