"""chronolog run from a source checkout: where its subpackages are when it
is not installed, and what to say when a dependency is missing (the
checkout's ``python3 -m chronolog`` under a Python that lacks them)."""

from __future__ import annotations

import os
import sys


def subpackage_dirs(package_dir: str) -> list:
    """Where else ``chronolog.language``, ``.planner``, ``.engine`` and
    ``.connectors`` are: the checkout's root, where pyproject.toml's
    package-dir maps them (an installed chronolog has them inside)."""
    root = os.path.dirname(os.path.abspath(package_dir))
    if os.path.isdir(os.path.join(package_dir, "engine")) or not os.path.isfile(os.path.join(root, "engine", "__init__.py")):
        return []
    return [root]


def missing_dependency(e: BaseException) -> str | None:
    """The sentence for an import of a package chronolog needs and this
    Python does not have; None for anything else."""
    if not isinstance(e, ModuleNotFoundError) or (e.name or "chronolog").partition(".")[0] == "chronolog":
        return None
    return (
        f"error: chronolog needs the Python package {e.name.partition('.')[0]}, which {sys.executable} does not have\n"
        "  hint: run `bash setup.sh` in the checkout and use .venv/bin/chronolog, or pip install the checkout "
        "(docs/install.md)"
    )
