#!/usr/bin/env bash
# Run the test suite (sets up ./.venv first if it is missing).
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/pytest ]; then
  "$PY" -m venv .venv
  .venv/bin/python -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
  echo "installing chronolog and its test dependencies into .venv (log: .venv/install.log)"
  if ! .venv/bin/python -m pip install -e '.[test]' > .venv/install.log 2>&1; then
    tail -n 30 .venv/install.log
    echo "installation failed; the full log is .venv/install.log" >&2
    exit 1
  fi
fi
exec .venv/bin/python -m pytest "$@"
