#!/usr/bin/env bash
# Run the test suite (sets up ./.venv first if it is missing).
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/pytest ]; then
  "$PY" -m venv .venv
  .venv/bin/python -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
  .venv/bin/python -m pip install --quiet -e '.[test]'
fi
exec .venv/bin/python -m pytest "$@"
