"""Unpack a public suite from the archive PyPI ships it in (called by
scripts/public-suites.sh): ``public_suites_unpack.py SUITE DIST_DIR DEST``.

Only the suite's cases and its licence are kept, under DEST, which appears
whole or not at all (written as DEST.part, then renamed)."""

from __future__ import annotations

import shutil
import sys
import tarfile
import zipfile
from pathlib import Path, PurePosixPath


def datalog_conformance(name: PurePosixPath):
    """The wheel's core corpus: _tests/{basic,errors,negation,recursion}."""
    if name.parts[:2] == ("datalog_conformance", "_tests") and len(name.parts) > 3 and name.parts[2] in {"basic", "errors", "negation", "recursion"}:
        return PurePosixPath(*name.parts[2:])
    return PurePosixPath("LICENSE") if name.name == "LICENSE" else None


def meteor_sdist(name: PurePosixPath):
    """The sdist's experiment programs and datasets (experiments/KR2022/programs,
    experiments/JWS/programs), without its scripts."""
    rest = PurePosixPath(*name.parts[1:])  # below meteor_reasoner-1.0.14/
    if rest.parts[:1] == ("experiments",) and rest.parts[2:3] == ("programs",) and rest.parts[1] in {"KR2022", "JWS"}:
        return rest
    return PurePosixPath("LICENSE") if rest == PurePosixPath("LICENSE") else None


KEEP = {"datalog-conformance": datalog_conformance, "meteor-sdist": meteor_sdist}


def members(archive: Path):
    """(path inside the archive, bytes) of each file."""
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as z:
            for name in z.namelist():
                if not name.endswith("/"):
                    yield PurePosixPath(name), z.read(name)
    else:
        with tarfile.open(archive) as t:
            for m in t.getmembers():
                if m.isfile():
                    yield PurePosixPath(m.name), t.extractfile(m).read()


def main(suite: str, dist: str, dest: str) -> None:
    (archive,) = Path(dist).iterdir()
    dst = Path(dest)
    part = dst.with_name(dst.name + ".part")
    shutil.rmtree(part, ignore_errors=True)  # what an interrupted run left
    for name, data in members(archive):
        out = KEEP[suite](name)
        if out is not None and ".." not in out.parts:
            target = part.joinpath(*out.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    if not (part / "LICENSE").is_file():
        sys.exit(f"{archive.name} holds no LICENSE: not a {suite} suite")
    part.rename(dst)


if __name__ == "__main__":
    main(*sys.argv[1:])
