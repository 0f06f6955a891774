"""The project's style for emitted tests: line length, first-party packages and its formatter.

Read from the files ruff, black, flake8 and isort read (``ruff.toml``, ``.ruff.toml``,
``pyproject.toml``, ``setup.cfg``) in the nearest folder above the test file that has one of
them (or a ``setup.py``/``.git``). First-party packages are found as ruff finds them: the
folders and modules in the project's ``src`` folders (by default the root and ``root/src``),
plus the names listed as known first-party. Without any such file ruff takes the current
folder as the project root, and so does this: its modules are first-party.

    >>> Style().line_length
    88
"""

from __future__ import annotations

import configparser
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

DEFAULT_LINE_LENGTH = 88  # ruff's and black's
CONFIG_FILES = ("ruff.toml", ".ruff.toml", "pyproject.toml", "setup.cfg")
ROOT_MARKERS = (*CONFIG_FILES, "setup.py", ".git")

Formatter = Literal["ruff", "black"]
_BOUND = re.compile(r"(>=|~=|==|>)\s*(\d+)\.(\d+)")
# ruff's own flake8-import-conventions alias (ICN001) for the module a test imports whole to
# write its values (``datetime.date(2007, 1, 1)``): it holds for a project that does not replace
# ruff's defaults (``aliases``), and for a file outside any project. ``import datetime`` is
# flagged by ``ruff --select ALL`` (issue 24). ruff's others (numpy as np, pandas as pd...)
# name modules whose values miogen's tests never write out: a project's own file that imports
# them is left as it is.
RUFF_ALIASES: tuple[tuple[str, str], ...] = (("datetime", "dt"),)


@dataclass(frozen=True)
class Style:
    """How emitted tests should look in one project."""

    line_length: int = DEFAULT_LINE_LENGTH
    first_party: frozenset[str] = frozenset()  # top-level module names
    formatter: Formatter | None = None  # the one the project configures, if any
    root: Path | None = None  # where the configuration lives (the formatter runs there)
    lints: bool = False  # the project configures ruff: its rules apply to the emitted file
    # isort's required-imports (ruff's rule I002), as configured: ``emit.imports`` parses them
    # with the tests' imports, and leaves out a line that is not an import statement
    required_imports: tuple[str, ...] = ()
    mypy: bool = False  # the project configures mypy ([tool.mypy], mypy.ini, setup.cfg [mypy])
    # module -> the name its import binds, as the project's ruff wants it (ICN001):
    # flake8-import-conventions' aliases (or extend-aliases) the project configures, else
    # ruff's own (``RUFF_ALIASES``)
    import_aliases: tuple[tuple[str, str], ...] = RUFF_ALIASES
    # the least Python the project supports (pyproject's ``requires-python``, else setup.cfg's
    # ``python_requires``), None when it declares none: its spellings (``emit.versions``)
    minimum_python: tuple[int, int] | None = None


def project_style(test_path: Path, current: Path | None = None) -> Style:
    """The style of the project that ``test_path`` (which need not exist yet) belongs to.

    Outside any project, ``current`` (by default the working folder: the CLI's, or the
    language server's, which is the editor's workspace folder) stands for the root, as in ruff.
    """
    root = _config_root(Path(test_path).resolve().parent)
    if root is None:
        folder = current or _working_folder()
        return Style(first_party=_first_party(folder, {}, {}, {}) if folder else frozenset())
    found = _ruff_settings(root)
    ruff = found or {}
    project_file = _toml(root / "pyproject.toml")
    pyproject = project_file.get("tool", {})
    black = pyproject.get("black") if isinstance(pyproject.get("black"), dict) else None
    setup = _setup_cfg(root / "setup.cfg")
    length = _first_int(
        ruff.get("line-length"),
        (black or {}).get("line-length"),
        setup.get("flake8", {}).get("max-line-length"),
        setup.get("pycodestyle", {}).get("max-line-length"),
        setup.get("isort", {}).get("line_length"),
    )
    return Style(
        line_length=length or DEFAULT_LINE_LENGTH,
        first_party=_first_party(root, ruff, pyproject, setup),
        formatter=_formatter(found, black),
        root=root,
        lints=found is not None,
        required_imports=_required_imports(ruff),
        import_aliases=_import_aliases(ruff),
        mypy=_configures_mypy(root, pyproject, setup),
        minimum_python=_minimum_python(project_file, setup),
    )


def _minimum_python(
    pyproject: dict[str, Any], setup: dict[str, dict[str, str]]
) -> tuple[int, int] | None:
    specifier = pyproject.get("project", {}).get("requires-python")
    if not isinstance(specifier, str):
        specifier = setup.get("options", {}).get("python_requires")
    return lower_bound(specifier) if isinstance(specifier, str) else None


def lower_bound(specifier: str) -> tuple[int, int] | None:
    """The least ``major.minor`` a ``requires-python`` specifier admits, None if it sets none.

    >>> lower_bound(">=3.8, <4")
    (3, 8)
    """
    found = [(int(m[2]), int(m[3]) + (1 if m[1] == ">" else 0)) for m in _BOUND.finditer(specifier)]
    return min(found) if found else None


def _working_folder() -> Path | None:
    try:
        return Path.cwd()
    except OSError:  # the folder was removed under the process
        return None


def _config_root(folder: Path) -> Path | None:
    for candidate in (folder, *folder.parents):
        if any((candidate / marker).exists() for marker in ROOT_MARKERS):
            return candidate
    return None


def _ruff_settings(root: Path) -> dict[str, Any] | None:
    """ruff's settings as in ``ruff.toml`` (``.ruff.toml``, else pyproject's ``[tool.ruff]``)."""
    for name in ("ruff.toml", ".ruff.toml"):
        if (root / name).exists():
            return _toml(root / name)
    section = _toml(root / "pyproject.toml").get("tool", {}).get("ruff")
    return section if isinstance(section, dict) else None


def _formatter(ruff: dict[str, Any] | None, black: dict[str, Any] | None) -> Formatter | None:
    """black when the project configures it and not ruff's formatter; else ruff if configured.

    A project with both ``[tool.ruff]`` and ``[tool.black]`` usually lints with ruff and
    formats with black, unless it has a ``format`` section for ruff.
    """
    if black is not None and "format" not in (ruff or {}):
        return "black"
    return "ruff" if ruff is not None else None


def _required_imports(ruff: dict[str, Any]) -> tuple[str, ...]:
    """The imports every file must have (``[lint.isort] required-imports``, or the older
    top-level ``[isort]`` table)."""
    lint = ruff.get("lint", {}) if isinstance(ruff.get("lint"), dict) else {}
    for table in (lint.get("isort"), ruff.get("isort")):
        if isinstance(table, dict) and isinstance(table.get("required-imports"), list):
            return tuple(map(str, table["required-imports"]))  # parsed by ``emit.imports``
    return ()


def _import_aliases(ruff: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """The import aliases the project's ruff configuration wants: ruff's own
    (``RUFF_ALIASES``, ``import datetime as dt``) unless its ``[lint.flake8-import-conventions]
    aliases`` replace them, with its ``extend-aliases`` added."""
    lint = ruff.get("lint", {}) if isinstance(ruff.get("lint"), dict) else {}
    found: dict[str, str] = dict(RUFF_ALIASES)
    for table in (ruff.get("flake8-import-conventions"), lint.get("flake8-import-conventions")):
        if not isinstance(table, dict):
            continue
        for key in ("aliases", "extend-aliases"):
            aliases = table.get(key)
            if not isinstance(aliases, dict):
                continue
            if key == "aliases":
                found = {}  # ruff's defaults replaced
            found |= {str(m): str(a) for m, a in aliases.items() if str(a).isidentifier()}
    return tuple(sorted(found.items()))


def _configures_mypy(
    root: Path, pyproject: dict[str, Any], setup: dict[str, dict[str, str]]
) -> bool:
    """Whether mypy has a configuration of the project's, where mypy looks for one."""
    if (root / "mypy.ini").is_file() or (root / ".mypy.ini").is_file():
        return True
    return isinstance(pyproject.get("mypy"), dict) or "mypy" in setup


def _first_party(
    root: Path, ruff: dict[str, Any], pyproject: dict[str, Any], setup: dict[str, dict[str, str]]
) -> frozenset[str]:
    lint = ruff.get("lint", {}) if isinstance(ruff.get("lint"), dict) else {}
    isort = lint.get("isort") or ruff.get("isort") or {}
    known = [*isort.get("known-first-party", [])]
    known += pyproject.get("isort", {}).get("known_first_party", [])
    known += _comma_list(setup.get("isort", {}).get("known_first_party", ""))
    names = set(known)
    for source in ruff.get("src", [".", "src"]):
        folder = (root / source).resolve()
        if folder.is_dir():
            names |= _top_level_modules(folder)
    return frozenset(names)


def _top_level_modules(folder: Path) -> set[str]:
    """Names importable from ``folder``: packages (any folder, as namespace packages count) and
    modules."""
    found: set[str] = set()
    try:
        entries = list(folder.iterdir())
    except OSError:
        return found
    for entry in entries:
        if entry.is_dir() and entry.name.isidentifier():
            found.add(entry.name)
        elif entry.suffix in (".py", ".pyi") and entry.stem.isidentifier():
            found.add(entry.stem)
    return found


def _toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as stream:
            return tomllib.load(stream)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return {}


def _setup_cfg(path: Path) -> dict[str, dict[str, str]]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError):
        return {}
    return {section: dict(parser[section]) for section in parser.sections()}


def _comma_list(text: str) -> list[str]:
    return [part.strip() for part in text.replace("\n", ",").split(",") if part.strip()]


def _first_int(*values: object) -> int | None:
    for value in values:
        try:
            number = int(str(value)) if value is not None else None
        except ValueError:
            continue
        if number is not None and number > 0:
            return number
    return None
