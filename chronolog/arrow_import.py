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
"""

from __future__ import annotations

import sys


class _Hide:
    """A finder that refuses pandas (while pyarrow makes its check)."""

    def find_spec(self, name, path=None, target=None):
        if name == "pandas":
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
    hide = _Hide()
    sys.meta_path.insert(0, hide)
    try:
        import pyarrow

        pyarrow.array([0])  # the shim's one check, with pandas hidden
    finally:
        sys.meta_path.remove(hide)
    if "pandas" not in sys.modules:
        sys.meta_path.insert(0, _Rearm())
    return pyarrow


def _checked() -> bool:
    """Whether pyarrow's check was made here and pandas is still awaited."""
    return any(isinstance(f, _Rearm) for f in sys.meta_path)
