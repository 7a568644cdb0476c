"""Many answers written as CSV and as JSON Lines: chronolog's whole command
against pandas.

Sensor readings (``sensor,value,time``: 50 sensors, an integer value, a
distinct epoch second each) in a bound CSV file; the job keeps the
readings above 20 (``high(S, V) :- reading(S, V), V > 20.``, about four in
five: most of the command is writing them).  chronolog runs ``chronolog
run PROGRAM --format csv`` and ``--format json`` (a record per answer:
predicate, terms, ends, closedness and the fact's text); pandas runs a
script that reads the CSV, keeps the same rows and writes the same records
(``to_csv``; ``to_json(orient="records", lines=True)``, the text made by
string concatenation).  Both are whole processes, timed alternately (wall
and the children's CPU); the answers are compared record by record.

    python bench/answers_out.py [--readings 200000] [--repeat 3] [--json FILE]
"""

from __future__ import annotations

import csv
import json
import os
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from readings_ms import CHRONOLOG_RUN, alternated, arguments, finish, report  # noqa: E402  (one way to time child processes)

RULES = 'high(S, V) :- reading(S, V), V > 20.\n@output("high").\n'

PANDAS = """
import sys
import pandas as pd
df = pd.read_csv(sys.argv[1])
h = df[df["value"] > 20]
out = pd.DataFrame({"pred": "high", "c0": h["sensor"], "c1": h["value"], "start": h["time"], "end": h["time"],
                    "start_closed": "true", "end_closed": "true"})
if sys.argv[3] == "csv":
    out.to_csv(sys.argv[2], index=False)
else:
    out["start_closed"] = out["end_closed"] = True
    out["text"] = "high(" + h["sensor"] + "," + h["value"].astype(str) + ")@[" + h["time"].astype(str) + "," + h["time"].astype(str) + "]"
    out.to_json(sys.argv[2], orient="records", lines=True)
"""


def write_inputs(folder: Path, n: int, seed: int = 7) -> Path:
    rng = random.Random(seed)
    data = folder / "readings.csv"
    with data.open("w") as fh:
        fh.write("sensor,value,time\n")
        fh.writelines(f"s{i % 50},{rng.randint(0, 100)},{1_700_000_000 + i}\n" for i in range(n))
    prog = folder / "job.vada"
    prog.write_text(RULES + f'@input("reading").\n@bind("reading", "csv", "{folder}", "{data.name}").\n'
                            '@timeMapping("reading", 2, 2).\n')
    (folder / "peer.py").write_text(PANDAS)
    return prog


def records(path: Path, fmt: str) -> set:
    """(sensor, value, start, end, text or None) of each answer written."""
    if fmt == "json":
        out = set()
        with path.open() as fh:
            for line in fh:
                r = json.loads(line)
                terms = r["terms"] if "terms" in r else [r["c0"], r["c1"]]
                out.add((terms[0], int(terms[1]), int(r["start"]), int(r["end"]), r["text"]))
        return out
    with path.open(newline="") as fh:
        return {(r["c0"], int(r["c1"]), int(r["start"]), int(r["end"]), None) for r in csv.DictReader(fh)}


def main() -> int:
    args = arguments(__doc__)
    result = {"readings": args.readings, "load": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        prog = write_inputs(folder, args.readings)
        for fmt in ("csv", "json"):
            mine, theirs = folder / f"chronolog.{fmt}", folder / f"pandas.{fmt}"
            sides = {"chronolog": (CHRONOLOG_RUN + [str(prog), "--format", fmt], mine),
                     "pandas": ([sys.executable, str(folder / "peer.py"), str(folder / "readings.csv"), str(theirs), fmt], None)}
            row = alternated(sides, args.repeat)
            got, want = records(mine, fmt), records(theirs, fmt)
            row["same"], row["answers"] = got == want, len(got)
            result[fmt] = row
            report(fmt, row, "answers")
    return finish(args, result, ("csv", "json"))


if __name__ == "__main__":
    sys.exit(main())
