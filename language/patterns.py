"""Regular expressions compiled on first use.

The readers and checks keep their patterns at module level, where they
are read; compiled there, a 10-fact ``chronolog run`` compiled 18 it
never used (~5M of its ~200M instructions: ``re``'s compiler is Python).
``re``'s own cache would compile lazily too, but every ``re.match(text,
...)`` call pays its lookup: a reader matches per token.
"""

from __future__ import annotations

import re

# what a compiled pattern is used for here: bound to the object on first use
_METHODS = ("match", "fullmatch", "search", "sub", "subn", "split", "findall", "finditer", "groupindex", "groups")


class LazyPattern:
    """``re.compile(pattern, flags)``, compiled by the first use of any of
    its methods; ``pattern`` and ``flags`` are read without compiling."""

    def __init__(self, pattern: str, flags: int = 0):
        self.pattern, self.flags = pattern, flags

    def __getattr__(self, name):  # (only while an attribute is missing: the first use)
        if name not in _METHODS:
            raise AttributeError(name)
        compiled = re.compile(self.pattern, self.flags)
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))  # (later uses: the compiled pattern's own)
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r})"
