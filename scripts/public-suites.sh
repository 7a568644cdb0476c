# Sourced by test.sh: puts the public suites that PyPI ships where
# tests/public_suites.py looks for them (tests/data/public/, git-ignored),
# each pinned by version and sha256 and unpacked by
# scripts/public_suites_unpack.py (only the cases and the licence kept;
# nothing installed: datalog-conformance registers a pytest plugin).
#   datalog-conformance: its wheel holds the core Datalog corpus.
#   meteor-sdist: meteor-reasoner 1.0.14's sdist holds MeTeoR's KR2022 and
#     JWS experiment programs (the AAAI2022 ones, suite meteor, it does not).
# Nemo's, MeTeoR's AAAI2022 and Laser's cases are in no package on PyPI or
# Debian: tests/data/public/README.md says what was looked for and how to
# put them in place by hand.
_public_suite() {  # suite, pip's --only-binary/--no-binary, requirement with its hash
  local dst=tests/data/public/$1 tmp
  [ -f "$dst/LICENSE" ] && return 0
  tmp=$(mktemp -d)
  printf '%s\n' "$3" > "$tmp/requirements.txt"
  if .venv/bin/python -m pip download --quiet --no-deps --require-hashes "$2" :all: \
       -r "$tmp/requirements.txt" --dest "$tmp/dist" >/dev/null 2>&1 \
     && .venv/bin/python scripts/public_suites_unpack.py "$1" "$tmp/dist" "$dst"; then
    echo "== public suite $1 in $dst"
  else
    echo "== could not fetch the public suite $1 from PyPI: its tests will be skipped" >&2
    rm -rf "$dst.part" "$tmp"
    [ -n "${CI:-}" ] && exit 1
  fi
  rm -rf "$tmp"
}
_public_suite datalog-conformance --only-binary \
  "datalog-conformance==0.1.0 --hash=sha256:6263752996a2adcbc1cb3dcc8e54cf6e1faa6627f8f0370aa566fed473ce423d"
_public_suite meteor-sdist --no-binary \
  "meteor-reasoner==1.0.14 --hash=sha256:e515a4034067fcd8db48ebe1f5e8ebdcec1251e28fec0db3e28a8f083ac54fb3"
