"""Import pyarrow without pandas, and without breaking pandas for later.

pyarrow imports pandas on its first conversion of any Python or numpy
object (``pa.array``, ``pa.table``, ``pa.scalar``), only to recognise pandas
objects; reading a fact file never hands it one, and the import costs 0.2 s
of CPU and 30 MB, more than reading 100,000 facts.  :func:`import_pyarrow`
makes that first check with pandas hidden, so pyarrow notes "no pandas".

pyarrow then keeps that note (its shim in ``pandas-shim.pxi`` checks once):
``pa.array(pandas.Series(...))`` would treat a Series as a plain sequence.
So a finder stays on ``sys.meta_path`` until pandas is imported by anyone;
after that import it asks pyarrow's shim for pandas once more (the shim's
explicit request imports it again, which is now free), and pyarrow knows
pandas as if it had found it itself.

:func:`without_pandas` does the same for whichever module first imports
pyarrow within a ``reason()`` call or a command (the CSV and Parquet
readers, the printers of columns): a first call on a bound CSV file of
100,000 rows otherwise spends 0.2 s of its 0.5 s of CPU importing pandas.
The hiding holds only in the importing thread, so a host's thread that
imports pandas meanwhile gets it.
"""

from __future__ import annotations

import contextlib
import sys
from _thread import get_ident  # (not threading: a small command imports none of it)


class _Hide:
    """A finder that refuses pandas to one thread (while pyarrow makes its
    check there)."""

    def __init__(self):
        self.thread = get_ident()

    def find_spec(self, name, path=None, target=None):
        if name == "pandas" and get_ident() == self.thread:
            raise ImportError("hidden while pyarrow checks for it")
        return None


class _Rearm:
    """A finder that lets pandas through and, once it is imported, tells
    pyarrow's shim about it.  (It stays until then: a mere ``find_spec``
    for pandas, which polars makes to see what is installed, imports
    nothing.)"""

    def find_spec(self, name, path=None, target=None):
        if name != "pandas":
            return None
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        run, finder = spec.loader.exec_module, self

        def exec_module(module):
            run(module)
            if finder in sys.meta_path:
                sys.meta_path.remove(finder)
            import pyarrow.lib

            pyarrow.lib._pandas_api.pd  # (the shim's request imports pandas: sys.modules has it now)

        spec.loader.exec_module = exec_module
        return spec


def import_pyarrow():
    """pyarrow, imported without importing pandas (when pandas is not
    imported yet); returns the module."""
    if "pandas" in sys.modules or _checked():
        import pyarrow

        return pyarrow
    import pyarrow

    _check_without_pandas(pyarrow)
    return pyarrow


def _check_without_pandas(pyarrow) -> None:
    """pyarrow's one look for pandas, made with pandas hidden.  The finder
    that tells pyarrow of pandas once someone imports it goes in first: an
    import of pandas by another thread during the check then reaches it."""
    if _checked():
        return
    sys.meta_path.insert(0, _Rearm())
    hide = _Hide()
    sys.meta_path.insert(0, hide)
    try:
        pyarrow.array([0])  # the shim's one check
    finally:
        sys.meta_path.remove(hide)


class _FirstImport:
    """A finder that lets pyarrow through and, once its module has run,
    makes its pandas check as :func:`import_pyarrow` does."""

    def find_spec(self, name, path=None, target=None):
        if name != "pyarrow":
            return None
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self)
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None or "pandas" in sys.modules:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            if "pandas" not in sys.modules and not _checked():
                _check_without_pandas(module)

        spec.loader.exec_module = exec_module
        return spec


@contextlib.contextmanager
def without_pandas():
    """Within: the first import of pyarrow, by any module, is made as
    :func:`import_pyarrow` makes it (nothing to do once pyarrow or pandas is
    imported)."""
    if "pyarrow" in sys.modules or "pandas" in sys.modules:
        yield
        return
    finder = _FirstImport()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(finder)


def _checked() -> bool:
    """Whether pyarrow's check was made here and pandas is still awaited."""
    return any(isinstance(f, _Rearm) for f in sys.meta_path)
