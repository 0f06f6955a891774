"""Where a module lives in its project: the import root, its dotted name, and its test file."""

from __future__ import annotations

import configparser
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")


@dataclass(frozen=True)
class ModuleLocation:
    path: Path  # the module file, resolved
    project_root: Path
    import_root: Path  # the folder on sys.path (project root, or its src/)
    module_name: str  # dotted name relative to import_root


def find_project_root(start: Path) -> Path:
    """The nearest folder with pyproject.toml/setup.cfg/setup.py/.git; else the file's folder."""
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.parents):
        if any((candidate / marker).exists() for marker in ROOT_MARKERS):
            return candidate
    return folder


def locate(path: str | Path, project_root: str | Path | None = None) -> ModuleLocation:
    path = Path(path).resolve()
    root = Path(project_root).resolve() if project_root else find_project_root(path)
    import_root = _import_root(path, root)
    relative = path.relative_to(import_root).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ModuleLocation(path, root, import_root, ".".join(parts))


def _import_root(path: Path, root: Path) -> Path:
    """src/ layouts import from src/; a file outside the root imports from its own folder.

    Inside the root, the import root is the highest folder from which every folder down to the
    file is a package or a plain folder (namespace package), i.e. the root itself, unless the
    file sits in a folder chain broken by a non-identifier name (then its own folder).
    """
    try:
        relative = path.relative_to(root)
    except ValueError:
        return path.parent
    if relative.parts[0] == "src" and (root / "src").is_dir():
        base = root / "src"
        relative = path.relative_to(base)
    else:
        base = root
    folders = relative.parts[:-1]
    for index in range(len(folders), 0, -1):
        if not folders[index - 1].isidentifier():
            return base.joinpath(*folders[:index])
    return base


def is_test_file(path: Path) -> bool:
    """pytest's default test-file names, and conftest.py: files whose code is tests, not units."""
    name = Path(path).name
    return name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py")


def default_test_path(
    location: ModuleLocation, tests_directory: str = "tests", pattern: str = "test_{module}.py"
) -> Path:
    short = location.module_name.rpartition(".")[2]
    short = re.sub(r"\W", "_", short)  # my-mod.py: tests/test_my_mod.py, a name pytest imports
    return location.project_root / tests_directory / pattern.format(module=short)


def pytest_warning_filters(project_root: Path) -> tuple[str, ...]:
    """The project's pytest ``filterwarnings``, from the file pytest reads at its root.

    pytest takes the first of pytest.ini, .pytest.ini, pyproject.toml (with a pytest table),
    tox.ini ([pytest]) and setup.cfg ([tool:pytest]); an unreadable file counts as none.
    """
    for name in CONFIG_FILES:
        path = project_root / name
        if not path.is_file():
            continue
        try:
            found = _filters_in(path)
        except (OSError, UnicodeDecodeError, ValueError, configparser.Error):
            return ()
        if found is not None:
            return found
    return ()


CONFIG_FILES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")


def _filters_in(path: Path) -> tuple[str, ...] | None:
    """The file's filters; None when it is not a pytest configuration."""
    if path.suffix == ".toml":
        tool = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {})
        table = tool.get("pytest", {})
        table = table.get("ini_options", table) if isinstance(table, dict) else {}
        if "pytest" not in tool:
            return None
        return _lines(table.get("filterwarnings", []))
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(path, encoding="utf-8")
    section = "tool:pytest" if path.name == "setup.cfg" else "pytest"
    if not parser.has_section(section):
        return None if path.name in ("tox.ini", "setup.cfg") else ()
    return _lines(parser.get(section, "filterwarnings", fallback=""))


def _lines(value: object) -> tuple[str, ...]:
    items = value.splitlines() if isinstance(value, str) else value
    if not isinstance(items, list | tuple):
        raise ValueError("filterwarnings is neither a string nor a list")
    return tuple(str(item).strip() for item in items if str(item).strip())
