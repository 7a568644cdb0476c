"""Whether a path the user named exists, as a clear error when the name
itself cannot be used (too long, a component that is a file, no
permission to look): ``Path.exists`` raises a bare OSError for those."""

from __future__ import annotations

import errno
from pathlib import Path

from chronolog.language.errors import DataError


def exists(path, what: str = "the path", pos=None) -> bool:
    """``pos``: where the program names the path (an annotation), if it does."""
    try:
        return Path(path).exists()
    except OSError as e:
        shown = str(path)
        if len(shown) > 120:
            shown = shown[:60] + "..." + shown[-40:]
        hint = "use a shorter name" if e.errno == errno.ENAMETOOLONG else "check the directory and file name"
        raise DataError(f"{what} {shown} cannot be used: {e.strerror}", pos, hint=hint) from None
