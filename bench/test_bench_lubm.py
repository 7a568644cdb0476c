"""pytest-benchmark: chronolog on the 10k-fact temporal LUBM dataset.

Not collected by the default test run (``testpaths = ["tests"]``); run it with

    /tmp/venv/bin/python -m pytest bench/test_bench_lubm.py --benchmark-only
    /tmp/venv/bin/python -m pytest bench/test_bench_lubm.py --benchmark-only --lubm-facts 100000

The dataset is generated on first use into ``bench/data`` (cached).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import lubm_gen  # noqa: E402

FACTS = 10_000


@pytest.fixture(scope="module")
def dataset():
    vada, _meteor = lubm_gen.dataset(FACTS, seed=1, tmax=300)
    return vada


@pytest.mark.parametrize("program", ["nonrec", "rec"])
def test_lubm_chronolog(benchmark, dataset, program):
    chronolog = pytest.importorskip("chronolog")
    text = (HERE / "programs" / f"lubm_{program}.vada").read_text()
    model = benchmark.pedantic(
        chronolog.reason, args=(text,), kwargs={"facts": dataset}, rounds=3, iterations=1, warmup_rounds=0
    )
    preds = set(model.predicates())
    # every rule head has facts on this dataset (checked against MeTeoR)
    expected = {
        "nonrec": {"professor", "faculty", "student", "degreeFrom", "hasAlumnus", "chair", "recentAuthor",
                   "upcomingTeacher", "stableMember", "supervised", "tutorCandidate", "formerUndergrad"},
        "rec": {"subOrganizationOf", "memberOf", "affiliatedWith", "academicAncestor", "lineageFrom",
                "student", "enrolledAt"},
    }[program]
    assert expected <= preds
    benchmark.extra_info["input_facts"] = FACTS
    benchmark.extra_info["model_facts"] = sum(len(model.facts(p)) for p in preds)
