"""The grammar's parser tables kept between processes (language/reader.py,
``_lark``): built once, then loaded in ~4 ms instead of rebuilt (~40 ms);
rebuilt when the grammar's text or options differ, never read from a file
another user could have written, safe with processes starting together
and with a temporary directory that cannot be written.  Each check runs in
fresh interpreters whose temporary directory is the test's."""

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

_PARSE = (
    "from chronolog.language.reader import dialect\n"
    "prog = dialect('vadalog').parse('q(X) :- <->[0,2] p(X).\\np(a)@[1,2].', 'x')\n"
    "print(len(prog.rules), len(prog.facts))\n"
)


def _parse_in(tmpdir) -> str:
    env = dict(os.environ, TMPDIR=str(tmpdir))
    return subprocess.run([sys.executable, "-c", _PARSE], capture_output=True, text=True, check=True, env=env).stdout.strip()


def _cache_files(tmpdir) -> list:
    return sorted(p.name for p in tmpdir.iterdir() if p.name.startswith(".chronolog_vadalog"))


def test_built_once_then_loaded(tmp_path):
    assert _parse_in(tmp_path) == "1 1"
    [name] = _cache_files(tmp_path)
    import lark

    assert f"lark{lark.__version__}_py{sys.version_info[0]}{sys.version_info[1]}" in name  # (another version: another file)
    inode = (tmp_path / name).stat().st_ino
    assert _parse_in(tmp_path) == "1 1"
    assert (tmp_path / name).stat().st_ino == inode  # loaded, not written again


@pytest.mark.parametrize("damage", ["another grammar", "truncated", "writable by others"])
def test_a_file_that_does_not_match_is_rebuilt(tmp_path, damage):
    """A file holding another grammar's tables (an edited grammar file),
    a damaged file, or one that others may write is not used: the tables
    are built again and the file replaced."""
    import pickle

    assert _parse_in(tmp_path) == "1 1"
    [name] = _cache_files(tmp_path)
    path = tmp_path / name
    if damage == "another grammar":
        data = path.read_bytes()
        key_end = len(pickle.dumps(pickle.loads(data), protocol=pickle.HIGHEST_PROTOCOL))
        text, options = pickle.loads(data)
        path.write_bytes(pickle.dumps((text.replace("statement*", "statement+"), options), protocol=pickle.HIGHEST_PROTOCOL) + data[key_end:])
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[:200])
    else:
        path.chmod(0o666)
    inode = path.stat().st_ino
    assert _parse_in(tmp_path) == "1 1"
    assert path.stat().st_ino != inode  # built again, written whole under another name, renamed
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)


def test_processes_starting_together(tmp_path):
    """Eight processes with no tables yet: each parses, one file stays,
    no partial file is left."""
    with ThreadPoolExecutor(8) as pool:
        outs = list(pool.map(lambda _: _parse_in(tmp_path), range(8)))
    assert outs == ["1 1"] * 8
    assert len(_cache_files(tmp_path)) == 1
    assert not [p.name for p in tmp_path.iterdir() if ".tmp." in p.name]


def test_tables_that_cannot_be_written(tmp_path, monkeypatch):
    """A place that cannot be written (a read-only temporary directory, a
    full disk): the tables built are used, nothing is left behind."""
    import tempfile

    from chronolog.language import reader

    def refuse(*args, **kwargs):
        raise PermissionError("read-only")

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(os, "replace", refuse)
    parser = reader._lark.__wrapped__("vadalog.lark")  # (the function behind its in-process cache)
    assert parser.parse("p(a)@[1,2].") is not None
    assert list(tmp_path.iterdir()) == []
