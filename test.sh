#!/usr/bin/env bash
# Run the test suite (sets up ./.venv first if it is missing); arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
EXTRAS=test
source scripts/ensure-venv.sh
exec .venv/bin/python -m pytest "$@"
