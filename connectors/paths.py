"""Whether a path the user named exists, as a clear error when the name
itself cannot be used (too long, a component that is a file, no
permission to look): ``Path.exists`` raises a bare OSError for those.
Written on ``os.stat`` as ``Path.exists`` is: a command imports no pathlib
(chronolog/standard_input.py), and ``os.path.exists`` hides those errors."""

from __future__ import annotations

import errno
import os

from chronolog.language.errors import DataError

# what ``pathlib.Path.exists`` reads as "no such file" (pathlib's _IGNORED_ERRNOS and _IGNORED_WINERRORS)
_ABSENT = (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP)
_ABSENT_ON_WINDOWS = (21, 123, 1921)  # (not ready, invalid name, cannot be followed)


def _exists(path) -> bool:
    try:
        os.stat(path)
    except OSError as e:
        if e.errno in _ABSENT or getattr(e, "winerror", None) in _ABSENT_ON_WINDOWS:
            return False
        raise
    except ValueError:  # (a name with a NUL byte, or one the file system cannot encode)
        return False
    return True


def exists(path, what: str = "the path", pos=None) -> bool:
    """``pos``: where the program names the path (an annotation), if it does."""
    try:
        return _exists(path)
    except OSError as e:
        shown = str(path)
        if len(shown) > 120:
            shown = shown[:60] + "..." + shown[-40:]
        hint = "use a shorter name" if e.errno == errno.ENAMETOOLONG else "check the directory and file name"
        raise DataError(f"{what} {shown} cannot be used: {e.strerror}", pos, hint=hint) from None
