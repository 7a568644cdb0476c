# Sourced by test.sh: puts the public suites that a package registry ships
# where tests/public_suites.py looks for them (tests/data/public/, git-ignored).
# The datalog-conformance core corpus comes in its PyPI wheel: downloaded,
# not installed (the package registers a pytest plugin), and only its YAML
# cases and licence kept. Nemo's, MeTeoR's and Laser's cases are in no
# package on PyPI or Debian: they come from their repositories
# (tests/data/public/README.md says what was looked for and where they go).
_dc=tests/data/public/datalog-conformance
if [ ! -f "$_dc/LICENSE" ]; then
  _tmp=$(mktemp -d)
  if .venv/bin/python -m pip download --quiet --no-deps --dest "$_tmp" datalog-conformance==0.1.0 >/dev/null 2>&1 \
     && .venv/bin/python - "$_tmp" "$_dc" <<'PY'
import sys, zipfile, pathlib
src, dst = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
wheel = next(src.glob("datalog_conformance-*.whl"))
part = dst.with_name(dst.name + ".part")
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        p = pathlib.PurePosixPath(name)
        if p.parts[:2] == ("datalog_conformance", "_tests") and p.parts[2] in {"basic", "errors", "negation", "recursion"}:
            out = part.joinpath(*p.parts[2:])
        elif p.name == "LICENSE":
            out = part / "LICENSE"
        else:
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(z.read(name))
part.rename(dst)  # whole or not at all
PY
  then
    echo "== datalog-conformance 0.1.0's core corpus in $_dc"
  else
    echo "== could not fetch datalog-conformance from PyPI: its tests will be skipped" >&2
    rm -rf "$_dc.part"
    [ -n "${CI:-}" ] && { rm -rf "$_tmp"; exit 1; }
  fi
  rm -rf "$_tmp"
fi
