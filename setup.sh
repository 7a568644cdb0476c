#!/usr/bin/env bash
# Set up chronolog in ./.venv and run the main example with the embedded engine.
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
echo "installing chronolog and its test dependencies into .venv (log: .venv/install.log)"
if ! .venv/bin/python -m pip install -e '.[test]' > .venv/install.log 2>&1; then
  tail -n 30 .venv/install.log
  echo "installation failed; the full log is .venv/install.log" >&2
  exit 1
fi
echo "== chronolog run examples/ownership.vada"
.venv/bin/chronolog run examples/ownership.vada
