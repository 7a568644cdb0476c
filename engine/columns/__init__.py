"""The columnar executor: relations as polars columns (terms as dictionary
codes, intervals as exact int64 codes, see encoding.py), each node a
vectorised kernel pulled through the same next()/get() interface as the rows.
It runs the strata it supports when the input is large enough (or when
asked); every other stratum runs on the row executor (evaluator.py)."""
