"""Standard modules a command loads only when something uses them.

polars imports ``hashlib`` for its Iceberg cache and lark for its grammar
cache; ``hashlib`` loads OpenSSL's libcrypto, whose code and relocated data
are 3-4 MB of resident memory in every ``chronolog run`` although no run
hashes anything (the grammar's tables are cached without a hash,
language/reader.py).  A stand-in module takes the name until one of its
attributes is asked for; then the real module is imported, takes its place
in ``sys.modules`` and lends the stand-in its attributes, so a later use of
``hashlib`` anywhere in the process gets the whole module.  (Not the
standard library's ``importlib.util.LazyLoader``: before Python 3.12 the
import statement's own look at ``__spec__`` already loads such a module.)
Only in a command (``chronolog.cli.main``): the Python API leaves a host
process's modules alone.
"""

from __future__ import annotations

import importlib
import sys
import types

LAZY = ("hashlib",)


class _StandIn(types.ModuleType):
    """A module not executed yet; its first missing attribute loads it."""

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__") and attr not in ("__all__", "__file__"):
            raise AttributeError(attr)  # (probes such as __path__ or __wrapped__ load nothing)
        return getattr(_load(self), attr)


def _load(stand_in: _StandIn) -> types.ModuleType:
    name = stand_in.__name__
    if sys.modules.get(name) is stand_in:
        del sys.modules[name]
    real = importlib.import_module(name)
    stand_in.__dict__.update(real.__dict__)
    return real


def install(names=LAZY) -> None:
    """Put a stand-in for each of ``names`` not imported yet into ``sys.modules``."""
    import importlib.util

    for name in names:
        if name in sys.modules:
            continue
        spec = importlib.util.find_spec(name)
        if spec is None:
            continue
        stand_in = _StandIn(name)
        stand_in.__spec__ = spec
        sys.modules[name] = stand_in


def loaded(name: str) -> bool:
    """Whether ``name`` is imported and executed (not only a stand-in)."""
    module = sys.modules.get(name)
    return module is not None and not (isinstance(module, _StandIn) and "__file__" not in module.__dict__)
