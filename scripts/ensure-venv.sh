# Sourced by setup.sh and test.sh: make ./.venv hold chronolog and its test
# dependencies (created on first use; later calls do nothing).
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/pytest ] || [ ! -x .venv/bin/chronolog ]; then
  [ -x .venv/bin/python ] || "$PY" -m venv .venv
  .venv/bin/python -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
  echo "installing chronolog and its test dependencies into .venv (log: .venv/install.log)"
  if ! .venv/bin/python -m pip install -e '.[test]' > .venv/install.log 2>&1; then
    tail -n 30 .venv/install.log
    echo "installation failed; the full log is .venv/install.log" >&2
    exit 1
  fi
fi
