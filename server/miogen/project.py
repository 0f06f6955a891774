"""Where a module lives in its project: the import root, its dotted name, and its test file."""

from __future__ import annotations

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
    return location.project_root / tests_directory / pattern.format(module=short)
