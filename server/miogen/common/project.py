"""Where a module lives in its project: the import root, its dotted name, and its test file.

Generated tests live in files of miogen's own (invariant 3) under the project's test folder
(pytest's ``testpaths``, else an existing ``tests/`` or ``test/``, else ``tests/``), in folders
that mirror the module's package path: ``pkg/sub/mod.py`` -> ``tests/pkg/sub/test_mod_miogen.py``.
pytest's default import mode (``prepend``) imports a test file under its basename unless its
folder is a package: where the test folder is not one, the name holds the whole dotted path
(``tests/pkg/sub/test_pkg_sub_mod_miogen.py``), so that two modules of one name never collide.
"""

from __future__ import annotations

import configparser
import os
import re
import shlex
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
GENERATED_PATTERN = "test_{module}_miogen.py"  # the default name of a generated test file
TEST_FOLDERS = ("tests", "test")


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


def is_project(root: Path) -> bool:
    """A folder with a project's marker (pyproject.toml, setup.cfg, setup.py, .git), and not
    an installation's (the standard library's test package is no suite of the user's)."""
    installed = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    if "site-packages" in root.parts or any(root.is_relative_to(p) for p in installed):
        return False
    return any((root / marker).exists() for marker in ROOT_MARKERS)


def project_folder(location: ModuleLocation, test_file: Path | None) -> Path | None:
    """The folder of the project where the verification's copy of ``test_file`` goes: the
    file's own, else the nearest existing one above it (no folder is made; pytest imports a
    file there as it will the one written: no conftest.py or ``__init__.py`` lies in folders
    not made yet, and those miogen makes are ``package_files``, as the folder above). None:
    no project (no pyproject.toml, setup.cfg, setup.py or .git), or a file outside it."""
    if test_file is None:
        return None
    root = location.project_root.resolve()
    target = Path(test_file).resolve()
    if not target.is_relative_to(root) or not is_project(root):
        return None
    folder = target.parent
    while not folder.is_dir():
        folder = folder.parent
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
    location: ModuleLocation,
    tests_directory: str = "",
    pattern: str = GENERATED_PATTERN,
    folder: Path | None = None,
) -> Path:
    """The generated test file of the module at ``location`` (``tests_directory``: relative to
    the project root; empty: ``project_tests_folder``), mirroring the module's package path;
    ``folder``: the project's test folder, when the caller found it already.

    >>> root = Path("/nowhere")
    >>> at = ModuleLocation(root / "pkg/sub/mod.py", root, root, "pkg.sub.mod")
    >>> default_test_path(at).relative_to(root).as_posix()
    'tests/pkg/sub/test_pkg_sub_mod_miogen.py'
    """
    folder = folder or (location.project_root / tests_directory if tests_directory else None)
    folder = folder or project_tests_folder(location.project_root, location.path)
    *packages, short = location.module_name.split(".")
    short = re.sub(r"\W", "_", short)  # my-mod.py: test_my_mod..., a name pytest imports
    target = folder.joinpath(*packages)
    name = short if packaged(folder, target) else "_".join([*packages, short])
    return target / pattern.format(module=name)


def project_tests_folder(project_root: Path, module_path: Path | None = None) -> Path:
    """Where the project's tests live: the first of pytest's ``testpaths`` that is a plain folder
    inside the project (not the project root itself, nor a folder holding ``module_path``), else
    an existing ``tests/`` or ``test/``, else ``tests/`` (to be created)."""
    for entry in pytest_ini_values(project_root, "testpaths") or ():
        if any(char in entry for char in "*?["):
            continue
        folder = (project_root / entry).resolve()
        inside = folder.is_relative_to(project_root.resolve()) and folder != project_root.resolve()
        holds = module_path is not None and Path(module_path).resolve().is_relative_to(folder)
        if inside and not holds:
            return project_root / entry
    for name in TEST_FOLDERS:
        if (project_root / name).is_dir():
            return project_root / name
    return project_root / TEST_FOLDERS[0]


def packaged(tests_root: Path, folder: Path) -> bool:
    """Whether test files in ``folder`` (under ``tests_root``) are imported as modules of a package:
    ``tests_root`` has an ``__init__.py``, and so has every folder down to ``folder`` that exists
    already (the folders miogen creates get one, ``package_files``)."""
    if not (tests_root / "__init__.py").is_file():
        return False
    current = tests_root
    for part in folder.relative_to(tests_root).parts:
        current = current / part
        if current.is_dir() and not (current / "__init__.py").is_file():
            return False
    return True


def package_files(tests_root: Path, test_file: Path) -> list[Path]:
    """The ``__init__.py`` files missing between ``tests_root`` and ``test_file``'s folder, where
    the test folder is a package (pytest then imports the file under its dotted path)."""
    folder = test_file.parent
    if not folder.is_relative_to(tests_root) or not packaged(tests_root, folder):
        return []
    missing, current = [], tests_root
    for part in folder.relative_to(tests_root).parts:
        current = current / part
        if not (current / "__init__.py").exists():
            missing.append(current / "__init__.py")
    return missing


def pytest_sys_path(project_root: Path, test_file: Path) -> list[Path]:
    """The folders plain ``pytest``, run at ``project_root``, puts first on ``sys.path`` when it
    imports ``test_file``: its ``pythonpath`` option's, then, unless the import mode is
    ``importlib``, the base folder of the file and of each ``conftest.py`` on the way from the
    root to it (the first folder upward that is not a package)."""
    paths = [project_root / entry for entry in pytest_ini_values(project_root, "pythonpath") or ()]
    options = " ".join(pytest_ini_values(project_root, "addopts") or ())
    if re.search(r"--import-mode[= ]importlib", options):
        return paths
    folders = [project_root]
    if test_file.parent.is_relative_to(project_root):
        for part in test_file.parent.relative_to(project_root).parts:
            folders.append(folders[-1] / part)
    with_conftest = [f for f in folders if (f / "conftest.py").is_file()]
    for folder in [*with_conftest, test_file.parent]:
        base = _base_folder(folder)
        if base not in paths:
            paths.append(base)
    return paths


def _base_folder(folder: Path) -> Path:
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        folder = folder.parent
    return folder


def pytest_warning_filters(project_root: Path) -> tuple[str, ...]:
    """The project's pytest ``filterwarnings``, from the file pytest reads at its root."""
    return pytest_ini_values(project_root, "filterwarnings") or ()


def pytest_ini_values(project_root: Path, key: str) -> tuple[str, ...] | None:
    """A line-list option of the project's pytest configuration (``filterwarnings``,
    ``testpaths``, ``pythonpath``), from the file pytest reads at its root; None: not set.

    pytest takes the first of pytest.ini, .pytest.ini, pyproject.toml (with a pytest table),
    tox.ini ([pytest]) and setup.cfg ([tool:pytest]); an unreadable file counts as none.
    """
    for name in CONFIG_FILES:
        path = project_root / name
        if not path.is_file():
            continue
        try:
            found = _values_in(path, key)
        except (OSError, UnicodeDecodeError, ValueError, configparser.Error):
            return None
        if found is not None:
            return found[0]
    return None


CONFIG_FILES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")


def _values_in(path: Path, key: str) -> tuple[tuple[str, ...] | None] | None:
    """The key's values in the file (inside a 1-tuple); None when it is no pytest configuration."""
    if path.suffix == ".toml":
        tool = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {})
        table = tool.get("pytest", {})
        table = table.get("ini_options", table) if isinstance(table, dict) else {}
        if "pytest" not in tool:
            return None
        return (_lines(table[key], key) if key in table else None,)
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(path, encoding="utf-8")
    section = "tool:pytest" if path.name == "setup.cfg" else "pytest"
    if not parser.has_section(section):
        return None if path.name in ("tox.ini", "setup.cfg") else (None,)
    value = parser.get(section, key, fallback=None)
    return (_lines(value, key) if value is not None else None,)


ARGUMENT_LISTS = (
    "testpaths",
    "pythonpath",
    "addopts",
)  # pytest's "args" options; the others are line lists


def _lines(value: object, key: str) -> tuple[str, ...]:
    if isinstance(value, str):
        items: object = shlex.split(value) if key in ARGUMENT_LISTS else value.splitlines()
    else:
        items = value
    if not isinstance(items, list | tuple):
        raise ValueError("expected a string or a list")
    return tuple(str(item).strip() for item in items if str(item).strip())


# --- the project's tool for freezing time in tests --------------------------------------------

TIME_FREEZERS = {"freezegun": "freezegun", "time-machine": "time_machine"}  # package: module
DEPENDENCY_FILES = ("pyproject.toml", "setup.cfg", "setup.py", "tox.ini")
SCANNED_TEST_FILES = 200  # test files read for an import, at the most


def time_freezer(project_root: Path) -> str | None:
    """The tool the project freezes time with in its tests, ``freezegun`` or ``time-machine``:
    named among its dependencies (pyproject.toml, setup.cfg, setup.py, tox.ini,
    requirements*.txt) or imported by its tests or their ``conftest.py``; None when neither."""
    texts = [
        *(project_root / name for name in DEPENDENCY_FILES),
        *sorted(project_root.glob("requirements*.txt")),
        *sorted(project_root.glob("requirements/*.txt")),
    ]
    for path in texts:
        found = _freezer_named(_read(path))
        if found:
            return found
    folder = project_tests_folder(project_root)
    candidates = [project_root / "conftest.py"]
    if folder.is_dir():
        candidates += sorted(folder.rglob("conftest.py")) + sorted(folder.rglob("test_*.py"))
    for path in candidates[:SCANNED_TEST_FILES]:
        text = _read(path)
        for package, module in TIME_FREEZERS.items():
            if re.search(rf"^\s*(from|import)\s+{module}\b", text, re.MULTILINE):
                return package
    return None


def _freezer_named(text: str) -> str | None:
    for package in TIME_FREEZERS:
        pattern = package.replace("-", "[-_.]")
        if re.search(rf"(?<![\w.-]){pattern}(?![\w-])", text, re.IGNORECASE):
            return package
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    except OSError:
        return ""


# --- the modules under paths (miogen ctg's units, the editor's file and folder runs) -----

SKIPPED_FOLDERS = frozenset(
    {"tests", "test", "testing", "docs", "build", "dist", "node_modules", "site-packages",
     "venv", "env", "__pycache__"}
)  # fmt: skip
SKIPPED_FILES = frozenset({"setup.py", "conftest.py", "noxfile.py", "__main__.py"})


def module_files(paths: list[Path]) -> list[Path]:
    """The .py files named, and those under the folders named (tests, venvs, hidden skipped);
    FileNotFoundError for a path that is neither."""
    found: list[Path] = []
    for path in paths:
        if path.is_file():
            found.append(path.resolve())
        elif path.is_dir():
            found.extend(_walk(path.resolve()))
        else:
            raise FileNotFoundError(f"no such file or folder: {path}")
    return sorted(dict.fromkeys(found))


def _walk(folder: Path) -> list[Path]:
    files: list[Path] = []
    for current, folders, names in os.walk(folder):
        folders[:] = sorted(
            f for f in folders if not f.startswith(".") and f not in SKIPPED_FOLDERS
        )
        files.extend(Path(current) / name for name in names if _is_module(name))
    return files


def _is_module(name: str) -> bool:
    return (
        name.endswith(".py")
        and name not in SKIPPED_FILES
        and not name.startswith("test_")
        and not name.endswith("_test.py")
    )
