"""The layers hold: language -> planner -> engine -> connectors -> the API.

A module may import its own layer and the layers below it, never one above
(docs/design.md, "Layering, as it is").  Every import counts: at module
level, inside functions and under ``if TYPE_CHECKING:``, and
``importlib.import_module`` of a literal name.

Our own check over ``ast`` rather than import-linter: import-linter (through
grimp) finds a package's modules by walking the directory of its top-level
package, and ``pyproject.toml`` maps ``chronolog.language`` to ``language/``,
``chronolog.engine`` to ``engine/`` and so on, outside ``chronolog/``; grimp
reports "module chronolog.connectors does not exist" and refuses a subpackage
as a root (``NotATopLevelModule``).  This test reads the same mapping.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Lowest first; a module not under one of the first four is the API layer.
LAYERS = ("chronolog.language", "chronolog.planner", "chronolog.engine", "chronolog.connectors")
API = len(LAYERS)
LAYER_NAMES = (*LAYERS, "chronolog (the API and CLI)")


def layer(module: str) -> int | None:
    """The layer of a chronolog module, None for a module outside chronolog."""
    if module != "chronolog" and not module.startswith("chronolog."):
        return None
    for i, name in enumerate(LAYERS):
        if module == name or module.startswith(name + "."):
            return i
    return API


def package_modules() -> dict[str, Path]:
    """Every module of the installed packages, by dotted name, from pyproject's package-dir."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    dirs = config["package-dir"]
    modules: dict[str, Path] = {}
    for package in config["packages"]:
        # The deepest mapped ancestor gives the directory.
        base = max((p for p in dirs if package == p or package.startswith(p + ".")), key=len)
        directory = ROOT / dirs[base] / Path(*package[len(base) :].strip(".").split(".") if package != base else ())
        for path in sorted(directory.glob("*.py")):
            name = package if path.stem == "__init__" else f"{package}.{path.stem}"
            modules[name] = path
    return modules


def imports(source: str, module: str, is_package: bool, known: set[str]) -> list[tuple[int, str]]:
    """(line, imported module) for every import in ``source``, wherever it sits."""
    package = module if is_package else module.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module
            # ``from chronolog import allocators`` imports the module chronolog.allocators;
            # ``from chronolog import reason`` takes a name from the package itself.
            subs = [f"{target}.{a.name}" for a in node.names]
            found += [(node.lineno, s) for s in subs if s in known]
            if not all(s in known for s in subs):
                found.append((node.lineno, target))
        elif isinstance(node, ast.Call) and _is_import_module(node.func) and node.args:
            name = _literal_prefix(node.args[0], package)
            if name:
                found.append((node.lineno, name))
    return found


def _is_import_module(func: ast.expr) -> bool:
    return (isinstance(func, ast.Attribute) and func.attr == "import_module") or (
        isinstance(func, ast.Name) and func.id in ("import_module", "__import__")
    )


def _literal_prefix(arg: ast.expr, package: str) -> str | None:
    """The module a literal name, or the package an f-string's leading part, names."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.JoinedStr) and arg.values:
        text = ""
        for part in arg.values:
            if isinstance(part, ast.Constant):
                text += part.value
            elif isinstance(part.value, ast.Name) and part.value.id == "__package__":
                text += package
            else:
                break
        return text.rpartition(".")[0] or None
    return None


def violations() -> list[str]:
    modules = package_modules()
    known = set(modules)
    found = []
    for module, path in modules.items():
        own = layer(module)
        for line, target in imports(path.read_text(), module, path.stem == "__init__", known):
            theirs = layer(target)
            if theirs is not None and theirs > own:
                rel = path.relative_to(ROOT)
                found.append(f"{rel}:{line} {module} imports {target} ({LAYER_NAMES[own]} -> {LAYER_NAMES[theirs]})")
    return found


def test_every_module_is_seen():
    modules = package_modules()
    on_disk = {
        p
        for d in ("chronolog", "language", "planner", "engine", "connectors")
        for p in (ROOT / d).rglob("*.py")
        if "__pycache__" not in p.parts
    }
    assert on_disk == set(modules.values())
    assert {layer(m) for m in modules} == set(range(API + 1))


def test_the_check_sees_imports_in_functions():
    source = (
        "import chronolog.engine.rows\n"
        "def f():\n"
        "    from ..connectors import arrow\n"
        "    from chronolog import allocators\n"
        "    importlib.import_module(f'chronolog.engine.columns.{x}')\n"
        "    importlib.import_module(f'{__package__}.{x}')\n"
    )
    known = {"chronolog.allocators", "chronolog.connectors.arrow"}
    got = sorted(t for _, t in imports(source, "chronolog.language.x", False, known))
    assert got == sorted([
        "chronolog.engine.rows",
        "chronolog.connectors.arrow",
        "chronolog.allocators",
        "chronolog.engine.columns",
        "chronolog.language",
    ])


def test_layers_hold():
    found = violations()
    assert not found, f"{len(found)} imports point up a layer:\n" + "\n".join(found)


def test_moved_entry_points_say_where_they_went():
    """The Spark entry points moved above the API (chronolog.spark,
    chronolog.spark_stream); their old names answer with the new ones."""
    import pytest

    from chronolog.connectors import spark, spark_stream

    with pytest.raises(AttributeError, match=r"chronolog\.spark\.reason: write `from chronolog import spark as cs`"):
        spark.reason
    with pytest.raises(AttributeError, match=r"is now chronolog\.spark_stream\.stream_query"):
        spark_stream.stream_query


if __name__ == "__main__":
    print("\n".join(violations()))
