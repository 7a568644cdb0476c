"""JSON Lines inputs read by Spark's JSON reader (``@bind("p", "spark
json", ...)``) give the model of the same file bound as ``"json"`` and
read by the embedded reader (connectors/json_lines.py): the keys in the
order the file writes them (Spark's inferred schema sorts them by name),
each number exact (Spark's default reads a fraction as a double)."""

import json
import random

import pytest

import chronolog
from chronolog.engine.arrow import table_to_rows

pytestmark = pytest.mark.spark

RULES = """hot(S, V) :- r(S, V), V > 40.
long(S) :- [-][0,3] hot(S, V).
total(S, T) :- r(S, V), T = sum(V).
@output("hot"). @output("long"). @output("total").
"""


def _records(n: int, seed: int) -> str:
    """``sensor`` before ``reading`` (Spark sorts them the other way), integers
    and decimals in one key, ends null (unbounded) now and then."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        t = rng.randrange(100)
        v = rng.choice([rng.randrange(100), round(rng.uniform(0, 100), 2), 0.1])
        out.append({"sensor": f"s{rng.randrange(9)}", "reading": v, "start": t, "end": None if rng.random() < 0.05 else t + rng.randrange(1, 5)})
    return "".join(json.dumps(r) + "\n" for r in out)


@pytest.mark.parametrize("distributed", [False, True])
def test_spark_json_answers_as_the_embedded_json_reader(spark, tmp_path, distributed):
    from chronolog import spark as cs

    (tmp_path / "r.jsonl").write_text(_records(300, 7))
    embedded = chronolog.reason(f'@bind("r", "json", "{tmp_path}", "r.jsonl").\n' + RULES)
    got = cs.reason(spark, f'@bind("r", "spark json", "{tmp_path}", "r.jsonl").\n' + RULES, distributed=distributed)
    for o in ("hot", "long", "total"):
        want = set(embedded.facts(o))
        have = table_to_rows(got[o].toArrow(), o, None)
        assert want and set(have) == want, (o, set(have) - want, want - set(have))
    assert any(type(t[1]) is not int for t, _ in embedded.facts("hot"))  # (decimals among the readings, exact)
