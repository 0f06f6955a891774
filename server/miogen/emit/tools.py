"""The project's tools for a generated file, looked up once per file: its ruff, black and mypy.

Each is the project's own where its virtual environment has it (``.venv``, ``venv`` or ``env``:
``common.environment``, where ``host.interpreter`` finds the project's Python too),
else the one beside miogen's Python (ruff: the one miogen depends on). The owner of a write
(``run.write``, or ``emit.writer`` for the editor's text) looks them up once, with the project's
style, and hands them to the formatter (``emit.formatting``) and to the checks of the written
file (``emit.checks``): neither looks a tool up itself.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from miogen.common.environment import project_environment
from miogen.emit.style import Style


@dataclass(frozen=True)
class Tools:
    """The executables that apply to one project's file; None where one does not (not installed,
    or the project does not ask for it)."""

    ruff: str | None  # formats where nothing else does; lints where the project configures ruff
    black: tuple[str, ...] | None = None  # its command, where the project formats with black
    mypy: str | None = None  # where the project configures mypy and has it


def project_tools(style: Style) -> Tools:
    """The tools of the project whose ``style`` this is, each looked up once."""
    return Tools(
        ruff_executable(style.root),
        _black(style.root) if style.formatter == "black" else None,
        mypy_executable(style.root) if style.mypy else None,
    )


def environment_folders(root: Path | None) -> list[Path]:
    """Script folders, the project's own virtual environment's first."""
    environment = project_environment(root)
    folders = [environment / "bin"] if environment is not None else []
    return [*folders, Path(sys.executable).parent]


def _black(root: Path | None) -> tuple[str, ...] | None:
    for folder in environment_folders(root):
        if (folder / "black").is_file():
            return (str(folder / "black"),)
    if importlib.util.find_spec("black") is not None:
        return (sys.executable, "-m", "black")
    return None


def ruff_executable(root: Path | None) -> str | None:
    for folder in environment_folders(root):
        if (folder / "ruff").is_file():
            return str(folder / "ruff")
    try:
        from ruff.__main__ import find_ruff_bin  # type: ignore[import-untyped]
    except ImportError:
        return shutil.which("ruff")
    try:
        return str(find_ruff_bin())
    except FileNotFoundError:
        return shutil.which("ruff")


def mypy_executable(root: Path | None) -> str | None:
    """The project's mypy (its environment's first), None where none is installed."""
    for folder in environment_folders(root):
        if (folder / "mypy").is_file():
            return str(folder / "mypy")
    return None
