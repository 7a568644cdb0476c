"""All-or-nothing outputs: every file (or Spark output directory) of a run is
written beside its destination under a hidden temporary name, and the whole
set is renamed into place only when every one of them is complete.

A run that fails leaves every destination as it was (temporary files
removed, directories it created removed again); a run that is killed leaves
at most hidden ``.NAME.chronolog-*.tmp`` entries, which never block or
confuse the next run, and the next write of ``NAME`` removes them (their
names say which process made them: connectors/leftovers.py).  Files get the
permissions the user's umask gives a new file (``tempfile`` would make them
0600).

Written here rather than taken from a library: the standard library renames
one file atomically (``os.replace``), but nothing publishes a set of them.
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from pathlib import Path

from chronolog.language.errors import DataError

from .leftovers import owner, sweep, work_entries
from .paths import exists

_OVERWRITE_HINT = "choose another path, or pass --overwrite (overwrite=True in Python)"


def _umask() -> int:
    """The process's umask (read without changing it where /proc allows)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    old = os.umask(0o022)
    os.umask(old)
    return old


def check_destination(path: Path, overwrite: bool, is_dir: bool = False) -> None:
    """Refuse, before any work, a destination that may not be written."""
    if exists(path, "the output") or path.is_symlink():
        if path.is_dir() and not is_dir:  # (first: --overwrite would not help)
            raise DataError(f"{path} is a directory, not a file", hint="choose a file name for this output")
        if not overwrite:
            raise DataError(f"{path} exists already; not overwriting it", hint=_OVERWRITE_HINT)
        if not path.is_dir() and is_dir and path.exists() and not path.is_file():
            raise DataError(f"{path} is not a regular file or directory", hint="choose another path")
    parent = path.parent
    probe = parent
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        raise DataError(f"cannot write {path}: {probe} is not a directory", hint="choose an output path inside a directory")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise DataError(f"cannot write {path}: {probe} is not writable", hint="choose a directory you can write to")


class Staging:
    """The outputs of one run: ``stage`` each, then ``publish`` (or
    ``discard``).  Used as a context manager, an exception discards."""

    def __init__(self):
        self._forget()
        self._made_dirs = []  # directories created for staging, deepest last

    def _forget(self) -> None:
        """No output staged (at the start, and once published or discarded)."""
        self._staged = []  # (tmp, final, overwrite)
        self._finals: set = set()  # the staged outputs' paths
        self._work_entries: dict = {}  # directory -> its work-in-progress entries when first written to (leftovers.py)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            self.discard()
        return False

    # ------------------------------------------------------------ staging
    def _mkdirs(self, parent: Path) -> None:
        missing = []
        p = parent
        while not p.exists():
            missing.append(p)
            p = p.parent
        for d in reversed(missing):
            try:
                d.mkdir()
            except FileExistsError:
                continue
            except OSError as e:
                raise DataError(f"cannot create the directory {d}: {e.strerror}", hint="choose a directory you can write to") from None
            self._made_dirs.append(d)

    def temp_path(self, path, overwrite: bool = False, is_dir: bool = False) -> Path:
        """A fresh hidden path beside ``path`` that ``publish`` will rename to
        it; the caller writes there (a file, or a directory if ``is_dir``)."""
        path = Path(path)
        if path in self._finals:
            raise DataError(f"two outputs of this run are written to {path}", hint="give each output its own file")
        check_destination(path, overwrite, is_dir)
        self._mkdirs(path.parent)
        entries = self._work_entries.get(path.parent)
        if entries is None:  # (listed once a directory: a run writes many outputs into one)
            entries = self._work_entries[path.parent] = work_entries(path.parent)
        sweep(path.parent, path.name, entries)  # what a killed run left
        prefix = f".{path.name}.chronolog-{owner()}-"
        try:
            if is_dir:
                tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=prefix, suffix=".tmp"))
                os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes it 0700
            else:
                fd, name = tempfile.mkstemp(dir=path.parent, prefix=prefix, suffix=".tmp")
                os.close(fd)
                tmp = Path(name)
        except OSError as e:
            hint = "use a shorter name" if e.errno == errno.ENAMETOOLONG else "choose a directory you can write to"
            raise DataError(f"cannot write {path}: {e.strerror}", hint=hint) from None
        self._staged.append((tmp, path, overwrite))
        self._finals.add(path)
        return tmp

    def stage(self, path, write, overwrite: bool = False) -> None:
        """Call ``write(tmp_path)`` for the output ``path``."""
        tmp = self.temp_path(path, overwrite)
        try:
            write(str(tmp))
        except OSError as e:
            raise DataError(f"cannot write {path}: {e.strerror or e}", hint="check the disk space and permissions") from None
        mode = 0o666 & ~_umask()
        os.chmod(tmp, mode)

    # ------------------------------------------------------------ finishing
    def publish(self) -> None:
        """Rename every staged output into place.  A destination that appeared
        meanwhile, or a failed rename, undoes the ones already renamed."""
        for _tmp, final, overwrite in self._staged:
            if not overwrite and (final.exists() or final.is_symlink()):
                self.discard()
                raise DataError(f"{final} exists already; not overwriting it", hint=_OVERWRITE_HINT)
        done = []  # (final, backup or None)
        try:
            for tmp, final, _ow in self._staged:
                backup = None
                if final.exists() or final.is_symlink():
                    backup = final.with_name(f".{final.name}.chronolog-old-{os.getpid()}.tmp")
                    os.replace(final, backup)
                done.append((final, backup))
                os.replace(tmp, final)
        except OSError as e:
            for final, backup in reversed(done):
                _remove(final)
                if backup is not None:
                    os.replace(backup, final)
            self.discard()
            raise DataError(f"cannot publish the outputs: {e}", hint="check the permissions of the output directories") from None
        for _final, backup in done:
            if backup is not None:
                _remove(backup)
        self._forget()
        self._made_dirs = []

    def discard(self) -> None:
        """Remove every temporary output and the directories made for them."""
        for tmp, _final, _ow in self._staged:
            _remove(tmp)
        self._forget()
        for d in reversed(self._made_dirs):
            try:
                d.rmdir()
            except OSError:
                pass
        self._made_dirs = []


def _remove(p: Path) -> None:
    try:
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        else:
            p.unlink()
    except FileNotFoundError:
        pass
