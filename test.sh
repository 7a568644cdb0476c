#!/usr/bin/env bash
# Run the test suite (sets up ./.venv first if it is missing); arguments go to pytest.
#   bash test.sh              the fast tier (what CI runs): every oracle, few examples each
#   bash test.sh --thorough   everything: the slow tests and every example (HYPOTHESIS_PROFILE=thorough)
set -euo pipefail
cd "$(dirname "$0")"
EXTRAS=test
args=()
for a in "$@"; do
  if [ "$a" = "--thorough" ]; then export HYPOTHESIS_PROFILE=thorough; else args+=("$a"); fi
done
source scripts/ensure-venv.sh
source scripts/public-suites.sh
# two workers sharing the tests as each comes free, each starting one Spark
# session at its first Spark test (tests/conftest.py); `-n 0` after these
# runs in one process
exec .venv/bin/python -m pytest -n 2 --dist load ${args[@]+"${args[@]}"}
