#!/usr/bin/env bash
# Set up chronolog in ./.venv and run the main example with the embedded engine.
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
.venv/bin/python -m pip install --quiet -e '.[test]'
echo "== chronolog run examples/ownership.vada"
.venv/bin/chronolog run examples/ownership.vada
