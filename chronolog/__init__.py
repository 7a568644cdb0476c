"""chronolog: a temporal reasoner for Python (DatalogMTL, Temporal Vadalog style).

    >>> import chronolog
    >>> m = chronolog.reason('''
    ...     recentlyOpened(X) :- <->[0,12] inauguration(X).
    ...     inauguration(a)@[5,6].
    ... ''')
    >>> print(m.to_text())
    recentlyOpened(a)@[5,18]
"""

import gc as _gc

from chronolog.checkout import subpackage_dirs as _subpackage_dirs

__path__ += _subpackage_dirs(__path__[0])  # run from a checkout that is not installed

# the collector paused while the package's modules import: their objects
# live as long as the process, so a collection then walks them for nothing
# (4% of a 10-fact command's instructions); the host's setting is restored
_collecting = _gc.isenabled()
_gc.disable()
try:
    from chronolog.api import Model, Reasoner, load_program, reason
    from chronolog.preload import preload
    from chronolog.arguments import ArgumentError
    from chronolog.language.errors import (
        ChronologError,
        DataError,
        InconsistencyError,
        Note,
        ProgramError,
        SyntaxError_ as ChronologSyntaxError,
    )
finally:
    if _collecting:
        _gc.enable()

__all__ = [
    "reason",
    "load_program",
    "preload",
    "Model",
    "Reasoner",
    "explain_plan",
    "Stream",
    "StreamFact",
    "Hypothetical",
    "HypotheticalAnswer",
    "ChronologError",
    "ChronologSyntaxError",
    "ProgramError",
    "DataError",
    "InconsistencyError",
    "ArgumentError",
    "Note",
]
__version__ = "0.1.0"

# imported on first use: a command or a reason() call needs neither module
# (tests/test_startup_imports.py keeps the modules a small run imports)
_LAZY = {
    "explain_plan": "chronolog.plan_api",
    "Stream": "chronolog.stream",
    "StreamFact": "chronolog.stream",
    "Hypothetical": "chronolog.hypothetical",
    "HypotheticalAnswer": "chronolog.hypothetical",
}


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module 'chronolog' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
