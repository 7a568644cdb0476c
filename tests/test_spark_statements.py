"""The Spark rounds' statements name the columns a ``SELECT *`` reads
where the step under it is known (connectors/spark_rounds/sql.py): Spark's
analyser expands a star one level of nesting per pass, so deep statements
of ``SELECT *, x FROM (...)`` steps cost passes as deep as the nesting.
No Spark needed: the rewrite is checked on the text, the answers by every
Spark rounds test."""

from hypothesis import given
from hypothesis import strategies as st

from chronolog.connectors.spark_rounds.sql import Stmt, explicit_star


def test_a_star_over_a_known_step_names_its_columns():
    q = Stmt()
    src = q.add("SELECT c0, s, e FROM t", ["c0", "s", "e"])
    got = q.add(f"SELECT *, s + 1 AS n FROM {src} WHERE s < e", ["c0", "s", "e", "n"])
    assert got == "(SELECT c0, s, e, s + 1 AS n FROM (SELECT c0, s, e FROM t) WHERE s < e)"
    assert q.add(f"SELECT * FROM {src}", ["c0", "s", "e"]) == f"(SELECT c0, s, e FROM {src})"


def test_a_star_over_a_common_table_expression_names_its_columns():
    q = Stmt()
    name = q.shared(q.add("SELECT c0, s, e FROM t", ["c0", "s", "e"]))
    assert q.add(f"SELECT * FROM {name} WHERE s < e", ["c0", "s", "e"]) == f"(SELECT c0, s, e FROM {name} WHERE s < e)"


def test_other_stars_stay():
    known = {"(SELECT a FROM t)": ["a"]}
    for sql in ("SELECT * FROM (SELECT b FROM u)",  # an unknown step
                "SELECT * FROM VALUES (1, 2) AS t(a, b)",
                "SELECT /*+ REPARTITION(2, a) */ * FROM (SELECT a FROM t)",  # (a hint: left as it is)
                "SELECT a FROM (SELECT a FROM t)",
                "SELECT count(*) AS n FROM (SELECT a FROM t)"):
        assert explicit_star(sql, known) == sql


# select items whose text holds parentheses and FROM inside string literals
# (escaped quotes too) and function calls: the top-level FROM is the one found
ITEMS = st.lists(st.sampled_from(["f(a) AS x", "'x) FROM (y' AS z", "'it\\'s (' AS q", "substring(a FROM 2) AS w",
                                  "CAST(a AS STRING) AS v", "CASE WHEN a > 0 THEN 1 ELSE 0 END AS k"]), max_size=4)


@given(ITEMS, st.sampled_from(["", " WHERE a > 0", " AS t", " AS t WHERE (a) > 0"]))
def test_the_star_read_is_the_top_level_sources(items, tail):
    src = "(SELECT a, b FROM (SELECT a, b FROM u) WHERE a > (SELECT 1))"
    extra = "".join(f", {x}" for x in items)
    sql = f"SELECT *{extra} FROM {src}{tail}"
    assert explicit_star(sql, {src: ["a", "b"]}) == f"SELECT a, b{extra} FROM {src}{tail}"
