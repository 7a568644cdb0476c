"""The chronolog data source's schema inference: every file against a sample.

Writes ``--facts`` fact lines in 4 files and times, in this process (CPU
seconds), what the data source's ``schema()`` does on the driver: before,
parsing every file; now, the first ``samplingFacts`` (10,000) facts.  The
two schemas are compared.

    .venv/bin/python bench/spark_source_schema.py --facts 1000000
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--facts", type=int, default=1_000_000)
    args = ap.parse_args(argv)
    from chronolog.connectors import distributed as dist
    from chronolog.connectors.spark_source import SAMPLING, _facts, _files, _sample

    d = tempfile.mkdtemp(prefix="source_schema_")
    per = args.facts // 4
    for f in range(4):
        with open(os.path.join(d, f"part-{f}.facts"), "w") as fh:
            for i in range(per):
                fh.write(f"reading(s{i % 5000},{(i * 7) % 1000}.5)@[{i},{i + 1})\n")

    def schema_of(rows):
        return dist.schema_for(["c0", "c1"], dist.kinds_of(rows, 2))

    c0 = time.process_time()
    old = schema_of(_facts(_files(d), "reading")[1])
    t_all = time.process_time() - c0
    c0 = time.process_time()
    new = schema_of(_sample(_files(d), "reading", SAMPLING)[1])
    t_sample = time.process_time() - c0
    print(f"{4 * per} facts: every file {t_all:.2f} s CPU, a sample of {SAMPLING} facts {t_sample:.3f} s CPU; same schema: {old == new}")


if __name__ == "__main__":
    main()
