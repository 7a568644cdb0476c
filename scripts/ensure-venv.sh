# Sourced by setup.sh (EXTRAS unset: the core, what `chronolog run` needs) and
# test.sh (EXTRAS=test: plus pytest, pandas, polars, matplotlib, pyspark, ...).
# Makes ./.venv hold chronolog with those extras.  A .venv that is broken
# (its python does not start), too old (Python < 3.11) or installed from
# another pyproject.toml is rebuilt; one that is up to date is left alone.
PY=${PYTHON:-python3}
EXTRAS=${EXTRAS:-}
SPEC=.
[ -n "$EXTRAS" ] && SPEC=".[$EXTRAS]"
# the stamp records what was installed: the hash of pyproject.toml and of this
# script (how it installs), and the extras
HASH=$(cat pyproject.toml scripts/ensure-venv.sh | cksum | cut -d' ' -f1)
_python_ok() { .venv/bin/python -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; }
_venv_ok() {  # the test extras include the core: a test .venv serves setup.sh too
  _python_ok && [ -x .venv/bin/chronolog ] && [ -f .venv/.chronolog-stamp ] || return 1
  local have; have=$(cat .venv/.chronolog-stamp)
  [ "$have" = "$HASH $EXTRAS" ] || { [ -z "$EXTRAS" ] && [ "${have%% *}" = "$HASH" ]; }
}
if ! _venv_ok; then
  if [ -d .venv ] && ! _python_ok; then
    echo "== .venv is broken or has Python < 3.11: rebuilding it"
    rm -rf .venv
  fi
  if [ ! -x .venv/bin/python ]; then
    "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
      echo "chronolog needs Python 3.11 or newer; $PY is $("$PY" --version 2>&1) (set PYTHON=python3.12, say)" >&2
      exit 1
    }
    echo "== creating .venv with $("$PY" --version 2>&1)"
    "$PY" -m venv .venv
  fi
  echo "== pip install -e '$SPEC' into .venv (log: .venv/install.log)"
  rm -f .venv/.chronolog-stamp
  .venv/bin/python -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
  set +o pipefail
  # editable_mode=compat: the checkout's root as a plain path in a .pth file
  # (chronolog/__init__.py finds language/, planner/, ... beside it), not
  # setuptools' default import finder for pyproject.toml's package-dir
  # mapping, which every Python start of .venv imported with pathlib,
  # urllib.parse and ipaddress: ~30 ms of a 10-fact `chronolog run`'s
  # CPU (bench/startup.py); a setuptools without the mode installs the default
  .venv/bin/python -m pip install --progress-bar off -e "$SPEC" --config-settings editable_mode=compat 2>&1 \
    | tee .venv/install.log | grep --line-buffered -E '^(Collecting|Successfully installed)' | sed -u 's/^/   /'
  status=${PIPESTATUS[0]}
  if [ "$status" != 0 ]; then  # (the default mode, where a setuptools has dropped compat)
    .venv/bin/python -m pip install --progress-bar off -e "$SPEC" 2>&1 | tee -a .venv/install.log \
      | grep --line-buffered -E '^(Collecting|Successfully installed)' | sed -u 's/^/   /'
    status=${PIPESTATUS[0]}
  fi
  set -o pipefail
  if [ "$status" != 0 ]; then
    tail -n 30 .venv/install.log
    echo "installation failed; the full log is .venv/install.log (the next run starts over)" >&2
    exit 1
  fi
  echo "$HASH $EXTRAS" > .venv/.chronolog-stamp
fi
# the checkout's bytecode, brought up to date (0.2 s when it is): where .pyc
# files are not written at import (PYTHONDONTWRITEBYTECODE=1, as in some
# sandboxes and CI images) every command would otherwise compile each of
# chronolog's modules again, 1.7x the time of a small `chronolog run`
# (bench/startup.py, "the same, no bytecode"); an installed wheel has them
.venv/bin/python -m compileall -q chronolog language planner engine connectors >/dev/null 2>&1 || true
