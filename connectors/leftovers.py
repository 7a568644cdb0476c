"""Hidden work-in-progress names that say whose they are, so that what a
killed run leaves behind is removed by the next write of the same output.

An output is written under a hidden name beside it (connectors/staging.py,
the ``chronolog`` Spark data source) and renamed into place when complete.
A run killed meanwhile leaves that name behind, and nothing else would ever
remove it.  So the name carries its owner: the host (a hash of its name),
the process id and the process's start time (a pid the system has given to
a new process is not the owner), as ``chronolog-HOSTHASH-PID-START-``.
Before writing ``NAME``, a writer removes the hidden ``NAME`` entries beside
it whose owner (any of them, for a staging name nested in another) no
longer runs on this host.  Entries of another host, names without an owner
and ``.old`` backups of a published output are left alone.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import zlib
from pathlib import Path
from typing import Optional

_OWNER = re.compile(r"chronolog-([0-9a-f]{8})-(\d+)-(\d+)-")


def _host() -> str:
    return f"{zlib.crc32(socket.gethostname().encode()):08x}"


def _start(pid: int) -> int:
    """The process's start time in clock ticks after boot (0 where /proc
    cannot tell)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return int(fh.read().rpartition(b")")[2].split()[19])
    except (OSError, IndexError, ValueError):
        return 0


def owner(pid: Optional[int] = None) -> str:
    """``HOSTHASH-PID-START`` of a process (this one by default)."""
    pid = os.getpid() if pid is None else pid
    return f"{_host()}-{pid}-{_start(pid)}"


def running(owner_text: str) -> bool:
    """Whether the owner may still run: True for another host's (it cannot
    be told from here), False once the process has ended or its pid is
    another process's."""
    m = _OWNER.match(f"chronolog-{owner_text}-")
    if m is None:
        return True
    return _running(*m.groups())


def _running(host: str, pid: str, start: str) -> bool:
    if host != _host():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return start == "0" or _start(int(pid)) in (0, int(start))


def work_entries(parent) -> list:
    """The hidden work-in-progress entries in ``parent``, of any output
    (empty when it cannot be listed)."""
    try:
        return [e for e in os.listdir(parent) if ".chronolog-" in e]
    except OSError:
        return []


def sweep(parent, name: str, entries=None) -> None:
    """Remove the hidden work-in-progress entries of ``name`` in ``parent``
    whose owner is gone (a killed run's); never raises.  ``entries``: those
    of :func:`work_entries`, listed once for the outputs of a run into one
    directory (listing it per output took 2,000 outputs 3 s)."""
    prefix = re.compile(r"\.+" + re.escape(name) + r"\.chronolog-")
    for entry in work_entries(parent) if entries is None else entries:
        if not prefix.match(entry) or entry.endswith(".old"):
            continue
        owners = _OWNER.findall(entry)
        if owners and not all(_running(*o) for o in owners):
            path = Path(parent) / entry
            try:
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path)
                else:
                    path.unlink()
            except OSError:
                pass  # another run removed it first, or it is not ours to remove
