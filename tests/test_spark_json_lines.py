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


def test_spark_json_chooses_the_keys_mapping_names(spark, tmp_path):
    """Log lines of more keys than the rule reads, its time key placed by
    @timeMapping: Spark reads the keys @mapping names, as the embedded
    reader does."""
    from chronolog import spark as cs

    rng = random.Random(2)
    lines = [json.dumps({"ip": f"10.0.0.{rng.randrange(5)}", "ts": i, "user": f"u{rng.randrange(6)}", "ms": rng.randrange(1000),
                         "action": rng.choice(["a", "b"])}) + "\n" for i in range(200)]
    (tmp_path / "ev.jsonl").write_text("".join(lines))
    rules = ('@timeMapping("event", 1, 1).\n@mapping("event", 0, "user").\n@mapping("event", 1, "ms").\n'
             'slow(U) :- <->[0,5] event(U, M), M > 900.\n@output("slow").\n')
    embedded = chronolog.reason(f'@bind("event", "json", "{tmp_path}", "ev.jsonl").\n' + rules)
    got = cs.reason(spark, f'@bind("event", "spark json", "{tmp_path}", "ev.jsonl").\n' + rules)
    want = set(embedded.facts("slow"))
    assert want and set(table_to_rows(got["slow"].toArrow(), "slow", None)) == want


@pytest.mark.parametrize("indent", [None, 2])
def test_spark_json_reads_a_json_array_file_as_the_embedded_reader(spark, tmp_path, indent):
    """A file that is one JSON array of objects (pandas' to_json(orient=
    "records"); json.dump(..., indent=2), each object over many lines):
    Spark reads it as one document, its keys in the first object's order."""
    from chronolog import spark as cs

    records = [json.loads(line) for line in _records(200, 11).splitlines()]
    (tmp_path / "r.json").write_text(json.dumps(records, indent=indent) + "\n")
    embedded = chronolog.reason(f'@bind("r", "json", "{tmp_path}", "r.json").\n' + RULES)
    got = cs.reason(spark, f'@bind("r", "spark json", "{tmp_path}", "r.json").\n' + RULES)
    for o in ("hot", "long", "total"):
        want = set(embedded.facts(o))
        have = table_to_rows(got[o].toArrow(), o, None)
        assert want and set(have) == want, (o, set(have) - want, want - set(have))
