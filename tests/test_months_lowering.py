"""Time grouping by months and years, written once (engine/interval_shift.months):
the columns' numpy emission (exprs.to_numpy), Polars' and Spark's give the
codes Python's calendar gives (``datetime.date``, proleptic Gregorian)."""

import datetime

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from budget import examples
from chronolog.engine import exprs
from chronolog.engine.interval_shift import NEG, POS, months

EPOCH = datetime.date(1970, 1, 1).toordinal()
FIRST, LAST = datetime.date(1, 1, 1).toordinal() - EPOCH, datetime.date(9999, 1, 1).toordinal() - EPOCH - 400
COUNTS = st.sampled_from([1, 2, 3, 12, 24])
DAYS = st.one_of(st.integers(FIRST, LAST - 1), st.integers(-800, 800), st.sampled_from([FIRST, LAST - 1, -1, 0, 59, 789]))


def month_start(index: int) -> int:
    """The first day of a month index; year 0 (2 years' periods floor year 1
    to it) as year 400 less 400 Gregorian years, as the proleptic calendar has it."""
    back = 146_097 if index < 12 else 0
    return datetime.date(index // 12 + (400 if back else 0), index % 12 + 1, 1).toordinal() - back - EPOCH


def python_codes(s: int, e: int, count: int, per_day: int) -> tuple:
    """language/time_grouping.py's rule on Python's dates: the start floors to
    its period's first day (closed), the end rises to the next period's
    first day (open) unless it is an open end on a first day already."""
    def index(code):
        d = datetime.date.fromordinal(EPOCH + (code >> 1) // per_day)
        i = d.year * 12 + d.month - 1
        return i - i % count

    s2 = NEG if s == NEG else 2 * per_day * month_start(index(s))
    if e == POS:
        return s2, POS
    first = per_day * month_start(index(e))
    return s2, e if first == e >> 1 and e % 2 == 0 else 2 * per_day * month_start(index(e) + count)


def rows():
    """``(s, e)`` interval codes on the day grid, with the sentinels."""
    end = st.tuples(DAYS, st.booleans()).map(lambda d: 2 * d[0] + d[1])
    return st.lists(st.tuples(st.one_of(end, st.just(NEG)), st.one_of(end, st.just(POS))), min_size=1, max_size=12)


@settings(max_examples=examples(300), deadline=None)
@given(rows(), COUNTS)
def test_months_on_numpy_and_polars_are_pythons_calendar(rs, count):
    s2, e2 = months(count, 1, (FIRST, LAST))
    cols = {"s": np.array([s for s, _ in rs], np.int64), "e": np.array([e for _, e in rs], np.int64)}
    memo: dict = {}
    on_numpy = list(zip(*(exprs.to_numpy(x, cols, memo).tolist() for x in (s2, e2))))
    on_polars, why = exprs.with_values(pl.DataFrame(cols), {"s": s2, "e": e2})
    assert why is None
    assert on_numpy == on_polars.rows() == [python_codes(s, e, count, 1) for s, e in rs]


@pytest.mark.parametrize("day", [FIRST - 1, LAST, LAST + 400])
def test_a_day_beyond_the_calendar_functions_is_refused_on_numpy_and_polars(day):
    s2, e2 = months(1, 1, (FIRST, LAST))
    cols = {"s": np.array([NEG, 0], np.int64), "e": np.array([2 * day, POS], np.int64)}
    with pytest.raises(exprs.Refused, match="beyond the years"):
        [exprs.to_numpy(x, cols, {}) for x in (s2, e2)]
    assert exprs.with_values(pl.DataFrame(cols), {"s": s2, "e": e2})[1] is not None


def test_each_end_reads_its_month_once():
    """A Polars query or numpy computes each copy of a subtree (months'
    first tree read an end's month three times: 0.18 s for `timeseries`
    monthly where numpy's own month floors took 0.09 s)."""
    def distinct(op, *trees):
        seen = {}

        def walk(x):
            if isinstance(x, exprs.Expr) and id(x) not in seen:
                seen[id(x)] = x
                for a in x.args:
                    walk(a)
        for t in trees:
            walk(t)
        return sum(1 for x in seen.values() if x.op == op)

    for count in (1, 3):
        s2, e2 = months(count, 1, (FIRST, LAST))
        assert distinct("month_index", s2, e2) == 2  # the start's and the end's
        assert distinct("month_start", s2, e2) == 3  # the start's period, the end's, the next one


@pytest.mark.spark
@settings(max_examples=examples(20), deadline=None, suppress_health_check=list(HealthCheck))
@given(rows(), COUNTS)
def test_months_on_spark_are_pythons_calendar(spark, rs, count):
    """The rounds' grid: microseconds, no range refused (their inputs stay inside)."""
    day = 86_400_000_000
    rs = [(s if s == NEG else 2 * day * (s >> 1) + (s & 1), e if e == POS else 2 * day * (e >> 1) + (e & 1))
          for s, e in rs if (s == NEG or s >> 1 > -719_000) and (e == POS or e >> 1 > -719_000)]  # Spark's dates from year 1
    if not rs:
        return
    sql = [exprs.to_sql(x, lambda v: f"({v}L)", None) for x in months(count, day)]
    got = [tuple(r) for r in spark.createDataFrame(rs, "s bigint, e bigint").selectExpr(f"{sql[0]} AS s", f"{sql[1]} AS e").collect()]
    assert got == [python_codes(s, e, count, day) for s, e in rs]
